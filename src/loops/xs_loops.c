/* The gufunc inner loops: the per-dtype template instantiated for every
 * input dtype, plus the loops on portable states. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <fenv.h>
#include <stdlib.h>
#include <stdint.h>

#include "exact/xs_dot.h"
#include "kernels/dot/xs_dot_cells.h"
#include "kernels/dot/xs_dot_squares.h"
#include "runtime/xs_interrupt.h"
#include "exact/xs_large.h"
#include "kernels/codes/xs_codes.h"
#include "kernels/cells/xs_columns.h"
#include "loops/xs_loops.h"
#include "exact/xs_running.h"
#include "kernels/dot/xs_short_row.h"
#include "runtime/xs_threads.h"
#include "kernels/cells/xs_cells.h"
#include "cpu/xs_cpu.h"

/* Below this many terms a row uses the small accumulator only: the large
 * one has a fixed cost per row (its final sweep and merge).  Measured on
 * float64 rows: equal speed near 128 terms, large 1.4x faster at 256. */
#define XS_LARGE_MIN_TERMS 160
/* Release the GIL for loops with at least this many terms (NumPy itself
 * only does so for more than 500 outer iterations). */
#define XS_GIL_RELEASE_MIN_TERMS 4096

static PyThreadState *xs_release_gil_for(npy_intp outer, npy_intp n)
{
    int big = outer >= XS_GIL_RELEASE_MIN_TERMS || n >= XS_GIL_RELEASE_MIN_TERMS ||
              outer * n >= XS_GIL_RELEASE_MIN_TERMS;   /* both < 4096: no overflow */
    if (big && PyGILState_Check()) {
        return PyEval_SaveThread();
    }
    return NULL;
}

static void xs_restore_gil(PyThreadState *saved)
{
    if (saved) {
        PyEval_RestoreThread(saved);
    }
}

/* NumPy's bool is one byte, 0 or 1; any non-zero byte counts as True. */
static inline void xs_small_add_bool(xs_small *acc, unsigned char v)
{
    xs_small_add_uint64(acc, v != 0);
}

/* n copies of an integer, as one exact product. */
static inline void xs_add_signed_times(xs_small *acc, int64_t v, uint64_t n)
{
    uint64_t magnitude = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    xs_small_add_integer_times(acc, magnitude, v < 0, n);
}

static inline void xs_add_unsigned_times(xs_small *acc, uint64_t v, uint64_t n)
{
    xs_small_add_integer_times(acc, v, 0, n);
}

static inline void xs_add_bool_times(xs_small *acc, unsigned char v, uint64_t n)
{
    xs_small_add_integer_times(acc, v != 0, 0, n);
}

static void xs_store_state(xs_small *acc, char *out, npy_intp stride)
{
    int64_t state[XS_STATE_LEN];
    xs_small_to_state(acc, state);
    for (int j = 0; j < XS_STATE_LEN; j++, out += stride) {
        memcpy(out, &state[j], sizeof state[j]);
    }
}

/* ---- result targets ----------------------------------------------------- */

static void store_float64(char *p, double x, const xs_target *self)
{
    (void)self;
    memcpy(p, &x, sizeof x);
}
static void store_float32(char *p, double x, const xs_target *self)
{
    (void)self;
    float f = (float)x;                 /* exact: x is a float32 value */
    memcpy(p, &f, sizeof f);
}
static void store_float16(char *p, double x, const xs_target *self)
{
    (void)self;
    uint16_t h = xs_double_to_half(x);
    memcpy(p, &h, sizeof h);
}
static void store_bfloat16(char *p, double x, const xs_target *self)
{
    (void)self;
    uint16_t b = xs_double_to_bfloat16(x);
    memcpy(p, &b, sizeof b);
}

const xs_target xs_target_float64 = {&xs_format_float64, store_float64, NULL};
const xs_target xs_target_float32 = {&xs_format_float32, store_float32, NULL};
const xs_target xs_target_float16 = {&xs_format_float16, store_float16, NULL};
const xs_target xs_target_bfloat16 = {&xs_format_bfloat16, store_bfloat16, NULL};

/* A reduce_rows_ call: `outer` rows of n elements, row i read from
 * in + i * in_step (elements row_stride apart), its result stored at
 * out + i * out_step. */
typedef struct {
    const char *in;
    char *out;
    npy_intp in_step, out_step, row_stride, n;
    const xs_target *target;
    int divide;               /* 1: means (divide by n), 0: sums */
} xs_rows_job;

/* outer * n, saturated (zero strides allow any sizes). */
static ptrdiff_t xs_terms(npy_intp outer, npy_intp n)
{
    return n != 0 && outer > PTRDIFF_MAX / n ? PTRDIFF_MAX : outer * n;
}

/* ---- the template, once per input dtype --------------------------------- */

