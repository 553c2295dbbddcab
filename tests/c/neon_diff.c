/*
 * Differential test of the vector kernels against the portable ones, bit
 * for bit, and of the drivers against the scalar exact accumulators.
 *
 * Built by .ci/aarch64 with aarch64-linux-gnu-gcc and run under
 * qemu-aarch64-static (no root file system, no Python: only the kernel
 * files and the exact accumulators are compiled), where it compares every
 * NEON kernel with the generic one; built natively by
 * tests/test_neon_diff.py, where it compares the x86 kernels the CPU runs
 * (SSE2, AVX2, AVX-512) with the generic ones the same way.
 *
 * Kernel level, per family (cells of rows: float64, float32, bfloat16;
 * dot cells; column strips: float64, float32; short rows, whose ranges
 * must match bit for bit, and the sums of either pass when the row fits its
 * window: test_short_rows): the same blocks through the
 * generic variant and each other one, from the same lanes, under windows
 * chosen from the block's range and under windows moved off it (too few
 * cells, tops lower and higher, a window none fits), several blocks in a
 * row per window: the return value and the range (as the drivers read
 * it) must be the same, and the lanes: bit for bit for column strips (a
 * NaN lane: any NaN), by exact total for the cells of rows and of dot
 * products (AVX-512 lays its lanes out otherwise, and the generic kernels
 * of those cut by running sums, which may put a tie in the other cell;
 * every strip instance cuts by running sums, the same ones).  The data:
 * normal values, spreads of 2^60, 2^500 and the whole exponent range,
 * subnormals, raw bit patterns,
 * and hostile values sprinkled in (+-0.0, +-Inf, NaN, the largest and
 * smallest doubles, powers of two at window edges).
 *
 * Driver level, under the level in force (XSUMUFUNC_KERNEL caps it): sums,
 * short rows' sums and means (when the short path decides them), dot
 * products and column sums of rows of every length 1..3000 made of
 * segments of different kinds (so windows move and blocks are refused)
 * must round to the same value as the scalar exact accumulators.
 *
 * Usage: neon_diff [trials] (default 3000); prints what it checked and
 * exits 1 on the first report of a mismatch (after printing up to 20).
 */
#include "kernels/cells/xs_cells_variants.h"
#include "kernels/cells/xs_columns_variants.h"
#include "kernels/dot/xs_dot_cells_variants.h"
#include "kernels/dot/xs_dot_cells.h"
#include "kernels/dot/xs_short_row.h"
#include "kernels/dot/xs_short_row_variants.h"
#include "exact/xs_dot.h"
#include "exact/xs_large.h"
#include "exact/xs_small.h"
#include "test_random.h"
#ifdef XS_CPU_X86
#include "kernels/cells/xs_top16.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- random numbers and data ------------------------------------------- */

enum { NORMAL, SPREAD60, SPREAD500, WHOLE_RANGE, SUBNORMAL, RAW_BITS, LARGEST, ZEROS, KINDS };
static const char *const kind_names[KINDS] = {"normal", "spread 2^60", "spread 2^500",
                                              "whole range", "subnormal", "raw bits",
                                              "largest binades", "zeros"};

static double hostile(void)
{
    switch (below(12)) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return INFINITY;
    case 3: return -INFINITY;
    case 4: return NAN;
    case 5: return below(2) ? 1.7976931348623157e308 : -1.7976931348623157e308;
    case 6: return xs_bits_double((uint64_t)1 << 52);              /* smallest normal */
    case 7: return xs_bits_double(1);                              /* smallest subnormal */
    case 8: return ldexp(1.0, below(2046) - 1022);                 /* a window's edge */
    case 9: return -ldexp(1.0, below(200) - 100) * (1.0 - 0x1p-53);
    case 10: return ldexp(1.5, below(100) - 50);
    default: return with_field(2046);                             /* the largest binade */
    }
}

static double value_of(int kind)
{
    switch (kind) {
    case NORMAL: return with_field(1023 + below(6) - 3);
    case SPREAD60: return with_field(1023 + below(121) - 60);
    case SPREAD500: return with_field(1023 + below(1001) - 500);
    case WHOLE_RANGE: return with_field(1 + below(2046));
    case SUBNORMAL: return below(4) ? with_field(0) : with_field(1 + below(60));
    case RAW_BITS: return xs_bits_double(next64());
    /* finite, but the cuts and the lanes overflow (NaN lanes, no NaN term) */
    case LARGEST: return with_field(2045 + below(2));
    default: return below(2) ? 0.0 : -0.0;
    }
}

/* n values of one kind, hostile ones sprinkled in at the rate 1/rate (0:
 * none). */
static void fill(double *x, int n, int kind, int rate)
{
    for (int i = 0; i < n; i++) {
        x[i] = rate && below(rate) == 0 ? hostile() : value_of(kind);
    }
}

/* ---- checks ------------------------------------------------------------ */

static long checks, failures;

static void report(const char *what, const char *family, const char *isa, int kind)
{
    failures++;
    if (failures <= 20) {
        fprintf(stderr, "MISMATCH %s: %s, %s, data %s\n", what, family, isa,
                kind >= 0 ? kind_names[kind] : "mixed");
    }
}

#define CHECK(cond, what, family, isa, kind) \
    do { \
        checks++; \
        if (!(cond)) { \
            report((what), (family), (isa), (kind)); \
        } \
    } while (0)

/* The same double (NaNs: any NaN, whose payload the ISA may choose). */
static int same(double a, double b)
{
    return xs_double_bits(a) == xs_double_bits(b) || (a != a && b != b);
}

static int same_doubles(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!same(a[i], b[i])) {
            return 0;
        }
    }
    return 1;
}

/* The lanes summed exactly (a small accumulator), for kernels whose lanes
 * may hold different amounts in each cell, the same in all: AVX-512's 16
 * per cell take term i in lane i mod 16, the others' 8 in lane i mod 8,
 * and the generic kernels' running cuts may send a tie to the other
 * neighbour. */
static int same_sums(xs_small *sa, xs_small *sb)
{
    /* The total rounded, and what is left of it rounded again: two doubles
     * that tell the exact totals apart. */
    double ra = xs_small_round(sa, &xs_format_float64);
    double rb = xs_small_round(sb, &xs_format_float64);
    if (!same(ra, rb)) {
        return 0;
    }
    if (ra == ra && fabs(ra) < 0x1p1000) {
        xs_small_add_bits(sa, xs_double_bits(-ra));
        xs_small_add_bits(sb, xs_double_bits(-rb));
        return same(xs_small_round(sa, &xs_format_float64),
                    xs_small_round(sb, &xs_format_float64));
    }
    return 1;
}

static void add_lanes(xs_small *s, const double *lanes)
{
    for (int i = 0; i < XS_CELLS_LANES; i++) {
        xs_small_add_bits(s, xs_double_bits(lanes[i]));
    }
}

