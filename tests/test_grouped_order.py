"""The grouped functions' ordering by group in bounded memory (issue 28):
a counting sort a chunk of codes at a time into a 32-bit order, none when
the codes already ascend, and the values gathered batch by batch.  Every
chunk and batch size gives the stable order and, for every group, the
exact oracle's sum, mean, variance and standard deviation."""

import math
import warnings
from unittest import mock

import numpy as np
import pytest
from helpers import assert_same, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import COMPLEX128, FLOAT32, FLOAT64, exact_sum_oracle, terms_of
from oracle_moments import check, var_result_dtype
from oracle_products import exact_mean_oracle
from strategies import arrays_1d

import xsumufunc as xs
from xsumufunc._core import grouped as _grouped

INT64 = np.dtype(np.int64)


def _codes(data, size, ngroups, ascending):
    codes = data.draw(st.lists(st.integers(-1 if not ascending else 0, max(ngroups - 1, 0)),
                               min_size=size, max_size=size)) if ngroups else [-1] * size
    return np.array(sorted(codes) if ascending else codes, dtype=np.int64)


@pytest.mark.parametrize("chunk", [1, 3, 64])
@given(data=st.data(), skip_nan=st.booleans(), ascending=st.booleans(),
       wide=st.booleans())
def test_the_order_is_the_stable_order_of_the_kept_values(chunk, data, skip_nan, ascending,
                                                          wide):
    """_order against NumPy's stable argsort of the kept positions (codes
    >= 0, and not NaN with skip_nan), for codes below and above 2**16; None
    exactly when every value is kept and the codes ascend."""
    values = data.draw(arrays_1d(FLOAT64))
    few = data.draw(st.integers(0, 7))
    codes = _codes(data, values.size, few, ascending)
    shift = (1 << 17) if wide else 0             # codes beyond 16 bits: two radix digits
    codes[codes >= 0] += shift
    ngroups = few + shift
    with mock.patch.object(_grouped, "_ORDER_CHUNK", chunk):
        order, counts = _grouped._order(values, codes, ngroups, skip_nan)
    kept = codes >= 0
    if skip_nan:
        kept &= ~np.isnan(values)
    expected = np.flatnonzero(kept)[np.argsort(codes[kept], kind="stable")]
    assert counts.dtype == INT64
    assert counts.tolist() == np.bincount(codes[kept], minlength=ngroups).tolist()
    if order is None:
        assert kept.all() and np.all(np.diff(codes) >= 0)
        assert expected.tolist() == list(range(values.size))
    else:
        # 4 bytes a value, except a single chunk's order (sorted at once).
        assert order.dtype == (np.int32 if values.size > chunk else np.intp)
        assert order.tolist() == expected.tolist()
        assert not (kept.all() and np.all(np.diff(codes) >= 0))


def _group_terms(values, codes, g, skip_nan):
    terms = terms_of(values[codes == g])
    if skip_nan:
        terms = [t for t in terms if not (isinstance(t, float) and math.isnan(t))
                 and not (isinstance(t, complex) and (math.isnan(t.real) or math.isnan(t.imag)))]
    return terms


@pytest.mark.parametrize("sizes", [(1, 1), (3, 2), (5, 1 << 18)], ids=["1-1", "3-2", "5-default"])
@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32, INT64, COMPLEX128], ids=str)
@given(data=st.data(), skip_nan=st.booleans(), ascending=st.booleans())
def test_every_chunk_and_batch_size_gives_the_oracle(sizes, dtype, data, skip_nan, ascending):
    """Order chunks and value batches of a few values (so that groups span
    chunks and batches), codes random (with -1: left out) or ascending:
    each group's sum, mean, variance and root against the exact oracle."""
    values = data.draw(arrays_1d(dtype))
    ngroups = data.draw(st.integers(0, 6))
    codes = _codes(data, values.size, ngroups, ascending)
    result = var_result_dtype(dtype)
    chunk, batch = sizes
    with mock.patch.object(_grouped, "_ORDER_CHUNK", chunk), \
            mock.patch.object(_grouped, "_BATCH_VALUES", batch), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        sums = quiet(xs.exact_grouped_sum, values, codes, ngroups, skip_nan=skip_nan)
        means = quiet(xs.exact_grouped_mean, values, codes, ngroups, skip_nan=skip_nan)
        var = quiet(xs.exact_grouped_var, values, codes, ngroups, skip_nan=skip_nan, ddof=1)
        std = quiet(xs.exact_grouped_std, values, codes, ngroups, skip_nan=skip_nan)
    sum_dtype = sums.dtype
    for g in range(ngroups):
        terms = _group_terms(values, codes, g, skip_nan)
        assert_same(sums[g], exact_sum_oracle(terms, sum_dtype), f"sum of group {g}")
        assert_same(means[g], exact_mean_oracle(terms, sum_dtype), f"mean of group {g}")
        check(var[g], terms, 1, result, False)
        check(std[g], terms, 0, result, True)


def test_many_empty_groups_are_nan_without_a_step_each():
    """Groups with no values (here most of 2**16) are NaN, as exact_var of
    nothing, beside the exact variances of the others (the oracle)."""
    rng = np.random.default_rng(28)
    values = rng.standard_normal(300)
    codes = rng.integers(0, 5, 300) * 1000
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        var = xs.exact_grouped_var(values, codes, 1 << 16, ddof=1)
    for g in range(1 << 16):
        terms = terms_of(values[codes == g])
        if terms or g % 997 == 0:
            check(var[g], terms, 1, FLOAT64, False)
