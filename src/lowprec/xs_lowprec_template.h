/*
 * Template of the low-precision loops, included by xs_lowprec.c once per
 * (storage dtype S, update dtype U) pair of xs_lowprec_each.h, with XS_LP_S
 * and XS_LP_U their names (bfloat16, float16, float32, float64).  From them:
 *   XS_LP_LOAD_S(p), XS_LP_LOAD_U(p)   the element at p as a double (exact)
 *   XS_LP_STORE_S(p, x)     store x, a value representable in S
 *   XS_LP_FMT               pointer to S's xs_lp_format
 *   XS_LP_EMIT_PAIR         1: emit the (S, U) update loops (S not float64)
 *   XS_LP_EMIT_SUM          1: emit kahan_sum for S (once per S: U = S)
 *   XS_LP_NATIVE_ADD        1: S is float64, whose additions are the
 *                           hardware's (and so are its IEEE flags)
 */
#define XS_LP_CAT_(a, b) a##_##b
#define XS_LP_CAT(a, b) XS_LP_CAT_(a, b)
#define XS_LP_FN(prefix) XS_LP_CAT(XS_LP_CAT(prefix, XS_LP_S), XS_LP_U)
#define XS_LP_FN_S(prefix) XS_LP_CAT(prefix, XS_LP_S)
#define XS_LP_LOAD_S XS_LP_CAT(xs_lp_load, XS_LP_S)
#define XS_LP_LOAD_U XS_LP_CAT(xs_lp_load, XS_LP_U)
#define XS_LP_STORE_S XS_LP_CAT(xs_lp_store, XS_LP_S)
#define XS_LP_FMT (&XS_LP_CAT(xs_lp, XS_LP_S))
#define XS_LP_NATIVE_ADD (!XS_LP_HAS_PAIR)
#define XS_LP_EMIT_PAIR XS_LP_HAS_PAIR
#define XS_LP_EMIT_SUM XS_LP_HAS_SUM
/* The registered loops of a stochastic operation (with_u: stochastic_add,
 * else stochastic_round): one for uint16 random bits, one for uint32 (k = 16
 * or 32 in the documented rule). */
