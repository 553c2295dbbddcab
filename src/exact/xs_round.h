/*
 * The one rounding: an exact fixed-point number (optionally divided by a
 * positive integer) rounded once, to nearest with ties to even, into a
 * binary floating-point format, subnormals and overflow included.
 */
#ifndef XS_ROUND_H
#define XS_ROUND_H

#include <stdint.h>

/* A rounding target: p significant bits, normal exponents emin..emax. */
typedef struct {
    int precision;
    int emin;
    int emax;
} xs_format;

extern const xs_format xs_format_float64;
extern const xs_format xs_format_float32;
extern const xs_format xs_format_float16;
extern const xs_format xs_format_bfloat16;

/* Flags: what the chunks of a fixed-point accumulator cannot hold. */
#define XS_HAS_TERM      0x01u /* at least one term was added */
#define XS_NOT_NEG_ZERO  0x02u /* some term was not -0.0 (decides the zero sign) */
#define XS_POS_INF       0x04u
#define XS_NEG_INF       0x08u
#define XS_NAN           0x10u
#define XS_FLAG_BITS     0x1fu

/* Longest fixed-point number rounded here, in 32-bit chunks. */
#define XS_ROUND_MAX_CHUNKS 160

/*
 * chunk[0..nchunks-1]: a normalised fixed-point number (chunks below the
 * top in [0, 2^32), the top one signed), chunk j of weight
 * 2^(32 j - unit_shift).  flags as above.  Returns
 *     round(value / divisor)        (divisor >= 1; 0 gives NaN)
 * as a double that is exactly representable in fmt.  Inf - Inf raises
 * FE_INVALID and a finite value beyond fmt raises FE_OVERFLOW, as IEEE
 * arithmetic would; nothing else raises a flag.  chunk is used as scratch.
 */
double xs_round_fixed(int64_t *chunk, int nchunks, int unit_shift, uint32_t flags,
                      uint64_t divisor, const xs_format *fmt);

/* Normalise chunks in place (carry propagation); the top one keeps the sign. */
void xs_fixed_propagate(int64_t *chunk, int nchunks);

#endif
