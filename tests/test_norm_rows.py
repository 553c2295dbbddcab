"""The one-pass norm loop of src/kernels/dot/xs_norm.c (``_norm_rows_ufunc``): every row
it says it decided is the correctly rounded norm (against the Fraction
oracle), the rows it leaves reach the exact paths of xsumufunc._core.norm,
and vector_norm gives the same bits with and without it."""

import math

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import assume, given
from hypothesis import strategies as st
from oracle import FLOAT32, FLOAT64, FORMATS
from oracle_roots import assert_rounded_sqrt, exact_square_sum
from strategies import float_lists, representable, to_array

from xsumufunc import array_api as xp
from xsumufunc._core import norm as norm_module
from xsumufunc._ufuncs import _norm_rows_ufunc

#: Longest row the loop sums term by term (XS_NORM_MAX_TERMS in
#: src/kernels/dot/xs_norm.h); contiguous float64 rows from SQUARES_MIN_TERMS on, of any
#: length, take the SIMD sum of squares first (XS_NORM_SQUARES_MIN_TERMS).
MAX_TERMS = 1 << 15
SQUARES_MIN_TERMS = 256


def _check_rows(x, norms, decided):
    """Each decided norm of the rows of x against the oracle."""
    for k in np.flatnonzero(decided):
        row = x[k]
        if np.isnan(row).any():
            assert np.isnan(norms[k])
        elif np.isinf(row).any():
            assert norms[k] == math.inf
        else:
            assert_rounded_sqrt(norms[k], exact_square_sum(row), x.dtype)


def _spread(kind, shape, rng, dtype):
    if kind == "normal":
        x = rng.standard_normal(shape)
    elif kind == "lognormal":
        x = rng.choice([-1.0, 1.0], shape) * rng.lognormal(0.0, 3.0, shape)
    else:                                   # exponents over most of the format's range
        top = 60 if dtype == FLOAT32 else 500
        x = np.ldexp(rng.uniform(-2, 2, shape), rng.integers(-top, top, shape))
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32])
@pytest.mark.parametrize("kind", ["normal", "lognormal", "spread"])
@pytest.mark.parametrize("n", [1, 3, 10, 65, 300])
def test_ordinary_rows_are_decided_and_correct(dtype, kind, n):
    """Rows of ordinary data are all decided (a row left undecided is about
    a chance in 2^40), and each is the correctly rounded norm."""
    rng = np.random.default_rng(n)
    x = _spread(kind, (120, n), rng, dtype)
    norms, decided = _norm_rows_ufunc(x)
    assert norms.dtype == dtype and decided.all()
    _check_rows(x, norms, decided)


@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32])
@given(data=st.data())
def test_decided_rows_are_correct(dtype, data):
    """Adversarial rows (ties, cancellation-free squares at the ends of the
    range, subnormals, overflow, NaN and Inf): what the loop decides is
    right, and vector_norm is right for every row, decided or not."""
    fmt = FORMATS[dtype]
    values = data.draw(st.one_of(
        float_lists(dtype),
        st.lists(st.one_of(representable(dtype, qmin=fmt.qmax - 40),
                           representable(dtype, qmax=fmt.qmin + 40), representable(dtype)),
                 max_size=20)))
    x = to_array(values, dtype)[np.newaxis]
    norms, decided = _norm_rows_ufunc(x)
    _check_rows(x, norms, decided)
    got = xp.linalg.vector_norm(x, axis=1)
    if not (np.isnan(x).any() or np.isinf(x).any()):
        assert_rounded_sqrt(got[0], exact_square_sum(x[0]), dtype)


@st.composite
def _ties(draw, dtype):
    """A row whose sum of squares is the square of a midpoint between two
    neighbours of dtype (see test_array_api.norm_ties), and the same row
    with one term nudged by an ulp, which moves the sum of squares off the
    midpoint by a hair."""
    fmt = FORMATS[dtype]
    half = (fmt.p + 1) // 2
    first = draw(st.integers(math.isqrt(1 << (fmt.p - 1)) + 1, math.isqrt((1 << fmt.p) - 1)))
    s = [first] + [draw(st.integers(0, 1 << (half - 4))) for _ in range(3)]
    m = sum(v * v for v in s)
    assume(m.bit_length() == fmt.p)
    u = draw(st.integers(fmt.qmin + 40, fmt.emax - fmt.p - 40))
    return [math.ldexp(m, u), math.ldexp(1, u - 1)] + [math.ldexp(v, u) for v in s]


