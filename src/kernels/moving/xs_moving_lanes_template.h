/*
 * Template of the vector lanes of moving windows (xs_moving.c), included
 * once per vector width with these macros defined:
 *   XS_ML_NAME     the function's name
 *   XS_ML_W        lanes: doubles per register (4: AVX2; 2: NEON, portable)
 *   XS_ML_TARGET   the ISA's target attribute (XS_TARGET_AVX2 of xs_cpu.h), or
 *                  nothing
 *   XS_ML_FNMSUB(a, b, c)  c - a b with one rounding (an fma intrinsic, or C's
 *                  fma lane by lane)
 *   XS_ML_ALL(m)   1 when every lane of the mask m is set
 *   XS_ML_TRANSPOSE(r)  (optional) transpose the W x W matrix of the W
 *                  registers r[0..W-1] in place (rows become columns)
 *   XS_ML_WITHIN(hi)  (optional) the mask of the lanes with |hi| at most
 *                  XS_RUNNING_MAX, or below it (a lane at it then takes the
 *                  exact path); default: a floating-point compare.  For an
 *                  ISA whose compares of doubles take the adders (x86-64:
 *                  xs_moving.c)
 *   XS_ML_FAST_ALL(approx, bound, valid, short_of)  (optional) 1 when every
 *                  lane is decided by XS_ML_NAME_decide_sum's fast test;
 *                  it may say 0 where that test holds (the full decision
 *                  then runs), never 1 where it fails
 * The arithmetic is written with GCC/clang vector extensions, so that one
 * text serves any width (AVX2's 4, NEON's and the portable 2: xs_moving.c).
 *
 * Steps *t, *t + 1, ... < len of the lanes, each lane's window full (k >=
 * window), of float64 terms or (in32) float32 ones widened exactly as they
 * are loaded, with float64 or float32 results, one lane per double of a
 * register: the operations of xs_running_move, xs_running_divide and
 * xs_running_round (for a float64 target, where the value rounded to the
 * target is the approximation itself; a float32 target converts it where
 * that cannot round twice: XS_ML_NAME_narrow), lane by lane, with a
 * cheaper decision first where it applies (see XS_ML_NAME_step).  NaN
 * terms enter as zeros and are counted per lane (NaN is no term: a window
 * with fewer than min_count terms is NaN, a mean divides by its count).
 * Stale lanes carry zeros, so that no garbage raises a floating-point flag.
 * The loop makes no call (its steps are always inlined), so that the
 * lanes' state stays in registers: at the first step where a lane cannot
 * take its terms (beyond the safe range) or the approximation cannot decide
 * its window, it stores the other lanes' values, writes every lane's state
 * back to run[] and nans[], leaves *t at that step and returns the mask of
 * the lanes the caller must settle (xs_window_settle); 0 when it reached
 * len.  (Gathers were tried for the loads: no faster.)
 */
#define XS_ML_CAT_(a, b) a##b
#define XS_ML_CAT(a, b) XS_ML_CAT_(a, b)
#define XS_ML_V XS_ML_CAT(XS_ML_NAME, _vd)
#define XS_ML_VI XS_ML_CAT(XS_ML_NAME, _vi)

typedef double XS_ML_V __attribute__((vector_size(8 * XS_ML_W)));
typedef int64_t XS_ML_VI __attribute__((vector_size(8 * XS_ML_W)));
typedef float XS_ML_CAT(XS_ML_NAME, _vf) __attribute__((vector_size(4 * XS_ML_W)));

#define XS_ML_ABS(x) ((XS_ML_V)((XS_ML_VI)(x) & ((XS_ML_VI){0} + INT64_MAX)))
#define XS_ML_KEEP(x, m) ((XS_ML_V)((XS_ML_VI)(x) & (m)))     /* x where m, else +0 */

/* xs_running_round for a float64 target, lane by lane: the lanes of
 * `usable` whose approximation a_hi + a_lo (error at most a_bound) decides
 * the correctly rounded value fl(a_hi + a_lo), stored in *approx. */
XS_ML_TARGET __attribute__((always_inline))
static inline XS_ML_VI XS_ML_CAT(XS_ML_NAME, _round)(XS_ML_V a_hi, XS_ML_V a_lo,
                                                     XS_ML_V a_bound, XS_ML_VI usable,
                                                     XS_ML_V *approx_out)
{
    typedef XS_ML_V V;
    typedef XS_ML_VI VI;
    const VI abs_mask = (VI){0} + INT64_MAX;
    const VI exponent_mask = (VI){0} + (int64_t)XS_EXPONENT_MASK;
    const VI mantissa_mask = (VI){0} + (int64_t)XS_F64_MANT_MASK;
    const VI ulp_shift = (VI){0} + ((int64_t)XS_F64_MANT_BITS << XS_F64_MANT_BITS);
    V approx = a_hi + a_lo;
    V bb = approx - a_hi;
    V c = (a_hi - (approx - bb)) + (a_lo - bb);
    VI bits = (VI)approx & abs_mask;
    V q = (V)((bits & exponent_mask) - ulp_shift);      /* ulp(approx) */
    VI binade_start = (bits & mantissa_mask) == 0;
    V half_gap = q * (V)(((VI)((V){0} + 0.25) & binade_start) |
                         ((VI)((V){0} + 0.5) & ~binade_start));
    V error = (V)((VI)c & abs_mask) + a_bound * XS_RUNNING_GROWTH;
    *approx_out = approx;
    return usable & ((V)bits >= XS_RUNNING_TINY_SUM) &
           ((error < half_gap * XS_RUNNING_MARGIN) | (a_bound == 0.0));
}

