/* Short rows summed exactly in two doubles (see xs_short_row.h). */
#include "kernels/dot/xs_short_row.h"

#include <fenv.h>
#include <math.h>
#include <stdint.h>

#include "exact/xs_exact.h"

/* Binades of the window: 2^(27-19) = 256 > XS_SHORT_ROW_MAX terms per sum. */
#define XS_SHORT_ROW_BINADES 19
/* hi sums stay below 2^(t+8): keep that finite. */
#define XS_SHORT_ROW_MAX_TOP_EXP 1015

/* x with its low 26 fraction bits cleared. */
static double hi_part(double x)
{
    return xs_bits_double(xs_double_bits(x) & 0xfffffffffc000000ull);
}

int xs_short_row_sum(const double *terms, int n, const xs_format *fmt, double *result)
{
    int is64 = fmt == &xs_format_float64, is32 = fmt == &xs_format_float32;
    if (!(is64 || is32)) {
        return 0;
    }
    double max_abs = 0.0, min_abs = INFINITY;
    for (int k = 0; k < n; k++) {
        double a = fabs(terms[k]);
        if (a != a || a == INFINITY) {
            return 0;          /* NaN or Inf (tested with quiet comparisons first) */
        }
        if (a > max_abs) {
            max_abs = a;
        }
        if (a != 0.0 && a < min_abs) {
            min_abs = a;
        }
    }
    if (max_abs == 0.0) {
        return 0;                       /* only zeros: their sign needs the flags */
    }
    int top_exp;
    frexp(max_abs, &top_exp);            /* max_abs < 2^top_exp */
    if (top_exp > XS_SHORT_ROW_MAX_TOP_EXP ||
            (top_exp - XS_SHORT_ROW_BINADES >= -1074 &&
             min_abs < ldexp(1.0, top_exp - XS_SHORT_ROW_BINADES))) {
        return 0;
    }
    double hi = 0.0, lo = 0.0;
    for (int k = 0; k < n; k++) {
        double h = hi_part(terms[k]);
        hi += h;                         /* exact: see xs_short_row.h */
        lo += terms[k] - h;
    }
    double err;
    double s = xs_two_sum(hi, lo, &err);    /* s = round(hi + lo), the float64 result */
    if (s == 0.0) {
        return 0;                        /* the zero's sign: leave it to the flags */
    }
    if (is64) {
        *result = s;                     /* overflow gives Inf with the IEEE flag */
        return 1;
    }
    /* Round to odd: if inexact and the last bit is even, step towards err. */
    if (err != 0.0 && !(xs_double_bits(s) & 1u)) {
        s = nextafter(s, err > 0.0 ? INFINITY : -INFINITY);
    }
    *result = (double)(float)s;          /* one correct rounding to float32 */
    return 1;
}
