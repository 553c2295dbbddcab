/* Interrupts during long loops (see xs_interrupt.h). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "runtime/xs_interrupt.h"

#include <fenv.h>
#include <stdatomic.h>
#include <time.h>

#include "runtime/xs_fpenv.h"

struct xs_interrupt {
    atomic_int stop;          /* set once: every thread of the call stops */
    double next_check;        /* seconds (monotonic): the caller's next signal check */
};

/* The call in progress on this thread; whether this thread is the one that
 * called the loop (it may take the GIL), or a worker; whether an exception
 * left by an interrupted call of this thread may still be pending. */
static _Thread_local xs_interrupt *current = NULL;
static _Thread_local int owner = 0;
static _Thread_local int pending = 0;

static double xs_seconds(void)
{
    struct timespec ts;
#if defined(CLOCK_MONOTONIC)
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        return 0.0;
    }
#else
    if (timespec_get(&ts, TIME_UTC) == 0) {
        return 0.0;
    }
#endif
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int xs_interrupted(void)
{
    xs_interrupt *ctx = current;
    if (ctx == NULL) {
        return 0;
    }
    if (atomic_load_explicit(&ctx->stop, memory_order_relaxed)) {
        return 1;
    }
    if (!owner) {
        return 0;
    }
    double now = xs_seconds();
    if (now < ctx->next_check) {
        return 0;
    }
    /* A handler may take long, or call us again (a nested call has its own
     * context): the next check counts from its end. */
    PyGILState_STATE gil = PyGILState_Ensure();
    int raised = PyErr_CheckSignals() < 0;
    PyGILState_Release(gil);
    ctx->next_check = xs_seconds() + XS_INTERRUPT_INTERVAL_MS * 1e-3;
    if (raised) {
        atomic_store(&ctx->stop, 1);
    }
    return raised;
}

int xs_stopped(void)
{
    xs_interrupt *ctx = current;
    return ctx != NULL && atomic_load_explicit(&ctx->stop, memory_order_relaxed);
}

xs_interrupt *xs_interrupt_current(void)
{
    return current;
}

void xs_interrupt_join(xs_interrupt *ctx)
{
    current = ctx;
    owner = 0;
}

/* 1 if the exception of an interrupted call of this thread is still set:
 * NumPy is calling the loop again for the rest of that call. */
static int xs_still_pending(void)
{
    if (!pending) {
        return 0;
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    int still = PyErr_Occurred() != NULL;
    PyGILState_Release(gil);
    pending = still;
    return still;
}

void xs_checked_loop(char **args, const npy_intp *dimensions, const npy_intp *steps,
                     void *data)
{
    if (xs_still_pending()) {
        return;
    }
    xs_interrupt ctx;
    atomic_init(&ctx.stop, 0);
    ctx.next_check = xs_seconds() + XS_INTERRUPT_INTERVAL_MS * 1e-3;
    xs_interrupt *outer = current;          /* a signal handler's own call nests */
    int outer_owner = owner;
    current = &ctx;
    owner = 1;
    xs_pinned_loop(args, dimensions, steps, data);
    current = outer;
    owner = outer_owner;
    if (atomic_load(&ctx.stop)) {
        /* No result: no overflow or invalid-operation warning either. */
        feclearexcept(FE_ALL_EXCEPT);
        pending = 1;
    }
}
