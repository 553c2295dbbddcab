"""Per-call cost of the public functions on small inputs (n = 1, 10, 100
float64 values), against their NumPy twins: the fixed cost that code paying
one call per row, group or loop iteration sees.

    python benchmarks/bench_small_calls.py             # a Markdown table
    python benchmarks/bench_small_calls.py --rounds 9

Same-process, interleaved medians (one batch of calls of each method per
round, see bench.measure); ratio = ours / NumPy's twin, one thread.  The
goal (issue 30): within 2x the twin on 10 values, exact_dot within 3 us.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import measure  # noqa: E402
from bench_cli import parser  # noqa: E402

import xsumufunc as xs  # noqa: E402
from xsumufunc import array_api as xp  # noqa: E402

SIZES = (1, 10, 100)


def cases(n, rng):
    """(name, ours, NumPy's twin) for n float64 values (2 groups)."""
    x = rng.standard_normal(n)
    y = rng.standard_normal(n)
    codes = np.arange(n) % 2
    return [
        ("exact_sum", lambda: xs.exact_sum(x), lambda: np.sum(x)),
        ("exact_nansum", lambda: xs.exact_nansum(x), lambda: np.nansum(x)),
        ("exact_mean", lambda: xs.exact_mean(x), lambda: np.mean(x)),
        ("exact_var", lambda: xs.exact_var(x), lambda: np.var(x)),
        ("exact_std", lambda: xs.exact_std(x), lambda: np.std(x)),
        ("exact_dot", lambda: xs.exact_dot(x, y), lambda: np.dot(x, y)),
        ("exact_add.accumulate", lambda: xs.exact_add.accumulate(x), lambda: np.cumsum(x)),
        ("vector_norm", lambda: xp.linalg.vector_norm(x), lambda: np.linalg.norm(x)),
        ("exact_grouped_sum (2 groups)", lambda: xs.exact_grouped_sum(x, codes, 2),
         lambda: np.bincount(codes, x, 2)),
        ("exact_moving_sum (window 3)", lambda: xs.exact_moving_sum(x, min(3, n)),
         lambda: np.convolve(x, np.ones(min(3, n)), "valid")),
    ]


def main(argv=None):
    args = parser(__doc__, rounds=7).parse_args(argv)
    xs.set_num_threads(1)
    rng = np.random.default_rng(0)
    rows = {}
    for n in SIZES:
        for name, ours, twin in cases(n, rng):
            with np.errstate(all="ignore"):
                t = measure({"ours": ours, "numpy": twin}, args.rounds)
            rows.setdefault(name, []).append((t["ours"] * 1e6, t["numpy"] * 1e6))
    head = " | ".join(f"n={n}: ours us (NumPy us, ratio)" for n in SIZES)
    print(f"| call | {head} |")
    print("|---" * (len(SIZES) + 1) + "|")
    for name, cells in rows.items():
        text = " | ".join(f"{o:.2f} ({t:.2f}, {o / t:.1f}x)" for o, t in cells)
        print(f"| `{name}` | {text} |")


if __name__ == "__main__":
    main()
