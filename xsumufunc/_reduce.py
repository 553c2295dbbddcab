"""The reduction machinery behind exact_sum, exact_mean and their variants.

The gufuncs reduce the last axis of an array and round once into the loop's
output dtype.  Everything NumPy's gufunc machinery cannot do (axis=None and
tuples, where=, initial=, out= of another dtype, complex) happens here, with
one rule: never round an intermediate.  Several reduced axes are moved to the
end and merged into one (or reduced axis by axis through exact states);
`initial` is merged as an exact state; masked terms become -0.0 and, for
means, are left out of the count; `out` of another dtype selects the loop
that rounds straight into it.
"""

import math
import operator
import warnings

import numpy as np

from . import _dtypes
from ._dispatch import backend_for
from ._ufuncs import (
    STATE_LENGTH,
    exact_masked_state_ufunc,
    exact_mean_ufunc,
    exact_state_mean_ufunc,
    exact_state_merge_ufunc,
    exact_state_round_ufunc,
    exact_sum_state_ufunc,
    exact_sum_ufunc,
)

_STATE_DTYPE = np.dtype(np.int64)


class _NoValueType:
    """Marks an argument that was not given (``initial=0`` is a real term)."""

    def __repr__(self):
        return "<no value>"


NO_VALUE = _NoValueType()


def normalize_axes(axis, ndim, func_name):
    """Tuple of non-negative axes; AxisError when out of range or repeated."""
    if axis is None:
        return tuple(range(ndim))
    seq = axis if isinstance(axis, tuple) else (axis,)
    axes = []
    for ax in seq:
        try:
            ax = operator.index(ax)
        except TypeError:
            raise TypeError(
                f"{func_name}: axis must be None, an integer or a tuple of integers, "
                f"not {axis!r}") from None
        if not -ndim <= ax < ndim:
            raise np.exceptions.AxisError(ax, ndim, msg_prefix=func_name)
        ax %= ndim
        if ax in axes:
            raise np.exceptions.AxisError(f"{func_name}: duplicate value in axis: {axis!r}")
        axes.append(ax)
    return tuple(axes)


def check_out(out, shape, func_name):
    """out must be a writeable ndarray of exactly the result shape."""
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{func_name}: out must be a numpy.ndarray, not {type(out).__name__}")
    if out.shape != tuple(shape):
        raise ValueError(
            f"{func_name}: out has shape {out.shape}, but the result has shape {tuple(shape)}")
    if not out.flags.writeable:
        raise ValueError(f"{func_name}: out is read-only")
    return out


def selects_all(where):
    """Is `where` the plain True of 'every element'?"""
    return where is True or (isinstance(where, (bool, np.bool_)) and bool(where))


def where_mask(where, shape, func_name, xp=np):
    """`where` broadcast to `shape`, as booleans of the array module xp
    (numpy, or dask.array for the Dask backend).  As NumPy: only booleans
    select (a cast would make None or 'abc' a mask)."""
    mask = xp.asarray(where)
    if mask.dtype != bool:
        raise TypeError(f"{func_name}: where must be booleans, not {mask.dtype}")
    try:
        return xp.broadcast_to(mask, shape)
    except ValueError:
        raise ValueError(
            f"{func_name}: where has shape {np.shape(where)}, which does not "
            f"broadcast to the input shape {shape}") from None


def as_input(a, func_name):
    """a as an ndarray, and 'real' or 'complex' (TypeError for other dtypes)."""
    _dtypes.reject_masked(a, func_name)
    a = np.asarray(a)
    return a, _dtypes.input_kind(a.dtype, func_name)


def _merge_axes(arrays, axes, allow_copy):
    """The arrays (all of one shape) with `axes` moved to the end and merged
    into one: views when the strides allow (one axis always does), copies
    when allow_copy, else None.  No axes (axis=()) gives rows of length 1."""
    if not axes:
        return [x[..., np.newaxis] for x in arrays]
    k = len(axes)
    moved = [np.moveaxis(x, axes, tuple(range(-k, 0))) for x in arrays]
    if k == 1:
        return moved
    shape = moved[0].shape[:-k] + (math.prod(moved[0].shape[-k:]),)   # not -1: sizes may be 0
    try:
        return [np.reshape(m, shape, copy=False) for m in moved]
    except ValueError:
        return [np.reshape(m, shape) for m in moved] if allow_copy else None


