"""xsumufunc.array_api: the array-API namespace with exact reductions, and
arrays of other libraries (DLPack / array API) in the public functions.

Numbers are compared bit for bit with the Fraction oracles; the 2-norm is
checked against the exact sum of squares by squaring the bounds of the
rounding interval of the result (Fractions only, no floating square root).
"""

import inspect
import math
import subprocess
import sys
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

array_api_compat = pytest.importorskip("array_api_compat")
xps = pytest.importorskip("array_api_strict")

import array_api_compat.numpy as cnp  # noqa: E402
from helpers import assert_same  # noqa: E402
from oracle import (  # noqa: E402
    BFLOAT16,
    COMPLEX64,
    COMPLEX128,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    FORMATS,
    INT_DTYPES,
    exact_sum_oracle,
    oracle_accumulate,
    oracle_reduce,
)
from oracle_products import oracle_dot, oracle_mean_reduce  # noqa: E402
from oracle_roots import assert_rounded_sqrt, exact_square_sum  # noqa: E402
from strategies import (  # noqa: E402
    axis_args,
    float_lists,
    nd_arrays,
    representable,
    shapes,
    to_array,
    value_lists,
)

import xsumufunc  # noqa: E402
from xsumufunc import array_api as xp  # noqa: E402

P = inspect.Parameter
POS, KW = P.POSITIONAL_ONLY, P.KEYWORD_ONLY
STANDARD_FLOATS = [FLOAT32, FLOAT64]
NORM_INPUTS = [BFLOAT16, FLOAT16, FLOAT32, FLOAT64, COMPLEX64, COMPLEX128]


# ---------------------------------------------------------------------------
# The namespace


# The standard's layout (2023.12 and later): name, kind, default.
SIGNATURES = {
    "sum": [("x", POS, P.empty), ("axis", KW, None), ("dtype", KW, None),
            ("keepdims", KW, False)],
    "mean": [("x", POS, P.empty), ("axis", KW, None), ("keepdims", KW, False)],
    "var": [("x", POS, P.empty), ("axis", KW, None), ("correction", KW, 0.0),
            ("keepdims", KW, False)],
    "std": [("x", POS, P.empty), ("axis", KW, None), ("correction", KW, 0.0),
            ("keepdims", KW, False)],
    "cumulative_sum": [("x", POS, P.empty), ("axis", KW, None), ("dtype", KW, None),
                       ("include_initial", KW, False)],
    "vecdot": [("x1", POS, P.empty), ("x2", POS, P.empty), ("axis", KW, -1)],
    "linalg.vecdot": [("x1", POS, P.empty), ("x2", POS, P.empty), ("axis", KW, -1)],
    "linalg.vector_norm": [("x", POS, P.empty), ("axis", KW, None), ("keepdims", KW, False),
                           ("ord", KW, 2)],
    "matmul": [("x1", POS, P.empty), ("x2", POS, P.empty)],
    "linalg.matmul": [("x1", POS, P.empty), ("x2", POS, P.empty)],
    "tensordot": [("x1", POS, P.empty), ("x2", POS, P.empty), ("axes", KW, 2)],
    "linalg.tensordot": [("x1", POS, P.empty), ("x2", POS, P.empty), ("axes", KW, 2)],
}


def _lookup(namespace, dotted):
    obj = namespace
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def _layout(func):
    return [(p.name, p.kind, p.default) for p in inspect.signature(func).parameters.values()]


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signature_is_the_standards(name):
    assert _layout(_lookup(xp, name)) == SIGNATURES[name]


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signature_matches_array_api_strict(name):
    strict = [(n, k, d) for n, k, d in _layout(_lookup(xps, name))]
    assert [(n, k) for n, k, _ in _layout(_lookup(xp, name))] == [(n, k) for n, k, _ in strict]


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_exact_functions_are_ours(name):
    ours = _lookup(xp, name)
    assert ours is not _lookup(cnp, name)
    assert ours.__module__ == "xsumufunc.array_api._functions"


def test_namespace_is_complete():
    public = [n for n in dir(xps) if not n.startswith("_")]
    missing = [n for n in public if hasattr(cnp, n) and not hasattr(xp, n)]
    assert missing == []
    assert set(cnp.__all__) <= set(xp.__all__)
    assert xp.__array_api_version__ == cnp.__array_api_version__
    for name in cnp.__all__:
        if name not in {"sum", "mean", "var", "std", "cumulative_sum", "vecdot", "linalg",
                        "matmul", "tensordot"}:
            assert getattr(xp, name) is getattr(cnp, name), name


