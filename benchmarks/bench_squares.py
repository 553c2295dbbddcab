"""Speed of exact sums of squares, exact_dot(x, x), against np.dot(x, x):
the two-double path of src/kernels/dot/xs_dot_squares.c against the exact path it skips.

    python benchmarks/bench_squares.py              # one thread, one run
    python benchmarks/bench_squares.py --runs 3     # the median of three runs

Same-process, interleaved medians (bench.measure), one thread on both sides
(xsumufunc and BLAS), n = 1e6 float64.  "before" is exact_dot(x, x.copy()):
two different arrays, so the exact path of every dot (the cells) as before
the squares path; "after" is exact_dot(x, x).  Ratios are to np.dot(x, x).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_cli import median_cells, parser, pin_blas_threads  # noqa: E402
from pages import emit  # noqa: E402


def main(argv=None):
    args = parser(__doc__, rounds=9, runs=True, n=1e6).parse_args(argv)
    n = int(args.n)
    pin_blas_threads(1)
    import numpy as np
    from bench import measure, spread_data

    import xsumufunc as xs

    xs.set_num_threads(1)
    kinds = ("normal", "lognormal(0, 3)", "exponents over [-500, 500]")

    def one_run(seed):
        rng = np.random.default_rng(seed)
        out = {}
        for kind in kinds:
            x = spread_data(kind, n, rng)
            y = x.copy()
            assert xs.exact_dot(x, x) == xs.exact_dot(x, y)
            with np.errstate(all="ignore"):
                t = measure({"before": lambda: xs.exact_dot(x, y),
                             "after": lambda: xs.exact_dot(x, x),
                             "np.dot": lambda: np.dot(x, x)}, args.rounds)
            out[kind] = (t["before"] / n * 1e9, t["before"] / t["np.dot"],
                         t["after"] / n * 1e9, t["after"] / t["np.dot"],
                         t["np.dot"] / n * 1e9)
        return out

    lines = [f"one thread, n = {n:.0e}, median of {args.runs} run(s) of "
             f"{args.rounds} interleaved rounds\n",
             "| data | before ns/term | before / np.dot | after ns/term | after / np.dot "
             "| np.dot ns/term |", "|---|---|---|---|---|---|"]
    for kind, c in median_cells([one_run(seed) for seed in range(args.runs)]).items():
        lines.append(f"| {kind} | {c[0]:.3f} | {c[1]:.1f}x | {c[2]:.3f} | {c[3]:.1f}x "
                     f"| {c[4]:.3f} |")
    emit(lines, args.write, f"bench_squares --n {n}" if n != 10**6 else "bench_squares")


if __name__ == "__main__":
    main()
