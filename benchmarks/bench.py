"""Speed of xsumufunc against NumPy and other exact (or careful) summations.

    python benchmarks/bench.py            # the full sweep, n = 10 ... 1e8 (a few minutes)
    python benchmarks/bench.py --quick    # n up to 1e6, fewer repeats
    python benchmarks/bench.py --max-n 1e7 --out /tmp/results

Every case runs all its methods in one process, interleaved (one call of each
method per round), and reports the median over rounds in ns per element and
its ratio to the NumPy method of the same case.  Peers: math.fsum (exact,
float64 lists), a Kahan loop in C (not exact; xsumufunc's own reference
loop), PyPI ``xsum`` when installed (the paper's C code behind a binding).
Writes RESULTS.md (tables and the goals of issue 4) and, when matplotlib is
installed, RESULTS.png (log-log ns/element against n).
"""

import argparse
import math
import os
import platform
import statistics
import sys
import time

import ml_dtypes
import numpy as np

import xsumufunc as xs
from xsumufunc._lowprec_ufuncs import kahan_sum_ufunc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pages import add_write_option, write_block  # noqa: E402

try:
    import xsum as pypi_xsum
except ImportError:
    pypi_xsum = None

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
MIN_SAMPLE_SECONDS = 2e-4     # tiny calls are repeated until a sample lasts this long


def _per_call_seconds(func, calls):
    start = time.perf_counter()
    for _ in range(calls):
        func()
    return (time.perf_counter() - start) / calls


def _calls_for(func):
    """Calls per sample so that one sample is long enough to time."""
    calls = 1
    while _per_call_seconds(func, calls) * calls < MIN_SAMPLE_SECONDS and calls < 1 << 20:
        calls *= 4
    return calls


def measure(methods, rounds):
    """Median seconds per call of each method, timed round-robin."""
    for f in methods.values():      # first calls pay one-time costs (lazy imports, ...)
        f()
        f()
    calls = {name: _calls_for(f) for name, f in methods.items()}
    samples = {name: [] for name in methods}
    for _ in range(rounds):
        for name, f in methods.items():
            samples[name].append(_per_call_seconds(f, calls[name]))
    return {name: statistics.median(s) for name, s in samples.items()}


def ns_per_element(func, n, rounds=7):
    """Median ns per element of func over rounds timed calls (after one
    untimed call): one method alone, where measure interleaves several."""
    func()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        func()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e9 / n


