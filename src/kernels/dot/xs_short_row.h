/*
 * Short rows without the superaccumulator.  A row of at most
 * XS_SHORT_ROW_MAX terms whose non-zero magnitudes lie in [2^(t-19), 2^t)
 * is split term by term into hi (27 significant bits) and lo = x - hi:
 * every hi is a multiple of 2^(t-45) and every lo of 2^(t-71), and fewer
 * than 2^8 of either add up exactly in one double (below 2^53 quanta).  The
 * exact sum is then hi_sum + lo_sum, two doubles:
 *   float64 result: one IEEE addition rounds it correctly;
 *   float32 result: rounded to odd in double (53 >= 24 + 2 bits), then one
 *   conversion to float rounds it correctly.
 * Other results, Inf/NaN, rows beyond the window and exact zeros (whose
 * sign needs the -0.0 bookkeeping) are left to the accumulator.
 */
#ifndef XS_SHORT_ROW_H
#define XS_SHORT_ROW_H

#include "exact/xs_round.h"

#define XS_SHORT_ROW_MAX 128

/* terms[0..n) as doubles; 1 and *result (exactly representable in fmt) on
 * success, 0 when the caller must use the accumulator. */
int xs_short_row_sum(const double *terms, int n, const xs_format *fmt, double *result);

#endif
