/*
 * Short rows without the superaccumulator.  A row of n < 2^k terms
 * (k <= 10) whose non-zero magnitudes lie in [2^(t-B), 2^t), B = 27 - k
 * binades (19 for rows of up to 255 terms, 17 for up to 1023), is split
 * term by term into hi (27 significant bits) and lo = x - hi.  A term in
 * [2^e, 2^(e+1)) has hi a multiple of 2^(e-26) and lo one of 2^(e-52),
 * with |lo| < 2^(e-26); e >= t - B makes every hi a multiple of
 * 2^(t-53+k) and every lo one of 2^(t-79+k), while the sums of n of them
 * stay below 2^(t+k) and 2^(t-27+k): 53 and 52 bits of those quanta,
 * whatever the order of the additions, so every partial sum is a double.
 * So the lanes of a vector add them in any order, and the exact sum S of
 * the row is hi_sum + lo_sum, two doubles, from one pass over it.  S (or
 * S / n, a mean) is rounded into the target from those two doubles
 * (xs_running.h, with a bound of 0: the hardware's rounding decides every
 * tie).
 *
 * The pass measures the row's largest and smallest non-zero |x| as it adds
 * (the window is judged after it, the sums thrown away if the row does not
 * fit), on the vector width of the CPU (xs_short_row.c: SSE2 or Advanced
 * SIMD, AVX2, AVX-512; the instances give the same sums, being exact).
 *
 * A row of up to 255 terms that misses that window but lies within B =
 * 36 - k binades (29 up to 127 terms, 28 up to 255: rows of lognormal(0, 3)
 * data of a hundred terms, say) takes a second pass of three sums: x's top 18 significant
 * bits h1, the next 18 (h2 = h12 - h1, h12 its top 36), and the rest
 * h3 = x - h12 (both differences exact).  A term in [2^e, 2^(e+1)) has h1 a
 * multiple of 2^(e-17), h2 of 2^(e-35) with |h2| < 2^(e-17), h3 of
 * 2^(e-52) with |h3| < 2^(e-35); with e >= t - B the three sums of n terms
 * span 2^(t+k) / 2^(t-53+k), 2^(t-18+k) / 2^(t-71+k) and 2^(t-36+k) /
 * 2^(t-88+k): 53, 53 and 52 bits, exact in any order again.  S = s1 + s2 +
 * s3 becomes a two-double hi + lo whose error is that of one rounding of
 * two TwoSum errors (the bound handed to the rounding: 0 when that rounding
 * is exact).
 *
 * Rows that fit neither window (a largest term beyond 2^1013, Inf or NaN
 * included), only zeros (the sign of a zero sum needs the accumulator's
 * bookkeeping), sums the two-double rounding does not decide (below 2^-800,
 * overflowing, a hair from a rounding boundary, or a mean beyond its range)
 * are left to the caller's next path.
 */
#ifndef XS_SHORT_ROW_H
#define XS_SHORT_ROW_H

#include <stdint.h>

#include "exact/xs_round.h"

/* The longest row: k = 10 above (rows of 2^10 terms and more take the
 * cells, xs_cells.h, as fast as this from a few hundred terms on). */
#define XS_SHORT_ROW_MAX 1023

/* x: n (1 <= n <= XS_SHORT_ROW_MAX) contiguous float64 (itemsize 8) or
 * float32 (itemsize 4) values, any alignment; divisor 1 (the sum) or n (the
 * mean); fmt: any target of at most 53 bits.  1 and *result (a value of
 * fmt) when decided, 0 when the caller must take another path.  The pass
 * over the row raises no exception flag the caller sees (it may raise
 * some on rows it leaves: they are put back); the rounding raises
 * "inexact" when it rounds. */
int xs_short_row_round(const char *x, int n, int itemsize, uint64_t divisor,
                       const xs_format *fmt, double *result);

#endif
