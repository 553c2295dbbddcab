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

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np

from .._ufuncs import (
    _grouped_var_ufunc,
    exact_dot_state_ufunc,
    exact_state_merge_ufunc,
    exact_sum_state_ufunc,
)
from . import dtypes, norm, states
from . import rows as rows_module
from . import stateformat as fmt
from .rational import round_rational, sqrt_rational
from .spec import NO_VALUE, ReductionSpec, as_input, check_out

_F64 = np.dtype(np.float64)
_I64 = np.dtype(np.int64)

#: Result dtypes of the compiled variance loops (src/kernels/moving/xs_moving_var.c: moving
#: windows and groups): every float result (tests empty it to run the exact
#: paths alone).
LOOP_RESULTS = {np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.float16),
                dtypes.BFLOAT16, *dtypes.CODES}

#: ddof as the compiled loops' int64: beyond this it decides nothing anyway.
_DDOF_LIMIT = 1 << 62

#: Rows of up to this many terms go to the compiled loop first (about 40 ns
#: a term); longer rows cost less as exact moments (about 9 us a row plus a
#: few ns a term).
ROW_LOOP_TERMS = 256


def loop_ddof(ddof):
    """An integer ddof as the compiled loops take it (clipped to int64)."""
    return min(max(int(ddof), -_DDOF_LIMIT), _DDOF_LIMIT)


def loop_applies(dtype, result, ddof):
    """Whether the compiled variance loops can take values of `dtype` into
    `result` with this ddof (real values, an integer ddof)."""
    return dtype.kind != "c" and result in LOOP_RESULTS and ddof.denominator == 1


def grouped_loop(values, ends, ddof, std, out):
    """The compiled loop over runs of float64 `values` ending at `ends`
    (src/kernels/moving/xs_moving_var.c: xs_grouped_var): each run's variance (std: its
    root) into out where decided; returns the decided flags."""
    decided = np.empty(len(ends), bool)
    _grouped_var_ufunc(values, np.asarray(ends, _I64), loop_ddof(ddof), std,
                       out=(out, decided),
                       signature=(_F64, _I64, _I64, np.dtype(bool), out.dtype, np.dtype(bool)))
    return decided


