/* Short rows summed exactly in two doubles (see xs_short_row.h). */
#include "kernels/dot/xs_short_row.h"
#include "kernels/dot/xs_short_row_variants.h"

#include <fenv.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "exact/xs_exact.h"
#include "exact/xs_ieee.h"
#include "exact/xs_running.h"
#include "exact/xs_types.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#define XS_SR_HAVE_MXCSR 1
#endif

/* Significant bits of a hi part; the window of a row of n < 2^k terms is
 * XS_SR_HI_BITS - k binades wide (xs_short_row.h). */
#define XS_SR_HI_BITS 27
/* The largest k: XS_SHORT_ROW_MAX < 2^XS_SR_MAX_K. */
#define XS_SR_MAX_K 10
_Static_assert(XS_SHORT_ROW_MAX < (1 << XS_SR_MAX_K), "rows within the window's bound");
/* hi sums stay below 2^(t+k) <= 2^(t+10): t at most this keeps them finite. */
#define XS_SHORT_ROW_MAX_TOP_EXP (1023 - XS_SR_MAX_K)
/* Fraction bits a term's hi part leaves out. */
#define XS_SR_LOW_BITS (XS_F64_MANT_BITS + 1 - XS_SR_HI_BITS)
#define XS_SR_KEEP_BITS (~(((uint64_t)1 << XS_SR_LOW_BITS) - 1))
/* The second pass: parts of XS_SR_TOP_BITS, XS_SR_TOP_BITS and 17
 * significant bits, a window of XS_SR_THREE_BITS - k binades; the masks
 * keep a term's top XS_SR_TOP_BITS and 2 XS_SR_TOP_BITS bits. */
#define XS_SR_TOP_BITS 18
#define XS_SR_THREE_BITS (2 * XS_SR_TOP_BITS)
#define XS_SR_KEEP1_BITS (~(((uint64_t)1 << (XS_F64_MANT_BITS + 1 - XS_SR_TOP_BITS)) - 1))
#define XS_SR_KEEP12_BITS (~(((uint64_t)1 << (XS_F64_MANT_BITS + 1 - XS_SR_THREE_BITS)) - 1))
/* Rows this long or shorter take the second pass; longer ones go to the
 * cells, which the two passes do not beat from a few hundred terms on
 * (Zen 4, rows of lognormal(0, 3) data, ns per term, cells -> two passes:
 * 200 terms 0.81 -> 0.63 under AVX2, 500 terms 0.48 -> 0.51, 1000 terms
 * 0.31-0.35 -> 0.35-0.40 under AVX-512, where a third of the rows fit). */
#define XS_SR_THREE_MAX 255
/* |x| on the pattern: the sign bit off. */
#define XS_SR_ABS_BITS (~XS_F64_SIGN_BIT)

/* A term of a row as a double (float32 widened: exact). */
static inline double xs_short_row_term(const char *p, int itemsize)
{
    return itemsize == 8 ? xs_value_float64(p) : xs_value_float32(p);
}

/* The two passes one term at a time: the vector kernels' last terms
 * (xs_short_row_kernel.h) and the whole row where a compiler has no vector
 * extensions.  Macros, not functions: an inline function in their place
 * changed the register allocation of the vector kernels.
 *
 * The first pass: the term at p into the range (big, small: the largest
 * |x|, the smallest nonzero one) and the sums (hi, lo). */
#define XS_SR_TERM(p, itemsize, hi, lo, big, small) \
    do { \
        double v_ = xs_short_row_term((p), (itemsize)); \
        double a_ = xs_bits_double(xs_double_bits(v_) & XS_SR_ABS_BITS); \
        (big) = a_ > (big) ? a_ : (big); \
        (small) = a_ != 0.0 && a_ < (small) ? a_ : (small); \
        double h_ = xs_bits_double(xs_double_bits(v_) & XS_SR_KEEP_BITS); \
        (hi) += h_; \
        (lo) += v_ - h_; \
    } while (0)
