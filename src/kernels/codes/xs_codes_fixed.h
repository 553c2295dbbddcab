/*
 * The fixed-point form of a byte-coded format's sums (xs_codes.h describes
 * the path): each finite value is an integer k times the format's smallest
 * step, so blocks of 64 contiguous codes are summed as integers.  Used by
 * xs_codes.c only; it knows nothing of the counting path, which its caller
 * takes for the blocks this form refuses.
 */
#ifndef XS_CODES_FIXED_H
#define XS_CODES_FIXED_H

#include <stddef.h>

#include "exact/xs_small.h"
#include "kernels/codes/xs_code_format.h"

/* Fill f's fixed-point form from its decode table. */
void xs_code_fixed_init(xs_code_format *f);

/* Add the first elements of n contiguous codes exactly into acc through the
 * fixed-point form, 64 at a time, until the end or the first block it
 * refuses (a NaN or Inf code, or a block whose sum is 0: the caller counts
 * it).  Returns how many codes it added (a multiple of 64; 0 when the CPU,
 * XSUMUFUNC_KERNEL or the format rules the path out) and sets *refused to
 * the length of the refused block that follows them (0: none). */
ptrdiff_t xs_code_fixed_accumulate(const xs_code_format *f, xs_small *acc,
                                   const unsigned char *p, ptrdiff_t n, ptrdiff_t *refused);

#endif
