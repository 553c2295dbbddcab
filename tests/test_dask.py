"""Dask arrays through exact_sum/exact_mean & co.: exact states up the
reduction tree, bit-identical to the NumPy result for every chunking."""


import numpy as np
import pytest
from helpers import assert_same, local_cluster_client, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import (
    BFLOAT16,
    COMPLEX64,
    COMPLEX128,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    oracle_accumulate,
    oracle_reduce,
)
from oracle_products import oracle_dot, oracle_mean_reduce
from strategies import axis_args, nd_arrays, where_masks

import xsumufunc as xs

da = pytest.importorskip("dask.array")

FUNCS = {
    "exact_sum": (xs.exact_sum, False, False),
    "exact_nansum": (xs.exact_nansum, False, True),
    "exact_mean": (xs.exact_mean, True, False),
    "exact_nanmean": (xs.exact_nanmean, True, True),
}


@st.composite
def chunkings(draw, shape):
    """Any chunking of `shape`: per axis, block sizes that add up to its length."""
    chunks = []
    for n in shape:
        sizes, left = [], n
        while left > 0:
            size = draw(st.integers(1, left))
            sizes.append(size)
            left -= size
        chunks.append(tuple(sizes) or (0,))
    return tuple(chunks)


def _oracle(name, a, axis, keepdims, where, dtype=None):
    _, mean, skip_nan = FUNCS[name]
    if mean:
        return oracle_mean_reduce(a, axis, dtype=dtype, keepdims=keepdims, where=where,
                                  skip_nan=skip_nan)
    return oracle_reduce(a, axis, dtype=dtype, keepdims=keepdims, where=where,
                         skip_nan=skip_nan)


@given(data=st.data(), dtype=st.sampled_from([FLOAT64, FLOAT32, COMPLEX128,
                                              np.dtype(np.int16)]),
       name=st.sampled_from(sorted(FUNCS)))
def test_every_chunking_gives_the_numpy_result(data, dtype, name):
    func = FUNCS[name][0]
    a = data.draw(nd_arrays(dtype))
    axis = data.draw(axis_args(a.ndim))
    keepdims = data.draw(st.booleans())
    where = data.draw(where_masks(a.shape))
    d = da.from_array(a, chunks=data.draw(chunkings(a.shape)))
    lazy = func(d, axis=axis, keepdims=keepdims, where=where)
    assert isinstance(lazy, da.Array)
    got = quiet(lazy.compute)
    expected = _oracle(name, a, axis, keepdims, where)
    assert_same(got, expected)
    assert_same(got, quiet(func, a, axis=axis, keepdims=keepdims, where=where))
    assert lazy.dtype == np.asarray(expected).dtype and lazy.shape == np.shape(expected)


@given(data=st.data(), result=st.sampled_from([FLOAT32, BFLOAT16]))
def test_result_dtype_is_rounded_once(data, result):
    a = data.draw(nd_arrays(FLOAT64))
    axis = data.draw(axis_args(a.ndim))
    d = da.from_array(a, chunks=data.draw(chunkings(a.shape)))
    got = quiet(xs.exact_sum(d, axis=axis, dtype=result).compute)
    assert_same(got, oracle_reduce(a, axis, dtype=result))


def test_dask_mask_and_initial():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((30, 20)) * 10.0 ** rng.integers(-30, 30, (30, 20))
    mask = rng.random((30, 20)) < 0.6
    d = da.from_array(a, chunks=(7, 6))
    dm = da.from_array(mask, chunks=(5, 20))
    assert_same(xs.exact_sum(d, axis=0, where=dm).compute(),
                oracle_reduce(a, 0, where=mask))
    assert_same(xs.exact_mean(d, axis=1, where=mask[0]).compute(),
                oracle_mean_reduce(a, 1, where=mask[0]))
    assert_same(xs.exact_sum(d, axis=1, initial=1e300).compute(),
                oracle_reduce(a, 1, initial=1e300))
    assert_same(xs.exact_add.reduce(d).compute(), oracle_reduce(a, 0))


