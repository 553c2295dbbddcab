"""Hostile and odd inputs for every public function: the right answer or a
clear exception, never a crash, a wrong number or a half-written ``out``.

tests/test_api.py already covers unsupported dtypes for the sum family, bad
axes, ``out`` of the wrong shape and 2**31 zero-stride elements; this file
adds the rest (every function, every layout, hostile ``out``/``where``,
masked arrays, memoryviews, crafted exact states, 2**32 zero-stride terms).
"""

import contextlib
import warnings
from fractions import Fraction

import numpy as np
import pytest
from helpers import assert_same, check_out_untouched
from oracle import (
    BFLOAT16,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    FORMATS,
    oracle_accumulate,
    oracle_reduce,
    oracle_reduceat,
    round_fraction,
)
from oracle_products import oracle_dot, oracle_mean_reduce

import xsumufunc as xs

INT64 = np.dtype(np.int64)

# Overflowing partial sums and results are part of the cases here.
pytestmark = [pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
              pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")]


def _vector(dtype):
    """Adversarial terms of dtype: partial sums overflow, cancellation,
    subnormals, a signed zero (all exactly representable)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return np.array([30000, 30000, 1, 0, 7, 12], dtype)
    real = FLOAT64 if dtype.kind == "c" else dtype
    fmt = FORMATS[real]
    big = float(fmt.max_finite) * 0.75
    values = [big, big, -big, float(fmt.min_subnormal), -0.0, 3.0, float(fmt.min_normal),
              -1.5, 0.25]
    x = np.array(values, np.float64)
    x = x.astype(np.float32).astype(real) if real == BFLOAT16 else x.astype(real)
    if dtype.kind == "c":
        return (x + 1j * x[::-1]).astype(dtype)
    return x


# name -> (call on a 1-D array, exact expected value of the same terms)
FUNCTIONS = {
    "exact_sum": (xs.exact_sum, oracle_reduce),
    "exact_nansum": (xs.exact_nansum, lambda a: oracle_reduce(a, skip_nan=True)),
    "exact_mean": (xs.exact_mean, oracle_mean_reduce),
    "exact_nanmean": (xs.exact_nanmean, lambda a: oracle_mean_reduce(a, skip_nan=True)),
    "exact_add.reduce": (xs.exact_add.reduce, oracle_reduce),
    "exact_add.accumulate": (xs.exact_add.accumulate, oracle_accumulate),
    "exact_add.reduceat": (lambda a: xs.exact_add.reduceat(a, [0, 3, 5]),
                           lambda a: oracle_reduceat(a, [0, 3, 5])),
    "exact_dot": (lambda a: xs.exact_dot(a, a), lambda a: oracle_dot(a, a)),
}
# The raw gufuncs (real input only).
UFUNCS = {
    "exact_sum_ufunc": (xs.exact_sum_ufunc, oracle_reduce),
    "exact_mean_ufunc": (xs.exact_mean_ufunc, oracle_mean_reduce),
    "exact_cumsum_ufunc": (xs.exact_cumsum_ufunc, oracle_accumulate),
    "exact_dot_ufunc": (lambda a: xs.exact_dot_ufunc(a, a), lambda a: oracle_dot(a, a)),
    "states": (lambda a: xs.exact_state_round_ufunc(xs.exact_state_merge_ufunc(
                   xs.exact_sum_state_ufunc(a)[np.newaxis])),
               lambda a: oracle_reduce(a, dtype=FLOAT64)),
}
REAL_DTYPES = [FLOAT64, FLOAT32, FLOAT16, BFLOAT16, np.dtype(np.int16), np.dtype(np.uint64)]
ALL_DTYPES = REAL_DTYPES + [np.dtype(np.complex128), np.dtype(np.complex64)]


def _swapped(x):
    return x.astype(x.dtype.newbyteorder("S"))


def _unaligned(x):
    raw = np.zeros(x.nbytes + 1, np.uint8)
    view = raw[1:].view(x.dtype)
    view[...] = x
    return view


def _strided(x, step):
    buf = np.zeros(x.size * abs(step), x.dtype)
    view = buf[::step] if step > 0 else buf[::-1][::-step]
    view[...] = x
    return view


def _read_only(x):
    y = x.copy()
    y.flags.writeable = False
    return y


# Same values as x, other memory: name -> view builder.
LAYOUTS = {
    "reversed": lambda x: _strided(x, -1),
    "step3": lambda x: _strided(x, 3),
    "step-2": lambda x: _strided(x, -2),
    "byteswapped": _swapped,
    "unaligned": _unaligned,
    "swapped-unaligned-reversed": lambda x: _unaligned(_swapped(x)[::-1])[::-1],
    "read-only": _read_only,
}


@contextlib.contextmanager
def _quiet():
    """Overflow and "invalid" warnings are part of the answers here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def test_layouts_are_what_they_say():
    x = _vector(FLOAT64)
    views = {name: make(x) for name, make in LAYOUTS.items()}
    for name, view in views.items():
        assert_same(np.ascontiguousarray(view).astype(FLOAT64), x, name)
    assert views["reversed"].strides == (-8,) and views["step-2"].strides == (-16,)
    assert views["step3"].strides == (24,)
    assert not views["byteswapped"].dtype.isnative
    assert views["unaligned"].ctypes.data % 8 and not views["unaligned"].flags.aligned
    mixed = views["swapped-unaligned-reversed"]
    assert not mixed.dtype.isnative and not mixed.flags.aligned and mixed.strides == (-8,)
    assert not views["read-only"].flags.writeable


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_every_function_every_layout(name, dtype, layout):
    call, oracle = FUNCTIONS[name]
    x = _vector(dtype)
    assert_same(call(LAYOUTS[layout](x)), oracle(x), f"{name} {layout}")


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", REAL_DTYPES, ids=str)
@pytest.mark.parametrize("name", list(UFUNCS))
def test_every_gufunc_every_layout(name, dtype, layout):
    call, oracle = UFUNCS[name]
    if name == "exact_dot_ufunc" and dtype.kind in "iu":
        pytest.skip("NumPy picks the float32 loop for int16 (exact, but not float64)")
    x = _vector(dtype)
    assert_same(call(LAYOUTS[layout](x)), oracle(x), f"{name} {layout}")


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_zero_stride_rows(name, dtype):
    """A broadcast row (stride 0), also of -0.0: n copies of one term."""
    call, oracle = FUNCTIONS[name]
    for value in (_vector(dtype)[0], np.zeros((), dtype) * -1 if dtype.kind == "f" else None):
        if value is None:
            continue
        row = np.broadcast_to(np.asarray(value, dtype), (7,))
        assert row.strides == (0,)
        assert_same(call(row), oracle(np.ascontiguousarray(row)), name)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_memoryviews_and_buffers(name):
    call, oracle = FUNCTIONS[name]
    for x in (_vector(FLOAT64), _vector(FLOAT32), _vector(np.int16), _vector(FLOAT16),
              _swapped(_vector(FLOAT64))):
        native = x.astype(x.dtype.newbyteorder("="))
        assert_same(call(memoryview(x)), oracle(native), f"{name} memoryview {x.dtype}")
    data = bytearray(b"\x01\x02\xff\x00\x07\x80")        # a uint8 buffer
    assert_same(call(memoryview(data)), oracle(np.frombuffer(data, np.uint8)), name)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_python_lists_and_scalars(name):
    call, oracle = FUNCTIONS[name]
    values = [1e308, 1e308, -1e308, 5e-324, -0.0, 3]
    assert_same(call(values), oracle(np.array(values)), name)
    assert_same(call(tuple(values)), oracle(np.array(values)), name)
    ints = [2**62, 2**62, -3, True, 0, 5]
    if name != "exact_dot":        # 2**62 * 2**62 is beyond float64's exact integers
        assert_same(call(ints), oracle(np.array(ints)), name)


@pytest.mark.parametrize("name", ["exact_sum", "exact_nansum", "exact_mean", "exact_nanmean"])
def test_zero_d_and_scalars_reduce_to_the_value(name):
    call, _ = FUNCTIONS[name]
    for value in (np.float16(-0.0), np.float32(3.5), 7, 2.5, True, np.array(1e308),
                  np.array(5e-324, dtype=np.float64), np.complex64(1 - 2j)):
        a = np.asarray(value)
        expected = a.astype(np.float64) if a.dtype.kind in "biu" else a
        assert_same(call(value), expected[()], f"{name}({value!r})")


@pytest.mark.parametrize("name", ["exact_add.accumulate", "exact_add.reduceat", "exact_dot"])
def test_zero_d_is_refused_where_an_axis_is_needed(name):
    call, _ = FUNCTIONS[name]
    for value in (np.array(1.5), 2.0):
        with pytest.raises(ValueError, match="0-d|at least one dimension"):
            call(value)


def test_add_reduce_of_zero_d():
    """np.add.reduce takes axis 0 of a 0-d input (the value); exact_add.reduce
    refuses it clearly (tests/test_api.py), and axis=None or () is the value."""
    for axis in (0, -1):
        with pytest.raises(np.exceptions.AxisError):
            xs.exact_add.reduce(np.array(1.5), axis=axis)
    for axis in (None, ()):
        assert_same(xs.exact_add.reduce(np.array(1.5), axis=axis), np.float64(1.5))
        assert_same(xs.exact_add.reduce(np.float16(-0.0), axis=axis), np.float16(-0.0))


@pytest.mark.parametrize("name", list(UFUNCS))
def test_gufuncs_refuse_zero_d(name):
    call, _ = UFUNCS[name]
    with pytest.raises(ValueError):
        call(np.array(1.5))


# ---------------------------------------------------------------------------
# Unsupported inputs the sum-family tests do not cover


def _bad_arrays():
    return {
        "object": np.array([1.0, 2.0], dtype=object),
        "str": np.array(["a", "bc"]),
        "datetime64": np.array(["2020-01-01", "2021-01-01"], dtype="datetime64[D]"),
        "timedelta64": np.array([1, 2], dtype="timedelta64[s]"),
        "structured": np.zeros(2, dtype=[("a", "f8"), ("b", "i4")]),
        "void": np.zeros(2, dtype="V8"),
    }


@pytest.mark.parametrize("kind", list(_bad_arrays()))
@pytest.mark.parametrize("name", list(FUNCTIONS) + list(UFUNCS))
def test_unsupported_dtypes_raise_typeerror(name, kind):
    call = {**FUNCTIONS, **UFUNCS}[name][0]
    with pytest.raises(TypeError):
        call(_bad_arrays()[kind])


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_masked_arrays_are_refused(name):
    """np.asarray drops the mask: summing the masked values would be a wrong
    number, so a masked array is a TypeError that says what to do."""
    call, _ = FUNCTIONS[name]
    a = np.ma.array([1.0, 2.0, 4.0], mask=[False, True, False])
    with pytest.raises(TypeError, match="masked arrays are not supported"):
        call(a)
    if name == "exact_dot":
        with pytest.raises(TypeError, match="masked"):
            xs.exact_dot([1.0, 2.0, 3.0], a)


def test_masked_array_recipe_from_the_message():
    a = np.ma.array([1e100, 2.0, 1.0, -1e100], mask=[False, True, False, False])
    assert_same(xs.exact_sum(a.data, where=~np.ma.getmaskarray(a)), np.float64(1.0))
    assert_same(xs.exact_sum(a.filled(0)), np.float64(1.0))


@pytest.mark.parametrize("where", ["abc", None, object(), np.array([1, 0, 1, 0]),
                                   np.array([0.5, 1, 1, 1])],
                         ids=["str", "None", "object", "int-array", "float-array"])
@pytest.mark.parametrize("name", ["exact_sum", "exact_nansum", "exact_mean", "exact_nanmean",
                                  "exact_add.reduce"])
def test_where_must_be_booleans(name, where):
    call = FUNCTIONS[name][0]
    a = np.arange(12.0).reshape(3, 4)
    out = np.full(4, 9.5)
    with pytest.raises(TypeError, match="where must be booleans"):
        call(a, axis=0, where=where, out=out)
    assert_same(out, np.full(4, 9.5))


@pytest.mark.parametrize("shape", [(3,), (2, 4), (3, 4, 1), (1, 5), (4, 3)])
@pytest.mark.parametrize("name", ["exact_sum", "exact_nansum", "exact_mean", "exact_nanmean",
                                  "exact_add.reduce"])
def test_where_of_the_wrong_shape(name, shape):
    call = FUNCTIONS[name][0]
    a = np.arange(12.0).reshape(3, 4)
    check_out_untouched(lambda o: call(a, axis=0, where=np.ones(shape, bool), out=o),
                        np.full(4, 9.5))


# ---------------------------------------------------------------------------
# Hostile out

A = np.array([[1e308, 2.0, -0.0, 5e-324], [1e308, -3.0, -0.0, 1.0], [-1e308, 0.5, -0.0, 5e-324]])

# name -> (call(a, out), result shape for A): every function that takes out.
OUT_CALLS = {
    "exact_sum": (lambda a, o: xs.exact_sum(a, axis=0, out=o), (4,)),
    "exact_nansum": (lambda a, o: xs.exact_nansum(a, axis=0, out=o), (4,)),
    "exact_mean": (lambda a, o: xs.exact_mean(a, axis=0, out=o), (4,)),
    "exact_nanmean": (lambda a, o: xs.exact_nanmean(a, axis=0, out=o), (4,)),
    "exact_add.reduce": (lambda a, o: xs.exact_add.reduce(a, out=o), (4,)),
    "exact_add.accumulate": (lambda a, o: xs.exact_add.accumulate(a, out=o), (3, 4)),
    "exact_add.reduceat": (lambda a, o: xs.exact_add.reduceat(a, [0, 2], out=o), (2, 4)),
    "exact_dot": (lambda a, o: xs.exact_dot(a, a[::-1], axis=0, out=o), (4,)),
    "exact_sum_ufunc": (lambda a, o: xs.exact_sum_ufunc(a, axis=0, out=o), (4,)),
    "exact_mean_ufunc": (lambda a, o: xs.exact_mean_ufunc(a, axis=0, out=o), (4,)),
    "exact_cumsum_ufunc": (lambda a, o: xs.exact_cumsum_ufunc(a, axes=[(0,), (0,)], out=o),
                           (3, 4)),
    "exact_dot_ufunc": (lambda a, o: xs.exact_dot_ufunc(a, a[::-1], axes=[(0,), (0,), ()],
                                                        out=o), (4,)),
}


def _expected(name):
    """The right result for A, computed into a fresh out."""
    call, shape = OUT_CALLS[name]
    with _quiet():
        out = np.zeros(shape)
        call(A.copy(), out)
    return out


def test_out_expectations_are_exact():
    assert_same(_expected("exact_sum"), oracle_reduce(A, axis=0))
    assert_same(_expected("exact_mean"), oracle_mean_reduce(A, axis=0))
    assert_same(_expected("exact_add.accumulate"), oracle_accumulate(A))
    assert_same(_expected("exact_dot"), oracle_dot(A, A[::-1], axis=0))
    assert_same(_expected("exact_cumsum_ufunc"), oracle_accumulate(A))


@pytest.mark.parametrize("name", list(OUT_CALLS))
def test_read_only_out(name):
    call, shape = OUT_CALLS[name]
    out = np.full(shape, 9.5)
    out.flags.writeable = False
    check_out_untouched(lambda o: call(A, o), out)
    view = np.broadcast_to(np.full(shape[-1:], 9.5), shape)     # never writeable
    check_out_untouched(lambda o: call(A, o), view)


@pytest.mark.parametrize("out_dtype", [np.int64, np.int8, np.uint16, np.bool_, "M8[s]"],
                         ids=str)
@pytest.mark.parametrize("name", list(OUT_CALLS))
def test_integer_and_other_out_dtypes(name, out_dtype):
    call, shape = OUT_CALLS[name]
    out = np.ones(shape, out_dtype)
    before = out.tobytes()
    with pytest.raises(TypeError):
        call(A, out)
    assert out.tobytes() == before


@pytest.mark.parametrize("name", list(OUT_CALLS))
def test_out_that_is_not_an_array(name):
    call, shape = OUT_CALLS[name]
    with pytest.raises((TypeError, ValueError)):
        call(A, np.zeros(shape).tolist())
    two = (np.full(shape, 9.5), np.full(shape, 9.5))
    with pytest.raises((TypeError, ValueError)):
        call(A, two)
    assert_same(two[0], np.full(shape, 9.5))


@pytest.mark.parametrize("name", list(OUT_CALLS))
def test_out_as_a_one_tuple(name):
    call, shape = OUT_CALLS[name]
    out = np.zeros(shape)
    with _quiet():
        call(A, (out,))
    assert_same(out, _expected(name))


@pytest.mark.parametrize("layout", ["reversed", "step3", "byteswapped", "unaligned"])
@pytest.mark.parametrize("name", list(OUT_CALLS))
def test_out_in_odd_memory(name, layout):
    call, shape = OUT_CALLS[name]
    flat = LAYOUTS[layout](np.zeros(int(np.prod(shape))))
    out = flat.reshape(shape) if flat.flags.c_contiguous or len(shape) == 1 else None
    if out is None:                                 # a strided 2-D view of the same kind
        out = LAYOUTS[layout](np.zeros(shape[0] * shape[1])).reshape(shape[0], shape[1])
    with _quiet():
        call(A, out)
    assert_same(out.astype(np.float64), _expected(name))


@pytest.mark.parametrize("name", list(OUT_CALLS))
def test_out_overlapping_the_input(name):
    """out is (part of) the input's memory: the result is that of the
    input as it was, as NumPy's ufuncs guarantee."""
    call, shape = OUT_CALLS[name]
    a = A.copy()
    out = a if shape == a.shape else (a[0] if shape == (4,) else a[:2])
    with _quiet():
        call(a, out)
    assert_same(out, _expected(name))
    # A shifted overlap: out starts one row into the input.
    buf = np.vstack([A, np.zeros((3, 4))])
    a, out = buf[:3], buf[1:1 + shape[0]] if len(shape) == 2 else buf[1]
    with _quiet():
        call(a, out)
    assert_same(out, _expected(name))


def test_complex_out_overlapping_the_input():
    z = (A + 1j * A[::-1]).astype(np.complex128)
    expected = oracle_reduce(z, axis=0)
    acc_expected = oracle_accumulate(z)
    w = z.copy()
    with _quiet():
        xs.exact_sum(w, axis=0, out=w[0])
        assert_same(w[0], expected)
        w = z.copy()
        xs.exact_add.accumulate(w, out=w)
    assert_same(w, acc_expected)


@pytest.mark.parametrize("name", ["exact_sum", "exact_nansum", "exact_add.reduce"])
def test_errors_late_in_the_call_leave_out_untouched(name):
    call = FUNCTIONS[name][0]
    a = np.arange(12.0).reshape(3, 4)
    for kwargs, error in (({"initial": np.ones(2)}, ValueError),
                          ({"initial": "x"}, TypeError),
                          ({"initial": 1j}, TypeError),
                          ({"dtype": np.int32}, TypeError)):
        out = np.full(4, 9.5)
        with pytest.raises(error):
            call(a, axis=0, out=out, **kwargs)
        assert_same(out, np.full(4, 9.5))


def test_dot_errors_leave_out_untouched():
    out = np.full(2, 9.5)
    with pytest.raises(ValueError, match="different lengths"):
        xs.exact_dot(np.ones((2, 3)), np.ones((2, 4)), out=out)
    with pytest.raises(TypeError, match="out dtype int64 is not supported"):
        xs.exact_dot(np.ones((2, 3)), np.ones((2, 3)), out=np.zeros(2, np.int64))
    assert_same(out, np.full(2, 9.5))


def test_reduceat_errors_leave_out_untouched():
    a = np.arange(12.0).reshape(3, 4)
    for indices, error in (([0, 3], IndexError), ([-1], IndexError), ([[0]], TypeError),
                           ([0.5], TypeError)):
        out = np.full((len(np.ravel(indices)), 4), 9.5)
        with pytest.raises(error):
            xs.exact_add.reduceat(a, indices, out=out)
        assert_same(out, np.full(out.shape, 9.5))


# ---------------------------------------------------------------------------
# More than 2**32 terms through zero strides

N_HUGE = 2**32 + 5


def test_zero_stride_sum_and_mean_beyond_2_32():
    value = np.float64(0.1)
    a = np.broadcast_to(value, (N_HUGE,))
    exact = Fraction(float(value)) * N_HUGE
    assert_same(xs.exact_sum(a), round_fraction(exact, FLOAT64))
    assert_same(xs.exact_nansum(a, dtype=np.float32), round_fraction(exact, FLOAT32))
    assert_same(xs.exact_mean(a), value)
    assert_same(xs.exact_mean(a, where=np.broadcast_to(True, a.shape)), value)
    assert_same(xs.exact_sum_ufunc(a), round_fraction(exact, FLOAT64))


def test_zero_stride_dot_beyond_2_32():
    """One product 2**32 + 5 times (a shortcut by doubling), every dtype,
    including products that overflow and underflow float64 on their own."""
    for value, other, dtype in [(0.1, -3.0, np.float32), (0.1, 3.0, np.float64),
                                (1e300, 1e300, np.float64), (1e-300, -1e-300, np.float64),
                                (1e-170, 3e-170, np.float64)]:
        x = np.broadcast_to(dtype(value), (N_HUGE,))
        y = np.broadcast_to(dtype(other), (N_HUGE,))
        exact = Fraction(float(x[0])) * Fraction(float(y[0])) * N_HUGE
        for result in (FLOAT64, FLOAT32):
            with np.errstate(all="ignore"):
                assert_same(xs.exact_dot(x, y, dtype=result), round_fraction(exact, result))


# ---------------------------------------------------------------------------
# Crafted exact states


def _state(top=0, flags=0b11, digits=()):
    s = np.zeros(xs.STATE_LENGTH, np.int64)
    s[:len(digits)] = digits
    s[-2] = top
    s[-1] = flags
    return s


def test_garbage_states_are_nan_never_a_crash():
    rng = np.random.default_rng(0)
    garbage = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, (200, 69),
                           dtype=np.int64, endpoint=True)
    garbage[:50, -1] &= 0b11111            # valid flags, digits out of range
    garbage[50:100, :-2] &= 0xffffffff     # valid digits, top out of range
    for s in garbage:
        with _quiet():
            r = xs.exact_state_round_ufunc(s)
            m = xs.exact_state_mean_ufunc(s, 3)
            merged = xs.exact_state_merge_ufunc(np.stack([s, _state(1)]))
        assert np.isnan(r) and np.isnan(m)
        assert np.isnan(xs.exact_state_round_ufunc(merged))


