"""Exact statistics of pairs of variables: weighted means, covariance and
correlation matrices, least-squares lines (the NumPy bodies of
exact_average, exact_cov, exact_corrcoef and exact_linear_regression).

Every result is one rational function of exact sums, rounded once:

- weighted mean: ``Swa / Sw`` with ``Sw = sum(w)``, ``Swa = sum(w*a)``;
- covariance of x and y: ``N / D`` with
  ``N = Sw*Swxy - Swx*Swy`` (n*Sxy - Sx*Sy unweighted) and
  ``D = Sw*(Sw - ddof)``, or ``Sw**2 - ddof*sum(w*aweights)`` with aweights
  (NumPy's ``fact`` times ``Sw``);
- correlation: ``N_xy / sqrt(N_xx * N_yy)``, rounded from its exact square
  (``rational.sqrt_rational``) with N's sign: the diagonal is exactly 1 and
  Cauchy-Schwarz keeps every entry in [-1, 1];
- least squares: slope ``N_xy / N_xx``, intercept
  ``(Sy*Sxx - Sx*Sxy) / N_xx`` (proportional: ``Sxy / Sxx``).

The sums come from the exact loops (sum states, dot states), one pass over
the data, taken in blocks of observations copied contiguous
(``rows.SCRATCH_BYTES``) when the variables are not contiguous rows; the
states of blocks merge by adding, so the values do not depend on the
blocking.  They become Python integers with a common power of two
(``norm.state_integers``, ``norm.dot_state_integers``), their trailing
zero bits moved into the exponent (_trimmed: a few hundred bits instead of
thousands), and each result is rounded once (``rational.round_rational``).
The weighted mean of two float64 arrays over every element is one dot
state and one sum state (_plain_average).  Many short rows of weighted
means are decided together instead (``_short_rows``): a candidate is proven
by the signs of two exact dots (the row against the midpoints around it),
ties go to even, and only the rows left take the Python step.

A weighted product ``w*x*y`` is one exact dot term ``(h + l)*y`` where
``h + l = w*x`` exactly (Dekker's product: exact when neither factor
exceeds 2**995 and ``|w*x|`` is 0 or at least 2**-960, so that its error
term is a float64 value).  Inputs outside those ranges, and 64-bit
integers that a float64 cannot hold, take an exact path in Python
integers (a few microseconds per term).
"""

import functools
import math
import warnings
from collections import namedtuple
from statistics import StatisticsError

import numpy as np

from .._ufuncs import (
    exact_dot_state_round_ufunc,
    exact_dot_state_ufunc,
    exact_dot_ufunc,
    exact_state_merge_ufunc,
    exact_state_round_ufunc,
    exact_sum_state_ufunc,
)
from . import dtypes, norm, rows, states
from . import stateformat as fmt
from .dot import compute_dtype, default_result, exact_operands
from .moments import warn_no_dof
from .rational import round_rational, sqrt_rational
from .reduce import exact_reduce
from .spec import NO_VALUE, normalize_axes

_F64 = np.dtype(np.float64)

#: Dekker's product h + l = w*x is exact within these magnitudes (see above).
_SPLIT_LIMIT = 2.0**995
_PRODUCT_FLOOR = 2.0**-960
_SPLITTER = 134217729.0          # 2**27 + 1: Veltkamp's split into 26-bit halves

#: The exponent of the exact path's integers: every float64 is an integer
#: count of 2**-1074.
_TINY_EXPONENT = -1074


# ---- exact numbers as (integer, exponent) -----------------------------------

def _align(*terms):
    """Integers (m, e) as integers at their common exponent: ([m...], e)."""
    e = min(t[1] for t in terms)
    return [m << (x - e) for m, x in terms], e


def _diff(a, b):
    """a - b of (m, e) numbers (the two-term _align, inline: a step of
    every entry of a covariance matrix)."""
    (x, ex), (y, ey) = a, b
    if ex <= ey:
        return x - (y << (ey - ex)), ex
    return (x << (ex - ey)) - y, ey


def _trimmed(term):
    """(m, e) with m's trailing zero bits moved into e: the sums come as
    counts of 2**-1075 (of 2**-2150 for products), thousands of bits for
    everyday values, whose arithmetic (and a correlation's root) then
    costs tens of microseconds; trimmed, they are as long as the values'
    spread of exponents."""
    m, e = term
    if not m:
        return term
    z = (m & -m).bit_length() - 1
    return m >> z, e + z


def _mul(a, b):
    return a[0] * b[0], a[1] + b[1]


def _round_quotient(num, den, fmt_of_result):
    """The (m, e) quotient num / den rounded once into a format (den != 0)."""
    (n, dn), (d, dd) = num, den
    sign = -1.0 if (n < 0) != (d < 0) else 1.0
    if n == 0:
        return 0.0                                   # an exact zero is +0
    return sign * round_rational(abs(n), abs(d), dn - dd, fmt_of_result)


# ---- the exact sums of a block of variables ---------------------------------

class Sums:
    """Exact sums of p variables (rows of X, n observations) with optional
    weights w: Sw, Swx (p), Swxy (p, p, upper triangle), each (m, e); the
    variables holding a NaN or Inf (special) and whether the weights do."""

    def __init__(self, sw, swx, swxy, special, weights_special):
        self.sw, self.swx = _trimmed(sw), [_trimmed(t) for t in swx]
        self.swxy = [[_trimmed(t) for t in row] for row in swxy]
        self.special, self.weights_special = special, weights_special

    def numerator(self, i, j):
        """Sw*Swxy - Swx*Swy as (m, e)."""
        return _diff(_mul(self.sw, self.swxy[i][j]), _mul(self.swx[i], self.swx[j]))


