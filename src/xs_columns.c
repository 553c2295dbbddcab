/*
 * Exact column sums of a block of float64 rows whose columns are contiguous:
 * a reduction over a slow axis (axis=0 of a C-ordered array) read row by
 * row, in memory order, instead of one strided column at a time.
 *
 * Each column gets its own exponent window and hi/lo lanes, exactly as in
 * xs_window.c (see there for why the additions are exact): a block of rows
 * is summed for a chunk of columns at once (the inner loop runs over
 * contiguous columns, so it vectorises without reassociating anything),
 * then each column accepts its block sums when the block fits its window,
 * or adds that block's values to its small accumulator one by one.
 */
#include "xs_columns.h"

#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define XS_HI_MASK 0xfffffffffc000000ull
/* Same constants as the one-row front end: see xs_window.h. */
#define XS_COLUMN_BINADES 14
#define XS_COLUMN_FLUSH_TERMS 8192
#define XS_COLUMN_MAX_TOP_EXP 1010

/* For every column of a group (XS_COLUMN_GROUP at most). */
typedef struct {
    double hi[XS_COLUMN_GROUP], lo[XS_COLUMN_GROUP];          /* exact lane sums */
    double top[XS_COLUMN_GROUP], bottom[XS_COLUMN_GROUP];     /* each column's window */
    ptrdiff_t in_lanes[XS_COLUMN_GROUP];                      /* 0: no window yet */
} xs_column_lanes;

typedef struct {
    double hi[XS_COLUMN_CHUNK], lo[XS_COLUMN_CHUNK];
    double max_abs[XS_COLUMN_CHUNK], min_abs[XS_COLUMN_CHUNK];
    double nan_seen[XS_COLUMN_CHUNK];                          /* non-zero: a NaN */
} xs_column_block;

static inline double hi_part(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    b &= XS_HI_MASK;
    memcpy(&x, &b, sizeof b);
    return x;
}

/* Block sums and ranges of `cols` columns over `rows` rows.  Built for the
 * baseline and, where the platform allows, AVX2 and AVX-512 too.  (The
 * accumulators go through L1 on every row: keeping strips of columns in
 * registers is the next step; see benchmarks/.) */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static void sum_block(const char *p, ptrdiff_t rows, int cols, ptrdiff_t row_stride,
                      xs_column_block *b)
{
    /* Separate restrict pointers: the compiler may then vectorise over j. */
    double *restrict hi = b->hi, *restrict lo = b->lo;
    double *restrict max_abs = b->max_abs, *restrict min_abs = b->min_abs;
    double *restrict nan_seen = b->nan_seen;
    for (int j = 0; j < cols; j++) {
        hi[j] = lo[j] = max_abs[j] = nan_seen[j] = 0.0;
        min_abs[j] = INFINITY;
    }
    for (ptrdiff_t r = 0; r < rows; r++, p += row_stride) {
        const double *restrict x = (const double *)(const void *)p;
        for (int j = 0; j < cols; j++) {
            double v = x[j], a = fabs(v), h = hi_part(v);
            hi[j] += h;
            lo[j] += v - h;
            max_abs[j] = a > max_abs[j] ? a : max_abs[j];
            min_abs[j] = (a != 0.0 && a < min_abs[j]) ? a : min_abs[j];
            nan_seen[j] += v != v ? 1.0 : 0.0;
        }
    }
}

static void flush_column(xs_small *acc, xs_column_lanes *l, int j)
{
    if (l->hi[j] != 0.0) {
        uint64_t bits;
        memcpy(&bits, &l->hi[j], sizeof bits);
        xs_small_add_bits(acc, bits);
    }
    if (l->lo[j] != 0.0) {
        uint64_t bits;
        memcpy(&bits, &l->lo[j], sizeof bits);
        xs_small_add_bits(acc, bits);
    }
    l->hi[j] = l->lo[j] = 0.0;
    l->in_lanes[j] = 0;
}

