"""exact_moving_sum and exact_moving_mean: every window's value bit for bit
against the exact oracle, bottleneck's conventions (NaN until min_count
non-NaN values), and no drift however long the series."""

import math
from fractions import Fraction

import numpy as np
import pytest
from childrun import check_under_kernel
from helpers import assert_same, quiet, same
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import BFLOAT16, FLOAT16, FLOAT32, FLOAT64, exact_sum_oracle, round_fraction, terms_of
from oracle_products import exact_mean_oracle
from strategies import arrays_1d

import xsumufunc as xs

INPUTS = [FLOAT64, FLOAT32, FLOAT16, BFLOAT16, np.dtype(np.int32), np.dtype(np.bool_)]


def _nan(dtype):
    return np.array(math.nan, np.float32).astype(dtype)[()]


def moving_oracle(x, window, min_count, mean, dtype):
    terms = terms_of(x)
    out = []
    for i in range(len(terms)):
        kept = [t for t in terms[max(0, i - window + 1):i + 1]
                if not (isinstance(t, float) and math.isnan(t))]
        if len(kept) < min_count:
            out.append(_nan(dtype))
        elif mean:
            out.append(exact_mean_oracle(kept, dtype))
        else:
            out.append(exact_sum_oracle(kept, dtype))
    return out


def _result(dtype):
    return FLOAT64 if dtype.kind in "biu" else dtype


@pytest.mark.parametrize("mean", [False, True], ids=["sum", "mean"])
@pytest.mark.parametrize("dtype", INPUTS, ids=str)
@given(data=st.data())
def test_every_window_matches_the_oracle(mean, dtype, data):
    x = data.draw(arrays_1d(dtype, min_size=1))
    window = data.draw(st.integers(1, x.size))
    min_count = data.draw(st.none() | st.integers(1, window))
    func = xs.exact_moving_mean if mean else xs.exact_moving_sum
    got = quiet(func, x, window, min_count=min_count)
    assert got.dtype == _result(dtype) and got.shape == x.shape
    expected = moving_oracle(x, window, window if min_count is None else min_count, mean,
                             _result(dtype))
    for i, e in enumerate(expected):
        assert_same(got[i], e, f"window ending at {i}")


def long_moving_oracle(x, window, min_count, mean, dtype):
    """moving_oracle for long rows of finite values and NaNs: each window's
    exact sum from exact prefix sums (Fractions) of its non-NaN terms, its
    count and its terms that are not -0.0 from prefix counts."""
    sums, counts, not_neg_zero = [Fraction(0)], [0], [0]
    for t in terms_of(x):
        kept = not math.isnan(t)
        sums.append(sums[-1] + (Fraction(t) if kept else 0))
        counts.append(counts[-1] + kept)
        not_neg_zero.append(not_neg_zero[-1] + (kept and (t != 0 or math.copysign(1.0, t) > 0)))
    out = []
    for i in range(1, len(sums)):
        first = max(0, i - window)
        count = counts[i] - counts[first]
        if count < min_count:
            out.append(_nan(dtype))
            continue
        total = sums[i] - sums[first]
        zero_sign = 1 if not_neg_zero[i] - not_neg_zero[first] else -1
        out.append(round_fraction(total / count if mean else total, dtype, zero_sign))
    return out


