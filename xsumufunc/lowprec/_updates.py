"""The NumPy bodies of the low-precision updates (public names and the
overview: ``xsumufunc.lowprec``)."""

# Hints as written (ArrayLike, DTypeLike), not NumPy's expanded Unions: help()
# and the signatures stay readable.
from __future__ import annotations

import numbers
from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from .._core.dtypes import CODES
from .._core.spec import normalize_axes
from .._lowprec_ufuncs import (
    _stochastic_round_to_bfloat16,
    _stochastic_round_to_float16,
    _stochastic_round_to_float32,
    kahan_add_ufunc,
    kahan_sum_ufunc,
    stochastic_add_ufunc,
)
from . import _codes

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
FLOAT16 = np.dtype(np.float16)
FLOAT32 = np.dtype(np.float32)
FLOAT64 = np.dtype(np.float64)
UINT16 = np.dtype(np.uint16)
UINT32 = np.dtype(np.uint32)

#: Dtypes weights (and compensations) can be stored in: the C loops' and
#: ml_dtypes' float8/float6/float4 formats (NumPy bodies in _codes.py).
STORAGE_DTYPES = (BFLOAT16, FLOAT16, FLOAT32) + CODES
#: Float dtypes accepted as updates or values to round.
_FLOAT_INPUTS = (BFLOAT16, FLOAT16, FLOAT32, FLOAT64)
_SUM_DTYPES = (BFLOAT16, FLOAT16, FLOAT32, FLOAT64)
_ROUND_UFUNCS = {BFLOAT16: _stochastic_round_to_bfloat16,
                 FLOAT16: _stochastic_round_to_float16,
                 FLOAT32: _stochastic_round_to_float32}


def _name(dtype):
    return str(dtype)


def _names(dtypes):
    return ", ".join(_name(d) for d in dtypes)


def _native(arr: np.ndarray) -> np.ndarray:
    if arr.dtype.byteorder not in "=|":
        return arr.astype(arr.dtype.newbyteorder("="))
    return arr


