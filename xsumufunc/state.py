"""Portable, mergeable exact states: the basis of parallel and distributed sums.

An exact state holds the exact sum of some terms.  Compute states of the
parts of your data anywhere (threads, processes, machines), send them
(they are plain little-endian int64 NumPy arrays: picklable, same bytes on
every machine for the same value), merge them in any order and grouping,
and round once at the end: the result is bit-identical to
:func:`xsumufunc.exact_sum` (or :func:`xsumufunc.exact_mean` with the term
counts) of all the data at once.

Format (see docs/contract.md): the last axis has :data:`STATE_LENGTH` (69)
int64 values, 68 fixed-point digits (digit ``j`` has weight
``2**(32*j - 1075)``; digits 0..66 in ``[0, 2**32)``, digit 67 signed) and a
flags word (bit 0: had a term, bit 1: had a term other than -0.0, bit 2: +Inf,
bit 3: -Inf, bit 4: NaN).  A state of complex terms has one more axis of
length 2 before the state axis: ``(..., 2, 69)``, real then imaginary part.

Functions: :func:`exact_sum_state`, :func:`exact_count`,
:func:`merge_states`, :func:`round_state`, :func:`state_mean`.
"""

import math
import warnings

import numpy as np

from . import _dtypes
from ._reduce import (
    _masked_states,
    _rows,
    _states_axis_by_axis,
    as_input,
    normalize_axes,
    selects_all,
    where_mask,
)
from ._ufuncs import (
    STATE_LENGTH,
    exact_state_mean_ufunc,
    exact_state_merge_ufunc,
    exact_state_round_ufunc,
    exact_sum_state_ufunc,
)

#: dtype of portable states and counts: little-endian int64 on every machine.
STATE_DTYPE = np.dtype("<i8")
_NATIVE_INT64 = np.dtype(np.int64)

_TOP = STATE_LENGTH - 2            # the signed top digit
_FLAGS = STATE_LENGTH - 1
_DIGIT_LIMIT = 1 << 32
# Any sum of fewer than 2**63 finite float64 terms has |top digit| < 2**18.
# States we accept stay below 2**24, so that merging any number of them that
# fits in memory neither overflows an int64 digit nor leaves the range the
# C loops accept (2**40).
_TOP_LIMIT = 1 << 24
_HAS_TERM, _NOT_NEG_ZERO, _SPECIALS = 1, 2, 4 | 8 | 16
_FLAG_BITS = 31


def _component_states(values, axes, mask, skip_nan):
    """Native int64 states (outer shape + (69,)) and counts (int64, or None
    when every term counts) of real `values` over `axes`."""
    in_dtype = _dtypes.native(values.dtype)
    if mask is None and not skip_nan:
        rows = _rows(values, axes)
        if rows is not None:
            states = exact_sum_state_ufunc(rows, signature=(in_dtype, _NATIVE_INT64))
        else:
            states = _states_axis_by_axis(values, axes)
        return states, None
    if mask is None:
        mask = np.broadcast_to(np.True_, values.shape)
    return _masked_states(values, mask, axes, skip_nan)


def states_and_counts(a, axes, mask=None, skip_nan=False):
    """States (outer shape + ([2,] 69), canonical, little-endian) and int64
    counts of the terms of ndarray `a` over the tuple `axes`.

    mask: None or a bool array of a's shape (terms where it is False are left
    out); skip_nan: NaNs are not terms (a complex term is NaN when either
    part is).
    """
    kind = _dtypes.input_kind(a.dtype, "exact_sum_state")
    skip_nan = skip_nan and a.dtype.kind not in "biu"
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
        counts = np.full(outer_shape, math.prod(a.shape[ax] for ax in axes), _NATIVE_INT64)
    return canonical(states), np.asarray(counts, dtype=STATE_DTYPE).reshape(outer_shape)


