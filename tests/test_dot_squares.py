"""Sums of squares, exact_dot(x, x), against the oracle (src/kernels/dot/xs_dot_squares.c).

A contiguous float64 or float32 row of XS_DOT_SQUARES_MIN_TERMS (256) terms or more,
dotted with itself (the same memory and stride), is first summed as a
two-double approximation with a proven error bound, in 16 lanes folded every
1024 terms per lane (16384 terms), in chunks of 2^18 terms between interrupt
checks, the last partial group of 16 padded with zeros.  When the bound
decides the rounding that is the result; otherwise (ties, rows near a
rounding boundary, zero, tiny, huge or overflowing sums, Inf, NaN) the exact
path.  Every result must be the oracle's bit for bit, whichever path gave
it: lengths around those sizes, ties and near ties, values out of the safe
range, every target, strided and unaligned rows, equal values in two arrays,
and views of one buffer at different offsets (not the same row).  Every
kernel (generic, AVX2+FMA, AVX-512) runs in a child process that forces it
through XSUMUFUNC_KERNEL.
"""

import functools

import numpy as np
import pytest
from childrun import check_under_kernel
from helpers import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import BFLOAT16
from oracle_products import exact_dot_oracle

import xsumufunc as xs

FLOAT64 = np.dtype(np.float64)
TARGETS = [FLOAT64, np.dtype(np.float32), np.dtype(np.float16), BFLOAT16]
# Around the threshold (256), a lane block (16 * 1024), the group of 16 and
# the interrupt chunk (2^18 terms).
LENGTHS = [255, 256, 257, 271, 1023, 1024, 1025, 16384 - 1, 16384, 16384 + 1,
           2 * 16384 + 7, 2**18 + 37]


def _cases():
    """name -> float64 array, deterministic."""
    rng = np.random.default_rng(2026)
    n = 20000
    cases = {"normal": rng.standard_normal(n)}
    cases["lognormal"] = rng.lognormal(0.0, 3.0, n) * rng.choice([-1.0, 1.0], n)
    cases["wide"] = (rng.choice([-1.0, 1.0], n) * rng.uniform(1, 2, n)
                     * np.ldexp(1.0, rng.integers(-500, 500, n)))
    # Ties: integers whose squares sum to a float64 midpoint, 2^53 + 2^26*2 + odd.
    tie = np.zeros(n)
    tie[:2] = 2.0**26
    tie[100:355] = 1.0                       # + 255: between 2^53 + 254 and + 256
    cases["tie"] = tie
    near_tie = tie.copy()
    near_tie[5000] = 2.0**-30                # 2^-60 above the midpoint
    cases["near_tie"] = near_tie
    below_tie = tie.copy()
    below_tie[101] = 1.0 - 2.0**-53          # just below the midpoint
    cases["below_tie"] = below_tie
    # A float32 midpoint: 2^24 + 1 (and far below it, for float64 exact).
    tie32 = np.zeros(n)
    tie32[0], tie32[7] = 2.0**12, 1.0
    cases["tie_float32"] = tie32
    cases["zeros"] = np.zeros(n)
    cases["negative_zeros"] = np.full(n, -0.0)
    sparse = rng.standard_normal(n)
    sparse[rng.random(n) < 0.7] = 0.0
    cases["sparse"] = sparse
    for name, scale in [("huge", 2.0**505), ("near_overflow", 2.0**511),
                        ("overflowing", 2.0**600), ("tiny", 2.0**-500),
                        ("subnormal_squares", 2.0**-540), ("below_underflow", 2.0**-600)]:
        cases[name] = rng.standard_normal(n) * scale
    cases["one_huge"] = rng.standard_normal(n)
    cases["one_huge"][12345] = 2.0**520
    cases["one_tiny"] = rng.standard_normal(n) * 2.0**-400
    cases["one_tiny"][3] = 2.0**-700
    subnormal = rng.standard_normal(n)
    subnormal[::97] = 5e-324 * rng.integers(1, 1000, len(subnormal[::97]))
    cases["subnormal_values"] = subnormal
    only_subnormal = 5e-324 * rng.integers(1, 2**40, n).astype(np.float64)
    cases["only_subnormal"] = only_subnormal
    for name, special in [("inf", np.inf), ("minus_inf", -np.inf), ("nan", np.nan)]:
        x = rng.standard_normal(n)
        x[n - 3] = special                  # in the padded last group of some lengths
        cases[name] = x
    # A square sum rounding to the largest double, and one just beyond.
    top = np.zeros(n)
    top[0] = np.sqrt(np.finfo(np.float64).max)
    cases["top"] = top
    beyond = np.full(n, 2.0**511)
    cases["beyond"] = beyond
    return cases


