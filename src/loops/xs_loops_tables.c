/* The result targets and the tables the Cython module registers the loops
 * from (xs_loops.h). */
#include <stdint.h>
#include <string.h>

#include "exact/xs_types.h"
#include "kernels/codes/xs_codes.h"
#include "loops/xs_loops.h"

/* ---- result targets ----------------------------------------------------- */

/* The target of a built-in dtype: its format and its store (xs_types.h). */
#define XS_BUILTIN_TARGET(T) \
    static void store_##T(char *p, double x, const xs_target *self) \
    { \
        (void)self; \
        xs_store_##T(p, x); \
    } \
    const xs_target xs_target_##T = {&xs_format_##T, store_##T, NULL};

XS_BUILTIN_TARGET(float64)
XS_BUILTIN_TARGET(float32)
XS_BUILTIN_TARGET(float16)
XS_BUILTIN_TARGET(bfloat16)
#undef XS_BUILTIN_TARGET

/* ---- tables read by the Cython module that registers the loops ---------- */

#define XS_INPUT_ROW(IN) \
    {#IN, xs_sum_##IN, xs_mean_##IN, xs_cumsum_##IN, xs_sum_state_##IN, xs_masked_state_##IN},
const xs_input_loops xs_input_loops_table[] = {
#define XS_EACH_APPLY XS_INPUT_ROW
#define XS_EACH_WHEN 1
#define XS_EACH "loops/xs_each_apply.h"
#include "loops/xs_each_dtype.h"
#undef XS_EACH_WHEN
#undef XS_EACH_APPLY
};
#undef XS_INPUT_ROW
const int xs_input_loops_count =
    (int)(sizeof xs_input_loops_table / sizeof xs_input_loops_table[0]);

#define XS_DOT_ROW(IN) {#IN, xs_dot_##IN, xs_dot_state_##IN},
const xs_dot_loops xs_dot_loops_table[] = {
#define XS_EACH_APPLY XS_DOT_ROW
#define XS_EACH_WHEN XS_TRAIT(dot) != XS_DOT_KIND_NONE
#define XS_EACH "loops/xs_each_apply.h"
#include "loops/xs_each_dtype.h"
#undef XS_EACH_WHEN
#undef XS_EACH_APPLY
};
#undef XS_DOT_ROW
const int xs_dot_loops_count = (int)(sizeof xs_dot_loops_table / sizeof xs_dot_loops_table[0]);

/* Every code slot has its dtype row. */
#define XS_COUNT_ONE(IN) +1
enum {
    XS_CODE_ROWS = 0
#define XS_EACH_APPLY XS_COUNT_ONE
#define XS_EACH_WHEN XS_TRAIT(slot) >= 0
#define XS_EACH "loops/xs_each_apply.h"
#include "loops/xs_each_dtype.h"
#undef XS_EACH_WHEN
#undef XS_EACH_APPLY
};
#undef XS_COUNT_ONE
_Static_assert(XS_CODE_ROWS == XS_CODE_SLOTS, "one dtype row per code slot");

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
