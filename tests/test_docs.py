"""The examples users read must run and print what they say."""

import doctest
import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "xsumufunc"
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _modules_with_examples():
    """Every module of the package whose source (Python or Cython) shows an
    example: found by walking the package, so a new module cannot be missed."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")) + sorted(PACKAGE.rglob("*.pyx")):
        if ">>>" in path.read_text():
            parts = path.relative_to(ROOT).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


MODULES = _modules_with_examples()


def test_the_walk_finds_the_modules():
    assert {"xsumufunc._api.sums", "xsumufunc._api.stats", "xsumufunc._api.moving",
            "xsumufunc._ufuncs", "xsumufunc.lowprec"} <= set(MODULES)


#: Modules that import an optional library: their examples run where it is
#: installed (and in their own test files), and are skipped elsewhere.
NEEDS = {"xsumufunc.torch": "torch", "xsumufunc.jax": "jax", "xsumufunc.polars": "polars"}


@pytest.mark.parametrize("name", MODULES)
def test_module_docstring_examples(name):
    if name in NEEDS:
        pytest.importorskip(NEEDS[name], reason=f"{name} needs {NEEDS[name]}")
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=FLAGS, verbose=False)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0


def test_readme_examples():
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False,
                              optionflags=FLAGS, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0


def test_demo_runs(capsys):
    from xsumufunc.__main__ import main
    assert main([]) == 0
    shown = capsys.readouterr().out
    # The demo checks each exact value against a Fraction sum and says so.
    assert "matches the exact Fraction sum: True" in shown
    assert "matches the exact Fraction sum: False" not in shown


def test_importing_the_source_folder_gives_a_one_line_hint(tmp_path):
    """Running Python inside the clone without -P imports the uncompiled
    source folder: one clear line instead of a bare ModuleNotFoundError."""
    import shutil
    import subprocess
    import sys

    import xsumufunc

    if "editable" in type(xsumufunc.__spec__.loader).__module__:
        pytest.skip("an editable install redirects every import of xsumufunc")
    shutil.copytree(ROOT / "xsumufunc", tmp_path / "xsumufunc",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    proc = subprocess.run([sys.executable, "-c", "import xsumufunc"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: xsumufunc: the compiled extension is missing"), last
    assert "pip install ." in last and "-P" in last


#: The manual's pages whose examples are doctests (each page runs on its own).
DOC_PAGES = sorted(p.name for p in (ROOT / "docs").glob("*.md") if ">>> " in p.read_text())


@pytest.mark.parametrize("page", DOC_PAGES)
def test_manual_page_examples(page):
    result = doctest.testfile(str(ROOT / "docs" / page), module_relative=False,
                              optionflags=FLAGS, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0
