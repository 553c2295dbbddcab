"""Exact sums, means and dot products of torch tensors that train.

:func:`exact_sum`, :func:`exact_mean` and :func:`exact_dot` are
``torch.autograd.Function``\\ s: the forward pass is xsumufunc's (the exact
result rounded once, in the dtype :func:`xsumufunc.exact_sum` & co. give),
the backward pass is the usual one in the input's dtype (a sum's gradient
is the incoming gradient broadcast back, a mean's divided by the count, a
dot's the other operand times it), which needs no exactness of its own.
So ``loss = exact_sum(t)`` backpropagates, and so do losses built on it.

Under ``torch.compile`` each call is a clean graph break (the call runs
eagerly, outside the graph; ``fullgraph=True`` raises Dynamo's
``Unsupported`` naming this module).  Real tensors only: complex tensors
that require gradients are refused.

Importing this module imports torch (and ``torch._dynamo``); importing
:mod:`xsumufunc` does neither.

Examples
--------
>>> import torch
>>> from xsumufunc.torch import exact_sum
>>> w = torch.tensor([1e8, 1.0, -1e8], requires_grad=True)
>>> loss = exact_sum(w * 3)                 # exact: 3.0; float32's sum loses it
>>> loss.item(), torch.sum(w * 3).item()
(3.0, 0.0)
>>> loss.backward()
>>> w.grad
tensor([3., 3., 3.])
"""

from typing import Any

import torch

from ._api.dot import exact_dot as _exact_dot
from ._api.sums import exact_mean as _exact_mean
from ._api.sums import exact_sum as _exact_sum

__all__ = ["exact_dot", "exact_mean", "exact_sum"]

_REASON = ("xsumufunc.torch computes outside the graph (NumPy and C loops); call it "
           "outside the compiled function to avoid this graph break")


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """The reduced dims as non-negative ints (all of them for None)."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(sorted(a % ndim if ndim else a for a in axes))


def _grad_back(grad: torch.Tensor, shape: torch.Size, axes: tuple[int, ...],
               keepdims: bool, dtype: torch.dtype) -> torch.Tensor:
    """The gradient of a reduction over `axes`: `grad` broadcast back to the
    input's `shape`, in the input's `dtype`."""
    if not keepdims:
        for ax in axes:
            grad = grad.unsqueeze(ax)
    return grad.to(dtype).expand(shape)


def _plain(x: torch.Tensor, func_name: str) -> torch.Tensor:
    if x.is_complex() and x.requires_grad:
        raise TypeError(f"{func_name}: complex tensors that require gradients are not "
                        "supported; pass real tensors (or x.detach())")
    return x.detach()


class _ExactSum(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, axis: Any, keepdims: bool, mean: bool) -> Any:
        ctx.shape, ctx.dtype = x.shape, x.dtype
        ctx.axes, ctx.keepdims = _axes(axis, x.dim()), keepdims
        ctx.count = 1
        for ax in ctx.axes:
            ctx.count *= x.shape[ax]
        ctx.mean = mean
        reduce = _exact_mean if mean else _exact_sum
        return reduce(_plain(x, "exact_mean" if mean else "exact_sum"), axis=axis,
                      keepdims=keepdims)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> Any:
        g = _grad_back(grad, ctx.shape, ctx.axes, ctx.keepdims, ctx.dtype)
        if ctx.mean:
            g = g / ctx.count
        return g, None, None, None


class _ExactDot(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, a: torch.Tensor, b: torch.Tensor, axis: int) -> Any:
        ctx.save_for_backward(a.detach(), b.detach())
        ctx.axis = axis
        return _exact_dot(_plain(a, "exact_dot"), _plain(b, "exact_dot"), axis=axis)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> Any:
        a, b = ctx.saved_tensors
        g = grad.unsqueeze(ctx.axis)
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_a = (g.to(a.dtype) * b.to(a.dtype)).sum_to_size(a.shape)
        if ctx.needs_input_grad[1]:
            grad_b = (g.to(b.dtype) * a.to(b.dtype)).sum_to_size(b.shape)
        return grad_a, grad_b, None


def _apply_sum(x: torch.Tensor, axis: Any, keepdims: bool, mean: bool) -> Any:
    return _ExactSum.apply(x, axis, keepdims, mean)


def _apply_dot(a: torch.Tensor, b: torch.Tensor, axis: int) -> Any:
    return _ExactDot.apply(a, b, axis)


# Outside any graph: Dynamo breaks the graph at these calls instead of
# tracing into NumPy (see _backends/foreign.py for the same rule).
_eager_sum = torch.compiler.disable(_apply_sum, reason=_REASON)
_eager_dot = torch.compiler.disable(_apply_dot, reason=_REASON)


def exact_sum(x: torch.Tensor, axis: int | tuple[int, ...] | None = None,
              keepdims: bool = False) -> torch.Tensor:
    """The exact sum of tensor `x` over `axis`, rounded once; differentiable.

    Parameters
    ----------
    x : torch.Tensor
        Real or complex (complex ones that require gradients are refused).
    axis : None, int or tuple of ints, optional
        Dims to sum; None: all.
    keepdims : bool, optional
        Keep the summed dims as length 1.

    Returns
    -------
    torch.Tensor in the dtype :func:`xsumufunc.exact_sum` gives (float32
    stays float32, bfloat16 stays bfloat16); its gradient with respect to
    `x` is the incoming gradient broadcast back, in x's dtype.

    Examples
    --------
    >>> import torch
    >>> from xsumufunc.torch import exact_sum
    >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> exact_sum(x, axis=1)
    tensor([3., 7.], grad_fn=<_ExactSumBackward>)
    """
    return _eager_sum(x, axis, keepdims, False)


def exact_mean(x: torch.Tensor, axis: int | tuple[int, ...] | None = None,
               keepdims: bool = False) -> torch.Tensor:
    """The exact mean of tensor `x` over `axis`, rounded once; differentiable
    (gradient: the incoming one broadcast back and divided by the count).

    Examples
    --------
    >>> import torch
    >>> from xsumufunc.torch import exact_mean
    >>> x = torch.tensor([0.5, 1.5, 4.0], requires_grad=True)
    >>> exact_mean(x).backward()
    >>> x.grad
    tensor([0.3333, 0.3333, 0.3333])
    """
    return _eager_sum(x, axis, keepdims, True)


def exact_dot(a: torch.Tensor, b: torch.Tensor, axis: int = -1) -> torch.Tensor:
    """The exact dot product of real tensors along `axis` (as
    :func:`xsumufunc.exact_dot`), rounded once; differentiable (the gradient
    with respect to each operand is the other times the incoming gradient).

    Examples
    --------
    >>> import torch
    >>> from xsumufunc.torch import exact_dot
    >>> a = torch.tensor([1e8, 1.0, 1e8], requires_grad=True)
    >>> b = torch.tensor([1.0, 1.0, -1.0])
    >>> out = exact_dot(a, b)
    >>> out.item()
    1.0
    >>> out.backward()
    >>> a.grad
    tensor([ 1.,  1., -1.])
    """
    return _eager_dot(a, b, axis)
