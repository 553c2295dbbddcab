/* The windowed front end for float64 dot products (see xs_dot_window.h). */
#include "xs_dot_window.h"
#include "xs_kernel.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The split constants C = 1.5 * 2^(k+52) of a window's four cuts. */
typedef struct {
    double p1, p2, e1, e2;
} xs_dot_cuts;

/* The biased exponent field of a positive normal double. */
static inline int biased_exponent(double x)
{
    return (int)(xs_double_bits(x) >> 52);
}

/* Lanes: six vectors of up to 8 doubles. */
#define XS_DW_LANES 48

#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
#define XS_DOT_WINDOW_X86 1
#include <immintrin.h>

#define XS_DW_WIDTH 8
#define XS_DW_TARGET __attribute__((target("avx512f")))
#define XS_DW_FMSUB(x, y, z) _mm512_fmsub_pd((x), (y), (z))
#define XS_DW_MAX(x, y) _mm512_max_pd((x), (y))
#define XS_DW_MIN(x, y) _mm512_min_pd((x), (y))
#define XS_DW_NAME(f) f##_avx512
#include "xs_dot_window_kernel.h"
#undef XS_DW_WIDTH
#undef XS_DW_TARGET
#undef XS_DW_FMSUB
#undef XS_DW_MAX
#undef XS_DW_MIN
#undef XS_DW_NAME

#define XS_DW_WIDTH 4
#define XS_DW_TARGET __attribute__((target("avx2,fma")))
#define XS_DW_FMSUB(x, y, z) _mm256_fmsub_pd((x), (y), (z))
#define XS_DW_MAX(x, y) _mm256_max_pd((x), (y))
#define XS_DW_MIN(x, y) _mm256_min_pd((x), (y))
#define XS_DW_NAME(f) f##_avx2
#include "xs_dot_window_kernel.h"
#undef XS_DW_WIDTH
#undef XS_DW_TARGET
#undef XS_DW_FMSUB
#undef XS_DW_MAX
#undef XS_DW_MIN
#undef XS_DW_NAME
#endif

typedef struct {
    int (*range)(const char *a, const char *b, int *smin, int *smax);
    int (*sum)(const char *a, const char *b, const xs_dot_cuts *cuts, double *lanes);
} xs_dot_kernel;

/* The kernel for this CPU (NULL: none), chosen once; XSUMUFUNC_KERNEL as for
 * the sum kernels (generic and sse2 have none: FMA is needed). */
static const xs_dot_kernel *pick_kernel(void)
{
    static _Atomic int chosen = -1;         /* -1: not yet; else 0, 1, 2 */
#ifdef XS_DOT_WINDOW_X86
    static const xs_dot_kernel kernels[3] = {
        {NULL, NULL}, {range_avx2, sum_avx2}, {range_avx512, sum_avx512}};
#else
    static const xs_dot_kernel kernels[1] = {{NULL, NULL}};
#endif
    int k = atomic_load(&chosen);
    if (k < 0) {
        k = 0;
#ifdef XS_DOT_WINDOW_X86
        __builtin_cpu_init();
        int has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        xs_kernel_cap cap = xs_kernel_forced();
        k = __builtin_cpu_supports("avx512f") && cap >= XS_KERNEL_AVX512VBMI ? 2
            : has_avx2 && cap >= XS_KERNEL_AVX2 ? 1 : 0;
#endif
        atomic_store(&chosen, k);
    }
    return kernels[k].sum ? &kernels[k] : NULL;
}

/* The cuts of the window of exponent sums [top - D, top] (see the header). */
static xs_dot_cuts cuts_for(int top)
{
    int p_top = top - 2044, e_top = top - 2097;      /* |p| <= 2^p_top, |e| <= 2^e_top */
    return (xs_dot_cuts){ldexp(1.5, p_top - 27 + 52), ldexp(1.5, p_top - 54 + 52),
                         ldexp(1.5, e_top - 27 + 52), ldexp(1.5, e_top - 54 + 52)};
}

static void flush_lanes(xs_small *acc, double *lanes)
{
    for (int j = 0; j < XS_DW_LANES; j++) {
        if (lanes[j] != 0.0) {
            xs_small_add_bits(acc, xs_double_bits(lanes[j]));
        }
        lanes[j] = 0.0;
    }
}

static void add_scalar(xs_dot *acc, xs_large *large, const char *a, const char *b,
                       ptrdiff_t n)
{
    for (ptrdiff_t i = 0; i < n; i++) {
        double x, y;
        memcpy(&x, a + 8 * i, sizeof x);
        memcpy(&y, b + 8 * i, sizeof y);
        xs_dot_add_float64(acc, large, x, y);
    }
}

ptrdiff_t xs_dot_window_add(xs_dot *acc, xs_large *large, const char *a, const char *b,
                            ptrdiff_t n)
{
    const xs_dot_kernel *kernel = pick_kernel();
    if (kernel == NULL) {
        return 0;
    }
    double lanes[XS_DW_LANES] = {0};
    int top = 0;                      /* the window's top exponent sum; 0: none */
    xs_dot_cuts cuts = {0.0, 0.0, 0.0, 0.0};
    ptrdiff_t in_lanes = 0, i = 0;
    for (; i + XS_DOT_WINDOW_BLOCK <= n; i += XS_DOT_WINDOW_BLOCK) {
        const char *block_a = a + 8 * i, *block_b = b + 8 * i;
        int smin, smax;
        if (!kernel->range(block_a, block_b, &smin, &smax)) {
            add_scalar(acc, large, block_a, block_b, XS_DOT_WINDOW_BLOCK);
            continue;
        }
        int fits = top != 0 && smax <= top && smin >= top - XS_DOT_WINDOW_BINADES &&
                   in_lanes + XS_DOT_WINDOW_BLOCK <= XS_DOT_WINDOW_FLUSH_TERMS;
        if (!fits) {
            /* The feasible tops for this block; take one a little above its
             * largest sum, so that the next blocks are likely to fit too. */
            int lowest = smax > XS_DOT_WINDOW_MIN_BOTTOM + XS_DOT_WINDOW_BINADES
                             ? smax : XS_DOT_WINDOW_MIN_BOTTOM + XS_DOT_WINDOW_BINADES;
            int highest = smin + XS_DOT_WINDOW_BINADES < XS_DOT_WINDOW_MAX_TOP
                              ? smin + XS_DOT_WINDOW_BINADES : XS_DOT_WINDOW_MAX_TOP;
            if (lowest > highest) {
                add_scalar(acc, large, block_a, block_b, XS_DOT_WINDOW_BLOCK);
                continue;
            }
            flush_lanes(&large->small, lanes);
            in_lanes = 0;
            top = smax + 4 < highest ? smax + 4 : highest;
            top = top > lowest ? top : lowest;
            cuts = cuts_for(top);
        }
        in_lanes += XS_DOT_WINDOW_BLOCK;
        if (kernel->sum(block_a, block_b, &cuts, lanes)) {
            large->small.flags |= XS_HAS_TERM | XS_NOT_NEG_ZERO;    /* a non-zero product */
        }
        else {
            /* Only zero products (they added nothing): their signs decide a
             * zero result, so they go the scalar way too. */
            add_scalar(acc, large, block_a, block_b, XS_DOT_WINDOW_BLOCK);
        }
    }
    flush_lanes(&large->small, lanes);
    return i;
}