/*
 * One step of the lanes: x_in entered and x_out left each lane's window,
 * given as their exact difference d + d_lo (TwoSum, XS_ML_DIFFERENCE), with
 * ok the lanes whose terms are within the safe range (the others go stale;
 * their d and d_lo are zeros).  xs_running_move on the state (hi, lo,
 * bound, valid, block_left), then the decision of the window's sum (mean 0)
 * or mean (mean 1): the lanes decided (valid ones only), their values in
 * *approx.
 *
 * Why no lane's state is masked on the loop-carried chain (hi, lo, bound):
 * the loop stops at the first step that leaves a lane undecided, and a lane
 * that is not valid is undecided, so a lane computes at most one step
 * beyond its safe range, and nothing in that step can overflow: a valid
 * lane enters a step with |hi| <= XS_RUNNING_MAX (1 + 2^-52) (checked after
 * every move; the renormalisation fl(hi + lo) adds at most one ulp of
 * 2^1000), |lo| < 2^-38 XS_RUNNING_MAX (after a renormalisation or a
 * rebuild |lo| <= ulp(hi) / 2, and each of the at most XS_RUNNING_BLOCK moves
 * since adds to it errors |e| + |d_lo| + |err2| < 2^-50 XS_RUNNING_MAX), and
 * terms beyond the safe range are replaced by zeros before they are used,
 * so |d| <= 2 XS_RUNNING_MAX and every sum of the step stays below 2^1003,
 * finite.  Stale lanes enter with zeros (below), so no garbage raises a
 * floating-point flag either.
 */
#define XS_ML_DIFFERENCE(x_in, x_out, d, d_lo)                                      \
    do {                                                                            \
        XS_ML_V xs_minus_out = -(x_out);                                            \
        (d) = (x_in) + xs_minus_out;                                                \
        XS_ML_V xs_bb = (d) - (x_in);                                               \
        (d_lo) = ((x_in) - ((d) - xs_bb)) + (xs_minus_out - xs_bb);                 \
    } while (0)

/* The lanes' counts of terms (NaN terms are not terms): a lane whose
 * window holds `nans` of them has window - nans terms, returned; *short_of:
 * the lanes with fewer than min_count (their value is NaN); *full: those
 * without NaN.  The count is 1 for the lanes short of terms, so that a
 * division by it raises no flag. */
XS_ML_TARGET __attribute__((always_inline))
static inline XS_ML_V XS_ML_CAT(XS_ML_NAME, _terms)(XS_ML_V nans, int64_t window,
                                                    int64_t min_count, const int has_nan,
                                                    XS_ML_VI *short_of, XS_ML_VI *full)
{
    typedef XS_ML_V V;
    typedef XS_ML_VI VI;
    const V window_terms = (V){0} + (double)window;
    *short_of = (VI){0};
    *full = (VI){0} - 1;
    if (!has_nan) {
        return window_terms;
    }
    V count = window_terms - nans;                             /* exact integers */
    *short_of = count < (double)min_count;
    *full = nans == 0.0;
    return (V)(((VI)count & ~*short_of) | ((VI)((V){0} + 1.0) & *short_of));
}

/* xs_running_move on the lanes' state: three more TwoSums (the lanes not
 * `ok` go stale), and every XS_RUNNING_BLOCK steps the renormalisation. */
XS_ML_TARGET __attribute__((always_inline))
static inline void XS_ML_CAT(XS_ML_NAME, _move)(XS_ML_V d, XS_ML_V d_lo, XS_ML_VI ok,
                                                XS_ML_V *hi_io, XS_ML_V *lo_io,
                                                XS_ML_V *bound_io, XS_ML_VI *valid_io,
                                                int *block_left)
{
    typedef XS_ML_V V;
    V hi = *hi_io, lo = *lo_io, bound = *bound_io;
    V s = hi + d;
    V bb = s - hi;
    V e = (hi - (s - bb)) + (d - bb);
    hi = s;
    V f = e + d_lo;
    bb = f - e;
    V err1 = (e - (f - bb)) + (d_lo - bb);
    V l2 = lo + f;
    bb = l2 - lo;
    V err2 = (lo - (l2 - bb)) + (f - bb);
    lo = l2;
    bound = bound + (XS_ML_ABS(err1) + XS_ML_ABS(err2));
#ifdef XS_ML_WITHIN
    *valid_io &= ok & XS_ML_WITHIN(hi);
#else
    *valid_io &= ok & (XS_ML_ABS(hi) <= XS_RUNNING_MAX);
#endif
    if (--*block_left == 0) {
        *block_left = XS_RUNNING_BLOCK;
        bound = bound * XS_RUNNING_GROWTH;
        s = hi + lo;
        bb = s - hi;
        lo = (hi - (s - bb)) + (lo - bb);
        hi = s;
    }
    *hi_io = hi;
    *lo_io = lo;
    *bound_io = bound;
}

