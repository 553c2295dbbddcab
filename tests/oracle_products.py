"""Exact reference oracles for ``exact_mean`` / ``exact_nanmean`` and
``exact_dot``, built only on ``fractions.Fraction`` (and Python ints).

Nothing here uses np.mean, np.dot, np.vecdot, math.fsum or floating-point
addition/division to produce an expected value.  Every term (or product of
two terms) is converted exactly to a ``Fraction``, the exact sum is formed,
divided exactly by the count for the mean, and rounded once by
:func:`oracle.round_fraction`.  The only floating-point operation used is the
IEEE product of two *special* operands (inf or NaN with anything), which is
exactly what the contract specifies for those.

Rules implemented (see the module docstrings of the tests for the contract):

mean / nanmean (per real component)
  * (nanmean) NaN terms are not terms and are not counted; for complex input
    an element is NaN when either component is NaN (``np.isnan``), and such
    an element is dropped from both components and from the count, as
    ``np.nanmean`` does;
  * count 0 -> NaN;
  * any NaN -> NaN; +inf and -inf -> NaN; only +inf -> +inf; only -inf ->
    -inf;
  * otherwise exact sum / count rounded once; an exact zero is -0.0 iff every
    term is -0.0 (floats; integers have no -0.0), else +0.0; a non-zero
    value that underflows keeps its sign.

dot (per real component)
  * a product of two finite numbers is exact (a Fraction), never rounded; if
    it is zero its sign is the IEEE sign of the product (sign(a) xor sign(b);
    integers are exact as float64, so the integer 0 is +0.0);
  * a product with an inf or NaN operand is the IEEE product (inf*0 -> NaN,
    inf*x -> +-inf, NaN*x -> NaN);
  * then the sum rules on the products: any NaN -> NaN; +inf and -inf ->
    NaN; otherwise the inf; otherwise the exact sum rounded once; an exact
    zero is -0.0 iff there is at least one product and every product is
    -0.0, else +0.0 (an empty dot is +0.0);
  * complex: ``sum(conj(a[i]) * b[i])``: the real component is the dot of the
    pairs (ar, br), (ai, bi); the imaginary component the dot of the pairs
    (ar, bi), (-ai, br) (``-ai`` is the IEEE negation, so ``-(0.0)`` is
    ``-0.0``).  Each component is exact and rounded once.
"""

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
from oracle import (
    BFLOAT16,
    CODE_RULES,
    COMPONENT_DTYPE,
    FLOAT32,
    FLOAT64,
    FORMATS,
    _is_int_like,
    _to_scalar,
    default_result_dtype,
    oracle_over_axes,
    round_fraction,
    terms_of,
)

NAN = math.nan


def _is_float_nan(t):
    return isinstance(t, float) and math.isnan(t)


def _is_special(t):
    return isinstance(t, float) and not math.isfinite(t)


def _real_term(v):
    """Exact Python int (bool/int) or float for one real term."""
    if _is_int_like(v):
        return int(v)
    if isinstance(v, (complex, np.complexfloating)):
        raise TypeError("real term expected")
    return float(v)


def _signbit(t):
    """IEEE sign bit of a term; integers (no -0) are never negative zero."""
    if isinstance(t, int):
        return t < 0
    return math.copysign(1.0, t) < 0


def _is_complex(v):
    return isinstance(v, (complex, np.complexfloating))


def _components(v):
    """(real, imaginary) of one term, exactly: an integer keeps its exact
    value as the real part (complex() would round it beyond 2**53)."""
    if _is_int_like(v):
        return int(v), 0.0
    c = complex(v)
    return c.real, c.imag


# ---------------------------------------------------------------------------
# mean


