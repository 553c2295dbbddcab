/*
 * The portable dot-cells kernels (xs_dot_cells.h), the variant every CPU
 * has: the family's template (xs_dot_cells_kernel.h) with e = a*b - p from
 * Dekker's product instead of a fused multiply-add, which a CPU without FMA
 * would get as a slow library call.
 *
 * The split, on bit patterns (no multiply, one subtraction): xh is x
 * rounded to a multiple of 2^XS_SPLIT_BITS = 2^27 of its quantum, ties
 * toward zero, by adding XS_SPLIT_HALF = 2^26 - 1 to its bit pattern and
 * clearing the low 27 bits (a carry out of the fraction moves into the
 * exponent: the next power of two, or Inf from the largest binade), and
 * xl = x - xh (exact: at most 2^26 quanta of x).  Dekker's product (as in
 * Ogita, Rump and Oishi, "Accurate sum and dot product", 2005), its signs
 * turned so that each step is one addition with no copy on two-operand
 * instruction sets:
 *     e = (((ah bh - p) + al bh) + ah bl) + al bl.
 * Why every step is exact, for any finite a and b whose block a window
 * takes.  Count in units of Q = qa qb, the product of the operands'
 * quanta (2^(e-52) for a normal value of exponent e, 2^-1074 for a
 * subnormal): a = A qa and b = B qb with integers 0 < |A|, |B| < 2^53.  The
 * window's rule (xs_dot_cells_product_sum) makes p normal, so one operand
 * at least is normal (two subnormals make p zero), and Q >= 2^-1074, so
 * every multiple of Q of at most 53 significant bits is a double; nothing
 * overflows below 2^T <= 2^971.  The parts: Ah, Bh multiples of 2^27 of at
 * most 2^53 and |Al|, |Bl| <= 2^26, so Ah Bh (2^54 times at most 2^52),
 * Ah Bl, Al Bh (2^27 times at most 2^52) and Al Bl (at most 2^52) are exact
 * products.  P = fl(AB) is a multiple of 2^k for 2^(52+k) <= |AB| <
 * 2^(53+k) (k <= 53; P = AB below 2^53) and |E| = |AB - P| <= 2^(k-1).  The
 * steps are
 *     S1 = Ah Bh - P  = E - Ah Bl - Al B,
 *     S2 = S1 + Al Bh = E - A Bl,
 *     S3 = S2 + Ah Bl = E - Al Bl,
 *     S3 + Al Bl      = E.
 * Let X be the integer of smaller magnitude (A or B) and Y the other, a
 * normal operand's
 * (2^52 <= |Y| < 2^53, |Yl| <= 2^26).
 *   |X| <= 2^26: Xh = 0 and Xl = X (the ties toward zero: at |X| = 2^26
 *     the other way, Xh = 2^27 and Xl = -2^26, S1 may take 54 bits, as a
 *     search over X found).  |AB| < 2^79, so k <= 26 and |E| <= 2^25, and
 *     each step is -P or E minus a product of at most 2^26 2^26: an
 *     integer below 2^53.
 *   2^26 < |X| < 2^27: Xh = +-2^27 and |Xl| = 2^27 - |X| < 2^26.  |AB| >
 *     2^78, so k >= 26: S1 and S2 are multiples of 2^26 (P of 2^k, the
 *     products Xh Yh, Xh Yl, Xl Yh of 2^27), of at most
 *     2^(k-1) + 2^53 + (2^26 - 1)(2^53 - 1) <= 2^79 + 1 (S1) and
 *     2^(k-1) + 2^79 (S2), so at most 2^79; S3 is an integer below 2^53.
 *   |X| >= 2^27 (both normal, too): |Xl| <= 2^26 <= |X|/2, so k >= 27, and
 *     S1, a multiple of 2^k, is at most 2^(k-1) + |AB| (1/2 + 2^-25) <
 *     2^(53+k); S2, a multiple of 2^27, at most 2^(k-1) + 2^79 < 2^80; S3
 *     an integer of at most 2^52 + 2^52.
 * Each step is a multiple of some 2^j of at most 2^(53+j): a double, so no
 * step rounds.  An operand of the largest binade may round up to Inf: then
 * e is a NaN, which the block's last cell shows (XS_DK_CELLS_NAN), and the
 * block is refused (its range says "not finite"); the driver adds it
 * product by product, exactly.
 *
 * GCC and Clang: 2-double vectors (GCC's vector extensions: SSE2 on
 * x86-64, Advanced SIMD on aarch64, scalar code elsewhere), 4 chains up to
 * three cells and 2 from four (8 and 4 lanes per cell: with four cells and
 * more, 4 chains spill their running sums to the stack of SSE2's 16
 * registers); other compilers: doubles, 8 chains.  Product i goes into
 * lane i mod the lanes.  The cuts are running ones (xs_dot_cells_kernel.h).
 * The range: the largest and the smallest |p| (xs_dot_cells_product_sum:
 * one minimum where the FMA variants take two, of |a| and |b|; a block
 * with a zero product looked at again for the smallest one of non-zero
 * operands), NaN products seen through the last cell's lanes once a block;
 * on x86-64 by 16-bit integer maxima and minima of the top 16 bits
 * (xs_top16.h: SSE2 has no 64-bit compares, and a double max or min would
 * take an adder), elsewhere by double maxima and minima, which skip NaN
 * products.  (Zen 4, forced generic: 1.43 -> 1.30 ns per product of normal
 * data, 2.03 -> 1.80 of lognormal(0, 3) with the one minimum, the turned
 * signs and the chains.)
 */
