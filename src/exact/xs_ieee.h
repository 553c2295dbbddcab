/*
 * The IEEE 754 bit fields of the formats we read and write, named once.
 *
 * A binary floating-point pattern is, from the top bit down: the sign (1
 * bit), the biased exponent field (E bits) and the fraction (F bits).  A
 * field of all ones is Inf (fraction 0) or NaN; a field of 0 is zero or a
 * subnormal, fraction * 2^(1 - bias - F); any other field e is a normal,
 * (2^F + fraction) * 2^(e - bias - F): the leading 1 of the significand is
 * implicit.  So a double's value needs only these constants, as in Neal's
 * xsum (arXiv:1505.05571): a shift by the fraction width takes the exponent
 * field down, the mask keeps it, and the bias turns it into the exponent.
 */
#ifndef XS_IEEE_H
#define XS_IEEE_H

#include <stdint.h>

/* ---- float64 (binary64): 1 sign, 11 exponent, 52 fraction bits ----------- */

/* Fraction ("mantissa", as in Neal's xsum) bits stored; the significand has
 * one more, the implicit bit. */
#define XS_F64_MANT_BITS 52
/* The exponent field taken down to bit 0 (bits >> XS_F64_MANT_BITS,
 * sign masked off): all ones is Inf or NaN. */
#define XS_F64_EXP_MASK 0x7ffu
/* Biased exponent field e of a normal: the value's exponent is e - bias. */
#define XS_F64_EXP_BIAS 1023
/* The sign bit, the top one. */
#define XS_F64_SIGN_BIT ((uint64_t)1 << 63)
/* The fraction, the low 52 bits. */
#define XS_F64_MANT_MASK (((uint64_t)1 << XS_F64_MANT_BITS) - 1)
/* The implicit leading bit of a normal's significand, made explicit. */
#define XS_F64_IMPLICIT_BIT ((uint64_t)1 << XS_F64_MANT_BITS)
/* The pattern of +Inf: the exponent field all ones, fraction 0.  A larger
 * magnitude pattern is a NaN. */
#define XS_F64_INF_BITS ((uint64_t)XS_F64_EXP_MASK << XS_F64_MANT_BITS)

/* ---- float32 (binary32): 1 sign, 8 exponent, 23 fraction bits ------------ */

#define XS_F32_MANT_BITS 23
#define XS_F32_EXP_MASK 0xffu
#define XS_F32_EXP_BIAS 127

/* ---- bfloat16: the top half of a float32 (1 sign, 8 exponent, 7 fraction) - */

#define XS_BF16_MANT_BITS 7
#define XS_BF16_EXP_MASK 0xffu
#define XS_BF16_EXP_BIAS 127

/* ---- float16 (binary16): 1 sign, 5 exponent, 10 fraction bits ------------ */

#define XS_F16_MANT_BITS 10
#define XS_F16_EXP_MASK 0x1fu
#define XS_F16_EXP_BIAS 15
#define XS_F16_SIGN_BIT 0x8000u
#define XS_F16_MANT_MASK 0x3ffu

#endif
