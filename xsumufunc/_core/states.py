"""Exact states: compute, check, merge and round them (NumPy arrays only).

An exact state holds the exact sum of some terms in the fixed-point format
of :mod:`.stateformat`.  The public functions of :mod:`xsumufunc.state`, the
Dask backend and the grouped sums all go through this module.
"""

import math

import numpy as np

from .._ufuncs import (
    _canonicalize_states,
    _first_invalid_state,
    exact_state_mean_ufunc,
    exact_state_merge_ufunc,
    exact_state_round_ufunc,
    exact_sum_state_ufunc,
)
from . import dtypes, rows
from . import stateformat as fmt
from .spec import (
    ReductionSpec,
    as_input,
    kept_shape,
    normalize_axes,
    skips_nan,
    warn_empty_mean,
)


def _component_states(values, axes, mask, skip_nan):
    """Native int64 states (outer shape + (LENGTH,)) and counts (int64, or
    None when every term counts) of real `values` over `axes`."""
    in_dtype = dtypes.native(values.dtype)
    if mask is None and not skip_nan:
        merged = rows.rows(values, axes)
        if merged is not None:
            states = exact_sum_state_ufunc(merged, signature=(in_dtype, fmt.NATIVE))
        else:
            states = rows.states_axis_by_axis(values, axes)
        return states, None
    if mask is None:
        mask = np.broadcast_to(np.True_, values.shape)
    return rows.masked_states(values, mask, axes, skip_nan)


def states_and_counts(a, axes, mask=None, skip_nan=False):
    """States (outer shape + ([2,] LENGTH), canonical, little-endian) and
    int64 counts of the terms of ndarray `a` over the tuple `axes`.

    mask: None or a bool array of a's shape (terms where it is False are left
    out); skip_nan: NaNs are not terms (a complex term is NaN when either
    part is).
    """
    kind = dtypes.input_kind(a.dtype, "exact_sum_state")
    skip_nan = skips_nan(skip_nan, a.dtype)
    outer_shape = tuple(n for i, n in enumerate(a.shape) if i not in axes)
    if kind == "real":
        states, counts = _component_states(a, axes, mask, skip_nan)
    else:
        if skip_nan:
            keep = ~np.isnan(a)
            mask = keep if mask is None else mask & keep
        parts = [_component_states(part, axes, mask, False) for part in (a.real, a.imag)]
        states = np.stack([parts[0][0], parts[1][0]], axis=-2)
        counts = parts[0][1]
    if counts is None:
        total = 1
        for ax in axes:
            total *= a.shape[ax]
        counts = np.full(outer_shape, total, fmt.NATIVE)
    return canonical(states), np.asarray(counts, dtype=fmt.DTYPE).reshape(outer_shape)


def canonical(states, copy=True):
    """Little-endian states in canonical form: a state with an Inf or NaN
    keeps only its flags (its finite digits can no longer matter), so equal
    results of equal terms have equal bytes.  Digits are already normalised
    by the C side.  copy=False: `states` is a fresh native array of ours
    (a loop's output), made canonical in place."""
    native = _canonical_in_place(np.array(states, dtype=fmt.NATIVE, copy=copy))[0]
    return native.astype(fmt.DTYPE, copy=False)


def _canonical_in_place(states):
    """(states, their largest |top digit|): native `states`,
    made canonical where they are (one compiled pass); a copy first when
    they are not C-contiguous (NumPy may lay a ufunc's output out as its
    input), so that the rows below are a view."""
    if not states.flags.c_contiguous:
        states = np.ascontiguousarray(states)
    rows = states.reshape(-1, fmt.LENGTH)
    return states, (_canonicalize_states(rows) if rows.size else 0)


def initial_state(value, kind):
    """The exact state of the one term `value` (a checked array, see
    spec.check_initial: 0-d, or the exact parts of a wide integer), per
    component: a tuple of one or two states."""
    def state_of(part):
        part = np.asarray(part).reshape(-1)
        return exact_sum_state_ufunc(part, signature=(dtypes.native(part.dtype), fmt.NATIVE))

    if kind == "real":
        return (state_of(value),)
    return tuple(state_of(part) for part in (value.real, value.imag))


