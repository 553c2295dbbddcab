"""Reduced axes as rows for the loops, or as exact states axis by axis.

The gufuncs reduce the last axis.  Several reduced axes are moved to the end
and merged into one when the strides allow (a view) or when a copy is
cheaper than the alternative; otherwise the longest reduced axis is summed
into exact states and the states are merged over the other axes, so that a
broadcast view is never copied.
"""

import math

import numpy as np

from .._ufuncs import exact_masked_state_ufunc, exact_state_merge_ufunc, exact_sum_state_ufunc
from . import dtypes
from . import stateformat as fmt


def merge_axes(arrays, axes, allow_copy):
    """The arrays (all of one shape) with `axes` moved to the end and merged
    into one: views when the strides allow (one axis always does), copies
    when allow_copy, else None.  No axes (axis=()) gives rows of length 1."""
    if not axes:
        return [x[..., np.newaxis] for x in arrays]
    # An exact sum does not depend on the order of its terms: put the
    # reduced axes in memory order (largest stride first, as NumPy's
    # iterator does), so that a transposed contiguous array merges as a view.
    axes = tuple(sorted(axes, key=lambda ax: -abs(arrays[0].strides[ax])))
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
    state_bytes = values.size // max(longest, 1) * fmt.LENGTH * fmt.NATIVE.itemsize
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
        moved.reshape(moved.shape[:-k - 1] + (merged_length, fmt.LENGTH)))
    return merged, tuple(rest)


def goes_by_states(values, axes):
    """Does rows() give None (the reduction then goes axis by axis through
    exact states)?  Decided without copying anything."""
    return merge_axes([values], axes, allow_copy=False) is None and _copy_costs_more(values, axes)


def rows(values, axes):
    """values as rows to reduce (see merge_axes), or None when going axis by
    axis through exact states is cheaper than the copy a merge would need."""
    merged = merge_axes([values], axes, allow_copy=not _copy_costs_more(values, axes))
    return None if merged is None else merged[0]


def states_axis_by_axis(values, axes):
    """Exact states of values summed over several axes, without a copy of
    values: the longest axis is summed into states, the others merged."""
    inner = _innermost(values, axes)
    states = exact_sum_state_ufunc(np.moveaxis(values, inner, -1),
                                   signature=(dtypes.native(values.dtype), fmt.NATIVE))
    return _merge_states_over(states, axes, inner)[0]


def masked_states_rows(values, mask, skip_nan):
    """Exact states and term counts of the rows (last axis) of `values`,
    over the terms whose `mask` is True (and, with skip_nan, not NaN)."""
    return exact_masked_state_ufunc(
        values, mask, skip_nan,
        signature=(dtypes.native(values.dtype), np.dtype(bool), np.dtype(bool),
                   fmt.NATIVE, fmt.NATIVE))


def masked_states(values, mask, axes, skip_nan):
    """Exact states and counts, over `axes`, of the terms of `values` whose
    `mask` (same shape, often a broadcast view) is True and, with skip_nan,
    that are not NaN.  Merged rows as for rows(), else axis by axis."""
    merged = merge_axes([values, mask], axes, allow_copy=not _copy_costs_more(values, axes))
    if merged is not None:
        return masked_states_rows(merged[0], merged[1], skip_nan)
    inner = _innermost(values, axes)
    states, counts = masked_states_rows(np.moveaxis(values, inner, -1),
                                         np.moveaxis(mask, inner, -1), skip_nan)
    states, rest = _merge_states_over(states, axes, inner)
    return states, np.sum(counts, axis=rest, dtype=fmt.NATIVE)
