"""The NumPy bodies of exact_add.accumulate and exact_add.reduceat."""

import math

import numpy as np

from .._ufuncs import _segment_sums, exact_cumsum_ufunc
from . import dtypes
from . import rows as rows_module
from .grouped import grouped
from .reduce import exact_reduce, plain_call
from .spec import NO_VALUE, as_input, check_out, single_axis


def accumulate(a, axis=0, dtype=None, out=None):
    """Every prefix sum along `axis`, each exact and rounded once."""
    name = "exact_add.accumulate"
    kw = plain_call(a, dtype, out) if type(a) is np.ndarray else None
    if kw is not None and type(axis) is int and -a.ndim <= axis < a.ndim:
        # The common call, with the least Python in front of the loop (the
        # loop the general path below takes, into the default result).
        return exact_cumsum_ufunc(a, axes=[(axis,), (axis,)], **kw)
    a, kind = as_input(a, name)
    axis = single_axis(axis, a.ndim, name)
    if out is not None:
        out = check_out(out, a.shape, name)
    result = dtypes.resolve_result(a.dtype, kind, dtype, out, name)
    # Into a temporary, copied into out at the end: a call that raises
    # (Ctrl-C) leaves out untouched.
    res = np.empty(a.shape, result)
    parts = ((a, res),) if kind == "real" else ((a.real, res.real), (a.imag, res.imag))
    part_dtype = dtypes.component(result)
    for values, into in parts:
        exact_cumsum_ufunc(values, out=into, axes=[(axis,), (axis,)],
                           signature=(dtypes.native(values.dtype), part_dtype))
    if out is not None:
        np.copyto(out, res, casting="same_kind")
        return out
    return res


def reduceat_segments(shape, indices, axis, func_name):
    """Check reduceat's `indices` against an input of `shape`; returns the
    axis, the indices and each segment's length.

    Segment i is ``[indices[i], indices[i+1])`` when ``indices[i] <
    indices[i+1]``, else the single element ``indices[i]``; the last runs to
    the end (NumPy's rule).
    """
    axis = single_axis(axis, len(shape), func_name)
    indices = np.asarray(indices)
    if indices.ndim != 1 or (indices.size and indices.dtype.kind not in "iu"):
        raise TypeError(f"{func_name}: indices must be a 1-D array of integers")
    indices = indices.astype(np.intp)
    length = shape[axis]
    bad = (indices < 0) | (indices >= length)
    if bad.any():
        raise IndexError(f"{func_name}: index {indices[bad][0]} out-of-bounds "
                         f"for axis {axis} of length {length}")
    following = np.append(indices[1:], length)
    stops = np.where(indices < following, following, indices + 1)
    return axis, indices, stops - indices


#: Segments of this many terms or more are summed one at a time, as views
#: (for all rows at once); shorter ones are gathered in runs (below).
LONG_SEGMENT = 4096


def _segment_runs(lengths, budget):
    """Consecutive segments (first, stop) to gather at once: a long segment
    alone, else as many short ones as hold about `budget` terms."""
    first, held = 0, 0
    for j, length in enumerate(lengths.tolist()):
        if length >= LONG_SEGMENT:
            if j > first:
                yield first, j
            yield j, j + 1
            first, held = j + 1, 0
        elif held + length > budget and j > first:
            yield first, j
            first, held = j, length
        else:
            held += length
    if first < len(lengths):
        yield first, len(lengths)


def _gathered_sums(moved, rows, indices, lengths, result, name):
    """Exact sums of short segments of some rows of `moved` (rows: flat
    indices into its leading axes): their elements gathered (a copy of
    those rows' segments only) and summed by the grouped-sum machinery, one
    group per (row, segment).  Returns (len(rows), len(indices))."""
    k = indices.size
    total = int(lengths.sum())
    first = np.cumsum(lengths) - lengths
    gather = np.repeat(indices - first, lengths) + np.arange(total)
    segment = np.repeat(np.arange(k), lengths)
    if moved.ndim == 1:                       # one row (unravel_index wants a shape)
        values = moved[gather]
    else:
        where = np.unravel_index(rows, moved.shape[:-1])
        values = moved[tuple(w[:, None] for w in where) + (gather[None, :],)].reshape(-1)
    codes = (np.arange(rows.size)[:, None] * k + segment).reshape(-1)
    return grouped(name, values, codes, rows.size * k, result, False, False).reshape(-1, k)


def _short_vector_call(a, axis, dtype, out):
    """Is this reduceat's common call, on a vector of fewer than LONG_SEGMENT
    terms (every segment short: the C call adds term by term), axis 0, the
    default result?  Then _segment_sums answers, or hands the call back
    (other dtypes, an index out of bounds, a non-finite result)."""
    return (dtype is None and out is None and type(a) is np.ndarray and a.size < LONG_SEGMENT
            and type(axis) is int and -1 <= axis <= 0)


def reduceat(a, indices, axis=0, dtype=None, out=None):
    """Exact sums of the segments that ``np.add.reduceat`` would sum,
    without a Python loop over short segments and without a whole copy of
    `a` (a broadcast view included): long segments are exact sums of views,
    one call each for all rows; runs of short ones are gathered for blocks
    of rows (rows.SCRATCH_BYTES) and summed as groups."""
    name = "exact_add.reduceat"
    if _short_vector_call(a, axis, dtype, out):
        sums = _segment_sums(a, indices)
        if sums is not None:
            return sums
    a, kind = as_input(a, name)
    axis, indices, lengths = reduceat_segments(a.shape, indices, axis, name)
    k = indices.size
    shape = a.shape[:axis] + (k,) + a.shape[axis + 1:]
    if out is not None:
        out = check_out(out, shape, name)
    result = dtypes.resolve_result(a.dtype, kind, dtype, out, name)
    moved = np.moveaxis(a, axis, -1)
    outer = moved.shape[:-1]
    nrows = math.prod(outer)
    sums = np.empty(outer + (k,), result)
    flat = sums.reshape(nrows, k)
    budget = max(1, rows_module.SCRATCH_BYTES // rows_module.TERM_COPY_BYTES)
    for first, stop in _segment_runs(lengths, budget):
        if lengths[first] >= LONG_SEGMENT:
            start = int(indices[first])
            part = moved[..., start:start + int(lengths[first])]
            sums[..., first] = exact_reduce(name, part, -1, result, None, False, NO_VALUE,
                                            True, False)
            continue
        run = int(lengths[first:stop].sum())
        step = max(1, budget // max(run, 1))
        for r0 in range(0, nrows, step):
            rows = np.arange(r0, min(r0 + step, nrows))
            flat[rows, first:stop] = _gathered_sums(moved, rows, indices[first:stop],
                                                    lengths[first:stop], result, name)
    res = np.moveaxis(sums, -1, axis)
    if out is not None:
        np.copyto(out, res, casting="same_kind")
        return out
    return res
