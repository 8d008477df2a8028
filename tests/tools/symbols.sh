#!/bin/sh
# SPDX-License-Identifier: MIT
# libkyu.so exports exactly kyu's public API: the functions include/kyu/*.h declares with KYU_API,
# no more (an engine-internal function would become ABI) and no fewer (a public function the
# library forgot to export). Run by `make test` with BUILD set.
set -u
BUILD=${BUILD:-build}
SO="$BUILD/libkyu.so"
. tests/tools/lib.sh

if [ ! -f "$SO" ]; then
    no "symbols" "$SO is missing (make lib)"
    finish
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# A declaration starts at the beginning of a line with KYU_API; the name is the identifier before
# the first parenthesis.
grep -h '^KYU_API ' include/kyu/*.h | sed -E 's/^([^(]*[^A-Za-z0-9_(])([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\(.*/\2/' |
    sort > "$T/declared"
# Every defined dynamic symbol, functions or not, except what the sanitizers' instrumentation adds.
nm -D --defined-only "$SO" | awk '{print $3}' | grep -v '^__\(asan\|ubsan\|tsan\|sanitizer\)' |
    sort > "$T/exported"

declared=$(wc -l < "$T/declared")
exported=$(wc -l < "$T/exported")
if [ "$declared" -ge 100 ] && ! grep -qv '^kyu_[a-z0-9_]*$' "$T/declared"; then
    ok "include/kyu/*.h declares $declared functions with KYU_API, each named kyu_*"
else
    no "declared" "$declared names, or one that is not kyu_*: $(grep -v '^kyu_[a-z0-9_]*$' "$T/declared" | head -n 3)"
fi
if [ -z "$(uniq -d "$T/declared")" ]; then
    ok "no function is declared with KYU_API twice"
else
    no "declared twice" "$(uniq -d "$T/declared" | tr '\n' ' ')"
fi
extra=$(comm -13 "$T/declared" "$T/exported" | tr '\n' ' ')
missing=$(comm -23 "$T/declared" "$T/exported" | tr '\n' ' ')
if [ -z "$extra" ]; then
    ok "libkyu.so exports nothing that is not declared with KYU_API ($exported symbols)"
else
    no "exported but not public" "$extra"
fi
if [ -z "$missing" ]; then
    ok "libkyu.so exports every function declared with KYU_API"
else
    no "public but not exported" "$missing"
fi
if [ -z "$(nm -D --defined-only "$SO" | awk '$2 != "T" {print}' | grep -v ' __\(asan\|ubsan\|tsan\|sanitizer\)')" ]; then
    ok "every exported symbol is a function (no data)"
else
    no "data symbols" "$(nm -D --defined-only "$SO" | awk '$2 != "T"' | head -n 5 | tr '\n' ' ')"
fi
finish
