"""Bounded scratch memory (issue 18, defects 1 and 2): reductions that go
through exact states (where=, the nan-variants, initial=) or over axes that
do not merge as a view (broadcast views, strided slices) run in blocks, so
their scratch stays near SCRATCH_BYTES instead of 552 bytes per result or a
copy of the input; and the blocks give the same bits as one pass (the
oracle)."""

import math
import tracemalloc
import warnings
from fractions import Fraction

import numpy as np
import pytest
from helpers import assert_same
from oracle import (
    FLOAT64,
    exact_sum_oracle,
    oracle_reduce,
    oracle_reduceat,
    round_fraction,
    terms_of,
)
from oracle_products import exact_dot_oracle, exact_mean_oracle, oracle_mean_reduce
from oracle_roots import assert_rounded_sqrt

import xsumufunc as xs
import xsumufunc._core.grouped as grouped_module
import xsumufunc._core.rows as rows_module

MiB = 1 << 20


def peak_bytes(func, *args, **kwargs):
    tracemalloc.start()
    try:
        result = func(*args, **kwargs)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("call", [
    lambda x: xs.exact_sum(x, axis=1, initial=0.0),
    lambda x: xs.exact_nansum(x, axis=1),
    lambda x: xs.exact_nanmean(x, axis=1),
    lambda x: xs.exact_sum(x, axis=1, where=np.array([True, False, True, True])),
], ids=["initial", "nansum", "nanmean", "where"])
def test_state_paths_use_bounded_scratch(call):
    """400,000 rows: one pass would hold 220 MB of states (440 MB with
    initial=); blocks hold a few SCRATCH_BYTES."""
    x = np.ones((400_000, 4))
    result, peak = peak_bytes(call, x)
    assert result.shape == (400_000,)
    assert peak < rows_module.SCRATCH_BYTES * 4 + 3 * result.nbytes + 8 * MiB, \
        f"{peak / MiB:.0f} MiB"


@pytest.fixture(params=[3, 1], ids=["3-states", "1-state"])
def tiny_blocks(monkeypatch, request):
    """Scratch for three states, so that every test input is split (blocks
    of one index recurse onto the next kept axis); or for one, so that no
    copy fits and states over several reduced axes are merged block by
    block."""
    monkeypatch.setattr(rows_module, "SCRATCH_BYTES", request.param * rows_module.STATE_BYTES)


@pytest.mark.parametrize("call", [
    lambda b: xs.exact_sum(b, axis=(1, 2)),
    lambda b: xs.exact_mean(b, axis=(0, 2)),
    lambda b: xs.exact_nansum(b, axis=(1, 2)),
    lambda b: xs.exact_sum(b, axis=None),
    lambda b: xs.exact_sum_state(b, axis=(1, 2)),
], ids=["sum", "mean-columns", "nansum", "all", "state"])
def test_broadcast_views_are_never_copied_whole(call):
    """Defect 2: axes that do not merge as a view.  A 32 MiB broadcast view
    that holds 128 bytes: the scratch stays within a few SCRATCH_BYTES (one
    pass copied all of it, or held 16 states per result)."""
    b = np.broadcast_to(np.arange(16.0), (16_384, 16, 16))
    result, peak = peak_bytes(call, b)
    assert peak < rows_module.SCRATCH_BYTES * 4 + 3 * np.asarray(result).nbytes + 8 * MiB, \
        f"{peak / MiB:.0f} MiB"


def test_broadcast_view_sums_are_exact():
    """The blocked copies against the oracle, on a view that broadcasts
    wide-ranged values (and NaN for the nan-variant)."""
    rng = np.random.default_rng(5)
    row = rng.standard_normal(16) * np.exp(rng.uniform(-300, 300, 16))
    b = np.broadcast_to(row, (3000, 16, 16))
    expected = oracle_reduce(b[:2], axis=(1, 2))[0]
    got = xs.exact_sum(b, axis=(1, 2))
    assert got.shape == (3000,)
    assert_same(got, np.full(3000, expected))