#define XS_IN_IS_FLOAT 1
#define XS_IN float64
#define XS_LOAD(p) xs_load_float64(p)
#define XS_CELLS_ADD xs_cells_add_float64
#define XS_CELLS_ROUND xs_cells_round_float64
#define XS_CONTIG_CTYPE double
#define XS_COLUMNS 1
#define XS_LARGE_ADD xs_large_add_float64
#include "loops/xs_loops_template.h"
#undef XS_LARGE_ADD
#undef XS_IN
#undef XS_LOAD
#undef XS_CONTIG_CTYPE
#undef XS_CELLS_ADD
#undef XS_CELLS_ROUND
#undef XS_COLUMNS
#define XS_IN float32
#define XS_LOAD(p) xs_load_float32(p)
#define XS_CELLS_ADD xs_cells_add_float32
#define XS_CELLS_ROUND xs_cells_round_float32
#define XS_CONTIG_CTYPE float
#define XS_COLUMNS 1
#include "loops/xs_loops_template.h"
#undef XS_COLUMNS
#undef XS_IN
#undef XS_LOAD
#undef XS_CONTIG_CTYPE
#undef XS_CELLS_ADD
#undef XS_CELLS_ROUND
#define XS_IN float16
#define XS_LOAD(p) xs_load_float16(p)
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_LOAD
#define XS_IN bfloat16
#define XS_LOAD(p) xs_load_bfloat16(p)
#define XS_CELLS_ADD xs_cells_add_bfloat16
#define XS_CELLS_ROUND xs_cells_round_bfloat16
#define XS_CONTIG_CTYPE uint16_t
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_LOAD
#undef XS_CONTIG_CTYPE
#undef XS_CELLS_ADD
#undef XS_CELLS_ROUND
/* Byte-coded formats (float8/float6/float4), one instance per slot: the
 * Cython module binds each slot to an ml_dtypes dtype at import. */
#define XS_CODE_LOADER(K) \
    static inline uint64_t xs_load_code##K(const char *p) { return xs_load_code(K, p); }
XS_CODE_LOADER(0) XS_CODE_LOADER(1) XS_CODE_LOADER(2) XS_CODE_LOADER(3) XS_CODE_LOADER(4)
XS_CODE_LOADER(5) XS_CODE_LOADER(6) XS_CODE_LOADER(7) XS_CODE_LOADER(8) XS_CODE_LOADER(9)
_Static_assert(XS_CODE_SLOTS == 10, "one template instance per code slot below");
#define XS_IN code0
#define XS_LOAD(p) xs_load_code0(p)
#define XS_CODE_SLOT 0
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_LOAD
#undef XS_CODE_SLOT
#define XS_IN code1
#define XS_LOAD(p) xs_load_code1(p)
#define XS_CODE_SLOT 1
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_LOAD
#undef XS_CODE_SLOT
#define XS_IN code2
#define XS_LOAD(p) xs_load_code2(p)
#define XS_CODE_SLOT 2
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_LOAD
#undef XS_CODE_SLOT
#define XS_IN code3
#define XS_LOAD(p) xs_load_code3(p)
#define XS_CODE_SLOT 3
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_LOAD
#undef XS_CODE_SLOT
#define XS_IN code4
#define XS_LOAD(p) xs_load_code4(p)
#define XS_CODE_SLOT 4
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_LOAD
#undef XS_CODE_SLOT
#define XS_IN code5
#define XS_LOAD(p) xs_load_code5(p)
#define XS_CODE_SLOT 5
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_LOAD
#undef XS_CODE_SLOT
#define XS_IN code6
#define XS_LOAD(p) xs_load_code6(p)
#define XS_CODE_SLOT 6
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_LOAD
#undef XS_CODE_SLOT
#define XS_IN code7
#define XS_LOAD(p) xs_load_code7(p)
#define XS_CODE_SLOT 7
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_LOAD
#undef XS_CODE_SLOT
#define XS_IN code8
#define XS_LOAD(p) xs_load_code8(p)
#define XS_CODE_SLOT 8
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_LOAD
#undef XS_CODE_SLOT
#define XS_IN code9
#define XS_LOAD(p) xs_load_code9(p)
#define XS_CODE_SLOT 9
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_LOAD
#undef XS_CODE_SLOT
#undef XS_IN_IS_FLOAT

