"""Property tests: every result is compared bit for bit with the Fraction
oracle, for every input dtype x result dtype, axis, layout and entry point."""

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given
from hypothesis import strategies as st
from oracle import (
    BFLOAT16,
    BOOL_DTYPE,
    COMPLEX64,
    COMPLEX128,
    COMPONENT_DTYPE,
    FLOAT16,
    FLOAT32,
    FLOAT_DTYPES,
    INT_DTYPES,
    NoValue,
    default_result_dtype,
    oracle_accumulate,
    oracle_reduce,
    oracle_reduceat,
)
from strategies import (
    arrays_1d,
    axis_args,
    nd_arrays,
    shapes,
    where_masks,
)

import xsumufunc as xs


def _id(x):
    return "default" if x is None else str(np.dtype(x))


# (input dtype, dtype= argument); None means the default result dtype
PAIRS = (
    [(i, t) for i in FLOAT_DTYPES for t in [None] + FLOAT_DTYPES]
    + [(COMPLEX64, None), (COMPLEX128, None), (COMPLEX128, COMPLEX64), (COMPLEX64, COMPLEX128)]
    + [(i, None) for i in INT_DTYPES + [BOOL_DTYPE]]
    + [(i, t) for i in (np.dtype(np.int64), np.dtype(np.uint64)) for t in (FLOAT32, FLOAT16, BFLOAT16)]
)
PAIR_IDS = [f"{_id(i)}->{_id(t)}" for i, t in PAIRS]

LAYOUT_DTYPES = FLOAT_DTYPES + [COMPLEX128, np.dtype(np.int64), np.dtype(np.uint64), BOOL_DTYPE]
ND_DTYPES = FLOAT_DTYPES + [COMPLEX64, COMPLEX128, np.dtype(np.int64), np.dtype(np.uint8), BOOL_DTYPE]


def targets_for(dtype):
    dtype = np.dtype(dtype)
    if dtype in COMPONENT_DTYPE:
        return [None, COMPLEX64, COMPLEX128]
    return [None] + FLOAT_DTYPES


def result_dtype(in_dtype, target):
    return default_result_dtype(in_dtype) if target is None else np.dtype(target)


def initial_values(dtype):
    dtype = np.dtype(dtype)
    if dtype in COMPONENT_DTYPE:
        return st.just(NoValue)
    if dtype.kind in "iub":
        return st.sampled_from([NoValue, NoValue, 0, 1, 7])
    # exactly representable in every supported format
    return st.sampled_from([NoValue, NoValue, 0.0, -0.0, 1.0, -2.5, 0.25, 3.0])


def call_kwargs(axis=NoValue, dtype=None, keepdims=False, where=True, initial=NoValue, out=None):
    kw = {}
    if axis is not NoValue:
        kw["axis"] = axis
    if dtype is not None:
        kw["dtype"] = dtype
    if keepdims:
        kw["keepdims"] = True
    if where is not True:
        kw["where"] = where
    if initial is not NoValue:
        kw["initial"] = initial
    if out is not None:
        kw["out"] = out
    return kw


# ---------------------------------------------------------------------------
# 1-D agreement with the oracle, every input x target pair


@pytest.mark.parametrize("in_dtype,target", PAIRS, ids=PAIR_IDS)
@given(data=st.data())
def test_exact_sum_matches_oracle(in_dtype, target, data):
    a = data.draw(arrays_1d(in_dtype, target), label="a")
    expected = oracle_reduce(a, dtype=target)
    assert_same(xs.exact_sum(a, dtype=target), expected)


INPUTS = FLOAT_DTYPES + [COMPLEX64, COMPLEX128] + INT_DTYPES + [BOOL_DTYPE]


@pytest.mark.parametrize("in_dtype", INPUTS, ids=_id)
@given(data=st.data())
def test_exact_sum_out_matches_oracle(in_dtype, data):
    # out= without dtype=: rounded directly into out.dtype
    target = data.draw(st.sampled_from(targets_for(in_dtype)), label="out dtype")
    a = data.draw(arrays_1d(in_dtype, target), label="a")
    rdt = result_dtype(in_dtype, target)
    out = np.full((), 7, dtype=rdt)
    r = xs.exact_sum(a, out=out)
    assert r is out
    assert_same(out, np.asarray(oracle_reduce(a, dtype=rdt)))


# The raw gufunc is specified for real inputs (complex is handled by the
# exact_sum wrapper, per component).
@pytest.mark.parametrize("in_dtype", [d for d in INPUTS if d.kind != "c"], ids=_id)
@given(data=st.data())
def test_exact_sum_ufunc_matches_oracle(in_dtype, data):
    target = data.draw(st.sampled_from(targets_for(in_dtype)), label="dtype")
    a = data.draw(arrays_1d(in_dtype, target), label="a")
    kw = {} if target is None else {"dtype": target}
    assert_same(xs.exact_sum_ufunc(a, **kw), oracle_reduce(a, dtype=target))