def test_empty_and_all_nan():
    d = da.from_array(np.full((4, 6), np.nan), chunks=(2, 4))
    assert_same(xs.exact_nansum(d, axis=1).compute(), np.zeros(4))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = xs.exact_nanmean(d, axis=0).compute()
    assert np.isnan(got).all() and got.shape == (6,)
    empty = da.zeros((0, 3), chunks=(1, 2))
    assert_same(xs.exact_sum(empty, axis=0).compute(), np.zeros(3))


def test_bad_arguments():
    d = da.ones((4, 4), chunks=2)
    with pytest.raises(NotImplementedError, match="out="):
        xs.exact_sum(d, out=np.empty(4))
    with pytest.raises(np.exceptions.AxisError):
        xs.exact_sum(d, axis=2)
    with pytest.raises(TypeError, match="dtype"):
        xs.exact_sum(d, dtype=np.int32)
    with pytest.raises(TypeError, match="unsupported input dtype"):
        xs.exact_sum(da.from_array(np.array(["a", "b"])))
    with pytest.raises(ValueError, match="where"):
        xs.exact_sum(d, where=np.ones(3, bool))
    with pytest.raises(TypeError, match="initial"):
        xs.exact_sum(d, initial=1j)


@given(data=st.data(), dtype=st.sampled_from([FLOAT64, FLOAT32, COMPLEX128,
                                              np.dtype(np.int64), np.dtype(np.uint64)]))
def test_accumulate_across_chunks(data, dtype):
    a = data.draw(nd_arrays(dtype))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    d = da.from_array(a, chunks=data.draw(chunkings(a.shape)))
    try:
        got = quiet(xs.exact_add.accumulate(d, axis=axis).compute)
    except NotImplementedError as exc:
        # Only when a running sum beyond 64 * 2**1023 crosses a chunk boundary.
        assert "rechunk the axis into one chunk" in str(exc)
        assert np.isinf(quiet(xs.exact_add.accumulate, a, axis=axis)).any()
        return
    assert_same(got, oracle_accumulate(a, axis))
    assert_same(got, quiet(xs.exact_add.accumulate, a, axis=axis))


def test_accumulate_signed_zeros_specials_and_dtype():
    y = np.array([-0.0, -0.0, 0.0, 1e300, -1e300, 2.0**-1074, np.inf, 1.0, -np.inf, 2.0])
    for n in (1, 2, 3):
        d = da.from_array(y, chunks=n)
        assert_same(quiet(xs.exact_add.accumulate(d).compute), oracle_accumulate(y))
        assert_same(quiet(xs.exact_add.accumulate(d, dtype=np.float32).compute),
                    oracle_accumulate(y, dtype=FLOAT32))
    # Running sums past the float64 range cross chunk boundaries, then come back.
    back = np.array([1.7e308] * 5 + [-1.7e308] * 5 + [1.0, -2.0**-1074, 3e307])
    for n in (1, 2, 4):
        got = quiet(xs.exact_add.accumulate(da.from_array(back, chunks=n)).compute)
        assert_same(got, oracle_accumulate(back))
        assert_same(quiet(xs.exact_add.accumulate(da.from_array(-back, chunks=n)).compute),
                    oracle_accumulate(-back))
    with pytest.warns(RuntimeWarning, match="overflow"):
        xs.exact_add.accumulate(da.from_array(back, chunks=2)).compute()
    big = da.from_array(np.full(100, 1.7e308), chunks=50)        # 94 times 2**1023
    with pytest.raises(NotImplementedError, match="rechunk"):
        quiet(xs.exact_add.accumulate(big).compute)
    with pytest.raises(NotImplementedError, match="out="):
        xs.exact_add.accumulate(d, out=np.empty(10))


@pytest.mark.parametrize("da_, db_", [(np.int32, np.int8), (np.int8, np.int8),
                                     (np.int64, np.uint16), (np.bool_, np.int32)])
