"""Child processes for the tests, under a forced XSUMUFUNC_KERNEL.

The SIMD variants are picked once per process, so each kernel other than
the best one is tested in a fresh process: `run` runs any program there,
`run_with_kernel` Python code, and `check_under_kernel` compares what a
child computes on given inputs with the exact oracle, bit for bit.
"""

import inspect
import json
import os
import pathlib
import subprocess
import sys

import ml_dtypes
import numpy as np
from helpers import assert_same

_HERE = str(pathlib.Path(__file__).resolve().parent)
# The child of check_under_kernel: this module's _compute, found beside it.
_COMPUTE = "import sys; sys.path.insert(0, sys.argv[1]); import childrun; childrun._compute()"


def run(argv, kernel=None, *, timeout=300):
    """Run the program `argv` with XSUMUFUNC_KERNEL=kernel ("best": the best
    the CPU has; None: the variable as it is here); assert it exited with
    status 0 and return its output."""
    full = dict(os.environ)
    if kernel is not None:
        full["XSUMUFUNC_KERNEL"] = kernel
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=full,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


def run_with_kernel(kernel, code, *args, timeout=300):
    """Run the Python `code` (sys.argv[1:] = args) as `run` does; return its
    output lines.  -P: the child never imports the uncompiled source folder
    from the working directory."""
    return run([sys.executable, "-P", "-c", code, *args], kernel, timeout=timeout).split("\n")


def check_under_kernel(kernel, tmp_path, cases, compute, expected, *, timeout=300):
    """Assert that compute(*case), run in a child under `kernel`, gives the
    bits, dtypes and shapes of expected[name], for every case.

    cases: {name: array or tuple of arrays}, passed to the child in a file
    in tmp_path (ml_dtypes arrays too); compute: a module-level function of
    a test module (the child imports it by name) returning a sequence of
    results; expected: {name: the oracle's values of those results}."""
    arrays, layout = {}, {}
    for name, case in cases.items():
        layout[name] = []
        for x in case if isinstance(case, tuple) else (case,):
            key = f"a{len(arrays)}"
            # ml_dtypes' types as unsigned integers of their size: np.save
            # writes some (float8) in a form np.load cannot read.
            ml_type = hasattr(ml_dtypes, x.dtype.name)
            arrays[key] = x.view(f"u{x.dtype.itemsize}") if ml_type else x
            layout[name].append([key, _dtype_name(x.dtype)])
    inputs = tmp_path / "child_inputs.npz"
    np.savez(inputs, **arrays)
    task = {"inputs": str(inputs), "layout": layout,
            "module": pathlib.Path(inspect.getfile(compute)).stem, "function": compute.__name__}
    got = json.loads(run_with_kernel(kernel, _COMPUTE, _HERE, json.dumps(task),
                                     timeout=timeout)[0])
    assert got.keys() == expected.keys(), kernel
    for name, want in expected.items():
        have = [_decode(*r) for r in got[name]]
        assert len(have) == len(want), (kernel, name, len(have), len(want))
        for i, (h, w) in enumerate(zip(have, want)):
            assert_same(h, w, f"kernel {kernel}, {name}, result {i}")


def _dtype_name(dtype):
    """ml_dtypes' name of one of its types; NumPy's with the byte order."""
    return dtype.name if hasattr(ml_dtypes, dtype.name) else dtype.str


def _dtype(name):
    """The dtype that _dtype_name called `name`."""
    return np.dtype(getattr(ml_dtypes, name, name))


def _decode(dtype, shape, hexbytes):
    return np.frombuffer(bytes.fromhex(hexbytes), _dtype(dtype)).reshape(shape)


def _compute():
    """The child's side of check_under_kernel: print {name: [[dtype, shape,
    bytes in hex] of each result]} as JSON."""
    import importlib
    import warnings

    task = json.loads(sys.argv[2])
    compute = getattr(importlib.import_module(task["module"]), task["function"])
    data = np.load(task["inputs"])
    warnings.simplefilter("ignore")     # the results are checked, not the warnings
    results = {}
    with np.errstate(all="ignore"):
        for name, parts in task["layout"].items():
            args = [data[key].view(_dtype(dtype)) for key, dtype in parts]
            results[name] = [[_dtype_name(r.dtype), list(r.shape), r.tobytes().hex()]
                             for r in map(np.asarray, compute(*args))]
    print(json.dumps(results))
