/* Moving-window variances and standard deviations (one algorithm:
 * xs_moving_var.c). */
#ifndef XS_MOVING_VAR_H
#define XS_MOVING_VAR_H

#include <numpy/npy_common.h>

/* gufunc loop "(n),(),(),(),()->(n),(n)": float64 values, int64 window,
 * int64 min_count, int64 ddof, bool std -> each trailing window's variance
 * (or standard deviation) of its non-NaN terms rounded once into the
 * xs_target given as data, and whether it was decided; where it was not
 * (0 stored), the caller computes the window exactly. */
void xs_moving_var(char **args, const npy_intp *dimensions, const npy_intp *steps, void *data);

#endif