def _decided_rows(rows, keep, ddof, result, std, out):
    """The variances (std: roots) of the short rows the compiled loop
    decides, into out, in batches of about 2^20 terms; returns the rows it
    leaves (every row where it does not apply)."""
    count, n = rows.shape
    every = np.arange(count)
    if n > ROW_LOOP_TERMS or not loop_applies(rows.dtype, result, ddof):
        return every
    decided = np.zeros(count, bool)
    step = max(1, (1 << 20) // max(n, 1))
    for r0 in range(0, count, step):
        part = dtypes.float64_parts(rows[r0:r0 + step], split=False)
        if part is None:
            continue                      # 64-bit integers beyond 2**53
        values = part[0]
        if keep is None:
            flat = values.reshape(-1)
            ends = n * np.arange(1, len(values) + 1, dtype=_I64)
        else:
            kept = keep[r0:r0 + step]
            flat = values[kept]
            ends = np.cumsum(np.count_nonzero(kept, axis=1), dtype=_I64)
        decided[r0:r0 + step] = grouped_loop(flat, ends, ddof, std, out[r0:r0 + step])
    return np.flatnonzero(~decided)


def check_ddof(ddof, correction, func_name):
    """ddof (or NumPy 2's alias correction) as an exact int or Fraction: any finite
    real number (the array API's correction is a float; NumPy takes
    ddof=1.5 too).  A float is read exactly, so n - ddof is an exact
    rational and the variance is still rounded once."""
    if type(ddof) is int and correction is NO_VALUE:
        return ddof             # the common call, without the checks below (a small call's cost)
    if correction is not NO_VALUE:
        if ddof != 0:
            raise ValueError(f"{func_name}: ddof and correction can't be provided "
                             "simultaneously")
        ddof = correction
    if isinstance(ddof, (bool, np.bool_)) or not isinstance(
            ddof, (int, float, np.integer, np.floating, Fraction)):
        raise TypeError(f"{func_name}: ddof must be a real number, not {ddof!r}")
    if not np.isfinite(float(ddof)):
        raise ValueError(f"{func_name}: ddof must be a finite real number, not {ddof!r}")
    if isinstance(ddof, (float, np.floating)):
        ddof = Fraction(*ddof.as_integer_ratio())      # exact, for every float width
    # An integer as an int: Fraction arithmetic costs microseconds a call.
    return int(ddof) if ddof.denominator == 1 else Fraction(ddof)


def no_dof(counts, ddof):
    """Where n - ddof <= 0 for the integer counts n: n <= floor(ddof)."""
    return counts <= math.floor(ddof)


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
        sums = []
        for comp in comps:
            if comp.dtype.kind not in "biu":
                parts = [comp.astype(dtypes.native(comp.dtype), copy=False)]
            else:
                parts = dtypes.float64_parts(comp, split=False)
            sums.append(cls.sums_of_parts(parts, keep) if parts is not None
                        else cls._sums_of_wide_integers(comp, keep))
        if len(comps) == 1:
            s1, s2 = sums[0]
        else:
            s1, s2 = (np.stack([s[k] for s in sums], axis=-2) for k in (0, 1))
        return cls.of_sums(s1, s2, rows.shape, keep)

    @staticmethod
    def sums_of_parts(parts, keep):
        """S1 and S2 states of the real terms given by `parts` (each term the
        exact sum of its parts, see dtypes.float64_parts) where `keep`:
        S1 the exact sum of every part, S2 = sum(x*x) one exact dot
        (norm.square_operands)."""
        if keep is not None:
            # -0.0 for the left-out terms: a sum of -0.0 keeps the sign of a
            # zero sum, so S1 (whose flags a mean or sum reads) is that of
            # the kept terms; a row with no kept term is the empty sum, +0.0
            # (records.of_moments also empties such a row).
            pad = np.where(np.any(keep, axis=-1, keepdims=True), -0.0, 0.0)
            parts = [np.where(keep, p, pad.astype(p.dtype)) for p in parts]
        native = parts[0].dtype
        flat = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=-1)
        left, right = norm.square_operands(parts)
        s1 = exact_sum_state_ufunc(flat, signature=(native, fmt.NATIVE))
        s2 = exact_dot_state_ufunc(left, right, signature=(native, native, fmt.NATIVE))
        return s1, s2

    @classmethod
    def _sums_of_wide_integers(cls, comp, keep):
        """sums_of_parts of 64-bit integer rows that a float64 cannot all
        hold, split into their halves a chunk of columns at a time (the
        halves and operands take about 80 bytes a term) and the chunks'
        states merged, so that the copies stay near rows.SCRATCH_BYTES
        for long rows."""
        step = max(1, rows_module.SCRATCH_BYTES // (80 * max(len(comp), 1)))
        s1 = s2 = None
        for first in range(0, max(comp.shape[-1], 1), step):
            piece = slice(first, first + step)
            one, two = cls.sums_of_parts(dtypes.float64_parts(comp[:, piece]),
                                         None if keep is None else keep[:, piece])
            if s1 is None:
                s1, s2 = one, two
            else:
                s1 = exact_state_merge_ufunc(np.stack([s1, one], axis=-2))
                s2 = states.merge_dot_states(np.stack([s2, two], axis=-2))
        return s1, s2

    @classmethod
    def of_sums(cls, s1, s2, shape, keep):
        """Moments of rows of `shape` (R, n) from their S1 and S2 states."""
        flags = s1[..., fmt.FLAGS]
        special = ((flags & fmt.SPECIALS) != 0)
        if special.ndim == 2:
            special = special.any(axis=-1)
        counts = (np.full(shape[0], shape[-1], fmt.NATIVE) if keep is None
                  else np.count_nonzero(keep, axis=-1).astype(fmt.NATIVE))
        return cls(counts, s1, s2, special)

    def numerators(self):
        """n*S2 - S1**2 of every row as ([N, ...], E): row i is N[i] * 2**E,
        N[i] an int >= 0 (the states of all rows read as integers at once)."""
        parts = 2 if self.s1.ndim == 3 else 1
        s1 = norm.state_integers(self.s1)
        s2, e2 = norm.dot_state_integers(self.s2)
        e = min(e2, 2 * fmt.UNIT_EXPONENT)
        up2, up1 = e2 - e, 2 * fmt.UNIT_EXPONENT - e
        out = []
        for i, n in enumerate(self.counts.tolist()):
            total = 0
            for k in range(i * parts, (i + 1) * parts):
                total += (n * s2[k] << up2) - (s1[k] * s1[k] << up1)
            out.append(total)
        return out, e


def warn_no_dof(stacklevel=3):
    """NumPy's warning for a variance with n - ddof <= 0 (the result is inf or NaN)."""
    warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=stacklevel + 1)


