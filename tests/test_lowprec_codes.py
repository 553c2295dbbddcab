"""kahan_add, stochastic_round and stochastic_add with float8/float6/float4
storage, bit for bit against a Fraction oracle of the documented rules."""

import math
import warnings
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import CODE_DTYPES, CODE_RULES, code_special, exact_sum_oracle, round_fraction

import xsumufunc as xs

ids = str


def quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(all="ignore"):
            return func(*args, **kwargs)


def finite_codes(dtype):
    values = np.arange(256, dtype=np.uint8).view(dtype)
    return values[np.isfinite(values.astype(np.float32))]


def oracle_stochastic(q, r, k, dtype, zero_sign=1.0):
    """The documented rule: away from zero exactly when r < frac * 2**k."""
    if q == 0:
        return round_fraction(0, dtype, zero_sign=zero_sign)
    grid = sorted({abs(Fraction(float(v))) for v in finite_codes(dtype)})
    top_ulp = grid[-1] - grid[-2]
    grid.append(grid[-1] + top_ulp)            # the neighbour of the largest value: overflow
    a = abs(q)
    sign = -1 if q < 0 else 1
    if a >= grid[-1]:
        return code_special(dtype, "-inf" if sign < 0 else "inf")
    i = max(j for j, g in enumerate(grid) if g <= a)
    down, up = grid[i], grid[i + 1]
    away = r < (a - down) / (up - down) * 2**k
    m = up if away else down
    if m == grid[-1]:
        return code_special(dtype, "-inf" if sign < 0 else "inf")
    if m == 0:
        return round_fraction(0, dtype, zero_sign=sign)
    return round_fraction(sign * m, dtype)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_kahan_add_every_step_rounded_once(dtype, data):
    values = finite_codes(dtype)
    n = data.draw(st.integers(1, 6))
    w = data.draw(st.lists(st.sampled_from(values.tolist()), min_size=n, max_size=n))
    c = data.draw(st.lists(st.sampled_from(values.tolist()), min_size=n, max_size=n))
    u = data.draw(st.lists(st.floats(-1e3, 1e3, width=32), min_size=n, max_size=n))
    # the compensation in w's dtype, or a wider one (a float8 buffer stalls)
    c_dtype = data.draw(st.sampled_from([dtype, np.dtype(ml_dtypes.bfloat16),
                                         np.dtype(np.float32)]))
    w, c = np.array(w, dtype=dtype), np.array(c, dtype=dtype).astype(c_dtype)
    u = np.array(u, dtype=np.float32)
    got_w, got_c = quiet(xs.kahan_add, w, c, u)
    assert got_w.dtype == dtype and got_c.dtype == c_dtype

    def add(a, b, into):                 # a + b rounded once, IEEE specials and zeros
        return float(exact_sum_oracle([float(a), float(b)], into))

    for i in range(n):
        y = add(u[i], -float(c[i]), c_dtype)
        s = add(w[i], y, dtype)
        t = add(s, -float(w[i]), c_dtype)
        c_new = add(t, -y, c_dtype)
        assert_same(got_w[i], exact_sum_oracle([s], dtype), f"w[{i}]")
        assert_same(got_c[i], exact_sum_oracle([c_new], c_dtype), f"c[{i}]")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_stochastic_round_and_add_follow_the_rule(dtype, data):
    n = data.draw(st.integers(1, 6))
    k = data.draw(st.sampled_from([16, 32]))
    bits = np.array(data.draw(st.lists(st.integers(0, 2**k - 1), min_size=n, max_size=n)),
                    dtype=np.uint16 if k == 16 else np.uint32)
    top = float(CODE_RULES[dtype].max_finite)
    x = np.array(data.draw(st.lists(st.floats(-2 * top, 2 * top), min_size=n, max_size=n)))
    got = quiet(xs.stochastic_round, x, dtype, bits=bits)
    for i in range(n):
        want = oracle_stochastic(Fraction(x[i]), int(bits[i]), k, dtype,
                                 zero_sign=math.copysign(1, x[i]))
        assert_same(got[i], want, f"round {x[i]!r} r={bits[i]}")
    w = np.array(data.draw(st.lists(st.sampled_from(finite_codes(dtype).tolist()),
                                    min_size=n, max_size=n)), dtype=dtype)
    u = np.array(data.draw(st.lists(st.floats(-top, top, width=32), min_size=n, max_size=n)),
                 dtype=np.float32)
    got = quiet(xs.stochastic_add, w, u, bits=bits)
    for i in range(n):
        exact = Fraction(float(w[i])) + Fraction(float(u[i]))
        zero_sign = -1.0 if (exact == 0 and math.copysign(1, float(w[i])) < 0
                             and math.copysign(1, float(u[i])) < 0) else 1.0
        want = oracle_stochastic(exact, int(bits[i]), k, dtype, zero_sign=zero_sign)
        assert_same(got[i], want, f"add {w[i]} + {u[i]!r} r={bits[i]}")


@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_stochastic_edges(dtype):
    """Exact values never move; a value just below a value of the format
    (and just below a power of two) takes its true neighbours; every r."""
    values = finite_codes(dtype).astype(np.float64)
    values = np.unique(values[values > 0])
    for v in values[1:]:
        for x in (v, np.nextafter(v, 0), np.nextafter(v, np.inf)):
            for r in (0, 1, 2**15, 2**16 - 1):
                got = quiet(xs.stochastic_round, np.array([x, -x]), dtype,
                            bits=np.uint16(r))
                for j, xx in enumerate((x, -x)):
                    want = oracle_stochastic(Fraction(xx), r, 16, dtype)
                    assert_same(got[j], want, f"{xx!r} r={r}")


@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_in_place_and_errors(dtype):
    w = np.ones(5, dtype=dtype)
    c = np.zeros(5, dtype=dtype)
    res = quiet(xs.kahan_add, w, c, np.float32(0.25), out=(w, c))
    assert res[0] is w and res[1] is c
    out = np.empty(5, dtype=dtype)
    assert quiet(xs.stochastic_add, w, 0.5, bits=np.zeros(5, np.uint32), out=out) is out
    with pytest.raises(TypeError, match="dtype"):
        xs.kahan_add(w, np.zeros(5, np.float64), 1.0)
    before = out.tobytes()
    with pytest.raises(ValueError, match="shape"):
        xs.stochastic_round(np.ones(3), dtype, bits=np.uint16(0), out=out)
    assert out.tobytes() == before


def test_fp8_nearest_stalls_and_the_remedies_track():
    """The point of the exercise, in float8_e4m3fn: 200 updates of 0.01 to
    a weight of 1.0.  Nearest rounding loses every one (half an ulp at 1.0
    is 0.0625); Kahan keeps the lost part in c; stochastic rounding arrives
    on average."""
    f8 = np.dtype(ml_dtypes.float8_e4m3fn)
    u = np.float32(0.01)
    plain = np.ones(4096, f8)
    w, c = np.ones(4096, f8), np.zeros(4096, f8)
    s = np.ones(4096, f8)
    rng = np.random.default_rng(0)
    for _ in range(200):
        plain = (plain.astype(np.float32) + u).astype(f8)
        xs.kahan_add(w, c, u, out=(w, c))
        xs.stochastic_add(s, u, rng=rng, out=s)
    exact = 1 + 200 * float(u)
    assert float(plain[0]) == 1.0
    assert abs(float(w[0]) - float(c[0]) - exact) < 0.0625 + 1e-9
    assert abs(s.astype(np.float64).mean() - exact) < 0.02
