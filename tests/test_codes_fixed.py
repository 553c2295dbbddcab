"""The fixed-point path of float8/float6/float4 sums (src/kernels/codes/xs_codes_fixed.c).

Contiguous rows of byte-coded values are summed 64 codes at a time as
integers (byte permutes over per-code tables, blocks of 2**20), and a block
that holds a NaN or Inf code, or whose sum is exactly 0, is counted by the
histogram instead.  These tests aim at those seams: lengths around the
64-byte step and the block, specials and zero sums in one block among
others, unaligned starts; and every forced kernel (XSUMUFUNC_KERNEL), each in
a subprocess, against the same oracle: avx512vnni (the signed planes with
VNNI for the symmetric float8 formats, the biased planes for the others),
avx512vbmi (the biased planes for every format), and generic/sse2/avx2/avx512
(the histogram), as are CPUs without these instructions.
"""

import numpy as np
import pytest
from childrun import check_under_kernel
from helpers import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import CODE_DTYPES
from test_codes import _counted_oracle, codes_of, finite_codes_of, quiet_call

import xsumufunc as xs

FLOAT64 = np.dtype(np.float64)
BLOCK = 2**20
LENGTHS = [63, 64, 65, 127, 128, 129, 511, 512, 513, 4096 + 17, BLOCK - 1, BLOCK, BLOCK + 63,
           BLOCK + 64, 2 * BLOCK + 100]


def _codes_where(dtype, predicate):
    values = codes_of(dtype).astype(np.float64)
    return np.array([c for c in range(256) if predicate(values[c])], dtype=np.uint8)


def _check(x, message=""):
    for target in (x.dtype, FLOAT64):
        assert_same(quiet_call(xs.exact_sum, x, dtype=target), _counted_oracle(x, target),
                    f"{x.dtype} n={x.size} -> {target} {message}")


@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=str)
@pytest.mark.parametrize("n", LENGTHS)
def test_lengths_around_the_step_and_the_block(dtype, n):
    rng = np.random.default_rng(n)
    x = rng.choice(finite_codes_of(dtype), size=n).view(dtype)
    _check(x)
    _check(x[1:], "unaligned start")


@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=str)
def test_a_special_code_in_one_block(dtype):
    """A NaN or Inf code sends its block (and only it) to the histogram."""
    specials = _codes_where(dtype, lambda v: not np.isfinite(v))
    rng = np.random.default_rng(3)
    x = rng.choice(finite_codes_of(dtype), size=2 * BLOCK + 200)
    for code in specials:
        for where in (0, 63, 64, BLOCK - 1, BLOCK, 2 * BLOCK + 150):
            y = x.copy()
            y[where] = code
            _check(y.view(dtype), f"special {code:#x} at {where}")
    if specials.size >= 2:
        y = x.copy()
        y[5], y[BLOCK + 5] = specials[0], specials[-1]      # two blocks, two specials
        _check(y.view(dtype), "two specials")


@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=str)
def test_blocks_whose_sum_is_zero(dtype):
    """A block of exact cancellation, one of -0 only, and one of +0 only,
    beside blocks with a non-zero sum; and whole rows of each."""
    finite = finite_codes_of(dtype)
    values = codes_of(dtype).astype(np.float64)
    rng = np.random.default_rng(4)
    half = rng.choice(finite, size=BLOCK // 2)
    negated = (-values[half]).astype(dtype).view(np.uint8)   # exact: the grids are symmetric
    cancel = np.concatenate([half, negated])
    rng.shuffle(cancel)
    neg_zero = _codes_where(dtype, lambda v: v == 0 and np.signbit(v))
    pos_zero = _codes_where(dtype, lambda v: v == 0 and not np.signbit(v))
    other = rng.choice(finite, size=BLOCK + 300)
    _check(cancel.view(dtype), "one cancelling block")
    _check(np.concatenate([cancel, other]).view(dtype), "cancelling block first")
    for zeros, label in ((neg_zero, "-0"), (pos_zero, "+0")):
        if zeros.size:
            z = np.full(BLOCK + 70, zeros[0], np.uint8)
            _check(z.view(dtype), f"{label} only")
            _check(np.concatenate([other, z]).view(dtype), f"{label} block last")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_random_rows(data):
    dtype = data.draw(st.sampled_from(CODE_DTYPES))
    n = data.draw(st.integers(0, 3000))
    start = data.draw(st.integers(0, 63))
    codes = data.draw(st.sampled_from(["finite", "any", "few"]))
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    pool = {"finite": finite_codes_of(dtype), "any": np.arange(256, dtype=np.uint8),
            "few": rng.choice(finite_codes_of(dtype), size=3)}[codes]
    x = rng.choice(pool, size=n + start).astype(np.uint8)[start:]
    _check(x.view(dtype), f"start {start}, {codes}")


def _float64_sums(x):
    """The child's side of test_every_forced_kernel."""
    return [xs.exact_sum(x, dtype=np.float64), xs.exact_sum(x[1:], dtype=np.float64)]


@pytest.mark.parametrize("kernel", ["generic", "sse2", "avx2", "avx512", "avx512vbmi",
                                    "avx512vnni"])
def test_every_forced_kernel(kernel, tmp_path):
    """The same sums under each XSUMUFUNC_KERNEL, in a fresh process (the
    kernel is chosen once per process)."""
    rng = np.random.default_rng(5)
    cases = {}
    for dtype in CODE_DTYPES:
        finite = finite_codes_of(dtype)
        for n in (64, 1000, BLOCK + 65):
            cases[f"{dtype}-{n}"] = rng.choice(finite, size=n).view(dtype)
        anything = rng.integers(0, 256, size=5000, dtype=np.uint8)
        cases[f"{dtype}-any"] = anything.view(dtype)
    expected = {name: [_counted_oracle(x, FLOAT64), _counted_oracle(x[1:], FLOAT64)]
                for name, x in cases.items()}
    check_under_kernel(kernel, tmp_path, cases, _float64_sums, expected)
