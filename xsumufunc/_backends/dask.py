"""The Dask backend: exact reductions of dask arrays through exact states.

Each chunk is summed into exact states (``_core/states.py``), the states are
merged up Dask's reduction tree, and the final states are rounded once into
the result dtype.  Exact states merge without error in any order, so the
result is bit-identical to the NumPy result for every chunking, tree shape,
scheduler and number of workers.

Partial results travel as NumPy record arrays with one record per output
element: the exact state (``(69,)`` or ``(2, 69)`` little-endian int64) and
the term count.  A record keeps the array's ndim, so Dask's reduction
machinery can concatenate partials along the reduced axes as it does for
plain values.

accumulate: each chunk's prefix sums start from the merged state of the
chunks before it, written as a few exact float64 terms in front of the chunk.
dot: narrow dtypes multiply exactly in float64, so their dot is an exact sum
of products; the others bring the vector axis into one chunk.

Imported only when a dask array reaches a public function (see ``_dispatch``).
"""

import contextlib
import functools
import warnings

import dask
import dask.array as da
import numpy as np

from .._core import dot as _dot
from .._core import dtypes as _dtypes
from .._core import matmul as _matmul_core
from .._core import moments as _moments
from .._core import moving as _moving
from .._core import norm as _norm
from .._core import pairs as _pairs
from .._core import records as _records
from .._core import stateformat as fmt
from .._core import states as _state
from .._core.add import reduceat_segments
from .._core.grouped import check_groups
from .._core.spec import (
    NO_VALUE,
    ReductionSpec,
    kept_shape,
    normalize_axes,
    single_axis,
)
from .._ufuncs import DOT_STATE_LENGTH, exact_cumsum_ufunc, exact_dot_state_ufunc
from .plans import plan_of


def _record_dtype(kind, family="sum"):
    return fmt.record_dtype(family, kind == "complex")


def _placeholder(x, record, keepdims, axes):
    """What the reduction functions return for Dask's meta probes."""
    ndim = getattr(x, "ndim", 0)
    ndim = ndim if keepdims else ndim - len(axes)
    return np.empty((0,) * max(ndim, 0), record)


def _state_chunk(x, axis=None, keepdims=True, computing_meta=False, *, kind, skip_nan):
    """Sum records of one chunk over the reduced axes (kept, length 1)."""
    axes = tuple(axis)
    if computing_meta or not isinstance(x, np.ndarray):
        return _placeholder(x, _record_dtype(kind), True, axes)
    rec = _records.sum_records(x, axes, None, skip_nan)
    return rec.reshape(kept_shape(x.shape, axes))


def _masked_chunk(x, mask, *, axes, kind, skip_nan):
    """As _state_chunk, leaving out the terms where `mask` is False."""
    rec = _records.sum_records(x, axes, np.asarray(mask, bool), skip_nan)
    return rec.reshape(kept_shape(x.shape, axes))


def _combine(rec, axis=None, keepdims=True, computing_meta=False, *, record):
    """Records merged over the reduced axes (a node of Dask's tree)."""
    axes = tuple(axis)
    if computing_meta or not isinstance(rec, np.ndarray) or rec.dtype != record:
        return _placeholder(rec, record, keepdims, axes)
    return _records.merge(rec, axes, keepdims, "dask reduction")


def _reduction(spec, a, finish):
    """da.reduction of `a` through sum records per chunk, merged up the
    tree; `finish(rec, axes, keepdims)` makes the result from the last
    records."""
    kind, axes = spec.kind, spec.axes
    record = _record_dtype(kind)
    combine = functools.partial(_combine, record=record)
    if spec.mask is None:
        source = a
        chunk = functools.partial(_state_chunk, kind=kind, skip_nan=spec.skip_nan)
    else:
        # Masked records per block first (reduced axes become length 1 per
        # block), then the same merge tree.
        mask = spec.mask.rechunk(a.chunks)
        out_chunks = tuple((1,) * len(c) if i in axes else c for i, c in enumerate(a.chunks))
        source = da.map_blocks(
            functools.partial(_masked_chunk, axes=axes, kind=kind, skip_nan=spec.skip_nan),
            a, mask, chunks=out_chunks, dtype=record, meta=np.empty((0,) * a.ndim, record))
        chunk = combine
    meta_ndim = a.ndim if spec.keepdims else a.ndim - len(axes)
    return da.reduction(
        source, chunk=chunk, aggregate=finish, combine=combine, axis=axes,
        # dtype= is that of the partials (Dask casts its probes to it); the
        # result's dtype comes from meta=.
        keepdims=spec.keepdims, dtype=record, concatenate=True,
        name=spec.func_name.replace(".", "-"), meta=finish.meta(meta_ndim))


class _Finish:
    """An aggregate for da.reduction: merge the last records over the
    reduced axes, then `func(merged records)`; with the meta of its result."""

    def __init__(self, func, dtype, trailing=()):
        self.func, self.dtype, self.trailing = func, dtype, trailing

    def __call__(self, rec, axis=None, keepdims=False, computing_meta=False):
        if computing_meta or not isinstance(rec, np.ndarray) or rec.dtype.names is None:
            ndim = getattr(rec, "ndim", 0)
            return self.meta(max(ndim if keepdims else ndim - len(tuple(axis)), 0))
        return self.func(_records.merge(rec, tuple(axis), keepdims, "dask reduction"))

    def meta(self, ndim):
        return np.empty((0,) * ndim + self.trailing, self.dtype)