def _merge(total, new, dot):
    if total is None:
        return new
    stacked = np.stack([total, new], axis=-2)
    return states.merge_dot_states(stacked) if dot else exact_state_merge_ufunc(stacked)


def _blocks(x, extra):
    """Blocks of observations of x (p, n) and of the 1-D arrays in `extra`
    (each n), as contiguous float64: x whole when its rows are contiguous
    float64 already, else copied a block of rows.SCRATCH_BYTES at a time."""
    p, n = x.shape
    if x.dtype == _F64 and (x.strides[1] == 8 or n <= 1) and all(
            e.dtype == _F64 for e in extra):
        yield x, extra
        return
    step = max(1, rows.SCRATCH_BYTES // (8 * (p + len(extra)) or 1))
    for start in range(0, max(n, 1), step):
        piece = slice(start, start + step)
        yield (np.ascontiguousarray(x[:, piece], dtype=_F64),
               [np.ascontiguousarray(e[piece], dtype=_F64) for e in extra])


def _split(v):
    c = _SPLITTER * v
    high = c - (c - v)
    return high, v - high


def two_product(a, b):
    """h, l with h + l = a*b exactly where exact_product_ok (Dekker)."""
    h = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return h, ((ah * bh - h) + ah * bl + al * bh) + al * bl


def exact_product_ok(a, b, h):
    """Where Dekker's product of a and b (h their rounded product) is exact."""
    with np.errstate(invalid="ignore"):
        zero = (a == 0) | (b == 0)
        return zero | ((np.abs(h) >= _PRODUCT_FLOOR) & (np.abs(a) < _SPLIT_LIMIT)
                       & (np.abs(b) < _SPLIT_LIMIT))


def _special_flags(flags):
    """Whether flags (ints or an int64 array) say NaN or Inf."""
    return (flags & fmt.SPECIALS) != 0


def _specials(sum_states):
    return _special_flags(sum_states[..., fmt.FLAGS])


#: Unweighted sums of at most this many products take every pair of
#: variables in one call of the dot loop (their rows gathered: a copy).
_GATHERED_TERMS = 1 << 12


@functools.lru_cache(maxsize=16)
def _pairs_of(p):
    """The pairs i <= j of p variables, row-major: (first rows, second rows)."""
    return np.triu_indices(p)


def _fast_sums(x, w):
    """Sums of float64-exact variables x (p, n) with float64-exact weights
    w (n,) or None; None when a weighted product is outside Dekker's range."""
    p = len(x)
    s1 = sw = sdot = swdot = None
    for block, extra in _blocks(x, [] if w is None else [w]):
        s1 = _merge(s1, exact_sum_state_ufunc(block, signature=(_F64, fmt.NATIVE)), False)
        if w is None and p * (p + 1) // 2 * block.shape[1] <= _GATHERED_TERMS:
            # Few terms: every pair i <= j in one call (row-major, as below).
            first, second = _pairs_of(p)
            # (take, not fancy indexing: a third of its fixed cost.)
            new = [exact_dot_state_ufunc(block.take(first, axis=0), block.take(second, axis=0),
                                         signature=(_F64, _F64, fmt.NATIVE))]
        elif w is None:
            new = [exact_dot_state_ufunc(block[i], block[i:], signature=(_F64, _F64, fmt.NATIVE))
                   for i in range(p)]
        else:
            wb = extra[0]
            sw = _merge(sw, exact_sum_state_ufunc(wb, signature=(_F64, fmt.NATIVE)), False)
            swdot = _merge(swdot, exact_dot_state_ufunc(
                wb, block, signature=(_F64, _F64, fmt.NATIVE)), True)
            # Only finite terms need Dekker's product: a NaN or Inf makes its
            # variable (or all, in w) NaN anyway.
            clean = np.where(np.isfinite(block) & np.isfinite(wb), block, 0.0)
            h, low = two_product(wb, clean)
            if not np.all(exact_product_ok(wb, clean, h)):
                return None
            new = [states.merge_dot_states(np.stack([
                exact_dot_state_ufunc(h[i], block[i:], signature=(_F64, _F64, fmt.NATIVE)),
                exact_dot_state_ufunc(low[i], block[i:], signature=(_F64, _F64, fmt.NATIVE))],
                axis=-2)) for i in range(p)]
        flat = new[0] if len(new) == 1 else np.concatenate(new, axis=0)
        sdot = _merge(sdot, flat, True)
    # A Python step per variable: cheaper than an array's for a few.
    special = [_special_flags(flags) for flags in s1[:, fmt.FLAGS].tolist()]
    if w is None:
        n = x.shape[1]
        sw, swx = (n, 0), [(m, fmt.UNIT_EXPONENT) for m in norm.state_integers(s1)]
        weights_special = False
    else:
        weights_special = bool(_specials(sw))
        sw = (norm.state_integer(sw), fmt.UNIT_EXPONENT)
        values, e = norm.dot_state_integers(swdot)
        swx = [(m, e) for m in values]
    values, e = norm.dot_state_integers(sdot)
    swxy, k = [[None] * p for _ in range(p)], 0
    for i in range(p):
        for j in range(i, p):
            swxy[i][j] = swxy[j][i] = (values[k], e)
            k += 1
    return Sums(sw, swx, swxy, special, weights_special)


def _tiny_integer(v):
    """A finite value as an integer count of 2**-1074 (exact)."""
    num, den = v.as_integer_ratio()
    return num * ((1 << -_TINY_EXPONENT) // den)


def _python_values(row):
    """A row's values as Python numbers (floats widened exactly), and
    whether one is a NaN or Inf."""
    if row.dtype.kind not in "biuO":
        row = row.astype(_F64)
    values = row.tolist()
    special = any(isinstance(v, float) and not math.isfinite(v) for v in values)
    return values, special


def _exact_sums(x, w):
    """Sums in Python integers (any real values, any range)."""
    if w is None:
        return _exact_sums_weighted_ints(x, [1] * x.shape[1], 0, False)
    values, special = _python_values(w)
    ws = [0] * len(values) if special else [_tiny_integer(v) for v in values]
    return _exact_sums_weighted_ints(x, ws, _TINY_EXPONENT, special)


def _float64_or_none(v):
    """v as float64 values when exact (None for 64-bit integers beyond 2**53)."""
    parts = dtypes.float64_parts(v, split=False)
    return None if parts is None else parts[0]


def sums_of(x, w=None):
    """Sums of the variables x (p, n) with weights w (n,) or None."""
    fx = (None if x.dtype == object else _float64_or_none(x) if x.dtype.kind in "biu"
          else x)
    fw = None if w is None else (_float64_or_none(w) if w.dtype.kind in "biu" else w)
    result = None
    if fx is not None and (w is None or fw is not None):
        result = _fast_sums(fx, fw)
    return result if result is not None else _exact_sums(x, w)


# ---- weights ----------------------------------------------------------------

def _check_real(a, func_name, argname):
    a = np.asarray(a)
    dtypes.reject_masked(a, func_name)
    kind = dtypes.input_kind(a.dtype, f"{func_name}: {argname}")
    if kind != "real":
        raise TypeError(f"{func_name}: {argname} must be real (bool, integer or float), "
                        f"not {a.dtype}")
    return a.astype(dtypes.native(a.dtype), copy=False)


def _weight(v, n, func_name, argname, integer):
    v = _check_real(v, func_name, argname)
    if v.ndim != 1:
        raise ValueError(f"{func_name}: {argname} must be one-dimensional, not shape {v.shape}")
    if len(v) != n:
        raise ValueError(f"{func_name}: {argname} has {len(v)} values for {n} observations")
    if integer and v.dtype.kind == "f" and not np.all(np.isfinite(v) & (v == np.round(v))):
        raise TypeError(f"{func_name}: fweights must be integer")
    if np.any(v < 0):
        raise ValueError(f"{func_name}: {argname} cannot be negative")
    return v


def checked_weights(fweights, aweights, n, func_name):
    """fweights and aweights checked by NumPy's rules (None where not given)."""
    f = None if fweights is None else _weight(fweights, n, func_name, "fweights", True)
    a = None if aweights is None else _weight(aweights, n, func_name, "aweights", False)
    return f, a


# ---- covariance and correlation ---------------------------------------------

def _variables(m, rowvar, func_name, argname):
    m = _check_real(m, func_name, argname)
    if m.ndim > 2:
        raise ValueError(f"{func_name}: {argname} has more than 2 dimensions")
    x = m.reshape(1, -1) if m.ndim < 2 else m
    if not rowvar and x.shape[0] != 1:
        x = x.T
    return x


def _stack(x, y):
    if y is None:
        return x
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"all the input array dimensions except for the concatenation axis "
                         f"must match: {x.shape[1]} and {y.shape[1]} observations")
    if x.dtype == y.dtype:
        return np.concatenate([x, y], axis=0)
    # Every value of both as a float64, or else as Python numbers (exact path).
    parts = [_float64_or_none(v) if v.dtype.kind in "biu" else v.astype(_F64) for v in (x, y)]
    if parts[0] is None or parts[1] is None:
        parts = [v.astype(object) if v.dtype.kind in "biu" else v.astype(_F64).astype(object)
                 for v in (x, y)]
    return np.concatenate(parts, axis=0)


def _cov_result(dtype, func_name):
    if dtype is None:
        return _F64
    return dtypes.as_result_dtype(dtype, "real", func_name, "dtype")


class CovInputs:
    """The checked inputs of exact_cov / exact_corrcoef."""

    def __init__(self, m, y, rowvar, fweights, aweights, func_name):
        x = _variables(m, rowvar, func_name, "m")
        if x.shape[0] and y is not None:
            x = _stack(x, _variables(y, rowvar, func_name, "y"))
        self.x = x
        self.f, self.a = (checked_weights(fweights, aweights, x.shape[1], func_name)
                          if x.shape[0] else (None, None))


def _weights_product(f, a):
    """f*a as float64 when exact, else None."""
    if f is None or a is None:
        w = f if a is None else a
        if w is not None and w.dtype.kind in "biu":
            return _float64_or_none(w)
        return w if w is None else w.astype(_F64, copy=False)
    ff = _float64_or_none(f) if f.dtype.kind in "biu" else f.astype(_F64)
    if ff is None:
        return None
    af = a.astype(_F64, copy=False)
    h, low = two_product(ff, af)
    ok = exact_product_ok(ff, af, h) & (low == 0) & np.isfinite(h)
    return h if bool(np.all(ok)) else None


def cov_sums(inputs):
    """The Sums of a CovInputs, and sum(w * aweights) as (m, e) (or None)."""
    return sums_with_weights(inputs.x, inputs.f, inputs.a)


def sums_with_weights(x, f, a):
    """The Sums of variables x (p, n) with checked fweights f and aweights a
    (or None), and sum(w * aweights) as (m, e) (None without aweights)."""
    w = _weights_product(f, a) if (f is not None or a is not None) else None
    weighted = f is not None or a is not None
    if weighted and w is None:
        return _exact_cov_sums(x, f, a)
    sums = sums_of(x, w)
    swa = None
    if a is not None and not sums.weights_special:
        st = exact_dot_state_ufunc(w, a.astype(_F64, copy=False),
                                   signature=(_F64, _F64, fmt.NATIVE))
        swa = norm.dot_state_integer(st)
    return sums, swa


def _exact_cov_sums(x, f, a):
    """sums_with_weights in Python integers, for weights whose product is no
    float64 (or fweights beyond 2**53): w = f * a as integers times 2**ew."""
    n = x.shape[1]
    fi = [1] * n if f is None else [int(v) for v in f.tolist()]
    special = False
    if a is None:
        ai, ew = [1] * n, 0
    else:
        values, special = _python_values(a)
        ai = [0] * n if special else [_tiny_integer(v) for v in values]
        ew = _TINY_EXPONENT
    w = [p * q for p, q in zip(fi, ai)]
    sums = _exact_sums_weighted_ints(x, w, ew, special)
    if a is None or special:
        return sums, None
    return sums, (sum(p * q for p, q in zip(w, ai)), 2 * ew)


def _exact_sums_weighted_ints(x, ws, ew, weights_special):
    """_exact_sums with the weights given as a list of integers times 2**ew."""
    p = len(x)
    rows_ = [_python_values(row) for row in x]
    special = [s for _, s in rows_]
    cols = [[0] * len(values) if s else [_tiny_integer(v) for v in values]
            for values, s in rows_]
    e1 = ew + _TINY_EXPONENT
    swx = [(sum(a * b for a, b in zip(ws, cols[i])), e1) for i in range(p)]
    swxy = [[None] * p for _ in range(p)]
    for i in range(p):
        wx = [a * b for a, b in zip(ws, cols[i])]
        for j in range(i, p):
            swxy[i][j] = swxy[j][i] = (sum(a * b for a, b in zip(wx, cols[j])),
                                       e1 + _TINY_EXPONENT)
    return Sums((sum(ws), ew), swx, swxy, special, weights_special)


def _check_ddof(ddof, bias, func_name):
    if ddof is None:
        return 0 if bias else 1
    if isinstance(ddof, (bool, np.bool_)) or not isinstance(
            ddof, (int, float, np.integer, np.floating)) or ddof != int(ddof):
        raise ValueError(f"{func_name}: ddof must be integer, not {ddof!r}")
    return int(ddof)


def _denominator(sums, swa, ddof, has_aweights):
    """Sw*fact of NumPy's cov, exactly, as (m, e)."""
    sw = sums.sw
    if has_aweights and ddof:
        return _diff(_mul(sw, sw), (ddof * swa[0], swa[1]))
    return _mul(sw, _diff(sw, (ddof, 0)))


def _zero_weights(sums):
    return sums.sw[0] == 0 and not sums.weights_special


def cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype):
    """The NumPy body of exact_cov."""
    name = "exact_cov"
    ddof = _check_ddof(ddof, bias, name)
    result = _cov_result(dtype, name)
    inputs = CovInputs(m, y, rowvar, fweights, aweights, name)
    p = inputs.x.shape[0]
    if p == 0:
        return np.array([], result).reshape(0, 0)
    sums, swa = cov_sums(inputs)
    weighted = inputs.f is not None or inputs.a is not None
    return cov_of_sums(sums, swa, ddof, weighted, inputs.a is not None, result)


