/*
 * Low-precision element-wise updates: correct rounding to nearest of an
 * exact two-double value into a small format, stochastic rounding of the
 * same, and the loops generated from xs_lowprec_template.h.
 *
 * Every operation here starts from an exact sum a + b = hi + lo (two-sum in
 * double, exact for any finite doubles that do not overflow) and rounds
 * that exact value once; double rounding through float64 never happens.
 */
#include <Python.h>

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu/xs_cpu.h"
#include "lowprec/xs_lowprec.h"
#include "exact/xs_exact.h"
#include "exact/xs_types.h"
#include "runtime/xs_gil.h"

/* A storage format: p significant bits, normal exponents emin..emax. */
typedef struct {
    int p;
    int emin;
    int emax;
    double max_finite;
} xs_lp_format;

static const xs_lp_format xs_lp_bfloat16 = {8, -126, 127, 0x1.fep127};
static const xs_lp_format xs_lp_float16 = {11, -14, 15, 0x1.ffcp15};
static const xs_lp_format xs_lp_float32 = {24, -126, 127, 0x1.fffffep127};

/* The IEEE flags a loop reports: only what the rounded operations would
 * raise (overflow of a finite value, NaN from non-NaN operands), never the
 * intermediate ones of the exact computation, which the loops discard. */
#define XS_LP_OVERFLOW 1u
#define XS_LP_INVALID 2u

#if defined(__GNUC__) || defined(__clang__)
#define XS_LP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define XS_LP_UNLIKELY(x) (x)
#endif

/* Loops start with xs_lp_begin_flags and end with xs_lp_end_flags: the flags
 * of the exact intermediate steps are dropped, the ones the element-wise
 * IEEE operations would raise are reported (NumPy turns them into warnings). */
static inline void xs_lp_begin_flags(fexcept_t *saved)
{
    fegetexceptflag(saved, FE_ALL_EXCEPT);
}

static inline void xs_lp_end_flags(const fexcept_t *saved, unsigned flags)
{
    fesetexceptflag(saved, FE_ALL_EXCEPT);
    if (flags & XS_LP_OVERFLOW) {
        feraiseexcept(FE_OVERFLOW | FE_INEXACT);
    }
    if (flags & XS_LP_INVALID) {
        feraiseexcept(FE_INVALID);
    }
}

/* ---- exact sums and their roundings ---------------------------------- */

typedef struct {
    double hi, lo;
} xs_lp_pair;

/* Knuth's TwoSum (xs_exact.h) as a pair: hi = fl(a + b), hi + lo = a + b
 * exactly (finite hi). */
static inline xs_lp_pair xs_lp_two_sum(double a, double b)
{
    xs_lp_pair r;
    r.hi = xs_two_sum(a, b, &r.lo);
    return r;
}

/* |a| (finite, > 0) split at S's quantum: a = t + rem, t a multiple of the
 * quantum q = 2^qe of a's binade in S (the subnormal quantum below emin),
 * 0 <= rem < q.  All exact. */
typedef struct {
    double t, rem, q;
    int qe;
    int t_is_binade_start;  /* t = 2^E with E > emin: the value below is q/2 away */
} xs_lp_split;

static inline xs_lp_split xs_lp_split_at_quantum(double a, const xs_lp_format *f)
{
    xs_lp_split r;
    int ex;
    double m = frexp(a, &ex);           /* a = m 2^ex, m in [0.5, 1) */
    int e = ex - 1;
    if (e < f->emin) {
        e = f->emin;
    }
    r.qe = e - f->p + 1;
    r.q = ldexp(1.0, r.qe);
    double units = floor(ldexp(a, -r.qe));     /* exact: a power-of-2 scaling */
    r.t = ldexp(units, r.qe);
    r.rem = a - r.t;                    /* exact: the low bits of a */
    r.t_is_binade_start = m == 0.5 && ex - 1 > f->emin && r.rem == 0.0;
    return r;
}

/* Unbiased exponent of a positive normal double (-1023 for subnormals). */
static inline int xs_lp_exponent(uint64_t magnitude_bits)
{
    return (int)(magnitude_bits >> XS_F64_MANT_BITS) - XS_F64_EXP_BIAS;
}

static inline double xs_lp_finish(double magnitude, double sign_of, const xs_lp_format *f,
                                  unsigned *flags)
{
    if (magnitude > f->max_finite) {
        magnitude = INFINITY;
        *flags |= XS_LP_OVERFLOW;
    }
    return copysign(magnitude, sign_of);
}

