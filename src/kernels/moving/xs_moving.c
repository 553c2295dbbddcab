/*
 * Exact moving-window sums and means.
 *
 * The window's exact sum lives in a small superaccumulator (xs_small.h):
 * the entering value is added and the leaving value subtracted, both
 * exactly, so the sum never drifts however long the series.  What a
 * fixed-point accumulator cannot take back is kept beside it as counts:
 * the infinities of each sign, the terms that are not -0.0 (a window of
 * only -0.0 sums to -0.0) and the non-NaN terms (NaNs are not terms, as in
 * bottleneck's move_sum).  A sum or a mean is mostly rounded from the
 * two-double approximation of xs_running.h (of the sum, or of the sum over
 * the count: xs_running_divide), which provably decides it, else from the
 * accumulator (one carry propagation and one rounding): O(1) per element
 * whatever the window length.
 *
 * The accumulator is brought up to date lazily: it holds the exact sum of
 * the window that ended at `synced`, and only when the approximation cannot
 * decide a window does it take the terms that entered and left since then,
 * or, when that is more work, sum the window's own terms afresh: at most
 * min(2 (k - synced), window) additions, O(1) per element amortised over
 * the steps since the last catch-up, and never more than the eager update.
 * On data where the approximation decides (nearly always, away from ties
 * and exact cancellation) a step is the approximation's update and
 * decision only.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "kernels/moving/xs_moving.h"
#include "cpu/xs_cpu.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/xs_interrupt.h"
#include "exact/xs_round.h"
#include "exact/xs_running.h"
#include "exact/xs_small.h"
#include "exact/xs_types.h"

/* Release the GIL for rows with at least this many terms in all. */
#define XS_MOVING_GIL_MIN_TERMS 4096
#define XS_SIGN_BIT XS_F64_SIGN_BIT
#define XS_EXPONENT_MASK XS_F64_INF_BITS

/* What the window at k holds, besides its finite sum: counts kept in
 * registers by the loop. */
typedef struct {
    int64_t terms;         /* non-NaN terms */
    int64_t pos_inf, neg_inf;
} xs_window_counts;

/* The exact side, touched only when the approximation cannot decide. */
typedef struct {
    xs_small acc;          /* the finite terms of the window ending at synced */
    int64_t not_neg_zero;  /* how many of them are not -0.0 */
    npy_intp synced;       /* -1: the empty window before the first term */
    const char *in;        /* the row: n values, stride bytes apart */
    npy_intp stride, window;
    int in32;              /* its values are float32 (else float64) */
} xs_window_exact;

/* The counts when the term with these bits entered (direction +1) or left
 * (-1). */
static inline void xs_window_count(xs_window_counts *c, uint64_t bits, int direction)
{
    if ((bits & XS_EXPONENT_MASK) == XS_EXPONENT_MASK) {
        if (bits & ~(XS_SIGN_BIT | XS_EXPONENT_MASK)) {
            return;                                   /* NaN: not a term */
        }
        if (bits & XS_SIGN_BIT) {
            c->neg_inf += direction;
        }
        else {
            c->pos_inf += direction;
        }
    }
    c->terms += direction;
}

/* The value of a term for the approximation: finite terms as they are,
 * NaN and Inf as 0 (the counts carry them); *ok = 0 beyond the safe range. */
static inline double xs_window_term(uint64_t bits, int *ok)
{
    double x;
    memcpy(&x, &bits, sizeof x);
    if ((bits & XS_EXPONENT_MASK) == XS_EXPONENT_MASK) {
        return 0.0;
    }
    *ok &= xs_running_abs(x) <= XS_RUNNING_MAX;
    return x;
}

/* The float64 bits of term j: a float32 term (in32) widened exactly, so
 * that everything after the load is the float64 row's code. */
static inline uint64_t xs_window_load(const char *in, npy_intp stride, npy_intp j, int in32)
{
    return in32 ? xs_load_float32(in + j * stride) : xs_load_float64(in + j * stride);
}

/* Add (direction +1) or take back (-1) a finite term to the accumulator. */
static void xs_window_add_exact(xs_window_exact *x, uint64_t bits, int direction)
{
    if ((bits & XS_EXPONENT_MASK) != XS_EXPONENT_MASK) {
        /* Negating a finite double is exact: flip its sign bit. */
        xs_small_add_bits(&x->acc, direction > 0 ? bits : bits ^ XS_SIGN_BIT);
        x->not_neg_zero += (bits != XS_SIGN_BIT) ? direction : 0;
    }
}

/* The window ending at k rounded from the accumulator into *value (a sum,
 * divisor 1, or a mean); returns the approximation rebuilt from it.  The
 * accumulator first catches up with the window at k: by the terms that
 * entered and left since it was last brought up to date, or from scratch,
 * the window's own terms, whichever is fewer additions.  (The state comes
 * and goes by value, so that the loop keeps it in registers.) */
