/* Fixed-grid cells for contiguous float64 runs (see xs_cells.h). */
#include "kernels/cells/xs_cells.h"
#include "kernels/cells/xs_cells_variants.h"
#include "kernels/cells/xs_cells_blocks.h"
#include "cpu/xs_cpu.h"
#include "exact/xs_running.h"

#include <fenv.h>
#include <stdatomic.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* The floating-point exceptions NumPy turns into warnings ("inexact" is not
 * one of them), read and cleared by a sum.  On x86-64 the code here raises
 * them only in the SSE status register MXCSR (no x87 code), so they are
 * read and cleared there: glibc's feclearexcept also stores and reloads the
 * whole x87 environment, which cost a third of the cuts of a row of 1000
 * terms (the range measure of AVX2 raises "invalid" on a zero term, and a
 * row's padded rest has some). */
#ifdef XS_CPU_X86
#include <immintrin.h>
/* IE, ZE, OE, UE: MXCSR bits 0, 2, 3, 4 (Intel SDM vol. 1, 10.2.3). */
#define XS_MXCSR_REPORTED 0x1du

static inline unsigned reported_flags(void)
{
    return _mm_getcsr() & XS_MXCSR_REPORTED;
}

static inline void clear_flags(unsigned flags)
{
    _mm_setcsr(_mm_getcsr() & ~flags);
}
#else
#define XS_REPORTED_FLAGS (FE_INVALID | FE_OVERFLOW | FE_UNDERFLOW | FE_DIVBYZERO)

static inline unsigned reported_flags(void)
{
    return (unsigned)fetestexcept(XS_REPORTED_FLAGS);
}

static inline void clear_flags(unsigned flags)
{
    feclearexcept((int)flags);
}
#endif



/* bfloat16 is the top half of a float32. */
static inline float bf16_to_float(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* ---- portable kernels (any architecture) --------------------------------- */

/* GCC and Clang: 2-double vectors (vector extensions: SSE2 on x86-64,
 * Advanced SIMD on aarch64, scalar code elsewhere), 4 chains; other
 * compilers: doubles, 8 chains.  Either way 8 lanes per cell, term i in
 * lane i mod 8.  The cuts are running ones (xs_cells_kernel.h: three
 * additions per cut cell, not four), and the range stays off the adders:
 * 16-bit integer maxima and minima on x86-64, 64-bit integer compares
 * elsewhere.  (Zen 5, 1e6 normal terms: 0.45 -> 0.37 ns per term.  These
 * are x86-64's baseline kernels too: the SSE2 ones with Rump's cuts and a
 * floating-point range that the sse2 level had took 0.58.) */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(XS_NO_VECTOR_EXT)
typedef double xs_cv __attribute__((vector_size(16)));
#define XS_CK_VW 2
#define XS_CK_CHAINS 4
#define XS_CV_LANE(v, k) ((v)[k])
#define XS_CK_SET1(d) ((xs_cv){0} + (d))
#else
typedef double xs_cv;
#define XS_CK_VW 1
#define XS_CK_CHAINS 8
#define XS_CV_LANE(v, k) ((void)(k), (v))
#define XS_CK_SET1(d) (d)
#endif

static inline xs_cv cv_load(const double *p)
{
    xs_cv v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* XS_CK_VW float32 or bfloat16 terms as doubles (exact). */
#if defined(__SSE2__) && XS_CK_VW == 2
#include "kernels/cells/xs_top16.h"
static inline xs_cv cv_load_f32(const float *p)
{
    return (xs_cv)_mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)p)));
}

static inline xs_cv cv_load_bf16(const uint16_t *p)
{
    int32_t two;
    memcpy(&two, p, sizeof two);
    /* each bfloat16 the top half of a float32 */
    __m128i f = _mm_unpacklo_epi16(_mm_setzero_si128(), _mm_cvtsi32_si128(two));
    return (xs_cv)_mm_cvtps_pd(_mm_castsi128_ps(f));
}
#else
static inline xs_cv cv_load_f32(const float *p)
{
    double d[XS_CK_VW];
    for (int k = 0; k < XS_CK_VW; k++) {
        d[k] = (double)p[k];
    }
    return cv_load(d);
}

