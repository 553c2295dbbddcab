"""The short paths of small calls (exact_dot of two float vectors, exact_var
and exact_std of a short float64 vector, the nan-variants of small NaN-free
arrays) give the bits of the general paths and of the exact oracle."""

import math
import re
import warnings

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given
from hypothesis import strategies as st
from oracle import (
    BFLOAT16,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    exact_sum_oracle,
    oracle_accumulate,
    oracle_reduce,
    oracle_reduceat,
    terms_of,
)
from oracle_moments import check as check_var
from oracle_products import oracle_dot
from strategies import arrays_1d
from test_lowprec import (
    PAIRS,
    ROUND_PAIRS,
    exact_or_special,
    is_neg_zero,
    ref_kahan_add,
    ref_stochastic,
)

import xsumufunc as xs
from xsumufunc import _lowprec_ufuncs as raw

L = xs.STATE_LENGTH


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


# Values whose chunks lie far apart in the accumulator (the short path rounds
# only the chunks a group's values reach): tiny and huge, subnormal, ties.
_SPREAD = st.sampled_from([1e308, -1e308, 1.5, -1.5, 2.0**-1074, -(2.0**-1074), 2.0**-1022,
                           1e-300, -1e-300, 2.0**53, 1.0, -1.0, 2.0**-53, 3 * 2.0**-54,
                           -0.0, 0.0, 1e200, -1e200, 7.0e-310])


@given(data=st.data(), ngroups=st.integers(1, 12), mean=st.booleans())
def test_grouped_few_rounds_the_chunks_its_values_reach(data, ngroups, mean):
    """_ufuncs._grouped_few rounds each group from the window of chunks its
    values reach (the whole accumulator from 2047 values on): the bits of
    the oracle for values spread over the whole float64 range, more groups
    than its stack holds, and groups of 2047 values or more."""
    from oracle_products import exact_mean_oracle

    from xsumufunc._ufuncs import _grouped_few

    size = data.draw(st.sampled_from([1, 3, 17, 2046, 2047, 2048])) if ngroups == 1 else \
        data.draw(st.integers(1, 40))
    pool = np.array(data.draw(st.lists(_SPREAD, min_size=1, max_size=8)))
    x = pool[np.array(data.draw(st.lists(st.integers(0, pool.size - 1), min_size=size,
                                         max_size=size)))]
    codes = np.arange(size, dtype=np.int64) % ngroups
    oracle = exact_mean_oracle if mean else exact_sum_oracle
    with np.errstate(all="ignore"):
        got, empty = _grouped_few(x, codes, ngroups, mean, 1 << 12)
    assert empty == max(ngroups - size, 0)
    for g in range(ngroups):
        expected = oracle(terms_of(x[codes == g]), FLOAT64) if g < size else (
            np.float64(np.nan) if mean else np.float64(0.0))
        assert_same(got[g], expected)


def test_grouped_few_leaves_other_calls_to_the_general_path():
    from xsumufunc._ufuncs import _grouped_few

    x, codes = np.ones(4), np.array([0, 1, 0, 1])
    got, empty = _grouped_few(x, codes, 3, True, 12)             # group 2 is empty
    assert_same(got, np.array([1.0, 1.0, np.nan]))
    assert empty == 1
    for args in [(x.astype(np.float32), codes, 2), (x, codes.astype(np.int32), 2),
                 (x.astype(">f8"), codes, 2), (x, codes.astype(">i8"), 2),
                 (x[None], codes[None], 2), (x, codes[:3], 2), (list(x), codes, 2),
                 (x, list(codes), 2), (x, codes, 2.0), (x, codes, np.int64(2)),
                 (x, codes, 3), (x[:0], codes[:0], 2), (x, codes, 0),
                 (x, np.array([0, 2, 0, 1]), 2), (x, np.array([0, -1, 0, 1]), 2)]:
        assert _grouped_few(*args, False, 8) is None


