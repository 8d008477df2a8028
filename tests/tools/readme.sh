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
# README is the front door: every link from it and from docs/ into the repository leads to a file,
# and its benchmark table sits between the markers `make bench`'s numbers replace.
bad=""
for md in README.md docs/*.md; do
    dir=$(dirname "$md")
    for target in $(grep -o '](\([^)#:]*\))' "$md" | sed 's/^](\(.*\))$/\1/'); do
        [ -e "$dir/$target" ] || bad="$bad $md:$target"
    done
done
if [ -z "$bad" ]; then
    ok "every relative link in README.md and docs/*.md leads to a file"
else
    no "links" "broken:$bad"
fi
if [ "$(sed -n '/^<!-- bench-table -->$/,/^<!-- \/bench-table -->$/p' README.md | grep -c '^| PILE awake')" -ge 4 ]; then
    ok "README's benchmark table is between its <!-- bench-table --> markers"
else
    no "bench-table markers" "README.md has no table of PILE rows between <!-- bench-table --> and <!-- /bench-table -->"
fi
finish
