/*
 * One column-strip kernel alone (src/kernels/cells/xs_columns_strip.h), no
 * driver: a block of `rows` rows of eight standard-normal columns, rows
 * `stride` bytes apart, starting `offset` bytes past a page, summed by the
 * level's float64 strip over and over; prints ns per term.  It separates the
 * kernel's own speed from the sweep's (windows, blocks, the call), and the
 * layout's cost from the arithmetic's (docs/performance.md, "What the Zen 4
 * adds").  x86-64 with GCC or Clang, against the static libraries of a
 * build (an editable install's build/cp311, for instance):
 *
 *   cc -O3 -std=c17 -ffp-contract=off -fno-fast-math -Isrc -Ibuild/cp311 \
 *      -o /tmp/strip_kernel benchmarks/c/strip_kernel.c \
 *      build/cp311/libxs_kernels.a build/cp311/libxs_cpu.a -lm
 *   /tmp/strip_kernel avx2 8000 16 333     # level, stride, offset, rows
 *
 * Add -DNAME to the compile line to try a variant of the template's
 * (#ifdef NAME in the header) without rebuilding the package.  The file
 * includes xs_columns.c itself: its strip kernels are static.
 */
#define _POSIX_C_SOURCE 200809L  /* clock_gettime under -std=c17 */
#include "kernels/cells/xs_columns.c"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A standard normal value (Box-Muller on a fixed-seed generator). */
static double normal(unsigned long long *state)
{
    double u[2];
    for (int i = 0; i < 2; i++) {
        *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
        u[i] = ((double)(*state >> 11) + 0.5) * 0x1p-53;
    }
    return sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s generic|avx2|avx512 [stride] [offset] [rows]\n", argv[0]);
        return 2;
    }
    const xs_strip_kernels *k = xs_cpu_variant(xs_columns_variants,
                                               !strcmp(argv[1], "avx2")     ? XS_ISA_AVX2
                                               : !strcmp(argv[1], "avx512") ? XS_ISA_AVX512
                                                                            : XS_ISA_GENERIC);
    ptrdiff_t stride = argc > 2 ? atol(argv[2]) : 8000;
    int offset = argc > 3 ? atoi(argv[3]) : 16;
    int rows = argc > 4 ? atoi(argv[4]) : 333;
    if (k == NULL || stride < 64 || stride % 8 != 0 || offset < 0 || offset % 8 != 0 ||
            rows < 2) {
        fprintf(stderr, "%s: no such level here, or a bad stride, offset or row count\n",
                argv[0]);
        return 2;
    }
    size_t bytes = (size_t)stride * (size_t)rows + (size_t)offset;
    char *memory = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    if (memory == NULL) {
        return 1;
    }
    unsigned long long state = 1;
    for (int r = 0; r < rows; r++) {
        for (int j = 0; j < XS_STRIP; j++) {
            double v = normal(&state);
            memcpy(memory + offset + (size_t)r * (size_t)stride + 8 * (size_t)j, &v, sizeof v);
        }
    }
    const char *block = memory + offset;
    /* The block's window, as the sweep would choose it. */
    xs_strip_block b;
    memset(&b, 0, sizeof b);
    k->range64(block, rows, stride, &b);
    uint64_t mx = 0, mn = UINT64_MAX;
    for (int j = 0; j < XS_STRIP; j++) {
        mx = b.max_bits[j] > mx ? b.max_bits[j] : mx;
        mn = b.min_bits_m1[j] < mn ? b.min_bits_m1[j] : mn;
    }
    xs_cells_window w;
    if (!xs_cells_choose(&w, 53, mx, mn)) {
        fprintf(stderr, "%s: the block takes no window\n", argv[0]);
        return 1;
    }
    double sigma[XS_CELLS_MAX + 1][XS_STRIP];
    for (int c = 0; c <= XS_CELLS_MAX; c++) {
        for (int j = 0; j < XS_STRIP; j++) {
            sigma[c][j] = w.sigma[c];
        }
    }
    long reps = 200000000L / rows / XS_STRIP;
    double check = 0.0;
    double t0 = seconds();
    for (long i = 0; i < reps; i++) {
        memset(&b, 0, sizeof b);
        k->f64(block, rows, stride, w.cells, (const double (*)[XS_STRIP])sigma, &b);
        check += b.cells[w.cells][0];
    }
    double t = seconds() - t0;
    printf("%s, %d cells, stride %ld, offset %d, %d rows: %.3f ns per term (%g)\n", argv[1],
           w.cells, (long)stride, offset, rows,
           t / ((double)reps * rows * XS_STRIP) * 1e9, check);
    free(memory);
    return 0;
}