def _real_mean(terms, dtype):
    """terms: Python ints/floats (NaNs already removed for nanmean)."""
    dtype = np.dtype(dtype)
    if not terms:
        return _to_scalar(NAN, dtype)
    has_nan = any(_is_float_nan(t) for t in terms)
    has_pinf = any(isinstance(t, float) and t == math.inf for t in terms)
    has_ninf = any(isinstance(t, float) and t == -math.inf for t in terms)
    if has_nan or (has_pinf and has_ninf):
        return _to_scalar(NAN, dtype)
    if has_pinf:
        return _to_scalar(math.inf, dtype)
    if has_ninf:
        return _to_scalar(-math.inf, dtype)
    total = Fraction(0)
    for t in terms:
        total += Fraction(t)
    all_negative_zero = all(isinstance(t, float) and t == 0.0 and _signbit(t) for t in terms)
    return round_fraction(total / len(terms), dtype, zero_sign=-1 if all_negative_zero else 1)


def exact_mean_oracle(values, dtype, skip_nan=False):
    """Reference for exact_mean (skip_nan=False) / exact_nanmean (True) of
    the 1-D sequence ``values``, rounded once into ``dtype``."""
    values = list(values)
    dtype = np.dtype(dtype)
    if dtype in COMPONENT_DTYPE:
        comp = COMPONENT_DTYPE[dtype]
        cs = [_components(v) for v in values]
        if skip_nan:
            cs = [(r, i) for r, i in cs if not (_is_float_nan(r) or math.isnan(i))]
        re = _real_mean([r for r, _ in cs], comp)
        im = _real_mean([i for _, i in cs], comp)
        out = np.empty((), dtype=dtype)
        out.real = re
        out.imag = im
        return out[()]
    if dtype not in FORMATS and dtype not in CODE_RULES:
        raise TypeError(f"oracle: unsupported result dtype {dtype}")
    terms = [_real_term(v) for v in values]
    if skip_nan:
        terms = [t for t in terms if not _is_float_nan(t)]
    return _real_mean(terms, dtype)


def oracle_mean_reduce(a, axis=None, dtype=None, keepdims=False, where=True, skip_nan=False):
    """Array-level reference for exact_mean / exact_nanmean (loops over
    exact_mean_oracle; no NumPy reductions)."""
    a = np.asarray(a)
    rdt = default_result_dtype(a.dtype) if dtype is None else np.dtype(dtype)
    return oracle_over_axes(a, axis, rdt, keepdims, where,
                            lambda terms, r: exact_mean_oracle(terms, r, skip_nan=skip_nan))


# ---------------------------------------------------------------------------
# dot


def _real_dot(pairs, dtype):
    """pairs: (x, y) of Python ints/floats.  Rounded once into dtype."""
    dtype = np.dtype(dtype)
    special = []
    total = Fraction(0)
    all_negative_zero = bool(pairs)
    for x, y in pairs:
        if _is_special(x) or _is_special(y):
            # IEEE product: inf*0 -> nan, inf*(+-finite non-zero or inf) ->
            # +-inf, nan*anything -> nan.  Python floats follow IEEE here
            # (no exception is raised for inf*0).  The finite operand is
            # converted to float exactly (integers here are below 2**64;
            # its exact value does not matter, only its sign and zeroness).
            fx = x if isinstance(x, float) else (0.0 if x == 0 else math.copysign(1.0, x))
            fy = y if isinstance(y, float) else (0.0 if y == 0 else math.copysign(1.0, y))
            special.append(fx * fy)
            all_negative_zero = False
            continue
        p = Fraction(x) * Fraction(y)
        total += p
        # A zero product of floats has a sign; of two integers it is +0.
        integers = isinstance(x, int) and isinstance(y, int)
        if p != 0 or integers or not (_signbit(x) != _signbit(y)):
            all_negative_zero = False
    has_nan = any(math.isnan(s) for s in special)
    has_pinf = any(s == math.inf for s in special)
    has_ninf = any(s == -math.inf for s in special)
    if has_nan or (has_pinf and has_ninf):
        return _to_scalar(NAN, dtype)
    if has_pinf:
        return _to_scalar(math.inf, dtype)
    if has_ninf:
        return _to_scalar(-math.inf, dtype)
    return round_fraction(total, dtype, zero_sign=-1 if all_negative_zero else 1)


