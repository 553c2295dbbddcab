"""exact_mean / exact_nanmean / exact_mean_ufunc.

Every expected value is either written down by hand (and cross-checked with
the Fraction oracle, so that a wrong table entry fails loudly) or computed by
the Fraction oracle in ``oracle_products.py``: the exact sum of the selected
terms divided by their count, rounded once into the result dtype.  Results
are compared bit for bit (helpers.assert_same: dtype, shape, bits; NaN
matches NaN; -0.0 does not match +0.0).
"""

import math
import os
import pickle
import subprocess
import sys
import textwrap
from fractions import Fraction

import numpy as np
import pytest
from helpers import (
    array,
    assert_same,
    check_out_untouched,
    dtype_names,
    quiet,
    scalar,
    skip_under_asan,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.exceptions import AxisError
from oracle import (
    BFLOAT16,
    BOOL_DTYPE,
    COMPLEX64,
    COMPLEX128,
    COMPONENT_DTYPE,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    FLOAT_DTYPES,
    FORMATS,
    INT_DTYPES,
    default_result_dtype,
    round_fraction,
)
from oracle_products import exact_mean_oracle, oracle_mean_reduce
from strategies import (
    axis_args,
    fmt_of,
    mantissas,
    nd_arrays,
    representable,
    split_dyadic,
    to_array,
    value_lists,
    where_masks,
)

import xsumufunc as xs

inf, nan = math.inf, math.nan
M64 = 1.7976931348623157e308


def two(e):
    return math.ldexp(1.0, e)


def _id(x):
    return "default" if x is None else str(np.dtype(x))


def mean(*args, **kwargs):
    return quiet(xs.exact_mean, *args, **kwargs)


def nanmean(*args, **kwargs):
    return quiet(xs.exact_nanmean, *args, **kwargs)


def fmt_values(dtype):
    f = FORMATS[np.dtype(dtype)]
    return dict(
        p=f.p,
        M=float(f.max_finite),
        h=two(f.qmax - 1),          # half an ulp of M
        s=two(f.qmin),              # smallest subnormal
        N=two(f.emin),              # smallest normal
        u=two(1 - f.p),             # ulp of 1
        half=two(-f.p),             # half an ulp of 1
        big=two(f.emax),
    )


# ---------------------------------------------------------------------------
# Hand tables, every float format


def mean_table(dtype):
    """(name, terms, expected mean) with terms and expected representable."""
    v = fmt_values(dtype)
    p, M, s, N, u, big = v["p"], v["M"], v["s"], v["N"], v["u"], v["big"]
    return [
        ("two max: sum overflows, mean finite", [M, M], M),
        ("three max", [M, M, M], M),
        ("two -max", [-M, -M], -M),
        ("max and -max", [M, -M], 0.0),
        ("big big", [big, big], big),
        ("big big -big -big 4 4", [big, big, -big, -big, 4.0, 4.0], None),
        ("1 and 2", [1.0, 2.0], 1.5),
        ("division tie -> even (1.0)", [1.0, 1.0 + u], 1.0),
        ("division tie -> even (up)", [1.0 + u, 1.0 + 2 * u], 1.0 + 2 * u),
        ("negative division tie", [-1.0, -1.0 - u], -1.0),
        ("tie at 0.5 from four terms", [1.0, 1.0 + u, s, -s], 0.5),
        ("tie at 0.5 plus tiny", [1.0, 1.0 + u, s, 0.0], 0.5 + u / 2),
        ("tie at 0.5 minus tiny", [1.0, 1.0 + u, -s, 0.0], 0.5),
        ("cancel big keeps 1", [big, 1.0, -big, 1.0], 0.5),
        ("half subnormal -> +0 (even)", [s, 0.0], 0.0),
        ("-half subnormal -> -0", [-s, 0.0], -0.0),
        ("-half subnormal with -0", [-s, -0.0], -0.0),
        ("three quarters subnormal -> s", [s, s, s, 0.0], s),
        ("third of subnormal -> +0", [s, 0.0, 0.0], 0.0),
        ("-third of subnormal -> -0", [-s, 0.0, 0.0], -0.0),
        ("1.5 subnormal -> 2s", [3 * s, 0.0], 2 * s),
        ("2.5 subnormal -> 2s", [5 * s, 0.0], 2 * s),
        ("subnormal mean exact", [s, 3 * s], 2 * s),
        ("min normal and its negative", [N, -N], 0.0),
        ("all -0.0 (1)", [-0.0], -0.0),
        ("all -0.0 (5)", [-0.0] * 5, -0.0),
        ("-0.0 and +0.0", [-0.0, 0.0], 0.0),
        ("cancellation -> +0", [1.0, -1.0], 0.0),
        ("cancellation with -0.0 -> +0", [-1.0, 1.0, -0.0], 0.0),
        ("single value", [-3.0], -3.0),
        ("+inf", [inf, 1.0], inf),
        ("-inf", [-1.0, -inf], -inf),
        ("+inf -inf", [inf, -inf], nan),
        ("inf beats overflow", [-M, inf, -M], inf),
        ("-inf beats overflow", [-inf, M, M], -inf),
        ("nan", [nan], nan),
        ("nan among finite", [1.0, nan, -1.0], nan),
        ("nan with inf", [inf, nan], nan),
        ("odd mantissa count 3", [-(2 ** p - 1) * 2.0 ** -p * 2, 0.0, 0.0], None),
    ]


def _table():
    rows = []
    for dt in FLOAT_DTYPES:
        for name, terms, exp in mean_table(dt):
            rows.append((dt, name, terms, exp))
    return rows


TABLE = _table()


@pytest.mark.parametrize("dtype,name,terms,expected", TABLE,
                         ids=[f"{dt}-{n}" for dt, n, _, _ in TABLE])
def test_mean_table(dtype, name, terms, expected):
    a = array(terms, dtype)
    if expected is None:  # value known only through its exact Fraction
        exp = round_fraction(sum((Fraction(t) for t in terms), Fraction(0)) / len(terms), dtype)
    else:
        exp = scalar(expected, dtype)
    assert_same(exact_mean_oracle(terms, dtype), exp, "table entry disagrees with oracle")
    assert_same(mean(a), exp, name)
    assert_same(mean(a[::-1]), exp, name + " (reversed)")
    assert_same(quiet(xs.exact_mean_ufunc, a), exp, name + " (gufunc)")
    two_d = np.stack([a, a])
    exp2 = np.array([exp, exp], dtype=dtype)
    assert_same(mean(two_d, axis=1), exp2, name + " (axis=1)")
    assert_same(mean(two_d.T, axis=0), exp2, name + " (axis=0 of .T)")
    if not any(isinstance(t, float) and math.isnan(t) for t in terms):
        assert_same(nanmean(a), exp, name + " (nanmean, no NaN)")


def _trap_terms(dtype):
    """Three terms whose mean rounded once differs from round(round(sum)/3)."""
    p = FORMATS[dtype].p
    k, sg = {FLOAT64: (-52, 1), FLOAT32: (-22, -1), FLOAT16: (-10, 1), BFLOAT16: (-6, -1)}[dtype]
    return [1.0, -sg * two(-p), two(k)]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_mean_is_not_rounded_sum_divided(dtype):
    terms = _trap_terms(dtype)
    S = sum((Fraction(t) for t in terms), Fraction(0))
    exact = round_fraction(S / 3, dtype)
    naive = round_fraction(Fraction(float(round_fraction(S, dtype))) / 3, dtype)
    assert float(exact) != float(naive), "not a trap"
    a = array(terms, dtype)
    for perm in ([0, 1, 2], [2, 1, 0], [1, 2, 0]):
        assert_same(mean(a[perm]), exact)
    assert_same(exact_mean_oracle(terms, dtype), exact)


def test_float64_classics():
    assert_same(mean(np.array([1e308, 1e308])), np.float64(1e308))
    assert_same(mean([1e308, 1e308]), np.float64(1e308))
    assert_same(mean(np.array([M64, M64, M64, M64])), np.float64(M64))
    assert_same(mean(np.array([1e100, 1.0, -1e100, 1.0])), np.float64(0.5))
    # ten copies of 0.1: the exact mean is 0.1 itself
    assert_same(mean(np.array([0.1] * 10)), np.float64(0.1))
    assert_same(mean(np.array([0.1] * 7 + [-0.1] * 2)), exact_mean_oracle([0.1] * 7 + [-0.1] * 2, FLOAT64))
    assert_same(mean([0.1, 0.2, 0.3]), exact_mean_oracle([0.1, 0.2, 0.3], FLOAT64))
    assert_same(mean(np.array([2.0**-1074, 0.0])), np.float64(0.0))
    assert_same(mean(np.array([2.0**-1074] * 3 + [0.0])), np.float64(2.0**-1074))
    # (2^1023 * 3) / 3 with an intermediate overflow
    assert_same(mean(np.array([2.0**1023] * 3)), np.float64(2.0**1023))
    assert_same(mean(np.array([M64, M64, -M64])), round_fraction(Fraction(M64) / 3, FLOAT64))


# ---------------------------------------------------------------------------
# Integers and bools: exact integer sum / count, rounded once (float64 default)


INT_CASES = [
    (np.int64, [2**63 - 1] * 3, None, float(2**63)),
    (np.int64, [1, 2], None, 1.5),
    (np.int64, [2**53, 1], None, 2.0**52 + 0.5),
    (np.int64, [2**53 + 1, 2**53 + 1], None, 2.0**53),            # tie -> even
    (np.int64, [2**53 + 3] * 5, None, 2.0**53 + 4),               # tie -> even (up)
    (np.int64, [-(2**63), -(2**63), 2**63 - 1], None, None),
    (np.int64, [0, 0, 0], None, 0.0),
    (np.int64, [-1, 1], None, 0.0),
    (np.uint64, [2**64 - 1] * 4, None, float(2**64)),
    (np.uint64, [2**64 - 1, 1], None, float(2**63)),
    (np.int8, [-128, 127], None, -0.5),
    (np.int8, [-128] * 7, None, -128.0),
    (np.uint8, [255, 0, 0], None, 85.0),
    (np.int16, [1, 0, 0], None, None),
    (np.int32, [2**31 - 1, 2**31 - 1, -(2**31)], None, None),
    (np.uint32, [2**32 - 1, 2**32 - 2], None, 2.0**32 - 1.5),
    (np.bool_, [True, False, False], None, None),
    (np.bool_, [True, True], None, 1.0),
    (np.bool_, [False], None, 0.0),
    (np.int64, [2**24 + 1, 2**24 + 1], FLOAT32, 2.0**24),         # tie in float32
    (np.int64, [2**24 + 1, 2**24 + 1, 2**24 + 2], FLOAT32, 2.0**24 + 2),
    (np.int64, [2049, 2049], FLOAT16, 2048.0),
    (np.int64, [65520, 65520], FLOAT16, inf),                      # past float16 max
    (np.int64, [65519, 65520], FLOAT16, 65504.0),
    (np.int64, [257, 256], BFLOAT16, 256.0),
    (np.int64, [2**62 + 1, 2**62], BFLOAT16, 2.0**62),
]


@pytest.mark.parametrize("dt,values,target,expected", INT_CASES,
                         ids=[f"{np.dtype(d)}-{i}" for i, (d, _, _, _) in enumerate(INT_CASES)])
def test_integer_means(dt, values, target, expected):
    a = np.array(values, dtype=object).astype(dt)
    rdt = FLOAT64 if target is None else np.dtype(target)
    if expected is None:
        exp = round_fraction(Fraction(sum(int(v) for v in values), len(values)), rdt)
    else:
        exp = scalar(expected, rdt)
    assert_same(exact_mean_oracle(values, rdt), exp, "table entry disagrees with oracle")
    kw = {} if target is None else {"dtype": target}
    assert_same(mean(a, **kw), exp)
    assert_same(mean(a[::-1], **kw), exp)
    out = np.full((), 7, dtype=rdt)
    r = mean(a, out=out)
    assert r is out
    assert_same(out, np.asarray(exp))


def test_integer_default_dtype_and_types():
    for dt in INT_DTYPES + [BOOL_DTYPE]:
        a = np.ones((2, 3), dtype=dt)
        r = xs.exact_mean(a)
        assert type(r) is np.float64
        assert_same(r, np.float64(1.0))
        assert_same(xs.exact_mean(a, axis=1), np.ones(2))
        assert_same(xs.exact_mean(a, axis=0, dtype=np.float32), np.ones(3, dtype=np.float32))


# ---------------------------------------------------------------------------
# Result dtypes and return types


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [COMPLEX64, COMPLEX128], ids=str)
def test_return_types(dtype):
    a = np.ones((3, 4), dtype=dtype)
    r = xs.exact_mean(a)
    assert isinstance(r, np.generic) and type(r) is np.dtype(dtype).type
    assert_same(r, np.ones((), dtype)[()])
    r = xs.exact_mean(a, axis=0)
    assert isinstance(r, np.ndarray) and r.dtype == dtype and r.shape == (4,)
    r = xs.exact_mean(a, axis=1, keepdims=True)
    assert r.shape == (3, 1) and r.dtype == dtype
    r = xs.exact_mean(a, keepdims=True)
    assert r.shape == (1, 1)
    r = xs.exact_nanmean(a)
    assert type(r) is np.dtype(dtype).type
    out = np.zeros(4, dtype=dtype)
    assert xs.exact_mean(a, axis=0, out=out) is out
    assert_same(out, np.ones(4, dtype))


