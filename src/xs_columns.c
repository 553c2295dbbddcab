/*
 * Exact column sums of a block of float64 rows whose columns are contiguous:
 * a reduction over a slow axis (axis=0 of a C-ordered array) read row by
 * row, in memory order, instead of one strided column at a time.
 *
 * Each column gets its own exponent window of XS_COLUMN_BINADES binades
 * [2^E, 2^(E+D)) and hi/lo lanes: a term in it is split into hi, its top 27
 * significant bits (a multiple of 2^(E-26) below 2^(E+D)), and lo = x - hi
 * (a multiple of 2^(E-52) below 2^(E+D-27)), so 2^(27-D) of each add up
 * exactly in a double (below 2^53 quanta).  A block of rows
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
/* D = 14: 2^(27-14) = 8192 terms per lane add up exactly (rows use
 * fixed-grid cells instead, xs_cells.h). */
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
} xs_column_block;

static inline double hi_part(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    b &= XS_HI_MASK;
    memcpy(&x, &b, sizeof b);
    return x;
}

/* Strips of eight columns: one 64-byte line of a row. */
#define XS_STRIP 8
/* Prefetch distance: the same line of the next chunk of columns. */
#define XS_PREFETCH_BYTES (XS_COLUMN_CHUNK * (ptrdiff_t)sizeof(double))

/* GCC and Clang: a strip as one value of their vector extensions, lowered to
 * one AVX-512 register, two AVX2 or four SSE2 ones.  Other compilers (MSVC)
 * or -DXS_NO_VECTOR_EXT: the same operations on an array of eight doubles,
 * lane by lane; each lane sees the same values in the same order, so the
 * results are the same bits. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(XS_NO_VECTOR_EXT)
#define XS_COLUMN_VECTORS 1
typedef double xs_v8d __attribute__((vector_size(64)));
typedef int64_t xs_v8i __attribute__((vector_size(64)));

/* Lane-wise m ? a : b, for masks of all ones or all zeros per lane.  (A
 * macro: a function returning a 64-byte vector would need AVX-512's ABI.) */
#define XS_SELECT8(m, a, b) ((xs_v8d)(((xs_v8i)(a) & (m)) | ((xs_v8i)(b) & ~(m))))
#endif

#if defined(__GNUC__) || defined(__clang__)
#define XS_PREFETCH(address) __builtin_prefetch(address)
#else
#define XS_PREFETCH(address) ((void)0)
#endif

/* Block sums and ranges of `cols` columns over `rows` rows.  Strips of eight
 * columns are summed down the rows with their sums and ranges in registers
 * (each row's strip is one cache line); leftover columns one by one.  A NaN
 * makes hi or lo NaN (a NaN's hi part is NaN or Inf), so it needs no flag of
 * its own.  Built for the baseline and, where the platform allows, AVX2 and
 * AVX-512 too. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static void sum_block(const char *p, ptrdiff_t rows, int cols, ptrdiff_t row_stride,
                      xs_column_block *b)
{
    int c = 0;
#ifdef XS_COLUMN_VECTORS
    const xs_v8i hi_mask = (xs_v8i){0} + (int64_t)XS_HI_MASK;
    const xs_v8i abs_mask = (xs_v8i){0} + INT64_MAX;
    const xs_v8d zero = {0}, inf = zero + INFINITY;
    for (; c + XS_STRIP <= cols; c += XS_STRIP) {
        xs_v8d hi = zero, lo = zero, max_abs = zero, min_abs = inf;
        const char *q = p + c * (ptrdiff_t)sizeof(double);
        for (ptrdiff_t r = 0; r < rows; r++, q += row_stride) {
            xs_v8d v;
            memcpy(&v, q, sizeof v);
            /* The next chunk of columns is read next: bring its line of
             * this row in now (the rows are too far apart for the hardware
             * prefetcher).  Integer arithmetic: the address may lie past
             * the array, which a prefetch may touch but C may not form. */
            XS_PREFETCH((const void *)((uintptr_t)q + XS_PREFETCH_BYTES));
            xs_v8d h = (xs_v8d)((xs_v8i)v & hi_mask);
            hi += h;
            lo += v - h;
            xs_v8d a = (xs_v8d)((xs_v8i)v & abs_mask);
            max_abs = XS_SELECT8(a > max_abs, a, max_abs);
            xs_v8d a_nonzero = XS_SELECT8(a == zero, inf, a);
            min_abs = XS_SELECT8(a_nonzero < min_abs, a_nonzero, min_abs);
        }
        memcpy(b->hi + c, &hi, sizeof hi);
        memcpy(b->lo + c, &lo, sizeof lo);
        memcpy(b->max_abs + c, &max_abs, sizeof max_abs);
        memcpy(b->min_abs + c, &min_abs, sizeof min_abs);
    }
