/* Byte-coded formats summed as fixed-point integers, 64 bytes at a time
 * (AVX-512 VBMI byte permutes).  See xs_codes.h for the formats and the
 * tables this file adds to them.
 *
 * Every finite value of a byte-coded format is k * 2^e for one exponent e
 * (the format's smallest step, its smallest subnormal) and an integer k
 * with |k| < 2^40: e4m3fn's k stays under 2^18, e5m2's under 2^32.  Adding
 * the bias B = max |k| makes every u = k + B a non-negative integer, stored
 * as bytes: plane j holds byte j of u for each of the 256 codes.  A sum of
 * m codes is then
 *
 *     sum k = sum_j 2^(8j) (sum of plane j's bytes over the m codes) - m B,
 *
 * and each plane's bytes are looked up 64 at a time by a byte permute over
 * the 256-entry plane (two 128-entry permutes, chosen by the code's top
 * bit) and added by vpsadbw (8 bytes into each 64-bit lane): no store per
 * element, which is what limits the 256-counter histogram (xs_codes.c).
 * The top plane keeps its top bit free for one flag: codes that are NaN or
 * Inf set it, and a block that holds one is counted by the histogram
 * instead (the special values' rules live there); once the sum is NaN, the
 * rest of the row cannot change it and is skipped.  So is a block whose
 * sum k is 0, so that the sign of a zero sum (all -0 terms) stays the
 * histogram's business too.
 *
 * XSUMUFUNC_KERNEL=generic, sse2 or avx2 turns this path off (the tests
 * run the codes both ways); it also needs a CPU with AVX-512 VBMI.
 */
#include "xs_codes.h"

#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "xs_round.h"

/* The largest |k| a format may have: 2 * 2^40 plus the flag bit fit in
 * XS_CODE_FIXED_PLANES bytes. */
#define XS_CODE_FIXED_MAX_K ((uint64_t)1 << 40)
/* Elements per block: the plane sums of a block stay below 2^64 (each u is
 * under 2^41, 2^41 * 2^20 = 2^61), and m * B too. */
#define XS_CODE_FIXED_BLOCK ((ptrdiff_t)1 << 20)
/* Bytes per step: one 512-bit register. */
#define XS_CODE_FIXED_STEP 64

