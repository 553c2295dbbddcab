"""What the package's metadata promises: a long description (README.md, shown
on PyPI, away from the repository) without links into the repository, and
one minimum Python version."""

import pathlib
import re
import tomllib

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
