/*
 * The strip kernels of xs_columns.c for one instruction set, written once
 * and instantiated per ISA with its natural vector width (GCC and Clang
 * vector extensions).  The includer defines:
 *
 *   XS_CS_ISA     the instance's suffix (generic, avx2, avx512, ...)
 *   XS_CS_TARGET  function attribute (target ISA), or nothing
 *   XS_CS_W       doubles per vector: 2 (16 bytes), 4 (32) or 8 (64; only
 *                 under an AVX-512 target)
 *   XS_CS_TOP16_RANGE (optional) measure the
 *                 range on the top 16 bits of each |x| (xs_top16.h, which
 *                 the includer includes), with XS_CS_TOP16_MAX(a, b) and
 *                 XS_CS_TOP16_MIN(a, b), signed 16-bit maxima and minima of
 *                 two XS_CS_VI
 *   XS_CS_MAXU32 and XS_CS_MINU32, or XS_CS_MAX16 and XS_CS_MIN16, and
 *                 XS_CS_FP_UNORDF (optional): float32 rows are then measured
 *                 unwidened, on the integer units (XS_CS_F32_RANGE below)
 *   XS_CS_F64_ONLY (optional) no float32 strips: the level takes another
 *                 instance's (AVX-512: see xs_columns.c)
 *   XS_CS_WIDEN32(q) (optional) XS_CS_W floats from q widened to doubles in
 *                 one instruction (see cs_load)
 *   XS_CS_CUT_SUB(a, b) (optional) a - b on the multiply-add units,
 *                 a * 1 - b: the same single rounding, so the same bits.
 *                 AVX2's cuts take it: most of the kernel's floating-point
 *                 work is adds (the cuts and the cell sums), which AMD's Zen
 *                 cores run on their two adder ports; fused multiply-adds
 *                 move two of a cut's three operations to the two
 *                 multiply-add ports (where one unit does both, as on
 *                 Intel's Skylake, it costs nothing) (Zen 5, AVX2 forced:
 *                 (1000, 1000) normal columns 0.33 -> 0.29 ns per element,
 *                 the paper's data 0.45 -> 0.37).  The third, which moves
 *                 the running sum, stays on the adders: it is the running
 *                 sum's chain of dependent operations, and an add's latency
 *                 is 3 cycles where a multiply-add's is 4 (stop 33, from all
 *                 three on the multiply-add units: normal columns 0.23 ->
 *                 0.21, float32 lognormal columns 0.21 -> 0.19)
 *
 *   XS_CS_SWEEP(K, itemsize) (optional) parts swept down the rows together
 *                 for K cells and items of that size (a constant: 1, 2 or
 *                 4, divisors of every instance's XS_CS_PARTS, which caps
 *                 it; 1 if not defined; see below)
 *
 * and, before the first instance, XS_STRIP, xs_strip_block, XS_INLINE,
 * XS_PREFETCH, XS_PREFETCH_BYTES and XS_COLUMN_CARRY_ROWS.  It makes
 * strip_block_ISA_f64/_f32 (a block of a strip with K cells) and
 * strip_block_ISA_f64_range/_f32_range (its range alone); the
 * XS_CS_* macros are undefined at the end, for the next instance.
 *
 * A strip of XS_STRIP columns is XS_CS_PARTS = XS_STRIP / XS_CS_W vectors
 * (parts) wide.  The cuts run XS_CS_SWEEP(K, itemsize) parts at a time down
 * the whole block (the rows' lines are in L1 after the first sweep), so
 * that the cell sums, running cuts and range of the parts of one sweep stay
 * in registers.  Fewer sweeps read the block's rows fewer times, each row
 * of the strip a page apart in a wide array: (1000, 1000) columns, Zen 4,
 * ns per element, one part a sweep -> the parts below:
 *   - AVX2, both parts (4-lane vectors): float32 normal 0.215 -> 0.20,
 *     float32 lognormal(0, 3) 0.278 -> 0.256, float64 normal 0.38 -> 0.35,
 *     the paper's data 0.448 -> 0.418, exponents over 120 binades (four
 *     cells) 0.60 -> 0.56;
 *   - the portable instance (2-lane vectors, four parts): one cell, all
 *     four (float32 normal 0.378 -> 0.31); float32 with two cells, all four
 *     (lognormal 0.524 -> 0.47); float64 with two or three cells, two
 *     (normal 0.51 -> 0.485, the paper's data 0.75 -> 0.712; all four:
 *     0.78, its 16 registers spill); four cells, one (two: 1.00 -> 1.03).
 *   - AVX-512: one part is the whole strip.
 * Every lane's operations are the same, in the same order, whatever the
 * width and the sweep (the multiply-adds of XS_CS_CUT_SUB round as the adds
 * do), so every instance gives the same bits.
 *
 * The range is tracked on the bit patterns of |x| (no unsigned 64-bit
 * compare in AVX2 or SSE):
 *   - with signed 64-bit compares (the patterns are below 2^63, so signed
 *     order is magnitude order): the largest |x|, and the smallest |x| - 1
 *     modulo 2^63, which turns 0 into 2^63 - 1, above every other;
 *   - or, when the includer defines XS_CS_TOP16_RANGE (the SSE2 and AVX2
 *     instances on x86-64), on the top 16 bits of the patterns alone, with
 *     16-bit maxima and minima on the integer vector units, so that the
 *     floating-point units do only the cuts and the cell sums: the minimum
 *     of xs_top16_min_key's keys, which put zeros last with integer
 *     additions (a compare with 0.0 took an adder: Zen 5, (1000, 1000)
 *     normal columns, generic 0.42 -> 0.37 ns per element).  AVX2 measured
 *     the range with double maxima and minima (one instruction each, where
 *     its signed 64-bit compare needs a blend besides) until stop 47; they
 *     took the adders beside the cell sums (Zen 5, AVX2: normal and
 *     lognormal(0, 3) columns 0.23 -> 0.21 ns per element).  The drivers
 *     read only what those bits keep (xs_top16.h): the exponent fields,
 *     and the order against the windows' limits, which are powers of two
 *     (a least |x| that is a power of two reads one binade lower: a cell
 *     more at worst).  A NaN's or an Inf's top is that of +Inf or above
 *     it, which no window takes.
 * A lane with nothing but zeros has UINT64_MAX as its minimum, as
 * xs_strip_block wants.
 */
