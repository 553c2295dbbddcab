#!/usr/bin/env bash
# valgrind memcheck of tests/leaks/exercise.py (every public function, error
# paths included).  Fails if any memory error or any definitely lost block
# has an xsumufunc frame.  The rest of the report is printed and is the
# interpreter's and NumPy's own (docs/hardening.md): CPython's import-time
# allocations and uninitialised-value uses, glibc's dynamic loader.
# Usage: bash tests/leaks/valgrind.sh [python]   (default: python3)
set -euo pipefail
cd "$(dirname "$0")/../.."
python="${1:-python3}"
log="$(mktemp)"
PYTHONMALLOC=malloc valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite \
    --errors-for-leak-kinds=definite --num-callers=30 --log-file="$log" \
    "$python" -P tests/leaks/exercise.py
grep -E "definitely lost:|indirectly lost:|ERROR SUMMARY" "$log"
# One record per blank-line-separated block; ours if a frame names xsumufunc.
ours="$(awk '/^==[0-9]+== (Invalid|Use of|Conditional|Mismatched|Syscall|Source and)|definitely lost in loss record/ {p=1; buf=""}
             p {buf = buf "\n" $0}
             /^==[0-9]+== $/ {if (p && buf ~ /xsumufunc|xs_[a-z_]+ \(/) print buf; p=0}' "$log")"
if [ -n "$ours" ]; then
    echo "valgrind: reports with an xsumufunc frame:$ours"
    exit 1
fi
echo "valgrind: no memory error and no definitely lost block with an xsumufunc frame"