/* hi + lo (|lo| <= ulp(hi)/2, as from two-sum) rounded to nearest, ties to
 * even, into f, with subnormals and overflow to +-inf. */
static inline double xs_lp_round_nearest(double hi, double lo, const xs_lp_format *f,
                                         unsigned *flags)
{
    if (!isfinite(hi) || hi == 0.0) {
        return hi;                      /* NaN, +-inf, +-0 (lo is 0) */
    }
    double a = fabs(hi);
    double e = hi > 0 ? lo : -lo;       /* lo seen from the magnitude */
    uint64_t bits = xs_double_bits(a);
    int exponent = xs_lp_exponent(bits);
    if (f->p < 53 && exponent >= f->emin && exponent <= f->emax) {
        /* Fast path, a normal in f: drop the low 53 - p bits of the double;
         * e (|e| <= half an ulp of a) only breaks an exact tie. */
        int shift = 53 - f->p;
        uint64_t unit = (uint64_t)1 << shift, half = unit >> 1;
        uint64_t rem = bits & (unit - 1), t = bits & ~(unit - 1);
        int up = rem > half ||
                 (rem == half && (e > 0.0 || (e == 0.0 && ((t >> shift) & 1u))));
        return xs_lp_finish(xs_bits_double(up ? t + unit : t), hi, f, flags);
    }
    xs_lp_split s = xs_lp_split_at_quantum(a, f);
    /* rem and q/2 are multiples of ulp(a) and |e| < ulp(a): e only breaks a
     * tie.  When rem - q/2 is inexact it is far larger than |e|, with the
     * right sign. */
    double d = s.rem - 0.5 * s.q;
    int up;
    if (d != -e) {
        up = d > -e;
    }
    else {                              /* exact tie (e = 0): to even */
        up = fmod(ldexp(s.t, -s.qe), 2.0) != 0.0;
    }
    return xs_lp_finish(up ? s.t + s.q : s.t, hi, f, flags);
}

/* a + b rounded to nearest in f. */
static inline double xs_lp_add(double a, double b, const xs_lp_format *f, unsigned *flags)
{
    xs_lp_pair z = xs_lp_two_sum(a, b);
    if (isnan(z.hi) && !isnan(a) && !isnan(b)) {
        *flags |= XS_LP_INVALID;        /* inf - inf */
    }
    else if (isinf(z.hi) && isfinite(a) && isfinite(b)) {
        *flags |= XS_LP_OVERFLOW;       /* beyond even float64 */
    }
    return xs_lp_round_nearest(z.hi, z.lo, f, flags);
}

/*
 * hi + lo rounded stochastically into f with the k-bit random integer r
 * (k = 16 or 32).  With down the neighbour towards zero and frac =
 * (|z| - |down|) / ulp in [0, 1), the result is the neighbour away from
 * zero exactly when r < frac * 2^k (so with probability ceil(frac 2^k)/2^k).
 * Exact values never move.  Above the largest finite value the neighbour
 * away from zero is +-inf; |z| >= 2^(emax+1) is +-inf.  NaN stays NaN.
 */
static inline double xs_lp_round_stochastic(double hi, double lo, uint32_t r, int k,
                                            const xs_lp_format *f, unsigned *flags)
{
    if (!isfinite(hi) || hi == 0.0) {
        return hi;
    }
    double a = fabs(hi);
    double e = hi > 0 ? lo : -lo;
    uint64_t bits = xs_double_bits(a);
    int exponent = xs_lp_exponent(bits);
    int shift = 53 - f->p;
    if (k <= shift && exponent >= f->emin && exponent <= f->emax) {
        /* Fast path, a normal in f: rem = the dropped low bits of a (in
         * ulps of a), frac * 2^k = (rem + e/ulp(a)) / 2^(shift-k) with
         * |e/ulp(a)| <= 1/2, so r < frac 2^k is an integer comparison. */
        uint64_t unit = (uint64_t)1 << shift;
        uint64_t rem = bits & (unit - 1), t = bits & ~(unit - 1);
        if (!(rem == 0 && e < 0.0)) {
            uint64_t scaled = (uint64_t)r << (shift - k);
            int away = e > 0.0 ? scaled <= rem : scaled < rem;
            return xs_lp_finish(xs_bits_double(away ? t + unit : t), hi, f, flags);
        }
    }
    xs_lp_split s = xs_lp_split_at_quantum(a, f);
    if (s.rem == 0.0 && e < 0.0) {
        /* |z| just below the representable t: down is t's predecessor. */
        int qe_below = s.t_is_binade_start ? s.qe - 1 : s.qe;
        double q_below = ldexp(1.0, qe_below);
        double threshold = ldexp((double)r, qe_below - k);     /* exact */
        int away = q_below - threshold > -e;   /* exact difference: k+1 bits */
        return xs_lp_finish(away ? s.t : s.t - q_below, hi, f, flags);
    }
    /* r q 2^-k < rem + e  <=>  rem - r q 2^-k > -e.  The difference is
     * exact, or so much larger than |e| that its sign decides. */
    double threshold = ldexp((double)r, s.qe - k);
    int away = s.rem - threshold > -e;
    return xs_lp_finish(away ? s.t + s.q : s.t, hi, f, flags);
}

