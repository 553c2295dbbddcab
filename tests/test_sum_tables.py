"""Hand-built tables of hard cases.  Every expected value is known exactly
(written down by hand) and is also checked against the Fraction oracle, so
a wrong table entry fails loudly instead of silently weakening the test."""

import math
from fractions import Fraction

import numpy as np
import pytest
from helpers import array, assert_same, scalar
from oracle import (
    BFLOAT16,
    COMPLEX64,
    COMPLEX128,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    FLOAT_DTYPES,
    FORMATS,
    exact_sum_oracle,
    oracle_accumulate,
    oracle_reduce,
    oracle_reduceat,
)
from strategies import split_dyadic

import xsumufunc as xs

inf, nan = math.inf, math.nan


def two(e):
    return math.ldexp(1.0, e)


def fmt_values(dtype):
    f = FORMATS[dtype]
    return dict(
        p=f.p,
        M=float(f.max_finite),  # largest finite
        h=two(f.qmax - 1),  # half an ulp of M
        ulpM=two(f.qmax),
        s=two(f.qmin),  # smallest subnormal
        N=two(f.emin),  # smallest normal
        u=two(1 - f.p),  # ulp of 1
        half=two(-f.p),  # half an ulp of 1
    )


def _id(x):
    return "default" if x is None else str(np.dtype(x))


def float_table(dtype):
    """(name, terms, expected) with all terms and the expected value exactly
    representable in ``dtype``."""
    v = fmt_values(dtype)
    p, M, h, s, N, u, half = v["p"], v["M"], v["h"], v["s"], v["N"], v["u"], v["half"]
    tiny = s  # the smallest positive value of the format
    big = two(FORMATS[dtype].emax)
    ones = [-two(k) for k in range(p - 1, -1, -1)]  # sums to -(2**p - 1)
    top_ones = [-two(FORMATS[dtype].emax - k) for k in range(p)]  # sums to -M
    t = [
        ("intermediate overflow", [M, M, -M], M),
        ("intermediate overflow neg", [-M, -M, M], -M),
        ("overflow cancels to zero", [M, M, -M, -M], 0.0),
        ("overflow then small", [M, M, M, -M, -M, -M, 1.0], 1.0),
        ("big cancel keeps 1", [big, 1.0, -big], 1.0),
        ("big cancel keeps tiny", [big, tiny, -big], tiny),
        ("tie at 1 -> even", [1.0, half], 1.0),
        ("tie at 1 with tiny up", [1.0, half, tiny], 1.0 + u),
        ("tie at 1 with tiny up, tiny first", [tiny, half, 1.0], 1.0 + u),
        ("tie at 1 with tiny down", [1.0, half, -tiny], 1.0),
        ("tie at odd -> up", [1.0 + u, half], 1.0 + 2 * u),
        ("tie at odd with tiny down", [1.0 + u, half, -tiny], 1.0 + u),
        ("negative tie at 1", [-1.0, -half], -1.0),
        ("negative tie at odd", [-1.0 - u, -half], -1.0 - 2 * u),
        ("two halves", [half, 1.0, half], 1.0 + u),
        ("below 1 tie -> even (1.0)", [1.0, -half / 2], 1.0),
        ("below 1 tie rounds", [1.0, -half / 2, -half / 4], 1.0 - half),
        ("all-ones negative mantissa", ones, -(two(p) - 1)),
        ("all-ones negative + tie -> up", ones + [-0.5], -two(p)),
        ("all-ones negative + near tie", ones + [-0.5, tiny], -(two(p) - 1)),
        ("all-ones hidden by cancel", [big] + ones + [-big], -(two(p) - 1)),
        ("-max from powers of two", top_ones, -M),
        ("-max + half ulp -> -inf", top_ones + [-h], -inf),
        ("-max + just under half ulp", top_ones + [-h, tiny], -M),
        ("max + half ulp -> inf", [M, h], inf),
        ("max + half ulp - tiny", [M, h, -tiny], M),
        ("max + quarter ulp", [M, h / 2], M),
        ("max - half ulp -> even below", [M, -h], M - 2 * h),
        ("max + max - max + half ulp", [M, M, -M, h], inf),
        ("-max - half ulp", [-M, -h], -inf),
        ("max + max", [M, M], inf),
        ("subnormal doubling", [s, s], 2 * s),
        ("subnormal cancel", [s, -s], 0.0),
        ("subnormal cancel neg first", [-s, s], 0.0),
        ("largest subnormal", [N, -s], N - s),
        ("back to min normal", [N - s, s], N),
        ("five subnormals", [s] * 5, 5 * s),
        ("negative subnormals", [-s, -s, -s], -3 * s),
        ("subnormal vs huge", [M, s, -M], s),
        ("all -0.0 (1)", [-0.0], -0.0),
        ("all -0.0 (7)", [-0.0] * 7, -0.0),
        ("-0.0 and +0.0", [-0.0, 0.0], 0.0),
        ("+0.0 and -0.0", [0.0, -0.0], 0.0),
        ("empty", [], 0.0),
        ("-0.0 with cancellation", [-0.0, 1.0, -1.0], 0.0),
        ("cancellation -> +0.0", [1.0, -1.0], 0.0),
        ("neg first cancellation -> +0.0", [-1.0, 1.0], 0.0),
        ("max cancellation -> +0.0", [-M, M], 0.0),
        ("+inf -inf", [inf, -inf], nan),
        ("+inf", [inf, 1.0], inf),
        ("-inf", [-1.0, -inf], -inf),
        ("-inf beats overflowing finite terms", [-inf, M, M], -inf),
        ("+inf beats overflowing finite terms", [-M, inf, -M], inf),
        ("inf inf", [inf, inf, -0.0], inf),
        ("-inf -inf -0.0", [-inf, -inf, -0.0], -inf),
        ("nan", [nan], nan),
        ("nan among finite", [1.0, nan, -1.0], nan),
        ("nan with inf", [inf, nan], nan),
        ("inf -inf nan", [nan, -inf, inf], nan),
        ("-inf 1 inf", [-inf, 1.0, inf], nan),
    ]
    return t


