"""Columns in chunks (``pyarrow.ChunkedArray``): full reductions read chunk
by chunk and merged through exact states, without a copy of the whole
column.

Each chunk is viewed as a NumPy array (``read_chunk``: the foreign
backend's rule for nulls), reduced to its exact state and count (sums,
means) or its exact moments (count, S1, S2: variances, standard
deviations), and the chunks' states are merged exactly and rounded once:
the same bits as the whole column gives.  Other functions, and other
arguments (an axis other than the column's, ``out=``, ``keepdims=``,
``where=``, ``initial=``), read the chunks into one array (``concatenated``).
"""

import numpy as np

from .._core import moments, states
from .._core import stateformat as fmt
from .._core.spec import NO_VALUE, ReductionSpec, warn_empty_mean

#: The sums and means by name: (skips NaN, divides by the count).
_SUMS = {"exact_sum": (False, False), "exact_nansum": (True, False),
         "exact_mean": (False, True), "exact_nanmean": (True, True)}
#: The variances by name: (skips NaN, std).
_VARIANCES = {"exact_var": (False, False), "exact_nanvar": (True, False),
              "exact_std": (False, True), "exact_nanstd": (True, True)}


def _whole_column(arguments):
    """Whether the other arguments ask for one result over the whole column,
    with no option that needs the terms in one array."""
    return (arguments.get("axis") in (None, 0, -1, (0,), (-1,))
            and arguments.get("out") is None and arguments.get("keepdims") is False
            and arguments.get("where", True) is True
            and arguments.get("initial", NO_VALUE) is NO_VALUE)


def reduce(name, arguments, chunks, read_chunk):
    """The result of public function `name` on a column given by its
    `chunks` (``arguments``: its bound arguments), or NotImplemented when
    this function or these arguments need the terms in one array.

    read_chunk(chunk) -> (values, mask of the terms or None)."""
    if len(chunks) < 2 or not _whole_column(arguments) or name not in _SUMS | _VARIANCES:
        return NotImplemented
    parts = [read_chunk(c) for c in chunks]
    if any(values.dtype.kind == "c" or values.ndim != 1 for values, _ in parts):
        return NotImplemented
    if name in _SUMS:
        return _sum(name, arguments, parts)
    return _variance(name, arguments, parts)


def _sum(name, arguments, parts):
    skip_nan, mean = _SUMS[name]
    spec = ReductionSpec.parse(name, parts[0][0], None, arguments.get("dtype"), None, False,
                               True, NO_VALUE, skip_nan)
    found = [states.states_and_counts(values, (0,), mask, spec.skip_nan)
             for values, mask in parts]
    merged = states.merge_over(np.stack([s for s, _ in found]), (0,), 1, name)
    count = sum(int(c) for _, c in found)
    if not mean:
        return states.round_states(merged, None, spec.result, False)
    if count == 0:
        warn_empty_mean(stacklevel=5)
    return states.round_states(merged, np.asarray(count, fmt.NATIVE), spec.result, False)


def _variance(name, arguments, parts):
    skip_nan, std = _VARIANCES[name]
    ddof = moments.check_ddof(arguments.get("ddof", 0), arguments.get("correction", NO_VALUE),
                              name)
    result = moments.result_dtype(parts[0][0].dtype, arguments.get("dtype"), None, name)
    found = []
    for values, mask in parts:
        keep = mask
        if skip_nan and values.dtype.kind == "f":
            keep = ~np.isnan(values) if keep is None else keep & ~np.isnan(values)
        found.append(moments.Moments.of_rows(values[np.newaxis], None if keep is None
                                             else keep[np.newaxis], name))
    s1 = states.merge_over(np.stack([m.s1 for m in found], axis=1), (1,), 1, name)
    s2 = states.merge_dot_states(np.stack([m.s2 for m in found], axis=-2))
    merged = moments.Moments(sum(m.counts for m in found), s1, s2,
                             np.logical_or.reduce([m.special for m in found]))
    return moments.finish(merged, ddof, result, std, name)[0]


def concatenated(chunks, read_chunk):
    """The chunks as one array and one mask (None when no chunk has one)."""
    parts = [read_chunk(c) for c in chunks]
    values = np.concatenate([v for v, _ in parts])
    if all(m is None for _, m in parts):
        return values, None
    return values, np.concatenate([np.ones(len(v), bool) if m is None else m
                                   for v, m in parts])
