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
        /* The bin's unit: 2^(ea' + eb' - 2150). */
        int unit = (int)(ix & ((1u << XS_DOT_BIN_SIGN_SHIFT) - 1)) - 2 * XS_UNIT_SHIFT;
        xs_dot_add_scaled(acc, main, digits, unit, (int)(ix >> XS_DOT_BIN_SIGN_SHIFT));
    }
    bins->products = 0;
}
