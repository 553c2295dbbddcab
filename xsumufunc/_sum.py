"""exact_sum and exact_nansum."""

from ._reduce import NO_VALUE, exact_reduce


def exact_sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=NO_VALUE,
              where=True):
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


def exact_nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=NO_VALUE,
                 where=True):
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
