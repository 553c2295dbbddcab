"""The small findings of issue 28: one rule for integer arguments, exact
integer `initial`, pandas' window rule in the accessor, an empty axis,
invalid XSUMUFUNC_NUM_THREADS values, vector_norm of Dask arrays, moving
means of subnormal values under errstate(all='raise'), Kahan updates
computed in float32, and the raw sum gufuncs on 64-bit integers."""

import os
import subprocess
import sys
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from helpers import assert_same
from oracle import FLOAT64, exact_sum_oracle, round_fraction, terms_of
from oracle_products import exact_mean_oracle
from oracle_roots import exact_square_sum, rounded_sqrt

import xsumufunc as xs
from xsumufunc import array_api as xp

X = np.array([1.0, 2.0, 4.0, 8.0])


# ---- one rule for integer arguments ----------------------------------------

def _dask_grouped_sum(ngroups):
    da = pytest.importorskip("dask.array")
    codes = da.from_array(np.zeros(X.size, np.int64), chunks=2)
    return xs.exact_grouped_sum(da.from_array(X, chunks=2), codes, ngroups).compute()


def _regroup(ngroups):
    state = xs.state.grouped_sum_state(X, [0, 0, 0, 0], 1)
    return xs.state.regroup(state, np.array([0]), ngroups)


def _frame_cov(min_periods):
    pd = pytest.importorskip("pandas")
    import xsumufunc.pandas_accessor  # noqa: F401  (registers .exact)
    return pd.DataFrame({"a": X, "b": X}).exact.cov(min_periods=min_periods)


def _dask_frame_cov(min_periods):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    from xsumufunc.dask_dataframe import exact_cov
    frame = dd.from_pandas(pd.DataFrame({"a": X, "b": X}), npartitions=2)
    return exact_cov(frame, min_periods=min_periods).compute()


@pytest.mark.parametrize("call", [
    _dask_grouped_sum, _regroup, _frame_cov, _dask_frame_cov,
    lambda v: xs.exact_grouped_sum(X, [0, 0, 0, 0], v),
    lambda v: xs.exact_grouped_var(X, [0, 0, 0, 0], v),
    lambda v: xs.exact_moving_sum(X, v),
    lambda v: xs.exact_moving_var(X, v),
    lambda v: xs.exact_moving_sum(X, 2, min_count=v),
    lambda v: xs.exact_sum(X.reshape(2, 2), axis=v),
    lambda v: xs.exact_sum(X.reshape(2, 2), axis=(v,)),
    lambda v: xs.exact_var(X.reshape(2, 2), axis=v),
    lambda v: xs.exact_add.accumulate(X.reshape(2, 2), axis=v),
], ids=["dask ngroups", "regroup ngroups", "cov min_periods", "dask cov min_periods",
        "ngroups", "grouped-var ngroups", "window", "var window", "min_count", "axis",
        "axis tuple", "var axis", "accumulate axis"])
def test_integer_arguments_follow_one_rule(call):
    """Regression (issue 28): ngroups=2.0 was accepted while window=2.0 was
    refused, window=True ran as 1 and axis=(True,) was taken as axis 1.
    Now every integer argument takes what operator.index takes, no bool."""
    for bad in (2.0, True, np.True_, "2", 1.5):
        with pytest.raises(TypeError, match="must be (None, )?an integer"):
            call(bad)
    for good in (1, np.int64(1), np.array(1), np.uint8(1)):
        call(good)


def test_dask_grouped_codes_are_checked_as_numpy_checks_them():
    da = pytest.importorskip("dask.array")
    values = da.from_array(X, chunks=2)
    with pytest.raises(ValueError, match="codes must be integers"):
        xs.exact_grouped_sum(values, da.from_array(np.zeros(X.size), chunks=2), 1)
    with pytest.raises(ValueError, match="ngroups must be a non-negative integer"):
        xs.exact_grouped_sum(values, da.from_array(np.zeros(X.size, np.int64), chunks=2), -1)


