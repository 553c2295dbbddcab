"""pandas accessors: ``df.exact`` and ``series.exact``, exact reductions on
the 2-D and moving-window kernels, without a Python call per row, column or
window.

Importing this module registers them (pandas is imported then, not by
``import xsumufunc``)::

    import xsumufunc.pandas_accessor

Methods follow pandas' names and defaults: ``skipna=True`` (NaN and missing
values are not terms), ``numeric_only=False`` (a non-numeric column is then
a ``TypeError`` naming it, where pandas would concatenate strings), ``ddof=1``
for ``var``/``std``.  Every value is the exact result rounded once.  Integer
and bool columns give float64 (exact); a float32 column keeps float32, as
pandas does.  pandas' ``min_count`` is not taken.

Examples
--------
>>> import numpy as np, pandas as pd
>>> import xsumufunc.pandas_accessor
>>> df = pd.DataFrame({"a": [1e100, 1.0, -1e100], "b": [0.1, 0.2, 0.3]})
>>> df.sum().tolist(), df.exact.sum().tolist()         # pandas loses the 1.0
([0.0, 0.6000000000000001], [1.0, 0.6])
>>> df.exact.sum(axis=1).tolist()                      # one call for every row
[1e+100, 1.2, -1e+100]
>>> s = pd.Series([1e100, 1.0, -1e100, 1.0, 1.0, 1.0])
>>> s.rolling(3).sum().tolist()                         # the 1.0 is lost in the window
[nan, nan, 0.0, -1e+100, -1e+100, 3.0]
>>> s.exact.rolling_sum(3).tolist()
[nan, nan, 1.0, -1e+100, -1e+100, 3.0]
"""

import warnings
from typing import Any

import numpy as np
import pandas as pd

from ._api.grouped import (
    exact_grouped_mean,
    exact_grouped_std,
    exact_grouped_sum,
    exact_grouped_var,
)
from ._api.moving import exact_moving_mean, exact_moving_std, exact_moving_sum, exact_moving_var
from ._api.pairs import exact_average
from ._api.stats import exact_nanstd, exact_nanvar, exact_std, exact_var
from ._api.sums import exact_mean, exact_nanmean, exact_nansum, exact_sum
from ._backends.frames import column_array, column_values, numeric_columns, pair_columns
from ._core import dtypes, moments, moving, pairs, states
from ._core.spec import NO_VALUE, as_integer, warn_empty_mean

__all__ = ["ExactFrameAccessor", "ExactSeriesAccessor"]

# (exact function, its nan-variant) by pandas' method name.
_REDUCTIONS = {
    "sum": (exact_sum, exact_nansum),
    "mean": (exact_mean, exact_nanmean),
    "var": (exact_var, exact_nanvar),
    "std": (exact_std, exact_nanstd),
}


_AXES = {0: 0, "index": 0, 1: 1, "columns": 1}


def _reduce(method, values, axis, skipna, kwargs, func):
    if isinstance(values, list):                   # a column's halves (column_values)
        return _reduce_parts(method, values[0][np.newaxis], values[1][np.newaxis], skipna,
                             kwargs, func)[0]
    exact, nan_variant = _REDUCTIONS[method]
    # Skipping NaNs goes through exact states; with no NaN to skip (one
    # vectorised check for NumPy floats), the plain loops give the same bits
    # faster.
    kind = values.dtype.kind
    has_nan = kind not in "biu" and (kind not in "fc" or bool(np.isnan(values).any()))
    func = nan_variant if skipna and has_nan else exact
    return func(values, axis=axis, **kwargs)


def _reduce_parts(method, first, second, skipna, kwargs, func):
    """Row sums, means, variances or standard deviations of terms given by
    two exact float64 parts each (first + second, a missing term NaN in
    first), through the exact moments of the rows' terms, rounded once
    into float64."""
    keep = ~np.isnan(first) if skipna else None
    s1, s2 = moments.Moments.sums_of_parts([first, second], keep)
    m = moments.Moments.of_sums(s1, s2, first.shape, keep)
    if method in ("var", "std"):
        ddof = moments.check_ddof(kwargs.get("ddof", 0), NO_VALUE, func)
        return moments.finish(m, ddof, np.dtype(np.float64), method == "std", func)
    if method == "mean" and not np.all(m.counts):
        warn_empty_mean(stacklevel=4)
    return states.round_states(m.s1, m.counts if method == "mean" else None,
                               np.dtype(np.float64), False)


