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
 * Symmetric formats (code c + 128 is -value(c): every float8 format) have a
 * cheaper signed form: the planes hold the bytes of |k| for the 128 codes of
 * one sign, one permute reads them (it ignores the code's top bit), and
 * AVX-512 VNNI's vpdpbusd multiplies each byte by the code's sign (+-1) and
 * adds four at a time into 32-bit lanes: two instructions per plane and 64
 * codes, against five for the biased form (e5m2: 4 planes instead of 5).
 *
 * XSUMUFUNC_KERNEL=generic, sse2, avx2 or avx512 turns this path off, avx512vbmi
 * keeps the biased form only (the tests run the codes every way); it also
 * needs a CPU with AVX-512 VBMI (and VNNI for the signed form).
 */
#include "kernels/codes/xs_codes_fixed.h"
#include "cpu/xs_cpu.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exact/xs_round.h"

/* The largest |k| a format may have: 2 * 2^40 plus the flag bit fit in
 * XS_CODE_FIXED_PLANES bytes. */
#define XS_CODE_FIXED_MAX_K ((uint64_t)1 << 40)
/* Elements per block: the plane sums of a block stay below 2^64 (each u is
 * under 2^41, 2^41 * 2^20 = 2^61), and m * B too. */
#define XS_CODE_FIXED_BLOCK ((ptrdiff_t)1 << 20)
/* Bytes per step: one 512-bit register. */
#define XS_CODE_FIXED_STEP 64


/* The signed planes (see xs_codes.h), when the format is symmetric: code
 * c + 128 is -value(c) for every c < 128, or both are NaN or Inf; or
 * c = 0 is +0 and code 128 is NaN (the fnuz formats: signed_nan128).  Its
 * |k| must fit XS_CODE_SIGNED_PLANES bytes. */
static void signed_init(xs_code_format *f)
{
    f->signed_planes = 0;
    f->signed_nan128 = 0;
    uint64_t largest = 0;
    uint64_t magnitude[128];
    for (int c = 0; c < 128; c++) {
        double v = xs_bits_double(f->decode_bits[c]), w = xs_bits_double(f->decode_bits[c + 128]);
        magnitude[c] = 0;
        f->signed_special[c] = 0;
        if (!isfinite(v) || !isfinite(w)) {
            if (c == 0 && v == 0.0 && isnan(w)) {
                f->signed_nan128 = 1;
            }
            else if (!isfinite(v) && !isfinite(w)) {
                f->signed_special[c] = 1;
            }
            else {
                return;                                 /* not symmetric */
            }
            continue;
        }
        if (w != -v) {
            return;
        }
        magnitude[c] = (uint64_t)ldexp(fabs(v), -f->fixed_exp);
        largest = magnitude[c] > largest ? magnitude[c] : largest;
    }
    int planes = 1;
    while (planes < 8 && (largest >> (8 * planes)) != 0) {
        planes++;
    }
    if (planes > XS_CODE_SIGNED_PLANES) {
        return;
    }
    memset(f->signed_plane, 0, sizeof f->signed_plane);
    for (int c = 0; c < 128; c++) {
        for (int j = 0; j < planes; j++) {
            f->signed_plane[j][c] = (uint8_t)(magnitude[c] >> (8 * j));
        }
    }
    f->signed_planes = planes;
}

void xs_code_fixed_init(xs_code_format *f)
{
    f->fixed_planes = 0;
    int lowest = INT_MAX;
    double largest = 0.0;
    for (int c = 0; c < 256; c++) {
        double v = xs_bits_double(f->decode_bits[c]);
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
        double v = xs_bits_double(f->decode_bits[c]);
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
    signed_init(f);
}

#ifdef XS_CPU_X86
#define XS_CODES_FIXED_X86 1
#include <immintrin.h>

/* The sum k of m codes (m a multiple of 64) through the biased planes into
 * *sum_k; returns non-zero when a flagged code (NaN or Inf) was seen.  P is
 * a constant in each instance below, so the loops over planes unroll. */
XS_TARGET_AVX512VBMI __attribute__((always_inline))
static inline int planes_vbmi(const xs_code_format *f, const unsigned char *p, ptrdiff_t m,
                              int64_t *sum_k, const int P)
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
    uint64_t total = 0;                                    /* sum of u: below 2^61 */
    for (int j = 0; j < P; j++) {
        total += (uint64_t)_mm512_reduce_add_epi64(acc[j]) << (8 * j);
    }
    uint64_t offset = (uint64_t)m * f->fixed_bias;         /* m B: below 2^61 */
    *sum_k = total >= offset ? (int64_t)(total - offset) : -(int64_t)(offset - total);
    return _mm512_movepi8_mask(flags) != 0;
}

/* The same through the signed planes of a symmetric format (every code c
 * and c + 128 are opposite values, see xs_codes.h): the byte permute reads
 * the low 7 bits of each code only, and vpdpbusd multiplies each looked-up
 * byte by the code's sign (+1 or -1) and adds groups of four into 32-bit
 * lanes (a block adds at most 2^20 / 16 * 255 to a lane).  ZERO80: code 128
 * is NaN, not -0 (the fnuz formats), and is looked for apart. */
XS_TARGET_AVX512VNNI __attribute__((always_inline))
static inline int signed_vnni(const xs_code_format *f, const unsigned char *p, ptrdiff_t m,
                              int64_t *sum_k, const int P, const int ZERO80)
{
    __m512i t[XS_CODE_SIGNED_PLANES][2], acc[XS_CODE_SIGNED_PLANES];
    for (int j = 0; j < P; j++) {
        t[j][0] = _mm512_loadu_si512((const void *)f->signed_plane[j]);
        t[j][1] = _mm512_loadu_si512((const void *)(f->signed_plane[j] + 64));
        acc[j] = _mm512_setzero_si512();
    }
    const __m512i special0 = _mm512_loadu_si512((const void *)f->signed_special);
    const __m512i special1 = _mm512_loadu_si512((const void *)(f->signed_special + 64));
    const __m512i plus = _mm512_set1_epi8(1), minus = _mm512_set1_epi8(-1);
    const __m512i code128 = _mm512_set1_epi8((char)0x80);
    __m512i flags = _mm512_setzero_si512();
    __mmask64 nan128 = 0;
    for (ptrdiff_t i = 0; i < m; i += XS_CODE_FIXED_STEP) {
        __m512i codes = _mm512_loadu_si512((const void *)(p + i));
        __m512i signs = _mm512_mask_blend_epi8(_mm512_movepi8_mask(codes), plus, minus);
        flags = _mm512_or_si512(flags, _mm512_permutex2var_epi8(special0, codes, special1));
        if (ZERO80) {
            nan128 |= _mm512_cmpeq_epi8_mask(codes, code128);
        }
        for (int j = 0; j < P; j++) {
            __m512i byte = _mm512_permutex2var_epi8(t[j][0], codes, t[j][1]);
            acc[j] = _mm512_dpbusd_epi32(acc[j], byte, signs);
        }
    }
    int64_t total = 0;                                     /* |sum k| < 2^54 */
    for (int j = 0; j < P; j++) {
        __m512i wide = _mm512_add_epi64(
            _mm512_cvtepi32_epi64(_mm512_castsi512_si256(acc[j])),
            _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(acc[j], 1)));
        total += (int64_t)_mm512_reduce_add_epi64(wide) * ((int64_t)1 << (8 * j));
    }
    *sum_k = total;
    return _mm512_test_epi8_mask(flags, flags) != 0 || nan128 != 0;
}

