/*
 * Euclidean norms of rows, correctly rounded, from a two-double sum of
 * squares with a proven error bound (see xs_norm.h).
 *
 * 1. Scale (float64 rows).  The largest magnitude is M = f * 2^k with f in
 *    [1/2, 1); the row is multiplied by 2^-k, exact except for values that
 *    become subnormal.  Every scaled value v is then below 1 in magnitude,
 *    the largest at least 1/2, so the exact sum of squares S lies in
 *    [1/4, n) (M >= 2^1022 has no normal scale 2^-k: 2^-1022 brings it into
 *    [1, 4), and S into [1, 16n), which changes nothing below).  float32
 *    rows need no scaling: the square of a float32 is an exact float64
 *    between 2^-298 and 2^256.
 * 2. Square.  p = fl(v*v) and e = v*v - p by Dekker's product
 *    (xs_dekker_square, no fma needed): exact when |v| >= 2^-480 (then p >= 2^-960, a
 *    normal number, and e lies on a grid of at least 2^-1066).  Smaller
 *    values, and values that lost bits in the scaling, make p + e differ
 *    from the exact square by far less than XS_NORM_TINY_ERR each.  For
 *    float32 rows p is exact and e = 0.
 * 3. Sum.  XS_NORM_CHAINS chains side by side, each keeping s (a running
 *    sum of the p, updated by TwoSum, which is exact) and c (the TwoSum
 *    errors t and the e, added in plain floating point).  Every term is
 *    non-negative, so |t| <= 2^-53 P and |e| <= 2^-53 p with P the sum of
 *    all p (P <= (1 + 2^-40) hi below); after m terms |c| <= m 2^-51.8 P, and
 *    the roundings of c over a row of n terms add up to at most
 *    (n^2/2 + 2n) 2^-104.7 P; the final merge of the chains (three TwoSums,
 *    exact, and six roundings of sums of c's) adds 6n 2^-104.7 P.  So the
 *    two doubles hi + lo (a Fast2Sum of the merged s and c, exact since
 *    |c| < 2^-40 s) are within
 *        E = (n + 8)^2 2^-102 hi + n XS_NORM_TINY_ERR
 *    of S (error_bound).
 * 4. Decide the root from hi + lo and E (xs_root.h): one Newton step and a
 *    bracket of the candidate's midpoints; what it cannot decide (about a
 *    chance in 2^40 for random rows, and every exact tie) is left to the
 *    caller.
 * 5. Scale back.  The norm is r times the inverse power of two, exact
 *    when its exponent stays in the normal range; subnormal and overflowing
 *    norms are left to the caller.
 *
 * Contiguous float64 and float32 rows of XS_NORM_SQUARES_MIN_TERMS terms or more, of
 * any length, take the SIMD two-double sum of squares of exact_dot(x, x)
 * (xs_dot_squares.c: a bound of about 2^-80 of the sum at 10^6 terms,
 * blocks folded so that it grows as n, not n^2) for step 3: first
 * unscaled (one pass; most data), then, if the sum left the root's range,
 * scaled by 2^-k with 2^(2k) near that sum (a finite one: no scan) or by
 * step 1's scale (Inf, NaN or an overflow: after the scan).  Other rows take the scalar chains,
 * up to XS_NORM_MAX_TERMS terms.
 */
#include "kernels/dot/xs_norm.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/dot/xs_dot_squares.h"
#include "runtime/xs_interrupt.h"
#include "exact/xs_root.h"
#include "exact/xs_small.h"
#include "exact/xs_types.h"

/* IEEE double fields (xs_root.h): fraction bits, exponent bias. */
#define XS_NORM_F64_FRACTION XS_ROOT_FRACTION
#define XS_NORM_F64_BIAS XS_ROOT_BIAS
#define XS_NORM_F64_FRACTION_MASK XS_ROOT_FRACTION_MASK

/* Independent chains of the sum of squares (they hide the TwoSum latency). */
#define XS_NORM_CHAINS 4
/* Per term, a bound on |p + e - v^2| for the values Dekker's product does
 * not square exactly (|v| < 2^-480, or values the scaling made subnormal):
 * their squares are below 2^-960 and every rounding inside is below
 * 2^-1013; S >= 1/4 makes this irrelevant to the decision but it is kept
 * in the bound all the same. */
#define XS_NORM_TINY_ERR 0x1p-950


static inline double error_bound(npy_intp n, double hi)
{
    double m = (double)n + 8.0;
    return m * m * 0x1p-102 * hi + (double)n * XS_NORM_TINY_ERR;
}