def cov_of_sums(sums, swa, ddof, weighted, has_aweights, result, stacklevel=3):
    """The covariance matrix of exact Sums (squeezed as NumPy's)."""
    p = len(sums.swx)
    if weighted and _zero_weights(sums):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    den = None if sums.weights_special else _denominator(sums, swa, ddof, has_aweights)
    if den is not None and den[0] <= 0:
        warn_no_dof(stacklevel=stacklevel + 1)
    fmt_of_result = dtypes.FORMATS[result]
    out = np.empty((p, p), result)
    for i in range(p):
        for j in range(i, p):
            if sums.weights_special or sums.special[i] or sums.special[j]:
                value = np.nan
            else:
                num = sums.numerator(i, j)
                if den[0] <= 0:
                    value = np.nan if num[0] == 0 else (np.inf if num[0] > 0 else -np.inf)
                else:
                    value = _round_quotient(num, den, fmt_of_result)
            out[i, j] = out[j, i] = value
    return out.squeeze()


def merge_sums(first, second):
    """Two (Sums, swa) of disjoint observations of the same variables, added
    exactly (how the Dask backend merges blocks)."""
    (a, wa), (b, wb) = first, second

    def add(u, v):
        (x, y), e = _align(u, v)
        return x + y, e

    p = len(a.swx)
    swxy = [[add(a.swxy[i][j], b.swxy[i][j]) for j in range(p)] for i in range(p)]
    sums = Sums(add(a.sw, b.sw), [add(u, v) for u, v in zip(a.swx, b.swx)], swxy,
                [u or v for u, v in zip(a.special, b.special)],
                a.weights_special or b.weights_special)
    return sums, (None if wa is None or wb is None else add(wa, wb))