/* Integers: loaded as their C type, added as exact 64-bit integers. */
#define XS_IN_IS_FLOAT 0
#define XS_IN bool
#define XS_ADD_INTEGER_TIMES xs_add_bool_times
#define XS_IN_CTYPE unsigned char
#define XS_ADD_INTEGER xs_small_add_bool
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_IN_CTYPE
#undef XS_ADD_INTEGER
#undef XS_ADD_INTEGER_TIMES
#define XS_IN int8
#define XS_ADD_INTEGER_TIMES xs_add_signed_times
#define XS_IN_CTYPE int8_t
#define XS_ADD_INTEGER xs_small_add_int64
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_IN_CTYPE
#undef XS_ADD_INTEGER
#undef XS_ADD_INTEGER_TIMES
#define XS_IN int16
#define XS_ADD_INTEGER_TIMES xs_add_signed_times
#define XS_IN_CTYPE int16_t
#define XS_ADD_INTEGER xs_small_add_int64
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_IN_CTYPE
#undef XS_ADD_INTEGER
#undef XS_ADD_INTEGER_TIMES
#define XS_IN int32
#define XS_ADD_INTEGER_TIMES xs_add_signed_times
#define XS_IN_CTYPE int32_t
#define XS_ADD_INTEGER xs_small_add_int64
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_IN_CTYPE
#undef XS_ADD_INTEGER
#undef XS_ADD_INTEGER_TIMES
#define XS_IN int64
#define XS_ADD_INTEGER_TIMES xs_add_signed_times
#define XS_IN_CTYPE int64_t
#define XS_ADD_INTEGER xs_small_add_int64
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_IN_CTYPE
#undef XS_ADD_INTEGER
#undef XS_ADD_INTEGER_TIMES
#define XS_IN uint8
#define XS_ADD_INTEGER_TIMES xs_add_unsigned_times
#define XS_IN_CTYPE uint8_t
#define XS_ADD_INTEGER xs_small_add_uint64
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_IN_CTYPE
#undef XS_ADD_INTEGER
#undef XS_ADD_INTEGER_TIMES
#define XS_IN uint16
#define XS_ADD_INTEGER_TIMES xs_add_unsigned_times
#define XS_IN_CTYPE uint16_t
#define XS_ADD_INTEGER xs_small_add_uint64
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_IN_CTYPE
#undef XS_ADD_INTEGER
#undef XS_ADD_INTEGER_TIMES
#define XS_IN uint32
#define XS_ADD_INTEGER_TIMES xs_add_unsigned_times
#define XS_IN_CTYPE uint32_t
#define XS_ADD_INTEGER xs_small_add_uint64
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_IN_CTYPE
#undef XS_ADD_INTEGER
#undef XS_ADD_INTEGER_TIMES
#define XS_IN uint64
#define XS_ADD_INTEGER_TIMES xs_add_unsigned_times
#define XS_IN_CTYPE uint64_t
#define XS_ADD_INTEGER xs_small_add_uint64
#include "loops/xs_loops_template.h"
#undef XS_IN
#undef XS_IN_CTYPE
#undef XS_ADD_INTEGER
#undef XS_ADD_INTEGER_TIMES
#undef XS_IN_IS_FLOAT

/* ---- loops on states ----------------------------------------------------- */

/* Read a state; a malformed one becomes NaN rather than a wrong number (the
 * Python layer validates states it is handed before they get here). */
static void xs_load_state(xs_small *acc, const char *in, npy_intp stride)
{
    int64_t state[XS_STATE_LEN];
    for (int j = 0; j < XS_STATE_LEN; j++, in += stride) {
        memcpy(&state[j], in, sizeof state[j]);
    }
    if (xs_small_from_state(acc, state) != 0) {
        xs_small_init(acc);
        acc->flags = XS_HAS_TERM | XS_NOT_NEG_ZERO | XS_NAN;
    }
}

void xs_state_merge(char **args, const npy_intp *dimensions, const npy_intp *steps,
                    void *data)
{
    (void)data;
    npy_intp outer = dimensions[0], m = dimensions[1];
    PyThreadState *gil = xs_release_gil_for(outer, m);
    ptrdiff_t work = 0;
    for (npy_intp i = 0; i < outer && !xs_interrupted_after(&work, m * XS_STATE_LEN); i++) {
        const char *in = args[0] + i * steps[0];
        xs_small acc;
        xs_small_init(&acc);
        /* A block of states at a time: XS_INTERRUPT_BLOCK words. */
        const npy_intp states_per_block = XS_INTERRUPT_BLOCK / XS_STATE_LEN;
        for (npy_intp r0 = 0; r0 < m && !xs_interrupted_at(r0); r0 += states_per_block) {
            npy_intp r1 = m - r0 < states_per_block ? m : r0 + states_per_block;
            for (npy_intp r = r0; r < r1; r++, in += steps[2]) {
                xs_small part;
                xs_load_state(&part, in, steps[3]);
                xs_small_merge_state(&acc, &part);
            }
        }
        if (xs_stopped()) {
            break;
        }
        xs_store_state(&acc, args[1] + i * steps[1], steps[4]);
    }
    xs_restore_gil(gil);
}

void xs_state_round(char **args, const npy_intp *dimensions, const npy_intp *steps,
                    void *data)
{
    const xs_target *target = data;
    npy_intp outer = dimensions[0];
    ptrdiff_t work = 0;
    for (npy_intp i = 0; i < outer && !xs_interrupted_after(&work, XS_STATE_LEN); i++) {
        xs_small acc;
        xs_load_state(&acc, args[0] + i * steps[0], steps[2]);
        XS_STORE(target, args[1] + i * steps[1], xs_small_round(&acc, target->format));
    }
}

