"""The manual's API reference (docs/api.rst) is complete: every name in
xsumufunc.__all__, every public function of the public submodules and every
accessor method has an entry; help() shows readable signatures."""

import importlib
import inspect
import pathlib
import pydoc
import re

import numpy as np
import pytest

import xsumufunc

API_RST = pathlib.Path(__file__).resolve().parent.parent / "docs" / "api.rst"

#: The public submodules whose __all__ the reference covers (array_api: the
#: functions we define; the rest is array_api_compat's namespace).
SUBMODULES = ("xsumufunc.state", "xsumufunc.lowprec", "xsumufunc.fprev",
              "xsumufunc.dask_dataframe", "xsumufunc.array_api", "xsumufunc.array_api.linalg",
              "xsumufunc.pandas_accessor")
#: Public submodules that import an optional library, covered where it is
#: installed (their entries are checked only there).
OPTIONAL = {"xsumufunc.torch": "torch", "xsumufunc.jax": "jax", "xsumufunc.polars": "polars"}


def _available(module_name):
    import importlib.util
    return importlib.util.find_spec(OPTIONAL[module_name]) is not None


def _submodules():
    return SUBMODULES + tuple(m for m in OPTIONAL if _available(m))


def _unavailable(qualified):
    """A name in an optional submodule whose library is not installed."""
    return any(qualified == m or qualified.startswith(m + ".")
               for m in OPTIONAL if not _available(m))

_DIRECTIVE = re.compile(r"^\.\. (?:auto)?(?:function|data|class|module|method|attribute|"
                        r"exception)::\s+(\S+)\s*$")
_OPTION = re.compile(r"^\s+:(\w[\w-]*):\s*(.*)$")


def documented(text):
    """Every qualified name the reST text gives an entry: directives (a
    data directive may name several, one a line), and the :members: of
    automodule/autoclass directives (which may run over several lines)."""
    names = set()
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = _DIRECTIVE.match(lines[i])
        i += 1
        if not match:
            continue
        owner = match.group(1)
        names.add(owner)
        # Further signatures: indented names right under the directive.
        while i < len(lines) and re.match(r"^\s+[\w.]+\s*$", lines[i]):
            names.add(lines[i].strip())
            i += 1
        while i < len(lines) and _OPTION.match(lines[i]):
            option, value = _OPTION.match(lines[i]).groups()
            i += 1
            while i < len(lines) and re.match(r"^\s{4,}\w", lines[i]) \
                    and not _OPTION.match(lines[i]):
                value += " " + lines[i].strip()       # a continued :members: list
                i += 1
            if option == "members":
                names.update(f"{owner}.{m.strip()}" for m in value.split(",") if m.strip())
    return names


def _resolve(qualified):
    """The object a qualified name refers to: attributes from the top
    package down, a submodule imported where no attribute has its name
    (never a failed import: each costs the editable install a rebuild check)."""
    parts = qualified.split(".")
    obj = importlib.import_module(parts[0])
    for i, attr in enumerate(parts[1:], start=2):
        if hasattr(obj, attr):
            obj = getattr(obj, attr)
        elif inspect.ismodule(obj):
            obj = importlib.import_module(".".join(parts[:i]))
        else:
            raise LookupError(qualified)
    return obj


def _ours(obj):
    return getattr(obj, "__module__", "").startswith("xsumufunc") or not (
        inspect.isroutine(obj) or inspect.isclass(obj))


def required():
    """(qualified name, object) of everything the reference must have."""
    names = [(f"xsumufunc.{n}", getattr(xsumufunc, n)) for n in xsumufunc.__all__]
    for module_name in _submodules():
        module = importlib.import_module(module_name)
        for n in module.__all__:
            obj = getattr(module, n)
            if module_name.startswith("xsumufunc.array_api") and not (
                    inspect.isroutine(obj) and obj.__module__.startswith("xsumufunc")):
                continue                  # array_api_compat's (and NumPy's) names
            if _ours(obj) and not inspect.ismodule(obj):
                names.append((f"{module_name}.{n}", obj))
    from xsumufunc.pandas_accessor import ExactFrameAccessor, ExactSeriesAccessor

    for cls in (ExactFrameAccessor, ExactSeriesAccessor):
        names += [(f"xsumufunc.pandas_accessor.{cls.__name__}.{m}", getattr(cls, m))
                  for m in vars(cls) if not m.startswith("_")]
    return names


def missing_entries(text):
    """The required names that have no entry, under their own name or as
    the same object under the same last name elsewhere (xsumufunc.exact_count
    is xsumufunc.state.exact_count)."""
    entries = documented(text)
    by_last = {}
    for qualified in entries:
        if _unavailable(qualified):
            continue
        try:
            by_last.setdefault(qualified.rsplit(".", 1)[-1], []).append(_resolve(qualified))
        except (LookupError, AttributeError):
            pass
    return sorted(q for q, obj in required()
                  if q not in entries
                  and not any(o is obj for o in by_last.get(q.rsplit(".", 1)[-1], [])))


def test_every_public_name_has_an_entry():
    assert missing_entries(API_RST.read_text()) == []


def test_a_missing_entry_is_found():
    text = API_RST.read_text()
    assert "xsumufunc.exact_dot_ufunc" in missing_entries(
        text.replace(".. autodata:: xsumufunc.exact_dot_ufunc", ""))
    cut = re.sub(r"(ExactSeriesAccessor\n   :members: .*?)rolling_var, ", r"\1", text)
    assert "xsumufunc.pandas_accessor.ExactSeriesAccessor.rolling_var" in missing_entries(cut)


def test_every_entry_names_something():
    for qualified in documented(API_RST.read_text()):
        if not _unavailable(qualified):
            _resolve(qualified)               # AttributeError / LookupError: a stale entry


def _public_callables():
    for qualified, obj in required():
        if callable(obj) and not isinstance(obj, (np.ufunc, type)):
            yield qualified, obj


@pytest.mark.parametrize("qualified", [q for q, _ in _public_callables()])
def test_help_opens_with_a_readable_signature(qualified):
    obj = _resolve(qualified)
    # pydoc's first lines: the title, a blank line, then the signature.
    text = pydoc.render_doc(obj, renderer=pydoc.plaintext)
    signature = next(line for line in text.splitlines()[1:] if line.strip())
    assert len(signature) < 400, (qualified, signature)
    assert "_SupportsArray" not in signature and "Union[" not in signature
