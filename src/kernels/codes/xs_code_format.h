/*
 * The table of one byte-coded format (xs_codes.h describes the formats):
 * its decode table, its encoding, and the two integer forms the fixed-point
 * sums use (xs_codes_fixed.h).  Both halves of the codes family include
 * this; neither includes the other's header but through it.
 */
#ifndef XS_CODE_FORMAT_H
#define XS_CODE_FORMAT_H

#include <stdint.h>

#include "exact/xs_round.h"
#include "exact/xs_types.h"

/* Bytes of the fixed-point form's integers, at most (xs_codes_fixed.c). */
#define XS_CODE_FIXED_PLANES 6
/* Bytes of the signed form's magnitudes, at most (e5m2fnuz's reach 2^33). */
#define XS_CODE_SIGNED_PLANES 5

/* Formats the import may register (ml_dtypes 0.5 has ten that hold values). */
#define XS_CODE_SLOTS 10

typedef struct {
    uint64_t decode_bits[256];   /* float64 bit pattern of each code's value */
    /* Encoding: the nonzero finite values, ascending, and their codes. */
    int nfinite;
    double finite[256];
    uint8_t finite_code[256];
    uint8_t zero_code[2];        /* +0, -0 (the same when there is no -0) */
    uint8_t inf_code[2];         /* +Inf, -Inf: also what overflow becomes */
    uint8_t nan_code;
    int inf_is_inf;              /* inf_code really is an infinity */
    int nan_is_nan;              /* nan_code really is a NaN */
    double max;                  /* largest finite value */
    xs_format format;
    xs_target target;
    /* The fixed-point form (xs_codes_fixed.c): every finite value is
     * k 2^fixed_exp, and u = k + fixed_bias >= 0; fixed_plane[j][c] is byte
     * j of code c's u (the top plane's top bit flags NaN and Inf codes).
     * fixed_planes: bytes per u, 0 when the format is too wide for it. */
    int fixed_planes;
    int fixed_exp;
    uint64_t fixed_bias;
    uint8_t fixed_plane[XS_CODE_FIXED_PLANES][256];
    /* The signed form, for formats whose codes c and c + 128 are opposite
     * values (all float8 formats): signed_plane[j][c] is byte j of |k| of
     * code c < 128; signed_special[c] = 1 for NaN and Inf codes;
     * signed_nan128: code 128 is NaN (fnuz).  signed_planes: 0 when the
     * format is not symmetric. */
    int signed_planes;
    int signed_nan128;
    uint8_t signed_plane[XS_CODE_SIGNED_PLANES][128];
    uint8_t signed_special[128];
} xs_code_format;

#endif
