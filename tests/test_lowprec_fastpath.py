"""Differential tests of the fast paths of the low-precision loops.

src/lowprec/xs_lowprec.c rounds with integer operations on a double's bit pattern
when the case is simple (results in the normal or subnormal range of the
storage dtype, no overflow, no undecided tie) and falls back to the general
routines otherwise.  These tests drive both sides of every guard with large
structured inputs (every bfloat16 value; every exponent difference; exact
ties and ties broken by the low part of a float64 update; both sides of the
stochastic threshold r = frac * 2**k; the edges of the subnormal and
overflow ranges; signed zeros, NaN, infinities) and compare bit for bit with
exact references: round_fraction (tests/oracle.py) for every nearest-rounded
operation, the documented stochastic rule stated in Fractions
(test_lowprec.ref_stochastic) for the stochastic ones.  NaN matches any NaN
(IEEE leaves the sign and payload of a NaN result unspecified).
"""

import functools
import math

import numpy as np
import pytest
from helpers import assert_same
from oracle import BFLOAT16, FLOAT16, FLOAT32, FLOAT64, FORMATS
from test_lowprec import exact_or_special, is_neg_zero, neighbours, ref_add, ref_stochastic

import xsumufunc as xs
from xsumufunc import _lowprec_ufuncs as raw

UINT_OF_SIZE = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def check(got, expected, *inputs):
    """assert_same, reporting only the first mismatching elements (with
    their inputs) instead of whole arrays of 65536 values."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    it = UINT_OF_SIZE[got.dtype.itemsize]
    with np.errstate(invalid="ignore"):
        both_nan = np.isnan(got.astype(np.float64)) & np.isnan(expected.astype(np.float64))
    bad = np.nonzero((got.view(it) != expected.view(it)) & ~both_nan)[0]
    for i in bad[:5]:
        shown = [int(a[i]) if a.dtype.kind == "u" else repr(float(a[i])) for a in inputs]
        assert_same(got[i], expected[i], f"element {i}, inputs {shown}")
    assert bad.size == 0


def _name(dt):
    return "bfloat16" if np.dtype(dt) == BFLOAT16 else str(np.dtype(dt))


def all_bfloat16():
    """Every bfloat16 bit pattern: zeros, subnormals, normals, infs, NaNs."""
    return np.arange(1 << 16, dtype=np.uint16).view(BFLOAT16)


def as_float64(a):
    """Exact float64 copy (NaN patterns of bfloat16 make ml_dtypes warn)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(a).astype(np.float64)


def random_patterns(dtype, n, rng):
    """Uniformly random bit patterns: every exponent, specials included."""
    it = UINT_OF_SIZE[np.dtype(dtype).itemsize]
    return rng.integers(0, np.iinfo(it).max, n, dtype=it, endpoint=True).view(dtype)


def exact_cast(values, dtype):
    """Python floats known to be representable in dtype, as an array."""
    values = np.asarray(values, dtype=np.float64)
    if np.dtype(dtype) == BFLOAT16:
        out = values.astype(np.float32).astype(BFLOAT16)
    else:
        out = values.astype(dtype)
    assert np.array_equal(out.astype(np.float64), values, equal_nan=True)
    return out


def _ulp(x, dtype):
    """The spacing of dtype's grid at |x| (finite; the subnormal spacing
    below the smallest normal)."""
    fmt = FORMATS[np.dtype(dtype)]
    e = math.frexp(abs(x))[1] - 1 if x != 0 else fmt.emin
    return math.ldexp(1.0, max(e, fmt.emin) - fmt.p + 1)


