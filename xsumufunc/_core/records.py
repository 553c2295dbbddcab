"""Records of exact states: build them, merge them, finish them, frame them.

One record per result, in the layouts of ``stateformat.record_dtype``: a
sum record (count, S1), a moments record (count, S1, S2, NaN/Inf flag) and
a dot record (the exact dot state of each component).  The public states
of :mod:`xsumufunc.state` are records framed by a header (``frame``,
``unframe``); the Dask backends merge the same records up their trees.

Merging adds counts and flags and merges every exact state (``states.
merge_over``, one C call per part): associative, commutative and
canonical (the same terms give the same bytes in any order and grouping).
Finishing rounds once, through the code the one-shot functions use, so a
finished state has the bits of the one-shot result on the same data.
"""

import numpy as np

from . import dot as dot_module
from . import dtypes, moments, states
from . import stateformat as fmt
from .grouped import check_groups, grouped_moments, grouped_states
from .spec import ReductionSpec, as_input, warn_empty_mean

# ---- building records ----------------------------------------------------


def empty(family, is_complex, shape=()):
    """Records of no terms (the identity of merge)."""
    return np.zeros(shape, fmt.record_dtype(family, is_complex))


def of_sums(states_, counts, is_complex):
    """Sum records from states (outer + ([2,] LENGTH)) and counts (outer)."""
    rec = empty("sum", is_complex, np.shape(counts))
    rec["count"], rec["s1"] = counts, states.canonical(states_)
    return rec


def of_moments(m, is_complex):
    """Moments records (R,) of a moments.Moments."""
    rec = empty("moments", is_complex, np.shape(m.counts))
    rec["count"], rec["s1"], rec["special"] = m.counts, states.canonical(m.s1), m.special
    rec["s2"] = _canonical_squares(m.s2)
    none = rec["count"] == 0            # rows of left-out terms only: no terms
    rec["s1"][none], rec["s2"][none] = 0, 0
    return rec