def test_state_edges():
    with _quiet():
        assert_same(xs.exact_state_round_ufunc(_state(flags=0)), np.float64(0.0))
        assert_same(xs.exact_state_round_ufunc(_state(flags=0b01)), np.float64(-0.0))
        assert np.isnan(xs.exact_state_round_ufunc(_state(flags=0b100000)))   # unknown flag
        assert np.isnan(xs.exact_state_round_ufunc(_state(digits=[2**32])))
        assert np.isnan(xs.exact_state_round_ufunc(_state(digits=[-1])))
        assert np.isnan(xs.exact_state_mean_ufunc(_state(), 0))               # no terms
        assert np.isnan(xs.exact_state_mean_ufunc(_state(1), -5))             # bad count
        assert_same(xs.exact_state_round_ufunc(_state(top=2**40 - 1)), np.float64(np.inf))
        assert np.isnan(xs.exact_state_round_ufunc(_state(top=2**40)))        # out of range


def test_merging_huge_states_saturates_to_inf():
    """Regression: exact_state_merge_ufunc added top chunks without bound,
    so 2**23 merges of a state at the limit overflowed int64 (undefined
    behaviour; UBSan: src/exact/xs_small.c signed integer overflow) and the
    merged state wrapped around or came back NaN.  Past the state range the
    exact value rounds to +-Inf in every format; the merge now says so."""
    top = 2**40 - 1
    with _quiet():
        for sign in (1, -1):
            s = _state(sign * top)
            merged = xs.exact_state_merge_ufunc(np.stack([s, s]))
            assert_same(xs.exact_state_round_ufunc(merged), np.float64(sign * np.inf))
            for dtype in (FLOAT32, FLOAT16, BFLOAT16):
                r = xs.exact_state_round_ufunc(merged, signature=(INT64, dtype))
                assert_same(r, np.array(sign * np.inf, np.float32).astype(dtype)[()])
        # Below the limit the merge stays exact: top and -top cancel.
        pair = xs.exact_state_merge_ufunc(np.stack([_state(top), _state(-top), _state(0, 0b11,
                                                                                  [5])]))
        assert_same(xs.exact_state_round_ufunc(pair), round_fraction(Fraction(5, 2**1075),
                                                                     FLOAT64))
        many = np.broadcast_to(_state(top), (2**23 + 1, xs.STATE_LENGTH))
        assert_same(xs.exact_state_round_ufunc(xs.exact_state_merge_ufunc(many)),
                    np.float64(np.inf))