static xs_running xs_window_settle(xs_window_exact *x, xs_running run, npy_intp k,
                                   uint64_t divisor, const xs_format *fmt, double *value)
{
    npy_intp first = k - x->window + 1 > 0 ? k - x->window + 1 : 0;
    if (2 * (k - x->synced) <= k + 1 - first) {
        for (npy_intp j = x->synced + 1; j <= k; j++) {
            xs_window_add_exact(x, xs_window_load(x->in, x->stride, j, x->in32), +1);
            if (j >= x->window) {
                xs_window_add_exact(x, xs_window_load(x->in, x->stride, j - x->window, x->in32), -1);
            }
        }
    }
    else {
        xs_small_init(&x->acc);
        x->not_neg_zero = 0;
        for (npy_intp j = first; j <= k; j++) {
            xs_window_add_exact(x, xs_window_load(x->in, x->stride, j, x->in32), +1);
        }
    }
    x->synced = k;
    /* Only the sign of a zero sum depends on the flags: rebuild them from
     * the count (the accumulator's own flags remember removed terms).  No
     * Inf is in the window here, so its finite terms are all its terms. */
    x->acc.flags = XS_HAS_TERM | (x->not_neg_zero ? XS_NOT_NEG_ZERO : 0u);
    *value = xs_small_round_divided(&x->acc, divisor, fmt);
    xs_running_rebuild_exact(&run, &x->acc);
    return run;
}

/* The window's sum (divisor 1) or mean decided by the approximation alone:
 * 1 and *value, or 0. */
static inline int xs_window_decide(const xs_running *run, uint64_t divisor,
                                   const xs_format *fmt, double *value)
{
    if (divisor == 1u) {
        return xs_running_round(run, fmt, value);
    }
    xs_running quotient;
    return xs_running_divide(run, divisor, &quotient) && xs_running_round(&quotient, fmt, value);
}

/* Rows without Inf, long enough, run as XS_MOVING_LANES stretches
 * side by side, so that their steps run in the doubles of vector registers
 * (xs_moving_lanes_template.h: four lanes in AVX2's, two in NEON's and in
 * the portable instance's, that many times fewer instructions per output);
 * with no vector lanes (compilers without GCC's vector extensions, and
 * targets other than float64 and float32) the lanes take turns, as fast as
 * one stretch.  NaNs stay in the lanes: each lane counts those of its
 * window (xs_lane_step, and the vector loop), which enter its sums as
 * zeros.  (Before, a row with one NaN left the lanes for the one-stretch
 * loop below: 4-6 times slower.)  Each lane starts stale,
 * its accumulator holding the window before its first output (summed from
 * scratch), and settles (and so rebuilds its approximation) at its first
 * output.  The values are exactly what one stretch gives. */
#define XS_MOVING_LANES 4
#define XS_MOVING_LANES_MIN_TERMS 4096

/* 1 for the bits of a NaN. */
static inline int xs_window_is_nan(uint64_t bits)
{
    return (bits & ~XS_SIGN_BIT) > XS_EXPONENT_MASK;
}

/* The term with these bits as a double for a lane: a NaN as 0 (it is no
 * term), counted into *nans by `direction` (+1 entering, -1 leaving). */