FLOAT_TABLE = [(dt, name, terms, exp) for dt in FLOAT_DTYPES for (name, terms, exp) in float_table(dt)]


@pytest.mark.parametrize("dtype,name,terms,expected", FLOAT_TABLE,
                         ids=[f"{dt}-{name}" for dt, name, _, _ in FLOAT_TABLE])
def test_float_table(dtype, name, terms, expected):
    a = array(terms, dtype)
    exp = scalar(expected, dtype)
    assert_same(exact_sum_oracle(terms, dtype), exp, "table entry disagrees with oracle")
    assert_same(xs.exact_sum(a), exp, name)
    assert_same(xs.exact_sum(a[::-1]), exp, name + " (reversed)")
    assert_same(xs.exact_add.reduce(a), exp, name + " (exact_add.reduce)")
    assert_same(xs.exact_sum_ufunc(a), exp, name + " (gufunc)")
    # the same lane inside a 2-D array, reduced along either axis
    two_d = np.stack([a, a])
    exp2 = np.array([exp, exp], dtype=dtype)
    assert_same(xs.exact_sum(two_d, axis=1), exp2, name + " (axis=1)")
    assert_same(xs.exact_sum(two_d.T, axis=0), exp2, name + " (axis=0 of .T)")


def test_float64_classics():
    assert_same(xs.exact_sum(np.array([1e308, 1e308, -1e308])), np.float64(1e308))
    assert_same(xs.exact_sum(np.array([1e100, 1.0, -1e100])), np.float64(1.0))
    assert_same(xs.exact_sum(np.array([0.1] * 10)),
                exact_sum_oracle([0.1] * 10, FLOAT64))
    assert float(exact_sum_oracle([0.1] * 10, FLOAT64)) == 1.0
    assert_same(xs.exact_sum(np.array([1.0, 1e-16, 1e-16])), np.float64(1.0000000000000002))
    assert_same(xs.exact_sum(np.array([2.0**-1074] * 3)), np.float64(3 * 2.0**-1074))
    assert_same(xs.exact_sum(np.array([2.0**1023, 2.0**1023, -(2.0**1023)])), np.float64(2.0**1023))


# ---------------------------------------------------------------------------
# Cross dtype: dtype= and out= (one rounding from the exact input sum)


