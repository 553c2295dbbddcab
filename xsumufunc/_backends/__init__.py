"""Backends for arrays that are not NumPy's, imported lazily by ``_dispatch``:
``dask`` (lazy, exact for every chunking) and ``foreign`` (DLPack and
array-API arrays, computed on a NumPy view).  They call ``_core`` only."""
