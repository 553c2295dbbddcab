/*
 * One short-row kernel of xs_short_row.c (xs_short_row_variants.h), made
 * per instruction set from GCC's vector extensions (Clang has them too).
 * The includer defines XS_SR_NAME (the instance makes XS_SR_NAME##_f64 and
 * XS_SR_NAME##_f32), XS_SR_TARGET (a target attribute, or nothing), XS_SR_W
 * (doubles per vector) and XS_SR_MAX(a, m), XS_SR_MIN(a, m): the lane-wise
 * maximum and minimum that give m where a is a NaN (x86's maxpd and minpd
 * do; elsewhere a compare and a blend); optionally XS_SR_NARROW_BELOW,
 * XS_SR_NARROW(x, n, itemsize, out) and XS_SR_NARROW_THREE(x, n, itemsize,
 * sums): rows shorter than that go to another instance's bodies instead
 * (AVX-512's to AVX2's).  They are undefined at the end, for the next
 * instance.  Each instance makes the first pass (XS_SR_NAME##_f64, _f32)
 * and the second (XS_SR_NAME##_three_f64, _three_f32).
 *
 * Per vector of terms x: a = |x| (the sign bit off) goes into the maximum,
 * a with its zeros made +Inf (a quiet compare, no flag) into the minimum,
 * hi = x with its low XS_SR_LOW_BITS fraction bits cleared into one sum and
 * x - hi (exact) into the other.  Two chains of sums, then a vector more
 * if a whole one is left, then the last terms one by one.  float32 terms are
 * widened to doubles first (exactly).  A row of finite terms that fits the window raises no flag
 * (every operation exact, no NaN anywhere); a row with a NaN raises
 * "invalid" in the maximum, one that does not fit "inexact" in the sums:
 * xs_short_row.c puts the flags back for those.
 */

#define XS_SR_CAT_(a, b) a##b
#define XS_SR_CAT(a, b) XS_SR_CAT_(a, b)
#define XS_SR_FN(suffix) XS_SR_CAT(XS_SR_NAME, suffix)
#define XS_SR_V XS_SR_FN(_v)
#define XS_SR_VI XS_SR_FN(_vi)
#define XS_SR_VF XS_SR_FN(_vf)

typedef double XS_SR_V __attribute__((vector_size(8 * XS_SR_W)));
typedef int64_t XS_SR_VI __attribute__((vector_size(8 * XS_SR_W)));
typedef float XS_SR_VF __attribute__((vector_size(4 * XS_SR_W)));

