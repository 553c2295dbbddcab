"""The short-row path of the dot loops (rows of at most 1023 products, in
blocks of 256 products, rounded into a target: src/loops/xs_loops.c,
xs_dot_short_*).

A row goes in as a two-double approximation with a proven error bound and
is rounded from it when the bound decides; float64 products only when both
factors are normal and 2**-969 <= |a*b| < 2**1000 (then p = fl(a*b) and
e = fma(a, b, -p) are both exact), zeros adding nothing.  Every other row
goes to the exact accumulators.  These tests sit on each of those edges and
compare bit for bit with the Fraction oracle.
"""

import math
import warnings

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import BFLOAT16, FLOAT16, FLOAT32, FLOAT64, FLOAT_DTYPES
from oracle_products import exact_dot_oracle
from strategies import float_lists, to_array

import xsumufunc as xs

SHORT_MAX = 1023
FOLD = 256
NARROW = [FLOAT32, FLOAT16, BFLOAT16]


def check_rows(a, b, target=None):
    """Each row of the 2-D a, b against the oracle, in one call."""
    target = np.dtype(target or a.dtype)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        got = xs.exact_dot(a, b, dtype=target)
    for i in range(a.shape[0]):
        assert_same(got[i], exact_dot_oracle(a[i].tolist(), b[i].tolist(), target), f"row {i}")


@pytest.mark.parametrize("target", FLOAT_DTYPES, ids=str)
def test_products_at_the_exponent_edges(target):
    """Products just inside and just outside [2**-969, 2**1000), beside
    ordinary ones and ones that cancel them: both paths, one call."""
    rng = np.random.default_rng(1)
    rows_a, rows_b = [], []
    for low in (-969, -970, -968, 998, 999, 1000, 1001):
        for _ in range(6):
            m1, m2 = 1 + rng.random(), 1 + rng.random()
            a_exp = low // 2 + int(rng.integers(-20, 20))
            # (m1 * 2**a_exp) * (m2 * 2**(low - a_exp)): about 2**low (times m1*m2 in [1, 4))
            a = [math.ldexp(m1, a_exp), 1.0 + rng.random(), math.ldexp(m1, a_exp)]
            b = [math.ldexp(m2, low - a_exp), rng.standard_normal(),
                 -math.ldexp(m2, low - a_exp) * rng.choice([1.0, 0.5])]
            rows_a.append(a)
            rows_b.append(b)
    check_rows(np.array(rows_a), np.array(rows_b), target)


def test_subnormal_factors_zeros_and_specials():
    sub = 5e-324 * 3
    a = np.array([[sub, 1.0, 0.0], [2.0**-1022, 2.0**600, 1.0], [0.0, 1.0, 2.0],
                  [-0.0, 0.0, 0.0], [math.inf, 1.0, 1.0], [0.0, 1.0, 1.0],
                  [math.nan, 0.0, 1.0], [1e300, -1e300, 1.0]])
    b = np.array([[2.0**1000, 3.0, math.inf], [2.0**600, 2.0**-1200, 1.0],
                  [math.inf, 1.0, 1.0], [1.0, -1.0, 0.0], [0.0, 1.0, 1.0],
                  [math.inf, 2.0, 3.0], [0.0, 1.0, 1.0], [1e300, 1e300, 1.0]])
    for target in FLOAT_DTYPES:
        check_rows(a, b, target)


@pytest.mark.parametrize("target", FLOAT_DTYPES, ids=str)
def test_ties_tiny_results_and_cancellation(target):
    """Rows the bound cannot decide: exact midpoints (to even), results
    that cancel to zero or to a few ulps, results below the normal range."""
    p = {FLOAT64: 53, FLOAT32: 24, FLOAT16: 11, BFLOAT16: 8}[np.dtype(target)]
    half = 2.0 ** -p
    a = np.array([[1.0, half, 0.0], [1.0, half, half**2], [1.0, -1.0, half],
                  [3.0, -3.0, 0.0], [2.0**-520, 2.0**-520, -(2.0**-520)],
                  [1.0 + 2 * half, half, 0.0], [2.0**300, -(2.0**300), 2.0**-60]])
    b = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0], [1.0, 1.0, half],
                  [1.0, 1.0, 0.0], [2.0**-520, 2.0**-521, 2.0**-522],
                  [1.0, 1.0, 0.0], [2.0**300, 2.0**300, 2.0**-60]])
    check_rows(a, b, target)


@pytest.mark.parametrize("n", [FOLD - 1, FOLD, FOLD + 1, 2 * FOLD + 1, SHORT_MAX,
                               SHORT_MAX + 1])
@pytest.mark.parametrize("dtype", [FLOAT64] + NARROW, ids=str)
def test_rows_at_the_length_limit(n, dtype):
    rng = np.random.default_rng(n)
    span = 300 if dtype == FLOAT64 else 6
    a = np.ldexp(rng.standard_normal((6, n)), rng.integers(-span, span, (6, n))).astype(dtype)
    b = rng.standard_normal((6, n)).astype(dtype)
    b[1] = a[1]                                      # a sum of squares
    half = n // 2                                    # pairs that cancel, but for one term
    a[2, half:2 * half] = a[2, :half]
    b[2, half:2 * half] = -b[2, :half]
    b[2, 0] = b[2, 0] * dtype.type(1.5)
    for target in {dtype, FLOAT64}:
        check_rows(a, b, target)
        check_rows(a[:, ::-1], b[:, ::-1], target)   # negative strides


@settings(max_examples=200)
@given(data=st.data())
def test_short_rows_match_the_oracle(data):
    dtype = data.draw(st.sampled_from([FLOAT64] + NARROW), label="dtype")
    target = data.draw(st.sampled_from(FLOAT_DTYPES), label="target")
    a = data.draw(float_lists(dtype, target=target), label="a")
    b = data.draw(st.lists(st.sampled_from(a) if a else st.just(0.0), min_size=len(a),
                           max_size=len(a)), label="b (values of a: squares, cancellation)")
    signs = data.draw(st.lists(st.sampled_from([1.0, -1.0]), min_size=len(a), max_size=len(a)))
    b = [s * v for s, v in zip(signs, b)]
    A, B = to_array(a, dtype), to_array(b, dtype)
    check_rows(A[np.newaxis], B[np.newaxis], target)


def test_no_floating_point_flags_from_the_short_path():
    """Finite rows whose products overflow or underflow on the way, and
    whose exact results are ordinary numbers, raise nothing (the flags of
    the products are not the result's)."""
    a = np.array([[1e300, -1e300, 1.0, 0.0], [1e-300, 1.0, 0.0, 0.0],
                  [2.0**-540, 1.5, 1.0, 0.0], [2.0**520, 2.0**520, 2.0**-600, 3.0]])
    b = np.array([[1e300, 1e300, 1.0, 0.0], [1e-300, 1.0, 0.0, 0.0],
                  [2.0**-540, 2.0, 1.0, 0.0], [-(2.0**520), 2.0**520, 2.0**-600, 1.0]])
    with np.errstate(all="raise"):
        got = xs.exact_dot(a, b)
    for i in range(len(a)):
        assert_same(got[i], exact_dot_oracle(a[i].tolist(), b[i].tolist(), FLOAT64))
