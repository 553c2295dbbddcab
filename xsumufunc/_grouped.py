"""Exact grouped sums and means without a Python call per group.

``df.groupby(k).agg(exact_sum)`` calls exact_sum once per group.  Here the
values are sorted by group (stably), each group is cut into pieces of at most
B values laid out as the rows of one padded 2-D array, and one call of the
masked state loop sums every row exactly (the padding is masked out, so it is
not a term).  The pieces' states are then merged per group the same way, a
few rows of states at a time, until one state is left per group; each is
rounded once.  Python loops only over batches of groups (to bound memory)
and over the merge levels.
"""

import warnings

import numpy as np

from . import _dtypes
from ._reduce import _masked_states_rows, as_input
from ._ufuncs import STATE_LENGTH, exact_state_merge_ufunc, exact_sum_state_ufunc
from .state import _round

_INT64 = np.dtype(np.int64)
# A batch holds at most this many values and groups (bounded temporaries).
_BATCH_VALUES = 1 << 20
_BATCH_GROUPS = 1 << 14
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
    out = np.zeros((pieces.size, STATE_LENGTH), _INT64)      # empty groups: empty state
    single = pieces == 1
    out[single] = states[first_piece[single]]
    multi = np.flatnonzero(pieces > 1)
    if multi.size:
        counts = pieces[multi]
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        taken = np.repeat(first_piece[multi] - starts, counts) + np.arange(counts.sum())
        length = _piece_length(counts)
        row, col, new_pieces, new_first = _layout(counts, length)
        padded = np.zeros((int(new_pieces.sum()), length, STATE_LENGTH), _INT64)
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
    states, _ = _masked_states_rows(padded, mask, False)
    out = _merge_pieces(states, pieces, first_piece)
    native = _dtypes.native(values.dtype)
    for g in np.flatnonzero(large):
        out[g] = exact_sum_state_ufunc(values[starts[g]:starts[g] + counts[g]],
                                       signature=(native, _INT64))
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


def _grouped(func_name, values, codes, ngroups, dtype, skip_nan, mean):
    values, kind = as_input(values, func_name)
    codes = np.asarray(codes)
    if values.ndim != 1:
        raise ValueError(f"{func_name}: values must be 1-D, not {values.ndim}-D")
    if codes.dtype.kind not in "iu" or codes.shape != values.shape:
        raise ValueError(
            f"{func_name}: codes must be integers of the same shape as values "
            f"({values.shape}), not {codes.dtype} of shape {codes.shape}")
    try:
        ngroups = int(np.asarray(ngroups).item()) if np.ndim(ngroups) == 0 else None
    except (TypeError, ValueError):
        ngroups = None
    if ngroups is None or ngroups < 0:
        raise ValueError(f"{func_name}: ngroups must be a non-negative integer")
    if codes.size and codes.max() >= ngroups:
        raise ValueError(f"{func_name}: codes must be below ngroups ({ngroups}); "
                         f"found {codes.max()}")
    result = _dtypes.resolve_result(values.dtype, kind, dtype, None, func_name)

    keep = codes >= 0                      # -1: no group (pandas' missing keys)
    if skip_nan and values.dtype.kind not in "biu":
        keep &= ~np.isnan(values)
    order = np.flatnonzero(keep)
    # Codes of 16 bits or less sort by radix sort, in linear time.
    narrow = np.uint16 if ngroups <= 1 << 16 else codes.dtype
    order = order[np.argsort(codes[order].astype(narrow), kind="stable")]
    sorted_values = values[order]
    counts = np.bincount(codes[order], minlength=ngroups).astype(_INT64)

    comps = (sorted_values,) if kind == "real" else (sorted_values.real, sorted_values.imag)
    if mean and np.any(counts == 0):
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=3)
    out = np.empty(ngroups, result)
    # Each batch is rounded as soon as its states are known: the states of
    # all groups at once would take 552 bytes per group.
    for g0, g1, e0, e1 in _batches(counts):
        parts = [_batch_states(comp[e0:e1], counts[g0:g1]) for comp in comps]
        states = parts[0] if kind == "real" else np.stack(parts, axis=-2)
        out[g0:g1] = _round(states, counts[g0:g1] if mean else None, result,
                            kind == "complex")
    return out


def exact_grouped_sum(values, codes, ngroups, *, dtype=None, skip_nan=False):
    """Exact sum of the values of each group, without a Python call per group.

    Parameters
    ----------
    values : array_like, 1-D
        The terms (dtypes as for :func:`xsumufunc.exact_sum`).
    codes : array_like of int, same shape
        The group of each value, in ``[0, ngroups)``; a negative code (as
        ``pandas.factorize`` gives missing keys) leaves the value out.
    ngroups : int
        The number of groups; groups without values sum to +0.0.
    dtype : dtype, optional
        Result dtype, as for :func:`xsumufunc.exact_sum`.
    skip_nan : bool, optional
        Leave NaNs out (as :func:`xsumufunc.exact_nansum`).

    Returns
    -------
    ndarray of shape ``(ngroups,)``: element g is ``exact_sum(values[codes == g])``.

    Examples
    --------
    >>> import numpy as np
    >>> from xsumufunc import exact_grouped_sum
    >>> exact_grouped_sum([1e100, 5.0, 1.0, -1e100, np.nan], [0, 1, 0, 0, 1], 3, skip_nan=True)
    array([1., 5., 0.])

    With pandas, for example::

        codes, keys = pd.factorize(df["key"])
        pd.Series(exact_grouped_sum(df["x"].to_numpy(), codes, len(keys)), index=keys)
    """
    return _grouped("exact_grouped_sum", values, codes, ngroups, dtype, skip_nan, False)


def exact_grouped_mean(values, codes, ngroups, *, dtype=None, skip_nan=False):
    """Exact mean of the values of each group (see :func:`exact_grouped_sum`).

    A group without values gets NaN with a RuntimeWarning, as
    :func:`xsumufunc.exact_mean` of an empty slice.

    Examples
    --------
    >>> from xsumufunc import exact_grouped_mean
    >>> exact_grouped_mean([0.1, 0.2, 0.3, 7.0], [0, 0, 0, 1], 2)
    array([0.2, 7. ])
    """
    return _grouped("exact_grouped_mean", values, codes, ngroups, dtype, skip_nan, True)
