"""exact_grouped_sum and exact_grouped_mean: one exact result per group,
without a Python call per group (the algorithm: ``_core/grouped.py``)."""

from typing import Any

from numpy.typing import ArrayLike, DTypeLike

from .._core.grouped import grouped
from .._dispatch import dispatching

_ARRAYS = ("values", "codes")


@dispatching("exact_grouped_sum", _ARRAYS)
def exact_grouped_sum(values: ArrayLike, codes: ArrayLike, ngroups: int, *,
                      dtype: DTypeLike | None = None, skip_nan: bool = False) -> Any:
    """Exact sum of the values of each group, without a Python call per group.

    Parameters
    ----------
    values : array_like, 1-D
        The terms (dtypes as for :func:`xsumufunc.exact_sum`).
    codes : array_like of int, same shape
        The group of each value, in ``[0, ngroups)``; a negative code (as
        ``pandas.factorize`` gives missing keys) leaves the value out.
    ngroups : int
        The number of groups; groups without values sum to +0.0.
    dtype : dtype, optional
        Result dtype, as for :func:`xsumufunc.exact_sum`.
    skip_nan : bool, optional
        Leave NaNs out (as :func:`xsumufunc.exact_nansum`).

    Returns
    -------
    ndarray of shape ``(ngroups,)``: element g is ``exact_sum(values[codes == g])``.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_grouped_sum
    >>> exact_grouped_sum([1e100, 5.0, 1.0, -1e100, np.nan], [0, 1, 0, 0, 1], 3, skip_nan=True)
    array([1., 5., 0.])

    With pandas, for example::

        codes, keys = pd.factorize(df["key"])
        pd.Series(exact_grouped_sum(df["x"].to_numpy(), codes, len(keys)), index=keys)
    """
    return grouped("exact_grouped_sum", values, codes, ngroups, dtype, skip_nan, False)


@dispatching("exact_grouped_mean", _ARRAYS)
def exact_grouped_mean(values: ArrayLike, codes: ArrayLike, ngroups: int, *,
                       dtype: DTypeLike | None = None, skip_nan: bool = False) -> Any:
    """Exact mean of the values of each group (see :func:`exact_grouped_sum`).

    A group without values gets NaN with a RuntimeWarning, as
    :func:`xsumufunc.exact_mean` of an empty slice.

    Examples
    --------
    >>> from xsumufunc import exact_grouped_mean
    >>> exact_grouped_mean([0.1, 0.2, 0.3, 7.0], [0, 0, 0, 1], 2)
    array([0.2, 7. ])
    """
    return grouped("exact_grouped_mean", values, codes, ngroups, dtype, skip_nan, True)
