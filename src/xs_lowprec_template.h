/*
 * Template of the low-precision loops, included by xs_lowprec.c once per
 * (storage dtype S, update dtype U) pair with these macros defined:
 *   XS_LP_S, XS_LP_U        dtype names (bfloat16, float16, float32, float64)
 *   XS_LP_LOAD_S(p), XS_LP_LOAD_U(p)   the element at p as a double (exact)
 *   XS_LP_STORE_S(p, x)     store x, a value representable in S
 *   XS_LP_FMT               pointer to S's xs_lp_format
 *   XS_LP_EMIT_PAIR         1: emit the (S, U) update loops
 *   XS_LP_EMIT_SUM          1: emit kahan_sum for S (once per S)
 *   XS_LP_NATIVE_ADD        1: S is float64, whose additions are the
 *                           hardware's (and so are its IEEE flags)
 */
#define XS_LP_CAT_(a, b) a##_##b
#define XS_LP_CAT(a, b) XS_LP_CAT_(a, b)
#define XS_LP_FN(prefix) XS_LP_CAT(XS_LP_CAT(prefix, XS_LP_S), XS_LP_U)
#define XS_LP_FN_S(prefix) XS_LP_CAT(prefix, XS_LP_S)

#if XS_LP_EMIT_PAIR
/* w, c, u -> w + (u - c), the new compensation: Algorithm 1 of Zamirai et
 * al., every operation rounded to nearest in S.  All inputs of an element
 * are read before its outputs are written, so out= may alias the inputs. */
void XS_LP_FN(xs_lp_kahan_add)(char **args, const npy_intp *dimensions,
                                const npy_intp *steps, void *data)
{
    (void)data;
    const xs_lp_format *f = XS_LP_FMT;
    npy_intp n = dimensions[0];
    unsigned flags = 0;
    fexcept_t saved_flags;
    xs_lp_begin_flags(&saved_flags);
    PyThreadState *gil = xs_lp_release_gil_for(n, 1);
    char *pw = args[0], *pc = args[1], *pu = args[2], *ow = args[3], *oc = args[4];
    for (npy_intp i = 0; i < n; i++) {
        double w = XS_LP_LOAD_S(pw), c = XS_LP_LOAD_S(pc), u = XS_LP_LOAD_U(pu);
        double y = xs_lp_add(u, -c, f, &flags);              /* compensate the update */
        double s = xs_lp_add(w, y, f, &flags);               /* accumulate */
        double c_new = xs_lp_add(xs_lp_add(s, -w, f, &flags), -y, f, &flags);   /* measure the error */
        XS_LP_STORE_S(ow, s);
        XS_LP_STORE_S(oc, c_new);
        pw += steps[0]; pc += steps[1]; pu += steps[2]; ow += steps[3]; oc += steps[4];
    }
    xs_lp_restore_gil(gil);
    xs_lp_end_flags(&saved_flags, flags);
}

/* w, u, bits -> w + u (exact, by two-sum) rounded stochastically into S. */
static inline void XS_LP_FN(stochastic_add_)(char **args, const npy_intp *dimensions,
                                             const npy_intp *steps, int kbits)
{
    const xs_lp_format *f = XS_LP_FMT;
    npy_intp n = dimensions[0];
    unsigned flags = 0;
    fexcept_t saved_flags;
    xs_lp_begin_flags(&saved_flags);
    PyThreadState *gil = xs_lp_release_gil_for(n, 1);
    char *pw = args[0], *pu = args[1], *pb = args[2], *out = args[3];
    for (npy_intp i = 0; i < n; i++) {
        double w = XS_LP_LOAD_S(pw), u = XS_LP_LOAD_U(pu);
        uint32_t r = xs_lp_load_bits(pb, kbits);
        xs_lp_pair z = xs_lp_two_sum(w, u);
        if (isinf(z.hi) && isfinite(w) && isfinite(u)) {
            flags |= XS_LP_OVERFLOW;    /* beyond even float64 */
        }
        XS_LP_STORE_S(out, xs_lp_round_stochastic(z.hi, z.lo, r, kbits, f, &flags));
        pw += steps[0]; pu += steps[1]; pb += steps[2]; out += steps[3];
    }
    xs_lp_restore_gil(gil);
    xs_lp_end_flags(&saved_flags, flags);
}