static int same_total(const double *a, const double *b)
{
    xs_small sa, sb;
    xs_small_init(&sa);
    xs_small_init(&sb);
    add_lanes(&sa, a);
    add_lanes(&sb, b);
    return same_sums(&sa, &sb);
}

/* The ISAs with kernels of their own that this CPU runs. */
static int runs(xs_isa isa)
{
    xs_isa best = xs_cpu_best();
    if (isa == XS_ISA_GENERIC) {
        return 0;
    }
    if (isa == XS_ISA_NEON || best == XS_ISA_NEON) {
        return isa == best;
    }
    return isa <= best;
}

/* ---- cells (rows) ------------------------------------------------------ */

static uint16_t to_bf16(double v)
{
    float f = (float)v;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return (uint16_t)(bits >> 16);
}

/* Two largest |values| (bit patterns) of the same exponent field. */
static int same_exponent(uint64_t x, uint64_t y)
{
    return x >> XS_F64_MANT_BITS == y >> XS_F64_MANT_BITS;
}

/* Two smallest non-zero |values| (bit patterns minus 1, all zero
 * UINT64_MAX): both all zero, or of the same exponent field. */
static int same_minimum(uint64_t x_m1, uint64_t y_m1)
{
    return (x_m1 == UINT64_MAX) == (y_m1 == UINT64_MAX) && same_exponent(x_m1 + 1, y_m1 + 1);
}

/* Whether a range whose largest |term| (or product) has the pattern
 * max_bits fits no window, whatever else it says: at or above the highest
 * window's limit, 2^XS_CELLS_TOP_MAX (a NaN, an Inf, or a finite value
 * that large).  The kernels may report such a range differently: the
 * floating-point measures of SSE2 and AVX2 a NaN, and a kernel whose cuts
 * or lanes overflowed (terms above 2^1000) a NaN lane where another, whose
 * lanes are laid out otherwise or measured otherwise, reports the finite
 * largest |term|. */
static int fits_no_window(uint64_t max_bits)
{
    return max_bits >= (uint64_t)(XS_CELLS_TOP_MAX + XS_CELLS_EXP_BIAS) << XS_F64_MANT_BITS;
}

/* Whether x_m1 and y_m1 report the same smallest non-zero |value| (all
 * zero: UINT64_MAX), x_top16 and y_top16 saying which measures it on
 * 16-bit keys (xs_top16.h: x86-64), which keep the top 16 bits of the
 * pattern of |value| - 1 alone (the same exponent field, except one binade
 * lower for a power of two); the others report the exact pattern less 1.
 * Where one measure keeps 16 bits, the other's top 16 bits are compared. */
static int same_minimum_portable(uint64_t x_m1, int x_top16, uint64_t y_m1, int y_top16)
{
    if (!x_top16 && !y_top16) {
        return same_minimum(x_m1, y_m1);
    }
#ifdef XS_CPU_X86
    if (x_m1 == UINT64_MAX || y_m1 == UINT64_MAX) {
        return x_m1 == y_m1;
    }
    return x_m1 >> XS_TOP16_SHIFT << XS_TOP16_SHIFT == y_m1 >> XS_TOP16_SHIFT << XS_TOP16_SHIFT;
#else
    return 0;                           /* no 16-bit keys off x86-64 */
#endif
}

/* Whether the portable row kernels measure on 16-bit keys, and the strips
 * (x86-64; the strips need vector extensions on every CPU). */
#ifdef XS_CELLS_PORTABLE_TOP16
#define CELLS_TOP16 1
#else
#define CELLS_TOP16 0
#endif
#ifdef XS_CPU_X86
#define STRIPS_TOP16 1
#else
#define STRIPS_TOP16 0
#endif

/* Whether a level's row kernels measure on 16-bit keys: the portable ones
 * when built so (CELLS_TOP16), AVX2's on x86-64 (stop 47), no others. */
static int cells_top16(xs_isa isa)
{
#ifdef XS_CPU_X86
    if (isa == XS_ISA_AVX2) {
        return 1;
    }
#endif
    return isa == XS_ISA_GENERIC ? CELLS_TOP16 : 0;
}

/* The same range, as far as the driver can tell: both fit no window
 * (fits_no_window), or the same exponent fields of the largest |term| and
 * the smallest non-zero one as the kernels report them (x_top16 and
 * y_top16: which measure the top 16 bits of each term only), and the same
 * "all zero" (the drivers read nothing else of them). */
static int same_cells_range(const xs_cells_range *x, int x_top16, const xs_cells_range *y,
                            int y_top16)
{
    if (fits_no_window(x->max_bits) || fits_no_window(y->max_bits)) {
        return fits_no_window(x->max_bits) && fits_no_window(y->max_bits);
    }
    return same_exponent(x->max_bits, y->max_bits) &&
           same_minimum_portable(x->min_bits_m1, x_top16, y->min_bits_m1, y_top16);
}

/* A kernel on 16-bit keys (k16, of range r16) refuses a block whose
 * smallest |term| is the window's least, a power of two, which its key
 * reads one binade lower, where a kernel measuring exactly (of range rx)
 * takes it: then k16's lanes take the other's block.  Whether that is
 * what happened (the caller copies the lanes). */
static int refused_for_its_key(int ok16, const xs_cells_range *r16, int okx,
                               const xs_cells_range *rx, const xs_cells_window *w)
{
    return !ok16 && okx && rx->min_bits_m1 == w->min_limit_m1 && r16->max_bits < w->max_limit &&
           same_minimum_portable(r16->min_bits_m1, 1, rx->min_bits_m1, 0);
}

/* One type's kernels, ref (generic) against alt, on rows of `blocks`
 * blocks of data of one kind; alt_top16: whether alt measures on 16-bit
 * keys (cells_top16). */
