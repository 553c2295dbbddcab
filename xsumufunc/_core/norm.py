"""The Euclidean norm, rounded once from the square root of the exact sum
of squares.

``sqrt(round(S))`` is not always the correctly rounded ``sqrt(S)``, so the
exact sum of squares S is kept exact to the end:

1. x*x spans about 4200 binades, more than float64's 2100, so the values are
   put in three groups by magnitude, and each group is multiplied by its own
   power of two 2**-s: exactly, into [2**-198, 2**511).
2. Each scaled y is split (Veltkamp) into y = h + l, with h and l of at most
   26 significant bits, so that y*y = h*h + 2*h*l + l*l with each of the
   three terms exact in float64 (no overflow below 2**511, no underflow above
   2**-198).  Each group's terms are summed into an exact state
   (``exact_sum_state_ufunc``).
3. Rows whose values all lie in one group: the candidate sqrt(round(S)),
   rounded into the result dtype, or its neighbour, is proven correctly
   rounded, vectorized, by the signs of S - (c -+ ulp/2)**2 computed as
   exact states (_fast_roots).
4. The other rows (ties, several groups, subnormal or overflowing results):
   the states are read as Python integers (the state format of
   docs/contract.md), shifted by their groups' scales and added: S exactly.
   The square root is an integer square root with enough bits, plus a
   sticky bit for inexactness, rounded once into the result dtype.  This is
   a Python loop over those results (not over the terms).
"""

import math

import numpy as np

from .._ufuncs import (
    exact_state_merge_ufunc,
    exact_state_round_ufunc,
    exact_sum_state_ufunc,
)
from . import dtypes, stateformat
from .rational import sqrt_rational

_F64 = np.dtype(np.float64)
_STATE = stateformat.NATIVE

# (lower bound of |x|, upper bound (excluded), s): the group's values are
# multiplied by 2**-s, which maps every nonzero float64 of the group exactly
# into [2**-198, 2**511) (subnormals included: 2**-1074 * 2**891 is normal).
_GROUPS = ((0.0, 2.0**-380, -891), (2.0**-380, 2.0**315, -196), (2.0**315, math.inf, 513))
#: The scales s of the groups, in _GROUPS' order.
GROUP_SCALES = tuple(s for _, _, s in _GROUPS)
_SPLITTER = 2.0**27 + 1             # Veltkamp's constant for 53-bit doubles



def _square_sum_state(y):
    """The exact state of the sum of y*y over the last axis, for |y| < 2**511
    whose bits are all at or above 2**-250."""
    terms = _split_square(y)
    if 3 * y.shape[-1] <= stateformat.LENGTH:
        # Short rows: one state of the terms side by side is cheaper than
        # three states (69 words each) and a merge.
        return exact_sum_state_ufunc(np.concatenate(terms, axis=-1), signature=(_F64, _STATE))
    parts = [exact_sum_state_ufunc(term, signature=(_F64, _STATE)) for term in terms]
    return exact_state_merge_ufunc(np.stack(parts, axis=-2))


def state_integer(state):
    """The exact value of one state as an integer count of 2**-1075."""
    digits = state[:stateformat.DIGITS]
    low = digits[:-1].astype(f"<u{stateformat.DIGIT_BITS // 8}").tobytes()
    top = int(digits[-1]) << (stateformat.DIGIT_BITS * stateformat.TOP)
    return int.from_bytes(low, "little") + top


def _split_square(y):
    """Three float64 arrays whose exact sum is y*y, for |y| < 2**511 whose
    bits are all at or above 2**-250."""
    t = _SPLITTER * y
    high = t - (t - y)              # the 26 leading bits of y (Veltkamp)
    low = y - high                  # the rest, at most 26 bits: exact
    # y*y = high*high + 2*high*low + low*low, each term exact in float64.
    return high * high, 2.0 * (high * low), low * low


def _bracket(state, c, scale, fmt):
    """For candidates c (float64 values of the result format, in [2**emin,
    2**(emax+1))), the signs of S - (c - ulp/2)**2 and S - (c + ulp/2)**2
    where S = state * 2**(2*scale), and where the check applies (not at the
    bottom of a binade, where the gap below is half the ulp).

    Both squares are exact sums of float64 terms: c*c split as in
    _square_sum_state, c*ulp and ulp*ulp/4 (scalings by powers of two), so
    the signs are those of merged exact states."""
    p, emin, emax = fmt
    fraction, exponent = np.frexp(c)
    valid = np.isfinite(c) & (c >= 2.0**emin) & (fraction != 0.5) & (exponent <= emax)
    c = np.where(valid, c, 1.0)
    exponent = np.where(valid, exponent, 1)
    unit_c = np.ldexp(c, -scale)                     # in the units of the state
    ulp = np.ldexp(1.0, exponent - p - scale)
    square = _split_square(unit_c)
    cross, quarter = unit_c * ulp, ulp * ulp * 0.25
    signs = []
    for side in (1.0, -1.0):        # S - (c - ulp/2)**2, then S - (c + ulp/2)**2
        terms = np.stack([-square[0], -square[1], -square[2], side * cross, -quarter],
                         axis=-1)
        bound = exact_sum_state_ufunc(terms, signature=(_F64, _STATE))
        merged = exact_state_merge_ufunc(np.stack([state, bound], axis=-2))
        signs.append(exact_state_round_ufunc(merged, signature=(_STATE, _F64)))
    return signs[0], signs[1], valid


