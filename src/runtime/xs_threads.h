/*
 * Splitting one long row over threads: each thread sums its part exactly
 * into its own accumulator and the exact results are merged, so the result
 * is the same bits whatever the number of threads.
 */
#ifndef XS_THREADS_H
#define XS_THREADS_H

#include <stddef.h>

#include "exact/xs_large.h"

/* Rows shorter than this are summed by the calling thread alone: starting a
 * thread costs tens of microseconds. */
#define XS_PARALLEL_MIN_TERMS ((ptrdiff_t)1 << 20)
/* No part shorter than this. */
#define XS_PARALLEL_MIN_PART ((ptrdiff_t)1 << 19)
#define XS_MAX_THREADS 64

/* Threads used for one row; set by xs_set_num_threads, else the environment
 * variable XSUMUFUNC_NUM_THREADS, else the number of online CPUs. */
int xs_get_num_threads(void);
/* n < 1 restores the default.  Safe to call from any thread. */
void xs_set_num_threads(int n);
/* XSUMUFUNC_NUM_THREADS as read: 0 unset, -1 set to anything but a positive
 * decimal integer (then ignored), else the count (capped). */
int xs_env_num_threads(void);

/* Sums n elements, stride bytes apart, from p into acc (exactly). */
typedef void (*xs_serial_sum)(xs_small *acc, xs_large **large, const char *p,
                              ptrdiff_t n, ptrdiff_t stride);

/* Runs `serial` on parts of the row in parallel when that pays, merging the
 * parts into acc; returns 0 if it did not (the caller then sums serially). */
int xs_parallel_sum(xs_serial_sum serial, xs_small *acc, const char *p, ptrdiff_t n,
                    ptrdiff_t stride);

/* Work on items [begin, end) of something (rows or columns of a reduction,
 * terms of a row) as part number `part` (0 <= part < XS_MAX_THREADS). */
typedef void (*xs_range_task)(void *ctx, int part, ptrdiff_t begin, ptrdiff_t end);

/* Runs `task` on parts of [0, n) in parallel when `terms` (the elements the
 * whole job reads) make it pay, parts starting at multiples of `align`;
 * returns the number of parts, or 0 if it did not split (the caller then
 * runs task(ctx, 0, 0, n) itself).
 * The parts must be independent.  Floating-point exceptions raised by the
 * parts are raised again in the calling thread, where NumPy looks for them.
 * The workers join the caller's interrupt context (xs_interrupt.h): they
 * stop at their next block once it is stopped, and the caller keeps checking
 * for signals while it waits for them (the parts are then incomplete: the
 * caller checks xs_stopped() before using them). */
int xs_parallel_ranges(xs_range_task task, void *ctx, ptrdiff_t n, ptrdiff_t align,
                       ptrdiff_t terms);

#endif
