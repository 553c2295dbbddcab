"""Differential fuzzer: adversarial vectors, every public reduction, bit for bit.

Each case is built from ``numpy.random.default_rng([seed, index])`` alone, so
any case can be rebuilt from its seed and index (``--case``).  A case draws
an input dtype, a target dtype, a length (the short path up to 1023 terms,
the cells from 64 contiguous terms where it leaves a row, the large
accumulator from 160 terms, lane flushes past 8192) and a kind of data:

- ``wide``: random bit patterns, so every exponent and subnormals;
- ``narrow``: one exponent window (the SIMD lanes' fast case);
- ``spread``: exponents over 40 to 130 binades (three and four cells);
- ``cancel``: huge terms and their negatives around small ones;
- ``subnormal``: subnormals of the input format and the smallest normals;
- ``tie``: an exact sum on a tie at the target's last bit (or just off it by
  a tiny term), hidden in split pieces and cancelling pairs;
- ``zeros``: signed zeros; ``overflow``: terms near the largest finite value;

then sometimes NaN, +-Inf and -0.0 at random places, and a memory layout
(contiguous, strided, reversed, unaligned, byte-swapped, 2-D C or Fortran).

Checked, each against the exact value rounded once into the target:
``exact_sum`` (``dtype=`` or ``out=``), ``exact_mean``, ``exact_dot``
(against a second vector), ``exact_add.accumulate`` (a prefix of the row),
``exact_sum``/``exact_nansum`` with a random ``where`` mask, exact states
of random chunks merged by ``exact_state_merge_ufunc`` (the merge paths),
``exact_moving_sum``/``exact_moving_mean`` with a random window and
``min_count`` (a few outputs of each row, the last ones among them),
``exact_moving_var``/``exact_moving_std`` on the same windows (rows up to
MOVING_VAR_TERMS), and
for float64, float32, float16 and bfloat16 input the 2-norm
(``array_api.linalg.vector_norm``, in the input's dtype: the correctly
rounded root of the exact sum of squares, tests/oracle_roots.py).
For those input dtypes and rows up to MOVING_VAR_TERMS: ``exact_cov`` of
(x, y) with the case's ddof and ``exact_corrcoef`` into the target,
``exact_average`` of x with small integer weights, and ``exact_matmul`` of
x and y cut into (4, k) @ (k, 3), with the thresholds of its sliced GEMMs
lowered so that these small products take them (set on import).  And x cut
into rows of 8 to 264 columns, summed or averaged down each column
(``axis=0``: the column sweep for float64 and float32 rows), C-contiguous
or a column slice of a wider array, starting anywhere in a 64-byte line.
Rows from 256 terms take the binned kernels of the portable level (their
threshold lowered on import, as exact_matmul's are).

Two oracles give the expected values: ``fraction`` is tests/oracle.py and
tests/oracle_products.py (``fractions.Fraction`` term by term); ``fast`` (the
default, for millions of cases) adds the same exact values as Python
integers in units of 2**-1126 (2**-2252 for products) and rounds with the
same ``oracle.round_fraction``.  tests/test_fuzz_smoke.py checks that the two
agree bit for bit on every generated case.
"""

import argparse
import contextlib
import math
import multiprocessing
import sys
import time
import warnings
from fractions import Fraction

import numpy as np
from helpers import in_line
from oracle import (
    BFLOAT16,
    CODE_DTYPES,
    CODE_RULES,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    FORMATS,
    default_result_dtype,
    exact_sum_oracle,
    oracle_accumulate,
    round_fraction,
    terms_of,
)
from oracle_products import exact_dot_oracle, exact_mean_oracle
from oracle_roots import rounded_sqrt

import xsumufunc as xs
from xsumufunc import array_api as xp
from xsumufunc._core import matmul as _matmul_core

# Small products through the sliced GEMMs of exact_matmul (not only the dots).
_matmul_core._MIN_WORK, _matmul_core._MIN_SIDE = 0, 1
# Rows from one whole block (256 terms) through the binned kernels of the
# portable level (src/kernels/cells/xs_cells.c; not only from 2^16 terms).
xs._ufuncs._binned_min_terms(256)
# And the dot products' binned kernels (src/kernels/dot/xs_dot_cells.c; not
# only from 2^17 products).
xs._ufuncs._dot_binned_min_terms(256)

# The byte-coded formats (float8/float6/float4) come in about one case in six,
# as inputs and as targets.
INPUT_DTYPES = (FLOAT64, FLOAT64, FLOAT32, FLOAT16, BFLOAT16, "code")
TARGETS = (FLOAT64, FLOAT32, FLOAT16, BFLOAT16, "code")
KINDS = ("wide", "narrow", "spread", "cancel", "subnormal", "tie", "zeros", "overflow")
KIND_WEIGHTS = (0.18, 0.13, 0.1, 0.17, 0.1, 0.17, 0.05, 0.1)
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _fmt(dtype):
    return FORMATS[dtype] if dtype in FORMATS else CODE_RULES[dtype].fmt