static inline xs_cv cv_load_bf16(const uint16_t *p)
{
    double d[XS_CK_VW];
    for (int k = 0; k < XS_CK_VW; k++) {
        d[k] = (double)bf16_to_float(p[k]);
    }
    return cv_load(d);
}
#endif

static inline void cv_store(double *p, xs_cv v)
{
    memcpy(p, &v, sizeof v);
}

#define XS_CK_TARGET
/* Half the chains for cells 2..K (xs_cells_kernel.h): with four, GCC kept
 * two of the last cell's lanes in memory (Zen 5, the paper's data, three
 * cells: 0.52 -> 0.48 ns per term).  The portable instances only: the
 * AVX2 and AVX-512 ones have registers enough. */
#define XS_CK_LOW_CHAINS (XS_CK_CHAINS / 2)
#define XS_CK_V xs_cv
#define XS_CK_LOAD(p) cv_load(p)
#define XS_CK_STORE(p, v) cv_store((p), (v))
#define XS_CK_ADD(a, b) ((a) + (b))
#define XS_CK_SUB(a, b) ((a) - (b))
#ifdef XS_CELLS_PORTABLE_TOP16
/* x86-64 (XS_CELLS_PORTABLE_TOP16): the range on the integer vector units
 * (xs_top16.h), the 16-bit maximum of the tops of |x| and the minimum of
 * xs_top16_min_key's keys, which puts zeros last with an integer addition
 * (a compare with 0.0 took an adder: Zen 5, 1e6 normal terms 0.37 -> 0.33
 * ns per term, the paper's data 0.58 -> 0.52).  The key reads a smallest
 * |x| that is a power of two one binade lower: a block whose smallest is
 * the window's least is refused, and takes a cell more. */
#define XS_CK_RANGE_INIT \
    const __m128i abs_bits = _mm_set1_epi64x((long long)XS_CELLS_ABS_BITS); \
    __m128i mxv = _mm_setzero_si128(), mnv = XS_TOP16_ABS_LANES();
#define XS_CK_RANGE_STEP(v, j) { \
        __m128i a = _mm_and_si128(_mm_castpd_si128((__m128d)(v)), abs_bits); \
        mxv = _mm_max_epi16(mxv, a); \
        mnv = _mm_min_epi16(mnv, xs_top16_min_key(a)); }
#define XS_CK_RANGE_END(range) { \
        (range)->max_bits = xs_top16_bits(xs_top16_larger(mxv)); \
        (range)->min_bits_m1 = xs_top16_key_min_m1(xs_top16_least_key(mnv)); }
#else
/* Elsewhere on the integer units, one minimum and maximum per chain
 * (XS_CK_MEASURES of them: a single pair would chain every term's compare
 * and select). */
#define XS_CK_MEASURES 4
#define XS_CK_RANGE_INIT \
    uint64_t mx[XS_CK_MEASURES] = {0}, mn[XS_CK_MEASURES]; \
    for (int k = 0; k < XS_CK_MEASURES; k++) { \
        mn[k] = UINT64_MAX; \
    }
#define XS_CK_RANGE_STEP(v, j) \
    for (int k = 0; k < XS_CK_VW; k++) { \
        int m = ((j) * XS_CK_VW + k) % XS_CK_MEASURES; \
        uint64_t a = xs_double_bits(XS_CV_LANE(v, k)) & XS_CELLS_ABS_BITS; \
        mx[m] = a > mx[m] ? a : mx[m]; \
        mn[m] = a - 1 < mn[m] ? a - 1 : mn[m];      /* 0 - 1 wraps to UINT64_MAX */ \
    }
