/* Fixed-grid cells for contiguous float64 runs (see xs_cells.h). */
#include "xs_cells.h"
#include "xs_kernel.h"

#include <fenv.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* A block's range as bit patterns of |term|: comparing them as unsigned
 * integers compares the magnitudes (and Inf/NaN come above every finite). */
typedef struct {
    uint64_t max_bits;       /* largest |term| (NaN/Inf: at least 0x7ff0...) */
    uint64_t min_bits_m1;    /* smallest non-zero |term| minus 1 (all zero: UINT64_MAX) */
} xs_cells_range;

typedef int (*xs_cells_kernel)(const double *x, int terms, double *lanes,
                               const xs_cells_window *w, xs_cells_range *range);

#define XS_ABS_BITS XS_CELLS_ABS_BITS
#define XS_INF_BITS XS_CELLS_INF_BITS

/* The floating-point exceptions NumPy turns into warnings ("inexact" is not
 * one of them). */
#define XS_REPORTED_FLAGS (FE_INVALID | FE_OVERFLOW | FE_UNDERFLOW | FE_DIVBYZERO)



/* ---- portable kernels (any architecture): 8 scalar chains --------------- */

#define XS_CK_TARGET
#define XS_CK_V double
#define XS_CK_VW 1
#define XS_CK_CHAINS 8
#define XS_CK_LOAD(p) (*(p))
#define XS_CK_STORE(p, v) (*(p) = (v))
#define XS_CK_ADD(a, b) ((a) + (b))
#define XS_CK_SUB(a, b) ((a) - (b))
#define XS_CK_SET1(d) (d)
#define XS_CK_RANGE_INIT uint64_t mx = 0, mn = UINT64_MAX;
#define XS_CK_RANGE_STEP(v) { \
        uint64_t a = xs_double_bits(v) & XS_ABS_BITS; \
        mx = a > mx ? a : mx; \
        mn = a - 1 < mn ? a - 1 : mn; }     /* 0 - 1 wraps to UINT64_MAX */
#define XS_CK_RANGE_END(range) { (range)->max_bits = mx; (range)->min_bits_m1 = mn; }
#define XS_CK_CELLS 2
#define XS_CK_NAME cells2_generic
#include "xs_cells_kernel.h"
#undef XS_CK_CELLS
#undef XS_CK_NAME
#define XS_CK_CELLS 3
#define XS_CK_NAME cells3_generic
#include "xs_cells_kernel.h"
#undef XS_CK_CELLS
#undef XS_CK_NAME
#define XS_CK_CELLS 4
#define XS_CK_NAME cells4_generic
#include "xs_cells_kernel.h"
#undef XS_CK_CELLS
#undef XS_CK_NAME
#undef XS_CK_TARGET
#undef XS_CK_V
#undef XS_CK_VW
#undef XS_CK_CHAINS
#undef XS_CK_LOAD
#undef XS_CK_STORE
#undef XS_CK_ADD
#undef XS_CK_SUB
#undef XS_CK_SET1
#undef XS_CK_RANGE_INIT
#undef XS_CK_RANGE_STEP
#undef XS_CK_RANGE_END

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define XS_CELLS_X86 1
#include <immintrin.h>

/* The floating-point range measure of SSE2 and AVX2 (no unsigned 64-bit
 * min/max there): |term| as a double, zeros counted as +Inf for the
 * minimum, NaN seen separately; turned into bit patterns at the end. */
static inline void fp_range_bits(double max_abs, double min_abs, int has_nan,
                                 xs_cells_range *range)
{
    range->max_bits = has_nan ? UINT64_MAX : xs_double_bits(max_abs);
    range->min_bits_m1 = xs_double_bits(min_abs) == XS_INF_BITS
        ? UINT64_MAX : xs_double_bits(min_abs) - 1;
}

