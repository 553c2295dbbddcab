"""Every public function gives the same bits whatever the caller's
floating-point mode: flush-to-zero (FTZ), denormals-are-zero (DAZ), both,
and each directed rounding mode, on subnormal inputs and on normal inputs
whose results are subnormal.  The results equal the default mode's and the
exact oracle's, and the caller's mode is back after each call.

Before, the loops pinned the mode for themselves only, and the Python and
NumPy steps between them (the rounding of variances, norms, moving and
grouped results) ran in the caller's: under FTZ/DAZ every subnormal
variance, standard deviation or norm came out as 0 (issue 28).  The
dispatch layer now pins the mode for the whole call.

The mode is set in this process through glibc's x86-64 fenv_t (MXCSR at
byte 28), as a -ffast-math library or fesetround would leave it; the inputs
are built before, in the default mode.  Every forced kernel runs the same
matrix in a child process.
"""

import contextlib
import ctypes
import ctypes.util
import json
import math
import pathlib
import platform
import sys
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from childrun import run_with_kernel
from helpers import assert_same
from oracle import FORMATS, oracle_accumulate, oracle_reduceat, round_fraction, terms_of
from oracle import exact_sum_oracle as sum_oracle
from oracle_moments import var_oracle
from oracle_pairs import average_oracle, corr_oracle, cov_oracle, line_oracle
from oracle_products import exact_dot_oracle, exact_mean_oracle
from oracle_roots import exact_square_sum, rounded_sqrt

import xsumufunc as xs
import xsumufunc.state as st
from xsumufunc import array_api as xp

pytestmark = pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64") or sys.platform != "linux"
    or not ctypes.util.find_library("m"),
    reason="sets the mode through glibc's x86-64 fenv_t (MXCSR at byte 28)")

F64, F32, BF16 = np.dtype(np.float64), np.dtype(np.float32), np.dtype(ml_dtypes.bfloat16)
FTZ, DAZ = 0x8000, 0x0040
# glibc x86-64 rounding constants.
FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO = 0, 0x400, 0x800, 0xC00
MODES = {"ftz": (FTZ, FE_TONEAREST), "daz": (DAZ, FE_TONEAREST),
         "ftz+daz": (FTZ | DAZ, FE_TONEAREST), "downward": (0, FE_DOWNWARD),
         "upward": (0, FE_UPWARD), "toward-zero": (0, FE_TOWARDZERO)}

_libm = ctypes.CDLL(ctypes.util.find_library("m")) if ctypes.util.find_library("m") else None


def _csr():
    env = (ctypes.c_ubyte * 64)()
    assert _libm.fegetenv(env) == 0
    return env, int.from_bytes(bytes(env[28:32]), "little")


@contextlib.contextmanager
def caller_mode(csr_bits, rounding):
    """Run the body with MXCSR |= csr_bits and the C rounding mode
    `rounding`; put the default mode back after."""
    saved, _ = _csr()
    try:
        assert _libm.fesetround(rounding) == 0
        env, csr = _csr()
        env[28:32] = list((csr | csr_bits).to_bytes(4, "little"))
        assert _libm.fesetenv(env) == 0
        yield
    finally:
        assert _libm.fesetenv(saved) == 0


def _mode_now():
    return _csr()[1] & 0xffc0, _libm.fegetround()     # control bits, without the flags


# ---- inputs (built in the default mode) and their exact results ----------

SUB64 = np.array([3.0, 5.0, -1.0, 2.0, 7.0]) * 2.0**-1074         # subnormal inputs
SUMSUB = np.array([1.5, -1.0, 0.25, -0.5, 0.0]) * 2.0**-1022       # normal, subnormal sum
VARSUB = np.array([0.0, 1.0, 3.0, 2.0, 5.0]) * 2.0**-530           # normal, subnormal variance
SUB32 = (np.array([3.0, 5.0, -1.0, 2.0, 7.0]) * 2.0**-149).astype(np.float32)
SUBBF = (np.array([3.0, 5.0, -1.0, 2.0, 7.0]) * 2.0**-133).astype(F32).astype(BF16)
INPUTS = {"sub64": SUB64, "sumsub": SUMSUB, "varsub": VARSUB, "sub32": SUB32, "subbf16": SUBBF}
WEIGHTS = np.array([1.0, 2.0, 3.0, -1.0, 1.0])
CODES = np.array([0, 1, 0, 1, 0])
WINDOW = 2


