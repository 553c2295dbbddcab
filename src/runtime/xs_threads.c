/* Splitting long rows over threads (see xs_threads.h): POSIX threads or
 * Win32 threads, through xs_thread_api.h. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1            /* sched_getaffinity, CPU_COUNT */
#endif
#include "runtime/xs_threads.h"

#include <errno.h>
#include <fenv.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "runtime/xs_interrupt.h"
#include "runtime/xs_thread_api.h"

static atomic_int requested_threads = 0;     /* 0: the default */

/* XSUMUFUNC_NUM_THREADS as a thread count: a positive decimal integer,
 * capped at XS_MAX_THREADS (however large: no wrap-around); 0 when unset,
 * -1 for anything else (ignored; the Python module warns, naming it). */
int xs_env_num_threads(void)
{
    const char *env = getenv("XSUMUFUNC_NUM_THREADS");
    if (env == NULL) {
        return 0;
    }
    char *end;
    errno = 0;
    long long v = strtoll(env, &end, 10);
    if (end == env || *end != '\0' || v <= 0) {
        return -1;
    }
    return (errno == ERANGE || v > XS_MAX_THREADS) ? XS_MAX_THREADS : (int)v;
}

/* The CPUs this process may run on (xs_thread_api.h), at most
 * XS_MAX_THREADS. */
static int available_cpus(void)
{
#ifdef XS_HAVE_THREADS
    int cpus = xs_cpus_available();
    return cpus < XS_MAX_THREADS ? cpus : XS_MAX_THREADS;
#else
    return 1;
#endif
}

static int default_threads(void)
{
    int n = xs_env_num_threads();
    if (n > 0) {
        return n;
    }
    n = available_cpus();
    return n < XS_MAX_THREADS ? n : XS_MAX_THREADS;
}

int xs_get_num_threads(void)
{
    int n = atomic_load(&requested_threads);
    if (n <= 0) {
        n = default_threads();
    }
    return n < XS_MAX_THREADS ? n : XS_MAX_THREADS;
}

void xs_set_num_threads(int n)
{
    atomic_store(&requested_threads, n > 0 ? n : 0);
}

#ifdef XS_HAVE_THREADS
/* The calling thread waits for the workers of one xs_parallel_ranges call
 * here, waking up now and then to check for interrupts (xs_interrupt.h):
 * it is the only thread of the call that may run Python's signal handlers,
 * and a worker's part may take seconds. */
typedef struct {
    xs_mutex lock;
    xs_cond finished;
    int running;              /* workers not finished yet */
} xs_waiter;

/* How long the caller sleeps between two interrupt checks while waiting. */
#define XS_WAIT_SLICE_MS 20L

typedef struct {
    xs_range_task task;
    void *ctx;
    int part;
    ptrdiff_t begin, end;
    int raised;               /* floating-point exceptions the part raised */
    xs_interrupt *interrupt;  /* the caller's interrupt context (or NULL) */
    xs_waiter *waiter;
} xs_range_part;

static void run_range(xs_range_part *part)
{
    fexcept_t before;
    fegetexceptflag(&before, FE_ALL_EXCEPT);
    feclearexcept(FE_ALL_EXCEPT);
    part->task(part->ctx, part->part, part->begin, part->end);
    part->raised = fetestexcept(FE_ALL_EXCEPT);
    fesetexceptflag(&before, FE_ALL_EXCEPT);
}

/* First of `units` items in part t of `parts` near-equal parts (no overflow). */
static ptrdiff_t part_start(ptrdiff_t units, ptrdiff_t parts, ptrdiff_t t)
{
    ptrdiff_t extra = units % parts;
    return units / parts * t + (t < extra ? t : extra);
}

static void run_range_thread(void *arg)
{
    xs_range_part *part = arg;
    xs_interrupt_join(part->interrupt);
    run_range(part);
    xs_interrupt_join(NULL);
    xs_mutex_lock(&part->waiter->lock);
    part->waiter->running--;
    xs_cond_signal(&part->waiter->finished);
    xs_mutex_unlock(&part->waiter->lock);
}

/* Until every worker has finished: the caller checks for interrupts (which
 * also stops the workers at their next block) between short sleeps. */
static void wait_for_workers(xs_waiter *waiter)
{
    xs_mutex_lock(&waiter->lock);
    while (waiter->running > 0) {
        if (!xs_cond_wait_ms(&waiter->finished, &waiter->lock, XS_WAIT_SLICE_MS)) {
            xs_mutex_unlock(&waiter->lock);
            (void)xs_interrupted();
            xs_mutex_lock(&waiter->lock);
        }
    }
    xs_mutex_unlock(&waiter->lock);
}
#endif