def test_out_dtype_is_the_one_rounding():
    # mean = 1 + 2^-24 + 2^-80: float32 tie + tiny -> up; through float64 it
    # would be an exact tie -> 1.0.
    a = np.array([3.0, 3 * 2.0**-24, 3 * 2.0**-80])
    exp32 = np.float32(1 + 2.0**-23)
    out = np.full((), 9, dtype=np.float32)
    assert xs.exact_mean(a, out=out) is out
    assert_same(out[()], exp32)
    assert_same(xs.exact_mean(a, dtype=np.float32), exp32)
    a16 = np.array([3.0, 3 * 2.0**-11, 3 * 2.0**-60])
    out = np.full((), 9, dtype=np.float16)
    xs.exact_mean(a16, out=out)
    assert_same(out[()], np.float16(1 + 2.0**-10))
    abf = np.array([3.0, 3 * 2.0**-8, 3 * 2.0**-60])
    out = np.full((), 9, dtype=BFLOAT16)
    xs.exact_mean(abf, out=out)
    assert_same(out[()], scalar(1 + 2.0**-7, BFLOAT16))
    # float32 input into float16, trap through a float32 mean
    a32 = np.array([3.0, 3 * 2.0**-11, 3 * 2.0**-30], dtype=np.float32)
    assert_same(xs.exact_mean(a32, dtype=np.float16), np.float16(1 + 2.0**-10))
    # out with axis
    b = np.stack([a, -a])
    out = np.zeros(2, dtype=np.float32)
    assert xs.exact_mean(b, axis=1, out=out) is out
    assert_same(out, np.array([1 + 2.0**-23, -(1 + 2.0**-23)], dtype=np.float32))