def _canonical_squares(s2):
    """S2 dot states with flags that depend on their value only.  Left-out
    terms padded into a row add +0 products to S2's flags; S2's flags are
    never read (its value is, and S1's flags say Inf/NaN), so each part's
    flags become its special bits plus 'had a non -0.0 term' when it is
    non-zero or special: the same bytes for the same terms however they
    were laid out."""
    s2 = _canonical_parts(s2)
    parts = s2.reshape(s2.shape[:-1] + (s2.shape[-1] // fmt.LENGTH, fmt.LENGTH))
    specials = parts[..., fmt.FLAGS] & fmt.SPECIALS
    used = (specials != 0) | np.any(parts[..., :fmt.FLAGS] != 0, axis=-1)
    parts[..., fmt.FLAGS] = specials | np.where(used, fmt.HAS_TERM | fmt.NOT_NEG_ZERO, 0)
    return s2


def sum_records(a, axes, mask, skip_nan):
    """Sum records of ndarray `a` over `axes` (outer shape)."""
    st, counts = states.states_and_counts(a, axes, mask, skip_nan)
    return of_sums(st, counts, a.dtype.kind == "c")


def moment_records(a, axes, mask, skip_nan, func_name):
    """Moments records of ndarray `a` over `axes` (outer shape), where `mask`
    (None: everywhere) and, with skip_nan, not NaN."""
    keep = mask
    if skip_nan:
        keep = ~np.isnan(a) if keep is None else keep & ~np.isnan(a)
    order = [i for i in range(a.ndim) if i not in axes] + list(axes)
    outer = tuple(a.shape[i] for i in order[:a.ndim - len(axes)])
    rows = (int(np.prod(outer, dtype=np.int64)),
            int(np.prod([a.shape[i] for i in axes], dtype=np.int64)))
    m = moments.Moments.of_rows(np.transpose(a, order).reshape(rows),
                                None if keep is None else
                                np.transpose(keep, order).reshape(rows), func_name)
    return of_moments(m, a.dtype.kind == "c").reshape(outer)


def dot_records(a, b, kind):
    """Dot records of NumPy operands with the vector axis last (broadcast
    outer shape): the exact dot state of each component (conj(a).b)."""
    rec = empty("dot", kind == "complex", np.broadcast_shapes(a.shape[:-1], b.shape[:-1]))
    rec["dot"] = _canonical_parts(dot_module.dot_states(a, b, kind))
    return rec


def grouped_sum_records(func_name, values, codes, ngroups, skip_nan):
    """Sum records (ngroups,) of every group."""
    st, counts = grouped_states(func_name, values, codes, ngroups, skip_nan)
    return of_sums(st, counts, st.ndim == 3)


def grouped_moment_records(func_name, values, codes, ngroups, skip_nan):
    """Moments records (ngroups,) of every group."""
    m = grouped_moments(func_name, values, codes, ngroups, skip_nan)
    return of_moments(m, m.s1.ndim == 3)


# ---- merging ---------------------------------------------------------------

def _canonical_parts(parts):
    """Exact dot states (..., k * LENGTH), each of their states canonical."""
    parts = np.asarray(parts)
    split = parts.reshape(parts.shape[:-1] + (parts.shape[-1] // fmt.LENGTH, fmt.LENGTH))
    return states.canonical(split).reshape(parts.shape)


def _states_in(tail):
    """How many exact states a record field of trailing shape `tail` holds."""
    return int(np.prod(tail)) // fmt.LENGTH


def _merged_states(field, outer_ndim, axes, keepdims, func_name):
    """A field of exact states (outer + (..., k * LENGTH)) merged over the
    outer `axes`: each state in it on its own."""
    tail = field.shape[outer_ndim:]
    split = field.reshape(field.shape[:outer_ndim] + (_states_in(tail), fmt.LENGTH))
    split = split.astype(fmt.NATIVE)
    merged = states.merge_over(split, axes, 2, func_name, keepdims)
    return merged.reshape(merged.shape[:merged.ndim - 2] + tail)


def merge(rec, axes, keepdims=False, func_name="merge"):
    """Records merged over their `axes` (a tuple): the records of all their
    terms together, canonical."""
    outer_ndim = rec.ndim
    shape = tuple(1 if i in axes else n for i, n in enumerate(rec.shape) if keepdims
                  or i not in axes)
    out = np.empty(shape, rec.dtype)
    for name in rec.dtype.names:
        field = rec[name]
        if name == "count":
            out[name] = np.sum(field, axis=axes, keepdims=keepdims, dtype=fmt.NATIVE)
        elif name == "special":
            out[name] = np.any(field != 0, axis=axes, keepdims=keepdims)
        else:
            out[name] = _merged_states(field, outer_ndim, axes, keepdims, func_name)
    if "s2" in rec.dtype.names:
        out["s2"] = _canonical_squares(out["s2"])
    return out


# ---- finishing -------------------------------------------------------------

def finish_sum(rec, result, mean, complex_terms):
    """Each record's sum (mean: divided by its count) rounded once into
    `result` (a NumPy scalar for 0-d records)."""
    st = np.asarray(rec["s1"]).astype(fmt.NATIVE)
    counts = None
    if mean:
        counts = np.asarray(rec["count"]).astype(fmt.NATIVE)
        if counts.size and np.any(counts == 0):
            warn_empty_mean(stacklevel=4)
    return states.round_states(st, counts, result, complex_terms)


def moments_of(rec):
    """The moments.Moments of moments records (flattened to rows)."""
    flat = rec.reshape(-1)
    return moments.Moments(flat["count"].astype(fmt.NATIVE), flat["s1"].astype(fmt.NATIVE),
                           flat["s2"].astype(fmt.NATIVE), flat["special"] != 0)


def finish_moments(rec, ddof, result, std, func_name, warn=True):
    """Each record's variance (std: its root) rounded once into `result`."""
    res = moments.finish(moments_of(rec), ddof, result, std, func_name, warn).reshape(rec.shape)
    return res[()] if res.ndim == 0 else res


def finish_dot(rec, result, integer_products):
    """Each record's dot rounded once into `result` (integer_products: +0
    added, as exact_dot gives for integer operands)."""
    res = dot_module.round_dot_states(np.asarray(rec["dot"]).astype(fmt.NATIVE), result)
    if integer_products:
        res = res + np.zeros((), result)
    return res


# ---- framing: the public form ----------------------------------------------

def _name_words(dtype):
    name = dtype.name.encode("ascii")
    width = 8 * fmt.HEADER_NAME_WORDS
    if len(name) > width:
        raise ValueError(f"dtype name {dtype.name!r} is longer than {width} characters")
    return np.frombuffer(name.ljust(width, b"\0"), fmt.DTYPE)


def frame(kind, term_dtype, rec):
    """The framed state (1-D '<i8') of records `rec` of `kind` whose terms
    have `term_dtype`: header, then the records' bytes."""
    code = fmt.KINDS[kind][0]
    head = np.concatenate([
        np.array([fmt.MAGIC, fmt.VERSION, code], fmt.DTYPE), _name_words(term_dtype),
        np.array([rec.ndim, *rec.shape], fmt.DTYPE)])
    body = np.ascontiguousarray(rec).view(fmt.DTYPE).reshape(-1)
    return np.concatenate([head, body])


_KIND_OF_CODE = {code: kind for kind, (code, _) in fmt.KINDS.items()}


def _term_dtype(words, func_name, argname):
    raw = words.astype(fmt.DTYPE).tobytes().rstrip(b"\0")
    try:
        name = raw.decode("ascii")
        return dtypes.ml_dtype_named(name) or np.dtype(name)
    except (UnicodeDecodeError, TypeError):
        raise ValueError(f"{func_name}: {argname} names no dtype of terms ({raw!r})") from None


def unframe(state, func_name, argname="state"):
    """(kind, term dtype, records) of a framed state, checked: ValueError
    naming `argname` for anything that is not a state of this version."""
    arr = np.asarray(state)
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 1 or arr.dtype.kind == "S":
        arr = np.frombuffer(arr.tobytes(), fmt.DTYPE)          # the plain bytes
    elif isinstance(state, (bytes, bytearray, memoryview)):
        arr = np.frombuffer(state, fmt.DTYPE)
    if arr.dtype.kind != "i" or arr.dtype.itemsize != 8 or arr.ndim != 1:
        raise ValueError(f"{func_name}: {argname} must be a state of xsumufunc.state (a 1-D "
                         f"int64 array or its bytes), not {arr.dtype} of shape {arr.shape}")
    words = arr.astype(fmt.DTYPE, copy=False)
    if words.size < fmt.HEADER_WORDS or int(words[0]) != fmt.MAGIC:
        raise ValueError(f"{func_name}: {argname} is not a state of xsumufunc.state (no "
                         "header); raw exact_sum_state arrays go to merge_states/round_state")
    if int(words[1]) != fmt.VERSION:
        raise ValueError(f"{func_name}: {argname} has state format version {int(words[1])}; "
                         f"this xsumufunc reads version {fmt.VERSION} only")
    kind = _KIND_OF_CODE.get(int(words[2]))
    if kind is None:
        raise ValueError(f"{func_name}: {argname} has an unknown kind code {int(words[2])}")
    term_dtype = _term_dtype(words[3:3 + fmt.HEADER_NAME_WORDS], func_name, argname)
    ndim = int(words[fmt.HEADER_WORDS - 1])
    if not 0 <= ndim <= 64 or words.size < fmt.HEADER_WORDS + ndim:
        raise ValueError(f"{func_name}: {argname} has a malformed header")
    shape = tuple(int(n) for n in words[fmt.HEADER_WORDS:fmt.HEADER_WORDS + ndim])
    record = fmt.record_dtype(fmt.KINDS[kind][1], term_dtype.kind == "c")
    body = words[fmt.HEADER_WORDS + ndim:]
    if any(n < 0 for n in shape) or body.size * 8 != record.itemsize * int(np.prod(shape)):
        raise ValueError(f"{func_name}: {argname} has {body.size} words of records, which do "
                         f"not make shape {shape} of {kind} records")
    rec = np.frombuffer(body.tobytes(), record).reshape(shape)
    _check_records(rec, func_name, argname)
    return kind, term_dtype, rec


def _check_records(rec, func_name, argname):
    """ValueError unless every exact state in the records is well formed."""
    for name in rec.dtype.names:
        if name in ("s1", "s2", "dot"):
            field = np.asarray(rec[name])
            tail = field.shape[rec.ndim:]
            states.check_states(field.reshape(field.shape[:rec.ndim]
                                              + (_states_in(tail), fmt.LENGTH)),
                                func_name, argname)
    if "count" in rec.dtype.names and np.any(rec["count"] < 0):
        raise ValueError(f"{func_name}: {argname} has a negative count")


# ---- the NumPy bodies of xsumufunc.state's framed-state functions -----------

def build_sum(a, axis=None, where=True, skip_nan=False):
    a, _ = as_input(a, "sum_state")
    spec = ReductionSpec.parse("sum_state", a, axis, where=where, skip_nan=skip_nan,
                               rounds=False)
    return frame("sum", a.dtype, sum_records(a, spec.axes, spec.mask, spec.skip_nan))


def build_moments(a, axis=None, where=True, skip_nan=False):
    a, _ = as_input(a, "moments_state")
    spec = ReductionSpec.parse("moments_state", a, axis, where=where, skip_nan=skip_nan,
                               rounds=False)
    rec = moment_records(a, spec.axes, spec.mask, spec.skip_nan, "moments_state")
    return frame("moments", a.dtype, rec)


def product_dtype(da, db):
    """The dtype a dot state records for its terms (the products): int64
    for integer operands, else the default result of exact_dot."""
    if dot_module.integer_operands(da, db):
        return np.dtype(np.int64)
    if "c" in (da.kind, db.kind):
        return np.result_type(da, db)
    return dot_module.default_result(da, db)


def build_dot(a, b, axis=-1):
    name = "dot_state"
    dtypes.reject_masked(a, name)
    dtypes.reject_masked(b, name)
    a, b = np.asarray(a), np.asarray(b)
    (da, ka), (db, kb), (axis_a, axis_b), _, _ = dot_module.vector_layout(a, b, axis, name)
    kind = "complex" if "complex" in (ka, kb) else "real"
    rec = dot_records(np.moveaxis(a, axis_a, -1), np.moveaxis(b, axis_b, -1), kind)
    return frame("dot", product_dtype(da, db), rec)


def build_grouped(func_name, values, codes, ngroups, skip_nan, family):
    values, _ = as_input(values, func_name)
    build = grouped_sum_records if family == "sum" else grouped_moment_records
    rec = build(func_name, values, codes, ngroups, skip_nan)
    return frame("grouped_" + family, values.dtype, rec)


def merge_framed(parts):
    """One framed state of all the terms of the framed states `parts`."""
    name = "merge"
    if isinstance(parts, np.ndarray) and parts.ndim == 2:
        parts = list(parts)
    parts = list(parts)
    if not parts:
        raise ValueError(f"{name}: states is empty; give at least one state")
    decoded = [unframe(p, name, f"states[{i}]") for i, p in enumerate(parts)]
    kind, term, first = decoded[0]
    for i, (k, t, r) in enumerate(decoded[1:], 1):
        if (k, t, r.shape) != (kind, term, first.shape):
            raise ValueError(
                f"{name}: states[{i}] is a {k} state of {t} terms and shape {r.shape}, "
                f"states[0] a {kind} state of {term} terms and shape {first.shape}: only "
                "states of one kind, term dtype and shape merge")
    return frame(kind, term, merge(np.stack([r for _, _, r in decoded]), (0,), False, name))


_FINISHES = {"finish_sum": ("sum", "grouped_sum", "moments", "grouped_moments"),
             "finish_mean": ("sum", "grouped_sum", "moments", "grouped_moments"),
             "finish_var": ("moments", "grouped_moments"),
             "finish_std": ("moments", "grouped_moments"),
             "finish_dot": ("dot",)}


def _opened(state, func_name):
    kind, term, rec = unframe(state, func_name)
    if kind not in _FINISHES[func_name]:
        raise ValueError(f"{func_name}: state is a {kind} state; {func_name} takes "
                         f"{' or '.join(_FINISHES[func_name])} states")
    return kind, term, rec


def finish_sums(func_name, state, dtype, mean):
    _, term, rec = _opened(state, func_name)
    kind = "complex" if term.kind == "c" else "real"
    result = dtypes.resolve_result(term, kind, dtype, None, func_name)
    return finish_sum(rec, result, mean, kind == "complex")


def finish_variances(func_name, state, ddof, dtype, correction, std):
    _, term, rec = _opened(state, func_name)
    ddof = moments.check_ddof(ddof, correction, func_name)
    result = moments.result_dtype(term, dtype, None, func_name)
    return finish_moments(rec, ddof, result, std, func_name)


def finish_dots(state, dtype):
    name = "finish_dot"
    _, term, rec = _opened(state, name)
    kind = "complex" if term.kind == "c" else "real"
    result = (dtypes.as_result_dtype(dtype, kind, name, "dtype") if dtype is not None
              else dot_module.default_result(term, term) if kind == "real" else term)
    return finish_dot(rec, result, term.kind in "biu")


def regroup_framed(state, codes, ngroups):
    """A grouped state's group g moved to group codes[g] of `ngroups` (groups
    that land together merged; a negative code drops the group)."""
    name = "regroup"
    kind, term, rec = unframe(state, name)
    if not kind.startswith("grouped_"):
        raise ValueError(f"{name}: state is a {kind} state; regroup takes grouped states")
    codes = np.asarray(codes)
    if codes.dtype.kind not in "iu" or codes.shape != rec.shape:
        raise ValueError(f"{name}: codes must be integers, one per group of the state "
                         f"({rec.shape[0]}), not {codes.dtype} of shape {codes.shape}")
    ngroups = check_groups(name, rec, codes, ngroups)
    if codes.size and codes.max() >= ngroups:
        raise ValueError(f"{name}: ngroups must be a non-negative integer above every code")
    out = np.zeros(ngroups, rec.dtype)
    kept = np.flatnonzero(codes >= 0)
    # Round r merges each target's r-th source group into it (all at once).
    order = kept[np.argsort(codes[kept], kind="stable")]
    targets = codes[order]
    starts = np.searchsorted(targets, targets, side="left")
    rank = np.arange(targets.size) - starts
    for r in range(int(rank.max()) + 1 if rank.size else 0):
        at = rank == r
        g, src = targets[at], rec[order[at]]
        out[g] = src if r == 0 else merge(np.stack([out[g], src]), (0,), False, name)
    # Merged once more on its own: canonical, as any merge leaves a state.
    return frame(kind, term, merge(out[np.newaxis], (0,), False, name))


def info(state):
    """(version, kind, term dtype, shape) of a framed state."""
    kind, term, rec = unframe(state, "state_info")
    return fmt.VERSION, kind, term, rec.shape
