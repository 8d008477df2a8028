#!/bin/sh
# SPDX-License-Identifier: MIT
# `make install` into a scratch DESTDIR: the version is one number everywhere (the installed
# headers' KYU_VERSION_STRING, kyu_version() of the installed libkyu.so, kyu.pc's Version), the
# library's soname is libkyu.so.MAJOR, and tests/cmake-consumer builds and runs through the
# installed CMake package (find_package(kyu 0.1), kyu::kyu), which refuses a request for 1.0.
# Run by `make test` with BUILD, CC and LDSAN set.
set -u
BUILD=${BUILD:-build}
CC=${CC:-cc}
LDSAN=${LDSAN:-}
. tests/tools/lib.sh

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# A make of its own (not the parent's job server); DESTDIR, so the system's loader cache is left alone.
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install BUILD="$BUILD" CC="$CC" ${SANITIZE:+SANITIZE=$SANITIZE} \
    DESTDIR="$T" PREFIX=/usr/local > "$T/make.out" 2>&1; then
    ok "make install DESTDIR=... PREFIX=/usr/local"
else
    no "make install" "$(tail -n 5 "$T/make.out")"
    finish
fi
P="$T/usr/local"
export PKG_CONFIG_PATH="$P/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$T"

cat > "$T/version.c" <<'PROGRAM'
#include <stdio.h>
#include <kyu/kyu.h>
int main(void) {
    printf("%s %s %d\n", KYU_VERSION_STRING, kyu_version(), KYU_VERSION_MAJOR);
    return 0;
}
PROGRAM
# The installed headers and shared library, found through kyu.pc.
if "$CC" -std=c11 -Wall -Werror "$T/version.c" $(pkg-config --cflags --libs kyu) $LDSAN -o "$T/version" 2> "$T/err" &&
    LD_LIBRARY_PATH="$P/lib" "$T/version" > "$T/version.out" 2>> "$T/err"; then
    ok "a program builds with the installed kyu.pc and runs with the installed libkyu.so"
else
    no "installed program" "$(head -n 5 "$T/err")"
fi
set -- $(cat "$T/version.out") x x x
header=$1 library=$2 major=$3
pc=$(pkg-config --modversion kyu)
if echo "$header" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$' && [ "$library" = "$header" ] && [ "$pc" = "$header" ]; then
    ok "KYU_VERSION_STRING, kyu_version() and kyu.pc's Version agree ($header)"
else
    no "version" "header $header, kyu_version() $library, kyu.pc $pc"
fi
soname=$(readelf -d "$P/lib/libkyu.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" = "libkyu.so.$major" ] && [ -f "$P/lib/$soname" ]; then
    ok "the installed library's soname is libkyu.so.MAJOR ($soname)"
else
    no "soname" "'$soname' for major $major"
fi

if ! command -v cmake > /dev/null 2>&1; then
    skipped "cmake package" "cmake is not installed (apt-get install -y cmake)"
    finish
fi
unset PKG_CONFIG_SYSROOT_DIR # cglm is the system's, not under the scratch tree
consumer() { # configure, build and run tests/cmake-consumer asking for version $1
    rm -rf "$T/consumer"
    cmake -S tests/cmake-consumer -B "$T/consumer" -DCMAKE_PREFIX_PATH="$P" -DKYU_WANTED="$1" \
        -DCMAKE_C_COMPILER="$CC" -DCMAKE_EXE_LINKER_FLAGS="$LDSAN" > "$T/cmake.out" 2>&1 &&
        cmake --build "$T/consumer" >> "$T/cmake.out" 2>&1 && "$T/consumer/consumer" >> "$T/cmake.out" 2>&1
}
if consumer 0.1 && grep -q "kyu $header (headers $header): the ball rests at y = 0.50" "$T/cmake.out"; then
    ok "tests/cmake-consumer builds with find_package(kyu 0.1) and kyu::kyu, and runs"
else
    no "cmake consumer" "$(tail -n 5 "$T/cmake.out")"
fi
if ! consumer 1.0 && grep -q "kyuConfig.cmake, version: $header" "$T/cmake.out"; then
    ok "find_package(kyu 1.0) refuses this kyu (another major version)"
else
    no "cmake version" "find_package(kyu 1.0) was not refused: $(tail -n 3 "$T/cmake.out")"
fi
finish
