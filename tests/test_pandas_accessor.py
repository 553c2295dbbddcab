"""df.exact and series.exact (xsumufunc.pandas_accessor): every value against
the exact oracle; pandas' conventions (skipna, numeric_only, ddof=1, the
index and columns kept); clear errors."""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from helpers import assert_same
from oracle import FLOAT32, FLOAT64, exact_sum_oracle, round_fraction
from oracle_moments import var_oracle
from oracle_products import exact_mean_oracle

pd = pytest.importorskip("pandas")
import xsumufunc.pandas_accessor  # noqa: E402, F401  (registers the accessors)


def frame(rng, rows=40):
    """Columns of several dtypes and scales, with NaNs."""
    a = rng.standard_normal(rows) * np.exp(rng.uniform(-50, 50, rows))
    a[rng.random(rows) < 0.2] = np.nan
    b = rng.standard_normal(rows).astype(np.float32)
    b[3] = np.nan
    c = rng.integers(-10**15, 10**15, rows)
    d = rng.random(rows) < 0.5
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d}, index=[f"r{i}" for i in range(rows)])


def quiet(func, *args, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return func(*args, **kwargs)


def terms(values, skipna):
    out = [float(v) if not isinstance(v, (int, np.integer, bool, np.bool_)) else int(v)
           for v in values]
    return [t for t in out if not (skipna and isinstance(t, float) and math.isnan(t))]


@pytest.mark.parametrize("skipna", [True, False])
def test_column_sums_means_and_variances(skipna):
    df = frame(np.random.default_rng(1))
    sums = quiet(df.exact.sum, skipna=skipna)
    means = quiet(df.exact.mean, skipna=skipna)
    variances = quiet(df.exact.var, skipna=skipna)
    assert list(sums.index) == list(df.columns)
    for name in df.columns:
        result = FLOAT32 if df[name].dtype == np.float32 else FLOAT64
        t = terms(df[name].to_numpy(), skipna)
        assert_same(np.asarray(sums[name]).astype(result),
                    exact_sum_oracle(t, result), f"sum {name}")
        assert_same(np.asarray(means[name]).astype(result),
                    exact_mean_oracle(t, result), f"mean {name}")
        exact = var_oracle(t, 1)
        if exact not in ("nan", "inf"):
            assert_same(np.asarray(variances[name]).astype(result),
                        round_fraction(exact, result), f"var {name}")


@pytest.mark.parametrize("skipna", [True, False])
def test_row_sums_in_one_call(skipna):
    df = frame(np.random.default_rng(2))[["a", "b", "c"]]
    got = quiet(df.exact.sum, axis=1, skipna=skipna)
    assert list(got.index) == list(df.index) and got.dtype == np.float64
    for label, row in zip(df.index, df.itertuples(index=False)):
        t = terms([row.a, float(row.b), int(row.c)], skipna)
        assert_same(np.float64(got[label]), exact_sum_oracle(t, FLOAT64), label)
    means = quiet(df.exact.mean, axis="columns", skipna=skipna)
    for label, row in zip(df.index, df.itertuples(index=False)):
        t = terms([row.a, float(row.b), int(row.c)], skipna)
        assert_same(np.float64(means[label]), exact_mean_oracle(t, FLOAT64), label)


def test_one_dtype_rows_keep_it():
    df = pd.DataFrame(np.arange(12, dtype=np.float32).reshape(4, 3) / 7)
    got = df.exact.sum(axis=1)
    assert got.dtype == np.float32
    for i in range(4):
        assert_same(np.float32(got[i]), exact_sum_oracle(df.iloc[i].tolist(), FLOAT32))


def test_numeric_only_and_clear_errors():
    df = frame(np.random.default_rng(3))
    df["name"] = "x"
    with pytest.raises(TypeError, match="column 'name'.*numeric_only=True"):
        df.exact.sum()
    got = df.exact.sum(numeric_only=True)
    assert "name" not in got.index and list(got.index) == ["a", "b", "c", "d"]
    with pytest.raises(ValueError, match="axis"):
        df.exact.sum(axis=2)
    with pytest.raises(TypeError, match="not numeric"):
        pd.Series(["a", "b"]).exact.sum()


def test_nullable_columns_treat_missing_as_nan():
    s = pd.Series([1e100, 1.0, pd.NA, -1e100], dtype="Float64")
    assert_same(np.float64(s.exact.sum()), exact_sum_oracle([1e100, 1.0, -1e100], FLOAT64))
    assert math.isnan(s.exact.sum(skipna=False))
    assert_same(np.float64(pd.Series([1, 2, None], dtype="Int64").exact.mean()),
                exact_mean_oracle([1, 2], FLOAT64))


def test_series_rolling_sums_are_exact_and_keep_the_index():
    rng = np.random.default_rng(4)
    x = rng.standard_normal(300) * np.exp(rng.uniform(-30, 30, 300))
    x[::37] = np.nan
    s = pd.Series(x, index=pd.date_range("2026-01-01", periods=300, freq="h"), name="v")
    got = s.exact.rolling_sum(10, min_periods=5)
    assert got.index.equals(s.index) and got.name == "v"
    for i in range(300):
        window = [v for v in x[max(0, i - 9):i + 1].tolist() if not math.isnan(v)]
        want = exact_sum_oracle(window, FLOAT64) if len(window) >= 5 else np.float64(np.nan)
        assert_same(np.float64(got.iloc[i]), want, str(i))
    means = s.exact.rolling_mean(10)
    for i in (9, 100, 299):
        window = x[i - 9:i + 1].tolist()
        if not any(math.isnan(v) for v in window):
            assert_same(np.float64(means.iloc[i]),
                        round_fraction(sum(map(Fraction, window)) / 10, FLOAT64), str(i))


def test_series_rolling_var_and_std_are_exact_and_never_negative():
    """pandas' rolling variance of a level shift goes negative or drifts;
    ours is each window's exact variance (ddof=1, pandas' default), rounded
    once, and its correctly rounded root: checked against the oracle."""
    from oracle_roots import rounded_sqrt
    x = np.concatenate([np.full(5, 1e9 + 0.1), np.full(5, 0.3), [0.1, 0.2, 0.7, np.nan, 0.4]])
    s = pd.Series(x, name="v")
    var, std = s.exact.rolling_var(3, min_periods=2), s.exact.rolling_std(3, min_periods=2)
    assert var.index.equals(s.index) and var.name == "v"
    for i in range(len(x)):
        window = [Fraction(v) for v in x[max(0, i - 2):i + 1].tolist() if not math.isnan(v)]
        n = len(window)
        if n < 2:
            assert math.isnan(var.iloc[i]) and math.isnan(std.iloc[i])
            continue
        exact = (n * sum(v * v for v in window) - sum(window) ** 2) / (n * (n - 1))
        assert_same(np.float64(var.iloc[i]), round_fraction(exact, FLOAT64), str(i))
        assert_same(np.float64(std.iloc[i]), rounded_sqrt(exact, FLOAT64), str(i))
    assert (var.dropna() >= 0).all()
    with pytest.raises(TypeError, match="rolling_var"):
        pd.Series([2**60 + 1, None, 3], dtype="Int64").exact.rolling_var(2)


def test_skipna_on_every_float_kind():
    """NaNs are skipped in ml_dtypes columns too (kind 'V', no np.isnan
    shortcut), and a frame of one dtype goes through pandas' own block."""
    import ml_dtypes
    values = np.array([1.0, np.nan, 2.0, 2.0**-8], dtype=ml_dtypes.bfloat16)
    s = pd.Series(values)
    assert_same(np.asarray(s.exact.sum()), exact_sum_oracle([1.0, 2.0, 2.0**-8], s.dtype))
    assert math.isnan(float(s.exact.sum(skipna=False)))
    df = pd.DataFrame({"x": [1e300, np.nan, -1e300], "y": [1.0, 2.0, 3.0]})
    want = [exact_sum_oracle(t, FLOAT64) for t in ([1e300, 1.0], [2.0], [-1e300, 3.0])]
    assert_same(df.exact.sum(axis=1).to_numpy(), np.array(want))
    assert math.isnan(df.exact.sum(axis=1, skipna=False)[1])


# ---- grouped: df.exact.grouped_sum/grouped_mean, series.exact.grouped_* ----

def grouped_oracle(df, by, column, mean, skipna=True, sort=True):
    """Each group's exact sum or mean of `column`, in pandas' group order."""
    groups = df.groupby(by, sort=sort, dropna=True)[column]
    oracle = exact_mean_oracle if mean else exact_sum_oracle
    target = FLOAT32 if df[column].dtype == FLOAT32 else FLOAT64
    values = [quiet(oracle, terms(g.tolist(), skipna), target) for _, g in groups]
    return np.array(values, target), groups.size().index


@pytest.mark.parametrize("mean", [False, True], ids=["sum", "mean"])
@pytest.mark.parametrize("sort", [True, False])
def test_grouped_reductions_against_the_oracle(mean, sort):
    rng = np.random.default_rng(21 + mean + 2 * sort)
    df = frame(rng, rows=300)
    keys = rng.integers(0, 25, len(df)).astype(float)
    keys[rng.random(len(df)) < 0.05] = np.nan              # missing keys: left out
    df["k"] = keys
    df["a"] = df["a"].where(rng.random(len(df)) < 0.5, -df["a"].shift(1))   # cancellation
    method = "grouped_mean" if mean else "grouped_sum"
    got = quiet(getattr(df.exact, method), "k", sort=sort)
    assert list(got.columns) == ["a", "b", "c", "d"]
    for column in got.columns:
        want, index = grouped_oracle(df, "k", column, mean, sort=sort)
        assert got.index.equals(index)
        assert_same(got[column].to_numpy(), want)
    series = quiet(getattr(df["a"].exact, method), df["k"], sort=sort)
    want, index = grouped_oracle(df, "k", "a", mean, sort=sort)
    assert series.index.equals(index) and series.name == "a"
    assert_same(series.to_numpy(), want)


def test_grouped_by_several_keys_and_by_arrays():
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"k1": rng.integers(0, 4, 200), "k2": rng.choice(["x", "y"], 200),
                       "v": rng.standard_normal(200) * 10.0 ** rng.integers(-300, 300, 200)})
    got = df.exact.grouped_sum(["k1", "k2"])
    want, index = grouped_oracle(df, ["k1", "k2"], "v", False)
    assert got.index.equals(index) and list(got.columns) == ["v"]
    assert_same(got["v"].to_numpy(), want)
    keys = rng.integers(0, 3, 200)                           # keys given as an array
    got = df[["v"]].exact.grouped_mean(keys)
    want, index = grouped_oracle(df.assign(key=keys), "key", "v", True)
    assert_same(got["v"].to_numpy(), want)


