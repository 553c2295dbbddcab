/* The windowed front end for contiguous float32 and bfloat16 runs (see xs_window.h). */
#include "xs_window.h"
#include "xs_kernel.h"

#include <fenv.h>
#include <stdatomic.h>
#include <math.h>
#include <stdlib.h>

/* Lanes per kernel: up to 4 chains of 16 doubles. */
#define XS_LANES 64
/* Lane sums stay below 2^(top + 13) (2^53 quanta of 2^(E-23)); windows
 * whose top exceeds 2^1010 could overflow and are not used. */
#define XS_WINDOW_MAX_TOP_EXP 1010

/* What a kernel reports of a block besides its lane sums. */
typedef struct {
    double max_abs;       /* largest |x| (Inf if any Inf) */
    double min_abs;       /* smallest non-zero |x| (Inf if all zero) */
    int has_nan;
} xs_block_range;

/* Adds the block's hi and lo parts into the lanes sums[XS_LANES] (each kernel
 * always uses the same lanes; the others stay zero) and measures its range. */
typedef void (*xs_block_kernel)(const void *x, double *sums, xs_block_range *range);

static inline uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}


#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define XS_WINDOW_X86 1
#include <immintrin.h>
#endif

/* ---- float32 and bfloat16: no split needed ---------------------------------
 * A float32 (or bfloat16) value in the window is a multiple of 2^(E-23)
 * below 2^(E+D): converted to double, 2^(30-D) of them add up exactly.  The
 * lanes hold doubles; the range is measured on the floats. */

static inline float bf16_to_float(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

#define XS_GENERIC_NARROW_KERNEL(NAME, ELEMENT, TO_FLOAT) \
static void NAME(const void *p, double *sums, xs_block_range *range) \
{ \
    const ELEMENT *x = p; \
    double lane[16]; \
    memcpy(lane, sums, sizeof lane); \
    float max_abs = 0.0f, min_abs = INFINITY; \
    int has_nan = 0; \
    for (int i = 0; i < XS_WINDOW_BLOCK; i += 16) { \
        for (int j = 0; j < 16; j++) { \
            float v = TO_FLOAT(x[i + j]); \
            float a = fabsf(v); \
            lane[j] += (double)v; \
            max_abs = a > max_abs ? a : max_abs; \
            min_abs = (a != 0.0f && a < min_abs) ? a : min_abs; \
            has_nan |= v != v; \
        } \
    } \
    memcpy(sums, lane, sizeof lane); \
    range->max_abs = max_abs; \
    range->min_abs = min_abs; \
    range->has_nan = has_nan; \
}
#define XS_FLOAT_ITSELF(v) (v)
XS_GENERIC_NARROW_KERNEL(block_generic_f32, float, XS_FLOAT_ITSELF)
XS_GENERIC_NARROW_KERNEL(block_generic_bf16, uint16_t, bf16_to_float)

#ifdef XS_WINDOW_X86
/* SSE2: LOAD4(x, i) gives elements i..i+3 as four floats. */
#define XS_SSE2_NARROW_KERNEL(NAME, ELEMENT, LOAD4) \
static void NAME(const void *p, double *sums, xs_block_range *range) \
{ \
    const ELEMENT *x = p; \
    const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)); \
    const __m128 zero = _mm_setzero_ps(), inf = _mm_set1_ps(INFINITY); \
    __m128d s0 = _mm_loadu_pd(sums + 0), s1 = _mm_loadu_pd(sums + 2); \
    __m128d s2 = _mm_loadu_pd(sums + 4), s3 = _mm_loadu_pd(sums + 6); \
    __m128d s4 = _mm_loadu_pd(sums + 8), s5 = _mm_loadu_pd(sums + 10); \
    __m128d s6 = _mm_loadu_pd(sums + 12), s7 = _mm_loadu_pd(sums + 14); \
    __m128 mx0 = zero, mx1 = zero, mn0 = inf, mn1 = inf, nan_seen = zero; \
    for (int i = 0; i < XS_WINDOW_BLOCK; i += 16) { \
        XS_SSE2_NARROW_STEP(LOAD4(x, i), s0, s1, mx0, mn0) \
        XS_SSE2_NARROW_STEP(LOAD4(x, i + 4), s2, s3, mx1, mn1) \
        XS_SSE2_NARROW_STEP(LOAD4(x, i + 8), s4, s5, mx0, mn0) \
        XS_SSE2_NARROW_STEP(LOAD4(x, i + 12), s6, s7, mx1, mn1) \
    } \
    _mm_storeu_pd(sums + 0, s0); _mm_storeu_pd(sums + 2, s1); \
    _mm_storeu_pd(sums + 4, s2); _mm_storeu_pd(sums + 6, s3); \
    _mm_storeu_pd(sums + 8, s4); _mm_storeu_pd(sums + 10, s5); \
    _mm_storeu_pd(sums + 12, s6); _mm_storeu_pd(sums + 14, s7); \
    float mx[4], mn[4]; \
    _mm_storeu_ps(mx, _mm_max_ps(mx0, mx1)); \
    _mm_storeu_ps(mn, _mm_min_ps(mn0, mn1)); \
    float max_abs = mx[0], min_abs = mn[0]; \
    for (int j = 1; j < 4; j++) { \
        max_abs = mx[j] > max_abs ? mx[j] : max_abs; \
        min_abs = mn[j] < min_abs ? mn[j] : min_abs; \
    } \
    range->max_abs = max_abs; \
    range->min_abs = min_abs; \
    range->has_nan = _mm_movemask_ps(nan_seen) != 0; \
}
#define XS_SSE2_NARROW_STEP(V, SA, SB, MX, MN) { \
        __m128 v = (V); \
        __m128 a = _mm_and_ps(v, abs_mask); \
        MX = _mm_max_ps(MX, a); \
        MN = _mm_min_ps(MN, _mm_or_ps(a, _mm_and_ps(_mm_cmpeq_ps(a, zero), inf))); \
        nan_seen = _mm_or_ps(nan_seen, _mm_cmpunord_ps(v, v)); \
        SA = _mm_add_pd(SA, _mm_cvtps_pd(v)); \
        SB = _mm_add_pd(SB, _mm_cvtps_pd(_mm_movehl_ps(v, v))); }