@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32])
def test_outer_product_of_any_strides(dtype):
    """_ufuncs._outer_product reads any strides (negative, non-contiguous)
    and rounds each product once, subnormal ones too; a non-finite entry,
    another dtype or shape leaves the call to the general path (None)."""
    from oracle_products import exact_dot_oracle

    from xsumufunc._ufuncs import _outer_product

    tiny = 1e-160 if dtype == FLOAT64 else 1e-20
    values = np.array([tiny, -3.0, 1.0 / 3.0, 2.0**-20, tiny * 7, -0.0, 5.5], dtype)
    a = values[::-2, None]                  # (4, 1), negative stride
    b = values[None, 1::2]                  # (1, 3), stride 2
    got = _outer_product(a, b)
    assert got.dtype == dtype and got.shape == (4, 3) and got.flags.c_contiguous
    for i in range(4):
        for j in range(3):
            assert_same(got[i, j], exact_dot_oracle([a[i, 0]], [b[0, j]], dtype))
    assert_same(xs.exact_matmul(a, b), got)
    big = np.full((1, 1), np.finfo(dtype).max, dtype)
    for x, y in [(big, big), (a, np.full((1, 2), np.nan, dtype)),
                 (a, b.astype(FLOAT32 if dtype == FLOAT64 else FLOAT64)),
                 (a.astype(a.dtype.newbyteorder()), b), (a.T, b.T), (a, b[0]),
                 (a.astype(np.float16), b.astype(np.float16)), (list(a), b)]:
        assert _outer_product(x, y) is None


def test_pinned_call_restores_the_mode_and_refuses_other_types():
    """The dispatch wrapper's compiled step: core(*args, **kwargs) in the
    pinned mode, the caller's mode back after a return or an exception;
    NOT_PLAIN, nothing called, for an argument of another type."""
    from xsumufunc._dispatch import _PLAIN_TYPES
    from xsumufunc._ufuncs import NOT_PLAIN, _fp_pin, _fp_restore, _pinned_call

    calls = []

    def core(*args, **kwargs):
        calls.append((args, kwargs))
        saved = _fp_pin()               # the pinned mode is in force: pinning again
        _fp_restore(saved)              # saves it
        if kwargs.get("fail"):
            raise KeyError("fail")
        return saved

    before = _fp_pin()
    _fp_restore(before)
    pinned = _pinned_call(core, (1.0,), {}, (0,), ("a",), _PLAIN_TYPES)
    with pytest.raises(KeyError):
        _pinned_call(core, (), {"a": 1.0, "fail": True}, (0,), ("a",), _PLAIN_TYPES)
    after = _fp_pin()
    _fp_restore(after)
    assert after == before and len(calls) == 2
    assert _pinned_call(core, ([1.0],), {}, (0,), ("a",), _PLAIN_TYPES) is NOT_PLAIN
    assert _pinned_call(core, (), {"a": [1.0]}, (0,), ("a",), _PLAIN_TYPES) is NOT_PLAIN
    assert len(calls) == 2
    again = _pinned_call(core, (), {"b": [1.0]}, (0,), ("a",), _PLAIN_TYPES)
    assert again == pinned and len(calls) == 3


@given(data=st.data())
def test_state_integers_are_the_exact_sums(data):
    """_ufuncs._state_integers (through norm's state_integers and
    dot_state_integers) reads each state as the exact Fraction sum (dot)
    of its terms, negative and huge ones too, for several states at once."""
    from fractions import Fraction

    from xsumufunc._core import norm
    from xsumufunc._ufuncs import _state_integers

    rows = data.draw(st.integers(1, 3))
    x = np.array(data.draw(st.lists(_SPREAD, min_size=rows * 3, max_size=rows * 3)))
    x = x.reshape(rows, 3)
    y = x[:, ::-1] * 0.5
    sums = norm.state_integers(xs.exact_sum_state(x, axis=1))
    dots, exponent = norm.dot_state_integers(xs._ufuncs.exact_dot_state_ufunc(x, y))
    for i in range(rows):
        assert Fraction(sums[i]) * Fraction(2) ** -1075 == sum(map(Fraction, x[i]))
        assert Fraction(dots[i]) * Fraction(2) ** exponent == sum(
            Fraction(u) * Fraction(v) for u, v in zip(x[i], y[i]))
    with pytest.raises(TypeError, match="C-contiguous native int64"):
        _state_integers(np.zeros((2, L), np.int32), (0,))
    with pytest.raises(TypeError, match="C-contiguous native int64"):
        _state_integers(np.zeros((2, L + 1), np.int64)[:, :L], (0,))


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
# ---- the states' common calls (xsumufunc._core.states) ----------------------

