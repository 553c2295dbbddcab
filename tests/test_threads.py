"""Rows of 2**20 terms or more are split over threads: same bits for any count."""

import os
import subprocess
import sys
import threading
import time
from fractions import Fraction

import numpy as np
import pytest
from helpers import assert_same, in_line
from oracle import BFLOAT16, round_fraction

import xsumufunc as xs

N = (1 << 21) + 12345
SCALE = 2.0**-20


@pytest.fixture
def restore_threads():
    yield
    xs.set_num_threads(None)


def _data(dtype):
    # Integers times a power of two: the oracle is a fast integer sum.
    rng = np.random.default_rng(4)
    ints = rng.integers(-(2**20), 2**20, N)
    ints[::7] *= 2**9                      # a second, wider range (window moves)
    x = (ints * SCALE).astype(dtype)
    # Every value of x is an integer multiple of SCALE (bfloat16 rounding of
    # the wide ones keeps that), so the exact sum is an integer sum.
    units = (np.asarray(x, np.float64) / SCALE).astype(np.int64)
    assert np.array_equal(units * SCALE, np.asarray(x, np.float64))
    return x, Fraction(int(units.sum(dtype=np.int64))) * Fraction(SCALE)


@pytest.mark.parametrize("dtype", [np.dtype(np.float64), np.dtype(np.float32), BFLOAT16], ids=str)
def test_same_bits_for_any_thread_count(dtype, restore_threads):
    x, exact = _data(dtype)
    for threads in (1, 2, 3, 8):
        xs.set_num_threads(threads)
        assert xs.get_num_threads() == threads
        assert_same(xs.exact_sum(x, dtype=np.float64), round_fraction(exact, np.dtype(np.float64)))
        assert_same(xs.exact_sum(x), round_fraction(exact, dtype))
        assert_same(xs.exact_mean(x, dtype=np.float64),
                    round_fraction(exact / N, np.dtype(np.float64)))


def test_concurrent_calls_from_python_threads(restore_threads):
    x, exact = _data(np.dtype(np.float64))
    expected = round_fraction(exact, np.dtype(np.float64))
    results = []

    def work():
        results.append(xs.exact_sum(x))

    workers = [threading.Thread(target=work) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(results) == 4
    for r in results:
        assert_same(r, expected)


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True])
def test_set_num_threads_rejects_bad_values(bad):
    with pytest.raises(ValueError, match="set_num_threads"):
        xs.set_num_threads(bad)


# ---- many rows split between threads (each row computed whole by one) -------

def _many_rows(shape, seed):
    """Rows of integers times powers of two per row: the oracle per row is an
    integer sum, and rows of very different scales share the job."""
    rng = np.random.default_rng(seed)
    ints = rng.integers(-(2**40), 2**40, shape)
    scale_exp = rng.integers(-60, 60, (shape[0], 1))
    return np.ldexp(ints.astype(np.float64), scale_exp), ints, scale_exp


def _row_oracle(ints, scale_exp, target):
    return np.array([round_fraction(Fraction(int(s)) * Fraction(2) ** int(e), target)
                     for s, e in zip(ints.sum(axis=1, dtype=object), scale_exp[:, 0])],
                    dtype=target)


@pytest.mark.parametrize("shape", [(1 << 17, 10), (1 << 12, 300)])
def test_many_rows_same_bits_for_any_thread_count(shape, restore_threads):
    x, ints, scale_exp = _many_rows(shape, shape[1])
    assert x.size >= 1 << 20                   # large enough to be split
    for target in (np.dtype(np.float64), np.dtype(np.float32)):
        expected = _row_oracle(ints, scale_exp, target)
        for threads in (1, 2, 3):
            xs.set_num_threads(threads)
            assert_same(xs.exact_sum(x, axis=1, dtype=target), expected, f"{threads} threads")