/* Column j of this block, value by value (it does not fit a window). */
static void add_column_slowly(xs_small *acc, const char *p, ptrdiff_t rows,
                              ptrdiff_t row_stride)
{
    for (ptrdiff_t r = 0; r < rows; r++, p += row_stride) {
        uint64_t bits;
        memcpy(&bits, p, sizeof bits);
        xs_small_add_bits(acc, bits);
    }
}

/* One block of rows for columns [c0, c0 + chunk) of the group. */
static void add_block(xs_small *accs, xs_column_lanes *lanes, xs_column_block *block,
                      const char *block_start, ptrdiff_t nrows, int c0, int chunk,
                      ptrdiff_t row_stride)
{
    sum_block(block_start, nrows, chunk, row_stride, block);
    for (int jj = 0; jj < chunk; jj++) {
        int j = c0 + jj;
        double mx = block->max_abs[jj], mn = block->min_abs[jj];
        int usable = block->nan_seen[jj] == 0.0 && mx > 0.0 && mx < INFINITY;
        if (usable && !(lanes->in_lanes[j] > 0 && mx < lanes->top[j] &&
                        mn >= lanes->bottom[j] &&
                        lanes->in_lanes[j] + nrows <= XS_COLUMN_FLUSH_TERMS)) {
            flush_column(&accs[j], lanes, j);
            int e;
            frexp(mx, &e);                      /* mx < 2^e */
            int top_exp = e + 1;
            int bottom_exp = top_exp - XS_COLUMN_BINADES;
            lanes->top[j] = ldexp(1.0, top_exp < 1023 ? top_exp : 1023);
            lanes->bottom[j] = bottom_exp < -1074 ? 0.0 : ldexp(1.0, bottom_exp);
            usable = top_exp <= XS_COLUMN_MAX_TOP_EXP && mn >= lanes->bottom[j];
        }
        if (!usable) {
            add_column_slowly(&accs[j], block_start + jj * (ptrdiff_t)sizeof(double),
                              nrows, row_stride);
            continue;
        }
        lanes->hi[j] += block->hi[jj];          /* exact: inside the window */
        lanes->lo[j] += block->lo[jj];
        lanes->in_lanes[j] += nrows;
        accs[j].flags |= XS_HAS_TERM | XS_NOT_NEG_ZERO;
    }
}

int xs_columns_add_float64(xs_small *accs, const char *p, ptrdiff_t rows, ptrdiff_t cols,
                           ptrdiff_t row_stride)
{
    if (cols > XS_COLUMN_GROUP) {
        return -1;
    }
    xs_column_lanes *lanes = malloc(sizeof *lanes);
    if (lanes == NULL) {
        return -1;
    }
    /* The additions are exact, but comparisons raise "invalid" on NaN. */
    fexcept_t flags_before;
    fegetexceptflag(&flags_before, FE_ALL_EXCEPT);
    xs_column_block block;
    for (ptrdiff_t j = 0; j < cols; j++) {
        lanes->hi[j] = lanes->lo[j] = 0.0;
        lanes->in_lanes[j] = 0;
    }
    /* Rows in memory order: a block of rows across every column, then the next. */
    for (ptrdiff_t r0 = 0; r0 < rows; r0 += XS_COLUMN_BLOCK_ROWS) {
        ptrdiff_t nrows = rows - r0 < XS_COLUMN_BLOCK_ROWS ? rows - r0 : XS_COLUMN_BLOCK_ROWS;
        for (int c0 = 0; c0 < (int)cols; c0 += XS_COLUMN_CHUNK) {
            int chunk = (int)(cols - c0 < XS_COLUMN_CHUNK ? cols - c0 : XS_COLUMN_CHUNK);
            add_block(accs, lanes, &block,
                      p + r0 * row_stride + c0 * (ptrdiff_t)sizeof(double), nrows, c0, chunk,
                      row_stride);
        }
    }
    for (int j = 0; j < (int)cols; j++) {
        flush_column(&accs[j], lanes, j);
    }
    free(lanes);
    fesetexceptflag(&flags_before, FE_ALL_EXCEPT);
    return 0;
}
