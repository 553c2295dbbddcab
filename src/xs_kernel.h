/*
 * XSUMUFUNC_KERNEL: the one reading of the variable that caps the SIMD
 * level of every vector path, so that the tests reach each variant on one
 * machine (results never depend on it).
 *
 *   generic     no vector code at all (the portable C paths)
 *   sse2        the SSE2 window kernels; no AVX path
 *   avx2        AVX2 at most (and FMA where a path needs it)
 *   avx512vbmi  AVX-512 without the VNNI form of the float8 sums
 *   avx512      or unset or anything else: the best the CPU has
 *
 * A path never goes beyond what the CPU has, whatever the cap.
 */
#ifndef XS_KERNEL_H
#define XS_KERNEL_H

#include <stdlib.h>
#include <string.h>

/* Ordered: a path compares the cap with the level it needs. */
typedef enum {
    XS_KERNEL_GENERIC,
    XS_KERNEL_SSE2,
    XS_KERNEL_AVX2,
    XS_KERNEL_AVX512VBMI,
    XS_KERNEL_BEST,
} xs_kernel_cap;

static inline xs_kernel_cap xs_kernel_forced(void)
{
    static const struct {
        const char *name;
        xs_kernel_cap cap;
    } names[] = {{"generic", XS_KERNEL_GENERIC}, {"sse2", XS_KERNEL_SSE2},
                 {"avx2", XS_KERNEL_AVX2}, {"avx512vbmi", XS_KERNEL_AVX512VBMI}};
    const char *forced = getenv("XSUMUFUNC_KERNEL");
    for (size_t i = 0; forced != NULL && i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(forced, names[i].name) == 0) {
            return names[i].cap;
        }
    }
    return XS_KERNEL_BEST;
}

#endif
