"""SumTree: the order in which a summation adds its n summands.

Leaves are the summand indices 0..n-1; every inner node adds its children,
two for an ordinary addition, more for a fused multi-term adder.  The tree is
stored canonically (children ordered by their smallest leaf, inner nodes
numbered n, n+1, ... in post-order), so two trees that differ only in
sibling order are equal, hash alike and print alike.  Every traversal is a
loop over that numbering or an explicit stack: depth is never limited by
Python's recursion limit.
"""

import numpy as np

from . import _dot, _replay, _text


class SumTree:
    """The summation order of n summands, as a tree.

    Build one from its text, ``SumTree("((0 1) (2 3))")``, or from nested
    sequences, ``SumTree([[0, 1], [2, 3]])``; :func:`reveal` returns one.

    >>> t = SumTree("(2 3 (1 0))")
    >>> print(t)                       # canonical: children by smallest leaf
    ((0 1) 2 3)
    >>> t == SumTree([[1, 0], 3, 2])   # sibling order does not matter
    True
    >>> t.n, t.depth, t.max_arity
    (4, 2, 3)
    """

    __slots__ = ("_n", "_children", "_spans", "_leaf_order", "_parents")

    def __init__(self, spec):
        if isinstance(spec, str):
            n, children, root = _text.parse(spec)
        else:
            n, children, root = _from_nested(spec)
        self._set(n, children, root)

    @classmethod
    def parse(cls, text):
        """The tree written in ``text`` (the form ``str(tree)`` prints).

        >>> SumTree.parse("(0 (1 2))").depth
        2
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str; got {type(text).__name__}")
        return cls(text)

    @classmethod
    def flat(cls, n):
        """One node adding all n summands at once: the tree of an order-free sum.

        >>> print(SumTree.flat(5))
        (0 1 2 3 4)
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"n must be an integer number of summands; got {n!r}")
        if n < 1:
            raise ValueError(f"n must be at least 1; got {n}")
        n = int(n)
        return cls._from_parts(n, {n: list(range(n))} if n > 1 else {}, n if n > 1 else 0)

    @classmethod
    def _from_parts(cls, n, children, root):
        """A tree from child lists keyed by inner-node id (leaves are 0..n-1)."""
        tree = cls.__new__(cls)
        tree._set(n, children, root)
        return tree

    def _set(self, n, children, root):
        self._n = n
        self._children = _canonical(n, children, root)
        self._spans = None
        self._leaf_order = None
        self._parents = None

    # -- structure ---------------------------------------------------------

    @property
    def n(self):
        """Number of summands (leaves)."""
        return self._n

    @property
    def root(self):
        """Id of the root: the last inner node, or leaf 0 when n == 1."""
        return self._n + len(self._children) - 1 if self._children else 0

    def children(self, node):
        """Child ids of a node, ordered by smallest leaf; () for a leaf.

        Leaves are 0..n-1, inner nodes n..; children always have smaller ids
        than their parent, so ``range(n, root + 1)`` visits children first.
        """
        if node < self._n:
            return ()
        return self._children[node - self._n]

    def leaves(self, node):
        """The summand indices under a node, in left-to-right order."""
        start, stop = self._span(node)
        return self._leaf_order_tuple()[start:stop]

    @property
    def depth(self):
        """Additions on the longest leaf-to-root path (0 for one summand)."""
        depths = [0] * self._n
        for kids in self._children:
            depths.append(1 + max(depths[kid] for kid in kids))
        return depths[-1]

    @property
    def max_arity(self):
        """Most children of any node: 2 for a binary tree, 0 for one summand."""
        return max((len(kids) for kids in self._children), default=0)

    def lca_size(self, i, j):
        """Summands under the lowest common ancestor of leaves i and j (FPRev's L).

        >>> SumTree("(((0 1) 2) 3)").lca_size(0, 2)
        3
        """
        self._check_leaf(i, "i")
        self._check_leaf(j, "j")
        parents = self._parent_list()
        ancestors = set()
        node = i
        while node is not None:
            ancestors.add(node)
            node = parents[node]
        node = j
        while node not in ancestors:
            node = parents[node]
        start, stop = self._span(node)
        return stop - start

    def lca_sizes(self):
        """The n x n matrix of :meth:`lca_size` (1 on the diagonal).

        This is what FPRev measures: a masked input with +M at i and -M at j
        sums to ``n - lca_sizes()[i, j]`` units.

        >>> SumTree("((0 1) 2)").lca_sizes()
        array([[1, 2, 3],
               [2, 1, 3],
               [3, 3, 1]])
        """
        order = np.array(self._leaf_order_tuple(), dtype=np.intp)
        by_position = np.ones((self._n, self._n), dtype=np.int64)
        for node in range(self._n, self.root + 1):
            start, stop = self._span(node)
            # Pairs under different children of this node meet here.
            for kid in self.children(node):
                kid_start, kid_stop = self._span(kid)
                by_position[kid_start:kid_stop, start:kid_start] = stop - start
                by_position[kid_start:kid_stop, kid_stop:stop] = stop - start
        result = np.empty_like(by_position)
        result[np.ix_(order, order)] = by_position
        return result

    # -- views -------------------------------------------------------------

    def __str__(self):
        return _text.format_tree(self)

    def __repr__(self):
        return f"SumTree({str(self)!r})"

    def __eq__(self, other):
        if not isinstance(other, SumTree):
            return NotImplemented
        return self._n == other._n and self._children == other._children

    def __hash__(self):
        return hash((self._n, self._children))

    def to_dot(self, title=None):
        """Graphviz DOT text: the root on top, summands in a row at the bottom.

        ``title`` (optional) is printed under the drawing.  Render with
        ``dot -Tpng``.

        >>> print(SumTree("(1 0)").to_dot())
        digraph sumtree {
          graph [ordering=out]; node [fontname="Helvetica"]; edge [dir=back];
          s2 [label="+", shape=circle];
          { rank=same; x0 [label="0", shape=box]; x1 [label="1", shape=box]; }
          s2 -> x0;
          s2 -> x1;
        }
        """
        return _dot.to_dot(self, title)

    def evaluate(self, values, dtype=None, *, fused=None):
        """Add ``values`` in this tree's order, rounding each addition into ``dtype``.

        ``values`` has the n summands along its last axis (more leading axes
        evaluate many inputs at once).  ``dtype`` is the accumulator format
        (default: the dtype of ``values``); every two-child node is one IEEE
        addition in it.  A node with k > 2 children is one fused step: by
        default the exact sum of its children rounded once (what an exact
        summation does); ``fused`` replaces that with your own model, a
        function from an array with the k children along the last axis to the
        rounded sums.  The result is in ``dtype``.

        >>> import numpy as np
        >>> x = np.array([1.0, 1e16, -1e16], dtype=np.float64)
        >>> float(SumTree("((0 1) 2)").evaluate(x)), float(SumTree("(0 (1 2))").evaluate(x))
        (0.0, 1.0)
        >>> float(SumTree.flat(3).evaluate(x))       # exact, then rounded once
        1.0
        """
        return _replay.evaluate(self, values, dtype, fused)

    # -- helpers -------------------------------------------------------------

    def _check_leaf(self, index, argname):
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"{argname} must be a leaf index (int); got {index!r}")
        if not 0 <= index < self._n:
            raise ValueError(f"{argname} must be a leaf index in [0, {self._n}); got {index}")

    def _leaf_order_tuple(self):
        if self._leaf_order is None:
            self._compute_spans()
        return self._leaf_order

    def _span(self, node):
        """(start, stop) of the node's leaves in left-to-right order."""
        if self._spans is None:
            self._compute_spans()
        return self._spans[node]

    def _compute_spans(self):
        order = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            kids = self.children(node)
            if kids:
                stack.extend(reversed(kids))
            else:
                order.append(node)
        spans = [None] * (self._n + len(self._children))
        for position, leaf in enumerate(order):
            spans[leaf] = (position, position + 1)
        for node in range(self._n, self.root + 1):
            kids = self.children(node)
            spans[node] = (spans[kids[0]][0], spans[kids[-1]][1])
        self._leaf_order = tuple(order)
        self._spans = spans

    def _parent_list(self):
        if self._parents is None:
            parents = [None] * (self._n + len(self._children))
            for node in range(self._n, self.root + 1):
                for kid in self.children(node):
                    parents[kid] = node
            self._parents = parents
        return self._parents


