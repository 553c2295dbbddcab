"""Gradients through exact reductions (issue 29, item 3): xsumufunc.torch
(autograd Functions) and xsumufunc.jax (custom_jvp around pure_callback).
The forward value is the exact result rounded once (the oracle); the
backward pass is the usual one, in the input's dtype, checked against
values the test derives by hand (each gradient entry is a product or a
quotient of two small exact numbers).  Each part skips with its reason
where its library is not installed."""

import numpy as np
import pytest
from helpers import assert_same, quiet
from hypothesis import given
from hypothesis import strategies as st
from oracle import BFLOAT16, FLOAT32, exact_sum_oracle, terms_of
from oracle_products import exact_dot_oracle, exact_mean_oracle
from strategies import arrays_1d

# ---- torch ---------------------------------------------------------------------

def _torch():
    return pytest.importorskip("torch", reason="torch is not installed (CI installs the "
                               "CPU wheel where one exists for its Python)")


def _bits(t):
    """A tensor's values as NumPy (bfloat16 through its bits, as ml_dtypes)."""
    torch = _torch()
    if t.dtype == torch.bfloat16:
        return t.detach().view(torch.int16).numpy().view(BFLOAT16)
    return t.detach().numpy()


@given(data=st.data(), name=st.sampled_from(["float32", "float64", "bfloat16"]))
def test_torch_sum_and_mean_forward_exact_backward_usual(data, name):
    torch = _torch()
    from xsumufunc.torch import exact_mean, exact_sum
    dtype = {"float32": FLOAT32, "float64": np.dtype(np.float64), "bfloat16": BFLOAT16}[name]
    values = data.draw(arrays_1d(dtype, specials=False, min_size=1))
    t = torch.from_numpy(values.astype(np.float64)).to(getattr(torch, name))
    t.requires_grad_(True)
    total = quiet(exact_sum, t)
    assert total.dtype == t.dtype and total.requires_grad
    assert_same(_bits(total), exact_sum_oracle(terms_of(_bits(t)), dtype))
    total.backward()
    assert t.grad.dtype == t.dtype
    assert torch.equal(t.grad, torch.ones_like(t))
    t.grad = None
    mean = quiet(exact_mean, t)
    assert_same(_bits(mean), exact_mean_oracle(terms_of(_bits(t)), dtype))
    (mean * 3).backward()
    expected = torch.full_like(t, 3) / values.size          # the usual backward
    assert torch.equal(t.grad, expected)


def test_torch_axes_keepdims_and_dot_gradients():
    torch = _torch()
    from xsumufunc.torch import exact_dot, exact_sum
    x = torch.tensor([[1e8, 1.0, -1e8], [0.5, 0.25, 2.0]], requires_grad=True)
    rows = exact_sum(x, axis=1)
    assert rows.tolist() == [1.0, 2.75]
    (rows * torch.tensor([2.0, -1.0])).sum().backward()
    assert x.grad.tolist() == [[2.0] * 3, [-1.0] * 3]
    x.grad = None
    kept = exact_sum(x, axis=(0, 1), keepdims=True)
    assert kept.shape == (1, 1)
    kept.sum().backward()
    assert torch.equal(x.grad, torch.ones_like(x))
    a = torch.tensor([1e8, 1.0, 1e8], dtype=torch.float32, requires_grad=True)
    b = torch.tensor([1.0, 3.0, -1.0], dtype=torch.float32, requires_grad=True)
    out = exact_dot(a, b)
    assert_same(out.detach().numpy(),
                exact_dot_oracle(terms_of(_bits(a)), terms_of(_bits(b)), FLOAT32))
    out.backward()
    assert a.grad.tolist() == [1.0, 3.0, -1.0] and b.grad.tolist() == [1e8, 1.0, 1e8]


def test_torch_loss_trains():
    """A least-squares fit with loss = exact_sum(residual**2) converges."""
    torch = _torch()
    from xsumufunc.torch import exact_sum
    torch.manual_seed(0)
    xs_ = torch.linspace(-1, 1, 64)
    ys = 3 * xs_ - 0.5
    w = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.01)
    for _ in range(300):
        opt.zero_grad()
        loss = exact_sum((w[0] * xs_ + w[1] - ys) ** 2)
        loss.backward()
        opt.step()
    assert abs(w[0].item() - 3) < 1e-3 and abs(w[1].item() + 0.5) < 1e-3


