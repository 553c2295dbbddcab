"""pandas' nullable columns and pyarrow's chunked arrays in the public
functions, and the accessor's grouped (observed=, var, std) and DataFrame
rolling methods: every value against the exact oracle."""

import math
import tracemalloc
import warnings

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given
from hypothesis import strategies as st
from oracle import FLOAT64, exact_sum_oracle, round_fraction
from oracle_moments import check as check_var
from oracle_moments import var_oracle
from oracle_products import exact_mean_oracle

import xsumufunc as xs

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
import xsumufunc.pandas_accessor  # noqa: E402, F401  (registers the accessors)

INT64_RANGE = st.integers(-2**63, 2**63 - 1)
FINITE = st.floats(allow_nan=False, allow_infinity=False)


def quiet(func, *args, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return func(*args, **kwargs)


def mean_of(kept):
    """The exact mean of the kept terms rounded once (the oracle's: a mean
    of -0.0 terms is -0.0, as their sum)."""
    return exact_mean_oracle(kept, FLOAT64)


# ---- pandas' nullable columns in the public functions -----------------------

def test_the_issue_example_is_exact():
    s = pd.Series([2**53 + 1, 1, pd.NA], dtype="Int64")
    assert_same(xs.exact_nansum(s), exact_sum_oracle([2**53 + 1, 1], FLOAT64))


@given(values=st.lists(st.one_of(st.none(), INT64_RANGE), min_size=1, max_size=30))
def test_nullable_integers_skip_na_exactly(values):
    s = pd.Series(values, dtype="Int64")
    kept = [v for v in values if v is not None]
    assert_same(xs.exact_nansum(s), exact_sum_oracle(kept, FLOAT64))
    if kept:
        assert_same(xs.exact_nanmean(s), mean_of(kept))
        check_var(quiet(xs.exact_nanvar, s, ddof=1), kept, 1, FLOAT64, False)
        check_var(quiet(xs.exact_nanstd, s), kept, 0, FLOAT64, True)
    codes = np.arange(len(values)) % 2
    got = quiet(xs.exact_grouped_sum, s, codes, 2, skip_nan=True)
    for g in (0, 1):
        group = [v for v, c in zip(values, codes) if c == g and v is not None]
        assert_same(got[g], exact_sum_oracle(group, FLOAT64))


@given(values=st.lists(st.one_of(st.none(), FINITE), min_size=1, max_size=30))
def test_nullable_floats_skip_na_exactly(values):
    s = pd.Series(values, dtype="Float64")
    kept = [v for v in values if v is not None]
    assert_same(quiet(xs.exact_nansum, s), exact_sum_oracle(kept, FLOAT64))
    if kept:
        check_var(quiet(xs.exact_nanvar, s), kept, 0, FLOAT64, False)


@pytest.mark.parametrize("func", [xs.exact_sum, xs.exact_mean, xs.exact_var, xs.exact_std,
                                  xs.exact_add.accumulate, xs.exact_moving_sum])
@pytest.mark.parametrize("dtype", ["Int64", "Float64", "int64[pyarrow]"])
def test_functions_that_do_not_skip_refuse_na(func, dtype):
    s = pd.Series([1, None, 2], dtype=dtype)
    args = (2,) if func is xs.exact_moving_sum else ()
    with pytest.raises(ValueError, match=r"has 1 null\(s\).*s\.fillna\(\.\.\.\) or s\.dropna"):
        func(s, *args)


@given(values=st.lists(INT64_RANGE, min_size=2, max_size=20))
def test_nullable_columns_without_na_are_their_values(values):
    for dtype in ("Int64", "int64[pyarrow]"):
        s = pd.Series(values, dtype=dtype)
        assert_same(xs.exact_sum(s), exact_sum_oracle(values, FLOAT64))
        check_var(xs.exact_var(s), values, 0, FLOAT64, False)
        assert_same(xs.exact_dot(s, s), xs.exact_dot(np.array(values), np.array(values)))


# ---- pyarrow.ChunkedArray: chunk by chunk --------------------------------------

@st.composite
def chunked(draw):
    values = draw(st.lists(st.one_of(st.none(), FINITE), min_size=1, max_size=40))
    cuts = sorted(draw(st.lists(st.integers(0, len(values)), max_size=5)))
    bounds = [0, *cuts, len(values)]
    chunks = [values[a:b] for a, b in zip(bounds, bounds[1:])]
    return values, pa.chunked_array(chunks, type=pa.float64())


@given(case=chunked(), ddof=st.sampled_from([0, 1, 1.5]))
def test_chunked_arrays_merge_exact_states(case, ddof):
    values, column = case
    kept = [v for v in values if v is not None]
    assert_same(quiet(xs.exact_nansum, column), exact_sum_oracle(kept, FLOAT64))
    got_var = quiet(xs.exact_nanvar, column, ddof=ddof)
    got_std = quiet(xs.exact_nanstd, column, ddof=ddof)
    if kept:
        assert_same(quiet(xs.exact_nanmean, column), mean_of(kept))
        check_var(got_var, kept, ddof, FLOAT64, False)
        check_var(got_std, kept, ddof, FLOAT64, True)
    if len(kept) == len(values):
        assert_same(xs.exact_sum(column), exact_sum_oracle(kept, FLOAT64))
        check_var(quiet(xs.exact_std, column, ddof=ddof), kept, ddof, FLOAT64, True)
        # Other functions read the chunks concatenated.
        assert_same(xs.exact_add.accumulate(column), xs.exact_add.accumulate(np.array(kept)))
    else:
        with pytest.raises(ValueError, match=r"ChunkedArray\) has \d+ null"):
            xs.exact_sum(column)


def test_chunked_arrays_are_not_copied_whole():
    x = np.arange(1 << 20, dtype=np.float64) * 0.1
    column = pa.chunked_array([x[i:i + (1 << 18)] for i in range(0, x.size, 1 << 18)])
    for func in (xs.exact_sum, xs.exact_mean):
        func(column)                          # (imports and caches out of the way)
        tracemalloc.start()
        got = func(column)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert_same(got, func(x))
        assert peak < x.nbytes // 4, peak      # far below one copy of the column


# ---- the accessor: observed=, grouped var/std, DataFrame rolling --------------

def categorical_frame():
    keys = pd.Categorical(["a", "c", "a", "a", "c"], categories=["a", "b", "c", "d"])
    return pd.DataFrame({"k": keys, "x": [1e100, 0.5, 1.0, -1e100, 0.25],
                         "y": [1, 2, 3, 4, 2**53 + 1]})


def test_observed_false_gives_every_category():
    df = categorical_frame()
    got = df.exact.grouped_sum("k", observed=False)
    assert list(got.index) == ["a", "b", "c", "d"]
    assert_same(got["x"].to_numpy(), np.array([exact_sum_oracle([1e100, 1.0, -1e100]),
                                               0.0, exact_sum_oracle([0.5, 0.25]), 0.0]))
    assert_same(got["y"].to_numpy(), np.array([8.0, 0.0, exact_sum_oracle([2, 2**53 + 1]),
                                               0.0]))
    mean = df.exact.grouped_mean("k", observed=False)["x"].to_numpy()
    assert np.isnan(mean[1]) and np.isnan(mean[3])
    observed = df.x.exact.grouped_sum(df.k)
    assert list(observed.index) == ["a", "c"]
    with pytest.raises(TypeError, match="observed must be True or False"):
        df.exact.grouped_sum("k", observed="no")


@pytest.mark.parametrize("ddof", [0, 1, 1.5])
def test_frame_grouped_var_and_std_against_the_oracle(ddof):
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"k": rng.integers(0, 4, 60),
                       "x": rng.standard_normal(60) * np.exp(rng.uniform(-30, 30, 60)),
                       "z": rng.integers(-2**40, 2**40, 60)})
    df.loc[::7, "x"] = np.nan
    var = df.exact.grouped_var("k", ddof=ddof)
    std = df.exact.grouped_std("k", ddof=ddof)
    for key in var.index:
        for col in ("x", "z"):
            kept = [v for v in df.loc[df.k == key, col].tolist() if not math.isnan(v)]
            check_var(var.loc[key, col], kept, ddof, FLOAT64, False)
            check_var(std.loc[key, col], kept, ddof, FLOAT64, True)


