"""Speed of exact_sum on the data that needs exactness: several kinds of
data and shapes, against np.sum and the paper's C (PyPI xsum, when
installed).

    python benchmarks/bench_spread.py                 # one thread
    python benchmarks/bench_spread.py --runs 3        # the median of three runs (README)
    python benchmarks/bench_spread.py --threads 0     # the default thread count

Same-process, interleaved medians (bench.measure); ratios to np.sum (of
the same array, same dtype) and to PyPI xsum's large accumulator (float64
1-D only; the binding is about 1.5x slower than the same C built with
-march=native).  Data: standard normal; lognormal sigma=3 with random signs;
the paper's data (exp(30u)*u with random signs); exponents uniform over the
whole float64 range.  Shapes: 1-D n = 1e4, 1e6 and 1e7; rows (1000, 1000) and
(1e5, 10) along axis=1; columns (1000, 1000) along axis=0.
"""

import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import measure, pypi_xsum, spread_data  # noqa: E402
from bench_cli import parser  # noqa: E402
from pages import emit  # noqa: E402

import xsumufunc as xs  # noqa: E402

SHAPES = [((10**4,), None, "1-D n=1e4"), ((10**6,), None, "1-D n=1e6"),
          ((10**7,), None, "1-D n=1e7"),
          ((1000, 1000), 1, "(1000, 1000) axis=1"), ((10**5, 10), 1, "(1e5, 10) axis=1"),
          ((1000, 1000), 0, "(1000, 1000) axis=0")]
KINDS = ["normal", "lognormal(0, 3)", "paper's data", "whole range"]


def _xsum(x):
    acc = pypi_xsum.xsum_large()
    acc.add(x)
    return acc.round()


def one_run(rounds, dtypes):
    """{(kind, dtype, shape): (ratio to np.sum, ns per element, ratio to xsum or None)}."""
    rng = np.random.default_rng(0)
    out = {}
    with np.errstate(all="ignore"):
        for kind in KINDS:
            for dtype in dtypes:
                if dtype != np.float64 and kind == "whole range":
                    continue                     # not values of the narrow dtypes
                for shape, axis, label in SHAPES:
                    x = spread_data(kind, shape, rng).astype(dtype)
                    methods = {"exact": lambda: xs.exact_sum(x, axis=axis),
                               "numpy": lambda: np.sum(x, axis=axis)}
                    if pypi_xsum is not None and x.ndim == 1 and dtype == np.float64:
                        methods["xsum"] = lambda: _xsum(x)
                    t = measure(methods, rounds)
                    out[(kind, np.dtype(dtype).name, label)] = (
                        t["exact"] / t["numpy"], t["exact"] / x.size * 1e9,
                        t["exact"] / t["xsum"] if "xsum" in t else None)
    return out


def main(argv=None):
    cli = parser(__doc__, rounds=7, runs=True, threads=True)
    cli.add_argument("--float32", action="store_true", help="also float32 data")
    args = cli.parse_args(argv)
    block = "bench_spread" + ("" if args.threads == 1 else f" --threads {args.threads}") + (
        " --float32" if args.float32 else "")
    if args.threads:
        xs.set_num_threads(args.threads)
    dtypes = [np.float64, np.float32] if args.float32 else [np.float64]
    lines = [f"{xs.get_num_threads()} thread(s), median of {args.runs} run(s) of "
             f"{args.rounds} interleaved rounds\n",
             "| data | dtype | shape | exact_sum / np.sum | ns per element | "
             "exact_sum / PyPI xsum |", "|---|---|---|---|---|---|"]
    runs = [one_run(args.rounds, dtypes) for _ in range(args.runs)]
    for key in runs[0]:
        ratio = statistics.median(r[key][0] for r in runs)
        ns = statistics.median(r[key][1] for r in runs)
        peer = [r[key][2] for r in runs if r[key][2] is not None]
        peer_text = f"{statistics.median(peer):.2f}x" if peer else ""
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {ratio:.1f}x | {ns:.2f} "
                     f"| {peer_text} |")
    emit(lines, args.write, block)


if __name__ == "__main__":
    main()
