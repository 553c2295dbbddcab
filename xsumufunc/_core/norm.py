"""The Euclidean norm, rounded once from the square root of the exact sum
of squares.

``sqrt(round(S))`` is not always the correctly rounded ``sqrt(S)``, so the
exact sum of squares S = sum(x*x) is never rounded on the way.  The exact
dot loops hold every product of two float64 exactly (squares of 1e300 and
of 1e-300 included), so each step is an exact dot product:

0. Rows of float64 (or integers a float64 holds) into float64 norms and of
   float32 into float32 norms, up to LONG_ROW_TERMS terms: one pass each in
   C (``src/kernels/dot/xs_norm.c``: a two-double sum of squares with a proven bound
   decides the root).  Only the rows it leaves (ties, a hair from a
   midpoint, subnormal or overflowing norms) and other dtypes take the
   steps below.
1. A candidate c: the row scaled by a power of two 2**-k that brings its
   largest magnitude into [1/2, 1), its exact dot with itself rounded once,
   square-rooted, scaled back and rounded into the result dtype.  c is
   within an ulp of the answer.
2. A proof, vectorized over the rows.  For results narrower than float64,
   most candidates are proven by the error bound of their float64 root
   alone (_far_from_midpoints).  Otherwise: c is the correctly rounded root iff
   (c - below/2)**2 < S < (c + ulp/2)**2, where ulp is c's ulp and below the
   gap to the next value down (half the ulp at the bottom of a binade).
   S - (c -+ gap/2)**2 = x.x - c*c +- c*gap - (gap/2)*(gap/2) is the exact
   dot of the row extended by three terms, whose rounding has the sign of
   the exact value (0 only for a tie, or below half the smallest
   subnormal: both left unproven).  Rows of MEDIUM_ROW_TERMS or more are
   read once into exact dot states instead, and each bracket is that state
   merged with the state of the three terms.  When one side fails, c's
   neighbour on that side is checked.
3. Rows left unproven (ties, tiny or overflowing results), rows longer
   than LONG_ROW_TERMS and rows of 64-bit integers that a float64 cannot
   hold (their exact halves, square_operands): S as a Python integer from
   an exact dot state, an integer square root with a sticky bit, rounded
   once (``rational.sqrt_rational``).  A Python step per such row, a few
   microseconds, small beside the row's own terms for the long rows.

Rows are taken in blocks (_NORM_BLOCK_BYTES), so the scratch is bounded.
"""

import itertools
import math

import numpy as np

from .._ufuncs import (
    _norm_rows_ufunc,
    _state_integers,
    exact_dot_state_round_ufunc,
    exact_dot_state_ufunc,
    exact_dot_ufunc,
)
from . import dtypes, states
from . import rows as rows_module
from . import stateformat as fmt
from .rational import sqrt_rational

_F64, _F32 = np.dtype(np.float64), np.dtype(np.float32)

#: Rows longer than this that the compiled loop leaves (it decides long
#: contiguous float64 and float32 rows from a SIMD sum of squares, and sums
#: no longer rows one term at a time: src/kernels/dot/xs_norm.h) go to the exact integer root
#: (one dot state each, no copy of the row); shorter rows are extended by
#: three terms (a copy) for the vectorized proof.
LONG_ROW_TERMS = 1 << 15

#: Rows of this many terms or more are read once, into exact dot states
#: (1,656 bytes each), and proven from those; shorter rows are copied with
#: three more terms and proven by exact dots.
MEDIUM_ROW_TERMS = 64

#: Scratch for a block of short rows: about 40 bytes per term (the copies
#: extended by three terms) and 64 per row.
_NORM_BLOCK_BYTES = 16 << 20

#: Candidates below this are left to the exact path: the gap terms
#: (gap/2 down to an eighth of c's ulp) must be float64 values.
_SMALLEST_CHECKED = 2.0**-1000


def state_integers(states):
    """The exact values of states (..., LENGTH), in row-major order, as a
    list of integer counts of 2**-1075 (one compiled step a state:
    _ufuncs._state_integers)."""
    return _state_integers(np.ascontiguousarray(states, dtype=fmt.NATIVE), (0,))


def state_integer(state):
    """The exact value of one state as an integer count of 2**-1075."""
    return state_integers(state)[0]


