/*
 * Moving-window variances and standard deviations, each window's exact
 * value rounded once, decided in O(1) per window where two-double
 * approximations prove the rounding (see xs_moving_var.h).
 *
 * The window ending at k holds m non-NaN terms; with S1 = sum x and
 * S2 = sum x^2 over them, its variance is
 *     V = N / (m (m - ddof)),   N = m S2 - S1^2 (exactly, >= 0).
 * Every x^2 is p + e exactly (xs_dekker_square) for XS_MV_MIN <= |x| <=
 * XS_MV_MAX.  S1 and S2 follow the window as xs_running approximations
 * (the entering term added and the leaving one subtracted; the bound grows
 * by the rounding errors TwoSum finds, so it stays 0 while every step is
 * exact).  Terms outside that range, and Inf, enter the sums as 0 and make
 * the windows that hold them undecided (Inf: NaN, decided).
 *
 * N from the approximations A = ah + al (bound a) of S1 and B = bh + bl
 * (bound b) of S2: m*bh, ah*ah, m*bl and 2*ah*al exactly (Dekker's
 * products, two doubles each), m*bh - ah*ah's leading parts by TwoSum; the
 * seven parts besides fl(m*bh - ah*ah) summed in plain arithmetic (the
 * recursive sum of seven terms is within 6u < 2^-50 of the sum of their
 * magnitudes, u = 2^-53; additions are exact when they underflow), then
 * added to it by one TwoSum.  So nh + nl is within
 *     m b + (2(|ah| + |al|) + a) a + al^2 + 2^-50 (sum of |the seven|)
 *     + XS_MV_TINY
 * of N (al^2 left out; XS_MV_TINY: a square of a sum
 * below XS_MV_SUM_MIN is off by less), the whole times 1 + 2^-40 for the
 * roundings of the bound itself.  A window is decided when N is provably
 * positive: V's approximation by xs_running_divide, rounded by
 * xs_running_round; a standard deviation by xs_root_decide from V's
 * approximation.
 *
 * Exact zeros: a window whose terms are all equal (tracked as the start of
 * the current run of equal non-NaN values) has variance 0, decided without
 * the approximations (they cannot prove N = 0).  Other windows the
 * approximations cannot decide first get their approximations rebuilt from
 * the window's own terms (at most once per `window` steps, so O(1)
 * amortised), then, still undecided, are left to the caller.
 *
 * Groups (xs_grouped_var): the same decision for whole runs of values, one
 * run per group, its approximations built from its terms anchored at its
 * first term, and, when that does not decide, at its approximate mean.
 */
#include "kernels/moving/xs_moving_var.h"

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu/xs_cpu.h"
#include "runtime/xs_interrupt.h"
#include "exact/xs_root.h"
#include "exact/xs_running.h"
#include "exact/xs_types.h"

/* Terms whose squares split exactly, and stay in xs_running's safe range
 * in any window of up to XS_MV_MAX_TERMS terms. */
#define XS_MV_MIN 0x1p-480
#define XS_MV_MAX 0x1p470
/* Windows of more terms are left to the caller: m (m - ddof) must stay an
 * exact integer below 2^53 for the division. */
#define XS_MV_MAX_TERMS ((int64_t)1 << 26)
/* Sums of squares and of terms must lie here for the products of N to be
 * exact (Dekker) and finite; see above. */
#define XS_MV_SUM_MIN 0x1p-400
#define XS_MV_SUM_MAX 0x1p900
/* A bound on the error of p + pe = ah^2 when |ah| < XS_MV_SUM_MIN. */
#define XS_MV_TINY 0x1p-790

/* What a term x adds to the sums, shifted by the row's anchor c (the
 * variance does not change): x - c = dh + dl exactly (TwoSum); S1 takes dh
 * and dl, S2 takes (dh + dl)^2 = dh^2 + 2 dh dl + dl^2 as dh^2 and 2 dh dl
 * exactly (two doubles each, Dekker's products) and fl(dl^2), whose
 * rounding (2^-53 of it) and the tiny products Dekker cannot split exactly
 * (below 2^-1000 each: XS_MV_PART_ERR) go into S2's bound.  Absent terms
 * (NaN, Inf, out of range) add nothing. */
typedef struct {
    double s1[2];           /* dh, dl */
    double s2[5];           /* dh^2 (two parts), 2 dh dl (two parts), fl(dl^2) */
    double err;             /* the bound S2 takes for them */
} xs_mv_parts;

