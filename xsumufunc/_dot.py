"""exact_dot: vector dot products with no product ever rounded."""

import numpy as np

from . import _dtypes
from ._dispatch import backend_for
from ._reduce import check_out
from ._ufuncs import exact_dot_ufunc

_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_NARROW = {_F16, _dtypes.BFLOAT16, _F32}
# Integers whose every value is a float64, so products stay exact.
_SMALL_INTEGER_BITS = 32


def _check_operand(x, name):
    dtype = _dtypes.native(x.dtype)
    kind = _dtypes.input_kind(dtype, f"exact_dot: {name}")
    return dtype, kind


def _compute_dtype(da, db):
    """A float dtype that holds every value of both operands exactly (the loops
    take two operands of one dtype)."""
    if da == db and da in _dtypes.REAL_RESULTS:
        return da
    if da in _NARROW and db in _NARROW:
        return _F32          # float16 and bfloat16 values are all float32 values
    return _F64


def _default_result(da, db):
    """np.result_type for floats (float16 with bfloat16: float32); float64 when
    both operands are bool or integer."""
    if da.kind in "biu" and db.kind in "biu":
        return _F64
    if {da, db} == {_F16, _dtypes.BFLOAT16}:
        return _F32
    res = np.result_type(da, db)
    return res if res in _dtypes.REAL_RESULTS else _F64


def _as_exact(x, dtype, name):
    """x in dtype, refusing 64-bit integers that a float64 cannot hold exactly."""
    if x.dtype.kind in "iu" and x.dtype.itemsize * 8 > _SMALL_INTEGER_BITS:
        converted = x.astype(dtype)
        in_range = np.all(np.abs(converted) < 2.0**63)      # the cast back is defined
        if not (in_range and np.array_equal(converted.astype(x.dtype), x)):
            raise ValueError(
                f"exact_dot: {name} holds integers that a float64 cannot hold exactly, "
                "which this version cannot multiply exactly; pass float64 values if "
                "rounding them is intended")
        return converted
    return x.astype(dtype, copy=False)


def vector_layout(a, b, axis, func_name="exact_dot"):
    """Checks of exact_dot's operands (NumPy or dask arrays): their (dtype,
    kind), the vector axis of each, the broadcast shape of the other axes,
    and where keepdims puts the length-1 axis (counted from the end, where
    a's axis was)."""
    kinds = (_check_operand(a, "a"), _check_operand(b, "b"))
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"{func_name}: a and b must have at least one dimension")
    try:
        axis_a = np.lib.array_utils.normalize_axis_index(axis, a.ndim, f"{func_name}: a")
        axis_b = np.lib.array_utils.normalize_axis_index(axis, b.ndim, f"{func_name}: b")
    except TypeError:
        raise TypeError(f"{func_name}: axis must be an integer, not {axis!r}") from None
    if a.shape[axis_a] != b.shape[axis_b]:
        raise ValueError(
            f"{func_name}: a and b have different lengths along axis {axis}: "
            f"{a.shape[axis_a]} and {b.shape[axis_b]}")
    loop_a = a.shape[:axis_a] + a.shape[axis_a + 1:]
    loop_b = b.shape[:axis_b] + b.shape[axis_b + 1:]
    try:
        shape = np.broadcast_shapes(loop_a, loop_b)
    except ValueError:
        raise ValueError(f"{func_name}: shapes {a.shape} and {b.shape} do not broadcast "
                         f"(outside axis {axis})") from None
    kept_at = len(shape) - (a.ndim - 1 - axis_a)
    return kinds[0], kinds[1], (axis_a, axis_b), shape, kept_at