def cross_cases(target):
    """(name, exact dyadic terms as (m, q), expected) for a target format."""
    f = FORMATS[target]
    pT = f.p
    return [
        ("tie at 1 -> even", [(1, 0), (1, -pT)], 1.0),
        ("tie at 1 + tiny (double rounding trap)", [(1, 0), (1, -pT), (1, -pT - 56)], 1.0 + two(1 - pT)),
        ("tie at 1 + small", [(1, 0), (1, -pT), (1, -pT - 8)], 1.0 + two(1 - pT)),
        ("tie at 1 - tiny", [(1, 0), (1, -pT), (-1, -pT - 56)], 1.0),
        ("tie at odd -> up", [(1, 0), (1, 1 - pT), (1, -pT)], 1.0 + two(2 - pT)),
        ("negative tie at odd", [(-1, 0), (-1, 1 - pT), (-1, -pT)], -1.0 - two(2 - pT)),
        ("max + half ulp -> inf", [((1 << pT) - 1, f.qmax), (1, f.qmax - 1)], inf),
        ("-max - half ulp -> -inf", [(-((1 << pT) - 1), f.qmax), (-1, f.qmax - 1)], -inf),
        ("max + half ulp - tiny", [((1 << pT) - 1, f.qmax), (1, f.qmax - 1), (-1, f.qmax - 40)],
         float(f.max_finite)),
        ("max + quarter ulp", [((1 << pT) - 1, f.qmax), (1, f.qmax - 2)], float(f.max_finite)),
        ("2**(emax+1)", [(1, f.emax), (1, f.emax)], inf),
        ("half min subnormal -> +0", [(1, f.qmin - 1)], 0.0),
        ("-half min subnormal -> -0", [(-1, f.qmin - 1)], -0.0),
        ("quarter min subnormal -> -0", [(-1, f.qmin - 2)], -0.0),
        ("half min subnormal + tiny", [(1, f.qmin - 1), (1, f.qmin - 30)], two(f.qmin)),
        ("1.5 min subnormal -> 2", [(3, f.qmin - 1)], two(f.qmin + 1)),
        ("2.5 min subnormal -> 2", [(5, f.qmin - 1)], two(f.qmin + 1)),
        ("min normal - half subnormal", [(1, f.emin), (-1, f.qmin - 1)], two(f.emin)),
        ("exact", [(1, -1), (1, -2)], 0.75),
        ("cancel to +0", [(1, 0), (-1, 0)], 0.0),
    ]


def _split_terms(terms, in_dtype):
    out = []
    for m, q in terms:
        pieces = split_dyadic(m, q, in_dtype)
        if pieces is None:
            return None
        out += pieces
    return out


CROSS = []
for _in in FLOAT_DTYPES:
    for _t in FLOAT_DTYPES:
        for _name, _terms, _exp in cross_cases(_t):
            _vals = _split_terms(_terms, _in)
            if _vals is not None:
                CROSS.append((_in, _t, _name, _vals, _exp))


def test_cross_table_covers_every_pair():
    pairs = {(i, t) for i, t, *_ in CROSS}
    assert len(pairs) == 16
    for i in FLOAT_DTYPES:
        for t in FLOAT_DTYPES:
            names = {n for ii, tt, n, *_ in CROSS if (ii, tt) == (i, t)}
            if (i, t) == (FLOAT16, FLOAT64):
                # a float64 tie needs 54 significant bits: out of reach of a
                # handful of float16 terms (they span 2**-24 .. 2**15)
                assert {"exact", "cancel to +0"} <= names
            else:
                assert {"tie at odd -> up", "tie at 1 -> even"} <= names, (i, t, names)


@pytest.mark.parametrize("in_dtype,target,name,terms,expected", CROSS,
                         ids=[f"{i}->{t}-{n}" for i, t, n, _, _ in CROSS])
def test_cross_dtype_table(in_dtype, target, name, terms, expected):
    a = array(terms, in_dtype)
    exp = scalar(expected, target)
    # the exact sum of the array's terms, as a sanity check of the table
    assert_same(exact_sum_oracle(terms, target), exp, "table entry disagrees with oracle")
    assert_same(xs.exact_sum(a, dtype=target), exp, "dtype=")
    out = np.full((), 42, dtype=target)
    r = xs.exact_sum(a, out=out)
    assert r is out
    assert_same(out, np.asarray(exp), "out=")
    out2 = np.full((), 42, dtype=target)
    assert xs.exact_sum(a, dtype=target, out=out2) is out2
    assert_same(out2, np.asarray(exp), "dtype= and out=")
    assert_same(xs.exact_sum_ufunc(a, dtype=target), exp, "gufunc dtype=")
    assert_same(xs.exact_add.reduce(a, dtype=target), exp, "exact_add.reduce dtype=")
    assert_same(xs.exact_sum(a[::-1], dtype=target), exp, "reversed, dtype=")


