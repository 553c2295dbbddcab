"""The NumPy bodies of exact_add.accumulate and exact_add.reduceat."""

import numpy as np

from .._ufuncs import exact_cumsum_ufunc
from . import dtypes
from .grouped import grouped
from .spec import as_input, check_out, single_axis


def accumulate(a, axis=0, dtype=None, out=None):
    """Every prefix sum along `axis`, each exact and rounded once."""
    name = "exact_add.accumulate"
    a, kind = as_input(a, name)
    axis = single_axis(axis, a.ndim, name)
    if out is not None:
        out = check_out(out, a.shape, name)
    result = dtypes.resolve_result(a.dtype, kind, dtype, out, name)
    target = out if out is not None and out.dtype == result else None
    res = np.empty(a.shape, result) if target is None else target
    parts = ((a, res),) if kind == "real" else ((a.real, res.real), (a.imag, res.imag))
    part_dtype = dtypes.component(result)
    for values, into in parts:
        exact_cumsum_ufunc(values, out=into, axes=[(axis,), (axis,)],
                           signature=(dtypes.native(values.dtype), part_dtype))
    if out is not None and target is None:
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


def reduceat(a, indices, axis=0, dtype=None, out=None):
    """Exact sums of the segments that ``np.add.reduceat`` would sum, with
    no Python loop over the segments: the segments' elements are gathered
    into one row per input row and summed by the grouped-sum machinery,
    one group per (row, segment)."""
    name = "exact_add.reduceat"
    a, kind = as_input(a, name)
    axis, indices, lengths = reduceat_segments(a.shape, indices, axis, name)
    k = indices.size
    shape = a.shape[:axis] + (k,) + a.shape[axis + 1:]
    if out is not None:
        out = check_out(out, shape, name)
    result = dtypes.resolve_result(a.dtype, kind, dtype, out, name)
    moved = np.moveaxis(a, axis, -1)
    outer = moved.shape[:-1]
    nrows = int(np.prod(outer, dtype=np.int64))
    total = int(lengths.sum())
    # Position of every gathered element in its row, and its segment.
    first = np.cumsum(lengths) - lengths
    gather = np.repeat(indices - first, lengths) + np.arange(total)
    segment = np.repeat(np.arange(k), lengths)
    values = moved[..., gather].reshape(-1)
    codes = (np.arange(nrows)[:, None] * k + segment).reshape(-1)
    sums = grouped(name, values, codes, nrows * k, result, False, False)
    res = np.moveaxis(sums.reshape(outer + (k,)), -1, axis)
    if out is not None:
        np.copyto(out, res, casting="same_kind")
        return out
    return res
