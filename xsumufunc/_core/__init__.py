"""The NumPy-only core: argument rules, dtypes, the state format and the
exact algorithms around the compiled loops.  Imports nothing above it
(no dispatch, no backends, no public modules)."""