def _fast_roots(state, scale, fmt, result_dtype):
    """Correctly rounded roots of S = state * 2**(2*scale) where a
    vectorized check proves them, and where it did.

    c is the correctly rounded root iff (c - ulp/2)**2 < S < (c + ulp/2)**2.
    The first candidate, sqrt(round(S)) rounded into the result dtype, is
    within one ulp; when the check fails on one side, its neighbour on that
    side is checked.  Rows left unproven (ties, binade ends, subnormal or
    overflowing results, zero sums) go to the exact integer path."""
    p = fmt[0]
    with np.errstate(all="ignore"):
        scaled = exact_state_round_ufunc(state, signature=(_STATE, _F64))
        c = np.ldexp(np.sqrt(scaled), scale).astype(result_dtype).astype(_F64)
        below, above, valid = _bracket(state, c, scale, fmt)
        proven = valid & (below > 0) & (above < 0)
        step = np.where(valid & (below < 0), -1.0, np.where(valid & (above > 0), 1.0, 0.0))
        retry = np.flatnonzero(step)
        if retry.size:
            ulp = np.ldexp(1.0, np.frexp(c[retry])[1] - p)
            neighbour = c[retry] + step[retry] * ulp
            below, above, valid = _bracket(state[retry], neighbour, scale, fmt)
            c[retry] = neighbour
            proven[retry] = valid & (below > 0) & (above < 0)
    return c.astype(result_dtype), proven


class SquareSums:
    """The exact sums of squares of float64 rows (last axis), kept exact:
    per magnitude group (scale s), the state of the sum of (x * 2**-s)**2.

    has_nan, has_inf: per row (the rows' shape); scales: the groups used;
    states: per group, (rows, LENGTH) states; in_rows: per group, which
    (flat) rows have values in it."""

    def __init__(self, has_nan, has_inf, scales, states, in_rows):
        self.has_nan, self.has_inf = has_nan, has_inf
        self.scales, self.states, self.in_rows = scales, states, in_rows
        self.lowest = min(scales, default=0)

    def integer(self, i):
        """Flat row i's exact sum of squares as (m, e): m * 2**e, m an int."""
        total = sum(state_integer(st[i]) << (2 * (s - self.lowest))
                    for st, s in zip(self.states, self.scales))
        return total, stateformat.UNIT_EXPONENT + 2 * self.lowest


def square_sums(values, every_group=False):
    """:class:`SquareSums` of the last axis of the float64 array `values`
    (NaN and Inf are flagged per row and left out of the sums).  With
    every_group, all three groups are kept, used or not (states to merge
    with those of other parts of the data)."""
    with np.errstate(invalid="ignore"):
        has_nan = np.isnan(values).any(axis=-1)
        has_inf = np.isinf(values).any(axis=-1)
        finite = np.where(np.isfinite(values), np.abs(values), 0.0)
    in_group = [(finite >= low) & (finite < high) & (finite != 0) for low, high, _ in _GROUPS]
    used = [(g, mask) for g, mask in zip(_GROUPS, in_group) if every_group or mask.any()]
    states = []
    for (_, _, scale), mask in used:
        with np.errstate(over="ignore", under="ignore"):     # the others are masked
            y = finite * 2.0**-scale
        if len(used) > 1:
            y = np.where(mask, y, 0.0)
        states.append(_square_sum_state(y).reshape(-1, stateformat.LENGTH))
    in_rows = [mask.any(axis=-1).reshape(-1) for _, mask in used]
    return SquareSums(has_nan, has_inf, [g[2] for g, _ in used], states, in_rows)


def norm2_rows(rows, result_dtype, func_name="vector_norm"):
    """Euclidean norms of the last axis of `rows` (real or complex, any
    supported dtype), each correctly rounded into `result_dtype` (a real
    float dtype).  Returns an array of shape rows.shape[:-1]."""
    fmt = dtypes.FORMATS[result_dtype]
    if rows.dtype.kind == "c":
        rows = np.concatenate([rows.real, rows.imag], axis=-1)
    values = dtypes.exactly_float64(rows, func_name, "x")
    squares = square_sums(values)
    result = np.empty(rows.shape[:-1], result_dtype)
    flat_result = result.reshape(-1)
    flat_nan, flat_inf = squares.has_nan.reshape(-1), squares.has_inf.reshape(-1)
    todo = np.ones(flat_result.size, bool)
    # Rows whose values are all in one group: the vectorized check first.
    in_rows = squares.in_rows
    groups_per_row = np.sum(in_rows, axis=0) if in_rows else np.zeros(flat_result.size, int)
    for scale, state, in_row in zip(squares.scales, squares.states, in_rows):
        rows_of_g = np.flatnonzero(in_row & (groups_per_row == 1) & ~flat_nan & ~flat_inf)
        if rows_of_g.size:
            roots, proven = _fast_roots(state[rows_of_g], scale, fmt, result_dtype)
            flat_result[rows_of_g[proven]] = roots[proven]
            todo[rows_of_g[proven]] = False
    for i in np.flatnonzero(todo):
        if flat_nan[i]:
            flat_result[i] = math.nan
        elif flat_inf[i]:
            flat_result[i] = math.inf
        else:
            total, exponent = squares.integer(i)
            flat_result[i] = sqrt_rational(total, 1, exponent, fmt)
    return result


def result_dtype(dtype):
    """The real dtype of the norm of values of `dtype` (float64 for bool and
    integers, the component dtype for complex)."""
    dtype = dtypes.native(dtype)
    if dtype.kind in "biu":
        return _F64
    return dtypes.component(dtype)