def test_integer_initial_is_exact_beyond_64_bits():
    """Regression (issue 28): initial=2**70 was refused.  An integer initial
    is one more exact term, however wide: 2**70 + 3 is not rounded first."""
    big = 2**70 + 3
    assert_same(xs.exact_sum(np.array([-(2.0**70)]), initial=big),
                exact_sum_oracle([-(2.0**70), big], FLOAT64))
    assert xs.exact_sum(np.array([-(2.0**70)]), initial=big) == 3.0
    assert_same(xs.exact_sum(np.array([1, 2]), initial=-big),
                exact_sum_oracle([1, 2, -big], FLOAT64))
    assert_same(xs.exact_sum(np.zeros((2, 3)), axis=1, initial=2**200 + 1),
                np.full(2, exact_sum_oracle([2**200 + 1], FLOAT64)))
    assert_same(xs.exact_nansum(np.array([np.nan, -(2.0**90)]), initial=2**90 + 2**10),
                exact_sum_oracle([2.0**10], FLOAT64))
    with pytest.raises(ValueError, match="initial=.*beyond the float64 range"):
        xs.exact_sum(X, initial=2**1100)
    with pytest.raises(TypeError, match="initial must be"):
        xs.exact_sum(X, initial="1")


# ---- Series.exact.rolling_*: pandas' window rule ---------------------------

def _rolling_oracle(values, window, min_periods, mean):
    """pandas' rule: the window ending at i holds values[i-window+1..i] (cut
    at 0); NaN when it holds fewer than min_periods (default window)
    values; with none and min_periods=0 a sum is 0 and a mean NaN."""
    need = window if min_periods is None else min_periods
    out = []
    for i in range(len(values)):
        terms = [v for v in values[max(0, i - window + 1):i + 1] if not np.isnan(v)]
        if len(terms) < need or (mean and not terms):
            out.append(np.float64(np.nan))
        elif not terms:
            out.append(np.float64(0.0))
        else:
            out.append(exact_mean_oracle(terms, FLOAT64) if mean
                       else exact_sum_oracle(terms, FLOAT64))
    return np.array(out, FLOAT64)


@pytest.mark.parametrize("window,min_periods", [(10, None), (10, 1), (2, 0), (0, None),
                                                (3, 0), (1, None), (5, 3)])
@pytest.mark.parametrize("method", ["rolling_sum", "rolling_mean"])
def test_rolling_accepts_what_pandas_accepts(window, min_periods, method):
    """Regression (issue 28): a window longer than the series, an empty
    series and min_periods=0 were refused."""
    pd = pytest.importorskip("pandas")
    import xsumufunc.pandas_accessor  # noqa: F401  (registers .exact)
    values = np.array([1e100, np.nan, 1.0, -1e100, 3.0, np.nan, np.nan, 2.0**-1074])
    for data in (values, values[:0], values[:2], np.array([np.nan, np.nan])):
        s = pd.Series(data, index=np.arange(len(data)) * 2)
        got = getattr(s.exact, method)(window, min_periods)
        assert list(got.index) == list(s.index)
        assert_same(got.to_numpy(), _rolling_oracle(data, window, min_periods,
                                                    method == "rolling_mean"))


def test_rolling_variances_take_a_long_window_and_refuse_what_pandas_refuses():
    pd = pytest.importorskip("pandas")
    import xsumufunc.pandas_accessor  # noqa: F401
    s = pd.Series([1.0, 2.0, 4.0])
    got = s.exact.rolling_var(5, min_periods=2)
    assert np.isnan(got.iloc[0])
    assert_same(got.to_numpy()[1:], np.array([0.5, round_fraction(Fraction(7, 3), FLOAT64)]))
    assert np.isnan(s.exact.rolling_var(5).to_numpy()).all()
    with pytest.raises(ValueError, match="window must be an integer 0 or greater"):
        s.exact.rolling_sum(-1)
    with pytest.raises(ValueError, match=r"min_periods must be in \[0, window=2\]"):
        s.exact.rolling_sum(2, min_periods=3)
    with pytest.raises(TypeError, match="window must be an integer"):
        s.exact.rolling_sum(2.0)


def test_an_empty_axis_takes_any_window():
    """Regression (issue 28): on an empty axis the message said "window must
    be in [1, 1]"; an empty axis has no windows, so any window >= 1 gives
    an empty result, and window 0 says what is allowed."""
    for f in (xs.exact_moving_sum, xs.exact_moving_mean, xs.exact_moving_var):
        assert_same(f(np.zeros(0), 3), np.zeros(0))
        assert f(np.zeros((2, 0)), 5).shape == (2, 0)
        with pytest.raises(ValueError, match="window must be at least 1, not 0"):
            f(np.zeros(0), 0)
    with pytest.raises(ValueError, match=r"window must be in \[1, 4\]"):
        xs.exact_moving_sum(X, 5)