def finish(moments, ddof, result, std, func_name, warn=True):
    """Round each row's variance (or its root, std) once into `result`
    (warn: warn_no_dof for the first row with n - ddof <= 0)."""
    out = np.empty(moments.counts.shape, result)
    fmt_of_result = dtypes.FORMATS[result]
    warned = not warn
    if ddof.denominator == 1:
        ddof = int(ddof)                    # (int arithmetic: faster than Fraction's)
    numerators, exponent = moments.numerators()
    special = moments.special.tolist()
    for i, n in enumerate(moments.counts.tolist()):
        dof = n - ddof
        if dof <= 0 and not warned:
            warn_no_dof(stacklevel=4)
            warned = True
        if special[i]:
            out[i] = np.nan
            continue
        num = numerators[i]
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
    if (type(a) is np.ndarray and a.ndim == 1 and a.dtype == _F64 and type(ddof) is int
            and 0 <= ddof < a.size <= ROW_LOOP_TERMS and axis is None and dtype is None
            and out is None and not keepdims and where is True and not skip_nan
            and correction is NO_VALUE):
        # The common short call, with the least Python in front of the
        # compiled loop (what _decided_rows does for one row).
        res = np.empty(1, _F64)
        if grouped_loop(a, (a.size,), ddof, std, res)[0]:
            return res[0]
    a, kind = as_input(a, func_name)
    ddof = check_ddof(ddof, correction, func_name)
    spec = ReductionSpec.parse(func_name, a, axis, keepdims=keepdims, where=where,
                               skip_nan=skip_nan, rounds=False)
    if out is not None:
        out = check_out(out, spec.out_shape, func_name)
    result = result_dtype(a.dtype, dtype, out, func_name)
    res = np.empty(spec.outer_shape, result)
    arrays = [a] if spec.mask is None else [a, spec.mask]
    # Blocks of results, their terms as views or bounded copies (never a
    # whole copy of a broadcast or transposed view), so that the scratch
    # stays near rows.SCRATCH_BYTES.
    for cut, pieces in rows_module.row_blocks(arrays, spec.axes, _RESULT_BYTES):
        block = res[cut + (Ellipsis,)]          # a view, also of a 0-d res
        block[...] = _block_variance(pieces, spec.skip_nan, ddof, result, std,
                                     func_name).reshape(block.shape)
    if out is not None:
        np.copyto(out, res.reshape(spec.out_shape), casting="same_kind")
        return out
    res = res.reshape(spec.out_shape)
    return res[()] if res.ndim == 0 else res


#: What a block of variance holds per result: S1 and S2 states (two of
#: each for complex) and the integers read from them.
_RESULT_BYTES = 4 * (fmt.LENGTH + fmt.DOT_LENGTH) * fmt.NATIVE.itemsize


def _selected(piece, skip_nan):
    """The rows of a piece (rows.row_blocks) and which terms count (None: all)."""
    rows, keep = piece[0], (piece[1] if len(piece) > 1 else None)
    if skip_nan:
        keep = ~np.isnan(rows) if keep is None else keep & ~np.isnan(rows)
    return rows, keep


def _merge(states, more, merge):
    """States (..., LENGTH) merged with more of the same shape, piece axis -2."""
    return merge(np.moveaxis(np.stack([states, more]), 0, -2))


def _block_variance(pieces, skip_nan, ddof, result, std, func_name):
    """The variances (std: roots) of the rows of one block of row_blocks:
    one piece (whole rows) goes through the compiled loop for short rows
    first; several pieces (parts of long rows) are read into moments and
    merged piece by piece."""
    first = _selected(next(pieces), skip_nan)
    second = next(pieces, None)
    if second is None:
        rows, keep = first
        res = np.empty(len(rows), result)
        todo = _decided_rows(rows, keep, ddof, result, std, res)
        if todo.size == len(rows):
            return finish(Moments.of_rows(rows, keep, func_name), ddof, result, std, func_name)
        if todo.size:
            res[todo] = finish(Moments.of_rows(rows[todo], None if keep is None else keep[todo],
                                               func_name), ddof, result, std, func_name)
        return res
    total = Moments.of_rows(*first, func_name)
    for piece in itertools.chain([second], pieces):
        more = Moments.of_rows(*_selected(piece, skip_nan), func_name)
        total = Moments(total.counts + more.counts,
                        _merge(total.s1, more.s1, exact_state_merge_ufunc),
                        _merge(total.s2, more.s2, states.merge_dot_states),
                        total.special | more.special)
    return finish(total, ddof, result, std, func_name)
