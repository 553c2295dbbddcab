"""pandas columns and frames read as the arrays the exact reductions take:
the one rule of the pandas accessor (``df.exact``) and of the Dask DataFrame
statistics (``xsumufunc.dask_dataframe``) for nullable columns, non-numeric
columns and the variables of pairwise statistics.  Imports pandas."""

import numpy as np
import pandas as pd

from .._core import dtypes, pairs


def column_values(column, name, func):
    """A column's values as we reduce them exactly: an ndarray of its own
    dtype, or float64 with NaN for pandas' nullable dtypes (pd.NA); for a
    nullable integer column with NA and values that a float64 cannot hold,
    the list of its two exact float64 halves (dtypes.float64_parts), NaN in
    both where NA."""
    dtype = column.dtype
    if isinstance(dtype, np.dtype):
        try:
            dtypes.input_kind(dtype, func)
        except TypeError:
            raise TypeError(f"{func}: column {name!r} has dtype {dtype}, which is not numeric; "
                            "pass numeric_only=True to leave such columns out") from None
        return column.to_numpy()
    if pd.api.types.is_integer_dtype(dtype):            # nullable: exact, NA -> NaN
        missing = column.isna().to_numpy()
        values = column.to_numpy(dtype=dtype.numpy_dtype, na_value=0)
        if not missing.any():
            return values
        parts = dtypes.float64_parts(values)           # new arrays: integers are cast
        for part in parts:
            part[missing] = np.nan
        return parts[0] if len(parts) == 1 else parts
    if pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)     # nullable: NA -> NaN
        return values
    raise TypeError(f"{func}: column {name!r} has dtype {dtype}, which is not numeric; "
                    "pass numeric_only=True to leave such columns out")


def column_array(column, name, func):
    """column_values as one array, for the statistics that take one (weights,
    pairs): a TypeError for the halves of a nullable integer column."""
    values = column_values(column, name, func)
    if isinstance(values, list):
        raise TypeError(f"{func}: column {name!r} holds missing values and integers beyond "
                        "2**53; fill or cast it first")
    return values


def numeric_columns(df, numeric_only):
    """df, or its numeric and bool columns only (numeric_only)."""
    if not numeric_only:
        return df
    keep = [c for c in df.columns
            if pd.api.types.is_numeric_dtype(df[c].dtype) or pd.api.types.is_bool_dtype(df[c])]
    return df[keep]


def pair_columns(df, numeric_only, func):
    """The columns of df as variables (p, n) for pairwise statistics; pandas'
    missing values as NaN."""
    df = numeric_columns(df, numeric_only)
    columns = [column_array(df[c], c, func) for c in df.columns]
    return df.columns, pairs.stack_variables(columns)
