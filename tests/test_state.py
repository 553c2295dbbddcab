"""The portable exact state API (xsumufunc.state): canonical, mergeable,
portable, validated."""

import pickle
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from helpers import assert_same, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import (
    BFLOAT16,
    COMPLEX128,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    exact_sum_oracle,
    oracle_reduce,
    terms_of,
)
from oracle_products import exact_mean_oracle, oracle_mean_reduce
from strategies import arrays_1d, axis_args, nd_arrays, where_masks

import xsumufunc as xs

L = xs.STATE_LENGTH
STATE_INPUTS = [FLOAT64, FLOAT32, FLOAT16, BFLOAT16, COMPLEX128, np.dtype(np.int64),
                np.dtype(np.uint8), np.dtype(bool)]


@st.composite
def split_points(draw, n):
    cuts = draw(st.lists(st.integers(0, n), max_size=5))
    return [0] + sorted(cuts) + [n]


def _merge_in_random_tree(states, draw, complex_parts):
    """Merge a list of states pairwise/groupwise in an order hypothesis picks."""
    states = list(states)
    while len(states) > 1:
        states = draw(st.permutations(states))
        k = draw(st.integers(2, len(states)))
        group = np.stack(states[:k])
        states = [xs.merge_states(group, complex_parts=complex_parts)] + states[k:]
    return states[0]


@given(data=st.data(), dtype=st.sampled_from(STATE_INPUTS))
def test_any_split_and_merge_order_gives_the_same_bytes(data, dtype):
    a = data.draw(arrays_1d(dtype))
    cuts = data.draw(split_points(a.size))
    is_complex = dtype.kind == "c"
    parts = [xs.exact_sum_state(a[lo:hi]) for lo, hi in zip(cuts, cuts[1:])]
    merged = _merge_in_random_tree(parts, data.draw, is_complex)
    whole = xs.exact_sum_state(a)
    assert whole.dtype.str == "<i8"
    assert whole.shape == ((2, L) if is_complex else (L,))
    assert merged.tobytes() == whole.tobytes()
    # Reversed order of the terms: the same bytes again.
    assert xs.exact_sum_state(a[::-1]).tobytes() == whole.tobytes()
    result = np.dtype(np.complex128) if is_complex else (
        FLOAT64 if dtype.kind in "biu" else dtype)
    expected = exact_sum_oracle(terms_of(a), result)
    assert_same(quiet(xs.round_state, merged, result), expected)
    count = sum(int(xs.exact_count(a[lo:hi])) for lo, hi in zip(cuts, cuts[1:]))
    assert count == a.size
    assert_same(quiet(xs.state_mean, merged, count, result),
                exact_mean_oracle(terms_of(a), result))


@given(data=st.data(), dtype=st.sampled_from([FLOAT64, FLOAT32, COMPLEX128]))
def test_axes_where_and_skip_nan_agree_with_the_oracle(data, dtype):
    a = data.draw(nd_arrays(dtype))
    axis = data.draw(axis_args(a.ndim))
    where = data.draw(where_masks(a.shape))
    skip_nan = data.draw(st.booleans())
    keepdims = data.draw(st.booleans())
    states = xs.exact_sum_state(a, axis, keepdims=keepdims, where=where, skip_nan=skip_nan)
    counts = xs.exact_count(a, axis, keepdims=keepdims, where=where, skip_nan=skip_nan)
    expected = oracle_reduce(a, axis, keepdims=keepdims, where=where, skip_nan=skip_nan)
    assert states.shape[:counts.ndim] == counts.shape == np.shape(expected)
    assert_same(quiet(xs.round_state, states, dtype), expected)
    assert_same(quiet(xs.state_mean, states, counts, dtype),
                oracle_mean_reduce(a, axis, keepdims=keepdims, where=where, skip_nan=skip_nan))