def test_linalg_is_a_module_of_its_own():
    import types
    assert isinstance(xp.linalg, types.ModuleType)
    assert xp.linalg is not cnp.linalg
    assert xp.linalg.__name__ == "xsumufunc.array_api.linalg"
    # array_api_compat's own module is not patched.
    assert not cnp.linalg.vector_norm.__module__.startswith("xsumufunc")
    assert cnp.linalg.vecdot is not xp.linalg.vecdot
    strict_names = [n for n in dir(xps.linalg) if not n.startswith("_")]
    assert [n for n in strict_names
            if n in cnp.linalg.__all__ and not hasattr(xp.linalg, n)] == []
    assert set(cnp.linalg.__all__) <= set(xp.linalg.__all__)
    for name in cnp.linalg.__all__:
        if name not in {"vecdot", "vector_norm", "matmul", "tensordot"}:
            assert getattr(xp.linalg, name) is getattr(cnp.linalg, name), name


def test_importing_xsumufunc_does_not_import_array_api_compat(tmp_path):
    code = ("import sys, xsumufunc, numpy as np; xsumufunc.exact_sum(np.ones(3)); "
            "assert 'array_api_compat' not in sys.modules, 'imported'; "
            "assert 'xsumufunc._backends.foreign' not in sys.modules, 'foreign'")
    # -P and another directory: import the installed package, not the sources.
    subprocess.run([sys.executable, "-P", "-c", code], check=True, cwd=tmp_path)


# ---------------------------------------------------------------------------
# Result dtypes (the standard's rules; int64/uint64 are the defaults)


SUM_DTYPES = {
    "bool": "int64", "int8": "int64", "int16": "int64", "int32": "int64", "int64": "int64",
    "uint8": "uint64", "uint16": "uint64", "uint32": "uint64", "uint64": "uint64",
    "float32": "float32", "float64": "float64",
    "complex64": "complex64", "complex128": "complex128",
}
MEAN_DTYPES = {"float32": "float32", "float64": "float64", "complex64": "complex64",
               "complex128": "complex128", "int32": "float64", "bool": "float64"}
NORM_DTYPES = {"float32": "float32", "float64": "float64", "complex64": "float32",
               "complex128": "float64", "int8": "float64", "bool": "float64"}


@pytest.mark.parametrize("dtype", sorted(SUM_DTYPES))
def test_sum_and_cumulative_sum_default_dtypes(dtype):
    x = np.ones((2, 3), dtype)
    assert xp.sum(x).dtype == SUM_DTYPES[dtype]
    assert xp.sum(x, axis=0).dtype == SUM_DTYPES[dtype]
    assert xp.cumulative_sum(x, axis=1).dtype == SUM_DTYPES[dtype]
    assert xp.cumulative_sum(x, axis=1, include_initial=True).shape == (2, 4)


@pytest.mark.parametrize("dtype", sorted(MEAN_DTYPES))
def test_mean_dtypes(dtype):
    assert xp.mean(np.ones(3, dtype)).dtype == MEAN_DTYPES[dtype]


@pytest.mark.parametrize("dtype", sorted(NORM_DTYPES))
def test_vector_norm_dtypes(dtype):
    for order in (2, 1, math.inf):
        assert xp.linalg.vector_norm(np.ones(3, dtype), ord=order).dtype == NORM_DTYPES[dtype]


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8", "float32", "float64",
                                   "complex64", "complex128"])
def test_vecdot_dtype_is_the_operands(dtype):
    assert xp.vecdot(np.ones(3, dtype), np.ones(3, dtype)).dtype == dtype
    assert xp.linalg.vecdot(np.ones(3, dtype), np.ones(3, dtype)).dtype == dtype


def test_full_reductions_are_0d_arrays():
    for result in (xp.sum(np.ones(3)), xp.mean(np.ones(3)), xp.vecdot(np.ones(3), np.ones(3)),
                   xp.linalg.vector_norm(np.ones(3)), xp.sum(np.ones(3, np.int8))):
        assert type(result) is np.ndarray and result.shape == ()


@pytest.mark.parametrize("dtype", INT_DTYPES)
@given(data=st.data())
def test_integer_sums_wrap_as_numpy_does(dtype, data):
    values = data.draw(value_lists(dtype))
    x = to_array(values, dtype)
    result = np.dtype(SUM_DTYPES[dtype.name])
    bits = result.itemsize * 8
    # Python integers modulo 2**bits, read in the result's signedness.
    total = sum(values) % (1 << bits)
    if result.kind == "i" and total >= 1 << (bits - 1):
        total -= 1 << bits
    got = xp.sum(x)
    assert got.dtype == result and int(got) == total
    prefix = xp.cumulative_sum(x, include_initial=True)
    running = 0
    for k, v in enumerate([0] + values):
        running += v
        expected = running % (1 << bits)
        if result.kind == "i" and expected >= 1 << (bits - 1):
            expected -= 1 << bits
        assert int(prefix[k]) == expected


