/*
 * The block kernels of xs_dot_cells.c as one ISA's variant sees them: what
 * a kernel measures (xs_dot_cells_range), whether a block fits a window,
 * the kernel's signature, and a set of them per cell count.  Each ISA's
 * instances are made from the one template (xs_dot_cells_kernel.h): the
 * x86 ones in xs_dot_cells.c, the portable ones in xs_dot_cells_generic.c,
 * NEON's in xs_dot_cells_neon.c.
 */
#ifndef XS_DOT_CELLS_VARIANTS_H
#define XS_DOT_CELLS_VARIANTS_H

#include <stdint.h>

#include "kernels/cells/xs_cells.h"
#include "cpu/xs_cpu.h"
#include "exact/xs_ieee.h"

/* A block's range: the largest |p| and the smallest non-zero |a| and |b|,
 * as bit patterns (unsigned order is magnitude order; Inf/NaN above all). */
typedef struct {
    uint64_t max_p;
    uint64_t min_a_m1, min_b_m1;     /* minus 1 (all zero: UINT64_MAX) */
} xs_dot_cells_range;

/* The least exponent sum fa + fb of a block's non-zero operands (range r,
 * neither a nor b all zero), or -1 when one of them is subnormal (exponent
 * field 0): no window takes such a block, for the kernels add p's rest into
 * cell K-1 whole, which takes p to be a multiple of 2^52 times its quantum,
 * true of normal operands only (xs_dot_cells_kernel.h). */
static inline int xs_dot_cells_exponent_sum(const xs_dot_cells_range *r)
{
    int fa = (int)((r->min_a_m1 + 1) >> XS_F64_MANT_BITS);
    int fb = (int)((r->min_b_m1 + 1) >> XS_F64_MANT_BITS);
    return fa == 0 || fb == 0 ? -1 : fa + fb;
}

/* Whether every product of a block of range r fits w (see the header):
 * all of a or all of b zero makes every product zero. */
static inline int xs_dot_cells_fits(const xs_cells_window *w, const xs_dot_cells_range *r)
{
    if (r->max_p >= w->max_limit) {
        return 0;
    }
    if (r->min_a_m1 == UINT64_MAX || r->min_b_m1 == UINT64_MAX) {
        return 1;
    }
    return xs_dot_cells_exponent_sum(r) >= w->min_quantum_sum;
}

typedef int (*xs_dot_cells_kernel)(const char *a, const char *b, int terms, double *lanes,
                                   const xs_cells_window *w, xs_dot_cells_range *range);

/* The kernels of one instruction set, by cell count (2..XS_CELLS_GRID_MAX). */
typedef struct {
    xs_dot_cells_kernel by_cells[XS_CELLS_GRID_MAX + 1];
} xs_dot_cells_set;

/* The portable instances (xs_dot_cells_generic.c): no FMA needed. */
extern const xs_dot_cells_set xs_dot_cells_generic;
#ifdef XS_CPU_NEON
/* aarch64's Advanced SIMD instances (xs_dot_cells_neon.c). */
extern const xs_dot_cells_set xs_dot_cells_neon;
#endif

/* The xs_dot_cells_set of each ISA (NULL: none compiled): the dot products
 * take xs_cpu_pick's choice among them, the differential test reads each
 * through xs_cpu_variant. */
extern const void *const xs_dot_cells_variants[XS_ISA_COUNT];

#endif
