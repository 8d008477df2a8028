#!/bin/sh
# SPDX-License-Identifier: MIT
# kyu's Debian packages, listed by part in tools/packages.
#   deps.sh [build]      prints cglm's compiler flags (the Makefile's one question). When cglm is
#                        missing: installs it as root on Debian, or says in one line what to install
#                        and fails.
#   deps.sh test         the same, after installing, as root on Debian, every package a tool test
#                        needs that is missing (`make test` asks this; KYU_NO_DEPS=1 leaves them
#                        alone). Without root, or when apt-get fails (no network), it installs
#                        nothing and goes on: the tests skip and the closing summary says why.
#   deps.sh install [PART...]   installs what the parts list, every part when none (`make deps`,
#                        CI); without root it prints the command to run and fails.
#   deps.sh packages [PART...]   the packages of the parts (every part when none), one line.
#   deps.sh missing [PART...]    those of them dpkg does not have installed (nothing off Debian).
# Only stderr carries messages: the Makefile reads stdout as the flags.
here=$(dirname "$0")
list="$here/packages"

# packages [PART...]: the packages of the named parts, or of every part, each once.
packages() {
    awk -v want=" $* " '/^[a-z]/ && (want == "  " || index(want, " " $1 " ")) {
        for (i = 2; i <= NF; i++) if (!seen[$i]++) printf "%s%s", n++ ? " " : "", $i } END { print "" }' "$list"
}

# The parts `make test` needs: every one but CI's own (ci, ci-...).
test_parts() { awk '/^[a-z]/ && $1 !~ /^ci(-|$)/ { print $1 }' "$list" | tr '\n' ' '; }

missing() {
    want=$(packages "$@")
    command -v dpkg-query >/dev/null 2>&1 || return 0
    have=$(dpkg-query -W -f='${db:Status-Status} ${Package}\n' $want 2>/dev/null | sed -n 's/^installed //p')
    out=""
    for p in $want; do
        case " $(echo $have) " in
        *" $p "*) ;;
        *) out="$out${out:+ }$p" ;;
        esac
    done
    echo "$out"
}

can_install() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }

# apt_install PACKAGE...: apt-get update, then install; every word of apt's to stderr.
apt_install() {
    echo "kyu: installing with apt-get: $*" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; } >&2
}

cflags() {
    if pkg-config --exists cglm 2>/dev/null; then
        pkg-config --cflags cglm
        return 0
    fi
    if can_install; then
        apt_install libcglm-dev pkg-config || { echo "kyu: apt-get could not install libcglm-dev" >&2; return 1; }
        pkg-config --cflags cglm
        return 0
    fi
    echo "kyu: cglm not found: install it with 'sudo apt-get install -y libcglm-dev pkg-config'" >&2
    return 1
}

case "${1:-build}" in
build)
    cflags
    ;;
test)
    if [ -z "${KYU_NO_DEPS:-}" ] && can_install; then
        need=$(missing $(test_parts))
        if [ -n "$need" ] && ! apt_install $need; then
            echo "kyu: apt-get could not install $need: the tests that need them will be skipped" >&2
        fi
    fi
    cflags
    ;;
install)
    shift
    need=$(missing "$@")
    if [ -z "$need" ]; then
        echo "kyu: every package of ${*:-tools/packages} is installed"
    elif can_install; then
        apt_install $need || { echo "kyu: apt-get could not install $need" >&2; exit 1; }
    else
        echo "kyu: not root: run 'sudo make deps', or 'sudo apt-get install -y $need'" >&2
        exit 1
    fi
    ;;
packages)
    shift
    packages "$@"
    ;;
missing)
    shift
    missing "$@"
    ;;
*)
    echo "usage: deps.sh [build|test|install [PART...]|packages [PART...]|missing [PART...]]" >&2
    exit 2
    ;;
esac