#define XS_CS_CAT2(a, b) a##_##b
#define XS_CS_CAT(a, b) XS_CS_CAT2(a, b)
#define XS_CS_FN(name) XS_CS_CAT(name, XS_CS_ISA)
#define XS_CS_VD XS_CS_FN(xs_cs_vd)
#define XS_CS_VF XS_CS_FN(xs_cs_vf)
#define XS_CS_VI XS_CS_FN(xs_cs_vi)
#define XS_CS_V64U XS_CS_FN(xs_cs_v64u)
#define XS_CS_PARTS (XS_STRIP / XS_CS_W)
#define XS_CS_RANGE XS_CS_FN(xs_cs_range)
#define XS_CS_TRACK XS_CS_FN(xs_cs_track)

typedef double XS_CS_VD __attribute__((vector_size(8 * XS_CS_W)));
typedef float XS_CS_VF __attribute__((vector_size(4 * XS_CS_W)));
typedef int64_t XS_CS_VI __attribute__((vector_size(8 * XS_CS_W)));
/* Unsigned: for additions modulo 2^64 (a signed vector sum that overflows
 * is undefined, as a scalar one is). */
typedef uint64_t XS_CS_V64U __attribute__((vector_size(8 * XS_CS_W)));

/* XS_CS_W values of a row from q as doubles (float32 widened exactly). */
XS_CS_TARGET XS_INLINE XS_CS_VD XS_CS_FN(cs_load)(const char *q, int itemsize)
{
    if (itemsize == 8) {
        XS_CS_VD v;
        memcpy(&v, q, sizeof v);
        return v;
    }
#ifdef XS_CS_WIDEN32
    /* The includer's widening load: GCC makes most conversions of a vector
     * of XS_CS_W floats scalar ones (cvtss2sd per lane, most of a float32
     * block's time), which one cvtps2pd does. */
    return (XS_CS_VD)XS_CS_WIDEN32(q);
#else
    XS_CS_VF f;
    memcpy(&f, q, sizeof f);
    return __builtin_convertvector(f, XS_CS_VD);
#endif
}

/* A vector of lanes' range: bit patterns of |x| (see the top of this file). */
typedef struct {
    XS_CS_VI mx, mn;            /* with XS_CS_TOP16_RANGE: the top bits alone */
} XS_CS_RANGE;

XS_CS_TARGET XS_INLINE XS_CS_RANGE XS_CS_FN(cs_range_init)(void)
{
    XS_CS_RANGE r;
    r.mx = (XS_CS_VI){0};
#ifdef XS_CS_TOP16_RANGE
    r.mn = r.mx + (int64_t)XS_TOP16_ABS_BITS;
#else
    r.mn = r.mx + (int64_t)XS_CELLS_ABS_BITS;
#endif
    return r;
}

/* One row's keys: |x|'s bits for the largest (hi) and |x| - 1 for the
 * smallest non-zero (lo; see the top of this file for what 0 becomes). */
XS_CS_TARGET XS_INLINE void XS_CS_FN(cs_keys)(XS_CS_VD v, XS_CS_VI *hi, XS_CS_VI *lo)
{
#ifdef XS_CS_TOP16_RANGE
    /* hi: |x| whole (its top 16 bits are all a 16-bit maximum keeps that
     * cs_range_end reads); lo: xs_top16_min_key's key, modulo 2^64. */
    *hi = (XS_CS_VI)v & (int64_t)XS_CELLS_ABS_BITS;
    *lo = (XS_CS_VI)((XS_CS_V64U)*hi + XS_TOP16_KEY_ADD);
#else
    XS_CS_VI a = (XS_CS_VI)v & (int64_t)XS_CELLS_ABS_BITS;
    *hi = a;
    *lo = (a - 1) & (int64_t)XS_CELLS_ABS_BITS;
#endif
}

#ifdef XS_CS_TOP16_RANGE
#define XS_CS_KEY_MAX(m, n) ((XS_CS_VI)XS_CS_TOP16_MAX((m), (n)))
#define XS_CS_KEY_MIN(m, n) ((XS_CS_VI)XS_CS_TOP16_MIN((m), (n)))
#else
/* The larger (smaller) of keys m and n lane by lane, signed order. */
XS_CS_TARGET XS_INLINE XS_CS_VI XS_CS_FN(cs_key_max)(XS_CS_VI m, XS_CS_VI n)
{
    XS_CS_VI up = m > n;
    return (m & up) | (n & ~up);
}
XS_CS_TARGET XS_INLINE XS_CS_VI XS_CS_FN(cs_key_min)(XS_CS_VI m, XS_CS_VI n)
{
    XS_CS_VI down = n > m;
    return (m & down) | (n & ~down);
}
#define XS_CS_KEY_MAX(m, n) XS_CS_FN(cs_key_max)(m, n)
#define XS_CS_KEY_MIN(m, n) XS_CS_FN(cs_key_min)(m, n)
#endif

/* One row's lanes v into the range r (a NaN's pattern, or its top, is
 * above every other). */
XS_CS_TARGET XS_INLINE void XS_CS_FN(cs_range_step)(XS_CS_VD v, XS_CS_RANGE *r)
{
    XS_CS_VI hi, lo;
    XS_CS_FN(cs_keys)(v, &hi, &lo);
    r->mx = XS_CS_KEY_MAX(hi, r->mx);
    r->mn = XS_CS_KEY_MIN(lo, r->mn);
}

/* Two rows' lanes into the range r: their own largest first, then r's (as
 * many ops as two steps, in a chain half as long). */
XS_CS_TARGET XS_INLINE void XS_CS_FN(cs_range_step2)(XS_CS_VD v0, XS_CS_VD v1, XS_CS_RANGE *r)
{
    XS_CS_VI hi0, lo0, hi1, lo1;
    XS_CS_FN(cs_keys)(v0, &hi0, &lo0);
    XS_CS_FN(cs_keys)(v1, &hi1, &lo1);
    r->mx = XS_CS_KEY_MAX(XS_CS_KEY_MAX(hi0, hi1), r->mx);
    r->mn = XS_CS_KEY_MIN(XS_CS_KEY_MIN(lo0, lo1), r->mn);
}

/* The range r of lanes lane0.. into b.  A lane whose last cell `cut` is a
 * NaN had a NaN or an Inf term (a NaN part stays in the cell sums) or a
 * finite one so far above the window that a cut overflowed (no window takes
 * it either): it reports the largest pattern, whichever the measure, so
 * that every instance reports the same. */