def _finish_sums(rec, *, result, mean, is_complex, initial=None):
    """Merged sum records (with the records of `initial` merged in) rounded
    once into `result`; a NumPy scalar for a 0-d result, as NumPy gives."""
    if initial is not None:
        one = np.broadcast_to(initial, rec.shape)
        rec = _records.merge(np.stack([rec, one]), (0,), False, "dask reduction")
    return _records.finish_sum(rec, result, mean, is_complex)


def reduce(func_name, a, axis, dtype, out, keepdims, initial, where, skip_nan, mean):
    """exact_sum / exact_mean (and variants) of a dask array, lazily."""
    if out is not None:
        raise NotImplementedError(
            f"{func_name}: out= is not supported for dask arrays; use the returned "
            "dask array (or da.store) instead")
    spec = ReductionSpec.parse(func_name, a, axis, dtype, None, keepdims, where, initial,
                               skip_nan, xp=da)
    initial_rec = None
    if spec.initial is not NO_VALUE:
        parts = _state.initial_state(spec.initial, spec.kind)
        states = parts[0] if spec.kind == "real" else np.stack(parts)
        # The initial value is not a term of a mean: exact_sum only takes it.
        initial_rec = _records.of_sums(states, np.zeros((), fmt.NATIVE),
                                       spec.kind == "complex")
    finish = _Finish(functools.partial(_finish_sums, result=spec.result, mean=mean,
                                       is_complex=spec.kind == "complex",
                                       initial=initial_rec), spec.result)
    return _reduction(spec, a, finish)


def _state_functions(func_name, a, axis, keepdims, where, skip_nan, counts):
    """exact_sum_state / exact_count (counts) of a dask array, lazily."""
    spec = ReductionSpec.parse(func_name, a, axis, keepdims=keepdims, where=where,
                               skip_nan=skip_nan, rounds=False, xp=da)
    if counts:
        return _reduction(spec, a, _Finish(lambda rec: np.asarray(rec["count"], fmt.DTYPE),
                                           fmt.DTYPE))
    record = _record_dtype(spec.kind)
    recs = _reduction(spec, a, _Finish(lambda rec: rec, record))
    # The states of the records, with the state axes as new trailing axes.
    trailing = record["s1"].shape
    ndim = recs.ndim
    return recs.map_blocks(
        lambda r: np.ascontiguousarray(r["s1"]), dtype=fmt.DTYPE,
        new_axis=list(range(ndim, ndim + len(trailing))),
        chunks=recs.chunks + tuple((n,) for n in trailing),
        meta=np.empty((0,) * (ndim + len(trailing)), fmt.DTYPE))


# ---- exact prefix sums across chunks ------------------------------------

# Offsets of up to this many times 2**1023 (partial sums past the float64
# range) are carried into the next chunk as copies of 2**1023.
_MAX_COPIES = 64


def _as_float64_terms(x):
    """x as float64 along a new last axis of terms, exactly: 64-bit integers
    become two terms (_dtypes.integer_halves)."""
    if _dtypes.may_split(x.dtype):
        return np.stack(_dtypes.integer_halves(x), axis=-1)
    return x.astype(np.float64)[..., None]


def _block_totals(x, *, axis, kind):
    return _records.sum_records(x, (axis,), None, False).reshape(kept_shape(x.shape, (axis,)))


def _exclusive_prefix(totals, *, axis):
    """Record k along `axis`: the merge of records 0..k-1 (all of them in one
    block).  A doubling scan: log2(n) rounds of merges of shifted pairs."""
    n = totals.shape[axis]
    moved = np.moveaxis(totals, axis, 0)
    prefix = np.empty_like(moved)
    prefix[0] = np.zeros((), totals.dtype)                   # no terms
    prefix[1:] = moved[:-1]
    step = 1
    while step < n:
        pairs = np.stack([prefix[step:], prefix[:-step]])
        prefix[step:] = _records.merge(pairs, (0,), False, "exact_add.accumulate")
        step *= 2
    return np.moveaxis(prefix, 0, axis)


def _cumsum_block(x, offset, *, axis, kind, result, func_name):
    """Exact prefix sums of one block along `axis`, starting from the exact
    state of all earlier blocks (`offset`: one sum record per row), written
    in front of the block's terms as float64 terms of the same exact sum
    (states.as_float64_terms)."""
    comps = (x,) if kind == "real" else (x.real, x.imag)
    out = np.empty(x.shape, result)
    parts = (out,) if kind == "real" else (out.real, out.imag)
    for c, (values, into) in enumerate(zip(comps, parts)):
        st_c = offset["s1"] if kind == "real" else offset["s1"][..., c, :]
        lead, huge = _state.as_float64_terms(np.moveaxis(st_c, axis, -2)[..., 0, :],
                                             _MAX_COPIES, func_name)
        terms = _as_float64_terms(np.moveaxis(values, axis, -1))
        per = terms.shape[-1]
        rows = terms.reshape(terms.shape[:-2] + (terms.shape[-2] * per,))
        lead = np.broadcast_to(lead, rows.shape[:-1] + lead.shape[-1:])
        sums = np.empty(rows.shape[:-1] + (lead.shape[-1] + rows.shape[-1],),
                        _dtypes.component(result))
        # With copies of 2**1023 in front, the dropped prefix sums overflow:
        # only the kept ones may warn.
        with np.errstate(over="ignore") if huge else contextlib.nullcontext():
            exact_cumsum_ufunc(np.concatenate([lead, rows], axis=-1), out=sums,
                               signature=(np.dtype(np.float64), _dtypes.component(result)))
        # The prefix sum after each element's last term.
        picked = sums[..., lead.shape[-1] + per - 1::per]
        into[...] = np.moveaxis(picked, -1, axis)
        if huge and np.any(np.isinf(picked)) and not (
                np.any(np.isinf(lead)) or np.any(np.isinf(rows))):
            warnings.warn(f"overflow encountered in {func_name}", RuntimeWarning,
                          stacklevel=2)
    return out


