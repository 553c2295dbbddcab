/* Exact float64 dot products on the fixed grid of cells (see xs_dot_cells.h). */
#include "kernels/dot/xs_dot_cells.h"
#include "kernels/cells/xs_cells.h"
#include "kernels/cells/xs_cells_blocks.h"
#include "kernels/dot/xs_dot_cells_variants.h"
#include "cpu/xs_cpu.h"

#include <fenv.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* Products of two float64 always need two cells at least (106 bits). */
#define XS_DOT_CELLS_MIN 2

#ifdef XS_CPU_X86
#define XS_DOT_CELLS_X86 1
#include <immintrin.h>

/* AVX2 with FMA: 4-double vectors, 1 chain (a carry step every 128
 * products: two chains need more than AVX2's 16 registers); the range in floating point
 * (no unsigned 64-bit min/max), turned into bit patterns at the end: the
 * largest |p| by vmaxpd, the smallest non-zero |a| and |b| as the minimum of
 * their bits minus 1 taken as doubles (a zero's turns into a NaN, which
 * vminpd skips as its first operand; so does a NaN's), and NaN products
 * seen through the last cell's lanes once a block: four registers, so that
 * the cell lanes stay in the other twelve. */
#define XS_DK_TARGET XS_TARGET_AVX2
#define XS_DK_V __m256d
#define XS_DK_VW 4
#define XS_DK_CHAINS 1
#define XS_DK_LOAD(p) _mm256_loadu_pd(p)
#define XS_DK_LOADU(p) _mm256_loadu_pd((const double *)(const void *)(p))
#define XS_DK_STORE(p, v) _mm256_storeu_pd((p), (v))
#define XS_DK_ADD(x, y) _mm256_add_pd((x), (y))
#define XS_DK_SUB(x, y) _mm256_sub_pd((x), (y))
#define XS_DK_MUL(x, y) _mm256_mul_pd((x), (y))
#define XS_DK_FMSUB(x, y, z) _mm256_fmsub_pd((x), (y), (z))
#define XS_DK_SET1(d) _mm256_set1_pd(d)
#define XS_DK_RANGE_INIT \
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x((long long)XS_CELLS_ABS_BITS)); \
    const __m256i one = _mm256_set1_epi64x(1); \
    __m256d max_p = _mm256_setzero_pd(), min_a = _mm256_set1_pd((double)INFINITY), min_b = min_a;
#define XS_DK_NONZERO_MIN(m, x) { \
        __m256i m_abs = _mm256_castpd_si256(_mm256_and_pd((x), abs_mask)); \
        m = _mm256_min_pd(_mm256_castsi256_pd(_mm256_sub_epi64(m_abs, one)), m); }
#define XS_DK_RANGE_STEP(va, vb, p) { \
        max_p = _mm256_max_pd(_mm256_and_pd((p), abs_mask), max_p); \
        XS_DK_NONZERO_MIN(min_a, va) \
        XS_DK_NONZERO_MIN(min_b, vb) }
#define XS_DK_CELLS_NAN(v) (_mm256_movemask_pd(_mm256_cmp_pd((v), (v), _CMP_UNORD_Q)) != 0)
#define XS_DK_RANGE_END(range) { \
        double mp[4], ma[4], mb[4]; \
        _mm256_storeu_pd(mp, max_p); \
        _mm256_storeu_pd(ma, min_a); \
        _mm256_storeu_pd(mb, min_b); \
        for (int k = 1; k < 4; k++) { \
            mp[0] = mp[k] > mp[0] ? mp[k] : mp[0]; \
            ma[0] = ma[k] < ma[0] ? ma[k] : ma[0]; \
            mb[0] = mb[k] < mb[0] ? mb[k] : mb[0]; \
        } \
        (range)->max_p = cells_nan ? UINT64_MAX : xs_double_bits(mp[0]); \
        (range)->min_sum = xs_dot_cells_operand_sum(avx2_min_m1(ma[0]), avx2_min_m1(mb[0])); }
/* A minimum of bit patterns minus 1 taken as doubles, back as the pattern
 * (+Inf, no non-zero value: UINT64_MAX). */
