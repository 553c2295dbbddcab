"""Speed on each CPU class: the same cases under every SIMD level this CPU
has, forced with XSUMUFUNC_KERNEL, side by side.

    python benchmarks/bench_cpu.py                       # every level, one run
    python benchmarks/bench_cpu.py --runs 3              # the median of three runs
    python benchmarks/bench_cpu.py --levels avx2 generic
    python benchmarks/bench_cpu.py --runs 3 --write docs/performance.md
    python benchmarks/bench_cpu.py --runs 3 --save a.json     # keep the runs' numbers
    python benchmarks/bench_cpu.py --merge a.json b.json --write README.md
    python benchmarks/bench_cpu.py --merge a.json --levels avx512 avx2 generic
    python benchmarks/bench_cpu.py --class-twins --runs 3 --write docs/performance.md

Each level runs in its own child process (the level is read once per
process), one thread, same-process interleaved medians (bench.measure) of
our call and its NumPy twin on the same array, the array copied to four
places in memory in turn (bench.PLACEMENTS: NumPy's sum over columns moves
by half from one to another); a cell is the median over them of our ns per
element and of the ratio to the twin.  Data: standard normal, lognormal(0, 3) with
random signs, the paper's data (exp(30u)*u), as in bench_spread.py, and
normal data with 10% zeros (sparse data); rows of (1000, 1000), and
narrow ones of 100 and 10 terms.  The goals are issue 27's (the AVX2 and
generic floors; sparse data: those of normal data; narrow rows: none).  With
--write, the table replaces the block between the markers
``<!-- bench_cpu begin -->`` and ``<!-- bench_cpu end -->`` of the page,
with the machine named.  --save keeps every run's numbers in a JSON file;
--merge makes the table (and the ranges of the ratios) from the runs of
several such files instead of measuring: runs from another time, or from
another install of the same commit (a regular and an editable install place
the benchmark's arrays differently, which moved NumPy's column sums by a
fifth even at the four places).

With --class-twins, each level's twins are those a CPU of its class runs:
NumPy's own CPU dispatch capped with NPY_DISABLE_CPU_FEATURES (no AVX-512
loops for `avx2`; nothing above NumPy's baseline, x86-64-v2 in NumPy 2.4,
for `generic` and `sse2`) and OpenBLAS's kernels chosen with
OPENBLAS_CORETYPE (Haswell, Nehalem): CLASS_CAPS.  Without it, every
level's twins are NumPy's best on this CPU, the measure of issue 27's
goals.  --write then fills the block ``bench_cpu_class``.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import PLACEMENTS, measure, placed, spread_data  # noqa: E402
from bench_cli import parser  # noqa: E402
from pages import write_block  # noqa: E402

#: (label, what is timed, data kind, shape, axis, dtype, goal under avx2, under generic)
CASES = [
    ("1-D sum n=1e6", "sum", "normal", (10**6,), None, "float64", 2.0, 3.0),
    ("1-D sum n=1e6", "sum", "lognormal(0, 3)", (10**6,), None, "float64", 2.0, 3.0),
    ("1-D sum n=1e6", "sum", "paper's data", (10**6,), None, "float64", 2.5, 3.0),
    ("1-D sum n=1e6", "sum", "normal, 10% zeros", (10**6,), None, "float64", 2.0, 3.0),
    ("rows (1000, 1000) axis=1", "sum", "normal", (1000, 1000), 1, "float64", 2.5, 3.5),
    ("rows (1000, 1000) axis=1", "sum", "lognormal(0, 3)", (1000, 1000), 1, "float64", 2.5, 3.5),
    # Narrow rows (no goal of issue 27's: its rows are (1000, 1000)).
    ("rows (10^4, 100) axis=1", "sum", "normal", (10**4, 100), 1, "float64", None, None),
    ("rows (10^4, 100) axis=1", "sum", "lognormal(0, 3)", (10**4, 100), 1, "float64", None,
     None),
    ("rows (10^5, 10) axis=1", "sum", "normal", (10**5, 10), 1, "float64", None, None),
    ("columns (1000, 1000) axis=0", "sum", "normal", (1000, 1000), 0, "float64", 2.5, 4.0),
    ("columns (1000, 1000) axis=0", "sum", "lognormal(0, 3)", (1000, 1000), 0, "float64", 2.5,
     4.0),
    ("columns (1000, 1000) axis=0", "sum", "paper's data", (1000, 1000), 0, "float64", 3.0, 4.0),
    ("columns (1000, 1000) axis=0", "sum", "normal, 10% zeros", (1000, 1000), 0, "float64", 2.5,
     4.0),
    ("columns (100, 10000) axis=0", "sum", "normal", (100, 10000), 0, "float64", 3.0, 4.0),
    ("float32 columns (1000, 1000)", "sum", "normal", (1000, 1000), 0, "float32", 3.0, 4.0),
    ("float32 columns (1000, 1000)", "sum", "lognormal(0, 3)", (1000, 1000), 0, "float32", 3.0,
     4.0),
    ("exact_dot n=1e6", "dot", "normal", (10**6,), None, "float64", 4.0, 6.0),
    ("exact_dot n=1e6", "dot", "lognormal(0, 3)", (10**6,), None, "float64", 6.0, 8.0),
    ("exact_moving_sum window 100", "moving", "normal", (10**6,), None, "float64", None, 4.0),
]
LEVELS = ["avx512vnni", "avx512", "avx2", "sse2", "generic", "neon"]

#: What a CPU of each x86 class runs of NumPy and OpenBLAS (--class-twins):
#: the markers of the NumPy dispatch targets to disable (a target is
#: disabled when its name contains one; the names differ across NumPy
#: versions: X86_V3 / X86_V4 in 2.4, AVX2 / AVX512F ... before), and
#: OpenBLAS's core type.  Levels not named here keep NumPy's best.
_BELOW_AVX2 = (("AVX512", "X86_V4", "X86_V3", "AVX", "F16C", "FMA"), "Nehalem")
CLASS_CAPS = {
    "avx2": (("AVX512", "X86_V4"), "Haswell"),
    "sse2": _BELOW_AVX2,
    "generic": _BELOW_AVX2,
}


def class_caps(level):
    """The environment that caps NumPy and OpenBLAS to `level`'s class
    (CLASS_CAPS); {} for a level with no cap."""
    if level not in CLASS_CAPS:
        return {}
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__ as dispatch
    except ImportError:                             # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_dispatch__ as dispatch
    markers, coretype = CLASS_CAPS[level]
    off = [name for name in dispatch if any(m in name for m in markers)]
    return {"NPY_DISABLE_CPU_FEATURES": " ".join(off), "OPENBLAS_CORETYPE": coretype}


def _methods(what, x, y, axis):
    """(ours, twin): the call measured and the NumPy (or bottleneck) twin."""
    import xsumufunc as xs
    if what == "sum":
        return (lambda: xs.exact_sum(x, axis=axis)), (lambda: np.sum(x, axis=axis))
    if what == "dot":
        return (lambda: xs.exact_dot(x, y)), (lambda: np.dot(x, y))
    import bottleneck
    return (lambda: xs.exact_moving_sum(x, 100)), (lambda: bottleneck.move_sum(x, 100))


def child(rounds):
    """One run of every case at the level in force: a JSON list on stdout.
    Each case is measured on copies of its data at each of bench.PLACEMENTS
    (the same placement for both of a dot product's vectors), and the
    medians over them are its cell: ns per element and the ratio."""
    import xsumufunc as xs
    xs.set_num_threads(1)
    rows = []
    with np.errstate(all="ignore"):
        for _label, what, kind, shape, axis, dtype, _, _ in CASES:
            rng = np.random.default_rng(0)
            x0 = spread_data(kind, shape, rng).astype(dtype)
            y0 = spread_data(kind, shape, rng).astype(dtype)
            samples = []
            for offset in PLACEMENTS:
                x, y = placed(x0, offset), placed(y0, offset)
                try:
                    ours, twin = _methods(what, x, y, axis)
                except ImportError:
                    break                        # bottleneck absent
                t = measure({"ours": ours, "twin": twin}, rounds)
                samples.append((t["ours"] / x.size * 1e9, t["ours"] / t["twin"]))
            rows.append((statistics.median(s[0] for s in samples),
                         statistics.median(s[1] for s in samples)) if samples else None)
    print(json.dumps({"level": xs._ufuncs._simd_levels()[0], "rows": rows}))


def run_level(level, rounds, class_twins=False):
    env = dict(os.environ, XSUMUFUNC_KERNEL=level, OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if class_twins:
        env.update(class_caps(level))
    out = subprocess.run([sys.executable, "-P", os.path.abspath(__file__), "--child",
                          "--rounds", str(rounds)], env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def available_levels():
    from xsumufunc import _ufuncs
    best = _ufuncs._simd_levels()[1]
    if best == "neon":
        return ["neon", "generic"]
    order = LEVELS[:5][::-1]                    # generic ... avx512vnni
    return [lv for lv in LEVELS[:5] if order.index(lv) <= order.index(best)]


def table(results, levels, runs, class_twins=False):
    head = "| case | data | " + " | ".join(f"`{lv}`" for lv in levels) + \
        " | goal avx2 / generic |"
    lines = [head, "|" + "---|" * (len(levels) + 3)]
    for i, (label, _, kind, _, _, _dtype, goal2, goalg) in enumerate(CASES):
        cells = []
        for lv in levels:
            samples = [r[i] for r in results[lv] if r[i] is not None]
            if not samples:
                cells.append("n/a")
                continue
            ns = statistics.median(s[0] for s in samples)
            ratio = statistics.median(s[1] for s in samples)
            cells.append(f"{ns:.2f} ns ({ratio:.1f}x)")
        goals = f"<= {goal2 or '-'} / {goalg}" if goalg is not None else "-"
        lines.append(f"| {label} | {kind} | " + " | ".join(cells) + f" | {goals} |")
    twin = ("ratios to `np.sum` (float32 columns: of float32), `np.dot`, and bottleneck's "
            "`move_sum`")
    if class_twins:
        caps = "; ".join(f"`{lv}`: NumPy's {class_caps(lv)['NPY_DISABLE_CPU_FEATURES']} "
                         f"loops off, OpenBLAS's {CLASS_CAPS[lv][1]} kernels" for lv in levels
                         if lv in CLASS_CAPS)
        twin += (", each as a CPU of the level's class runs them (NPY_DISABLE_CPU_FEATURES, "
                 f"OPENBLAS_CORETYPE; {caps})")
    note = (f"Machine: {platform.machine()}, {_cpu_name()}; one thread; median of {runs} "
            f"run(s) of same-process interleaved medians, each case on its data at "
            f"{len(PLACEMENTS)} places in memory (their median); ns per element (dot: per "
            f"product) and {twin}.")
    return "\n".join(lines) + "\n\n" + note + "\n"


def _cpu_name():
    """The model name, with the family and model numbers where Linux gives
    them: a cloud CPU's name alone ("AMD EPYC") does not tell its core
    (family 25 model 17 is a Zen 4, family 26 a Zen 5)."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = fields.get("model name") or platform.processor() or "unknown CPU"
    if "cpu family" in fields and "model" in fields:
        name += f" (family {fields['cpu family']}, model {fields['model']})"
    return name


def ranges(results, levels):
    """Per case, the range of each level's ratios over the runs, and of the
    twin's ns per element (ours over the ratio), which moves from one
    process and session to the next where ours does not (docs/performance.md)."""
    lines = []
    for i, (label, _, kind, *_rest) in enumerate(CASES):
        spans, twins = [], []
        for lv in levels:
            cells = [r[i] for r in results[lv] if r[i] is not None]
            ratios = [ratio for _ns, ratio in cells]
            twins += [ns / ratio for ns, ratio in cells]
            spans.append(f"{lv} {min(ratios):.1f}-{max(ratios):.1f}x" if ratios else f"{lv} n/a")
        twin = f"; twin {min(twins):.3f}-{max(twins):.3f} ns" if twins else ""
        lines.append(f"{label} / {kind}: " + ", ".join(spans) + twin)
    return "\n".join(lines)


def main(argv=None):
    cli = parser(__doc__, rounds=7, runs=True)
    cli.add_argument("--levels", nargs="*", help="default: every level this CPU has (with "
                     "--merge: every level of the files)")
    cli.add_argument("--save", help="write every run's numbers to this JSON file")
    cli.add_argument("--merge", nargs="+", help="JSON files of --save to make the table from")
    cli.add_argument("--class-twins", action="store_true", help="time each level's twins as "
                     "a CPU of its class runs them (NumPy and OpenBLAS capped; see the top)")
    cli.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = cli.parse_args(argv)
    if args.child:
        child(args.rounds)
        return
    class_twins = args.class_twins
    if args.merge:
        levels, results = None, {}
        for path in args.merge:
            with open(path) as f:
                saved = json.load(f)
            levels = levels or saved["levels"]
            if saved["levels"] != levels:
                cli.error(f"--merge: {path} has levels {saved['levels']}, "
                          f"the first file {levels}; merge runs of the same levels")
            if saved.get("class_twins", False) != class_twins:
                cli.error(f"--merge: {path} was measured "
                          f"{'with' if saved.get('class_twins') else 'without'} "
                          "--class-twins; give --class-twins as its runs were")
            for lv in levels:
                results.setdefault(lv, []).extend(saved["results"][lv])
        if args.levels:                          # a table of some of the saved levels
            missing = [lv for lv in args.levels if lv not in levels]
            if missing:
                cli.error(f"--levels: {missing} not in the merged files' levels {levels}")
            levels = args.levels
    else:
        levels = args.levels or available_levels()
        results = {lv: [] for lv in levels}
        for _ in range(args.runs):
            for lv in levels:                    # interleaved across levels too
                results[lv].append(run_level(lv, args.rounds, class_twins)["rows"])
        if args.save:
            with open(args.save, "w") as f:
                json.dump({"levels": levels, "results": results, "class_twins": class_twins},
                          f)
    text = table(results, levels, len(results[levels[0]]), class_twins)
    print(text)
    print(ranges(results, levels))
    if args.write:
        write_block(args.write, "bench_cpu_class" if class_twins else "bench_cpu", text)


if __name__ == "__main__":
    main()