/* The decision of the lanes' sums: fast when the bound is 0, for then the
 * approximation hi + lo is the exact sum and fl(hi + lo) its correctly
 * rounded value (xs_running_round, bound 0), when it is at least
 * XS_RUNNING_TINY_SUM in magnitude; else xs_running_round.  The lanes decided
 * (short_of among them), their values in *approx. */
XS_ML_TARGET __attribute__((always_inline))
static inline XS_ML_VI XS_ML_CAT(XS_ML_NAME, _decide_sum)(XS_ML_V hi, XS_ML_V lo,
                                                          XS_ML_V bound, XS_ML_VI valid,
                                                          XS_ML_VI short_of, XS_ML_V *approx)
{
    *approx = hi + lo;
#ifdef XS_ML_FAST_ALL
    if (__builtin_expect(XS_ML_FAST_ALL(*approx, bound, valid, short_of), 1)) {
        return (XS_ML_VI){0} - 1;
    }
    return XS_ML_CAT(XS_ML_NAME, _round)(hi, lo, bound, valid, approx) | short_of;
#else
    XS_ML_VI decided = (valid & (XS_ML_ABS(*approx) >= XS_RUNNING_TINY_SUM) & (bound == 0.0)) |
                       short_of;
    if (__builtin_expect(!XS_ML_ALL(decided), 0)) {
        decided = XS_ML_CAT(XS_ML_NAME, _round)(hi, lo, bound, valid, approx) | short_of;
    }
    return decided;
#endif
}

/* The decision of the lanes' means.
 * A candidate q for RN(S/n), n = window, from inv = fl(1/n) and
 * no division: q0 = fl(hi inv), r0 = hi - q0 n (exact, as r
 * below), t = fl(r0 + lo), q = fl(q0 + fl(t inv)), which is S/n
 * rounded unless S/n lies within about 2^-50 ulp of a midpoint or
 * the bound is large.  Whatever q is, it is the correctly rounded
 * S/n when |S - q n| < n h, h the half gap of q's rounding interval
 * (as in xs_running_round: ulp(q)/2, or ulp(q)/4 when q is a power
 * of two; both sides at least h); that is tested here, when n <
 * 2^39, 2^-700 <= |hi| (a valid lane's hi is below 2^1001), |lo| <=
 * 2^-40 |hi| and |q| >= XS_RUNNING_TINY_SUM.
 * Each rounding is by a relative d, |d| <= 2^-53, or an absolute
 * 2^-1075 at most if it underflows (which changes no bound here by
 * more than its last digit).  q0 = (hi/n)(1 + d1)(1 + d2), so r0 =
 * hi - q0 n has |r0| <= |hi| 2^-51.9, |t| <= |hi| 2^-39.9, |fl(t inv)|
 * <= |hi/n| 2^-39.8, and |q - hi/n| < |hi/n| (2^-51.9 + 2^-39.8 +
 * 2^-52.9) < |hi/n| 2^-39.7.  r = hi - q n is then a double, which
 * fma gives exactly: hi and q n are both multiples of g = min(ulp(hi),
 * ulp(q)) (n an integer, the ulps powers of two), and |r| = n
 * |hi/n - q| < |hi| 2^-39.7 is below 2^14 ulp(hi) and below n 2^14
 * ulp(q) (|hi| <= n |q| (1 + 2^-39)), so below 2^53 g as n < 2^39
 * (g >= 2^-792: |q| >= 2^-740); the same holds for q0 and r0.
 * S - q n = (r + lo) + (S - hi - lo), so |S - q n| <= |r + lo| +
 * B <= |fl(r + lo)| (1 + 2^-52) + B (a sum that is subnormal is
 * exact), B = bound GROWTH (as in xs_running_round: the bound's own
 * additions in this block may have lost that much of it).  n h is
 * exact (a power of two >= 2^-794 times an integer below 2^39).
 * The test fl(|fl(r + lo)| + fl(B)) < fl(n h (1 - 2^-50)) then gives
 * |S - q n| < n h (1 - 2^-50)(1 + 2^-53)(1 + 2^-52)/(1 - 2^-53)^2 <
 * n h.  An exact tie, |S - q n| = n h, is never decided here.
 * The lanes this leaves undecided (ties among them, and every lane with
 * NaNs, whose n is its own count `terms`) take the divisions of
 * xs_running_divide and xs_running_round.  Returns the lanes decided
 * (short_of among them), their values in *approx; *exact: the lanes
 * decided by the candidate with q = S/n exactly (for narrow). */
