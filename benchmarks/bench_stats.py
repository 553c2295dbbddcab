"""Speed of the exact statistics: var/std against NumPy, moving sums against
bottleneck (when installed) and a NumPy cumsum-difference moving sum.

    python benchmarks/bench_stats.py            # n = 1e6, one thread
    python benchmarks/bench_stats.py --n 1e5 --rounds 5

Same-process, interleaved medians (one call of each method per round, see
bench.measure); ratios to NumPy's (or bottleneck's) inexact answer.  Data:
standard normal, lognormal sigma=3 with random signs, and exponents spread
over the whole float64 range.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import measure  # noqa: E402

import xsumufunc as xs  # noqa: E402

try:
    import bottleneck
except ImportError:
    bottleneck = None


def datasets(n, rng):
    signs = rng.choice([-1.0, 1.0], n)
    return {
        "normal": rng.standard_normal(n),
        "lognormal(0, 3)": signs * rng.lognormal(0.0, 3.0, n),
        "exponents over the whole range": signs * np.ldexp(rng.uniform(1, 2, n),
                                                           rng.integers(-1000, 1000, n)),
    }


def cumsum_moving_sum(x, window):
    """The usual inexact moving sum: a difference of prefix sums (drifts)."""
    c = np.cumsum(x)
    out = np.empty_like(x)
    out[:window - 1] = np.nan
    out[window - 1] = c[window - 1]
    out[window:] = c[window:] - c[:-window]
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e6)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--window", type=int, default=100)
    args = parser.parse_args(argv)
    n = int(args.n)
    xs.set_num_threads(1)
    rng = np.random.default_rng(0)
    print(f"n = {n:,}, one thread, median of {args.rounds} interleaved rounds; "
          "ratio = exact / inexact\n")
    print("| data | exact_var / np.var | exact_std / np.std | exact_moving_sum / "
          f"{'bottleneck.move_sum' if bottleneck else 'cumsum difference'} (window "
          f"{args.window}) | ns per element (moving) |")
    print("|---|---|---|---|---|")
    with np.errstate(all="ignore"):
        for name, x in datasets(n, rng).items():
            w = args.window
            reference = ((lambda x=x: bottleneck.move_sum(x, w)) if bottleneck
                         else (lambda x=x: cumsum_moving_sum(x, w)))
            t = measure({"var": lambda x=x: xs.exact_var(x), "np.var": lambda x=x: np.var(x),
                         "std": lambda x=x: xs.exact_std(x), "np.std": lambda x=x: np.std(x),
                         "move": lambda x=x: xs.exact_moving_sum(x, w), "ref": reference},
                        args.rounds)
            print(f"| {name} | {t['var'] / t['np.var']:.2f} | {t['std'] / t['np.std']:.2f} | "
                  f"{t['move'] / t['ref']:.1f} | {t['move'] / n * 1e9:.1f} |")


if __name__ == "__main__":
    main()
