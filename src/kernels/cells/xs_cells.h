/*
 * Exact sums of contiguous float64 (and float32, bfloat16) runs, cut at
 * fixed grid positions: the fast front end of the large superaccumulator,
 * also for data that spreads over many binades.
 *
 * The grid.  Fix a top T (every term of the block below 2^T) and a cell
 * width of W = XS_CELLS_WIDTH bits.  Cell c (c = 1, 2, ...) has the quantum
 * u_c = 2^(T - c*W).  A term is cut into parts, one per cell, from the top:
 *
 *     q_c = (r + s_c) - s_c,   r <- r - q_c,   s_c = 1.5 * 2^52 * u_c
 *
 * (Rump's extraction: r + s_c lands in a binade whose spacing is u_c, so q_c
 * is r rounded to a multiple of u_c, and both subtractions are exact; the
 * kernels make the same parts, up to ties, by running sums, in three
 * additions per cell where this and the cell's own sum take four:
 * xs_cells_kernel.h.)  The
 * last cell K takes what is left whole, which is a multiple of u_K as long as
 * the term's lowest bit, 2^(e - 52) for a term in [2^e, 2^(e+1)), is no finer:
 * so K cells hold every term in [2^(T - K*W + 52), 2^T) exactly.  With
 * W = 47: two cells cover 42 binades, three 89, four 136 (a float32 term,
 * of 24 significant bits, needs 29 bits fewer: one cell covers 20 binades).
 *
 * Why the lane sums are exact.  A part of cell c >= 2 is at most
 * u_(c-1)/2 = 2^(W-1) u_c; a part of cell 1 at most 2^T = 2^W u_1.  Each lane
 * (one double of a vector register) takes at most XS_CELLS_LANE_TERMS parts
 * per block, and after every block a carry step moves the multiples of
 * u_(c-1) out of cell c into cell c-1 (cell 0, quantum 2^T, takes those of
 * cell 1), leaving at most u_(c-1)/2 behind.  So a lane never exceeds
 * (32 * 2^47 + 2^46) u_c < 2^53 u_c: every sum of multiples of u_c below
 * 2^53 u_c is a double, and no addition rounds.  (The portable row kernels
 * keep cells 2..K on half the lanes, 64 parts of at most 2^46 u_c per lane
 * and block: (64 * 2^46 + 2^46) u_c < 2^53 u_c too; xs_cells_kernel.h.)  Cell 0 grows by at most
 * 2^6 * 2^T per block and is emptied every XS_CELLS_FLUSH_BLOCKS blocks.
 *
 * Per block of XS_CELLS_BLOCK terms (the last one shorter) the kernel also
 * measures the largest |term| and the smallest non-zero one (as bit
 * patterns); a block that does not fit the window leaves the lanes
 * untouched, and the driver then picks more cells, a new window, or the
 * large accumulator for it.  The lanes go into the small accumulator when
 * the window moves and at the end.  The same grid serves the dot products
 * (xs_dot_cells.h) and the column sweep (xs_columns.c).
 *
 * Binned blocks (the portable level, float64 rows of
 * XS_CELLS_BINNED_MIN_TERMS terms and more, windows of three and four
 * cells): each step's first half is cut as above and its second half's
 * significands go into the bins of the row's large accumulator, Neal's
 * exact integer adds, on the integer units beside the floating-point adders
 * that bound the cuts (XS_CK_BINNED, xs_cells_kernel.h).  The window takes
 * the cut halves; the bins take any term; the row's sum is the lanes' and
 * the bins' together, both exact.
 */
#ifndef XS_CELLS_H
#define XS_CELLS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "exact/xs_large.h"
#include "exact/xs_round.h"
#include "exact/xs_running.h"

/* Bits per cell: the largest W for which the bound above holds with 32
 * terms per lane per block (8 lanes per cell, the narrowest kernel). */
#define XS_CELLS_WIDTH 47
/* Cells a window of a sum may use (cell 0, the carry, not counted): one
 * holds float32 and bfloat16 terms over 20 and 36 binades (a float64 term
 * always needs two); the dot products' (xs_dot_cells.h) may use one more,
 * XS_CELLS_GRID_MAX. */
#define XS_CELLS_MIN 1
#define XS_CELLS_MAX 4
#define XS_CELLS_GRID_MAX 5
/* Terms per block (the range is checked once per block). */
#define XS_CELLS_BLOCK 256
/* A block's length is a multiple of this (the widest kernel's step: 2
 * vectors of 8 doubles); the last block of a row is padded with zeros up to
 * one. */