void xs_state_mean(char **args, const npy_intp *dimensions, const npy_intp *steps,
                   void *data)
{
    const xs_target *target = data;
    npy_intp outer = dimensions[0];
    ptrdiff_t work = 0;
    for (npy_intp i = 0; i < outer && !xs_interrupted_after(&work, XS_STATE_LEN); i++) {
        xs_small acc;
        int64_t count;
        xs_load_state(&acc, args[0] + i * steps[0], steps[3]);
        memcpy(&count, args[1] + i * steps[1], sizeof count);
        uint64_t divisor = count > 0 ? (uint64_t)count : 0u;     /* 0: NaN */
        XS_STORE(target, args[2] + i * steps[2],
                      xs_small_round_divided(&acc, divisor, target->format));
    }
}

/* A dot product's state: its three accumulators (main, fine, huge: see
 * xs_dot.h) as three states, one after the other. */
static void xs_store_dot_state(xs_dot *acc, char *out, npy_intp stride)
{
    xs_small *parts[3] = {&acc->main, &acc->fine, &acc->huge};
    for (int k = 0; k < 3; k++) {
        xs_store_state(parts[k], out + k * XS_STATE_LEN * stride, stride);
    }
}

/* (3*69)->(): a dot product's state rounded once into the target. */
void xs_dot_state_round(char **args, const npy_intp *dimensions, const npy_intp *steps,
                        void *data)
{
    const xs_target *target = data;
    npy_intp outer = dimensions[0];
    ptrdiff_t work = 0;
    for (npy_intp i = 0; i < outer && !xs_interrupted_after(&work, 3 * XS_STATE_LEN); i++) {
        xs_dot acc;
        xs_small *parts[3] = {&acc.main, &acc.fine, &acc.huge};
        for (int k = 0; k < 3; k++) {
            xs_load_state(parts[k], args[0] + i * steps[0] + k * XS_STATE_LEN * steps[2],
                          steps[2]);
        }
        XS_STORE(target, args[1] + i * steps[1], xs_dot_round(&acc, target->format));
    }
}

/* ---- dot products --------------------------------------------------------- */

/* Products of float32, float16 and bfloat16 values are exact in float64. */
static inline void xs_dot_add_narrow(xs_dot *acc, xs_large *large, double a, double b)
{
    xs_dot_add_main(acc, large, a * b);
}

/* fma() is a library call unless the compiler may assume FMA hardware: on
 * x86-64 the float64 row kernels are also compiled for AVX2 with FMA, and
 * each row takes the copy the level in force allows (src/cpu/xs_cpu.h, so that
 * XSUMUFUNC_KERNEL caps it too).  Both copies perform the same operations:
 * the same bits.  Elsewhere (aarch64 has FMA in its base ISA) one copy. */
#if defined(__GNUC__) || defined(__clang__)
#define XS_DOT_BODY static inline __attribute__((always_inline))
#else
#define XS_DOT_BODY static inline
#endif
#define XS_DOT_SHORT_PARAMS const char *a, const char *b, npy_intp n, npy_intp step_a, \
    npy_intp step_b, const xs_format *fmt, double *out
#define XS_DOT_SHORT_ARGS a, b, n, step_a, step_b, fmt, out
#define XS_DOT_ROW_PARAMS xs_dot *acc, xs_large **large, const char *a, const char *b, \
    npy_intp n, npy_intp step_a, npy_intp step_b
#define XS_DOT_ROW_ARGS acc, large, a, b, n, step_a, step_b
/* One copy of the row kernels of IN. */
#define XS_DOT_ONE_COPY(IN) \
static int xs_dot_short_##IN(XS_DOT_SHORT_PARAMS) \
{ \
    return xs_dot_short_body_##IN(XS_DOT_SHORT_ARGS); \
} \
static void xs_dot_row_##IN(XS_DOT_ROW_PARAMS) \
{ \
    xs_dot_row_body_##IN(XS_DOT_ROW_ARGS); \
}
#ifdef XS_CPU_X86
/* Two copies, FMA and baseline, and the choice between them. */
#define XS_DOT_FMA_COPIES(IN) \
XS_TARGET_AVX2 static int xs_dot_short_fma_##IN(XS_DOT_SHORT_PARAMS) \
{ \
    return xs_dot_short_body_##IN(XS_DOT_SHORT_ARGS); \
} \
XS_TARGET_AVX2 static void xs_dot_row_fma_##IN(XS_DOT_ROW_PARAMS) \
{ \
    xs_dot_row_body_##IN(XS_DOT_ROW_ARGS); \
} \
static int xs_dot_short_##IN(XS_DOT_SHORT_PARAMS) \
{ \
    return xs_cpu_allows(XS_ISA_AVX2) ? xs_dot_short_fma_##IN(XS_DOT_SHORT_ARGS) \
                                      : xs_dot_short_body_##IN(XS_DOT_SHORT_ARGS); \
} \
static void xs_dot_row_##IN(XS_DOT_ROW_PARAMS) \
{ \
    if (xs_cpu_allows(XS_ISA_AVX2)) { \
        xs_dot_row_fma_##IN(XS_DOT_ROW_ARGS); \
    } \
    else { \
        xs_dot_row_body_##IN(XS_DOT_ROW_ARGS); \
    } \
}
#else
#define XS_DOT_FMA_COPIES XS_DOT_ONE_COPY
#endif

