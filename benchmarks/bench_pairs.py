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

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_cli import median_cells, parser, pin_blas_threads, threads_label  # noqa: E402
from pages import emit  # noqa: E402


def main(argv=None):
    cli = parser(__doc__, rounds=5, runs=True, threads=True)
    cli.add_argument("--quick", action="store_true", help="skip the (1000, 1000) products")
    args = cli.parse_args(argv)
    pin_blas_threads(args.threads)
    block = "bench_pairs" + ("" if args.threads == 1 else f" --threads {args.threads}")
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

    lines = [f"{threads_label(args.threads)}, median of {args.runs} run(s) of interleaved "
             "rounds\n", "| call | exact / NumPy | exact ms | NumPy ms |", "|---|---|---|---|"]
    for key, (ratio, ours, theirs) in median_cells([one_run() for _ in range(args.runs)]).items():
        lines.append(f"| {key} | {ratio:.2f}x | {ours:.2f} | {theirs:.2f} |")
    emit(lines, args.write, block)


if __name__ == "__main__":
    main()