STATE_PLAIN = PLAIN + [np.dtype(np.int32), np.dtype(np.uint64), np.dtype(np.int8)]


@given(data=st.data(), dtype=st.sampled_from(STATE_PLAIN), shape=st.sampled_from(
    ["1-d", "2-d", "transposed", "strided"]))
def test_state_and_count_of_a_plain_array(data, dtype, shape):
    x = data.draw(arrays_1d(dtype))
    a = {"1-d": x, "2-d": np.stack([x, x[::-1]]), "transposed": np.stack([x, x[::-1]]).T,
         "strided": np.repeat(x, 2)[::2]}[shape]
    state, count = xs.exact_sum_state(a), xs.exact_count(a)
    # The general path: the same call with where= given as an array.
    everywhere = np.ones(a.shape, bool)
    assert state.dtype.str == "<i8" and state.tobytes() == xs.exact_sum_state(
        a, where=everywhere).tobytes()
    assert_same(count, xs.exact_count(a, where=everywhere))
    assert count == a.size
    expected = exact_sum_oracle(terms_of(a.reshape(-1)), oracle_reduce(a).dtype)
    with np.errstate(all="ignore"):
        assert_same(xs.round_state(state, expected.dtype), expected)


@given(data=st.data(), parts=st.integers(1, 4))
def test_merge_round_and_mean_of_plain_states(data, parts):
    pieces = [data.draw(arrays_1d(FLOAT64)) for _ in range(parts)]
    states = np.stack([xs.exact_sum_state(p) for p in pieces])
    terms = [t for p in pieces for t in terms_of(p)]
    merged = xs.merge_states(states)
    # The general paths: axis as a tuple, the states as a list, dtype by name.
    assert merged.tobytes() == xs.merge_states(states, (0,)).tobytes()
    assert merged.tobytes() == xs.merge_states(list(states), -1).tobytes()
    with np.errstate(all="ignore"):
        got = xs.round_state(merged)
        assert_same(got, exact_sum_oracle(terms, FLOAT64))
        assert_same(got, xs.round_state(merged, "float64"))
        assert_same(xs.round_state(merged, np.float32), exact_sum_oracle(terms, FLOAT32))
        count = len(terms)
        if count:
            mean = xs.state_mean(merged, count)
            assert_same(mean, xs.state_mean(merged, np.array([count]))[0])     # general
            assert_same(mean, xs.state_mean(merged, np.uint8(count) if count < 256
                                            else count))
            from oracle_products import exact_mean_oracle
            assert_same(mean, exact_mean_oracle(terms, FLOAT64))


def test_one_count_is_checked_as_an_array_of_counts_is():
    state = xs.exact_sum_state(np.array([1.0, 2.0]))
    for count in (-1, np.int64(-1), np.uint64(2**63)):
        for given_as in (count, np.array([count])):
            with pytest.raises(ValueError, match="count must be non-negative int64"):
                xs.state_mean(state, given_as)
    for given_as in (2.0, np.array([2.0])):
        with pytest.raises(TypeError, match="count must be integers"):
            xs.state_mean(state, given_as)
    for given_as in (0, np.array([0])):
        with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
            assert np.all(np.isnan(xs.state_mean(state, given_as)))
        with warnings.catch_warnings():
            warnings.simplefilter("error")          # no states: no mean, no warning
            assert xs.state_mean(np.empty((0, L), np.int64), given_as).shape == (0,)


@given(data=st.data())
def test_the_compiled_validity_check_is_the_detailed_one(data):
    """check_states' compiled test finds the first state in which the
    detailed checks (the ones that name the problem) find something."""
    from xsumufunc._core import stateformat as fmt
    from xsumufunc._core import states as core
    from xsumufunc._ufuncs import _first_invalid_state

    states = np.stack([xs.exact_sum_state(data.draw(arrays_1d(FLOAT64))) for _ in range(3)])
    states = states.astype(np.int64)
    for _ in range(data.draw(st.integers(0, 3))):
        row, word = data.draw(st.integers(0, 2)), data.draw(st.integers(0, L - 1))
        states[row, word] = data.draw(st.sampled_from(
            [0, 1, 2, 3, 7, 64, -1, 2**32 - 1, 2**32, 2**24 - 1, 2**24, -2**24 + 1, -2**24,
             -2**63, 2**63 - 1]))
    bad = [r for r in range(3) if core._first_problem(states[r:r + 1]) is not None]
    assert _first_invalid_state(states, fmt.TOP_LIMIT) == (bad[0] if bad else -1)
    # Any strides: the rows of a transposed copy read the same.
    assert _first_invalid_state(np.asfortranarray(states), fmt.TOP_LIMIT) == \
        (bad[0] if bad else -1)
    if bad:
        with pytest.raises(ValueError, match=re.escape(core._first_problem(states))):
            xs.merge_states(states)


