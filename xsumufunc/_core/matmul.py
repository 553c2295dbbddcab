"""exact_matmul: every entry of a matrix product correctly rounded, from
exact BLAS products of integer slices of the operands and a proven bound.

Design (after Ozaki's error-free splitting; truncated, with a proof)
--------------------------------------------------------------------
For C = A @ B with A (n, k), B (k, m), row i of A is scaled by 2**-e_i and
column j of B by 2**-f_j, with max|A[i, :]| < 2**e_i (frexp): a = A/2**e_i
and b = B/2**f_j have magnitudes below 1.  With beta bits per slice, the
scaled rows are cut from the top (S_0 = a * 2**beta):

    T_1 = rint(S_0), R_1 = S_0 - T_1,  T_2 = rint(R_1 * 2**beta),
    R_2 = R_1 * 2**beta - T_2,

so a = 2**-beta (T_1 + R_1) = 2**-beta T_1 + 2**-2beta (T_2 + R_2), with
|T_1| <= 2**beta, |T_2| <= 2**(beta-1) and |R_1|, |R_2| <= 1/2.  Every step is
exact in float64: a power-of-two scaling (ldexp; one landing in the
subnormal range moves S_0 by at most 2**-1075, covered by the slack
below), rint, and the subtraction of a value's integer part.  The same for
the columns of B: U_1, U_2, Q_1, Q_2 and the scaled whole W = S_0 of b.

Exact GEMMs.  Every product T_s[i, l] * U_t[l, j] is an integer of
magnitude at most 2**(2*beta), so every partial sum of any subset of the k
products, and every fused multiply-add on them, is an integer of magnitude
at most k * 2**(2*beta).  beta is the largest integer with
k * 2**(2*beta) <= 2**53 (beta = 21 for k = 1000): then all of them are
float64 values, and a BLAS GEMM (``np.matmul`` in float64) returns
G_st = T_s @ U_t exactly, whatever its blocking, summation order or use of
FMA.  G_12 + G_21 is exact too (each at most k * 2**(2*beta-1)).

Bounded GEMMs.  The rest is formed by GEMMs that do round:

    a.b = 2**-2beta G_11 + 2**-3beta (G_12 + G_21)                 (exact)
        + 2**-3beta (T_1 @ Q_2 + T_2 @ Q_1 + R_2 @ W)              (rounded)

(expand a = 2**-beta T_1 + 2**-2beta T_2 + 2**-2beta R_2 and b likewise).
For any summation order, with or without FMA, a computed product of k
terms x_l y_l is within gamma_k * sum |x_l y_l| of the exact one
(gamma_k = k u / (1 - k u), u = 2**-53; Higham, Accuracy and Stability,
sec. 3.1), plus at most k * 2**-1074 where values underflow.  With
|Q|, |R| <= 1/2, |T_2| <= 2**(beta-1), sum_l |T_1[i, l]| <= |S_0[i]|_1 + k/2 and
|W[:, j]|_1 computed as float sums raised by (k + 2) * 2**-52, the rounded
part (two more additions included) is within

    2**-3beta * (gamma_k + 2u(1 + gamma_k)) * (|T_1,i|_1 / 2 + k 2**(beta-2) + |W_j|_1 / 2)

of its exact value: about k**3 * 2**-106 relative to the result, which is
why the inner dimension is taken in chunks of at most K_CHUNK terms.  The
exact part is summed by an error-free TwoSum into (hi, err); lo = err +
rounded part, whose own rounding adds 2**-52 |lo|.  Chunks of the inner
dimension add up the same way (TwoSum on hi, the bounds added).  Results
of at most 24 bits need one exact GEMM (T_1 @ U_1) and two bounded ones
(T_1 @ Q_1 + R_1 @ W, scaled by 2**-2beta).

Decision.  c, d = TwoSum(hi, lo); r is c rounded to the result's
precision p.  The exact a.b rounds to r when

    |c - r| + |d| + bound + 2**-1000 < half the gap from r to its
    neighbours (a quarter of r's ulp when r is a power of two),

checked with a relative slack of 2**-40 on the left, in the scaled units;
scaling back by 2**(e_i + f_j) is exact and rounds alike when the result
is a normal number of the result format, which is checked.  Rows and
columns with a NaN or Inf, zero, subnormal or overflowing results, entries
near a midpoint, and operands the slicing does not take (complex values,
64-bit integers beyond 2**53, small or thin products) get the exact dot
product (``_core/dot.py``), so every entry is correctly rounded.

Cost: six GEMMs per chunk for float64 results (three for float32), a few
passes over the operands to slice them, and a few over the result; the
slices are taken in blocks of rows and columns within SCRATCH_BYTES each.
"""

