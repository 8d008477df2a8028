#!/bin/sh
# SPDX-License-Identifier: MIT
# kyu built by CMake (CMakeLists.txt) next to the Makefile's build, so the two cannot drift:
# docs/platforms.md's three commands (cmake -S . -B build-cmake, cmake --build, ctest: the unit tests and the
# pinned state hashes of tools/bench), `cmake --install` against `make install` (the same files,
# links, kyu.pc, CMake package and exported symbols), and a game that brings kyu in with
# add_subdirectory and with FetchContent (tests/cmake-embed, from a local archive: no network).
# Needs the Makefile's build in $BUILD (make install reuses it). KYU_TEST_QUICK shortens the
# unit tests as usual. KYU_CMAKE_CI=1 (CI) builds only the libraries, bench and snapshot_check,
# and checks the pinned hashes instead of running the unit tests: those ran from the same sources
# under gcc, clang's sanitizers and Wine already; here the build system is what is tested. It also
# builds kyu in a game's tree once (FetchContent), not twice.
set -u
BUILD=${BUILD:-build}
CMAKE_BUILD=${CMAKE_BUILD:-build-cmake}
. tests/tools/lib.sh
if ! command -v cmake > /dev/null 2>&1; then
    skipped "cmake" "cmake is not installed (apt-get install -y cmake)"
    finish
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

targets="" what="libraries, tools, samples, tests"
if [ -n "${KYU_CMAKE_CI:-}" ]; then targets="--target kyu_static kyu_shared bench snapshot_check" what="libraries, bench, snapshot_check"; fi
if cmake -S . -B "$CMAKE_BUILD" > "$T/configure.log" 2>&1 && cmake --build "$CMAKE_BUILD" -j2 $targets > "$T/build.log" 2>&1; then
    ok "cmake -S . -B $CMAKE_BUILD && cmake --build $CMAKE_BUILD: $what ($(ls "$CMAKE_BUILD/tools" | tr '\n' ' '))"
else
    no "cmake build" "$(grep -E 'error|Error' "$T/configure.log" "$T/build.log" | head -n 5)"
    finish
fi
if [ -n "${KYU_CMAKE_CI:-}" ]; then
    if ctest --test-dir "$CMAKE_BUILD" -R state_hashes --output-on-failure > "$T/ctest.log" 2>&1; then
        ok "ctest --test-dir $CMAKE_BUILD -R state_hashes: $(grep 'tests passed' "$T/ctest.log")"
    else
        no "ctest" "$(grep -E 'FAIL|Failed' "$T/ctest.log" | head -n 5)"
    fi
elif ctest --test-dir "$CMAKE_BUILD" --output-on-failure > "$T/ctest.log" 2>&1; then
    ok "ctest --test-dir $CMAKE_BUILD: $(grep 'tests passed' "$T/ctest.log")"
else
    no "ctest" "$(grep -E 'FAIL|Failed' "$T/ctest.log" | head -n 5)"
fi

# cmake --install and make install, each into a prefix of its own: the same tree, byte for byte
# except the libraries (built apart) and the prefix written in kyu.pc.
C="$T/cmake-prefix" M="$T/make-prefix"
cmake --install "$CMAKE_BUILD" --prefix "$C" > "$T/install.log" 2>&1
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install BUILD="$BUILD" PREFIX="$M" >> "$T/install.log" 2>&1
(cd "$C" && find . | sort) > "$T/cmake.list"
(cd "$M" && find . | sort) > "$T/make.list"
same=1 why=""
if ! cmp -s "$T/cmake.list" "$T/make.list"; then
    same=0 why="files: $(diff "$T/make.list" "$T/cmake.list" | grep '^[<>]' | head -n 4 | tr '\n' ' ')"
fi
for f in $(cat "$T/make.list"); do
    [ -e "$C/$f" ] || [ -L "$C/$f" ] || continue
    if [ -L "$M/$f" ]; then
        [ "$(readlink "$M/$f")" = "$(readlink "$C/$f")" ] || { same=0 why="$why link $f"; }
    elif [ -f "$M/$f" ]; then
        [ "$(stat -c %a "$M/$f")" = "$(stat -c %a "$C/$f")" ] || { same=0 why="$why mode of $f"; }
        case "$f" in
        *.so* | *.a) ;;
        */kyu.pc) sed "s|$M|PREFIX|" "$M/$f" > "$T/m.pc" && sed "s|$C|PREFIX|" "$C/$f" > "$T/c.pc" &&
            cmp -s "$T/m.pc" "$T/c.pc" || { same=0 why="$why $f"; } ;;
        *) cmp -s "$M/$f" "$C/$f" || { same=0 why="$why $f"; } ;;
        esac
    fi
done
soname() { readelf -d "$1" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p'; }
exports() { nm -D --defined-only "$1" | awk '{print $3}' | sort; }
if [ "$(soname "$M/lib/libkyu.so")" != "$(soname "$C/lib/libkyu.so")" ]; then same=0 why="$why soname"; fi
if [ "$(exports "$M/lib/libkyu.so")" != "$(exports "$C/lib/libkyu.so")" ]; then same=0 why="$why exported symbols"; fi
if [ "$same" = 1 ]; then
    ok "cmake --install gives make install's $(wc -l < "$T/make.list") files and links (kyu.pc, lib/cmake/kyu, soname $(soname "$C/lib/libkyu.so"), $(exports "$C/lib/libkyu.so" | wc -l) exported functions)"
else
    no "cmake --install" "differs from make install:$why"
fi
# The installed package works for a program (tests/cmake-consumer, as tests/tools/install.sh does
# with make's).
if cmake -S tests/cmake-consumer -B "$T/consumer" -DCMAKE_PREFIX_PATH="$C" > "$T/consumer.log" 2>&1 &&
    cmake --build "$T/consumer" >> "$T/consumer.log" 2>&1 && "$T/consumer/consumer" >> "$T/consumer.log" 2>&1; then
    ok "tests/cmake-consumer: find_package(kyu) in cmake --install's prefix ($(tail -n 1 "$T/consumer.log"))"
else
    no "cmake-consumer" "$(tail -n 5 "$T/consumer.log")"
fi

# A game's own CMakeLists: add_subdirectory(kyu), and FetchContent from an archive of this tree.
tar czf "$T/kyu.tar.gz" --transform 's,^,kyu/,' $(git ls-files --cached --others --exclude-standard | while read -r f; do [ -f "$f" ] && echo "$f"; done)
# (CI configures the add_subdirectory game and builds only the FetchContent one, which unpacks the
# archive and adds it as a subdirectory: the same build of kyu, 30 CPU-s each.)
for how in subdirectory fetchcontent; do
    build=1 said="kyu::kyu builds in the game's tree"
    if [ -n "${KYU_CMAKE_CI:-}" ] && [ "$how" = subdirectory ]; then build=0 said="configured"; fi
    if cmake -S tests/cmake-embed -B "$T/$how" -DKYU_EMBED=$how -DKYU_SOURCE="$(pwd)" -DKYU_URL="file://$T/kyu.tar.gz" \
        > "$T/$how.log" 2>&1 && { [ "$build" = 0 ] || { cmake --build "$T/$how" -j2 >> "$T/$how.log" 2>&1 &&
        "$T/$how/consumer" >> "$T/$how.log" 2>&1; }; }; then
        ok "tests/cmake-embed with $how: $said ($(tail -n 1 "$T/$how.log"))"
    else
        no "cmake-embed $how" "$(grep -E 'rror' "$T/$how.log" | head -n 3) $(tail -n 2 "$T/$how.log")"
    fi
done
finish