def correlations(sums, p, fmt_of_result, result):
    """The (p, p) matrix of N_ij / sqrt(N_ii N_jj) of `sums`, each rounded
    once; NaN where a variable is special or has no spread (a
    RuntimeWarning then, as NumPy's division)."""
    out = np.empty((p, p), result)
    diag = [None if sums.special[i] else sums.numerator(i, i) for i in range(p)]
    invalid = False
    for i in range(p):
        for j in range(i, p):
            if sums.weights_special or diag[i] is None or diag[j] is None or \
                    diag[i][0] == 0 or diag[j][0] == 0:
                out[i, j] = out[j, i] = np.nan
                invalid = True
                continue
            if i == j:
                out[i, i] = 1.0
                continue
            num = sums.numerator(i, j)
            # All three are integers times the same power of two, which cancels.
            dx, dy, n = _same_exponent(diag[i], diag[j], num)
            r = sqrt_rational(n * n, dx * dy, 0, fmt_of_result)
            out[i, j] = out[j, i] = -r if n < 0 else r
    if invalid:
        warnings.warn("invalid value encountered in divide", RuntimeWarning, stacklevel=4)
    return out


def _same_exponent(*terms):
    values, _ = _align(*terms)
    return values


def corrcoef(x, y, rowvar, dtype):
    """The NumPy body of exact_corrcoef."""
    name = "exact_corrcoef"
    result = _cov_result(dtype, name)
    inputs = CovInputs(x, y, rowvar, None, None, name)
    p = inputs.x.shape[0]
    if p == 0:
        return np.array([], result).reshape(0, 0)
    if inputs.x.shape[1] == 0:
        warn_no_dof(stacklevel=3)
    sums, _ = cov_sums(inputs)
    out = correlations(sums, p, dtypes.FORMATS[result], result).squeeze()
    return out[()] if out.ndim == 0 else out          # NumPy: a scalar for one variable


