"""How close the portable level's column sums run to the CPU's bound (x86-64).

    python benchmarks/bench_generic_bounds.py              # one run
    python benchmarks/bench_generic_bounds.py --rounds 21

Issue 27's goals for ``XSUMUFUNC_KERNEL=generic`` (SSE2, no FMA) are missed
for the paper's data (1-D and columns) and for float32 columns of
lognormal(0, 3) data (docs/performance.md).  This script prices why, with
the kernels of ``benchmarks/c/generic_bounds.c`` (compiled here with the
system's C compiler against the package's headers, whose grid it shares; not
package code): the same cuts as the package's
column sweep, run row by row with every column's state in memory, with and
without the range, and for float32 a split by magnitude class that takes two
adds a term where the cuts take four.  Every kernel's column sums are
checked exact against ``fractions.Fraction`` before they are timed.

The 1-D sums of the paper's data are timed too (``exact_sum`` and
``np.sum``), against the same bound as the paper's columns.  It prints, per
case, ns per element of: the adders' bound (the case's
operations a term on the adders, each half an ``addpd``, times the measured
ns per independent ``addpd``), each
kernel, ``exact_sum`` at the generic level, and ``np.sum`` (NumPy at its own
best level), with ratios to ``np.sum``.
"""

import argparse
import ctypes
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from fractions import Fraction

os.environ["XSUMUFUNC_KERNEL"] = "generic"   # read once, when xsumufunc loads

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import measure, placed, spread_data  # noqa: E402

import xsumufunc as xs  # noqa: E402

SOURCE = os.path.join(HERE, "c", "generic_bounds.c")
#: The package's C headers (the harness takes its grid's constants from them).
INCLUDE = os.path.join(os.path.dirname(HERE), "src")
SHAPE = (1000, 1000)
#: Binades of each float32 class (generic_bounds.c): class 1 holds |x| in
#: [2^(T-24), 2^T), class 2 [2^(T-48), 2^(T-24)); a class's quantum is its
#: smallest term's lowest bit (FLOAT32_LOW binades below it).
CLASS_SPAN, FLOAT32_LOW = 24, 23

#: (label, data kind, dtype, kernel, cells, operations a term on the adders)
#: A term takes one lane of each operation: the cuts three per cut cell and
#: one for the last cell; float32 one more, the widening.  The classes: the
#: widening, and one add in each of the two cells (zero in one of them).
CASES = [
    ("float64 columns, paper's data", "paper's data", "float64", "f64_cuts3", 3, 7),
    ("float64 columns, normal", "normal", "float64", "f64_cuts2", 2, 4),
    ("float32 columns, lognormal(0, 3)", "lognormal(0, 3)", "float32", "f32_cuts", 2, 5),
]
#: Variants timed beside a case's kernel (measurements only).
VARIANTS = {
    "f64_cuts3": [("no range", "f64_cuts3_norange", 7)],
    "f64_cuts2": [("no range", "f64_cuts2_norange", 4)],
    "f32_cuts": [("classes", "f32_classes", 3)],
}


