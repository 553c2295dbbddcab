"""Exact grouped sums, means and variances of polars DataFrames.

:func:`exact_group_by` groups a DataFrame by key columns and returns, for
each group, the exact sum, mean and variance of value columns, each rounded
once: the grouped kernels of :func:`xsumufunc.exact_grouped_sum`,
:func:`xsumufunc.exact_grouped_mean` and :func:`xsumufunc.exact_grouped_var`
on all groups at once, without a Python call per group (``map_batches``
per group is far slower).

Keys: a single integer key column is numbered in NumPy (its values offset
into a table); any other keys (strings, several columns, nulls) are
numbered by polars' own ``group_by``.  As polars' ``sum`` does, null
values are left out of their group; a NaN makes its group's results NaN.

Importing this module imports polars; importing :mod:`xsumufunc` does not.

Examples
--------
>>> import polars as pl
>>> from xsumufunc.polars import exact_group_by
>>> df = pl.DataFrame({"k": [1, 2, 1, 1, 2], "x": [1e16, 0.5, 1.0, -1e16, 0.25]})
>>> df.group_by("k").agg(pl.col("x").sum()).sort("k")["x"].to_list()    # polars rounds
[0.0, 0.75]
>>> out = exact_group_by(df, "k", "x").sort("k")
>>> out.columns, out["x_sum"].to_list(), out["x_var"].to_list()
(['k', 'x_sum', 'x_mean', 'x_var'], [1.0, 0.75], [1e+32, 0.03125])
"""

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from ._api.grouped import exact_grouped_mean, exact_grouped_sum, exact_grouped_var

__all__ = ["exact_group_by"]

STATISTICS = ("sum", "mean", "var")

_ROW = "__xsumufunc_row"


def _as_list(names: str | Sequence[str], argname: str) -> list[str]:
    names = [names] if isinstance(names, str) else list(names)
    if not names or not all(isinstance(n, str) for n in names):
        raise TypeError(f"exact_group_by: {argname} must be a column name or a non-empty "
                        f"list of column names, not {names!r}")
    return names


def _integer_codes(key: pl.Series) -> tuple[np.ndarray, pl.DataFrame] | None:
    """Codes of a null-free integer key whose values span no more than a few
    times the rows (an offset into a table of the values present), with the
    keys in code order; else None."""
    if not key.dtype.is_integer() or key.null_count() or key.len() == 0:
        return None
    values = key.to_numpy()
    low, high = int(values.min()), int(values.max())
    if high - low > 4 * len(values) + 1024:
        return None
    offsets = (values - low).astype(np.intp)
    present = np.bincount(offsets, minlength=high - low + 1) > 0
    table = np.cumsum(present) - 1
    keys = pl.DataFrame({key.name: (np.flatnonzero(present) + low).astype(values.dtype)})
    return table[offsets].astype(np.int64), keys


def _polars_codes(df: pl.DataFrame, by: list[str]) -> tuple[np.ndarray, pl.DataFrame]:
    """Codes of any keys, numbered by polars' group_by (nulls are a key)."""
    groups = df.select(by).with_row_index(_ROW).group_by(by).agg(pl.col(_ROW))
    rows = groups[_ROW].explode().to_numpy()
    sizes = groups[_ROW].list.len().to_numpy()
    codes = np.empty(df.height, np.int64)
    codes[rows] = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    return codes, groups.drop(_ROW)


def exact_group_by(df: Any, by: str | Sequence[str], columns: str | Sequence[str], *,
                   statistics: Sequence[str] = STATISTICS, ddof: int = 1) -> Any:
    """Exact sum, mean and variance of `columns` for each group of `by`.

    Parameters
    ----------
    df : polars.DataFrame
    by : str or list of str
        Key columns.
    columns : str or list of str
        Value columns (bool, integers, floats).
    statistics : sequence of {"sum", "mean", "var"}, optional
        Which results, each as a column ``<column>_<statistic>``.
    ddof : int, optional
        Delta degrees of freedom of the variance (1: polars' default).

    Returns
    -------
    polars.DataFrame
        One row per group: the key columns, then the results (the dtype
        :func:`xsumufunc.exact_sum` gives: float32 columns stay float32).
        A group whose values are all null has sum 0, and NaN mean and
        variance, without a warning.

    Examples
    --------
    >>> import polars as pl
    >>> from xsumufunc.polars import exact_group_by
    >>> df = pl.DataFrame({"a": ["u", "v", "u"], "x": [0.1, 0.2, 0.3]})
    >>> exact_group_by(df, "a", "x", statistics=["sum"]).sort("a")["x_sum"].to_list()
    [0.4, 0.2]
    """
    if not isinstance(df, pl.DataFrame):
        raise TypeError(f"exact_group_by: df must be a polars.DataFrame, not "
                        f"{type(df).__name__}")
    by, columns = _as_list(by, "by"), _as_list(columns, "columns")
    unknown = [s for s in statistics if s not in STATISTICS]
    if unknown:
        raise ValueError(f"exact_group_by: statistics must be among {STATISTICS}, "
                         f"not {unknown}")
    found = (_integer_codes(df[by[0]]) if len(by) == 1 else None) or _polars_codes(df, by)
    codes, keys = found
    results = {}
    for name in columns:
        series = df[name]
        values = series.to_numpy()
        column_codes = codes
        if series.null_count():
            column_codes = np.where(series.is_null().to_numpy(), -1, codes)
            values = np.where(series.is_null().to_numpy(), np.zeros((), values.dtype), values)
        # No warnings for empty groups or too few values: polars gives its
        # null or NaN silently (here NaN).
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for stat in statistics:
                results[f"{name}_{stat}"] = _grouped(stat, values, column_codes, keys.height,
                                                     ddof)
    return keys.with_columns(**{k: pl.Series(k, v) for k, v in results.items()})


def _grouped(stat: str, values: np.ndarray, codes: np.ndarray, ngroups: int,
             ddof: int) -> Any:
    if stat == "sum":
        return exact_grouped_sum(values, codes, ngroups)
    if stat == "mean":
        return exact_grouped_mean(values, codes, ngroups)
    return exact_grouped_var(values, codes, ngroups, ddof=ddof)
