/*
 * Exact dot products: sum(a[i] * b[i]) with no product ever rounded.
 *
 * A float64 product needs up to 106 bits and ranges from 2^-2148 to 2^2048,
 * beyond a double.  Most products split exactly into two doubles,
 * p = a*b and e = fma(a, b, -p), both added to the ordinary sum
 * accumulator.  That split is exact unless p overflows or the product has
 * bits below 2^-1074; those rare products are added as exact 106-bit
 * integers to two more small accumulators, holding the products scaled by
 * 2^-XS_DOT_SCALE (too large) and 2^+XS_DOT_SCALE (too fine).  The three
 * are put side by side in one wider fixed-point number for the rounding.
 *
 * float32, float16 and bfloat16 products are exact in float64.
 */
#ifndef XS_DOT_H
#define XS_DOT_H

#include <math.h>

#include "exact/xs_large.h"

/* A multiple of 32, so that the scaled accumulators line up chunk by chunk:
 * products below 2^-1074 have bits down to 2^-2148, i.e. 2^-1060 once
 * scaled up; overflowing products reach 2^2048, i.e. 2^960 scaled down. */
#define XS_DOT_SCALE 1088
#define XS_DOT_SCALE_CHUNKS (XS_DOT_SCALE / 32)
#define XS_DOT_WIDE_CHUNKS (XS_NCHUNKS + 2 * XS_DOT_SCALE_CHUNKS)

typedef struct {
    xs_small main;   /* p and e of the ordinary products (or via xs_large) */
    xs_small fine;   /* products with bits below 2^-1074, times 2^XS_DOT_SCALE */
    xs_small huge;   /* products whose p overflows, times 2^-XS_DOT_SCALE */
} xs_dot;

void xs_dot_init(xs_dot *acc);
/* acc += part, exactly. */
void xs_dot_merge(xs_dot *acc, xs_dot *part);
/* acc += count * one, exactly (by doubling: O(log count) merges). */
void xs_dot_add_times(xs_dot *acc, const xs_dot *one, uint64_t count);
/* The exact product of two finite, non-zero doubles that the p + e split
 * cannot represent. */
void xs_dot_add_extreme(xs_dot *acc, uint64_t a_bits, uint64_t b_bits);
/* Add (-1)^negative times the integer of four little-endian 32-bit digits
 * (below 2^128) times 2^unit, exactly, into the part of acc for that unit:
 * main (acc->main, or the small accumulator of a large one whose small part
 * it becomes) for units from XS_DOT_MAIN_UNIT_MIN to XS_DOT_MAIN_UNIT_MAX,
 * where the value stays below 2^1024; the scaled parts below and above
 * (every rare product goes there: its unit is below 2^-1074, or its p
 * overflows, which takes a unit above 2^(1024 - 106)). */
#define XS_DOT_MAIN_UNIT_MIN (-1074)
#define XS_DOT_MAIN_UNIT_MAX (1024 - 128)
void xs_dot_add_scaled(xs_dot *acc, xs_small *main, const uint32_t digits[4], int unit,
                       int negative);

/* A finite double's integer significand (the implicit bit of a normal one
 * set) and its exponent field as the unit reads it (1 for a zero or
 * subnormal): the double is the significand times 2^(field - 1075). */
static inline uint64_t xs_dot_significand(uint64_t bits)
{
    unsigned field = (unsigned)(bits >> XS_F64_MANT_BITS) & XS_F64_EXP_MASK;
    return (bits & XS_F64_MANT_MASK) | (field ? XS_F64_IMPLICIT_BIT : 0);
}

static inline unsigned xs_dot_field(uint64_t bits)
{
    unsigned field = (unsigned)(bits >> XS_F64_MANT_BITS) & XS_F64_EXP_MASK;
    return field ? field : 1u;
}
double xs_dot_round(xs_dot *acc, const xs_format *fmt);

/* Add a*b (float64) exactly.  large: the large accumulator whose small part
 * is acc->main, or NULL to add into acc->main directly. */
static inline void xs_dot_add_main(xs_dot *acc, xs_large *large, double x)
{
    if (large) {
        xs_large_add_bits(large, xs_double_bits(x));
    }
    else {
        xs_small_add_bits(&acc->main, xs_double_bits(x));
    }
}

static inline void xs_dot_add_float64(xs_dot *acc, xs_large *large, double a, double b)
{
    uint64_t a_bits = xs_double_bits(a), b_bits = xs_double_bits(b);
    unsigned ea = (unsigned)(a_bits >> XS_F64_MANT_BITS) & XS_F64_EXP_MASK;
    unsigned eb = (unsigned)(b_bits >> XS_F64_MANT_BITS) & XS_F64_EXP_MASK;
    double p = a * b;
    if (ea == XS_F64_EXP_MASK || eb == XS_F64_EXP_MASK || a == 0.0 || b == 0.0) {
        xs_dot_add_main(acc, large, p);   /* IEEE: Inf*0 is NaN, 0*x a signed zero */
        return;
    }
    /* The product is an integer times 2^(ea' + eb' - 2150) (ea' = max(ea, 1));
     * p + e holds it exactly when that unit is at least 2^-1074 and p is finite. */
    unsigned ea1 = ea ? ea : 1u, eb1 = eb ? eb : 1u;
    if (ea1 + eb1 >= 1076u &&
            (((xs_double_bits(p) >> XS_F64_MANT_BITS) & XS_F64_EXP_MASK) != XS_F64_EXP_MASK)) {
        xs_dot_add_main(acc, large, p);
        double e = xs_product_error(a, b, p);
        if (e != 0.0) {          /* a zero e is no term (it would spoil a -0.0 result) */
            xs_dot_add_main(acc, large, e);
        }
        return;
    }
    xs_dot_add_extreme(acc, a_bits, b_bits);
}

#endif