static void cells_type(const xs_cells_kernel *ref, const xs_cells_kernel *alt, const void *x,
                       size_t itemsize, int precision, int terms_per_block[], int blocks,
                       const char *family, const char *isa, int alt_top16, int kind)
{
    const int ref_top16 = CELLS_TOP16;
    static const xs_cells_window measure_only = {0};
    double lanes_ref[XS_CELLS_LANES] = {0}, lanes_alt[XS_CELLS_LANES] = {0};
    xs_cells_window w = {0};
    const char *p = x;
    for (int blk = 0; blk < blocks; blk++) {
        int terms = terms_per_block[blk];
        xs_cells_range r_ref, r_alt;
        int ok_ref = ref[1](p, terms, lanes_ref, &measure_only, &r_ref);
        int ok_alt = alt[1](p, terms, lanes_alt, &measure_only, &r_alt);
        CHECK(ok_ref == ok_alt && same_cells_range(&r_ref, ref_top16, &r_alt, alt_top16), "range",
              family, isa, kind);
        if (blk == 0 || below(3) == 0) {
            /* A window from this block's range, moved off it at times. */
            xs_cells_window fit;
            if (!xs_cells_choose(&fit, precision, r_ref.max_bits, r_ref.min_bits_m1)) {
                int top = 1 + below(XS_CELLS_TOP_MAX);
                xs_cells_set_window(&fit, precision, top, 1 + below(XS_CELLS_MAX));
            }
            int top = fit.top, cells = fit.cells;
            switch (below(4)) {
            case 0: top -= 1 + below(3); break;
            case 1: top += below(2) ? 1 : XS_CELLS_WIDTH; break;
            case 2: cells = 1 + below(XS_CELLS_MAX); break;
            default: break;
            }
            top = top > XS_CELLS_TOP_MAX ? XS_CELLS_TOP_MAX : top;
            xs_cells_set_window(&w, precision, top, cells);
            /* A new grid: the driver flushes the lanes first. */
            memset(lanes_ref, 0, sizeof lanes_ref);
            memset(lanes_alt, 0, sizeof lanes_alt);
        }
        ok_ref = ref[w.cells](p, terms, lanes_ref, &w, &r_ref);
        ok_alt = alt[w.cells](p, terms, lanes_alt, &w, &r_alt);
        if (ref_top16 && !alt_top16 && refused_for_its_key(ok_ref, &r_ref, ok_alt, &r_alt, &w)) {
            memcpy(lanes_ref, lanes_alt, sizeof lanes_ref);
            ok_ref = 1;
        }
        if (alt_top16 && !ref_top16 && refused_for_its_key(ok_alt, &r_alt, ok_ref, &r_ref, &w)) {
            memcpy(lanes_alt, lanes_ref, sizeof lanes_alt);
            ok_alt = 1;
        }
        CHECK(ok_ref == ok_alt, "accepted", family, isa, kind);
        CHECK(same_cells_range(&r_ref, ref_top16, &r_alt, alt_top16), "range", family, isa, kind);
        CHECK(same_total(lanes_ref, lanes_alt), "lanes", family, isa, kind);
        p += (size_t)terms * itemsize;
    }
}

static void test_cells(const xs_cells_set *ref, const xs_cells_set *alt, const char *isa,
                       int alt_top16, int trials)
{
    enum { MAX_BLOCKS = 6 };
    static double x[MAX_BLOCKS * XS_CELLS_BLOCK];
    static float xf[MAX_BLOCKS * XS_CELLS_BLOCK];
    static uint16_t xb[MAX_BLOCKS * XS_CELLS_BLOCK];
    for (int t = 0; t < trials; t++) {
        int kind = below(KINDS), blocks = 1 + below(MAX_BLOCKS);
        int terms[MAX_BLOCKS], n = 0;
        for (int blk = 0; blk < blocks; blk++) {
            terms[blk] = XS_CELLS_STEP * (1 + below(XS_CELLS_BLOCK / XS_CELLS_STEP));
            n += terms[blk];
        }
        fill(x, n, kind, below(2) ? 0 : 1 + below(300));
        for (int i = 0; i < n; i++) {
            /* float32 and bfloat16: of the same data, or of raw bits */
            xf[i] = kind == RAW_BITS ? xs_bits_double(next64()) == 0 ? 0.0f
                    : (float)(int32_t)next64() * 0x1p-20f : (float)x[i];
            xb[i] = kind == RAW_BITS ? (uint16_t)next64() : to_bf16(x[i]);
        }
        cells_type(ref->f64, alt->f64, x, 8, 53, terms, blocks,
                   "cells float64", isa, alt_top16, kind);
        cells_type(ref->f32, alt->f32, xf, 4, 24, terms, blocks,
                   "cells float32", isa, alt_top16, kind);
        cells_type(ref->bf16, alt->bf16, xb, 2, 8, terms, blocks,
                   "cells bfloat16", isa, alt_top16, kind);
    }
}

/* ---- dot cells --------------------------------------------------------- */

/* A window for a block of range r (as xs_dot_cells.c chooses one), its top
 * and cells moved by dtop, dcells; 0 if none. */
static int dot_window(xs_cells_window *w, const xs_dot_cells_range *r, int dtop, int dcells)
{
    if (r->max_p >= XS_CELLS_INF_BITS || r->max_p == 0) {
        return 0;
    }
    int top = xs_cells_top_for(r->max_p) + dtop;
    top = top > XS_CELLS_TOP_MAX ? XS_CELLS_TOP_MAX : top;
    int cells = 2;
    if (r->min_sum != XS_DOT_NO_PRODUCTS) {
        cells = r->min_sum < XS_DOT_MIN_SUM_NORMAL ? XS_CELLS_GRID_MAX
                : xs_cells_for_quantum(top, r->min_sum - 2150);
    }
    cells += dcells;
    cells = cells < 2 ? 2 : cells > XS_CELLS_GRID_MAX ? XS_CELLS_GRID_MAX : cells;
    xs_cells_set_grid(w, top, cells);
    int q = top - cells * XS_CELLS_WIDTH;
    w->min_quantum_sum = (q > -1074 ? q : -1074) + 2150;
    return 1;
}

/* Whether the generic variant refuses the block for its split (Dekker's
 * product: xs_dot_cells_generic.c): an operand that the split rounds up to
 * Inf (the top of the largest binade). */
static int unsplit(const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++) {
        if (fabs(a[i]) >= 0x1.ffffffep1023 || fabs(b[i]) >= 0x1.ffffffep1023) {
            return 1;
        }
    }
    return 0;
}

/* The range of a block as the FMA variants measure it: the smallest
 * non-zero |a| and |b| (xs_dot_cells_operand_sum); the portable ones
 * measure the smallest |p| (xs_dot_cells_measure). */
static void operand_range(const double *a, const double *b, int n, xs_dot_cells_range *r)
{
    uint64_t ma = UINT64_MAX, mb = UINT64_MAX;
    for (int i = 0; i < n; i++) {
        uint64_t xa = (xs_double_bits(a[i]) & XS_CELLS_ABS_BITS) - 1;
        uint64_t xb = (xs_double_bits(b[i]) & XS_CELLS_ABS_BITS) - 1;
        ma = xa < ma ? xa : ma;
        mb = xb < mb ? xb : mb;
    }
    xs_dot_cells_measure((const char *)a, (const char *)b, n, r);
    r->min_sum = xs_dot_cells_operand_sum(ma, mb);
}

/* The largest min_sum that the kernels may claim for a block, from the
 * definition (xs_dot_cells_variants.h), independently of the ways they
 * measure it: every product a*b of non-zero operands a multiple of
 * 2^(S - 2150) (S at most fa + fb, a subnormal's field taken as 1) and
 * p = fl(a*b) normal and a multiple of 2^52 times that (S at most
 * fp + 1023); -1 when a p is not normal, XS_DOT_NO_PRODUCTS with no such
 * product. */