@pytest.mark.parametrize("axis", [0, 1, 2, (0, 2), (1, 2), (0, 1, 2)])
@pytest.mark.parametrize("view", ["contiguous", "strided"])
def test_blocks_give_the_oracle(tiny_blocks, axis, view):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5, 8, 6)) * np.exp(rng.uniform(-40, 40, (5, 8, 6)))
    a[rng.random(a.shape) < 0.1] = np.nan
    a = a[:, ::2] if view == "strided" else a[:, :4]
    where = rng.random(a.shape) < 0.7
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert_same(xs.exact_nansum(a, axis=axis), oracle_reduce(a, axis=axis, skip_nan=True))
        assert_same(xs.exact_sum(a, axis=axis, where=where, keepdims=True),
                    oracle_reduce(a, axis=axis, where=where, keepdims=True))
        assert_same(xs.exact_sum(a, axis=axis, initial=1e300, dtype=np.float32),
                    oracle_reduce(a, axis=axis, initial=1e300, dtype=np.float32))
        assert_same(xs.exact_nanmean(a, axis=axis),
                    oracle_mean_reduce(a, axis=axis, skip_nan=True))
        out = np.empty(np.sum(a, axis=axis).shape, np.float64)
        assert xs.exact_nansum(a, axis=axis, out=out) is out
        assert_same(out, oracle_reduce(a, axis=axis, skip_nan=True))
        c = a + 1j * a[::-1]
        assert_same(xs.exact_nansum(c, axis=axis), oracle_reduce(c, axis=axis, skip_nan=True))


def test_empty_means_still_warn_in_blocks(tiny_blocks):
    a = np.full((4, 5), np.nan)
    a[0] = 1.0
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = xs.exact_nanmean(a, axis=1)
    assert got[0] == 1.0 and np.isnan(got[1:]).all()


@pytest.mark.parametrize("shape,axis", [((400_000, 4), 1), ((4_000_000,), None),
                                        ((4, 600_000), 0)], ids=["rows", "1-D", "columns"])
def test_vector_norm_uses_bounded_scratch(shape, axis):
    """Defect 3: the 2-norm took 9.4x its input for 1-D data and 130x for
    short rows.  Now blocks of rows (and long rows through one exact dot
    state each) keep the scratch near the block size, whatever the input."""
    from xsumufunc import array_api as xp
    x = np.ones(shape)
    result, peak = peak_bytes(xp.linalg.vector_norm, x, axis=axis)
    # Ones: the exact norm is the root of the count, 2 (4 terms) or 2000 (4e6 terms).
    assert_same(result, np.full(result.shape, 2000.0 if axis is None else 2.0))
    assert peak < 2 * rows_module.SCRATCH_BYTES + 3 * result.nbytes + x.nbytes // 8 + 8 * MiB, \
        f"{peak / MiB:.0f} MiB"


def test_integer_dot_operands_are_cast_a_block_at_a_time():
    """Defect 4: integer operands were cast to float64 whole (8x an int8
    operand).  A long int8 vector goes in chunks whose exact dot states are
    merged; many rows go in blocks."""
    pattern = np.arange(-3, 4, dtype=np.int8)
    x, y = np.resize(pattern, 24_000_000), np.resize(pattern[::-1], 24_000_000)
    result, peak = peak_bytes(xs.exact_dot, x, y)
    # The exact value from one period of products, in Python integers (below
    # 2^53 in magnitude: a double holds it exactly).
    period = [int(a) * int(b) for a, b in zip(pattern, pattern[::-1])]
    whole, rest = divmod(len(x), len(pattern))
    exact = whole * sum(period) + sum(period[:rest])
    assert abs(exact) < 2**53
    assert_same(result, np.float64(exact))
    assert peak < 2 * rows_module.SCRATCH_BYTES + 8 * MiB, f"{peak / MiB:.0f} MiB"
    a = np.resize(pattern, (2_400_000, 10))
    result, peak = peak_bytes(xs.exact_dot, a, np.resize(pattern, 10))
    assert peak < 2 * rows_module.SCRATCH_BYTES + 2 * result.nbytes + 8 * MiB, \
        f"{peak / MiB:.0f} MiB"


@pytest.mark.parametrize("scratch", [1, 200])
@pytest.mark.parametrize("da,db", [(np.int8, np.int8), (np.int16, np.float64),
                                   (np.float16, np.float32), (np.int32, np.int64)])