def test_double_rounding_trap_float32():
    r = xs.exact_sum(np.array([1.0, 2.0**-24, 2.0**-80]), dtype=np.float32)
    assert_same(r, np.float32(1.0000001))
    assert_same(r, np.nextafter(np.float32(1.0), np.float32(2.0)))
    r = xs.exact_sum_ufunc(np.array([1.0, 2.0**-24, 2.0**-80]), dtype=np.float32)
    assert_same(r, np.float32(1.0000001))
    out = np.zeros((), np.float32)
    xs.exact_sum(np.array([2.0**-80, 2.0**-24, 1.0]), out=out)
    assert_same(out, np.array(1.0000001, dtype=np.float32))


def test_double_rounding_trap_narrow_targets():
    a = np.array([1.0, 2.0**-11, 2.0**-80])
    assert_same(xs.exact_sum(a, dtype=np.float16), np.nextafter(np.float16(1), np.float16(2)))
    a = np.array([1.0, 2.0**-8, 2.0**-80])
    assert_same(xs.exact_sum(a, dtype=BFLOAT16), scalar(1 + 2.0**-7, BFLOAT16))
    a = np.array([1.0, 2.0**-8, 2.0**-40], dtype=np.float32)
    assert_same(xs.exact_sum(a, dtype=BFLOAT16), scalar(1 + 2.0**-7, BFLOAT16))


# ---------------------------------------------------------------------------
# Integer, bool and complex inputs


INT_CASES = [
    ("int64", [2**63 - 1, 1], float(2**63)),
    ("int64", [2**63 - 1] * 3, float(3 * 2**63)),
    ("int64", [-(2**63), -(2**63)], -float(2**64)),
    ("int64", [2**63 - 1, -(2**63 - 1), 1], 1.0),
    ("int64", [2**63 - 1, 2**63 - 1, -(2**63), -(2**63), 5], 3.0),
    ("int64", [2**53 + 1], float(2**53)),
    ("int64", [2**53 + 1, 2**53 + 1], float(2**54)),
    ("int64", [2**53 + 1, 2], float(2**53 + 4)),
    ("int64", [-(2**53) - 1, -2], -float(2**53 + 4)),
    ("int64", [2**62, 2**62, 2**62, 2**62, -(2**63) + 1], float(2**63)),
    ("int64", [0], 0.0),
    ("int64", [-5, 5], 0.0),
    ("int64", [], 0.0),
    ("uint64", [2**64 - 1], float(2**64)),
    ("uint64", [2**64 - 1, 2**64 - 1], float(2**65)),
    ("uint64", [2**64 - 2**11], float(2**64 - 2**11)),
    ("uint64", [2**64 - 2**11 - 1], float(2**64 - 2**11)),
    ("uint64", [2**64 - 2**10], float(2**64)),
    ("uint64", [2**64 - 2**10 - 1], float(2**64 - 2**11)),
    ("uint64", [2**64 - 1] * 60, float(60 * 2**64)),
    ("int8", [127] * 100, 12700.0),
    ("int8", [-128] * 3, -384.0),
    ("uint8", [255] * 300, 76500.0),
    ("int16", [32767] * 7, 229369.0),
    ("uint16", [65535] * 3, 196605.0),
    ("int32", [2**31 - 1] * 4, float(4 * (2**31 - 1))),
    ("int32", [-(2**31)] * 3, -float(3 * 2**31)),
    ("uint32", [2**32 - 1] * 5, float(5 * (2**32 - 1))),
    ("bool", [True] * 5 + [False], 5.0),
    ("bool", [], 0.0),
    ("bool", [False, False], 0.0),
]


@pytest.mark.parametrize("dt,values,expected", INT_CASES,
                         ids=[f"{d}-{i}" for i, (d, _, _) in enumerate(INT_CASES)])
def test_integer_inputs(dt, values, expected):
    a = np.array(values, dtype=object).astype(dt) if values else np.zeros(0, dt)
    assert [int(v) for v in a.tolist()] == [int(v) for v in values]
    exp = np.float64(expected)
    assert_same(exact_sum_oracle(values, FLOAT64), exp, "table entry disagrees with oracle")
    assert_same(xs.exact_sum(a), exp)
    assert_same(xs.exact_add.reduce(a), exp)
    out = np.zeros((), np.float64)
    assert xs.exact_sum(a, out=out) is out
    assert_same(out, np.asarray(exp))