def test_integer_sum_with_dtype_wraps_in_that_dtype():
    assert xp.sum(np.array([127, 127], np.int8), dtype=np.int8) == np.int8(-2)
    assert xp.sum(np.array([2**64 - 1, 1], np.uint64)) == 0


def test_integer_sum_into_float_is_exact():
    x = np.array([2**62 + 1, 2**62 + 1, -(2**63)], np.int64)      # exact sum: 2
    assert_same(xp.sum(x, dtype=np.float64), np.asarray(np.float64(2.0)))


# ---------------------------------------------------------------------------
# Exactness against the Fraction oracles


def _as_0d(expected):
    return np.asarray(expected)


@pytest.mark.parametrize("dtype", STANDARD_FLOATS + [FLOAT16, COMPLEX64, COMPLEX128])
@given(data=st.data())
def test_sum_is_exact(dtype, data):
    x = data.draw(nd_arrays(dtype))
    axis = data.draw(axis_args(x.ndim))
    keepdims = data.draw(st.booleans())
    got = xp.sum(x, axis=axis, keepdims=keepdims)
    assert_same(got, _as_0d(oracle_reduce(x, axis=axis, keepdims=keepdims)))


@pytest.mark.parametrize("dtype,result", [(FLOAT64, FLOAT32), (FLOAT32, FLOAT64),
                                          (FLOAT64, FLOAT16), (FLOAT32, COMPLEX128)])
@given(data=st.data())
def test_sum_with_dtype_rounds_once(dtype, result, data):
    x = data.draw(nd_arrays(dtype, target=None if result.kind == "c" else result))
    axis = data.draw(axis_args(x.ndim))
    got = xp.sum(x, axis=axis, dtype=result)
    if result.kind == "c":
        expected = np.asarray(oracle_reduce(x, axis=axis, dtype=FLOAT64)).astype(result)
    else:
        expected = _as_0d(oracle_reduce(x, axis=axis, dtype=result))
    assert_same(got, expected)


@pytest.mark.parametrize("dtype", STANDARD_FLOATS + [COMPLEX128])
@given(data=st.data())
def test_mean_is_exact(dtype, data):
    x = data.draw(nd_arrays(dtype))
    axis = data.draw(axis_args(x.ndim))
    keepdims = data.draw(st.booleans())
    with warnings.catch_warnings():
        # Empty slices warn, as NumPy's mean does; the value is what is tested.
        warnings.simplefilter("ignore", RuntimeWarning)
        got = xp.mean(x, axis=axis, keepdims=keepdims)
    assert_same(got, _as_0d(oracle_mean_reduce(x, axis=axis, keepdims=keepdims)))


@pytest.mark.parametrize("dtype", STANDARD_FLOATS + [COMPLEX64])
@given(data=st.data())
def test_cumulative_sum_is_exact(dtype, data):
    x = data.draw(nd_arrays(dtype))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    include_initial = data.draw(st.booleans())
    got = xp.cumulative_sum(x, axis=axis, include_initial=include_initial)
    expected = oracle_accumulate(x, axis=axis)
    if include_initial:
        shape = list(x.shape)
        shape[axis] = 1
        expected = np.concatenate([np.zeros(shape, expected.dtype), expected], axis=axis)
    assert_same(got, expected)


def test_cumulative_sum_axis_rules():
    x = np.ones((2, 3))
    with pytest.raises(ValueError, match="axis must be given"):
        xp.cumulative_sum(x)
    with pytest.raises(ValueError, match="at least one dimension"):
        xp.cumulative_sum(np.asarray(1.0))
    with pytest.raises(TypeError, match="axis must be an integer"):
        xp.cumulative_sum(x, axis=(0,))
    with pytest.raises(np.exceptions.AxisError):
        xp.cumulative_sum(x, axis=2)
    got = xp.cumulative_sum(np.array([1e100, 1.0, -1e100]), include_initial=True)
    assert_same(got, np.array([0.0, 1e100, 1e100, 1.0]))
    empty = xp.cumulative_sum(np.zeros((2, 0)), axis=1, include_initial=True)
    assert_same(empty, np.zeros((2, 1)))


@pytest.mark.parametrize("dtype", STANDARD_FLOATS + [COMPLEX64, COMPLEX128])
@given(data=st.data())
def test_vecdot_is_exact(dtype, data):
    shape = data.draw(shapes(min_dims=1, max_dims=3))
    x1 = data.draw(nd_arrays(dtype, shape=shape, specials=False))
    x2_shape = data.draw(st.sampled_from([shape, shape[-1:], (1,) + shape]))
    x2 = data.draw(nd_arrays(dtype, shape=x2_shape, specials=False))
    got = xp.vecdot(x1, x2)
    assert_same(got, _as_0d(oracle_dot(x1, x2, axis=-1)))
    assert_same(xp.linalg.vecdot(x1, x2), got)


