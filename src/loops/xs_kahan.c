/*
 * Kahan-compensated summation of float64 rows: NOT exact, here only as the
 * reference point the benchmarks compare against (what a careful user would
 * write by hand).  (n)->() gufunc loop, float64 in and out.
 */
#include <string.h>

#include "loops/xs_loops.h"

void xs_kahan_float64(char **args, const npy_intp *dimensions, const npy_intp *steps,
                      void *data)
{
    (void)data;
    npy_intp outer = dimensions[0], n = dimensions[1];
    for (npy_intp i = 0; i < outer; i++) {
        const char *p = args[0] + i * steps[0];
        double sum = 0.0, compensation = 0.0;
        for (npy_intp k = 0; k < n; k++, p += steps[2]) {
            double x;
            memcpy(&x, p, sizeof x);
            double y = x - compensation;
            double t = sum + y;
            compensation = (t - sum) - y;   /* what the addition lost */
            sum = t;
        }
        memcpy(args[1] + i * steps[1], &sum, sizeof sum);
    }
}
