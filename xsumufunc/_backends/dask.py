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
from .._core import pairs as _pairs
from .._core import stateformat as fmt
from .._core import states as _state
from .._core.add import reduceat_segments
from .._core.grouped import grouped_moments, grouped_states
from .._core.spec import (
    NO_VALUE,
    ReductionSpec,
    kept_shape,
    normalize_axes,
    single_axis,
    warn_empty_mean,
)
from .._core.stateformat import DOT_LENGTH as DOT_STATE_LENGTH
from .._core.stateformat import LENGTH as STATE_LENGTH
from .._ufuncs import (
    exact_cumsum_ufunc,
    exact_dot_state_round_ufunc,
    exact_dot_state_ufunc,
)


def _record_dtype(kind):
    shape = (STATE_LENGTH,) if kind == "real" else (2, STATE_LENGTH)
    return np.dtype([("state", fmt.DTYPE, shape), ("count", fmt.DTYPE)])


def _pack(states, counts, kind, shape):
    """Record array of `shape` from states and counts (shape without reduced axes)."""
    rec = np.empty(shape, _record_dtype(kind))
    trailing = rec["state"].shape[len(shape):]
    rec["state"] = states.reshape(shape + trailing)
    rec["count"] = counts.reshape(shape)
    return rec



def _placeholder(x, kind, keepdims, axes):
    """What the reduction functions return for Dask's meta probes."""
    ndim = getattr(x, "ndim", 0)
    ndim = ndim if keepdims else ndim - len(axes)
    return np.empty((0,) * max(ndim, 0), _record_dtype(kind))


def _state_chunk(x, axis=None, keepdims=True, computing_meta=False, *, kind, skip_nan):
    """Exact states of one chunk over the reduced axes (kept, length 1)."""
    axes = tuple(axis)
    if computing_meta or not isinstance(x, np.ndarray):
        return _placeholder(x, kind, True, axes)
    states, counts = _state.states_and_counts(x, axes, None, skip_nan)
    return _pack(states, counts, kind, kept_shape(x.shape, axes))


def _masked_chunk(x, mask, *, axes, kind, skip_nan):
    """As _state_chunk, leaving out the terms where `mask` is False."""
    states, counts = _state.states_and_counts(x, axes, np.asarray(mask, bool), skip_nan)
    return _pack(states, counts, kind, kept_shape(x.shape, axes))


def _merged(rec, axes, kind, keepdims):
    """States and counts of the records merged over `axes`."""
    trailing = 1 if kind == "real" else 2
    states = _state.merge_over(np.asarray(rec["state"]).astype(np.int64), axes, trailing,
                               "dask reduction", keepdims)
    counts = np.sum(rec["count"], axis=axes, keepdims=keepdims, dtype=np.int64)
    return states, np.asarray(counts)


def _combine(rec, axis=None, keepdims=True, computing_meta=False, *, kind):
    axes = tuple(axis)
    if computing_meta or not isinstance(rec, np.ndarray) or rec.dtype != _record_dtype(kind):
        return _placeholder(rec, kind, keepdims, axes)
    states, counts = _merged(rec, axes, kind, True)
    return _pack(states, counts, kind, kept_shape(rec.shape, axes))


def _aggregate(rec, axis=None, keepdims=False, computing_meta=False, *, kind, result,
               mean, initial_state):
    """Merge the last partials and round once into `result`."""
    axes = tuple(axis)
    if computing_meta or not isinstance(rec, np.ndarray) or rec.dtype != _record_dtype(kind):
        ndim = getattr(rec, "ndim", 0)
        return np.empty((0,) * max(ndim if keepdims else ndim - len(axes), 0), result)
    states, counts = _merged(rec, axes, kind, keepdims)
    if initial_state is not None:
        one = np.broadcast_to(initial_state, states.shape)
        states = _state.merge_over(np.stack([states, one]).astype(np.int64), (0,),
                                   states.ndim - counts.ndim, "dask reduction")
    if mean:
        if counts.size and np.any(counts == 0):
            warn_empty_mean(stacklevel=1)
        res = _state.round_states(states.astype(np.int64), counts, result, kind == "complex")
    else:
        res = _state.round_states(states.astype(np.int64), None, result, kind == "complex")
    return res          # a NumPy scalar for a 0-d result, as NumPy's reductions give