def test_the_compiled_helpers_refuse_other_arrays():
    from xsumufunc._ufuncs import _canonicalize_states, _first_invalid_state, _segment_sums

    state = xs.exact_sum_state(np.ones(3)).astype(np.int64)
    with pytest.raises(TypeError, match="native int64"):
        _first_invalid_state(state, 2**24)                       # 1-D
    with pytest.raises(TypeError, match="native int64"):
        _first_invalid_state(state[None].astype(">i8"), 2**24)   # swapped
    with pytest.raises(TypeError, match="native int64"):
        _canonicalize_states(state[None, :-1].copy())
    with pytest.raises(TypeError, match="native int64"):
        _first_invalid_state(state[None].astype(np.int32), 2**24)
    # Both 8-byte C integer types are int64 (a state array may come as either).
    for ctype in (np.longlong, np.int64):
        rows = state[None].astype(ctype)
        assert _first_invalid_state(rows, 2**24) == -1
        assert xs.round_state(rows) == 3.0 and xs.merge_states(rows).tobytes() == \
            xs.exact_sum_state(np.ones(3)).tobytes()
    read_only = state[None].copy()
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        _canonicalize_states(read_only)
    # Anything but native float64/float32 values and intp indices: None.
    for values, indices in [(np.ones(3, np.float16), np.array([0], np.intp)),
                            (np.ones(3), np.array([0], np.int32)),
                            (np.ones(3, ">f8"), np.array([0], np.intp)),
                            (np.ones(3), np.array([0], np.intp).astype(">i8")),
                            (np.ones((3, 1)), np.array([0], np.intp)),
                            ([1.0, 2.0], np.array([0], np.intp)),
                            (np.ones(3), [0])]:
        assert _segment_sums(values, indices) is None
    assert_same(_segment_sums(np.ones(3), np.array([0, 2, 2])[::2]), np.array([2.0, 1.0]))


# ---- reduceat's common call: one C call for every segment -------------------

@given(data=st.data(), dtype=st.sampled_from([FLOAT64, FLOAT32]), stride=st.sampled_from([1, -2]))
def test_reduceat_of_a_short_vector(data, dtype, stride):
    x = data.draw(arrays_1d(dtype, min_size=1))
    x = np.repeat(x, 2)[::stride] if stride != 1 else x
    indices = np.array(data.draw(st.lists(st.integers(0, x.size - 1), max_size=8)), np.intp)
    with warnings.catch_warnings(record=True) as fast_warnings, np.errstate(all="warn"):
        warnings.simplefilter("always")
        got = xs.exact_add.reduceat(x, indices)
    # The general path: indices as a list (and again into out=).
    with warnings.catch_warnings(record=True) as general_warnings, np.errstate(all="warn"):
        warnings.simplefilter("always")
        general = xs.exact_add.reduceat(x, indices.tolist())
    assert_same(got, general)
    assert sorted(str(w.message) for w in fast_warnings) == \
        sorted(str(w.message) for w in general_warnings)
    with np.errstate(all="ignore"):
        assert_same(got, xs.exact_add.reduceat(x, indices, out=np.empty_like(got)))
    assert_same(got, oracle_reduceat(x, indices))


def test_reduceat_bad_indices_raise_as_on_the_general_path():
    x = np.arange(5.0)
    for indices in ([0, 5], [-1], [2, 7, 1]):
        messages = []
        for given_as in (np.array(indices, np.intp), indices):
            with pytest.raises(IndexError) as info:
                xs.exact_add.reduceat(x, given_as)
            messages.append(str(info.value))
        assert messages[0] == messages[1]


# ---- the low-precision updates' common calls ---------------------------------

