/*
 * Template of the per-input-dtype loops (NumPy's .c.src idea, in plain C):
 * included by xs_loops_sum.c once per row of the dtype table
 * (xs_each_dtype.h); XS_IN is the row's name (float64, int8, ...), and the
 * rest of the row (XS_TRAIT) becomes these macros:
 *   XS_CONTIG_CTYPE  optional: the C type of a contiguous element, for:
 *   XS_CELLS_ADD     optional: the xs_cells.c front end for contiguous rows
 *                    (it also takes the rows that are shorter than
 *                    XS_RUNNING_ROW_MAX, from XS_CELLS_MIN_TERMS on), and
 *   XS_CELLS_ROUND   its variant that rounds a whole row
 *   XS_COLUMNS       optional: xs_columns.c (float64, float32), for
 *                    reductions over a slow axis
 *   XS_LARGE_ADD     optional: the large accumulator's loop for long rows
 *   XS_CODE_SLOT     optional: a byte-coded format's slot (xs_codes.h); rows
 *                    are then summed by counting their codes
 *   XS_IN_IS_FLOAT   1: XS_LOAD(p) gives the element's float64 bit pattern
 *                    0: the element is an XS_IN_CTYPE integer, added exactly
 *                       by XS_ADD_INTEGER(acc, value), n copies of it by
 *                       XS_ADD_INTEGER_TIMES(acc, value, n)
 */
#define XS_CAT_(a, b) a##b
#define XS_CAT(a, b) XS_CAT_(a, b)
#define XS_IN XS_TRAIT(name)
#define XS_FN(prefix) XS_CAT(prefix, XS_IN)

#define XS_IN_IS_FLOAT XS_TRAIT(float)
#if XS_TRAIT(cells)
#define XS_CONTIG_CTYPE XS_TRAIT(ctype)
#define XS_CELLS_ADD XS_FN(xs_cells_add_)
#define XS_CELLS_ROUND XS_FN(xs_cells_round_)
#endif
#if XS_TRAIT(columns)
#define XS_COLUMNS 1
#endif
#if XS_TRAIT(large)
#define XS_LARGE_ADD XS_FN(xs_large_add_)
#endif
#if XS_TRAIT(slot) >= 0
#define XS_CODE_SLOT XS_TRAIT(slot)
#endif
#if XS_IN_IS_FLOAT
#define XS_LOAD(p) XS_FN(xs_load_)(p)
#else
#define XS_IN_CTYPE XS_TRAIT(ctype)
#define XS_ADD_INTEGER XS_TRAIT(add)
#define XS_ADD_INTEGER_TIMES XS_TRAIT(times)
#endif

/* Whether accumulate_ sums this row with the cells (faster than the
 * two-double row from XS_CELLS_MIN_TERMS terms on). */
static inline int XS_FN(takes_cells_)(const char *p, npy_intp n, npy_intp stride)
{
#ifdef XS_CELLS_ADD
    return stride == (npy_intp)sizeof(XS_CONTIG_CTYPE) && n >= XS_CELLS_MIN_TERMS &&
           (uintptr_t)p % _Alignof(XS_CONTIG_CTYPE) == 0;
#else
    (void)p, (void)n, (void)stride;
    return 0;
#endif
}

/* Add n elements starting at p, stride bytes apart, exactly into acc, by
 * the calling thread, checking for interrupts between blocks (on a stop, acc
 * holds part of the sum: the caller checks xs_stopped() before using it). */