_GROUPED = {"grouped_sum": exact_grouped_sum, "grouped_mean": exact_grouped_mean,
            "grouped_var": exact_grouped_var, "grouped_std": exact_grouped_std}


class _Groups:
    """pandas' own grouping of an object by `by` (a column label or labels,
    an array of keys, a Series, ...): each row's group number among the
    observed groups (`codes`; -1 for a missing key, left out as
    groupby(dropna=True) does), their number and index in pandas' order,
    and with observed=False the index of every combination of categories
    (the unobserved ones get the value of an empty group)."""

    def __init__(self, obj, by, sort, observed, func):
        if observed not in (True, False):
            raise TypeError(f"{func}: observed must be True or False, not {observed!r}")
        try:
            grouper = obj.groupby(by, sort=sort, dropna=True, observed=True)
            # Missing keys have no group number (NaN): -1, left out.
            self.codes = grouper.ngroup().to_numpy(dtype=np.float64,
                                                   na_value=-1.0).astype(np.intp)
            self.index = grouper.size().index
            self.full_index = (None if observed else
                               obj.groupby(by, sort=sort, dropna=True,
                                           observed=False).size().index)
        except (KeyError, ValueError, TypeError) as exc:
            kind = next(k for k in (KeyError, TypeError, ValueError) if isinstance(exc, k))
            raise kind(f"{func}: cannot group by {by!r}: {exc}") from None
        self.ngroups = len(self.index)

    def complete(self, result, method):
        """The result (a Series or DataFrame on self.index) on the full
        index: an unobserved group's sum is 0, its other statistics NaN,
        as pandas gives."""
        if self.full_index is None or len(self.full_index) == len(self.index):
            return result
        empty = 0.0 if method == "grouped_sum" else np.nan
        return result.reindex(self.full_index, fill_value=empty)


def _grouped(method, values, codes, ngroups, skipna, ddof, func):
    """One exact result per group of a column's values (column_values)."""
    reduce = _GROUPED[method]
    extra = {"ddof": ddof} if method in ("grouped_var", "grouped_std") else {}
    if isinstance(values, list):
        if extra:
            raise TypeError(f"{func}: a nullable integer column with missing values beyond "
                            "2**53 is not supported here; drop the missing values or pass "
                            "a float64 column")
        # A nullable 64-bit integer column's two exact halves (NaN where
        # NA): every term counts twice, so a mean comes out halved and is
        # doubled back (exactly: a power of two, far from overflow).
        both = np.concatenate(values)
        res = reduce(both, np.concatenate([codes, codes]), ngroups, skip_nan=skipna)
        return res * 2 if method == "grouped_mean" else res
    kind = values.dtype.kind
    skip = skipna and kind == "f"
    if not extra:
        return reduce(values, codes, ngroups, skip_nan=skip)
    # pandas' convention: a group of no more than ddof values is NaN, with
    # no warning.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Degrees of freedom", RuntimeWarning)
        res = reduce(values, codes, ngroups, skip_nan=skip, **extra)
    kept = codes >= 0
    if skip:
        kept &= ~np.isnan(values)
    counts = np.bincount(codes[kept], minlength=ngroups)
    res[moments.no_dof(counts, moments.check_ddof(ddof, NO_VALUE, func))] = np.nan
    return res