def _copy_costs_more(values, axes):
    """Would merging `axes` by a copy take more memory than reducing axis by
    axis through exact states?  (Broadcast views, for one, must never be
    copied.)"""
    longest = max((values.shape[ax] for ax in axes), default=1)
    state_bytes = values.size // max(longest, 1) * STATE_LENGTH * _STATE_DTYPE.itemsize
    return state_bytes < values.size * values.dtype.itemsize


def _innermost(values, axes):
    """The reduced axis summed by the loop when going axis by axis."""
    return max(axes, key=lambda ax: values.shape[ax])


def _merge_states_over(states, axes, inner):
    """Merge states (values' axes without `inner`, then the state axis) over
    the reduced axes other than `inner`; also returns those axes' positions."""
    rest = [ax - (ax > inner) for ax in axes if ax != inner]
    k = len(rest)
    moved = np.moveaxis(states, rest, tuple(range(-k - 1, -1)))
    merged_length = math.prod(moved.shape[-k - 1:-1])
    merged = exact_state_merge_ufunc(
        moved.reshape(moved.shape[:-k - 1] + (merged_length, STATE_LENGTH)))
    return merged, tuple(rest)


def _rows(values, axes):
    """values as rows to reduce (see _merge_axes), or None when going axis by
    axis through exact states is cheaper than the copy a merge would need."""
    merged = _merge_axes([values], axes, allow_copy=not _copy_costs_more(values, axes))
    return None if merged is None else merged[0]


def _states_axis_by_axis(values, axes):
    """Exact states of values summed over several axes, without a copy of
    values: the longest axis is summed into states, the others merged."""
    inner = _innermost(values, axes)
    states = exact_sum_state_ufunc(np.moveaxis(values, inner, -1),
                                   signature=(_dtypes.native(values.dtype), _STATE_DTYPE))
    return _merge_states_over(states, axes, inner)[0]


def _masked_states_rows(values, mask, skip_nan):
    return exact_masked_state_ufunc(
        values, mask, skip_nan,
        signature=(_dtypes.native(values.dtype), np.dtype(bool), np.dtype(bool),
                   _STATE_DTYPE, _STATE_DTYPE))


def _masked_states(values, mask, axes, skip_nan):
    """Exact states and counts, over `axes`, of the terms of `values` whose
    `mask` (same shape, often a broadcast view) is True and, with skip_nan,
    that are not NaN.  Merged rows as for _rows, else axis by axis."""
    merged = _merge_axes([values, mask], axes, allow_copy=not _copy_costs_more(values, axes))
    if merged is not None:
        return _masked_states_rows(merged[0], merged[1], skip_nan)
    inner = _innermost(values, axes)
    states, counts = _masked_states_rows(np.moveaxis(values, inner, -1),
                                         np.moveaxis(mask, inner, -1), skip_nan)
    states, rest = _merge_states_over(states, axes, inner)
    return states, np.sum(counts, axis=rest, dtype=_STATE_DTYPE)


def _initial_state(initial, kind, func_name):
    """The exact state of the one term `initial`, per component."""
    value = np.asarray(initial)
    if value.ndim != 0:
        raise ValueError(f"{func_name}: initial must be a scalar, not shape {value.shape}")
    value_kind = None
    try:
        value_kind = _dtypes.input_kind(value.dtype, func_name)
    except TypeError:
        pass
    if value_kind is None or (value_kind == "complex" and kind == "real"):
        raise TypeError(
            f"{func_name}: initial must be a {'real' if kind == 'real' else 'real or complex'}"
            f" number of a supported dtype, not {initial!r}")
    if kind == "real":
        return (exact_sum_state_ufunc(value.reshape(1)),)
    return tuple(exact_sum_state_ufunc(np.asarray(part).reshape(1))
                 for part in (value.real, value.imag))


def _reduce_component(values, axes, result, target, initial_state, mean, selection):
    """Exact sums (or means) of real `values` over `axes`, rounded once.

    result: the dtype to round into.  target: an array of that dtype and the
    output shape to write into, or None to allocate.  initial_state: the
    state of one more term, or None.  selection: None (every term), or
    (mask, skip_nan) for the masked loop.  Returns the result and, for
    means, the term counts (None when every row counts all its terms).
    """
    in_dtype = _dtypes.native(values.dtype)
    counts = None
    if selection is None:
        rows = _rows(values, axes)
        if rows is not None and initial_state is None:
            ufunc = exact_mean_ufunc if mean else exact_sum_ufunc
            return ufunc(rows, out=target, signature=(in_dtype, result)), None
        if rows is not None:
            states = exact_sum_state_ufunc(rows, signature=(in_dtype, _STATE_DTYPE))
        else:
            states = _states_axis_by_axis(values, axes)
        if mean:
            counts = np.asarray(math.prod(values.shape[ax] for ax in axes), _STATE_DTYPE)
    else:
        states, counts = _masked_states(values, selection[0], axes, selection[1])
    if initial_state is not None:
        pair = np.stack(np.broadcast_arrays(states, initial_state), axis=-2)
        states = exact_state_merge_ufunc(pair)
    if not mean:
        return exact_state_round_ufunc(states, out=target,
                                       signature=(_STATE_DTYPE, result)), None
    return exact_state_mean_ufunc(states, counts, out=target,
                                  signature=(_STATE_DTYPE, _STATE_DTYPE, result)), counts


