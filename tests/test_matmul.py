"""exact_matmul against the exact dot oracle, entry by entry and bit for bit:
through the sliced GEMMs (thresholds lowered so that small products take
them, chunks and blocks made small) and through the exact dots."""

import math

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle_products import exact_dot_oracle
from strategies import representable

from xsumufunc import exact_matmul
from xsumufunc._core import matmul as core

F64 = np.dtype(np.float64)

FINITE = st.one_of(
    representable(F64, qmin=-200, qmax=200),
    representable(F64),
    st.integers(-3, 3).map(float),
    st.sampled_from([1e8 + 0.5, 1e8 - 1.0, 1e154, -1e154, 1e-160, 2.0**-1074, 1e300]),
)
VALUES = st.one_of(*[FINITE] * 8, st.sampled_from([math.inf, -math.inf, math.nan]))


def oracle(a, b, dtype):
    n, m = a.shape[0], b.shape[1]
    out = np.empty((n, m), dtype)
    for i in range(n):
        for j in range(m):
            out[i, j] = exact_dot_oracle(a[i].tolist(), b[:, j].tolist(), dtype)
    return out


@pytest.fixture(params=["sliced", "chunked", "dots"])
def path(request, monkeypatch):
    """Force the sliced path for small products (and, for 'chunked', chunks of
    the inner dimension and blocks of rows and columns), or the exact dots."""
    if request.param == "dots":
        monkeypatch.setattr(core, "_MIN_SIDE", 1 << 30)
    else:
        monkeypatch.setattr(core, "_MIN_WORK", 0)
        monkeypatch.setattr(core, "_MIN_SIDE", 1)
    if request.param == "chunked":
        monkeypatch.setattr(core, "K_CHUNK", 3)
        monkeypatch.setattr(core, "SCRATCH_BYTES", 200)
    return request.param


@st.composite
def operands(draw, values=VALUES):
    n, k, m = (draw(st.integers(1, 5)) for _ in range(3))
    a = np.array([draw(values) for _ in range(n * k)], F64).reshape(n, k)
    b = np.array([draw(values) for _ in range(k * m)], F64).reshape(k, m)
    if draw(st.booleans()):
        # Products that cancel: the columns of b against rows of a made from them.
        a[0] = b[:, 0] * draw(st.sampled_from([1.0, -1.0, 0.5]))
    return a, b


# The fixture only sets module constants, the same for every example.
_FIXTURE_OK = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@_FIXTURE_OK
@given(operands())
def test_every_entry_is_the_rounded_exact_dot(path, ab):
    a, b = ab
    assert_same(exact_matmul(a, b), oracle(a, b, F64))


@_FIXTURE_OK
@given(operands(values=st.one_of(representable(np.dtype(np.float32)),
                                  st.floats(-2, 2, width=32), st.integers(-3, 3).map(float))))
def test_float32_rounds_once_into_float32(path, ab):
    a, b = (x.astype(np.float32) for x in ab)          # exact: float32 values
    assert_same(exact_matmul(a, b), oracle(a, b, np.float32))


def test_normal_data_through_the_slices(monkeypatch):
    rng = np.random.default_rng(3)
    for dist in ("normal", "lognormal", "offset"):
        if dist == "normal":
            a, b = rng.standard_normal((24, 50)), rng.standard_normal((50, 20))
        elif dist == "lognormal":
            a, b = rng.lognormal(0, 3, (24, 50)), rng.lognormal(0, 3, (50, 20))
        else:
            a, b = 1e8 + rng.standard_normal((24, 50)), rng.standard_normal((50, 20))
        monkeypatch.setattr(core, "_MIN_WORK", 0)
        calls = []
        original = core._exact_entries
        monkeypatch.setattr(core, "_exact_entries",
                            lambda *args: calls.append(len(args[2])) or original(*args))
        assert_same(exact_matmul(a, b), oracle(a, b, F64))
        # The slices decide nearly every entry (the exact dots take the rest).
        assert sum(calls) < a.shape[0] * b.shape[1] // 10


def test_integers_are_exact():
    a = np.array([[2**62 + 1, 3], [-(2**63), 1]], np.int64)
    b = np.array([[1, 2**60], [7, -1]], np.int64)
    assert_same(exact_matmul(a, b), oracle(a, b, F64))
    assert_same(exact_matmul(np.zeros((2, 2), int), np.ones((2, 2), int)), np.zeros((2, 2)))