#define XS_MV_PART_ERR 0x1p-990

/* The bodies shared by the portable and the FMA copies of the moving loop,
 * inlined into each so that `use_fma` is a constant there. */
#if defined(__GNUC__) || defined(__clang__)
#define XS_MV_BODY static inline __attribute__((always_inline))
#else
#define XS_MV_BODY static inline
#endif

/* a*b = p + *err: Dekker's product in the portable copy, one fma in the
 * copy compiled for FMA (a third of the work: the products are most of
 * decide's).  Both are exact under the same conditions (a*b at least
 * 2^-969 or 0, finite); below that the fma's error (under 2^-1074) is
 * smaller than Dekker's, so every bound here covers both. */
XS_MV_BODY double mv_product(double a, double b, int use_fma, double *err)
{
    if (use_fma) {
        double p = a * b;
        *err = xs_product_error(a, b, p);
        return p;
    }
    return xs_dekker_product(a, b, err);
}

XS_MV_BODY double mv_square(double v, int use_fma, double *err)
{
    return use_fma ? mv_product(v, v, 1, err) : xs_dekker_square(v, err);
}

XS_MV_BODY void parts_with(double x, int present, double anchor, int use_fma, xs_mv_parts *t)
{
    if (!present) {
        memset(t, 0, sizeof *t);
        return;
    }
    double dl, dh = xs_two_sum(x, -anchor, &dl);
    t->s1[0] = dh;
    t->s1[1] = dl;
    t->s2[0] = mv_square(dh, use_fma, &t->s2[1]);
    if (dl == 0.0) {                    /* an exact shift (always, for anchor 0) */
        t->s2[2] = t->s2[3] = t->s2[4] = 0.0;
    }
    else {
        t->s2[2] = mv_product(2.0 * dh, dl, use_fma, &t->s2[3]);
        t->s2[4] = dl * dl;
    }
    t->err = t->s2[4] * 0x1p-52 + XS_MV_PART_ERR;
}

static inline void parts_of(double x, int present, double anchor, xs_mv_parts *t)
{
    parts_with(x, present, anchor, 0, t);
}

/* Whether term x enters the sums (finite, 0 or within the range) and, if
 * not while finite and non-zero, that its windows are left undecided. */
static inline int present(double x, int *out_of_range)
{
    double a = fabs(x);
    int in = a == 0.0 || (a >= XS_MV_MIN && a <= XS_MV_MAX);
    *out_of_range = !in && a < INFINITY;               /* NaN and Inf: no */
    return in;
}

/* The window's variance (std: its root) rounded into fmt, when the
 * approximations r1 (of S1) and r2 (of S2) of its m terms decide it. */
XS_MV_BODY int decide_with(const xs_running *r1, const xs_running *r2, int64_t m,
                           int64_t ddof, int std, int use_fma, const xs_format *fmt,
                           double *out)
{
    int64_t dof = m - ddof;
    if (!r1->valid || !r2->valid || m > XS_MV_MAX_TERMS || dof <= 0 || dof > XS_MV_MAX_TERMS) {
        return 0;
    }
    double a = r1->bound * XS_RUNNING_GROWTH, b = r2->bound * XS_RUNNING_GROWTH;
    double al, bl;
    double ah = xs_two_sum(r1->hi, r1->lo, &al);
    double bh = xs_two_sum(r2->hi, r2->lo, &bl);
    if (!(bh >= XS_MV_SUM_MIN && bh <= XS_MV_SUM_MAX && fabs(ah) <= XS_MV_SUM_MAX)) {
        return 0;
    }
    /* N = m (bh + bl) - (ah + al)^2 + what the bounds allow: eight exact
     * parts (products, TwoSum); all but parts[0] summed plainly (within
     * 2^-50 of the sum of their magnitudes: independent adds instead of a
     * chain of TwoSums), then added to parts[0] by TwoSum; al^2 is left out
     * and bounded. */
    double mm = (double)m, parts[8];
    double q = mv_product(mm, bh, use_fma, &parts[1]);
    double p = mv_square(ah, use_fma, &parts[2]);
    parts[2] = -parts[2];
    parts[0] = xs_two_sum(q, -p, &parts[3]);
    parts[4] = mv_product(mm, bl, use_fma, &parts[5]);
    parts[6] = -mv_product(2.0 * ah, al, use_fma, &parts[7]);
    parts[7] = -parts[7];
    double rest = 0.0, rest_abs = 0.0;
    for (int j = 1; j < 8; j++) {
        rest += parts[j];
        rest_abs += fabs(parts[j]);
    }
    double nl, nh = xs_two_sum(parts[0], rest, &nl);
    double err = (mm * b + (2.0 * (fabs(ah) + fabs(al)) + a) * a + al * al +
                  0x1p-50 * rest_abs + XS_MV_TINY) * (1.0 + 0x1p-40);
    if (!(nh - err > 0.0)) {
        return 0;                        /* N not provably positive */
    }
    xs_running n_approx, v;
    xs_running_init(&n_approx);
    n_approx.hi = nh;
    n_approx.lo = nl;
    n_approx.bound = err;
    if (!xs_running_divide(&n_approx, (uint64_t)(m * dof), &v)) {
        return 0;
    }
    if (!std) {
        return xs_running_round(&v, fmt, out);
    }
    return xs_root_decide(v.hi, v.lo, v.bound * XS_RUNNING_GROWTH, fmt, out);
}

