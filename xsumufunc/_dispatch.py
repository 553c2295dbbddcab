"""Which backend computes a call: a lazy registry and one decorator.

Every public function is its NumPy implementation (from ``_core``) wrapped by
:func:`dispatching`.  The wrapper looks at the function's array arguments:
NumPy arrays, lists and scalars go straight to the NumPy implementation;
the first argument that a registered backend claims sends the whole call to
that backend instead.  A backend is a module providing

    call(function, args, kwargs)

where ``function`` is the :class:`Function` below (its name, NumPy
implementation, array arguments and signature).  Backends are registered by
module name and imported only when one of their arrays is seen (in the style
of ``dask.utils.Dispatch.register_lazy``), so importing xsumufunc never
imports dask or any array library.

Registered here:

- ``dask``: dask arrays, computed lazily through exact states
  (``_backends/dask.py``);
- ``foreign``: arrays of other libraries that speak DLPack or the array API
  (``_backends/foreign.py``), computed on a NumPy view and returned in the
  caller's namespace; polars and pyarrow columns and tables (their nulls
  and tables follow one rule there).
"""

import functools
import importlib
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import numpy as np

from ._core.arrays import is_foreign
from ._core.dtypes import reject_masked
from ._core.spec import NO_VALUE
from ._ufuncs import NOT_PLAIN, _fp_pin, _fp_restore, _pinned_call

# Types that never go to a backend: checked first, so the common call stays cheap.
_NATIVE_TYPES = frozenset([np.ndarray, list, tuple, int, float, complex, bool, str,
                           type(None)])
# Argument types that are neither another library's array nor a masked one
# (nor hold one, as a list may): the wrapper passes them without a look.
_PLAIN_TYPES = frozenset([np.ndarray, int, float, complex, bool, type(None), type(NO_VALUE)])


def _is_dask(x):
    return type(x).__module__.startswith("dask.")


class Dispatch:
    """Backends in order of priority, each imported on first use."""

    def __init__(self):
        self._entries = []          # (name, claims(x) -> bool, module name)
        self._modules = {}

    def register_lazy(self, name, module, claims):
        """Register backend `name`, implemented by `module` (imported when
        first needed), for the arguments for which `claims(x)` is true."""
        self._entries.append((name, claims, module))

    def backend_for(self, values, allowed=None):
        """The backend module for the first value a backend claims, or None."""
        for x in values:
            if type(x) in _NATIVE_TYPES or isinstance(x, np.generic):
                continue
            for name, claims, module in self._entries:
                if (allowed is None or name in allowed) and claims(x):
                    if name not in self._modules:
                        self._modules[name] = importlib.import_module(module)
                    return self._modules[name]
        return None


BACKENDS = Dispatch()
BACKENDS.register_lazy("dask", "xsumufunc._backends.dask", _is_dask)
BACKENDS.register_lazy("foreign", "xsumufunc._backends.foreign", is_foreign)


@dataclass(frozen=True)
class Function:
    """What a backend needs to know about a public function."""

    name: str           # the public name, as error messages give it
    core: object        # the NumPy implementation
    arrays: tuple       # the names of its array arguments
    signature: inspect.Signature
    # What it computes, declared beside the public function (never read
    # from its name): it leaves NaNs out, it divides by the count, it takes
    # a square root.
    skips_nan: bool = False
    mean: bool = False
    std: bool = False

    def bind(self, args, kwargs):
        """The arguments by name, defaults included (TypeError as Python's)."""
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound


F = TypeVar("F", bound=Callable[..., Any])


def _refuse_masked(function, positions, args, kwargs):
    """The one rule for masks, on every array argument of every public
    function: numpy.ma arrays (and numpy.ma.masked) are refused, naming the
    argument (dtypes.reject_masked says how to pass where=~mask)."""
    where = "where" in function.signature.parameters
    for argname, p in zip(function.arrays, positions):
        if p < len(args):
            reject_masked(args[p], function.name, argname, where)
        elif argname in kwargs:
            reject_masked(kwargs[argname], function.name, argname, where)


def dispatching(name: str, arrays: Iterable[str], backends: Iterable[str] | None = None,
                *, skips_nan: bool = False, mean: bool = False,
                std: bool = False,
                fast: Callable[[tuple, dict], Any] | None = None) -> Callable[[F], F]:
    """Decorate the NumPy implementation of public function `name`, whose
    array arguments are named in `arrays`, so that the arrays of other
    libraries go to their backend (only those in `backends`, if given).
    The flags are its traits (see Function).  `fast(args, kwargs)`, if
    given, is tried first: a compiled entry that takes the whole call (its
    result) or declines it (None); it takes only exact NumPy arrays and
    pins the floating-point mode itself."""

    def decorate(core: F) -> F:
        function = Function(name, core, tuple(arrays), inspect.signature(core),
                            skips_nan, mean, std)
        params = list(function.signature.parameters)
        positions = tuple(params.index(a) for a in arrays)
        allowed = None if backends is None else frozenset(backends)

        names = function.arrays

        def other_library(args, kwargs):
            """Send the call to the backend of the first argument one claims
            (None: no backend does), after the one rule for masks."""
            values = [args[p] for p in positions if p < len(args)]
            if kwargs:
                values += [kwargs[a] for a in names if a in kwargs]
            _refuse_masked(function, positions, args, kwargs)
            backend = BACKENDS.backend_for(values, allowed)
            # A backend pins the mode where it computes (the foreign one
            # inside its torch.compile boundary).
            return None if backend is None else (backend.call(function, args, kwargs),)

        @functools.wraps(core)
        def public(*args, **kwargs):
            # A first argument of another library skips the compiled steps:
            # inside torch.compile, Dynamo cannot trace a compiled function
            # and would stop there, not at the foreign backend's graph break
            # (which names xsumufunc and says why).
            if not args or type(args[0]) in _PLAIN_TYPES:
                if fast is not None:
                    # On 10 values the steps below cost more than NumPy's call.
                    done = fast(args, kwargs)
                    if done is not None:
                        return done
                # The whole call, Python and NumPy steps included, in the
                # mode the results are defined in (see _ufuncs._fp_pin), when
                # every array argument is of a plain type: one compiled step,
                # as this runs on every call and a small call is a
                # microsecond or two.
                done = _pinned_call(core, args, kwargs, positions, names, _PLAIN_TYPES)
                if done is not NOT_PLAIN:
                    return done
            handled = other_library(args, kwargs)
            if handled is not None:
                return handled[0]
            saved = _fp_pin()
            try:
                return core(*args, **kwargs)
            finally:
                _fp_restore(saved)

        public.dispatched = function  # type: ignore[attr-defined]
        return cast(F, public)

    return decorate


#: Public modules whose work lives in a backend module (imported on first use).
_BACKEND_OF_MODULE = {"dask_dataframe": "xsumufunc._backends.dask_groupby"}


def backend_of_module(name: str) -> Any:
    """The backend module that does the work of public module `name`."""
    return importlib.import_module(_BACKEND_OF_MODULE[name])
