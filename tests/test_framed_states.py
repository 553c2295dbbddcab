"""Framed states (xsumufunc.state: sum_state, moments_state, dot_state, the
grouped ones, merge and the finish functions): any split of the data,
merged in any order and grouping, finishes to the exact value rounded once
(the oracles), the bits of the one-shot function; the header guards the
version and kind; states travel as plain bytes."""

import io
import pickle

import numpy as np
import pytest
from helpers import assert_same, quiet
from hypothesis import assume, given
from hypothesis import strategies as st
from oracle import BFLOAT16, COMPLEX128, FLOAT16, FLOAT32, FLOAT64, exact_sum_oracle, terms_of
from oracle_moments import check as check_variance
from oracle_moments import var_result_dtype
from oracle_products import dot_result_dtype, exact_dot_oracle, exact_mean_oracle
from strategies import arrays_1d

import xsumufunc as xs
from xsumufunc import state as S

INPUTS = [FLOAT64, FLOAT32, FLOAT16, BFLOAT16, COMPLEX128, np.dtype(np.int64),
          np.dtype(np.uint8), np.dtype(bool)]
REAL_INPUTS = [FLOAT64, FLOAT32, FLOAT16, BFLOAT16, np.dtype(np.int64), np.dtype(bool)]


@st.composite
def split_points(draw, n):
    cuts = draw(st.lists(st.integers(0, n), max_size=5))
    return [0] + sorted(cuts) + [n]


def merged_in_random_tree(states, draw):
    """Merge states in groups and an order hypothesis picks."""
    states = list(states)
    while len(states) > 1:
        states = draw(st.permutations(states))
        k = draw(st.integers(2, len(states)))
        states = [S.merge(states[:k])] + states[k:]
    return states[0]


def pieces(a, cuts):
    return [a[lo:hi] for lo, hi in zip(cuts, cuts[1:])]


def sum_result(dtype):
    return COMPLEX128 if dtype.kind == "c" else (FLOAT64 if dtype.kind in "biu" else dtype)


@given(data=st.data(), dtype=st.sampled_from(INPUTS))
def test_sum_state_over_any_split_finishes_to_the_oracle(data, dtype):
    a = data.draw(arrays_1d(dtype))
    parts = [S.sum_state(p) for p in pieces(a, data.draw(split_points(a.size)))]
    merged = merged_in_random_tree(parts, data.draw)
    whole = S.sum_state(a)
    assert merged.tobytes() == whole.tobytes()
    result = sum_result(dtype)
    assert_same(quiet(S.finish_sum, merged), exact_sum_oracle(terms_of(a), result))
    assert_same(quiet(S.finish_mean, merged), exact_mean_oracle(terms_of(a), result))
    assert_same(quiet(S.finish_sum, merged), quiet(xs.exact_sum, a))


@given(data=st.data(), dtype=st.sampled_from(INPUTS), ddof=st.integers(0, 2),
       std=st.booleans())
def test_moments_state_over_any_split_finishes_to_the_oracle(data, dtype, ddof, std):
    a = data.draw(arrays_1d(dtype))
    parts = [S.moments_state(p) for p in pieces(a, data.draw(split_points(a.size)))]
    merged = merged_in_random_tree(parts, data.draw)
    assert merged.tobytes() == S.moments_state(a).tobytes()
    finish = S.finish_std if std else S.finish_var
    got = quiet(finish, merged, ddof)
    check_variance(got, terms_of(a), ddof, var_result_dtype(dtype), std)
    one_shot = xs.exact_std if std else xs.exact_var
    assert_same(got, quiet(one_shot, a, ddof=ddof))
    # A moments state holds the sum too.
    assert_same(quiet(S.finish_sum, merged), exact_sum_oracle(terms_of(a), sum_result(dtype)))


def _dot_takes(da, db):
    """Does exact_dot take operands of these dtypes (no promotion between
    bfloat16 and integers)?"""
    try:
        xs.exact_dot(np.zeros(1, da), np.zeros(1, db))
    except TypeError:
        return False
    return True


