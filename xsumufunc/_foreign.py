"""Arrays of other libraries: the DLPack / array-API backend of _dispatch.

An array that is not NumPy's but speaks DLPack (``__dlpack__``: torch CPU
tensors, JAX CPU arrays, array-api-strict arrays, ...) or the array API
(``__array_namespace__``) is viewed as a NumPy array (``np.from_dlpack``,
without a copy where the producer allows; else ``np.asarray``), the NumPy
path computes the exact result, and the result goes back into the caller's
namespace (``xp.asarray``, on the input's device), 0-d results as 0-d arrays.

Only CPU arrays can be read; ``out=`` must be a NumPy array (results are
written into it and it is returned).  Nothing here imports an array library:
the caller's namespace comes from its own array.
"""

import numpy as np

_DLPACK_CPU = 1          # DLDeviceType kDLCPU


def _type_name(x):
    cls = type(x)
    return f"{cls.__module__}.{cls.__qualname__}"


def is_foreign(x):
    """True for arrays of other libraries (not NumPy, lists or scalars)."""
    if isinstance(x, (np.ndarray, np.generic, list, tuple, int, float, complex, bool)):
        return False
    return hasattr(x, "__dlpack__") or hasattr(x, "__array_namespace__")


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


def to_numpy(x, func_name, argname="a"):
    """x as a NumPy array (a view where DLPack allows); other arguments as
    they are."""
    if not is_foreign(x):
        return x
    _check_cpu(x, func_name, argname)
    errors = []
    if hasattr(x, "__dlpack__"):
        try:
            return np.from_dlpack(x)
        except (BufferError, TypeError, ValueError, RuntimeError) as exc:
            errors.append(exc)
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
        import array_api_compat          # torch, for one, has no __array_namespace__
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
    try:
        return xp.asarray(result) if device is None else xp.asarray(result, device=device)
    except (TypeError, ValueError, RuntimeError, BufferError):
        return xp.from_dlpack(result) if device is None else xp.from_dlpack(result,
                                                                            device=device)


def _check_out(out, func_name):
    if out is None:
        return None
    checked = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if not isinstance(checked, np.ndarray):
        raise TypeError(
            f"{func_name}: out must be a numpy.ndarray, not {_type_name(checked)}: results "
            "for other array libraries are returned as new arrays of their namespace")
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


def _first_foreign(*arrays):
    return next(x for x in arrays if is_foreign(x))


def reduce(func_name, a, axis, dtype, out, keepdims, initial, where, skip_nan, mean):
    """exact_sum, exact_mean, their nan-variants and exact_add.reduce."""
    from ._reduce import exact_reduce
    out = _check_out(out, func_name)
    result = exact_reduce(func_name, to_numpy(a, func_name), axis,
                          _numpy_dtype(dtype, func_name), out, keepdims,
                          to_numpy(initial, func_name, "initial"), to_numpy(where, func_name,
                                                                            "where"),
                          skip_nan, mean)
    return result if out is not None else to_caller(result, a)


def accumulate(a, axis, dtype, out):
    """exact_add.accumulate."""
    from ._add import exact_add
    out = _check_out(out, "exact_add.accumulate")
    result = exact_add.accumulate(to_numpy(a, "exact_add.accumulate"), axis,
                                  _numpy_dtype(dtype, "exact_add.accumulate"), out)
    return result if out is not None else to_caller(result, a)


def dot(a, b, axis, dtype, out, keepdims):
    """exact_dot."""
    from ._dot import exact_dot
    out = _check_out(out, "exact_dot")
    result = exact_dot(to_numpy(a, "exact_dot", "a"), to_numpy(b, "exact_dot", "b"), axis,
                       _numpy_dtype(dtype, "exact_dot"), out, keepdims)
    return result if out is not None else to_caller(result, _first_foreign(a, b))


def call_with_numpy(func, arrays, kwargs):
    """func(*arrays, **kwargs) for a function written for NumPy arrays, with
    the foreign arrays viewed as NumPy arrays and the result returned in the
    namespace of the first of them (used by xsumufunc.array_api)."""
    name = getattr(func, "__name__", "function")
    like = _first_foreign(*arrays)
    names = ["x"] if len(arrays) == 1 else [f"x{i + 1}" for i in range(len(arrays))]
    converted = [to_numpy(x, name, n) for x, n in zip(arrays, names)]
    if "dtype" in kwargs:
        kwargs = dict(kwargs, dtype=_numpy_dtype(kwargs["dtype"], name))
    return to_caller(func(*converted, **kwargs), like)