def test_dot_blocks_give_the_oracle(monkeypatch, scratch, da, db):
    """With scratch for one value (chunks of the vector through merged dot
    states) or a few rows (blocks of the broadcast loop), every dot against
    the oracle, broadcasting and a vector axis that is not the last."""
    monkeypatch.setattr(rows_module, "SCRATCH_BYTES", scratch)
    rng = np.random.default_rng(8)
    a = rng.integers(-100, 100, (3, 7, 4)).astype(da)
    b = (rng.integers(-100, 100, (1, 7, 1)) * (1.5 if np.dtype(db).kind == "f" else 1)).astype(db)
    got = xs.exact_dot(a, b, axis=1)
    assert got.shape == (3, 4)
    bb = np.broadcast_to(b, (3, 7, 4))
    for i in range(3):
        for j in range(4):
            assert_same(got[i, j], exact_dot_oracle(a[i, :, j].tolist(), bb[i, :, j].tolist(),
                                                    got.dtype))
    out = np.empty((3, 4), np.float32)
    assert xs.exact_dot(a, b, axis=1, out=out) is out
    assert_same(out[0, 0], exact_dot_oracle(a[0, :, 0].tolist(), bb[0, :, 0].tolist(),
                                            np.float32))


def test_blocked_dot_splits_wide_integers_in_their_own_block(monkeypatch):
    """A 64-bit integer that float64 cannot hold, in the last block only:
    that block splits it into exact halves, the others take the fast path,
    and every dot written into out is the exact one."""
    monkeypatch.setattr(rows_module, "SCRATCH_BYTES", 64)
    a = np.ones((6, 5), np.int64)
    a[5, 4] = 2**53 + 1
    b = np.array([1, 2, 3, 4, 2**60 + 3], np.int64)
    out = np.full(6, 7.0)
    assert xs.exact_dot(a, b, out=out) is out
    for i in range(6):
        assert_same(out[i], exact_dot_oracle(a[i].tolist(), b.tolist(), np.float64))


def test_grouped_sums_of_many_groups_use_bounded_scratch():
    """Defect 4: more than 4,096 groups ordered the whole input at once (an
    order, sort keys, gathered values: 115 MiB here, growing with the
    input).  Now a chunk at a time, each chunk's group states merged into one
    running state per group: the scratch is those states (552 bytes a group)
    and a bounded chunk (52 MiB here), whatever the input's length."""
    rng = np.random.default_rng(18)
    ngroups, n = 10_000, 8_000_000                       # 61 MiB of values
    codes = rng.integers(0, ngroups, n)
    ints = rng.integers(-2**30, 2**30, n)
    values = ints.astype(np.float64)                     # sums exact in int64
    sums, peak = peak_bytes(xs.exact_grouped_sum, values, codes, ngroups)
    states = ngroups * rows_module.STATE_BYTES
    chunk = grouped_module._chunk_length(ngroups)
    assert chunk < n
    assert peak < 2 * states + 240 * chunk, f"{peak / MiB:.0f} MiB"      # 74 MiB
    order = np.argsort(codes, kind="stable")
    starts = np.searchsorted(codes[order], np.arange(ngroups))
    exact = np.add.reduceat(ints[order], starts)         # int64: exact integer sums
    assert_same(sums, exact.astype(np.float64))          # |sum| < 2**53: exact in float64


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64])
def test_grouped_chunks_of_many_groups_give_the_oracle(monkeypatch, dtype):
    """Chunks of 37 values over 50 groups (so most groups span chunks, some
    are absent from a chunk, some empty), spread magnitudes, NaNs skipped or
    not, missing codes: every group's sum and mean against the oracle."""
    monkeypatch.setattr(grouped_module, "_CHUNK_VALUES", 37)
    monkeypatch.setattr(grouped_module, "_CHUNK_VALUES_PER_GROUP", 0)
    monkeypatch.setattr(grouped_module, "_ORDER_BYTES_PER_VALUE", 1 << 40)
    rng = np.random.default_rng(4)
    n, ngroups = 700, 50
    spread = rng.standard_normal(n) * 2.0 ** rng.integers(-60, 60, n)
    if np.dtype(dtype).kind == "c":
        spread = spread + 1j * rng.standard_normal(n) * 2.0 ** rng.integers(-60, 60, n)
    values = (rng.integers(-1000, 1000, n) if np.dtype(dtype).kind == "i" else spread).astype(dtype)
    if np.dtype(dtype).kind != "i":
        values[::29] = np.nan
    codes = rng.integers(-1, ngroups - 3, n)            # -1: no group; the last 3 empty
    result = np.dtype(np.float64) if np.dtype(dtype).kind == "i" else np.dtype(dtype)
    for skip_nan in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)     # empty groups' means
            sums = xs.exact_grouped_sum(values, codes, ngroups, skip_nan=skip_nan)
            means = xs.exact_grouped_mean(values, codes, ngroups, skip_nan=skip_nan)
        for g in range(ngroups):
            terms = terms_of(values[codes == g])
            assert_same(sums[g], exact_sum_oracle(terms, result, skip_nan=skip_nan))
            assert_same(means[g], exact_mean_oracle(terms, result, skip_nan=skip_nan))


