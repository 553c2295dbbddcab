"""reveal() on real library functions, proven by replay; and the command line.

A revealed tree is a claim about the function; replaying it with
SumTree.evaluate on random inputs and getting the function's result bit for
bit is the proof.
"""

import functools
import math
import pathlib
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

from xsumufunc import exact_dot, exact_sum
from xsumufunc.fprev import SumTree, reveal
from xsumufunc.fprev._cli import main

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
ROOT = pathlib.Path(__file__).resolve().parents[1]


def _random_rows(n, dtype, rows, seed):
    rng = np.random.default_rng(seed)
    scale = np.exp2(rng.integers(-12, 12, size=(rows, n)))
    return (rng.standard_normal((rows, n)) * scale).astype(dtype)


def _bits(x):
    return np.asarray(x).tobytes()


# NumPy's float16 loops accumulate in float32 and round once at the end;
# ml_dtypes' bfloat16 adds in bfloat16 (which is why it stalls at 256).
ACCUMULATOR = {np.dtype(np.float64): np.float64, np.dtype(np.float32): np.float32,
               np.dtype(np.float16): np.float32, BFLOAT16: BFLOAT16}


@pytest.mark.parametrize("dtype, sizes", [
    (np.float32, [1, 2, 3, 7, 8, 9, 16, 17, 33, 100, 128, 300, 1000, 1500]),
    (np.float64, [2, 5, 16, 31, 64, 129, 1000]),
    (np.float16, [3, 16, 100, 1000, 2050]),
    (BFLOAT16, [2, 16, 100, 258]),
])
def test_np_sum_tree_replays_bit_for_bit(dtype, sizes):
    dtype = np.dtype(dtype)
    for n in sizes:
        tree = reveal(np.sum, n, dtype)
        for x in _random_rows(n, dtype, 25, seed=n):
            replay = tree.evaluate(x, ACCUMULATOR[dtype]).astype(dtype)
            assert _bits(replay) == _bits(np.sum(x)), (dtype, n, x)


def test_np_sum_is_neither_sequential_nor_flat():
    tree = reveal(np.sum, 64)
    sequential = SumTree(functools.reduce(lambda acc, leaf: [acc, leaf], range(1, 64), 0))
    assert tree != SumTree.flat(64) and tree != sequential
    assert tree.max_arity == 2 and tree.depth < 63


def test_bfloat16_np_sum_is_sequential():
    # ml_dtypes reduces bfloat16 element by element: the cheapest case, n - 1 calls.
    calls = []
    tree = reveal(lambda x: calls.append(1) or np.sum(x), 100, BFLOAT16)
    assert len(calls) == 99 and tree.depth == 99


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, BFLOAT16])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 17, 64, 100, 257])
def test_exact_sum_is_one_flat_node(dtype, n):
    assert reveal(exact_sum, n, dtype) == SumTree.flat(n)


def test_exact_sum_flat_for_larger_n_and_basic():
    assert reveal(exact_sum, 2000, np.float32) == SumTree.flat(2000)
    assert reveal(exact_sum, 40, np.float64, "basic") == SumTree.flat(40)
    assert reveal(math.fsum, 50, np.float64) == SumTree.flat(50)
    assert reveal(exact_dot, 30, np.float32, operands=2) == SumTree.flat(30)


def test_flat_tree_replays_exact_sum():
    for dtype in (np.float64, np.float32, np.float16, BFLOAT16):
        tree = reveal(exact_sum, 64, dtype)
        for x in _random_rows(64, dtype, 20, seed=7):
            assert _bits(tree.evaluate(x)) == _bits(exact_sum(x))


@pytest.mark.parametrize("n", [16, 100, 1000])
def test_np_dot_float64_replays(n):
    tree = reveal(np.dot, n, np.float64, operands=2)
    ones = np.ones(n)
    for x in _random_rows(n, np.float64, 20, seed=n):
        assert _bits(tree.evaluate(x)) == _bits(np.dot(x, ones))


