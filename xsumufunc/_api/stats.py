"""exact_var, exact_std, exact_nanvar and exact_nanstd: the variance about
the exact mean, rounded once (the algorithm: ``_core/moments.py``)."""

# Hints as written (ArrayLike, DTypeLike), not NumPy's expanded Unions: help()
# and the signatures stay readable.
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from .._backends.plans import declare
from .._core.moments import variance
from .._core.spec import NO_VALUE
from .._dispatch import dispatching

_ARRAYS = ("a", "where")


@dispatching("exact_var", _ARRAYS)
def exact_var(a: ArrayLike, axis: int | tuple[int, ...] | None = None,
              dtype: DTypeLike | None = None, out: np.ndarray | None = None, ddof: float = 0,
              keepdims: bool = False, *, where: ArrayLike = True,
              correction: Any = NO_VALUE) -> Any:
    """Variance, exact and rounded once: ``numpy.var`` without rounding error.

    The result is the exact value of ``sum((x - mean)**2) / (n - ddof)``,
    with the exact mean of the n terms, rounded to nearest (ties to even)
    into the result dtype.  Squares never overflow or underflow on the way
    (the squares of 1e300 are exact in our accumulators; a variance beyond
    the largest float is ``inf``, as IEEE rounding defines it).  Arguments
    are those of ``numpy.var`` (``mean=`` is not taken: the mean is always
    the exact one).

    Parameters
    ----------
    a : array_like
        bool, integer (every 64-bit value, exactly), float16, float32, float64,
        bfloat16, complex64 or complex128 values.  The variance of complex
        values is that of the real parts plus that of the imaginary parts.
    axis : None, int or tuple of ints, optional
        Axes to reduce; None: every element.
    dtype : dtype, optional
        The real dtype to round into (float16, float32, float64, bfloat16).
        Default: the input's (its component dtype for complex; float64 for
        bool and integers).
    out : ndarray, optional
        Where to put the result; with ``dtype=None`` the variance is rounded
        straight into ``out.dtype``.
    ddof, correction : float, optional
        Delta degrees of freedom: the divisor is ``n - ddof`` (``correction``
        is NumPy 2's name for it; give one of them).  Any finite real
        number: a float is taken at its exact value, so ``n - ddof`` is an
        exact rational and the result is still rounded once.  ``n - ddof <= 0`` gives
        ``inf`` (``nan`` for zero spread) with a RuntimeWarning, as NumPy.
    keepdims : bool, optional
        Keep the reduced axes as length-1 axes.
    where : array_like of bool, optional
        Elements to include; the others are neither terms nor counted.

    Returns
    -------
    numpy scalar or ndarray (``out`` if given).  A NaN or infinite term
    gives NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_var
    >>> exact_var(np.array([1.0, 2.0, 3.0, 4.0]))
    np.float64(1.25)
    >>> exact_var([1e200, -1e200, 1e-200])        # squares of 1e200 are exact here
    np.float64(inf)
    >>> exact_var(np.array([[1.0, 2.0], [3.0, 5.0]]), axis=1, ddof=1)
    array([0.5, 2. ])
    >>> exact_var(np.array([0.1, 0.2, 0.3]), dtype=np.float32)      # one rounding
    np.float32(0.006666667)
    """
    return variance("exact_var", a, axis, dtype, out, ddof, keepdims, where, False,
                    correction, std=False)
declare(exact_var, "variance", skip_nan=False, std=False)


@dispatching("exact_std", _ARRAYS, std=True)
def exact_std(a: ArrayLike, axis: int | tuple[int, ...] | None = None,
              dtype: DTypeLike | None = None, out: np.ndarray | None = None, ddof: float = 0,
              keepdims: bool = False, *, where: ArrayLike = True,
              correction: Any = NO_VALUE) -> Any:
    """Standard deviation, exact and rounded once: ``numpy.std`` without
    rounding error.

    The correctly rounded square root of the exact variance (not the root
    of a rounded variance).  Same arguments as :func:`exact_var`.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_std
    >>> exact_std(np.array([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]))
    np.float64(2.0)
    >>> exact_std(np.array([1.0, 2.0]), ddof=1) == np.sqrt(0.5)
    np.True_
    """
    return variance("exact_std", a, axis, dtype, out, ddof, keepdims, where, False,
                    correction, std=True)
declare(exact_std, "variance", skip_nan=False, std=True)


@dispatching("exact_nanvar", _ARRAYS, skips_nan=True)
def exact_nanvar(a: ArrayLike, axis: int | tuple[int, ...] | None = None,
                 dtype: DTypeLike | None = None, out: np.ndarray | None = None, ddof: float = 0,
                 keepdims: bool = False, *, where: ArrayLike = True,
                 correction: Any = NO_VALUE) -> Any:
    """Exact variance ignoring NaNs, like ``numpy.nanvar``.

    NaNs are neither terms nor counted (a complex term is NaN when either
    part is); a row of only NaNs gives NaN with a RuntimeWarning.  Same
    arguments as :func:`exact_var`.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_nanvar
    >>> exact_nanvar(np.array([1.0, np.nan, 3.0]))
    np.float64(1.0)
    """
    return variance("exact_nanvar", a, axis, dtype, out, ddof, keepdims, where, True,
                    correction, std=False)
declare(exact_nanvar, "variance", skip_nan=True, std=False)


@dispatching("exact_nanstd", _ARRAYS, skips_nan=True, std=True)
def exact_nanstd(a: ArrayLike, axis: int | tuple[int, ...] | None = None,
                 dtype: DTypeLike | None = None, out: np.ndarray | None = None, ddof: float = 0,
                 keepdims: bool = False, *, where: ArrayLike = True,
                 correction: Any = NO_VALUE) -> Any:
    """Exact standard deviation ignoring NaNs, like ``numpy.nanstd``.

    Same arguments as :func:`exact_var`.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_nanstd
    >>> exact_nanstd(np.array([1.0, np.nan, 3.0]))
    np.float64(1.0)
    """
    return variance("exact_nanstd", a, axis, dtype, out, ddof, keepdims, where, True,
                    correction, std=True)
declare(exact_nanstd, "variance", skip_nan=True, std=True)
