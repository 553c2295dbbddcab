/*
 * The sum of squares of a float64 (or float32) row, correctly rounded, from a two-double
 * approximation with a proven error bound: exact_dot(x, x) for long rows.
 * Every term is non-negative, so there is no cancellation and the bound
 * (relative, about 2^-80 of the sum for a million terms) decides the
 * rounding except within that distance of a rounding boundary (every exact
 * tie included); the caller then takes the exact path.
 *
 * Notation: u = 2^-53; L = XS_SQUARES_LANES lanes, B = XS_SQUARES_BLOCK;
 * m = ceil(n / L), the terms of a lane.
 *
 * 0. Scale.  Each term is first multiplied by the caller's power of two
 *    (1 for exact_dot(x, x); the 2-norm's scale, xs_norm.c): exact, except
 *    for products below the normal range, which lose less than 2^-1074
 *    each, so that their squares move by less than 2^-2000: inside the
 *    absolute term of step 4.  Below, x is the scaled term.
 *    float32 terms are widened to doubles on loading (exactly); their
 *    squares (48 significant bits at most, between 2^-298 and 2^256) are
 *    then exact doubles, e = 0, and everything below holds as for float64.
 * 1. Square.  p = fl(x*x) >= 0 and e = x*x - p, by fma (AVX2, AVX-512) or
 *    Dekker's product (xs_dekker_square, generic).  Exact, with |e| <= u p,
 *    when 2^-480 <= |x| and p <= 2^1021 (step 5; p a normal number, e on a grid of
 *    at least 2^-1066).  Smaller x: |p + e - x^2| < 2^-1013 (xs_root.h; by
 *    fma below 2^-1074).
 * 2. Sum, per lane.  s is a running sum of the p by TwoSum (s + t = old s +
 *    p exactly), c a plain floating-point sum of w = fl(t + e).  Every B
 *    terms (and at the end of every call of the kernel) the lane is folded:
 *    s, c = TwoSum(s, c), exact, which leaves |c| <= u s.
 *    Let S* be the largest s the lane ever holds.  p <= s (fl is monotone
 *    and s >= 0: adding p >= 0 never lowers s, and a fold moves it by
 *    |c| < s; only the error of a tiny square, inside step 4's absolute
 *    term, can make it a few units of 2^-1074 negative), so
 *    |t| <= u s <= u S*, |e| <= u S*, |w| <= 2^-52 S* (1+u)
 *    and fl(t + e) errs by at most 2^-105 S*.  After j terms of a block,
 *    |c| <= (2^-53 + j 2^-52 (1+u)) S* up to the roundings, and its
 *    rounding errs by at most 2^-53 of that.  Over a block of k <= B terms:
 *        k 2^-105 + k 2^-106 + k(k+1)/2 2^-105 (1+u)  <=  k (B/2 + 3) 2^-105
 *    (times S*), so over the lane at most m (B/2 + 3) 2^-105 S*.  Also
 *    |c| <= B 2^-51 S* at any time (2^-41 S* for B = 1024), so s + c, which
 *    follows the exact partial sum within these roundings, keeps s within
 *    a relative 2^-39 of the exact partial sum, which only grows: S* is at
 *    most (1 + 2^-37) times the lane's final s (n <= XS_SQUARES_MAX_TERMS
 *    keeps m (B/2 + 3) 2^-105 below 2^-55).
 * 3. Merge.  hi = lo = 0; per lane, hi, t = TwoSum(hi, s) (exact) and
 *    lo = fl(lo + fl(t + c)).  With T the sum of the lanes' S*: |t| <= u T,
 *    |lo| <= (L 2^-53 + B 2^-51) T (1 + 2^-37), and its 2L roundings err by
 *    at most L (L + 4B) 2^-105 T (1 + 2^-37).  T <= (1 + 2^-36) hi (the
 *    t's and c's are below 2^-40 of the sum of the s's, itself hi + sum t).
 * 4. Bound.  |S - (hi + lo)| <= K hi (1 + 2^-30) + (n + 2L) XS_SQUARES_TINY_ERR,
 *    K = (m (B/2 + 3) + L (L + 4B)) 2^-105.  The last term covers what the
 *    relative bounds miss below the normal range: each tiny square (step
 *    1) and each rounding of c and lo to the subnormal grid (2^-1075).
 *    The roundings of the bound's own arithmetic are inside the factor
 *    1 + 2^-30.
 *    On x86-64 the lanes of float64 terms run with flush-to-zero and, when
 *    the scale is at most 1, denormals-are-zero (MXCSR, put back before the
 *    merge; float32 terms and their squares are never subnormal doubles,
 *    and DAZ would read a subnormal float32 as 0; a larger scale would
 *    make a subnormal term read as 0 large): subnormal operands and results
 *    cost a microcode assist (100+ cycles) each, which made rows with
 *    values below 2^-511 several times slower.  A value, square, e, TwoSum
 *    error or rounding of c that is read or made 0 instead of a subnormal
 *    moves the lane by less than 2^-1022 each: with the tiny squares'
 *    2^-1013, less than 2^-1010 per term, XS_SQUARES_TINY_ERR.
 * 5. Safe range, checked once at the end.  Inf and NaN terms, and squares
 *    that overflow, make hi or lo Inf or NaN (s then holds Inf or NaN and
 *    stays so; c holds NaN from the TwoSum of an Inf, or from Dekker's
 *    split of |x| > 2^996).  Every p is at most s <= S* <= T, so hi <=
 *    2^1020 (XS_SQUARES_MAX, with the relative slack above) proves every p
 *    and every sum the kernel and the merge form below 2^1021: finite, p
 *    normal and e exact down to |x| = 2^-480 as in step 1, the TwoSums
 *    exact.  Otherwise the row is not decided.
 *    The exception flags the kernel raises (overflow, invalid, underflow)
 *    are put back as they were.
 * 6. Decide with xs_running_round (xs_running.h): the value hi + lo rounds
 *    to in fmt is the answer when d + |c| + bound is below the half gap of
 *    its rounding interval; results that are zero, below 2^-800, subnormal
 *    in fmt or overflowing are not decided.
 *
 * Requires round-to-nearest and no contraction into fma (both pinned: see
 * xs_fpenv.h and meson.build).
 */