# Dynamo reads .grad of the non-leaf tensor it hands to the disabled call
# (its own UserWarning, not ours).
@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
def test_torch_compile_breaks_the_graph_cleanly():
    torch = _torch()
    from torch._dynamo.utils import counters

    from xsumufunc.torch import exact_sum
    torch._dynamo.reset()
    counters.clear()
    f = torch.compile(lambda v: exact_sum(v * 2) + 1, backend="eager")
    v = torch.tensor([1e8, 1.0, -1e8], requires_grad=True)
    out = f(v)
    assert out.item() == 3.0
    out.backward()
    assert v.grad.tolist() == [2.0, 2.0, 2.0]
    assert "xsumufunc.torch" in " ".join(counters["graph_break"])
    strict = torch.compile(lambda v: exact_sum(v), backend="eager", fullgraph=True)
    with pytest.raises(torch._dynamo.exc.Unsupported, match="xsumufunc.torch"):
        strict(torch.ones(3))


def test_torch_complex_with_gradients_is_refused():
    torch = _torch()
    from xsumufunc.torch import exact_sum
    with pytest.raises(TypeError, match="complex tensors that require gradients"):
        exact_sum(torch.ones(3, dtype=torch.complex64, requires_grad=True))


# ---- jax -----------------------------------------------------------------------

def _jax():
    return pytest.importorskip("jax", reason="jax is not installed")


@given(data=st.data(), name=st.sampled_from(["float32", "bfloat16"]))
def test_jax_jit_grad_and_vmap(data, name):
    jax = _jax()
    import jax.numpy as jnp

    from xsumufunc.jax import exact_mean, exact_sum
    dtype = FLOAT32 if name == "float32" else BFLOAT16
    values = data.draw(arrays_1d(dtype, specials=False, min_size=1))
    x = jnp.asarray(values)
    assert_same(np.asarray(jax.jit(exact_sum)(x)), exact_sum_oracle(terms_of(values), dtype))
    assert_same(np.asarray(exact_mean(x)), exact_mean_oracle(terms_of(values), dtype))
    grad = jax.grad(lambda v: exact_sum(v).astype(jnp.float32))(x)
    assert grad.dtype == x.dtype and bool(jnp.all(grad == 1))
    rows = jnp.stack([x, -x, x * 0])
    batched = np.asarray(jax.vmap(exact_sum)(rows))
    for k, row in enumerate(np.asarray(rows)):
        assert_same(batched[k], exact_sum_oracle(terms_of(row), dtype))


def test_jax_dot_and_axes():
    jax = _jax()
    import jax.numpy as jnp

    from xsumufunc.jax import exact_dot, exact_mean, exact_sum
    a = jnp.array([1e8, 1.0, 1e8], jnp.float32)
    b = jnp.array([1.0, 3.0, -1.0], jnp.float32)
    assert float(jax.jit(exact_dot)(a, b)) == 3.0
    ga, gb = jax.grad(exact_dot, argnums=(0, 1))(a, b)
    assert ga.tolist() == [1.0, 3.0, -1.0] and gb.tolist() == [1e8, 1.0, 1e8]
    pairs = jax.vmap(exact_dot, in_axes=(0, None))(jnp.stack([a, 2 * a]), b)
    assert pairs.tolist() == [3.0, 6.0]
    m = jnp.array([[1.0, 2.0], [4.0, 8.0]])
    assert exact_sum(m, axis=0).tolist() == [5.0, 10.0]
    assert jax.grad(lambda v: exact_mean(v, axis=1).sum())(m).tolist() == [[0.5, 0.5]] * 2


@pytest.mark.parametrize("library", ["torch", "jax"])
def test_docstring_examples_run(library):
    """(tests/test_docs.py runs the modules that import without extras.)"""
    import doctest
    import importlib
    pytest.importorskip(library, reason=f"{library} is not installed")
    module = importlib.import_module(f"xsumufunc.{library}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE
                             | doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0 and result.failed == 0