def _rolling(series, method, window, min_periods, ddof, func):
    """A column's rolling sums, means, variances or standard deviations
    (method: rolling_sum, ...), each window exact and rounded once, with
    pandas' window rules (_pandas_window)."""
    values = column_values(series, series.name, func)
    first = values[0] if isinstance(values, list) else values
    window, need, present = _pandas_window(window, min_periods, first, func)
    if method in ("rolling_var", "rolling_std"):
        if isinstance(values, list):                   # halves (column_values)
            raise TypeError(f"{func}: a nullable integer column with missing values "
                            "beyond 2**53 is not supported here; pass series.dropna() "
                            "or a float64 column")
        if not window:                  # no terms anywhere: all windows empty
            res = np.full(len(values), np.nan)
        else:
            variance = exact_moving_std if method == "rolling_std" else exact_moving_var
            res = variance(values, window, min_count=need, ddof=ddof)
        res = _pandas_windows_done(res, need, present, empty_is_zero=False)
    else:
        mean = method == "rolling_mean"
        if not window:
            res = np.full(len(first), np.nan if mean else 0.0)
        elif isinstance(values, list):                 # halves (column_values)
            res = moving.moving_of_halves(values, window, need, mean)
        else:
            add = exact_moving_mean if mean else exact_moving_sum
            res = add(values, window, min_count=need)
        res = _pandas_windows_done(res, need, present, empty_is_zero=not mean)
    return pd.Series(res, index=series.index, name=series.name)


def _frame_cov(df, method, min_periods, ddof, numeric_only):
    func = f"DataFrame.exact.{method}"
    min_periods = as_integer(min_periods, func, "min_periods")
    labels, x = pair_columns(df, numeric_only, func)
    values = pairs.pairwise(x, method, ddof, min_periods)
    return pd.DataFrame(values, index=labels, columns=labels)


def _average_weights(weights, df, axis, func):
    if isinstance(weights, str) or (not hasattr(weights, "__len__")
                                    and weights in df.columns):
        if axis != 0:
            raise ValueError(f"{func}: a weights column takes axis=0")
        return column_values(df[weights], weights, func), [weights]
    return np.asarray(weights), []


