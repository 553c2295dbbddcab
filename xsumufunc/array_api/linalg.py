"""``xsumufunc.array_api.linalg``: the array-API linalg extension.

Every function of ``array_api_compat.numpy.linalg``, with exact
``vecdot`` and ``vector_norm`` (see :mod:`xsumufunc.array_api._functions`).
A module of its own: ``array_api_compat.numpy.linalg`` is not modified.

Examples
--------
>>> from xsumufunc.array_api import linalg, asarray
>>> linalg.vector_norm(asarray([1e-200, 1e-200]))     # x*x underflows, the norm does not
array(1.41421356e-200)
"""

from array_api_compat.numpy import linalg as _compat_linalg

globals().update({_name: getattr(_compat_linalg, _name) for _name in _compat_linalg.__all__
                  if _name not in ("vecdot", "vector_norm")})

from ._functions import linalg_vecdot as vecdot  # noqa: E402
from ._functions import vector_norm  # noqa: E402, F401 (public: xsumufunc.array_api.linalg)

vecdot.__name__ = vecdot.__qualname__ = "vecdot"

__all__ = sorted(set(_compat_linalg.__all__) | {"vecdot", "vector_norm"})
