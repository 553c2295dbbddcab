"""Arrays of other libraries: the DLPack / array-API backend of ``_dispatch``.

An array that is not NumPy's but speaks DLPack (``__dlpack__``: torch CPU
tensors, JAX CPU arrays, array-api-strict arrays, ...) or the array API
(``__array_namespace__``) is viewed as a NumPy array (``np.from_dlpack``,
without a copy where the producer allows; else ``np.asarray``), the NumPy
path computes the exact result, and the result goes back into the caller's
namespace (``xp.asarray``, on the input's device), 0-d results as 0-d arrays.

Formats NumPy lacks but ml_dtypes has (torch's bfloat16 and float8 tensors,
which DLPack cannot export to NumPy) are read through an integer view of
their bits, reinterpreted as the ml_dtypes format of the same name (no
copy), and results in those formats go back the same way.

Only CPU arrays can be read; ``out=`` must be a NumPy array (results are
written into it and it is returned).  Tensors that require gradients are
refused: an exact reduction has no gradient here.  Nothing here imports an
array library: the caller's namespace and dtypes come from its own array
(the library's top module, already imported by the caller).

polars, pyarrow and pandas' nullable columns (one rule, here): a column
(``polars.Series``, ``pyarrow.Array``, ``pyarrow.ChunkedArray``, a pandas
Series, Index or array of a nullable dtype such as ``Int64``, ``Float64``,
``boolean`` or ``int64[pyarrow]``) is read as a NumPy array of its own
values (never through a float64 copy) and the result is what NumPy input
gives (a NumPy scalar for a full reduction): none of them has an array
namespace to return into.  A null (pandas: ``pd.NA``) is a ValueError,
unless the function skips NaN (``exact_nansum`` & co., ``skip_nan=True``):
then nulls are left out as NaNs are, as pandas' ``skipna`` does (the
``where=`` mask, code -1 for the grouped functions, or the NaN a float
column reads as).  A ``ChunkedArray`` is read chunk by chunk: full sums,
means and variances merge the chunks' exact states (``chunked.py``), the
other functions get the chunks concatenated.  A table (``polars.DataFrame``/``LazyFrame``,
``pyarrow.Table``/``RecordBatch``) is a TypeError: summing every column
together, keys included, is never what is meant; pass one column, or map
the function over the columns (README, "polars and pyarrow").

Under ``torch.compile`` the whole call runs eagerly, outside the graph:
:func:`call` hands it to a ``torch.compiler.disable``-d function, so Dynamo
breaks the graph there (with ``fullgraph=True``: Dynamo's ``Unsupported``
error, giving our reason) instead of tracing into the NumPy code.
"""

import functools
import sys

import numpy as np

from .._core import dtypes
from .._core.arrays import columnar, is_foreign, library
from .._ufuncs import _fp_pin, _fp_restore
from . import chunked

_DLPACK_CPU = 1          # DLDeviceType kDLCPU


def _type_name(x):
    cls = type(x)
    return f"{cls.__module__}.{cls.__qualname__}"


def _refuse_table(x, func_name, argname):
    cls = type(x).__qualname__
    if library(x).__name__ == "polars":
        how = (f"pass one column ({argname}['x']), or apply it to each column: "
               f"{argname}.select(pl.all().map_batches({func_name}, returns_scalar=True))")
    else:
        how = (f"pass one column ({argname}['x'] or {argname}.column('x')), or apply it to "
               f"each: {{n: {func_name}(c) for n, c in zip({argname}.column_names, "
               f"{argname}.columns)}}")
    raise TypeError(
        f"{func_name}: {argname} is a {library(x).__name__} {cls}, a table of columns, "
        f"which {func_name} would take as one array (keys included): {how}")


def _null_count(x):
    if library(x).__name__ == "pandas":
        return int(np.count_nonzero(_pandas_missing(x)))
    count = x.null_count
    return int(count() if callable(count) else count)    # polars: a method


def _pandas_missing(x):
    return np.asarray(library(x).isna(x), dtype=bool)


def _as_numpy(x):
    """A column without nulls as a NumPy array."""
    name = library(x).__name__
    if name == "polars":
        return x.to_numpy()
    if name == "pandas":
        return x.to_numpy(dtype=x.dtype.numpy_dtype)
    return x.to_numpy(zero_copy_only=False)


