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

/* The edges of columns [0, cols) from p, rows row_stride bytes apart: the
 * `head` columns before the first strip boundary of a row (a strip is 8
 * elements: a 64-byte line of float64, half a line of float32) and the
 * `tail` columns after the last whole strip from there; none unless every
 * row begins at the same place in a line, not at its start (row_stride a
 * multiple of a strip's bytes, p not), in rows of enough columns
 * (xs_columns.c says how many).  Summed apart (xs_columns_add_edges), they
 * leave strips that read one line (or half of one) per row, not two: a
 * fresh NumPy array starts 16 bytes past a page.  Each column's sum is
 * exact whichever group adds it: the results are the same. */
typedef struct {
    ptrdiff_t head, tail;
} xs_column_edges;
xs_column_edges xs_columns_edges(const char *p, ptrdiff_t cols, ptrdiff_t row_stride,
                                 int itemsize);
/* A group for the edges e: their head + tail columns side by side (head
 * first), with room to copy blocks of their rows; NULL if out of memory.
 * xs_columns_round(group, j, ...) gives edge column j. */
xs_columns *xs_columns_new_edges(xs_column_edges e, int itemsize);
/* The edge group's columns += their `rows` values: p and row_stride as for
 * xs_columns_add, of all `cols` columns (the edges' and the middle's). */
void xs_columns_add_edges(xs_columns *group, const char *p, ptrdiff_t cols, ptrdiff_t rows,
                          ptrdiff_t row_stride);

/* Strip blocks the float32 split kernel (xs_columns_variants.h) summed and
 * kept, in every group freed so far: a test hook, so that the tests know
 * they reached it. */
ptrdiff_t xs_columns_split_blocks(void);

#endif
