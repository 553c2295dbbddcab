/*
 * Exact column sums of float64 (or float32) rows whose columns are
 * contiguous: a reduction over a slow axis (axis=0 of a C-ordered array)
 * read row by row, in memory order, instead of one strided column at a time.
 *
 * Each column gets its own window on the fixed grid of xs_cells.h (a top
 * above its largest term; see there for the cuts and why the lane sums are
 * exact), and its cell sums.  Strips of eight neighbouring columns (one
 * cache line of a row) are cut and summed together down a block of rows,
 * one column per double lane, each lane with its own cut constants; the
 * eight columns of a strip share a cell count.  After the block each column
 * keeps its new sums when the block fitted its window; a column whose block
 * did not fit takes more cells, or a new window (its cells go into its small
 * accumulator first), and its block is summed again alone, or, fitting no
 * window, value by value into its small accumulator.
 *
 * A strip none of whose columns has a window yet (the first block) takes
 * its first windows from the range of the block's first few rows
 * (XS_COLUMN_SAMPLE_ROWS), then is cut as any other.  The group keeps its
 * windows and cell sums from one call to the next (cell 0 stays exact for
 * 2^46 carry steps, far more rows than any array: xs_cells.h), and a
 * column's small accumulator is made only when something goes into it.  A
 * column that never needed it is rounded from its cells: by one IEEE add
 * when two of them are non-zero (round_two), else from a two-double sum of
 * its few cells when that decides (xs_cells_round_sums); either skips the
 * accumulator entirely.
 *
 * float32 strips of two cells take the split kernel where the level has one
 * (the portable level on x86-64, xs_columns_variants.h): each term cut once
 * in float32 lanes, four to a vector, its rest summed as a double.  It holds
 * a block whose smallest term lies within XS_SPLIT32_SPAN binades of the
 * top; a strip takes it when its columns' last blocks did, with a margin
 * (split_kernel), and a column whose block it did not hold is summed again
 * by the cuts.
 */
#include "kernels/cells/xs_columns.h"
#include "kernels/cells/xs_cells.h"
#include "kernels/cells/xs_columns_variants.h"
#include "cpu/xs_cpu.h"
#include "exact/xs_types.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define XS_STRIPS (XS_COLUMN_GROUP / XS_STRIP)
_Static_assert(XS_COLUMN_BLOCK_ROWS % XS_COLUMN_CARRY_ROWS == 0,
               "a block of rows is a whole number of carry steps");

/* Element r of a column (float64 or float32) as a double. */
static inline double load_value(const char *p, int itemsize)
{
    if (itemsize == 8) {
        return xs_value_float64(p);
    }
    return xs_value_float32(p);
}

#if defined(__GNUC__) || defined(__clang__)
#define XS_PREFETCH(address) __builtin_prefetch(address)
#define XS_INLINE static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define XS_PREFETCH(address) ((void)0)
#define XS_INLINE static __forceinline
#else
#define XS_PREFETCH(address) ((void)0)
#define XS_INLINE static inline
#endif

/* A group of columns, strip by strip, lane by lane. */
struct xs_columns {
    int itemsize, precision;              /* float64: 8, 53; float32: 4, 24 */
    ptrdiff_t cols;
    double cells[XS_STRIPS][XS_CELLS_MAX + 1][XS_STRIP];   /* cell sums */
    double sigma[XS_STRIPS][XS_CELLS_MAX + 1][XS_STRIP];   /* cut constants */
    uint64_t max_limit[XS_COLUMN_GROUP], min_limit_m1[XS_COLUMN_GROUP];
    int top[XS_COLUMN_GROUP];
    int active[XS_COLUMN_GROUP];          /* a window is set (and a non-zero term in) */
    int strip_cells[XS_STRIPS];           /* K of the strip's windows */
    unsigned char used[XS_COLUMN_GROUP];  /* acc[j] made (it holds a part of the sum) */
    uint64_t last_min_m1[XS_COLUMN_GROUP];   /* the smallest non-zero |x| of its last
                                              * block (or sample), pattern - 1 */
    ptrdiff_t split_blocks;               /* strip blocks it summed and kept */
    ptrdiff_t hint_tries, hint_misses;    /* strips that took the last one's windows;
                                           * those that did not fit them (64 bits: one
                                           * strip of zeros tries every block) */
    xs_column_edges edges;                /* an edge group's (xs_columns_new_edges) */
    unsigned char *copy;                  /* its rows, copied: XS_EDGE_ROWS of `cols`
                                           * columns; NULL for other groups */
    xs_small acc[XS_COLUMN_GROUP];
};

/* Column j's small accumulator, made on first use. */
static xs_small *column_acc(xs_columns *st, int j)
{
    if (!st->used[j]) {
        xs_small_init(&st->acc[j]);
        st->used[j] = 1;
    }
    return &st->acc[j];
}

/* Each ISA's strip kernels: xs_columns_strip.h, instantiated with the ISA's
 * natural vector width (GCC and Clang vector extensions; the baseline's and
 * NEON's is 16 bytes); other compilers: the same per lane in plain C. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(XS_NO_VECTOR_EXT)
#ifdef XS_CPU_X86
#include <immintrin.h>
#endif
/* Parts of 2-lane vectors swept together (xs_columns_strip.h): as many as
 * keep a sweep's state in 16 registers, about. */
#define XS_COLUMNS_SWEEP_W2(K, itemsize) \
    ((K) == 1 ? 4 : (K) == 2 ? ((itemsize) == 4 ? 4 : 2) : (K) == 3 ? 2 : 1)
#define XS_CS_ISA generic
#define XS_CS_TARGET
#define XS_CS_W 2
#define XS_CS_SWEEP(K, itemsize) XS_COLUMNS_SWEEP_W2(K, itemsize)
#ifdef XS_CPU_X86
/* SSE2 has no 64-bit integer compare: the range on the top 16 bits of each
 * |x| (xs_top16.h), on the integer vector units, so that the two adders do
 * only the cuts and the cell sums (a double max and min took them: (1000,
 * 1000) normal columns 0.49 -> 0.45 ns per element, the paper's data 0.76
 * -> 0.69).  AVX2 (below) measures it the same way. */