static int decide(const xs_running *r1, const xs_running *r2, int64_t m, int64_t ddof,
                  int std, const xs_format *fmt, double *out)
{
    return decide_with(r1, r2, m, ddof, std, 0, fmt, out);
}

static inline double load(const char *p)
{
    return xs_bits_double(xs_load_float64(p));
}

/* r1, r2 from the window's own terms [first, k] shifted by the anchor
 * (xs_running_add's a-priori bound), after the moving ones stopped
 * deciding. */
static void rebuild(xs_running *r1, xs_running *r2, const char *in, npy_intp stride,
                    npy_intp first, npy_intp k, double anchor)
{
    xs_running_init_exact(r1);
    xs_running_init_exact(r2);
    for (npy_intp j = first; j <= k; j++) {
        int ignored = 0;
        double x = load(in + j * stride);
        xs_mv_parts t;
        parts_of(x, present(x, &ignored), anchor, &t);
        xs_running_add(r1, t.s1[0]);
        xs_running_add(r2, t.s2[0]);
        xs_running_add(r2, t.s2[1]);
        if (t.s1[1] != 0.0) {
            /* The shift was inexact (dl != 0): its parts too (else zeros). */
            xs_running_add(r1, t.s1[1]);
            for (int i = 2; i < 5; i++) {
                xs_running_add(r2, t.s2[i]);
            }
        }
        r2->bound += t.err;
    }
}

#define XS_MV_ROW_PARAMS const char *in, npy_intp stride, npy_intp n, int64_t window, \
    int64_t min_count, int64_t ddof, int std, const xs_target *target, char *out, \
    npy_intp out_step, char *ok, npy_intp ok_step
#define XS_MV_ROW_ARGS in, stride, n, window, min_count, ddof, std, target, out, out_step, \
    ok, ok_step

/* One row: values (n, stride) -> out (out_step) and decided (ok_step).
 * One function of about 85 lines on purpose: every step of the window reads
 * and updates the row's nine locals (the two running sums, the counts of
 * terms and Infs, the run and range marks, the last rebuild, the anchor),
 * which named steps would take by pointer in the hot loop. */