def dot_state_integers(dot_states):
    """The exact values of exact dot states (..., DOT_LENGTH), in row-major
    order: ([m, ...], e), each value m * 2**e (the main part weighs
    2**DOT_SCALE, the fine one 1, the huge one 2**(2 * DOT_SCALE))."""
    scale = fmt.DOT_SCALE
    values = _state_integers(np.ascontiguousarray(dot_states, dtype=fmt.NATIVE),
                             (scale, 0, 2 * scale))
    return values, fmt.UNIT_EXPONENT - scale


def dot_state_integer(dot_state):
    """The exact value of an exact dot state: (m, e) with value m * 2**e."""
    values, exponent = dot_state_integers(dot_state)
    return values[0], exponent


def _exact_root(row, fmt_of_result):
    """The correctly rounded norm of one finite float64 row (any length)."""
    state = exact_dot_state_ufunc(row, row, signature=(_F64, _F64, fmt.NATIVE))
    total, exponent = dot_state_integer(state)
    return sqrt_rational(total, 1, exponent, fmt_of_result)


def square_operands(parts):
    """Two operands whose exact dot is the sum of the squares of terms given
    by their exact float64 parts (dtypes.float64_parts): a term h + l has
    the square h*h + h*(2l) + l*l, so [h, h, l].[h, 2l, l] (2l is exact)."""
    if len(parts) == 1:
        return parts[0], parts[0]
    high, low = parts
    return (np.concatenate([high, high, low], axis=-1),
            np.concatenate([high, 2 * low, low], axis=-1))


