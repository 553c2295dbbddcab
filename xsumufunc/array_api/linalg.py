"""``xsumufunc.array_api.linalg``: the array-API linalg extension.

Every function of ``array_api_compat.numpy.linalg``, with exact ``matmul``,
``tensordot``, ``vecdot`` and ``vector_norm`` (see
:mod:`xsumufunc.array_api._functions`).
A module of its own: ``array_api_compat.numpy.linalg`` is not modified.

Examples
--------
>>> from xsumufunc.array_api import linalg, asarray
>>> linalg.vector_norm(asarray([1e-200, 1e-200]))     # x*x underflows, the norm does not
array(1.41421356e-200)
"""

from array_api_compat.numpy import linalg as _compat_linalg

_OURS = ("matmul", "tensordot", "vecdot", "vector_norm")

globals().update({_name: getattr(_compat_linalg, _name) for _name in _compat_linalg.__all__
                  if _name not in _OURS})

from ._functions import linalg_matmul as matmul  # noqa: E402
from ._functions import linalg_tensordot as tensordot  # noqa: E402
from ._functions import linalg_vecdot as vecdot  # noqa: E402
from ._functions import vector_norm  # noqa: E402, F401 (public: xsumufunc.array_api.linalg)

for _f, _n in ((matmul, "matmul"), (tensordot, "tensordot"), (vecdot, "vecdot")):
    _f.__name__ = _f.__qualname__ = _n

__all__ = sorted(set(_compat_linalg.__all__) | set(_OURS))