XS_CS_TARGET XS_INLINE void XS_CS_FN(cs_range_end)(XS_CS_RANGE r, XS_CS_VD cut, int lane0,
                                                    xs_strip_block *b)
{
    XS_CS_VI special = cut != cut;
    for (int k = 0; k < XS_CS_W; k++) {
        uint64_t mx = (uint64_t)r.mx[k], mn = (uint64_t)r.mn[k];
#ifdef XS_CS_TOP16_RANGE
        mx &= XS_TOP16_ABS_BITS;        /* the top 16 bits, all the maximum keeps */
#endif
        mx = special[k] ? UINT64_MAX : mx;
#ifdef XS_CS_TOP16_RANGE
        mn = xs_top16_key_min_m1((unsigned)(mn >> XS_TOP16_SHIFT));
#else
        mn = mn == XS_CELLS_ABS_BITS ? UINT64_MAX : mn;
#endif
        b->max_bits[lane0 + k] = mx;
        b->min_bits_m1[lane0 + k] = mn;
    }
}

/* float32 rows on x86: the range is measured on the float32 patterns
 * before they are widened, two parts' lanes in one vector of as many bytes
 * as a vector of doubles, on the integer vector units.  That halves the
 * range's work, most of a float32 block's (one cell, no cuts, as a rule),
 * and keeps it off the adders (the portable instance's cuts) and the
 * multiply-add units (AVX2's cuts), where a float max and min of the
 * patterns ran until stop 33 (Zen 5, float32 normal / lognormal columns:
 * AVX2 0.131 / 0.192 -> 0.121 / 0.183 ns per element, generic 0.251 /
 * 0.436 -> 0.22 / 0.37).  Widening is exact and keeps the order, so the
 * largest |x| and the smallest non-zero one have the widened ones'
 * exponent fields and order against the windows' limits, powers of two.
 * The includer defines either
 *   XS_CS_MAXU32(a, b), XS_CS_MINU32(a, b): unsigned 32-bit maxima and
 *     minima of two XS_CS_VJ (AVX2): the largest |x| pattern, and the
 *     smallest of |x| - 1, which turns 0 into the largest (as the doubles'
 *     64-bit measures do): both exact;
 *   or XS_CS_MAX16(a, b), XS_CS_MIN16(a, b): signed 16-bit ones (SSE2 has
 *     no 32-bit ones), which see the top 16 bits of each 32-bit lane: the
 *     largest top of |x| (its exponent field and 7 leading fraction bits,
 *     as xs_top16.h keeps for doubles), and the smallest top of |x| - 1 by
 *     the key |x| + 0x7fffffff = (|x| - 1) + 2^31 modulo 2^32, whose top
 *     is that top + 0x8000: a zero's key is the largest (0x7fff), any other
 *     value's below it in the order of |x|, a subnormal below 2^-133 (top
 *     0) included.  The smallest |x| is then known to lie in (t 2^16,
 *     (t + 1) 2^16] for the least top t of |x| - 1, and t 2^16 + 1 is
 *     reported: the same exponent field, except when the smallest |x| is a
 *     power of two, which reads as one binade lower (a window may take one
 *     cell more than it needs, never one too few).  A lane whose non-zero
 *     values are all subnormals below 2^-133 (top 0) reports the largest
 *     such pattern, 0xffff, as its largest |x|: above them, as a window's
 *     top must be;
 * and XS_CS_FP_UNORDF(a, b), all ones where a float of a or b is a NaN:
 * NaN lanes are seen apart, as the doubles' are; an Inf or NaN largest
 * |x| is reported as UINT64_MAX without converting it (a signaling NaN's
 * conversion would raise a flag).  Only where a strip has more than one
 * part (AVX-512, with one, makes no float32 strips: XS_CS_F64_ONLY). */
#if (defined(XS_CS_MAXU32) || defined(XS_CS_MAX16)) && XS_CS_PARTS > 1
#define XS_CS_F32_RANGE 1
#define XS_CS_VG XS_CS_FN(xs_cs_vg)
#define XS_CS_VJ XS_CS_FN(xs_cs_vj)
#define XS_CS_VU XS_CS_FN(xs_cs_vu)
#define XS_CS_RANGE32 XS_CS_FN(xs_cs_range32)
/* Lanes of a float32 range: two parts'. */
#define XS_CS_W32 (2 * XS_CS_W)
/* float32 |x|'s bits and +Inf's; with 16-bit measures, the minimum's key
 * |x| + XS_CS_KEY32 (see above). */
#define XS_CS_ABS32 0x7fffffff
#define XS_CS_INF32 0x7f800000u
#define XS_CS_KEY32 0x7fffffff
typedef float XS_CS_VG __attribute__((vector_size(8 * XS_CS_W)));
typedef int32_t XS_CS_VJ __attribute__((vector_size(8 * XS_CS_W)));
typedef uint32_t XS_CS_VU __attribute__((vector_size(8 * XS_CS_W)));

typedef struct {
    XS_CS_VJ mx, mn, nan;
} XS_CS_RANGE32;

XS_CS_TARGET XS_INLINE XS_CS_RANGE32 XS_CS_FN(cs_range32_init)(void)
{
    XS_CS_RANGE32 r;
    r.mx = (XS_CS_VJ){0};
    r.nan = r.mx;
#ifdef XS_CS_MAXU32
    r.mn = r.mx - 1;                              /* 0's |x| - 1: nothing yet */
#else
    r.mn = r.mx + XS_CS_KEY32;                    /* 0's key: nothing yet */
#endif
    return r;
}

/* XS_CS_W32 float32 values of a row from q, unwidened. */
XS_CS_TARGET XS_INLINE XS_CS_VG XS_CS_FN(cs_load32)(const char *q)
{
    XS_CS_VG g;
    memcpy(&g, q, sizeof g);
    return g;
}

/* Two rows (g1 may be g0 again: one row) into r, as cs_range_step2. */
XS_CS_TARGET XS_INLINE void XS_CS_FN(cs_range32_step2)(XS_CS_VG g0, XS_CS_VG g1,
                                                        XS_CS_RANGE32 *r, int nans)
{
    XS_CS_VJ a0 = (XS_CS_VJ)g0 & XS_CS_ABS32, a1 = (XS_CS_VJ)g1 & XS_CS_ABS32;
#ifdef XS_CS_MAXU32
    r->mx = (XS_CS_VJ)XS_CS_MAXU32(XS_CS_MAXU32(a0, a1), r->mx);
    r->mn = (XS_CS_VJ)XS_CS_MINU32(XS_CS_MINU32(a0 - 1, a1 - 1), r->mn);
#else
    /* Only the top halves are read (the bottom ones measure the low bits,
     * which nothing reads).  The largest top of 0 with a non-zero |x| is
     * fixed at the end (cs_range32_end). */
    r->mx = (XS_CS_VJ)XS_CS_MAX16(XS_CS_MAX16(a0, a1), r->mx);
    /* The keys modulo 2^32: unsigned (a signed sum would overflow). */
    XS_CS_VJ k0 = (XS_CS_VJ)((XS_CS_VU)a0 + (uint32_t)XS_CS_KEY32);
    XS_CS_VJ k1 = (XS_CS_VJ)((XS_CS_VU)a1 + (uint32_t)XS_CS_KEY32);
    r->mn = (XS_CS_VJ)XS_CS_MIN16(XS_CS_MIN16(k0, k1), r->mn);
#endif
    if (nans) {
        r->nan |= (XS_CS_VJ)XS_CS_FP_UNORDF(g0, g1);
    }
}

