"""The shape of the package (docs/architecture.md): layers that import one
way only, and every public function routed through the one dispatching
decorator, so that Dask arrays give lazy Dask results and array-API arrays
give arrays of their own namespace."""

import ast
import pathlib
import re
import warnings

import ml_dtypes
import numpy as np
import pytest

import xsumufunc as xs

PACKAGE = pathlib.Path(xs.__file__).parent


def _module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path):
    """Every xsumufunc module `path` imports, at any depth of the code."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("xsumufunc"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("xsumufunc"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if _exists(sub) else target)
    return found


def _exists(module):
    rel = pathlib.Path(*module.split(".")[1:])
    return ((PACKAGE / rel).with_suffix(".py").exists() or (PACKAGE / rel / "__init__.py").exists()
            or any(PACKAGE.joinpath(rel.parent).glob(rel.name + ".*.so"))
            or any(PACKAGE.joinpath(rel.parent).glob(rel.name + ".pyx")))


def _layer(module):
    """0 compiled extensions, 1 core, 2 backends, 3 dispatch, 4 public API."""
    if module in ("xsumufunc._ufuncs", "xsumufunc._lowprec_ufuncs"):
        return 0
    if module.startswith("xsumufunc._core"):
        return 1
    if module.startswith("xsumufunc._backends"):
        return 2
    if module == "xsumufunc._dispatch":
        return 3
    return 4


GRAPH = {_module_name(p): _imports(p) for p in PACKAGE.rglob("*.py")}


def test_the_graph_was_read():
    assert {"xsumufunc._core.spec", "xsumufunc._backends.dask", "xsumufunc._dispatch",
            "xsumufunc._api.sums", "xsumufunc.state"} <= set(GRAPH)
    assert "xsumufunc._core.spec" in GRAPH["xsumufunc._core.reduce"]


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_layers_point_one_way(module):
    """A module imports only its own layer or the layers below it; the core
    and the backends never import dispatch or the public API."""
    upward = sorted(m for m in GRAPH[module] if _layer(m) > _layer(module))
    assert upward == [], f"{module} imports the layers above it: {upward}"


def test_no_import_cycles():
    state = {}

    def visit(module, stack):
        state[module] = "open"
        for dep in sorted(GRAPH.get(module, ())):
            if dep == module or dep not in GRAPH:
                continue
            if state.get(dep) == "open":
                raise AssertionError("import cycle: " + " -> ".join(stack + [module, dep]))
            if dep not in state:
                visit(dep, stack + [module])
        state[module] = "done"

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [])


def test_dispatch_imports_no_backend():
    """Backends are registered by name and imported on first use."""
    assert not any(m.startswith("xsumufunc._backends") for m in GRAPH["xsumufunc._dispatch"])


# ---- every public function goes through the dispatching decorator ----------

RNG = np.random.default_rng(1)
X = RNG.standard_normal((4, 6)) * np.exp(RNG.standard_normal((4, 6)) * 20)
CODES = np.array([0, 2, 1, 0, 2, 2] * 4)
STATES = xs.exact_sum_state(X, axis=1)
W = np.ones(6, ml_dtypes.bfloat16)
U = (RNG.standard_normal(6) * 1e-3).astype(np.float32)
BITS = RNG.integers(0, 2**16, 6).astype(np.uint16)

# name -> (function, array arguments (the ones a backend may see), other kwargs)
CALLS = {
    "exact_sum": (xs.exact_sum, (X,), {"axis": 1}),
    "exact_nansum": (xs.exact_nansum, (X,), {"axis": 0}),
    "exact_mean": (xs.exact_mean, (X,), {"axis": 1}),
    "exact_nanmean": (xs.exact_nanmean, (X,), {}),
    "exact_add.reduce": (xs.exact_add.reduce, (X,), {"axis": 1}),
    "exact_add.accumulate": (xs.exact_add.accumulate, (X,), {"axis": 1}),
    "exact_add.reduceat": (xs.exact_add.reduceat, (X, np.array([0, 4, 2])), {"axis": 1}),
    "exact_dot": (xs.exact_dot, (X, X), {}),
    "exact_sum_state": (xs.exact_sum_state, (X,), {"axis": 0}),
    "exact_count": (xs.exact_count, (X,), {"axis": 1, "where": X > 0}),
    "merge_states": (xs.merge_states, (STATES,), {}),
    "round_state": (xs.round_state, (STATES,), {"dtype": np.float32}),
    "state_mean": (xs.state_mean, (STATES, np.array([6, 6, 6, 6])), {}),
    "exact_grouped_sum": (xs.exact_grouped_sum, (X.reshape(-1), CODES), {"ngroups": 4}),
    "exact_grouped_mean": (xs.exact_grouped_mean, (X.reshape(-1), CODES), {"ngroups": 3}),
    "exact_grouped_var": (xs.exact_grouped_var, (X.reshape(-1), CODES), {"ngroups": 4}),
    "exact_grouped_std": (xs.exact_grouped_std, (X.reshape(-1), CODES),
                          {"ngroups": 3, "ddof": 1, "dtype": np.float32}),
    "kahan_sum": (xs.kahan_sum, (X,), {"axis": 0}),
    "exact_moving_sum": (xs.exact_moving_sum, (X,), {"window": 3, "min_count": 2}),
    "exact_moving_mean": (xs.exact_moving_mean, (X,), {"window": 2, "axis": 0}),
    "exact_moving_var": (xs.exact_moving_var, (X,), {"window": 3, "ddof": 1}),
    "exact_moving_std": (xs.exact_moving_std, (X,), {"window": 2, "axis": 0, "min_count": 1}),
    "exact_var": (xs.exact_var, (X,), {"axis": 1}),
    "exact_std": (xs.exact_std, (X,), {"axis": 0, "ddof": 1}),
    "exact_nanvar": (xs.exact_nanvar, (X,), {"where": X > 0}),
    "exact_nanstd": (xs.exact_nanstd, (X,), {"axis": (0, 1), "keepdims": True}),
    "kahan_add": (xs.kahan_add, (W, np.zeros_like(W), U), {}),
    "stochastic_add": (xs.stochastic_add, (W, U), {"bits": BITS}),
    "stochastic_round": (xs.stochastic_round, (U,), {"dtype": ml_dtypes.bfloat16,
                                                     "bits": BITS}),
    "exact_average": (xs.exact_average, (X,), {"axis": 1, "weights": np.arange(1.0, 7.0)}),
    "exact_cov": (xs.exact_cov, (X,), {"aweights": np.arange(1.0, 7.0)}),
    "exact_corrcoef": (xs.exact_corrcoef, (X,), {"rowvar": False}),
    "exact_linear_regression": (xs.exact_linear_regression, (X[0], X[1]), {}),
    "exact_matmul": (xs.exact_matmul, (X, X.T), {}),
}


def test_every_public_function_is_dispatched_and_tested_here():
    public = {name for name in xs.__all__
              if callable(getattr(xs, name)) and not isinstance(getattr(xs, name), np.ufunc)
              and name not in ("get_num_threads", "set_num_threads", "exact_add")}
    public |= {"exact_add.reduce", "exact_add.accumulate", "exact_add.reduceat"}
    assert public == set(CALLS)
    for name, (func, _, _) in CALLS.items():
        target = getattr(func, "__func__", func)
        dispatched = getattr(target, "dispatched", None)
        if dispatched is None:      # exact_add's methods call a dispatched function
            dispatched = getattr(xs._api.add, "_" + name.split(".")[1]).dispatched
        assert dispatched.name == name


@pytest.mark.parametrize("name", sorted(CALLS))
def test_traits_are_declared_where_the_name_says(name):
    """The traits backends read (skips NaN, a mean, a square root) are
    declared beside each public function; the names must agree with them."""
    func = getattr(CALLS[name][0], "__func__", CALLS[name][0])
    dispatched = getattr(func, "dispatched", None) or getattr(
        xs._api.add, "_" + name.split(".")[-1]).dispatched
    short = name.removeprefix("exact_")
    assert dispatched.skips_nan == short.startswith("nan")
    assert dispatched.mean == short.endswith("mean")
    assert dispatched.std == short.endswith("std")


def _same_bits(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()


def _numpy_result(func, arrays, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return func(*arrays, **kwargs)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_dask_input_gives_a_lazy_dask_result(name):
    da = pytest.importorskip("dask.array")
    func, arrays, kwargs = CALLS[name]
    expected = _numpy_result(func, arrays, kwargs)
    lazy = [da.from_array(a, chunks=tuple(max(1, n // 2) for n in a.shape)) for a in arrays]
    got = func(lazy[0], *arrays[1:], **kwargs)
    parts = got if isinstance(got, tuple) else (got,)
    assert all(isinstance(p, da.Array) for p in parts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        computed = tuple(p.compute() for p in parts)
    for g, e in zip(computed, expected if isinstance(expected, tuple) else (expected,)):
        _same_bits(g, e)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_an_array_api_input_gives_an_array_of_its_namespace(name):
    xps = pytest.importorskip("array_api_strict")
    func, arrays, kwargs = CALLS[name]
    expected = _numpy_result(func, arrays, kwargs)
    if any(np.asarray(e).dtype == ml_dtypes.bfloat16 for e in
           (expected if isinstance(expected, tuple) else (expected,))):
        # array_api_strict has no bfloat16: a clear TypeError, not a wrong type.
        with pytest.raises(TypeError, match="bfloat16"):
            func(*[xps.asarray(a) if a.dtype != ml_dtypes.bfloat16 else a for a in arrays],
                 **kwargs)
        return
    got = _numpy_result(func, [xps.asarray(a) for a in arrays], kwargs)
    for g, e in zip(got if isinstance(got, tuple) else (got,),
                    expected if isinstance(expected, tuple) else (expected,)):
        assert type(g).__module__.startswith("array_api_strict")
        _same_bits(np.asarray(g), e)


# ---- the C side: src/ folders by layer -------------------------------------

#: Each folder of src/ and the folders its #includes may name (its own and
#: the layers below it; docs/architecture.md draws them).
C_LAYERS = {
    "exact": {"exact"},
    "cpu": {"cpu"},
    "runtime": {"runtime", "exact"},
    "kernels": {"kernels", "exact", "cpu", "runtime"},
    "lowprec": {"lowprec", "exact", "cpu", "runtime"},
    "loops": {"loops", "kernels", "exact", "cpu", "runtime"},
}


def _c_includes():
    """(file's layer, included path) for every quoted #include in src/."""
    src = pathlib.Path(__file__).resolve().parents[1] / "src"
    if not src.is_dir():
        pytest.skip("no source tree beside the tests")
    found = []
    for path in sorted(src.rglob("*.[ch]")):
        layer = path.relative_to(src).parts[0]
        for included in re.findall(r'#include "([^"]+)"', path.read_text()):
            found.append((path.relative_to(src).as_posix(), layer, included))
    return src, found


def test_c_includes_point_one_way():
    src, found = _c_includes()
    assert found
    wrong = [(f, inc) for f, layer, inc in found
             if inc.split("/")[0] not in C_LAYERS.get(layer, set())
             or not (src / inc).is_file()]
    assert wrong == []


# ---- docs/architecture.md names every module, and only modules that exist ----

REPO = pathlib.Path(__file__).resolve().parents[1]
SOURCE = REPO / "xsumufunc"
# A path relative to xsumufunc/: `a/b.py`, a brace group `a/{b,c}.py`, or a
# whole sub-package `a/*` (not after a word or a slash: `tests/x.py` and
# `src/*.c` name files outside the package).
NAMED = re.compile(r"(?<![\w/.])((?:\w+/)*)(?:\{([\w,]+)\}|(\w+))\.(pyx?|pxi)\b"
                   r"|(?<![\w/.])((?:\w+/)+)\*")


def _named_in_architecture():
    """{path relative to xsumufunc/: exists?} of every module the page names."""
    named = {}
    for m in NAMED.finditer((REPO / "docs" / "architecture.md").read_text()):
        folder, group, single, suffix, package = m.groups()
        if package is not None:
            if package.split("/")[0] not in ("tests", "src", "docs", "benchmarks"):
                named[package + "*"] = (SOURCE / package / "__init__.py").exists()
            continue
        if folder.split("/")[0] in ("tests", "src", "docs", "benchmarks"):
            continue
        for stem in group.split(",") if group else [single]:
            named[f"{folder}{stem}.{suffix}"] = (SOURCE / f"{folder}{stem}.{suffix}").exists()
    return named


def test_the_architecture_page_names_no_module_that_is_gone():
    named = _named_in_architecture()
    assert len(named) > 20, "the pattern reads the page"
    assert [path for path, exists in named.items() if not exists] == []


def test_the_architecture_page_names_every_module():
    named = _named_in_architecture()
    packages = {path[:-1] for path in named if path.endswith("/*")}
    modules = sorted(str(p.relative_to(SOURCE)) for suffix in ("*.py", "*.pyx")
                     for p in SOURCE.rglob(suffix))
    # A sub-package's __init__.py is its marker, named with its folder's modules.
    missing = [m for m in modules
               if m not in named and not any(m.startswith(p) for p in packages)
               and not (m.endswith("/__init__.py") and m.count("/") == 1)]
    assert missing == [], f"docs/architecture.md does not name {missing}"