def _reduction(spec, a, mean, finish):
    """da.reduction of `a` through exact states per chunk, merged up the
    tree; `finish(rec, axes, keepdims)` makes the result from the last
    records (see _aggregate)."""
    kind, axes = spec.kind, spec.axes
    combine = functools.partial(_combine, kind=kind)
    if spec.mask is None:
        source = a
        chunk = functools.partial(_state_chunk, kind=kind, skip_nan=spec.skip_nan)
    else:
        # Masked states per block first (reduced axes become length 1 per
        # block), then the same merge tree.
        mask = spec.mask.rechunk(a.chunks)
        out_chunks = tuple((1,) * len(c) if i in axes else c for i, c in enumerate(a.chunks))
        source = da.map_blocks(
            functools.partial(_masked_chunk, axes=axes, kind=kind, skip_nan=spec.skip_nan),
            a, mask, chunks=out_chunks, dtype=_record_dtype(kind),
            meta=np.empty((0,) * a.ndim, _record_dtype(kind)))
        chunk = combine
    meta_ndim = a.ndim if spec.keepdims else a.ndim - len(axes)
    return da.reduction(
        source, chunk=chunk, aggregate=finish, combine=combine, axis=axes,
        # dtype= is that of the partials (Dask casts its probes to it); the
        # result's dtype comes from meta=.
        keepdims=spec.keepdims, dtype=_record_dtype(kind), concatenate=True,
        name=spec.func_name.replace(".", "-"), meta=finish.meta(meta_ndim))


class _Finish:
    """An aggregate for da.reduction with the meta of its result."""

    def __init__(self, func, dtype, trailing=()):
        self.func, self.dtype, self.trailing = func, dtype, trailing

    def __call__(self, rec, axis=None, keepdims=False, computing_meta=False):
        if computing_meta or not isinstance(rec, np.ndarray) or rec.dtype.names is None:
            ndim = getattr(rec, "ndim", 0)
            return self.meta(max(ndim if keepdims else ndim - len(tuple(axis)), 0))
        return self.func(rec, tuple(axis), keepdims)

    def meta(self, ndim):
        return np.empty((0,) * ndim + self.trailing, self.dtype)


def reduce(func_name, a, axis, dtype, out, keepdims, initial, where, skip_nan, mean):
    """exact_sum / exact_mean (and variants) of a dask array, lazily."""
    if out is not None:
        raise NotImplementedError(
            f"{func_name}: out= is not supported for dask arrays; use the returned "
            "dask array (or da.store) instead")
    spec = ReductionSpec.parse(func_name, a, axis, dtype, None, keepdims, where, initial,
                               skip_nan, xp=da)
    initial_state = None
    if spec.initial is not NO_VALUE:
        parts = _state.initial_state(spec.initial, spec.kind)
        initial_state = _state.canonical(parts[0] if spec.kind == "real" else np.stack(parts))
    aggregate = functools.partial(_aggregate, kind=spec.kind, result=spec.result, mean=mean,
                                  initial_state=initial_state)
    finish = _Finish(lambda rec, axes, keep: aggregate(rec, axes, keep), spec.result)
    return _reduction(spec, a, mean, finish)


def _state_functions(func_name, a, axis, keepdims, where, skip_nan):
    """exact_sum_state / exact_count of a dask array, lazily."""
    spec = ReductionSpec.parse(func_name, a, axis, keepdims=keepdims, where=where,
                               skip_nan=skip_nan, rounds=False, xp=da)
    trailing = 1 if spec.kind == "real" else 2

    def records(rec, axes, keep):
        merged, counts = _merged(rec, axes, spec.kind, keep)
        return _pack(_state.canonical(merged), counts, spec.kind, counts.shape)

    def counts(rec, axes, keep):
        return np.asarray(_merged(rec, axes, spec.kind, keep)[1], fmt.DTYPE)

    if func_name == "exact_count":
        return _reduction(spec, a, False, _Finish(counts, fmt.DTYPE))
    recs = _reduction(spec, a, False, _Finish(records, _record_dtype(spec.kind)))
    # The states of the records, with the state axes as new trailing axes.
    trailing = (STATE_LENGTH,) if spec.kind == "real" else (2, STATE_LENGTH)
    ndim = recs.ndim
    return recs.map_blocks(
        lambda r: np.ascontiguousarray(r["state"]), dtype=fmt.DTYPE,
        new_axis=list(range(ndim, ndim + len(trailing))),
        chunks=recs.chunks + tuple((n,) for n in trailing),
        meta=np.empty((0,) * (ndim + len(trailing)), fmt.DTYPE))