#define XS_CK_RANGE_END(range) { \
        for (int k = 1; k < XS_CK_MEASURES; k++) { \
            mx[0] = mx[k] > mx[0] ? mx[k] : mx[0]; \
            mn[0] = mn[k] < mn[0] ? mn[k] : mn[0]; \
        } \
        (range)->max_bits = mx[0]; \
        (range)->min_bits_m1 = mn[0]; }
#endif
#define XS_CK_ELEMENT double
#define XS_CK_LOAD_IN(x, i) cv_load((x) + (i))
#define XS_CI_NAME(K) cells_f64_generic_##K
#include "kernels/cells/xs_cells_instances.h"
#define XS_CK_BINNED 1
#define XS_CK_ELEMENT double
#define XS_CK_LOAD_IN(x, i) cv_load((x) + (i))
#define XS_CI_NAME(K) cells_f64_generic_binned_##K
#include "kernels/cells/xs_cells_instances.h"
#define XS_CK_ELEMENT float
#define XS_CK_LOAD_IN(x, i) cv_load_f32((x) + (i))
#define XS_CI_NAME(K) cells_f32_generic_##K
#include "kernels/cells/xs_cells_instances.h"
#define XS_CK_ELEMENT uint16_t
#define XS_CK_LOAD_IN(x, i) cv_load_bf16((x) + (i))
#define XS_CI_NAME(K) cells_bf16_generic_##K
#include "kernels/cells/xs_cells_instances.h"
#include "kernels/cells/xs_cells_isa_end.h"
#undef XS_CK_MEASURES
#undef XS_CV_LANE

#ifdef XS_CPU_X86
#define XS_CELLS_X86 1
#include "kernels/cells/xs_top16.h"

/* AVX2: 4-double vectors, 2 chains. */
#define XS_CK_TARGET XS_TARGET_AVX2
#define XS_CK_V __m256d
#define XS_CK_VW 4
#define XS_CK_CHAINS 2
#define XS_CK_LOAD(p) _mm256_loadu_pd(p)
#define XS_CK_STORE(p, v) _mm256_storeu_pd((p), (v))
#define XS_CK_ADD(a, b) _mm256_add_pd((a), (b))
#define XS_CK_SUB(a, b) _mm256_sub_pd((a), (b))
#define XS_CK_SET1(d) _mm256_set1_pd(d)
/* The range on the integer vector units, as the portable kernels measure
 * it on x86-64 (xs_top16.h): the 16-bit maximum of the tops of |term| and
 * the minimum of xs_top16_min_key's keys, three ops a vector off the
 * floating-point units (a NaN's or an Inf's top is +Inf's or above it,
 * which no window takes).  Until stop 47 a vmaxpd and a vminpd of |term|'s
 * bits took the adders beside the cuts, and a NaN needed a second look at
 * the block (Zen 5, forced avx2, 1e6 terms: lognormal(0, 3) 0.22 -> 0.18
 * ns per term, the paper's data 0.32 -> 0.26; (1000, 1000) lognormal rows
 * 0.29-0.31 -> 0.25-0.27). */
#define XS_CK_RANGE_INIT \
    const __m256i abs_bits = _mm256_set1_epi64x((long long)XS_CELLS_ABS_BITS); \
    const __m256i key_add = _mm256_set1_epi64x((long long)XS_TOP16_KEY_ADD); \
    __m256i mxv = _mm256_setzero_si256(), mnv = _mm256_set1_epi64x((long long)XS_TOP16_ABS_BITS);
#define XS_CK_RANGE_STEP(v, j) { \
        __m256i a = _mm256_and_si256(_mm256_castpd_si256(v), abs_bits); \
        mxv = _mm256_max_epi16(mxv, a); \
        mnv = _mm256_min_epi16(mnv, _mm256_add_epi64(a, key_add)); }
#define XS_CK_RANGE_END(range) { \
        __m128i mx2 = _mm_max_epi16(_mm256_castsi256_si128(mxv), \
                                    _mm256_extracti128_si256(mxv, 1)); \
        __m128i mn2 = _mm_min_epi16(_mm256_castsi256_si128(mnv), \
                                    _mm256_extracti128_si256(mnv, 1)); \
        (range)->max_bits = xs_top16_bits(xs_top16_larger(mx2)); \
        (range)->min_bits_m1 = xs_top16_key_min_m1(xs_top16_least_key(mn2)); }
