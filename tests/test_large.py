"""The large accumulator (src/exact/xs_large.{h,c}): float64 data that fits no
window of cells (contiguous rows: blocks of 256 terms over the whole
exponent range) and strided float64 rows go through its block loop (no test
per term; bins emptied between blocks of 1024 terms); masked rows, other
dtypes and dot products through its single adds.  Every result is compared
bit for bit with the exact Fraction oracle, under every kernel variant too.
"""

from fractions import Fraction

import numpy as np
import pytest
from childrun import check_under_kernel
from helpers import assert_same
from oracle import exact_sum_oracle, round_fraction

import xsumufunc as xs

FLOAT64 = np.dtype(np.float64)
MAX = np.finfo(np.float64).max
# The largest significand (2^53 - 1) in a few binades: a bin reaches 2^63
# after 1025 of them (1024 * (2^53 - 1) is just below).
FULL = [np.nextafter(2.0, 0.0) * 2.0**e for e in (-1022, -500, 0, 300, 1000)]
# Lengths around the block loop's 1024 terms and its bins' 2^63 limit.
LENGTHS = [1, 2, 255, 256, 257, 1023, 1024, 1025, 2047, 2048, 2049, 4096, 4097, 9000]


def _whole_range(rng, n):
    """Signs * [1, 2) * 2^e, e uniform over the whole range (benchmarks' data)."""
    signs = rng.choice([-1.0, 1.0], n)
    return signs * np.ldexp(rng.uniform(1, 2, n), rng.integers(-1000, 1000, n))


def _wide_blocks(values, rng):
    """values with every 8th term replaced by a whole-range one, so that every
    block of 256 terms (and the first 16 terms of each) fits no window."""
    x = np.array(values, dtype=np.float64)
    x[::8] = _whole_range(rng, x[::8].size)
    x[0], x[8] = 2.0**900, -(2.0**-900)
    return x