/* The range r of lanes lane0 .. lane0 + XS_CS_W32 - 1 into b, as double
 * patterns (NaN lanes and lanes of nothing but zeros as cs_range_end
 * reports them). */
XS_CS_TARGET XS_INLINE void XS_CS_FN(cs_range32_end)(XS_CS_RANGE32 r, int lane0,
                                                      xs_strip_block *b)
{
    for (int k = 0; k < XS_CS_W32; k++) {
#ifdef XS_CS_MAXU32
        uint32_t mx32 = (uint32_t)r.mx[k], mn32 = (uint32_t)r.mn[k] + 1u;   /* 0: none */
#else
        uint32_t mx32 = (uint32_t)r.mx[k] & 0xffff0000u;
        /* The least top of |x| - 1, t, from its key's top, t + 0x8000;
         * none when that is 0x7fff (t = 0xffff: only zeros). */
        uint32_t t = (((uint32_t)r.mn[k] >> 16) + 0x8000u) & 0xffffu;
        uint32_t mn32 = t == 0xffffu ? 0 : (t << 16) + 1u;
        /* A top of 0 that is not a zero (subnormals below 2^-133 alone):
         * the largest pattern of that top, above them all. */
        mx32 = mx32 == 0 && mn32 != 0 ? 0xffffu : mx32;
#endif
        float mx, mn;
        memcpy(&mx, &mx32, sizeof mx);
        memcpy(&mn, &mn32, sizeof mn);
        b->max_bits[lane0 + k] = r.nan[k] || mx32 >= XS_CS_INF32 ? UINT64_MAX
                                                                 : xs_double_bits((double)mx);
        b->min_bits_m1[lane0 + k] = mn32 == 0 || mn32 >= XS_CS_INF32
                                        ? UINT64_MAX : xs_double_bits((double)mn) - 1;
    }
}
#endif

/* A part's range as the cuts see it: the doubles' (XS_CS_RANGE), or for
 * float32 under XS_CS_F32_RANGE the float32 one, kept by the even parts
 * for their own lanes and the next part's. */
typedef struct {
    XS_CS_RANGE d;
#ifdef XS_CS_F32_RANGE
    XS_CS_RANGE32 f;
#endif
} XS_CS_TRACK;

XS_CS_TARGET XS_INLINE XS_CS_TRACK XS_CS_FN(cs_track_init)(void)
{
    XS_CS_TRACK t;
    t.d = XS_CS_FN(cs_range_init)();
#ifdef XS_CS_F32_RANGE
    t.f = XS_CS_FN(cs_range32_init)();
#endif
    return t;
}

/* Two rows' lanes from lane0 on (q at lane0; v0 and v1 their doubles) into
 * t; rows == 1: one row, v0's. */
XS_CS_TARGET XS_INLINE void XS_CS_FN(cs_track)(XS_CS_TRACK *t, const char *q,
                                                ptrdiff_t row_stride, int rows, XS_CS_VD v0,
                                                XS_CS_VD v1, int itemsize, int lane0, int nans)
{
#ifdef XS_CS_F32_RANGE
    if (itemsize == 4) {
        if (lane0 % XS_CS_W32 == 0) {
            XS_CS_VG g0 = XS_CS_FN(cs_load32)(q);
            XS_CS_FN(cs_range32_step2)(g0, rows == 2 ? XS_CS_FN(cs_load32)(q + row_stride) : g0,
                                       &t->f, nans);
        }
        return;
    }
#else
    (void)q;
    (void)row_stride;
    (void)itemsize;
    (void)lane0;
    (void)nans;                 /* a NaN's pattern is above every other */
#endif
    if (rows == 2) {
        XS_CS_FN(cs_range_step2)(v0, v1, &t->d);
    }
    else {
        XS_CS_FN(cs_range_step)(v0, &t->d);
    }
}

/* The range t of lanes lane0 .. lane0 + XS_CS_W - 1 into b (cut: see
 * cs_range_end); a float32 one from an even part for the next part's lanes
 * too, whose own cut comes after. */
XS_CS_TARGET XS_INLINE void XS_CS_FN(cs_track_end)(XS_CS_TRACK t, XS_CS_VD cut, int itemsize,
                                                    int lane0, xs_strip_block *b)
{
#ifdef XS_CS_F32_RANGE
    if (itemsize == 4) {
        if (lane0 % XS_CS_W32 == 0) {
            XS_CS_FN(cs_range32_end)(t.f, lane0, b);
        }
        for (int k = 0; k < XS_CS_W; k++) {
            b->max_bits[lane0 + k] = cut[k] != cut[k] ? UINT64_MAX : b->max_bits[lane0 + k];
        }
        return;
    }
#else
    (void)itemsize;
#endif
    XS_CS_FN(cs_range_end)(t.d, cut, lane0, b);
}

/* v's rest after the cut that took t to next: v - (next - t) on the
 * multiply-add units when the includer says how (XS_CS_CUT_SUB, a - b),
 * else v + (t - next), the same bits (next - t is exact, so t - next is its
 * negation), one addition with no copy on two-operand instruction sets. */
#ifdef XS_CS_CUT_SUB
#define XS_CS_REST(v, next, t) \
    ((XS_CS_VD)XS_CS_CUT_SUB((v), (XS_CS_VD)XS_CS_CUT_SUB((next), (t))))
#else
#define XS_CS_REST(v, next, t) ((v) + ((t) - (next)))
#endif
#ifndef XS_CS_SWEEP
#define XS_CS_SWEEP(K, itemsize) 1
#endif

/* The carry step of one part's cells 1..K, from the bottom up: cell c
 * keeps at most u_(c-1)/2, the multiples of u_(c-1) (sig[c - 1]'s grid)
 * move up (xs_cells.h). */
#define XS_CS_CARRY(acc, sig, K) \
    for (int c = (K); c >= 1; c--) { \
        XS_CS_VD carry = ((acc)[c] + (sig)[c - 1]) - (sig)[c - 1]; \
        (acc)[c] -= carry; \
        (acc)[c - 1] += carry; \
    }