def test_merge_states_does_not_depend_on_the_order():
    """Regression: 65,537 copies of a state with top digit 2**24 - 1 gave inf
    (the C merge saturates at 2**40) where 65,536 raised, and [s]*65537 +
    [-s]*65537 gave nan or 0.0 depending on the order.  Every order now
    raises the documented ValueError."""
    top = 2**24 - 1
    s = _state(top)
    many = np.broadcast_to(s, (65_537, xs.STATE_LENGTH))
    with pytest.raises(ValueError, match="out of the state's range"):
        xs.merge_states(many)
    both = np.concatenate([np.broadcast_to(s, (65_537, xs.STATE_LENGTH)),
                           np.broadcast_to(_state(-top), (65_537, xs.STATE_LENGTH))])
    rng = np.random.default_rng(3)
    for order in (np.arange(both.shape[0]), rng.permutation(both.shape[0])):
        with pytest.raises(ValueError, match="out of the state's range"):
            xs.merge_states(both[order])
    # Well inside the range the merge is exact whatever the order.
    few = np.concatenate([np.broadcast_to(s, (100, xs.STATE_LENGTH)),
                          np.broadcast_to(_state(-top), (100, xs.STATE_LENGTH))])
    for order in (np.arange(200), rng.permutation(200)):
        assert xs.round_state(xs.merge_states(few[order])) == 0.0


