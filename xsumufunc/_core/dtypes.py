"""Which input dtypes we read, and which result dtype a call rounds into."""

import ml_dtypes
import numpy as np

from .._ufuncs import CODE_FORMATS

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)

#: ml_dtypes' float8, float6 and float4 dtypes (one value per byte), read
#: from ml_dtypes by the extension at import; {dtype: (p, emin, emax)}.
CODES = tuple(CODE_FORMATS)
#: Real dtypes a result can be rounded into.
REAL_RESULTS = (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.float16),
                BFLOAT16) + CODES
#: Complex results: each component is rounded into the matching real dtype.
COMPLEX_RESULTS = {np.dtype(np.complex128): np.dtype(np.float64),
                   np.dtype(np.complex64): np.dtype(np.float32)}
_SUPPORTED_TEXT = ("bool, integer (up to 64 bits), float16, float32, float64, "
                   "bfloat16, the ml_dtypes float8/float6/float4 formats, "
                   "complex64 or complex128")
#: A scale format, refused with its own reason (docs/lowprec.md).
_SCALE_ONLY = np.dtype(ml_dtypes.float8_e8m0fnu) if hasattr(ml_dtypes, "float8_e8m0fnu") else None


#: Binary formats of the real result dtypes: (precision p, emin, emax);
#: emax is the exponent of the top binade (e4m3fn's largest value, 448,
#: lies below the top of it: what lies above is its overflow).
FORMATS = {
    np.dtype(np.float64): (53, -1022, 1023),
    np.dtype(np.float32): (24, -126, 127),
    np.dtype(np.float16): (11, -14, 15),
    BFLOAT16: (8, -126, 127),
    **CODE_FORMATS,
}


def is_code(dtype):
    """Is dtype one of the byte-coded float8/float6/float4 formats?"""
    return dtype in CODE_FORMATS


def _name(dtype):
    return str(dtype)


def native(dtype):
    """The native-byte-order twin of dtype (the loops read native values)."""
    return dtype.newbyteorder("=") if dtype.byteorder not in "=|" else dtype


def input_kind(dtype, func_name):
    """'real' or 'complex' for dtypes we sum exactly; TypeError otherwise."""
    dtype = native(dtype)
    if dtype in REAL_RESULTS or dtype.kind == "b":
        return "real"
    if dtype.kind in "iu" and dtype.itemsize <= 8:
        return "real"
    if dtype in COMPLEX_RESULTS:
        return "complex"
    if dtype == _SCALE_ONLY:
        raise TypeError(
            f"{func_name}: float8_e8m0fnu holds scales (powers of two, no zero, no sign), "
            "not terms to add; convert with .astype(numpy.float32) if a sum of them is meant")
    raise TypeError(
        f"{func_name}: unsupported input dtype {_name(dtype)}; "
        f"supported: {_SUPPORTED_TEXT}")


def _holds_masked(a):
    # np.ma.masked (the MaskedConstant) is a MaskedArray too.
    if isinstance(a, np.ma.MaskedArray):
        return True
    return isinstance(a, (list, tuple)) and any(
        _holds_masked(x) for x in a if isinstance(x, (list, tuple, np.ndarray)))


def reject_masked(a, func_name, argname="a", where=True):
    """TypeError for a numpy.ma.MaskedArray or numpy.ma.masked, also inside a
    list or tuple: np.asarray would drop its mask and every masked value
    would silently become a term.  The one rule for every array argument of
    every public function (xsumufunc._dispatch applies it); `where`: does
    the function take where= (the message says how to use it)."""
    if not _holds_masked(a):
        return
    if argname == "where":
        how = "pass a plain boolean where= (where.filled(False))"
    elif where:
        how = (f"pass the data with where=~mask: {argname}.data and "
               f"where=~numpy.ma.getmaskarray({argname})")
    else:
        how = (f"{func_name} takes no where=, so drop or fill the masked elements: "
               f"{argname}.compressed() or {argname}.filled(...)")
    raise TypeError(
        f"{func_name}: {argname} is a numpy.ma masked array (or numpy.ma.masked); masked "
        f"arrays are not supported (the mask would be ignored): {how}")


#: A 64-bit integer beyond float64's 53 bits splits into two float64 values
#: at this bit (float64_parts).
_SPLIT_BIT = 32


