#!/bin/sh
# SPDX-License-Identifier: MIT
# `make install` into a scratch DESTDIR: the version is one number everywhere (the installed
# headers' KYU_VERSION_STRING, kyu_version() of the installed libkyu.so, kyu.pc's Version) and the
# library's soname is libkyu.so.MAJOR. Run by `make test` with BUILD, CC and LDSAN set.
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
finish
