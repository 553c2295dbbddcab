"""Self-tests of the Fraction oracle against independent correctly rounded
IEEE operations (NumPy casts and hardware additions)."""

import math
import struct
from fractions import Fraction

import numpy as np
import pytest
from helpers import assert_same, same
from hypothesis import example, given
from hypothesis import strategies as st
from oracle import (
    BFLOAT16,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    FORMATS,
    NoValue,
    exact_sum_oracle,
    oracle_accumulate,
    oracle_reduce,
    oracle_reduceat,
    reduceat_segments,
    round_fraction,
)


def f64_from_bits(u):
    return struct.unpack("<d", struct.pack("<Q", u))[0]


def f32_from_bits(u):
    return float(np.array(u, dtype=np.uint32).view(np.float32))


finite_f64_bits = st.integers(0, 2**64 - 1).map(f64_from_bits).filter(math.isfinite)


@st.composite
def near_ties(draw, fmt):
    """Doubles that sit exactly on, or one double away from, a rounding
    boundary of a format (normal, subnormal and overflow ranges)."""
    p = fmt.p
    m = draw(st.integers(1 << p, (1 << (p + 1)) - 1)) | 1  # p+1 bits, odd: a tie
    small = draw(st.integers(1, (1 << p) - 1)) | 1  # ties in the subnormal range
    m = draw(st.sampled_from([m, small, (1 << (p + 1)) - 1]))
    e = draw(st.integers(fmt.qmin - 3, fmt.qmax))
    x = math.ldexp(m, e)  # exact: m < 2**54 and e within float64's range
    step = draw(st.sampled_from([0, 0, 1, -1]))
    if step:
        x = math.nextafter(x, math.copysign(math.inf, step))
    return draw(st.sampled_from([x, -x]))


def doubles_for(fmt):
    return st.one_of(
        st.floats(allow_nan=False, allow_infinity=False),
        finite_f64_bits,
        near_ties(fmt),
        near_ties(fmt),
        st.floats(allow_nan=False, allow_infinity=False, min_value=-1e-30, max_value=1e-30),
        st.floats(allow_nan=False, allow_infinity=False, min_value=6e4, max_value=7e4),
        st.floats(allow_nan=False, allow_infinity=False, min_value=3.3e38, max_value=3.5e38),
    )


def _zero_sign(x):
    return math.copysign(1.0, x)


@given(doubles_for(FORMATS[FLOAT32]))
@example(1.0 + 2.0**-24)
@example(1.0 + 2.0**-24 + 2.0**-52)
@example(float.fromhex("0x1.fffffefffffffp+127"))
@example(float.fromhex("0x1.ffffffp+127"))
@example(2.0**-150)
@example(-(2.0**-150))
@example(2.0**-150 + 2.0**-200)
@example(3 * 2.0**-150)
@example(-0.0)
def test_round_fraction_matches_numpy_float32_cast(x):
    with np.errstate(over="ignore", under="ignore"):
        expected = np.float32(x)
    assert_same(round_fraction(Fraction(x), FLOAT32, zero_sign=_zero_sign(x)), expected)


@given(doubles_for(FORMATS[FLOAT16]))
@example(1.0 + 2.0**-11)
@example(1.0 + 3 * 2.0**-11)
@example(65504.0 + 16.0)
@example(65504.0 + 16.0 - 2.0**-40)
@example(2.0**-25)
@example(-(2.0**-25))
@example(3 * 2.0**-25)
@example(2.0**-25 + 2.0**-60)
def test_round_fraction_matches_numpy_float16_cast(x):
    with np.errstate(over="ignore", under="ignore"):
        expected = np.float16(x)
    assert_same(round_fraction(Fraction(x), FLOAT16, zero_sign=_zero_sign(x)), expected)


finite_f32_bits = st.integers(0, 2**32 - 1).map(f32_from_bits).filter(math.isfinite)


@st.composite
def float32_near_bf16_ties(draw):
    m = draw(st.integers(1 << 8, (1 << 9) - 1)) | 1
    e = draw(st.integers(-149, 127 - 8))
    x = float(np.float32(math.ldexp(m, e)))  # exact: 9 bits fits in float32 when normal
    if np.float32(x) != x:
        x = float(np.float32(0.0))
    step = draw(st.sampled_from([0, 0, 1, -1]))
    if step:
        x = float(np.nextafter(np.float32(x), np.float32(math.copysign(math.inf, step))))
    return draw(st.sampled_from([x, -x]))


@given(st.one_of(finite_f32_bits, float32_near_bf16_ties(),
                 st.floats(width=32, allow_nan=False, allow_infinity=False)))
