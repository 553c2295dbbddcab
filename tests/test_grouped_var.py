"""exact_grouped_var and exact_grouped_std: element g is exact_var (exact_std)
of the values of group g, bit for bit, and the exact Fraction oracle
(oracle_moments) rounded once; groups left out, empty, or with
n - ddof <= 0 as exact_var gives; the moments of all groups built at once
(_core/grouped.py) in batches of every size."""

import math
import warnings
from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from helpers import assert_same, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import (
    BFLOAT16,
    COMPLEX64,
    COMPLEX128,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    round_fraction,
    terms_of,
)
from oracle_moments import check, var_oracle, var_result_dtype
from strategies import arrays_1d

import xsumufunc as xs
from xsumufunc._core import grouped as _grouped
from xsumufunc._core import moments as _moments
from xsumufunc._ufuncs import _grouped_var_ufunc

INT64 = np.dtype(np.int64)
DTYPES = [FLOAT64, FLOAT32, FLOAT16, BFLOAT16, INT64, np.dtype(np.bool_), COMPLEX128,
          COMPLEX64]
# Batches of at most this many padded values (1: a batch per group).
BATCHES = {"default": _grouped._BATCH_VALUES, "tiny": 3, "one": 1}


def _is_nan(term):
    if isinstance(term, complex):
        return math.isnan(term.real) or math.isnan(term.imag)
    return isinstance(term, float) and math.isnan(term)


def _group_terms(values, codes, g, skip_nan):
    terms = terms_of(values[codes == g])
    return [t for t in terms if not _is_nan(t)] if skip_nan else terms


def _codes(data, size, ngroups):
    """Codes for `size` values: -1 (left out) or a group, some groups empty."""
    return np.array(data.draw(st.lists(st.integers(-1, max(ngroups - 1, -1)),
                                       min_size=size, max_size=size)), dtype=np.int64)


@pytest.mark.parametrize("batch", sorted(BATCHES))
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@given(data=st.data(), ddof=st.sampled_from([0, 1, 2, 5, 0.5, 2.5]), skip_nan=st.booleans())
def test_each_group_is_exact_var_of_its_values_and_the_oracle(batch, dtype, data, ddof,
                                                               skip_nan):
    values = data.draw(arrays_1d(dtype))
    ngroups = data.draw(st.integers(0, 6))
    codes = _codes(data, values.size, ngroups)
    result = var_result_dtype(dtype)
    with mock.patch.object(_grouped, "_BATCH_VALUES", BATCHES[batch]):
        var = quiet(xs.exact_grouped_var, values, codes, ngroups, ddof=ddof,
                    skip_nan=skip_nan)
        std = quiet(xs.exact_grouped_std, values, codes, ngroups, ddof=ddof,
                    skip_nan=skip_nan)
    assert var.shape == std.shape == (ngroups,)
    assert var.dtype == std.dtype == result
    one_var, one_std = ((xs.exact_nanvar, xs.exact_nanstd) if skip_nan
                        else (xs.exact_var, xs.exact_std))
    for g in range(ngroups):
        mine = values[codes == g]
        assert_same(var[g], quiet(one_var, mine, ddof=ddof), f"group {g}")
        assert_same(std[g], quiet(one_std, mine, ddof=ddof), f"group {g}")
        terms = _group_terms(values, codes, g, skip_nan)
        check(var[g], terms, ddof, result, False)
        check(std[g], terms, ddof, result, True)


@pytest.mark.parametrize("target", [FLOAT64, FLOAT32, FLOAT16, BFLOAT16], ids=str)
@given(data=st.data())
def test_rounds_once_into_the_requested_dtype(target, data):
    values = data.draw(arrays_1d(FLOAT64))
    ngroups = data.draw(st.integers(1, 4))
    codes = _codes(data, values.size, ngroups)
    var = quiet(xs.exact_grouped_var, values, codes, ngroups, dtype=target, ddof=1)
    std = quiet(xs.exact_grouped_std, values, codes, ngroups, dtype=target, correction=1)
    assert var.dtype == std.dtype == target
    for g in range(ngroups):
        terms = _group_terms(values, codes, g, False)
        check(var[g], terms, 1, target, False)
        check(std[g], terms, 1, target, True)