# ---- exact prefix sums across chunks ------------------------------------

_DIGIT_MASK = (1 << 32) - 1
_DIGIT_WEIGHTS = 32 * np.arange(STATE_LENGTH - 2) - 1075      # log2 of each digit's unit
_SPECIAL_TERMS = ((4, np.inf), (8, -np.inf), (16, np.nan))
# Offsets of up to this many times 2**1023 (partial sums past the float64
# range) are carried into the next chunk as copies of 2**1023.
_MAX_COPIES = 64


def _state_as_terms(states, func_name):
    """float64 terms (..., K) whose exact sum is each (real) state's value,
    padded with -0.0 (neutral once a real term follows, as it always does
    here).  The digits of |value| become one double each; Inf/NaN become
    themselves; a state of only -0.0 terms becomes -0.0."""
    states = states.astype(np.int64)
    flags = states[..., -1]
    digits = states[..., :-1].copy()
    negative = digits[..., -1] < 0
    if np.any(negative):
        # |value| of negative states: negate the digits, then carry.
        neg = -digits[negative]
        carry = np.zeros(neg.shape[:-1], np.int64)
        for j in range(neg.shape[-1] - 1):
            v = neg[..., j] + carry
            neg[..., j] = v & _DIGIT_MASK
            carry = v >> 32
        neg[..., -1] += carry
        digits[negative] = neg
    # Digits 0..64 and digit 65 below 2**18 hold |value| mod 2**1023 (unit
    # 2**-1075: bit 2098 is 2**1023); what is above becomes copies of 2**1023.
    if np.any(digits[..., 67] != 0) or np.any(digits[..., 66] >= 1 << 10):
        raise NotImplementedError(
            f"{func_name}: a running sum beyond 2**1064 crosses a chunk boundary; "
            "rechunk the axis into one chunk")
    copies = (digits[..., 65] >> 18) + (digits[..., 66] << 14)
    if np.any(copies > _MAX_COPIES):
        raise NotImplementedError(
            f"{func_name}: a running sum beyond {_MAX_COPIES} * 2**1023 crosses a chunk "
            "boundary; rechunk the axis into one chunk")
    digits[..., 65] &= (1 << 18) - 1
    digits[..., 66] = 0
    big = np.where(np.arange(int(copies.max(initial=0))) < copies[..., None], 2.0**1023, 0.0)
    used = np.flatnonzero(np.any(digits[..., :66] != 0, axis=tuple(range(digits.ndim - 1))))
    # Highest digit first: the dropped prefix sums then stay below |value|
    # and do not overflow (no spurious warnings).
    used = used[::-1]
    terms = np.ldexp(digits[..., used].astype(np.float64), _DIGIT_WEIGHTS[used])
    terms = np.concatenate([big, terms], axis=-1)
    terms = np.where(negative[..., None], -terms, terms)
    terms[terms == 0] = -0.0
    zero_term = np.where((flags & 2) != 0, 0.0, -0.0)          # +0.0 keeps the zero positive
    extra = [zero_term]
    for bit, value in _SPECIAL_TERMS:
        if np.any(flags & bit):
            extra.append(np.where((flags & bit) != 0, value, -0.0))
    return np.concatenate([terms] + [e[..., None] for e in extra], axis=-1), big.size > 0