@example(float(np.float32(1.0 + 2.0**-8)))
@example(float(np.float32(1.0 + 3 * 2.0**-8)))
@example(float(np.float32(3.3895313892515355e38)))
@example(float(np.finfo(np.float32).max))
@example(2.0**-134)
@example(-(2.0**-134))
def test_round_fraction_matches_bfloat16_cast_from_float32(x):
    # ml_dtypes' float32 -> bfloat16 cast is round-to-nearest-even; its
    # float64 -> bfloat16 cast goes through float32 (double rounding), so we
    # only compare on float32-representable inputs.
    x32 = np.float32(x)
    assert float(x32) == x or math.isnan(x)
    expected = np.array(x32, dtype=np.float32).astype(BFLOAT16)[()]
    assert_same(round_fraction(Fraction(x), BFLOAT16, zero_sign=_zero_sign(x)), expected)


@given(finite_f32_bits)
def test_round_fraction_float64_and_float32_identity_on_representable(x):
    assert_same(round_fraction(Fraction(x), FLOAT64, zero_sign=_zero_sign(x)), np.float64(x))
    assert_same(round_fraction(Fraction(x), FLOAT32, zero_sign=_zero_sign(x)), np.float32(x))


@st.composite
def addition_pairs(draw):
    kind = draw(st.integers(0, 5))
    floats = st.floats(allow_nan=False, allow_infinity=False)
    if kind == 0:
        return draw(floats), draw(floats)
    if kind == 1:
        return draw(finite_f64_bits), draw(finite_f64_bits)
    if kind == 2:  # overflow region
        big = st.floats(min_value=1e307, max_value=1.7976931348623157e308)
        a, b = draw(big), draw(big)
        return draw(st.sampled_from([(a, b), (-a, -b), (a, -b)]))
    if kind == 3:  # near cancellation
        a = draw(floats)
        d = draw(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e-300, max_value=1e-300))
        return a, -a + d if math.isfinite(-a + d) else -a
    if kind == 4:  # ties at the last bit of the larger operand
        e = draw(st.integers(-1074, 971))
        m = draw(st.integers(1 << 52, (1 << 53) - 1))
        a = math.ldexp(m, e)
        b = math.ldexp(draw(st.sampled_from([1, -1, 3, -3])), e - 1)
        return a, b
    # subnormal range
    sub = st.floats(min_value=-1e-305, max_value=1e-305)
    return draw(sub), draw(sub)


@given(addition_pairs())
@example((1.7976931348623157e308, 1.7976931348623157e308))
@example((1.7976931348623157e308, 2.0**970))
@example((1.7976931348623157e308, 2.0**970 - 2.0**917))
@example((-1.7976931348623157e308, -(2.0**970)))
@example((1.0, 2.0**-53))
@example((1.0 + 2.0**-52, 2.0**-53))
@example((-0.0, -0.0))
@example((-0.0, 0.0))
@example((5e-324, -5e-324))
def test_oracle_matches_ieee_double_addition(pair):
    a, b = pair
    exact = Fraction(a) + Fraction(b)
    s = a + b
    if exact != 0:
        assert_same(round_fraction(exact, FLOAT64), np.float64(s))
    assert_same(exact_sum_oracle([a, b], FLOAT64), np.float64(s))


@given(st.floats(width=32), st.floats(width=32))
def test_oracle_matches_ieee_float32_addition(a, b):
    with np.errstate(over="ignore", invalid="ignore"):
        s = np.float32(a) + np.float32(b)
    assert_same(exact_sum_oracle([a, b], FLOAT32), s)


@given(st.floats(width=16), st.floats(width=16))
def test_oracle_matches_float16_addition(a, b):
    # NumPy adds float16 in float32 and rounds; p=24 >= 2*11+2 so this double
    # rounding is innocuous and the result is the correctly rounded sum.
    with np.errstate(over="ignore", invalid="ignore"):
        s = np.float16(a) + np.float16(b)
    assert_same(exact_sum_oracle([a, b], FLOAT16), s)


@given(st.floats(), st.floats(), st.floats())
def test_oracle_three_terms_specials_follow_ieee_when_no_overflow(a, b, c):
    # With no intermediate overflow, IEEE sequential addition agrees with the
    # oracle on every special value and on the sign of zero whenever both
    # orders agree (it is exact as a real sum only for the final rounding, so
    # only compare NaN-ness / infinities / zero signs here).
    with np.errstate(all="ignore"):
        s1 = (a + b) + c
        s2 = a + (b + c)
    r = float(exact_sum_oracle([a, b, c], FLOAT64))
    specials = [v for v in (a, b, c) if not math.isfinite(v)]
    if specials:
        if math.isnan(s1) and math.isnan(s2):
            assert math.isnan(r)
        elif math.isinf(s1) and s1 == s2:
            assert r == s1
    if a == b == c == 0.0:
        assert math.copysign(1, r) == math.copysign(1, s1) == math.copysign(1, s2)


