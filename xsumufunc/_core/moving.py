"""Exact moving-window sums, means, variances and standard deviations (the
NumPy bodies of exact_moving_sum, exact_moving_mean, exact_moving_var and
exact_moving_std; the algorithms: ``src/kernels/moving/xs_moving.c``,
``src/kernels/moving/xs_moving_var.c``)."""

import math

import numpy as np

from .._ufuncs import _moving_row, _moving_var_row, _moving_var_ufunc, exact_moving_ufunc
from . import dtypes, moments
from . import rows as rows_module
from .spec import NO_VALUE, as_input, as_integer, single_axis

_F64, _F32, _I64 = np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.int64)
_BOOL = np.dtype(bool)

#: The compiled loop's signature for the dtypes it reads as they are, each
#: into itself: float32 terms are widened exactly in C, without the float64
#: copies in stretches that other dtypes take (issue 30).
_DIRECT = {_F64: (_F64, _I64, _I64, _BOOL, _F64), _F32: (_F32, _I64, _I64, _BOOL, _F32)}


def check_window(window, min_count, length, func_name):
    """window and min_count as ints: 1 <= min_count <= window <= length
    (min_count None: the window); an empty axis takes any window (it has no
    windows)."""
    window = as_integer(window, func_name, "window")
    if window < 1:
        raise ValueError(f"{func_name}: window must be at least 1, not {window}")
    if length and window > length:
        raise ValueError(f"{func_name}: window must be in [1, {length}] (the length "
                         f"of the axis), not {window}")
    if min_count is None:
        return window, window
    min_count = as_integer(min_count, func_name, "min_count")
    if not 1 <= min_count <= window:
        raise ValueError(f"{func_name}: min_count must be in [1, window={window}], "
                         f"not {min_count}")
    return window, min_count


def check(func_name, dtype, shape, window, axis, min_count):
    """Checked arguments for an input of this dtype and shape: the axis,
    window, min_count and the result dtype."""
    if dtypes.input_kind(dtype, func_name) == "complex":
        raise TypeError(f"{func_name}: complex input is not supported; pass the real and "
                        "imaginary parts separately")
    axis = single_axis(axis, len(shape), func_name)
    window, min_count = check_window(window, min_count, shape[axis], func_name)
    return axis, window, min_count, dtypes.default_result(dtype)


