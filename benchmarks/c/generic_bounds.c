/*
 * How close the portable (SSE2) column sums run to what the CPU allows: a
 * measurement of issue 27's three missed goals, not package code.  Built
 * and driven by benchmarks/bench_generic_bounds.py (x86-64, GCC or Clang),
 * which checks every result exact against fractions.Fraction.
 *
 * The package's column sweep reads a strip of eight columns down a block
 * of rows with the strip's cell sums in registers
 * (src/kernels/cells/xs_columns_strip.h).  Here the same arithmetic runs
 * row by row, as np.sum does over columns, with every column's cell sums,
 * running cuts and range in memory (in the first- or second-level cache):
 * if the strips' layout cost much, this would run faster.
 *
 * Each column has a window (xs_cells.h): a top T above its largest |x|;
 * cell c has the quantum u_c and the cut constant s_c = 1.5 2^52 u_c.  The
 * kernels make:
 *   - cuts (the package's): a term is cut by running sums into cells
 *     1..K-1 and its rest added to cell K, three adds per cut cell;
 *   - classes (float32 only, not in the package): a term goes whole into
 *     cell 1 when |x| >= 2^(T-24) and into cell 2 otherwise, chosen by an
 *     integer compare of the float32 patterns and two masks; cell 1's
 *     quantum is 2^(T-47) and cell 2's 2^(T-71), so 32 terms a lane stay
 *     below 2^53 quanta in both (a float32 has 24 significant bits): two
 *     adds per term and no cut, for terms within 48 binades below 2^T;
 *   - with or without the range (the largest and smallest non-zero |x| of
 *     each column on the top 16 bits of the patterns, as the package's
 *     portable instance keeps it: xs_top16.h), to price it.
 * A carry step every XS_GB_CARRY rows keeps the lanes bounded, as in the
 * package; the running sums restart every XS_GB_RUN rows.
 *
 * xs_gb_addpd_ns measures the CPU's throughput of independent addpd, the
 * adders' bound that the cuts' count of additions meets.
 */
#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "kernels/cells/xs_cells.h"
#include "kernels/cells/xs_columns_variants.h"
#include "kernels/cells/xs_top16.h"

/* Rows between two carry steps and between two restarts of a running sum:
 * the package's (a lane's bound and a running sum's, xs_cells.h). */
#define XS_GB_CARRY XS_COLUMN_CARRY_ROWS
#define XS_GB_RUN XS_CELLS_RUN_PARTS

/* The package's grid, for the driver (bench_generic_bounds.py): bits per
 * cell and binades of headroom above a column's largest |x|. */
const int xs_gb_cell_width = XS_CELLS_WIDTH;
const int xs_gb_headroom = XS_CELLS_HEADROOM;

/* One cut of v by the running sum t (xs_cells_kernel.h): t takes v rounded
 * to its quantum, v keeps the rest. */
#define XS_GB_CUT(v, t) { \
        __m128d next_ = _mm_add_pd((v), (t)); \
        (v) = _mm_sub_pd((v), _mm_sub_pd(next_, (t))); \
        (t) = next_; \
    }

/* Two rows' patterns a, b into a column pair's range (xs_top16.h: the
 * largest top of |x|, and the least key of xs_top16_min_key). */
static inline void xs_gb_range(__m128i *mx, __m128i *mn, __m128i a, __m128i b)
{
    const __m128i abs_bits = _mm_set1_epi64x((long long)XS_CELLS_ABS_BITS);
    a = _mm_and_si128(a, abs_bits);
    b = _mm_and_si128(b, abs_bits);
    *mx = _mm_max_epi16(*mx, _mm_max_epi16(a, b));
    *mn = _mm_min_epi16(*mn, _mm_min_epi16(xs_top16_min_key(a), xs_top16_min_key(b)));
}

/* The float32 range: four columns' patterns of two rows (the tops of the
 * 32-bit patterns, the key |x| + 2^31 - 1). */
static inline __m128i xs_gb_range32(__m128i *mx, __m128i *mn, __m128i a, __m128i b,
                                    __m128i *abs_b)
{
    const __m128i abs_bits = _mm_set1_epi32(INT32_MAX);
    a = _mm_and_si128(a, abs_bits);
    b = _mm_and_si128(b, abs_bits);
    *mx = _mm_max_epi16(*mx, _mm_max_epi16(a, b));
    *mn = _mm_min_epi16(*mn, _mm_min_epi16(_mm_add_epi32(a, abs_bits), _mm_add_epi32(b, abs_bits)));
    *abs_b = b;
    return a;
}

/* The carry step of K cells: cell c keeps at most u_(c-1)/2, the rest
 * moves up (xs_cells.h). */
static void xs_gb_carry(double *cells, const double *sigma, ptrdiff_t cols, int K)
{
    for (int c = K; c >= 1; c--) {
        for (ptrdiff_t j = 0; j < cols; j += 2) {
            __m128d s = _mm_load_pd(sigma + (c - 1) * cols + j);
            __m128d a = _mm_load_pd(cells + c * cols + j);
            __m128d carry = _mm_sub_pd(_mm_add_pd(a, s), s);
            _mm_store_pd(cells + c * cols + j, _mm_sub_pd(a, carry));
            _mm_store_pd(cells + (c - 1) * cols + j,
                         _mm_add_pd(_mm_load_pd(cells + (c - 1) * cols + j), carry));
        }
    }
}

