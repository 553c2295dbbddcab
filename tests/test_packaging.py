"""What the package's metadata promises: a long description (README.md, shown
on PyPI, away from the repository) without links into the repository, and
one minimum Python version."""

import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_readme_links_do_not_depend_on_the_repository():
    """Markdown links and pictures in README.md are absolute URLs: a relative
    one (docs/contract.md) breaks wherever the README is shown without the
    repository.  Files are named as text instead."""
    text = (ROOT / "README.md").read_text()
    targets = re.findall(r"!?\[[^\]]*\]\(([^)\s]+)", text)
    relative = [t for t in targets if not re.match(r"[a-z]+://", t)]
    assert not relative, relative


def test_the_build_backend_checks_the_python_version_of_requires_python():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    required = re.fullmatch(r">=(\d+)\.(\d+)", project["project"]["requires-python"])
    backend = (ROOT / "backend" / "xsumufunc_backend.py").read_text()
    checked = re.search(r"sys\.version_info < \((\d+), (\d+)\)", backend)
    assert required and checked
    assert checked.groups() == required.groups()
    assert f"Python {required[1]}.{required[2]} or newer" in backend
    assert project["build-system"]["build-backend"] == "xsumufunc_backend"


def _git(*args):
    """git's output in the repository, or None outside a git checkout."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return None
    done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def test_ci_scripts_are_left_out_of_the_sdist():
    """meson dist (python -m build --sdist) takes the files of git archive,
    which leaves out those marked export-ignore (.gitattributes)."""
    files = _git("ls-files", ".ci")
    if not files:
        pytest.skip("not a git checkout (an sdist, say): nothing to check")
    attrs = _git("check-attr", "export-ignore", "--", *files.split())
    assert attrs is not None
    not_ignored = [line for line in attrs.splitlines() if not line.endswith(": set")]
    assert not not_ignored, not_ignored


@pytest.mark.slow
def test_the_sdist_has_no_ci_folder(tmp_path):
    pytest.importorskip("build")
    if _git("status") is None:
        pytest.skip("the sdist is built from a git checkout")
    subprocess.run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "-o",
                    str(tmp_path), str(ROOT)], check=True, capture_output=True)
    (tarball,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(tarball) as tar:
        names = [n.split("/", 1)[-1] for n in tar.getnames()]
    assert "pyproject.toml" in names and any(n.startswith("src/") for n in names)
    assert not [n for n in names if n == ".ci" or n.startswith(".ci/")]
