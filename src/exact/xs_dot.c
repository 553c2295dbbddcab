/* Exact dot products: the rare products and the final rounding. */
#include "exact/xs_dot.h"

void xs_dot_init(xs_dot *acc)
{
    xs_small_init(&acc->main);
    xs_small_init(&acc->fine);
    xs_small_init(&acc->huge);
}

void xs_dot_merge(xs_dot *acc, xs_dot *part)
{
    xs_small_merge(&acc->main, &part->main);
    xs_small_merge(&acc->fine, &part->fine);
    xs_small_merge(&acc->huge, &part->huge);
}

void xs_dot_add_times(xs_dot *acc, const xs_dot *one, uint64_t count)
{
    /* count < 2^63 and |one| < 2^2048, so no part's top chunk gets near
     * overflow: main stays below 2^1087, the scaled parts far lower. */
    xs_dot power = *one;
    while (count) {
        if (count & 1u) {
            xs_dot_merge(acc, &power);
        }
        count >>= 1;
        if (count) {
            xs_dot doubled = power;
            xs_dot_merge(&power, &doubled);
        }
    }
}

void xs_dot_add_scaled(xs_dot *acc, xs_small *main, const uint32_t digits[4], int unit,
                       int negative)
{
    xs_small *into = main;
    if (unit < XS_DOT_MAIN_UNIT_MIN) {
        into = &acc->fine;
        unit += XS_DOT_SCALE;
    }
    else if (unit > XS_DOT_MAIN_UNIT_MAX) {
        into = &acc->huge;
        unit -= XS_DOT_SCALE;
    }
    into->flags |= XS_HAS_TERM | XS_NOT_NEG_ZERO;
    xs_small_add_digits(into, digits, 4, unit + XS_UNIT_SHIFT, negative);
}

void xs_dot_add_extreme(xs_dot *acc, uint64_t a_bits, uint64_t b_bits)
{
    /* a*b = ma*mb * 2^unit, unit = ea' + eb' - 2150, from -2148 to 1942. */
    int unit = (int)(xs_dot_field(a_bits) + xs_dot_field(b_bits)) - 2 * XS_UNIT_SHIFT;
    uint32_t digits[4];
    xs_mul_digits(xs_dot_significand(a_bits), xs_dot_significand(b_bits), digits);
    xs_dot_add_scaled(acc, &acc->main, digits, unit, (int)((a_bits ^ b_bits) >> 63));
}

double xs_dot_round(xs_dot *acc, const xs_format *fmt)
{
    if (!((acc->fine.flags | acc->huge.flags) & XS_HAS_TERM)) {
        return xs_small_round(&acc->main, fmt);
    }
    /* Side by side: fine at chunk 0, main shifted by the scale, huge by twice
     * the scale; chunk j of the wide number weighs 2^(32 j - 1075 - scale). */
    xs_small *parts[3] = {&acc->fine, &acc->main, &acc->huge};
    int64_t wide[XS_DOT_WIDE_CHUNKS] = {0};
    uint32_t flags = 0;
    for (int k = 0; k < 3; k++) {
        xs_small_propagate(parts[k]);
        for (int j = 0; j < XS_NCHUNKS; j++) {
            wide[j + k * XS_DOT_SCALE_CHUNKS] += parts[k]->chunk[j];
        }
        flags |= parts[k]->flags;
    }
    xs_fixed_propagate(wide, XS_DOT_WIDE_CHUNKS);
    return xs_round_fixed(wide, XS_DOT_WIDE_CHUNKS, XS_UNIT_SHIFT + XS_DOT_SCALE, flags, 1, fmt);
}
