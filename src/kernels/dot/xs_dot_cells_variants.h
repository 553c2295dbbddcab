/*
 * The block kernels of xs_dot_cells.c as one ISA's variant sees them: what
 * a kernel measures (xs_dot_cells_range), whether a block fits a window,
 * the kernel's signature, and a set of them per cell count.  Each ISA's
 * instances are made from the one template (xs_dot_cells_kernel.h): the
 * x86 ones in xs_dot_cells.c, the portable ones in xs_dot_cells_generic.c,
 * NEON's in xs_dot_cells_neon.c.
 */
#ifndef XS_DOT_CELLS_VARIANTS_H
#define XS_DOT_CELLS_VARIANTS_H

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "kernels/cells/xs_cells.h"
#include "cpu/xs_cpu.h"
#include "exact/xs_dot_bins.h"
#include "exact/xs_ieee.h"

/* A block's range, as the driver reads it: the largest |p| as a bit
 * pattern (unsigned order is magnitude order; Inf/NaN above all), and
 * min_sum, for which every product a*b of the block with non-zero operands
 * is a multiple of 2^(min_sum - 2150) (of normal operands: min_sum is at
 * most fa + fb, their exponent fields) and p = fl(a*b) of 2^52 times that
 * (what the kernels need: xs_dot_cells_kernel.h adds p's rest into cell
 * K-1 whole): XS_DOT_NO_PRODUCTS when every product has a zero
 * operand, below XS_DOT_MIN_SUM_NORMAL when no window takes the block.
 * Two ways to measure it (xs_dot_cells_operand_sum, xs_dot_cells_product_sum):
 * from the smallest non-zero |a| and |b| (the FMA variants), or from the
 * smallest |p| (the portable ones: one minimum, not two). */
typedef struct {
    uint64_t max_p;
    int min_sum;
} xs_dot_cells_range;

#define XS_DOT_NO_PRODUCTS INT_MAX
/* Blocks whose min_sum is below this fit no window: the least quantum a
 * window takes is 2^-1074 = 2^(1076 - 2150). */
#define XS_DOT_MIN_SUM_NORMAL 1076

/* min_sum from the smallest non-zero |a| and |b|, as bit patterns minus 1
 * (all zero: UINT64_MAX): fa + fb, the least exponent sum of the block's
 * non-zero operands, or -1 when one of them is subnormal (exponent field
 * 0).  Every product of normal operands is a multiple of
 * Q = 2^(fa + fb - 2150) and |a*b| >= 2^104 Q, so p is a multiple of
 * 2^52 Q.  A subnormal operand breaks that (|a*b| may be far below
 * 2^104 Q): no window takes such a block. */
static inline int xs_dot_cells_operand_sum(uint64_t min_a_m1, uint64_t min_b_m1)
{
    if (min_a_m1 == UINT64_MAX || min_b_m1 == UINT64_MAX) {
        return XS_DOT_NO_PRODUCTS;
    }
    int fa = (int)((min_a_m1 + 1) >> XS_F64_MANT_BITS);
    int fb = (int)((min_b_m1 + 1) >> XS_F64_MANT_BITS);
    return fa == 0 || fb == 0 ? -1 : fa + fb;
}

/* min_sum from the smallest |p| of the block's products with non-zero
 * operands, as a bit pattern (none: UINT64_MAX): fp + 1021 for its
 * exponent field fp, or -1 when fp is 0 (a subnormal p, or one that went
 * to zero).  Why it bounds every product a*b = A B Q (integers |A|, |B| <
 * 2^53, Q = 2^(fa + fb - 2150) for normal operands, 2^-1074 a subnormal's
 * part of it): p = fl(a*b) has ulp(p) = 2^(fp - 1075) at most
 * 2^-52 |p| <= 2^-52 (1 + 2^-53) |A B| Q < 2^54 (1 + 2^-53) Q, so
 * Q >= 2^-54 ulp(p) >= 2^(fp_min - 1129) = 2^(fp_min + 1021 - 2150), and p
 * itself is a multiple of ulp(p) >= 2^54 of that. */
static inline int xs_dot_cells_product_sum(uint64_t min_p)
{
    if (min_p == UINT64_MAX) {
        return XS_DOT_NO_PRODUCTS;
    }
    int fp = (int)(min_p >> XS_F64_MANT_BITS);
    return fp == 0 ? -1 : fp + 1021;
}

/* The range of a block's n products (a and b: contiguous float64, any
 * alignment) measured exactly, product by product, as the portable kernels
 * measure it (xs_dot_cells_product_sum): the driver's first guess, and
 * their second look at a block with a zero product. */
static inline void xs_dot_cells_measure(const char *a, const char *b, int n,
                                        xs_dot_cells_range *r)
{
    uint64_t largest = 0, least = UINT64_MAX;
    for (int i = 0; i < n; i++) {
        double x, y;
        memcpy(&x, a + 8 * i, sizeof x);
        memcpy(&y, b + 8 * i, sizeof y);
        uint64_t p = xs_double_bits(x * y) & XS_CELLS_ABS_BITS;
        largest = p > largest ? p : largest;
        least = x != 0.0 && y != 0.0 && p < least ? p : least;
    }
    r->max_p = largest;
    r->min_sum = xs_dot_cells_product_sum(least);
}