#define XS_CELLS_STEP 16
/* Most parts one lane of cell 1 takes per block: every kernel has at least
 * 8 lanes there (of cells 2..K, whose parts are half as large, at least 4). */
#define XS_CELLS_LANE_TERMS (XS_CELLS_BLOCK / 8)
/* Running cuts (xs_cells_kernel.h): parts per lane between
 * two restarts of a running sum t_c, so that it stays within 2^51 u_c of
 * s_c (16 parts of at most 2^47 u_c). */
#define XS_CELLS_RUN_PARTS 16
/* Lanes reserved per cell (the widest kernel: 2 vectors of 8 doubles). */
#define XS_CELLS_LANE_STRIDE 16
/* Blocks between two flushes of the lanes (cell 0 stays below 2^53 of its
 * quanta for 2^46 blocks; far more than any row). */
#define XS_CELLS_FLUSH_BLOCKS ((ptrdiff_t)1 << 40)
/* Binades of headroom above a new window's largest term, so that the next
 * blocks, whose largest terms may be a little larger, still fit. */
#define XS_CELLS_HEADROOM 3
/* Blocks in a row that would fit one cell fewer before a window drops it
 * (a window only grows cells for a block that needs them). */
#define XS_CELLS_NARROWER_RUN 8
/* Tops allowed: s_0 = 1.5 * 2^(T + 52) must be finite (and every s_c of
 * the cells in use normal: xs_cells_for_quantum). */
#define XS_CELLS_TOP_MAX 971
/* Lanes reserved for a window of up to XS_CELLS_GRID_MAX cells. */
#define XS_CELLS_LANES ((XS_CELLS_GRID_MAX + 1) * XS_CELLS_LANE_STRIDE)

#define XS_CELLS_ABS_BITS (~XS_F64_SIGN_BIT)
#define XS_CELLS_INF_BITS XS_F64_INF_BITS
#define XS_CELLS_EXP_BIAS XS_F64_EXP_BIAS

/* A window: the grid under top T with K cells, and what fits it. */
typedef struct {
    int top;                 /* T: every term below 2^T */
    int cells;               /* K */
    double sigma[XS_CELLS_GRID_MAX + 1];   /* s_c = 1.5 * 2^52 * u_c, u_c = 2^(T - c*W) */
    uint64_t max_limit;      /* bits of 2^T: every |term| below it */
    uint64_t min_limit_m1;   /* sums: every non-zero |term| at or above this + 1 */
    int min_quantum_sum;     /* dot products: the least exponent sum allowed */
} xs_cells_window;

/* The top of a new window for terms whose largest |term| has the bit
 * pattern max_bits (finite, not zero): XS_CELLS_HEADROOM binades above it. */
static inline int xs_cells_top_for(uint64_t max_bits)
{
    return (int)(max_bits >> XS_F64_MANT_BITS) - XS_CELLS_EXP_BIAS + 1 + XS_CELLS_HEADROOM;
}

/* The fewest cells (at least XS_CELLS_MIN) under top T that hold every
 * multiple of 2^q: T - K*W <= q; XS_CELLS_GRID_MAX + 1 if that needs a cut
 * constant s_K below the normal range. */
static inline int xs_cells_for_quantum(int top, int q)
{
    int missing = top - q;
    int k = missing <= 0 ? 0 : (missing + XS_CELLS_WIDTH - 1) / XS_CELLS_WIDTH;
    k = k < XS_CELLS_MIN ? XS_CELLS_MIN : k;
    return top - k * XS_CELLS_WIDTH + 52 < -1022 ? XS_CELLS_GRID_MAX + 1 : k;
}

/* Set the grid of w: top T, K cells (the limits of what fits are the front
 * end's). */
static inline void xs_cells_set_grid(xs_cells_window *w, int top, int cells)
{
    w->top = top;
    w->cells = cells;
    for (int c = 0; c <= XS_CELLS_GRID_MAX; c++) {
        /* 1.5 * 2^k from its bits.  Rows never use a cell whose k is below
         * the normal range (xs_cells_for_quantum); the column sweep may (a
         * strip shares its cell count), and gets 1.5 * 2^-1022: a cut with
         * it keeps r whole (r + s is exact at spacing 2^-1074) and r is then
         * at most u_(c-1)/2 < 2^46 * 2^-1074, so the lane bound still holds
         * in units of 2^-1074. */
        int k = top - c * XS_CELLS_WIDTH + 52;
        k = k < -1022 ? -1022 : k;
        w->sigma[c] = xs_bits_double(((uint64_t)(k + XS_CELLS_EXP_BIAS) << XS_F64_MANT_BITS) | ((uint64_t)1 << 51));
    }
    w->max_limit = (uint64_t)(top + XS_CELLS_EXP_BIAS) << XS_F64_MANT_BITS;
}