#define XS_SSE2_LOAD4_F32(x, i) _mm_loadu_ps((x) + (i))
/* bfloat16 -> float32: the 16 bits become the high half of each 32-bit word. */
#define XS_SSE2_LOAD4_BF16(x, i) _mm_castsi128_ps(_mm_unpacklo_epi16( \
        _mm_setzero_si128(), _mm_loadl_epi64((const __m128i *)(const void *)((x) + (i)))))
XS_SSE2_NARROW_KERNEL(block_sse2_f32, float, XS_SSE2_LOAD4_F32)
XS_SSE2_NARROW_KERNEL(block_sse2_bf16, uint16_t, XS_SSE2_LOAD4_BF16)

/* AVX2: LOAD8(x, i) gives elements i..i+7 as eight floats. */
#define XS_AVX2_NARROW_KERNEL(NAME, ELEMENT, LOAD8) \
__attribute__((target("avx2"))) \
static void NAME(const void *p, double *sums, xs_block_range *range) \
{ \
    const ELEMENT *x = p; \
    const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)); \
    const __m256 zero = _mm256_setzero_ps(), inf = _mm256_set1_ps(INFINITY); \
    __m256d s0 = _mm256_loadu_pd(sums + 0), s1 = _mm256_loadu_pd(sums + 4); \
    __m256d s2 = _mm256_loadu_pd(sums + 8), s3 = _mm256_loadu_pd(sums + 12); \
    __m256d s4 = _mm256_loadu_pd(sums + 16), s5 = _mm256_loadu_pd(sums + 20); \
    __m256d s6 = _mm256_loadu_pd(sums + 24), s7 = _mm256_loadu_pd(sums + 28); \
    __m256 mx0 = zero, mx1 = zero, mn0 = inf, mn1 = inf, nan_seen = zero; \
    for (int i = 0; i < XS_WINDOW_BLOCK; i += 32) { \
        XS_AVX2_NARROW_STEP(LOAD8(x, i), s0, s1, mx0, mn0) \
        XS_AVX2_NARROW_STEP(LOAD8(x, i + 8), s2, s3, mx1, mn1) \
        XS_AVX2_NARROW_STEP(LOAD8(x, i + 16), s4, s5, mx0, mn0) \
        XS_AVX2_NARROW_STEP(LOAD8(x, i + 24), s6, s7, mx1, mn1) \
    } \
    _mm256_storeu_pd(sums + 0, s0); _mm256_storeu_pd(sums + 4, s1); \
    _mm256_storeu_pd(sums + 8, s2); _mm256_storeu_pd(sums + 12, s3); \
    _mm256_storeu_pd(sums + 16, s4); _mm256_storeu_pd(sums + 20, s5); \
    _mm256_storeu_pd(sums + 24, s6); _mm256_storeu_pd(sums + 28, s7); \
    float mx[8], mn[8]; \
    _mm256_storeu_ps(mx, _mm256_max_ps(mx0, mx1)); \
    _mm256_storeu_ps(mn, _mm256_min_ps(mn0, mn1)); \
    float max_abs = mx[0], min_abs = mn[0]; \
    for (int j = 1; j < 8; j++) { \
        max_abs = mx[j] > max_abs ? mx[j] : max_abs; \
        min_abs = mn[j] < min_abs ? mn[j] : min_abs; \
    } \
    range->max_abs = max_abs; \
    range->min_abs = min_abs; \
    range->has_nan = _mm256_movemask_ps(nan_seen) != 0; \
}
#define XS_AVX2_NARROW_STEP(V, SA, SB, MX, MN) { \
        __m256 v = (V); \
        __m256 a = _mm256_and_ps(v, abs_mask); \
        MX = _mm256_max_ps(MX, a); \
        MN = _mm256_min_ps(MN, _mm256_blendv_ps(a, inf, _mm256_cmp_ps(a, zero, _CMP_EQ_OQ))); \
        nan_seen = _mm256_or_ps(nan_seen, _mm256_cmp_ps(v, v, _CMP_UNORD_Q)); \
        SA = _mm256_add_pd(SA, _mm256_cvtps_pd(_mm256_castps256_ps128(v))); \
        SB = _mm256_add_pd(SB, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1))); }
