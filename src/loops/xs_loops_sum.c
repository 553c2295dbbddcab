/* The sum, mean, prefix-sum and state loops of every input dtype:
 * xs_loops_template.h instantiated for every dtype of the table
 * (xs_each_dtype.h). */
#include "loops/xs_loops_common.h"

#include <fenv.h>
#include <float.h>
#include <stdlib.h>

#include "cpu/xs_cpu.h"
#include "exact/xs_large.h"
#include "exact/xs_running.h"
#include "kernels/cells/xs_cells.h"
#include "kernels/cells/xs_columns.h"
#include "kernels/dot/xs_short_row.h"
#include "runtime/xs_interrupt.h"
#include "runtime/xs_threads.h"

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

/* One instance per dtype of the table (xs_each_dtype.h). */
#define XS_EACH "loops/xs_loops_template.h"
#include "loops/xs_each_dtype.h"

/* The exact sum of `length` >= 1 terms rounded once into the target's
 * format (float64 or float32, the terms' own).  One term is its own sum; two
 * float64 terms are one IEEE addition, correctly rounded in the pinned
 * round-to-nearest mode (x + -x is +0.0, -0.0 + -0.0 is -0.0, as the exact
 * rules say); longer segments go through the small accumulator, whose
 * set-up and rounding would dominate the short ones.  A non-finite result
 * is only reported (see xs_segment_sums), so the shortcuts' IEEE specials
 * need not match. */
static double short_segment_sum(const char *p, npy_intp stride, npy_intp length,
                                int is_float32, const xs_target *target)
{
    if (length == 1) {
        return is_float32 ? xs_value_float32(p) : xs_value_float64(p);
    }
#if FLT_EVAL_METHOD == 0           /* doubles added as doubles: one rounding */
    if (length == 2 && !is_float32) {
        return xs_value_float64(p) + xs_value_float64(p + stride);
    }
#endif
    xs_small acc;
    xs_small_init(&acc);
    for (npy_intp j = 0; j < length; j++, p += stride) {
        xs_small_add_bits(&acc, is_float32 ? xs_load_float32(p) : xs_load_float64(p));
    }
    return xs_small_round(&acc, target->format);
}

/* exact_add.reduceat's small calls: the exact sums of k segments of n
 * float64 (is_float32: float32) values, element j at values + j * stride,
 * each rounded once into the input's format and stored at out (k values of
 * that format, contiguous).  Segment i is [indices[i], indices[i+1]) when
 * indices[i] < indices[i+1], else the one element indices[i]; the last runs
 * to n (NumPy's rule).  Returns the position of the first index outside
 * [0, n) (nothing written; the caller raises), else -1 when every result is
 * finite, else k: a result is Inf or NaN, whose warning the caller's general
 * path gives (xs_round_fixed raised its flag, as documented there).  Every
 * term goes through the small accumulator, so callers keep this to short
 * segments. */
npy_intp xs_segment_sums(const char *values, npy_intp n, npy_intp stride, int is_float32,
                         const npy_intp *indices, npy_intp k, char *out)
{
    for (npy_intp i = 0; i < k; i++) {
        if (indices[i] < 0 || indices[i] >= n) {
            return i;
        }
    }
    const xs_target *target = is_float32 ? &xs_target_float32 : &xs_target_float64;
    size_t width = is_float32 ? sizeof(float) : sizeof(double);
    int finite = 1;
    for (npy_intp i = 0; i < k; i++) {
        npy_intp start = indices[i];
        npy_intp following = i + 1 < k ? indices[i + 1] : n;
        npy_intp stop = start < following ? following : start + 1;
        const char *p = values + start * stride;
        double rounded = short_segment_sum(p, stride, stop - start, is_float32, target);
        finite &= isfinite(rounded) != 0;
        XS_STORE(target, out + i * (npy_intp)width, rounded);
    }
    return finite ? -1 : k;
}
