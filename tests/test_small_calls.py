"""The short paths of small calls (exact_dot of two float vectors, exact_var
and exact_std of a short float64 vector, the nan-variants of small NaN-free
arrays) give the bits of the general paths and of the exact oracle."""

import math
import warnings

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given
from hypothesis import strategies as st
from oracle import FLOAT32, FLOAT64, exact_sum_oracle, oracle_accumulate, oracle_reduce, terms_of
from oracle_moments import check as check_var
from oracle_products import oracle_dot
from strategies import arrays_1d

import xsumufunc as xs


@given(data=st.data(), dtype=st.sampled_from([FLOAT64, FLOAT32]))
def test_dot_of_two_vectors(data, dtype):
    a = data.draw(arrays_1d(dtype, min_size=1))
    b = data.draw(arrays_1d(dtype, min_size=len(a)))[:len(a)]
    with np.errstate(all="ignore"):
        got = xs.exact_dot(a, b)
        assert_same(got, xs.exact_dot(a, b, axis=0))      # the general path
    assert_same(got, oracle_dot(a, b))


@given(data=st.data(), ddof=st.sampled_from([0, 1, 2]), std=st.booleans())
def test_var_and_std_of_a_short_vector(data, ddof, std):
    x = data.draw(arrays_1d(FLOAT64, min_size=1))
    func = xs.exact_std if std else xs.exact_var
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        got = func(x, ddof=ddof)
        assert_same(got, func(x, axis=0, ddof=ddof))     # the general path
    check_var(got, terms_of(x), ddof, FLOAT64, std)


@given(data=st.data(), dtype=st.sampled_from([FLOAT64, FLOAT32]))
def test_nan_variants_without_nan(data, dtype):
    x = data.draw(arrays_1d(dtype, specials=False))
    assert_same(xs.exact_nansum(x), exact_sum_oracle(terms_of(x), dtype))
    assert_same(xs.exact_nansum(x), xs.exact_sum(x))
    if x.size:
        assert_same(xs.exact_nanmean(x), xs.exact_mean(x))


@given(data=st.data(), dtype=st.sampled_from([FLOAT64, FLOAT32]))
def test_norm_of_a_vector(data, dtype):
    from xsumufunc import array_api as xp

    x = data.draw(arrays_1d(dtype))
    with np.errstate(all="ignore"):
        got = xp.linalg.vector_norm(x)
        assert type(got) is np.ndarray and got.shape == () and got.dtype == dtype
        assert_same(got, xp.linalg.vector_norm(x, axis=0))      # the general path
        assert_same(got, xp.linalg.vector_norm(x, keepdims=True)[0])


def _few_codes(data, size, ngroups):
    """Codes of any integer dtype for `size` values, with -1 (left out)
    where the dtype is signed, and strided now and then."""
    dtype = data.draw(st.sampled_from([np.int64, np.int32, np.uint8, np.uint64]))
    low = -1 if np.dtype(dtype).kind == "i" else 0
    codes = np.array(data.draw(st.lists(st.integers(low, ngroups - 1), min_size=size,
                                        max_size=size)), dtype=dtype)
    if data.draw(st.booleans()):
        codes = np.repeat(codes, 2)[::2]          # a strided view of the same codes
    return codes


@given(data=st.data(), ngroups=st.integers(1, 5), mean=st.booleans())
def test_grouped_sum_and_mean_of_a_few_values(data, ngroups, mean):
    """The short path of exact_grouped_sum and exact_grouped_mean (one
    compiled call, an accumulator per group) against the general path and
    the oracle, for codes of any integer dtype (a -1 leaves its value out);
    an empty group's mean is NaN with one warning on both paths."""
    from oracle_products import exact_mean_oracle

    x = data.draw(arrays_1d(FLOAT64))
    if data.draw(st.booleans()):
        x = np.repeat(x, 2)[::2]                  # strided values
    codes = _few_codes(data, x.size, ngroups)
    func, oracle = ((xs.exact_grouped_mean, exact_mean_oracle) if mean
                    else (xs.exact_grouped_sum, exact_sum_oracle))
    kept = codes.astype(np.int64)
    empty = mean and np.bincount(kept[kept >= 0], minlength=ngroups).min() == 0
    with np.errstate(all="ignore"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = func(x, codes, ngroups)
        short = len(caught)
        # The general path: ngroups as a NumPy integer.
        assert_same(got, func(x, codes, np.int64(ngroups)))
    assert short == int(empty) and len(caught) == 2 * int(empty)
    assert all(w.category is RuntimeWarning and w.filename == __file__ for w in caught)
    for g in range(ngroups):
        assert_same(got[g], oracle(terms_of(x[kept == g]), FLOAT64))


@pytest.mark.parametrize("mean", [False, True])
@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.uint64])
def test_grouped_codes_beyond_ngroups_keep_their_error(mean, dtype):
    func = xs.exact_grouped_mean if mean else xs.exact_grouped_sum
    name = func.__name__
    codes = np.array([0, 2, 1], dtype)
    with pytest.raises(ValueError, match=f"{name}: codes must be below ngroups \\(2\\); found 2"):
        func(np.ones(3), codes, 2)
    if dtype is np.uint64:
        huge = np.array([0, 2**64 - 1, 1], dtype)     # negative as int64: out of range too
        with pytest.raises(ValueError, match=f"{name}: codes must be below ngroups"):
            func(np.ones(3), huge, 2)


