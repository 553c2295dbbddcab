/*
 * The range measure of the portable kernels on x86-64 (xs_cells.c, and the
 * dot cells of xs_dot_cells_generic.c): a block's largest and smallest
 * |x| from the top 16 bits of each pattern, kept in SSE2's signed 16-bit
 * maxima and minima on the integer vector units, so that the two
 * floating-point adders of a core do only the cuts (SSE2 has no 64-bit
 * compare; a double max or min would take an adder).
 *
 * The top 16 bits of |x| are its exponent field and its 4 leading fraction
 * bits: every value the drivers read of a range (whether it is below a
 * power of two, its exponent field) is the same for the whole pattern and
 * for those bits followed by zeros.  A pattern's top 16 bits (sign off) are
 * at most 0x7fff, a signed 16-bit maximum.
 */
#ifndef XS_TOP16_H
#define XS_TOP16_H

#include <stdint.h>
#include <emmintrin.h>

/* Where the top 16 bits of a double's pattern start. */
#define XS_TOP16_SHIFT 48
/* The largest top: no |x| lies above it (a NaN's may equal it). */
#define XS_TOP16_MAX 0x7fffu
/* The top 16 bits of |x| in place in a 64-bit pattern, the sign off (and,
 * with it, the largest top: the initial value of a minimum). */
#define XS_TOP16_ABS_BITS ((uint64_t)XS_TOP16_MAX << XS_TOP16_SHIFT)
/* The same in each 64-bit lane of a vector. */
#define XS_TOP16_ABS_LANES() _mm_set1_epi64x((long long)XS_TOP16_ABS_BITS)

/* The top 16 bits of each lane of x's pattern, the sign off, the rest 0. */
static inline __m128i xs_top16(__m128d x)
{
    return _mm_and_si128(_mm_castpd_si128(x), XS_TOP16_ABS_LANES());
}

/* The larger (smaller) of the two lanes' tops of a measure m. */
static inline unsigned xs_top16_larger(__m128i m)
{
    uint16_t w[8];
    _mm_storeu_si128((__m128i *)w, m);
    return w[3] > w[7] ? w[3] : w[7];
}

static inline unsigned xs_top16_smaller(__m128i m)
{
    uint16_t w[8];
    _mm_storeu_si128((__m128i *)w, m);
    return w[3] < w[7] ? w[3] : w[7];
}

/* A top as a range's bit pattern: the top 16 bits followed by zeros. */
static inline uint64_t xs_top16_bits(unsigned top)
{
    return (uint64_t)top << XS_TOP16_SHIFT;
}

/* A range's min_bits_m1 from its least top in place (xs_top16_bits):
 * UINT64_MAX when that is the largest top, the minimum's start (no non-zero
 * |x|: the measures count a zero as the largest top); 0 for a least top of
 * 0 (a subnormal below 2^-1026, exponent field 0, as the 64-bit measures
 * report it); else the pattern less 1. */
static inline uint64_t xs_top16_min_m1(uint64_t least)
{
    return least == XS_TOP16_ABS_BITS ? UINT64_MAX : least != 0 ? least - 1 : 0;
}

#endif
