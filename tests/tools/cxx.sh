#!/bin/sh
# SPDX-License-Identifier: MIT
# kyu from C++: the README's C program (samples/readme.c, the README's block verbatim) builds as
# C++17 without a warning (-Wall -Wextra -Wpedantic -Werror) and prints what the C build prints; a
# C++ program (tests/cxx/use.cpp) sees every public struct with the C library's size and alignment
# and calls kyu both ways (a support callback). Run by `make test` with BUILD, CC and LDSAN set;
# links $BUILD/libkyu.a.
set -u
BUILD=${BUILD:-build}
CC=${CC:-cc}
LDSAN=${LDSAN:-}
. tests/tools/lib.sh

# The C++ compiler of the C compiler's family links the library (in sanitizer builds its objects
# need that compiler's runtime); the other family, when installed, compiles the same sources.
case "$CC" in
    *clang*) CXX=clang++ OTHER=g++ ;;
    *) CXX=g++ OTHER=clang++ ;;
esac
if ! command -v "$CXX" > /dev/null 2>&1; then
    skipped "c++" "$CXX is not installed (apt-get install -y g++ or clang)"
    finish
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CXXFLAGS="-std=c++17 -Wall -Wextra -Wpedantic -Werror -Iinclude -Itests/cxx $(sh tools/deps.sh)"
LIBS="$BUILD/libkyu.a -lm -lpthread $LDSAN"

# The README's C block (its first, as mk/readme.mk cuts it) is the file (after the file's SPDX line).
awk '/^```c$/ {g = 1; next} g && /^```$/ {exit} g' README.md > "$T/block.c"
if [ -s "$T/block.c" ] && tail -n +2 samples/readme.c | cmp -s - "$T/block.c"; then
    ok "the README's C program is samples/readme.c"
else
    no "readme block" "README.md's first C block differs from samples/readme.c (after its SPDX line)"
fi

# As C, as the README builds it, and as C++: the same lines, and the ball bounces (it starts at
# y = 5 and is lower 20 frames later).
"$CC" -std=c11 -Wall -Wextra -Wpedantic -Werror -Iinclude $(sh tools/deps.sh) samples/readme.c \
    $LIBS -o "$T/readme_c" 2> "$T/err" && "$T/readme_c" > "$T/c.out" 2>> "$T/err"
if "$CXX" $CXXFLAGS -x c++ samples/readme.c -x none $LIBS -o "$T/readme_cxx" 2>> "$T/err" &&
    "$T/readme_cxx" > "$T/cxx.out" 2>> "$T/err"; then
    ok "samples/readme.c builds as C++17 with $CXX -Wall -Wextra -Wpedantic -Werror and runs"
else
    no "readme as c++" "$(head -n 5 "$T/err")"
fi
if [ "$(wc -l < "$T/c.out")" -eq 6 ] && cmp -s "$T/c.out" "$T/cxx.out" &&
    [ "$(sed -n '1s/.*y=//p' "$T/c.out")" = "5.000" ] &&
    awk -F'y=' 'NR == 2 && $2 + 0 < 5 {found = 1} END {exit !found}' "$T/c.out"; then
    ok "the C and C++ builds print the same 6 lines, the ball falling from y = 5"
else
    no "readme output" "C: $(tr '\n' ' ' < "$T/c.out") C++: $(tr '\n' ' ' < "${T}/cxx.out" 2>/dev/null)"
fi

# Layout and calls both ways.
"$CC" -std=c11 -Iinclude -Itests/cxx $(sh tools/deps.sh) tests/cxx/layout.c -o "$T/layout" 2> "$T/err" &&
    "$T/layout" > "$T/layout_c.out"
if "$CXX" $CXXFLAGS tests/cxx/use.cpp $LIBS -o "$T/use" 2>> "$T/err" && "$T/use" > "$T/use.out" 2>> "$T/err"; then
    ok "tests/cxx/use.cpp (including <kyu/kyu.h>) builds with $CXX -Wpedantic -Werror and runs"
else
    no "use.cpp" "$(head -n 5 "$T/err")"
fi
structs=$(wc -l < "$T/layout_c.out")
if [ "$structs" -ge 30 ] && head -n "$structs" "$T/use.out" | cmp -s - "$T/layout_c.out"; then
    ok "C++ sees the $structs public structs with C's size and alignment"
else
    no "layout" "$(head -n "$structs" "$T/use.out" | diff - "$T/layout_c.out" | head -n 4 | tr '\n' ' ')"
fi
if [ "$(grep -c '^rests at y=0.50$' "$T/use.out")" -eq 3 ] && grep -q '^convex distance 1.500$' "$T/use.out"; then
    ok "three balls dropped from C++ rest on the ground; a C++ support callback gives the distance 1.5"
else
    no "use.cpp results" "$(tail -n 4 "$T/use.out" | tr '\n' ' ')"
fi

# The other compiler family and cglm's own choice: compile only.
if command -v "$OTHER" > /dev/null 2>&1; then
    if "$OTHER" $CXXFLAGS -fsyntax-only -x c++ samples/readme.c 2> "$T/err" &&
        "$OTHER" $CXXFLAGS -fsyntax-only tests/cxx/use.cpp 2>> "$T/err"; then
        ok "$OTHER compiles both without a warning too"
    else
        no "$OTHER" "$(head -n 5 "$T/err")"
    fi
fi
printf '#include <kyu/kyu.h>\nint main() { kyu_world_def d = kyu_world_def_default(); return d.gravity.raw[1] < 0 ? 0 : 1; }\n' > "$T/raw.cpp"
if "$CXX" $CXXFLAGS -DCGLM_USE_ANONYMOUS_STRUCT=0 -fsyntax-only "$T/raw.cpp" 2> "$T/err"; then
    ok "the headers compile with cglm's anonymous structs off (CGLM_USE_ANONYMOUS_STRUCT=0)"
else
    no "anonymous structs off" "$(head -n 5 "$T/err")"
fi
finish
