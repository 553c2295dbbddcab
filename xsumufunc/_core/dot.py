"""exact_dot: vector dot products with no product ever rounded."""

import numpy as np

from .._ufuncs import exact_dot_state_round_ufunc, exact_dot_state_ufunc, exact_dot_ufunc
from . import dtypes, rows, states
from . import stateformat as fmt
from .spec import check_out

_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
# Float dtypes whose values are all float32 values (products exact in float64).
NARROW = {_F16, dtypes.BFLOAT16, _F32, *dtypes.CODES}


def _check_operand(x, name):
    dtype = dtypes.native(x.dtype)
    kind = dtypes.input_kind(dtype, f"exact_dot: {name}")
    return dtype, kind


def compute_dtype(da, db):
    """A float dtype that holds every value of both operands exactly (the loops
    take two operands of one dtype)."""
    if da == db and da in dtypes.REAL_RESULTS:
        return da
    if da in NARROW and db in NARROW:
        return _F32          # float16 and bfloat16 values are all float32 values
    return _F64


def default_result(da, db):
    """np.result_type for floats (float16 with bfloat16, and unlike float8,
    float6 and float4 formats: float32); float64 when both operands are bool
    or integer."""
    if da.kind in "biu" and db.kind in "biu":
        return _F64
    if {da, db} == {_F16, dtypes.BFLOAT16}:
        return _F32
    if da != db and (dtypes.is_code(da) or dtypes.is_code(db)):
        # No NumPy promotion between these formats (nor with float16 or
        # bfloat16): float32 holds every value of both; with float64 or an
        # integer, float64.
        return _F32 if da in NARROW and db in NARROW else _F64
    res = np.result_type(da, db)
    return res if res in dtypes.REAL_RESULTS else _F64


def integer_operands(da, db):
    """Are both operands bool or integers?  Then the products are integers
    and a zero dot is +0, as exact_sum of the same products gives: the
    float loops saw 0 * -1 = -0.0, so the callers add +0 to the result."""
    return da.kind in "biu" and db.kind in "biu"


def _parts(x, compute, split=True):
    """x as a list of arrays in `compute` whose sum is x exactly (float64:
    dtypes.float64_parts, two for 64-bit integers beyond 2**53; None for
    those when not split)."""
    if compute == _F64:
        return dtypes.float64_parts(x, split)
    return [x.astype(compute, copy=False)]


def split_pairs(pairs, compute, split=True):
    """`pairs` of (x, y, negate x) with x and y as lists of their exact
    parts in `compute` (_parts); split=False: None where an integer would
    split (the caller takes smaller blocks)."""
    out = []
    for x, y, negate in pairs:
        xs = _parts(x, compute, split)
        ys = None if xs is None else _parts(y, compute, split)
        if ys is None:
            return None
        out.append((xs, ys, negate))
    return out


def operands_of(split, axes=(-1, -1)):
    """Two operands whose one exact dot is the sum of x.y (or -x.y) over the
    split pairs (split_pairs): every part of x paired with every part of y,
    concatenated along the vector axes (axes: x's and y's).  Products of
    parts are exact, so no integer is ever rounded.  One pair of unsplit
    operands comes back as they are (cast, not copied)."""
    lefts, rights = [], []
    for xs, ys, negate in split:
        for u in xs:
            for v in ys:
                lefts.append(-u if negate else u)
                rights.append(v)
    if len(lefts) == 1:
        return lefts[0], rights[0]
    return np.concatenate(lefts, axis=axes[0]), np.concatenate(rights, axis=axes[1])


def exact_operands(pairs, compute, axes=(-1, -1)):
    """operands_of(split_pairs(pairs, compute), axes)."""
    return operands_of(split_pairs(pairs, compute), axes)


def _cast_bytes(operands, compute, wide=False):
    """Bytes of the copies that the dot of the operands in `compute` makes:
    their casts; wide: where 64-bit integers split in two
    (dtypes.float64_parts), both operands concatenated from paired parts."""
    if wide:
        widen = 1
        for x in operands:
            widen *= 2 if dtypes.may_split(x.dtype) else 1
        return widen * sum(x.size * compute.itemsize for x in operands)
    return sum(x.size * compute.itemsize for x in operands if x.dtype != compute)


