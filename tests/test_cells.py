"""The fixed-grid cells (src/kernels/cells/xs_cells.c) against the oracle.

Contiguous float64, float32 and bfloat16 rows of XS_CELLS_MIN_TERMS (64)
terms or more that the short path leaves (rows of up to 1023 terms within
a window of 17 to 19 binades take that: tests/test_short_rows.py; most
cases here spread wider) are summed block by block (256 terms) in double
lanes, each term cut at fixed grid positions into 1-4 cells under a top
above the block's largest term, when the block fits such a window, and by
the large
accumulator otherwise; rows shorter than 2^20 terms are rounded from their
cell sums when the two-double approximation decides.  These inputs reach
every branch: windows that move, blocks that need more cells, windows that
drop one, blocks too wide for any window, Inf/NaN, all-zero blocks,
subnormal and huge tops, exact cancellation, exact ties.  Every kernel
(portable C, SSE2, AVX2, AVX-512) is run, in a child process that forces it
through XSUMUFUNC_KERNEL.
"""

import platform

import numpy as np
import pytest
from childrun import check_under_kernel, run_with_kernel
from helpers import assert_same, in_line
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import BFLOAT16, exact_sum_oracle
from oracle_products import exact_mean_oracle
from strategies import block_shifts, tie_lists, to_array, value_lists

import xsumufunc as xs

FLOAT64 = np.dtype(np.float64)
N = 9000


