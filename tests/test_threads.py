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