def _cross_mean_cases(target):
    """(name, exact mean as a Fraction, expected) for the target format."""
    f = FORMATS[target]
    pT = f.p
    P = Fraction(2)
    return [
        ("tie at 1 -> even", 1 + P ** -pT, 1.0),
        ("tie at 1 + tiny", 1 + P ** -pT + P ** (-pT - 56), 1.0 + two(1 - pT)),
        ("tie at 1 - tiny", 1 + P ** -pT - P ** (-pT - 56), 1.0),
        ("tie at odd -> up", 1 + P ** (1 - pT) + P ** -pT, 1.0 + two(2 - pT)),
        ("negative tie at odd", -(1 + P ** (1 - pT) + P ** -pT), -1.0 - two(2 - pT)),
        ("max + half ulp -> inf", f.max_finite + P ** (f.qmax - 1), inf),
        ("max + half ulp - tiny", f.max_finite + P ** (f.qmax - 1) - P ** (f.qmax - 40),
         float(f.max_finite)),
        ("half min subnormal -> +0", P ** (f.qmin - 1), 0.0),
        ("-half min subnormal -> -0", -(P ** (f.qmin - 1)), -0.0),
        ("half min subnormal + tiny", P ** (f.qmin - 1) + P ** (f.qmin - 30), two(f.qmin)),
        ("1.5 min subnormal -> 2", 3 * P ** (f.qmin - 1), two(f.qmin + 1)),
        ("min normal - half subnormal", P ** f.emin - P ** (f.qmin - 1), two(f.emin)),
    ]


def _cross_rows():
    rows = []
    for src in FLOAT_DTYPES:
        for tgt in FLOAT_DTYPES:
            for name, z, exp in _cross_mean_cases(tgt):
                for n in (3, 5, 6, 12):
                    total = z * n
                    # total is dyadic: num * 2**q
                    den = total.denominator
                    q = -(den.bit_length() - 1)
                    assert den == 1 << -q
                    pieces = split_dyadic(total.numerator, q, src)
                    if pieces is None or len(pieces) > n:
                        continue
                    terms = pieces + [0.0] * (n - len(pieces))
                    rows.append((src, tgt, f"{name} n={n}", terms, exp))
                    break
    return rows


CROSS = _cross_rows()


@pytest.mark.parametrize("src,tgt,name,terms,expected", CROSS,
                         ids=[f"{s}->{t}-{n}" for s, t, n, _, _ in CROSS])
def test_cross_dtype_one_rounding(src, tgt, name, terms, expected):
    a = array(terms, src)
    exp = scalar(expected, tgt)
    assert_same(exact_mean_oracle(terms, tgt), exp, "table entry disagrees with oracle")
    assert_same(mean(a, dtype=tgt), exp)
    assert_same(mean(a[::-1], dtype=tgt), exp)
    out = np.full((), 5, dtype=tgt)
    assert mean(a, out=out) is out
    assert_same(out, np.asarray(exp))
    assert_same(quiet(xs.exact_mean_ufunc, a, signature=(src, tgt)), exp)


def test_cross_table_is_not_empty():
    pairs = {(s, t) for s, t, _, _, _ in CROSS}
    # every pair except float16 -> float64 (float16 cannot hold the pieces
    # of a float64 tie)
    assert len(pairs) == 15 and (FLOAT16, FLOAT64) not in pairs
    assert len(CROSS) > 100


# ---------------------------------------------------------------------------
# Complex: each component's exact sum divided by the count, rounded once


def c(re, im):
    return complex(re, im)