def test_special_values_are_canonical():
    # Once an Inf or NaN is a term, the finite terms cannot matter: same bytes.
    a = xs.exact_sum_state(np.array([np.inf, 1.0, 2.0**-1074]))
    b = xs.exact_sum_state(np.array([5e300, np.inf]))
    assert a.tobytes() == b.tobytes()
    assert xs.round_state(a) == np.inf
    with np.errstate(invalid="ignore"):
        nan = xs.round_state(xs.merge_states(np.stack([a, xs.exact_sum_state([-np.inf])])))
    assert np.isnan(nan)


def test_signed_zeros_and_empty():
    empty, neg = xs.exact_sum_state(np.array([])), xs.exact_sum_state(np.array([-0.0, -0.0]))
    assert_same(xs.round_state(empty), np.float64(0.0))
    assert_same(xs.round_state(neg), np.float64(-0.0))
    assert_same(xs.round_state(xs.merge_states(np.stack([empty, neg]))), np.float64(-0.0))
    assert_same(xs.round_state(xs.merge_states(np.stack([neg, xs.exact_sum_state([0.0])]))),
                np.float64(0.0))


def test_state_is_little_endian_and_picklable():
    state = xs.exact_sum_state(np.array([[0.1, 0.2], [0.3, 1e-300]]), axis=1)
    assert state.dtype == np.dtype("<i8") and state.shape == (2, L)
    again = pickle.loads(pickle.dumps(state))
    assert again.tobytes() == state.tobytes()
    # A big-endian copy (as read from a file) is accepted and merges the same.
    swapped = state.astype(">i8")
    assert xs.merge_states(swapped, axis=0).tobytes() == xs.merge_states(state).tobytes()
    assert_same(xs.round_state(swapped), xs.exact_sum(np.array([[0.1, 0.2], [0.3, 1e-300]]),
                                                       axis=1))


def test_merge_over_several_axes_and_complex():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4, 5)) * 1e10 + 1j * rng.standard_normal((3, 4, 5))
    per_element = xs.exact_sum_state(x, axis=())
    assert per_element.shape == (3, 4, 5, 2, L)
    merged = xs.merge_states(per_element, axis=(0, 2), complex_parts=True)
    assert merged.tobytes() == xs.exact_sum_state(x, axis=(0, 2)).tobytes()
    expected = oracle_reduce(x, axis=(0, 2))
    assert_same(xs.round_state(merged, np.complex128), expected)
    assert_same(xs.round_state(merged[..., 0, :]), expected.real)


def test_round_into_each_dtype():
    s = xs.exact_sum_state(np.array([1.0, 2.0**-24, 2.0**-80]))
    for dtype in (FLOAT64, FLOAT32, FLOAT16, BFLOAT16):
        assert_same(xs.round_state(s, dtype),
                    exact_sum_oracle([1.0, 2.0**-24, 2.0**-80], dtype))


def _valid():
    return xs.exact_sum_state(np.array([1.5, -2.0**-1000, 3e300]))


@pytest.mark.parametrize("name, change", [
    ("float dtype", lambda s: s.astype(np.float64)),
    ("int32 dtype", lambda s: s.astype(np.int32)),
    ("short state axis", lambda s: s[:-1]),
    ("scalar", lambda s: s[0]),
    ("negative digit", lambda s: np.where(np.arange(L) == 3, -1, s)),
    ("digit too large", lambda s: np.where(np.arange(L) == 3, 2**32, s)),
    ("top digit too large", lambda s: np.where(np.arange(L) == L - 2, 2**40, s)),
    ("unknown flag", lambda s: np.where(np.arange(L) == L - 1, 64, s)),
    ("negative flags", lambda s: np.where(np.arange(L) == L - 1, -1, s)),
    ("flags without a term", lambda s: np.where(np.arange(L) == L - 1, 2, s)),
    ("value without flags", lambda s: np.where(np.arange(L) == L - 1, 0, s)),
    ("value flagged -0.0 only", lambda s: np.where(np.arange(L) == L - 1, 1, s)),
])
@pytest.mark.parametrize("func", ["round", "merge", "mean"])
def test_malformed_states_raise_value_error(name, change, func):
    bad = change(_valid())
    with pytest.raises(ValueError, match="state"):
        if func == "round":
            xs.round_state(bad)
        elif func == "merge":
            xs.merge_states(np.stack([bad, bad]) if bad.ndim else bad)
        else:
            xs.state_mean(bad, 3)


