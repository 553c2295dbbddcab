/* Exact moving-window sums and means (one algorithm: xs_moving.c). */
#ifndef XS_MOVING_H
#define XS_MOVING_H

#include <numpy/npy_common.h>

/* gufunc loop "(n),(),(),()->(n)": float64 values, int64 window, int64
 * min_count, bool mean -> each window's exact sum (or mean) rounded once
 * into the xs_target given as data. */
void xs_moving_float64(char **args, const npy_intp *dimensions, const npy_intp *steps,
                       void *data);

/* The same loop for float32 values, read as they are (each widened exactly
 * in the loop, no float64 copy of the row). */
void xs_moving_float32(char **args, const npy_intp *dimensions, const npy_intp *steps,
                       void *data);

#endif
