"""Hypothesis strategies for adversarial summation inputs.

Every float strategy produces Python floats that are exactly representable in
the requested input dtype (they are built as ``m * 2**q`` with ``m`` fitting
the format's precision and ``q`` inside its exponent range), so building the
NumPy array is exact and the oracle sees exactly the array's values.

Arrays are kept small (at most ``MAX_TERMS`` elements) so that examples are
cheap.
"""

import functools
import math

import numpy as np
from hypothesis import strategies as st
from oracle import (
    BFLOAT16,
    BOOL_DTYPE,
    COMPLEX64,
    COMPLEX128,
    COMPONENT_DTYPE,
    FLOAT_DTYPES,
    FORMATS,
    INT_DTYPES,
)

MAX_TERMS = 60

SPECIALS = [math.inf, -math.inf, math.nan]


def fmt_of(dtype):
    return FORMATS[np.dtype(dtype)]


def _val(m, q):
    """Exact Python float m * 2**q (|m| < 2**53, result within float64)."""
    return math.ldexp(float(m), q)


cached = functools.lru_cache(maxsize=None)


@cached
def mantissas(p, normal=True):
    """p-bit integer significands, biased towards the interesting ones."""
    top = (1 << p) - 1
    lo = 1 << (p - 1) if normal else 1
    special = sorted({top, top - 1, lo, lo + 1, (lo + top) // 2 | 1, 1 if not normal else lo})
    return st.one_of(st.integers(lo, top), st.sampled_from(special))


@cached
def representable(dtype, qmin=None, qmax=None, normal=None):
    """Finite values representable in ``dtype`` with quantum exponent in
    [qmin, qmax] (default: the whole range, subnormals included)."""
    fmt = fmt_of(dtype)
    qlo = fmt.qmin if qmin is None else min(max(qmin, fmt.qmin), fmt.qmax)
    qhi = fmt.qmax if qmax is None else max(min(qmax, fmt.qmax), qlo)

    @st.composite
    def build(draw):
        q = draw(st.integers(qlo, qhi))
        is_normal = draw(st.booleans()) if normal is None else normal
        m = draw(mantissas(fmt.p, normal=is_normal))
        sign = draw(st.sampled_from([1, -1]))
        return _val(sign * m, q)

    return build()


def split_dyadic(m, q, dtype):
    """Split the exact value m * 2**q into terms representable in ``dtype``
    (chunks of at most p bits).  Returns None if a chunk falls outside the
    format's exponent range."""
    fmt = fmt_of(dtype)
    sign = -1 if m < 0 else 1
    m = abs(m)
    out = []
    mask = (1 << fmt.p) - 1
    while m:
        c = m & mask
        if c:
            if q < fmt.qmin or c.bit_length() + q - 1 > fmt.emax:
                return None
            out.append(_val(sign * c, q))
        m >>= fmt.p
        q += fmt.p
    return out


# ---------------------------------------------------------------------------
# List strategies (lists of Python floats representable in the input dtype)


@cached
def generic_lists(dtype, min_size=0, max_size=MAX_TERMS):
    return st.lists(representable(dtype), min_size=min_size, max_size=max_size)


@cached
@st.composite
def cancellation_lists(draw, dtype):
    """Huge values and their negatives, plus small terms: the exact sum is
    carried entirely by the small terms."""
    fmt = fmt_of(dtype)
    big = draw(st.lists(representable(dtype, qmin=fmt.qmax - 40), min_size=1, max_size=15))
    big += draw(st.lists(representable(dtype), max_size=6))
    small = draw(st.lists(representable(dtype, qmax=fmt.qmin + 30), max_size=10))
    small += draw(st.lists(representable(dtype), max_size=5))
    terms = big + [-x for x in big] + small
    return draw(st.permutations(terms))[:MAX_TERMS]


@cached
@st.composite
def exponent_span_lists(draw, dtype):
    """One power of two (or short mantissa) for many exponents, with mixed
    signs: the exact sum spans the whole exponent range."""
    fmt = fmt_of(dtype)
    exps = draw(st.lists(st.integers(fmt.qmin, fmt.emax), min_size=1, max_size=40, unique=True))
    out = []
    for e in exps:
        m = draw(st.sampled_from([1, 1, 3, (1 << min(fmt.p, e - fmt.qmin + 1)) - 1]))
        q = e - (m.bit_length() - 1)
        if q < fmt.qmin:
            m, q = 1, e
        out.append(_val(draw(st.sampled_from([1, -1])) * m, q))
    return draw(st.permutations(out))


@cached
@st.composite
def tie_lists(draw, dtype, target=None):
    """Terms whose exact sum is exactly a tie (or a tie +- one tiny term) at
    the last bit of ``target`` (default: ``dtype``), in the normal, subnormal
    and overflow ranges; optionally hidden behind a large cancelling pair."""
    target = dtype if target is None else target
    fi, ft = fmt_of(dtype), fmt_of(target)
    piece_min = fi.qmin
    qhi = min(ft.qmax, fi.emax - ft.p + 1)
    use_tiny = draw(st.booleans())
    k = 0
    if use_tiny:
        kmax = min(90, qhi - piece_min - 1)
        if kmax >= 1:
            k = draw(st.integers(1, kmax))
        else:
            use_tiny = False
    qlo = max(ft.qmin, piece_min + 1 + k)
    if qlo > qhi:
        return draw(generic_lists(dtype, min_size=1))
    Q = draw(st.one_of(st.integers(qlo, qhi), st.sampled_from([qlo, qhi])))
    if Q == ft.qmin:  # subnormal range of the target: the ulp is 2**Q for any m
        m = draw(st.one_of(st.integers(0, (1 << ft.p) - 1), st.sampled_from([0, 1, 2])))
    else:
        m = draw(mantissas(ft.p, normal=True))
    half_sign = draw(st.sampled_from([1, -1]))
    terms = split_dyadic(m, Q, dtype)
    terms += split_dyadic(half_sign, Q - 1, dtype)
    if use_tiny:
        terms += split_dyadic(draw(st.sampled_from([1, -1])), Q - 1 - k, dtype)
    if draw(st.booleans()):
        b = draw(representable(dtype, qmin=fi.qmax - 20))
        terms += [b, -b]
    if draw(st.booleans()):
        terms = [-t for t in terms]
    return draw(st.permutations(terms))[:MAX_TERMS]


@cached
@st.composite
def overflow_lists(draw, dtype):
    """Values near the largest finite value, mixed signs: partial sums
    overflow in most orders while the exact sum may be finite."""
    fmt = fmt_of(dtype)
    near_max = representable(dtype, qmin=fmt.qmax - 2, normal=True)
    pos = draw(st.lists(near_max.map(abs), min_size=1, max_size=20))
    neg = draw(st.lists(near_max.map(lambda v: -abs(v)), min_size=0, max_size=20))
    small = draw(st.lists(representable(dtype), max_size=5))
    if draw(st.booleans()):  # make the exact sum finite: cancel all but one
        neg = [-x for x in pos[1:]] + neg[: max(0, len(neg) - len(pos))]
    if draw(st.booleans()):  # half-ulp-of-max tie or near tie
        small.append(_val(1, fmt.qmax - 1))
    return draw(st.permutations(pos + neg + small))[:MAX_TERMS]


@cached
def subnormal_lists(dtype):
    fmt = fmt_of(dtype)
    return st.lists(
        st.one_of(representable(dtype, qmax=fmt.qmin, normal=False),
                  representable(dtype, qmax=fmt.qmin + 2)),
        min_size=1, max_size=MAX_TERMS)


@cached
def zero_lists(dtype):
    return st.one_of(
        st.integers(1, 10).map(lambda n: [-0.0] * n),
        st.lists(st.sampled_from([-0.0, 0.0]), min_size=1, max_size=10),
        st.lists(st.sampled_from([-0.0, -0.0, -0.0, 0.0]), min_size=0, max_size=10),
    )


@cached
@st.composite
def special_lists(draw, dtype):
    base = draw(st.one_of(generic_lists(dtype, max_size=20), overflow_lists(dtype)))
    specials = draw(st.lists(st.sampled_from(SPECIALS), min_size=1, max_size=3))
    out = base + specials
    return draw(st.permutations(out))[:MAX_TERMS]


@cached
def float_lists(dtype, target=None, specials=True):
    """Adversarial lists of Python floats exactly representable in ``dtype``."""
    dtype = np.dtype(dtype)
    options = [
        generic_lists(dtype),
        cancellation_lists(dtype),
        exponent_span_lists(dtype),
        tie_lists(dtype, target if target is not None and np.dtype(target) in FORMATS else None),
        tie_lists(dtype, None),
        overflow_lists(dtype),
        subnormal_lists(dtype),
        zero_lists(dtype),
    ]
    if specials:
        options.append(special_lists(dtype))
    return st.one_of(options)


# ---------------------------------------------------------------------------
# Integer, bool and complex lists


@cached
def int_lists(dtype):
    dtype = np.dtype(dtype)
    if dtype == BOOL_DTYPE:
        return st.lists(st.booleans(), max_size=MAX_TERMS)
    info = np.iinfo(dtype)
    edges = [info.min, info.min + 1, info.max, info.max - 1, 0, 1]
    edges += [v for v in (-1, 2**53 + 1, -(2**53) - 1, 2**62 + 1, 2**32 - 1)
              if info.min <= v <= info.max]
    elems = st.one_of(st.integers(int(info.min), int(info.max)), st.sampled_from(edges))

    @st.composite
    def build(draw):
        xs = draw(st.lists(elems, max_size=MAX_TERMS))
        if info.min < 0 and draw(st.booleans()):  # cancel huge values
            xs = xs + [-x for x in xs if -x >= info.min and -x <= info.max]
        return draw(st.permutations(xs))[:MAX_TERMS]

    return build()


@cached
@st.composite
def complex_lists(draw, dtype, target=None, specials=True):
    comp = COMPONENT_DTYPE[np.dtype(dtype)]
    tcomp = COMPONENT_DTYPE[np.dtype(target)] if target is not None else None
    re = draw(float_lists(comp, tcomp, specials=specials))
    im = draw(float_lists(comp, tcomp, specials=specials))
    n = max(len(re), len(im))
    re = (re + [draw(st.sampled_from([0.0, -0.0]))] * n)[:n]
    im = (im + [draw(st.sampled_from([0.0, -0.0]))] * n)[:n]
    return [complex(r, i) for r, i in zip(re, im)]


@cached
def value_lists(dtype, target=None, specials=True):
    dtype = np.dtype(dtype)
    if dtype in FORMATS:
        return float_lists(dtype, target, specials=specials)
    if dtype in COMPONENT_DTYPE:
        return complex_lists(dtype, target, specials=specials)
    return int_lists(dtype)


def to_array(values, dtype):
    """Exact conversion of a list of representable values to an array."""
    dtype = np.dtype(dtype)
    if dtype == BFLOAT16:
        return np.array(values, dtype=np.float32).reshape(len(values)).astype(BFLOAT16)
    if dtype in COMPONENT_DTYPE:
        arr = np.empty(len(values), dtype=dtype)
        comp = COMPONENT_DTYPE[dtype]
        arr.real = np.array([v.real for v in values], dtype=np.float64).astype(comp)
        arr.imag = np.array([v.imag for v in values], dtype=np.float64).astype(comp)
        return arr
    if dtype.kind in "iub":
        return np.array(values, dtype=object).astype(dtype) if values else np.zeros(0, dtype)
    return np.array(values, dtype=np.float64).reshape(len(values)).astype(dtype)


@cached
def arrays_1d(dtype, target=None, specials=True, min_size=0):
    return value_lists(dtype, target, specials).filter(
        lambda v: len(v) >= min_size).map(lambda v: to_array(v, dtype))


@cached
@st.composite
def shapes(draw, min_dims=1, max_dims=3, max_side=5, max_size=MAX_TERMS):
    ndim = draw(st.integers(min_dims, max_dims))
    shape = []
    size = 1
    for _ in range(ndim):
        side = draw(st.integers(0, max_side))
        if size * max(side, 1) > max_size:
            side = 1
        shape.append(side)
        size *= max(side, 1)
    return tuple(shape)


@cached
@st.composite
def nd_arrays(draw, dtype, target=None, shape=None, specials=True, min_dims=1, max_dims=3):
    """N-d arrays whose elements come from an adversarial list, padded with
    values drawn from that list and its negatives (so that lanes cancel)."""
    dtype = np.dtype(dtype)
    if shape is None:
        shape = draw(shapes(min_dims=min_dims, max_dims=max_dims))
    n = int(np.prod(shape, dtype=np.int64))
    base = list(draw(value_lists(dtype, target, specials)))
    if len(base) < n:
        if dtype.kind in "iub":
            pool = base or [0]
        else:
            pool = base + [-v for v in base] if base else [0.0, -0.0, 1.0]
        base += draw(st.lists(st.sampled_from(pool), min_size=n - len(base), max_size=n - len(base)))
    vals = draw(st.permutations(base))[:n]
    return to_array(vals, dtype).reshape(shape)


# ---------------------------------------------------------------------------
# Axis / where helpers


@cached
@st.composite
def axis_args(draw, ndim):
    """None, an int (possibly negative) or a tuple of distinct axes (given
    with mixed signs)."""
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none" or ndim == 0:
        return None
    if kind == "int":
        ax = draw(st.integers(0, ndim - 1))
        return ax - ndim if draw(st.booleans()) else ax
    axes = draw(st.lists(st.integers(0, ndim - 1), unique=True, min_size=0, max_size=ndim))
    return tuple(ax - ndim if draw(st.booleans()) else ax for ax in axes)


@cached
@st.composite
def where_masks(draw, shape):
    """True, or a boolean mask broadcastable to ``shape``."""
    if draw(st.booleans()):
        return True
    mshape = tuple(s if draw(st.booleans()) else 1 for s in shape)
    if draw(st.booleans()) and len(mshape) > 0:
        mshape = mshape[1:]  # fewer dimensions (broadcast on the left)
    n = int(np.prod(mshape, dtype=np.int64))
    bits = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return np.array(bits, dtype=bool).reshape(mshape)


REAL_INPUTS = list(FLOAT_DTYPES)
ALL_INPUTS = REAL_INPUTS + [COMPLEX64, COMPLEX128] + INT_DTYPES + [BOOL_DTYPE]


def block_shifts(rng, n, most):
    """n exponent shifts in 0..most, constant over blocks of 256 elements (the
    block size of the windowed kernels): they move the exponent window."""
    return np.repeat(rng.integers(0, most + 1, n // 256 + 1), 256)[:n]
