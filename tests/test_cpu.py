"""The one CPU dispatch (src/cpu/xs_cpu.c): XSUMUFUNC_KERNEL caps the SIMD level
of every kernel family, never beyond what the CPU has, so that the tests
reach each variant on one machine.  Each case runs in a child process: the
level is read once per process."""

import pytest
from childrun import run_with_kernel

from xsumufunc import _ufuncs

X86_LEVELS = ["generic", "sse2", "avx2", "avx512", "avx512vbmi", "avx512vnni"]


def expected_level(cap, best):
    """The level in force under `cap` on a CPU whose best level is `best`."""
    if best == "neon":
        return "generic" if cap == "generic" else "neon"
    if best == "generic":
        return "generic"
    if cap == "neon":
        return "generic"
    return X86_LEVELS[min(X86_LEVELS.index(cap), X86_LEVELS.index(best))]


def test_default_is_best():
    level, best = _ufuncs._simd_levels()
    out = run_with_kernel("best", "from xsumufunc import _ufuncs; print(*_ufuncs._simd_levels())")
    assert out[0].split() == [best, best]
    assert level in X86_LEVELS + ["neon"]


@pytest.mark.parametrize("cap", X86_LEVELS + ["neon"])
def test_cap_is_obeyed(cap):
    best = _ufuncs._simd_levels()[1]
    out = run_with_kernel(cap, "from xsumufunc import _ufuncs; print(*_ufuncs._simd_levels())")
    level, child_best = out[0].split()
    assert child_best == best
    assert level == expected_level(cap, best)


def test_unknown_value_warns_and_takes_best():
    best = _ufuncs._simd_levels()[1]
    code = ("import warnings\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    from xsumufunc import _ufuncs\n"
            "print(*_ufuncs._simd_levels())\n"
            "print(len(w), str(w[0].message) if w else '')\n")
    out = run_with_kernel("avx3", code)
    assert out[0].split() == [best, best]
    count, message = out[1].split(" ", 1)
    assert count == "1"
    assert "'avx3'" in message and "generic" in message


def test_the_dispatch_is_the_only_cpu_probe():
    """No C file but the dispatch probes the CPU or reads the variable."""
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[1] / "src"
    if not root.is_dir():
        pytest.skip("no source tree beside the tests")
    offenders = []
    for path in root.rglob("*.[ch]"):
        text = path.read_text()
        if path.name in ("xs_cpu.c", "xs_cpu.h"):
            continue
        for needle in ("__builtin_cpu_supports", "__builtin_cpu_init", "XSUMUFUNC_KERNEL\")",
                       "target_clones", "getauxval"):
            if needle in text:
                offenders.append((path.name, needle))
    assert offenders == []
