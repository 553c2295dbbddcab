/*
 * Large superaccumulator (after Neal 2015): one 64-bit bin per (sign,
 * exponent) of a float64, i.e. per value of the top 12 bits of its bit
 * pattern.  A bin holds the exact sum of the 53-bit integer significands
 * (implicit bit included) of the normal terms added into it, so a bin needs
 * no count: its value alone is what goes into the small accumulator.
 *
 * Capacity.  A significand is below 2^53.  Every bin is kept below
 * XS_LARGE_BIN_LIMIT = 2^63 between adds; from there, XS_LARGE_BLOCK = 2^10
 * more significands add less than 2^10 * 2^53 = 2^63, so a bin stays below
 * 2^64 (no wrap-around) through any block of that many terms, whichever bins
 * they hit.  The block loop therefore has no per-term test: after a block,
 * the bins that reached 2^63 (seen from the OR of the sums it made) are
 * moved into the small accumulator and cleared.
 *
 * The "exceptional" bins, exponent field 0 (zeros, subnormals: no implicit
 * bit) and 0x7ff (Inf, NaN), take the same branch-free add in the block loop
 * (implicit bit included, wrongly) but are put right after the block: if
 * one of them is not zero, the block's terms with those exponents go again,
 * exactly, into the small accumulator, and the four bins are cleared.  So
 * between blocks they are always zero, and every other bin holds normal
 * numbers only.
 *
 * Bins are zero at rest: a new accumulator is cleared once; the flush
 * clears the bins it empties.  Which bins to empty: while a row is short,
 * a bitmap of the bins used (set per term, then walked bit by bit); from
 * XS_LARGE_TRACKED_TERMS terms of the block loop on, no bitmap but a walk
 * over all bins at the flush (cheap per term by then).
 */
#ifndef XS_LARGE_H
#define XS_LARGE_H

#include <stddef.h>

#include "exact/xs_small.h"

/* One bin per value of bits >> 52. */
#define XS_LARGE_NBINS 4096
/* Bins per word of the used bitmap. */
#define XS_LARGE_WORD_BINS 64
#define XS_LARGE_WORDS (XS_LARGE_NBINS / XS_LARGE_WORD_BINS)
/* Terms of the block loop in a row after which it stops setting bits of
 * the used bitmap (a load, an OR and a store per term) and the flush walks
 * all bins instead (a few operations per bin, i.e. per term at most). */
#define XS_LARGE_TRACKED_TERMS 4096
/* Bins at or above this are emptied (see the capacity above). */
#define XS_LARGE_BIN_LIMIT ((uint64_t)1 << 63)
/* Terms per block of the loop without a per-term test: (2^64 - 2^63) / 2^53. */
#define XS_LARGE_BLOCK 1024
/* The 52 fraction bits of a float64 pattern, the implicit bit of a normal
 * number's significand above them, and the 11-bit exponent field (of
 * bits >> 52; its all-ones value is Inf/NaN's). */
#define XS_LARGE_FRACTION_MASK XS_F64_MANT_MASK
#define XS_LARGE_IMPLICIT_BIT XS_F64_IMPLICIT_BIT
#define XS_LARGE_EXPONENT_MASK XS_F64_EXP_MASK

typedef struct {
    uint64_t bin[XS_LARGE_NBINS];
    /* The bins used since the flush, bit ix % 64 of word ix / 64 (not kept
     * once tracked reaches XS_LARGE_TRACKED_TERMS). */
    uint64_t used[XS_LARGE_WORDS];
    /* Terms the block loop took since the flush, up to XS_LARGE_TRACKED_TERMS. */
    ptrdiff_t tracked;
    xs_small small;
} xs_large;

/* Heap allocation: the struct is 34 KiB, too big for some thread stacks. */
xs_large *xs_large_new(void);
void xs_large_free(xs_large *acc);
/* The large accumulator for a new row, made on first use and kept in
 * *cache for the next rows, with its small part cleared (its bins are
 * zero already); NULL if out of memory (the caller then uses a small
 * accumulator: slower, still exact). */
xs_large *xs_large_for_row(xs_large **cache);
void xs_large_init(xs_large *acc);
/* Move bin ix (a normal-number bin) into acc->small and clear it (nothing
 * if it is zero). */
void xs_large_transfer(xs_large *acc, unsigned ix);
/* Add n float64 values, stride bytes apart, by blocks of XS_LARGE_BLOCK. */
void xs_large_add_float64(xs_large *acc, const char *p, ptrdiff_t n, ptrdiff_t stride);

/* The significand of a normal number, implicit bit included: the pattern
 * shifted left by 11 has the fraction in its top 52 bits below bit 63; bit
 * 63 set is the implicit bit, and the shift back right puts it at bit 52.
 * (Wrong for exponent fields 0 and 0x7ff, which xs_large_settle puts
 * right.) */
static inline uint64_t xs_large_significand(uint64_t bits)
{
    return ((bits << 11) | XS_LARGE_BIN_LIMIT) >> 11;
}

/* Callers that add a block of terms into acc->bin themselves, as the block
 * loop of xs_large_add_float64 does (bin[bits >> 52] += the significand,
 * at most XS_LARGE_BLOCK terms, every bin below XS_LARGE_BIN_LIMIT
 * before; sums the OR of the new bin values), then ask what is left:
 * xs_large_pending says (0: nothing), and xs_large_settle does it for the
 * block's terms, given in one call or in several runs with the same
 * `pending` (every run's exceptional terms go again, exactly, into the
 * small accumulator and the exceptional bins are cleared; the bins at or
 * above XS_LARGE_BIN_LIMIT that the run's terms hit are emptied). */
#define XS_LARGE_PENDING_EXCEPTIONAL 1u    /* an exceptional bin is not zero */
#define XS_LARGE_PENDING_FULL 2u           /* a bin reached XS_LARGE_BIN_LIMIT */
unsigned xs_large_pending(const xs_large *acc, uint64_t sums);
void xs_large_settle(xs_large *acc, const char *p, ptrdiff_t n, ptrdiff_t stride,
                     unsigned pending);
/* Move every non-zero bin into acc->small; all bins are zero after. */
void xs_large_flush(xs_large *acc);

/* Is the exponent field of this pattern 0 (zero, subnormal) or 0x7ff (Inf,
 * NaN)?  (e + 1) & 0x7ff maps those two, and only those, to 0 and 1. */
static inline int xs_large_exceptional(uint64_t bits)
{
    return ((((unsigned)(bits >> XS_F64_MANT_BITS) & XS_LARGE_EXPONENT_MASK) + 1u) & XS_LARGE_EXPONENT_MASK) <= 1u;
}

/* One term (callers that add term by term: strided and masked rows, dot
 * products): a test per term, unlike xs_large_add_float64. */
static inline void xs_large_add_bits(xs_large *acc, uint64_t bits)
{
    if (xs_large_exceptional(bits)) {
        xs_small_add_bits(&acc->small, bits);
        return;
    }
    unsigned ix = (unsigned)(bits >> XS_F64_MANT_BITS);
    uint64_t sum = acc->bin[ix] + ((bits & XS_LARGE_FRACTION_MASK) | XS_LARGE_IMPLICIT_BIT);
    acc->bin[ix] = sum;
    acc->used[ix / XS_LARGE_WORD_BINS] |= (uint64_t)1 << (ix % XS_LARGE_WORD_BINS);
    if (sum >= XS_LARGE_BIN_LIMIT) {
        xs_large_transfer(acc, ix);
    }
}

#endif