@st.composite
def long_rows(draw, dtype):
    """Rows long enough for the lanes of xs_moving.c (4096 terms or more):
    normal values, or spread over many binades, or small integers (exact
    cancellation, zeros of both signs), with NaNs alone and in runs."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(4096, 6000))
    kind = draw(st.sampled_from(["normal", "spread", "integers"]))
    if kind == "normal":
        x = rng.standard_normal(n)
    elif kind == "spread":
        x = rng.standard_normal(n) * np.ldexp(1.0, rng.integers(-60, 60, n))
    else:
        x = rng.integers(-3, 4, n) * np.where(rng.random(n) < 0.5, -1.0, 1.0)
    x = x.astype(dtype)
    nan_rate = draw(st.sampled_from([0.0, 0.001, 0.01, 0.2, 0.9]))
    x[rng.random(n) < nan_rate] = np.nan
    if draw(st.booleans()):
        start = draw(st.integers(0, n - 1))
        x[start:start + draw(st.integers(1, 3000))] = np.nan
    return x


@pytest.mark.parametrize("mean", [False, True], ids=["sum", "mean"])
@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32], ids=str)
@given(data=st.data())
def test_long_rows_with_nans_match_the_oracle(mean, dtype, data):
    """NaN terms are not terms, also in the vector lanes of long rows."""
    x = data.draw(long_rows(dtype))
    window = data.draw(st.sampled_from([1, 2, 3, 10, 100, 1000, 4096]))
    min_count = data.draw(st.sampled_from([None, 1, max(1, window // 2), window]))
    func = xs.exact_moving_mean if mean else xs.exact_moving_sum
    got = quiet(func, x, window, min_count=min_count)
    expected = long_moving_oracle(x, window, window if min_count is None else min_count, mean,
                                  dtype)
    if not same(got, np.array(expected, dtype)):      # the whole row at once, else the first
        for i, e in enumerate(expected):
            assert_same(got[i], e, f"window ending at {i}")


@pytest.mark.parametrize("layout", ["contiguous", "strided"])
@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32], ids=str)
@given(data=st.data())
def test_long_rows_with_a_term_at_the_safe_range_or_beyond(layout, dtype, data):
    """A row long enough for the vector lanes, with one term at or beyond
    the running sums' safe range (2^1000; float32: none finite is) or not
    finite, anywhere: in the vector part of the row's pre-scan or its tail,
    read in place or through a stride (the scalar pre-scan)."""
    n = data.draw(st.integers(4096, 4200))
    at = data.draw(st.integers(0, n - 1))
    odd = data.draw(st.sampled_from([2.0**1000, float(np.nextafter(2.0**1000, np.inf)),
                                     -(2.0**1001), float(np.finfo(FLOAT64).max), math.inf,
                                     -math.inf, math.nan]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = rng.standard_normal(n)
    with np.errstate(over="ignore"):
        x = x.astype(dtype)
        x[at] = dtype.type(odd)
    if layout == "strided":
        wide = np.zeros(2 * n, dtype)
        wide[::2] = x
        row = wide[::2]
    else:
        row = x
    window = data.draw(st.sampled_from([1, 3, 50]))
    got = quiet(xs.exact_moving_sum, row, window)
    lo, hi = max(0, at - window - 2), min(n, at + window + 3)
    for start, stop in [(lo, hi), (n - window - 2, n)]:
        start = max(0, start)
        expected = moving_oracle(x[start:stop], window, window, False, dtype)
        for i in range(start + window - 1, stop):
            assert_same(got[i], expected[i - start], f"window ending at {i}")


def _special_rows():
    """Rows of 4103 normal terms, one of them NaN, Inf or beyond the safe
    range: at the row's start, in each of the four registers of the
    pre-scan's unrolled step (terms 8k + 3, 8k + 5, 8k + 7), in the
    registers after it and in the last term, which no register reads."""
    rng = np.random.default_rng(21)
    base = rng.standard_normal(4103)
    cases = {}
    for name, odd in (("nan", math.nan), ("inf", -math.inf), ("beyond", 2.0**1001)):
        for at in (0, 1, 1027, 2053, 3071, 4098, 4101, 4102):
            x = base.copy()
            x[at] = odd
            cases[f"{name}_{at}"] = x
    cases["plain"] = base
    return cases


def _moving_rows(x):
    """The child's side of test_row_scan_under_every_forced_kernel."""
    with np.errstate(all="ignore"):
        return [xs.exact_moving_sum(x, 3), xs.exact_moving_mean(x, 3, min_count=2)]