#define XS_LP_BITS_LOOPS(op, with_u) \
    XS_LP_BODY void XS_LP_CAT(XS_LP_CAT(XS_LP_FN(xs_lp_##op), u16), body)(XS_LP_LOOP_PARAMS) \
    { \
        (void)data; \
        XS_LP_FN(stochastic_)(args, dimensions, steps, 16, with_u); \
    } \
    XS_LP_COPIES(XS_LP_CAT(XS_LP_FN(xs_lp_##op), u16)) \
    XS_LP_BODY void XS_LP_CAT(XS_LP_CAT(XS_LP_FN(xs_lp_##op), u32), body)(XS_LP_LOOP_PARAMS) \
    { \
        (void)data; \
        XS_LP_FN(stochastic_)(args, dimensions, steps, 32, with_u); \
    } \
    XS_LP_COPIES(XS_LP_CAT(XS_LP_FN(xs_lp_##op), u32))

#if XS_LP_EMIT_PAIR
/* w, c, u -> w + (u - c), the new compensation: Algorithm 1 of Zamirai et
 * al., every operation rounded to nearest in S (see XS_LP_BLOCK for the
 * blocks).  All inputs of a block are read before its outputs are written,
 * so out= may alias the inputs. */
XS_LP_BODY void XS_LP_CAT(XS_LP_FN(xs_lp_kahan_add), body)(XS_LP_LOOP_PARAMS)
{
    (void)data;
    const xs_lp_format *f = XS_LP_FMT;
    npy_intp n = dimensions[0];
    unsigned flags = 0;
    fexcept_t saved_flags;
    xs_lp_begin_flags(&saved_flags);
    PyThreadState *gil = xs_release_gil_for(n, 1);
    char *pw = args[0], *pc = args[1], *pu = args[2], *ow = args[3], *oc = args[4];
    double w[XS_LP_BLOCK], c[XS_LP_BLOCK], u[XS_LP_BLOCK], y[XS_LP_BLOCK];
    double s[XS_LP_BLOCK], c_new[XS_LP_BLOCK];
    for (npy_intp start = 0; start < n; start += XS_LP_BLOCK) {
        int m = n - start < XS_LP_BLOCK ? (int)(n - start) : XS_LP_BLOCK;
        for (int i = 0; i < m; i++) {
            w[i] = XS_LP_LOAD_S(pw); c[i] = XS_LP_LOAD_S(pc); u[i] = XS_LP_LOAD_U(pu);
            pw += steps[0]; pc += steps[1]; pu += steps[2];
        }
        unsigned ok = 1;
        for (int i = 0; i < m; i++) {
            y[i] = xs_lp_fast_add_hw(u[i], -c[i], f, &ok);         /* compensate */
        }
        for (int i = 0; i < m; i++) {
            s[i] = xs_lp_fast_add_hw(w[i], y[i], f, &ok);          /* accumulate */
        }
        for (int i = 0; i < m; i++) {
            c_new[i] = xs_lp_fast_add_hw(s[i], -w[i], f, &ok);     /* the error... */
        }
        for (int i = 0; i < m; i++) {
            c_new[i] = xs_lp_fast_add_hw(c_new[i], -y[i], f, &ok); /* ...of this step */
        }
        if (XS_LP_UNLIKELY(!ok)) {      /* a special element: redo each one */
            for (int i = 0; i < m; i++) {
                xs_lp_kahan_state next = xs_lp_kahan_step(w[i], c[i], u[i], f, &flags);
                s[i] = next.s;
                c_new[i] = next.c;
            }
        }
        /* every input of the block was read above: out= may alias them */
        for (int i = 0; i < m; i++) {
            XS_LP_STORE_S(ow, s[i]); XS_LP_STORE_S(oc, c_new[i]);
            ow += steps[3]; oc += steps[4];
        }
    }
    xs_restore_gil(gil);
    xs_lp_end_flags(&saved_flags, flags);
}
XS_LP_COPIES(XS_LP_FN(xs_lp_kahan_add))

/* v[i] = w[i] + u[i] (exact, by two-sum; u NULL: w[i] alone) rounded
 * stochastically into S with the bits r[i]: the fast path for the block,
 * and element by element through the general routine if it holds a special
 * value.  IEEE flags as np.add would raise them go to *flags. */
XS_LP_BODY void XS_LP_FN(stochastic_block_)(const double *w, const double *u,
                                          const uint32_t *r, int m, int kbits,
                                          double *v, unsigned *flags)
{
    const xs_lp_format *f = XS_LP_FMT;
    unsigned ok = 1;
    for (int i = 0; i < m; i++) {
        xs_lp_pair z = u ? xs_lp_two_sum(w[i], u[i]) : (xs_lp_pair){w[i], 0.0};
        v[i] = xs_lp_stochastic_by_addition(z.hi, z.lo, r[i], kbits, f, &ok);
    }
    if (!XS_LP_UNLIKELY(!ok)) {
        return;
    }
    for (int i = 0; i < m; i++) {       /* a special element: redo each one */
        xs_lp_pair z = u ? xs_lp_two_sum(w[i], u[i]) : (xs_lp_pair){w[i], 0.0};
        unsigned ok_i = 1;
        v[i] = xs_lp_stochastic_by_addition(z.hi, z.lo, r[i], kbits, f, &ok_i);
        if (ok_i) {
            continue;
        }
        if (u && isinf(z.hi) && isfinite(w[i]) && isfinite(u[i])) {
            *flags |= XS_LP_OVERFLOW;    /* beyond even float64 */
        }
        else if (u && isnan(z.hi) && !isnan(w[i]) && !isnan(u[i])) {
            *flags |= XS_LP_INVALID;     /* inf - inf, as np.add warns */
        }
        v[i] = xs_lp_round_stochastic(z.hi, z.lo, r[i], kbits, f, flags);
    }
}

/* The stochastic loops, one body: with_u, stochastic_add (w of S, u of U,
 * bits -> w + u, exact by two-sum, rounded stochastically into S); else
 * stochastic_round (x of U, bits -> x rounded stochastically into S).
 * XS_LP_BITS_LOOPS passes with_u as a constant, so each copy keeps only
 * its loads. */
XS_LP_BODY void XS_LP_FN(stochastic_)(char **args, const npy_intp *dimensions,
                                      const npy_intp *steps, int kbits, int with_u)
{
    npy_intp n = dimensions[0];
    unsigned flags = 0;
    fexcept_t saved_flags;
    xs_lp_begin_flags(&saved_flags);
    PyThreadState *gil = xs_release_gil_for(n, 1);
    /* the operands' places: w (or x), u when with_u, then bits and out */
    char *pw = args[0], *pu = args[1], *pb = args[1 + with_u], *out = args[2 + with_u];
    npy_intp step_b = steps[1 + with_u], step_out = steps[2 + with_u];
    double w[XS_LP_BLOCK], u[XS_LP_BLOCK], v[XS_LP_BLOCK];
    uint32_t r[XS_LP_BLOCK];
    for (npy_intp start = 0; start < n; start += XS_LP_BLOCK) {
        int m = n - start < XS_LP_BLOCK ? (int)(n - start) : XS_LP_BLOCK;
        for (int i = 0; i < m; i++) {
            if (with_u) {
                w[i] = XS_LP_LOAD_S(pw); u[i] = XS_LP_LOAD_U(pu);
                pu += steps[1];
            }
            else {
                w[i] = XS_LP_LOAD_U(pw);
            }
            r[i] = xs_lp_load_bits(pb, kbits);
            pw += steps[0]; pb += step_b;
        }
        XS_LP_FN(stochastic_block_)(w, with_u ? u : NULL, r, m, kbits, v, &flags);
        for (int i = 0; i < m; i++) {
            XS_LP_STORE_S(out, v[i]);
            out += step_out;
        }
    }
    xs_restore_gil(gil);
    xs_lp_end_flags(&saved_flags, flags);
}

XS_LP_BITS_LOOPS(stochastic_add, 1)
XS_LP_BITS_LOOPS(stochastic_round, 0)
#endif

#if XS_LP_EMIT_SUM
/* (n)->(): the classic compensated sum, every operation rounded to nearest
 * in S (so it equals folding kahan_add over the row from w = -0.0, c = 0).
 * Not exact: a cheap reference for exact_sum.  An empty row sums to +0.0. */
void XS_LP_FN_S(xs_lp_kahan_sum)(char **args, const npy_intp *dimensions,
                                 const npy_intp *steps, void *data)
{
    (void)data;
    npy_intp outer = dimensions[0], n = dimensions[1];
#if !XS_LP_NATIVE_ADD
    const xs_lp_format *f = XS_LP_FMT;
    unsigned flags = 0;
    fexcept_t saved_flags;
    xs_lp_begin_flags(&saved_flags);
#endif
    PyThreadState *gil = xs_release_gil_for(outer, n);
    for (npy_intp i = 0; i < outer; i++) {
        const char *p = args[0] + i * steps[0];
        /* -0.0 is the identity of addition: a row of -0.0 sums to -0.0. */
        double sum = n > 0 ? -0.0 : 0.0, c = 0.0;
        for (npy_intp k = 0; k < n; k++, p += steps[2]) {
            double x = XS_LP_LOAD_S(p);
#if XS_LP_NATIVE_ADD
            double y = x + -c;          /* as in the narrow loops, in double */
            double t = sum + y;
            c = (t + -sum) + -y;
#else
            xs_lp_kahan_state next = xs_lp_kahan_step_chained(sum, c, x, f, &flags);
            double t = next.s;
            c = next.c;
#endif
            sum = t;
        }
        XS_LP_STORE_S(args[1] + i * steps[1], sum);
    }
    xs_restore_gil(gil);
#if !XS_LP_NATIVE_ADD
    xs_lp_end_flags(&saved_flags, flags);
#endif
}
#endif

#undef XS_LP_BITS_LOOPS
#undef XS_LP_EMIT_SUM
#undef XS_LP_EMIT_PAIR
#undef XS_LP_NATIVE_ADD
#undef XS_LP_FMT
#undef XS_LP_STORE_S
#undef XS_LP_LOAD_U
#undef XS_LP_LOAD_S
#undef XS_LP_FN_S
#undef XS_LP_FN
#undef XS_LP_CAT
#undef XS_LP_CAT_