@pd.api.extensions.register_dataframe_accessor("exact")
class ExactFrameAccessor:
    """``df.exact.sum/mean/var/std(axis=0, skipna=True, numeric_only=False)``,
    ``df.exact.grouped_sum/grouped_mean/grouped_var/grouped_std(by, sort=True,
    skipna=True, ..., observed=True)`` and
    ``df.exact.rolling_sum/rolling_mean/rolling_var/rolling_std(window,
    min_periods=None, ...)``."""

    def __init__(self, df: pd.DataFrame) -> None:
        self._df = df

    def _reduction(self, method, axis, skipna, numeric_only, **kwargs):
        func = f"DataFrame.exact.{method}"
        if axis not in _AXES:
            raise ValueError(f"{func}: axis must be 0, 1, 'index' or 'columns', not {axis!r}")
        axis = _AXES[axis]
        df = numeric_columns(self._df, numeric_only)
        columns = [column_values(df[c], c, func) for c in df.columns]
        if axis == 0:
            results = [_reduce(method, v, None, skipna, kwargs, func) for v in columns]
            return pd.Series(results, index=df.columns, dtype=np.result_type(*results)
                             if results else np.float64)
        # Rows: one 2-D call.  One dtype for every column keeps the values
        # as they are; mixed columns become float64, exactly, or where a
        # 64-bit integer column holds values beyond 2**53, two float64
        # parts per term (_reduce_parts).
        if not columns:
            return pd.Series(np.zeros(len(df)), index=df.index)
        if (all(isinstance(df[c].dtype, np.dtype) for c in df.columns)
                and len({v.dtype for v in columns}) == 1):
            block = df.to_numpy()          # pandas' own block, no per-column copies
        else:
            parts = [v if isinstance(v, list) else dtypes.float64_parts(v) for v in columns]
            if any(len(p) > 1 for p in parts):
                first = np.column_stack([p[0] for p in parts])
                second = np.column_stack([p[-1] if len(p) > 1 else np.zeros(len(first))
                                          for p in parts])
                return pd.Series(_reduce_parts(method, first, second, skipna, kwargs, func),
                                 index=df.index)
            block = np.column_stack([p[0] for p in parts])
        return pd.Series(_reduce(method, block, 1, skipna, kwargs, func), index=df.index)

    def sum(self, axis: int | str = 0, skipna: bool = True,
            numeric_only: bool = False) -> pd.Series:
        """Exact column sums (axis=0) or row sums (axis=1), rounded once."""
        return self._reduction("sum", axis, skipna, numeric_only)

    def mean(self, axis: int | str = 0, skipna: bool = True,
             numeric_only: bool = False) -> pd.Series:
        """Exact means, rounded once."""
        return self._reduction("mean", axis, skipna, numeric_only)

    def var(self, axis: int | str = 0, skipna: bool = True, ddof: float = 1,
            numeric_only: bool = False) -> pd.Series:
        """Exact variances (pandas' ddof=1), rounded once."""
        return self._reduction("var", axis, skipna, numeric_only, ddof=ddof)

    def std(self, axis: int | str = 0, skipna: bool = True, ddof: float = 1,
            numeric_only: bool = False) -> pd.Series:
        """Correctly rounded standard deviations (pandas' ddof=1)."""
        return self._reduction("std", axis, skipna, numeric_only, ddof=ddof)

    def _grouped_reduction(self, method, by, sort, skipna, numeric_only, observed, ddof=1):
        func = f"DataFrame.exact.{method}"
        groups = _Groups(self._df, by, sort, observed, func)
        keys = by if isinstance(by, list) else [by]
        named = [k for k in keys if isinstance(k, (str, int, tuple)) and k in self._df.columns]
        df = numeric_columns(self._df.drop(columns=named), numeric_only)
        out = {c: _grouped(method, column_values(df[c], c, func), groups.codes,
                           groups.ngroups, skipna, ddof, func)
               for c in df.columns}
        return groups.complete(pd.DataFrame(out, index=groups.index, columns=df.columns),
                               method)

    def grouped_sum(self, by: Any, sort: bool = True, skipna: bool = True,
                    numeric_only: bool = False, observed: bool = True) -> pd.DataFrame:
        """``df.groupby(by, observed=observed).sum()``, each group's sum
        exact and rounded once, all groups in a few vectorised calls
        (exact_grouped_sum).

        `by` is what ``df.groupby`` takes (a column label, labels, keys);
        key columns named in it are not summed; missing keys are left out
        (``dropna=True``).  NaN values are skipped (``skipna=True``).  With
        categorical keys, ``observed=False`` gives every category (an
        unobserved one sums to 0, as in pandas); ``observed=True`` (pandas
        3's default) only those that occur.

        Examples
        --------
        >>> import pandas as pd, xsumufunc.pandas_accessor
        >>> df = pd.DataFrame({"k": [1, 2, 1, 1], "x": [1e100, 0.5, 1.0, -1e100]})
        >>> df.groupby("k").sum()["x"].tolist(), df.exact.grouped_sum("k")["x"].tolist()
        ([0.0, 0.5], [1.0, 0.5])
        >>> df["k"] = pd.Categorical(df["k"], categories=[1, 2, 3])
        >>> df.exact.grouped_sum("k", observed=False)["x"].tolist()
        [1.0, 0.5, 0.0]
        """
        return self._grouped_reduction("grouped_sum", by, sort, skipna, numeric_only, observed)

    def grouped_mean(self, by: Any, sort: bool = True, skipna: bool = True,
                     numeric_only: bool = False, observed: bool = True) -> pd.DataFrame:
        """``df.groupby(by, observed=observed).mean()``, exact and rounded
        once (see :meth:`grouped_sum`; an unobserved category's mean is
        NaN)."""
        return self._grouped_reduction("grouped_mean", by, sort, skipna, numeric_only,
                                       observed)

    def grouped_var(self, by: Any, sort: bool = True, skipna: bool = True, ddof: float = 1,
                    numeric_only: bool = False, observed: bool = True) -> pd.DataFrame:
        """``df.groupby(by, observed=observed).var(ddof)``: each group's
        exact variance rounded once (see :meth:`grouped_sum`).  A group of
        no more than ddof values is NaN, as in pandas.

        Examples
        --------
        >>> import pandas as pd, xsumufunc.pandas_accessor
        >>> df = pd.DataFrame({"k": [1, 1, 1, 2, 2], "x": [1.0, 2.0, 3.0, 1e16, 1e16 + 2]})
        >>> df.exact.grouped_var("k")["x"].tolist()
        [1.0, 2.0]
        """
        return self._grouped_reduction("grouped_var", by, sort, skipna, numeric_only,
                                       observed, ddof)

    def grouped_std(self, by: Any, sort: bool = True, skipna: bool = True, ddof: float = 1,
                    numeric_only: bool = False, observed: bool = True) -> pd.DataFrame:
        """``df.groupby(by, observed=observed).std(ddof)``: the correctly
        rounded root of each group's exact variance (see
        :meth:`grouped_var`)."""
        return self._grouped_reduction("grouped_std", by, sort, skipna, numeric_only,
                                       observed, ddof)

    def _rolling(self, method, window, min_periods, ddof, numeric_only):
        func = f"DataFrame.exact.{method}"
        df = numeric_columns(self._df, numeric_only)
        out = {c: _rolling(df[c], method, window, min_periods, ddof, func) for c in df.columns}
        return pd.DataFrame(out, index=df.index, columns=df.columns)

    def rolling_sum(self, window: int, min_periods: int | None = None,
                    numeric_only: bool = False) -> pd.DataFrame:
        """``df.rolling(window, min_periods).sum()``: each column's windows
        exact and rounded once (see :meth:`ExactSeriesAccessor.rolling_sum`).

        Examples
        --------
        >>> import pandas as pd, xsumufunc.pandas_accessor
        >>> df = pd.DataFrame({"a": [1e100, 1.0, -1e100], "b": [0.1, 0.2, 0.3]})
        >>> df.exact.rolling_sum(3).iloc[-1].tolist()
        [1.0, 0.6]
        """
        return self._rolling("rolling_sum", window, min_periods, 1, numeric_only)

    def rolling_mean(self, window: int, min_periods: int | None = None,
                     numeric_only: bool = False) -> pd.DataFrame:
        """``df.rolling(window, min_periods).mean()``, exact and rounded once."""
        return self._rolling("rolling_mean", window, min_periods, 1, numeric_only)

    def rolling_var(self, window: int, min_periods: int | None = None, ddof: float = 1,
                    numeric_only: bool = False) -> pd.DataFrame:
        """``df.rolling(window, min_periods).var(ddof)``: each window's exact
        variance rounded once."""
        return self._rolling("rolling_var", window, min_periods, ddof, numeric_only)

    def rolling_std(self, window: int, min_periods: int | None = None, ddof: float = 1,
                    numeric_only: bool = False) -> pd.DataFrame:
        """``df.rolling(window, min_periods).std(ddof)``: the correctly
        rounded root of each window's exact variance."""
        return self._rolling("rolling_std", window, min_periods, ddof, numeric_only)

    def cov(self, min_periods: int | None = None, ddof: int = 1,
            numeric_only: bool = False) -> pd.DataFrame:
        """``df.cov()``: each entry the exact covariance of the pair's complete
        observations (rows where neither is missing), rounded once; NaN for
        fewer than `min_periods` (default 1) of them or ``n - ddof <= 0``.

        Examples
        --------
        >>> import pandas as pd, xsumufunc.pandas_accessor
        >>> df = pd.DataFrame({"a": [1e8, 1e8 + 1, 1e8 + 2], "b": [1.0, None, 3.0]})
        >>> df.exact.cov()
             a    b
        a  1.0  2.0
        b  2.0  2.0
        """
        return _frame_cov(self._df, "cov", 1 if min_periods is None else min_periods, ddof,
                          numeric_only)

    def corr(self, method: str = "pearson", min_periods: int = 1,
             numeric_only: bool = False) -> pd.DataFrame:
        """``df.corr()`` (Pearson): each entry correctly rounded from the exact
        correlation of the pair's complete observations; 1 on the diagonal,
        in [-1, 1]; NaN for fewer than `min_periods` or no spread.

        Examples
        --------
        >>> import pandas as pd, xsumufunc.pandas_accessor
        >>> df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [2.0, 4.0, 6.0, 9.0]})
        >>> df.exact.corr()["a"].tolist()
        [1.0, 0.9943767126843689]
        """
        if method != "pearson":
            raise ValueError(f"DataFrame.exact.corr: method must be 'pearson' (exact), not "
                             f"{method!r}")
        return _frame_cov(self._df, "corr", min_periods, 0, numeric_only)

    def average(self, weights: Any = None, axis: int | str = 0, skipna: bool = True,
                numeric_only: bool = False) -> pd.Series:
        """Weighted means of the columns (axis=0) or rows (axis=1), exact and
        rounded once (:func:`xsumufunc.exact_average`).

        `weights`: one per row (axis=0; or the label of a weights column,
        which is then not averaged) or per column (axis=1); None: the mean.
        skipna: a NaN value leaves its term and weight out.  Weights summing
        to zero exactly raise ZeroDivisionError.

        Examples
        --------
        >>> import pandas as pd, xsumufunc.pandas_accessor
        >>> df = pd.DataFrame({"x": [1e16, 1.0, -1e16, None], "w": [1.0, 3.0, 1.0, 2.0]})
        >>> df.exact.average(weights="w").tolist()
        [0.6]
        """
        func = "DataFrame.exact.average"
        if axis not in _AXES:
            raise ValueError(f"{func}: axis must be 0, 1, 'index' or 'columns', not {axis!r}")
        axis = _AXES[axis]
        if weights is None:
            return self._reduction("mean", axis, skipna, numeric_only)
        w, used = _average_weights(weights, self._df, axis, func)
        df = numeric_columns(self._df.drop(columns=used), numeric_only)
        frame = df if axis == 0 else df.T
        length = len(frame)
        if w.shape != (length,):
            raise ValueError(f"{func}: weights must be {length} values along axis {axis}, "
                             f"not shape {w.shape}")
        results = []
        for c in frame.columns:
            values = column_array(frame[c], c, func)
            if skipna and values.dtype.kind == "f":
                keep = ~np.isnan(values)
                values, wk = values[keep], w[keep]
            else:
                wk = w
            results.append(exact_average(values, weights=wk))
        index = frame.columns
        return pd.Series(results, index=index,
                         dtype=np.result_type(*results) if results else np.float64)