/* One row's lanes v cut by running sums t[1..K-1] into the cells 1..K-1,
 * the rest left in v (three additions per cut cell, where a cut
 * fl(fl(v + s_c) - s_c) and the cell's own sum take four, as the portable
 * cells of rows do: xs_cells_kernel.h; Zen 5, (1000, 1000) columns, from
 * those cuts: 4 to 15% faster at every level, generic the most).
 * t_c + v rounds to the grid of u_c while t_c stays within
 * 2^51 u_c of s_c = 1.5 2^52 u_c (the binade of s_c), so the difference
 * with the old t_c is v's part for cell c, exact, and so is the rest.
 * Two running sums per cell, one for the even rows and one for the odd
 * (two chains of dependent adds, each half as long), restarted from s_c
 * every carry step: each takes at most XS_COLUMN_CARRY_ROWS / 2 =
 * XS_CELLS_RUN_PARTS parts per lane, at most 2^47 u_c each (xs_cells.h:
 * 16 such parts keep t_c within 2^51 u_c of s_c; for a cell whose s_c is
 * clamped to 1.5 2^-1022, xs_cells_set_grid, the same holds in units of
 * 2^-1074), and t_c - s_c goes to the cell's sum, exact, before the carry:
 * the cell's sum takes the same amount as from the plain cuts, in two
 * parts of a run each: the lane bound of xs_cells.h holds as it did. */
#define XS_CS_RUN(v, t) \
    for (int c = 1; c < K; c++) { \
        XS_CS_VD next = (v) + (t)[c]; \
        (v) = XS_CS_REST((v), next, (t)[c]); \
        (t)[c] = next; \
    }

_Static_assert(XS_COLUMN_CARRY_ROWS <= 2 * XS_CELLS_RUN_PARTS,
               "a carry step's rows take at most XS_CELLS_RUN_PARTS parts per running sum");

/* Lanes lane0 .. lane0 + G * XS_CS_W - 1 of a strip's block with K cells
 * (G parts, swept down the rows together): every row cut (XS_CS_RUN) and
 * its rest added to cell K, a carry step every XS_COLUMN_CARRY_ROWS rows.
 * Rows go in pairs (in fours with one cell, but for AVX-512) whose rests
 * are added first, so that cell K's chain of dependent adds is half as long
 * (a quarter): a lane's sums of at most XS_COLUMN_CARRY_ROWS parts are
 * exact in any order (xs_cells.h). */
XS_CS_TARGET XS_INLINE void XS_CS_FN(cs_parts)(const char *q, ptrdiff_t rows,
                                                 ptrdiff_t row_stride, int K, int itemsize,
                                                 const double (*sigma)[XS_STRIP],
                                                 xs_strip_block *b, int lane0, int G)
{
    XS_CS_VD acc[XS_CS_PARTS][XS_CELLS_MAX + 1], sig[XS_CS_PARTS][XS_CELLS_MAX + 1];
    XS_CS_TRACK range[XS_CS_PARTS];
    for (int g = 0; g < G; g++) {
        for (int c = 0; c <= K; c++) {
            memcpy(&acc[g][c], &b->cells[c][lane0 + g * XS_CS_W], sizeof acc[g][c]);
            memcpy(&sig[g][c], &sigma[c][lane0 + g * XS_CS_W], sizeof sig[g][c]);
        }
        range[g] = XS_CS_FN(cs_track_init)();
    }
    q += lane0 * itemsize;
    const ptrdiff_t part_bytes = XS_CS_W * itemsize;
    for (ptrdiff_t r0 = 0; r0 < rows; r0 += XS_COLUMN_CARRY_ROWS) {
        ptrdiff_t r1 = rows - r0 < XS_COLUMN_CARRY_ROWS ? rows : r0 + XS_COLUMN_CARRY_ROWS;
        ptrdiff_t r = r0;
        /* Each part's running sums: the even rows', the odd rows'. */
        XS_CS_VD t0[XS_CS_PARTS][XS_CELLS_MAX], t1[XS_CS_PARTS][XS_CELLS_MAX];
        for (int g = 0; g < G; g++) {
            for (int c = 1; c < K; c++) {
                t0[g][c] = sig[g][c];
                t1[g][c] = sig[g][c];
            }
        }
        if (K == 1 && XS_CS_W < 8) {
            /* One cell (float32 columns of like scales, float64 small
             * integers): no cuts, only cell K's sum, whose chain of dependent
             * adds takes rows in fours (Zen 5, float32 normal columns,
             * AVX2: 0.145 -> 0.13 ns per element; AVX-512's one part per
             * strip was 3% slower so, and keeps pairs). */
            for (; r + 3 < r1; r += 4, q += 4 * row_stride) {
                if (lane0 == 0) {
                    for (int k = 0; k < 4; k++) {
                        XS_PREFETCH((const void *)((uintptr_t)q + (uintptr_t)(k * row_stride) +
                                                   XS_PREFETCH_BYTES(itemsize)));
                    }
                }
                for (int g = 0; g < G; g++) {
                    const char *at = q + g * part_bytes;
                    int lane = lane0 + g * XS_CS_W;
                    XS_CS_VD v0 = XS_CS_FN(cs_load)(at, itemsize);
                    XS_CS_VD v1 = XS_CS_FN(cs_load)(at + row_stride, itemsize);
                    XS_CS_VD v2 = XS_CS_FN(cs_load)(at + 2 * row_stride, itemsize);
                    XS_CS_VD v3 = XS_CS_FN(cs_load)(at + 3 * row_stride, itemsize);
                    XS_CS_FN(cs_track)(&range[g], at, row_stride, 2, v0, v1, itemsize, lane, 0);
                    XS_CS_FN(cs_track)(&range[g], at + 2 * row_stride, row_stride, 2, v2, v3,
                                       itemsize, lane, 0);
                    acc[g][K] += (v0 + v1) + (v2 + v3);
                }
            }
        }
        for (; r + 1 < r1; r += 2, q += 2 * row_stride) {
            if (lane0 == 0) {
                /* The strip after next reads these rows' lines that far
                 * ahead: bring them in now (integer arithmetic: the
                 * address may lie past the array, which a prefetch may
                 * touch but C may not form). */
                XS_PREFETCH((const void *)((uintptr_t)q + XS_PREFETCH_BYTES(itemsize)));
                XS_PREFETCH((const void *)((uintptr_t)q + (uintptr_t)row_stride +
                                           XS_PREFETCH_BYTES(itemsize)));
            }
            for (int g = 0; g < G; g++) {
                const char *at = q + g * part_bytes;
                XS_CS_VD v0 = XS_CS_FN(cs_load)(at, itemsize);
                XS_CS_VD v1 = XS_CS_FN(cs_load)(at + row_stride, itemsize);
                XS_CS_FN(cs_track)(&range[g], at, row_stride, 2, v0, v1, itemsize,
                                   lane0 + g * XS_CS_W, 0);
                XS_CS_RUN(v0, t0[g])
                XS_CS_RUN(v1, t1[g])
                acc[g][K] += v0 + v1;
            }
        }
        if (r < r1) {                                   /* an odd row out */
            if (lane0 == 0) {
                XS_PREFETCH((const void *)((uintptr_t)q + XS_PREFETCH_BYTES(itemsize)));
            }
            for (int g = 0; g < G; g++) {
                const char *at = q + g * part_bytes;
                XS_CS_VD v = XS_CS_FN(cs_load)(at, itemsize);
                XS_CS_FN(cs_track)(&range[g], at, row_stride, 1, v, v, itemsize,
                                   lane0 + g * XS_CS_W, 0);
                XS_CS_RUN(v, t0[g])
                acc[g][K] += v;
            }
            q += row_stride;
        }
        for (int g = 0; g < G; g++) {
            for (int c = 1; c < K; c++) {
                acc[g][c] += (t0[g][c] - sig[g][c]) + (t1[g][c] - sig[g][c]);
            }
            XS_CS_CARRY(acc[g], sig[g], K)
        }
    }
    for (int g = 0; g < G; g++) {
        for (int c = 0; c <= K; c++) {
            memcpy(&b->cells[c][lane0 + g * XS_CS_W], &acc[g][c], sizeof acc[g][c]);
        }
        XS_CS_FN(cs_track_end)(range[g], acc[g][K], itemsize, lane0 + g * XS_CS_W, b);
    }
}