UPDATE_PAIRS = [(BFLOAT16, FLOAT32), (BFLOAT16, FLOAT64), (BFLOAT16, BFLOAT16), (FLOAT16, FLOAT64),
                (FLOAT32, FLOAT64), (FLOAT32, FLOAT32)]


@given(data=st.data(), pair=st.sampled_from(UPDATE_PAIRS),
       bits_dtype=st.sampled_from([np.uint16, np.uint32]))
def test_updates_take_the_loop_as_the_general_path_does(data, pair, bits_dtype):
    storage, update = pair
    n = data.draw(st.integers(0, 6))
    w = data.draw(arrays_1d(storage, min_size=n))[:n]
    c = data.draw(arrays_1d(storage, min_size=n))[:n]
    u = data.draw(arrays_1d(update, min_size=n))[:n]
    bits = np.array(data.draw(st.lists(st.integers(0, np.iinfo(bits_dtype).max), min_size=n,
                                       max_size=n)), bits_dtype)
    with np.errstate(all="ignore"):
        w_new, c_new = xs.kahan_add(w, c, u)
        out = (np.empty_like(w), np.empty_like(c))
        xs.kahan_add(w, c, u, out=out)                   # the general path
        assert_same(w_new, out[0])
        assert_same(c_new, out[1])
        got = xs.stochastic_add(w, u, bits)
        assert_same(got, xs.stochastic_add(w, u, bits, out=np.empty_like(w)))
        x = u.astype(FLOAT64)
        rounded = xs.stochastic_round(x, np.float32, bits)
        assert_same(rounded, xs.stochastic_round(x, "float32", bits))      # by name: general


def test_update_errors_are_those_of_the_general_path():
    w = np.ones(3, BFLOAT16)
    c = np.zeros(3, BFLOAT16)
    bits = np.zeros(3, np.uint32)
    with pytest.raises(ValueError, match="bits of shape"):
        xs.stochastic_add(w, np.ones(3), np.zeros(2, np.uint32))
    with pytest.raises(ValueError, match="bits of shape"):
        xs.stochastic_round(np.ones(3), np.float32, np.zeros(4, np.uint32))
    with pytest.raises(TypeError, match="c has dtype"):
        xs.kahan_add(w, c.astype(np.float32), np.ones(3))
    with pytest.raises(TypeError, match="u has dtype"):
        xs.kahan_add(w, c, np.ones(3, np.int64))
    with pytest.raises(TypeError, match="x has dtype"):
        xs.stochastic_round(np.ones(3, np.int64), np.float32, bits)
    with pytest.raises(ValueError, match="shape mismatch"):     # np.broadcast_shapes
        xs.kahan_add(w, c, np.ones(2))


# ---- the updates' compiled entries: layouts, keywords, flags -----------------
#
# kahan_add, stochastic_add and stochastic_round hand their common calls to a
# compiled entry (xsumufunc._lowprec_ufuncs._*_call) that runs the loop without
# NumPy's ufunc machinery; it declines (None) whatever it does not take as it is.

LAYOUTS = ["1-D", "reversed", "every third", "2-D C", "2-D F", "0-d"]


def _laid_out(a, layout):
    """The 1-D array a (6 values for the 2-D layouts, 1 for 0-d) laid out as
    named, same values in the same logical order."""
    if layout == "reversed":
        return a[::-1].copy()[::-1]
    if layout == "every third":
        spread = np.zeros(3 * a.size, a.dtype)
        spread[::3] = a
        return spread[::3]
    if layout == "2-D C":
        return a.reshape(2, 3)
    if layout == "2-D F":
        return np.asfortranarray(a.reshape(2, 3))
    if layout == "0-d":
        return a.reshape(())
    return a


def _draw_values(data, dtype, n):
    return data.draw(arrays_1d(dtype, min_size=n))[:n]


def _draw_bits(data, bits_dtype, n):
    top = np.iinfo(bits_dtype).max
    return np.array(data.draw(st.lists(st.one_of(st.integers(0, top), st.sampled_from([0, 1, top])),
                                       min_size=n, max_size=n)), bits_dtype)


def _size_of(data, layout):
    return {"2-D C": 6, "2-D F": 6, "0-d": 1}.get(layout) or data.draw(st.integers(0, 8))


