/*
 * Exact sums over a slow axis: many columns at once, read row by row.
 */
#ifndef XS_COLUMNS_H
#define XS_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#include "exact/xs_round.h"

/* Columns summed together (their lanes stay in L1); rows per block: from
 * XS_COLUMN_BLOCK_ROWS to fewer than twice as many (a call's rows shared
 * evenly; a call of fewer rows is one block).  A strip's fixed cost per
 * block (its lanes in and out, the range's end, the fit of each column)
 * is shared by more rows the longer the block, while a strip's lines of
 * the block stay in L1 (256 to 511 rows: 16 to 32 KB; Zen 5, from 128:
 * (1000, 1000) and (4000, 1000) columns about 5% faster at every level,
 * the paper's data under AVX2 3.5x -> 3.3x np.sum; 512 and more: slower). */
#define XS_COLUMN_CHUNK 64
#define XS_COLUMN_BLOCK_ROWS 256
/* Columns in one group (bounds the state's memory). */
#define XS_COLUMN_GROUP 1024
/* Worth it from this many columns and rows on. */
#define XS_COLUMNS_MIN_COLS 8
#define XS_COLUMNS_MIN_ROWS 16

/* A group of at most XS_COLUMN_GROUP columns being summed: their windows,
 * cell sums and exact accumulators. */
typedef struct xs_columns xs_columns;

/* A group of `cols` columns of float64 (itemsize 8) or float32 (itemsize 4)
 * values, every sum 0; NULL if out of memory. */
xs_columns *xs_columns_new(ptrdiff_t cols, int itemsize);
void xs_columns_free(xs_columns *group);
/* Column j += its `rows` values: rows of the group's columns, contiguous
 * and aligned, row_stride bytes apart from p.  Any number of calls. */
void xs_columns_add(xs_columns *group, const char *p, ptrdiff_t rows, ptrdiff_t row_stride);
/* Column j's exact sum divided by divisor (1: the sum), rounded once into
 * fmt (see xs_small_round_divided). */
double xs_columns_round(xs_columns *group, ptrdiff_t j, uint64_t divisor, const xs_format *fmt);

#endif