/* The whole strip's block, K a constant in each call: XS_CS_SWEEP(K,
 * itemsize) parts at a time. */
XS_CS_TARGET XS_INLINE void XS_CS_FN(cs_block)(const char *q, ptrdiff_t rows,
                                                 ptrdiff_t row_stride, int K, int itemsize,
                                                 const double (*sigma)[XS_STRIP],
                                                 xs_strip_block *b)
{
    const int G = XS_CS_SWEEP(K, itemsize) < XS_CS_PARTS ? XS_CS_SWEEP(K, itemsize)
                                                          : XS_CS_PARTS;
    for (int part = 0; part < XS_CS_PARTS; part += G) {
        XS_CS_FN(cs_parts)(q, rows, row_stride, K, itemsize, sigma, b, part * XS_CS_W, G);
    }
}

#ifdef XS_CS_F32_RANGE
/* cs_range of float32 rows: the float32 range of two parts' lanes at once
 * (see XS_CS_F32_RANGE), rows in pairs. */
XS_CS_TARGET XS_INLINE void XS_CS_FN(cs_range32)(const char *q, ptrdiff_t rows,
                                                   ptrdiff_t row_stride, xs_strip_block *b)
{
    enum { PAIRS = XS_CS_PARTS / 2 };
    XS_CS_RANGE32 range[PAIRS];
    for (int pair = 0; pair < PAIRS; pair++) {
        range[pair] = XS_CS_FN(cs_range32_init)();
    }
    ptrdiff_t r = 0;
    for (; r + 1 < rows; r += 2, q += 2 * row_stride) {
        XS_PREFETCH((const void *)((uintptr_t)q + XS_PREFETCH_BYTES(4)));
        XS_PREFETCH((const void *)((uintptr_t)q + (uintptr_t)row_stride + XS_PREFETCH_BYTES(4)));
        for (int pair = 0; pair < PAIRS; pair++) {
            const char *at = q + pair * XS_CS_W32 * 4;
            XS_CS_FN(cs_range32_step2)(XS_CS_FN(cs_load32)(at),
                                       XS_CS_FN(cs_load32)(at + row_stride), &range[pair], 1);
        }
    }
    if (r < rows) {                                     /* an odd row out */
        for (int pair = 0; pair < PAIRS; pair++) {
            XS_CS_VG g = XS_CS_FN(cs_load32)(q + pair * XS_CS_W32 * 4);
            XS_CS_FN(cs_range32_step2)(g, g, &range[pair], 1);
        }
    }
    for (int pair = 0; pair < PAIRS; pair++) {
        XS_CS_FN(cs_range32_end)(range[pair], pair * XS_CS_W32, b);
    }
}
#endif

#if defined(XS_CS_F32_RANGE) && defined(XS_CS_WIDEN_HALVES)
/* float32 rows with two cells, split (xs_columns_variants.h,
 * XS_SPLIT32_SPAN): each term x of a lane under top T is cut once in its
 * own float32 lanes, XS_CS_W32 to a vector, at the grid g = 2^(T - 22):
 *   y = x + C1 (C1 = 1.5 2^(T + 1), whose binade has the spacing g), so
 *   that the bits of y less those of C1 are k = x/g rounded, |k| <= 2^22,
 *   summed in 32-bit integer lanes; r = x - (y - C1), the rest, exact
 *   (both subtractions are), |r| <= g/2 = 2^(T - 23);
 * and only the rests are widened and summed as doubles, two rows at a time,
 * into a running sum R per lane.  Every carry step (XS_COLUMN_CARRY_ROWS
 * rows) the k's sum times g goes to cell 1, and R is split at cell 1's
 * quantum u_1 = 2^(T - 47) into cell 1 and cell 2, as the carries are.
 * A pair of rows of XS_CS_W32 terms takes six float32 additions, four
 * conversions and four double additions, where the cuts of the two-cell
 * strips take four conversions and sixteen additions (the two-cell float32
 * columns of lognormal(0, 3) data; stop 48).
 * Exact:
 *   - cell 1 takes at most XS_COLUMN_CARRY_ROWS k g of at most 2^T each per
 *     carry step and R's part, as the cuts give it its parts (xs_cells.h);
 *   - R sums at most XS_COLUMN_CARRY_ROWS rests, each at most 2^(T - 23)
 *     and a multiple of the ulp of the smallest |x|, 2^(e - 23) for |x| in
 *     [2^e, 2^(e + 1)): below 2^53 of those as long as
 *     e >= T - XS_SPLIT32_SPAN, which the driver checks on the block's
 *     range (a block below it is summed again by the cuts);
 *   - R less its multiple of u_1 is at most u_1/2 and a multiple of
 *     2^(T - 71), finer than cell 2's quantum 2^(T - 94) needs: one part
 *     of cell 2 per carry step, where the cuts give it one per row.
 * C1 is a finite normal float for XS_SPLIT32_TOP_MIN <= T <=
 * XS_SPLIT32_TOP_MAX (the driver's check).  NaN and Inf terms, and finite
 * ones too large for C1's binade, make R a NaN (or the range says them):
 * the lane reports as in cs_track_end.  The integer sums wrap modulo 2^32
 * (unsigned), and k's sum, below 2^27, is read from them exactly. */