def test_grouped_var_of_too_few_values_is_nan_without_warning():
    df = categorical_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = df.exact.grouped_var("k", observed=False)
    assert np.isnan(got.loc["b", "x"]) and np.isnan(got.loc["d", "x"])
    assert_same(got.loc["c", "x"], round_fraction(var_oracle([0.5, 0.25], 1), FLOAT64))


@pytest.mark.parametrize("method", ["rolling_sum", "rolling_mean", "rolling_var",
                                    "rolling_std"])
def test_frame_rolling_is_each_columns_rolling(method):
    df = categorical_frame().drop(columns="k")
    got = getattr(df.exact, method)(3, min_periods=2)
    assert list(got.columns) == ["x", "y"] and got.index.equals(df.index)
    for col in df.columns:
        assert_same(got[col].to_numpy(),
                    getattr(df[col].exact, method)(3, min_periods=2).to_numpy())
    with pytest.raises(TypeError, match="column 'k'"):
        getattr(categorical_frame().exact, method)(3)


def test_frame_rolling_sum_against_the_oracle():
    df = categorical_frame().drop(columns="k")
    got = df.exact.rolling_sum(3)
    values = df["x"].tolist()
    for i in range(2, len(df)):
        assert_same(got["x"].iloc[i], exact_sum_oracle(values[i - 2:i + 1], FLOAT64))