static void XS_FN(accumulate_serial_)(xs_small *acc, xs_large **large, const char *p,
                                      npy_intp n, npy_intp stride)
{
#if XS_IN_IS_FLOAT
    if (stride == 0 && n > 0) {
        xs_small_add_double_times(acc, XS_LOAD(p), (uint64_t)n);
        return;
    }
#ifdef XS_CODE_SLOT
    /* A byte-coded format: count the codes, then one exact multiply-add per
     * code present (xs_codes.c). */
    (void)large;
    for (npy_intp done = 0; done < n && !xs_interrupted_at(done); done += XS_INTERRUPT_BLOCK) {
        npy_intp block = n - done < XS_INTERRUPT_BLOCK ? n - done : XS_INTERRUPT_BLOCK;
        xs_code_accumulate(XS_CODE_SLOT, acc, p + done * stride, block, stride);
    }
    return;
#endif
#ifdef XS_CELLS_ADD
    if (XS_FN(takes_cells_)(p, n, stride)) {
        /* A call per block of XS_INTERRUPT_BLOCK terms (each adds its terms
         * whole), checking for interrupts between them. */
        const XS_CONTIG_CTYPE *x = (const XS_CONTIG_CTYPE *)(const void *)p;
        for (npy_intp done = 0; done < n && !xs_interrupted_at(done); done += XS_INTERRUPT_BLOCK) {
            XS_CELLS_ADD(acc, large, x + done,
                         n - done < XS_INTERRUPT_BLOCK ? n - done : XS_INTERRUPT_BLOCK);
        }
        return;
    }
#endif
    /* NULL for short rows, and when out of memory (the small accumulator is
     * exact too, only slower). */
    xs_large *L = n >= XS_LARGE_MIN_TERMS ? xs_large_for_row(large) : NULL;
    if (L != NULL) {
        for (npy_intp done = 0; done < n && !xs_interrupted_at(done); done += XS_INTERRUPT_BLOCK) {
            npy_intp end = n - done < XS_INTERRUPT_BLOCK ? n : done + XS_INTERRUPT_BLOCK;
#ifdef XS_LARGE_ADD
            /* float64: the block loop of the large accumulator (xs_large.h) */
            XS_LARGE_ADD(L, p, end - done, stride);
            p += (end - done) * stride;
#else
            for (npy_intp i = done; i < end; i++, p += stride) {
                xs_large_add_bits(L, XS_LOAD(p));
            }
#endif
        }
        xs_large_flush(L);
        xs_small_merge(acc, &L->small);
        return;
    }
    for (npy_intp i = 0; i < n; i++, p += stride) {     /* fewer than 160 terms */
        xs_small_add_bits(acc, XS_LOAD(p));
    }
#else
    (void)large;
    if (stride == 0 && n > 0) {
        /* One value n times (a broadcast row): one exact product. */
        XS_IN_CTYPE v;
        memcpy(&v, p, sizeof v);
        XS_ADD_INTEGER_TIMES(acc, v, (uint64_t)n);
        return;
    }
    for (npy_intp done = 0; done < n && !xs_interrupted_at(done); done += XS_INTERRUPT_BLOCK) {
        npy_intp end = n - done < XS_INTERRUPT_BLOCK ? n : done + XS_INTERRUPT_BLOCK;
        for (npy_intp i = done; i < end; i++, p += stride) {
            XS_IN_CTYPE v;
            memcpy(&v, p, sizeof v);
            XS_ADD_INTEGER(acc, v);
        }
    }
#endif
}

/* The same, split over threads when the row is long (same result). */
static void XS_FN(accumulate_)(xs_small *acc, xs_large **large, const char *p,
                               npy_intp n, npy_intp stride)
{
#if XS_IN_IS_FLOAT
    if (stride != 0 && xs_parallel_sum(XS_FN(accumulate_serial_), acc, p, n, stride)) {
        return;
    }
#endif
    XS_FN(accumulate_serial_)(acc, large, p, n, stride);
}

#if XS_IN_IS_FLOAT
/* After rows the short path left, the next rows of the call skip it: the
 * rows of an array tend to be alike, and a row too wide for its window
 * (lognormal(0, 3) data, say) pays a pass for nothing (rows of 200 terms,
 * every row trying: 0.72 -> 1.0 ns per term).  After m misses in a row the
 * next 2^(m-1) rows skip it, at most 2^XS_SHORT_ROW_BACKOFF: a row of normal
 * data that misses now and then (one of 40 rows of 1000 terms has a term
 * below the window) costs its neighbour little, rows that all miss try
 * about once in 2^XS_SHORT_ROW_BACKOFF. */
