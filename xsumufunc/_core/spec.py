"""The arguments of a reduction, checked once: :class:`ReductionSpec`.

Every path that reduces (the NumPy loops, the Dask backend, the states and
the grouped sums) parses ``axis``, ``dtype``, ``out``, ``keepdims``,
``where``, ``initial`` and the skip-NaN choice here, so that each rule and
each error message exists once.
"""

import math
import operator
import warnings
from dataclasses import dataclass

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from . import dtypes


class _NoValueType:
    """Marks an argument that was not given (``initial=0`` is a real term)."""

    def __repr__(self):
        return "<no value>"

    def __reduce__(self):
        return "NO_VALUE"


NO_VALUE = _NoValueType()


def as_integer(value, func_name, argname):
    """The one rule for integer arguments (axis, window, min_count, ngroups,
    an integer initial): what operator.index takes (Python and NumPy
    integers, 0-d integer arrays), never a bool (True is not axis 1 or a
    window of 1) nor a float (2.0 is not taken for 2).  TypeError naming
    the argument otherwise."""
    if isinstance(value, (bool, np.bool_)) or (
            isinstance(value, np.ndarray) and value.dtype.kind == "b"):
        raise TypeError(f"{func_name}: {argname} must be an integer, not the bool {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{func_name}: {argname} must be an integer, not {value!r}") from None


def normalize_axes(axis, ndim, func_name):
    """Tuple of non-negative axes (None: all of them).

    TypeError for a non-integer (as_integer), AxisError when out of range,
    ValueError when repeated (NumPy's rules), each naming the function.
    """
    if axis is None:
        return tuple(range(ndim))
    try:
        if isinstance(axis, tuple):
            axis = tuple(as_integer(ax, func_name, "axis") for ax in axis)
        else:
            axis = as_integer(axis, func_name, "axis")
        return normalize_axis_tuple(axis, ndim)
    except TypeError:
        raise TypeError(f"{func_name}: axis must be None, an integer or a tuple of "
                        f"integers, not {axis!r}") from None
    except np.exceptions.AxisError as exc:
        raise np.exceptions.AxisError(f"{func_name}: {exc}") from None
    except ValueError:          # repeated: an AxisError (a ValueError) as for range errors
        raise np.exceptions.AxisError(
            f"{func_name}: duplicate value in axis: {axis!r}") from None


def single_axis(axis, ndim, func_name):
    """One axis (accumulate, reduceat): None means axis 0 of a 1-D input."""
    if ndim == 0:
        raise ValueError(f"{func_name}: the input must have at least one dimension")
    if axis is None:
        if ndim != 1:
            raise ValueError(f"{func_name}: axis=None needs a 1-D input, not {ndim}-D")
        axis = 0
    if type(axis) is int and -ndim <= axis < ndim:
        return axis % ndim      # the common call, without NumPy's parser (a small call's cost)
    if isinstance(axis, tuple):
        raise TypeError(f"{func_name}: axis must be an integer, not {axis!r}")
    return normalize_axes(axis, ndim, func_name)[0]


def unwrap_out(out, func_name):
    """out=(arr,) as NumPy's ufuncs allow; anything but an ndarray is a TypeError."""
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{func_name}: out must be a numpy.ndarray, not {type(out).__name__}")
    return out


def check_out(out, shape, func_name):
    """out must be a writeable ndarray of exactly the result shape."""
    out = unwrap_out(out, func_name)
    if out.shape != tuple(shape):
        raise ValueError(
            f"{func_name}: out has shape {out.shape}, but the result has shape {tuple(shape)}")
    if not out.flags.writeable:
        raise ValueError(f"{func_name}: out is read-only")
    return out


