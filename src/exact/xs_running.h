/*
 * A running exact sum rounded at every step (prefix sums, moving windows),
 * without rounding the accumulator at every step.
 *
 * Beside the exact accumulator (xs_small) the loop keeps an approximation
 * hi + lo of the exact sum S (two doubles) and a bound with
 * |S - (hi + lo)| <= bound.  Each term x is added to both.  When the bound
 * proves that S lies strictly inside the rounding interval of the value
 * hi + lo rounds to in the target format, that value is the correctly
 * rounded S, found in O(1).  Otherwise (S near a rounding boundary, heavy
 * cancellation, a zero, values out of the safe range below, NaN or Inf)
 * the caller rounds the accumulator itself and rebuilds the approximation
 * from it.  So every output is exactly what rounding the accumulator gives;
 * the approximation only decides when that work can be skipped.
 *
 * Adding x (the loop-carried chains are one addition each, for speed):
 * s = fl(hi + x) and its exact error e (Knuth's TwoSum: s + e = hi + x);
 * hi = s; lo = fl(lo + e), off by at most ulp(lo)/2 <= |lo| 2^-53.  So the
 * error grows by at most |lo| 2^-53 per term; the bound grows by twice that
 * (slack for the roundings of its own additions at that scale) and, every
 * XS_RUNNING_BLOCK terms, by the relative XS_RUNNING_GROWTH (more than the
 * roundings of the bound's additions can lose over a block; a decision
 * within a block uses the bound times GROWTH for the same reason).  lo is
 * folded into hi (renormalised, exactly) at the same time.
 *
 * Deciding: r = fl(hi + lo) and its exact error c; rounded = r rounded to
 * the target's precision (on the bits; d = |r - rounded| is exact).  Then
 * |S - rounded| <= d + |c| + bound, and rounded is the answer when that is
 * below the half gap of rounded's rounding interval.
 *
 * Requires round-to-nearest and no contraction into fma (both pinned: see
 * xs_fpenv.h and meson.build).
 */
#ifndef XS_RUNNING_H
#define XS_RUNNING_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "exact/xs_exact.h"
#include "exact/xs_round.h"
#include "exact/xs_small.h"

/* Powers of two whose exponent is written once: the double (a hexadecimal
 * constant pasted from the exponent's digits, 2^e or 2^-e) and its bit
 * pattern come from the same number. */
#define XS_RUNNING_POW2_(e) 0x1p##e
#define XS_RUNNING_POW2(e) XS_RUNNING_POW2_(e)
#define XS_RUNNING_POW2_NEG_(e) 0x1p-##e
#define XS_RUNNING_POW2_NEG(e) XS_RUNNING_POW2_NEG_(e)
#define XS_RUNNING_POW2_BITS(e) ((uint64_t)(XS_F64_EXP_BIAS + (e)) << XS_F64_MANT_BITS)

/* The safe range (see above), 2^1000, its bit pattern (magnitudes order as
 * their patterns do), and the smallest |t| the bound grows by. */
#define XS_RUNNING_MAX_EXP 1000
#define XS_RUNNING_MAX XS_RUNNING_POW2(XS_RUNNING_MAX_EXP)
#define XS_RUNNING_MAX_BITS XS_RUNNING_POW2_BITS(XS_RUNNING_MAX_EXP)
#define XS_RUNNING_TINY 0x1p-900
/* The smallest |sum| whose rounding the approximation decides
 * (xs_running_round, and the vector lanes of xs_moving.c), 2^-800, and its
 * bit pattern. */
#define XS_RUNNING_TINY_SUM_EXP 800
#define XS_RUNNING_TINY_SUM XS_RUNNING_POW2_NEG(XS_RUNNING_TINY_SUM_EXP)
#define XS_RUNNING_TINY_SUM_BITS XS_RUNNING_POW2_BITS(-XS_RUNNING_TINY_SUM_EXP)
/* After a rebuild that could not make the approximation valid (the sum out
 * of the safe range), the next attempt waits this many terms. */
#define XS_RUNNING_RETRY 64
/* Every block of this many terms the bound is multiplied by GROWTH: the
 * roundings of a block of additions to it lose at most BLOCK * 2^-53 of it. */
#define XS_RUNNING_BLOCK 1024
#define XS_RUNNING_GROWTH (1.0 + 0x1p-40)
#define XS_RUNNING_FLOOR 0x1p-1000
/* A decision needs the error below the half gap by this relative margin,
 * more than the roundings of the three-term sum that estimates it. */
#define XS_RUNNING_MARGIN (1.0 - 0x1p-40)

typedef struct {
    double hi, lo;      /* hi + lo approximates the exact sum */
    double bound;       /* |exact - (hi + lo)| <= bound */
    int valid;          /* 0: stale, rebuild from the accumulator first */
    int block_left;     /* terms until the next renormalisation */
    int retry_in;       /* terms until a rebuild is worth trying again */
} xs_running;

