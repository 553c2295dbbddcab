"""exact_average, exact_cov, exact_corrcoef and exact_linear_regression against
the Fraction oracle (roots by the root oracle), bit for bit."""

import math
import statistics
import warnings
from fractions import Fraction

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given
from hypothesis import strategies as st
from oracle import round_fraction
from oracle_pairs import _fr, _special, corr_oracle, cov_oracle, line_oracle
from strategies import representable

import xsumufunc
from xsumufunc import exact_average, exact_corrcoef, exact_cov, exact_linear_regression
from xsumufunc._core import pairs as core_pairs

F64 = np.dtype(np.float64)

# Values that stress the exact path: full range (subnormals included),
# small integers (exact ties), offset data near 1e8, products that
# overflow or underflow, and a few NaN/Inf.
FINITE = st.one_of(
    representable(F64),
    st.integers(-4, 4).map(float),
    st.sampled_from([1e8 - 1.5, 1e8 - 0.5, 1e8, 1e8 + 0.25, 1e8 + 1.0, 1e8 + 3.0]),
    st.sampled_from([1e200, -1e200, 1e-200, 2.0**-1074, -(2.0**-1060), 1e300, 0.1]),
)
VALUES = st.one_of(FINITE, FINITE, FINITE, FINITE, st.sampled_from([math.inf, -math.inf,
                                                                  math.nan]))


@st.composite
def variables(draw, values=VALUES, max_p=3, max_n=6, min_n=0):
    """(p, n) float64 variables; sometimes a column collinear with another."""
    p = draw(st.integers(1, max_p))
    n = draw(st.integers(min_n, max_n))
    x = np.array([[draw(values) for _ in range(n)] for _ in range(p)], dtype=F64).reshape(p, n)
    if p > 1 and draw(st.booleans()):
        scale = draw(st.sampled_from([1.0, -3.0, 0.5, 2.0**40]))
        with np.errstate(all="ignore"):
            x[1] = x[0] * scale          # exact: a power of two or small integer factor
        if not np.all(np.isfinite(x[1]) == np.isfinite(x[0] * 1.0)):
            x[1] = x[0]
    return x


def quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return func(*args, **kwargs)


# ---- cov --------------------------------------------------------------------

@given(variables(min_n=1), st.sampled_from([None, 0, 1, 2]), st.booleans())
def test_cov_is_the_rounded_exact_value(x, ddof, bias):
    got = quiet(exact_cov, x, ddof=ddof, bias=bias)
    expected = cov_oracle(x, ddof=(0 if bias else 1) if ddof is None else ddof)
    assert_same(got, expected)


@given(variables(min_n=2), st.booleans())
def test_cov_rowvar_false_and_y(x, split):
    # (NumPy's rule: with rowvar=False, a single row is a variable, not an
    # observation, hence two observations at least here.)
    if split and len(x) > 1:
        got = quiet(exact_cov, x[:1].T, x[1:].T, rowvar=False)
    else:
        got = quiet(exact_cov, x.T, rowvar=False)
    assert_same(got, cov_oracle(x))


@st.composite
def weighted(draw):
    x = draw(variables(min_n=1, max_n=5))
    n = x.shape[1]
    f = draw(st.none() | st.lists(st.integers(0, 3) | st.just(2**60), min_size=n, max_size=n))
    a = draw(st.none() | st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0, 0.1, 1e-300, 1e300]) |
                                  representable(F64, qmin=-1100, qmax=-900).map(abs) |
                                  st.floats(0, 10), min_size=n, max_size=n))
    ddof = draw(st.sampled_from([0, 1, 2]))
    return x, f, a, ddof


@given(weighted())
def test_weighted_cov_is_the_rounded_exact_value(case):
    x, f, a, ddof = case
    w = [1] * x.shape[1]
    if f is not None:
        w = [wi * fi for wi, fi in zip(w, f)]
    if a is not None:
        w = [wi * Fraction(ai) for wi, ai in zip(w, a)]
    if sum(w) == 0:
        with pytest.raises(ZeroDivisionError):
            quiet(exact_cov, x, ddof=ddof, fweights=f, aweights=a)
        return
    got = quiet(exact_cov, x, ddof=ddof, fweights=f, aweights=a)
    assert_same(got, cov_oracle(x, f, a, ddof))


def test_offset_columns_lose_nothing():
    rng = np.random.default_rng(5)
    x = 1e8 + rng.standard_normal((3, 200))
    assert_same(exact_cov(x), cov_oracle(x))
    assert_same(exact_cov(x, dtype=np.float32), cov_oracle(x, dtype=np.float32))


def test_cov_of_float32_rounds_once_into_float32():
    x = np.array([[0.1, 0.2, 0.7], [1.0, 3.0, 2.0]], np.float32)
    got = exact_cov(x, dtype=np.float32)
    rows = [[Fraction(float(v)) for v in r] for r in x]
    for i in range(2):
        for j in range(2):
            mi, mj = sum(rows[i]) / 3, sum(rows[j]) / 3
            c = sum((u - mi) * (v - mj) for u, v in zip(rows[i], rows[j])) / 2
            assert_same(got[i, j], round_fraction(c, np.float32))