XS_ML_TARGET __attribute__((always_inline))
static inline XS_ML_VI XS_ML_CAT(XS_ML_NAME, _decide_mean)(XS_ML_V hi, XS_ML_V lo,
                                                           XS_ML_V bound, XS_ML_VI valid,
                                                           XS_ML_VI full, XS_ML_VI short_of,
                                                           XS_ML_V terms, int64_t window,
                                                           XS_ML_VI *exact, XS_ML_V *approx)
{
    typedef XS_ML_V V;
    typedef XS_ML_VI VI;
    const VI abs_mask = (VI){0} + INT64_MAX;
    const V window_terms = (V){0} + (double)window;
    /* fl(1 / window), and the windows below 2^39 the proof holds for. */
    const V inverse = (V){0} + 1.0 / (double)window;
    const VI short_window = (VI){0} + (window < ((int64_t)1 << 39) ? -1 : 0);
    const VI exponent_mask = (VI){0} + (int64_t)XS_EXPONENT_MASK;
    const VI mantissa_mask = (VI){0} + (int64_t)XS_F64_MANT_MASK;
    const VI ulp_shift = (VI){0} + ((int64_t)XS_F64_MANT_BITS << XS_F64_MANT_BITS);
    V q0 = hi * inverse;
    V r0 = XS_ML_FNMSUB(q0, window_terms, hi);            /* exact */
    V q = q0 + (r0 + lo) * inverse;
    V r = XS_ML_FNMSUB(q, window_terms, hi);              /* exact */
    V residual = XS_ML_ABS(r + lo) + bound * XS_RUNNING_GROWTH;
    VI q_bits = (VI)q & abs_mask;
    VI normal = (V)q_bits >= XS_RUNNING_TINY_SUM;
    /* ulp(q), or 0 for a tiny q (whose exponent field is too small to
     * subtract from: the difference could be a huge double, whose
     * product by n would overflow and raise the flag). */
    V ulp = (V)(((q_bits & exponent_mask) - ulp_shift) & normal);
    VI binade_start = (q_bits & mantissa_mask) == 0;
    V gap = (ulp * window_terms) * (V)(((VI)((V){0} + 0.25) & binade_start) |
                                       ((VI)((V){0} + 0.5) & ~binade_start));
    *approx = q;
    /* |lo| 2^40 is exact and finite (|lo| < 2^-38 XS_RUNNING_MAX). */
    VI decided = (valid & full & short_window & normal &
                  (XS_ML_ABS(hi) >= XS_RUNNING_DIVIDE_MIN) &
                  (XS_ML_ABS(lo) * 0x1p40 <= XS_ML_ABS(hi)) &
                  (residual < gap * (1.0 - 0x1p-50))) | short_of;
    /* q = S/n exactly: S - q n = r + lo, which fl(r + lo) = 0 says is 0 (a
     * sum of two doubles rounds to 0 only when it is 0). */
    *exact = decided & (bound == 0.0) & ((r + lo) == 0.0);
    if (__builtin_expect(!XS_ML_ALL(decided), 0)) {
        /* xs_running_divide and xs_running_round, for the lanes left. */
        VI usable = valid & (XS_ML_ABS(hi) >= XS_RUNNING_DIVIDE_MIN) & ~decided;
        V q1 = hi / terms;
        V rem = XS_ML_FNMSUB(q1, terms, hi);                   /* exact */
        V t_sum = rem + lo;
        V t_b = t_sum - rem;
        V t_err = (rem - (t_sum - t_b)) + (lo - t_b);
        V q2 = t_sum / terms;
        VI exact_q = (bound == 0.0) & (t_err == 0.0) & (XS_ML_FNMSUB(q2, terms, t_sum) == 0.0);
        V a_bound = XS_ML_KEEP(((bound / terms + XS_ML_ABS(q2) * 0x1p-51) + XS_RUNNING_FLOOR) *
                               (1.0 + 0x1p-50), ~exact_q);
        V again;
        VI now = XS_ML_CAT(XS_ML_NAME, _round)(XS_ML_KEEP(q1, usable), XS_ML_KEEP(q2, usable),
                                               a_bound, usable, &again);
        *approx = (V)(((VI)again & now) | ((VI)*approx & ~now));
        decided |= now;
    }
    return decided;
}

