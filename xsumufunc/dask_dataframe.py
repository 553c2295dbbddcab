"""Exact groupby aggregations for Dask DataFrames.

``ddf.groupby(key).agg(exact_sum)`` with xsumufunc's plain functions fails
in Dask ("unknown aggregate"): Dask needs a ``dask.dataframe.Aggregation``
that says how to reduce each partition and how to combine the partial
results.  This module has them, built on exact mergeable states, so each
group's result is its exact value rounded once: bit-identical for every
partitioning, scheduler and number of workers, and equal to
:func:`xsumufunc.exact_sum` (& co.) of the group's values.

Ready-made: :data:`exact_sum`, :data:`exact_nansum`, :data:`exact_mean`,
:data:`exact_nanmean`, :data:`exact_var`, :data:`exact_nanvar`,
:data:`exact_std`, :data:`exact_nanstd`; the var/std ones with ``ddof=1``,
pandas' default.  :func:`aggregation` makes the others (another ``ddof``).
The nan-variants leave NaNs out, as pandas' and Dask's ``skipna=True`` do;
the others give NaN for a group with a NaN, as NumPy does.

Results take the dtype :func:`xsumufunc.exact_sum` gives (float32 columns
stay float32, integers and bools give float64).  A group whose count is
<= ddof (var, std), or with no terms left (nanmean of NaNs), is NaN, as in
pandas (no warning).

:func:`exact_cov` and :func:`exact_corr` are ``ddf.cov()`` and
``ddf.corr()`` (pandas' pairwise-complete rules) with each entry the exact
value rounded once: bit-identical to ``df.exact.cov()`` /
``df.exact.corr()`` of the computed frame, for every partitioning.

Importing :mod:`xsumufunc` does not import this module (nor Dask); this
module imports ``dask.dataframe`` and pandas.

Examples
--------
>>> import pandas as pd, dask.dataframe as dd
>>> from xsumufunc import dask_dataframe as xdd
>>> pdf = pd.DataFrame({"k": [1, 1, 2, 1, 2, 2],
...                     "x": [1e16, 1.0, 0.5, -1e16, 0.25, 0.25]})
>>> ddf = dd.from_pandas(pdf, npartitions=3)
>>> ddf.groupby("k")["x"].sum().compute().to_dict()        # Dask: group 1 lost its 1.0
{1: 0.0, 2: 1.0}
>>> ddf.groupby("k")["x"].agg(xdd.exact_sum).compute().to_dict()
{1: 1.0, 2: 1.0}
>>> ddf.groupby("k")["x"].agg([xdd.exact_mean, xdd.exact_std]).compute().to_dict("list")
{'exact_mean': [0.3333333333333333, 0.3333333333333333], 'exact_std': [1e+16, 0.14433756729740643]}
"""

import dask as _dask
import dask.dataframe as _dd
import pandas as _pd

from ._backends.dask import merged_up_tree as _merged_up_tree
from ._backends.frames import pair_columns as _pair_columns
from ._core import pairs as _pairs
from ._core.spec import as_integer as _as_integer
from ._dispatch import backend_of_module

_groupby = backend_of_module("dask_dataframe")

__all__ = ["aggregation", "exact_corr", "exact_cov", "exact_mean", "exact_nanmean",
           "exact_nanstd", "exact_nansum", "exact_nanvar", "exact_std", "exact_sum", "exact_var"]


def aggregation(statistic, *, skip_nan=False, ddof=1):
    """A ``dask.dataframe.Aggregation`` computing an exact statistic per group.

    Parameters
    ----------
    statistic : {"sum", "mean", "var", "std"}
    skip_nan : bool, optional
        Leave NaNs out (pandas' ``skipna=True``); otherwise a NaN makes the
        group's result NaN.
    ddof : float, optional
        Delta degrees of freedom of var and std (divisor ``count - ddof``,
        exact for a float too): 1 (default) as pandas, 0 as NumPy.  Ignored by sum and mean.

    Returns
    -------
    dask.dataframe.Aggregation
        Named ``exact_[nan]<statistic>`` (``_ddof<n>`` appended for var/std
        when ddof is not 1): the label Dask shows.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from xsumufunc.dask_dataframe import aggregation
    >>> pdf = pd.DataFrame({"k": [0, 0, 0, 1], "x": [1.0, 2.0, 4.0, 3.0]})
    >>> population_var = aggregation("var", ddof=0)
    >>> population_var.__name__
    'exact_var_ddof0'
    >>> dd.from_pandas(pdf, npartitions=2).groupby("k")["x"].agg(population_var).compute()
    k
    0    1.555556
    1    0.000000
    Name: x, dtype: float64
    """
    spec = _groupby.statistic(statistic, skip_nan, ddof)
    return _dd.Aggregation(name=spec.name, chunk=spec.chunk, agg=spec.agg,
                           finalize=spec.finalize)


