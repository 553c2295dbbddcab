/* Small superaccumulator: carry propagation, exact adds of integers and
 * multiples, merging, portable state, and the one rounding to a format. */
#include "xs_small.h"

#include <fenv.h>
#include <math.h>

const xs_format xs_format_float64 = {53, -1022, 1023};
const xs_format xs_format_float32 = {24, -126, 127};
const xs_format xs_format_float16 = {11, -14, 15};
const xs_format xs_format_bfloat16 = {8, -126, 127};

#define XS_TOP (XS_NCHUNKS - 1)

void xs_small_init(xs_small *acc)
{
    memset(acc->chunk, 0, sizeof acc->chunk);
    acc->adds_left = XS_ADDS_BETWEEN_CARRIES;
    acc->flags = 0;
}

void xs_small_propagate(xs_small *acc)
{
    int64_t carry = 0;
    for (int j = 0; j < XS_TOP; j++) {
        int64_t v = acc->chunk[j] + carry;
        acc->chunk[j] = v & XS_CHUNK_MASK;
        carry = v >> XS_CHUNK_BITS;
    }
    acc->chunk[XS_TOP] += carry;
    acc->adds_left = XS_ADDS_BETWEEN_CARRIES;
}

void xs_small_add_digits(xs_small *acc, const uint32_t *digits, int ndigits,
                         int bitpos, int negative)
{
    int j = bitpos >> 5;
    unsigned r = (unsigned)bitpos & 31u;
    for (int k = 0; k < ndigits; k++) {
        uint64_t d = digits[k];
        /* Both parts are below 2^32, so each chunk moves by under 2^33. */
        int64_t low_part = (int64_t)((d << r) & 0xffffffffu);
        int64_t high_part = (int64_t)(r ? d >> (32u - r) : 0);
        if (negative) {
            low_part = -low_part;
            high_part = -high_part;
        }
        acc->chunk[j + k] += low_part;
        if (high_part) {
            acc->chunk[j + k + 1] += high_part;
        }
    }
    xs_small_count_add(acc);
}

void xs_small_add_special(xs_small *acc, uint64_t bits)
{
    if (bits & (((uint64_t)1 << 52) - 1)) {
        acc->flags |= XS_NAN;
    }
    else {
        acc->flags |= (bits >> 63) ? XS_NEG_INF : XS_POS_INF;
    }
}

void xs_small_add_uint64(xs_small *acc, uint64_t v)
{
    uint32_t digits[2] = {(uint32_t)v, (uint32_t)(v >> 32)};
    acc->flags |= XS_HAS_TERM | XS_NOT_NEG_ZERO;
    xs_small_add_digits(acc, digits, 2, XS_UNIT_SHIFT, 0);
}

void xs_small_add_int64(xs_small *acc, int64_t v)
{
    /* Magnitude through unsigned arithmetic: -INT64_MIN is not an int64. */
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    uint32_t digits[2] = {(uint32_t)mag, (uint32_t)(mag >> 32)};
    acc->flags |= XS_HAS_TERM | XS_NOT_NEG_ZERO;
    xs_small_add_digits(acc, digits, 2, XS_UNIT_SHIFT, v < 0);
}

void xs_small_add_double_times(xs_small *acc, uint64_t bits, uint64_t count)
{
    if (count == 0) {
        return;
    }
    acc->flags |= XS_HAS_TERM;
    if (bits != ((uint64_t)1 << 63)) {
        acc->flags |= XS_NOT_NEG_ZERO;
    }
    unsigned biased = (unsigned)(bits >> 52) & 0x7ffu;
    uint64_t mant = bits & (((uint64_t)1 << 52) - 1);
    if (biased == 0x7ffu) {
        xs_small_add_special(acc, bits);
        return;
    }
    if (biased == 0) {
        biased = 1;
    }
    else {
        mant |= (uint64_t)1 << 52;
    }
    /* mant * count (< 2^117) as four 32-bit digits, schoolbook. */
    uint64_t m[2] = {mant & 0xffffffffu, mant >> 32};
    uint64_t c[2] = {count & 0xffffffffu, count >> 32};
    uint32_t digits[4] = {0, 0, 0, 0};
    for (int i = 0; i < 2; i++) {
        uint64_t carry = 0;
        for (int k = 0; k < 2; k++) {
            /* < 2^64: (2^32-1)^2 + 2 * (2^32-1) */
            uint64_t t = m[i] * c[k] + digits[i + k] + carry;
            digits[i + k] = (uint32_t)t;
            carry = t >> 32;
        }
        digits[i + 2] = (uint32_t)carry;
    }
    xs_small_add_digits(acc, digits, 4, (int)biased, (int)(bits >> 63));
}

void xs_small_merge(xs_small *acc, const xs_small *other)
{
    xs_small tmp = *other;
    xs_small_propagate(&tmp);
    xs_small_propagate(acc);
    for (int j = 0; j < XS_NCHUNKS; j++) {
        acc->chunk[j] += tmp.chunk[j];
    }
    acc->flags |= tmp.flags;
    xs_small_propagate(acc);
}

void xs_small_to_state(xs_small *acc, int64_t *state)
{
    xs_small_propagate(acc);
    memcpy(state, acc->chunk, sizeof acc->chunk);
    state[XS_NCHUNKS] = (int64_t)acc->flags;
}

