"""A forest of partial summation trees, grown by merging at measured sizes.

Both FPRev methods learn "the leaves of a and b meet in a subtree of
``size`` summands" and record it here.  A node remembers that size (its
*full* size) and how many leaves it holds so far: a node holding fewer than
its full size is a fused multi-term node still collecting children.  Any
merge that contradicts the sizes already seen raises NotASummationError.
"""

from ._errors import NotASummationError
from ._tree import SumTree


class Forest:
    def __init__(self, n):
        self.n = n
        self._full = [1] * n  # leaves: full size 1, complete
        self._count = [1] * n
        self._children = {}

    def merge(self, a, b, size):
        """Join the trees rooted at a and b where their leaves meet at ``size``.

        Returns the id of the node that now holds both.
        """
        for node in (a, b):
            if self._full[node] > size:
                self._fail(f"a subtree of {self._full[node]} summands cannot lie inside one "
                           f"of {size}")
            if self._full[node] < size and self._count[node] != self._full[node]:
                self._fail(f"a fused node of {self._full[node]} summands got only "
                           f"{self._count[node]} before a larger one formed")
        total = self._count[a] + self._count[b]
        if total > size:
            self._fail(f"{total} summands met in a subtree measured at {size}")
        a_open, b_open = self._full[a] == size, self._full[b] == size
        if a_open and b_open:
            # Two parts of one fused node, found from different leaves.
            self._children[a].extend(self._children.pop(b))
            node = a
        elif a_open or b_open:
            node, kid = (a, b) if a_open else (b, a)
            self._children[node].append(kid)
        else:
            node = len(self._full)
            self._full.append(size)
            self._count.append(0)
            self._children[node] = [a, b]
        self._count[node] = total
        return node

    def check_complete(self, root):
        """The final root must hold all n summands and be measured at n."""
        if self._count[root] != self.n or self._full[root] != self.n:
            self._fail(f"the root holds {self._count[root]} of n = {self.n} summands and was "
                       f"measured at {self._full[root]}")

    def to_tree(self, root):
        return SumTree._from_parts(self.n, self._children, root)

    @staticmethod
    def _fail(detail):
        raise NotASummationError(
            f"the measurements fit no summation tree ({detail}): func does not add in one "
            f"fixed order (random or value-dependent order, or an accumulator wider than the "
            f"masks assume)")