@pytest.mark.parametrize("offset", [0, 16, 40])
@pytest.mark.parametrize("shape", [(128, 1 << 13), (1 << 11, 1000)])
def test_slow_axis_columns_split_between_threads(shape, offset, restore_threads):
    # Rows `offset` bytes into a 64-byte line: each thread's columns have
    # their edge columns summed apart (src/kernels/cells/xs_columns.c).
    x, ints, scale_exp = _many_rows(shape[::-1], 7)
    x = in_line(x.T, offset)                   # columns of x are the rows above
    expected = _row_oracle(ints, scale_exp, np.dtype(np.float64))
    for threads in (1, 2, 3):
        xs.set_num_threads(threads)
        assert_same(xs.exact_sum(x, axis=0), expected, f"{threads} threads")


def test_overflow_in_a_worker_thread_still_warns(restore_threads):
    # The rows that overflow are in the last part, summed by a worker thread:
    # its floating-point flags must reach NumPy in the calling thread.
    x = np.ones((1 << 17, 10))
    x[-1] = 3e38
    xs.set_num_threads(2)
    with pytest.warns(RuntimeWarning, match="overflow"):
        res = xs.exact_sum(x, axis=1, dtype=np.float32)
    assert res[-1] == np.float32(np.inf) and res[0] == np.float32(10.0)
    xs.set_num_threads(1)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        xs.exact_sum(x, axis=1, dtype=np.float32)


def test_long_dot_same_bits_for_any_thread_count(restore_threads):
    # Products of integers times powers of two: the oracle is an integer sum.
    rng = np.random.default_rng(9)
    ia = rng.integers(-(2**20), 2**20, N)
    ib = rng.integers(-(2**20), 2**20, N)
    ia[::7] <<= 12                           # a second range: windows move
    a, b = ia * 2.0**-20, ib * 2.0**-10
    exact = Fraction(int(np.dot(ia.astype(object), ib.astype(object)))) * Fraction(2) ** -30
    for threads in (1, 2, 3):
        xs.set_num_threads(threads)
        assert_same(xs.exact_dot(a, b), round_fraction(exact, np.dtype(np.float64)))
        assert_same(xs.exact_dot(a, b, dtype=np.float32), round_fraction(exact, np.dtype(np.float32)))
        assert_same(xs.exact_dot(a[::-1], b[::-1]), round_fraction(exact, np.dtype(np.float64)))


def test_huge_thread_counts_are_capped_not_an_overflow(restore_threads):
    xs.set_num_threads(10**12)
    capped = xs.get_num_threads()
    xs.set_num_threads(10**6)
    assert xs.get_num_threads() == capped >= 1
    x, exact = _data(np.dtype(np.float64))
    assert_same(xs.exact_sum(x), round_fraction(exact, np.dtype(np.float64)))


# ---------------------------------------------------------------------------
# Many Python threads at once: the same bits as serial calls.

def _small_inputs():
    rng = np.random.default_rng(11)
    a = rng.standard_normal((6, 300)) * np.exp2(rng.integers(-30, 30, (6, 300)))
    a[:, ::5] *= -2.0**90                  # cancellation within float32's range
    wide = a.copy()
    wide[:, ::7] *= 1e250
    return {
        "f64": wide,
        "f32": a.astype(np.float32),
        "bf16": a.astype(np.float32).astype(BFLOAT16),
        "c128": a + 1j * a[::-1],
        "i64": rng.integers(-2**62, 2**62, (6, 300)),
    }


def _calls(arrays):
    """name -> zero-argument call, for every public function."""
    calls = {}
    for key, a in arrays.items():
        calls[f"sum-{key}"] = lambda a=a: xs.exact_sum(a, axis=1)
        calls[f"sum0-{key}"] = lambda a=a: xs.exact_sum(a, axis=0, dtype=None)
        calls[f"nansum-{key}"] = lambda a=a: xs.exact_nansum(a, where=a.real > 0)
        calls[f"mean-{key}"] = lambda a=a: xs.exact_mean(a, axis=1)
        calls[f"nanmean-{key}"] = lambda a=a: xs.exact_nanmean(a, axis=(0, 1))
        calls[f"accumulate-{key}"] = lambda a=a: xs.exact_add.accumulate(a, axis=1)
        calls[f"reduceat-{key}"] = lambda a=a: xs.exact_add.reduceat(a, [0, 7, 200], axis=1)
        if key != "i64":
            calls[f"dot-{key}"] = lambda a=a: xs.exact_dot(a, a[::-1])
    calls["states"] = lambda: xs.exact_state_round_ufunc(xs.exact_state_merge_ufunc(
        xs.exact_sum_state_ufunc(arrays["f64"])))
    return calls