def _wide_integer_rows(part, fmt_of_result, flat_result):
    """Norms of rows of 64-bit integers (2-D) that a float64 cannot all
    hold: each row's sum of squares as one exact dot state of its halves
    (square_operands), merged over chunks of the row, and its integer root
    (rational.sqrt_rational).  Copies and states stay near _NORM_BLOCK_BYTES
    (halves and operands: 64 bytes per term)."""
    n = part.shape[-1]
    cols = max(1, _NORM_BLOCK_BYTES // 64)
    step = max(1, _NORM_BLOCK_BYTES // (64 * min(n, cols) + 8 * fmt.DOT_LENGTH))
    for start in range(0, len(part), step):
        total = None
        for first in range(0, n, cols):
            left, right = square_operands(
                dtypes.float64_parts(part[start:start + step, first:first + cols]))
            st = exact_dot_state_ufunc(left, right, signature=(_F64, _F64, fmt.NATIVE))
            total = st if total is None else states.merge_dot_states(
                np.stack([total, st], axis=-2))
        for i, state in enumerate(total):
            value, exponent = dot_state_integer(state)
            flat_result[start + i] = sqrt_rational(value, 1, exponent, fmt_of_result)


def _gaps(c, p, emin):
    """c's ulp (in a format of p bits, smallest normal 2**emin) and the gap
    to the next value down: half the ulp at a binade's first value, except
    at 2**emin, where the subnormals keep the same spacing."""
    fraction, exponent = np.frexp(c)
    ulp = np.ldexp(1.0, exponent - p)
    below = np.where((fraction == 0.5) & (exponent - 1 > emin), 0.5 * ulp, ulp)
    return ulp, below


def _bracket_terms(c, fmt_of_result, shift=None):
    """Where the bracket of candidates c applies, and for its two sides the
    three extra terms (left and right factors, each (rows, 3)) that extend
    a row's x.x to S - (c - below/2)**2, then to S - (c + ulp/2)**2:
    x.x - c*c + side*c*gap - (gap/2)*(gap/2).  shift: see _bracket."""
    p, emin, emax = fmt_of_result
    valid = np.isfinite(c) & (c >= max(2.0**emin, _SMALLEST_CHECKED)) & \
        (np.frexp(c)[1] <= emax)
    c = np.where(valid, c, 1.0)
    ulp, below = _gaps(c, p, emin)
    if shift is not None:                 # powers of two: exact
        c, ulp, below = (np.ldexp(v, -shift) for v in (c, ulp, below))
    sides = [(np.stack([c, c, 0.5 * gap], axis=-1),
              np.stack([-c, side * gap, -0.5 * gap], axis=-1))
             for side, gap in ((1.0, below), (-1.0, ulp))]
    return valid, sides


def _bracket(values, c, fmt_of_result, shift=None):
    """The signs of S - (c - below/2)**2 and S - (c + ulp/2)**2 for the rows
    of `values` (S their exact sums of squares) and candidates c (float64
    values of the result format), and where the check applies: exact dots
    of the rows extended by _bracket_terms.

    shift: None, or per row the k by which the rows were scaled exactly
    (values = x * 2**-k).  Then the bracket is taken at that scale, where
    its value (about S * 2**-53) is a normal float32, and rounded into
    float32: the sign needs no more, and the short-row dot loop decides that
    rounding from its fast approximation (a float64 rounding of so
    cancelled a sum it could not decide)."""
    valid, sides = _bracket_terms(c, fmt_of_result, shift)
    sign_dtype = _F64 if shift is None else _F32
    signs = [exact_dot_ufunc(np.concatenate([values, left], axis=-1),
                             np.concatenate([values, right], axis=-1),
                             signature=(_F64, _F64, sign_dtype))
             for left, right in sides]
    return signs[0], signs[1], valid


def _far_from_midpoints(root, c, fmt_of_result):
    """Where the candidate c (root rounded into a format narrower than
    float64) is proven without a bracket: root, the float64 root of the
    rounded exact sum of squares of the scaled row, scaled back, is within
    2**-52 * root of the exact root (one rounding of the sum, 2**-53, halved
    by the root; one rounding of the root, 2**-53; terms that underflowed
    in the scaling, below 2**-1000 relative), so c is the correctly
    rounded root when both midpoints around it lie farther than 2**-51 *
    root.  The subtractions are exact (Sterbenz)."""
    p, emin, emax = fmt_of_result
    if p >= 52:
        return np.zeros(c.shape, bool)
    valid = np.isfinite(root) & (c >= 2.0**emin) & (np.frexp(c)[1] <= emax)
    c = np.where(valid, c, 1.0)
    root = np.where(valid, root, 1.0)
    ulp, below = _gaps(c, p, emin)
    margin = np.ldexp(root, -51)
    return valid & (root - (c - 0.5 * below) > margin) & ((c + 0.5 * ulp) - root > margin)


def _prove(c, root, fmt_of_result, bracket):
    """Which candidates c are proven correctly rounded (root: their float64
    root before rounding into the result format), and the candidates after
    one step to a neighbour where a bracket side failed.  bracket(rows, c)
    gives the bracket signs (see _bracket) for those rows."""
    p, emin, _ = fmt_of_result
    proven = _far_from_midpoints(root, c, fmt_of_result)
    if proven.any():                 # bracket only the others
        todo = np.flatnonzero(~proven)
        low, high, valid = (np.zeros(c.shape), np.zeros(c.shape), np.zeros(c.shape, bool))
        low[todo], high[todo], valid[todo] = bracket(todo, c[todo])
    else:
        low, high, valid = bracket(slice(None), c)
    proven |= valid & (low > 0) & (high < 0)
    step = np.where(valid & (low < 0), -1.0, np.where(valid & (high > 0), 1.0, 0.0))
    retry = np.flatnonzero(step)
    if retry.size:
        ulp, below = _gaps(c[retry], p, emin)
        neighbour = c[retry] + np.where(step[retry] < 0, -below, ulp)
        low, high, valid = bracket(retry, neighbour)
        c[retry] = neighbour
        proven[retry] = valid & (low > 0) & (high < 0)
    return proven, c


def _scaled_candidates(values, result_dtype):
    """Candidates from the rows scaled by powers of two (2**-k brings each
    row's largest magnitude into [1/2, 1)): the float64 roots and their
    roundings into the result dtype (as float64); also the scaled rows and
    k."""
    largest = np.max(np.abs(values), axis=-1, initial=0.0)
    k = np.frexp(largest)[1]
    scaled = np.ldexp(values, -k[:, np.newaxis])          # exact, up to underflow
    s = exact_dot_ufunc(scaled, scaled, signature=(_F64, _F64, _F64))
    root = np.ldexp(np.sqrt(s), k)
    return root, root.astype(result_dtype).astype(_F64), scaled, k


def _short_rows(values, result_dtype, fmt_of_result, flat_result):
    """Norms of finite float64 rows (2-D, fewer than MEDIUM_ROW_TERMS terms
    each) into flat_result: candidates from the scaled rows, brackets as
    exact dots of the rows extended by three terms, taken on the scaled
    rows where the scaling was exact (no value lost bits below 2**-1074)."""
    with np.errstate(all="ignore"):
        root, c, scaled, k = _scaled_candidates(values, result_dtype)
        exact = np.all(np.ldexp(scaled, k[:, np.newaxis]) == values, axis=-1)
        everywhere = bool(exact.all())

        def bracket(rows, cand):
            if everywhere:
                return _bracket(scaled[rows], cand, fmt_of_result, shift=k[rows])
            rows = np.arange(len(values))[rows]
            signs = [np.empty(rows.size), np.empty(rows.size), np.empty(rows.size, bool)]
            for part, shift in ((exact[rows], True), (~exact[rows], False)):
                if part.any():
                    got = _bracket(scaled[rows[part]] if shift else values[rows[part]],
                                   cand[part], fmt_of_result,
                                   shift=k[rows[part]] if shift else None)
                    for whole, piece in zip(signs, got):
                        whole[part] = piece
            return tuple(signs)

        proven, c = _prove(c, root, fmt_of_result, bracket)
    proven |= np.max(np.abs(values), axis=-1, initial=0.0) == 0     # c is 0: exact
    _finish(values, c, proven, result_dtype, fmt_of_result, flat_result)


def _medium_rows(values, result_dtype, fmt_of_result, flat_result):
    """Norms of finite float64 rows of MEDIUM_ROW_TERMS terms or more: one
    pass over each row (its exact dot state); candidates from the state
    rounded, brackets as that state merged with the state of the three
    extra terms, so that no row is copied or read again."""
    rows = exact_dot_state_ufunc(values, values, signature=(_F64, _F64, fmt.NATIVE))

    def bracket(idx, cand):
        valid, sides = _bracket_terms(cand, fmt_of_result)
        signs = []
        for left, right in sides:
            extra = exact_dot_state_ufunc(left, right, signature=(_F64, _F64, fmt.NATIVE))
            merged = states.merge_dot_states(np.stack([rows[idx], extra], axis=-2))
            signs.append(exact_dot_state_round_ufunc(merged, signature=(fmt.NATIVE, _F64)))
        return signs[0], signs[1], valid

    with np.errstate(all="ignore"):
        s = exact_dot_state_round_ufunc(rows, signature=(fmt.NATIVE, _F64))
        root = np.sqrt(s)
        c = root.astype(result_dtype).astype(_F64)
        # A sum of squares rounded to 0 is 0 only for a row of zeros.
        zero = s == 0
        maybe = np.flatnonzero(zero)
        zero[maybe] = ~values[maybe].any(axis=-1)
        # Sums of squares that overflow or are not normal: scaled candidates.
        off = np.flatnonzero(~((s >= 2.0**-1000) & np.isfinite(s)) & ~zero)
        if off.size:
            root[off], c[off] = _scaled_candidates(values[off], result_dtype)[:2]
        proven, c = _prove(c, root, fmt_of_result, bracket)
    proven |= zero                                            # an exact 0
    _finish(values, c, proven, result_dtype, fmt_of_result, flat_result)


def _finish(values, c, proven, result_dtype, fmt_of_result, flat_result):
    flat_result[proven] = c[proven].astype(result_dtype)
    for i in np.flatnonzero(~proven):         # ties, tiny or overflowing results
        flat_result[i] = _exact_root(values[i], fmt_of_result)


#: The compiled one-pass loop (src/kernels/dot/xs_norm.c) for rows of float64 into
#: float64 norms and of float32 into float32 norms; False sends every row
#: down the paths below (the tests use it to reach them).
NATIVE_ROWS = True


def norm2_vector(x):
    """The 2-norm of a float64 or float32 vector as a 0-d array of its
    dtype, when the one-pass loop decides it (as _native_rows does for one
    row); None otherwise: the short path of small calls."""
    if not NATIVE_ROWS or x.dtype not in (_F64, _F32):
        return None
    norm, decided = _norm_rows_ufunc(x)
    return np.asarray(norm) if decided else None


def _native_rows(part, result_dtype, out):
    """Norms of the rows of `part` (2-D, real) that the one-pass loop of
    src/kernels/dot/xs_norm.c decides, into out; the indices of the rows it leaves, or
    None where it does not apply (other dtypes, 64-bit integers beyond
    2**53)."""
    if not NATIVE_ROWS:
        return None
    if part.dtype == _F32 and result_dtype == _F32:
        values = part
    elif result_dtype == _F64 and (part.dtype == _F64 or part.dtype.kind in "biu"):
        values = dtypes.float64_parts(part, split=False)
        if values is None:
            return None
        values = values[0]
    else:
        return None
    norms, decided = _norm_rows_ufunc(values)
    out[decided] = norms[decided]
    return np.flatnonzero(~decided)


def _block(part, result_dtype, fmt_of_result, long_rows, out):
    """Norms of the rows of `part` (2-D, real) into out, by the paths of
    the module docstring."""
    values = dtypes.float64_parts(part, split=False)
    if values is None:                # 64-bit integers beyond 2**53
        # Their rows go to _wide_integer_rows; the others (every value
        # within 2**53 a float64) to the paths below.
        big = (part > 2**53).any(axis=-1)
        if part.dtype.kind == "i":
            big |= (part < -2**53).any(axis=-1)
        for rows_of, where in ((_wide_integer_rows, np.flatnonzero(big)),
                               (None, np.flatnonzero(~big))):
            if where.size:
                norms = np.empty(where.size, result_dtype)
                if rows_of is None:
                    norms[...] = norm2_rows(part[where], result_dtype)
                else:
                    rows_of(part[where], fmt_of_result, norms)
                out[where] = norms
        return
    values = values[0]
    with np.errstate(invalid="ignore"):
        has_nan = np.isnan(values).any(axis=-1)
        has_inf = np.isinf(values).any(axis=-1)
    special = has_nan | has_inf
    out[has_inf] = math.inf
    out[has_nan] = math.nan
    finite = np.flatnonzero(~special)
    if long_rows:
        for i in finite:
            out[i] = _exact_root(values[i], fmt_of_result)
    else:
        rows_of = _short_rows if part.shape[-1] < MEDIUM_ROW_TERMS else _medium_rows
        if finite.size == len(values):
            rows_of(values, result_dtype, fmt_of_result, out)
        elif finite.size:
            norms = np.empty(finite.size, result_dtype)
            rows_of(values[finite], result_dtype, fmt_of_result, norms)
            out[finite] = norms


def norm2_rows(rows, result_dtype):
    """Euclidean norms of the last axis of `rows` (real or complex, any
    supported dtype), each correctly rounded into `result_dtype` (a real
    float dtype).  Returns an array of shape rows.shape[:-1].  Works in
    blocks of rows, so that the scratch stays near _NORM_BLOCK_BYTES."""
    fmt_of_result = dtypes.FORMATS[result_dtype]
    result = np.empty(rows.shape[:-1], result_dtype)
    flat_result = result.reshape(-1)
    n = rows.shape[-1]
    flat_rows = rows.reshape(flat_result.size, n)     # a view for vector_norm's merged rows
    terms = n * (2 if rows.dtype.kind == "c" else 1)
    long_rows = terms > LONG_ROW_TERMS
    block = 1 if long_rows else max(1, _NORM_BLOCK_BYTES // (40 * terms + 64))
    for start in range(0, flat_result.size, block):
        part = flat_rows[start:start + block]
        if part.dtype.kind == "c":
            part = np.concatenate([part.real, part.imag], axis=-1)
        out = flat_result[start:start + block]
        rest = _native_rows(part, result_dtype, out)
        if rest is None:
            _block(part, result_dtype, fmt_of_result, long_rows, out)
        elif rest.size:
            norms = np.empty(rest.size, result_dtype)
            _block(part[rest], result_dtype, fmt_of_result, long_rows, norms)
            out[rest] = norms
    return result


def result_dtype(dtype):
    """The real dtype of the norm of values of `dtype` (float64 for bool and
    integers, the component dtype for complex)."""
    dtype = dtypes.native(dtype)
    if dtype.kind in "biu":
        return _F64
    return dtypes.component(dtype)


#: What norm2 holds per result of a block: a dot state and its integer.
_RESULT_BYTES = 2 * fmt.DOT_LENGTH * fmt.NATIVE.itemsize


def _column_chunks(rows):
    """Views of long rows, a bounded number of terms at a time (row_blocks
    pieces of one array)."""
    cols = max(1, rows_module.SCRATCH_BYTES // (rows_module.TERM_COPY_BYTES * max(len(rows), 1)))
    for first in range(0, max(rows.shape[-1], 1), cols):
        yield [rows[:, first:first + cols]]


def _exact_norms_of_pieces(pieces, count, result_dtype):
    """Norms of `count` rows given as pieces of rows (each [2-D rows], the
    columns of a piece some of each row's terms): the exact sum of squares
    of each piece as a dot state (square_operands of its float64 parts,
    copies of one piece at a time), merged piece by piece, then one exact
    root per row.  NaN where a term is NaN, else inf where one is inf."""
    total = None
    has_nan = np.zeros(count, bool)
    has_inf = np.zeros(count, bool)
    for (rows,) in pieces:
        if rows.dtype.kind == "c":
            rows = np.concatenate([rows.real, rows.imag], axis=-1)
        if rows.dtype.kind == "f" or rows.dtype in dtypes.CODES or rows.dtype == dtypes.BFLOAT16:
            with np.errstate(invalid="ignore"):
                has_nan |= np.isnan(rows).any(axis=-1)
                has_inf |= np.isinf(rows).any(axis=-1)
        left, right = square_operands(dtypes.float64_parts(rows))
        state = exact_dot_state_ufunc(left, right, signature=(_F64, _F64, fmt.NATIVE))
        total = state if total is None else states.merge_dot_states(np.stack([total, state], -2))
    fmt_of_result = dtypes.FORMATS[result_dtype]
    values, exponent = dot_state_integers(total)
    out = np.empty(count, result_dtype)
    for i, value in enumerate(values):
        out[i] = (math.nan if has_nan[i] else math.inf if has_inf[i]
                  else sqrt_rational(value, 1, exponent, fmt_of_result))
    return out


def norm2(x, axes, result_dtype):
    """Euclidean norms of x over `axes` (the kept axes in order), each
    correctly rounded into `result_dtype`, without a whole copy of x
    (rows.row_blocks): short rows that are views by norm2_rows; long rows
    first by the compiled one-pass loop where it applies, the rows it
    leaves and rows that are not views as exact dot states of bounded
    pieces, merged."""
    kept = tuple(x.shape[ax] for ax in range(x.ndim) if ax not in axes)
    result = np.empty(kept, result_dtype)
    n = math.prod(x.shape[ax] for ax in axes)
    terms = n * (2 if x.dtype.kind == "c" else 1)
    for cut, pieces in rows_module.row_blocks([x], axes, _RESULT_BYTES):
        block = result[cut + (Ellipsis,)]
        (rows,) = next(pieces)
        more = next(pieces, None)
        if more is None and terms <= LONG_ROW_TERMS:
            block[...] = norm2_rows(rows, result_dtype).reshape(block.shape)
            continue
        count = block.size
        if more is not None:
            flat = _exact_norms_of_pieces(itertools.chain([[rows]], [more], pieces), count,
                                          result_dtype)
        else:
            flat = np.empty(count, result_dtype)
            rest = _native_rows(rows, result_dtype, flat)
            rest = np.arange(count) if rest is None else rest
            for i in rest:      # one long row at a time, by views of its columns
                flat[i] = _exact_norms_of_pieces(_column_chunks(rows[i:i + 1]), 1,
                                                 result_dtype)[0]
        block[...] = flat.reshape(block.shape)
    return result


def norm_of_moments(moments, result_dtype):
    """Norms from exact moments (moments.Moments: S2 is the exact sum of
    squares, per component for complex), each correctly rounded into
    result_dtype: NaN where a term is NaN, else inf where one is infinite
    (S1's flags say which)."""
    s2 = moments.s2.reshape(len(moments.counts), -1, fmt.DOT_LENGTH)
    flags = moments.s1[..., fmt.FLAGS].reshape(len(moments.counts), -1)
    nan = ((flags & fmt.NAN) != 0).any(axis=-1)
    inf = ((flags & (fmt.POS_INF | fmt.NEG_INF)) != 0).any(axis=-1)
    values, exponent = dot_state_integers(s2)
    parts = s2.shape[1]
    fmt_of_result = dtypes.FORMATS[result_dtype]
    out = np.empty(len(moments.counts), result_dtype)
    for i in range(len(out)):
        total = sum(values[i * parts:(i + 1) * parts])
        out[i] = (math.nan if nan[i] else math.inf if inf[i]
                  else sqrt_rational(total, 1, exponent, fmt_of_result))
    return out