def _zero_filled(x):
    """(the values, nulls as zeros, as a NumPy array; the mask of the
    non-null terms), or None when x does not hold numbers."""
    lib = library(x)
    if lib.__name__ == "polars":
        return x.fill_null(strategy="zero").to_numpy(), np.asarray(x.is_not_null().to_numpy(),
                                                                   dtype=bool)
    if lib.__name__ == "pandas":
        dtype = x.dtype.numpy_dtype
        return x.to_numpy(dtype=dtype, na_value=dtype.type(0)), ~_pandas_missing(x)
    try:
        filled = x.fill_null(False if lib.types.is_boolean(x.type) else 0)
    except (TypeError, ValueError, lib.ArrowException):
        return None
    return (filled.to_numpy(zero_copy_only=False),
            np.asarray(x.is_valid().to_numpy(zero_copy_only=False), dtype=bool))


def _nan_filled(x):
    """A floating column with NaN for its nulls."""
    if library(x).__name__ == "pandas":
        return x.to_numpy(dtype=x.dtype.numpy_dtype, na_value=np.nan)
    return _as_numpy(x)          # polars and pyarrow read nulls as NaN


_FILL_OR_DROP = {"polars": "s.fill_null(...) or s.drop_nulls()",
                 "pyarrow": "pyarrow.compute.fill_null(a, ...) or a.drop_null()",
                 "pandas": "s.fillna(...) or s.dropna()"}


def _column_values(x, func_name, argname, skips_nan, has_where):
    """A polars/pyarrow/pandas column as (NumPy array, mask of its non-null
    terms or None when it has no null).

    Nulls (pandas: NA): a ValueError unless `skips_nan` (the function leaves
    NaNs out), in which case they are left out too: filled with zeros
    (False) that the mask (for where=, or as code -1 for the grouped
    functions) leaves out, exact for every dtype; a function without either
    reads them as NaN in a floating column."""
    nulls = _counted_nulls(x, func_name, argname, skips_nan)
    if nulls == 0:
        return _as_numpy(x), None
    filled = _zero_filled(x)
    if filled is None:
        return _as_numpy(x), None           # not numbers: the dtype's TypeError follows
    if has_where:
        return filled
    if filled[0].dtype.kind in "fc":
        return _nan_filled(x), None         # nulls read as NaN: left out as NaNs
    raise ValueError(
        f"{func_name}: {argname} ({_type_name(x)}) has {nulls} null(s) in a "
        f"{filled[0].dtype} column, and {func_name} has no where= to leave them out: drop "
        f"them first ({_FILL_OR_DROP[library(x).__name__]})")


def _counted_nulls(x, func_name, argname, skips_nan):
    """The number of nulls in column x: a ValueError when there are some and
    the function does not skip them."""
    nulls = _null_count(x)
    if nulls and not skips_nan:
        raise ValueError(
            f"{func_name}: {argname} ({_type_name(x)}) has {nulls} null(s), which "
            f"{func_name} does not skip: use a nan-variant (exact_nansum, exact_nanmean, ...; "
            f"or skip_nan=True), which leaves nulls out as it does NaNs, or fill or drop them "
            f"first ({_FILL_OR_DROP[library(x).__name__]})")
    return nulls


def _chunks_of(x):
    """The chunks of a pyarrow.ChunkedArray of at least one chunk (read one
    by one: backends/chunked.py), None for other columns."""
    lib = library(x)
    if lib.__name__ == "pyarrow" and isinstance(x, lib.ChunkedArray) and x.num_chunks:
        return x.chunks
    return None


def _check_cpu(x, func_name, argname):
    device_of = getattr(x, "__dlpack_device__", None)
    if device_of is None:
        return
    try:
        device_type = int(device_of()[0])
    except Exception:           # a producer that cannot say: let the import decide
        return
    if device_type != _DLPACK_CPU:
        device = getattr(x, "device", f"DLPack device type {device_type}")
        raise ValueError(
            f"{func_name}: {argname} is on device {device}; only arrays in CPU memory "
            "can be read: move it to the CPU first (for example x.cpu() in torch)")


#: The integer type (by name, in the array's library) that views the bits of
#: a format of this many bytes.
_BIT_VIEWS = {1: "uint8", 2: "int16"}


def _bit_view(x):
    """x, a tensor of a format NumPy lacks (torch.bfloat16, float8, ...), as
    a NumPy array of the ml_dtypes format of the same name, through an
    integer view of its bits (no copy); None when that does not apply."""
    name = str(getattr(x, "dtype", "")).rsplit(".", 1)[-1]
    target = dtypes.ml_dtype_named(name)
    view = getattr(x, "view", None)
    if target is None or view is None or target.itemsize not in _BIT_VIEWS:
        return None
    int_type = getattr(library(x), _BIT_VIEWS[target.itemsize], None)
    if int_type is None:
        return None
    try:
        return np.from_dlpack(view(int_type)).view(target)
    except (BufferError, TypeError, ValueError, RuntimeError):
        return None


