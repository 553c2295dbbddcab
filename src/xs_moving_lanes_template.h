/*
 * Template of the vector lanes of moving windows (xs_moving.c), included
 * once per vector width with these macros defined:
 *   XS_ML_NAME     the function's name
 *   XS_ML_W        lanes: doubles per register (4: AVX2)
 *   XS_ML_TARGET   the target attribute ("avx2,fma")
 *   XS_ML_FNMSUB(a, b, c)  c - a b with one rounding (an fma intrinsic)
 *   XS_ML_ALL(m)   1 when every lane of the mask m is set
 * The arithmetic is written with GCC/clang vector extensions, so that one
 * text serves any width (only AVX2's is built: see xs_moving.c).
 *
 * Steps *t, *t + 1, ... < len of the lanes, each lane's window full (k >=
 * window), with float64 results, one lane per double of a register: the
 * operations of xs_running_move, xs_running_divide and xs_running_round
 * (for a float64 target, where the value rounded to the target is the
 * approximation itself), lane by lane.  Stale lanes carry zeros, so that no
 * garbage raises a floating-point flag.  The loop makes no call, so that
 * the lanes' state stays in registers: at the first step where a lane
 * cannot take its terms (beyond the safe range) or the approximation cannot
 * decide its window, it stores the other lanes' values, writes every lane's
 * state back to run[], leaves *t at that step and returns the mask of the
 * lanes the caller must settle (xs_window_settle); 0 when it reached len.
 * (Gathers were tried for the loads: no faster.)
 */
#define XS_ML_CAT_(a, b) a##b
#define XS_ML_CAT(a, b) XS_ML_CAT_(a, b)
#define XS_ML_V XS_ML_CAT(XS_ML_NAME, _vd)
#define XS_ML_VI XS_ML_CAT(XS_ML_NAME, _vi)

typedef double XS_ML_V __attribute__((vector_size(8 * XS_ML_W)));
typedef int64_t XS_ML_VI __attribute__((vector_size(8 * XS_ML_W)));

