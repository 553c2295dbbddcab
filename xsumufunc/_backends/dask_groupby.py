"""Exact groupby aggregations of Dask DataFrames (``dd.Aggregation``).

Dask calls an aggregation's ``chunk`` on each partition grouped, its
``agg`` on the concatenated chunk results grouped again by key (once, or up
a tree of partial results), and ``finalize`` on the last results.  Here:

- chunk: for each group, the exact moments of its values, as one byte
  string: the name of the result dtype (padded to ``_HEAD`` bytes), then a
  sum or moments record (``_core/records.py``, the records of the public
  framed states and of the Dask array backend);
- agg: the records of each group merged (exact: any order and grouping of
  partitions gives the same value);
- finalize: each group's merged record rounded once into the result dtype,
  the dtype :func:`xsumufunc.exact_sum` & co. give for the column's dtype.

So the result is bit-identical for every partitioning, scheduler and worker
count.  All groups go at once, on pandas' group numbers (``ngroup``,
checked against ``size``): sums through ``grouped_states`` (the kernel of
:func:`xsumufunc.exact_grouped_sum`), moments through ``grouped_moments``
(the kernel of :func:`xsumufunc.exact_grouped_var`: one
``Moments.of_rows`` per size class, groups padded to a power of two, the
padding left out); merges in rounds (each round the r-th record of every
group); one rounding call.  Should pandas' numbering not check out, pandas'
``agg`` goes group by group (a Python call per group).  Bytes, not
arrays, travel in the pandas Series between the steps: pandas treats them as
scalars.  A group with count <= ddof (var, std) or no
terms (nanmean of NaNs) is NaN without a warning, as pandas' groupby gives.

Imported by :mod:`xsumufunc.dask_dataframe` only (which imports dask).
"""

import numpy as np
import pandas as pd

from .._core import dtypes as _dtypes
from .._core import moments as _moments
from .._core import records as _records
from .._core import stateformat as _fmt
from .._core import states as _state
from .._core.spec import NO_VALUE, skips_nan

_HEAD = 16          # bytes for the result dtype's name in front of each record

STATISTICS = ("sum", "mean", "var", "std")


def _name_of(statistic, skip_nan, ddof):
    name = "exact_" + ("nan" if skip_nan else "") + statistic
    if statistic in ("var", "std") and ddof != 1:
        name += f"_ddof{float(ddof):g}"
    return name


def _dtype_named(name):
    return _dtypes.ml_dtype_named(name) or np.dtype(name)


def _values(series, name):
    """A group's values as a NumPy array we can sum (TypeError otherwise)."""
    values = series.to_numpy()
    if values.dtype == object:
        raise TypeError(
            f"{name}: the column {series.name!r} has dtype {series.dtype}, which NumPy reads "
            "as objects; aggregate numeric columns (bool, integers, float16/32/64, "
            "complex), converting nullable ones first, e.g. .astype('float64')")
    _dtypes.input_kind(values.dtype, name)      # TypeError for other dtypes
    return values