# ---- XSUMUFUNC_NUM_THREADS -------------------------------------------------

CHILD = """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import xsumufunc as xs
    xs.exact_sum([1.0, 2.0])
print(repr([str(w.message) for w in caught if "XSUMUFUNC_NUM_THREADS" in str(w.message)]))
print(xs.get_num_threads())
"""


@pytest.mark.parametrize("value", ["-1", "0", "2abc", "3.5", "0x10", "", "2 "])
def test_invalid_num_threads_values_warn_once_naming_the_value(value):
    """Regression (issue 28): these were taken as the default in silence."""
    env = dict(os.environ, XSUMUFUNC_NUM_THREADS=value)
    proc = subprocess.run([sys.executable, "-P", "-c", CHILD], capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    messages, threads = proc.stdout.strip().splitlines()
    messages = eval(messages)           # a list of str, printed by repr
    assert len(messages) == 1, messages
    assert repr(value) in messages[0] and "ignored" in messages[0]
    assert int(threads) >= 1


def test_a_valid_num_threads_value_does_not_warn():
    env = dict(os.environ, XSUMUFUNC_NUM_THREADS="3")
    proc = subprocess.run([sys.executable, "-P", "-c", CHILD], capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines() == ["[]", "3"]


# ---- vector_norm of Dask arrays --------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("ord", [2, 1])
def test_vector_norm_takes_dask_arrays(axis, ord):
    """Regression (issue 28): vector_norm refused Dask arrays ("x must be an
    array, not Array") while every other public function took them."""
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 5)) * np.exp(rng.uniform(-300, 300, (6, 5)))
    x[0, 0] = 2.0**-1074
    lazy = xp.linalg.vector_norm(da.from_array(x, chunks=(2, 3)), axis=axis, ord=ord)
    assert isinstance(lazy, da.Array)
    got = lazy.compute()
    assert_same(got, xp.linalg.vector_norm(x, axis=axis, ord=ord))
    if ord == 2 and axis == 1:
        assert_same(got, np.array([rounded_sqrt(exact_square_sum(r), FLOAT64) for r in x]))


def test_vector_norm_of_dask_arrays_with_specials_and_complex():
    da = pytest.importorskip("dask.array")
    x = np.array([[3.0, np.inf, 1.0], [np.nan, np.inf, 0.0], [3.0, 4.0, 0.0]])
    got = xp.linalg.vector_norm(da.from_array(x, chunks=(2, 2)), axis=1).compute()
    assert_same(got, np.array([np.inf, np.nan, 5.0]))
    c = x[2] + 1j * x[2][::-1]
    assert_same(xp.linalg.vector_norm(da.from_array(c, chunks=2)).compute(),
                np.asarray(rounded_sqrt(exact_square_sum(c), FLOAT64)))


# ---- moving means of subnormal values under errstate(all="raise") ---------

@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, ml_dtypes.bfloat16])
def test_moving_means_of_subnormals_do_not_raise(dtype):
    """Issue 28: exact_moving_mean of subnormal values raised underflow
    under errstate(all='raise'), as exact_mean does not (an exact result
    rounded once is not an error).  Means of windows of subnormal values,
    under errstate(all='raise'), against the oracle."""
    dt = np.dtype(dtype)
    tiny = float(ml_dtypes.finfo(dt).smallest_subnormal)
    values = np.array([3, 5, -1, 2, 7, 1, 0, 1], float) * tiny
    with np.errstate(all="ignore"):
        a = values.astype(dt)
    with np.errstate(all="raise"):
        for window in (1, 2, 3, 5):
            got = xs.exact_moving_mean(a, window, min_count=1)
            expect = np.array([exact_mean_oracle(terms_of(a[max(0, i - window + 1):i + 1]),
                                                 dt) for i in range(len(a))], dt)
            assert_same(got, expect)
        assert_same(xs.exact_mean(a), exact_mean_oracle(terms_of(a), dt))