static int sound_min_sum(const double *a, const double *b, int n)
{
    int most = XS_DOT_NO_PRODUCTS;
    for (int i = 0; i < n; i++) {
        if (a[i] == 0.0 || b[i] == 0.0) {
            continue;
        }
        int fa = (int)((xs_double_bits(a[i]) & XS_CELLS_ABS_BITS) >> XS_F64_MANT_BITS);
        int fb = (int)((xs_double_bits(b[i]) & XS_CELLS_ABS_BITS) >> XS_F64_MANT_BITS);
        int fp = (int)((xs_double_bits(a[i] * b[i]) & XS_CELLS_ABS_BITS) >> XS_F64_MANT_BITS);
        int s = (fa ? fa : 1) + (fb ? fb : 1);
        s = fp + 1023 < s ? fp + 1023 : s;
        s = fp == 0 ? -1 : s;
        most = s < most ? s : most;
    }
    return most;
}

/* Whether a kernel's range (got) is the block's (want), as far as the
 * driver can tell: both fit no window (fits_no_window; a kernel may also
 * refuse what it cannot take, may_refuse), or the same exponent field of
 * the largest |p| (the portable kernels on x86-64 measure the top 16 bits)
 * and the same min_sum, which a window may trust: at most the definition's
 * (sound_min_sum, of the block's n products of a and b). */
static int right_dot_range(const xs_dot_cells_range *got, const xs_dot_cells_range *want,
                           int may_refuse, const double *a, const double *b, int n)
{
    if (fits_no_window(got->max_p)) {
        return fits_no_window(want->max_p) || may_refuse;
    }
    int most = sound_min_sum(a, b, n);
    int sound = got->min_sum < XS_DOT_MIN_SUM_NORMAL || got->min_sum <= most;
    return !fits_no_window(want->max_p) && same_exponent(got->max_p, want->max_p) &&
           got->min_sum == want->min_sum && sound;
}

/* Whether a kernel's lanes after a block are right: the lanes before and
 * the block's products, exactly, when it took the block (p and
 * e = fma(a, b, -p), exact for every product a window takes); the lanes
 * before, bit for bit, when it refused it. */
static int right_dot_lanes(const double *before, const double *after, int took,
                           const double *a, const double *b, int n)
{
    if (!took) {
        return same_doubles(before, after, XS_CELLS_LANES);
    }
    xs_small want, got;
    xs_small_init(&want);
    xs_small_init(&got);
    add_lanes(&want, before);
    add_lanes(&got, after);
    for (int i = 0; i < n; i++) {
        double p = a[i] * b[i];
        xs_small_add_bits(&want, xs_double_bits(p));
        xs_small_add_bits(&want, xs_double_bits(fma(a[i], b[i], -p)));
    }
    return same_sums(&want, &got);
}

/* Each kernel against the block's exact range and products: the portable
 * kernels measure the smallest |p| and the FMA ones the smallest |a| and
 * |b|, so that they may take different blocks of the same window; each
 * carries on from its own lanes. */
static void test_dot(const xs_dot_cells_set *ref, const xs_dot_cells_set *alt, const char *isa,
                     int trials)
{
    enum { MAX_BLOCKS = 6 };
    static double a[MAX_BLOCKS * XS_CELLS_BLOCK], b[MAX_BLOCKS * XS_CELLS_BLOCK];
    static const xs_cells_window measure_only = {0};
    const xs_dot_cells_set *const sets[2] = {ref, alt};
    for (int t = 0; t < trials; t++) {
        int kind_a = below(KINDS), kind_b = below(KINDS), blocks = 1 + below(MAX_BLOCKS);
        int rate = below(2) ? 0 : 1 + below(300);
        double lanes[2][XS_CELLS_LANES] = {{0}}, before[XS_CELLS_LANES];
        xs_cells_window w = {0};
        int have_window = 0;
        for (int blk = 0; blk < blocks; blk++) {
            int n = XS_CELLS_STEP * (1 + below(XS_CELLS_BLOCK / XS_CELLS_STEP));
            fill(a, n, kind_a, rate);
            fill(b, n, kind_b, rate);
            const char *pa = (const char *)a, *pb = (const char *)b;
            xs_dot_cells_range want[2], got[2];
            xs_dot_cells_measure(pa, pb, n, &want[0]);
            operand_range(a, b, n, &want[1]);
            int may_refuse[2] = {unsplit(a, b, n), 0};
            for (int k = 0; k < 2; k++) {
                memcpy(before, lanes[k], sizeof before);
                sets[k]->by_cells[2](pa, pb, n, lanes[k], &measure_only, &got[k]);
                CHECK(right_dot_range(&got[k], &want[k], may_refuse[k], a, b, n), "dot range",
                      "dot cells", k ? isa : "generic", kind_a);
                CHECK(same_doubles(before, lanes[k], XS_CELLS_LANES), "dot measure only",
                      "dot cells", k ? isa : "generic", kind_a);
            }
            if (!have_window || below(3) == 0) {
                int moved = below(4);
                have_window = dot_window(&w, &want[below(2)], moved == 0 ? -1 - below(3) :
                                         moved == 1 ? 1 : 0, moved == 2 ? -1 - below(3) : 0);
                if (!have_window) {
                    continue;
                }
                memset(lanes, 0, sizeof lanes);       /* a new grid: flushed */
            }
            for (int k = 0; k < 2; k++) {
                memcpy(before, lanes[k], sizeof before);
                int took = sets[k]->by_cells[w.cells](pa, pb, n, lanes[k], &w, &got[k]);
                CHECK(right_dot_range(&got[k], &want[k], may_refuse[k], a, b, n), "dot range",
                      "dot cells", k ? isa : "generic", kind_a);
                CHECK(took == xs_dot_cells_fits(&w, &got[k]), "dot accepted", "dot cells",
                      k ? isa : "generic", kind_a);
                CHECK(right_dot_lanes(before, lanes[k], took, a, b, n), "dot lanes",
                      "dot cells", k ? isa : "generic", kind_a);
            }
        }
    }
}

/* Blocks of products of a subnormal by a normal operand, each the other
 * way round at random, the subnormal's integer (its fraction field) next
 * to the generic split's cuts 2^26 and 2^27 and the normal one's
 * significand next to 2^53 - 2^26: where a split rounding ties away from
 * zero makes Dekker's product inexact (xs_dot_cells_generic.c).  Every
 * block fits a window; each kernel must take it, with the lanes exact. */