def _pairs_bytes(pairs, compute, wide=False):
    """Bytes of the copies that one exact dot of `pairs` (x, y, negate x)
    makes: one unnegated pair, its casts (_cast_bytes); several pairs, or a
    negated one, are concatenated from their cast (or negated) parts, which
    are alive together: twice the parts."""
    if len(pairs) == 1 and not pairs[0][2]:
        x, y, _ = pairs[0]
        return _cast_bytes((x, y), compute, wide)
    return 2 * sum(_cast_bytes((x, y), compute, True) for x, y, _ in pairs)


def _dot_in_blocks(pairs, out, compute, part, wide=False):
    """out[...] = the exact dots over the last axis of the sum of x.y (or
    -x.y) over `pairs` of broadcast views (x, y, negate) of one shape,
    rounded once into out, with the operands cast (and concatenated) a block
    at a time (rows.SCRATCH_BYTES): blocks of the leading axis, or for one
    long vector, chunks of it whose exact dot states are merged before one
    rounding.  A block whose 64-bit integers split (dtypes.float64_parts)
    into more than the scratch is taken again in blocks sized for its parts
    (wide)."""
    x0 = pairs[0][0]
    if _pairs_bytes(pairs, compute, wide) <= rows.SCRATCH_BYTES:
        # wide: the block is sized for split integers already.
        split = split_pairs(pairs, compute,
                            wide or _pairs_bytes(pairs, compute, True) <= rows.SCRATCH_BYTES)
        if split is None:
            _dot_in_blocks(pairs, out, compute, part, wide=True)
            return
        exact_dot_ufunc(*operands_of(split), out=out, signature=(compute, compute, part))
    elif x0.ndim > 1 and x0.shape[0] == 1:
        _dot_in_blocks([(x[0], y[0], negate) for x, y, negate in pairs], out[0, ...],
                       compute, part, wide)                    # out[0, ...]: a view
    elif x0.ndim > 1:
        row = [(x[0], y[0], negate) for x, y, negate in pairs]
        step = max(1, rows.SCRATCH_BYTES // max(_pairs_bytes(row, compute, wide), 1))
        for start in range(0, x0.shape[0], step):
            block = slice(start, start + step)
            _dot_in_blocks([(x[block], y[block], negate) for x, y, negate in pairs],
                           out[block], compute, part, wide)
    else:
        total = None
        for st in _chunk_states(pairs, compute, wide):
            total = st if total is None else states.merge_dot_states(np.stack([total, st]))
        exact_dot_state_round_ufunc(total, out=out, signature=(fmt.NATIVE, part))


def _chunk_states(pairs, compute, wide):
    """The exact dot states of chunks of the vectors of `pairs` (see
    _dot_in_blocks), each chunk's copies within rows.SCRATCH_BYTES (wide:
    sized for split integers; a chunk that splits into more is taken again
    in such chunks)."""
    first = [(x[:1], y[:1], negate) for x, y, negate in pairs]
    per_term = (_pairs_bytes(first, compute, True) if wide or len(pairs) > 1 or pairs[0][2]
                else 2 * compute.itemsize)
    chunk = max(1, rows.SCRATCH_BYTES // max(per_term, 1))
    for start in range(0, pairs[0][0].shape[0], chunk):
        sub = [(x[start:start + chunk], y[start:start + chunk], negate)
               for x, y, negate in pairs]
        # wide: the chunk is sized for split integers already (one term at least).
        split = split_pairs(sub, compute,
                            wide or _pairs_bytes(sub, compute, True) <= rows.SCRATCH_BYTES)
        if split is None:
            yield from _chunk_states(sub, compute, True)
            continue
        yield exact_dot_state_ufunc(*operands_of(split), signature=(compute, compute, fmt.NATIVE))


def _loop_views(x, axis, loop):
    """x with its vector axis last, broadcast to the loop shape (a view)."""
    return np.broadcast_to(np.moveaxis(x, axis, -1), loop)


def _zeros_view(x):
    """Zeros of x's dtype and shape, as a broadcast view (no memory)."""
    return np.broadcast_to(np.zeros((), x.dtype), x.shape)


def vector_layout(a, b, axis, func_name="exact_dot"):
    """Checks of exact_dot's operands (NumPy or dask arrays): their (dtype,
    kind), the vector axis of each, the broadcast shape of the other axes,
    and where keepdims puts the length-1 axis (counted from the end, where
    a's axis was)."""
    kinds = (_check_operand(a, "a"), _check_operand(b, "b"))
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"{func_name}: a and b must have at least one dimension")
    try:
        axis_a = np.lib.array_utils.normalize_axis_index(axis, a.ndim, f"{func_name}: a")
        axis_b = np.lib.array_utils.normalize_axis_index(axis, b.ndim, f"{func_name}: b")
    except TypeError:
        raise TypeError(f"{func_name}: axis must be an integer, not {axis!r}") from None
    if a.shape[axis_a] != b.shape[axis_b]:
        raise ValueError(
            f"{func_name}: a and b have different lengths along axis {axis}: "
            f"{a.shape[axis_a]} and {b.shape[axis_b]}")
    loop_a = a.shape[:axis_a] + a.shape[axis_a + 1:]
    loop_b = b.shape[:axis_b] + b.shape[axis_b + 1:]
    try:
        shape = np.broadcast_shapes(loop_a, loop_b)
    except ValueError:
        raise ValueError(f"{func_name}: shapes {a.shape} and {b.shape} do not broadcast "
                         f"(outside axis {axis})") from None
    kept_at = len(shape) - (a.ndim - 1 - axis_a)
    return kinds[0], kinds[1], (axis_a, axis_b), shape, kept_at


def result_dtype(operand_a, operand_b, dtype, out_dtype=None):
    """(kind, result dtype) of exact_dot: `dtype`, else `out_dtype`, else the
    default of the operands' (dtype, kind) pairs (as vector_layout gives
    them); kind is "complex" when either operand is."""
    (da, ka), (db, kb) = operand_a, operand_b
    kind = "complex" if "complex" in (ka, kb) else "real"
    if dtype is not None:
        return kind, dtypes.as_result_dtype(dtype, kind, "exact_dot", "dtype")
    if out_dtype is not None:
        return kind, dtypes.as_result_dtype(out_dtype, kind, "exact_dot", "out dtype")
    return kind, default_result(da, db) if kind == "real" else np.result_type(da, db)


#: Operand dtypes that the compiled loop takes as they are (compute_dtype is
#: the dtype itself, and so is the result).
_PLAIN_CALL_DTYPES = frozenset([_F64, np.dtype(np.float32)])


def dot(a, b, axis=-1, dtype=None, out=None, keepdims=False):
    """The NumPy body of exact_dot (see xsumufunc._api.dot)."""
    if (type(a) is np.ndarray and type(b) is np.ndarray and a.dtype == b.dtype
            and a.dtype in _PLAIN_CALL_DTYPES and a.shape == b.shape and a.ndim
            and axis == -1 and dtype is None and out is None and not keepdims):
        # The common call (two real vectors, or rows, of one float dtype),
        # with the least Python in front of the loop: what the general path
        # below reduces it to.
        return exact_dot_ufunc(a, b)
    a = np.asarray(a)
    b = np.asarray(b)
    (da, ka), (db, kb), (axis_a, axis_b), shape, kept_at = vector_layout(a, b, axis)
    out_shape = shape[:kept_at] + (1,) + shape[kept_at:] if keepdims else shape

    if out is not None:
        out = check_out(out, out_shape, "exact_dot")      # first: out.dtype is read next
    kind, result = result_dtype((da, ka), (db, kb), dtype, None if out is None else out.dtype)

    # Results go to a temporary, copied into out at the end: a call that
    # raises (Ctrl-C) leaves out untouched, and out may overlap the operands.
    part = dtypes.component(result)
    axes = [(axis_a,), (axis_b,), ()]
    if kind == "real":
        compute = compute_dtype(da, db)
        split, wide = None, False
        if _cast_bytes((a, b), compute) <= rows.SCRATCH_BYTES:
            split = split_pairs([(a, b, False)], compute,
                                _cast_bytes((a, b), compute, True) <= rows.SCRATCH_BYTES)
            wide = split is None                 # integers to split, in smaller blocks
        if split is not None:
            res = exact_dot_ufunc(*operands_of(split, (axis_a, axis_b)), axes=axes,
                                  signature=(compute, compute, part))
        else:
            res = np.empty(shape, result)
            loop = shape + (a.shape[axis_a],)
            _dot_in_blocks([(_loop_views(a, axis_a, loop), _loop_views(b, axis_b, loop), False)],
                           res, compute, part, wide)
    else:
        # conj(a) . b, per component, each as one exact dot of twice the length:
        # real = ar.br + ai.bi, imag = ar.bi - ai.br.  A real operand's
        # imaginary part is zeros (their products still decide a zero's sign),
        # a broadcast view: no copy.
        compute = compute_dtype(dtypes.component(da), dtypes.component(db))
        ar, ai = (a.real, a.imag) if ka == "complex" else (a, _zeros_view(a))
        br, bi = (b.real, b.imag) if kb == "complex" else (b, _zeros_view(b))
        components = ([(ar, br, False), (ai, bi, False)], [(ar, bi, False), (ai, br, True)])
        if all(_pairs_bytes(pairs, compute) <= rows.SCRATCH_BYTES for pairs in components):
            res = np.empty(shape, result)
            for comp, pairs in zip((res.real, res.imag), components):
                exact_dot_ufunc(*exact_operands(pairs, compute, (axis_a, axis_b)), out=comp,
                                axes=axes, signature=(compute, compute, part))
        else:
            # In bounded blocks (the parts would be concatenated whole).
            res = np.empty(shape, result)
            loop = shape + (a.shape[axis_a],)
            for comp, pairs in zip((res.real, res.imag), components):
                _dot_in_blocks([(_loop_views(x, axis_a, loop), _loop_views(y, axis_b, loop), neg)
                                for x, y, neg in pairs], comp, compute, part)
    res = np.asarray(res)
    if integer_operands(da, db) and res.size:
        np.add(res, 0, out=res, casting="unsafe")        # see integer_operands
    if keepdims:
        res = np.expand_dims(res, kept_at)
    if out is not None:
        np.copyto(out, res, casting="same_kind")
        return out
    return res[()] if res.ndim == 0 else res


def _real(x):
    return x.real if x.dtype.kind == "c" else x


def _imag(x):
    return x.imag if x.dtype.kind == "c" else np.zeros_like(x)


def dot_states(a, b, kind):
    """The exact dot states of conj(a).b over the last axis of NumPy
    operands: (..., parts, DOT_LENGTH), one part for real operands, two
    (real, imaginary) for complex ones, each one exact dot of pairs of
    components (exact_operands: 64-bit integers split exactly)."""
    compute = compute_dtype(dtypes.component(a.dtype), dtypes.component(b.dtype))
    if kind == "real":
        parts = [[(_real, _real, False)]]
    else:                       # conj(a).b: ar.br + ai.bi, ar.bi - ai.br
        parts = [[(_real, _real, False), (_imag, _imag, False)],
                 [(_real, _imag, False), (_imag, _real, True)]]
    out = []
    for pairs in parts:
        left, right = exact_operands([(x(a), y(b), neg) for x, y, neg in pairs], compute)
        out.append(exact_dot_state_ufunc(left, right, signature=(compute, compute, fmt.NATIVE)))
    return np.stack(out, axis=-2)


def round_dot_states(dot_states_, result):
    """Dot states (..., parts, DOT_LENGTH) rounded once into `result` (a
    NumPy scalar for one result)."""
    rounded = exact_dot_state_round_ufunc(dot_states_, signature=(fmt.NATIVE,
                                                                   dtypes.component(result)))
    if np.dtype(result).kind != "c":
        rounded = rounded[..., 0]
    else:
        out = np.empty(rounded.shape[:-1], result)
        out.real, out.imag = rounded[..., 0], rounded[..., 1]
        rounded = out
    return rounded[()] if rounded.ndim == 0 else rounded