def to_numpy(x, func_name, argname="a"):
    """x as a NumPy array (a view where DLPack allows); other arguments as
    they are."""
    if not is_foreign(x):
        return x
    _check_cpu(x, func_name, argname)
    if getattr(x, "requires_grad", False) is True:
        raise TypeError(
            f"{func_name}: {argname} ({_type_name(x)}) requires gradients, and exact "
            f"reductions are not differentiable: pass {argname}.detach() for the value")
    errors = []
    if hasattr(x, "__dlpack__"):
        try:
            return np.from_dlpack(x)
        except (BufferError, TypeError, ValueError, RuntimeError) as exc:
            errors.append(exc)
        viewed = _bit_view(x)
        if viewed is not None:
            return viewed
    try:
        converted = np.asarray(x)
    except (TypeError, ValueError, RuntimeError) as exc:
        errors.append(exc)
    else:
        if converted.dtype != object:    # an object array: NumPy could not read it
            return converted
        errors.append("np.asarray gives an object array")
    reasons = "; ".join(str(e) for e in errors)
    raise TypeError(
        f"{func_name}: cannot read {argname} ({_type_name(x)}) as a NumPy array "
        f"through DLPack or the array API ({reasons}); supported dtypes are those "
        "NumPy has (bool, integers, float16/32/64, complex64/128)")


def _namespace(x):
    """The array-API namespace of x, or None."""
    if hasattr(x, "__array_namespace__"):
        return x.__array_namespace__()
    try:
        import array_api_compat  # torch, for one, has no __array_namespace__
    except ImportError:
        return None
    try:
        return array_api_compat.array_namespace(x)
    except TypeError:
        return None


def to_caller(result, like):
    """A NumPy result as an array of like's namespace and device (NumPy when
    like has no namespace)."""
    result = np.asarray(result)
    xp = _namespace(like)
    if xp is None or xp is np:
        return result
    device = getattr(like, "device", None)
    where = {} if device is None else {"device": device}
    if result.dtype == dtypes.BFLOAT16 or dtypes.is_code(result.dtype):
        returned = _from_bits(result, like, xp, where)
        if returned is not None:
            return returned
    try:
        return xp.asarray(result, **where)
    except (TypeError, ValueError, RuntimeError, BufferError):
        pass
    try:
        return xp.from_dlpack(result, **where)
    except (TypeError, ValueError, RuntimeError, BufferError):
        raise TypeError(
            f"the result ({result.dtype.name}) cannot be returned as an array of "
            f"{_type_name(like)}'s namespace, which has no such dtype; pass NumPy "
            "arrays to get it as a NumPy array") from None


def _from_bits(result, like, xp, where):
    """A result in an ml_dtypes format as a tensor of like's library in the
    format of the same name, through an integer view of its bits; None when
    the library has no such format."""
    lib = library(like)
    target = getattr(lib, result.dtype.name, None)
    int_name = _BIT_VIEWS.get(result.dtype.itemsize)
    if target is None or int_name is None:
        return None
    bits = xp.asarray(result.view(np.dtype(int_name)), **where)
    view = getattr(bits, "view", None)
    try:
        return view(target) if view is not None else None
    except (TypeError, ValueError, RuntimeError):
        return None


def _check_out(out, func_name):
    if out is None:
        return None
    for checked in out if isinstance(out, tuple) else (out,):
        if not isinstance(checked, np.ndarray):
            raise TypeError(
                f"{func_name}: out must be a numpy.ndarray, not {_type_name(checked)}: "
                "results for other array libraries are returned as new arrays of their "
                "namespace")
    return out


def _numpy_dtype(dtype, func_name):
    """A dtype argument given in another namespace (torch.float32,
    array_api_strict.float32) as a NumPy dtype."""
    if dtype is None:
        return None
    try:
        return np.dtype(dtype)
    except TypeError:
        pass
    name = str(dtype).rsplit(".", 1)[-1]
    try:
        return np.dtype(name)
    except TypeError:
        raise TypeError(f"{func_name}: dtype {dtype!r} is not a data type NumPy has") from None


