"""The public functions: documented signatures, each a NumPy implementation
from ``_core`` behind the dispatching decorator of ``_dispatch``."""
