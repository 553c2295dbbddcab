"""exact_add: ``np.add`` whose reduce, accumulate and reduceat are exact.

``np.ufunc`` cannot be subclassed, and ``np.add.reduce`` rounds at every call
boundary of its loop (see ../shared/notes/numpy-integration.md), so this is a
small object of our own that calls our gufuncs.
"""

import operator

import numpy as np

from . import _dtypes
from ._dispatch import backend_for
from ._reduce import NO_VALUE, as_input, check_out, exact_reduce, normalize_axes
from ._ufuncs import exact_cumsum_ufunc


def _single_axis(axis, a, func_name):
    if axis is None:
        if a.ndim != 1:
            raise ValueError(f"{func_name}: axis=None needs a 1-D input, not {a.ndim}-D")
        axis = 0
    return normalize_axes(operator.index(axis), a.ndim, func_name)[0]


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

    def __call__(self, *args, **kwargs):
        return np.add(*args, **kwargs)

    def outer(self, a, b, **kwargs):
        """``np.add.outer``: every result is one correctly rounded addition."""
        return np.add.outer(a, b, **kwargs)

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=NO_VALUE,
               where=True):
        """Exact sum along `axis` (default 0, as ``np.add.reduce``).

        Same arguments and results as :func:`xsumufunc.exact_sum`.
        """
        return exact_reduce("exact_add.reduce", a, axis, dtype, out, keepdims, initial,
                            where, skip_nan=False)

    def accumulate(self, a, axis=0, dtype=None, out=None):
        """Every prefix sum along `axis`, each exact and rounded once.

        ``np.add.accumulate`` rounds each running sum and adds the next term to
        the rounded value; here element i is the exact sum of elements 0..i
        rounded into the result dtype.
        """
        name = "exact_add.accumulate"
        if type(a) is not np.ndarray and (backend := backend_for(a)) is not None:
            return backend.accumulate(a, axis, dtype, out)
        a, kind = as_input(a, name)
        if a.ndim == 0:
            raise ValueError(f"{name}: cannot accumulate a 0-d array")
        axis = _single_axis(axis, a, name)
        result = _dtypes.resolve_result(a.dtype, kind, dtype, out, name)
        if out is not None:
            out = check_out(out, a.shape, name)
        target = out if out is not None and out.dtype == result else None
        res = np.empty(a.shape, result) if target is None else target
        parts = ((a, res),) if kind == "real" else ((a.real, res.real), (a.imag, res.imag))
        part_dtype = _dtypes.component(result)
        for values, into in parts:
            exact_cumsum_ufunc(values, out=into, axes=[(axis,), (axis,)],
                               signature=(_dtypes.native(values.dtype), part_dtype))
        if out is not None and target is None:
            np.copyto(out, res, casting="same_kind")
            return out
        return res

    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        """Exact sums of the segments that ``np.add.reduceat`` would sum.

        Segment i is ``a[indices[i]:indices[i+1]]`` along `axis` when
        ``indices[i] < indices[i+1]``, else the single element
        ``a[indices[i]]``; the last runs to the end.
        """
        name = "exact_add.reduceat"
        a, kind = as_input(a, name)
        if a.ndim == 0:
            raise ValueError(f"{name}: cannot reduceat a 0-d array")
        axis = _single_axis(axis, a, name)
        indices = np.asarray(indices)
        if indices.ndim != 1 or (indices.size and indices.dtype.kind not in "iu"):
            raise TypeError(f"{name}: indices must be a 1-D array of integers")
        length = a.shape[axis]
        bad = (indices < 0) | (indices >= length)
        if bad.any():
            raise IndexError(f"{name}: index {indices[bad][0]} out-of-bounds "
                             f"for axis {axis} of length {length}")
        result = _dtypes.resolve_result(a.dtype, kind, dtype, out, name)
        shape = a.shape[:axis] + (len(indices),) + a.shape[axis + 1:]
        if out is not None:
            out = check_out(out, shape, name)
        res = np.empty(shape, result)
        moved = np.moveaxis(a, axis, -1)
        res_moved = np.moveaxis(res, axis, -1)
        bounds = list(indices) + [length]
        for i, start in enumerate(indices):
            stop = bounds[i + 1] if start < bounds[i + 1] else start + 1
            exact_reduce(name, moved[..., start:stop], -1, result, res_moved[..., i],
                         False, NO_VALUE, True, skip_nan=False)
        if out is not None:
            np.copyto(out, res, casting="same_kind")
            return out
        return res

    def __repr__(self):
        return "<xsumufunc.exact_add: numpy.add with exact reduce/accumulate/reduceat>"

    def __reduce__(self):
        return "exact_add"          # pickled by reference to the module attribute


exact_add = ExactAdd()
exact_add.__module__ = "xsumufunc"
