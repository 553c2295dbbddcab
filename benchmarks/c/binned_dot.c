/*
 * A timing harness, not package code (nothing here is checked): how much
 * the portable dot products (src/kernels/dot/xs_dot_cells_generic.c) could
 * gain from the idea of the binned row kernels (XS_CK_BINNED in
 * src/kernels/cells/xs_cells_kernel.h), some products of each step taken
 * on the integer units instead of the floating-point adders.
 *
 * The floating-point part is the portable kernel's arithmetic for three
 * cells, simplified (fixed cut constants, no window, no refusal): SSE2
 * vectors of two products, 4 chains, Dekker's product by bit-pattern
 * splits, p cut into cell 1 and its rest added to cell 2, e cut into cell
 * 2 and its rest added to cell 3, the 16-bit range of |p|.  The integer
 * part, K products a step: the two 53-bit significands multiplied into a
 * 106-bit product, added into a two-word bin indexed by the product's sign
 * and exponent sum (13 bits).  A package kernel would also need the
 * exceptional operands put right, the bins' flush into the small
 * accumulator (a 128-bit value shifted by its exponent), and the window's
 * refusal path, as the binned row kernels have.
 *
 *   cc -O3 -std=c17 -ffp-contract=off benchmarks/c/binned_dot.c -o /tmp/binned_dot -lm
 *   /tmp/binned_dot          # normal data;  /tmp/binned_dot log: lognormal(0, 3)
 *
 * Zen 5 (stop 45), ns per product, K = 0 / 2 / 4 / 8 of 8 + K products a
 * step: normal data 0.90 / 0.74 / 0.73 / 0.88, lognormal 0.91 / 0.74 /
 * 0.73 / 0.86 (the package's portable kernel: 0.98 and 1.34).  Stop 46
 * built it into the package (src/exact/xs_dot_bins.h): with the exceptional
 * operands' check, the refusals and the interleaved layout it gained less
 * than this harness shows (0.98 -> 0.92, 1.34 -> 1.12 ns per product).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <emmintrin.h>
typedef double v2 __attribute__((vector_size(16)));
typedef int64_t v2i __attribute__((vector_size(16)));
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static unsigned long long s=88172645463325252ULL;
static double rnd(void){s^=s<<13;s^=s>>7;s^=s<<17;return (s>>11)*0x1p-53;}
static uint64_t blo[8192], bhi[8192];
#define CH 4
static inline v2 split_high(v2 x){ return (v2)(((v2i)x + ((1LL<<26)-1)) & ~((1LL<<27)-1)); }
__attribute__((noinline)) static void run(const double *a, const double *b, long n, int K, double *out)
{
    v2 t1[CH], t2[CH], acc3[CH];
    const v2 s1 = {0x1.8p40, 0x1.8p40}, s2 = {0x1.8p-7, 0x1.8p-7};
    __m128i mx = _mm_setzero_si128(), mn = _mm_set1_epi16(0x7fff);
    const __m128i topm = _mm_set1_epi64x(0x7fff000000000000LL);
    for (int j = 0; j < CH; j++) { t1[j] = s1; t2[j] = s2; acc3[j] = (v2){0}; }
    const long step = 2 * CH + K;
    int cnt = 0;
    for (long i = 0; i + step <= n; i += step) {
        for (int j = 0; j < CH; j++) {
            v2 x, y; memcpy(&x, a + i + 2 * j, 16); memcpy(&y, b + i + 2 * j, 16);
            v2 p = x * y;
            v2 xh = split_high(x), yh = split_high(y), xl = x - xh, yl = y - yh;
            v2 e = xl * yl + (((xh * yh - p) + xl * yh) + xh * yl);
            __m128i top = _mm_and_si128((__m128i)p, topm);
            mx = _mm_max_epi16(mx, top); mn = _mm_min_epi16(mn, top);
            v2 nx = t1[j] + p; p = p + (t1[j] - nx); t1[j] = nx;
            t2[j] += p;
            nx = t2[j] + e; e = e + (t2[j] - nx); t2[j] = nx;
            acc3[j] += e;
        }
        for (int k = 0; k < K; k++) {
            uint64_t ba, bb; memcpy(&ba, a + i + 2 * CH + k, 8); memcpy(&bb, b + i + 2 * CH + k, 8);
            uint64_t ma = ((ba << 11) | (1ULL << 63)) >> 11, mb = ((bb << 11) | (1ULL << 63)) >> 11;
            unsigned ia = (unsigned)(ba >> 52), ib = (unsigned)(bb >> 52);
            unsigned idx = ((ia & 0x7ff) + (ib & 0x7ff)) | (((ia ^ ib) & 0x800) << 1);
            unsigned __int128 pr = (unsigned __int128)ma * mb;
            uint64_t lo = (uint64_t)pr, hi = (uint64_t)(pr >> 64);
            uint64_t nl = blo[idx] + lo;
            bhi[idx] += hi + (nl < lo);
            blo[idx] = nl;
        }
        if (++cnt == 8) { cnt = 0;
            for (int j = 0; j < CH; j++) { acc3[j] += (t1[j] - s1) + (t2[j] - s2); t1[j] = s1; t2[j] = s2; }
        }
    }
    v2 r = {0};
    for (int j = 0; j < CH; j++) r += acc3[j];
    *out = r[0] + r[1] + _mm_extract_epi16(mx, 3) + _mm_extract_epi16(mn, 3);
}
int main(int argc, char **argv)
{
    (void)argv;
    long n = 1000000; double *a = malloc(8 * n), *b = malloc(8 * n);
    int logn = argc > 1;
    for (long i = 0; i < n; i++) {
        double u1 = rnd(), u2 = rnd(), u3 = rnd(), u4 = rnd();
        double g1 = sqrt(-2 * log(u1 + 1e-300)) * cos(6.283185307179586 * u2);
        double g2 = sqrt(-2 * log(u3 + 1e-300)) * cos(6.283185307179586 * u4);
        a[i] = logn ? (rnd() < .5 ? -1 : 1) * exp(3 * g1) : g1;
        b[i] = logn ? (rnd() < .5 ? -1 : 1) * exp(3 * g2) : g2;
    }
    int Ks[] = {0, 2, 4, 8};
    for (int rep = 0; rep < 3; rep++)
    for (int q = 0; q < 4; q++) {
        double best = 1e9, o;
        for (int r = 0; r < 30; r++) { double t0 = now(); run(a, b, n, Ks[q], &o); double t = now() - t0; if (t < best) best = t; }
        printf("%s K=%d (int share %.2f): %.3f ns/product\n", logn ? "lognormal" : "normal", Ks[q], Ks[q] / (double)(2 * CH + Ks[q]), best / n * 1e9);
    }
    return 0;
}
