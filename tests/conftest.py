import os
import sys

# `python -m pytest` from the repository root puts the root on sys.path, and
# `import xsumufunc` would then find the source folder (which has no compiled
# extension) instead of the installed package.  Drop those entries.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _ROOT]

from hypothesis import HealthCheck, settings  # noqa: E402 (after the sys.path fix)

# Make the helper modules (oracle, strategies, helpers) importable whatever
# pytest import mode is configured.
_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

_SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile(
    "ci",
    max_examples=50,
    deadline=None,
    suppress_health_check=_SUPPRESS,
    database=None,
    print_blob=True,
)
settings.register_profile(
    "dev",
    max_examples=1000,
    deadline=None,
    suppress_health_check=_SUPPRESS,
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
