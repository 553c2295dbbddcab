"""Speed of xsumufunc.polars.exact_group_by against polars' own (inexact)
group_by().agg(sum): 1e6 float64 rows in 1e4 groups by default.

    python benchmarks/bench_polars_groupby.py
    python benchmarks/bench_polars_groupby.py --n 1e5 --groups 1e3 --rounds 5

Same-process, interleaved medians (bench.measure); ratios to polars'
group_by sum.  Keys: an integer column (numbered in NumPy) and the same
keys as strings (numbered by polars' group_by).
"""

import os
import sys

import numpy as np
import polars as pl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import measure  # noqa: E402
from bench_cli import parser  # noqa: E402

from xsumufunc.polars import exact_group_by  # noqa: E402


def main(argv=None):
    cli = parser(__doc__, rounds=7, n=1e6)
    cli.add_argument("--groups", type=float, default=1e4)
    args = cli.parse_args(argv)
    n, groups = int(args.n), int(args.groups)
    rng = np.random.default_rng(0)
    ints = rng.integers(0, groups, n)
    df = pl.DataFrame({"k": ints, "s": ints.astype(str), "x": rng.standard_normal(n)})
    methods = {
        "polars sum": lambda: df.group_by("k").agg(pl.col("x").sum()),
        "exact sum": lambda: exact_group_by(df, "k", "x", statistics=["sum"]),
        "polars sum, mean, var": lambda: df.group_by("k").agg(
            pl.col("x").sum().alias("s"), pl.col("x").mean().alias("m"),
            pl.col("x").var().alias("v")),
        "exact sum, mean, var": lambda: exact_group_by(df, "k", "x"),
        "polars sum (string keys)": lambda: df.group_by("s").agg(pl.col("x").sum()),
        "exact sum (string keys)": lambda: exact_group_by(df, "s", "x", statistics=["sum"]),
    }
    times = measure(methods, args.rounds)
    base = times["polars sum"]
    print(f"{n:.0e} rows, {groups:.0e} groups; median ms per call, ratio to polars' "
          "group_by sum")
    for name, t in times.items():
        print(f"  {name:28s} {t * 1e3:8.1f} ms  {t / base:5.2f}x")


if __name__ == "__main__":
    main()
