/*
 * Every loop runs in the floating-point mode it was written for: round to
 * nearest, no flush-to-zero, no denormals-are-zero.
 *
 * The window kernels and the low-precision updates use ordinary float
 * arithmetic whose exactness (or correct rounding) holds only in that mode,
 * and a process can be in another one: a library built with -ffast-math sets
 * FTZ/DAZ for the whole process, and C code may call fesetround.  So the
 * Cython modules register every loop through xs_pinned_loop, which saves the
 * mode, pins it, runs the loop and restores the mode; the exception flags
 * the loop raised are kept (NumPy reads them to warn about overflow).
 * Worker threads are started inside the loop and inherit the pinned mode
 * (POSIX: a new thread inherits the creating thread's floating-point
 * environment).  On x86-64 the SSE control register (MXCSR) holds FTZ, DAZ
 * and the SSE rounding mode; elsewhere only the C rounding mode is pinned
 * (an ARM FPCR flush-to-zero bit is not touched: documented in
 * docs/hardening.md).
 */
#ifndef XS_FPENV_H
#define XS_FPENV_H

#include <fenv.h>
#include <stdlib.h>

#include <numpy/npy_common.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#define XS_HAVE_MXCSR 1
/* MXCSR fields (Intel SDM vol. 1, 10.2.3). */
#define XS_MXCSR_STATUS 0x003fu     /* exception flags, bits 0-5 */
#define XS_MXCSR_DAZ 0x0040u        /* denormals are zero, bit 6 */
#define XS_MXCSR_ROUNDING 0x6000u   /* rounding control, bits 13-14 (00: nearest) */
#define XS_MXCSR_FTZ 0x8000u        /* flush to zero, bit 15 */
#endif

typedef void (*xs_pinned_fn)(char **, const npy_intp *, const npy_intp *, void *);

/* What the Cython modules register: the real loop and its data. */
typedef struct {
    xs_pinned_fn fn;
    void *data;
} xs_pinned;

/* A registration of fn (with its data) for xs_pinned_loop; NULL when out of
 * memory.  Never freed: NumPy keeps pointing at it for the module's life. */
static inline xs_pinned *xs_pinned_new(xs_pinned_fn fn, void *data)
{
    xs_pinned *p = (xs_pinned *)malloc(sizeof *p);
    if (p) {
        p->fn = fn;
        p->data = data;
    }
    return p;
}

static inline void xs_pinned_loop(char **args, const npy_intp *dimensions,
                                  const npy_intp *steps, void *data)
{
    const xs_pinned *loop = (const xs_pinned *)data;
    int rounding = fegetround();
    if (rounding != FE_TONEAREST) {
        fesetround(FE_TONEAREST);
    }
#ifdef XS_HAVE_MXCSR
    unsigned csr = _mm_getcsr();
    unsigned pinned = csr & ~(XS_MXCSR_DAZ | XS_MXCSR_FTZ | XS_MXCSR_ROUNDING);
    if (pinned != csr) {
        _mm_setcsr(pinned);
    }
#endif
    loop->fn(args, dimensions, steps, loop->data);
#ifdef XS_HAVE_MXCSR
    if (pinned != csr) {
        /* The caller's control bits, with the exception flags raised since. */
        _mm_setcsr((csr & ~XS_MXCSR_STATUS) | (_mm_getcsr() & XS_MXCSR_STATUS));
    }
#endif
    if (rounding != FE_TONEAREST) {
        fesetround(rounding);
    }
}

#endif
