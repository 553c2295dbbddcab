"""Per-call cost of every public function on small inputs (n = 1, 10, 100
float64 values), against its NumPy twin: the fixed cost that code paying one
call per row, group or loop iteration sees.

    python benchmarks/bench_small_calls.py             # a Markdown table
    python benchmarks/bench_small_calls.py --rounds 9 --write docs/performance.md

Same-process, interleaved medians (one batch of calls of each method per
round, see bench.measure); ratio = ours / NumPy's twin, one thread.  The
goal (issue 30): within 2x the twin on 10 values, exact_dot within 3 us.
Twins: NumPy's function of the same name; for the moving windows NumPy's
spelling, the reduction over ``sliding_window_view(x, window)`` along its
last axis (the goal's ratio), and bottleneck's move_* as a peer on rows of
their own when it is installed (a C function called directly: the floor of
a call's cost); the exact states against np.sum, whose work they share.  With --write, the
table replaces the block between ``<!-- bench_small_calls begin -->`` and
``<!-- bench_small_calls end -->`` of the page.
"""

import os
import sys
import warnings
from functools import partial

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import measure  # noqa: E402
from bench_cli import parser  # noqa: E402
from pages import emit  # noqa: E402

import xsumufunc as xs  # noqa: E402
from xsumufunc import array_api as xp  # noqa: E402

try:
    import bottleneck as bn
except ImportError:
    bn = None

SIZES = (1, 10, 100)


def _moving_twin(name, x, window):
    """NumPy's windows: one reduction over a sliding-window view (NumPy's
    spelling of a moving window; the first window - 1 outputs are not
    there, as bottleneck's leading NaNs are in ours)."""
    reduce = getattr(np, name)
    return lambda: reduce(np.lib.stride_tricks.sliding_window_view(x, window), axis=-1)


def _moving_cases(x):
    """Each moving window against NumPy's twin, then (bottleneck installed)
    against bottleneck's move_<name>, on a row of its own."""
    window = min(3, x.size)
    cases = []
    for name in ("sum", "mean", "var", "std"):
        ours = partial(getattr(xs, f"exact_moving_{name}"), x, window)
        cases.append((f"exact_moving_{name} (window min(3, n))", ours,
                      _moving_twin(name, x, window)))
        if bn is not None:
            cases.append((f"exact_moving_{name}, against bottleneck's move_{name}", ours,
                          partial(getattr(bn, f"move_{name}"), x, window)))
    return cases


def _reductions(x):
    """The reductions with a NumPy function of the same name."""
    return [(f"exact_{name}", partial(getattr(xs, f"exact_{name}"), x),
             partial(getattr(np, name), x))
            for name in ("sum", "nansum", "mean", "nanmean", "var", "nanvar", "std",
                         "nanstd")]


def _add_cases(x, y):
    starts = np.arange(0, x.size, 2)
    return [
        ("exact_add", lambda: xs.exact_add(x, y), lambda: np.add(x, y)),
        ("exact_add.reduce", lambda: xs.exact_add.reduce(x), lambda: np.add.reduce(x)),
        ("exact_add.accumulate", lambda: xs.exact_add.accumulate(x), lambda: np.cumsum(x)),
        ("exact_add.reduceat", lambda: xs.exact_add.reduceat(x, starts),
         lambda: np.add.reduceat(x, starts)),
        ("exact_add.outer", lambda: xs.exact_add.outer(x, y), lambda: np.add.outer(x, y)),
    ]


def _state_cases(x):
    state = xs.exact_sum_state(x)
    states = np.stack([state, state])
    count = xs.exact_count(x)
    return [
        ("exact_sum_state", lambda: xs.exact_sum_state(x), lambda: np.sum(x)),
        ("exact_count", lambda: xs.exact_count(x), lambda: np.count_nonzero(x == x)),
        ("merge_states (2 states)", lambda: xs.merge_states(states), lambda: np.sum(x)),
        ("round_state", lambda: xs.round_state(state), lambda: np.sum(x)),
        ("state_mean", lambda: xs.state_mean(state, count), lambda: np.mean(x)),
    ]


def _grouped_cases(x):
    codes = np.arange(x.size) % 2
    counts = np.bincount(codes, minlength=2)
    return [
        ("exact_grouped_sum (2 groups)", lambda: xs.exact_grouped_sum(x, codes, 2),
         lambda: np.bincount(codes, x, 2)),
        ("exact_grouped_mean (2 groups)", lambda: xs.exact_grouped_mean(x, codes, 2),
         lambda: np.bincount(codes, x, 2) / counts),
        ("exact_grouped_var (2 groups)", lambda: xs.exact_grouped_var(x, codes, 2),
         lambda: np.array([np.var(x[codes == g]) for g in range(2)])),
        ("exact_grouped_std (2 groups)", lambda: xs.exact_grouped_std(x, codes, 2),
         lambda: np.array([np.std(x[codes == g]) for g in range(2)])),
    ]