@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32])
@given(data=st.data())
def test_ties_are_left_to_the_exact_path(dtype, data):
    """An exact tie cannot be decided from an approximation: the loop leaves
    it, and vector_norm rounds it to even.  Nudged rows a hair off the tie
    are either left or decided correctly."""
    values = data.draw(_ties(dtype))
    x = to_array(values, dtype)[np.newaxis]
    norms, decided = _norm_rows_ufunc(x)
    assert not decided[0]
    assert_rounded_sqrt(xp.linalg.vector_norm(x[0]), exact_square_sum(x[0]), dtype)
    nudged = x.copy()
    nudged[0, 0] = np.nextafter(nudged[0, 0], dtype.type(data.draw(st.sampled_from([-1, 1])) * np.inf))
    norms, decided = _norm_rows_ufunc(nudged)
    _check_rows(nudged, norms, decided)
    assert_rounded_sqrt(xp.linalg.vector_norm(nudged[0]), exact_square_sum(nudged[0]), dtype)


@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32])
def test_strides_byte_order_and_alignment(dtype):
    """Strided rows, columns (a transposed array), unaligned and byte-swapped
    data give the bits of the contiguous rows."""
    rng = np.random.default_rng(3)
    x = _spread("lognormal", (50, 24), rng, dtype)
    want_norms, want_decided = _norm_rows_ufunc(np.ascontiguousarray(x[:, ::3]))
    assert want_decided.all()
    _check_rows(np.ascontiguousarray(x[:, ::3]), want_norms, want_decided)
    for view in (x[:, ::3], np.asfortranarray(x)[:, ::3],
                 np.ascontiguousarray(x[:, ::3].T).T):
        norms, decided = _norm_rows_ufunc(view)
        assert decided.all() and norms.tobytes() == want_norms.tobytes()
    raw = np.zeros(x[:, ::3].nbytes + 1, np.uint8)
    unaligned = raw[1:].view(dtype).reshape(50, 8)
    unaligned[...] = x[:, ::3]
    assert not unaligned.flags.aligned
    norms, decided = _norm_rows_ufunc(unaligned)
    assert decided.all() and norms.tobytes() == want_norms.tobytes()
    swapped = x[:, ::3].astype(dtype.newbyteorder())
    got = xp.linalg.vector_norm(swapped, axis=1)
    assert got.astype(dtype).tobytes() == want_norms.tobytes()


def test_flags_of_the_loop_do_not_leak():
    """Scaling rows of tiny values, squaring them and checking results that
    do not fit raise underflow and overflow inside the loop; the loop puts
    the flags back, so that errstate(all='raise') sees nothing."""
    x = np.array([[1.0, 2.0**-1070, 5e-324], [1.7976931348623157e308, 1e308, 1.0],
                  [3e-310, 2.0**-1022, 0.0], [1.0, 1.0, 1.0]])
    with np.errstate(all="raise"):
        norms, decided = _norm_rows_ufunc(x)
        norms32, decided32 = _norm_rows_ufunc(np.array([[3e38, 3e38], [1e-45, 1e-40]],
                                                       np.float32))
    assert decided.tolist() == [True, False, True, True]      # the 2nd overflows
    assert not decided32.any()
    _check_rows(x, norms, decided)


@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32])
def test_rows_beyond_the_longest_are_left_unless_contiguous(dtype):
    x = np.zeros((1, 2 * (MAX_TERMS + 1)), dtype)
    x[0, -1] = 3.0
    x[0, -2] = 0.5
    strided = x[:, ::2]                                  # MAX_TERMS + 1 terms
    norms, decided = _norm_rows_ufunc(strided)
    assert not decided[0]
    norms, decided = _norm_rows_ufunc(strided[:, 1:])    # the longest summed term by term
    assert decided[0]
    assert_rounded_sqrt(norms[0], exact_square_sum(strided[0, 1:]), dtype)
    norms, decided = _norm_rows_ufunc(x)                 # contiguous: any length
    assert decided[0]
    assert_rounded_sqrt(norms[0], exact_square_sum(x[0]), dtype)


@pytest.mark.parametrize("kind", ["normal", "lognormal", "wide", "tiny", "huge", "exact",
                                  "subnormal", "nan", "inf", "f32_normal", "f32_lognormal",
                                  "f32_subnormal", "f32_tie", "subnormal_most"])