def _as_float64_terms(x):
    """x as float64 along a new last axis of terms, exactly: 64-bit integers
    become two terms (_dtypes.integer_halves)."""
    if _dtypes.may_split(x.dtype):
        return np.stack(_dtypes.integer_halves(x), axis=-1)
    return x.astype(np.float64)[..., None]


def _block_totals(x, *, axis, kind):
    states, counts = _state.states_and_counts(x, (axis,))
    return _pack(states, counts, kind, kept_shape(x.shape, (axis,)))


def _add_records(left, right, *, axis, kind):
    both = np.concatenate([left, right], axis=axis)
    states, counts = _merged(both, (axis,), kind, True)
    return _pack(states, counts, kind, left.shape)


def _cumsum_block(x, offset, *, axis, kind, result, func_name):
    """Exact prefix sums of one block along `axis`, starting from the exact
    state `offset` (one record per row) of all earlier blocks."""
    comps = (x,) if kind == "real" else (x.real, x.imag)
    out = np.empty(x.shape, result)
    parts = (out,) if kind == "real" else (out.real, out.imag)
    for c, (values, into) in enumerate(zip(comps, parts)):
        st_c = offset["state"] if kind == "real" else offset["state"][..., c, :]
        lead, huge = _state_as_terms(np.moveaxis(st_c, axis, -2)[..., 0, :], func_name)
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
    from the exact state of every earlier chunk along `axis`."""
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
    # Exclusive prefix of the block totals: offset k = totals of blocks 0..k-1.
    zero_shape = tuple(1 if i == axis else n for i, n in enumerate(a.shape))
    empty = np.zeros(zero_shape, record)
    offset = da.from_array(empty, chunks=tuple(
        (1,) if i == axis else c for i, c in enumerate(a.chunks)))
    add = functools.partial(_add_records, axis=axis, kind=kind)
    offsets = [offset]
    for k in range(nblocks - 1):
        step = totals[tuple(slice(k, k + 1) if i == axis else slice(None)
                            for i in range(a.ndim))]
        offset = da.map_blocks(add, offset, step, dtype=record,
                               meta=np.empty((0,) * a.ndim, record))
        offsets.append(offset)
    offsets = da.concatenate(offsets, axis=axis)
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


_INT64 = np.dtype(np.int64)


def _dot_state_blocks(a, b, *, compute, parts):
    """The exact dot states of one pair of blocks (vector axis last), with
    the vector axis kept as length 1: (..., 1, len(parts), 207).  parts: the
    (x, y, negate x) component pairs whose dots add up to one part each
    (one part for real inputs; real and imaginary for complex), taken as
    one exact dot (_dot.exact_operands: 64-bit integers split exactly)."""
    states = []
    for pairs in parts:
        left, right = _dot.exact_operands([(x(a), y(b), neg) for x, y, neg in pairs], compute)
        states.append(exact_dot_state_ufunc(left, right, signature=(compute, compute, _INT64)))
    return np.stack(states, axis=-2)[..., np.newaxis, :, :]


def _round_dot_states(states, *, result):
    """(..., m, parts, 207) -> the dot rounded once into result."""
    part = _dtypes.component(result)
    merged = _state.merge_dot_states(np.moveaxis(states, -3, -2))
    rounded = exact_dot_state_round_ufunc(merged, signature=(_INT64, part))
    if np.dtype(result).kind != "c":
        rounded = rounded[..., 0]
        return rounded[()] if rounded.ndim == 0 else rounded
    return _assemble_complex(rounded[..., 0], rounded[..., 1], result=result)


def _real(x):
    return x.real if x.dtype.kind == "c" else x


def _imag(x):
    return x.imag if x.dtype.kind == "c" else np.zeros_like(x)


def _dot_through_states(am, bm, kind, result):
    """exact_dot of dask arrays (vector axis last) through exact dot states:
    one state per block pair, merged over the vector axis, rounded once."""
    compute = _dot.compute_dtype(_dtypes.component(am.dtype), _dtypes.component(bm.dtype))
    if kind == "real":
        parts = [[(_real, _real, False)]]
    else:                       # conj(a).b: ar.br + ai.bi, ar.bi - ai.br
        parts = [[(_real, _real, False), (_imag, _imag, False)],
                 [(_real, _imag, False), (_imag, _real, True)]]
    am, bm = da.broadcast_arrays(am, bm)            # lazy: blocks are views
    bm = bm.rechunk(am.chunks)
    nblocks = len(am.chunks[-1])
    states = da.map_blocks(
        functools.partial(_dot_state_blocks, compute=compute, parts=parts), am, bm,
        chunks=am.chunks[:-1] + ((1,) * nblocks, (len(parts),), (DOT_STATE_LENGTH,)),
        new_axis=[am.ndim, am.ndim + 1], dtype=_INT64,
        meta=np.empty((0,) * (am.ndim + 2), _INT64))
    states = states.rechunk({am.ndim - 1: -1})    # small: 1.6 kB per block and result
    return da.map_blocks(
        functools.partial(_round_dot_states, result=result), states,
        drop_axis=[am.ndim - 1, am.ndim, am.ndim + 1], dtype=result,
        meta=np.empty((0,) * (am.ndim - 1), result))


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
    else:
        res = _dot_through_states(am, bm, kind, result)
    if _dot.integer_operands(dta, dtb):
        res = res + np.zeros((), res.dtype)             # +0: see integer_operands
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
    values = da.asarray(values)
    if values.ndim != 1:
        raise ValueError(f"{name}: values must be 1-D, not {values.ndim}-D")
    kind = _dtypes.input_kind(values.dtype, name)
    codes = da.asarray(codes)
    if codes.shape != values.shape:
        raise ValueError(f"{name}: codes must be integers of the same shape as values "
                         f"({values.shape}), not {codes.dtype} of shape {codes.shape}")
    try:
        ngroups = int(ngroups)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: ngroups must be a non-negative integer") from None
    if ngroups < 0:
        raise ValueError(f"{name}: ngroups must be a non-negative integer")
    return values, kind, codes.rechunk(values.chunks), ngroups


def _grouped(core, values, codes, ngroups, dtype, skip_nan, mean):
    """Grouped sums of dask values: per chunk, the exact state of every
    group (ngroups states: bounded by the groups, not the values), merged
    across the chunks and rounded once."""
    name = "exact_grouped_mean" if mean else "exact_grouped_sum"
    values, kind, codes, ngroups = _grouped_arguments(name, values, codes, ngroups)
    result = _dtypes.resolve_result(values.dtype, kind, dtype, None, name)
    record = _record_dtype(kind)

    def chunk_records(v, c):
        states, counts = grouped_states(name, v, c, ngroups, skip_nan)
        return _pack(states, counts, kind, (1, ngroups))

    recs = da.map_blocks(chunk_records, values, codes, dtype=record,
                         chunks=((1,) * values.numblocks[0], (ngroups,)), new_axis=[1],
                         meta=np.empty((0, 0), record))
    aggregate = functools.partial(_aggregate, kind=kind, result=result, mean=mean,
                                  initial_state=None)
    finish = _Finish(lambda rec, axes, keep: aggregate(rec, axes, keep), result)
    return da.reduction(recs, chunk=functools.partial(_combine, kind=kind),
                        combine=functools.partial(_combine, kind=kind), aggregate=finish,
                        axis=0, dtype=record, concatenate=True, name=name,
                        meta=finish.meta(1))


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


def _elementwise(core, name, arrays, bound):
    """An elementwise public function (the low-precision updates) block by
    block; a tuple result becomes a tuple of dask arrays."""
    if bound.arguments.get("out") is not None:
        raise NotImplementedError(f"{name}: out= is not supported for dask arrays")
    values = [bound.arguments[n] for n in arrays]
    # Every array argument broadcast to one shape and chunked alike.
    arrays_in = [v for v in values if isinstance(v, (da.Array, np.ndarray)) and np.ndim(v)]
    shape = np.broadcast_shapes(*(v.shape for v in arrays_in))
    first = next(v for v in arrays_in if isinstance(v, da.Array))
    chunks = da.broadcast_to(first, shape).chunks
    values = [da.broadcast_to(da.asarray(v), shape).rechunk(chunks)
              if isinstance(v, (da.Array, np.ndarray)) and np.ndim(v) else v for v in values]
    others = {k: v for k, v in bound.arguments.items() if k not in arrays and k != "out"}
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


def _stochastic(core, name, arrays, bound):
    if not isinstance(bound.arguments.get("bits"), (da.Array, np.ndarray)):
        raise TypeError(
            f"{name}: with dask arrays, pass the random bits as bits= (an array of the "
            "result's shape): a generator drawn chunk by chunk would not reproduce the "
            "NumPy result")
    return _elementwise(core, name, arrays, bound)


_REDUCTIONS = {
    "exact_sum": (False, False), "exact_nansum": (True, False),
    "exact_mean": (False, True), "exact_nanmean": (True, True),
    "exact_add.reduce": (False, False),
}


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


_VARIANCES = {"exact_var": (False, False), "exact_std": (False, True),
              "exact_nanvar": (True, False), "exact_nanstd": (True, True)}


def call(function, args, kwargs):
    """A public function (see ``_dispatch.Function``) on dask arrays: a lazy
    dask result, exact and bit-identical to the NumPy result."""
    name = function.name
    arg = function.bind(args, kwargs).arguments
    if name in _REDUCTIONS:
        skip_nan, mean = _REDUCTIONS[name]
        return reduce(name, da.asarray(arg["a"]), arg["axis"], arg["dtype"], arg["out"],
                      arg["keepdims"], arg.get("initial", NO_VALUE), arg["where"], skip_nan,
                      mean)
    if name == "exact_add.accumulate":
        return accumulate(da.asarray(arg["a"]), arg["axis"], arg["dtype"], arg["out"])
    if name == "exact_add.reduceat":
        return _reduceat(function.core, da.asarray(arg["a"]), arg["indices"], arg["axis"],
                         arg["dtype"], arg["out"])
    if name in _PAIRS:
        return _PAIRS[name](arg)
    if name == "exact_dot":
        return dot(arg["a"], arg["b"], arg["axis"], arg["dtype"], arg["out"], arg["keepdims"])
    if name in ("exact_sum_state", "exact_count"):
        return _state_functions(name, da.asarray(arg["a"]), arg["axis"], arg["keepdims"],
                                arg["where"], arg["skip_nan"])
    if name in ("exact_grouped_sum", "exact_grouped_mean"):
        return _grouped(function.core, arg["values"], arg["codes"], arg["ngroups"],
                        arg["dtype"], arg["skip_nan"], name == "exact_grouped_mean")
    if name in ("exact_grouped_var", "exact_grouped_std"):
        return _grouped_variance(name, arg["values"], arg["codes"], arg["ngroups"],
                                 arg["dtype"], arg["skip_nan"], arg["ddof"], arg["correction"])
    if name in _VARIANCES:
        skip_nan, std = _VARIANCES[name]
        return _variance(name, da.asarray(arg["a"]), arg["axis"], arg["dtype"], arg["out"],
                         arg["ddof"], arg["keepdims"], arg["where"], arg["correction"],
                         skip_nan, std)
    if name in ("exact_moving_sum", "exact_moving_mean"):
        return _moving_window(function.core, da.asarray(arg["a"]), arg["window"], arg["axis"],
                              arg["min_count"], name)
    if name in ("exact_moving_var", "exact_moving_std"):
        return _moving_window(function.core, da.asarray(arg["a"]), arg["window"], arg["axis"],
                              arg["min_count"], name, arg["ddof"])
    if name == "kahan_sum":
        return _kahan_sum(function.core, da.asarray(arg["a"]), arg["axis"])
    if name == "merge_states":
        return _merge_states(arg["states"], arg["axis"], arg["complex_parts"])
    if name == "round_state":
        return _round_state(function.core, arg["state"], arg["dtype"])
    if name == "state_mean":
        return _state_mean(function.core, arg["state"], arg["count"], arg["dtype"])
    if name == "kahan_add":
        return _elementwise(function.core, name, function.arrays,
                            function.bind(args, kwargs))
    if name in ("stochastic_round", "stochastic_add"):
        return _stochastic(function.core, name, function.arrays, function.bind(args, kwargs))
    raise TypeError(f"{name}: dask arrays are not supported; pass a NumPy array "
                    "(for example x.compute())")


# ---- variance and standard deviation: mergeable exact moments ---------------

def _moment_dtype(kind):
    comp = () if kind == "real" else (2,)
    return np.dtype([("count", fmt.DTYPE), ("s1", fmt.DTYPE, comp + (STATE_LENGTH,)),
                     ("s2", fmt.DTYPE, comp + (DOT_STATE_LENGTH,)), ("special", bool)])


def _moment_chunk(x, mask, *, axes, kind, skip_nan, func_name):
    """The exact moments of one block over `axes` (kept as length 1)."""
    keep = None if mask is None else np.asarray(mask, bool)
    if skip_nan:
        keep = ~np.isnan(x) if keep is None else keep & ~np.isnan(x)
    order = [i for i in range(x.ndim) if i not in axes] + list(axes)
    outer = tuple(x.shape[i] for i in order[:x.ndim - len(axes)])
    shape = (int(np.prod(outer, dtype=np.int64)), int(np.prod([x.shape[a] for a in axes],
                                                              dtype=np.int64)))
    m = _moments.Moments.of_rows(np.transpose(x, order).reshape(shape),
                                 None if keep is None else
                                 np.transpose(keep, order).reshape(shape), func_name)
    return _moment_records(m, kind).reshape(kept_shape(x.shape, axes))


def _merge_moments(rec, axes, kind, keepdims):
    """Moment records merged over `axes`: counts and flags added, states merged."""
    trailing = 1 if kind == "real" else 2
    name = "dask variance"
    s1 = _state.merge_over(np.asarray(rec["s1"]).astype(fmt.NATIVE), axes, trailing, name,
                           keepdims)
    # The three parts of the dot states (main, fine, huge) merge one by one.
    dot = np.asarray(rec["s2"]).astype(fmt.NATIVE)
    s2 = np.concatenate([_state.merge_over(dot[..., k * STATE_LENGTH:(k + 1) * STATE_LENGTH],
                                           axes, trailing, name, keepdims)
                         for k in range(3)], axis=-1)
    counts = np.sum(rec["count"], axis=axes, keepdims=keepdims, dtype=fmt.NATIVE)
    special = np.any(rec["special"], axis=axes, keepdims=keepdims)
    out = np.empty(counts.shape, _moment_dtype(kind))
    out["count"], out["s1"], out["s2"], out["special"] = counts, s1, s2, special
    return out


def _variance(name, a, axis, dtype, out, ddof, keepdims, where, correction, skip_nan, std):
    if out is not None:
        raise NotImplementedError(f"{name}: out= is not supported for dask arrays; use the "
                                  "returned dask array")
    ddof = _moments.check_ddof(ddof, correction, name)
    spec = ReductionSpec.parse(name, a, axis, keepdims=keepdims, where=where,
                               skip_nan=skip_nan, rounds=False, xp=da)
    result = _moments.result_dtype(a.dtype, dtype, None, name)
    kind, axes = spec.kind, spec.axes
    record = _moment_dtype(kind)
    mask = None if spec.mask is None else spec.mask.rechunk(a.chunks)
    out_chunks = tuple((1,) * len(c) if i in axes else c for i, c in enumerate(a.chunks))
    chunk = functools.partial(_moment_chunk, axes=axes, kind=kind, skip_nan=spec.skip_nan,
                              func_name=name)
    arrays = (a,) if mask is None else (a, mask)
    source = da.map_blocks(lambda x, m=None: chunk(x, m), *arrays, chunks=out_chunks,
                           dtype=record, meta=np.empty((0,) * a.ndim, record))

    def combine(rec, axis=None, keepdims=True, computing_meta=False):
        if computing_meta or not isinstance(rec, np.ndarray) or rec.dtype != record:
            ndim = getattr(rec, "ndim", 0)
            return np.empty((0,) * max(ndim if keepdims else ndim - len(axis), 0), record)
        return _merge_moments(rec, tuple(axis), kind, keepdims)

    def aggregate(rec, axis=None, keepdims=False, computing_meta=False):
        if computing_meta or not isinstance(rec, np.ndarray) or rec.dtype != record:
            ndim = getattr(rec, "ndim", 0)
            return np.empty((0,) * max(ndim if keepdims else ndim - len(axis), 0), result)
        merged = _merge_moments(rec, tuple(axis), kind, keepdims).reshape(-1)
        moments = _moments.Moments(merged["count"], merged["s1"], merged["s2"],
                                   merged["special"])
        res = _moments.finish(moments, ddof, result, std, name)
        res = res.reshape(kept_shape(rec.shape, tuple(axis)) if keepdims else
                          tuple(n for i, n in enumerate(rec.shape) if i not in axis))
        return res[()] if res.ndim == 0 else res

    meta_ndim = a.ndim if keepdims else a.ndim - len(axes)
    return da.reduction(source, chunk=combine, combine=combine, aggregate=aggregate,
                        axis=axes, keepdims=keepdims, dtype=record, concatenate=True,
                        name=name, meta=np.empty((0,) * meta_ndim, result))


def _moment_records(moments, kind):
    """The moment records (_moment_dtype) of the rows of a Moments."""
    rec = np.empty(moments.counts.shape, _moment_dtype(kind))
    rec["count"], rec["s1"], rec["s2"], rec["special"] = (
        moments.counts, moments.s1, moments.s2, moments.special)
    return rec


def _grouped_variance(name, values, codes, ngroups, dtype, skip_nan, ddof, correction):
    """Grouped variances of dask values: per chunk, the exact moments of
    every group (_core.grouped.grouped_moments), merged across the chunks
    (_merge_moments) and each group's variance rounded once."""
    values, kind, codes, ngroups = _grouped_arguments(name, values, codes, ngroups)
    ddof = _moments.check_ddof(ddof, correction, name)
    result = _moments.result_dtype(values.dtype, dtype, None, name)
    record = _moment_dtype(kind)
    std = name == "exact_grouped_std"

    def chunk_records(v, c):
        m = grouped_moments(name, v, c, ngroups, skip_nan)
        return _moment_records(m, kind).reshape(1, ngroups)

    recs = da.map_blocks(chunk_records, values, codes, dtype=record,
                         chunks=((1,) * values.numblocks[0], (ngroups,)), new_axis=[1],
                         meta=np.empty((0, 0), record))

    def combine(rec, axis=None, keepdims=True, computing_meta=False):
        if computing_meta or not isinstance(rec, np.ndarray) or rec.dtype != record:
            ndim = getattr(rec, "ndim", 0)
            return np.empty((0,) * max(ndim if keepdims else ndim - len(axis), 0), record)
        return _merge_moments(rec, tuple(axis), kind, keepdims)

    def aggregate(rec, axes, keepdims):
        merged = _merge_moments(rec, axes, kind, False)
        moments = _moments.Moments(merged["count"], merged["s1"], merged["s2"],
                                   merged["special"])
        return _moments.finish(moments, ddof, result, std, name)

    finish = _Finish(aggregate, result)
    return da.reduction(recs, chunk=combine, combine=combine, aggregate=finish, axis=0,
                        dtype=record, concatenate=True, name=name, meta=finish.meta(1))


# ---- statistics of pairs and matrix products (exact_average, exact_cov,
# exact_corrcoef, exact_linear_regression, exact_matmul) ----------------------

def _tree(parts, merge):
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
    return _tree(parts, _pairs.merge_sums)


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
    total = _tree(parts, _pairs.merge_sums)
    line = dask.delayed(_regression)(total, arg["proportional"], result)
    return _pairs.LinearRegression(*(da.from_delayed(line[k], (), dtype=result)
                                     for k in (0, 1)))


def _pair_block_sums(x, y):
    """(Sums, None) of one block of x and y (their values exactly, any dtypes)."""
    return _pairs.sums_of(_pairs.stack_variables([np.asarray(x), np.asarray(y)])), None


def _regression(total, proportional, result):
    return _pairs.regression_of_sums(total[0], proportional, result)


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
