"""xsumufunc.dask_dataframe.exact_cov / exact_corr (issue 32, item 5): bit
for bit the pandas accessor's df.exact.cov()/corr() of the computed frame
and the Fraction oracle on each pair's complete rows, for any partitioning."""

import math

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle_pairs import corr_oracle, cov_oracle

pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")
xdd = pytest.importorskip("xsumufunc.dask_dataframe")

VALUES = st.one_of(st.floats(-1e3, 1e3, width=64),
                   st.floats(-4, 4).map(lambda v: 1e8 + v),       # offset: 1e8 + N(0, 1)-like
                   st.sampled_from([math.nan, math.nan, math.inf, 1e-300, 1e300, 0.0]))


def oracle(df, method, min_periods, ddof=1):
    """The Fraction oracles of complete data (tests/oracle_pairs.py), each
    pair on its own complete rows, with pandas' NaN rules."""
    cols = [df[c].to_numpy(dtype=float) for c in df.columns]
    p = len(cols)
    out = np.full((p, p), np.nan)
    for i in range(p):
        for j in range(p):
            keep = ~(np.isnan(cols[i]) | np.isnan(cols[j]))
            n = int(keep.sum())
            if n < max(min_periods, 1) or (method == "cov" and n - ddof <= 0):
                continue
            x = np.stack([cols[i][keep], cols[j][keep]])
            out[i, j] = (cov_oracle(x, ddof=ddof) if method == "cov" else corr_oracle(x))[0, 1]
    return out


def partitioned(df, cuts):
    """df as a Dask DataFrame cut at `cuts` (any rows, empty parts too)."""
    bounds = [0, *sorted(min(c, len(df)) for c in cuts), len(df)]
    parts = [dask.delayed(df.iloc[a:b]) for a, b in zip(bounds, bounds[1:])]
    return dd.from_delayed(parts, meta=df.iloc[:0])


@st.composite
def frames(draw):
    p = draw(st.integers(1, 4))
    n = draw(st.integers(0, 12))
    return pd.DataFrame({f"c{k}": [draw(VALUES) for _ in range(n)] for k in range(p)},
                        dtype=float)


def compute(lazy):
    return lazy.compute(scheduler="synchronous")


@settings(deadline=None, max_examples=60)
@given(frames(), st.lists(st.integers(0, 12), max_size=4), st.integers(0, 4),
       st.integers(0, 2))
def test_every_entry_is_the_accessor_and_the_oracle(df, cuts, min_periods, ddof):
    ddf = partitioned(df, cuts)
    cov = compute(xdd.exact_cov(ddf, min_periods=min_periods, ddof=ddof))
    corr = compute(xdd.exact_corr(ddf, min_periods=min_periods))
    assert_same(cov.to_numpy(), df.exact.cov(min_periods=min_periods, ddof=ddof).to_numpy())
    assert_same(cov.to_numpy(), oracle(df, "cov", min_periods, ddof))
    assert_same(corr.to_numpy(), df.exact.corr(min_periods=min_periods).to_numpy())
    assert_same(corr.to_numpy(), oracle(df, "corr", min_periods))
    assert list(cov.index) == list(cov.columns) == list(df.columns)
    assert list(corr.index) == list(corr.columns) == list(df.columns)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_offset_columns_with_nans_for_several_partitionings(npartitions):
    rng = np.random.default_rng(npartitions)
    n = 40
    df = pd.DataFrame({"a": 1e8 + rng.standard_normal(n), "b": rng.standard_normal(n),
                       "c": 1e8 + rng.standard_normal(n)})
    for column, rows in (("a", [1, 5]), ("b", [5, 9, 30]), ("c", [0, 39])):
        df.loc[rows, column] = np.nan
    ddf = dd.from_pandas(df, npartitions=npartitions)
    assert_same(compute(xdd.exact_cov(ddf)).to_numpy(), oracle(df, "cov", 1))
    assert_same(compute(xdd.exact_corr(ddf)).to_numpy(), oracle(df, "corr", 1))


def test_lazy_like_dask_and_integer_columns():
    df = pd.DataFrame({"i": [2**60 + 1, 3, -5, 7], "f": [0.5, np.nan, 2.0, 1e8],
                       "s": list("wxyz")})
    ddf = dd.from_pandas(df, npartitions=3)
    lazy = xdd.exact_cov(ddf, numeric_only=True)
    assert isinstance(lazy, dd.DataFrame)
    got = compute(lazy)
    assert_same(got.to_numpy(), df.exact.cov(numeric_only=True).to_numpy())
    assert list(got.columns) == ["i", "f"]
    assert_same(compute(xdd.exact_corr(ddf, numeric_only=True)).to_numpy(),
                df.exact.corr(numeric_only=True).to_numpy())


def test_bad_arguments_are_refused_before_computing():
    ddf = dd.from_pandas(pd.DataFrame({"a": [1.0, 2.0], "s": ["x", "y"]}), npartitions=1)
    with pytest.raises(TypeError, match="column 's'.*numeric_only=True"):
        xdd.exact_cov(ddf)
    with pytest.raises(TypeError, match="min_periods must be an integer"):
        xdd.exact_corr(ddf, min_periods=1.5, numeric_only=True)
    with pytest.raises(TypeError, match="ddf must be a dask.dataframe.DataFrame"):
        xdd.exact_cov(pd.DataFrame({"a": [1.0]}))
