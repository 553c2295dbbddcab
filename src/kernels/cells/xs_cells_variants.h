/*
 * The block kernels of xs_cells.c as one ISA's variant sees them: what a
 * kernel returns (xs_cells_range), its signature, and a set of them per
 * input type and cell count.  Each ISA's instances are made from the one
 * template (xs_cells_kernel.h, through xs_cells_instances.h): the x86 ones
 * and the portable ones in xs_cells.c, NEON's in xs_cells_neon.c.
 */
#ifndef XS_CELLS_VARIANTS_H
#define XS_CELLS_VARIANTS_H

#include <stdint.h>

#include "kernels/cells/xs_cells.h"
#include "exact/xs_large.h"
#include "cpu/xs_cpu.h"

/* A block's range as bit patterns of |term|: comparing them as unsigned
 * integers compares the magnitudes (and Inf/NaN come above every finite). */
typedef struct {
    uint64_t max_bits;       /* largest |term| (NaN/Inf: at least 0x7ff0...) */
    uint64_t min_bits_m1;    /* smallest non-zero |term| minus 1 (all zero: UINT64_MAX) */
} xs_cells_range;

typedef int (*xs_cells_kernel)(const void *x, int terms, double *lanes,
                               const xs_cells_window *w, xs_cells_range *range);

/* A float64 kernel that shares each block with a large accumulator
 * (XS_CK_BINNED in xs_cells_kernel.h): whole blocks of XS_CELLS_BLOCK
 * terms only. */
typedef int (*xs_cells_binned_kernel)(const void *x, int terms, double *lanes,
                                      const xs_cells_window *w, xs_cells_range *range,
                                      xs_large *large);

/* The kernels of one instruction set, by input type and cell count, and
 * the binned float64 ones where the ISA has them (NULL: none; XS_CELLS_SET
 * makes a set without, XS_CELLS_SET_BINNED one with). */
typedef struct {
    xs_cells_kernel f64[XS_CELLS_MAX + 1], f32[XS_CELLS_MAX + 1], bf16[XS_CELLS_MAX + 1];
    xs_cells_binned_kernel f64_binned[XS_CELLS_MAX + 1];
} xs_cells_set;

/* The rows of a set every ISA has: float64, float32 and bfloat16 kernels
 * for 1..XS_CELLS_MAX cells. */
#define XS_CELLS_ROWS(ISA) \
    {NULL, cells_f64_##ISA##_1, cells_f64_##ISA##_2, cells_f64_##ISA##_3, cells_f64_##ISA##_4}, \
    {NULL, cells_f32_##ISA##_1, cells_f32_##ISA##_2, cells_f32_##ISA##_3, cells_f32_##ISA##_4}, \
    {NULL, cells_bf16_##ISA##_1, cells_bf16_##ISA##_2, cells_bf16_##ISA##_3, cells_bf16_##ISA##_4}
#define XS_CELLS_SET(ISA) {XS_CELLS_ROWS(ISA), {NULL, NULL, NULL, NULL, NULL}}
/* With binned float64 kernels for three and four cells.  Not for two:
 * there the cuts take four additions a term, not seven, and sharing the
 * block made the portable kernels slower (Zen 5, forced generic,
 * lognormal(0, 3) data, 1e6 terms: 0.33 -> 0.35 ns per term). */
#define XS_CELLS_SET_BINNED(ISA) {XS_CELLS_ROWS(ISA), \
    {NULL, NULL, NULL, cells_f64_##ISA##_binned_3, cells_f64_##ISA##_binned_4}}

/* Whether the portable instances measure a block's range on the top 16
 * bits of each term (xs_top16.h), as they do on x86-64 with GCC's or
 * Clang's vector extensions (SSE2); elsewhere on whole 64-bit patterns. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(XS_NO_VECTOR_EXT) && \
    defined(__SSE2__)
#define XS_CELLS_PORTABLE_TOP16 1
#endif

#ifdef XS_CPU_NEON
/* aarch64's Advanced SIMD instances (xs_cells_neon.c). */
extern const xs_cells_set xs_cells_neon;
#endif

/* The xs_cells_set of each ISA (NULL: none compiled): the sums take
 * xs_cpu_pick's choice among them, the differential test reads each
 * through xs_cpu_variant. */
extern const void *const xs_cells_variants[XS_ISA_COUNT];

#endif
