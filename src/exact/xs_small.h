/*
 * Small superaccumulator: an exact fixed-point number wide enough for any
 * sum of float64 values (and of 64-bit integers).
 *
 * Every finite double is an integer multiple of 2^-1074, so an exact sum of
 * doubles is an integer times 2^-1074: a fixed-point number.  We keep it as
 * XS_NCHUNKS signed 64-bit chunks; chunk j holds digits of weight
 * 2^(32*j - XS_UNIT_SHIFT).  A chunk is "normalised" when it lies in
 * [0, 2^32); adds leave chunks unnormalised (any sign, up to 2^63), and a
 * carry propagation brings them back.  Inf and NaN never enter the chunks:
 * they are remembered in flags.
 *
 * Facts from Neal (2015), "Fast exact summation using small and large
 * superaccumulators", arXiv:1505.05571.
 */
#ifndef XS_SMALL_H
#define XS_SMALL_H

#include <stdint.h>
#include <string.h>

#include "exact/xs_exact.h"
#include "exact/xs_round.h"

/* The arithmetic shift of a negative int64 is implementation-defined in C17;
 * every compiler we build with makes it arithmetic.  Refuse others. */
_Static_assert((-1 >> 1) == -1, "xsumufunc needs arithmetic right shifts");

/* Bits per chunk "digit" after normalisation. */
#define XS_CHUNK_BITS 32
/* log2(XS_CHUNK_BITS): a double of biased exponent e starts in chunk
 * e >> XS_CHUNK_EXP_SHIFT, at bit e & (XS_CHUNK_BITS - 1) of it. */
#define XS_CHUNK_EXP_SHIFT 5
_Static_assert(XS_CHUNK_BITS == 1 << XS_CHUNK_EXP_SHIFT, "XS_CHUNK_EXP_SHIFT is log2(XS_CHUNK_BITS)");
#define XS_CHUNK_MASK ((int64_t)0xffffffff)
/* Weight of bit 0 of chunk 0 is 2^-XS_UNIT_SHIFT.  A double with biased
 * exponent e (e >= 1) is m * 2^(e - 1075), m its 53-bit integer mantissa. */
#define XS_UNIT_SHIFT 1075
/* Biased exponents 1..2046 put mantissa bits into chunks 0..64; chunks 65
 * to 67 absorb carries and exact multiples: 2^63 copies of the largest
 * double are below 2^1088, i.e. bit 2163 of the fixed point, in chunk 67. */
#define XS_NCHUNKS 68
/* Each add changes a chunk by less than 2^52 and a normalised chunk is below
 * 2^32, so 2^11 - 1 adds fit in an int64 before a carry propagation. */
#define XS_ADDS_BETWEEN_CARRIES 2047

/* Portable state: the chunks after carry propagation, then the flags word.
 * Identical bytes for identical exact values on every machine (the Python
 * layer stores it as little-endian int64). */
#define XS_STATE_LEN (XS_NCHUNKS + 1)
/* The top chunk of any state we make stays far below this (2^63 terms give
 * less than 2^18 there); states read back may not reach it. */
#define XS_STATE_TOP_LIMIT ((int64_t)1 << 40)

typedef struct {
    int64_t chunk[XS_NCHUNKS];
    int adds_left;      /* adds allowed before the next carry propagation */
    uint32_t flags;
} xs_small;

void xs_small_init(xs_small *acc);
/* Normalise: chunks below the top in [0, 2^32), the top one carries the sign. */
void xs_small_propagate(xs_small *acc);
/* Add (or subtract) an unsigned integer given as little-endian 32-bit
 * digits, scaled by 2^(bitpos - XS_UNIT_SHIFT).  Counts as one add. */
void xs_small_add_digits(xs_small *acc, const uint32_t *digits, int ndigits,
                         int bitpos, int negative);