INT_TARGET_CASES = [
    ("int64", FLOAT16, [65504, 16], inf),
    ("int64", FLOAT16, [65504, 15], 65504.0),
    ("int64", FLOAT16, [2049], 2048.0),
    ("int64", FLOAT16, [2051], 2052.0),
    ("int64", FLOAT32, [2**24 + 1], float(2**24)),
    ("int64", FLOAT32, [2**24 + 1, 2**24 + 1], float(2**25)),
    ("int64", FLOAT32, [2**24 + 1, 2**24 + 1, 1], float(2**25 + 4)),
    ("uint64", FLOAT32, [2**64 - 1, 2**64 - 1], float(2**65)),
    ("int64", BFLOAT16, [257], 256.0),
    ("int64", BFLOAT16, [259], 260.0),
    ("int64", BFLOAT16, [2**62, 2**62 - 1, -(2**62)], float(2**62)),
    ("bool", FLOAT16, [True] * 2049, 2048.0),
    ("int8", FLOAT16, [-128] * 60, -7680.0),
    ("uint8", BFLOAT16, [255] * 3, 764.0),
]


@pytest.mark.parametrize("dt,target,values,expected", INT_TARGET_CASES,
                         ids=[f"{d}->{t}-{i}" for i, (d, t, _, _) in enumerate(INT_TARGET_CASES)])
def test_integer_inputs_with_dtype(dt, target, values, expected):
    a = np.array(values, dtype=object).astype(dt)
    exp = scalar(expected, target)
    assert_same(exact_sum_oracle(values, target), exp, "table entry disagrees with oracle")
    assert_same(xs.exact_sum(a, dtype=target), exp)
    out = np.zeros((), target)
    assert xs.exact_sum(a, out=out) is out
    assert_same(out, np.asarray(exp))


def test_int64_near_limits_2d():
    a = np.array([[2**63 - 1, 2**63 - 1], [-(2**63), 1], [2**62, 2**62]], dtype=np.int64)
    assert_same(xs.exact_sum(a, axis=1),
                np.array([float(2**64), float(-(2**63) + 1), float(2**63)]))
    assert_same(xs.exact_sum(a, axis=0), oracle_reduce(a, axis=0))
    assert_same(xs.exact_sum(a), oracle_reduce(a))


def c(re, im):
    return complex(re, im)


COMPLEX_CASES = [
    (COMPLEX128, None, [c(1, 1e100), c(1e100, 1), c(-1e100, -1e100)], c(1, 1)),
    (COMPLEX64, None, [c(1, 2.0**100), c(2.0**100, 1), c(-(2.0**100), -(2.0**100))], c(1, 1)),
    (COMPLEX128, None, [c(-0.0, -0.0)] * 3, c(-0.0, -0.0)),
    (COMPLEX64, None, [c(-0.0, 0.0), c(-0.0, -0.0)], c(-0.0, 0.0)),
    (COMPLEX128, None, [c(1.0, -0.0), c(-1.0, -0.0)], c(0.0, -0.0)),
    (COMPLEX128, None, [], c(0.0, 0.0)),
    (COMPLEX128, None, [c(inf, 1), c(-inf, 2)], c(nan, 3)),
    (COMPLEX128, None, [c(1, nan), c(2, 1)], c(3, nan)),
    (COMPLEX128, None, [c(1.7976931348623157e308, 1), c(1.7976931348623157e308, 1),
                        c(-1.7976931348623157e308, 1)], c(1.7976931348623157e308, 3)),
    (COMPLEX128, None, [c(1, 1), c(2.0**-53, 2.0**-53), c(2.0**-1074, -(2.0**-1074))],
     c(1 + 2.0**-52, 1)),
    (COMPLEX128, COMPLEX64, [c(1, 1), c(2.0**-24, 2.0**-25), c(2.0**-80, -(2.0**-80))],
     c(1 + 2.0**-23, 1)),
    (COMPLEX128, COMPLEX64, [c(3.4028234663852886e38, -3.4028234663852886e38), c(2.0**103, -(2.0**103))],
     c(inf, -inf)),
    (COMPLEX64, COMPLEX128, [c(1, 2.0**-149), c(2.0**-24, 2.0**-149)], c(1 + 2.0**-24, 2.0**-148)),
]