/* A float32 target: approx, the float64 value decided, is stored converted
 * (rounded to nearest, ties to even, by the hardware).  A value rounded
 * twice is the value rounded once unless the first rounding gave a
 * midpoint of the second's grid (its 29 low bits 10...0): such lanes are
 * left to the caller, except for a sum whose approximation is exact (bound
 * 0) and whose approx is too (TwoSum error c = 0), or a mean decided as
 * exact (`exact`): there approx is the exact value, rounded only once by
 * the conversion.  Only approx in float32's normal range is decided, so
 * that the conversion neither overflows (a flag) nor meets the subnormals'
 * coarser grid.  Returns the lanes decided for float32 (short_of too). */
XS_ML_TARGET __attribute__((always_inline))
static inline XS_ML_VI XS_ML_CAT(XS_ML_NAME, _narrow)(XS_ML_V approx, XS_ML_V hi, XS_ML_V lo,
                                                      XS_ML_V bound, XS_ML_VI exact,
                                                      const int mean, XS_ML_VI decided,
                                                      XS_ML_VI short_of)
{
    typedef XS_ML_V V;
    typedef XS_ML_VI VI;
    const VI low_bits = (VI){0} + (((int64_t)1 << 29) - 1);
    const VI midpoint_bits = (VI){0} + ((int64_t)1 << 28);
    VI a_bits = (VI)approx & ((VI){0} + INT64_MAX);
    if (!mean) {
        V bb = approx - hi;
        V c = (hi - (approx - bb)) + (lo - bb);
        exact = (bound == 0.0) & (c == 0.0);
    }
    decided &= (((a_bits & low_bits) != midpoint_bits) | exact) &
               ((V)a_bits >= 0x1p-126) & ((V)a_bits <= 0x1.fffffep127);
    return decided | short_of;
}

/* One step of the lanes (see XS_ML_DIFFERENCE above): the move, then the
 * decision of the window's sum (mean 0) or mean (mean 1), for a float64 or
 * (narrow) a float32 result; the lanes short of terms are decided as NaN.
 * Returns the lanes decided (valid ones only), their values in *approx_out. */
XS_ML_TARGET __attribute__((always_inline))
static inline XS_ML_VI XS_ML_CAT(XS_ML_NAME, _step)(XS_ML_V d, XS_ML_V d_lo, XS_ML_VI ok,
                                                    XS_ML_V *hi_io, XS_ML_V *lo_io,
                                                    XS_ML_V *bound_io, XS_ML_VI *valid_io,
                                                    int *block_left, const int mean,
                                                    int64_t window, XS_ML_V nans,
                                                    int64_t min_count, const int has_nan,
                                                    const int narrow, XS_ML_V *approx_out)
{
    typedef XS_ML_V V;
    typedef XS_ML_VI VI;
    VI short_of, full;
    V terms = XS_ML_CAT(XS_ML_NAME, _terms)(nans, window, min_count, has_nan, &short_of, &full);
    XS_ML_CAT(XS_ML_NAME, _move)(d, d_lo, ok, hi_io, lo_io, bound_io, valid_io, block_left);
    V hi = *hi_io, lo = *lo_io, bound = *bound_io, approx;
    VI exact = (VI){0}, decided;
    if (mean) {
        decided = XS_ML_CAT(XS_ML_NAME, _decide_mean)(hi, lo, bound, *valid_io, full, short_of,
                                                      terms, window, &exact, &approx);
    }
    else {
        decided = XS_ML_CAT(XS_ML_NAME, _decide_sum)(hi, lo, bound, *valid_io, short_of,
                                                     &approx);
    }
    if (narrow) {
        decided = XS_ML_CAT(XS_ML_NAME, _narrow)(approx, hi, lo, bound, exact, mean, decided,
                                                 short_of);
    }
    *approx_out = (V)(((VI)approx & ~short_of) | ((VI)((V){0} + (double)NAN) & short_of));
    return decided;
}

/* NaN terms of a row with NaNs (has_nan): x_in entered and x_out left each
 * lane's window; the NaNs among them become zeros (terms of no value, on
 * the bits: no flag, even from a signaling NaN), and the change in each
 * lane's count of NaNs is returned (+1 for one that entered, -1 for one
 * that left). */
XS_ML_TARGET __attribute__((always_inline))
static inline XS_ML_V XS_ML_CAT(XS_ML_NAME, _drop_nans)(XS_ML_V *x_in, XS_ML_V *x_out)
{
    typedef XS_ML_V V;
    typedef XS_ML_VI VI;
    const VI abs_mask = (VI){0} + INT64_MAX;
    const VI inf_bits = (VI){0} + (int64_t)XS_EXPONENT_MASK;
    const VI one = (VI)((V){0} + 1.0);
    VI in_nan = ((VI)*x_in & abs_mask) > inf_bits;
    VI out_nan = ((VI)*x_out & abs_mask) > inf_bits;
    *x_in = (V)((VI)*x_in & ~in_nan);
    *x_out = (V)((VI)*x_out & ~out_nan);
    return (V)(one & in_nan) - (V)(one & out_nan);
}

