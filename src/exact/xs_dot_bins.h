/*
 * Bins of exact products: the dot products' counterpart of the large
 * accumulator's bins (xs_large.h), on the integer units.
 *
 * A product of two finite doubles a = A 2^(ea' - 1075) and b = B 2^(eb' -
 * 1075) (A, B their integer significands below 2^53; ea' the exponent field,
 * 1 for a zero or subnormal) is the integer A B, below 2^106, times
 * 2^(ea' + eb' - 2150).  Bin ix = (sign << XS_DOT_BIN_SIGN_SHIFT) |
 * (ea' + eb') keeps the sum of the A B of the products with that sign and
 * exponent sum, as a 128-bit unsigned integer in two words.  So every
 * product, however large or small, goes into a bin exactly, by one 64-bit
 * multiply and a two-word add, with no floating-point operation: the
 * portable dot kernels (xs_dot_cells_generic.c) give part of each step to
 * the bins while the floating-point adders cut the rest.
 *
 * The fast add (xs_dot_bins_add) takes the implicit bit as set and the
 * exponent fields as they are: right for normal operands only.  A caller
 * that may have given it a zero or subnormal operand puts the product right
 * with xs_dot_bins_settle; an Inf or NaN operand it must take out again
 * (xs_dot_bins_add with `negate`) and add elsewhere.
 *
 * A bin's sum is taken modulo 2^128: taking a product out again restores
 * the bin whatever happened in between.  The true sums stay below 2^128
 * when the bins are flushed (xs_dot_bins_flush) at least every
 * XS_DOT_BINS_FLUSH_PRODUCTS products.
 */
#ifndef XS_DOT_BINS_H
#define XS_DOT_BINS_H

#include <stdint.h>

#include "exact/xs_dot.h"
#include "exact/xs_ieee.h"

/* The bit of a bin's index that holds the product's sign, above the
 * exponent sum ea' + eb' (at most 2 * 0x7fe = 4092, 12 bits). */
#define XS_DOT_BIN_SIGN_SHIFT 12
#define XS_DOT_BINS (2u << XS_DOT_BIN_SIGN_SHIFT)
/* Products a bin may take between two flushes: each adds below 2^106, so
 * 2^21 of them stay below 2^127. */
#define XS_DOT_BINS_FLUSH_PRODUCTS ((uint64_t)1 << 21)

typedef struct {
    uint64_t bin[XS_DOT_BINS][2];   /* low word, high word */
    uint64_t products;              /* added since the last flush (an upper bound) */
    int settled;                    /* the last block had products to settle */
} xs_dot_bins;

/* Zeroed bins (NULL: no memory), and their release. */
xs_dot_bins *xs_dot_bins_new(void);
void xs_dot_bins_free(xs_dot_bins *bins);

/* Every non-zero bin into acc (xs_dot_add_scaled: main or a scaled part,
 * by the bin's unit), exactly; all bins are zero after. */
void xs_dot_bins_flush(xs_dot_bins *bins, xs_dot *acc, xs_small *main);

#ifdef __SIZEOF_INT128__
/* The adds below need a 128-bit integer type (GCC and Clang on 64-bit
 * targets); the kernels that use them are built only where it is. */
#define XS_DOT_BINS_FAST 1
__extension__ typedef unsigned __int128 xs_dot_u128;

/* bin += (or, negate: -=) A B, modulo 2^128, word by word (GCC keeps a
 * 128-bit sum of memory words on the stack).  On x86-64 the add is two
 * instructions on memory, an add and an add with carry: the binned kernels'
 * loop is bound by the instructions it issues, and GCC makes six of the C
 * below (Zen 5, forced generic, normal data in three cells: the binned
 * kernel 0.99 -> 0.95 ns per product). */
static inline void xs_dot_bins_put(xs_dot_bins *bins, unsigned ix, uint64_t sig_a,
                                   uint64_t sig_b, int negate)
{
    xs_dot_u128 product = (xs_dot_u128)sig_a * sig_b;
    uint64_t low = (uint64_t)product, high = (uint64_t)(product >> 64);
    uint64_t *bin = bins->bin[ix];
    if (negate) {
        uint64_t borrow = bin[0] < low;
        bin[0] -= low;
        bin[1] -= high + borrow;
    }
    else {
#if defined(__x86_64__)
        __asm__("addq %2, %0\n\tadcq %3, %1"
                : "+m"(bin[0]), "+m"(bin[1])
                : "r"(low), "r"(high)
                : "cc");
#else
        uint64_t sum = bin[0] + low;
        bin[1] += high + (sum < low);
        bin[0] = sum;
#endif
    }
}

/* The fast add of a*b (bit patterns a_bits, b_bits): exact for normal a
 * and b.  The significands of xs_large_significand (the implicit bit set),
 * the index from the two top 12 bits (sign and exponent field): sign = the
 * XOR of theirs, exponent sum = the sum of their fields. */
static inline void xs_dot_bins_add(xs_dot_bins *bins, uint64_t a_bits, uint64_t b_bits,
                                   int negate)
{
    uint64_t sig_a = xs_large_significand(a_bits), sig_b = xs_large_significand(b_bits);
    unsigned top_a = (unsigned)(a_bits >> XS_F64_MANT_BITS);
    unsigned top_b = (unsigned)(b_bits >> XS_F64_MANT_BITS);
    unsigned ix = ((top_a & XS_F64_EXP_MASK) + (top_b & XS_F64_EXP_MASK)) |
                  (((top_a ^ top_b) & (XS_F64_EXP_MASK + 1u)) << 1);
    xs_dot_bins_put(bins, ix, sig_a, sig_b, negate);
}

/* A product that the fast add took with a zero or subnormal operand (finite
 * operands only), put right: its fast value out, its true one in (a zero
 * operand: nothing). */
static inline void xs_dot_bins_settle(xs_dot_bins *bins, uint64_t a_bits, uint64_t b_bits)
{
    if ((a_bits & XS_F64_INF_BITS) != 0 && (b_bits & XS_F64_INF_BITS) != 0) {
        return;                       /* both exponent fields non-zero: it was right */
    }
    xs_dot_bins_add(bins, a_bits, b_bits, 1);
    uint64_t sig_a = xs_dot_significand(a_bits), sig_b = xs_dot_significand(b_bits);
    if (sig_a == 0 || sig_b == 0) {
        return;
    }
    unsigned ix = (xs_dot_field(a_bits) + xs_dot_field(b_bits)) |
                  ((unsigned)((a_bits ^ b_bits) >> 63) << XS_DOT_BIN_SIGN_SHIFT);
    xs_dot_bins_put(bins, ix, sig_a, sig_b, 0);
}
#endif

#endif