def partners(ws, storage, update, rng):
    """One update per weight, of dtype update, aimed at the fast path's
    guards: every exponent difference, exact ties of storage's grid (broken
    by a low part when update is float64), sums crossing a binade, the
    subnormal and overflow edges, random patterns and specials."""
    fmt, ufmt = FORMATS[np.dtype(storage)], FORMATS[np.dtype(update)]
    out = []
    for w in ws:
        kind = int(rng.integers(8))
        finite = math.isfinite(w) and w != 0
        sign = 1.0 if rng.random() < 0.5 else -1.0
        if kind == 0 or not finite:
            v = float(as_float64(random_patterns(update, 1, rng))[0])
        elif kind == 1:      # |u| = |w| 2^-d with random significand bits
            d = int(rng.integers(0, 70))
            e = math.frexp(w)[1] - 1 - d
            m = 1 + int(rng.integers(0, 1 << (ufmt.p - 1))) / (1 << (ufmt.p - 1))
            v = sign * math.ldexp(m, e)
        elif kind == 2:      # an exact tie: half an ulp of w's grid
            v = sign * _ulp(w, storage) / 2
        elif kind == 3:      # a tie broken by a tiny part (float64 only) or not
            v = sign * _ulp(w, storage) / 2
            if np.dtype(update) == FLOAT64:
                v += math.copysign(math.ldexp(abs(w), -int(rng.integers(40, 60))),
                                   rng.random() - 0.5)
        elif kind == 4:      # cancellation down to the subnormals of storage
            v = -w + sign * _ulp(0.0, storage) * int(rng.integers(0, 8))
        elif kind == 5:      # near the overflow threshold
            v = sign * fmt.max_finite * (1 - 2.0 ** -int(rng.integers(1, 12)))
        elif kind == 6:      # a value of storage's own grid nearby
            v = w * (1 + sign * 2.0 ** -int(rng.integers(1, fmt.p + 2)))
        else:
            v = float(rng.choice([0.0, -0.0, math.inf, -math.inf, math.nan]))
        with np.errstate(over="ignore", under="ignore"):
            x = np.array([v]).astype(np.float32 if update == BFLOAT16 else update)
            if update == BFLOAT16:
                x = x.astype(BFLOAT16)
        out.append(x[0])
    return np.array(out, dtype=update)


# ---- cached exact references ---------------------------------------------------

def add_ref(a, b, dtype_name):
    """a + b (Python floats) rounded once to nearest into the dtype
    (round_fraction), cached: the sign bits are part of the key, since
    0.0 == -0.0 would otherwise share an entry."""
    return _add_ref(a, math.copysign(1.0, a), b, math.copysign(1.0, b), dtype_name)


@functools.cache
def _add_ref(a, sign_a, b, sign_b, dtype_name):
    del sign_a, sign_b                  # only part of the key
    return float(ref_add(a, b, BFLOAT16 if dtype_name == "bfloat16" else np.dtype(dtype_name)))


def kahan_ref(w, c, u, dtype):
    """Algorithm 1, each addition through the oracle: (w_new, c_new)."""
    name = _name(dtype)
    y = add_ref(u, -c, name)
    s = add_ref(w, y, name)
    c_new = add_ref(add_ref(s, -w, name), -y, name)
    return s, c_new


def expected_kahan(w, c, u, dtype):
    pairs = [kahan_ref(float(a), float(b), float(x), dtype)
             for a, b, x in zip(w.tolist(), c.tolist(), u.tolist())]
    s = np.array([p[0] for p in pairs], dtype=np.float64)
    c_new = np.array([p[1] for p in pairs], dtype=np.float64)
    return exact_cast(s, dtype), exact_cast(c_new, dtype)


def stochastic_threshold(z, k, dtype):
    """ceil(frac * 2**k) for the exact non-zero finite z: by the documented
    rule, r rounds away from zero exactly when r < this."""
    down, step = neighbours(z, dtype)
    return math.ceil((abs(z) - down) / step * (1 << k))


def expected_stochastic_add(w, u, bits, k, dtype):
    out = []
    for a, b, r in zip(w.tolist(), u.tolist(), bits.tolist()):
        a, b = float(a), float(b)
        zero_sign = -1 if is_neg_zero(a) and is_neg_zero(b) else 1
        out.append(ref_stochastic(exact_or_special(a, b), int(r), k, dtype, zero_sign))
    return np.array(out, dtype=dtype)


def bits_near_threshold(z_values, k, dtype, rng):
    """For each exact sum, r on one side or the other of its threshold (or
    a random r, or an extreme one)."""
    top = (1 << k) - 1
    out = []
    for z in z_values:
        choice = int(rng.integers(6))
        if isinstance(z, float) or z == 0 or choice >= 4:
            r = int(rng.choice([0, 1, top, top - 1, int(rng.integers(0, top + 1))]))
        else:
            r = stochastic_threshold(z, k, dtype) + choice - 2     # t-2 .. t+1
        out.append(min(max(r, 0), top))
    return np.array(out, dtype=np.uint16 if k == 16 else np.uint32)


# ---- kahan_add and kahan_sum (round to nearest) ------------------------------------