/* Store a lane's value v at p: a double, or for a float32 target (narrow)
 * v converted (see XS_ML_NAME_step). */
#define XS_ML_STORE(p, v)                                                           \
    do {                                                                            \
        double xs_v = (v);                                                          \
        if (narrow) {                                                               \
            float xs_f = (float)xs_v;                                               \
            memcpy((p), &xs_f, sizeof xs_f);                                        \
        }                                                                           \
        else {                                                                      \
            memcpy((p), &xs_v, sizeof xs_v);                                        \
        }                                                                           \
    } while (0)

/* Steps per block: a multiple of W; small, since the differences of a
 * block's steps after one that stops the loop are computed in vain (data
 * over the whole exponent range stops it every few dozen steps), and its
 * buffers stay in L1 (3 x 16 registers). */
#define XS_ML_BLOCK 16

/* The lanes' state in registers while the loop runs (xs_running's fields
 * lane by lane, and the NaNs of each lane's window), and what stays fixed. */
typedef struct {
    XS_ML_V hi, lo, bound, nans;
    XS_ML_VI valid;
    int block_left;
} XS_ML_CAT(XS_ML_NAME, _state);

typedef struct {
    int64_t window, min_count;
    npy_intp back;            /* bytes from a lane's x_in to its x_out */
    npy_intp stride, out_step;
} XS_ML_CAT(XS_ML_NAME, _row);

#define XS_ML_STATE XS_ML_CAT(XS_ML_NAME, _state)
#define XS_ML_ROW XS_ML_CAT(XS_ML_NAME, _row)

/* W consecutive terms at p as doubles: float64 ones, or (in32) float32 ones
 * widened exactly (a signaling NaN raises the invalid flag, as the scalar
 * loads' conversion does: xs_types.h). */
XS_ML_TARGET __attribute__((always_inline))
static inline XS_ML_V XS_ML_CAT(XS_ML_NAME, _load)(const char *p, const int in32)
{
    XS_ML_V x;
    if (in32) {
        XS_ML_CAT(XS_ML_NAME, _vf) f;
        memcpy(&f, p, sizeof f);
        return __builtin_convertvector(f, XS_ML_V);
    }
    memcpy(&x, p, sizeof x);
    return x;
}

/*
 * A block of XS_ML_BLOCK steps, with XS_ML_TRANSPOSE (a W x W transpose of
 * W registers), contiguous input and output and no term beyond the safe
 * range, in three passes over buffers in registers or L1: the differences
 * d + d_lo of each lane's next terms (and the changes of its NaN count),
 * computed W steps at a time in one register per lane (whole-register
 * loads) and transposed into one register per step; the steps, one
 * register of W lanes each; and the values, transposed back into one store
 * per lane and W steps (one store per lane and step for float32 results).
 * A step that leaves a lane undecided ends the block there: the block's
 * steps before it are stored, and that step's decided lanes; the others are
 * set in *undecided.  Returns the steps done: XS_ML_BLOCK, or the index of
 * that step.  p[] and o[] move on by the block's steps when it is done.
 */
#ifdef XS_ML_TRANSPOSE
XS_ML_TARGET __attribute__((always_inline))
static inline int XS_ML_CAT(XS_ML_NAME, _block)(XS_ML_STATE *st, const XS_ML_ROW *row,
                                                const char **p, char **o, const int mean,
                                                const int has_nan, const int narrow,
                                                const int in32, int *undecided)
{
    typedef XS_ML_V V;
    typedef XS_ML_VI VI;
    const npy_intp size = in32 ? (npy_intp)sizeof(float) : (npy_intp)sizeof(double);
    V dd[XS_ML_BLOCK], dl[XS_ML_BLOCK], dn[XS_ML_BLOCK], res[XS_ML_BLOCK];
    for (int g = 0; g < XS_ML_BLOCK; g += XS_ML_W) {
        V a[XS_ML_W], b[XS_ML_W], c[XS_ML_W];
        for (int l = 0; l < XS_ML_W; l++) {
            /* lane l's terms at steps t + g ... */
            V x_in = XS_ML_CAT(XS_ML_NAME, _load)(p[l] + g * size, in32);
            V x_out = XS_ML_CAT(XS_ML_NAME, _load)(p[l] + g * size + row->back, in32);
            if (has_nan) {
                c[l] = XS_ML_CAT(XS_ML_NAME, _drop_nans)(&x_in, &x_out);
            }
            XS_ML_DIFFERENCE(x_in, x_out, a[l], b[l]);
        }
        XS_ML_TRANSPOSE(a);
        XS_ML_TRANSPOSE(b);
        if (has_nan) {
            XS_ML_TRANSPOSE(c);
        }
        for (int j = 0; j < XS_ML_W; j++) {
            dd[g + j] = a[j];
            dl[g + j] = b[j];
            if (has_nan) {
                dn[g + j] = c[j];
            }
        }
    }
    VI decided = (VI){0};
    int j = 0;
    for (; j < XS_ML_BLOCK; j++) {
        if (has_nan) {
            st->nans += dn[j];
        }
        decided = XS_ML_CAT(XS_ML_NAME, _step)(dd[j], dl[j], (VI){0} - 1, &st->hi, &st->lo,
                                               &st->bound, &st->valid, &st->block_left, mean,
                                               row->window, st->nans, row->min_count, has_nan,
                                               narrow, &res[j]);
        if (!XS_ML_ALL(decided)) {
            break;
        }
    }
    npy_intp out_step = row->out_step;
    int g = 0;
    for (; !narrow && g + XS_ML_W <= j; g += XS_ML_W) {
        V r[XS_ML_W];
        for (int i = 0; i < XS_ML_W; i++) {
            r[i] = res[g + i];
        }
        XS_ML_TRANSPOSE(r);
        for (int l = 0; l < XS_ML_W; l++) {
            memcpy(o[l] + g * out_step, &r[l], sizeof r[l]);
        }
    }
    for (; g < j; g++) {
        for (int l = 0; l < XS_ML_W; l++) {
            XS_ML_STORE(o[l] + g * out_step, res[g][l]);
        }
    }
    if (j < XS_ML_BLOCK) {
        for (int l = 0; l < XS_ML_W; l++) {
            if (decided[l]) {
                XS_ML_STORE(o[l] + j * out_step, res[j][l]);
            }
            else {
                *undecided |= 1 << l;
            }
        }
        return j;
    }
    for (int l = 0; l < XS_ML_W; l++) {
        p[l] += XS_ML_BLOCK * size;
        o[l] += XS_ML_BLOCK * out_step;
    }
    return XS_ML_BLOCK;
}
#endif

