"""Exact reference oracle for xsumufunc, built only on ``fractions.Fraction``.

Nothing in here uses ``np.sum``, ``math.fsum`` or floating-point addition to
produce an expected value: every term is converted exactly to a ``Fraction``
(or a Python ``int``), the terms are added exactly, and the exact sum is
rounded once, to nearest with ties to even, by :func:`round_fraction`.

The resulting value is representable in the target format by construction,
so converting it to a NumPy scalar (through float64, or through float32 for
bfloat16) is exact.
"""

import math
import operator
from fractions import Fraction
from typing import NamedTuple

import ml_dtypes
import numpy as np

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
FLOAT64 = np.dtype(np.float64)
FLOAT32 = np.dtype(np.float32)
FLOAT16 = np.dtype(np.float16)
COMPLEX64 = np.dtype(np.complex64)
COMPLEX128 = np.dtype(np.complex128)


class Format(NamedTuple):
    """Binary floating-point format: precision ``p`` (including the hidden
    bit), minimum and maximum normal exponents."""

    p: int
    emin: int
    emax: int

    @property
    def qmin(self):
        """Exponent of the smallest subnormal (the quantum of the subnormals)."""
        return self.emin - self.p + 1

    @property
    def qmax(self):
        """Exponent of the ulp of the largest finite values."""
        return self.emax - self.p + 1

    @property
    def max_finite(self):
        return Fraction((1 << self.p) - 1) * Fraction(2) ** self.qmax

    @property
    def min_subnormal(self):
        return Fraction(2) ** self.qmin

    @property
    def min_normal(self):
        return Fraction(2) ** self.emin


FORMATS = {
    FLOAT64: Format(53, -1022, 1023),
    FLOAT32: Format(24, -126, 127),
    FLOAT16: Format(11, -14, 15),
    BFLOAT16: Format(8, -126, 127),
}



class CodeRules(NamedTuple):
    """What a byte-coded (float8/float6/float4) format does beyond its grid,
    from its specification (OCP FP8/MX, the fnuz papers), not from ml_dtypes.

    ``max_finite``: its largest value (e4m3fn's 448 lies below the top of
    its top binade).  ``overflow``: what a rounded magnitude beyond it (or an
    infinity) becomes: "inf", "nan" or "saturate" (the largest value).
    ``neg_zero``: whether -0 exists (fnuz formats: no).  ``nan``: whether it
    has a NaN."""

    fmt: Format
    max_finite: Fraction
    overflow: str
    neg_zero: bool
    nan: bool


def _code(name, p, emin, emax, max_finite, overflow, neg_zero=True, nan=True):
    if not hasattr(ml_dtypes, name):
        return {}
    return {np.dtype(getattr(ml_dtypes, name)): CodeRules(
        Format(p, emin, emax), Fraction(max_finite), overflow, neg_zero, nan)}


#: The byte-coded formats, by their specifications.
CODE_RULES = {
    **_code("float8_e4m3fn", 4, -6, 8, 448, "nan"),
    **_code("float8_e5m2", 3, -14, 15, 57344, "inf"),
    **_code("float8_e4m3fnuz", 4, -7, 7, 240, "nan", neg_zero=False),
    **_code("float8_e5m2fnuz", 3, -15, 15, 57344, "nan", neg_zero=False),
    **_code("float8_e4m3b11fnuz", 4, -10, 4, 30, "nan", neg_zero=False),
    **_code("float8_e3m4", 5, -2, 3, Fraction(31, 2), "inf"),
    **_code("float8_e4m3", 4, -6, 7, 240, "inf"),
    **_code("float6_e2m3fn", 4, 0, 2, Fraction(15, 2), "saturate", nan=False),
    **_code("float6_e3m2fn", 3, -2, 4, 28, "saturate", nan=False),
    **_code("float4_e2m1fn", 2, 0, 2, 6, "saturate", nan=False),
}
CODE_DTYPES = list(CODE_RULES)

FLOAT_DTYPES = [FLOAT64, FLOAT32, FLOAT16, BFLOAT16]
COMPLEX_DTYPES = [COMPLEX64, COMPLEX128]
COMPONENT_DTYPE = {COMPLEX64: FLOAT32, COMPLEX128: FLOAT64}
INT_DTYPES = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64,
                                     np.uint8, np.uint16, np.uint32, np.uint64)]
BOOL_DTYPE = np.dtype(np.bool_)


class _NoValueType:
    def __repr__(self):
        return "<no value>"


NoValue = _NoValueType()


def _pow2(e):
    return Fraction(2) ** e


