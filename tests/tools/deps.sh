#!/bin/sh
# SPDX-License-Identifier: MIT
# The packages of `make test` (issue 35): tools/packages is the one list (CI installs from it, every
# "apt-get install -y ..." a skip line or a make message suggests names packages from it),
# tools/deps.sh installs what is missing when `make test` runs as root (and nothing otherwise, nor
# with KYU_NO_DEPS=1, and goes on when apt-get fails), and the closing summary of tests/run-all.sh
# names each skipped test with why. apt-get, dpkg-query and id are stand-ins here (in a PATH of the
# test's own): nothing is installed. Run by `make test`.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/tools/lib.sh

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

# Every package that a hint names is in the list ("or" joins two choices in cxx.sh's hint; python.sh
# names python3-$mod, a prefix of listed packages).
listed=" $(sh tools/deps.sh packages) "
unlisted=""
for f in tests/tools/*.sh mk/*.mk tools/kyu-plot .ci/run; do
    [ "$f" = tests/tools/deps.sh ] && continue
    for p in $(grep -o 'apt-get install -y [a-z0-9.+ -]*' "$f" | sed 's/^apt-get install -y //'); do
        case "$p" in or | -*) continue ;; *-) p="$p*" ;; esac
        case "$listed" in *" "$p" "*) ;; *) unlisted="$unlisted $f:$p" ;; esac
    done
done
[ -z "$unlisted" ] && ok "every_package_a_hint_names_is_in_tools/packages" ||
    no "every_package_a_hint_names_is_in_tools/packages" "not listed:$unlisted"

# CI installs through tools/deps.sh, with no list of its own that could drift from it.
if grep -q 'sh tools/deps.sh install' .ci/run && ! grep -q 'apt-get install' .ci/run; then
    ok "ci_installs_the_list"
else
    no "ci_installs_the_list" ".ci/run has its own apt-get install line, or does not run tools/deps.sh install"
fi

# Stand-ins: dpkg-query says every package is installed but those in $T/absent; apt-get logs its
# arguments (and fails when $T/offline exists); id -u prints $T/uid.
mkdir -p "$T/bin"
cat > "$T/bin/dpkg-query" <<EOF
#!/bin/sh
shift 2
for p in "\$@"; do grep -qx "\$p" "$T/absent" || echo "installed \$p"; done
EOF
cat > "$T/bin/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >> "$T/apt.log"
[ ! -e "$T/offline" ]
EOF
cat > "$T/bin/id" <<EOF
#!/bin/sh
cat "$T/uid"
EOF
chmod +x "$T/bin/"*
printf 'libcairo2-dev\nemscripten\nclang-format\n' > "$T/absent"
flags=$(sh tools/deps.sh build)

# deps MODE: tools/deps.sh MODE with the stand-ins; stdout in $T/out, stderr in $T/err, exit in rc.
deps() {
    rm -f "$T/apt.log"
    PATH="$T/bin:$PATH" sh tools/deps.sh "$@" > "$T/out" 2> "$T/err"
    rc=$?
}
echo 0 > "$T/uid"
deps test
if [ "$rc" = 0 ] && grep -q '^apt-get update' "$T/apt.log" 2>/dev/null &&
    grep -q '^apt-get install -y -qq libcairo2-dev emscripten$' "$T/apt.log" && [ "$(cat "$T/out")" = "$flags" ]; then
    ok "make_test_as_root_installs_what_the_tests_miss (and not CI's own clang-format)"
else
    no "make_test_as_root_installs_what_the_tests_miss" "exit $rc, apt-get: $(cat "$T/apt.log" 2>/dev/null), stdout '$(cat "$T/out")'"
fi
KYU_NO_DEPS=1 deps test
[ "$rc" = 0 ] && [ ! -e "$T/apt.log" ] && ok "KYU_NO_DEPS_leaves_packages_alone" ||
    no "KYU_NO_DEPS_leaves_packages_alone" "exit $rc, apt-get: $(cat "$T/apt.log" 2>/dev/null)"
touch "$T/offline"
deps test
if [ "$rc" = 0 ] && [ "$(cat "$T/out")" = "$flags" ] && grep -q "could not install libcairo2-dev emscripten" "$T/err"; then
    ok "make_test_goes_on_when_apt_get_fails"
else
    no "make_test_goes_on_when_apt_get_fails" "exit $rc, stderr: $(cat "$T/err")"
fi
rm -f "$T/offline"
echo 1000 > "$T/uid"
deps test
[ "$rc" = 0 ] && [ ! -e "$T/apt.log" ] && [ "$(cat "$T/out")" = "$flags" ] && ok "make_test_without_root_installs_nothing" ||
    no "make_test_without_root_installs_nothing" "exit $rc, apt-get: $(cat "$T/apt.log" 2>/dev/null)"
deps install
if [ "$rc" = 1 ] && [ ! -e "$T/apt.log" ] &&
    grep -q "sudo make deps.*sudo apt-get install -y libcairo2-dev emscripten clang-format" "$T/err"; then
    ok "make_deps_without_root_says_what_to_run"
else
    no "make_deps_without_root_says_what_to_run" "exit $rc, stderr: $(cat "$T/err")"
fi
echo 0 > "$T/uid"
deps install
[ "$rc" = 0 ] && grep -q '^apt-get install -y -qq libcairo2-dev emscripten clang-format$' "$T/apt.log" 2>/dev/null &&
    ok "make_deps_as_root_installs_every_part" || no "make_deps_as_root_installs_every_part" "exit $rc, apt-get: $(cat "$T/apt.log" 2>/dev/null)"
# CI's first install: the named parts alone (render's cairo, not the rest), then nothing when all is in.
deps install build render
[ "$rc" = 0 ] && grep -q '^apt-get install -y -qq libcairo2-dev$' "$T/apt.log" 2>/dev/null &&
    ok "deps_install_of_some_parts_installs_theirs_alone" ||
    no "deps_install_of_some_parts_installs_theirs_alone" "exit $rc, apt-get: $(cat "$T/apt.log" 2>/dev/null)"
deps install build c++
[ "$rc" = 0 ] && [ ! -e "$T/apt.log" ] && grep -q "every package of build c++ is installed" "$T/out" &&
    ok "deps_install_of_parts_already_in_installs_nothing" ||
    no "deps_install_of_parts_already_in_installs_nothing" "exit $rc, apt-get: $(cat "$T/apt.log" 2>/dev/null), stdout: $(cat "$T/out")"

# The closing summary names the skipped tests (with the part and the why) above the closing line.
printf '#!/bin/sh\necho "3 passed, 0 failed"\n' > "$T/units.sh"
chmod +x "$T/units.sh"
printf 'echo "ok   a"\necho "skip kyu-render: not built (apt-get install -y libcairo2-dev)"\necho "1 passed, 0 failed, 1 skipped"\n' > "$T/render.sh"
printf 'echo "SKIPPED [1] test_files.py:15: could not import vtk"\necho "2 passed, 0 failed, 1 skipped"\n' > "$T/python.sh"
sh tests/run-all.sh "$T/units.sh" "$T/render.sh" "$T/python.sh" > "$T/summary" 2>&1
rc=$?
tail -n 4 "$T/summary" > "$T/tail"
if [ "$rc" = 0 ] && [ "$(tail -n 1 "$T/tail")" = "6 passed, 0 failed, 2 skipped" ] &&
    grep -qF "$T/render.sh: skip kyu-render: not built (apt-get install -y libcairo2-dev)" "$T/summary" &&
    grep -qF "$T/python.sh: SKIPPED [1] test_files.py:15: could not import vtk" "$T/summary"; then
    ok "closing_summary_names_each_skipped_test"
else
    no "closing_summary_names_each_skipped_test" "$(tail -n 6 "$T/summary" | tr '\n' '|')"
fi
finish
