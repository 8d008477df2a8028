#!/bin/sh
# SPDX-License-Identifier: MIT
# The determinism table: every pinned scene of tests/tools/hashes.sh, run by tools/bench from every
# build kyu is checked on (the lanes below: compilers, build systems, operating systems, processors,
# thread layers, wasm), each for 1, 2, 3 and 8 workers natively and for 1 and 3 under emulation
# (workers_of). Every cell must be the pinned hash; the table is README.md's ("The same answer
# everywhere"), which must equal what this prints.
#   sh tests/tools/determinism.sh [--build] [--write | --pin] [LANE ...]
#     --build  builds each lane's bench first (make, cmake with the toolchains in cmake/toolchains)
#     --write  writes the table into README.md (else its table is checked against it)
#     --pin    after a change to how kyu steps: when every lane and worker count agree on a scene's
#              new hash, writes it into hashes.sh and README.md (re-pinning is this one command:
#              sh tests/tools/determinism.sh --build --pin)
#     --results DIR  keeps each lane's hashes in DIR and reuses those already there (CI runs the
#              emulated lanes early, beside other work, and the whole table at the end; give a
#              fresh DIR for each state of the code)
#     LANE     only these lanes (the table's check then needs them all)
# Lanes: gcc clang cmake nosimd win32 winpthreads arm64 wasm. Windows programs run under Wine
# (a prefix of its own in build-mingw/wine), ARM64 ones under qemu-user, wasm under node.
set -u
. tests/tools/lib.sh
BUILD_FIRST=0 MODE=check RESULTS=""
LANES=""
next_is_results=0
for a in "$@"; do
    if [ "$next_is_results" = 1 ]; then
        RESULTS=$a next_is_results=0
        continue
    fi
    case "$a" in
    --results) next_is_results=1 ;;
    --build) BUILD_FIRST=1 ;;
    --write) MODE=write ;;
    --pin) MODE=pin ;;
    -*)
        echo "determinism.sh: unknown option $a" >&2
        exit 2
        ;;
    *) LANES="$LANES $a" ;;
    esac
done
ALL_LANES="gcc clang cmake nosimd win32 winpthreads arm64 wasm"
[ -n "$LANES" ] || LANES=$ALL_LANES

title() {
    case "$1" in
    gcc) echo "Linux x86-64 gcc" ;;
    clang) echo "Linux x86-64 clang" ;;
    cmake) echo "CMake build (gcc)" ;;
    nosimd) echo "x86-64, no SSE paths" ;;
    win32) echo "Windows (mingw), Win32 threads" ;;
    winpthreads) echo "Windows (mingw), winpthreads" ;;
    arm64) echo "Linux ARM64" ;;
    wasm) echo "wasm (node)" ;;
    esac
}
# The builds' bench programs and what runs them.
bench_of() {
    case "$1" in
    gcc) echo "build/tools/bench" ;;
    clang) echo "build-clang/tools/bench" ;;
    cmake) echo "build-cmake/tools/bench" ;;
    nosimd) echo "build-nosimd/tools/bench" ;;
    win32) echo "build-mingw/tools/bench.exe" ;;
    winpthreads) echo "build-mingw-pthreads/tools/bench.exe" ;;
    arm64) echo "build-arm64/tools/bench" ;;
    wasm) echo "build/wasm/bench/bench.js" ;;
    esac
}
# The worker counts a lane runs: all four where the lane runs natively; under emulation (Wine, qemu,
# node: each run 5-20 times slower) one worker, the lane's arithmetic, and 3, an uneven split on
# its threads layer. How the count splits the work is the same code on every lane, which the native
# lanes check at all four (until 2026-11-30 the emulated lanes ran all four too: 90 s more CPU).
workers_of() {
    case "$1" in
    win32 | winpthreads | arm64 | wasm) echo "1 3" ;;
    *) echo "1 2 3 8" ;;
    esac
}
runner_of() {
    case "$1" in
    win32 | winpthreads) echo "wine" ;;
    arm64) echo "qemu-aarch64" ;;
    wasm) echo "node" ;;
    *) echo "" ;;
    esac
}
# Without SSE: the compiler's SSE macros undefined, so the engine's broadphase and cglm take their
# plain C paths (x86-64 still computes in SSE registers: IEEE single and double precision).
NOSIMD_CFLAGS="-U__SSE__ -U__SSE2__ -U__SSE3__ -U__SSSE3__ -U__SSE4_1__ -U__SSE4_2__ -U__AVX__ -U__AVX2__"
build_lane() {
    case "$1" in
    gcc) make -s -j2 build/tools/bench ;;
    clang) make -s -j2 CC=clang BUILD=build-clang build-clang/tools/bench ;;
    cmake) cmake -S . -B build-cmake > /dev/null && cmake --build build-cmake -j2 --target bench ;;
    nosimd) make -s -j2 BUILD=build-nosimd CFLAGS="$NOSIMD_CFLAGS" build-nosimd/tools/bench ;;
    win32 | winpthreads | arm64)
        case "$1" in
        win32) dir=build-mingw tc=mingw-w64 extra="" ;;
        winpthreads) dir=build-mingw-pthreads tc=mingw-w64 extra="-DKYU_USE_PTHREADS=ON" ;;
        arm64) dir=build-arm64 tc=aarch64-linux-gnu extra="" ;;
        esac
        cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE="cmake/toolchains/$tc.cmake" $extra > /dev/null &&
            cmake --build "$dir" -j2 --target bench
        ;;
    wasm) make -s -j2 wasm-bench ;;
    esac
}