/* SSE2: 2-double vectors, 4 chains. */
#define XS_CK_TARGET
#define XS_CK_V __m128d
#define XS_CK_VW 2
#define XS_CK_CHAINS 4
#define XS_CK_LOAD(p) _mm_loadu_pd(p)
#define XS_CK_STORE(p, v) _mm_storeu_pd((p), (v))
#define XS_CK_ADD(a, b) _mm_add_pd((a), (b))
#define XS_CK_SUB(a, b) _mm_sub_pd((a), (b))
#define XS_CK_SET1(d) _mm_set1_pd(d)
#define XS_CK_RANGE_INIT \
    const __m128d abs_mask = _mm_castsi128_pd(_mm_set1_epi64x((long long)XS_ABS_BITS)); \
    const __m128d zero = _mm_setzero_pd(), inf = _mm_set1_pd((double)INFINITY); \
    __m128d mx = zero, mn = inf, nan_seen = zero;
#define XS_CK_RANGE_STEP(v) { \
        __m128d a = _mm_and_pd((v), abs_mask); \
        mx = _mm_max_pd(mx, a); \
        mn = _mm_min_pd(mn, _mm_or_pd(a, _mm_and_pd(_mm_cmpeq_pd(a, zero), inf))); \
        nan_seen = _mm_or_pd(nan_seen, _mm_cmpunord_pd((v), (v))); }
#define XS_CK_RANGE_END(range) { \
        double m[2], s[2]; \
        _mm_storeu_pd(m, mx); \
        _mm_storeu_pd(s, mn); \
        fp_range_bits(m[0] > m[1] ? m[0] : m[1], s[0] < s[1] ? s[0] : s[1], \
                      _mm_movemask_pd(nan_seen) != 0, (range)); }
#define XS_CK_CELLS 2
#define XS_CK_NAME cells2_sse2
#include "xs_cells_kernel.h"
#undef XS_CK_CELLS
#undef XS_CK_NAME
#define XS_CK_CELLS 3
#define XS_CK_NAME cells3_sse2
#include "xs_cells_kernel.h"
#undef XS_CK_CELLS
#undef XS_CK_NAME
#define XS_CK_CELLS 4
#define XS_CK_NAME cells4_sse2
#include "xs_cells_kernel.h"
#undef XS_CK_CELLS
#undef XS_CK_NAME
#undef XS_CK_TARGET
#undef XS_CK_V
#undef XS_CK_VW
#undef XS_CK_CHAINS
#undef XS_CK_LOAD
#undef XS_CK_STORE
#undef XS_CK_ADD
#undef XS_CK_SUB
#undef XS_CK_SET1
#undef XS_CK_RANGE_INIT
#undef XS_CK_RANGE_STEP
#undef XS_CK_RANGE_END

/* AVX2: 4-double vectors, 2 chains. */
#define XS_CK_TARGET __attribute__((target("avx2")))
#define XS_CK_V __m256d
#define XS_CK_VW 4
#define XS_CK_CHAINS 2
#define XS_CK_LOAD(p) _mm256_loadu_pd(p)
#define XS_CK_STORE(p, v) _mm256_storeu_pd((p), (v))
#define XS_CK_ADD(a, b) _mm256_add_pd((a), (b))
#define XS_CK_SUB(a, b) _mm256_sub_pd((a), (b))
#define XS_CK_SET1(d) _mm256_set1_pd(d)
#define XS_CK_RANGE_INIT \
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x((long long)XS_ABS_BITS)); \
    const __m256d zero = _mm256_setzero_pd(), inf = _mm256_set1_pd((double)INFINITY); \
    __m256d mx = zero, mn = inf, nan_seen = zero;
#define XS_CK_RANGE_STEP(v) { \
        __m256d a = _mm256_and_pd((v), abs_mask); \
        mx = _mm256_max_pd(mx, a); \
        mn = _mm256_min_pd(mn, _mm256_blendv_pd(a, inf, _mm256_cmp_pd(a, zero, _CMP_EQ_OQ))); \
        nan_seen = _mm256_or_pd(nan_seen, _mm256_cmp_pd((v), (v), _CMP_UNORD_Q)); }
#define XS_CK_RANGE_END(range) { \
        double m[4], s[4]; \
        _mm256_storeu_pd(m, mx); \
        _mm256_storeu_pd(s, mn); \
        double max_abs = m[0], min_abs = s[0]; \
        for (int k = 1; k < 4; k++) { \
            max_abs = m[k] > max_abs ? m[k] : max_abs; \
            min_abs = s[k] < min_abs ? s[k] : min_abs; \
        } \
        fp_range_bits(max_abs, min_abs, _mm256_movemask_pd(nan_seen) != 0, (range)); }