#define XS_CK_ELEMENT double
#define XS_CK_LOAD_IN(x, i) _mm256_loadu_pd((x) + (i))
#define XS_CI_NAME(K) cells_f64_avx2_##K
#include "kernels/cells/xs_cells_instances.h"
#define XS_CK_ELEMENT float
#define XS_CK_LOAD_IN(x, i) _mm256_cvtps_pd(_mm_loadu_ps((x) + (i)))
#define XS_CI_NAME(K) cells_f32_avx2_##K
#include "kernels/cells/xs_cells_instances.h"
#define XS_CK_ELEMENT uint16_t
#define XS_CK_LOAD_IN(x, i) _mm256_cvtps_pd(_mm_castsi128_ps(_mm_slli_epi32(_mm_cvtepu16_epi32( \
        _mm_loadl_epi64((const __m128i *)(const void *)((x) + (i)))), 16)))
#define XS_CI_NAME(K) cells_bf16_avx2_##K
#include "kernels/cells/xs_cells_instances.h"
#include "kernels/cells/xs_cells_isa_end.h"

/* AVX-512F: 8-double vectors, 2 chains; the range in integer registers
 * (unsigned 64-bit min/max), beside the floating-point adds. */
#define XS_CK_TARGET XS_TARGET_AVX512
#define XS_CK_V __m512d
#define XS_CK_VW 8
#define XS_CK_CHAINS 2
#define XS_CK_LOAD(p) _mm512_loadu_pd(p)
#define XS_CK_STORE(p, v) _mm512_storeu_pd((p), (v))
#define XS_CK_ADD(a, b) _mm512_add_pd((a), (b))
#define XS_CK_SUB(a, b) _mm512_sub_pd((a), (b))
#define XS_CK_SET1(d) _mm512_set1_pd(d)
#define XS_CK_RANGE_INIT \
    const __m512i abs_mask = _mm512_set1_epi64((long long)XS_CELLS_ABS_BITS); \
    const __m512i one = _mm512_set1_epi64(1); \
    __m512i mx = _mm512_setzero_si512(), mn = _mm512_set1_epi64(-1);
#define XS_CK_RANGE_STEP(v, j) { \
        __m512i a = _mm512_and_si512(_mm512_castpd_si512(v), abs_mask); \
        mx = _mm512_max_epu64(mx, a); \
        mn = _mm512_min_epu64(mn, _mm512_sub_epi64(a, one)); }
#define XS_CK_RANGE_END(range) { \
        (range)->max_bits = _mm512_reduce_max_epu64(mx); \
        (range)->min_bits_m1 = _mm512_reduce_min_epu64(mn); }
#define XS_CK_ELEMENT double
#define XS_CK_LOAD_IN(x, i) _mm512_loadu_pd((x) + (i))
#define XS_CI_NAME(K) cells_f64_avx512_##K
#include "kernels/cells/xs_cells_instances.h"
#define XS_CK_ELEMENT float
#define XS_CK_LOAD_IN(x, i) _mm512_cvtps_pd(_mm256_loadu_ps((x) + (i)))
#define XS_CI_NAME(K) cells_f32_avx512_##K
#include "kernels/cells/xs_cells_instances.h"
#define XS_CK_ELEMENT uint16_t
#define XS_CK_LOAD_IN(x, i) _mm512_cvtps_pd(_mm256_castsi256_ps(_mm256_slli_epi32( \
        _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)((x) + (i)))), 16)))
#define XS_CI_NAME(K) cells_bf16_avx512_##K
#include "kernels/cells/xs_cells_instances.h"
#include "kernels/cells/xs_cells_isa_end.h"
#endif