/* Merge the chains into hi + lo (see step 3). */
static inline void merge_chains(const double *s, const double *c, double *hi, double *lo)
{
    double t01, t23, t;
    double s01 = xs_two_sum(s[0], s[1], &t01);
    double s23 = xs_two_sum(s[2], s[3], &t23);
    double sum = xs_two_sum(s01, s23, &t);
    double comp = ((c[0] + c[1]) + (c[2] + c[3])) + ((t01 + t23) + t);
    *hi = xs_fast_two_sum(sum, comp, lo);  /* exact: |comp| < 2^-40 sum */
}

/* Element p of a row as a double (is32: a float32; xs_types.h's loads). */
static inline double load(const char *p, int is32)
{
    return xs_bits_double(is32 ? xs_load_float32(p) : xs_load_float64(p));
}

/* The square of a float32 value, exact in double. */
static inline double square_exact(double v, double *err)
{
    *err = 0.0;
    return v * v;
}

/* One term v into the chain (s, c) (step 3); is32: v is a float32. */
static inline void add_square(double *s, double *c, double v, int is32)
{
    double e, t;
    double p = is32 ? square_exact(v, &e) : xs_dekker_square(v, &e);
    *s = xs_two_sum(*s, p, &t);
    *c += t + e;
}

/* The sum of squares of a row, its terms scaled by `scale`, as hi + lo. */
static inline void sum_squares(const char *p, npy_intp stride, npy_intp n, int is32,
                               double scale, double *hi, double *lo)
{
    double s[XS_NORM_CHAINS] = {0.0}, c[XS_NORM_CHAINS] = {0.0};
    npy_intp i = 0;
    for (; i + XS_NORM_CHAINS <= n; i += XS_NORM_CHAINS) {
        for (int j = 0; j < XS_NORM_CHAINS; j++, p += stride) {
            add_square(&s[j], &c[j], load(p, is32) * scale, is32);
        }
    }
    for (int j = 0; i < n; i++, j++, p += stride) {
        add_square(&s[j], &c[j], load(p, is32) * scale, is32);
    }
    merge_chains(s, c, hi, lo);
}

/* The scan before the sum: 1 when the row's norm needs no sum, with it in
 * *value (NaN, which wins over Inf as in NumPy's norm; Inf; or an exact 0);
 * else 0 and the largest magnitude in *value.  is32: float32 terms. */
static inline int scan_row(const char *p, npy_intp stride, npy_intp n, int is32,
                           double *value)
{
    double largest = 0.0;
    int has_nan = 0;
    for (npy_intp i = 0; i < n; i++, p += stride) {
        double a = fabs(load(p, is32));
        has_nan |= a != a;
        largest = isgreater(a, largest) ? a : largest;    /* quiet with NaN */
    }
    *value = has_nan ? NAN : largest;
    return has_nan || largest == INFINITY || largest == 0.0;
}