import math

import numpy as np

from .._ufuncs import (
    _outer_product,
    exact_dot_state_round_ufunc,
    exact_dot_state_ufunc,
    exact_dot_ufunc,
)
from . import dtypes
from . import stateformat as fmt
from .dot import _PLAIN_CALL_DTYPES, default_result
from .dot import dot as exact_dot
from .states import merge_dot_states

_F64 = np.dtype(np.float64)
_NUMPY_FLOATS = {np.dtype(np.float16), np.dtype(np.float32), _F64}
_U = 2.0**-53

#: Bytes for the slices of one block of rows of A (as many for B, and for
#: the temporaries of a block of the result).
SCRATCH_BYTES = 24 << 20

#: The inner dimension is taken in chunks of at most this many terms: the
#: bound of the inexact GEMMs grows as k**3 * 2**-106 (beta shrinks with k).
K_CHUNK = 8192

#: Products with fewer multiply-adds than this, or with fewer than
#: _MIN_SIDE rows or columns, are taken as exact dots (the slicing costs a
#: few passes over both operands, which a small or thin product does not
#: repay).
_MIN_WORK = 1 << 18
_MIN_SIDE = 32

#: Entries taken as exact dots in one gathered batch (rows of both operands
#: copied: 16 * k bytes per entry).
_GATHER_BYTES = 16 << 20

#: Bounds the rounding of values that underflow on the way (a few times
#: k * 2**-1074 in every unit used here): entries this small are left to the
#: exact dot anyway.
_TINY = 2.0**-1000


def slice_bits(k):
    """The largest beta with k * 2**(2*beta) <= 2**53."""
    return (53 - (k - 1).bit_length()) // 2 if k > 1 else 26


def exact_depth(p):
    """Slices per operand in the exact GEMMs: 1 for results of up to 24
    bits (one exact GEMM, two bounded), else 2 (three exact, three bounded)."""
    return 1 if p <= 24 else 2


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _gamma(k):
    """Higham's gamma_k = k*u / (1 - k*u): the relative bound of any
    summation order (FMA or not) of k products."""
    return k * _U / (1 - k * _U)


def scales(x):
    """The row exponents e (max|x[i]| < 2**e, 0 for a zero row) and the rows
    holding a NaN or Inf (their exponent 0)."""
    if x.shape[1] == 0:
        return np.zeros(len(x), np.int64), np.zeros(len(x), bool)
    top = np.maximum(np.max(x, axis=1), -np.min(x, axis=1)).astype(_F64)
    bad = ~np.isfinite(top)
    top[bad] = 0.0
    return np.frexp(top)[1].astype(np.int64), bad


class _Slices:
    """The rows of x (r, kc) scaled by 2**(beta - e): ``whole`` (S_0), the
    integer slices ``t`` and the remainders ``r`` after each (|r| <= 1/2),
    and ``norm1``, an upper bound of each row's 1-norm of S_0.  Rows of NaN
    or Inf (bad) are sliced as zeros."""

    def __init__(self, x, e, bad, beta, depth):
        with np.errstate(over="ignore", invalid="ignore"):      # bad rows: zeroed next
            scaled = np.ldexp(x, (beta - e)[:, None], dtype=_F64)
        if bad.any():
            scaled[bad] = 0.0
        self.whole = scaled
        self.norm1 = np.sum(np.abs(scaled), axis=1) * (1 + (x.shape[1] + 2) * 2.0**-52)
        self.t, self.r = [], []
        rest = scaled
        for level in range(depth):
            if level:
                rest = rest * 2.0**beta
            t = np.rint(rest)
            rest = rest - t
            self.t.append(t)
            self.r.append(rest)

    def transposed(self):
        """The same for columns: every array transposed (views)."""
        self.whole = self.whole.T
        self.t = [t.T for t in self.t]
        self.r = [r.T for r in self.r]
        return self