class _Statistic:
    """One aggregation: statistic, skip_nan, ddof; chunk, agg and finalize."""

    def __init__(self, statistic, skip_nan, ddof):
        self.statistic, self.skip_nan, self.ddof = statistic, skip_nan, ddof
        self.moments = statistic in ("var", "std")
        self.name = _name_of(statistic, skip_nan, ddof)

    # -- records ---------------------------------------------------------

    def _record_type(self, kind):
        return _fmt.record_dtype("moments" if self.moments else "sum", kind == "complex")

    def _result(self, dtype):
        if self.moments:
            return _moments.result_dtype(dtype, None, None, self.name)
        return _dtypes.default_result(dtype)

    def _encode(self, result, kind, record):
        head = result.name.encode("ascii")
        head += b"c" if kind == "complex" else b"r"
        return head.ljust(_HEAD, b" ") + record.tobytes()

    def _decode(self, blob):
        head = blob[:_HEAD].decode("ascii").rstrip()
        kind = "complex" if head[-1] == "c" else "real"
        record = np.frombuffer(blob, self._record_type(kind), offset=_HEAD)
        return _dtype_named(head[:-1]), kind, record.reshape(())

    def group_record(self, series):
        """chunk, for the values of one group."""
        values = _values(series, self.name)
        kind = _dtypes.input_kind(values.dtype, self.name)
        if self.moments:
            keep = None
            if skips_nan(self.skip_nan, values.dtype):
                keep = ~np.isnan(values)[None, :]
            m = _moments.Moments.of_rows(values[None, :], keep, self.name)
            record = _records.of_moments(m, kind == "complex").reshape(())
        else:
            record = _records.sum_records(values, (0,), None, self.skip_nan)
        return self._encode(self._result(values.dtype), kind, record)

    def merged_record(self, series):
        """agg, for the records of one group."""
        blobs = series.to_numpy()
        result, kind, first = self._decode(blobs[0])
        if len(blobs) == 1:
            return blobs[0]
        records = np.stack([self._decode(b)[2] for b in blobs])
        return self._encode(result, kind, _records.merge(records, (0,), False, self.name))

    def rounded(self, blob):
        """finalize, for one group's merged record."""
        result, kind, record = self._decode(blob)
        if self.moments:
            count = int(record["count"])
            if _moments.no_dof(count, self.ddof):
                return result.type(np.nan)
            return _moments.finish(_records.moments_of(record), self.ddof, result,
                                   self.statistic == "std", self.name)[0]
        state = record["s1"].astype(np.int64)
        if self.statistic == "sum":
            return _state.round_states(state, None, result, kind == "complex")[()]
        if int(record["count"]) == 0:
            return result.type(np.nan)
        return _state.round_states(state, record["count"], result, kind == "complex")[()]

    # -- all groups at once ----------------------------------------------

    def _groups(self, grouped):
        """(codes of the rows, group keys in code order, rows kept) or None
        when pandas' numbering does not match its group sizes."""
        sizes = grouped.size()
        codes = grouped.ngroup().to_numpy()
        kept = None
        if codes.dtype.kind == "f":                 # NaN: a null key, dropped
            kept = ~np.isnan(codes)
            codes = codes[kept]
        codes = codes.astype(np.intp)
        if len(codes) and (codes.min() < 0 or codes.max() >= len(sizes)):
            return None
        if not np.array_equal(np.bincount(codes, minlength=len(sizes)), sizes.to_numpy()):
            return None
        return codes, sizes.index, kept

    def _series(self, result, kind, records, index):
        """A Series of the records encoded as _encode does (in one go)."""
        head = self._encode(result, kind, records[:0])
        both = np.empty(len(records), [("head", f"S{_HEAD}"), ("record", records.dtype)])
        both["head"], both["record"] = head, records
        data, size = both.tobytes(), both.dtype.itemsize
        blobs = np.empty(len(records), dtype=object)
        blobs[:] = [data[i * size:(i + 1) * size] for i in range(len(records))]
        return pd.Series(blobs, index=index, dtype=object)

    def _moments_of_groups(self, values, codes, ngroups, kind):
        """The moment records of each group, all groups at once
        (``_core.grouped.grouped_moments``, the moments of
        :func:`xsumufunc.exact_grouped_var`)."""
        return _records.grouped_moment_records(self.name, values, codes, ngroups,
                                               self.skip_nan)

    def _chunk_all(self, grouped):
        groups = self._groups(grouped)
        if groups is None:
            return grouped.agg(self.group_record)
        codes, keys, kept = groups
        values = _values(grouped.obj, self.name)
        values = values if kept is None else values[kept]
        kind = _dtypes.input_kind(values.dtype, self.name)
        if self.moments:
            records = self._moments_of_groups(values, codes, len(keys), kind)
        else:
            records = _records.grouped_sum_records(self.name, values, codes, len(keys),
                                                   self.skip_nan)
        return self._series(self._result(values.dtype), kind, records, keys)

    def _decoded(self, blobs):
        """(result dtype, kind, records) of byte strings of one head."""
        heads = {bytes(b[:_HEAD]) for b in blobs}
        if len(heads) != 1:
            return None
        result, kind, _ = self._decode(blobs[0])
        both = np.dtype([("head", f"S{_HEAD}"), ("record", self._record_type(kind))])
        return result, kind, np.frombuffer(b"".join(blobs), both)["record"]

    def _merge_pairs(self, pairs, kind):
        """Records (2, n) merged over the first axis."""
        return _records.merge(pairs, (0,), False, self.name)

    def _agg_all(self, grouped):
        groups = self._groups(grouped)
        blobs = list(grouped.obj.to_numpy())
        decoded = self._decoded(blobs) if blobs else None
        if groups is None or decoded is None or groups[2] is not None:
            return grouped.agg(self.merged_record)
        codes, keys, _ = groups
        result, kind, records = decoded
        # Empty records for groups without any (unobserved categories), then
        # round r merges each group's r-th record into it (all groups at once).
        merged = np.zeros(len(keys), records.dtype)
        rank = grouped.cumcount().to_numpy()
        for r in range(int(rank.max()) + 1 if len(rank) else 0):
            at = rank == r
            g = codes[at]
            merged[g] = records[at] if r == 0 else self._merge_pairs(
                np.stack([merged[g], records[at]]), kind)
        return self._series(result, kind, merged, keys)

    def _finalize_all(self, merged):
        decoded = self._decoded(list(merged.to_numpy())) if len(merged) else None
        if decoded is None:
            return None
        result, kind, records = decoded
        counts = records["count"].astype(np.int64)
        if self.moments:
            # count <= ddof: NaN, as pandas gives, without NumPy's warning.
            ok = ~_moments.no_dof(counts, self.ddof)
            values = np.full(len(records), np.nan, result)
            values[ok] = _moments.finish(_records.moments_of(records[ok]), self.ddof, result,
                                         self.statistic == "std", self.name)
        elif self.statistic == "sum":
            values = _state.round_states(records["s1"].astype(np.int64), None, result,
                                         kind == "complex")
        else:
            empty = counts == 0                     # nanmean of NaNs only: NaN, no warning
            values = _state.round_states(records["s1"].astype(np.int64),
                                         np.where(empty, 1, counts), result, kind == "complex")
            values[empty] = np.nan
        return pd.Series(np.asarray(values).reshape(-1), index=merged.index, name=merged.name)

    # -- the three steps of dd.Aggregation -------------------------------

    def chunk(self, grouped):
        return self._chunk_all(grouped)

    def agg(self, grouped):
        return self._agg_all(grouped)

    def finalize(self, merged):
        done = self._finalize_all(merged)
        if done is not None:
            return done
        values = [self.rounded(b) for b in merged.to_numpy()]
        dtype = np.result_type(*values) if values else np.float64
        return pd.Series(np.array(values, dtype=dtype), index=merged.index, name=merged.name)


def statistic(statistic, skip_nan=False, ddof=1):
    """The checked _Statistic for these arguments."""
    if statistic not in STATISTICS:
        raise ValueError(f"aggregation: statistic must be one of {', '.join(STATISTICS)}, "
                         f"not {statistic!r}")
    if not isinstance(skip_nan, (bool, np.bool_)):
        raise TypeError(f"aggregation: skip_nan must be True or False, not {skip_nan!r}")
    ddof = _moments.check_ddof(ddof, NO_VALUE, "aggregation")
    if ddof < 0:
        raise ValueError(f"aggregation: ddof must be a non-negative number, not {ddof}")
    return _Statistic(statistic, bool(skip_nan), ddof)
