"""Exact sums, means and dot products of JAX arrays under jit, grad and vmap.

:func:`exact_sum`, :func:`exact_mean` and :func:`exact_dot` compute on the
host through ``jax.pure_callback`` (the exact result rounded once, as
:func:`xsumufunc.exact_sum` & co. give it), so they work under ``jit``.
Each is a ``jax.custom_jvp``: the tangent is the usual linear map of the
tangents (``jnp.sum``, ``jnp.mean``, the product rule of the dot), which JAX
transposes for reverse mode, so ``grad`` works; the derivative needs no
exactness of its own.  The callbacks batch with ``vmap_method=
"expand_dims"``: under ``vmap`` the host function gets the batch as a
leading axis and reduces the trailing ones, one call for the whole batch.

Results have the dtype xsumufunc gives, as JAX canonicalizes it (float32
instead of float64 unless ``jax_enable_x64``); bfloat16 stays bfloat16.

Importing this module imports jax; importing :mod:`xsumufunc` does not.

Examples
--------
>>> import jax, jax.numpy as jnp
>>> from xsumufunc.jax import exact_sum
>>> x = jnp.array([1e8, 1.0, -1e8], jnp.float32)
>>> float(jax.jit(exact_sum)(x)), float(jnp.sum(x))
(1.0, 0.0)
>>> jax.grad(lambda v: exact_sum(v * v))(jnp.array([1.0, 2.0, 3.0]))
Array([2., 4., 6.], dtype=float32)
"""

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ._api.dot import exact_dot as _exact_dot
from ._api.sums import exact_mean as _exact_mean
from ._api.sums import exact_sum as _exact_sum

__all__ = ["exact_dot", "exact_mean", "exact_sum"]


def _trailing_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """The reduced axes counted from the end (so that a leading batch axis
    added by vmap leaves them unchanged)."""
    if axis is None:
        return tuple(range(-ndim, 0))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = []
    for a in axes:
        if not -ndim <= int(a) < ndim:
            raise ValueError(f"axis {a} is out of bounds for an array of dimension {ndim}")
        out.append(int(a) % ndim - ndim)
    return tuple(sorted(out))


def _result_dtype(values_dtype: Any) -> Any:
    """xsumufunc's result dtype for these values, as JAX holds it."""
    probe = _exact_sum(np.zeros(1, np.dtype(values_dtype)))
    return jax.dtypes.canonicalize_dtype(np.asarray(probe).dtype)


def _host(reduce: Any, axes: tuple[int, ...], result: Any) -> Any:
    def run(x: Any) -> np.ndarray:
        return np.asarray(reduce(np.asarray(x), axis=axes, dtype=result), dtype=result)
    return run


def _reduced_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    drop = {a % len(shape) for a in axes}
    return tuple(n for i, n in enumerate(shape) if i not in drop)


def _sum_or_mean(x: Any, axis: Any, mean: bool) -> Any:
    x = jnp.asarray(x)
    axes = _trailing_axes(axis, x.ndim)
    result = _result_dtype(x.dtype)
    out = jax.ShapeDtypeStruct(_reduced_shape(x.shape, axes), result)
    reduce = _exact_mean if mean else _exact_sum
    return jax.pure_callback(_host(reduce, axes, result), out, x, vmap_method="expand_dims")


def _differentiable(mean: bool) -> Any:
    """The exact sum (mean) with its derivative: linear, so the tangent is
    jax's own sum (mean) of the tangents, in the result's dtype."""
    linear = jnp.mean if mean else jnp.sum

    @functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
    def reduction(x: Any, axis: Any) -> Any:
        return _sum_or_mean(x, axis, mean)

    @reduction.defjvp
    def jvp(axis: Any, primals: Any, tangents: Any) -> Any:
        (x,), (t,) = primals, tangents
        out = reduction(x, axis)
        return out, linear(t, axis=_trailing_axes(axis, jnp.ndim(x))).astype(out.dtype)

    return reduction


_sum = _differentiable(mean=False)
_mean = _differentiable(mean=True)


def _host_dot(result: Any) -> Any:
    def run(a: Any, b: Any) -> np.ndarray:
        return np.asarray(_exact_dot(np.asarray(a), np.asarray(b), axis=-1, dtype=result),
                          dtype=result)
    return run


@jax.custom_jvp
def _dot(a: Any, b: Any) -> Any:
    probe = _exact_dot(np.zeros(1, np.dtype(a.dtype)), np.zeros(1, np.dtype(b.dtype)))
    result = jax.dtypes.canonicalize_dtype(np.asarray(probe).dtype)
    shape = jnp.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    out = jax.ShapeDtypeStruct(shape, result)
    return jax.pure_callback(_host_dot(result), out, a, b, vmap_method="expand_dims")


@_dot.defjvp
def _dot_jvp(primals: Any, tangents: Any) -> Any:
    (a, b), (ta, tb) = primals, tangents
    out = _dot(a, b)
    tangent = jnp.sum(ta * b, axis=-1) + jnp.sum(a * tb, axis=-1)
    return out, tangent.astype(out.dtype)


def exact_sum(x: Any, axis: int | tuple[int, ...] | None = None) -> Any:
    """The exact sum of JAX array `x` over `axis`, rounded once; works under
    ``jit``, ``grad`` and ``vmap``.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> from xsumufunc.jax import exact_sum
    >>> x = jnp.array([[1.0, 2.0], [3.0, 4.0]], jnp.bfloat16)
    >>> jax.vmap(exact_sum)(x)
    Array([3, 7], dtype=bfloat16)
    """
    return _sum(jnp.asarray(x), _hashable(axis))


def exact_mean(x: Any, axis: int | tuple[int, ...] | None = None) -> Any:
    """The exact mean of JAX array `x` over `axis`, rounded once; works under
    ``jit``, ``grad`` and ``vmap``.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> from xsumufunc.jax import exact_mean
    >>> jax.grad(exact_mean)(jnp.array([1.0, 2.0, 4.0, 8.0]))
    Array([0.25, 0.25, 0.25, 0.25], dtype=float32)
    """
    return _mean(jnp.asarray(x), _hashable(axis))


def exact_dot(a: Any, b: Any) -> Any:
    """The exact dot product of real JAX arrays along their last axis,
    rounded once; works under ``jit``, ``grad`` and ``vmap``.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> from xsumufunc.jax import exact_dot
    >>> a, b = jnp.array([1e8, 1.0, 1e8]), jnp.array([1.0, 1.0, -1.0])
    >>> float(exact_dot(a, b)), float(jnp.dot(a, b))
    (1.0, 0.0)
    >>> jax.grad(exact_dot)(a, b)
    Array([ 1.,  1., -1.], dtype=float32)
    """
    a, b = jnp.asarray(a), jnp.asarray(b)
    if jnp.iscomplexobj(a) or jnp.iscomplexobj(b):
        raise TypeError("exact_dot: xsumufunc.jax takes real arrays only")
    return _dot(a, b)


def _hashable(axis: Any) -> Any:
    """axis as custom_jvp's static argument takes it (a tuple, not a list)."""
    return tuple(axis) if isinstance(axis, list) else axis
