"""exact_moving_var / exact_moving_std: every window against the Fraction
oracle (its exact variance rounded once; the std the correctly rounded
root of it), the compiled loop's decisions against the exact path alone,
NaN rules, layouts, Dask chunkings and bad arguments."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracle import BFLOAT16, CODE_DTYPES, FLOAT16, FLOAT32, FLOAT64, round_fraction, terms_of
from oracle_roots import rounded_sqrt
from strategies import float_lists, to_array

import xsumufunc as xs
from xsumufunc._core import moments as moments_module
from xsumufunc._ufuncs import _moving_var_ufunc

INT64 = np.dtype(np.int64)


def _oracle(x, window, min_count, ddof, std):
    """Each window's expected value, from the Fraction terms."""
    dtype = FLOAT64 if x.dtype.kind in "biu" else x.dtype
    ddof = Fraction(ddof)                       # a float ddof: its exact value
    terms = terms_of(x)
    out = []
    for i in range(len(terms)):
        kept = [v for v in terms[max(0, i - window + 1):i + 1]
                if not (isinstance(v, float) and math.isnan(v))]
        n = len(kept)
        if n < min_count or n - ddof <= 0 or any(isinstance(v, float) and math.isinf(v)
                                                 for v in kept):
            out.append(np.array(np.nan).astype(dtype)[()])
            continue
        s1 = sum((Fraction(v) for v in kept), Fraction(0))
        s2 = sum((Fraction(v) ** 2 for v in kept), Fraction(0))
        var = (n * s2 - s1 * s1) / (n * (n - ddof))
        out.append(rounded_sqrt(var, dtype) if std else round_fraction(var, dtype))
    return np.array(out, dtype)


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    g, w = got.astype(np.float64), want.astype(np.float64)
    assert np.array_equal(np.isnan(g), np.isnan(w)), (got, want)
    assert np.array_equal(g[~np.isnan(g)].view(np.uint64), w[~np.isnan(w)].view(np.uint64)), \
        (got, want)


@st.composite
def _cases(draw):
    dtype = draw(st.sampled_from([FLOAT64, FLOAT64, FLOAT32, FLOAT16, BFLOAT16, INT64,
                                  *CODE_DTYPES]))
    if dtype == INT64:
        values = draw(st.lists(st.integers(-2**63, 2**63 - 1), min_size=1, max_size=30))
        x = np.array(values, INT64)
    elif dtype in CODE_DTYPES:                  # any codes, NaN and Inf ones included
        codes = draw(st.lists(st.integers(0, 255), min_size=1, max_size=30))
        x = np.array(codes, np.uint8).view(dtype)
    else:
        values = draw(float_lists(dtype).filter(lambda v: len(v) > 0))
        x = to_array(values[:40], dtype)
    window = draw(st.integers(1, len(x)))
    min_count = draw(st.one_of(st.none(), st.integers(1, window)))
    ddof = draw(st.sampled_from([0, 1, 2, 0.5, 1.5]))
    return x, window, min_count, ddof, draw(st.booleans())


@given(_cases())
def test_every_window_against_the_oracle(case):
    x, window, min_count, ddof, std = case
    func = xs.exact_moving_std if std else xs.exact_moving_var
    with np.errstate(all="ignore"):
        got = func(x, window, min_count=min_count, ddof=ddof)
    _same(got, _oracle(x, window, window if min_count is None else min_count, ddof, std))


@given(_cases())
def test_the_loop_and_the_exact_path_agree(case, ):
    """Every window decided by the compiled loop equals the exact path's."""
    x, window, min_count, ddof, std = case
    func = xs.exact_moving_std if std else xs.exact_moving_var
    with np.errstate(all="ignore"):
        got = func(x, window, min_count=min_count, ddof=ddof)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(moments_module, "LOOP_RESULTS", set())
            exact = func(x, window, min_count=min_count, ddof=ddof)
    _same(got, exact)