def _floor_log2(n, d):
    """floor(log2(n/d)) for positive integers n, d."""
    e = n.bit_length() - d.bit_length()
    # 2**(e-1) < n/d < 2**(e+1); decide whether n/d >= 2**e.
    if e >= 0:
        ge = n >= (d << e)
    else:
        ge = (n << -e) >= d
    return e if ge else e - 1


def _to_scalar(value, dtype):
    """Exactly convert a Python float that is representable in ``dtype``
    (for a byte-coded format: a finite value of it, or NaN in one with NaN)."""
    dtype = np.dtype(dtype)
    if dtype in CODE_RULES:
        rules = CODE_RULES[dtype]
        if math.isinf(value) and rules.overflow != "inf":
            # NaN, or the largest value (saturation), with the sign
            value = math.nan if rules.overflow == "nan" else math.copysign(
                float(rules.max_finite), value)
        if value == 0 and not rules.neg_zero:
            value = 0.0
        # NaN in a format without one (float6/float4) has no answer: the
        # library stores what the format's own conversion gives and warns.
        assert not math.isfinite(value) or abs(Fraction(value)) <= rules.max_finite
        return np.array(value, dtype=np.float64).astype(dtype)[()]
    if dtype == BFLOAT16:
        return np.array(value, dtype=np.float32).astype(BFLOAT16)[()]
    return np.array(value, dtype=np.float64).astype(dtype)[()]


def round_fraction(q, dtype, zero_sign=1):
    """Round the exact rational ``q`` once into ``dtype``.

    Round to nearest, ties to even, with gradual underflow (subnormals) and
    overflow to +-inf when the rounded magnitude would be 2**(emax+1) or more,
    i.e. when ``|q| >= (2 - 2**-p) * 2**emax``.

    A result of zero carries the sign of ``q`` when ``q`` is non-zero (a tiny
    value that underflows), and the sign of ``zero_sign`` when ``q == 0``.

    Returns a NumPy scalar of ``dtype``.
    """
    dtype = np.dtype(dtype)
    if dtype in CODE_RULES:
        return _round_into_code(Fraction(q), dtype, zero_sign)
    fmt = FORMATS[dtype]
    q = Fraction(q)
    if q == 0:
        return _to_scalar(math.copysign(0.0, zero_sign), dtype)
    sign = -1 if q < 0 else 1
    a = -q if q < 0 else q
    n, d = a.numerator, a.denominator
    e = _floor_log2(n, d)
    # quantum (ulp exponent) of the result: fixed at qmin in the subnormal range
    qe = max(e, fmt.emin) - fmt.p + 1
    if qe <= 0:
        num, den = n << -qe, d
    else:
        num, den = n, d << qe
    m, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and m & 1):
        m += 1
    # m * 2**qe is the correctly rounded magnitude; m <= 2**p
    limit_exp = fmt.emax + 1
    if limit_exp - qe < 0:
        overflow = m > 0
    else:
        overflow = m >= (1 << (limit_exp - qe))
    if overflow:
        return _to_scalar(sign * math.inf, dtype)
    if m == 0:
        return _to_scalar(math.copysign(0.0, sign), dtype)
    assert m <= (1 << fmt.p)
    value = math.ldexp(float(m), qe)  # exact: m < 2**54, result representable
    return _to_scalar(sign * value, dtype)


def _grid_round(a, fmt):
    """|a| > 0 rounded to nearest-even on fmt's grid with no upper exponent
    limit: returns m, qe with the rounded magnitude m * 2**qe."""
    n, d = a.numerator, a.denominator
    e = _floor_log2(n, d)
    qe = max(e, fmt.emin) - fmt.p + 1
    num, den = (n << -qe, d) if qe <= 0 else (n, d << qe)
    m, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and m & 1):
        m += 1
    return m, qe


def code_special(dtype, what):
    """A byte-coded format's answer for an infinite or NaN result: what ==
    "inf", "-inf" or "nan" (Inf, NaN or saturation by its rules)."""
    return _to_scalar({"inf": math.inf, "-inf": -math.inf, "nan": math.nan}[what], dtype)


def _round_into_code(q, dtype, zero_sign):
    """round_fraction for a byte-coded format: round on its grid, then its
    own rule beyond its largest value."""
    rules = CODE_RULES[dtype]
    if q == 0:
        return _to_scalar(math.copysign(0.0, zero_sign), dtype)
    sign = -1 if q < 0 else 1
    m, qe = _grid_round(abs(q), rules.fmt)
    if m == 0:
        return _to_scalar(math.copysign(0.0, sign), dtype)
    if Fraction(m) * _pow2(qe) > rules.max_finite:
        return code_special(dtype, "-inf" if sign < 0 else "inf")
    return _to_scalar(sign * math.ldexp(float(m), qe), dtype)


