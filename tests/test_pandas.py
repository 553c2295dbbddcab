"""pandas: our plain functions in agg, groupby, resample and rolling, labelled
by name, dtypes kept, nan-variants matching pandas' skipna; every value
checked against the exact oracle."""

from fractions import Fraction

import numpy as np
import pytest
from helpers import assert_same, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import FLOAT32, FLOAT64, exact_sum_oracle, round_fraction, terms_of
from oracle_products import exact_mean_oracle
from strategies import arrays_1d

import xsumufunc as xs

pd = pytest.importorskip("pandas")


def _frame(data, n=None):
    a = data.draw(arrays_1d(FLOAT64, min_size=1))
    n = a.size
    b = data.draw(arrays_1d(FLOAT32, min_size=n)).astype(np.float32)[:n]
    if b.size < n:
        b = np.resize(b, n)
    return pd.DataFrame({"a": a, "b": b}), a, b


_OURS = (xs.exact_sum, xs.exact_nansum, xs.exact_nanmean, xs.exact_mean)


def _expected_rows(values, dtype):
    terms = terms_of(values)
    return {"exact_sum": exact_sum_oracle(terms, dtype),
            "exact_nansum": exact_sum_oracle(terms, dtype, skip_nan=True),
            "exact_mean": exact_mean_oracle(terms, dtype),
            "exact_nanmean": exact_mean_oracle(terms, dtype, skip_nan=True)}


@given(data=st.data())
def test_dataframe_agg_alone_and_in_lists(data):
    """Our functions keep each column's dtype, alone and in a list of our own."""
    df, a, b = _frame(data)
    alone = quiet(df.agg, xs.exact_sum)
    assert list(alone.index) == ["a", "b"]
    assert_same(np.float64(alone["a"]), exact_sum_oracle(terms_of(a), FLOAT64))
    table = quiet(df.agg, list(_OURS))
    assert list(table.index) == [f.__name__ for f in _OURS]
    assert table["a"].dtype == np.float64 and table["b"].dtype == np.float32
    for col, values, dtype in (("a", a, FLOAT64), ("b", b, FLOAT32)):
        for name, expected in _expected_rows(values, dtype).items():
            assert_same(table[col][name], expected, name)


@given(data=st.data())
def test_dataframe_agg_mixed_with_pandas_names(data):
    """Beside a pandas aggregation our rows keep their exact values.

    The column's dtype is then pandas' choice, not ours: pandas gives a float64
    NaN for the "mean" of an all-NaN float32 column, and the whole column
    becomes float64.  A float32 value widens to float64 exactly, so the check
    narrows each of our rows back to its input dtype and compares bits.
    """
    df, a, b = _frame(data)
    table = quiet(df.agg, [xs.exact_sum, "mean", xs.exact_nansum, xs.exact_nanmean,
                            xs.exact_mean])
    assert list(table.index) == ["exact_sum", "mean", "exact_nansum", "exact_nanmean",
                                 "exact_mean"]
    for col, values, dtype in (("a", a, FLOAT64), ("b", b, FLOAT32)):
        assert table[col].dtype in (np.float32, np.float64)
        for name, expected in _expected_rows(values, dtype).items():
            got = np.asarray(table[col][name])
            narrowed = got.astype(dtype)
            assert np.isnan(got) == np.isnan(narrowed) and (
                np.isnan(got) or float(got) == float(narrowed)), name
            assert_same(narrowed, expected, name)


@given(data=st.data())
def test_series_agg_keeps_float32(data):
    b = data.draw(arrays_1d(FLOAT32))
    s = pd.Series(b)
    got = quiet(s.agg, xs.exact_sum)
    assert isinstance(got, np.float32)
    assert_same(got, exact_sum_oracle(terms_of(b), FLOAT32))
    named = quiet(s.agg, [xs.exact_sum, xs.exact_mean])
    assert list(named.index) == ["exact_sum", "exact_mean"] and named.dtype == np.float32


@given(data=st.data(), ngroups=st.integers(1, 4))
def test_groupby_agg(data, ngroups):
    df, a, b = _frame(data)
    keys = np.array(data.draw(st.lists(st.integers(0, ngroups - 1), min_size=a.size,
                                       max_size=a.size)))
    df["k"] = keys
    grouped = df.groupby("k")
    sums = quiet(grouped.agg, xs.exact_sum)
    means = quiet(grouped.agg, xs.exact_nanmean)
    both = quiet(grouped.agg, [xs.exact_sum, xs.exact_nansum])
    assert sums["b"].dtype == np.float32 and means["b"].dtype == np.float32
    assert list(both.columns) == [("a", "exact_sum"), ("a", "exact_nansum"),
                                  ("b", "exact_sum"), ("b", "exact_nansum")]
    for k in np.unique(keys):
        for col, values, dtype in (("a", a, FLOAT64), ("b", b, FLOAT32)):
            terms = terms_of(values[keys == k])
            assert_same(sums[col][k], exact_sum_oracle(terms, dtype))
            assert_same(both[(col, "exact_nansum")][k],
                        exact_sum_oracle(terms, dtype, skip_nan=True))
            assert_same(means[col][k], exact_mean_oracle(terms, dtype, skip_nan=True))


