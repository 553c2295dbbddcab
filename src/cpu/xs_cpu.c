/*
 * The CPU dispatch (xs_cpu.h): the one place that probes the CPU and reads
 * XSUMUFUNC_KERNEL.
 */
#include "cpu/xs_cpu.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The names XSUMUFUNC_KERNEL takes, in xs_isa order. */
static const char *const level_names[XS_ISA_COUNT] = {
    [XS_ISA_GENERIC] = "generic",       [XS_ISA_SSE2] = "sse2",
    [XS_ISA_AVX2] = "avx2",             [XS_ISA_AVX512] = "avx512",
    [XS_ISA_AVX512VBMI] = "avx512vbmi", [XS_ISA_AVX512VNNI] = "avx512vnni",
    [XS_ISA_NEON] = "neon",
};

const char *xs_cpu_level_name(xs_isa level)
{
    return level >= 0 && level < XS_ISA_COUNT ? level_names[level] : "unknown";
}

xs_isa xs_cpu_best(void)
{
#if defined(XS_CPU_X86)
    /* __builtin_cpu_supports also checks that the OS saves the wide
     * registers (XGETBV) for AVX and AVX-512. */
    __builtin_cpu_init();
    if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
        return XS_ISA_SSE2;               /* x86-64 always has SSE2 */
    }
    if (!__builtin_cpu_supports("avx512f")) {
        return XS_ISA_AVX2;
    }
    if (!(__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi"))) {
        return XS_ISA_AVX512;
    }
    return __builtin_cpu_supports("avx512vnni") ? XS_ISA_AVX512VNNI : XS_ISA_AVX512VBMI;
#elif defined(XS_CPU_NEON)
    return XS_ISA_NEON;
#else
    return XS_ISA_GENERIC;
#endif
}

/* The cap XSUMUFUNC_KERNEL names, for this architecture: XS_ISA_COUNT for
 * none (unset, "best" or unknown); *unknown set for a value naming nothing. */
static int read_cap(int *unknown)
{
    const char *forced = getenv("XSUMUFUNC_KERNEL");
    *unknown = 0;
    if (forced == NULL || forced[0] == '\0' || strcmp(forced, "best") == 0) {
        return XS_ISA_COUNT;
    }
    for (int level = 0; level < XS_ISA_COUNT; level++) {
        if (strcmp(forced, level_names[level]) != 0) {
            continue;
        }
#if defined(XS_CPU_NEON)
        /* aarch64: any vector level allows NEON. */
        return level == XS_ISA_GENERIC ? XS_ISA_GENERIC : XS_ISA_NEON;
#else
        return level == XS_ISA_NEON ? XS_ISA_GENERIC : level;
#endif
    }
    *unknown = 1;
    return XS_ISA_COUNT;
}

/* The level in force, or -1 before the first call; bit 8 set when the
 * variable named nothing. */
static _Atomic int chosen = -1;
#define XS_CPU_UNKNOWN_CAP 256

static int probe(void)
{
    int known = atomic_load_explicit(&chosen, memory_order_relaxed);
    if (known >= 0) {
        return known;
    }
    int unknown;
    int cap = read_cap(&unknown);
    int level = (int)xs_cpu_best();
    if (cap < level) {
        level = cap;
    }
    /* Threads may probe at the same time: they store the same value. */
    int value = level | (unknown ? XS_CPU_UNKNOWN_CAP : 0);
    atomic_store_explicit(&chosen, value, memory_order_relaxed);
    return value;
}

xs_isa xs_cpu_level(void)
{
    return (xs_isa)(probe() & (XS_CPU_UNKNOWN_CAP - 1));
}

int xs_cpu_cap_unknown(void)
{
    return (probe() & XS_CPU_UNKNOWN_CAP) != 0;
}

const void *xs_cpu_pick(const void *const table[XS_ISA_COUNT])
{
    xs_isa now = xs_cpu_level();
    if (now == XS_ISA_NEON) {
        return table[XS_ISA_NEON] != NULL ? table[XS_ISA_NEON] : table[XS_ISA_GENERIC];
    }
    for (int level = (int)now; level >= 0; level--) {
        if (table[level] != NULL) {
            return table[level];
        }
    }
    return NULL;
}
