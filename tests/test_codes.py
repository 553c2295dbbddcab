"""float8, float6 and float4 (ml_dtypes' byte-coded formats): exact sums,
means, dot products and prefix sums of them, and results rounded once into
them, each checked bit for bit against the Fraction oracle, whose rules for
these formats (tests/oracle.py CODE_RULES) come from their specifications.
"""

import math
import warnings
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import CODE_DTYPES, CODE_RULES, FLOAT_DTYPES, exact_sum_oracle, round_fraction
from oracle_moments import var_oracle

import xsumufunc as xs

ALL_CODES = np.arange(256, dtype=np.uint8)
TARGETS = FLOAT_DTYPES + CODE_DTYPES
ids = str


def codes_of(dtype):
    """Every code of the format as an array of it."""
    return ALL_CODES.view(dtype)


def finite_codes_of(dtype):
    """The codes (uint8) of the format's finite values."""
    values = codes_of(dtype)
    return np.flatnonzero(np.isfinite(values.astype(np.float32))).astype(np.uint8)


def quiet_call(func, *args, **kwargs):
    """Overflow into these formats warns by contract; checked separately."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(all="ignore"):
            return func(*args, **kwargs)


# ---- the format table the oracle uses, against ml_dtypes ------------------

@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_oracle_rules_match_the_format(dtype):
    """CODE_RULES is written from the specifications; ml_dtypes must agree on
    the largest value and the smallest subnormal (else one of them is wrong)."""
    rules = CODE_RULES[dtype]
    info = ml_dtypes.finfo(dtype)
    assert Fraction(float(info.max)) == rules.max_finite
    assert Fraction(float(info.smallest_subnormal)) == rules.fmt.min_subnormal
    assert info.nmant + 1 == rules.fmt.p


def test_every_format_is_supported():
    names = {"float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
             "float8_e4m3b11fnuz", "float8_e3m4", "float8_e4m3", "float6_e2m3fn",
             "float6_e3m2fn", "float4_e2m1fn"}
    assert {str(d) for d in CODE_DTYPES} == names
    assert set(CODE_DTYPES) == set(xs._core.dtypes.CODES)


# ---- exhaustive: every code alone, every pair ----------------------------

@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_every_code_alone(dtype):
    """Each code summed alone (a row of length 1) into its own format and
    into float64, and its mean: the oracle for every one of the 256."""
    rows = codes_of(dtype).reshape(256, 1)
    for target in (dtype, np.dtype(np.float64), np.dtype(np.float32)):
        got = quiet_call(xs.exact_sum, rows, axis=1, dtype=target)
        want = [exact_sum_oracle(r.astype(np.float64).tolist(), target) for r in rows]
        assert_same(got, np.array(want, dtype=target), f"{dtype} -> {target}")
    got = quiet_call(xs.exact_mean, rows, axis=1)
    want = [exact_sum_oracle(r.astype(np.float64).tolist(), dtype) for r in rows]
    assert_same(got, np.array(want, dtype=dtype), f"mean {dtype}")


def _pairs(dtype):
    a, b = np.meshgrid(ALL_CODES, ALL_CODES, indexing="ij")
    return np.stack([a.ravel(), b.ravel()], axis=1).view(dtype)


def _oracle_pairs(values, target, mean=False):
    """Oracle of the 65536 pair sums (or means), vectorised over the pairs
    of finite terms with exact integer arithmetic; specials one by one."""
    out = np.empty(len(values), dtype=target)
    for i, (x, y) in enumerate(values.tolist()):
        if math.isfinite(x) and math.isfinite(y):
            total = Fraction(x) + Fraction(y)
            if mean:
                total /= 2
            if total == 0:
                neg = math.copysign(1.0, x) < 0 and math.copysign(1.0, y) < 0
                out[i] = round_fraction(0, target, zero_sign=-1 if neg else 1)
            else:
                out[i] = round_fraction(total, target)
        else:
            out[i] = exact_sum_oracle([x, y], target)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_every_pair(dtype):
    """All 65536 ordered pairs: their sums (every tie of the format is among
    them) into the format itself, and their means."""
    pairs = _pairs(dtype)
    values = pairs.astype(np.float64)
    got = quiet_call(xs.exact_sum, pairs, axis=1)
    assert_same(got, _oracle_pairs(values, dtype), f"pair sums {dtype}")
    got = quiet_call(xs.exact_mean, pairs, axis=1)
    assert_same(got, _oracle_pairs(values, dtype, mean=True), f"pair means {dtype}")


@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_pairs_of_finite_values_sample(dtype):
    """A fast slice of the exhaustive pair test (runs without -m slow):
    every code with the codes of 1, the largest value and the smallest
    subnormal, in both orders."""
    info = ml_dtypes.finfo(dtype)
    partners = np.array([1.0, float(info.max), float(info.smallest_subnormal),
                         -float(info.smallest_subnormal)]).astype(dtype)
    a = np.repeat(codes_of(dtype), len(partners))
    b = np.tile(partners, 256)
    for pair in (np.stack([a, b], 1), np.stack([b, a], 1)):
        got = quiet_call(xs.exact_sum, pair, axis=1)
        assert_same(got, _oracle_pairs(pair.astype(np.float64), dtype), str(dtype))


# ---- rounding into the formats: ties, overflow, zeros ---------------------

@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_every_tie_of_the_grid_goes_to_even(dtype):
    """float64 inputs at every midpoint between neighbouring values of the
    format, and just off it: rounded once into the format."""
    values = np.unique(np.abs(codes_of(dtype).astype(np.float64)))
    values = values[np.isfinite(values)]
    mids = (values[:-1] + values[1:]) / 2        # exact in float64
    for offset in (0.0, 2.0**-40, -(2.0**-40)):
        x = np.concatenate([mids, -mids]) * (1 + offset)
        got = quiet_call(xs.exact_sum, x.reshape(-1, 1), axis=1, dtype=dtype)
        want = np.array([round_fraction(Fraction(v), dtype) for v in x], dtype=dtype)
        assert_same(got, want, f"ties {dtype} offset {offset}")


@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_overflow_follows_the_format(dtype):
    """Beyond the largest value: Inf (e5m2, e4m3, e3m4), NaN (fn, fnuz) or
    the largest value (float6/float4, saturation), with NumPy's overflow
    warning; just below the rounding boundary the largest value stays."""
    rules = CODE_RULES[dtype]
    top = float(rules.max_finite)
    ulp = 2.0 ** (math.floor(math.log2(top)) - rules.fmt.p + 1)
    boundary = top + ulp / 2               # rounds to even: above max unless max is even
    cases = [top, boundary - 2.0**-30, boundary, boundary + 2.0**-30, 2 * top, 1e300]
    for sign in (1.0, -1.0):
        x = sign * np.array(cases)
        want = np.array([round_fraction(Fraction(v), dtype) for v in x], dtype=dtype)
        with np.errstate(over="ignore"):
            got = xs.exact_sum(x.reshape(-1, 1), axis=1, dtype=dtype)
        assert_same(got, want, f"overflow {dtype}")
    with pytest.warns(RuntimeWarning, match="overflow"):
        xs.exact_sum(np.array([2 * top]), dtype=dtype)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        xs.exact_sum(np.array([2 * top]), dtype=dtype)


@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_zero_signs(dtype):
    rules = CODE_RULES[dtype]
    neg = np.array([-0.0, -0.0]).astype(dtype)
    got = xs.exact_sum(neg)
    assert np.signbit(np.float32(got)) == rules.neg_zero
    assert not np.signbit(np.float32(xs.exact_sum(np.array([1.0, -1.0]).astype(dtype))))
    # a tiny negative value rounds to a zero of its sign, where there is one
    tiny = -float(rules.fmt.min_subnormal) / 4
    got = xs.exact_sum(np.array([tiny]), dtype=dtype)
    assert float(got) == 0 and np.signbit(np.float32(got)) == rules.neg_zero


@pytest.mark.parametrize("dtype", [d for d in CODE_DTYPES if CODE_RULES[d].nan], ids=ids)
def test_nan_and_infinities_into_formats_with_nan(dtype):
    for terms in ([np.nan], [np.inf, -np.inf], [np.inf, 1.0], [-np.inf]):
        want = exact_sum_oracle(terms, dtype)
        got = quiet_call(xs.exact_sum, np.array(terms), dtype=dtype)
        assert_same(got, want, f"{terms} -> {dtype}")


@pytest.mark.parametrize("dtype", [d for d in CODE_DTYPES if not CODE_RULES[d].nan], ids=ids)
def test_nan_into_formats_without_nan_warns(dtype):
    """float6/float4 have no NaN: a NaN result is an invalid operation (NumPy
    warns, as when it casts NaN to an integer); infinities saturate with an
    overflow warning."""
    with pytest.warns(RuntimeWarning, match="invalid"):
        xs.exact_sum(np.array([np.nan]), dtype=dtype)
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        xs.exact_sum(np.array([np.nan]), dtype=dtype)
    with pytest.warns(RuntimeWarning, match="overflow"):
        got = xs.exact_sum(np.array([-np.inf]), dtype=dtype)
    assert_same(got, exact_sum_oracle([-np.inf], dtype))


def test_scale_format_is_refused():
    e8m0 = np.dtype(ml_dtypes.float8_e8m0fnu)
    x = np.ones(3, dtype=e8m0)
    with pytest.raises(TypeError, match="float8_e8m0fnu holds scales"):
        xs.exact_sum(x)
    with pytest.raises(TypeError, match="float8_e8m0fnu"):
        xs.exact_sum(np.ones(3), dtype=e8m0)


# ---- hypothesis: sums, means, dots and prefix sums into every target ------

def code_arrays(dtype, max_size=40):
    """Arrays of any codes of dtype, NaN and Inf codes included."""
    return st.lists(st.integers(0, 255), max_size=max_size).map(
        lambda c: np.array(c, dtype=np.uint8).view(dtype))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_sum_and_mean_into_every_target(dtype, data):
    x = data.draw(code_arrays(dtype))
    target = data.draw(st.sampled_from(TARGETS))
    terms = x.astype(np.float64).tolist()
    want = exact_sum_oracle(terms, target)
    assert_same(quiet_call(xs.exact_sum, x, dtype=target), want, f"sum -> {target}")
    finite = [t for t in terms if math.isfinite(t)]
    if terms and len(finite) == len(terms):
        want = round_fraction(sum(map(Fraction, terms)) / len(terms), target,
                              zero_sign=-1 if all(math.copysign(1, t) < 0 for t in terms)
                              else 1)
        assert_same(quiet_call(xs.exact_mean, x, dtype=target), want, f"mean -> {target}")
    nan_free = [t for t in terms if not math.isnan(t)]
    want = exact_sum_oracle(nan_free, target)
    assert_same(quiet_call(xs.exact_nansum, x, dtype=target), want, f"nansum -> {target}")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_prefix_sums_prefix_by_prefix(dtype, data):
    x = data.draw(code_arrays(dtype, max_size=25))
    target = data.draw(st.sampled_from([dtype, np.dtype(np.float32)]))
    terms = x.astype(np.float64).tolist()
    got = quiet_call(xs.exact_add.accumulate, x, dtype=target)
    assert got.dtype == target and got.shape == x.shape
    for k in range(len(terms)):
        assert_same(got[k], exact_sum_oracle(terms[:k + 1], target), f"prefix {k}")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_dot_products(dtype, data):
    """Dot products of finite values of one format, and with another format
    (both widened exactly to float32), rounded once."""
    n = data.draw(st.integers(0, 30))
    other = data.draw(st.sampled_from([dtype] + CODE_DTYPES + [np.dtype(np.float32)]))
    finite = lambda d: st.lists(st.integers(0, 255), min_size=n, max_size=n).map(  # noqa: E731
        lambda c: np.array(c, np.uint8).view(d)).filter(
        lambda a: bool(np.all(np.isfinite(a.astype(np.float32)))))
    a = data.draw(finite(dtype))
    b = data.draw(finite(other)) if other in CODE_RULES else data.draw(
        st.lists(st.floats(-1e4, 1e4, width=32), min_size=n, max_size=n).map(
            lambda v: np.array(v, np.float32)))
    target = dtype if other == dtype else np.dtype(np.float32)
    exact = sum((Fraction(float(p)) * Fraction(float(q)) for p, q in zip(a, b)), Fraction(0))
    neg_zero = n > 0 and exact == 0 and all(
        math.copysign(1, float(p) * float(q)) < 0 for p, q in zip(a, b))
    want = round_fraction(exact, target, zero_sign=-1 if neg_zero else 1)
    assert_same(quiet_call(xs.exact_dot, a, b), want, f"dot {dtype} . {other}")


# ---- the counting kernel: long rows, strides, threads, axes ---------------

def _counted_oracle(x, target):
    """The oracle from code counts: exact for any length (no Fraction per
    element)."""
    counts = np.bincount(x.view(np.uint8).ravel(), minlength=256)
    values = codes_of(x.dtype).astype(np.float64)
    terms = []
    for code in np.flatnonzero(counts):
        terms.append((values[code], int(counts[code])))
    specials = [v for v, _ in terms if not math.isfinite(v)]
    if specials:
        return exact_sum_oracle(specials, target)
    total = sum((Fraction(v) * c for v, c in terms), Fraction(0))
    if total == 0:
        neg = all(math.copysign(1, v) < 0 for v, _ in terms)
        return round_fraction(0, target, zero_sign=-1 if neg and terms else 1)
    return round_fraction(total, target)


@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
@pytest.mark.parametrize("n", [7, 1000, 3 * 2**20 + 5])
def test_long_rows_are_counted_exactly(dtype, n):
    """Rows long enough for the threaded path (2**20 terms), random codes of
    finite values, contiguous and strided."""
    rng = np.random.default_rng(n)
    finite = finite_codes_of(dtype)
    x = rng.choice(finite, size=n).view(dtype)
    for target in (dtype, np.dtype(np.float64)):
        assert_same(quiet_call(xs.exact_sum, x, dtype=target), _counted_oracle(x, target))
    strided = x[::3]
    assert_same(quiet_call(xs.exact_sum, strided, dtype=np.float64),
                _counted_oracle(strided.copy(), np.dtype(np.float64)))


@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_threads_do_not_change_the_result(dtype):
    rng = np.random.default_rng(1)
    x = rng.integers(0, 256, size=2**21 + 3, dtype=np.uint8).view(dtype)
    x = x[np.isfinite(x.astype(np.float32))]
    old = xs.get_num_threads()
    try:
        results = []
        for threads in (1, 2, 3):
            xs.set_num_threads(threads)
            results.append(quiet_call(xs.exact_sum, x, dtype=np.float64))
    finally:
        xs.set_num_threads(old)
    want = _counted_oracle(x, np.dtype(np.float64))
    for r in results:
        assert_same(r, want)


@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_axes_where_keepdims_out(dtype):
    rng = np.random.default_rng(2)
    finite = finite_codes_of(dtype)
    a = rng.choice(finite, size=(4, 5, 6)).view(dtype)
    where = rng.random((4, 5, 6)) < 0.7
    from oracle import oracle_reduce
    for axis in (0, 1, 2, (0, 2), None):
        got = quiet_call(xs.exact_sum, a, axis=axis, where=where, keepdims=True)
        assert_same(got, oracle_reduce(a, axis=axis, where=where, keepdims=True))
    out = np.empty((4, 6), dtype=dtype)
    res = quiet_call(xs.exact_sum, a, axis=1, out=out)
    assert res is out
    assert_same(out, oracle_reduce(a, axis=1))
    # out of another byte-coded format: the exact value is rounded straight into it
    other = CODE_DTYPES[(CODE_DTYPES.index(dtype) + 1) % len(CODE_DTYPES)]
    out = np.empty((4, 6), dtype=other)
    quiet_call(xs.exact_sum, a, axis=1, out=out)
    assert_same(out, oracle_reduce(a, axis=1, dtype=other))


@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_states_merge_to_the_exact_sum(dtype):
    from xsumufunc import state
    rng = np.random.default_rng(3)
    finite = finite_codes_of(dtype)
    x = rng.choice(finite, size=1000).view(dtype)
    parts = [state.exact_sum_state(p) for p in np.array_split(x, 7)]
    merged = state.merge_states(np.stack(parts))
    got = quiet_call(state.round_state, merged, dtype=dtype)
    assert_same(got, _counted_oracle(x, dtype))


@settings(max_examples=30, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_variance_into_the_format(dtype, data):
    """exact_var of float8/float6/float4 values: the exact variance about the
    exact mean, rounded once into the format (its overflow rule included)."""
    x = data.draw(code_arrays(dtype, max_size=20).filter(
        lambda a: bool(np.all(np.isfinite(a.astype(np.float32))))))
    ddof = data.draw(st.sampled_from([0, 1]))
    exact = var_oracle(x.astype(np.float64).tolist(), ddof)
    if exact in ("nan", "inf"):
        want = exact_sum_oracle([math.nan if exact == "nan" else math.inf], dtype)
    else:
        want = round_fraction(exact, dtype)
    assert_same(quiet_call(xs.exact_var, x, ddof=ddof), want)


@pytest.mark.parametrize("dtype", CODE_DTYPES, ids=ids)
def test_array_api_namespace(dtype):
    from xsumufunc import array_api as xp
    rng = np.random.default_rng(4)
    x = rng.choice(finite_codes_of(dtype), size=(3, 50)).view(dtype)
    got = quiet_call(xp.sum, x, axis=1)
    assert_same(np.asarray(got), _oracle_rows(x, dtype))
    got = quiet_call(xp.cumulative_sum, x[0])
    assert got.dtype == dtype
    for k in (0, 17, 49):
        assert_same(np.asarray(got)[k], _counted_oracle(x[0, :k + 1].copy(), dtype))




def _oracle_rows(x, dtype):
    return np.array([_counted_oracle(row.copy(), dtype) for row in x], dtype=dtype)