/* ---- fast paths ---------------------------------------------------------------
 *
 * The routines above are the reference.  The fast routines below give the
 * same result for the cases they handle and say through *ok (ANDed, never
 * set) when a case is not one of them; the loops then redo the element with
 * the reference, from the same inputs.  They have no data-dependent branches
 * and no libm calls (the reference's tie / away branches are unpredictable
 * with random r and common zeros), so the loops evaluate them for every
 * element and test *ok once.  Three roundings:
 *   xs_lp_fast_nearest_normal     to nearest, results in S's normal range,
 *                                 on the bits with constant masks (short
 *                                 latency: kahan_sum's serial chain);
 *   xs_lp_nearest_by_addition     to nearest, subnormals included, by adding
 *                                 and subtracting a power-of-two multiple
 *                                 (SSE2 operations only: vectorises);
 *   xs_lp_stochastic_by_addition  the stochastic rule, the same way.
 */
#define XS_LP_SIGN_BIT XS_F64_SIGN_BIT

/* 2^n for -1022 <= n <= 1023 (callers only keep results made in range). */
static inline double xs_lp_pow2(int64_t n)
{
    return xs_bits_double((uint64_t)(n + XS_F64_EXP_BIAS) << XS_F64_MANT_BITS);
}

/*
 * hi + lo (from two-sum: |lo| <= ulp(hi)/2, lo = 0 when hi = 0) rounded to
 * nearest, ties to even, into f, for results in S's normal range (and
 * zeros); *ok &= whether this was such a case.  s = 53 - p bits are dropped
 * (constant masks); rem = the dropped bits of |hi|, an integer number of
 * ulp(hi), half = 2^(s-1).  lo only matters when rem = half exactly (|lo| is
 * below one ulp(hi), so hi + lo cannot cross another multiple of ulp(hi)),
 * so the result is computed as if lo = 0: adding half - 1 + (lowest kept
 * bit) and clearing the low s bits rounds up exactly when rem > half, or
 * rem = half and the kept part is odd (ties to even), carrying into the
 * exponent field when the binade ends; rem = half with lo != 0 is left to
 * the caller.  This speculation keeps lo off the dependency chain (the
 * latency matters in kahan_sum).  |hi| a power of two with lo < 0: rem = 0
 * rounds to |hi|, right since |lo| is far below half the smaller quantum.
 */
static inline double xs_lp_fast_nearest_normal(double hi, double lo, const xs_lp_format *f,
                                               unsigned *ok)
{
    const int s = 53 - f->p;
    const uint64_t unit = (uint64_t)1 << s, half = unit >> 1;
    uint64_t bits = xs_double_bits(hi);
    uint64_t sign = bits & XS_LP_SIGN_BIT, mag = bits ^ sign;
    uint64_t rem = mag & (unit - 1);
    uint64_t rounded = (mag + (half - 1) + ((mag >> s) & 1u)) & ~(unit - 1);
    /* min_normal(S) <= |hi| and rounded <= max_finite(S), as unsigned
     * comparisons of patterns (both ends are positive patterns) */
    const uint64_t low = (uint64_t)(f->emin + XS_F64_EXP_BIAS) << XS_F64_MANT_BITS;
    const uint64_t high = (uint64_t)(f->emax + 1024) << XS_F64_MANT_BITS;     /* 2^(emax+1) */
    int in_range = mag >= low && rounded < high;
    int undecided_tie = rem == half && lo != 0.0;
    *ok &= (unsigned)((mag == 0) | (in_range & !undecided_tie));
    return xs_bits_double(rounded | sign);
}

