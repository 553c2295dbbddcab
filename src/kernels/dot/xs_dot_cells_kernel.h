/*
 * One block kernel of xs_dot_cells.c, instantiated per instruction set and
 * per cell count (see xs_dot_cells.h).  The includer defines XS_DK_NAME,
 * XS_DK_CELLS (2..XS_CELLS_GRID_MAX), XS_DK_TARGET, the vector type XS_DK_V
 * of XS_DK_VW doubles with XS_DK_CHAINS chains (at most 16 lanes per cell;
 * with fewer than 8, a carry step every XS_DK_SPAN products keeps every
 * lane within the bound of xs_dot_cells.h, at most 64 parts between two), XS_DK_LOAD, XS_DK_LOADU (from a char pointer, any alignment), XS_DK_STORE, XS_DK_ADD, XS_DK_SUB, XS_DK_MUL,
 * XS_DK_FMSUB(a, b, c) = a*b - c fused, XS_DK_SET1, and the range measure
 * XS_DK_RANGE_INIT, XS_DK_RANGE_STEP(a, b, p), XS_DK_RANGE_END(range).
 * Optional: XS_DK_CELLS_NAN(v), 1 when a lane of v is NaN; then
 * XS_DK_RANGE_END may read `cells_nan`, set when the last cell's lanes went
 * NaN in the block (a NaN product, or an Inf one, whose e is NaN, propagates
 * through every cut into them), instead of testing every product for NaN.
 *
 * XS_DK_NAME and XS_DK_CELLS are undefined at the end, for the next instance.
 *
 * The kernel adds a[i]*b[i] for i < terms (a multiple of XS_CELLS_STEP, at
 * most XS_CELLS_BLOCK) as the parts of p = fl(a*b) and e = a*b - p, cut by
 * running sums as the sums' are (xs_cells_kernel.h; Zen 5, from Rump's
 * cuts: AVX2 0.54 -> 0.50 ns per product of normal data, 0.80 -> 0.69 of
 * lognormal, AVX-512 0.28 -> 0.26 and 0.40 -> 0.35), and
 * returns 1, when every product fits the window w; otherwise it returns 0
 * and leaves the lanes as they were (the range tells the driver why).
 */

#ifndef XS_DK_SPAN
/* Products between two carry steps: 32 per lane (two parts each). */
#define XS_DK_SPAN (XS_DK_VW * XS_DK_CHAINS * XS_CELLS_LANE_TERMS)
/* The carry step, from the bottom cell up (as for sums): cell c keeps at
 * most u_(c-1)/2, the multiples of u_(c-1) move up. */
#define XS_DK_CARRY(acc, sigma) \
    for (int c = XS_DK_CELLS; c >= 1; c--) { \
        for (int j = 0; j < XS_DK_CHAINS; j++) { \
            XS_DK_V carry = XS_DK_SUB(XS_DK_ADD((acc)[c][j], (sigma)[c - 1]), (sigma)[c - 1]); \
            (acc)[c][j] = XS_DK_SUB((acc)[c][j], carry); \
            (acc)[c - 1][j] = XS_DK_ADD((acc)[c - 1][j], carry); \
        } \
    }
#endif

/* Optional: XS_DK_BINNED, a binned kernel (xs_dot_cells_variants.h: the
 * layout, units of XS_DOT_UNIT_CUT cut products and XS_DOT_UNIT_BINNED
 * binned ones), which takes one more argument, the bins, and needs
 * XS_DK_BIN_CHECK_INIT, XS_DK_BIN_CHECK(pa, pb) (the operands of
 * XS_DOT_UNIT_BINNED products at pa and pb: what their exponent fields are)
 * and XS_DK_BIN_CHECK_END (XS_DK_BIN_NORMAL when every binned operand was
 * normal, XS_DK_BIN_ZERO when some were zero or subnormal, and
 * XS_DK_BIN_NOT_FINITE when one was Inf or NaN).  The cut products' loads
 * skip the binned ones: cut product i is at XS_DK_POS(i). */
#ifdef XS_DK_BINNED
_Static_assert(XS_DOT_UNIT_CUT % (XS_DK_VW * XS_DK_CHAINS) == 0,
               "a unit's cut products are whole steps");
