"""xarray: DataArray.reduce with our functions and apply_ufunc with the raw
gufuncs, numpy- and dask-backed; every value checked against the oracle."""


import numpy as np
import pytest
from helpers import assert_same, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import COMPLEX128, FLOAT32, FLOAT64, oracle_reduce
from oracle_moments import check
from oracle_products import oracle_mean_reduce
from strategies import nd_arrays

import xsumufunc as xs

xr = pytest.importorskip("xarray")
da = pytest.importorskip("dask.array")

DIMS = ("t", "y", "x")


def _array(a, chunked, data):
    arr = xr.DataArray(a, dims=DIMS[:a.ndim])
    if chunked:
        arr = arr.chunk({d: data.draw(st.integers(1, max(n, 1)))
                         for d, n in zip(arr.dims, a.shape)})
    return arr


@given(data=st.data(), dtype=st.sampled_from([FLOAT64, FLOAT32, COMPLEX128]),
       chunked=st.booleans(), mean=st.booleans())
def test_reduce_over_one_or_several_dims(data, dtype, chunked, mean):
    a = data.draw(nd_arrays(dtype, min_dims=2, max_dims=3))
    arr = _array(a, chunked, data)
    axes = tuple(sorted(data.draw(st.lists(st.integers(0, a.ndim - 1), min_size=1,
                                           max_size=a.ndim, unique=True))))
    dims = [DIMS[i] for i in axes]
    func, oracle = (xs.exact_mean, oracle_mean_reduce) if mean else (xs.exact_sum, oracle_reduce)
    result = quiet(arr.reduce, func, dim=dims if len(dims) > 1 else dims[0])
    assert isinstance(result.data, da.Array) == chunked
    assert result.dims == tuple(d for d in arr.dims if d not in dims)
    assert_same(quiet(lambda: result.values), oracle(a, axes))


@pytest.mark.parametrize("dask_mode", [None, "parallelized", "allowed"])
def test_apply_ufunc_with_the_raw_gufunc(dask_mode):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((4, 5, 6)) * 10.0 ** rng.integers(-200, 200, (4, 5, 6))
    arr = xr.DataArray(a, dims=DIMS)
    kwargs = {}
    if dask_mode:
        # One chunk along the core dim (apply_ufunc's rule), several elsewhere.
        arr = arr.chunk({"t": 1, "y": 2, "x": -1})
        kwargs = {"dask": dask_mode, "output_dtypes": [np.float64]}
    res = xr.apply_ufunc(xs.exact_sum_ufunc, arr, input_core_dims=[["x"]], **kwargs)
    assert res.dims == ("t", "y")
    assert_same(res.values, oracle_reduce(a, 2))
    if dask_mode:
        arr = arr.chunk({"t": -1, "x": 2})
    res = xr.apply_ufunc(xs.exact_mean_ufunc, arr, input_core_dims=[["t"]], **kwargs)
    assert_same(res.values, oracle_mean_reduce(a, 0))


def test_apply_ufunc_with_our_function_across_chunks():
    # exact_sum itself on a dask array handles a core dim spread over chunks.
    rng = np.random.default_rng(8)
    a = rng.standard_normal((4, 6)) * 10.0 ** rng.integers(-100, 100, (4, 6))
    arr = xr.DataArray(a, dims=("y", "x")).chunk({"y": 3, "x": 2})
    res = xr.apply_ufunc(xs.exact_sum, arr, input_core_dims=[["x"]], kwargs={"axis": -1},
                         dask="allowed")
    assert isinstance(res.data, da.Array)
    assert_same(res.values, oracle_reduce(a, 1))


@given(data=st.data(), chunked=st.booleans(), std=st.booleans())
def test_var_and_std_reduce_any_dims(data, chunked, std):
    """DataArray.reduce(exact_var, ddof=1): the same bits for any chunking."""
    a = data.draw(nd_arrays(FLOAT64, min_dims=2, max_dims=2))
    arr = _array(a, chunked, data)
    func = xs.exact_std if std else xs.exact_var
    result = quiet(arr.reduce, func, dim="y", ddof=1)
    assert isinstance(result.data, da.Array) == chunked
    values = quiet(lambda: result.values)
    for i in range(a.shape[0]):
        check(values[i], a[i].tolist(), 1, FLOAT64, std)


def test_the_manuals_xarray_page_runs():
    """docs/xarray.md (the recipe, and the one-chunk rule of
    dask="parallelized") prints what it says."""
    import doctest
    import pathlib

    page = pathlib.Path(__file__).resolve().parents[1] / "docs" / "xarray.md"
    result = doctest.testfile(str(page), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
