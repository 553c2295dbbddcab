/* The loops on portable states: merge, round, mean, and a dot product's
 * state rounded. */
#include "loops/xs_loops_common.h"

#include "exact/xs_dot.h"
#include "runtime/xs_interrupt.h"

/* Read a state; a malformed one becomes NaN rather than a wrong number (the
 * Python layer validates states it is handed before they get here). */
static void xs_load_state(xs_small *acc, const char *in, npy_intp stride)
{
    int64_t state[XS_STATE_LEN];
    for (int j = 0; j < XS_STATE_LEN; j++, in += stride) {
        memcpy(&state[j], in, sizeof state[j]);
    }
    if (xs_small_from_state(acc, state) != 0) {
        xs_small_init(acc);
        acc->flags = XS_HAS_TERM | XS_NOT_NEG_ZERO | XS_NAN;
    }
}

void xs_state_merge(char **args, const npy_intp *dimensions, const npy_intp *steps,
                    void *data)
{
    (void)data;
    npy_intp outer = dimensions[0], m = dimensions[1];
    PyThreadState *gil = xs_release_gil_for(outer, m);
    ptrdiff_t work = 0;
    for (npy_intp i = 0; i < outer && !xs_interrupted_after(&work, m * XS_STATE_LEN); i++) {
        const char *in = args[0] + i * steps[0];
        xs_small acc;
        xs_small_init(&acc);
        /* A block of states at a time: XS_INTERRUPT_BLOCK words. */
        const npy_intp states_per_block = XS_INTERRUPT_BLOCK / XS_STATE_LEN;
        for (npy_intp r0 = 0; r0 < m && !xs_interrupted_at(r0); r0 += states_per_block) {
            npy_intp r1 = m - r0 < states_per_block ? m : r0 + states_per_block;
            for (npy_intp r = r0; r < r1; r++, in += steps[2]) {
                xs_small part;
                xs_load_state(&part, in, steps[3]);
                xs_small_merge_state(&acc, &part);
            }
        }
        if (xs_stopped()) {
            break;
        }
        xs_store_state(&acc, args[1] + i * steps[1], steps[4]);
    }
    xs_restore_gil(gil);
}

/* Each row's state rounded into the target: (69)->() (with_count 0), or
 * divided by its count first, (69),()->() (with_count 1: the mean). */
static void round_states(char **args, const npy_intp *dimensions, const npy_intp *steps,
                         const xs_target *target, int with_count)
{
    npy_intp outer = dimensions[0];
    /* the result comes after the state, or after the state and the count */
    int out = 1 + with_count;
    npy_intp word_step = steps[out + 1];
    ptrdiff_t work = 0;
    for (npy_intp i = 0; i < outer && !xs_interrupted_after(&work, XS_STATE_LEN); i++) {
        xs_small acc;
        xs_load_state(&acc, args[0] + i * steps[0], word_step);
        double value;
        if (with_count) {
            int64_t count;
            memcpy(&count, args[1] + i * steps[1], sizeof count);
            uint64_t divisor = count > 0 ? (uint64_t)count : 0u;     /* 0: NaN */
            value = xs_small_round_divided(&acc, divisor, target->format);
        }
        else {
            value = xs_small_round(&acc, target->format);
        }
        XS_STORE(target, args[out] + i * steps[out], value);
    }
}

void xs_state_round(char **args, const npy_intp *dimensions, const npy_intp *steps,
                    void *data)
{
    round_states(args, dimensions, steps, data, 0);
}

void xs_state_mean(char **args, const npy_intp *dimensions, const npy_intp *steps,
                   void *data)
{
    round_states(args, dimensions, steps, data, 1);
}

/* (3*69)->(): a dot product's state rounded once into the target. */
void xs_dot_state_round(char **args, const npy_intp *dimensions, const npy_intp *steps,
                        void *data)
{
    const xs_target *target = data;
    npy_intp outer = dimensions[0];
    ptrdiff_t work = 0;
    for (npy_intp i = 0; i < outer && !xs_interrupted_after(&work, 3 * XS_STATE_LEN); i++) {
        xs_dot acc;
        xs_small *parts[3] = {&acc.main, &acc.fine, &acc.huge};
        for (int k = 0; k < 3; k++) {
            xs_load_state(parts[k], args[0] + i * steps[0] + k * XS_STATE_LEN * steps[2],
                          steps[2]);
        }
        XS_STORE(target, args[1] + i * steps[1], xs_dot_round(&acc, target->format));
    }
}

/* Word j of the state at `row` (word_step apart; memcpy: any alignment). */
static int64_t state_word(const char *row, npy_intp word_step, int j)
{
    int64_t w;
    memcpy(&w, row + j * word_step, sizeof w);
    return w;
}

/* Is this a state our loops can have made?  The digits below the top in
 * [0, 2^32), |top| below top_limit (the Python layer's limit for states it
 * is handed), only known flags, and the flags a value implies: a non-zero
 * digit or an Inf/NaN means a term other than -0.0 was seen, any flag
 * means a term was.  The Python layer names the problem when this fails. */
static int state_is_valid(const char *row, npy_intp word_step, int64_t top_limit)
{
    int64_t any_digit = 0;
    for (int j = 0; j < XS_NCHUNKS - 1; j++) {
        int64_t d = state_word(row, word_step, j);
        if (d < 0 || d > XS_CHUNK_MASK) {
            return 0;
        }
        any_digit |= d;
    }
    int64_t top = state_word(row, word_step, XS_NCHUNKS - 1);
    int64_t flags = state_word(row, word_step, XS_NCHUNKS);
    if (top <= -top_limit || top >= top_limit || flags < 0 || flags > (int64_t)XS_FLAG_BITS) {
        return 0;
    }
    int64_t specials = XS_POS_INF | XS_NEG_INF | XS_NAN;
    int64_t needs = (any_digit | top) != 0 || (flags & specials) != 0
                        ? (int64_t)(XS_HAS_TERM | XS_NOT_NEG_ZERO)
                        : (flags != 0 ? (int64_t)XS_HAS_TERM : 0);
    return (needs & ~flags) == 0;
}

npy_intp xs_states_first_invalid(const char *base, npy_intp n, npy_intp row_step,
                                 npy_intp word_step, int64_t top_limit)
{
    for (npy_intp r = 0; r < n; r++) {
        if (!state_is_valid(base + r * row_step, word_step, top_limit)) {
            return r;
        }
    }
    return -1;
}

/* Canonical form in place: a state with an Inf or NaN keeps only its flags
 * (its finite digits no longer matter).  Returns the largest |top digit|
 * seen (before any is cleared), so that a merge can tell a result beyond
 * the state range. */
int64_t xs_states_canonicalize(char *base, npy_intp n, npy_intp row_step, npy_intp word_step)
{
    const int64_t specials = XS_POS_INF | XS_NEG_INF | XS_NAN;
    const int64_t zero = 0;
    int64_t largest = 0;
    for (npy_intp r = 0; r < n; r++) {
        char *row = base + r * row_step;
        int64_t top = state_word(row, word_step, XS_NCHUNKS - 1);
        /* States our loops write have |top| < XS_STATE_TOP_LIMIT: no overflow. */
        int64_t magnitude = top < 0 ? -top : top;
        largest = magnitude > largest ? magnitude : largest;
        if (state_word(row, word_step, XS_NCHUNKS) & specials) {
            for (int j = 0; j < XS_NCHUNKS; j++) {
                memcpy(row + j * word_step, &zero, sizeof zero);
            }
        }
    }
    return largest;
}
