"""Rows of 2**20 terms or more are split over threads: same bits for any count."""

import threading
from fractions import Fraction

import numpy as np
import pytest

import xsumufunc as xs
from helpers import assert_same
from oracle import BFLOAT16, round_fraction

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


@pytest.mark.parametrize("shape", [(128, 1 << 13), (1 << 11, 1000)])
def test_slow_axis_columns_split_between_threads(shape, restore_threads):
    x, ints, scale_exp = _many_rows(shape[::-1], 7)
    x = np.ascontiguousarray(x.T)              # columns of x are the rows above
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
