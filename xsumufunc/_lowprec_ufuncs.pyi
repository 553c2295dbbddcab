# Type stubs of the compiled module xsumufunc/_lowprec_ufuncs.pyx: the names Python code uses.
from typing import Any

import numpy as np

BFLOAT16: np.dtype[Any]

kahan_add_ufunc: np.ufunc
kahan_sum_ufunc: np.ufunc
stochastic_add_ufunc: np.ufunc
_stochastic_round_to_bfloat16: np.ufunc
_stochastic_round_to_float16: np.ufunc
_stochastic_round_to_float32: np.ufunc

# The common calls of xsumufunc.kahan_add, stochastic_add and stochastic_round
# by their loops: (args, kwargs) of the public call -> its result, or None.
def _kahan_add_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any: ...
def _stochastic_add_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any: ...
def _stochastic_round_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any: ...
