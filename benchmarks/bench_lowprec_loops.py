"""Per-element speed of the low-precision loops (issue #7 follow-up).

    python benchmarks/bench_lowprec_loops.py            # n = 1e6, 9 rounds
    python benchmarks/bench_lowprec_loops.py --n 1e5 --rounds 5

Contiguous arrays, every storage dtype: kahan_add (in place), stochastic_add
(uint16 and uint32 bits), stochastic_round float32/float64 -> storage, and
kahan_sum.  Prints a Markdown table of ns per element (median of rounds).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import BFLOAT16, ns_per_element  # noqa: E402
from bench_cli import parser  # noqa: E402

import xsumufunc as xs  # noqa: E402


def cases(n, rng):
    for storage in (BFLOAT16, np.dtype(np.float16), np.dtype(np.float32)):
        name = "bfloat16" if storage == BFLOAT16 else str(storage)
        w = rng.standard_normal(n).astype(storage)
        c = np.zeros(n, dtype=storage)
        u32 = (rng.standard_normal(n) * 1e-3).astype(np.float32)
        u_s = u32.astype(storage)
        x64 = rng.standard_normal(n)
        x32 = x64.astype(np.float32)
        b16 = rng.integers(0, 1 << 16, n, dtype=np.uint16)
        b32 = rng.integers(0, 1 << 32, n, dtype=np.uint32)
        yield name, "kahan_add, u = storage", lambda: xs.kahan_add(w, c, u_s, out=(w, c))
        yield name, "kahan_add, u = float32", lambda: xs.kahan_add(w, c, u32, out=(w, c))
        yield name, "stochastic_add, u = float32, uint16 bits", \
            lambda: xs.stochastic_add(w, u32, bits=b16, out=w)
        yield name, "stochastic_add, u = float32, uint32 bits", \
            lambda: xs.stochastic_add(w, u32, bits=b32, out=w)
        if storage != np.dtype(np.float32):
            yield name, "stochastic_round float32 -> S, uint16 bits", \
                lambda: xs.stochastic_round(x32, storage, bits=b16)
        yield name, "stochastic_round float64 -> S, uint32 bits", \
            lambda: xs.stochastic_round(x64, storage, bits=b32)
        s = x64.astype(storage)
        yield name, "kahan_sum", lambda: xs.kahan_sum(s)
    s = rng.standard_normal(n)
    yield "float64", "kahan_sum", lambda: xs.kahan_sum(s)


def main(argv=None):
    args = parser(__doc__, rounds=9, n=1e6, seed=True).parse_args(argv)
    n = int(args.n)
    rng = np.random.default_rng(args.seed)
    print(f"| storage | operation (n = {n:.0e}, contiguous) | ns/element |\n|---|---|---|")
    for storage, op, func in cases(n, rng):
        print(f"| {storage} | {op} | {ns_per_element(func, n, args.rounds):.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
