"""FPRev-basic: measure L(i, j) for every pair, then merge bottom-up.

Pairs are taken by increasing L; union-find tells whether two leaves already
share a subtree, and the forest merges their roots otherwise (a fused node
absorbs further children measured at its own size).  n(n-1)/2 calls; the
tree is then checked against every measurement.
"""

import numpy as np

from ._errors import NotASummationError
from ._forest import Forest
from ._tree import SumTree


def build(probe):
    """The SumTree that probe's measurements describe (basic method)."""
    n = probe.n
    if n == 1:
        return SumTree("0")
    measured = np.ones((n, n), dtype=np.int64)
    for i in range(n):
        for j in range(i + 1, n):
            measured[i, j] = measured[j, i] = probe.lca_size(i, j)
    off_diagonal = measured[~np.eye(n, dtype=bool)]
    if n >= 3 and np.all(off_diagonal == 2):
        # The explicit order-free rule (see _advanced._order_free): nothing was
        # ever swallowed, so the function summed exactly.
        return SumTree.flat(n)
    tree = _merge_bottom_up(measured)
    predicted = tree.lca_sizes()
    mismatch = np.argwhere(predicted != measured)
    if mismatch.size:
        i, j = mismatch[0]
        raise NotASummationError(
            f"the measurements fit no summation tree: L({i}, {j}) = {measured[i, j]} but "
            f"the tree built from all pairs gives {predicted[i, j]}; func does not add in "
            f"one fixed order")
    return tree


def _merge_bottom_up(measured):
    n = len(measured)
    forest = Forest(n)
    representative = list(range(n))  # union-find parent links over leaves
    top = list(range(n))  # forest node holding each set, indexed by its representative

    def find(leaf):
        root = leaf
        while representative[root] != root:
            root = representative[root]
        while representative[leaf] != root:  # path compression
            representative[leaf], leaf = root, representative[leaf]
        return root

    upper = np.triu_indices(n, 1)
    order = np.lexsort((upper[1], upper[0], measured[upper]))
    for index in order:
        i, j = int(upper[0][index]), int(upper[1][index])
        set_i, set_j = find(i), find(j)
        if set_i == set_j:
            continue
        node = forest.merge(top[set_i], top[set_j], int(measured[i, j]))
        representative[set_j] = set_i
        top[set_i] = node
    root = top[find(0)]
    forest.check_complete(root)
    return forest.to_tree(root)
