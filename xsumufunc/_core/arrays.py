"""Which arguments are arrays of other libraries: the one rule that
``_dispatch`` (to pick the foreign backend) and ``_backends/foreign.py`` (to
view them as NumPy arrays) both apply.  Imports no array library: an
argument's library is its type's top module, already imported by the caller.
"""

import sys

import numpy as np


def library(x):
    """The top module of x's library (imported: the caller made x)."""
    return sys.modules.get(type(x).__module__.split(".", 1)[0])


def columnar(x):
    """"column" or "table" for polars and pyarrow objects; None otherwise."""
    lib = library(x)
    name = getattr(lib, "__name__", None)
    if name == "polars":
        if isinstance(x, lib.Series):
            return "column"
        if isinstance(x, (lib.DataFrame, lib.LazyFrame)):
            return "table"
    elif name == "pyarrow":
        if isinstance(x, (lib.Array, lib.ChunkedArray)):
            return "column"
        if isinstance(x, (lib.Table, lib.RecordBatch)):
            return "table"
    elif name == "pandas" and is_pandas_numbers(x):
        return "column"
    return None


def is_pandas_numbers(x):
    """A pandas Series, Index or array of a nullable (extension) dtype of
    numbers or bools: Int64, Float64, boolean, int64[pyarrow], ... (pandas'
    NumPy-backed columns are NumPy arrays to us)."""
    lib = library(x)
    dtype = getattr(x, "dtype", None)
    if not isinstance(x, (lib.Series, lib.Index, lib.api.extensions.ExtensionArray)):
        return False
    numpy_dtype = getattr(dtype, "numpy_dtype", None)
    return (isinstance(dtype, lib.api.extensions.ExtensionDtype)
            and isinstance(numpy_dtype, np.dtype) and numpy_dtype.kind in "biufc")


def is_foreign(x):
    """True for arrays of other libraries (not NumPy, lists or scalars): those
    that speak DLPack or the array API, polars/pyarrow columns and tables, and
    pandas' nullable columns (Int64, Float64, ...: NA)."""
    if isinstance(x, (np.ndarray, np.generic, list, tuple, int, float, complex, bool)):
        return False
    return (hasattr(x, "__dlpack__") or hasattr(x, "__array_namespace__")
            or columnar(x) is not None)
