"""Bit-exact comparison helper shared by the test modules."""

import numpy as np
from oracle import BFLOAT16, COMPONENT_DTYPE

_UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _real_components(x):
    """Float component arrays (native byte order) of a real/complex array."""
    x = np.asarray(x)
    if x.dtype.kind == "c":
        comp = COMPONENT_DTYPE[np.dtype(x.dtype.newbyteorder("="))]
        x = x.astype(x.dtype.newbyteorder("="))
        return [np.ascontiguousarray(x.real).astype(comp), np.ascontiguousarray(x.imag).astype(comp)]
    if not x.dtype.isnative:
        x = x.astype(x.dtype.newbyteorder("="))
    return [np.ascontiguousarray(x)]


def _isnan(x):
    if x.dtype == BFLOAT16 or x.dtype.kind == "V":     # ml_dtypes: bfloat16, float8...
        x = x.astype(np.float32)
    return np.isnan(x)


def _describe(x):
    x = np.asarray(x)
    comps = _real_components(x)
    bits = [c.view(_UINT_OF_SIZE[c.dtype.itemsize]) for c in comps]
    return f"{x!r} (bits: {[b.tolist() for b in bits]})"


def assert_same(result, expected, msg=""):
    """Assert ``result`` and ``expected`` have the same dtype, shape and bits.

    NaN matches NaN whatever its payload or sign; -0.0 does not match +0.0.
    """
    r = np.asarray(result)
    e = np.asarray(expected)
    prefix = f"{msg}: " if msg else ""
    assert r.dtype == e.dtype, f"{prefix}dtype {r.dtype} != expected {e.dtype}"
    assert r.shape == e.shape, f"{prefix}shape {r.shape} != expected {e.shape}"
    for rc, ec in zip(_real_components(r), _real_components(e)):
        if rc.dtype.kind not in "fV" and rc.dtype != BFLOAT16:
            # non-float (e.g. integer/bool from np.add): plain equality
            assert np.array_equal(rc, ec), f"{prefix}{_describe(r)} != expected {_describe(e)}"
            continue
        u = _UINT_OF_SIZE[rc.dtype.itemsize]
        rb = rc.view(u)
        eb = ec.view(u)
        both_nan = _isnan(rc) & _isnan(ec)
        ok = (rb == eb) | both_nan
        assert bool(np.all(ok)), (
            f"{prefix}result {_describe(r)} != expected {_describe(e)}"
        )


def same(result, expected):
    try:
        assert_same(result, expected)
    except AssertionError:
        return False
    return True


def scalar(value, dtype):
    """NumPy scalar of ``dtype`` holding the Python number ``value``, which
    must be exactly representable in ``dtype`` (complex: per component)."""
    from oracle import _to_scalar  # exact conversion (bfloat16 via float32)

    dtype = np.dtype(dtype)
    if dtype in COMPONENT_DTYPE:
        comp = COMPONENT_DTYPE[dtype]
        value = complex(value)
        out = np.empty((), dtype=dtype)
        out.real = _to_scalar(value.real, comp)
        out.imag = _to_scalar(value.imag, comp)
        return out[()]
    r = _to_scalar(float(value), dtype)
    if not np.isnan(float(value)):
        assert float(r) == float(value), f"{value!r} is not representable in {dtype}"
    return r


def array(values, dtype):
    """Exact array of ``dtype`` from representable Python numbers."""
    from strategies import to_array

    return to_array(list(values), dtype)


def skip_under_asan():
    """Tests that cap the address space cannot run under AddressSanitizer,
    which reserves terabytes of shadow memory at start-up."""
    import os

    import pytest
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        pytest.skip("address-space cap; AddressSanitizer needs unlimited address space")


def dtype_names(dt):
    """Every spelling of a dtype an error message might use (lower case)."""
    dt = np.dtype(dt)
    names = {str(dt), dt.name, dt.str, repr(dt), dt.type.__name__, dt.type.__name__.rstrip("_")}
    if dt.kind == "M":
        names.add("datetime64")
    if dt.kind == "m":
        names.add("timedelta64")
    return {n.lower() for n in names if n}


def check_out_untouched(call, out):
    """call(out) must raise ValueError and leave every byte of out as it was."""
    import pytest
    before = out.tobytes()
    with pytest.raises(ValueError):
        call(out)
    assert out.tobytes() == before


def quiet(func, *args, **kwargs):
    """func(*args, **kwargs) with RuntimeWarnings and NumPy floating-point
    warnings silenced (overflow and empty means warn by contract; the tests
    that check those warnings do so on purpose, outside this)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(all="ignore"):
            return func(*args, **kwargs)


def local_cluster_client(processes):
    """A two-worker distributed LocalCluster and a client that is not the
    default scheduler (the other tests of a module must not run on it:
    their warnings would be raised in its workers, not in the test); a
    generator for a pytest fixture to yield from."""
    import warnings

    import pytest
    distributed = pytest.importorskip("distributed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # port/resource notices at start-up
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=processes,
            dashboard_address=None, silence_logs=50)
        client = distributed.Client(cluster, set_as_default=False)
    yield client
    client.close()
    cluster.close()


def in_line(x, offset, width=None, first=0):
    """A copy of the 2-D array x inside zeroed rows of ``width`` elements
    (default: x's columns), at columns first .. first + cols, the buffer
    starting ``offset`` bytes past a 64-byte line: every row starts at the
    same place in its line when width * itemsize is a multiple of 64 (the
    column sweep then sums the columns before the first line boundary
    apart, src/kernels/cells/xs_columns.c)."""
    rows, cols = x.shape
    width = width or first + cols
    size = rows * width * x.itemsize
    buf = np.zeros(size + 64, np.uint8)
    start = (offset - buf.ctypes.data) % 64
    wide = buf[start:start + size].view(x.dtype).reshape(rows, width)
    wide[:, first:first + cols] = x
    return wide[:, first:first + cols]
