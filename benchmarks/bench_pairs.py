"""Speed of the exact statistics of pairs and of exact_matmul against their
NumPy twins.

    python benchmarks/bench_pairs.py                # one thread on both sides
    python benchmarks/bench_pairs.py --runs 3       # the median of three runs
    python benchmarks/bench_pairs.py --quick        # without the (1000, 1000) products

Same-process, interleaved medians (one call of each method per round, see
bench.measure); ratio = exact / NumPy (not exact; BLAS for the products).
Rows:

- exact_average(x, weights=w) / np.average, x and w of 1e6 float64;
- exact_cov / np.cov and exact_corrcoef / np.corrcoef of (1e6, 10),
  rowvar=False;
- exact_matmul / np.matmul of (1000, 1000) @ (1000, 1000), standard normal
  and lognormal(0, 3) entries, and of X.T @ X for X (1e5, 10).
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pages import add_write_option, emit  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=1, help="runs; the median is shown")
    parser.add_argument("--threads", type=int, default=1, help="0: the default count")
    parser.add_argument("--quick", action="store_true", help="skip the (1000, 1000) products")
    add_write_option(parser)
    args = parser.parse_args(argv)
    block = "bench_pairs" + ("" if args.threads == 1 else f" --threads {args.threads}")
    if args.threads:
        # Before NumPy loads its BLAS.
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)
    import numpy as np
    from bench import measure

    import xsumufunc as xs

    if args.threads:
        xs.set_num_threads(args.threads)

    def cases(rng):
        x, w = rng.standard_normal(10**6), rng.random(10**6)
        yield ("exact_average(x, weights=w), 1e6", lambda: xs.exact_average(x, weights=w),
               lambda: np.average(x, weights=w), args.rounds)
        y = rng.standard_normal((10**6, 10))
        yield ("exact_cov (1e6, 10), rowvar=False", lambda: xs.exact_cov(y, rowvar=False),
               lambda: np.cov(y, rowvar=False), args.rounds)
        yield ("exact_corrcoef (1e6, 10), rowvar=False",
               lambda: xs.exact_corrcoef(y, rowvar=False),
               lambda: np.corrcoef(y, rowvar=False), args.rounds)
        g = rng.standard_normal((10**5, 10))
        yield ("exact_matmul X.T @ X, X (1e5, 10)", lambda: xs.exact_matmul(g.T, g),
               lambda: g.T @ g, 3 * args.rounds)
        if not args.quick:
            for kind in ("normal", "lognormal(0, 3)"):
                if kind == "normal":
                    a, b = rng.standard_normal((2, 1000, 1000))
                else:
                    a, b = rng.lognormal(0, 3, (2, 1000, 1000))
                yield (f"exact_matmul (1000, 1000) @ (1000, 1000), {kind}",
                       lambda: xs.exact_matmul(a, b), lambda: np.matmul(a, b),
                       max(3, args.rounds // 2))

    def one_run():
        rng = np.random.default_rng(0)
        out = {}
        for name, ours, theirs, rounds in cases(rng):
            t = measure({"exact": ours, "numpy": theirs}, rounds)
            out[name] = (t["exact"] / t["numpy"], t["exact"] * 1e3, t["numpy"] * 1e3)
        return out

    threads = "one thread" if args.threads == 1 else (
        "the default threads" if args.threads == 0 else f"{args.threads} threads")
    lines = [f"{threads}, median of {args.runs} run(s) of interleaved rounds\n",
             "| call | exact / NumPy | exact ms | NumPy ms |", "|---|---|---|---|"]
    runs = [one_run() for _ in range(args.runs)]
    for key in runs[0]:
        ratio, ours, theirs = (statistics.median(r[key][k] for r in runs) for k in range(3))
        lines.append(f"| {key} | {ratio:.2f}x | {ours:.2f} | {theirs:.2f} |")
    emit(lines, args.write, block)


if __name__ == "__main__":
    main()