def test_vecdot_conjugates_x1():
    x1 = np.array([1 + 2j, 3 - 1j])
    x2 = np.array([2 - 1j, 1j])
    # conj(1+2j)(2-1j) + conj(3-1j)(1j) = (-5j) + (-1+3j) = -1-2j
    assert_same(xp.vecdot(x1, x2), np.asarray(np.complex128(-1 - 2j)))
    assert_same(xp.vecdot(x2, x1), np.asarray(np.complex128(-1 + 2j)))


def test_vecdot_axis_rules():
    x = np.ones((2, 3))
    assert_same(xp.vecdot(x, x, axis=-2), np.array([2.0, 2.0, 2.0]))
    with pytest.raises(ValueError, match="negative integer"):
        xp.vecdot(x, x, axis=1)
    with pytest.raises(ValueError, match="negative integer"):
        xp.vecdot(x, np.ones(3), axis=-2)
    with pytest.raises(ValueError, match="different lengths"):
        xp.vecdot(x, np.ones(2))
    with pytest.raises(TypeError, match="axis must be an integer"):
        xp.vecdot(x, x, axis=None)


def test_integer_vecdot_wraps():
    x = np.array([100, 100], np.int8)
    assert xp.vecdot(x, x).dtype == np.int8
    assert int(xp.vecdot(x, x)) == (20000 + 2**7) % 2**8 - 2**7


def test_bad_input_types():
    with pytest.raises(TypeError, match="sum: x must be an array"):
        xp.sum([1.0, 2.0])
    with pytest.raises(TypeError, match="vector_norm"):
        xp.linalg.vector_norm(np.array(["a"]))
    with pytest.raises(TypeError, match="dtype"):
        xp.sum(np.ones(2), dtype="not a dtype")


# ---------------------------------------------------------------------------
# The 2-norm: correctly rounded square root of the exact sum of squares


def _norm_case(dtype):
    """Lists of values of dtype (finite), from the adversarial sum lists and
    from the two ends of the exponent range (squares overflow/underflow)."""
    comp = {COMPLEX64: FLOAT32, COMPLEX128: FLOAT64}.get(dtype, dtype)
    fmt = FORMATS[comp]
    ends = st.one_of(representable(comp, qmin=fmt.qmax - 40),
                     representable(comp, qmax=fmt.qmin + 40), representable(comp))
    reals = st.one_of(float_lists(comp, specials=False),
                      st.lists(ends, max_size=30))
    if dtype.kind != "c":
        return reals
    return st.tuples(reals, reals).map(
        lambda p: [complex(a, b) for a, b in zip(p[0], p[1])])


@pytest.mark.parametrize("dtype", NORM_INPUTS)
@given(data=st.data())
def test_vector_norm_is_correctly_rounded(dtype, data):
    x = to_array(data.draw(_norm_case(dtype)), dtype)
    result_dtype = {COMPLEX64: FLOAT32, COMPLEX128: FLOAT64}.get(dtype, dtype)
    got = xp.linalg.vector_norm(x)
    assert got.dtype == result_dtype and got.shape == ()
    assert_rounded_sqrt(got, exact_square_sum(x), result_dtype)


@pytest.mark.parametrize("dtype", [FLOAT64, COMPLEX64])
@given(data=st.data())
def test_vector_norm_over_axes(dtype, data):
    x = data.draw(nd_arrays(dtype, specials=False))
    axis = data.draw(axis_args(x.ndim))
    keepdims = data.draw(st.booleans())
    got = xp.linalg.vector_norm(x, axis=axis, keepdims=keepdims)
    result_dtype = {COMPLEX64: FLOAT32}.get(dtype, dtype)
    axes = tuple(range(x.ndim)) if axis is None else tuple(
        a % x.ndim for a in (axis if isinstance(axis, tuple) else (axis,)))
    kept = [i for i in range(x.ndim) if i not in axes]
    rows = np.transpose(x, kept + list(axes)).reshape(
        tuple(x.shape[i] for i in kept) + (math.prod(x.shape[i] for i in axes),))
    expected_shape = (tuple(1 if i in axes else n for i, n in enumerate(x.shape))
                      if keepdims else rows.shape[:-1])
    assert got.shape == expected_shape and got.dtype == result_dtype
    flat = got.reshape(-1)
    for k, idx in enumerate(np.ndindex(*rows.shape[:-1])):
        assert_rounded_sqrt(flat[k], exact_square_sum(rows[idx]), result_dtype)