static void test_dot_split_ties(const xs_dot_cells_set *ref, const xs_dot_cells_set *alt,
                                const char *isa, int trials)
{
    static const int64_t edges[] = {-2, -1, 0, 1, 2};
    double a[XS_CELLS_BLOCK], b[XS_CELLS_BLOCK];
    const xs_dot_cells_set *const sets[2] = {ref, alt};
    for (int t = 0; t < trials; t++) {
        int exponent = XS_CELLS_EXP_BIAS + 300 + below(40);       /* y near 2^300 */
        for (int i = 0; i < XS_CELLS_BLOCK; i++) {
            uint64_t tiny = ((uint64_t)1 << (26 + below(2))) + (uint64_t)edges[below(5)];
            uint64_t wide = ((uint64_t)1 << 52) - ((uint64_t)1 << 26) + (uint64_t)edges[below(5)];
            double x = xs_bits_double(tiny | (uint64_t)below(2) << 63);
            double y = xs_bits_double((uint64_t)(exponent + below(4)) << XS_F64_MANT_BITS | wide);
            y = below(2) ? -y : y;
            a[i] = below(2) ? x : y;
            b[i] = a[i] == x ? y : x;
        }
        xs_dot_cells_range want[2], got[2];
        xs_dot_cells_measure((const char *)a, (const char *)b, XS_CELLS_BLOCK, &want[0]);
        operand_range(a, b, XS_CELLS_BLOCK, &want[1]);
        xs_cells_window w;
        for (int k = 0; k < 2; k++) {
            if (want[k].min_sum < XS_DOT_MIN_SUM_NORMAL) {
                continue;        /* the FMA variants refuse subnormal operands */
            }
            CHECK(dot_window(&w, &want[k], 0, 0), "dot window", "dot split ties", isa, -1);
            double lanes[XS_CELLS_LANES] = {0}, zeros[XS_CELLS_LANES] = {0};
            int took = sets[k]->by_cells[w.cells]((const char *)a, (const char *)b,
                                                  XS_CELLS_BLOCK, lanes, &w, &got[k]);
            CHECK(took, "dot took", "dot split ties", k ? isa : "generic", -1);
            CHECK(right_dot_lanes(zeros, lanes, took, a, b, XS_CELLS_BLOCK), "dot lanes",
                  "dot split ties", k ? isa : "generic", -1);
        }
    }
}

/* ---- column strips ----------------------------------------------------- */

/* Whether x_m1 (the portable kernel's) is the smallest non-zero |value|
 * y_m1 (exact) as the 16-bit measure of float32 rows on x86-64 reports it
 * (xs_columns_strip.h): t 2^16 + 1 for the top t of the float32 pattern of
 * |value| - 1, which has the same exponent field except when the smallest
 * is a power of two (one binade lower) or a subnormal below 2^-133 (the
 * smallest subnormal's). */
#ifdef XS_CPU_X86
static int same_minimum_f32_top16(uint64_t x_m1, uint64_t y_m1)
{
    if (same_minimum(x_m1, y_m1)) {
        return 1;
    }
    if (x_m1 == UINT64_MAX || y_m1 == UINT64_MAX) {
        return 0;
    }
    float y = (float)xs_bits_double(y_m1 + 1);        /* exact: a float32 widened */
    uint32_t m, rep;
    memcpy(&m, &y, sizeof m);
    rep = (((m - 1) >> 16) << 16) + 1;
    float r;
    memcpy(&r, &rep, sizeof r);
    return same_exponent(xs_double_bits((double)r), x_m1 + 1);
}

/* Whether x (the portable kernel's) is the largest |value| y (exact, not
 * special) as that measure reports it: the same exponent field, or, for a
 * lane whose values are all below 2^-133 (a float32 top of 0), float32
 * 0xffff's. */
static int same_maximum_f32_top16(uint64_t x, uint64_t y)
{
    float yf = (float)xs_bits_double(y);                 /* exact: a float32 widened */
    uint32_t m, top0_max = 0xffffu;
    memcpy(&m, &yf, sizeof m);
    if (m == 0 || m >= 0x10000u) {
        return same_exponent(x, y);
    }
    float r;
    memcpy(&r, &top0_max, sizeof r);
    return same_exponent(x, xs_double_bits((double)r));
}
#endif

/* The same strip range, lane by lane, as far as the driver can tell (as
 * same_cells_range); x the portable kernel's, y another's (AVX2's on 16-bit
 * keys too, AVX-512's exact: where x keeps 16 bits, y's top 16 bits are
 * compared either way), of float32 rows when f32 (see
 * same_minimum_f32_top16). */
static int same_strip_range(const xs_strip_block *x, const xs_strip_block *y, int f32)
{
    for (int k = 0; k < XS_STRIP; k++) {
        int x_special = fits_no_window(x->max_bits[k]);
        int y_special = fits_no_window(y->max_bits[k]);
        if (x_special || y_special) {
            if (!(x_special && y_special)) {
                return 0;
            }
            continue;
        }
#ifdef XS_CPU_X86
        int min_ok = f32 ? same_minimum_f32_top16(x->min_bits_m1[k], y->min_bits_m1[k])
                         : same_minimum_portable(x->min_bits_m1[k], STRIPS_TOP16,
                                                 y->min_bits_m1[k], 0);
        int max_ok = f32 ? same_maximum_f32_top16(x->max_bits[k], y->max_bits[k])
                         : same_exponent(x->max_bits[k], y->max_bits[k]);
#else
        (void)f32;
        int min_ok = same_minimum(x->min_bits_m1[k], y->min_bits_m1[k]);
        int max_ok = same_exponent(x->max_bits[k], y->max_bits[k]);
#endif
        if (!max_ok || !min_ok) {
            return 0;
        }
    }
    return 1;
}

static void test_columns(const xs_strip_kernels *ref, const xs_strip_kernels *alt,
                         const char *isa, int trials)
{
    enum { MAX_ROWS = 2 * XS_COLUMN_BLOCK_ROWS, MAX_STRIDE = 3 * XS_STRIP };
    static double data[MAX_ROWS * MAX_STRIDE];
    static float dataf[MAX_ROWS * MAX_STRIDE];
    for (int t = 0; t < trials; t++) {
        int itemsize = below(2) ? 8 : 4, precision = itemsize == 8 ? 53 : 24;
        int rows = 1 + below(XS_COLUMN_BLOCK_ROWS), width = XS_STRIP * (1 + below(3));
        int rate = below(2) ? 0 : 1 + below(200), kind = below(KINDS);
        int kinds[XS_STRIP];
        for (int k = 0; k < XS_STRIP; k++) {
            kinds[k] = below(4) ? kind : below(KINDS);
        }
        for (int r = 0; r < rows; r++) {
            for (int k = 0; k < XS_STRIP; k++) {
                fill(&data[r * width + k], 1, kinds[k], rate);
                dataf[r * width + k] = (float)data[r * width + k];
            }
        }
        const char *q = itemsize == 8 ? (const char *)data : (const char *)dataf;
        ptrdiff_t stride = (ptrdiff_t)width * itemsize;
        xs_strip_block b_ref, b_alt;
        (itemsize == 8 ? ref->range64 : ref->range32)(q, rows, stride, &b_ref);
        (itemsize == 8 ? alt->range64 : alt->range32)(q, rows, stride, &b_alt);
        CHECK(same_strip_range(&b_ref, &b_alt, itemsize == 4), "strip range", "columns", isa,
              kind);
        /* Each lane its own window (from its range, moved at times), the
         * strip one cell count; some lanes with none (constants 1.0). */
        int K = 2 + below(XS_CELLS_MAX - 1);
        double sigma[XS_CELLS_MAX + 1][XS_STRIP];
        for (int k = 0; k < XS_STRIP; k++) {
            xs_cells_window w;
            int fits = xs_cells_choose(&w, precision, b_ref.max_bits[k], b_ref.min_bits_m1[k]);
            int top = fits ? w.top + (below(3) == 0 ? below(5) - 2 : 0) : 1 + below(900);
            top = top > XS_CELLS_TOP_MAX ? XS_CELLS_TOP_MAX : top;
            xs_cells_set_window(&w, precision, top, K);
            for (int c = 0; c <= XS_CELLS_MAX; c++) {
                sigma[c][k] = below(10) ? w.sigma[c] : 1.0;
            }
        }
        for (int pass = 0; pass < 2; pass++) {        /* the second from the first's cells */
            if (pass == 0) {
                memset(b_ref.cells, 0, sizeof b_ref.cells);
                memset(b_alt.cells, 0, sizeof b_alt.cells);
            }
            (itemsize == 8 ? ref->f64 : ref->f32)(q, rows, stride, K,
                                                  (const double (*)[XS_STRIP])sigma, &b_ref);
            (itemsize == 8 ? alt->f64 : alt->f32)(q, rows, stride, K,
                                                  (const double (*)[XS_STRIP])sigma, &b_alt);
            CHECK(same_strip_range(&b_ref, &b_alt, itemsize == 4), "strip range", "columns", isa,
              kind);
            CHECK(same_doubles(&b_ref.cells[0][0], &b_alt.cells[0][0],
                               (XS_CELLS_MAX + 1) * XS_STRIP), "strip cells", "columns", isa,
                  kind);
        }
    }
}