def accumulate(a, axis, dtype, out):
    """exact_add.accumulate of a dask array: each chunk's prefix sums start
    from the exact state of every earlier chunk along `axis` (the block
    totals' exclusive prefix, merged in one small task)."""
    name = "exact_add.accumulate"
    if out is not None:
        raise NotImplementedError(
            f"{name}: out= is not supported for dask arrays; use the returned dask array")
    kind = _dtypes.input_kind(a.dtype, name)
    axis = single_axis(axis, a.ndim, name)
    result = _dtypes.resolve_result(a.dtype, kind, dtype, None, name)
    record = _record_dtype(kind)
    nblocks = a.numblocks[axis]
    total_chunks = tuple((1,) * nblocks if i == axis else c for i, c in enumerate(a.chunks))
    totals = da.map_blocks(functools.partial(_block_totals, axis=axis, kind=kind), a,
                           chunks=total_chunks, dtype=record,
                           meta=np.empty((0,) * a.ndim, record))
    # A record per block and row: small, so the prefix takes one task.
    offsets = totals.rechunk({axis: -1}).map_blocks(
        functools.partial(_exclusive_prefix, axis=axis), dtype=record,
        meta=np.empty((0,) * a.ndim, record)).rechunk(total_chunks)
    func = functools.partial(_cumsum_block, axis=axis, kind=kind, result=result,
                             func_name=name)
    return da.map_blocks(func, a, offsets, dtype=result, chunks=a.chunks,
                         meta=np.empty((0,) * a.ndim, result))


# ---- dot products ----------------------------------------------------------

def _parts64(x):
    """Real and imaginary parts of x in float64 (exact for narrow inputs); a
    real x gets zeros, as the NumPy path gives it."""
    if x.dtype.kind == "c":
        return x.real.astype(np.float64), x.imag.astype(np.float64)
    real = x.astype(np.float64)
    return real, da.zeros_like(real)


def _assemble_complex(re, im, *, result):
    out = np.empty(np.shape(re), result)
    out.real, out.imag = re, im
    return out[()] if out.ndim == 0 else out


def _narrow_complex_dot(am, bm, result):
    """conj(a).b over the last axis for narrow components: real part
    ar*br + ai*bi, imaginary part ar*bi - ai*br, each product exact in
    float64, each part one exact sum over (vector axis, the two products)."""
    (ar, ai), (br, bi) = _parts64(am), _parts64(bm)
    part = _dtypes.component(result)
    sums = []
    for terms in (da.stack([ar * br, ai * bi], axis=-1), da.stack([ar * bi, -ai * br], axis=-1)):
        sums.append(reduce("exact_dot", terms, (-2, -1), part, None, False, NO_VALUE, True,
                           False, False))
    return da.map_blocks(functools.partial(_assemble_complex, result=result), *sums,
                         dtype=result, meta=np.empty((0,) * sums[0].ndim, result))


def _dot_block(a, b, *, kind):
    """The dot records of one pair of blocks (vector axis last), with the
    vector axis kept as length 1."""
    return _records.dot_records(a, b, kind)[..., np.newaxis]


def _dot_through_states(am, bm, kind, result, integer_products):
    """exact_dot of dask arrays (vector axis last) through dot records: one
    per block pair, merged up Dask's tree over the vector axis, rounded
    once."""
    record = _record_dtype(kind, "dot")
    am, bm = da.broadcast_arrays(am, bm)            # lazy: blocks are views
    bm = bm.rechunk(am.chunks)
    nblocks = len(am.chunks[-1])
    recs = da.map_blocks(functools.partial(_dot_block, kind=kind), am, bm,
                         chunks=am.chunks[:-1] + ((1,) * nblocks,), dtype=record,
                         meta=np.empty((0,) * am.ndim, record))
    finish = _Finish(functools.partial(_records.finish_dot, result=result,
                                       integer_products=integer_products), result)
    return da.reduction(recs, chunk=functools.partial(_combine, record=record),
                        combine=functools.partial(_combine, record=record),
                        aggregate=finish, axis=am.ndim - 1, dtype=record,
                        concatenate=True, name="exact_dot", meta=finish.meta(am.ndim - 1))


