"""``python tests/fuzz --cases N --seed S --workers W``: run the differential fuzzer."""

import os
import sys

# Run as a directory: make tests/ importable (the oracle, and this package).
_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ROOT = os.path.dirname(_TESTS)
# Never import the uncompiled source folder beside the tests.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _ROOT]
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

from fuzz.driver import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
