/*
 * The exact primitives every layer builds on, each written once: bit casts
 * between a double and its pattern, the error-free transformations of a sum
 * (Knuth's TwoSum, Dekker's Fast2Sum) and of a product (Dekker's product
 * with Veltkamp's split, or one fma), and the exact conversions between
 * double and the 16-bit formats (IEEE binary16, bfloat16).
 *
 * Every transformation returns the rounded result and stores its exact
 * error through the last argument: result + *err equals the exact value.
 * They need round-to-nearest and no contraction into fma (both pinned: see
 * runtime/xs_fpenv.h and meson.build).
 */
#ifndef XS_EXACT_H
#define XS_EXACT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "exact/xs_ieee.h"

/* ---- bit casts ------------------------------------------------------------ */

/* The bit pattern of x (memcpy: the aliasing-safe cast, one move). */
static inline uint64_t xs_double_bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* The double whose bit pattern is b (the inverse of xs_double_bits). */
static inline double xs_bits_double(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* All ones when cond, else 0: masks for selects the compiler keeps
 * branch-free (zeros and subnormals come in unpredictable patterns). */
static inline uint64_t xs_mask_if(int cond)
{
    return (uint64_t)0 - (uint64_t)(cond != 0);
}

/* ---- sums ----------------------------------------------------------------- */

/* Knuth's TwoSum: s = fl(a + b), *err = a + b - s exactly, for any finite a
 * and b whose sum does not overflow (no condition on their magnitudes). */
static inline double xs_two_sum(double a, double b, double *err)
{
    double s = a + b;
    double bb = s - a;
    *err = (a - (s - bb)) + (b - bb);
    return s;
}

/* Dekker's Fast2Sum: the same when |a| >= |b| (or a = 0), in three
 * operations instead of six. */
static inline double xs_fast_two_sum(double a, double b, double *err)
{
    double s = a + b;
    *err = b - (s - a);
    return s;
}

/* ---- products ------------------------------------------------------------- */

/* Veltkamp's splitter for 53-bit significands: 2^27 + 1 cuts a double into
 * two halves of at most 26 significant bits each, whose products are exact. */
#define XS_SPLITTER 134217729.0

/* p = fl(v*v) and *err = v*v - p, exact for 2^-480 <= |v| < 2^996
 * (Dekker's product: then p >= 2^-960 is normal and the error lies on a
 * grid of at least 2^-1066).  Smaller values: |p + err - v^2| < 2^-1013.
 * No fma needed: the portable square. */
static inline double xs_dekker_square(double v, double *err)
{
    double t = XS_SPLITTER * v;
    double high = t - (t - v);
    double low = v - high;
    double p = v * v;
    *err = ((high * high - p) + 2.0 * high * low) + low * low;
    return p;
}

/* a*b = product + *err exactly (Dekker's product with Veltkamp's split),
 * under the same conditions: |a|, |b| < 2^996 and a*b at least 2^-969 or 0. */
static inline double xs_dekker_product(double a, double b, double *err)
{
    double ta = XS_SPLITTER * a, tb = XS_SPLITTER * b;
    double ah = ta - (ta - a), al = a - ah;
    double bh = tb - (tb - b), bl = b - bh;
    double p = a * b;
    *err = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    return p;
}

/* a*b - p exactly for p = fl(a*b), by one fma: exact when a*b is at least
 * 2^-969 in magnitude (the error then lies on a grid of 2^-1074 or above)
 * and p is finite.  A library call unless compiled for FMA hardware (see
 * the FMA copies in loops/). */
static inline double xs_product_error(double a, double b, double p)
{
    return fma(a, b, -p);
}

/* ---- the 16-bit formats ------------------------------------------------------ */

/* IEEE binary16 -> double, exact, for scalar loops: a normal is rebuilt as a
 * double pattern, a subnormal or zero is fraction * 2^-24 (exact), Inf and
 * NaN keep their payload.  The two rare cases branch (well predicted on
 * typical data: about 1.5x faster in the sum loops than the form below). */
static inline double xs_half_to_double(uint16_t h)
{
    uint64_t sign = (uint64_t)(h & XS_F16_SIGN_BIT) << 48;
    uint64_t exponent = (h >> XS_F16_MANT_BITS) & XS_F16_EXP_MASK;
    uint64_t fraction = h & XS_F16_MANT_MASK;
    if (exponent == 0) {
        double magnitude = (double)fraction * 0x1p-24;
        return (h & XS_F16_SIGN_BIT) ? -magnitude : magnitude;
    }
    uint64_t field = exponent == XS_F16_EXP_MASK ? XS_F64_EXP_MASK
                                                 : exponent + XS_F64_EXP_BIAS - XS_F16_EXP_BIAS;
    return xs_bits_double(sign | (field << XS_F64_MANT_BITS) |
                          (fraction << (XS_F64_MANT_BITS - XS_F16_MANT_BITS)));
}

/* The same conversion branch-free, for loops that vectorise (the low-precision
 * updates): the three candidates computed and selected by masks. */
static inline double xs_half_to_double_lanes(uint16_t h)
{
    uint64_t sign = (uint64_t)(h & XS_F16_SIGN_BIT) << 48;
    uint64_t exponent = (h >> XS_F16_MANT_BITS) & XS_F16_EXP_MASK;
    uint64_t fraction = h & XS_F16_MANT_MASK;
    uint64_t normal = ((exponent + XS_F64_EXP_BIAS - XS_F16_EXP_BIAS) << XS_F64_MANT_BITS) |
                      (fraction << (XS_F64_MANT_BITS - XS_F16_MANT_BITS));
    uint64_t special = XS_F64_INF_BITS | (fraction << (XS_F64_MANT_BITS - XS_F16_MANT_BITS));
    uint64_t small = xs_double_bits((double)fraction * 0x1p-24);
    uint64_t is_small = xs_mask_if(exponent == 0);
    uint64_t is_special = xs_mask_if(exponent == XS_F16_EXP_MASK);
    uint64_t is_normal = ~(is_small | is_special);
    uint64_t mag = (small & is_small) | (special & is_special) | (normal & is_normal);
    return xs_bits_double(mag | sign);
}

/* x representable in binary16 (the rounding already happened), or +-Inf,
 * or NaN -> its pattern, branch-free: a normal's exponent and top 10
 * fraction bits, a value below 2^-14 as its (integer) number of 2^-24, NaN
 * as the quiet NaN; selected by masks. */
static inline uint16_t xs_double_to_half(double x)
{
    uint64_t bits = xs_double_bits(x);
    uint64_t mag = bits & ~XS_F64_SIGN_BIT;
    uint64_t biased = mag >> XS_F64_MANT_BITS;
    uint64_t sign = (bits >> 48) & XS_F16_SIGN_BIT;
    uint64_t is_special = xs_mask_if(biased == XS_F64_EXP_MASK);
    uint64_t is_normal = xs_mask_if(biased >= XS_F64_EXP_BIAS - XS_F16_EXP_BIAS + 1) & ~is_special;
    uint64_t normal = ((biased - (XS_F64_EXP_BIAS - XS_F16_EXP_BIAS)) << XS_F16_MANT_BITS) |
                      ((mag >> (XS_F64_MANT_BITS - XS_F16_MANT_BITS)) & XS_F16_MANT_MASK);
    /* the conversion only ever sees values below 2^-14 (no out-of-range UB) */
    double small_value = xs_bits_double(mag & ~(is_normal | is_special));
    uint64_t small = (uint64_t)(int32_t)(small_value * 0x1p24);
    uint64_t special = mag > XS_F64_INF_BITS ? 0x7e00u : 0x7c00u;
    uint64_t is_small = ~(is_normal | is_special);
    uint64_t h = (special & is_special) | (normal & is_normal) | (small & is_small);
    return (uint16_t)((h | sign) & 0xffffu);
}

/* bfloat16 is the top half of a float32. */
static inline double xs_bfloat16_to_double(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return (double)f;
}

/* x must be representable in bfloat16: its float32 has 16 zero low bits. */
static inline uint16_t xs_double_to_bfloat16(double x)
{
    float f = (float)x;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if (isnan(x)) {
        bits |= 0x00400000u;            /* keep it a quiet NaN after the cut */
    }
    return (uint16_t)(bits >> 16);
}

#endif