/* The float32 split kernel of two-cell strips (xs_columns_variants.h,
 * XS_SPLIT32_SPAN), where a level has one, against the level's cuts: each
 * lane under its own top T within the split's limits; rows whose rests
 * are the largest a cut leaves (x = (m + 1/2) g less an ulp, g = 2^(T - 22):
 * the rests of a carry step sum to just below 2^(T - 18)), with one term of
 * 24 significant bits near 2^(T - XS_SPLIT32_SPAN), above or below it, and
 * random terms over the span, zeros, and at times a NaN or an Inf.  For
 * every lane whose block the driver would keep (its range within the
 * window and the span), the cells must hold the cuts' exact total, and the
 * range must be the cuts' own. */
static void test_split_columns(const xs_strip_kernels *strips, const char *isa, int trials)
{
    enum { MAX_ROWS = 2 * XS_COLUMN_BLOCK_ROWS - 1 };
    static float dataf[MAX_ROWS * XS_STRIP];
    long kept = 0, lanes = 0;
    for (int t = 0; t < trials; t++) {
        int rows = 1 + below(MAX_ROWS), tops[XS_STRIP];
        double sigma[XS_CELLS_MAX + 1][XS_STRIP];
        for (int k = 0; k < XS_STRIP; k++) {
            /* float32 terms down to 2^(T - 52): tops from -97 */
            int top = below(4) ? -97 + below(XS_SPLIT32_TOP_MAX + 98)
                               : (below(2) ? -97 : XS_SPLIT32_TOP_MAX);
            xs_cells_window w;
            xs_cells_set_window(&w, 24, top, 2);
            for (int c = 0; c <= XS_CELLS_MAX; c++) {
                sigma[c][k] = w.sigma[c];
            }
            tops[k] = top;
            double g = ldexp(1.0, top - 22);
            int mode = below(4), least_row = below(rows);
            int least_exp = top - XS_SPLIT32_SPAN - 2 + below(5);
            for (int r = 0; r < rows; r++) {
                double x;
                if (r == least_row) {
                    /* 24 significant bits, the lowest set */
                    x = ldexp(1.0 + (double)(2 * below(1 << 22) + 1) * 0x1p-23, least_exp);
                }
                else if (mode == 0 || mode == 1) {
                    double m = (double)((1 << 20) + below(3 << 20));   /* x in [2^(T-2), 2^T) */
                    x = (m + 0.5) * g;
                    x -= ldexp(1.0, ilogb(x) - 23);
                    x = mode == 0 || below(2) ? x : -x;
                }
                else if (mode == 2) {
                    x = ldexp(1.0 + (double)below(1 << 23) * 0x1p-23,
                              top - 1 - below(XS_SPLIT32_SPAN - 1));
                    x = below(2) ? x : -x;
                    x = below(16) ? x : 0.0;
                }
                else {
                    x = below(64) ? ldexp(1.0 + (double)below(1 << 23) * 0x1p-23,
                                          top - 1 - below(XS_SPLIT32_SPAN - 1))
                                  : (below(2) ? (double)NAN : (below(2) ? INFINITY : -INFINITY));
                }
                dataf[r * XS_STRIP + k] = (float)x;
            }
        }
        ptrdiff_t stride = XS_STRIP * 4;
        xs_strip_block b_cut, b_split;
        memset(b_cut.cells, 0, sizeof b_cut.cells);
        for (int pass = 0; pass < 2; pass++) {        /* the second from the first's cells */
            memcpy(b_split.cells, b_cut.cells, sizeof b_cut.cells);
            strips->f32((const char *)dataf, rows, stride, 2, (const double (*)[XS_STRIP])sigma,
                        &b_cut);
            strips->f32_split((const char *)dataf, rows, stride,
                              (const double (*)[XS_STRIP])sigma, &b_split);
            CHECK(same_strip_range(&b_cut, &b_split, 1), "split range", "columns", isa, -1);
            for (int k = 0; k < XS_STRIP; k++) {
                uint64_t limit = (uint64_t)(tops[k] + XS_CELLS_EXP_BIAS) << XS_F64_MANT_BITS;
                uint64_t least = (uint64_t)(tops[k] - XS_SPLIT32_SPAN + XS_CELLS_EXP_BIAS)
                                 << XS_F64_MANT_BITS;
                lanes++;
                if (!(b_split.max_bits[k] < limit && b_split.min_bits_m1[k] >= least - 1)) {
                    continue;
                }
                kept++;
                xs_small sa, sb;
                xs_small_init(&sa);
                xs_small_init(&sb);
                for (int c = 0; c <= 2; c++) {
                    xs_small_add_bits(&sa, xs_double_bits(b_cut.cells[c][k]));
                    xs_small_add_bits(&sb, xs_double_bits(b_split.cells[c][k]));
                }
                CHECK(same_sums(&sa, &sb), "split cells", "columns", isa, -1);
            }
        }
    }
    /* a good share of lanes kept: the test reaches the span's edge */
    CHECK(kept * 3 > lanes, "split lanes kept", "columns", isa, -1);
    printf("  split: %ld of %ld lanes kept\n", kept, lanes);
}

/* ---- short rows ------------------------------------------------------- */