#include "kernels/dot/xs_dot_cells_variants.h"

#include <math.h>
#include <string.h>

#if (defined(__GNUC__) || defined(__clang__)) && !defined(XS_NO_VECTOR_EXT)
typedef double xs_gv __attribute__((vector_size(16)));
typedef int64_t xs_gvi __attribute__((vector_size(16)));
#define XS_GV_W 2
#define XS_GV_CHAINS 4
#define XS_GV_CHAINS_4_CELLS 2
#define XS_GV_BITS(x) ((xs_gvi)(x))
#define XS_GV_DOUBLE(i) ((xs_gv)(i))
#define XS_GV_SPLAT(d) ((xs_gv){0} + (d))
#define XS_GV_SPLAT_BITS(u) ((xs_gvi){0} + (int64_t)(u))
#define XS_GV_LANE(v, k) ((v)[k])
#else
typedef double xs_gv;
typedef int64_t xs_gvi;
#define XS_GV_W 1
#define XS_GV_CHAINS 8
#define XS_GV_CHAINS_4_CELLS 2
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
 * the low 27 of the 52 fraction bits go, rounded to nearest, ties toward
 * zero. */
#define XS_SPLIT_BITS 27
#define XS_SPLIT_HALF (((int64_t)1 << (XS_SPLIT_BITS - 1)) - 1)
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
    return xl * yl + (((xh * yh - p) + xl * yh) + xh * yl);
}

/* v where both x and y are non-zero, otherwise `otherwise`, lane by lane
 * (GCC's vector comparisons give a mask of all ones or zeros per lane). */
static inline xs_gv gv_where_nonzero(xs_gv x, xs_gv y, xs_gv v, xs_gv otherwise)
{
#if defined(__SSE2__) && XS_GV_W == 2
    /* (GCC lowers the vector form below to scalar selects here.) */
    __m128d zero = _mm_setzero_pd();
    __m128d keep = _mm_and_pd(_mm_cmpneq_pd((__m128d)x, zero), _mm_cmpneq_pd((__m128d)y, zero));
    return (xs_gv)_mm_or_pd(_mm_and_pd(keep, (__m128d)v), _mm_andnot_pd(keep, (__m128d)otherwise));
#elif XS_GV_W == 2
    xs_gvi keep = (xs_gvi)(x != 0.0) & (xs_gvi)(y != 0.0);
    return XS_GV_DOUBLE((XS_GV_BITS(v) & keep) | (XS_GV_BITS(otherwise) & ~keep));
#else
    return x != 0.0 && y != 0.0 ? v : otherwise;
#endif
}

/* min_sum of a block whose vector minimum met a zero product (a zero
 * operand, or a product that went to zero): the smallest |p| again, of the
 * products whose operands are both non-zero, vector by vector with no
 * branch per product (sparse data comes here every block: Zen 4, a C
 * harness of xs_dot_cells_add forced generic, normal data with 10% zeros
 * 4.5 -> 1.7 ns per product and with 50% 14.8 -> 1.7, against stop 42's
 * scalar passes over |a| and |b|; 1.3 without zeros).  A product that went
 * to zero or to a subnormal makes it refuse the block
 * (xs_dot_cells_product_sum). */
