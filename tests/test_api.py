"""API surface: errors, argument handling, return types, pickling, huge
zero-stride input."""

import os
import pickle
import subprocess
import sys
import textwrap
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from helpers import assert_same, check_out_untouched, dtype_names, skip_under_asan
from numpy.exceptions import AxisError
from oracle import (
    BFLOAT16,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    FLOAT_DTYPES,
    exact_sum_oracle,
    oracle_reduce,
    round_fraction,
)

import xsumufunc as xs

# ---------------------------------------------------------------------------
# Unsupported input dtypes


def _bad_arrays():
    return [
        ("object", np.array([1.0, 2.0], dtype=object)),
        ("str", np.array(["a", "bc"])),
        ("bytes", np.array([b"a", b"bc"])),
        ("datetime64", np.array(["2020-01-01", "2021-01-01"], dtype="datetime64[D]")),
        ("timedelta64", np.array([1, 2], dtype="timedelta64[s]")),
        ("structured", np.zeros(3, dtype=[("a", "f8"), ("b", "i4")])),
        ("longdouble", np.array([1.0, 2.0], dtype=np.longdouble)),
        ("clongdouble", np.array([1.0, 2.0], dtype=np.clongdouble)),
    ]


REDUCERS = {
    "exact_sum": lambda a: xs.exact_sum(a),
    "exact_sum_axis0": lambda a: xs.exact_sum(a, axis=0),
    "exact_nansum": lambda a: xs.exact_nansum(a),
    "exact_add.reduce": lambda a: xs.exact_add.reduce(a),
    "exact_add.accumulate": lambda a: xs.exact_add.accumulate(a),
    "exact_add.reduceat": lambda a: xs.exact_add.reduceat(a, [0]),
}


@pytest.mark.parametrize("func", list(REDUCERS), ids=str)
@pytest.mark.parametrize("kind,arr", _bad_arrays(), ids=[k for k, _ in _bad_arrays()])
def test_unsupported_input_dtype_raises_typeerror_naming_it(func, kind, arr):
    if kind in ("longdouble", "clongdouble") and np.dtype(np.longdouble) == np.dtype(np.float64):
        pytest.skip("longdouble is float64 on this platform (supported dtype)")
    with pytest.raises(TypeError) as info:
        REDUCERS[func](arr)
    msg = str(info.value).lower()
    assert any(n in msg for n in dtype_names(arr.dtype)), (
        f"message {str(info.value)!r} does not name {arr.dtype!r}")


@pytest.mark.parametrize("kind,arr", _bad_arrays(), ids=[k for k, _ in _bad_arrays()])
def test_unsupported_input_dtype_raw_gufunc(kind, arr):
    if kind in ("longdouble", "clongdouble") and np.dtype(np.longdouble) == np.dtype(np.float64):
        pytest.skip("longdouble is float64 on this platform (supported dtype)")
    with pytest.raises(TypeError):
        xs.exact_sum_ufunc(arr)