def _run_concurrently(jobs, threads):
    """Run every (name, call) job on `threads` threads, all started at once."""
    barrier = threading.Barrier(threads)
    results, errors = {}, []

    def worker(k):
        try:
            barrier.wait()
            for i, (_, call) in enumerate(jobs):
                if i % threads == k:
                    results[i] = call()
        except BaseException as exc:          # reported below, never lost
            errors.append(exc)

    pool = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert not errors, errors
    return [results[i] for i in range(len(jobs))]


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_every_function_from_many_threads_shared_and_separate_inputs():
    shared = _small_inputs()
    calls = _calls(shared)
    serial = {name: call() for name, call in calls.items()}
    # Shared inputs (all threads read the same arrays) and separate copies.
    separate = [_calls({k: v.copy() for k, v in shared.items()}) for _ in range(3)]
    jobs = [(name, call) for _ in range(3) for name, call in calls.items()]
    jobs += [(name, call) for copy in separate for name, call in copy.items()]
    for (name, _), got in zip(jobs, _run_concurrently(jobs, threads=8)):
        assert_same(got, serial[name], name)


def test_serial_results_of_the_thread_test_are_exact():
    """The serial values the thread test compares with are themselves exact."""
    from oracle import oracle_accumulate, oracle_reduce
    from oracle_products import oracle_dot, oracle_mean_reduce
    arrays = _small_inputs()
    calls = _calls(arrays)
    with np.errstate(over="ignore"):
        for key in ("f64", "bf16", "c128"):
            a = arrays[key]
            assert_same(calls[f"sum-{key}"](), oracle_reduce(a, axis=1))
            assert_same(calls[f"mean-{key}"](), oracle_mean_reduce(a, axis=1))
            assert_same(calls[f"accumulate-{key}"](), oracle_accumulate(a, axis=1))
            assert_same(calls[f"dot-{key}"](), oracle_dot(a, a[::-1]))


def test_internal_threads_from_several_python_threads_at_once(restore_threads):
    """Long rows (each split over internal threads) reduced by several Python
    threads at the same time, while another thread changes the thread count."""
    data = {dt: _data(dt) for dt in (np.dtype(np.float64), np.dtype(np.float32), BFLOAT16)}
    expected = {dt: round_fraction(exact, np.dtype(np.float64)) for dt, (_, exact) in data.items()}
    mean_expected = {dt: round_fraction(exact / N, np.dtype(np.float64))
                     for dt, (_, exact) in data.items()}
    xs.set_num_threads(3)
    stop = threading.Event()

    def change_counts():
        k = 0
        while not stop.is_set():
            xs.set_num_threads(1 + k % 4)
            k += 1
            stop.wait(0.001)

    changer = threading.Thread(target=change_counts)
    changer.start()
    try:
        jobs = []
        for dt, (x, _) in data.items():
            jobs += [(dt, lambda x=x: xs.exact_sum(x, dtype=np.float64))] * 2
            jobs += [(("mean", dt), lambda x=x: xs.exact_mean(x, dtype=np.float64))]
            jobs += [(dt, lambda x=x: xs.exact_sum(x[::-1], dtype=np.float64))]
        got = _run_concurrently(jobs, threads=4)
    finally:
        stop.set()
        changer.join()
    for (key, _), value in zip(jobs, got):
        want = mean_expected[key[1]] if isinstance(key, tuple) else expected[key]
        assert_same(value, want, str(key))


