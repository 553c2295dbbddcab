/*
 * Correctly rounded Euclidean norms of rows, decided in one pass where a
 * two-double sum of squares proves the rounding (one algorithm: xs_norm.c).
 *
 * The gufunc loops "(n)->(),()" take a row and give its norm and a flag:
 * 1 where the norm stored is the correctly rounded sqrt(sum of x*x) (or NaN
 * / Inf for rows holding them), 0 where the caller must take the exact path
 * (xsumufunc/_core/norm.py): a rounding too close to call, a result that
 * is subnormal or overflows, a row of only subnormal values, or a row longer
 * than XS_NORM_MAX_TERMS.
 *   float64 rows -> float64 norms;
 *   float32 rows -> float32 norms.
 */
#ifndef XS_NORM_H
#define XS_NORM_H

#include <numpy/npy_common.h>

/* Longest row the loops decide: the error bound of the sum of squares grows
 * as n^2 (xs_norm.c); at 2^20 terms it is below 2^-61 of the sum, still far
 * inside the 2^-52 that the decision needs. */
#define XS_NORM_MAX_TERMS ((npy_intp)1 << 20)

void xs_norm_float64(char **args, const npy_intp *dimensions, const npy_intp *steps,
                     void *data);
void xs_norm_float32(char **args, const npy_intp *dimensions, const npy_intp *steps,
                     void *data);

#endif