def _pick(rng, choices):
    """One of choices; "code" stands for a random byte-coded format."""
    choice = choices[int(rng.integers(0, len(choices)))]
    return CODE_DTYPES[int(rng.integers(0, len(CODE_DTYPES)))] if choice == "code" else choice


def _code_values(rng, kind, n, dtype):
    """Terms of a byte-coded format, picked among its finite values by kind:
    any (wide), a few neighbouring binades (narrow), big values and their
    negatives around small ones (cancel), the smallest (subnormal), the
    largest (overflow)."""
    values = np.arange(256, dtype=np.uint8).view(dtype).astype(np.float64)
    finite = np.unique(values[np.isfinite(values)])
    magnitudes = np.unique(np.abs(finite))
    k = len(magnitudes)
    if kind == "narrow":
        lo = int(rng.integers(0, k))
        pool = magnitudes[lo:lo + 8]
    elif kind == "subnormal":
        pool = magnitudes[:1 << (CODE_RULES[dtype].fmt.p)]
    elif kind == "overflow":
        pool = magnitudes[-4:]
    else:
        pool = magnitudes
    x = rng.choice(pool, n) * np.where(rng.random(n) < 0.5, -1.0, 1.0)
    if kind == "cancel":
        half = n // 2
        x[half:2 * half] = -x[:half]
        x = x[rng.permutation(n)]
    if kind == "overflow":
        x = np.abs(x) * np.where(rng.random(n) < 0.8, 1.0, -1.0)
    return _as(x, dtype)
# Every finite float64 is an integer multiple of 2**-1126 as frexp splits it.
_UNIT = 1126
_INT64 = np.dtype(np.int64)


# ---------------------------------------------------------------------------
# Data


def _length(rng):
    u = rng.random()
    if u < 0.55:
        return int(rng.integers(0, 24))
    if u < 0.80:
        return int(rng.integers(24, 160))           # short rows, the cells from 64
    if u < 0.95:
        return int(rng.integers(160, 1500))         # large accumulator, short path to 1023
    if u < 0.995:
        return int(rng.integers(1500, 5000))
    return int(rng.integers(5000, 20000))           # lane flushes every 8192 terms


def _as(values, dtype):
    """float64 values cast into dtype (rounded: the array holds the terms)."""
    with np.errstate(over="ignore"):
        return np.asarray(values, np.float64).astype(dtype)


def _finite_bits(rng, n, dtype):
    """Uniformly random finite bit patterns of dtype: all exponents alike."""
    size = dtype.itemsize
    u = _UNSIGNED[size]
    bits = rng.integers(0, np.iinfo(u).max, n, dtype=u, endpoint=True)
    exp_bits = {2: (10 if dtype == FLOAT16 else 7), 4: 23, 8: 52}[size]
    exp_mask = u(((1 << (8 * size - 1)) - 1) >> exp_bits << exp_bits)
    special = (bits & exp_mask) == exp_mask
    bits[special] ^= u(1 << exp_bits)               # exponent all ones: clear one bit
    return bits.view(dtype)


def _subnormals(rng, n, dtype):
    size = dtype.itemsize
    u = _UNSIGNED[size]
    mant_bits = {2: (10 if dtype == FLOAT16 else 7), 4: 23, 8: 52}[size]
    bits = rng.integers(0, 1 << (mant_bits + 1), n, dtype=u)    # up to the smallest normals
    bits |= (rng.integers(0, 2, n, dtype=u) << u(8 * size - 1)).astype(u)
    return bits.view(dtype)


def _narrow(rng, n, dtype):
    fmt = FORMATS[dtype]
    e0 = int(rng.integers(fmt.qmin, fmt.qmax - 20))     # finite: m * 2**e <= max
    spread = int(rng.integers(1, 20))
    m = rng.integers(-(1 << fmt.p) + 1, 1 << fmt.p, n).astype(np.float64)
    return _as(np.ldexp(m, e0 + rng.integers(0, spread, n)), dtype)


def _spread(rng, n, dtype):
    """Exponents over 40 to 130 binades: float64 blocks of three and four
    cells (the cuts of every level, the binned kernels of the portable one),
    narrower formats clipped to their range."""
    fmt = FORMATS[dtype]
    span = int(rng.integers(40, 131))
    e0 = int(rng.integers(fmt.qmin, max(fmt.qmin + 1, fmt.qmax - span)))
    m = rng.integers(-(1 << fmt.p) + 1, 1 << fmt.p, n).astype(np.float64)
    e = np.minimum(e0 + rng.integers(0, span, n), fmt.qmax)
    return _as(np.ldexp(m, e), dtype)


def _cancel(rng, n, dtype):
    half = n // 2
    big = np.abs(_finite_bits(rng, half, dtype).astype(np.float64))
    fmt = FORMATS[dtype]
    top = _as(np.ldexp(rng.random(half) + 1, rng.integers(fmt.emax - 30, fmt.emax, half)), dtype)
    big = np.where(rng.random(half) < 0.5, big, top.astype(np.float64))
    big = _as(big, dtype)
    small = _finite_bits(rng, n - 2 * half, dtype)
    x = np.concatenate([big, -big, small])
    return x[rng.permutation(n)]