CASES = _cases()


def _row(name, length):
    """The case's first `length` values, repeated when it is shorter."""
    return np.resize(CASES[name], length)


@functools.cache
def _expected(name, length, target=FLOAT64):
    x = _row(name, length)
    return exact_dot_oracle(x, x, target)


def _row32(name, length):
    with np.errstate(all="ignore"):
        return _row(name, length).astype(np.float32)


@functools.cache
def _expected32(name, length):
    x = _row32(name, length)
    return exact_dot_oracle(x, x, np.dtype(np.float32))


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_rows(name):
    # float32 rows take the same lanes (widened exactly: their squares are
    # exact doubles): every length around the thresholds, rounded into
    # float32 (the default) and float64.
    with np.errstate(all="ignore"):
        for n in [255, 256, 1023, 1024, 1025, 16384 + 1, 2 * 16384 + 7]:
            x = _row32(name, n)
            assert_same(xs.exact_dot(x, x), _expected32(name, n), f"{name}[:{n}]")
        x = _row32(name, 3000)
        assert_same(xs.exact_dot(x, x, dtype=np.float64), exact_dot_oracle(x, x, FLOAT64),
                    f"{name} -> float64")


@pytest.mark.parametrize("name", sorted(CASES))
def test_default_kernel_every_length(name):
    lengths = [n for n in LENGTHS if n <= 2 * 16384 + 7]
    if name in ("normal", "lognormal", "tie", "nan"):
        lengths.append(LENGTHS[-1])
    with np.errstate(all="ignore"):
        for n in lengths:
            x = _row(name, n)
            assert_same(xs.exact_dot(x, x), _expected(name, n), f"{name}[:{n}]")


@pytest.mark.parametrize("target", TARGETS, ids=str)
@pytest.mark.parametrize("name", ["normal", "lognormal", "wide", "tie", "tie_float32",
                                  "near_tie", "huge", "tiny", "subnormal_squares", "top"])
def test_every_target(name, target):
    x = CASES[name][:3000]
    with np.errstate(all="ignore"):
        assert_same(xs.exact_dot(x, x, dtype=target), _expected(name, 3000, target),
                    f"{name} -> {target}")


def test_ties_round_to_even():
    # The approximation cannot decide a tie: the exact path rounds it.
    x = CASES["tie"]
    assert xs.exact_dot(x, x) == 2.0**53 + 256
    x32 = CASES["tie_float32"]
    assert xs.exact_dot(x32, x32, dtype=np.float32) == np.float32(2.0**24)


def _outcome(call):
    """The value, or the FloatingPointError NumPy raised for a flag."""
    with np.errstate(all="raise"):
        try:
            return call()
        except FloatingPointError as error:
            return str(error)


@pytest.mark.parametrize("name", sorted(CASES))
def test_flags_as_the_exact_path(name):
    # Squares that overflow, Inf and NaN inside the kernel leave no flag:
    # under errstate(all="raise") the call does what the exact path of two
    # different arrays does (the same value, or the same error).
    x = CASES[name]
    got, exact = _outcome(lambda: xs.exact_dot(x, x)), _outcome(lambda: xs.exact_dot(x, x.copy()))
    if isinstance(exact, str):
        assert got == exact
    else:
        assert_same(got, exact)
        assert_same(got, _expected(name, len(x)))


@pytest.mark.parametrize("name", ["normal", "lognormal", "tie", "inf"])
def test_strided_unaligned_and_reversed(name):
    x = CASES[name]
    buf = np.zeros(8 * len(x) + 1, np.uint8)
    unaligned = np.ndarray(len(x), np.float64, buf, offset=1)
    unaligned[:] = x
    with np.errstate(all="ignore"):
        assert_same(xs.exact_dot(unaligned, unaligned), _expected(name, len(x)))
        for view in (x[::2], x[::-1], x[1::3]):
            assert_same(xs.exact_dot(view, view), exact_dot_oracle(view, view, FLOAT64))


@pytest.mark.parametrize("name", ["normal", "lognormal", "tie", "near_tie", "nan"])
def test_equal_values_in_two_arrays(name):
    x = CASES[name]
    with np.errstate(all="ignore"):
        assert_same(xs.exact_dot(x, x.copy()), _expected(name, len(x)))
        assert_same(xs.exact_dot(x.copy(), x), _expected(name, len(x)))