def dot(a, b, axis, dtype, out, keepdims):
    """exact_dot of dask arrays.

    Products of float32, float16, bfloat16, complex64 parts and integers of
    up to 16 bits are exact in float64, so their dot is the exact sum of those
    products, reduced through exact states like exact_sum.  Other dtypes
    (float64, wider integers, complex128) go through the exact dot kernel's
    own state per block (exact_dot_state_ufunc), merged over the blocks of
    the vector axis and rounded once.
    """
    name = "exact_dot"
    if out is not None:
        raise NotImplementedError(
            f"{name}: out= is not supported for dask arrays; use the returned dask array")
    a, b = da.asarray(a), da.asarray(b)
    (dta, ka), (dtb, kb), (axis_a, axis_b), shape, kept_at = _dot.vector_layout(a, b, axis)
    am, bm = da.moveaxis(a, axis_a, -1), da.moveaxis(b, axis_b, -1)
    kind = "complex" if "complex" in (ka, kb) else "real"
    if dtype is not None:
        result = _dtypes.as_result_dtype(dtype, kind, name, "dtype")
    elif kind == "real":
        result = _dot.default_result(dta, dtb)
    else:
        result = np.result_type(dta, dtb)

    def narrow(dt):
        return dt in _dot.NARROW or (dt.kind in "biu" and dt.itemsize <= 2)

    if narrow(_dtypes.component(dta)) and narrow(_dtypes.component(dtb)):
        if kind == "real":
            products = am.astype(np.float64) * bm.astype(np.float64)    # each exact
            res = reduce(name, products, -1, result, None, False, NO_VALUE, True, False,
                         False)
        else:
            res = _narrow_complex_dot(am, bm, result)
        if _dot.integer_operands(dta, dtb):
            res = res + np.zeros((), res.dtype)         # +0: see integer_operands
    else:
        res = _dot_through_states(am, bm, kind, result, _dot.integer_operands(dta, dtb))
    if keepdims:
        res = da.expand_dims(res, kept_at)
    return res


# ---- the other public functions ---------------------------------------------

def _one_chunk_along(a, axis):
    """a with `axis` in one chunk (reduceat, kahan_sum: order matters or
    segments cross chunks)."""
    return a.rechunk({axis: -1})


def _reduceat(core, a, indices, axis, dtype, out):
    name = "exact_add.reduceat"
    if out is not None:
        raise NotImplementedError(
            f"{name}: out= is not supported for dask arrays; use the returned dask array")
    kind = _dtypes.input_kind(a.dtype, name)
    if isinstance(indices, da.Array):
        indices = indices.compute()          # small: one per segment
    axis, indices, _ = reduceat_segments(a.shape, indices, axis, name)
    result = _dtypes.resolve_result(a.dtype, kind, dtype, None, name)
    whole = _one_chunk_along(a, axis)
    chunks = tuple((indices.size,) if i == axis else c for i, c in enumerate(whole.chunks))
    return whole.map_blocks(core, indices, axis, result, dtype=result, chunks=chunks,
                            meta=np.empty((0,) * a.ndim, result))


def _grouped_arguments(name, values, codes, ngroups):
    """Checked dask arguments of the grouped functions: values, its kind,
    codes chunked as values, ngroups (each chunk is checked again by the
    NumPy code)."""
    values, codes = da.asarray(values), da.asarray(codes)
    ngroups = check_groups(name, values, codes, ngroups)     # reads no data
    kind = _dtypes.input_kind(values.dtype, name)
    return values, kind, codes.rechunk(values.chunks), ngroups


def _grouped_reduction(name, values, codes, ngroups, skip_nan, family, finish):
    """Per chunk, the records of every group (ngroups records: bounded by the
    groups, not the values), merged up Dask's tree across the chunks and
    finished by `finish` (a _Finish)."""
    values, kind, codes, ngroups = _grouped_arguments(name, values, codes, ngroups)
    record = _record_dtype(kind, family)
    build = (_records.grouped_sum_records if family == "sum"
             else _records.grouped_moment_records)

    def chunk_records(v, c, skip_nan):
        return build(name, v, c, ngroups, skip_nan).reshape(1, ngroups)

    recs = da.map_blocks(functools.partial(chunk_records, skip_nan=skip_nan),
                         values, codes, dtype=record,
                         chunks=((1,) * values.numblocks[0], (ngroups,)), new_axis=[1],
                         meta=np.empty((0, 0), record))
    combine = functools.partial(_combine, record=record)
    return da.reduction(recs, chunk=combine, combine=combine, aggregate=finish, axis=0,
                        dtype=record, concatenate=True, name=name, meta=finish.meta(1))


def _grouped(name, values, codes, ngroups, dtype, skip_nan, mean):
    """Grouped sums (means) of dask values through grouped sum records."""
    kind = _dtypes.input_kind(da.asarray(values).dtype, name)
    result = _dtypes.resolve_result(da.asarray(values).dtype, kind, dtype, None, name)
    finish = _Finish(functools.partial(_records.finish_sum, result=result, mean=mean,
                                       complex_terms=kind == "complex"), result)
    return _grouped_reduction(name, values, codes, ngroups, skip_nan, "sum", finish)


def _grouped_variance(name, values, codes, ngroups, dtype, skip_nan, ddof, correction, std):
    """Grouped variances (std: roots) of dask values through grouped moments
    records, each group's variance rounded once."""
    ddof = _moments.check_ddof(ddof, correction, name)
    result = _moments.result_dtype(da.asarray(values).dtype, dtype, None, name)
    finish = _Finish(functools.partial(_records.finish_moments, ddof=ddof, result=result,
                                       std=std, func_name=name), result)
    return _grouped_reduction(name, values, codes, ngroups, skip_nan, "moments", finish)


def _kahan_sum(core, a, axis):
    core(np.zeros((1,) * max(a.ndim, 1), a.dtype), axis if a.ndim else None)   # checks
    if axis is None:
        a, axis = a.reshape(-1), 0
    axis = single_axis(axis, a.ndim, "kahan_sum")
    return _one_chunk_along(a, axis).map_blocks(
        core, axis, drop_axis=axis, dtype=a.dtype, meta=np.empty((0,) * (a.ndim - 1), a.dtype))


def _state_axes(states, trailing):
    """Dask states with the state axes in one chunk."""
    return states.rechunk({states.ndim - 1 - i: -1 for i in range(trailing)})


