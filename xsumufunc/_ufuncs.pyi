# Type stubs of the compiled module xsumufunc/_ufuncs.pyx: the names Python code uses.
from typing import Any

import numpy as np

#: Length of an exact sum state (int64 digits and flags) and of a dot state.
STATE_LENGTH: int
DOT_STATE_LENGTH: int
#: The state format as the C side defines it (name -> integer).
STATE_FORMAT: dict[str, int]
#: ml_dtypes' byte-coded formats -> (significand bits, min exponent, max exponent).
CODE_FORMATS: dict[np.dtype[Any], tuple[int, int, int]]
BFLOAT16: np.dtype[Any]

exact_sum_ufunc: np.ufunc
exact_mean_ufunc: np.ufunc
exact_dot_ufunc: np.ufunc
exact_cumsum_ufunc: np.ufunc
exact_moving_ufunc: np.ufunc
_norm_rows_ufunc: np.ufunc
_moving_var_ufunc: np.ufunc
_grouped_var_ufunc: np.ufunc
exact_sum_state_ufunc: np.ufunc
exact_masked_state_ufunc: np.ufunc
exact_state_merge_ufunc: np.ufunc
exact_state_round_ufunc: np.ufunc
exact_state_mean_ufunc: np.ufunc
exact_dot_state_ufunc: np.ufunc
exact_dot_state_round_ufunc: np.ufunc

def get_num_threads() -> int: ...
def _simd_levels() -> tuple[str, str]: ...
def _binned_min_terms(n: int = -1) -> int: ...
def set_num_threads(n: int | None) -> None: ...
def _fp_pin() -> int: ...
def _fp_restore(saved: int) -> None: ...
def _grouped_few(values: Any, codes: Any, ngroups: Any, mean: bool,
                 cells: int) -> tuple[np.ndarray, int] | None: ...
def _first_invalid_state(rows: np.ndarray, top_limit: int) -> int: ...
def _canonicalize_states(rows: np.ndarray) -> int: ...
def _segment_sums(values: Any, indices: Any) -> np.ndarray | None: ...
def _moving_row(values: np.ndarray, window: int, min_count: int,
                mean: bool) -> np.ndarray | None: ...
def _moving_var_row(values: np.ndarray, window: int, min_count: int, ddof: int,
                    std: bool) -> tuple[np.ndarray, np.ndarray] | None: ...
def _outer_product(a: Any, b: Any) -> np.ndarray | None: ...
NOT_PLAIN: object
def _pinned_call(core: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                 positions: tuple[int, ...], names: tuple[str, ...],
                 plain: frozenset[type]) -> Any: ...
def _state_integers(states: np.ndarray, shifts: tuple[int, ...]) -> list[int]: ...