def test_masked_arrays_are_refused_inside_lists_and_by_kahan_sum():
    """Regression: exact_sum([np.ma.array([1., 2., 4.], mask=[0, 1, 0])]) was
    7.0 (np.asarray drops the mask) and kahan_sum took masked arrays."""
    m = np.ma.array([1.0, 2.0, 4.0], mask=[0, 1, 0])
    for call in (lambda: xs.exact_sum([m]), lambda: xs.exact_mean(([m, m],)),
                 lambda: xs.exact_dot([m], [[1.0, 1.0, 1.0]]), lambda: xs.kahan_sum(m),
                 lambda: xs.exact_var([m])):
        with pytest.raises(TypeError, match="masked arrays are not supported"):
            call()


def test_integer_zero_products_sum_to_plus_zero():
    """Regression: exact_dot([0], [-1]) was -0.0 (the float loop saw
    0 * -1.0); the exact integer sum is +0, as exact_sum of the products."""
    from oracle_products import exact_dot_oracle
    for a, b in (([0], [-1]), ([0, 0], [-3, -5]), ([-2, 2], [1, 1])):
        assert_same(xs.exact_dot(a, b), exact_dot_oracle(a, b, FLOAT64))
        assert_same(xs.exact_dot(a, b), xs.exact_sum(np.multiply(a, b)))