/* One step, any layout: the lanes' terms loaded one by one, NaNs dropped
 * (has_nan), terms beyond the safe range making their lane stale and
 * becoming zeros (checked).  Stores the decided lanes' values, sets the
 * others in *undecided, moves p[] and o[] on; returns 1 when every lane
 * was decided. */
XS_ML_TARGET __attribute__((always_inline))
static inline int XS_ML_CAT(XS_ML_NAME, _single)(XS_ML_STATE *st, const XS_ML_ROW *row,
                                                 const char **p, char **o, const int mean,
                                                 const int checked, const int has_nan,
                                                 const int narrow, const int in32,
                                                 int *undecided)
{
    typedef XS_ML_V V;
    typedef XS_ML_VI VI;
    const VI abs_mask = (VI){0} + INT64_MAX;
    V x_in, x_out, d, d_lo, approx;
    for (int l = 0; l < XS_ML_W; l++) {
        x_in[l] = in32 ? xs_value_float32(p[l]) : xs_value_float64(p[l]);
        x_out[l] = in32 ? xs_value_float32(p[l] + row->back)
                        : xs_value_float64(p[l] + row->back);
        p[l] += row->stride;
    }
    if (has_nan) {
        st->nans += XS_ML_CAT(XS_ML_NAME, _drop_nans)(&x_in, &x_out);
    }
    VI ok = (VI){0} - 1;
    if (checked) {
        ok = ((V)((VI)x_in & abs_mask) <= XS_RUNNING_MAX) &
             ((V)((VI)x_out & abs_mask) <= XS_RUNNING_MAX);
        x_in = (V)((VI)x_in & ok);
        x_out = (V)((VI)x_out & ok);
    }
    XS_ML_DIFFERENCE(x_in, x_out, d, d_lo);
    VI decided = XS_ML_CAT(XS_ML_NAME, _step)(d, d_lo, ok, &st->hi, &st->lo, &st->bound,
                                              &st->valid, &st->block_left, mean, row->window,
                                              st->nans, row->min_count, has_nan, narrow,
                                              &approx);
    int all = XS_ML_ALL(decided);
    for (int l = 0; l < XS_ML_W; l++) {
        if (all || decided[l]) {
            XS_ML_STORE(o[l], approx[l]);
        }
        else {
            *undecided |= 1 << l;
        }
        o[l] += row->out_step;
    }
    return all;
}

/* The loop for one combination of the flags (constants at each call of it
 * below, so that each gets its own loop): the lanes' state read from run[]
 * and nans[], blocks where they apply, else single steps, until len or the
 * first step that leaves a lane undecided; the state written back. */