int xs_parallel_ranges(xs_range_task task, void *ctx, ptrdiff_t n, ptrdiff_t align,
                       ptrdiff_t terms)
{
#ifdef XS_HAVE_THREADS
    if (terms < XS_PARALLEL_MIN_TERMS || align < 1) {
        return 0;
    }
    ptrdiff_t threads = xs_get_num_threads();
    if (threads > terms / XS_PARALLEL_MIN_PART) {
        threads = terms / XS_PARALLEL_MIN_PART;
    }
    ptrdiff_t units = (n + align - 1) / align;          /* aligned pieces to share */
    if (threads > units) {
        threads = units;
    }
    if (threads < 2) {
        return 0;
    }
    xs_range_part parts[XS_MAX_THREADS];
    xs_thread ids[XS_MAX_THREADS];
    xs_thread_start_args starts[XS_MAX_THREADS];
    int started[XS_MAX_THREADS] = {0};
    xs_waiter waiter;
    if (!xs_mutex_init(&waiter.lock)) {
        return 0;
    }
    if (!xs_cond_init(&waiter.finished)) {
        xs_mutex_destroy(&waiter.lock);
        return 0;
    }
    waiter.running = 0;
    xs_interrupt *interrupt = xs_interrupt_current();
    for (ptrdiff_t t = 0; t < threads; t++) {
        ptrdiff_t begin = part_start(units, threads, t) * align;
        ptrdiff_t end = t + 1 == threads ? n : part_start(units, threads, t + 1) * align;
        parts[t] = (xs_range_part){task, ctx, (int)t, begin, end, 0, interrupt, &waiter};
    }
    for (ptrdiff_t t = 1; t < threads; t++) {
        xs_mutex_lock(&waiter.lock);
        waiter.running++;
        xs_mutex_unlock(&waiter.lock);
        starts[t] = (xs_thread_start_args){run_range_thread, &parts[t]};
        started[t] = xs_thread_create(&ids[t], &starts[t]);
        if (!started[t]) {
            xs_mutex_lock(&waiter.lock);
            waiter.running--;
            xs_mutex_unlock(&waiter.lock);
        }
    }
    run_range(&parts[0]);
    for (ptrdiff_t t = 1; t < threads; t++) {
        if (!started[t]) {
            run_range(&parts[t]);
        }
    }
    wait_for_workers(&waiter);
    for (ptrdiff_t t = 1; t < threads; t++) {
        if (started[t]) {
            xs_thread_join(ids[t]);
        }
    }
    xs_cond_destroy(&waiter.finished);
    xs_mutex_destroy(&waiter.lock);
    for (ptrdiff_t t = 0; t < threads; t++) {
        if (parts[t].raised) {
            feraiseexcept(parts[t].raised);
        }
    }
    return (int)threads;
#else
    (void)task; (void)ctx; (void)n; (void)align; (void)terms;
    return 0;
#endif
}

/* One long row split between threads: each part's exact sum in its slot. */
typedef struct {
    xs_serial_sum serial;
    const char *p;
    ptrdiff_t stride;
    xs_small results[XS_MAX_THREADS];
} xs_sum_job;

static void sum_range(void *job_ptr, int part, ptrdiff_t begin, ptrdiff_t end)
{
    xs_sum_job *job = job_ptr;
    xs_large *large = NULL;
    xs_small_init(&job->results[part]);
    job->serial(&job->results[part], &large, job->p + begin * job->stride, end - begin,
                job->stride);
    xs_large_free(large);
}

int xs_parallel_sum(xs_serial_sum serial, xs_small *acc, const char *p, ptrdiff_t n,
                    ptrdiff_t stride)
{
    if (n < XS_PARALLEL_MIN_TERMS) {
        return 0;
    }
    xs_sum_job *job = malloc(sizeof *job);      /* 36 KiB: not on a thread's stack */
    if (job == NULL) {
        return 0;
    }
    job->serial = serial;
    job->p = p;
    job->stride = stride;
    int parts = xs_parallel_ranges(sum_range, job, n, 1, n);
    for (int t = 0; t < parts; t++) {
        xs_small_merge(acc, &job->results[t]);
    }
    free(job);
    return parts > 0;
}