#define XS_SHORT_ROW_BACKOFF 8

/* A short row's sum (divisor 1) or mean (divisor n) rounded from two
 * doubles (see xs_short_row.h): 1 and the result in *result when it could,
 * 0 when the row needs another path.  Contiguous float64 and float32 rows
 * are read in place, others copied as doubles first. */
static int XS_FN(short_row_)(const char *p, npy_intp n, npy_intp stride,
                              const xs_target *target, uint64_t divisor, double *result)
{
#ifdef XS_CONTIG_CTYPE
    if (stride == (npy_intp)sizeof(XS_CONTIG_CTYPE) && sizeof(XS_CONTIG_CTYPE) >= 4) {
        return xs_short_row_round(p, (int)n, (int)sizeof(XS_CONTIG_CTYPE), divisor,
                                  target->format, result);
    }
#endif
    double terms[XS_SHORT_ROW_MAX];
    for (npy_intp k = 0; k < n; k++, p += stride) {
        uint64_t bits = XS_LOAD(p);
        memcpy(&terms[k], &bits, sizeof bits);
    }
    return xs_short_row_round((const char *)terms, (int)n, 8, divisor, target->format, result);
}

/* A row of at most XS_RUNNING_ROW_MAX terms rounded from a two-double
 * approximation with a proven error bound (xs_running.h), whatever its
 * exponent spread: 1 and the rounded sum (divisor 1) or mean (divisor n) in
 * *result when the bound decides, 0 when the row needs the accumulator (a
 * term beyond 2^1000, Inf or NaN, a zero or tiny sum, a rounding boundary
 * too close). */
static int XS_FN(running_row_)(const char *p, npy_intp n, npy_intp stride,
                                const xs_target *target, uint64_t divisor, double *result)
{
    double hi = 0.0, lo = 0.0, err = 0.0, bound = 0.0;    /* see xs_running_short_add */
    for (npy_intp k = 0; k < n; k++, p += stride) {
        uint64_t bits = XS_LOAD(p);
        double x;
        memcpy(&x, &bits, sizeof x);
        /* On the pattern: a NaN compared as a double would raise "invalid"
         * (NumPy warns of it), a row of them being left to the accumulator. */
        if ((bits & ~XS_F64_SIGN_BIT) > XS_RUNNING_MAX_BITS) {
            return 0;
        }
        xs_running_short_add(&hi, &lo, &err, x);
        if ((k + 1) % XS_RUNNING_BLOCK == 0) {
            xs_running_short_fold(&hi, &lo, &err, &bound);
        }
    }
    xs_running run = xs_running_of(hi, lo, err, bound);
    if (divisor != 1u && !xs_running_divide(&run, divisor, &run)) {
        return 0;
    }
    return xs_running_round(&run, target->format, result);
}
#endif

