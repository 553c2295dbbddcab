"""exact_grouped_sum, exact_grouped_mean, exact_grouped_var and
exact_grouped_std: one exact result per group, without a Python call per
group (the algorithm: ``_core/grouped.py``)."""

# Hints as written (ArrayLike, DTypeLike), not NumPy's expanded Unions: help()
# and the signatures stay readable.
from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike, DTypeLike

from .._backends.plans import declare
from .._core.grouped import grouped, grouped_variance
from .._core.spec import NO_VALUE
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
declare(exact_grouped_sum, "grouped", mean=False)


@dispatching("exact_grouped_mean", _ARRAYS, mean=True)
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
declare(exact_grouped_mean, "grouped", mean=True)


@dispatching("exact_grouped_var", _ARRAYS)
def exact_grouped_var(values: ArrayLike, codes: ArrayLike, ngroups: int, *,
                      dtype: DTypeLike | None = None, skip_nan: bool = False,
                      ddof: float = 0, correction: Any = NO_VALUE) -> Any:
    """Exact variance of the values of each group, rounded once, without a
    Python call per value or per group's moments.

    Element g is ``exact_var(values[codes == g], ddof=ddof)``: the exact
    value of ``sum((x - mean)**2) / (n - ddof)`` over the n values of the
    group, with their exact mean, rounded once into the result dtype.

    Parameters
    ----------
    values : array_like, 1-D
        The values (dtypes as for :func:`xsumufunc.exact_var`: bool, every
        64-bit integer exactly, float16/32/64, bfloat16, complex).
    codes : array_like of int, same shape
        The group of each value, in ``[0, ngroups)``; a negative code (as
        ``pandas.factorize`` gives missing keys) leaves the value out.
    ngroups : int
        The number of groups.
    dtype : dtype, optional
        The real dtype to round into, as for :func:`xsumufunc.exact_var`
        (default: the input's, its component dtype for complex, float64 for
        bool and integers).
    skip_nan : bool, optional
        Leave NaNs out (as :func:`xsumufunc.exact_nanvar`): they are neither
        values nor counted.
    ddof, correction : float, optional
        Delta degrees of freedom: the divisor is ``n - ddof`` (``correction``
        is NumPy 2's name for it; give one of them), exact for a float too.  A group with
        ``n - ddof <= 0`` (an empty group, or one value with ``ddof=1``) is
        ``inf`` (``nan`` for zero spread), with one RuntimeWarning, as
        :func:`xsumufunc.exact_var` gives.

    Returns
    -------
    ndarray of shape ``(ngroups,)``.  A group with a NaN or infinite value
    is NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_grouped_var
    >>> exact_grouped_var([1.0, 2.0, 3.0, 4.0, 10.0, 1e100, np.nan],
    ...                   [0, 0, 0, 0, 1, -1, 1], 2, skip_nan=True)
    array([1.25, 0.  ])
    >>> exact_grouped_var([0.1, 0.2, 0.3, 5.0, 7.0], [0, 0, 0, 1, 1], 2, ddof=1,
    ...                   dtype=np.float32)                              # one rounding
    array([0.01, 2.  ], dtype=float32)
    """
    return grouped_variance("exact_grouped_var", values, codes, ngroups, dtype, ddof,
                            correction, skip_nan, std=False)
declare(exact_grouped_var, "grouped_variance", std=False)


@dispatching("exact_grouped_std", _ARRAYS, std=True)
def exact_grouped_std(values: ArrayLike, codes: ArrayLike, ngroups: int, *,
                      dtype: DTypeLike | None = None, skip_nan: bool = False,
                      ddof: float = 0, correction: Any = NO_VALUE) -> Any:
    """Exact standard deviation of the values of each group: the correctly
    rounded square root of each group's exact variance (not the root of a
    rounded variance).  Element g is
    ``exact_std(values[codes == g], ddof=ddof)``; same arguments as
    :func:`exact_grouped_var`.

    Examples
    --------
    >>> from xsumufunc import exact_grouped_std
    >>> exact_grouped_std([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0, 1.0, 2.0],
    ...                   [0, 0, 0, 0, 0, 0, 0, 0, 1, 1], 2)
    array([2. , 0.5])
    """
    return grouped_variance("exact_grouped_std", values, codes, ngroups, dtype, ddof,
                            correction, skip_nan, std=True)
declare(exact_grouped_std, "grouped_variance", std=True)
