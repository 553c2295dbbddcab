"""``python -m xsumufunc``: where np.sum goes wrong, what exact_sum gives, how fast.

Every "exact" value printed here is checked against a Fraction computation in
the demo itself, so the demo cannot show a wrong claim silently.
"""

import math
import statistics
import sys
import time
from fractions import Fraction

import ml_dtypes
import numpy as np

from . import exact_dot, exact_mean, exact_sum


def _fraction_sum(values):
    return sum((Fraction(v) for v in np.asarray(values, np.float64).tolist()), Fraction(0))


def _show(title, values, np_result, dtype=None):
    ours = exact_sum(values) if dtype is None else exact_sum(values, dtype=dtype)
    truth = _fraction_sum(values)
    exact_ok = ours == np.asarray(float(truth)).astype(ours.dtype)
    print(f"  {title}")
    print(f"    np.sum    -> {np_result!r}")
    print(f"    exact_sum -> {ours!r}   (matches the exact Fraction sum: {bool(exact_ok)})")


def _median_seconds(func, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None):
    print("xsumufunc: exact, correctly rounded sums for NumPy\n")
    print("1. Hard inputs")
    x = np.array([1e100, 1.0, -1e100])
    _show("cancellation [1e100, 1.0, -1e100]", x, np.sum(x))
    x = np.array([1e308, 1e308, -1e308])
    with np.errstate(over="ignore"):
        _show("partial sums overflow [1e308, 1e308, -1e308]", x, np.sum(x))
    x = np.ones(1000, dtype=ml_dtypes.bfloat16)
    _show("1000 bfloat16 ones (bfloat16 accumulation stalls at 256)", x, np.sum(x))
    x = np.full(10**6, 0.1, dtype=np.float32)
    _show("10**6 float32 values 0.1", x, np.sum(x))

    m = np.array([1e308, 1e308, 1e308])
    with np.errstate(over="ignore"):
        np_mean = np.mean(m)
    ours = exact_mean(m)
    print("  mean of [1e308, 1e308, 1e308]")
    print(f"    np.mean    -> {np_mean!r}")
    print(f"    exact_mean -> {ours!r}   (exact: {ours == 1e308})")
    a, b = np.array([1e300, -1e300, 1.0]), np.array([1e300, 1e300, 1.0])
    with np.errstate(over="ignore", invalid="ignore"):
        np_dot = np.dot(a, b)
    ours = exact_dot(a, b)
    print("  dot of [1e300, -1e300, 1] and [1e300, 1e300, 1] (products overflow)")
    print(f"    np.dot     -> {np_dot!r}")
    print(f"    exact_dot  -> {ours!r}   (exact: {ours == 1.0})")

    print("\n2. Order does not matter")
    rng = np.random.default_rng(2015)
    x = rng.standard_normal(10**5) * np.exp(rng.uniform(0, 40, 10**5))
    orders = {"as is": x, "reversed": x[::-1], "sorted": np.sort(x),
              "by magnitude": x[np.argsort(np.abs(x))]}
    print(f"    {'order':<14}{'np.sum':>24}{'exact_sum':>24}")
    for name, v in orders.items():
        print(f"    {name:<14}{float(np.sum(v))!r:>24}{float(exact_sum(v))!r:>24}")
    exact = exact_sum(x)
    print(f"    exact_sum agrees with math.fsum: {exact == math.fsum(x.tolist())}")

    print("\n3. Speed (median of repeats, ns per element)")
    print(f"    {'n':>10}{'np.sum':>10}{'exact_sum':>11}{'math.fsum':>11}{'exact/np':>10}")
    for n in (10**3, 10**5, 10**6, 10**7):
        v = rng.standard_normal(n)
        repeat = 25 if n <= 10**5 else 7
        t_np = _median_seconds(lambda: np.sum(v), repeat)
        t_ex = _median_seconds(lambda: exact_sum(v), repeat)
        vl = v.tolist() if n <= 10**6 else None
        t_fs = _median_seconds(lambda: math.fsum(vl), 3) if vl is not None else float("nan")
        scale = 1e9 / n
        print(f"    {n:>10}{t_np * scale:>10.2f}{t_ex * scale:>11.2f}{t_fs * scale:>11.2f}"
              f"{t_ex / t_np:>9.1f}x")
    print("\n  The benchmark suite in benchmarks/ measures more cases (see README).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
