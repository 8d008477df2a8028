#!/bin/sh
# SPDX-License-Identifier: MIT
# Determinism pinned: the benchmark scenes (docs/benchmarks.md), run short, end in the state hashes
# written below, for 1, 2, 3 and 8 workers. The same hashes come from gcc and clang (CI runs this
# test with both builds' bench) and from any machine: kyu's arithmetic is IEEE single and double
# precision without fused multiply-adds (-ffp-contract=off) and without libm's own roundings.
# The broadphase's cell must not change the answer either: each scene is run again at 1 worker with
# cells of 0.9, 1.7 and 3.1 m (kyu chooses 1.1 m for these 0.5 m spheres) and must end in the same
# hash. A commit that changes how kyu steps changes a hash here on purpose: it then writes the new value
# and says in its message which hash changed and why. tests/tools/determinism.sh runs this list in
# every lane (Windows, ARM64, wasm, ...) for README's table: `sh tests/tools/determinism.sh --build
# --pin` writes the new hashes here and there at once, when every lane agrees. Run by `make test`
# with BUILD set.
set -u
BUILD=${BUILD:-build}
BENCH=${BENCH:-$BUILD/tools/bench}
. tests/tools/lib.sh

if [ ! -x "$BENCH" ]; then
    no "hashes" "$BENCH is missing (make tools/bench)"
    finish
fi

# scene arguments (WORKERS stands for the worker count) | expected state hash
while IFS='|' read -r args expected; do
    [ -n "$args" ] || continue
    got=""
    for workers in 1 2 3 8; do
        line=$("$BENCH" $(echo "$args" | sed "s/WORKERS/$workers/") 2>&1 | tail -1)
        h=$(echo "$line" | sed -n 's/.*state_hash=\(0x[0-9a-f]*\).*/\1/p')
        got="$got $workers:${h:-none}"
    done
    for cell in 0.9 1.7 3.1; do
        line=$("$BENCH" $(echo "$args" | sed "s/WORKERS/1/") --cell $cell 2>&1 | tail -1)
        h=$(echo "$line" | sed -n 's/.*state_hash=\(0x[0-9a-f]*\).*/\1/p')
        got="$got cell$cell:${h:-none}"
    done
    if [ "$(echo "$got" | tr ' ' '\n' | sed -n 's/^[^:]*://p' | sort -u)" = "$expected" ]; then
        ok "bench $args: $expected for 1, 2, 3 and 8 workers and cells of 0.9, 1.7 and 3.1 m"
    else
        no "bench $args" "expected $expected for every worker count and cell, got$got"
    fi
done <<'SCENES'
pile 1000 WORKERS --steps 150|0x9092d796b29e8056
pile 1000 WORKERS --steps 150 --fixed-rotation|0x05ddf28a093a8651
pile 1000 WORKERS --steps 150 --no-sleep --fixed-rotation|0x645f8149a90c5c24
gas 1000 WORKERS --steps 150|0x7245c1e738d1c2a0
gas 1000 WORKERS --steps 150 --periodic|0xccf003795c1151f1
pile 1000 WORKERS --steps 150 --periodic|0x25f0a47a8904e9f4
bullets 1000 WORKERS|0xfe183d3196c2c59d
SCENES
finish
