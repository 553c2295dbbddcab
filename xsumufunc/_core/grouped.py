"""Exact grouped sums, means and variances without a Python call per group.

``df.groupby(k).agg(exact_sum)`` calls exact_sum once per group.  Here the
values are sorted by group (stably), each group is cut into pieces of at most
B values laid out as the rows of one padded 2-D array, and one call of the
masked state loop sums every row exactly (the padding is masked out, so it is
not a term).  The pieces' states are then merged per group the same way, a
few rows of states at a time, until one state is left per group; each is
rounded once.  Python loops only over batches of groups (to bound memory)
and over the merge levels.

The order by group is a counting sort a bounded chunk of codes at a time
(_order): 4 bytes a value (int32 below 2**31 values), none at all when the
codes already ascend, and each batch of groups gathers its values from it
(never a sorted copy of the input).  Sums and means of few groups over long
inputs (_sorts_whole: when running states take less than that order) go a
chunk at a time instead, each chunk's group states merged into one running
state per group.  So the scratch is about the output plus 64 MiB for 1e7
values (tests/test_memory.py), and every step is a bounded NumPy call or a
compiled loop that checks for Ctrl-C: Python sees a signal between steps.
Small calls (a few values times groups, float64 values) take one compiled
call instead (_ufuncs._grouped_few): an exact accumulator per group, no
ordering.

Variances (grouped_variance) are decided group by group by the compiled
loop (src/kernels/moving/xs_moving_var.c: two-double sums with a proven bound, one pass
over the sorted values).  The groups it leaves need their moments (count,
exact S1, exact S2: ``_core/moments.py``): the groups are padded to the power of two
at or above their size, the padding left out, so that each size class is
the rows of a few Moments.of_rows calls (at most twice the values, a
bounded batch at a time); each group's exact rational is then rounded once
by moments.finish (a Python step per group, not per value).  The Dask
DataFrame groupby (``_backends/dask_groupby.py``) merges the same moments.
"""

import numpy as np

from .._ufuncs import (
    _grouped_few,
    exact_state_merge_ufunc,
    exact_sum_state_ufunc,
    exact_sum_ufunc,
)
from . import dtypes, moments
from . import stateformat as fmt
from .rows import masked_states_rows
from .spec import as_input, as_integer, skips_nan, warn_empty_mean
from .states import round_states

_INT64 = fmt.NATIVE
_F64 = np.dtype(np.float64)
# A batch holds at most this many values and groups (bounded temporaries).
_BATCH_VALUES = 1 << 18
_BATCH_GROUPS = 1 << 12
_MAX_PIECE = 1024
# Groups this large are summed from their own slice (one call per group).
_LARGE_GROUP = 1 << 14


def _piece_length(counts):
    """Piece length B: a power of two in [1, 1024] near twice the mean group
    size, so that most groups are one piece and padding at most doubles
    the values."""
    mean = counts.sum() / max(np.count_nonzero(counts), 1)
    return int(min(_MAX_PIECE, 1 << max(0, int(np.ceil(np.log2(max(2 * mean, 1)))))))