/* a + b rounded to nearest in f, results in S's normal range (fast cases of
 * xs_lp_fast_nearest_normal). */
static inline double xs_lp_fast_add_normal(double a, double b, const xs_lp_format *f,
                                           unsigned *ok)
{
    xs_lp_pair z = xs_lp_two_sum(a, b);
    return xs_lp_fast_nearest_normal(z.hi, z.lo, f, ok);
}

/*
 * hi + lo (from two-sum) rounded to nearest, ties to even, into f by the
 * hardware's own rounding: with a = |hi|, e = max(exponent of a, emin) and
 * big = 1.5 * 2^(e + 53 - p), the double sum a + big lies in big's binade
 * (a < 2^(e+1) <= big/3, as 53 - p >= 29), whose ulp 2^(e+1-p) is S's
 * quantum at a (the subnormal quantum below 2^emin).  So the addition rounds
 * a to the nearest multiple of the quantum, ties to the even multiple
 * (big / quantum = 1.5 * 2^52 is even), and subtracting big again is exact
 * (a multiple of the quantum below 2^(e+1)).  That is S's correct rounding
 * of a, subnormals and rounding to zero included; the sign is put back as a
 * bit (the reference also keeps the sign of a value rounded to zero).
 * lo only matters on an exact tie (|a - r| = half the quantum, computed
 * exactly), which is left to the reference when lo != 0, as are a >=
 * 2^(emax+1), NaN and results above the largest finite value (overflow).
 * No integer shifts: a few SSE2 operations, none of them branches.
 */
static inline double xs_lp_nearest_by_addition(double hi, double lo, const xs_lp_format *f,
                                               unsigned *ok)
{
    const uint64_t exponent_mask = XS_F64_INF_BITS;
    const double min_normal = xs_lp_pow2(f->emin);
    const double limit = xs_lp_pow2(f->emax + 1);
    uint64_t hi_bits = xs_double_bits(hi);
    double a = xs_bits_double(hi_bits & ~XS_LP_SIGN_BIT);
    /* max(a, 2^emin) as a mask select (NaN: 2^emin): no branch, and SSE2
     * has the double comparison, not the 64-bit integer one */
    uint64_t above = xs_mask_if(a > min_normal);
    uint64_t e_bits = ((xs_double_bits(a) & above) | (xs_double_bits(min_normal) & ~above)) & exponent_mask;
    double big = xs_bits_double(e_bits + ((uint64_t)(53 - f->p) << XS_F64_MANT_BITS) + ((uint64_t)1 << 51));
    double half_quantum = xs_bits_double(e_bits - ((uint64_t)f->p << XS_F64_MANT_BITS));
    double r = (a + big) - big;
    double off = a - r;                                      /* exact */
    int undecided_tie = (fabs(off) == half_quantum) & (lo != 0.0);
    *ok &= (unsigned)((a < limit) & (r <= f->max_finite) & !undecided_tie);
    return xs_bits_double(xs_double_bits(r) | (hi_bits & XS_LP_SIGN_BIT));
}

/* a + b rounded to nearest in f (fast cases; see xs_lp_nearest_by_addition). */
static inline double xs_lp_fast_add_hw(double a, double b, const xs_lp_format *f, unsigned *ok)
{
    xs_lp_pair z = xs_lp_two_sum(a, b);
    return xs_lp_nearest_by_addition(z.hi, z.lo, f, ok);
}

/* An integer below 2^52 as a double, exactly: the significand of 2^52 + n,
 * minus 2^52 (exact).  Unlike the conversion instruction (signed only, and
 * 64-bit only with AVX-512), this vectorises. */
static inline double xs_lp_small_to_double(uint64_t n)
{
    return xs_bits_double(n | ((uint64_t)(XS_F64_EXP_BIAS + XS_F64_MANT_BITS) << XS_F64_MANT_BITS)) - 0x1p52;
}