T=$(mktemp -d)
R=${RESULTS:-$T}
mkdir -p "$R"
WINE_STARTED=0
cleanup() {
    if [ "$WINE_STARTED" = 1 ]; then WINEPREFIX=$WINEPREFIX wineserver -k > /dev/null 2>&1; fi
    rm -rf "$T"
}
trap cleanup EXIT

# Wine: a prefix of its own inside the build tree, without the Mono and Gecko installers' dialogs,
# and one wineserver for the whole run (a program's start then costs a tenth of a second).
export WINEPREFIX="${WINEPREFIX:-$(pwd)/build-mingw/wine}" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
start_wine() {
    [ "$WINE_STARTED" = 1 ] && return 0
    mkdir -p "$WINEPREFIX"
    # Its output goes to a file: Wine's services keep what they inherit open after the program ends.
    (wineserver -p > "$T/wineserver.log" 2>&1 < /dev/null &)
    wine cmd /c exit > "$T/wineboot.log" 2>&1 < /dev/null
    WINE_STARTED=1
}

# The pinned scenes: hashes.sh's list, "arguments with WORKERS|hash" a line.
sed -n "/^done <<'SCENES'$/,/^SCENES$/p" tests/tools/hashes.sh | sed '1d;$d' > "$T/scenes"
if [ ! -s "$T/scenes" ]; then
    no "pinned scenes" "none found in tests/tools/hashes.sh"
    finish
fi

for lane in $LANES; do
    if [ -z "$(title "$lane")" ]; then
        no "lane $lane" "no such lane (lanes: $ALL_LANES)"
        finish
    fi
    if [ "$BUILD_FIRST" = 1 ] && ! build_lane "$lane" > "$T/build-$lane.log" 2>&1; then
        no "build $lane" "$(tail -n 5 "$T/build-$lane.log")"
        continue
    fi
    case "$lane" in win32 | winpthreads) [ -f "$(bench_of "$lane")" ] && [ ! -s "$R/$lane" ] && start_wine ;; esac
done

# Each lane runs its scenes on its own (side by side: a lane is one process at a time).
run_lane() { # lane -> $R/$lane: "scene-index workers hash" lines
    lane=$1 bench=$(bench_of "$1") runner=$(runner_of "$1")
    : > "$T/$lane.part"
    i=0
    while IFS='|' read -r args expected; do
        i=$((i + 1))
        for workers in $(workers_of "$lane"); do
            for try in 1 2; do
                $runner "$bench" $(echo "$args" | sed "s/WORKERS/$workers/") > "$T/$lane.run" 2>&1 < /dev/null
                h=$(sed -n 's/.*state_hash=\(0x[0-9a-f]*\).*/\1/p' "$T/$lane.run" | tail -n 1)
                [ -n "$h" ] && break
                # A run that printed no hash (once under Wine in CI, 2026-11-30: the same program
                # gave the pinned hash in 15 runs after): what it printed, and one more run. A
                # wrong hash is never run again.
                echo "determinism.sh: $lane, bench $args, $workers workers, run $try printed no hash:" \
                    "$(tail -n 3 "$T/$lane.run" | tr '\n' ' ' | cut -c1-300)" >&2
            done
            echo "$i $workers ${h:-none}" >> "$T/$lane.part"
        done
    done < "$T/scenes"
    mv "$T/$lane.part" "$R/$lane"
}
pids=""
for lane in $LANES; do
    [ -s "$R/$lane" ] && [ "$(wc -l < "$R/$lane")" = $(($(wc -l < "$T/scenes") * $(echo $(workers_of "$lane") | wc -w))) ] &&
        continue # kept
    if [ ! -f "$(bench_of "$lane")" ]; then
        no "lane $lane" "$(bench_of "$lane") is not built (--build builds it)"
        continue
    fi
    run_lane "$lane" &
    pids="$pids $!"
    sleep 0.2 # the lanes' first programs not all in the same instant
