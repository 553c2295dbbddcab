"""exact_moving_sum and exact_moving_mean: sums and means of trailing
windows that never drift (the algorithm: ``src/kernels/moving/xs_moving.c``)."""

# Hints as written (ArrayLike, DTypeLike), not NumPy's expanded Unions: help()
# and the signatures stay readable.
from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike

from .._backends.plans import declare
from .._core.moving import moving, moving_variance
from .._dispatch import dispatching


@dispatching("exact_moving_sum", ("a",))
def exact_moving_sum(a: ArrayLike, window: int, axis: int = -1,
                     min_count: int | None = None) -> Any:
    """Exact sum of each trailing window, rounded once (bottleneck's
    ``move_sum``, without drift).

    Element i is the exact sum of the non-NaN values among
    ``a[i - window + 1 : i + 1]`` along `axis`, rounded once into the
    result dtype; NaN where the window holds fewer than `min_count` of them
    (so the first ``window - 1`` elements are NaN by default).  The running
    sum adds the entering value and subtracts the leaving one exactly, so
    after a billion steps it is as right as after one.

    Parameters
    ----------
    a : array_like
        bool, integer (every 64-bit value, exactly), float16, float32, float64 or
        bfloat16 values.
    window : int
        The number of elements in each window, ``1 <= window <= a.shape[axis]``.
    axis : int, optional
        The axis to move along (default: the last).
    min_count : int, optional
        The fewest non-NaN values a window needs for a result (default:
        `window`); ``1 <= min_count <= window``.

    Returns
    -------
    ndarray of a's shape: a's dtype for floats, float64 for bool and integers.
    Infinities are terms (+Inf and -Inf in one window give NaN).

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_moving_sum
    >>> exact_moving_sum(np.array([1e100, 1.0, -1e100, 2.0, 3.0]), 2)
    array([     nan,  1.e+100, -1.e+100, -1.e+100,  5.e+000])
    >>> exact_moving_sum(np.array([1.0, np.nan, 2.0, 4.0]), 3, min_count=1)
    array([1., 1., 3., 6.])
    """
    return moving("exact_moving_sum", a, window, axis, min_count, mean=False)
declare(exact_moving_sum, "moving", ddof=False)


@dispatching("exact_moving_mean", ("a",), mean=True)
def exact_moving_mean(a: ArrayLike, window: int, axis: int = -1,
                      min_count: int | None = None) -> Any:
    """Exact mean of each trailing window, rounded once (bottleneck's
    ``move_mean``, without drift).

    The exact sum of the window's non-NaN values divided by their number,
    rounded once.  Same arguments and NaN rules as :func:`exact_moving_sum`.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_moving_mean
    >>> exact_moving_mean(np.array([1.0, 2.0, 4.0, np.nan]), 2, min_count=1)
    array([1. , 1.5, 3. , 4. ])
    """
    return moving("exact_moving_mean", a, window, axis, min_count, mean=True)
declare(exact_moving_mean, "moving", ddof=False)


@dispatching("exact_moving_var", ("a",))
def exact_moving_var(a: ArrayLike, window: int, axis: int = -1,
                     min_count: int | None = None, ddof: float = 0) -> Any:
    """Exact variance of each trailing window, rounded once (bottleneck's
    ``move_var``, pandas' ``rolling(window).var(ddof=...)``, never negative
    and without drift).

    Element i is the exact variance of the non-NaN values among
    ``a[i - window + 1 : i + 1]`` along `axis`, about their exact mean,
    ``sum((x - mean)**2) / (n - ddof)``, rounded once into the result dtype.
    NaN where the window holds fewer than `min_count` values or no more than
    `ddof` (as bottleneck and pandas give, without a warning), or an Inf.

    Parameters
    ----------
    a, window, axis, min_count
        As for :func:`exact_moving_sum`.
    ddof : float, optional
        Delta degrees of freedom: the divisor is ``n - ddof`` (pandas'
        default is 1, NumPy's and bottleneck's 0), exact for a float too.

    Returns
    -------
    ndarray of a's shape: a's dtype for floats, float64 for bool and integers.

    Notes
    -----
    Nearly every window is decided in O(1) from two-double running sums of
    the values and of their squares with proven error bounds
    (``src/kernels/moving/xs_moving_var.c``); the few it cannot decide (values beyond
    2**470 or below 2**-480 in magnitude, variances within the bound of a
    rounding boundary) are computed exactly from their terms.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_moving_var
    >>> x = np.array([1e8 + 1, 1e8 + 2, 1e8 + 3, 1e8 + 5])
    >>> exact_moving_var(x, 3, ddof=1)
    array([       nan,        nan, 1.        , 2.33333333])
    >>> exact_moving_var(np.array([4.0, np.nan, 6.0, 9.0]), 2, min_count=1)
    array([0.  , 0.  , 0.  , 2.25])
    """
    return moving_variance("exact_moving_var", a, window, axis, min_count, ddof, std=False)
declare(exact_moving_var, "moving", ddof=True)


@dispatching("exact_moving_std", ("a",), std=True)
def exact_moving_std(a: ArrayLike, window: int, axis: int = -1,
                     min_count: int | None = None, ddof: float = 0) -> Any:
    """Exact standard deviation of each trailing window: the correctly
    rounded square root of the window's exact variance (not the root of a
    rounded variance).  Same arguments and NaN rules as
    :func:`exact_moving_var`.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_moving_std
    >>> exact_moving_std(np.array([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]), 8)[-1]
    np.float64(2.0)
    """
    return moving_variance("exact_moving_std", a, window, axis, min_count, ddof, std=True)
declare(exact_moving_std, "moving", ddof=True)