#define XS_CK_CELLS 2
#define XS_CK_NAME cells2_avx2
#include "xs_cells_kernel.h"
#undef XS_CK_CELLS
#undef XS_CK_NAME
#define XS_CK_CELLS 3
#define XS_CK_NAME cells3_avx2
#include "xs_cells_kernel.h"
#undef XS_CK_CELLS
#undef XS_CK_NAME
#define XS_CK_CELLS 4
#define XS_CK_NAME cells4_avx2
#include "xs_cells_kernel.h"
#undef XS_CK_CELLS
#undef XS_CK_NAME
#undef XS_CK_TARGET
#undef XS_CK_V
#undef XS_CK_VW
#undef XS_CK_CHAINS
#undef XS_CK_LOAD
#undef XS_CK_STORE
#undef XS_CK_ADD
#undef XS_CK_SUB
#undef XS_CK_SET1
#undef XS_CK_RANGE_INIT
#undef XS_CK_RANGE_STEP
#undef XS_CK_RANGE_END

/* AVX-512F: 8-double vectors, 2 chains; the range in integer registers
 * (unsigned 64-bit min/max), beside the floating-point adds. */
#define XS_CK_TARGET __attribute__((target("avx512f")))
#define XS_CK_V __m512d
#define XS_CK_VW 8
#define XS_CK_CHAINS 2
#define XS_CK_LOAD(p) _mm512_loadu_pd(p)
#define XS_CK_STORE(p, v) _mm512_storeu_pd((p), (v))
#define XS_CK_ADD(a, b) _mm512_add_pd((a), (b))
#define XS_CK_SUB(a, b) _mm512_sub_pd((a), (b))
#define XS_CK_SET1(d) _mm512_set1_pd(d)
#define XS_CK_RANGE_INIT \
    const __m512i abs_mask = _mm512_set1_epi64((long long)XS_ABS_BITS); \
    const __m512i one = _mm512_set1_epi64(1); \
    __m512i mx = _mm512_setzero_si512(), mn = _mm512_set1_epi64(-1);
#define XS_CK_RANGE_STEP(v) { \
        __m512i a = _mm512_and_si512(_mm512_castpd_si512(v), abs_mask); \
        mx = _mm512_max_epu64(mx, a); \
        mn = _mm512_min_epu64(mn, _mm512_sub_epi64(a, one)); }
#define XS_CK_RANGE_END(range) { \
        (range)->max_bits = _mm512_reduce_max_epu64(mx); \
        (range)->min_bits_m1 = _mm512_reduce_min_epu64(mn); }
#define XS_CK_CELLS 2
#define XS_CK_NAME cells2_avx512
#include "xs_cells_kernel.h"
#undef XS_CK_CELLS
#undef XS_CK_NAME
#define XS_CK_CELLS 3
#define XS_CK_NAME cells3_avx512
#include "xs_cells_kernel.h"
#undef XS_CK_CELLS
#undef XS_CK_NAME
#define XS_CK_CELLS 4
#define XS_CK_NAME cells4_avx512
#include "xs_cells_kernel.h"
#undef XS_CK_CELLS
#undef XS_CK_NAME
#undef XS_CK_TARGET
#undef XS_CK_V
#undef XS_CK_VW
#undef XS_CK_CHAINS
#undef XS_CK_LOAD
#undef XS_CK_STORE
#undef XS_CK_ADD
#undef XS_CK_SUB
#undef XS_CK_SET1
#undef XS_CK_RANGE_INIT
#undef XS_CK_RANGE_STEP
#undef XS_CK_RANGE_END
#endif

/* The kernels for this CPU by cell count, chosen once.  XSUMUFUNC_KERNEL
 * caps the set (src/xs_kernel.h; the tests force each). */
typedef struct {
    xs_cells_kernel by_cells[XS_CELLS_MAX + 1];
} xs_cells_set;

