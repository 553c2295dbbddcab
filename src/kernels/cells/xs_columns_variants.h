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
/* A strip's block of float32 rows with two cells, split
 * (xs_columns_strip.h, cs_split32): each lane's terms in float32 lanes cut
 * once at 2^(T - 22), the rests summed as doubles.  Exact for a block whose
 * non-zero terms lie in [2^(T - XS_SPLIT32_SPAN), 2^T): the rests of
 * XS_COLUMN_CARRY_ROWS rows, each at most 2^(T - 23), sum below 2^53 ulps of
 * the smallest term (2^(e - 23) for a term in [2^e, 2^(e + 1))); and for
 * tops T from XS_SPLIT32_TOP_MIN to XS_SPLIT32_TOP_MAX, whose cut constant
 * 1.5 2^(T + 1) is a normal float. */
typedef void (*xs_strip_split)(const char *q, ptrdiff_t rows, ptrdiff_t row_stride,
                               const double (*sigma)[XS_STRIP], xs_strip_block *b);
#define XS_SPLIT32_SPAN 48
#define XS_SPLIT32_TOP_MIN (-127)
#define XS_SPLIT32_TOP_MAX 126
_Static_assert(XS_COLUMN_CARRY_ROWS == 32,
               "XS_SPLIT32_SPAN: 2^5 rests of at most 2^(T - 23) below 2^53 ulps of 2^(T - 48)");

/* float64 and float32 rows; f32_split NULL where a level has none. */
typedef struct {
    xs_strip_kernel f64, f32;
    xs_strip_ranger range64, range32;
    xs_strip_split f32_split;
} xs_strip_kernels;

/* The xs_strip_kernels of each ISA (NULL: none compiled): the column sums
 * take xs_cpu_pick's choice among them, the differential test reads each
 * through xs_cpu_variant. */
extern const void *const xs_columns_variants[XS_ISA_COUNT];

#endif
