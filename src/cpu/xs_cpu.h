/*
 * The one CPU dispatch: which instruction sets this CPU runs, which one
 * XSUMUFUNC_KERNEL allows, and the target attributes of each ISA's code.
 * No other file probes the CPU or reads XSUMUFUNC_KERNEL (the model is
 * NumPy's: one feature module, kernels written once per ISA).
 *
 * The levels of one architecture are ordered: a level includes every level
 * below it.  XSUMUFUNC_KERNEL caps the level (results never depend on it;
 * it exists so that tests reach every variant on one machine):
 *
 *   generic      the portable kernels: C, in 2-double vectors where the
 *                compiler has GCC's vector extensions (SSE2 on x86-64,
 *                Advanced SIMD on aarch64), else one double at a time
 *   sse2         x86-64's baseline, what a CPU without AVX2 runs: no
 *                kernels of its own (the generic ones are SSE2 code there)
 *   avx2         AVX2 with FMA
 *   avx512       AVX-512F
 *   avx512vbmi   AVX-512F, BW and VBMI (the float8 code planes, biased)
 *   avx512vnni   and VNNI (the float8 code planes, signed)
 *   neon         aarch64's Advanced SIMD (every aarch64 CPU has it)
 *   best, or unset: the best level the CPU has.
 *
 * A level the CPU lacks is never used, whatever the cap.  On aarch64 any
 * x86 name above generic allows NEON; on x86-64 "neon" means generic.  An
 * unknown value is taken as "best", and xs_cpu_cap_unknown() says so (the
 * Python layer warns once).
 */
#ifndef XS_CPU_H
#define XS_CPU_H

#include <stddef.h>

typedef enum {
    XS_ISA_GENERIC = 0,
    XS_ISA_SSE2,
    XS_ISA_AVX2,
    XS_ISA_AVX512,
    XS_ISA_AVX512VBMI,
    XS_ISA_AVX512VNNI,
    XS_ISA_NEON,
    XS_ISA_COUNT
} xs_isa;

/* The level in force: the CPU's best, capped by XSUMUFUNC_KERNEL.  Probed
 * once per process (thread-safe); later calls are one atomic load. */
xs_isa xs_cpu_level(void);

/* The best level this CPU runs, whatever the cap. */
xs_isa xs_cpu_best(void);

/* "generic", "sse2", ..., the names XSUMUFUNC_KERNEL takes. */
const char *xs_cpu_level_name(xs_isa level);

/* 1 when XSUMUFUNC_KERNEL is set to a value that names no level. */
int xs_cpu_cap_unknown(void);

/* The variant of a kernel family for the level in force: table[level] for
 * the highest level at most xs_cpu_level() whose entry is not NULL (NULL
 * when there is none).  A family declares its variants as a table indexed
 * by xs_isa, with NULL where it has no code of its own, e.g.
 *   static const my_kernels *const variants[XS_ISA_COUNT] = {
 *       [XS_ISA_GENERIC] = &generic, [XS_ISA_AVX2] = &avx2};
 * On aarch64 the x86 rows are never taken, nor NEON on x86-64. */
const void *xs_cpu_pick(const void *const table[XS_ISA_COUNT]);

/* A family's variant for `isa` itself, whatever the CPU runs and the cap
 * (NULL: none, or no such ISA): what the differential tests compare
 * (tests/c/neon_diff.c), each variant with the generic one. */
static inline const void *xs_cpu_variant(const void *const table[XS_ISA_COUNT], xs_isa isa)
{
    return isa >= 0 && isa < XS_ISA_COUNT ? table[isa] : NULL;
}

/* Whether the level in force includes `level` (same architecture). */
static inline int xs_cpu_allows(xs_isa level)
{
    xs_isa now = xs_cpu_level();
    if (level == XS_ISA_NEON || now == XS_ISA_NEON) {
        return level == XS_ISA_GENERIC || now == level;
    }
    return level <= now;
}

/* ---- compile-time: which ISAs this compiler can emit -------------------- */

/* x86-64 code for levels above the baseline is compiled per function with
 * a target attribute (GCC and Clang); the CPU is checked before it runs. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define XS_CPU_X86 1
#define XS_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define XS_TARGET_AVX512 __attribute__((target("avx512f,avx2,fma")))
#define XS_TARGET_AVX512VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#define XS_TARGET_AVX512VNNI \
    __attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vnni")))
#endif

/* aarch64: Advanced SIMD is part of the base ISA, no attribute needed. */
#if defined(__aarch64__) && defined(__ARM_NEON)
#define XS_CPU_NEON 1
#endif

#endif