@pytest.mark.parametrize("kernel", ["generic", "sse2", "avx2", "avx512"])
def test_row_scan_under_every_forced_kernel(kernel, tmp_path):
    """The pre-scan that sends a row to the vector lanes (no NaN, Inf or term
    beyond the safe range), or not, under every forced level: the windows
    of rows with one such term anywhere, against the oracle."""
    cases = _special_rows()
    expected = {name: [np.array(moving_oracle(x, 3, 3, False, FLOAT64), FLOAT64),
                       np.array(moving_oracle(x, 3, 2, True, FLOAT64), FLOAT64)]
                for name, x in cases.items()}
    check_under_kernel(kernel, tmp_path, cases, _moving_rows, expected)


def _float32_layout(x, layout):
    """The float32 row x laid out as `layout`, and the axis it runs along:
    the lanes' contiguous blocks, their strided single steps, the other
    byte order (converted first), a column of a 2-D array."""
    if layout == "contiguous":
        return x, -1
    if layout == "strided":
        wide = np.zeros(2 * x.size, np.float32)
        wide[::2] = x
        return wide[::2], -1
    if layout == "byte-swapped":
        return x.astype(x.dtype.newbyteorder()), -1
    return np.stack([x, x[::-1]], axis=1), 0


@pytest.mark.parametrize("mean", [False, True], ids=["sum", "mean"])
@pytest.mark.parametrize("layout", ["contiguous", "strided", "byte-swapped", "column"])
@settings(max_examples=20)          # rows of 5000 exact Fractions each
@given(data=st.data())
def test_float32_rows_read_in_place_match_the_oracle(mean, layout, data):
    """float32 rows are read as they are by the compiled loop (widened in
    C, no float64 copy): every layout, subnormal and near-overflow terms
    (sums beyond float32's range round to Inf), NaNs, long and short
    rows."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n = data.draw(st.sampled_from([5, 100, 4096, 5000]))
    kind = data.draw(st.sampled_from(["normal", "tiny", "huge"]))
    scale = {"normal": 1.0, "tiny": 2.0**-140, "huge": 2.0**127}[kind]
    x = (rng.uniform(-1.0, 1.0, n) * scale).astype(np.float32)
    x[rng.random(n) < data.draw(st.sampled_from([0.0, 0.01, 0.3]))] = np.nan
    window = data.draw(st.sampled_from([1, 2, 3, 17, 100, 1000]).filter(lambda w: w <= n))
    min_count = data.draw(st.sampled_from([None, 1, max(1, window // 2)]))
    a, axis = _float32_layout(x, layout)
    func = xs.exact_moving_mean if mean else xs.exact_moving_sum
    got = quiet(func, a, window, axis=axis, min_count=min_count)
    got = got[:, 0] if layout == "column" else got
    expected = np.array(long_moving_oracle(x, window, window if min_count is None else min_count,
                                           mean, FLOAT32), FLOAT32)
    if not same(got, expected):
        for i, e in enumerate(expected):
            assert_same(got[i], e, f"window ending at {i}")


MOVING_FUNCS = [xs.exact_moving_sum, xs.exact_moving_mean, xs.exact_moving_var,
                xs.exact_moving_std]


@pytest.mark.parametrize("func", MOVING_FUNCS, ids=lambda f: f.__name__)
@given(data=st.data(), dtype=st.sampled_from([FLOAT64, FLOAT32]))
def test_one_row_gives_the_bits_of_the_general_path(func, data, dtype):
    """A 1-D row runs its compiled loop without NumPy's gufunc call (the
    small calls' path): the same bits as the row of a 2-D array, which the
    gufunc takes (the oracle tests above check the 1-D results)."""
    x = data.draw(arrays_1d(dtype, min_size=1))
    window = data.draw(st.integers(1, x.size))
    min_count = data.draw(st.none() | st.integers(1, window))
    got = quiet(func, x, window, min_count=min_count)
    assert_same(got, quiet(func, x[np.newaxis], window, axis=1, min_count=min_count)[0])


@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32], ids=str)
@pytest.mark.parametrize("shape", [(3,), (1, 3)], ids=["one row", "rows"])
def test_an_overflow_warns_and_raises_as_numpy_says(dtype, shape):
    """A sum beyond the dtype's range is Inf, with NumPy's overflow warning
    (np.errstate applies) on the one-row path as on the gufunc's."""
    big = np.finfo(dtype).max
    x = np.array([big, big, 1.0], dtype).reshape(shape)
    with pytest.warns(RuntimeWarning, match="overflow encountered in exact_moving_ufunc"):
        got = xs.exact_moving_sum(x, 2, axis=-1)
    assert_same(got.reshape(-1), np.array([np.nan, np.inf, big], dtype))
    with np.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow"):
        xs.exact_moving_sum(x, 2, axis=-1)


