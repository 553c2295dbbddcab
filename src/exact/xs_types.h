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

#include "exact/xs_exact.h"
#include "exact/xs_small.h"

/* The float16 and bfloat16 conversions are exact primitives (xs_exact.h). */

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
