"""Exact variance and standard deviation (the NumPy bodies of exact_var,
exact_std and their nan-variants).

For the n terms of a row, with S1 their exact sum and S2 the exact sum of
their squares (an exact dot product of the row with itself), the variance
about the exact mean is

    var = sum((x - S1/n)**2) / (n - ddof) = (n*S2 - S1**2) / (n * (n - ddof)),

an exact rational.  S1 is an exact state and S2 an exact dot state (both
from the C loops, one pass each); both become Python integers, and
the rational is rounded once (``rational.round_rational``), or its square
root is (``rational.sqrt_rational``), into the result dtype.  The moments
(count, S1, S2) merge by adding, which is how the Dask backend
gets the same bits for every chunking.

The finishing step is a Python loop over the results (not over the terms):
a few microseconds per result.
"""

import warnings
from fractions import Fraction

import numpy as np

from .._ufuncs import exact_dot_state_ufunc, exact_sum_state_ufunc
from . import dtypes, norm
from . import stateformat as fmt
from .rational import round_rational, sqrt_rational
from .spec import NO_VALUE, ReductionSpec, as_input, check_out

_F64 = np.dtype(np.float64)


def check_ddof(ddof, correction, func_name):
    """ddof (or NumPy 2's alias correction) as an exact Fraction: an integer,
    or a float with an integral value (the array API's correction=1.0)."""
    if correction is not NO_VALUE:
        if ddof != 0:
            raise ValueError(f"{func_name}: ddof and correction can't be provided "
                             "simultaneously")
        ddof = correction
    if isinstance(ddof, (bool, np.bool_)) or not isinstance(
            ddof, (int, float, np.integer, np.floating, Fraction)):
        raise TypeError(f"{func_name}: ddof must be a real number, not {ddof!r}")
    if not np.isfinite(float(ddof)) or Fraction(ddof).denominator != 1:
        raise ValueError(f"{func_name}: ddof must be an integer (degrees of freedom), "
                         f"not {ddof!r}")
    return Fraction(ddof)


def result_dtype(in_dtype, dtype, out, func_name):
    """The real dtype a variance is rounded into: dtype=, else out's dtype,
    else the input's real dtype (float64 for bool and integers)."""
    if dtype is not None:
        return dtypes.as_result_dtype(dtype, "real", func_name, "dtype")
    if out is not None:
        return dtypes.as_result_dtype(out.dtype, "real", func_name, "out dtype")
    return dtypes.component(dtypes.default_result(in_dtype))


class Moments:
    """The exact moments of rows of terms: counts (R,), S1 states (R, [2,] LENGTH),
    S2 as exact dot states of the terms with themselves (R, [2,] DOT_LENGTH)
    and a flag per row for a NaN or Inf term.  A complex row has two
    components (real, imaginary)."""

    def __init__(self, counts, s1, s2, special):
        self.counts, self.s1, self.s2, self.special = counts, s1, s2, special

    @classmethod
    def of_rows(cls, rows, keep, func_name):
        """Moments of the terms of `rows` (R, n) where `keep` (R, n) is True
        (keep None: every term)."""
        comps = (rows,) if rows.dtype.kind != "c" else (rows.real, rows.imag)
        s1, s2 = [], []
        for comp in comps:
            values = comp
            if values.dtype.kind in "biu":
                values = dtypes.exactly_float64(values, func_name, "a")
            else:
                values = values.astype(dtypes.native(values.dtype), copy=False)
            if keep is not None:
                values = np.where(keep, values, values.dtype.type(0))
            native = values.dtype
            s1.append(exact_sum_state_ufunc(values, signature=(native, fmt.NATIVE)))
            s2.append(exact_dot_state_ufunc(values, values,
                                            signature=(native, native, fmt.NATIVE)))
        if len(comps) == 1:
            s1, s2 = s1[0], s2[0]
        else:
            s1, s2 = np.stack(s1, axis=-2), np.stack(s2, axis=-2)
        flags = s1[..., fmt.FLAGS]
        special = ((flags & fmt.SPECIALS) != 0)
        if special.ndim == 2:
            special = special.any(axis=-1)
        n = rows.shape[-1]
        counts = (np.full(rows.shape[0], n, fmt.NATIVE) if keep is None
                  else np.count_nonzero(keep, axis=-1).astype(fmt.NATIVE))
        return cls(counts, s1, s2, special)

    def numerator(self, i):
        """n*S2 - S1**2 of row i as (N, E): N * 2**E, N an int >= 0."""
        n = int(self.counts[i])
        complex_row = self.s1.ndim == 3
        parts = []
        for c in range(2 if complex_row else 1):
            a = norm.state_integer(self.s1[i, c] if complex_row else self.s1[i])
            b, e2 = norm.dot_state_integer(self.s2[i, c] if complex_row else self.s2[i])
            e = min(e2, 2 * fmt.UNIT_EXPONENT)
            parts.append(((n * b << (e2 - e)) - (a * a << (2 * fmt.UNIT_EXPONENT - e)), e))
        lowest = min(e for _, e in parts)
        return sum(value << (e - lowest) for value, e in parts), lowest


def finish(moments, ddof, result, std, func_name):
    """Round each row's variance (or its root, std) once into `result`."""
    out = np.empty(moments.counts.shape, result)
    fmt_of_result = dtypes.FORMATS[result]
    warned = False
    for i in range(out.size):
        n = int(moments.counts[i])
        dof = n - ddof
        if dof <= 0 and not warned:
            warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=4)
            warned = True
        if moments.special[i]:
            out[i] = np.nan
            continue
        num, exponent = moments.numerator(i)
        if dof <= 0:
            out[i] = np.inf if num else np.nan
            continue
        # var = num * 2**exponent / (n * dof), dof = p/q exactly.
        top, bottom = num * dof.denominator, n * dof.numerator
        if std:
            out[i] = sqrt_rational(top, bottom, exponent, fmt_of_result)
        else:
            out[i] = round_rational(top, bottom, exponent, fmt_of_result)
    return out


def variance(func_name, a, axis, dtype, out, ddof, keepdims, where, skip_nan, correction,
             std):
    """exact_var / exact_std (skip_nan: the nan-variants) of NumPy input."""
    a, kind = as_input(a, func_name)
    ddof = check_ddof(ddof, correction, func_name)
    spec = ReductionSpec.parse(func_name, a, axis, keepdims=keepdims, where=where,
                               skip_nan=skip_nan, rounds=False)
    if out is not None:
        out = check_out(out, spec.out_shape, func_name)
    result = result_dtype(a.dtype, dtype, out, func_name)
    keep = spec.mask
    if spec.skip_nan:
        keep = ~np.isnan(a) if keep is None else keep & ~np.isnan(a)
    # The reduced axes last, as rows (a view when the layout allows).
    order = [i for i in range(a.ndim) if i not in spec.axes] + list(spec.axes)
    shape = (int(np.prod(spec.outer_shape, dtype=np.int64)), spec.terms_per_result)
    rows = np.transpose(a, order).reshape(shape)
    keep_rows = None if keep is None else np.transpose(keep, order).reshape(shape)
    res = finish(Moments.of_rows(rows, keep_rows, func_name), ddof, result, std, func_name)
    res = res.reshape(spec.out_shape)
    if out is not None:
        np.copyto(out, res, casting="same_kind")
        return out
    return res[()] if res.ndim == 0 else res
