"""exact_moving_sum and exact_moving_mean: sums and means of trailing
windows that never drift (the algorithm: ``src/xs_moving.c``)."""

from typing import Any

from numpy.typing import ArrayLike

from .._core.moving import moving
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


@dispatching("exact_moving_mean", ("a",))
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
