"""``xsumufunc.array_api``: an array-API namespace with exact reductions.

Everything of ``array_api_compat.numpy`` is here, except that ``sum``,
``mean``, ``cumulative_sum``, ``vecdot``, ``matmul``, ``tensordot``, their
``linalg`` twins, ``linalg.vecdot`` and
``linalg.vector_norm`` are exact: floating results are the exact
mathematical result rounded once into the result dtype (see
:mod:`xsumufunc.array_api._functions` for the dtype rules).  ``linalg`` is a
module of its own (``array_api_compat.numpy.linalg`` is left untouched).

The exact functions also take CPU arrays of other libraries that speak
DLPack or the array API (array-api-strict, torch, JAX) and return arrays of
their namespace.  Full reductions return 0-d arrays, not NumPy scalars.

Importing this module imports ``array_api_compat`` (the ``array-api``
extra); importing ``xsumufunc`` alone does not.

Examples
--------
>>> from xsumufunc import array_api as xp
>>> x = xp.asarray([0.1] * 10)
>>> xp.sum(x)                  # the exact sum of ten 0.1 rounds to 1.0
array(1.)
>>> xp.linalg.vector_norm(xp.asarray([3.0, 4.0]))
array(5.)
"""

try:
    import array_api_compat.numpy as _compat
except ImportError as exc:              # pragma: no cover - depends on the install
    raise ImportError(
        "xsumufunc.array_api needs array-api-compat: "
        'pip install "xsumufunc[array-api]"') from exc

_OURS = {"cumulative_sum", "linalg", "matmul", "mean", "std", "sum", "tensordot", "var",
         "vecdot"}

# Re-export the whole NumPy namespace of array_api_compat ...
globals().update({_name: getattr(_compat, _name) for _name in _compat.__all__
                  if _name not in _OURS})
__array_api_version__ = _compat.__array_api_version__

# ... then put our exact functions and our own linalg module over it.
from . import linalg  # noqa: E402, F401 (re-exported: __all__ below)
from ._functions import (  # noqa: E402, F401
    cumulative_sum,
    matmul,
    mean,
    std,
    sum,
    tensordot,
    var,
    vecdot,
)

__all__ = sorted(set(_compat.__all__) | _OURS)