def test_grouped_nullable_integers_beyond_2_53_are_exact():
    values = pd.array([2**60 + 1, 2**60 + 1, None, -(2**61), 3, 5], dtype="Int64")
    df = pd.DataFrame({"k": [0, 0, 0, 0, 1, 1], "v": values})
    terms = [[2**60 + 1, 2**60 + 1, -(2**61)], [3, 5]]          # NA left out
    got = df.exact.grouped_sum("k")["v"].to_numpy()
    assert_same(got, np.array([exact_sum_oracle(t, FLOAT64) for t in terms]))
    means = df.exact.grouped_mean("k")["v"].to_numpy()
    assert_same(means, np.array([exact_mean_oracle(t, FLOAT64) for t in terms]))
    kept = df.exact.grouped_sum("k", skipna=False)["v"].to_numpy()     # NA is then NaN
    assert math.isnan(kept[0])
    assert_same(kept[1:], np.array([exact_sum_oracle(terms[1], FLOAT64)]))


def test_grouped_skipna_false_keeps_nan_and_errors_are_clear():
    df = pd.DataFrame({"k": [0, 0, 1], "v": [1.0, np.nan, 2.0], "s": ["a", "b", "c"]})
    got = df.exact.grouped_sum("k", skipna=False, numeric_only=True)
    assert_same(got["v"].to_numpy(),
                np.array([exact_sum_oracle([1.0, np.nan], FLOAT64),
                          exact_sum_oracle([2.0], FLOAT64)]))
    with pytest.raises(TypeError, match="column 's'"):
        df.exact.grouped_sum("k")
    with pytest.raises(KeyError, match="grouped_sum: cannot group by 'nope'"):
        df.exact.grouped_sum("nope")
