/*
 * One block kernel of xs_cells.c, instantiated per instruction set and per
 * cell count (see xs_cells.h for the algorithm and its bounds).  The
 * includer defines:
 *
 *   XS_CK_NAME        the function's name
 *   XS_CK_CELLS       cells K (1..XS_CELLS_MAX); cell 0 is the carry
 *   XS_CK_ELEMENT     the input's C type; XS_CK_LOAD_IN(x, i) gives elements
 *                     i.. of x as a vector of doubles
 *   XS_CK_TARGET      function attribute (target ISA), or nothing
 *   XS_CK_V           vector of doubles; XS_CK_VW doubles in it
 *   XS_CK_CHAINS      independent vectors per cell (XS_CK_VW * XS_CK_CHAINS
 *                     lanes per cell: at least 8, at most 16)
 *   XS_CK_LOAD(p), XS_CK_STORE(p, v), XS_CK_ADD(a, b), XS_CK_SUB(a, b),
 *   XS_CK_SET1(d)     the vector operations
 *   XS_CK_RANGE_INIT, XS_CK_RANGE_STEP(v, j), XS_CK_RANGE_END(range)
 *                     measure the block's largest |term| and smallest
 *                     non-zero |term| as xs_cells_range bit patterns
 *
 * XS_CK_NAME and XS_CK_CELLS are undefined at the end, for the next instance.
 *
 * The cuts: running sums.  Rump's extraction takes four additions per
 * cut cell: q = (r + s) - s, r - q and the lane's sum.  A running sum does
 * it in three: keep t_c = s_c + (the parts of cell c so far), and per term
 *
 *     t' = t_c + r,   q = t' - t_c,   r <- r - q,   t_c <- t',
 *
 * computed as -q = t_c - t' and r + (-q): the same bits (q is exact), and
 * on two-operand instruction sets (SSE2) one register copy fewer per cut
 * (Zen 4, forced generic: the paper's 1-D data 0.61 -> 0.59 ns per term).
 *
 * While t_c stays in [2^52 u_c, 2^53 u_c], whose spacing is u_c, t' is
 * t_c + r rounded to a multiple of u_c, so q is r rounded to one (ties may
 * go the other way than Rump's: |r - q| <= u_c/2 all the same), and q and
 * r - q are exact (t' - t_c: two multiples of u_c of that binade; r - q:
 * the error of a rounded sum).  The parts of cell c are at most 2^47 u_c
 * (cell 1: a term below 2^T = 2^W u_1; cells 2..: u_(c-1)/2), so
 * XS_CELLS_RUN_PARTS = 16 of them keep t_c within 2^51 u_c of
 * s_c = 1.5 * 2^52 u_c: every 16 terms per lane, t_c - s_c (exact, Sterbenz)
 * goes into the lane and t_c starts again at s_c.  The lanes then hold what
 * they hold with Rump's cuts up to ties: the same exact total, and the same
 * bound (at most XS_CELLS_LANE_TERMS parts per block).  A term of 2^T or more
 * may throw t_c out of the binade; its block is refused and the lanes are
 * not stored.  Every instance cuts this way (Zen 5, from Rump's cuts:
 * the portable kernels 0.46 -> 0.37 ns per float64 term, AVX2 0.23 ->
 * 0.215 and the paper's data 0.36 -> 0.32; AVX-512 within the noise); a
 * window of one cell cuts nothing, and adds each term to its lane.
 *
 * The kernel adds x[0..terms), terms a multiple of XS_CELLS_STEP and at
 * most XS_CELLS_BLOCK.  It returns 1 and updates the lanes when every term of the block
 * fits the window w; otherwise it returns 0 and leaves the lanes as they
 * were (the range tells the driver why).
 */

/* Optional: XS_CK_BINNED (float64, two cells or more), the block shared
 * between the floating-point units and the integer ones.  The kernel then
 * takes one more argument, a large accumulator (xs_large.h), and of each
 * step of 2 XS_CK_VW XS_CK_CHAINS terms it cuts the first half into the
 * lanes, as above, and adds the second half's significands to its
 * bins[bits >> 52], Neal's large accumulator, on the integer units: the
 * two halves' work runs side by side, where the cuts alone are bound by
 * the floating-point adders (Zen 5, forced generic, the paper's data: see
 * xs_cells.c).  The range is that of the first halves: the bins take any
 * term exactly (a zero, subnormal, Inf or NaN one is put right by
 * xs_large_settle, which the kernel calls on its binned halves when
 * xs_large_pending says so).  terms is XS_CELLS_BLOCK.  When the first
 * halves do not fit the window, the second halves' significands are
 * subtracted again (bins are sums modulo 2^64: the same values as before),
 * so that, as above, a refused block has changed nothing. */
