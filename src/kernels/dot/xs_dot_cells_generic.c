/*
 * The portable dot-cells kernels (xs_dot_cells.h), the variant every CPU
 * has: the family's template (xs_dot_cells_kernel.h) with e = a*b - p from
 * Dekker's product instead of a fused multiply-add, which a CPU without FMA
 * would get as a slow library call.
 *
 * The split, on bit patterns (no multiply, one subtraction): xh is x
 * rounded to 26 significant bits, half away from zero, by adding
 * XS_SPLIT_HALF to its bit pattern and clearing the low XS_SPLIT_BITS
 * (a carry out of the fraction moves into the exponent: the next power of
 * two, or Inf from the largest binade), and xl = x - xh (exact: a multiple
 * of x's quantum, at most 2^26 of it, half of xh's last place).  Dekker's
 * product
 * (as in Ogita, Rump and Oishi, "Accurate sum and dot product", 2005):
 *     e = al bl - (((p - ah bh) - al bh) - ah bl).
 * Why every step is exact, for normal a and b (the kernel refuses a block
 * with a subnormal operand, below).  Count in units of Q = 2^(ea+eb-104),
 * the product's quantum (ea, eb: the exponents of a and b), which a window
 * only takes at 2^-1074 or above (xs_dot_cells.h), so that every multiple
 * of Q with at most 53 significant bits is a double: a = A 2^(ea-52) and
 * b = B 2^(eb-52) with integers 2^52 <= |A|, |B| < 2^53, and the same for
 * the parts: Ah, Bh multiples of 2^27 of at most 2^53, |Al|, |Bl| <= 2^26.  Then Ah Bh (a multiple of 2^54 up to 2^106),
 * Ah Bl and Al Bh (multiples of 2^27 up to 2^79) and Al Bl (up to 2^52)
 * are exact products.  |AB| >= 2^104, so P = fl(AB) is a multiple of 2^52
 * and |E| = |AB - P| <= 2^52 (half an ulp, at most 2^53 below 2^106).
 *     P - Ah Bh = Ah Bl + Al Bh + Al Bl - E:  a multiple of 2^52, at most
 *         2^80 + 2^53 < 2^105;
 *     minus Al Bh = Ah Bl + Al Bl - E:        a multiple of 2^27, at most
 *         2^79 + 2^53 < 2^80;
 *     minus Ah Bl = Al Bl - E:                an integer of at most 2^53;
 *     Al Bl minus that = E.
 * Each is within 2^53 of its multiple, a double: no step rounds.  Nothing
 * overflows while p is below 2^T (at most 2^971) and a, b are finite,
 * except the rounding of an operand of the largest binade up to Inf: then
 * e is a NaN, which the block's last cell shows (XS_DK_CELLS_NAN), and the
 * block is refused (its range says "not finite"); the driver adds it
 * product by product, exactly.  So is a block with a subnormal operand
 * (the split of its bit pattern is not relative to its leading bit; the
 * FMA variants take such blocks, when they fit: the sums are the same).
 *
 * GCC and Clang: 2-double vectors (GCC's vector extensions: SSE2 on
 * x86-64, Advanced SIMD on aarch64, scalar code elsewhere), 4 chains; other
 * compilers: doubles, 8 chains.  Either way 8 lanes per cell, product i in
 * lane i mod 8, as in the AVX2 and NEON instances.  The cuts are running
 * ones (xs_dot_cells_kernel.h).  The range: the largest |p|, the smallest
 * |a| and |b| (zeros included; a block with a zero looked at again for the
 * smallest non-zero value), NaN products seen through the last cell's
 * lanes once a block; on x86-64 by 16-bit integer maxima and minima of the
 * top 16 bits (xs_top16.h: SSE2 has no 64-bit compares, and a double max or
 * min would take an adder), elsewhere by double maxima and minima, which
 * skip NaN products.
 */
#include "kernels/dot/xs_dot_cells_variants.h"

#include <float.h>
#include <math.h>
#include <string.h>

#if (defined(__GNUC__) || defined(__clang__)) && !defined(XS_NO_VECTOR_EXT)
typedef double xs_gv __attribute__((vector_size(16)));
typedef int64_t xs_gvi __attribute__((vector_size(16)));
#define XS_GV_W 2
#define XS_DK_CHAINS 4
#define XS_GV_BITS(x) ((xs_gvi)(x))
#define XS_GV_DOUBLE(i) ((xs_gv)(i))
#define XS_GV_SPLAT(d) ((xs_gv){0} + (d))
#define XS_GV_SPLAT_BITS(u) ((xs_gvi){0} + (int64_t)(u))
#define XS_GV_LANE(v, k) ((v)[k])
#else
typedef double xs_gv;
typedef int64_t xs_gvi;
#define XS_GV_W 1
#define XS_DK_CHAINS 8
#define XS_GV_BITS(x) ((int64_t)xs_double_bits(x))
#define XS_GV_DOUBLE(i) xs_bits_double((uint64_t)(i))
#define XS_GV_SPLAT(d) (d)
#define XS_GV_SPLAT_BITS(u) ((int64_t)(u))
#define XS_GV_LANE(v, k) ((void)(k), (v))
#endif