def test_views_of_one_buffer_at_other_offsets():
    # Same stride, different start: a dot of two different rows, never a square.
    buf = CASES["lognormal"]
    n = 5000
    for shift in (1, 2, 16, 17):
        a, b = buf[:n], buf[shift:shift + n]
        assert_same(xs.exact_dot(a, b), exact_dot_oracle(a, b, FLOAT64), f"shift {shift}")
        assert_same(xs.exact_dot(b, a), exact_dot_oracle(b, a, FLOAT64), f"shift {shift}")


def test_rows_of_a_matrix():
    # Row i of X with row i of X (squares) and of X reversed (only the middle
    # row is the same memory).
    rng = np.random.default_rng(5)
    m = rng.lognormal(0.0, 2.0, (5, 700)) * rng.choice([-1.0, 1.0], (5, 700))
    flipped = m[::-1]
    got = xs.exact_dot(m, m)
    got_flipped = xs.exact_dot(m, flipped)
    for i in range(5):
        assert_same(got[i], exact_dot_oracle(m[i], m[i], FLOAT64), f"row {i}")
        assert_same(got_flipped[i], exact_dot_oracle(m[i], flipped[i], FLOAT64), f"row {i}")


def test_state_stays_exact():
    # The state output takes no shortcut: rounding it gives the same result.
    x = CASES["near_tie"]
    state = xs.exact_dot_state_ufunc(x, x)
    assert_same(xs.exact_dot_state_round_ufunc(state, signature=(np.int64, np.float64)),
                _expected("near_tie", len(x)))


CHILD_LENGTHS = [n for n in LENGTHS if n <= 2 * 16384 + 7]


def _kernel_dots(x):
    """The child's side of test_every_kernel_in_a_child_process: squares of
    the case repeated to each length, of float32 rows, and of the whole case."""
    rows = [np.resize(x, n) for n in CHILD_LENGTHS]
    r32 = np.resize(x, 5000).astype(np.float32)
    return [*(xs.exact_dot(r, r) for r in rows),
            xs.exact_dot(x[:3000], x[:3000], dtype=np.float32), xs.exact_dot(r32, r32),
            xs.exact_dot(x, x)]


def _child_expected(name, length):
    """_kernel_dots's exact results for the case `name` repeated to `length`."""
    return [*(_expected(name, n) for n in CHILD_LENGTHS),
            _expected(name, 3000, np.dtype(np.float32)), _expected32(name, 5000),
            _expected(name, length)]


# "avx2"/"avx512" fall back to what the CPU has.
@pytest.mark.parametrize("kernel", ["generic", "sse2", "avx2", "avx512"])
def test_every_kernel_in_a_child_process(kernel, tmp_path):
    # The lognormal case repeated to the longest length too (its shorter
    # rows are the lognormal case's).
    cases = dict(CASES, lognormal_long=_row("lognormal", LENGTHS[-1]))
    expected = {name: _child_expected(name, len(CASES[name])) for name in CASES}
    expected["lognormal_long"] = _child_expected("lognormal", LENGTHS[-1])
    check_under_kernel(kernel, tmp_path, cases, _kernel_dots, expected, timeout=600)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(256, 40000),
    spread=st.integers(0, 1100),
    center=st.integers(-560, 530),
    zeros=st.floats(0.0, 0.9),
)
def test_random_rows(seed, n, spread, center, zeros):
    # Values over `spread` binades around 2^center, some zeros: squares
    # that overflow, underflow or go subnormal at the ends of the ranges.
    rng = np.random.default_rng(seed)
    exps = np.clip(center - rng.integers(0, spread + 1, n), -1074, 1023)
    x = rng.choice([-1.0, 1.0], n) * rng.uniform(1, 2, n) * np.ldexp(1.0, exps - 1)
    x[rng.random(n) < zeros] = 0.0
    with np.errstate(all="ignore"):
        assert_same(xs.exact_dot(x, x), exact_dot_oracle(x, x, FLOAT64))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(256, 3000),
       odd=st.integers(0, 2**20).map(lambda k: 2 * k + 1), top=st.integers(27, 40))
def test_integer_midpoints(seed, n, odd, top):
    # Integers whose squares sum to 2^(2*top) + odd: a float64 midpoint when
    # 2 * top > 53 and the odd part lies below the last bit (a tie or, with
    # other small parts, near one), spread over the row in random places.
    rng = np.random.default_rng(seed)
    x = np.zeros(n)
    ones = min(odd, n - 1)
    x[1:1 + ones] = 1.0
    x[0] = 2.0**top
    rng.shuffle(x)
    assert_same(xs.exact_dot(x, x), exact_dot_oracle(x, x, FLOAT64))