@given(data=st.data(), pair=st.sampled_from(PAIRS), layout=st.sampled_from(LAYOUTS))
def test_kahan_add_entry_matches_oracle_and_general_path(data, pair, layout):
    storage, update = pair
    n = _size_of(data, layout)
    flat = [_draw_values(data, d, n) for d in (storage, storage, update)]
    w, c, u = (_laid_out(a, layout) for a in flat)
    with np.errstate(all="ignore"):
        w_new, c_new = xs.kahan_add(w, c, u)
        out = (np.empty(w.shape, storage), np.empty(w.shape, storage))
        xs.kahan_add(w, c, u, out=out)                                 # the general path
        by_keyword = xs.kahan_add(w=w, c=c, u=u)
    expected = [ref_kahan_add(float(a), float(b), float(d), storage) for a, b, d in zip(*flat)]
    assert_same(np.reshape(w_new, -1), np.array([e[0] for e in expected], storage))
    assert_same(np.reshape(c_new, -1), np.array([e[1] for e in expected], storage))
    for got in (out, by_keyword):
        assert_same(w_new, got[0][()] if layout == "0-d" else got[0])
        assert_same(c_new, got[1][()] if layout == "0-d" else got[1])


@given(data=st.data(), pair=st.sampled_from(PAIRS), layout=st.sampled_from(LAYOUTS),
       bits_dtype=st.sampled_from([np.uint16, np.uint32]))
def test_stochastic_add_entry_matches_oracle_and_general_path(data, pair, layout, bits_dtype):
    storage, update = pair
    n = _size_of(data, layout)
    fw, fu, fbits = _draw_values(data, storage, n), _draw_values(data, update, n), \
        _draw_bits(data, bits_dtype, n)
    w, u, bits = (_laid_out(a, layout) for a in (fw, fu, fbits))
    with np.errstate(all="ignore"):
        got = xs.stochastic_add(w, u, bits)
        general = xs.stochastic_add(w, u, bits, out=np.empty(w.shape, storage))
        by_keyword = xs.stochastic_add(w, u=u, bits=bits)
    k = 8 * np.dtype(bits_dtype).itemsize
    expected = []
    for a, b, r in zip(fw.tolist(), fu.tolist(), fbits.tolist()):
        a, b = float(a), float(b)
        zero_sign = -1 if is_neg_zero(a) and is_neg_zero(b) else 1
        expected.append(ref_stochastic(exact_or_special(a, b), r, k, storage, zero_sign))
    assert_same(np.reshape(got, -1), np.array(expected, storage))
    assert_same(got, general[()] if layout == "0-d" else general)
    assert_same(got, by_keyword)


@given(data=st.data(), pair=st.sampled_from(ROUND_PAIRS), layout=st.sampled_from(LAYOUTS),
       bits_dtype=st.sampled_from([np.uint16, np.uint32]),
       spelling=st.sampled_from(["type", "dtype"]))
def test_stochastic_round_entry_matches_oracle_and_general_path(data, pair, layout, bits_dtype,
                                                                spelling):
    source, target = pair
    n = _size_of(data, layout)
    fx, fbits = _draw_values(data, source, n), _draw_bits(data, bits_dtype, n)
    x, bits = _laid_out(fx, layout), _laid_out(fbits, layout)
    dtype = target.type if spelling == "type" else target
    with np.errstate(all="ignore"):
        got = xs.stochastic_round(x, dtype, bits)
        general = xs.stochastic_round(x, dtype, bits, out=np.empty(x.shape, target))
        by_keyword = xs.stochastic_round(x, dtype=dtype, bits=bits)
    k = 8 * np.dtype(bits_dtype).itemsize
    expected = [ref_stochastic(exact_or_special(float(v)), int(r), k, target,
                               zero_sign=math.copysign(1.0, float(v)))
                for v, r in zip(fx.tolist(), fbits.tolist())]
    assert_same(np.reshape(got, -1), np.array(expected, target))
    assert_same(got, general[()] if layout == "0-d" else general)
    assert_same(got, by_keyword)