def _from_nested(spec):
    """(n, children, root) from nested sequences of leaf indices, without recursion."""
    children = {}
    leaves = []
    # Inner nodes get temporary ids below zero; renumbered by _canonical.
    next_inner = -1
    root_holder = []
    stack = [(spec, root_holder)]
    while stack:
        item, parent_list = stack.pop()
        if isinstance(item, (bool, str)):
            raise TypeError(f"a tree is nested sequences of leaf indices; got {item!r}")
        if isinstance(item, (int, np.integer)):
            leaves.append(int(item))
            parent_list.append(int(item))
            continue
        try:
            items = list(item)
        except TypeError:
            raise TypeError(
                f"a tree is nested sequences of leaf indices; got {item!r}") from None
        if len(items) < 2:
            raise ValueError(f"a node needs at least two children; got {item!r}")
        node = next_inner
        next_inner -= 1
        parent_list.append(node)
        kids = []
        children[node] = kids
        # Children are appended as they are popped: push in reverse to keep order.
        for kid in reversed(items):
            stack.append((kid, kids))
    n = len(leaves)
    if sorted(leaves) != list(range(n)):
        raise ValueError(f"the leaves must be 0..{n - 1}, each exactly once; got {sorted(leaves)}")
    # Shift the temporary ids to n.. so leaves and inner nodes cannot collide.
    shift = {node: n - 1 - node for node in children}
    renamed = {shift[node]: [shift.get(kid, kid) for kid in kids]
               for node, kids in children.items()}
    root = root_holder[0]
    return n, renamed, shift.get(root, root)