def _merge_states(states, axis, complex_parts):
    trailing = 2 if complex_parts else 1
    states = _state_axes(da.asarray(states), trailing)
    outer_ndim = states.ndim - trailing
    if outer_ndim <= 0:
        raise ValueError(f"merge_states: states has no axis to merge over "
                         f"(shape {states.shape})")
    axes = normalize_axes(axis, outer_ndim, "merge_states")
    # Merge the blocks along the merged axes first, then across blocks.
    merged = states.rechunk({ax: -1 for ax in axes})
    chunks = tuple(c for i, c in enumerate(merged.chunks) if i not in axes)
    def block(s):
        checked = _state.check_states(s, "merge_states", "states", complex_parts)
        return _state.merge_over(checked, axes, trailing, "merge_states")

    return merged.map_blocks(block,
                             drop_axis=list(axes), chunks=chunks, dtype=fmt.DTYPE,
                             meta=np.empty((0,) * len(chunks), fmt.DTYPE))


def _round_state(core, state, dtype):
    result, is_complex = _state.state_result_dtype(dtype, "round_state")
    trailing = 2 if is_complex else 1
    state = _state_axes(da.asarray(state), trailing)
    drop = list(range(state.ndim - trailing, state.ndim))
    return state.map_blocks(lambda s: np.asarray(core(s, dtype)), drop_axis=drop,
                            dtype=result, meta=np.empty((0,) * (state.ndim - trailing), result))


def _state_mean(core, state, count, dtype):
    result, is_complex = _state.state_result_dtype(dtype, "state_mean")
    trailing = 2 if is_complex else 1
    state = _state_axes(da.asarray(state), trailing)
    outer = state.shape[:state.ndim - trailing]
    count = da.broadcast_to(da.asarray(count), outer).rechunk(state.chunks[:len(outer)])
    expand = (Ellipsis,) + (None,) * trailing      # counts beside the state axes

    def block(s, c):
        return np.asarray(core(s, c.reshape(c.shape[:len(outer)]), dtype))

    return da.map_blocks(block, state, count[expand], drop_axis=list(range(len(outer),
                                                                            state.ndim)),
                         dtype=result, meta=np.empty((0,) * len(outer), result))


def _plan_elementwise(function, arg):
    """An elementwise public function (the low-precision updates) block by
    block; a tuple result becomes a tuple of dask arrays."""
    core, name, arrays = function.core, function.name, function.arrays
    if arg.get("out") is not None:
        raise NotImplementedError(f"{name}: out= is not supported for dask arrays")
    values = [arg[n] for n in arrays]
    # Every array argument broadcast to one shape and chunked alike.
    arrays_in = [v for v in values if isinstance(v, (da.Array, np.ndarray)) and np.ndim(v)]
    shape = np.broadcast_shapes(*(v.shape for v in arrays_in))
    first = next(v for v in arrays_in if isinstance(v, da.Array))
    chunks = da.broadcast_to(first, shape).chunks
    values = [da.broadcast_to(da.asarray(v), shape).rechunk(chunks)
              if isinstance(v, (da.Array, np.ndarray)) and np.ndim(v) else v for v in values]
    others = {k: v for k, v in arg.items() if k not in arrays and k != "out"}
    # The dtypes of the results (and the argument checks) from one element.
    probe = core(**dict(zip(arrays, [np.zeros((1,) * v.ndim, v.dtype)
                                     if isinstance(v, da.Array) else v for v in values])),
                 **others)

    def block(*vs, part=None):
        res = core(**dict(zip(arrays, vs)), **others)
        return res if part is None else res[part]

    if not isinstance(probe, tuple):
        return da.map_blocks(block, *values, dtype=np.asarray(probe).dtype)
    return tuple(da.map_blocks(block, *values, part=i, dtype=np.asarray(p).dtype)
                 for i, p in enumerate(probe))


def _plan_stochastic(function, arg):
    name = function.name
    if not isinstance(arg.get("bits"), (da.Array, np.ndarray)):
        raise TypeError(
            f"{name}: with dask arrays, pass the random bits as bits= (an array of the "
            "result's shape): a generator drawn chunk by chunk would not reproduce the "
            "NumPy result")
    return _plan_elementwise(function, arg)


def _moving_window(core, a, window, axis, min_count, name, *more):
    """Moving sums, means, variances: each block sees the window - 1 values
    before it (map_overlap), so every output is the same exact window's.
    more: the core's arguments after min_count (ddof)."""
    axis, window, min_count, result = _moving.check(name, a.dtype, a.shape, window, axis,
                                                    min_count)
    depth = window - 1
    if depth and min(a.chunks[axis]) < depth:
        a = a.rechunk({axis: max(depth, max(a.chunks[axis]))})
    return a.map_overlap(lambda block: core(block, window, axis, min_count, *more),
                         depth={i: (depth if i == axis else 0) for i in range(a.ndim)},
                         boundary="none", trim=True, dtype=result,
                         meta=np.empty((0,) * a.ndim, result))


# ---- variance and standard deviation: mergeable exact moments ---------------

def _moment_chunk(x, mask, *, axes, skip_nan, func_name):
    """The moments records of one block over `axes` (kept as length 1)."""
    keep = None if mask is None else np.asarray(mask, bool)
    rec = _records.moment_records(x, axes, keep, skip_nan, func_name)
    return rec.reshape(kept_shape(x.shape, axes))


