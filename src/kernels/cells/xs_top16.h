/*
 * The range measure of the portable kernels on x86-64 (xs_cells.c, the
 * column strips of xs_columns.c, and the dot cells of
 * xs_dot_cells_generic.c) and of AVX2's rows and column strips: a block's
 * largest and smallest |x| from the top 16 bits of each pattern, kept in
 * signed 16-bit maxima and minima on the integer vector units, so that the two
 * floating-point adders of a core do only the cuts (SSE2 has no 64-bit
 * compare and AVX2's needs a blend besides; a double max or min would take
 * an adder).
 *
 * The top 16 bits of |x| are its exponent field and its 4 leading fraction
 * bits: every value the drivers read of a largest |x| (whether it is below
 * a power of two, its exponent field) is the same for the whole pattern and
 * for those bits followed by zeros.  A pattern's top 16 bits (sign off) are
 * at most 0x7fff, a signed 16-bit maximum.  The smallest non-zero |x| is
 * the minimum of a key (xs_top16_min_key) that puts zeros last with one
 * integer addition; it keeps the top 16 bits of |x| - 1, the same exponent
 * field but for a power of two (one binade lower: a cell more at worst).
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

/* What a key adds to |x|'s pattern (modulo 2^64), and the top bit of a
 * non-zero |x|'s key top (see xs_top16_min_key). */
#define XS_TOP16_KEY_ADD ((uint64_t)INT64_MAX)
#define XS_TOP16_KEY_SIGN 0x8000u

/* The key of a minimum of non-zero |x| on signed 16-bit lanes, from abs,
 * the pattern of |x|: abs + 2^63 - 1 modulo 2^64.  Its top 16 bits are
 * 0x7fff for a zero, the largest (zeros pass), and for |x| > 0 those of
 * |x| - 1 with the top bit set, below every zero's and in the order of |x|
 * (a subnormal's too: no compare with 0.0, which would take an adder). */
static inline __m128i xs_top16_min_key(__m128i abs)
{
    return _mm_add_epi64(abs, _mm_set1_epi64x((long long)XS_TOP16_KEY_ADD));
}

/* The smaller of the two lanes' key tops of a minimum m (signed order). */
static inline unsigned xs_top16_least_key(__m128i m)
{
    int16_t w[8];
    _mm_storeu_si128((__m128i *)w, m);
    return (uint16_t)(w[3] < w[7] ? w[3] : w[7]);
}

/* A range's min_bits_m1 from a least key top (xs_top16_min_key):
 * UINT64_MAX when every |x| was 0; else the top 16 bits of the smallest
 * |x| - 1 followed by zeros, at most that pattern less 1.  Its exponent
 * field is the smallest |x|'s, except when that is a power of two: one
 * binade lower (a window then may take a cell more); a subnormal's is 0. */
static inline uint64_t xs_top16_key_min_m1(unsigned key)
{
    return key == XS_TOP16_MAX ? UINT64_MAX : xs_top16_bits(key ^ XS_TOP16_KEY_SIGN);
}

#endif
