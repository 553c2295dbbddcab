"""FPRev: reveal the order in which a black-box function adds floating-point numbers.

NumPy, BLAS, PyTorch and GPUs each add in their own undocumented order, which
is why their sums disagree with each other and with themselves across
lengths, dtypes and versions.  :func:`reveal` recovers that order as a
:class:`SumTree` by calling the function on crafted inputs (the algorithms
of the paper "FPRev: Revealing the Order of Floating-Point Summation by
Numerical Testing"), and :meth:`SumTree.evaluate` replays it to predict the
function's result bit for bit.  See docs/fprev.md.

>>> import numpy as np
>>> from xsumufunc.fprev import reveal
>>> tree = reveal(np.sum, 32, np.float32)
>>> x = np.random.default_rng(0).standard_normal(32).astype(np.float32)
>>> tree.evaluate(x) == np.sum(x)
np.True_

From the shell: ``python -m xsumufunc.fprev numpy.sum --n 16 --dtype float32``.
"""

from ._errors import NotASummationError
from ._masks import Masks, masks
from ._reveal import reveal
from ._tree import SumTree

__all__ = ["Masks", "NotASummationError", "SumTree", "masks", "reveal"]