@pytest.mark.parametrize("dtype", [FLOAT64, FLOAT32, INT64], ids=str)
@given(data=st.data(), ddof=st.sampled_from([0, 1, 3]), std=st.booleans())
def test_the_compiled_loop_and_the_exact_path_agree(dtype, data, ddof, std):
    """Every group the compiled loop (src/kernels/moving/xs_moving_var.c) decides equals
    what the exact moments alone give."""
    values = data.draw(arrays_1d(dtype))
    ngroups = data.draw(st.integers(1, 5))
    codes = _codes(data, values.size, ngroups)
    func = xs.exact_grouped_std if std else xs.exact_grouped_var
    got = quiet(func, values, codes, ngroups, ddof=ddof)
    with mock.patch.object(_moments, "LOOP_RESULTS", set()):
        exact = quiet(func, values, codes, ngroups, ddof=ddof)
    assert_same(got, exact)


def _loop(values, ends, ddof=1, std=False, result=FLOAT64):
    out, decided = np.empty(len(ends), result), np.empty(len(ends), bool)
    with np.errstate(all="ignore"):
        _grouped_var_ufunc(np.asarray(values, FLOAT64), np.asarray(ends, INT64), ddof, std,
                           out=(out, decided), signature=(FLOAT64, INT64, INT64, np.dtype(bool),
                                                          result, np.dtype(bool)))
    return out, decided