@st.composite
def norm_ties(draw, dtype):
    """[M*2**u, 2**(u-1), s1*2**u, ..., s4*2**u] with M = s1**2 + ... + s4**2 of
    exactly p bits: the sum of squares is (M*2**u + 2**(u-1))**2, the
    midpoint between two neighbours, so the norm is a tie (to even)."""
    fmt = FORMATS[dtype]
    half = (fmt.p + 1) // 2
    s = [draw(st.integers(0, (1 << half) - 1)) for _ in range(4)]
    m = sum(v * v for v in s)
    assume(m.bit_length() == fmt.p)
    u = draw(st.integers(fmt.qmin + 1, fmt.emax + 1 - fmt.p))
    values = [math.ldexp(m, u), math.ldexp(1, u - 1)] + [math.ldexp(v, u) for v in s]
    return draw(st.permutations(values)), m, u


@pytest.mark.parametrize("dtype", [BFLOAT16, FLOAT16, FLOAT32, FLOAT64])
@given(data=st.data())
def test_vector_norm_ties_go_to_even(dtype, data):
    values, m, u = data.draw(norm_ties(dtype))
    got = xp.linalg.vector_norm(to_array(values, dtype))
    expected_m = m + (m & 1)            # the tie goes to the even neighbour
    expected = math.inf if expected_m.bit_length() + u > FORMATS[dtype].emax + 1 \
        else math.ldexp(expected_m, u)
    assert_same(got, np.asarray(expected, dtype))
    assert_rounded_sqrt(got, exact_square_sum(to_array(values, dtype)), dtype)


@pytest.mark.parametrize("values,expected", [
    ([3e300, 4e300], 5e300),                      # squares overflow
    ([3e-300, 4e-300], 5e-300),                   # squares underflow
    ([5e-324], 5e-324),
    ([1.0, 2.0**-26, 2.0**-53], 1.0),             # exact midpoint: to even
    ([-0.0, -0.0], 0.0),
    ([], 0.0),
    ([1.7976931348623157e308, 1.7976931348623157e308], math.inf),
    ([math.inf, 1.0], math.inf),
    ([math.nan, math.inf], math.nan),
    ([-math.inf], math.inf),
])
def test_vector_norm_cases(values, expected):
    got = xp.linalg.vector_norm(np.array(values, dtype=np.float64))
    assert_same(got, np.asarray(np.float64(expected)))
    if all(math.isfinite(v) for v in values):
        assert_rounded_sqrt(got, exact_square_sum(np.array(values, np.float64)), FLOAT64)


@pytest.mark.parametrize("dtype,span", [(FLOAT16, None), (FLOAT32, None), (FLOAT64, None),
                                        (FLOAT64, 300), (COMPLEX128, 300)])
def test_vector_norm_of_many_rows(dtype, span, norm_rows_path):
    """Many rows at once (the vectorized check when all values are within
    2**-380..2**315, and the exact path for the rows it leaves), each
    checked against its exact sum of squares."""
    comp = {COMPLEX128: FLOAT64}.get(dtype, dtype)
    fmt = FORMATS[comp]
    rng = np.random.default_rng(7)
    low, high = (fmt.emin, fmt.emax - 4) if span is None else (-span, span)
    exponents = rng.integers(low, high, size=(300, 1))
    real = np.ldexp(rng.standard_normal((300, 6)), exponents)
    x = real.astype(dtype) if dtype.kind != "c" else (real + 1j * real[::-1]).astype(dtype)
    x[::7] = x[::7] * 0                          # zero rows
    if span is None:
        x[1::11, 0] = 2.0**fmt.emax              # rows that overflow (for the short formats)
    got = xp.linalg.vector_norm(x, axis=1)
    assert got.dtype == comp and got.shape == (300,)
    for k in range(300):
        assert_rounded_sqrt(got[k], exact_square_sum(x[k]), comp)
    # Rows spanning several magnitude groups at once.
    wide = np.ldexp(rng.standard_normal((50, 4)), rng.integers(fmt.qmin, fmt.emax, (50, 4)))
    wide = wide.astype(comp)
    got = xp.linalg.vector_norm(wide, axis=-1)
    for k in range(50):
        assert_rounded_sqrt(got[k], exact_square_sum(wide[k]), comp)