#include "runtime/xs_interrupt.h"           /* first: NumPy's headers include Python.h */
#include "kernels/dot/xs_dot_squares.h"

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "runtime/xs_fpenv.h"
#include "cpu/xs_cpu.h"
#include "exact/xs_root.h"
#include "exact/xs_running.h"

/* Lanes of every variant (AVX-512: 2 vectors of 8; AVX2: 4 of 4; generic:
 * 16 scalars), so that the merge and the bound are the same for all. */
#define XS_SQUARES_LANES 16
/* Terms per lane between two folds of c into s (step 2). */
#define XS_SQUARES_BLOCK 1024
/* The largest hi and |lo| accepted (step 5: every sum stays below 2^1021,
 * finite with room to spare), and the longest row (step 2: keeps
 * m (B/2 + 3) 2^-105 below 2^-55). */
#define XS_SQUARES_MAX 0x1p1020
#define XS_SQUARES_MAX_TERMS ((ptrdiff_t)1 << 44)
/* Per term and per merge step: the absolute error the relative bounds miss
 * (a square of |x| < 2^-480 off by < 2^-1013; values, squares, errors and
 * roundings below 2^-1022 flushed to 0 or rounded to the subnormal grid:
 * step 4). */
#define XS_SQUARES_TINY_ERR 0x1p-1010
/* Relative slack for the roundings of the bound's own arithmetic and the
 * factors (1 + 2^-36) of steps 2 and 3. */
#define XS_SQUARES_SLACK (1.0 + 0x1p-30)
/* Lanes in groups of this many doubles between interrupt checks. */
#define XS_SQUARES_CHUNK_GROUPS (XS_INTERRUPT_BLOCK / XS_SQUARES_LANES)

_Static_assert(XS_INTERRUPT_BLOCK % XS_SQUARES_LANES == 0, "whole groups between checks");

/* Sums the squares of `groups` groups of L contiguous doubles at x, each
 * first multiplied by `scale` (a power of two), into the lanes (s, c),
 * folding every B groups and at the end (step 2). */
typedef void (*xs_squares_kernel)(const char *x, ptrdiff_t groups, double scale, double *s,
                                  double *c);

/* ---- generic C ---------------------------------------------------------- */

/* Element k of a group at x: a float64, or a float32 widened (exactly). */
static inline double load_term(const char *x, int k, int itemsize)
{
    if (itemsize == 8) {
        double v;
        memcpy(&v, x + 8 * k, sizeof v);
        return v;
    }
    float f;
    memcpy(&f, x + 4 * k, sizeof f);
    return (double)f;
}