# ---- least squares ----------------------------------------------------------

LinearRegression = namedtuple("LinearRegression", ("slope", "intercept"))


def linear_regression(x, y, proportional):
    """The NumPy body of exact_linear_regression."""
    name = "exact_linear_regression"
    x = _check_real(x, name, "x")
    y = _check_real(y, name, "y")
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"{name}: x and y must be one-dimensional, not shapes "
                         f"{x.shape} and {y.shape}")
    n = len(x)
    if len(y) != n:
        raise StatisticsError("linear regression requires that both inputs have same number "
                              "of data points")
    if n < 2:
        raise StatisticsError("linear regression requires at least two data points")
    result = default_result(x.dtype, y.dtype)
    sums = sums_of(_stack(x.reshape(1, -1), y.reshape(1, -1)))
    return regression_of_sums(sums, proportional, result)


def regression_of_sums(sums, proportional, result):
    """The LinearRegression of the exact Sums of (x, y)."""
    fmt_of_result = dtypes.FORMATS[result]
    if sums.special[0] or sums.special[1]:
        return LinearRegression(result.type(np.nan), result.type(np.nan))
    sxx, sxy = sums.swxy[0][0], sums.swxy[0][1]
    if proportional:
        if sxx[0] == 0:
            raise StatisticsError("x is constant")
        return LinearRegression(result.type(_round_quotient(sxy, sxx, fmt_of_result)),
                                result.type(0.0))
    nxx = sums.numerator(0, 0)
    if nxx[0] == 0:
        raise StatisticsError("x is constant")
    slope = _round_quotient(sums.numerator(0, 1), nxx, fmt_of_result)
    sx, sy = sums.swx
    top = _diff(_mul(sy, sxx), _mul(sx, sxy))
    intercept = _round_quotient(top, nxx, fmt_of_result)
    return LinearRegression(result.type(slope), result.type(intercept))


# ---- weighted mean ----------------------------------------------------------

def _average_dtype(a, w):
    """NumPy's result dtype of np.average(a, weights=w) (float64 beside
    formats NumPy does not promote)."""
    if a.dtype.kind in "biu" and w.dtype.kind in "biu":
        return _F64
    try:
        res = np.result_type(a.dtype, w.dtype, _F64) if a.dtype.kind in "biu" \
            else np.result_type(a.dtype, w.dtype)
    except TypeError:
        return default_result(a.dtype, w.dtype)
    return res if res in dtypes.REAL_RESULTS else _F64


def _weights_like(a, w, axes, func_name):
    """w broadcast against a by NumPy's rules (np.average's errors)."""
    if a.shape == w.shape:
        return w
    if axes is None:
        raise TypeError(f"{func_name}: Axis must be specified when shapes of a and weights "
                        "differ.")
    if w.shape != tuple(a.shape[ax] for ax in axes):
        raise ValueError(f"{func_name}: Shape of weights must be consistent with shape of a "
                         "along specified axis.")
    w = w.transpose(np.argsort(axes))
    return w.reshape(tuple(s if ax in axes else 1 for ax, s in enumerate(a.shape)))