def check_states(state, func_name, argname="state", complex_parts=False):
    """`state` as a native int64 ndarray after checking it is a well-formed
    state array (ValueError otherwise, naming the argument)."""
    arr = state if type(state) is np.ndarray else np.asarray(state)
    if arr.dtype.kind != "i" or arr.dtype.itemsize != 8:
        raise ValueError(
            f"{func_name}: {argname} must be an int64 array of exact states "
            f"(see xsumufunc.state), not dtype {arr.dtype}")
    trailing = (2, fmt.LENGTH) if complex_parts else (fmt.LENGTH,)
    if arr.shape[arr.ndim - len(trailing):] != trailing or arr.ndim < len(trailing):
        what = "complex states" if complex_parts else "states"
        raise ValueError(
            f"{func_name}: {argname} has shape {arr.shape}; {what} end with axes "
            f"{trailing}")
    arr = arr.astype(fmt.NATIVE, copy=False)
    # One compiled pass over every state (the same rules as _first_problem,
    # which names what is wrong once this finds something).
    rows = arr if arr.ndim == 2 else arr.reshape(-1, fmt.LENGTH)
    if arr.size and _first_invalid_state(rows, fmt.TOP_LIMIT) >= 0:
        raise ValueError(f"{func_name}: {argname} is not a valid exact state: "
                         f"{_first_problem(arr)}")
    return arr


def _first_problem(arr):
    """What is wrong with the first kind of malformed state in `arr`."""
    digits, top, flags = arr[..., :fmt.TOP], arr[..., fmt.TOP], arr[..., fmt.FLAGS]
    problem = None
    if np.any((digits < 0) | (digits >= fmt.DIGIT_LIMIT)):
        problem = f"a digit below the top one is outside [0, 2**{fmt.DIGIT_BITS})"
    elif np.any((top <= -fmt.TOP_LIMIT) | (top >= fmt.TOP_LIMIT)):
        problem = f"the top digit is outside (-2**{fmt.TOP_LIMIT.bit_length() - 1}, " \
                  f"2**{fmt.TOP_LIMIT.bit_length() - 1})"
    elif np.any((flags < 0) | (flags > fmt.FLAG_BITS)):
        problem = f"the flags word has bits other than 0..{fmt.FLAG_BITS.bit_length() - 1}"
    else:
        has_term = (flags & fmt.HAS_TERM) != 0
        not_neg_zero = (flags & fmt.NOT_NEG_ZERO) != 0
        nonzero = np.any(arr[..., :fmt.FLAGS] != 0, axis=-1)
        if np.any((flags != 0) & ~has_term):
            problem = "flags set without the 'had a term' bit"
        elif np.any((((flags & fmt.SPECIALS) != 0) | nonzero) & ~not_neg_zero):
            problem = "a non-zero value or Inf/NaN without the 'non -0.0 term' bit"
    return problem


def merge_over(arr, axes, trailing, func_name, keepdims=False):
    """Merge native states `arr` over the outer `axes` (all checked).

    The C merge saturates to +-Inf once a running top digit reaches
    C_TOP_LIMIT, which would make the answer depend on the order of the
    states.  No running sum can get there while the sum of |top digit| + 1
    (a top digit, plus at most one carry from below, per state) stays under
    it; merges that could are refused in every order, with the ValueError of
    a merged value out of range.  Checked states have |top digit| below
    TOP_LIMIT, so merges of fewer than C_TOP_LIMIT / TOP_LIMIT states (2**16)
    never get there and skip the sum."""
    k = len(axes)
    outer_ndim = arr.ndim - trailing
    merged_rows = arr.shape[axes[0]] if k == 1 else math.prod(arr.shape[ax] for ax in axes)
    if merged_rows * fmt.TOP_LIMIT >= fmt.C_TOP_LIMIT:
        tops = np.abs(arr[..., fmt.TOP]) + 1
        if np.any(np.sum(tops, axis=axes) >= fmt.C_TOP_LIMIT):
            raise ValueError(f"{func_name}: the merged exact value may be out of the state's "
                             "range (beyond 2**1093)")
    if axes == (outer_ndim - 1,) or axes == tuple(range(outer_ndim - k, outer_ndim)):
        moved = arr                    # already the last outer axes (merge_states' usual call)
    else:
        moved = np.moveaxis(arr, axes, tuple(range(outer_ndim - k, outer_ndim)))
    kept = moved.shape[:outer_ndim - k]
    grouped = moved if k == 1 else moved.reshape(kept + (merged_rows,) + arr.shape[outer_ndim:])
    # The merge gufunc reads (m, LENGTH): put a complex part axis before m.
    if trailing == 2:
        grouped = np.moveaxis(grouped, -2, -3)
    merged, largest_top = _canonical_in_place(exact_state_merge_ufunc(grouped))
    if largest_top >= fmt.TOP_LIMIT:
        raise ValueError(f"{func_name}: the merged exact value is out of the state's "
                         "range (beyond 2**1093)")
    merged = merged.astype(fmt.DTYPE, copy=False)
    if keepdims:
        merged = merged.reshape(kept_shape(arr.shape[:outer_ndim], axes)
                                + arr.shape[outer_ndim:])
    return merged