# --- hand-checked values ------------------------------------------------------


@pytest.mark.parametrize("dtype", list(FORMATS))
def test_round_fraction_boundaries(dtype):
    fmt = FORMATS[dtype]
    p, emin, emax = fmt
    two = Fraction(2)
    one = round_fraction(Fraction(1), dtype)
    assert float(one) == 1.0
    # tie at 1: 1 + 2^-p -> 1 (even); above the tie -> next
    assert float(round_fraction(1 + two**-p, dtype)) == 1.0
    assert float(round_fraction(1 + two**-p + two**(-p - 40), dtype)) == 1 + 2.0 ** (1 - p)
    assert float(round_fraction(1 + 3 * two**-p, dtype)) == 1 + 2.0 ** (2 - p)
    assert float(round_fraction(-(1 + 3 * two**-p), dtype)) == -(1 + 2.0 ** (2 - p))
    # largest finite and the overflow boundary (2 - 2^-p) * 2^emax
    mx = fmt.max_finite
    boundary = (2 - two**-p) * two**emax
    assert Fraction(float(round_fraction(mx, dtype))) == mx
    assert float(round_fraction(boundary, dtype)) == math.inf
    assert float(round_fraction(-boundary, dtype)) == -math.inf
    assert Fraction(float(round_fraction(boundary - two**(emax - 200), dtype))) == mx
    assert float(round_fraction(two ** (emax + 1), dtype)) == math.inf
    assert float(round_fraction(two ** (emax + 500), dtype)) == math.inf
    # subnormals
    tiny = fmt.min_subnormal
    assert Fraction(float(round_fraction(tiny, dtype))) == tiny
    r = round_fraction(tiny / 2, dtype)
    assert float(r) == 0.0 and math.copysign(1, float(r)) == 1
    r = round_fraction(-tiny / 2, dtype)
    assert float(r) == 0.0 and math.copysign(1, float(r)) == -1
    assert Fraction(float(round_fraction(tiny / 2 + two**-2000, dtype))) == tiny
    assert Fraction(float(round_fraction(3 * tiny / 2, dtype))) == 2 * tiny
    assert Fraction(float(round_fraction(5 * tiny / 2, dtype))) == 2 * tiny
    assert Fraction(float(round_fraction(fmt.min_normal - tiny, dtype))) == fmt.min_normal - tiny
    # zero sign
    assert math.copysign(1, float(round_fraction(Fraction(0), dtype))) == 1
    assert math.copysign(1, float(round_fraction(Fraction(0), dtype, zero_sign=-1))) == -1
    assert round_fraction(Fraction(0), dtype).dtype == dtype


def test_round_fraction_returns_numpy_scalars():
    for dt in FORMATS:
        r = round_fraction(Fraction(1, 3), dt)
        assert isinstance(r, np.generic)
        assert r.dtype == dt


def test_round_fraction_known_values():
    assert round_fraction(Fraction(1, 10), FLOAT64) == np.float64(0.1)
    assert round_fraction(Fraction(1, 3), FLOAT32) == np.float32(1 / 3)
    # the double-rounding trap: 1 + 2^-24 + 2^-80 -> float32 after 1.0
    r = round_fraction(1 + Fraction(2) ** -24 + Fraction(2) ** -80, FLOAT32)
    assert_same(r, np.nextafter(np.float32(1), np.float32(2)))
    # bfloat16: 1 + 2^-8 + 2^-30 rounds up (ml_dtypes' float64 cast would not)
    r = round_fraction(1 + Fraction(2) ** -8 + Fraction(2) ** -30, BFLOAT16)
    assert float(r) == 1 + 2.0**-7


