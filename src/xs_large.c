/* Large superaccumulator: slow path, bin transfer and flush. */
#include "xs_large.h"

#include <stdlib.h>

#define XS_EXPONENT_ALL_ONES 0x7ffu
/* Bin of -0.0 and the negative subnormals. */
#define XS_NEG_SUBNORMAL_BIN 0x800u

xs_large *xs_large_new(void)
{
    xs_large *acc = malloc(sizeof *acc);
    if (acc) {
        xs_large_init(acc);
    }
    return acc;
}

xs_large *xs_large_for_row(xs_large **cache)
{
    if (*cache == NULL) {
        *cache = xs_large_new();
    }
    if (*cache != NULL) {
        xs_small_init(&(*cache)->small);
    }
    return *cache;
}

void xs_large_free(xs_large *acc)
{
    free(acc);
}

void xs_large_init(xs_large *acc)
{
    /* All-ones bytes make every int16 count -1 (XS_LARGE_UNUSED). */
    memset(acc->remaining, 0xff, sizeof acc->remaining);
    memset(acc->used, 0, sizeof acc->used);
    xs_small_init(&acc->small);
}

/* Add bin ix, holding (capacity - remaining) terms, to the small accumulator. */
static void transfer_bin(xs_large *acc, unsigned ix)
{
    uint64_t remaining = (uint64_t)acc->remaining[ix];
    uint64_t adds = XS_LARGE_BIN_CAPACITY - remaining;
    if (adds == 0) {
        return;
    }
    /* The bin holds adds * (ix << 52) + fractions (mod 2^64); since
     * capacity * (ix << 52) is 0 mod 2^64, adding remaining * (ix << 52)
     * leaves exactly the sum of the 52-bit fractions. */
    uint64_t fractions = acc->bin[ix] + ((uint64_t)ix * remaining << 52);
    unsigned biased = ix & XS_EXPONENT_ALL_ONES;
    int negative = (int)(ix >> 11);

    acc->small.flags |= XS_HAS_TERM;
    if (ix != XS_NEG_SUBNORMAL_BIN || fractions != 0) {
        acc->small.flags |= XS_NOT_NEG_ZERO;   /* not only -0.0 terms */
    }
    /* amount = fractions + adds * 2^52 (the implicit bits), up to 2^65. */
    uint64_t implicit = biased ? adds : 0;
    uint64_t low = fractions + ((implicit & 0xfffu) << 52);
    uint64_t high = (implicit >> 12) + (low < fractions);
    uint32_t digits[3] = {(uint32_t)low, (uint32_t)(low >> 32), (uint32_t)high};
    xs_small_add_digits(&acc->small, digits, 3, biased ? (int)biased : 1, negative);
}

void xs_large_add_slow(xs_large *acc, uint64_t bits)
{
    unsigned ix = (unsigned)(bits >> 52);
    if ((ix & XS_EXPONENT_ALL_ONES) == XS_EXPONENT_ALL_ONES) {
        xs_small_add_bits(&acc->small, bits);   /* Inf or NaN: flags only */
        return;
    }
    if (acc->remaining[ix] == 0) {
        transfer_bin(acc, ix);                   /* full */
    }
    else {
        acc->used[ix >> 6] |= (uint64_t)1 << (ix & 63u);   /* first use */
    }
    acc->bin[ix] = bits;
    acc->remaining[ix] = XS_LARGE_BIN_CAPACITY - 1;
}

/* The index of the lowest set bit of a non-zero mask. */
static inline unsigned lowest_set_bit(uint64_t mask)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(mask);
#else
    unsigned bit = 0;
    while (!((mask >> bit) & 1u)) {
        bit++;
    }
    return bit;
#endif
}

void xs_large_flush(xs_large *acc)
{
    for (unsigned word = 0; word < XS_LARGE_NBINS / 64; word++) {
        uint64_t mask = acc->used[word];
        while (mask) {
            unsigned bit = lowest_set_bit(mask);
            mask &= mask - 1;     /* clear the lowest set bit */
            unsigned ix = word * 64 + bit;
            transfer_bin(acc, ix);
            acc->remaining[ix] = XS_LARGE_UNUSED;
        }
        acc->used[word] = 0;
    }
}
