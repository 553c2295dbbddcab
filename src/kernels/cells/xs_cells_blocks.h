/*
 * The block bookkeeping of the two cells drivers, the sums' (xs_cells.c)
 * and the dot products' (xs_dot_cells.c): how a run is cut into blocks,
 * which window the lanes belong to, when a window drops a cell, when the
 * lanes are flushed, and when data too wide for any window stops the
 * kernels being tried first.  Each driver keeps what differs: how a block
 * is measured, which window fits it, and where a block that fits none goes.
 */
#ifndef XS_CELLS_BLOCKS_H
#define XS_CELLS_BLOCKS_H

#include <stddef.h>
#include <string.h>

#include "kernels/cells/xs_cells.h"

typedef struct {
    double lanes[XS_CELLS_LANES];
    xs_cells_window w;
    xs_small *acc;               /* where the lanes are flushed */
    int active;                  /* w is set and the lanes belong to it */
    int refused;                 /* blocks in a row that fit no window */
    int narrower;                /* blocks in a row that fit fewer cells than w's */
    int lanes_cells;             /* the cells with lanes in use (w's, or more) */
    int flushed;                 /* some lanes went into acc already */
    ptrdiff_t blocks;            /* blocks in the lanes since the last flush */
} xs_cells_blocks;

/* The terms of the next block of a run with `left` terms to go, and in
 * *padded that length rounded up to whole steps.  A last block of a length
 * that is not a whole number of steps is cut in two: its whole steps, then
 * the rest alone (so that padding copies fewer than XS_CELLS_STEP terms,
 * not up to a block). */
static inline ptrdiff_t xs_cells_blocks_length(ptrdiff_t left, int *padded)
{
    ptrdiff_t terms = left < XS_CELLS_BLOCK ? left : XS_CELLS_BLOCK;
    terms = terms > XS_CELLS_STEP ? terms - terms % XS_CELLS_STEP : terms;
    *padded = (int)(terms + (XS_CELLS_STEP - terms % XS_CELLS_STEP) % XS_CELLS_STEP);
    return terms;
}

/* The block to give the kernels: x itself, or (a short rest) its terms
 * copied into tail and padded with zeros, which add nothing. */
static inline const void *xs_cells_blocks_pad(void *tail, const void *x, ptrdiff_t terms,
                                              int padded, size_t itemsize)
{
    if (terms == padded) {
        return x;
    }
    memcpy(tail, x, (size_t)terms * itemsize);
    memset((char *)tail + (size_t)terms * itemsize, 0, (size_t)(padded - terms) * itemsize);
    return tail;
}

/* The lanes into acc (exactly: xs_cells_flush), cleared. */
static inline void xs_cells_blocks_flush(xs_cells_blocks *t)
{
    xs_cells_flush(t->acc, t->lanes, t->lanes_cells);
    t->lanes_cells = 0;
    t->blocks = 0;
    t->flushed = 1;
}

/* A block needs a new grid: the lanes of the old one go first. */
static inline void xs_cells_blocks_regrid(xs_cells_blocks *t)
{
    if (t->active) {
        xs_cells_blocks_flush(t);
    }
}

/* A block fit no window (and went elsewhere): after two in a row the data
 * is taken as too wide for any, and the kernels stop being tried first. */
static inline void xs_cells_blocks_refuse(xs_cells_blocks *t)
{
    if (++t->refused >= 2 && t->active) {
        xs_cells_blocks_flush(t);
        t->active = 0;
    }
}

/* A block went into the lanes under a new window: w becomes it. */
static inline void xs_cells_blocks_move(xs_cells_blocks *t, const xs_cells_window *next)
{
    t->w = *next;
    t->narrower = 0;
}

/* A block went into the lanes under w; `fewer`: it needed fewer cells than
 * w's.  1 when w should drop its last cell now, after a run of such blocks
 * (same grid: the dropped cell's lanes stay, flushed with the others). */
static inline int xs_cells_blocks_narrower(xs_cells_blocks *t, int fewer)
{
    if (fewer && ++t->narrower == XS_CELLS_NARROWER_RUN) {
        t->narrower = 0;
        return 1;
    }
    t->narrower = fewer ? t->narrower : 0;
    return 0;
}

/* After a block went into the lanes (w set for it): the lanes are in use,
 * a non-zero term is in acc's flags, and the lanes are flushed every
 * XS_CELLS_FLUSH_BLOCKS blocks, before cell 0 could round. */
static inline void xs_cells_blocks_took(xs_cells_blocks *t)
{
    if (!t->active) {
        t->acc->flags |= XS_HAS_TERM | XS_NOT_NEG_ZERO;
        t->active = 1;
    }
    t->lanes_cells = t->w.cells > t->lanes_cells ? t->w.cells : t->lanes_cells;
    t->refused = 0;
    if (++t->blocks == XS_CELLS_FLUSH_BLOCKS) {
        xs_cells_blocks_flush(t);
    }
}

#endif
