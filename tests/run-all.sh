#!/bin/sh
# SPDX-License-Identifier: MIT
# `make test`: runs the unit tests (none when the first argument is -), then each tool test script
# given (BUILD is exported to them).
# Every part ends with a line "N passed, N failed[, N skipped]"; this adds them up into the closing
# line and exits non-zero when anything failed (or a part died before its closing line). Above it,
# each skipped test is named with its part and why ("skip NAME: WHY" lines of the tool tests, which
# say what to install; pytest's "SKIPPED" lines), so a run that skipped says what would run it.
set -u
units="$1"
shift
passed=0 failed=0 skipped=0
skips="$(mktemp)"
trap 'rm -f "$skips"' EXIT
run_part() {
    out="$(mktemp)" start=$(date +%s)
    "$@" 2>&1 | tee "$out"
    echo "-- $(($(date +%s) - start)) s"
    grep -E '^(skip |SKIPPED )' "$out" | sed "s|^|  ${*##* }: |" >> "$skips"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
    if [ -z "$line" ]; then
        echo "FAIL $*: ended without a 'N passed, N failed' line"
        failed=$((failed + 1))
    else
        p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
        f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
        s=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
        passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
    fi
    rm -f "$out"
}
[ "$units" = - ] || run_part "$units" # -: the tool tests alone (make test-tools)
for script in "$@"; do
    echo "== $script"
    run_part sh "$script"
done
echo "== all parts"
if [ -s "$skips" ]; then
    echo "skipped tests (part: name: why):"
    cat "$skips"
    if [ "$(id -u)" != 0 ]; then
        echo "  (as root, \`make test\` installs what they need first; \`sudo make deps\` does only that)"
    fi
fi
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
