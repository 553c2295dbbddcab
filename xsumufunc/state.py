"""Portable, mergeable exact states: the basis of parallel and distributed sums.

An exact state holds the exact sum of some terms.  Compute states of the
parts of your data anywhere (threads, processes, machines), send them
(they are plain little-endian int64 NumPy arrays: picklable, same bytes on
every machine for the same value), merge them in any order and grouping,
and round once at the end: the result is bit-identical to
:func:`xsumufunc.exact_sum` (or :func:`xsumufunc.exact_mean` with the term
counts) of all the data at once.

Format (see docs/contract.md; defined once, by the C side, and read through
``_core/stateformat.py``): the last axis has :data:`STATE_LENGTH` (69)
int64 values, 68 fixed-point digits (digit ``j`` has weight
``2**(32*j - 1075)``; digits 0..66 in ``[0, 2**32)``, digit 67 signed) and a
flags word (bit 0: had a term, bit 1: had a term other than -0.0, bit 2: +Inf,
bit 3: -Inf, bit 4: NaN).  A state of complex terms has one more axis of
length 2 before the state axis: ``(..., 2, 69)``, real then imaginary part.

Functions: :func:`exact_sum_state`, :func:`exact_count`,
:func:`merge_states`, :func:`round_state`, :func:`state_mean`.
"""

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._core import states as _states
from ._core.stateformat import DTYPE as STATE_DTYPE
from ._core.stateformat import LENGTH as STATE_LENGTH
from ._dispatch import dispatching

__all__ = ["STATE_DTYPE", "STATE_LENGTH", "exact_count", "exact_sum_state", "merge_states",
           "round_state", "state_mean"]


@dispatching("exact_sum_state", ("a", "where"))
def exact_sum_state(a: ArrayLike, axis: int | tuple[int, ...] | None = None, *,
                    keepdims: bool = False, where: ArrayLike = True,
                    skip_nan: bool = False) -> Any:
    """The exact sum of the terms of `a` over `axis`, as a portable state.

    Parameters
    ----------
    a : array_like
        bool, integer, float16, float32, float64, bfloat16, complex64 or
        complex128 values.
    axis : None, int or tuple of ints, optional
        Axes to sum over; None: every element.
    keepdims : bool, optional
        Keep the reduced axes as length-1 axes (before the state axes).
    where : array_like of bool, optional
        Elements to include; the others are not terms.
    skip_nan : bool, optional
        Leave NaNs out (as :func:`xsumufunc.exact_nansum`).

    Returns
    -------
    ndarray of dtype ``'<i8'``
        Shape: the result shape, then ``(69,)`` for real input or
        ``(2, 69)`` for complex input (real and imaginary parts).

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import exact_sum_state, merge_states, round_state
    >>> parts = [np.array([1e100, 1.0]), np.array([-1e100])]
    >>> states = np.stack([exact_sum_state(p) for p in parts])
    >>> states.shape, states.dtype.str
    ((2, 69), '<i8')
    >>> round_state(merge_states(states))           # exact: 1e100 + 1 - 1e100
    np.float64(1.0)
    """
    return _states.exact_sum_state(a, axis, keepdims=keepdims, where=where, skip_nan=skip_nan)


@dispatching("exact_count", ("a", "where"))
def exact_count(a: ArrayLike, axis: int | tuple[int, ...] | None = None, *, keepdims: bool = False,
                where: ArrayLike = True, skip_nan: bool = False) -> Any:
    """Number of terms :func:`exact_sum_state` sums, as ``'<i8'`` (for means).

    Same arguments as :func:`exact_sum_state`; counts merge by adding them.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import exact_count
    >>> exact_count([[1.0, np.nan], [2.0, 3.0]], axis=1, skip_nan=True)
    array([1, 2])
    """
    return _states.exact_count(a, axis, keepdims=keepdims, where=where, skip_nan=skip_nan)


@dispatching("merge_states", ("states",))
def merge_states(states: ArrayLike, axis: int = 0, *, complex_parts: bool = False) -> Any:
    """Merge exact states along `axis` (of the outer axes): the state of all
    their terms together.

    Parameters
    ----------
    states : array_like of int64
        States, ``(..., 69)`` (or ``(..., 2, 69)`` with ``complex_parts``).
        Checked: a malformed state raises ValueError.
    axis : int or tuple of ints, optional
        Outer axes to merge over (the state axes do not count).
    complex_parts : bool, optional
        The states are complex: ``(..., 2, 69)``.

    Returns
    -------
    ndarray of dtype ``'<i8'``, canonical: the same terms give the same bytes
    whatever the order and grouping of the merges.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import exact_sum_state, merge_states
    >>> x = np.random.default_rng(0).standard_normal(1000)
    >>> whole = exact_sum_state(x)
    >>> halves = np.stack([exact_sum_state(x[:300]), exact_sum_state(x[300:])])
    >>> merge_states(halves).tobytes() == whole.tobytes()
    True
    """
    return _states.merge_states(states, axis, complex_parts=complex_parts)


@dispatching("round_state", ("state",))
def round_state(state: ArrayLike, dtype: DTypeLike = np.float64) -> Any:
    """Round exact states once into `dtype`.

    Parameters
    ----------
    state : array_like of int64
        States ``(..., 69)``; ``(..., 2, 69)`` when `dtype` is complex.
    dtype : dtype, optional
        float64 (default), float32, float16, bfloat16, complex128 or complex64.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import exact_sum_state, round_state
    >>> s = exact_sum_state(np.array([1.0, 2.0**-24, 2.0**-80]))
    >>> round_state(s, np.float32), round_state(s)
    (np.float32(1.0000001), np.float64(1.0000000596046448))
    """
    return _states.round_state(state, dtype)


@dispatching("state_mean", ("state", "count"), mean=True)
def state_mean(state: ArrayLike, count: ArrayLike, dtype: DTypeLike = np.float64) -> Any:
    """Exact sum / count, rounded once into `dtype` (the exact mean).

    Parameters
    ----------
    state : array_like of int64
        States as for :func:`round_state`.
    count : array_like of int
        Term counts (:func:`exact_count`), non-negative; broadcast against the
        states' outer shape.  A count of 0 gives NaN with a RuntimeWarning.
    dtype : dtype, optional
        As for :func:`round_state`.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import exact_count, exact_sum_state, state_mean
    >>> x = np.array([0.1, 0.2, 0.3])
    >>> state_mean(exact_sum_state(x), exact_count(x)) == 0.2
    np.True_
    """
    return _states.state_mean(state, count, dtype)