def _terms(x):
    return [Fraction(t) for t in terms_of(x)]


def _var(x, ddof=0):
    return var_oracle(terms_of(x), ddof)


def _result(x):
    return F64 if x.dtype.kind in "iu" else x.dtype


def _windows(x):
    return [x[max(0, i - WINDOW + 1):i + 1] for i in range(len(x))]


def _groups(x):
    return [x[CODES == g] for g in range(2)]


def _array(values, dtype):
    return np.array([np.asarray(v).astype(dtype) for v in values], dtype=dtype)


def _std(x, ddof=0):
    return rounded_sqrt(_var(x, ddof), _result(x))


# The exact result of one window or group in the result dtype d (a part of
# x has x's result dtype).
ONE_OF = {"sum": lambda p, d: sum_oracle(terms_of(p), d),
          "mean": lambda p, d: exact_mean_oracle(terms_of(p), d),
          "var": lambda p, d: round_fraction(_var(p), d),
          "std": lambda p, d: _std(p)}


def _each(parts, one, d):
    """An oracle (called with no argument): one(part, d) of each part, as
    one array."""
    return lambda: _array([one(p, d) for p in parts], d)


def _norm(x):
    return rounded_sqrt(exact_square_sum(x), _result(x))


def _round_down_magnitude(q, dtype):
    """|q| truncated to dtype's grid (the neighbour towards zero), and its ulp."""
    fmt = FORMATS[dtype]
    m = abs(q)
    e = m.numerator.bit_length() - m.denominator.bit_length()
    e = e if m >= Fraction(2) ** e else e - 1
    ulp = Fraction(2) ** (max(e, fmt.emin) - fmt.p + 1)
    return math.floor(m / ulp) * ulp, ulp


def _stochastic(q, dtype, r, k):
    """stochastic_round's definition on the exact value q (docstring)."""
    down, ulp = _round_down_magnitude(q, dtype)
    frac = (abs(q) - down) / ulp
    mag = down + ulp if r < frac * 2**k else down
    return round_fraction(mag if q >= 0 else -mag, dtype)


def _kahan(w, c, u, dtype):
    """Algorithm 1 of Zamirai et al., each operation rounded in dtype."""
    def r(q):
        return Fraction(float(round_fraction(q, dtype)))
    w, c, u = (Fraction(float(v)) for v in (w, c, u))
    y = r(u - c)
    s = r(w + y)
    return s, r((s - w) - y)


def _kahan_fold(x):
    dtype = x.dtype
    w, c = Fraction(0), Fraction(0)
    for t in terms_of(x):
        w, c = _kahan(w, c, t, dtype)
    return round_fraction(w, dtype)


BITS32 = np.array([0, 2**31, 2**32 - 1, 12345, 2**30], dtype=np.uint32)
STOCH = np.array([3.3, 5.7, -1.1, 2.5, 7.9]) * 2.0**-140          # float64, float32-subnormal


def _state(x):
    return xs.exact_sum_state(x)