/* XS_SR_W terms from p, widened from float32 when itemsize is 4. */
XS_SR_TARGET static inline __attribute__((always_inline)) XS_SR_V
XS_SR_FN(_load)(const char *p, int itemsize)
{
    if (itemsize == 8) {
        XS_SR_V v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    XS_SR_VF f;
    memcpy(&f, p, sizeof f);
    return __builtin_convertvector(f, XS_SR_V);
}

/* One vector of terms into the sums (hs, ls) and the range (mx, mn). */
#define XS_SR_STEP(v, hs, ls) \
    do { \
        XS_SR_VI bits_ = (XS_SR_VI)(v); \
        XS_SR_V a_ = (XS_SR_V)(bits_ & abs_bits); \
        mx = XS_SR_MAX(a_, mx); \
        mn = XS_SR_MIN((XS_SR_V)((XS_SR_VI)a_ | ((a_ == zero) & inf_bits)), mn); \
        XS_SR_V h_ = (XS_SR_V)(bits_ & keep); \
        (hs) += h_; \
        (ls) += (v) - h_; \
    } while (0)

XS_SR_TARGET static inline __attribute__((always_inline)) void
XS_SR_FN(_row)(const char *x, int n, int itemsize, xs_short_row_split *out)
{
#ifdef XS_SR_NARROW_BELOW
    if (n < XS_SR_NARROW_BELOW) {
        XS_SR_NARROW(x, n, itemsize, out);
        return;
    }
#endif
    const XS_SR_VI abs_bits = (XS_SR_VI){0} + (int64_t)XS_SR_ABS_BITS;
    const XS_SR_VI keep = (XS_SR_VI){0} + (int64_t)XS_SR_KEEP_BITS;
    const XS_SR_VI inf_bits = (XS_SR_VI){0} + (int64_t)XS_F64_INF_BITS;
    const XS_SR_V zero = {0};
    XS_SR_V hs0 = zero, hs1 = zero, ls0 = zero, ls1 = zero, mx = zero;
    XS_SR_V mn = (XS_SR_V){0} + (double)INFINITY;
    int i = 0;
    for (; i + 2 * XS_SR_W <= n; i += 2 * XS_SR_W) {
        XS_SR_V v0 = XS_SR_FN(_load)(x + (ptrdiff_t)i * itemsize, itemsize);
        XS_SR_V v1 = XS_SR_FN(_load)(x + (ptrdiff_t)(i + XS_SR_W) * itemsize, itemsize);
        XS_SR_STEP(v0, hs0, ls0);
        XS_SR_STEP(v1, hs1, ls1);
    }
    if (i + XS_SR_W <= n) {
        XS_SR_V v0 = XS_SR_FN(_load)(x + (ptrdiff_t)i * itemsize, itemsize);
        XS_SR_STEP(v0, hs0, ls0);
        i += XS_SR_W;
    }
    /* Exact in any order (xs_short_row.h); the range's lanes hold no NaN. */
    XS_SR_V hs = hs0 + hs1, ls = ls0 + ls1;
    double hi = 0.0, lo = 0.0, big = 0.0, small = (double)INFINITY;
    for (int k = 0; k < XS_SR_W; k++) {
        hi += hs[k];
        lo += ls[k];
        big = mx[k] > big ? mx[k] : big;
        small = mn[k] < small ? mn[k] : small;
    }
    /* The last terms (fewer than a vector) one by one, as the lanes take
     * them (a vector of them put together in memory would be read before
     * its parts are written: a stall). */
    for (; i < n; i++) {
        XS_SR_TERM(x + (ptrdiff_t)i * itemsize, itemsize, hi, lo, big, small);
    }
    out->hi = hi;
    out->lo = lo;
    out->max_abs = big;
    out->min_abs = small;
}

XS_SR_TARGET static void XS_SR_FN(_f64)(const char *x, int n, xs_short_row_split *out)
{
    XS_SR_FN(_row)(x, n, 8, out);
}

XS_SR_TARGET static void XS_SR_FN(_f32)(const char *x, int n, xs_short_row_split *out)
{
    XS_SR_FN(_row)(x, n, 4, out);
}

/* One vector of terms into the three sums of the second pass: x's top
 * XS_SR_TOP_BITS bits, the next XS_SR_TOP_BITS, and the rest (both
 * differences exact: each removes bits that x has). */
#define XS_SR_STEP3(v, s1, s2, s3) \
    do { \
        XS_SR_VI bits_ = (XS_SR_VI)(v); \
        XS_SR_V h1_ = (XS_SR_V)(bits_ & keep1), h12_ = (XS_SR_V)(bits_ & keep12); \
        (s1) += h1_; \
        (s2) += h12_ - h1_; \
        (s3) += (v) - h12_; \
    } while (0)

/* The second pass of a row of finite terms (xs_short_row.h): the three
 * sums into sums[0..2], exact in any order when the row fits its wider
 * window. */
XS_SR_TARGET static inline __attribute__((always_inline)) void
XS_SR_FN(_three)(const char *x, int n, int itemsize, double *sums)
{
#ifdef XS_SR_NARROW_BELOW
    if (n < XS_SR_NARROW_BELOW) {
        XS_SR_NARROW_THREE(x, n, itemsize, sums);
        return;
    }
#endif
    const XS_SR_VI keep1 = (XS_SR_VI){0} + (int64_t)XS_SR_KEEP1_BITS;
    const XS_SR_VI keep12 = (XS_SR_VI){0} + (int64_t)XS_SR_KEEP12_BITS;
    const XS_SR_V zero = {0};
    XS_SR_V a0 = zero, b0 = zero, c0 = zero, a1 = zero, b1 = zero, c1 = zero;
    int i = 0;
    for (; i + 2 * XS_SR_W <= n; i += 2 * XS_SR_W) {
        XS_SR_V v0 = XS_SR_FN(_load)(x + (ptrdiff_t)i * itemsize, itemsize);
        XS_SR_V v1 = XS_SR_FN(_load)(x + (ptrdiff_t)(i + XS_SR_W) * itemsize, itemsize);
        XS_SR_STEP3(v0, a0, b0, c0);
        XS_SR_STEP3(v1, a1, b1, c1);
    }
    if (i + XS_SR_W <= n) {
        XS_SR_V v0 = XS_SR_FN(_load)(x + (ptrdiff_t)i * itemsize, itemsize);
        XS_SR_STEP3(v0, a0, b0, c0);
        i += XS_SR_W;
    }
    XS_SR_V a = a0 + a1, b = b0 + b1, c = c0 + c1;
    double s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (int k = 0; k < XS_SR_W; k++) {
        s1 += a[k];
        s2 += b[k];
        s3 += c[k];
    }
    for (; i < n; i++) {
        XS_SR_TERM3(x + (ptrdiff_t)i * itemsize, itemsize, s1, s2, s3);
    }
    sums[0] = s1;
    sums[1] = s2;
    sums[2] = s3;
}

XS_SR_TARGET static void XS_SR_FN(_three_f64)(const char *x, int n, double *sums)
{
    XS_SR_FN(_three)(x, n, 8, sums);
}

XS_SR_TARGET static void XS_SR_FN(_three_f32)(const char *x, int n, double *sums)
{
    XS_SR_FN(_three)(x, n, 4, sums);
}

#undef XS_SR_STEP
#undef XS_SR_STEP3
#undef XS_SR_V
#undef XS_SR_VI
#undef XS_SR_VF
#undef XS_SR_NAME
#undef XS_SR_TARGET
#undef XS_SR_W
#undef XS_SR_MAX
#undef XS_SR_MIN
#undef XS_SR_NARROW_BELOW
#undef XS_SR_NARROW
#undef XS_SR_NARROW_THREE
