"""exact_average, exact_cov, exact_corrcoef and exact_linear_regression:
statistics of pairs of variables from exact sums, each result rounded once
(the algorithm: ``_core/pairs.py``); exact_matmul (``_core/matmul.py``)."""

from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike, DTypeLike

from .._backends.plans import declare
from .._core import matmul as _matmul
from .._core import pairs as _pairs
from .._dispatch import dispatching

LinearRegression = _pairs.LinearRegression


@dispatching("exact_average", ("a", "weights"))
def exact_average(a: ArrayLike, axis: int | tuple[int, ...] | None = None,
                  weights: ArrayLike | None = None, returned: bool = False,
                  keepdims: bool = False) -> Any:
    """Weighted average, exact and rounded once: ``numpy.average`` without
    rounding error.

    The result is the exact ``sum(w * a) / sum(w)`` over the axes, rounded
    to nearest (ties to even) into the result dtype; without weights, the
    exact mean.  The weight sum is exact too: weights that sum to zero
    exactly raise ``ZeroDivisionError`` (NumPy tests its rounded sum).

    Parameters
    ----------
    a : array_like
        bool, integer, float16, float32, float64 or bfloat16 values.
    axis : None, int or tuple of ints, optional
        Axes to average over; None: every element.
    weights : array_like, optional
        Of a's shape, or of the shape of a's axes `axis` (NumPy's rules and
        errors).  bool, integer or float values.
    returned : bool, optional
        Also return the sum of the weights (rounded once into the result
        dtype, broadcast to the result's shape).
    keepdims : bool, optional
        Keep the reduced axes as length-1 axes.

    Returns
    -------
    numpy scalar or ndarray; with ``returned``, a tuple (average, sum of
    weights).  NumPy's result dtype (float64 for bool and integer a).  A NaN
    or Inf term or weight gives the IEEE quotient of the rounded sums.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_average
    >>> exact_average([1.0, 2.0, 4.0], weights=[3, 1, 0])
    np.float64(1.25)
    >>> exact_average([1e16, 1.0, -1e16, 1.0], weights=[1.0, 3.0, 1.0, 1.0])  # 4/6
    np.float64(0.6666666666666666)
    >>> exact_average(np.array([[1.0, 2.0], [3.0, 5.0]]), axis=1, weights=[1, 3],
    ...               returned=True)
    (array([1.75, 4.5 ]), array([4., 4.]))
    """
    return _pairs.average(a, axis, weights, returned, keepdims)


@dispatching("exact_cov", ("m", "y", "fweights", "aweights"))
def exact_cov(m: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True,
              bias: bool = False, ddof: int | None = None,
              fweights: ArrayLike | None = None, aweights: ArrayLike | None = None,
              dtype: DTypeLike | None = None) -> Any:
    """Covariance matrix, each entry exact and rounded once: ``numpy.cov``
    without rounding error.

    Entry (x, y) is the exact ``(Sw*Swxy - Swx*Swy) / (Sw*fact)`` (unweighted:
    ``(n*Sxy - Sx*Sy) / (n*(n - ddof))``), with NumPy's ``fact`` for the
    weights, rounded once: offset data (values near 1e8 with spread 1) and
    nearly collinear variables lose nothing.

    Parameters
    ----------
    m : array_like
        1-D or 2-D real values: each row a variable, each column an
        observation (``rowvar=False``: the other way round).
    y : array_like, optional
        More variables, in the same layout.
    rowvar, bias, ddof : optional
        As ``numpy.cov`` (ddof defaults to 1, or 0 with ``bias``).
    fweights, aweights : array_like, optional
        Frequency (non-negative integers) and analytic (non-negative) weights
        per observation, as ``numpy.cov``; their product is taken exactly.
        Shape errors are ValueError (NumPy: RuntimeError).
    dtype : dtype, optional
        The real dtype to round into (default float64).  The data are never
        converted to it first.

    Returns
    -------
    ndarray of shape (p, p), squeezed as NumPy's (0-d for one variable).
    Entries of a variable holding a NaN or Inf are NaN; ``fact <= 0`` gives
    inf (NaN for 0) with a RuntimeWarning.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_cov
    >>> x = 1e8 + np.array([0.0, 1.0, 2.0, 3.0])
    >>> exact_cov(np.stack([x, x[::-1]]))
    array([[ 1.66666667, -1.66666667],
           [-1.66666667,  1.66666667]])
    >>> exact_cov([1.0, 2.0, 4.0], fweights=[1, 2, 1], bias=True)
    array(1.1875)
    """
    return _pairs.cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype)


