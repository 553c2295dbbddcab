/*
 * The portable dot-cells kernels (xs_dot_cells.h), the variant every CPU
 * has: the family's template (xs_dot_cells_kernel.h) with e = a*b - p from
 * Dekker's product instead of a fused multiply-add, which a CPU without FMA
 * would get as a slow library call.
 *
 * Dekker's product (Veltkamp's split, then TwoProduct as in Ogita, Rump
 * and Oishi, "Accurate sum and dot product", 2005): a = ah + al with ah and
 * al of at most 26 significant bits each (t = (2^27 + 1) a, ah = t - (t - a),
 * al = a - ah), the same for b; then
 *     e = al bl - (((p - ah bh) - al bh) - ah bl)
 * is a*b - p exactly.  Every step is exact when no operation overflows and
 * every partial product is a multiple of 2^-1074: the four partial products
 * have at most 52 significant bits and are multiples of the product's quantum,
 * which a window only takes at 2^-1074 or above (xs_dot_cells.h), so each
 * intermediate value is a multiple of it below 2^53 of it, a double even
 * when it is subnormal.  The split overflows for |a| from about 2^996 on
 * (t is then an Inf, and e a NaN): a block where e is a NaN is refused (its
 * range says "not finite"), and the driver adds it product by product,
 * exactly.  (The FMA variants take such blocks; the sums are the same.)
 *
 * GCC and Clang: 2-double vectors (GCC's vector extensions: SSE2 on
 * x86-64, Advanced SIMD on aarch64, scalar code elsewhere), 4 chains; other
 * compilers: doubles, 8 chains.  Either way 8 lanes per cell, product i in
 * lane i mod 8, as in the AVX2 and NEON instances.  The range is measured in
 * floating point (SSE2 has no 64-bit compares): |p|, |a| and |b| as doubles
 * (zeros included in the minima, a block with a zero looked at again), a
 * NaN e seen separately.
 */
#include "kernels/dot/xs_dot_cells_variants.h"

#include <math.h>
#include <string.h>

/* Veltkamp's constant for doubles: 2^27 + 1. */
#define XS_SPLITTER 134217729.0

#if (defined(__GNUC__) || defined(__clang__)) && !defined(XS_NO_VECTOR_EXT)
typedef double xs_gv __attribute__((vector_size(16)));
typedef int64_t xs_gvi __attribute__((vector_size(16)));
#define XS_GV_W 2
#define XS_DK_CHAINS 4
#define XS_GV_BITS(x) ((xs_gvi)(x))
#define XS_GV_DOUBLE(i) ((xs_gv)(i))
#define XS_GV_SPLAT(d) ((xs_gv){0} + (d))
#define XS_GV_SPLAT_BITS(u) ((xs_gvi){0} + (int64_t)(u))
/* Comparisons give masks: all ones where true. */
#define XS_GV_GT(a, b) ((a) > (b))
#define XS_GV_NE(a, b) ((a) != (b))
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
#define XS_GV_GT(a, b) (-(int64_t)((a) > (b)))
#define XS_GV_NE(a, b) (-(int64_t)((a) != (b)))
#define XS_GV_LANE(v, k) ((void)(k), (v))
#endif

/* m ? a : b lane by lane, m a mask. */
#define XS_GV_SELECT(m, a, b) \
    XS_GV_DOUBLE((XS_GV_BITS(a) & (m)) | (XS_GV_BITS(b) & ~(m)))

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

/* x*y - p exactly, p = fl(x*y) (see the top of the file for when); a NaN
 * when the split overflows (t = +-Inf, then Inf - Inf), or when p is a NaN. */
static inline xs_gv dekker_error(xs_gv x, xs_gv y, xs_gv p)
{
    xs_gv tx = x * XS_SPLITTER, ty = y * XS_SPLITTER;
    xs_gv xh = tx - (tx - x), yh = ty - (ty - y);
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

#define XS_DK_TARGET
#define XS_DK_V xs_gv
#define XS_DK_VW XS_GV_W
#define XS_DK_LOAD(p) load_gv(p)
#define XS_DK_LOADU(p) load_gv(p)
#define XS_DK_STORE(p, v) store_gv((p), (v))
#define XS_DK_ADD(x, y) ((x) + (y))
#define XS_DK_SUB(x, y) ((x) - (y))
#define XS_DK_MUL(x, y) ((x) * (y))
/* e, and the lanes where it is a NaN noted in `unsplit` (RANGE_INIT): a
 * NaN product, or an operand too large for the split (an Inf operand
 * makes p an Inf or a NaN, which the range refuses anyway). */
#define XS_DK_FMSUB(x, y, z) unsplit_note(dekker_error((x), (y), (z)), &unsplit)
#define XS_DK_SET1(d) XS_GV_SPLAT(d)
/* The minima of |a| and |b| zeros included (cheap); a block whose minimum
 * is zero, rare but for the padded last one, is looked at again for the
 * smallest non-zero value. */
#define XS_DK_RANGE_INIT \
    const xs_gvi abs_mask = XS_GV_SPLAT_BITS(XS_CELLS_ABS_BITS); \
    const xs_gv inf = XS_GV_SPLAT((double)INFINITY); \
    xs_gv max_p = XS_GV_SPLAT(0.0), min_a = inf, min_b = inf; \
    xs_gvi unsplit = XS_GV_SPLAT_BITS(0);
#define XS_GV_MIN(m, x) { \
        xs_gv m_abs = XS_GV_DOUBLE(XS_GV_BITS(x) & abs_mask); \
        m = XS_GV_SELECT(XS_GV_GT(m, m_abs), m_abs, m); }
#define XS_DK_RANGE_STEP(va, vb, p) { \
        xs_gv p_abs = XS_GV_DOUBLE(XS_GV_BITS(p) & abs_mask); \
        max_p = XS_GV_SELECT(XS_GV_GT(p_abs, max_p), p_abs, max_p); \
        XS_GV_MIN(min_a, va) \
        XS_GV_MIN(min_b, vb) }
#define XS_DK_RANGE_END(range) { \
        double mp = XS_GV_LANE(max_p, 0), ma = XS_GV_LANE(min_a, 0); \
        double mb = XS_GV_LANE(min_b, 0); \
        int64_t bad = XS_GV_LANE(unsplit, 0); \
        for (int k = 1; k < XS_GV_W; k++) { \
            mp = XS_GV_LANE(max_p, k) > mp ? XS_GV_LANE(max_p, k) : mp; \
            ma = XS_GV_LANE(min_a, k) < ma ? XS_GV_LANE(min_a, k) : ma; \
            mb = XS_GV_LANE(min_b, k) < mb ? XS_GV_LANE(min_b, k) : mb; \
            bad |= XS_GV_LANE(unsplit, k); \
        } \
        ma = ma == 0.0 ? nonzero_min(a, terms) : ma; \
        mb = mb == 0.0 ? nonzero_min(b, terms) : mb; \
        (range)->max_p = bad ? UINT64_MAX : xs_double_bits(mp); \
        (range)->min_a_m1 = min_bits_m1(ma); \
        (range)->min_b_m1 = min_bits_m1(mb); }

static inline xs_gv unsplit_note(xs_gv e, xs_gvi *unsplit)
{
    *unsplit |= XS_GV_NE(e, e);
    return e;
}

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

const xs_dot_cells_set xs_dot_cells_generic = {
    {NULL, NULL, dot2_generic, dot3_generic, dot4_generic, dot5_generic}};