/*
 * Rows shorter than the window's minimum (at most XS_DOT_SHORT_MAX products)
 * rounded from a two-double
 * approximation of the exact dot (xs_running.h) when it provably decides
 * them: no accumulators to clear, propagate and round.  Each float64
 * product goes in as p = fl(a*b) and e = fma(a, b, -p), both exact, for
 * products with both factors normal and 2^-969 <= |a*b| < 2^1000: p is then
 * a normal double (no underflow or overflow flag), e is exact, and both lie
 * in the approximation's safe range.  Products of narrow values are exact
 * doubles.  Anything else (zeros excepted: they add nothing), and every
 * row the approximation does not decide (a zero or tiny result, a
 * rounding boundary too close), goes to the accumulators from the start.
 * No step raises a floating-point flag.
 */
#define XS_DOT_SHORT_MAX 1023
/* Products per block of the approximation (two terms each at most). */
#define XS_DOT_SHORT_FOLD 256
_Static_assert(2 * XS_DOT_SHORT_FOLD <= XS_RUNNING_BLOCK,
               "a block of a short dot row's terms fits xs_running_short_fold's bound");
_Static_assert(2 * XS_DOT_SHORT_MAX < 2048, "xs_running_short_add: fewer than 2^11 terms");
/* Biased exponents: ea + eb - 2046 is the exponent of a*b, within one. */
#define XS_DOT_SHORT_MIN_EXPONENTS (2 * 1023 - 969 + 1)
#define XS_DOT_SHORT_MAX_EXPONENTS (2 * 1023 + 998)

/* Adds a*b to the approximation hi + lo (err: see xs_running_of), 1; or 0:
 * this row goes to the accumulators. */
static inline int xs_dot_short_add_narrow(double *hi, double *lo, double *err, double a, double b)
{
    if (!(xs_running_abs(a) <= XS_RUNNING_MAX && xs_running_abs(b) <= XS_RUNNING_MAX)) {
        return 0;                            /* Inf or NaN: no product here */
    }
    xs_running_short_add(hi, lo, err, a * b);    /* exact: at most 2 * 24 bits */
    return 1;
}

static inline int xs_dot_short_add_float64(double *hi, double *lo, double *err, double a,
                                           double b)
{
    unsigned ea = (unsigned)(xs_double_bits(a) >> 52) & 0x7ffu;
    unsigned eb = (unsigned)(xs_double_bits(b) >> 52) & 0x7ffu;
    if (a == 0.0 || b == 0.0) {
        return ea != 0x7ffu && eb != 0x7ffu;      /* a zero product adds nothing */
    }
    if (ea == 0 || eb == 0 || ea + eb < XS_DOT_SHORT_MIN_EXPONENTS
            || ea + eb > XS_DOT_SHORT_MAX_EXPONENTS) {
        return 0;                                  /* also Inf and NaN */
    }
    double p = a * b;
    xs_running_short_add(hi, lo, err, p);
    xs_running_short_add(hi, lo, err, fma(a, b, -p));
    return 1;
}

/* The cells front end, for contiguous float64 rows long enough (returns
 * how many products it added); none for the narrow types. */
#define XS_DOT_TAKES_CELLS(n, step_a, step_b) \
    ((step_a) == 8 && (step_b) == 8 && (n) >= XS_DOT_CELLS_MIN_TERMS && xs_dot_cells_available())
#define XS_DOT_WINDOW_FLOAT64(acc, large, a, b, n, step_a, step_b) \
    ((large) != NULL && XS_DOT_TAKES_CELLS((n), (step_a), (step_b)) \
     ? xs_dot_cells_add((acc), (large), (a), (b), (n)) : 0)
#define XS_DOT_NO_WINDOW(acc, large, a, b, n, step_a, step_b) 0
/* A long contiguous float64 row dotted with itself (the same memory, the
 * same stride): its sum of squares rounded from xs_dot_squares.c's
 * two-double approximation when that decides it (1, *out), else 0. */
#define XS_DOT_TAKES_SQUARES_FLOAT64(n, step_a, step_b) \
    ((step_a) == 8 && (step_b) == 8 && (n) >= XS_DOT_SQUARES_MIN_TERMS)
#define XS_DOT_SQUARES_FLOAT64(a, b, n, fmt, out) \
    ((a) == (b) && xs_dot_squares_round((a), (n), 8, (fmt), (out)))
