/* The dot-product loops: xs_loops_dot_template.h instantiated for every
 * dtype of the table (xs_each_dtype.h) that has dot loops, and what its
 * instances share. */
#include "loops/xs_loops_common.h"

#include <fenv.h>
#include <stdlib.h>

#include "cpu/xs_cpu.h"
#include "exact/xs_dot.h"
#include "exact/xs_running.h"
#include "kernels/cells/xs_cells.h"
#include "kernels/dot/xs_dot_cells.h"
#include "kernels/dot/xs_dot_squares.h"
#include "runtime/xs_interrupt.h"
#include "runtime/xs_threads.h"

/* A dot product's state: its three accumulators (main, fine, huge: see
 * xs_dot.h) as three states, one after the other. */
static void xs_store_dot_state(xs_dot *acc, char *out, npy_intp stride)
{
    xs_small *parts[3] = {&acc->main, &acc->fine, &acc->huge};
    for (int k = 0; k < 3; k++) {
        xs_store_state(parts[k], out + k * XS_STATE_LEN * stride, stride);
    }
}

/* Products of float32, float16 and bfloat16 values are exact in float64. */
static inline void xs_dot_add_narrow(xs_dot *acc, xs_large *large, double a, double b)
{
    xs_dot_add_main(acc, large, a * b);
}

/* fma() is a library call unless the compiler may assume FMA hardware: on
 * x86-64 the float64 row kernels are also compiled for AVX2 with FMA, and
 * each row takes the copy the level in force allows (src/cpu/xs_cpu.h, so that
 * XSUMUFUNC_KERNEL caps it too).  Both copies perform the same operations:
 * the same bits.  Elsewhere (aarch64 has FMA in its base ISA) one copy. */
#if defined(__GNUC__) || defined(__clang__)
#define XS_DOT_BODY static inline __attribute__((always_inline))
#else
#define XS_DOT_BODY static inline
#endif
#define XS_DOT_SHORT_PARAMS const char *a, const char *b, npy_intp n, npy_intp step_a, \
    npy_intp step_b, const xs_format *fmt, double *out
#define XS_DOT_SHORT_ARGS a, b, n, step_a, step_b, fmt, out
#define XS_DOT_ROW_PARAMS xs_dot *acc, xs_large **large, const char *a, const char *b, \
    npy_intp n, npy_intp step_a, npy_intp step_b
#define XS_DOT_ROW_ARGS acc, large, a, b, n, step_a, step_b
/*
 * Rows shorter than the window's minimum (at most XS_DOT_SHORT_MAX products)
 * rounded from a two-double
 * approximation of the exact dot (xs_running.h) when it provably decides
 * them: no accumulators to clear, propagate and round.  Each float64
 * product goes in as p = fl(a*b) and e = fma(a, b, -p), both exact, for
 * products with both factors normal and 2^-969 <= |a*b| < 2^1000: p is then
 * a normal double (no underflow or overflow flag), e is exact, and both lie
 * in the approximation's safe range.  Products of narrow values are exact
 * doubles.  Anything else (zeros excepted: they add nothing), and every
 * row the approximation does not decide (a zero or tiny result, a
 * rounding boundary too close), goes to the accumulators from the start.
 * No step raises a floating-point flag.
 */
#define XS_DOT_SHORT_MAX 1023
/* Products per block of the approximation (two terms each at most). */
#define XS_DOT_SHORT_FOLD 256
_Static_assert(2 * XS_DOT_SHORT_FOLD <= XS_RUNNING_BLOCK,
               "a block of a short dot row's terms fits xs_running_short_fold's bound");
_Static_assert(2 * XS_DOT_SHORT_MAX < 2048, "xs_running_short_add: fewer than 2^11 terms");
/* Biased exponents: ea + eb - 2046 is the exponent of a*b, within one. */
#define XS_DOT_SHORT_MIN_EXPONENTS (2 * XS_F64_EXP_BIAS - 969 + 1)
#define XS_DOT_SHORT_MAX_EXPONENTS (2 * 1023 + 998)