def test_cov_big_integers_are_exact():
    x = np.array([[2**62 + 1, 2**62 + 3, 2**62 + 8], [1, 2, 3]], np.int64)
    rows = [[Fraction(int(v)) for v in r] for r in x]
    got = exact_cov(x)
    for i in range(2):
        for j in range(2):
            mi, mj = sum(rows[i]) / 3, sum(rows[j]) / 3
            c = sum((u - mi) * (v - mj) for u, v in zip(rows[i], rows[j])) / 2
            assert_same(got[i, j], round_fraction(c, F64))


def test_cov_shapes_and_empty():
    assert_same(exact_cov(np.empty((0, 3))), np.empty((0, 0)))
    assert exact_cov([1.0, 2.0, 4.0]).shape == ()
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        one = exact_cov([[1.0], [2.0]])
    assert np.isnan(one).all()


def test_cov_errors():
    with pytest.raises(ValueError, match="ddof must be integer"):
        exact_cov([1.0, 2.0], ddof=0.5)
    with pytest.raises(TypeError, match="fweights must be integer"):
        exact_cov([1.0, 2.0], fweights=[1.5, 1])
    with pytest.raises(ValueError, match="fweights cannot be negative"):
        exact_cov([1.0, 2.0], fweights=[-1, 1])
    with pytest.raises(ValueError, match="aweights has 3 values for 2 observations"):
        exact_cov([1.0, 2.0], aweights=[1, 1, 1])
    with pytest.raises(ValueError, match="more than 2 dimensions"):
        exact_cov(np.ones((2, 2, 2)))
    with pytest.raises(TypeError, match="real"):
        exact_cov(np.ones(3, complex))
    with pytest.raises(ZeroDivisionError):
        exact_cov([1.0, 2.0], aweights=[0.0, 0.0])


# ---- corrcoef ---------------------------------------------------------------

@given(variables(min_n=1))
def test_corrcoef_is_the_correctly_rounded_root(x):
    got = quiet(exact_corrcoef, x)
    expected = corr_oracle(x)
    assert_same(got, expected)
    finite = np.asarray(got)[np.isfinite(got)]
    assert np.all(np.abs(finite) <= 1)


def test_corrcoef_diagonal_is_one_and_collinear_is_one():
    x = 1e8 + np.arange(7.0)
    got = exact_corrcoef(x, -3 * x)
    assert_same(got, np.array([[1.0, -1.0], [-1.0, 1.0]]))


def test_corrcoef_constant_gives_nan_with_a_warning():
    with pytest.warns(RuntimeWarning):
        got = exact_corrcoef([[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]])
    assert np.isnan(got[0]).all() and got[1, 1] == 1


# ---- linear regression -------------------------------------------------------

@given(st.integers(2, 6).flatmap(lambda n: st.tuples(
    st.lists(FINITE, min_size=n, max_size=n), st.lists(FINITE, min_size=n, max_size=n))),
    st.booleans())
def test_linear_regression_is_the_rounded_exact_line(xy, proportional):
    x, y = (np.array(v, F64) for v in xy)
    line = line_oracle(x, y, proportional)
    if line is None:
        with pytest.raises(statistics.StatisticsError):
            exact_linear_regression(x, y, proportional=proportional)
        return
    slope, intercept = line
    got = exact_linear_regression(x, y, proportional=proportional)
    assert_same(got.slope, round_fraction(slope, F64))
    assert_same(got.intercept, round_fraction(intercept, F64))
    assert got._fields == ("slope", "intercept")


def test_linear_regression_specials_and_errors():
    got = exact_linear_regression([1.0, np.nan, 3.0], [1.0, 2.0, 3.0])
    assert np.isnan(got.slope) and np.isnan(got.intercept)
    with pytest.raises(statistics.StatisticsError, match="same number"):
        exact_linear_regression([1.0, 2.0], [1.0])
    with pytest.raises(statistics.StatisticsError, match="at least two"):
        exact_linear_regression([1.0], [1.0])


# ---- average ----------------------------------------------------------------

@given(st.integers(0, 3).flatmap(lambda r: st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(VALUES, min_size=r * n, max_size=r * n).map(lambda v: np.array(v, F64)),
    st.lists(st.sampled_from([0.0, 1.0, 2.0, 0.5, 3.0, -1.0, 1e300, 1e-300]) | FINITE,
             min_size=n, max_size=n), st.just((r, n))))), st.booleans())
