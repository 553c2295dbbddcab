"""The exact functions of the array-API namespace, with the standard's
signatures and result dtypes.

Floating sums, means, cumulative sums and dot products are exact and rounded
once into the result dtype (the input dtype unless ``dtype=`` says otherwise).
Integer sums follow the standard's integer result dtypes and wrap around as
NumPy does; integer arithmetic is exact, so those are NumPy's own.  The
2-norm is the correctly rounded square root of the exact sum of squares.

Arrays of other libraries (array-api-strict, torch CPU tensors, ...) are
read through DLPack and the results returned in their namespace; see
:mod:`xsumufunc._backends.foreign`.

Examples
--------
>>> import numpy as np
>>> from xsumufunc import array_api as xp
>>> x = xp.asarray([1e100, 1.0, -1e100])
>>> xp.sum(x)                       # np.sum gives 0.0
array(1.)
>>> xp.cumulative_sum(x, include_initial=True)
array([0.e+000, 1.e+100, 1.e+100, 1.e+000])
"""

# Hints as written (ArrayLike, DTypeLike), not NumPy's expanded Unions: help()
# and the signatures stay readable.
from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from .._api.add import exact_add
from .._api.dot import exact_dot
from .._api.pairs import exact_matmul
from .._api.stats import exact_std, exact_var
from .._api.sums import exact_mean, exact_sum
from .._backends.plans import declare
from .._core import dtypes as _dtypes
from .._core import norm as _norm
from .._core.spec import kept_shape, normalize_axes
from .._dispatch import dispatching

_INT64 = np.dtype(np.int64)
_UINT64 = np.dtype(np.uint64)


def _accepting_foreign(*arrays):
    """Let the decorated function (written for NumPy arrays) take the arrays
    of other libraries too: they are viewed as NumPy arrays and the result is
    returned in their namespace.  Dask arrays reach the public functions
    called inside, which are lazy for them."""
    return lambda func: dispatching(func.__name__, arrays, backends=("foreign",))(func)


def _as_array(x):
    """Results are arrays (0-d for full reductions), as the standard says."""
    return x if type(x) is np.ndarray else np.asarray(x)


def _check_array(x, func_name, argname="x"):
    if not isinstance(x, (np.ndarray, np.generic)):
        raise TypeError(f"{func_name}: {argname} must be an array, not {type(x).__name__}")
    return np.asarray(x)


def _default_integer_result(dtype):
    """The standard's sum dtype for bool and integers: the default integer
    (int64) for signed and bool, uint64 for unsigned; wider stays."""
    if dtype.kind == "u":
        return _UINT64
    return _INT64


def _resolve_dtype(x, dtype, func_name):
    """The result dtype of a sum or cumulative sum of x (None: the standard's
    default)."""
    if dtype is None:
        if x.dtype.kind in "biu":
            return _default_integer_result(x.dtype)
        return _dtypes.native(x.dtype)
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{func_name}: dtype {dtype!r} is not a data type") from None


def _summable(dtype):
    """Is dtype one we sum exactly (ml_dtypes' formats included: kind 'V')?"""
    try:
        _dtypes.input_kind(dtype, "")
    except TypeError:
        return False
    return True


def _exact_into(x, result, compute, func_name):
    """Run compute(values, dtype) exactly into a float or complex `result`;
    real input into a complex result gets a zero imaginary part."""
    kind = _dtypes.input_kind(x.dtype, func_name)
    if result.kind == "c" and kind == "real":
        part = _dtypes.component(_dtypes.as_result_dtype(result, "complex", func_name,
                                                         "dtype"))
        real = np.asarray(compute(x, part))
        out = np.zeros(real.shape, result)
        out.real = real
        return out
    return compute(x, result)


