"""exact_sum, exact_nansum, exact_mean and exact_nanmean."""

# Hints as written (ArrayLike, DTypeLike), not NumPy's expanded Unions: help()
# and the signatures stay readable.
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from .._backends.plans import declare
from .._core.reduce import exact_reduce
from .._core.spec import NO_VALUE
from .._dispatch import dispatching

_ARRAYS = ("a", "where", "initial")


@dispatching("exact_sum", _ARRAYS)
def exact_sum(a: ArrayLike, axis: int | tuple[int, ...] | None = None,
              dtype: DTypeLike | None = None, out: np.ndarray | None = None,
              keepdims: bool = False, initial: Any = NO_VALUE, where: ArrayLike = True) -> Any:
    """Sum of array elements over the given axes, exact and rounded once.

    The result is the exact mathematical sum of the terms rounded to the
    nearest value of the result dtype (ties to even), whatever the order,
    memory layout or chunking of the input.  Arguments are those of
    ``numpy.sum``.

    Parameters
    ----------
    a : array_like
        bool, integer, float16, float32, float64, bfloat16, complex64 or
        complex128 values.
    axis : None, int or tuple of ints, optional
        Axes to sum over; None sums every element.
    dtype : dtype, optional
        The result dtype (float16, float32, float64 or bfloat16; complex for
        complex input).  It chooses where the exact sum is rounded to, never
        how it is accumulated.  Default: the input dtype for floats, float64
        for bool and integers.
    out : ndarray, optional
        Where to put the result; with ``dtype=None`` the exact sum is rounded
        directly into ``out.dtype``.
    keepdims : bool, optional
        Keep the reduced axes as length-1 axes.
    initial : scalar, optional
        One more term, added exactly.
    where : array_like of bool, optional
        Elements to include; the others are not terms.

    Returns
    -------
    numpy scalar or ndarray (``out`` if given).

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_sum
    >>> exact_sum([1e100, 1.0, -1e100])        # np.sum gives 0.0
    np.float64(1.0)
    >>> exact_sum([1e308, 1e308, -1e308])      # np.sum gives inf
    np.float64(1e+308)
    >>> exact_sum(np.full(10, 0.1)) == 1.0     # the exact sum of ten 0.1 rounds to 1.0
    np.True_
    >>> exact_sum(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=0)
    array([4., 6.])
    >>> exact_sum(np.array([1.0, 2**-24, 2**-80]), dtype=np.float32)   # one rounding
    np.float32(1.0000001)
    """
    return exact_reduce("exact_sum", a, axis, dtype, out, keepdims, initial, where,
                        skip_nan=False)
declare(exact_sum, "reduce", skip_nan=False, mean=False)


@dispatching("exact_nansum", _ARRAYS, skips_nan=True)
def exact_nansum(a: ArrayLike, axis: int | tuple[int, ...] | None = None,
                 dtype: DTypeLike | None = None, out: np.ndarray | None = None,
                 keepdims: bool = False, initial: Any = NO_VALUE, where: ArrayLike = True) -> Any:
    """Exact sum treating NaNs as absent, like ``numpy.nansum``.

    Same arguments as :func:`exact_sum`.  A row of only NaNs sums to +0.0.
    Infinities are still terms (so +Inf and -Inf still give NaN).

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_nansum
    >>> exact_nansum([1e100, np.nan, 1.0, -1e100])
    np.float64(1.0)
    >>> exact_nansum([np.nan, np.nan])
    np.float64(0.0)
    """
    return exact_reduce("exact_nansum", a, axis, dtype, out, keepdims, initial, where,
                        skip_nan=True)
declare(exact_nansum, "reduce", skip_nan=True, mean=False)


@dispatching("exact_mean", ("a", "where"), mean=True)
def exact_mean(a: ArrayLike, axis: int | tuple[int, ...] | None = None,
               dtype: DTypeLike | None = None, out: np.ndarray | None = None,
               keepdims: bool = False, where: ArrayLike = True) -> Any:
    """Arithmetic mean over the given axes: the exact sum divided by the count,
    rounded once.

    ``np.mean`` rounds the sum and then rounds the quotient (and overflows
    when the sum does); here the exact sum is divided by the number of terms
    by long division and rounded once, to nearest with ties to even, into
    the result dtype.  Arguments are those of ``numpy.mean``.

    Parameters
    ----------
    a : array_like
        bool, integer, float16, float32, float64, bfloat16, complex64 or
        complex128 values.
    axis : None, int or tuple of ints, optional
        Axes to average over; None averages every element.
    dtype : dtype, optional
        The result dtype (float16, float32, float64 or bfloat16; complex for
        complex input).  Default: the input dtype for floats, float64 for
        bool and integers.
    out : ndarray, optional
        Where to put the result; with ``dtype=None`` the mean is rounded
        directly into ``out.dtype``.
    keepdims : bool, optional
        Keep the reduced axes as length-1 axes.
    where : array_like of bool, optional
        Elements to include; the others are neither summed nor counted.

    Returns
    -------
    numpy scalar or ndarray (``out`` if given).  The mean of no terms is NaN,
    with a RuntimeWarning, as in NumPy.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_mean
    >>> exact_mean([1e308, 1e308])               # np.mean gives inf
    np.float64(1e+308)
    >>> exact_mean([1e100, 1.0, -1e100, 1.0])    # np.mean gives 0.25
    np.float64(0.5)
    >>> exact_mean(np.array([[1.0, 2.0], [4.0, 8.0]]), axis=1)
    array([1.5, 6. ])
    >>> exact_mean(np.arange(5), where=np.arange(5) > 2)
    np.float64(3.5)
    """
    return exact_reduce("exact_mean", a, axis, dtype, out, keepdims, NO_VALUE, where,
                        skip_nan=False, mean=True)
declare(exact_mean, "reduce", skip_nan=False, mean=True)


@dispatching("exact_nanmean", ("a", "where"), skips_nan=True, mean=True)
def exact_nanmean(a: ArrayLike, axis: int | tuple[int, ...] | None = None,
                  dtype: DTypeLike | None = None, out: np.ndarray | None = None,
                  keepdims: bool = False, where: ArrayLike = True) -> Any:
    """Exact mean ignoring NaNs, like ``numpy.nanmean``.

    NaNs are neither summed nor counted; a row of only NaNs gives NaN with a
    RuntimeWarning.  Same arguments as :func:`exact_mean`.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_nanmean
    >>> exact_nanmean([1.0, np.nan, 2.0])
    np.float64(1.5)
    """
    return exact_reduce("exact_nanmean", a, axis, dtype, out, keepdims, NO_VALUE, where,
                        skip_nan=True, mean=True)
declare(exact_nanmean, "reduce", skip_nan=True, mean=True)