static inline void squares_generic(const char *x, ptrdiff_t groups, int itemsize, double scale,
                                   double *s, double *c)
{
    double ls[XS_SQUARES_LANES], lc[XS_SQUARES_LANES];
    memcpy(ls, s, sizeof ls);
    memcpy(lc, c, sizeof lc);
    for (ptrdiff_t g = 0; g < groups;) {
        ptrdiff_t end = groups - g < XS_SQUARES_BLOCK ? groups : g + XS_SQUARES_BLOCK;
        for (; g < end; g++, x += itemsize * XS_SQUARES_LANES) {
            for (int k = 0; k < XS_SQUARES_LANES; k++) {
                double e, t;
                double p = xs_dekker_square(load_term(x, k, itemsize) * scale, &e);
                ls[k] = xs_two_sum(ls[k], p, &t);
                lc[k] += t + e;
            }
        }
        for (int k = 0; k < XS_SQUARES_LANES; k++) {
            ls[k] = xs_two_sum(ls[k], lc[k], &lc[k]);          /* exact */
        }
    }
    memcpy(s, ls, sizeof ls);
    memcpy(c, lc, sizeof lc);
}

static void squares_generic_f64(const char *x, ptrdiff_t groups, double scale, double *s,
                                double *c)
{
    squares_generic(x, groups, 8, scale, s, c);
}

static void squares_generic_f32(const char *x, ptrdiff_t groups, double scale, double *s,
                                double *c)
{
    squares_generic(x, groups, 4, scale, s, c);
}

/* ---- AVX2 with FMA, AVX-512 ---------------------------------------------- */

#ifdef XS_CPU_X86
#define XS_SQUARES_X86 1
#include <immintrin.h>

/* One term vector X into the chain (S, C): TwoSum of p into S, then
 * C += fl(t + e), as in the generic loop. */
#define XS_SQ_TERM(V, ADD, SUB, MUL, FMSUB, S, C, X) \
    do { \
        V p_ = MUL((X), (X)); \
        V e_ = FMSUB((X), (X), p_); \
        V s_ = ADD((S), p_); \
        V bb_ = SUB(s_, (S)); \
        V t_ = ADD(SUB((S), SUB(s_, bb_)), SUB(p_, bb_)); \
        (C) = ADD((C), ADD(t_, e_)); \
        (S) = s_; \
    } while (0)

/* The fold S, C = TwoSum(S, C). */
#define XS_SQ_FOLD(V, ADD, SUB, S, C) \
    do { \
        V s_ = ADD((S), (C)); \
        V bb_ = SUB(s_, (S)); \
        (C) = ADD(SUB((S), SUB(s_, bb_)), SUB((C), bb_)); \
        (S) = s_; \
    } while (0)

/* AVX-512F: two chains of 8 lanes; float32 terms widened on loading. */
#define A5_ADD _mm512_add_pd
#define A5_SUB _mm512_sub_pd
#define A5_MUL _mm512_mul_pd
#define A5_FMSUB _mm512_fmsub_pd
#define A5_LOAD(p) _mm512_loadu_pd((const void *)(p))
#define A5_LOAD_F32(p) _mm512_cvtps_pd(_mm256_loadu_ps((const float *)(const void *)(p)))

#define XS_SQUARES_AVX512(NAME, ITEMSIZE, LOAD) \
XS_TARGET_AVX512 \
static void NAME(const char *x, ptrdiff_t groups, double scale, double *s, double *c) \
{ \
    const __m512d k = _mm512_set1_pd(scale); \
    __m512d s0 = A5_LOAD(s), s1 = A5_LOAD(s + 8); \
    __m512d c0 = A5_LOAD(c), c1 = A5_LOAD(c + 8); \
    for (ptrdiff_t g = 0; g < groups;) { \
        ptrdiff_t end = groups - g < XS_SQUARES_BLOCK ? groups : g + XS_SQUARES_BLOCK; \
        for (; g < end; g++, x += (ITEMSIZE) * XS_SQUARES_LANES) { \
            __m512d v0 = A5_MUL(LOAD(x), k), v1 = A5_MUL(LOAD(x + 8 * (ITEMSIZE)), k); \
            XS_SQ_TERM(__m512d, A5_ADD, A5_SUB, A5_MUL, A5_FMSUB, s0, c0, v0); \
            XS_SQ_TERM(__m512d, A5_ADD, A5_SUB, A5_MUL, A5_FMSUB, s1, c1, v1); \
        } \
        XS_SQ_FOLD(__m512d, A5_ADD, A5_SUB, s0, c0); \
        XS_SQ_FOLD(__m512d, A5_ADD, A5_SUB, s1, c1); \
    } \
    _mm512_storeu_pd(s, s0); \
    _mm512_storeu_pd(s + 8, s1); \
    _mm512_storeu_pd(c, c0); \
    _mm512_storeu_pd(c + 8, c1); \
}
XS_SQUARES_AVX512(squares_avx512_f64, 8, A5_LOAD)
XS_SQUARES_AVX512(squares_avx512_f32, 4, A5_LOAD_F32)

