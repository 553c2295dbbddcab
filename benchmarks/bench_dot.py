"""Speed of exact float64 dot products (exact_dot) against np.dot, on several
kinds of data.

    python benchmarks/bench_dot.py                # one thread on both sides
    python benchmarks/bench_dot.py --threads 0    # the default threads on both sides
    python benchmarks/bench_dot.py --runs 3       # the median of three runs (README)

Same-process, interleaved medians (one call of each method per round, see
bench.measure); ratio = exact_dot / np.dot (BLAS, not exact).  Data:
standard normal, lognormal sigma=3 with random signs, and exponents spread
over [-500, 500] (the products span the whole float64 range); a . b with
independent a and b, and x . x (the exact sum of squares behind a variance or
a norm).  n = 1e6 and 1e7.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_cli import median_cells, parser, pin_blas_threads, threads_label  # noqa: E402
from pages import emit  # noqa: E402


def main(argv=None):
    args = parser(__doc__, rounds=7, runs=True, threads=True).parse_args(argv)
    pin_blas_threads(args.threads)
    block = "bench_dot" + ("" if args.threads == 1 else f" --threads {args.threads}")
    import numpy as np
    from bench import measure, spread_data

    import xsumufunc as xs

    if args.threads:
        xs.set_num_threads(args.threads)

    def one_run():
        rng = np.random.default_rng(0)
        out = {}
        for kind in ("normal", "lognormal(0, 3)", "exponents over [-500, 500]"):
            for n in (10**6, 10**7):
                a, b = spread_data(kind, n, rng), spread_data(kind, n, rng)
                with np.errstate(all="ignore"):
                    t = measure({"exact": lambda: xs.exact_dot(a, b),
                                 "np.dot": lambda: np.dot(a, b),
                                 "exact_xx": lambda: xs.exact_dot(a, a),
                                 "np.dot_xx": lambda: np.dot(a, a)}, args.rounds)
                out[(kind, n)] = (t["exact"] / t["np.dot"], t["exact"] / n * 1e9,
                                  t["exact_xx"] / t["np.dot_xx"], t["exact_xx"] / n * 1e9)
        return out

    lines = [f"{threads_label(args.threads)}, median of {args.runs} run(s) of {args.rounds} "
             "interleaved rounds\n",
             "| data | n | exact_dot(a, b) / np.dot | ns per product | "
             "exact_dot(x, x) / np.dot(x, x) | ns per product |",
             "|---|---|---|---|---|---|"]
    for key, cells in median_cells([one_run() for _ in range(args.runs)]).items():
        lines.append(f"| {key[0]} | {key[1]:.0e} | {cells[0]:.1f}x | {cells[1]:.2f} | "
                     f"{cells[2]:.1f}x | {cells[3]:.2f} |")
    emit(lines, args.write, block)


if __name__ == "__main__":
    main()