def _layout(counts, length):
    """For groups of these sizes cut into pieces of `length`: the piece of
    each (sorted) element, its column, and each group's first piece."""
    pieces = -(-counts // length)                      # ceil, 0 for empty groups
    first_piece = np.concatenate([[0], np.cumsum(pieces)[:-1]])
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    group = np.repeat(np.arange(counts.size), counts)
    rank = np.arange(group.size) - starts[group]
    return first_piece[group] + rank // length, rank % length, pieces, first_piece


def _merge_pieces(states, pieces, first_piece):
    """One state per group from each group's consecutive piece states."""
    out = np.zeros((pieces.size, fmt.LENGTH), _INT64)      # empty groups: empty state
    single = pieces == 1
    out[single] = states[first_piece[single]]
    multi = np.flatnonzero(pieces > 1)
    if multi.size:
        counts = pieces[multi]
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        taken = np.repeat(first_piece[multi] - starts, counts) + np.arange(counts.sum())
        length = _piece_length(counts)
        row, col, new_pieces, new_first = _layout(counts, length)
        padded = np.zeros((int(new_pieces.sum()), length, fmt.LENGTH), _INT64)
        padded[row, col] = states[taken]     # the padding: empty states, merged as nothing
        out[multi] = _merge_pieces(exact_state_merge_ufunc(padded), new_pieces, new_first)
    return out


def _batch_states(values, counts):
    """States of the consecutive groups (sizes `counts`) of sorted real values.
    Large groups are summed straight from their slice (the fast loops, one
    call each); the others as the rows of one padded array."""
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    large = counts >= _LARGE_GROUP
    small_counts = np.where(large, 0, counts)
    small_values = values[np.repeat(~large, counts)] if large.any() else values
    length = _piece_length(small_counts)
    row, col, pieces, first_piece = _layout(small_counts, length)
    padded = np.zeros((int(pieces.sum()), length), values.dtype)
    mask = np.zeros(padded.shape, bool)
    padded[row, col] = small_values
    mask[row, col] = True
    states, _ = masked_states_rows(padded, mask, False)
    out = _merge_pieces(states, pieces, first_piece)
    native = dtypes.native(values.dtype)
    for g in np.flatnonzero(large):
        out[g] = exact_sum_state_ufunc(values[starts[g]:starts[g] + counts[g]],
                                       signature=(native, _INT64))
    return out


def _batch_sums(values, counts, result):
    """Exact sums of the consecutive groups (sizes `counts`) of sorted real
    values, rounded into `result`.  Groups of at most one piece are the rows
    of one array padded with -0.0, a term that changes no sum (not even the
    sign of a zero one; integers pad with 0), summed by exact_sum's row
    loops, which round each row straight from the fast paths (an empty
    group is +0, as exact_sum of nothing); larger groups go through states
    (_batch_states)."""
    out = np.zeros(counts.size, result)         # an empty group sums to +0, not -0
    length = _piece_length(counts)
    large = counts > length
    small = ~large & (counts > 0)               # no padded rows for empty groups
    in_small = np.repeat(small, counts)
    if small.any():
        small_counts = counts[small]
        starts = np.concatenate([[0], np.cumsum(small_counts)[:-1]])
        row = np.repeat(np.arange(small_counts.size), small_counts)
        col = np.arange(row.size) - starts[row]
        native = dtypes.native(values.dtype)
        pad = 0 if native.kind in "biu" else -0.0
        rows = np.full((small_counts.size, length), pad, native)
        rows[row, col] = values if in_small.all() else values[in_small]
        out[small] = exact_sum_ufunc(rows, signature=(native, result))
    if large.any():
        states = _batch_states(values[~in_small], counts[large])
        out[large] = round_states(states, None, result, False)
    return out


def _batches(counts):
    """Group index ranges [g0, g1) of bounded size (at least one group each)."""
    ends = np.cumsum(counts)
    g0 = 0
    while g0 < counts.size:
        base = ends[g0 - 1] if g0 else 0
        g1 = int(np.searchsorted(ends, base + _BATCH_VALUES, side="right"))
        g1 = min(max(g1, g0 + 1), g0 + _BATCH_GROUPS, counts.size)
        yield g0, g1, int(base), int(ends[g1 - 1])
        g0 = g1


def check_groups(func_name, values, codes, ngroups):
    """ngroups as an int, after the checks of the grouped functions'
    arguments that read no data (so that lazy arrays take them too): values
    1-D, codes integers of its shape, ngroups a non-negative integer."""
    if values.ndim != 1:
        raise ValueError(f"{func_name}: values must be 1-D, not {values.ndim}-D")
    if codes.dtype.kind not in "iu" or codes.shape != values.shape:
        raise ValueError(
            f"{func_name}: codes must be integers of the same shape as values "
            f"({values.shape}), not {codes.dtype} of shape {codes.shape}")
    ngroups = as_integer(ngroups, func_name, "ngroups")
    if ngroups < 0:
        raise ValueError(f"{func_name}: ngroups must be a non-negative integer")
    return ngroups


def _checked(func_name, values, codes, ngroups):
    """Checked arguments: values (1-D ndarray), its kind, codes, ngroups."""
    values, kind = as_input(values, func_name)
    codes = np.asarray(codes)
    ngroups = check_groups(func_name, values, codes, ngroups)
    if codes.size and codes.max() >= ngroups:
        raise ValueError(f"{func_name}: codes must be below ngroups ({ngroups}); "
                         f"found {codes.max()}")
    return values, kind, codes, ngroups


#: The ordering by group reads the codes this many at a time: its scratch
#: (keys, a chunk's order, positions: about 60 bytes a value) stays a few
#: MiB beside the order itself (4 bytes a value below 2**31 values).
_ORDER_CHUNK = 1 << 18


def _kept(values, codes, c0, c1, skip_nan):
    """The codes of values c0..c1-1 and which are kept (None: all): codes
    < 0 (pandas' missing keys) and, with skip_nan, NaNs are left out."""
    part = codes[c0:c1]
    keep = part >= 0
    if skips_nan(skip_nan, values.dtype):
        keep &= ~np.isnan(values[c0:c1])
    return part, None if keep.all() else keep


def _stable_argsort(keys, ngroups):
    """The stable order of keys (codes below ngroups).  NumPy sorts 16-bit
    keys by radix sort, in linear time; wider codes are sorted as two
    16-bit digits, low then high (a stable sort by each keeps the order of
    the first among equal seconds: LSD radix)."""
    if ngroups <= 1 << 16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    if ngroups <= 1 << 32:
        wide = keys.astype(np.uint32)
        low = np.argsort((wide & 0xFFFF).astype(np.uint16), kind="stable")
        return low[np.argsort((wide[low] >> 16).astype(np.uint16), kind="stable")]
    return np.argsort(keys, kind="stable")


def _order_chunk(values, codes, ngroups, skip_nan):
    """_order of at most _ORDER_CHUNK values: by sorting them at once (an
    int64 order, a few MiB)."""
    part, keep = _kept(values, codes, 0, codes.size, skip_nan)
    kept = (part if keep is None else part[keep]).astype(np.intp, copy=False)
    counts = np.bincount(kept, minlength=ngroups).astype(_INT64, copy=False)
    if keep is None and np.all(kept[1:] >= kept[:-1]):
        return None, counts
    by_code = _stable_argsort(kept, ngroups)
    return (by_code if keep is None else np.flatnonzero(keep)[by_code]), counts


def _order(values, codes, ngroups, skip_nan):
    """The stable order of the kept values by group (see _kept) and each
    group's count.  The order is None when every value is kept and the
    codes already ascend (the values are in group order as they are);
    else int32 below 2**31 values.  A counting sort a chunk of codes at a
    time (never an order of 8 bytes a value or a sorted copy): the counts
    first, then each chunk's values put after the earlier chunks' of their
    group."""
    n = codes.size
    if n <= _ORDER_CHUNK:
        return _order_chunk(values, codes, ngroups, skip_nan)
    step = _ORDER_CHUNK
    counts = np.zeros(ngroups, _INT64)
    ascending = True
    for c0 in range(0, n, step):
        part, keep = _kept(values, codes, c0, c0 + step, skip_nan)
        kept = part if keep is None else part[keep]
        if ngroups > 4 * step:
            # bincount would take a temporary of the groups' size per chunk.
            np.add.at(counts, kept, 1)
        else:
            found = np.bincount(kept.astype(np.intp, copy=False))
            counts[:found.size] += found
        # The chunk's codes ascend, and so across from the previous one.
        ascending = ascending and keep is None and bool(
            np.all(codes[max(c0 - 1, 0):c0 + step][1:] >= codes[max(c0 - 1, 0):c0 + step][:-1]))
    if ascending:
        return None, counts
    order = np.empty(int(counts.sum()), np.int32 if n < 1 << 31 else np.intp)
    following = np.cumsum(counts, dtype=order.dtype)   # each group's next position
    following -= counts.astype(order.dtype, copy=False)
    for c0 in range(0, n, step):
        part, keep = _kept(values, codes, c0, c0 + step, skip_nan)
        kept = (part if keep is None else part[keep]).astype(np.intp, copy=False)
        if kept.size == 0:
            continue
        by_code = _stable_argsort(kept, ngroups)
        sorted_codes = kept[by_code]
        # Runs of equal codes: each value's rank in its run, and each run's
        # group then moves on by the run's length.
        run_starts = np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1
        run_starts = np.concatenate([[0], run_starts])
        run_lengths = np.diff(run_starts, append=kept.size)
        rank = np.arange(kept.size) - np.repeat(run_starts, run_lengths)
        order[following[sorted_codes] + rank] = (
            by_code + c0 if keep is None else c0 + np.flatnonzero(keep)[by_code])
        following[sorted_codes[run_starts]] += run_lengths
    return order, counts


def _gather(values, order, e0, e1):
    """The kept values e0..e1-1 in group order (order None: the values as
    they are)."""
    return values[e0:e1] if order is None else values[order[e0:e1]]


def _sorted_batches(values, kind, order, counts):
    """(g0, g1, states of groups g0..g1-1) in bounded batches, each batch's
    values gathered in group order as it comes."""
    for g0, g1, e0, e1 in _batches(counts):
        chunk = _gather(values, order, e0, e1)
        comps = (chunk,) if kind == "real" else (chunk.real, chunk.imag)
        parts = [_batch_states(comp, counts[g0:g1]) for comp in comps]
        yield g0, g1, parts[0] if kind == "real" else np.stack(parts, axis=-2)


#: Inputs longer than a chunk are taken a chunk at a time, each chunk's group
#: states merged into one running state per group (552 bytes each: the
#: output's states), so that the scratch is bounded by the chunk instead of
#: growing with the input (ordering everything at once takes 4 bytes per
#: value: the order).  A chunk holds
#: _CHUNK_VALUES values, or with many groups _CHUNK_VALUES_PER_GROUP values
#: per group on average: its group states (a merge per group present) then
#: cost little beside the values, and its scratch (about 450 bytes per group)
#: stays below the running states.
_CHUNK_VALUES = 1 << 18
_CHUNK_VALUES_PER_GROUP = 16


def _chunk_length(ngroups):
    """Values per chunk of the chunked path."""
    return max(_CHUNK_VALUES, _CHUNK_VALUES_PER_GROUP * ngroups)


#: The chunked path's scratch, as tracemalloc measures it: per value of a
#: chunk (its order, keys and padded rows) and in states per group (the
#: running ones, the chunk's, their merges); and the whole order's per value
#: (int32).
_CHUNK_BYTES_PER_VALUE = 80
_CHUNK_STATES_PER_GROUP = 5
_ORDER_BYTES_PER_VALUE = 4


def _sorts_whole(values, ngroups):
    """Are the values ordered by group all at once (else chunk by chunk)?
    Whichever takes less memory: the whole order or the running states and
    one chunk's scratch."""
    chunked = (_CHUNK_STATES_PER_GROUP * ngroups * fmt.LENGTH * _INT64.itemsize
               + _CHUNK_BYTES_PER_VALUE * _chunk_length(ngroups))
    return _ORDER_BYTES_PER_VALUE * values.size <= chunked


def _group_states(values, kind, codes, ngroups, skip_nan):
    """Each group's count and an iterator of (g0, g1, states of groups
    g0..g1-1) (native int64, (g1 - g0, [2,] LENGTH))."""
    if _sorts_whole(values, ngroups):
        order, counts = _order(values, codes, ngroups, skip_nan)
        return counts, _sorted_batches(values, kind, order, counts)
    trailing = (fmt.LENGTH,) if kind == "real" else (2, fmt.LENGTH)
    states = np.zeros((ngroups,) + trailing, _INT64)       # empty states
    counts = np.zeros(ngroups, _INT64)
    step = _chunk_length(ngroups)
    for c0 in range(0, values.size, step):
        part_values, part_codes = values[c0:c0 + step], codes[c0:c0 + step]
        order, part_counts = _order(part_values, part_codes, ngroups, skip_nan)
        for g0, g1, part in _sorted_batches(part_values, kind, order, part_counts):
            # The running states and the chunk's side by side, merged in
            # place (a group absent from the chunk has an empty state there,
            # which merges as nothing).
            pair = np.empty(part.shape[:-1] + (2, fmt.LENGTH), _INT64)
            pair[..., 0, :] = states[g0:g1]
            pair[..., 1, :] = part
            exact_state_merge_ufunc(pair, out=states[g0:g1])
        counts += part_counts
    return counts, iter([(0, ngroups, states)])


#: Small calls (at most this many values times groups) are summed (averaged)
#: by one compiled call, without ordering the values first.
_SMALL_CALL_CELLS = 1 << 12


def grouped(func_name, values, codes, ngroups, dtype, skip_nan, mean):
    """Exact sums (means) of each group, rounded once into the result dtype."""
    if dtype is None and not skip_nan:
        # A small call is one compiled call (_ufuncs._grouped_few checks
        # its arguments itself: None when it does not apply); codes of
        # another integer dtype are taken as int64 (uint64 codes beyond it
        # become negative: out of range, the general path's error), copied
        # only when there are few of them.
        done = _grouped_few(values, codes, ngroups, mean, _SMALL_CALL_CELLS)
        if (done is None and type(codes) is np.ndarray and codes.dtype.kind in "iu"
                and codes.dtype != _INT64 and codes.size <= _SMALL_CALL_CELLS):
            done = _grouped_few(values, codes.astype(_INT64), ngroups, mean,
                                _SMALL_CALL_CELLS)
        if done is not None:
            out, empty = done
            if mean and empty:
                warn_empty_mean(stacklevel=4)
            return out
    values, kind, codes, ngroups = _checked(func_name, values, codes, ngroups)
    result = dtypes.resolve_result(values.dtype, kind, dtype, None, func_name)
    if not mean and kind == "real" and _sorts_whole(values, ngroups):
        order, counts = _order(values, codes, ngroups, skip_nan)
        out = np.empty(ngroups, result)
        for g0, g1, e0, e1 in _batches(counts):
            out[g0:g1] = _batch_sums(_gather(values, order, e0, e1), counts[g0:g1], result)
        return out
    counts, batches = _group_states(values, kind, codes, ngroups, skip_nan)
    if mean and np.any(counts == 0):
        warn_empty_mean(stacklevel=4)
    out = np.empty(ngroups, result)
    # Each batch is rounded as soon as its states are known: the states of
    # all groups at once would take 552 bytes per group.
    for g0, g1, states in batches:
        out[g0:g1] = round_states(states, counts[g0:g1] if mean else None, result,
                                  kind == "complex")
    return out


def grouped_states(func_name, values, codes, ngroups, skip_nan):
    """The exact state ((ngroups, [2,] LENGTH), native int64) and the count
    of each group: what the Dask backend merges across chunks."""
    values, kind, codes, ngroups = _checked(func_name, values, codes, ngroups)
    trailing = (fmt.LENGTH,) if kind == "real" else (2, fmt.LENGTH)
    states = np.zeros((ngroups,) + trailing, _INT64)
    counts, batches = _group_states(values, kind, codes, ngroups, skip_nan)
    for g0, g1, part in batches:
        states[g0:g1] = part
    return states, counts


def _widths(counts):
    """The power of two at or above each count (0 for an empty group)."""
    exponents = np.frexp(np.maximum(counts - 1, 0).astype(np.float64))[1]
    return np.where(counts > 0, np.left_shift(np.int64(1), exponents.astype(_INT64)), 0)


def _moment_batches(values, order, counts, func_name, groups=None):
    """(groups, Moments of those groups) in bounded batches covering
    `groups` (default: every group): `order` takes the kept values in group
    order (None: as they are), `counts` is each group's count.  Groups of
    one width (_widths) are the rows of one padded array, the padding left
    out (keep False); empty groups are rows of no terms, as exact_var of
    nothing.  Each batch gathers its own values (never an order of them
    all)."""
    if groups is None:
        groups = np.arange(counts.size)
    if groups.size == 0:
        return
    starts = np.cumsum(counts) - counts
    width = _widths(counts[groups])
    by_width = groups[np.argsort(width, kind="stable")]     # narrowest first
    sorted_widths = np.sort(width)
    bounds = np.flatnonzero(np.diff(sorted_widths)) + 1
    for a, b in zip(np.concatenate([[0], bounds]), np.concatenate([bounds, [groups.size]])):
        w = int(sorted_widths[a])
        step = max(1, _BATCH_VALUES // max(w, 1))
        for g0 in range(int(a), int(b), step):
            batch = by_width[g0:min(g0 + step, int(b))]
            sizes = counts[batch]
            offsets = np.cumsum(sizes) - sizes
            row = np.repeat(np.arange(batch.size), sizes)
            taken = np.arange(row.size) - offsets[row]      # rank within its group
            col = taken.copy()
            taken += starts[batch][row]                     # position in group order
            rows = np.zeros((batch.size, w), values.dtype)
            rows[row, col] = values[taken if order is None else order[taken]]
            keep = None
            if row.size != rows.size:
                keep = np.zeros(rows.shape, bool)
                keep[row, col] = True
            yield batch, moments.Moments.of_rows(rows, keep, func_name)


def grouped_moments(func_name, values, codes, ngroups, skip_nan):
    """The exact moments (moments.Moments) of every group, all groups at
    once: what the Dask backends merge across chunks and partitions."""
    values, kind, codes, ngroups = _checked(func_name, values, codes, ngroups)
    order, counts = _order(values, codes, ngroups, skip_nan)
    trailing = () if kind == "real" else (2,)
    s1 = np.zeros((ngroups,) + trailing + (fmt.LENGTH,), _INT64)
    s2 = np.zeros((ngroups,) + trailing + (fmt.DOT_LENGTH,), _INT64)
    special = np.zeros(ngroups, bool)
    for groups, m in _moment_batches(values, order, counts, func_name):
        s1[groups], s2[groups], special[groups] = m.s1, m.s2, m.special
    return moments.Moments(counts, s1, s2, special)


def _compiled_groups(values, kind, order, counts, ddof, result, std, out):
    """The variances (std: roots) of the groups that the compiled loop
    (moments.grouped_loop) decides, into out, batch by batch of sorted
    values; returns the groups it leaves (every group where it does not
    apply: complex values, a ddof that is not an integer, 64-bit integers
    beyond 2**53, other result dtypes)."""
    decided = np.zeros(counts.size, bool)
    if kind == "real" and moments.loop_applies(values.dtype, result, ddof):
        for g0, g1, e0, e1 in _batches(counts):
            chunk = dtypes.float64_parts(_gather(values, order, e0, e1), split=False)
            if chunk is not None:             # else 64-bit integers beyond 2**53
                decided[g0:g1] = moments.grouped_loop(chunk[0], np.cumsum(counts[g0:g1]), ddof,
                                                      std, out[g0:g1])
    return np.flatnonzero(~decided)


def grouped_variance(func_name, values, codes, ngroups, dtype, ddof, correction, skip_nan,
                     std):
    """Exact variances (std: their roots) of each group, each rounded once:
    element g is exact_var (exact_std) of the values of group g.  The
    compiled loop decides nearly every group from two-double sums; the rest
    (ties, values beyond its range, groups of no more than ddof values,
    complex values) from their exact moments."""
    values, kind, codes, ngroups = _checked(func_name, values, codes, ngroups)
    ddof = moments.check_ddof(ddof, correction, func_name)
    result = moments.result_dtype(values.dtype, dtype, None, func_name)
    order, counts = _order(values, codes, ngroups, skip_nan)
    if np.any(moments.no_dof(counts, ddof)):
        moments.warn_no_dof(stacklevel=4)
    out = np.empty(ngroups, result)
    todo = _compiled_groups(values, kind, order, counts, ddof, result, std, out)
    # Empty groups are NaN, as exact_var of nothing (warned above), without
    # a Python step each (most groups can be empty).
    out[todo[counts[todo] == 0]] = np.nan
    todo = todo[counts[todo] > 0]
    if todo.size == 0:
        return out
    # Each batch is rounded as soon as its moments are known: the moments
    # of all groups at once would take about 2 KiB per group.
    for groups, m in _moment_batches(values, order, counts, func_name, todo):
        out[groups] = moments.finish(m, ddof, result, std, func_name, warn=False)
    return out
