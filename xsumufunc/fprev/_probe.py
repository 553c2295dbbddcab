"""The black box, seen through masked inputs: one call gives one L(i, j).

L(i, j) is the number of summands under the lowest common ancestor of
leaves i and j.  Feeding +M at i and -M at j, the function returns the units
outside that subtree, so ``L(i, j) = n - count``.
"""

import numpy as np


class Probe:
    """Measures L(i, j) by calling ``call`` on masked inputs."""

    def __init__(self, call, masks):
        self._call = call
        self._masks = masks

    @property
    def n(self):
        return self._masks.n

    def lca_size(self, i, j):
        output = self._call(self._masks.summands(i, j))
        return self._masks.n - self._masks.count(output, i, j)


def as_call(func, n, dtype, operands):
    """A one-array callable for a function of 1 or 2 arrays, or an op object."""
    if hasattr(func, "set_summands") and hasattr(func, "result"):
        if operands != 1:
            raise ValueError("operands applies to functions; an op object sets its own operands")
        return _op_call(func)
    if not callable(func):
        raise TypeError(
            f"func must be a callable summing one array (or two, with operands=2) or an op "
            f"object with set_summands() and result(); got {func!r}")
    if operands == 1:
        return func
    if operands == 2:
        # Products x * 1 are exact, so a dot product sees the masked summands.
        ones = np.ones(n, dtype=dtype)
        return lambda values: func(values, ones)
    raise ValueError(f"operands must be 1 or 2; got {operands!r}")


def _op_call(op):
    def call(values):
        op.set_summands(values)
        return op.result()

    return call