@pytest.mark.parametrize("update", [FLOAT32, FLOAT64], ids=_name)
def test_kahan_add_every_bfloat16_weight(update):
    """(bfloat16 updates are float32 values: their loop differs only in the
    load, tested with the random cases below.)"""
    rng = np.random.default_rng(20 + (update == FLOAT64))
    w = all_bfloat16()
    u = partners(as_float64(w).tolist(), BFLOAT16, update, rng)
    # c: zero mostly (the usual start), else a compensation-sized value or anything
    c = np.where(rng.random(w.size) < 0.5, 0.0,
                 np.where(rng.random(w.size) < 0.8,
                          as_float64(w) * 2.0 ** -rng.integers(8, 12, w.size),
                          as_float64(random_patterns(BFLOAT16, w.size, rng))))
    c = c.astype(np.float32).astype(BFLOAT16)    # representable: at most 8 bits
    with np.errstate(all="ignore"):
        got_w, got_c = raw.kahan_add_ufunc(w, c, u)
    exp_w, exp_c = expected_kahan(w, c, u, BFLOAT16)
    check(got_w, exp_w, w, c, u)
    check(got_c, exp_c, w, c, u)


@pytest.mark.parametrize("storage,update", [(BFLOAT16, BFLOAT16), (FLOAT16, FLOAT16),
                                            (FLOAT16, FLOAT32), (FLOAT16, FLOAT64),
                                            (FLOAT32, FLOAT32), (FLOAT32, FLOAT64)],
                         ids=lambda d: _name(d))
def test_kahan_add_random_and_structured(storage, update):
    rng = np.random.default_rng(7)
    n = 8_000
    if storage != FLOAT32:
        w = np.arange(1 << 16, dtype=np.uint16).view(storage)[rng.permutation(1 << 16)[:n]]
    else:
        # every exponent of float32, random significands, specials sometimes
        w = random_patterns(FLOAT32, n, rng)
    u = partners(as_float64(w).tolist(), storage, update, rng)
    with np.errstate(all="ignore"):
        c = np.where(rng.random(n) < 0.5, 0.0,
                     as_float64(w) * 2.0 ** -rng.integers(8, 30, n)).astype(storage)
        got_w, got_c = raw.kahan_add_ufunc(w, c, u)
    exp_w, exp_c = expected_kahan(w, c, u, storage)
    check(got_w, exp_w, w, c, u)
    check(got_c, exp_c, w, c, u)


