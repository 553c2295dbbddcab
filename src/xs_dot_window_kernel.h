/*
 * The two passes over a block of xs_dot_window.c, for one SIMD width:
 * included once per instruction set with these macros defined:
 *   XS_DW_WIDTH    doubles per vector (4: AVX2, 8: AVX-512)
 *   XS_DW_TARGET   the function attribute selecting the instruction set
 *   XS_DW_FMSUB    fused a*b - c on vectors of XS_DW_WIDTH doubles
 *   XS_DW_MAX, XS_DW_MIN  lane-wise max and min of such vectors
 *   XS_DW_NAME(f)  the function names for this width
 * Written with GCC/Clang vector extensions; FMA, max and min are intrinsics.
 */
typedef double XS_DW_NAME(vd) __attribute__((vector_size(8 * XS_DW_WIDTH)));
typedef uint64_t XS_DW_NAME(vu) __attribute__((vector_size(8 * XS_DW_WIDTH)));

/* Pass 1: bounds on the exponent sums of the block's non-zero products,
 * from the largest and smallest non-zero |a| and |b| (the sum of the
 * extremes bounds every pair's); 0 if the block needs the scalar path:
 * Inf/NaN or subnormal operands, or no non-zero product. */
#if XS_DW_WIDTH == 8
/* AVX-512 has 64-bit integer max and min: work on the bit patterns of |x|,
 * whose integer order is their order as doubles (Inf and NaN the largest);
 * |x| - 1 turns 0 into the largest unsigned value, out of the minimum. */
XS_DW_TARGET
static int XS_DW_NAME(range)(const char *a, const char *b, int *smin, int *smax)
{
    typedef XS_DW_NAME(vu) vu;
    const vu abs_mask = (vu){0} + 0x7fffffffffffffffu, one = (vu){0} + 1u;
    __m512i max_a = _mm512_setzero_si512(), max_b = max_a;
    __m512i min_a = _mm512_set1_epi64(-1), min_b = min_a;
    for (int i = 0; i < XS_DOT_WINDOW_BLOCK; i += XS_DW_WIDTH) {
        vu xa, xb;
        memcpy(&xa, a + 8 * i, sizeof xa);
        memcpy(&xb, b + 8 * i, sizeof xb);
        vu abs_a = xa & abs_mask, abs_b = xb & abs_mask;
        max_a = _mm512_max_epi64(max_a, (__m512i)abs_a);
        max_b = _mm512_max_epi64(max_b, (__m512i)abs_b);
        min_a = _mm512_min_epu64(min_a, (__m512i)(abs_a - one));
        min_b = _mm512_min_epu64(min_b, (__m512i)(abs_b - one));
    }
    uint64_t hi_a = (uint64_t)_mm512_reduce_max_epi64(max_a);
    uint64_t hi_b = (uint64_t)_mm512_reduce_max_epi64(max_b);
    uint64_t lo_a = (uint64_t)_mm512_reduce_min_epu64(min_a) + 1u;   /* 0: all zero */
    uint64_t lo_b = (uint64_t)_mm512_reduce_min_epu64(min_b) + 1u;
    const uint64_t smallest_normal = (uint64_t)1 << 52, infinity = (uint64_t)0x7ff << 52;
    if (hi_a >= infinity || hi_b >= infinity || lo_a < smallest_normal ||
            lo_b < smallest_normal) {
        return 0;          /* Inf/NaN; subnormal; all zero (lo 0) */
    }
    *smin = (int)(lo_a >> 52) + (int)(lo_b >> 52);
    *smax = (int)(hi_a >> 52) + (int)(hi_b >> 52);
    return 1;
}
#else
XS_DW_TARGET
static int XS_DW_NAME(range)(const char *a, const char *b, int *smin, int *smax)
{
    typedef XS_DW_NAME(vd) vd;
    typedef XS_DW_NAME(vu) vu;
    const vu abs_mask = (vu){0} + 0x7fffffffffffffffu;
    const vd zero = {0}, inf = zero + INFINITY;
    vd max_a = zero, max_b = zero, min_a = inf, min_b = inf, not_finite = zero;
    for (int i = 0; i < XS_DOT_WINDOW_BLOCK; i += XS_DW_WIDTH) {
        vd va, vb;
        memcpy(&va, a + 8 * i, sizeof va);
        memcpy(&vb, b + 8 * i, sizeof vb);
        vd abs_a = (vd)((vu)va & abs_mask), abs_b = (vd)((vu)vb & abs_mask);
        vu zero_a = (vu)(abs_a == zero), zero_b = (vu)(abs_b == zero);
        max_a = XS_DW_MAX(max_a, abs_a);
        max_b = XS_DW_MAX(max_b, abs_b);
        min_a = XS_DW_MIN(min_a, (vd)(((vu)inf & zero_a) | ((vu)abs_a & ~zero_a)));
        min_b = XS_DW_MIN(min_b, (vd)(((vu)inf & zero_b) | ((vu)abs_b & ~zero_b)));
        not_finite += va * zero + vb * zero;
    }
    double hi_a = 0.0, hi_b = 0.0, lo_a = INFINITY, lo_b = INFINITY, nan_seen = 0.0;
    for (int j = 0; j < XS_DW_WIDTH; j++) {
        hi_a = max_a[j] > hi_a ? max_a[j] : hi_a;
        hi_b = max_b[j] > hi_b ? max_b[j] : hi_b;
        lo_a = min_a[j] < lo_a ? min_a[j] : lo_a;
        lo_b = min_b[j] < lo_b ? min_b[j] : lo_b;
        nan_seen += not_finite[j];
    }
    if (nan_seen != 0.0 || !(hi_a > 0.0 && hi_b > 0.0) || lo_a < DBL_MIN || lo_b < DBL_MIN) {
        return 0;
    }
    *smin = biased_exponent(lo_a) + biased_exponent(lo_b);
    *smax = biased_exponent(hi_a) + biased_exponent(hi_b);
    return 1;
}
#endif