# The plain gufunc calls of exact_add.reduce and exact_add.accumulate: every
# dtype whose loop rounds into its default result, 1-D and 2-D, any int axis.
PLAIN = [FLOAT64, FLOAT32, np.dtype(np.float16), np.dtype(np.int64), np.dtype(np.uint8),
         np.dtype(np.bool_)]


@given(data=st.data(), dtype=st.sampled_from(PLAIN), rows=st.integers(0, 3))
def test_add_reduce_and_accumulate_of_small_arrays(data, dtype, rows):
    x = data.draw(arrays_1d(dtype, min_size=1))
    a = x if rows == 0 else np.stack([x] * rows) if rows < 3 else np.stack([x, x[::-1], x])
    axes = [0, -1] if a.ndim == 1 else [0, 1, -1, -2]
    with np.errstate(all="ignore"):
        for axis in axes:
            got = xs.exact_add.reduce(a, axis)
            assert_same(got, oracle_reduce(a, axis))
            assert_same(got, xs.exact_add.reduce(a, axis, out=np.empty_like(got)))  # general
            prefix = xs.exact_add.accumulate(a, axis)
            assert_same(prefix, oracle_accumulate(a, axis))
            assert_same(prefix, xs.exact_add.accumulate(a, axis, out=np.empty_like(prefix)))


@given(data=st.data(), ndim=st.integers(1, 2))
def test_average_of_two_float64_arrays(data, ndim):
    """exact_average(a, weights=w) of two float64 arrays of one shape (the
    short path: one dot state, one sum state) against the general path
    (an explicit axis tuple) and the oracle; a NaN or Inf, or weights
    summing to zero exactly, leave it for the general path (the same
    result or ZeroDivisionError)."""
    from oracle_pairs import average_oracle

    a = data.draw(arrays_1d(FLOAT64, min_size=1))
    w = data.draw(arrays_1d(FLOAT64, min_size=a.size))[:a.size]
    if data.draw(st.booleans()):
        w = np.abs(w)
    if ndim == 2 and a.size % 2 == 0:
        a, w = a.reshape(2, -1), w.reshape(2, -1)
    axes = tuple(range(a.ndim))
    with np.errstate(all="ignore"):
        try:
            got = xs.exact_average(a, weights=w)
        except ZeroDivisionError:
            with pytest.raises(ZeroDivisionError):
                xs.exact_average(a, axis=axes, weights=w)
            return
        assert_same(got, xs.exact_average(a, axis=axes, weights=w))
    assert type(got) is np.float64
    if np.all(np.isfinite(a)) and np.all(np.isfinite(w)):
        assert_same(got, average_oracle(a.ravel().tolist(), w.ravel().tolist()))


_MATMUL_VALUES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(-3, 3).map(float),
    st.sampled_from([1e8 + 0.5, 1e154, -1e154, 1e-160, -1e-170, 2.0**-1074, 1e300, -0.0,
                     math.inf, -math.inf, math.nan]))


@given(data=st.data(), dtype=st.sampled_from([FLOAT64, FLOAT32]))
def test_matmul_of_small_matrices(data, dtype):
    """exact_matmul of two small 2-D float arrays of one dtype (the short
    paths: one broadcast exact dot call, or IEEE products for an inner
    dimension of 1) against the general path (the operands byte-swapped)
    and the exact dot oracle of every entry."""
    from oracle_products import exact_dot_oracle

    n, k, m = (data.draw(st.integers(1, 5)) for _ in range(3))
    if data.draw(st.booleans()):
        k = 1
    with np.errstate(all="ignore"):
        a = np.array([data.draw(_MATMUL_VALUES) for _ in range(n * k)]).astype(dtype)
        b = np.array([data.draw(_MATMUL_VALUES) for _ in range(k * m)]).astype(dtype)
        a, b = a.reshape(n, k), b.reshape(k, m)
        got = xs.exact_matmul(a, b)
        swapped = [v.astype(v.dtype.newbyteorder()) for v in (a, b)]
        assert_same(got, xs.exact_matmul(*swapped))             # the general path
    expected = np.empty((n, m), dtype)
    for i in range(n):
        for j in range(m):
            expected[i, j] = exact_dot_oracle(a[i].tolist(), b[:, j].tolist(), dtype)
    assert_same(got, expected)


def test_matmul_errors_of_the_short_path():
    """Shapes the short path does not take keep the general path's errors."""
    a = np.ones((2, 3))
    with pytest.raises(ValueError, match="exact_matmul: a has 3 columns but b has 2 rows"):
        xs.exact_matmul(a, np.ones((2, 2)))
    with pytest.raises(ValueError, match="exact_matmul: a must have at least one dimension"):
        xs.exact_matmul(np.float64(1.0), a)