def _variance(name, a, axis, dtype, out, ddof, keepdims, where, correction, skip_nan, std):
    if out is not None:
        raise NotImplementedError(f"{name}: out= is not supported for dask arrays; use the "
                                  "returned dask array")
    ddof = _moments.check_ddof(ddof, correction, name)
    spec = ReductionSpec.parse(name, a, axis, keepdims=keepdims, where=where,
                               skip_nan=skip_nan, rounds=False, xp=da)
    result = _moments.result_dtype(a.dtype, dtype, None, name)
    finish = _Finish(functools.partial(_records.finish_moments, ddof=ddof, result=result,
                                       std=std, func_name=name), result)
    return _moments_reduction(name, a, spec, keepdims, finish)


def _finish_norm(rec, result):
    """Merged moments records -> each 2-norm (the root of S2) rounded once."""
    res = _norm.norm_of_moments(_records.moments_of(rec), result).reshape(rec.shape)
    return res[()] if res.ndim == 0 else res


def _vector_norm(name, a, axis, keepdims):
    """linalg.vector_norm(ord=2) of a dask array: the exact sums of squares
    are the S2 moments, merged as for variances, rounded once from their
    root."""
    spec = ReductionSpec.parse(name, a, axis, keepdims=keepdims, rounds=False, xp=da)
    result = _norm.result_dtype(a.dtype)
    finish = _Finish(functools.partial(_finish_norm, result=result), result)
    return _moments_reduction(name, a, spec, keepdims, finish)


def _moments_reduction(name, a, spec, keepdims, finish):
    """The exact moments records of `a` over spec's axes, block by block,
    merged up the tree, then `finish` (a _Finish) of the merged records."""
    axes = spec.axes
    record = _record_dtype(spec.kind, "moments")
    mask = None if spec.mask is None else spec.mask.rechunk(a.chunks)
    out_chunks = tuple((1,) * len(c) if i in axes else c for i, c in enumerate(a.chunks))
    chunk = functools.partial(_moment_chunk, axes=axes, skip_nan=spec.skip_nan, func_name=name)
    arrays = (a,) if mask is None else (a, mask)
    source = da.map_blocks(lambda x, m=None: chunk(x, m), *arrays, chunks=out_chunks,
                           dtype=record, meta=np.empty((0,) * a.ndim, record))
    combine = functools.partial(_combine, record=record)
    meta_ndim = a.ndim if keepdims else a.ndim - len(axes)
    return da.reduction(source, chunk=combine, combine=combine, aggregate=finish,
                        axis=axes, keepdims=keepdims, dtype=record, concatenate=True,
                        name=name, meta=finish.meta(meta_ndim))


# ---- the plans: how each public function is computed -----------------------
#
# Each public function declares its plan (and the plan's options) next to
# itself in _api (see plans.py); a plan takes the Function and its bound
# arguments.

def _plan_reduce(function, arg, skip_nan, mean):
    return reduce(function.name, da.asarray(arg["a"]), arg["axis"], arg["dtype"], arg["out"],
                  arg["keepdims"], arg.get("initial", NO_VALUE), arg["where"], skip_nan, mean)


def _plan_variance(function, arg, skip_nan, std):
    return _variance(function.name, da.asarray(arg["a"]), arg["axis"], arg["dtype"],
                     arg["out"], arg["ddof"], arg["keepdims"], arg["where"],
                     arg["correction"], skip_nan, std)


def _plan_accumulate(function, arg):
    return accumulate(da.asarray(arg["a"]), arg["axis"], arg["dtype"], arg["out"])


def _plan_reduceat(function, arg):
    return _reduceat(function.core, da.asarray(arg["a"]), arg["indices"], arg["axis"],
                     arg["dtype"], arg["out"])


def _plan_dot(function, arg):
    return dot(arg["a"], arg["b"], arg["axis"], arg["dtype"], arg["out"], arg["keepdims"])


def _plan_state(function, arg, counts):
    return _state_functions(function.name, da.asarray(arg["a"]), arg["axis"],
                            arg["keepdims"], arg["where"], arg["skip_nan"], counts)


def _plan_grouped(function, arg, mean):
    return _grouped(function.name, arg["values"], arg["codes"], arg["ngroups"],
                    arg["dtype"], arg["skip_nan"], mean)


def _plan_grouped_variance(function, arg, std):
    return _grouped_variance(function.name, arg["values"], arg["codes"], arg["ngroups"],
                             arg["dtype"], arg["skip_nan"], arg["ddof"], arg["correction"],
                             std)


def _plan_moving(function, arg, ddof):
    more = (arg["ddof"],) if ddof else ()
    return _moving_window(function.core, da.asarray(arg["a"]), arg["window"], arg["axis"],
                          arg["min_count"], function.name, *more)


def _plan_norm(function, arg):
    """vector_norm of ord 1 (the exact sum of |x|) or 2; other orders are not
    exact sums: refused for dask arrays."""
    ord_ = arg["ord"]
    if isinstance(ord_, bool) or ord_ not in (1, 2):
        raise TypeError(f"{function.name}: dask arrays take ord=1 or ord=2 only, not "
                        f"{ord_!r}; pass a NumPy array (for example x.compute())")
    x = da.asarray(arg["x"])
    if ord_ == 2:
        return _vector_norm(function.name, x, arg["axis"], arg["keepdims"])
    magnitude = da.abs(x)       # as the NumPy body: integers' abs read unsigned
    if x.dtype.kind == "i":
        magnitude = magnitude.astype(np.dtype(f"u{x.dtype.itemsize}"))
    return reduce(function.name, magnitude, arg["axis"], _norm.result_dtype(x.dtype), None,
                  arg["keepdims"], NO_VALUE, True, False, False)


