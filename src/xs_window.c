/* The windowed front end for contiguous float64 runs (see xs_window.h). */
#include "xs_window.h"

#include <fenv.h>
#include <math.h>
#include <stdlib.h>

/* Lanes per kernel: 4 chains of up to 4 doubles, for hi and for lo. */
#define XS_LANES 32
#define XS_HI 0
#define XS_LO 16
/* Clears the 26 low fraction bits: hi keeps 27 significant bits. */
#define XS_HI_MASK 0xfffffffffc000000ull
/* Lane sums stay below 2^(top + 13) (2^53 quanta of 2^(E-26)); windows
 * whose top exceeds 2^1010 could overflow and are not used. */
#define XS_WINDOW_MAX_TOP_EXP 1010

/* What a kernel reports of a block besides its lane sums. */
typedef struct {
    double max_abs;       /* largest |x| (Inf if any Inf) */
    double min_abs;       /* smallest non-zero |x| (Inf if all zero) */
    int has_nan;
} xs_block_range;

/* Sums the block's hi and lo parts into sums[XS_LANES] (zeroed by the
 * kernel) and measures its range. */
typedef void (*xs_block_kernel)(const double *x, double *sums, xs_block_range *range);

static inline uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static inline double from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* ---- portable kernel (any architecture) --------------------------------- */

static void block_generic(const double *x, double *sums, xs_block_range *range)
{
    double hi[8] = {0}, lo[8] = {0};
    double max_abs = 0.0, min_abs = INFINITY;
    int has_nan = 0;
    for (int i = 0; i < XS_WINDOW_BLOCK; i += 8) {
        for (int j = 0; j < 8; j++) {
            double v = x[i + j];
            double h = from_bits(bits_of(v) & XS_HI_MASK);
            hi[j] += h;
            lo[j] += v - h;
            double a = fabs(v);
            max_abs = a > max_abs ? a : max_abs;
            min_abs = (a != 0.0 && a < min_abs) ? a : min_abs;
            has_nan |= v != v;
        }
    }
    memset(sums, 0, XS_LANES * sizeof *sums);
    memcpy(sums + XS_HI, hi, sizeof hi);
    memcpy(sums + XS_LO, lo, sizeof lo);
    range->max_abs = max_abs;
    range->min_abs = min_abs;
    range->has_nan = has_nan;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define XS_WINDOW_X86 1
#include <immintrin.h>

/* SSE2 is part of x86-64: the baseline kernel.  Four independent chains
 * per quantity hide the add latency. */
static void block_sse2(const double *x, double *sums, xs_block_range *range)
{
    const __m128d hi_mask = _mm_castsi128_pd(_mm_set1_epi64x((long long)XS_HI_MASK));
    const __m128d abs_mask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffll));
    const __m128d zero = _mm_setzero_pd(), inf = _mm_set1_pd(INFINITY);
    __m128d h0 = zero, h1 = zero, h2 = zero, h3 = zero;
    __m128d l0 = zero, l1 = zero, l2 = zero, l3 = zero;
    __m128d mx0 = zero, mx1 = zero, mn0 = inf, mn1 = inf, nan_seen = zero;
#define XS_SSE2_STEP(k, H, L, MX, MN) { \
        __m128d v = _mm_loadu_pd(x + i + 2 * (k)); \
        __m128d a = _mm_and_pd(v, abs_mask); \
        __m128d h = _mm_and_pd(v, hi_mask); \
        H = _mm_add_pd(H, h); \
        L = _mm_add_pd(L, _mm_sub_pd(v, h)); \
        MX = _mm_max_pd(MX, a); \
        MN = _mm_min_pd(MN, _mm_or_pd(a, _mm_and_pd(_mm_cmpeq_pd(a, zero), inf))); \
        nan_seen = _mm_or_pd(nan_seen, _mm_cmpunord_pd(v, v)); }
    for (int i = 0; i < XS_WINDOW_BLOCK; i += 8) {
        XS_SSE2_STEP(0, h0, l0, mx0, mn0)
        XS_SSE2_STEP(1, h1, l1, mx1, mn1)
        XS_SSE2_STEP(2, h2, l2, mx0, mn0)
        XS_SSE2_STEP(3, h3, l3, mx1, mn1)
    }