def _pandas_window(window, min_periods, values, func):
    """pandas' rule for rolling windows on the values of a series: window
    an integer >= 0 (longer than the series is fine), min_periods in [0,
    window] (default: window).  Returns the window and min_count for the
    exact moving functions (the window cut to the series' length; min_count
    at least 1 and at most that window, see _pandas_windows_done) and the
    count of values present in each window (None when min_periods asks for
    no more than that cut)."""
    window = as_integer(window, func, "window")
    if window < 0:
        raise ValueError(f"{func}: window must be an integer 0 or greater, not {window}")
    min_periods = window if min_periods is None else as_integer(min_periods, func,
                                                                 "min_periods")
    if not 0 <= min_periods <= window:
        raise ValueError(f"{func}: min_periods must be in [0, window={window}], "
                         f"not {min_periods}")
    n = len(values)
    cut = min(window, n)
    need = max(min_periods, 1)
    present = None
    if min_periods == 0 or need > cut:
        # Counts of values present (not NaN) per window, exact in integers.
        ok = np.cumsum(~np.isnan(values) if values.dtype.kind == "f" else np.ones(n, bool))
        ok = np.concatenate([[0], ok])
        present = ok[1:] - ok[np.maximum(np.arange(1, n + 1) - window, 0)]
    return cut, min(need, max(cut, 1)), (present, min_periods)


