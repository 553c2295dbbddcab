"""kahan_add, stochastic_round, stochastic_add and kahan_sum against exact
references built on fractions.Fraction (tests/oracle.py).

Each reference operation is the exact rational result rounded once by the
oracle (round_fraction); the stochastic reference states the documented rule
(away from zero exactly when r < frac * 2**k) in Fractions.  The only
tolerances are the statistical bounds of the unbiasedness test.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from helpers import assert_same, dtype_names
from hypothesis import given
from hypothesis import strategies as st
from oracle import BFLOAT16, FLOAT16, FLOAT32, FLOAT64, FORMATS, _to_scalar, round_fraction
from strategies import SPECIALS, representable, to_array

import xsumufunc as xs
from xsumufunc import _lowprec_ufuncs as raw

STORAGE = [BFLOAT16, FLOAT16, FLOAT32]
UPDATES = {BFLOAT16: [BFLOAT16, FLOAT32, FLOAT64],
           FLOAT16: [FLOAT16, FLOAT32, FLOAT64],
           FLOAT32: [FLOAT32, FLOAT64]}
PAIRS = [(s, u) for s in STORAGE for u in UPDATES[s]]
ROUND_PAIRS = [(FLOAT32, BFLOAT16), (FLOAT64, BFLOAT16), (FLOAT32, FLOAT16),
               (FLOAT64, FLOAT16), (FLOAT64, FLOAT32)]


def _id(dt):
    return "bfloat16" if dt == BFLOAT16 else str(dt)


def pair_id(pair):
    return "-".join(_id(d) for d in pair)


# ---- exact references -------------------------------------------------------

def is_neg_zero(v):
    return v == 0 and math.copysign(1.0, v) < 0


def ref_add(a, b, dtype):
    """a + b (Python floats) rounded once to nearest into dtype, IEEE rules
    for NaN, infinities and the sign of zero."""
    if math.isnan(a) or math.isnan(b) or (math.isinf(a) and math.isinf(b) and a != b):
        return _to_scalar(math.nan, dtype)
    if math.isinf(a) or math.isinf(b):
        return _to_scalar(a if math.isinf(a) else b, dtype)
    zero_sign = -1 if is_neg_zero(a) and is_neg_zero(b) else 1
    return round_fraction(Fraction(a) + Fraction(b), dtype, zero_sign=zero_sign)


def ref_kahan_add(w, c, u, dtype):
    """Algorithm 1 (Zamirai et al.), every operation through the oracle."""
    y = float(ref_add(u, -c, dtype))
    s = float(ref_add(w, y, dtype))
    d = float(ref_add(s, -w, dtype))
    c_new = ref_add(d, -y, dtype)
    return _to_scalar(s, dtype), c_new


def neighbours(z, dtype):
    """(down, step): down is |z| truncated towards zero in dtype's grid, step
    the distance to the next grid point away from zero (z != 0, finite,
    Fractions).  Above the largest finite value the grid continues (the
    caller turns those points into inf)."""
    fmt = FORMATS[np.dtype(dtype)]
    a = abs(z)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    qe = max(e, fmt.emin) - fmt.p + 1
    step = Fraction(2) ** qe
    down = (a // step) * step
    return down, step


def ref_stochastic(z, r, k, dtype, zero_sign=1):
    """The documented stochastic rounding of the exact value z (a Fraction,
    or a special float) with the k-bit integer r."""
    if isinstance(z, float):                    # NaN or +-inf
        return _to_scalar(z, dtype)
    if z == 0:
        return _to_scalar(math.copysign(0.0, zero_sign), dtype)
    fmt = FORMATS[np.dtype(dtype)]
    down, step = neighbours(z, dtype)
    frac = (abs(z) - down) / step
    magnitude = down + step if r < frac * 2**k else down
    sign = -1 if z < 0 else 1
    if magnitude > fmt.max_finite:
        return _to_scalar(sign * math.inf, dtype)
    if magnitude == 0:
        return _to_scalar(math.copysign(0.0, sign), dtype)
    return round_fraction(sign * magnitude, dtype)   # exact: representable


def exact_or_special(a, b=0.0):
    """a + b exactly as a Fraction, or the IEEE special result as a float."""
    if math.isnan(a) or math.isnan(b) or (math.isinf(a) and math.isinf(b) and a != b):
        return math.nan
    if math.isinf(a) or math.isinf(b):
        return a if math.isinf(a) else b
    return Fraction(a) + Fraction(b)


def values(dtype, specials=True, **ranges):
    base = representable(dtype, **ranges)
    extra = [0.0, -0.0] + (SPECIALS if specials else [])
    return st.one_of(base, base, base, st.sampled_from(extra))


def scalar_array(v, dtype):
    return to_array([v], dtype)


# ---- kahan_add ----------------------------------------------------------------

@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
@given(data=st.data())
def test_kahan_add_matches_oracle(pair, data):
    storage, update = pair
    fmt = FORMATS[storage]
    n = data.draw(st.integers(1, 8))
    # Weights, compensations and updates of related sizes (where the
    # compensation matters), plus anything in the format.
    q = data.draw(st.integers(fmt.qmin, fmt.qmax))
    near = dict(qmin=q - 30, qmax=q + 2)
    ws = data.draw(st.lists(values(storage, **near), min_size=n, max_size=n))
    cs = data.draw(st.lists(values(storage, qmin=q - 12, qmax=q - 6), min_size=n, max_size=n))
    us = data.draw(st.lists(st.one_of(values(update, **near), values(update)),
                            min_size=n, max_size=n))
    w, c, u = to_array(ws, storage), to_array(cs, storage), to_array(us, update)
    with np.errstate(all="ignore"):     # inf - inf may be drawn
        w_new, c_new = xs.kahan_add(w, c, u)
        raw_w, raw_c = raw.kahan_add_ufunc(w, c, u)
    expected = [ref_kahan_add(float(a), float(b), float(d), storage)
                for a, b, d in zip(w.tolist(), c.tolist(), u.tolist())]
    assert_same(w_new, np.array([e[0] for e in expected], dtype=storage))
    assert_same(c_new, np.array([e[1] for e in expected], dtype=storage))
    # The raw ufunc picks the loop of u's own dtype (bfloat16 user loops:
    # the last registered fitting one): same bits.
    assert_same(raw_w, w_new)
    assert_same(raw_c, c_new)


@pytest.mark.parametrize("storage", STORAGE, ids=_id)
def test_kahan_add_tracks_exact_running_sum(storage):
    """Many small updates: plain rounding drifts by many ulps; the Kahan
    weight stays within one ulp of the exact running sum at every step, and
    w - c (the paper's sign) within one ulp too."""
    fmt = FORMATS[storage]
    rng = np.random.default_rng(20210101)
    steps = 2000
    one_ulp_at_1 = Fraction(2) ** (1 - fmt.p)
    # Updates between 1/20 and 1/2 of an ulp of the weight, all positive:
    # plain nearest rounding drops every one of them.
    updates = (rng.uniform(0.05, 0.5, steps) * float(one_ulp_at_1)).astype(np.float32)
    w = np.ones(1, dtype=storage)
    c = np.zeros(1, dtype=storage)
    plain = np.ones(1, dtype=storage)
    exact = Fraction(1)
    worst = Fraction(0)
    for u in updates:
        exact += Fraction(float(u))
        xs.kahan_add(w, c, u, out=(w, c))
        plain = np.array([ref_add(float(plain[0]), float(u), storage)], dtype=storage)
        _, ulp = neighbours(exact, storage)
        err_w = abs(Fraction(float(w[0])) - exact)
        err_wc = abs(Fraction(float(w[0])) - Fraction(float(c[0])) - exact)
        assert err_w <= ulp, f"w drifted: {float(err_w / ulp)} ulp"
        assert err_wc <= ulp, f"w - c drifted: {float(err_wc / ulp)} ulp"
        worst = max(worst, err_w / ulp)
    _, ulp = neighbours(exact, storage)
    assert abs(Fraction(float(plain[0])) - exact) > 50 * ulp     # plain stalled at 1
    assert float(plain[0]) == 1.0


@pytest.mark.parametrize("storage", STORAGE, ids=_id)
def test_kahan_add_in_place_broadcast_and_strided(storage):
    rng = np.random.default_rng(5)
    base = rng.standard_normal(12).astype(np.float32)
    w_full = base.astype(storage)
    c_full = (base * np.float32(1e-3)).astype(storage)
    u = np.float64(1e-3) * rng.standard_normal((3, 1))        # broadcast over w
    w = w_full[::-2][:6].reshape(2, 3)[None].repeat(3, axis=0)  # (3, 2, 3)
    c = c_full[::2][:6].reshape(2, 3)[None].repeat(3, axis=0)
    u = u[:, :, None]                                           # (3, 1, 1)
    w_new, c_new = xs.kahan_add(w, c, u)
    ew = np.empty(w.shape, dtype=storage)
    ec = np.empty(w.shape, dtype=storage)
    for idx in np.ndindex(*w.shape):
        ew[idx], ec[idx] = ref_kahan_add(float(w[idx]), float(c[idx]),
                                         float(u[idx[0], 0, 0]), storage)
    assert_same(w_new, ew)
    assert_same(c_new, ec)
    # In place: out=(w, c) gives the same bits and returns those arrays.
    got = xs.kahan_add(w, c, u, out=(w, c))
    assert got[0] is w and got[1] is c
    assert_same(w, ew)
    assert_same(c, ec)


@pytest.mark.parametrize("c_value", [2.0**-100, -2.0**-100, 0.0])
def test_kahan_add_tie_broken_by_the_exact_low_part(c_value):
    """u - c with u = 1 + 2**-8 (a bfloat16 tie) and a tiny c: float64
    rounding would make a tie of it; the exact difference is not one."""
    w = np.zeros(1, BFLOAT16)
    c = np.array([c_value], dtype=np.float32).astype(BFLOAT16)
    u = np.array([1 + 2.0**-8])
    w_new, c_new = xs.kahan_add(w, c, u)
    expected = ref_kahan_add(0.0, c_value, 1 + 2.0**-8, BFLOAT16)
    assert_same(w_new, np.array([expected[0]]))
    assert_same(c_new, np.array([expected[1]]))
    assert float(w_new[0]) == {2.0**-100: 1.0, -2.0**-100: 1 + 2.0**-7, 0.0: 1.0}[c_value]


def test_kahan_add_scalars_and_python_update():
    w = BFLOAT16.type(1.0)
    c = BFLOAT16.type(0.0)
    w_new, c_new = xs.kahan_add(w, c, 2.0**-9)
    expected = ref_kahan_add(1.0, 0.0, 2.0**-9, BFLOAT16)
    assert_same(w_new, expected[0])
    assert_same(c_new, expected[1])


# ---- stochastic_round ---------------------------------------------------------

def _expected_round(x, bits, k, target):
    return np.array([ref_stochastic(exact_or_special(float(v)), int(r), k, target,
                                    zero_sign=math.copysign(1.0, float(v)))
                     for v, r in zip(x.tolist(), bits.tolist())], dtype=target)


@pytest.mark.parametrize("pair", ROUND_PAIRS, ids=pair_id)
@pytest.mark.parametrize("bits_dtype", [np.uint16, np.uint32])
@given(data=st.data())
def test_stochastic_round_matches_rule(pair, bits_dtype, data):
    source, target = pair
    n = data.draw(st.integers(1, 10))
    tfmt = FORMATS[target]
    # Around the target's range (subnormals and overflow included) and anywhere.
    near = values(source, qmin=tfmt.qmin - 30, qmax=tfmt.qmax + 2)
    xs_ = data.draw(st.lists(st.one_of(near, values(source)), min_size=n, max_size=n))
    top = np.iinfo(bits_dtype).max
    rs = data.draw(st.lists(st.one_of(st.integers(0, top), st.sampled_from([0, 1, top, top // 2])),
                            min_size=n, max_size=n))
    x = to_array(xs_, source)
    bits = np.array(rs, dtype=bits_dtype)
    k = 8 * np.dtype(bits_dtype).itemsize
    with np.errstate(over="ignore"):     # overflow to inf may be drawn
        got = xs.stochastic_round(x, target, bits=bits)
        negated = xs.stochastic_round(-x, target, bits=bits)
    assert_same(got, _expected_round(x, bits, k, target))
    # Odd symmetry: the same bits round -x to -result.
    assert_same(negated, -got)


@pytest.mark.parametrize("pair", ROUND_PAIRS, ids=pair_id)
@given(data=st.data())
def test_stochastic_round_gives_one_of_the_two_neighbours(pair, data):
    source, target = pair
    tfmt = FORMATS[target]
    x = data.draw(representable(source, qmin=tfmt.qmin - 10, qmax=tfmt.qmax - 1))
    rng_seed = data.draw(st.integers(0, 2**32 - 1))
    arr = np.full(64, x, dtype=source)
    with np.errstate(over="ignore"):     # the top binade may round to inf
        got = xs.stochastic_round(arr, target, rng=np.random.default_rng(rng_seed))
    exact = Fraction(x)
    nearest = float(round_fraction(exact, target))
    if x == 0:
        allowed = {0}
    else:
        down, step = neighbours(exact, target)
        sign = -1 if exact < 0 else 1
        allowed = {sign * down, sign * (down + step)}
    assert math.isinf(nearest) or Fraction(nearest) in allowed     # the oracle agrees
    assert {Fraction(float(v)) for v in got.astype(np.float64) if np.isfinite(v)} <= allowed


@pytest.mark.parametrize("source,target", [(FLOAT32, BFLOAT16), (FLOAT32, FLOAT16),
                                           (FLOAT64, BFLOAT16)],
                         ids=["f32-bf16", "f32-f16", "f64-bf16"])
def test_stochastic_round_probability_over_all_uint16_bits(source, target):
    """Enumerating every 16-bit r gives the probability of rounding away
    exactly: ceil(frac * 2**16) / 2**16, which is frac itself for float32 ->
    bfloat16 (frac has at most 16 bits)."""
    rng = np.random.default_rng(3)
    xs_ = list(rng.standard_normal(6) * 3.0) + [1 + 2.0**-9, -(1 + 3 * 2.0**-10), 2.0**-130 * 1.7]
    bits = np.arange(1 << 16, dtype=np.uint16)
    for v in xs_:
        x = np.array(v, dtype=source)
        z = Fraction(float(x))
        got = xs.stochastic_round(np.full(bits.shape, x), target, bits=bits)
        down, step = neighbours(z, target)
        frac = (abs(z) - down) / step
        away = int(np.count_nonzero(np.abs(got.astype(np.float64)) > float(down)))
        assert Fraction(away, 1 << 16) == Fraction(math.ceil(frac * (1 << 16)), 1 << 16)
        if source == FLOAT32 and target == BFLOAT16:
            assert Fraction(away, 1 << 16) == frac


@pytest.mark.parametrize("pair", ROUND_PAIRS, ids=pair_id)
def test_stochastic_round_is_unbiased(pair):
    """The mean of many roundings equals the input within 5 standard errors
    (fixed seed), for inputs at several positions between two neighbours."""
    source, target = pair
    rng = np.random.default_rng(12345)
    n = 200_000
    for frac in (0.1, 0.25, 0.5, 0.9):
        z = Fraction(3, 2) + frac * neighbours(Fraction(3, 2), target)[1]
        x = np.array(float(z), dtype=source)
        exact = Fraction(float(x))
        down, step = neighbours(exact, target)
        p = float((exact - down) / step)
        got = xs.stochastic_round(np.full(n, x), target, rng=rng).astype(np.float64)
        mean = got.mean()
        sigma = float(step) * math.sqrt(p * (1 - p) / n)
        assert abs(mean - float(exact)) <= 5 * sigma + 1e-300
        assert p > 0.0


@pytest.mark.parametrize("pair", ROUND_PAIRS, ids=pair_id)
@given(data=st.data())
def test_stochastic_round_leaves_exact_values_alone(pair, data):
    source, target = pair
    x = data.draw(st.one_of(representable(target), st.sampled_from([0.0, -0.0, math.inf,
                                                                    -math.inf])))
    bits = np.array([0, 1, 2**31, 2**32 - 1], dtype=np.uint32)
    got = xs.stochastic_round(np.full(4, x, dtype=source), target, bits=bits)
    assert_same(got, np.full(4, x).astype(np.float32).astype(target)
                if target == BFLOAT16 else np.full(4, x, dtype=target))


@pytest.mark.parametrize("target", [BFLOAT16, FLOAT16], ids=_id)
def test_stochastic_round_is_reproducible(target):
    x = np.random.default_rng(0).standard_normal((4, 5))
    bits = np.random.default_rng(1).integers(0, 2**16, size=(4, 5), dtype=np.uint16)
    a = xs.stochastic_round(x, target, bits=bits)
    b = xs.stochastic_round(x, target, bits=bits.copy())
    assert_same(a, b)
    # rng= draws rng.integers(0, 2**32, size=x.shape, dtype=np.uint32), as documented.
    r1 = xs.stochastic_round(x, target, rng=np.random.default_rng(7))
    drawn = np.random.default_rng(7).integers(0, 1 << 32, size=x.shape, dtype=np.uint32)
    assert_same(r1, xs.stochastic_round(x, target, bits=drawn))
    # Broadcast bits (one row for every row).
    row = bits[0]
    assert_same(xs.stochastic_round(x, target, bits=row),
                xs.stochastic_round(x, target, bits=np.broadcast_to(row, x.shape).copy()))


@pytest.mark.parametrize("target", [BFLOAT16, FLOAT16], ids=_id)
def test_stochastic_round_special_values(target):
    fmt = FORMATS[target]
    maxf = float(fmt.max_finite)
    step_top = float(Fraction(2) ** fmt.qmax)
    nan_patterns = np.array([0x7FFFFFFF, 0xFFFFFFFF, 0x7F800001, 0x7FC00000],
                            dtype=np.uint32).view(np.float32)
    bits = np.array([0, 2**32 - 1], dtype=np.uint32)
    for nan in nan_patterns:
        got = xs.stochastic_round(np.full(2, nan), target, bits=bits)
        assert np.isnan(got.astype(np.float32)).all()          # never inf
    x = np.array([math.inf, -math.inf, 0.0, -0.0, 2.0 * maxf, -(2.0**200), maxf + step_top / 4])
    with pytest.warns(RuntimeWarning, match="overflow"):     # finite -> inf, as IEEE flags it
        got = xs.stochastic_round(x, target, bits=np.zeros(x.shape, np.uint32))
    expected = np.array([math.inf, -math.inf, 0.0, -0.0, math.inf, -math.inf, math.inf])
    assert_same(got, expected.astype(np.float32).astype(target))
    # Between the largest finite value and the overflow threshold: max or inf.
    got = xs.stochastic_round(np.full(2, maxf + step_top / 4), target,
                              bits=np.array([2**32 - 1, 2**30 + 1], dtype=np.uint32))
    assert_same(got, np.array([maxf, maxf]).astype(np.float32).astype(target))
    # Below the smallest subnormal: 0 or the smallest subnormal, sign kept.
    tiny = float(fmt.min_subnormal) / 4
    got = xs.stochastic_round(np.array([tiny, -tiny]), target,
                              bits=np.array([2**32 - 1, 0], dtype=np.uint32))
    assert_same(got, np.array([0.0, -float(fmt.min_subnormal)]).astype(np.float32).astype(target))


def test_stochastic_round_out_and_scalar():
    x = np.array([1 + 2.0**-9, 2.5])
    out = np.empty(2, dtype=BFLOAT16)
    bits = np.array([0, 0], dtype=np.uint16)
    res = xs.stochastic_round(x, BFLOAT16, bits=bits, out=out)
    assert res is out
    assert_same(out, _expected_round(x, bits, 16, BFLOAT16))
    s = xs.stochastic_round(1 + 2.0**-9, np.float16, bits=np.uint16(0))
    assert isinstance(s, np.float16)
    assert_same(s, ref_stochastic(Fraction(1 + 2.0**-9), 0, 16, FLOAT16))


# ---- stochastic_add -----------------------------------------------------------

@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
@pytest.mark.parametrize("bits_dtype", [np.uint16, np.uint32])
@given(data=st.data())
def test_stochastic_add_matches_rule(pair, bits_dtype, data):
    storage, update = pair
    fmt = FORMATS[storage]
    n = data.draw(st.integers(1, 8))
    q = data.draw(st.integers(fmt.qmin, fmt.qmax))
    ws = data.draw(st.lists(st.one_of(values(storage, qmin=q - 2, qmax=q + 2), values(storage)),
                            min_size=n, max_size=n))
    us = data.draw(st.lists(st.one_of(values(update, qmin=q - 40, qmax=q + 1), values(update)),
                            min_size=n, max_size=n))
    top = np.iinfo(bits_dtype).max
    rs = data.draw(st.lists(st.one_of(st.integers(0, top), st.sampled_from([0, 1, top])),
                            min_size=n, max_size=n))
    w, u, bits = to_array(ws, storage), to_array(us, update), np.array(rs, dtype=bits_dtype)
    k = 8 * np.dtype(bits_dtype).itemsize
    with np.errstate(over="ignore", invalid="ignore"):
        got = xs.stochastic_add(w, u, bits=bits)
        got_raw = raw.stochastic_add_ufunc(w, u, bits)
    expected = []
    for a, b, r in zip(w.tolist(), u.tolist(), rs):
        a, b = float(a), float(b)
        zero_sign = -1 if is_neg_zero(a) and is_neg_zero(b) else 1
        expected.append(ref_stochastic(exact_or_special(a, b), r, k, storage, zero_sign))
    assert_same(got, np.array(expected, dtype=storage))
    assert_same(got_raw, got)   # the loop NumPy picks keeps k


@pytest.mark.parametrize("storage", STORAGE, ids=_id)
def test_stochastic_add_strided_and_broadcast(storage):
    rng = np.random.default_rng(11)
    w = rng.standard_normal(40).astype(storage)[::-3]            # negative stride
    u = (rng.standard_normal((2, 1)) * 1e-2)                      # float64, broadcast
    bits = rng.integers(0, 1 << 32, size=(2, w.size), dtype=np.uint32)[:, ::-1]
    got = xs.stochastic_add(w, u, bits=bits)
    expected = np.empty((2, w.size), dtype=storage)
    for i, j in np.ndindex(*expected.shape):
        z = exact_or_special(float(w[j]), float(u[i, 0]))
        expected[i, j] = ref_stochastic(z, int(bits[i, j]), 32, storage)
    assert_same(got, expected)


def test_stochastic_add_in_place_and_rng():
    w = np.linspace(-3, 3, 50).astype(BFLOAT16)
    u = np.float32(1e-3)
    before = w.copy()
    a = xs.stochastic_add(w, u, rng=np.random.default_rng(9))
    drawn = np.random.default_rng(9).integers(0, 1 << 32, size=w.shape, dtype=np.uint32)
    b = xs.stochastic_add(w, u, bits=drawn)
    assert_same(a, b)
    res = xs.stochastic_add(w, u, bits=drawn, out=w)
    assert res is w
    assert_same(w, b)
    assert not np.array_equal(before.view(np.uint16), w.view(np.uint16))


# ---- kahan_sum ----------------------------------------------------------------

def ref_kahan_sum(terms, dtype):
    if not terms:
        return _to_scalar(0.0, dtype)
    total, c = -0.0, 0.0
    for x in terms:
        y = float(ref_add(x, -c, dtype))
        t = float(ref_add(total, y, dtype))
        c = float(ref_add(float(ref_add(t, -total, dtype)), -y, dtype))
        total = t
    return _to_scalar(total, dtype)


@pytest.mark.parametrize("dtype", [BFLOAT16, FLOAT16, FLOAT32, FLOAT64], ids=_id)
@given(data=st.data())
def test_kahan_sum_matches_oracle(dtype, data):
    fmt = FORMATS[dtype]
    q = data.draw(st.integers(fmt.qmin, fmt.qmax))
    terms = data.draw(st.lists(st.one_of(values(dtype, qmin=q - 12, qmax=q + 3),
                                         values(dtype, specials=False)), max_size=30))
    a = to_array(terms, dtype)
    with np.errstate(all="ignore"):
        got = xs.kahan_sum(a)
    assert_same(got, ref_kahan_sum([float(v) for v in a.tolist()], dtype))
    # Equal to folding kahan_add from w = -0.0, c = 0 (storage dtypes).
    if len(terms) and dtype != FLOAT64:
        w = np.array([-0.0], dtype=np.float32).astype(dtype)
        c = np.zeros(1, dtype=dtype)
        with np.errstate(all="ignore"):
            for v in a:
                w, c = xs.kahan_add(w, c, np.array([v]))
        assert_same(got, w[0])


def test_kahan_sum_axes():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3, 4, 5)).astype(np.float16)
    for axis in (0, 1, 2, -1):
        got = xs.kahan_sum(a, axis=axis)
        moved = np.moveaxis(a, axis, -1)
        expected = np.empty(moved.shape[:-1], dtype=np.float16)
        for idx in np.ndindex(*expected.shape):
            expected[idx] = ref_kahan_sum([float(v) for v in moved[idx]], np.float16)
        assert_same(got, expected)
    assert_same(xs.kahan_sum(a, axis=None),
                ref_kahan_sum([float(v) for v in a.ravel()], np.float16))
    assert_same(xs.kahan_sum(np.zeros((2, 0), np.float32)), np.zeros(2, np.float32))


def test_kahan_sum_beats_plain_but_is_not_exact():
    """The reason it is only a reference: compensated, not exact."""
    x = np.array([1.0, 2.0**-24, 2.0**-24, -1.0] * 3 + [2.0**-60], dtype=np.float32)
    from oracle import exact_sum_oracle
    exact = exact_sum_oracle(x.tolist(), FLOAT32)
    assert_same(xs.exact_sum(x), exact)
    assert_same(xs.kahan_sum(x), ref_kahan_sum(x.tolist(), FLOAT32))


# ---- bad input ------------------------------------------------------------------

def test_bad_input_is_refused_clearly():
    w = np.ones(3, BFLOAT16)
    c = np.zeros(3, BFLOAT16)
    with pytest.raises(TypeError, match="w"):
        xs.kahan_add(np.ones(3), c, 1.0)                        # float64 storage
    with pytest.raises(TypeError, match="c has dtype"):
        xs.kahan_add(w, np.zeros(3, np.float16), 1.0)
    with pytest.raises(TypeError, match="u has dtype"):
        xs.kahan_add(w, c, np.ones(3, np.int32))
    with pytest.raises(TypeError, match="u has dtype"):
        xs.kahan_add(w, c, np.ones(3, np.complex64))
    with pytest.raises(TypeError, match="w must be a NumPy array"):
        xs.kahan_add([1.0], c, 1.0)
    with pytest.raises(TypeError, match="not exactly a float64"):
        xs.kahan_add(w, c, 2**60 + 1)
    with pytest.raises(TypeError, match="x has dtype"):
        xs.stochastic_round(np.ones(3, np.int64), BFLOAT16, bits=np.zeros(3, np.uint16))
    with pytest.raises(TypeError, match="dtype float64 is not supported"):
        xs.stochastic_round(np.ones(3), np.float64, bits=np.zeros(3, np.uint16))
    with pytest.raises(TypeError, match="not a NumPy dtype"):
        xs.stochastic_round(np.ones(3), "nonsense", bits=np.zeros(3, np.uint16))
    with pytest.raises(ValueError, match="exactly one of bits"):
        xs.stochastic_round(np.ones(3), BFLOAT16)
    with pytest.raises(ValueError, match="exactly one of bits"):
        xs.stochastic_add(w, 1.0, bits=np.zeros(3, np.uint16), rng=np.random.default_rng())
    with pytest.raises(TypeError, match="bits has dtype"):
        xs.stochastic_round(np.ones(3), BFLOAT16, bits=np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="does not broadcast"):
        xs.stochastic_round(np.ones(3), BFLOAT16, bits=np.zeros((2, 3), np.uint16))
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        xs.stochastic_add(w, 1.0, rng=np.random.RandomState(0))
    with pytest.raises(TypeError, match="a has dtype"):
        xs.kahan_sum(np.arange(3))
    with pytest.raises(ValueError, match="axis 3 is out of bounds"):
        xs.kahan_sum(np.ones((2, 2)), axis=3)
    with pytest.raises(TypeError, match="axis must be an int"):
        xs.kahan_sum(np.ones((2, 2)), axis=(0, 1))


def test_wrong_out_is_refused_and_untouched():
    w = np.ones(3, BFLOAT16)
    c = np.zeros(3, BFLOAT16)
    for out in [(np.zeros(3, np.float32), np.zeros(3, BFLOAT16)),
                (np.zeros(3, BFLOAT16), np.zeros(3, np.float16))]:
        before = [o.tobytes() for o in out]
        with pytest.raises(TypeError, match="never cast"):
            xs.kahan_add(w, c, 1.0, out=out)
        assert [o.tobytes() for o in out] == before
    with pytest.raises(ValueError, match="shape"):
        xs.kahan_add(w, c, 1.0, out=(np.zeros(4, BFLOAT16), np.zeros(4, BFLOAT16)))
    with pytest.raises(TypeError, match="tuple of two"):
        xs.kahan_add(w, c, 1.0, out=np.zeros(3, BFLOAT16))
    out = np.zeros(3, np.float16)
    with pytest.raises(TypeError) as info:
        xs.stochastic_round(np.ones(3), BFLOAT16, bits=np.zeros(3, np.uint16), out=out)
    assert dtype_names(np.float16) & set(str(info.value).lower().replace(";", " ").split())
    assert out.tobytes() == np.zeros(3, np.float16).tobytes()
    out = np.zeros(3, np.float32)
    with pytest.raises(TypeError, match="never cast"):
        xs.stochastic_add(w, 1.0, bits=np.zeros(3, np.uint16), out=out)
    assert not out.any()