XS_MV_BODY void moving_var_row_with(XS_MV_ROW_PARAMS, int use_fma)
{
    xs_running r1, r2;
    xs_running_init_exact(&r1);
    xs_running_init_exact(&r2);
    int64_t terms = 0, infs = 0;
    npy_intp run_start = 0, last_out_of_range = -1, last_rebuild = -1;
    double last = NAN, anchor = 0.0;
    for (npy_intp k = 0; k < n; k++) {
        if ((k & (XS_INTERRUPT_BLOCK - 1)) == 0 && xs_interrupted_at(k)) {
            return;
        }
        double x_in = load(in + k * stride), x_out = NAN;
        if (k >= window) {
            x_out = load(in + (k - window) * stride);
        }
        int out_of_range = 0, ignored = 0;
        xs_mv_parts t_in, t_out;
        parts_with(x_in, present(x_in, &out_of_range), anchor, use_fma, &t_in);
        parts_with(x_out, present(x_out, &ignored), anchor, use_fma, &t_out);
        if (out_of_range) {
            last_out_of_range = k;
        }
        terms += (x_in == x_in) - (x_out == x_out);
        infs += (fabs(x_in) == INFINITY) - (fabs(x_out) == INFINITY);
        if (x_in == x_in) {
            if (!(x_in == last)) {
                run_start = k;
            }
            last = x_in;
        }
        xs_running_move(&r1, t_in.s1[0], t_out.s1[0]);
        xs_running_move(&r2, t_in.s2[0], t_out.s2[0]);
        xs_running_move(&r2, t_in.s2[1], t_out.s2[1]);
        if (t_in.s1[1] != 0.0 || t_out.s1[1] != 0.0) {
            /* The shift was inexact (dl != 0): its parts too.  Otherwise
             * they are zeros, whose moves change nothing. */
            xs_running_move(&r1, t_in.s1[1], t_out.s1[1]);
            for (int i = 2; i < 5; i++) {
                xs_running_move(&r2, t_in.s2[i], t_out.s2[i]);
            }
        }
        r2.bound += t_in.err + t_out.err;

        npy_intp first = k + 1 > window ? k + 1 - (npy_intp)window : 0;
        double value = NAN;
        npy_bool decided = 1;
        if (terms < min_count || infs > 0 || terms - ddof <= 0) {
            value = NAN;                        /* bottleneck's and pandas' NaN */
        }
        else if (run_start <= first) {
            value = 0.0;                        /* all terms equal: exactly 0 */
        }
        else if (last_out_of_range >= first) {
            decided = 0;
        }
        else if (!decide_with(&r1, &r2, terms, ddof, std, use_fma, target->format, &value)) {
            decided = 0;
            if (k - last_rebuild >= window) {
                /* Rebuilt at the anchor in use first: a variance large
                 * beside the mean, undecided because the bounds grew as
                 * large terms left, is decided at any anchor, and keeping
                 * anchor 0 keeps every shift exact (the short path above;
                 * lognormal data ran the long one after its first rebuild).
                 * Then at a new anchor, the window's last term: a variance
                 * small beside the mean needs an anchor near the mean. */
                last_rebuild = k;
                rebuild(&r1, &r2, in, stride, first, k, anchor);
                decided = (npy_bool)decide_with(&r1, &r2, terms, ddof, std, use_fma,
                                                target->format, &value);
                double next = x_in == x_in && !out_of_range && fabs(x_in) < INFINITY ? x_in
                                                                                    : anchor;
                if (!decided && next != anchor) {
                    anchor = next;
                    rebuild(&r1, &r2, in, stride, first, k, anchor);
                    decided = (npy_bool)decide_with(&r1, &r2, terms, ddof, std, use_fma,
                                                    target->format, &value);
                }
            }
        }
        if (!decided) {
            value = 0.0;                        /* a placeholder the caller replaces */
        }
        XS_STORE(target, out + k * out_step, value);
        memcpy(ok + k * ok_step, &decided, sizeof decided);
    }
}

#if defined(XS_CPU_X86)
/* Two copies, FMA (chosen where the level in force allows AVX2, which
 * comes with FMA) and portable. */
XS_TARGET_AVX2 static void moving_var_row_fma(XS_MV_ROW_PARAMS)
{
    moving_var_row_with(XS_MV_ROW_ARGS, 1);
}

static void moving_var_row(XS_MV_ROW_PARAMS)
{
    if (xs_cpu_allows(XS_ISA_AVX2)) {
        moving_var_row_fma(XS_MV_ROW_ARGS);
    }
    else {
        moving_var_row_with(XS_MV_ROW_ARGS, 0);
    }
}
#else
/* One copy, portable (Dekker's products). */
static void moving_var_row(XS_MV_ROW_PARAMS)
{
    moving_var_row_with(XS_MV_ROW_ARGS, 0);
}
#endif

void xs_moving_var(char **args, const npy_intp *dimensions, const npy_intp *steps, void *data)
{
    const xs_target *target = (const xs_target *)data;
    npy_intp rows = dimensions[0], n = dimensions[1];
    /* The squares and products of out-of-range terms, Inf and NaN raise
     * flags that no stored value needs (undecided windows are recomputed
     * by the caller, flags and all): put them back as they were. */
    fexcept_t flags;
    fegetexceptflag(&flags, FE_ALL_EXCEPT);
    for (npy_intp i = 0; i < rows && !xs_stopped(); i++) {
        int64_t window, min_count, ddof;
        npy_bool std;
        memcpy(&window, args[1] + i * steps[1], sizeof window);
        memcpy(&min_count, args[2] + i * steps[2], sizeof min_count);
        memcpy(&ddof, args[3] + i * steps[3], sizeof ddof);
        memcpy(&std, args[4] + i * steps[4], sizeof std);
        moving_var_row(args[0] + i * steps[0], steps[7], n, window, min_count, ddof, std != 0,
                       target, args[5] + i * steps[5], steps[8], args[6] + i * steps[6],
                       steps[9]);
    }
    fesetexceptflag(&flags, FE_ALL_EXCEPT);
}

