"""FPRev-advanced: build the tree bottom-up, measuring L only where needed.

For the smallest leaf i of a set of leaves, L(i, j) for the other leaves
groups them: the leaves with the k-th smallest value form the subtree that
joins i's growing subtree at that size.  Each group is built the same way
(with its own smallest leaf), then joined to i's subtree, either as its
sibling under a new node, or, for a fused multi-term node, by adding i's
subtree as one more child of the group's still incomplete root.

The recursion of the paper runs here as generators on an explicit stack
(``_run``), so a right-to-left sum of thousands of leaves is fine.
"""

from collections import defaultdict

from ._errors import NotASummationError
from ._forest import Forest
from ._tree import SumTree


def build(probe):
    """The SumTree that probe's measurements describe (advanced method)."""
    n = probe.n
    if n == 1:
        return SumTree("0")
    first_row = {j: probe.lca_size(0, j) for j in range(1, n)}
    if n >= 3 and all(size == 2 for size in first_row.values()):
        return _order_free(probe)
    forest = Forest(n)
    root = _run(lambda leaves: _subtree(forest, probe, leaves),
                _subtree(forest, probe, list(range(n)), first_row))
    forest.check_complete(root)
    return forest.to_tree(root)


def _order_free(probe):
    """The explicit rule for exact sums: nothing was ever swallowed.

    Every pair (0, j) summed to n - 2, which no tree allows for n >= 3 (leaf 0
    has one sibling at most), so the function added without rounding.  The
    neighbour pairs (j, j + 1) must say the same; the tree is then one node
    adding all n summands, the only tree whose replay does not depend on an
    order.
    """
    n = probe.n
    for j in range(1, n - 1):
        size = probe.lca_size(j, j + 1)
        if size != 2:
            raise NotASummationError(
                f"func hid no summand with the masks at (0, j) for every j, but "
                f"L({j}, {j + 1}) = {size}: it is neither an exact summation nor a "
                f"fixed-order one")
    return SumTree.flat(n)


def _subtree(forest, probe, leaves, row=None):
    """Generator building the subtree over ``leaves``; yields each group to build."""
    pivot = leaves[0]
    if row is None:
        row = {j: probe.lca_size(pivot, j) for j in leaves[1:]}
    groups = defaultdict(list)
    for j in leaves[1:]:
        groups[row[j]].append(j)
    current = pivot
    for size in sorted(groups):
        members = groups[size]
        other = members[0] if len(members) == 1 else (yield members)
        current = forest.merge(current, other, size)
    return current


def _run(subtree, top):
    """Drive nested generators with a stack instead of Python recursion.

    Each generator yields a group of leaves; ``subtree(group)`` makes the
    generator that builds it, and its return value is sent back.
    """
    stack = [top]
    result = None
    while stack:
        try:
            request = stack[-1].send(result)
        except StopIteration as done:
            stack.pop()
            result = done.value
            continue
        stack.append(subtree(request))
        result = None
    return result