def test_integer_zero_dots_are_plus_zero(da_, db_):
    """Integer products are integers: a zero dot is +0, as exact_sum of the
    same products and the NumPy path give (found by test_dot_every_chunking:
    the Dask path gave -0.0 for [-1] . [0])."""
    a = np.array([-1, 0, 1], da_) if da_ is not np.bool_ else np.array([True, False, True])
    b = np.array([0, -1, 0], db_) if db_ is not np.uint16 else np.array([0, 5, 0], db_)
    for chunks in (1, 2, 3):
        got = xs.exact_dot(da.from_array(a, chunks=chunks), da.from_array(b, chunks=chunks))
        assert_same(got.compute(), np.float64(0.0))
        assert_same(got.compute(), xs.exact_dot(a, b))


def check_dot_chunked(data, dtypes):
    """Draw a, b (dtypes), an axis and chunkings; check that exact_dot of the
    Dask arrays gives NumPy's bits and the oracle's; return them."""
    a = data.draw(nd_arrays(dtypes[0], max_dims=2))
    b = data.draw(nd_arrays(dtypes[1], shape=a.shape))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    da_ = da.from_array(a, chunks=data.draw(chunkings(a.shape)))
    db_ = da.from_array(b, chunks=data.draw(chunkings(b.shape)))
    got = quiet(xs.exact_dot(da_, db_, axis=axis).compute)
    assert_same(got, quiet(xs.exact_dot, a, b, axis=axis))
    # (the oracle's default dtype for integer-with-float32 pairs is not exact_dot's)
    assert_same(got, oracle_dot(a, b, axis, dtype=np.asarray(got).dtype))
    return a, b, axis, da_, db_


@given(data=st.data(),
       dtypes=st.sampled_from([(FLOAT32, FLOAT32), (FLOAT16, BFLOAT16), (FLOAT64, FLOAT64),
                               (np.dtype(np.int16), FLOAT32), (COMPLEX64, FLOAT32),
                               (COMPLEX64, COMPLEX64), (COMPLEX128, FLOAT64),
                               (np.dtype(np.int32), np.dtype(np.int8))]))
def test_dot_every_chunking(data, dtypes):
    a, b, axis, da_, db_ = check_dot_chunked(data, dtypes)
    kept = quiet(xs.exact_dot(da_, db_, axis=axis, keepdims=True).compute)
    assert_same(kept, quiet(xs.exact_dot, a, b, axis=axis, keepdims=True))


def test_float64_dot_state_keeps_extreme_products_across_chunks():
    # Products that overflow float64 or fall below 2^-1074 live in the dot
    # state's scaled parts; every chunking must still give the exact result.
    rng = np.random.default_rng(12)
    a = rng.standard_normal(600) * np.ldexp(1.0, rng.integers(-560, 560, 600))
    b = rng.standard_normal(600) * np.ldexp(1.0, rng.integers(-560, 560, 600))
    a[:4], b[:4] = [1e300, -1e300, 1e-300, 3.0], [1e300, 1e300, 1e-300, 2.0**-1074]
    expected = oracle_dot(a, b)
    for chunks in (1, 7, 128, 600):
        got = quiet(xs.exact_dot(da.from_array(a, chunks=chunks),
                                  da.from_array(b, chunks=chunks)).compute)
        assert_same(got, expected)


def test_dot_broadcasts_and_rounds_into_dtype():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((6, 9)).astype(np.float32)
    v = rng.standard_normal(9).astype(np.float32)
    got = xs.exact_dot(da.from_array(a, chunks=(4, 2)), v, dtype=BFLOAT16).compute()
    assert_same(got, oracle_dot(a, v, dtype=BFLOAT16))
    with pytest.raises(ValueError, match="different lengths"):
        xs.exact_dot(da.ones((3, 4)), da.ones(3))
    with pytest.raises(NotImplementedError, match="out="):
        xs.exact_dot(da.ones(3), da.ones(3), out=np.empty(()))


# ---- on a cluster: the same bits for any worker count and scheduler ------