@given(data=st.data(), da=st.sampled_from(INPUTS), db=st.sampled_from(REAL_INPUTS))
def test_dot_state_over_any_split_finishes_to_the_oracle(data, da, db):
    assume(_dot_takes(da, db))
    a = data.draw(arrays_1d(da))
    b = data.draw(arrays_1d(db, min_size=a.size)).reshape(-1)[:a.size]
    if b.size < a.size:
        a = a[:b.size]
    cuts = data.draw(split_points(a.size))
    parts = [S.dot_state(x, y) for x, y in zip(pieces(a, cuts), pieces(b, cuts))]
    merged = merged_in_random_tree(parts, data.draw)
    assert merged.tobytes() == S.dot_state(a, b).tobytes()
    got = quiet(S.finish_dot, merged)
    assert_same(got, quiet(xs.exact_dot, a, b))
    # The oracle module's dtype rule covers float64 partners only; the
    # one-shot function's dtype is checked just above.
    assert_same(got, exact_dot_oracle(terms_of(a), terms_of(b), np.asarray(got).dtype))
    if da == db:
        assert np.asarray(got).dtype == dot_result_dtype(da, db)


@given(data=st.data(), dtype=st.sampled_from(INPUTS), ngroups=st.integers(0, 4),
       skip_nan=st.booleans())
def test_grouped_states_over_any_split_finish_to_the_oracle(data, dtype, ngroups, skip_nan):
    values = data.draw(arrays_1d(dtype))
    codes = np.array(data.draw(st.lists(st.integers(-1, max(ngroups - 1, -1)),
                                        min_size=values.size, max_size=values.size)),
                     np.int64)
    cuts = data.draw(split_points(values.size))
    sums = [S.grouped_sum_state(v, c, ngroups, skip_nan=skip_nan)
            for v, c in zip(pieces(values, cuts), pieces(codes, cuts))]
    moms = [S.grouped_moments_state(v, c, ngroups, skip_nan=skip_nan)
            for v, c in zip(pieces(values, cuts), pieces(codes, cuts))]
    sums, moms = merged_in_random_tree(sums, data.draw), merged_in_random_tree(moms, data.draw)
    assert sums.tobytes() == S.grouped_sum_state(values, codes, ngroups,
                                                 skip_nan=skip_nan).tobytes()
    got_sum = S.finish_sum(sums)
    got_var = quiet(S.finish_var, moms, 1)
    assert_same(got_sum, xs.exact_grouped_sum(values, codes, ngroups, skip_nan=skip_nan))
    # A moments state holds the same sums (signed zeros too) and the same bytes
    # whatever the split.
    assert_same(S.finish_sum(moms), got_sum)
    assert moms.tobytes() == S.grouped_moments_state(values, codes, ngroups,
                                                     skip_nan=skip_nan).tobytes()
    assert_same(got_var, quiet(xs.exact_grouped_var, values, codes, ngroups, ddof=1,
                               skip_nan=skip_nan))
    for g in range(ngroups):
        terms = terms_of(values[codes == g])
        if skip_nan:
            terms = [t for t in terms if t == t]
        assert_same(got_sum[g], exact_sum_oracle(terms, sum_result(dtype)))
        check_variance(got_var[g], terms, 1, var_result_dtype(dtype), False)


def test_axes_where_and_skip_nan():
    a = np.array([[1e100, 1.0, np.nan], [-1e100, 2.0, 3.0]])
    where = np.array([[True, True, True], [True, False, True]])
    state = S.sum_state(a, axis=0, where=where, skip_nan=True)
    assert S.state_info(state)["shape"] == (3,)
    expected = [exact_sum_oracle(terms_of(a[:, j][where[:, j]]), FLOAT64, skip_nan=True)
                for j in range(3)]
    for got, want in zip(S.finish_sum(state), expected):
        assert_same(got, want)
    m = S.moments_state(a, axis=1, skip_nan=True)
    assert_same(S.finish_var(m), xs.exact_nanvar(a, axis=1))


def test_states_travel_as_plain_bytes():
    x = np.random.default_rng(5).standard_normal(100) * 1e20
    state = S.moments_state(x)
    assert state.dtype == np.dtype("<i8") and state.ndim == 1
    assert pickle.loads(pickle.dumps(state)).tobytes() == state.tobytes()
    buffer = io.BytesIO()
    np.save(buffer, state, allow_pickle=False)
    buffer.seek(0)
    loaded = np.load(buffer, allow_pickle=False)
    assert_same(S.finish_var(loaded), xs.exact_var(x))
    # The bytes themselves (as an Arrow binary value or a blob) are a state.
    assert_same(S.finish_var(state.tobytes()), xs.exact_var(x))
    assert_same(S.finish_var(S.merge([state.tobytes(), S.moments_state([])])),
                xs.exact_var(x))
    # A big-endian copy holds the same numbers: read back as native words.
    assert_same(S.finish_var(state.astype(">i8")), xs.exact_var(x))