def test_resample_and_rolling():
    rng = np.random.default_rng(2)
    values = (rng.standard_normal(48) * 10.0 ** rng.integers(-20, 20, 48)).astype(np.float32)
    values[5] = np.nan
    s = pd.Series(values, index=pd.date_range("2024-01-01", periods=48, freq="h"))
    daily = quiet(s.resample("D").agg, [xs.exact_nansum, xs.exact_nanmean])
    assert list(daily.columns) == ["exact_nansum", "exact_nanmean"]
    assert daily["exact_nansum"].dtype == np.float32
    for i, day in enumerate(daily.index):
        terms = terms_of(values[24 * i:24 * (i + 1)])
        assert_same(daily["exact_nansum"][day], exact_sum_oracle(terms, FLOAT32, skip_nan=True))
        assert_same(daily["exact_nanmean"][day],
                    exact_mean_oracle(terms, FLOAT32, skip_nan=True))
    rolled = s.rolling(6).agg(xs.exact_sum)
    # pandas' rolling machinery works in float64 whatever the input dtype.
    assert rolled.dtype == s.rolling(6).sum().dtype
    for i in range(5, 48):
        window = values[i - 5:i + 1].astype(np.float64)
        assert_same(rolled.iloc[i], exact_sum_oracle(terms_of(window), FLOAT64))
    assert rolled.iloc[:5].isna().all()


def test_nan_variants_match_pandas_skipna():
    # Values whose sums and means pandas also gets exactly: only NaN handling differs.
    df = pd.DataFrame({"some": [1.0, np.nan, 2.0, 4.0], "none": [np.nan] * 4,
                       "full": [1.0, 2.0, 3.0, 6.0]})
    pd.testing.assert_series_equal(df.agg(xs.exact_nansum), df.sum(), check_names=False)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        ours = df.agg(xs.exact_nanmean)
    pd.testing.assert_series_equal(ours, df.mean(), check_names=False)
    # Without skipping, NaN propagates as pandas' skipna=False does.
    pd.testing.assert_series_equal(df.agg(xs.exact_sum), df.sum(skipna=False),
                                   check_names=False)


def test_exact_where_pandas_is_not():
    df = pd.DataFrame({"x": [1e16, 1.0, -1e16, 1.0]})
    assert df["x"].sum() != 2.0                    # pandas' pairwise sum loses the ones
    assert df.agg(xs.exact_sum)["x"] == 2.0


# ---- exact_grouped_sum / exact_grouped_mean: no Python call per group -----

from unittest import mock  # noqa: E402

from xsumufunc._core import grouped as _grouped  # noqa: E402

# Tiny sizes force batches, several merge levels and the large-group path on
# small inputs; "chunks" the chunked path (chunks of 3 values whatever the
# groups, each chunk's group states merged into the running ones).
TINY = {"_BATCH_VALUES": 7, "_BATCH_GROUPS": 2, "_MAX_PIECE": 2, "_LARGE_GROUP": 6,
        "_CHUNK_VALUES": 1 << 20}
SIZES = {"default": {}, "tiny": TINY, "tiny_pieces_only": {**TINY, "_LARGE_GROUP": 1 << 40},
         "chunks": {**TINY, "_CHUNK_VALUES": 3, "_CHUNK_VALUES_PER_GROUP": 0,
                    "_ORDER_BYTES_PER_VALUE": 1 << 40}}


@pytest.mark.parametrize("tiny", sorted(SIZES))
@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32, np.dtype(np.complex128), np.dtype(np.int64)])
@given(data=st.data())
def test_grouped_sum_and_mean_against_the_oracle(tiny, dtype, data):
    values = data.draw(arrays_1d(dtype))
    ngroups = data.draw(st.integers(0, 5))
    codes = np.array(data.draw(st.lists(st.integers(-1, max(ngroups - 1, -1)),
                                        min_size=values.size, max_size=values.size)),
                     dtype=np.int64)
    skip_nan = data.draw(st.booleans())
    result = np.dtype(np.float64) if dtype.kind == "i" else dtype
    sizes = {name: getattr(_grouped, name) for name in TINY} | SIZES[tiny]
    with mock.patch.multiple(_grouped, **sizes):
        sums = quiet(xs.exact_grouped_sum, values, codes, ngroups, skip_nan=skip_nan)
        means = quiet(xs.exact_grouped_mean, values, codes, ngroups, skip_nan=skip_nan)
    assert sums.shape == means.shape == (ngroups,) and sums.dtype == result
    for g in range(ngroups):
        terms = terms_of(values[codes == g])
        assert_same(sums[g], exact_sum_oracle(terms, result, skip_nan=skip_nan))
        assert_same(means[g], exact_mean_oracle(terms, result, skip_nan=skip_nan))