/*
 * hi + lo rounded stochastically with the k-bit r (the rule of
 * xs_lp_round_stochastic) by the hardware's rounding, like
 * xs_lp_nearest_by_addition: with a = |hi|, q = S's quantum at a and near =
 * a rounded to nearest (exact computations, see there), down = near, or
 * near - q when near > a, is the multiple of q below a (exact: both
 * multiples of q), rem = a - down in [0, q) is exact (Sterbenz when down >=
 * q, a itself when down = 0), and with l = lo seen from a, when rem > 0 or
 * l >= 0:
 *     away  <=>  r q 2^-k < rem + l  <=>  rem - r q 2^-k > -l.
 * The difference is exact: with u = ulp(a) and q = 2^s u (53 - p <= s <=
 * 52), it is (rem/u - r 2^(s-k)) u, where both terms are multiples of
 * 2^min(0, s-k) >= 2^-3 (s >= 29, k <= 32) below 2^s, so at most
 * max(52, k) bits; r q 2^-k is an exact scaling (q 2^-k >= 2^-181, a
 * normal double).  So the comparison is exact: the reference's comparison
 * of the same quantity.  rem = 0 with l < 0 (down is then a's predecessor),
 * a >= 2^(emax+1), NaN and results above the largest finite value are left
 * to the reference.  Only SSE2 operations, no branches: it vectorises.
 */
static inline double xs_lp_stochastic_by_addition(double hi, double lo, uint32_t r, int k,
                                                  const xs_lp_format *f, unsigned *ok)
{
    const uint64_t exponent_mask = XS_F64_INF_BITS;
    const double min_normal = xs_lp_pow2(f->emin);
    const double limit = xs_lp_pow2(f->emax + 1);
    uint64_t hi_bits = xs_double_bits(hi), sign = hi_bits & XS_LP_SIGN_BIT;
    double a = xs_bits_double(hi_bits ^ sign);
    uint64_t above = xs_mask_if(a > min_normal);
    uint64_t e_bits = ((xs_double_bits(a) & above) | (xs_double_bits(min_normal) & ~above)) & exponent_mask;
    double big = xs_bits_double(e_bits + ((uint64_t)(53 - f->p) << XS_F64_MANT_BITS) + ((uint64_t)1 << 51));
    uint64_t q_bits = e_bits - ((uint64_t)(f->p - 1) << XS_F64_MANT_BITS);         /* q = 2^(e+1-p) */
    double q = xs_bits_double(q_bits);
    double near = (a + big) - big;
    double down = near - xs_bits_double(q_bits & xs_mask_if(near > a));
    double rem = a - down;
    double l = xs_bits_double(xs_double_bits(lo) ^ sign);
    double threshold = xs_lp_small_to_double(r) * (q * xs_lp_pow2(-k));
    int away = (rem - threshold) > -l;
    double result = down + xs_bits_double(q_bits & xs_mask_if(away));
    int below_down = (rem == 0.0) & (l < 0.0);
    *ok &= (unsigned)((a < limit) & (result <= f->max_finite) & !below_down);
    return xs_bits_double(xs_double_bits(result) | sign);
}

/*
 * One step of Algorithm 1 (Zamirai et al.), every operation rounded to
 * nearest in f: y = u - c, s = w + y, c_new = (s - w) - y.  The fast
 * rounding first; when one of the four additions was not a case it handles,
 * the whole step is redone from the same inputs by the reference routines
 * (which also raise the flags of overflow and inf - inf).
 */
typedef struct {
    double s, c;
} xs_lp_kahan_state;

static inline xs_lp_kahan_state xs_lp_kahan_step(double w, double c, double u,
                                                 const xs_lp_format *f, unsigned *flags)
{
    xs_lp_kahan_state r;
    unsigned ok = 1;
    double y = xs_lp_fast_add_hw(u, -c, f, &ok);
    r.s = xs_lp_fast_add_hw(w, y, f, &ok);
    r.c = xs_lp_fast_add_hw(xs_lp_fast_add_hw(r.s, -w, f, &ok), -y, f, &ok);
    if (XS_LP_UNLIKELY(!ok)) {
        y = xs_lp_add(u, -c, f, flags);
        r.s = xs_lp_add(w, y, f, flags);
        r.c = xs_lp_add(xs_lp_add(r.s, -w, f, flags), -y, f, flags);
    }
    return r;
}

/*
 * The same step for a serial chain (kahan_sum), where latency counts: the
 * shorter-latency rounding of results in S's normal range, and when |w| >=
 * |y| no rounding at all for the last two operations: s = RN(w + y) with
 * |w| >= |y| is Dekker's Fast2Sum, so s - w and (s - w) - y (the error of
 * s) are exactly representable in S (true in binary formats with round to
 * nearest whatever the underflow; overflow of s is refused by its
 * rounding).  Rounding an exact value is the identity, so the double
 * operations (exact, with IEEE's sign of an exact zero, which is also what
 * the reference returns) are the reference's results.  Otherwise
 * xs_lp_kahan_step.
 */