@pytest.mark.parametrize("n", [9, 6000], ids=["one stretch", "lanes"])
@pytest.mark.parametrize("tiny", [2.0**-100, -2.0**-100])
def test_float32_ties_of_inexact_approximations(n, tiny):
    """1 + 2**-24 (a float32 midpoint, the float64 nearest the sum) and a
    tiny term that decides the way: the sum is exact only beside it."""
    x = np.zeros(n, np.float32)
    x[-3:] = [1.0, 2.0**-24, tiny]
    assert_same(xs.exact_moving_sum(x, 3)[-1], exact_sum_oracle(x[-3:].tolist(), FLOAT32))


@given(data=st.data())
def test_along_any_axis_and_under_dask(data):
    x = data.draw(arrays_1d(FLOAT64, min_size=6))[:6].reshape(3, 2)
    window = data.draw(st.integers(1, 3))
    got = quiet(xs.exact_moving_sum, x, window, axis=0, min_count=1)
    for j in range(2):
        for i, e in enumerate(moving_oracle(x[:, j], window, 1, False, FLOAT64)):
            assert_same(got[i, j], e)
    da = pytest.importorskip("dask.array")
    series = data.draw(arrays_1d(FLOAT64, min_size=2))
    window = data.draw(st.integers(1, series.size))
    chunk = data.draw(st.integers(1, series.size))
    lazy = xs.exact_moving_mean(da.from_array(series, chunks=chunk), window)
    assert isinstance(lazy, da.Array)
    got = quiet(lazy.compute)
    for i, e in enumerate(moving_oracle(series, window, window, True, FLOAT64)):
        assert_same(got[i], e)


def test_no_drift_on_a_long_series():
    """Huge values enter and leave; the small ones after them are exact."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal(20_000) * np.exp(rng.uniform(-30, 30, 20_000))
    x[::997] = 1e300
    x[1::997] = -1e300
    got = xs.exact_moving_sum(x, 50)
    for i in list(range(49, 200)) + list(range(19_800, 20_000)) + list(range(5_000, 5_100)):
        assert_same(got[i], exact_sum_oracle(x[i - 49:i + 1].tolist(), FLOAT64), str(i))


def test_signed_zeros_and_infinities():
    x = np.array([-0.0, -0.0, 1.0, -1.0, np.inf, 1.0, -np.inf, 2.0, 3.0])
    got = xs.exact_moving_sum(x, 2)
    for i, e in enumerate(moving_oracle(x, 2, 2, False, FLOAT64)):
        assert_same(got[i], e, str(i))


def test_bad_arguments_are_clear_errors():
    x = np.ones(5)
    with pytest.raises(ValueError, match="window must be in \\[1, 5\\]"):
        xs.exact_moving_sum(x, 6)
    with pytest.raises(ValueError, match="window must be at least 1, not 0"):
        xs.exact_moving_sum(x, 0)
    with pytest.raises(TypeError, match="window must be an integer"):
        xs.exact_moving_sum(x, 2.5)
    with pytest.raises(ValueError, match="min_count must be in \\[1, window=2\\]"):
        xs.exact_moving_mean(x, 2, min_count=3)
    with pytest.raises(TypeError, match="complex input is not supported"):
        xs.exact_moving_sum(np.ones(3, complex), 2)
    with pytest.raises(np.exceptions.AxisError):
        xs.exact_moving_sum(x, 2, axis=1)
    with pytest.raises(ValueError, match="at least one dimension"):
        xs.exact_moving_sum(np.float64(1.0), 1)