XS_ML_TARGET __attribute__((always_inline))
static inline int XS_ML_CAT(XS_ML_NAME, _loop)(xs_running *run, int64_t *nans_io,
                                               const npy_intp *start, npy_intp *t_io,
                                               npy_intp len, const char *in, npy_intp stride,
                                               int64_t window, int64_t min_count,
                                               const int mean, const int checked,
                                               const int has_nan, const int narrow,
                                               const int in32, char *out, npy_intp out_step)
{
    XS_ML_STATE st;
    const XS_ML_ROW row = {window, min_count, -(npy_intp)window * stride, stride, out_step};
    st.block_left = XS_RUNNING_BLOCK;
    npy_intp t = *t_io;
    const char *p[XS_ML_W];
    char *o[XS_ML_W];
    for (int l = 0; l < XS_ML_W; l++) {
        int v = run[l].valid != 0 && xs_running_abs(run[l].hi) <= XS_RUNNING_MAX;
        st.hi[l] = v ? run[l].hi : 0.0;                  /* stale lanes carry zeros */
        st.lo[l] = v ? run[l].lo : 0.0;
        st.bound[l] = v ? run[l].bound : 0.0;
        st.valid[l] = v ? -1 : 0;
        st.nans[l] = (double)nans_io[l];
        st.block_left = run[l].block_left < st.block_left ? run[l].block_left : st.block_left;
        p[l] = in + (start[l] + t) * stride;
        o[l] = out + (start[l] + t) * out_step;
    }
    int undecided = 0;
#ifdef XS_ML_TRANSPOSE
    const int grouped = !checked &&
                        stride == (npy_intp)(in32 ? sizeof(float) : sizeof(double)) &&
                        out_step == (npy_intp)(narrow ? sizeof(float) : sizeof(double));
#endif
    while (t < len) {
#ifdef XS_ML_TRANSPOSE
        if (grouped && len - t >= XS_ML_BLOCK) {
            int done = XS_ML_CAT(XS_ML_NAME, _block)(&st, &row, p, o, mean, has_nan, narrow,
                                                     in32, &undecided);
            t += done;
            if (done < XS_ML_BLOCK) {
                break;
            }
            continue;
        }
#endif
        if (!XS_ML_CAT(XS_ML_NAME, _single)(&st, &row, p, o, mean, checked, has_nan, narrow,
                                            in32, &undecided)) {
            break;
        }
        t++;
    }
    for (int l = 0; l < XS_ML_W; l++) {
        run[l].hi = st.hi[l];
        run[l].lo = st.lo[l];
        run[l].bound = st.bound[l];
        run[l].valid = st.valid[l] != 0;
        run[l].block_left = st.block_left;
        nans_io[l] = (int64_t)st.nans[l];
    }
    *t_io = t;
    return undecided;
}

/* checked: 0 when the row holds no term beyond the safe range; has_nan: 0
 * when it holds no NaN (nans[] the NaNs of each lane's window, in and
 * out); narrow: 1 for a float32 target, 0 for float64; in32: 1 for float32
 * terms (with a float32 target only: float32 terms into float64 results
 * have no loop here), 0 for float64.  Each combination is its own loop
 * (the flags are constants in it). */
XS_ML_TARGET
static int XS_ML_NAME(xs_running *run, int64_t *nans, const npy_intp *start, npy_intp *t_io,
                      npy_intp len, const char *in, npy_intp stride, int64_t window,
                      int64_t min_count, int mean, int checked, int has_nan, int narrow,
                      int in32, char *out, npy_intp out_step)
{
#define XS_ML_LOOP(m, c, h, w, i)                                                       \
    XS_ML_CAT(XS_ML_NAME, _loop)(run, nans, start, t_io, len, in, stride, window, min_count, \
                                 m, c, h, w, i, out, out_step)
#define XS_ML_LOOPS_H(m, c, h)                                                          \
    (!narrow ? XS_ML_LOOP(m, c, h, 0, 0)                                                \
             : in32 ? XS_ML_LOOP(m, c, h, 1, 1) : XS_ML_LOOP(m, c, h, 1, 0))
#define XS_ML_LOOPS_C(m, c) (has_nan ? XS_ML_LOOPS_H(m, c, 1) : XS_ML_LOOPS_H(m, c, 0))
#define XS_ML_LOOPS(m) (checked ? XS_ML_LOOPS_C(m, 1) : XS_ML_LOOPS_C(m, 0))
    return mean ? XS_ML_LOOPS(1) : XS_ML_LOOPS(0);
#undef XS_ML_LOOPS
#undef XS_ML_LOOPS_C
#undef XS_ML_LOOPS_H
#undef XS_ML_LOOP
}

#undef XS_ML_BLOCK
#undef XS_ML_STORE
#undef XS_ML_ABS
#undef XS_ML_KEEP
#undef XS_ML_STATE
#undef XS_ML_ROW
#undef XS_ML_DIFFERENCE
#undef XS_ML_V
#undef XS_ML_VI
#undef XS_ML_CAT
#undef XS_ML_CAT_
#undef XS_ML_NAME
#undef XS_ML_W
#undef XS_ML_TARGET
#undef XS_ML_FNMSUB
#undef XS_ML_ALL
#undef XS_ML_TRANSPOSE
#undef XS_ML_WITHIN
#undef XS_ML_FAST_ALL
