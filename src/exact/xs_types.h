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

/* ---- loads: an element as a double (exact) ------------------------------- */

static inline double xs_value_float64(const char *p)
{
    double x;
    memcpy(&x, p, sizeof x);
    return x;
}

static inline double xs_value_float32(const char *p)
{
    float f;
    memcpy(&f, p, sizeof f);
    return (double)f;
}

/* binary16 by the scalar conversion: the accumulator loops add one element
 * at a time, and its branches on the rare cases are the faster there. */
static inline double xs_value_float16(const char *p)
{
    uint16_t h;
    memcpy(&h, p, sizeof h);
    return xs_half_to_double(h);
}

/* binary16 by the branch-free conversion, for loops that load a block of
 * elements and vectorise (the low-precision updates, xs_lowprec.c). */
static inline double xs_value_float16_lanes(const char *p)
{
    uint16_t h;
    memcpy(&h, p, sizeof h);
    return xs_half_to_double_lanes(h);
}

static inline double xs_value_bfloat16(const char *p)
{
    uint16_t b;
    memcpy(&b, p, sizeof b);
    return xs_bfloat16_to_double(b);
}

/* ---- loads: the float64 bit pattern of an element ------------------------ */

static inline uint64_t xs_load_float64(const char *p)
{
    return xs_double_bits(xs_value_float64(p));
}

static inline uint64_t xs_load_float32(const char *p)
{
    return xs_double_bits(xs_value_float32(p));
}

static inline uint64_t xs_load_float16(const char *p)
{
    return xs_double_bits(xs_value_float16(p));
}

static inline uint64_t xs_load_bfloat16(const char *p)
{
    return xs_double_bits(xs_value_bfloat16(p));
}

/* ---- stores: x, a value of the dtype's format (already rounded), at p ----- */

static inline void xs_store_float64(char *p, double x)
{
    memcpy(p, &x, sizeof x);
}

static inline void xs_store_float32(char *p, double x)
{
    float f = (float)x;                 /* exact: x is a float32 value */
    memcpy(p, &f, sizeof f);
}

/* x representable in binary16 (or +-Inf, NaN), branch-free (xs_exact.h). */
static inline void xs_store_float16(char *p, double x)
{
    uint16_t h = xs_double_to_half(x);
    memcpy(p, &h, sizeof h);
}

static inline void xs_store_bfloat16(char *p, double x)
{
    uint16_t b = xs_double_to_bfloat16(x);
    memcpy(p, &b, sizeof b);
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
