"""The C-level tests of the vector kernels that .ci/aarch64 runs under
emulation, built natively.

tests/c/neon_diff.c: on aarch64 it compares every NEON kernel with the
generic one; here it compares the x86 kernels this CPU runs (SSE2, AVX2,
AVX-512) with the same generic ones, and the drivers (sums, dot products,
column sums) with the scalar exact accumulators at the default and the
generic level.  tests/c/moving_diff.c: the moving-window lanes against an
exact oracle, at both levels.  Skipped without a C compiler.
"""

import os
import pathlib
import shutil
import subprocess
import sysconfig

import numpy as np
import pytest
from childrun import run

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = [
    "src/cpu/xs_cpu.c",
    "src/exact/xs_small.c", "src/exact/xs_large.c", "src/exact/xs_round.c",
    "src/exact/xs_dot.c", "src/exact/xs_dot_bins.c",
    "src/kernels/cells/xs_cells.c", "src/kernels/cells/xs_cells_neon.c",
    "src/kernels/cells/xs_columns.c",
    "src/kernels/dot/xs_dot_cells.c", "src/kernels/dot/xs_dot_cells_generic.c",
    "src/kernels/dot/xs_dot_cells_neon.c", "src/kernels/dot/xs_short_row.c",
]


MOVING_SOURCES = [
    "src/cpu/xs_cpu.c",
    "src/exact/xs_small.c", "src/exact/xs_large.c", "src/exact/xs_round.c",
    "src/kernels/moving/xs_moving.c", "tests/c/moving_stubs.c",
]


def _build(tmp_path_factory, main, sources, includes=(), defines=()):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    if not (ROOT / "tests" / "c" / main).exists():
        pytest.skip("the C sources are not here (an installed package)")
    exe = tmp_path_factory.mktemp("c_tests") / main.removesuffix(".c")
    # The project's floating-point flags (meson.build): no contraction.
    subprocess.run([cc, "-O2", "-std=c17", "-ffp-contract=off", "-fno-fast-math",
                    "-I", str(ROOT / "src"), *[f"-I{inc}" for inc in includes],
                    *[f"-D{d}" for d in defines],
                    "-o", str(exe), str(ROOT / "tests" / "c" / main),
                    *[str(ROOT / s) for s in sources], "-lm"],
                   check=True, capture_output=True, timeout=600)
    return exe


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    return _build(tmp_path_factory, "neon_diff.c", SOURCES)


@pytest.fixture(scope="module")
def scalar_program(tmp_path_factory):
    # The portable kernels as a compiler without GCC's vector extensions
    # gets them: one double per operation (XS_NO_VECTOR_EXT).
    return _build(tmp_path_factory, "neon_diff.c", SOURCES, defines=["XS_NO_VECTOR_EXT"])


@pytest.fixture(scope="module")
def moving_program(tmp_path_factory):
    # xs_moving.c takes Python's and NumPy's headers for its types.
    return _build(tmp_path_factory, "moving_diff.c", MOVING_SOURCES,
                  [sysconfig.get_paths()["include"], np.get_include()])


def _no_mismatches(program, arg, level):
    """Run a C test program at XSUMUFUNC_KERNEL=level; assert that it exited
    with status 0 and counted no mismatch; return its output."""
    out = run([program, arg], level, timeout=600)
    assert out.rstrip().endswith(" 0 mismatches"), out
    return out


@pytest.mark.slow
@pytest.mark.parametrize("level", ["best", "generic"])
def test_vector_kernels_match_the_generic_ones(program, level):
    out = _no_mismatches(program, "1500", level)
    assert ("drivers at level generic" if level == "generic" else "drivers at level") in out


@pytest.mark.slow
def test_vector_kernels_match_the_scalar_portable_ones(scalar_program):
    out = _no_mismatches(scalar_program, "500", "generic")
    assert "drivers at level generic" in out


@pytest.mark.slow
@pytest.mark.parametrize("level", ["best", "generic"])
def test_moving_lanes_match_the_oracle(moving_program, level):
    _no_mismatches(moving_program, "11", level)
