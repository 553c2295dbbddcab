"""Reduced axes as rows for the loops, or as exact states axis by axis.

The gufuncs reduce the last axis.  Several reduced axes are moved to the end
and merged into one when the strides allow (a view) or when a copy fits in
SCRATCH_BYTES (callers reduce in blocks so that it does); otherwise the
longest reduced axis is summed into exact states and the states are merged
over the other axes, so that a broadcast view is never copied whole.
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


#: Scratch memory is bounded by this (a copy of terms to merge axes, exact
#: states of 552 bytes each): a reduction that needs more runs in blocks
#: (_core/reduce.py over the kept axes, states_axis_by_axis over the
#: reduced ones), each block rounded or merged before the next.
SCRATCH_BYTES = 16 << 20

#: Bytes of one exact state.
STATE_BYTES = fmt.LENGTH * fmt.NATIVE.itemsize


def _copy_fits(arrays, axes):
    """May merging `axes` copy these arrays?  Only within SCRATCH_BYTES (so a
    broadcast view is copied a block at a time, never whole)."""
    return sum(x.size * x.dtype.itemsize for x in arrays) <= SCRATCH_BYTES


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
    return merge_axes([values], axes, allow_copy=False) is None and not _copy_fits([values], axes)


def scratch_per_result(values, axes, mask=None, states=False):
    """Bytes of scratch that one result of reducing `values` over `axes`
    takes: a copy of its terms when the axes do not merge as a view and the
    copy fits (with `mask`: of its mask too), else the states of going axis
    by axis (which states_axis_by_axis bounds); plus its own state and count
    when the path goes through states (`states`, or axis by axis)."""
    arrays = [values] if mask is None else [values, mask]
    own = STATE_BYTES + 8
    if merge_axes(arrays, axes, allow_copy=False) is not None:
        return own if states else 0
    slab = math.prod(values.shape[ax] for ax in axes)
    copy = slab * sum(x.dtype.itemsize for x in arrays)
    if copy <= SCRATCH_BYTES:
        return copy + (own if states else 0)
    longest = max(values.shape[ax] for ax in axes)
    return own + min(slab // max(longest, 1) * STATE_BYTES, SCRATCH_BYTES)


def rows(values, axes):
    """values as rows to reduce (see merge_axes), or None when the axes do
    not merge as a view and a copy would not fit in SCRATCH_BYTES (then go
    axis by axis through exact states)."""
    merged = merge_axes([values], axes, allow_copy=_copy_fits([values], axes))
    return None if merged is None else merged[0]


def _by_blocks_of_reduced_axis(values, axes, reduce, mask=None):
    """reduce(values, axes[, mask]) -> (states, counts or None), applied to
    blocks of the longest reduced axis other than the innermost when its
    states would exceed SCRATCH_BYTES; the blocks' states are merged (and
    counts added) one after another."""
    inner = _innermost(values, axes)
    outers = [ax for ax in axes if ax != inner and values.shape[ax] > 1]
    if (not outers
            or values.size // max(values.shape[inner], 1) * STATE_BYTES <= SCRATCH_BYTES):
        return None
    outer = max(outers, key=lambda ax: values.shape[ax])
    per_index = values.size // values.shape[inner] // values.shape[outer] * STATE_BYTES
    block = max(1, SCRATCH_BYTES // max(per_index, 1))
    states = counts = None
    for start in range(0, values.shape[outer], block):
        part = (slice(None),) * outer + (slice(start, start + block),)
        if mask is None:
            s, c = reduce(values[part], axes), None
        else:
            s, c = reduce(values[part], mask[part], axes)
        states = s if states is None else exact_state_merge_ufunc(np.stack([states, s], -2))
        counts = c if counts is None else counts + c
    return states, counts


def states_axis_by_axis(values, axes):
    """Exact states of values summed over several axes, without a copy of
    values: the longest axis is summed into states, the others merged (in
    blocks, so that the states in flight stay within SCRATCH_BYTES)."""
    blocked = _by_blocks_of_reduced_axis(values, axes, states_axis_by_axis)
    if blocked is not None:
        return blocked[0]
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
    merged = merge_axes([values, mask], axes, allow_copy=_copy_fits([values, mask], axes))
    if merged is not None:
        return masked_states_rows(merged[0], merged[1], skip_nan)
    blocked = _by_blocks_of_reduced_axis(
        values, axes, lambda v, m, ax: masked_states(v, m, ax, skip_nan), mask)
    if blocked is not None:
        return blocked
    inner = _innermost(values, axes)
    states, counts = masked_states_rows(np.moveaxis(values, inner, -1),
                                         np.moveaxis(mask, inner, -1), skip_nan)
    states, rest = _merge_states_over(states, axes, inner)
    return states, np.sum(counts, axis=rest, dtype=fmt.NATIVE)


def _cuts(shape, budget):
    """Slices that cut an array of `shape` into blocks of at most `budget`
    elements (one element at least), in C order: whole leading indices
    when they fit, else one index at a time of the leading axis, its
    rest cut the same way."""
    if not shape or math.prod(shape) <= budget:
        yield (slice(None),) * len(shape)
        return
    inner = math.prod(shape[1:])
    if inner <= budget:
        step = max(1, budget // max(inner, 1))
        for start in range(0, shape[0], step):
            yield (slice(start, start + step),) + (slice(None),) * (len(shape) - 1)
        return
    for i in range(shape[0]):
        for rest in _cuts(shape[1:], budget):
            yield (slice(i, i + 1),) + rest


#: Bytes one term may take in the copies of a block (the term, its float64
#: parts, a mask, the operands of its square): row_blocks copies at most
#: SCRATCH_BYTES // TERM_COPY_BYTES terms at a time.
TERM_COPY_BYTES = 32


def row_blocks(arrays, axes, result_bytes):
    """The reduction of `arrays` (of one shape; e.g. values and a mask, which
    may be broadcast views) over `axes`, cut so that nothing is copied
    whole: yields (kept, pieces), kept the slices of a block of the output
    (the kept axes, in order; at most SCRATCH_BYTES // result_bytes
    results, result_bytes being what a caller holds per result) and pieces
    an iterator, over the reduced axes, of [rows of each array] (2-D, one row per
    result of the block in C order).  Every term of a result is in exactly
    one row of one piece.  The rows are views when the strides allow (one
    piece per block), else copies of at most SCRATCH_BYTES //
    TERM_COPY_BYTES terms each."""
    first = arrays[0]
    kept = [ax for ax in range(first.ndim) if ax not in axes]
    # Terms in memory order (largest stride first), as merge_axes does: the
    # result does not depend on their order, and transposed data merges.
    reduced = sorted(axes, key=lambda ax: -abs(first.strides[ax]))
    moved = [np.transpose(x, kept + reduced) for x in arrays]
    k = len(kept)
    kept_shape = tuple(first.shape[ax] for ax in kept)
    reduced_shape = tuple(first.shape[ax] for ax in reduced)
    n = math.prod(reduced_shape)
    term_budget = max(1, SCRATCH_BYTES // TERM_COPY_BYTES)
    for out in _cuts(kept_shape, max(1, SCRATCH_BYTES // max(result_bytes, 1))):
        blocks = [x[out] for x in moved]
        count = math.prod(blocks[0].shape[:k])
        try:
            views = [np.reshape(b, (count, n), copy=False) for b in blocks]
        except ValueError:
            views = None
        if views is not None:
            yield out, iter([views])
            continue
        per_row = max(1, term_budget // max(count, 1))
        yield out, _pieces(blocks, k, count, _cuts(reduced_shape, per_row))


def _pieces(blocks, k, count, cuts):
    """One piece at a time (see row_blocks): copies of the cuts of the
    reduced axes of each block, as rows."""
    for cut in cuts:
        parts = [b[(slice(None),) * k + cut] for b in blocks]
        yield [np.reshape(p, (count, p.size // max(count, 1))) for p in parts]
