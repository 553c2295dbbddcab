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

#include "xs_lowprec.h"
#include "xs_types.h"

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

/* Release the GIL for loops of at least this many elements. */
#define XS_LP_GIL_RELEASE_MIN 4096

static PyThreadState *xs_lp_release_gil_for(npy_intp outer, npy_intp n)
{
    /* Short-circuit keeps the product below 4096 * 4096: no overflow. */
    int big = outer >= XS_LP_GIL_RELEASE_MIN || n >= XS_LP_GIL_RELEASE_MIN ||
              outer * n >= XS_LP_GIL_RELEASE_MIN;
    if (big && PyGILState_Check()) {
        return PyEval_SaveThread();
    }
    return NULL;
}

static void xs_lp_restore_gil(PyThreadState *saved)
{
    if (saved) {
        PyEval_RestoreThread(saved);
    }
}

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

/* Knuth's two-sum: hi = fl(a + b), hi + lo = a + b exactly (finite hi). */
static inline xs_lp_pair xs_lp_two_sum(double a, double b)
{
    xs_lp_pair r;
    r.hi = a + b;
    double bb = r.hi - a;
    r.lo = (a - (r.hi - bb)) + (b - bb);
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

static inline uint64_t xs_lp_bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static inline double xs_lp_from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* Unbiased exponent of a positive normal double (-1023 for subnormals). */
static inline int xs_lp_exponent(uint64_t magnitude_bits)
{
    return (int)(magnitude_bits >> 52) - 1023;
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
    uint64_t bits = xs_lp_bits(a);
    int exponent = xs_lp_exponent(bits);
    if (f->p < 53 && exponent >= f->emin && exponent <= f->emax) {
        /* Fast path, a normal in f: drop the low 53 - p bits of the double;
         * e (|e| <= half an ulp of a) only breaks an exact tie. */
        int shift = 53 - f->p;
        uint64_t unit = (uint64_t)1 << shift, half = unit >> 1;
        uint64_t rem = bits & (unit - 1), t = bits & ~(unit - 1);
        int up = rem > half ||
                 (rem == half && (e > 0.0 || (e == 0.0 && ((t >> shift) & 1u))));
        return xs_lp_finish(xs_lp_from_bits(up ? t + unit : t), hi, f, flags);
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
    uint64_t bits = xs_lp_bits(a);
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
            return xs_lp_finish(xs_lp_from_bits(away ? t + unit : t), hi, f, flags);
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

static inline double xs_lp_load_float64(const char *p)
{
    double x;
    memcpy(&x, p, sizeof x);
    return x;
}

static inline double xs_lp_load_float32(const char *p)
{
    float x;
    memcpy(&x, p, sizeof x);
    return (double)x;
}

static inline double xs_lp_load_float16(const char *p)
{
    uint16_t h;
    memcpy(&h, p, sizeof h);
    return xs_half_to_double(h);
}

static inline double xs_lp_load_bfloat16(const char *p)
{
    uint16_t b;
    memcpy(&b, p, sizeof b);
    return xs_bfloat16_to_double(b);
}

static inline void xs_lp_store_float64(char *p, double x) { memcpy(p, &x, sizeof x); }

static inline void xs_lp_store_float32(char *p, double x)
{
    float v = (float)x;                 /* exact: x is a float32 value */
    memcpy(p, &v, sizeof v);
}

static inline void xs_lp_store_float16(char *p, double x)
{
    uint16_t h = xs_double_to_half(x);
    memcpy(p, &h, sizeof h);
}

static inline void xs_lp_store_bfloat16(char *p, double x)
{
    uint16_t b = xs_double_to_bfloat16(x);
    memcpy(p, &b, sizeof b);
}

/* ---- the template, once per (storage, update) pair ---------------------- */

#define XS_LP_NATIVE_ADD 0

/* bfloat16 storage */
#define XS_LP_S bfloat16
#define XS_LP_LOAD_S xs_lp_load_bfloat16
#define XS_LP_STORE_S xs_lp_store_bfloat16
#define XS_LP_FMT (&xs_lp_bfloat16)
#define XS_LP_EMIT_PAIR 1

#define XS_LP_U bfloat16
#define XS_LP_LOAD_U xs_lp_load_bfloat16
#define XS_LP_EMIT_SUM 1
#include "xs_lowprec_template.h"
#undef XS_LP_EMIT_SUM
#undef XS_LP_LOAD_U
#undef XS_LP_U
#define XS_LP_EMIT_SUM 0

#define XS_LP_U float32
#define XS_LP_LOAD_U xs_lp_load_float32
#include "xs_lowprec_template.h"
#undef XS_LP_LOAD_U
#undef XS_LP_U

#define XS_LP_U float64
#define XS_LP_LOAD_U xs_lp_load_float64
#include "xs_lowprec_template.h"
#undef XS_LP_LOAD_U
#undef XS_LP_U

#undef XS_LP_EMIT_SUM
#undef XS_LP_FMT
#undef XS_LP_STORE_S
#undef XS_LP_LOAD_S
#undef XS_LP_S

/* float16 storage */
#define XS_LP_S float16
#define XS_LP_LOAD_S xs_lp_load_float16
#define XS_LP_STORE_S xs_lp_store_float16
#define XS_LP_FMT (&xs_lp_float16)

#define XS_LP_U float16
#define XS_LP_LOAD_U xs_lp_load_float16
#define XS_LP_EMIT_SUM 1
#include "xs_lowprec_template.h"
#undef XS_LP_EMIT_SUM
#undef XS_LP_LOAD_U
#undef XS_LP_U
#define XS_LP_EMIT_SUM 0

#define XS_LP_U float32
#define XS_LP_LOAD_U xs_lp_load_float32
#include "xs_lowprec_template.h"
#undef XS_LP_LOAD_U
#undef XS_LP_U

#define XS_LP_U float64
#define XS_LP_LOAD_U xs_lp_load_float64
#include "xs_lowprec_template.h"
#undef XS_LP_LOAD_U
#undef XS_LP_U

#undef XS_LP_EMIT_SUM
#undef XS_LP_FMT
#undef XS_LP_STORE_S
#undef XS_LP_LOAD_S
#undef XS_LP_S

/* float32 storage */
#define XS_LP_S float32
#define XS_LP_LOAD_S xs_lp_load_float32
#define XS_LP_STORE_S xs_lp_store_float32
#define XS_LP_FMT (&xs_lp_float32)

#define XS_LP_U float32
#define XS_LP_LOAD_U xs_lp_load_float32
#define XS_LP_EMIT_SUM 1
#include "xs_lowprec_template.h"
#undef XS_LP_EMIT_SUM
#undef XS_LP_LOAD_U
#undef XS_LP_U
#define XS_LP_EMIT_SUM 0

#define XS_LP_U float64
#define XS_LP_LOAD_U xs_lp_load_float64
#include "xs_lowprec_template.h"
#undef XS_LP_LOAD_U
#undef XS_LP_U

#undef XS_LP_EMIT_SUM
#undef XS_LP_EMIT_PAIR
#undef XS_LP_NATIVE_ADD
#undef XS_LP_FMT
#undef XS_LP_STORE_S
#undef XS_LP_LOAD_S
#undef XS_LP_S

/* float64: the Kahan sum only, in plain double additions (each one is
 * correctly rounded already). */
#define XS_LP_S float64
#define XS_LP_U float64
#define XS_LP_LOAD_S xs_lp_load_float64
#define XS_LP_LOAD_U xs_lp_load_float64
#define XS_LP_STORE_S xs_lp_store_float64
#define XS_LP_EMIT_PAIR 0
#define XS_LP_EMIT_SUM 1
#define XS_LP_NATIVE_ADD 1
#include "xs_lowprec_template.h"