#define XS_PLANES_INSTANCE(P) \
    XS_TARGET_AVX512VBMI \
    static int planes_vbmi_##P(const xs_code_format *f, const unsigned char *p, ptrdiff_t m, \
                               int64_t *sum_k) \
    { return planes_vbmi(f, p, m, sum_k, P); }
XS_PLANES_INSTANCE(1)
XS_PLANES_INSTANCE(2)
XS_PLANES_INSTANCE(3)
XS_PLANES_INSTANCE(4)
XS_PLANES_INSTANCE(5)
XS_PLANES_INSTANCE(6)
#undef XS_PLANES_INSTANCE

#define XS_SIGNED_INSTANCE(P, ZERO80) \
    XS_TARGET_AVX512VNNI \
    static int signed_vnni_##P##_##ZERO80(const xs_code_format *f, const unsigned char *p, \
                                          ptrdiff_t m, int64_t *sum_k) \
    { return signed_vnni(f, p, m, sum_k, P, ZERO80); }
XS_SIGNED_INSTANCE(1, 0)
XS_SIGNED_INSTANCE(2, 0)
XS_SIGNED_INSTANCE(3, 0)
XS_SIGNED_INSTANCE(4, 0)
XS_SIGNED_INSTANCE(5, 0)
XS_SIGNED_INSTANCE(1, 1)
XS_SIGNED_INSTANCE(2, 1)
XS_SIGNED_INSTANCE(3, 1)
XS_SIGNED_INSTANCE(4, 1)
XS_SIGNED_INSTANCE(5, 1)
#undef XS_SIGNED_INSTANCE
#endif