@pytest.mark.parametrize("bad", [np.int32, np.int64, np.uint8, np.bool_, np.longdouble, object],
                         ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("func", ["exact_sum", "exact_nansum", "reduce", "accumulate"])
def test_unsupported_result_dtype(func, bad):
    if np.dtype(bad) == np.dtype(np.float64):
        pytest.skip("longdouble is float64 on this platform")
    a = np.array([1.0, 2.0, 3.0])
    f = {"exact_sum": xs.exact_sum, "exact_nansum": xs.exact_nansum,
         "reduce": xs.exact_add.reduce, "accumulate": xs.exact_add.accumulate}[func]
    with pytest.raises(TypeError):
        f(a, dtype=bad)


def test_unsupported_result_dtype_for_integer_input():
    with pytest.raises(TypeError):
        xs.exact_sum(np.array([1, 2, 3]), dtype=np.int32)


# ---------------------------------------------------------------------------
# Axis errors


@pytest.mark.parametrize("shape,axis", [
    ((3,), 1), ((3,), -2), ((3,), (0, 0)), ((3, 4), 2), ((3, 4), -3),
    ((3, 4), (0, 0)), ((3, 4), (1, -1)), ((3, 4), (0, -2)), ((2, 3, 4), (0, 3)),
    ((), 0),
])
@pytest.mark.parametrize("func", ["exact_sum", "exact_nansum", "reduce"])
def test_bad_axis_raises_axiserror(func, shape, axis):
    a = np.ones(shape)
    f = {"exact_sum": xs.exact_sum, "exact_nansum": xs.exact_nansum,
         "reduce": xs.exact_add.reduce}[func]
    with pytest.raises(AxisError):
        f(a, axis=axis)


@pytest.mark.parametrize("shape,axis", [((3,), 1), ((3,), -2), ((3, 4), 2)])
def test_bad_axis_accumulate_reduceat(shape, axis):
    a = np.ones(shape)
    with pytest.raises(AxisError):
        xs.exact_add.accumulate(a, axis=axis)
    with pytest.raises(AxisError):
        xs.exact_add.reduceat(a, [0], axis=axis)


# ---------------------------------------------------------------------------
# out with the wrong shape: ValueError, out untouched


@pytest.mark.parametrize("out_shape", [(3,), (5,), (2, 4), (4, 1), (1, 4), ()])
@pytest.mark.parametrize("out_dtype", [np.float64, np.float32])
def test_out_wrong_shape_exact_sum(out_shape, out_dtype):
    a = np.arange(12.0).reshape(3, 4)  # axis=0 result has shape (4,)
    out = np.full(out_shape, 1.25, dtype=out_dtype)
    check_out_untouched(lambda o: xs.exact_sum(a, axis=0, out=o), out)
    out = np.full(out_shape, 1.25, dtype=out_dtype)
    check_out_untouched(lambda o: xs.exact_nansum(a, axis=0, out=o), out)
    out = np.full(out_shape, 1.25, dtype=out_dtype)
    check_out_untouched(lambda o: xs.exact_add.reduce(a, out=o), out)


def test_out_wrong_shape_full_and_keepdims():
    a = np.arange(12.0).reshape(3, 4)
    check_out_untouched(lambda o: xs.exact_sum(a, out=o), np.full((2,), 3.5))
    check_out_untouched(lambda o: xs.exact_sum(a, axis=1, keepdims=True, out=o), np.full((3,), 3.5))
    check_out_untouched(lambda o: xs.exact_sum(a, axis=1, out=o), np.full((3, 1), 3.5))


def test_out_wrong_shape_accumulate_reduceat():
    a = np.arange(12.0).reshape(3, 4)
    check_out_untouched(lambda o: xs.exact_add.accumulate(a, out=o), np.full((3, 3), 3.5))
    check_out_untouched(lambda o: xs.exact_add.accumulate(a, out=o), np.full((12,), 3.5))
    check_out_untouched(lambda o: xs.exact_add.reduceat(a, [0, 2], out=o), np.full((3, 4), 3.5))
    check_out_untouched(lambda o: xs.exact_add.reduceat(a[0], [0, 2], out=o), np.full((3,), 3.5))


# ---------------------------------------------------------------------------
# 0-d input, Python lists and scalars, return types


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_zero_d_input(dtype):
    for v in (1.5, -0.0, 0.0, float("inf"), float("nan")):
        a = np.array(v, dtype=np.float64).astype(np.float32).astype(dtype)
        r = xs.exact_sum(a)
        assert isinstance(r, np.generic)
        assert_same(r, a[()])
        assert_same(xs.exact_sum(a[()]), a[()])
        assert_same(xs.exact_nansum(a), a[()] if v == v else np.zeros((), dtype)[()])


def test_zero_d_int_and_complex():
    assert_same(xs.exact_sum(np.array(7, dtype=np.int64)), np.float64(7.0))
    assert_same(xs.exact_sum(np.int8(-3)), np.float64(-3.0))
    assert_same(xs.exact_sum(np.complex64(complex(-0.0, 1.5))), np.complex64(complex(-0.0, 1.5)))


def test_python_lists_and_scalars():
    assert_same(xs.exact_sum([0.1, 0.2, 0.3]), exact_sum_oracle([0.1, 0.2, 0.3], FLOAT64))
    assert_same(xs.exact_sum([0.1, 0.2, -0.3]), exact_sum_oracle([0.1, 0.2, -0.3], FLOAT64))
    assert_same(xs.exact_sum([1, 2**62, 2**62]), np.float64(2.0**63))
    assert_same(xs.exact_sum([[1.0, 2.0], [3.0, 4.0]], axis=1), np.array([3.0, 7.0]))
    assert_same(xs.exact_sum([[1e100, 1.0], [-1e100, 1.0]], axis=0), np.array([0.0, 2.0]))
    assert_same(xs.exact_sum((1e308, 1e308, -1e308)), np.float64(1e308))
    assert_same(xs.exact_sum(3), np.float64(3.0))
    assert_same(xs.exact_sum(2.5), np.float64(2.5))
    assert_same(xs.exact_sum(-0.0), np.float64(-0.0))
    assert_same(xs.exact_sum(True), np.float64(1.0))
    assert_same(xs.exact_sum([]), np.float64(0.0))
    assert_same(xs.exact_sum([True, True, False]), np.float64(2.0))
    assert_same(xs.exact_sum([1j, 2.0]), np.complex128(2 + 1j))
    assert_same(xs.exact_nansum([float("nan"), 1.0]), np.float64(1.0))
    assert_same(xs.exact_add.reduce([1e100, 1.0, -1e100]), np.float64(1.0))
    assert_same(xs.exact_add.accumulate([1e100, 1.0, -1e100]), np.array([1e100, 1e100, 1.0]))
    assert_same(xs.exact_add.reduceat([1e100, 1.0, -1e100, 4.0], [0, 3]), np.array([1.0, 4.0]))
    assert_same(xs.exact_sum_ufunc([1e100, 1.0, -1e100]), np.float64(1.0))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [np.dtype(np.complex64), np.dtype(np.complex128)],
                         ids=str)
