/*
 * Correctly rounded Euclidean norms of rows, decided in one pass where a
 * two-double sum of squares proves the rounding (one algorithm: xs_norm.c).
 *
 * The gufunc loops "(n)->(),()" take a row and give its norm and a flag:
 * 1 where the norm stored is the correctly rounded sqrt(sum of x*x) (or NaN
 * / Inf for rows holding them), 0 where the caller must take the exact path
 * (xsumufunc/_core/norm.py): a rounding too close to call, a result that
 * is subnormal or overflows, a row of only subnormal values, or a row longer
 * than XS_NORM_MAX_TERMS that the SIMD sum of squares does not decide.
 *   float64 rows -> float64 norms;
 *   float32 rows -> float32 norms.
 */
#ifndef XS_NORM_H
#define XS_NORM_H

#include <numpy/npy_common.h>

#include "kernels/dot/xs_dot_squares.h"

/* Longest row the scalar loop sums (the error bound of its sum of squares
 * grows as n^2: at 2^15 terms it is below 2^-71 of the sum, far inside the
 * 2^-52 that the decision needs); longer rows are faster on the exact
 * paths.  Contiguous float64 and float32 rows from XS_NORM_SQUARES_MIN_TERMS terms on,
 * of any length, take the SIMD sum of squares (xs_dot_squares.h) first. */
#define XS_NORM_MAX_TERMS ((npy_intp)1 << 15)
#define XS_NORM_SQUARES_MIN_TERMS XS_DOT_SQUARES_MIN_TERMS

void xs_norm_float64(char **args, const npy_intp *dimensions, const npy_intp *steps,
                     void *data);
void xs_norm_float32(char **args, const npy_intp *dimensions, const npy_intp *steps,
                     void *data);

#endif
