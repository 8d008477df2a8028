#!/bin/sh
# SPDX-License-Identifier: MIT
# Snapshots between machines: tests/tools/snapshot_check, built for Linux x86-64, Linux ARM64 (run
# under qemu-user) and Windows x86-64 (mingw-w64, run under Wine), saves the same world on each:
# the three files must be the same bytes (the format is little-endian everywhere, engine/snapshot.c).
# Then each loads the file another wrote, around the ring x86-64 -> ARM64 -> Windows -> x86-64: the
# loaded world has the writer's state hash, steps to the writer's later hash, and saves the bytes
# it loaded. Needs the CMake builds build-cmake, build-arm64 and build-mingw (target
# snapshot_check; tests/tools/determinism.sh --build makes the other lanes' trees the same way).
set -u
. tests/tools/lib.sh
export WINEPREFIX="${WINEPREFIX:-$(pwd)/build-mingw/wine}" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

run() { # lane, arguments...: snapshot_check of that lane
    lane=$1
    shift
    case "$lane" in
    x86-64) build-cmake/tests/snapshot_check "$@" ;;
    arm64) qemu-aarch64 build-arm64/tests/snapshot_check "$@" ;;
    windows) wine build-mingw/tests/snapshot_check.exe "$@" ;;
    esac
}
LANES="x86-64 arm64 windows"
for f in build-cmake/tests/snapshot_check build-arm64/tests/snapshot_check build-mingw/tests/snapshot_check.exe; do
    if [ ! -f "$f" ]; then
        no "snapshot_check" "$f is not built"
        finish
    fi
done

for lane in $LANES; do
    if run "$lane" save "$T/$lane.bin" > "$T/$lane.save" 2>&1 < /dev/null; then
        ok "$lane saves ($(tr '\n' ' ' < "$T/$lane.save"))"
    else
        no "$lane save" "$(head -n 3 "$T/$lane.save")"
    fi
done
if cmp -s "$T/x86-64.bin" "$T/arm64.bin" && cmp -s "$T/x86-64.bin" "$T/windows.bin"; then
    ok "the three snapshots are the same $(wc -c < "$T/x86-64.bin") bytes"
else
    no "snapshot bytes" "x86-64 / arm64: $(cmp "$T/x86-64.bin" "$T/arm64.bin" 2>&1 | head -n 1); x86-64 / windows: $(cmp "$T/x86-64.bin" "$T/windows.bin" 2>&1 | head -n 1)"
fi

# writer reader pairs around the ring
for pair in "x86-64 arm64" "arm64 windows" "windows x86-64"; do
    set -- $pair
    writer=$1 reader=$2
    cp "$T/$writer.bin" "$T/from-$writer.bin"
    if ! run "$reader" load "$T/from-$writer.bin" > "$T/$reader.load" 2>&1 < /dev/null; then
        no "$reader loads $writer's" "$(head -n 3 "$T/$reader.load")"
        continue
    fi
    saved=$(sed -n 's/^saved //p' "$T/$writer.save" | tr -d '\r')
    loaded=$(sed -n 's/^loaded //p' "$T/$reader.load" | tr -d '\r')
    later_w=$(sed -n 's/^later //p' "$T/$writer.save" | tr -d '\r')
    later_r=$(sed -n 's/^later //p' "$T/$reader.load" | tr -d '\r')
    if [ -n "$saved" ] && [ "$saved" = "$loaded" ] && [ "$later_w" = "$later_r" ] &&
        cmp -s "$T/from-$writer.bin" "$T/from-$writer.bin.again"; then
        ok "$reader loads $writer's snapshot: state $loaded, later $later_r as on $writer, saved again byte for byte"
    else
        no "$reader loads $writer's" "saved $saved loaded $loaded, later $later_w / $later_r, resave $(cmp "$T/from-$writer.bin" "$T/from-$writer.bin.again" 2>&1 | head -n 1)"
    fi
done
finish
