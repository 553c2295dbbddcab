/*
 * Correctly rounded square roots of a value S known as two doubles within
 * a bound, |S - (hi + lo)| <= bound: the 2-norm (xs_norm.c) and moving
 * standard deviations (xs_moving_var.c).
 *
 * float64 results: r = sqrt(hi), then one Newton step r + (S - r^2) / 2r
 * (sqrt(hi) alone may round to the other side of a midpoint than sqrt(S):
 * hi is off S by up to half its ulp, a quarter of r's ulp in the root).
 * With u the ulp of r and b the gap below it (u/2 at a power of two), r is
 * the correctly rounded sqrt(S) when (r - b/2)^2 < S < (r + u/2)^2, i.e.
 * when d = S - r^2 lies in (-r b + b^2/4, r u + u^2/4).  d is computed as
 * (hi - r*r) + lo with r*r exact (Dekker's product) and hi - r*r exact
 * (Sterbenz); the test asks d +- (bound + XS_ROOT_SLACK hi) to lie strictly
 * inside (-r b, r u): the u^2/4 terms (below 2^-104 hi) and the roundings
 * of d and of d +- the bound (below 2^-102 hi together) are inside the
 * slack.
 * Narrower results (precision <= 24): c = sqrt(hi) rounded on its bits to
 * the format, tested against the squares of its two midpoints, exact in
 * double (at most 26 bits squared): S - m^2 = (hi - m*m) + lo, whose two
 * roundings are below 2^-51 hi (XS_ROOT_SLACK_NARROW).
 * Undecided (0): S within the bound of a midpoint, hi outside
 * [XS_ROOT_MIN, XS_ROOT_MAX], a result that is not a normal number of the
 * format.
 */
#ifndef XS_ROOT_H
#define XS_ROOT_H

#include <math.h>
#include <stdint.h>

#include "exact/xs_exact.h"
#include "exact/xs_round.h"
#include "exact/xs_running.h"
#include "exact/xs_small.h"

/* Relative slack of the decisions for their own roundings (see above). */
#define XS_ROOT_SLACK 0x1p-100
#define XS_ROOT_SLACK_NARROW 0x1p-50
/* hi must lie here: the ulps, products and squares below stay normal and
 * finite. */
#define XS_ROOT_MIN 0x1p-900
#define XS_ROOT_MAX 0x1p1000
/* IEEE double fields: fraction bits and exponent bias. */
#define XS_ROOT_FRACTION XS_F64_MANT_BITS
#define XS_ROOT_BIAS XS_F64_EXP_BIAS
#define XS_ROOT_FRACTION_MASK (((uint64_t)1 << XS_ROOT_FRACTION) - 1)

/* (hi - r*r) + lo: S - r^2 up to the bound and two roundings. */
static inline double xs_root_remainder(double hi, double lo, double r)
{
    double rr_err;
    double rr = xs_dekker_square(r, &rr_err);
    return ((hi - rr) - rr_err) + lo;
}

/* 2^e as a double, for a biased exponent e + 1023 in [1, 2046]. */
static inline double xs_root_pow2(int e)
{
    return xs_bits_double((uint64_t)(e + XS_ROOT_BIAS) << XS_ROOT_FRACTION);
}

/* 1 and sqrt(S) rounded to nearest into fmt (a value of fmt, as a double)
 * in *out when decided; else 0. */
static inline int xs_root_decide(double hi, double lo, double bound, const xs_format *fmt,
                                 double *out)
{
    if (!(hi >= XS_ROOT_MIN && hi <= XS_ROOT_MAX)) {
        return 0;
    }
    double r = sqrt(hi);
    if (fmt->precision == 53) {
        r += xs_root_remainder(hi, lo, r) / (2.0 * r);
        uint64_t rb = xs_double_bits(r);
        /* r in [2^-451, 2^501]: its ulp and the result are normal doubles. */
        double u = xs_root_pow2((int)(rb >> XS_ROOT_FRACTION) - XS_ROOT_BIAS - XS_ROOT_FRACTION);
        double below = (rb & XS_ROOT_FRACTION_MASK) == 0 ? 0.5 * u : u;
        double d = xs_root_remainder(hi, lo, r);
        double e = bound + XS_ROOT_SLACK * hi;
        *out = r;
        return d + e < r * u && d - e > -(r * below);
    }
    if (fmt->precision > 24) {
        return 0;
    }
    /* c: r rounded to the format's precision on its bits, ties to even. */
    int shift = XS_ROOT_FRACTION + 1 - fmt->precision;
    uint64_t bits = xs_double_bits(r), unit = (uint64_t)1 << shift;
    uint64_t rem = bits & (unit - 1), kept = bits & ~(unit - 1);
    uint64_t up = (uint64_t)(rem > unit / 2) | ((uint64_t)(rem == unit / 2) & (kept >> shift));
    uint64_t cb = kept + (up & 1u) * unit;
    int e = (int)(cb >> XS_ROOT_FRACTION) - XS_ROOT_BIAS;       /* c in [2^e, 2^(e+1)) */
    if (e < fmt->emin || e > fmt->emax) {
        return 0;                       /* subnormal or beyond the largest finite value */
    }
    double c = xs_bits_double(cb);
    double u = xs_root_pow2(e - fmt->precision + 1);
    double below = (cb & XS_ROOT_FRACTION_MASK) == 0 ? 0.5 * u : u;
    double high = c + 0.5 * u, low = c - 0.5 * below;          /* exact */
    double err = bound + XS_ROOT_SLACK_NARROW * hi;
    *out = c;
    return (hi - high * high) + lo + err < 0.0 && (hi - low * low) + lo - err > 0.0;
}

#endif