def moving(func_name, a, window, axis, min_count, mean):
    """Each trailing window's exact sum (mean) along `axis`, rounded once."""
    a, _ = as_input(a, func_name)
    axis, window, min_count, result = check(func_name, a.dtype, a.shape, window, axis,
                                            min_count)
    rows = _to_last(a, axis)
    signature = _DIRECT.get(rows.dtype)
    if signature is not None:
        # One row: its loop without NumPy's gufunc call, most of a small
        # call's cost (None: a flag to report, which the gufunc does).
        res = _moving_row(rows, window, min_count, mean) if rows.ndim == 1 else None
        if res is None:
            res = exact_moving_ufunc(rows, window, min_count, mean, signature=signature)
        return _to_last(res, axis)
    # Other dtypes are read as float64 (exact parts): a stretch of the rows
    # at a time, each stretch with the window - 1 terms before it, so that
    # every window is whole and the copies stay near rows.SCRATCH_BYTES
    # (a float8 row of 3e8 terms was widened whole: 2.4 GB, and NumPy's
    # cast cannot be interrupted); Ctrl-C is seen between stretches.
    res = np.empty(rows.shape, result)
    count = max(1, math.prod(rows.shape[:-1]))
    stretch = max(4 * window, rows_module.SCRATCH_BYTES // (_BYTES_PER_TERM * count))
    n = rows.shape[-1]
    for start in range(0, max(n, 1), stretch):
        first = max(0, start - (window - 1))
        part = _moving_rows(rows[..., first:start + stretch], window, min_count, mean, result)
        res[..., start:start + stretch] = part[..., start - first:]
    return _to_last(res, axis)


def _to_last(a, axis):
    """`a` with `axis` moved last, or back (the same swap): `a` itself when
    it is last already (np.moveaxis costs a small call several times its
    loop)."""
    return a if axis == a.ndim - 1 else np.moveaxis(a, axis, -1)


#: Scratch per term of a stretch: its float64 parts (two for wide integers,
#: interleaved) and the result.
_BYTES_PER_TERM = 40


def _moving_rows(rows, window, min_count, mean, result):
    """The moving sums (means) of the last axis of rows, into `result`."""
    parts = dtypes.float64_parts(rows)
    if len(parts) == 1:
        return exact_moving_ufunc(parts[0], window, min_count, mean,
                                  signature=(_F64, _I64, _I64, _BOOL, result))
    return moving_of_halves(parts, window, min_count, mean)


def moving_of_halves(halves, window, min_count, mean):
    """Moving sums (means) along the last axis, into float64, of 64-bit
    integers given as their two exact float64 halves h + l
    (dtypes.float64_parts; a missing value: NaN in both).  Over the
    interleaved terms h0, l0, h1, l1, ..., a window of 2 * window ending at
    every second term holds exactly the halves of a window of the integers,
    and twice as many terms: min_count doubles too.  Its mean is half the
    mean of the integers, in float64's normal range (a nonzero mean of
    integers is at least 2**-63 in magnitude): doubling it is exact."""
    high, low = halves
    both = np.empty(high.shape[:-1] + (2 * high.shape[-1],), _F64)
    both[..., 0::2], both[..., 1::2] = high, low
    res = exact_moving_ufunc(both, 2 * window, 2 * min_count, mean,
                             signature=(_F64, _I64, _I64, _BOOL, _F64))
    res = np.ascontiguousarray(res[..., 1::2])
    if mean:
        res *= 2
    return res


#: Terms per block of the windows computed exactly (rows of window terms).
_EXACT_BLOCK_TERMS = 1 << 20


def moving_variance(func_name, a, window, axis, min_count, ddof, std):
    """Each trailing window's exact variance (std: its correctly rounded
    root) along `axis`, rounded once into the result dtype.  NaN terms are
    left out; NaN where the window holds fewer than min_count terms or no
    more than ddof, or an Inf.  The compiled loop (src/kernels/moving/xs_moving_var.c)
    decides nearly every window in O(1); the windows it leaves are computed
    exactly from their terms (_exact_windows)."""
    a, _ = as_input(a, func_name)
    axis, window, min_count, result = check(func_name, a.dtype, a.shape, window, axis,
                                            min_count)
    ddof = moments.check_ddof(ddof, NO_VALUE, func_name)
    rows = _to_last(a, axis)
    values = dtypes.float64_parts(rows, split=False)
    if values is not None and moments.loop_applies(rows.dtype, result, ddof):
        out, decided = _decided_windows(values[0], window, min_count, moments.loop_ddof(ddof),
                                        std, result)
        # Whether all are decided first (np.count_nonzero: a fifth of the
        # call decided.all() costs): np.argwhere costs a small call more
        # than its loop.
        todo = None if np.count_nonzero(decided) == decided.size else np.argwhere(~decided)
    else:
        out = np.empty(rows.shape, result)
        todo = np.argwhere(np.ones(rows.shape, bool))
    if todo is not None and todo.size:
        _exact_windows(rows, todo, window, min_count, ddof, std, out, func_name)
    return _to_last(out, axis)


def _decided_windows(values, window, min_count, ddof, std, result):
    """The compiled loop over float64 rows `values`: the windows' variances
    (std: roots) in `result` where decided, and the decided flags."""
    if values.ndim == 1 and result == _F64:
        # One row: its loop without NumPy's gufunc call (a small call's cost).
        got = _moving_var_row(values, window, min_count, ddof, std)
        if got is not None:
            return got
    out, decided = np.empty(values.shape, result), np.empty(values.shape, bool)
    _moving_var_ufunc(values, window, min_count, ddof, std, out=(out, decided),
                      signature=(_F64, _I64, _I64, _I64, _BOOL, result, _BOOL))
    return out, decided


def _exact_windows(rows, where, window, min_count, ddof, std, out, func_name):
    """The windows ending at `where` (indices into rows; the last one the
    position along the axis) from their terms: exact moments
    (moments.Moments) rounded once (moments.finish), in blocks of about
    _EXACT_BLOCK_TERMS terms."""
    n = rows.shape[-1]
    flat_rows, flat_out = rows.reshape(-1, n), out.reshape(-1, n)
    row_of = (np.ravel_multi_index(tuple(where[:, :-1].T), rows.shape[:-1])
              if rows.ndim > 1 else np.zeros(len(where), np.intp))
    ends = where[:, -1]
    back = np.arange(window - 1, -1, -1)
    nan = np.array(np.nan).astype(out.dtype)
    step = max(1, _EXACT_BLOCK_TERMS // window)
    for s in range(0, len(ends), step):
        r, k = row_of[s:s + step], ends[s:s + step]
        at = k[:, np.newaxis] - back
        keep = at >= 0
        terms = flat_rows[r[:, np.newaxis], np.maximum(at, 0)]
        if terms.dtype.kind not in "biu":
            keep &= ~np.isnan(terms)
        counts = np.count_nonzero(keep, axis=1)
        values = np.full(len(k), nan, out.dtype)
        ok = np.flatnonzero((counts >= min_count) & ~moments.no_dof(counts, ddof))
        if ok.size:
            m = moments.Moments.of_rows(terms[ok], keep[ok], func_name)
            values[ok] = moments.finish(m, ddof, out.dtype, std, func_name)
        flat_out[r, k] = values
