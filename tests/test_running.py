"""Prefix sums on the fast path (src/exact/xs_running.h): most prefixes are rounded
from a two-double approximation that provably decides them, the others
from the exact accumulator.  Every prefix is checked against the exact
oracle, on long rows and on data built to sit on the decision's edges:
ties of every target, values a hair off a tie, cancellation down to tiny
sums, the ends of the safe range, NaN and Inf arriving late."""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from childrun import check_under_kernel
from fuzz.driver import _accumulate_fast
from helpers import assert_same
from oracle import (
    BFLOAT16,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    oracle_reduce,
    round_fraction,
    terms_of,
)
from oracle_products import exact_mean_oracle

import xsumufunc as xs

TARGETS = [FLOAT64, FLOAT32, FLOAT16, BFLOAT16]


def prefix_oracle(x, target):
    """Every prefix sum of float64 x rounded once into target (the fuzzer's
    oracle: exact integer arithmetic, one rounding per prefix)."""
    return _accumulate_fast(x, np.dtype(target))


def check(x, target=FLOAT64):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        got = xs.exact_add.accumulate(x, dtype=target)
    assert_same(got, prefix_oracle(x, target))


def rows(rng, n):
    signs = rng.choice([-1.0, 1.0], n)
    return {
        "normal": rng.standard_normal(n),
        "lognormal": signs * rng.lognormal(0, 3, n),
        "positive": rng.random(n),
        "wide": signs * np.ldexp(rng.uniform(1, 2, n), rng.integers(-1070, 1020, n)),
        "tiny": signs * np.ldexp(rng.uniform(1, 2, n), rng.integers(-1074, -1000, n)),
        "huge": signs * np.ldexp(rng.uniform(1, 2, n), rng.integers(990, 1023, n)),
    }


@pytest.mark.parametrize("target", TARGETS, ids=str)
@pytest.mark.parametrize("kind", ["normal", "lognormal", "positive", "wide", "tiny", "huge"])
def test_long_rows(kind, target):
    x = rows(np.random.default_rng(hash(kind) % 2**32), 5000)[kind]
    check(x, target)


@pytest.mark.parametrize("target", TARGETS, ids=str)
def test_prefixes_on_and_next_to_ties(target):
    """1 + half an ulp of the target (a tie, to even: 1), then a hair above
    and below it, back and forth, with the hair at every scale: the
    approximation must hand each of these to the exact path or decide them
    right."""
    p = {FLOAT64: 53, FLOAT32: 24, FLOAT16: 11, BFLOAT16: 8}[target]
    half = 2.0 ** -p
    terms = [1.0, half]
    for k in list(range(1, 60)) + [200, 500, 1000, 1070]:
        hair = 2.0 ** -(p + k) if p + k <= 1074 else 2.0 ** -1074
        terms += [hair, -hair, -hair, hair]            # above, on, below, on the tie
        terms += [2 * half, -2 * half]                 # to the next tie and back
    check(np.array(terms), target)


def test_cancellation_to_tiny_sums():
    rng = np.random.default_rng(5)
    big = rng.standard_normal(300) * 1e200
    small = rng.standard_normal(300) * 1e-200
    x = np.concatenate([big, small, -big[::-1], small, rng.standard_normal(50)])
    check(x)
    check(x, FLOAT32)


def test_edges_of_the_safe_range_and_overflow():
    x = np.array([2.0**1000, 2.0**1000, -2.0**1000, 2.0**1023, 2.0**1023, -2.0**1023,
                  -2.0**1023, 1.0, 2.0**-1074, -1.0, 2.0**900, 2.0**-900, -2.0**900])
    check(x)
    check(np.tile(x, 30)[::-1].copy())


def test_specials_arrive_late():
    rng = np.random.default_rng(6)
    x = rng.standard_normal(3000)
    x[1500] = np.inf
    check(x)
    x[2500] = -np.inf
    check(x)
    x = rng.standard_normal(3000)
    x[100] = np.nan
    check(x)


def test_zeros_and_signs():
    check(np.array([-0.0, -0.0, 1.0, -1.0, -0.0, 2.0**-1074, -2.0**-1074]))
    check(np.array([1e300, -1e300, 1e-300, -1e-300, 0.0]))


