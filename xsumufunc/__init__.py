"""xsumufunc: exact, correctly rounded NumPy reductions.

Every floating result is the exact mathematical result of the operation on
the input values, rounded once (to nearest, ties to even) into the result
dtype: independent of order, memory layout, chunking and machine.

Public functions: :func:`exact_sum`, :func:`exact_nansum`, :func:`exact_mean`,
:func:`exact_nanmean`, :func:`exact_dot` and :data:`exact_add` (``np.add``
with exact ``reduce``/``accumulate``/``reduceat``).  The raw gufuncs behind
them are exported too (``exact_sum_ufunc``, ``exact_mean_ufunc``,
``exact_dot_ufunc``, ``exact_cumsum_ufunc``) for ufunc-aware code such as
``xarray.apply_ufunc``.

Low-precision updates (bfloat16/float16 training, :mod:`xsumufunc.lowprec`):
:func:`kahan_add`, :func:`stochastic_add`, :func:`stochastic_round` and the
compensated (not exact) :func:`kahan_sum`.

Exact states to merge across threads, processes or machines:
:func:`exact_sum_state`, :func:`exact_count`, :func:`merge_states`,
:func:`round_state`, :func:`state_mean` (module :mod:`xsumufunc.state`).
Grouped sums without a Python call per group: :func:`exact_grouped_sum`,
:func:`exact_grouped_mean`; grouped variances built for all groups at once:
:func:`exact_grouped_var`, :func:`exact_grouped_std`.  The public functions also take dask arrays
(lazy, exact for every chunking; see docs/contract.md), and polars and
pyarrow columns (a null is an error except in the nan-functions, which skip
it).  Dask DataFrame groupby aggregations: :mod:`xsumufunc.dask_dataframe`
(it imports Dask; importing xsumufunc does not).  The layers behind them:
docs/architecture.md.
"""

from importlib.metadata import version as _version

try:
    from . import _ufuncs  # noqa: F401  (the compiled extension, first)
except ImportError:                        # pragma: no cover - depends on the checkout
    import importlib.util as _util

    if _util.find_spec(__name__ + "._ufuncs") is not None:
        raise
    raise ImportError(
        "xsumufunc: the compiled extension is missing: this is the source folder, not the "
        "installed package; install it (pip install .) and run Python with -P or from "
        "another directory") from None

from ._api.add import exact_add
from ._api.dot import exact_dot
from ._api.grouped import (
    exact_grouped_mean,
    exact_grouped_std,
    exact_grouped_sum,
    exact_grouped_var,
)
from ._api.moving import exact_moving_mean, exact_moving_std, exact_moving_sum, exact_moving_var
from ._api.pairs import (
    exact_average,
    exact_corrcoef,
    exact_cov,
    exact_linear_regression,
    exact_matmul,
)
from ._api.stats import exact_nanstd, exact_nanvar, exact_std, exact_var
from ._api.sums import exact_mean, exact_nanmean, exact_nansum, exact_sum
from ._ufuncs import (
    DOT_STATE_LENGTH,
    STATE_LENGTH,
    exact_cumsum_ufunc,
    exact_dot_state_round_ufunc,
    exact_dot_state_ufunc,
    exact_dot_ufunc,
    exact_mean_ufunc,
    exact_state_mean_ufunc,
    exact_state_merge_ufunc,
    exact_state_round_ufunc,
    exact_sum_state_ufunc,
    exact_sum_ufunc,
    get_num_threads,
    set_num_threads,
)
from .lowprec import kahan_add, kahan_sum, stochastic_add, stochastic_round
from .state import exact_count, exact_sum_state, merge_states, round_state, state_mean

__version__ = _version("xsumufunc")       # meson.build's project version, the only one

__all__ = [
    "exact_add",
    "exact_count",
    "exact_cumsum_ufunc",
    "exact_dot",
    "exact_dot_ufunc",
    "exact_grouped_mean",
    "exact_grouped_std",
    "exact_grouped_sum",
    "exact_grouped_var",
    "exact_mean",
    "exact_mean_ufunc",
    "exact_moving_mean",
    "exact_moving_std",
    "exact_moving_sum",
    "exact_moving_var",
    "exact_nanmean",
    "exact_nansum",
    "exact_nanstd",
    "exact_nanvar",
    "exact_sum",
    "exact_sum_state",
    "exact_sum_ufunc",
    "exact_std",
    "exact_var",
    "get_num_threads",
    "kahan_add",
    "kahan_sum",
    "merge_states",
    "round_state",
    "set_num_threads",
    "state_mean",
    "stochastic_add",
    "stochastic_round",
    "exact_average",
    "exact_cov",
    "exact_corrcoef",
    "exact_linear_regression",
    "exact_matmul",
    # The raw state gufuncs behind xsumufunc.state (format in docs/contract.md;
    # native byte order: the public functions give portable little-endian states).
    "DOT_STATE_LENGTH",
    "STATE_LENGTH",
    "exact_dot_state_round_ufunc",
    "exact_dot_state_ufunc",
    "exact_state_mean_ufunc",
    "exact_state_merge_ufunc",
    "exact_state_round_ufunc",
    "exact_sum_state_ufunc",
]
