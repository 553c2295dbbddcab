/* Bins of exact products (xs_dot_bins.h): allocation and the flush. */
#include "exact/xs_dot_bins.h"

#include <stdlib.h>

xs_dot_bins *xs_dot_bins_new(void)
{
    return calloc(1, sizeof(xs_dot_bins));
}

void xs_dot_bins_free(xs_dot_bins *bins)
{
    free(bins);
}

void xs_dot_bins_flush(xs_dot_bins *bins, xs_dot *acc, xs_small *main)
{
    for (unsigned ix = 0; ix < XS_DOT_BINS; ix++) {
        uint64_t low = bins->bin[ix][0], high = bins->bin[ix][1];
        if ((low | high) == 0) {
            continue;
        }
        bins->bin[ix][0] = bins->bin[ix][1] = 0;
        uint32_t digits[4] = {(uint32_t)low, (uint32_t)(low >> 32), (uint32_t)high,
                              (uint32_t)(high >> 32)};
        int negative = (int)(ix >> XS_DOT_BIN_SIGN_SHIFT);
        /* The bin's unit: 2^(ea' + eb' - 2150). */
        int unit = (int)(ix & ((1u << XS_DOT_BIN_SIGN_SHIFT) - 1)) - 2 * XS_UNIT_SHIFT;
        xs_small *into = main;
        if (unit < XS_DOT_BINS_MAIN_UNIT_MIN) {
            into = &acc->fine;
            unit += XS_DOT_SCALE;
        }
        else if (unit > XS_DOT_BINS_MAIN_UNIT_MAX) {
            into = &acc->huge;
            unit -= XS_DOT_SCALE;
        }
        into->flags |= XS_HAS_TERM | XS_NOT_NEG_ZERO;
        xs_small_add_digits(into, digits, 4, unit + XS_UNIT_SHIFT, negative);
    }
    bins->products = 0;
}
