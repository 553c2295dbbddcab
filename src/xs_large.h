/*
 * Large superaccumulator (Neal 2015): one 64-bit bin per (sign, exponent)
 * of a float64, i.e. per value of the top 12 bits of its bit pattern.  A term
 * is added as its whole bit pattern into its bin, with no shift and no sign
 * test; the 12 top bits added along are removed again when the bin is
 * transferred into the small accumulator (after 4096 adds they have been
 * shifted out of the 64-bit word altogether).
 */
#ifndef XS_LARGE_H
#define XS_LARGE_H

#include "xs_small.h"

/* One bin per value of bits >> 52. */
#define XS_LARGE_NBINS 4096
/* Adds a bin takes before it must be transferred: the sign/exponent bits of
 * 4096 identical patterns sum to a multiple of 2^64, and 4096 fractions of
 * 52 bits sum to under 2^64. */
#define XS_LARGE_BIN_CAPACITY 4096
#define XS_LARGE_UNUSED (-1)

typedef struct {
    uint64_t bin[XS_LARGE_NBINS];
    /* Adds still allowed before a transfer; XS_LARGE_UNUSED for bins not in
     * use and for Inf/NaN bins, so that both take the slow path. */
    int16_t remaining[XS_LARGE_NBINS];
    /* Which bins are in use, so that the final transfer visits only those. */
    uint64_t used[XS_LARGE_NBINS / 64];
    xs_small small;
} xs_large;

/* Heap allocation: the struct is 45 KiB, too big for some thread stacks. */
xs_large *xs_large_new(void);
void xs_large_free(xs_large *acc);
/* The large accumulator for a new row, made on first use and kept in
 * *cache for the next rows, with its small part cleared; NULL if out of
 * memory (the caller then uses a small accumulator: slower, still exact). */
xs_large *xs_large_for_row(xs_large **cache);
void xs_large_init(xs_large *acc);
/* The slow path of an add: first use, full bin, or Inf/NaN. */
void xs_large_add_slow(xs_large *acc, uint64_t bits);
/* Move every used bin into acc->small and reset the bins to unused. */
void xs_large_flush(xs_large *acc);

static inline void xs_large_add_bits(xs_large *acc, uint64_t bits)
{
    unsigned ix = (unsigned)(bits >> 52);
    int left = acc->remaining[ix] - 1;
    if (left >= 0) {
        acc->remaining[ix] = (int16_t)left;
        acc->bin[ix] += bits;
    }
    else {
        xs_large_add_slow(acc, bits);
    }
}

#endif
