/*
 * The strip kernels of xs_columns.c as one ISA's variant sees them: a
 * strip of eight neighbouring columns summed down a block of rows, one
 * column per double lane (each lane's operations the same, in the same
 * order, whatever the vector width, so every variant gives the same bits).
 * Every variant is an instance of xs_columns_strip.h in xs_columns.c.
 */
#ifndef XS_COLUMNS_VARIANTS_H
#define XS_COLUMNS_VARIANTS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/cells/xs_cells.h"
#include "kernels/cells/xs_columns.h"
#include "cpu/xs_cpu.h"

/* Strips of eight columns: one 64-byte line of a row. */
#define XS_STRIP 8
/* Rows between two carry steps: the lane bound of xs_cells.h allows at most
 * XS_CELLS_LANE_TERMS parts per lane between them. */
#define XS_COLUMN_CARRY_ROWS XS_CELLS_LANE_TERMS
/* Prefetch distance, in columns: each row's line two strips ahead (of
 * float64; float32 strips are half a line), read by the strip after next.
 * The lines of a strip's block are 16 to 32 KB: further ahead, the
 * prefetched lines of several strips crowd the first-level cache (Zen 5,
 * (1000, 1000) columns in blocks of 128 rows: 64 columns ahead, as before,
 * 2 to 5% slower at every level; 8 columns ahead, AVX-512 a quarter
 * slower; in blocks of 256, 32 columns ahead: the same as 16). */
#define XS_PREFETCH_COLUMNS 16
#define XS_PREFETCH_BYTES(itemsize) ((uintptr_t)XS_PREFETCH_COLUMNS * (uintptr_t)(itemsize))

/* A block of a strip: eight lanes of sums (from the stored ones) and the
 * block's range per lane, as bit patterns of |x| (all zero: UINT64_MAX). */
typedef struct {
    double cells[XS_CELLS_MAX + 1][XS_STRIP];
    uint64_t max_bits[XS_STRIP], min_bits_m1[XS_STRIP];
} xs_strip_block;

/* The strip's block of `rows` rows from q (row_stride bytes apart) with K
 * cells (2..XS_CELLS_MAX) and each lane's cut constants sigma[c][k], added
 * to b->cells, its range into b; and the range alone (no window yet). */
typedef void (*xs_strip_kernel)(const char *q, ptrdiff_t rows, ptrdiff_t row_stride, int K,
                                const double (*sigma)[XS_STRIP], xs_strip_block *b);
typedef void (*xs_strip_ranger)(const char *q, ptrdiff_t rows, ptrdiff_t row_stride,
                                xs_strip_block *b);
/* float64 and float32 rows. */
typedef struct {
    xs_strip_kernel f64, f32;
    xs_strip_ranger range64, range32;
} xs_strip_kernels;

/* The xs_strip_kernels of each ISA (NULL: none compiled): the column sums
 * take xs_cpu_pick's choice among them, the differential test reads each
 * through xs_cpu_variant. */
extern const void *const xs_columns_variants[XS_ISA_COUNT];

#endif