@pytest.mark.parametrize("dtype", list(FORMATS))
def test_exact_sum_oracle_specials(dtype):
    inf, nan = math.inf, math.nan

    def f(vals):
        return float(exact_sum_oracle(vals, dtype))

    assert math.isnan(f([1.0, nan]))
    assert math.isnan(f([inf, -inf]))
    assert math.isnan(f([inf, nan]))
    assert f([inf, 1.0, -5.0]) == inf
    assert f([-inf, -1.0]) == -inf
    mx = float(FORMATS[dtype].max_finite)
    assert f([-inf, mx, mx, mx]) == -inf
    assert f([mx, mx, -mx]) == mx
    assert f([mx, mx]) == inf
    assert f([-mx, -mx]) == -inf
    assert math.copysign(1, f([])) == 1 and f([]) == 0
    assert math.copysign(1, f([-0.0])) == -1
    assert math.copysign(1, f([-0.0, -0.0, -0.0])) == -1
    assert math.copysign(1, f([-0.0, 0.0])) == 1
    assert math.copysign(1, f([1.0, -1.0])) == 1
    assert math.copysign(1, f([-0.0, 1.0, -1.0])) == 1
    assert math.copysign(1, f([0])) == 1
    assert f([]) == 0.0
    assert math.copysign(1, float(exact_sum_oracle([nan, nan], dtype, skip_nan=True))) == 1
    assert f([1, 2, 3]) == 6.0


def test_exact_sum_oracle_integers_and_complex():
    assert exact_sum_oracle([2**63 - 1, 1], FLOAT64) == np.float64(2.0**63)
    assert exact_sum_oracle([2**53, 1], FLOAT64) == np.float64(2.0**53)
    assert exact_sum_oracle([2**53, 3], FLOAT64) == np.float64(2.0**53 + 4)
    assert exact_sum_oracle([True, True, np.bool_(True)], FLOAT64) == np.float64(3)
    r = exact_sum_oracle([complex(1, 1e100), complex(1e100, 1), complex(-1e100, -1e100)],
                         np.complex128)
    assert_same(r, np.complex128(complex(1, 1)))
    r = exact_sum_oracle([complex(-0.0, 0.0)], np.complex64)
    assert r.dtype == np.complex64
    assert math.copysign(1, r.real) == -1 and math.copysign(1, r.imag) == 1


def test_assert_same_is_strict():
    assert same(np.float64(1.0), np.float64(1.0))
    assert not same(np.float64(0.0), np.float64(-0.0))
    assert not same(np.float32(1.0), np.float64(1.0))
    assert same(np.float64(np.nan), np.float64(-np.nan))
    assert not same(np.float64(np.nan), np.float64(np.inf))
    assert not same(np.array([1.0, 2.0]), np.array([1.0]))
    assert not same(np.array([[1.0]]), np.array([1.0]))
    assert same(np.array([1.0, -0.0], dtype=BFLOAT16), np.array([1.0, -0.0], dtype=BFLOAT16))
    assert not same(np.array([0.0], dtype=BFLOAT16), np.array([-0.0], dtype=BFLOAT16))
    assert not same(np.complex64(complex(0.0, -0.0)), np.complex64(complex(0.0, 0.0)))
    assert same(np.complex64(complex(np.nan, 1)), np.complex64(complex(np.nan, 1)))
    assert not same(np.float16(1.0), np.float16(np.nextafter(np.float16(1), np.float16(2))))


def test_array_oracles_small_cases():
    a = np.array([[1.0, 2.0**-53, -0.0], [-0.0, -0.0, 2.0**-53]])
    assert_same(oracle_reduce(a), np.float64(1.0 + 2.0**-52))
    assert_same(oracle_reduce(a, axis=1),
                np.array([1.0, 2.0**-53]))
    assert_same(oracle_reduce(a, axis=0), np.array([1.0, 2.0**-53, 2.0**-53]))
    assert_same(oracle_reduce(a, axis=0, where=[False, True, True]),
                np.array([0.0, 2.0**-53, 2.0**-53]))
    assert_same(oracle_reduce(a, axis=1, where=[False, False, True]), np.array([-0.0, 2.0**-53]))
    assert_same(oracle_reduce(a, axis=(0, 1), keepdims=True), np.array([[1.0 + 2.0**-52]]))
    assert_same(oracle_reduce(a[1, :2], initial=0.0), np.float64(0.0))
    assert_same(oracle_reduce(a[1], initial=-0.0), np.float64(2.0**-53))
    assert_same(oracle_reduce(a[1, :2], initial=-0.0), np.float64(-0.0))
    assert oracle_reduce(a, initial=NoValue).dtype == np.float64
    assert_same(oracle_accumulate(np.array([1e100, 1.0, -1e100])), np.array([1e100, 1e100, 1.0]))
    assert reduceat_segments(5, [0, 3, 1, 1, 4]) == [(0, 3), (3, 4), (1, 2), (1, 4), (4, 5)]
    assert_same(oracle_reduceat(np.arange(5.0), [0, 3, 1, 1, 4]),
                np.array([3.0, 3.0, 1.0, 6.0, 4.0]))