/* |x| on the bits (no libm call; NaN stays NaN and fails every range test). */
static inline double xs_running_abs(double x)
{
    return xs_bits_double(xs_double_bits(x) & ~XS_F64_SIGN_BIT);
}

/* The approximation of an empty sum: exactly 0. */
static inline void xs_running_init(xs_running *r)
{
    r->hi = r->lo = 0.0;
    r->bound = XS_RUNNING_FLOOR;
    r->valid = 1;
    r->block_left = XS_RUNNING_BLOCK;
    r->retry_in = 0;
}

/* The exact sum has had x added (or, for a moving window, subtracted: pass
 * -x); follow it.  Outside the safe range the approximation goes stale. */
static inline void xs_running_add(xs_running *r, double x)
{
    if (!(xs_running_abs(x) <= XS_RUNNING_MAX && xs_running_abs(r->hi) <= XS_RUNNING_MAX)) {
        r->valid = 0;                       /* NaN and Inf fail the tests too */
        return;
    }
    double e;
    r->hi = xs_two_sum(r->hi, x, &e);
    r->lo += e;
    /* |lo| + TINY >= max(|lo|, TINY), without a branch. */
    r->bound += (xs_running_abs(r->lo) + XS_RUNNING_TINY) * 0x1p-52;
    if (--r->block_left == 0) {
        r->block_left = XS_RUNNING_BLOCK;
        r->bound *= XS_RUNNING_GROWTH;
        r->hi = xs_two_sum(r->hi, r->lo, &r->lo);     /* exact */
    }
}

/*
 * A moving window: x_in entered and x_out left (both |x| <= XS_RUNNING_MAX;
 * a term that is not one, pass 0).  Here the bound grows by the errors
 * actually made, found exactly by TwoSum, not by an a-priori estimate:
 * d + d_lo = x_in - x_out and hi + e = old hi + d exactly; f = fl(e + d_lo)
 * with error err1 (off the loop-carried chain), lo = fl(lo + f) with error
 * err2, so the approximation moves off the exact sum by exactly err1 + err2 and the bound grows by
 * |err1| + |err2| (its own roundings: GROWTH per block, as above).  While
 * every step is exact (as for sums of a few dozen binades) the bound stays
 * 0 and xs_running_round may decide even a tie (see there).
 */
static inline void xs_running_move(xs_running *r, double x_in, double x_out)
{
    if (!(xs_running_abs(r->hi) <= XS_RUNNING_MAX)) {
        r->valid = 0;
        return;
    }
    double d_lo, e, err1, err2;
    double d = xs_two_sum(x_in, -x_out, &d_lo);
    r->hi = xs_two_sum(r->hi, d, &e);
    double f = xs_two_sum(e, d_lo, &err1);        /* off the chain */
    r->lo = xs_two_sum(r->lo, f, &err2);
    r->bound += xs_running_abs(err1) + xs_running_abs(err2);
    if (--r->block_left == 0) {
        r->block_left = XS_RUNNING_BLOCK;
        r->bound *= XS_RUNNING_GROWTH;
        r->hi = xs_two_sum(r->hi, r->lo, &r->lo);     /* exact */
    }
}

/* The approximation of the empty window: exactly 0, bound 0. */
static inline void xs_running_init_exact(xs_running *r)
{
    xs_running_init(r);
    r->bound = 0.0;
}

/*
 * The same for a loop that keeps the approximation in registers (no struct
 * in memory): per term x, with |x| <= XS_RUNNING_MAX,
 *     xs_running_short_add(&hi, &lo, &err, x),
 * i.e. hi = xs_two_sum(hi, x, &e); lo += e; err += |lo| + TINY;
 * and after every block of at most XS_RUNNING_BLOCK terms
 *     xs_running_short_fold(&hi, &lo, &err, &bound),
 * from hi = lo = err = bound = 0.  err * 2^-52 bounds a block's error as in
 * xs_running_add (err sums fewer than 2^10 non-negative terms: its own
 * roundings lose less than 2^-43 of it); the fold adds it to bound and
 * grows bound by GROWTH, as xs_running_add does per block, and folds lo
 * into hi exactly.  The caller keeps the number of terms below 2^11, so
 * that hi stays far from overflow (below 2^11 * XS_RUNNING_MAX).
 */
/* Rows this long or shorter may be summed that way (fewer than 2^11 terms). */
#define XS_RUNNING_ROW_MAX 1023

static inline void xs_running_short_add(double *hi, double *lo, double *err, double x)
{
    double e;
    *hi = xs_two_sum(*hi, x, &e);
    *lo += e;
    *err += xs_running_abs(*lo) + XS_RUNNING_TINY;
}