/* x's rest after the cut y = x + c: x - (y - c), both subtractions exact. */
#define XS_CS_SPLIT32_REST(x, y, c) ((x) - ((y) - (c)))
XS_CS_TARGET XS_INLINE void XS_CS_FN(cs_split32)(const char *q, ptrdiff_t rows,
                                                   ptrdiff_t row_stride,
                                                   const double (*sigma)[XS_STRIP],
                                                   xs_strip_block *b, int first, int G)
{
    enum { P32 = XS_CS_PARTS / 2 };
    XS_CS_VG c1[P32];
    XS_CS_VU c1_bits[P32];
    XS_CS_VD acc[XS_CS_PARTS][3], sig[XS_CS_PARTS][2], grid[XS_CS_PARTS];
    XS_CS_RANGE32 range[P32];
    for (int g = 0; g < G; g++) {
        int lane0 = (first + g) * XS_CS_W32;
        for (int k = 0; k < XS_CS_W32; k++) {
            /* s_1 = 1.5 2^52 u_1 = 1.5 2^(T + 5): C1 = s_1 / 16 */
            c1[g][k] = (float)(sigma[1][lane0 + k] * 0x1p-4);
        }
        c1_bits[g] = (XS_CS_VU)c1[g];
        for (int h = 0; h < 2; h++) {
            int p = 2 * g + h, lane = lane0 + h * XS_CS_W;
            for (int c = 0; c <= 2; c++) {
                memcpy(&acc[p][c], &b->cells[c][lane], sizeof acc[p][c]);
            }
            for (int c = 0; c < 2; c++) {
                memcpy(&sig[p][c], &sigma[c][lane], sizeof sig[p][c]);
            }
            /* 2^(T + 5), s_1 with its fraction cleared, times 2^-27 */
            grid[p] = (XS_CS_VD)((XS_CS_VI)sig[p][1] & (int64_t)XS_F64_INF_BITS) * 0x1p-27;
        }
        range[g] = XS_CS_FN(cs_range32_init)();
    }
    q += first * XS_CS_W32 * 4;
    for (ptrdiff_t r0 = 0; r0 < rows; r0 += XS_COLUMN_CARRY_ROWS) {
        ptrdiff_t r1 = rows - r0 < XS_COLUMN_CARRY_ROWS ? rows : r0 + XS_COLUMN_CARRY_ROWS;
        ptrdiff_t r = r0;
        XS_CS_VU k_sum[P32];
        XS_CS_VD rest[XS_CS_PARTS];
        for (int g = 0; g < G; g++) {
            k_sum[g] = (XS_CS_VU){0};
            rest[2 * g] = (XS_CS_VD){0};
            rest[2 * g + 1] = (XS_CS_VD){0};
        }
        for (; r + 1 < r1; r += 2, q += 2 * row_stride) {
            if (first == 0) {
                XS_PREFETCH((const void *)((uintptr_t)q + XS_PREFETCH_BYTES(4)));
                XS_PREFETCH((const void *)((uintptr_t)q + (uintptr_t)row_stride +
                                           XS_PREFETCH_BYTES(4)));
            }
            for (int g = 0; g < G; g++) {
                const char *at = q + g * XS_CS_W32 * 4;
                XS_CS_VG x0 = XS_CS_FN(cs_load32)(at), x1 = XS_CS_FN(cs_load32)(at + row_stride);
                XS_CS_FN(cs_range32_step2)(x0, x1, &range[g], 0);
                XS_CS_VG y0 = x0 + c1[g], y1 = x1 + c1[g];
                k_sum[g] += (XS_CS_VU)y0 + (XS_CS_VU)y1;
                XS_CS_VG e0 = XS_CS_SPLIT32_REST(x0, y0, c1[g]);
                XS_CS_VG e1 = XS_CS_SPLIT32_REST(x1, y1, c1[g]);
                XS_CS_VD lo0, hi0, lo1, hi1;
                XS_CS_WIDEN_HALVES(e0, lo0, hi0);
                XS_CS_WIDEN_HALVES(e1, lo1, hi1);
                rest[2 * g] += lo0 + lo1;
                rest[2 * g + 1] += hi0 + hi1;
            }
        }
        if (r < r1) {                                   /* an odd row out */
            for (int g = 0; g < G; g++) {
                XS_CS_VG x0 = XS_CS_FN(cs_load32)(q + g * XS_CS_W32 * 4);
                XS_CS_FN(cs_range32_step2)(x0, x0, &range[g], 0);
                XS_CS_VG y0 = x0 + c1[g];
                k_sum[g] += (XS_CS_VU)y0;
                XS_CS_VG e0 = XS_CS_SPLIT32_REST(x0, y0, c1[g]);
                XS_CS_VD lo0, hi0;
                XS_CS_WIDEN_HALVES(e0, lo0, hi0);
                rest[2 * g] += lo0;
                rest[2 * g + 1] += hi0;
            }
            q += row_stride;
        }
        for (int g = 0; g < G; g++) {
            XS_CS_VU k_total = k_sum[g] - c1_bits[g] * (uint32_t)(r1 - r0);
            for (int h = 0; h < 2; h++) {
                int p = 2 * g + h;
                XS_CS_VD whole;
                for (int k = 0; k < XS_CS_W; k++) {
                    /* k's sum, below 2^27 in magnitude, from its bits
                     * modulo 2^32 (GCC and Clang, the only compilers of
                     * this file, convert to int32_t modulo 2^32) */
                    whole[k] = (double)(int32_t)k_total[h * XS_CS_W + k];
                }
                acc[p][1] += whole * grid[p];
                /* R at u_1 first (R alone may exceed 2^53 u_2), then the
                 * carry step */
                XS_CS_VD upper = (rest[p] + sig[p][1]) - sig[p][1];
                acc[p][1] += upper;
                acc[p][2] += rest[p] - upper;
                XS_CS_CARRY(acc[p], sig[p], 2)
            }
        }
    }
    for (int g = 0; g < G; g++) {
        int lane0 = (first + g) * XS_CS_W32;
        XS_CS_FN(cs_range32_end)(range[g], lane0, b);
        for (int h = 0; h < 2; h++) {
            int p = 2 * g + h, lane = lane0 + h * XS_CS_W;
            for (int c = 0; c <= 2; c++) {
                memcpy(&b->cells[c][lane], &acc[p][c], sizeof acc[p][c]);
            }
            for (int k = 0; k < XS_CS_W; k++) {
                b->max_bits[lane + k] = acc[p][2][k] != acc[p][2][k] ? UINT64_MAX
                                                                       : b->max_bits[lane + k];
            }
        }
    }
}