@pytest.mark.parametrize("dt,target,values,expected", COMPLEX_CASES,
                         ids=[f"{d}->{_id(t)}-{i}" for i, (d, t, _, _) in enumerate(COMPLEX_CASES)])
def test_complex_inputs(dt, target, values, expected):
    a = array(values, dt)
    rdt = dt if target is None else target
    exp = scalar(expected, rdt)
    assert_same(exact_sum_oracle(values, rdt), exp, "table entry disagrees with oracle")
    kw = {} if target is None else {"dtype": target}
    assert_same(xs.exact_sum(a, **kw), exp)
    assert_same(xs.exact_sum(a[::-1], **kw), exp)
    out = np.zeros((), rdt)
    assert xs.exact_sum(a, out=out) is out
    assert_same(out, np.asarray(exp))


# ---------------------------------------------------------------------------
# initial= and where=


M64 = 1.7976931348623157e308


@pytest.mark.parametrize("terms,initial,expected", [
    ([M64, M64], -M64, M64),
    ([], -0.0, -0.0),
    ([-0.0, -0.0], -0.0, -0.0),
    ([-0.0], 0.0, 0.0),
    ([1.0], inf, inf),
    ([-inf], inf, nan),
    ([], 1.5, 1.5),
    ([1.0, 2.0**-53], 2.0**-53, 1.0 + 2.0**-52),
    ([1e100, -1e100], 1.0, 1.0),
    ([M64], M64, inf),
])
def test_initial(terms, initial, expected):
    a = np.array(terms, dtype=np.float64)
    exp = np.float64(expected)
    assert_same(exact_sum_oracle(terms + [initial], FLOAT64), exp)
    assert_same(xs.exact_sum(a, initial=initial), exp)
    assert_same(xs.exact_add.reduce(a, initial=initial), exp)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_initial_narrow_formats(dtype):
    v = fmt_values(dtype)
    a = array([v["M"], v["M"]], dtype)
    assert_same(xs.exact_sum(a, initial=-v["M"]), scalar(v["M"], dtype))
    a = array([1.0], dtype)
    assert_same(xs.exact_sum(a, initial=v["half"]), scalar(1.0, dtype))
    assert_same(xs.exact_sum(array([], dtype), initial=-0.0), scalar(-0.0, dtype))


@pytest.mark.parametrize("terms,where,expected", [
    ([-0.0, 1.0], [True, False], -0.0),
    ([1.0, 2.0], [False, False], 0.0),
    ([-0.0, -0.0], [False, False], 0.0),
    ([M64, M64, -M64], [True, False, True], 0.0),
    ([M64, M64, -M64], [True, True, False], inf),
    ([nan, 1.0], [False, True], 1.0),
    ([inf, -inf, 2.0], [False, True, True], -inf),
    ([1.0, 2.0**-53, 2.0**-53, 5.0], [True, True, True, False], 1.0 + 2.0**-52),
])
def test_where(terms, where, expected):
    a = np.array(terms)
    exp = np.float64(expected)
    selected = [t for t, w in zip(terms, where) if w]
    assert_same(exact_sum_oracle(selected, FLOAT64), exp)
    assert_same(xs.exact_sum(a, where=np.array(where)), exp)
    assert_same(xs.exact_nansum(a, where=np.array(where)), oracle_reduce(a, where=np.array(where), skip_nan=True))


def test_where_and_initial_together():
    a = np.array([-0.0, 5.0])
    assert_same(xs.exact_sum(a, where=[True, False], initial=-0.0), np.float64(-0.0))
    assert_same(xs.exact_sum(a, where=[False, False], initial=-0.0), np.float64(-0.0))
    assert_same(xs.exact_sum(a, where=[False, True], initial=-5.0), np.float64(0.0))


def test_where_complex_masked_elements_are_not_terms():
    a = np.array([complex(-0.0, -0.0), 1j])
    assert_same(xs.exact_sum(a, where=[True, False]), scalar(complex(-0.0, -0.0), COMPLEX128))
    a = np.array([complex(1.0, -0.0), complex(5.0, 5.0)], dtype=np.complex64)
    assert_same(xs.exact_sum(a, where=[True, False]), scalar(complex(1.0, -0.0), COMPLEX64))
    a = np.array([[complex(2.0, -0.0), complex(3.0, 0.0)]])
    assert_same(xs.exact_sum(a, axis=1, where=[True, False]),
                np.array([complex(2.0, -0.0)], dtype=np.complex128))
    # nothing selected: the empty sum, +0.0 in both components
    a = np.array([complex(-0.0, -0.0), complex(-0.0, -0.0)])
    assert_same(xs.exact_sum(a, where=[False, False]), scalar(complex(0.0, 0.0), COMPLEX128))
    assert_same(xs.exact_sum(a.astype(np.complex64), where=[False, False]),
                scalar(complex(0.0, 0.0), COMPLEX64))


