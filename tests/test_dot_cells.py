"""The cells front end of float64 dot products (src/kernels/dot/xs_dot_cells.c) against
the oracle.

Contiguous float64 vectors of XS_DOT_CELLS_MIN_TERMS (256) products or more
are summed block by block (256 products) in double lanes, each product cut
at fixed grid positions into 2-5 cells under a top above the block's largest
|p|, when the block fits such a window, and product by product otherwise.
These inputs reach every branch: windows that move, blocks that need more
cells, blocks too wide for any window, Inf/NaN, zeros and all-zero blocks,
subnormal operands (alone, and in a window with normal ones), products near
overflow and underflow, exact cancellation, long rows, operands that the
portable kernel's split refuses (the top of the largest binade, subnormal
operands).  Every kernel
(portable, AVX2+FMA, AVX-512, NEON on aarch64) runs in a child process that
forces it through XSUMUFUNC_KERNEL.
"""

import numpy as np
import pytest
from childrun import check_under_kernel
from helpers import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle_products import exact_dot_oracle
from strategies import block_shifts

import xsumufunc as xs

FLOAT64 = np.dtype(np.float64)
N = 5000


def _cases():
    """name -> (a, b) float64 arrays, deterministic."""
    rng = np.random.default_rng(77)

    def normal(n=N):
        return rng.standard_normal(n)

    a, b = normal(), normal()
    cases = {"normal": (a, b), "squares": (a, a.copy())}
    wide = normal() * np.ldexp(1.0, rng.integers(-25, 25, N))
    cases["wide_squares"] = (wide, wide.copy())               # some blocks too wide
    shift = np.ldexp(1.0, np.repeat(rng.integers(-200, 200, N // 256 + 1), 256)[:N])
    cases["moving"] = (normal() * shift, normal())
    cases["opposite_scales"] = (normal() * 2.0**500, normal() * 2.0**-500)
    # Operands around 2^994 .. 2^1023 times tiny ones: products in a window,
    # which every kernel takes (the portable one's split has no overflow
    # below the top of the largest binade).
    huge = normal() * np.ldexp(1.0, rng.integers(994, 1023, N))
    cases["split_edge"] = (huge, normal() * np.ldexp(1.0, rng.integers(-1000, -990, N)))
    # The top of the largest binade: the portable kernel's split rounds it up
    # to Inf and refuses those blocks (the FMA kernels take them).
    top = normal() * 2.0**1000
    top[::97] = np.where(rng.random(len(top[::97])) < 0.5, -1.0, 1.0) * np.finfo(float).max
    cases["split_rounds_to_inf"] = (top, normal() * 2.0**-1000)
    with_inf = normal()
    with_inf[1000] = np.inf
    cases["inf"] = (with_inf, normal())
    with_nan = normal()
    with_nan[3000] = np.nan
    cases["nan"] = (normal(), with_nan)
    inf_times_zero = normal()
    inf_times_zero[10] = np.inf
    zero_b = normal()
    zero_b[10] = 0.0
    cases["inf_times_zero"] = (inf_times_zero, zero_b)
    sparse = normal()
    sparse[rng.random(N) < 0.5] = 0.0
    sparse[:512] = 0.0                                          # all-zero blocks
    cases["sparse"] = (sparse, normal())
    # Non-zero a[i] and b[j], but every product a zero of sign -: -0.0.
    only_zero_products = (np.where(np.arange(N) % 2, -0.0, 1.0), np.where(np.arange(N) % 2, 1.0, -0.0))
    cases["only_negative_zero_products"] = only_zero_products
    neg_zero = np.full(N, -0.0)
    cases["neg_zero_products"] = (neg_zero, np.ones(N))
    subnormal = normal()
    subnormal[::300] = 5e-324 * rng.integers(1, 1000, len(subnormal[::300]))
    cases["subnormal_operands"] = (subnormal, normal())
    cases["near_underflow"] = (normal() * 2.0**-520, normal() * 2.0**-540)
    cases["below_underflow"] = (normal() * 2.0**-540, normal() * 2.0**-540)
    cases["near_overflow"] = (normal() * 2.0**500, normal() * 2.0**480)
    cases["overflowing_products"] = (normal() * 2.0**520, normal() * 2.0**505)
    c = normal()
    d = normal()
    cases["cancel"] = (np.concatenate([c[:N // 2], -c[:N // 2]]),
                       np.concatenate([d[:N // 2], d[:N // 2]]))
    cancel_plus = cases["cancel"][0].copy()
    cancel_plus[7] += 2.0**-70
    cases["cancel_plus_tiny"] = (cancel_plus, cases["cancel"][1])
    # Large products that cancel exactly between the halves, and small ones
    # (2^-60 .. 2^-90 of them) in the same blocks that do not: the result is
    # made of the small ones alone, so one added outside its window shows.
    # (Blocks with both are too wide for any window: the first blocks of
    # each half have no small products, so that a window is open before.)
    half = N // 2
    big_a, big_b = normal(half), normal(half)
    ca, cb = np.concatenate([big_a, -big_a]), np.concatenate([big_b, big_b])
    pick = 1024 + np.flatnonzero(rng.random(half - 1024) < 0.05)   # after a window is set
    for where in (pick, pick + half):
        ca[where] = np.ldexp(normal(len(pick)), -rng.integers(60, 90, len(pick)))
    cases["cancel_with_small_products"] = (ca, cb)
    # Spread products: lognormal operands (3-4 cells), the paper's data
    # squared (4-5 cells), and wider (no window).
    def lognormal(sigma):
        return rng.lognormal(0.0, sigma, N) * rng.choice([-1.0, 1.0], N)
    cases["lognormal"] = (lognormal(3.0), lognormal(3.0))
    u = rng.random(N)
    paper = np.exp(30 * rng.random(N)) * u
    paper[N // 2:] = -paper[: N - N // 2]
    cases["paper_squares"] = (paper, paper.copy())
    cases["too_wide"] = (lognormal(12.0), lognormal(12.0))
    # Every block needs one more cell than the one before: operands of 1 and
    # a few of 2^-k at growing k, then a product above the top.
    grow_a = np.ones(N)
    for block, k in enumerate([20, 40, 60, 80, 100, 140]):
        grow_a[(block + 1) * 256 + 3] = 1 + 2.0**-52
        grow_a[(block + 1) * 256 + 5] = -(2.0**-k) * (1 + 2.0**-52)
    grow_a[9 * 256 + 1] = 2.0**9
    cases["growing_cells"] = (grow_a, rng.choice([-1.0, 1.0], N) * (1 + 2.0**-51))
    # A window that grows a cell for one tiny operand, drops it after a run
    # of blocks that do not need it, and grows it again.
    narrow_a, narrow_b = normal(), normal()
    narrow_a[5] = 2.0**-45 * (1 + 2.0**-52)
    narrow_a[15 * 256 + 9] = -(2.0**-45) * (1 + 2.0**-51)
    cases["narrowing"] = (narrow_a, narrow_b)
    # The seams of the AVX2 kernels: one chain of four lanes with a carry
    # step every 128 products, NaN products seen through the last cell's
    # lanes, the smallest non-zero operands as their bits minus 1 taken as
    # doubles.  Every lane near its bound between two carry steps:
    cases["carries"] = (np.full(N, np.nextafter(8.0, 0.0)),
                        np.where(np.arange(N) < N // 2, 1 + 2.0**-52, -(1 + 2.0**-50)))
    nan_seams = normal()
    nan_seams[[127, 128, 255, 256 + 131, N - 1]] = np.nan   # either side of a carry step
    cases["nan_at_seams"] = (nan_seams, normal())
    overflow_one = normal()
    overflow_one[130] = 1e200                          # p = Inf, e = -Inf: one product
    cases["one_overflowing_product"] = (overflow_one, np.where(np.arange(N) == 130, 1e200, 1.0))
    cases["zeros_times_nan"] = (np.zeros(N), np.where(np.arange(N) == 600, np.nan, 1.0))
    tiniest = np.zeros(N)
    tiniest[::41] = 5e-324                             # bits 1: minus 1 is +0.0
    cases["tiniest_operands"] = (tiniest, np.full(N, 2.0**600))
    # Subnormal operands of many bits whose products share a window with
    # normal ones (b near 2^1000, so that the quantum rule lets 3 cells hold
    # them): s = (2^30 - 1) 2^-1074 times 2^1000 (1 + 2^-52) rounds to
    # 2^-44 - 2^-74 + 2^-96, a multiple of 2^-96 only, finer than the
    # window's cell 2 (2^-90 under a top of 2^4), where the kernels add p's
    # rest whole: that takes normal operands, so such blocks must be refused.
    # The normal products cancel between the halves and each s (1 + 2^-52)
    # meets a -s: the dot product is 2^-96 times their count.
    half = N // 2
    sub_a1, sub_b1 = normal(half) * 2.0**-1004, (1.0 + rng.random(half)) * 2.0**1000
    sub_a = np.concatenate([sub_a1, -sub_a1])
    sub_b = np.concatenate([sub_b1, sub_b1])
    tiny = (2**30 - 1) * 5e-324
    for k, where in enumerate(range(300, half, 37)):
        sub_a[where], sub_a[where + half] = (tiny if k % 2 else -tiny), 0.0
        sub_b[where] = 2.0**1000 * (1 + 2.0**-52) if k % 2 else 2.0**1000
    cases["subnormal_operands_in_a_window"] = (sub_a, sub_b)
    long_n = 40_000
    cases["long"] = (rng.standard_normal(long_n), rng.standard_normal(long_n))
    return cases


CASES = _cases()


def _expected(a, b):
    return exact_dot_oracle(a, b, FLOAT64)


@pytest.mark.parametrize("name", sorted(CASES))
def test_default_kernel(name):
    a, b = CASES[name]
    with np.errstate(all="ignore"):
        for length in (256, 700, 1024, 1300, len(a)):
            assert_same(xs.exact_dot(a[:length], b[:length]),
                        _expected(a[:length], b[:length]), f"{name}[:{length}]")


def test_strided_and_unaligned_rows_are_exact_too():
    a, b = CASES["moving"]
    buf = np.zeros(8 * len(a) + 1, np.uint8)
    unaligned = np.ndarray(len(a), np.float64, buf, offset=1)
    unaligned[:] = a
    assert_same(xs.exact_dot(unaligned, b), _expected(a, b))
    assert_same(xs.exact_dot(a[::2], b[::2]), _expected(a[::2], b[::2]))


def _kernel_dots(a, b):
    """The child's side of test_every_kernel_in_a_child_process."""
    return [xs.exact_dot(a, b), xs.exact_dot(a[:1300], b[:1300]),
            xs.exact_dot(a[:300], b[:300], dtype=np.float32)]


# "avx2"/"avx512" fall back to what the CPU has ("neon" to generic off
# aarch64); "generic" is the portable kernel (Dekker's product, no FMA).
@pytest.mark.parametrize("kernel", ["generic", "avx2", "avx512", "neon"])
def test_every_kernel_in_a_child_process(kernel, tmp_path):
    expected = {name: [_expected(a, b), _expected(a[:1300], b[:1300]),
                       exact_dot_oracle(a[:300], b[:300], np.dtype(np.float32))]
                for name, (a, b) in CASES.items()}
    check_under_kernel(kernel, tmp_path, CASES, _kernel_dots, expected, timeout=600)


@settings(max_examples=25)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1024, 3000),
    spread=st.integers(0, 120),
    center=st.integers(-1074, 1000),
    block_shift=st.integers(0, 30),
)
def test_random_block_structures(seed, n, spread, center, block_shift):
    # Operands over `spread` binades around 2^(center/2) each, shifted per
    # block of 256, and some exact negatives of earlier products.
    rng = np.random.default_rng(seed)
    half = center // 2
    shifts = block_shifts(rng, n, block_shift)
    exps_a = np.clip(half + rng.integers(0, spread + 1, n) + shifts, -1074, 1023)
    exps_b = np.clip(center - half + rng.integers(0, spread + 1, n), -1074, 1023)
    a = rng.choice([-1.0, 1.0], n) * (1 + rng.random(n)) * np.ldexp(1.0, exps_a - 1)
    b = (1 + rng.random(n)) * np.ldexp(1.0, exps_b - 1)
    k = rng.integers(0, n // 2)
    a[n - k:] = -a[:k]
    b[n - k:] = b[:k]
    with np.errstate(all="ignore"):
        assert_same(xs.exact_dot(a, b), _expected(a, b))


# ---- the binned kernels: blocks shared with bins of exact products ----------------------
# The portable level (generic, sse2) on x86-64 has binned dot kernels for
# windows of three to five cells (src/kernels/dot/xs_dot_cells_variants.h):
# of each unit of 12 products of a block, the first 8 are cut into the lanes
# and the last 4 go into bins of exact 128-bit products (xs_dot_bins.h), and
# so do the block's last 4 (256 = 21 * 12 + 4).  Rows of 2^17 products and
# more, lowered to 256 here through _ufuncs._dot_binned_min_terms.  Every
# case above runs there too, and these put what the bins must put right in
# the binned places.  The other levels have no binned kernels: the same
# cases check them too.

DOT_BINNED_LOW = 256


def _binned_places(n):
    """The binned products' indices of a row of n products (whole blocks)."""
    block = np.arange(256)
    binned = block[(block % 12 >= 8) | (block >= 252)]
    return (np.arange(0, n, 256)[:, None] + binned).ravel()


def _dot_binned_cases():
    """name -> (a, b) whose blocks take three to five cells, with zeros,
    subnormals, Inf, NaN, overflowing and vanishing products in binned
    places, refused blocks and windows that the cut products alone set."""
    rng = np.random.default_rng(2077)
    n = 16384
    places = _binned_places(n)

    def wide(size=n):          # products over about 60 binades: four cells
        return rng.standard_normal(size) * np.ldexp(1.0, rng.integers(-24, 24, size))

    cases = {"wide": (wide(), rng.standard_normal(n)),
             "lognormal": (rng.lognormal(0, 3, n) * rng.choice([-1.0, 1.0], n),
                           rng.lognormal(0, 3, n))}
    a, b = wide(), rng.standard_normal(n)
    one_zero = a.copy()
    one_zero[places[40]] = 0.0                         # one block settles
    cases["one_zero"] = (one_zero, b)
    sparse = a.copy()
    sparse[places[::3]] = -0.0                         # every block: the bins stop
    cases["sparse_binned"] = (sparse, b)
    sub = a.copy()
    sub[places[100:160:7]] = 5e-324 * rng.integers(1, 2**50, 9)
    sub_b = b.copy()
    sub_b[places[100:160:7][:4]] = 2.0**-1060          # products below 2^-1074
    cases["subnormal_binned"] = (sub, sub_b)
    for name, value in (("inf_binned", np.inf), ("nan_binned", np.nan)):
        x = a.copy()
        x[places[300]] = value
        cases[name] = (x, b)
    inf_zero_a, inf_zero_b = a.copy(), b.copy()
    inf_zero_a[places[500]], inf_zero_b[places[500]] = np.inf, 0.0
    cases["inf_times_zero_binned"] = (inf_zero_a, inf_zero_b)
    # Products beyond a double, in binned places, that cancel: the bins hold
    # them exactly; the dot product is finite.
    huge_a, huge_b = a.copy(), b.copy()
    huge_a[places[[10, 700]]] = [1e300, -1e300]
    huge_b[places[[10, 700]]] = 1e300
    huge_a[places[20]], huge_b[places[20]] = 2.0**1000, 2.0**1000
    huge_a[places[720]], huge_b[places[720]] = -(2.0**1000), 2.0**1000
    cases["overflowing_binned_cancel"] = (huge_a, huge_b)
    # Binned products far below the cut ones (the window the cut products
    # choose alone has too few cells for them), and two blocks that the
    # window in use refuses (their bins taken out): one whose cut products
    # are all far above it, so that the new window of three cells (the
    # plain kernel, which takes every product) refuses it too and it goes
    # product by product, and two with a single large cut product, which
    # cancel (so that every block counts in the result).
    jump_a, jump_b = rng.standard_normal(n), rng.standard_normal(n)
    jump_a[places] *= 2.0**-70
    cut20 = np.setdiff1d(np.arange(20 * 256, 21 * 256), places)
    jump_a[cut20] *= 2.0**60
    jump_a[[40 * 256 + 2, 41 * 256 + 2]] = [2.0**120, -(2.0**120)]    # they cancel
    jump_b[[40 * 256 + 2, 41 * 256 + 2]] = 1.0
    cases["refused_and_narrower"] = (jump_a, jump_b)
    # Every binned product the same large one: their bins' high words grow.
    same = a.copy()
    same_b = b.copy()
    same[places] = np.nextafter(2.0**12, 0.0)
    same_b[places] = -np.nextafter(2.0**8, 0.0)
    cases["one_bin"] = (same, same_b)
    return cases


def _random_dot_binned(seed):
    """Random block structures over 80 to 160 binades of products (four and
    five cells, windows that move), exact negatives, and specials."""
    rng = np.random.default_rng([2078, seed])
    n = int(rng.integers(300, 5000))
    spread = int(rng.integers(40, 81))
    shifts = block_shifts(rng, n, 30)
    a = rng.standard_normal(n) * np.ldexp(1.0, rng.integers(-spread, spread, n) + shifts)
    b = rng.standard_normal(n) * np.ldexp(1.0, rng.integers(-spread // 2, spread // 2, n))
    k = int(rng.integers(0, n // 2))
    a[n - k:], b[n - k:] = -a[:k], b[:k]
    for value in (0.0, -0.0, 5e-324, 1e300, np.inf, np.nan):
        if rng.random() < 0.15:
            a[rng.integers(0, n)] = value
    return a, b


DOT_BINNED_CASES = {**CASES, **_dot_binned_cases(),
                    **{f"random {s}": _random_dot_binned(s) for s in range(30)}}


def _binned_dots(a, b):
    """The child's side of test_binned_kernels: the binned kernels from 256
    products."""
    from xsumufunc import _ufuncs
    _ufuncs._dot_binned_min_terms(DOT_BINNED_LOW)
    with np.errstate(all="ignore"):
        return [xs.exact_dot(a, b), xs.exact_dot(a[:1300], b[:1300])]


@pytest.mark.parametrize("kernel", ["generic", "sse2", "best"])
def test_binned_kernels(kernel, tmp_path):
    expected = {name: [_expected(a, b), _expected(a[:1300], b[:1300])]
                for name, (a, b) in DOT_BINNED_CASES.items()}
    check_under_kernel(kernel, tmp_path, DOT_BINNED_CASES, _binned_dots, expected, timeout=600)
