"""exact_var, exact_std and their nan-variants: bit for bit against an exact
Fraction oracle (the variance about the exact mean, rounded once; the
standard deviation its correctly rounded square root)."""

import functools
import math
import warnings
from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given
from hypothesis import strategies as st
from oracle import (
    BFLOAT16,
    COMPLEX64,
    COMPLEX128,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    terms_of,
)
from oracle_moments import check, var_result_dtype
from strategies import arrays_1d

import xsumufunc as xs
from xsumufunc._core import moments as _moments

REAL = [FLOAT64, FLOAT32, FLOAT16, BFLOAT16]
INPUTS = REAL + [np.dtype(np.int32), np.dtype(np.bool_), COMPLEX128, COMPLEX64]
# Non-integral ddofs too: n - ddof is an exact rational (0.1: the float's value).
DDOFS = [0, 1, 2, 5, 0.5, 1.5, 0.1]


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return func(*args, **kwargs)


@pytest.mark.parametrize("std", [False, True], ids=["var", "std"])
@pytest.mark.parametrize("dtype", INPUTS, ids=str)
@given(data=st.data(), ddof=st.sampled_from(DDOFS))
def test_matches_the_oracle(std, dtype, data, ddof):
    x = data.draw(arrays_1d(dtype))
    func = xs.exact_std if std else xs.exact_var
    got = _quiet(func, x, ddof=float(ddof))
    check(got, terms_of(x), ddof, var_result_dtype(dtype), std)


@pytest.mark.parametrize("std", [False, True], ids=["var", "std"])
@given(data=st.data(), target=st.sampled_from(REAL))
def test_rounds_once_into_the_requested_dtype(std, data, target):
    x = data.draw(arrays_1d(FLOAT64))
    func = xs.exact_std if std else xs.exact_var
    check(_quiet(func, x, dtype=target), terms_of(x), 0, target, std)
    out = np.empty((), target)
    assert _quiet(func, x, out=out) is out
    check(out[()], terms_of(x), 0, target, std)


@pytest.mark.parametrize("std", [False, True], ids=["var", "std"])
@given(data=st.data(), ddof=st.sampled_from(DDOFS))
def test_nan_variants_leave_nans_out(std, data, ddof):
    x = data.draw(arrays_1d(FLOAT64))
    func = xs.exact_nanstd if std else xs.exact_nanvar
    kept = [t for t in terms_of(x) if not math.isnan(t)]
    check(_quiet(func, x, ddof=float(ddof)), kept, ddof, FLOAT64, std)


@given(data=st.data())
def test_axes_keepdims_and_where(data):
    x = data.draw(arrays_1d(FLOAT64, specials=False, min_size=6))[:6].reshape(2, 3)
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=6, max_size=6))).reshape(2, 3)
    got = _quiet(xs.exact_var, x, axis=1, where=mask, keepdims=True)
    assert got.shape == (2, 1)
    for i in range(2):
        check(got[i, 0], [v for v, m in zip(x[i].tolist(), mask[i]) if m], 0, FLOAT64, False)
    got = _quiet(xs.exact_std, x, axis=(0, 1), ddof=1)
    check(got, x.reshape(-1).tolist(), 1, FLOAT64, True)
    got = xs.exact_var(x, axis=0, correction=1)
    for j in range(3):
        check(got[j], x[:, j].tolist(), 1, FLOAT64, False)


@pytest.mark.parametrize("std", [False, True], ids=["var", "std"])
@given(data=st.data(), ddof=st.sampled_from(DDOFS), skip_nan=st.booleans(),
       dtype=st.sampled_from([FLOAT64, FLOAT32, np.dtype(np.int64)]))
