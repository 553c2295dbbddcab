"""The NumPy body of exact_sum, exact_mean, their nan-variants and
exact_add.reduce.

The gufuncs reduce the last axis of an array and round once into the loop's
output dtype.  Everything NumPy's gufunc machinery cannot do (axis=None and
tuples, where=, initial=, out= of another dtype, complex) happens here, with
one rule: never round an intermediate.  Several reduced axes become rows
(:mod:`.rows`); `initial` is merged as an exact state; masked terms and, for
the nan-variants, NaNs are left out by the masked loop, which also counts
the terms for means; `out` of another dtype selects the loop that rounds
straight into it.
"""

import math

import numpy as np

from .._ufuncs import (
    exact_mean_ufunc,
    exact_state_mean_ufunc,
    exact_state_merge_ufunc,
    exact_state_round_ufunc,
    exact_sum_state_ufunc,
    exact_sum_ufunc,
)
from . import dtypes, rows
from . import stateformat as fmt
from . import states as st
from .spec import NO_VALUE, ReductionSpec, as_input, warn_empty_mean


def _reduce_component(values, axes, result, target, initial_state, mean, selection):
    """Exact sums (or means) of real `values` over `axes`, rounded once.

    result: the dtype to round into.  target: an array of that dtype and the
    output shape to write into, or None to allocate.  initial_state: the
    state of one more term, or None.  selection: None (every term), or
    (mask, skip_nan) for the masked loop.  Returns the result and, for
    means, the term counts (None when every row counts all its terms).
    """
    in_dtype = dtypes.native(values.dtype)
    counts = None
    if selection is None:
        merged = rows.rows(values, axes)
        if merged is not None and initial_state is None:
            ufunc = exact_mean_ufunc if mean else exact_sum_ufunc
            return ufunc(merged, out=target, signature=(in_dtype, result)), None
        if merged is not None:
            states = exact_sum_state_ufunc(merged, signature=(in_dtype, fmt.NATIVE))
        else:
            states = rows.states_axis_by_axis(values, axes)
        if mean:
            counts = np.asarray(math.prod(values.shape[ax] for ax in axes), fmt.NATIVE)
    else:
        states, counts = rows.masked_states(values, selection[0], axes, selection[1])
    if initial_state is not None:
        pair = np.stack(np.broadcast_arrays(states, initial_state), axis=-2)
        states = exact_state_merge_ufunc(pair)
    if not mean:
        return exact_state_round_ufunc(states, out=target,
                                       signature=(fmt.NATIVE, result)), None
    return exact_state_mean_ufunc(states, counts, out=target,
                                  signature=(fmt.NATIVE, fmt.NATIVE, result)), counts


def _needs_states(values, axes, initial_state, selection):
    return selection is not None or initial_state is not None or rows.goes_by_states(values, axes)


