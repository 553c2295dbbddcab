/*
 * Interrupts (Ctrl-C) during long loops.
 *
 * The loops run without the GIL, so Python cannot run its signal handlers
 * while they do.  Every loop of the _ufuncs module is registered through
 * xs_checked_loop, which gives the call a context; the loops then call
 * xs_interrupted() between blocks of work (XS_INTERRUPT_BLOCK terms, never
 * inside the hot loop).  On the thread that called the loop, at most every
 * XS_INTERRUPT_INTERVAL_MS, that takes the GIL for a moment and runs
 * PyErr_CheckSignals() (which runs Python's handlers on the main thread
 * only; elsewhere it does nothing).  If a handler raised (KeyboardInterrupt
 * for SIGINT), the exception stays set, the context's stop flag is set, and
 * every loop and worker thread of the call stops at its next check without
 * storing the result it was working on.
 *
 * How the exception reaches the caller (NumPy 2.x, gufuncs): NumPy does not
 * check PyErr_Occurred() after a legacy inner loop unless the loop needs the
 * Python API (object dtypes), but it ends every gufunc call with
 * NpyIter_Deallocate(), which fails when an exception is set; the call then
 * raises it.  NumPy may still call the loop again for the rest of the outer
 * iteration: xs_checked_loop returns at once while the exception of an
 * interrupted call of this thread is pending.  The floating-point flags of
 * an interrupted call are cleared, so that NumPy does not turn them into
 * warnings on top of the exception.
 *
 * Worker threads (xs_threads.c) join the caller's context: they never run
 * Python code, they only read the stop flag; the caller keeps checking
 * while it waits for them.
 */
#ifndef XS_INTERRUPT_H
#define XS_INTERRUPT_H

#include <stddef.h>

#include <numpy/npy_common.h>

/* Terms (or products, prefix sums, windows) between two checks of a loop.
 * A multiple of every SIMD block, so that blocks stay whole. */
#define XS_INTERRUPT_BLOCK ((ptrdiff_t)1 << 18)
/* The calling thread takes the GIL to check for signals at most this often. */
#define XS_INTERRUPT_INTERVAL_MS 100

/* The registered form of every loop: runs the xs_pinned_loop (xs_fpenv.h)
 * registration in `data` inside an interrupt context. */
void xs_checked_loop(char **args, const npy_intp *dimensions, const npy_intp *steps,
                     void *data);

/* 1 if the loop in progress must stop now (a signal handler raised, here or
 * seen by the calling thread); 0 to go on.  Cheap (a clock read at most)
 * except when it takes the GIL, at most every XS_INTERRUPT_INTERVAL_MS.
 * 0 outside xs_checked_loop. */
int xs_interrupted(void);

/* 1 if the call in progress was stopped: a flag read, no check.  A loop
 * calls it before storing a result that an inner function may have left
 * half done. */
int xs_stopped(void);

/* The check at the start of block number done / XS_INTERRUPT_BLOCK of a
 * row: none before the first (the loop over rows checks there). */
static inline int xs_interrupted_at(ptrdiff_t done)
{
    return done > 0 && xs_interrupted();
}

/* xs_interrupted() once `work` reaches XS_INTERRUPT_BLOCK (then reset):
 * for loops over many short rows, `done` being the terms of the last row. */
static inline int xs_interrupted_after(ptrdiff_t *work, ptrdiff_t done)
{
    *work += done;
    if (*work < XS_INTERRUPT_BLOCK) {
        return 0;
    }
    *work = 0;
    return xs_interrupted();
}

/* For xs_threads.c: the context of the call in progress on this thread
 * (NULL if none), and a worker thread taking it as its own (it then only
 * reads its stop flag). */
typedef struct xs_interrupt xs_interrupt;
xs_interrupt *xs_interrupt_current(void);
void xs_interrupt_join(xs_interrupt *ctx);

#endif