/* The second pass: the term at p into the three sums. */
#define XS_SR_TERM3(p, itemsize, s1, s2, s3) \
    do { \
        double v_ = xs_short_row_term((p), (itemsize)); \
        double h1_ = xs_bits_double(xs_double_bits(v_) & XS_SR_KEEP1_BITS); \
        double h12_ = xs_bits_double(xs_double_bits(v_) & XS_SR_KEEP12_BITS); \
        (s1) += h1_; \
        (s2) += h12_ - h1_; \
        (s3) += v_ - h12_; \
    } while (0)

/* ---- the instances ------------------------------------------------------- */

#if (defined(__GNUC__) || defined(__clang__)) && !defined(XS_NO_VECTOR_EXT)
#ifdef XS_CPU_X86
#include <immintrin.h>
/* The baseline: SSE2 (x86-64 always has it). */
#define XS_SR_NAME short_row_generic
#define XS_SR_TARGET
#define XS_SR_W 2
#define XS_SR_MAX(a, m) ((short_row_generic_v)_mm_max_pd((__m128d)(a), (__m128d)(m)))
#define XS_SR_MIN(a, m) ((short_row_generic_v)_mm_min_pd((__m128d)(a), (__m128d)(m)))
#include "kernels/dot/xs_short_row_kernel.h"
#define XS_SR_NAME short_row_avx2
#define XS_SR_TARGET XS_TARGET_AVX2
#define XS_SR_W 4
#define XS_SR_MAX(a, m) ((short_row_avx2_v)_mm256_max_pd((__m256d)(a), (__m256d)(m)))
#define XS_SR_MIN(a, m) ((short_row_avx2_v)_mm256_min_pd((__m256d)(a), (__m256d)(m)))
#include "kernels/dot/xs_short_row_kernel.h"
#define XS_SR_NAME short_row_avx512
#define XS_SR_TARGET XS_TARGET_AVX512
#define XS_SR_W 8
/* Rows shorter than eight 8-lane vectors run the AVX2 body: Zen 4, normal
 * data, ns per term, AVX-512 against AVX2: 4 terms 6.4 / 4.4, 10 terms
 * 2.6 / 2.2, 32 terms 1.03 / 0.90, 48 terms 0.72-0.77 / 0.69-0.70, 64
 * terms 0.59 / 0.64. */
#define XS_SR_NARROW_BELOW 64
#define XS_SR_NARROW(x, n, itemsize, out) short_row_avx2_row((x), (n), (itemsize), (out))
#define XS_SR_NARROW_THREE(x, n, itemsize, sums) \
    short_row_avx2_three((x), (n), (itemsize), (sums))
#define XS_SR_MAX(a, m) ((short_row_avx512_v)_mm512_max_pd((__m512d)(a), (__m512d)(m)))
#define XS_SR_MIN(a, m) ((short_row_avx512_v)_mm512_min_pd((__m512d)(a), (__m512d)(m)))
#include "kernels/dot/xs_short_row_kernel.h"
#else
/* Elsewhere (aarch64: Advanced SIMD registers) 16-byte vectors, the maximum
 * and minimum by a compare and a blend: a NaN compares false and keeps m. */
#define XS_SR_BLEND(V, VI, take, a, m) ((V)(((take) & (VI)(a)) | (~(take) & (VI)(m))))
#define XS_SR_NAME short_row_generic
#define XS_SR_TARGET
#define XS_SR_W 2
#define XS_SR_MAX(a, m) \
    XS_SR_BLEND(short_row_generic_v, short_row_generic_vi, (a) > (m), (a), (m))
#define XS_SR_MIN(a, m) \
    XS_SR_BLEND(short_row_generic_v, short_row_generic_vi, (a) < (m), (a), (m))