def test_64_bit_integers_at_the_edges_of_float64_are_exact():
    """Regression: the check was |x| < 2**63, so 2**63 (uint64), 2**64 - 2**11
    and -2**63 (int64), all exact float64 values, were refused; integers
    that are not float64 values are no longer refused either (exact)."""
    from oracle_products import exact_dot_oracle
    for values, dtype in (([2**63], np.uint64), ([2**64 - 2**11], np.uint64),
                          ([-2**63], np.int64), ([2**53, -2**63], np.int64),
                          ([2**53 + 1], np.int64), ([2**64 - 1], np.uint64),
                          ([2**53 + 1, -2**53], np.int64)):
        a = np.array(values, dtype)
        ones = [1.0] * len(values)
        assert_same(xs.exact_dot(a, ones), exact_dot_oracle(values, ones, FLOAT64))


@pytest.mark.parametrize("dtype,default", [(np.float64, 0x7FF8000000000000),
                                           (np.float32, 0x7FC00000)])
def test_a_nan_result_is_the_default_quiet_nan(dtype, default):
    """Decided (issue 18): NaN payloads and signs of the terms are not kept;
    the result is the default quiet NaN whatever the order and chunking."""
    uint = np.uint64 if dtype == np.float64 else np.uint32
    nans = np.array([0x7FF8000000001234, 0xFFF0000000000001, 0x7FF0000000000F00],
                    np.uint64).view(np.float64).astype(dtype)
    for x in (np.concatenate([[1.0], nans]).astype(dtype), nans[::-1].copy(),
              np.array([np.inf, -np.inf], dtype), np.repeat(nans, 500)):
        for got in (xs.exact_sum(x), xs.exact_mean(x), xs.exact_add.accumulate(x)[-1],
                    xs.exact_dot(x, np.ones_like(x))):
            with np.errstate(invalid="ignore"):
                assert np.asarray(got).dtype == dtype
                assert int(np.asarray(got).view(uint)) == default, hex(int(np.asarray(got).view(uint)))


def test_a_transposed_array_is_reduced_in_memory_order_as_a_view():
    """Regression (issue 18.9): exact_sum(a.reshape(-1, 1000).T) was 13x
    slower than on `a`: the reduced axes were merged in their given order,
    which is not a view, so the sum went axis by axis through one exact
    state per column.  They are now taken in memory order, as NumPy's
    iterator does, and merge as a view: the state path is never entered."""
    from unittest import mock

    from oracle import exact_sum_oracle

    from xsumufunc._core import rows

    a = np.random.default_rng(5).standard_normal(200_000) * 2.0**np.arange(-20, 20).repeat(5000)
    b = a.reshape(-1, 1000).T
    with mock.patch.object(rows, "states_axis_by_axis", side_effect=AssertionError("states")):
        for got in (xs.exact_sum(b), xs.exact_sum(b, axis=(1, 0)), xs.exact_sum(b.T, axis=(0, 1))):
            assert_same(got, exact_sum_oracle(a.tolist(), FLOAT64))
        assert_same(xs.exact_mean(b), xs.exact_mean(a))