#include "kernels/cells/xs_top16.h"
#define XS_CS_TOP16_RANGE 1
#define XS_CS_TOP16_MAX(a, b) _mm_max_epi16((__m128i)(a), (__m128i)(b))
#define XS_CS_TOP16_MIN(a, b) _mm_min_epi16((__m128i)(a), (__m128i)(b))
#define XS_CS_MAX16(a, b) _mm_max_epi16((__m128i)(a), (__m128i)(b))
#define XS_CS_MIN16(a, b) _mm_min_epi16((__m128i)(a), (__m128i)(b))
#define XS_CS_FP_UNORDF(a, b) _mm_cmpunord_ps((a), (b))
#define XS_CS_WIDEN32(q) _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(q))))
/* float32 strips of two cells split (xs_columns_strip.h, cs_split32), one
 * float32 vector of four lanes at a time (two: the sweep's state spills;
 * Zen 5, float32 lognormal(0, 3) (1000, 1000) columns, ns per element: the
 * cuts 0.37, the split two vectors a sweep 0.32-0.34, one 0.29-0.30). */
#define XS_CS_SPLIT32_SWEEP 1
#define XS_CS_WIDEN_HALVES(g, lo, hi) do { \
        __m128 g_ = (__m128)(g); \
        (lo) = (XS_CS_VD)_mm_cvtps_pd(g_); \
        (hi) = (XS_CS_VD)_mm_cvtps_pd(_mm_movehl_ps(g_, g_)); \
    } while (0)
#endif
#include "kernels/cells/xs_columns_strip.h"
#ifdef XS_CPU_X86
#define XS_COLUMNS_X86 1
#define XS_CS_ISA avx2
#define XS_CS_TARGET XS_TARGET_AVX2
#define XS_CS_W 4
/* AVX2's signed 64-bit compare needs a blend after it: the range on the
 * top 16 bits, as SSE2's, with 16-bit maxima and minima on the integer
 * vector units.  A max and a min of doubles (one instruction each, until
 * stop 47) took the adders beside the cell sums (Zen 5, normal and
 * lognormal(0, 3) (1000, 1000) columns 0.23 -> 0.21 ns per element; the
 * paper's data did not move). */
#define XS_CS_TOP16_RANGE 1
#define XS_CS_TOP16_MAX(a, b) _mm256_max_epi16((__m256i)(a), (__m256i)(b))
#define XS_CS_TOP16_MIN(a, b) _mm256_min_epi16((__m256i)(a), (__m256i)(b))
#define XS_CS_MAXU32(a, b) _mm256_max_epu32((__m256i)(a), (__m256i)(b))
#define XS_CS_MINU32(a, b) _mm256_min_epu32((__m256i)(a), (__m256i)(b))
#define XS_CS_FP_UNORDF(a, b) _mm256_cmp_ps((a), (b), _CMP_UNORD_Q)
#define XS_CS_WIDEN32(q) _mm256_cvtps_pd(_mm_loadu_ps((const float *)(q)))
#define XS_CS_CUT_SUB(a, b) _mm256_fmsub_pd((a), _mm256_set1_pd(1.0), (b))
#define XS_CS_SWEEP(K, itemsize) 2                 /* the whole strip */
/* No float32 split strips (XS_CS_WIDEN_HALVES): with eight float32 lanes
 * to two 4-lane double vectors, its cuts already run on the multiply-add
 * units, and the split was slower (Zen 5, float32 lognormal(0, 3) (1000,
 * 1000) columns 0.171 -> 0.191 ns per element, its subtractions on the
 * multiply-add units too). */
#include "kernels/cells/xs_columns_strip.h"
#define XS_CS_ISA avx512
#define XS_CS_TARGET XS_TARGET_AVX512
#define XS_CS_W 8
/* float32 rows: the AVX2 instance's strips (see `avx512` below). */
#define XS_CS_F64_ONLY 1
#include "kernels/cells/xs_columns_strip.h"
#endif
#ifdef XS_CPU_NEON
/* aarch64: the same 2-lane vectors as the portable instance (GCC and Clang
 * make them Advanced SIMD registers), a level of its own for the tests. */
#define XS_CS_ISA neon
#define XS_CS_TARGET
#define XS_CS_W 2
#define XS_CS_SWEEP(K, itemsize) XS_COLUMNS_SWEEP_W2(K, itemsize)
#include "kernels/cells/xs_columns_strip.h"
#endif
#else
/* The range of a strip's block, lane by lane, on the bit patterns of |x|
 * (unsigned order is magnitude order; |x| - 1 turns 0 into the largest
 * value, out of the minimum). */
#define XS_RANGE_INIT \
    uint64_t mx[XS_STRIP], mn[XS_STRIP]; \
    for (int k = 0; k < XS_STRIP; k++) { \
        mx[k] = 0; \
        mn[k] = UINT64_MAX; \
    }
#define XS_RANGE_STEP(v) \
    for (int k = 0; k < XS_STRIP; k++) { \
        uint64_t a = xs_double_bits((v)[k]) & XS_CELLS_ABS_BITS; \
        mx[k] = a > mx[k] ? a : mx[k]; \
        mn[k] = a - 1 < mn[k] ? a - 1 : mn[k]; \
    }
#define XS_RANGE_END(b) { \
        memcpy((b)->max_bits, mx, sizeof mx); \
        memcpy((b)->min_bits_m1, mn, sizeof mn); }

/* The strip's block with K cells: every row's eight values cut and added,
 * a carry step every XS_COLUMN_CARRY_ROWS rows, one column per lane (each
 * lane's operations the same, in the same order, whatever the width). */