/* Pass 2: the six parts of every product into the lanes (6 vectors).
 * Returns whether some product is not zero (pass 1 cannot tell: non-zero
 * a[i] and b[j] may only ever meet zeros). */
XS_DW_TARGET
static int XS_DW_NAME(sum)(const char *a, const char *b, const xs_dot_cuts *cuts,
                           double *lanes)
{
    typedef XS_DW_NAME(vd) vd;
    typedef XS_DW_NAME(vu) vu;
    const vu abs_mask = (vu){0} + 0x7fffffffffffffffu;
    vu nonzero = (vu){0};
    const vd zero = {0};
    const vd c1p = zero + cuts->p1, c2p = zero + cuts->p2;
    const vd c1e = zero + cuts->e1, c2e = zero + cuts->e2;
    vd l[6];
    memcpy(l, lanes, sizeof l);
    for (int i = 0; i < XS_DOT_WINDOW_BLOCK; i += XS_DW_WIDTH) {
        vd va, vb;
        memcpy(&va, a + 8 * i, sizeof va);
        memcpy(&vb, b + 8 * i, sizeof vb);
        vd p = va * vb;
        nonzero |= (vu)p;
        vd e = XS_DW_FMSUB(va, vb, p);
        vd p1 = (p + c1p) - c1p, rp = p - p1;
        vd p2 = (rp + c2p) - c2p;
        vd e1 = (e + c1e) - c1e, re = e - e1;
        vd e2 = (re + c2e) - c2e;
        l[0] += p1;
        l[1] += p2;
        l[2] += rp - p2;
        l[3] += e1;
        l[4] += e2;
        l[5] += re - e2;
    }
    memcpy(lanes, l, sizeof l);
    uint64_t any = 0;
    nonzero &= abs_mask;
    for (int j = 0; j < XS_DW_WIDTH; j++) {
        any |= nonzero[j];
    }
    return any != 0;
}