def _rows_over(x, axes, outer_shape):
    """x with the axes last, as rows (R, K) (a view when the layout allows)."""
    order = [i for i in range(x.ndim) if i not in axes] + list(axes)
    count = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
    return np.transpose(x, order).reshape((int(np.prod(outer_shape, dtype=np.int64)), count))


def _dot_states_rows(x, y):
    """Exact dot states of the rows of x and y (R, K), any real dtypes."""
    compute = compute_dtype(dtypes.native(x.dtype), dtypes.native(y.dtype))
    left, right = exact_operands([(x, y, False)], compute)
    return exact_dot_state_ufunc(left, right, signature=(compute, compute, fmt.NATIVE))


def _plain_average(a, w):
    """The weighted mean of float64 values a by float64 weights w (1-D, of
    one length): the exact sum(w*a) and sum(w) from one dot state and one
    sum state, their quotient rounded once (what the general path does for
    one row, without its steps).  None where it would not round a
    quotient: a NaN or Inf among the terms or weights, or weights summing
    to zero exactly (the general path gives the IEEE quotient or raises)."""
    top = exact_dot_state_ufunc(a, w, signature=(_F64, _F64, fmt.NATIVE))
    bottom = exact_sum_state_ufunc(w, signature=(_F64, fmt.NATIVE))
    # The flags of both (the dot state's main part comes first), read once.
    if _specials(bottom | top[:fmt.LENGTH]):
        return None
    den = norm.state_integer(bottom)
    if den == 0:
        return None
    # One quotient: rounding the long integers costs less than trimming them.
    return _F64.type(_round_quotient(norm.dot_state_integer(top), (den, fmt.UNIT_EXPONENT),
                                     dtypes.FORMATS[_F64]))


def average(a, axis, weights, returned, keepdims):
    """The NumPy body of exact_average."""
    if (type(a) is np.ndarray and type(weights) is np.ndarray and a.dtype == _F64
            and weights.dtype == _F64 and a.shape == weights.shape and a.size
            and axis is None and not returned and not keepdims):
        # The common call: two float64 arrays of one shape, every element.
        done = _plain_average(a.reshape(-1), weights.reshape(-1))
        if done is not None:
            return done
    name = "exact_average"
    a = _check_real(a, name, "a")
    axes = None if axis is None else normalize_axes(axis, a.ndim, name)
    if weights is None:
        avg = exact_reduce(name, a, axis, None, None, keepdims, NO_VALUE, True, False,
                           mean=True)
        if not returned:
            return avg
        count = a.size // max(np.size(avg), 1)
        scl = np.asarray(avg).dtype.type(count)
        return avg, (np.full(np.shape(avg), scl) if np.ndim(avg) else scl)
    w = _check_real(weights, name, "weights")
    result = _average_dtype(a, w)
    w = _weights_like(a, w, axes, name)
    reduce_axes = tuple(range(a.ndim)) if axes is None else axes
    outer_shape = tuple(n for i, n in enumerate(a.shape) if i not in reduce_axes)
    kept = tuple(1 if i in reduce_axes else n for i, n in enumerate(a.shape))
    wb = np.broadcast_to(w, a.shape)
    a_rows = _rows_over(a, reduce_axes, outer_shape)
    w_rows = _rows_over(wb, reduce_axes, outer_shape)
    shared = w.shape != wb.shape
    fast = _short_rows(a_rows, w_rows, result) if not returned else None
    if fast is None:
        out, den = _exact_rows(a_rows, w_rows, _weight_sums(w, wb, reduce_axes, outer_shape),
                               result)
    else:
        out = fast[0]
        left = np.flatnonzero(~fast[1])
        if left.size:
            sums = (states.exact_sum_state(w.reshape(1, -1), axis=1), True) if shared else (
                states.exact_sum_state(w_rows[left], axis=1), False)
            out[left] = _exact_rows(a_rows[left], w_rows[left], sums, result)[0]
    avg = out.reshape(kept if keepdims else outer_shape)
    avg = avg[()] if avg.ndim == 0 else avg
    if not returned:
        return avg
    scl = np.array([round_rational(abs(d), 1, fmt.UNIT_EXPONENT, dtypes.FORMATS[result])
                    * (-1.0 if d < 0 else 1.0) for d in den], result)
    scl = scl.reshape(np.shape(avg))
    return avg, scl[()] if scl.ndim == 0 else scl


def _exact_rows(a_rows, w_rows, sw, result):
    """The weighted means of rows from their exact states, each rounded by
    the rational path (a Python step per row), and the weight sums as
    integers in units of 2**UNIT_EXPONENT.  sw: (weight sum states, shared)."""
    swa = _dot_states_rows(a_rows, w_rows)
    fmt_of_result = dtypes.FORMATS[result]
    num, e_num = norm.dot_state_integers(swa)
    den = norm.state_integers(sw[0])
    den_special = _specials(sw[0]).reshape(-1).tolist()
    if len(den) == 1 and len(num) != 1:
        # One weight sum for every result (none when there are no results).
        den, den_special = den * len(num), den_special * len(num)
    if any(d == 0 and not s for d, s in zip(den, den_special)):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    num_special = _specials(swa.reshape(-1, 3, fmt.LENGTH)[:, 0]).tolist()
    out = np.empty(len(num), result)
    for i, (n, d) in enumerate(zip(num, den)):
        if num_special[i] or den_special[i]:
            out[i] = _special_quotient(swa[i], sw[0].reshape(-1, fmt.LENGTH)[
                0 if sw[1] else i])
        else:
            out[i] = _round_quotient((n, e_num), (d, fmt.UNIT_EXPONENT), fmt_of_result)
    return out, den