@_accepting_foreign("x")
def sum(x: Any, /, *, axis: int | tuple[int, ...] | None = None, dtype: DTypeLike | None = None,
        keepdims: bool = False) -> Any:
    """Sum of the elements of x over `axis`: exact, rounded once.

    Parameters
    ----------
    x : array
        Input array (NumPy, or any CPU array speaking DLPack / the array API).
    axis : None, int or tuple of ints, optional
        Axes to sum over (default: all).
    dtype : dtype, optional
        The result dtype.  Default: the input dtype for floating inputs,
        int64 for bool and signed integers, uint64 for unsigned integers.
        A floating `dtype` is where the exact sum is rounded (never how it is
        accumulated); integer results wrap around as NumPy's do.
    keepdims : bool, optional
        Keep the reduced axes as length-1 axes.

    Returns
    -------
    array
        A 0-d array for a full reduction.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import array_api as xp
    >>> xp.sum(xp.asarray([1e100, 1.0, -1e100]))
    array(1.)
    >>> float(xp.sum(xp.asarray([1.0, 2.0**-30], dtype=xp.float32), dtype=xp.float64))
    1.0000000009313226
    >>> xp.sum(xp.asarray([[1, 2], [3, 4]], dtype=xp.int8), axis=0)
    array([4, 6])
    >>> xp.sum(xp.asarray([200, 100], dtype=xp.uint8)).dtype
    dtype('uint64')
    """
    x = _check_array(x, "sum")
    result = _resolve_dtype(x, dtype, "sum")
    if result.kind in "biu" or not _summable(x.dtype) or (
            x.dtype.kind == "c" and result.kind != "c"):
        # Integer results are exact in NumPy; other kinds get NumPy's errors.
        return _as_array(np.sum(x, axis=axis, dtype=result, keepdims=keepdims))
    return _as_array(_exact_into(
        x, result, lambda v, d: exact_sum(v, axis=axis, dtype=d, keepdims=keepdims), "sum"))