/* Restart the running sums of cells 1..K-1 from s_c, their parts so far
 * into the cells. */
static void xs_gb_restart(double *cells, const double *sigma, double *run, ptrdiff_t cols,
                          int K)
{
    for (int c = 1; c < K; c++) {
        for (ptrdiff_t j = 0; j < cols; j += 2) {
            __m128d t = _mm_load_pd(run + c * cols + j), s = _mm_load_pd(sigma + c * cols + j);
            _mm_store_pd(cells + c * cols + j,
                         _mm_add_pd(_mm_load_pd(cells + c * cols + j), _mm_sub_pd(t, s)));
            _mm_store_pd(run + c * cols + j, s);
        }
    }
}

/*
 * float64 columns with K cells (2 or 3), cuts, with the range or without:
 * x is rows x cols (row stride `stride` doubles; rows and cols even),
 * cells and sigma (K + 1) x cols, run K x cols (16-byte aligned), range
 * two vectors per column pair (largest, then least keys).
 */
#define XS_GB_F64(NAME, K, RANGE) \
void NAME(const double *x, ptrdiff_t rows, ptrdiff_t stride, ptrdiff_t cols, double *cells, \
          const double *sigma, double *run, __m128i *range) \
{ \
    for (int c = 1; c < (K); c++) { \
        memcpy(run + c * cols, sigma + c * cols, (size_t)cols * sizeof(double)); \
    } \
    for (ptrdiff_t r = 0; r < rows; r += 2) { \
        const double *p = x + r * stride, *p2 = p + stride; \
        for (ptrdiff_t j = 0; j < cols; j += 2) { \
            __m128d a = _mm_loadu_pd(p + j), b = _mm_loadu_pd(p2 + j); \
            if (RANGE) { \
                xs_gb_range(&range[j], &range[j + 1], _mm_castpd_si128(a), \
                            _mm_castpd_si128(b)); \
            } \
            for (int c = 1; c < (K); c++) { \
                __m128d t = _mm_load_pd(run + c * cols + j); \
                XS_GB_CUT(a, t) \
                XS_GB_CUT(b, t) \
                _mm_store_pd(run + c * cols + j, t); \
            } \
            _mm_store_pd(cells + (K) * cols + j, \
                         _mm_add_pd(_mm_load_pd(cells + (K) * cols + j), _mm_add_pd(a, b))); \
        } \
        if ((r + 2) % XS_GB_RUN == 0 || r + 2 == rows) { \
            xs_gb_restart(cells, sigma, run, cols, (K)); \
        } \
        if ((r + 2) % XS_GB_CARRY == 0 || r + 2 == rows) { \
            xs_gb_carry(cells, sigma, cols, (K)); \
        } \
    } \
}
XS_GB_F64(xs_gb_f64_cuts2, 2, 1)
XS_GB_F64(xs_gb_f64_cuts2_norange, 2, 0)
XS_GB_F64(xs_gb_f64_cuts3, 3, 1)
XS_GB_F64(xs_gb_f64_cuts3_norange, 3, 0)

/*
 * float32 columns, two cells, with the range: CLASSES 0 cuts (the
 * package's), 1 the magnitude classes above, whose threshold (the pattern
 * of 2^(T-24), less 1) is in limit[] per column.  cols a multiple of 4.
 */