__attribute__((target(XS_ML_TARGET)))
static int XS_ML_NAME(xs_running *run, const npy_intp *start, npy_intp *t_io, npy_intp len,
                      const char *in, npy_intp stride, int64_t window, int mean, char *out,
                      npy_intp out_step)
{
    typedef XS_ML_V V;
    typedef XS_ML_VI VI;
    const VI abs_mask = (VI){0} + INT64_MAX;
    const VI exponent_mask = (VI){0} + (int64_t)XS_EXPONENT_MASK;
    const VI mantissa_mask = (VI){0} + (int64_t)(((uint64_t)1 << 52) - 1);
    const VI ulp_shift = (VI){0} + ((int64_t)52 << 52);
    const V terms = (V){0} + (double)window;
#define XS_ML_ABS(x) ((V)((VI)(x) & abs_mask))
#define XS_ML_KEEP(x, m) ((V)((VI)(x) & (m)))            /* x where m, else +0 */
    V hi, lo, bound;
    VI valid;
    int block_left = XS_RUNNING_BLOCK;
    for (int l = 0; l < XS_ML_W; l++) {
        int v = run[l].valid != 0;
        hi[l] = v ? run[l].hi : 0.0;
        lo[l] = v ? run[l].lo : 0.0;
        bound[l] = v ? run[l].bound : 0.0;
        valid[l] = v ? -1 : 0;
        block_left = run[l].block_left < block_left ? run[l].block_left : block_left;
    }
    npy_intp t = *t_io;
    int undecided = 0;
    for (; t < len; t++) {
        V x_in, x_out;
        for (int l = 0; l < XS_ML_W; l++) {
            const char *p = in + (start[l] + t) * stride;
            double a, b;
            memcpy(&a, p, sizeof a);
            memcpy(&b, p - window * stride, sizeof b);
            x_in[l] = a;
            x_out[l] = b;
        }
        /* Which lanes can move; the others go stale and carry zeros. */
        VI ok = (XS_ML_ABS(x_in) <= XS_RUNNING_MAX) & (XS_ML_ABS(x_out) <= XS_RUNNING_MAX) &
                (XS_ML_ABS(hi) <= XS_RUNNING_MAX) & valid;
        valid = ok;
        x_in = XS_ML_KEEP(x_in, ok);
        x_out = XS_ML_KEEP(x_out, ok);
        hi = XS_ML_KEEP(hi, ok);
        lo = XS_ML_KEEP(lo, ok);
        bound = XS_ML_KEEP(bound, ok);
        /* xs_running_move: four TwoSums. */
        V minus_out = -x_out;
        V d = x_in + minus_out;
        V bb = d - x_in;
        V d_lo = (x_in - (d - bb)) + (minus_out - bb);
        V s = hi + d;
        bb = s - hi;
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
        if (--block_left == 0) {
            block_left = XS_RUNNING_BLOCK;
            bound = bound * XS_RUNNING_GROWTH;
            s = hi + lo;
            bb = s - hi;
            lo = (hi - (s - bb)) + (lo - bb);
            hi = s;
        }
        /* The approximation to decide from: of the sum, or of the mean
         * (xs_running_divide). */
        V a_hi = hi, a_lo = lo, a_bound = bound;
        VI usable = valid;
        if (mean) {
            usable &= XS_ML_ABS(hi) >= XS_RUNNING_DIVIDE_MIN;
            V q1 = hi / terms;
            V rem = XS_ML_FNMSUB(q1, terms, hi);               /* exact */
            V t_sum = rem + lo;
            bb = t_sum - rem;
            V t_err = (rem - (t_sum - bb)) + (lo - bb);
            V q2 = t_sum / terms;
            VI exact = (bound == 0.0) & (t_err == 0.0) &
                       (XS_ML_FNMSUB(q2, terms, t_sum) == 0.0);
            a_hi = XS_ML_KEEP(q1, usable);
            a_lo = XS_ML_KEEP(q2, usable);
            a_bound = XS_ML_KEEP(((bound / terms + XS_ML_ABS(q2) * 0x1p-51) + XS_RUNNING_FLOOR) *
                                 (1.0 + 0x1p-50), ~exact);
        }
        /* xs_running_round for a float64 target. */
        V approx = a_hi + a_lo;
        bb = approx - a_hi;
        V c = (a_hi - (approx - bb)) + (a_lo - bb);
        VI bits = (VI)approx & abs_mask;
        V q = (V)((bits & exponent_mask) - ulp_shift);      /* ulp(approx) */
        VI binade_start = (bits & mantissa_mask) == 0;
        V half_gap = q * (V)(((VI)((V){0} + 0.25) & binade_start) |
                             ((VI)((V){0} + 0.5) & ~binade_start));
        V error = XS_ML_ABS(c) + a_bound * XS_RUNNING_GROWTH;
        VI decided = usable & (XS_ML_ABS(approx) >= 0x1p-800) &
                     ((error < half_gap * XS_RUNNING_MARGIN) | (a_bound == 0.0));
        int all = XS_ML_ALL(decided);
        for (int l = 0; l < XS_ML_W; l++) {
            if (all || decided[l]) {
                double v = approx[l];
                memcpy(out + (start[l] + t) * out_step, &v, sizeof v);
            }
            else {
                undecided |= 1 << l;
            }
        }
        if (!all) {
            break;
        }
    }
    for (int l = 0; l < XS_ML_W; l++) {
        run[l].hi = hi[l];
        run[l].lo = lo[l];
        run[l].bound = bound[l];
        run[l].valid = valid[l] != 0;
        run[l].block_left = block_left;
    }
    *t_io = t;
    return undecided;
#undef XS_ML_ABS
#undef XS_ML_KEEP
}

#undef XS_ML_V
#undef XS_ML_VI
#undef XS_ML_CAT
#undef XS_ML_CAT_
#undef XS_ML_NAME
#undef XS_ML_W
#undef XS_ML_TARGET
#undef XS_ML_FNMSUB
#undef XS_ML_ALL