static double value_of(uint64_t bits)
{
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

void xs_code_fixed_init(xs_code_format *f)
{
    f->fixed_planes = 0;
    int lowest = INT_MAX;
    double largest = 0.0;
    for (int c = 0; c < 256; c++) {
        double v = value_of(f->decode_bits[c]);
        if (!isfinite(v) || v == 0.0) {
            continue;
        }
        int e;
        double m = frexp(fabs(v), &e);              /* |v| = m 2^e, m in [0.5, 1) */
        uint64_t digits = (uint64_t)ldexp(m, 53);   /* |v| = digits 2^(e - 53) */
        int low = e - 53;
        while ((digits & 1u) == 0) {
            digits >>= 1;
            low++;
        }
        lowest = low < lowest ? low : lowest;
        largest = fabs(v) > largest ? fabs(v) : largest;
    }
    if (lowest == INT_MAX) {
        lowest = 0;                                 /* only zeros and specials */
    }
    double kmax = ldexp(largest, -lowest);
    if (kmax > (double)XS_CODE_FIXED_MAX_K) {
        return;                                     /* too wide: histogram only */
    }
    uint64_t bias = (uint64_t)kmax;
    /* Bytes for u <= 2 bias, plus the flag bit above them. */
    int bits = 1;
    while (bits < 64 && ((2 * bias) >> bits) != 0) {
        bits++;
    }
    int planes = (bits + 1 + 7) / 8;
    memset(f->fixed_plane, 0, sizeof f->fixed_plane);
    for (int c = 0; c < 256; c++) {
        double v = value_of(f->decode_bits[c]);
        uint64_t u;
        if (isfinite(v)) {
            double k = ldexp(v, -lowest);           /* an integer, |k| <= bias */
            u = k < 0.0 ? bias - (uint64_t)(-k) : bias + (uint64_t)k;
        }
        else {
            u = bias + ((uint64_t)1 << (8 * planes - 1));      /* the flag */
        }
        for (int j = 0; j < planes; j++) {
            f->fixed_plane[j][c] = (uint8_t)(u >> (8 * j));
        }
    }
    f->fixed_exp = lowest;
    f->fixed_bias = bias;
    f->fixed_planes = planes;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define XS_CODES_FIXED_X86 1
#include <immintrin.h>

/* Plane sums of m bytes (m a multiple of 64) into sums[0..P-1]; returns
 * non-zero when a flagged code (NaN or Inf) was seen.  P is a constant in
 * each instance below, so the loops over planes unroll. */
__attribute__((target("avx512f,avx512bw,avx512vbmi"), always_inline))
static inline int planes_vbmi(const xs_code_format *f, const unsigned char *p, ptrdiff_t m,
                              uint64_t *sums, const int P)
{
    __m512i t[XS_CODE_FIXED_PLANES][4], acc[XS_CODE_FIXED_PLANES];
    for (int j = 0; j < P; j++) {
        for (int q = 0; q < 4; q++) {
            t[j][q] = _mm512_loadu_si512((const void *)(f->fixed_plane[j] + 64 * q));
        }
        acc[j] = _mm512_setzero_si512();
    }
    const __m512i zero = _mm512_setzero_si512();
    __m512i flags = zero;
    for (ptrdiff_t i = 0; i < m; i += XS_CODE_FIXED_STEP) {
        __m512i codes = _mm512_loadu_si512((const void *)(p + i));
        __mmask64 high = _mm512_movepi8_mask(codes);       /* codes 128..255 */
        __m512i byte = zero;
        for (int j = 0; j < P; j++) {
            byte = _mm512_mask_blend_epi8(high,
                                          _mm512_permutex2var_epi8(t[j][0], codes, t[j][1]),
                                          _mm512_permutex2var_epi8(t[j][2], codes, t[j][3]));
            acc[j] = _mm512_add_epi64(acc[j], _mm512_sad_epu8(byte, zero));
        }
        flags = _mm512_or_si512(flags, byte);              /* the top plane */
    }
    for (int j = 0; j < P; j++) {
        sums[j] = (uint64_t)_mm512_reduce_add_epi64(acc[j]);
    }
    return _mm512_movepi8_mask(flags) != 0;
}

#define XS_PLANES_INSTANCE(P) \
    __attribute__((target("avx512f,avx512bw,avx512vbmi"))) \
    static int planes_vbmi_##P(const xs_code_format *f, const unsigned char *p, ptrdiff_t m, \
                               uint64_t *sums) \
    { return planes_vbmi(f, p, m, sums, P); }
XS_PLANES_INSTANCE(1)
XS_PLANES_INSTANCE(2)
XS_PLANES_INSTANCE(3)
XS_PLANES_INSTANCE(4)
XS_PLANES_INSTANCE(5)
XS_PLANES_INSTANCE(6)
#undef XS_PLANES_INSTANCE
#endif

typedef int (*xs_planes_kernel)(const xs_code_format *f, const unsigned char *p, ptrdiff_t m,
                                uint64_t *sums);

/* The plane kernel for P planes on this CPU, or NULL (chosen once). */
static xs_planes_kernel pick_kernel(int planes)
{
#ifdef XS_CODES_FIXED_X86
    static const xs_planes_kernel kernels[XS_CODE_FIXED_PLANES + 1] = {
        NULL, planes_vbmi_1, planes_vbmi_2, planes_vbmi_3, planes_vbmi_4, planes_vbmi_5,
        planes_vbmi_6};
    static _Atomic int usable = -1;                 /* -1: not yet decided */
    int ok = atomic_load(&usable);
    if (ok < 0) {
        __builtin_cpu_init();
        ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vbmi");
        const char *forced = getenv("XSUMUFUNC_KERNEL");
        if (forced && (strcmp(forced, "generic") == 0 || strcmp(forced, "sse2") == 0 ||
                       strcmp(forced, "avx2") == 0)) {
            ok = 0;
        }
        atomic_store(&usable, ok);
    }
    return ok && planes >= 1 && planes <= XS_CODE_FIXED_PLANES ? kernels[planes] : NULL;
#else
    (void)planes;
    return NULL;
#endif
}

int xs_code_fixed_available(const xs_code_format *f)
{
    return f->fixed_planes > 0 && pick_kernel(f->fixed_planes) != NULL;
}

/* The exact sum of m codes at p (m a multiple of XS_CODE_FIXED_STEP, at
 * most XS_CODE_FIXED_BLOCK), into acc.  Returns 0, or -1 when the block
 * must be counted by the histogram instead (a NaN or Inf code, or a sum k
 * of 0) and nothing was added. */
static int fixed_block(const xs_code_format *f, xs_planes_kernel kernel, xs_small *acc,
                       const unsigned char *p, ptrdiff_t m)
{
    uint64_t sums[XS_CODE_FIXED_PLANES];
    if (kernel(f, p, m, sums)) {
        return -1;
    }
    uint64_t total = 0;                             /* sum of u: below 2^61 */
    for (int j = 0; j < f->fixed_planes; j++) {
        total += sums[j] << (8 * j);
    }
    uint64_t offset = (uint64_t)m * f->fixed_bias;  /* m B: below 2^61 */
    if (total == offset) {
        return -1;
    }
    int negative = total < offset;
    uint64_t magnitude = negative ? offset - total : total - offset;
    double step = ldexp(negative ? -1.0 : 1.0, f->fixed_exp);
    xs_small_add_double_times(acc, xs_double_bits(step), magnitude);
    return 0;
}

ptrdiff_t xs_code_fixed_accumulate(const xs_code_format *f, xs_small *acc,
                                   const unsigned char *p, ptrdiff_t n)
{
    xs_planes_kernel kernel = pick_kernel(f->fixed_planes);
    ptrdiff_t done = 0;
    while (kernel != NULL && n - done >= XS_CODE_FIXED_STEP) {
        ptrdiff_t m = n - done < XS_CODE_FIXED_BLOCK ? n - done : XS_CODE_FIXED_BLOCK;
        m -= m % XS_CODE_FIXED_STEP;
        if (fixed_block(f, kernel, acc, p + done, m) != 0) {
            xs_code_count(f, acc, (const char *)(p + done), m, 1);
            if (acc->flags & XS_NAN) {
                return n;               /* NaN absorbs the rest: nothing to add */
            }
        }
        done += m;
    }
    return done;
}
