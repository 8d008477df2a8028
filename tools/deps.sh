#!/bin/sh
# SPDX-License-Identifier: MIT
# Prints cglm's compiler flags. When cglm is missing: installs it as root on Debian/Ubuntu, or says
# in one line what to install and fails. Called by the Makefile.
if pkg-config --exists cglm 2>/dev/null; then
    pkg-config --cflags cglm
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "kyu: installing libcglm-dev and pkg-config with apt-get" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcglm-dev pkg-config; } >&2 ||
        { echo "kyu: apt-get could not install libcglm-dev" >&2; exit 1; }
    pkg-config --cflags cglm
    exit 0
fi
echo "kyu: cglm not found: install it with 'sudo apt-get install -y libcglm-dev pkg-config'" >&2
exit 1
