"""Replaying a summation order: add values exactly as the tree says.

Two-child nodes are single IEEE additions in the accumulator dtype (NumPy's
own loops: float16 and bfloat16 add through float32 and round once, which is
correctly rounded because float32 has more than twice their precision plus
two bits).  Nodes with more children are one fused step; by default the exact
sum of the children rounded once (``exact_sum``).
"""

import numpy as np

from ._formats import format_of


def evaluate(tree, values, dtype, fused):
    """See :meth:`SumTree.evaluate`."""
    array = np.asarray(values)
    if array.ndim == 0 or array.shape[-1] != tree.n:
        raise ValueError(
            f"values must have the tree's n = {tree.n} summands along the last axis; "
            f"got shape {array.shape}")
    if dtype is None:
        fmt = format_of(array.dtype, "values dtype (pass dtype=)")
    else:
        fmt = format_of(dtype, "dtype")
    if fused is not None and not callable(fused):
        raise TypeError(f"fused must be callable or None; got {fused!r}")
    array = array.astype(fmt.dtype, copy=False)
    fuse = _exact_fused if fused is None else fused
    # Partial sums by node id, dropped as soon as their parent has used them.
    partial = {}
    for node in range(tree.n, tree.root + 1):
        kids = tree.children(node)
        terms = [partial.pop(kid) if kid in partial else array[..., kid] for kid in kids]
        if len(terms) == 2:
            total = np.add(terms[0], terms[1], dtype=fmt.dtype)
        else:
            total = _checked(fuse(np.stack(terms, axis=-1)), array.shape[:-1], fmt.dtype)
        partial[node] = total
    result = partial[tree.root] if tree.n > 1 else array[..., 0]
    return fmt.dtype.type(result) if array.ndim == 1 else np.asarray(result, dtype=fmt.dtype)


def _exact_fused(stacked):
    from .. import exact_sum  # the package's exact, correctly rounded sum

    return exact_sum(stacked, axis=-1)


def _checked(total, shape, dtype):
    total = np.asarray(total)
    if total.shape != shape:
        raise ValueError(
            f"fused must reduce the last axis: expected a result of shape {shape}, "
            f"got {total.shape}")
    if total.dtype != dtype:
        raise ValueError(f"fused must return {dtype} values; got {total.dtype}")
    return total
