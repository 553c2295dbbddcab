"""Routing of non-NumPy inputs to the module that handles them.

The public functions (exact_sum, exact_nansum, exact_mean, exact_nanmean,
exact_add.reduce, exact_add.accumulate, exact_dot) call :func:`backend_for`
on their array arguments first.  ``None`` means "NumPy, lists or scalars":
the normal path.  Otherwise the returned module computes the result and must
provide

    reduce(func_name, a, axis, dtype, out, keepdims, initial, where, skip_nan, mean)
    accumulate(a, axis, dtype, out)
    dot(a, b, axis, dtype, out, keepdims)

func_name is the public name ("exact_sum", "exact_nanmean",
"exact_add.reduce", ...); the other arguments are those of exact_reduce.

Backends (imported only when such an input is seen, so importing xsumufunc
never imports dask or any array library):

- ``_dask``: dask arrays, reduced through exact states (bit-identical to
  the NumPy result for every chunking).
- ``_foreign``: other arrays that speak DLPack or the array API (torch CPU
  tensors, array-api-strict, JAX CPU arrays): computed on a NumPy view and
  returned in the caller's namespace.
"""

import numpy as np

# Types that are never foreign: checked first, so the common call stays cheap.
_NATIVE_TYPES = (np.ndarray, np.generic, list, tuple, int, float, complex, bool)


def backend_for(*arrays):
    """The backend module for these arguments, or None for the NumPy path."""
    for x in arrays:
        if isinstance(x, _NATIVE_TYPES):
            continue
        module = type(x).__module__
        if module.startswith("dask."):
            from . import _dask
            return _dask
        if hasattr(x, "__dlpack__") or hasattr(x, "__array_namespace__"):
            from . import _foreign
            return _foreign
    return None