COMPLEX_CASES = [
    (COMPLEX128, None, [c(M64, -M64), c(M64, -M64)], c(M64, -M64)),
    (COMPLEX128, None, [c(1, 1e100), c(1e100, 1), c(-1e100, -1e100), c(1, 1)], c(0.5, 0.5)),
    (COMPLEX128, None, [c(-0.0, -0.0)] * 3, c(-0.0, -0.0)),
    (COMPLEX128, None, [c(-0.0, 0.0), c(-0.0, -0.0)], c(-0.0, 0.0)),
    (COMPLEX128, None, [c(1.0, -0.0), c(-1.0, -0.0)], c(0.0, -0.0)),
    (COMPLEX128, None, [c(inf, 1), c(-inf, 2)], c(nan, 1.5)),
    (COMPLEX128, None, [c(1, nan), c(2, 1)], c(1.5, nan)),
    (COMPLEX128, None, [c(1.0, 1.0 + 2.0**-52)], c(1.0, 1.0 + 2.0**-52)),
    (COMPLEX128, None, [c(1.0, 1.0), c(1.0 + 2.0**-52, -1.0 - 2.0**-52)], c(1.0, -(2.0**-53))),
    (COMPLEX128, None, [c(2.0**-1074, -(2.0**-1074)), c(0.0, 0.0)], c(0.0, -0.0)),
    (COMPLEX64, None, [c(3.4028234663852886e38, 1), c(3.4028234663852886e38, 2)],
     c(3.4028234663852886e38, 1.5)),
    (COMPLEX64, None, [c(1.0, 1.0), c(1.0 + 2.0**-23, 2.0)], c(1.0, 1.5)),
    (COMPLEX128, COMPLEX64, [c(3.0, -3.0), c(3 * 2.0**-24, -3 * 2.0**-24), c(3 * 2.0**-80, 0.0)],
     c(1 + 2.0**-23, -1.0)),
    (COMPLEX64, COMPLEX128, [c(1, 2.0**-149), c(2.0**-24, 0.0)], c(0.5 + 2.0**-25, 2.0**-150)),
]


@pytest.mark.parametrize("dt,target,values,expected", COMPLEX_CASES,
                         ids=[f"{d}->{_id(t)}-{i}" for i, (d, t, _, _) in enumerate(COMPLEX_CASES)])
def test_complex_means(dt, target, values, expected):
    a = array(values, dt)
    rdt = dt if target is None else target
    exp = scalar(expected, rdt)
    assert_same(exact_mean_oracle(values, rdt), exp, "table entry disagrees with oracle")
    kw = {} if target is None else {"dtype": target}
    assert_same(mean(a, **kw), exp)
    assert_same(mean(a[::-1], **kw), exp)
    out = np.zeros((), rdt)
    assert mean(a, out=out) is out
    assert_same(out, np.asarray(exp))


def test_complex_nanmean_drops_whole_elements():
    # np.nanmean semantics: an element with a NaN in either component is
    # neither summed (in any component) nor counted.
    a = np.array([c(nan, 1.0), c(1.0, 1.0)])
    assert_same(nanmean(a), np.complex128(c(1.0, 1.0)))
    a = np.array([c(1.0, nan), c(3.0, 1.0), c(nan, nan), c(5.0, -0.0)])
    assert_same(nanmean(a), np.complex128(c(4.0, 0.5)))
    a = np.array([c(nan, nan), c(-0.0, -0.0)], dtype=np.complex64)
    assert_same(nanmean(a), np.complex64(c(-0.0, -0.0)))
    assert_same(exact_mean_oracle([c(1.0, nan), c(3.0, 1.0), c(nan, nan), c(5.0, -0.0)],
                                  COMPLEX128, skip_nan=True), np.complex128(c(4.0, 0.5)))


# ---------------------------------------------------------------------------
# Empty rows: NaN and a RuntimeWarning


def test_empty_mean_warns_and_is_nan():
    with pytest.warns(RuntimeWarning):
        r = xs.exact_mean(np.array([], dtype=np.float64))
    assert_same(r, np.float64(nan))
    with pytest.warns(RuntimeWarning):
        r = xs.exact_mean(np.zeros(0, dtype=np.float32))
    assert_same(r, np.float32(nan))
    with pytest.warns(RuntimeWarning):
        r = xs.exact_mean(np.zeros(0, dtype=np.int32))
    assert_same(r, np.float64(nan))
    with pytest.warns(RuntimeWarning):
        r = xs.exact_mean(np.zeros(0, dtype=BFLOAT16))
    assert_same(r, scalar(nan, BFLOAT16))
    with pytest.warns(RuntimeWarning):
        r = xs.exact_mean(np.zeros(0, dtype=np.complex128))
    assert_same(r, np.complex128(c(nan, nan)))


def test_empty_axes_warn_and_are_nan():
    with pytest.warns(RuntimeWarning):
        r = xs.exact_mean(np.zeros((0, 3)), axis=0)
    assert_same(r, np.full(3, nan))
    with pytest.warns(RuntimeWarning):
        r = xs.exact_mean(np.zeros((3, 0), dtype=np.float16), axis=1)
    assert_same(r, np.full(3, nan, dtype=np.float16))
    with pytest.warns(RuntimeWarning):
        r = xs.exact_mean(np.zeros((0, 3)))
    assert_same(r, np.float64(nan))
    # an empty axis that is not reduced: nothing to average, no NaN
    assert_same(mean(np.zeros((0, 3)), axis=1), np.zeros(0))


def test_where_all_false_warns():
    a = np.array([[1.0, 2.0], [3.0, -0.0]])
    with pytest.warns(RuntimeWarning):
        r = xs.exact_mean(a, axis=1, where=np.array([[False, False], [True, False]]))
    assert_same(r, np.array([nan, 3.0]))
    with pytest.warns(RuntimeWarning):
        r = xs.exact_mean(a, where=False)
    assert_same(r, np.float64(nan))


def test_all_nan_nanmean_warns():
    with pytest.warns(RuntimeWarning):
        r = xs.exact_nanmean(np.array([nan, nan]))
    assert_same(r, np.float64(nan))
    with pytest.warns(RuntimeWarning):
        r = xs.exact_nanmean(np.array([[nan, 1.0], [nan, nan]]), axis=0)
    assert_same(r, np.array([nan, 1.0]))
    with pytest.warns(RuntimeWarning):
        r = xs.exact_nanmean(np.array([], dtype=np.float32))
    assert_same(r, np.float32(nan))