static inline uint64_t avx2_min_m1(double m)
{
    return xs_double_bits(m) == XS_CELLS_INF_BITS ? UINT64_MAX : xs_double_bits(m);
}
#define XS_DK_CELLS 2
#define XS_DK_NAME dot2_avx2
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 3
#define XS_DK_NAME dot3_avx2
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 4
#define XS_DK_NAME dot4_avx2
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 5
#define XS_DK_NAME dot5_avx2
#include "kernels/dot/xs_dot_cells_kernel.h"
#include "kernels/cells/xs_cells_isa_end.h"

/* AVX-512F: 8-double vectors, 2 chains; the range on bit patterns in
 * integer registers (|x| - 1 turns 0 into the largest unsigned value). */
#define XS_DK_TARGET XS_TARGET_AVX512
#define XS_DK_V __m512d
#define XS_DK_VW 8
#define XS_DK_CHAINS 2
#define XS_DK_LOAD(p) _mm512_loadu_pd(p)
#define XS_DK_LOADU(p) _mm512_loadu_pd((const void *)(p))
#define XS_DK_STORE(p, v) _mm512_storeu_pd((p), (v))
#define XS_DK_ADD(x, y) _mm512_add_pd((x), (y))
#define XS_DK_SUB(x, y) _mm512_sub_pd((x), (y))
#define XS_DK_MUL(x, y) _mm512_mul_pd((x), (y))
#define XS_DK_FMSUB(x, y, z) _mm512_fmsub_pd((x), (y), (z))
#define XS_DK_SET1(d) _mm512_set1_pd(d)
#define XS_DK_RANGE_INIT \
    const __m512i abs_mask = _mm512_set1_epi64((long long)XS_CELLS_ABS_BITS); \
    const __m512i one = _mm512_set1_epi64(1); \
    __m512i max_p = _mm512_setzero_si512(), min_a = _mm512_set1_epi64(-1), min_b = min_a;
#define XS_DK_RANGE_STEP(va, vb, p) { \
        max_p = _mm512_max_epu64(max_p, _mm512_and_si512(_mm512_castpd_si512(p), abs_mask)); \
        min_a = _mm512_min_epu64(min_a, _mm512_sub_epi64( \
            _mm512_and_si512(_mm512_castpd_si512(va), abs_mask), one)); \
        min_b = _mm512_min_epu64(min_b, _mm512_sub_epi64( \
            _mm512_and_si512(_mm512_castpd_si512(vb), abs_mask), one)); }
#define XS_DK_RANGE_END(range) { \
        (range)->max_p = _mm512_reduce_max_epu64(max_p); \
        (range)->min_sum = xs_dot_cells_operand_sum(_mm512_reduce_min_epu64(min_a), \
                                                    _mm512_reduce_min_epu64(min_b)); }
#define XS_DK_CELLS 2
#define XS_DK_NAME dot2_avx512
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 3
#define XS_DK_NAME dot3_avx512
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 4
#define XS_DK_NAME dot4_avx512
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 5
#define XS_DK_NAME dot5_avx512
#include "kernels/dot/xs_dot_cells_kernel.h"
#include "kernels/cells/xs_cells_isa_end.h"
#endif

/* The kernels of each level (NULL: none; src/cpu/xs_cpu.h picks, under
 * XSUMUFUNC_KERNEL's cap).  Every CPU has the generic ones (no FMA needed:
 * xs_dot_cells_generic.c). */
#ifdef XS_DOT_CELLS_X86
static const xs_dot_cells_set avx2 = {
    .by_cells = {NULL, NULL, dot2_avx2, dot3_avx2, dot4_avx2, dot5_avx2}};
static const xs_dot_cells_set avx512 = {
    .by_cells = {NULL, NULL, dot2_avx512, dot3_avx512, dot4_avx512, dot5_avx512}};
#endif
const void *const xs_dot_cells_variants[XS_ISA_COUNT] = {
    [XS_ISA_GENERIC] = &xs_dot_cells_generic,
#ifdef XS_DOT_CELLS_X86
    [XS_ISA_AVX2] = &avx2, [XS_ISA_AVX512] = &avx512,
#endif
#ifdef XS_CPU_NEON
    [XS_ISA_NEON] = &xs_dot_cells_neon,
#endif
};

static const xs_dot_cells_set *pick_kernels(void)
{
    return xs_cpu_pick(xs_dot_cells_variants);
}

int xs_dot_cells_available(void)
{
    return pick_kernels() != NULL;
}

