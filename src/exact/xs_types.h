/*
 * Element access for every input dtype and exact stores into every result
 * dtype.  Loads go through memcpy: NumPy may hand us unaligned pointers, and
 * memcpy is the aliasing- and alignment-safe load (one instruction on x86).
 */
#ifndef XS_TYPES_H
#define XS_TYPES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "exact/xs_small.h"

/* ---- float16 and bfloat16 <-> double, exact in both directions ---------- */

/* IEEE binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits.  Built as
 * a double bit pattern: no libm call on the hot path. */
#define XS_HALF_TO_DOUBLE_BIAS (1023 - 15)
static inline double xs_half_to_double(uint16_t h)
{
    uint64_t sign = (uint64_t)(h >> 15) << 63;
    unsigned exponent = (h >> 10) & 0x1fu;
    uint64_t fraction = h & 0x3ffu;
    uint64_t bits;
    if (exponent == 0) {
        /* subnormal or zero: fraction * 2^-24, exact in a double */
        double magnitude = (double)fraction * 0x1p-24;
        return (h & 0x8000u) ? -magnitude : magnitude;
    }
    if (exponent == 0x1fu) {
        bits = sign | ((uint64_t)0x7ff << 52) | (fraction << 42);   /* Inf/NaN */
    }
    else {
        bits = sign | ((uint64_t)(exponent + XS_HALF_TO_DOUBLE_BIAS) << 52) | (fraction << 42);
    }
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* x must be representable in binary16 (the rounding already happened). */
static inline uint16_t xs_double_to_half(double x)
{
    uint16_t sign = signbit(x) ? 0x8000u : 0;
    double a = fabs(x);
    if (isnan(x)) {
        return (uint16_t)(sign | 0x7e00u);
    }
    if (isinf(x)) {
        return (uint16_t)(sign | 0x7c00u);
    }
    if (a < ldexp(1.0, -14)) {
        return (uint16_t)(sign | (uint16_t)ldexp(a, 24));   /* subnormal or 0 */
    }
    int e;
    double m = frexp(a, &e);            /* a = m * 2^e, m in [0.5, 1) */
    unsigned fraction = (unsigned)ldexp(m, 11) & 0x3ffu;
    return (uint16_t)(sign | ((unsigned)(e - 1 + 15) << 10) | fraction);
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

/* ---- loads: the float64 bit pattern of an element ------------------------ */

static inline uint64_t xs_load_float64(const char *p)
{
    uint64_t b;
    memcpy(&b, p, sizeof b);
    return b;
}

static inline uint64_t xs_load_float32(const char *p)
{
    float f;
    memcpy(&f, p, sizeof f);
    return xs_double_bits((double)f);
}

static inline uint64_t xs_load_float16(const char *p)
{
    uint16_t h;
    memcpy(&h, p, sizeof h);
    return xs_double_bits(xs_half_to_double(h));
}

static inline uint64_t xs_load_bfloat16(const char *p)
{
    uint16_t b;
    memcpy(&b, p, sizeof b);
    return xs_double_bits(xs_bfloat16_to_double(b));
}

/* ---- result targets: a format to round to and how to store it ----------- */

/* store(p, x, self) writes x, a value of the target's format (already
 * rounded), at p.  ctx is the store's own data: NULL for the built-in
 * dtypes, the byte-coded format's tables for the ml_dtypes 8/6/4-bit ones
 * (xs_codes.h). */
typedef struct xs_target {
    const xs_format *format;
    void (*store)(char *p, double exactly_representable, const struct xs_target *self);
    const void *ctx;
} xs_target;

/* Store x through target t. */
#define XS_STORE(t, p, x) ((t)->store((p), (x), (t)))

extern const xs_target xs_target_float64;
extern const xs_target xs_target_float32;
extern const xs_target xs_target_float16;
extern const xs_target xs_target_bfloat16;

#endif