# ---------------------------------------------------------------------------
# nanmean: NaNs are neither terms nor counted


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("terms,expected", [
    ([nan, 1.0, 2.0], 1.5),
    ([1.0, nan, 2.0, nan, 4.0], None),
    ([nan, -0.0], -0.0),
    ([-0.0, nan, -0.0], -0.0),
    ([nan, 0.0, -0.0], 0.0),
    ([nan, inf], inf),
    ([nan, inf, -inf], nan),
    ([nan, -inf, 1.0], -inf),
    ([nan, "M", "M"], "M"),
    ([nan, 1.0, "1+u", nan], "tie"),
    ([nan, "s", 0.0], 0.0),
    ([nan, "-s", 0.0], -0.0),
])
def test_nanmean_table(dtype, terms, expected):
    v = fmt_values(dtype)
    sub = {"M": v["M"], "1+u": 1.0 + v["u"], "s": v["s"], "-s": -v["s"], "tie": 1.0}
    terms = [sub.get(t, t) if isinstance(t, str) else t for t in terms]
    a = array(terms, dtype)
    kept = [t for t in terms if not math.isnan(t)]
    if expected is None:
        exp = round_fraction(sum((Fraction(t) for t in kept), Fraction(0)) / len(kept), dtype)
    else:
        exp = scalar(sub.get(expected, expected) if isinstance(expected, str) else expected, dtype)
    assert_same(exact_mean_oracle(terms, dtype, skip_nan=True), exp, "table vs oracle")
    assert_same(nanmean(a), exp)
    assert_same(nanmean(a[::-1]), exp)
    two_d = np.stack([a, a], axis=1)
    assert_same(nanmean(two_d, axis=0), np.array([exp, exp], dtype=dtype))


def test_nanmean_float64_cases():
    a = np.array([1e308, nan, 1e308, nan])
    assert_same(nanmean(a), np.float64(1e308))
    a = np.array([3.0, nan, 3 * 2.0**-24, 3 * 2.0**-80, nan])
    assert_same(nanmean(a, dtype=np.float32), np.float32(1 + 2.0**-23))
    b = np.array([[nan, 1.0, 2.0], [nan, nan, -0.0]])
    assert_same(nanmean(b, axis=1), np.array([1.5, -0.0]))
    assert_same(nanmean(b, axis=0), np.array([nan, 1.0, 1.0]))
    assert_same(nanmean(b), np.float64(1.0))
    assert_same(nanmean(b, where=np.array([False, True, False])), np.float64(1.0))
    ints = np.array([1, 2, 4])
    assert_same(nanmean(ints), round_fraction(Fraction(7, 3), FLOAT64))


# ---------------------------------------------------------------------------
# axis / keepdims / where / out hand cases


def test_axis_keepdims_where_hand():
    a = np.array([[1e300, 1.0, -1e300], [2.0**-1074, -0.0, 2.0**-1074]])
    assert_same(mean(a, axis=1), np.array([round_fraction(Fraction(1, 3), FLOAT64),
                                            round_fraction(Fraction(2, 3) * Fraction(2.0**-1074), FLOAT64)]))
    assert_same(mean(a, axis=1, keepdims=True), oracle_mean_reduce(a, axis=1, keepdims=True))
    assert_same(mean(a, axis=0), np.array([5e299, 0.5, -5e299]))
    assert_same(mean(a, keepdims=True), oracle_mean_reduce(a, keepdims=True))
    assert mean(a, keepdims=True).shape == (1, 1)
    w = np.array([True, True, False])
    # row 0: (1e300 + 1) / 2 rounds to 1e300 / 2; row 1: 2^-1075 is a tie -> +0.0
    assert_same(mean(a, axis=1, where=w), np.array([1e300 / 2, 0.0]))
    assert_same(mean(a, axis=(0, 1)), oracle_mean_reduce(a))
    assert_same(mean(a, axis=(-1, 0)), oracle_mean_reduce(a))
    assert_same(mean(a, axis=()), a)
    # where: masked-out elements are neither terms nor counted
    b = np.array([-0.0, 5.0, -0.0])
    assert_same(mean(b, where=[True, False, True]), np.float64(-0.0))
    assert_same(mean(np.array([1.0, 2.0, 100.0]), where=[True, True, False]), np.float64(1.5))
    assert_same(mean(np.array([M64, M64, -M64]), where=[True, True, False]), np.float64(M64))
    assert_same(mean(np.array([nan, 2.0, 4.0]), where=[False, True, True]), np.float64(3.0))


@pytest.mark.parametrize("axis", [0, 1, 2, -1, (0, 2), (2, 0), (0, 1, 2), None, ()])
def test_axis_variants_3d(axis):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 4, 5)) * np.ldexp(1.0, rng.integers(-40, 40, (3, 4, 5)))
    a[0, 0, :] = [1e300, -1e300, 1.0, 2.0**-1074, -0.0]
    for keepdims in (False, True):
        assert_same(mean(a, axis=axis, keepdims=keepdims),
                    oracle_mean_reduce(a, axis=axis, keepdims=keepdims))
    # non-contiguous view whose axes cannot be merged
    v = a.transpose(2, 0, 1)[::-1, :, ::2]
    assert_same(mean(v, axis=axis), oracle_mean_reduce(v, axis=axis))


# ---------------------------------------------------------------------------
# Errors


def _bad_arrays():
    return [
        ("object", np.array([1.0, 2.0], dtype=object)),
        ("str", np.array(["a", "bc"])),
        ("datetime64", np.array(["2020-01-01", "2021-01-01"], dtype="datetime64[D]")),
        ("timedelta64", np.array([1, 2], dtype="timedelta64[s]")),
        ("structured", np.zeros(3, dtype=[("a", "f8"), ("b", "i4")])),
    ]


@pytest.mark.parametrize("func", ["exact_mean", "exact_nanmean"])
@pytest.mark.parametrize("kind,arr", _bad_arrays(), ids=[k for k, _ in _bad_arrays()])
def test_unsupported_input_dtype(func, kind, arr):
    f = getattr(xs, func)
    with pytest.raises(TypeError) as info:
        f(arr)
    msg = str(info.value).lower()
    assert any(n in msg for n in dtype_names(arr.dtype)), str(info.value)
    with pytest.raises(TypeError):
        f(arr, axis=0)


@pytest.mark.parametrize("bad", [np.int32, np.int64, np.bool_, object])
@pytest.mark.parametrize("func", ["exact_mean", "exact_nanmean"])
def test_unsupported_result_dtype(func, bad):
    with pytest.raises(TypeError):
        getattr(xs, func)(np.array([1.0, 2.0]), dtype=bad)


@pytest.mark.parametrize("shape,axis", [((3,), 1), ((3,), -2), ((3, 4), 2), ((3, 4), (0, 0)),
                                        ((3, 4), (1, -1)), ((), 0)])
@pytest.mark.parametrize("func", ["exact_mean", "exact_nanmean"])
def test_bad_axis(func, shape, axis):
    with pytest.raises(AxisError):
        getattr(xs, func)(np.ones(shape), axis=axis)