def _reduce_blocked(values, axes, result, target, initial_state, mean, selection):
    """_reduce_component over blocks of the kept axes when its scratch (exact
    states of 552 bytes per result, copies of terms whose axes do not merge
    as a view) would take more than rows.SCRATCH_BYTES; each block is
    rounded straight into the output (results and counts as
    _reduce_component).  initial= holds up to four blocks of states at once:
    the states, the pair stacked with the initial state, the merged states."""
    kept = [ax for ax in range(values.ndim) if ax not in axes]
    outputs = math.prod(values.shape[ax] for ax in kept)
    per_result = rows.scratch_per_result(
        values, axes, mask=None if selection is None else selection[0],
        states=_needs_states(values, axes, initial_state, selection))
    if not kept or outputs <= 1 or outputs * per_result <= rows.SCRATCH_BYTES:
        return _reduce_component(values, axes, result, target, initial_state, mean, selection)
    first = next(ax for ax in kept if values.shape[ax] > 1)     # outputs > 1
    at = kept.index(first)                             # its position in the output
    length = values.shape[first]
    per_index = outputs // length                      # results per index of that axis
    block = max(1, rows.SCRATCH_BYTES // max(per_index * per_result, 1))
    outer_shape = tuple(values.shape[ax] for ax in kept)
    res = np.empty(outer_shape, result) if target is None else target
    counts = np.empty(outer_shape, fmt.NATIVE) if mean or selection is not None else None
    for start in range(0, length, block):
        part = [slice(None)] * values.ndim
        part[first] = slice(start, start + block)
        part = tuple(part)
        sub_selection = None if selection is None else (selection[0][part], selection[1])
        out_part = (slice(None),) * at + (slice(start, start + block),)
        _, sub_counts = _reduce_blocked(values[part], axes, result, res[out_part],
                                        initial_state, mean, sub_selection)
        if counts is not None:
            counts[out_part] = (sub_counts if sub_counts is not None
                                else math.prod(values.shape[ax] for ax in axes))
    return res, counts


# Native input dtypes whose first registered loop is also their default
# result, so that a plain call needs no signature (see _ufuncs.pyx); the
# byte-coded formats too, given their signature (NumPy's search among the
# loops of several user dtypes is not theirs to trust).
_PLAIN_CALL_DTYPES = frozenset(
    [np.dtype(c) for c in "?bBhHiIlLqQefd"] + [dtypes.BFLOAT16] + list(dtypes.CODES))


def plain_call(a, dtype, out):
    """The keywords of a gufunc call on `a` that rounds into the default
    result with no Python step in front of the loop (exact_reduce's and
    accumulate's common call), or None when the call needs the general path
    (dtype=, out=, another dtype or byte order, no terms)."""
    if dtype is not None or out is not None or a.dtype not in _PLAIN_CALL_DTYPES or not a.size:
        return None
    return {"signature": (a.dtype, a.dtype)} if dtypes.is_code(a.dtype) else {}


#: Arrays up to this size are checked for NaNs first by the nan-variants:
#: without any, the plain call is several times cheaper than the masked
#: loops (a larger check would cost more than it saves).
_SMALL_NAN_CHECK = 1 << 12


def exact_reduce(func_name, a, axis, dtype, out, keepdims, initial, where, skip_nan,
                 mean=False):
    """The exact sum (mean=True: divided by the number of terms) of the
    selected terms of `a`, rounded once (NumPy arrays, lists and scalars)."""
    if type(a) is not np.ndarray:
        a = np.asarray(a)
    if skip_nan and a.dtype.kind == "f" and 0 < a.size <= _SMALL_NAN_CHECK \
            and not np.isnan(a).any():
        skip_nan = False        # no NaN to skip: the plain loops, the same bits sooner
    kw = plain_call(a, dtype, out)
    if kw is not None and initial is NO_VALUE and where is True and not keepdims \
            and not skip_nan:
        # The common call, with the least Python in front of the loop.
        ufunc = exact_mean_ufunc if mean else exact_sum_ufunc
        if a.ndim == 1 and (axis is None or (type(axis) is int and -1 <= axis <= 0)):
            return ufunc(a, **kw)         # a vector's one axis: no axis= for NumPy to parse
        if type(axis) is int and a.ndim:     # any other integer axis
            try:
                return ufunc(a, axis=axis, **kw)
            except np.exceptions.AxisError:
                pass          # raised again below, with our message
    a, _ = as_input(a, func_name)
    spec = ReductionSpec.parse(func_name, a, axis, dtype, out, keepdims, where, initial,
                               skip_nan)
    axes, result_dtype, out = spec.axes, spec.result, spec.out
    initial_state = (None if spec.initial is NO_VALUE
                     else st.initial_state(spec.initial, spec.kind))

    # Terms not selected (where=False; NaN for the nan-variants) are left
    # out by the masked loop, which also counts the terms of each row.
    selection = None
    skip_nan = spec.skip_nan
    if skip_nan or spec.mask is not None:
        mask = spec.mask if spec.mask is not None else np.broadcast_to(np.True_, a.shape)
        if skip_nan and spec.kind == "complex":
            # A complex term is NaN when either part is: decide on whole terms.
            mask, skip_nan = mask & ~np.isnan(a), False
        selection = (mask, skip_nan)

    # The exact work, rounding once into result_dtype, into a temporary
    # even for out= of that dtype: a call that raises (Ctrl-C) leaves out
    # untouched; the results are copied into it at the end.
    outer_shape = spec.outer_shape
    first = initial_state[0] if initial_state else None
    if spec.kind == "real":
        res, counts = _reduce_blocked(a, axes, result_dtype, None, first, mean, selection)
    else:
        part = dtypes.component(result_dtype)
        res = np.empty(outer_shape, result_dtype)
        _reduce_blocked(a.real, axes, part, res.real, first, mean, selection)
        _, counts = _reduce_blocked(a.imag, axes, part, res.imag,
                                    initial_state and initial_state[1], mean, selection)
    res = np.asarray(res)
    if mean and math.prod(outer_shape) and (
            np.any(counts == 0) if counts is not None else spec.terms_per_result == 0):
        warn_empty_mean(stacklevel=4)

    if out is not None:
        np.copyto(out, res.reshape(spec.out_shape), casting="same_kind")
        return out
    res = res.reshape(spec.out_shape)
    return res[()] if res.ndim == 0 else res
