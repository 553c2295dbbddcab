"""The type information shipped with the package (PEP 561): the stubs of the
compiled modules name exactly what those modules define, with the right kind,
and the public functions carry hints on their signatures."""

import ast
import importlib
import inspect
import pathlib

import numpy as np
import pytest

import xsumufunc

# The installed package (the source folder under an editable install).
PACKAGE = pathlib.Path(xsumufunc.__file__).parent
COMPILED = ("xsumufunc._ufuncs", "xsumufunc._lowprec_ufuncs")


def _stub_names(module_name):
    """{name: 'ufunc' | 'function' | 'value'} declared in the module's .pyi."""
    tree = ast.parse((PACKAGE / (module_name.rpartition(".")[2] + ".pyi")).read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names[node.name] = "function"
        elif isinstance(node, ast.AnnAssign):
            kind = "ufunc" if ast.unparse(node.annotation) == "np.ufunc" else "value"
            names[node.target.id] = kind
    return names


def test_the_package_is_marked_typed():
    assert (PACKAGE / "py.typed").is_file()


def _kind(value):
    if isinstance(value, np.ufunc):
        return "ufunc"
    return "function" if callable(value) and not isinstance(value, type) else "value"


@pytest.mark.parametrize("module_name", COMPILED)
def test_stubs_match_the_compiled_module(module_name):
    module = importlib.import_module(module_name)
    stub = _stub_names(module_name)
    for name, kind in stub.items():
        assert hasattr(module, name), f"{module_name}.pyi declares {name}, the module lacks it"
        assert _kind(getattr(module, name)) == kind, name
    # Every public ufunc and function of the module is declared.
    defined = {name for name, value in vars(module).items()
               if not name.startswith("_") and _kind(value) in ("ufunc", "function")
               and not inspect.ismodule(value)}
    assert defined <= set(stub), f"not in {module_name}.pyi: {sorted(defined - set(stub))}"


@pytest.mark.parametrize("name", xsumufunc.__all__)
def test_public_functions_have_hints(name):
    obj = getattr(xsumufunc, name)
    if isinstance(obj, (np.ufunc, int)) or obj.__module__ in COMPILED:
        return                          # typed by the stubs
    functions = ([obj.reduce, obj.accumulate, obj.reduceat] if name == "exact_add" else [obj])
    for f in functions:
        hints = inspect.get_annotations(inspect.unwrap(f))
        params = [p for p in inspect.signature(f).parameters if p != "self"]
        missing = [p for p in params if p not in hints]
        assert not missing and "return" in hints, (name, missing)
