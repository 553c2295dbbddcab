"""SumTree: text form, parsing, equality, shape, DOT, replay; and every fprev doc example."""

import doctest
import functools
import importlib
import math
import pathlib
import re

import ml_dtypes
import numpy as np
import pytest

from xsumufunc import exact_sum
from xsumufunc.fprev import SumTree

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
FPREV_MODULES = [
    "xsumufunc.fprev", "xsumufunc.fprev._advanced", "xsumufunc.fprev._basic",
    "xsumufunc.fprev._cli", "xsumufunc.fprev._dot", "xsumufunc.fprev._errors",
    "xsumufunc.fprev._forest", "xsumufunc.fprev._formats", "xsumufunc.fprev._masks",
    "xsumufunc.fprev._probe", "xsumufunc.fprev._replay", "xsumufunc.fprev._reveal",
    "xsumufunc.fprev._text", "xsumufunc.fprev._tree",
]


def test_doc_examples_run():
    attempted = 0
    for name in FPREV_MODULES:
        result = doctest.testmod(importlib.import_module(name),
                                 optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0, name
        attempted += result.attempted
    assert attempted >= 15


def test_fprev_page_examples_run():
    page = pathlib.Path(__file__).resolve().parents[1] / "docs" / "fprev.md"
    result = doctest.testfile(str(page), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# -- text form -------------------------------------------------------------

@pytest.mark.parametrize("written, canonical", [
    ("0", "0"),
    ("(1 0)", "(0 1)"),
    ("((2 3) (0 1))", "((0 1) (2 3))"),
    ("(3 (2 (1 0)))", "(((0 1) 2) 3)"),
    ("( 4 (3 1)  (2 0) )", "((0 2) (1 3) 4)"),
    ("(5 4 3 2 1 0)", "(0 1 2 3 4 5)"),
    ("((0 7) ((1 6) (2 5)) (3 4))", "((0 7) ((1 6) (2 5)) (3 4))"),
])
def test_canonical_text(written, canonical):
    tree = SumTree(written)
    assert str(tree) == canonical
    assert SumTree.parse(canonical) == tree
    assert repr(tree) == f"SumTree({canonical!r})"


def test_equality_ignores_sibling_order_only():
    a = SumTree("((0 1) (2 3))")
    assert a == SumTree("((3 2) (1 0))")
    assert hash(a) == hash(SumTree("((3 2) (1 0))"))
    assert a != SumTree("(((0 1) 2) 3)")
    assert a != SumTree("((0 2) (1 3))")
    assert a != SumTree("(0 1 2 3)")
    assert SumTree("((0 1) 2)") != SumTree("(0 (1 2))")
    assert a != "((0 1) (2 3))"  # a tree is not its text
    assert len({a, SumTree("((2 3) (1 0))"), SumTree("(0 1 2 3)")}) == 2


def test_nested_sequences_build_the_same_tree():
    assert SumTree([[1, 0], [3, 2]]) == SumTree("((0 1) (2 3))")
    assert SumTree((0, (1, 2), 3)) == SumTree("(0 (1 2) 3)")
    assert SumTree(np.int64(0)) == SumTree("0")
    assert SumTree([np.arange(3), 3]) == SumTree("((0 1 2) 3)")


def test_flat_tree():
    assert str(SumTree.flat(1)) == "0"
    assert str(SumTree.flat(2)) == "(0 1)"
    assert SumTree.flat(4) == SumTree("(3 1 2 0)")
    for bad in (0, -1):
        with pytest.raises(ValueError, match="n must be at least 1"):
            SumTree.flat(bad)
    for bad in (2.0, True, "3"):
        with pytest.raises(TypeError, match="n must be an integer"):
            SumTree.flat(bad)


@pytest.mark.parametrize("text, message", [
    ("", "exactly one tree"),
    ("(0 1) (2 3)", "exactly one tree"),
    ("(0)", "at least two children"),
    ("((0 1))", "at least two children"),
    ("(0 1", "never closed"),
    ("0 1)", "unmatched"),
    ("(0 2)", "0..1"),
    ("(0 0)", "each exactly once"),
    ("(0 -1)", "unexpected '-1'"),
    ("(0, 1)", "unexpected"),
    ("(0 a)", "unexpected 'a'"),
])
def test_parse_rejects_bad_text(text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        SumTree(text)


def test_bad_specs_name_the_problem():
    with pytest.raises(TypeError, match="text must be a str"):
        SumTree.parse([0, 1])
    with pytest.raises(TypeError, match="nested sequences of leaf indices"):
        SumTree(1.5)
    with pytest.raises(TypeError, match="nested sequences of leaf indices"):
        SumTree([0, True])
    with pytest.raises(ValueError, match="at least two children"):
        SumTree([[0], 1])
    with pytest.raises(ValueError, match="each exactly once"):
        SumTree([0, [1, 1]])
    with pytest.raises(ValueError, match="each exactly once"):
        SumTree([0, -1])


# -- shape -------------------------------------------------------------------

@pytest.mark.parametrize("text, depth, arity", [
    ("0", 0, 0),
    ("(0 1)", 1, 2),
    ("(((0 1) 2) 3)", 3, 2),
    ("((0 1) (2 3))", 2, 2),
    ("(0 1 2 3 4)", 1, 5),
    ("(((0 1 2) 3 4 5) (6 7))", 3, 4),
])
def test_depth_and_arity(text, depth, arity):
    tree = SumTree(text)
    assert (tree.depth, tree.max_arity) == (depth, arity)


def test_lca_sizes_by_hand():
    tree = SumTree("(((0 1) 2) (3 4))")
    expected = np.array([
        [1, 2, 3, 5, 5],
        [2, 1, 3, 5, 5],
        [3, 3, 1, 5, 5],
        [5, 5, 5, 1, 2],
        [5, 5, 5, 2, 1],
    ])
    np.testing.assert_array_equal(tree.lca_sizes(), expected)
    for i in range(5):
        for j in range(5):
            assert tree.lca_size(i, j) == expected[i, j]
    # A fused node: every pair under it meets at its full size.
    np.testing.assert_array_equal(SumTree("((0 2 4) 1 3)").lca_sizes()[[0, 0, 2], [2, 4, 4]],
                                  [3, 3, 3])
    with pytest.raises(ValueError, match="j must be a leaf index"):
        tree.lca_size(0, 5)
    with pytest.raises(TypeError, match="i must be a leaf index"):
        tree.lca_size(0.0, 1)


def test_leaves_and_children():
    tree = SumTree("((0 3) (1 2))")
    assert tree.leaves(tree.root) == (0, 3, 1, 2)
    assert [tree.leaves(kid) for kid in tree.children(tree.root)] == [(0, 3), (1, 2)]
    assert tree.children(2) == ()


def _sequential(n):
    return functools.reduce(lambda acc, leaf: [acc, leaf], range(1, n), 0)


def test_deep_trees_need_no_recursion():
    n = 5000  # far beyond Python's default recursion limit of 1000
    tree = SumTree(_sequential(n))
    text = str(tree)
    assert text == "(" * (n - 1) + "0 1) " + ") ".join(map(str, range(2, n))) + ")"
    assert SumTree.parse(text) == tree
    assert tree.depth == n - 1
    assert tree.lca_size(0, n - 1) == n
    assert tree.to_dot().count("->") == 2 * (n - 1)
    values = np.ones(n, dtype=np.float64)
    assert tree.evaluate(values) == n


# -- DOT -----------------------------------------------------------------------

def _tree_from_dot(dot, n):
    """Rebuild a SumTree from DOT edges, to check the DOT holds the structure."""
    kids = {}
    for parent, kid in re.findall(r"(\w+) -> (\w+);", dot):
        kids.setdefault(parent, []).append(kid)
    roots = set(kids) - {kid for group in kids.values() for kid in group}
    assert len(roots) == 1

    def build(node):
        return int(node[1:]) if node.startswith("x") else [build(kid) for kid in kids[node]]

    tree = SumTree(build(roots.pop()))
    assert tree.n == n
    return tree


@pytest.mark.parametrize("text", ["(0 1)", "((0 2) (1 3))", "(((0 1 2) 3 4 5) (6 7))"])
def test_dot_holds_the_tree(text):
    tree = SumTree(text)
    dot = tree.to_dot(title='say "hi"')
    assert dot.startswith("digraph sumtree {") and dot.endswith("}")
    assert 'label="say \\"hi\\""' in dot
    assert _tree_from_dot(dot, tree.n) == tree
    assert dot.count("shape=box") == tree.n
    fused_labels = re.findall(r'label="\+(\d+)"', dot)
    assert sorted(map(int, fused_labels)) == sorted(
        len(tree.children(node)) for node in range(tree.n, tree.root + 1)
        if len(tree.children(node)) > 2)


# -- evaluate -------------------------------------------------------------------

def _loop_left_to_right(values):
    total = values[0]
    for value in values[1:]:
        total = total + value
    return total


def _loop_pairwise(values):
    if len(values) == 1:
        return values[0]
    half = len(values) // 2
    return _loop_pairwise(values[:half]) + _loop_pairwise(values[half:])


def _pairwise_tree(lo, hi):
    if hi - lo == 1:
        return lo
    mid = lo + (hi - lo) // 2
    return [_pairwise_tree(lo, mid), _pairwise_tree(mid, hi)]


def _random(n, dtype, rows, seed):
    rng = np.random.default_rng(seed)
    scale = np.exp2(rng.integers(-10, 10, size=(rows, n)))
    return (rng.standard_normal((rows, n)) * scale).astype(dtype)


def _bits(x):
    return np.asarray(x).tobytes()


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, BFLOAT16])
@pytest.mark.parametrize("n", [1, 2, 7, 33])
def test_evaluate_matches_the_loops_it_describes(dtype, n):
    sequential, pairwise = SumTree(_sequential(n)), SumTree(_pairwise_tree(0, n))
    for x in _random(n, dtype, 20, seed=n):
        assert _bits(sequential.evaluate(x)) == _bits(_loop_left_to_right(x))
        assert _bits(pairwise.evaluate(x)) == _bits(_loop_pairwise(x))


def test_evaluate_order_matters_and_flat_is_exact():
    x = np.array([1.0, 2.0**25, -(2.0**25)], dtype=np.float32)
    assert SumTree("((0 1) 2)").evaluate(x) == 0.0
    assert SumTree("(0 (1 2))").evaluate(x) == 1.0
    assert SumTree.flat(3).evaluate(x) == 1.0
    for dtype in (np.float64, np.float32, np.float16, BFLOAT16):
        for values in _random(40, dtype, 20, seed=3):
            assert _bits(SumTree.flat(40).evaluate(values)) == _bits(exact_sum(values))


def test_evaluate_many_rows_and_accumulator_dtype():
    tree = SumTree(_pairwise_tree(0, 12))
    rows = _random(12, np.float16, 30, seed=5)
    batch = tree.evaluate(rows)
    assert batch.shape == (30,) and batch.dtype == np.float16
    assert [_bits(v) for v in batch] == [_bits(tree.evaluate(row)) for row in rows]
    wide = tree.evaluate(rows, np.float32)
    assert wide.dtype == np.float32
    assert [_bits(v) for v in wide] == [_bits(_loop_pairwise(row.astype(np.float32)))
                                        for row in rows]
    assert isinstance(tree.evaluate(rows[0]), np.float16)


def test_evaluate_with_a_fused_model():
    def truncate_to_integer(stacked):
        return np.trunc(np.sum(stacked, axis=-1, dtype=np.float64))

    tree = SumTree("((0 1 2) 3)")
    x = np.array([0.75, 0.75, 0.75, 0.25])
    assert tree.evaluate(x, fused=truncate_to_integer) == 2.25
    assert tree.evaluate(x) == 2.5


def test_evaluate_rejects_bad_input():
    tree = SumTree("((0 1) 2)")
    with pytest.raises(ValueError, match="n = 3 summands along the last axis"):
        tree.evaluate(np.ones(4))
    with pytest.raises(ValueError, match="along the last axis"):
        tree.evaluate(np.float64(1.0))
    with pytest.raises(TypeError, match="values dtype"):
        tree.evaluate(np.arange(3))
    with pytest.raises(TypeError, match="dtype must be"):
        tree.evaluate(np.ones(3), dtype=np.complex64)
    with pytest.raises(TypeError, match="fused must be callable"):
        tree.evaluate(np.ones(3), fused=3)
    flat = SumTree.flat(3)
    with pytest.raises(ValueError, match="fused must reduce the last axis"):
        flat.evaluate(np.ones(3), fused=lambda stacked: stacked)
    with pytest.raises(ValueError, match="fused must return float64"):
        flat.evaluate(np.ones(3), fused=lambda stacked: stacked.sum(-1).astype(np.float32))
    assert tree.evaluate(np.arange(3), dtype=np.float32) == 3.0
    with pytest.warns(RuntimeWarning, match="invalid value"):        # Inf - Inf, as NumPy
        assert math.isnan(tree.evaluate(np.array([np.inf, -np.inf, 1.0])))
