"""Sphinx configuration: the documents in docs/ (Markdown, through
myst-parser) and the API reference (api.rst) from the docstrings of the
installed package.  Build: pip install '.[docs]', then
sphinx-build -W -b html docs <output folder> (CI: .ci/run)."""

import importlib.metadata

project = "xsumufunc"
author = "xsumufunc developers"
copyright = "2026, the xsumufunc developers"
release = importlib.metadata.version("xsumufunc")
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",      # the numpydoc docstring sections
    "myst_parser",              # docs/*.md
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "images/*.py"]

# The docstrings describe every parameter's type in words; the annotations
# (numpy.typing unions) would only make the signatures unreadable.
autodoc_typehints = "none"
autodoc_member_order = "bysource"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False

myst_heading_anchors = 3
html_theme = "alabaster"
html_static_path: list[str] = []


def _ufunc_call_as_literal(app, what, name, obj, options, lines):
    """A ufunc's docstring opens with NumPy's generated call signature, whose
    ``*,`` would read as reST emphasis: show it as a literal."""
    import numpy as np

    if isinstance(obj, np.ufunc) and lines and lines[0].startswith(f"{obj.__name__}("):
        lines[0] = f"``{lines[0]}``"


def setup(app):
    app.connect("autodoc-process-docstring", _ufunc_call_as_literal)

# xsumufunc.torch and xsumufunc.jax import their library: where it is not
# installed, autodoc reads their docstrings against a stand-in.
import importlib.util as _util  # noqa: E402

autodoc_mock_imports = [m for m in ("torch", "jax") if _util.find_spec(m) is None]
