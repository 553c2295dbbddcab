"""The build backend: meson-python, after a check of the Python version.

pip reads requires-python only after the backend has prepared the metadata,
and meson-python does that by configuring the whole build: on a Python too
old, the user would get the meson log and only then the reason.  This module
is imported first (pyproject.toml: backend-path), so the reason comes alone,
in one line.
"""

import sys

if sys.version_info < (3, 11):       # noqa: UP036  (keep in step with requires-python)
    sys.exit(f"xsumufunc needs Python 3.11 or newer; this is Python "
             f"{sys.version.split()[0]} ({sys.executable}).")

from mesonpy import (  # noqa: E402  (after the check)
    build_editable,
    build_sdist,
    build_wheel,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
)

__all__ = ["build_editable", "build_sdist", "build_wheel", "get_requires_for_build_editable",
           "get_requires_for_build_sdist", "get_requires_for_build_wheel"]
