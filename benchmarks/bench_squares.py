"""Speed of exact sums of squares, exact_dot(x, x), against np.dot(x, x):
the two-double path of src/kernels/dot/xs_dot_squares.c against the exact path it skips.

    python benchmarks/bench_squares.py              # one thread, one run
    python benchmarks/bench_squares.py --runs 3     # the median of three runs

Same-process, interleaved medians (bench.measure), one thread on both sides
(xsumufunc and BLAS), n = 1e6 float64.  "before" is exact_dot(x, x.copy()):
two different arrays, so the exact path of every dot (the cells) as before
the squares path; "after" is exact_dot(x, x).  Ratios are to np.dot(x, x).
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pages import add_write_option, emit  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--runs", type=int, default=1, help="runs; the median is shown")
    parser.add_argument("--n", type=int, default=10**6)
    add_write_option(parser)
    args = parser.parse_args(argv)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"                   # before NumPy loads its BLAS
    import numpy as np
    from bench import measure, spread_data

    import xsumufunc as xs

    xs.set_num_threads(1)
    kinds = ("normal", "lognormal(0, 3)", "exponents over [-500, 500]")

    def one_run(seed):
        rng = np.random.default_rng(seed)
        out = {}
        for kind in kinds:
            x = spread_data(kind, args.n, rng)
            y = x.copy()
            assert xs.exact_dot(x, x) == xs.exact_dot(x, y)
            with np.errstate(all="ignore"):
                t = measure({"before": lambda: xs.exact_dot(x, y),
                             "after": lambda: xs.exact_dot(x, x),
                             "np.dot": lambda: np.dot(x, x)}, args.rounds)
            out[kind] = (t["before"] / args.n * 1e9, t["before"] / t["np.dot"],
                         t["after"] / args.n * 1e9, t["after"] / t["np.dot"],
                         t["np.dot"] / args.n * 1e9)
        return out

    lines = [f"one thread, n = {args.n:.0e}, median of {args.runs} run(s) of "
             f"{args.rounds} interleaved rounds\n",
             "| data | before ns/term | before / np.dot | after ns/term | after / np.dot "
             "| np.dot ns/term |", "|---|---|---|---|---|---|"]
    runs = [one_run(seed) for seed in range(args.runs)]
    for kind in kinds:
        c = [statistics.median(r[kind][k] for r in runs) for k in range(5)]
        lines.append(f"| {kind} | {c[0]:.3f} | {c[1]:.1f}x | {c[2]:.3f} | {c[3]:.1f}x "
                     f"| {c[4]:.3f} |")
    emit(lines, args.write, f"bench_squares --n {args.n}" if args.n != 10**6 else "bench_squares")


if __name__ == "__main__":
    main()
