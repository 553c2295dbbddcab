"""The text form of a summation tree: nested parentheses of leaf indices.

``((0 1) (2 3))`` adds leaves 0 and 1, then 2 and 3, then the two sums; a
node may have more than two children, ``(0 1 2 3)`` adds four summands in one
fused step; a single summand is just ``0``.  Parsing and printing are both
iterative (a stack, no recursion), so trees thousands deep are fine.
"""

import re

_TOKEN = re.compile(r"\s*(?:(\()|(\))|(\d+)|([^\s()]+))")


def parse(text):
    """(n, children, root) from text; ValueError naming the problem otherwise.

    ``children`` maps each inner-node id to its list of child ids; leaves are
    0..n-1 and inner nodes are numbered from n in the order they close.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}")
    # Inner nodes are known by their closing order k until n is known; they
    # stand in child lists as ("node", k) and become n + k at the end.
    closed = []
    open_nodes = []  # child lists of the parentheses still open
    top = []  # items outside every parenthesis: exactly one when well formed
    leaves = []
    for match in _TOKEN.finditer(text):
        opening, closing, number, junk = match.groups()
        if junk is not None:
            raise ValueError(f"text: unexpected {junk!r} at offset {match.start(4)}")
        if opening:
            open_nodes.append([])
            continue
        if closing:
            if not open_nodes:
                raise ValueError(f"text: unmatched ')' at offset {match.start(2)}")
            kids = open_nodes.pop()
            if len(kids) < 2:
                raise ValueError(
                    f"text: a node needs at least two children; the one closing at offset "
                    f"{match.start(2)} has {len(kids)}")
            closed.append(kids)
            item = ("node", len(closed) - 1)
        else:
            item = int(number)
            leaves.append(item)
        (open_nodes[-1] if open_nodes else top).append(item)
    if open_nodes:
        raise ValueError("text: unbalanced '(': a node is never closed")
    if len(top) != 1:
        raise ValueError(
            f"text must hold exactly one tree; got {len(top)} items at the top level")
    n = len(leaves)
    if sorted(leaves) != list(range(n)):
        raise ValueError(
            f"text: the leaves must be 0..{n - 1}, each exactly once; got {sorted(leaves)}")

    def node_id(item):
        return n + item[1] if isinstance(item, tuple) else item

    children = {n + k: [node_id(kid) for kid in kids] for k, kids in enumerate(closed)}
    return n, children, node_id(top[0])


def format_tree(tree):
    """Canonical text of a SumTree (its children are already in canonical order)."""
    pieces = []
    stack = [tree.root]
    close = -1  # marker: emit ")" (node ids are never negative)
    while stack:
        node = stack.pop()
        if node == close:
            pieces.append(")")
            continue
        kids = tree.children(node)
        if not kids:
            pieces.append(str(node))
            continue
        pieces.append("(")
        stack.append(close)
        stack.extend(reversed(kids))
    out = []
    for piece in pieces:
        # A space separates items, never after "(" or before ")".
        if out and out[-1] != "(" and piece != ")":
            out.append(" ")
        out.append(piece)
    return "".join(out)