def canonical(states):
    """Little-endian states in canonical form: a state with an Inf or NaN
    keeps only its flags (its finite digits can no longer matter), so equal
    results of equal terms have equal bytes.  Digits are already normalised
    by the C side."""
    states = np.array(states, dtype=STATE_DTYPE, copy=True)
    special = (states[..., _FLAGS] & _SPECIALS) != 0
    if np.any(special):
        states[special, :_FLAGS] = 0
    return states


def check_states(state, func_name, argname="state", complex_parts=False):
    """`state` as a native int64 ndarray after checking it is a well-formed
    state array (ValueError otherwise, naming the argument)."""
    arr = np.asarray(state)
    if arr.dtype.kind != "i" or arr.dtype.itemsize != 8:
        raise ValueError(
            f"{func_name}: {argname} must be an int64 array of exact states "
            f"(see xsumufunc.state), not dtype {arr.dtype}")
    trailing = (2, STATE_LENGTH) if complex_parts else (STATE_LENGTH,)
    if arr.shape[arr.ndim - len(trailing):] != trailing or arr.ndim < len(trailing):
        what = "complex states" if complex_parts else "states"
        raise ValueError(
            f"{func_name}: {argname} has shape {arr.shape}; {what} end with axes "
            f"{trailing}")
    arr = arr.astype(_NATIVE_INT64, copy=False)
    digits, top, flags = arr[..., :_TOP], arr[..., _TOP], arr[..., _FLAGS]
    problem = None
    if np.any((digits < 0) | (digits >= _DIGIT_LIMIT)):
        problem = "a digit below the top one is outside [0, 2**32)"
    elif np.any((top <= -_TOP_LIMIT) | (top >= _TOP_LIMIT)):
        problem = "the top digit is outside (-2**24, 2**24)"
    elif np.any((flags < 0) | (flags > _FLAG_BITS)):
        problem = "the flags word has bits other than 0..4"
    else:
        has_term = (flags & _HAS_TERM) != 0
        not_neg_zero = (flags & _NOT_NEG_ZERO) != 0
        nonzero = np.any(arr[..., :_FLAGS] != 0, axis=-1)
        if np.any((flags != 0) & ~has_term):
            problem = "flags set without the 'had a term' bit"
        elif np.any((((flags & _SPECIALS) != 0) | nonzero) & ~not_neg_zero):
            problem = "a non-zero value or Inf/NaN without the 'non -0.0 term' bit"
    if problem is not None:
        raise ValueError(f"{func_name}: {argname} is not a valid exact state: {problem}")
    return arr


def _result_dtype(dtype, func_name):
    try:
        dt = _dtypes.native(np.dtype(dtype))
    except TypeError as exc:
        raise TypeError(f"{func_name}: dtype {dtype!r} is not a NumPy dtype") from exc
    kind = "complex" if dt.kind == "c" else "real"
    return _dtypes.as_result_dtype(dt, kind, func_name, "dtype"), kind == "complex"


def _selection(a, where, func_name):
    return None if selects_all(where) else where_mask(where, a.shape, func_name)


def _keep(result, a_shape, axes, keepdims, trailing):
    if not keepdims:
        return result
    kept = tuple(1 if i in axes else n for i, n in enumerate(a_shape))
    return result.reshape(kept + result.shape[result.ndim - trailing:])