@pytest.mark.parametrize("out_shape", [(3,), (5,), (2, 4), (4, 1), ()])
@pytest.mark.parametrize("out_dtype", [np.float64, np.float32])
@pytest.mark.parametrize("func", ["exact_mean", "exact_nanmean"])
def test_out_wrong_shape(func, out_shape, out_dtype):
    f = getattr(xs, func)
    a = np.arange(12.0).reshape(3, 4)            # axis=0 result has shape (4,)
    check_out_untouched(lambda o: f(a, axis=0, out=o), np.full(out_shape, 1.25, dtype=out_dtype))
    check_out_untouched(lambda o: f(a, axis=1, keepdims=True, out=o), np.full((3,), 1.25))
    check_out_untouched(lambda o: f(a, out=o), np.full((2,), 1.25))


# ---------------------------------------------------------------------------
# The raw gufunc


def test_exact_mean_ufunc_is_a_picklable_gufunc():
    u = xs.exact_mean_ufunc
    assert isinstance(u, np.ufunc)
    assert u.signature.replace(" ", "") == "(n)->()"
    for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(u, protocol=proto)) is u
    assert pickle.loads(pickle.dumps(xs.exact_mean)) is xs.exact_mean
    assert pickle.loads(pickle.dumps(xs.exact_nanmean)) is xs.exact_nanmean
    assert xs.exact_mean.__name__ == "exact_mean"
    assert xs.exact_nanmean.__name__ == "exact_nanmean"


def test_exact_mean_ufunc_loops():
    a = np.array([[3.0, 3 * 2.0**-24, 3 * 2.0**-80], [1e308, 1e308, 1e308]])
    assert_same(xs.exact_mean_ufunc(a), np.array([1 + 2.0**-24 + 0.0, 1e308]))
    assert_same(quiet(xs.exact_mean_ufunc, a, signature=(np.float64, np.float32)),
                np.array([1 + 2.0**-23, np.inf], dtype=np.float32))
    assert_same(xs.exact_mean_ufunc(a.T, axis=0), np.array([1 + 2.0**-24, 1e308]))
    out = np.zeros(2, dtype=np.float32)
    # raw ufunc: the loop is chosen by dtype= (out alone would select the
    # float64 loop and cast, as for any NumPy ufunc)
    assert quiet(xs.exact_mean_ufunc, a, out=out, dtype=np.float32) is out
    assert_same(out, np.array([1 + 2.0**-23, np.inf], dtype=np.float32))
    out = np.zeros(2)
    assert xs.exact_mean_ufunc(a, out=out) is out
    assert_same(out, np.array([1 + 2.0**-24, 1e308]))
    ints = np.array([[2**63 - 1] * 3, [1, 2, 2]], dtype=np.int64)
    assert_same(xs.exact_mean_ufunc(ints), np.array([2.0**63, round_fraction(Fraction(5, 3), FLOAT64)]))
    b = array([1.0, 1.0 + 2.0**-7], BFLOAT16)       # mean 1 + 2^-8: a bfloat16 tie
    assert_same(xs.exact_mean_ufunc(b), scalar(1.0, BFLOAT16))
    assert_same(xs.exact_mean_ufunc(b, signature=(BFLOAT16, np.float64)), np.float64(1 + 2.0**-8))
    assert_same(xs.exact_mean_ufunc(b, signature=(BFLOAT16, np.float32)), np.float32(1 + 2.0**-8))


# ---------------------------------------------------------------------------
# Counts beyond 2^32 through zero strides (never materialised)


FLOAT_TARGETS = FLOAT_DTYPES


def test_zero_stride_mean_is_the_value():
    for x in (0.1, -3.5, M64, -M64, 2.0**-1074, 1e-300, 123456789.123):
        a = np.broadcast_to(np.float64(x), (2**32 + 1,))
        assert a.strides == (0,)
        assert_same(xs.exact_mean(a), np.float64(x))
    assert_same(xs.exact_mean(np.broadcast_to(np.float64(-0.0), (2**32 + 1,))), np.float64(-0.0))
    assert_same(xs.exact_mean(np.broadcast_to(np.float64(0.0), (2**32 + 1,))), np.float64(0.0))
    assert_same(mean(np.broadcast_to(np.float64(inf), (2**32 + 1,))), np.float64(inf))
    assert_same(mean(np.broadcast_to(np.float64(nan), (2**32 + 1,))), np.float64(nan))
    x32 = np.float32(0.1)
    assert_same(xs.exact_mean(np.broadcast_to(x32, (2**32 + 1,))), x32)
    assert_same(xs.exact_mean(np.broadcast_to(np.float16(65504.0), (2**40,))), np.float16(65504.0))


def _run_capped(code):
    """Run code in a child process whose address space is capped at 3 GiB:
    an implementation that materialises a huge zero-stride view fails
    cleanly there (MemoryError) instead of exhausting the machine."""
    skip_under_asan()
    code = ("import resource\n"
            "resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))\n" + code)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    # -P: never import the uncompiled source folder from the working directory.
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.split("\n")


def test_zero_stride_nanmean_beyond_2_32():
    lines = _run_capped(textwrap.dedent("""
        import warnings
        import numpy as np
        import xsumufunc as xs
        n = 2**32 + 1
        for x in (0.1, -0.0, 1.7976931348623157e308, 5e-324):
            print(float(xs.exact_nanmean(np.broadcast_to(np.float64(x), (n,)))).hex())
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = xs.exact_nanmean(np.broadcast_to(np.float64(np.nan), (n,)))
        print(float(r).hex(), any(issubclass(i.category, RuntimeWarning) for i in w))
    """))
    expected = [float(x).hex() for x in (0.1, -0.0, M64, 5e-324)] + ["nan True"]
    assert lines[:5] == expected


@settings(max_examples=30)
@given(
    value=st.floats(allow_nan=False, allow_infinity=False, width=64),
    count=st.integers(min_value=2**32 + 1, max_value=2**59),
    target=st.sampled_from(FLOAT_TARGETS),
)
def test_zero_stride_huge_counts(value, count, target):
    x = np.broadcast_to(np.float64(value), (count,))
    expected = round_fraction(Fraction(value), target, zero_sign=-1 if np.signbit(value) else 1)
    assert_same(mean(x, dtype=target), expected)