@pytest.mark.parametrize("dtype", [BFLOAT16, FLOAT16, FLOAT32], ids=_name)
def test_kahan_sum_rows(dtype):
    """Rows of mixed magnitudes, cancellation, subnormals and the odd
    special, folded through the oracle."""
    rng = np.random.default_rng(5)
    fmt = FORMATS[dtype]
    rows, length = 300, 12
    scale = np.exp2(rng.integers(fmt.emin - fmt.p, fmt.emax - 3, (rows, 1)))
    x = rng.standard_normal((rows, length)) * scale * np.exp2(-rng.integers(0, 12, (rows, length)))
    x[::7, 3] = -x[::7, 2]                                  # exact cancellation
    x[::11, 5] = fmt.max_finite                             # overflow in the sum
    x[::13, 1] = rng.choice([np.inf, -np.inf, np.nan], (rows + 12) // 13)
    with np.errstate(all="ignore"):
        a = x.astype(np.float32).astype(dtype) if dtype == BFLOAT16 else x.astype(dtype)
        got = xs.kahan_sum(a, axis=1)
    expected = []
    name = _name(dtype)
    for row in as_float64(a).tolist():
        total, c = -0.0, 0.0
        for v in row:
            y = add_ref(v, -c, name)
            t = add_ref(total, y, name)
            c = add_ref(add_ref(t, -total, name), -y, name)
            total = t
        expected.append(total)
    check(got, exact_cast(np.array(expected), dtype))


def test_kahan_add_strided_in_place_matches_reference():
    """Any strides and out= aliasing the inputs: the same per-element code."""
    rng = np.random.default_rng(8)
    w = random_patterns(BFLOAT16, 3000, rng)[::-3]            # negative stride
    c = np.zeros(2 * w.size, dtype=BFLOAT16)[::2]
    u = partners(as_float64(w).tolist(), BFLOAT16, FLOAT64, rng)
    exp_w, exp_c = expected_kahan(w, c, u, BFLOAT16)
    with np.errstate(all="ignore"):
        raw.kahan_add_ufunc(w, c, u, out=(w, c))
    check(w, exp_w, u)
    check(c, exp_c, u)


# ---- stochastic_add and stochastic_round ------------------------------------------------

@pytest.mark.parametrize("update,k", [(FLOAT32, 32), (FLOAT64, 16)],
                         ids=["float32-u32", "float64-u16"])
def test_stochastic_add_every_bfloat16_weight(update, k):
    rng = np.random.default_rng(30 + k + (update == FLOAT64))
    w = all_bfloat16()
    u = partners(as_float64(w).tolist(), BFLOAT16, update, rng)
    z = [exact_or_special(float(a), float(b)) for a, b in zip(w.tolist(), u.tolist())]
    bits = bits_near_threshold(z, k, BFLOAT16, rng)
    with np.errstate(all="ignore"):
        got = raw.stochastic_add_ufunc(w, u, bits)
    check(got, expected_stochastic_add(w, u, bits, k, BFLOAT16), w, u, bits)


@pytest.mark.parametrize("storage,update", [(BFLOAT16, BFLOAT16), (FLOAT16, FLOAT16),
                                            (FLOAT16, FLOAT64), (FLOAT32, FLOAT32),
                                            (FLOAT32, FLOAT64)],
                         ids=lambda d: _name(d))
@pytest.mark.parametrize("k", [16, 32])
def test_stochastic_add_random_and_structured(storage, update, k):
    rng = np.random.default_rng(40 + k)
    n = 6_000
    w = random_patterns(storage, n, rng)
    u = partners(as_float64(w).tolist(), storage, update, rng)
    z = [exact_or_special(float(a), float(b)) for a, b in zip(w.tolist(), u.tolist())]
    bits = bits_near_threshold(z, k, storage, rng)
    with np.errstate(all="ignore"):
        got = raw.stochastic_add_ufunc(w, u, bits)
    check(got, expected_stochastic_add(w, u, bits, k, storage), w, u, bits)


ROUNDINGS = [(FLOAT32, BFLOAT16), (FLOAT64, BFLOAT16), (FLOAT32, FLOAT16),
             (FLOAT64, FLOAT16), (FLOAT64, FLOAT32)]


def interesting_sources(source, target, rng):
    """x values for the all-r sweeps: ties, quarter points, the neighbours of
    grid points (so rem = 0 with a non-zero part nearby), subnormals of the
    target, the overflow edge, powers of two, zeros and specials."""
    fmt = FORMATS[target]
    grid = [1.0, 1.5, math.ldexp(1.0, fmt.emin), math.ldexp(1.0, fmt.emin - 3),
            math.ldexp(1.0, fmt.emin - fmt.p + 1), fmt.max_finite, math.ldexp(1.0, fmt.emax)]
    xs_ = []
    for g in grid:
        q = _ulp(g, target)
        for frac in (0.0, 0.25, 0.5, 0.75, 1 / 3, 2.0 ** -20, 1 - 2.0 ** -20):
            xs_ += [g + frac * q, -(g + frac * q)]
    xs_ += [0.0, -0.0, math.inf, -math.inf, math.nan]
    xs_ += (rng.standard_normal(4) * 10.0 ** rng.integers(-6, 6, 4)).tolist()
    out = []
    with np.errstate(over="ignore"):
        for v in xs_:
            x = np.array(v, dtype=source)[()]
            if not math.isinf(v) and math.isinf(float(x)):
                continue
            out.append(x)
    return out


@pytest.mark.parametrize("source,target", ROUNDINGS, ids=lambda d: _name(d))
def test_stochastic_round_every_uint16_r(source, target):
    """All 65536 values of r for each x: the result flips from away to down
    exactly at ceil(frac * 2**16), as the rule says (checked against the
    Fraction rule on both sides of the flip and on random r)."""
    rng = np.random.default_rng(9)
    r = np.arange(1 << 16, dtype=np.uint16)
    k = 16
    for x in interesting_sources(source, target, rng):
        with np.errstate(over="ignore"):
            got = xs.stochastic_round(np.full(r.size, x, dtype=source), target, bits=r)
        z = exact_or_special(float(x))
        sign = math.copysign(1.0, float(x))
        ref = functools.partial(ref_stochastic, z, k=k, dtype=target, zero_sign=sign)
        if isinstance(z, float) or z == 0:
            threshold = 0
        else:
            threshold = min(stochastic_threshold(z, k, target), 1 << k)
        away = ref(r=0)
        down = ref(r=(1 << k) - 1)
        expected = np.where(r < threshold, np.array(away, dtype=target),
                            np.array(down, dtype=target))
        check(got, expected, np.full(r.size, x, dtype=source), r)
        for rv in {0, max(threshold - 1, 0), min(threshold, (1 << k) - 1),
                   *rng.integers(0, 1 << k, 16).tolist()}:
            assert_same(got[rv], ref(r=int(rv)), f"x = {float(x)!r}, r = {rv}")


@pytest.mark.parametrize("source,target", ROUNDINGS, ids=lambda d: _name(d))
def test_stochastic_round_uint32_r_around_the_threshold(source, target):
    rng = np.random.default_rng(10)
    k = 32
    xs_, rs = [], []
    for x in interesting_sources(source, target, rng):
        z = exact_or_special(float(x))
        if isinstance(z, float) or z == 0:
            cands = [0, 1, (1 << k) - 1]
        else:
            t = stochastic_threshold(z, k, target)
            cands = [t - 2, t - 1, t, t + 1, 0, (1 << k) - 1]
        for rv in cands:
            xs_.append(x)
            rs.append(min(max(rv, 0), (1 << k) - 1))
    x = np.array(xs_, dtype=source)
    bits = np.array(rs, dtype=np.uint32)
    with np.errstate(over="ignore"):
        got = xs.stochastic_round(x, target, bits=bits)
    expected = [ref_stochastic(exact_or_special(float(v)), int(rv), k, target,
                               zero_sign=math.copysign(1.0, float(v)))
                for v, rv in zip(x.tolist(), rs)]
    check(got, np.array(expected, dtype=target), x, bits)


@pytest.mark.parametrize("target,k", [(BFLOAT16, 16), (FLOAT16, 32)],
                         ids=["bfloat16-u16", "float16-u32"])
def test_stochastic_round_every_float32_exponent_and_sign(target, k):
    """x = every upper 16 bits of a float32 with random low bits: all signs,
    exponents (subnormal, overflow, inf, NaN) and high significands."""
    rng = np.random.default_rng(12)
    high = np.arange(1 << 16, dtype=np.uint32) << 16
    x = (high | rng.integers(0, 1 << 16, high.size, dtype=np.uint32)).view(np.float32)
    bits = rng.integers(0, 1 << k, x.size, dtype=np.uint16 if k == 16 else np.uint32)
    with np.errstate(over="ignore"):
        got = xs.stochastic_round(x, target, bits=bits)
    expected = [ref_stochastic(exact_or_special(v), int(r), k, target,
                               zero_sign=math.copysign(1.0, v))
                for v, r in zip(as_float64(x).tolist(), bits.tolist())]
    check(got, np.array(expected, dtype=target), x, bits)


# ---- IEEE flags: the fast paths raise none, the special cases still do ------------

@pytest.mark.parametrize("storage", [BFLOAT16, FLOAT16, FLOAT32], ids=_name)
def test_flags_only_from_the_special_elements(storage):
    fmt = FORMATS[storage]
    n = 5000                                  # above the GIL-release size
    w = np.linspace(-2, 2, n).astype(np.float32).astype(storage)
    u = np.full(n, 1e-3, dtype=np.float32)
    c = np.zeros(n, dtype=storage)
    bits = np.arange(n, dtype=np.uint32) * 858_993
    with np.errstate(all="raise"):           # inexact steps raise nothing
        raw.kahan_add_ufunc(w, c, u)
        raw.stochastic_add_ufunc(w, u, bits)
        xs.kahan_sum(w)
    big = w.copy()
    big[-1] = exact_cast([fmt.max_finite], storage)[0]
    u_big = u.copy()
    u_big[-1] = fmt.max_finite
    with pytest.warns(RuntimeWarning, match="overflow"):
        got, _ = raw.kahan_add_ufunc(big, c, u_big)
    assert np.isinf(got[-1].astype(np.float64)) and np.array_equal(
        got[:-1].view(UINT_OF_SIZE[got.itemsize]),
        raw.kahan_add_ufunc(w, c, u)[0][:-1].view(UINT_OF_SIZE[got.itemsize]))
    inf_w = w.copy()
    inf_w[0] = exact_cast([math.inf], storage)[0]
    u_inf = u.astype(np.float64)
    u_inf[0] = -math.inf
    with pytest.warns(RuntimeWarning, match="invalid"):
        got = raw.stochastic_add_ufunc(inf_w, u_inf.astype(np.float32), bits)
    assert math.isnan(float(got[0]))