def _rounds(n, quick):
    base = 25 if n <= 10**5 else 9 if n <= 10**6 else 5 if n <= 10**7 else 3
    return max(3, base // 3) if quick else base


def _xsum_large(x):
    acc = pypi_xsum.xsum_large()
    acc.add(x)
    return acc.round()


def sum_methods(x, dtype):
    """The methods that sum x (already of dtype)."""
    methods = {"np.sum": lambda: np.sum(x), "exact_sum": lambda: xs.exact_sum(x)}
    if dtype == np.float64:
        methods["kahan (C)"] = lambda: kahan_sum_ufunc(x)
        if x.size <= 10**6:
            as_list = x.tolist()
            methods["math.fsum"] = lambda: math.fsum(as_list)
        if pypi_xsum is not None and x.size <= 10**7:
            methods["xsum (PyPI)"] = lambda: _xsum_large(x)
    elif dtype == BFLOAT16:
        wide = x.astype(np.float32)
        methods["np.sum float32 (same n)"] = lambda: np.sum(wide)
    elif dtype == np.float32:
        methods["np.sum(dtype=float64)"] = lambda: np.sum(x, dtype=np.float64)
    return methods


#: Exponent spans of the spread kinds of spread_data.
_SPANS = {"whole range": 1020, "exponents over [-500, 500]": 500}


def spread_data(kind, shape, rng):
    """float64 test data of one kind: "normal", "normal, 10% zeros" (sparse
    data: zeros at random places), "lognormal(0, 3)" (random signs), "paper's
    data" (exp(30u)*u, random signs), or exponents uniform over a span
    ("whole range": [-1020, 1020]; "exponents over [-500, 500]")."""
    signs = rng.choice([-1.0, 1.0], shape)
    if kind == "normal":
        return rng.standard_normal(shape)
    if kind == "normal, 10% zeros":
        return np.where(rng.random(shape) < 0.1, 0.0, rng.standard_normal(shape))
    if kind == "lognormal(0, 3)":
        return signs * rng.lognormal(0.0, 3.0, shape)
    if kind == "paper's data":
        u = rng.random(shape)
        return signs * np.exp(30 * u) * u
    span = _SPANS[kind]
    return signs * np.ldexp(rng.uniform(1, 2, shape), rng.integers(-span, span, shape))


#: Byte offsets within a 4 KB page at which ``placed`` puts a copy: the
#: 16 of a fresh large NumPy array (glibc maps it 16 bytes past a page) and
#: three more, each a different offset modulo 64 too.  NumPy's own sums over
#: columns run up to 1.6x faster or slower from one placement to another
#: (Zen 4: 0.12 against 0.19 ns per element), our column sweep less so; a
#: long-running process puts large arrays anywhere (glibc raises its mmap
#: threshold after large frees), so a ratio taken at one placement is a
#: lottery.
PLACEMENTS = (16, 1072, 2080, 3136)


def placed(x, offset):
    """A C-contiguous copy of x whose data start ``offset`` bytes past a
    4 KB page boundary."""
    buf = np.empty(x.nbytes + 8192, np.uint8)
    start = (offset - buf.ctypes.data) % 4096
    y = buf[start:start + x.nbytes].view(x.dtype).reshape(x.shape)
    y[...] = x
    return y


def data(n, dtype, rng):
    return rng.standard_normal(n).astype(dtype)


def run(max_n, quick):
    rng = np.random.default_rng(2015)
    sizes = [10**k for k in range(1, int(math.log10(max_n)) + 1)]
    rows = []        # (group, case, n, method, ns_per_element, ratio to baseline)

    def record(group, case, n, results, baseline):
        for method, seconds in results.items():
            rows.append((group, case, n, method, seconds / n * 1e9,
                         seconds / results[baseline]))
        best = "  ".join(f"{m} {s / n * 1e9:.3g}" for m, s in results.items())
        print(f"{group:<10} {case:<22} n={n:<10.0e} ns/elem: {best}", flush=True)

    for dtype in (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.float16), BFLOAT16):
        for n in sizes:
            if dtype != np.float64 and n > 10**7:
                continue
            x = data(n, dtype, rng)
            results = measure(sum_methods(x, dtype), _rounds(n, quick))
            record("sum", str(dtype), n, results, "np.sum")
            del x
    for n in sizes:
        x = data(n, np.float64, rng)
        results = measure({"np.mean": lambda: np.mean(x), "exact_mean": lambda: xs.exact_mean(x)},
                          _rounds(n, quick))
        record("mean", "float64", n, results, "np.mean")
        if n <= 10**7:
            y = data(n, np.float64, rng)
            methods = {"np.dot": lambda: np.dot(x, y), "np.vecdot": lambda: np.vecdot(x, y),
                       "exact_dot": lambda: xs.exact_dot(x, y)}
            record("dot", "float64", n, measure(methods, _rounds(n, quick)), "np.dot")
        del x
    shapes = [((2000, 2000), 0), ((10**6, 10), 1)] if not quick else [((500, 500), 0),
                                                                       ((10**5, 10), 1)]
    for shape, axis in shapes:
        x = rng.standard_normal(shape)
        methods = {"np.sum": lambda: np.sum(x, axis=axis),
                   "exact_sum": lambda: xs.exact_sum(x, axis=axis)}
        record("2-D", f"{shape} axis={axis}", x.size, measure(methods, _rounds(x.size, quick)),
               "np.sum")
    return rows