def test_complex_dot_operands_go_in_blocks():
    """Defect 4: complex operands were split into real and imaginary parts
    concatenated whole (about four times both operands, 77-122 MiB here).
    Now the parts are cast and concatenated a block (or chunk) at a time."""
    rng = np.random.default_rng(12)
    n = 2_000_000                                        # 31 MiB per complex operand
    a = rng.integers(-8, 8, n) + 1j * rng.integers(-8, 8, n)
    b = rng.integers(-8, 8, n) + 1j * rng.integers(-8, 8, n)
    ints = np.arange(n, dtype=np.int64) - n // 2
    # Small integers: the exact dots are integers below 2**53, computed exactly
    # from int64 arrays.
    ar, ai, br, bi = (v.astype(np.int64) for v in (a.real, a.imag, b.real, b.imag))
    cases = [
        (a, b, complex(int(ar @ br + ai @ bi), int(ar @ bi - ai @ br))),
        (a, b.real.copy(), complex(int(ar @ br), int(-(ai @ br)))),
        (a, ints, complex(int(ar @ ints), int(-(ai @ ints)))),
    ]
    for x, y, exact in cases:
        result, peak = peak_bytes(xs.exact_dot, x, y)
        assert_same(result, np.complex128(exact))
        assert peak < 2 * rows_module.SCRATCH_BYTES + 8 * MiB, f"{peak / MiB:.0f} MiB"
    rows_a, rows_b = a.reshape(1000, -1), b.reshape(1000, -1)
    result, peak = peak_bytes(xs.exact_dot, rows_a, rows_b)
    assert peak < 2 * rows_module.SCRATCH_BYTES + 2 * result.nbytes + 8 * MiB, \
        f"{peak / MiB:.0f} MiB"
    assert_same(result[7], xs.exact_dot(rows_a[7], rows_b[7]))


@pytest.mark.parametrize("scratch", [1, 300])
@pytest.mark.parametrize("da,db", [(np.complex128, np.complex128), (np.complex64, np.float64),
                                   (np.int64, np.complex128), (np.complex64, np.float16)])
def test_complex_dot_blocks_give_the_oracle(monkeypatch, scratch, da, db):
    """With scratch for one value (chunks of the vector through merged dot
    states, the negated part too) or a few rows, every complex dot against
    the oracle: spread magnitudes, signed zeros, 64-bit integers beyond
    2**53, broadcasting, a vector axis that is not the last, out=."""
    monkeypatch.setattr(rows_module, "SCRATCH_BYTES", scratch)
    rng = np.random.default_rng(21)

    def draw(dtype, shape):
        if np.dtype(dtype).kind == "i":
            return rng.integers(-2**62, 2**62, shape)
        e = 10 if np.dtype(dtype).itemsize == 2 else 40      # float16: within its range
        x = rng.standard_normal(shape) * 2.0 ** rng.integers(-e, e, shape)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.standard_normal(shape) * 2.0 ** rng.integers(-e, e, shape)
        x = x.astype(dtype)
        x.flat[::5] = -0.0
        return x

    a, b = draw(da, (3, 7, 4)), draw(db, (1, 7, 1))
    got = xs.exact_dot(a, b, axis=1)
    result = got.dtype
    assert result.kind == "c" and got.shape == (3, 4)
    bb = np.broadcast_to(b, (3, 7, 4))
    for i in range(3):
        for j in range(4):
            assert_same(got[i, j], exact_dot_oracle(a[i, :, j].tolist(), bb[i, :, j].tolist(),
                                                    result))
    out = np.empty((3, 4), np.complex64)
    assert xs.exact_dot(a, b, axis=1, out=out) is out
    assert_same(out[2, 3], exact_dot_oracle(a[2, :, 3].tolist(), bb[2, :, 3].tolist(),
                                            np.complex64))
    vector = xs.exact_dot(a[1, :, 2], bb[1, :, 2])            # one long vector: chunks
    assert_same(vector, exact_dot_oracle(a[1, :, 2].tolist(), bb[1, :, 2].tolist(), result))