def _cases():
    """{id: (call, oracle)}; call() runs the public function, oracle() its
    exact result (None: a state, compared with the default mode only, its
    rounding checked by the round_state cases)."""
    cases = {}
    for name, x in INPUTS.items():
        d = _result(x)
        s = lambda x=x, d=d: sum_oracle(terms_of(x), d)           # noqa: E731
        m = lambda x=x, d=d: exact_mean_oracle(terms_of(x), d)    # noqa: E731
        v = lambda x=x, d=d: round_fraction(_var(x), d)           # noqa: E731
        sd = lambda x=x: _std(x)                                  # noqa: E731
        both = np.stack([x, x[::-1]])
        moving = {k: _each(_windows(x), one, d) for k, one in ONE_OF.items()}
        grouped = {k: _each(_groups(x), one, d) for k, one in ONE_OF.items()}
        table = {
            "exact_sum": (lambda x=x: xs.exact_sum(x), s),
            "exact_nansum": (lambda x=x: xs.exact_nansum(x), s),
            "exact_mean": (lambda x=x: xs.exact_mean(x), m),
            "exact_nanmean": (lambda x=x: xs.exact_nanmean(x), m),
            "exact_var": (lambda x=x: xs.exact_var(x), v),
            "exact_nanvar": (lambda x=x: xs.exact_nanvar(x), v),
            "exact_std": (lambda x=x: xs.exact_std(x), sd),
            "exact_nanstd": (lambda x=x: xs.exact_nanstd(x), sd),
            "exact_var rows": (lambda b=both: xs.exact_var(b, axis=1),
                               lambda b=both, d=d: _array(
                                   [round_fraction(_var(r), d) for r in b], d)),
            "exact_std rows": (lambda b=both: xs.exact_std(b, axis=1),
                               lambda b=both, d=d: _array([_std(r) for r in b], d)),
            "exact_add.reduce": (lambda x=x: xs.exact_add.reduce(x), s),
            "exact_add.accumulate": (lambda x=x: xs.exact_add.accumulate(x),
                                     lambda x=x: oracle_accumulate(x)),
            "exact_add.reduceat": (lambda x=x: xs.exact_add.reduceat(x, [0, 2]),
                                   lambda x=x: oracle_reduceat(x, [0, 2])),
            "exact_cumsum_ufunc": (lambda x=x: xs.exact_cumsum_ufunc(x),
                                   lambda x=x: oracle_accumulate(x)),
            "exact_sum_ufunc": (lambda x=x: xs.exact_sum_ufunc(x), s),
            "exact_mean_ufunc": (lambda x=x: xs.exact_mean_ufunc(x), m),
            "exact_moving_sum": (lambda x=x: xs.exact_moving_sum(x, WINDOW, min_count=1),
                                 moving["sum"]),
            "exact_moving_mean": (lambda x=x: xs.exact_moving_mean(x, WINDOW, min_count=1),
                                  moving["mean"]),
            "exact_moving_var": (lambda x=x: xs.exact_moving_var(x, WINDOW, min_count=1),
                                 moving["var"]),
            "exact_moving_std": (lambda x=x: xs.exact_moving_std(x, WINDOW, min_count=1),
                                 moving["std"]),
            "exact_grouped_sum": (lambda x=x: xs.exact_grouped_sum(x, CODES, 2), grouped["sum"]),
            "exact_grouped_mean": (lambda x=x: xs.exact_grouped_mean(x, CODES, 2),
                                   grouped["mean"]),
            "exact_grouped_var": (lambda x=x: xs.exact_grouped_var(x, CODES, 2), grouped["var"]),
            "exact_grouped_std": (lambda x=x: xs.exact_grouped_std(x, CODES, 2), grouped["std"]),
            "exact_sum_state": (lambda x=x: xs.exact_sum_state(x), None),
            "exact_count": (lambda x=x: xs.exact_count(x), lambda x=x: np.int64(len(x))),
            "round_state": (lambda x=x, d=d: xs.round_state(_state(x), d), s),
            "state_mean": (lambda x=x, d=d: xs.state_mean(_state(x), len(x), d), m),
            "merge_states": (lambda x=x, d=d: xs.round_state(
                xs.merge_states(np.stack([_state(x), _state(x[:2])])), d),
                lambda x=x, d=d: sum_oracle(terms_of(x) + terms_of(x[:2]), d)),
            "exact_sum_state_ufunc": (lambda x=x: xs.exact_sum_state_ufunc(x), None),
            "exact_state_round_ufunc": (
                lambda x=x: xs.exact_state_round_ufunc(xs.exact_sum_state_ufunc(x)),
                lambda x=x: sum_oracle(terms_of(x), F64)),
            "exact_state_merge_ufunc": (
                lambda x=x: xs.exact_state_round_ufunc(xs.exact_state_merge_ufunc(
                    np.stack([xs.exact_sum_state_ufunc(x), xs.exact_sum_state_ufunc(x)]),
                    axes=[(0, 1), (0,)])),
                lambda x=x: sum_oracle(terms_of(x) * 2, F64)),
            "exact_state_mean_ufunc": (
                lambda x=x: xs.exact_state_mean_ufunc(xs.exact_sum_state_ufunc(x), len(x)),
                lambda x=x: exact_mean_oracle(terms_of(x), F64)),
            "xp.sum": (lambda x=x: xp.sum(x), lambda s=s: np.asarray(s())),
            "xp.mean": (lambda x=x: xp.mean(x), lambda m=m: np.asarray(m())),
            "xp.var": (lambda x=x: xp.var(x), lambda v=v: np.asarray(v())),
            "xp.std": (lambda x=x: xp.std(x), lambda sd=sd: np.asarray(sd())),
            "xp.cumulative_sum": (lambda x=x: xp.cumulative_sum(x),
                                  lambda x=x: oracle_accumulate(x)),
            "vector_norm": (lambda x=x: xp.linalg.vector_norm(x),
                            lambda x=x: np.asarray(_norm(x))),
            "vector_norm rows": (lambda b=both: xp.linalg.vector_norm(b, axis=1),
                                 lambda b=both, d=d: _array([_norm(r) for r in b], d)),
            # The framed states of xsumufunc.state, built and finished in the mode.
            "state.sum_state": (lambda x=x: st.finish_sum(st.sum_state(x)), s),
            "state.finish_sum": (lambda x=x: st.finish_sum(st.sum_state(x)), s),
            "state.finish_mean": (lambda x=x: st.finish_mean(st.sum_state(x)), m),
            "state.moments_state": (lambda x=x: st.finish_var(st.moments_state(x)), v),
            "state.finish_var": (lambda x=x: st.finish_var(st.moments_state(x)), v),
            "state.finish_std": (lambda x=x: st.finish_std(st.moments_state(x)), sd),
            "state.merge": (lambda x=x: st.finish_sum(st.merge([st.sum_state(x),
                                                                 st.sum_state(x[:2])])),
                            lambda x=x, d=d: sum_oracle(terms_of(x) + terms_of(x[:2]), d)),
            "state.grouped_sum_state": (
                lambda x=x: st.finish_sum(st.grouped_sum_state(x, CODES, 2)), grouped["sum"]),
            "state.grouped_moments_state": (
                lambda x=x: st.finish_var(st.grouped_moments_state(x, CODES, 2)), grouped["var"]),
            "state.regroup": (
                lambda x=x: st.finish_sum(st.regroup(st.grouped_sum_state(x, CODES, 2),
                                                     [0, 0], 1)),
                lambda s=s, d=d: _array([s()], d)),
        }
        if x.dtype != BF16:
            w = WEIGHTS.astype(x.dtype)
            dot = lambda x=x, w=w, d=d: exact_dot_oracle(terms_of(x), terms_of(w), d)  # noqa: E731
            table.update({
                "exact_dot": (lambda x=x, w=w: xs.exact_dot(x, w), dot),
                "exact_dot_ufunc": (lambda x=x, w=w: xs.exact_dot_ufunc(x, w), dot),
                "exact_dot_state_ufunc": (
                    lambda x=x, w=w: xs.exact_dot_state_round_ufunc(
                        xs.exact_dot_state_ufunc(x, w)),
                    lambda x=x, w=w: exact_dot_oracle(terms_of(x), terms_of(w), F64)),
                "xp.vecdot": (lambda x=x, w=w: xp.vecdot(x, w), lambda dot=dot: np.asarray(dot())),
                "xp.linalg.vecdot": (lambda x=x, w=w: xp.linalg.vecdot(x, w),
                                     lambda dot=dot: np.asarray(dot())),
                "state.dot_state": (lambda x=x, w=w: st.finish_dot(st.dot_state(x, w)), dot),
                "state.finish_dot": (lambda x=x, w=w: st.finish_dot(st.dot_state(x, w)), dot),
                "exact_average": (lambda x=x, w=w: xs.exact_average(x, weights=w),
                                  lambda x=x, w=w, d=d: average_oracle(x, w, d)),
                "exact_matmul": (lambda x=x, w=w: xs.exact_matmul(x[None, :], w[:, None]),
                                 lambda dot=dot, d=d: np.asarray(dot(), d).reshape(1, 1)),
                "exact_cov": (lambda x=x, w=w: xs.exact_cov(np.stack([x, w])),
                              lambda x=x, w=w: cov_oracle(np.stack([x, w]))),  # float64, as np.cov
            })
        if x.dtype == F64:
            w = WEIGHTS
            table.update({
                "exact_corrcoef": (lambda x=x, w=w: xs.exact_corrcoef(x, w),
                                   lambda x=x, w=w: corr_oracle(np.stack([x, w]))),
                "exact_linear_regression": (
                    lambda x=x, w=w: np.array(xs.exact_linear_regression(w, x)),
                    lambda x=x, w=w: np.array([round_fraction(q, F64)
                                               for q in line_oracle(w, x)])),
            })
        if x.dtype in (F32, BF16):
            table["kahan_sum"] = (lambda x=x: xs.kahan_sum(x), lambda x=x: _kahan_fold(x))
            u = x[::-1].astype(F32)
            table["kahan_add"] = (
                lambda x=x, u=u: np.stack(xs.kahan_add(x, np.full_like(x, x[0]), u)),
                lambda x=x, u=u: np.stack([
                    _array([round_fraction(p[i], x.dtype) for p in
                            [_kahan(a, x[0], b, x.dtype) for a, b in zip(
                                _terms(x), _terms(u))]], x.dtype) for i in (0, 1)]))
        for key, (call, oracle) in table.items():
            cases[f"{key}[{name}]"] = (call, oracle)
    d = F32
    cases["stochastic_round"] = (
        lambda: xs.stochastic_round(STOCH, d, bits=BITS32),
        lambda: _array([_stochastic(Fraction(q), d, int(r), 32)
                        for q, r in zip(STOCH, BITS32)], d))
    cases["stochastic_add"] = (
        lambda: xs.stochastic_add(SUB32, STOCH, bits=BITS32),
        lambda: _array([_stochastic(Fraction(float(a)) + Fraction(q), d, int(r), 32)
                        for a, q, r in zip(SUB32, STOCH, BITS32)], d))
    return cases