def round_states(arr, counts, result, is_complex):
    """Round checked native states (divided by counts unless None) once
    into `result`."""
    part = dtypes.component(result)
    comps = (arr[..., 0, :], arr[..., 1, :]) if is_complex else (arr,)
    # Into float64 from native int64, the first loop of each gufunc is the
    # one: no signature to resolve (a third of a small call's cost).
    default = part == _FLOAT64 and (counts is None or counts.dtype == fmt.NATIVE)
    rounded = []
    for comp in comps:
        if counts is None:
            kw = {} if default else {"signature": (fmt.NATIVE, part)}
            rounded.append(exact_state_round_ufunc(comp, **kw))
        else:
            kw = {} if default else {"signature": (fmt.NATIVE, fmt.NATIVE, part)}
            rounded.append(exact_state_mean_ufunc(comp, counts, **kw))
    if is_complex:
        res = np.empty(np.shape(rounded[0]), result)
        res.real, res.imag = rounded
    else:
        res = rounded[0]            # a NumPy scalar for one state, else an array
    return res[()] if type(res) is np.ndarray and res.ndim == 0 else res


_FLOAT64 = np.dtype(np.float64)
#: state_result_dtype of the default dtype=np.float64, worked out once.
_DEFAULT_RESULT = (_FLOAT64, False)


def state_result_dtype(dtype, func_name):
    """The dtype a state is rounded into, and whether it is complex."""
    if dtype is np.float64:
        return _DEFAULT_RESULT
    try:
        dt = dtypes.native(np.dtype(dtype))
    except TypeError as exc:
        raise TypeError(f"{func_name}: dtype {dtype!r} is not a NumPy dtype") from exc
    kind = "complex" if dt.kind == "c" else "real"
    return dtypes.as_result_dtype(dt, kind, func_name, "dtype"), kind == "complex"


# ---- the NumPy bodies of xsumufunc.state's public functions ----------------

#: Input dtypes whose state loop NumPy picks with no signature (built in,
#: native byte order), so that their common call needs no argument parsing.
_PLAIN_DTYPES = frozenset(np.dtype(c) for c in "?bBhHiIlLqQefd")


def _plain_terms(a, axis, keepdims, where, skip_nan):
    """The terms of the common call of exact_sum_state and exact_count as one
    row (an ndarray of a built-in real dtype, every element, axis=None, no
    keepdims or NaN-skipping, a view), else None: the general path.  The
    dtype test proves what ReductionSpec would check; nothing else applies."""
    if (type(a) is np.ndarray and axis is None and where is True and not keepdims
            and not skip_nan and a.dtype in _PLAIN_DTYPES
            and (a.ndim == 1 or a.flags.c_contiguous)):
        return a if a.ndim == 1 else a.reshape(-1)
    return None


def exact_sum_state(a, axis=None, *, keepdims=False, where=True, skip_nan=False):
    terms = _plain_terms(a, axis, keepdims, where, skip_nan)
    if terms is not None:
        return canonical(exact_sum_state_ufunc(terms), copy=False)
    a, _ = as_input(a, "exact_sum_state")
    spec = ReductionSpec.parse("exact_sum_state", a, axis, keepdims=keepdims, where=where,
                               skip_nan=skip_nan, rounds=False)
    states, _ = states_and_counts(a, spec.axes, spec.mask, spec.skip_nan)
    return spec.keep(states, states.ndim - len(spec.outer_shape))


def exact_count(a, axis=None, *, keepdims=False, where=True, skip_nan=False):
    terms = _plain_terms(a, axis, keepdims, where, skip_nan)
    if terms is not None:
        return np.array(terms.size, fmt.DTYPE)
    a, _ = as_input(a, "exact_count")
    spec = ReductionSpec.parse("exact_count", a, axis, keepdims=keepdims, where=where,
                               skip_nan=skip_nan, rounds=False)
    mask = spec.mask
    if spec.skip_nan:
        keep = ~np.isnan(a)
        mask = keep if mask is None else mask & keep
    if mask is None:
        counts = np.full(spec.outer_shape, spec.terms_per_result, fmt.DTYPE)
    else:
        counts = np.sum(mask, axis=spec.axes, dtype=fmt.DTYPE)
    return spec.keep(np.asarray(counts, fmt.DTYPE))


def merge_states(states, axis=0, *, complex_parts=False):
    name = "merge_states"
    arr = check_states(states, name, "states", complex_parts)
    trailing = 2 if complex_parts else 1
    outer_ndim = arr.ndim - trailing
    if outer_ndim == 0:
        raise ValueError(f"{name}: states has no axis to merge over (shape {arr.shape})")
    if type(axis) is int and -outer_ndim <= axis < outer_ndim:
        axes = (axis % outer_ndim,)         # the common call: what normalize_axes gives
    else:
        axes = normalize_axes(axis, outer_ndim, name)
    return merge_over(arr, axes, trailing, name)