@_accepting_foreign("x")
def mean(x: Any, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Any:
    """Arithmetic mean over `axis`: the exact sum divided by the count,
    rounded once into the input dtype (float64 for bool and integers).

    The mean of no elements is NaN (with NumPy's RuntimeWarning).

    Examples
    --------
    >>> from xsumufunc import array_api as xp
    >>> xp.mean(xp.asarray([1e308, 1e308]))          # np.mean gives inf
    array(1.e+308)
    >>> xp.mean(xp.asarray([[1.0, 2.0], [4.0, 8.0]], dtype=xp.float32), axis=1)
    array([1.5, 6. ], dtype=float32)
    """
    x = _check_array(x, "mean")
    return _as_array(exact_mean(x, axis=axis, keepdims=keepdims))


@_accepting_foreign("x")
def var(x: Any, /, *, axis: int | tuple[int, ...] | None = None, correction: float = 0.0,
        keepdims: bool = False) -> Any:
    """Variance about the exact mean, exact and rounded once into x's dtype.

    The divisor is ``n - correction`` (0: the population variance, 1: the
    sample variance); see :func:`xsumufunc.exact_var`.

    Examples
    --------
    >>> from xsumufunc import array_api as xp
    >>> xp.var(xp.asarray([1.0, 2.0, 3.0, 4.0]), correction=1)
    array(1.66666667)
    """
    x = _check_array(x, "var")
    return _as_array(exact_var(x, axis=axis, ddof=correction, keepdims=keepdims))


@_accepting_foreign("x")
def std(x: Any, /, *, axis: int | tuple[int, ...] | None = None, correction: float = 0.0,
        keepdims: bool = False) -> Any:
    """Standard deviation: the correctly rounded root of the exact variance.

    Examples
    --------
    >>> from xsumufunc import array_api as xp
    >>> xp.std(xp.asarray([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]))
    array(2.)
    """
    x = _check_array(x, "std")
    return _as_array(exact_std(x, axis=axis, ddof=correction, keepdims=keepdims))


@_accepting_foreign("x")
def cumulative_sum(x: Any, /, *, axis: int | None = None, dtype: DTypeLike | None = None,
                   include_initial: bool = False) -> Any:
    """Cumulative sums along `axis`, each exact and rounded once.

    Parameters
    ----------
    x : array
        At least one dimension.
    axis : int, optional
        The axis; may be omitted only for a 1-D x.
    dtype : dtype, optional
        The result dtype, chosen as for :func:`sum`.
    include_initial : bool, optional
        Start with the additive identity (zero), making the axis one longer.

    Examples
    --------
    >>> from xsumufunc import array_api as xp
    >>> xp.cumulative_sum(xp.asarray([1e100, 1.0, -1e100, 1.0]))
    array([1.e+100, 1.e+100, 1.e+000, 2.e+000])
    >>> xp.cumulative_sum(xp.asarray([[1, 2], [3, 4]], dtype=xp.int16), axis=1,
    ...                   include_initial=True)
    array([[0, 1, 3],
           [0, 3, 7]])
    """
    x = _check_array(x, "cumulative_sum")
    if x.ndim == 0:
        raise ValueError("cumulative_sum: x must have at least one dimension")
    if axis is None:
        if x.ndim != 1:
            raise ValueError("cumulative_sum: axis must be given when x has more than "
                             f"one dimension (x has {x.ndim})")
        axis = 0
    try:
        (axis,) = normalize_axes(operator.index(axis), x.ndim, "cumulative_sum")
    except TypeError:
        raise TypeError(f"cumulative_sum: axis must be an integer, not {axis!r}") from None
    result = _resolve_dtype(x, dtype, "cumulative_sum")
    if include_initial not in (True, False):
        raise TypeError(f"cumulative_sum: include_initial must be a bool, not "
                        f"{include_initial!r}")
    if result.kind in "biu" or not _summable(x.dtype) or (
            x.dtype.kind == "c" and result.kind != "c"):
        return np.cumulative_sum(x, axis=axis, dtype=result, include_initial=include_initial)
    sums = _exact_into(x, result, lambda v, d: exact_add.accumulate(v, axis=axis, dtype=d),
                       "cumulative_sum")
    if not include_initial:
        return sums
    shape = list(sums.shape)
    shape[axis] = 1
    return np.concatenate([np.zeros(shape, sums.dtype), sums], axis=axis)


def _vecdot_axis(x1, x2, axis, func_name):
    """The standard's axis rule: a negative int in [-min(ndim), -1]."""
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"{func_name}: axis must be an integer, not {axis!r}") from None
    smallest = min(x1.ndim, x2.ndim)
    if smallest == 0:
        raise ValueError(f"{func_name}: x1 and x2 must have at least one dimension")
    if not -smallest <= axis <= -1:
        raise ValueError(f"{func_name}: axis must be a negative integer in "
                         f"[{-smallest}, -1] (counted from the last axis), not {axis}")
    return axis


def _vecdot(x1, x2, axis, func_name):
    x1 = _check_array(x1, func_name, "x1")
    x2 = _check_array(x2, func_name, "x2")
    axis = _vecdot_axis(x1, x2, axis, func_name)
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"{func_name}: x1 and x2 have different lengths along axis "
                         f"{axis}: {x1.shape[axis]} and {x2.shape[axis]}")
    if x1.dtype.kind in "biu" and x2.dtype.kind in "biu":
        # Integer dot products are exact in NumPy (wrapping as the dtype does).
        return _as_array(np.vecdot(x1, x2, axis=axis))
    return _as_array(exact_dot(x1, x2, axis=axis))


@_accepting_foreign("x1", "x2")
def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """Vector dot product ``sum(conj(x1) * x2)`` along `axis`, exact and rounded
    once; the other axes broadcast.

    Parameters
    ----------
    x1, x2 : array
        Same length along `axis`; floating, complex or integer.
    axis : int, optional
        A negative axis, counted from the last (default -1).

    Examples
    --------
    >>> from xsumufunc import array_api as xp
    >>> xp.vecdot(xp.asarray([1e300, -1e300, 1.0]), xp.asarray([1e300, 1e300, 1.0]))
    array(1.)
    >>> xp.vecdot(xp.asarray([1j]), xp.asarray([1j]))        # x1 is conjugated
    array(1.+0.j)
    """
    return _vecdot(x1, x2, axis, "vecdot")