def _ticks_during(long_call):
    """Run long_call (one C call) on a worker thread while another thread
    ticks; the number of ticks in the middle half of the call."""
    ticks, window = [], {}
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())

    def work():
        window["start"] = time.perf_counter()
        try:
            long_call()
        except BaseException as exc:            # re-raised below
            window["error"] = exc
        window["end"] = time.perf_counter()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        t = threading.Thread(target=ticker)
        t.start()
        time.sleep(0.01)                          # the ticker is running
        worker = threading.Thread(target=work)
        worker.start()
        worker.join()
        stop.set()
        t.join()
    finally:
        sys.setswitchinterval(old)
    if "error" in window:
        raise window["error"]
    # The middle half of the call: Python work at its ends holds the GIL.
    start, end = window["start"], window["end"]
    quarter = (end - start) / 4
    return sum(start + quarter < s < end - quarter for s in ticks)


def test_gil_is_released_during_a_long_reduction(restore_threads):
    """While one thread is inside a long exact reduction (one C call of
    40 ms to 2 s), another Python thread keeps running: the loops do not hold
    the GIL.  One internal thread, so that the two threads have a core each."""
    xs.set_num_threads(1)
    x = np.random.default_rng(3).standard_normal(1 << 22)
    x[::3] *= 1e100
    # The detector works: no tick while a C call keeps the GIL (list.sort).
    values = list(np.random.default_rng(4).random(1 << 19))
    assert _ticks_during(lambda: sorted(values)) == 0
    calls = {
        "sum of rows": lambda: xs.exact_sum(x.reshape(4096, 1024)[:, ::-1], axis=1),
        "sum of columns": lambda: xs.exact_sum(x.reshape(4096, 1024), axis=0),
        "mean of short rows": lambda: xs.exact_mean(x.reshape(-1, 128)[:, ::-1], axis=1),
        "states": lambda: xs.exact_sum_state_ufunc(x.reshape(-1, 1024)),
        "where": lambda: xs.exact_nansum(x, where=x > 0),
        "accumulate": lambda: xs.exact_add.accumulate(x),
        "dot": lambda: xs.exact_dot(x, x),
    }
    for name, call in calls.items():
        # Up to three tries, each call repeated for at least 0.3 s (one call
        # takes 20-500 ms, too short for a loaded machine, with pytest-xdist's
        # other worker on the other core, to schedule the ticker reliably;
        # the GIL is taken only between the repeats): a held GIL gives 0
        # ticks every time.
        assert any(_ticks_during(_for_a_while(call)) >= 3 for _ in range(3)), name


def _for_a_while(call, seconds=0.3):
    """call, repeated until `seconds` have passed."""
    def repeated():
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            call()
    return repeated


@pytest.mark.parametrize("value,expected", [
    ("3", "3"), ("4294967298", "cap"), ("99999999999999999999999", "cap"), ("abc", "default"),
    ("-2", "default"), ("2x", "default"), ("", "default")])
def test_the_thread_count_from_the_environment(value, expected):
    """Regression (issue 18.7): XSUMUFUNC_NUM_THREADS=4294967298 was read as
    2 (atoi wrapped around); the default now follows the CPU affinity."""
    code = ("import os, xsumufunc as xs; "
            "print(xs.get_num_threads(), len(os.sched_getaffinity(0)))")
    env = dict(os.environ, XSUMUFUNC_NUM_THREADS=value)
    out = subprocess.run([sys.executable, "-P", "-c", code], env=env, capture_output=True,
                         text=True, timeout=60, check=True).stdout.split()
    got, cpus = int(out[0]), int(out[1])
    if expected == "cap":
        assert got >= 64 and got >= cpus
    elif expected == "default":
        assert got == cpus
    else:
        assert got == int(expected)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity here")
def test_the_default_thread_count_follows_the_cpu_affinity():
    code = ("import os; os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]}); "
            "import xsumufunc as xs; print(xs.get_num_threads())")
    env = {k: v for k, v in os.environ.items() if k != "XSUMUFUNC_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-P", "-c", code], env=env, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    assert int(out) == 1