def _chunk(a_sl, b_sl, beta, depth, k):
    """(hi, lo, bound) of one chunk of the inner dimension, in the scaled
    units: hi + lo is within bound of the exact sum of a_il * b_lj."""
    g = _gamma(k) + 2 * _U * (1 + _gamma(k))      # a GEMM, then two additions
    t1 = a_sl.norm1[:, None] + k / 2               # >= the 1-norm of T_1
    nb = b_sl.norm1[None, :]
    if depth == 1:
        hi = np.matmul(a_sl.t[0], b_sl.t[0])          # exact
        hi *= 2.0 ** (-2 * beta)
        lo = np.matmul(a_sl.t[0], b_sl.r[0])
        lo += np.matmul(a_sl.r[0], b_sl.whole)
        lo *= 2.0 ** (-2 * beta)
        bound = (2.0 ** (-2 * beta) * g) * (0.5 * t1 + 0.5 * nb)
        return hi, lo, bound
    hi = np.matmul(a_sl.t[0], b_sl.t[0])              # exact
    hi *= 2.0 ** (-2 * beta)
    level3 = np.matmul(a_sl.t[0], b_sl.t[1])
    level3 += np.matmul(a_sl.t[1], b_sl.t[0])         # exact: both <= k * 2**(2*beta-1)
    level3 *= 2.0 ** (-3 * beta)
    hi, err = _two_sum(hi, level3)
    del level3
    rem = np.matmul(a_sl.t[0], b_sl.r[1])
    rem += np.matmul(a_sl.t[1], b_sl.r[0])
    rem += np.matmul(a_sl.r[1], b_sl.whole)
    rem *= 2.0 ** (-3 * beta)
    lo = err + rem
    del err, rem
    bound = (2.0 ** (-3 * beta) * g) * (0.5 * t1 + k * 2.0 ** (beta - 2) + 0.5 * nb)
    bound += 2.0**-52 * np.abs(lo)
    return hi, lo, bound


def _decide(hi, lo, bound, p):
    """The candidate rounded to p bits (scaled units) and where it is proven
    the correctly rounded value of every number within `bound` of hi + lo."""
    c, d = _two_sum(hi, lo)
    if p < 53:
        m, ex = np.frexp(c)
        r = np.ldexp(np.rint(np.ldexp(m, p)), ex - p)
    else:
        r = c
    m, ex = np.frexp(r)
    ulp = np.ldexp(1.0, ex - p)
    half_gap = np.where(np.abs(m) == 0.5, 0.25 * ulp, 0.5 * ulp)
    left = (np.abs(c - r) + np.abs(d) + bound + _TINY) * (1 + 2.0**-40)
    return r, (left < half_gap) & (r != 0)


def _block(fa, fb, rows, cols, a_scale, b_scale, b_cache, fmt_of_result, out):
    """out[rows, cols] = the entries of that block that the slices decide;
    returns the mask of the undecided ones.  b_cache: the B slices of the
    block's columns when k is one chunk (else None)."""
    p, emin, emax = fmt_of_result
    depth = exact_depth(p)
    k = fa.shape[1]
    (e, bad_a), (f, bad_b) = a_scale, b_scale
    total = None
    for k0 in range(0, k, K_CHUNK):
        inner = slice(k0, k0 + K_CHUNK)
        kc = min(K_CHUNK, k - k0)
        beta = slice_bits(kc)
        a_sl = _Slices(fa[rows, inner], e[rows], bad_a[rows], beta, depth)
        b_sl = b_cache if b_cache is not None else _Slices(
            fb[inner, cols].T, f[cols], bad_b[cols], beta, depth).transposed()
        part = _chunk(a_sl, b_sl, beta, depth, kc)
        del a_sl
        if total is None:
            total = part
            continue
        hi, lo, bound = total
        hi, err = _two_sum(hi, part[0])
        first = lo + err
        lo = first + part[1]
        total = hi, lo, bound + part[2] + 2.0**-52 * (np.abs(first) + np.abs(lo))
    r, decided = _decide(*total, p)
    exponent = e[rows][:, None] + f[cols][None, :]
    with np.errstate(over="ignore", under="ignore"):
        value = np.ldexp(r, np.clip(exponent, -4000, 4000))
    magnitude = np.abs(value)
    # A normal number of the result format (halved: 2**(emax+1) is no float64).
    decided &= (magnitude >= math.ldexp(1.0, emin)) & (magnitude * 0.5 < math.ldexp(1.0, emax))
    decided &= ~bad_a[rows][:, None] & ~bad_b[cols][None, :]
    np.copyto(out[rows, cols], value, where=decided, casting="unsafe")
    return ~decided