static const xs_cells_set *pick_kernels(void)
{
    static const xs_cells_set generic = {{NULL, NULL, cells2_generic, cells3_generic, cells4_generic}};
#ifdef XS_CELLS_X86
    static const xs_cells_set sse2 = {{NULL, NULL, cells2_sse2, cells3_sse2, cells4_sse2}};
    static const xs_cells_set avx2 = {{NULL, NULL, cells2_avx2, cells3_avx2, cells4_avx2}};
    static const xs_cells_set avx512 = {{NULL, NULL, cells2_avx512, cells3_avx512, cells4_avx512}};
#endif
    /* Atomic: threads may pick at the same time (they pick the same set). */
    static const xs_cells_set *_Atomic chosen = NULL;
    const xs_cells_set *known = atomic_load(&chosen);
    if (known) {
        return known;
    }
    xs_kernel_cap cap = xs_kernel_forced();
    const xs_cells_set *k = &generic;
#ifdef XS_CELLS_X86
    __builtin_cpu_init();
    int has_avx2 = __builtin_cpu_supports("avx2"), has_avx512 = __builtin_cpu_supports("avx512f");
    k = has_avx512 && cap >= XS_KERNEL_AVX512VBMI ? &avx512
        : has_avx2 && cap >= XS_KERNEL_AVX2 ? &avx2 : &sse2;
#endif
    if (cap == XS_KERNEL_GENERIC) {
        k = &generic;
    }
    atomic_store(&chosen, k);
    return k;
}


/* ---- the driver --------------------------------------------------------- */

/* The range of x[0..n): a first guess of a block's range from its first
 * few terms. */
static void range_of(const double *x, int n, xs_cells_range *range)
{
    uint64_t mx = 0, mn = UINT64_MAX;
    for (int i = 0; i < n; i++) {
        uint64_t a = xs_double_bits(x[i]) & XS_ABS_BITS;
        mx = a > mx ? a : mx;
        mn = a - 1 < mn ? a - 1 : mn;
    }
    range->max_bits = mx;
    range->min_bits_m1 = mn;
}

/* The fewest cells that hold every non-zero term of the range under top T
 * (more than XS_CELLS_MAX when none does).  A term with exponent field f is
 * a multiple of 2^(f - 1075) (subnormals, f = 0, of 2^-1074: counted as
 * finer, which only refuses them). */
static int cells_needed(int top, const xs_cells_range *r)
{
    if (r->min_bits_m1 == UINT64_MAX) {
        return XS_CELLS_MIN;                         /* all zeros */
    }
    return xs_cells_for_quantum(top, (int)((r->min_bits_m1 + 1) >> 52) - 1075);
}

/* Set w to top T and K cells: the grid, and the smallest term that fits. */
static void set_window(xs_cells_window *w, int top, int cells)
{
    xs_cells_set_grid(w, top, cells);
    int f_min = top - cells * XS_CELLS_WIDTH + 1075;     /* >= 1: xs_cells_for_quantum */
    w->min_limit_m1 = ((uint64_t)f_min << 52) - 1;
}

/* A window for a block of range r: its top XS_CELLS_HEADROOM binades above
 * the largest term, the fewest cells that hold the smallest.  0 when the
 * block fits none (Inf/NaN, all zeros, too wide, or beyond the tops allowed). */
static int choose_window(xs_cells_window *w, const xs_cells_range *r)
{
    if (r->max_bits >= XS_INF_BITS || r->max_bits == 0) {
        return 0;
    }
    int top = xs_cells_top_for(r->max_bits);
    if (top > XS_CELLS_TOP_MAX) {
        return 0;
    }
    int cells = cells_needed(top, r);
    if (cells > XS_CELLS_MAX) {
        return 0;
    }
    set_window(w, top, cells);
    return 1;
}

/* Terms that fit no window: into the large accumulator, made on first use
 * (*large caches it between rows; its small part is cleared then), or into
 * acc itself if there is no memory for one. */
typedef struct {
    xs_small *acc;
    xs_large **cache;
    xs_large *large;             /* NULL until first use */
} xs_cells_rest;

static void to_rest(xs_cells_rest *rest, const double *x, ptrdiff_t n)
{
    if (rest->large == NULL && n > 0) {
        rest->large = xs_large_for_row(rest->cache);
    }
    if (rest->large == NULL) {
        for (ptrdiff_t i = 0; i < n; i++) {
            xs_small_add_bits(rest->acc, xs_double_bits(x[i]));
        }
        return;
    }
    for (ptrdiff_t i = 0; i < n; i++) {
        xs_large_add_bits(rest->large, xs_double_bits(x[i]));
    }
}