#include "kernels/dot/xs_short_row_kernel.h"
#ifdef XS_CPU_NEON
/* aarch64: the same code, a level of its own for the tests. */
#define XS_SR_NAME short_row_neon
#define XS_SR_TARGET
#define XS_SR_W 2
#define XS_SR_MAX(a, m) XS_SR_BLEND(short_row_neon_v, short_row_neon_vi, (a) > (m), (a), (m))
#define XS_SR_MIN(a, m) XS_SR_BLEND(short_row_neon_v, short_row_neon_vi, (a) < (m), (a), (m))
#include "kernels/dot/xs_short_row_kernel.h"
#endif
#endif
#else
/* Another compiler: the same per term in plain C. */
static void short_row_scalar(const char *x, int n, int itemsize, xs_short_row_split *out)
{
    double hi = 0.0, lo = 0.0, big = 0.0, small = (double)INFINITY;
    for (int i = 0; i < n; i++) {
        XS_SR_TERM(x + (ptrdiff_t)i * itemsize, itemsize, hi, lo, big, small);
    }
    out->hi = hi;
    out->lo = lo;
    out->max_abs = big;
    out->min_abs = small;
}

static void short_row_generic_f64(const char *x, int n, xs_short_row_split *out)
{
    short_row_scalar(x, n, 8, out);
}

static void short_row_generic_f32(const char *x, int n, xs_short_row_split *out)
{
    short_row_scalar(x, n, 4, out);
}

static void short_row_scalar_three(const char *x, int n, int itemsize, double *sums)
{
    double s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (int i = 0; i < n; i++) {
        XS_SR_TERM3(x + (ptrdiff_t)i * itemsize, itemsize, s1, s2, s3);
    }
    sums[0] = s1;
    sums[1] = s2;
    sums[2] = s3;
}

static void short_row_generic_three_f64(const char *x, int n, double *sums)
{
    short_row_scalar_three(x, n, 8, sums);
}

static void short_row_generic_three_f32(const char *x, int n, double *sums)
{
    short_row_scalar_three(x, n, 4, sums);
}
#endif

/* The kernels of each level (src/cpu/xs_cpu.h picks, under
 * XSUMUFUNC_KERNEL's cap: sse2 takes the generic ones). */
static const xs_short_row_kernels generic = {short_row_generic_f64, short_row_generic_f32,
                                             short_row_generic_three_f64,
                                             short_row_generic_three_f32};
#if defined(XS_CPU_X86) && !defined(XS_NO_VECTOR_EXT)
#define XS_SHORT_ROW_X86 1
static const xs_short_row_kernels avx2 = {short_row_avx2_f64, short_row_avx2_f32,
                                          short_row_avx2_three_f64, short_row_avx2_three_f32};
static const xs_short_row_kernels avx512 = {short_row_avx512_f64, short_row_avx512_f32,
                                            short_row_avx512_three_f64,
                                            short_row_avx512_three_f32};
#endif
#if defined(XS_CPU_NEON) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(XS_NO_VECTOR_EXT)
#define XS_SHORT_ROW_NEON 1
static const xs_short_row_kernels neon = {short_row_neon_f64, short_row_neon_f32,
                                          short_row_neon_three_f64, short_row_neon_three_f32};
#endif
const void *const xs_short_row_variants[XS_ISA_COUNT] = {
    [XS_ISA_GENERIC] = &generic,
#ifdef XS_SHORT_ROW_X86
    [XS_ISA_AVX2] = &avx2, [XS_ISA_AVX512] = &avx512,
#endif
#ifdef XS_SHORT_ROW_NEON
    [XS_ISA_NEON] = &neon,
#endif
};

/* ---- the decision -------------------------------------------------------- */

/* Whether a double is finite, on its pattern (no flag raised). */
static inline int finite_bits(double x)
{
    return (xs_double_bits(x) & XS_F64_INF_BITS) != XS_F64_INF_BITS;
}

/* Whether a row of n terms whose largest |x| is max_abs (finite, not 0) and
 * smallest non-zero one min_abs fits a window of xs_short_row.h: t the
 * least with max_abs < 2^t, at most XS_SHORT_ROW_MAX_TOP_EXP, and min_abs
 * at least 2^(t - B), B = bits - k (or that below 2^-1074: every term
 * fits); bits: XS_SR_HI_BITS (the first pass), XS_SR_THREE_BITS (the
 * second). */
