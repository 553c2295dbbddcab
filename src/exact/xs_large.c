/* Large superaccumulator: the block loop, bin transfer and flush. */
#include "exact/xs_large.h"

#include <stdlib.h>

/* The exceptional bins (xs_large.h): exponent field 0 and 0x7ff, both signs. */
#define XS_LARGE_POS_ZERO_BIN 0x000u
#define XS_LARGE_POS_SPECIAL_BIN XS_F64_EXP_MASK
#define XS_LARGE_NEG_ZERO_BIN 0x800u
#define XS_LARGE_NEG_SPECIAL_BIN 0xfffu
#define XS_LARGE_SIGN_BIN 0x800u     /* the sign bit in a bin index */
/* One 32-bit digit of the small accumulator (XS_CHUNK_BITS). */
#define XS_DIGIT_MASK ((uint64_t)0xffffffffu)

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
    memset(acc->bin, 0, sizeof acc->bin);
    memset(acc->used, 0, sizeof acc->used);
    acc->tracked = 0;
    xs_small_init(&acc->small);
}

/* After a block whose exceptional bins are not all zero: its terms with
 * exponent field 0 or 0x7ff again, exactly (and their flags). */
static void exceptional_terms(xs_large *acc, const char *p, ptrdiff_t n, ptrdiff_t stride)
{
    for (ptrdiff_t i = 0; i < n; i++, p += stride) {
        uint64_t bits;
        memcpy(&bits, p, sizeof bits);
        if (xs_large_exceptional(bits)) {
            xs_small_add_bits(&acc->small, bits);
        }
    }
    acc->bin[XS_LARGE_POS_ZERO_BIN] = 0;
    acc->bin[XS_LARGE_POS_SPECIAL_BIN] = 0;
    acc->bin[XS_LARGE_NEG_ZERO_BIN] = 0;
    acc->bin[XS_LARGE_NEG_SPECIAL_BIN] = 0;
}

/* After a block that took some bin to XS_LARGE_BIN_LIMIT or above: empty
 * the bins of its terms that are there (the others are below, as before). */
static void full_bins(xs_large *acc, const char *p, ptrdiff_t n, ptrdiff_t stride)
{
    for (ptrdiff_t i = 0; i < n; i++, p += stride) {
        uint64_t bits;
        memcpy(&bits, p, sizeof bits);
        unsigned ix = (unsigned)(bits >> XS_F64_MANT_BITS);
        if (acc->bin[ix] >= XS_LARGE_BIN_LIMIT) {
            xs_large_transfer(acc, ix);
        }
    }
}

/* Contiguous rows: each line of terms prefetches the one this many bytes
 * ahead (the row goes to the large accumulator in calls of 256 terms, with
 * the cells' first look at each block in between, so the hardware streams
 * alone leave the loop waiting for memory at n = 1e7). */
#define XS_LARGE_PREFETCH_BYTES 2048
/* float64 terms per 64-byte cache line (add_block spells out that many adds). */
#define XS_LARGE_LINE_TERMS 8

/* A hint only: the address (an integer, so that no pointer is formed beyond
 * the row's end) is never dereferenced, and prefetches do not fault. */
static inline void xs_prefetch(uintptr_t address)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch((const void *)address);
#else
    (void)address;
#endif
}

/* The block loop: terms at p, stride bytes apart, n <= XS_LARGE_BLOCK, into
 * the bins with no test per term; the OR of the new bin values is
 * returned.  With track, the bits of the used bins are set too. */