def _cases():
    """name -> float64 array whose blocks fit no window, deterministic."""
    rng = np.random.default_rng(1505)
    n = 9000
    cases = {"whole_range": _whole_range(rng, n)}
    w = _whole_range(rng, n)
    cancel = np.concatenate([w[: n // 2], -w[: n // 2]])
    rng.shuffle(cancel)
    cases["cancel"] = cancel
    cases["cancel_plus_tiny"] = np.concatenate([cancel, [5e-324]])
    for k, v in enumerate(FULL):
        # One bin filled again and again between whole-range terms.
        cases[f"full_bin_{k}"] = _wide_blocks(np.full(n, v), rng)
        cases[f"full_bin_neg_{k}"] = -cases[f"full_bin_{k}"]
    sub = _whole_range(rng, n)
    sub[1::3] = rng.integers(-(2**52) + 1, 2**52, sub[1::3].size) * 5e-324   # subnormals
    sub[2::7] = -0.0
    sub[5::11] = 0.0
    cases["subnormals_zeros"] = sub
    only_sub = _wide_blocks(rng.integers(-(2**52) + 1, 2**52, n) * 5e-324, rng)
    cases["mostly_subnormal"] = only_sub
    neg_zero = np.full(n, -0.0)
    neg_zero[0], neg_zero[8] = 2.0**900, -(2.0**-900)
    neg_zero[5000] = -(2.0**900)
    neg_zero[5008] = 2.0**-900
    cases["neg_zeros_cancelled"] = neg_zero
    huge = _whole_range(rng, n)
    huge[::5] = MAX
    cases["overflow"] = huge
    back = huge.copy()
    back[1::5] = -MAX                                    # huge terms cancel: finite
    cases["huge_cancel"] = back
    for name, special in [("inf", np.inf), ("neg_inf", -np.inf), ("nan", np.nan)]:
        x = _whole_range(rng, n)
        x[4321] = special
        cases[name] = x
    both = _whole_range(rng, n)
    both[100], both[7000] = np.inf, -np.inf
    cases["inf_minus_inf"] = both
    # Two quiet NaNs of fraction 2^51 in one block: their significands with
    # a wrong implicit bit would sum to that of two Infs.
    nans = _whole_range(rng, n)
    nans[300], nans[301] = np.nan, np.nan
    cases["two_nans"] = nans
    # Inf next to zeros and subnormals in one block.
    mixed = _whole_range(rng, n)
    mixed[600:610] = [np.inf, 0.0, -0.0, 5e-324, -5e-324, np.inf, 1.0, -1.0, 0.0, 2.0**-1070]
    cases["inf_with_zeros"] = mixed
    return cases


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_contiguous_rows(name):
    x = CASES[name]
    with np.errstate(all="ignore"):
        for length in LENGTHS:
            assert_same(xs.exact_sum(x[:length]), exact_sum_oracle(x[:length], FLOAT64),
                        f"{name}[:{length}]")


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("step", [2, -1, -3])
def test_strided_rows(name, step):
    x = CASES[name]
    with np.errstate(all="ignore"):
        for length in LENGTHS:
            y = np.repeat(x[:length], abs(step))[::step]
            assert_same(xs.exact_sum(y), exact_sum_oracle(y, FLOAT64), f"{name}[:{length}:{step}]")


@pytest.mark.parametrize("name", sorted(CASES))
def test_rows_and_masked_rows(name):
    # Rows of a 2-D array (contiguous), its columns of a transposed copy
    # (strided), and rows with a mask (term by term).
    x = CASES[name][:9000].reshape(9, 1000)
    mask = np.ones(x.shape, dtype=bool)
    mask[:, 3::4] = False
    with np.errstate(all="ignore"):
        sums = xs.exact_sum(x, axis=1)
        columns = xs.exact_sum(np.asfortranarray(x), axis=1)
        masked = xs.exact_sum(x, axis=1, where=mask)
    for i, row in enumerate(x):
        expected = exact_sum_oracle(row, FLOAT64)
        assert_same(sums[i], expected, f"{name} row {i}")
        assert_same(columns[i], expected, f"{name} strided row {i}")
        assert_same(masked[i], exact_sum_oracle(row[mask[i]], FLOAT64), f"{name} masked row {i}")


def _exact_of_copies(x, value):
    """The exact sum of x, most of whose terms are value, as a Fraction (the
    other terms one by one: the oracle on 2^20 terms takes too long)."""
    others = x[x != value]
    return Fraction(float(value)) * (x.size - others.size) + sum(map(Fraction, others.tolist()))


@pytest.mark.parametrize("value", FULL + [2.0**-1074, np.nextafter(2.0**-1022, 0.0)])
@pytest.mark.parametrize("path", ["contiguous", "strided"])
def test_many_copies_of_one_value_then_its_negation(value, path):
    # 2^20 copies in one bin (it reaches 2^63 every 1025 terms of the
    # largest significand), then its negation, then one more term.
    copies = 2**20
    x = np.full(2 * copies, value)
    if path == "contiguous":
        x = x[:copies]
        x[0::256], x[8::256] = 2.0**900, -(2.0**-900)   # every block fits no window
    else:
        x = x[::2]                            # strided: the large path from the start
    y = np.concatenate([x, -x])
    with np.errstate(all="ignore"):
        assert_same(xs.exact_sum(x), round_fraction(_exact_of_copies(x, value), FLOAT64),
                    f"{value!r} x")
        assert_same(xs.exact_sum(y[::-1]), np.float64(0.0), f"{value!r} x, -x")
        assert_same(xs.exact_sum(y), np.float64(0.0), f"{value!r} x, -x")
        z = np.concatenate([y, [value]])             # exactly value
        assert_same(xs.exact_sum(z[::-1]), np.float64(value), f"{value!r} x, -x, value")
        assert_same(xs.exact_sum(z), np.float64(value), f"{value!r} x, -x, value")


@pytest.mark.parametrize("n", [1023, 1024, 1025, 2049, 3 * 1024 + 1])
def test_bins_at_the_limit_in_every_block(n):
    # Strided rows of the largest significand: block edges and bins at
    # 2^63 - 1024 (1024 terms) meet; alternately signed and mixed in too.
    for v in FULL:
        x = np.full(2 * n, v)[::2]
        assert_same(xs.exact_sum(x), exact_sum_oracle(x, FLOAT64), f"{v!r} * {n}")
        y = x.copy()
        y[1024::1025] = -v
        y = np.repeat(y, 2)[::2]
        assert_same(xs.exact_sum(y), exact_sum_oracle(y, FLOAT64), f"{v!r} * {n} mixed")


def test_float32_and_dot_take_single_adds():
    # Strided float32 rows and dot products add term by term into the large
    # accumulator (with a test per term).
    rng = np.random.default_rng(11)
    x32 = (rng.choice([-1.0, 1.0], 6000) * np.ldexp(rng.uniform(1, 2, 6000),
                                                     rng.integers(-140, 120, 6000)))
    x32 = x32.astype(np.float32)[::2]
    assert_same(xs.exact_sum(x32, dtype=np.float64), exact_sum_oracle(x32, FLOAT64))
    a = _whole_range(rng, 5000) * 2.0**-500
    b = _whole_range(rng, 5000) * 2.0**-500
    exact = sum(Fraction(float(p)) * Fraction(float(q)) for p, q in zip(a, b))
    with np.errstate(all="ignore"):
        assert_same(xs.exact_dot(a, b), round_fraction(exact, FLOAT64))


def _views(x):
    return (x, x[:1025], x[:300], x[::2], x[::-1])


def _kernel_sums(x):
    """The child's side of test_every_kernel_in_a_child_process."""
    return [xs.exact_sum(y) for y in _views(x)]


@pytest.mark.parametrize("kernel", ["generic", "sse2", "avx2", "avx512"])
def test_every_kernel_in_a_child_process(kernel, tmp_path):
    expected = {name: [exact_sum_oracle(y, FLOAT64) for y in _views(x)]
                for name, x in CASES.items()}
    check_under_kernel(kernel, tmp_path, CASES, _kernel_sums, expected)