def round_state(state, dtype=np.float64):
    name = "round_state"
    result, is_complex = state_result_dtype(dtype, name)
    arr = check_states(state, name, "state", is_complex)
    return round_states(arr, None, result, is_complex)


def state_mean(state, count, dtype=np.float64):
    name = "state_mean"
    result, is_complex = state_result_dtype(dtype, name)
    arr = check_states(state, name, "state", is_complex)
    counts = np.asarray(count)
    if counts.dtype.kind not in "biu":
        raise TypeError(f"{name}: count must be integers, not dtype {counts.dtype}")
    if counts.ndim == 0:
        # One count (the common call): checked as a Python integer, and
        # broadcast by the gufunc itself.
        value = int(counts)
        if not 0 <= value <= 2**63 - 1:
            raise ValueError(f"{name}: count must be non-negative int64 values")
        if value == 0 and arr.size:          # as below: only when there is a mean
            warn_empty_mean(stacklevel=3)
        return round_states(arr, np.array(value, fmt.NATIVE), result, is_complex)
    if np.any(counts < 0) or (counts.dtype.kind == "u" and np.any(counts > 2**63 - 1)):
        raise ValueError(f"{name}: count must be non-negative int64 values")
    counts = counts.astype(fmt.NATIVE)
    outer = arr.shape[:arr.ndim - (2 if is_complex else 1)]
    try:
        counts = np.broadcast_to(counts, np.broadcast_shapes(outer, counts.shape))
    except ValueError:
        raise ValueError(f"{name}: count of shape {counts.shape} does not broadcast "
                         f"against the states' shape {outer}") from None
    if np.any(counts == 0) and counts.size:
        warn_empty_mean(stacklevel=3)
    return round_states(arr, counts, result, is_complex)


def merge_dot_states(states):
    """Exact dot states (..., m, DOT_LENGTH) merged over m: each of their
    three parts (main, fine, huge) merged as an exact state."""
    parts = states.reshape(states.shape[:-1] + (3, fmt.LENGTH))
    merged = exact_state_merge_ufunc(np.moveaxis(parts, -2, -3))
    return merged.reshape(merged.shape[:-2] + (fmt.DOT_LENGTH,))


def as_float64_terms(states, max_copies, func_name):
    """float64 terms (..., K) whose exact sum is the value of each real
    state (..., LENGTH), found by rounding: the value rounded, then what is
    left of it rounded, until nothing is (at most ~40 terms, usually 1 or
    2), largest first so that no partial sum overshoots.  A value beyond the
    float64 range leads with copies of +-2**1023 (at most `max_copies`,
    NotImplementedError beyond); an Inf/NaN state is its rounded value.
    Then a zero that keeps the sign of a zero sum: +0.0 once a term other
    than -0.0 was seen, else -0.0 (also the padding: neutral once a real
    term follows).  Returns the terms and whether copies of 2**1023 lead."""
    rest = np.array(states, dtype=fmt.NATIVE).reshape(-1, fmt.LENGTH)
    flags = rest[:, fmt.FLAGS]
    special = (flags & fmt.SPECIALS) != 0
    done = special | np.all(rest[:, :fmt.FLAGS] == 0, axis=-1)
    terms, copies, huge = [], 0, False
    f64 = np.dtype(np.float64)
    while True:
        with np.errstate(over="ignore", invalid="ignore"):
            rounded = exact_state_round_ufunc(rest, signature=(fmt.NATIVE, f64))
        beyond = np.isinf(rounded) & ~special
        if np.any(beyond):
            copies += 1
            huge = True
            if copies > max_copies:
                raise NotImplementedError(
                    f"{func_name}: a running sum beyond {max_copies} * 2**1023 crosses a "
                    "chunk boundary; rechunk the axis into one chunk")
        term = np.where(beyond, np.copysign(2.0**1023, rounded), rounded)
        first = not terms
        term = np.where(done & ~(special & first), -0.0, term)
        terms.append(term)
        if np.all(done | special):
            break
        taken = exact_sum_state_ufunc(-term[:, None], signature=(f64, fmt.NATIVE))
        rest = exact_state_merge_ufunc(np.stack([rest, taken], axis=-2))
        done |= special | np.all(rest[:, :fmt.FLAGS] == 0, axis=-1)
    terms = [np.where(t == 0, -0.0, t) for t in terms]
    terms.append(np.where((flags & fmt.NOT_NEG_ZERO) != 0, 0.0, -0.0))
    shape = np.shape(states)[:-1]
    return np.stack(terms, axis=-1).reshape(shape + (len(terms),)), huge
