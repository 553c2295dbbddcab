/*
 * Template of the dot-product loops: included by xs_loops_dot.c once per
 * row of the dtype table (xs_each_dtype.h), and empty for the rows without
 * dot loops; XS_IN is the row's name, and how its products are taken comes
 * from the rest of the row (XS_TRAIT):
 *   dot      XS_DOT_KIND_FMA: float64, each product as p and its fma error,
 *            long contiguous rows through the dot cells, the row kernels in
 *            two copies (FMA and baseline, see xs_loops_dot.c);
 *            XS_DOT_KIND_NARROW: products exact in double, one copy
 *   squares  the element size for which a row dotted with itself goes to
 *            xs_dot_squares.c first (0: never)
 * Defines xs_dot_IN and xs_dot_state_IN (xs_loops.h) and their helpers.
 */
#if XS_TRAIT(dot) != XS_DOT_KIND_NONE
#define XS_CAT_(a, b) a##b
#define XS_CAT(a, b) XS_CAT_(a, b)
#define XS_IN XS_TRAIT(name)
#define XS_FN(prefix) XS_CAT(prefix, XS_IN)

#if XS_TRAIT(dot) == XS_DOT_KIND_FMA
#define XS_DOT_ADD_PRODUCT xs_dot_add_float64
#define XS_DOT_SHORT_ADD xs_dot_short_add_float64
#define XS_DOT_WINDOW XS_DOT_WINDOW_FLOAT64
#define XS_DOT_TAKES_WINDOW XS_DOT_TAKES_CELLS
#else
#define XS_DOT_ADD_PRODUCT xs_dot_add_narrow
#define XS_DOT_SHORT_ADD xs_dot_short_add_narrow
#define XS_DOT_WINDOW XS_DOT_NO_WINDOW
#define XS_DOT_TAKES_WINDOW XS_DOT_TAKES_NONE
#endif
#if XS_TRAIT(squares) > 0
#define XS_DOT_TAKES_SQUARES(n, step_a, step_b) \
    XS_DOT_TAKES_SQUARES_OF((n), (step_a), (step_b), XS_TRAIT(squares))
#define XS_DOT_SQUARES(a, b, n, fmt, out) \
    XS_DOT_SQUARES_OF((a), (b), (n), (fmt), (out), XS_TRAIT(squares))
#else
#define XS_DOT_TAKES_SQUARES XS_DOT_TAKES_NONE
#define XS_DOT_SQUARES XS_DOT_NO_SQUARES
#endif

/* A short row's dot rounded into fmt, when the two-double approximation
 * decides it (1, *out); 0: use the accumulators. */
XS_DOT_BODY int XS_FN(xs_dot_short_body_)(XS_DOT_SHORT_PARAMS)
{
    double hi = 0.0, lo = 0.0, err = 0.0, bound = 0.0;     /* see xs_running_short_add */
    for (npy_intp k = 0; k < n; k++, a += step_a, b += step_b) {
        double x = xs_bits_double(XS_FN(xs_load_)(a)), y = xs_bits_double(XS_FN(xs_load_)(b));
        if (!XS_DOT_SHORT_ADD(&hi, &lo, &err, x, y)) {
            return 0;
        }
        if ((k + 1) % XS_DOT_SHORT_FOLD == 0) {
            xs_running_short_fold(&hi, &lo, &err, &bound);
        }
    }
    xs_running run = xs_running_of(hi, lo, err, bound);
    return xs_running_round(&run, fmt, out);
}

/* Adds the n products of one row exactly into acc (a large accumulator for
 * long rows is made on first use and kept in *large). */