#ifdef XS_CK_BINNED
#if XS_CK_CELLS == 1
#error "a binned instance cuts: two cells or more"
#endif
_Static_assert(XS_CELLS_BLOCK % (2 * XS_CK_VW * XS_CK_CHAINS) == 0,
               "a block is whole steps of cut and binned halves");
_Static_assert(XS_CELLS_BLOCK / 2 <= XS_LARGE_BLOCK,
               "a block's binned halves keep the bins below 2^64 (xs_large.h)");
/* Where FP term i (a multiple of XS_CK_VW * XS_CK_CHAINS) of the cut halves
 * starts in the block, and the terms of each half. */
#define XS_CK_POS(i) (2 * (i))
#define XS_CK_CUT_TERMS(terms) ((terms) / 2)
/* The binned half of the step whose cut half starts at FP term i, into the
 * bins (sign = +1) or out of them again (sign = -1: unsigned negation). */
#define XS_CK_BIN_HALF(i, sign) \
    for (int k = 0; k < XS_CK_VW * XS_CK_CHAINS; k++) { \
        uint64_t bits; \
        memcpy(&bits, x + XS_CK_POS(i) + XS_CK_VW * XS_CK_CHAINS + k, sizeof bits); \
        unsigned ix = (unsigned)(bits >> XS_F64_MANT_BITS); \
        uint64_t sum = bins[ix] + (uint64_t)(sign) * xs_large_significand(bits); \
        bins[ix] = sum; \
        bin_sums |= sum; \
    }
#else
#define XS_CK_POS(i) (i)
#define XS_CK_CUT_TERMS(terms) (terms)
#define XS_CK_BIN_HALF(i, sign)
#endif

/* Optional: XS_CK_LOW_CHAINS, the chains of cells 2..K: half of
 * XS_CK_CHAINS (default: all of them), so that the portable kernels' 16
 * vector registers hold every running sum (no lane kept in memory).  Fewer
 * lanes are enough there: a part of cell c >= 2 is at most u_(c-1)/2 =
 * 2^46 u_c, half a part of cell 1, so twice as many per lane keep both
 * bounds, 32 per run (t_c within 2^51 u_c of s_c) and 64 per lane and
 * block ((64 * 2^46 + 2^46) u_c < 2^53 u_c, xs_cells.h): 4 lanes per
 * cell. */
#ifndef XS_CK_LOW_CHAINS
#define XS_CK_LOW_CHAINS XS_CK_CHAINS
#endif
_Static_assert(XS_CK_LOW_CHAINS == XS_CK_CHAINS || 2 * XS_CK_LOW_CHAINS == XS_CK_CHAINS,
               "cells 2..K take all the chains or half of them (the lane bounds above)");
/* The chains of cell c (1..K), and the one that vector j of a step adds
 * into. */
#define XS_CK_CHAINS_OF(c) ((c) >= 2 ? XS_CK_LOW_CHAINS : XS_CK_CHAINS)
#define XS_CK_CHAIN(c, j) ((j) % XS_CK_CHAINS_OF(c))