static inline double xs_lane_term(uint64_t bits, int64_t *nans, int direction)
{
    double x;
    if (xs_window_is_nan(bits)) {
        *nans += direction;
        return 0.0;
    }
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* Output k of a lane (a row without Inf), whose window holds *nans NaNs
 * (updated here). */
static inline void xs_lane_step(xs_running *run, xs_window_exact *exact, int64_t *nans,
                                npy_intp k, int64_t window, int64_t min_count, int mean,
                                const xs_target *target, char *out, npy_intp out_step)
{
    double x_in, x_out = 0.0;
    x_in = xs_lane_term(xs_window_load(exact->in, exact->stride, k, exact->in32), nans, +1);
    if (k >= window) {
        x_out = xs_lane_term(xs_window_load(exact->in, exact->stride, k - window,
                                                   exact->in32), nans, -1);
    }
    if (run->valid && xs_running_abs(x_in) <= XS_RUNNING_MAX &&
            xs_running_abs(x_out) <= XS_RUNNING_MAX) {
        xs_running_move(run, x_in, x_out);
    }
    else {
        run->valid = 0;
    }
    int64_t terms = (k + 1 < window ? k + 1 : window) - *nans;
    uint64_t divisor = mean ? (uint64_t)terms : 1u;
    double value = NAN;
    if (terms >= min_count && !xs_window_decide(run, divisor, target->format, &value)) {
        *run = xs_window_settle(exact, *run, k, divisor, target->format, &value);
    }
    XS_STORE(target, out + k * out_step, value);
}

/* What a row holds (xs_row_kind, below): flags. */
#define XS_ROW_BEYOND 1
#define XS_ROW_NAN 2
#define XS_ROW_INF 4

static int xs_row_kind_scalar(const char *in, npy_intp stride, npy_intp n, int in32)
{
    /* Two tests per term for the common rows; a row with a NaN or an Inf
     * is read again, for the three flags. */
    uint64_t beyond = 0, special = 0;
    for (npy_intp k = 0; k < n; k++) {
        uint64_t magnitude = xs_window_load(in, stride, k, in32) & ~XS_SIGN_BIT;
        beyond |= (uint64_t)(magnitude > XS_RUNNING_MAX_BITS);
        special |= (uint64_t)(magnitude >= XS_EXPONENT_MASK);
    }
    if (!special) {
        return beyond ? XS_ROW_BEYOND : 0;
    }
    uint64_t finite_beyond = 0, nan = 0, inf = 0;
    for (npy_intp k = 0; k < n; k++) {
        uint64_t magnitude = xs_window_load(in, stride, k, in32) & ~XS_SIGN_BIT;
        finite_beyond |= (uint64_t)((magnitude > XS_RUNNING_MAX_BITS) &
                                    (magnitude < XS_EXPONENT_MASK));
        nan |= (uint64_t)(magnitude > XS_EXPONENT_MASK);
        inf |= (uint64_t)(magnitude == XS_EXPONENT_MASK);
    }
    return (finite_beyond ? XS_ROW_BEYOND : 0) | (nan ? XS_ROW_NAN : 0) | (inf ? XS_ROW_INF : 0);
}

#if (defined(__GNUC__) || defined(__clang__)) && !defined(XS_NO_VECTOR_EXT)
/* xs_row_kind of a contiguous row on the vector units of every CPU (GCC's
 * and Clang's vector extensions: SSE2, Advanced SIMD), the common row
 * first: the top 16 bits of each magnitude (its exponent field and leading
 * fraction bits; of each double, or of each float32) against those of the
 * least value that may be beyond the safe range or not finite, 2^1000
 * (XS_RUNNING_MAX_BITS, whose lower bits are zero) or float32's +Inf: a
 * row with none has no flag; one with some is read again by
 * xs_row_kind_scalar (Zen 5, generic level: a tenth of a moving sum's
 * time, which the scalar test of every term took). */
typedef int16_t xs_row_v16 __attribute__((vector_size(16)));
typedef uint64_t xs_row_v64 __attribute__((vector_size(16)));

static int xs_row_kind_vector(const char *in, npy_intp n, int in32)
{
    const npy_intp size = in32 ? (npy_intp)sizeof(float) : (npy_intp)sizeof(double);
    const xs_row_v64 top = (xs_row_v64){0} + (in32 ? UINT64_C(0x7fff00007fff0000)
                                                   : UINT64_C(0x7fff000000000000));
    const xs_row_v16 least = (xs_row_v16){0} +
        (int16_t)(in32 ? (XS_F32_EXP_MASK << XS_F32_MANT_BITS) >> 16 : XS_RUNNING_MAX_BITS >> 48);
    /* XS_ROW_UNROLL registers a step, each its own chain of ors. */
    enum { XS_ROW_UNROLL = 4 };
    const npy_intp step = (npy_intp)sizeof(xs_row_v64) / size;     /* terms a register */
    xs_row_v16 hits[XS_ROW_UNROLL] = {{0}};
    npy_intp k = 0;
    for (; n - k >= XS_ROW_UNROLL * step; k += XS_ROW_UNROLL * step) {
        for (int u = 0; u < XS_ROW_UNROLL; u++) {
            xs_row_v64 v;
            memcpy(&v, in + (k + u * step) * size, sizeof v);
            hits[u] |= (xs_row_v16)(v & top) >= least;       /* the other words are 0 */
        }
    }
    for (; n - k >= step; k += step) {
        xs_row_v64 v;
        memcpy(&v, in + k * size, sizeof v);
        hits[0] |= (xs_row_v16)(v & top) >= least;
    }
    for (int u = 1; u < XS_ROW_UNROLL; u++) {
        hits[0] |= hits[u];
    }
    uint64_t any[2];
    memcpy(any, &hits[0], sizeof any);
    if (any[0] | any[1]) {
        return xs_row_kind_scalar(in, size, n, in32);
    }
    return xs_row_kind_scalar(in + k * size, size, n - k, in32);
}
#endif

#ifdef XS_CPU_X86
#define XS_MOVING_X86 1
#include <immintrin.h>

/* The AVX2 lanes test magnitudes on the integer units, as the portable
 * lanes on x86-64 do (below: a compare of doubles takes the adders the
 * TwoSums need), here by exact 64-bit compares of the patterns (a
 * magnitude's pattern orders as it does; a NaN's is above every limit).
 * XS_ML_WITHIN: the lanes with |hi| <= XS_RUNNING_MAX. */
XS_TARGET_AVX2
static inline __m256i xs_lanes_avx2_within(__m256d hi)
{
    const __m256i magnitude = _mm256_set1_epi64x(INT64_MAX);
    const __m256i above_max = _mm256_set1_epi64x((int64_t)XS_RUNNING_MAX_BITS + 1);
    return _mm256_cmpgt_epi64(above_max, _mm256_and_si256(_mm256_castpd_si256(hi), magnitude));
}

/* XS_ML_FAST_ALL: every lane valid with |approx| at least the value of
 * bits tiny_bits (XS_RUNNING_TINY_SUM's) and a bound whose pattern is 0,
 * or short of terms (as xs_lanes_sse2_fast_all, below). */
XS_TARGET_AVX2
static inline int xs_lanes_avx2_fast_all(__m256d approx, __m256d bound, __m256i valid,
                                         __m256i short_of, uint64_t tiny_bits)
{
    const __m256i magnitude = _mm256_set1_epi64x(INT64_MAX);
    const __m256i below_tiny = _mm256_set1_epi64x((int64_t)tiny_bits - 1);
    __m256i large = _mm256_cmpgt_epi64(
        _mm256_and_si256(_mm256_castpd_si256(approx), magnitude), below_tiny);
    __m256i exact = _mm256_cmpeq_epi64(_mm256_castpd_si256(bound), _mm256_setzero_si256());
    __m256i m = _mm256_or_si256(_mm256_and_si256(_mm256_and_si256(large, exact), valid),
                                short_of);
    return _mm256_movemask_pd(_mm256_castsi256_pd(m)) == 0xf;
}

#define XS_ML_NAME xs_lanes_avx2
#define XS_ML_W 4
#define XS_ML_TARGET XS_TARGET_AVX2
#define XS_ML_WITHIN(hi) ((XS_ML_VI)xs_lanes_avx2_within((__m256d)(hi)))
#define XS_ML_FAST_ALL(approx, bound, valid, short_of)                              \
    xs_lanes_avx2_fast_all((__m256d)(approx), (__m256d)(bound), (__m256i)(valid),   \
                           (__m256i)(short_of), XS_RUNNING_TINY_SUM_BITS)
#define XS_ML_FNMSUB(a, b, c) \
    ((V)_mm256_fnmadd_pd((__m256d)(a), (__m256d)(b), (__m256d)(c)))
#define XS_ML_ALL(m) (_mm256_movemask_pd((__m256d)(m)) == 0xf)
/* r[0..3] hold 4 rows of 4 doubles; afterwards r[j] holds their column j. */
#define XS_ML_TRANSPOSE(r)                                                          \
    do {                                                                            \
        __m256d xs_t0 = _mm256_unpacklo_pd((__m256d)(r)[0], (__m256d)(r)[1]);       \
        __m256d xs_t1 = _mm256_unpackhi_pd((__m256d)(r)[0], (__m256d)(r)[1]);       \
        __m256d xs_t2 = _mm256_unpacklo_pd((__m256d)(r)[2], (__m256d)(r)[3]);       \
        __m256d xs_t3 = _mm256_unpackhi_pd((__m256d)(r)[2], (__m256d)(r)[3]);       \
        (r)[0] = (V)_mm256_permute2f128_pd(xs_t0, xs_t2, 0x20);                     \
        (r)[1] = (V)_mm256_permute2f128_pd(xs_t1, xs_t3, 0x20);                     \
        (r)[2] = (V)_mm256_permute2f128_pd(xs_t0, xs_t2, 0x31);                     \
        (r)[3] = (V)_mm256_permute2f128_pd(xs_t1, xs_t3, 0x31);                     \
    } while (0)
#include "kernels/moving/xs_moving_lanes_template.h"

/* An AVX-512 instance (8 lanes) was measured too: slower on the development
 * machine (AMD Zen 4), 5.2 against 3.7 ns per element, building 8-double
 * registers from 8 strided loads costing more than the width saves; so
 * AVX-512 CPUs run the AVX2 lanes. */

/* xs_row_kind (below) of a contiguous row: its magnitudes' bits compared
 * as integers (a double's magnitude orders as its bits with the sign
 * cleared; no flag, whatever the NaN), four terms per register. */
XS_TARGET_AVX2
static int xs_row_kind_avx2(const char *in, npy_intp n)
{
    const __m256i magnitude = _mm256_set1_epi64x(INT64_MAX);
    const __m256i max_bits = _mm256_set1_epi64x((int64_t)XS_RUNNING_MAX_BITS);
    const __m256i inf_bits = _mm256_set1_epi64x((int64_t)XS_EXPONENT_MASK);
    const __m256i below_inf = _mm256_set1_epi64x((int64_t)XS_EXPONENT_MASK - 1);
    __m256i beyond = _mm256_setzero_si256(), nan = beyond, inf = beyond;
    npy_intp k = 0;
    for (; n - k >= 4; k += 4) {
        /* Unaligned loads: the row need not be aligned to its element. */
        __m256i a = _mm256_and_si256(
            _mm256_loadu_si256((const __m256i *)(const void *)(in + k * (npy_intp)sizeof(double))),
            magnitude);
        beyond = _mm256_or_si256(beyond, _mm256_andnot_si256(_mm256_cmpgt_epi64(a, below_inf),
                                                             _mm256_cmpgt_epi64(a, max_bits)));
        nan = _mm256_or_si256(nan, _mm256_cmpgt_epi64(a, inf_bits));
        inf = _mm256_or_si256(inf, _mm256_cmpeq_epi64(a, inf_bits));
    }
    int kind = (_mm256_testz_si256(beyond, beyond) ? 0 : XS_ROW_BEYOND) |
               (_mm256_testz_si256(nan, nan) ? 0 : XS_ROW_NAN) |
               (_mm256_testz_si256(inf, inf) ? 0 : XS_ROW_INF);
    return kind | xs_row_kind_scalar(in + k * (npy_intp)sizeof(double), sizeof(double), n - k, 0);
}

/* The same of a contiguous float32 row, eight terms per register: no
 * finite float32 is beyond the safe range (|x| < 2^128), so only NaN and
 * Inf are looked for. */
XS_TARGET_AVX2
static int xs_row_kind_avx2_float32(const char *in, npy_intp n)
{
    const __m256i magnitude = _mm256_set1_epi32(INT32_MAX);
    const __m256i inf_bits = _mm256_set1_epi32((int32_t)((uint32_t)XS_F32_EXP_MASK << XS_F32_MANT_BITS));
    __m256i nan = _mm256_setzero_si256(), inf = nan;
    npy_intp k = 0;
    for (; n - k >= 8; k += 8) {
        __m256i a = _mm256_and_si256(
            _mm256_loadu_si256((const __m256i *)(const void *)(in + k * (npy_intp)sizeof(float))),
            magnitude);
        nan = _mm256_or_si256(nan, _mm256_cmpgt_epi32(a, inf_bits));
        inf = _mm256_or_si256(inf, _mm256_cmpeq_epi32(a, inf_bits));
    }
    int kind = (_mm256_testz_si256(nan, nan) ? 0 : XS_ROW_NAN) |
               (_mm256_testz_si256(inf, inf) ? 0 : XS_ROW_INF);
    return kind | xs_row_kind_scalar(in + k * (npy_intp)sizeof(float), sizeof(float), n - k, 1);
}
#endif

/* The same template with 2-double vectors: aarch64's NEON (fused
 * multiply-subtract), and the portable instance for every CPU whose
 * compiler has GCC's vector extensions (SSE2 on x86-64: the generic level;
 * the exact residual c - a b of a mean from C's fma, lane by lane). */
#ifdef XS_CPU_NEON
#define XS_MOVING_NEON 1
#include <arm_neon.h>
#define XS_ML_NAME xs_lanes_neon
#define XS_ML_W 2
#define XS_ML_TARGET
#define XS_ML_FNMSUB(a, b, c) \
    ((V)vfmsq_f64((float64x2_t)(c), (float64x2_t)(a), (float64x2_t)(b)))
#define XS_ML_ALL(m) (((m)[0] & (m)[1]) != 0)
/* r[0], r[1] hold 2 rows of 2 doubles; afterwards r[j] holds their column j. */
#define XS_ML_TRANSPOSE(r)                                                          \
    do {                                                                            \
        float64x2_t xs_t0 = vzip1q_f64((float64x2_t)(r)[0], (float64x2_t)(r)[1]);   \
        float64x2_t xs_t1 = vzip2q_f64((float64x2_t)(r)[0], (float64x2_t)(r)[1]);   \
        (r)[0] = (V)xs_t0;                                                          \
        (r)[1] = (V)xs_t1;                                                          \
    } while (0)
#include "kernels/moving/xs_moving_lanes_template.h"
#endif

#if defined(__GNUC__) || defined(__clang__)
#define XS_MOVING_PORTABLE 1
#define XS_ML_NAME xs_lanes_generic
#define XS_ML_W 2
#define XS_ML_TARGET
#define XS_ML_FNMSUB(a, b, c) ((V){fma(-(a)[0], (b)[0], (c)[0]), fma(-(a)[1], (b)[1], (c)[1])})
#if defined(XS_CPU_X86) && defined(__SSE2__)
/* x86-64 (SSE2): a compare of doubles runs on the two adders, which the
 * step's TwoSums keep busy (Zen 5: four cmppd beside eight independent
 * addpd took 1.37-1.41 ns against 0.94, four pcmpgtd 0.91).  So the
 * portable lanes test magnitudes on the integer units: by the top 32 bits
 * of their patterns (which order as the magnitudes do), against limits
 * whose low 32 bits are 0; lane masks from movmskps (one instruction). */
_Static_assert((XS_RUNNING_MAX_BITS & UINT32_MAX) == 0, "XS_RUNNING_MAX: the top 32 bits decide");
_Static_assert((XS_RUNNING_TINY_SUM_BITS & UINT32_MAX) == 0, "the tiny sum: the top 32 bits decide");

/* The lanes with |hi| < XS_RUNNING_MAX (|hi| = XS_RUNNING_MAX goes stale
 * too: the lane is then settled from its accumulator, the same value). */
static inline __m128i xs_lanes_sse2_within(__m128d hi)
{
    const __m128i magnitude = _mm_set1_epi64x(INT64_MAX);
    const __m128i max_top = _mm_set1_epi32((int32_t)(XS_RUNNING_MAX_BITS >> 32));
    __m128i below = _mm_cmpgt_epi32(max_top, _mm_and_si128(_mm_castpd_si128(hi), magnitude));
    return _mm_shuffle_epi32(below, _MM_SHUFFLE(3, 3, 1, 1));   /* the high words' verdict */
}

/* XS_ML_FAST_ALL: every lane valid with |approx| at least the value of
 * bits tiny_bits (XS_RUNNING_TINY_SUM's, whose low 32 bits are 0) and a
 * bound whose pattern is 0 (+0.0; a bound is never
 * negative, and -0.0 would only take the full decision), or short of
 * terms. */
static inline int xs_lanes_sse2_fast_all(__m128d approx, __m128d bound, __m128i valid,
                                         __m128i short_of, uint64_t tiny_bits)
{
    const __m128i magnitude = _mm_set1_epi64x(INT64_MAX);
    const __m128i tiny_top_m1 = _mm_set1_epi32((int32_t)(tiny_bits >> 32) - 1);
    const __m128i low_words = _mm_set_epi32(0, -1, 0, -1);
    __m128i large = _mm_or_si128(
        _mm_cmpgt_epi32(_mm_and_si128(_mm_castpd_si128(approx), magnitude), tiny_top_m1),
        low_words);
    __m128i exact = _mm_cmpeq_epi32(_mm_castpd_si128(bound), _mm_setzero_si128());
    __m128i m = _mm_or_si128(_mm_and_si128(_mm_and_si128(large, exact), valid), short_of);
    return _mm_movemask_ps(_mm_castsi128_ps(m)) == 0xf;
}
#define XS_ML_WITHIN(hi) ((XS_ML_VI)xs_lanes_sse2_within((__m128d)(hi)))
#define XS_ML_FAST_ALL(approx, bound, valid, short_of)                              \
    xs_lanes_sse2_fast_all((__m128d)(approx), (__m128d)(bound), (__m128i)(valid),   \
                           (__m128i)(short_of), XS_RUNNING_TINY_SUM_BITS)
#define XS_ML_ALL(m) (_mm_movemask_pd((__m128d)(m)) == 3)
#else
#define XS_ML_ALL(m) (((m)[0] & (m)[1]) != 0)
#endif
/* r[0], r[1] hold 2 rows of 2 doubles; afterwards r[j] holds their column j
 * (the compilers' shuffles of vector extensions). */
#ifdef __clang__
#define XS_ML_SHUFFLE(a, b, i, j) __builtin_shufflevector((a), (b), i, j)
#else
#define XS_ML_SHUFFLE(a, b, i, j) __builtin_shuffle((a), (b), (VI){i, j})
#endif
#define XS_ML_TRANSPOSE(r)                                                          \
    do {                                                                            \
        V xs_t0 = XS_ML_SHUFFLE((r)[0], (r)[1], 0, 2);                              \
        V xs_t1 = XS_ML_SHUFFLE((r)[0], (r)[1], 1, 3);                              \
        (r)[0] = xs_t0;                                                             \
        (r)[1] = xs_t1;                                                             \
    } while (0)
#include "kernels/moving/xs_moving_lanes_template.h"
#undef XS_ML_SHUFFLE
#endif

/* The vector lanes of one level: the loop of xs_moving_lanes_template.h
 * and its width (lanes per register). */
typedef int (*xs_lanes_loop)(xs_running *run, int64_t *nans, const npy_intp *start,
                             npy_intp *t_io, npy_intp len, const char *in, npy_intp stride,
                             int64_t window, int64_t min_count, int mean, int checked,
                             int has_nan, int narrow, int in32, char *out, npy_intp out_step);
typedef struct {
    xs_lanes_loop loop;
    int width;
} xs_lanes_variant;

#ifdef XS_MOVING_PORTABLE
static const xs_lanes_variant lanes_generic = {xs_lanes_generic, 2};
#endif
#ifdef XS_MOVING_X86
static const xs_lanes_variant lanes_avx2 = {xs_lanes_avx2, 4};
#endif
#ifdef XS_MOVING_NEON
static const xs_lanes_variant lanes_neon = {xs_lanes_neon, 2};
#endif
static const void *const lanes_variants[XS_ISA_COUNT] = {
#ifdef XS_MOVING_PORTABLE
    [XS_ISA_GENERIC] = &lanes_generic,
#endif
#ifdef XS_MOVING_X86
    [XS_ISA_AVX2] = &lanes_avx2,
#endif
#ifdef XS_MOVING_NEON
    [XS_ISA_NEON] = &lanes_neon,
#endif
};

/* The vector lanes of the level in force (src/cpu/xs_cpu.h picks, under
 * XSUMUFUNC_KERNEL's cap; NULL: none, the lanes take turns in plain C). */
static const xs_lanes_variant *xs_vector_lanes(void)
{
    return xs_cpu_pick(lanes_variants);
}

/* The row without Inf (XS_ROW_INF: the lanes do not take it): with
 * XS_ROW_NAN, a NaN, and with XS_ROW_BEYOND, a finite term beyond the safe
 * range of xs_running.h, which the vector lanes must test for. */
static int xs_row_kind(const char *in, npy_intp stride, npy_intp n, int in32)
{
#ifdef XS_MOVING_X86
    if (stride == (npy_intp)(in32 ? sizeof(float) : sizeof(double)) &&
            xs_cpu_allows(XS_ISA_AVX2)) {
        return in32 ? xs_row_kind_avx2_float32(in, n) : xs_row_kind_avx2(in, n);
    }
#endif
#if (defined(__GNUC__) || defined(__clang__)) && !defined(XS_NO_VECTOR_EXT)
    if (stride == (npy_intp)(in32 ? sizeof(float) : sizeof(double))) {
        return xs_row_kind_vector(in, n, in32);
    }
#endif
    return xs_row_kind_scalar(in, stride, n, in32);
}

static void xs_moving_lanes(xs_window_exact exact[XS_MOVING_LANES], npy_intp n,
                            int64_t window, int64_t min_count, int mean, int kind,
                            const xs_target *target, char *out, npy_intp out_step)
{
    const char *in = exact[0].in;
    npy_intp stride = exact[0].stride;
    /* (used by the vector lanes only) */
    const int checked = (kind & XS_ROW_BEYOND) != 0, has_nan = (kind & XS_ROW_NAN) != 0;
    const int narrow = target == &xs_target_float32, in32 = exact[0].in32;
    /* (float32 terms into float64 results take turns: no loop of those) */
    const xs_lanes_variant *vector =
        (target == &xs_target_float64 && !in32) || narrow ? xs_vector_lanes() : NULL;
    int lanes = XS_MOVING_LANES;          /* in vector registers or not */
    npy_intp len = n / lanes, start[XS_MOVING_LANES];
    xs_running run[XS_MOVING_LANES];
    int64_t nans[XS_MOVING_LANES];        /* in each lane's window */
    for (int l = 0; l < lanes; l++) {
        start[l] = l * len;
        xs_running_init_exact(&run[l]);
        run[l].valid = l == 0;
        /* The window that ends just before the lane's first output. */
        exact[l].synced = start[l] - 1;
        xs_small_init(&exact[l].acc);
        exact[l].not_neg_zero = 0;
        nans[l] = 0;
        for (npy_intp j = start[l] - window > 0 ? start[l] - window : 0; j < start[l]; j++) {
            uint64_t bits = xs_window_load(in, stride, j, in32);
            xs_window_add_exact(&exact[l], bits, +1);
            nans[l] += xs_window_is_nan(bits);
        }
    }
    /* Until every lane's window is full (and wherever there are no vector
     * lanes), lane by lane. */
    npy_intp full = vector ? (window < len ? (npy_intp)window : len) : len;
    /* Interrupts are checked every XS_INTERRUPT_BLOCK / lanes steps (every
     * output written is final; a stop leaves the others unwritten). */
    const npy_intp steps_per_check = XS_INTERRUPT_BLOCK / XS_MOVING_LANES;
    for (npy_intp t0 = 0; t0 < full; t0 += steps_per_check) {
        if (xs_interrupted_at(t0)) {
            return;
        }
        npy_intp t1 = full - t0 < steps_per_check ? full : t0 + steps_per_check;
        for (npy_intp t = t0; t < t1; t++) {
            for (int l = 0; l < lanes; l++) {
                xs_lane_step(&run[l], &exact[l], &nans[l], start[l] + t, window, min_count,
                             mean, target, out, out_step);
            }
        }
    }
    /* Then in vector registers, `width` lanes at a time; the lanes that the
     * vector loop leaves undecided at a step are settled one by one here. */
    for (int g = 0; vector != NULL && g < lanes; g += vector->width) {
        npy_intp t = full;
        while (t < len) {
            npy_intp until = len - t < steps_per_check ? len : t + steps_per_check;
            int undecided = vector->loop(run + g, nans + g, start + g, &t, until, in, stride,
                                         window, min_count, mean, checked, has_nan, narrow,
                                         in32, out, out_step);
            if (t >= until) {
                if (xs_interrupted()) {
                    return;
                }
                continue;
            }
            for (int l = g; l < g + vector->width; l++) {
                if (undecided & (1 << (l - g))) {
                    double value;
                    uint64_t divisor = mean ? (uint64_t)(window - nans[l]) : 1u;
                    run[l] = xs_window_settle(&exact[l], run[l], start[l] + t, divisor,
                                              target->format, &value);
                    XS_STORE(target, out + (start[l] + t) * out_step, value);
                }
            }
            t++;
        }
    }
    /* The rest of the row, after the last lane's stretch. */
    int last = lanes - 1;
    for (npy_intp k = start[last] + len; k < n; k++) {     /* fewer than `lanes` */
        xs_lane_step(&run[last], &exact[last], &nans[last], k, window, min_count, mean,
                     target, out, out_step);
    }
}

/* The gufunc loop of float64 (in32 0) or float32 (1) values. */
static void xs_moving_rows(char **args, const npy_intp *dimensions, const npy_intp *steps,
                           void *data, int in32)
{
    const xs_target *target = data;
    const xs_format *fmt = target->format;
    npy_intp outer = dimensions[0], n = dimensions[1];
    PyThreadState *saved = NULL;
    if ((outer >= XS_MOVING_GIL_MIN_TERMS || n >= XS_MOVING_GIL_MIN_TERMS ||
         outer * n >= XS_MOVING_GIL_MIN_TERMS) && PyGILState_Check()) {
        saved = PyEval_SaveThread();
    }
    xs_window_exact exact, lanes[XS_MOVING_LANES];
    ptrdiff_t work = 0;
    for (npy_intp i = 0; i < outer && !xs_interrupted_after(&work, n); i++) {
        const char *in = args[0] + i * steps[0];
        char *out = args[4] + i * steps[4];
        int64_t window, min_count;
        npy_bool mean;
        memcpy(&window, args[1] + i * steps[1], sizeof window);
        memcpy(&min_count, args[2] + i * steps[2], sizeof min_count);
        memcpy(&mean, args[3] + i * steps[3], sizeof mean);
        int kind = n >= XS_MOVING_LANES_MIN_TERMS ? xs_row_kind(in, steps[5], n, in32)
                                                   : XS_ROW_INF;
        if (!(kind & XS_ROW_INF)) {
            for (int l = 0; l < XS_MOVING_LANES; l++) {
                lanes[l].in = in;
                lanes[l].stride = steps[5];
                lanes[l].window = (npy_intp)window;
                lanes[l].in32 = in32;
            }
            xs_moving_lanes(lanes, n, window, min_count, mean, kind, target, out, steps[6]);
            continue;
        }
        xs_small_init(&exact.acc);
        exact.not_neg_zero = 0;
        exact.synced = -1;
        exact.in = in;
        exact.stride = steps[5];
        exact.window = (npy_intp)window;
        exact.in32 = in32;
        xs_window_counts c = {0, 0, 0};
        xs_running run;
        xs_running_init_exact(&run);
        /* Blocks of outputs, checking for interrupts in between (every output
         * written is final; a stop leaves the later ones unwritten). */
        for (npy_intp k0 = 0; k0 < n && !xs_interrupted_at(k0); k0 += XS_INTERRUPT_BLOCK) {
            npy_intp k1 = n - k0 < XS_INTERRUPT_BLOCK ? n : k0 + XS_INTERRUPT_BLOCK;
            for (npy_intp k = k0; k < k1; k++) {
                uint64_t in_bits = xs_window_load(in, steps[5], k, in32), out_bits = 0;  /* +0.0 */
                xs_window_count(&c, in_bits, +1);
                if (k >= window) {
                    out_bits = xs_window_load(in, steps[5], k - window, in32);
                    xs_window_count(&c, out_bits, -1);
                }
                int ok = 1;
                double x_in = xs_window_term(in_bits, &ok), x_out = xs_window_term(out_bits, &ok);
                if (ok && run.valid) {
                    xs_running_move(&run, x_in, x_out);
                }
                else {
                    run.valid = 0;        /* stale until the next rebuild */
                }
                double value;
                uint64_t divisor = mean ? (uint64_t)c.terms : 1u;
                if (c.terms < min_count) {
                    value = NAN;
                }
                else if (c.pos_inf || c.neg_inf) {
                    value = c.pos_inf && c.neg_inf ? NAN : c.pos_inf ? INFINITY : -INFINITY;
                }
                else if (!xs_window_decide(&run, divisor, fmt, &value)) {
                    run = xs_window_settle(&exact, run, k, divisor, fmt, &value);
                }
                XS_STORE(target, out + k * steps[6], value);
            }
        }
    }
    if (saved) {
        PyEval_RestoreThread(saved);
    }
}

void xs_moving_float64(char **args, const npy_intp *dimensions, const npy_intp *steps,
                       void *data)
{
    xs_moving_rows(args, dimensions, steps, data, 0);
}

void xs_moving_float32(char **args, const npy_intp *dimensions, const npy_intp *steps,
                       void *data)
{
    xs_moving_rows(args, dimensions, steps, data, 1);
}
