# SPDX-License-Identifier: MIT
# Sourced by the tool test scripts: one line per check ("ok   name", "FAIL name: why",
# "skip name: why") and the closing line "N passed, N failed[, N skipped]" that `make test` adds up.
pass=0 fail=0 skip=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
no() { echo "FAIL $1: $2"; fail=$((fail + 1)); }
skipped() { echo "skip $1: $2"; skip=$((skip + 1)); }
finish() {
    if [ "$skip" -gt 0 ]; then
        echo "$pass passed, $fail failed, $skip skipped"
    else
        echo "$pass passed, $fail failed"
    fi
    [ "$fail" -eq 0 ]
    exit $?
}
