"""The results do not depend on the caller's floating-point mode: a child
process switches to flush-to-zero / denormals-are-zero or to another
rounding direction (as a -ffast-math library or fesetround would), under
every forced kernel, and every result still matches the exact oracle."""

import ctypes.util
import json
import platform
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from childrun import run_with_kernel
from helpers import assert_same
from oracle import BFLOAT16, FLOAT32, FLOAT64, exact_sum_oracle
from oracle_products import exact_dot_oracle

pytestmark = pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64") or sys.platform != "linux"
    or not ctypes.util.find_library("m"),
    reason="sets the mode through glibc's x86-64 fenv_t (MXCSR at byte 28)")

# Modes the child sets before computing: glibc x86-64 constants.
FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO = 0x400, 0x800, 0xC00
MODES = {"ftz-daz": None, "downward": FE_DOWNWARD, "upward": FE_UPWARD,
         "toward-zero": FE_TOWARDZERO}

# The case: the exact value is +4.6e315 (-inf under FE_DOWNWARD before).
DOT_A = [-4.100887328327153e+187, -1.0829722045308742e-39, 8.201832387747617e+135]
DOT_B = [-1.1330678478078215e+128, -3.400249821490265e-114, -4.1100870376378905e+177]


def _cases():
    rng = np.random.default_rng(11)
    sub = rng.uniform(-1, 1, 4000) * 2.0**-1040            # subnormal terms
    sub[::7] *= 2.0**40                                    # and normal ones
    wide = rng.standard_normal(5000) * np.exp(rng.uniform(-40, 40, 5000))
    return {"subnormal": sub, "wide": wide,
            "wide32": (rng.standard_normal(3000) * np.exp(rng.uniform(-30, 30, 3000))
                       ).astype(np.float32)}


CHILD = textwrap.dedent("""
    import ctypes, ctypes.util, json, sys
    import numpy as np, xsumufunc as xs
    mode, path = sys.argv[1], sys.argv[2]
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    if mode == "ftz-daz":
        env = (ctypes.c_ubyte * 64)()
        assert libm.fegetenv(env) == 0
        csr = int.from_bytes(bytes(env[28:32]), "little") | 0x8040   # FTZ | DAZ
        env[28:32] = list(csr.to_bytes(4, "little"))
        assert libm.fesetenv(env) == 0
        assert np.array([2.0**-1070]) * np.float64(1.0) == 0.0       # DAZ is on
    else:
        assert libm.fesetround(int(mode)) == 0
        assert libm.fegetround() == int(mode)
    cases = np.load(path)
    out = {}
    with np.errstate(all="ignore"):
        for name in sorted(cases.files):
            x = cases[name]
            out[name] = float(xs.exact_sum(x)).hex()
            out[name + "[::3]"] = float(xs.exact_sum(x[::3])).hex()
            out[name + " mean"] = float(xs.exact_mean(x)).hex()
            out[name + " cumsum"] = float(xs.exact_add.accumulate(x)[-1]).hex()
            xs.set_num_threads(2)
            big = np.tile(x, 200)
            out[name + " threads"] = float(xs.exact_sum(big)).hex()
            xs.set_num_threads(0)
        out["dot"] = float(xs.exact_dot(cases["dot_a"], cases["dot_b"])).hex()
        out["var"] = float(xs.exact_var(cases["subnormal"])).hex()
    print(json.dumps(out))
""")


@pytest.mark.parametrize("kernel", ["generic", "sse2", "avx2", "avx512"])
@pytest.mark.parametrize("mode", sorted(MODES))
def test_results_do_not_depend_on_the_callers_fp_mode(mode, kernel, tmp_path):
    cases = _cases()
    path = tmp_path / "cases.npz"
    np.savez(path, dot_a=np.array(DOT_A), dot_b=np.array(DOT_B), **cases)
    arg = "ftz-daz" if MODES[mode] is None else str(MODES[mode])
    got = json.loads(run_with_kernel(kernel, CHILD, arg, path)[0])
    for name, x in cases.items():
        dtype = FLOAT32 if x.dtype == np.float32 else FLOAT64
        expect = {name: exact_sum_oracle(x, dtype),
                  name + "[::3]": exact_sum_oracle(x[::3], dtype),
                  name + " cumsum": exact_sum_oracle(x, dtype),
                  name + " threads": exact_sum_oracle(np.tile(x, 200), dtype)}
        for key, value in expect.items():
            assert_same(np.array(float.fromhex(got[key])).astype(dtype), value, key)
    assert_same(np.float64(float.fromhex(got["dot"])), exact_dot_oracle(DOT_A, DOT_B, FLOAT64))
    assert float.fromhex(got["dot"]) > 0


def test_the_callers_mode_is_restored(tmp_path):
    """The loops pin the mode for themselves only: the caller's rounding mode
    and FTZ/DAZ bits are back after the call (and NumPy still sees the
    overflow flag the loop raised)."""
    code = textwrap.dedent("""
        import ctypes, ctypes.util, warnings
        import numpy as np, xsumufunc as xs
        libm = ctypes.CDLL(ctypes.util.find_library("m"))
        libm.fesetround(0x400)
        xs.exact_sum(np.ones(10))
        assert libm.fegetround() == 0x400, libm.fegetround()
        libm.fesetround(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert xs.exact_sum([1e308, 1e308]) == np.inf
        assert any("overflow" in str(w.message) for w in caught), caught
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]
    assert BFLOAT16 is not None