def test_update_entries_run_long_rows_as_the_ufuncs_do():
    """Past 500 elements the entries release the GIL around the loop."""
    rng = np.random.default_rng(30)
    x = rng.standard_normal(1000) * 1e-3
    w = rng.standard_normal(1000).astype(BFLOAT16)
    c = (rng.standard_normal(1000) * 1e-3).astype(BFLOAT16)
    bits = rng.integers(0, 1 << 32, 1000, dtype=np.uint32)
    w_new, c_new = xs.kahan_add(w, c, x)
    raw_w, raw_c = raw.kahan_add_ufunc(w, c, x)
    assert_same(w_new, raw_w)
    assert_same(c_new, raw_c)
    assert_same(xs.stochastic_add(w, x, bits), raw.stochastic_add_ufunc(w, x, bits))
    assert_same(xs.stochastic_round(x, np.float32, bits),
                raw._stochastic_round_to_float32(x, bits))


def _swapped(a):
    return a.astype(a.dtype.newbyteorder())


def _unaligned(a):
    buf = np.zeros(a.nbytes + 1, np.uint8)[1:]
    out = buf.view(a.dtype)
    out[...] = a
    return out


def test_update_entries_decline_what_they_do_not_take():
    w = np.ones(4, np.float32)
    c = np.zeros(4, np.float32)
    u = np.full(4, 0.5)
    bits = np.zeros(4, np.uint32)
    declined = [
        ((w, c, u, (np.empty(4, np.float32), np.empty(4, np.float32))), {}),    # out
        ((w, c, u), {"compute_dtype": np.float64}),
        ((w, c, u), {"where": True}),                                           # not a parameter
        ((w, c, u, None, None, None), {}),                                      # too many
        ((w.view(np.matrix), c, u), {}),                                        # a subclass
        ((_swapped(w), c, u), {}),
        ((_unaligned(w), c, u), {}),
        ((w, c, u[:3]), {}),                                                    # broadcasting
        ((w, c, u.tolist()), {}),
        ((w, c, u.astype(np.float16)), {}),                                     # no such loop
        ((w, c.astype(np.float64), u), {}),
        ((w[:1].reshape(()), c[:1].reshape(()), u[:1].reshape(())), {}),        # 0-d: scalars
    ]
    for args, kwargs in declined:
        assert raw._kahan_add_call(args, kwargs) is None
    assert raw._stochastic_add_call((w, u, bits), {"rng": np.random.default_rng(0)}) is None
    assert raw._stochastic_add_call((w, u, bits.astype(np.uint64)), {}) is None
    assert raw._stochastic_round_call((u, "float32", bits), {}) is None         # by name
    assert raw._stochastic_round_call((w, np.float32, bits), {}) is None        # widened first
    assert raw._stochastic_round_call((u, np.float64, bits), {}) is None
    assert raw._stochastic_round_call((u, np.float32, bits), {"out": w}) is None
    # What they take: the same bits as the ufuncs.
    assert_same(raw._kahan_add_call((w, c, u), {})[0], raw.kahan_add_ufunc(w, c, u)[0])
    assert_same(raw._stochastic_round_call((u, np.float32, bits), {}),
                raw._stochastic_round_to_float32(u, bits))


@pytest.mark.parametrize("call", ["kahan_add", "stochastic_add", "stochastic_round"])
def test_update_entries_leave_flags_to_numpy(call):
    """A loop that raises a flag (here overflow) gives the general path's
    warning, and np.errstate decides as on the ufunc."""
    big = np.full(3, np.finfo(np.float32).max, np.float32)
    bits = np.full(3, 0xFFFFFFFF, np.uint32)
    run = {"kahan_add": lambda: xs.kahan_add(big, np.zeros_like(big), big.astype(np.float64)),
           "stochastic_add": lambda: xs.stochastic_add(big, big.astype(np.float64), bits),
           "stochastic_round": lambda: xs.stochastic_round(np.full(3, 1e300), np.float32, bits)}
    general = {"kahan_add": lambda: raw.kahan_add_ufunc(big, np.zeros_like(big),
                                                        big.astype(np.float64)),
               "stochastic_add": lambda: raw.stochastic_add_ufunc(big, big.astype(np.float64),
                                                                  bits),
               "stochastic_round": lambda: raw._stochastic_round_to_float32(np.full(3, 1e300),
                                                                            bits)}
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        got = run[call]()
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        expected = general[call]()
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert len(theirs) == 1 and "overflow" in str(theirs[0].message)
    assert_same(got, expected)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow"):
        run[call]()