/* Rows [begin, end) of a reduce_rows_ job, one after the other. */
static void XS_FN(reduce_row_range_)(void *job_ptr, int part, ptrdiff_t begin, ptrdiff_t end)
{
    (void)part;
    const xs_rows_job *job = job_ptr;
    npy_intp n = job->n;
    xs_large *large = NULL;
#ifdef XS_CELLS_ROUND
    xs_cells_hint hint = {0};         /* the last row's window, for the next */
#endif
    ptrdiff_t work = 0;
#if XS_IN_IS_FLOAT
    int short_skip = 0;               /* rows to go before the short path's next try */
    int short_misses = 0;             /* its misses in a row (at most BACKOFF + 1) */
#endif
    for (npy_intp i = begin; i < end && !xs_interrupted_after(&work, n); i++) {
        const char *row = job->in + i * job->in_step;
        char *result = job->out + i * job->out_step;
#if XS_IN_IS_FLOAT
        double quick;
        if (n > 0 && n <= XS_SHORT_ROW_MAX && short_skip > 0) {
            short_skip--;
        }
        else if (n > 0 && n <= XS_SHORT_ROW_MAX) {
            if (XS_FN(short_row_)(row, n, job->row_stride, job->target,
                                  job->divide ? (uint64_t)n : 1u, &quick)) {
                XS_STORE(job->target, result, quick);
                short_misses = 0;
                continue;
            }
            short_misses += short_misses <= XS_SHORT_ROW_BACKOFF;
            short_skip = 1 << (short_misses - 1);
        }
        if (n > 0 && n <= XS_RUNNING_ROW_MAX && !XS_FN(takes_cells_)(row, n, job->row_stride) &&
                XS_FN(running_row_)(row, n, job->row_stride, job->target,
                                    job->divide ? (uint64_t)n : 1u, &quick)) {
            XS_STORE(job->target, result, quick);
            continue;
        }
#endif
        xs_small acc;
        xs_small_init(&acc);
        uint64_t divisor = job->divide ? (uint64_t)n : 1u;      /* n = 0: NaN */
#ifdef XS_CELLS_ROUND
        /* Rows that take the cells, not long enough for threads: rounded
         * from the cell sums when that decides. */
        if (XS_FN(takes_cells_)(row, n, job->row_stride) && n < XS_PARALLEL_MIN_TERMS) {
            if (!XS_CELLS_ROUND(&acc, &large, (const XS_CONTIG_CTYPE *)(const void *)row, n,
                                job->target->format, divisor, &quick, &hint)) {
                quick = xs_small_round_divided(&acc, divisor, job->target->format);
            }
            XS_STORE(job->target, result, quick);
            continue;
        }
#endif
        XS_FN(accumulate_)(&acc, &large, row, n, job->row_stride);
        if (xs_stopped()) {
            break;                     /* a part of the row: no result */
        }
        XS_STORE(job->target, result, xs_small_round_divided(&acc, divisor, job->target->format));
    }
    xs_large_free(large);
}

#ifdef XS_COLUMNS
/* The edge columns of rows [begin, end) of a column job (xs_columns_edges):
 * 1 when their results are stored, 0 if out of memory (nothing done), -1
 * when interrupted. */
static int XS_FN(reduce_column_edges_)(const xs_rows_job *job, ptrdiff_t begin, ptrdiff_t end,
                                       xs_column_edges edges)
{
    xs_columns *group = xs_columns_new_edges(edges, (int)sizeof(XS_CONTIG_CTYPE));
    if (group == NULL) {
        return 0;
    }
    const char *first = job->in + begin * job->in_step;
    npy_intp rows_per_block = XS_INTERRUPT_BLOCK / XS_COLUMN_CHUNK;  /* few columns a row */
    for (npy_intp r0 = 0; r0 < job->n && !xs_interrupted_at(r0); r0 += rows_per_block) {
        npy_intp rows = job->n - r0 < rows_per_block ? job->n - r0 : rows_per_block;
        xs_columns_add_edges(group, first + r0 * job->row_stride, end - begin, rows,
                             job->row_stride);
    }
    if (xs_stopped()) {
        xs_columns_free(group);
        return -1;
    }
    uint64_t divisor = job->divide ? (uint64_t)job->n : 1u;
    for (npy_intp j = 0; j < edges.head + edges.tail; j++) {
        npy_intp column = j < edges.head ? begin + j : end - edges.tail + (j - edges.head);
        XS_STORE(job->target, job->out + column * job->out_step,
                 xs_columns_round(group, j, divisor, job->target->format));
    }
    xs_columns_free(group);
    return 1;
}

/* Rows [begin, end) of a job whose rows are columns of contiguous memory (a
 * slow axis): read row by row, a group of columns at once (xs_columns.h);
 * the general loop if out of memory. */
