"""Rows of up to 1023 terms on the short path (src/kernels/dot/xs_short_row.c).

A row of n < 2**k terms whose non-zero magnitudes lie in [2**(t-B), 2**t),
B = 27 - k binades and t <= 1013, is summed exactly as two doubles in one
vector pass, then rounded (sums and means, every target); a row within
B = 36 - k binades by a second pass of three sums; every other row goes on
to the running sum, the cells or the accumulators.  These tests sit on both
windows' edges (for every k), their top, zeros, subnormals, Inf and
NaN, float32 rows read in place and other rows copied, the flags a row
leaves behind, and every forced kernel level, and compare bit for bit with
the Fraction oracle.
"""

import warnings

import numpy as np
import pytest
from childrun import check_under_kernel
from helpers import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import BFLOAT16, FLOAT16, FLOAT32, FLOAT64, exact_sum_oracle
from oracle_products import exact_mean_oracle

import xsumufunc as xs

SHORT_MAX = 1023
HI_BITS = 27
THREE_BITS = 36
TARGETS = [FLOAT64, FLOAT32, FLOAT16, BFLOAT16]


def window_binades(n, bits=HI_BITS):
    """B of a row of n terms: bits - k, n < 2**k (27: the first pass's
    window, 36: the second's)."""
    return bits - n.bit_length()


def check_rows(x, targets=(None,)):
    """Every row of the 2-D x, summed and averaged along axis 1, against the
    oracle, for each target (None: the default result dtype)."""
    for target in targets:
        dt = np.dtype(target or x.dtype)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            sums = xs.exact_sum(x, axis=1, dtype=dt)
            means = xs.exact_mean(x, axis=1, dtype=dt)
        for i, row in enumerate(x):
            values = row.tolist()
            assert_same(sums[i], exact_sum_oracle(values, dt), f"sum row {i} -> {dt}")
            assert_same(means[i], exact_mean_oracle(values, dt), f"mean row {i} -> {dt}")


def edge_row(rng, n, top, below_edge, bits=HI_BITS):
    """A row of n terms in the window of top `top`: its largest term in
    [2**(top-1), 2**top), its smallest 2**(top - B) exactly, or (below_edge)
    the double just below that, which the window does not take."""
    b = window_binades(n, bits)
    exps = rng.integers(top - b, top, n)
    x = np.ldexp(1.0 + rng.random(n), exps) * rng.choice([-1.0, 1.0], n)
    x = np.clip(x, -np.ldexp(1.0, top) * (1 - 2.0**-53), np.ldexp(1.0, top) * (1 - 2.0**-53))
    x[0] = np.ldexp(1.5, top - 1)
    low = np.ldexp(1.0, top - b)
    x[-1] = np.nextafter(low, 0.0) if below_edge else low
    rng.shuffle(x)
    return x


@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 15, 16, 17, 31, 63, 64, 100, 127, 128, 255, 256,
                               257, 511, 512, 1000, 1023, 1024])
@pytest.mark.parametrize("below_edge", [False, True])
@pytest.mark.parametrize("bits", [HI_BITS, THREE_BITS])
def test_the_window_edge_for_every_row_length(n, below_edge, bits):
    """The smallest term at a window's bottom is taken, the one just below
    left to the next path (the first pass's to the second, the second's
    to the running sum or the cells); every one gives the exact result.
    Rows of 1 term have no edge (one term fits any window); 1024 terms take
    the cells."""
    rng = np.random.default_rng(n + 2000 * below_edge + 5000 * bits)
    rows = np.array([edge_row(rng, n, top, below_edge, bits) if n > 1 else [np.ldexp(1.5, top)]
                     for top in (0, 30, -40, 1013, 1014, -1000, -1050)])
    check_rows(rows, (None, FLOAT32))


@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_random_rows_match_the_oracle(dtype, data):
    """Rows of every length up to 1024, of values a few binades apart (the
    short path) or many (the other paths), with cancellation, ties and zeros."""
    n = data.draw(st.integers(1, SHORT_MAX + 1), label="n")
    spread = data.draw(st.sampled_from([2, 8, 18, 30, 200]), label="spread")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    rng = np.random.default_rng(seed)
    top = int(rng.integers(-60, 60)) if dtype == FLOAT64 else int(rng.integers(-20, 20))
    x = np.ldexp(rng.standard_normal((3, n)), top - rng.integers(0, spread, (3, n))).astype(dtype)
    x[1, : n // 2] = -x[1, n - n // 2:][::-1][: n // 2]        # exact cancellation
    x[2, rng.random(n) < 0.3] = 0.0                              # zeros among the terms
    check_rows(x, (None,) if dtype == FLOAT32 else (None, FLOAT32))


def test_ties_of_every_target():
    """Sums that are ties of float64 and float32 (the bound 0 decides them by
    the hardware's rounding) and means just off them."""
    base = 1.0 + 2.0**-52
    rows = np.array([[base, 2.0**-53, 0.0, -0.0],
                     [1.0, 2.0**-53, 2.0**-60, -2.0**-60],
                     [3.0, 2.0**-52, -2.0**-54, 2.0**-54],
                     [1.0 + 2.0**-23, 2.0**-24, 0.0, 0.0],
                     [1.0, 2.0**-24, 2.0**-50, 0.0]])
    check_rows(rows, TARGETS)


def test_zeros_subnormals_specials():
    """Rows of zeros only (the sign of a zero sum: the accumulator), zero
    sums, subnormal terms (all of them, or below a normal window), Inf and
    NaN anywhere, and terms beyond the window's top."""
    tiny = 5e-324
    rows = np.array([
        [0.0, -0.0, 0.0, -0.0, 0.0],
        [-0.0, -0.0, -0.0, -0.0, -0.0],
        [1.0, -1.0, 2.0, -2.0, 0.0],
        [tiny, 3 * tiny, -tiny, 2.0**-1030, 0.0],
        [1.0, 2.0, tiny, 3.0, 4.0],
        [1.0, np.inf, 2.0, 3.0, 4.0],
        [1.0, np.nan, 2.0, 3.0, 4.0],
        [np.inf, -np.inf, 1.0, 2.0, 3.0],
        [2.0**1013 * 1.5, 2.0**1012, 1.0 * 2.0**1000, 0.0, 2.0**1001],
        [2.0**1023, 2.0**1023, 1.0, 0.0, 0.0],
        [1.7976931348623157e308, -1.7976931348623157e308, 1.0, 0.0, 0.0],
    ])
    check_rows(rows, TARGETS)


@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32, FLOAT16, BFLOAT16])
def test_strided_and_copied_rows(dtype):
    """Rows read in place (contiguous float64, float32) and rows copied as
    doubles first (strided ones, float16 and bfloat16 ones)."""
    rng = np.random.default_rng(5)
    x = np.ldexp(rng.standard_normal((4, 2 * 300)), rng.integers(-5, 5, (4, 600))).astype(dtype)
    for rows in (x, x[:, ::2], x[:, ::-3], x[:, 1:250]):
        check_rows(rows, (None, FLOAT64) if dtype != FLOAT64 else (None,))


