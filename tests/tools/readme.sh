#!/bin/sh
# SPDX-License-Identifier: MIT
# README.md's C example (built by mk/readme.mk from the README's first ```c block, with -Werror)
# runs: a ball dropped from 5 m onto the ground, its height printed every 20 frames, never below
# the ground. Run by `make test` with BUILD set.
set -u
BUILD=${BUILD:-build}
E="$BUILD/readme/example"
. tests/tools/lib.sh
if [ ! -x "$E" ]; then
    no "README's C example" "$E is not built"
    finish
fi
out=$("$E" 2>&1)
rc=$?
lines=$(echo "$out" | grep -c '^t=[0-9.]* y=[0-9.-]*$')
first=$(echo "$out" | sed -n '1s/^t=0.00 y=//p')
low=$(echo "$out" | sed -n 's/^t=[0-9.]* y=//p' | sort -g | head -n 1)
if [ "$rc" -eq 0 ] && [ "$lines" -eq 6 ] && [ "$first" = "5.000" ] && awk "BEGIN { exit !($low > 0.49) }"; then
    ok "README's C example builds with the project's warnings and runs (6 heights from $first m, lowest $low m)"
else
    no "README's C example" "exit $rc, $lines height lines, first '$first', lowest '$low': $(echo "$out" | head -3 | tr '\n' ' ')"
fi
finish