def _overflow(rng, n, dtype):
    fmt = FORMATS[dtype]
    m = rng.integers(1 << (fmt.p - 1), 1 << fmt.p, n).astype(np.float64)
    x = _as(np.ldexp(m, fmt.qmax - rng.integers(0, 3, n)), dtype)
    signs = np.where(rng.random(n) < 0.8, 1.0, -1.0)
    return (x.astype(np.float64) * signs).astype(dtype)     # exact: a sign change


def _tie(rng, n, target):
    """Terms whose exact sum is a tie at target's last bit (or a tiny term
    off it), and the input dtype that holds them exactly."""
    fmt = _fmt(target)
    narrow = target in (FLOAT16, BFLOAT16) or target in CODE_RULES
    in_dtype = FLOAT32 if narrow and rng.random() < 0.5 else FLOAT64
    in_fmt = FORMATS[in_dtype]
    lowest = max(fmt.emin, in_fmt.qmin + fmt.p + 45)
    if rng.random() < 0.1:
        e, m = fmt.emax, (1 << fmt.p) - 1           # the tie at the overflow threshold
    else:
        e = int(rng.integers(lowest, fmt.emax + 1))
        m = int(rng.integers(1 << (fmt.p - 1), 1 << fmt.p))
        if rng.random() < 0.1:
            e, m = fmt.emin, int(rng.integers(1, 1 << fmt.p))   # subnormal results
    q = e - fmt.p + 1
    terms = []
    r = int(rng.integers(0, fmt.p))
    hi = (m >> r) << r
    terms += [math.ldexp(hi, q), math.ldexp(m - hi, q)]         # v in two pieces
    terms.append(math.ldexp(1, q - 1))                          # half an ulp: the tie
    if rng.random() < 0.5:                                      # just off the tie
        k = int(rng.integers(1, 40))
        tiny = math.ldexp(1, max(q - 1 - k, in_fmt.qmin))
        terms.append(tiny if rng.random() < 0.5 else -tiny)
    terms = [t for t in terms if t != 0.0]
    if rng.random() < 0.5:
        terms = [-t for t in terms]
    pairs = max(0, (n - len(terms)) // 2)
    c = _finite_bits(rng, pairs, in_dtype).astype(np.float64)
    x = np.concatenate([np.array(terms), c, -c])
    return _as(x[rng.permutation(len(x))], in_dtype), in_dtype


def _values(rng, kind, n, dtype, target):
    if dtype in CODE_RULES and kind in ("wide", "narrow", "spread", "cancel", "subnormal",
                                        "overflow"):
        return _code_values(rng, "wide" if kind == "spread" else kind, n, dtype), dtype
    if kind == "wide":
        return _finite_bits(rng, n, dtype), dtype
    if kind == "narrow":
        return _narrow(rng, n, dtype), dtype
    if kind == "spread":
        return _spread(rng, n, dtype), dtype
    if kind == "cancel":
        return _cancel(rng, n, dtype), dtype
    if kind == "subnormal":
        return _subnormals(rng, n, dtype), dtype
    if kind == "tie":
        return _tie(rng, n, target)
    if kind == "zeros":
        neg = rng.random() < 0.5
        signs = -1.0 if neg else np.where(rng.random(n) < 0.7, -1.0, 1.0)
        return _as(np.zeros(n) * signs, dtype), dtype
    return _overflow(rng, n, dtype), dtype


def _sprinkle_specials(rng, x):
    x = x.copy()
    if x.size and rng.random() < 0.15:
        for _ in range(int(rng.integers(1, 4))):
            i = int(rng.integers(0, x.size))
            x[i] = _as([rng.choice([np.nan, np.inf, -np.inf, -0.0])], x.dtype)[0]
    return x


def _layout(rng, x):
    """x (1-D, contiguous) in a random memory layout, same values."""
    n, u = x.size, rng.random()
    if u < 0.55:
        return x
    if u < 0.70:
        step = int(rng.choice([2, 3, -1, -2]))
        buf = np.zeros(max(n, 1) * abs(step), x.dtype)
        view = (buf[::step] if step > 0 else buf[::-1][::-step])[:n]
        view[...] = x
        return view
    if u < 0.80:                                    # unaligned
        raw = np.zeros(n * x.itemsize + 1, np.uint8)
        view = raw[1:].view(x.dtype)
        view[...] = x
        return view
    if u < 0.90:                                    # byte-swapped (non-native order)
        return x.astype(x.dtype.newbyteorder("S"))
    # 2-D, C or Fortran order, for the full reductions (axis=None).
    rows = next((k for k in (7, 5, 3, 2) if n % k == 0), 1)
    two_d = x.reshape(rows, n // rows)
    return np.asfortranarray(two_d) if rng.random() < 0.5 else two_d


class Case:
    """One fuzz case: everything the checks need, rebuilt from (seed, index)."""

    def __init__(self, seed, index):
        rng = np.random.default_rng([seed, index])
        self.seed, self.index = seed, index
        self.target = _pick(rng, TARGETS)
        dtype = _pick(rng, INPUT_DTYPES)
        self.kind = KINDS[int(rng.choice(len(KINDS), p=KIND_WEIGHTS))]
        n = _length(rng)
        x, self.dtype = _values(rng, self.kind, n, dtype, self.target)
        self.x = _sprinkle_specials(rng, x)                 # the terms, contiguous
        y_kind = str(rng.choice([k for k in KINDS if k != "tie"]))   # same length
        y, _ = _values(rng, y_kind, self.x.size, self.dtype, self.target)
        self.y = _sprinkle_specials(rng, _as(y, self.dtype))  # the dot partner
        self.x_view = _layout(rng, self.x)                  # for sum and mean
        self.x_row = self.x_view if self.x_view.ndim == 1 else self.x
        self.y_row = _layout(rng, self.y)
        if self.y_row.ndim != 1:
            self.y_row = self.y
        self.use_out = bool(rng.random() < 0.3)
        self.prefix = min(self.x.size, int(rng.integers(0, 48)))
        self.cuts = np.sort(rng.integers(0, self.x.size + 1, int(rng.integers(0, 5))))
        self.mask = rng.random(self.x.size) < rng.random()
        self.skip_nan = bool(rng.random() < 0.5)
        # Moving windows (drawn last, so the draws above stay as they were):
        # a window, min_count (None: the window), sum or mean, and the
        # outputs checked (the last few and a few anywhere; the oracle
        # rounds only those).
        n = self.x.size
        self.window = int(rng.integers(1, max(n, 1) + 1))
        self.min_count = None if rng.random() < 0.5 else int(rng.integers(1, self.window + 1))
        self.moving_mean = bool(rng.random() < 0.5)
        picks = rng.integers(0, max(n, 1), 4).tolist() + list(range(max(n - 4, 0), n))
        self.moving_at = np.array(sorted({i for i in picks if i < n}), np.intp)
        # Moving variance (drawn after the above): ddof and var or std, on
        # the same window, min_count and outputs.
        self.ddof = int(rng.integers(0, 3))
        self.moving_std = bool(rng.random() < 0.5)
        # Column sums (drawn after the above): x cut into rows of `cols`
        # terms and summed (or averaged) down each column, C-contiguous or
        # a column slice of a wider array (float64 and float32 rows of 8
        # columns and 16 rows or more take the column sweep).
        self.cols = int(rng.choice([8, 11, 16, 24, 37, 64, 256, 264]))
        self.column_mean = bool(rng.random() < 0.3)
        self.column_pad = int(rng.choice([0, 0, 1, 5]))
        # Where the rows start in a 64-byte line (drawn after the above):
        # from 256 columns on, rows a whole number of lines apart that start
        # part-way into one have their edge columns summed apart.
        self.column_offset = 8 * int(rng.integers(0, 8))

    def columns(self):
        """The (rows, cols) array of the column check, or None (no row)."""
        rows = self.x.size // self.cols
        if rows == 0:
            return None
        grid = self.x[:rows * self.cols].reshape(rows, self.cols)
        return in_line(grid, self.column_offset, first=self.column_pad)

    def describe(self):
        return (f"seed={self.seed} case={self.index} kind={self.kind} n={self.x.size} "
                f"in={self.dtype} target={self.target} layout={self.x_view.strides}/"
                f"{self.x_view.dtype.byteorder}{self.x_view.ndim}d")


# ---------------------------------------------------------------------------
# What the library gives


def results(case):
    """name -> the library's value, for every check of the case."""
    t = case.target
    got = {}
    if case.use_out:
        out = np.empty((), t)
        xs.exact_sum(case.x_view, out=out)
        got["sum"] = out[()]
    else:
        got["sum"] = xs.exact_sum(case.x_view, dtype=t)
    got["mean"] = xs.exact_mean(case.x_view, dtype=t)
    got["dot"] = xs.exact_dot(case.x_row, case.y_row, dtype=t)
    got["dot_square"] = xs.exact_dot(case.x_row, case.x_row, dtype=t)
    got["accumulate"] = xs.exact_add.accumulate(case.x_row[:case.prefix], dtype=t)
    masked = xs.exact_nansum if case.skip_nan else xs.exact_sum
    got["where"] = masked(case.x_row, where=case.mask, dtype=t)
    chunks = np.split(case.x_row, case.cuts)
    native = case.x_row.dtype.newbyteorder("=")
    states = np.stack([xs.exact_sum_state_ufunc(c, signature=(native, _INT64)) for c in chunks])
    merged = xs.exact_state_merge_ufunc(states)
    got["merge"] = xs.exact_state_round_ufunc(merged, signature=(_INT64, t))
    moving = xs.exact_moving_mean if case.moving_mean else xs.exact_moving_sum
    got["moving"] = moving(case.x_row, case.window, min_count=case.min_count)[case.moving_at]
    if case.dtype in NORM_DTYPES:
        got["norm"] = xp.linalg.vector_norm(case.x_view)[()]
    if case.x.size <= MOVING_VAR_TERMS:
        spread = xs.exact_moving_std if case.moving_std else xs.exact_moving_var
        got["moving_var"] = spread(case.x_row, case.window, min_count=case.min_count,
                                   ddof=case.ddof)[case.moving_at]
        grouped = xs.exact_grouped_std if case.moving_std else xs.exact_grouped_var
        codes = np.repeat(np.arange(case.cuts.size + 1), np.diff(_group_bounds(case)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)       # groups with n <= ddof
            got["grouped_var"] = grouped(case.x_row, codes, case.cuts.size + 1, ddof=case.ddof)
    if _checks_pairs(case):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got["cov"] = xs.exact_cov(np.stack([case.x_row, case.y_row]), ddof=case.ddof,
                                      dtype=t)
            got["corrcoef"] = xs.exact_corrcoef(case.x_row, case.y_row, dtype=t)
        got["average"] = xs.exact_average(case.x_row, weights=_pair_weights(case))
        k = case.x.size // 4
        got["matmul"] = xs.exact_matmul(case.x_row[:4 * k].reshape(4, k),
                                        case.y_row[:3 * k].reshape(k, 3))
    grid = case.columns()
    if grid is not None:
        down = xs.exact_mean if case.column_mean else xs.exact_sum
        got["columns"] = down(grid, axis=0, dtype=t)
    return got


def _columns_entry(case, column_value):
    """{"columns": each column's expected value} (column_value(column,
    divisor)), or {} when the case has no column check."""
    grid = case.columns()
    if grid is None:
        return {}
    divisor = grid.shape[0] if case.column_mean else 1
    return {"columns": np.array([column_value(column, divisor) for column in grid.T],
                                dtype=case.target)}


def _checks_pairs(case):
    """Whether the case checks cov, corrcoef, average and matmul."""
    return (case.dtype in NORM_DTYPES and case.target in NORM_DTYPES
            and 0 < case.x.size <= MOVING_VAR_TERMS)


def _pair_weights(case):
    """Small integer weights in the input dtype (exact in every one of them)."""
    return (np.arange(case.x.size) % 7 + 1).astype(case.dtype)


def _pairs_expected(case):
    """{"cov", "corrcoef", "average", "matmul": expected} where the case checks
    them: exact integer sums in units of 2**-_UNIT, rounded once
    (roots by rounded_sqrt)."""
    if not _checks_pairs(case):
        return {}
    t = case.target
    x, y = case.x.astype(np.float64), case.y.astype(np.float64)
    n = x.size
    special = [not np.isfinite(v).all() for v in (x, y)]
    # Exact sums of the pair in integers: units of 2**-_UNIT for the terms,
    # 2**-(2 * _UNIT) for the products (one Fraction per rounded result).
    xi, yi = (_integers(v) for v in (x, y))
    s = {"x": sum(xi), "y": sum(yi), "xx": sum(a * a for a in xi),
         "yy": sum(b * b for b in yi), "xy": sum(a * b for a, b in zip(xi, yi))}

    def centered(u, v):
        return n * s[min(u + v, v + u)] - s[u] * s[v]

    cov = np.empty((2, 2), t)
    for i, u in enumerate("xy"):
        for j, v in enumerate("xy"):
            if special[i] or special[j]:
                cov[i, j] = np.nan
            elif n - case.ddof <= 0:
                c = centered(u, v)
                cov[i, j] = np.nan if c == 0 else (np.inf if c > 0 else -np.inf)
            else:
                cov[i, j] = round_fraction(
                    Fraction(centered(u, v), (n * (n - case.ddof)) << (2 * _UNIT)), t)
    corr = np.empty((2, 2), t)
    dx, dy = (None if sp else centered(u, u) for sp, u in zip(special, "xy"))
    for i in range(2):
        for j in range(2):
            d = (dx, dy)
            if d[i] is None or d[j] is None or d[i] == 0 or d[j] == 0:
                corr[i, j] = np.nan
            elif i == j:
                corr[i, j] = 1
            else:
                c = centered("x", "y")
                r = rounded_sqrt(Fraction(c * c, dx * dy), t)
                corr[i, j] = -r if c < 0 else r
    w = _pair_weights(case).astype(np.float64)
    avg_t = default_result_dtype(case.x.dtype)
    if special[0]:
        avg = _dot_fast(x, w, np.dtype(np.float64)) / np.float64(w.sum())
        average = np.array(avg, np.float64).astype(avg_t)[()]
    else:
        weighted = sum(a * int(b) for a, b in zip(xi, w.tolist()))
        average = round_fraction(Fraction(weighted, int(w.sum()) << _UNIT), avg_t)
    k = n // 4
    a, b = x[:4 * k].reshape(4, k), y[:3 * k].reshape(k, 3)
    matmul = np.array([[_dot_fast(a[r], b[:, c], avg_t) for c in range(3)] for r in range(4)],
                      avg_t)
    return {"cov": cov, "corrcoef": corr, "average": average, "matmul": matmul}


def _integers(v):
    """Finite float64 values as integers in units of 2**-_UNIT (0 for the
    others: unused then)."""
    m, s = _units(np.where(np.isfinite(v), v, 0.0))
    return [a << b for a, b in zip(m, s)]


# ---------------------------------------------------------------------------
# Oracles


def expected_fraction(case):
    """name -> expected value, from the Fraction oracles of tests/."""
    t = case.target
    terms = terms_of(case.x)
    selected = [v for v, m in zip(terms, case.mask.tolist()) if m]
    return {
        "sum": exact_sum_oracle(terms, t),
        "mean": exact_mean_oracle(terms, t),
        "dot": exact_dot_oracle(terms, terms_of(case.y), t),
        "dot_square": exact_dot_oracle(terms, terms, t),
        "accumulate": oracle_accumulate(case.x[:case.prefix], dtype=t),
        "where": exact_sum_oracle(selected, t, skip_nan=case.skip_nan),
        "merge": exact_sum_oracle(terms, t),
        "moving": _moving_fraction(case, terms),
    } | _moving_var_entry(case, case.x.astype(np.float64), lambda: lambda lo, hi: (
        sum((Fraction(v) for v in terms[lo:hi] if math.isfinite(v)), Fraction(0)),
        sum((Fraction(v) ** 2 for v in terms[lo:hi] if math.isfinite(v)), Fraction(0)),
    )) | _norm_entry(case, lambda: sum((Fraction(v) ** 2 for v in terms), Fraction(0))) \
        | _pairs_expected(case) | _columns_entry(case, lambda column, divisor: (
            exact_mean_oracle if divisor > 1 else exact_sum_oracle)(terms_of(column), t))


#: Input dtypes whose 2-norm the fuzz checks (its result is in the same dtype).
NORM_DTYPES = (FLOAT64, FLOAT32, FLOAT16, BFLOAT16)


def _norm(square_sum, x, dtype):
    """The 2-norm's expected value: NaN if x holds a NaN, else Inf if it holds
    an Inf, else the root of the exact sum of squares (a thunk) rounded once."""
    if np.isnan(x).any():
        return np.array(np.nan, dtype)[()]
    if np.isinf(x).any():
        return np.array(np.inf, dtype)[()]
    return rounded_sqrt(square_sum(), dtype)


def _norm_entry(case, square_sum):
    """{"norm": expected} where the case checks the norm, else {}."""
    if case.dtype not in NORM_DTYPES:
        return {}
    return {"norm": _norm(square_sum, case.x.astype(np.float64), case.dtype)}


#: Rows up to this long check the moving variance (its loop has no
#: length-dependent path, and windows it leaves cost O(window) each).
MOVING_VAR_TERMS = 1024


def _moving_var_entry(case, x, make_square_sums):
    """{"moving_var": expected, "grouped_var": expected} where the case
    checks them, else {} (make_square_sums() gives their square_sums)."""
    if case.x.size > MOVING_VAR_TERMS:
        return {}
    square_sums = make_square_sums()
    return {"moving_var": _moving_var(case, x, square_sums),
            "grouped_var": _grouped_var(case, x, square_sums)}


def _group_bounds(case):
    """The groups of the grouped variance: the pieces of the merge check."""
    return np.concatenate([[0], case.cuts, [case.x.size]])


def _grouped_var(case, x, square_sums):
    """Each group's variance (or root): NaN with a NaN or an Inf in it; with
    n - ddof <= 0, Inf (NaN for zero spread); else as _moving_var."""
    t = _moving_result_dtype(case)
    bounds = _group_bounds(case)
    out = []
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        n = hi - lo
        if not np.isfinite(x[lo:hi]).all():
            out.append(np.array(np.nan, np.float64).astype(t)[()])
            continue
        s1, s2 = square_sums(lo, hi)
        spread = n * s2 - s1 * s1
        if n - case.ddof <= 0:
            out.append(np.array(np.inf if spread else np.nan, np.float64).astype(t)[()])
            continue
        var = spread / (n * (n - case.ddof))
        out.append(rounded_sqrt(var, t) if case.moving_std else round_fraction(var, t))
    return np.array(out, t)


def _moving_var(case, x, square_sums):
    """The checked outputs of the moving variance: NaN with fewer than
    min_count terms, no more than ddof, or an Inf in the window; else the
    exact variance (n S2 - S1^2) / (n (n - ddof)) rounded once, or its root.
    square_sums(lo, hi) gives (n, S1, S2) of the finite terms of x[lo:hi]
    as Fractions (the oracle's own way)."""
    t = _moving_result_dtype(case)
    need = case.window if case.min_count is None else case.min_count
    out = []
    for i in case.moving_at.tolist():
        lo, hi = max(0, i - case.window + 1), i + 1
        window = x[lo:hi]
        n = int(np.count_nonzero(~np.isnan(window)))
        if n < need or n - case.ddof <= 0 or np.isinf(window).any():
            out.append(np.array(np.nan, np.float64).astype(t)[()])
            continue
        s1, s2 = square_sums(lo, hi)
        var = (n * s2 - s1 * s1) / (n * (n - case.ddof))
        out.append(rounded_sqrt(var, t) if case.moving_std else round_fraction(var, t))
    return np.array(out, t)


def _moving_result_dtype(case):
    """exact_moving_*'s result dtype: the input's (float64 for integers)."""
    return default_result_dtype(case.x.dtype)


def _moving_fraction(case, terms):
    """The checked outputs of the moving window, from the Fraction oracles:
    NaN terms are not terms (bottleneck's convention); NaN while fewer than
    min_count terms are in the window."""
    t = _moving_result_dtype(case)
    need = case.window if case.min_count is None else case.min_count
    oracle = exact_mean_oracle if case.moving_mean else exact_sum_oracle
    out = []
    for i in case.moving_at.tolist():
        kept = [v for v in terms[max(0, i - case.window + 1):i + 1]
                if not (isinstance(v, float) and math.isnan(v))]
        out.append(np.array(np.nan, np.float64).astype(t)[()] if len(kept) < need
                   else oracle(kept, t))
    return np.array(out, t)


def _moving_fast(case, x):
    """The same from exact integer prefix sums of the finite terms and
    prefix counts of NaN, +Inf, -Inf and of the terms other than -0.0."""
    t = _moving_result_dtype(case)
    need = case.window if case.min_count is None else case.min_count
    units = _integers(x)
    prefix = [0]
    for u in units:
        prefix.append(prefix[-1] + u)
    counts = {name: np.concatenate([[0], np.cumsum(mask)]) for name, mask in (
        ("nan", np.isnan(x)), ("pinf", x == np.inf), ("ninf", x == -np.inf),
        ("other", ~np.isnan(x) & ~((x == 0) & np.signbit(x))))}
    out = []
    for i in case.moving_at.tolist():
        lo, hi = max(0, i - case.window + 1), i + 1
        c = {name: int(v[hi] - v[lo]) for name, v in counts.items()}
        terms = hi - lo - c["nan"]
        if terms < need:
            out.append(np.array(np.nan, np.float64).astype(t)[()])
            continue
        out.append(_rounded(prefix[hi] - prefix[lo], _UNIT, terms if case.moving_mean else 1,
                            False, c["pinf"] > 0, c["ninf"] > 0, c["other"] == 0, t))
    return np.array(out, t)


def _units(values):
    """Integer significands and shifts: value = m * 2**(s - _UNIT), s >= 0."""
    mant, exp = np.frexp(values)
    return (np.ldexp(mant, 53).astype(np.int64).tolist(),
            (exp.astype(np.int64) + (_UNIT - 53)).tolist())


def _rounded(total, scale, divisor, nan, pinf, ninf, neg_zero, t):
    """The special-value rules, else total * 2**-scale / divisor rounded once."""
    if nan or (pinf and ninf) or divisor == 0:
        return np.array(np.nan, np.float64).astype(t)[()]
    if pinf or ninf:
        return np.array(np.inf if pinf else -np.inf, np.float64).astype(t)[()]
    return round_fraction(Fraction(total, divisor << scale), t, zero_sign=-1 if neg_zero else 1)


def _summary(v):
    """(exact total in units of 2**-_UNIT, nan, +inf, -inf, all -0.0) of float64 v."""
    finite = np.isfinite(v)
    m, s = _units(v[finite])
    total = sum(a << b for a, b in zip(m, s))
    return (total, bool(np.isnan(v).any()), bool((v == np.inf).any()),
            bool((v == -np.inf).any()), v.size > 0 and bool(np.all((v == 0) & np.signbit(v))))


def _sum_fast(v, t, divisor=1):
    total, nan, pinf, ninf, neg_zero = _summary(v)
    return _rounded(total, _UNIT, divisor, nan, pinf, ninf, neg_zero, t)


def _dot_fast(a, b, t):
    finite = np.isfinite(a) & np.isfinite(b)
    with np.errstate(invalid="ignore"):
        special = a[~finite] * b[~finite]           # IEEE products of Inf/NaN operands
    ma, sa = _units(a[finite])
    mb, sb = _units(b[finite])
    total = sum((x * y) << (p + q) for x, y, p, q in zip(ma, mb, sa, sb))
    zero_neg = (a[finite] == 0) | (b[finite] == 0)
    zero_neg &= np.signbit(a[finite]) != np.signbit(b[finite])
    neg_zero = a.size > 0 and special.size == 0 and bool(np.all(zero_neg))
    return _rounded(total, 2 * _UNIT, 1, bool(np.isnan(special).any()),
                    bool((special == np.inf).any()), bool((special == -np.inf).any()),
                    neg_zero, t)


def _accumulate_fast(v, t):
    out = np.empty(v.size, t)
    m, s = _units(np.where(np.isfinite(v), v, 0.0))
    total, nan, pinf, ninf, neg_zero = 0, False, False, False, True
    for i, value in enumerate(v.tolist()):
        if math.isnan(value):
            nan = True
        elif value == math.inf:
            pinf = True
        elif value == -math.inf:
            ninf = True
        else:
            total += m[i] << s[i]
        neg_zero = neg_zero and value == 0 and math.copysign(1.0, value) < 0
        out[i] = _rounded(total, _UNIT, 1, nan, pinf, ninf, neg_zero, t)
    return out


def expected_fast(case):
    """name -> expected value: the same exact values as Python integers."""
    t = case.target
    x = case.x.astype(np.float64)
    selected = x[case.mask]
    if case.skip_nan:
        selected = selected[~np.isnan(selected)]
    total = _sum_fast(x, t)
    return {
        "sum": total,
        "mean": _sum_fast(x, t, divisor=x.size),
        "dot": _dot_fast(x, case.y.astype(np.float64), t),
        "dot_square": _dot_fast(x, x, t),
        "accumulate": _accumulate_fast(x[:case.prefix], t),
        "where": _sum_fast(selected, t),
        "merge": total,
        "moving": _moving_fast(case, x),
    } | _moving_var_entry(case, x, lambda: _square_sums_fast(x)) | _norm_entry(
        case, lambda: _squares_fast(x)) | _pairs_expected(case) | _columns_entry(
        case, lambda column, divisor: _sum_fast(column.astype(np.float64), t, divisor))


def _square_sums_fast(x):
    """(lo, hi) -> exact (S1, S2) of the finite terms of x[lo:hi] as
    Fractions, from prefix sums of integers in units of 2**-_UNIT."""
    p1, p2 = [0], [0]
    for u in _integers(x):
        p1.append(p1[-1] + u)
        p2.append(p2[-1] + u * u)
    return lambda lo, hi: (Fraction(p1[hi] - p1[lo], 1 << _UNIT),
                           Fraction(p2[hi] - p2[lo], 1 << (2 * _UNIT)))


def _squares_fast(x):
    """The exact sum of squares of finite float64 x as a Fraction."""
    m, s = _units(x)
    return Fraction(sum((a * a) << (2 * b) for a, b in zip(m, s)), 1 << (2 * _UNIT))


ORACLES = {"fast": expected_fast, "fraction": expected_fraction}


# ---------------------------------------------------------------------------
# Checking


def same_bits(result, expected):
    """Same dtype, shape and bits (any NaN matches any NaN)."""
    r, e = np.asarray(result), np.asarray(expected)
    if r.dtype != e.dtype or r.shape != e.shape:
        return False
    r, e = np.ascontiguousarray(r), np.ascontiguousarray(e)
    u = _UNSIGNED[r.dtype.itemsize]
    nan = np.isnan(r.astype(np.float64)) & np.isnan(e.astype(np.float64))
    return bool(np.all((r.view(u) == e.view(u)) | nan))


def check_case(seed, index, oracle="fast"):
    """Failure messages for one case (empty when every check passes)."""
    case = Case(seed, index)
    try:
        got = results(case)
    except Exception as exc:                    # any exception is a finding
        return [f"{case.describe()}: raised {type(exc).__name__}: {exc}"]
    want = ORACLES[oracle](case)
    return [f"{case.describe()}: {name} gave {got[name]!r}, exact {want[name]!r}"
            for name in want if not same_bits(got[name], want[name])]


@contextlib.contextmanager
def _quiet():
    """No warnings and no NumPy FP errors (empty means, overflow, inf - inf)
    inside; the caller's settings are restored on exit (the driver also runs
    inside the test suite, whose other tests expect warnings)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def run_range(seed, start, stop, oracle="fast"):
    """(cases run, failure messages) for case indices [start, stop)."""
    failures = []
    with _quiet():
        for index in range(start, stop):
            failures += check_case(seed, index, oracle)
    return stop - start, failures


def _run_range_star(args):
    return run_range(*args)


def run(cases, seed, workers=1, oracle="fast", chunk=2000, progress=None, first=0):
    """Run cases first..first+cases-1; returns (cases run, failures, seconds).
    Runs that split one seed's cases between them (``first``) check the very
    cases one run of them all would."""
    start = time.perf_counter()
    stop = first + cases
    ranges = [(seed, i, min(i + chunk, stop), oracle) for i in range(first, stop, chunk)]
    done, failures = 0, []
    if workers <= 1:
        parts = map(_run_range_star, ranges)
        pool = None
    else:
        pool = multiprocessing.get_context("spawn").Pool(workers)
        parts = pool.imap_unordered(_run_range_star, ranges)
    try:
        for count, found in parts:
            done += count
            failures += found
            if progress:
                progress(done, len(failures), time.perf_counter() - start)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return done, failures, time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python tests/fuzz", description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=1000, help="number of cases (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--first", type=int, default=0,
                        help="index of the first case (default 0): split one seed's cases")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--oracle", choices=sorted(ORACLES), default="fast")
    parser.add_argument("--case", type=int, default=None, help="run and describe one case")
    args = parser.parse_args(argv)
    if args.case is not None:
        print(Case(args.seed, args.case).describe())
        with _quiet():
            found = check_case(args.seed, args.case, args.oracle)
        print("\n".join(found) if found else "ok")
        return 1 if found else 0

    def progress(done, failed, seconds):
        print(f"  {done} cases, {failed} failures, {seconds:.0f} s", file=sys.stderr, flush=True)

    done, failures, seconds = run(args.cases, args.seed, args.workers, args.oracle,
                                  progress=progress if args.cases >= 20000 else None,
                                  first=args.first)
    for line in failures[:50]:
        print(line)
    first = f" from case {args.first}" if args.first else ""
    print(f"xsumufunc fuzz: {done} cases, seed {args.seed}{first}, oracle {args.oracle}, "
          f"{args.workers} worker(s), {seconds:.1f} s: {len(failures)} failures")
    return 1 if failures else 0