static int nonzero_product_sum(const char *a, const char *b, int n)
{
    const xs_gvi abs_mask = XS_GV_SPLAT_BITS(XS_CELLS_ABS_BITS);
    const xs_gv inf = XS_GV_SPLAT((double)INFINITY);
    xs_gv least[2] = {inf, inf};      /* two chains of minima */
    for (int i = 0; i < n; i += 2 * XS_GV_W) {
        for (int j = 0; j < 2; j++) {
            xs_gv x = load_gv(a + 8 * (i + j * XS_GV_W)), y = load_gv(b + 8 * (i + j * XS_GV_W));
            xs_gv abs_p = XS_GV_DOUBLE(XS_GV_BITS(x * y) & abs_mask);
            least[j] = gv_min(gv_where_nonzero(x, y, abs_p, inf), least[j]);
        }
    }
    double m = (double)INFINITY;
    for (int j = 0; j < 2; j++) {
        for (int k = 0; k < XS_GV_W; k++) {
            m = XS_GV_LANE(least[j], k) < m ? XS_GV_LANE(least[j], k) : m;
        }
    }
    return xs_dot_cells_product_sum(m == (double)INFINITY ? UINT64_MAX : xs_double_bits(m));
}

/* Running cuts (xs_dot_cells_kernel.h): three additions per cut cell, not
 * four, where the adders are the bottleneck (no FMA). */
#define XS_DK_TARGET
#define XS_DK_CHAINS XS_GV_CHAINS
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
 * adders the products and cuts keep busy: the tops of |p|.  A least top of
 * 0 (a zero product, or a subnormal one below 2^-1026) is looked at again. */
#define XS_DK_RANGE_INIT \
    const __m128i top_abs = XS_TOP16_ABS_LANES(); \
    __m128i max_p = _mm_setzero_si128(), min_p = top_abs;
#define XS_DK_RANGE_STEP(va, vb, p) { \
        __m128i top_p = _mm_and_si128(_mm_castpd_si128((__m128d)(p)), top_abs); \
        max_p = _mm_max_epi16(max_p, top_p); \
        min_p = _mm_min_epi16(min_p, top_p); }
/* A NaN or Inf in the last cell: a NaN product, or an e that is not finite
 * (a split rounded up to Inf): refused outright. */
#define XS_DK_CELLS_NAN(v) gv_not_finite(v)
#define XS_DK_RANGE_END(range) { \
        unsigned least = xs_top16_smaller(min_p); \
        (range)->max_p = cells_nan ? UINT64_MAX : xs_top16_bits(xs_top16_larger(max_p)); \
        (range)->min_sum = least != 0 ? xs_dot_cells_product_sum(xs_top16_bits(least)) \
                                      : nonzero_product_sum(a, b, terms); }
#else
#define XS_DK_RANGE_INIT \
    const xs_gvi abs_mask = XS_GV_SPLAT_BITS(XS_CELLS_ABS_BITS); \
    xs_gv max_p = XS_GV_SPLAT(0.0), min_p = XS_GV_SPLAT((double)INFINITY);
#define XS_GV_ABS(x) XS_GV_DOUBLE(XS_GV_BITS(x) & abs_mask)
#define XS_DK_RANGE_STEP(va, vb, p) { \
        xs_gv abs_p = XS_GV_ABS(p); \
        max_p = gv_max(abs_p, max_p); \
        min_p = gv_min(abs_p, min_p); }
/* A NaN or Inf in the last cell: a NaN product, or an e that is not finite
 * (a split rounded up to Inf): refused outright. */
#define XS_DK_CELLS_NAN(v) gv_not_finite(v)
#define XS_DK_RANGE_END(range) { \
        double mp = XS_GV_LANE(max_p, 0), mn = XS_GV_LANE(min_p, 0); \
        for (int k = 1; k < XS_GV_W; k++) { \
            mp = XS_GV_LANE(max_p, k) > mp ? XS_GV_LANE(max_p, k) : mp; \
            mn = XS_GV_LANE(min_p, k) < mn ? XS_GV_LANE(min_p, k) : mn; \
        } \
        (range)->max_p = cells_nan ? UINT64_MAX : xs_double_bits(mp); \
        (range)->min_sum = mn != 0.0 ? xs_dot_cells_product_sum(xs_double_bits(mn)) \
                                     : nonzero_product_sum(a, b, terms); }

#endif

#define XS_DK_CELLS 2
#define XS_DK_NAME dot2_generic
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 3
#define XS_DK_NAME dot3_generic
#include "kernels/dot/xs_dot_cells_kernel.h"
/* From four cells, fewer chains (see the top of the file). */
#undef XS_DK_CHAINS
#define XS_DK_CHAINS XS_GV_CHAINS_4_CELLS
#define XS_DK_CELLS 4
#define XS_DK_NAME dot4_generic
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 5
#define XS_DK_NAME dot5_generic
#include "kernels/dot/xs_dot_cells_kernel.h"

