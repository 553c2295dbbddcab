"""Low-precision updates whose storage is a byte-coded format (ml_dtypes'
float8, float6 and float4): the same rules as the C loops of the wider
formats, in NumPy.

Every operation is an exact value rounded once.  Rounding to nearest goes
through the exact reductions: ``a + b`` is the exact sum of the row
``[a, b]`` (float64 holds every operand exactly), rounded once into the
format by the same loop as ``exact_sum(..., dtype=format)``, so the format's
own overflow rule applies (Inf, NaN or saturation; see docs/lowprec.md).
Stochastic rounding finds the two neighbours of the exact value in the
format's sorted table of values and decides with the random integer exactly
(every quantity compared is exact in float64, see _stochastic).
"""

import functools

import numpy as np

from .._core.reduce import exact_reduce
from .._core.spec import NO_VALUE

FLOAT64 = np.dtype(np.float64)


def round_nearest(values, dtype, func):
    """The exact sum of the last axis of float64 `values`, rounded once to
    nearest into the byte-coded dtype (warnings name `func`)."""
    return np.asarray(exact_reduce(func, values, -1, dtype, None, False, NO_VALUE, True,
                                   False))


def add_nearest(a, b, dtype, func):
    """a + b (float64 arrays of exact values) rounded once into dtype, as
    float64 values of dtype."""
    pair = np.stack(np.broadcast_arrays(a, b), axis=-1)
    return round_nearest(pair, dtype, func).astype(FLOAT64)


@functools.cache
def _grid(dtype):
    """The non-negative finite values of dtype, ascending, then one more:
    the largest plus its ulp (the neighbour of the largest value away from
    zero, which stands for overflow)."""
    values = np.arange(256, dtype=np.uint8).view(dtype).astype(FLOAT64)
    table = np.unique(np.abs(values[np.isfinite(values)]))
    return np.append(table, 2 * table[-1] - table[-2])


def _two_sum(a, b):
    """hi = fl(a + b) and lo with hi + lo = a + b exactly (Knuth)."""
    hi = a + b
    bb = hi - a
    lo = (a - (hi - bb)) + (b - bb)
    return hi, np.where(np.isfinite(hi), lo, 0.0)


def stochastic(hi, lo, r, k, dtype, func):
    """hi + lo (float64, |lo| <= ulp(hi)/2) rounded stochastically into
    dtype: away from zero exactly when r < frac * 2**k, frac the distance
    from the neighbour towards zero in units of the gap between the two
    neighbours.  Returns an array of dtype.

    With a = |hi|, e = lo seen from a, down and up the neighbours of a + e
    and q = up - down (a power of two), away <=> r q 2**-k < (a - down) + e.
    a - down is exact (Sterbenz: down <= a <= 2 down, or down = 0), so is
    the threshold r q 2**-k; their difference is exact, or so much larger
    than |e| that its sign decides (the argument of src/lowprec/xs_lowprec.c).
    """
    grid = _grid(dtype)
    with np.errstate(invalid="ignore"):
        a = np.abs(hi)
        e = np.where(hi > 0, lo, -lo)
        finite = np.isfinite(hi) & (hi != 0) & (a < grid[-1])
        a_safe = np.where(finite, a, 0.0)
        idx = np.searchsorted(grid, a_safe, side="right") - 1
        # a exactly a value of the format and the exact value below it:
        # its neighbours are the value before and a itself.
        below = finite & (grid[idx] == a_safe) & (e < 0) & (idx > 0)
        idx = np.where(below, idx - 1, idx)
        down = grid[idx]
        up = grid[np.minimum(idx + 1, len(grid) - 1)]
        q = up - down
        threshold = np.ldexp(r.astype(FLOAT64), (np.frexp(np.where(q > 0, q, 1.0))[1] - 1) - k)
        away = (a_safe - down) - threshold > -e
        magnitude = np.where(away, up, down)
        magnitude = np.where(magnitude >= grid[-1], np.inf, magnitude)   # overflow
        rounded = np.where(finite, np.copysign(magnitude, hi),
                           np.where(np.isfinite(hi) & (a >= grid[-1]),
                                    np.copysign(np.inf, hi), hi))
    return round_nearest(np.asarray(rounded)[..., None], dtype, func)


def kahan_add(w, c, u):
    """Algorithm 1 of Zamirai et al.: every operation rounded to nearest, in
    w's dtype for the weights and in c's dtype (w's, or a wider float) for
    the compensation.  u float64 (exact).  Returns (w_new, c_new)."""
    func = "kahan_add"
    w64, c64 = w.astype(FLOAT64), c.astype(FLOAT64)
    y = add_nearest(u, -c64, c.dtype, func)        # compensate
    s = add_nearest(w64, y, w.dtype, func)         # accumulate
    t = add_nearest(s, -w64, c.dtype, func)        # the error...
    c_new = add_nearest(t, -y, c.dtype, func)      # ...of this step
    return s.astype(w.dtype), c_new.astype(c.dtype)


def kahan_add_computed(w, c, u, compute):
    """Kahan's update computed in the wider float dtype `compute` (optimi's
    way: float32): u rounded into it, every operation rounded to nearest in
    it, then the weights rounded into w's dtype and the compensation, the
    error of that rounding measured in `compute`, into c's dtype.  u
    float64 (exact).  Returns (w_new, c_new)."""
    func = "kahan_add"
    w64, c64 = w.astype(FLOAT64), c.astype(FLOAT64)
    u = round_nearest(np.asarray(u, FLOAT64)[..., None], compute, func).astype(FLOAT64)
    y = add_nearest(u, -c64, compute, func)        # compensate
    s = add_nearest(w64, y, compute, func)         # accumulate
    w_new = round_nearest(s[..., None], w.dtype, func)
    t = add_nearest(w_new.astype(FLOAT64), -w64, compute, func)    # what was added...
    c_new = round_nearest(add_nearest(t, -y, compute, func)[..., None], c.dtype, func)
    return w_new, c_new                            # ...minus what was meant


def stochastic_add(w, u, r, k):
    """w + u (u float64) exactly (two-sum in float64), rounded
    stochastically into w's dtype with k-bit integers r."""
    hi, lo = _two_sum(*np.broadcast_arrays(w.astype(FLOAT64), u))
    return stochastic(hi, lo, np.broadcast_to(r, hi.shape), k, w.dtype, "stochastic_add")


def stochastic_round(x, r, k, dtype):
    """float64 x rounded stochastically into dtype with k-bit integers r."""
    r = np.broadcast_to(r, x.shape)
    return stochastic(x, np.zeros_like(x), r, k, dtype, "stochastic_round")