def _balanced(total, step):
    """Blocks of at most `step` covering range(total), of near-equal sizes."""
    count = -(-total // max(step, 1))
    size = -(-total // max(count, 1))
    return [slice(i, i + size) for i in range(0, total, size)]


def _exact_entries(a, b, rows, cols, out, result):
    """out[rows, cols] = the exact dots of those rows of a and columns of b,
    gathered in batches within _GATHER_BYTES."""
    k = a.shape[1]
    step = max(1, _GATHER_BYTES // (16 * max(k, 1)))
    bt = b.T
    for start in range(0, len(rows), step):
        r, c = rows[start:start + step], cols[start:start + step]
        left = a[r]
        if left.dtype.kind == "c":
            left = np.conj(left)             # exact_dot conjugates its first operand
        out[r, c] = exact_dot(left, bt[c], dtype=result)


def _sliceable(x):
    """x as values the slicing and the float64 dot loops take exactly (real
    NumPy floats as they are: blocks are widened as they are read;
    integers as float64; other formats as float32), or None."""
    if x.dtype.kind == "c":
        return None
    if x.dtype.kind in "biu":
        parts = dtypes.float64_parts(x, split=False)
        return None if parts is None else parts[0]
    if dtypes.native(x.dtype) in _NUMPY_FLOATS:
        return x                          # (any byte order: the loops cast)
    return x.astype(np.float32)          # bfloat16 and smaller formats: exact


def _product_2d(a, b, out, result):
    """out[...] = a @ b (2-D), every entry correctly rounded into result."""
    n, k = a.shape
    m = b.shape[1]
    if n == 0 or m == 0:
        return
    if k == 0:
        out[...] = 0
        return
    fa = fb = None
    if n * m * k >= _MIN_WORK and min(n, m) >= _MIN_SIDE:
        fa, fb = _sliceable(a), _sliceable(b)
    if fa is None or fb is None:
        _all_by_dots(a, b, out, result)
        return
    fmt_of_result = dtypes.FORMATS[result]
    depth = exact_depth(fmt_of_result[0])
    kc = min(k, K_CHUNK)
    per_line = 8 * kc * (2 * depth + 1)           # whole, slices, remainders
    # Blocks of the result: about ten temporaries of 8 * side**2 bytes each.
    side = max(_MIN_SIDE, math.isqrt(SCRATCH_BYTES // 80))
    a_scale, b_scale = scales(fa), scales(fb.T)
    undecided_rows, undecided_cols = [], []
    for cols in _balanced(m, min(side, SCRATCH_BYTES // per_line)):
        b_cache = None
        if k <= K_CHUNK:
            b_cache = _Slices(fb[:, cols].T, b_scale[0][cols], b_scale[1][cols],
                              slice_bits(k), depth).transposed()
        for rows in _balanced(n, min(side, SCRATCH_BYTES // per_line)):
            undecided = _block(fa, fb, rows, cols, a_scale, b_scale, b_cache,
                               fmt_of_result, out)
            ri, ci = np.nonzero(undecided)
            undecided_rows.append(ri + rows.start)
            undecided_cols.append(ci + cols.start)
    rows = np.concatenate(undecided_rows)
    cols = np.concatenate(undecided_cols)
    if rows.size:
        _exact_entries(a, b, rows, cols, out, result)


def _rows_of(x):
    """x with contiguous rows (a copy when they are not and it fits the
    scratch, else x itself: the dot loops take any strides, more slowly)."""
    if x.strides[-1] != x.itemsize and x.nbytes <= 2 * SCRATCH_BYTES:
        return np.ascontiguousarray(x)
    return x


def _all_by_dots(a, b, out, result):
    """Every entry as an exact dot: a row of a against all columns of b at a
    time (the loop's fast case: one operand broadcast); when a is b's
    transpose (a Gram matrix), the upper triangle only.  Real operands whose
    contiguous copies would not fit twice SCRATCH_BYTES go by chunks of the
    inner dimension (_dots_by_chunks)."""
    gram = (a.shape == b.T.shape and a.strides == b.T.strides
            and a.__array_interface__["data"] == b.__array_interface__["data"])
    fa, fb = _sliceable(a), _sliceable(b)
    if fa is not None and fb is not None and (
            8 * a.shape[1] * (a.shape[0] + b.shape[1]) > 2 * SCRATCH_BYTES):
        _dots_by_chunks(fa, fb, gram, out, result)
        return
    if fa is None or fb is None:
        left = _rows_of(np.conj(a) if a.dtype.kind == "c" else a)
        bt = left if gram and a.dtype.kind != "c" else _rows_of(b.T)

        def row(i, first):
            return exact_dot(left[i], bt[first:], dtype=result)
    else:
        left = _rows_of(fa)
        bt = left if gram else _rows_of(fb.T)
        signature = (_F64, _F64, result)

        def row(i, first):
            return exact_dot_ufunc(left[i], bt[first:], signature=signature)
    for i in range(a.shape[0]):
        first = i if gram else 0
        out[i, first:] = row(i, first)
    _mirror(out, gram)


def _mirror(out, gram):
    """A Gram matrix's lower triangle from its upper one."""
    if gram:
        upper = np.triu_indices(out.shape[0], 1)
        out[upper[::-1]] = out[upper]


def _dots_by_chunks(fa, fb, gram, out, result):
    """_all_by_dots of float64 operands by chunks of the inner dimension:
    each chunk of both copied contiguous (within SCRATCH_BYTES), its exact
    dot states added to the running ones, every entry rounded once at the
    end."""
    n, k = fa.shape
    m = fb.shape[1]
    step = max(1, SCRATCH_BYTES // (8 * (n + m)))
    first = [i if gram else 0 for i in range(n)]
    total = None
    for k0 in range(0, k, step):
        left = np.ascontiguousarray(fa[:, k0:k0 + step])
        right = left if gram else np.ascontiguousarray(fb[k0:k0 + step].T)
        states = np.concatenate([
            exact_dot_state_ufunc(left[i], right[first[i]:], signature=(_F64, _F64, fmt.NATIVE))
            for i in range(n)])
        total = states if total is None else merge_dot_states(np.stack([total, states], axis=-2))
    values = exact_dot_state_round_ufunc(total, signature=(fmt.NATIVE, result))
    at = 0
    for i in range(n):
        count = m - first[i]
        out[i, first[i]:] = values[at:at + count]
        at += count
    _mirror(out, gram)


def result_dtype(da, db):
    """exact_dot's result dtype for these operands."""
    if da.kind == "c" or db.kind == "c":
        res = np.result_type(da, db)
        return res if res in dtypes.COMPLEX_RESULTS else np.dtype(np.complex128)
    return default_result(da, db)


#: Plain 2-D products of at most this many multiply-adds take one call of
#: the exact dot loop (_small_product): below it, the per-call set-up of the
#: general path (checks, a Python step per row) is most of the cost.
SMALL_CALL_WORK = 1 << 12


def _small_product(a, b):
    """a @ b of two float64 (float32) matrices of one native dtype, every
    entry correctly rounded, or None where this short path does not apply
    (the general path then decides, with its errors and warnings).  An
    inner dimension of 1 makes every entry one product, rounded once: one
    compiled pass (_ufuncs._outer_product) computes them and checks that
    each is finite; a NaN, Inf or overflow goes to the general path, whose
    loop warns as exact_dot does.  Other small products are one call of
    the exact dot loop over the broadcast rows and columns."""
    done = _outer_product(a, b)
    if done is not None:
        return done
    if not (type(a) is np.ndarray and type(b) is np.ndarray and a.dtype == b.dtype
            and a.dtype in _PLAIN_CALL_DTYPES and a.ndim == 2 and b.ndim == 2
            and a.shape[1] == b.shape[0]):
        return None
    n, k = a.shape
    m = b.shape[1]
    if k == 1 or not 0 < n * k * m <= SMALL_CALL_WORK:
        return None
    return exact_dot_ufunc(a[:, None], b.T)     # (n, 1, k) against (m, k): (n, m)


def matmul(a, b):
    """The NumPy body of exact_matmul."""
    done = _small_product(a, b)
    if done is not None:
        return done
    name = "exact_matmul"
    dtypes.reject_masked(a, name)
    dtypes.reject_masked(b, name)
    a, b = np.asarray(a), np.asarray(b)
    for x, arg in ((a, "a"), (b, "b")):
        dtypes.input_kind(dtypes.native(x.dtype), f"{name}: {arg}")
        if x.ndim == 0:
            raise ValueError(f"{name}: {arg} must have at least one dimension (matmul "
                             "takes no scalars)")
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        raise ValueError(f"{name}: a has {a2.shape[-1]} columns but b has {b2.shape[-2]} "
                         f"rows (shapes {a.shape} and {b.shape})")
    try:
        batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    except ValueError:
        raise ValueError(f"{name}: the leading axes of shapes {a.shape} and {b.shape} do "
                         "not broadcast") from None
    da, db = dtypes.native(a.dtype), dtypes.native(b.dtype)
    result = result_dtype(da, db)
    n, m = a2.shape[-2], b2.shape[-1]
    out = np.empty(batch + (n, m), result)
    av = np.broadcast_to(a2, batch + a2.shape[-2:])
    bv = np.broadcast_to(b2, batch + b2.shape[-2:])
    for index in np.ndindex(*batch):
        _product_2d(av[index], bv[index], out[index], result)
    if da.kind in "biu" and db.kind in "biu" and out.size:
        out += 0            # +0 for a zero sum of integer products (see dot.integer_operands)
    if b.ndim == 1:
        out = out[..., 0]
    if a.ndim == 1:
        out = out[..., 0, :] if b.ndim > 1 else out[..., 0]
    return out[()] if out.ndim == 0 else out

