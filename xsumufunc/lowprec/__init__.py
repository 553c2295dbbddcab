"""Low-precision updates: Kahan-compensated and stochastically rounded.

Training in bfloat16 stalls because rounding to nearest drops every update
smaller than half an ulp of the weight.  Two remedies recover float32-like
accuracy (Zamirai et al., "Revisiting BFloat16 Training"):

* :func:`kahan_add` keeps a compensation buffer ``c`` of the storage dtype
  that collects what each rounded update lost (Algorithm 1 of the paper,
  every operation rounded to nearest in the storage dtype);
* :func:`stochastic_add` computes ``w + u`` exactly and rounds it up or down
  with probabilities given by the distance (:func:`stochastic_round` does the
  same for a single value).

:func:`kahan_sum` is the classic compensated (not exact) sum, for comparing
with :func:`xsumufunc.exact_sum`.  Conventions (sign of ``c``, how the random
bits decide, NaN and overflow) are in ``docs/lowprec.md``.

>>> import numpy as np, ml_dtypes
>>> import xsumufunc as xs
>>> w = np.ones(3, dtype=ml_dtypes.bfloat16)
>>> (w + np.float32(1e-3).astype(ml_dtypes.bfloat16)).astype(float)   # the update is lost
array([1., 1., 1.])
>>> c = np.zeros_like(w)
>>> for _ in range(100):
...     w, c = xs.kahan_add(w, c, np.float32(1e-3))
>>> w.astype(float)                                 # exact: 1.1 rounds to 1.1015625
array([1.1015625, 1.1015625, 1.1015625])
"""

from .._backends.plans import declare
from .._dispatch import dispatching
from .._lowprec_ufuncs import _kahan_add_call, _stochastic_add_call, _stochastic_round_call
from . import _updates

__all__ = ["kahan_add", "kahan_sum", "stochastic_add", "stochastic_round"]

#: Dtypes weights (and compensations) can be stored in.
STORAGE_DTYPES = _updates.STORAGE_DTYPES

kahan_add = dispatching("kahan_add", ("w", "c", "u"), fast=_kahan_add_call)(_updates.kahan_add)
declare(kahan_add, "elementwise")
stochastic_round = dispatching("stochastic_round", ("x", "bits"),
                               fast=_stochastic_round_call)(_updates.stochastic_round)
declare(stochastic_round, "stochastic")
stochastic_add = dispatching("stochastic_add", ("w", "u", "bits"),
                             fast=_stochastic_add_call)(_updates.stochastic_add)
declare(stochastic_add, "stochastic")
kahan_sum = dispatching("kahan_sum", ("a",))(_updates.kahan_sum)
declare(kahan_sum, "kahan_sum")