done
for p in $pids; do wait "$p"; done

# The table: a row per scene, a column per lane; a cell is the hash its worker counts gave, or each
# count's hash when they differ.
{
    printf '| scene (tools/bench) | pinned |'
    for lane in $LANES; do printf ' %s |' "$(title "$lane")"; done
    printf '\n|---|---|'
    for lane in $LANES; do printf -- '---|'; done
    printf '\n'
    i=0
    while IFS='|' read -r args expected; do
        i=$((i + 1))
        printf '| `%s` | `%s` |' "$(echo "$args" | sed 's/ WORKERS//')" "$expected"
        for lane in $LANES; do
            hs=$(sed -n "s/^$i \([0-9]*\) \(.*\)/\1:\2/p" "$R/$lane" 2>/dev/null)
            distinct=$(echo "$hs" | sed 's/^[0-9]*://' | sort -u)
            if [ -n "$hs" ] && [ "$(echo "$distinct" | wc -l)" = 1 ]; then
                printf ' `%s` |' "$distinct"
            else
                printf ' %s |' "$(echo ${hs:-none})"
            fi
        done
        printf '\n'
    done < "$T/scenes"
} > "$T/table"
cat "$T/table"

# Every cell must be the pinned hash (or, for --pin, every cell of a row one hash).
i=0
while IFS='|' read -r args expected; do
    i=$((i + 1))
    got=$(for lane in $LANES; do sed -n "s/^$i [0-9]* //p" "$R/$lane" 2>/dev/null; done | sort -u)
    cells=$(for lane in $LANES; do sed -n "s/^$i [0-9]* //p" "$R/$lane" 2>/dev/null; done | wc -l)
    want=$(for lane in $LANES; do workers_of "$lane"; done | wc -w)
    if [ "$cells" = "$want" ] && [ "$got" = "$expected" ]; then
        ok "bench $args: $expected in every lane ($(echo $LANES | wc -w)) for each of its worker counts ($want runs)"
    elif [ "$MODE" = pin ] && [ "$cells" = "$want" ] && [ "$(echo "$got" | wc -l)" = 1 ] && [ "$got" != none ]; then
        sed -i "s/^$(echo "$args|$expected" | sed 's/[.[\*^$/]/\\&/g')\$/$args|$got/" tests/tools/hashes.sh
        sed -i "s/$expected/$got/g" "$T/table"
        ok "bench $args: pinned anew, $expected -> $got (every lane and worker count agree)"
    else
        no "bench $args" "pinned $expected; the lanes gave $(echo $got) ($cells of $want runs)"
    fi
done < "$T/scenes"

# README.md's table is this table (for every lane).
DOC=README.md
begin='<!-- determinism table: written by tests/tools/determinism.sh --write -->'
end='<!-- end of the determinism table -->'
if [ "$LANES" != "$ALL_LANES" ] && [ "$(echo $LANES)" != "$ALL_LANES" ]; then
    skipped "$DOC table" "only some lanes ran"
elif [ "$MODE" = check ]; then
    awk -v b="$begin" -v e="$end" '$0 == e { on = 0 } on { print } $0 == b { on = 1 }' "$DOC" > "$T/doc"
    if cmp -s "$T/doc" "$T/table"; then
        ok "$DOC's determinism table is this one"
    else
        no "$DOC table" "its table differs from this run's (sh tests/tools/determinism.sh --write): $(diff "$T/doc" "$T/table" | head -n 3 | cut -c1-200)"
    fi
else
    awk -v b="$begin" -v e="$end" -v t="$T/table" '
        $0 == b { print; while ((getline l < t) > 0) print l; skip = 1; next }
        $0 == e { skip = 0 }
        !skip { print }' "$DOC" > "$T/doc.md"
    if grep -qxF "$begin" "$DOC" && grep -qxF "$end" "$DOC"; then
        cp "$T/doc.md" "$DOC"
        ok "$DOC: the determinism table written"
    else
        no "$DOC table" "$DOC has no table markers ($begin ... $end)"
    fi
fi
finish