/* The fewest cells that hold every non-zero term under top T, for terms of
 * p significant bits whose smallest non-zero |term| has the bit pattern
 * min_bits_m1 + 1 (UINT64_MAX: all zero); more than XS_CELLS_GRID_MAX when
 * none does.  A term whose double has exponent field f is a multiple of
 * 2^(f - 1023 - (p-1)) (subnormals of its own type are multiples of a
 * coarser power: counting them as finer only asks for more cells; float64
 * subnormals, f = 0, are refused that way). */
static inline int xs_cells_needed(int precision, int top, uint64_t min_bits_m1)
{
    if (min_bits_m1 == UINT64_MAX) {
        return XS_CELLS_MIN;                         /* all zeros */
    }
    int f = (int)((min_bits_m1 + 1) >> XS_F64_MANT_BITS);
    return xs_cells_for_quantum(top, f - XS_CELLS_EXP_BIAS - (precision - 1));
}

/* Set w to top T and K cells: the grid, and the smallest term of p
 * significant bits that fits. */
static inline void xs_cells_set_window(xs_cells_window *w, int precision, int top, int cells)
{
    xs_cells_set_grid(w, top, cells);
    int f_min = top - cells * XS_CELLS_WIDTH + XS_CELLS_EXP_BIAS + (precision - 1);
    /* Below 1 every term is a multiple of u_K: any normal double fits
     * (subnormal doubles are refused, which is only slower). */
    f_min = f_min < 1 ? 1 : f_min;
    w->min_limit_m1 = ((uint64_t)f_min << XS_F64_MANT_BITS) - 1;
}

/* A window for terms of p significant bits whose largest |term| has the
 * bit pattern max_bits and smallest non-zero one min_bits_m1 + 1: its top
 * XS_CELLS_HEADROOM binades above the largest, the fewest cells that hold
 * the smallest.  0 when none fits (Inf/NaN, all zeros, too wide, or beyond
 * the tops allowed). */
static inline int xs_cells_pick(int precision, uint64_t max_bits, uint64_t min_bits_m1,
                                int *top, int *cells)
{
    if (max_bits >= XS_CELLS_INF_BITS || max_bits == 0) {
        return 0;
    }
    *top = xs_cells_top_for(max_bits);
    if (*top > XS_CELLS_TOP_MAX) {
        return 0;
    }
    *cells = xs_cells_needed(precision, *top, min_bits_m1);
    return *cells <= XS_CELLS_MAX;
}

/* The same, w set to that window (the top and cells alone: xs_cells_pick). */
static inline int xs_cells_choose(xs_cells_window *w, int precision, uint64_t max_bits,
                                  uint64_t min_bits_m1)
{
    int top, cells;
    if (!xs_cells_pick(precision, max_bits, min_bits_m1, &top, &cells)) {
        return 0;
    }
    xs_cells_set_window(w, precision, top, cells);
    return 1;
}

/* The exact sums of the lanes of cells 0..cells (see xs_cells_flush for why
 * they are exact) into sums[], the lanes cleared; returns cells + 1. */
static inline int xs_cells_sums(double *lanes, int cells, double *sums)
{
    for (int c = 0; c <= cells; c++) {
        double cell = 0.0;
        for (int j = 0; j < XS_CELLS_LANE_STRIDE; j++) {
            cell += lanes[c * XS_CELLS_LANE_STRIDE + j];
            lanes[c * XS_CELLS_LANE_STRIDE + j] = 0.0;
        }
        sums[c] = cell;
    }
    return cells + 1;
}

/* Add the lanes of cells 0..cells to acc, exactly, and clear them.  After a
 * block's carry step every lane of cell c >= 1 is at most 2^(W-1) u_c, so
 * the 16 lanes of a cell add up exactly in a double (below 2^(W+3) u_c);
 * those of cell 0 are multiples of 2^T below 2^50 of them (at most
 * XS_CELLS_FLUSH_BLOCKS blocks of 2^6 each): exact too.  One add per cell. */