# ---- kahan_add(compute_dtype=) ---------------------------------------------

E5M2 = np.dtype(ml_dtypes.float8_e5m2)
F32 = np.dtype(np.float32)


def _kahan_computed_oracle(w, c, u, w_dtype, c_dtype, compute):
    """The documented steps with Fractions, each rounded once to nearest."""
    def r(q, dt):
        return Fraction(float(round_fraction(q, dt)))
    u = r(Fraction(u), compute)
    y = r(u - c, compute)
    s = r(w + y, compute)
    w_new = r(s, w_dtype)
    t = r(w_new - w, compute)
    return w_new, r(t - y, c_dtype)


@pytest.mark.parametrize("c_dtype", [F32, np.dtype(ml_dtypes.bfloat16), E5M2])
def test_kahan_add_computed_in_float32_tracks_where_float8_stalls(c_dtype):
    """Regression (issue 28): in float8_e5m2 every operation rounded in the
    storage format, so w + y tied back to w (w = 1, c = -0.125 after ten
    updates of 0.01) and the sum stalled.  compute_dtype=float32 (optimi's
    way) gives the documented steps bit for bit and moves w."""
    w = np.array([1.0], E5M2)
    c = np.zeros(1, c_dtype)
    ref_w, ref_c = Fraction(1), Fraction(0)
    for _ in range(60):
        xs.kahan_add(w, c, 0.01, out=(w, c), compute_dtype=np.float32)
        ref_w, ref_c = _kahan_computed_oracle(ref_w, ref_c, 0.01, E5M2, c_dtype, F32)
        assert Fraction(float(w[0])) == ref_w and Fraction(float(c[0])) == ref_c
    assert float(w[0]) >= 1.5                     # 1.6 meant; the default stays at 1.0
    stalled_w = np.array([1.0], E5M2)
    stalled_c = np.zeros(1, E5M2)
    for _ in range(60):
        xs.kahan_add(stalled_w, stalled_c, 0.01, out=(stalled_w, stalled_c))
    assert float(stalled_w[0]) == 1.0
    if c_dtype == F32:
        # w - c carries the running sum: within float32's rounding of 1.6.
        assert abs(float(w[0]) - float(c[0]) - 1.6) < 1e-5


def test_kahan_add_compute_dtype_checks_and_returns_storage_dtypes():
    w = np.ones(3, ml_dtypes.bfloat16)
    w_new, c_new = xs.kahan_add(w, np.zeros(3, ml_dtypes.bfloat16), np.float32(2.0**-9),
                                compute_dtype=np.float64)
    assert w_new.dtype == w.dtype and c_new.dtype == w.dtype
    with pytest.raises(TypeError, match="compute_dtype must be float32 or float64"):
        xs.kahan_add(w, np.zeros(3, ml_dtypes.bfloat16), 0.5, compute_dtype=np.float16)


# ---- the raw sum gufuncs on 64-bit integers --------------------------------

def test_raw_sum_gufuncs_are_exact_for_64_bit_integers():
    """Issue 28 said exact_sum_ufunc([2**53 + 1, 0]) "rounds silently" to
    2**53: it has int64 and uint64 loops (no cast to float64), and 2**53 is
    the exact sum 2**53 + 1 rounded once, ties to even.  Sums whose exact
    value a float64 holds come back exactly, as the oracle says."""
    for values in ([2**53 + 1, 0], [2**53 + 1, 1], [2**63 - 1, -(2**63), 2**62 + 3],
                   [2**62 + 1] * 3):
        a = np.array(values, np.int64)
        expect = exact_sum_oracle(values, FLOAT64)
        assert_same(xs.exact_sum_ufunc(a), expect)
        assert_same(xs.exact_cumsum_ufunc(a)[-1], expect)
        assert_same(xs.exact_mean_ufunc(a), exact_mean_oracle(values, FLOAT64))
        assert_same(xs.exact_state_round_ufunc(xs.exact_sum_state_ufunc(a)), expect)
    u = np.array([2**64 - 1, 2**64 - 1], np.uint64)
    assert_same(xs.exact_sum_ufunc(u), exact_sum_oracle([2**64 - 1] * 2, FLOAT64))
    assert xs.exact_sum_ufunc.resolve_dtypes((np.dtype(np.int64), None))[0] == np.int64