/* The kernels of each level (src/cpu/xs_cpu.h picks; XSUMUFUNC_KERNEL caps it
 * and the tests force each). */
/* The portable kernels share the blocks of three and four cells with a
 * large accumulator's bins (XS_CK_BINNED, xs_cells_kernel.h): the cuts of
 * half the terms on the floating-point adders and the other half's adds
 * on the integer units, side by side (Zen 5, forced generic, 1e6 terms of
 * the paper's data: 0.48-0.49 -> 0.39-0.40 ns per term).  Not the AVX2 and
 * AVX-512 ones, whose cuts of a term cost less than its integer add
 * (there: 0.32 -> 0.33 and 0.16 -> 0.37). */
static const xs_cells_set generic = XS_CELLS_SET_BINNED(generic);
#ifdef XS_CELLS_X86
static const xs_cells_set avx2 = XS_CELLS_SET(avx2);
static const xs_cells_set avx512 = XS_CELLS_SET(avx512);
#endif
const void *const xs_cells_variants[XS_ISA_COUNT] = {
    [XS_ISA_GENERIC] = &generic,
#ifdef XS_CELLS_X86
    [XS_ISA_AVX2] = &avx2, [XS_ISA_AVX512] = &avx512,
#endif
#ifdef XS_CPU_NEON
    [XS_ISA_NEON] = &xs_cells_neon,
#endif
};

static const xs_cells_set *pick_kernels(void)
{
    return xs_cpu_pick(xs_cells_variants);
}


/* ---- the driver --------------------------------------------------------- */

/* What the driver needs to know of an input type. */
typedef struct {
    size_t itemsize;
    int precision;                         /* significand bits: 53, 24, 8 */
    uint64_t (*bits)(const void *x, ptrdiff_t i);   /* element i as float64 bits */
} xs_cells_type;

static inline uint64_t f64_bits(const void *x, ptrdiff_t i)
{
    double v;
    memcpy(&v, (const char *)x + 8 * i, sizeof v);
    return xs_double_bits(v);
}

static inline uint64_t f32_bits(const void *x, ptrdiff_t i)
{
    float v;
    memcpy(&v, (const char *)x + 4 * i, sizeof v);
    return xs_double_bits((double)v);
}

static inline uint64_t bf16_bits(const void *x, ptrdiff_t i)
{
    uint16_t v;
    memcpy(&v, (const char *)x + 2 * i, sizeof v);
    return xs_double_bits((double)bf16_to_float(v));
}

static const xs_cells_type type_f64 = {8, 53, f64_bits};
static const xs_cells_type type_f32 = {4, 24, f32_bits};
static const xs_cells_type type_bf16 = {2, 8, bf16_bits};

/* The range of the first n elements of a block (a first look). */
static void range_of(const xs_cells_type *type, const void *x, int n, xs_cells_range *range)
{
    uint64_t mx = 0, mn = UINT64_MAX;
    for (int i = 0; i < n; i++) {
        uint64_t a = type->bits(x, i) & XS_CELLS_ABS_BITS;
        mx = a > mx ? a : mx;
        mn = a - 1 < mn ? a - 1 : mn;
    }
    range->max_bits = mx;
    range->min_bits_m1 = mn;
}

/* A window nothing fits (every |term| below 2^-1075, i.e. none): a kernel
 * run against it only measures the block. */
static const xs_cells_window measure_only = {0};

static int cells_needed(const xs_cells_type *type, int top, const xs_cells_range *r)
{
    return xs_cells_needed(type->precision, top, r->min_bits_m1);
}

static void set_window(const xs_cells_type *type, xs_cells_window *w, int top, int cells)
{
    xs_cells_set_window(w, type->precision, top, cells);
}

static int choose_window(const xs_cells_type *type, xs_cells_window *w, const xs_cells_range *r)
{
    return xs_cells_choose(w, type->precision, r->max_bits, r->min_bits_m1);
}

/* Terms that fit no window: into the large accumulator, made on first use
 * (*large caches it between rows; its small part is cleared then), or into
 * acc itself if there is no memory for one. */