#define XS_GB_F32(NAME, CLASSES) \
void NAME(const float *x, ptrdiff_t rows, ptrdiff_t stride, ptrdiff_t cols, double *cells, \
          const double *sigma, double *run, __m128i *range, const int32_t *limit) \
{ \
    memcpy(run + cols, sigma + cols, (size_t)cols * sizeof(double)); \
    for (ptrdiff_t r = 0; r < rows; r += 2) { \
        const float *p = x + r * stride, *p2 = p + stride; \
        for (ptrdiff_t j = 0; j < cols; j += 4) { \
            __m128 g0 = _mm_loadu_ps(p + j), g1 = _mm_loadu_ps(p2 + j); \
            __m128i a1; \
            __m128i a0 = xs_gb_range32(&range[j / 2], &range[j / 2 + 1], _mm_castps_si128(g0), \
                                       _mm_castps_si128(g1), &a1); \
            __m128d lo0 = _mm_cvtps_pd(g0), hi0 = _mm_cvtps_pd(_mm_movehl_ps(g0, g0)); \
            __m128d lo1 = _mm_cvtps_pd(g1), hi1 = _mm_cvtps_pd(_mm_movehl_ps(g1, g1)); \
            if (CLASSES) { \
                __m128i t = _mm_loadu_si128((const __m128i *)(limit + j)); \
                __m128i m0 = _mm_cmpgt_epi32(a0, t), m1 = _mm_cmpgt_epi32(a1, t); \
                __m128d big_lo0 = _mm_and_pd(lo0, _mm_castsi128_pd(_mm_unpacklo_epi32(m0, m0))); \
                __m128d big_hi0 = _mm_and_pd(hi0, _mm_castsi128_pd(_mm_unpackhi_epi32(m0, m0))); \
                __m128d big_lo1 = _mm_and_pd(lo1, _mm_castsi128_pd(_mm_unpacklo_epi32(m1, m1))); \
                __m128d big_hi1 = _mm_and_pd(hi1, _mm_castsi128_pd(_mm_unpackhi_epi32(m1, m1))); \
                double *c1 = cells + cols + j, *c2 = cells + 2 * cols + j; \
                _mm_store_pd(c1, _mm_add_pd(_mm_load_pd(c1), _mm_add_pd(big_lo0, big_lo1))); \
                _mm_store_pd(c1 + 2, _mm_add_pd(_mm_load_pd(c1 + 2), _mm_add_pd(big_hi0, big_hi1))); \
                _mm_store_pd(c2, _mm_add_pd(_mm_load_pd(c2), \
                                            _mm_add_pd(_mm_xor_pd(lo0, big_lo0), \
                                                       _mm_xor_pd(lo1, big_lo1)))); \
                _mm_store_pd(c2 + 2, _mm_add_pd(_mm_load_pd(c2 + 2), \
                                                _mm_add_pd(_mm_xor_pd(hi0, big_hi0), \
                                                           _mm_xor_pd(hi1, big_hi1)))); \
            } \
            else { \
                __m128d t_lo = _mm_load_pd(run + cols + j), t_hi = _mm_load_pd(run + cols + j + 2); \
                XS_GB_CUT(lo0, t_lo) \
                XS_GB_CUT(lo1, t_lo) \
                XS_GB_CUT(hi0, t_hi) \
                XS_GB_CUT(hi1, t_hi) \
                _mm_store_pd(run + cols + j, t_lo); \
                _mm_store_pd(run + cols + j + 2, t_hi); \
                double *c2 = cells + 2 * cols + j; \
                _mm_store_pd(c2, _mm_add_pd(_mm_load_pd(c2), _mm_add_pd(lo0, lo1))); \
                _mm_store_pd(c2 + 2, _mm_add_pd(_mm_load_pd(c2 + 2), _mm_add_pd(hi0, hi1))); \
            } \
        } \
        if (!(CLASSES) && ((r + 2) % XS_GB_RUN == 0 || r + 2 == rows)) { \
            xs_gb_restart(cells, sigma, run, cols, 2); \
        } \
        if ((r + 2) % XS_GB_CARRY == 0 || r + 2 == rows) { \
            xs_gb_carry(cells, sigma, cols, 2); \
        } \
    } \
}
XS_GB_F32(xs_gb_f32_cuts, 0)
XS_GB_F32(xs_gb_f32_classes, 1)

/* ns per addpd, the best of five runs of `rounds` rounds of 12 independent
 * ones (four times the adders' latency of 3 cycles, at two a cycle), on
 * zeros plus ones: no subnormal, NaN or overflow. */
double xs_gb_addpd_ns(long rounds)
{
    double best = 1e9;
    for (int run = 0; run < 5; run++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        long left = rounds;
        __asm__ volatile(
            "pcmpeqd %%xmm12, %%xmm12\n\t"
            "psllq $54, %%xmm12\n\t"
            "psrlq $2, %%xmm12\n\t"                   /* 1.0 in both lanes */
            "xorpd %%xmm0, %%xmm0\n\txorpd %%xmm1, %%xmm1\n\txorpd %%xmm2, %%xmm2\n\t"
            "xorpd %%xmm3, %%xmm3\n\txorpd %%xmm4, %%xmm4\n\txorpd %%xmm5, %%xmm5\n\t"
            "xorpd %%xmm6, %%xmm6\n\txorpd %%xmm7, %%xmm7\n\txorpd %%xmm8, %%xmm8\n\t"
            "xorpd %%xmm9, %%xmm9\n\txorpd %%xmm10, %%xmm10\n\txorpd %%xmm11, %%xmm11\n\t"
            "1:\n\t"
            "addpd %%xmm12, %%xmm0\n\taddpd %%xmm12, %%xmm1\n\taddpd %%xmm12, %%xmm2\n\t"
            "addpd %%xmm12, %%xmm3\n\taddpd %%xmm12, %%xmm4\n\taddpd %%xmm12, %%xmm5\n\t"
            "addpd %%xmm12, %%xmm6\n\taddpd %%xmm12, %%xmm7\n\taddpd %%xmm12, %%xmm8\n\t"
            "addpd %%xmm12, %%xmm9\n\taddpd %%xmm12, %%xmm10\n\taddpd %%xmm12, %%xmm11\n\t"
            "dec %0\n\t"
            "jnz 1b\n\t"
            : "+r"(left)
            :
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
              "xmm10", "xmm11", "xmm12", "cc");
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
                    ((double)rounds * 12.0);
        best = ns < best ? ns : best;
    }
    return best;
}