XS_INLINE void strip_block_k(const char *q, ptrdiff_t rows, ptrdiff_t row_stride, int K,
                             int itemsize, const double (*sigma)[XS_STRIP], xs_strip_block *b)
{
    double acc[XS_CELLS_MAX + 1][XS_STRIP];
    memcpy(acc, b->cells, sizeof acc);
    XS_RANGE_INIT
    for (ptrdiff_t r0 = 0; r0 < rows; r0 += XS_COLUMN_CARRY_ROWS) {
        ptrdiff_t r1 = rows - r0 < XS_COLUMN_CARRY_ROWS ? rows : r0 + XS_COLUMN_CARRY_ROWS;
        for (ptrdiff_t r = r0; r < r1; r++, q += row_stride) {
            double v[XS_STRIP];
            for (int k = 0; k < XS_STRIP; k++) {
                v[k] = load_value(q + k * itemsize, itemsize);
            }
            /* The next chunk of columns is read next: bring its line of
             * this row in now (integer arithmetic: the address may lie past
             * the array, which a prefetch may touch but C may not form). */
            XS_PREFETCH((const void *)((uintptr_t)q + XS_PREFETCH_BYTES(itemsize)));
            XS_RANGE_STEP(v)
            for (int c = 1; c < K; c++) {
                for (int k = 0; k < XS_STRIP; k++) {
                    double part = (v[k] + sigma[c][k]) - sigma[c][k];
                    v[k] -= part;
                    acc[c][k] += part;
                }
            }
            for (int k = 0; k < XS_STRIP; k++) {
                acc[K][k] += v[k];
            }
        }
        for (int c = K; c >= 1; c--) {
            for (int k = 0; k < XS_STRIP; k++) {
                double carry = (acc[c][k] + sigma[c - 1][k]) - sigma[c - 1][k];
                acc[c][k] -= carry;
                acc[c - 1][k] += carry;
            }
        }
    }
    memcpy(b->cells, acc, sizeof acc);
    XS_RANGE_END(b)
}

/* The range of a strip's block alone, no cuts (a strip with no window yet). */
XS_INLINE void strip_range(const char *q, ptrdiff_t rows, ptrdiff_t row_stride, int itemsize,
                           xs_strip_block *b)
{
    XS_RANGE_INIT
    for (ptrdiff_t r = 0; r < rows; r++, q += row_stride) {
        double v[XS_STRIP];
        for (int k = 0; k < XS_STRIP; k++) {
            v[k] = load_value(q + k * itemsize, itemsize);
        }
        XS_PREFETCH((const void *)((uintptr_t)q + XS_PREFETCH_BYTES(itemsize)));
        XS_RANGE_STEP(v)
    }
    XS_RANGE_END(b)
}

/* The same, K a constant in each instance, compiled for the baseline and,
 * on x86-64 with GCC or Clang, for AVX2 and AVX-512 too (picked by
 * src/cpu/xs_cpu.h, under XSUMUFUNC_KERNEL's cap). */
