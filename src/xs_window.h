/*
 * Exact sums of contiguous float32 and bfloat16 runs in plain double lanes:
 * a fast front end for the large superaccumulator (float64 runs have their
 * own, xs_cells.h).
 *
 * Fix a window of D binades, [2^E, 2^(E+D)).  A float32 term in it is a
 * multiple of 2^(E-23) below 2^(E+D); converted to double, up to 2^(30-D)
 * of them add up exactly in one double (the sum stays below 2^53 quanta),
 * and likewise 2^(46-D) bfloat16 terms (multiples of 2^(E-7)).  The lanes
 * are SIMD registers summing blocks of terms; a block whose range leaves
 * the window (or holds Inf/NaN, or only zeros) goes to the large accumulator
 * instead, and the lanes are emptied into the small accumulator every
 * XS_WINDOW_FLUSH_TERMS terms or when the window moves.
 */
#ifndef XS_WINDOW_H
#define XS_WINDOW_H

#include <stddef.h>

#include "xs_large.h"

/* Binades in a window, so that each lane takes 8192 terms exactly:
 * 2^(30-17) float32 terms, 2^(46-33) bfloat16 terms. */
#define XS_WINDOW_BINADES_FLOAT32 17
#define XS_WINDOW_BINADES_BFLOAT16 33
/* Terms per block: the range is checked once per block. */
#define XS_WINDOW_BLOCK 256
/* Terms summed between two flushes of the lanes, in all lanes together
 * (so at most this many in any one lane: within the 8192 above). */
#define XS_WINDOW_FLUSH_TERMS 8192
/* Rows shorter than this go straight to the large accumulator (float64
 * rows too: xs_loops_template.h). */
#define XS_WINDOW_MIN_TERMS 1024

/* Add x[0..n) exactly (x aligned for its type): lanes flushed into
 * large->small, blocks that do not fit a window (and the tail) added to
 * large itself. */
void xs_window_add_float32(xs_large *large, const float *x, ptrdiff_t n);
void xs_window_add_bfloat16(xs_large *large, const uint16_t *x, ptrdiff_t n);

#endif
