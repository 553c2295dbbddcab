"""Correct rounding of exact rationals and of their square roots.

The exact results that are not a plain sum (a variance, a norm) are kept as
Python integers, ``num / den * 2**exponent``, and rounded once here into a
binary format ``(p, emin, emax)`` (``dtypes.FORMATS``): to nearest, ties to
even, with subnormals, and to +inf beyond the largest finite value.  The
results are Python floats whose values are exactly representable in the
format, so converting them to its dtype is exact.
"""

import math


def round_dyadic(m, exponent, fmt):
    """The value m * 2**exponent (m an int >= 0) rounded into fmt."""
    return round_rational(m, 1, exponent, fmt)


def round_rational(num, den, exponent, fmt):
    """num / den * 2**exponent (ints, num >= 0, den > 0) rounded into fmt."""
    if num == 0:
        return 0.0
    p, emin, emax = fmt
    # 2**t <= num / den < 2**(t + 1)
    t = num.bit_length() - den.bit_length()
    if (num << max(0, -t)) < (den << max(0, t)):
        t -= 1
    quantum = max(t + exponent, emin) - p + 1          # the result's ulp
    shift = exponent - quantum
    if shift >= 0:
        q, r = divmod(num << shift, den)
        d = den
    else:
        d = den << -shift
        q, r = divmod(num, d)
    if 2 * r > d or (2 * r == d and q & 1):
        q += 1
    if q.bit_length() + quantum > emax + 1:
        return math.inf
    return math.ldexp(q, quantum)


def sqrt_rational(num, den, exponent, fmt):
    """sqrt(num / den * 2**exponent) (ints, num >= 0, den > 0) rounded into fmt.

    With X = num * 4**k / den, isqrt gives q <= sqrt(floor(X)) < q + 1, and
    sqrt(X) lies in [q, q + 1), equal to q only when q * q == X exactly.
    When the grid of q is finer than half an ulp of every candidate result
    (q has at least p + 3 bits, and the grid is below half the smallest
    subnormal), no rounding boundary lies strictly inside (q, q + 1), so
    the root rounds like q (exact) or like q + 1/2 (inexact)."""
    if num == 0:
        return 0.0
    p, emin, _ = fmt
    if exponent % 2:
        num, exponent = num << 1, exponent - 1
    magnitude = num.bit_length() - den.bit_length()          # log2(num / den), within 1
    k = max(0, (2 * (p + 3) - magnitude + 2) // 2 + 1, exponent // 2 - (emin - p))
    whole, rest = divmod(num << (2 * k), den)
    grid = exponent // 2 - k
    q = math.isqrt(whole)
    if q * q == whole and rest == 0:
        return round_dyadic(q, grid, fmt)
    return round_dyadic(2 * q + 1, grid - 1, fmt)