#define XS_STRIP_BLOCK_TYPE(NAME, TARGET, ITEMSIZE) \
TARGET static void NAME(const char *q, ptrdiff_t rows, ptrdiff_t row_stride, int K, \
                        const double (*sigma)[XS_STRIP], xs_strip_block *b) \
{ \
    switch (K) { \
    case 1: strip_block_k(q, rows, row_stride, 1, ITEMSIZE, sigma, b); break; \
    case 2: strip_block_k(q, rows, row_stride, 2, ITEMSIZE, sigma, b); break; \
    case 3: strip_block_k(q, rows, row_stride, 3, ITEMSIZE, sigma, b); break; \
    default: strip_block_k(q, rows, row_stride, 4, ITEMSIZE, sigma, b); break; \
    } \
} \
TARGET static void NAME##_range(const char *q, ptrdiff_t rows, ptrdiff_t row_stride, \
                                xs_strip_block *b) \
{ \
    strip_range(q, rows, row_stride, ITEMSIZE, b); \
}
#define XS_STRIP_BLOCK(NAME, TARGET) \
    XS_STRIP_BLOCK_TYPE(NAME##_f64, TARGET, 8) \
    XS_STRIP_BLOCK_TYPE(NAME##_f32, TARGET, 4)
XS_STRIP_BLOCK(strip_block_generic, )
#endif

/* The kernels of each level (src/cpu/xs_cpu.h picks, under
 * XSUMUFUNC_KERNEL's cap). */
#ifdef XS_COLUMNS_X86
#define XS_SPLIT32_GENERIC strip_block_f32_split_generic
#else
#define XS_SPLIT32_GENERIC NULL
#endif
static const xs_strip_kernels generic = {strip_block_generic_f64, strip_block_generic_f32,
                                         strip_block_generic_f64_range, strip_block_generic_f32_range,
                                         XS_SPLIT32_GENERIC};
#ifdef XS_COLUMNS_X86
static const xs_strip_kernels avx2 = {strip_block_avx2_f64, strip_block_avx2_f32,
                                      strip_block_avx2_f64_range, strip_block_avx2_f32_range,
                                      NULL};
/* AVX-512 CPUs sum float32 columns with the AVX2 strips: two 4-lane parts
 * whose range is measured on the float32 patterns, unwidened, with 32-bit
 * maxima and minima, and one-cell blocks in fours of rows (an 8-lane part
 * has neither: xs_columns_strip.h).  Float32 (1000, 1000) columns, normal /
 * lognormal(0, 3), ns per element, the AVX-512 strips -> the AVX2 ones:
 * Zen 4 0.29-0.30 / 0.35-0.36 -> 0.21 / 0.28, Zen 5 0.19 / 0.22 ->
 * 0.14 / 0.18.  float64 strips stay 8 lanes wide (Zen 4, normal columns:
 * 0.26-0.30 against 0.33-0.38; docs/performance.md). */
static const xs_strip_kernels avx512 = {strip_block_avx512_f64, strip_block_avx2_f32,
                                        strip_block_avx512_f64_range, strip_block_avx2_f32_range,
                                        NULL};
#endif
#if defined(XS_CPU_NEON) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(XS_NO_VECTOR_EXT)
static const xs_strip_kernels neon = {strip_block_neon_f64, strip_block_neon_f32,
                                      strip_block_neon_f64_range, strip_block_neon_f32_range, NULL};
#endif
const void *const xs_columns_variants[XS_ISA_COUNT] = {
    [XS_ISA_GENERIC] = &generic,
#ifdef XS_COLUMNS_X86
    [XS_ISA_AVX2] = &avx2, [XS_ISA_AVX512] = &avx512,
#endif
#if defined(XS_CPU_NEON) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(XS_NO_VECTOR_EXT)
    [XS_ISA_NEON] = &neon,
#endif
};

static const xs_strip_kernels *pick_strip_kernels(void)
{
    return xs_cpu_pick(xs_columns_variants);
}

/* Column k of strip s (column j of the group) takes window w's top with the
 * strip's cell count: cut constants and limits.  These fields (sigma,
 * max_limit, min_limit_m1, top, with strip_cells) are a column's window;
 * neighbour_windows copies the same ones from the strip to the left. */
static void set_column(xs_columns *st, int s, int k, int top)
{
    int j = s * XS_STRIP + k;
    xs_cells_window w;
    xs_cells_set_window(&w, st->precision, top, st->strip_cells[s]);
    for (int c = 0; c <= XS_CELLS_MAX; c++) {
        st->sigma[s][c][k] = w.sigma[c];
    }
    st->max_limit[j] = w.max_limit;
    st->min_limit_m1[j] = w.min_limit_m1;
    st->top[j] = top;
}

/* Column j's cell sums into its small accumulator (exact), cleared. */
static void flush_column(xs_columns *st, int j)
{
    int s = j / XS_STRIP, k = j % XS_STRIP;
    for (int c = 0; c <= XS_CELLS_MAX; c++) {
        double v = st->cells[s][c][k];
        if (v != 0.0) {
            xs_small_add_bits(column_acc(st, j), xs_double_bits(v));
        }
        st->cells[s][c][k] = 0.0;
    }
}

/* The columns slow[0..count) of strip s in this block, value by value, row
 * by row: the strip's line of each row is read once, not once per column
 * (the block's lines do not all stay in the first-level cache), and the
 * columns' accumulators take turns (Zen 4, (1000, 1000) columns of
 * exponents over the whole range: 4.2 -> 3.5 ns a term). */
static void add_columns_slowly(xs_columns *st, int s, const int *slow, int count, const char *p,
                               ptrdiff_t rows, ptrdiff_t row_stride)
{
    xs_small *acc[XS_STRIP];
    ptrdiff_t offset[XS_STRIP];
    for (int m = 0; m < count; m++) {
        acc[m] = column_acc(st, s * XS_STRIP + slow[m]);
        offset[m] = slow[m] * (ptrdiff_t)st->itemsize;
    }
    for (ptrdiff_t r = 0; r < rows; r++, p += row_stride) {
        for (int m = 0; m < count; m++) {
            xs_small_add_bits(acc[m], xs_double_bits(load_value(p + offset[m], st->itemsize)));
        }
    }
}

/* Column k of strip s alone, into its stored cell sums (the block fits its
 * window now): the cuts of strip_block_k, one lane. */
static void add_column_cells(xs_columns *st, int s, int k, const char *p, ptrdiff_t rows,
                             ptrdiff_t row_stride)
{
    int K = st->strip_cells[s];
    double (*sigma)[XS_STRIP] = st->sigma[s];
    double acc[XS_CELLS_MAX + 1];
    for (int c = 0; c <= XS_CELLS_MAX; c++) {
        acc[c] = st->cells[s][c][k];
    }
    for (ptrdiff_t r0 = 0; r0 < rows; r0 += XS_COLUMN_CARRY_ROWS) {
        ptrdiff_t r1 = rows - r0 < XS_COLUMN_CARRY_ROWS ? rows : r0 + XS_COLUMN_CARRY_ROWS;
        for (ptrdiff_t r = r0; r < r1; r++, p += row_stride) {
            double v = load_value(p, st->itemsize);
            for (int c = 1; c < K; c++) {
                double part = (v + sigma[c][k]) - sigma[c][k];
                v -= part;
                acc[c] += part;
            }
            acc[K] += v;
        }
        for (int c = K; c >= 1; c--) {
            double carry = (acc[c] + sigma[c - 1][k]) - sigma[c - 1][k];
            acc[c] -= carry;
            acc[c - 1] += carry;
        }
    }
    for (int c = 0; c <= XS_CELLS_MAX; c++) {
        st->cells[s][c][k] = acc[c];
    }
}

/* Whether a block of range (mx, mn) fits column j's window.  All zeros fit
 * only a column with a non-zero term in already (their signs decide a zero
 * sum: value by value otherwise). */
static inline int fits_column(const xs_columns *st, int j, uint64_t mx, uint64_t mn)
{
    return mx < st->max_limit[j] && mn >= st->min_limit_m1[j] && (mx != 0 || st->active[j]);
}

/* A new window's top is raised above its block's largest term (and the
 * headroom of xs_cells.h) by at most this many binades, as far as the
 * cells' span leaves at least XS_COLUMN_ROOM_BELOW binades below the
 * block's smallest non-zero term: then a later block of larger terms moves
 * the window, which sums the strip's block again, less often.  The largest
 * terms of a few hundred rows of spread data (lognormal(0, 3)) vary by a
 * few binades from block to block; the smallest (of normal data, say) by
 * more. */
#define XS_COLUMN_EXTRA_HEADROOM 4
#define XS_COLUMN_ROOM_BELOW 10
/* A float32 strip's first rows whose cells leave fewer binades than this
 * below a column's smallest term: the strip takes a cell more at once
 * (sample_windows; normal data leaves 10 or more as a rule: one cell). */
#define XS_COLUMN_ROOM_SHORT 5

/* Binades that `cells` cells under `top` leave below the quantum of the
 * smallest non-zero |x| (pattern mn + 1; not all zero). */
static int room_below(int precision, int top, int cells, uint64_t mn)
{
    int f = (int)((mn + 1) >> XS_F64_MANT_BITS);
    int quantum = f - XS_CELLS_EXP_BIAS - (precision - 1);     /* of the smallest term */
    return quantum + cells * XS_CELLS_WIDTH - top;
}

/* The top for a new window chosen at `top` for a block whose smallest
 * non-zero |x| has the pattern mn + 1: raised as above, as far as `cells`
 * cells hold the block (any top keeps the sums exact: xs_cells.h). */
static int raised_top(int precision, int top, int cells, uint64_t mn, int extra)
{
    if (mn == UINT64_MAX) {
        return top;
    }
    int spare = room_below(precision, top, cells, mn) - XS_COLUMN_ROOM_BELOW;
    int raised = top + (spare < extra ? spare : extra);
    raised = raised > XS_CELLS_TOP_MAX ? XS_CELLS_TOP_MAX : raised;
    return raised > top && xs_cells_needed(precision, raised, mn) <= cells ? raised : top;
}

/* Column k of strip s (column j) takes a new window for a range (mx, mn)
 * of its terms, its cells into its small accumulator first: 1 and the
 * window's top and cells; 0 when no window fits that range.  The top is
 * raised by up to `extra` binades (raised_top); if `grow`, by all of them
 * whatever room that leaves below, with a cell more if it needs one. */
static int new_window(xs_columns *st, int s, int k, uint64_t mx, uint64_t mn, int extra,
                      int grow, int *top, int *cells)
{
    int j = s * XS_STRIP + k, chosen, cells_needed;
    if (!xs_cells_pick(st->precision, mx, mn, &chosen, &cells_needed)) {
        return 0;
    }
    if (st->active[j]) {
        flush_column(st, j);
    }
    /* A strip runs the cells of its widest window: a column may take them
     * for a higher top at no cost (float32 columns of spread data, whose
     * strip needs two cells, one column of which would hold its first
     * rows: their first block summed again in most strips otherwise). */
    int room = st->strip_cells[s] > cells_needed ? st->strip_cells[s] : cells_needed;
    *top = raised_top(st->precision, chosen, room, mn, extra);
    *cells = xs_cells_needed(st->precision, *top, mn);
    int full = chosen + extra > XS_CELLS_TOP_MAX ? XS_CELLS_TOP_MAX : chosen + extra;
    int more = xs_cells_needed(st->precision, full, mn);
    if (grow && *top < full && more <= XS_CELLS_MAX) {
        *top = full;              /* any top keeps the sums exact (xs_cells.h) */
        *cells = more;
    }
    st->active[j] = 1;            /* a non-zero term: see xs_columns_round */
    return 1;
}

/* Column k of strip s takes the window of top `top` and `cells` cells (the
 * strip's other columns more cells too, if it needs more: the same grids,
 * no flush). */
static void use_window(xs_columns *st, int s, int k, int top, int cells)
{
    if (cells > st->strip_cells[s]) {
        st->strip_cells[s] = cells;
        for (int kk = 0; kk < XS_STRIP; kk++) {
            if (st->active[s * XS_STRIP + kk] && kk != k) {
                set_column(st, s, kk, st->top[s * XS_STRIP + kk]);
            }
        }
    }
    set_column(st, s, k, top);
}

/* Column k of strip s when its block (of range mx, mn) did not fit its
 * window: more cells, or a new window (its cells into its small accumulator
 * first), and 1: the block is to be summed again; or, fitting no window, 0
 * (the caller adds the block value by value). */
static int settle_column(xs_columns *st, int s, int k, uint64_t mx, uint64_t mn)
{
    int j = s * XS_STRIP + k;
    int top = st->top[j], cells;
    if (!(st->active[j] && mx < st->max_limit[j] &&
          (cells = xs_cells_needed(st->precision, top, mn)) <= XS_CELLS_MAX) &&
        !new_window(st, s, k, mx, mn, XS_COLUMN_EXTRA_HEADROOM, 0, &top, &cells)) {
        return 0;
    }
    use_window(st, s, k, top, cells);
    return 1;
}

/* Rows of a strip's first block whose range sets its columns' first
 * windows: a few, so that the block is read once from memory, by the cuts
 * (a range pass over the whole block first cost (100, 10000) columns a
 * sixth of their time).  A column whose block does not fit the window after
 * all settles as any other (settle_column), at the cost of a second pass
 * over the strip's block. */
#define XS_COLUMN_SAMPLE_ROWS 16
/* Binades a window from those rows is raised above their largest term
 * (beyond XS_CELLS_HEADROOM): the largest of 16 rows lies below that of a
 * block (256 to 511 rows) by a few binades as a rule, of lognormal(0, 3)
 * data by about 5 (1.2 standard deviations more of log2|x|, 4.3 binades
 * each) and more at times, which a raise of XS_COLUMN_EXTRA_HEADROOM misses
 * in one column of ten (with this raise, such float64 columns sum 5% of
 * their strip blocks twice; float32 ones 2%: see sample_windows).  float64
 * columns take a cell more for it when they must (the paper's data: the
 * rows' spread needs the cell anyway); float32 ones do not (one cell holds
 * most float32 columns, two would cost more than the rare second pass). */
#define XS_COLUMN_SAMPLE_HEADROOM 10

/* The first windows of strip s (none of its columns has one), from the
 * range of the first rows of its block at p; a column whose rows fit no
 * window (all zeros, say) keeps none. */
static void sample_windows(xs_columns *st, int s, const xs_strip_kernels *kernels,
                           const char *p, ptrdiff_t rows, ptrdiff_t row_stride)
{
    xs_strip_block b;
    ptrdiff_t sample = rows < XS_COLUMN_SAMPLE_ROWS ? rows : XS_COLUMN_SAMPLE_ROWS;
    (st->itemsize == 8 ? kernels->range64 : kernels->range32)(p, sample, row_stride, &b);
    /* float32: first the cells the strip will run (none of its columns has
     * a window yet), so that every column's window may use them
     * (new_window): the most its columns need, and a cell more for a column
     * of spread data, whose cells leave fewer than XS_COLUMN_ROOM_SHORT
     * binades below the smallest of these rows (the block's smallest, a few
     * binades below, need it).  (float64 windows take all the raise they
     * can, with a cell more if need be: `grow` below.) */
    for (int k = 0; k < XS_STRIP && st->precision != 53; k++) {
        int top, cells;
        uint64_t mn = b.min_bits_m1[k];
        if (!xs_cells_pick(st->precision, b.max_bits[k], mn, &top, &cells)) {
            continue;
        }
        if (mn != UINT64_MAX && cells < XS_CELLS_MAX &&
                room_below(st->precision, top, cells, mn) < XS_COLUMN_ROOM_SHORT) {
            cells++;
        }
        st->strip_cells[s] = cells > st->strip_cells[s] ? cells : st->strip_cells[s];
    }
    for (int k = 0; k < XS_STRIP; k++) {
        int top, cells;
        st->last_min_m1[s * XS_STRIP + k] = b.min_bits_m1[k];    /* (split_kernel) */
        if (new_window(st, s, k, b.max_bits[k], b.min_bits_m1[k], XS_COLUMN_SAMPLE_HEADROOM,
                       st->precision == 53, &top, &cells)) {
            use_window(st, s, k, top, cells);
        }
    }
}

/* The strips of a group stop taking their neighbours' windows once more
 * than one in XS_COLUMN_HINT_RATE of those that took them did not fit
 * (columns of unlike scales: a second pass each), XS_COLUMN_HINT_SLACK
 * allowing for the first few (three misses in a row stop them).  A miss
 * costs a second pass, which sampled windows cost as often or more: the
 * windows of like columns miss for a few far-off terms either way (float32
 * normal (1000, 1000) columns, windows of one cell: 38 of 500 strip blocks
 * summed twice from samples, 16 from neighbours' windows; AVX2 0.175 ->
 * 0.152 ns per element). */
#define XS_COLUMN_HINT_RATE 4
#define XS_COLUMN_HINT_SLACK 8

/* Strip s (none of its columns has a window) takes the windows of strip
 * s - 1, when each of its columns has one: the columns of one block of rows
 * of like data fit their neighbours' windows as a rule, which spares the
 * sample's range pass and the choice of eight windows (a third of the time
 * of (100, 10000) columns, one block of rows each).  The windows take
 * effect for a column once its block fits (a non-zero term in: active);
 * one that does not fit settles as any other (settle_column: its window is
 * chosen from its block's range), at the cost of a second pass. */
static int neighbour_windows(xs_columns *st, int s)
{
    if (s == 0 || st->hint_misses * XS_COLUMN_HINT_RATE > st->hint_tries + XS_COLUMN_HINT_SLACK) {
        return 0;
    }
    int j0 = s * XS_STRIP;
    for (int k = 0; k < XS_STRIP; k++) {
        if (!st->active[j0 - XS_STRIP + k]) {
            return 0;
        }
    }
    st->strip_cells[s] = st->strip_cells[s - 1];
    memcpy(st->sigma[s], st->sigma[s - 1], sizeof st->sigma[s]);
    memcpy(&st->max_limit[j0], &st->max_limit[j0 - XS_STRIP], XS_STRIP * sizeof st->max_limit[0]);
    memcpy(&st->min_limit_m1[j0], &st->min_limit_m1[j0 - XS_STRIP],
           XS_STRIP * sizeof st->min_limit_m1[0]);
    memcpy(&st->top[j0], &st->top[j0 - XS_STRIP], XS_STRIP * sizeof st->top[0]);
    memcpy(&st->last_min_m1[j0], &st->last_min_m1[j0 - XS_STRIP],
           XS_STRIP * sizeof st->last_min_m1[0]);
    st->hint_tries++;
    return 1;
}

/* Binades a column's last block must leave above the split kernel's span
 * (xs_columns_variants.h) for its strip to take that kernel: the smallest
 * terms of lognormal(0, 3) blocks of a few hundred rows vary by a few
 * binades from block to block, and lie some 15 binades above the span;
 * the float32 columns of the paper's data lie below it (a block that does
 * not fit the span is summed twice: (1000, 1000) columns 0.39 -> 0.50 ns
 * per element, generic, when every strip tried it). */
#define XS_SPLIT32_MARGIN 4

/* Whether the smallest non-zero |x| of column j's block (pattern mn + 1)
 * lies `margin` binades or more above the split kernel's span under the
 * column's top. */
static inline int fits_split(const xs_columns *st, int j, uint64_t mn, int margin)
{
    uint64_t least = (uint64_t)(st->top[j] - XS_SPLIT32_SPAN + margin + XS_CELLS_EXP_BIAS)
                     << XS_F64_MANT_BITS;
    return mn >= least - 1;
}

/* The split kernel for strip s, or NULL: float32 rows, two cells, a level
 * that has one, every window's top within its limits, and every column's
 * last block XS_SPLIT32_MARGIN binades above its span. */
static xs_strip_split split_kernel(const xs_columns *st, int s, const xs_strip_kernels *kernels)
{
    if (st->itemsize != 4 || kernels->f32_split == NULL || st->strip_cells[s] != 2) {
        return NULL;
    }
    for (int j = s * XS_STRIP; j < (s + 1) * XS_STRIP; j++) {
        if (st->max_limit[j] != 0 &&
            (st->top[j] < XS_SPLIT32_TOP_MIN || st->top[j] > XS_SPLIT32_TOP_MAX ||
             !fits_split(st, j, st->last_min_m1[j], XS_SPLIT32_MARGIN))) {
            return NULL;
        }
    }
    return kernels->f32_split;
}

/* Strip s (columns 8s ... 8s + 7 of the group) of one block of rows,
 * starting at p: all eight lanes at once; the columns whose block did not
 * fit their window settle (settle_column), and the strip runs again for
 * them (a rare second pass: a window that moves).  A strip with no window
 * yet first takes its left neighbour's (neighbour_windows) or, failing
 * those, windows from its first rows (sample_windows).  A float32 strip of
 * two cells runs the split kernel first (split_kernel); a column whose block
 * fits its window but not the split's span runs again by the cuts. */
static void add_strip(xs_columns *st, int s, const char *p, ptrdiff_t rows, ptrdiff_t row_stride)
{
    const xs_strip_kernels *kernels = pick_strip_kernels();
    xs_strip_kernel kernel = st->itemsize == 8 ? kernels->f64 : kernels->f32;
    int j0 = s * XS_STRIP;
    int todo[XS_STRIP], none_active = 1;
    for (int k = 0; k < XS_STRIP; k++) {
        todo[k] = 1;
        none_active &= !st->active[j0 + k];
    }
    int hinted = none_active && neighbour_windows(st, s);
    if (none_active && !hinted) {
        sample_windows(st, s, kernels, p, rows, row_stride);
    }
    xs_strip_split split = split_kernel(st, s, kernels);
    for (int pass = 0; pass < 2; pass++) {
        xs_strip_block b;
        /* Cell by cell: one 320-byte memcpy is a string move here (rep
         * movsq), slow to start for so few bytes. */
        for (int c = 0; c <= XS_CELLS_MAX; c++) {
            memcpy(b.cells[c], st->cells[s][c], sizeof b.cells[c]);
        }
        const double (*sigma)[XS_STRIP] = (const double (*)[XS_STRIP])st->sigma[s];
        int split_now = pass == 0 && split != NULL;
        if (split_now) {
            split(p, rows, row_stride, sigma, &b);
        }
        else {
            kernel(p, rows, row_stride, st->strip_cells[s], sigma, &b);
        }
        if (pass == 0) {
            for (int k = 0; k < XS_STRIP; k++) {
                st->last_min_m1[j0 + k] = b.min_bits_m1[k];
            }
        }
        /* Every lane is judged against the limits the kernel ran with,
         * before a column that did not fit changes the strip's cells. */
        int again[XS_STRIP] = {0}, any = 0, settled = 0, kept = 0, slow[XS_STRIP], count = 0;
        for (int k = 0; k < XS_STRIP; k++) {
            if (todo[k] && fits_column(st, j0 + k, b.max_bits[k], b.min_bits_m1[k])) {
                if (split_now && !fits_split(st, j0 + k, b.min_bits_m1[k], 0)) {
                    again[k] = 1;              /* by the cuts, the same window */
                    any = 1;
                    continue;
                }
                for (int c = 0; c <= XS_CELLS_MAX; c++) {
                    st->cells[s][c][k] = b.cells[c][k];
                }
                st->active[j0 + k] = 1;        /* fits: a non-zero term went in */
                todo[k] = 0;
                kept = 1;
            }
        }
        st->split_blocks += split_now && kept;
        for (int k = 0; k < XS_STRIP; k++) {
            if (!todo[k] || again[k]) {
                continue;
            }
            /* Fitting no window; or settled, yet no fit in the second pass
             * (cannot happen: the window was made for this block): value by
             * value all the same. */
            if (pass == 0 && settle_column(st, s, k, b.max_bits[k], b.min_bits_m1[k])) {
                any = 1;
                settled = 1;
            }
            else {
                todo[k] = 0;
                slow[count++] = k;
            }
        }
        if (count > 0) {
            add_columns_slowly(st, s, slow, count, p, rows, row_stride);
        }
        if (!any) {
            break;
        }
        st->hint_misses += hinted && settled;
    }
}

/* Column k of the last, partial strip s (at `strip` in this block), alone:
 * its range, its window, its cells. */
static void add_leftover(xs_columns *st, int s, int k, const char *strip, ptrdiff_t rows,
                         ptrdiff_t row_stride)
{
    const char *column = strip + k * (ptrdiff_t)st->itemsize;
    uint64_t mx = 0, mn = UINT64_MAX;
    const char *q = column;
    for (ptrdiff_t r = 0; r < rows; r++, q += row_stride) {
        uint64_t a = xs_double_bits(load_value(q, st->itemsize)) & XS_CELLS_ABS_BITS;
        mx = a > mx ? a : mx;
        mn = a - 1 < mn ? a - 1 : mn;
    }
    if (fits_column(st, s * XS_STRIP + k, mx, mn) || settle_column(st, s, k, mx, mn)) {
        add_column_cells(st, s, k, column, rows, row_stride);
    }
    else {
        add_columns_slowly(st, s, &k, 1, strip, rows, row_stride);
    }
}

xs_columns *xs_columns_new(ptrdiff_t cols, int itemsize)
{
    if (cols < 1 || cols > XS_COLUMN_GROUP || (itemsize != 8 && itemsize != 4)) {
        return NULL;
    }
    xs_columns *st = malloc(sizeof *st);
    if (st == NULL) {
        return NULL;
    }
    st->itemsize = itemsize;
    st->precision = itemsize == 8 ? 53 : 24;
    st->cols = cols;
    st->hint_tries = 0;
    st->hint_misses = 0;
    st->edges = (xs_column_edges){0, 0};
    st->copy = NULL;
    int all_strips = (int)((cols + XS_STRIP - 1) / XS_STRIP);
    memset(st->cells, 0, (size_t)all_strips * sizeof st->cells[0]);
    memset(st->used, 0, (size_t)cols);
    memset(st->last_min_m1, 0xff, (size_t)cols * sizeof st->last_min_m1[0]);   /* none */
    st->split_blocks = 0;
    for (int s = 0; s < all_strips; s++) {
        st->strip_cells[s] = XS_CELLS_MIN;   /* float32 often needs no more */
        for (int k = 0; k < XS_STRIP; k++) {
            /* No window yet: constants that cut nothing out of range and
             * limits nothing fits. */
            int j = s * XS_STRIP + k;
            st->active[j] = 0;
            st->max_limit[j] = 0;
            st->min_limit_m1[j] = UINT64_MAX;
            for (int c = 0; c <= XS_CELLS_MAX; c++) {
                st->sigma[s][c][k] = 1.0;
            }
        }
    }
    return st;
}

static _Atomic ptrdiff_t split_blocks_freed = 0;

ptrdiff_t xs_columns_split_blocks(void)
{
    return atomic_load_explicit(&split_blocks_freed, memory_order_relaxed);
}

void xs_columns_free(xs_columns *st)
{
    if (st != NULL) {
        free(st->copy);
        /* once per group, not per block: the groups of other threads share
         * no line while they run */
        atomic_fetch_add_explicit(&split_blocks_freed, st->split_blocks, memory_order_relaxed);
    }
    free(st);
}

/* Edges apart from this many columns on (Zen 4, AVX2, float64 normal
 * columns 16 bytes into a line, ns per element: (1000, 1000) 0.346 ->
 * 0.311, (100, 10000) 0.454 -> 0.415, (1000, 1004) 0.365 -> 0.314; but
 * (3000, 72) 0.334 -> 0.368: the copy and the edge group's strips cost
 * some 5 ns a row, a strip across two lines 0.04 ns an element more than
 * on one).  Rows that start on a line keep their leftover columns (summed
 * one by one): through the copy, (2000, 250) took 0.339 -> 0.385. */
#define XS_EDGE_MIN_COLS 256

xs_column_edges xs_columns_edges(const char *p, ptrdiff_t cols, ptrdiff_t row_stride,
                                 int itemsize)
{
    xs_column_edges none = {0, 0}, e;
    const ptrdiff_t strip_bytes = XS_STRIP * (ptrdiff_t)itemsize;
    ptrdiff_t off = (ptrdiff_t)((uintptr_t)p % (uintptr_t)strip_bytes);
    if (row_stride % strip_bytes != 0 || off % itemsize != 0) {
        return none;
    }
    e.head = off == 0 ? 0 : (strip_bytes - off) / itemsize;
    e.tail = (cols - e.head) % XS_STRIP;
    return e.head > 0 && cols >= XS_EDGE_MIN_COLS ? e : none;
}

/* Rows of the edges copied at once: up to two blocks (16 to 64 KB). */
#define XS_EDGE_ROWS (2 * XS_COLUMN_BLOCK_ROWS)

xs_columns *xs_columns_new_edges(xs_column_edges e, int itemsize)
{
    /* head, tail < XS_STRIP: at most two strips, copied rows of 128 bytes */
    ptrdiff_t cols = (e.head + e.tail + XS_STRIP - 1) / XS_STRIP * XS_STRIP;
    xs_columns *st = xs_columns_new(cols, itemsize);
    if (st == NULL) {
        return NULL;
    }
    /* zeros in the columns past head + tail: sums of 0, never rounded */
    st->copy = calloc(XS_EDGE_ROWS, (size_t)(cols * itemsize));
    if (st->copy == NULL) {
        free(st);
        return NULL;
    }
    st->edges = e;
    return st;
}

void xs_columns_add_edges(xs_columns *st, const char *p, ptrdiff_t cols, ptrdiff_t rows,
                          ptrdiff_t row_stride)
{
    const size_t head_bytes = (size_t)(st->edges.head * st->itemsize);
    const size_t tail_bytes = (size_t)(st->edges.tail * st->itemsize);
    const ptrdiff_t copy_stride = st->cols * st->itemsize;
    const char *tail = p + (cols - st->edges.tail) * st->itemsize;
    for (ptrdiff_t r0 = 0, n; r0 < rows; r0 += n) {
        /* blocks of XS_COLUMN_BLOCK_ROWS, the last one up to twice as long
         * (as xs_columns_add shares them) */
        n = rows - r0 < XS_EDGE_ROWS ? rows - r0 : XS_COLUMN_BLOCK_ROWS;
        for (ptrdiff_t r = 0; r < n; r++) {
            unsigned char *to = st->copy + r * copy_stride;
            ptrdiff_t at = (r0 + r) * row_stride;
            memcpy(to, p + at, head_bytes);
            memcpy(to + head_bytes, tail + at, tail_bytes);
        }
        xs_columns_add(st, (const char *)st->copy, n, copy_stride);
    }
}

void xs_columns_add(xs_columns *st, const char *p, ptrdiff_t rows, ptrdiff_t row_stride)
{
    /* The cuts are inexact by design and a NaN/Inf term raises "invalid":
     * keep the caller's flags as they were. */
    fexcept_t flags_before;
    fegetexceptflag(&flags_before, FE_ALL_EXCEPT);
    int strips = (int)(st->cols / XS_STRIP);
    int itemsize = st->itemsize;
    /* Rows in memory order: a block of rows across every column, then the
     * next; the rows shared evenly by as many blocks as there are whole
     * XS_COLUMN_BLOCK_ROWS in them (a short block at the end would cost
     * every strip its fixed cost for a few rows). */
    ptrdiff_t blocks = rows / XS_COLUMN_BLOCK_ROWS > 1 ? rows / XS_COLUMN_BLOCK_ROWS : 1;
    for (ptrdiff_t b = 0, r0 = 0; b < blocks; b++) {
        ptrdiff_t nrows = rows * (b + 1) / blocks - r0;
        const char *block = p + r0 * row_stride;
        for (int s = 0; s < strips; s++) {
            add_strip(st, s, block + s * XS_STRIP * (ptrdiff_t)itemsize, nrows, row_stride);
        }
        /* Columns beyond the last whole strip, one by one. */
        for (int j = strips * XS_STRIP; j < (int)st->cols; j++) {
            add_leftover(st, strips, j - strips * XS_STRIP,
                         block + strips * XS_STRIP * (ptrdiff_t)itemsize, nrows, row_stride);
        }
        r0 += nrows;
    }
    fesetexceptflag(&flags_before, FE_ALL_EXCEPT);
}

/* The exact sum a + b of two doubles, rounded once into fmt, by IEEE's own
 * rounding (round to nearest: every loop runs in it): 1 and *out for
 * float64, and for float32 when a + b is a double (TwoSum's error is 0),
 * whose conversion then rounds once; 0 when the result would overflow or
 * be subnormal (the accumulator's rounding decides those, flags and all),
 * or for another format.  A column of two non-zero cells (the usual: a
 * float64 window of two cells, a float32 one of one, and cell 0) is rounded
 * so, several times faster than by xs_cells_round_sums: (100, 10000)
 * columns spent a sixth of their time rounding. */
static int round_two(double a, double b, const xs_format *fmt, double *out)
{
    double r = a + b;
    if (fmt == &xs_format_float64) {
        *out = r;
        return r == 0.0 || (fabs(r) >= DBL_MIN && fabs(r) <= DBL_MAX);
    }
    double b_virtual = r - a;
    double error = (a - (r - b_virtual)) + (b - b_virtual);
    if (fmt != &xs_format_float32 || error != 0.0 ||
        !(r == 0.0 || (fabs(r) >= FLT_MIN && fabs(r) <= FLT_MAX))) {
        return 0;
    }
    *out = (double)(float)r;
    return 1;
}

double xs_columns_round(xs_columns *st, ptrdiff_t j, uint64_t divisor, const xs_format *fmt)
{
    int s = (int)(j / XS_STRIP), k = (int)(j % XS_STRIP);
    double result;
    if (!st->used[j] && st->active[j]) {
        /* The whole sum is in the cells: 0 .. the strip's cell count (the
         * cells above it are zeros, which only cost the rounding time:
         * (100, 10000) columns spend a sixth of theirs here). */
        double sums[XS_CELLS_MAX + 1];
        int count = st->strip_cells[s] + 1, nonzero = 0;
        double two[2] = {0.0, 0.0};
        for (int c = 0; c < count; c++) {
            sums[c] = st->cells[s][c][k];
            if (sums[c] != 0.0) {
                two[nonzero & 1] = sums[c];
                nonzero++;
            }
        }
        if (divisor == 1u && nonzero <= 2 && round_two(two[0], two[1], fmt, &result)) {
            return result;
        }
        if (xs_cells_round_sums(sums, count, divisor, fmt, &result)) {
            return result;
        }
    }
    flush_column(st, (int)j);
    xs_small *acc = column_acc(st, (int)j);
    if (st->active[j]) {
        acc->flags |= XS_HAS_TERM | XS_NOT_NEG_ZERO;     /* a non-zero term went in */
    }
    return xs_small_round_divided(acc, divisor, fmt);
}