# ---- issue 28: variances, norms and reduceat of views -------------------

F64 = np.dtype(np.float64)

def _broadcast_rows(rows):
    """A broadcast view of `rows` copies of one row of 1024 values (8 KiB held)."""
    row = np.random.default_rng(28).standard_normal(1024)
    return row, np.broadcast_to(row, (rows, 1024))


def _within_output_plus_64_mib(peak, result):
    assert peak < np.asarray(result).nbytes + 64 * MiB, f"{peak / MiB:.0f} MiB"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["exact_var", "exact_nanvar", "vector_norm", "reduceat"])
def test_whole_view_reductions_do_not_copy_the_view(name):
    """Regression (issue 28): on a 1 GiB broadcast view holding 8 KiB,
    exact_var took +1,025 MiB, exact_nanvar +2,177 MiB, vector_norm +1,024
    MiB and exact_add.reduceat(axis=0) +2,064 MiB.  Now the scratch stays
    within the output + 64 MiB, and the results are the oracle's."""
    from oracle_moments import var_oracle
    from oracle_roots import exact_square_sum, rounded_sqrt

    from xsumufunc import array_api as xp
    row, a = _broadcast_rows(2**17)
    terms = terms_of(row)
    if name == "reduceat":
        result, peak = peak_bytes(xs.exact_add.reduceat, a, [0, 5], axis=0)
        from oracle import round_fraction
        # Segment sums of copies of one value: that value times the count.
        assert_same(result, np.array([[round_fraction(Fraction(v) * count, F64)
                                       for v in terms] for count in (5, 2**17 - 5)]))
    elif name == "vector_norm":
        result, peak = peak_bytes(xp.linalg.vector_norm, a)
        assert_same(result, np.asarray(rounded_sqrt(exact_square_sum(row) * 2**17, F64)))
    else:
        result, peak = peak_bytes(getattr(xs, name), a)
        from oracle import round_fraction
        # The variance of copies of a row is the row's variance.
        assert_same(result, round_fraction(var_oracle(terms, 0), F64))
    _within_output_plus_64_mib(peak, result)


def test_row_variances_of_a_broadcast_view_hold_blocks_of_states():
    """Regression (issue 28): exact_var(a, axis=1) of 2**17 broadcast rows
    took +532 MiB (exact states of every row at once); blocks of rows hold
    their states only.  2**15 rows here (+137 MiB before)."""
    from oracle import round_fraction
    from oracle_moments import var_oracle
    row, a = _broadcast_rows(2**15)
    result, peak = peak_bytes(xs.exact_var, a, axis=1)
    assert_same(result, np.full(2**15, round_fraction(var_oracle(terms_of(row), 0),
                                                      F64)))
    _within_output_plus_64_mib(peak, result)


def test_the_variance_of_a_transposed_array_reads_it_in_place():
    """Regression (issue 28): exact_var(X.T) took +513 MiB where exact_var(X)
    took +1 MiB (the transposed rows were copied); the order of the terms
    does not matter, so they are read in memory order."""
    x = np.random.default_rng(1).standard_normal((2048, 4096))
    result, peak = peak_bytes(xs.exact_var, x.T)
    assert_same(result, xs.exact_var(x))
    assert peak < 8 * MiB, f"{peak / MiB:.0f} MiB"