@pytest.mark.parametrize("std", [False, True])
@pytest.mark.parametrize("result", [FLOAT64, FLOAT32, BFLOAT16], ids=str)
def test_the_compiled_loop_decides_ordinary_groups(std, result):
    """Normal values, lognormal ones, a large mean (1e8 + N(0, 1): the
    variance cancels 16 digits, decided by anchoring at the mean), constant
    groups: all decided, each against the oracle; what it must leave to the
    exact path (values beyond its range, no more values than ddof, ends out
    of order) it leaves, and NaN or Inf give NaN."""
    rng = np.random.default_rng(7 + std)
    sizes = rng.integers(2, 60, 120)
    ends = np.cumsum(sizes)
    n = int(ends[-1])
    kinds = [rng.standard_normal(n), rng.lognormal(0, 3, n) * rng.choice([-1, 1], n),
             1e8 + rng.standard_normal(n), np.repeat(rng.standard_normal(n // 4 + 1), 4)[:n]]
    for values in kinds:
        out, decided = _loop(values, ends, std=std, result=result)
        if values is not kinds[-1]:
            # bfloat16: a value within 2^-9 of a power of two is left to the
            # exact path (xs_running_round takes the smaller half gap there).
            assert decided.all() if result != BFLOAT16 else decided.mean() > 0.9
        starts = ends - sizes
        for g in range(0, len(ends), 7):
            if decided[g]:
                check(out[g], terms_of(values[starts[g]:ends[g]]), 1, result, std)
    values = rng.standard_normal(12)
    values[3], values[7], values[10] = 1e300, np.nan, np.inf
    out, decided = _loop(values, [2, 5, 6, 8, 9, 12, 12], std=std, result=result)
    # [0, 2) decided; [2, 5) holds 1e300: left; [5, 6) one value, ddof 1:
    # left; [6, 8) NaN; [8, 9) one value: left; [9, 12) Inf: NaN; [12, 12)
    # empty: left.
    assert decided.tolist() == [True, False, False, True, False, True, False]
    assert np.isnan(out[[3, 5]].astype(np.float64)).all()
    _, decided = _loop(values, [2, 1, 12])       # ends out of order: none from there
    assert decided.tolist() == [True, False, False]


def test_integers_beyond_2_53_are_exact():
    """float64 cannot hold these values: their halves are summed exactly."""
    big = 2**62
    values = np.array([big + 1, big + 3, big - 7, 2**53 + 1, -(2**53) - 1, 5,
                       -(2**63), 2**63 - 1], dtype=np.int64)
    codes = np.array([0, 0, 0, 1, 1, 2, 3, 3])
    var = quiet(xs.exact_grouped_var, values, codes, 5, ddof=1)
    for g, members in enumerate([[big + 1, big + 3, big - 7], [2**53 + 1, -(2**53) - 1],
                                 [5], [-(2**63), 2**63 - 1], []]):
        exact = var_oracle(members, 1)
        if exact in ("nan", "inf"):
            assert np.isnan(var[g]) and exact == "nan"
        else:
            assert_same(var[g], round_fraction(exact, FLOAT64))
    # The first group: mean 2**62 - 1, deviations 2, 4, -6: variance 56 / 2 (its
    # values as float64 would all be 2**62: variance 0).
    assert var[0] == 28.0


def test_groups_of_every_size_class_and_batch():
    """Groups of 1 to 3000 values (many power-of-two classes, several
    batches per class with a small batch), codes left out, empty groups:
    each group bit for bit as exact_var of its values."""
    rng = np.random.default_rng(20261126)
    sizes = np.concatenate([rng.integers(1, 40, 300), [0, 0, 1, 2, 3, 4, 5, 1024, 1025, 3000]])
    codes = np.repeat(np.arange(sizes.size), sizes)
    codes[rng.random(codes.size) < 0.05] = -1
    rng.shuffle(codes)
    values = rng.standard_normal(codes.size) * 10.0 ** rng.integers(-30, 30, codes.size)
    values[rng.random(codes.size) < 0.01] = np.nan
    for batch in (1 << 20, 257):
        with mock.patch.object(_grouped, "_BATCH_VALUES", batch):
            var = quiet(xs.exact_grouped_var, values, codes, sizes.size + 2, ddof=1,
                        skip_nan=True)
            std = quiet(xs.exact_grouped_std, values, codes, sizes.size + 2, skip_nan=True)
        want_var = np.array([quiet(xs.exact_nanvar, values[codes == g], ddof=1)
                             for g in range(sizes.size + 2)])
        want_std = np.array([quiet(xs.exact_nanstd, values[codes == g])
                             for g in range(sizes.size + 2)])
        assert_same(var, want_var)
        assert_same(std, want_std)
    for g in (0, sizes.size - 1):           # two against the oracle itself
        terms = _group_terms(values, codes, g, True)
        check(var[g], terms, 1, FLOAT64, False)


def test_empty_and_single_value_groups_warn_once_as_numpy():
    values = np.array([1.0, 2.0, 4.0, 7.0])
    codes = np.array([0, 0, 2, -1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        var = xs.exact_grouped_var(values, codes, 3, ddof=1)
    assert [str(w.message) for w in caught] == ["Degrees of freedom <= 0 for slice"]
    assert caught[0].category is RuntimeWarning and caught[0].filename == __file__
    assert_same(var, np.array([0.5, np.nan, np.nan]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert_same(xs.exact_grouped_std(values[:2], codes[:2], 1, ddof=1),
                    np.array([math.sqrt(0.5)]))
    assert caught == []
    # n - ddof <= 0 with spread: inf, as exact_var ([1, 2] with ddof=2).
    assert_same(quiet(xs.exact_grouped_var, values, codes, 3, ddof=2),
                np.array([np.inf, np.nan, np.nan]))
    assert_same(xs.exact_grouped_var(values, np.full(4, -1), 0), np.empty(0))
    # A NaN or infinite value makes its group NaN (not the others).
    assert_same(xs.exact_grouped_var([1.0, np.inf, 3.0, 5.0], [0, 0, 1, 1], 2),
                np.array([np.nan, 1.0]))


def test_correction_is_ddof_and_float_integral_ddof_is_taken():
    values = np.array([0.1, 0.2, 0.7, 3.0, 4.5])
    codes = np.array([0, 0, 0, 1, 1])
    by_ddof = xs.exact_grouped_var(values, codes, 2, ddof=1)
    assert_same(xs.exact_grouped_var(values, codes, 2, correction=1), by_ddof)
    assert_same(xs.exact_grouped_var(values, codes, 2, ddof=1.0), by_ddof)
    assert_same(by_ddof[0], round_fraction(var_oracle([0.1, 0.2, 0.7], Fraction(1)), FLOAT64))


def test_bad_arguments_are_clear_errors():
    v, c = np.array([1.0, 2.0]), np.array([0, 0])
    with pytest.raises(TypeError, match="exact_grouped_var: ddof must be a real number"):
        xs.exact_grouped_var(v, c, 1, ddof="1")
    with pytest.raises(ValueError, match="exact_grouped_std: ddof must be a finite real"):
        xs.exact_grouped_std(v, c, 1, ddof=float("inf"))
    with pytest.raises(ValueError, match="ddof and correction"):
        xs.exact_grouped_var(v, c, 1, ddof=1, correction=1)
    with pytest.raises(ValueError, match="exact_grouped_var: codes must be integers of the "
                                         "same shape"):
        xs.exact_grouped_var(v, [0], 1)
    with pytest.raises(ValueError, match="codes must be integers"):
        xs.exact_grouped_var(v, [0.0, 1.0], 2)
    with pytest.raises(ValueError, match="exact_grouped_std: ngroups must be a non-negative"):
        xs.exact_grouped_std(v, c, -1)
    with pytest.raises(TypeError, match="ngroups must be an integer"):
        xs.exact_grouped_var(v, c, "two")
    with pytest.raises(ValueError, match="codes must be below ngroups"):
        xs.exact_grouped_var(v, [0, 2], 2)
    with pytest.raises(ValueError, match="values must be 1-D"):
        xs.exact_grouped_var(np.ones((2, 2)), np.zeros((2, 2), int), 1)
    with pytest.raises(TypeError, match="exact_grouped_var: dtype complex128 is not supported"):
        xs.exact_grouped_var(v, c, 1, dtype=np.complex128)
    with pytest.raises(TypeError, match="unsupported input dtype"):
        xs.exact_grouped_std(np.array(["x", "y"]), c, 1)
    with pytest.raises(TypeError, match="3 positional arguments"):
        xs.exact_grouped_var(v, c, 1, 1)                    # ddof is keyword-only


@pytest.mark.parametrize("std", [False, True], ids=["var", "std"])
@given(data=st.data(), dtype=st.sampled_from([FLOAT64, FLOAT32, COMPLEX128, INT64]),
       ddof=st.sampled_from([0, 1]), skip_nan=st.booleans())
def test_dask_values_give_the_numpy_result_for_every_chunking(std, data, dtype, ddof,
                                                              skip_nan):
    da = pytest.importorskip("dask.array")
    values = data.draw(arrays_1d(dtype, min_size=1))
    ngroups = data.draw(st.integers(0, 4))
    codes = _codes(data, values.size, ngroups)
    chunk = data.draw(st.integers(1, values.size))
    func = xs.exact_grouped_std if std else xs.exact_grouped_var
    want = quiet(func, values, codes, ngroups, ddof=ddof, skip_nan=skip_nan)
    lazy = func(da.from_array(values, chunks=chunk), codes, ngroups, ddof=ddof,
                skip_nan=skip_nan)
    assert isinstance(lazy, da.Array)
    assert_same(quiet(lazy.compute), want)


def test_dask_bad_arguments_are_clear_errors():
    da = pytest.importorskip("dask.array")
    v = da.ones(4, chunks=2)
    with pytest.raises(ValueError, match="exact_grouped_var: codes must be integers"):
        xs.exact_grouped_var(v, np.zeros(3, int), 1)
    with pytest.raises(ValueError, match="exact_grouped_std: ngroups must be"):
        xs.exact_grouped_std(v, np.zeros(4, int), -2)
    with pytest.raises(ValueError, match="ddof must be a finite real number"):
        xs.exact_grouped_var(v, np.zeros(4, int), 1, ddof=float("nan"))