CASES = _cases()
# Every public function of xsumufunc that takes arrays, and where it is run.
ARRAY_FUNCTIONS = sorted(
    [n for n in xs.__all__ if n not in ("get_num_threads", "set_num_threads", "DOT_STATE_LENGTH",
                                        "STATE_LENGTH", "exact_add")]
    + [f"state.{n}" for n in st.__all__
       if n not in xs.__all__ and n not in ("STATE_DTYPE", "state_info")])


def test_every_public_function_is_in_the_matrix():
    """A new public function must join the matrix."""
    covered = {key.split("[")[0].split(" ")[0] for key in CASES}
    covered |= {n for n in ARRAY_FUNCTIONS if n in {"exact_dot_state_round_ufunc"}}
    missing = [n for n in ARRAY_FUNCTIONS if n not in covered]
    assert not missing, missing
    assert {"exact_add.reduce", "exact_add.accumulate", "exact_add.reduceat"} <= covered
    assert {f"xp.{n}" for n in ("sum", "mean", "var", "std", "cumulative_sum", "vecdot")} <= covered


def _run(call):
    with np.errstate(all="ignore"):
        return np.asarray(call())


def mismatches(modes=tuple(MODES)):
    """Every (case, mode) whose result differs from the default mode's, or
    whose default-mode result is not the oracle's; and every call after
    which the caller's mode was not back."""
    bad = []
    for key, (call, oracle) in CASES.items():
        default = _run(call)
        if oracle is not None:
            try:
                assert_same(default, np.asarray(oracle()))
            except AssertionError as e:
                bad.append(f"{key} default mode vs oracle: {e}")
        for mode in modes:
            with caller_mode(*MODES[mode]):
                before = _mode_now()
                got = _run(call)
                after = _mode_now()
            try:
                assert_same(got, default)
            except AssertionError as e:
                bad.append(f"{key} under {mode}: {e}")
            if after != before:
                bad.append(f"{key} under {mode}: the caller's mode was not restored "
                           f"({before} -> {after})")
    return bad


