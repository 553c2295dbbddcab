"""Speed and accuracy of the low-precision kit (issue #7).

    python benchmarks/bench_lowprec.py            # n = 1e6
    python benchmarks/bench_lowprec.py --n 1e5

Speed: ns per element (median of rounds) of kahan_add, stochastic_add and
stochastic_round against the nearest-rounding NumPy expression they replace.
Accuracy: kahan_sum (compensated, NOT exact) and np.sum against exact_sum
(exact, correctly rounded), as the error of the result in ulps of the exact
result, for several input dtypes and conditionings; and their speed.
Prints a Markdown report.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import BFLOAT16, ns_per_element  # noqa: E402
from bench_cli import parser  # noqa: E402

import xsumufunc as xs  # noqa: E402


def ulp_error(value, exact, dtype):
    """|value - exact| in ulps of exact (in dtype's grid), as a float."""
    v, e = float(value), float(exact)
    if not (np.isfinite(v) and np.isfinite(e)):
        return float("nan") if v != e else 0.0
    ulp = abs(float(np.spacing(np.array(e, dtype=np.float32 if dtype == BFLOAT16 else dtype))))
    if dtype == BFLOAT16:
        ulp *= 2.0 ** 16                 # bfloat16 keeps 8 of float32's 24 bits
    return abs(v - e) / ulp


def speed_updates(n, rng):
    rows = []
    for storage in (BFLOAT16, np.dtype(np.float16), np.dtype(np.float32)):
        w = rng.standard_normal(n).astype(storage)
        c = np.zeros(n, dtype=storage)
        u = (rng.standard_normal(n) * 1e-3).astype(np.float32)
        bits16 = rng.integers(0, 1 << 16, n, dtype=np.uint16)
        x = rng.standard_normal(n)
        name = "bfloat16" if storage == BFLOAT16 else str(storage)
        rows.append((name, "numpy w + u (nearest, via float32)",
                     ns_per_element(lambda: (w.astype(np.float32) + u).astype(storage), n)))
        rows.append((name, "kahan_add (in place)",
                     ns_per_element(lambda: xs.kahan_add(w, c, u, out=(w, c)), n)))
        rows.append((name, "stochastic_add, uint16 bits",
                     ns_per_element(lambda: xs.stochastic_add(w, u, bits=bits16, out=w), n)))
        rows.append((name, "stochastic_add, rng=",
                     ns_per_element(lambda: xs.stochastic_add(
                         w, u, rng=np.random.default_rng(0), out=w), n)))
        if storage != np.dtype(np.float32):
            rows.append((name, "stochastic_round float64 -> storage, uint16 bits",
                         ns_per_element(lambda: xs.stochastic_round(x, storage, bits=bits16), n)))
            rows.append((name, "numpy float64 -> storage astype (nearest)",
                         ns_per_element(lambda: x.astype(storage), n)))
    return rows


def sums(n, rng):
    cases = {
        "N(0,1)": lambda dt: rng.standard_normal(n).astype(dt),
        "0.01 * N(1,1) (little cancellation)":
            lambda dt: (0.01 * (1 + rng.standard_normal(n))).astype(dt),
        "0.01 * uniform(0,1)": lambda dt: (rng.uniform(0, 1, n) * 0.01).astype(dt),
    }
    rows = []
    for dt in (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.float16), BFLOAT16):
        name = "bfloat16" if dt == BFLOAT16 else str(dt)
        for case, make in cases.items():
            x = make(dt)
            exact = xs.exact_sum(x)
            with np.errstate(over="ignore"):
                plain = np.sum(x)
            kahan = xs.kahan_sum(x)
            rows.append((name, case, ulp_error(plain, exact, dt), ulp_error(kahan, exact, dt),
                         ns_per_element(lambda: np.sum(x), n),
                         ns_per_element(lambda: xs.kahan_sum(x), n),
                         ns_per_element(lambda: xs.exact_sum(x), n)))
    return rows


def main(argv=None):
    args = parser(__doc__, n=1e6, seed=True).parse_args(argv)
    n = int(args.n)
    rng = np.random.default_rng(args.seed)
    print(f"## Element-wise updates, n = {n:.0e} (ns per element, median)\n")
    print("| storage | operation | ns/element |\n|---|---|---|")
    for storage, op, ns in speed_updates(n, rng):
        print(f"| {storage} | {op} | {ns:.2f} |")
    print(f"\n## Sums, n = {n:.0e}: error in ulps of the exact sum, and ns per element\n")
    print("| dtype | data | np.sum error | kahan_sum error | np.sum ns | kahan_sum ns "
          "| exact_sum ns |\n|---|---|---|---|---|---|---|")
    for row in sums(n, rng):
        name, case, e_plain, e_kahan, t_np, t_k, t_x = row
        print(f"| {name} | {case} | {e_plain:.3g} | {e_kahan:.3g} | {t_np:.2f} | {t_k:.2f} "
              f"| {t_x:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
