/* Rounding an exact fixed-point value (or its quotient by a count) once. */
#include "exact/xs_round.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

const xs_format xs_format_float64 = {53, -1022, 1023};
const xs_format xs_format_float32 = {24, -126, 127};
const xs_format xs_format_float16 = {11, -14, 15};
const xs_format xs_format_bfloat16 = {8, -126, 127};

#define CHUNK_MASK ((int64_t)0xffffffff)

void xs_fixed_propagate(int64_t *chunk, int nchunks)
{
    int64_t carry = 0;
    for (int j = 0; j < nchunks - 1; j++) {
        int64_t v = chunk[j] + carry;
        chunk[j] = v & CHUNK_MASK;
        carry = v >> 32;      /* arithmetic shift: checked in xs_small.h */
    }
    chunk[nchunks - 1] += carry;
}

/* A non-negative integer as little-endian 32-bit words. */
typedef struct {
    uint32_t w[XS_ROUND_MAX_CHUNKS + 1];
    int nwords;
} magnitude;

static uint64_t word(const magnitude *m, int i)
{
    return (i >= 0 && i < m->nwords) ? m->w[i] : 0;
}

/* Bits [pos, pos + 64) (pos >= 0). */
static uint64_t bits_at(const magnitude *m, int pos)
{
    int a = pos >> 5;
    unsigned r = (unsigned)pos & 31u;
    uint64_t v = (word(m, a) | (word(m, a + 1) << 32)) >> r;
    if (r) {
        v |= word(m, a + 2) << (64u - r);
    }
    return v;
}

static int bit(const magnitude *m, int pos)
{
    return (int)(word(m, pos >> 5) >> (pos & 31)) & 1;
}

/* Is any bit below pos set? */
static int any_below(const magnitude *m, int pos)
{
    if (pos <= 0) {
        return 0;
    }
    int a = pos >> 5;
    unsigned r = (unsigned)pos & 31u;
    for (int i = 0; i < a && i < m->nwords; i++) {
        if (m->w[i]) {
            return 1;
        }
    }
    return r && (word(m, a) & ((1u << r) - 1u));
}

static int bit_length(uint64_t v)
{
    int n = 0;
    while (v) {
        v >>= 1;
        n++;
    }
    return n;
}

static double with_sign(int negative, double magnitude_value)
{
    return negative ? -magnitude_value : magnitude_value;
}

/* A finite exact value too large for the format: IEEE arithmetic would give
 * Inf and raise overflow, and NumPy turns that flag into its usual warning. */
static double overflowed(int negative)
{
    feraiseexcept(FE_OVERFLOW | FE_INEXACT);
    return with_sign(negative, INFINITY);
}

/* Weight exponent of the last kept bit when the value's top bit has weight
 * 2^e: p bits from the top, never below the format's smallest subnormal. */
static int quantum(int e, const xs_format *fmt)
{
    return (e > fmt->emin ? e : fmt->emin) - (fmt->precision - 1);
}

/* kept * 2^q, after rounding up when the dropped part is above half, or
 * exactly half with kept odd. */
static double finish(uint64_t kept, int round_bit, int sticky, int q, int negative,
                     const xs_format *fmt)
{
    if (round_bit && (sticky || (kept & 1u))) {
        kept++;
    }
    /* Rounding up may carry into 2^(emax+1): the rounded value overflows. */
    if (kept && q + bit_length(kept) - 1 > fmt->emax) {
        return overflowed(negative);
    }
    /* kept <= 2^p is exact in a double and kept * 2^q is a value of the
     * format (q >= its smallest subnormal exponent), so ldexp is exact. */
    return with_sign(negative, ldexp((double)kept, q));
}

/* round(M / divisor) for divisor >= 2, by binary long division that starts
 * at M's top bits and stops at the round bit; the remainder and the bits
 * of M not yet brought down make the sticky bit. */