static void XS_FN(reduce_column_range_)(void *job_ptr, int part, ptrdiff_t begin,
                                        ptrdiff_t end)
{
    const xs_rows_job *job = job_ptr;
    /* The edge columns apart, so that the middle's strips start on lines
     * (xs_columns_edges); if out of memory, none apart. */
    xs_column_edges edges = xs_columns_edges(job->in + begin * job->in_step, end - begin,
                                             job->row_stride, (int)sizeof(XS_CONTIG_CTYPE));
    if (edges.head + edges.tail > 0) {
        int done = XS_FN(reduce_column_edges_)(job, begin, end, edges);
        if (done < 0) {
            return;                    /* interrupted */
        }
        if (done) {
            begin += edges.head;
            end -= edges.tail;
        }
    }
    npy_intp c0 = begin;
    for (; c0 < end; c0 += XS_COLUMN_GROUP) {
        npy_intp cols = end - c0 < XS_COLUMN_GROUP ? end - c0 : XS_COLUMN_GROUP;
        xs_columns *group = xs_columns_new(cols, (int)sizeof(XS_CONTIG_CTYPE));
        if (group == NULL) {
            break;
        }
        /* Blocks of rows, checking for interrupts in between. */
        npy_intp rows_per_block = XS_INTERRUPT_BLOCK / cols;      /* cols <= 1024 */
        for (npy_intp r0 = 0; r0 < job->n && !xs_interrupted_at(r0); r0 += rows_per_block) {
            npy_intp rows = job->n - r0 < rows_per_block ? job->n - r0 : rows_per_block;
            xs_columns_add(group, job->in + c0 * job->in_step + r0 * job->row_stride, rows,
                           job->row_stride);
        }
        if (xs_stopped()) {
            xs_columns_free(group);
            return;
        }
        uint64_t divisor = job->divide ? (uint64_t)job->n : 1u;
        for (npy_intp j = 0; j < cols; j++) {
            XS_STORE(job->target, job->out + (c0 + j) * job->out_step,
                     xs_columns_round(group, j, divisor, job->target->format));
        }
        xs_columns_free(group);
    }
    if (c0 < end) {            /* out of memory: these columns the general way */
        XS_FN(reduce_row_range_)(job_ptr, part, c0, end);
    }
}
#endif

/* Sums (divide = 0) or means (divide = 1) of rows, rounded once.  Rows are
 * independent, so large jobs are split over threads by rows (the same
 * results: every row is computed the same way by whichever thread). */
static void XS_FN(reduce_rows_)(char **args, const npy_intp *dimensions, const npy_intp *steps,
                                const xs_target *target, int divide)
{
    npy_intp outer = dimensions[0], n = dimensions[1];
    PyThreadState *gil = xs_release_gil_for(outer, n);
    xs_rows_job job = {args[0], args[1], steps[0], steps[1], steps[2], n, target, divide};
    xs_range_task task = XS_FN(reduce_row_range_);
    ptrdiff_t align = 1;
#ifdef XS_COLUMNS
    if (steps[0] == (npy_intp)sizeof(XS_CONTIG_CTYPE) && steps[2] != 0 &&
            steps[2] % (npy_intp)sizeof(XS_CONTIG_CTYPE) == 0 &&
            outer >= XS_COLUMNS_MIN_COLS && n >= XS_COLUMNS_MIN_ROWS &&
            (uintptr_t)args[0] % _Alignof(XS_CONTIG_CTYPE) == 0) {
        task = XS_FN(reduce_column_range_);
        align = XS_COLUMN_CHUNK;          /* whole chunks of columns per thread */
    }
#endif
    /* Rows long enough to be split themselves are not split between threads;
     * nor are rows writing to one shared output element (stride 0). */
    int done = steps[1] != 0 && n < XS_PARALLEL_MIN_TERMS &&
               xs_parallel_ranges(task, &job, outer, align, xs_terms(outer, n));
    if (!done) {
        task(&job, 0, 0, outer);
    }
    xs_restore_gil(gil);
}

void XS_FN(xs_sum_)(char **args, const npy_intp *dimensions, const npy_intp *steps,
                    void *data)
{
    XS_FN(reduce_rows_)(args, dimensions, steps, data, 0);
}