def test_the_mode_is_set_in_this_process():
    """The helper does set what the tests rely on: under DAZ a subnormal
    operand is read as 0, under FE_UPWARD 1 + 2**-60 rounds up."""
    one = np.float64(1.0)
    with caller_mode(DAZ, FE_TONEAREST):
        assert SUB64[0] * one == 0.0
    with caller_mode(0, FE_UPWARD):
        assert one + np.float64(2.0**-60) > 1.0
    assert SUB64[0] * one != 0.0


@pytest.mark.parametrize("key", sorted(CASES))
def test_same_bits_in_every_caller_mode(key):
    """Regression (issue 28): exact_var([0, 2**-530]), exact_std of float32
    [0, 2**-148], vector_norm([3, 4] * 2**-1074), exact_grouped_std,
    exact_moving_std and the float32/bfloat16 moving sums and means gave 0
    under FTZ/DAZ."""
    call, oracle = CASES[key]
    default = _run(call)
    if oracle is not None:
        assert_same(default, np.asarray(oracle()), key)
    for mode, (bits, rounding) in MODES.items():
        with caller_mode(bits, rounding):
            before = _mode_now()
            got = _run(call)
            assert _mode_now() == before, f"{key} under {mode}: mode not restored"
        assert_same(got, default, f"{key} under {mode}")