def _series(kind, n, rng):
    if kind == "normal":
        return rng.standard_normal(n)
    if kind == "lognormal":
        return rng.choice([-1.0, 1.0], n) * rng.lognormal(0.0, 3.0, n)
    if kind == "offset":                  # a large mean: the variance cancels 16 digits
        return 1e8 + rng.standard_normal(n)
    if kind == "switch":                  # lognormal, then a large mean: a rebuild keeps
        half = n // 2                     # its anchor in the first half, moves it later
        return np.concatenate([_series("lognormal", half, rng),
                               _series("offset", n - half, rng)])
    return np.repeat(rng.standard_normal(n // 50 + 1), 50)[:n] * 0.1   # constant stretches


@pytest.mark.parametrize("kind", ["normal", "lognormal", "offset", "switch", "steps"])
@pytest.mark.parametrize("std", [False, True])
def test_ordinary_series_are_decided_by_the_loop(kind, std):
    """The loop decides nearly every window of ordinary data (so that the
    fast path is what runs), each right (oracle on a sample of windows)."""
    rng = np.random.default_rng(5)
    x = _series(kind, 3000, rng)
    values, decided = _moving_var_ufunc(x, 40, 40, 1, std)
    assert decided.mean() > 0.99
    got = xs.exact_moving_std(x, 40, ddof=1) if std else xs.exact_moving_var(x, 40, ddof=1)
    want = _oracle(x[:400], 40, 40, 1, std)
    _same(got[:400], want)
    sample = rng.integers(40, 3000, 30)
    for i in sample:
        _same(got[i:i + 1], _oracle(x[i - 39:i + 1], 40, 40, 1, std)[-1:])


def test_never_negative_where_the_prefix_sum_variance_is():
    """After a huge value leaves the window, prefix-sum variances go wrong
    (even negative); the exact one is 0 for a constant stretch."""
    x = np.array([1e15, 1.0, 1.0, 1.0, 1.0, 1.0, 0.1, 0.1, 0.1, 0.1])
    got = xs.exact_moving_var(x, 3)
    assert (got[2:] >= 0).all()
    _same(got, _oracle(x, 3, 3, 0, False))
    assert got[-1] == 0.0 and got[5] == 0.0


def test_values_beyond_the_loop_range_take_the_exact_path():
    x = np.array([1e300, -1e300, 3e299, 1e-300, 2e-300, 5.0, 7.0, 1e-320, 2.0])
    for func, std in ((xs.exact_moving_var, False), (xs.exact_moving_std, True)):
        for window in (1, 2, 3, 9):
            with np.errstate(all="ignore"):
                _same(func(x, window), _oracle(x, window, window, 0, std))


def test_nan_and_inf_rules():
    x = np.array([1.0, np.nan, 3.0, np.inf, 5.0, 6.0, np.nan, np.nan, 8.0])
    for min_count in (1, 2, 3):
        for ddof in (0, 1):
            got = xs.exact_moving_var(x, 3, min_count=min_count, ddof=ddof)
            _same(got, _oracle(x, 3, min_count, ddof, False))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_layouts_give_the_same_bits(axis):
    rng = np.random.default_rng(2)
    x = rng.lognormal(0, 2, (7, 30))
    want = np.stack([xs.exact_moving_var(r, 5, ddof=1)
                     for r in np.moveaxis(x, axis, -1).reshape(-1, x.shape[axis])])
    for view in (x, np.asfortranarray(x), x.astype(x.dtype.newbyteorder())):
        got = xs.exact_moving_var(view, 5, axis=axis, ddof=1)
        flat = np.moveaxis(got, axis, -1).reshape(-1, x.shape[axis])
        assert flat.tobytes() == want.astype(np.float64).tobytes()
    strided = np.repeat(x, 2, axis=1)[:, ::2]
    assert xs.exact_moving_var(strided, 5, axis=axis, ddof=1).tobytes() == \
        xs.exact_moving_var(x, 5, axis=axis, ddof=1).tobytes()


def test_dask_chunks_give_the_same_bits():
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(9)
    x = rng.standard_normal(200) * 1e6 + 3.0
    want = xs.exact_moving_std(x, 17, ddof=1)
    for chunks in (20, 37, 200):
        got = xs.exact_moving_std(da.from_array(x, chunks=chunks), 17, ddof=1).compute()
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("kwargs,error,match", [
    ({"window": 0}, ValueError, "window"),
    ({"window": 11}, ValueError, "window"),
    ({"window": 2.0}, TypeError, "window"),
    ({"window": 3, "ddof": float("nan")}, ValueError, "ddof"),
    ({"window": 3, "ddof": "1"}, TypeError, "ddof"),
    ({"window": 3, "min_count": 4}, ValueError, "min_count"),
])
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        xs.exact_moving_var(np.ones(10), **kwargs)


def test_complex_input_is_refused():
    with pytest.raises(TypeError, match="complex"):
        xs.exact_moving_std(np.ones(4, complex), 2)