# ---------------------------------------------------------------------------
# Order invariance


@pytest.mark.parametrize("in_dtype", FLOAT_DTYPES + [COMPLEX128, np.dtype(np.int64)], ids=_id)
@given(data=st.data())
def test_permutation_invariance(in_dtype, data):
    a = data.draw(arrays_1d(in_dtype), label="a")
    perm = np.array(data.draw(st.permutations(list(range(a.size))), label="perm"), dtype=np.intp)
    r1 = xs.exact_sum(a)
    r2 = xs.exact_sum(a[perm])
    assert_same(r2, r1)
    assert_same(r1, oracle_reduce(a))


@pytest.mark.parametrize("in_dtype", FLOAT_DTYPES + [COMPLEX128, np.dtype(np.uint64)], ids=_id)
@given(data=st.data())
def test_split_and_merge_invariance(in_dtype, data):
    a = data.draw(arrays_1d(in_dtype), label="a")
    n = a.size
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=5), label="cuts"))
    bounds = [0] + cuts + [n]
    chunks = [a[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:])]
    order = data.draw(st.permutations(list(range(len(chunks)))), label="order")
    merged = np.concatenate([chunks[i] for i in order]) if chunks else a
    assert_same(xs.exact_sum(merged), xs.exact_sum(a))
    assert_same(xs.exact_sum(merged), oracle_reduce(a))
    # the chunks as rows of a 2-D (ragged -> padded with zeros of the right sign)
    if len(chunks) >= 1:
        width = max(c.size for c in chunks)
        pad = np.zeros((len(chunks), width), dtype=a.dtype)
        mask = np.zeros((len(chunks), width), dtype=bool)
        for row, i in enumerate(order):
            pad[row, : chunks[i].size] = chunks[i]
            mask[row, : chunks[i].size] = True
        assert_same(xs.exact_sum(pad, where=mask), oracle_reduce(a))


# ---------------------------------------------------------------------------
# N-d: axis, keepdims, out, where, initial, dtype


@pytest.mark.parametrize("in_dtype", ND_DTYPES, ids=_id)
@given(data=st.data())
def test_nd_axis_keepdims_where_initial_out(in_dtype, data):
    a = data.draw(nd_arrays(in_dtype), label="a")
    axis = data.draw(axis_args(a.ndim), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    where = data.draw(where_masks(a.shape), label="where")
    initial = data.draw(initial_values(in_dtype), label="initial")
    target = data.draw(st.sampled_from(targets_for(in_dtype)), label="dtype")
    use_out = data.draw(st.booleans(), label="use_out")
    expected = oracle_reduce(a, axis=axis, dtype=target, keepdims=keepdims, where=where,
                             initial=initial)
    if use_out:
        out = np.full(np.shape(expected), 3, dtype=result_dtype(in_dtype, target))
        r = xs.exact_sum(a, **call_kwargs(axis=axis, keepdims=keepdims, where=where,
                                          initial=initial, out=out))
        assert r is out
        assert_same(out, np.asarray(expected))
    else:
        r = xs.exact_sum(a, **call_kwargs(axis=axis, dtype=target, keepdims=keepdims,
                                          where=where, initial=initial))
        assert_same(r, expected)
        if np.ndim(expected) == 0:
            assert isinstance(r, np.generic)
        else:
            assert isinstance(r, np.ndarray)


@pytest.mark.parametrize("in_dtype", FLOAT_DTYPES + [COMPLEX128], ids=_id)
@given(data=st.data())
def test_nd_nansum(in_dtype, data):
    a = data.draw(nd_arrays(in_dtype), label="a")
    if in_dtype in COMPONENT_DTYPE:
        # only whole-NaN elements, so that element-wise and component-wise
        # skipping agree
        re, im = a.real.copy(), a.imag.copy()
        nan_any = np.isnan(re) | np.isnan(im)
        re[nan_any] = np.nan
        im[nan_any] = np.nan
        a = a.copy()
        a.real, a.imag = re, im
    axis = data.draw(axis_args(a.ndim), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    where = data.draw(where_masks(a.shape), label="where")
    target = data.draw(st.sampled_from(targets_for(in_dtype)), label="dtype")
    expected = oracle_reduce(a, axis=axis, dtype=target, keepdims=keepdims, where=where,
                             skip_nan=True)
    r = xs.exact_nansum(a, **call_kwargs(axis=axis, dtype=target, keepdims=keepdims, where=where))
    assert_same(r, expected)


@pytest.mark.parametrize("in_dtype,target", [(i, t) for i in FLOAT_DTYPES for t in [None] + FLOAT_DTYPES],
                         ids=[f"{_id(i)}->{_id(t)}" for i in FLOAT_DTYPES for t in [None] + FLOAT_DTYPES])
@given(data=st.data())
def test_nansum_1d_matches_oracle(in_dtype, target, data):
    a = data.draw(arrays_1d(in_dtype, target), label="a")
    # sprinkle NaNs
    if a.size:
        idx = data.draw(st.lists(st.integers(0, a.size - 1), max_size=3), label="nan_idx")
        a = a.copy()
        a[idx] = np.nan
    assert_same(xs.exact_nansum(a, dtype=target), oracle_reduce(a, dtype=target, skip_nan=True))


# ---------------------------------------------------------------------------
# Memory layouts


def _lane_axis(data, ndim):
    return data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1)), label="axis")


