"""64-bit integers beyond 2**53 (issue 17, item 5): exact_dot, the
variances, the moving sums, vector_norm and the pandas row reductions are
exact for every int64 and uint64 value, bit for bit against the Fraction
oracles; none is refused.  Each integer splits into two exact float64
halves (dtypes.float64_parts) only when a float64 cannot hold it."""

import math
import tracemalloc
import warnings
from fractions import Fraction

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given
from hypothesis import strategies as st
from oracle import FLOAT32, FLOAT64, round_fraction, terms_of
from oracle_moments import var_oracle
from oracle_products import exact_dot_oracle, oracle_dot
from strategies import axis_args, nd_arrays, value_lists, where_masks
from test_array_api import assert_rounded_sqrt
from test_moving import moving_oracle

import xsumufunc as xs
import xsumufunc._core.norm as norm_module
import xsumufunc._core.rows as rows_module
from xsumufunc._core import dtypes
from xsumufunc.array_api import linalg

I64, U64 = np.dtype(np.int64), np.dtype(np.uint64)
WIDE = [I64, U64]
EDGES = [-2**63, 2**63 - 1, 2**64 - 1, 2**63, 2**53 + 1, -(2**53) - 1, 2**62 + 1]


def _wide(values, dtype):
    info = np.iinfo(dtype)
    return np.array([v for v in values if info.min <= v <= info.max], dtype)


@st.composite
def wide_vectors(draw, dtype, n=None):
    """A 1-D array of `dtype` (int64 or uint64) over the full range with at
    least one value beyond 2**53 (so the split path is taken)."""
    info = np.iinfo(dtype)
    if n is None:
        n = draw(st.integers(1, 20))
    edges = [v for v in EDGES if info.min <= v <= info.max]
    values = draw(st.lists(st.one_of(st.integers(int(info.min), int(info.max)),
                                     st.sampled_from(edges)), min_size=n, max_size=n))
    values[draw(st.integers(0, n - 1))] = draw(st.sampled_from([2**53 + 1, 2**63 - 1]))
    return np.array(values, dtype)


@st.composite
def partners(draw, n, dtype):
    """n values of `dtype` (a float, complex or integer dtype) from the
    adversarial lists, padded with zeros."""
    values = list(draw(value_lists(dtype)))[:n]
    pad = 0 if np.dtype(dtype).kind in "iub" else 0.0
    values += [pad] * (n - len(values))
    if np.dtype(dtype).kind == "c":
        return np.array([complex(v) for v in values], dtype)
    return np.array(values, dtype)


def test_parts_are_exact_and_only_split_when_needed():
    for dtype in WIDE:
        x = _wide(EDGES + [0, 1, -1, 2**32 - 1, 2**32, -(2**32)], dtype)
        high, low = dtypes.float64_parts(x)
        for v, h, lo in zip(x.tolist(), high.tolist(), low.tolist()):
            assert Fraction(h) + Fraction(lo) == v
            # Of the integer's sign, and zero only for 0 (Inf partners: see below).
            assert np.sign(h) == np.sign(lo) == np.sign(v)
        fits = _wide([2**53, -2**53, 2**63, -2**63, 7], dtype)
        (whole,) = dtypes.float64_parts(fits)
        assert [int(v) for v in whole] == [int(v) for v in fits]
    same = np.ones(3)
    assert dtypes.float64_parts(same)[0] is same


@given(data=st.data(), da_=st.sampled_from(WIDE),
       db_=st.sampled_from(WIDE + [FLOAT64, FLOAT32, np.dtype(np.int32),
                                   np.dtype(np.complex128), np.dtype(np.bool_)]))
def test_dot_matches_the_oracle(data, da_, db_):
    a = data.draw(wide_vectors(da_))
    b = data.draw(partners(len(a), db_))
    got = xs.exact_dot(a, b)
    expected = exact_dot_oracle(terms_of(a), terms_of(b), np.asarray(got).dtype)
    assert_same(got, expected)
    assert_same(xs.exact_dot(b, a), exact_dot_oracle(terms_of(b), terms_of(a),
                                                     np.asarray(got).dtype))
    narrow = np.dtype(np.complex64) if db_.kind == "c" else FLOAT32
    assert_same(xs.exact_dot(a, b, dtype=narrow),
                exact_dot_oracle(terms_of(a), terms_of(b), narrow))