def test_return_types(dtype):
    a = np.ones((3, 4), dtype=dtype)
    r = xs.exact_sum(a)
    assert isinstance(r, np.generic) and not isinstance(r, np.ndarray)
    assert type(r) is np.dtype(dtype).type
    r = xs.exact_sum(a[0])
    assert type(r) is np.dtype(dtype).type
    r = xs.exact_sum(a, axis=0)
    assert isinstance(r, np.ndarray) and r.shape == (4,) and r.dtype == dtype
    r = xs.exact_sum(a, keepdims=True)
    assert isinstance(r, np.ndarray) and r.shape == (1, 1)
    r = xs.exact_sum(a, axis=1, keepdims=True)
    assert isinstance(r, np.ndarray) and r.shape == (3, 1)
    r = xs.exact_sum(a, axis=(0, 1))
    assert type(r) is np.dtype(dtype).type
    r = xs.exact_sum(a, axis=())
    assert isinstance(r, np.ndarray) and r.shape == (3, 4)
    assert_same(r, a)
    r = xs.exact_nansum(a)
    assert type(r) is np.dtype(dtype).type
    r = xs.exact_add.reduce(a)
    assert isinstance(r, np.ndarray) and r.shape == (4,)
    r = xs.exact_add.reduce(a[0])
    assert type(r) is np.dtype(dtype).type
    out = np.zeros(4, dtype=dtype)
    assert xs.exact_sum(a, axis=0, out=out) is out
    assert_same(out, np.full(4, 3, dtype=dtype))
    out0 = np.zeros((), dtype=dtype)
    assert xs.exact_sum(a, out=out0) is out0
    assert_same(out0, np.full((), 12, dtype=dtype))


def test_return_types_int_and_bool():
    for dt in (np.int8, np.int64, np.uint64, np.bool_):
        a = np.ones((2, 3), dtype=dt)
        assert type(xs.exact_sum(a)) is np.float64
        assert xs.exact_sum(a, axis=1).dtype == np.float64
        assert type(xs.exact_sum(a, dtype=np.float32)) is np.float32
        assert type(xs.exact_sum(a, dtype=BFLOAT16)) is ml_dtypes.bfloat16