static inline void xs_running_short_fold(double *hi, double *lo, double *err, double *bound)
{
    *bound = (*bound + *err * 0x1p-52) * XS_RUNNING_GROWTH;
    *err = 0.0;
    *hi = xs_two_sum(*hi, *lo, lo);          /* exact */
}

/* The approximation such a loop has built, ready for xs_running_round. */
static inline xs_running xs_running_of(double hi, double lo, double err, double bound)
{
    xs_running r;
    r.hi = hi;
    r.lo = lo;
    r.bound = bound + err * 0x1p-52 + XS_RUNNING_FLOOR;
    r.valid = 1;
    r.block_left = XS_RUNNING_BLOCK;
    r.retry_in = 0;
    return r;
}

/*
 * The exact sum rounded to nearest (ties to even) into fmt, when the
 * approximation decides it: returns 1 and stores it in *out.  Decided only
 * for results that are normal numbers of fmt, not zero and not overflowing.
 * rounded's rounding interval reaches q/2 to each side (q its ulp in fmt),
 * q/4 below a power of two that starts a binade.
 */
static inline int xs_running_round(const xs_running *r, const xs_format *fmt, double *out)
{
    if (!r->valid) {
        return 0;
    }
    double c;
    double approx = xs_two_sum(r->hi, r->lo, &c);    /* approx + c = hi + lo */
    uint64_t bits;
    memcpy(&bits, &approx, sizeof bits);
    uint64_t magnitude = bits & ~XS_F64_SIGN_BIT;
    int e = (int)(magnitude >> XS_F64_MANT_BITS) - XS_F64_EXP_BIAS;          /* hi in [2^e, 2^(e+1)) */
    if (e < fmt->emin || e > fmt->emax || xs_running_abs(approx) < XS_RUNNING_TINY_SUM) {
        return 0;                                   /* zero, tiny, subnormal or huge */
    }
    int shift = 53 - fmt->precision;
    uint64_t rounded_bits = bits;
    if (shift > 0) {
        uint64_t unit = (uint64_t)1 << shift, half = unit >> 1;
        uint64_t rem = bits & (unit - 1), kept = bits & ~(unit - 1);
        /* A tie of approx goes to even, unless the bound is 0: then the
         * exact sum is approx + c, and a c that is not 0 decides the way
         * (away from zero when it has approx's sign). */
        uint64_t tie_up = kept >> shift;
        if (r->bound == 0.0 && c != 0.0) {
            tie_up = (uint64_t)((c > 0.0) == (approx > 0.0));
        }
        /* Branch-free: which way rounds is as random as the data. */
        uint64_t up = (uint64_t)(rem > half) | ((uint64_t)(rem == half) & tie_up);
        rounded_bits = kept + ((0 - (up & 1u)) & unit);  /* a carry moves to the next binade */
    }
    double rounded;
    memcpy(&rounded, &rounded_bits, sizeof rounded);
    uint64_t rounded_magnitude = rounded_bits & ~XS_F64_SIGN_BIT;
    if ((int)(rounded_magnitude >> XS_F64_MANT_BITS) - XS_F64_EXP_BIAS > fmt->emax) {
        return 0;                                   /* rounds to overflow */
    }
    if (r->bound == 0.0) {
        /* hi + lo is the exact sum S = approx + c (a bound of 0 means no
         * error was made), |c| <= ulp(approx) / 2 in float64.  For float64,
         * approx is S rounded by the hardware, ties to even.  For a
         * narrower fmt, rounded is S rounded: a remainder of approx above
         * (below) half a unit is at least one float64 ulp above (below) it,
         * more than c can move; a tie of approx is decided by c above, or
         * is S's own tie when c = 0; an approx on fmt's grid is S's nearest
         * point even at the bottom of a binade (the grid below is finer by
         * far more than |c|).  The answer even on a tie. */
        *out = rounded;
        return 1;
    }
    /* q = 2^(e - p + 1), the ulp of fmt in hi's binade (a normal double). */
    uint64_t q_bits = (uint64_t)(e - fmt->precision + 1 + XS_F64_EXP_BIAS) << XS_F64_MANT_BITS;
    double q;
    memcpy(&q, &q_bits, sizeof q);
    int binade_start = ((rounded_magnitude & XS_F64_MANT_MASK) == 0) &
                       ((int)(rounded_magnitude >> XS_F64_MANT_BITS) - XS_F64_EXP_BIAS == e) &
                       (e > fmt->emin);
    double half_gap = (binade_start ? 0.25 : 0.5) * q;
    double d = xs_running_abs(approx - rounded);    /* exact: < q, a few bits */
    /* The bound times GROWTH: what its additions may have lost so far in
     * this block (at most BLOCK * 2^-53 of it). */
    double error = (d + xs_running_abs(c)) + r->bound * XS_RUNNING_GROWTH;
    if (!(error < half_gap * XS_RUNNING_MARGIN)) {
        return 0;
    }
    *out = rounded;
    return 1;
}