void XS_FN(xs_mean_)(char **args, const npy_intp *dimensions, const npy_intp *steps,
                     void *data)
{
    XS_FN(reduce_rows_)(args, dimensions, steps, data, 1);
}

/* Add the element at p: into large when given (its small part is then
 * merged by the caller), else into acc. */
static inline void XS_FN(add_one_)(xs_small *acc, xs_large *large, const char *p)
{
#if XS_IN_IS_FLOAT
    if (large) {
        xs_large_add_bits(large, XS_LOAD(p));
    }
    else {
        xs_small_add_bits(acc, XS_LOAD(p));
    }
#else
    (void)large;
    XS_IN_CTYPE v;
    memcpy(&v, p, sizeof v);
    XS_ADD_INTEGER(acc, v);
#endif
}

/* Is element p a NaN?  Integers never are. */
static inline int XS_FN(is_nan_)(const char *p)
{
#if XS_IN_IS_FLOAT
    uint64_t bits = XS_LOAD(p);
    return ((bits >> XS_F64_MANT_BITS) & XS_F64_EXP_MASK) == XS_F64_EXP_MASK && (bits & XS_F64_MANT_MASK);
#else
    (void)p;
    return 0;
#endif
}

/* Row i's selected terms of (n),(n),() into acc, and their count: those
 * whose mask byte is non-zero and, when skip_nan is set, not NaN. */
static inline int64_t XS_FN(masked_row_)(xs_small *acc, xs_large **large, char **args,
                                         const npy_intp *steps, npy_intp i, npy_intp n)
{
    const char *values = args[0] + i * steps[0];
    const char *mask = args[1] + i * steps[1];
    int skip_nan = *(const unsigned char *)(args[2] + i * steps[2]) != 0;
    if (steps[5] == 0 && steps[6] == 0) {
        /* One value and one mask byte, n times: a broadcast row. */
        if (n > 0 && *mask && !(skip_nan && XS_FN(is_nan_)(values))) {
            XS_FN(accumulate_)(acc, large, values, n, 0);
            return (int64_t)n;
        }
        return 0;
    }
    int64_t count = 0;
    xs_large *row_large =
        XS_IN_IS_FLOAT && n >= XS_LARGE_MIN_TERMS ? xs_large_for_row(large) : NULL;
    for (npy_intp k0 = 0; k0 < n && !xs_interrupted_at(k0); k0 += XS_INTERRUPT_BLOCK) {
        npy_intp k1 = n - k0 < XS_INTERRUPT_BLOCK ? n : k0 + XS_INTERRUPT_BLOCK;
        for (npy_intp k = k0; k < k1; k++, values += steps[5], mask += steps[6]) {
            if (*mask && !(skip_nan && XS_FN(is_nan_)(values))) {
                XS_FN(add_one_)(acc, row_large, values);
                count++;
            }
        }
    }
    if (row_large) {
        xs_large_flush(row_large);
        xs_small_merge(acc, &row_large->small);
    }
    return count;
}

/* The loops that write one exact state a row: (n)->(69) of every term
 * (masked 0), or (n),(n),()->(69),() of the selected terms and their count
 * (masked 1).  Both callers pass masked as a constant. */
static inline void XS_FN(state_rows_)(char **args, const npy_intp *dimensions,
                                      const npy_intp *steps, int masked)
{
    npy_intp outer = dimensions[0], n = dimensions[1];
    /* the state comes after the one input, or after the three */
    int state_arg = masked ? 3 : 1;
    npy_intp word_step = steps[masked ? 7 : 3];
    PyThreadState *gil = xs_release_gil_for(outer, n);
    xs_large *large = NULL;
    ptrdiff_t work = 0;
    for (npy_intp i = 0; i < outer && !xs_interrupted_after(&work, n); i++) {
        xs_small acc;
        xs_small_init(&acc);
        int64_t count = 0;
        if (masked) {
            count = XS_FN(masked_row_)(&acc, &large, args, steps, i, n);
        }
        else {
            XS_FN(accumulate_)(&acc, &large, args[0] + i * steps[0], n, steps[2]);
        }
        if (xs_stopped()) {
            break;
        }
        xs_store_state(&acc, args[state_arg] + i * steps[state_arg], word_step);
        if (masked) {
            memcpy(args[4] + i * steps[4], &count, sizeof count);
        }
    }
    xs_large_free(large);
    xs_restore_gil(gil);
}

