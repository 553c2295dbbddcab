/*
 * The (storage S, update U) pairs of the low-precision loops, held once
 * (no include guard: included once per use).  Define XS_LP_EACH as the
 * header to include for every pair, then include this file: that header
 * sees the pair as XS_LP_S and XS_LP_U (dtype names).  A pair whose U is S
 * also stands for S's kahan_sum; (float64, float64) stands for that alone.
 * xs_lowprec.h declares the loops and xs_lowprec.c instantiates its
 * template through it.
 */
#ifndef XS_LP_EACH
#error "define XS_LP_EACH as the header to include for each pair"
#endif

#define XS_LP_S bfloat16
#define XS_LP_U bfloat16
#include XS_LP_EACH
#undef XS_LP_U
#undef XS_LP_S
#define XS_LP_S bfloat16
#define XS_LP_U float32
#include XS_LP_EACH
#undef XS_LP_U
#undef XS_LP_S
#define XS_LP_S bfloat16
#define XS_LP_U float64
#include XS_LP_EACH
#undef XS_LP_U
#undef XS_LP_S
#define XS_LP_S float16
#define XS_LP_U float16
#include XS_LP_EACH
#undef XS_LP_U
#undef XS_LP_S
#define XS_LP_S float16
#define XS_LP_U float32
#include XS_LP_EACH
#undef XS_LP_U
#undef XS_LP_S
#define XS_LP_S float16
#define XS_LP_U float64
#include XS_LP_EACH
#undef XS_LP_U
#undef XS_LP_S
#define XS_LP_S float32
#define XS_LP_U float32
#include XS_LP_EACH
#undef XS_LP_U
#undef XS_LP_S
#define XS_LP_S float32
#define XS_LP_U float64
#include XS_LP_EACH
#undef XS_LP_U
#undef XS_LP_S
#define XS_LP_S float64
#define XS_LP_U float64
#include XS_LP_EACH
#undef XS_LP_U
#undef XS_LP_S

#undef XS_LP_EACH