def exact_sum_state(a, axis=None, *, keepdims=False, where=True, skip_nan=False):
    """The exact sum of the terms of `a` over `axis`, as a portable state.

    Parameters
    ----------
    a : array_like
        bool, integer, float16, float32, float64, bfloat16, complex64 or
        complex128 values.
    axis : None, int or tuple of ints, optional
        Axes to sum over; None: every element.
    keepdims : bool, optional
        Keep the reduced axes as length-1 axes (before the state axes).
    where : array_like of bool, optional
        Elements to include; the others are not terms.
    skip_nan : bool, optional
        Leave NaNs out (as :func:`xsumufunc.exact_nansum`).

    Returns
    -------
    ndarray of dtype ``'<i8'``
        Shape: the result shape, then ``(69,)`` for real input or
        ``(2, 69)`` for complex input (real and imaginary parts).

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import exact_sum_state, merge_states, round_state
    >>> parts = [np.array([1e100, 1.0]), np.array([-1e100])]
    >>> states = np.stack([exact_sum_state(p) for p in parts])
    >>> states.shape, states.dtype.str
    ((2, 69), '<i8')
    >>> round_state(merge_states(states))           # exact: 1e100 + 1 - 1e100
    np.float64(1.0)
    """
    name = "exact_sum_state"
    a, _ = as_input(a, name)
    axes = normalize_axes(axis, a.ndim, name)
    states, _ = states_and_counts(a, axes, _selection(a, where, name), skip_nan)
    return _keep(states, a.shape, axes, keepdims, states.ndim - (a.ndim - len(axes)))


def exact_count(a, axis=None, *, keepdims=False, where=True, skip_nan=False):
    """Number of terms :func:`exact_sum_state` sums, as ``'<i8'`` (for means).

    Same arguments as :func:`exact_sum_state`; counts merge by adding them.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import exact_count
    >>> exact_count([[1.0, np.nan], [2.0, 3.0]], axis=1, skip_nan=True)
    array([1, 2])
    """
    name = "exact_count"
    a, kind = as_input(a, name)
    axes = normalize_axes(axis, a.ndim, name)
    mask = _selection(a, where, name)
    if skip_nan and a.dtype.kind not in "biu":
        keep = ~np.isnan(a)
        mask = keep if mask is None else mask & keep
    if mask is None:
        outer = tuple(n for i, n in enumerate(a.shape) if i not in axes)
        counts = np.full(outer, math.prod(a.shape[ax] for ax in axes), STATE_DTYPE)
    else:
        counts = np.sum(mask, axis=axes, dtype=STATE_DTYPE)
    return _keep(np.asarray(counts, STATE_DTYPE), a.shape, axes, keepdims, 0)


def merge_states(states, axis=0, *, complex_parts=False):
    """Merge exact states along `axis` (of the outer axes): the state of all
    their terms together.

    Parameters
    ----------
    states : array_like of int64
        States, ``(..., 69)`` (or ``(..., 2, 69)`` with ``complex_parts``).
        Checked: a malformed state raises ValueError.
    axis : int or tuple of ints, optional
        Outer axes to merge over (the state axes do not count).
    complex_parts : bool, optional
        The states are complex: ``(..., 2, 69)``.

    Returns
    -------
    ndarray of dtype ``'<i8'``, canonical: the same terms give the same bytes
    whatever the order and grouping of the merges.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import exact_sum_state, merge_states
    >>> x = np.random.default_rng(0).standard_normal(1000)
    >>> whole = exact_sum_state(x)
    >>> halves = np.stack([exact_sum_state(x[:300]), exact_sum_state(x[300:])])
    >>> merge_states(halves).tobytes() == whole.tobytes()
    True
    """
    name = "merge_states"
    arr = check_states(states, name, "states", complex_parts)
    trailing = 2 if complex_parts else 1
    outer_ndim = arr.ndim - trailing
    if outer_ndim == 0:
        raise ValueError(f"{name}: states has no axis to merge over (shape {arr.shape})")
    axes = normalize_axes(axis, outer_ndim, name)
    return merge_over(arr, axes, trailing, name)


