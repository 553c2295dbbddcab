/*
 * The gufunc inner loops, one per input dtype and kind of result.  They
 * have NumPy's PyUFuncGenericFunction signature; the Cython module registers
 * them.  `data` is the xs_target to round into (NULL for state results).
 * IN is a dtype name, or codeK: the byte-coded format in slot K
 * (xs_codes.h; the Cython module binds slots to ml_dtypes dtypes).
 *
 *   xs_sum_IN        (n)->()    exact sum, rounded once into the target
 *   xs_mean_IN       (n)->()    exact sum / n, rounded once
 *   xs_cumsum_IN     (n)->(n)   every prefix sum, each rounded once
 *   xs_sum_state_IN  (n)->(69)  exact sum as a portable int64 state (XS_STATE_LEN)
 *   xs_masked_state_IN (n),(n),()->(69),()  state and count of the terms whose
 *                    mask is set (and that are not NaN, when asked)
 *   xs_state_merge   (m,69)->(69)
 *   xs_state_round   (69)->()
 *   xs_state_mean    (69),()->()   state / int64 count, rounded once
 *   xs_dot_IN        (n),(n)->()  exact dot product, rounded once (float inputs)
 *   xs_dot_state_IN  (n),(n)->(207)  the exact dot product as three states:
 *                    the ordinary products, the products below 2^-1074 times
 *                    2^1088, the overflowing ones times 2^-1088 (xs_dot.h);
 *                    merged part by part like any state
 *   xs_dot_state_round (207)->()  such a state rounded once
 */
#ifndef XS_LOOPS_H
#define XS_LOOPS_H

#include <numpy/npy_common.h>

#include "exact/xs_types.h"

#define XS_DECLARE_LOOP(name) \
    void name(char **args, const npy_intp *dimensions, const npy_intp *steps, void *data);

#define XS_DECLARE_INPUT_LOOPS(IN) \
    XS_DECLARE_LOOP(xs_sum_##IN) \
    XS_DECLARE_LOOP(xs_mean_##IN) \
    XS_DECLARE_LOOP(xs_cumsum_##IN) \
    XS_DECLARE_LOOP(xs_sum_state_##IN) \
    XS_DECLARE_LOOP(xs_masked_state_##IN)

#define XS_EACH_APPLY XS_DECLARE_INPUT_LOOPS
#define XS_EACH_WHEN 1
#define XS_EACH "loops/xs_each_apply.h"
#include "loops/xs_each_dtype.h"
#undef XS_EACH_WHEN
#undef XS_EACH_APPLY
XS_DECLARE_LOOP(xs_state_merge)
XS_DECLARE_LOOP(xs_state_round)
XS_DECLARE_LOOP(xs_state_mean)
#define XS_DECLARE_DOT_LOOPS(IN) \
    XS_DECLARE_LOOP(xs_dot_##IN) \
    XS_DECLARE_LOOP(xs_dot_state_##IN)
#define XS_EACH_APPLY XS_DECLARE_DOT_LOOPS
#define XS_EACH_WHEN XS_TRAIT(dot) != XS_DOT_KIND_NONE
#define XS_EACH "loops/xs_each_apply.h"
#include "loops/xs_each_dtype.h"
#undef XS_EACH_WHEN
#undef XS_EACH_APPLY
XS_DECLARE_LOOP(xs_dot_state_round)

/* Checks and canonical form of n states given as rows (row r at base +
 * r * row_step, word j of it j * word_step further on), for the Python
 * layer's small calls (xs_loops_state.c says what each one does). */
npy_intp xs_states_first_invalid(const char *base, npy_intp n, npy_intp row_step,
                                 npy_intp word_step, int64_t top_limit);
int64_t xs_states_canonicalize(char *base, npy_intp n, npy_intp row_step,
                               npy_intp word_step);
/* Exact, once-rounded sums of short segments of float64/float32 values
 * (exact_add.reduceat's small calls; xs_loops_sum.c). */
npy_intp xs_segment_sums(const char *values, npy_intp n, npy_intp stride, int is_float32,
                         const npy_intp *indices, npy_intp k, char *out);

/* Tables for the registration code: loops by input dtype name, targets by
 * result dtype name (NumPy's dtype names; "bfloat16" is ml_dtypes'). */
typedef void (*xs_loop_fn)(char **, const npy_intp *, const npy_intp *, void *);
typedef struct {
    const char *dtype_name;
    xs_loop_fn sum, mean, cumsum, sum_state, masked_state;
} xs_input_loops;
typedef struct {
    const char *dtype_name;
    const xs_target *target;
} xs_named_target;

extern const xs_input_loops xs_input_loops_table[];
extern const int xs_input_loops_count;
/* Dot loops by dtype name: both inputs of that dtype. */
typedef struct {
    const char *dtype_name;
    xs_loop_fn dot, dot_state;
} xs_dot_loops;
extern const xs_dot_loops xs_dot_loops_table[];
extern const int xs_dot_loops_count;
extern const xs_named_target xs_targets_table[];
extern const int xs_targets_count;
/* Registration arrays handed to NumPy live as long as the process: the
 * registration code passes each through here (returns p), so that memory
 * checkers still see a pointer to them after NumPy frees its ufuncs at
 * interpreter exit.  NULL in, NULL out. */
void *xs_keep_registration_array(void *p);
/* Room for every registration array (about 6 per loop registered). */
#define XS_REGISTRATION_MAX 16384

#endif