/* The top chunk of any state we make stays far below this. */
#define XS_STATE_TOP_LIMIT ((int64_t)1 << 40)

int xs_small_from_state(xs_small *acc, const int64_t *state)
{
    for (int j = 0; j < XS_TOP; j++) {
        if (state[j] < 0 || state[j] > XS_CHUNK_MASK) {
            return -1;
        }
    }
    if (state[XS_TOP] >= XS_STATE_TOP_LIMIT || state[XS_TOP] <= -XS_STATE_TOP_LIMIT) {
        return -1;
    }
    if (state[XS_NCHUNKS] & ~(int64_t)XS_FLAG_BITS) {
        return -1;
    }
    memcpy(acc->chunk, state, sizeof acc->chunk);
    acc->flags = (uint32_t)state[XS_NCHUNKS];
    acc->adds_left = XS_ADDS_BETWEEN_CARRIES;
    return 0;
}

/* ---- rounding ---------------------------------------------------------- */

/* A non-negative fixed-point magnitude as 32-bit digits. */
typedef struct {
    uint32_t w[XS_TOP];
} xs_magnitude;

static uint64_t mag_word(const xs_magnitude *m, int i)
{
    return (i >= 0 && i < XS_TOP) ? m->w[i] : 0;
}

/* Bits [pos, pos + 64) of the magnitude. */
static uint64_t mag_bits_at(const xs_magnitude *m, int pos)
{
    int a = pos >> 5;
    unsigned r = (unsigned)pos & 31u;
    uint64_t lo = mag_word(m, a) | (mag_word(m, a + 1) << 32);
    uint64_t v = lo >> r;
    if (r) {
        v |= mag_word(m, a + 2) << (64u - r);
    }
    return v;
}

/* Is any bit below pos set? */
static int mag_any_below(const xs_magnitude *m, int pos)
{
    if (pos <= 0) {
        return 0;
    }
    int a = pos >> 5;
    unsigned r = (unsigned)pos & 31u;
    for (int i = 0; i < a && i < XS_TOP; i++) {
        if (m->w[i]) {
            return 1;
        }
    }
    return r && a < XS_TOP && (m->w[a] & ((1u << r) - 1u));
}

static int bit_length32(uint32_t w)
{
    int n = 0;
    while (w) {
        w >>= 1;
        n++;
    }
    return n;
}

static double signed_value(int negative, double magnitude)
{
    return negative ? -magnitude : magnitude;
}

/* A finite exact value too large for the format: IEEE addition would give
 * Inf and raise overflow, and NumPy turns that flag into its usual warning. */
static double overflowed(int negative)
{
    feraiseexcept(FE_OVERFLOW | FE_INEXACT);
    return signed_value(negative, INFINITY);
}

double xs_small_round(xs_small *acc, const xs_format *fmt)
{
    uint32_t flags = acc->flags;
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

    xs_small_propagate(acc);
    int negative = acc->chunk[XS_TOP] < 0;
    xs_small work = *acc;
    if (negative) {
        for (int j = 0; j < XS_NCHUNKS; j++) {
            work.chunk[j] = -work.chunk[j];
        }
        xs_small_propagate(&work);
    }
    if (work.chunk[XS_TOP] != 0) {
        /* At least 2^(32*67 - 1075) = 2^1069: beyond every format. */
        return overflowed(negative);
    }
    xs_magnitude mag;
    int top_word = -1;
    for (int j = 0; j < XS_TOP; j++) {
        mag.w[j] = (uint32_t)work.chunk[j];
        if (mag.w[j]) {
            top_word = j;
        }
    }
    if (top_word < 0) {
        /* Exact zero: -0.0 only when every term was -0.0. */
        int neg_zero = (flags & XS_HAS_TERM) && !(flags & XS_NOT_NEG_ZERO);
        return neg_zero ? -0.0 : 0.0;
    }

    /* The value lies in [2^e, 2^(e+1)). */
    int top_bit = 32 * top_word + bit_length32(mag.w[top_word]) - 1;
    int e = top_bit - XS_UNIT_SHIFT;
    if (e > fmt->emax) {
        return overflowed(negative);
    }
    /* Weight of the last kept bit: p bits from the top, but never below the
     * format's smallest subnormal. */
    int q = (e > fmt->emin ? e : fmt->emin) - (fmt->precision - 1);
    int qbit = q + XS_UNIT_SHIFT;      /* >= 1 for every format we round to */
    uint64_t kept = mag_bits_at(&mag, qbit);
    int round_bit = (int)(mag_bits_at(&mag, qbit - 1) & 1u);
    int sticky = mag_any_below(&mag, qbit - 1);
    if (round_bit && (sticky || (kept & 1u))) {
        kept++;
    }
    /* Rounding up may carry into 2^(emax+1): the rounded value overflows.
     * Here e <= emax, so that bound is at most 2^p quanta of 2^q. */
    int overflow_shift = fmt->emax + 1 - q;
    if (overflow_shift <= fmt->precision && kept >= ((uint64_t)1 << overflow_shift)) {
        return overflowed(negative);
    }
    /* kept <= 2^p is exact in a double and kept * 2^q is a value of the
     * format, so ldexp is exact and raises no flag. */
    return signed_value(negative, ldexp((double)kept, q));
}