def test_where_2d_broadcast():
    a = np.array([[1.0, 2.0**-53, -0.0], [-0.0, -0.0, 2.0**-53]])
    w = np.array([True, False, True])
    assert_same(xs.exact_sum(a, axis=1, where=w), np.array([1.0, 2.0**-53]))
    assert_same(xs.exact_sum(a, axis=0, where=w), np.array([1.0, 0.0, 2.0**-53]))
    assert_same(xs.exact_sum(a, axis=1, where=~w), np.array([2.0**-53, -0.0]))


# ---------------------------------------------------------------------------
# nansum


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("terms,expected", [
    ([nan, nan], 0.0),
    ([nan], 0.0),
    ([], 0.0),
    ([nan, -0.0], -0.0),
    ([-0.0, nan, -0.0], -0.0),
    ([nan, inf], inf),
    ([nan, inf, -inf], nan),
    ([1.0, nan, 2.0], 3.0),
    ([nan, -inf, 1.0], -inf),
    ("tie", None),
])
def test_nansum_table(dtype, terms, expected):
    if terms == "tie":
        v = fmt_values(dtype)
        terms, expected = [1.0, nan, v["half"], v["s"], nan], 1.0 + v["u"]
    a = array(terms, dtype)
    exp = scalar(expected, dtype)
    assert_same(exact_sum_oracle(terms, dtype, skip_nan=True), exp)
    assert_same(xs.exact_nansum(a), exp)
    assert_same(xs.exact_nansum(a[::-1]), exp)


def test_nansum_float64_cancellation_and_dtype():
    a = np.array([1e308, nan, 1e308, -1e308, nan])
    assert_same(xs.exact_nansum(a), np.float64(1e308))
    a = np.array([1.0, nan, 2.0**-24, 2.0**-80])
    assert_same(xs.exact_nansum(a, dtype=np.float32), np.float32(1.0000001))
    b = np.array([[nan, 1.0], [nan, nan]])
    assert_same(xs.exact_nansum(b, axis=0), np.array([0.0, 1.0]))
    assert_same(xs.exact_nansum(b, axis=1), np.array([1.0, 0.0]))


def test_nansum_complex_whole_nan_elements():
    a = np.array([c(nan, nan), c(1, -0.0), c(2, -0.0)], dtype=np.complex128)
    assert_same(xs.exact_nansum(a), np.complex128(c(3, -0.0)))
    a = np.array([c(nan, nan)], dtype=np.complex64)
    assert_same(xs.exact_nansum(a), np.complex64(c(0.0, 0.0)))
    # NaN in one part only: the whole term goes (np.nansum does the same).
    a = np.array([c(nan, 1.0), c(1.0, 1.0), c(2.0, nan)], dtype=np.complex128)
    assert_same(xs.exact_nansum(a), np.complex128(c(1.0, 1.0)))
    assert_same(xs.exact_nansum(a), exact_sum_oracle(a.tolist(), np.complex128, skip_nan=True))


# ---------------------------------------------------------------------------
# accumulate / reduceat