/* The lane-by-lane maximum and minimum, a NaN in x skipped (the second
 * operand when unordered): SSE2's maxpd and minpd follow that rule, and
 * x86-64 always has SSE2 (GCC does not vectorize the plain C below);
 * elsewhere lane by lane. */
#if defined(__SSE2__) && XS_GV_W == 2
#include <emmintrin.h>
#define gv_max(x, m) _mm_max_pd((x), (m))
#define gv_min(x, m) _mm_min_pd((x), (m))
#elif XS_GV_W == 2
static inline xs_gv gv_max(xs_gv x, xs_gv m)
{
    xs_gv r;
    for (int k = 0; k < XS_GV_W; k++) {
        r[k] = x[k] > m[k] ? x[k] : m[k];
    }
    return r;
}

static inline xs_gv gv_min(xs_gv x, xs_gv m)
{
    xs_gv r;
    for (int k = 0; k < XS_GV_W; k++) {
        r[k] = x[k] < m[k] ? x[k] : m[k];
    }
    return r;
}
#else
#define gv_max(x, m) ((x) > (m) ? (x) : (m))
#define gv_min(x, m) ((x) < (m) ? (x) : (m))
#endif

/* 1 when a lane of v is a NaN or an Inf. */
static inline int gv_not_finite(xs_gv v)
{
    int bad = 0;
    for (int k = 0; k < XS_GV_W; k++) {
        bad |= !(XS_GV_LANE(v, k) - XS_GV_LANE(v, k) == 0.0);
    }
    return bad;
}

static inline xs_gv load_gv(const void *p)
{
    xs_gv v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void store_gv(void *p, xs_gv v)
{
    memcpy(p, &v, sizeof v);
}

/* The split of an operand by its bit pattern (see the top of the file):
 * the low 27 of the 52 fraction bits go, rounded half away from zero. */
#define XS_SPLIT_BITS 27
#define XS_SPLIT_HALF ((int64_t)1 << (XS_SPLIT_BITS - 1))
#define XS_SPLIT_KEEP (~(((int64_t)1 << XS_SPLIT_BITS) - 1))

static inline xs_gv split_high(xs_gv x)
{
    return XS_GV_DOUBLE((XS_GV_BITS(x) + XS_SPLIT_HALF) & XS_SPLIT_KEEP);
}

/* x*y - p exactly, p = fl(x*y) (see the top of the file for when); a NaN
 * when a split rounds up to Inf, or when p is a NaN. */
static inline xs_gv dekker_error(xs_gv x, xs_gv y, xs_gv p)
{
    xs_gv xh = split_high(x), yh = split_high(y);
    xs_gv xl = x - xh, yl = y - yh;
    return xl * yl - (((p - xh * yh) - xl * yh) - xh * yl);
}

/* The smallest non-zero |x| of the block's n values (+Inf: none). */
static double nonzero_min(const char *x, int n)
{
    double m = (double)INFINITY;
    for (int i = 0; i < n; i++) {
        double v;
        memcpy(&v, x + 8 * i, sizeof v);
        v = fabs(v);
        m = v != 0.0 && v < m ? v : m;
    }
    return m;
}

/* The bit pattern of a minimum, minus 1 (+Inf, all zero: UINT64_MAX). */
static inline uint64_t min_bits_m1(double m)
{
    return xs_double_bits(m) == XS_CELLS_INF_BITS ? UINT64_MAX : xs_double_bits(m) - 1;
}

/* Running cuts (xs_dot_cells_kernel.h): three additions per cut cell, not
 * four, where the adders are the bottleneck (no FMA). */
#define XS_DK_TARGET
#define XS_DK_V xs_gv
#define XS_DK_VW XS_GV_W
#define XS_DK_LOAD(p) load_gv(p)
#define XS_DK_LOADU(p) load_gv(p)
#define XS_DK_STORE(p, v) store_gv((p), (v))
#define XS_DK_ADD(x, y) ((x) + (y))
#define XS_DK_SUB(x, y) ((x) - (y))
#define XS_DK_MUL(x, y) ((x) * (y))
#define XS_DK_FMSUB(x, y, z) dekker_error((x), (y), (z))
#define XS_DK_SET1(d) XS_GV_SPLAT(d)
#if defined(__SSE2__) && XS_GV_W == 2
#include "kernels/cells/xs_top16.h"
/* x86-64: the range on the integer vector units (xs_top16.h), off the
 * adders the products and cuts keep busy: the tops of |p|, |a| and |b|.
 * A least top of 0 (a zero, or a subnormal below 2^-1026) is looked at
 * again for the exact smallest non-zero value. */
#define XS_DK_RANGE_INIT \
    const __m128i top_abs = XS_TOP16_ABS_LANES(); \
    __m128i max_p = _mm_setzero_si128(), min_a = top_abs, min_b = top_abs;
#define XS_DK_RANGE_STEP(va, vb, p) { \
        max_p = _mm_max_epi16(max_p, _mm_and_si128(_mm_castpd_si128((__m128d)(p)), top_abs)); \
        min_a = _mm_min_epi16(min_a, _mm_and_si128(_mm_castpd_si128((__m128d)(va)), top_abs)); \
        min_b = _mm_min_epi16(min_b, _mm_and_si128(_mm_castpd_si128((__m128d)(vb)), top_abs)); }