@pytest.mark.parametrize("in_dtype", LAYOUT_DTYPES, ids=_id)
@given(data=st.data())
def test_fortran_order(in_dtype, data):
    a = data.draw(nd_arrays(in_dtype, min_dims=2), label="a")
    axis = _lane_axis(data, a.ndim)
    f = np.asfortranarray(a)
    assert_same(xs.exact_sum(f, axis=axis), oracle_reduce(a, axis=axis))
    c = np.ascontiguousarray(a)
    assert_same(xs.exact_sum(c, axis=axis), oracle_reduce(a, axis=axis))


@pytest.mark.parametrize("in_dtype", LAYOUT_DTYPES, ids=_id)
@given(data=st.data())
def test_negative_and_non_unit_strides(in_dtype, data):
    a = data.draw(arrays_1d(in_dtype), label="a")
    for v in (a[::-1], a[::-2], a[1::3], a[::2][::-1]):
        assert_same(xs.exact_sum(v), oracle_reduce(np.ascontiguousarray(v)))
    b = data.draw(nd_arrays(in_dtype, min_dims=2, max_dims=2), label="b")
    axis = _lane_axis(data, 2)
    for v in (b[::-1, ::2], b[:, ::-1], b.T[::-1]):
        assert_same(xs.exact_sum(v, axis=axis), oracle_reduce(np.ascontiguousarray(v), axis=axis))


@pytest.mark.parametrize("in_dtype", LAYOUT_DTYPES, ids=_id)
@given(data=st.data())
def test_zero_strides(in_dtype, data):
    a = data.draw(arrays_1d(in_dtype, min_size=1), label="a")
    k = data.draw(st.integers(0, 70), label="k")
    b = np.broadcast_to(a[:1], (k,))
    assert b.strides == (0,)
    assert_same(xs.exact_sum(b), oracle_reduce(np.ascontiguousarray(b)))
    rows = data.draw(st.integers(1, 6), label="rows")
    c = np.broadcast_to(a[:8], (rows, min(a.size, 8)))
    axis = _lane_axis(data, 2)
    assert_same(xs.exact_sum(c, axis=axis), oracle_reduce(np.ascontiguousarray(c), axis=axis))
    d = np.broadcast_to(a[:8, None], (min(a.size, 8), rows))
    assert_same(xs.exact_sum(d, axis=axis), oracle_reduce(np.ascontiguousarray(d), axis=axis))


@pytest.mark.parametrize("in_dtype", LAYOUT_DTYPES, ids=_id)
@given(data=st.data())
def test_byteswapped_input(in_dtype, data):
    a = data.draw(nd_arrays(in_dtype, max_dims=2), label="a")
    swapped = a.astype(a.dtype.newbyteorder())
    assert not swapped.dtype.isnative or a.dtype.itemsize == 1
    axis = _lane_axis(data, a.ndim)
    assert_same(xs.exact_sum(swapped, axis=axis), oracle_reduce(a, axis=axis))


def _unaligned_copy(a):
    itemsize = a.dtype.itemsize
    buf = np.zeros(a.size * itemsize + 1, dtype=np.uint8)
    v = buf[1:].view(a.dtype).reshape(a.shape)
    v[...] = a
    return v


@pytest.mark.parametrize("in_dtype", [d for d in LAYOUT_DTYPES if d.itemsize > 1], ids=_id)
@given(data=st.data())
def test_unaligned_input(in_dtype, data):
    a = data.draw(nd_arrays(in_dtype, max_dims=2), label="a")
    u = _unaligned_copy(a)
    assert a.size == 0 or not u.flags.aligned
    axis = _lane_axis(data, a.ndim)
    assert_same(xs.exact_sum(u, axis=axis), oracle_reduce(a, axis=axis))


@pytest.mark.parametrize("in_dtype", FLOAT_DTYPES, ids=_id)
@given(data=st.data())
def test_unaligned_out(in_dtype, data):
    a = data.draw(nd_arrays(in_dtype, min_dims=2, max_dims=2), label="a")
    expected = oracle_reduce(a, axis=0)
    out = _unaligned_copy(np.zeros(np.shape(expected), dtype=expected.dtype))
    assert out.size == 0 or not out.flags.aligned
    r = xs.exact_sum(a, axis=0, out=out)
    assert r is out
    assert_same(out, expected)


