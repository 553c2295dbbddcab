"""Command line: ``python -m xsumufunc.fprev numpy.sum --n 16 --dtype float32``.

Prints the revealed tree as text (or Graphviz DOT with ``--dot``).  The
function is named ``module.function``; functions of two arrays (dot
products) are recognised by name or chosen with ``--operands 2``, and
``torch.*`` functions get torch tensors.
"""

import argparse
import importlib
import sys

import numpy as np

from ._errors import NotASummationError
from ._formats import FORMATS
from ._reveal import reveal

# Functions of two arrays whose sum of products FPRev can mask through one operand.
TWO_OPERANDS = frozenset({
    "numpy.dot", "numpy.inner", "numpy.vdot", "numpy.matmul", "numpy.vecdot",
    "xsumufunc.exact_dot", "torch.dot", "torch.inner", "torch.matmul",
})

_DTYPES = {fmt.name: fmt.dtype for fmt in FORMATS.values()}


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m xsumufunc.fprev",
        description="Reveal the order in which FUNCTION adds n floating-point numbers (FPRev).")
    parser.add_argument("function", help="module.function, e.g. numpy.sum, math.fsum, "
                        "xsumufunc.exact_sum, numpy.dot, torch.sum")
    parser.add_argument("--n", type=int, default=16, help="number of summands (default 16)")
    parser.add_argument("--dtype", choices=sorted(_DTYPES), default="float32",
                        help="dtype of the summands (default float32)")
    parser.add_argument("--accumulator", choices=sorted(_DTYPES), default=None,
                        help="narrowest format of FUNCTION's partial sums and result, when "
                        "wider than --dtype (raises the limit on n)")
    parser.add_argument("--method", choices=("advanced", "basic"), default="advanced")
    parser.add_argument("--operands", type=int, choices=(1, 2), default=None,
                        help="arrays FUNCTION takes (default: 2 for known dot products, else 1)")
    parser.add_argument("--dot", action="store_true", help="print Graphviz DOT, not text")
    return parser


def resolve(name):
    """The object called ``module.attr[.attr...]``; ValueError if there is none."""
    parts = name.split(".")
    if len(parts) < 2 or not all(parts):
        raise ValueError(f"function must be named module.function; got {name!r}")
    for split in range(len(parts) - 1, 0, -1):
        module_name = ".".join(parts[:split])
        try:
            target = importlib.import_module(module_name)
        except ImportError:
            continue
        try:
            for attribute in parts[split:]:
                target = getattr(target, attribute)
        except AttributeError:
            raise ValueError(f"module {module_name!r} has no {'.'.join(parts[split:])!r}") \
                from None
        if not callable(target):
            raise ValueError(f"{name} is not callable")
        return target
    raise ValueError(f"cannot import a module for {name!r} (is it installed?)")


def torch_adapter(func):
    """Call a torch function on NumPy arrays and return a Python float."""
    import torch

    def call(*arrays):
        tensors = []
        for array in arrays:
            if array.dtype == _DTYPES["bfloat16"]:
                # torch cannot read ml_dtypes' bfloat16; float32 holds it exactly.
                tensors.append(torch.from_numpy(array.astype(np.float32)).to(torch.bfloat16))
            else:
                tensors.append(torch.from_numpy(array))
        return func(*tensors).item()

    return call


def main(argv=None):
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        func = resolve(args.function)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.function.split(".")[0] == "torch":
        func = torch_adapter(func)
    operands = args.operands or (2 if args.function in TWO_OPERANDS else 1)
    try:
        tree = reveal(func, args.n, _DTYPES[args.dtype], args.method, operands=operands,
                      accumulator=None if args.accumulator is None else _DTYPES[args.accumulator])
    except NotASummationError as exc:
        print(f"error: {args.function}: {exc}", file=sys.stderr)
        return 1
    except (TypeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    title = f"{args.function}, {args.dtype}, n = {args.n}"
    print(tree.to_dot(title) if args.dot else tree)
    return 0