#else
    for (; c + XS_STRIP <= cols; c += XS_STRIP) {
        double hi[XS_STRIP], lo[XS_STRIP], max_abs[XS_STRIP], min_abs[XS_STRIP];
        for (int k = 0; k < XS_STRIP; k++) {
            hi[k] = lo[k] = max_abs[k] = 0.0;
            min_abs[k] = INFINITY;
        }
        const char *q = p + c * (ptrdiff_t)sizeof(double);
        for (ptrdiff_t r = 0; r < rows; r++, q += row_stride) {
            double v[XS_STRIP];
            memcpy(v, q, sizeof v);
            XS_PREFETCH((const void *)((uintptr_t)q + XS_PREFETCH_BYTES));
            for (int k = 0; k < XS_STRIP; k++) {
                double h = hi_part(v[k]), a = fabs(v[k]);
                hi[k] += h;
                lo[k] += v[k] - h;
                max_abs[k] = a > max_abs[k] ? a : max_abs[k];
                min_abs[k] = (a != 0.0 && a < min_abs[k]) ? a : min_abs[k];
            }
        }
        memcpy(b->hi + c, hi, sizeof hi);
        memcpy(b->lo + c, lo, sizeof lo);
        memcpy(b->max_abs + c, max_abs, sizeof max_abs);
        memcpy(b->min_abs + c, min_abs, sizeof min_abs);
    }
#endif
    for (; c < cols; c++) {
        double hi = 0.0, lo = 0.0, max_abs = 0.0, min_abs = INFINITY;
        const char *q = p + c * (ptrdiff_t)sizeof(double);
        for (ptrdiff_t r = 0; r < rows; r++, q += row_stride) {
            double v;
            memcpy(&v, q, sizeof v);
            double h = hi_part(v), a = fabs(v);
            hi += h;
            lo += v - h;
            max_abs = a > max_abs ? a : max_abs;
            min_abs = (a != 0.0 && a < min_abs) ? a : min_abs;
        }
        b->hi[c] = hi;
        b->lo[c] = lo;
        b->max_abs[c] = max_abs;
        b->min_abs[c] = min_abs;
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

/* Column j of this block when its largest value fits the window but some
 * smaller ones lie below it: those go to the small accumulator one by one,
 * the others into the lanes (exact: they are inside the window). */
static void add_column_split(xs_small *acc, xs_column_lanes *l, int j, const char *p,
                             ptrdiff_t rows, ptrdiff_t row_stride)
{
    double hi = 0.0, lo = 0.0;
    for (ptrdiff_t r = 0; r < rows; r++, p += row_stride) {
        double v;
        memcpy(&v, p, sizeof v);
        if (fabs(v) >= l->bottom[j]) {
            double h = hi_part(v);
            hi += h;
            lo += v - h;
        } else if (v != 0.0) {
            uint64_t bits;
            memcpy(&bits, &v, sizeof bits);
            xs_small_add_bits(acc, bits);
        }
    }
    l->hi[j] += hi;
    l->lo[j] += lo;
}

/* One block of rows for columns [c0, c0 + chunk) of the group. */
static void add_block(xs_small *accs, xs_column_lanes *lanes, xs_column_block *block,
                      const char *block_start, ptrdiff_t nrows, int c0, int chunk,
                      ptrdiff_t row_stride)
{
    sum_block(block_start, nrows, chunk, row_stride, block);
    for (int jj = 0; jj < chunk; jj++) {
        int j = c0 + jj;
        const char *column = block_start + jj * (ptrdiff_t)sizeof(double);
        double mx = block->max_abs[jj], mn = block->min_abs[jj];
        /* Inf/NaN, all zeros (their zero sign needs the exact path) and
         * huge values go value by value. */
        int usable = isfinite(block->hi[jj]) && isfinite(block->lo[jj]) &&
                     mx > 0.0 && mx < INFINITY;
        /* The window stays while the block's largest value is in its top
         * three binades; otherwise a new one, one binade above that value
         * (a window far above the values would send them all one by one). */
        if (usable && !(lanes->in_lanes[j] > 0 && mx < lanes->top[j] &&
                        mx >= lanes->top[j] * 0.125 &&
                        lanes->in_lanes[j] + nrows <= XS_COLUMN_FLUSH_TERMS)) {
            flush_column(&accs[j], lanes, j);
            int e;
            frexp(mx, &e);                      /* mx < 2^e */
            int top_exp = e + 1;
            int bottom_exp = top_exp - XS_COLUMN_BINADES;
            lanes->top[j] = ldexp(1.0, top_exp < 1023 ? top_exp : 1023);
            lanes->bottom[j] = bottom_exp < -1074 ? 0.0 : ldexp(1.0, bottom_exp);
            usable = top_exp <= XS_COLUMN_MAX_TOP_EXP;
        }
        if (!usable) {
            add_column_slowly(&accs[j], column, nrows, row_stride);
            continue;
        }
        if (mn >= lanes->bottom[j]) {
            lanes->hi[j] += block->hi[jj];      /* exact: inside the window */
            lanes->lo[j] += block->lo[jj];
        } else {
            add_column_split(&accs[j], lanes, j, column, nrows, row_stride);
        }
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