@pytest.mark.slow
def test_the_norm_of_a_broadcast_scalar_beyond_2_to_31_terms():
    """Regression (issue 28): vector_norm(np.broadcast_to(1.5, (2**31 + 3,)))
    raised MemoryError (it asked for 16 GiB)."""
    from oracle_roots import rounded_sqrt

    from xsumufunc import array_api as xp
    n = 2**31 + 3
    result, peak = peak_bytes(xp.linalg.vector_norm, np.broadcast_to(1.5, (n,)))
    assert_same(result, np.asarray(rounded_sqrt(Fraction(9, 4) * n, F64)))
    _within_output_plus_64_mib(peak, result)


def test_a_long_float16_row_is_not_widened_whole():
    """Regression (issue 28): vector_norm of a 4 GiB float16 memmap raised
    MemoryError (the row was widened to float64 whole).  A 64 MiB float16
    row now takes a bounded scratch."""
    from oracle_roots import rounded_sqrt

    from xsumufunc import array_api as xp
    x = np.ones(2**25, np.dtype(np.float16))
    x[::3] = np.float16(0.5)
    result, peak = peak_bytes(xp.linalg.vector_norm, x)
    squares = Fraction(1, 4) * len(x[::3]) + (len(x) - len(x[::3]))
    assert_same(result, np.asarray(rounded_sqrt(squares, np.dtype(np.float16))))
    assert peak < 2 * rows_module.SCRATCH_BYTES + 8 * MiB, f"{peak / MiB:.0f} MiB"


@pytest.mark.parametrize("shape,axis", [((7, 6, 5), None), ((7, 6, 5), (0, 2)), ((7, 6, 5), 1),
                                        ((40, 3), 0)])
@pytest.mark.parametrize("view", ["broadcast", "transposed", "strided"])
def test_blocked_variances_and_norms_give_the_oracle(tiny_blocks, shape, axis, view):
    """The pieces of row_blocks (scratch for one to three states: every
    block is cut, long rows into pieces whose moments are merged) against
    the oracle, NaN-skipping and complex included."""
    from oracle import round_fraction
    from oracle_moments import var_oracle
    from oracle_roots import exact_square_sum, rounded_sqrt

    from xsumufunc import array_api as xp
    rng = np.random.default_rng(7)
    base = rng.standard_normal(shape) * np.exp(rng.uniform(-30, 30, shape))
    a = {"broadcast": np.broadcast_to(base[:1], shape), "transposed": base.T.copy().T,
         "strided": np.repeat(base, 2, axis=-1)[..., ::2]}[view]
    axes = tuple(range(a.ndim)) if axis is None else (axis,) if isinstance(axis, int) else axis
    kept = [i for i in range(a.ndim) if i not in axes]
    rows = np.transpose(a, kept + list(axes)).reshape(
        [a.shape[i] for i in kept] + [-1]).reshape(-1, math.prod(a.shape[i] for i in axes))
    out_shape = tuple(a.shape[i] for i in kept)
    with_nan = a.copy()
    with_nan.reshape(-1)[::4] = np.nan
    nan_rows = np.transpose(with_nan, kept + list(axes)).reshape(rows.shape)
    expect_var = np.array([round_fraction(var_oracle(terms_of(r), 0), F64)
                           for r in rows]).reshape(out_shape)
    expect_nanvar = np.array([round_fraction(var_oracle(terms_of(r[~np.isnan(r)]), 1),
                                             F64) for r in nan_rows]).reshape(out_shape)
    expect_norm = np.array([rounded_sqrt(exact_square_sum(r), F64)
                            for r in rows]).reshape(out_shape)
    assert_same(xs.exact_var(a, axis=axis), expect_var[()])
    assert_same(xs.exact_nanvar(with_nan, axis=axis, ddof=1), expect_nanvar[()])
    assert_same(xp.linalg.vector_norm(a, axis=axis), np.asarray(expect_norm))
    c = a + 1j * a[::-1]
    crow = np.transpose(c, kept + list(axes)).reshape(rows.shape)
    assert_same(xs.exact_var(c, axis=axis), np.array(
        [round_fraction(var_oracle(terms_of(r), 0), F64) for r in crow]
    ).reshape(out_shape)[()])
    assert_same(xp.linalg.vector_norm(c, axis=axis), np.asarray(np.array(
        [rounded_sqrt(exact_square_sum(r), F64) for r in crow]).reshape(out_shape)))