def test_the_issues_calls_under_ftz_daz():
    """The calls issue 28 lists, with the values the oracle gives (inputs
    built before the mode is set: under FTZ, np.float32(1e-45) is 0)."""
    tiny32 = np.float32([1e-45, 1e-45])
    var64 = np.array([0.0, 2.0**-530])
    std32 = np.float32([0, 2**-148])
    norm64 = np.array([3.0, 4.0]) * 2**-1074
    grouped = np.array([0, 2.0**-1073])
    std64 = np.array([0, 2.0**-1070, 2.0**-1072])
    moving = np.array([3.0, 5.0]) * 2**-1074
    calls = [
        (lambda: xs.exact_moving_sum(tiny32, 1), tiny32),
        (lambda: xs.exact_moving_mean(tiny32, 1), tiny32),
        (lambda: xs.exact_var(var64), round_fraction(var_oracle(terms_of(var64), 0), F64)),
        (lambda: xs.exact_std(std32), rounded_sqrt(var_oracle(terms_of(std32), 0), F32)),
        (lambda: xp.linalg.vector_norm(norm64),
         np.asarray(rounded_sqrt(exact_square_sum(norm64), F64))),
        (lambda: xs.exact_grouped_std(grouped, np.array([0, 0]), 1),
         _array([rounded_sqrt(var_oracle(terms_of(grouped), 0), F64)], F64)),
        (lambda: xs.exact_std(std64), rounded_sqrt(var_oracle(terms_of(std64), 0), F64)),
        (lambda: xs.exact_moving_std(moving, 2)[1:],
         _array([rounded_sqrt(var_oracle(terms_of(moving), 0), F64)], F64)),
        (lambda: xp.linalg.vector_norm(SUB64[:1]), np.asarray(SUB64[0])),
    ]
    for call, expected in calls:
        default = _run(call)
        if expected is not None:
            assert_same(default, expected)
        assert float(np.max(np.abs(default))) > 0
        with caller_mode(FTZ | DAZ, FE_TONEAREST):
            got = _run(call)
        assert_same(got, default)


def test_the_mode_is_restored_when_the_call_raises():
    with caller_mode(FTZ | DAZ, FE_DOWNWARD):
        before = _mode_now()
        with pytest.raises(TypeError):
            xs.exact_var(np.array(["a"]))
        assert _mode_now() == before


def test_the_pandas_accessor_under_ftz_daz():
    pd = pytest.importorskip("pandas")
    import xsumufunc.pandas_accessor  # noqa: F401  (registers .exact)
    s = pd.Series(VARSUB)
    for call in (lambda: s.exact.var(ddof=0), lambda: s.exact.std(ddof=0),
                 lambda: s.exact.sum(), lambda: s.exact.mean()):
        default = _run(call)
        with caller_mode(FTZ | DAZ, FE_TONEAREST):
            got = _run(call)
        assert_same(got, default)
    assert_same(_run(lambda: s.exact.var(ddof=0)), np.asarray(round_fraction(_var(VARSUB), F64)))


CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
import test_fp_call_mode as t
print(json.dumps(t.mismatches()))
"""


@pytest.mark.parametrize("kernel", ["generic", "sse2", "avx2", "avx512"])
def test_every_kernel(kernel):
    """The whole matrix in a child process per forced kernel (each picks its
    SIMD variant once)."""
    tests_dir = str(pathlib.Path(__file__).parent)
    out = run_with_kernel(kernel, CHILD, tests_dir, timeout=600)
    bad = json.loads([line for line in out if line][-1])
    assert not bad, bad[:20]