/* Whether a row of n terms with this largest and smallest non-zero |x| fits
 * a window of xs_short_row.h (its sums are then exact), as the test sees
 * it: every non-zero |x| in [2^(t - (bits - k)), 2^t), t <= 1013, n < 2^k;
 * bits 27 for the first pass, 36 for the second. */
static int short_row_fits(int n, double max_abs, double min_abs, int bits)
{
    if (!(max_abs > 0.0) || max_abs == INFINITY) {
        return 0;
    }
    int k = 1, t;
    while (n >> k) {
        k++;
    }
    frexp(max_abs, &t);
    return t <= 1013 && (t - (bits - k) < -1074 || min_abs >= ldexp(1.0, t - (bits - k)));
}

/* The same rows (float64 and float32, every length up to 1023, every kind,
 * some near the window's edge) through the generic short-row kernel and
 * another: the largest and smallest non-zero |x| bit for bit (rows without
 * NaN), and the sums when the row fits its window (exact, so the same). */
static void test_short_rows(const xs_short_row_kernels *ref, const xs_short_row_kernels *alt,
                            const char *isa, int trials)
{
    static double x[XS_SHORT_ROW_MAX];
    static float xf[XS_SHORT_ROW_MAX];
    for (int t = 0; t < trials; t++) {
        int n = 1 + below(below(2) ? 40 : XS_SHORT_ROW_MAX), kind = below(KINDS);
        int itemsize = below(3) ? 8 : 4;
        fill(x, n, kind, below(2) ? 0 : 1 + below(300));
        if (below(3) == 0) {                 /* 16 to 36 binades: the second pass's */
            int spread = 16 + below(21);
            for (int i = 0; i < n; i++) {
                x[i] = with_field(1023 - below(spread));
            }
        }
        if (below(3) == 0) {                 /* a term at the window's edge, or below it */
            int k = 1;
            while (n >> k) {
                k++;
            }
            x[below(n)] = ldexp(below(2) ? 1.0 : 1.0 - 0x1p-53, 1 - (27 - k));
            x[below(n)] = 1.5;
        }
        int nan = 0;
        for (int i = 0; i < n; i++) {
            xf[i] = (float)x[i];
            double v = itemsize == 8 ? x[i] : (double)xf[i];
            nan |= v != v;
        }
        const char *q = itemsize == 8 ? (const char *)x : (const char *)xf;
        xs_short_row_split s_ref, s_alt;
        (itemsize == 8 ? ref->f64 : ref->f32)(q, n, &s_ref);
        (itemsize == 8 ? alt->f64 : alt->f32)(q, n, &s_alt);
        if (nan) {
            CHECK(s_ref.lo != s_ref.lo && s_alt.lo != s_alt.lo, "NaN row", "short rows", isa,
                  kind);
            continue;
        }
        CHECK(same(s_ref.max_abs, s_alt.max_abs) && same(s_ref.min_abs, s_alt.min_abs),
              "range", "short rows", isa, kind);
        if (short_row_fits(n, s_ref.max_abs, s_ref.min_abs, 27)) {
            CHECK(same(s_ref.hi, s_alt.hi) && same(s_ref.lo, s_alt.lo), "sums", "short rows",
                  isa, kind);
        }
        if (short_row_fits(n, s_ref.max_abs, s_ref.min_abs, 36)) {
            double t_ref[3], t_alt[3];
            (itemsize == 8 ? ref->three64 : ref->three32)(q, n, t_ref);
            (itemsize == 8 ? alt->three64 : alt->three32)(q, n, t_alt);
            CHECK(same_doubles(t_ref, t_alt, 3), "three sums", "short rows", isa, kind);
        }
    }
}

/* ---- the drivers against the scalar accumulators ----------------------- */

/* n values in segments of random kinds and lengths. */
static void fill_segments(double *x, int n)
{
    int rate = below(2) ? 0 : 1 + below(2000);
    for (int i = 0; i < n;) {
        int len = 1 + below(below(2) ? 64 : 1024);
        len = len > n - i ? n - i : len;
        fill(x + i, len, below(4) ? NORMAL + below(3) : below(KINDS), rate);
        i += len;
    }
}

/* One exact dot product of n products through the cells driver (as the
 * loops call it) against the scalar accumulators. */
static void check_dot_driver(const double *x, const double *y, ptrdiff_t n, xs_large **large,
                             const char *what, const char *level)
{
    xs_dot dot, dot_ref;
    xs_dot_init(&dot);
    xs_dot_init(&dot_ref);
    xs_large *row_large = xs_large_for_row(large);
    ptrdiff_t done = xs_dot_cells_available() ? xs_dot_cells_add(&dot, row_large,
                                                                 (const char *)x,
                                                                 (const char *)y, n) : 0;
    for (ptrdiff_t i = done; i < n; i++) {
        xs_dot_add_float64(&dot, row_large, x[i], y[i]);
    }
    xs_large_flush(row_large);
    xs_small_merge(&dot.main, &row_large->small);
    for (ptrdiff_t i = 0; i < n; i++) {
        xs_dot_add_float64(&dot_ref, NULL, x[i], y[i]);
    }
    CHECK(same(xs_dot_round(&dot, &xs_format_float64),
               xs_dot_round(&dot_ref, &xs_format_float64)), what, "dot driver", level, -1);
}

/* A row longer than the bins of the binned dot kernels take between two
 * flushes (XS_DOT_BINS_FLUSH_PRODUCTS; the loops' rows are cut shorter, at
 * XS_INTERRUPT_BLOCK), of products over 60 binades and more: four cells,
 * the binned kernels where the level has them. */
static void test_long_dot(const char *level)
{
    const ptrdiff_t n = 3 * (ptrdiff_t)XS_DOT_BINS_FLUSH_PRODUCTS + 1000;
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    if (x == NULL || y == NULL) {
        free(x);
        free(y);
        return;
    }
    for (ptrdiff_t i = 0; i < n; i++) {
        x[i] = with_field(1023 - 30 + below(61)) * (below(2) ? -1.0 : 1.0);
        y[i] = with_field(1023 - below(3));
    }
    xs_large *large = NULL;
    check_dot_driver(x, y, n, &large, "long dot", level);
    xs_large_free(large);
    free(x);
    free(y);
}