#define XS_DOT_TAKES_SQUARES_FLOAT32(n, step_a, step_b) \
    ((step_a) == 4 && (step_b) == 4 && (n) >= XS_DOT_SQUARES_MIN_TERMS)
#define XS_DOT_SQUARES_FLOAT32(a, b, n, fmt, out) \
    ((a) == (b) && xs_dot_squares_round((a), (n), 4, (fmt), (out)))
#define XS_DOT_NO_SQUARES(a, b, n, fmt, out) 0
#define XS_DOT_TAKES_NONE(n, step_a, step_b) 0
_Static_assert(XS_DOT_CELLS_MIN_TERMS >= XS_LARGE_MIN_TERMS,
               "rows that take the cells have a large accumulator");

/* A row of products split between threads: each part sums its products
 * into its own exact accumulators, merged afterwards (the same result). */
typedef struct {
    const char *a, *b;
    npy_intp step_a, step_b;
    xs_dot parts[XS_MAX_THREADS];
} xs_dot_job;

#define XS_DOT_LOOP(IN, ADD_PRODUCT, SHORT_ADD, WINDOW, TAKES_WINDOW, TAKES_SQUARES, SQUARES, \
                    COPIES) \
/* A short row's dot rounded into fmt, when the two-double approximation \
 * decides it (1, *out); 0: use the accumulators. */ \
