"""What each public function asks of the lazy (Dask) backend, as data.

One row per public function, keyed by the function itself (its
``_dispatch.Function``) and declared right below the function in ``_api``
(or ``state``, ``lowprec``) with :func:`declare`: the name of the plan
(how the backend computes it) and the plan's options (skip_nan, mean,
std, ...).  A backend looks the row up instead of switching on names, so
a function's traits are written once, next to it.

This module holds data only and imports no array library.
"""

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Plan:
    """How a lazy backend computes one public function."""

    name: str                                   # the plan, e.g. "reduce"
    options: dict[str, Any] = field(default_factory=dict)


#: Function (``_dispatch.Function``) -> Plan.
PLANS: dict[Any, Plan] = {}


def declare(public: Any, plan: str, **options: Any) -> None:
    """Declare the plan of the dispatched public function `public`."""
    PLANS[public.dispatched] = Plan(plan, options)


def plan_of(function: Any) -> Plan | None:
    """The declared plan of a ``_dispatch.Function``, or None."""
    return PLANS.get(function)
