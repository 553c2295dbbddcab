"""``python -m xsumufunc.fprev FUNCTION``: print the summation tree of FUNCTION."""

from ._cli import main

raise SystemExit(main())