/* A NaN or Inf in the last cell: a NaN product, or an e that is not finite
 * (a split rounded up to Inf). */
#define XS_DK_CELLS_NAN(v) gv_not_finite(v)
/* Refused outright ("not finite"): those, and a subnormal operand (the
 * split's proof needs normal ones). */
#define XS_DK_RANGE_END(range) { \
        uint64_t ma_m1 = top16_min_m1(min_a, a, terms), mb_m1 = top16_min_m1(min_b, b, terms); \
        int refused = cells_nan || is_subnormal_m1(ma_m1) || is_subnormal_m1(mb_m1); \
        (range)->max_p = refused ? UINT64_MAX : xs_top16_bits(xs_top16_larger(max_p)); \
        (range)->min_a_m1 = ma_m1; \
        (range)->min_b_m1 = mb_m1; }

/* The least top of a measure m of the block's n values x, as a bit pattern
 * minus 1; at 0, the exact smallest non-zero |x| (all zero: UINT64_MAX). */
static inline uint64_t top16_min_m1(__m128i m, const char *x, int n)
{
    unsigned least = xs_top16_smaller(m);
    return least != 0 ? xs_top16_bits(least) - 1 : min_bits_m1(nonzero_min(x, n));
}

/* Whether a minimum (minus 1) is a subnormal's (not all zero). */
static inline int is_subnormal_m1(uint64_t m1)
{
    return m1 != UINT64_MAX && (m1 + 1) >> XS_F64_MANT_BITS == 0;
}
#else
#define XS_DK_RANGE_INIT \
    const xs_gvi abs_mask = XS_GV_SPLAT_BITS(XS_CELLS_ABS_BITS); \
    const xs_gv inf = XS_GV_SPLAT((double)INFINITY); \
    xs_gv max_p = XS_GV_SPLAT(0.0), min_a = inf, min_b = inf;
#define XS_GV_ABS(x) XS_GV_DOUBLE(XS_GV_BITS(x) & abs_mask)
#define XS_DK_RANGE_STEP(va, vb, p) { \
        max_p = gv_max(XS_GV_ABS(p), max_p); \
        min_a = gv_min(XS_GV_ABS(va), min_a); \
        min_b = gv_min(XS_GV_ABS(vb), min_b); }
/* A NaN or Inf in the last cell: a NaN product, or an e that is not finite
 * (a split rounded up to Inf). */
#define XS_DK_CELLS_NAN(v) gv_not_finite(v)
/* Refused outright ("not finite"): those, and a subnormal operand (the
 * split's proof needs normal ones). */
#define XS_DK_RANGE_END(range) { \
        double mp = XS_GV_LANE(max_p, 0), ma = XS_GV_LANE(min_a, 0); \
        double mb = XS_GV_LANE(min_b, 0); \
        for (int k = 1; k < XS_GV_W; k++) { \
            mp = XS_GV_LANE(max_p, k) > mp ? XS_GV_LANE(max_p, k) : mp; \
            ma = XS_GV_LANE(min_a, k) < ma ? XS_GV_LANE(min_a, k) : ma; \
            mb = XS_GV_LANE(min_b, k) < mb ? XS_GV_LANE(min_b, k) : mb; \
        } \
        ma = ma == 0.0 ? nonzero_min(a, terms) : ma; \
        mb = mb == 0.0 ? nonzero_min(b, terms) : mb; \
        int refused = cells_nan || ma < DBL_MIN || mb < DBL_MIN; \
        (range)->max_p = refused ? UINT64_MAX : xs_double_bits(mp); \
        (range)->min_a_m1 = min_bits_m1(ma); \
        (range)->min_b_m1 = min_bits_m1(mb); }

#endif

#define XS_DK_CELLS 2
#define XS_DK_NAME dot2_generic
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 3
#define XS_DK_NAME dot3_generic
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 4
#define XS_DK_NAME dot4_generic
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 5
#define XS_DK_NAME dot5_generic
#include "kernels/dot/xs_dot_cells_kernel.h"
#include "kernels/cells/xs_cells_isa_end.h"
#undef XS_GV_ABS

const xs_dot_cells_set xs_dot_cells_generic = {
    {NULL, NULL, dot2_generic, dot3_generic, dot4_generic, dot5_generic}};
