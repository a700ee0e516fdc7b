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

# Laid out beside INSTALL and put in its place only if it differs: make
# check and iopath run start their programs from INSTALL, and a second
# make in another terminal must not pull it from under a running one.
new=$inst.new.$$
trap 'rm -rf "$new" "$inst.old.$$"' EXIT
# The makes below do the work whatever the calling make was asked
# (make -n passes "n" down) and without its jobserver.
unset MAKEFLAGS MFLAGS MAKELEVEL
rm -rf "$new"
mkdir -p "$new/kselftest"
make -s --no-print-directory -C "$src" KSFT_DIR="$ksft" OUTPUT="$out" \
	INSTALL_PATH="$new/iopath" install >&2
cp "$ksft/run_kselftest.sh" "$new/"
cp "$ksft"/kselftest/* "$new/kselftest/"
make -s --no-print-directory -C "$src" KSFT_DIR="$ksft" OUTPUT="$out" \
	COLLECTION=iopath emit_tests > "$new/kselftest-list.txt"
git -C "$src" describe --always --dirty > "$new/VERSION" 2>/dev/null || true
if [ ! -x "$new/iopath/iopath_probe" ] || ! grep -q '^iopath:[a-z0-9_]*_test$' "$new/kselftest-list.txt"; then
	echo "kselftest-install: $new is no installed collection (no iopath/iopath_probe or no programs listed)" >&2
	exit 1
fi
if [ -d "$inst" ] && diff -r -q "$inst" "$new" > /dev/null 2>&1; then
	# Newer than the binaries it holds, as scripts/vm/initramfs.bash expects.
	touch "$inst/kselftest-list.txt"
	exit 0
fi
[ ! -e "$inst" ] || mv "$inst" "$inst.old.$$"
mv "$new" "$inst"