static double round_quotient(const magnitude *m, int top_bit, int unit_shift,
                             uint64_t divisor, int negative, const xs_format *fmt)
{
    int divisor_bits = bit_length(divisor);
    /* Quotient bits above i0 are zero: M < 2^(top+1) <= 2^(i0 + bits). */
    int i0 = top_bit - divisor_bits + 1;
    int lowest_quantum = fmt->emin - (fmt->precision - 1) + unit_shift;
    if (i0 < lowest_quantum - 1) {
        /* M / divisor < 2^(i0 + 1) <= half the smallest subnormal. */
        return with_sign(negative, 0.0);
    }
    /* Remainder < 2 * divisor <= 2^64 throughout (divisor <= 2^63). */
    uint64_t rem = divisor_bits == 64 ? bits_at(m, i0)
                                      : bits_at(m, i0) & (((uint64_t)1 << divisor_bits) - 1);
    uint64_t kept = 0;
    int quotient_top = -1;
    int stop = lowest_quantum;        /* position of the last kept bit */
    for (int i = i0;; i--) {
        if (i < i0) {
            rem = (rem << 1) | (uint64_t)bit(m, i);
        }
        int b = rem >= divisor;
        if (b) {
            rem -= divisor;
            if (quotient_top < 0) {
                quotient_top = i;
                stop = quantum(i - unit_shift, fmt) + unit_shift;
            }
        }
        if (i >= stop) {
            kept = (kept << 1) | (uint64_t)b;
            continue;
        }
        /* i == stop - 1: the round bit. */
        int sticky = rem != 0 || any_below(m, i);
        return finish(kept, b, sticky, stop - unit_shift, negative, fmt);
    }
}

double xs_round_fixed(int64_t *chunk, int nchunks, int unit_shift, uint32_t flags,
                      uint64_t divisor, const xs_format *fmt)
{
    if (flags & XS_NAN) {
        return NAN;
    }
    if ((flags & XS_POS_INF) && (flags & XS_NEG_INF)) {
        feraiseexcept(FE_INVALID);     /* Inf - Inf, as IEEE addition flags it */
        return NAN;
    }
    if (flags & XS_POS_INF) {
        return INFINITY;
    }
    if (flags & XS_NEG_INF) {
        return -INFINITY;
    }
    if (divisor == 0) {
        return NAN;                    /* mean of nothing; the caller warns */
    }

    int top = nchunks - 1;
    int negative = chunk[top] < 0;
    if (negative) {
        for (int j = 0; j < nchunks; j++) {
            chunk[j] = -chunk[j];
        }
        xs_fixed_propagate(chunk, nchunks);
    }
    /* Now every chunk is in [0, 2^32) but the top one, in [0, 2^63). */
    magnitude m;
    m.nwords = nchunks + 1;
    for (int j = 0; j < top; j++) {
        m.w[j] = (uint32_t)chunk[j];
    }
    m.w[top] = (uint32_t)(chunk[top] & CHUNK_MASK);
    m.w[top + 1] = (uint32_t)((uint64_t)chunk[top] >> 32);
    int top_word = -1;
    for (int j = m.nwords - 1; j >= 0; j--) {
        if (m.w[j]) {
            top_word = j;
            break;
        }
    }
    if (top_word < 0) {
        /* Exact zero: -0.0 only when every term was -0.0. */
        int neg_zero = (flags & XS_HAS_TERM) && !(flags & XS_NOT_NEG_ZERO);
        return neg_zero ? -0.0 : 0.0;
    }
    int top_bit = 32 * top_word + bit_length(m.w[top_word]) - 1;
    if (divisor > 1) {
        return round_quotient(&m, top_bit, unit_shift, divisor, negative, fmt);
    }

    /* The value lies in [2^e, 2^(e+1)). */
    int e = top_bit - unit_shift;
    if (e > fmt->emax) {
        return overflowed(negative);
    }
    int q = quantum(e, fmt);
    int qbit = q + unit_shift;        /* >= 1 for every format and accumulator */
    uint64_t kept = bits_at(&m, qbit);
    int round_bit = bit(&m, qbit - 1);
    int sticky = any_below(&m, qbit - 1);
    return finish(kept, round_bit, sticky, q, negative, fmt);
}
