"""Speed of exact sums of float8/float6/float4 (ml_dtypes' byte-coded formats).

    python benchmarks/bench_codes.py              # n = 1e4 .. 1e7
    python benchmarks/bench_codes.py --runs 3     # the median of three runs (README)

Same-process, interleaved medians (bench.measure).  Ratios to np.sum of the
same values already as float32, and to np.sum(x.astype(np.float32)) (the
usual way to sum them, conversion included; both inexact), with one thread
and with the default threads.  exact_sum counts the codes
(a histogram of 256 counters) and adds count * value exactly per code.
Data: standard normal and lognormal(0, 2) with random signs, cast to the
format (so the codes spread over its range).
"""

import os
import statistics
import sys

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import measure  # noqa: E402
from bench_cli import parser  # noqa: E402
from pages import emit  # noqa: E402

import xsumufunc as xs  # noqa: E402

FORMATS = ("float8_e4m3fn", "float8_e5m2", "float8_e5m2fnuz", "float4_e2m1fn")


def datasets(n, dtype, rng):
    """Values within the format's range (clipped to its largest value, as a
    scaled training tensor would be: a NaN term would make every sum NaN)."""
    signs = rng.choice([-1.0, 1.0], n)
    top = float(ml_dtypes.finfo(dtype).max)
    lognormal = signs * rng.lognormal(0.0, 2.0, n)
    return {"normal": np.clip(rng.standard_normal(n), -top, top).astype(dtype),
            "lognormal(0, 2)": np.clip(lognormal, -top, top).astype(dtype)}


def one_run(sizes, rounds):
    """{(format, data, n, threads): (exact, np.sum of float32, with astype) seconds}."""
    rng = np.random.default_rng(0)
    out = {}
    for name in FORMATS:
        dtype = np.dtype(getattr(ml_dtypes, name))
        for n in sizes:
            for label, x in datasets(n, dtype, rng).items():
                f32 = x.astype(np.float32)
                for threads in (1, None):
                    xs.set_num_threads(threads)
                    t = measure({"exact": lambda: xs.exact_sum(x),
                                 "np.sum f32": lambda: np.sum(f32),
                                 "astype": lambda: np.sum(x.astype(np.float32))}, rounds)
                    out[name, label, n, threads] = (t["exact"], t["np.sum f32"], t["astype"])
    xs.set_num_threads(None)
    return out


def main(argv=None):
    cli = parser(__doc__, rounds=7, runs=True)
    cli.add_argument("--max-n", type=float, default=1e7)
    args = cli.parse_args(argv)
    sizes = [n for n in (10**4, 10**6, 10**7) if n <= args.max_n]
    runs = [one_run(sizes, args.rounds) for _ in range(args.runs)]
    lines = [f"exact_sum of byte-coded formats vs np.sum of the same values as float32; "
             f"median of {args.runs} run(s) of {args.rounds} interleaved rounds; "
             f"threads: 1 or default ({xs.get_num_threads()})\n",
             "| format | data | n | threads | exact ns/element | / np.sum(float32 values) "
             "| / np.sum(x.astype(float32)) |", "|---|---|---|---|---|---|---|"]
    for key in runs[0]:
        name, label, n, threads = key
        exact = statistics.median(r[key][0] for r in runs)
        ratio = statistics.median(r[key][0] / r[key][1] for r in runs)
        ratio_astype = statistics.median(r[key][0] / r[key][2] for r in runs)
        lines.append(f"| {name} | {label} | {n:.0e} | {threads or 'default'} | "
                     f"{exact / n * 1e9:.2f} | {ratio:.2f}x | {ratio_astype:.2f}x |")
    emit(lines, args.write, "bench_codes")


if __name__ == "__main__":
    main()