# ---------------------------------------------------------------------------
# exact_add.reduce / accumulate / reduceat


@pytest.mark.parametrize("in_dtype", FLOAT_DTYPES + [COMPLEX128, np.dtype(np.int64)], ids=_id)
@given(data=st.data())
def test_add_reduce_matches_oracle(in_dtype, data):
    a = data.draw(nd_arrays(in_dtype), label="a")
    assert_same(xs.exact_add.reduce(a), oracle_reduce(a, axis=0))
    axis = data.draw(axis_args(a.ndim), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    where = data.draw(where_masks(a.shape), label="where")
    initial = data.draw(initial_values(in_dtype), label="initial")
    target = data.draw(st.sampled_from(targets_for(in_dtype)), label="dtype")
    r = xs.exact_add.reduce(a, **call_kwargs(axis=axis, dtype=target, keepdims=keepdims,
                                             where=where, initial=initial))
    assert_same(r, oracle_reduce(a, axis=axis, dtype=target, keepdims=keepdims, where=where,
                                 initial=initial))


@pytest.mark.parametrize("in_dtype", FLOAT_DTYPES, ids=_id)
@given(data=st.data())
def test_add_accumulate_matches_oracle_1d(in_dtype, data):
    target = data.draw(st.sampled_from([None] + FLOAT_DTYPES), label="dtype")
    a = data.draw(arrays_1d(in_dtype, target), label="a")
    expected = oracle_accumulate(a, dtype=target)
    kw = {} if target is None else {"dtype": target}
    assert_same(xs.exact_add.accumulate(a, **kw), expected)
    out = np.full(a.shape, 5, dtype=result_dtype(in_dtype, target))
    r = xs.exact_add.accumulate(a, out=out, **kw)
    assert r is out
    assert_same(out, expected)


@pytest.mark.parametrize("in_dtype", FLOAT_DTYPES, ids=_id)
@given(data=st.data())
def test_add_accumulate_matches_oracle_nd(in_dtype, data):
    a = data.draw(nd_arrays(in_dtype), label="a")
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1), label="axis")
    assert_same(xs.exact_add.accumulate(a, axis=axis), oracle_accumulate(a, axis=axis))
    if a.ndim >= 1:
        assert_same(xs.exact_add.accumulate(a), oracle_accumulate(a, axis=0))


@pytest.mark.parametrize("in_dtype", FLOAT_DTYPES, ids=_id)
@given(data=st.data())
def test_add_reduceat_matches_oracle(in_dtype, data):
    target = data.draw(st.sampled_from([None] + FLOAT_DTYPES), label="dtype")
    a = data.draw(arrays_1d(in_dtype, target, min_size=1), label="a")
    indices = data.draw(st.lists(st.integers(0, a.size - 1), min_size=1, max_size=8), label="indices")
    kw = {} if target is None else {"dtype": target}
    assert_same(xs.exact_add.reduceat(a, indices, **kw), oracle_reduceat(a, indices, dtype=target))
    out = np.full(len(indices), 9, dtype=result_dtype(in_dtype, target))
    r = xs.exact_add.reduceat(a, indices, out=out, **kw)
    assert r is out
    assert_same(out, oracle_reduceat(a, indices, dtype=target))


@pytest.mark.parametrize("in_dtype", FLOAT_DTYPES, ids=_id)
@given(data=st.data())
def test_add_reduceat_nd(in_dtype, data):
    shape = data.draw(shapes(min_dims=2, max_dims=3).filter(lambda s: min(s) >= 1), label="shape")
    a = data.draw(nd_arrays(in_dtype, shape=shape), label="a")
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1), label="axis")
    n = a.shape[axis]
    indices = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=6), label="indices")
    assert_same(xs.exact_add.reduceat(a, indices, axis=axis),
                oracle_reduceat(a, indices, axis=axis))


# ---------------------------------------------------------------------------
# raw gufunc on n-d input


@pytest.mark.parametrize("in_dtype", FLOAT_DTYPES + [np.dtype(np.int32)], ids=_id)
@given(data=st.data())
def test_gufunc_nd_axis(in_dtype, data):
    a = data.draw(nd_arrays(in_dtype), label="a")
    assert_same(xs.exact_sum_ufunc(a), oracle_reduce(a, axis=-1))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1), label="axis")
    target = data.draw(st.sampled_from(targets_for(in_dtype)), label="dtype")
    kw = {} if target is None else {"dtype": target}
    assert_same(xs.exact_sum_ufunc(a, axis=axis, **kw), oracle_reduce(a, axis=axis, dtype=target))