def build(workdir):
    """The harness as a shared library (None where it cannot be built)."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    out = os.path.join(workdir, "generic_bounds.so")
    subprocess.run([cc, "-O2", "-std=c17", "-D_POSIX_C_SOURCE=200809L", "-fPIC", "-shared",
                    "-I" + INCLUDE, SOURCE, "-o", out], check=True)
    return ctypes.CDLL(out)


def constant(lib, name):
    """An int the harness exports (the package's grid: xs_cells.h)."""
    return ctypes.c_int.in_dll(lib, name).value


def aligned(shape, dtype):
    """A zeroed array whose data start on a page (so on a 64-byte line)."""
    return placed(np.zeros(shape, dtype), 0)


class Kernel:
    """One kernel of the harness on one array: its windows, state and call."""

    def __init__(self, lib, name, x, cells):
        self.f = getattr(lib, "xs_gb_" + name)
        self.x, self.cells_count = x, cells
        rows, cols = x.shape
        width = constant(lib, "xs_gb_cell_width")
        top = np.frexp(np.abs(x).max(axis=0).astype(np.float64))[1] + constant(lib,
                                                                               "xs_gb_headroom")
        quanta = [top] + [top - width * c for c in range(1, cells + 1)]
        if name == "f32_classes":
            quanta[1:] = [top - c * CLASS_SPAN - FLOAT32_LOW for c in (1, 2)]
            # Class 1: |x| at or above 2^(T-24); the limit is that pattern less 1.
            self.limit = aligned((cols,), np.int32)
            self.limit[:] = (np.ldexp(np.float32(1), top - CLASS_SPAN).astype(np.float32)
                             .view(np.int32) - 1)
            lowest = top - 2 * CLASS_SPAN
        else:
            self.limit = None
            lowest = top - width * cells + (52 if x.dtype == np.float64 else 23)
        # Every non-zero |x| must fit its column's window, or the sums are not exact.
        smallest = np.where(x != 0, np.abs(x), np.inf).min(axis=0)
        if not np.all(smallest >= np.ldexp(1.0, lowest)):
            raise ValueError(f"{name}: the data do not fit the windows")
        self.sigma = aligned((cells + 1, cols), np.float64)
        for c, q in enumerate(quanta):
            self.sigma[c] = np.ldexp(1.5, q + 52)
        self.sums = aligned((cells + 1, cols), np.float64)
        self.run = aligned((cells, cols), np.float64)
        self.range = aligned((2 * cols,), np.int64)       # two 16-byte vectors a column pair
        args = [ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_ssize_t, ctypes.c_ssize_t,
                ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self.f.argtypes = args + ([ctypes.c_void_p] if name.startswith("f32") else [])
        self.f.restype = None

    def __call__(self):
        self.sums[...] = 0.0
        rows, cols = self.x.shape
        # float32 kernels take the classes' limits (none for the cuts).
        extra = [] if self.x.dtype == np.float64 else [
            None if self.limit is None else self.limit.ctypes.data]
        self.f(self.x.ctypes.data, rows, self.x.strides[0] // self.x.itemsize, cols,
               self.sums.ctypes.data, self.sigma.ctypes.data, self.run.ctypes.data,
               self.range.ctypes.data, *extra)
        return self.sums

    def check(self, columns):
        """Each column's cell sums add up to its exact sum."""
        sums = self()
        for j in columns:
            exact = sum(Fraction(float(v)) for v in self.x[:, j])
            got = sum(Fraction(float(v)) for v in sums[:, j])
            if exact != got:
                raise AssertionError(f"column {j}: the cells hold {float(got)!r}, "
                                     f"the exact sum is {float(exact)!r}")


def main(argv=None):
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--rounds", type=int, default=15)
    args = cli.parse_args(argv)
    if platform.machine().lower() not in ("x86_64", "amd64"):
        print(f"skipped: the harness is SSE2 code, and this machine is {platform.machine()}")
        return
    xs.set_num_threads(1)
    with tempfile.TemporaryDirectory() as workdir:
        lib = build(workdir)
        if lib is None:
            print("skipped: no C compiler (cc or gcc, or $CC)")
            return
        lib.xs_gb_addpd_ns.argtypes = [ctypes.c_long]
        lib.xs_gb_addpd_ns.restype = ctypes.c_double
        addpd = lib.xs_gb_addpd_ns(20_000_000)
        print(f"independent addpd (two doubles each): {addpd:.3f} ns\n")
        print("| case | kernel | adders' bound | ns per element | x np.sum |")
        print("|---|---|---|---|---|")
        rng = np.random.default_rng(2026)
        columns = (0, 1, 2, 3, SHAPE[1] // 2, SHAPE[1] - 1)
        for label, kind, dtype, name, cells, adds in CASES:
            x = placed(spread_data(kind, SHAPE, rng).astype(dtype), 16)
            kernels = [("cuts, row by row", Kernel(lib, name, x, cells), adds)]
            for what, variant, variant_adds in VARIANTS[name]:
                kernels.append((what, Kernel(lib, variant, x, cells), variant_adds))
            for _, k, _ in kernels:
                k.check(columns)
            methods = {what: k for what, k, _ in kernels}
            methods["exact_sum (generic)"] = lambda x=x: xs.exact_sum(x, axis=0)
            methods["np.sum"] = lambda x=x: np.sum(x, axis=0)
            seconds = measure(methods, args.rounds)
            base = seconds["np.sum"]
            bounds = {what: a for what, _, a in kernels}
            for what, s in seconds.items():
                # A term's lane of an addpd: half of one.
                bound = f"{bounds[what] * addpd / 2:.3f}" if what in bounds else ""
                print(f"| {label} | {what} | {bound} | {s / x.size * 1e9:.3f} | "
                      f"{s / base:.1f}x |")
        # The 1-D sums of the paper's data: the package's cells (xs_cells_kernel.h),
        # three cells as the columns, so the same seven operations a term.
        x = placed(spread_data("paper's data", (SHAPE[0] * SHAPE[1],), rng), 16)
        seconds = measure({"exact_sum (generic)": lambda: xs.exact_sum(x),
                           "np.sum": lambda: np.sum(x)}, args.rounds)
        for what, s in seconds.items():
            bound = f"{7 * addpd / 2:.3f}" if what != "np.sum" else ""
            print(f"| 1-D sum n=1e6, paper's data | {what} | {bound} | "
                  f"{s / x.size * 1e9:.3f} | {s / seconds['np.sum']:.1f}x |")


if __name__ == "__main__":
    main()
