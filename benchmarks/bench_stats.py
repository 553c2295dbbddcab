"""Speed of the exact statistics: var/std against NumPy, moving sums against
bottleneck (when installed) or a NumPy cumsum-difference moving sum, and
correctly rounded prefix sums (exact_add.accumulate) against np.cumsum;
moving variances against bottleneck's move_var and, when pandas is
installed, pandas' ``Series.rolling(window).var()`` (both ddof=1 there).

    python benchmarks/bench_stats.py            # n = 1e6, one thread
    python benchmarks/bench_stats.py --runs 3   # the median of three runs (README)
    python benchmarks/bench_stats.py --n 1e5 --rounds 5
    python benchmarks/bench_stats.py --n 1e7 --dtype float32 --nan 0.01 --window 1000

Same-process, interleaved medians (one call of each method per round, see
bench.measure); ratios to NumPy's (or bottleneck's, or pandas') inexact
answer.  Data: standard normal, lognormal sigma=3 with random signs, and
exponents spread over the whole range of the dtype (float64 by default;
--dtype float32 stays within float32's), with a fraction --nan of the
values NaN (default 0).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import measure  # noqa: E402
from bench_cli import median_cells, parser  # noqa: E402
from pages import emit  # noqa: E402

import xsumufunc as xs  # noqa: E402

try:
    import bottleneck
except ImportError:
    bottleneck = None
try:
    import pandas
except ImportError:
    pandas = None

#: The exponents of the last data set, within each dtype's range.
_EXPONENTS = {"float64": 1000, "float32": 120}


def datasets(n, rng, dtype="float64", nan=0.0):
    """The data sets in `dtype`, a fraction `nan` of each NaN."""
    signs = rng.choice([-1.0, 1.0], n)
    top = _EXPONENTS[dtype]
    sets = {
        "normal": rng.standard_normal(n),
        "lognormal(0, 3)": signs * rng.lognormal(0.0, 3.0, n),
        "exponents over the whole range": signs * np.ldexp(rng.uniform(1, 2, n),
                                                           rng.integers(-top, top, n)),
    }
    for name, x in sets.items():
        x = x.astype(dtype)
        x[rng.random(n) < nan] = np.nan
        sets[name] = x
    return sets


def cumsum_moving_sum(x, window):
    """The usual inexact moving sum: a difference of prefix sums (drifts)."""
    c = np.cumsum(x)
    out = np.empty_like(x)
    out[:window - 1] = np.nan
    out[window - 1] = c[window - 1]
    out[window:] = c[window:] - c[:-window]
    return out


def cumsum_moving_var(x, window):
    """The usual inexact moving variance from prefix sums of x and x*x
    (cancels, can go negative)."""
    s = cumsum_moving_sum(x, window)
    q = cumsum_moving_sum(x * x, window)
    return q / window - (s / window) ** 2


def main(argv=None):
    cli = parser(__doc__, rounds=7, runs=True, n=1e6)
    cli.add_argument("--window", type=int, default=100)
    cli.add_argument("--dtype", choices=sorted(_EXPONENTS), default="float64")
    cli.add_argument("--nan", type=float, default=0.0, help="the fraction of values NaN")
    args = cli.parse_args(argv)
    n = int(args.n)
    xs.set_num_threads(1)
    data = "" if args.dtype == "float64" and not args.nan else (
        f"{args.dtype}, {args.nan:.0%} NaN, ")
    lines = [f"n = {n:,}, {data}one thread, median of {args.runs} run(s) of {args.rounds} "
             "interleaved rounds; ratio = exact / inexact\n"]
    lines.append("| data | exact_var / np.var | exact_std / np.std | exact_moving_sum / "
          f"{'bottleneck.move_sum' if bottleneck else 'cumsum difference'} (window "
          f"{args.window}) | ns per element (moving) | exact_moving_mean / "
          f"{'bottleneck.move_mean' if bottleneck else 'cumsum difference / window'} "
          "| exact_add.accumulate / np.cumsum | ns per element (accumulate) "
          f"| exact_moving_var / {'bottleneck.move_var' if bottleneck else 'cumsum moving var'} "
          "| ns per element (moving var) |"
          + (" exact_moving_var(ddof=1) / pandas rolling().var() |" if pandas else ""))
    lines.append("|---" * (11 if pandas else 10) + "|")
    runs = [one_run(n, args.window, args.rounds, args.dtype, args.nan) for _ in range(args.runs)]
    for name, cell in median_cells(runs).items():
        lines.append(f"| {name} | {cell['var']:.2f} | {cell['std']:.2f} | {cell['move']:.1f} | "
                     f"{cell['move ns']:.1f} | {cell['mean']:.1f} | {cell['acc']:.1f} | "
                     f"{cell['acc ns']:.1f} | {cell['mvar']:.1f} | {cell['mvar ns']:.1f} |"
                     + (f" {cell['pandas']:.1f} |" if pandas else ""))
    emit(lines, args.write, "bench_stats")


def one_run(n, w, rounds, dtype="float64", nan=0.0):
    """{data: {column: ratio or ns per element}} for one run."""
    rng = np.random.default_rng(0)
    out = {}
    with np.errstate(all="ignore"):
        for name, x in datasets(n, rng, dtype, nan).items():
            reference = ((lambda x=x: bottleneck.move_sum(x, w)) if bottleneck
                         else (lambda x=x: cumsum_moving_sum(x, w)))
            mean_reference = ((lambda x=x: bottleneck.move_mean(x, w)) if bottleneck
                              else (lambda x=x: cumsum_moving_sum(x, w) / w))
            t = measure({"var": lambda x=x: xs.exact_var(x), "np.var": lambda x=x: np.var(x),
                         "std": lambda x=x: xs.exact_std(x), "np.std": lambda x=x: np.std(x),
                         "move": lambda x=x: xs.exact_moving_sum(x, w), "ref": reference,
                         "mean": lambda x=x: xs.exact_moving_mean(x, w),
                         "mean ref": mean_reference,
                         "acc": lambda x=x: xs.exact_add.accumulate(x),
                         "cumsum": lambda x=x: np.cumsum(x)},
                        rounds)
            # Moving variance: data over the whole exponent range leaves the
            # loop's range (|x| in [2^-480, 2^470]) and every window is
            # computed exactly from its terms: measured on 10^4 values.
            y = x[:10**4] if name.startswith("exponents") else x
            var_reference = ((lambda y=y: bottleneck.move_var(y, w)) if bottleneck
                             else (lambda y=y: cumsum_moving_var(y, w)))
            methods = {"mvar": lambda y=y: xs.exact_moving_var(y, w), "ref": var_reference}
            if pandas:
                # pandas' default ddof is 1: ours with the same.
                series = pandas.Series(y)
                methods["mvar1"] = lambda y=y: xs.exact_moving_var(y, w, ddof=1)
                methods["pandas"] = lambda s=series: s.rolling(w).var()
            tv = measure(methods, max(1, rounds // 2))
            out[name] = {"mvar": tv["mvar"] / tv["ref"], "mvar ns": tv["mvar"] / y.size * 1e9,
                         "var": t["var"] / t["np.var"], "std": t["std"] / t["np.std"],
                         "move": t["move"] / t["ref"], "move ns": t["move"] / n * 1e9,
                         "mean": t["mean"] / t["mean ref"],
                         "acc": t["acc"] / t["cumsum"], "acc ns": t["acc"] / n * 1e9}
            if pandas:
                out[name]["pandas"] = tv["mvar1"] / tv["pandas"]
    return out


if __name__ == "__main__":
    main()