@given(data=st.data(), da_=st.sampled_from(WIDE), db_=st.sampled_from(WIDE + [FLOAT64]))
def test_dot_of_nd_arrays_axis_keepdims_out(data, da_, db_):
    a = data.draw(nd_arrays(da_, max_dims=3))
    b = data.draw(nd_arrays(db_, shape=a.shape, specials=False))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    keepdims = data.draw(st.booleans())
    expected = oracle_dot(a, b, axis, keepdims=keepdims)
    assert_same(xs.exact_dot(a, b, axis=axis, keepdims=keepdims), expected)
    out = np.full(np.shape(expected), 9.5, FLOAT32)
    got = xs.exact_dot(a, b, axis=axis, keepdims=keepdims, out=out)
    assert got is out
    assert_same(out, oracle_dot(a, b, axis, dtype=FLOAT32, keepdims=keepdims))


@pytest.mark.parametrize("scratch", [64, 200, 1 << 10])
def test_blocked_dots_and_chunked_vectors_are_exact(monkeypatch, scratch):
    """Small scratch: blocks of rows, and one long vector in chunks whose
    exact dot states are merged; a wide integer in some blocks only."""
    monkeypatch.setattr(rows_module, "SCRATCH_BYTES", scratch)
    rng = np.random.default_rng(5)
    a = rng.integers(-2**63, 2**63 - 1, (7, 40), dtype=np.int64, endpoint=True)
    a[:3] //= 2**20                                     # these rows fit a float64
    b = rng.integers(0, 2**64 - 1, 40, dtype=np.uint64, endpoint=True)
    got = xs.exact_dot(a, b)
    for i in range(7):
        assert_same(got[i], exact_dot_oracle(a[i].tolist(), b.tolist(), FLOAT64))
    assert_same(xs.exact_dot(a.ravel(), a.ravel()),
                exact_dot_oracle(a.ravel().tolist(), a.ravel().tolist(), FLOAT64))
    c = rng.standard_normal(40) * 2.0 ** rng.integers(-60, 60, 40)
    assert_same(xs.exact_dot(a[5], c), exact_dot_oracle(a[5].tolist(), c.tolist(), FLOAT64))


def test_infinite_and_nan_partners_of_split_integers():
    """Found by test_dot_matches_the_oracle: [2**53 + 1, 0, 1] . [1, 1, Inf]
    gave NaN (a zero half of 1 times Inf); halves of opposite signs would
    give Inf - Inf.  Each product of a split integer with Inf or NaN is the
    integer's."""
    a = np.array([2**53 + 1, 0, 1], np.int64)
    cases = [(a, [1.0, 1.0, np.inf]), (a, [1.0, np.inf, 1.0]), (-a, [1.0, 1.0, np.inf]),
             (a, [np.nan, 1.0, 1.0]), (a, [1.0, np.inf, -np.inf]),
             (np.array([-(2**53) - 1, 2**32, -(2**32), -1], np.int64),
              [1.0, np.inf, -np.inf, np.inf]),
             (np.array([2**64 - 1, 2**32, 5], np.uint64), [-np.inf, -np.inf, 2.0])]
    for x, y in cases:
        y = np.array(y)
        assert_same(xs.exact_dot(x, y), exact_dot_oracle(terms_of(x), y.tolist(), FLOAT64))
        assert_same(xs.exact_dot(y, x), exact_dot_oracle(y.tolist(), terms_of(x), FLOAT64))


def test_complex_partners():
    a = np.array([2**63 - 1, -2**63, 2**53 + 1], np.int64)
    z = np.array([1 + 2j, -3.5 - 1j, 2.0**-60 + 1e300j])
    cancel = np.array([2**53 + 1, -(2**53)], np.int64)           # . (1+1j, 1+1j) = 1+1j
    ones = np.array([1 + 1j, 1 + 1j])
    for x, y in ((a, z), (z, a), (cancel, ones), (ones, cancel)):
        assert_same(xs.exact_dot(x, y), exact_dot_oracle(terms_of(x), terms_of(y),
                                                         np.complex128))


