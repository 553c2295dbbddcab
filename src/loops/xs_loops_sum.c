/* The sum, mean, prefix-sum and state loops of every input dtype:
 * xs_loops_template.h instantiated for every dtype of the table
 * (xs_each_dtype.h). */
#include "loops/xs_loops_common.h"

#include <fenv.h>
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