XS_DOT_BODY int xs_dot_short_body_##IN(XS_DOT_SHORT_PARAMS) \
{ \
    double hi = 0.0, lo = 0.0, err = 0.0, bound = 0.0;     /* see xs_running_short_add */ \
    for (npy_intp k = 0; k < n; k++, a += step_a, b += step_b) { \
        double x = xs_bits_double(xs_load_##IN(a)), y = xs_bits_double(xs_load_##IN(b)); \
        if (!SHORT_ADD(&hi, &lo, &err, x, y)) { \
            return 0; \
        } \
        if ((k + 1) % XS_DOT_SHORT_FOLD == 0) { \
            xs_running_short_fold(&hi, &lo, &err, &bound); \
        } \
    } \
    xs_running run = xs_running_of(hi, lo, err, bound); \
    return xs_running_round(&run, fmt, out); \
} \
\
/* Adds the n products of one row exactly into acc (a large accumulator for \
 * long rows is made on first use and kept in *large). */ \
XS_DOT_BODY void xs_dot_row_body_##IN(XS_DOT_ROW_PARAMS) \
{ \
    /* a*b may overflow or underflow on the way (the exact product is \
     * kept all the same): such flags are not the result's, drop them. */ \
    fexcept_t flags_before; \
    fegetexceptflag(&flags_before, FE_ALL_EXCEPT); \
    if (step_a == 0 && step_b == 0 && n > 1) { \
        /* One product n times (broadcast rows): O(log n), not O(n). */ \
        xs_dot one; \
        xs_dot_init(&one); \
        ADD_PRODUCT(&one, NULL, xs_bits_double(xs_load_##IN(a)), \
                    xs_bits_double(xs_load_##IN(b))); \
        xs_dot_add_times(acc, &one, (uint64_t)n); \
        fesetexceptflag(&flags_before, FE_ALL_EXCEPT); \
        return; \
    } \
    xs_large *row_large = n >= XS_LARGE_MIN_TERMS ? xs_large_for_row(large) : NULL; \
    /* Blocks of XS_INTERRUPT_BLOCK products, checking for interrupts in \
     * between; the cells take a block whole, or none of it (too short, no \
     * kernel): then one product at a time. */ \
    for (npy_intp k0 = 0; k0 < n && !xs_interrupted_at(k0); k0 += XS_INTERRUPT_BLOCK) { \
        npy_intp k1 = n - k0 < XS_INTERRUPT_BLOCK ? n : k0 + XS_INTERRUPT_BLOCK; \
        const char *pa = a + k0 * step_a, *pb = b + k0 * step_b; \
        npy_intp k = k0 + WINDOW(acc, row_large, pa, pb, k1 - k0, step_a, step_b); \
        pa = a + k * step_a; \
        pb = b + k * step_b; \
        for (; k < k1; k++, pa += step_a, pb += step_b) { \
            ADD_PRODUCT(acc, row_large, xs_bits_double(xs_load_##IN(pa)), \
                        xs_bits_double(xs_load_##IN(pb))); \
        } \
    } \
    fesetexceptflag(&flags_before, FE_ALL_EXCEPT); \
    if (row_large) { \
        xs_large_flush(row_large); \
        xs_small_merge(&acc->main, &row_large->small); \
    } \
} \
COPIES(IN) \
\
static void xs_dot_part_##IN(void *job_ptr, int part, ptrdiff_t begin, ptrdiff_t end) \
{ \
    xs_dot_job *job = job_ptr; \
    xs_large *large = NULL; \
    xs_dot_init(&job->parts[part]); \
    xs_dot_row_##IN(&job->parts[part], &large, job->a + begin * job->step_a, \
                    job->b + begin * job->step_b, end - begin, job->step_a, job->step_b); \
    xs_large_free(large); \
} \
\
/* The exact dot product of one row into *acc: split between threads when \
 * long (job: NULL, or room for the parts), else by this thread. */ \
static void xs_dot_compute_##IN(xs_dot *acc, xs_large **large, xs_dot_job *job, \
                                const char *a, const char *b, npy_intp n, \
                                npy_intp step_a, npy_intp step_b) \
{ \
    xs_dot_init(acc); \
    int parts = 0; \
    if (job != NULL && (step_a != 0 || step_b != 0)) { \
        *job = (xs_dot_job){.a = a, .b = b, .step_a = step_a, .step_b = step_b}; \
        parts = xs_parallel_ranges(xs_dot_part_##IN, job, n, XS_CELLS_BLOCK, n); \
    } \
    for (int t = 0; t < parts; t++) { \
        xs_dot_merge(acc, &job->parts[t]); \
    } \
    if (parts == 0) { \
        xs_dot_row_##IN(acc, large, a, b, n, step_a, step_b); \
    } \
} \
\
/* Every row's exact dot product: rounded into the target, or (target NULL) \
 * stored as a state. */ \
static void xs_dot_rows_##IN(char **args, const npy_intp *dimensions, const npy_intp *steps, \
                             const xs_target *target) \
{ \
    npy_intp outer = dimensions[0], n = dimensions[1]; \
    PyThreadState *gil = xs_release_gil_for(outer, n); \
    xs_large *large = NULL; \
    xs_dot_job *job = n >= XS_PARALLEL_MIN_TERMS ? malloc(sizeof *job) : NULL; \
    /* Rows the cells take are faster there than in two doubles. */ \
    int short_rows = target != NULL && n <= XS_DOT_SHORT_MAX && \
                     !TAKES_WINDOW(n, steps[3], steps[4]); \
    /* Rows of squares (a row dotted with itself): rarely undecided; tried \
     * first. */ \
    int square_rows = target != NULL && TAKES_SQUARES(n, steps[3], steps[4]); \
    ptrdiff_t work = 0; \
    for (npy_intp i = 0; i < outer && !xs_interrupted_after(&work, n); i++) { \
        double quick; \
        if (square_rows && SQUARES(args[0] + i * steps[0], args[1] + i * steps[1], n, \
                                   target->format, &quick)) { \
            XS_STORE(target, args[2] + i * steps[2], quick); \
            continue; \
        } \
        if (xs_stopped()) { \
            break;                 /* interrupted while trying the squares */ \
        } \
        if (short_rows && xs_dot_short_##IN(args[0] + i * steps[0], args[1] + i * steps[1], \
                                            n, steps[3], steps[4], target->format, &quick)) { \
            XS_STORE(target, args[2] + i * steps[2], quick); \
            continue; \
        } \
        xs_dot acc; \
        xs_dot_compute_##IN(&acc, &large, job, args[0] + i * steps[0], \
                            args[1] + i * steps[1], n, steps[3], steps[4]); \
        if (xs_stopped()) { \
            break;                 /* a part of the row: no result */ \
        } \
        if (target) { \
            XS_STORE(target, args[2] + i * steps[2], xs_dot_round(&acc, target->format)); \
        } \
        else { \
            xs_store_dot_state(&acc, args[2] + i * steps[2], steps[5]); \
        } \
    } \
    free(job); \
    xs_large_free(large); \
    xs_restore_gil(gil); \
} \
\
/* (n),(n)->(): rounded once into the target (data). */ \
void xs_dot_##IN(char **args, const npy_intp *dimensions, const npy_intp *steps, void *data) \
{ \
    xs_dot_rows_##IN(args, dimensions, steps, data); \
} \
\
/* (n),(n)->(3*69): the exact dot product as three states (see xs_loops.h). */ \
void xs_dot_state_##IN(char **args, const npy_intp *dimensions, const npy_intp *steps, \
                       void *data) \
{ \
    (void)data; \
    xs_dot_rows_##IN(args, dimensions, steps, NULL); \
}

XS_DOT_LOOP(float64, xs_dot_add_float64, xs_dot_short_add_float64, XS_DOT_WINDOW_FLOAT64,
            XS_DOT_TAKES_CELLS, XS_DOT_TAKES_SQUARES_FLOAT64, XS_DOT_SQUARES_FLOAT64, XS_DOT_FMA_COPIES)
XS_DOT_LOOP(float32, xs_dot_add_narrow, xs_dot_short_add_narrow, XS_DOT_NO_WINDOW, XS_DOT_TAKES_NONE, \
            XS_DOT_TAKES_SQUARES_FLOAT32, XS_DOT_SQUARES_FLOAT32, XS_DOT_ONE_COPY)
XS_DOT_LOOP(float16, xs_dot_add_narrow, xs_dot_short_add_narrow, XS_DOT_NO_WINDOW, XS_DOT_TAKES_NONE, \
            XS_DOT_TAKES_NONE, XS_DOT_NO_SQUARES, XS_DOT_ONE_COPY)
XS_DOT_LOOP(bfloat16, xs_dot_add_narrow, xs_dot_short_add_narrow, XS_DOT_NO_WINDOW, XS_DOT_TAKES_NONE, \
            XS_DOT_TAKES_NONE, XS_DOT_NO_SQUARES, XS_DOT_ONE_COPY)
/* Byte-coded formats: every value is a float32 value, products exact. */
#define XS_CODE_DOT_LOOP(K) \
    XS_DOT_LOOP(code##K, xs_dot_add_narrow, xs_dot_short_add_narrow, XS_DOT_NO_WINDOW, XS_DOT_TAKES_NONE, \
            XS_DOT_TAKES_NONE, XS_DOT_NO_SQUARES, XS_DOT_ONE_COPY)
XS_CODE_DOT_LOOP(0) XS_CODE_DOT_LOOP(1) XS_CODE_DOT_LOOP(2) XS_CODE_DOT_LOOP(3)
XS_CODE_DOT_LOOP(4) XS_CODE_DOT_LOOP(5) XS_CODE_DOT_LOOP(6) XS_CODE_DOT_LOOP(7)
XS_CODE_DOT_LOOP(8) XS_CODE_DOT_LOOP(9)

/* ---- tables read by the Cython module that registers the loops ---------- */

#define XS_INPUT_ROW(IN) \
    {#IN, xs_sum_##IN, xs_mean_##IN, xs_cumsum_##IN, xs_sum_state_##IN, xs_masked_state_##IN}

const xs_input_loops xs_input_loops_table[] = {
    XS_INPUT_ROW(float64), XS_INPUT_ROW(float32), XS_INPUT_ROW(float16),
    XS_INPUT_ROW(bfloat16), XS_INPUT_ROW(bool),
    XS_INPUT_ROW(int8), XS_INPUT_ROW(uint8), XS_INPUT_ROW(int16), XS_INPUT_ROW(uint16),
    XS_INPUT_ROW(int32), XS_INPUT_ROW(uint32), XS_INPUT_ROW(int64), XS_INPUT_ROW(uint64),
    XS_INPUT_ROW(code0), XS_INPUT_ROW(code1), XS_INPUT_ROW(code2), XS_INPUT_ROW(code3),
    XS_INPUT_ROW(code4), XS_INPUT_ROW(code5), XS_INPUT_ROW(code6), XS_INPUT_ROW(code7),
    XS_INPUT_ROW(code8), XS_INPUT_ROW(code9),
};
const int xs_input_loops_count =
    (int)(sizeof xs_input_loops_table / sizeof xs_input_loops_table[0]);

const xs_dot_loops xs_dot_loops_table[] = {
    {"float64", xs_dot_float64, xs_dot_state_float64},
    {"float32", xs_dot_float32, xs_dot_state_float32},
    {"float16", xs_dot_float16, xs_dot_state_float16},
    {"bfloat16", xs_dot_bfloat16, xs_dot_state_bfloat16},
    {"code0", xs_dot_code0, xs_dot_state_code0},
    {"code1", xs_dot_code1, xs_dot_state_code1},
    {"code2", xs_dot_code2, xs_dot_state_code2},
    {"code3", xs_dot_code3, xs_dot_state_code3},
    {"code4", xs_dot_code4, xs_dot_state_code4},
    {"code5", xs_dot_code5, xs_dot_state_code5},
    {"code6", xs_dot_code6, xs_dot_state_code6},
    {"code7", xs_dot_code7, xs_dot_state_code7},
    {"code8", xs_dot_code8, xs_dot_state_code8},
    {"code9", xs_dot_code9, xs_dot_state_code9},
};
const int xs_dot_loops_count = (int)(sizeof xs_dot_loops_table / sizeof xs_dot_loops_table[0]);

const xs_named_target xs_targets_table[] = {
    {"float64", &xs_target_float64}, {"float32", &xs_target_float32},
    {"float16", &xs_target_float16}, {"bfloat16", &xs_target_bfloat16},
};
const int xs_targets_count = (int)(sizeof xs_targets_table / sizeof xs_targets_table[0]);

/* External linkage: stores to it cannot be optimised away. */
void *xs_registration_arrays[XS_REGISTRATION_MAX];
int xs_registration_count = 0;

void *xs_keep_registration_array(void *p)
{
    /* Called at import only, with the GIL held. */
    if (p != NULL && xs_registration_count < XS_REGISTRATION_MAX) {
        xs_registration_arrays[xs_registration_count++] = p;
    }
    return p;
}