def test_bfloat16_scalar_type():
    r = xs.exact_sum(np.array([1.0, 2.0], dtype=BFLOAT16))
    assert type(r) is ml_dtypes.bfloat16
    assert_same(r, np.array(3.0, dtype=np.float32).astype(BFLOAT16)[()])


def test_out_dtype_sets_rounding_without_dtype():
    a = np.array([1.0, 2.0**-24, 2.0**-80])
    for target, exp in [
        (FLOAT32, np.float32(1.0000001)),
        (FLOAT16, np.float16(1.0)),
        (BFLOAT16, np.array(1.0, np.float32).astype(BFLOAT16)[()]),
        (FLOAT64, np.float64(1 + 2.0**-24)),
    ]:
        out = np.full((), 9, dtype=target)
        assert xs.exact_sum(a, out=out) is out
        assert_same(out[()], exp)


def test_keepdims_values():
    a = np.array([[1e100, 1.0, -1e100], [2.0**-1074, -0.0, 2.0**-1074]])
    assert_same(xs.exact_sum(a, axis=1, keepdims=True), np.array([[1.0], [2.0**-1073]]))
    assert_same(xs.exact_sum(a, axis=0, keepdims=True), oracle_reduce(a, axis=0, keepdims=True))
    assert_same(xs.exact_sum(a, keepdims=True), np.array([[1.0]]))


def test_empty_axes():
    a = np.zeros((0, 3))
    assert_same(xs.exact_sum(a, axis=0), np.zeros(3))
    assert_same(xs.exact_sum(a, axis=1), np.zeros(0))
    assert_same(xs.exact_sum(a), np.float64(0.0))
    assert_same(xs.exact_sum(np.zeros((0, 3), dtype=np.float16), axis=0, dtype=np.float32),
                np.zeros(3, dtype=np.float32))
    assert_same(xs.exact_sum(-np.zeros((0, 3))), np.float64(0.0))


@pytest.mark.parametrize("shape,axis,expected_shape", [
    ((2, 0, 3), (0, 1), (3,)),
    ((1, 1, 0), (0, 1), (0,)),
    ((0, 0, 0), (0, 1), (0,)),
    ((0, 2, 0), (1, 2), (0,)),
    ((3, 0, 4), (0, 2), (0,)),
])
@pytest.mark.parametrize("dtype", [np.float64, BFLOAT16], ids=str)
def test_empty_multi_axis(shape, axis, expected_shape, dtype):
    a = np.zeros(shape, dtype=dtype)
    expected = np.zeros(expected_shape, dtype=dtype)
    assert_same(xs.exact_sum(a, axis=axis), expected)
    assert_same(xs.exact_nansum(a, axis=axis), expected)
    assert_same(xs.exact_sum(a, axis=axis), oracle_reduce(a, axis=axis))


# ---------------------------------------------------------------------------
# ufunc object, names, exact_add(x, y)


def test_exact_sum_ufunc_is_a_picklable_gufunc():
    u = xs.exact_sum_ufunc
    assert isinstance(u, np.ufunc)
    assert u.signature is not None
    assert u.signature.replace(" ", "") == "(n)->()"
    assert pickle.loads(pickle.dumps(u)) is u
    for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(u, protocol=proto)) is u


def test_exact_sum_ufunc_axis_and_mixed_loops():
    a = np.array([[1e100, 1.0, -1e100], [1.0, 2.0**-24, 2.0**-80]])
    assert_same(xs.exact_sum_ufunc(a), np.array([1.0, 1.0 + 2.0**-24]))
    assert_same(xs.exact_sum_ufunc(a, dtype=np.float32),
                np.array([1.0, 1.0000001], dtype=np.float32))
    assert_same(xs.exact_sum_ufunc(a.T, axis=0), np.array([1.0, 1.0 + 2.0**-24]))
    out = np.zeros(2)
    assert xs.exact_sum_ufunc(a, out=out) is out
    assert_same(out, np.array([1.0, 1.0 + 2.0**-24]))


