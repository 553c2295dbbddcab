"""The exact oracle of variances and standard deviations (exact_var,
exact_std, their nan-variants, the grouped ones): the variance about the
exact mean as a Fraction, and checks that a result is it rounded once (the
standard deviation: its correctly rounded square root)."""

import math
from fractions import Fraction

import numpy as np
from helpers import assert_same
from oracle import BFLOAT16, COMPLEX64, COMPLEX128, FLOAT32, FLOAT64, FORMATS, round_fraction
from oracle_roots import assert_rounded_sqrt


def var_result_dtype(dtype):
    """The dtype exact_var gives for input of `dtype`."""
    if dtype.kind in "biu":
        return FLOAT64
    return {COMPLEX128: FLOAT64, COMPLEX64: FLOAT32}.get(dtype, dtype)


def var_oracle(terms, ddof):
    """(exact variance as a Fraction, or 'nan'/'inf' for the special cases)."""
    parts = []
    for t in terms:
        parts.append((t.real, t.imag) if isinstance(t, complex) else (t, 0))
    if any(not math.isfinite(p) for pair in parts for p in pair):
        return "nan"
    n = len(parts)
    spread = Fraction(0)
    for c in (0, 1):
        values = [Fraction(p[c]) for p in parts]
        if n:
            mean = sum(values, Fraction(0)) / n
            spread += sum(((v - mean) ** 2 for v in values), Fraction(0))
    dof = n - Fraction(ddof)
    if dof <= 0:
        return "inf" if spread else "nan"
    return spread / dof


def check(got, terms, ddof, dtype, std):
    """got is the variance (std: its root) of `terms` rounded once into dtype."""
    exact = var_oracle(terms, ddof)
    if exact in ("nan", "inf"):
        expected = np.array(math.nan if exact == "nan" else math.inf).astype(
            np.float32 if dtype == BFLOAT16 else dtype).astype(dtype)
        assert_same(np.asarray(got), np.asarray(expected))
        return
    if std:
        assert np.asarray(got).dtype == dtype
        if float(got) == 0 and exact > 0:
            # Below half the smallest subnormal (ties: to even, 0): rounds to +0.
            assert math.copysign(1, float(got)) == 1
            assert exact <= Fraction(2) ** (2 * (FORMATS[dtype].qmin - 1)), exact
        else:
            assert_rounded_sqrt(got, exact, dtype)
    else:
        assert_same(got, round_fraction(exact, dtype))
