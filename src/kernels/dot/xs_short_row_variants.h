/*
 * The short-row kernels of xs_short_row.c as one ISA's variant sees them:
 * one pass over a row that adds its hi and lo parts (xs_short_row.h) and
 * measures its range, and a second one that adds three parts.  Every variant is an instance of xs_short_row_kernel.h
 * (but the scalar one of a compiler without GCC's vector extensions), and
 * they give the same four numbers: the sums are exact, the maximum and the
 * minimum exact too.
 */
#ifndef XS_SHORT_ROW_VARIANTS_H
#define XS_SHORT_ROW_VARIANTS_H

#include "cpu/xs_cpu.h"

/* What a kernel measures of a row: the sums of the parts (exact when the
 * row fits the window), the largest |x| (NaN terms skipped; Inf and NaN
 * terms make lo NaN) and the smallest non-zero |x| (+Inf: none). */
typedef struct {
    double hi, lo;
    double max_abs, min_abs;
} xs_short_row_split;

/* A row of n (>= 1) contiguous values from x, any alignment: the first
 * pass (two sums and the range), and the second (three sums, of a row of
 * finite terms: xs_short_row.h). */
typedef void (*xs_short_row_kernel)(const char *x, int n, xs_short_row_split *out);
typedef void (*xs_short_row_three)(const char *x, int n, double sums[3]);

/* float64 and float32 rows. */
typedef struct {
    xs_short_row_kernel f64, f32;
    xs_short_row_three three64, three32;
} xs_short_row_kernels;

/* The xs_short_row_kernels of each ISA (NULL: none compiled): the rows
 * take xs_cpu_pick's choice among them, the differential test reads each
 * through xs_cpu_variant. */
extern const void *const xs_short_row_variants[XS_ISA_COUNT];

#endif