static inline uint64_t add_block(uint64_t *restrict bin, uint64_t *restrict used, const char *p,
                                 ptrdiff_t n, ptrdiff_t stride, int track)
{
    uint64_t sums = 0;
#define XS_LARGE_ADD_TERM(i) \
    do { \
        uint64_t bits; \
        memcpy(&bits, p + (i) * stride, sizeof bits); \
        unsigned ix = (unsigned)(bits >> XS_F64_MANT_BITS); \
        uint64_t sum = bin[ix] + xs_large_significand(bits); \
        bin[ix] = sum; \
        sums |= sum; \
        if (track) { \
            used[ix / XS_LARGE_WORD_BINS] |= (uint64_t)1 << (ix % XS_LARGE_WORD_BINS); \
        } \
    } while (0)
    ptrdiff_t i = 0;
    for (; i + XS_LARGE_LINE_TERMS <= n; i += XS_LARGE_LINE_TERMS) {
        if (stride == (ptrdiff_t)sizeof(double)) {
            xs_prefetch((uintptr_t)(p + i * stride) + XS_LARGE_PREFETCH_BYTES);
        }
        XS_LARGE_ADD_TERM(i);
        XS_LARGE_ADD_TERM(i + 1);
        XS_LARGE_ADD_TERM(i + 2);
        XS_LARGE_ADD_TERM(i + 3);
        XS_LARGE_ADD_TERM(i + 4);
        XS_LARGE_ADD_TERM(i + 5);
        XS_LARGE_ADD_TERM(i + 6);
        XS_LARGE_ADD_TERM(i + 7);
    }
    for (; i < n; i++) {
        XS_LARGE_ADD_TERM(i);
    }
#undef XS_LARGE_ADD_TERM
    return sums;
}

unsigned xs_large_pending(const xs_large *acc, uint64_t sums)
{
    const uint64_t *bin = acc->bin;
    unsigned pending = 0;
    if ((bin[XS_LARGE_POS_ZERO_BIN] | bin[XS_LARGE_POS_SPECIAL_BIN] |
            bin[XS_LARGE_NEG_ZERO_BIN] | bin[XS_LARGE_NEG_SPECIAL_BIN]) != 0) {
        pending |= XS_LARGE_PENDING_EXCEPTIONAL;
    }
    if (sums >= XS_LARGE_BIN_LIMIT) {
        pending |= XS_LARGE_PENDING_FULL;
    }
    return pending;
}

void xs_large_settle(xs_large *acc, const char *p, ptrdiff_t n, ptrdiff_t stride,
                     unsigned pending)
{
    if (pending & XS_LARGE_PENDING_EXCEPTIONAL) {
        exceptional_terms(acc, p, n, stride);
    }
    if (pending & XS_LARGE_PENDING_FULL) {
        full_bins(acc, p, n, stride);
    }
}

