"""polars and pyarrow (issue 17, item 4): one rule in the foreign backend.
A column (polars.Series, pyarrow.Array, pyarrow.ChunkedArray) gives what
the same values as a NumPy array give (NumPy scalars for full reductions);
a null is a ValueError unless the function skips NaN, which leaves nulls out
too (exactly, for every dtype); a table is a TypeError that says what to do."""

import math

import numpy as np
import pytest
from helpers import assert_same, quiet
from hypothesis import assume, given
from hypothesis import strategies as st
from oracle import FLOAT32, FLOAT64, exact_sum_oracle, terms_of
from oracle_moments import check as check_var
from oracle_products import exact_mean_oracle
from strategies import arrays_1d

import xsumufunc as xs

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

INT64 = np.dtype(np.int64)


def columns(values, nulls=None):
    """The values (with nulls where `nulls` is True) as each kind of column."""
    items = [None if nulls is not None and nulls[i] else v.item()
             for i, v in enumerate(values)]
    arrow_type = {FLOAT64: pa.float64(), FLOAT32: pa.float32(), INT64: pa.int64()}[values.dtype]
    polars_type = {FLOAT64: pl.Float64, FLOAT32: pl.Float32, INT64: pl.Int64}[values.dtype]
    cut = len(items) // 2
    return {
        "polars.Series": pl.Series("x", items, dtype=polars_type, strict=False),
        "pyarrow.Array": pa.array(items, arrow_type),
        "pyarrow.ChunkedArray": pa.chunked_array([items[:cut], items[cut:]], arrow_type),
    }


def expected(name, terms, dtype):
    result = FLOAT64 if dtype.kind in "iu" else dtype
    if name.endswith("sum"):
        return exact_sum_oracle(terms, result, skip_nan="nan" in name)
    return exact_mean_oracle(terms, result, skip_nan="nan" in name)


DTYPES = [FLOAT64, FLOAT32, INT64]
REDUCTIONS = ["exact_sum", "exact_nansum", "exact_mean", "exact_nanmean"]


@given(data=st.data(), dtype=st.sampled_from(DTYPES), name=st.sampled_from(REDUCTIONS))
def test_columns_without_nulls_give_the_numpy_result(data, dtype, name):
    values = data.draw(arrays_1d(dtype, min_size=1))
    func = getattr(xs, name)
    want = expected(name, terms_of(values), dtype)
    for kind, column in columns(values).items():
        got = quiet(func, column)
        assert isinstance(got, np.generic), (kind, type(got))     # as for NumPy input
        assert_same(got, want)
    assert_same(quiet(func, values), want)


def check(name, got, terms, dtype):
    """got against the oracle of statistic `name` of these terms."""
    if "var" in name or "std" in name:
        terms = [t for t in terms if not (isinstance(t, float) and math.isnan(t))] \
            if "nan" in name else terms
        result = FLOAT64 if dtype.kind in "iu" else dtype
        check_var(got, terms, 0, result, name.endswith("std"))
    else:
        assert_same(got, expected(name, terms, dtype))


@given(data=st.data(), dtype=st.sampled_from(DTYPES),
       name=st.sampled_from(REDUCTIONS + ["exact_var", "exact_nanvar", "exact_nanstd"]))
def test_nulls_are_skipped_by_the_nan_functions_only(data, dtype, name):
    # (exact_var refuses int64 values a float64 cannot hold: tested in test_var)
    assume(name in REDUCTIONS or dtype != INT64)
    values = data.draw(arrays_1d(dtype, min_size=1))
    nulls = np.array(data.draw(st.lists(st.booleans(), min_size=len(values),
                                        max_size=len(values))))
    func = getattr(xs, name)
    kept = [t for t, null in zip(terms_of(values), nulls) if not null]
    for kind, column in columns(values, nulls).items():
        if not nulls.any():
            check(name, quiet(func, column), kept, dtype)
        elif "nan" in name:
            got = quiet(func, column)
            assert isinstance(got, np.generic), kind
            check(name, got, kept, dtype)
        else:
            with pytest.raises(ValueError, match=rf"{name}: a \(.*\) has {nulls.sum()} "
                                                 r"null\(s\).*nan-variant"):
                func(column)