/* Adds a*b to the approximation hi + lo (err: see xs_running_of), 1; or 0:
 * this row goes to the accumulators. */
static inline int xs_dot_short_add_narrow(double *hi, double *lo, double *err, double a, double b)
{
    if (!(xs_running_abs(a) <= XS_RUNNING_MAX && xs_running_abs(b) <= XS_RUNNING_MAX)) {
        return 0;                            /* Inf or NaN: no product here */
    }
    xs_running_short_add(hi, lo, err, a * b);    /* exact: at most 2 * 24 bits */
    return 1;
}

static inline int xs_dot_short_add_float64(double *hi, double *lo, double *err, double a,
                                           double b)
{
    unsigned ea = (unsigned)(xs_double_bits(a) >> XS_F64_MANT_BITS) & XS_F64_EXP_MASK;
    unsigned eb = (unsigned)(xs_double_bits(b) >> XS_F64_MANT_BITS) & XS_F64_EXP_MASK;
    if (a == 0.0 || b == 0.0) {
        return ea != XS_F64_EXP_MASK && eb != XS_F64_EXP_MASK;      /* a zero product adds nothing */
    }
    if (ea == 0 || eb == 0 || ea + eb < XS_DOT_SHORT_MIN_EXPONENTS
            || ea + eb > XS_DOT_SHORT_MAX_EXPONENTS) {
        return 0;                                  /* also Inf and NaN */
    }
    double p = a * b;
    xs_running_short_add(hi, lo, err, p);
    xs_running_short_add(hi, lo, err, xs_product_error(a, b, p));
    return 1;
}

/* The cells front end, for contiguous float64 rows long enough (returns
 * how many products it added); none for the narrow types. */
#define XS_DOT_TAKES_CELLS(n, step_a, step_b) \
    ((step_a) == 8 && (step_b) == 8 && (n) >= XS_DOT_CELLS_MIN_TERMS && xs_dot_cells_available())
#define XS_DOT_WINDOW_FLOAT64(acc, large, a, b, n, step_a, step_b) \
    ((large) != NULL && XS_DOT_TAKES_CELLS((n), (step_a), (step_b)) \
     ? xs_dot_cells_add((acc), (large), (a), (b), (n)) : 0)
#define XS_DOT_NO_WINDOW(acc, large, a, b, n, step_a, step_b) 0
/* A long contiguous float64 row dotted with itself (the same memory, the
 * same stride): its sum of squares rounded from xs_dot_squares.c's
 * two-double approximation when that decides it (1, *out), else 0. */
#define XS_DOT_TAKES_SQUARES_OF(n, step_a, step_b, size) \
    ((step_a) == (size) && (step_b) == (size) && (n) >= XS_DOT_SQUARES_MIN_TERMS)
#define XS_DOT_SQUARES_OF(a, b, n, fmt, out, size) \
    ((a) == (b) && xs_dot_squares_round((a), (n), (size), (fmt), (out)))
#define XS_DOT_NO_SQUARES(a, b, n, fmt, out) 0
#define XS_DOT_TAKES_NONE(n, step_a, step_b) 0
_Static_assert(XS_DOT_CELLS_MIN_TERMS >= XS_LARGE_MIN_TERMS,
               "rows that take the cells have a large accumulator");

/* A row of products split between threads: each part sums its products
 * into its own exact accumulators, merged afterwards (the same result). */
typedef struct {
    const char *a, *b;
    npy_intp step_a, step_b;
    xs_dot parts[XS_MAX_THREADS];
} xs_dot_job;

/* One instance per dtype of the table (xs_each_dtype.h) that has dot loops. */
#define XS_EACH "loops/xs_loops_dot_template.h"
#include "loops/xs_each_dtype.h"
