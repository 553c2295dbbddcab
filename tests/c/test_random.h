/*
 * The random data of the C test programs in tests/c/: a xorshift64*
 * generator (Marsaglia; Vigna's multiplier) and doubles of random
 * significand and sign in a chosen binade.  Each program seeds it with its
 * own seed (test_seed) before drawing, so that its data stay its own.
 */
#ifndef XS_TEST_RANDOM_H
#define XS_TEST_RANDOM_H

#include <stdint.h>

#include "exact/xs_exact.h"

static uint64_t rng;

static inline void test_seed(uint64_t seed)
{
    rng = seed;
}

static inline uint64_t next64(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545f4914f6cdd1dull;
}

/* A whole number in [0, n). */
static inline int below(int n)
{
    return (int)(next64() % (uint64_t)n);
}

/* A double of random significand and sign, exponent field f. */
static inline double with_field(int f)
{
    uint64_t bits = (next64() >> 12) | ((uint64_t)f << 52) | (next64() & ((uint64_t)1 << 63));
    return xs_bits_double(bits);
}

#endif