void xs_small_add_special(xs_small *acc, uint64_t bits);
void xs_small_add_int64(xs_small *acc, int64_t v);
void xs_small_add_uint64(xs_small *acc, uint64_t v);
/* The 128-bit product a*b as four little-endian 32-bit digits. */
void xs_mul_digits(uint64_t a, uint64_t b, uint32_t digits[4]);
/* Add count copies of the integer (-1)^negative * magnitude, exactly. */
void xs_small_add_integer_times(xs_small *acc, uint64_t magnitude, int negative,
                                uint64_t count);
/* Add count copies of the double with this bit pattern, exactly. */
void xs_small_add_double_times(xs_small *acc, uint64_t bits, uint64_t count);
void xs_small_merge(xs_small *acc, const xs_small *other);
/* Round the exact value (divided by divisor >= 1) once into fmt; the
 * double returned is exactly representable in fmt, so converting it to
 * fmt's storage is exact.  See xs_round_fixed. */
double xs_small_round(xs_small *acc, const xs_format *fmt);
double xs_small_round_divided(xs_small *acc, uint64_t divisor, const xs_format *fmt);
void xs_small_to_state(xs_small *acc, int64_t *state);
/* Returns 0 on success, -1 if the state is not one that to_state makes. */
int xs_small_from_state(xs_small *acc, const int64_t *state);
/* Merge a state (from xs_small_from_state) into acc, an accumulator of
 * merged states: when the exact sum leaves the state range (top chunk
 * 2^40 or more in magnitude), it becomes the state of +-Inf, which is what
 * it rounds to.  A plain xs_small_merge would overflow int64 after ~2^23
 * merges of states at the limit (undefined behaviour). */
void xs_small_merge_state(xs_small *acc, const xs_small *state);

/* A sign without a branch: xs_negate_mask(negative) is 0 or -1 (all ones),
 * and xs_signed(part, mask) = (part ^ mask) - mask is part or -part
 * (part above INT64_MIN). */
static inline int64_t xs_negate_mask(uint64_t negative)
{
    return -(int64_t)(negative != 0);
}

static inline int64_t xs_signed(int64_t part, int64_t mask)
{
    return (part ^ mask) - mask;
}

static inline void xs_small_count_add(xs_small *acc)
{
    if (--acc->adds_left <= 0) {
        xs_small_propagate(acc);
    }
}

/* Add one double given by its bit pattern: the hot operation of the small
 * accumulator, with no branch on magnitude. */
static inline void xs_small_add_bits(xs_small *acc, uint64_t bits)
{
    unsigned biased = (unsigned)(bits >> XS_F64_MANT_BITS) & XS_F64_EXP_MASK;
    uint64_t mant = bits & XS_F64_MANT_MASK;
    acc->flags |= XS_HAS_TERM;
    if (bits != XS_F64_SIGN_BIT) {
        acc->flags |= XS_NOT_NEG_ZERO;
    }
    if (biased == XS_F64_EXP_MASK) {
        xs_small_add_special(acc, bits);
        return;
    }
    if (biased == 0) {
        biased = 1;               /* subnormal: no implicit bit, exponent 1 */
    }
    else {
        mant |= XS_F64_IMPLICIT_BIT;
    }
    unsigned lo = biased & (XS_CHUNK_BITS - 1u), hi = biased >> XS_CHUNK_EXP_SHIFT;
    int64_t low_part = (int64_t)((mant << lo) & (uint64_t)XS_CHUNK_MASK);
    int64_t high_part = (int64_t)(mant >> (XS_CHUNK_BITS - lo));
    /* No branch on the sign (terms of random signs mispredicted one in
     * two; Zen 4, (1000, 1000) columns of exponents over the whole range,
     * which go value by value: 6.5 -> 4.3 ns a term). */
    int64_t negate = xs_negate_mask(bits & XS_F64_SIGN_BIT);
    acc->chunk[hi] += xs_signed(low_part, negate);
    acc->chunk[hi + 1] += xs_signed(high_part, negate);
    xs_small_count_add(acc);
}

#endif
