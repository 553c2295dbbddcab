"""torch tensors (issue 17, item 1): bfloat16 and float8 tensors, which
DLPack cannot export to NumPy, are read through an integer view of their
bits as the ml_dtypes format of the same name, with no copy; results come
back as tensors of the right dtype; under torch.compile a call is a graph
break, not a Dynamo crash.  Skipped when torch is not installed
(CI installs the CPU wheel where one exists for its Python)."""

import numpy as np
import pytest
from helpers import assert_same, quiet
from oracle import exact_sum_oracle, oracle_reduce, terms_of
from oracle_products import exact_dot_oracle

import xsumufunc as xs

torch = pytest.importorskip("torch")

FORMATS = ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"]


def as_numpy(tensor):
    """The same bits as a NumPy array of the ml_dtypes format (the oracle's
    input), read independently of xsumufunc."""
    import ml_dtypes
    bits = tensor.view(torch.int16 if tensor.element_size() == 2 else torch.uint8).numpy()
    return bits.view(getattr(ml_dtypes, str(tensor.dtype).rsplit(".", 1)[-1]))


def to_numpy(result):
    assert isinstance(result, torch.Tensor)
    return as_numpy(result) if result.dtype in (torch.bfloat16,) or \
        str(result.dtype).startswith("torch.float8") else result.numpy()


@pytest.mark.parametrize("name", FORMATS)
def test_sums_of_torch_formats_numpy_cannot_import(name):
    dtype = getattr(torch, name, None)
    if dtype is None:
        pytest.skip(f"torch has no {name}")
    rng = np.random.default_rng(1)
    t = torch.from_numpy(rng.standard_normal(3000).astype(np.float32) * 4).to(dtype)
    values = as_numpy(t)
    got = quiet(xs.exact_sum, t)
    assert isinstance(got, torch.Tensor) and got.dtype == dtype and got.shape == ()
    assert_same(to_numpy(got), exact_sum_oracle(terms_of(values), values.dtype))
    got32 = quiet(xs.exact_sum, t, dtype=np.float32)
    assert got32.dtype == torch.float32
    assert_same(got32.numpy(), exact_sum_oracle(terms_of(values), np.float32))
    rows = t.reshape(30, 100)
    got_rows = quiet(xs.exact_sum, rows, axis=1)
    assert got_rows.dtype == dtype and tuple(got_rows.shape) == (30,)
    assert_same(to_numpy(got_rows), oracle_reduce(values.reshape(30, 100), axis=1))


def test_bfloat16_dot_and_prefix_sums():
    rng = np.random.default_rng(2)
    a = torch.from_numpy(rng.standard_normal(500).astype(np.float32)).to(torch.bfloat16)
    b = torch.from_numpy(rng.standard_normal(500).astype(np.float32)).to(torch.bfloat16)
    got = xs.exact_dot(a, b)
    assert got.dtype == torch.bfloat16
    assert_same(to_numpy(got), exact_dot_oracle(terms_of(as_numpy(a)), terms_of(as_numpy(b)),
                                                as_numpy(a).dtype))
    prefix = xs.exact_add.accumulate(a)
    assert prefix.dtype == torch.bfloat16 and tuple(prefix.shape) == (500,)
    values = as_numpy(a)
    for k in (0, 1, 250, 499):
        assert_same(to_numpy(prefix)[k], exact_sum_oracle(terms_of(values[:k + 1]),
                                                          values.dtype))


def test_no_copy_of_the_input():
    """The bit view shares the tensor's memory: what xsumufunc reads is the
    tensor itself (a write through the view shows in the tensor)."""
    from xsumufunc._backends import foreign
    t = torch.zeros(8, dtype=torch.bfloat16)
    view = foreign.to_numpy(t, "exact_sum")
    view[3] = 2.5
    assert t[3].item() == 2.5


def test_tensors_that_require_gradients_are_refused():
    t = torch.ones(10, requires_grad=True)
    with pytest.raises(TypeError, match=r"requires gradients.*a\.detach\(\)"):
        xs.exact_sum(t)
    assert xs.exact_sum(t.detach()).item() == 10.0


# ---- torch.compile: a graph break at the call, never a Dynamo crash ------
# (issue 17, item 1: Dynamo traced into the NumPy code and failed with an
# AssertionError on DLPack's device enum).  The eager and aot_eager backends
# need no C++ compiler.

def _compiled(func, **options):
    torch._dynamo.reset()
    return torch.compile(func, **options)


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_torch_compile_breaks_the_graph_at_the_call(backend, dtype):
    from torch._dynamo.utils import counters

    rng = np.random.default_rng(5)
    data = rng.standard_normal((40, 25)) * 10.0 ** rng.integers(-6, 6, (40, 25))
    t = torch.from_numpy(data.astype(np.float32)).to(getattr(torch, dtype))
    values = as_numpy(t) if dtype == "bfloat16" else t.numpy()

    def f(x):
        y = x * 2                   # traced ops before and after the call
        return xs.exact_sum(y, axis=0), xs.exact_add.accumulate(y[0]), y.shape[0] + 1

    xs.exact_sum(t[:1])             # the backend is imported outside the trace
    counters.clear()
    total, prefix, n = quiet(_compiled(f, backend=backend), t)
    doubled = values * values.dtype.type(2)         # exact: a power of two
    assert total.dtype == t.dtype and n == 41
    assert_same(to_numpy(total), oracle_reduce(doubled, axis=0))
    for k in (0, 12, 24):
        assert_same(to_numpy(prefix)[k], exact_sum_oracle(terms_of(doubled[0, :k + 1]),
                                                          values.dtype))
    # (torch before 2.6 takes no reason= and names the function instead)
    reasons = " ".join(counters["graph_break"])
    assert "disable" in reasons and ("xsumufunc" in reasons or "_call" in reasons), reasons


def test_torch_compile_fullgraph_is_a_clear_error():
    compiled = _compiled(lambda x: xs.exact_mean(x) + 1, backend="eager", fullgraph=True)
    xs.exact_sum(torch.ones(2))         # the wrapper is built here (Dynamo is loaded)
    with pytest.raises(torch._dynamo.exc.Unsupported, match=r"(?s)disable.*(xsumufunc|_call)"):
        compiled(torch.ones(3))


def test_torch_compile_keeps_our_errors():
    compiled = _compiled(lambda x: xs.exact_sum(x), backend="eager")
    with pytest.raises(TypeError, match=r"requires gradients"):
        compiled(torch.ones(3, requires_grad=True))
    compiled = _compiled(lambda x: xs.exact_sum(x, axis=3), backend="eager")
    with pytest.raises(np.exceptions.AxisError):
        compiled(torch.ones(3))


def test_eager_calls_do_not_load_dynamo_and_a_later_compile_still_breaks_cleanly():
    """The wrapper needs torch._dynamo (a second to import): built only once
    something loaded it; a trace that meets no wrapper yet breaks the graph
    at its wrapping, and the result is the same."""
    import subprocess
    import sys
    code = "\n".join([
        "import sys, torch, xsumufunc as xs",
        "assert xs.exact_sum(torch.tensor([1e30, 1.0, -1e30])).item() == 1.0",
        "assert 'torch._dynamo' not in sys.modules, 'eager call loaded Dynamo'",
        "f = torch.compile(lambda x: xs.exact_sum(x) * 2, backend='eager')",
        "assert f(torch.tensor([1e30, 1.0, -1e30])).item() == 2.0",
        "assert f(torch.tensor([1e30, 3.0, -1e30])).item() == 6.0",
    ])
    subprocess.run([sys.executable, "-P", "-c", code], check=True, timeout=300)
