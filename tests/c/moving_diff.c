/*
 * The moving-window lanes (src/kernels/moving/xs_moving.c) against an exact
 * oracle, without a Python interpreter: for .ci/aarch64, where it runs the
 * NEON lanes under qemu-aarch64-static (and, under XSUMUFUNC_KERNEL=generic,
 * the portable ones), and natively.
 *
 * Rows long enough for the lanes (XS_MOVING_LANES_MIN_TERMS = 4096 terms
 * or more) of data of several kinds (normal, spreads of 2^60 and 2^500,
 * values beyond the lanes' safe range of 2^1000, subnormals, exact
 * cancellation, -0.0 and zeros, NaNs alone and in runs, float32 values),
 * windows from 1 to 2000, min_count 1, half the window or all of it, sums
 * and means, float64 results (and float32 ones for float32 values, read
 * both as float64 values and as float32 ones, xs_moving_float32): every
 * output must be the correctly rounded value of its window's exact sum (or
 * mean) of its non-NaN terms, NaN when fewer than min_count, computed here
 * window by window in a small accumulator.
 *
 * xs_moving.c needs three Python calls and Ctrl-C's check, for types and
 * links only: tests/c/moving_stubs.c gives a program without an
 * interpreter those (the GIL is never held, nothing interrupts).
 *
 * Usage: moving_diff [rows] (default 12); exits 1 on a mismatch.
 */
#include "kernels/moving/xs_moving.h"
#include "exact/xs_small.h"
#include "exact/xs_types.h"
#include "cpu/xs_cpu.h"
#include "test_random.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NORMAL, SPREAD60, SPREAD500, BEYOND, SUBNORMAL, CANCEL, ZEROS, NANS, NAN_RUNS, FLOAT32,
       FLOAT32_NANS, KINDS };
static const char *const kind_names[KINDS] = {"normal", "spread 2^60", "spread 2^500",
                                              "beyond 2^1000", "subnormal", "cancel", "zeros",
                                              "NaNs", "NaN runs", "float32", "float32 NaNs"};

static void fill(double *x, int n, int kind)
{
    for (int i = 0; i < n; i++) {
        switch (kind) {
        case NORMAL: x[i] = with_field(1023 + below(6) - 3); break;
        case SPREAD60: x[i] = with_field(1023 + below(121) - 60); break;
        case SPREAD500: x[i] = with_field(1023 + below(1001) - 500); break;
        case BEYOND: x[i] = below(50) ? with_field(1023 + below(40)) : with_field(2024 + below(22));
            break;
        case SUBNORMAL: x[i] = below(3) ? with_field(0) : with_field(1 + below(4)); break;
        case CANCEL: x[i] = i >= 64 && below(2) ? -x[i - 1 - below(64)] : with_field(1020 + below(8));
            break;
        case ZEROS: x[i] = below(3) ? (below(2) ? -0.0 : 0.0) : with_field(1023); break;
        case NANS: x[i] = below(50) ? with_field(1023 + below(6) - 3) : NAN; break;
        case NAN_RUNS: x[i] = (i / 700) % 3 == 1 && below(8) ? NAN : with_field(1023 + below(6) - 3);
            break;
        case FLOAT32: x[i] = (float)with_field(1023 + below(8) - 4); break;
        default: x[i] = below(30) ? (float)with_field(1023 + below(8) - 4) : NAN; break;
        }
    }
}

/* The exact sum (mean: over its count) of the non-NaN terms of x[lo..hi],
 * rounded once into fmt; NaN when there are fewer than min_count. */
static double oracle(const double *x, int lo, int hi, int64_t min_count, int mean,
                     const xs_format *fmt)
{
    xs_small acc;
    xs_small_init(&acc);
    int64_t count = 0;
    for (int i = lo; i <= hi; i++) {
        if (x[i] == x[i]) {
            xs_small_add_bits(&acc, xs_double_bits(x[i]));
            count++;
        }
    }
    if (count < min_count) {
        return NAN;
    }
    return xs_small_round_divided(&acc, mean ? (uint64_t)count : 1u, fmt);
}

int main(int argc, char **argv)
{
    test_seed(0x2545f4914f6cdd1dull);
    int rows = argc > 1 ? atoi(argv[1]) : 12;
    static const int64_t windows[] = {1, 2, 3, 17, 100, 1000, 2000};
    enum { N_MAX = 6000 };
    static double x[N_MAX], out[N_MAX];
    static float x32[N_MAX], out32[N_MAX];
    long checks = 0, failures = 0;
    for (int row = 0; row < rows; row++) {
        int kind = row % KINDS, n = 4096 + below(N_MAX - 4096);
        int narrow = kind == FLOAT32 || kind == FLOAT32_NANS;
        const xs_target *target = narrow ? &xs_target_float32 : &xs_target_float64;
        fill(x, n, kind);
        for (int i = 0; i < n; i++) {
            x32[i] = (float)x[i];               /* exact for the float32 kinds */
        }
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
            /* float32 values: read as float64 ones (as32 0), then as they are */
            for (int step = 0; step < (narrow ? 4 : 2); step++) {
                npy_bool mean = (npy_bool)(step & 1);
                int as32 = step >= 2;
                int64_t window = windows[w];
                int64_t min_count = (int64_t[]){1, (window + 1) / 2, window}[below(3)];
                char *args[5] = {as32 ? (char *)x32 : (char *)x, (char *)&window, (char *)&min_count, (char *)&mean,
                                 narrow ? (char *)out32 : (char *)out};
                npy_intp dimensions[2] = {1, n};
                npy_intp steps[7] = {0, 0, 0, 0, 0, as32 ? sizeof(float) : sizeof(double),
                                     narrow ? sizeof(float) : sizeof(double)};
                (as32 ? xs_moving_float32 : xs_moving_float64)(args, dimensions, steps,
                                                               (void *)target);
                for (int k = 0; k < n; k++) {
                    int lo = k - (int)window + 1 < 0 ? 0 : k - (int)window + 1;
                    double want = oracle(x, lo, k, min_count, mean, target->format);
                    double got = narrow ? (double)out32[k] : out[k];
                    checks++;
                    if (xs_double_bits(want) != xs_double_bits(got) &&
                            !(want != want && got != got)) {
                        if (++failures <= 20) {
                            fprintf(stderr, "MISMATCH %s%s, window %lld, min_count %lld, "
                                    "%s, output %d: %a, not %a\n", kind_names[kind],
                                    as32 ? " (read as float32)" : "", (long long)window,
                                    (long long)min_count, mean ? "mean" : "sum", k, got, want);
                        }
                    }
                }
            }
        }
    }
    printf("moving lanes at level %s against the exact oracle: %ld outputs, %ld mismatches\n",
           xs_cpu_level_name(xs_cpu_level()), checks, failures);
    return failures != 0;
}
