/* Small superaccumulator: carry propagation, exact adds of integers and
 * multiples, merging and the portable state.  Rounding: xs_round.c. */
#include "exact/xs_small.h"


#define XS_TOP (XS_NCHUNKS - 1)

void xs_small_init(xs_small *acc)
{
    memset(acc->chunk, 0, sizeof acc->chunk);
    acc->adds_left = XS_ADDS_BETWEEN_CARRIES;
    acc->flags = 0;
}

void xs_small_propagate(xs_small *acc)
{
    xs_fixed_propagate(acc->chunk, XS_NCHUNKS);
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
    if (bits & XS_F64_MANT_MASK) {
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

void xs_mul_digits(uint64_t a, uint64_t b, uint32_t digits[4])
{
    uint64_t x[2] = {a & 0xffffffffu, a >> 32};
    uint64_t y[2] = {b & 0xffffffffu, b >> 32};
    digits[0] = digits[1] = digits[2] = digits[3] = 0;
    for (int i = 0; i < 2; i++) {
        uint64_t carry = 0;
        for (int k = 0; k < 2; k++) {
            /* < 2^64: (2^32-1)^2 + 2 * (2^32-1) */
            uint64_t t = x[i] * y[k] + digits[i + k] + carry;
            digits[i + k] = (uint32_t)t;
            carry = t >> 32;
        }
        digits[i + 2] = (uint32_t)carry;
    }
}

void xs_small_add_integer_times(xs_small *acc, uint64_t magnitude, int negative,
                                uint64_t count)
{
    if (count == 0) {
        return;
    }
    acc->flags |= XS_HAS_TERM | XS_NOT_NEG_ZERO;
    uint32_t digits[4];
    xs_mul_digits(magnitude, count, digits);
    xs_small_add_digits(acc, digits, 4, XS_UNIT_SHIFT, negative);
}

void xs_small_add_double_times(xs_small *acc, uint64_t bits, uint64_t count)
{
    if (count == 0) {
        return;
    }
    acc->flags |= XS_HAS_TERM;
    if (bits != XS_F64_SIGN_BIT) {
        acc->flags |= XS_NOT_NEG_ZERO;
    }
    unsigned biased = (unsigned)(bits >> XS_F64_MANT_BITS) & XS_F64_EXP_MASK;
    uint64_t mant = bits & XS_F64_MANT_MASK;
    if (biased == XS_F64_EXP_MASK) {
        xs_small_add_special(acc, bits);
        return;
    }
    if (biased == 0) {
        biased = 1;
    }
    else {
        mant |= XS_F64_IMPLICIT_BIT;
    }
    uint32_t digits[4];
    xs_mul_digits(mant, count, digits);
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

void xs_small_merge_state(xs_small *acc, const xs_small *state)
{
    /* Both top chunks are below the limit (from_state and this function
     * see to it), so their sum cannot overflow. */
    xs_small_merge(acc, state);
    int64_t top = acc->chunk[XS_TOP];
    if (top >= XS_STATE_TOP_LIMIT || top <= -XS_STATE_TOP_LIMIT) {
        /* |value| >= 2^1109 - 2^1069: it rounds to that infinity in every
         * format.  Only crafted states (or over 2^90 terms) get here. */
        uint32_t flags = acc->flags | XS_HAS_TERM | XS_NOT_NEG_ZERO |
                         (top > 0 ? XS_POS_INF : XS_NEG_INF);
        xs_small_init(acc);
        acc->flags = flags;
    }
}

double xs_small_round_divided(xs_small *acc, uint64_t divisor, const xs_format *fmt)
{
    xs_small_propagate(acc);
    int64_t scratch[XS_NCHUNKS];
    memcpy(scratch, acc->chunk, sizeof scratch);
    return xs_round_fixed(scratch, XS_NCHUNKS, XS_UNIT_SHIFT, acc->flags, divisor, fmt);
}

double xs_small_round(xs_small *acc, const xs_format *fmt)
{
    return xs_small_round_divided(acc, 1, fmt);
}