def _float_array(value: Any, func: str, argname: str) -> np.ndarray:
    """value as a native array of a float dtype we read exactly.

    Python and NumPy scalars of other kinds are refused rather than rounded:
    an int that float64 cannot hold, or a complex, is a TypeError.
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, np.generic):
        if isinstance(value, bool) or float(value) != value:
            raise TypeError(f"{func}: {argname} {value!r} is not exactly a float64 value")
        return np.asarray(float(value), dtype=FLOAT64)
    if isinstance(value, float) and not isinstance(value, np.generic):
        return np.asarray(value, dtype=FLOAT64)
    arr = np.asarray(value)
    dtype = np.dtype(arr.dtype.newbyteorder("=")) if arr.dtype.byteorder not in "=|" else arr.dtype
    if dtype not in _FLOAT_INPUTS:
        raise TypeError(
            f"{func}: {argname} has dtype {_name(arr.dtype)}; allowed: {_names(_FLOAT_INPUTS)}")
    return _native(arr)


def _storage_array(value: Any, func: str, argname: str) -> np.ndarray:
    if not isinstance(value, np.ndarray) and not isinstance(value, np.generic):
        raise TypeError(f"{func}: {argname} must be a NumPy array of dtype "
                        f"{_names(STORAGE_DTYPES)}, not {type(value).__name__}")
    arr = np.asarray(value)
    if arr.dtype not in STORAGE_DTYPES:
        raise TypeError(f"{func}: {argname} has dtype {_name(arr.dtype)}; "
                        f"allowed: {_names(STORAGE_DTYPES)}")
    return _native(arr)


def _update_for(storage, u):
    """The update array in a dtype with a loop for this storage dtype: its
    own, float32 or float64 (narrow updates of another dtype are widened to
    float32, exactly)."""
    if u.dtype == storage or u.dtype in (FLOAT32, FLOAT64):
        return u
    return u.astype(FLOAT32)


def _check_out(out, dtype, shape, func, argname):
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{func}: {argname} must be a NumPy array, not {type(out).__name__}")
    if out.dtype != dtype:
        raise TypeError(f"{func}: {argname} has dtype {_name(out.dtype)}; it must be "
                        f"{_name(dtype)} (the result is never cast)")
    if out.shape != shape:
        raise ValueError(f"{func}: {argname} has shape {out.shape}; expected {shape}")
    if not out.flags.writeable:
        raise ValueError(f"{func}: {argname} is read-only")


def _random_bits(bits, rng, shape, func):
    """uint16/uint32 bits of the given shape, from bits= or drawn from rng."""
    if (bits is None) == (rng is None):
        raise ValueError(f"{func}: give exactly one of bits= (a uint16 or uint32 array) "
                         "or rng= (a numpy.random.Generator)")
    if rng is not None:
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"{func}: rng must be a numpy.random.Generator, "
                            f"not {type(rng).__name__}")
        return rng.integers(0, 1 << 32, size=shape, dtype=np.uint32)
    bits = np.asarray(bits)
    if bits.dtype.byteorder not in "=|":
        bits = _native(bits)
    if bits.dtype not in (UINT16, UINT32):
        raise TypeError(f"{func}: bits has dtype {bits.dtype}; allowed: uint16, uint32")
    try:
        full = np.broadcast_shapes(bits.shape, shape)
    except ValueError:
        full = None
    if full != shape:
        raise ValueError(f"{func}: bits of shape {bits.shape} does not broadcast to "
                         f"the result shape {shape}")
    return bits


def _unwrap(result, shape):
    return result[()] if shape == () and isinstance(result, np.ndarray) else result


def kahan_add(w: np.ndarray | np.generic, c: np.ndarray | np.generic, u: ArrayLike,
              out: tuple[np.ndarray, np.ndarray] | None = None,
              compute_dtype: DTypeLike | None = None) -> tuple[Any, Any]:
    """Add updates ``u`` to weights ``w`` with Kahan compensation ``c``.

    Algorithm 1 of Zamirai et al. (2021), element-wise, every operation
    rounded to nearest (ties to even) in the storage dtype of ``w``::

        y = u - c            # compensate the update
        s = w + y            # accumulate
        c_new = (s - w) - y  # measure the error
        w_new = s

    With this (the paper's) sign convention ``w_new - c_new`` approximates
    the exact running sum: ``c`` is what was added too much.  optimi's buffer
    is ``-c``.  Start from ``c = 0``.

    Parameters
    ----------
    w, c : ndarray
        Weights and compensation, both bfloat16, float16 or float32 (the
        same dtype); broadcast together with ``u``.
    u : array_like
        Updates: the storage dtype, float32 or float64 (read exactly, so
        ``u - c`` is rounded once), or a Python float.  float16/bfloat16
        updates for another storage dtype are widened to float32 (exact).
    out : tuple of two ndarrays, optional
        Where to write ``(w_new, c_new)``; may be ``(w, c)`` for an in-place
        update.  Their dtype must be the storage dtype.
    compute_dtype : float32 or float64, optional
        Compute the update in this wider dtype (optimi's way, with float32):
        ``u`` is rounded into it, ``y``, ``s`` and the error are computed
        with every operation rounded to nearest in it, then ``w_new`` is
        ``s`` rounded to nearest into w's dtype and ``c_new = (w_new - w) -
        y`` (the error of that rounding, measured in compute_dtype) is
        rounded into c's dtype.  With 2 or 3 mantissa bits (float8) the
        default, every operation in the storage format, stalls: ``w + y``
        rounds back to ``w`` while c saturates (w = 1, c = -0.125 after
        ten updates of 0.01 in float8_e5m2); computed in float32, the
        compensation carries the updates until they move w.

    Returns
    -------
    (w_new, c_new) : tuple of ndarrays of the storage dtype

    Examples
    --------
    >>> import numpy as np, ml_dtypes
    >>> from xsumufunc import kahan_add
    >>> w = np.array([1.0, 2.0], dtype=ml_dtypes.bfloat16)
    >>> c = np.zeros_like(w)
    >>> for _ in range(8):
    ...     _ = kahan_add(w, c, np.float32(2.0**-10), out=(w, c))   # in place
    >>> w.astype(float), c.astype(float)   # at 2.0, 2**-7 is half an ulp: kept in c
    (array([1.0078125, 2.       ]), array([ 0.       , -0.0078125]))

    In float8_e5m2 (2 mantissa bits), computed in float32, ten updates of
    0.01 move w from 1 to 1.0 + 0.1 as nearly as the format allows:

    >>> w = np.array([1.0], dtype=ml_dtypes.float8_e5m2)
    >>> c = np.zeros(1, dtype=np.float32)
    >>> for _ in range(10):
    ...     _ = kahan_add(w, c, 0.01, out=(w, c), compute_dtype=np.float32)
    >>> float(w[0]), round(float(w[0]) - float(c[0]), 6)   # w - c tracks 1.1
    (1.0, 1.1)
    """
    func = "kahan_add"
    w = _storage_array(w, func, "w")
    c = _storage_array(c, func, "c")
    wider = (BFLOAT16, FLOAT16, FLOAT32) if w.dtype in CODES else ()
    if c.dtype != w.dtype and c.dtype not in wider:
        allowed = _names((w.dtype,) + wider)
        raise TypeError(f"{func}: c has dtype {_name(c.dtype)}; for w of dtype "
                        f"{_name(w.dtype)} it must be {allowed}")
    u = _float_array(u, func, "u")
    coded = w.dtype in CODES
    u = u.astype(FLOAT64) if coded else _update_for(w.dtype, u)
    shape = np.broadcast_shapes(w.shape, c.shape, u.shape)
    if out is not None:
        if not isinstance(out, tuple) or len(out) != 2:
            raise TypeError(f"{func}: out must be a tuple of two arrays (w_out, c_out)")
        _check_out(out[0], w.dtype, shape, func, "out[0]")
        _check_out(out[1], c.dtype, shape, func, "out[1]")
    if compute_dtype is not None:
        compute = np.dtype(compute_dtype)
        if compute not in (FLOAT32, FLOAT64):
            raise TypeError(f"{func}: compute_dtype must be float32 or float64, not "
                            f"{_name(compute)}")
        w_b, c_b = np.broadcast_arrays(w, c)
        w_new, c_new = _codes.kahan_add_computed(w_b, c_b, u.astype(FLOAT64), compute)
    elif not coded:
        if out is None:
            return tuple(_unwrap(r, shape) for r in kahan_add_ufunc(w, c, u))
        return kahan_add_ufunc(w, c, u, out=out)
    else:
        w_b, c_b = np.broadcast_arrays(w, c)
        w_new, c_new = _codes.kahan_add(w_b, c_b, u)
    if out is None:
        return _unwrap(np.broadcast_to(w_new, shape).copy(), shape), \
            _unwrap(np.broadcast_to(c_new, shape).copy(), shape)
    out[0][...] = w_new
    out[1][...] = c_new
    return out


def stochastic_round(x: ArrayLike, dtype: DTypeLike, bits: ArrayLike | None = None,
                     rng: np.random.Generator | None = None, out: np.ndarray | None = None) -> Any:
    """Round ``x`` into ``dtype`` stochastically: unbiased, reproducible.

    Let ``down`` be the neighbour of ``x`` in ``dtype`` towards zero, ``ulp``
    the distance to the next one away from zero and ``frac = (|x| - |down|)
    / ulp`` (exact, in [0, 1)).  With a ``k``-bit random integer ``r`` (k = 16
    for uint16 bits, 32 for uint32) the result is the neighbour away from
    zero exactly when ``r < frac * 2**k``, else ``down``.  A uniform ``r``
    rounds away with probability ``ceil(frac * 2**k) / 2**k``: exactly
    ``frac`` when ``frac * 2**k`` is an integer (float32 -> bfloat16 with
    uint16 bits), otherwise at most ``2**-k`` more.  ``stochastic_round(-x)``
    with the same bits is ``-stochastic_round(x)``.

    Exact values never move; NaN stays NaN, +-inf stays +-inf.  Above the
    largest finite value the neighbour away from zero is +-inf (so a finite
    value there overflows with probability ``frac``), and ``|x| >=
    2**(emax+1)`` gives +-inf, as rounding to nearest would.

    Parameters
    ----------
    x : array_like
        float64, float32 (float16 and bfloat16 are widened exactly).
    dtype : dtype
        bfloat16, float16 or float32 (float32 from float64 only is useful;
        narrower inputs are returned unchanged).
    bits : ndarray of uint16 or uint32, optional
        The random integers, broadcastable to ``x``'s shape.
    rng : numpy.random.Generator, optional
        Draws ``rng.integers(0, 2**32, size=x.shape, dtype=np.uint32)`` as the
        bits.  Exactly one of ``bits`` and ``rng`` is required.
    out : ndarray of ``dtype``, optional

    Returns
    -------
    ndarray of ``dtype`` (a scalar for 0-d ``x``)

    Examples
    --------
    >>> import numpy as np, ml_dtypes
    >>> from xsumufunc import stochastic_round
    >>> x = np.float32(1 + 2.0**-9)             # 1/4 of the way from 1 to 1 + 2**-7
    >>> bits = np.arange(0, 65536, 4096, dtype=np.uint16)     # 16 values of r
    >>> stochastic_round(np.full(16, x), ml_dtypes.bfloat16, bits=bits).astype(float)
    array([1.0078125, 1.0078125, 1.0078125, 1.0078125, 1.       , 1.       ,
           1.       , 1.       , 1.       , 1.       , 1.       , 1.       ,
           1.       , 1.       , 1.       , 1.       ])
    >>> r = stochastic_round(np.full(100_000, x), ml_dtypes.bfloat16,
    ...                      rng=np.random.default_rng(0))
    >>> bool(abs(r.astype(np.float64).mean() - float(x)) < 1e-4)
    True
    """
    func = "stochastic_round"
    try:
        target = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"{func}: dtype {dtype!r} is not a NumPy dtype") from exc
    if target not in _ROUND_UFUNCS and target not in CODES:
        raise TypeError(f"{func}: dtype {_name(target)} is not supported; "
                        f"allowed: {_names(STORAGE_DTYPES)}")
    x = _float_array(x, func, "x")
    if target in CODES:
        x = x.astype(FLOAT64)                                        # exact
        r = _random_bits(bits, rng, x.shape, func)
        if out is not None:
            _check_out(out, target, x.shape, func, "out")
        result = _codes.stochastic_round(x, r, 8 * r.dtype.itemsize, target)
        if out is None:
            return _unwrap(result, x.shape)
        out[...] = result
        return out
    if target == FLOAT32 or x.dtype in (BFLOAT16, FLOAT16):
        x = x.astype(FLOAT64 if target == FLOAT32 else FLOAT32)     # exact
    shape = x.shape
    r = _random_bits(bits, rng, shape, func)
    ufunc = _ROUND_UFUNCS[target]
    if out is not None:
        _check_out(out, target, shape, func, "out")
    if target == FLOAT32:
        result = ufunc(x, r) if out is None else ufunc(x, r, out=out)
        return _unwrap(result, shape) if out is None else out
    if out is None:
        patterns = ufunc(x, r)
        return _unwrap(np.asarray(patterns).view(target), shape)
    ufunc(x, r, out=out.view(UINT16))
    return out


def stochastic_add(w: np.ndarray | np.generic, u: ArrayLike, bits: ArrayLike | None = None,
                   rng: np.random.Generator | None = None, out: np.ndarray | None = None) -> Any:
    """``w + u`` computed exactly, then rounded stochastically into w's dtype.

    The exact sum (two-sum in float64, exact for these operands) is rounded
    as :func:`stochastic_round` describes, with the same use of ``bits``.

    Parameters
    ----------
    w : ndarray
        Weights: bfloat16, float16 or float32.
    u : array_like
        Updates: w's dtype, float32 or float64 (or a Python float).
    bits : ndarray of uint16 or uint32, optional
        Random integers broadcastable to the broadcast shape of ``w`` and ``u``.
    rng : numpy.random.Generator, optional
        Draws ``rng.integers(0, 2**32, size=shape, dtype=np.uint32)``.  Exactly
        one of ``bits`` and ``rng`` is required.
    out : ndarray of w's dtype, optional
        May be ``w`` itself.

    Returns
    -------
    ndarray of w's dtype

    Examples
    --------
    >>> import numpy as np, ml_dtypes
    >>> from xsumufunc import stochastic_add
    >>> w = np.ones(10_000, dtype=ml_dtypes.bfloat16)
    >>> rng = np.random.default_rng(1)
    >>> for _ in range(10):
    ...     _ = stochastic_add(w, np.float32(1e-3), rng=rng, out=w)
    >>> bool(1.0095 < w.astype(np.float64).mean() < 1.0105)   # 10 * 1e-3 arrived on average
    True
    """
    func = "stochastic_add"
    w = _storage_array(w, func, "w")
    u = _float_array(u, func, "u")
    coded = w.dtype in CODES
    u = u.astype(FLOAT64) if coded else _update_for(w.dtype, u)
    shape = np.broadcast_shapes(w.shape, u.shape)
    r = _random_bits(bits, rng, shape, func)
    if coded:
        if out is not None:
            _check_out(out, w.dtype, shape, func, "out")
        result = _codes.stochastic_add(w, u, r, 8 * r.dtype.itemsize)
        if out is None:
            return _unwrap(result, shape)
        out[...] = result
        return out
    if out is None:
        return _unwrap(stochastic_add_ufunc(w, u, r), shape)
    _check_out(out, w.dtype, shape, func, "out")
    return stochastic_add_ufunc(w, u, r, out=out)


def kahan_sum(a: ArrayLike, axis: int | None = -1) -> Any:
    """Kahan-compensated sum (NOT exact), every operation in a's dtype.

    The classic compensated summation, a cheap reference to compare with
    :func:`xsumufunc.exact_sum`: each addition and subtraction is rounded to
    nearest in the input dtype, so the result equals folding
    :func:`kahan_add` over the terms from ``w = -0.0, c = 0``.  An empty sum
    is +0.0.

    Parameters
    ----------
    a : array_like
        float64, float32, float16 or bfloat16.
    axis : int or None, optional
        The axis to sum over (default the last); None sums all elements.

    Returns
    -------
    numpy scalar or ndarray of a's dtype

    Examples
    --------
    >>> import numpy as np, ml_dtypes
    >>> from xsumufunc import kahan_sum, exact_sum
    >>> x = np.full(1000, 0.01, dtype=ml_dtypes.bfloat16)
    >>> float(np.sum(x)), float(kahan_sum(x)), float(exact_sum(x))
    (4.0, 10.0, 10.0)
    """
    func = "kahan_sum"
    arr = np.asarray(a)     # Python floats give float64; ints are refused below
    if arr.dtype.byteorder not in "=|":
        arr = _native(arr)
    if arr.dtype not in _SUM_DTYPES:
        raise TypeError(f"{func}: a has dtype {_name(arr.dtype)}; allowed: "
                        f"{_names(_SUM_DTYPES)}")
    if axis is None:
        arr = arr.reshape(-1)
        axis = -1
    elif isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"{func}: axis must be an int or None, not {axis!r}")
    if arr.ndim == 0:
        raise ValueError(f"{func}: a is 0-d; give axis=None to sum its one element")
    (axis,) = normalize_axes(int(axis), arr.ndim, func)
    return kahan_sum_ufunc(arr, axis=axis)