def test_grouped_sum_matches_groupby_agg_on_large_groups():
    rng = np.random.default_rng(9)
    values = rng.standard_normal(40_000) * 10.0 ** rng.integers(-200, 200, 40_000)
    keys = np.where(rng.random(40_000) < 0.6, "big", rng.choice(["a", "b", "c"], 40_000))
    codes, uniques = pd.factorize(keys)
    ours = pd.Series(xs.exact_grouped_sum(values, codes, len(uniques)), index=uniques)
    theirs = pd.Series(values).groupby(keys).agg(xs.exact_sum)
    for key in uniques:
        assert_same(ours[key], theirs[key])
        assert_same(ours[key], exact_sum_oracle(terms_of(values[keys == key]), FLOAT64))
    assert_same(quiet(xs.exact_grouped_sum, values, codes, len(uniques), dtype=np.float32)[0],
                exact_sum_oracle(terms_of(values[codes == 0]), FLOAT32))


def test_grouped_sum_of_few_groups_uses_bounded_scratch():
    """Issue 18, defect 4: one group needed three times the input (an order,
    its sort and a sorted copy).  Few groups now go chunk by chunk: the
    scratch (about 35 MiB) does not grow with the input."""
    import tracemalloc
    values = np.ones(12_000_000)                     # 92 MiB
    codes = np.zeros(values.size, np.int8)
    tracemalloc.start()
    try:
        sums = xs.exact_grouped_sum(values, codes, 1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert_same(sums, np.array([12e6]))
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MiB"


@pytest.mark.parametrize("ngroups", [2**16, 2**16 + 1, 200_003])
def test_grouped_sums_of_many_groups(ngroups):
    """More than 2**16 groups sort their codes as two 16-bit digits (LSD
    radix); integer values (exact in float64 sums here) checked against
    exact integer sums per group, with missing codes (-1) and NaN left out."""
    rng = np.random.default_rng(ngroups)
    n = 300_000
    codes = rng.integers(-1, ngroups, n)
    ints = rng.integers(-2**20, 2**20, n)
    values = ints.astype(np.float64)
    values[::97] = np.nan
    exact = np.zeros(ngroups, dtype=object)
    counts = np.zeros(ngroups, dtype=np.int64)
    keep = (codes >= 0) & ~np.isnan(values)
    for code, value in zip(codes[keep].tolist(), ints[keep].tolist()):
        exact[code] += value
        counts[code] += 1
    sums = xs.exact_grouped_sum(values, codes, ngroups, skip_nan=True)
    assert_same(sums, np.array([float(v) for v in exact]))
    means = quiet(xs.exact_grouped_mean, values, codes, ngroups, skip_nan=True)
    want = np.array([float(round_fraction(Fraction(int(v), int(c)), FLOAT64)) if c else np.nan
                     for v, c in zip(exact, counts)])
    assert_same(means, want)


def test_grouped_zero_signs_and_empty_groups():
    """Small groups are summed as rows padded with -0.0: a group of -0.0
    only is -0.0, an empty group +0.0 (exact_sum of nothing), a mixed one
    +0.0; a group large enough for the state path beside them."""
    values = np.array([-0.0, -0.0, 0.0, -0.0, -0.0] + [1.0] * 40 + [np.nan])
    codes = np.array([0, 0, 1, 1, 3] + [4] * 40 + [5])
    sums = xs.exact_grouped_sum(values, codes, 6, skip_nan=True)
    want = np.array([exact_sum_oracle(terms_of(values[(codes == g) & ~np.isnan(values)]),
                                      FLOAT64) for g in range(6)])
    assert_same(sums, want)
    assert np.signbit(sums[0]) and not np.signbit(sums[1]) and not np.signbit(sums[2])
    assert np.signbit(sums[3]) and not np.signbit(sums[5])


def test_grouped_bad_arguments():
    with pytest.raises(ValueError, match="codes"):
        xs.exact_grouped_sum([1.0, 2.0], [0], 1)
    with pytest.raises(ValueError, match="codes"):
        xs.exact_grouped_sum([1.0, 2.0], [0.0, 1.0], 2)
    with pytest.raises(ValueError, match="below ngroups"):
        xs.exact_grouped_sum([1.0, 2.0], [0, 2], 2)
    with pytest.raises(ValueError, match="ngroups"):
        xs.exact_grouped_sum([1.0], [0], -1)
    with pytest.raises(ValueError, match="1-D"):
        xs.exact_grouped_sum(np.ones((2, 2)), np.zeros((2, 2), int), 1)
    with pytest.raises(TypeError, match="unsupported input dtype"):
        xs.exact_grouped_sum(np.array(["x"]), [0], 1)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(xs.exact_grouped_mean([1.0], [0], 2)[1])