exact_sum = aggregation("sum")
exact_nansum = aggregation("sum", skip_nan=True)
exact_mean = aggregation("mean")
exact_nanmean = aggregation("mean", skip_nan=True)
exact_var = aggregation("var")
exact_nanvar = aggregation("var", skip_nan=True)
exact_std = aggregation("std")
exact_nanstd = aggregation("std", skip_nan=True)


# ---- covariance and correlation matrices ------------------------------------

def exact_cov(ddf, min_periods=None, ddof=1, numeric_only=False):
    """``ddf.cov()`` with every entry the exact covariance of the pair's
    complete observations (rows where neither column is missing), rounded
    once.

    Each partition gives the exact sums of every pair of columns over its
    complete rows; they add up exactly up a tree, and each entry is
    finished as ``df.exact.cov()`` finishes it, so the result is
    bit-identical to ``ddf.compute().exact.cov()`` for any partitioning.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
    min_periods : int, optional
        Fewer complete observations of a pair than this (default 1) give NaN.
    ddof : int, optional
        Delta degrees of freedom: the divisor is ``count - ddof`` (pandas'
        default 1); NaN where it is not positive.
    numeric_only : bool, optional
        Leave non-numeric columns out; otherwise one is a TypeError.

    Returns
    -------
    dask.dataframe.DataFrame
        Lazy (as ``ddf.cov()``): one partition, the float64 matrix labelled
        by the columns on both axes.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from xsumufunc.dask_dataframe import exact_cov
    >>> pdf = pd.DataFrame({"a": [1e8, 1e8 + 1, 1e8 + 2, 1e8 + 3],
    ...                     "b": [1.0, None, 3.0, 5.0]})
    >>> exact_cov(dd.from_pandas(pdf, npartitions=2)).compute()
              a    b
    a  1.666667  3.0
    b  3.000000  4.0
    """
    func = "dask_dataframe.exact_cov"
    min_periods = _as_integer(1 if min_periods is None else min_periods, func, "min_periods")
    return _pairwise(ddf, "cov", ddof, min_periods, numeric_only, func)


def exact_corr(ddf, min_periods=1, numeric_only=False):
    """``ddf.corr()`` (Pearson) with every entry correctly rounded from the
    exact correlation of the pair's complete observations: 1 on the
    diagonal, in [-1, 1]; NaN for fewer than `min_periods` of them or no
    spread.  Bit-identical to ``ddf.compute().exact.corr()`` for any
    partitioning (see :func:`exact_cov`).

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
    min_periods : int, optional
        Fewer complete observations of a pair than this (default 1) give NaN.
    numeric_only : bool, optional
        Leave non-numeric columns out; otherwise one is a TypeError.

    Returns
    -------
    dask.dataframe.DataFrame
        Lazy (as ``ddf.corr()``): one partition, the float64 matrix.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from xsumufunc.dask_dataframe import exact_corr
    >>> pdf = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [2.0, 4.0, 6.0, 9.0]})
    >>> exact_corr(dd.from_pandas(pdf, npartitions=3)).compute()["a"].tolist()
    [1.0, 0.9943767126843689]
    """
    func = "dask_dataframe.exact_corr"
    return _pairwise(ddf, "corr", 0, _as_integer(min_periods, func, "min_periods"),
                     numeric_only, func)


def _pairwise(ddf, method, ddof, min_periods, numeric_only, func):
    if not isinstance(ddf, _dd.DataFrame):
        raise TypeError(f"{func}: ddf must be a dask.dataframe.DataFrame, not "
                        f"{type(ddf).__name__}")
    # The empty meta frame checks the columns now and gives the labels.
    labels, _ = _pair_columns(ddf._meta, numeric_only, func)
    parts = [_dask.delayed(_partition_sums)(part, numeric_only, func)
             for part in ddf.to_delayed()]
    table = _merged_up_tree(parts, _pairs.merge_pair_sums)
    matrix = _dask.delayed(_matrix)(table, labels, method, ddof, min_periods)
    meta = _pd.DataFrame({c: _pd.Series(dtype="float64") for c in labels},
                         index=labels[:0], columns=labels)
    return _dd.from_delayed([matrix], meta=meta)


def _partition_sums(part, numeric_only, func):
    """The exact sums of every pair of columns of one partition."""
    return _pairs.pair_sums(_pair_columns(part, numeric_only, func)[1])


def _matrix(table, labels, method, ddof, min_periods):
    values = _pairs.pairwise_of_sums(table, len(labels), method, ddof, min_periods)
    return _pd.DataFrame(values, index=labels, columns=labels)
