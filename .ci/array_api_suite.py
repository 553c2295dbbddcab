"""Run the official array API test suite (array-api-tests) on
``xsumufunc.array_api`` and fail on the failures that are ours alone.

    python .ci/array_api_suite.py SUITE [--whole] [--seed N] [--max-examples N]

SUITE is a checkout of data-apis/array-api-tests with its ``array-api``
spec submodule.  It is copied to a temporary directory (the suite writes
beside itself) and run twice, in parallel, with the same selection and the
same Hypothesis seed: once on ``xsumufunc.array_api`` and once on
``array_api_compat.numpy``, the namespace ours is built on.  A test that
fails on both is NumPy's (or the suite's), not ours; a test that fails on
ours alone fails this script.

By default the selection is what CI runs in a few minutes: the statistical
functions, linalg, the signatures and names, and the special cases of our
functions (empty arrays, NaN propagation).  ``--whole`` runs every test of
the suite (docs/array_api_suite.md: before a release).

The suite needs pytest-json-report and ndindex beside pytest and
hypothesis.  Without SUITE the script says so and exits 0.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: The array API version the suite checks (2023.12 or later: earlier ones
#: expect float32 sums to promote to float64).
API_VERSION = "2024.12"

#: The default selection: (test file, -k expression or None).
SELECTION = (
    ("test_statistical_functions.py", None),
    ("test_linalg.py", None),
    ("test_signatures.py", None),
    ("test_has_names.py", None),
    ("test_special_cases.py", "test_empty_arrays or test_nan_propagation"),
)

NAMESPACES = ("xsumufunc.array_api", "array_api_compat.numpy")


def _arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", type=Path, help="the array-api-tests checkout")
    parser.add_argument("--whole", action="store_true", help="run every test of the suite")
    parser.add_argument("--seed", type=int, default=1, help="the Hypothesis seed (1)")
    parser.add_argument("--max-examples", type=int, default=100,
                        help="Hypothesis examples per test (100)")
    return parser.parse_args(argv)


def _pytest_args(whole):
    """The test selection as pytest arguments, one list per pytest run
    (a -k expression applies to one file only)."""
    if whole:
        return [["array_api_tests"]]
    runs = [[f"array_api_tests/{name}" for name, k in SELECTION if k is None]]
    runs += [[f"array_api_tests/{name}", "-k", k] for name, k in SELECTION if k is not None]
    return runs


def _start(copy, namespace, selection, report, args):
    """One pytest run of the suite copy on `namespace`, writing its JSON
    report."""
    env = dict(os.environ, ARRAY_API_TESTS_MODULE=namespace,
               ARRAY_API_TESTS_VERSION=API_VERSION,
               HYPOTHESIS_STORAGE_DIRECTORY=str(report.with_suffix(".hypothesis")))
    # The selection first: --json-report-omit takes every word after it.
    command = [sys.executable, "-m", "pytest", *selection,
               "-p", "no:cacheprovider", "-p", "no:randomly",
               "-q", "--no-header", "-W", "ignore::UserWarning",
               f"--hypothesis-seed={args.seed}", f"--max-examples={args.max_examples}",
               "--disable-deadline", "--json-report", f"--json-report-file={report}",
               "--json-report-omit", "collectors", "log", "traceback", "streams", "warnings"]
    log = open(report.with_suffix(".log"), "w")
    return subprocess.Popen(command, cwd=copy, env=env, stdout=log, stderr=subprocess.STDOUT)


def _failed(report):
    """The node ids of the tests that failed or errored in a JSON report."""
    tests = json.loads(report.read_text())["tests"]
    return {t["nodeid"] for t in tests if t["outcome"] in ("failed", "error")}


def main(argv=None):
    args = _arguments(argv)
    if not (args.suite / "array_api_tests").is_dir():
        print(f"array API suite: skipped, no array-api-tests checkout at {args.suite}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "array-api-tests"
        shutil.copytree(args.suite, copy)
        failed = {}
        for i, selection in enumerate(_pytest_args(args.whole)):
            runs = {ns: (Path(tmp) / f"{ns}-{i}.json") for ns in NAMESPACES}
            procs = {ns: _start(copy, ns, selection, report, args)
                     for ns, report in runs.items()}
            for ns, proc in procs.items():
                code = proc.wait()
                # 0: passed, 1: some tests failed; anything else (usage,
                # internal or collection errors) is a broken run.
                if code not in (0, 1) or not runs[ns].exists():
                    print(runs[ns].with_suffix(".log").read_text()[-5000:])
                    print(f"array API suite: pytest on {ns} stopped with exit code {code}")
                    return 1
                failed.setdefault(ns, set()).update(_failed(runs[ns]))
        ours, numpy = (failed[ns] for ns in NAMESPACES)
        for nodeid in sorted(ours & numpy):
            print(f"failed on array_api_compat.numpy too (not ours): {nodeid}")
        only_ours = sorted(ours - numpy)
        for nodeid in only_ours:
            print(f"FAILED on xsumufunc.array_api alone: {nodeid}")
        scope = "whole suite" if args.whole else "CI selection"
        print(f"array API suite ({scope}, seed {args.seed}, {args.max_examples} examples): "
              f"{len(only_ours)} failures of ours alone, {len(ours & numpy)} shared with "
              "array_api_compat.numpy")
        return 1 if only_ours else 0


if __name__ == "__main__":
    sys.exit(main())