def _cases():
    """name -> float64 array, deterministic."""
    rng = np.random.default_rng(2026)
    normal = rng.standard_normal(N)
    wide = rng.standard_normal(N) * np.ldexp(1.0, rng.integers(-40, 40, N))
    moving = rng.standard_normal(N) * np.ldexp(1.0, np.repeat(rng.integers(-300, 300, N // 256 + 1), 256)[:N])
    with_specials = normal.copy()
    with_specials[3000] = np.inf
    with_nan = normal.copy()
    with_nan[5000] = np.nan
    zeros = np.zeros(N)
    zeros[:2048] = -0.0
    neg_zeros = np.full(N, -0.0)
    subnormal = rng.standard_normal(N) * 2.0**-1060
    huge = rng.standard_normal(N) * 2.0**1005          # windows near the top limit
    huger = rng.standard_normal(N) * 1e305             # above it: the large path
    cancel = np.concatenate([normal[:N // 2], -normal[:N // 2]])
    cancel_plus_tiny = cancel.copy()
    cancel_plus_tiny[7] += 2.0**-60
    outliers = normal.copy()
    outliers[::97] *= 2.0**-30                          # below the window
    ones_then_tiny = np.concatenate([np.ones(N // 2), np.full(N // 2, 2.0**-40)])
    # float64 rows are cut into 2-4 cells of 47 bits under a top T (src/kernels/cells/xs_cells.h):
    # data over 60 and 120 binades (3 and 4 cells), over 150 (no window: the
    # large path), and the exact edges of each cell count.
    spread60 = rng.choice([-1.0, 1.0], N) * (1 + rng.random(N)) * np.ldexp(1.0, rng.integers(-30, 30, N))
    spread120 = rng.choice([-1.0, 1.0], N) * (1 + rng.random(N)) * np.ldexp(1.0, rng.integers(-60, 60, N))
    spread150 = rng.choice([-1.0, 1.0], N) * (1 + rng.random(N)) * np.ldexp(1.0, rng.integers(-75, 75, N))
    # Values in [1, 2) set T = 4.  A term 2^e (1 + 2^-52) fits 2 cells for
    # e >= -38, 3 for e >= -85, 4 for e >= -132; each block below needs more.
    edges = 1 + rng.random(N)
    odd = 1 + 2.0**-52
    for block, e in enumerate([-38, -39, -85, -86, -132, -133, -38, -200, 3]):
        edges[(block + 1) * 256 + 7] = -odd * 2.0**e
        edges[(block + 1) * 256 + 9] = odd * 2.0**e
    edges[12 * 256 + 5] = 2.0**4                          # beyond T: the window moves up
    edges[14 * 256 + 5] = -(2.0**4 - 2.0**-48)            # just below the new top
    # Every lane near its bound: the same large value in every term, so the
    # carry into cell 0 happens at every block.
    carries = np.full(N, np.nextafter(8.0, 0.0))
    carries[N // 2:] = -np.nextafter(8.0, 0.0) * (1 + 2.0**-50)
    # Tops at the limits: T = 971 is allowed, 972 is not; T = -886 is allowed.
    top_edge = rng.standard_normal(N) * 2.0**966
    top_beyond = rng.standard_normal(N) * 2.0**969
    bottom_edge = (1 + rng.random(N)) * 2.0**-890
    # Wide blocks between narrow ones: refused, then windows again.
    refused_between = normal.copy()
    refused_between[2 * 256:3 * 256] *= np.ldexp(1.0, rng.integers(-300, 300, 256))
    refused_between[5 * 256:7 * 256] *= np.ldexp(1.0, rng.integers(-300, 300, 512))
    # A window that grows a cell for an outlier, drops it after a run of
    # blocks that do not need it, and grows it again.
    narrowing = normal.copy()
    narrowing[5] = 2.0**-60 * (1 + 2.0**-52)
    narrowing[25 * 256 + 3] = -(2.0**-60) * (1 + 2.0**-51)
    # Exact ties of float64 (and of float32 once cast) in every row of up
    # to 1000 terms: the two-double rounding of the cell sums cannot decide
    # them, the accumulator does.
    ties = np.zeros(N)
    ties[::1000] = 2.0**53
    ties[7::1000] = 1.0
    ties[500::1000] = -(2.0**24)
    ties[517::1000] = -1.0
    # The range seams of the vector kernels: AVX2 sees a NaN term through
    # the last cell's lanes, and the smallest |term| as |term|'s bits minus 1
    # taken as doubles; a length that is not a whole number of steps ends
    # with the rest alone, padded.
    nan_at_ends = normal.copy()
    nan_at_ends[[255, 256 + 15, N - 3]] = np.nan        # a block's last, a step's last, the rest
    inf_and_zeros = np.zeros(N)
    inf_and_zeros[20] = np.inf                          # the smallest non-zero |term| is Inf
    inf_both = np.zeros(N)
    inf_both[[300, 301]] = [np.inf, -np.inf]
    tiniest = np.zeros(N)
    tiniest[::37] = 5e-324                              # bits 1: minus 1 is +0.0
    tiniest[::91] = -2 * 5e-324
    largest = normal.copy()
    largest[::512] = np.finfo(np.float64).max           # bits minus 1 just below Inf's
    # The least |term| of a block exactly a power of two at the window's
    # least (2^-38 for 2 cells, 2^-85 for 3, 2^-132 for 4 under T = 4): the
    # portable kernel on x86-64 keys the smallest |term| by the top 16 bits
    # of |term| - 1, reads it one binade lower and refuses the block, which
    # then takes a cell more.
    least_power_of_two = 1 + rng.random(N)
    for block, e in enumerate([-38, -85, -132, -38, -37]):
        least_power_of_two[(block + 1) * 256 + 11] = (-1) ** block * 2.0**e
    # A subnormal below 2^-1026 (its top 16 bits are 0, as a zero's) beside
    # terms that cancel: the sum is that subnormal, which a key taking it
    # for a zero would lose.
    tiny_beside_cancel = cancel.copy()
    tiny_beside_cancel[300] = 2.0**-1070
    tiny_beside_cancel[N // 2 + 300] = 0.0
    return {
        "least_power_of_two": least_power_of_two, "tiny_beside_cancel": tiny_beside_cancel,
        "nan_at_ends": nan_at_ends, "inf_and_zeros": inf_and_zeros, "inf_both": inf_both,
        "tiniest": tiniest, "largest": largest,
        "ties": ties,
        "narrowing": narrowing,
        "spread60": spread60, "spread120": spread120, "spread150": spread150,
        "cells_edges": edges, "carries": carries, "top_edge": top_edge,
        "top_beyond": top_beyond, "bottom_edge": bottom_edge,
        "refused_between": refused_between,
        "normal": normal, "wide": wide, "moving": moving, "inf": with_specials,
        "nan": with_nan, "zeros": zeros, "neg_zeros": neg_zeros, "subnormal": subnormal,
        "huge": huge, "huger": huger, "cancel": cancel, "cancel_plus_tiny": cancel_plus_tiny,
        "outliers": outliers, "ones_then_tiny": ones_then_tiny,
    }


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_default_kernel(name):
    x = CASES[name]
    with np.errstate(all="ignore"):
        for length in (256, 700, 1024, 1279, N):
            assert_same(xs.exact_sum(x[:length]), exact_sum_oracle(x[:length], FLOAT64),
                        f"{name}[:{length}]")


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("length", [256, 300, 1000])
def test_rows_of_a_2d_array(name, length):
    # Rows from XS_CELLS_MIN_TERMS (64) terms on take the cells, means too
    # (those the short path leaves).
    x = CASES[name][: N // length * length].reshape(-1, length)
    with np.errstate(all="ignore"):
        sums = xs.exact_sum(x, axis=1)
        means = xs.exact_mean(x, axis=1)
    for i, row in enumerate(x):
        assert_same(sums[i], exact_sum_oracle(row, FLOAT64), f"{name} row {i}")
        assert_same(means[i], exact_mean_oracle(row, FLOAT64), f"{name} mean of row {i}")


def test_no_warning_from_the_lanes():
    # NaN terms make max/min raise "invalid" inside the kernels; the caller must
    # not see it (np.sum of a NaN does not warn either).
    x = CASES["nan"]
    with np.errstate(all="raise"):
        assert np.isnan(xs.exact_sum(x))


def _prefixes(x):
    return (x, x[:1279], x[:700])


def _kernel_sums(x):
    """The child's side of test_every_kernel_in_a_child_process."""
    return [*(xs.exact_sum(y) for y in _prefixes(x)), xs.exact_sum(x, dtype=np.float64)]


# "avx2"/"avx512" fall back to the best kernel the CPU has, so they are safe
# to request anywhere.
@pytest.mark.parametrize("kernel", ["generic", "sse2", "avx2", "avx512", "neon"])
def test_every_kernel_in_a_child_process(kernel, tmp_path):
    cases = dict(CASES)
    with np.errstate(all="ignore"):          # cases beyond float32 become +-Inf
        for name, x in CASES.items():
            cases[f"{name} float32"] = x.astype(np.float32)
            cases[f"{name} bfloat16"] = x.astype(np.float32).astype(BFLOAT16)
    expected = {name: [*(exact_sum_oracle(y, x.dtype) for y in _prefixes(x)),
                       exact_sum_oracle(x, FLOAT64)] for name, x in cases.items()}
    check_under_kernel(kernel, tmp_path, cases, _kernel_sums, expected)


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1024, 5000),
    spread=st.integers(0, 160),
    center=st.integers(-1070, 1000),
    block_shift=st.integers(0, 40),
)
def test_random_block_structures(seed, n, spread, center, block_shift):
    # Values over `spread` binades around 2^center, with a per-256-block
    # shift that moves the window, and some exact negatives of earlier terms.
    rng = np.random.default_rng(seed)
    exps = center + rng.integers(0, spread + 1, n) + block_shifts(rng, n, block_shift)
    exps = np.clip(exps, -1074, 1010)
    x = rng.choice([-1.0, 1.0], n) * (1 + rng.random(n)) * np.ldexp(1.0, exps)
    k = rng.integers(0, n // 2)
    x[n - k:] = -x[:k]
    with np.errstate(all="ignore"):
        assert_same(xs.exact_sum(x), exact_sum_oracle(x, FLOAT64))


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1024, 5000),
    spread=st.integers(0, 110),
    center=st.integers(-149, 120),
    dtype=st.sampled_from([np.dtype(np.float32), BFLOAT16]),
)
def test_random_block_structures_narrow(seed, n, spread, center, dtype):
    rng = np.random.default_rng(seed)
    exps = np.clip(center + rng.integers(0, spread + 1, n), -149, 126)
    with np.errstate(all="ignore"):
        x = (rng.choice([-1.0, 1.0], n) * (1 + rng.random(n)) * np.ldexp(1.0, exps)
             ).astype(np.float32).astype(dtype)
    x[~np.isfinite(x.astype(np.float64))] = 1.0
    k = rng.integers(0, n // 2)
    x[n - k:] = -x[:k]
    for target in (dtype, FLOAT64):
        with np.errstate(all="ignore"):
            assert_same(xs.exact_sum(x, dtype=target), exact_sum_oracle(x, target))


# ---- reductions over a slow axis (src/kernels/cells/xs_columns.c) ------------------------

def test_columns_with_values_below_their_window():
    # Blocks whose largest value fits the column's window while a few values
    # lie below it: those few go one by one, the rest through the lanes.
    rng = np.random.default_rng(11)
    x = rng.standard_normal((1000, 64))
    tiny = rng.random((1000, 64)) < 0.01
    x[tiny] *= np.ldexp(1.0, rng.integers(-1074, -20, tiny.sum()))
    x[::97, 5] = 5e-324                              # subnormals
    x[:200, 9] *= 2.0**40                            # window far above the rest:
    x[200:, 9] *= 2.0**-40                           # must move down, still exact
    x[500, 10] = -x[:500, 10].sum()                  # rounding-sensitive sums
    sums = xs.exact_sum(x, axis=0)
    for j in range(x.shape[1]):
        assert_same(sums[j], exact_sum_oracle(x[:, j], FLOAT64), f"column {j}")


@pytest.mark.parametrize("shape", [(17, 16), (100, 40), (300, 24)])
def test_columns_whose_first_rows_mislead_their_windows(shape):
    # A strip's first windows come from its first 16 rows
    # (XS_COLUMN_SAMPLE_ROWS in src/kernels/cells/xs_columns.c): columns whose
    # later rows of the same block lie above that window, far below it, or
    # are special must settle and still be exact.
    rng = np.random.default_rng(shape[0] + shape[1])
    m, k = shape
    x = rng.standard_normal(shape)
    x[16:, 0] *= 2.0**60                          # far above: a new window
    x[16:, 1] *= 2.0**-60                         # far below: more cells
    x[-1, 2] = 2.0**1000                          # one huge term at the end
    x[:16, 3] = 0.0                               # zeros first, then terms
    x[:16, 4] = -0.0
    x[16:, 4] = -0.0                              # nothing but -0: -0
    x[-1, 5] = np.inf
    x[-1, 6] = np.nan
    x[16:, 7] = 5e-324                            # subnormals after normals
    x[:16, 8] = 5e-324                            # subnormals first
    x[16:, 9] *= np.ldexp(1.0, rng.integers(-1000, 1000, m - 16))   # no window holds
    x[:16, 10:16] *= 2.0**-500                    # a whole strip misled
    with np.errstate(all="ignore"):
        sums = xs.exact_sum(x, axis=0)
        f32 = xs.exact_sum(x.astype(np.float32), axis=0)
    for j in range(k):
        assert_same(sums[j], exact_sum_oracle(x[:, j], FLOAT64), f"column {j}")
        with np.errstate(all="ignore"):
            y = x[:, j].astype(np.float32)
        assert_same(f32[j], exact_sum_oracle(y, np.dtype(np.float32)), f"float32 column {j}")


@pytest.mark.parametrize("dtype", [FLOAT64, np.dtype(np.float32)])
def test_columns_rounded_from_two_cells(dtype):
    # A column whose sum lies in two cells is rounded by one IEEE add (and
    # float32 ones only when that add is exact): ties, sums that need more
    # than 53 bits, sums near the subnormal range and exact zeros.
    eps = float(np.finfo(dtype).eps)
    tiny = float(np.finfo(dtype).tiny)
    columns = [
        [1.0, eps / 2],                          # a tie: to even (down)
        [1.0 + eps, eps / 2],                    # a tie: to even (up)
        [1.0, eps / 2, eps / 2 ** 20],           # just above the tie
        [1.0, -eps / 4, -eps / 2 ** 20],         # just below 1
        [2.0**40, 2.0**-40],                     # more bits than a double
        [tiny * 3, -tiny * 2.5],                 # subnormal result
        [tiny * 2, -tiny],                       # exactly the smallest normal
        [1.5, -1.5],                             # exact zero of non-zero terms
        [-1.0, -eps / 2],                        # negative tie
    ]
    rows = 20
    x = np.zeros((rows, len(columns) + 8), dtype)
    for j, values in enumerate(columns):
        x[: len(values), j] = np.array(values, dtype=np.float64).astype(dtype)
        x[len(values):, j] = 0.0
    x[:, len(columns):] = np.arange(rows * 8, dtype=dtype).reshape(rows, 8)
    sums = xs.exact_sum(x, axis=0)
    for j in range(x.shape[1]):
        assert_same(sums[j], exact_sum_oracle(x[:, j], dtype), f"column {j}")


@pytest.mark.parametrize("shape", [(16, 8), (300, 70), (129, 1030), (1000, 9)])
def test_columns_of_a_c_ordered_array(shape):
    # axis=0 of a C-ordered array: rows strided, columns contiguous, so the
    # columns are summed together row by row (in groups of 1024 columns).
    rng = np.random.default_rng(shape[0] * 7 + shape[1])
    m, k = shape
    scales = np.ldexp(1.0, np.repeat(rng.integers(-30, 30, (m // 128 + 1, k)), 128, axis=0)[:m])
    x = rng.standard_normal(shape) * scales           # windows move between row blocks
    x[:, 3] = 0.0
    x[: m // 2, 4] = -0.0
    x[:, 5] = -0.0
    x[m // 3, 6] = np.nan
    x[m // 2:, 7] = -x[: m - m // 2, 7]               # exact cancellation
    with np.errstate(all="ignore"):
        sums = xs.exact_sum(x, axis=0)
        means = xs.exact_mean(x, axis=0, dtype=np.float32)
    from oracle_products import exact_mean_oracle
    for j in list(range(8)) + (list(rng.integers(8, k, 12)) if k > 8 else []):
        assert_same(sums[j], exact_sum_oracle(x[:, j], FLOAT64), f"column {j}")
        assert_same(means[j], exact_mean_oracle(x[:, j], np.dtype(np.float32)), f"mean {j}")


def _spread_columns(kind, shape, seed):
    rng = np.random.default_rng(seed)
    signs = rng.choice([-1.0, 1.0], shape)
    if kind == "lognormal":
        x = signs * rng.lognormal(0.0, 3.0, shape)
    elif kind == "paper":
        u = rng.random(shape)
        x = signs * np.exp(30 * u) * u
    elif kind == "mixed":
        # Columns of their own scales and spreads, a few beyond any window,
        # windows that move down (more cells) and up (a new window) by block.
        spread = rng.integers(0, 150, shape[1])
        x = signs * (1 + rng.random(shape)) * np.ldexp(
            1.0, rng.integers(-500, 500, shape[1]) + (rng.random(shape) * spread).astype(int))
        x[128:256, ::3] *= 2.0**-60
        x[256:, 1::3] *= 2.0**40
        x[:, 2] = 0.0
        x[:, 5] = -0.0
        x[7, 6] = np.inf
        x[9, 9] = 5e-324
    else:
        raise ValueError(kind)
    x[shape[0] // 2:, 4] = -x[: shape[0] - shape[0] // 2, 4]     # exact cancellation
    return x


SPREAD_COLUMN_CASES = [(kind, shape) for kind in ("lognormal", "paper", "mixed")
                       for shape in ((300, 70), (600, 37), (129, 1030), (1100, 20))]


@pytest.mark.parametrize("dtype", [FLOAT64, np.dtype(np.float32)])
@pytest.mark.parametrize("kind,shape", SPREAD_COLUMN_CASES)
def test_columns_of_spread_data(kind, shape, dtype):
    # Every column on its own window of fixed-grid cells, strips of eight
    # sharing a cell count (src/kernels/cells/xs_columns.c); leftover columns alone.
    # float32 values (beyond its range: +-Inf, 0) are widened exactly.
    with np.errstate(all="ignore"):
        x = _spread_columns(kind, shape, shape[0] + shape[1]).astype(dtype)
        sums = xs.exact_sum(x, axis=0)
        wide = xs.exact_sum(x, axis=0, dtype=np.float64)
    for j in range(shape[1]):
        assert_same(sums[j], exact_sum_oracle(x[:, j], dtype), f"{kind} column {j}")
        assert_same(wide[j], exact_sum_oracle(x[:, j], FLOAT64), f"{kind} column {j}")


@pytest.mark.parametrize("dtype", [FLOAT64, np.dtype(np.float32)])
@pytest.mark.parametrize("shape", [(700, 29), (300, 26)])
def test_columns_that_fit_no_window_go_row_by_row(shape, dtype):
    # The columns of a strip whose block fits no window are added value by
    # value, row by row across the strip (add_columns_slowly in
    # src/kernels/cells/xs_columns.c): every other column of a strip, all of
    # one, all but one, and the leftover columns alone; random signs, so
    # that each term's sign takes its turn in the small accumulator.
    rng = np.random.default_rng(shape[0] * shape[1])
    m, k = shape
    x = rng.choice([-1.0, 1.0], shape) * (1 + rng.random(shape))
    if dtype == FLOAT64:
        wide = np.ldexp(1.0, rng.integers(-1000, 1000, shape))
    else:
        wide = np.ldexp(1.0, rng.integers(-140, 120, shape))
    no_window = np.zeros(k, bool)
    no_window[0:8:2] = True                       # every other column
    no_window[8:16] = True                        # a whole strip
    no_window[16:24] = np.arange(8) != 3          # all but one
    no_window[24:] = True                         # the leftover columns
    x[:, no_window] *= wide[:, no_window]
    x[m // 2, 9] = -0.0
    x[m // 3, 10] = 5e-324 if dtype == FLOAT64 else 1e-45   # a subnormal
    x = x.astype(dtype)
    sums = xs.exact_sum(x, axis=0)
    means = xs.exact_mean(x, axis=0)
    for j in range(k):
        assert_same(sums[j], exact_sum_oracle(x[:, j], dtype), f"column {j}")
        assert_same(means[j], exact_mean_oracle(x[:, j], dtype), f"mean {j}")


@st.composite
def _column_arrays(draw, dtype):
    # Columns of hypothesis' hard lists (ties, cancellation, spans, zeros,
    # specials), padded with zeros at random rows to a common length.
    cols = draw(st.integers(8, 19))
    lists = [draw(st.one_of(value_lists(dtype), tie_lists(dtype))) for _ in range(cols)]
    rows = max(16, max(len(v) for v in lists))
    x = np.zeros((rows, cols), dtype)
    for j, values in enumerate(lists):
        at = draw(st.permutations(range(rows)))[: len(values)]
        x[sorted(at), j] = to_array(values, dtype)
    return x


@settings(deadline=None, max_examples=150)
@given(data=st.data(), dtype=st.sampled_from([FLOAT64, np.dtype(np.float32)]))
def test_columns_property(data, dtype):
    # Every column rounded from its cells when the two-double sum of the cell
    # sums decides, else from its exact accumulator: the same bits either way.
    x = data.draw(_column_arrays(dtype))
    with np.errstate(all="ignore"):
        sums = xs.exact_sum(x, axis=0)
        means = xs.exact_mean(x, axis=0)
    for j in range(x.shape[1]):
        assert_same(sums[j], exact_sum_oracle(x[:, j], dtype), f"column {j}")
        assert_same(means[j], exact_mean_oracle(x[:, j], dtype), f"mean {j}")


@pytest.mark.parametrize("shape", [(33000, 8), (700, 1024), (520, 513)])
def test_columns_over_many_calls(shape):
    # More rows than one call of the column sweep takes (2^18 values): the
    # windows and cell sums carry over from call to call; windows that move
    # at a call boundary; ties and zeros with non-zero terms decided by the
    # exact accumulator.
    rng = np.random.default_rng(shape[1])
    m, k = shape
    x = rng.lognormal(0.0, 3.0, shape) * rng.choice([-1.0, 1.0], shape)
    boundary = (1 << 18) // k
    x[boundary:, 1] *= 2.0**-45                   # the window moves down...
    x[boundary:, 2] *= 2.0**45                    # ...and up, at the boundary
    x[:, 3] = 1.0
    x[0, 3] = -1.0                                # the sum m - 3 + half its ulp:
    x[-1, 3] = 2.0 ** (int(np.log2(m - 3)) - 53)  # a tie, decided by the accumulator
    x[: m // 2, 4] = 0.0                          # the first blocks all zeros
    half = m // 2
    x[:half, 5] = rng.standard_normal(half)
    x[half:2 * half, 5] = -x[:half, 5]            # exact zero of non-zero terms: +0
    x[2 * half:, 5] = 0.0
    x[:boundary, 6] = 0.0                         # nothing but zeros for a whole call
    x[:, 7] = -0.0                                # -0.0 blocks, then a cancelling
    x[200:300, 7] = rng.standard_normal(100)      # pair: +0 (a non-zero term went in)
    x[300:400, 7] = -x[200:300, 7]
    x[:, 0] = -0.0                                # nothing but -0.0: -0.0
    with np.errstate(all="ignore"):
        sums = xs.exact_sum(x, axis=0)
        means = xs.exact_mean(x, axis=0)
    for j in list(range(8)) + list(rng.integers(8, k, 6) if k > 8 else []):
        assert_same(sums[j], exact_sum_oracle(x[:, j], FLOAT64), f"column {j}")
        assert_same(means[j], exact_mean_oracle(x[:, j], FLOAT64), f"mean {j}")


def _column_seams(rows):
    # The seams of the strip kernels: a strip of eight columns is summed as
    # vectors of 2, 4 or 8 lanes (by ISA), and its range measured on |x|'s
    # bit patterns (signed or double compares): every lane position of two
    # strips gets an edge case, in the first block (the range pass alone) or
    # a later one, in one vector of the strip and not its neighbour.
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 20))
    x[:, 0] = 0.0                                   # nothing but zeros
    x[:, 1] = -0.0                                  # nothing but -0.0
    x[:200, 2] = 0.0
    x[200:, 2] = 5e-324                             # zeros, then the smallest subnormal
    x[5, 3] = np.nan                                # NaN at the end of a 4-lane vector
    x[::2, 4] = np.inf                              # Inf and zeros only: the smallest
    x[1::2, 4] = 0.0                                # non-zero |x| is Inf
    x[:, 5] *= 2.0**-1060                           # subnormals
    x[130, 6] = -np.inf
    x[140, 6] = np.inf                              # Inf - Inf: NaN
    x[:128, 7] = 0.0                                # first block zeros, then a window
    x[300:, 8] = np.finfo(np.float64).max           # the largest finite value
    x[:, 9] = np.where(np.arange(rows) % 3 == 0, -0.0, 2.0**-1022)   # smallest normal
    x[:, 10] *= 2.0**500
    x[200:, 10] *= 2.0**-1000                       # the window moves far down
    x[140, 11] = 0.5 * 2.0**-1074                   # rounds to 0 in float64: exact
    x[:, 12] = 1.0
    x[0, 12] = 2.0**-60                             # below the window, one value
    return x


def _neighbour_columns(rows):
    # A strip with no window yet takes its left neighbour's windows
    # (neighbour_windows in src/kernels/cells/xs_columns.c) until too many
    # strips missed them: columns that fit them, and every way not to.
    rng = np.random.default_rng(rows + 1)
    x = rng.standard_normal((rows, 160))
    x[rows // 2:, 9] *= 2.0**70                     # a window that moves up (600 rows:
    x[rows // 2:, 10] *= 2.0**-70                   # in the second block), more cells,
    x[rows // 2:, 11] = 0.0                         # zeros after terms
    x[rows // 2:, 12] = -x[: rows - rows // 2, 12]  # exact cancellation: +0
    x[rows // 4:rows // 2, 13] = -x[:rows // 2 - rows // 4, 13]    # +0 again, after
    x[rows // 2:, 13] = -0.0                        # blocks of -0.0 (600 rows)
    x[:, 16] = 0.0                                  # zeros: no window, not a term
    x[:, 17] = -0.0                                 # nothing but -0.0: -0.0
    x[:, 18] *= 2.0**60                             # above the neighbour's top
    x[:, 19] *= 2.0**-80                            # below its cells
    x[:, 20] = np.where(np.arange(rows) % 2 == 0, 5e-324, -0.0)   # subnormals
    x[rows // 3, 21] = np.inf
    x[rows // 2, 22] = np.nan
    x[rows // 2:, 23] = -x[: rows - rows // 2, 23]  # exact cancellation: +0
    x[:, 24:32] = 0.0                               # a strip of zeros: the next samples
    x[:, 32:40] *= 2.0**-300                        # strips of unlike scales: misses,
    x[:, 48:56] *= 2.0**300                         # then samples again
    for s in range(8, 20):                          # misses in a row: they stop
        x[:, 8 * s:8 * s + 8] *= 2.0 ** (900 if s % 2 else -900)
    return x


def test_columns_of_neighbour_windows():
    for rows in (100, 600):
        x = _neighbour_columns(rows)
        with np.errstate(all="ignore"):
            sums = xs.exact_sum(x, axis=0)
            y = x.astype(np.float32)
            f32 = xs.exact_sum(y, axis=0)
        for j in range(x.shape[1]):
            assert_same(sums[j], exact_sum_oracle(x[:, j], FLOAT64), f"column {j}")
            assert_same(f32[j], exact_sum_oracle(y[:, j], np.dtype(np.float32)),
                        f"float32 column {j}")


def _column_sums(x):
    """The child's side of test_columns_under_every_kernel."""
    return [xs.exact_sum(x, axis=0)]


@pytest.mark.parametrize("kernel", ["generic", "sse2", "avx2", "avx512", "neon"])
def test_columns_under_every_kernel(kernel, tmp_path):
    cases = {f"{kind}_{shape[0]}_{shape[1]}": _spread_columns(kind, shape, 5)
             for kind, shape in SPREAD_COLUMN_CASES[:6]}
    cases.update({f"seams_{rows}": _column_seams(rows) for rows in (150, 400)})
    cases.update({f"neighbours_{rows}": _neighbour_columns(rows) for rows in (100, 600)})
    # float32 columns of one cell (24 bits under a 47-bit cell): a strip that
    # starts with one and takes a second for a tiny value in a later block,
    # one whose window moves up, and the float32 seams.
    rng = np.random.default_rng(3)
    one_cell = rng.standard_normal((700, 24)).astype(np.float32)
    one_cell[300, 3] = np.float32(2.0**-40)
    one_cell[400:, 12] *= np.float32(2.0**30)
    cases["f32_one_cell"] = one_cell
    # One cell, rows in fours (src/kernels/cells/xs_columns_strip.h), then a
    # pair and an odd row left in the last carry step: 703 rows of float32
    # and of float64 integers (small integers need one cell too).
    cases["f32_one_cell_703"] = rng.standard_normal((703, 24)).astype(np.float32)
    cases["f64_integers_703"] = rng.integers(-2**20, 2**20, (703, 24)).astype(np.float64)
    # float32 subnormals far below the rest, which decide a tie: 1 + 2^-24
    # is halfway between two floats and the subnormal rounds it up.  The
    # portable range of float32 rows (16-bit tops) must not take one whose
    # top is 0 for a zero (a window would then leave it to a cell whose sum
    # holds 2^-60 too, and lose it); and columns whose least value is a
    # power of two.
    tie = np.zeros((300, 24), np.float32)
    tie[0], tie[1], tie[2], tie[4] = 1.0, 2.0**-24, 2.0**-60, -(2.0**-60)
    tie[3] = np.float32(2.0**-149) * np.arange(1, 25, dtype=np.float32)   # 1..24 units
    tie[3, 20:] = np.float32(2.0**-130)                         # a top of 0x40: not tiny
    cases["f32_tie_of_subnormals"] = tie
    cases["f32_power_of_two_least"] = np.where(rng.random((300, 24)) < 0.5, 1.0,
                                               rng.integers(1, 2**20, (300, 24))).astype(np.float32)
    # float64 strips: the portable range on x86-64 keys the least |x| by the
    # top 16 bits of |x| - 1 (a power of two reads one binade lower), and a
    # subnormal below 2^-1026 (top 16 bits 0, as a zero's) must not pass for
    # a zero: here it is the sum of its column, the rest cancelling.
    least = np.where(rng.random((300, 24)) < 0.5, 2.0**-40, rng.standard_normal((300, 24)))
    least[:, 5] = 2.0 ** rng.integers(-60, 0, 300)
    cases["f64_power_of_two_least"] = least
    tiny = rng.standard_normal((300, 24))
    tiny[150:] = -tiny[:150]
    tiny[77, 9], tiny[227, 9] = 2.0**-1070, 0.0
    cases["f64_tiny_beside_cancel"] = tiny
    with np.errstate(all="ignore"):
        cases["f32_seams"] = _column_seams(300).astype(np.float32)
    with np.errstate(all="ignore"):
        cases.update({f"f32_{name}": x.astype(np.float32) for name, x in list(cases.items())[::2]})
    expected = {name: [np.array([exact_sum_oracle(c, x.dtype) for c in x.T])]
                for name, x in cases.items()}
    check_under_kernel(kernel, tmp_path, cases, _column_sums, expected)


def _split_cases():
    """float32 columns for the split kernel of two-cell strips
    (src/kernels/cells/xs_columns_variants.h): blocks it holds, blocks whose
    least term lies below its span (summed again by the cuts, and after
    XS_SPLIT32_MISSES such blocks a strip that stops trying), specials,
    tops beyond its limits, subnormals, ties and exact cancellation."""
    rng = np.random.default_rng(48)
    cases = {}

    def spread(shape, sigma=3.0):
        signs = rng.choice([-1.0, 1.0], shape)
        return (rng.lognormal(0.0, sigma, shape) * signs).astype(np.float32)

    cases["lognormal_701"] = spread((701, 40))
    # Tiny terms of 24 significant bits in columns that otherwise cancel
    # (row r + 450 is -row r): their sum is the tiny terms', which a rest sum
    # that took them would round.
    below = spread((900, 32), 1.0)                  # one cell at first
    below[450:] = -below[:450]
    full = np.float32(1 + 2.0**-23 * 0x2b3c5d)
    for r, j, t in [(100, 3, 2.0**-40),              # two cells from the first block
                    (400, 3, 2.0**-46),              # below the split's span: a miss
                    (700, 3, -(2.0**-47)),           # a second: the strip stops trying
                    (100, 12, 2.0**-30),
                    (600, 12, 2.0**-50)]:            # one miss in a later block
        below[r, j], below[(r + 450) % 900, j] = t * full, 0
    below[100:, 20] *= np.float32(2.0**-10)          # a column that moves down
    cases["below_span"] = below
    # two-cell strips with a column of subnormals: windows whose tops are
    # about -120 and -126 (the split's cut constant 1.5 2^(T + 1) near the
    # bottom of float32's normal range)
    low = spread((800, 16))
    low[:, 6] = rng.integers(-2**12, 2**12, 800) * np.float32(2.0**-149)
    low[:, 13] = rng.integers(-8, 9, 800) * np.float32(2.0**-149)
    cases["subnormal_top"] = low
    special = spread((600, 24))
    special[400, 1] = np.nan
    special[450, 2] = np.inf
    special[500, 3] = -np.inf
    special[300, 4], special[550, 4] = np.inf, -np.inf
    special[590, 5] = np.float32(3e38)               # far above its window
    cases["specials"] = special
    # tops from the subnormals to past XS_SPLIT32_TOP_MAX (lognormal(0, 2):
    # the largest of a column about 2^13)
    scaled = spread((500, 48), 2.0).astype(np.float64)
    for j, e in enumerate([-140, -135, -128, -120, -100, 90, 100, 104, 108, 112]):
        scaled[:, j] *= 2.0**e
    cases["scaled"] = scaled.astype(np.float32)
    # Exact ties in two-cell strips (the other columns spread): 1 + 2^-24
    # lies halfway between two floats, and a term of 2^-40 in a later block,
    # split, decides it up (or, negated, down); without it, to even.
    tie = spread((900, 24))
    for j, decider in [(3, 2.0**-40), (9, -(2.0**-40)), (17, 0.0)]:
        tie[:, j] = 0
        tie[10, j], tie[20, j], tie[700, j] = 1.0, 2.0**-24, decider
    cases["ties"] = tie
    cancel = spread((640, 16))
    cancel[320:] = -cancel[:320]
    cases["cancel"] = cancel
    for seed in range(12):
        r = np.random.default_rng(seed)
        shape = (int(r.integers(20, 1200)), int(r.integers(8, 70)))
        x = (r.lognormal(0.0, r.uniform(2.0, 6.0), shape) * r.choice([-1.0, 1.0], shape))
        x *= 2.0 ** int(r.integers(-120, 100))
        tiny = r.random(shape) < r.choice([0.0, 0.001, 0.01])
        x[tiny] *= 2.0 ** -float(r.integers(20, 60))
        with np.errstate(all="ignore"):
            cases[f"random_{seed}"] = x.astype(np.float32)
    return cases


def _split_sums(x):
    """The child's side of test_float32_split_columns: sums and means."""
    return [xs.exact_sum(x, axis=0), xs.exact_mean(x, axis=0)]


def _split_sums_reached(x):
    """The same, and whether the split kernel summed a block of them."""
    from xsumufunc import _ufuncs
    before = _ufuncs._split_blocks()
    return [*_split_sums(x), np.array(_ufuncs._split_blocks() > before)]


#: Cases of two-cell strips within the split's limits: each reaches it
#: where the level has it.
SPLIT_REACHED = ("lognormal_701", "below_span", "specials", "ties", "cancel")


@pytest.mark.parametrize("kernel", ["generic", "sse2", "best"])
def test_float32_split_columns(kernel, tmp_path):
    # The split kernel is the portable level's on x86-64 (SSE2: a float32
    # vector is four terms, a double one two); AVX2 keeps the cuts (Zen 5:
    # the split was slower there).  Every case's sums and means against the
    # oracle, and the kernel reached where the level has it.
    cases = _split_cases()
    level = run_with_kernel(kernel, "from xsumufunc import _ufuncs; "
                                    "print(_ufuncs._simd_levels()[0])")[0]
    has_split = level in ("generic", "sse2") and platform.machine().lower() in ("x86_64", "amd64")
    expected = {name: [np.array([exact_sum_oracle(c, x.dtype) for c in x.T]),
                       np.array([exact_mean_oracle(c, x.dtype) for c in x.T])]
                for name, x in cases.items()}
    reached = {name: cases.pop(name) for name in SPLIT_REACHED}
    check_under_kernel(kernel, tmp_path, cases, _split_sums,
                       {name: expected[name] for name in cases})
    check_under_kernel(kernel, tmp_path, reached, _split_sums_reached,
                       {name: [*expected[name], np.array(has_split)] for name in reached})


#: Shapes and row widths (elements) of the edge tests: rows a whole number of
#: lines apart (widths multiples of 16: every row at the same place in its
#: line), from 256 columns on (xs_columns.c's XS_EDGE_MIN_COLS); rows that
#: are not (265), and too few columns (200): no edges, the rest as before.
EDGE_SHAPES = [((300, 264), None), ((300, 262), 272), ((130, 257), 272), ((40, 300), 304),
               ((300, 263), 265), ((60, 200), 208)]


def _edge_columns(shape, dtype, seed):
    x = _spread_columns("mixed", shape, seed)
    x[:, -1] = x[:, 7]                                 # the Inf in a tail column
    x[:, 0] = x[:, 9]                                  # the subnormal in a head column
    x[:, 1] = np.where(np.arange(shape[0]) == shape[0] // 3, np.nan, 1.0)
    x[:, -2] = x[:, 4]                                 # exact cancellation
    with np.errstate(all="ignore"):
        return x.astype(dtype)


@pytest.mark.parametrize("dtype", [FLOAT64, np.dtype(np.float32)])
@pytest.mark.parametrize("shape,width", EDGE_SHAPES)
def test_columns_at_every_place_in_a_line(shape, width, dtype):
    # Columns whose rows start part-way into a 64-byte line: the columns
    # before the first strip boundary and after the last whole strip are
    # summed in a group of their own (xs_columns_edges), the rest in strips
    # that start on lines; sums and means are the oracle's at every offset.
    x = _edge_columns(shape, dtype, shape[0] * shape[1])
    sums = [exact_sum_oracle(c, dtype) for c in x.T]
    means = [exact_mean_oracle(c, dtype) for c in x.T]
    for offset in range(0, 64, dtype.itemsize):
        y = in_line(x, offset, width)
        with np.errstate(all="ignore"):
            got_sums = xs.exact_sum(y, axis=0)
            got_means = xs.exact_mean(y, axis=0)
        for j in range(shape[1]):
            assert_same(got_sums[j], sums[j], f"offset {offset}, column {j}")
            assert_same(got_means[j], means[j], f"offset {offset}, mean {j}")


def _column_sums_at_offsets(x):
    """The child's side of test_columns_at_every_place_under_every_kernel:
    x's column sums with x at each place in a line, rows 272 elements apart."""
    return [xs.exact_sum(in_line(x, offset, 272), axis=0)
            for offset in range(0, 64, x.itemsize)]


@pytest.mark.parametrize("kernel", ["generic", "sse2", "avx2", "avx512", "neon"])
def test_columns_at_every_place_under_every_kernel(kernel, tmp_path):
    cases = {f"{np.dtype(dtype).name}_{seed}": _edge_columns((300, 262), np.dtype(dtype), seed)
             for dtype in (np.float64, np.float32) for seed in (1, 2)}
    expected = {name: [np.array([exact_sum_oracle(c, x.dtype) for c in x.T])] *
                (64 // x.itemsize) for name, x in cases.items()}
    check_under_kernel(kernel, tmp_path, cases, _column_sums_at_offsets, expected)


@settings(deadline=None, max_examples=60)
@given(data=st.data(), dtype=st.sampled_from([FLOAT64, np.dtype(np.float32)]))
def test_columns_at_every_place_property(data, dtype):
    # hypothesis' hard columns beside normal ones, at any place in a line.
    cols = data.draw(st.integers(256, 300))
    hard = data.draw(_column_arrays(dtype))
    rows = hard.shape[0]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = rng.standard_normal((rows, cols)).astype(dtype)
    at = data.draw(st.permutations(range(cols)))[: hard.shape[1]]
    x[:, at] = hard
    offset = data.draw(st.sampled_from(range(0, 64, dtype.itemsize)))
    width = data.draw(st.sampled_from([cols, 304, 320]))
    y = in_line(x, offset, max(width, cols))
    with np.errstate(all="ignore"):
        sums = xs.exact_sum(y, axis=0)
    for j in range(cols):
        assert_same(sums[j], exact_sum_oracle(x[:, j], dtype), f"offset {offset}, column {j}")


def _rows_after_rows():
    """Rows of 1000 terms whose first block meets the last row's window in
    every way (src/kernels/cells/xs_cells.c tries it before measuring)."""
    rng = np.random.default_rng(31)
    normal = rng.standard_normal(1000)
    first_zeros = normal.copy()
    first_zeros[:256] = 0.0                           # fits any window: not a term
    first_neg_zeros = normal.copy()
    first_neg_zeros[:300] = -0.0
    mixed_zeros = np.where(np.arange(1000) % 2 == 0, -0.0, 0.0)
    three_cells = normal.copy()
    three_cells[::50] *= 2.0**-60                     # more cells than the last row's
    outlier_late = normal.copy()
    outlier_late[900] = 2.0**-80                      # more cells in the last block
    wide = normal * np.ldexp(1.0, rng.integers(-300, 300, 1000))   # fits no window
    rows = [normal, np.full(1000, -0.0), normal, first_zeros, first_neg_zeros, mixed_zeros,
            normal * 2.0**900, normal * 2.0**-900, normal, wide, wide, normal,
            three_cells, normal, normal, outlier_late, normal * 2.0**40, normal,
            np.where(normal > 2, np.nan, normal), normal, np.where(normal > 2, np.inf, normal),
            normal[::-1], np.zeros(1000), -normal, (1 + rng.random(1000)) * 2.0**-1022, normal]
    return np.array(rows)


def _row_sums_and_means(x):
    """The child's side of test_rows_after_rows_under_every_kernel."""
    return [xs.exact_sum(x, axis=1), xs.exact_mean(x, axis=1)]


@pytest.mark.parametrize("kernel", ["generic", "sse2", "avx2", "avx512", "neon"])
def test_rows_after_rows_under_every_kernel(kernel, tmp_path):
    x = _rows_after_rows()
    with np.errstate(all="ignore"):
        cases = {"f64": x, "f32": x.astype(np.float32)}
    expected = {name: [np.array([exact_sum_oracle(row, x.dtype) for row in x]),
                       np.array([exact_mean_oracle(row, x.dtype) for row in x])]
                for name, x in cases.items()}
    check_under_kernel(kernel, tmp_path, cases, _row_sums_and_means, expected)


# ---- the binned kernels: blocks shared with a large accumulator ------------------------
# The portable level (generic, sse2) cuts half of each step of a float64 block
# of three or four cells and adds the other half's significands to the bins
# of a large accumulator (XS_CK_BINNED in src/kernels/cells/xs_cells_kernel.h;
# rows of 2^16 terms and more, lowered to 256 here through
# _ufuncs._binned_min_terms).  Of each step of 16 terms, 8..15 go to the bins.
# The other levels have no binned kernels: the same cases check them too.

BINNED_LOW = 256


def _binned_cases():
    """name -> float64 array whose blocks take three or four cells."""
    rng = np.random.default_rng(2031)
    n = 16384

    def spread(binades, size=n):
        return (rng.choice([-1.0, 1.0], size) * (1 + rng.random(size)) *
                np.ldexp(1.0, rng.integers(-binades // 2, binades // 2, size)))

    three, four = spread(60), spread(120)
    blocks = np.arange(0, n, 256)
    specials = three.copy()
    specials[blocks[1:40] + 9] = 0.0                       # zeros in the binned halves
    specials[blocks[40:50] + 12] = -0.0
    specials[blocks[50:60] + 10] = 2.0**-1070               # subnormals there
    specials[blocks[60:62] + 3] = -5e-324                   # and in the cut halves
    inf_binned = three.copy()
    inf_binned[blocks[20] + 12] = np.inf
    nan_binned = three.copy()
    nan_binned[blocks[30] + 15] = np.nan
    inf_cut = three.copy()
    inf_cut[blocks[30] + 2] = -np.inf
    # Every binned term in one bin near 2^53 (a significand of 2^53 - 1):
    # the bin reaches 2^63 every eight blocks and is moved out; a tiny term
    # in each block's cut half keeps three cells.
    full = np.full(n, np.nextafter(2.0, 0.0))
    full[blocks] = 2.0**-100
    full_neg = -full
    # A block whose cut half fits no window once the window is in use (its
    # bins taken back), and outliers in the binned halves alone (the bins
    # take any term).
    refused = three.copy()
    refused[blocks[10] + 3] = 2.0**200
    refused[blocks[11] + 4] = 2.0**-400
    refused[blocks[12] + 11] = 2.0**300
    refused[blocks[13] + 14] = -(2.0**-600)
    cancel = np.concatenate([three[: n // 2], -three[: n // 2][::-1]])
    cancel_tiny = cancel.copy()
    # One cancelling pair replaced by the least subnormal (binned half) and a
    # zero (cut half): the exact sum is that subnormal.
    cancel_tiny[blocks[7] + 13] = 2.0**-1074
    cancel_tiny[n - 1 - (blocks[7] + 13)] = 0.0
    return {"three": three, "four": four, "specials": specials, "inf_binned": inf_binned,
            "nan_binned": nan_binned, "inf_cut": inf_cut, "full": full, "full_neg": full_neg,
            "refused": refused, "cancel": cancel, "cancel_tiny": cancel_tiny,
            "paper": rng.choice([-1.0, 1.0], n) * np.exp(30 * (u := rng.random(n))) * u}


def _random_binned(seed):
    """Random block structures over 60 to 130 binades (three and four cells,
    windows that move), with exact negatives of earlier terms and specials."""
    rng = np.random.default_rng([2032, seed])
    n = int(rng.integers(300, 4000))
    exps = (int(rng.integers(-900, 800)) + rng.integers(0, int(rng.integers(60, 131)), n) +
            block_shifts(rng, n, 40))
    x = rng.choice([-1.0, 1.0], n) * (1 + rng.random(n)) * np.ldexp(1.0, np.clip(exps, -1074, 1010))
    k = int(rng.integers(0, n // 2))
    x[n - k:] = -x[:k]
    for value in (0.0, -0.0, 5e-324, np.inf, np.nan):
        if rng.random() < 0.15:
            x[rng.integers(0, n)] = value
    return x


BINNED_CASES = {**_binned_cases(), **{f"random {s}": _random_binned(s) for s in range(40)}}


def _binned_sums(x):
    """The child's side of test_binned_kernels: sums and means, the row
    whole and as two rows, with the binned kernels from 256 terms."""
    from xsumufunc import _ufuncs
    _ufuncs._binned_min_terms(BINNED_LOW)
    half = x[: x.size // 2 * 2].reshape(2, -1)
    with np.errstate(all="ignore"):
        return [xs.exact_sum(x), xs.exact_mean(x), xs.exact_sum(half, axis=1),
                xs.exact_mean(half, axis=1)]


@pytest.mark.parametrize("kernel", ["generic", "sse2", "best"])
def test_binned_kernels(kernel, tmp_path):
    expected = {}
    for name, x in BINNED_CASES.items():
        half = x[: x.size // 2 * 2].reshape(2, -1)
        expected[name] = [exact_sum_oracle(x, FLOAT64), exact_mean_oracle(x, FLOAT64),
                          np.array([exact_sum_oracle(r, FLOAT64) for r in half]),
                          np.array([exact_mean_oracle(r, FLOAT64) for r in half])]
    check_under_kernel(kernel, tmp_path, BINNED_CASES, _binned_sums, expected)


# The thresholds of the binned kernels, test hooks: the rows'
# (XS_CELLS_BINNED_MIN_TERMS) and the dot products' (XS_DOT_CELLS_BINNED_MIN_TERMS).
BINNED_HOOKS = {"_binned_min_terms": "65536", "_dot_binned_min_terms": "131072"}


@pytest.mark.parametrize("hook", sorted(BINNED_HOOKS))
def test_binned_min_terms_round_trips(hook):
    # (The fuzz driver lowers them on import, in whichever process imports
    # it: the value before is whatever this process has.)
    from xsumufunc import _ufuncs
    threshold = getattr(_ufuncs, hook)
    before = threshold()
    try:
        assert threshold(300) == before
        assert threshold() == 300
    finally:
        assert threshold(before) == 300
    assert threshold() == before


@pytest.mark.parametrize("hook", sorted(BINNED_HOOKS))
def test_binned_min_terms_default(hook):
    code = f"from xsumufunc import _ufuncs; print(_ufuncs.{hook}())"
    assert run_with_kernel("best", code) == [BINNED_HOOKS[hook], ""]