def merge_over(arr, axes, trailing, func_name, keepdims=False):
    """Merge native states `arr` over the outer `axes` (all checked)."""
    k = len(axes)
    outer_ndim = arr.ndim - trailing
    moved = np.moveaxis(arr, axes, tuple(range(outer_ndim - k, outer_ndim)))
    kept = moved.shape[:outer_ndim - k]
    merged_rows = math.prod(moved.shape[outer_ndim - k:outer_ndim])
    grouped = moved.reshape(kept + (merged_rows,) + arr.shape[outer_ndim:])
    # The merge gufunc reads (m, 69): put a complex part axis before m.
    if trailing == 2:
        grouped = np.moveaxis(grouped, -2, -3)
    merged = exact_state_merge_ufunc(grouped)
    if np.any(np.abs(merged[..., _TOP]) >= _TOP_LIMIT):
        raise ValueError(f"{func_name}: the merged exact value is out of the state's "
                         "range (beyond 2**1093)")
    merged = canonical(merged)
    if keepdims:
        shape = tuple(1 if i in axes else n for i, n in enumerate(arr.shape[:outer_ndim]))
        merged = merged.reshape(shape + arr.shape[outer_ndim:])
    return merged


def round_state(state, dtype=np.float64):
    """Round exact states once into `dtype`.

    Parameters
    ----------
    state : array_like of int64
        States ``(..., 69)``; ``(..., 2, 69)`` when `dtype` is complex.
    dtype : dtype, optional
        float64 (default), float32, float16, bfloat16, complex128 or complex64.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import exact_sum_state, round_state
    >>> s = exact_sum_state(np.array([1.0, 2.0**-24, 2.0**-80]))
    >>> round_state(s, np.float32), round_state(s)
    (np.float32(1.0000001), np.float64(1.0000000596046448))
    """
    name = "round_state"
    result, is_complex = _result_dtype(dtype, name)
    arr = check_states(state, name, "state", is_complex)
    return _round(arr, None, result, is_complex)


def state_mean(state, count, dtype=np.float64):
    """Exact sum / count, rounded once into `dtype` (the exact mean).

    Parameters
    ----------
    state : array_like of int64
        States as for :func:`round_state`.
    count : array_like of int
        Term counts (:func:`exact_count`), non-negative; broadcast against the
        states' outer shape.  A count of 0 gives NaN with a RuntimeWarning.
    dtype : dtype, optional
        As for :func:`round_state`.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import exact_count, exact_sum_state, state_mean
    >>> x = np.array([0.1, 0.2, 0.3])
    >>> state_mean(exact_sum_state(x), exact_count(x)) == 0.2
    np.True_
    """
    name = "state_mean"
    result, is_complex = _result_dtype(dtype, name)
    arr = check_states(state, name, "state", is_complex)
    counts = np.asarray(count)
    if counts.dtype.kind not in "biu":
        raise TypeError(f"{name}: count must be integers, not dtype {counts.dtype}")
    if np.any(counts < 0) or (counts.dtype.kind == "u" and np.any(counts > 2**63 - 1)):
        raise ValueError(f"{name}: count must be non-negative int64 values")
    counts = counts.astype(_NATIVE_INT64)
    outer = arr.shape[:arr.ndim - (2 if is_complex else 1)]
    try:
        counts = np.broadcast_to(counts, np.broadcast_shapes(outer, counts.shape))
    except ValueError:
        raise ValueError(f"{name}: count of shape {counts.shape} does not broadcast "
                         f"against the states' shape {outer}") from None
    if np.any(counts == 0) and counts.size:
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    return _round(arr, counts, result, is_complex)


def _round(arr, counts, result, is_complex):
    """Round checked native states (divided by counts unless None)."""
    part = _dtypes.component(result)
    comps = (arr[..., 0, :], arr[..., 1, :]) if is_complex else (arr,)
    rounded = []
    for comp in comps:
        if counts is None:
            rounded.append(exact_state_round_ufunc(comp, signature=(_NATIVE_INT64, part)))
        else:
            rounded.append(exact_state_mean_ufunc(
                comp, counts, signature=(_NATIVE_INT64, _NATIVE_INT64, part)))
    if is_complex:
        res = np.empty(np.shape(rounded[0]), result)
        res.real, res.imag = rounded
    else:
        res = np.asarray(rounded[0])
    return res[()] if res.ndim == 0 else res