static inline void xs_cells_flush(xs_small *acc, double *lanes, int cells)
{
    double sums[XS_CELLS_GRID_MAX + 1];
    int count = xs_cells_sums(lanes, cells, sums);
    for (int c = 0; c < count; c++) {
        if (sums[c] != 0.0) {
            xs_small_add_bits(acc, xs_double_bits(sums[c]));
        }
    }
}

/* The exact sum of count cell sums (any doubles of at most 53 significant
 * bits each), divided by divisor, rounded into fmt: 1 and *out when a
 * two-double approximation of it decides the rounding (xs_running.h), else
 * 0 (a zero or tiny result, a rounding boundary too close, a cell out of
 * the approximation's safe range).  Raises no reported flag. */
static inline int xs_cells_round_sums(const double *sums, int count, uint64_t divisor,
                                      const xs_format *fmt, double *out)
{
    double hi = 0.0, lo = 0.0, err = 0.0;
    int ok = 1;
    for (int c = 0; c < count; c++) {
        ok &= xs_running_abs(sums[c]) <= XS_RUNNING_MAX;
        xs_running_short_add(&hi, &lo, &err, sums[c]);
    }
    if (!ok) {
        return 0;
    }
    xs_running run = xs_running_of(hi, lo, err, 0.0);
    return (divisor == 1u || xs_running_divide(&run, divisor, &run)) &&
           xs_running_round(&run, fmt, out);
}

/* Contiguous rows at least this long take the cells when the short path
 * (xs_short_row.h, rows of up to 1023 terms) leaves them; shorter ones the
 * running sum (xs_running.h) or the accumulators term by term.  From 64
 * terms on the cells beat the running sum: means of rows of lognormal(0, 3)
 * data (Zen 4, AVX2, ns per term, running sum -> cells) 100 terms 2.3 ->
 * 1.4, 128 terms 2.3 -> 1.0; but 32 terms 2.7 -> 3.2 (until 2026-11-28:
 * 192). */
#define XS_CELLS_MIN_TERMS 64

/* Add x[0..n) exactly into acc (x aligned for its type; any n): lanes
 * flushed into acc, blocks that fit no window into a large accumulator
 * (made on first use and cached in *large, as xs_large_for_row does).
 * float32 and bfloat16 terms are widened to doubles: the same grid, with
 * fewer cells for the same spread (24 and 8 significant bits). */
void xs_cells_add_float64(xs_small *acc, xs_large **large, const double *x, ptrdiff_t n);
void xs_cells_add_float32(xs_small *acc, xs_large **large, const float *x, ptrdiff_t n);
void xs_cells_add_bfloat16(xs_small *acc, xs_large **large, const uint16_t *x, ptrdiff_t n);

/* The length from which float64 rows share their blocks between the cuts
 * and a large accumulator's bins where the level has binned kernels
 * (xs_cells_variants.h; XS_CELLS_BINNED_MIN_TERMS by default): n >= 0 sets
 * it (the tests and the fuzzer lower it, so that short rows reach those
 * kernels), n < 0 only reads it; the value before is returned. */
#define XS_CELLS_BINNED_MIN_TERMS ((ptrdiff_t)1 << 16)
ptrdiff_t xs_cells_binned_min_terms(ptrdiff_t n);

/* What a row leaves for the next one of the same loop (zeroed before the
 * first): its last window, tried first on the next row's first block, which
 * then is not measured apart when it fits (rows of similar data). */
typedef struct {
    xs_cells_window w;           /* cells 0: none yet */
    int narrower;                /* its run of blocks that needed fewer cells */
} xs_cells_hint;

/* A whole row's sum (divisor 1) or mean rounded into fmt: returns 1 and
 * *out when the row went through one window and a two-double approximation
 * of its few cell sums decides the rounding (xs_running.h), which skips
 * the small accumulator's rounding; else 0, with the row's exact sum added
 * into acc (initialised by the caller).  hint: see xs_cells_hint (one per
 * loop and type; never shared between threads). */
int xs_cells_round_float64(xs_small *acc, xs_large **large, const double *x, ptrdiff_t n,
                           const xs_format *fmt, uint64_t divisor, double *out,
                           xs_cells_hint *hint);
int xs_cells_round_float32(xs_small *acc, xs_large **large, const float *x, ptrdiff_t n,
                           const xs_format *fmt, uint64_t divisor, double *out,
                           xs_cells_hint *hint);
int xs_cells_round_bfloat16(xs_small *acc, xs_large **large, const uint16_t *x, ptrdiff_t n,
                            const xs_format *fmt, uint64_t divisor, double *out,
                            xs_cells_hint *hint);

#endif
