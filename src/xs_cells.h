/*
 * Exact sums of contiguous float64 runs, cut at fixed grid positions: the
 * fast front end of the large superaccumulator for data that spreads over
 * many binades.
 *
 * The grid.  Fix a top T (every term of the block below 2^T) and a cell
 * width of W = XS_CELLS_WIDTH bits.  Cell c (c = 1, 2, ...) has the quantum
 * u_c = 2^(T - c*W).  A term is cut into parts, one per cell, from the top:
 *
 *     q_c = (r + s_c) - s_c,   r <- r - q_c,   s_c = 1.5 * 2^52 * u_c
 *
 * (Rump's extraction: r + s_c lands in a binade whose spacing is u_c, so q_c
 * is r rounded to a multiple of u_c, and both subtractions are exact.)  The
 * last cell K takes what is left whole, which is a multiple of u_K as long as
 * the term's lowest bit, 2^(e - 52) for a term in [2^e, 2^(e+1)), is no finer:
 * so K cells hold every term in [2^(T - K*W + 52), 2^T) exactly.  With
 * W = 47: two cells cover 42 binades, three 89, four 136.
 *
 * Why the lane sums are exact.  A part of cell c >= 2 is at most
 * u_(c-1)/2 = 2^(W-1) u_c; a part of cell 1 at most 2^T = 2^W u_1.  Each lane
 * (one double of a vector register) takes at most XS_CELLS_LANE_TERMS parts
 * per block, and after every block a carry step moves the multiples of
 * u_(c-1) out of cell c into cell c-1 (cell 0, quantum 2^T, takes those of
 * cell 1), leaving at most u_(c-1)/2 behind.  So a lane never exceeds
 * (32 * 2^47 + 2^46) u_c < 2^53 u_c: every sum of multiples of u_c below
 * 2^53 u_c is a double, and no addition rounds.  Cell 0 grows by at most
 * 2^6 * 2^T per block and is emptied every XS_CELLS_FLUSH_BLOCKS blocks.
 *
 * Per block of XS_CELLS_BLOCK terms (the last one shorter) the kernel also measures the largest
 * |term| and the smallest non-zero one (as bit patterns); a block that does
 * not fit the window leaves the lanes untouched, and the driver then picks
 * more cells, a new window, or the large accumulator for it.  The lanes go
 * into the small accumulator when the window moves and at the end.
 */
#ifndef XS_CELLS_H
#define XS_CELLS_H

#include <stddef.h>

#include "xs_large.h"

/* Bits per cell: the largest W for which the bound above holds with 32
 * terms per lane per block (8 lanes per cell, the narrowest kernel). */
#define XS_CELLS_WIDTH 47
/* Cells a window may use (cell 0, the carry, not counted). */
#define XS_CELLS_MIN 2
#define XS_CELLS_MAX 4
/* Terms per block (the range is checked once per block). */
#define XS_CELLS_BLOCK 256
/* A block's length is a multiple of this (the widest kernel's step: 2
 * vectors of 8 doubles); the last block of a row is padded with zeros up to
 * one. */
#define XS_CELLS_STEP 16
/* Most parts one lane takes per block: every kernel has at least 8 lanes
 * per cell. */
#define XS_CELLS_LANE_TERMS (XS_CELLS_BLOCK / 8)
/* Lanes reserved per cell (the widest kernel: 2 vectors of 8 doubles). */
#define XS_CELLS_LANE_STRIDE 16
/* Blocks between two flushes of the lanes (cell 0 stays below 2^53 of its
 * quanta for 2^46 blocks; far more than any row). */
#define XS_CELLS_FLUSH_BLOCKS ((ptrdiff_t)1 << 40)
/* Binades of headroom above a new window's largest term, so that the next
 * blocks, whose largest terms may be a little larger, still fit. */
#define XS_CELLS_HEADROOM 3
/* Tops allowed: s_0 = 1.5 * 2^(T + 52) must be finite; every s_c normal. */
#define XS_CELLS_TOP_MAX 971
#define XS_CELLS_TOP_MIN (-1022 - 52 + XS_CELLS_MAX * XS_CELLS_WIDTH)

/* Rows at least this long take the cells (shorter ones: xs_short_row.h,
 * xs_running.h, the accumulators term by term). */
#define XS_CELLS_MIN_TERMS 192

/* Add x[0..n) exactly into acc (x aligned for double; any n): lanes
 * flushed into acc, blocks that fit no window into a large accumulator
 * (made on first use and cached in *large, as xs_large_for_row does). */
void xs_cells_add_float64(xs_small *acc, xs_large **large, const double *x, ptrdiff_t n);

#endif