typedef struct {
    xs_small *acc;
    xs_large **cache;
    xs_large *large;             /* NULL until first use */
    int used;                    /* some term went here */
} xs_cells_rest;

/* The loop of to_rest for one element type (inlined: no call per term). */
#define XS_REST_LOOP(ADD, INTO, BITS) \
    for (ptrdiff_t i = 0; i < n; i++) { \
        ADD((INTO), BITS(x, i)); \
    }
#define XS_REST_TYPES(ADD, INTO) \
    switch (type->precision) { \
    case 53: XS_REST_LOOP(ADD, INTO, f64_bits) break; \
    case 24: XS_REST_LOOP(ADD, INTO, f32_bits) break; \
    default: XS_REST_LOOP(ADD, INTO, bf16_bits) break; \
    }

static void to_rest(xs_cells_rest *rest, const xs_cells_type *type, const void *x, ptrdiff_t n)
{
    rest->used = 1;
    if (rest->large == NULL && n > 0) {
        rest->large = xs_large_for_row(rest->cache);
    }
    if (rest->large != NULL && type->precision == 53) {
        /* float64: the block loop, no test per term (xs_large.h) */
        xs_large_add_float64(rest->large, (const char *)x, n, (ptrdiff_t)sizeof(double));
    }
    else if (rest->large != NULL) {
        XS_REST_TYPES(xs_large_add_bits, rest->large)
    }
    else {
        XS_REST_TYPES(xs_small_add_bits, rest->acc)
    }
}
#undef XS_REST_TYPES
#undef XS_REST_LOOP

/* Terms a row needs for the binned kernels (xs_cells.h): their large
 * accumulator keeps no bitmap of the bins used, and its flush at the row's
 * end walks all 4096 (Zen 5, forced generic: rows of 1000 terms of the
 * paper's data 0.57 -> 1.22 ns per term). */
static _Atomic ptrdiff_t binned_min_terms = XS_CELLS_BINNED_MIN_TERMS;

ptrdiff_t xs_cells_binned_min_terms(ptrdiff_t n)
{
    if (n < 0) {
        return atomic_load_explicit(&binned_min_terms, memory_order_relaxed);
    }
    return atomic_exchange_explicit(&binned_min_terms, n, memory_order_relaxed);
}

/* The kernel of w's cell count on a block (its result): a binned one
 * (xs_cells_variants.h) where the level has one for that count, the block
 * is whole and the lanes are active (a kernel may then run again on the
 * block only after a refusal, which leaves the bins as they were), into
 * the rest's large accumulator; else the plain one. */
static int block_kernel(const xs_cells_kernel *kernels, const xs_cells_binned_kernel *binned,
                        xs_cells_blocks *t, xs_cells_rest *rest, const void *block,
                        int padded, const xs_cells_window *w, xs_cells_range *r)
{
    xs_cells_binned_kernel k = binned != NULL ? binned[w->cells] : NULL;
    if (k == NULL || padded != XS_CELLS_BLOCK || !t->active) {
        return kernels[w->cells](block, padded, t->lanes, w, r);
    }
    if (rest->large == NULL) {
        rest->large = xs_large_for_row(rest->cache);
        if (rest->large == NULL) {                  /* no memory: the plain kernel */
            return kernels[w->cells](block, padded, t->lanes, w, r);
        }
    }
    if (!k(block, padded, t->lanes, w, r, rest->large)) {
        return 0;
    }
    /* The bins' used bitmap is not kept: the flush walks every bin. */
    rest->large->tracked = XS_LARGE_TRACKED_TERMS;
    rest->used = 1;
    return 1;
}

/* One block into the lanes under t's window, a new one, or (fitting none)
 * into the rest.  try_w: w is the last row's window, tried before the block
 * is measured (t not active yet). */