def test_arrow_ipc_round_trip():
    pa = pytest.importorskip("pyarrow")
    x = np.arange(10, dtype=np.float32) / 3
    states = [S.sum_state(x[:4]).tobytes(), S.sum_state(x[4:]).tobytes()]
    table = pa.table({"state": pa.array(states, pa.binary())})
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    back = pa.ipc.open_stream(sink.getvalue()).read_all()
    merged = S.merge(back.column("state").to_pylist())
    assert_same(S.finish_sum(merged), exact_sum_oracle(terms_of(x), FLOAT32))


def test_header_guards_version_kind_dtype_and_shape():
    s = S.sum_state([1.0, 2.0])
    future = s.copy()
    future[1] += 1
    with pytest.raises(ValueError, match="version 2"):
        S.merge([s, future])
    with pytest.raises(ValueError, match="moments or grouped_moments"):
        S.finish_var(s)
    with pytest.raises(ValueError, match="only states of one kind"):
        S.merge([s, S.moments_state([1.0])])
    with pytest.raises(ValueError, match="float32"):
        S.merge([s, S.sum_state(np.float32([1.0]))])
    with pytest.raises(ValueError, match="shape"):
        S.merge([S.grouped_sum_state([1.0], [0], 1), S.grouped_sum_state([1.0], [0], 2)])
    with pytest.raises(ValueError, match="no header"):
        S.finish_sum(xs.exact_sum_state([1.0]))
    with pytest.raises(ValueError, match="empty"):
        S.merge([])
    broken = s.copy()
    broken[-2] = 1 << 40           # a digit beyond its range
    with pytest.raises(ValueError, match="not a valid exact state"):
        S.finish_sum(broken)
    with pytest.raises(ValueError, match="words of records"):
        S.finish_sum(s[:-1])
    unknown = s.copy()
    unknown[2] = 99
    with pytest.raises(ValueError, match="unknown kind"):
        S.finish_sum(unknown)


def test_state_info_and_sizes():
    info = S.state_info(S.grouped_moments_state(np.float32([1.0]), [0], 3))
    assert info == {"version": 1, "kind": "grouped_moments", "dtype": FLOAT32, "shape": (3,)}
    # 48 header bytes (8 more per result axis), then the records.
    assert S.sum_state([1.0]).nbytes == 48 + 560
    assert S.dot_state([1.0], [1.0]).nbytes == 48 + 3 * 552
    assert S.moments_state([1.0]).nbytes == 48 + 8 + 552 + 3 * 552 + 8


@given(data=st.data(), ngroups=st.integers(1, 5))
def test_regroup_onto_one_numbering(data, ngroups):
    """Parts that number their groups locally (any map onto the global
    groups, several local groups onto one allowed) regroup, merge and finish
    to the grouped result of all the data."""
    values = data.draw(arrays_1d(FLOAT64, specials=False))
    codes = np.array(data.draw(st.lists(st.integers(0, ngroups - 1), min_size=values.size,
                                        max_size=values.size)), np.int64)
    cuts = data.draw(split_points(values.size))
    parts = []
    for v, c in zip(pieces(values, cuts), pieces(codes, cuts)):
        local = data.draw(st.lists(st.integers(0, ngroups - 1), min_size=ngroups,
                                   max_size=ngroups))
        # A local numbering: local group j holds the values of global group
        # local_to_global[j]; several local groups may name one global group.
        local_to_global = np.array(local + list(range(ngroups)), np.int64)
        choice = np.array([data.draw(st.sampled_from(
            [j for j, g in enumerate(local_to_global) if g == code])) for code in c], np.int64)
        state = S.grouped_moments_state(v, choice, local_to_global.size)
        parts.append(S.regroup(state, local_to_global, ngroups))
    merged = merged_in_random_tree(parts, data.draw)
    assert merged.tobytes() == S.grouped_moments_state(values, codes, ngroups).tobytes()
    got = quiet(S.finish_var, merged)
    for g in range(ngroups):
        check_variance(got[g], terms_of(values[codes == g]), 0, FLOAT64, False)


def test_regroup_refuses_bad_codes():
    state = S.grouped_sum_state([1.0, 2.0], [0, 1], 2)
    with pytest.raises(ValueError, match="one per group"):
        S.regroup(state, [0], 2)
    with pytest.raises(ValueError, match="above every code"):
        S.regroup(state, [0, 2], 2)
    with pytest.raises(ValueError, match="grouped states"):
        S.regroup(S.sum_state([1.0]), [0], 1)
    assert_same(S.finish_sum(S.regroup(state, [-1, 0], 1)), np.array([2.0]))