void XS_LP_CAT(XS_LP_FN(xs_lp_stochastic_add), u16)(char **args, const npy_intp *dimensions,
                                                    const npy_intp *steps, void *data)
{
    (void)data;
    XS_LP_FN(stochastic_add_)(args, dimensions, steps, 16);
}

void XS_LP_CAT(XS_LP_FN(xs_lp_stochastic_add), u32)(char **args, const npy_intp *dimensions,
                                                    const npy_intp *steps, void *data)
{
    (void)data;
    XS_LP_FN(stochastic_add_)(args, dimensions, steps, 32);
}

/* x (U), bits -> x rounded stochastically into S. */
static inline void XS_LP_FN(stochastic_round_)(char **args, const npy_intp *dimensions,
                                               const npy_intp *steps, int kbits)
{
    const xs_lp_format *f = XS_LP_FMT;
    npy_intp n = dimensions[0];
    unsigned flags = 0;
    fexcept_t saved_flags;
    xs_lp_begin_flags(&saved_flags);
    PyThreadState *gil = xs_lp_release_gil_for(n, 1);
    char *px = args[0], *pb = args[1], *out = args[2];
    for (npy_intp i = 0; i < n; i++) {
        double x = XS_LP_LOAD_U(px);
        uint32_t r = xs_lp_load_bits(pb, kbits);
        XS_LP_STORE_S(out, xs_lp_round_stochastic(x, 0.0, r, kbits, f, &flags));
        px += steps[0]; pb += steps[1]; out += steps[2];
    }
    xs_lp_restore_gil(gil);
    xs_lp_end_flags(&saved_flags, flags);
}

void XS_LP_CAT(XS_LP_FN(xs_lp_stochastic_round), u16)(char **args, const npy_intp *dimensions,
                                                      const npy_intp *steps, void *data)
{
    (void)data;
    XS_LP_FN(stochastic_round_)(args, dimensions, steps, 16);
}

void XS_LP_CAT(XS_LP_FN(xs_lp_stochastic_round), u32)(char **args, const npy_intp *dimensions,
                                                      const npy_intp *steps, void *data)
{
    (void)data;
    XS_LP_FN(stochastic_round_)(args, dimensions, steps, 32);
}
#endif

#if XS_LP_EMIT_SUM
#if XS_LP_NATIVE_ADD
#define XS_LP_ADD(a, b) ((a) + (b))
#else
#define XS_LP_ADD(a, b) xs_lp_add((a), (b), f, &flags)
#endif
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
    PyThreadState *gil = xs_lp_release_gil_for(outer, n);
    for (npy_intp i = 0; i < outer; i++) {
        const char *p = args[0] + i * steps[0];
        /* -0.0 is the identity of addition: a row of -0.0 sums to -0.0. */
        double sum = n > 0 ? -0.0 : 0.0, c = 0.0;
        for (npy_intp k = 0; k < n; k++, p += steps[2]) {
            double y = XS_LP_ADD(XS_LP_LOAD_S(p), -c);
            double t = XS_LP_ADD(sum, y);
            c = XS_LP_ADD(XS_LP_ADD(t, -sum), -y);
            sum = t;
        }
        XS_LP_STORE_S(args[1] + i * steps[1], sum);
    }
    xs_lp_restore_gil(gil);
#if !XS_LP_NATIVE_ADD
    xs_lp_end_flags(&saved_flags, flags);
#endif
}
#undef XS_LP_ADD
#endif

#undef XS_LP_FN_S
#undef XS_LP_FN
#undef XS_LP_CAT
#undef XS_LP_CAT_