#define XS_AVX2_LOAD8_F32(x, i) _mm256_loadu_ps((x) + (i))
#define XS_AVX2_LOAD8_BF16(x, i) _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32( \
        _mm_loadu_si128((const __m128i *)(const void *)((x) + (i)))), 16))
XS_AVX2_NARROW_KERNEL(block_avx2_f32, float, XS_AVX2_LOAD8_F32)
XS_AVX2_NARROW_KERNEL(block_avx2_bf16, uint16_t, XS_AVX2_LOAD8_BF16)

/* AVX-512F: LOAD16(x, i) gives elements i..i+15 as sixteen floats. */
#define XS_AVX512_NARROW_KERNEL(NAME, ELEMENT, LOAD16) \
__attribute__((target("avx512f"))) \
static void NAME(const void *p, double *sums, xs_block_range *range) \
{ \
    const ELEMENT *x = p; \
    const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff); \
    const __m512 zero = _mm512_setzero_ps(), inf = _mm512_set1_ps(INFINITY); \
    __m512d s0 = _mm512_loadu_pd(sums + 0), s1 = _mm512_loadu_pd(sums + 8); \
    __m512d s2 = _mm512_loadu_pd(sums + 16), s3 = _mm512_loadu_pd(sums + 24); \
    __m512d s4 = _mm512_loadu_pd(sums + 32), s5 = _mm512_loadu_pd(sums + 40); \
    __m512d s6 = _mm512_loadu_pd(sums + 48), s7 = _mm512_loadu_pd(sums + 56); \
    __m512 mx0 = zero, mx1 = zero, mn0 = inf, mn1 = inf; \
    __mmask16 nan_seen = 0; \
    for (int i = 0; i < XS_WINDOW_BLOCK; i += 64) { \
        XS_AVX512_NARROW_STEP(LOAD16(x, i), s0, s1, mx0, mn0) \
        XS_AVX512_NARROW_STEP(LOAD16(x, i + 16), s2, s3, mx1, mn1) \
        XS_AVX512_NARROW_STEP(LOAD16(x, i + 32), s4, s5, mx0, mn0) \
        XS_AVX512_NARROW_STEP(LOAD16(x, i + 48), s6, s7, mx1, mn1) \
    } \
    _mm512_storeu_pd(sums + 0, s0); _mm512_storeu_pd(sums + 8, s1); \
    _mm512_storeu_pd(sums + 16, s2); _mm512_storeu_pd(sums + 24, s3); \
    _mm512_storeu_pd(sums + 32, s4); _mm512_storeu_pd(sums + 40, s5); \
    _mm512_storeu_pd(sums + 48, s6); _mm512_storeu_pd(sums + 56, s7); \
    range->max_abs = _mm512_reduce_max_ps(_mm512_max_ps(mx0, mx1)); \
    range->min_abs = _mm512_reduce_min_ps(_mm512_min_ps(mn0, mn1)); \
    range->has_nan = nan_seen != 0; \
}
#define XS_AVX512_NARROW_STEP(V, SA, SB, MX, MN) { \
        __m512 v = (V); \
        __m512 a = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(v), abs_mask)); \
        MX = _mm512_max_ps(MX, a); \
        MN = _mm512_min_ps(MN, _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, zero, _CMP_EQ_OQ), a, inf)); \
        nan_seen |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q); \
        SA = _mm512_add_pd(SA, _mm512_cvtps_pd(_mm512_castps512_ps256(v))); \
        SB = _mm512_add_pd(SB, _mm512_cvtps_pd(_mm256_castpd_ps( \
            _mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)))); }
