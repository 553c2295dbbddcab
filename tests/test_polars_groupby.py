"""xsumufunc.polars.exact_group_by (issue 29, item 4): each group's exact
sum, mean and variance rounded once (the oracles), for integer keys (the
NumPy numbering), string and multi-column keys (polars' numbering), null
values left out as polars does."""

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given
from hypothesis import strategies as st
from oracle import FLOAT32, FLOAT64, exact_sum_oracle, terms_of
from oracle_moments import check as check_variance
from oracle_products import exact_mean_oracle
from strategies import arrays_1d

pl = pytest.importorskip("polars", reason="polars is not installed")

from xsumufunc.polars import exact_group_by  # noqa: E402


def _check_groups(out, frame_keys, values, valid, by, dtype, ddof=1):
    for row in out.iter_rows(named=True):
        member = np.ones(len(values), bool)
        for k in by:
            member &= np.array([v == row[k] for v in frame_keys[k]])
        terms = terms_of(values[member & valid])
        assert_same(np.asarray(row["x_sum"], dtype), exact_sum_oracle(terms, dtype))
        if terms:
            assert_same(np.asarray(row["x_mean"], dtype), exact_mean_oracle(terms, dtype))
        check_variance(np.asarray(row["x_var"], dtype), terms, ddof, dtype, False)


@given(data=st.data(), dtype=st.sampled_from([FLOAT64, FLOAT32]), span=st.integers(1, 6),
       key_kind=st.sampled_from(["int", "wide int", "str", "two"]))
def test_grouped_results_are_the_exact_ones_rounded_once(data, dtype, span, key_kind):
    values = data.draw(arrays_1d(dtype, min_size=1))
    n = values.size
    ints = np.array(data.draw(st.lists(st.integers(0, span - 1), min_size=n, max_size=n)))
    if key_kind == "int":
        keys = {"k": ints - 3}
    elif key_kind == "wide int":
        keys = {"k": ints * 10**12}                 # a span NumPy does not tabulate
    elif key_kind == "str":
        keys = {"k": np.array([f"s{i}" for i in ints])}
    else:
        keys = {"k": ints % 2, "j": np.array([f"s{i}" for i in ints // 2])}
    nulls = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    frame = pl.DataFrame({**keys, "x": pl.Series(values)})
    frame = frame.with_columns(pl.when(pl.Series(nulls)).then(None).otherwise(pl.col("x"))
                               .alias("x"))
    by = list(keys)
    out = exact_group_by(frame, by, "x")
    assert out.height == len({tuple(keys[k][i] for k in by) for i in range(n)})
    assert out["x_sum"].dtype == (pl.Float32 if dtype == FLOAT32 else pl.Float64)
    _check_groups(out, keys, values, ~nulls, by, dtype)


def test_arguments_are_checked():
    df = pl.DataFrame({"k": [1], "x": [1.0]})
    with pytest.raises(TypeError, match="polars.DataFrame"):
        exact_group_by({"k": [1]}, "k", "x")
    with pytest.raises(TypeError, match="by must be"):
        exact_group_by(df, [], "x")
    with pytest.raises(ValueError, match="statistics"):
        exact_group_by(df, "k", "x", statistics=["median"])


def test_docstring_examples_run():
    """(tests/test_docs.py runs the modules that import without extras.)"""
    import doctest

    import xsumufunc.polars
    result = doctest.testmod(xsumufunc.polars, optionflags=doctest.NORMALIZE_WHITESPACE,
                             verbose=False)
    assert result.attempted > 0 and result.failed == 0