@pytest.mark.parametrize("n", [3, 100, 300])
def test_no_flag_left_by_rows_the_path_takes_or_leaves(n):
    """The pass's own flags (the maximum of a NaN, the inexact sums of a row
    too wide for its window) are put back: a row's flags are those of the
    path that decides it.  Under errstate(all="raise") rows that fit, rows
    with zeros, rows too wide and rows with a NaN raise nothing."""
    rng = np.random.default_rng(n)
    fit = rng.standard_normal((2, n))
    fit[1, ::3] = 0.0
    wide = np.ldexp(rng.standard_normal((2, n)), rng.integers(-300, 300, (2, n)))
    wide32 = np.ldexp(rng.standard_normal((2, n)), rng.integers(-40, 40, (2, n)))
    nan = fit.copy()
    nan[:, n // 2] = np.nan
    with np.errstate(all="raise"):
        for y in (fit, wide, fit.astype(np.float32), wide32.astype(np.float32)):
            xs.exact_sum(y, axis=1)
            xs.exact_mean(y, axis=1)
        # A NaN term: a NaN result and no "invalid", as np.sum (the running
        # sum's range test reads patterns, not doubles).
        for y in (nan, nan[:, ::-1], nan.astype(np.float32)):
            assert np.isnan(xs.exact_sum(y, axis=1)).all()
            assert np.isnan(xs.exact_mean(y, axis=1)).all()
    check_rows(np.concatenate([fit, wide]))
    check_rows(np.concatenate([fit, wide32]).astype(np.float32))


def _short_rows(*rows):
    """The child's side of test_every_forced_kernel."""
    out = []
    for x in rows:
        out += [xs.exact_sum(x, axis=1), xs.exact_mean(x, axis=1),
                xs.exact_sum(x[:, ::2], axis=1)]
    return out


@pytest.mark.parametrize("kernel", ["generic", "sse2", "avx2", "avx512", "neon"])
def test_every_forced_kernel(kernel, tmp_path):
    """The same rows in a fresh process per XSUMUFUNC_KERNEL (SSE2 or
    Advanced SIMD, AVX2 and AVX-512 vectors; each reads its own tails),
    float64 and float32, against the oracle."""
    rng = np.random.default_rng(17)
    cases = {}
    expected = {}
    for n in (1, 5, 9, 17, 33, 100, 255, 600):
        x = np.ldexp(rng.standard_normal((3, n)), rng.integers(-8, 8, (3, n)))
        x[1, ::4] = 0.0
        x[2, 0] = np.ldexp(1.0, 20 - window_binades(n))       # the window's edge
        x[2, -1] = np.ldexp(1.5, 19)
        for dt in (FLOAT64, FLOAT32):
            y = x.astype(dt)
            name = f"{n}-{dt}"
            cases[name] = (y,)
            expected[name] = [
                np.array([exact_sum_oracle(r.tolist(), dt) for r in y], dtype=dt),
                np.array([exact_mean_oracle(r.tolist(), dt) for r in y], dtype=dt),
                np.array([exact_sum_oracle(r[::2].tolist(), dt) for r in y], dtype=dt),
            ]
    check_under_kernel(kernel, tmp_path, cases, _short_rows, expected)


def test_rows_that_miss_in_runs_and_alone():
    """The loop's backoff after misses (the next 2**(m-1) rows skip the short
    path after m misses in a row): runs of rows too wide for the window,
    then rows that fit, then the two alternating, every row exact whichever
    path it took."""
    rng = np.random.default_rng(23)
    n = 300
    fit = rng.standard_normal((40, n))
    wide = np.ldexp(rng.standard_normal((40, n)), rng.integers(-60, 60, (40, n)))
    order = [wide[:20], fit[:20], np.stack([r for pair in zip(wide[20:], fit[20:]) for r in pair])]
    check_rows(np.concatenate(order))