def kept_shape(shape, axes):
    """`shape` with each of `axes` kept as length 1 (keepdims)."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def selects_all(where):
    """Is `where` the plain True of 'every element'?"""
    return where is True or (isinstance(where, (bool, np.bool_)) and bool(where))


def where_mask(where, shape, func_name, xp=np):
    """`where` broadcast to `shape`, as booleans of the array module xp
    (numpy, or dask.array for the Dask backend).  As NumPy: only booleans
    select (a cast would make None or 'abc' a mask)."""
    if xp is not np and not hasattr(where, "__dask_graph__"):
        # A NumPy mask for a dask input: one chunk (dask's automatic
        # chunking divides by zero on empty arrays); rechunked like the input.
        mask = xp.from_array(np.asarray(where), chunks=-1)
    else:
        mask = xp.asarray(where)
    if mask.dtype != bool:
        raise TypeError(f"{func_name}: where must be booleans, not {mask.dtype}")
    try:
        return xp.broadcast_to(mask, shape)
    except ValueError:
        raise ValueError(
            f"{func_name}: where has shape {np.shape(where)}, which does not "
            f"broadcast to the input shape {shape}") from None


def as_input(a, func_name):
    """a as an ndarray, and 'real' or 'complex' (TypeError for other dtypes)."""
    a = np.asarray(a)
    return a, dtypes.input_kind(a.dtype, func_name)


def skips_nan(skip_nan, dtype):
    """The skip-NaN rule: integers and bools have no NaN to skip."""
    return bool(skip_nan) and np.dtype(dtype).kind not in "biu"


def _integer_parts(n, func_name):
    """A Python integer beyond 64 bits as float64 values whose exact sum is
    it (each step takes the nearest float64 off the rest: about 53 bits)."""
    parts = []
    try:
        while n:
            parts.append(float(n))
            n -= int(parts[-1])
    except OverflowError:
        raise ValueError(f"{func_name}: initial={n} is beyond the float64 range") from None
    return np.array(parts)


def check_initial(initial, kind, func_name):
    """`initial` as an ndarray of a dtype we sum (complex only for complex
    input): 0-d, or for an integer beyond 64 bits, float64 parts whose
    exact sum it is (states.initial_state sums them)."""
    if isinstance(initial, int) and not isinstance(initial, bool) and not (
            -2**63 <= initial < 2**64):
        return _integer_parts(as_integer(initial, func_name, "initial"), func_name)
    value = np.asarray(initial)
    if value.ndim != 0:
        raise ValueError(f"{func_name}: initial must be a scalar, not shape {value.shape}")
    value_kind = None
    try:
        value_kind = dtypes.input_kind(value.dtype, func_name)
    except TypeError:
        pass
    if value_kind is None or (value_kind == "complex" and kind == "real"):
        raise TypeError(
            f"{func_name}: initial must be a {'real' if kind == 'real' else 'real or complex'}"
            f" number of a supported dtype, not {initial!r}")
    return value


def warn_empty_mean(stacklevel=3):
    """NumPy's warning for the mean of no terms (the result is NaN)."""
    warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=stacklevel + 1)


@dataclass(frozen=True)
class ReductionSpec:
    """A checked reduction over `axes` of an array of `shape`.

    ``result`` is the dtype the exact value is rounded into once (None for
    the state functions, which do not round); ``mask`` is ``where`` broadcast
    to `shape` (None: every element); ``initial`` is a 0-d array or NO_VALUE;
    ``skip_nan`` is already False for integer input.
    """

    func_name: str
    shape: tuple
    axes: tuple
    kind: str
    result: object
    out: object
    keepdims: bool
    mask: object
    initial: object
    skip_nan: bool

    @classmethod
    def parse(cls, func_name, a, axis=None, dtype=None, out=None, keepdims=False,
              where=True, initial=NO_VALUE, skip_nan=False, *, rounds=True, xp=np):
        """Check the arguments of a reduction of `a` (an ndarray, or a dask
        array with ``xp=dask.array``)."""
        kind = dtypes.input_kind(a.dtype, func_name)
        axes = normalize_axes(axis, a.ndim, func_name)
        if out is not None:
            out = unwrap_out(out, func_name)
        result = dtypes.resolve_result(a.dtype, kind, dtype, out, func_name) if rounds else None
        if initial is not NO_VALUE:
            initial = check_initial(initial, kind, func_name)
        mask = None if selects_all(where) else where_mask(where, a.shape, func_name, xp)
        spec = cls(func_name, tuple(a.shape), axes, kind, result, None, bool(keepdims), mask,
                   initial, skips_nan(skip_nan, a.dtype))
        if out is not None:
            object.__setattr__(spec, "out", check_out(out, spec.out_shape, func_name))
        return spec

    @property
    def outer_shape(self):
        """The result's shape without the reduced axes."""
        return tuple(n for i, n in enumerate(self.shape) if i not in self.axes)

    @property
    def kept_shape(self):
        """The result's shape with each reduced axis kept as length 1."""
        return kept_shape(self.shape, self.axes)

    @property
    def out_shape(self):
        return self.kept_shape if self.keepdims else self.outer_shape

    @property
    def terms_per_result(self):
        """Elements reduced into each result (before where= and NaN-skipping)."""
        return math.prod(self.shape[ax] for ax in self.axes)

    def keep(self, result, trailing=0):
        """`result` (outer shape, then `trailing` axes of its own) with the
        reduced axes kept as length 1 when keepdims."""
        if not self.keepdims:
            return result
        return result.reshape(self.kept_shape + result.shape[result.ndim - trailing:])