def _pair_cases(x, y):
    m = np.stack([x, y])
    sq = np.resize(x, (3, 3))                 # a small square product, whatever n
    # A line needs two points (StatisticsError, as the statistics module's).
    line = [("exact_linear_regression", lambda: xs.exact_linear_regression(x, y),
             lambda: np.polyfit(x, y, 1))] if x.size >= 2 else []
    return line + [
        ("exact_dot", lambda: xs.exact_dot(x, y), lambda: np.vecdot(x, y)),
        ("vector_norm", lambda: xp.linalg.vector_norm(x), lambda: np.linalg.norm(x)),
        ("exact_average (weights)", lambda: xs.exact_average(x, weights=y * y),
         lambda: np.average(x, weights=y * y)),
        ("exact_cov (2 rows)", lambda: xs.exact_cov(m), lambda: np.cov(m)),
        ("exact_corrcoef (2 rows)", lambda: xs.exact_corrcoef(m), lambda: np.corrcoef(m)),
        ("exact_matmul (n, 1) @ (1, n)", lambda: xs.exact_matmul(x[:, None], y[None]),
         lambda: np.matmul(x[:, None], y[None])),
        ("exact_matmul (3, 3) @ (3, 3)", lambda: xs.exact_matmul(sq, sq.T),
         lambda: np.matmul(sq, sq.T)),
    ]


def _lowprec_cases(x):
    w = x.astype(np.float32)
    c = np.zeros_like(w)
    bits = np.zeros(x.size, np.uint32)
    return [
        ("kahan_add", lambda: xs.kahan_add(w, c, x), lambda: np.add(w, x)),
        ("kahan_sum", lambda: xs.kahan_sum(x), lambda: np.sum(x)),
        ("stochastic_add", lambda: xs.stochastic_add(w, x, bits), lambda: np.add(w, x)),
        ("stochastic_round", lambda: xs.stochastic_round(x, np.float32, bits),
         lambda: x.astype(np.float32)),
    ]


def cases(n, rng):
    """(name, ours, NumPy's twin) for n float64 values."""
    x = rng.standard_normal(n)
    y = rng.standard_normal(n)
    return (_reductions(x) + _add_cases(x, y) + _state_cases(x) + _pair_cases(x, y)
            + _moving_cases(x) + _grouped_cases(x) + _lowprec_cases(x))


def _cell(ours, twin):
    return f"{ours:.2f} ({twin:.2f}, {ours / twin:.1f}x)"


def table(rows):
    """The lines of the Markdown table and its note."""
    head = " | ".join(f"n={n}: ours us (twin us, ratio)" for n in SIZES)
    lines = [f"| call | {head} |", "|---" * (len(SIZES) + 1) + "|"]
    for name, cells in rows.items():
        if not cells:
            continue                    # filtered out by --only
        text = " | ".join(_cell(*cells[n]) if n in cells else "-" for n in SIZES)
        lines.append(f"| `{name}` | {text} |")
    peer = (" and, on rows of their own, bottleneck's move_*" if bn is not None
            else " (bottleneck is not installed: no rows against its move_*)")
    note = ("One thread; same-process interleaved medians; microseconds per call; moving "
            "windows against NumPy's reduction over sliding_window_view(x, window), axis=-1"
            f"{peer}.")
    return lines + ["", note]


def main(argv=None):
    cli = parser(__doc__, rounds=7)
    cli.add_argument("--only", help="only the calls whose name contains this")
    args = cli.parse_args(argv)
    xs.set_num_threads(1)
    rng = np.random.default_rng(0)
    # One row per call, in the order of the cases (some start at n = 2).
    rows = {name: {} for name, _, _ in cases(max(SIZES), np.random.default_rng(0))}
    for n in SIZES:
        for name, ours, twin in cases(n, rng):
            if args.only and args.only not in name:
                continue
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")     # n = 1: degrees of freedom <= 0
                t = measure({"ours": ours, "numpy": twin}, args.rounds)
            rows[name][n] = (t["ours"] * 1e6, t["numpy"] * 1e6)
    emit(table(rows), args.write, "bench_small_calls")


if __name__ == "__main__":
    main()
