/*
 * The strip kernels of xs_columns.c for aarch64's Advanced SIMD (NEON):
 * the strip's eight columns as four 2-double vectors, each lane cut and
 * summed exactly as the portable kernel's (same operations, same order:
 * the same bits), the range on the bit patterns of |x| with NEON's native
 * unsigned 64-bit compares.  Empty off aarch64.
 */
#include "kernels/cells/xs_columns_variants.h"

#ifdef XS_CPU_NEON
#include <arm_neon.h>

/* Vectors per strip row. */
#define XS_SV (XS_STRIP / 2)

/* The eight values of a strip's row as doubles (float32 widened exactly). */
static inline void load_row(float64x2_t v[XS_SV], const char *q, int itemsize)
{
    for (int h = 0; h < XS_SV; h++) {
        v[h] = itemsize == 8 ? vld1q_f64((const double *)(const void *)q + 2 * h)
                             : vcvt_f64_f32(vld1_f32((const float *)(const void *)q + 2 * h));
    }
}

/* The range of the row v into mx, mn (|x| - 1 turns 0 into the largest
 * unsigned value, out of the minimum). */
static inline void range_step(const float64x2_t v[XS_SV], uint64x2_t mx[XS_SV],
                              uint64x2_t mn[XS_SV])
{
    const uint64x2_t abs_mask = vdupq_n_u64(XS_CELLS_ABS_BITS), one = vdupq_n_u64(1);
    for (int h = 0; h < XS_SV; h++) {
        uint64x2_t a = vandq_u64(vreinterpretq_u64_f64(v[h]), abs_mask);
        uint64x2_t a_m1 = vsubq_u64(a, one);
        mx[h] = vbslq_u64(vcgtq_u64(a, mx[h]), a, mx[h]);
        mn[h] = vbslq_u64(vcltq_u64(a_m1, mn[h]), a_m1, mn[h]);
    }
}

static inline void range_init(uint64x2_t mx[XS_SV], uint64x2_t mn[XS_SV])
{
    for (int h = 0; h < XS_SV; h++) {
        mx[h] = vdupq_n_u64(0);
        mn[h] = vdupq_n_u64(UINT64_MAX);
    }
}

static inline void range_end(const uint64x2_t mx[XS_SV], const uint64x2_t mn[XS_SV],
                             xs_strip_block *b)
{
    for (int h = 0; h < XS_SV; h++) {
        vst1q_u64(b->max_bits + 2 * h, mx[h]);
        vst1q_u64(b->min_bits_m1 + 2 * h, mn[h]);
    }
}

/* K a constant in each call below: the cells stay in registers. */
static inline __attribute__((always_inline)) void
strip_block_k(const char *q, ptrdiff_t rows, ptrdiff_t row_stride, int K, int itemsize,
              const double (*sigma)[XS_STRIP], xs_strip_block *b)
{
    float64x2_t acc[XS_CELLS_MAX + 1][XS_SV], sig[XS_CELLS_MAX + 1][XS_SV];
    for (int c = 0; c <= K; c++) {
        for (int h = 0; h < XS_SV; h++) {
            acc[c][h] = vld1q_f64(b->cells[c] + 2 * h);
            sig[c][h] = vld1q_f64(sigma[c] + 2 * h);
        }
    }
    uint64x2_t mx[XS_SV], mn[XS_SV];
    range_init(mx, mn);
    for (ptrdiff_t r0 = 0; r0 < rows; r0 += XS_COLUMN_CARRY_ROWS) {
        ptrdiff_t r1 = rows - r0 < XS_COLUMN_CARRY_ROWS ? rows : r0 + XS_COLUMN_CARRY_ROWS;
        for (ptrdiff_t r = r0; r < r1; r++, q += row_stride) {
            float64x2_t v[XS_SV];
            load_row(v, q, itemsize);
            /* The next chunk of columns is read next: bring its line of
             * this row in now (integer arithmetic: the address may lie past
             * the array, which a prefetch may touch but C may not form). */
            __builtin_prefetch((const void *)((uintptr_t)q + XS_PREFETCH_BYTES(itemsize)));
            range_step(v, mx, mn);
            for (int h = 0; h < XS_SV; h++) {
                for (int c = 1; c < K; c++) {
                    float64x2_t part = vsubq_f64(vaddq_f64(v[h], sig[c][h]), sig[c][h]);
                    v[h] = vsubq_f64(v[h], part);
                    acc[c][h] = vaddq_f64(acc[c][h], part);
                }
                acc[K][h] = vaddq_f64(acc[K][h], v[h]);
            }
        }
        for (int c = K; c >= 1; c--) {
            for (int h = 0; h < XS_SV; h++) {
                float64x2_t carry = vsubq_f64(vaddq_f64(acc[c][h], sig[c - 1][h]), sig[c - 1][h]);
                acc[c][h] = vsubq_f64(acc[c][h], carry);
                acc[c - 1][h] = vaddq_f64(acc[c - 1][h], carry);
            }
        }
    }
    for (int c = 0; c <= K; c++) {
        for (int h = 0; h < XS_SV; h++) {
            vst1q_f64(b->cells[c] + 2 * h, acc[c][h]);
        }
    }
    range_end(mx, mn, b);
}

static inline __attribute__((always_inline)) void
strip_range(const char *q, ptrdiff_t rows, ptrdiff_t row_stride, int itemsize, xs_strip_block *b)
{
    uint64x2_t mx[XS_SV], mn[XS_SV];
    range_init(mx, mn);
    for (ptrdiff_t r = 0; r < rows; r++, q += row_stride) {
        float64x2_t v[XS_SV];
        load_row(v, q, itemsize);
        __builtin_prefetch((const void *)((uintptr_t)q + XS_PREFETCH_BYTES(itemsize)));
        range_step(v, mx, mn);
    }
    range_end(mx, mn, b);
}

#define XS_STRIP_NEON(NAME, ITEMSIZE) \
static void NAME(const char *q, ptrdiff_t rows, ptrdiff_t row_stride, int K, \
                 const double (*sigma)[XS_STRIP], xs_strip_block *b) \
{ \
    switch (K) { \
    case 2: strip_block_k(q, rows, row_stride, 2, ITEMSIZE, sigma, b); break; \
    case 3: strip_block_k(q, rows, row_stride, 3, ITEMSIZE, sigma, b); break; \
    default: strip_block_k(q, rows, row_stride, 4, ITEMSIZE, sigma, b); break; \
    } \
} \
static void NAME##_range(const char *q, ptrdiff_t rows, ptrdiff_t row_stride, xs_strip_block *b) \
{ \
    strip_range(q, rows, row_stride, ITEMSIZE, b); \
}
XS_STRIP_NEON(strip_neon_f64, 8)
XS_STRIP_NEON(strip_neon_f32, 4)

const xs_strip_kernels xs_columns_neon = {strip_neon_f64, strip_neon_f32, strip_neon_f64_range,
                                          strip_neon_f32_range};
#endif