@pytest.fixture(params=["native", "short", "medium"])
def norm_rows_path(request, monkeypatch):
    """The three paths of the 2-norm of many rows: the one-pass C loop
    (src/kernels/dot/xs_norm.c, float64 and float32 rows), and without it short rows
    (copied with three more terms, proven by exact dots) and medium rows
    (read once into exact dot states, proven from those), the latter forced
    on short test rows."""
    from xsumufunc._core import norm as norm_module
    if request.param != "native":
        monkeypatch.setattr(norm_module, "NATIVE_ROWS", False)
    if request.param == "medium":
        monkeypatch.setattr(norm_module, "MEDIUM_ROW_TERMS", 1)
    return request.param


@pytest.mark.parametrize("dtype", [FLOAT16, FLOAT32, FLOAT64])
def test_vector_norms_at_binade_ends_are_proven_without_python(dtype, monkeypatch,
                                                               norm_rows_path):
    """Exact roots (rows of ones: powers of two; Pythagorean rows) and roots
    just below a power of two, where the grid below is twice as fine, are
    proven by the vectorized check: none reaches the per-row integer root.
    Each norm against the oracle."""
    from xsumufunc._core import norm as norm_module
    calls = []
    original = norm_module.sqrt_rational
    monkeypatch.setattr(norm_module, "sqrt_rational",
                        lambda *args: calls.append(args) or original(*args))
    fmt = FORMATS[dtype]
    rng = np.random.default_rng(11)
    below_two = 2.0 - 2.0 ** (1 - fmt.p)               # the largest value below 2
    rows = [[1.0] * 4, [2.0, 2.0, 2.0, 2.0], [3.0, 4.0, 0.0, 0.0], [5.0, 12.0, 0.0, 0.0],
            [below_two, 0.0, 0.0, 0.0]]
    for j in range(1, 40):                             # just below 2: c = 2 - j ulps/2
        rows.append([2.0 - j * 2.0 ** (1 - fmt.p), 2.0 ** (-fmt.p // 2 - rng.integers(0, 4)),
                     0.0, 0.0])
    x = np.array(rows, dtype) * dtype.type(2.0 ** int(rng.integers(-8, 8)))
    got = xp.linalg.vector_norm(x, axis=1)
    for k in range(len(x)):
        assert_rounded_sqrt(got[k], exact_square_sum(x[k]), dtype)
    assert calls == []


def test_vector_norm_near_a_tie_below_a_power_of_two(norm_rows_path):
    """float32: the sum of squares is (2 - 2**-24)**2 - 2**-71 + 9*2**-96, a
    hair below the square of the midpoint between 2 - 2**-23 and 2, where
    the grid below 2 is twice as fine as above.  Its float64 root rounds to
    that midpoint and then (ties to even) to the candidate 2, which only a
    lower bound at half the gap below refuses."""
    x = np.array([2 - 2.0**-23, 2.0**-11 - 2.0**-35, 2.0**-23, 2.0**-24 - 3 * 2.0**-48],
                 np.float32)
    assert exact_square_sum(x) == (2 - Fraction(2)**-24)**2 - Fraction(2)**-71 \
        + 9 * Fraction(2)**-96
    got = xp.linalg.vector_norm(np.stack([x, x[::-1]]), axis=1)
    assert_same(got, np.full(2, 2 - 2.0**-23, np.float32))
    assert_rounded_sqrt(got[0], exact_square_sum(x), FLOAT32)


@pytest.mark.parametrize("long_rows", [False, True], ids=["blocks", "long-rows"])
def test_vector_norm_in_blocks_and_long_rows(monkeypatch, long_rows, norm_rows_path):
    """Blocks of one row, and rows taken as long rows (the exact root from
    a dot state), give the same correctly rounded norms, over the whole
    exponent range."""
    from xsumufunc._core import norm as norm_module
    monkeypatch.setattr(norm_module, "_NORM_BLOCK_BYTES", 1)
    if long_rows:
        monkeypatch.setattr(norm_module, "LONG_ROW_TERMS", 3)
    rng = np.random.default_rng(12)
    x = np.ldexp(rng.standard_normal((7, 10)), rng.integers(-1000, 1000, (7, 10)))
    x[2] = 0.0
    x[3, 4] = math.nan
    x[6, 1] = -math.inf
    got = xp.linalg.vector_norm(x, axis=1)
    assert math.isnan(got[3]) and got[6] == math.inf
    for k in (0, 1, 2, 4, 5):
        assert_rounded_sqrt(got[k], exact_square_sum(x[k]), FLOAT64)
    assert_rounded_sqrt(xp.linalg.vector_norm(x[0]), exact_square_sum(x[0]), FLOAT64)
    c = x[4] + 1j * x[5]
    assert_rounded_sqrt(xp.linalg.vector_norm(c), exact_square_sum(c), FLOAT64)


def test_vector_norm_spanning_the_whole_range():
    x = np.array([1.7976931348623157e308, 5e-324, 1.0, 2.0**-600, 2.0**600])
    assert_rounded_sqrt(xp.linalg.vector_norm(x), exact_square_sum(x), FLOAT64)
    assert_rounded_sqrt(xp.linalg.vector_norm(x[1:]), exact_square_sum(x[1:]), FLOAT64)


def test_vector_norm_of_integers_is_exact():
    x = np.array([2**53 - 1, 2**30, -(2**31)], np.int64)
    assert_rounded_sqrt(xp.linalg.vector_norm(x), exact_square_sum(x.astype(np.float64)),
                        FLOAT64)
    for big in (np.array([2**53 + 1], np.int64), np.array([2**64 - 1, 3], np.uint64),
                np.array([-2**63, 2**63 - 1, 2**53 + 1], np.int64)):
        total = sum(int(v) ** 2 for v in big)
        assert_rounded_sqrt(xp.linalg.vector_norm(big), Fraction(total), FLOAT64)


@pytest.mark.parametrize("dtype", STANDARD_FLOATS)
@given(data=st.data())
def test_vector_norm_ord_1_is_the_exact_sum_of_magnitudes(dtype, data):
    x = data.draw(nd_arrays(dtype))
    axis = data.draw(axis_args(x.ndim))
    got = xp.linalg.vector_norm(x, axis=axis, ord=1)
    assert_same(got, _as_0d(oracle_reduce(np.abs(x), axis=axis)))


def test_vector_norm_ord_1_of_the_most_negative_integer():
    x = np.array([-(2**63), 1], np.int64)
    assert_same(xp.linalg.vector_norm(x, ord=1), np.asarray(np.float64(2.0**63 + 1)))


def test_vector_norm_other_orders():
    x = np.array([[3.0, -4.0, 0.0], [0.0, 0.0, -1.0]])
    assert_same(xp.linalg.vector_norm(x, axis=1, ord=math.inf), np.array([4.0, 1.0]))
    assert_same(xp.linalg.vector_norm(x, axis=1, ord=-math.inf), np.array([0.0, 0.0]))
    assert_same(xp.linalg.vector_norm(x, axis=1, ord=0), np.array([2.0, 1.0]))
    norm = xp.linalg.vector_norm(x, ord=2, keepdims=True)
    assert norm.shape == (1, 1)
    assert_rounded_sqrt(norm[0, 0], Fraction(26), FLOAT64)


# ---------------------------------------------------------------------------
# Arrays of other libraries (array-api-strict here; torch below if present)


def _strict(values, dtype=xps.float64, device=None):
    return xps.asarray(values, dtype=dtype, device=device)


def _numpy_of(x):
    return np.from_dlpack(x)


@given(data=st.data())
def test_namespace_functions_take_and_return_strict_arrays(data):
    x_np = data.draw(nd_arrays(FLOAT64, min_dims=1))
    axis = data.draw(st.integers(-x_np.ndim, x_np.ndim - 1))
    x = xps.asarray(x_np)
    for got, expected in [
            (xp.sum(x), oracle_reduce(x_np)),
            (xp.sum(x, axis=axis, dtype=xps.float32), oracle_reduce(x_np, axis, FLOAT32)),
            (xp.cumulative_sum(x, axis=axis), oracle_accumulate(x_np, axis)),
            (xp.vecdot(x, x), oracle_dot(x_np, x_np))]:
        assert type(got) is type(x)
        assert_same(_numpy_of(got), _as_0d(expected))
    norm = xp.linalg.vector_norm(x, axis=axis)
    assert type(norm) is type(x) and norm.dtype == xps.float64


def test_public_functions_take_and_return_strict_arrays():
    values = [1e100, 1.0, -1e100, 0.5]
    x = _strict(values)
    x_np = np.array(values)
    cases = [
        (xsumufunc.exact_sum(x), oracle_reduce(x_np)),
        (xsumufunc.exact_nansum(x), oracle_reduce(x_np, skip_nan=True)),
        (xsumufunc.exact_mean(x), oracle_mean_reduce(x_np)),
        (xsumufunc.exact_nanmean(x), oracle_mean_reduce(x_np, skip_nan=True)),
        (xsumufunc.exact_add.reduce(x), oracle_reduce(x_np)),
        (xsumufunc.exact_add.accumulate(x), oracle_accumulate(x_np)),
        (xsumufunc.exact_dot(x, x), oracle_dot(x_np, x_np)),
        (xsumufunc.exact_dot(x_np, x), oracle_dot(x_np, x_np)),       # one of them foreign
        (xsumufunc.exact_sum(x, dtype=xps.float32), oracle_reduce(x_np, dtype=FLOAT32)),
    ]
    for got, expected in cases:
        assert type(got) is type(x), type(got)
        assert_same(_numpy_of(got), _as_0d(expected))
    where = _strict([True, False, True, True], dtype=xps.bool)
    got = xsumufunc.exact_sum(x, where=where)
    assert_same(_numpy_of(got), _as_0d(oracle_reduce(x_np, where=np.array([1, 0, 1, 1], bool))))


def test_foreign_results_keep_the_device():
    device = xps.Device("device1")
    x = _strict([1e100, 1.0, -1e100], device=device)
    for got in (xp.sum(x), xsumufunc.exact_sum(x), xsumufunc.exact_add.accumulate(x)):
        assert got.device == device


def test_foreign_out_is_refused_numpy_out_is_filled():
    x = _strict([1e100, 1.0, -1e100])
    with pytest.raises(TypeError, match="out must be a numpy.ndarray"):
        xsumufunc.exact_sum(x, out=_strict(0.0))
    with pytest.raises(TypeError, match="out must be a numpy.ndarray"):
        xsumufunc.exact_add.accumulate(x, out=_strict([0.0, 0.0, 0.0]))
    with pytest.raises(TypeError, match="out must be a numpy.ndarray"):
        xsumufunc.exact_dot(x, x, out=_strict(0.0))
    out = np.zeros((), np.float32)
    assert xsumufunc.exact_sum(x, out=out) is out
    assert_same(out, np.asarray(np.float32(1.0)))


class _DeviceArray:
    """An array that says (through DLPack) it lives on a GPU."""

    def __init__(self, device_type):
        self._device_type = device_type

    def __dlpack__(self, **kwargs):
        raise BufferError("not in CPU memory")

    def __dlpack_device__(self):
        return (self._device_type, 0)


@pytest.mark.parametrize("call", [
    lambda x: xsumufunc.exact_sum(x), lambda x: xsumufunc.exact_mean(x),
    lambda x: xsumufunc.exact_add.accumulate(x), lambda x: xsumufunc.exact_dot(x, x),
    lambda x: xp.sum(x), lambda x: xp.linalg.vector_norm(x)])
def test_non_cpu_arrays_are_refused(call):
    with pytest.raises(ValueError, match="only arrays in CPU memory"):
        call(_DeviceArray(2))                   # kDLCUDA


def test_unreadable_foreign_array_is_a_type_error():
    with pytest.raises(TypeError, match="cannot read a"):
        xsumufunc.exact_sum(_DeviceArray(1))    # says CPU, but exports nothing


class _NamespaceOnly:
    """An array-API object without DLPack (read through __array__)."""

    def __init__(self, values):
        self._values = np.asarray(values)

    def __array_namespace__(self, api_version=None):
        return xps

    def __array__(self, dtype=None, copy=None):
        return self._values


def test_array_namespace_without_dlpack():
    got = xsumufunc.exact_sum(_NamespaceOnly([1e100, 1.0, -1e100]))
    assert type(got) is type(xps.asarray(0.0))
    assert_same(_numpy_of(got), np.asarray(1.0))


# ---------------------------------------------------------------------------
# torch (CPU tensors have DLPack but no __array_namespace__)


def test_torch_tensors():
    torch = pytest.importorskip("torch")
    t = torch.tensor([1e100, 1.0, -1e100], dtype=torch.float64)
    for got in (xsumufunc.exact_sum(t), xp.sum(t)):
        assert isinstance(got, torch.Tensor) and got.dtype == torch.float64
        assert got.item() == 1.0
    f = torch.tensor([1.0, 2.0**-24, 2.0**-24], dtype=torch.float32)
    got = xp.cumulative_sum(f, include_initial=True)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.float32
    assert_same(got.numpy(), oracle_accumulate(np.array([0.0, 1.0, 2.0**-24, 2.0**-24],
                                                        np.float32)))
    norm = xp.linalg.vector_norm(torch.tensor([3e300, 4e300], dtype=torch.float64))
    assert isinstance(norm, torch.Tensor) and norm.item() == 5e300
    with pytest.raises(TypeError, match="out must be a numpy.ndarray"):
        xsumufunc.exact_sum(t, out=torch.zeros(()))
    if torch.cuda.is_available():
        with pytest.raises(ValueError, match="only arrays in CPU memory"):
            xsumufunc.exact_sum(t.cuda())


def test_torch_dtype_argument():
    torch = pytest.importorskip("torch")
    t = torch.tensor([1.0, 2.0**-30], dtype=torch.float64)
    got = xp.sum(t, dtype=torch.float32)
    assert got.dtype == torch.float32
    assert_same(got.numpy(), np.asarray(exact_sum_oracle([1.0, 2.0**-30], FLOAT32)))
