"""Differential fuzzing of xsumufunc against the exact oracle.

Not collected by pytest as tests (no ``test_*.py`` here); the suite runs a
small number of cases through ``tests/test_fuzz_smoke.py``.  Run it by hand
with ``python tests/fuzz --cases N --seed S --workers W`` (see
``docs/hardening.md``).
"""
