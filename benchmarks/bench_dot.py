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

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pages import add_write_option, emit  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--runs", type=int, default=1, help="runs; the median is shown")
    parser.add_argument("--threads", type=int, default=1, help="0: the default count")
    add_write_option(parser)
    args = parser.parse_args(argv)
    block = "bench_dot" + ("" if args.threads == 1 else f" --threads {args.threads}")
    if args.threads:
        # Before NumPy loads its BLAS.
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)
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

    threads = "one thread" if args.threads == 1 else (
        "the default threads" if args.threads == 0 else f"{args.threads} threads")
    lines = [f"{threads}, median of {args.runs} run(s) of {args.rounds} interleaved rounds\n",
             "| data | n | exact_dot(a, b) / np.dot | ns per product | "
             "exact_dot(x, x) / np.dot(x, x) | ns per product |",
             "|---|---|---|---|---|---|"]
    runs = [one_run() for _ in range(args.runs)]
    for key in runs[0]:
        cells = [statistics.median(r[key][k] for r in runs) for k in range(4)]
        lines.append(f"| {key[0]} | {key[1]:.0e} | {cells[0]:.1f}x | {cells[1]:.2f} | "
                     f"{cells[2]:.1f}x | {cells[3]:.2f} |")
    emit(lines, args.write, block)


if __name__ == "__main__":
    main()