@pytest.mark.slow
def test_a_million_prefixes():
    """Long enough for many renormalisation blocks and for the bound to
    grow: every prefix against the oracle."""
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.standard_normal(300_000), rng.lognormal(0, 3, 300_000)])
    check(x)


def moving_oracle_sums(x, window, target, mean=False, min_count=None):
    """Every trailing window's exact sum (or mean) rounded once (finite
    float64 x), by exact integer prefix sums; NaN where the window holds
    fewer than min_count (default: window) terms."""
    min_count = window if min_count is None else min_count
    units = [int(Fraction(v) * 2**1074) for v in x.tolist()]
    prefix = np.cumsum([0] + units, dtype=object)
    values = x.tolist()
    out = np.empty(len(x), target)
    for i in range(len(x)):
        first = max(0, i + 1 - window)
        terms = i + 1 - first
        if terms < min_count:
            out[i] = np.nan
            continue
        total = prefix[i + 1] - prefix[first]
        neg = all(v == 0 and math.copysign(1, v) < 0 for v in values[first:i + 1])
        total = Fraction(total, 2**1074 * (terms if mean else 1))
        out[i] = round_fraction(total, target, zero_sign=-1 if neg else 1)
    return out


@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32], ids=str)
@pytest.mark.parametrize("kind", ["normal", "lognormal", "wide", "tiny"])
def test_moving_sums_on_the_fast_path(kind, dtype):
    """Windows that enter and leave the approximation's decisions: every
    window of long rows against exact integer window sums, with huge terms
    entering and leaving, and ties built from the window's own terms."""
    rng = np.random.default_rng(len(kind))
    x = rows(rng, 4000)[kind]
    x[::401] = 2.0**100 if dtype == FLOAT32 else 2.0**1000
    x[7::401] = -x[0]
    x[1000:1040] = 1.0
    x[1040:1060] = 2.0**-53 if dtype == FLOAT64 else 2.0**-24   # sums pass over ties
    with np.errstate(all="ignore"):
        x = x.astype(dtype)                   # float32: the terms are float32 values
    x[~np.isfinite(x)] = 3.0                  # overflowed in the cast
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        got = xs.exact_moving_sum(x, 17)
        means = xs.exact_moving_mean(x, 17)
    assert_same(got, moving_oracle_sums(x.astype(np.float64), 17, dtype))
    assert_same(means, moving_oracle_sums(x.astype(np.float64), 17, dtype, mean=True))


def mean_tie_row(window, p):
    """Windows whose mean is 1 + half an ulp of a p-bit target (a tie), or a
    hair above or below it at every scale, and means that do not end."""
    x = [1.0] * window
    for k in list(range(0, 60)) + [300, 1000]:
        hair = 2.0 ** -(p + k) if p + k <= 1074 else 2.0 ** -1074
        # The window's last term makes the sum window * (1 + 2^-p) +- hair.
        x += [1.0] * (window - 1) + [1.0 + window * 2.0**-p]
        x += [1.0] * (window - 1) + [1.0 + window * 2.0**-p + hair]
        x += [1.0] * (window - 1) + [1.0 + window * 2.0**-p - hair]
        x += [1.0] * (window - 1) + [1.0 + 2.0**-k]
    return np.array(x)


@pytest.mark.parametrize("window", [1, 3, 7, 64])
@pytest.mark.parametrize("target", [FLOAT64, FLOAT32], ids=str)
def test_moving_means_on_and_next_to_ties(window, target):
    """Windows whose mean is 1 + half an ulp of the target (a tie: to even),
    or a hair above or below it at every scale; and means whose quotient
    does not end (thirds, sevenths): the quotient's approximation
    (xs_running_divide) must decide them right or hand them over.  The
    result is in the input's dtype; float32 input holds what of the hairs
    float32 can."""
    p = {FLOAT64: 53, FLOAT32: 24}[target]
    x = mean_tie_row(window, p).astype(target)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        got = xs.exact_moving_mean(x, window)
    assert_same(got, moving_oracle_sums(x.astype(np.float64), window, target, mean=True))


# ---- long rows in lanes (src/kernels/moving/xs_moving.c: rows of 4096 terms or more
# without NaN or Inf run as four stretches side by side, in AVX2 registers
# where the CPU has them) ----------------------------------------------------