static int norm_row_float64(const char *p, npy_intp stride, npy_intp n, double *out)
{
    /* Long contiguous rows: the SIMD sum of squares (xs_dot_squares.c),
     * unscaled first (one pass, most data), then scaled (step 1) if the sum
     * left its range. */
    int squares = stride == (npy_intp)sizeof(double) && n >= XS_NORM_SQUARES_MIN_TERMS;
    double hi = 0.0, lo, bound;
    int summed = squares && xs_dot_squares_sum(p, n, 8, 1.0, &hi, &lo, &bound);
    if (summed && xs_root_decide(hi, lo, bound, &xs_format_float64, out)) {
        return 1;
    }
    if (!squares && n > XS_NORM_MAX_TERMS) {
        return 0;
    }
    int scale_biased;
    if (summed && hi > 0.0) {
        /* A finite sum outside the root's range: the scale 2^-k with
         * 2^(2k) near it, so that the scaled terms stay below about 2 and
         * their sum of squares near [1, 4), no scan needed (hi in (0,
         * 2^1020]: a normal scale). */
        int exponent = (int)(xs_double_bits(hi) >> XS_NORM_F64_FRACTION) - XS_NORM_F64_BIAS;
        int half = exponent >= 0 ? exponent / 2 : -((1 - exponent) / 2);     /* floor */
        scale_biased = XS_NORM_F64_BIAS - half;
    }
    else {
        double largest;
        if (scan_row(p, stride, n, 0, &largest)) {
            *out = largest;                            /* NaN, Inf, or an exact 0 */
            return 1;
        }
        if (largest < DBL_MIN) {
            return 0;                   /* 2^-k would not be a double (k < -1021) */
        }
        /* largest in [2^(E-1023), 2^(E-1022)) for its biased exponent E: the
         * scale 2^(1022-E) brings it into [1/2, 1), or for E >= 2045 (no
         * normal scale) 2^-1022 into [1, 4), which the bounds allow as well. */
        int biased = (int)(xs_double_bits(largest) >> XS_NORM_F64_FRACTION);
        scale_biased = 2 * XS_NORM_F64_BIAS - 1 - biased;
        if (scale_biased < 1) {
            scale_biased = 1;
        }
    }
    double scale = xs_bits_double((uint64_t)scale_biased << XS_NORM_F64_FRACTION);
    if (squares) {
        if (!xs_dot_squares_sum(p, n, 8, scale, &hi, &lo, &bound)) {
            return 0;
        }
    }
    else {
        sum_squares(p, stride, n, 0, scale, &hi, &lo);
        bound = error_bound(n, hi);
    }
    double r;
    if (!xs_root_decide(hi, lo, bound, &xs_format_float64, &r)) {
        return 0;
    }
    /* The norm is r * 2^(1023 - scale_biased): exact when its biased
     * exponent stays normal (else subnormal or overflow: the caller). */
    uint64_t rb = xs_double_bits(r);
    int result_biased = (int)(rb >> XS_NORM_F64_FRACTION) + XS_NORM_F64_BIAS - scale_biased;
    if (result_biased < 1 || result_biased > 2 * XS_NORM_F64_BIAS) {
        return 0;
    }
    *out = xs_bits_double((uint64_t)result_biased << XS_NORM_F64_FRACTION |
                          (rb & XS_NORM_F64_FRACTION_MASK));
    return 1;
}

static int norm_row_float32(const char *p, npy_intp stride, npy_intp n, float *out)
{
    if (stride == (npy_intp)sizeof(float) && n >= XS_NORM_SQUARES_MIN_TERMS) {
        /* Long contiguous rows: the SIMD sum of squares, no scale needed. */
        double hi, lo, bound, root;
        if (xs_dot_squares_sum(p, n, 4, 1.0, &hi, &lo, &bound) &&
                xs_root_decide(hi, lo, bound, &xs_format_float32, &root)) {
            *out = (float)root;                        /* exact: a float32 value */
            return 1;
        }
    }
    if (n > XS_NORM_MAX_TERMS) {
        return 0;
    }
    double special;
    if (scan_row(p, stride, n, 1, &special)) {
        *out = (float)special;                         /* NaN, Inf, or an exact 0 */
        return 1;
    }
    double hi, lo, root;
    sum_squares(p, stride, n, 1, 1.0, &hi, &lo);
    if (!xs_root_decide(hi, lo, error_bound(n, hi), &xs_format_float32, &root)) {
        return 0;
    }
    *out = (float)root;                                /* exact: a float32 value */
    return 1;
}

/* The gufunc loop "(n)->(),()" over rows: norm and decided flag.  The
 * floating-point exception flags are put back as they were: the scaling,
 * the squares of tiny values and the checks of a result that does not fit
 * raise underflow or overflow on the way, and no norm this loop stores
 * needs a flag (the caller recomputes the rows it leaves, flags and all). */
#define XS_NORM_LOOP(NAME, ROW, OUT_TYPE)                                        \
    void NAME(char **args, const npy_intp *dimensions, const npy_intp *steps,    \
              void *data)                                                        \
    {                                                                            \
        (void)data;                                                              \
        npy_intp rows = dimensions[0], n = dimensions[1];                        \
        ptrdiff_t work = 0;                                                      \
        fexcept_t flags;                                                         \
        fegetexceptflag(&flags, FE_ALL_EXCEPT);                                  \
        for (npy_intp i = 0; i < rows; i++) {                                    \
            if (xs_interrupted_after(&work, n)) {                                \
                break;                                                           \
            }                                                                    \
            OUT_TYPE result = 0;                                                 \
            npy_bool decided = (npy_bool)ROW(args[0] + i * steps[0], steps[3], n,  \
                                             &result);                           \
            memcpy(args[1] + i * steps[1], &result, sizeof result);              \
            memcpy(args[2] + i * steps[2], &decided, sizeof decided);            \
        }                                                                        \
        fesetexceptflag(&flags, FE_ALL_EXCEPT);                                  \
    }

XS_NORM_LOOP(xs_norm_float64, norm_row_float64, double)
XS_NORM_LOOP(xs_norm_float32, norm_row_float32, float)