def _fits_float64(values, converted):
    """Is every 64-bit integer of `values` equal to its float64 `converted`?"""
    # Only inside the integer range is the cast back defined; 2**63 as a
    # uint64, or -2**63, are float64 values and pass.
    signed = values.dtype.kind == "i"
    upper = 2.0 ** (8 * values.dtype.itemsize - signed)
    ok = np.all((converted >= (-upper if signed else 0.0)) & (converted < upper))
    return bool(ok and np.array_equal(converted.astype(values.dtype), values))


def integer_halves(values):
    """64-bit integers as two float64 arrays h and l whose sum is each value
    exactly, both of its sign and neither zero unless the value is: then a
    product of each half with an Inf (or NaN) partner is what the product
    of the integer is, and the two add up to it (h or l zero would make
    0 * Inf = NaN; halves of opposite signs Inf - Inf).

    |x| splits at bit 32: h carries its high bits (a multiple of 2**31 of at
    most 33 significant bits), l the low bits; where the low bits are 0, l
    takes 2**31 from h; where the high bits are 0 (|x| < 2**32), h = l = x/2.
    All exact in float64."""
    unit = np.uint64(1 << (_SPLIT_BIT - 1))
    if values.dtype.kind == "i":
        magnitude = np.abs(values).view(np.uint64)   # a new array; |-2**63| wraps to 2**63
    else:
        magnitude = values.astype(np.uint64)         # a native copy
    low = magnitude & np.uint64((1 << _SPLIT_BIT) - 1)
    magnitude -= low
    borrow = (low == 0) & (magnitude != 0)
    magnitude[borrow] -= unit
    low[borrow] = unit
    high, low = magnitude.astype(np.float64), low.astype(np.float64)
    small = high == 0
    high[small] = low[small] = 0.5 * low[small]
    if values.dtype.kind == "i":
        negative = values < 0
        np.negative(high, out=high, where=negative)
        np.negative(low, out=low, where=negative)
    return [high, low]


def float64_parts(values, split=True):
    """Real values as a list of float64 arrays of their shape whose sum is
    each value exactly, the one rule for integers wider than float64.

    One array when every value is a float64 value: every float format we
    read widens exactly, and so do integers within 2**53 (float64 input
    comes back as it is, not a copy).  Two (integer_halves) for 64-bit
    integers when a float64 cannot hold them all; a product of two parts is
    exact in the dot loops, so callers pair the parts and concatenate
    them.  split=False: None instead of the halves (a caller that would
    rather take the values in smaller blocks)."""
    if may_split(values.dtype):
        converted = values.astype(np.float64)
        if _fits_float64(values, converted):
            return [converted]
        del converted
        return integer_halves(values) if split else None
    return [values.astype(np.float64, copy=False)]


def may_split(dtype):
    """Can float64_parts give two parts for values of this dtype?"""
    return dtype.kind in "iu" and dtype.itemsize * 8 > _SPLIT_BIT


def default_result(dtype):
    """np.sum's choice, except that bool and integers sum exactly into float64."""
    dtype = native(dtype)
    if dtype.kind in "biu":
        return np.dtype(np.float64)
    return dtype


def as_result_dtype(requested, kind, func_name, argname):
    """Check a requested result dtype (from dtype= or out=) for an input kind."""
    try:
        dtype = native(np.dtype(requested))
    except TypeError as exc:
        raise TypeError(f"{func_name}: {argname} {requested!r} is not a NumPy dtype") from exc
    allowed = REAL_RESULTS if kind == "real" else tuple(COMPLEX_RESULTS)
    if dtype not in allowed:
        names = ", ".join(_name(d) for d in allowed)
        raise TypeError(
            f"{func_name}: {argname} {_name(dtype)} is not supported for {kind} input; "
            f"the result is rounded into one of: {names}")
    return dtype


def resolve_result(in_dtype, kind, dtype, out, func_name):
    """The dtype the exact result is rounded into, once.

    ``dtype=`` wins; otherwise the dtype of `out` (an ndarray, already
    unwrapped by spec.unwrap_out, or None), so that the exact value is
    rounded straight into it, not rounded and then cast; otherwise the
    default for the input.
    """
    if dtype is not None:
        return as_result_dtype(dtype, kind, func_name, "dtype")
    if out is not None:
        return as_result_dtype(out.dtype, kind, func_name, "out dtype")
    return default_result(in_dtype)


def component(dtype):
    """Real dtype of one component of a result dtype."""
    return COMPLEX_RESULTS.get(dtype, dtype)


def ml_dtype_named(name):
    """The dtype of that name among the formats we read from ml_dtypes
    (bfloat16, the float8/float6/float4 formats), or None."""
    for dtype in (BFLOAT16, *CODES):
        if dtype.name == name:
            return dtype
    return None
