#!/bin/sh
# SPDX-License-Identifier: MIT
# The headless samples that check themselves run and pass: samples/games.c (a moving platform, a
# flat floor, sleep, a player pushed by a force: each number against the physics, docs/tuning.md)
# and samples/billiards.c (the cue ball slides, then rolls at 5/7 of its speed), and, outside the
# sanitizer builds (8 s here, minutes there), samples/chute.c (a periodic rough chute: the layer
# stops at 18 degrees and flows steadily at 24). Run by `make test` with BUILD set.
set -u
BUILD=${BUILD:-build}
. tests/tools/lib.sh
list="games billiards"
[ -z "${LDSAN:-}" ] && list="$list chute"
for s in $list; do
    exe="$BUILD/samples/$s"
    if [ ! -x "$exe" ]; then
        no "samples/$s.c" "$exe is not built"
        continue
    fi
    out=$("$exe" 2>&1)
    rc=$?
    if [ "$rc" -eq 0 ]; then
        ok "samples/$s.c runs and its numbers are the physics' ($(echo "$out" | wc -l) lines)"
    else
        no "samples/$s.c" "exit $rc: $(echo "$out" | grep -m 3 -E 'NOT AS EXPECTED|ball|games:|chute:' | tr '\n' ' ')"
    fi
    if [ "$s" = games ]; then
        # The claims docs/tuning.md quotes from this sample.
        echo "$out" | grep -q 'default (it spins) *rolls at 0.286 m/s' &&
            echo "$out" | grep -q 'fixed_rotation *rides at 1.000 m/s' &&
            echo "$out" | grep -q 'row A 0 of 5 asleep, row B 5 of 5 asleep' &&
            echo "$out" | grep -q 'met the ball 56.2 mm out at 1.125 m/s and threw it at 1.707 m/s' &&
            ok "samples/games.c: the spinning ball rolls off at 2/7 u, fixed rotation rides, one wakeful ball keeps its row awake, the flipper throws at 1.707 m/s" ||
            no "samples/games.c output" "$(echo "$out" | head -n 4 | tr '\n' ' ')"
    fi
done
finish