static void test_drivers(int trials, const char *level)
{
    enum { MAX_N = 3000, COLS = 19 };
    static double x[MAX_N], y[MAX_N];
    static float xf[MAX_N];
    xs_large *large = NULL;
    xs_cells_hint hint = {0};        /* each trial a row after the last, as in a loop */
    for (int t = 0; t < trials; t++) {
        int n = 1 + below(below(4) ? MAX_N : 300);
        fill_segments(x, n);
        fill_segments(y, n);
        /* sums */
        xs_small acc, ref;
        xs_small_init(&acc);
        xs_small_init(&ref);
        xs_cells_add_float64(&acc, &large, x, n);
        for (int i = 0; i < n; i++) {
            xs_small_add_bits(&ref, xs_double_bits(x[i]));
        }
        double want = xs_small_round(&ref, &xs_format_float64);
        CHECK(same(xs_small_round(&acc, &xs_format_float64), want), "sum", "cells driver",
              level, -1);
        double out;
        xs_small_init(&acc);
        if (!xs_cells_round_float64(&acc, &large, x, n, &xs_format_float64, 1, &out, &hint)) {
            out = xs_small_round(&acc, &xs_format_float64);
        }
        CHECK(same(out, want), "rounded sum", "cells driver", level, -1);
        xs_small_init(&acc);
        xs_small_init(&ref);
        for (int i = 0; i < n; i++) {
            xf[i] = (float)x[i];
            xs_small_add_bits(&ref, xs_double_bits((double)xf[i]));
        }
        xs_cells_add_float32(&acc, &large, xf, n);
        CHECK(same(xs_small_round(&acc, &xs_format_float64),
                   xs_small_round(&ref, &xs_format_float64)), "float32 sum", "cells driver",
              level, -1);
        /* short rows: sums and means of float64 and float32 rows, when the
         * short path decides them (rows of one kind: it often does) */
        if (n <= XS_SHORT_ROW_MAX) {
            static double z[XS_SHORT_ROW_MAX];
            static float zf[XS_SHORT_ROW_MAX];
            fill(z, n, below(2) ? NORMAL : below(KINDS), below(2) ? 0 : 1 + below(500));
            if (below(3) == 0) {             /* within the second pass's window, or just beyond */
                int spread = 16 + below(24);
                for (int i = 0; i < n; i++) {
                    z[i] = with_field(1023 - below(spread));
                }
            }
            for (int f32 = 0; f32 < 2; f32++) {
                xs_small_init(&ref);
                for (int i = 0; i < n; i++) {
                    zf[i] = (float)z[i];
                    xs_small_add_bits(&ref, xs_double_bits(f32 ? (double)zf[i] : z[i]));
                }
                const xs_format *fmt = f32 ? &xs_format_float32 : &xs_format_float64;
                const char *q = f32 ? (const char *)zf : (const char *)z;
                for (int mean = 0; mean < 2; mean++) {
                    uint64_t divisor = mean ? (uint64_t)n : 1u;
                    if (xs_short_row_round(q, n, f32 ? 4 : 8, divisor, fmt, &out)) {
                        xs_small copy = ref;
                        CHECK(same(out, xs_small_round_divided(&copy, divisor, fmt)),
                              mean ? "mean" : "sum", "short-row driver", level, -1);
                    }
                }
            }
        }
        /* dot products (as the loops call them: a large accumulator) */
        check_dot_driver(x, y, n, &large, "dot", level);
        /* column sums: x as rows of COLS columns, in two calls */
        int rows = n / COLS;
        if (rows >= 2) {
            xs_columns *group = xs_columns_new(COLS, 8);
            int first = below(rows);
            xs_columns_add(group, (const char *)x, first, COLS * 8);
            xs_columns_add(group, (const char *)(x + first * COLS), rows - first, COLS * 8);
            for (int j = 0; j < COLS; j++) {
                xs_small_init(&ref);
                for (int r = 0; r < rows; r++) {
                    xs_small_add_bits(&ref, xs_double_bits(x[r * COLS + j]));
                }
                CHECK(same(xs_columns_round(group, j, 1, &xs_format_float64),
                           xs_small_round(&ref, &xs_format_float64)), "column sum",
                      "columns driver", level, -1);
            }
            xs_columns_free(group);
        }
    }
    xs_large_free(large);
}

int main(int argc, char **argv)
{
    test_seed(0x9e3779b97f4a7c15ull);
    int trials = argc > 1 ? atoi(argv[1]) : 3000;
    const char *level = xs_cpu_level_name(xs_cpu_level());
    int compared = 0;
    for (int isa = 0; isa < XS_ISA_COUNT; isa++) {
        if (!runs((xs_isa)isa)) {
            continue;
        }
        const char *name = xs_cpu_level_name((xs_isa)isa);
        const xs_cells_set *cells = xs_cpu_variant(xs_cells_variants, (xs_isa)isa);
        const xs_dot_cells_set *dot = xs_cpu_variant(xs_dot_cells_variants, (xs_isa)isa);
        const xs_strip_kernels *strips = xs_cpu_variant(xs_columns_variants, (xs_isa)isa);
        const xs_short_row_kernels *short_rows = xs_cpu_variant(xs_short_row_variants,
                                                                (xs_isa)isa);
        if (cells != NULL) {
            test_cells(xs_cpu_variant(xs_cells_variants, XS_ISA_GENERIC), cells, name,
                       cells_top16((xs_isa)isa), trials);
            printf("cells (rows) %s against generic: float64, float32, bfloat16; "
                   "lanes by exact totals\n", name);
            compared++;
        }
        if (dot != NULL) {
            test_dot(xs_cpu_variant(xs_dot_cells_variants, XS_ISA_GENERIC), dot, name, trials);
            test_dot_split_ties(xs_cpu_variant(xs_dot_cells_variants, XS_ISA_GENERIC), dot,
                                name, trials / 10 + 1);
            printf("dot cells generic and %s against the exact products: ranges, lanes by "
                   "exact totals\n", name);
            compared++;
        }
        if (strips != NULL) {
            test_columns(xs_cpu_variant(xs_columns_variants, XS_ISA_GENERIC), strips, name,
                         trials);
            printf("column strips %s against generic: float64, float32; lanes bit for bit\n",
                   name);
            compared++;
        }
        if (short_rows != NULL) {
            test_short_rows(xs_cpu_variant(xs_short_row_variants, XS_ISA_GENERIC), short_rows,
                            name, trials);
            printf("short rows %s against generic: float64, float32; sums of rows that fit, "
                   "ranges bit for bit\n", name);
            compared++;
        }
    }
    /* The float32 split strips, at every level that has them (the generic
     * one on x86-64), against the same level's cuts. */
    for (int isa = 0; isa < XS_ISA_COUNT; isa++) {
        const xs_strip_kernels *strips = xs_cpu_variant(xs_columns_variants, (xs_isa)isa);
        if ((isa == XS_ISA_GENERIC || runs((xs_isa)isa)) && strips != NULL &&
                strips->f32_split != NULL) {
            const char *name = xs_cpu_level_name((xs_isa)isa);
            test_split_columns(strips, name, trials);
            printf("float32 split strips %s against its cuts: ranges, lanes by exact totals\n",
                   name);
            compared++;
        }
    }
    /* The binned dot kernels (the generic level on x86-64) for rows of 256
     * products and more, not 2^17. */
    xs_dot_cells_binned_min_terms(XS_CELLS_BLOCK);
    test_drivers(trials / 3 + 1, level);
    test_long_dot(level);
    printf("drivers at level %s against the scalar accumulators: sums, short rows, dot, "
           "columns\n", level);
    printf("%ld checks, %d kernel families compared, %ld mismatches\n", checks, compared,
           failures);
    return failures != 0;
}