void XS_FN(xs_sum_state_)(char **args, const npy_intp *dimensions, const npy_intp *steps,
                          void *data)
{
    (void)data;
    XS_FN(state_rows_)(args, dimensions, steps, 0);
}

void XS_FN(xs_masked_state_)(char **args, const npy_intp *dimensions, const npy_intp *steps,
                             void *data)
{
    (void)data;
    XS_FN(state_rows_)(args, dimensions, steps, 1);
}

#if XS_IN_IS_FLOAT
/* The next prefix of a float row: the element at in added, the prefix
 * rounded into format.  Most prefixes are rounded from a two-double
 * approximation that provably decides them; the others from the
 * accumulator, after which the approximation is rebuilt (xs_running.h). */
static inline double XS_FN(next_prefix_)(xs_small *acc, xs_running *run, const char *in,
                                         const xs_format *format)
{
    uint64_t bits = XS_LOAD(in);
    xs_small_add_bits(acc, bits);
    double value;
    if (run->valid) {
        xs_running_add(run, xs_bits_double(bits));
    }
    if (!xs_running_round(run, format, &value)) {
        value = xs_small_round(acc, format);
        if (!(acc->flags & (XS_NAN | XS_POS_INF | XS_NEG_INF))) {
            xs_running_rebuild(run, acc);
        }
    }
    return value;
}
#else
/* The next prefix of an integer row: exact in the accumulator, rounded
 * from it (no approximation to keep: run is unused). */
static inline double XS_FN(next_prefix_)(xs_small *acc, xs_running *run, const char *in,
                                         const xs_format *format)
{
    (void)run;
    XS_IN_CTYPE v;
    memcpy(&v, in, sizeof v);
    XS_ADD_INTEGER(acc, v);
    return xs_small_round(acc, format);
}
#endif

void XS_FN(xs_cumsum_)(char **args, const npy_intp *dimensions, const npy_intp *steps,
                       void *data)
{
    const xs_target *target = data;
    npy_intp outer = dimensions[0], n = dimensions[1];
    PyThreadState *gil = xs_release_gil_for(outer, n);
    ptrdiff_t work = 0;
    /* Every prefix written is final: a stop leaves the later ones unwritten. */
    for (npy_intp i = 0; i < outer && !xs_interrupted_after(&work, n); i++) {
        const char *in = args[0] + i * steps[0];
        char *out = args[1] + i * steps[1];
        xs_small acc;
        xs_small_init(&acc);
        xs_running run;
        xs_running_init(&run);
        for (npy_intp k0 = 0; k0 < n && !xs_interrupted_at(k0); k0 += XS_INTERRUPT_BLOCK) {
            npy_intp k1 = n - k0 < XS_INTERRUPT_BLOCK ? n : k0 + XS_INTERRUPT_BLOCK;
            for (npy_intp k = k0; k < k1; k++, in += steps[2], out += steps[3]) {
                XS_STORE(target, out, XS_FN(next_prefix_)(&acc, &run, in, target->format));
            }
        }
    }
    xs_restore_gil(gil);
}

#undef XS_ADD_INTEGER_TIMES
#undef XS_ADD_INTEGER
#undef XS_IN_CTYPE
#undef XS_LOAD
#undef XS_CODE_SLOT
#undef XS_LARGE_ADD
#undef XS_COLUMNS
#undef XS_CELLS_ROUND
#undef XS_CELLS_ADD
#undef XS_CONTIG_CTYPE
#undef XS_IN_IS_FLOAT
#undef XS_FN
#undef XS_CAT
#undef XS_CAT_
#undef XS_IN