def test_integers_with_nulls_stay_exact():
    """Nulls in an integer column are left out through where=, not by
    reading the column as float64 (which rounds 2**60 + 1)."""
    big = [2**60 + 1, None, 2**60 + 1, -(2**61), 3]
    terms = [2**60 + 1, 2**60 + 1, -(2**61), 3]
    for column in (pl.Series(big), pa.array(big), pa.chunked_array([big[:2], big[2:]])):
        assert_same(xs.exact_nansum(column), exact_sum_oracle(terms, FLOAT64))
        assert_same(xs.exact_nanmean(column), exact_mean_oracle(terms, FLOAT64))
        assert_same(xs.exact_count(column, skip_nan=True), np.int64(4))
    assert_same(xs.exact_nansum(pl.Series(big), where=np.array([True, True, False, True, True])),
                exact_sum_oracle([2**60 + 1, -(2**61), 3], FLOAT64))
    assert xs.exact_nansum(pa.array([True, None, True])) == 2.0
    small = [7, None, 2, 4]
    for column in (pl.Series(small), pa.array(small)):
        check_var(xs.exact_nanvar(column, ddof=1), [7, 2, 4], 1, FLOAT64, False)


def test_functions_without_where_refuse_nulls_they_cannot_skip():
    # The grouped functions leave nulls out as terms of no group, exactly.
    got = xs.exact_grouped_sum(pl.Series([2**53 + 1, None, 1]), np.array([0, 0, 0]), 1,
                               skip_nan=True)
    assert_same(got, np.array([exact_sum_oracle([2**53 + 1, 1], FLOAT64)]))
    with pytest.raises(ValueError, match=r"exact_moving_sum: a .* 1 null"):
        xs.exact_moving_sum(pa.array([1, None, 2]), 2)
    # Floating nulls are NaNs to a function that skips NaN.
    got = xs.exact_grouped_sum(pl.Series([1.5, None, 2.0]), np.array([0, 0, 1]), 2,
                               skip_nan=True)
    assert_same(got, np.array([1.5, 2.0]))
    with pytest.raises(ValueError, match=r"exact_add\.accumulate: a .* 1 null"):
        xs.exact_add.accumulate(pa.array([1.0, None]))
    with pytest.raises(ValueError, match=r"exact_dot: b .* 1 null"):
        xs.exact_dot(pl.Series([1.0, 2.0]), pl.Series([1.0, None]))


def test_tables_are_refused_with_what_to_do():
    df = pl.DataFrame({"k": [1, 2, 3], "x": [1e100, 1.0, -1e100]})
    with pytest.raises(TypeError, match=r"exact_sum: a is a polars DataFrame, a table of "
                                        r"columns.*pl\.all\(\)\.map_batches\(exact_sum"):
        xs.exact_sum(df)
    with pytest.raises(TypeError, match="polars LazyFrame"):
        xs.exact_mean(df.lazy())
    table = pa.table({"k": [1, 2, 3], "x": [1e100, 1.0, -1e100]})
    with pytest.raises(TypeError, match=r"exact_nansum: a is a pyarrow Table.*column_names"):
        xs.exact_nansum(table)
    with pytest.raises(TypeError, match="pyarrow RecordBatch"):
        xs.exact_sum(table.to_batches()[0])
    # The recipes the messages give.
    per_column = df.select(pl.all().map_batches(xs.exact_sum, returns_scalar=True))
    assert per_column.row(0) == (6, 1.0)
    assert {n: float(xs.exact_sum(c)) for n, c in zip(table.column_names, table.columns)} == {
        "k": 6.0, "x": 1.0}


def test_other_arguments_and_dtypes():
    s = pl.Series([1.0, 2.0**-30, -1.0], dtype=pl.Float64)
    assert_same(xs.exact_sum(s, dtype=np.float32), np.float32(2.0**-30))
    assert_same(xs.exact_dot(s, pa.array([1.0, 1.0, 1.0])), np.float64(2.0**-30))
    assert_same(xs.exact_add.accumulate(pa.chunked_array([[1e100], [1.0, -1e100]])),
                np.array([1e100, 1e100, 1.0]))
    with pytest.raises(TypeError, match="unsupported input dtype"):
        xs.exact_sum(pl.Series(["a", "b"]))
    assert math.isnan(xs.exact_sum(pa.array([1.0, float("nan")])))     # a NaN is no null
