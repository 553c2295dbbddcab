/*
 * The exact sum of squares of a contiguous float64 row (exact_dot(x, x)),
 * rounded once, from a two-double approximation with a proven error bound
 * when that bound decides the rounding (see xs_dot_squares.c); the caller
 * takes the exact path for every row it does not decide.
 */
#ifndef XS_DOT_SQUARES_H
#define XS_DOT_SQUARES_H

#include <stddef.h>

#include "exact/xs_round.h"

/* Rows this long or longer are tried (shorter ones: the cells or the short
 * two-double path of xs_loops.c already handle them quickly). */
#define XS_DOT_SQUARES_MIN_TERMS 256

/* 1, and the sum of x[i]^2 for i < n (x: n contiguous float64 values,
 * itemsize 8, or float32 values, itemsize 4, any alignment) correctly
 * rounded into fmt in *out, when the approximation
 * decides it; 0 otherwise (a result near a rounding boundary or a tie, a
 * zero, tiny, subnormal or overflowing result, Inf or NaN terms, values out
 * of the safe range, an interrupt: the caller checks xs_stopped()).  Leaves
 * the floating-point exception flags as they were. */
int xs_dot_squares_round(const char *x, ptrdiff_t n, int itemsize, const xs_format *fmt,
                         double *out);

/* The approximation itself, of the squares of x[i] * scale (scale a power
 * of two): 1, and |sum of (x[i] scale)^2 - (*hi + *lo)| <= *bound, when
 * every square and sum stayed in the safe range (hi <= 2^1020; then *bound
 * is also what xs_running_of takes); 0 otherwise (Inf, NaN, overflow, an
 * interrupt).  The 2-norm of long rows (xs_norm.c) takes its root from it.
 * Leaves the exception flags as they were. */
int xs_dot_squares_sum(const char *x, ptrdiff_t n, int itemsize, double scale, double *hi,
                       double *lo, double *bound);

#endif