/*
 * The approximation of S / n (a mean) from that of S, for xs_running_round:
 * returns 1 and fills *q, or 0 when it cannot (stale, n not below 2^53, |hi|
 * outside [XS_RUNNING_DIVIDE_MIN, XS_RUNNING_MAX]).
 *
 * q1 = fl(hi / n); its remainder rem = hi - q1 n is a double and fma gives
 * it exactly (a correctly rounded quotient's remainder is representable
 * when nothing underflows: |q1| >= 2^-700 / 2^53 keeps its ulp far above
 * the subnormals).  t = fl(rem + lo), q2 = fl(t / n).  Then
 *     S / n = q1 + q2 + (t - (rem + lo)) / n + (t / n - q2)
 *                     + (S - hi - lo) / n,
 * and the three last terms are at most |t| 2^-53 / n + |q2| 2^-53 + bound / n
 * <= |q2| 2^-51 + bound / n (|t| / n <= |q2| (1 + 2^-52)), each rounding of
 * the new bound covered by the factor 1 + 2^-50.  When all three are 0
 * (bound 0, t's TwoSum error 0, q2 n - t = 0 by fma), q1 + q2 is S / n
 * exactly and the new bound is 0: a mean that is exactly a tie (about one
 * window mean in a hundred on normal data, over 100 terms) is then decided
 * by the hardware's rounding of q1 + q2, as for sums.
 */
#define XS_RUNNING_DIVIDE_MIN 0x1p-700

static inline int xs_running_divide(const xs_running *r, uint64_t n, xs_running *q)
{
    double n_value = (double)n;
    if (!r->valid || n == 0 || n >= ((uint64_t)1 << 53) ||
            !(xs_running_abs(r->hi) >= XS_RUNNING_DIVIDE_MIN &&
              xs_running_abs(r->hi) <= XS_RUNNING_MAX)) {
        return 0;
    }
    double q1 = r->hi / n_value;
    double rem = fma(-q1, n_value, r->hi);             /* exact */
    double t_err;
    double t = xs_two_sum(rem, r->lo, &t_err);
    double q2 = t / n_value;
    /* Exact: hi + lo was S (bound 0), t = rem + lo and q2 n = t exactly. */
    int exact = r->bound == 0.0 && t_err == 0.0 && fma(-q2, n_value, t) == 0.0;
    double bound = ((r->bound / n_value + xs_running_abs(q2) * 0x1p-51) + XS_RUNNING_FLOOR) *
                   (1.0 + 0x1p-50);
    *q = *r;
    q->hi = q1;
    q->lo = q2;
    q->bound = exact ? 0.0 : bound;
    return 1;
}

/*
 * Rebuild the approximation from the exact accumulator (finite, no Inf or
 * NaN flags): hi = S rounded to float64, lo = S - hi rounded, bound the
 * rounding error of lo.  acc is normalised (carry propagation); its value
 * is unchanged.  Stale when S does not fit the safe range; then the next
 * XS_RUNNING_RETRY calls return at once.
 */
static inline void xs_running_rebuild(xs_running *r, xs_small *acc)
{
    if (r->retry_in > 0) {
        r->retry_in--;
        return;
    }
    xs_small copy = *acc;
    double hi = xs_small_round(&copy, &xs_format_float64);
    if (!(xs_running_abs(hi) <= XS_RUNNING_MAX)) {
        r->valid = 0;
        r->retry_in = XS_RUNNING_RETRY;
        return;
    }
    xs_small_add_bits(&copy, xs_double_bits(-hi));
    double lo = xs_small_round(&copy, &xs_format_float64);
    r->hi = hi;
    r->lo = lo;
    r->bound = (xs_running_abs(lo) + XS_RUNNING_TINY) * 0x1p-52 + XS_RUNNING_FLOOR;
    r->valid = 1;
    r->block_left = XS_RUNNING_BLOCK;
}

/*
 * The same for a moving window (xs_running_move): when hi + lo is the
 * accumulator's value exactly (S - hi - lo, a multiple of 2^-1074, rounds
 * to 0 only when it is 0), the bound is 0.
 */
static inline void xs_running_rebuild_exact(xs_running *r, xs_small *acc)
{
    xs_running_rebuild(r, acc);
    if (!r->valid) {
        return;
    }
    xs_small copy = *acc;
    double minus[2] = {-r->hi, -r->lo};
    for (int j = 0; j < 2; j++) {
        xs_small_add_bits(&copy, xs_double_bits(minus[j]));
    }
    if (xs_small_round(&copy, &xs_format_float64) == 0.0) {
        r->bound = 0.0;
    }
}

#endif