/* AVX2 + FMA: four chains of 4 lanes. */
#define A2_ADD _mm256_add_pd
#define A2_SUB _mm256_sub_pd
#define A2_MUL _mm256_mul_pd
#define A2_FMSUB _mm256_fmsub_pd
#define A2_LOAD(p) _mm256_loadu_pd((const double *)(const void *)(p))
#define A2_LOAD_F32(p) _mm256_cvtps_pd(_mm_loadu_ps((const float *)(const void *)(p)))

#define XS_SQUARES_AVX2(NAME, ITEMSIZE, LOAD) \
XS_TARGET_AVX2 \
static void NAME(const char *x, ptrdiff_t groups, double scale, double *s, double *c) \
{ \
    const __m256d k = _mm256_set1_pd(scale); \
    __m256d s0 = A2_LOAD(s), s1 = A2_LOAD(s + 4), s2 = A2_LOAD(s + 8), s3 = A2_LOAD(s + 12); \
    __m256d c0 = A2_LOAD(c), c1 = A2_LOAD(c + 4), c2 = A2_LOAD(c + 8), c3 = A2_LOAD(c + 12); \
    for (ptrdiff_t g = 0; g < groups;) { \
        ptrdiff_t end = groups - g < XS_SQUARES_BLOCK ? groups : g + XS_SQUARES_BLOCK; \
        for (; g < end; g++, x += (ITEMSIZE) * XS_SQUARES_LANES) { \
            __m256d v0 = A2_MUL(LOAD(x), k), v1 = A2_MUL(LOAD(x + 4 * (ITEMSIZE)), k); \
            __m256d v2 = A2_MUL(LOAD(x + 8 * (ITEMSIZE)), k); \
            __m256d v3 = A2_MUL(LOAD(x + 12 * (ITEMSIZE)), k); \
            XS_SQ_TERM(__m256d, A2_ADD, A2_SUB, A2_MUL, A2_FMSUB, s0, c0, v0); \
            XS_SQ_TERM(__m256d, A2_ADD, A2_SUB, A2_MUL, A2_FMSUB, s1, c1, v1); \
            XS_SQ_TERM(__m256d, A2_ADD, A2_SUB, A2_MUL, A2_FMSUB, s2, c2, v2); \
            XS_SQ_TERM(__m256d, A2_ADD, A2_SUB, A2_MUL, A2_FMSUB, s3, c3, v3); \
        } \
        XS_SQ_FOLD(__m256d, A2_ADD, A2_SUB, s0, c0); \
        XS_SQ_FOLD(__m256d, A2_ADD, A2_SUB, s1, c1); \
        XS_SQ_FOLD(__m256d, A2_ADD, A2_SUB, s2, c2); \
        XS_SQ_FOLD(__m256d, A2_ADD, A2_SUB, s3, c3); \
    } \
    _mm256_storeu_pd(s, s0); \
    _mm256_storeu_pd(s + 4, s1); \
    _mm256_storeu_pd(s + 8, s2); \
    _mm256_storeu_pd(s + 12, s3); \
    _mm256_storeu_pd(c, c0); \
    _mm256_storeu_pd(c + 4, c1); \
    _mm256_storeu_pd(c + 8, c2); \
    _mm256_storeu_pd(c + 12, c3); \
}
XS_SQUARES_AVX2(squares_avx2_f64, 8, A2_LOAD)
XS_SQUARES_AVX2(squares_avx2_f32, 4, A2_LOAD_F32)
#endif

/* The kernels of one instruction set, for float64 and float32 terms. */
typedef struct {
    xs_squares_kernel f64, f32;
} xs_squares_kernels;

/* The kernels of each level (src/cpu/xs_cpu.h picks, under XSUMUFUNC_KERNEL's
 * cap: generic and sse2 take the generic C loop). */
static const xs_squares_kernels *pick_kernels(void)
{
    static const xs_squares_kernels generic = {squares_generic_f64, squares_generic_f32};
#ifdef XS_SQUARES_X86
    static const xs_squares_kernels avx2 = {squares_avx2_f64, squares_avx2_f32};
    static const xs_squares_kernels avx512 = {squares_avx512_f64, squares_avx512_f32};
#endif
    static const void *const variants[XS_ISA_COUNT] = {
        [XS_ISA_GENERIC] = &generic,
#ifdef XS_SQUARES_X86
        [XS_ISA_AVX2] = &avx2, [XS_ISA_AVX512] = &avx512,
#endif
    };
    return xs_cpu_pick(variants);
}

