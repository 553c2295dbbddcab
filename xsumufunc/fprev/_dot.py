"""Graphviz DOT text for a SumTree: the sum on top, summands in a row below."""


def to_dot(tree, title=None):
    """DOT source; leaves are boxes labelled by index, additions are circles.

    Edges run from each node to its children in canonical order (so the
    drawing keeps that order left to right) with arrowheads pointing up, the
    way the partial sums flow.  A node with k > 2 children (one fused step)
    is labelled ``+k``.
    """
    lines = [
        "digraph sumtree {",
        '  graph [ordering=out]; node [fontname="Helvetica"]; edge [dir=back];',
    ]
    if title is not None:
        lines.append(f'  labelloc="b"; label="{_escape(str(title))}";')
    for node in range(tree.n, tree.root + 1):
        arity = len(tree.children(node))
        label = "+" if arity == 2 else f"+{arity}"
        lines.append(f'  s{node} [label="{label}", shape=circle];')
    leaves = " ".join(f'x{leaf} [label="{leaf}", shape=box];' for leaf in tree.leaves(tree.root))
    # One rank keeps every summand on the bottom row, whatever its depth.
    lines.append(f"  {{ rank=same; {leaves} }}")
    for node in range(tree.n, tree.root + 1):
        for kid in tree.children(node):
            lines.append(f"  s{node} -> {'x' if kid < tree.n else 's'}{kid};")
    lines.append("}")
    return "\n".join(lines)


def _escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')