@settings(max_examples=20)
@given(
    x=st.floats(allow_nan=False, allow_infinity=False, width=64),
    y=st.floats(allow_nan=False, allow_infinity=False, width=64),
    rows=st.integers(min_value=2**32 + 1, max_value=2**50),
)
def test_zero_stride_two_columns(x, y, rows):
    a = np.broadcast_to(np.array([x, y]), (rows, 2))
    assert a.strides == (0, 8)
    assert_same(mean(a, axis=0), np.array([x, y]))
    assert_same(mean(a, axis=0, dtype=np.float32),
                np.array([round_fraction(Fraction(x), FLOAT32, -1 if np.signbit(x) else 1),
                          round_fraction(Fraction(y), FLOAT32, -1 if np.signbit(y) else 1)]))
    b = np.broadcast_to(np.array([[x], [y]]), (2, rows))
    assert_same(mean(b, axis=1), np.array([x, y]))
    assert_same(mean(b, axis=-1, keepdims=True), np.array([[x], [y]]))


def test_zero_stride_2d_axis_none_more_than_2_32_elements():
    """(2^31 + 1) x 2 zero-stride array averaged over all axes."""
    rows = 2**31 + 1
    row = [0.1, -0.3]
    lines = _run_capped(textwrap.dedent(f"""
        import numpy as np
        import xsumufunc as xs
        a = np.broadcast_to(np.array({row!r}), ({rows}, 2))
        assert a.size > 2**32 and a.strides == (0, 8)
        r = xs.exact_mean(a)
        print(r.dtype, float(r).hex())
        r1 = xs.exact_mean(a, axis=(1, 0))
        print(float(r1).hex())
    """))
    expected = round_fraction((Fraction(0.1) + Fraction(-0.3)) / 2, FLOAT64)
    assert lines[0] == f"float64 {float(expected).hex()}"
    assert lines[1] == float(expected).hex()


# ---------------------------------------------------------------------------
# Hypothesis: agreement with the Fraction oracle


@st.composite
def mean_tie_lists(draw, in_dtype, target):
    """Terms whose exact mean is a tie (or a tie +- a tiny amount, or a
    representable value +- tiny) in ``target``: the exact sum n*Z is split
    into input-representable pieces, padded to the count n with zeros or
    cancelling pairs."""
    fi, ft = fmt_of(in_dtype), fmt_of(target)
    k = draw(st.integers(1, 60))
    qlo = max(ft.qmin, fi.qmin + 2 + k)
    qhi = min(ft.qmax, fi.emax - ft.p - 8)
    if qlo > qhi:
        return draw(value_lists(in_dtype, target))
    Q = draw(st.one_of(st.integers(qlo, qhi), st.sampled_from([qlo, qhi])))
    if Q == ft.qmin:
        m = draw(st.integers(0, (1 << ft.p) - 1))
    else:
        m = draw(mantissas(ft.p, normal=True))
    # Z = m * 2^Q + a * 2^(Q-1) + b * 2^(Q-1-k), as an integer times 2^(Q-1-k)
    half = draw(st.sampled_from([1, -1, 1, -1, 0]))
    tiny = draw(st.sampled_from([0, 0, 1, -1]))
    zm = (m << (k + 1)) + (half << k) + tiny
    zq = Q - 1 - k
    if zm == 0:
        zm = 1
    first = draw(st.integers(1, 40))
    for n in range(first, first + 40):
        pieces = split_dyadic(zm * n, zq, in_dtype)
        if pieces is None:
            return draw(value_lists(in_dtype, target))
        if len(pieces) <= n:
            break
    else:
        return draw(value_lists(in_dtype, target))
    pad = n - len(pieces)
    extra = []
    while pad >= 2 and draw(st.booleans()):
        b = draw(representable(in_dtype))
        extra += [b, -b]
        pad -= 2
    extra += [draw(st.sampled_from([0.0, -0.0])) for _ in range(pad)]
    terms = pieces + extra
    if draw(st.booleans()):
        terms = [-t for t in terms]
    return draw(st.permutations(terms))


def mean_lists(in_dtype, target):
    in_dtype = np.dtype(in_dtype)
    target = None if target is None else np.dtype(target)
    if in_dtype in FORMATS:
        t = in_dtype if target is None else target
        return st.one_of(value_lists(in_dtype, target), mean_tie_lists(in_dtype, t))
    return value_lists(in_dtype, target)


def targets_for(dtype):
    dtype = np.dtype(dtype)
    if dtype in COMPONENT_DTYPE:
        return [None, COMPLEX64, COMPLEX128]
    return [None] + FLOAT_DTYPES


INPUTS = FLOAT_DTYPES + [COMPLEX64, COMPLEX128] + INT_DTYPES + [BOOL_DTYPE]


@pytest.mark.parametrize("in_dtype", INPUTS, ids=_id)
@given(data=st.data())
def test_mean_matches_oracle(in_dtype, data):
    target = data.draw(st.sampled_from(targets_for(in_dtype)), label="dtype")
    vals = data.draw(mean_lists(in_dtype, target), label="values")
    a = to_array(vals, in_dtype)
    rdt = default_result_dtype(in_dtype) if target is None else np.dtype(target)
    expected = exact_mean_oracle(vals, rdt)
    kw = {} if target is None else {"dtype": target}
    assert_same(mean(a, **kw), expected)
    # out= without dtype=: rounded straight into out.dtype
    out = np.full((), 7, dtype=rdt)
    assert mean(a, out=out) is out
    assert_same(out, np.asarray(expected))
    if in_dtype.kind != "c":
        assert_same(quiet(xs.exact_mean_ufunc, a, signature=(in_dtype, rdt)), expected)


@pytest.mark.parametrize("in_dtype", FLOAT_DTYPES + [COMPLEX64, COMPLEX128, np.dtype(np.int64)], ids=_id)
@given(data=st.data())
def test_nanmean_matches_oracle(in_dtype, data):
    target = data.draw(st.sampled_from(targets_for(in_dtype)), label="dtype")
    vals = list(data.draw(mean_lists(in_dtype, target), label="values"))
    if in_dtype.kind == "f" or in_dtype == BFLOAT16:
        k = data.draw(st.integers(0, 4), label="extra NaNs")
        vals += [nan] * k
        vals = data.draw(st.permutations(vals), label="order")
    elif in_dtype.kind == "c":
        # whole-NaN elements (both components); mixed NaN elements are in
        # test_complex_nanmean_drops_whole_elements
        vals = [complex(nan, nan) if (math.isnan(v.real) or math.isnan(v.imag)) else v for v in vals]
        k = data.draw(st.integers(0, 3), label="extra NaNs")
        vals = data.draw(st.permutations(vals + [complex(nan, nan)] * k), label="order")
    a = to_array(vals, in_dtype)
    rdt = default_result_dtype(in_dtype) if target is None else np.dtype(target)
    expected = exact_mean_oracle(vals, rdt, skip_nan=True)
    kw = {} if target is None else {"dtype": target}
    assert_same(nanmean(a, **kw), expected)


