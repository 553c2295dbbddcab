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

Importing :mod:`xsumufunc` does not import this module (nor Dask); this
module imports ``dask.dataframe``.

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

import dask.dataframe as _dd

from ._dispatch import backend_of_module

_groupby = backend_of_module("dask_dataframe")

__all__ = ["aggregation", "exact_mean", "exact_nanmean", "exact_nanstd", "exact_nansum",
           "exact_nanvar", "exact_std", "exact_sum", "exact_var"]


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
