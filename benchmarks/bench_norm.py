"""Speed of the exact 2-norm (xsumufunc.array_api.linalg.vector_norm)
against np.linalg.norm, and of the exact sum of squares behind it
(exact_dot(x, x)) against np.einsum, on several kinds of data and shapes.

    python benchmarks/bench_norm.py            # one thread
    python benchmarks/bench_norm.py --runs 3   # the median of three runs (README)

Same-process, interleaved medians (one call of each method per round, see
bench.measure); ratio = exact / np.linalg.norm (which is not correctly
rounded, and overflows or underflows on the way for wide-ranged data).
Data: standard normal, lognormal sigma=3 with random signs, and exponents
spread over [-500, 500] (the squares span the whole float64 range); float64
and float32.  Shapes: 1-D n = 1e6, rows (1e5, 10) axis=1, (1000, 1000)
axis=1 and axis=0.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import measure, spread_data  # noqa: E402
from bench_cli import median_cells, parser  # noqa: E402
from pages import emit  # noqa: E402

import xsumufunc as xs  # noqa: E402
from xsumufunc import array_api as xp  # noqa: E402

SHAPES = [((10**6,), None, "1-D n=1e6"), ((10**5, 10), 1, "(1e5, 10) axis=1"),
          ((1000, 1000), 1, "(1000, 1000) axis=1"), ((1000, 1000), 0, "(1000, 1000) axis=0")]


def one_run(rounds):
    """{(data, dtype, shape): (ratio, ns per element)} for one run."""
    rng = np.random.default_rng(0)
    out = {}
    with np.errstate(all="ignore"):
        for kind in ("normal", "lognormal(0, 3)", "exponents over [-500, 500]"):
            for dtype in (np.float64, np.float32):
                if dtype == np.float32 and kind.startswith("exponents"):
                    continue          # not float32 values
                for shape, axis, label in SHAPES:
                    x = spread_data(kind, shape, rng).astype(dtype)
                    ax = -1 if axis is None else axis
                    subscripts = ("i,i->" if x.ndim == 1
                                  else "ij,ij->i" if ax == 1 else "ij,ij->j")
                    t = measure({"exact": lambda: xp.linalg.vector_norm(x, axis=axis),
                                 "numpy": lambda: np.linalg.norm(x, axis=axis),
                                 "squares": lambda: xs.exact_dot(x, x, axis=ax),
                                 "einsum": lambda: np.einsum(subscripts, x, x)}, rounds)
                    out[(kind, np.dtype(dtype).name, label)] = (
                        t["exact"] / t["numpy"], t["exact"] / x.size * 1e9,
                        t["squares"] / t["einsum"], t["squares"] / x.size * 1e9)
    return out


def main(argv=None):
    args = parser(__doc__, rounds=5, runs=True).parse_args(argv)
    xs.set_num_threads(1)
    lines = [f"one thread, median of {args.runs} run(s) of {args.rounds} interleaved rounds\n",
             "| data | dtype | shape | vector_norm / np.linalg.norm | ns per element | "
             "exact_dot(x, x) / np.einsum | ns per element |", "|---|---|---|---|---|---|---|"]
    for key, cells in median_cells([one_run(args.rounds) for _ in range(args.runs)]).items():
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {cells[0]:.1f}x | {cells[1]:.1f} | "
                     f"{cells[2]:.1f}x | {cells[3]:.1f} |")
    emit(lines, args.write, "bench_norm")


if __name__ == "__main__":
    main()