ND_DTYPES = FLOAT_DTYPES + [COMPLEX64, COMPLEX128, np.dtype(np.int64), np.dtype(np.uint8), BOOL_DTYPE]


@pytest.mark.parametrize("in_dtype", ND_DTYPES, ids=_id)
@given(data=st.data())
def test_mean_nd_axis_keepdims_where(in_dtype, data):
    a = data.draw(nd_arrays(in_dtype), label="a")
    axis = data.draw(axis_args(a.ndim), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    where = data.draw(where_masks(a.shape), label="where")
    skip_nan = data.draw(st.booleans(), label="nanmean")
    if skip_nan and in_dtype.kind == "c":
        a = a.copy()
        bad = np.isnan(a.real) | np.isnan(a.imag)
        a[bad] = complex(nan, nan)
    kw = {"axis": axis}
    if keepdims:
        kw["keepdims"] = True
    if where is not True:
        kw["where"] = where
    expected = oracle_mean_reduce(a, axis=axis, keepdims=keepdims, where=where, skip_nan=skip_nan)
    f = nanmean if skip_nan else mean
    got = f(a, **kw)
    assert_same(got, expected)
    if np.ndim(expected) > 0:
        out = np.full(np.shape(expected), 3, dtype=np.asarray(expected).dtype)
        assert f(a, out=out, **kw) is out
        assert_same(out, expected)


@pytest.mark.parametrize("in_dtype", FLOAT_DTYPES + [COMPLEX128, np.dtype(np.int64)], ids=_id)
@given(data=st.data())
def test_mean_layouts_and_order(in_dtype, data):
    vals = data.draw(mean_lists(in_dtype, None), label="values")
    a = to_array(vals, in_dtype)
    expected = exact_mean_oracle(vals, default_result_dtype(in_dtype))
    perm = data.draw(st.permutations(range(len(vals))), label="perm")
    assert_same(mean(a[list(perm)]), expected, "permuted")
    assert_same(mean(a[::-1]), expected, "negative stride")
    # non-contiguous: every other element of a doubled buffer
    buf = np.empty(2 * len(vals), dtype=in_dtype)
    buf[::2] = a
    buf[1::2] = to_array(vals[::-1], in_dtype) if vals else buf[1::2]
    assert_same(mean(buf[::2]), expected, "stride 2")
    assert_same(mean(buf[-2::-2]), expected, "stride -2 values")
    if in_dtype != BFLOAT16:
        sw = a.astype(a.dtype.newbyteorder("S"))
        assert not sw.dtype.isnative or sw.dtype.itemsize == 1
        assert_same(mean(sw), expected, "byte-swapped")
    # unaligned copy
    raw = np.zeros(a.nbytes + 1, dtype=np.uint8)
    un = raw[1:].view(a.dtype)
    un[...] = a
    assert_same(mean(un), expected, "unaligned")


# ---------------------------------------------------------------------------
# Long rows: across the kernels' switch (about 160 terms) and beyond


def _wide_values(rng, n, dtype):
    dtype = np.dtype(dtype)
    lim = {FLOAT64: 1e300, FLOAT32: 1e37, FLOAT16: 6e4, BFLOAT16: 1e37}[dtype]
    ex = {FLOAT64: 600, FLOAT32: 60, FLOAT16: 8, BFLOAT16: 60}[dtype]
    x = rng.standard_normal(n) * np.ldexp(1.0, rng.integers(-ex, ex, n))
    x = np.clip(x, -lim, lim)
    x = x.astype(np.float32).astype(dtype) if dtype == BFLOAT16 else x.astype(dtype)
    half = n // 2
    x[: half // 2] = -x[half // 2: half // 2 * 2]
    rng.shuffle(x)
    return x


LENGTHS = [159, 160, 161, 200, 1000, 2047, 2048, 4097, 5000]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("n", LENGTHS)
def test_long_rows(dtype, n):
    rng = np.random.default_rng(n + 17)
    x = _wide_values(rng, n, dtype)
    vals = x.astype(np.float32).tolist() if dtype == BFLOAT16 else x.astype(np.float64).tolist()
    for target in FLOAT_DTYPES:
        assert_same(mean(x, dtype=target), exact_mean_oracle(vals, target), f"n={n} ->{target}")
    y = x.copy()
    y[::7] = nan
    yv = y.astype(np.float32).tolist() if dtype == BFLOAT16 else y.astype(np.float64).tolist()
    assert_same(nanmean(y), exact_mean_oracle(yv, dtype, skip_nan=True), "nanmean")
    assert_same(mean(x[::-1]), exact_mean_oracle(vals, dtype), "reversed")


@pytest.mark.parametrize("n", [159, 161, 3000])
def test_long_rows_ints_and_complex(n):
    rng = np.random.default_rng(n)
    i = rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64, endpoint=True)
    assert_same(mean(i), exact_mean_oracle(i.tolist(), FLOAT64))
    cx = _wide_values(rng, n, FLOAT64) + 1j * _wide_values(rng, n, FLOAT64)
    assert_same(mean(cx), exact_mean_oracle(cx.tolist(), COMPLEX128))
    assert_same(mean(cx, dtype=np.complex64), exact_mean_oracle(cx.tolist(), COMPLEX64))


@settings(max_examples=10)
@given(data=st.data())
def test_long_adversarial_rows(data):
    """An adversarial tie list hidden in a long row of cancelling pairs."""
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES), label="dtype")
    target = data.draw(st.sampled_from(FLOAT_DTYPES), label="target")
    core = data.draw(mean_tie_lists(dtype, target), label="core")
    n = data.draw(st.integers(200, 5000), label="n")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    rng = np.random.default_rng(seed)
    filler = _wide_values(rng, max(0, (n - len(core)) // 2), dtype)
    fv = filler.astype(np.float32).tolist() if dtype == BFLOAT16 else filler.astype(np.float64).tolist()
    vals = list(core) + fv + [-v for v in fv]
    order = rng.permutation(len(vals))
    vals = [vals[i] for i in order]
    a = to_array(vals, dtype)
    assert_same(mean(a, dtype=target), exact_mean_oracle(vals, target))
