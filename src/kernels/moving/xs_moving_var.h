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

/* gufunc loop "(n),(g),(),()->(g),(g)": float64 values sorted by group,
 * int64 end offsets of the g groups (group k holds values [end of k-1, end
 * of k), the first from 0), int64 ddof, bool std -> each group's variance
 * (or standard deviation) rounded once into the xs_target given as data,
 * and whether it was decided (NaN for a group with a NaN or an Inf); where
 * it was not (0 stored: no more values than ddof, values beyond the
 * approximations' range, a rounding too close to call, ends out of order),
 * the caller computes the group exactly. */
void xs_grouped_var(char **args, const npy_intp *dimensions, const npy_intp *steps, void *data);

#endif