def lane_rows(rng, n):
    """Rows for the lanes: the kinds above, and rows built for their seams:
    exact ties everywhere (small dyadic integers and halves), cancellation
    to exact zeros and -0.0, terms beyond the safe range that make lanes
    stale for a while."""
    kinds = rows(rng, n)
    ties = rng.integers(-8, 9, n) * 0.5 + rng.integers(0, 2, n) * 2.0**52
    zeros = np.repeat(rng.standard_normal(n // 8 + 1), 8)[:n]
    zeros[1::2] = -zeros[::2][:len(zeros[1::2])]
    zeros[n // 2:n // 2 + 300] = -0.0
    huge = rng.standard_normal(n)
    huge[::997] = 2.0**1010
    huge[5::997] = -(2.0**1010)
    # Window sums that are exactly 0 now and then (undecided: the lanes stop
    # and settle at every position of a block of steps).
    crossings = rng.integers(-1, 2, n) * 0.75
    crossings[n // 3:n // 3 + 500] = rng.standard_normal(500)
    # Terms within the safe range whose window sums leave it (above 2^1000).
    near_max = rng.standard_normal(n)
    spots = rng.choice(n, n // 20, replace=False)
    near_max[spots] = rng.choice([-1.0, 1.0], spots.size) * np.ldexp(rng.uniform(1, 2, spots.size),
                                                                     999)
    # Means on and next to ties (of a window of 50), over and over.
    mean_ties = np.resize(mean_tie_row(50, 53), n)
    # Window sums exactly on the lanes' limits and one ulp off them: 2^1000
    # (the safe range's end: 2^999 twice, or 2^1000 less an ulp) in the
    # first half, and 2^-800 (the least sum the fast decision takes) in the
    # second, among zeros and terms that cancel.
    edges = np.zeros(n)
    half = n // 2
    edges[0:half:97] = 2.0**999
    edges[1:half:97] = 2.0**999
    edges[40:half:97] = float(np.nextafter(2.0**1000, 0.0))
    edges[60:half:97] = -(2.0**999)
    edges[half::89] = 2.0**-800
    edges[half + 23::89] = float(np.nextafter(2.0**-800, 0.0))
    edges[half + 45::89] = -(2.0**-801)
    edges[half + 67::89] = 2.0**-801 + 2.0**-853
    return {"normal": kinds["normal"], "lognormal": kinds["lognormal"], "wide": kinds["wide"],
            "ties": ties, "zeros": zeros, "huge": huge, "crossings": crossings,
            "near_max": near_max, "mean_ties": mean_ties, "tiny": kinds["tiny"], "edges": edges}


@pytest.mark.parametrize("mean", [False, True], ids=["sum", "mean"])
@pytest.mark.parametrize("kind", ["normal", "lognormal", "wide", "ties", "zeros", "huge",
                                  "crossings", "near_max", "mean_ties", "tiny", "edges"])
def test_moving_lanes_against_the_oracle(kind, mean):
    n = 4099                                   # 4 lanes of 1024 and a tail of 3
    rng = np.random.default_rng(len(kind) + 10 * mean)
    x = lane_rows(rng, n)[kind]
    func = xs.exact_moving_mean if mean else xs.exact_moving_sum
    for window, min_count in ((1, None), (3, None), (100, 1), (100, 37), (1500, None),
                              (1030, 1), (n, 1), (n, None)):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            got = func(x, window, min_count=min_count)
            strided = func(np.repeat(x, 2)[::2], window, min_count=min_count)
        want = moving_oracle_sums(x, window, FLOAT64, mean=mean, min_count=min_count)
        assert_same(got, want)
        assert_same(strided, want)


def unaligned_copy(x):
    """x in a float64 array whose data start one byte past an aligned
    address (not aligned to its element)."""
    raw = np.zeros(x.nbytes + 1, np.uint8)
    y = np.frombuffer(raw.data, np.float64, x.size, offset=1)
    raw[1:] = np.frombuffer(x.tobytes(), np.uint8)
    return y


@pytest.mark.parametrize("mean", [False, True], ids=["sum", "mean"])
@pytest.mark.parametrize("kind", ["lognormal", "crossings", "near_max", "mean_ties"])
def test_moving_lanes_in_any_layout(kind, mean):
    """Every length modulo the blocks of steps, and the input reversed (a
    negative stride), unaligned, or a column of a 2-D array (strided input
    and output), against the oracle."""
    rng = np.random.default_rng(len(kind) + 100 * mean)
    func = xs.exact_moving_mean if mean else xs.exact_moving_sum
    base = lane_rows(rng, 4096 + 4 * 17)[kind]
    for n in (4096, 4096 + 4 * 16 + 3, 4096 + 4 * 17):
        x = base[:n]
        for window in (2, 50, 100):
            want = moving_oracle_sums(x, window, FLOAT64, mean=mean)
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore", RuntimeWarning)
                assert_same(func(x, window), want)
                assert_same(func(unaligned_copy(x), window), want)
                assert_same(func(x[::-1].copy()[::-1], window), want)
                reversed_want = moving_oracle_sums(x[::-1], window, FLOAT64, mean=mean)
                assert_same(func(x[::-1], window), reversed_want)
                table = np.stack([x, x[::-1]], axis=1)        # columns 16 bytes apart
                both = func(table, window, axis=0)
            assert_same(both[:, 0], want)
            assert_same(both[:, 1], reversed_want)


@pytest.mark.parametrize("window", [1, 3, 7, 64, 100])
def test_moving_lanes_on_and_next_to_ties(window):
    """The tie rows of test_moving_means_on_and_next_to_ties, long enough for
    the lanes: sums and means, against the oracle."""
    x = np.resize(mean_tie_row(window, 53), max(4099, 4 * window * 64))
    for func, mean in ((xs.exact_moving_sum, False), (xs.exact_moving_mean, True)):
        assert_same(func(x, window), moving_oracle_sums(x, window, FLOAT64, mean=mean))


@pytest.mark.parametrize("kind", ["normal", "lognormal", "crossings", "near_max", "mean_ties",
                                  "tiny"])
def test_moving_lanes_raise_no_spurious_flags(kind):
    """Finite results from terms within the safe range: no overflow or
    invalid-operation flag (numpy raises it here) from lanes that leave the
    safe range and stop, or from the half gaps of tiny means."""
    x = lane_rows(np.random.default_rng(5), 4099)[kind]
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        for window in (3, 100):
            got = xs.exact_moving_sum(x, window)
            means = xs.exact_moving_mean(x, window)
            assert np.isfinite(got[window - 1:]).all() and np.isfinite(means[window - 1:]).all()


def test_moving_lanes_of_float32_rows():
    """float32 input: float32 results, the lanes without AVX2 registers."""
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(5000) * 2.0**rng.integers(-20, 20, 5000)).astype(np.float32)
    for mean in (False, True):
        func = xs.exact_moving_mean if mean else xs.exact_moving_sum
        got = func(x, 64)
        assert_same(got, moving_oracle_sums(x.astype(np.float64), 64, FLOAT32, mean=mean))


def _moving_lanes(x):
    """The child's side of test_moving_lanes_under_every_forced_kernel."""
    strided = np.repeat(x, 2)[::2]          # the lanes step by step
    return [r for y in (x, strided)
            for r in (xs.exact_moving_sum(y, 50), xs.exact_moving_mean(y, 50, min_count=7))]


@pytest.mark.parametrize("kernel", ["generic", "sse2", "avx2", "avx512"])
def test_moving_lanes_under_every_forced_kernel(kernel, tmp_path):
    """The same windows in a fresh process per XSUMUFUNC_KERNEL (the AVX2
    lanes, in blocks or step by step, with or without range tests, or the
    plain ones), against the oracle, contiguous and strided."""
    rng = np.random.default_rng(12)
    data = lane_rows(rng, 4500)
    expected = {name: 2 * [moving_oracle_sums(x, 50, FLOAT64),
                           moving_oracle_sums(x, 50, FLOAT64, mean=True, min_count=7)]
                for name, x in data.items()}
    check_under_kernel(kernel, tmp_path, data, _moving_lanes, expected)


# ---- row sums on the same approximation (rows of 129 to 1023 terms, and
# shorter rows whose spread the two-double short-row sum cannot take) ------

ROW_LENGTHS = [10, 128, 129, 1023, 1024]


def spread_rows(rng, n, target):
    """Rows of n terms built to sit on the decision's edges, each with its
    own kind of data (see the comments)."""
    p = {FLOAT64: 53, FLOAT32: 24, FLOAT16: 11, BFLOAT16: 8}[np.dtype(target)]
    signs = rng.choice([-1.0, 1.0], n)
    u = rng.random(n)
    noise = signs * np.ldexp(rng.uniform(1, 2, n), rng.integers(-900, 900, n))
    half = n // 2
    cancel = np.concatenate([noise[:half], -noise[:half], np.zeros(n - 2 * half)])
    rows = [
        rng.standard_normal(n),
        signs * rng.lognormal(0, 3, n),
        signs * np.exp(30 * u) * u,                         # the paper's data
        noise,                                              # exponents over +-900
        cancel,                                             # exactly 0
        cancel + np.eye(1, n, 0)[0],                        # exactly 1 among cancellation
        cancel + np.eye(1, n, 0)[0] + np.ldexp(np.eye(1, n, n - 1)[0], -p),  # a tie: to even
        cancel + np.eye(1, n, 0)[0] + np.ldexp(np.eye(1, n, n - 1)[0], -p) * (1 + 2.0**-40),
        cancel + np.ldexp(np.eye(1, n, n - 1)[0], -1060),   # a subnormal sum
        np.where(np.arange(n) == n - 1, 2.0**1001, noise),  # a term beyond 2**1000
        np.where(np.arange(n) == n - 1, math.inf, noise),   # Inf arriving last
        np.where(np.arange(n) == n // 3, math.nan, noise),
    ]
    return np.array(rows)


@pytest.mark.parametrize("n", ROW_LENGTHS)
@pytest.mark.parametrize("target", TARGETS, ids=str)
def test_row_sums_against_the_oracle(n, target):
    rng = np.random.default_rng(n)
    x = spread_rows(rng, n, target)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        got = xs.exact_sum(x, axis=1, dtype=target)
        strided = xs.exact_sum(x[:, ::-1], axis=1, dtype=target)
        expected = oracle_reduce(x, axis=1, dtype=target)
    assert_same(got, expected)
    assert_same(strided, expected)


def mean_rows(rng, n, target):
    """The spread rows, and rows whose mean is a tie of the target, a hair
    off it, or a quotient that does not end."""
    p = {FLOAT64: 53, FLOAT32: 24, FLOAT16: 11, BFLOAT16: 8}[np.dtype(target)]
    base = np.zeros(n)
    base[0] = n * (1.0 + 2.0**-p)                   # mean 1 + 2^-p: a tie
    hairs = [base + np.ldexp(np.eye(1, n, n - 1)[0], -(p + k)) * sign
             for k in (1, 10, 40, 60, 200) for sign in (1, -1)]
    thirds = np.full(n, 1.0)
    thirds[0] += 1.0                                # mean (n + 1) / n
    return np.vstack([spread_rows(rng, n, target), base, *hairs, thirds,
                      rng.standard_normal(n) + 1e6])


@pytest.mark.parametrize("n", ROW_LENGTHS)
@pytest.mark.parametrize("target", TARGETS, ids=str)
def test_row_means_against_the_oracle(n, target):
    rng = np.random.default_rng(n + 2)
    x = mean_rows(rng, n, target)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        got = xs.exact_mean(x, axis=1, dtype=target)
        strided = xs.exact_mean(x[:, ::-1], axis=1, dtype=target)
    expected = np.array([exact_mean_oracle(terms_of(row), target) for row in x], target)
    assert_same(got, expected)
    assert_same(strided, expected)


@pytest.mark.parametrize("n", [129, 700])
@pytest.mark.parametrize("dtype", [FLOAT32, BFLOAT16, FLOAT16], ids=str)
def test_row_sums_of_narrow_inputs(n, dtype):
    rng = np.random.default_rng(n + 1)
    span = {FLOAT32: 120, BFLOAT16: 120, FLOAT16: 12}[np.dtype(dtype)]
    x = np.ldexp(rng.standard_normal((20, n)), rng.integers(-span, span, (20, n)))
    x = x.astype(dtype)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        for target in (dtype, FLOAT64):
            assert_same(xs.exact_sum(x, axis=1, dtype=target),
                        oracle_reduce(x, axis=1, dtype=target))
