"""exact_add: ``np.add`` whose reduce, accumulate and reduceat are exact.

``np.ufunc`` cannot be subclassed, and ``np.add.reduce`` rounds at every call
boundary of its loop, so this is a small object of our own whose methods are
dispatching functions over the NumPy bodies in ``_core``.
"""

# Hints as written (ArrayLike, DTypeLike), not NumPy's expanded Unions: help()
# and the signatures stay readable.
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from .._backends.plans import declare
from .._core import add as _add
from .._core.reduce import exact_reduce
from .._core.spec import NO_VALUE
from .._dispatch import dispatching


@dispatching("exact_add.reduce", ("a", "where", "initial"))
def _reduce(a: ArrayLike, axis: int | tuple[int, ...] | None = 0,
            dtype: DTypeLike | None = None, out: np.ndarray | None = None,
            keepdims: bool = False, initial: Any = NO_VALUE, where: ArrayLike = True) -> Any:
    """Exact sum along `axis` (default 0, as ``np.add.reduce``).

    Same arguments and results as :func:`xsumufunc.exact_sum`.
    """
    return exact_reduce("exact_add.reduce", a, axis, dtype, out, keepdims, initial, where,
                        skip_nan=False)


declare(_reduce, "reduce", skip_nan=False, mean=False)
_accumulate = dispatching("exact_add.accumulate", ("a",))(_add.accumulate)
declare(_accumulate, "accumulate")
_reduceat = dispatching("exact_add.reduceat", ("a", "indices"))(_add.reduceat)
declare(_reduceat, "reduceat")


class ExactAdd:
    """``numpy.add`` with exact reductions.

    Calling it is ``np.add`` (one IEEE addition is already correctly
    rounded).  ``reduce``, ``accumulate`` and ``reduceat`` compute the exact
    sums and round each result once, unlike ``np.add``'s.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_add
    >>> exact_add(1.0, 2.0)
    np.float64(3.0)
    >>> exact_add.reduce(np.array([[1e100, 1.0], [-1e100, 1.0]]))     # axis=0
    array([0., 2.])
    >>> exact_add.accumulate(np.array([1e100, 1.0, -1e100]))
    array([1.e+100, 1.e+100, 1.e+000])
    >>> exact_add.reduceat(np.array([1e100, 1.0, -1e100, 5.0]), [0, 3])
    array([1., 5.])
    """

    __name__ = "exact_add"
    nin = 2
    nout = 1

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return np.add(*args, **kwargs)

    def outer(self, a: ArrayLike, b: ArrayLike, **kwargs: Any) -> Any:
        """``np.add.outer``: every result is one correctly rounded addition."""
        return np.add.outer(a, b, **kwargs)

    # The public function itself, not a method calling it: its twin is the
    # bare ufunc method np.add.reduce, and a frame is a tenth of a small call.
    reduce = staticmethod(_reduce)

    def accumulate(self, a: ArrayLike, axis: int = 0, dtype: DTypeLike | None = None,
                   out: np.ndarray | None = None) -> Any:
        """Every prefix sum along `axis`, each exact and rounded once.

        ``np.add.accumulate`` rounds each running sum and adds the next term to
        the rounded value; here element i is the exact sum of elements 0..i
        rounded into the result dtype.
        """
        return _accumulate(a, axis, dtype, out)

    def reduceat(self, a: ArrayLike, indices: ArrayLike, axis: int = 0,
                 dtype: DTypeLike | None = None, out: np.ndarray | None = None) -> Any:
        """Exact sums of the segments that ``np.add.reduceat`` would sum.

        Segment i is ``a[indices[i]:indices[i+1]]`` along `axis` when
        ``indices[i] < indices[i+1]``, else the single element
        ``a[indices[i]]``; the last runs to the end.
        """
        return _reduceat(a, indices, axis, dtype, out)

    def __repr__(self) -> str:
        return "<xsumufunc.exact_add: numpy.add with exact reduce/accumulate/reduceat>"

    def __reduce__(self) -> str:
        return "exact_add"          # pickled by reference to the module attribute


exact_add = ExactAdd()
exact_add.__module__ = "xsumufunc"