class MatmulEntry:
    """An op object: C = A @ B with the summands in row 0 of A and B all ones; read C[0, 0]."""

    def __init__(self, n, dtype):
        self.a = np.ones((3, n), dtype=dtype)
        self.b = np.ones((n, 4), dtype=dtype)

    def set_summands(self, values):
        self.a[0] = values

    def result(self):
        return (self.a @ self.b)[0, 0]


@pytest.mark.parametrize("n", [16, 200])
def test_matmul_op_replays(n):
    op = MatmulEntry(n, np.float64)
    tree = reveal(op, n, np.float64)
    for x in _random_rows(n, np.float64, 20, seed=n):
        op.set_summands(x)
        assert _bits(tree.evaluate(x)) == _bits(op.result())


# -- command line ----------------------------------------------------------------------------------

def test_cli_in_a_fresh_interpreter():
    run = subprocess.run(
        [sys.executable, "-P", "-m", "xsumufunc.fprev", "numpy.sum", "--n", "16",
         "--dtype", "float32"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert SumTree(run.stdout.strip()) == reveal(np.sum, 16, np.float32)


def test_cli_prints_text_and_dot(capsys):
    assert main(["xsumufunc.exact_sum", "--n", "6", "--dtype", "bfloat16"]) == 0
    assert capsys.readouterr().out.strip() == "(0 1 2 3 4 5)"
    assert main(["math.fsum", "--n", "5", "--dtype", "float64", "--method", "basic"]) == 0
    assert capsys.readouterr().out.strip() == "(0 1 2 3 4)"
    assert main(["numpy.sum", "--n", "9", "--dot"]) == 0
    dot = capsys.readouterr().out
    assert dot.startswith("digraph sumtree {") and 'label="numpy.sum, float32, n = 9"' in dot
    assert dot.count("->") == 2 * 8  # a binary tree of 9 leaves has 8 additions


def test_cli_dot_products_take_two_operands(capsys):
    assert main(["numpy.dot", "--n", "12", "--dtype", "float64"]) == 0
    assert SumTree(capsys.readouterr().out.strip()) == reveal(np.dot, 12, np.float64,
                                                              operands=2)
    assert main(["xsumufunc.exact_dot", "--n", "4"]) == 0
    assert capsys.readouterr().out.strip() == "(0 1 2 3)"


def test_cli_accumulator_raises_the_limit(capsys):
    assert main(["numpy.sum", "--n", "300", "--dtype", "bfloat16"]) == 2
    assert "n = 300 is too large" in capsys.readouterr().err


def test_a_true_accumulator_claim_replays():
    # bfloat16 summands summed in float32: 300 units count exactly.
    n = 300

    def sum_in_float32(x):
        return np.sum(x, dtype=np.float32)

    tree = reveal(sum_in_float32, n, BFLOAT16, accumulator=np.float32)
    for x in _random_rows(n, BFLOAT16, 20, seed=1):
        assert _bits(tree.evaluate(x, np.float32)) == _bits(sum_in_float32(x))


def test_a_false_accumulator_claim_gives_a_wrong_tree():
    # ml_dtypes adds bfloat16 sequentially in bfloat16 (n - 1 = 257 deep at
    # the limit); claiming float32 past the limit lets the count stall at 256,
    # and the tree comes out wrong without an error: a documented limitation.
    n = 300
    wrong = reveal(np.sum, n, BFLOAT16, accumulator=np.float32)
    assert wrong.depth < n - 1 and wrong.max_arity > 2
    assert reveal(np.sum, 258, BFLOAT16).depth == 257


@pytest.mark.parametrize("argv, message", [
    (["nosuchmodule.sum"], "cannot import"),
    (["numpy.nosuchfunction"], "has no 'nosuchfunction'"),
    (["numpy.pi"], "not callable"),
    (["sum"], "module.function"),
])
def test_cli_bad_names(capsys, argv, message):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_cli_refuses_non_summations(capsys):
    with np.errstate(over="ignore"):
        assert main(["numpy.prod", "--n", "5"]) == 1
    assert "not a plain summation" in capsys.readouterr().err


def test_cli_torch_when_installed(capsys):
    pytest.importorskip("torch")
    assert main(["torch.sum", "--n", "16"]) == 0
    assert SumTree(capsys.readouterr().out.strip()).n == 16