# ---------------------------------------------------------------------------
# Terms


def _is_int_like(v):
    return isinstance(v, (bool, int, np.integer, np.bool_))


def _as_python_real(v):
    """Convert a real term to a Python int (integers, bools) or float.

    Every supported floating scalar (float16/32/64, bfloat16) converts to a
    Python float exactly.
    """
    if _is_int_like(v):
        return int(v)
    return float(v)


def _result_dtype_for_values(values):
    for v in values:
        if isinstance(v, (complex, np.complexfloating)):
            return COMPLEX128
    return FLOAT64


def exact_sum_oracle(values, dtype=None, skip_nan=False):
    """Reference for ``exact_sum`` / ``exact_nansum`` of the terms ``values``.

    ``values`` is any iterable of Python or NumPy numbers (floats, ints,
    bools, complex).  ``dtype`` is the result dtype (a float format, or a
    complex dtype whose components are rounded separately).

    Rules (in this order):
      * (skip_nan) NaN terms are not terms (a complex term is NaN when
        either part is, and is then dropped whole, as ``np.nansum`` does);
      * any NaN -> NaN; +inf and -inf -> NaN; only +inf -> +inf; only -inf
        -> -inf (whatever the finite terms);
      * otherwise the exact sum of the finite terms, rounded once; an exact
        zero is -0.0 iff there is at least one term and every term is -0.0,
        else +0.0.
    """
    values = list(values)
    if dtype is None:
        dtype = _result_dtype_for_values(values)
    dtype = np.dtype(dtype)
    if dtype in COMPONENT_DTYPE:
        comp = COMPONENT_DTYPE[dtype]
        re_terms, im_terms = [], []
        for v in values:
            if _is_int_like(v):
                re_terms.append(int(v))
                im_terms.append(0)
            else:
                c = complex(v)
                if skip_nan and (math.isnan(c.real) or math.isnan(c.imag)):
                    continue
                re_terms.append(c.real)
                im_terms.append(c.imag)
        re = exact_sum_oracle(re_terms, comp, skip_nan=skip_nan)
        im = exact_sum_oracle(im_terms, comp, skip_nan=skip_nan)
        out = np.empty((), dtype=dtype)
        out.real = re
        out.imag = im
        return out[()]
    if dtype not in FORMATS and dtype not in CODE_RULES:
        raise TypeError(f"oracle: unsupported result dtype {dtype}")

    terms = [_as_python_real(v) for v in values]
    if skip_nan:
        terms = [t for t in terms if not (isinstance(t, float) and math.isnan(t))]

    has_nan = any(isinstance(t, float) and math.isnan(t) for t in terms)
    has_pinf = any(isinstance(t, float) and t == math.inf for t in terms)
    has_ninf = any(isinstance(t, float) and t == -math.inf for t in terms)
    if has_nan or (has_pinf and has_ninf):
        return _to_scalar(math.nan, dtype)
    if has_pinf:
        return _to_scalar(math.inf, dtype)
    if has_ninf:
        return _to_scalar(-math.inf, dtype)

    total = Fraction(0)
    for t in terms:
        total += Fraction(t)  # exact for Python ints and floats
    all_negative_zero = bool(terms) and all(
        isinstance(t, float) and t == 0.0 and math.copysign(1.0, t) < 0
        for t in terms
    )
    return round_fraction(total, dtype, zero_sign=-1 if all_negative_zero else 1)


# ---------------------------------------------------------------------------
# Array-level references (loops over exact_sum_oracle; no NumPy reductions)


def default_result_dtype(in_dtype):
    """Default result dtype of exact_sum for an input dtype."""
    in_dtype = np.dtype(in_dtype)
    if in_dtype in FORMATS or in_dtype in COMPONENT_DTYPE or in_dtype in CODE_RULES:
        return in_dtype
    if in_dtype.kind in "biu":
        return FLOAT64
    raise TypeError(f"no default result dtype for {in_dtype}")


def terms_of(arr):
    """Exact Python terms of the elements of a 1-D array (in order)."""
    arr = np.asarray(arr)
    dt = arr.dtype
    if dt in CODE_RULES:
        return arr.astype(np.float64).tolist()  # exact: every value is a float64
    if dt in FORMATS or (dt.type is ml_dtypes.bfloat16):
        if dt.type is ml_dtypes.bfloat16:
            arr = arr.astype(np.float32)  # exact
        return arr.astype(np.float64).tolist()  # exact for all these formats
    if dt.kind == "c":
        return arr.astype(np.complex128).tolist()  # exact (complex64 -> 128)
    if dt.kind in "iu":
        return [int(v) for v in arr.tolist()]
    if dt.kind == "b":
        return [int(v) for v in arr.tolist()]
    raise TypeError(f"oracle: unsupported input dtype {dt}")