#: Rows of at most this many terms are averaged by the vectorized proof
#: (_short_rows): its copies cost about 50 bytes a term, and a longer row
#: pays the exact path's few microseconds easily.
SHORT_ROW_TERMS = 256

_BRACKETED = (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.float16))


def _short_rows(a_rows, w_rows, result):
    """(values, decided) of the weighted means of short rows, or None where
    this path does not apply.  A candidate c (first the float64 quotient of
    the rounded sums, rounded into result) is the correctly rounded X/Y
    (X = sum(w*a), Y = sum(w)) iff X - m*Y has the sign of Y at the midpoint
    m below c and the opposite sign at the one above; m = c -+ g with g half
    the gap to c's neighbour, so X - m*Y = sum(w*a) - c*sum(w) +- g*sum(w),
    one exact dot of the row extended by the weights twice, whose rounding
    keeps the sign; a zero is a tie, decided to even).  A candidate beyond
    a midpoint is replaced by its neighbour on that side, twice."""
    count, k = a_rows.shape
    if k > SHORT_ROW_TERMS or count < 2 or result not in _BRACKETED:
        return None
    a64, w64 = (_float64_or_none(v) if v.dtype.kind in "biu" else v.astype(_F64, copy=False)
                for v in (a_rows, w_rows))
    if a64 is None or w64 is None:
        return None
    sig = (_F64, _F64, _F64)
    den = exact_dot_ufunc(np.ones_like(w64), w64, signature=sig)
    with np.errstate(all="ignore"):
        c = (exact_dot_ufunc(a64, w64, signature=sig) / den).astype(result)
    left = np.concatenate([a64, w64, w64], axis=1)
    decided = np.zeros(count, bool)
    todo = np.arange(count)
    for _ in range(3):
        below, above, ok = _brackets(left[todo], w64[todo], c[todo], np.sign(den[todo]))
        # Ties: X/Y is the midpoint; the neighbour wins where c is odd.
        odd = (c[todo].view(f"u{result.itemsize}") & 1) == 1
        down = (below < 0) | (odd & (below == 0))
        up = (above > 0) | (odd & (above == 0))
        decided[todo] = ok & ~down & ~up
        move = ok & (down | up)
        with np.errstate(all="ignore"):
            c[todo[move]] = np.nextafter(c[todo[move]], np.where(
                down[move], -np.inf, np.inf).astype(result))
        todo = todo[move]
        if not todo.size:
            break
    return c, decided


def _brackets(left, w64, c, sign):
    """(X - m*Y) * sign(Y) at the midpoints m below and above the candidates
    c (see _short_rows), and where they could be formed."""
    with np.errstate(all="ignore"):
        c64 = c.astype(_F64)
        g_up = 0.5 * (np.nextafter(c, c.dtype.type(np.inf)).astype(_F64) - c64)
        g_down = 0.5 * (c64 - np.nextafter(c, c.dtype.type(-np.inf)).astype(_F64))
    ok = (np.isfinite(c64) & (c64 != 0) & np.isfinite(g_up) & np.isfinite(g_down)
          & (g_up >= 2.0**-1073) & (g_down >= 2.0**-1073) & (sign != 0))
    c64, g_up, g_down = (np.where(ok, v, 0.0)[:, None] for v in (c64, g_up, g_down))
    shape = w64.shape
    below, above = (_signed_dots(left, np.concatenate(
        [w64, np.broadcast_to(-c64, shape), np.broadcast_to(g, shape)], axis=1))
        for g in (g_down, -g_up))
    # Where not ok (a NaN or Inf, a zero weight sum: sign 0) the products
    # are left unused: quietly, as a NaN or Inf times 0 flags invalid.
    with np.errstate(all="ignore"):
        return below * sign, above * sign, ok


def _signed_dots(left, right):
    """The exact dots of the rows of left and right, rounded to float64, with
    the sign of the exact value: a rounded 0 is a tie only when the exact
    dot is 0 (a tiny value underflows to 0 too: its sign comes from the
    exact state)."""
    sig = (_F64, _F64, _F64)
    dots = exact_dot_ufunc(left, right, signature=sig)
    zero = np.flatnonzero(dots == 0)
    if zero.size:
        exact, _ = norm.dot_state_integers(exact_dot_state_ufunc(
            left[zero], right[zero], signature=(_F64, _F64, fmt.NATIVE)))
        dots[zero] = [(m > 0) - (m < 0) for m in exact]
    return dots


def _weight_sums(w, wb, axes, outer_shape):
    """Exact sum states of the weights per result: (states, shared) where
    shared means one sum for every result (weights along the axes only)."""
    if w.shape != wb.shape or not outer_shape:
        flat = w.reshape(1, -1) if w.shape != wb.shape else _rows_over(wb, axes, outer_shape)
        return states.exact_sum_state(flat, axis=1), w.shape != wb.shape
    return states.exact_sum_state(_rows_over(wb, axes, outer_shape), axis=1), False


def _special_quotient(dot_state, sum_state):
    """IEEE quotient of the rounded sums (a NaN or Inf among the terms)."""
    top = exact_dot_state_round_ufunc(dot_state, signature=(fmt.NATIVE, _F64))
    bottom = exact_state_round_ufunc(sum_state, signature=(fmt.NATIVE, _F64))
    with np.errstate(all="ignore"):
        return top / bottom