def test_a_long_dot_beyond_2_53_in_bounded_memory():
    """2,000,000 odd values near 2**62 (none a float64) against +1, -1, ...:
    the exact dot is -n (each pair gives -2); rounded terms would give about
    0.  The casts and splits go a block at a time."""
    n = 2_000_000
    a = np.int64(2**62) + 2 * np.arange(n, dtype=np.int64) + 1
    b = np.ones(n, np.int64)
    b[1::2] = -1
    for x, y, expected in ((a, b, np.float64(-n)),
                           (a.reshape(1000, -1), b[:n // 1000], np.full(1000, -n / 1000))):
        tracemalloc.start()
        try:
            got = xs.exact_dot(x, y)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert_same(got, expected)
        assert peak < 2 * rows_module.SCRATCH_BYTES + (8 << 20), f"{peak >> 20} MiB"


@pytest.mark.parametrize("func, std", [(xs.exact_var, False), (xs.exact_std, True),
                                       (xs.exact_nanvar, False), (xs.exact_nanstd, True)])
@given(data=st.data(), dtype=st.sampled_from(WIDE))
def test_variances_match_the_oracle(func, std, data, dtype):
    x = data.draw(wide_vectors(dtype))
    ddof = data.draw(st.sampled_from([0, 1]))
    v = var_oracle(terms_of(x), ddof)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = func(x, ddof=ddof)
    if isinstance(v, str):
        assert_same(got, np.float64(math.nan if v == "nan" else math.inf))
    elif std:
        assert_rounded_sqrt(got, v, FLOAT64)
    else:
        assert_same(got, round_fraction(v, FLOAT64))


@given(data=st.data(), dtype=st.sampled_from(WIDE))
def test_variances_over_axes_with_where_keepdims_out(data, dtype):
    x = data.draw(nd_arrays(dtype, min_dims=2, max_dims=3))
    axis = data.draw(axis_args(x.ndim))
    where = data.draw(where_masks(x.shape))
    kwargs = dict(axis=axis, keepdims=True, where=where)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        var = xs.exact_var(x, **kwargs)
        out = np.empty(var.shape, FLOAT32)
        assert xs.exact_std(x, out=out, **kwargs) is out
    axes = tuple(range(x.ndim)) if axis is None else (axis if isinstance(axis, tuple)
                                                      else (axis,))
    axes = tuple(a % x.ndim for a in axes)
    mask = np.broadcast_to(where, x.shape)
    for index in np.ndindex(var.shape):
        pick = tuple(slice(None) if i in axes else index[i] for i in range(x.ndim))
        terms = x[pick][mask[pick]]
        v = var_oracle(terms_of(terms), 0)
        if isinstance(v, str):
            assert math.isnan(var[index]) and math.isnan(out[index])
            continue
        assert_same(var[index], round_fraction(v, FLOAT64))
        assert_rounded_sqrt(out[index], v, FLOAT32)


@pytest.mark.parametrize("scratch", [100, 1000])
def test_variances_of_long_rows_in_chunks(monkeypatch, scratch):
    """Rows of wide integers are split a chunk of columns at a time and the
    chunks' exact states merged (bounded scratch): the same exact moments."""
    monkeypatch.setattr(rows_module, "SCRATCH_BYTES", scratch)
    rng = np.random.default_rng(8)
    x = rng.integers(-2**63, 2**63 - 1, (3, 37), dtype=np.int64, endpoint=True)
    keep = rng.random((3, 37)) < 0.8
    for ddof in (0, 1):
        var = xs.exact_var(x, axis=1, ddof=ddof, where=keep)
        std = xs.exact_std(x, axis=1, ddof=ddof)
        for i in range(3):
            assert_same(var[i], round_fraction(var_oracle(terms_of(x[i][keep[i]]), ddof),
                                               FLOAT64))
            assert_rounded_sqrt(std[i], var_oracle(terms_of(x[i]), ddof), FLOAT64)


@given(data=st.data(), dtype=st.sampled_from(WIDE), mean=st.booleans())
def test_moving_sums_and_means_match_the_oracle(data, dtype, mean):
    x = data.draw(wide_vectors(dtype))
    window = data.draw(st.integers(1, len(x)))
    min_count = data.draw(st.one_of(st.none(), st.integers(1, window)))
    func = xs.exact_moving_mean if mean else xs.exact_moving_sum
    got = func(x, window, min_count=min_count)
    expected = moving_oracle(x, window, window if min_count is None else min_count, mean,
                             FLOAT64)
    assert_same(got, np.array(expected, FLOAT64))


def test_moving_sums_along_an_axis():
    x = np.array([[2**63 - 1, 2**53 + 1], [-2**63, 3], [2**62 + 1, -1], [5, 2**60 + 7]],
                 np.int64)
    got = xs.exact_moving_sum(x, 3, axis=0, min_count=2)
    for j in range(2):
        assert_same(got[:, j], np.array(moving_oracle(x[:, j], 3, 2, False, FLOAT64)))
    got = xs.exact_moving_mean(x, 2, axis=1)
    for i in range(4):
        assert_same(got[i], np.array(moving_oracle(x[i], 2, 2, True, FLOAT64)))


@given(data=st.data(), dtype=st.sampled_from(WIDE), keepdims=st.booleans())
def test_vector_norms_are_correctly_rounded(data, dtype, keepdims):
    x = data.draw(nd_arrays(dtype, max_dims=3))
    axis = data.draw(axis_args(x.ndim))
    got = np.asarray(linalg.vector_norm(x, axis=axis, keepdims=keepdims))
    axes = tuple(range(x.ndim)) if axis is None else (axis if isinstance(axis, tuple)
                                                      else (axis,))
    axes = tuple(a % x.ndim for a in axes)
    kept = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
    flat = got.reshape(kept)
    for index in np.ndindex(kept):
        pick = tuple(slice(None) if i in axes else index[i] for i in range(x.ndim))
        total = sum(int(v) ** 2 for v in x[pick].ravel())
        assert_rounded_sqrt(flat[index], Fraction(total), FLOAT64)


def test_vector_norms_in_small_blocks_and_chunks(monkeypatch):
    """Blocks of rows and chunks of each row (their dot states merged)."""
    monkeypatch.setattr(norm_module, "_NORM_BLOCK_BYTES", 256)
    rng = np.random.default_rng(9)
    x = rng.integers(0, 2**64 - 1, (5, 11), dtype=np.uint64, endpoint=True)
    got = linalg.vector_norm(x, axis=1)
    for i in range(5):
        assert_rounded_sqrt(got[i], Fraction(sum(int(v) ** 2 for v in x[i])), FLOAT64)


@pytest.mark.parametrize("terms", [5, 100])          # short and medium rows
def test_vector_norms_of_rows_that_fit_beside_rows_that_split(terms):
    """Rows within 2**53 keep the float paths, the others the exact integer
    roots, in one block."""
    rng = np.random.default_rng(3)
    x = rng.integers(-2**50, 2**50, (6, terms), dtype=np.int64)
    x[1, 2], x[4, -1] = 2**53 + 1, -2**63
    got = linalg.vector_norm(x, axis=1)
    for i in range(6):
        assert_rounded_sqrt(got[i], Fraction(sum(int(v) ** 2 for v in x[i])), FLOAT64)


def test_pandas_row_reductions_of_mixed_columns():
    pd = pytest.importorskip("pandas")
    import xsumufunc.pandas_accessor  # noqa: F401

    df = pd.DataFrame({
        "a": np.array([2**62 + 1, 5, -2**63, 2**53 + 1], np.int64),
        "b": [0.5, np.nan, 1.0, np.nan],
        "c": np.array([3, 1, 3, 2**63 + 1], np.uint64),
        "d": np.array([1.5, 2.0, -0.25, np.nan], np.float32),
        "e": np.array([-(2**62), -5, 2**63 - 1, -(2**53)], np.int64),
    })
    for skipna in (True, False):
        sums = df.exact.sum(axis=1, skipna=skipna)
        means = df.exact.mean(axis=1, skipna=skipna)
        var = df.exact.var(axis=1, skipna=skipna)
        std = df.exact.std(axis=1, skipna=skipna, ddof=0)
        for i in range(len(df)):
            row = [int(df.a[i]), float(df.b[i]), int(df.c[i]), float(df.d[i]), int(df.e[i])]
            if skipna:
                row = [v for v in row if not (isinstance(v, float) and math.isnan(v))]
            elif any(isinstance(v, float) and math.isnan(v) for v in row):
                for got in (sums, means, var, std):
                    assert math.isnan(got[i])
                continue
            total = sum(Fraction(v) for v in row)
            assert_same(np.float64(sums[i]), round_fraction(total, FLOAT64))
            assert_same(np.float64(means[i]), round_fraction(total / len(row), FLOAT64))
            assert_same(np.float64(var[i]), round_fraction(var_oracle(row, 1), FLOAT64))
            assert_rounded_sqrt(std[i], var_oracle(row, 0), FLOAT64)



@given(data=st.data(), skipna=st.booleans())
def test_pandas_row_reductions_of_random_mixed_columns(data, skipna):
    pd = pytest.importorskip("pandas")
    import xsumufunc.pandas_accessor  # noqa: F401

    n = data.draw(st.integers(1, 6))
    signed = data.draw(wide_vectors(I64, n))
    unsigned = data.draw(wide_vectors(U64, n))
    floats = data.draw(st.lists(st.sampled_from([0.5, -1e300, 2.0**-1074, np.nan, 3.0, -0.0]),
                                min_size=n, max_size=n))
    df = pd.DataFrame({"i": signed, "u": unsigned, "f": floats})
    got = {m: getattr(df.exact, m)(axis=1, skipna=skipna) for m in ("sum", "mean", "var")}
    for i in range(n):
        row = [int(signed[i]), int(unsigned[i]), floats[i]]
        if math.isnan(floats[i]):
            if not skipna:
                assert all(math.isnan(got[m][i]) for m in got)
                continue
            row = row[:2]
        total = sum(Fraction(v) for v in row)
        assert_same(np.float64(got["sum"][i]), round_fraction(total, FLOAT64))
        assert_same(np.float64(got["mean"][i]), round_fraction(total / len(row), FLOAT64))
        assert_same(np.float64(got["var"][i]), round_fraction(var_oracle(row, 1), FLOAT64))


@pytest.mark.parametrize("dtype", ["Int64", "UInt64"])
def test_pandas_nullable_integer_columns_with_missing_values(dtype):
    """Regression: nullable integer columns became float64 (rounding values
    beyond 2**53: [2**60 + 1, 2**60 + 1, NA, -2**61, ...] summed to 0.0).
    Now exact: halves with NaN where NA, for column and row reductions and
    the rolling sums and means."""
    pd = pytest.importorskip("pandas")
    import xsumufunc.pandas_accessor  # noqa: F401

    if dtype == "Int64":        # sums cancel to small values
        big = [2**60 + 1, 2**60 + 1, None, -(2**61), 2**62 + 3, None, -(2**62)]
    else:                       # a small variance
        big = [2**63 + 1, 2**63 + 2, None, 2**63 + 4, 2**63 + 3, None, 2**63 + 7]
    s = pd.Series(big, dtype=dtype)
    terms = [v for v in big if v is not None]
    total = sum(Fraction(v) for v in terms)
    assert_same(np.float64(s.exact.sum()), round_fraction(total, FLOAT64))
    assert_same(np.float64(s.exact.mean()), round_fraction(total / len(terms), FLOAT64))
    assert_same(np.float64(s.exact.var()), round_fraction(var_oracle(terms, 1), FLOAT64))
    assert_rounded_sqrt(s.exact.std(ddof=0), var_oracle(terms, 0), FLOAT64)
    assert math.isnan(s.exact.sum(skipna=False))
    for window, min_periods in ((1, None), (2, 1), (3, 2), (7, 1)):
        got = s.exact.rolling_sum(window, min_periods=min_periods)
        got_mean = s.exact.rolling_mean(window, min_periods=min_periods)
        need = window if min_periods is None else min_periods
        for i in range(len(big)):
            kept = [v for v in big[max(0, i - window + 1):i + 1] if v is not None]
            if len(kept) < need:
                assert math.isnan(got[i]) and math.isnan(got_mean[i])
                continue
            window_sum = sum(Fraction(v) for v in kept)
            assert_same(np.float64(got[i]), round_fraction(window_sum, FLOAT64))
            assert_same(np.float64(got_mean[i]), round_fraction(window_sum / len(kept),
                                                                 FLOAT64))
    df = pd.DataFrame({"a": s, "b": [0.5, np.nan, np.nan, 1.0, 2.0, np.nan, 3.0]})
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        means = df.exact.mean(axis=1)
    sums = df.exact.sum(axis=1)
    for i in range(len(big)):
        row = [Fraction(v) for v in (big[i], df.b[i])
               if v is not None and not (isinstance(v, float) and math.isnan(v))]
        assert_same(np.float64(sums[i]), round_fraction(sum(row, Fraction(0)), FLOAT64))
        if row:
            assert_same(np.float64(means[i]), round_fraction(sum(row) / len(row), FLOAT64))
        else:
            assert math.isnan(means[i])
    assert_same(np.float64(df.exact.sum()["a"]), round_fraction(total, FLOAT64))


@pytest.mark.parametrize("gufunc", [xs.exact_dot_ufunc, xs.exact_dot_state_ufunc])
def test_raw_dot_gufuncs_refuse_64_bit_integers(gufunc):
    """The raw gufuncs have float loops only; NumPy would cast 64-bit
    integers into float64 (2**53 + 1 . 1 was 2**53): a TypeError instead,
    for either operand, even for values that fit (a rule of the dtype).
    Integers of up to 32 bits cast exactly and still work."""
    for dtype in WIDE:
        wide = np.array([2**53 + 1], dtype)
        for args in ((wide, np.ones(1)), (np.ones(1), wide), (wide, wide),
                     (np.array([3], dtype), np.ones(1))):
            with pytest.raises(TypeError, match="64-bit integers.*exact_dot"):
                gufunc(*args)
    small = np.array([2**31 - 1, -(2**31)], np.int32)
    got = gufunc(small, small)
    if gufunc is xs.exact_dot_state_ufunc:
        got = xs.exact_dot_state_round_ufunc(got)
    assert_same(got, exact_dot_oracle(terms_of(small), terms_of(small), FLOAT64))
