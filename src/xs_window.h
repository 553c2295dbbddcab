/*
 * Exact sums of contiguous float64 (and float32, bfloat16) runs in plain
 * double lanes: a fast front end for the large superaccumulator.
 *
 * Fix a window of XS_WINDOW_BINADES binades, [2^E, 2^(E+D)).  Split every
 * term x in it into hi = x with its 26 low fraction bits cleared and
 * lo = x - hi (exact).  Every hi is a multiple of 2^(E-26) below 2^(E+D),
 * every lo a multiple of 2^(E-52) below 2^(E+D-27); so up to 2^(27-D) of
 * them add up exactly in one double (the sum stays below 2^53 quanta).  The
 * lanes are SIMD registers summing blocks of terms; a block whose range
 * leaves the window (or holds Inf/NaN, or only zeros) goes to the large
 * accumulator instead, and the lanes are emptied into the small accumulator
 * every XS_WINDOW_FLUSH_TERMS terms or when the window moves.
 */
#ifndef XS_WINDOW_H
#define XS_WINDOW_H

#include <stddef.h>

#include "xs_large.h"

/* Binades in a window: the float64 hi lanes then take 2^(27-14) = 8192
 * terms each. */
#define XS_WINDOW_BINADES 14
/* Narrow types are wider windows for the same 8192 terms: a float32 (24-bit
 * significand) in a window of D binades spans D + 23 bits of its quantum,
 * so 2^(30-D) of them add up exactly; a bfloat16 (8 bits) spans D + 7
 * bits, so 2^(46-D). */
#define XS_WINDOW_BINADES_FLOAT32 17
#define XS_WINDOW_BINADES_BFLOAT16 33
/* Terms per block: the range is checked once per block. */
#define XS_WINDOW_BLOCK 256
/* Terms summed between two flushes of the lanes, in all lanes together
 * (so at most this many in any one lane: within the 8192 above). */
#define XS_WINDOW_FLUSH_TERMS 8192
/* Rows shorter than this go straight to the large accumulator. */
#define XS_WINDOW_MIN_TERMS 1024

/* Add x[0..n) exactly (x aligned for its type): lanes flushed into
 * large->small, blocks that do not fit a window (and the tail) added to
 * large itself.  float32 and bfloat16 values need no split (and get wider
 * windows, above). */
void xs_window_add_float64(xs_large *large, const double *x, ptrdiff_t n);
void xs_window_add_float32(xs_large *large, const float *x, ptrdiff_t n);
void xs_window_add_bfloat16(xs_large *large, const uint16_t *x, ptrdiff_t n);

#endif