def normalize_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (axis,)
    out = []
    for ax in axis:
        ax = operator.index(ax)
        if not -ndim <= ax < ndim:
            raise ValueError(f"axis {ax} out of range for ndim {ndim}")
        ax %= ndim
        if ax in out:
            raise ValueError("duplicate axis")
        out.append(ax)
    return tuple(out)


def oracle_over_axes(a, axis, rdt, keepdims, where, row_value):
    """Apply ``row_value(terms, rdt)`` to the selected terms of every output
    position of a reduction over ``axis`` (no NumPy reductions).  Returns a
    NumPy scalar for a 0-d result, otherwise an ndarray of dtype ``rdt``."""
    a = np.asarray(a)
    axes = normalize_axes(axis, a.ndim)
    keep = [i for i in range(a.ndim) if i not in axes]
    w = np.broadcast_to(np.asarray(where, dtype=bool), a.shape)
    order = keep + list(axes)
    out_shape = tuple(a.shape[i] for i in keep)
    inner = 1
    for ax in axes:
        inner *= a.shape[ax]
    at = np.transpose(a, order).reshape(out_shape + (inner,))
    wt = np.transpose(w, order).reshape(out_shape + (inner,))
    res = np.empty(out_shape, dtype=rdt)
    for idx in np.ndindex(*out_shape):
        lane = terms_of(at[idx])
        mask = wt[idx].tolist()
        res[idx] = row_value([t for t, m in zip(lane, mask) if m], rdt)
    if keepdims:
        res = res.reshape(tuple(1 if i in axes else a.shape[i] for i in range(a.ndim)))
    if res.ndim == 0:
        return res[()]
    return res


def oracle_reduce(a, axis=None, dtype=None, keepdims=False, where=True,
                  initial=NoValue, skip_nan=False):
    """Reference for exact_sum / exact_nansum over arbitrary axes.

    Returns a NumPy scalar for a 0-d result, otherwise an ndarray of the
    result dtype, exactly like the function under test should.
    """
    a = np.asarray(a)
    rdt = default_result_dtype(a.dtype) if dtype is None else np.dtype(dtype)
    extra = [] if initial is NoValue else [initial]
    return oracle_over_axes(
        a, axis, rdt, keepdims, where,
        lambda terms, r: exact_sum_oracle(terms + extra, r, skip_nan=skip_nan))


def oracle_accumulate(a, axis=0, dtype=None):
    """Each prefix sum along ``axis`` rounded once from its exact value."""
    a = np.asarray(a)
    rdt = default_result_dtype(a.dtype) if dtype is None else np.dtype(dtype)
    (ax,) = normalize_axes(axis, a.ndim)
    at = np.moveaxis(a, ax, -1)
    res = np.empty(at.shape, dtype=rdt)
    for idx in np.ndindex(*at.shape[:-1]):
        lane = terms_of(at[idx])
        for k in range(len(lane)):
            res[idx + (k,)] = exact_sum_oracle(lane[: k + 1], rdt)
    return np.moveaxis(res, -1, ax)


def reduceat_segments(n, indices):
    """(start, stop) of every segment of np.add.reduceat semantics."""
    segs = []
    for i, start in enumerate(indices):
        if i + 1 < len(indices):
            nxt = indices[i + 1]
            stop = nxt if start < nxt else start + 1
        else:
            stop = n
        segs.append((start, stop))
    return segs


def oracle_reduceat(a, indices, axis=0, dtype=None):
    a = np.asarray(a)
    rdt = default_result_dtype(a.dtype) if dtype is None else np.dtype(dtype)
    (ax,) = normalize_axes(axis, a.ndim)
    at = np.moveaxis(a, ax, -1)
    indices = [int(i) for i in indices]
    segs = reduceat_segments(at.shape[-1], indices)
    res = np.empty(at.shape[:-1] + (len(indices),), dtype=rdt)
    for idx in np.ndindex(*at.shape[:-1]):
        lane = terms_of(at[idx])
        for k, (start, stop) in enumerate(segs):
            res[idx + (k,)] = exact_sum_oracle(lane[start:stop], rdt)
    return np.moveaxis(res, -1, ax)
