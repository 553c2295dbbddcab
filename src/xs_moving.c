/*
 * Exact moving-window sums and means.
 *
 * The window's exact sum lives in a small superaccumulator (xs_small.h):
 * the entering value is added and the leaving value subtracted, both
 * exactly, so the sum never drifts however long the series.  What a
 * fixed-point accumulator cannot take back is kept beside it as counts:
 * the infinities of each sign, the terms that are not -0.0 (a window of
 * only -0.0 sums to -0.0) and the non-NaN terms (NaNs are not terms, as in
 * bottleneck's move_sum).  A sum or a mean is mostly rounded from the
 * two-double approximation of xs_running.h (of the sum, or of the sum over
 * the count: xs_running_divide), which provably decides it, else from the
 * accumulator (one carry propagation and one rounding): O(1) per element
 * whatever the window length.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "xs_moving.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "xs_round.h"
#include "xs_running.h"
#include "xs_small.h"
#include "xs_types.h"

/* Release the GIL for rows with at least this many terms in all. */
#define XS_MOVING_GIL_MIN_TERMS 4096
#define XS_SIGN_BIT ((uint64_t)1 << 63)
#define XS_EXPONENT_MASK ((uint64_t)0x7ff << 52)

typedef struct {
    xs_small acc;          /* the finite terms in the window */
    xs_running run;        /* a fast approximation of acc */
    int64_t terms;         /* non-NaN terms in the window */
    int64_t pos_inf, neg_inf;
    int64_t not_neg_zero;  /* terms other than -0.0 */
} xs_window_sum;

/* Add (direction +1) or take back (-1) the term with these bits. */
static void xs_window_update(xs_window_sum *w, uint64_t bits, int direction)
{
    if ((bits & XS_EXPONENT_MASK) == XS_EXPONENT_MASK) {
        if (bits & ~(XS_SIGN_BIT | XS_EXPONENT_MASK)) {
            return;                                   /* NaN: not a term */
        }
        if (bits & XS_SIGN_BIT) {
            w->neg_inf += direction;
        }
        else {
            w->pos_inf += direction;
        }
        w->terms += direction;
        w->not_neg_zero += direction;
        return;
    }
    w->terms += direction;
    if (bits != XS_SIGN_BIT) {
        w->not_neg_zero += direction;
    }
    /* Negating a finite double is exact: flip its sign bit. */
    uint64_t term = direction > 0 ? bits : bits ^ XS_SIGN_BIT;
    xs_small_add_bits(&w->acc, term);
    if (w->run.valid) {
        double x;
        memcpy(&x, &term, sizeof x);
        xs_running_add(&w->run, x);
    }
}

/* The window's sum (or mean) rounded once into fmt. */
static double xs_window_round(xs_window_sum *w, int mean, const xs_format *fmt)
{
    if (w->pos_inf && w->neg_inf) {
        return NAN;
    }
    if (w->pos_inf || w->neg_inf) {
        return w->pos_inf ? INFINITY : -INFINITY;
    }
    /* Only the sign of a zero sum depends on the flags: rebuild them from
     * the counts (the accumulator's own flags remember removed terms). */
    w->acc.flags = XS_HAS_TERM | (w->not_neg_zero ? XS_NOT_NEG_ZERO : 0u);
    double value;
    uint64_t divisor = mean ? (uint64_t)w->terms : 1u;
    xs_running quotient;
    const xs_running *approx = &w->run;
    if (mean) {
        approx = xs_running_divide(&w->run, divisor, &quotient) ? &quotient : NULL;
    }
    if (approx != NULL && xs_running_round(approx, fmt, &value)) {
        return value;                 /* decided by the approximation */
    }
    value = xs_small_round_divided(&w->acc, divisor, fmt);
    xs_running_rebuild(&w->run, &w->acc);
    return value;
}

void xs_moving_float64(char **args, const npy_intp *dimensions, const npy_intp *steps,
                       void *data)
{
    const xs_target *target = data;
    npy_intp outer = dimensions[0], n = dimensions[1];
    PyThreadState *saved = NULL;
    if ((outer >= XS_MOVING_GIL_MIN_TERMS || n >= XS_MOVING_GIL_MIN_TERMS ||
         outer * n >= XS_MOVING_GIL_MIN_TERMS) && PyGILState_Check()) {
        saved = PyEval_SaveThread();
    }
    for (npy_intp i = 0; i < outer; i++) {
        const char *in = args[0] + i * steps[0];
        char *out = args[4] + i * steps[4];
        int64_t window, min_count;
        npy_bool mean;
        memcpy(&window, args[1] + i * steps[1], sizeof window);
        memcpy(&min_count, args[2] + i * steps[2], sizeof min_count);
        memcpy(&mean, args[3] + i * steps[3], sizeof mean);
        xs_window_sum w;
        memset(&w, 0, sizeof w);
        xs_small_init(&w.acc);
        xs_running_init(&w.run);
        for (npy_intp k = 0; k < n; k++) {
            uint64_t bits;
            memcpy(&bits, in + k * steps[5], sizeof bits);
            xs_window_update(&w, bits, +1);
            if (k >= window) {
                memcpy(&bits, in + (k - window) * steps[5], sizeof bits);
                xs_window_update(&w, bits, -1);
            }
            double value = w.terms >= min_count ? xs_window_round(&w, mean, target->format)
                                                : NAN;
            XS_STORE(target, out + k * steps[6], value);
        }
    }
    if (saved) {
        PyEval_RestoreThread(saved);
    }
}
