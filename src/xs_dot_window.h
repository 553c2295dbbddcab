/*
 * A windowed front end for exact float64 dot products of contiguous vectors.
 *
 * Every product a*b of normal doubles is ma*mb * 2^(s - 2150) with integer
 * mantissas ma, mb in [2^52, 2^53) and s = ea + eb the sum of the biased
 * exponents; so p = fl(a*b) and e = a*b - p (exact, by one FMA) satisfy
 *     |p| <= 2^(s-2044), p a multiple of 2^(s-2098),
 *     |e| <= 2^(s-2097), e a multiple of 2^(s-2150).
 * Fix a window of XS_DOT_WINDOW_BINADES exponent sums, s in [E - D, E].  Cut
 * p at two fixed bit positions, 27 and 54 bits below 2^(E-2044), and e at 27
 * and 54 bits below 2^(E-2097) (each cut: x_hi = (x + C) - C with
 * C = 1.5 * 2^(k+52) rounds x to a multiple of 2^k exactly, and x - x_hi is
 * exact).  Each of the six parts is then a multiple of a fixed quantum:
 * the first two of p and of e span at most 27 bits of their quanta, the
 * last ones D - 1 bits (all products' quanta are at least 2^(E-D-2150)), so
 * 2^(54-D) of them add up exactly in a double (below 2^53 quanta):
 * the lanes are SIMD registers summing blocks of products.  Blocks with
 * Inf/NaN, subnormal or only zero products, or exponent sums too wide for a
 * window or too close to overflow/underflow, take the scalar exact path.
 */
#ifndef XS_DOT_WINDOW_H
#define XS_DOT_WINDOW_H

#include <stddef.h>

#include "xs_dot.h"

/* D: exponent sums in one window (products spanning 2^40 in magnitude:
 * sums of squares of data spanning 2^20, or wider data times narrower). */
#define XS_DOT_WINDOW_BINADES 40
/* Products per block: the window is checked once per block. */
#define XS_DOT_WINDOW_BLOCK 256
/* Windows must keep p and the lane sums finite (2^14 parts below
 * 2^(E-2044) each stay below 2^(E-2030) <= 2^1000) ... */
#define XS_DOT_WINDOW_MAX_TOP 3030
/* ... and every product's quantum at least 2^-1074 (e is then exact). */
#define XS_DOT_WINDOW_MIN_BOTTOM 1076
/* Products between two flushes of the lanes: 2^(54-D), as above (all
 * lanes together, so no lane gets more). */
#define XS_DOT_WINDOW_FLUSH_TERMS ((ptrdiff_t)1 << (54 - XS_DOT_WINDOW_BINADES))
/* Rows shorter than this are not worth the set-up. */
#define XS_DOT_WINDOW_MIN_TERMS 1024

/* Adds a[i]*b[i] for i < m exactly (m: the largest multiple of the block
 * not above n), and returns m.  a and b: float64 values, contiguous, any
 * alignment.  Lanes are flushed into large->small; blocks that do not fit
 * a window go to acc through large.  Returns 0 (adding nothing) when the
 * CPU has no kernel for this (the caller then adds every product). */
ptrdiff_t xs_dot_window_add(xs_dot *acc, xs_large *large, const char *a, const char *b,
                            ptrdiff_t n);

#endif
