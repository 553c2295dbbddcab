/*
 * Byte-coded floating-point formats: ml_dtypes' float8, float6 and float4
 * types, one value per byte.
 *
 * The C side knows nothing of their bit layouts.  At import the Cython
 * module fills one slot per format from ml_dtypes itself: the value of each
 * of the 256 codes (the decode table), the codes ml_dtypes' own conversion
 * gives +-0, +-Inf and NaN, and the format's grid (precision, emin, emax).
 *
 * - Reading: an element's value is decode_bits[code], a float64 bit pattern
 *   (every value of these formats is a float64 value, exactly).
 * - Summing a row: contiguous rows of 64 codes or more go through the
 *   fixed-point form (xs_codes_fixed.c): each finite value is an integer k
 *   times the format's smallest step, so 64 codes at a time are looked up
 *   as bytes of k + bias (AVX-512 VBMI permutes) and added as integers, no
 *   store per element.  Elsewhere (strided rows, CPUs without VBMI,
 *   XSUMUFUNC_KERNEL=generic/sse2/avx2, blocks with a NaN or Inf code or a
 *   zero sum): count the codes (a histogram, 256 counters), then add
 *   count * value for each code present, exactly: n loads become 256
 *   exact multiply-adds (Neal's small accumulator takes a count directly).
 *   Short rows (under XS_CODE_COUNT_MIN_TERMS) are added value by value.
 * - Storing a result: the exact value is rounded once onto the format's
 *   grid (to nearest, ties to even, subnormals included; xs_round.c), then
 *   looked up among the format's finite values.  What lies beyond the
 *   largest finite value becomes the code ml_dtypes gives +-Inf: Inf
 *   (e5m2, e4m3, e3m4), NaN (the fn and fnuz kinds) or the largest finite
 *   value (float6/float4, which have neither: OCP MX saturation), with the
 *   overflow flag raised so that NumPy warns.  A NaN result in a format
 *   without NaN (float6/float4) raises the invalid flag (NumPy warns, as it
 *   does when it casts NaN to an integer).  -0 becomes +0 in formats
 *   without a negative zero (fnuz).
 */
#ifndef XS_CODES_H
#define XS_CODES_H

#include <stddef.h>
#include <stdint.h>

#include "exact/xs_small.h"
#include "exact/xs_types.h"
#include "kernels/codes/xs_code_format.h"

extern xs_code_format xs_code_formats[XS_CODE_SLOTS];

/*
 * Fill `slot` (called at import, with the GIL).  values[c]: the value of
 * code c.  encodable[c] != 0 for the codes a conversion produces (one code
 * per value; not the alternative NaN or invalid codes).  zero/inf codes:
 * what the format's conversion gives +0, -0, +Inf, -Inf and NaN.
 * precision, emin, emax: the grid (p significant bits, normal exponents
 * emin..emax).  Returns 0, or -1 for a slot or table it cannot take.
 */
int xs_code_format_init(int slot, const double *values, const unsigned char *encodable,
                        const unsigned char *special_codes, int precision, int emin, int emax);

/* The rounding target of a slot (data for the loops that round into it). */
const xs_target *xs_code_target(int slot);

/* Count the codes of n bytes, stride bytes apart, into counts[256]. */
void xs_code_histogram(uint64_t counts[256], const char *p, ptrdiff_t n, ptrdiff_t stride);

/* Add n elements of format f exactly into acc by counting them: a
 * histogram, then one exact multiply-add per code present. */
void xs_code_count(const xs_code_format *f, xs_small *acc, const char *p, ptrdiff_t n,
                   ptrdiff_t stride);

/* Add n elements of format `slot` exactly into acc: contiguous rows through
 * the fixed-point form where it is available, else by counting them. */
void xs_code_accumulate(int slot, xs_small *acc, const char *p, ptrdiff_t n,
                        ptrdiff_t stride);

/* The float64 bit pattern of the element at p. */
static inline uint64_t xs_load_code(int slot, const char *p)
{
    return xs_code_formats[slot].decode_bits[*(const unsigned char *)p];
}

#endif
