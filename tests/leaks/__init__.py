"""Leak checks run outside pytest (valgrind); see docs/hardening.md."""