static inline xs_lp_kahan_state xs_lp_kahan_step_chained(double w, double c, double u,
                                                         const xs_lp_format *f,
                                                         unsigned *flags)
{
    xs_lp_kahan_state r;
    unsigned ok = 1;
    double y = xs_lp_fast_add_normal(u, -c, f, &ok);
    r.s = xs_lp_fast_add_normal(w, y, f, &ok);
    r.c = (r.s + -w) + -y;
    ok &= (unsigned)(fabs(w) >= fabs(y));
    if (XS_LP_UNLIKELY(!ok)) {
        r = xs_lp_kahan_step(w, c, u, f, flags);
    }
    return r;
}

/* Element-wise loops work in blocks: each phase (loads, one rounded
 * operation, stores) is a short loop over independent elements that the
 * processor overlaps (a whole Kahan step per element is a dependency chain
 * too long for that), and a block with a special element is redone
 * element by element. */
#define XS_LP_BLOCK 256

static inline uint32_t xs_lp_load_bits(const char *p, int kbits)
{
    if (kbits == 16) {
        uint16_t r;
        memcpy(&r, p, sizeof r);
        return r;
    }
    uint32_t r;
    memcpy(&r, p, sizeof r);
    return r;
}

/* ---- loads and stores --------------------------------------------------- */

/* The loads and stores of xs_types.h, by the names the template pastes;
 * float16's load is the branch-free one (these loops load a block at a time
 * and vectorise). */
#define xs_lp_load_float64 xs_value_float64
#define xs_lp_load_float32 xs_value_float32
#define xs_lp_load_float16 xs_value_float16_lanes
#define xs_lp_load_bfloat16 xs_value_bfloat16

#define xs_lp_store_float64 xs_store_float64
#define xs_lp_store_float32 xs_store_float32
#define xs_lp_store_float16 xs_store_float16
#define xs_lp_store_bfloat16 xs_store_bfloat16

/* The shared loop bodies must be compiled inside each copy. */
#if defined(__GNUC__) || defined(__clang__)
#define XS_LP_BODY static inline __attribute__((always_inline))
#else
#define XS_LP_BODY static inline
#endif

/* x86-64: kahan_add's loops and the stochastic ones are also compiled for
 * AVX2, so that the phase loops vectorise (4 doubles at a time; about 3x
 * faster), and each call runs the copy the level in force allows
 * (src/cpu/xs_cpu.h: XSUMUFUNC_KERNEL caps it too).  The copies perform the
 * same IEEE operations in the same order (no contraction into fma:
 * -ffp-contract=off), so they give the same bits.  XS_LP_COPIES(name)
 * defines the registered loop `name` from its body `name_body`. */
#define XS_LP_LOOP_PARAMS char **args, const npy_intp *dimensions, const npy_intp *steps, \
    void *data
#define XS_LP_LOOP_ARGS args, dimensions, steps, data
#define XS_LP_PASTE_(a, b) a##_##b
#define XS_LP_PASTE(a, b) XS_LP_PASTE_(a, b)
#ifdef XS_CPU_X86
#define XS_LP_COPIES(name) \
    XS_TARGET_AVX2 static void XS_LP_PASTE(name, avx2)(XS_LP_LOOP_PARAMS) \
    { \
        XS_LP_PASTE(name, body)(XS_LP_LOOP_ARGS); \
    } \
    void name(XS_LP_LOOP_PARAMS) \
    { \
        if (xs_cpu_allows(XS_ISA_AVX2)) { \
            XS_LP_PASTE(name, avx2)(XS_LP_LOOP_ARGS); \
        } \
        else { \
            XS_LP_PASTE(name, body)(XS_LP_LOOP_ARGS); \
        } \
    }
#else
#define XS_LP_COPIES(name) \
    void name(XS_LP_LOOP_PARAMS) \
    { \
        XS_LP_PASTE(name, body)(XS_LP_LOOP_ARGS); \
    }
#endif

/* ---- the template, once per (storage, update) pair ---------------------- */

/* One instance per pair of xs_lowprec_each.h. */
#define XS_LP_EACH "lowprec/xs_lowprec_template.h"
#include "lowprec/xs_lowprec_each.h"
