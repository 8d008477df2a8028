#!/bin/sh
# SPDX-License-Identifier: MIT
# The library is ISO C11 with nothing a compiler other than gcc and clang (MSVC) could refuse: every
# engine file compiles with clang -std=c11 -pedantic-errors -Wvla while clang pretends to be no GNU
# compiler and no SSE processor (__GNUC__, __clang__, __SSE__... undefined), so every extension
# (__builtin_*, __attribute__, statement expressions, typeof, the SSE paths) must sit behind a macro
# with a plain fallback (engine/common.h: KYU_PREFETCH, KYU_PRINTF_LIKE). -Wno-literal-range: glibc's
# INFINITY without GNU C is a literal too large for float, which is what it means.
set -u
. tests/tools/lib.sh
if ! command -v clang > /dev/null 2>&1; then
    skipped "iso" "clang is not installed"
    finish
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bad=0 n=0
for f in engine/*.c engine/geometry/*.c; do
    n=$((n + 1))
    if ! clang -std=c11 -pedantic-errors -Wall -Wextra -Wvla -Werror -Wno-literal-range -U__GNUC__ \
        -U__GNUC_MINOR__ -U__GNUC_PATCHLEVEL__ -U__clang__ -U__SSE__ -U__SSE2__ -U__SSE3__ -U__MMX__ \
        -DKYU_BUILD -Iinclude $(pkg-config --cflags cglm 2> /dev/null) -fsyntax-only "$f" > "$T/out" 2>&1; then
        no "$f" "$(grep -m 2 'error' "$T/out")"
        bad=1
    fi
done
[ "$bad" = 1 ] || ok "$n engine files are ISO C11 without GNU C or SSE (clang -std=c11 -pedantic-errors -Wvla)"
finish
