/*
 * What src/kernels/moving/xs_moving.c needs of the Python runtime and of
 * the extension's other files, for tests/c/moving_diff.c, a program without
 * an interpreter: the GIL is never held (so it is never released), nothing
 * interrupts, and results are stored as float64 or float32
 * (src/loops/xs_loops_tables.c's targets, by the same stores).
 */
#include "exact/xs_types.h"

int PyGILState_Check(void);
void *PyEval_SaveThread(void);
void PyEval_RestoreThread(void *state);
int xs_interrupted(void);

int PyGILState_Check(void)
{
    return 0;
}

void *PyEval_SaveThread(void)
{
    return NULL;
}

void PyEval_RestoreThread(void *state)
{
    (void)state;
}

int xs_interrupted(void)
{
    return 0;
}

static void store_float64(char *p, double x, const xs_target *self)
{
    (void)self;
    xs_store_float64(p, x);
}

static void store_float32(char *p, double x, const xs_target *self)
{
    (void)self;
    xs_store_float32(p, x);             /* exact: x is a float32 value */
}

const xs_target xs_target_float64 = {&xs_format_float64, store_float64, NULL};
const xs_target xs_target_float32 = {&xs_format_float32, store_float32, NULL};