static int fits_window(int n, double max_abs, double min_abs, int bits)
{
    int k = 1;                                   /* n < 2^k */
    while (n >> k) {
        k++;
    }
    int field = (int)(xs_double_bits(max_abs) >> XS_F64_MANT_BITS);
    int top_exp;
    if (field != 0) {
        top_exp = field - XS_F64_EXP_BIAS + 1;   /* in [2^(top_exp-1), 2^top_exp) */
    }
    else {
        frexp(max_abs, &top_exp);                /* a subnormal: rare */
    }
    if (top_exp > XS_SHORT_ROW_MAX_TOP_EXP) {
        return 0;
    }
    int low = top_exp - (bits - k);              /* every non-zero |x| >= 2^low */
    if (low < -1074) {
        return 1;
    }
    /* 2^low's pattern: a normal power of two, or a subnormal one. */
    uint64_t low_bits = low >= 1 - XS_F64_EXP_BIAS
                            ? (uint64_t)(low + XS_F64_EXP_BIAS) << XS_F64_MANT_BITS
                            : (uint64_t)1 << (low + 1074);
    return xs_double_bits(min_abs) >= low_bits;
}

int xs_short_row_round(const char *x, int n, int itemsize, uint64_t divisor,
                       const xs_format *fmt, double *result)
{
    const xs_short_row_kernels *kernels = xs_cpu_pick(xs_short_row_variants);
    xs_short_row_split s;
    /* The flags of a row left to the next path (the maximum's NaN, the
     * inexact sums of a row that does not fit) are not the caller's: they
     * are put back.  A row that fits raised none (xs_short_row_kernel.h). */
#ifdef XS_SR_HAVE_MXCSR
    unsigned csr = _mm_getcsr();
#else
    fexcept_t flags;
    fegetexceptflag(&flags, FE_ALL_EXCEPT);
#endif
    (itemsize == 8 ? kernels->f64 : kernels->f32)(x, n, &s);
    xs_running r;
    r.valid = 1;
    r.block_left = XS_RUNNING_BLOCK;
    r.retry_in = 0;
    int fits = finite_bits(s.hi) && finite_bits(s.lo) && s.max_abs != 0.0;
    if (fits && fits_window(n, s.max_abs, s.min_abs, XS_SR_HI_BITS)) {
        /* S = hi + lo exactly: an approximation with a bound of 0. */
        r.hi = xs_two_sum(s.hi, s.lo, &r.lo);
        r.bound = 0.0;
    }
    else {
#ifdef XS_SR_HAVE_MXCSR
        _mm_setcsr(csr);
#else
        fesetexceptflag(&flags, FE_ALL_EXCEPT);
#endif
        /* Inf or NaN terms; only zeros (their sign needs the flags); too
         * wide for the second pass's window too. */
        if (!fits || n > XS_SR_THREE_MAX ||
                !fits_window(n, s.max_abs, s.min_abs, XS_SR_THREE_BITS)) {
            return 0;
        }
        /* S = s1 + s2 + s3 exactly (the second pass raises no flag on such
         * a row): TwoSums give S = h + e1 + e2, then l + e3 = e1 + e2 with
         * e3 the rounding error of l, and hi + lo = h + l exactly. */
        double sums[3], e1, e2, e3;
        (itemsize == 8 ? kernels->three64 : kernels->three32)(x, n, sums);
        double h = xs_two_sum(sums[0], sums[1], &e1);
        h = xs_two_sum(h, sums[2], &e2);
        double l = xs_two_sum(e1, e2, &e3);
        r.hi = xs_two_sum(h, l, &r.lo);
        r.bound = fabs(e3);
    }
    if (divisor != 1u && !xs_running_divide(&r, divisor, &r)) {
        return 0;
    }
    return xs_running_round(&r, fmt, result);
}
