"""df.exact.cov(), df.exact.corr() and df.exact.average() against the
Fraction oracle: pandas' pairwise-complete observations and min_periods."""

import math
from fractions import Fraction

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given
from hypothesis import strategies as st
from oracle import round_fraction
from oracle_roots import rounded_sqrt

pd = pytest.importorskip("pandas")
import xsumufunc.pandas_accessor  # noqa: E402, F401  (registers df.exact)

F64 = np.dtype(np.float64)
VALUES = st.one_of(st.integers(-3, 3).map(float), st.floats(-1e3, 1e3, width=64),
                   st.sampled_from([1e8 + 0.5, 1e8 - 2.0, 1e-300, 1e300, math.nan, math.inf]))


def _pair(x, y):
    keep = [(Fraction(u), Fraction(v)) for u, v in zip(x, y)
            if not (math.isnan(u) or math.isnan(v))]
    return keep


def _centered(keep):
    n = len(keep)
    mx = sum(u for u, _ in keep) / n
    my = sum(v for _, v in keep) / n
    sxy = sum((u - mx) * (v - my) for u, v in keep)
    sxx = sum((u - mx) ** 2 for u, _ in keep)
    syy = sum((v - my) ** 2 for _, v in keep)
    return sxy, sxx, syy


def oracle(df, method, min_periods, ddof=1):
    cols = [df[c].to_numpy(dtype=float) for c in df.columns]
    p = len(cols)
    out = np.full((p, p), np.nan)
    for i in range(p):
        for j in range(p):
            pairs_ = [(u, v) for u, v in zip(cols[i], cols[j])
                      if not (math.isnan(u) or math.isnan(v))]
            n = len(pairs_)
            if n < max(min_periods, 1) or any(math.isinf(u) or math.isinf(v) for u, v in pairs_):
                continue
            sxy, sxx, syy = _centered([(Fraction(u), Fraction(v)) for u, v in pairs_])
            if method == "cov":
                if n - ddof > 0:
                    out[i, j] = round_fraction(sxy / (n - ddof), F64)
            elif sxx and syy:
                r = 1.0 if i == j else rounded_sqrt(sxy * sxy / (sxx * syy), F64)
                out[i, j] = -r if sxy < 0 else r
    return out


@st.composite
def frames(draw):
    p = draw(st.integers(1, 3))
    n = draw(st.integers(0, 6))
    data = {f"c{k}": [draw(VALUES) for _ in range(n)] for k in range(p)}
    return pd.DataFrame(data, dtype=float)


@given(frames(), st.integers(0, 4))
def test_cov_and_corr_are_pandas_rules_exactly(df, min_periods):
    assert_same(df.exact.cov(min_periods=min_periods).to_numpy(),
                oracle(df, "cov", min_periods))
    assert_same(df.exact.corr(min_periods=min_periods).to_numpy(),
                oracle(df, "corr", min_periods))
    got = df.exact.cov()
    assert list(got.index) == list(df.columns) == list(got.columns)


def test_offset_columns_and_errors():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": 1e8 + rng.standard_normal(50), "b": rng.standard_normal(50)})
    df.loc[3, "b"] = np.nan
    assert_same(df.exact.cov().to_numpy(), oracle(df, "cov", 1))
    assert_same(df.exact.corr().to_numpy(), oracle(df, "corr", 1))
    with pytest.raises(ValueError, match="pearson"):
        df.exact.corr(method="spearman")
    with pytest.raises(TypeError, match="not numeric"):
        pd.DataFrame({"s": ["x", "y"]}).exact.cov()
    assert pd.DataFrame({"s": ["x", "y"], "a": [1.0, 2.0]}).exact.cov(
        numeric_only=True).shape == (1, 1)


def test_average_weights_and_skipna():
    df = pd.DataFrame({"x": [1e16, 1.0, -1e16, np.nan], "y": [1.0, 2.0, 3.0, 4.0],
                       "w": [1.0, 3.0, 1.0, 2.0]})
    got = df.exact.average(weights="w")
    assert list(got.index) == ["x", "y"]
    assert_same(got.to_numpy(), np.array([round_fraction(Fraction(3, 5), F64),
                                          round_fraction(Fraction(1 + 6 + 3 + 8, 7), F64)]))
    rows = df[["y", "w"]].exact.average(weights=[1, 3], axis=1)
    assert_same(rows.to_numpy(), np.array([0.25 * 1 + 0.75 * 1, 2.75, 3.0 * 0.25 + 0.75,
                                           4.0 * 0.25 + 1.5]))
    assert_same(df.exact.average().to_numpy(), df.exact.mean().to_numpy())
    with pytest.raises(ValueError, match="weights must be 4 values"):
        df.exact.average(weights=[1.0, 2.0])
    with pytest.raises(ZeroDivisionError):
        df[["y"]].exact.average(weights=[1.0, -1.0, 0.0, 0.0])