#define XS_DK_POS(i) ((i) + (int)((unsigned)(i) / XS_DOT_UNIT_CUT * XS_DOT_UNIT_BINNED))
#define XS_DK_CUT_TERMS(terms) ((terms) / XS_DOT_UNIT * XS_DOT_UNIT_CUT)
/* The binned products at pos..pos+XS_DOT_UNIT_BINNED-1 into the bins. */
#define XS_DK_BIN_GROUP(pos) { \
        XS_DK_BIN_CHECK(a + 8 * (pos), b + 8 * (pos)) \
        for (int k = 0; k < XS_DOT_UNIT_BINNED; k++) { \
            uint64_t a_bits, b_bits; \
            memcpy(&a_bits, a + 8 * ((pos) + k), sizeof a_bits); \
            memcpy(&b_bits, b + 8 * ((pos) + k), sizeof b_bits); \
            xs_dot_bins_add(bins, a_bits, b_bits, 0); \
        } }
#else
#define XS_DK_POS(i) (i)
#define XS_DK_CUT_TERMS(terms) (terms)
#endif

XS_DK_TARGET
static int XS_DK_NAME(const char *a, const char *b, int terms, double *lanes,
                      const xs_cells_window *w, xs_dot_cells_range *range
#ifdef XS_DK_BINNED
                      , xs_dot_bins *bins
#endif
                      )
{
    const int cut_terms = XS_DK_CUT_TERMS(terms);
    XS_DK_V acc[XS_DK_CELLS + 1][XS_DK_CHAINS], sigma[XS_DK_CELLS + 1];
    for (int c = 0; c <= XS_DK_CELLS; c++) {
        sigma[c] = XS_DK_SET1(w->sigma[c]);
        for (int j = 0; j < XS_DK_CHAINS; j++) {
            acc[c][j] = XS_DK_LOAD(lanes + c * XS_CELLS_LANE_STRIDE + j * XS_DK_VW);
        }
    }
    XS_DK_RANGE_INIT
#ifdef XS_DK_BINNED
    XS_DK_BIN_CHECK_INIT
#endif
    /* A block in one span when the lanes allow (a loop run once, no carry
     * inside: the code of wide kernels as without spans). */
    const int span = XS_DK_SPAN >= XS_CELLS_BLOCK ? cut_terms : XS_DK_SPAN;
    for (int i0 = 0; i0 < cut_terms; i0 += span) {
    if (i0 > 0) {
        XS_DK_CARRY(acc, sigma)
    }
    int i1 = cut_terms - i0 < span ? cut_terms : i0 + span;
    /* Running cuts (xs_cells_kernel.h), runs of XS_CELLS_RUN_PARTS products
     * per lane from t_c = s_c.  p is a multiple of 2^52 Q (Q = 2^(fa+fb-2150)
     * of normal a and b: its quantum; |a b| >= 2^104 Q) and the window's
     * quantum rule (xs_dot_cells.h) makes Q >= u_K, so p is a multiple of
     * 2^52 u_K, of u_(K-1) = 2^47 u_K: p is cut into cells 1..K-2 only, and
     * its rest (at most u_(K-2)/2 = 2^46 u_(K-1); with K = 2, p itself, below
     * 2^T = 2^47 u_1) goes into cell K-1 whole.  e (below 2^(T-53), 2^41 u_2;
     * a multiple of Q) is cut into cells 2..K-1 and its rest goes into cell K
     * (with K = 2, e itself).  So cell 1 takes a part of p per product, at
     * most 2^47 u_1, and a cell c >= 2 one of p and one of e, at most
     * 2^46 u_c + 2^46 u_c (in cell 3 and below e's parts are remainders of at
     * most u_(c-1)/2): 16 products keep t_c within 2^51 u_c of s_c.  (Until
     * stop 33 p was cut into cell K-1 too, which always left 0.) */
    const int run = XS_CELLS_RUN_PARTS * XS_DK_VW * XS_DK_CHAINS;
    XS_DK_V t[XS_DK_CELLS][XS_DK_CHAINS];       /* t_c of cells 1..K-1 */
    for (int r0 = i0; r0 < i1; r0 += run) {
        for (int c = 1; c < XS_DK_CELLS; c++) {
            for (int j = 0; j < XS_DK_CHAINS; j++) {
                t[c][j] = sigma[c];
            }
        }
        int r1 = i1 - r0 < run ? i1 : r0 + run;
        for (int i = r0; i < r1; i += XS_DK_VW * XS_DK_CHAINS) {
            /* A step's products are in one unit (XS_DK_POS). */
            const char *at_a = a + 8 * XS_DK_POS(i), *at_b = b + 8 * XS_DK_POS(i);
            for (int j = 0; j < XS_DK_CHAINS; j++) {
                XS_DK_V va = XS_DK_LOADU(at_a + 8 * j * XS_DK_VW);
                XS_DK_V vb = XS_DK_LOADU(at_b + 8 * j * XS_DK_VW);
                XS_DK_V p = XS_DK_MUL(va, vb);
                XS_DK_V e = XS_DK_FMSUB(va, vb, p);
                XS_DK_RANGE_STEP(va, vb, p)
                for (int c = 1; c < XS_DK_CELLS - 1; c++) {
                    XS_DK_V next = XS_DK_ADD(t[c][j], p);
                    XS_DK_V minus_q = XS_DK_SUB(t[c][j], next);
                    t[c][j] = next;
                    p = XS_DK_ADD(p, minus_q);
                }
                t[XS_DK_CELLS - 1][j] = XS_DK_ADD(t[XS_DK_CELLS - 1][j], p);
                for (int c = 2; c < XS_DK_CELLS; c++) {
                    XS_DK_V next = XS_DK_ADD(t[c][j], e);
                    XS_DK_V minus_q = XS_DK_SUB(t[c][j], next);
                    t[c][j] = next;
                    e = XS_DK_ADD(e, minus_q);
                }
                acc[XS_DK_CELLS][j] = XS_DK_ADD(acc[XS_DK_CELLS][j], e);
            }
#ifdef XS_DK_BINNED
            /* After a unit's last step, its binned products. */
            if ((i + XS_DK_VW * XS_DK_CHAINS) % XS_DOT_UNIT_CUT == 0) {
                XS_DK_BIN_GROUP(XS_DK_POS(i) + XS_DK_VW * XS_DK_CHAINS)
            }
#endif
        }
        for (int c = 1; c < XS_DK_CELLS; c++) {
            for (int j = 0; j < XS_DK_CHAINS; j++) {
                acc[c][j] = XS_DK_ADD(acc[c][j], XS_DK_SUB(t[c][j], sigma[c]));
            }
        }
    }
    }
#ifdef XS_DK_CELLS_NAN
    XS_DK_V probe = acc[XS_DK_CELLS][0];
    for (int j = 1; j < XS_DK_CHAINS; j++) {
        probe = XS_DK_ADD(probe, acc[XS_DK_CELLS][j]);
    }
    /* Also +Inf and -Inf lanes: only with products beyond any window. */
    int cells_nan = XS_DK_CELLS_NAN(probe);
#endif
#ifdef XS_DK_BINNED
    /* The products after the whole units. */
    for (int pos = terms / XS_DOT_UNIT * XS_DOT_UNIT; pos < terms; pos += XS_DOT_UNIT_BINNED) {
        XS_DK_BIN_GROUP(pos)
    }
    int binned_operands = XS_DK_BIN_CHECK_END;
#endif
    XS_DK_RANGE_END(range)
#ifdef XS_DK_BINNED
    if (binned_operands == XS_DK_BIN_NOT_FINITE) {
        range->max_p = UINT64_MAX;                /* refused as not finite */
    }
    if (!xs_dot_cells_fits(w, range)) {
        xs_dot_cells_bins_again(bins, a, b, terms, XS_DOT_BINS_TAKE_OUT);
        return 0;
    }
    bins->settled = binned_operands == XS_DK_BIN_ZERO;
    if (bins->settled) {
        xs_dot_cells_bins_again(bins, a, b, terms, XS_DOT_BINS_SETTLE);
    }
    bins->products += (uint64_t)(terms - cut_terms);
#else
    if (!xs_dot_cells_fits(w, range)) {
        return 0;
    }
#endif
    XS_DK_CARRY(acc, sigma)
    for (int c = 0; c <= XS_DK_CELLS; c++) {
        for (int j = 0; j < XS_DK_CHAINS; j++) {
            XS_DK_STORE(lanes + c * XS_CELLS_LANE_STRIDE + j * XS_DK_VW, acc[c][j]);
        }
    }
    return 1;
}
#undef XS_DK_CELLS
#undef XS_DK_NAME
#undef XS_DK_POS
#undef XS_DK_CUT_TERMS
#undef XS_DK_BIN_GROUP
