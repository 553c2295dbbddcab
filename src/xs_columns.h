/*
 * Exact sums over a slow axis: many columns at once, read row by row.
 */
#ifndef XS_COLUMNS_H
#define XS_COLUMNS_H

#include <stddef.h>

#include "xs_small.h"

/* Columns summed together (their lanes stay in L1), rows per block. */
#define XS_COLUMN_CHUNK 64
#define XS_COLUMN_BLOCK_ROWS 128
/* Columns handed over in one call (bounds the accumulators' memory). */
#define XS_COLUMN_GROUP 1024
/* Worth it from this many columns and rows on. */
#define XS_COLUMNS_MIN_COLS 8
#define XS_COLUMNS_MIN_ROWS 16

/* accs[j] += exact sum of column j, for j < cols <= XS_COLUMN_GROUP: rows of
 * `cols` contiguous, aligned doubles starting row_stride bytes apart from p.
 * Returns 0, or -1 (and adds nothing) if out of memory. */
int xs_columns_add_float64(xs_small *accs, const char *p, ptrdiff_t rows, ptrdiff_t cols,
                           ptrdiff_t row_stride);
/* The same for float32 rows (the values widened to doubles, exactly). */
int xs_columns_add_float32(xs_small *accs, const char *p, ptrdiff_t rows, ptrdiff_t cols,
                           ptrdiff_t row_stride);

#endif