/* Steps 3 and 4: the lanes merged into hi + lo, and the bound. */
static void merge_lanes(const double *s, const double *c, ptrdiff_t n, double *hi,
                        double *lo, double *bound)
{
    double h = 0.0, l = 0.0;
    for (int k = 0; k < XS_SQUARES_LANES; k++) {
        double t;
        h = xs_two_sum(h, s[k], &t);
        l += t + c[k];
    }
    const double lanes = XS_SQUARES_LANES, block = XS_SQUARES_BLOCK;
    double m = (double)((n + XS_SQUARES_LANES - 1) / XS_SQUARES_LANES);
    double k_rel = (m * (block / 2 + 3) + lanes * (lanes + 4 * block)) * 0x1p-105;
    *hi = h;
    *lo = l;
    *bound = k_rel * h * XS_SQUARES_SLACK +
             ((double)n + 2 * lanes) * XS_SQUARES_TINY_ERR;
}

int xs_dot_squares_sum(const char *x, ptrdiff_t n, int itemsize, double scale, double *hi,
                       double *lo, double *bound)
{
    if (n <= 0 || n > XS_SQUARES_MAX_TERMS || (itemsize != 8 && itemsize != 4)) {
        return 0;
    }
    const xs_squares_kernels *kernels = pick_kernels();
    xs_squares_kernel kernel = itemsize == 8 ? kernels->f64 : kernels->f32;
    fexcept_t flags;
    fegetexceptflag(&flags, FE_ALL_EXCEPT);
#ifdef XS_HAVE_MXCSR
    /* Step 4: flush-to-zero and denormals-are-zero while the lanes run
     * (float64 terms only: float32 squares are never subnormal doubles, and
     * DAZ would read a subnormal float32 as 0); denormals-are-zero only
     * when the scale does not enlarge the terms (it reads a subnormal
     * term as 0 before the scaling). */
    unsigned csr = _mm_getcsr();
    if (itemsize == 8) {
        _mm_setcsr(csr | XS_MXCSR_FTZ | (scale <= 1.0 ? XS_MXCSR_DAZ : 0u));
    }
#define XS_SQUARES_MODE_BACK() _mm_setcsr(csr)
#else
#define XS_SQUARES_MODE_BACK() ((void)0)
#endif
    double s[XS_SQUARES_LANES] = {0.0}, c[XS_SQUARES_LANES] = {0.0};
    ptrdiff_t groups = n / XS_SQUARES_LANES;
    for (ptrdiff_t g = 0; g < groups; g += XS_SQUARES_CHUNK_GROUPS) {
        if (xs_interrupted_at(g)) {
            XS_SQUARES_MODE_BACK();
            fesetexceptflag(&flags, FE_ALL_EXCEPT);
            return 0;
        }
        ptrdiff_t k = groups - g < XS_SQUARES_CHUNK_GROUPS ? groups - g : XS_SQUARES_CHUNK_GROUPS;
        kernel(x + itemsize * XS_SQUARES_LANES * g, k, scale, s, c);
    }
    ptrdiff_t rest = n - groups * XS_SQUARES_LANES;
    if (rest > 0) {
        /* The last, partial group, padded with zeros (they add nothing). */
        double tail[XS_SQUARES_LANES] = {0.0};       /* room for 16 of either */
        memcpy(tail, x + itemsize * XS_SQUARES_LANES * groups, (size_t)(rest * itemsize));
        kernel((const char *)tail, 1, scale, s, c);
    }
    XS_SQUARES_MODE_BACK();
#undef XS_SQUARES_MODE_BACK
    merge_lanes(s, c, n, hi, lo, bound);
    /* Step 5 (an ordered comparison with NaN raises "invalid": before the
     * flags are put back). */
    int in_range = *hi <= XS_SQUARES_MAX && xs_running_abs(*lo) <= XS_SQUARES_MAX;
    fesetexceptflag(&flags, FE_ALL_EXCEPT);
    return in_range;
}

int xs_dot_squares_round(const char *x, ptrdiff_t n, int itemsize, const xs_format *fmt,
                         double *out)
{
    double hi, lo, bound;
    if (!xs_dot_squares_sum(x, n, itemsize, 1.0, &hi, &lo, &bound)) {
        return 0;
    }
    fexcept_t flags;
    fegetexceptflag(&flags, FE_ALL_EXCEPT);
    xs_running run = xs_running_of(hi, lo, 0.0, bound);
    int decided = xs_running_round(&run, fmt, out);
    fesetexceptflag(&flags, FE_ALL_EXCEPT);
    return decided;
}
