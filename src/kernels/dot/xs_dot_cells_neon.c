/*
 * The dot-cells kernels of xs_dot_cells.h for aarch64's Advanced SIMD
 * (NEON), from the family's template (xs_dot_cells_kernel.h): 2-double
 * vectors, 4 chains (product i in lane i mod 8, as in the generic and AVX2
 * instances), e = a*b - p fused (vfmsq_f64: exact for every product
 * a window takes), and the block's range on bit patterns with NEON's
 * native unsigned 64-bit compares.  Empty off aarch64.
 */
#include "kernels/dot/xs_dot_cells_variants.h"

#ifdef XS_CPU_NEON
#include <arm_neon.h>

#define XS_DK_TARGET
#define XS_DK_V float64x2_t
#define XS_DK_VW 2
#define XS_DK_CHAINS 4
#define XS_DK_LOAD(p) vld1q_f64(p)
#define XS_DK_LOADU(p) vreinterpretq_f64_u8(vld1q_u8((const uint8_t *)(const void *)(p)))
#define XS_DK_STORE(p, v) vst1q_f64((p), (v))
#define XS_DK_ADD(x, y) vaddq_f64((x), (y))
#define XS_DK_SUB(x, y) vsubq_f64((x), (y))
#define XS_DK_MUL(x, y) vmulq_f64((x), (y))
/* x*y - z with one rounding: -(z - x*y), vfmsq_f64(z, x, y) = z - x*y. */
#define XS_DK_FMSUB(x, y, z) vnegq_f64(vfmsq_f64((z), (x), (y)))
#define XS_DK_SET1(d) vdupq_n_f64(d)
/* |x| - 1 turns 0 into the largest unsigned value, out of the minimum. */
#define XS_DK_RANGE_INIT \
    const uint64x2_t abs_mask = vdupq_n_u64(XS_CELLS_ABS_BITS), one = vdupq_n_u64(1); \
    uint64x2_t max_p = vdupq_n_u64(0), min_a = vdupq_n_u64(UINT64_MAX), min_b = min_a;
#define XS_DK_NONZERO_MIN(m, x) { \
        uint64x2_t m_abs_m1 = vsubq_u64(vandq_u64(vreinterpretq_u64_f64(x), abs_mask), one); \
        m = vbslq_u64(vcltq_u64(m_abs_m1, m), m_abs_m1, m); }
#define XS_DK_RANGE_STEP(va, vb, p) { \
        uint64x2_t p_abs = vandq_u64(vreinterpretq_u64_f64(p), abs_mask); \
        max_p = vbslq_u64(vcgtq_u64(p_abs, max_p), p_abs, max_p); \
        XS_DK_NONZERO_MIN(min_a, va) \
        XS_DK_NONZERO_MIN(min_b, vb) }
#define XS_DK_LANE_MAX(v) (vgetq_lane_u64((v), 0) > vgetq_lane_u64((v), 1) \
                           ? vgetq_lane_u64((v), 0) : vgetq_lane_u64((v), 1))
#define XS_DK_LANE_MIN(v) (vgetq_lane_u64((v), 0) < vgetq_lane_u64((v), 1) \
                           ? vgetq_lane_u64((v), 0) : vgetq_lane_u64((v), 1))
#define XS_DK_RANGE_END(range) { \
        (range)->max_p = XS_DK_LANE_MAX(max_p); \
        (range)->min_sum = xs_dot_cells_operand_sum(XS_DK_LANE_MIN(min_a), XS_DK_LANE_MIN(min_b)); }
#define XS_DK_CELLS 2
#define XS_DK_NAME dot2_neon
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 3
#define XS_DK_NAME dot3_neon
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 4
#define XS_DK_NAME dot4_neon
#include "kernels/dot/xs_dot_cells_kernel.h"
#define XS_DK_CELLS 5
#define XS_DK_NAME dot5_neon
#include "kernels/dot/xs_dot_cells_kernel.h"
#include "kernels/cells/xs_cells_isa_end.h"
#undef XS_DK_LANE_MAX
#undef XS_DK_LANE_MIN

const xs_dot_cells_set xs_dot_cells_neon = {
    .by_cells = {NULL, NULL, dot2_neon, dot3_neon, dot4_neon, dot5_neon}};
#endif
