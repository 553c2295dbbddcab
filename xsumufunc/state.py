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

Framed states, one design for every reduction: :func:`sum_state`,
:func:`moments_state` (for var and std), :func:`dot_state`,
:func:`grouped_sum_state` and :func:`grouped_moments_state` return a *framed*
state: one 1-D little-endian int64 array, a header (the word
``b"xsumstat"``, the format version, the kind of state, the name of the
terms' dtype, the result shape) and then one record per result (the term
count and the exact states; the layouts are ``_core/stateformat.py``'s
``record_dtype``).  :func:`merge` merges framed states of one kind, term
dtype and shape, in any order and grouping (the result is canonical: the
same bytes for the same terms); a state of another format version or kind
is refused with a ValueError.  ``finish_sum``, ``finish_mean``,
``finish_var``, ``finish_std`` and ``finish_dot`` round once and give the
bits of the one-shot function on all the data.  A framed state is plain
data: it pickles, ``np.save`` stores it, and its ``tobytes()`` (accepted
back by every function here) travels as an Arrow binary value.

The raw states above (``exact_sum_state`` & co.) are the sum records'
``s1`` part without a header: they stay for code that stores them, and new
code should use the framed states.
"""

# Hints as written (ArrayLike, DTypeLike), not NumPy's expanded Unions: help()
# and the signatures stay readable.
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._backends.plans import declare
from ._core import records as _records
from ._core import states as _states
from ._core.spec import NO_VALUE as _NO_VALUE
from ._core.stateformat import DTYPE as STATE_DTYPE
from ._core.stateformat import LENGTH as STATE_LENGTH
from ._dispatch import dispatching

__all__ = ["STATE_DTYPE", "STATE_LENGTH", "dot_state", "exact_count", "exact_sum_state",
           "finish_dot", "finish_mean", "finish_std", "finish_sum", "finish_var",
           "grouped_moments_state", "grouped_sum_state", "merge", "merge_states",
           "moments_state", "regroup", "round_state", "state_info", "state_mean", "sum_state"]


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
declare(exact_sum_state, "state", counts=False)


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
declare(exact_count, "state", counts=True)


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
declare(merge_states, "merge_states")


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
declare(round_state, "round_state")


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
declare(state_mean, "state_mean")


# ---- framed states ------------------------------------------------------------

@dispatching("sum_state", ("a", "where"), backends=())
def sum_state(a: ArrayLike, axis: int | tuple[int, ...] | None = None, *,
              where: ArrayLike = True, skip_nan: bool = False) -> np.ndarray:
    """A framed state of the exact sum and count of `a` over `axis`: finish
    it with :func:`finish_sum` or :func:`finish_mean`.

    Parameters
    ----------
    a : array_like
        Terms of any dtype :func:`xsumufunc.exact_sum` takes.
    axis : None, int or tuple of ints, optional
        Axes to reduce; None: every element.
    where : array_like of bool, optional
        Elements to include.
    skip_nan : bool, optional
        Leave NaNs out (as :func:`xsumufunc.exact_nansum`).

    Returns
    -------
    ndarray of dtype ``'<i8'``, 1-D: the header and one record per result
    (48 bytes of header plus 8 per result axis, then 560 bytes per real
    result).

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import finish_mean, finish_sum, merge, sum_state
    >>> parts = [np.array([1e100, 1.0]), np.array([-1e100, 2.0])]
    >>> total = merge([sum_state(p) for p in parts])
    >>> finish_sum(total), finish_mean(total)
    (np.float64(3.0), np.float64(0.75))
    """
    return _records.build_sum(a, axis, where, skip_nan)


@dispatching("moments_state", ("a", "where"), backends=())
def moments_state(a: ArrayLike, axis: int | tuple[int, ...] | None = None, *,
                  where: ArrayLike = True, skip_nan: bool = False) -> np.ndarray:
    """A framed state of the exact moments (count, sum, sum of squares) of
    `a` over `axis`: finish it with :func:`finish_var`, :func:`finish_std`,
    :func:`finish_sum` or :func:`finish_mean`.

    Arguments as for :func:`sum_state`.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_var
    >>> from xsumufunc.state import finish_std, finish_var, merge, moments_state
    >>> x = np.array([1e8, 1.0, -3.5, 2.25, 7.0])
    >>> merged = merge([moments_state(x[:2]), moments_state(x[2:])])
    >>> finish_var(merged, ddof=1) == exact_var(x, ddof=1)
    np.True_
    """
    return _records.build_moments(a, axis, where, skip_nan)


@dispatching("dot_state", ("a", "b"), backends=())
def dot_state(a: ArrayLike, b: ArrayLike, axis: int = -1) -> np.ndarray:
    """A framed state of the exact dot product ``conj(a) . b`` along `axis`
    (as :func:`xsumufunc.exact_dot`): finish it with :func:`finish_dot`.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import dot_state, finish_dot, merge
    >>> a, b = np.array([1e100, 1.0, -1e100]), np.array([1.0, 3.0, 1.0])
    >>> finish_dot(merge([dot_state(a[:1], b[:1]), dot_state(a[1:], b[1:])]))
    np.float64(3.0)
    """
    return _records.build_dot(a, b, axis)


@dispatching("grouped_sum_state", ("values", "codes"), backends=())
def grouped_sum_state(values: ArrayLike, codes: ArrayLike, ngroups: int, *,
                      skip_nan: bool = False) -> np.ndarray:
    """A framed state of the exact sum and count of each group (arguments as
    :func:`xsumufunc.exact_grouped_sum`): finish with :func:`finish_sum` or
    :func:`finish_mean`.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import finish_sum, grouped_sum_state, merge
    >>> one = grouped_sum_state([1e100, 5.0], [0, 1], 2)
    >>> two = grouped_sum_state([1.0, -1e100], [0, 0], 2)
    >>> finish_sum(merge([one, two]))
    array([1., 5.])
    """
    return _records.build_grouped("grouped_sum_state", values, codes, ngroups, skip_nan, "sum")


@dispatching("grouped_moments_state", ("values", "codes"), backends=())
def grouped_moments_state(values: ArrayLike, codes: ArrayLike, ngroups: int, *,
                          skip_nan: bool = False) -> np.ndarray:
    """A framed state of the exact moments of each group (arguments as
    :func:`xsumufunc.exact_grouped_var`): finish with :func:`finish_var`,
    :func:`finish_std`, :func:`finish_sum` or :func:`finish_mean`.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import finish_var, grouped_moments_state, merge
    >>> one = grouped_moments_state([1.0, 2.0, 10.0], [0, 0, 1], 2)
    >>> two = grouped_moments_state([3.0, 14.0], [0, 1], 2)
    >>> finish_var(merge([one, two]), ddof=1)
    array([1., 8.])
    """
    return _records.build_grouped("grouped_moments_state", values, codes, ngroups, skip_nan,
                                  "moments")


@dispatching("merge", ("states",), backends=())
def merge(states: Any) -> np.ndarray:
    """Merge framed states of one kind, term dtype and shape: the framed state
    of all their terms.

    Parameters
    ----------
    states : sequence of framed states (arrays or their bytes)
        At least one.  Any order and grouping gives the same bytes.

    Raises
    ------
    ValueError
        A state of another format version, kind, term dtype or shape, or
        anything that is not a framed state.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import merge, sum_state
    >>> x = np.random.default_rng(0).standard_normal(1000)
    >>> a, b, c = sum_state(x[:10]), sum_state(x[10:500]), sum_state(x[500:])
    >>> merge([merge([a, b]), c]).tobytes() == merge([c, a, b]).tobytes()
    True
    """
    return _records.merge_framed(states)


@dispatching("regroup", ("state", "codes"), backends=())
def regroup(state: Any, codes: ArrayLike, ngroups: int) -> np.ndarray:
    """A grouped state renumbered: its group g becomes group ``codes[g]`` of
    `ngroups` (groups given one code are merged; a negative code drops the
    group).  Workers that number their keys locally send their keys with
    their state; regroup puts every state on one numbering before
    :func:`merge`.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from xsumufunc.state import finish_sum, grouped_sum_state, merge, regroup
    >>> codes_a, keys_a = pd.factorize(np.array(["y", "x", "y"]))
    >>> a = grouped_sum_state([1e100, 2.0, 1.0], codes_a, len(keys_a))
    >>> codes_b, keys_b = pd.factorize(np.array(["y"]))
    >>> b = grouped_sum_state([-1e100], codes_b, len(keys_b))
    >>> keys = pd.Index(["x", "y"])
    >>> finish_sum(merge([regroup(a, keys.get_indexer(keys_a), 2),
    ...                   regroup(b, keys.get_indexer(keys_b), 2)]))
    array([2., 1.])
    """
    return _records.regroup_framed(state, codes, ngroups)


@dispatching("finish_sum", ("state",), backends=())
def finish_sum(state: Any, dtype: DTypeLike | None = None) -> Any:
    """The exact sum of a sum or moments state (plain or grouped), rounded once
    into `dtype` (default: what :func:`xsumufunc.exact_sum` gives for the
    terms' dtype).

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import finish_sum, sum_state
    >>> finish_sum(sum_state(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), axis=0))
    array([4., 6.], dtype=float32)
    """
    return _records.finish_sums("finish_sum", state, dtype, False)


@dispatching("finish_mean", ("state",), backends=())
def finish_mean(state: Any, dtype: DTypeLike | None = None) -> Any:
    """The exact mean of a sum or moments state (plain or grouped), rounded
    once (as :func:`xsumufunc.exact_mean`: no terms gives NaN and a warning).

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import finish_mean, sum_state
    >>> finish_mean(sum_state(np.array([0.1, 0.2, 0.3])))
    np.float64(0.2)
    """
    return _records.finish_sums("finish_mean", state, dtype, True)


@dispatching("finish_var", ("state",), backends=())
def finish_var(state: Any, ddof: Any = 0, dtype: DTypeLike | None = None, *,
               correction: Any = _NO_VALUE) -> Any:
    """The exact variance of a moments state (plain or grouped), rounded once
    (as :func:`xsumufunc.exact_var` with this `ddof`).

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import finish_var, moments_state
    >>> finish_var(moments_state(np.array([1.0, 2.0, 3.0, 4.0])))
    np.float64(1.25)
    """
    return _records.finish_variances("finish_var", state, ddof, dtype, correction, False)


@dispatching("finish_std", ("state",), backends=())
def finish_std(state: Any, ddof: Any = 0, dtype: DTypeLike | None = None, *,
               correction: Any = _NO_VALUE) -> Any:
    """The exact standard deviation of a moments state, rounded once (as
    :func:`xsumufunc.exact_std`).

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import finish_std, moments_state
    >>> finish_std(moments_state(np.array([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])))
    np.float64(2.0)
    """
    return _records.finish_variances("finish_std", state, ddof, dtype, correction, True)


@dispatching("finish_dot", ("state",), backends=())
def finish_dot(state: Any, dtype: DTypeLike | None = None) -> Any:
    """The exact dot product of a dot state, rounded once (as
    :func:`xsumufunc.exact_dot`; default dtype as it gives).

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import dot_state, finish_dot
    >>> finish_dot(dot_state(np.array([1, 2, 3]), np.array([4, 5, 6])))
    np.float64(32.0)
    """
    return _records.finish_dots(state, dtype)


def state_info(state: Any) -> dict[str, Any]:
    """The header of a framed state: format version, kind, terms' dtype, shape.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc.state import state_info, sum_state
    >>> state_info(sum_state(np.ones((3, 4), np.float32), axis=1))
    {'version': 1, 'kind': 'sum', 'dtype': dtype('float32'), 'shape': (3,)}
    """
    version, kind, term, shape = _records.info(state)
    return {"version": version, "kind": kind, "dtype": term, "shape": shape}