def test_average_is_the_rounded_exact_quotient(case, full_weights):
    values, w, (r, n) = case
    a = values.reshape(r, n)
    w = np.array(w, F64)
    weights = np.broadcast_to(w, a.shape).copy() if full_weights else w
    sw = sum(_fr(v) for v in w) if all(math.isfinite(v) for v in w) else None
    if sw == 0 and r:
        with pytest.raises(ZeroDivisionError):
            exact_average(a, axis=1, weights=weights)
        return
    got = quiet(exact_average, a, axis=1, weights=weights)
    for i in range(r):
        row = a[i]
        if sw is None or _special(row):
            # The IEEE quotient of the exact (oracle-tested) dot and sum.
            with np.errstate(all="ignore"):
                expected = xsumufunc.exact_dot(row, w) / xsumufunc.exact_sum(w)
            assert_same(got[i], expected)
            continue
        q = sum(_fr(u) * _fr(v) for u, v in zip(row, w)) / sw
        assert_same(got[i], round_fraction(q, F64))


def test_average_of_weights_summing_to_zero_raises_without_a_warning():
    """Short rows with an Inf and weights summing to zero: the
    ZeroDivisionError, and no RuntimeWarning of the unused brackets before
    it (found by the property test above)."""
    import warnings

    a = np.array([[0.0] * 5, [0.0] * 4 + [math.inf]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ZeroDivisionError):
            exact_average(a, axis=1, weights=[0.0, 0.0, 0.0, 1.0, -1.0])


@pytest.mark.parametrize("value", [99999998.5, -99999998.5, 3.5, 1 + 2.0**-52])
@pytest.mark.parametrize("weight", [5e-324, 2.0**-1070, -5e-324])
def test_average_brackets_that_underflow(value, weight):
    """Short rows decide a candidate by the signs of exact dots of the order
    weight * gap: with subnormal weights they underflow to 0, which is not a
    tie (found by the property test above: 99999998.0 for 99999998.5)."""
    a = np.array([[0.0], [value]])
    expected = [round_fraction(_fr(v) * _fr(weight) / _fr(weight), F64) for v in a[:, 0]]
    got = exact_average(a, axis=1, weights=[weight])
    for g, e in zip(got, expected):
        assert_same(g, e)


def test_average_rules_of_numpy():
    a = np.arange(6.0).reshape(2, 3)
    assert_same(exact_average(a), np.float64(2.5))
    avg, scl = exact_average(a, axis=0, weights=[1, 3], returned=True)
    assert_same(avg, np.array([2.25, 3.25, 4.25]))
    assert_same(scl, np.array([4.0, 4.0, 4.0]))
    assert_same(exact_average(a, axis=1, weights=[1, 0, 1], keepdims=True),
                np.array([[1.0], [4.0]]))
    with pytest.raises(TypeError, match="Axis must be specified"):
        exact_average(a, weights=[1, 2, 3])
    with pytest.raises(ValueError, match="Shape of weights"):
        exact_average(a, axis=1, weights=[1, 2])
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        exact_average([1.0, 2.0], weights=[1e16, -1e16])
    assert exact_average(np.array([1, 2], np.int64), weights=np.array([1, 1], np.float32)
                         ).dtype == np.float64
    assert exact_average(np.array([1, 2], np.float32), weights=np.array([1, 1], np.float32)
                         ).dtype == np.float32


def test_average_cancelling_weights_are_exact():
    # sum(w*a) = 1e16*1 + 3 - 1e16*1 + 1 = 4 exactly; sum(w) = 6.
    assert_same(exact_average([1e16, 1.0, -1e16, 1.0], weights=[1.0, 3.0, 1.0, 1.0]),
                round_fraction(Fraction(4, 6), F64))


def test_names_are_public():
    for name in ("exact_average", "exact_cov", "exact_corrcoef", "exact_linear_regression",
                 "exact_matmul"):
        assert name in xsumufunc.__all__
    assert core_pairs.LinearRegression._fields == ("slope", "intercept")


def test_cov_with_wide_frequency_weights_alone():
    x = np.array([[1.0, 2.0, 4.0]])
    f = np.array([2**62, 1, 2**61], np.int64)
    rows = [Fraction(v) for v in x[0]]
    w = [Fraction(int(v)) for v in f]
    sw = sum(w)
    mean = sum(a * b for a, b in zip(w, rows)) / sw
    c = sum(a * (b - mean) ** 2 for a, b in zip(w, rows)) / (sw - 1)
    assert_same(exact_cov(x, fweights=f), np.array(round_fraction(c, F64)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("weights", [[1.0, 2.0, 3.0], [1.0, -4.0, 0.5]])
def test_average_of_many_short_rows(dtype, weights):
    # Random values with few low bits: about one row in six is an exact tie.
    rng = np.random.default_rng(11)
    a = (rng.random((300, 3)) * 8).astype(dtype)
    got = exact_average(a, axis=1, weights=np.array(weights, dtype))
    sw = sum(Fraction(v) for v in weights)
    for i in range(len(a)):
        q = sum(Fraction(float(u)) * Fraction(v) for u, v in zip(a[i], weights)) / sw
        assert_same(got[i], round_fraction(q, dtype))
