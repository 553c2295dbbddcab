"""xsumufunc.dask_dataframe: exact groupby aggregations of Dask DataFrames
(issue 17, item 3), bit for bit against the exact oracle for every
partitioning, on the synchronous scheduler and on a process cluster."""

import math
import subprocess
import sys

import numpy as np
import pytest
from helpers import assert_same, local_cluster_client
from hypothesis import given
from hypothesis import strategies as st
from oracle import FLOAT32, FLOAT64, exact_sum_oracle, terms_of
from oracle_moments import check as check_var
from oracle_products import exact_mean_oracle
from strategies import arrays_1d

pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")
xdd = pytest.importorskip("xsumufunc.dask_dataframe")

NAMES = ["exact_sum", "exact_nansum", "exact_mean", "exact_nanmean", "exact_var",
         "exact_nanvar", "exact_std", "exact_nanstd"]


def expected_value(name, values, ddof=1):
    """The oracle's value of statistic `name` for one group's values."""
    skip_nan = "_nan" in name
    result = FLOAT64 if values.dtype.kind in "biu" else values.dtype
    if name.endswith("sum"):
        return exact_sum_oracle(terms_of(values), result, skip_nan=skip_nan)
    if name.endswith("mean"):
        return exact_mean_oracle(terms_of(values), result, skip_nan=skip_nan)
    return None             # var, std: checked by check_group


def check_group(name, got, values, ddof=1):
    expected = expected_value(name, values, ddof)
    if expected is not None:
        assert_same(got, expected)
        return
    terms = terms_of(values)
    if "_nan" in name:
        terms = [t for t in terms if not (isinstance(t, float) and math.isnan(t))]
    result = FLOAT64 if values.dtype.kind in "biu" else values.dtype
    if len(terms) - ddof <= 0:          # pandas' convention: NaN, no warning
        assert_same(got, result.type(np.nan))
        return
    check_var(got, terms, ddof, result, name.endswith("std"))


@st.composite
def frames(draw):
    """A pandas frame (key, x) and a partitioning: the cut points."""
    dtype = draw(st.sampled_from([FLOAT64, FLOAT32, np.dtype(np.int32)]))
    x = draw(arrays_1d(dtype, min_size=1))
    keys = draw(st.lists(st.integers(0, 3), min_size=len(x), max_size=len(x)))
    cuts = sorted(draw(st.sets(st.integers(1, max(len(x) - 1, 1)), max_size=4)) - {len(x)})
    return pd.DataFrame({"k": keys, "x": x}), cuts


def partitioned(pdf, cuts):
    """pdf as a Dask DataFrame with a partition between each pair of cuts."""
    bounds = [0, *cuts, len(pdf)]
    parts = [pdf.iloc[a:b] for a, b in zip(bounds, bounds[1:])]
    return dd.concat([dd.from_pandas(p, npartitions=1, sort=False) for p in parts])


@given(frame=frames(), name=st.sampled_from(NAMES))
def test_every_partitioning_gives_the_exact_result(frame, name):
    pdf, cuts = frame
    ddf = partitioned(pdf, cuts)
    assert ddf.npartitions == len(cuts) + 1
    got = ddf.groupby("k")["x"].agg(getattr(xdd, name)).compute(scheduler="sync")
    assert sorted(got.index) == sorted(set(pdf["k"]))
    for key, values in pdf.groupby("k")["x"]:
        check_group(name, got[key], values.to_numpy())


@given(frame=frames(), ddof=st.sampled_from([0, 2, 5, 1.5]), std=st.booleans())
def test_other_ddofs(frame, ddof, std):
    pdf, cuts = frame
    agg = xdd.aggregation("std" if std else "var", ddof=ddof)
    assert agg.__name__ == f"exact_{'std' if std else 'var'}_ddof{ddof}"
    got = partitioned(pdf, cuts).groupby("k")["x"].agg(agg).compute(scheduler="sync")
    for key, values in pdf.groupby("k")["x"]:
        check_group("exact_std" if std else "exact_var", got[key], values.to_numpy(), ddof)


def _spread_frame(n=3000, groups=7, seed=21):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-20, 20, n)
    x[::97] = -x[::97].copy()[::-1]             # cancellation across partitions
    x[5] = np.nan
    return pd.DataFrame({"k": rng.integers(0, groups, n), "j": rng.integers(0, 2, n), "x": x,
                         "y": (x * 1e-3).astype(np.float32)})


def _check_frame(result, pdf, by, columns, names):
    for key, group in pdf.groupby(by):
        for column in columns:
            for name in names:
                got = result.loc[key, (column, name)]
                check_group(name, got, group[column].to_numpy())


def test_frames_several_columns_and_keys():
    pdf = _spread_frame()
    names = ["exact_sum", "exact_nansum", "exact_nanmean", "exact_nanvar"]
    spec = {c: [getattr(xdd, n) for n in names] for c in ("x", "y")}
    for npartitions in (1, 4, 13):
        ddf = dd.from_pandas(pdf, npartitions=npartitions)
        result = ddf.groupby(["k", "j"]).agg(spec).compute(scheduler="sync")
        assert result[("y", "exact_nansum")].dtype == np.float32
        _check_frame(result, pdf, ["k", "j"], ("x", "y"), names)