def exact_dot_oracle(a_values, b_values, dtype):
    """Reference for exact_dot of two equal-length 1-D sequences, rounded
    once into ``dtype`` (a real format, or complex64/complex128 for
    ``sum(conj(a) * b)`` per component)."""
    a_values = list(a_values)
    b_values = list(b_values)
    if len(a_values) != len(b_values):
        raise ValueError("oracle: lengths differ")
    dtype = np.dtype(dtype)
    if dtype in COMPONENT_DTYPE:
        comp = COMPONENT_DTYPE[dtype]
        ca = [_components(v) for v in a_values]
        cb = [_components(v) for v in b_values]
        re_pairs, im_pairs = [], []
        for (xr, xi), (yr, yi) in zip(ca, cb):
            re_pairs.append((xr, yr))
            re_pairs.append((xi, yi))
            im_pairs.append((xr, yi))
            im_pairs.append((-xi, yr))
        out = np.empty((), dtype=dtype)
        out.real = _real_dot(re_pairs, comp)
        out.imag = _real_dot(im_pairs, comp)
        return out[()]
    if dtype not in FORMATS and dtype not in CODE_RULES:
        raise TypeError(f"oracle: unsupported result dtype {dtype}")
    pairs = [(_real_term(x), _real_term(y)) for x, y in zip(a_values, b_values)]
    return _real_dot(pairs, dtype)


def exact_sum_of_squares_oracle(values, dtype):
    return exact_dot_oracle(values, values, dtype)


def _is_intlike_dtype(dt):
    return np.dtype(dt).kind in "biu"


def dot_result_dtype(da, db):
    """Default result dtype of exact_dot for input dtypes da, db.

    np.result_type, except: float16 with bfloat16 -> float32; bool/integer
    with bool/integer -> float64; bool/integer with a float is treated as
    float64 with that float (only float64/complex128 partners are used by
    the tests, where every reading agrees)."""
    da, db = np.dtype(da), np.dtype(db)
    if {da, db} == {np.dtype(np.float16), BFLOAT16}:
        return FLOAT32
    ia, ib = _is_intlike_dtype(da), _is_intlike_dtype(db)
    if ia and ib:
        return FLOAT64
    if ia:
        da = FLOAT64
    if ib:
        db = FLOAT64
    return np.result_type(da, db)


def oracle_dot(a, b, axis=-1, dtype=None, keepdims=False):
    """Array-level reference for exact_dot (np.vecdot semantics): the axis
    ``axis`` of each operand is the vector axis, the other axes broadcast."""
    a = np.asarray(a)
    b = np.asarray(b)
    rdt = dot_result_dtype(a.dtype, b.dtype) if dtype is None else np.dtype(dtype)
    am = np.moveaxis(a, axis, -1)
    bm = np.moveaxis(b, axis, -1)
    if am.shape[-1] != bm.shape[-1]:
        raise ValueError("oracle: vector lengths differ")
    n = am.shape[-1]
    outer = np.broadcast_shapes(am.shape[:-1], bm.shape[:-1])
    am = np.broadcast_to(am, outer + (n,))
    bm = np.broadcast_to(bm, outer + (n,))
    res = np.empty(outer, dtype=rdt)
    for idx in np.ndindex(*outer):
        res[idx] = exact_dot_oracle(terms_of(am[idx]), terms_of(bm[idx]), rdt)
    if keepdims:
        res = np.expand_dims(res, axis)
    if res.ndim == 0:
        return res[()]
    return res


__all__ = [
    "exact_mean_oracle", "oracle_mean_reduce", "exact_dot_oracle",
    "exact_sum_of_squares_oracle", "dot_result_dtype", "oracle_dot",
]

_ = ml_dtypes  # imported for the bfloat16 dtype registration