def _plan_pairs(function, arg):
    """The statistics of pairs and matrix products (below, by name)."""
    return _PAIRS[function.name](arg)


def _plan_kahan_sum(function, arg):
    return _kahan_sum(function.core, da.asarray(arg["a"]), arg["axis"])


def _plan_merge_states(function, arg):
    return _merge_states(arg["states"], arg["axis"], arg["complex_parts"])


def _plan_round_state(function, arg):
    return _round_state(function.core, arg["state"], arg["dtype"])


def _plan_state_mean(function, arg):
    return _state_mean(function.core, arg["state"], arg["count"], arg["dtype"])


_PLANS = {
    "reduce": _plan_reduce, "variance": _plan_variance, "accumulate": _plan_accumulate,
    "reduceat": _plan_reduceat, "dot": _plan_dot, "state": _plan_state,
    "grouped": _plan_grouped, "grouped_variance": _plan_grouped_variance,
    "moving": _plan_moving, "kahan_sum": _plan_kahan_sum, "norm": _plan_norm,
    "pairs": _plan_pairs,
    "merge_states": _plan_merge_states, "round_state": _plan_round_state,
    "state_mean": _plan_state_mean, "elementwise": _plan_elementwise,
    "stochastic": _plan_stochastic,
}


def call(function, args, kwargs):
    """A public function (see ``_dispatch.Function``) on dask arrays: a lazy
    dask result, exact and bit-identical to the NumPy result."""
    plan = plan_of(function)
    if plan is None:
        raise TypeError(f"{function.name}: dask arrays are not supported; pass a NumPy array "
                        "(for example x.compute())")
    return _PLANS[plan.name](function, function.bind(args, kwargs).arguments, **plan.options)


# ---- statistics of pairs and matrix products (exact_average, exact_cov,
# exact_corrcoef, exact_linear_regression, exact_matmul) ----------------------

def merged_up_tree(parts, merge):
    """The delayed parts merged pairwise up a tree."""
    while len(parts) > 1:
        parts = [dask.delayed(merge)(parts[i], parts[i + 1]) if i + 1 < len(parts)
                 else parts[i] for i in range(0, len(parts), 2)]
    return parts[0]


def _block_sums(x, f, a, func_name):
    """The exact (Sums, swa) of one block of observations (weights checked)."""
    f, a = _pairs.checked_weights(f, a, x.shape[1], func_name)
    return _pairs.sums_with_weights(np.asarray(x), f, a)


def _pair_sums(x, f, a, func_name):
    """Delayed exact (Sums, swa) of dask variables x (p, n): one per block of
    observations (every variable in the block), added up a tree."""
    x = x.rechunk({0: -1})
    chunks = x.chunks[1]
    blocks = x.to_delayed()[0]
    weights = [None if w is None else da.asarray(w).rechunk((chunks,)).to_delayed()
               for w in (f, a)]
    parts = [dask.delayed(_block_sums)(b, None if weights[0] is None else weights[0][i],
                                       None if weights[1] is None else weights[1][i],
                                       func_name)
             for i, b in enumerate(blocks)]
    return merged_up_tree(parts, _pairs.merge_sums)


def _variables(m, y, rowvar, func_name):
    """The dask variables (p, n) of exact_cov's m and y, by NumPy's layout rules."""
    def two_d(v):
        v = da.asarray(v)
        if v.ndim > 2:
            raise ValueError(f"{func_name}: input has more than 2 dimensions")
        v = v.reshape(1, -1) if v.ndim < 2 else v
        return v.T if not rowvar and v.shape[0] != 1 else v

    x = two_d(m)
    return x if y is None else da.concatenate([x, two_d(y)], axis=0)


def _cov(arg):
    name = "exact_cov"
    ddof = _pairs._check_ddof(arg["ddof"], arg["bias"], name)
    result = _pairs._cov_result(arg["dtype"], name)
    x = _variables(arg["m"], arg["y"], arg["rowvar"], name)
    f, a = arg["fweights"], arg["aweights"]
    weighted = f is not None or a is not None
    total = _pair_sums(x, f, a, name)
    finish = functools.partial(_finish_cov, ddof=ddof, weighted=weighted,
                               has_aweights=a is not None, result=result)
    p = x.shape[0]
    shape = (p, p) if p != 1 else ()
    return da.from_delayed(dask.delayed(finish)(total), shape, dtype=result)


def _finish_cov(total, *, ddof, weighted, has_aweights, result):
    sums, swa = total
    return _pairs.cov_of_sums(sums, swa, ddof, weighted, has_aweights, result)


def _corrcoef(arg):
    name = "exact_corrcoef"
    result = _pairs._cov_result(arg["dtype"], name)
    x = _variables(arg["x"], arg["y"], arg["rowvar"], name)
    p = x.shape[0]
    total = _pair_sums(x, None, None, name)

    def finish(t):
        return _pairs.correlations(t[0], p, _dtypes.FORMATS[result], result).squeeze()

    return da.from_delayed(dask.delayed(finish)(total), (p, p) if p != 1 else (), dtype=result)


