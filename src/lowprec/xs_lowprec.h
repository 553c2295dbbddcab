/*
 * Element-wise low-precision updates (issue #7): Kahan-compensated adds and
 * stochastic rounding into bfloat16/float16/float32, plus a compensated
 * (not exact) Kahan sum.  Every loop has NumPy's PyUFuncGenericFunction
 * signature; xsumufunc/_lowprec_ufuncs.pyx registers them.  Names:
 *
 *   xs_lp_kahan_add_S_U        w(S), c(S), u(U) -> w(S), c(S)
 *   xs_lp_stochastic_add_S_U_B w(S), u(U), bits(B) -> w(S)
 *   xs_lp_stochastic_round_S_U_B  x(U), bits(B) -> x rounded into S, stored
 *                              as S's bit pattern (uint16 for 16-bit S)
 *   xs_lp_kahan_sum_S          (n)->(): Kahan summation, every operation
 *                              rounded to nearest in S
 *
 * S: storage dtype (bfloat16, float16, float32; float64 for kahan_sum only),
 * U: update/input dtype, B: random bits, u16 or u32.
 * Conventions (sign of c, how bits decide) are in docs/lowprec.md.
 */
#ifndef XS_LOWPREC_H
#define XS_LOWPREC_H

#include <numpy/npy_common.h>

#define XS_LP_DECLARE(name) \
    void name(char **args, const npy_intp *dimensions, const npy_intp *steps, void *data);

#define XS_LP_DECLARE_PAIR(S, U) \
    XS_LP_DECLARE(xs_lp_kahan_add_##S##_##U) \
    XS_LP_DECLARE(xs_lp_stochastic_add_##S##_##U##_u16) \
    XS_LP_DECLARE(xs_lp_stochastic_add_##S##_##U##_u32) \
    XS_LP_DECLARE(xs_lp_stochastic_round_##S##_##U##_u16) \
    XS_LP_DECLARE(xs_lp_stochastic_round_##S##_##U##_u32)

/* Each format's number, so that the pair's two can be compared in #if. */
#define XS_LP_ID_bfloat16 1
#define XS_LP_ID_float16 2
#define XS_LP_ID_float32 3
#define XS_LP_ID_float64 4
#define XS_LP_ID_(T) XS_LP_ID_##T
#define XS_LP_ID(T) XS_LP_ID_(T)
/* What a pair of xs_lowprec_each.h stands for: the update loops (S not
 * float64), S's kahan_sum (U = S). */
#define XS_LP_HAS_PAIR (XS_LP_ID(XS_LP_S) != XS_LP_ID_float64)
#define XS_LP_HAS_SUM (XS_LP_ID(XS_LP_S) == XS_LP_ID(XS_LP_U))
/* NAME(S, U) with S and U expanded first. */
#define XS_LP_WITH_PAIR(NAME, S, U) NAME(S, U)
#define XS_LP_DECLARE_SUM(S, U) XS_LP_DECLARE(xs_lp_kahan_sum_##S)

#define XS_LP_EACH "lowprec/xs_lowprec_declare.h"
#include "lowprec/xs_lowprec_each.h"

#endif
