"""exact_dot: vector dot products with no product ever rounded (the
algorithm: ``_core/dot.py`` and the dot kernels in ``src/``)."""

# Hints as written (ArrayLike, DTypeLike), not NumPy's expanded Unions: help()
# and the signatures stay readable.
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from .._backends.plans import declare
from .._core.dot import dot
from .._dispatch import dispatching


@dispatching("exact_dot", ("a", "b"))
def exact_dot(a: ArrayLike, b: ArrayLike, axis: int = -1, dtype: DTypeLike | None = None,
              out: np.ndarray | None = None, keepdims: bool = False) -> Any:
    """Dot product of vectors along `axis`, exact and rounded once.

    The result is the exact value of ``sum(conj(a[i]) * b[i])`` rounded to the
    nearest value of the result dtype (ties to even): no product and no
    partial sum is ever rounded, so products may overflow or underflow on
    their own and the result is still right.  Semantics of ``numpy.vecdot``:
    the other axes broadcast, and the first argument is conjugated.

    Parameters
    ----------
    a, b : array_like
        float16, float32, float64, bfloat16, bool, integer (every 64-bit
        value, exactly) or complex values; the lengths along `axis` must be
        equal.
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
    return dot(a, b, axis, dtype, out, keepdims)
declare(exact_dot, "dot")