/* Set w to top T and K cells. */
static void set_window(xs_cells_window *w, int top, int cells)
{
    xs_cells_set_grid(w, top, cells);
    int q = top - cells * XS_CELLS_WIDTH;                 /* u_K = 2^q */
    w->min_quantum_sum = (q > -1074 ? q : -1074) + 2150;
}

/* The fewest cells under top T for a block of range r (more than
 * XS_CELLS_GRID_MAX: none). */
static int cells_needed(int top, const xs_dot_cells_range *r)
{
    if (r->min_sum == XS_DOT_NO_PRODUCTS) {
        return XS_DOT_CELLS_MIN;                          /* only zero products */
    }
    if (r->min_sum < XS_DOT_MIN_SUM_NORMAL) {
        return XS_CELLS_GRID_MAX + 1;     /* a subnormal p, or operand (FMA variants) */
    }
    int cells = xs_cells_for_quantum(top, r->min_sum - 2150);
    return cells < XS_DOT_CELLS_MIN ? XS_DOT_CELLS_MIN : cells;
}

/* A window for a block of range r (0: none fits it: Inf/NaN or overflowing
 * products, only zero products, too wide, beyond the tops allowed). */
static int choose_window(xs_cells_window *w, const xs_dot_cells_range *r)
{
    if (r->max_p >= XS_CELLS_INF_BITS || r->max_p == 0) {
        return 0;
    }
    int top = xs_cells_top_for(r->max_p);
    if (top > XS_CELLS_TOP_MAX) {
        return 0;
    }
    int cells = cells_needed(top, r);
    if (cells > XS_CELLS_GRID_MAX) {
        return 0;
    }
    set_window(w, top, cells);
    return 1;
}

/* Blocks in a row with a zero or subnormal binned operand after which a
 * row stops taking the binned kernels: settling them product by product
 * makes data with 10% zeros slower than the plain kernels (Zen 5: 1.61 ->
 * 2.77 ns per product). */
#define XS_DOT_CELLS_SETTLED_RUN 2

/* Products from which a row takes the binned kernels (xs_dot_cells.h). */
static _Atomic ptrdiff_t binned_min_terms = XS_DOT_CELLS_BINNED_MIN_TERMS;

ptrdiff_t xs_dot_cells_binned_min_terms(ptrdiff_t n)
{
    if (n < 0) {
        return atomic_load_explicit(&binned_min_terms, memory_order_relaxed);
    }
    return atomic_exchange_explicit(&binned_min_terms, n, memory_order_relaxed);
}

/* The bins of a row, made when a block first takes a binned kernel. */
typedef struct {
    xs_dot_bins *bins;       /* NULL: none yet */
    int binning;             /* blocks may still take the binned kernels */
    int settled;             /* blocks in a row that had products to settle */
} xs_dot_binning;

/* The kernel of w's cell count on a block (its result): the binned one
 * where the row may bin and the level has one for that count (no memory
 * for the bins: the plain one from then on), else the plain one. */
static int block_kernel(const xs_dot_cells_set *kernels, xs_dot_binning *binning,
                        const char *a, const char *b, int padded, double *lanes,
                        const xs_cells_window *w, xs_dot_cells_range *r)
{
    xs_dot_cells_binned_kernel binned = binning->binning ? kernels->binned[w->cells] : NULL;
    if (binned != NULL && binning->bins == NULL) {
        binning->bins = xs_dot_bins_new();
        binning->binning = binning->bins != NULL;
    }
    if (binned != NULL && binning->binning) {
        return binned(a, b, padded, lanes, w, r, binning->bins);
    }
    return kernels->by_cells[w->cells](a, b, padded, lanes, w, r);
}

/* After a block: bins that have taken a flush's worth of products are
 * flushed into acc (main: large's small accumulator), and a row whose
 * blocks keep having zero or subnormal binned operands stops binning. */
static void after_block(xs_dot_binning *binning, xs_dot *acc, xs_large *large)
{
    if (binning->bins == NULL) {
        return;
    }
    binning->settled = binning->bins->settled ? binning->settled + 1 : 0;
    binning->bins->settled = 0;
    if (binning->settled >= XS_DOT_CELLS_SETTLED_RUN) {
        binning->binning = 0;
    }
    if (binning->bins->products > XS_DOT_BINS_FLUSH_PRODUCTS - XS_CELLS_BLOCK) {
        xs_dot_bins_flush(binning->bins, acc, &large->small);
    }
}