def _pandas_windows_done(res, need, present, empty_is_zero):
    """pandas' results where the exact moving functions' min_count differs
    from min_periods: NaN below min_periods, and (sums) 0.0 for a window
    with no values when min_periods is 0."""
    counts, min_periods = present
    if counts is None:
        return res
    res = np.array(res, copy=True)
    res[counts < min_periods] = np.nan
    if empty_is_zero and min_periods == 0:
        res[counts == 0] = 0.0
    return res


@pd.api.extensions.register_series_accessor("exact")
class ExactSeriesAccessor:
    """``series.exact.sum/mean/var/std(skipna=True)``,
    ``series.exact.rolling_sum/rolling_mean(window, min_periods=None)``,
    ``series.exact.rolling_var/rolling_std(window, min_periods=None, ddof=1)`` and
    ``series.exact.grouped_sum/grouped_mean/grouped_var/grouped_std(by,
    sort=True, skipna=True, ..., observed=True)``."""

    def __init__(self, series: pd.Series) -> None:
        self._series = series

    def _values(self, method):
        return column_values(self._series, self._series.name, f"Series.exact.{method}")

    def _reduction(self, method, skipna, **kwargs):
        return _reduce(method, self._values(method), None, skipna, kwargs,
                       f"Series.exact.{method}")

    def _rolling(self, method, window, min_periods, ddof=1):
        return _rolling(self._series, method, window, min_periods, ddof,
                        f"Series.exact.{method}")

    def sum(self, skipna: bool = True) -> Any:
        """The exact sum, rounded once."""
        return self._reduction("sum", skipna)

    def mean(self, skipna: bool = True) -> Any:
        """The exact mean, rounded once."""
        return self._reduction("mean", skipna)

    def var(self, skipna: bool = True, ddof: float = 1) -> Any:
        """The exact variance (pandas' ddof=1), rounded once."""
        return self._reduction("var", skipna, ddof=ddof)

    def std(self, skipna: bool = True, ddof: float = 1) -> Any:
        """The correctly rounded standard deviation (pandas' ddof=1)."""
        return self._reduction("std", skipna, ddof=ddof)

    def rolling_sum(self, window: int, min_periods: int | None = None) -> pd.Series:
        """``rolling(window, min_periods).sum()``, each window exact and
        rounded once (no drift): NaNs are not terms, a window with fewer
        than min_periods (default: window) values is NaN."""
        return self._rolling("rolling_sum", window, min_periods)

    def rolling_mean(self, window: int, min_periods: int | None = None) -> pd.Series:
        """``rolling(window, min_periods).mean()``, exact and rounded once."""
        return self._rolling("rolling_mean", window, min_periods)

    def rolling_var(self, window: int, min_periods: int | None = None,
                    ddof: float = 1) -> pd.Series:
        """``rolling(window, min_periods).var(ddof)``: each window's exact
        variance rounded once (never negative, no drift); NaN where a window
        has fewer than min_periods values or no more than ddof."""
        return self._rolling("rolling_var", window, min_periods, ddof)

    def rolling_std(self, window: int, min_periods: int | None = None,
                    ddof: float = 1) -> pd.Series:
        """``rolling(window, min_periods).std(ddof)``: the correctly rounded
        root of each window's exact variance."""
        return self._rolling("rolling_std", window, min_periods, ddof)

    def _grouped_reduction(self, method, by, sort, skipna, observed, ddof=1):
        func = f"Series.exact.{method}"
        groups = _Groups(self._series, by, sort, observed, func)
        res = _grouped(method, self._values(method), groups.codes, groups.ngroups, skipna,
                       ddof, func)
        return groups.complete(pd.Series(res, index=groups.index, name=self._series.name),
                               method)

    def grouped_sum(self, by: Any, sort: bool = True, skipna: bool = True,
                    observed: bool = True) -> pd.Series:
        """``series.groupby(by, observed=observed).sum()``, each group's sum
        exact and rounded once (see :meth:`ExactFrameAccessor.grouped_sum`)."""
        return self._grouped_reduction("grouped_sum", by, sort, skipna, observed)

    def grouped_mean(self, by: Any, sort: bool = True, skipna: bool = True,
                     observed: bool = True) -> pd.Series:
        """``series.groupby(by, observed=observed).mean()``, exact and
        rounded once."""
        return self._grouped_reduction("grouped_mean", by, sort, skipna, observed)

    def grouped_var(self, by: Any, sort: bool = True, skipna: bool = True, ddof: float = 1,
                    observed: bool = True) -> pd.Series:
        """``series.groupby(by, observed=observed).var(ddof)``: each group's
        exact variance rounded once."""
        return self._grouped_reduction("grouped_var", by, sort, skipna, observed, ddof)

    def grouped_std(self, by: Any, sort: bool = True, skipna: bool = True, ddof: float = 1,
                    observed: bool = True) -> pd.Series:
        """``series.groupby(by, observed=observed).std(ddof)``: the
        correctly rounded root of each group's exact variance."""
        return self._grouped_reduction("grouped_std", by, sort, skipna, observed, ddof)