XS_DOT_BODY void XS_FN(xs_dot_row_body_)(XS_DOT_ROW_PARAMS)
{
    /* a*b may overflow or underflow on the way (the exact product is
     * kept all the same): such flags are not the result's, drop them. */
    fexcept_t flags_before;
    fegetexceptflag(&flags_before, FE_ALL_EXCEPT);
    if (step_a == 0 && step_b == 0 && n > 1) {
        /* One product n times (broadcast rows): O(log n), not O(n). */
        xs_dot one;
        xs_dot_init(&one);
        XS_DOT_ADD_PRODUCT(&one, NULL, xs_bits_double(XS_FN(xs_load_)(a)),
                    xs_bits_double(XS_FN(xs_load_)(b)));
        xs_dot_add_times(acc, &one, (uint64_t)n);
        fesetexceptflag(&flags_before, FE_ALL_EXCEPT);
        return;
    }
    xs_large *row_large = n >= XS_LARGE_MIN_TERMS ? xs_large_for_row(large) : NULL;
    /* Blocks of XS_INTERRUPT_BLOCK products, checking for interrupts in
     * between; the cells take a block whole, or none of it (too short, no
     * kernel): then one product at a time. */
    for (npy_intp k0 = 0; k0 < n && !xs_interrupted_at(k0); k0 += XS_INTERRUPT_BLOCK) {
        npy_intp k1 = n - k0 < XS_INTERRUPT_BLOCK ? n : k0 + XS_INTERRUPT_BLOCK;
        const char *pa = a + k0 * step_a, *pb = b + k0 * step_b;
        npy_intp k = k0 + XS_DOT_WINDOW(acc, row_large, pa, pb, k1 - k0, step_a, step_b);
        pa = a + k * step_a;
        pb = b + k * step_b;
        for (; k < k1; k++, pa += step_a, pb += step_b) {
            XS_DOT_ADD_PRODUCT(acc, row_large, xs_bits_double(XS_FN(xs_load_)(pa)),
                        xs_bits_double(XS_FN(xs_load_)(pb)));
        }
    }
    fesetexceptflag(&flags_before, FE_ALL_EXCEPT);
    if (row_large) {
        xs_large_flush(row_large);
        xs_small_merge(&acc->main, &row_large->small);
    }
}
#if XS_TRAIT(dot) == XS_DOT_KIND_FMA && defined(XS_CPU_X86)
/* Two copies, FMA and baseline, and the choice between them (see
 * xs_loops_dot.c). */
XS_TARGET_AVX2 static int XS_FN(xs_dot_short_fma_)(XS_DOT_SHORT_PARAMS)
{
    return XS_FN(xs_dot_short_body_)(XS_DOT_SHORT_ARGS);
}
XS_TARGET_AVX2 static void XS_FN(xs_dot_row_fma_)(XS_DOT_ROW_PARAMS)
{
    XS_FN(xs_dot_row_body_)(XS_DOT_ROW_ARGS);
}
static int XS_FN(xs_dot_short_)(XS_DOT_SHORT_PARAMS)
{
    return xs_cpu_allows(XS_ISA_AVX2) ? XS_FN(xs_dot_short_fma_)(XS_DOT_SHORT_ARGS)
                                      : XS_FN(xs_dot_short_body_)(XS_DOT_SHORT_ARGS);
}
static void XS_FN(xs_dot_row_)(XS_DOT_ROW_PARAMS)
{
    if (xs_cpu_allows(XS_ISA_AVX2)) {
        XS_FN(xs_dot_row_fma_)(XS_DOT_ROW_ARGS);
    }
    else {
        XS_FN(xs_dot_row_body_)(XS_DOT_ROW_ARGS);
    }
}
#else
/* One copy of the row kernels. */
static int XS_FN(xs_dot_short_)(XS_DOT_SHORT_PARAMS)
{
    return XS_FN(xs_dot_short_body_)(XS_DOT_SHORT_ARGS);
}
static void XS_FN(xs_dot_row_)(XS_DOT_ROW_PARAMS)
{
    XS_FN(xs_dot_row_body_)(XS_DOT_ROW_ARGS);
}
#endif

static void XS_FN(xs_dot_part_)(void *job_ptr, int part, ptrdiff_t begin, ptrdiff_t end)
{
    xs_dot_job *job = job_ptr;
    xs_large *large = NULL;
    xs_dot_init(&job->parts[part]);
    XS_FN(xs_dot_row_)(&job->parts[part], &large, job->a + begin * job->step_a,
                    job->b + begin * job->step_b, end - begin, job->step_a, job->step_b);
    xs_large_free(large);
}

/* The exact dot product of one row into *acc: split between threads when
 * long (job: NULL, or room for the parts), else by this thread. */
