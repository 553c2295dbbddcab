"""What the benchmark scripts share around their measurements: the command
line (``parser``), the pin of NumPy's BLAS threads (``pin_blas_threads``),
the name of the thread count in a report (``threads_label``) and the median
of each table cell over runs (``median_cells``).

Nothing here imports NumPy: the scripts that pin BLAS threads must do so
before NumPy loads its BLAS.
"""

import argparse
import os
import statistics

from pages import add_write_option

BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def parser(doc, *, rounds=None, runs=False, threads=False, n=None, seed=False):
    """A parser described by the first line of ``doc``, with the options asked
    for: --rounds (its default), --runs, --threads (1; 0 for the default
    count), --n (its default, a float: 1e6 is accepted) and --seed (0); and
    --write PAGE (pages.add_write_option) always."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    if rounds is not None:
        p.add_argument("--rounds", type=int, default=rounds)
    if runs:
        p.add_argument("--runs", type=int, default=1, help="runs; the median is shown")
    if threads:
        p.add_argument("--threads", type=int, default=1, help="0: the default count")
    if n is not None:
        p.add_argument("--n", type=float, default=n)
    if seed:
        p.add_argument("--seed", type=int, default=0)
    add_write_option(p)
    return p


def pin_blas_threads(threads):
    """Ask NumPy's BLAS for ``threads`` threads (0: leave its default).  Call
    before NumPy is imported: BLAS reads these variables when it loads."""
    if threads:
        for var in BLAS_THREAD_VARIABLES:
            os.environ[var] = str(threads)


def threads_label(threads):
    """``threads`` as a report names it (0: the default count)."""
    if threads == 1:
        return "one thread"
    return "the default threads" if threads == 0 else f"{threads} threads"


def median_cells(runs):
    """The median of each cell over runs: runs is a list of tables with the
    same keys, {key: cells}, the cells a sequence (a list of medians back)
    or a dict (a dict back); keys in the first run's order."""
    out = {}
    for key, cells in runs[0].items():
        names = cells.keys() if isinstance(cells, dict) else range(len(cells))
        medians = {k: statistics.median(run[key][k] for run in runs) for k in names}
        out[key] = medians if isinstance(cells, dict) else list(medians.values())
    return out