@pytest.mark.parametrize("n", [SQUARES_MIN_TERMS - 1, SQUARES_MIN_TERMS, 5000, MAX_TERMS + 7,
                               100_003])
def test_long_contiguous_rows_through_the_sum_of_squares(kind, n):
    """Long contiguous float64 rows: the SIMD two-double sum of squares and
    the root decision, or left to the exact path (values beyond its range,
    a root on a midpoint), each decided norm the correctly rounded root of
    the exact sum of squares; vector_norm gives the same bits either way."""
    rng = np.random.default_rng(n)
    dtype = FLOAT32 if kind.startswith("f32_") else FLOAT64
    if kind == "f32_normal":
        x = rng.standard_normal(n).astype(np.float32)
    elif kind == "f32_lognormal":
        x = (rng.lognormal(0.0, 3.0, n) * rng.choice([-1.0, 1.0], n)).astype(np.float32)
    elif kind == "f32_subnormal":
        x = (rng.standard_normal(n) * 2.0**-135).astype(np.float32)     # subnormal float32s
    elif kind == "f32_tie":
        x = np.zeros(n, np.float32)                      # squares 2^24 + 1: the root a
        x[0], x[1] = 2.0**12, 1.0                        # quarter ulp above 2^12
    elif kind == "normal":
        x = rng.standard_normal(n)
    elif kind == "lognormal":
        x = rng.lognormal(0.0, 3.0, n) * rng.choice([-1.0, 1.0], n)
    elif kind == "wide":
        x = rng.standard_normal(n) * np.ldexp(1.0, rng.integers(-400, 400, n))
    elif kind == "tiny":
        x = rng.standard_normal(n) * 2.0**-600          # squares below its range
    elif kind == "huge":
        x = rng.standard_normal(n) * 2.0**600           # squares overflow
    elif kind == "subnormal":
        x = rng.standard_normal(n) * 2.0**-1060          # subnormal values, norm too
        x[7] = 2.0**-1000
    elif kind == "subnormal_most":
        # Subnormal values beside one normal one: scaled up to be summed (a
        # scale that must not read them as 0 first: the fuzz found it).
        x = rng.integers(1, 2**40, n) * 5e-324
        x[n // 3] = 2.0**-1022
    elif kind in ("nan", "inf"):
        x = rng.standard_normal(n) * 2.0**300
        x[n // 2] = np.nan if kind == "nan" else -np.inf
    else:
        x = np.zeros(n)                                  # 3^2 + 4^2 + (2^-1074)^2: a
        x[:2] = [3.0, 4.0]                               # hair above 25, whose root 5
        x[-1] = 5e-324                                   # is the norm
    with np.errstate(all="ignore"):
        norms, decided = _norm_rows_ufunc(x[np.newaxis])
        got = xp.linalg.vector_norm(x)
    if kind in ("normal", "lognormal", "wide", "huge", "nan", "inf", "f32_normal",
                "f32_lognormal") and n >= SQUARES_MIN_TERMS:
        assert decided[0]
    if kind in ("nan", "inf"):
        expected = np.float64(np.nan if kind == "nan" else np.inf)
        assert_same(got, expected)
        if decided[0]:
            assert_same(norms[0], expected)
        return
    if decided[0]:
        assert_rounded_sqrt(norms[0], exact_square_sum(x), dtype)
    assert_rounded_sqrt(got, exact_square_sum(x), dtype)


@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32])
@given(data=st.data())
def test_vector_norm_with_and_without_the_loop(dtype, data):
    """Many rows through vector_norm give the same bits with the loop and
    with the exact paths alone (NATIVE_ROWS off), each the oracle's."""
    n = data.draw(st.integers(1, 12))
    rows = data.draw(st.lists(st.lists(representable(dtype), min_size=n, max_size=n),
                              min_size=1, max_size=6))
    x = np.stack([to_array(r, dtype) for r in rows])
    with np.errstate(all="ignore"):
        with_loop = xp.linalg.vector_norm(x, axis=1)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(norm_module, "NATIVE_ROWS", False)
            without = xp.linalg.vector_norm(x, axis=1)
    assert with_loop.tobytes() == without.tobytes()
    for k in range(len(x)):
        assert_rounded_sqrt(with_loop[k], exact_square_sum(x[k]), dtype)
