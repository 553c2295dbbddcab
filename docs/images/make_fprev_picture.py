"""Render docs/images/fprev-sum-vs-exact.png with Graphviz's `dot`.

Run from anywhere with the package installed: ``python -P docs/images/make_fprev_picture.py``.
np.sum's revealed order for 32 float32 summands on this machine, above
exact_sum's single 32-way node.  The package itself never needs Graphviz.
"""

import pathlib
import re
import subprocess

import numpy as np

from xsumufunc import exact_sum
from xsumufunc.fprev import reveal

N = 32
OUT = pathlib.Path(__file__).with_name("fprev-sum-vs-exact.png")


def cluster(tree, title, prefix):
    """The body of tree.to_dot() as a titled cluster with prefixed node ids."""
    lines = tree.to_dot().splitlines()
    body = [re.sub(r"\b([xs]\d+)\b", rf"{prefix}_\1", line) for line in lines[2:-1]]
    return [f"  subgraph cluster_{prefix} {{", f'    label="{title}"; fontsize=18;',
            *("  " + line for line in body), "  }"]


def main():
    numpy_tree = reveal(np.sum, N, np.float32)
    exact_tree = reveal(exact_sum, N, np.float32)
    lines = [
        "digraph fprev {",
        "  newrank=true; nodesep=0.08; ranksep=0.25; ordering=out;",
        '  node [fontname="Helvetica", fontsize=10, width=0.3, height=0.3, margin=0.02];',
        "  edge [dir=back, arrowsize=0.6];",
        *cluster(numpy_tree, f"np.sum, float32, n = {N}: depth {numpy_tree.depth}", "a"),
        *cluster(exact_tree, f"xsumufunc.exact_sum, n = {N}: one {N}-way node, no order", "b"),
        # Stack the clusters: exact_sum's node sits below np.sum's summands.
        f"  a_x{numpy_tree.leaves(numpy_tree.root)[N // 2]} -> b_s{exact_tree.root} "
        "[style=invis];",
        "}",
    ]
    subprocess.run(["dot", "-Tpng", "-Gdpi=80", "-o", str(OUT)], input="\n".join(lines),
                   text=True, check=True)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