def exact_dot(a, b, axis=-1, dtype=None, out=None, keepdims=False):
    """Dot product of vectors along `axis`, exact and rounded once.

    The result is the exact value of ``sum(conj(a[i]) * b[i])`` rounded to the
    nearest value of the result dtype (ties to even): no product and no
    partial sum is ever rounded, so products may overflow or underflow on
    their own and the result is still right.  Semantics of ``numpy.vecdot``:
    the other axes broadcast, and the first argument is conjugated.

    Parameters
    ----------
    a, b : array_like
        float16, float32, float64, bfloat16, bool, integer (values within
        2**53) or complex values; the lengths along `axis` must be equal.
    axis : int, optional
        The axis of the vectors, in each argument (default: the last).
    dtype : dtype, optional
        The result dtype.  Default: the common dtype of a and b (float32 for
        float16 with bfloat16; float64 for bool and integers).
    out : ndarray, optional
        Where to put the result; with ``dtype=None`` the result is rounded
        directly into ``out.dtype``.
    keepdims : bool, optional
        Keep `axis` as a length-1 axis.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_dot
    >>> exact_dot([1e300, -1e300, 1.0], [1e300, 1e300, 1.0])     # np.dot gives nan
    np.float64(1.0)
    >>> exact_dot([2.0**-540] * 1024, [2.0**-540] * 1024) == 2.0**-1070   # np.dot gives 0.0
    np.True_
    >>> exact_dot(np.ones((2, 3)), [1.0, 2.0, 3.0])
    array([6., 6.])
    >>> exact_dot([1j], [1j])                  # conjugates the first argument
    np.complex128(1+0j)
    """
    if (type(a) is not np.ndarray or type(b) is not np.ndarray) and (
            backend := backend_for(a, b)) is not None:
        return backend.dot(a, b, axis, dtype, out, keepdims)
    _dtypes.reject_masked(a, "exact_dot")
    _dtypes.reject_masked(b, "exact_dot")
    a = np.asarray(a)
    b = np.asarray(b)
    (da, ka), (db, kb), (axis_a, axis_b), shape, kept_at = vector_layout(a, b, axis)
    out_shape = shape[:kept_at] + (1,) + shape[kept_at:] if keepdims else shape

    kind = "complex" if "complex" in (ka, kb) else "real"
    default = _default_result(da, db) if kind == "real" else np.result_type(da, db)
    if out is not None:
        out = check_out(out, out_shape, "exact_dot")      # first: out.dtype is read next
    if dtype is not None:
        result = _dtypes.as_result_dtype(dtype, kind, "exact_dot", "dtype")
    elif out is not None:
        result = _dtypes.as_result_dtype(out.dtype, kind, "exact_dot", "out dtype")
    else:
        result = default

    target = None
    if out is not None and out.dtype == result:
        target = np.squeeze(out, axis=kept_at) if keepdims else out
    part = _dtypes.component(result)
    axes = [(axis_a,), (axis_b,), ()]
    if kind == "real":
        compute = _compute_dtype(da, db)
        res = exact_dot_ufunc(_as_exact(a, compute, "a"), _as_exact(b, compute, "b"),
                              out=target, axes=axes, signature=(compute, compute, part))
    else:
        # conj(a) . b, per component, each as one exact dot of twice the length:
        # real = ar.br + ai.bi, imag = ar.bi - ai.br.
        compute = _compute_dtype(_dtypes.component(da), _dtypes.component(db))
        ar, ai = (a.real, a.imag) if ka == "complex" else (a, np.zeros_like(a))
        br, bi = (b.real, b.imag) if kb == "complex" else (b, np.zeros_like(b))
        ar, ai, br, bi = (_as_exact(x, compute, n) for x, n in
                          ((ar, "a"), (ai, "a"), (br, "b"), (bi, "b")))
        res = np.empty(shape, result) if target is None else target
        exact_dot_ufunc(np.concatenate([ar, ai], axis=axis_a),
                        np.concatenate([br, bi], axis=axis_b), out=res.real, axes=axes,
                        signature=(compute, compute, part))
        exact_dot_ufunc(np.concatenate([ar, -ai], axis=axis_a),
                        np.concatenate([bi, br], axis=axis_b), out=res.imag, axes=axes,
                        signature=(compute, compute, part))
    res = np.asarray(res)
    if keepdims:
        res = np.expand_dims(res, kept_at)
    if out is not None:
        if target is None:
            np.copyto(out, res, casting="same_kind")
        return out
    return res[()] if res.ndim == 0 else res
