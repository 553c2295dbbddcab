"""The oracle of the 2-norm: the exact sum of squares of an array as a
Fraction, and a check that a result is its square root rounded once (to
nearest, ties to even) into a format, decided by squaring the ends of the
result's rounding interval.  Shared by the norm tests."""

import math
from fractions import Fraction

import numpy as np
from oracle import CODE_RULES, FORMATS, round_fraction, terms_of


def exact_square_sum(x):
    """The exact sum of squares of the values of x (complex: |v|**2)."""
    total = Fraction(0)
    for v in terms_of(np.ravel(x)):
        c = complex(v)
        total += Fraction(c.real) ** 2 + Fraction(c.imag) ** 2
    return total


def _floor_log2(q):
    e = q.numerator.bit_length() - q.denominator.bit_length()
    return e if q >= Fraction(2) ** e else e - 1


def assert_rounded_sqrt(r, s, dtype):
    """r is sqrt(s) rounded to nearest (ties to even) into dtype, decided by
    squaring the ends of r's rounding interval."""
    fmt = FORMATS[dtype]
    r = float(r)
    if s == 0:
        assert r == 0 and math.copysign(1, r) == 1, r
        return
    max_finite = fmt.max_finite
    overflow_at = max_finite + Fraction(2) ** (fmt.qmax - 1)
    if r == math.inf:
        assert s >= overflow_at ** 2, (r, s)
        return
    assert math.isfinite(r) and r > 0, (r, s)
    big_r = Fraction(r)
    quantum = max(_floor_log2(big_r), fmt.emin) - fmt.p + 1
    ulp = Fraction(2) ** quantum
    significand = big_r / ulp
    assert significand.denominator == 1
    below = ulp / 4 if (significand == 1 << (fmt.p - 1) and quantum > fmt.qmin) else ulp / 2
    low, high = big_r - below, big_r + ulp / 2
    even = significand.numerator % 2 == 0
    assert low ** 2 < s or (low ** 2 == s and even), ("too large", r, s)
    if big_r == max_finite:
        assert s < high ** 2, ("should overflow", r)
    else:
        assert s < high ** 2 or (s == high ** 2 and even), ("too small", r, s)


def rounded_sqrt(s, dtype):
    """sqrt(s) (s a non-negative Fraction) rounded once into dtype, to
    nearest with ties to even: r = isqrt(floor(s * 4**k)) with at least
    p + 3 bits and a sticky half unit when s * 4**k is not r**2 exactly,
    then one rounding.  The root lies in [r, r + 1) * 2**-k, and no midpoint
    of the format (on a coarser power-of-two grid) lies strictly inside, so
    the sticky value rounds as the root does."""
    if s == 0:
        return round_fraction(Fraction(0), dtype)
    fmt = FORMATS[dtype] if dtype in FORMATS else CODE_RULES[dtype].fmt
    num, den = s.numerator, s.denominator
    k = max(0, (2 * (fmt.p + 3) - (num.bit_length() - den.bit_length())) // 2 + 1)
    whole, rest = divmod(num << (2 * k), den)
    root = math.isqrt(whole)
    sticky = rest != 0 or root * root != whole
    return round_fraction(Fraction(2 * root + sticky, 1 << (k + 1)), dtype)