@pytest.fixture(scope="module", params=[pytest.param(True, marks=pytest.mark.slow), False],
                ids=["processes", "threads"])
def client(request):
    yield from local_cluster_client(request.param)


def test_on_a_local_cluster(client):
    rng = np.random.default_rng(11)
    a = rng.standard_normal((60, 24)) * 10.0 ** rng.integers(-40, 40, (60, 24))
    a[3, 4] = np.nan
    b = (rng.standard_normal((60, 24)) * 10.0 ** rng.integers(-15, 15, (60, 24))
         ).astype(np.float32)
    expected_sum = oracle_reduce(a, 0, skip_nan=True)
    expected_total = oracle_reduce(b, None)
    expected_mean = oracle_mean_reduce(b, (0, 1))
    for chunks in [(60, 24), (13, 7), (20, 1), (1, 24)]:
        d = da.from_array(a, chunks=chunks)
        assert_same(client.compute(xs.exact_nansum(d, axis=0)).result(), expected_sum)
        e = da.from_array(b, chunks=chunks)
        assert_same(client.compute(xs.exact_sum(e)).result(), expected_total)
        assert_same(client.compute(xs.exact_mean(e, axis=(0, 1))).result(), expected_mean)
        assert_same(client.compute(xs.exact_add.accumulate(e[:6], axis=1)).result(),
                    oracle_accumulate(b[:6], axis=1))
    assert len(client.scheduler_info()["workers"]) == 2


def test_dask_where_must_be_booleans():
    with pytest.raises(TypeError, match="where must be booleans"):
        xs.exact_sum(da.ones(3), where=None)
    with pytest.raises(TypeError, match="where must be booleans"):
        xs.exact_mean(da.ones(3), where=da.ones(3))


def test_empty_input_with_a_numpy_where():
    """Regression: a zero-size dask input with a NumPy where= raised
    ZeroDivisionError inside da.asarray (dask's automatic chunking)."""
    x = da.zeros((600, 1, 0), chunks=(100, 1, 1))
    got = xs.exact_sum(x, axis=-1, where=np.ones((600, 1, 0), bool)).compute()
    assert_same(got, oracle_reduce(np.zeros((600, 1, 0)), -1))
    # In this thread (the warning is raised where the blocks are computed).
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = xs.exact_mean(x, axis=-1, where=np.ones((600, 1, 0), bool)).compute(
            scheduler="sync")
    assert got.shape == (600, 1) and np.isnan(got).all()


@given(data=st.data(), dtypes=st.sampled_from([(np.int64, np.int64), (np.uint64, FLOAT64),
                                               (np.int64, np.uint64), (np.int64, COMPLEX128)]))
def test_wide_integers_every_chunking(data, dtypes):
    """64-bit integers beyond 2**53 (split into exact halves in each block):
    exact_dot, exact_var/std and the moving sums give the NumPy bits, which
    the oracle checks, for every chunking."""
    a, b, axis, da_, db_ = check_dot_chunked(data, dtypes)
    for func in (xs.exact_var, xs.exact_std, xs.exact_nanvar):
        assert_same(quiet(func(da_, axis=axis).compute), quiet(func, a, axis=axis))
    if a.shape[axis] == 0:
        return
    window = data.draw(st.integers(1, a.shape[axis]))
    for func in (xs.exact_moving_sum, xs.exact_moving_mean):
        assert_same(func(da_, window, axis=axis, min_count=1).compute(),
                    func(a, window, axis=axis, min_count=1))


def test_wide_integer_dot_across_chunks_is_exact():
    a = np.array([2**63 - 1, -2**63, 2**53 + 1, -(2**53), 2**62 + 1, 3], np.int64)
    b = np.array([1, 1, 1, 1, 2**64 - 1, 3], np.uint64)
    expected = oracle_dot(a, b)
    for chunks in (1, 2, 4, 6):
        got = xs.exact_dot(da.from_array(a, chunks=chunks), da.from_array(b, chunks=chunks))
        assert_same(got.compute(), expected)