/* Whether every product of a block of range r fits w (see the header). */
static inline int xs_dot_cells_fits(const xs_cells_window *w, const xs_dot_cells_range *r)
{
    return r->max_p < w->max_limit && r->min_sum >= w->min_quantum_sum;
}

typedef int (*xs_dot_cells_kernel)(const char *a, const char *b, int terms, double *lanes,
                                   const xs_cells_window *w, xs_dot_cells_range *range);

/* Binned kernels (the portable level, where the floating-point adders bound
 * the cuts: xs_dot_cells_generic.c) share each block between the cuts and
 * the bins of xs_dot_bins.h, on the integer units.  The block is units of
 * XS_DOT_UNIT_CUT products cut into the lanes, each followed by
 * XS_DOT_UNIT_BINNED products put into the bins; the block's last products
 * that make no whole unit (a multiple of XS_DOT_UNIT_BINNED: blocks are
 * whole steps of XS_CELLS_STEP) go into the bins too.  Every binned kernel
 * has this layout, so that a block refused by one and taken by another
 * (more cells) has the same cut products, whose range the first measured.
 * The bins take every product exactly; the range is that of the cut ones
 * (its second pass for a zero product, when it takes one, looks at all).
 * A kernel that refuses a block takes its binned products out of the bins
 * again, so that a refused block has changed nothing; a binned product
 * with an Inf or NaN operand makes it refuse the block as not finite. */
#define XS_DOT_UNIT_CUT 8
#define XS_DOT_UNIT_BINNED 4
#define XS_DOT_UNIT (XS_DOT_UNIT_CUT + XS_DOT_UNIT_BINNED)
_Static_assert(XS_CELLS_STEP % XS_DOT_UNIT_BINNED == 0 && XS_DOT_UNIT % XS_DOT_UNIT_BINNED == 0,
               "a block's products beyond its whole units are whole groups of binned ones");

typedef int (*xs_dot_cells_binned_kernel)(const char *a, const char *b, int terms,
                                          double *lanes, const xs_cells_window *w,
                                          xs_dot_cells_range *range, xs_dot_bins *bins);

/* The kernels of one instruction set, by cell count (2..XS_CELLS_GRID_MAX),
 * and its binned ones (NULL where it has none). */
typedef struct {
    xs_dot_cells_kernel by_cells[XS_CELLS_GRID_MAX + 1];
    xs_dot_cells_binned_kernel binned[XS_CELLS_GRID_MAX + 1];
} xs_dot_cells_set;

#ifdef XS_DOT_BINS_FAST
/* What a binned kernel does again to the binned products of a block of
 * `terms` products (the layout above): take them out of the bins (a
 * refused block), or settle those with a zero or subnormal operand. */
#define XS_DOT_BINS_TAKE_OUT 0
#define XS_DOT_BINS_SETTLE 1
static inline void xs_dot_cells_bins_group(xs_dot_bins *bins, const char *a, const char *b,
                                           int what)
{
    for (int k = 0; k < XS_DOT_UNIT_BINNED; k++) {
        uint64_t a_bits, b_bits;
        memcpy(&a_bits, a + 8 * k, sizeof a_bits);
        memcpy(&b_bits, b + 8 * k, sizeof b_bits);
        if (what == XS_DOT_BINS_TAKE_OUT) {
            xs_dot_bins_add(bins, a_bits, b_bits, 1);
        }
        else {
            xs_dot_bins_settle(bins, a_bits, b_bits);
        }
    }
}

static inline void xs_dot_cells_bins_again(xs_dot_bins *bins, const char *a, const char *b,
                                           int terms, int what)
{
    int whole = terms / XS_DOT_UNIT * XS_DOT_UNIT;
    for (int unit = 0; unit < whole; unit += XS_DOT_UNIT) {
        int pos = unit + XS_DOT_UNIT_CUT;
        xs_dot_cells_bins_group(bins, a + 8 * pos, b + 8 * pos, what);
    }
    for (int pos = whole; pos < terms; pos += XS_DOT_UNIT_BINNED) {
        xs_dot_cells_bins_group(bins, a + 8 * pos, b + 8 * pos, what);
    }
}
#endif

/* The portable instances (xs_dot_cells_generic.c): no FMA needed. */
extern const xs_dot_cells_set xs_dot_cells_generic;
#ifdef XS_CPU_NEON
/* aarch64's Advanced SIMD instances (xs_dot_cells_neon.c). */
extern const xs_dot_cells_set xs_dot_cells_neon;
#endif

/* The xs_dot_cells_set of each ISA (NULL: none compiled): the dot products
 * take xs_cpu_pick's choice among them, the differential test reads each
 * through xs_cpu_variant. */
extern const void *const xs_dot_cells_variants[XS_ISA_COUNT];

#endif