XS_CK_TARGET
static int XS_CK_NAME(const void *input, int terms, double *lanes, const xs_cells_window *w,
                      xs_cells_range *range
#ifdef XS_CK_BINNED
                      , xs_large *large
#endif
                      )
{
    const XS_CK_ELEMENT *x = input;
#ifdef XS_CK_BINNED
    uint64_t *bins = large->bin, bin_sums = 0;
#endif
    XS_CK_V acc[XS_CK_CELLS + 1][XS_CK_CHAINS], sigma[XS_CK_CELLS + 1];
    for (int c = 0; c <= XS_CK_CELLS; c++) {
        sigma[c] = XS_CK_SET1(w->sigma[c]);
        for (int j = 0; j < XS_CK_CHAINS; j++) {
            acc[c][j] = XS_CK_LOAD(lanes + c * XS_CELLS_LANE_STRIDE + j * XS_CK_VW);
        }
    }
    XS_CK_RANGE_INIT
#if XS_CK_CELLS == 1
    for (int i = 0; i < terms; i += XS_CK_VW * XS_CK_CHAINS) {
        for (int j = 0; j < XS_CK_CHAINS; j++) {
            XS_CK_V v = XS_CK_LOAD_IN(x, i + j * XS_CK_VW);
            XS_CK_RANGE_STEP(v, j)
            acc[1][j] = XS_CK_ADD(acc[1][j], v);
        }
    }
#else
    /* Spans of XS_CELLS_RUN_PARTS terms per lane, each from t_c = s_c. */
    const int span = XS_CELLS_RUN_PARTS * XS_CK_VW * XS_CK_CHAINS;
    XS_CK_V run[XS_CK_CELLS][XS_CK_CHAINS];     /* t_c of cells 1..K-1 */
    const int cut_terms = XS_CK_CUT_TERMS(terms);
    for (int i0 = 0; i0 < cut_terms; i0 += span) {
        for (int c = 1; c < XS_CK_CELLS; c++) {
            for (int j = 0; j < XS_CK_CHAINS; j++) {
                run[c][j] = sigma[c];
            }
        }
        int i1 = cut_terms - i0 < span ? cut_terms : i0 + span;
        for (int i = i0; i < i1; i += XS_CK_VW * XS_CK_CHAINS) {
            for (int j = 0; j < XS_CK_CHAINS; j++) {
                XS_CK_V v = XS_CK_LOAD_IN(x, XS_CK_POS(i) + j * XS_CK_VW);
                XS_CK_RANGE_STEP(v, j)
                XS_CK_V r = v;
                for (int c = 1; c < XS_CK_CELLS; c++) {
                    int h = XS_CK_CHAIN(c, j);
                    XS_CK_V t = XS_CK_ADD(run[c][h], r);
                    XS_CK_V minus_q = XS_CK_SUB(run[c][h], t);
                    run[c][h] = t;
                    r = XS_CK_ADD(r, minus_q);
                }
                int h = XS_CK_CHAIN(XS_CK_CELLS, j);
                acc[XS_CK_CELLS][h] = XS_CK_ADD(acc[XS_CK_CELLS][h], r);
            }
            XS_CK_BIN_HALF(i, 1)
        }
        for (int c = 1; c < XS_CK_CELLS; c++) {
            for (int j = 0; j < XS_CK_CHAINS_OF(c); j++) {
                acc[c][j] = XS_CK_ADD(acc[c][j], XS_CK_SUB(run[c][j], sigma[c]));
            }
        }
    }
#endif
    XS_CK_RANGE_END(range)
    if (range->max_bits >= w->max_limit || range->min_bits_m1 < w->min_limit_m1) {
#ifdef XS_CK_BINNED
        for (int i = 0; i < cut_terms; i += XS_CK_VW * XS_CK_CHAINS) {
            XS_CK_BIN_HALF(i, -1)
        }
#endif
        return 0;
    }
    /* The carry step, from the bottom cell up: cell c keeps at most
     * u_(c-1)/2, the multiples of u_(c-1) move up. */
    for (int c = XS_CK_CELLS; c >= 1; c--) {
        for (int j = 0; j < XS_CK_CHAINS; j++) {
            XS_CK_V carry = XS_CK_SUB(XS_CK_ADD(acc[c][j], sigma[c - 1]), sigma[c - 1]);
            acc[c][j] = XS_CK_SUB(acc[c][j], carry);
            acc[c - 1][j] = XS_CK_ADD(acc[c - 1][j], carry);
        }
    }
    for (int c = 0; c <= XS_CK_CELLS; c++) {
        for (int j = 0; j < XS_CK_CHAINS; j++) {
            XS_CK_STORE(lanes + c * XS_CELLS_LANE_STRIDE + j * XS_CK_VW, acc[c][j]);
        }
    }
#ifdef XS_CK_BINNED
    unsigned pending = xs_large_pending(large, bin_sums);
    if (pending != 0) {
        for (int i = 0; i < XS_CK_CUT_TERMS(terms); i += XS_CK_VW * XS_CK_CHAINS) {
            xs_large_settle(large, (const char *)(x + XS_CK_POS(i) + XS_CK_VW * XS_CK_CHAINS),
                            XS_CK_VW * XS_CK_CHAINS, (ptrdiff_t)sizeof(double), pending);
        }
    }
#endif
    return 1;
}
#undef XS_CK_CELLS
#undef XS_CK_NAME
#undef XS_CK_POS
#undef XS_CK_CUT_TERMS
#undef XS_CK_BIN_HALF