#undef XS_SSE2_STEP
    memset(sums, 0, XS_LANES * sizeof *sums);
    _mm_storeu_pd(sums + XS_HI + 0, h0);
    _mm_storeu_pd(sums + XS_HI + 2, h1);
    _mm_storeu_pd(sums + XS_HI + 4, h2);
    _mm_storeu_pd(sums + XS_HI + 6, h3);
    _mm_storeu_pd(sums + XS_LO + 0, l0);
    _mm_storeu_pd(sums + XS_LO + 2, l1);
    _mm_storeu_pd(sums + XS_LO + 4, l2);
    _mm_storeu_pd(sums + XS_LO + 6, l3);
    double mx[2], mn[2];
    _mm_storeu_pd(mx, _mm_max_pd(mx0, mx1));
    _mm_storeu_pd(mn, _mm_min_pd(mn0, mn1));
    range->max_abs = mx[0] > mx[1] ? mx[0] : mx[1];
    range->min_abs = mn[0] < mn[1] ? mn[0] : mn[1];
    range->has_nan = _mm_movemask_pd(nan_seen) != 0;
}

/* The same with 4-double vectors, for CPUs that have AVX2. */
__attribute__((target("avx2")))
static void block_avx2(const double *x, double *sums, xs_block_range *range)
{
    const __m256d hi_mask = _mm256_castsi256_pd(_mm256_set1_epi64x((long long)XS_HI_MASK));
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll));
    const __m256d zero = _mm256_setzero_pd(), inf = _mm256_set1_pd(INFINITY);
    __m256d h0 = zero, h1 = zero, h2 = zero, h3 = zero;
    __m256d l0 = zero, l1 = zero, l2 = zero, l3 = zero;
    __m256d mx0 = zero, mx1 = zero, mn0 = inf, mn1 = inf, nan_seen = zero;
#define XS_AVX2_STEP(k, H, L, MX, MN) { \
        __m256d v = _mm256_loadu_pd(x + i + 4 * (k)); \
        __m256d a = _mm256_and_pd(v, abs_mask); \
        __m256d h = _mm256_and_pd(v, hi_mask); \
        H = _mm256_add_pd(H, h); \
        L = _mm256_add_pd(L, _mm256_sub_pd(v, h)); \
        MX = _mm256_max_pd(MX, a); \
        MN = _mm256_min_pd(MN, _mm256_blendv_pd(a, inf, _mm256_cmp_pd(a, zero, _CMP_EQ_OQ))); \
        nan_seen = _mm256_or_pd(nan_seen, _mm256_cmp_pd(v, v, _CMP_UNORD_Q)); }
    for (int i = 0; i < XS_WINDOW_BLOCK; i += 16) {
        XS_AVX2_STEP(0, h0, l0, mx0, mn0)
        XS_AVX2_STEP(1, h1, l1, mx1, mn1)
        XS_AVX2_STEP(2, h2, l2, mx0, mn0)
        XS_AVX2_STEP(3, h3, l3, mx1, mn1)
    }
#undef XS_AVX2_STEP
    _mm256_storeu_pd(sums + XS_HI + 0, h0);
    _mm256_storeu_pd(sums + XS_HI + 4, h1);
    _mm256_storeu_pd(sums + XS_HI + 8, h2);
    _mm256_storeu_pd(sums + XS_HI + 12, h3);
    _mm256_storeu_pd(sums + XS_LO + 0, l0);
    _mm256_storeu_pd(sums + XS_LO + 4, l1);
    _mm256_storeu_pd(sums + XS_LO + 8, l2);
    _mm256_storeu_pd(sums + XS_LO + 12, l3);
    double mx[4], mn[4];
    _mm256_storeu_pd(mx, _mm256_max_pd(mx0, mx1));
    _mm256_storeu_pd(mn, _mm256_min_pd(mn0, mn1));
    double max_abs = mx[0], min_abs = mn[0];
    for (int j = 1; j < 4; j++) {
        max_abs = mx[j] > max_abs ? mx[j] : max_abs;
        min_abs = mn[j] < min_abs ? mn[j] : min_abs;
    }
    range->max_abs = max_abs;
    range->min_abs = min_abs;
    range->has_nan = _mm256_movemask_pd(nan_seen) != 0;
}
#endif

