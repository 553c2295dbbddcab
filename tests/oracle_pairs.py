"""Exact oracles of the statistics of pairs (covariance, correlation, the
least-squares line, the weighted mean), in Fractions, each rounded once."""

import math
from fractions import Fraction

import numpy as np
from oracle import round_fraction
from oracle_roots import rounded_sqrt

F64 = np.dtype(np.float64)


def _fr(v):
    return Fraction(float(v))


def _special(row):
    return any(not math.isfinite(float(v)) for v in row)


def cov_oracle(x, f=None, a=None, ddof=1, dtype=F64):
    """NumPy's covariance formula in Fractions, rounded once."""
    p, n = x.shape
    w = [Fraction(1)] * n
    if f is not None:
        w = [wi * int(fi) for wi, fi in zip(w, f)]
    if a is not None:
        w = [wi * _fr(ai) for wi, ai in zip(w, a)]
    weights_special = a is not None and _special(a)
    out = np.empty((p, p), dtype)
    sw = sum(w)
    if f is None and a is None:
        fact = n - ddof
    elif ddof == 0:
        fact = sw
    elif a is None:
        fact = sw - ddof
    else:
        fact = sw - ddof * sum(wi * _fr(ai) for wi, ai in zip(w, a)) / sw
    rows = [None if _special(r) else [_fr(v) for v in r] for r in x]
    for i in range(p):
        for j in range(p):
            if weights_special or rows[i] is None or rows[j] is None:
                out[i, j] = np.nan
                continue
            mi = sum(wk * v for wk, v in zip(w, rows[i])) / sw if sw else 0
            mj = sum(wk * v for wk, v in zip(w, rows[j])) / sw if sw else 0
            c = sum(wk * (u - mi) * (v - mj) for wk, u, v in zip(w, rows[i], rows[j]))
            if fact <= 0:
                out[i, j] = np.nan if c == 0 else (math.inf if c > 0 else -math.inf)
            else:
                out[i, j] = round_fraction(c / fact, dtype)
    return out.squeeze()



def corr_oracle(x):
    p, n = x.shape
    rows = [None if _special(r) else [_fr(v) for v in r] for r in x]

    def c(i, j):
        mi, mj = sum(rows[i]) / n, sum(rows[j]) / n
        return sum((u - mi) * (v - mj) for u, v in zip(rows[i], rows[j]))

    out = np.empty((p, p), F64)
    for i in range(p):
        for j in range(p):
            if rows[i] is None or rows[j] is None or c(i, i) == 0 or c(j, j) == 0:
                out[i, j] = np.nan
                continue
            cij = c(i, j)
            r = rounded_sqrt(cij * cij / (c(i, i) * c(j, j)), F64)
            out[i, j] = -r if cij < 0 else r
    return out.squeeze()



def line_oracle(x, y, proportional=False):
    """The exact (slope, intercept) Fractions of statistics.linear_regression,
    or None where x is constant (proportional: all zero)."""
    fx, fy = [_fr(v) for v in x], [_fr(v) for v in y]
    n = len(fx)
    if proportional:
        sxx = sum(v * v for v in fx)
        if sxx == 0:
            return None
        return sum(u * v for u, v in zip(fx, fy)) / sxx, Fraction(0)
    mx, my = sum(fx) / n, sum(fy) / n
    sxx = sum((u - mx) ** 2 for u in fx)
    if sxx == 0:
        return None
    slope = sum((u - mx) * (v - my) for u, v in zip(fx, fy)) / sxx
    return slope, my - slope * mx


def average_oracle(a, w, dtype=F64):
    """sum(a*w) / sum(w) of finite values, rounded once."""
    sw = sum(_fr(v) for v in w)
    return round_fraction(sum(_fr(u) * _fr(v) for u, v in zip(a, w)) / sw, dtype)