@given(data=st.data())
def test_the_quick_validity_check_is_the_detailed_one(data):
    """check_states' compiled test passes exactly the states in which the
    detailed checks (the ones that name the problem) find none."""
    from xsumufunc._core import states as core
    from xsumufunc._core.stateformat import TOP_LIMIT
    from xsumufunc._ufuncs import _first_invalid_state

    states = np.stack([xs.exact_sum_state(data.draw(arrays_1d(FLOAT64))) for _ in range(2)])
    for _ in range(data.draw(st.integers(0, 3))):
        row, word = data.draw(st.integers(0, 1)), data.draw(st.integers(0, L - 1))
        states[row, word] = data.draw(st.sampled_from(
            [0, 1, 2, 3, 7, 64, -1, 2**32 - 1, 2**32, 2**24 - 1, 2**24, -2**24 + 1, -2**24,
             -2**63, 2**63 - 1]))
    problem = core._first_problem(states)
    assert (_first_invalid_state(states.astype(np.int64), TOP_LIMIT) < 0) == (problem is None)
    if problem is not None:
        with pytest.raises(ValueError, match=re.escape(problem)):
            xs.round_state(states)


def test_complex_state_needs_its_part_axis():
    real = _valid()
    with pytest.raises(ValueError, match="complex states"):
        xs.round_state(real, np.complex128)
    with pytest.raises(ValueError, match="complex states"):
        xs.merge_states(np.stack([real, real, real]), complex_parts=True)


def test_merge_out_of_range_raises():
    # Valid states whose merged value would leave the state's range.
    big = np.zeros(L, np.int64)
    big[L - 2] = 2**24 - 1
    big[L - 1] = 3
    with pytest.warns(RuntimeWarning, match="overflow"):
        assert xs.round_state(big) == np.inf         # accepted on its own
    with pytest.raises(ValueError, match="range"):
        xs.merge_states(np.stack([big, big]))


def test_bad_arguments():
    s = _valid()
    with pytest.raises(TypeError, match="dtype"):
        xs.round_state(s, np.int32)
    with pytest.raises(TypeError, match="count"):
        xs.state_mean(s, 2.0)
    with pytest.raises(ValueError, match="count"):
        xs.state_mean(s, -1)
    with pytest.raises(ValueError, match="no axis"):
        xs.merge_states(s)
    with pytest.raises(TypeError, match="unsupported input dtype"):
        xs.exact_sum_state(np.array(["a"]))
    with pytest.raises(ValueError, match="where"):
        xs.exact_sum_state(np.ones(3), where=np.ones(4, bool))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        assert np.isnan(xs.state_mean(xs.exact_sum_state(np.array([])), 0))


def test_importing_xsumufunc_imports_no_optional_library():
    code = textwrap.dedent("""
        import sys
        import numpy as np
        import xsumufunc, xsumufunc.state
        xsumufunc.exact_sum(np.ones(3)); xsumufunc.state.exact_sum_state(np.ones(3))
        bad = [m for m in ("pandas", "dask", "xarray", "distributed") if m in sys.modules]
        assert not bad, bad
    """)
    subprocess.run([sys.executable, "-P", "-c", code], check=True)   # -P: not the source tree


def test_state_rejects_non_boolean_where_and_masked_arrays():
    with pytest.raises(TypeError, match="where must be booleans"):
        xs.exact_sum_state(np.ones(3), where="abc")
    with pytest.raises(TypeError, match="masked arrays"):
        xs.exact_sum_state(np.ma.array([1.0, 2.0], mask=[0, 1]))
    with pytest.raises(TypeError, match="masked arrays"):
        xs.exact_grouped_sum(np.ma.array([1.0, 2.0], mask=[0, 1]), np.array([0, 0]), 1)