/* The kernel for this CPU, chosen once.  XSUMUFUNC_KERNEL=generic|sse2|avx2
 * forces one (the tests run each). */
static xs_block_kernel pick_kernel(void)
{
    static xs_block_kernel chosen = NULL;      /* a benign race: same value */
    if (chosen) {
        return chosen;
    }
    const char *forced = getenv("XSUMUFUNC_KERNEL");
    xs_block_kernel k = block_generic;
#ifdef XS_WINDOW_X86
    __builtin_cpu_init();
    int has_avx2 = __builtin_cpu_supports("avx2");
    k = has_avx2 ? block_avx2 : block_sse2;
    if (forced && strcmp(forced, "sse2") == 0) {
        k = block_sse2;
    }
#endif
    if (forced && strcmp(forced, "generic") == 0) {
        k = block_generic;
    }
    chosen = k;
    return k;
}

/* Add every non-zero lane to the small accumulator, exactly, and clear them. */
static void flush_lanes(xs_small *acc, double *lanes)
{
    for (int j = 0; j < XS_LANES; j++) {
        if (lanes[j] != 0.0) {
            xs_small_add_bits(acc, bits_of(lanes[j]));
        }
        lanes[j] = 0.0;
    }
}

static void add_to_large(xs_large *large, const double *x, ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i++) {
        xs_large_add_bits(large, bits_of(x[i]));
    }
}

void xs_window_add_float64(xs_large *large, const double *x, ptrdiff_t n)
{
    /* Every addition here is exact, but max/min and comparisons raise
     * "invalid" on a NaN term: keep the caller's flags as they were. */
    fexcept_t flags_before;
    fegetexceptflag(&flags_before, FE_ALL_EXCEPT);
    xs_block_kernel kernel = pick_kernel();
    double lanes[XS_LANES] = {0}, sums[XS_LANES];
    double top = 0.0, bottom = 0.0;        /* the window [bottom, top) */
    ptrdiff_t in_lanes = 0;                /* terms in the lanes since the last flush */
    ptrdiff_t i = 0;
    for (; i + XS_WINDOW_BLOCK <= n; i += XS_WINDOW_BLOCK) {
        xs_block_range r;
        kernel(x + i, sums, &r);
        /* Inf/NaN, all zeros (their zero sign needs the exact path) and
         * huge values go to the large accumulator. */
        int usable = !r.has_nan && r.max_abs > 0.0 && r.max_abs < INFINITY;
        if (usable && !(in_lanes > 0 && r.max_abs < top && r.min_abs >= bottom)) {
            /* Start a new window with this block's largest term two binades
             * below its top, so that the next blocks are likely to fit. */
            flush_lanes(&large->small, lanes);
            in_lanes = 0;
            int e;
            frexp(r.max_abs, &e);             /* max_abs < 2^e */
            int top_exp = e + 1;
            usable = top_exp <= XS_WINDOW_MAX_TOP_EXP;
            top = ldexp(1.0, top_exp);
            int bottom_exp = top_exp - XS_WINDOW_BINADES;
            bottom = bottom_exp < -1074 ? 0.0 : ldexp(1.0, bottom_exp);
            usable = usable && r.min_abs >= bottom;
        }
        if (!usable) {
            add_to_large(large, x + i, XS_WINDOW_BLOCK);
            continue;
        }
        /* Both are multiples of the window's quanta and stay below 2^53 of
         * them: these additions are exact. */
        for (int j = 0; j < XS_LANES; j++) {
            lanes[j] += sums[j];
        }
        /* Non-zero terms went in, even if the lanes cancel to zero. */
        large->small.flags |= XS_HAS_TERM | XS_NOT_NEG_ZERO;
        in_lanes += XS_WINDOW_BLOCK;
        if (in_lanes >= XS_WINDOW_FLUSH_TERMS) {
            flush_lanes(&large->small, lanes);
            in_lanes = 0;
        }
    }
    flush_lanes(&large->small, lanes);
    add_to_large(large, x + i, n - i);
    fesetexceptflag(&flags_before, FE_ALL_EXCEPT);
}
