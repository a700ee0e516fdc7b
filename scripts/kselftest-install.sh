#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Lay out the installed kselftest tree the way `make -C tools/testing/selftests
# install` does, so run_kselftest.sh finds the collection's `settings`
# (a standalone `make run_tests` does not) and fleet runners (LAVA, KernelCI,
# tuxrun) get the layout they expect:
#   INSTALL/run_kselftest.sh, INSTALL/kselftest/, INSTALL/kselftest-list.txt,
#   INSTALL/iopath/{*_test, config, settings}
#
# usage: kselftest-install.sh KSFT_DIR SELFTEST_BUILD INSTALL
set -eu

ksft=${1:?usage: kselftest-install.sh KSFT_DIR SELFTEST_BUILD INSTALL}
out=${2:?}
inst=${3:?}
src=$(cd "$(dirname "$0")/../selftests" && pwd)

rm -rf "$inst"
mkdir -p "$inst/kselftest"
make -s --no-print-directory -C "$src" KSFT_DIR="$ksft" OUTPUT="$out" \
	INSTALL_PATH="$inst/iopath" install >&2
cp "$ksft/run_kselftest.sh" "$inst/"
cp "$ksft"/kselftest/* "$inst/kselftest/"
make -s --no-print-directory -C "$src" KSFT_DIR="$ksft" OUTPUT="$out" \
	COLLECTION=iopath emit_tests > "$inst/kselftest-list.txt"
git -C "$src" describe --always --dirty > "$inst/VERSION" 2>/dev/null || true