#define XS_AVX512_LOAD16_F32(x, i) _mm512_loadu_ps((x) + (i))
#define XS_AVX512_LOAD16_BF16(x, i) _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32( \
        _mm256_loadu_si256((const __m256i *)(const void *)((x) + (i)))), 16))
XS_AVX512_NARROW_KERNEL(block_avx512_f32, float, XS_AVX512_LOAD16_F32)
XS_AVX512_NARROW_KERNEL(block_avx512_bf16, uint16_t, XS_AVX512_LOAD16_BF16)
#endif

/* The kernels for this CPU, chosen once.  XSUMUFUNC_KERNEL=generic|sse2|avx2|
 * avx512 forces a set (not beyond what the CPU has; the tests run each). */
typedef struct {
    xs_block_kernel float32, bfloat16;
} xs_kernel_set;

static const xs_kernel_set *pick_kernels(void)
{
    static const xs_kernel_set generic = {block_generic_f32, block_generic_bf16};
#ifdef XS_WINDOW_X86
    static const xs_kernel_set sse2 = {block_sse2_f32, block_sse2_bf16};
    static const xs_kernel_set avx2 = {block_avx2_f32, block_avx2_bf16};
    static const xs_kernel_set avx512 = {block_avx512_f32, block_avx512_bf16};
#endif
    /* Atomic: threads may pick at the same time (they pick the same set). */
    static const xs_kernel_set *_Atomic chosen = NULL;
    const xs_kernel_set *known = atomic_load(&chosen);
    if (known) {
        return known;
    }
    xs_kernel_cap cap = xs_kernel_forced();
    const xs_kernel_set *k = &generic;
#ifdef XS_WINDOW_X86
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

/* Adds n elements to the large accumulator, one by one. */
typedef void (*xs_to_large)(xs_large *large, const void *x, ptrdiff_t n);

static void float32_to_large(xs_large *large, const void *p, ptrdiff_t n)
{
    const float *x = p;
    for (ptrdiff_t i = 0; i < n; i++) {
        xs_large_add_bits(large, bits_of((double)x[i]));
    }
}

static void bfloat16_to_large(xs_large *large, const void *p, ptrdiff_t n)
{
    const uint16_t *x = p;
    for (ptrdiff_t i = 0; i < n; i++) {
        xs_large_add_bits(large, bits_of((double)bf16_to_float(x[i])));
    }
}

static void window_add(xs_large *large, const char *x, ptrdiff_t n, size_t itemsize,
                       int binades, xs_block_kernel kernel, xs_to_large to_large)
{
    /* Every addition here is exact, but max/min and comparisons raise
     * "invalid" on a NaN term: keep the caller's flags as they were. */
    fexcept_t flags_before;
    fegetexceptflag(&flags_before, FE_ALL_EXCEPT);
    /* Invariant: in_lanes == 0 exactly when every lane is zero. */
    double lanes[XS_LANES] = {0}, saved[XS_LANES];
    double top = 0.0, bottom = 0.0;        /* the window [bottom, top) */
    ptrdiff_t in_lanes = 0;                /* terms in the lanes since the last flush */
    ptrdiff_t i = 0;
    for (; i + XS_WINDOW_BLOCK <= n; i += XS_WINDOW_BLOCK) {
        const char *block = x + (size_t)i * itemsize;
        xs_block_range r;
        /* Speculatively into the lanes; undone below when the block does not
         * fit (then the lanes may have rounded, so their old value returns). */
        if (in_lanes > 0) {
            memcpy(saved, lanes, sizeof lanes);
        }
        kernel(block, lanes, &r);
        /* Inf/NaN, all zeros (their zero sign needs the exact path) and
         * huge values go to the large accumulator. */
        int usable = !r.has_nan && r.max_abs > 0.0 && r.max_abs < INFINITY;
        int fits = usable && in_lanes > 0 && r.max_abs < top && r.min_abs >= bottom;
        if (!fits) {
            int recompute = 0;
            if (in_lanes > 0) {
                memcpy(lanes, saved, sizeof lanes);
                flush_lanes(&large->small, lanes);      /* zeroes them */
                in_lanes = 0;
                recompute = 1;
            }
            if (usable) {
                /* A new window whose top is one binade above this block's
                 * largest term, so that the next blocks are likely to fit. */
                int e;
                frexp(r.max_abs, &e);             /* max_abs < 2^e */
                int top_exp = e + 1;
                top = ldexp(1.0, top_exp < 1023 ? top_exp : 1023);
                int bottom_exp = top_exp - binades;
                bottom = bottom_exp < -1074 ? 0.0 : ldexp(1.0, bottom_exp);
                usable = top_exp <= XS_WINDOW_MAX_TOP_EXP && r.min_abs >= bottom;
            }
            if (!usable) {
                memset(lanes, 0, sizeof lanes);  /* drop what the kernel added */
                to_large(large, block, XS_WINDOW_BLOCK);
                continue;
            }
            if (recompute) {
                kernel(block, lanes, &r);        /* into empty lanes: exact now */
            }
        }
        /* Multiples of the window's quanta, below 2^53 of them: exact. */
        large->small.flags |= XS_HAS_TERM | XS_NOT_NEG_ZERO;   /* non-zero terms went in */
        in_lanes += XS_WINDOW_BLOCK;
        if (in_lanes >= XS_WINDOW_FLUSH_TERMS) {
            flush_lanes(&large->small, lanes);
            in_lanes = 0;
        }
    }
    flush_lanes(&large->small, lanes);
    to_large(large, x + (size_t)i * itemsize, n - i);
    fesetexceptflag(&flags_before, FE_ALL_EXCEPT);
}

void xs_window_add_float32(xs_large *large, const float *x, ptrdiff_t n)
{
    window_add(large, (const char *)x, n, sizeof *x, XS_WINDOW_BINADES_FLOAT32,
               pick_kernels()->float32, float32_to_large);
}

void xs_window_add_bfloat16(xs_large *large, const uint16_t *x, ptrdiff_t n)
{
    window_add(large, (const char *)x, n, sizeof *x, XS_WINDOW_BINADES_BFLOAT16,
               pick_kernels()->bfloat16, bfloat16_to_large);
}