@dispatching("exact_corrcoef", ("x", "y"))
def exact_corrcoef(x: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True, *,
                   dtype: DTypeLike | None = None) -> Any:
    """Correlation matrix, each entry correctly rounded: ``numpy.corrcoef``
    without rounding error.

    Entry (x, y) is the exact ``N_xy / sqrt(N_xx * N_yy)`` with
    ``N_xy = n*Sxy - Sx*Sy``, rounded once: the diagonal is exactly 1 and
    every entry lies in [-1, 1] without clipping.

    Parameters
    ----------
    x, y, rowvar : optional
        As :func:`exact_cov`.
    dtype : dtype, optional
        The real dtype to round into (default float64).

    Returns
    -------
    ndarray of shape (p, p), squeezed as NumPy's.  A variable with a NaN or
    Inf, or with no spread, gives NaN entries (with a RuntimeWarning).

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_corrcoef
    >>> exact_corrcoef([1.0, 2.0, 3.0], [2.0, 4.0, 7.0])
    array([[1.        , 0.99339927],
           [0.99339927, 1.        ]])
    >>> x = 1e8 + np.arange(5.0)
    >>> exact_corrcoef(x, 3 * x)[0, 1]
    np.float64(1.0)
    """
    return _pairs.corrcoef(x, y, rowvar, dtype)


@dispatching("exact_linear_regression", ("x", "y"))
def exact_linear_regression(x: ArrayLike, y: ArrayLike, proportional: bool = False) -> Any:
    """Least-squares line, slope and intercept each correctly rounded:
    ``statistics.linear_regression`` without rounding error.

    slope = ``(n*Sxy - Sx*Sy) / (n*Sxx - Sx**2)`` and intercept =
    ``(Sy*Sxx - Sx*Sxy) / (n*Sxx - Sx**2)``, each the exact rational
    rounded once; ``proportional``: slope = ``Sxy / Sxx``, intercept 0.

    Parameters
    ----------
    x, y : array_like
        1-D real values of equal length (at least two).
    proportional : bool, optional
        Fit a line through the origin.

    Returns
    -------
    LinearRegression
        A named tuple (slope, intercept) of the result dtype's scalars
        (float64 for integers).  NaN and NaN for a NaN or Inf in the data.

    Raises
    ------
    statistics.StatisticsError
        As ``statistics.linear_regression``: unequal lengths, fewer than two
        points, or constant x.

    Examples
    --------
    >>> from xsumufunc import exact_linear_regression
    >>> exact_linear_regression([1, 2, 3, 4, 5], [3, 5, 7, 9, 11])
    LinearRegression(slope=np.float64(2.0), intercept=np.float64(1.0))
    >>> exact_linear_regression([1.0, 2.0, 3.0], [2.0, 4.0, 7.0], proportional=True)
    LinearRegression(slope=np.float64(2.2142857142857144), intercept=np.float64(0.0))
    """
    return _pairs.linear_regression(x, y, proportional)


@dispatching("exact_matmul", ("a", "b"))
def exact_matmul(a: ArrayLike, b: ArrayLike) -> Any:
    """Matrix product, every entry the correctly rounded exact dot product:
    ``numpy.matmul`` without rounding error.

    Entry (i, j) is ``sum(a[i, l] * b[l, j])`` computed exactly and rounded
    once to nearest (ties to even).  Signature ``(n,k),(k,m)->(n,m)`` with
    matmul's broadcasting of the leading axes, and its 1-D rules (a vector
    gets a length-1 axis, removed from the result).  Most entries are
    decided by a few exact BLAS products of slices of the operands (see
    ``_core/matmul.py`` for the design and its proof); the others, and
    every entry the slices cannot bound, by the exact dot product.

    Parameters
    ----------
    a, b : array_like
        bool, integer (exact), float16, bfloat16, float32 or float64 values.

    Returns
    -------
    ndarray (a numpy scalar for two vectors), of the dtype of
    :func:`exact_dot` for these operands (float64 for integers).

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_matmul
    >>> a = np.array([[1e16, 1.0, -1e16], [1.0, 2.0, 3.0]])
    >>> exact_matmul(a, np.ones((3, 2)))                 # np.matmul: 0 in the first row
    array([[1., 1.],
           [6., 6.]])
    >>> exact_matmul(np.arange(3.0), np.arange(3.0))
    np.float64(5.0)
    """
    return _matmul.matmul(a, b)


# Dask arrays: states merged up the task tree (_backends/dask.py, "pairs").
for _public in (exact_average, exact_cov, exact_corrcoef, exact_linear_regression,
                exact_matmul):
    declare(_public, "pairs")
del _public
