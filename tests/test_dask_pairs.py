"""The pairs functions and exact_matmul on dask arrays: lazy, and the NumPy
bits for every chunking (blocks of observations add up exactly)."""

import warnings

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st

import xsumufunc as xs

da = pytest.importorskip("dask.array")

RNG = np.random.default_rng(7)
X = 1e8 + RNG.standard_normal((3, 40))
X[1, 5] = 1e300
W = RNG.integers(0, 4, 40)
A = RNG.random(40)


def _chunks(draw, n):
    cuts = sorted(set(draw(st.lists(st.integers(1, n - 1), max_size=4))))
    sizes = [b - a for a, b in zip([0] + cuts, cuts + [n])]
    return tuple(sizes)


@settings(max_examples=15)
@given(st.data())
def test_cov_corrcoef_and_regression_have_the_numpy_bits(data):
    chunks = _chunks(data.draw, X.shape[1])
    lazy = da.from_array(X, chunks=(1, chunks))
    got = xs.exact_cov(lazy, fweights=W, aweights=A)
    assert isinstance(got, da.Array)
    assert_same(got.compute(), xs.exact_cov(X, fweights=W, aweights=A))
    assert_same(xs.exact_cov(lazy.T, rowvar=False).compute(), xs.exact_cov(X))
    assert_same(xs.exact_corrcoef(lazy).compute(), xs.exact_corrcoef(X))
    line = xs.exact_linear_regression(lazy[0], lazy[2])
    expected = xs.exact_linear_regression(X[0], X[2])
    assert type(line) is type(expected)
    assert_same(line.slope.compute(), expected.slope)
    assert_same(line.intercept.compute(), expected.intercept)


@settings(max_examples=15)
@given(st.data())
def test_average_and_matmul_have_the_numpy_bits(data):
    chunks = _chunks(data.draw, X.shape[1])
    lazy = da.from_array(X, chunks=(2, chunks))
    assert_same(xs.exact_average(lazy, axis=1, weights=A).compute(),
                xs.exact_average(X, axis=1, weights=A))
    assert_same(xs.exact_average(lazy, weights=np.broadcast_to(A, X.shape)).compute(),
                xs.exact_average(X, weights=np.broadcast_to(A, X.shape)))
    assert_same(xs.exact_average(lazy, axis=1, weights=A, keepdims=True).compute(),
                xs.exact_average(X, axis=1, weights=A, keepdims=True))
    b = RNG.standard_normal((40, 5))
    assert_same(xs.exact_matmul(lazy, da.from_array(b, chunks=(chunks, 2))).compute(),
                xs.exact_matmul(X, b))
    assert_same(xs.exact_matmul(lazy[0], b).compute(), xs.exact_matmul(X[0], b))


def test_errors_and_zero_weights():
    lazy = da.from_array(X, chunks=(1, 10))
    with pytest.raises(ZeroDivisionError):
        xs.exact_average(lazy, axis=1, weights=np.zeros(40)).compute()
    with pytest.raises(TypeError, match="dask arrays take"):
        xs.exact_average(lazy, axis=(0, 1), weights=np.ones(X.shape))
    with pytest.raises(ValueError, match="fweights cannot be negative"):
        xs.exact_cov(lazy, fweights=-np.ones(40, int)).compute()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(xs.exact_cov(lazy[:, :1]).compute()).all()