def _canonical(n, children, root):
    """Children tuples of inner nodes n.., post-order, siblings by smallest leaf.

    ValueError if the child lists are not one tree over leaves 0..n-1.
    """
    postorder = []
    seen = set()
    stack = [(root, False)]
    while stack:
        node, finished = stack.pop()
        if finished:
            postorder.append(node)
            continue
        if node in seen:
            raise ValueError(f"node {node} appears twice in the tree")
        seen.add(node)
        if node in children:
            if 0 <= node < n:
                raise ValueError(f"inner node id {node} collides with leaf {node}")
            kids = children[node]
            if len(kids) < 2:
                raise ValueError(f"node {node} has {len(kids)} child; a node adds at least two")
            stack.append((node, True))
            stack.extend((kid, False) for kid in kids)
        elif 0 <= node < n:
            postorder.append(node)
        else:
            raise ValueError(f"node {node} is neither a leaf 0..{n - 1} nor an inner node")
    leaf_count = sum(1 for node in seen if node not in children)
    if leaf_count != n:
        raise ValueError(f"the tree has {leaf_count} leaves, not n = {n}")
    smallest = {}
    for node in postorder:
        smallest[node] = min(smallest[kid] for kid in children[node]) if node in children else node
    # Second pass in canonical order, numbering inner nodes as they finish.
    canonical = []
    new_id = {}
    stack = [(root, False)]
    while stack:
        node, finished = stack.pop()
        if node not in children:
            continue
        if finished:
            new_id[node] = n + len(canonical)
            kids = sorted(children[node], key=smallest.__getitem__)
            canonical.append(tuple(new_id.get(kid, kid) for kid in kids))
            continue
        stack.append((node, True))
        stack.extend((kid, False) for kid in sorted(children[node], key=smallest.__getitem__,
                                                     reverse=True))
    return tuple(canonical)