static void cells_block(const xs_cells_type *type, const xs_cells_kernel *kernels,
                        const xs_cells_binned_kernel *binned, xs_cells_blocks *t,
                        xs_cells_rest *rest, const void *here, const void *block,
                        ptrdiff_t terms, int padded, int try_w)
{
    /* First the current window.  A kernel that refuses the block measures
     * all of it. */
    xs_cells_range r;
    xs_cells_window next;
    const xs_cells_window *first = &t->w;
    if (!t->active && !try_w) {
        /* After blocks in a row that fit no window, a first look at the
         * block's first terms: if they fit none, nor does it. */
        if (t->refused >= 2) {
            range_of(type, block, XS_CELLS_STEP, &r);
            if (r.max_bits != 0 && !choose_window(type, &next, &r)) {
                to_rest(rest, type, here, terms);
                return;
            }
        }
        /* No window: measure the block (the one-cell kernel against a
         * window nothing fits: vector code, the lanes untouched), then take
         * the window that fits it. */
        kernels[1](block, padded, t->lanes, &measure_only, &r);
        first = NULL;
    }
    /* (Under the last row's window, a block of zeros alone does not make
     * the lanes active: the rest keeps the sign of a zero sum.) */
    int fits = first != NULL &&
               block_kernel(kernels, binned, t, rest, block, padded, first, &r) &&
               (t->active || r.max_bits != 0);
    if (!fits) {
        int more;
        if (t->active && r.max_bits < t->w.max_limit &&
                (more = cells_needed(type, t->w.top, &r)) <= XS_CELLS_MAX) {
            set_window(type, &next, t->w.top, more);   /* more cells, same grid: no flush */
        }
        else if (choose_window(type, &next, &r)) {
            xs_cells_blocks_regrid(t);
        }
        else {
            to_rest(rest, type, here, terms);
            xs_cells_blocks_refuse(t);      /* too wide for any window, twice: stop trying */
            return;
        }
        block_kernel(kernels, binned, t, rest, block, padded, &next, &r);    /* fits */
    }
    if (first != &t->w || !fits) {
        xs_cells_blocks_move(t, &next);
    }
    else if (xs_cells_blocks_narrower(t, t->w.cells > 1 &&
                                         cells_needed(type, t->w.top, &r) < t->w.cells)) {
        set_window(type, &t->w, t->w.top, t->w.cells - 1);
    }
    xs_cells_blocks_took(t);
}

/* Adds x[0..n) into acc.  With cells != NULL, when every term went
 * through one window's lanes (nothing into acc or the large accumulator
 * yet), the lanes' exact cell sums are left in cells[0..count) instead and
 * count is returned; otherwise 0 (everything is in acc).  hint (or NULL):
 * the last row's window (cells 0: none), tried first; the row's is left in
 * it. */
static int cells_add(const xs_cells_type *type, const xs_cells_kernel *kernels,
                     const xs_cells_binned_kernel *binned, xs_small *acc, xs_large **large,
                     const char *x, ptrdiff_t n, double *cells, xs_cells_hint *hint)
{
    /* Every addition here is exact, but the cuts are inexact by design and
     * a NaN/Inf term raises "invalid" or "overflow" in a kernel whose
     * block is then refused: clear what was raised here of the flags NumPy
     * reports (testing is cheap; restoring the whole state is not). */
    unsigned reported_before = reported_flags();
    /* The last, partial block, padded with zeros.  Doubles: aligned for
     * every type. */
    double tail[XS_CELLS_BLOCK];
    xs_cells_rest rest = {acc, large, NULL, 0};
    /* Binned kernels for long rows only (binned_min_terms). */
    if (n < atomic_load_explicit(&binned_min_terms, memory_order_relaxed)) {
        binned = NULL;
    }
    xs_cells_blocks t = {.acc = acc};
    int hinted = hint != NULL && hint->w.cells > 0;
    if (hinted) {
        t.w = hint->w;
        t.narrower = hint->narrower;
    }
    for (ptrdiff_t i = 0, terms; i < n; i += terms) {
        const char *here = x + (size_t)i * type->itemsize;
        int padded;
        terms = xs_cells_blocks_length(n - i, &padded);
        const void *block = xs_cells_blocks_pad(tail, here, terms, padded, type->itemsize);
        cells_block(type, kernels, binned, &t, &rest, here, block, terms, padded,
                    hinted && i == 0);
    }
    if (hint != NULL && t.active) {
        hint->w = t.w;
        hint->narrower = t.narrower;
    }
    int count = 0;
    if (cells != NULL && t.active && !t.flushed && !rest.used) {
        count = xs_cells_sums(t.lanes, t.lanes_cells, cells);
    }
    else if (t.active) {
        xs_cells_blocks_flush(&t);
    }
    if (rest.large != NULL) {
        xs_large_flush(rest.large);
        xs_small_merge(acc, &rest.large->small);
    }
    unsigned raised_here = reported_flags() & ~reported_before;
    if (raised_here) {
        clear_flags(raised_here);
    }
    return count;
}

