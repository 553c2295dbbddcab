/* What the sum, dot and state loops of loops/ share; include first. */
#ifndef XS_LOOPS_COMMON_H
#define XS_LOOPS_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "exact/xs_small.h"
#include "kernels/codes/xs_codes.h"
#include "loops/xs_loops.h"
#include "runtime/xs_gil.h"

/* Below this many terms a row uses the small accumulator only: the large
 * one has a fixed cost per row (its final sweep and merge).  Measured on
 * float64 rows: equal speed near 128 terms, large 1.4x faster at 256. */
#define XS_LARGE_MIN_TERMS 160

/* acc as a portable state of XS_STATE_LEN int64 words, stride bytes apart. */
static void xs_store_state(xs_small *acc, char *out, npy_intp stride)
{
    int64_t state[XS_STATE_LEN];
    xs_small_to_state(acc, state);
    for (int j = 0; j < XS_STATE_LEN; j++, out += stride) {
        memcpy(out, &state[j], sizeof state[j]);
    }
}

/* The loads of the byte-coded formats, one per slot (xs_codes.h). */
#define XS_CODE_LOADER(IN) \
    static inline uint64_t xs_load_##IN(const char *p) \
    { \
        return xs_load_code(XS_TRAIT(slot), p); \
    }
#define XS_EACH_APPLY XS_CODE_LOADER
#define XS_EACH_WHEN XS_TRAIT(slot) >= 0
#define XS_EACH "loops/xs_each_apply.h"
#include "loops/xs_each_dtype.h"
#undef XS_EACH_WHEN
#undef XS_EACH_APPLY
#undef XS_CODE_LOADER

#endif
