/*
 * Releasing the GIL around a loop, for every extension module's loops: NumPy
 * calls our inner loops with the GIL held, and a long loop should let other
 * Python threads run.  A short one keeps it: releasing and taking it back
 * costs more than such a loop.  Include after <Python.h>.
 */
#ifndef XS_GIL_H
#define XS_GIL_H

#include <numpy/npy_common.h>

/* Release the GIL for loops of at least this many terms (NumPy itself only
 * does so for more than 500 outer iterations). */
#define XS_GIL_RELEASE_MIN_TERMS 4096

/* The GIL released for a loop of outer * n terms when that is long enough
 * and this thread holds it: the state to hand to xs_restore_gil, else NULL. */
static PyThreadState *xs_release_gil_for(npy_intp outer, npy_intp n)
{
    int big = outer >= XS_GIL_RELEASE_MIN_TERMS || n >= XS_GIL_RELEASE_MIN_TERMS ||
              outer * n >= XS_GIL_RELEASE_MIN_TERMS;   /* both < 4096: no overflow */
    if (big && PyGILState_Check()) {
        return PyEval_SaveThread();
    }
    return NULL;
}

/* Take the GIL back after xs_release_gil_for (NULL: it was kept). */
static void xs_restore_gil(PyThreadState *saved)
{
    if (saved) {
        PyEval_RestoreThread(saved);
    }
}

#endif