void xs_large_add_float64(xs_large *acc, const char *p, ptrdiff_t n, ptrdiff_t stride)
{
    uint64_t *bin = acc->bin;
    while (n > 0) {
        ptrdiff_t terms = n < XS_LARGE_BLOCK ? n : XS_LARGE_BLOCK;
        uint64_t sums;
        if (acc->tracked >= XS_LARGE_TRACKED_TERMS) {
            sums = stride == (ptrdiff_t)sizeof(double)
                   ? add_block(bin, acc->used, p, terms, (ptrdiff_t)sizeof(double), 0)
                   : add_block(bin, acc->used, p, terms, stride, 0);
        }
        else {
            sums = add_block(bin, acc->used, p, terms, stride, 1);
            acc->tracked += terms;
        }
        unsigned pending = xs_large_pending(acc, sums);
        if (pending != 0) {
            xs_large_settle(acc, p, terms, stride, pending);
        }
        p += terms * stride;
        n -= terms;
    }
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

/* The flush: runs of 32 bins (one sign, the 32 exponents whose
 * significands start in the same chunk j of the small accumulator, at bit
 * k = e mod 32 of it) summed in registers, then added to chunks j..j+2 once
 * per run: no dependency through memory from one bin to the next (bin by
 * bin, neighbours add to the same chunks).  Each bin gives parts below 2^32, 2^33 and 2^32
 * (xs_large_transfer), so a run's sums stay below 2^38: one add of the
 * small accumulator's budget.  Empty bins give zero parts (the exceptional
 * bins are empty here). */
#define XS_LARGE_RUN_BINS 32
/* Bit masks of a run's bins (one bit per bin) and of a run within a word of
 * the used bitmap. */
#define XS_LARGE_RUN_MASK ((uint64_t)0xffffffffu)
_Static_assert(XS_LARGE_WORD_BINS % XS_LARGE_RUN_BINS == 0, "a word of the bitmap is whole runs");

typedef struct {
    uint64_t sum0, sum1, sum2;
} xs_run_sums;

/* Bin k of a run into its sums, and cleared: bin * 2^(e - 1075), e the
 * biased exponent (1..2046, k = e mod 32), is the 64-bit sum as two 32-bit
 * halves, each shifted by k (below 2^63), spread over the three chunks
 * from chunk e / 32 (at most 65 < XS_NCHUNKS) in parts below 2^32, 2^33 and
 * 2^32. */
static inline void run_bin(xs_run_sums *sums, uint64_t *run, unsigned k)
{
    uint64_t lo = (run[k] & XS_DIGIT_MASK) << k;
    uint64_t hi = (run[k] >> 32) << k;
    sums->sum0 += lo & XS_DIGIT_MASK;
    sums->sum1 += (lo >> 32) + (hi & XS_DIGIT_MASK);
    sums->sum2 += hi >> 32;
    run[k] = 0;
}

/* The sums of the run at bin `start` into the small accumulator (nothing
 * if they are zero: every bin of the run was; a bin's parts hold all its
 * bits, so a non-zero bin gives non-zero sums). */
static void add_run(xs_large *acc, unsigned start, const xs_run_sums *sums)
{
    if ((sums->sum0 | sums->sum1 | sums->sum2) == 0) {
        return;
    }
    /* A non-zero bin holds normal numbers. */
    acc->small.flags |= XS_HAS_TERM | XS_NOT_NEG_ZERO;
    unsigned j = (start & XS_LARGE_EXPONENT_MASK) >> 5;
    int64_t negate = xs_negate_mask(start & XS_LARGE_SIGN_BIN);
    acc->small.chunk[j] += xs_signed((int64_t)sums->sum0, negate);
    acc->small.chunk[j + 1] += xs_signed((int64_t)sums->sum1, negate);
    acc->small.chunk[j + 2] += xs_signed((int64_t)sums->sum2, negate);
    xs_small_count_add(&acc->small);
}

void xs_large_transfer(xs_large *acc, unsigned ix)
{
    /* A run of one bin. */
    unsigned start = ix & ~(unsigned)(XS_LARGE_RUN_BINS - 1);
    xs_run_sums sums = {0, 0, 0};
    run_bin(&sums, acc->bin + start, ix - start);
    add_run(acc, start, &sums);
}

static void flush_all(xs_large *acc)
{
    for (unsigned start = 0; start < XS_LARGE_NBINS; start += XS_LARGE_RUN_BINS) {
        uint64_t *run = acc->bin + start;
        uint64_t any = 0;
        for (unsigned k = 0; k < XS_LARGE_RUN_BINS; k++) {
            any |= run[k];
        }
        if (any == 0) {
            continue;
        }
        xs_run_sums sums = {0, 0, 0};
        for (unsigned k = 0; k < XS_LARGE_RUN_BINS; k++) {
            run_bin(&sums, run, k);
        }
        add_run(acc, start, &sums);
    }
}

/* The bins of the used bitmap, run by run (a bin emptied since it was
 * marked gives zero parts). */
static void flush_used(xs_large *acc)
{
    for (unsigned w = 0; w < XS_LARGE_WORDS; w++) {
        uint64_t word = acc->used[w];
        acc->used[w] = 0;
        for (unsigned half = 0; word != 0; half += XS_LARGE_RUN_BINS, word >>= XS_LARGE_RUN_BINS) {
            uint64_t mask = word & XS_LARGE_RUN_MASK;
            if (mask == 0) {
                continue;
            }
            unsigned start = w * XS_LARGE_WORD_BINS + half;
            uint64_t *run = acc->bin + start;
            xs_run_sums sums = {0, 0, 0};
            while (mask) {
                unsigned k = lowest_set_bit(mask);
                mask &= mask - 1;     /* clear the lowest set bit */
                run_bin(&sums, run, k);
            }
            add_run(acc, start, &sums);
        }
    }
}

void xs_large_flush(xs_large *acc)
{
    if (acc->tracked >= XS_LARGE_TRACKED_TERMS) {
        memset(acc->used, 0, sizeof acc->used);
        flush_all(acc);
    }
    else {
        flush_used(acc);
    }
    acc->tracked = 0;
}
