/*
 * Exact dot products of contiguous float64 vectors on the fixed grid of
 * xs_cells.h: the fast front end of the exact dot accumulators.
 *
 * Every product of normal doubles a*b is an integer times 2^(fa + fb - 2150)
 * (fa, fb the biased exponent fields), and when that quantum is at least
 * 2^-1074 and p = fl(a*b) is finite, p and e = fma(a, b, -p) hold it
 * exactly (xs_dot.h).  Every part is a multiple of u_K when the block's
 * least quantum is: the kernels bound it, from below, by 2^(min_sum - 2150)
 * (xs_dot_cells_variants.h: from the smallest non-zero |a| and |b|, or from
 * the smallest |p|), so a block fits when max |p| < 2^T and
 * min_sum - 2150 >= max(T - K*W, -1074).  Then p, 2^52 times that
 * or more, is a multiple of u_(K-1): under a top T above every |p|
 * it is cut into cells 1..K-2 as a sum's term is and its rest goes into
 * cell K-1 whole; e is below 2^(T-53), under half of u_1, so its parts
 * start at cell 2 and end in cell K.  Cells 2..K take two parts per
 * product, at most 64 per lane per block of the narrowest kernel, each at
 * most 2^(W-1) u_c: the lane bound of xs_cells.h (below 2^53 u_c) holds
 * with the same carry step.
 *
 * Blocks that fit no window (Inf/NaN, subnormal products, subnormal
 * operands for the FMA variants, overflowing products, products spread too
 * wide) take the scalar exact path, xs_dot_add_float64.
 *
 * Every CPU has a kernel: AVX2 and AVX-512 (xs_dot_cells.c) and NEON
 * (xs_dot_cells_neon.c) get e from a fused multiply-add; the portable one
 * (xs_dot_cells_generic.c) from Dekker's exact product, no FMA needed.
 * On x86-64 the portable level's windows of three to five cells also have
 * binned kernels for long rows (XS_DOT_CELLS_BINNED_MIN_TERMS), which put
 * a third of each block's products into bins of exact 128-bit products
 * (exact/xs_dot_bins.h) on the integer units instead of cutting them.
 */
#ifndef XS_DOT_CELLS_H
#define XS_DOT_CELLS_H

#include <stddef.h>

#include "exact/xs_dot.h"

/* Rows shorter than this take the scalar path (or, rounded directly, the
 * two-double one: xs_loops.c). */
#define XS_DOT_CELLS_MIN_TERMS 256

/* Rows of this many products and more take the binned kernels where the
 * level has them (the portable one on x86-64, windows of three to five
 * cells: xs_dot_cells_variants.h), whose bins cost 128 KB and their flush
 * per row that takes them.  Zen 5, forced generic, the binned kernels'
 * time over the plain ones', rows of 16384 / 65536 / 10^6 products:
 * normal data 1.08 / 0.97 / 0.92, lognormal(0, 3) 1.00 / 0.87 / 0.85,
 * normal times 2^[-40, 40) 0.88 / 0.79 / 0.77, normal with 10% zeros
 * 1.14 / 1.05 / 1.02 (the loops give the kernels rows of at most 2^18). */
#define XS_DOT_CELLS_BINNED_MIN_TERMS ((ptrdiff_t)1 << 17)

/* The threshold above, as it is now (n < 0), or set to n (tests), returning
 * the old one. */
ptrdiff_t xs_dot_cells_binned_min_terms(ptrdiff_t n);

/* Whether a kernel is there (always: the portable one at least). */
int xs_dot_cells_available(void);

/* Adds a[i]*b[i] for i < n exactly (a and b: contiguous float64, any
 * alignment) and returns n: lanes are flushed into large->small, blocks
 * that fit no window go to acc through large.  Returns 0 (adding nothing)
 * when there is no kernel (the caller then adds every product). */
ptrdiff_t xs_dot_cells_add(xs_dot *acc, xs_large *large, const char *a, const char *b,
                           ptrdiff_t n);

#endif