_Static_assert(XS_CELLS_WIDTH == 47, "cs_split32's scales: s_1 = 1.5 2^(T + 5)");
#ifndef XS_CS_SPLIT32_SWEEP
#define XS_CS_SPLIT32_SWEEP (XS_CS_PARTS / 2)
#endif
/* A strip's block of float32 rows with two cells, split (above). */
XS_CS_TARGET static void XS_CS_FN(strip_block_f32_split)(const char *q, ptrdiff_t rows,
                                                           ptrdiff_t row_stride,
                                                           const double (*sigma)[XS_STRIP],
                                                           xs_strip_block *b)
{
    for (int first = 0; first < XS_CS_PARTS / 2; first += XS_CS_SPLIT32_SWEEP) {
        XS_CS_FN(cs_split32)(q, rows, row_stride, sigma, b, first, XS_CS_SPLIT32_SWEEP);
    }
}
#endif

/* The range of a strip's block alone, no cuts (a strip with no window
 * yet): every vector of the row at once, rows in pairs as in cs_part. */
XS_CS_TARGET XS_INLINE void XS_CS_FN(cs_range)(const char *q, ptrdiff_t rows,
                                                 ptrdiff_t row_stride, int itemsize,
                                                 xs_strip_block *b)
{
#ifdef XS_CS_F32_RANGE
    if (itemsize == 4) {
        XS_CS_FN(cs_range32)(q, rows, row_stride, b);
        return;
    }
#endif
    XS_CS_RANGE range[XS_CS_PARTS];
    for (int part = 0; part < XS_CS_PARTS; part++) {
        range[part] = XS_CS_FN(cs_range_init)();
    }
    ptrdiff_t r = 0;
    for (; r + 1 < rows; r += 2, q += 2 * row_stride) {
        XS_PREFETCH((const void *)((uintptr_t)q + XS_PREFETCH_BYTES(itemsize)));
        XS_PREFETCH((const void *)((uintptr_t)q + (uintptr_t)row_stride +
                                   XS_PREFETCH_BYTES(itemsize)));
        for (int part = 0; part < XS_CS_PARTS; part++) {
            const char *at = q + part * XS_CS_W * itemsize;
            XS_CS_FN(cs_range_step2)(XS_CS_FN(cs_load)(at, itemsize),
                                     XS_CS_FN(cs_load)(at + row_stride, itemsize),
                                     &range[part]);
        }
    }
    if (r < rows) {                                     /* an odd row out */
        for (int part = 0; part < XS_CS_PARTS; part++) {
            XS_CS_VD v = XS_CS_FN(cs_load)(q + part * XS_CS_W * itemsize, itemsize);
            XS_CS_FN(cs_range_step)(v, &range[part]);
        }
    }
    for (int part = 0; part < XS_CS_PARTS; part++) {
        XS_CS_FN(cs_range_end)(range[part], (XS_CS_VD){0}, part * XS_CS_W, b);
    }
}

#define XS_CS_TYPE(SUFFIX, ITEMSIZE) \
XS_CS_TARGET static void XS_CS_CAT(XS_CS_FN(strip_block), SUFFIX)( \
    const char *q, ptrdiff_t rows, ptrdiff_t row_stride, int K, \
    const double (*sigma)[XS_STRIP], xs_strip_block *b) \
{ \
    switch (K) { \
    case 1: XS_CS_FN(cs_block)(q, rows, row_stride, 1, ITEMSIZE, sigma, b); break; \
    case 2: XS_CS_FN(cs_block)(q, rows, row_stride, 2, ITEMSIZE, sigma, b); break; \
    case 3: XS_CS_FN(cs_block)(q, rows, row_stride, 3, ITEMSIZE, sigma, b); break; \
    default: XS_CS_FN(cs_block)(q, rows, row_stride, 4, ITEMSIZE, sigma, b); break; \
    } \
} \
XS_CS_TARGET static void XS_CS_CAT(XS_CS_CAT(XS_CS_FN(strip_block), SUFFIX), range)( \
    const char *q, ptrdiff_t rows, ptrdiff_t row_stride, xs_strip_block *b) \
{ \
    XS_CS_FN(cs_range)(q, rows, row_stride, ITEMSIZE, b); \
}
XS_CS_TYPE(f64, 8)
#ifndef XS_CS_F64_ONLY
XS_CS_TYPE(f32, 4)
#endif
_Static_assert(XS_CELLS_MIN == 1 && XS_CELLS_MAX == 4, "instances for K = 1, 2, 3 and XS_CELLS_MAX");

#undef XS_CS_TYPE
#undef XS_CS_RUN
#undef XS_CS_RANGE
#undef XS_CS_KEY_MAX
#undef XS_CS_KEY_MIN
#undef XS_CS_PARTS
#undef XS_CS_VI
#undef XS_CS_VF
#undef XS_CS_VD
#undef XS_CS_FN
#undef XS_CS_CAT
#undef XS_CS_CAT2
#undef XS_CS_ISA
#undef XS_CS_TARGET
#undef XS_CS_W
#undef XS_CS_WIDEN32
#undef XS_CS_MAX16
#undef XS_CS_MIN16
#undef XS_CS_MAXU32
#undef XS_CS_MINU32
#undef XS_CS_FP_UNORDF
#undef XS_CS_F32_RANGE
#undef XS_CS_VG
#undef XS_CS_VJ
#undef XS_CS_VU
#undef XS_CS_V64U
#undef XS_CS_RANGE32
#undef XS_CS_W32
#undef XS_CS_ABS32
#undef XS_CS_INF32
#undef XS_CS_KEY32
#undef XS_CS_TRACK
#undef XS_CS_TOP16_RANGE
#undef XS_CS_TOP16_MAX
#undef XS_CS_TOP16_MIN
#undef XS_CS_CUT_SUB
#undef XS_CS_REST
#undef XS_CS_SWEEP
#undef XS_CS_F64_ONLY
#undef XS_CS_WIDEN_HALVES
#undef XS_CS_SPLIT32_SWEEP
#undef XS_CS_SPLIT32_REST
#undef XS_CS_CARRY
