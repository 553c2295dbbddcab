"""Masked inputs: a mask +M, a mask -M and n - 2 equal units.

Summing such an input in any order, every unit that meets a partial sum
holding one of the masks is swallowed; the two masks cancel exactly at their
lowest common ancestor, and only the units outside that subtree survive.  So
``output / unit`` counts the leaves outside the subtree, which is the whole
measurement FPRev needs.  Two conditions make that count exact:

* swallowing: every partial sum of units is below a quarter ulp of M in the
  widest accumulator assumed for the format, so ``±M + x`` rounds back to
  ``±M`` (a quarter, not a half: just below ``M = 2**e`` the spacing halves);
* exactness: ``n - 2`` units add exactly in the narrowest format that holds a
  partial sum or the result (the accumulator), i.e. ``n - 2 <= 2**p``.

The unit is the largest power of two, at most 1, that satisfies the first
condition for this ``n``: for float16 (accumulated in float32 by NumPy) that is
a tiny unit, far below 1, and for large ``n`` a subnormal one.
"""

from dataclasses import dataclass

import numpy as np

from ._errors import NotASummationError
from ._formats import Format, format_of


@dataclass(frozen=True)
class Masks:
    """The masked inputs :func:`reveal` feeds a function, for one dtype and ``n``.

    Attributes: ``dtype``, ``n``, ``big`` (the mask M, the largest power of two
    of the dtype), ``unit`` (every other summand), ``max_n`` (the most
    summands this dtype and accumulator allow).

    >>> import numpy as np
    >>> m = masks(4, np.float32)
    >>> m.summands(0, 2)
    array([ 1.7014118e+38,  1.0000000e+00, -1.7014118e+38,  1.0000000e+00],
          dtype=float32)
    >>> m.count(np.float32(1.0), 0, 2)      # one unit was not swallowed
    1
    """

    dtype: np.dtype
    n: int
    big: float
    unit: float
    max_n: int

    def summands(self, i, j):
        """n units with +M at index i and -M at index j (a fresh array)."""
        values = np.full(self.n, self.unit, dtype=self.dtype)
        values[i] = self.big
        values[j] = -self.big
        return values

    def count(self, output, i, j):
        """How many units survived in ``output``; NotASummationError if it is no count."""
        value = _as_float(output)
        count = value / self.unit  # exact: the unit is a power of two
        if not (np.isfinite(count) and count.is_integer() and 0 <= count <= self.n - 2):
            raise NotASummationError(
                f"func is not a plain summation: with +M at index {i}, -M at index {j} and "
                f"units of {self.unit!r} elsewhere it returned {value!r}, which is not a "
                f"count of surviving units (a whole multiple of the unit from 0 to n - 2 = "
                f"{self.n - 2})")
        return int(count)


def _as_float(output):
    """The scalar a function returned, as a Python float (exact for our dtypes)."""
    array = np.asarray(output)
    if array.size != 1:
        raise NotASummationError(
            f"func must return one scalar sum; it returned an array of shape {array.shape}")
    if np.iscomplexobj(array) or array.dtype.kind in "bSU":
        raise NotASummationError(f"func must return a real scalar sum; it returned {output!r}")
    try:
        return float(array.reshape(()))
    except (TypeError, ValueError) as exc:
        raise NotASummationError(
            f"func must return a real scalar sum; it returned {output!r}") from exc


def masks(n, dtype, accumulator=None):
    """The masks and unit :func:`reveal` uses for ``n`` summands of ``dtype``.

    ``accumulator`` is the narrowest format that holds a partial sum or the
    result (default: ``dtype`` itself); it must be at least as precise as
    ``dtype``.  A wider one raises the limit on ``n``.  ValueError if ``n`` is
    beyond what the format can count exactly.

    >>> import numpy as np, ml_dtypes
    >>> masks(16, np.float16).unit           # swallowed by 2**15 even in float32
    6.103515625e-05
    >>> masks(16, ml_dtypes.bfloat16).max_n  # 256 + 2: bfloat16 counts to 256
    258
    >>> masks(1000, ml_dtypes.bfloat16, accumulator=np.float32).max_n
    16777218
    """
    check_count(n)
    fmt = format_of(dtype, "dtype")
    acc = fmt if accumulator is None else format_of(accumulator, "accumulator")
    if acc.precision < fmt.precision or acc.max_exponent < fmt.max_exponent:
        raise ValueError(
            f"accumulator {acc.name} cannot hold {fmt.name} values exactly; "
            f"it must be at least as wide as dtype")
    if acc.precision > fmt.widest:
        raise ValueError(
            f"accumulator {acc.name} is too wide for {fmt.name} masks: no representable "
            f"{fmt.name} unit is swallowed by the mask 2**{fmt.max_exponent} in it")
    max_n = _max_n(fmt, acc)
    if n > max_n:
        raise ValueError(
            f"n = {n} is too large for dtype {fmt.name} accumulated in {acc.name}: at most "
            f"{max_n} summands can be counted (n - 2 units must add exactly in "
            f"{acc.precision} significand bits and stay swallowed by the mask in "
            f"{fmt.widest} bits); a function that accumulates more precisely can say so "
            f"with accumulator=")
    return Masks(fmt.dtype, n, 2.0 ** fmt.max_exponent, 2.0 ** _unit_exponent(fmt, n), max_n)


def check_count(n):
    """n must be a whole number of summands, at least 1."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be an integer number of summands; got {n!r}")
    if n < 1:
        raise ValueError(f"n must be at least 1; got {n}")


def _swallow_exponent(fmt: Format):
    """Units may total strictly less than 2**this: a quarter ulp of M in the widest accumulator."""
    return fmt.max_exponent - fmt.widest - 1


def _unit_exponent(fmt: Format, n):
    # (n - 2) * 2**e < 2**s holds exactly when e <= s - bit_length(n - 2).
    return min(0, _swallow_exponent(fmt) - max(n - 2, 0).bit_length())


def _max_n(fmt: Format, acc: Format):
    exact_limit = 2 ** acc.precision + 2
    # Largest n whose unit is still representable (not below the smallest subnormal).
    bits = _swallow_exponent(fmt) - fmt.subnormal_exponent
    swallow_limit = 2 ** bits + 1
    return min(exact_limit, swallow_limit)