GOALS = [
    # (label, group, case, n, method, baseline method of the same case, goal ratio)
    ("float64 sum, n = 1e7", "sum", "float64", 10**7, "exact_sum", "np.sum", 1.0),
    ("float64 sum, n = 1e8", "sum", "float64", 10**8, "exact_sum", "np.sum", 1.0),
    ("float64 sum, n = 1e4", "sum", "float64", 10**4, "exact_sum", "np.sum", 2.0),
    ("float64 sum, n = 1e5", "sum", "float64", 10**5, "exact_sum", "np.sum", 2.0),
    ("float64 sum, n = 1e6", "sum", "float64", 10**6, "exact_sum", "np.sum", 2.0),
    ("float64 sum, n = 10", "sum", "float64", 10, "exact_sum", "np.sum", 1.2),
    ("float64 sum, n = 100", "sum", "float64", 100, "exact_sum", "np.sum", 1.2),
    ("float32 sum, n = 1e7", "sum", "float32", 10**7, "exact_sum", "np.sum", 1.5),
    ("bfloat16 sum vs np.sum float32, n = 1e7", "sum", "bfloat16", 10**7, "exact_sum",
     "np.sum float32 (same n)", 1.0),
    ("axis=0 of (2000, 2000)", "2-D", "(2000, 2000) axis=0", 4 * 10**6, "exact_sum", "np.sum",
     2.0),
    ("axis=1 of (1e6, 10)", "2-D", "(1000000, 10) axis=1", 10**7, "exact_sum", "np.sum", 2.0),
    ("float64 dot, n = 1e7", "dot", "float64", 10**7, "exact_dot", "np.dot", 2.0),
    ("float64 mean, n = 1e7", "mean", "float64", 10**7, "exact_mean", "np.mean", 1.0),
]


def goal_lines(rows):
    """The table of the goals (GOALS) as measured in rows."""
    by_key = {(g, c, n, m): ns for g, c, n, m, ns, _ in rows}
    lines = ["| case | goal | measured | met |", "|---|---|---|---|"]
    for label, g, c, n, m, base, goal in GOALS:
        if (g, c, n, m) in by_key and (g, c, n, base) in by_key:
            ratio = by_key[(g, c, n, m)] / by_key[(g, c, n, base)]
            lines.append(f"| {label} | <= {goal}x {base} | {ratio:.2f}x | "
                         f"{'yes' if ratio <= goal else 'no'} |")
        else:
            lines.append(f"| {label} | <= {goal}x {base} | not run | |")
    return lines


def report(rows, out):
    lines = ["# Benchmark results\n",
             f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
             f"NumPy {np.__version__}, xsumufunc {xs.__version__}"
             f"{', PyPI xsum installed' if pypi_xsum else ''}. "
             "Medians of interleaved rounds; ns per element (ratio to the NumPy method).\n"]
    for group in dict.fromkeys(g for g, *_ in rows):
        for case in dict.fromkeys(c for g, c, *_ in rows if g == group):
            sub = [r for r in rows if r[0] == group and r[1] == case]
            methods = list(dict.fromkeys(r[3] for r in sub))
            lines.append(f"\n## {group}: {case}\n")
            lines.append("| n | " + " | ".join(methods) + " |")
            lines.append("|---" * (len(methods) + 1) + "|")
            for n in dict.fromkeys(r[2] for r in sub):
                cells = []
                for m in methods:
                    hit = [r for r in sub if r[2] == n and r[3] == m]
                    cells.append(f"{hit[0][4]:.3g} ({hit[0][5]:.2f}x)" if hit else "")
                lines.append(f"| {n:.0e} | " + " | ".join(cells) + " |")
    lines.append("\n## Goals (issue 4)\n")
    lines += goal_lines(rows)
    text = "\n".join(lines) + "\n"
    with open(out + ".md", "w") as f:
        f.write(text)
    print(text)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot")
        return
    panels = [("sum", "float64"), ("sum", "float32"), ("sum", "bfloat16"), ("dot", "float64")]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.2))
    for ax, (g, c) in zip(axes, panels):
        sub = [r for r in rows if r[0] == g and r[1] == c]
        for m in dict.fromkeys(r[3] for r in sub):
            pts = sorted((r[2], r[4]) for r in sub if r[3] == m)
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], marker="o", label=m)
        ax.set_title(f"{g}, {c}")
        ax.set_xlabel("n")
        ax.set_ylabel("ns per element")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out + ".png", dpi=90)
    print(f"wrote {out}.md and {out}.png")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="n up to 1e6, fewer rounds")
    parser.add_argument("--max-n", type=float, default=1e8, help="largest n (default 1e8)")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "RESULTS"),
                        help="output path without extension")
    add_write_option(parser)
    args = parser.parse_args(argv)
    max_n = min(args.max_n, 1e6) if args.quick else args.max_n
    rows = run(int(max_n), args.quick)
    report(rows, args.out)
    if args.write:
        write_block(args.write, "bench", "\n".join(goal_lines(rows)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