def test_short_rows_in_the_compiled_loop_and_as_moments_agree(std, data, ddof, skip_nan, dtype):
    """Rows of up to moments.ROW_LOOP_TERMS terms go to the compiled loop
    first (src/kernels/moving/xs_moving_var.c), the rows it leaves to the exact moments:
    the same bits as the moments alone, and the oracle, with where masks and
    NaNs left out."""
    rows = data.draw(st.integers(1, 5))
    x = data.draw(arrays_1d(dtype, min_size=rows))
    x = x[: len(x) // rows * rows].reshape(rows, -1)
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=x.size, max_size=x.size)),
                    bool).reshape(x.shape)
    where = mask if data.draw(st.booleans()) else True
    func = {(False, False): xs.exact_var, (False, True): xs.exact_nanvar,
            (True, False): xs.exact_std, (True, True): xs.exact_nanstd}[std, skip_nan]
    got = _quiet(func, x, axis=1, ddof=ddof, where=where)
    with mock.patch.object(_moments, "LOOP_RESULTS", set()):
        exact = _quiet(func, x, axis=1, ddof=ddof, where=where)
    assert_same(got, exact)
    keep = np.broadcast_to(where, x.shape)
    for i in range(rows):
        terms = [t for t, k in zip(terms_of(x[i]), keep[i]) if k and
                 not (skip_nan and isinstance(t, float) and math.isnan(t))]
        check(got[i], terms, ddof, var_result_dtype(dtype), std)


def test_many_short_rows_and_the_longest_the_loop_takes():
    """Rows decided by the compiled loop (normal data, a large offset mean,
    constant rows) and rows it leaves to the exact moments (a value above
    its range, one below it), at and beyond moments.ROW_LOOP_TERMS, each
    against the oracle."""
    rng = np.random.default_rng(26)
    n = _moments.ROW_LOOP_TERMS
    x = rng.standard_normal((6, n + 1))
    x[1] += 1e8
    x[2] = 0.75
    x[3, 5] = 1e300
    x[4, 1] = 2.0**-500
    for cols in (n, n + 1, 3):
        got = xs.exact_var(x[:, :cols], axis=1, ddof=1)
        std = xs.exact_std(x[:, :cols], axis=1)
        for i in range(len(x)):
            check(got[i], x[i, :cols].tolist(), 1, FLOAT64, False)
            check(std[i], x[i, :cols].tolist(), 0, FLOAT64, True)


def test_huge_and_tiny_values_do_not_overflow_or_underflow():
    x = np.array([1e308, 1e308, 1e308])          # np.var: the sum overflows, inf or nan
    check(xs.exact_var(x), x.tolist(), 0, FLOAT64, False)
    assert xs.exact_var(x) == 0.0
    x = np.array([1e154, -1e154, 3e153])
    check(xs.exact_var(x), x.tolist(), 0, FLOAT64, False)
    check(xs.exact_std(x), x.tolist(), 0, FLOAT64, True)
    tiny = np.array([5e-324, 0.0, 1e-320])
    check(xs.exact_var(tiny), tiny.tolist(), 0, FLOAT64, False)
    check(xs.exact_std(tiny), tiny.tolist(), 0, FLOAT64, True)
    mixed = np.array([1e300, -1e-300, 3.0, 1e-320, -1e300])
    check(xs.exact_var(mixed, ddof=1), mixed.tolist(), 1, FLOAT64, False)
    check(xs.exact_std(mixed, ddof=1), mixed.tolist(), 1, FLOAT64, True)