def _linear_regression(arg):
    x, y = da.asarray(arg["x"]), da.asarray(arg["y"])
    if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape or x.shape[0] < 2:
        # The NumPy body's errors (shapes are known without computing).
        return _pairs.linear_regression(np.zeros(x.shape, x.dtype), np.zeros(y.shape, y.dtype),
                                        arg["proportional"])
    result = _dot.default_result(_dtypes.native(x.dtype), _dtypes.native(y.dtype))
    y = y.rechunk(x.chunks)
    parts = [dask.delayed(_pair_block_sums)(xb, yb)
             for xb, yb in zip(x.to_delayed(), y.to_delayed())]
    total = merged_up_tree(parts, _pairs.merge_sums)
    line = dask.delayed(_regression)(total, arg["proportional"], result)
    return _pairs.LinearRegression(*(da.from_delayed(line[k], (), dtype=result)
                                     for k in (0, 1)))


def _pair_block_sums(x, y):
    """(Sums, None) of one block of x and y (their values exactly, any dtypes)."""
    return _pairs.sums_of(_pairs.stack_variables([np.asarray(x), np.asarray(y)])), None


def _regression(total, proportional, result):
    return _pairs.regression_of_sums(total[0], proportional, result)


_INT64 = np.dtype(np.int64)


def _real(x):
    return x.real if x.dtype.kind == "c" else x


def _dot_state_blocks(a, b, *, compute, parts):
    """The exact dot states of one pair of blocks (vector axis last), with
    the vector axis kept as length 1: (..., 1, len(parts), DOT_STATE_LENGTH).
    parts: the (x, y, negate x) component pairs whose dots add up to one
    part each, taken as one exact dot (_dot.exact_operands: 64-bit integers
    split exactly)."""
    states = []
    for pairs in parts:
        left, right = _dot.exact_operands([(x(a), y(b), neg) for x, y, neg in pairs], compute)
        states.append(exact_dot_state_ufunc(left, right, signature=(compute, compute, _INT64)))
    return np.stack(states, axis=-2)[..., np.newaxis, :, :]


def _ones(x):
    return np.ones_like(x)


def _average(arg):
    name = "exact_average"
    a, weights, axis = da.asarray(arg["a"]), arg["weights"], arg["axis"]
    if weights is None:
        return reduce(name, a, axis, None, None, arg["keepdims"], NO_VALUE, True, False, True)
    if arg["returned"] or not (axis is None or isinstance(axis, (int, np.integer))):
        raise TypeError(f"{name}: dask arrays take axis=None or one int axis, and not "
                        "returned=True; pass NumPy arrays")
    w = da.asarray(weights)
    result = _pairs._average_dtype(a, w)
    if axis is None:
        if w.shape != a.shape:
            raise TypeError(f"{name}: Axis must be specified when shapes of a and weights "
                            "differ.")
        am, wm = a.reshape(-1), w.reshape(-1)
        kept = (1,) * a.ndim
    else:
        axis = single_axis(axis, a.ndim, name)
        w = _pairs._weights_like(a, w, (axis,), name)
        am, wm = da.moveaxis(a, axis, -1), da.moveaxis(da.broadcast_to(w, a.shape), axis, -1)
        kept = kept_shape(a.shape, (axis,))
    compute = _dot.compute_dtype(_dtypes.native(a.dtype), _dtypes.native(w.dtype))
    parts = [[(_real, _real, False)], [(_ones, _real, False)]]     # sum(a*w), sum(1*w)
    am, wm = da.broadcast_arrays(am, wm)
    wm = wm.rechunk(am.chunks)
    nblocks = len(am.chunks[-1])
    states = da.map_blocks(
        functools.partial(_dot_state_blocks, compute=compute, parts=parts), am, wm,
        chunks=am.chunks[:-1] + ((1,) * nblocks, (2,), (DOT_STATE_LENGTH,)),
        new_axis=[am.ndim, am.ndim + 1], dtype=_INT64,
        meta=np.empty((0,) * (am.ndim + 2), _INT64))
    states = states.rechunk({am.ndim - 1: -1})
    res = da.map_blocks(
        functools.partial(_average_blocks, result=result), states,
        drop_axis=[am.ndim - 1, am.ndim, am.ndim + 1], dtype=result,
        meta=np.empty((0,) * (am.ndim - 1), result))
    return res.reshape(kept) if arg["keepdims"] else res


def _average_blocks(states, *, result):
    """(..., m, 2, DOT_LENGTH) block states -> the weighted means."""
    merged = _state.merge_dot_states(np.moveaxis(states, -3, -2))
    return _pairs.average_of_dot_states(merged, result)


def _matmul(arg):
    """exact_matmul of 1-D or 2-D dask arrays: each output block from the
    whole inner dimension (every entry is rounded once, so any chunking
    gives the NumPy bits)."""
    a, b = da.asarray(arg["a"]), da.asarray(arg["b"])
    if a.ndim not in (1, 2) or b.ndim not in (1, 2):
        raise TypeError("exact_matmul: dask arrays of 1 or 2 dimensions only; pass NumPy "
                        "arrays for stacks of matrices")
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    if a2.shape[1] != b2.shape[0]:
        _matmul_core.matmul(np.zeros(a.shape, a.dtype), np.zeros(b.shape, b.dtype))
    result = _matmul_core.result_dtype(_dtypes.native(a.dtype), _dtypes.native(b.dtype))
    out = da.blockwise(_matmul_core.matmul, "ij", a2.rechunk({1: -1}), "ik",
                       b2.rechunk({0: -1}), "kj", dtype=result, concatenate=True,
                       meta=np.empty((0, 0), result))
    if b.ndim == 1:
        out = out[:, 0]
    if a.ndim == 1:
        out = out[0]
    return out


_PAIRS = {"exact_average": _average, "exact_cov": _cov, "exact_corrcoef": _corrcoef,
          "exact_linear_regression": _linear_regression, "exact_matmul": _matmul}