# Native input dtypes whose first registered loop is also their default
# result, so that a plain call needs no signature (see _ufuncs.pyx).
_PLAIN_CALL_DTYPES = frozenset(
    [np.dtype(c) for c in "?bBhHiIlLqQefd"] + [_dtypes.BFLOAT16])


def exact_reduce(func_name, a, axis, dtype, out, keepdims, initial, where, skip_nan,
                 mean=False):
    """The shared body of exact_sum, exact_mean, their nan-variants and
    exact_add.reduce: the exact sum (mean=True: divided by the number of
    terms) of the selected terms, rounded once."""
    if type(a) is not np.ndarray and (backend := backend_for(a)) is not None:
        return backend.reduce(func_name, a, axis, dtype, out, keepdims, initial, where,
                              skip_nan, mean)
    _dtypes.reject_masked(a, func_name)
    a = np.asarray(a)
    if (dtype is None and out is None and initial is NO_VALUE and where is True
            and not keepdims and a.dtype in _PLAIN_CALL_DTYPES and not skip_nan
            and a.size):
        # The common call, with the least Python in front of the loop.
        ufunc = exact_mean_ufunc if mean else exact_sum_ufunc
        if axis is None and a.ndim == 1:
            return ufunc(a)
        if type(axis) is int and a.ndim > 1:
            try:
                return ufunc(a, axis=axis)
            except np.exceptions.AxisError:
                pass          # raised again below, with our message
    a, kind = as_input(a, func_name)
    axes = normalize_axes(axis, a.ndim, func_name)
    result_dtype = _dtypes.resolve_result(a.dtype, kind, dtype, out, func_name)
    kept_shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape))
    out_shape = kept_shape if keepdims else tuple(
        n for i, n in enumerate(a.shape) if i not in axes)
    if out is not None:
        out = check_out(out, out_shape, func_name)
    initial_state = (None if initial is NO_VALUE
                     else _initial_state(initial, kind, func_name))

    # Terms not selected (where=False; NaN for the nan-variants) are left
    # out by the masked loop, which also counts the terms of each row.
    selection = None
    skip_nan = skip_nan and a.dtype.kind not in "biu"
    if skip_nan or not selects_all(where):
        mask = where_mask(where, a.shape, func_name)
        if skip_nan and kind == "complex":
            # A complex term is NaN when either part is: decide on whole terms.
            mask, skip_nan = mask & ~np.isnan(a), False
        selection = (mask, skip_nan)

    # The exact work, rounding once into result_dtype.  With out of the
    # result dtype, the loops write straight into it (seen without the
    # reduced axes); otherwise into a temporary.
    outer_shape = tuple(n for i, n in enumerate(a.shape) if i not in axes)
    target = None
    if out is not None and out.dtype == result_dtype:
        target = np.reshape(out, outer_shape, copy=False)
    first = initial_state[0] if initial_state else None
    if kind == "real":
        res, counts = _reduce_component(a, axes, result_dtype, target, first, mean, selection)
    else:
        part = _dtypes.component(result_dtype)
        res = np.empty(outer_shape, result_dtype) if target is None else target
        _reduce_component(a.real, axes, part, res.real, first, mean, selection)
        _, counts = _reduce_component(a.imag, axes, part, res.imag,
                                      initial_state and initial_state[1], mean, selection)
    res = np.asarray(res)
    if mean and math.prod(outer_shape) and (
            np.any(counts == 0) if counts is not None
            else math.prod(a.shape[ax] for ax in axes) == 0):
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=3)

    if out is not None:
        if target is None:
            np.copyto(out, res.reshape(out_shape), casting="same_kind")
        return out
    res = res.reshape(out_shape)
    return res[()] if res.ndim == 0 else res
