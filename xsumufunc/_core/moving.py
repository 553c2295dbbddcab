"""Exact moving-window sums and means (the NumPy bodies of exact_moving_sum
and exact_moving_mean; the algorithm: ``src/xs_moving.c``)."""

import operator

import numpy as np

from .._ufuncs import exact_moving_ufunc
from . import dtypes
from .spec import as_input, single_axis

_F64, _I64 = np.dtype(np.float64), np.dtype(np.int64)


def check_window(window, min_count, length, func_name):
    """window and min_count as ints: 1 <= min_count <= window <= length
    (min_count None: the window)."""
    try:
        window = operator.index(window)
    except TypeError:
        raise TypeError(f"{func_name}: window must be an integer, not {window!r}") from None
    if not 1 <= window <= max(length, 1):
        raise ValueError(f"{func_name}: window must be in [1, {max(length, 1)}] (the length "
                         f"of the axis), not {window}")
    if min_count is None:
        return window, window
    try:
        min_count = operator.index(min_count)
    except TypeError:
        raise TypeError(f"{func_name}: min_count must be None or an integer, "
                        f"not {min_count!r}") from None
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
    parts = [np.moveaxis(p, axis, -1) for p in dtypes.float64_parts(a)]
    if len(parts) == 1:
        res = exact_moving_ufunc(parts[0], window, min_count, mean,
                                 signature=(_F64, _I64, _I64, np.dtype(bool), result))
    else:
        res = moving_of_halves(parts, window, min_count, mean)
    return np.moveaxis(res, -1, axis)


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
                             signature=(_F64, _I64, _I64, np.dtype(bool), _F64))
    res = np.ascontiguousarray(res[..., 1::2])
    if mean:
        res *= 2
    return res