@pytest.mark.parametrize("terms,dtype,expected", [
    ([1e100, 1.0, -1e100], None, [1e100, 1e100, 1.0]),
    ([1.0, 2.0**-53, 2.0**-53], None, [1.0, 1.0, 1.0 + 2.0**-52]),
    ([M64, M64, -M64], None, [M64, inf, M64]),
    ([M64, M64, -inf, 1.0], None, [M64, inf, -inf, -inf]),
    ([inf, -inf, 1.0], None, [inf, nan, nan]),
    ([-0.0, -0.0, 0.0, -0.0], None, [-0.0, -0.0, 0.0, 0.0]),
    ([1.0, -1.0, -0.0], None, [1.0, 0.0, 0.0]),
    ([1.0, 2.0**-24, 2.0**-80], FLOAT32, [1.0, 1.0, 1.0 + 2.0**-23]),
    ([1.0, 2.0**-11, 2.0**-80, -(2.0**-80)], FLOAT16, [1.0, 1.0, 1.0 + 2.0**-10, 1.0]),
    ([], None, []),
])
def test_accumulate_table(terms, dtype, expected):
    a = np.array(terms, dtype=np.float64)
    rdt = FLOAT64 if dtype is None else dtype
    exp = np.array([scalar(e, rdt) for e in expected], dtype=rdt)
    assert_same(oracle_accumulate(a, dtype=dtype), exp)
    kw = {} if dtype is None else {"dtype": dtype}
    assert_same(xs.exact_add.accumulate(a, **kw), exp)
    out = np.full(len(terms), 7, dtype=rdt)
    assert xs.exact_add.accumulate(a, out=out, **kw) is out
    assert_same(out, exp)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_accumulate_ties_each_format(dtype):
    v = fmt_values(dtype)
    terms = [1.0, v["half"], v["s"], -v["s"], v["half"]]
    a = array(terms, dtype)
    u = v["u"]
    exp = array([1.0, 1.0, 1.0 + u, 1.0, 1.0 + u], dtype)
    assert_same(oracle_accumulate(a), exp)
    assert_same(xs.exact_add.accumulate(a), exp)


def test_accumulate_2d_axis():
    a = np.array([[1e100, 1.0], [1.0, 2.0**-53], [-1e100, 2.0**-53]])
    assert_same(xs.exact_add.accumulate(a, axis=0),
                np.array([[1e100, 1.0], [1e100, 1.0], [1.0, 1.0 + 2.0**-52]]))
    assert_same(xs.exact_add.accumulate(a), xs.exact_add.accumulate(a, axis=0))
    assert_same(xs.exact_add.accumulate(a, axis=1), oracle_accumulate(a, axis=1))
    assert_same(xs.exact_add.accumulate(a, axis=-1), oracle_accumulate(a, axis=1))


@pytest.mark.parametrize("terms,indices,expected", [
    ([1e100, 1.0, -1e100, 2.0], [0, 3], [1.0, 2.0]),
    ([1e100, 1.0, -1e100, 2.0], [0, 2, 1], [1e100, -1e100, -1e100]),
    ([-0.0, 1.0], [0, 0], [-0.0, 1.0]),
    ([-0.0, -0.0, 1.0], [0, 2], [-0.0, 1.0]),
    ([1.0, 2.0**-53, 2.0**-53, 3.0], [0, 3, 1], [1.0 + 2.0**-52, 3.0, 3.0]),
    ([M64, M64, -M64, 1.0], [0, 3], [M64, 1.0]),
    ([M64, M64, -M64, 1.0], [1, 0, 3], [M64, M64, 1.0]),
    ([M64, M64, -M64, 1.0], [0, 2, 2], [inf, -M64, -M64]),
    ([5.0], [0], [5.0]),
])
def test_reduceat_table(terms, indices, expected):
    a = np.array(terms)
    exp = np.array(expected)
    assert_same(oracle_reduceat(a, indices), exp)
    assert_same(xs.exact_add.reduceat(a, indices), exp)
    assert_same(xs.exact_add.reduceat(a, np.array(indices, dtype=np.intp)), exp)


def test_reduceat_dtype_and_axis():
    a = np.array([1.0, 2.0**-24, 2.0**-80, 7.0])
    exp = np.array([1 + 2.0**-23, 7.0], dtype=np.float32)
    assert_same(xs.exact_add.reduceat(a, [0, 3], dtype=np.float32), exp)
    b = np.stack([a, -a], axis=1)  # shape (4, 2)
    assert_same(xs.exact_add.reduceat(b, [0, 3], axis=0),
                np.array([[1 + 2.0**-24 + 0.0, -(1 + 2.0**-24)], [7.0, -7.0]]))
    assert_same(xs.exact_add.reduceat(b, [0, 3], axis=0), oracle_reduceat(b, [0, 3], axis=0))
    assert_same(xs.exact_add.reduceat(b.T, [0, 3], axis=1), oracle_reduceat(b.T, [0, 3], axis=1))


def test_fraction_oracle_sanity_for_tables():
    # one value from the tables recomputed the long way
    exact = Fraction(1) + Fraction(2) ** -24 + Fraction(2) ** -80
    assert exact > Fraction(1) + Fraction(2) ** -24
