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
 * Inf/NaN (a*0 is then NaN), subnormal operands, or no non-zero product. */
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

/* Pass 2: the six parts of every product into the lanes (6 vectors). */
XS_DW_TARGET
static void XS_DW_NAME(sum)(const char *a, const char *b, const xs_dot_cuts *cuts,
                            double *lanes)
{
    typedef XS_DW_NAME(vd) vd;
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
}