static void add_scalar(xs_dot *acc, xs_large *large, const char *a, const char *b,
                       ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i++) {
        double x, y;
        memcpy(&x, a + 8 * i, sizeof x);
        memcpy(&y, b + 8 * i, sizeof y);
        xs_dot_add_float64(acc, large, x, y);
    }
}

/* One block of products into the lanes under t's window, a new one, or
 * (fitting none) term by term into acc and large (a and b: the block in the
 * input, for that). */
static void dot_block(const xs_dot_cells_set *kernels, xs_dot_binning *binning,
                      xs_cells_blocks *t, xs_dot *acc, xs_large *large, const char *a,
                      const char *b, const char *block_a, const char *block_b, ptrdiff_t terms,
                      int padded)
{
    /* First the current window or, with none, a guess from the block's
     * first products.  A kernel that refuses the block measures it. */
    xs_dot_cells_range r;
    xs_cells_window next;
    const xs_cells_window *first = &t->w;
    if (!t->active) {
        xs_dot_cells_measure(block_a, block_b, XS_CELLS_STEP, &r);
        first = choose_window(&next, &r) ? &next : NULL;
    }
    int fits = first != NULL &&
               block_kernel(kernels, binning, block_a, block_b, padded, t->lanes, first, &r);
    if (!fits) {
        if (first == NULL && r.max_p == 0) {
            xs_dot_cells_measure(block_a, block_b, padded, &r);      /* first products all zero */
        }
        int cells;
        if (first == NULL && r.max_p != 0 && !t->active) {
            /* The first products fit no window: nor does the block. */
            add_scalar(acc, large, a, b, terms);
            return;
        }
        if (t->active && r.max_p < t->w.max_limit &&
                (cells = cells_needed(t->w.top, &r)) <= XS_CELLS_GRID_MAX) {
            set_window(&next, t->w.top, cells);   /* more cells, same grid: no flush */
        }
        else if (choose_window(&next, &r)) {
            xs_cells_blocks_regrid(t);
        }
        else {
            add_scalar(acc, large, a, b, terms);
            xs_cells_blocks_refuse(t);      /* too wide for any window, twice: stop trying */
            return;
        }
        /* It fits, but where the first kernel was a binned one and this is
         * not (fewer cells), the products the bins took were not measured:
         * should one of them not fit, the block goes product by product. */
        if (!block_kernel(kernels, binning, block_a, block_b, padded, t->lanes, &next, &r)) {
            add_scalar(acc, large, a, b, terms);
            return;
        }
    }
    if (first != &t->w || !fits) {
        xs_cells_blocks_move(t, &next);
    }
    else if (xs_cells_blocks_narrower(t, t->w.cells > XS_DOT_CELLS_MIN &&
                                         cells_needed(t->w.top, &r) < t->w.cells)) {
        set_window(&t->w, t->w.top, t->w.cells - 1);
    }
    xs_cells_blocks_took(t);
}

ptrdiff_t xs_dot_cells_add(xs_dot *acc, xs_large *large, const char *a, const char *b,
                           ptrdiff_t n)
{
    const xs_dot_cells_set *kernels = pick_kernels();
    if (kernels == NULL) {
        return 0;
    }
    /* Long rows may take binned kernels where the level has them. */
    xs_dot_binning binning = {
        .binning = kernels->binned[XS_CELLS_GRID_MAX] != NULL &&
                   n >= atomic_load_explicit(&binned_min_terms, memory_order_relaxed)};
    /* The last, partial block, padded with zero products. */
    double tail_a[XS_CELLS_BLOCK], tail_b[XS_CELLS_BLOCK];
    xs_cells_blocks t = {.acc = &large->small};
    for (ptrdiff_t i = 0, terms; i < n; i += terms) {
        int padded;
        terms = xs_cells_blocks_length(n - i, &padded);
        dot_block(kernels, &binning, &t, acc, large, a + 8 * i, b + 8 * i,
                  xs_cells_blocks_pad(tail_a, a + 8 * i, terms, padded, 8),
                  xs_cells_blocks_pad(tail_b, b + 8 * i, terms, padded, 8), terms, padded);
        after_block(&binning, acc, large);
    }
    if (t.active) {
        xs_cells_blocks_flush(&t);
    }
    if (binning.bins != NULL) {
        xs_dot_bins_flush(binning.bins, acc, &large->small);
        xs_dot_bins_free(binning.bins);
    }
    return n;
}
