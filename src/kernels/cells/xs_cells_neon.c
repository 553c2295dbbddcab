/*
 * The cells kernels of xs_cells.h for aarch64's Advanced SIMD (NEON), from
 * the family's template (xs_cells_kernel.h): 2-double vectors, 4 chains
 * (8 lanes per cell, term i in lane i mod 8 as in the generic, SSE2 and AVX2
 * instances, so the lanes match the generic kernel's bit for bit), and the
 * block's range on the bit patterns of |term| with NEON's native unsigned
 * 64-bit compares.  Empty off aarch64.
 */
#include "kernels/cells/xs_cells_variants.h"

#ifdef XS_CPU_NEON
#include <arm_neon.h>
#include <string.h>

#define XS_CK_TARGET
#define XS_CK_V float64x2_t
#define XS_CK_VW 2
#define XS_CK_CHAINS 4
#define XS_CK_LOAD(p) vld1q_f64(p)
#define XS_CK_STORE(p, v) vst1q_f64((p), (v))
#define XS_CK_ADD(a, b) vaddq_f64((a), (b))
#define XS_CK_SUB(a, b) vsubq_f64((a), (b))
#define XS_CK_SET1(d) vdupq_n_f64(d)
/* |x| - 1 turns 0 into the largest unsigned value, out of the minimum. */
#define XS_CK_RANGE_INIT \
    const uint64x2_t abs_mask = vdupq_n_u64(XS_CELLS_ABS_BITS), one = vdupq_n_u64(1); \
    uint64x2_t mx = vdupq_n_u64(0), mn = vdupq_n_u64(UINT64_MAX);
#define XS_CK_RANGE_STEP(v, j) { \
        uint64x2_t a = vandq_u64(vreinterpretq_u64_f64(v), abs_mask); \
        uint64x2_t a_m1 = vsubq_u64(a, one); \
        mx = vbslq_u64(vcgtq_u64(a, mx), a, mx); \
        mn = vbslq_u64(vcltq_u64(a_m1, mn), a_m1, mn); }
#define XS_CK_RANGE_END(range) { \
        uint64_t m0 = vgetq_lane_u64(mx, 0), m1 = vgetq_lane_u64(mx, 1); \
        uint64_t s0 = vgetq_lane_u64(mn, 0), s1 = vgetq_lane_u64(mn, 1); \
        (range)->max_bits = m0 > m1 ? m0 : m1; \
        (range)->min_bits_m1 = s0 < s1 ? s0 : s1; }

/* Two floats widened exactly. */
static inline float64x2_t f32x2_neon(const float *x)
{
    return vcvt_f64_f32(vld1_f32(x));
}

/* Two bfloat16 (4 bytes) into the top halves of two floats, widened. */
static inline float64x2_t bf16x2_neon(const uint16_t *x)
{
    uint32_t two;
    memcpy(&two, x, sizeof two);
    uint32x4_t wide = vshll_n_u16(vreinterpret_u16_u32(vdup_n_u32(two)), 16);
    return vcvt_f64_f32(vreinterpret_f32_u32(vget_low_u32(wide)));
}

#define XS_CK_ELEMENT double
#define XS_CK_LOAD_IN(x, i) vld1q_f64((x) + (i))
#define XS_CI_NAME(K) cells_f64_neon_##K
#include "kernels/cells/xs_cells_instances.h"
#define XS_CK_ELEMENT float
#define XS_CK_LOAD_IN(x, i) f32x2_neon((x) + (i))
#define XS_CI_NAME(K) cells_f32_neon_##K
#include "kernels/cells/xs_cells_instances.h"
#define XS_CK_ELEMENT uint16_t
#define XS_CK_LOAD_IN(x, i) bf16x2_neon((x) + (i))
#define XS_CI_NAME(K) cells_bf16_neon_##K
#include "kernels/cells/xs_cells_instances.h"
#include "kernels/cells/xs_cells_isa_end.h"

const xs_cells_set xs_cells_neon = XS_CELLS_SET(neon);
#endif