/* One group's variance (std: its root) of the n values at in (stride
 * apart), rounded into the target: 1 when decided (NaN for a NaN or an Inf,
 * 0 when every value is equal, else from the approximations), 0 when the
 * caller must compute it (no more values than ddof, values out of range,
 * a rounding the approximations cannot call). */
static int group_var(const char *in, npy_intp stride, npy_intp n, int64_t ddof, int std,
                     const xs_format *fmt, double *out)
{
    if (n < 1 || (int64_t)n <= ddof) {
        return 0;
    }
    double first = load(in);
    int equal = 1, special = 0, out_of_range = 0;
    for (npy_intp j = 0; j < n; j++) {
        if ((j & (XS_INTERRUPT_BLOCK - 1)) == 0 && xs_interrupted_at(j)) {
            return 0;                           /* a huge group: answer Ctrl-C */
        }
        double x = load(in + j * stride);
        int outside = 0;
        special |= !present(x, &outside) && !outside;       /* NaN, Inf */
        out_of_range |= outside;
        equal &= x == first;
    }
    if (special) {
        *out = NAN;
        return 1;
    }
    if (equal) {
        *out = 0.0;
        return 1;
    }
    if (out_of_range) {
        return 0;
    }
    xs_running r1, r2;
    rebuild(&r1, &r2, in, stride, 0, n - 1, first);
    if (decide(&r1, &r2, (int64_t)n, ddof, std, fmt, out)) {
        return 1;
    }
    if (n > XS_INTERRUPT_BLOCK && xs_interrupted()) {
        return 0;                               /* between the passes of a huge group */
    }
    /* A spread small beside the mean: anchor at the approximate mean. */
    double mean = first + (r1.hi + r1.lo) / (double)n;
    if (!(fabs(mean) <= XS_MV_MAX)) {
        return 0;
    }
    rebuild(&r1, &r2, in, stride, 0, n - 1, mean);
    return decide(&r1, &r2, (int64_t)n, ddof, std, fmt, out);
}

void xs_grouped_var(char **args, const npy_intp *dimensions, const npy_intp *steps, void *data)
{
    const xs_target *target = (const xs_target *)data;
    npy_intp rows = dimensions[0], n = dimensions[1], groups = dimensions[2];
    fexcept_t flags;
    fegetexceptflag(&flags, FE_ALL_EXCEPT);
    ptrdiff_t work = 0;
    for (npy_intp i = 0; i < rows && !xs_stopped(); i++) {
        const char *values = args[0] + i * steps[0], *ends = args[1] + i * steps[1];
        int64_t ddof;
        npy_bool std;
        memcpy(&ddof, args[2] + i * steps[2], sizeof ddof);
        memcpy(&std, args[3] + i * steps[3], sizeof std);
        char *out = args[4] + i * steps[4], *ok = args[5] + i * steps[5];
        int64_t start = 0;
        int in_order = 1;
        for (npy_intp g = 0; g < groups; g++) {
            int64_t end;
            memcpy(&end, ends + g * steps[7], sizeof end);
            double value = 0.0;
            npy_bool decided = 0;
            in_order &= end >= start && end <= (int64_t)n;   /* else none from here */
            /* A check every XS_INTERRUPT_BLOCK values, also within a row of
             * many groups; once stopped, nothing more is stored. */
            if (in_order && xs_interrupted_after(&work, (ptrdiff_t)(end - start))) {
                break;
            }
            if (in_order) {
                decided = (npy_bool)group_var(values + start * steps[6], steps[6],
                                              (npy_intp)(end - start), ddof, std != 0,
                                              target->format, &value);
                start = end;
            }
            XS_STORE(target, out + g * steps[8], decided ? value : 0.0);
            memcpy(ok + g * steps[9], &decided, sizeof decided);
        }
    }
    fesetexceptflag(&flags, FE_ALL_EXCEPT);
}
