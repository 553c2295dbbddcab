"""Bounded scratch memory (issue 18, defect 1): reductions that go through
exact states (where=, the nan-variants, initial=, axes that do not merge)
run in blocks of results, so their scratch stays near
STATE_BLOCK_BYTES instead of 552 bytes per result; and the blocks give the
same bits as one pass (the oracle)."""

import tracemalloc
import warnings

import numpy as np
import pytest
from helpers import assert_same
from oracle import oracle_reduce
from oracle_products import oracle_mean_reduce

import xsumufunc as xs
import xsumufunc._core.reduce as reduce_module

MiB = 1 << 20


def peak_bytes(func, *args, **kwargs):
    tracemalloc.start()
    try:
        result = func(*args, **kwargs)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("call", [
    lambda x: xs.exact_sum(x, axis=1, initial=0.0),
    lambda x: xs.exact_nansum(x, axis=1),
    lambda x: xs.exact_nanmean(x, axis=1),
    lambda x: xs.exact_sum(x, axis=1, where=np.array([True, False, True, True])),
], ids=["initial", "nansum", "nanmean", "where"])
def test_state_paths_use_bounded_scratch(call):
    """400,000 rows: one pass would hold 220 MB of states (440 MB with
    initial=); blocks hold a few STATE_BLOCK_BYTES."""
    x = np.ones((400_000, 4))
    result, peak = peak_bytes(call, x)
    assert result.shape == (400_000,)
    assert peak < reduce_module.STATE_BLOCK_BYTES * 4 + 3 * result.nbytes + 8 * MiB, \
        f"{peak / MiB:.0f} MiB"


@pytest.fixture
def tiny_blocks(monkeypatch):
    """Blocks of three results, so that every test input is split (and
    blocks of one index recurse onto the next kept axis)."""
    monkeypatch.setattr(reduce_module, "STATE_BLOCK_BYTES", 3 * 69 * 8)


@pytest.mark.parametrize("axis", [0, 1, 2, (0, 2), (1, 2)])
def test_blocks_give_the_oracle(tiny_blocks, axis):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5, 4, 6)) * np.exp(rng.uniform(-40, 40, (5, 4, 6)))
    a[rng.random(a.shape) < 0.1] = np.nan
    where = rng.random(a.shape) < 0.7
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert_same(xs.exact_nansum(a, axis=axis), oracle_reduce(a, axis=axis, skip_nan=True))
        assert_same(xs.exact_sum(a, axis=axis, where=where, keepdims=True),
                    oracle_reduce(a, axis=axis, where=where, keepdims=True))
        assert_same(xs.exact_sum(a, axis=axis, initial=1e300, dtype=np.float32),
                    oracle_reduce(a, axis=axis, initial=1e300, dtype=np.float32))
        assert_same(xs.exact_nanmean(a, axis=axis),
                    oracle_mean_reduce(a, axis=axis, skip_nan=True))
        out = np.empty(np.sum(a, axis=axis).shape, np.float64)
        assert xs.exact_nansum(a, axis=axis, out=out) is out
        assert_same(out, oracle_reduce(a, axis=axis, skip_nan=True))
        c = a + 1j * a[::-1]
        assert_same(xs.exact_nansum(c, axis=axis), oracle_reduce(c, axis=axis, skip_nan=True))


def test_empty_means_still_warn_in_blocks(tiny_blocks):
    a = np.full((4, 5), np.nan)
    a[0] = 1.0
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = xs.exact_nanmean(a, axis=1)
    assert got[0] == 1.0 and np.isnan(got[1:]).all()