# ---- pairwise-complete observations (pandas' cov and corr) ------------------

def stack_variables(columns):
    """Columns (1-D arrays of n values) as variables (p, n): one dtype kept;
    mixed dtypes as float64 when every value is one, else as Python numbers
    (the exact path)."""
    if not columns:
        return np.empty((0, 0))
    if len({c.dtype for c in columns}) == 1:
        return np.stack(columns)
    parts = [_float64_or_none(c) if c.dtype.kind in "biu" else c.astype(_F64) for c in columns]
    if any(p is None for p in parts):
        parts = [c.astype(object) if c.dtype.kind in "biu" else c.astype(_F64).astype(object)
                 for c in columns]
    return np.stack(parts)


def pairwise(x, method, ddof, min_periods):
    """pandas' cov (method 'cov') or Pearson corr ('corr') of the variables
    x (p, n): for each pair, over the observations where both are not NaN;
    NaN where there are fewer than min_periods of them.  Each entry rounded
    once into float64."""
    return pairwise_of_sums(pair_sums(x), len(x), method, ddof, min_periods)


def pair_sums(x):
    """The exact sums of each pair i <= j of the variables x (p, n) over the
    observations where both are not NaN: {(i, j): (count, Sums of the two)},
    pairs with no such observation left out.  Tables of disjoint
    observations add up exactly (merge_pair_sums): the Dask DataFrame
    backend's partitions."""
    p, n = x.shape
    missing = None if x.dtype.kind in "biuO" else np.isnan(x)
    if missing is None or not missing.any():
        # Every pair has all n observations: one pass over all variables.
        if n == 0:
            return {}
        sums = sums_of(x)
        return {(i, j): (n, _two_of(sums, i, j)) for i in range(p) for j in range(i, p)}
    table = {}
    for i in range(p):
        for j in range(i, p):
            both = ~(missing[i] | missing[j])
            count = int(np.count_nonzero(both))
            if count:
                table[i, j] = (count, sums_of(np.stack([x[i][both], x[j][both]])))
    return table


def _two_of(sums, i, j):
    """The Sums of variables i and j alone (unweighted sums)."""
    pick = (i, j)
    return Sums(sums.sw, [sums.swx[k] for k in pick],
                [[sums.swxy[a][b] for b in pick] for a in pick],
                [sums.special[k] for k in pick], False)


def merge_pair_sums(first, second):
    """Two pair_sums tables of disjoint observations, added exactly."""
    table = dict(first)
    for key, (count, sums) in second.items():
        if key in table:
            known_count, known = table[key]
            table[key] = (known_count + count, merge_sums((known, None), (sums, None))[0])
        else:
            table[key] = (count, sums)
    return table


def pairwise_of_sums(table, p, method, ddof, min_periods):
    """The (p, p) float64 matrix of pairwise (its finishing step) from a
    pair_sums table: each entry rounded once; NaN where a pair has fewer
    than min_periods (at least 1) observations."""
    fmt_of_result = dtypes.FORMATS[_F64]
    out = np.full((p, p), np.nan)
    for (i, j), (count, sums) in table.items():
        if count >= max(min_periods, 1):
            out[i, j] = out[j, i] = _pair_value(sums, 0, 1 if i != j else 0, count, method,
                                                ddof, fmt_of_result)
    return out


def _pair_value(sums, i, j, count, method, ddof, fmt_of_result):
    """One entry of pairwise from the sums of its observations."""
    if sums.special[i] or sums.special[j]:
        return np.nan
    num = sums.numerator(i, j)
    if method == "cov":
        if count - ddof <= 0:
            return np.nan
        return _round_quotient(num, (count * (count - ddof), 0), fmt_of_result)
    dx, dy = sums.numerator(i, i), sums.numerator(j, j)
    if dx[0] == 0 or dy[0] == 0:
        return np.nan
    if i == j:
        return 1.0
    dx, dy, top = _same_exponent(dx, dy, num)
    r = sqrt_rational(top * top, dx * dy, 0, fmt_of_result)
    return -r if top < 0 else r


def average_of_dot_states(states, result):
    """Weighted means from exact dot states (..., 2, DOT_LENGTH) of
    (sum(w*a), sum(w)) (the Dask backend's merged blocks), each rounded once
    into result; ZeroDivisionError for an exact zero weight sum."""
    shape = states.shape[:-2]
    flat = states.reshape(-1, 2, fmt.DOT_LENGTH)
    num, e = norm.dot_state_integers(flat[:, 0])
    den, _ = norm.dot_state_integers(flat[:, 1])
    special = _specials(flat.reshape(-1, 2, 3, fmt.LENGTH)[:, :, 0]).tolist()
    if any(d == 0 and not s[1] for d, s in zip(den, special)):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    fmt_of_result = dtypes.FORMATS[result]
    out = np.empty(len(num), result)
    for i, (n, d) in enumerate(zip(num, den)):
        if special[i][0] or special[i][1]:
            top, bottom = (exact_dot_state_round_ufunc(flat[i, k], signature=(fmt.NATIVE, _F64))
                           for k in (0, 1))
            with np.errstate(all="ignore"):
                out[i] = top / bottom
        else:
            out[i] = _round_quotient((n, e), (d, e), fmt_of_result)
    return out.reshape(shape)