@_accepting_foreign("x1", "x2")
def linalg_vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """``linalg.vecdot``: the same as :func:`vecdot`.

    Examples
    --------
    >>> from xsumufunc import array_api as xp
    >>> xp.linalg.vecdot(xp.asarray([[1.0, 2.0], [3.0, 4.0]]), xp.asarray([1.0, 1.0]))
    array([3., 7.])
    """
    return _vecdot(x1, x2, axis, "linalg.vecdot")


def _integer_pair(x1, x2):
    return x1.dtype.kind in "biu" and x2.dtype.kind in "biu"


def _matmul(x1, x2, func_name):
    x1 = _check_array(x1, func_name, "x1")
    x2 = _check_array(x2, func_name, "x2")
    if _integer_pair(x1, x2):
        # Integer products are exact in NumPy (wrapping as the dtype does).
        return _as_array(np.matmul(x1, x2))
    return _as_array(exact_matmul(x1, x2))


@_accepting_foreign("x1", "x2")
def matmul(x1: Any, x2: Any, /) -> Any:
    """Matrix product with ``matmul``'s broadcasting, every entry the exact
    dot product rounded once (:func:`xsumufunc.exact_matmul`).

    Examples
    --------
    >>> from xsumufunc import array_api as xp
    >>> xp.matmul(xp.asarray([[1e16, 1.0, -1e16]]), xp.ones((3, 1)))
    array([[1.]])
    """
    return _matmul(x1, x2, "matmul")


@_accepting_foreign("x1", "x2")
def linalg_matmul(x1: Any, x2: Any, /) -> Any:
    """``linalg.matmul``: the same as :func:`matmul`.

    Examples
    --------
    >>> from xsumufunc import array_api as xp
    >>> xp.linalg.matmul(xp.asarray([[1.0, 2.0]]), xp.asarray([[3.0], [4.0]]))
    array([[11.]])
    """
    return _matmul(x1, x2, "linalg.matmul")


def _tensordot_axes(x1, x2, axes, func_name):
    """The contracted axes of x1 and x2 (normalized lists) by the standard's rule."""
    if isinstance(axes, (int, np.integer)):
        count = operator.index(axes)
        if count < 0 or count > min(x1.ndim, x2.ndim):
            raise ValueError(f"{func_name}: axes must be in [0, {min(x1.ndim, x2.ndim)}], "
                             f"not {count}")
        return list(range(x1.ndim - count, x1.ndim)), list(range(count))
    try:
        first, second = axes
    except (TypeError, ValueError):
        raise TypeError(f"{func_name}: axes must be an int or a pair of sequences of "
                        f"axes, not {axes!r}") from None
    first = [first] if isinstance(first, (int, np.integer)) else list(first)
    second = [second] if isinstance(second, (int, np.integer)) else list(second)
    if len(first) != len(second):
        raise ValueError(f"{func_name}: axes pairs {len(first)} axes of x1 with "
                         f"{len(second)} of x2")
    return ([int(a) % x1.ndim if x1.ndim else int(a) for a in first],
            [int(b) % x2.ndim if x2.ndim else int(b) for b in second])


def _tensordot(x1, x2, axes, func_name):
    x1 = _check_array(x1, func_name, "x1")
    x2 = _check_array(x2, func_name, "x2")
    if _integer_pair(x1, x2):
        return _as_array(np.tensordot(x1, x2, axes=axes))
    a_axes, b_axes = _tensordot_axes(x1, x2, axes, func_name)
    for a, b in zip(a_axes, b_axes):
        if x1.shape[a] != x2.shape[b]:
            raise ValueError(f"{func_name}: axis {a} of x1 has length {x1.shape[a]}, "
                             f"axis {b} of x2 {x2.shape[b]}")
    free_a = [i for i in range(x1.ndim) if i not in a_axes]
    free_b = [i for i in range(x2.ndim) if i not in b_axes]
    inner = math.prod(x1.shape[a] for a in a_axes)
    left = np.transpose(x1, free_a + a_axes).reshape(-1, inner)
    right = np.transpose(x2, b_axes + free_b).reshape(inner, -1)
    shape = tuple(x1.shape[i] for i in free_a) + tuple(x2.shape[i] for i in free_b)
    return _as_array(np.asarray(exact_matmul(left, right)).reshape(shape))