@pytest.mark.parametrize("options", [
    {"sort": False}, {"dropna": False}, {"sort": False, "dropna": False},
    {"observed": False, "by": "c"}, {"observed": True, "by": ["c", "j"]},
    {"split_out": 3}, {"split_every": 2}, {"shuffle_method": "tasks", "split_out": 2},
    {"empty_partitions": True}], ids=str)
@pytest.mark.parametrize("name", ["exact_sum", "exact_nanmean", "exact_std"])
def test_groupby_options(options, name):
    """pandas' and Dask's groupby options: keys in any order, null keys as a
    group, unobserved categories, results split over partitions, trees."""
    options = dict(options)
    pdf = _spread_frame(n=600, seed=5)
    pdf["k"] = pdf["k"].astype(float)
    pdf.loc[[4, 50, 51], "k"] = np.nan
    pdf["c"] = pd.Categorical(np.where(pdf["j"] == 1, "b", "a"), categories=["a", "b", "z"])
    by = options.pop("by", "k")
    ddf = dd.from_pandas(pdf, npartitions=8)
    if options.pop("empty_partitions", False):
        ddf, pdf = ddf[ddf["x"] > 1e15], pdf[pdf["x"] > 1e15]
    keys = {k: options.pop(k) for k in ("sort", "dropna", "observed") if k in options}
    got = ddf.groupby(by, **keys)["x"].agg(getattr(xdd, name), **options).compute(
        scheduler="sync")
    groups = pdf.groupby(by, dropna=keys.get("dropna", True), observed=True)["x"]
    assert len(got) == len(pdf.groupby(by, **keys)["x"].size())
    if keys.get("observed") is False:           # the unobserved category: no terms
        check_group(name, got.loc["z"], np.zeros(0))
    for key, values in groups:
        key = key[0] if isinstance(key, tuple) and len(key) == 1 else key
        if isinstance(key, float) and math.isnan(key):
            match = got[got.index.isna()]
            assert len(match) == 1
            check_group(name, match.iloc[0], values.to_numpy())
        else:
            check_group(name, got.loc[key], values.to_numpy())


@pytest.mark.parametrize("name", ["exact_sum", "exact_nanmean", "exact_nanvar", "exact_std"])
def test_group_by_group_when_the_numbering_does_not_check_out(monkeypatch, name):
    """The fallback of the vectorised path: pandas' agg, a group at a time."""
    from xsumufunc._backends import dask_groupby
    monkeypatch.setattr(dask_groupby._Statistic, "_groups", lambda self, grouped: None)
    monkeypatch.setattr(dask_groupby._Statistic, "_finalize_all", lambda self, merged: None)
    pdf = _spread_frame(n=500, seed=9)
    got = dd.from_pandas(pdf, npartitions=5).groupby("k")["y"].agg(
        getattr(xdd, name)).compute(scheduler="sync")
    assert got.dtype == np.float32
    for key, values in pdf.groupby("k")["y"]:
        check_group(name, got[key], values.to_numpy())


def test_results_are_the_numpy_functions_of_each_group():
    import xsumufunc as xs
    pdf = _spread_frame(seed=3)
    got = dd.from_pandas(pdf, npartitions=6).groupby("k")["y"].agg(
        xdd.exact_nanstd).compute(scheduler="sync")
    for key, values in pdf.groupby("k")["y"]:
        assert_same(got[key], xs.exact_nanstd(values.to_numpy(), ddof=1))


# ---- on a process cluster: the same bits as the synchronous scheduler -----

@pytest.fixture(scope="module")
def client():
    yield from local_cluster_client(True)


def test_on_a_process_cluster(client):
    pdf = _spread_frame(seed=8)
    names = NAMES
    for npartitions in (3, 10):
        ddf = dd.from_pandas(pdf, npartitions=npartitions)
        lazy = ddf.groupby("k").agg({"x": [getattr(xdd, n) for n in names]})
        result = client.compute(lazy).result()
        _check_frame(result, pdf, "k", ("x",), names)
        assert result.equals(lazy.compute(scheduler="sync"))
    assert len(client.scheduler_info()["workers"]) == 2


# ---- arguments and imports -------------------------------------------------

def test_bad_arguments():
    with pytest.raises(ValueError, match="statistic must be one of sum, mean, var, std"):
        xdd.aggregation("median")
    with pytest.raises(TypeError, match="skip_nan must be True or False"):
        xdd.aggregation("sum", skip_nan="yes")
    with pytest.raises(ValueError, match="ddof must be a finite real number"):
        xdd.aggregation("var", ddof=float("nan"))
    with pytest.raises(ValueError, match="ddof must be a non-negative number"):
        xdd.aggregation("var", ddof=-1)
    ddf = dd.from_pandas(pd.DataFrame({"k": [1, 2], "s": ["a", "b"]}), npartitions=1)
    with pytest.raises(TypeError, match=r"exact_sum: the column 's' has dtype"):
        ddf.groupby("k")["s"].agg(xdd.exact_sum).compute(scheduler="sync")


def test_importing_xsumufunc_imports_no_dask():
    code = ("import sys, xsumufunc; "
            "assert not any(m.split('.')[0] == 'dask' for m in sys.modules), 'dask'; "
            "import xsumufunc.dask_dataframe; assert 'dask.dataframe' in sys.modules")
    subprocess.run([sys.executable, "-P", "-c", code], check=True, timeout=120)