def test_degrees_of_freedom_and_specials_as_numpy():
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0"):
        assert xs.exact_var(np.array([1.0, 2.0]), ddof=2) == np.inf
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0"):
        assert np.isnan(xs.exact_var(np.array([3.0, 3.0]), ddof=3))
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0"):
        assert np.isnan(xs.exact_nanstd(np.array([np.nan, np.nan])))
    assert np.isnan(xs.exact_var(np.array([np.inf, 1.0])))
    assert np.isnan(xs.exact_std(np.array([np.nan, 1.0])))


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="ddof and correction"):
        xs.exact_var(np.ones(3), ddof=1, correction=1)
    with pytest.raises(TypeError, match="ddof must be a real number"):
        xs.exact_var(np.ones(3), ddof="1")
    with pytest.raises(ValueError, match="ddof must be a finite real number"):
        xs.exact_std(np.ones(3), ddof=float("nan"))
    with pytest.raises(ValueError, match="ddof must be a finite real number"):
        xs.exact_var(np.ones(3), correction=float("inf"))
    assert xs.exact_var(np.array([1.0, 3.0]), correction=1.0) == 2.0
    with pytest.raises(TypeError, match="exact_std: dtype complex128 is not supported"):
        xs.exact_std(np.ones(3), dtype=np.complex128)
    with pytest.raises(TypeError, match="unsupported input dtype"):
        xs.exact_var(np.array(["a"]))
    with pytest.raises(ValueError, match="out has shape"):
        xs.exact_var(np.ones((2, 3)), axis=1, out=np.empty(3))
    with pytest.raises(np.exceptions.AxisError):
        xs.exact_nanvar(np.ones(3), axis=1)


def test_pandas_ddof_one_through_partial():
    """pandas' agg passes only the data: ``functools.partial`` gives its ddof=1."""
    pd = pytest.importorskip("pandas")
    sample_var = functools.partial(xs.exact_var, ddof=1)
    sample_var.__name__ = "sample_var"              # the row label pandas shows

    x = np.array([0.1, 0.2, 0.4, 1e10])
    df = pd.DataFrame({"x": x})
    got = df.agg(sample_var)
    assert list(got.index) == ["x"]
    check(np.float64(got["x"]), x.tolist(), 1, FLOAT64, False)
    table = df.agg([sample_var, xs.exact_var])
    assert list(table.index) == ["sample_var", "exact_var"]
    check(np.float64(table["x"]["exact_var"]), x.tolist(), 0, FLOAT64, False)


@pytest.mark.parametrize("std", [False, True], ids=["var", "std"])
@given(data=st.data(), ddof=st.sampled_from(DDOFS), dtype=st.sampled_from(
    [FLOAT64, FLOAT32, COMPLEX128]))
def test_dask_gives_the_exact_result_for_every_chunking(std, data, ddof, dtype):
    da = pytest.importorskip("dask.array")
    x = data.draw(arrays_1d(dtype, min_size=1))
    chunk = data.draw(st.integers(1, max(1, x.size)))
    func = xs.exact_std if std else xs.exact_var
    lazy = func(da.from_array(x, chunks=chunk), ddof=float(ddof))
    assert isinstance(lazy, da.Array)
    got = _quiet(lazy.compute)
    check(got, terms_of(x), ddof, var_result_dtype(dtype), std)
    rows = np.stack([x, x[::-1]])
    got = _quiet(func(da.from_array(rows, chunks=(1, chunk)), axis=1, ddof=float(ddof)).compute)
    for i in range(2):
        check(got[i], terms_of(rows[i]), ddof, var_result_dtype(dtype), std)


@pytest.mark.parametrize("std", [False, True], ids=["var", "std"])
@given(data=st.data(), correction=st.sampled_from([0.0, 1.0, 0.5, 2.25]),
       dtype=st.sampled_from([FLOAT64, FLOAT32]))
def test_array_api_var_and_std_are_exact(std, data, correction, dtype):
    from xsumufunc import array_api as xp

    x = data.draw(arrays_1d(dtype))
    func = xp.std if std else xp.var
    got = _quiet(func, x, correction=correction)
    assert type(got) is np.ndarray and got.shape == ()
    check(got[()], terms_of(x), Fraction(correction), dtype, std)
    strict = pytest.importorskip("array_api_strict")
    got = _quiet(func, strict.asarray(x), correction=correction)
    assert type(got).__module__.startswith("array_api_strict")
    check(np.asarray(got)[()], terms_of(x), Fraction(correction), dtype, std)