#: _call wrapped by torch.compiler.disable, built once torch._dynamo is
#: loaded (wrapping would import it: a second; compiling loads it anyway), at
#: import or at the first call after that: outside a trace where possible, as
#: Dynamo cannot trace the wrapping (inside a trace it is a graph break too).
_torch_eager = None
_NOT_TRACEABLE = ("xsumufunc computes exact reductions eagerly, in NumPy: call it outside "
                  "the compiled function to avoid this graph break")


def _wrap_for_torch_compile():
    """torch.compiler, or None when torch is not imported; builds
    _torch_eager once torch._dynamo is imported."""
    global _torch_eager
    compiler = getattr(sys.modules.get("torch"), "compiler", None)
    if compiler is None or not hasattr(compiler, "is_compiling"):
        return None
    if _torch_eager is None and "torch._dynamo" in sys.modules:
        try:
            _torch_eager = compiler.disable(_call, reason=_NOT_TRACEABLE)
        except TypeError:        # torch before 2.6: no reason=
            _torch_eager = compiler.disable(_call)
    return compiler


def call(function, args, kwargs):
    """As _call; inside a torch.compile trace, through _torch_eager, so that
    Dynamo breaks the graph there instead of tracing the NumPy code."""
    compiler = _wrap_for_torch_compile()
    if compiler is not None and _torch_eager is not None and compiler.is_compiling():
        return _torch_eager(function, args, kwargs)
    return _call(function, args, kwargs)


def _call(function, args, kwargs):
    """_compute in the pinned floating-point mode (``_ufuncs._fp_pin``): the
    whole call, as the dispatch does for NumPy arguments; inside the
    torch.compile boundary, so that Dynamo never traces the pin."""
    saved = _fp_pin()
    try:
        return _compute(function, args, kwargs)
    finally:
        _fp_restore(saved)


def _compute(function, args, kwargs):
    """A public function (see ``_dispatch.Function``) on foreign arrays: its
    array arguments viewed as NumPy arrays, its NumPy implementation, and the
    result (each result of a tuple) in the namespace of the first foreign
    array; with ``out=``, the NumPy ``out`` itself."""
    name = function.name
    bound = function.bind(args, kwargs)
    like = None
    skips_nan = function.skips_nan or bool(bound.arguments.get("skip_nan", False))
    terms = None        # the non-null terms of a polars/pyarrow/pandas column with nulls
    # Nulls can be left out through where= or, for the grouped functions,
    # as terms of no group (code -1).
    maskable = "where" in bound.arguments or "codes" in bound.arguments
    for argname in function.arrays:
        value = bound.arguments.get(argname)
        kind = columnar(value)
        if kind == "table":
            _refuse_table(value, name, argname)
        if kind == "column":
            # Only the data (the first array argument) may have nulls to skip.
            first = argname == function.arrays[0]
            chunks = _chunks_of(value)
            if chunks is not None:
                _counted_nulls(value, name, argname, skips_nan and first)  # the whole column's
            if chunks is not None and first:
                done = chunked.reduce(name, bound.arguments, chunks, functools.partial(
                    _column_values, func_name=name, argname=argname, skips_nan=skips_nan,
                    has_where=True))
                if done is not NotImplemented:
                    return done
            read = functools.partial(_column_values, func_name=name, argname=argname,
                                     skips_nan=skips_nan and first, has_where=maskable)
            bound.arguments[argname], mask = (read(value) if chunks is None
                                              else chunked.concatenated(chunks, read))
            terms = mask if first else terms
        elif is_foreign(value):
            like = value if like is None else like
            bound.arguments[argname] = to_numpy(value, name, argname)
    if terms is not None and "where" in bound.arguments:
        where = bound.arguments["where"]
        bound.arguments["where"] = terms if where is True else np.logical_and(where, terms)
    elif terms is not None:
        codes = np.asarray(bound.arguments["codes"])
        if codes.shape == terms.shape:          # (else the shape's ValueError follows)
            bound.arguments["codes"] = np.where(terms, codes, -1)
    if bound.arguments.get("dtype") is not None:
        bound.arguments["dtype"] = _numpy_dtype(bound.arguments["dtype"], name)
    out = bound.arguments.get("out")
    if out is not None:
        _check_out(out, name)
    result = function.core(*bound.args, **bound.kwargs)
    if out is not None or like is None:     # NumPy's results for polars/pyarrow columns
        return result
    if isinstance(result, tuple):
        values = (to_caller(r, like) for r in result)
        # A named tuple (exact_linear_regression's) keeps its type.
        return type(result)(*values) if hasattr(result, "_fields") else tuple(values)
    return to_caller(result, like)


_wrap_for_torch_compile()
