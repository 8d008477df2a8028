#!/bin/sh
# SPDX-License-Identifier: MIT
# The Python package's tests (issue 23): pytest on python/tests with PYTHONPATH=$BUILD/python, under
# Debian's interpreter. They check the package against the C engine (kyu-sim's and bench's state
# hashes), read its VTK and XYZ files back, and run the examples and the README's Python example.
# Ends with "N passed, N failed[, N skipped]" (python/tests/conftest.py prints it).
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
PY=/usr/bin/python3
. tests/tools/lib.sh

if [ -n "${SANITIZE:-}" ]; then
    skipped "python" "not in sanitizer builds (the extension would need the sanitizer's runtime preloaded)"
    finish
fi
for mod in cffi numpy pytest; do
    if ! "$PY" -c "import $mod" 2>/dev/null; then
        skipped "python" "Debian's python3-$mod is not installed (apt-get install -y python3-$mod)"
        finish
    fi
done
if [ ! -f "$BUILD/python/kyu/__init__.py" ]; then
    # make puts it there whenever cffi, numpy, Python.h and libcjson are found.
    skipped "python" "$BUILD/python/kyu was not built: it needs Python.h and libcjson (apt-get install -y python3-dev libcjson-dev)"
    finish
fi
export BUILD
# -p no:cacheprovider: no .pytest_cache in the source tree. MPLBACKEND: no display needed.
PYTHONPATH="$BUILD/python" MPLBACKEND=Agg PYTHONDONTWRITEBYTECODE=1 \
    "$PY" -m pytest -q -p no:cacheprovider -r fEs python/tests