static void XS_FN(xs_dot_compute_)(xs_dot *acc, xs_large **large, xs_dot_job *job,
                                const char *a, const char *b, npy_intp n,
                                npy_intp step_a, npy_intp step_b)
{
    xs_dot_init(acc);
    int parts = 0;
    if (job != NULL && (step_a != 0 || step_b != 0)) {
        *job = (xs_dot_job){.a = a, .b = b, .step_a = step_a, .step_b = step_b};
        parts = xs_parallel_ranges(XS_FN(xs_dot_part_), job, n, XS_CELLS_BLOCK, n);
    }
    for (int t = 0; t < parts; t++) {
        xs_dot_merge(acc, &job->parts[t]);
    }
    if (parts == 0) {
        XS_FN(xs_dot_row_)(acc, large, a, b, n, step_a, step_b);
    }
}

/* Every row's exact dot product: rounded into the target, or (target NULL)
 * stored as a state. */
static void XS_FN(xs_dot_rows_)(char **args, const npy_intp *dimensions, const npy_intp *steps,
                             const xs_target *target)
{
    npy_intp outer = dimensions[0], n = dimensions[1];
    PyThreadState *gil = xs_release_gil_for(outer, n);
    xs_large *large = NULL;
    xs_dot_job *job = n >= XS_PARALLEL_MIN_TERMS ? malloc(sizeof *job) : NULL;
    /* Rows the cells take are faster there than in two doubles. */
    int short_rows = target != NULL && n <= XS_DOT_SHORT_MAX &&
                     !XS_DOT_TAKES_WINDOW(n, steps[3], steps[4]);
    /* Rows of squares (a row dotted with itself): rarely undecided; tried
     * first. */
    int square_rows = target != NULL && XS_DOT_TAKES_SQUARES(n, steps[3], steps[4]);
    ptrdiff_t work = 0;
    for (npy_intp i = 0; i < outer && !xs_interrupted_after(&work, n); i++) {
        double quick;
        if (square_rows && XS_DOT_SQUARES(args[0] + i * steps[0], args[1] + i * steps[1], n,
                                   target->format, &quick)) {
            XS_STORE(target, args[2] + i * steps[2], quick);
            continue;
        }
        if (xs_stopped()) {
            break;                 /* interrupted while trying the squares */
        }
        if (short_rows && XS_FN(xs_dot_short_)(args[0] + i * steps[0], args[1] + i * steps[1],
                                            n, steps[3], steps[4], target->format, &quick)) {
            XS_STORE(target, args[2] + i * steps[2], quick);
            continue;
        }
        xs_dot acc;
        XS_FN(xs_dot_compute_)(&acc, &large, job, args[0] + i * steps[0],
                            args[1] + i * steps[1], n, steps[3], steps[4]);
        if (xs_stopped()) {
            break;                 /* a part of the row: no result */
        }
        if (target) {
            XS_STORE(target, args[2] + i * steps[2], xs_dot_round(&acc, target->format));
        }
        else {
            xs_store_dot_state(&acc, args[2] + i * steps[2], steps[5]);
        }
    }
    free(job);
    xs_large_free(large);
    xs_restore_gil(gil);
}

/* (n),(n)->(): rounded once into the target (data). */
void XS_FN(xs_dot_)(char **args, const npy_intp *dimensions, const npy_intp *steps, void *data)
{
    XS_FN(xs_dot_rows_)(args, dimensions, steps, data);
}

/* (n),(n)->(3*69): the exact dot product as three states (see xs_loops.h). */
void XS_FN(xs_dot_state_)(char **args, const npy_intp *dimensions, const npy_intp *steps,
                       void *data)
{
    (void)data;
    XS_FN(xs_dot_rows_)(args, dimensions, steps, NULL);
}

#undef XS_DOT_SQUARES
#undef XS_DOT_TAKES_SQUARES
#undef XS_DOT_TAKES_WINDOW
#undef XS_DOT_WINDOW
#undef XS_DOT_SHORT_ADD
#undef XS_DOT_ADD_PRODUCT
#undef XS_FN
#undef XS_CAT
#undef XS_CAT_
#undef XS_IN

#endif