typedef int (*xs_codes_kernel)(const xs_code_format *f, const unsigned char *p, ptrdiff_t m,
                               int64_t *sum_k);

/* The kernel for format f on this CPU, or NULL. */
static xs_codes_kernel pick_kernel(const xs_code_format *f)
{
#ifdef XS_CODES_FIXED_X86
    static const xs_codes_kernel planes[XS_CODE_FIXED_PLANES + 1] = {
        NULL, planes_vbmi_1, planes_vbmi_2, planes_vbmi_3, planes_vbmi_4, planes_vbmi_5,
        planes_vbmi_6};
    static const xs_codes_kernel signed_planes[2][XS_CODE_SIGNED_PLANES + 1] = {
        {NULL, signed_vnni_1_0, signed_vnni_2_0, signed_vnni_3_0, signed_vnni_4_0,
         signed_vnni_5_0},
        {NULL, signed_vnni_1_1, signed_vnni_2_1, signed_vnni_3_1, signed_vnni_4_1,
         signed_vnni_5_1}};
    /* The signed planes where a format has them (AVX-512 VBMI and VNNI),
     * else the biased ones (AVX-512 VBMI; XSUMUFUNC_KERNEL=avx512vbmi
     * forces them); below that the histogram (src/cpu/xs_cpu.h). */
    if (xs_cpu_allows(XS_ISA_AVX512VNNI) && f->signed_planes > 0) {
        return signed_planes[f->signed_nan128 ? 1 : 0][f->signed_planes];
    }
    if (xs_cpu_allows(XS_ISA_AVX512VBMI) && f->fixed_planes > 0) {
        return planes[f->fixed_planes];
    }
#else
    (void)f;
#endif
    return NULL;
}

/* The exact sum of m codes at p (m a multiple of XS_CODE_FIXED_STEP, at
 * most XS_CODE_FIXED_BLOCK), into acc.  Returns 0, or -1 when the block
 * must be counted by the histogram instead (a NaN or Inf code, or a sum k
 * of 0) and nothing was added. */
static int fixed_block(const xs_code_format *f, xs_codes_kernel kernel, xs_small *acc,
                       const unsigned char *p, ptrdiff_t m)
{
    int64_t sum_k;
    if (kernel(f, p, m, &sum_k) || sum_k == 0) {
        return -1;
    }
    uint64_t magnitude = sum_k < 0 ? (uint64_t)0 - (uint64_t)sum_k : (uint64_t)sum_k;
    double step = ldexp(sum_k < 0 ? -1.0 : 1.0, f->fixed_exp);
    xs_small_add_double_times(acc, xs_double_bits(step), magnitude);
    return 0;
}

ptrdiff_t xs_code_fixed_accumulate(const xs_code_format *f, xs_small *acc,
                                   const unsigned char *p, ptrdiff_t n, ptrdiff_t *refused)
{
    xs_codes_kernel kernel = pick_kernel(f);
    ptrdiff_t done = 0;
    *refused = 0;
    while (kernel != NULL && n - done >= XS_CODE_FIXED_STEP) {
        ptrdiff_t m = n - done < XS_CODE_FIXED_BLOCK ? n - done : XS_CODE_FIXED_BLOCK;
        m -= m % XS_CODE_FIXED_STEP;
        if (fixed_block(f, kernel, acc, p + done, m) != 0) {
            *refused = m;
            break;
        }
        done += m;
    }
    return done;
}
