"""reveal(): check the arguments, choose the masks, run one FPRev method."""

import numpy as np

from . import _advanced, _basic
from ._masks import masks
from ._probe import Probe, as_call

_METHODS = {"advanced": _advanced.build, "basic": _basic.build}


def reveal(func, n, dtype=np.float32, method="advanced", *, operands=1, accumulator=None):
    """The order in which ``func`` adds n summands, found by calling it (FPRev).

    ``func`` is a black box that sums one 1-D array of ``dtype`` and returns
    the sum as a scalar (``np.sum``, ``math.fsum``, a jitted kernel...).  With
    ``operands=2`` it takes two arrays, like a dot product: the first holds
    the masked summands and the second ones, so every product is a summand.
    ``func`` may also be an *op object*, any object with the two methods
    ``set_summands(values)`` (write the n summands where one output of the
    operation sums them, e.g. a row of A in ``A @ B`` with B all ones) and
    ``result()`` (run the operation and return that output).

    Each call feeds +M and -M at two indices i, j and a small unit everywhere
    else; the masks swallow every unit added to them before they cancel, so
    the output counts the summands outside the smallest subtree holding i
    and j.  ``method="basic"`` measures all n(n-1)/2 pairs; ``"advanced"``
    (default) measures only what it needs: n - 1 calls for a sequential sum,
    (n/2) log2 n for a balanced one, n(n-1)/2 at worst (right to left).
    Nodes with more than two children come out for fused multi-term adders.

    Order-free rule: a function that never swallows anything (every masked
    input sums to exactly n - 2 units, so it summed exactly) has no order;
    its tree is one node with all n summands as children.

    ``accumulator`` names the narrowest format holding ``func``'s partial sums
    or result when wider than ``dtype`` (it only raises the limit on n).
    Raises TypeError/ValueError for bad arguments or an n beyond the dtype's
    limit, and :class:`NotASummationError` when ``func`` does not behave like
    a fixed-order summation.

    >>> import numpy as np
    >>> def left_to_right(x):
    ...     total = x[0]
    ...     for value in x[1:]:
    ...         total = total + value
    ...     return total
    >>> print(reveal(left_to_right, 5))
    ((((0 1) 2) 3) 4)
    >>> from xsumufunc import exact_sum
    >>> print(reveal(exact_sum, 5))                 # exact: no order at all
    (0 1 2 3 4)
    >>> print(reveal(np.dot, 4, np.float64, operands=2).n)
    4
    """
    try:
        build = _METHODS[method]
    except (KeyError, TypeError):
        raise ValueError(f"method must be 'advanced' or 'basic'; got {method!r}") from None
    plan = masks(n, dtype, accumulator)
    call = as_call(func, plan.n, plan.dtype, operands)
    return build(Probe(call, plan))