def test_complex_and_bfloat16_operands():
    a = np.array([[1 + 2j, 1e16], [3j, 1.0]])
    b = np.array([[1j, 1.0], [1.0, -1e16]])
    # exact_dot_oracle conjugates its first operand, as exact_dot does.
    expected = np.array([[exact_dot_oracle(np.conj(a[i]).tolist(), b[:, j].tolist(),
                                           np.complex128) for j in range(2)]
                         for i in range(2)])
    assert_same(exact_matmul(a, b), expected)
    import ml_dtypes
    x = np.array([[1.5, 3.0], [0.1, 2.0]], ml_dtypes.bfloat16)
    assert_same(exact_matmul(x, x), oracle(x, x, ml_dtypes.bfloat16))


def test_matmul_shapes_and_broadcasting(path):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 1, 3, 4))
    b = rng.standard_normal((5, 4, 2))
    got = exact_matmul(a, b)
    assert got.shape == (2, 5, 3, 2)
    for i in range(2):
        for j in range(5):
            assert_same(got[i, j], oracle(a[i, 0], b[j], F64))
    v = rng.standard_normal(4)
    assert_same(exact_matmul(v, b[0]), oracle(v[None], b[0], F64)[0])
    assert_same(exact_matmul(a[0, 0], v), oracle(a[0, 0], v[:, None], F64)[:, 0])
    assert_same(exact_matmul(v, v), oracle(v[None], v[:, None], F64)[0, 0])
    assert_same(exact_matmul(np.ones((3, 0)), np.ones((0, 2))), np.zeros((3, 2)))


@pytest.mark.parametrize("scratch", [core.SCRATCH_BYTES, 1000])
def test_gram_matrix_by_dots_is_symmetric_and_exact(scratch, monkeypatch):
    # (A small scratch takes the inner dimension in chunks of exact states.)
    monkeypatch.setattr(core, "SCRATCH_BYTES", scratch)
    rng = np.random.default_rng(6)
    x = 1e8 + rng.standard_normal((500, 3))
    x[7, 1] = 1e300
    assert_same(exact_matmul(x.T, x), oracle(x.T, x, F64))
    y = rng.standard_normal((500, 2))
    assert_same(exact_matmul(x.T, y), oracle(x.T, y, F64))


def test_errors():
    with pytest.raises(ValueError, match="at least one dimension"):
        exact_matmul(np.float64(1.0), np.ones(2))
    with pytest.raises(ValueError, match="columns but b has"):
        exact_matmul(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="do not broadcast"):
        exact_matmul(np.ones((2, 2, 3)), np.ones((3, 3, 2)))
    with pytest.raises(TypeError):
        exact_matmul(np.array(["a"]), np.ones(1))


def test_slice_bits_keep_every_partial_sum_below_2_53():
    for k in (1, 2, 3, 1000, 1024, 1025, 8192, 10**6):
        beta = core.slice_bits(k)
        assert k * 2 ** (2 * beta) <= 2**53 < k * 2 ** (2 * beta + 2)


def test_scratch_is_bounded():
    """Output + 64 MiB beyond the inputs (issue 32): slices, result blocks
    and widened float32 blocks stay within it; no copy of a view."""
    import tracemalloc

    rng = np.random.default_rng(8)
    for dtype in (np.float64, np.float32):
        a = rng.standard_normal((700, 900)).astype(dtype)
        b = rng.standard_normal((1800, 800)).astype(dtype)[::2, ::2]      # a strided view
        tracemalloc.start()
        try:
            got = exact_matmul(a, b)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak <= got.nbytes + (64 << 20)
        rows = rng.integers(0, 700, 5)
        cols = rng.integers(0, 400, 5)
        for i, j in zip(rows, cols):
            assert_same(got[i, j], exact_dot_oracle(a[i].tolist(), b[:, j].tolist(),
                                                    np.dtype(dtype)))


def test_byte_swapped_and_strided_operands(path):
    rng = np.random.default_rng(9)
    a = rng.standard_normal((5, 7)) * np.exp(rng.standard_normal((5, 7)) * 30)
    b = rng.standard_normal((7, 4))
    for x, y in ((a.astype(">f8"), b), (a, b.astype(">f8")), (a[:, ::-1], b[::-1]),
                 (a.astype(">f4"), b.astype(np.float32))):
        dtype = np.float32 if x.dtype.itemsize == 4 else F64
        assert_same(exact_matmul(x, y), oracle(x, y, np.dtype(dtype)))