void xs_cells_add_float64(xs_small *acc, xs_large **large, const double *x, ptrdiff_t n)
{
    /* Every addition here is exact, but the cuts are inexact by design and
     * a NaN/Inf term raises "invalid" or "overflow" in a kernel whose
     * block is then refused: clear what was raised here of the flags NumPy
     * reports (testing is cheap; restoring the whole state is not). */
    int reported_before = fetestexcept(XS_REPORTED_FLAGS);
    const xs_cells_set *kernels = pick_kernels();
    double lanes[XS_CELLS_LANES] = {0};
    /* The last, partial block, padded with zeros to a multiple of
     * XS_CELLS_STEP (they add nothing; only its real terms go elsewhere if
     * it fits no window). */
    double tail[XS_CELLS_BLOCK];
    xs_cells_rest rest = {acc, large, NULL};
    xs_cells_window w = {0};
    int active = 0;              /* w is set and the lanes belong to it */
    int refused = 0;             /* blocks in a row that fit no window */
    ptrdiff_t blocks = 0;        /* blocks in the lanes since the last flush */
    for (ptrdiff_t i = 0; i < n; i += XS_CELLS_BLOCK) {
        const double *block = x + i;
        int terms = n - i < XS_CELLS_BLOCK ? (int)(n - i) : XS_CELLS_BLOCK;
        int padded = terms;
        if (terms % XS_CELLS_STEP != 0) {
            padded = terms + XS_CELLS_STEP - terms % XS_CELLS_STEP;
            memcpy(tail, block, (size_t)terms * sizeof *tail);
            memset(tail + terms, 0, (size_t)(padded - terms) * sizeof *tail);
            block = tail;
        }
        /* First the current window or, with none, a guess from the block's
         * first terms.  A kernel that refuses the block measures all of it. */
        xs_cells_range r;
        xs_cells_window next;
        const xs_cells_window *first = &w;
        if (!active) {
            range_of(block, XS_CELLS_STEP, &r);
            first = choose_window(&next, &r) ? &next : NULL;
        }
        int fits = first != NULL && kernels->by_cells[first->cells](block, padded, lanes, first, &r);
        if (!fits) {
            if (first == NULL) {
                if (r.max_bits != 0) {
                    /* The first terms fit no window: nor does the block. */
                    to_rest(&rest, x + i, terms);
                    continue;
                }
                range_of(block, padded, &r);      /* first terms all zero */
            }
            int cells;
            if (active && r.max_bits < w.max_limit &&
                    (cells = cells_needed(w.top, &r)) <= XS_CELLS_MAX) {
                set_window(&next, w.top, cells);   /* more cells, same grid: no flush */
            }
            else if (choose_window(&next, &r)) {
                if (active) {
                    xs_cells_flush(acc, lanes, w.cells);
                    blocks = 0;
                }
            }
            else {
                to_rest(&rest, x + i, terms);
                /* Data too wide for any window: stop trying the kernels first. */
                if (active && ++refused >= 2) {
                    xs_cells_flush(acc, lanes, w.cells);
                    active = 0;
                    blocks = 0;
                }
                continue;
            }
            kernels->by_cells[next.cells](block, padded, lanes, &next, &r);    /* fits */
        }
        if (!active) {
            acc->flags |= XS_HAS_TERM | XS_NOT_NEG_ZERO;     /* non-zero terms went in */
            active = 1;
        }
        if (first != &w || !fits) {
            w = next;
        }
        refused = 0;
        if (++blocks == XS_CELLS_FLUSH_BLOCKS) {
            xs_cells_flush(acc, lanes, w.cells);
            blocks = 0;
        }
    }
    if (active) {
        xs_cells_flush(acc, lanes, w.cells);
    }
    if (rest.large != NULL) {
        xs_large_flush(rest.large);
        xs_small_merge(acc, &rest.large->small);
    }
    int raised_here = fetestexcept(XS_REPORTED_FLAGS) & ~reported_before;
    if (raised_here) {
        feclearexcept(raised_here);
    }
}