@_accepting_foreign("x1", "x2")
def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2) -> Any:
    """Tensor contraction over `axes` (the standard's rule), every entry the
    exact dot product rounded once (through :func:`xsumufunc.exact_matmul`).

    Examples
    --------
    >>> from xsumufunc import array_api as xp
    >>> xp.tensordot(xp.asarray([1e16, 1.0, -1e16]), xp.ones(3), axes=1)
    array(1.)
    """
    return _tensordot(x1, x2, axes, "tensordot")


@_accepting_foreign("x1", "x2")
def linalg_tensordot(x1: Any, x2: Any, /, *, axes: Any = 2) -> Any:
    """``linalg.tensordot``: the same as :func:`tensordot`.

    Examples
    --------
    >>> from xsumufunc import array_api as xp
    >>> xp.linalg.tensordot(xp.ones((2, 3)), xp.ones((3, 2)), axes=1)
    array([[3., 3.],
           [3., 3.]])
    """
    return _tensordot(x1, x2, axes, "linalg.tensordot")


@dispatching("vector_norm", ("x",), backends=("foreign", "dask"))
def vector_norm(x: Any, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False,
                ord: float = 2) -> Any:
    """Vector norm over `axis`.

    ``ord=2`` (default): the correctly rounded square root of the exact sum
    of ``|x|**2`` (complex: ``re**2 + im**2``), never overflowing or
    underflowing on the way.  ``ord=1``: the exact sum of ``|x|`` rounded
    once (complex moduli are NumPy's ``abs``, rounded before summing).
    ``ord=inf``/``-inf`` (largest/smallest ``|x|``), ``ord=0`` (number of
    non-zeros) and other orders come from ``array_api_compat.numpy`` (not
    exact for other orders).

    Result dtype: the real dtype of x (float32 for complex64), float64 for
    bool and integers.

    Examples
    --------
    >>> from xsumufunc import array_api as xp
    >>> xp.linalg.vector_norm(xp.asarray([3e300, 4e300]))   # no overflow
    array(5.e+300)
    >>> xp.linalg.vector_norm(xp.asarray([1.0, 2.0**-26, 2.0**-53]))  # a tie: to even
    array(1.)
    >>> xp.linalg.vector_norm(xp.asarray([[3.0, 4.0], [1e100, -1e100]]), axis=1, ord=1)
    array([7.e+000, 2.e+100])
    """
    if (type(x) is np.ndarray and x.ndim == 1 and axis is None and not keepdims
            and type(ord) is int and ord == 2):
        done = _norm.norm2_vector(x)         # the common short call, straight to the loop
        if done is not None:
            return done
    x = _check_array(x, "vector_norm")
    _dtypes.input_kind(x.dtype, "vector_norm")           # TypeError for other dtypes
    result = _norm.result_dtype(x.dtype)
    if ord == 2 and not isinstance(ord, bool):
        axes = normalize_axes(axis, x.ndim, "vector_norm")
        norms = _norm.norm2(x, axes, result)
        return norms.reshape(kept_shape(x.shape, axes)) if keepdims else norms
    if ord == 1 and not isinstance(ord, bool):
        magnitude = np.abs(x)
        if x.dtype.kind == "i":               # abs(min) wraps: read it unsigned
            magnitude = magnitude.astype(np.dtype(f"u{x.dtype.itemsize}"))
        return _as_array(exact_sum(magnitude, axis=axis, dtype=result, keepdims=keepdims))
    from array_api_compat.numpy import linalg as compat_linalg
    # (array_api_compat's hint leaves out the standard's axis=None)
    return _as_array(compat_linalg.vector_norm(x, axis=axis, keepdims=keepdims,  # type: ignore[arg-type]
                                               ord=ord))


declare(vector_norm, "norm")