def test_functions_are_picklable_and_named():
    assert xs.exact_sum.__name__ == "exact_sum"
    assert xs.exact_nansum.__name__ == "exact_nansum"
    assert pickle.loads(pickle.dumps(xs.exact_sum)) is xs.exact_sum
    assert pickle.loads(pickle.dumps(xs.exact_nansum)) is xs.exact_nansum
    assert callable(xs.exact_add.reduce)
    assert callable(xs.exact_add.accumulate)
    assert callable(xs.exact_add.reduceat)


@pytest.mark.parametrize("x,y", [
    (np.array([1.0, 2.0, -0.0]), np.array([3.0, 1e-300, -0.0])),
    (np.array([1e308]), np.array([1e308])),
    (np.array([1, 2], dtype=np.int64), np.array([3.5, 4.0])),
    (np.array([1, 2], dtype=np.int32), np.array([3, 2**31 - 1], dtype=np.int32)),
    (np.array([1.0, 2.0], dtype=np.float32), 0.1),
    (np.arange(6.0).reshape(2, 3), np.array([1.0, np.nan, np.inf])),
    (np.array([1.5], dtype=np.float16), np.array([2.0**-14], dtype=np.float16)),
    (np.array([1.0, 2.0], dtype=BFLOAT16), np.array([2.0**-8, 3.0], dtype=BFLOAT16)),
    (np.array([1 + 2j]), np.array([3.0])),
    (2.0, 3.0),
])
def test_exact_add_call_is_np_add(x, y):
    with np.errstate(over="ignore"):
        expected = np.add(x, y)
        got = xs.exact_add(x, y)
    assert type(got) is type(expected)
    assert_same(got, expected)


def test_exact_add_call_out():
    x = np.array([1.0, 2.0])
    out = np.zeros(2)
    assert xs.exact_add(x, x, out=out) is out
    assert_same(out, np.array([2.0, 4.0]))


# ---------------------------------------------------------------------------
# More than 2**31 elements through a zero stride


def test_zero_stride_more_than_2_31_elements():
    n = 2**31 + 3
    a = np.broadcast_to(np.float64(0.1), (n,))
    assert a.strides == (0,) and a.size == n
    expected = round_fraction(Fraction(0.1) * n, FLOAT64)
    assert_same(xs.exact_sum(a), expected)


def test_zero_stride_more_than_2_31_elements_float32():
    n = 2**31 + 3
    a = np.broadcast_to(np.float32(0.1), (n,))
    expected = round_fraction(Fraction(float(np.float32(0.1))) * n, FLOAT32)
    assert_same(xs.exact_sum(a), expected)


def test_zero_stride_2d_more_than_2_31_elements_axis_none():
    """3 * (2**30 + 1) elements: a zero-stride outer axis over a 3-element row,
    summed over all axes.  Run in a child process whose address space is
    capped at 3 GiB, so that an implementation that materialises the 24 GiB
    array fails cleanly instead of exhausting the machine."""
    skip_under_asan()
    rows = 2**30 + 1
    row = [0.1, -0.3, 1e-300]
    code = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))
        import numpy as np
        import xsumufunc as xs
        a = np.broadcast_to(np.array({row!r}), ({rows}, 3))
        assert a.size > 2**31 and a.strides == (0, 8)
        r = xs.exact_sum(a)
        print(r.dtype, float(r).hex())
        r0 = xs.exact_sum(a, axis=0)
        print(" ".join(float(v).hex() for v in r0))
    """)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    # -P: never import the uncompiled source folder from the working directory.
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.split("\n")
    total = sum((Fraction(v) for v in row), Fraction(0)) * rows
    expected = round_fraction(total, FLOAT64)
    assert lines[0] == f"float64 {float(expected).hex()}"
    per_column = [round_fraction(Fraction(v) * rows, FLOAT64) for v in row]
    assert lines[1] == " ".join(float(v).hex() for v in per_column)