/* A row's sum (divisor 1) or mean, rounded into fmt: 1 and *out when the
 * row went through one window and the two-double approximation of its cell
 * sums decides the rounding (xs_running.h); else 0 and the row's exact sum
 * in acc. */
static int cells_round(const xs_cells_type *type, const xs_cells_kernel *kernels,
                       const xs_cells_binned_kernel *binned, xs_small *acc,
                       xs_large **large, const char *x, ptrdiff_t n, const xs_format *fmt,
                       uint64_t divisor, double *out, xs_cells_hint *hint)
{
    double cells[XS_CELLS_GRID_MAX + 1];
    int count = cells_add(type, kernels, binned, acc, large, x, n, cells, hint);
    if (count == 0) {
        return 0;
    }
    if (xs_cells_round_sums(cells, count, divisor, fmt, out)) {
        return 1;
    }
    for (int c = 0; c < count; c++) {
        if (cells[c] != 0.0) {
            xs_small_add_bits(acc, xs_double_bits(cells[c]));
        }
    }
    return 0;
}

void xs_cells_add_float64(xs_small *acc, xs_large **large, const double *x, ptrdiff_t n)
{
    const xs_cells_set *set = pick_kernels();
    cells_add(&type_f64, set->f64, set->f64_binned, acc, large, (const char *)x, n, NULL, NULL);
}

void xs_cells_add_float32(xs_small *acc, xs_large **large, const float *x, ptrdiff_t n)
{
    cells_add(&type_f32, pick_kernels()->f32, NULL, acc, large, (const char *)x, n, NULL, NULL);
}

void xs_cells_add_bfloat16(xs_small *acc, xs_large **large, const uint16_t *x, ptrdiff_t n)
{
    cells_add(&type_bf16, pick_kernels()->bf16, NULL, acc, large, (const char *)x, n, NULL, NULL);
}

int xs_cells_round_float64(xs_small *acc, xs_large **large, const double *x, ptrdiff_t n,
                           const xs_format *fmt, uint64_t divisor, double *out,
                           xs_cells_hint *hint)
{
    const xs_cells_set *set = pick_kernels();
    return cells_round(&type_f64, set->f64, set->f64_binned, acc, large, (const char *)x, n,
                       fmt, divisor, out, hint);
}

int xs_cells_round_float32(xs_small *acc, xs_large **large, const float *x, ptrdiff_t n,
                           const xs_format *fmt, uint64_t divisor, double *out,
                           xs_cells_hint *hint)
{
    return cells_round(&type_f32, pick_kernels()->f32, NULL, acc, large, (const char *)x, n,
                       fmt, divisor, out, hint);
}

int xs_cells_round_bfloat16(xs_small *acc, xs_large **large, const uint16_t *x, ptrdiff_t n,
                            const xs_format *fmt, uint64_t divisor, double *out,
                           xs_cells_hint *hint)
{
    return cells_round(&type_bf16, pick_kernels()->bf16, NULL, acc, large, (const char *)x, n,
                       fmt, divisor, out, hint);
}