#if defined(__SSE2__) && XS_GV_W == 2 && defined(XS_DOT_BINS_FAST)
/* Binned instances (xs_dot_cells_variants.h), three to five cells, two
 * chains: of every 12 products, 8 are cut as above and 4 go into the bins
 * of xs_dot_bins.h on the integer units, beside the adders.  Zen 5, forced
 * generic, n = 1e6, one-process A/B: normal operands (three cells) 1.03 ->
 * 0.95 ns per product, lognormal(0, 3) 1.38 -> 1.16, normal times
 * 2^[-40, 40) 1.83 -> 1.40.  A binned product takes about as many
 * instructions as a cut one (some 22), and the loop issues about six a
 * cycle: the gain needed the bins' add in two instructions (xs_dot_bins.h;
 * with GCC's six, three cells were slower binned, 1.03 -> 1.11) and two
 * chains in three cells (four spill with the check's registers).  8 binned
 * of 16 in four cells: 1.23, slower than 4 of 12.  The binned
 * operands' exponent fields are looked at on the integer vector units:
 * each pattern's top 16 bits, the exponent field alone (XS_F64_INF_BITS),
 * plus one in the field's lowest bit (XS_DK_BIN_TOP_ONE), make 0x8000 of
 * 0x7ff (below any other as a signed 16-bit value), XS_DK_BIN_TOP_ONE of 0
 * and at least twice that of a normal field: their least one says which
 * the block met. */
#define XS_DOT_CELLS_GENERIC_BINNED 1
#define XS_DK_BINNED 1
#define XS_DK_BIN_NORMAL 0
#define XS_DK_BIN_ZERO 1
#define XS_DK_BIN_NOT_FINITE 2
#define XS_DK_BIN_TOP_ONE ((int)(XS_F64_IMPLICIT_BIT >> 48))
#define XS_DK_BIN_CHECK_INIT \
    const __m128i bin_field = _mm_set1_epi64x((long long)XS_F64_INF_BITS); \
    const __m128i bin_one = _mm_set1_epi64x((long long)XS_F64_IMPLICIT_BIT); \
    __m128i bin_least = _mm_set1_epi16(INT16_MAX);
#define XS_DK_BIN_FIELDS(p) \
    _mm_add_epi16(_mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(p)), bin_field), \
                  bin_one)
#define XS_DK_BIN_CHECK(pa, pb) \
    for (int m = 0; m < XS_DOT_UNIT_BINNED; m += 2) { \
        bin_least = _mm_min_epi16(bin_least, _mm_min_epi16(XS_DK_BIN_FIELDS((pa) + 8 * m), \
                                                           XS_DK_BIN_FIELDS((pb) + 8 * m))); \
    }
#define XS_DK_BIN_CHECK_END binned_operands_met(bin_least)
/* Of the 16-bit lanes only the tops of the two patterns (lanes 3 and 7)
 * count; the others are 0 after the mask. */
static inline int binned_operands_met(__m128i least)
{
    int low = (int16_t)_mm_extract_epi16(least, 3), high = (int16_t)_mm_extract_epi16(least, 7);
    int m = low < high ? low : high;
    return m < 0 ? XS_DK_BIN_NOT_FINITE
                 : m < 2 * XS_DK_BIN_TOP_ONE ? XS_DK_BIN_ZERO : XS_DK_BIN_NORMAL;
}
#undef XS_DK_CHAINS
#define XS_DK_CHAINS XS_GV_CHAINS_4_CELLS          /* from three cells: two chains */
#define XS_DK_CELLS 3
#define XS_DK_NAME dot3_generic_binned
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 4
#define XS_DK_NAME dot4_generic_binned
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 5
#define XS_DK_NAME dot5_generic_binned
#include "kernels/dot/xs_dot_cells_kernel.h"
#undef XS_DK_BINNED
#undef XS_DK_BIN_CHECK_INIT
#undef XS_DK_BIN_FIELDS
#undef XS_DK_BIN_CHECK
#undef XS_DK_BIN_CHECK_END
#endif
#include "kernels/cells/xs_cells_isa_end.h"
#undef XS_GV_ABS

const xs_dot_cells_set xs_dot_cells_generic = {
    .by_cells = {NULL, NULL, dot2_generic, dot3_generic, dot4_generic, dot5_generic},
#ifdef XS_DOT_CELLS_GENERIC_BINNED
    .binned = {NULL, NULL, NULL, dot3_generic_binned, dot4_generic_binned, dot5_generic_binned},
#endif
};