def test_blocked_reduceat_gives_the_oracle(tiny_blocks, monkeypatch):
    """Runs of short segments gathered a few rows at a time, long segments
    (made short here) summed as views: the oracle's sums."""
    import xsumufunc._core.add as add_module
    monkeypatch.setattr(add_module, "LONG_SEGMENT", 3)
    rng = np.random.default_rng(9)
    base = rng.standard_normal((6, 11)) * np.exp(rng.uniform(-30, 30, (6, 11)))
    for a in (base, np.broadcast_to(base[:1], (6, 11)), base.T.copy().T[:, ::-1]):
        for axis, indices in ((1, [0, 1, 5, 2, 9, 10]), (0, [0, 2, 3, 1]), (1, [4])):
            assert_same(xs.exact_add.reduceat(a, indices, axis=axis),
                        oracle_reduceat(a, indices, axis=axis))


GROUPED_N = 10**7                                       # 76 MiB of float64 values


@pytest.fixture(scope="module")
def grouped_input():
    """1e7 float64 values that are integers below 2**20 in magnitude (so
    that each group's exact sums are Python integers, and the oracle is
    cheap for groups of a million values) and random codes for 1e5 and 10
    groups."""
    rng = np.random.default_rng(28)
    ints = rng.integers(-2**20, 2**20, GROUPED_N)
    codes = {ngroups: rng.integers(0, ngroups, GROUPED_N) for ngroups in (100_000, 10)}
    return ints, ints.astype(np.float64), codes


def _grouped_exact(ints, name):
    """The exact result of one group (its values as int64) by the oracles:
    its exact sum, mean or variance as a Fraction of Python integers,
    rounded once (std: the correctly rounded root)."""
    n = ints.size
    s1 = int(ints.sum())
    if name == "sum":
        return round_fraction(Fraction(s1), FLOAT64)
    if name == "mean":
        return round_fraction(Fraction(s1, n), FLOAT64)
    s2 = sum(int(v) * int(v) for v in ints) if n < 1000 else int((ints * ints).sum())
    return Fraction(n * s2 - s1 * s1, n * n)            # |ints| < 2**20: int64 holds s2


@pytest.mark.parametrize("name", ["sum", "mean", "var", "std", "nanvar", "nanstd"])
@pytest.mark.parametrize("ngroups", [100_000, 10])
@pytest.mark.parametrize("codes_order", ["random", "sorted"])
def test_grouped_statistics_use_output_plus_64_mib(grouped_input, name, ngroups, codes_order):
    """Regression (issue 28): exact_grouped_var of 1e7 float64 values in
    1e5 groups took +277 MiB over its 76 MiB input (whole int64 orders, sort
    keys, moments of every left group at once), and grouped sums +135-157
    MiB (running states of every group).  Now a counting sort a chunk at a
    time into a 32-bit order (none when the codes already ascend) and
    bounded batches: at most the output + 64 MiB.  A sample of groups
    against the exact oracle."""
    ints, values, codes = grouped_input
    codes = codes[ngroups] if codes_order == "random" else np.sort(codes[ngroups])
    func = getattr(xs, "exact_grouped_" + name.removeprefix("nan"))
    kwargs = {"skip_nan": True} if name.startswith("nan") else {}
    result, peak = peak_bytes(func, values, codes, ngroups, **kwargs)
    assert peak < result.nbytes + 64 * MiB, f"{peak / MiB:.0f} MiB"
    for g in np.unique(np.r_[0, ngroups - 1, np.linspace(0, ngroups - 1, 12).astype(int)]):
        exact = _grouped_exact(ints[codes == g], name.removeprefix("nan"))
        if name.endswith("std"):
            assert_rounded_sqrt(result[g], exact, FLOAT64)
        elif name.endswith("var"):
            assert_same(result[g], round_fraction(exact, FLOAT64))
        else:
            assert_same(result[g], exact)
