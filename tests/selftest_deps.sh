#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The selftests must build and run with libc, liburing and the kselftest
# harness alone, as an in-tree kselftest collection would: what needs
# jansson, libnuma or GSL belongs to the benchmarks and the command.
#
# Catches: a selftest (or a library file the selftests link) that starts
# to use records, placement or statistics, and a selftests/Makefile that
# links those libraries again.
#
# usage: selftest_deps.sh BUILD_DIR
set -u

build=${1:?usage: selftest_deps.sh BUILD_DIR}
. "$(dirname "$0")/lib/tap.sh"

found=0
for t in "$build"/selftests/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	found=1
	name=selftest_deps.$(basename "$t")
	if ! libs=$(ldd "$t" 2>&1); then
		not_ok "$name" "ldd: $libs"
		continue
	fi
	bad=$(grep -E 'jansson|numa|gsl' <<< "$libs" | awk '{print $1}' | tr '\n' ' ')
	if [ -n "$bad" ]; then
		not_ok "$name" "links $bad"
	else
		ok "$name.libc_liburing_only"
	fi
done
[ "$found" = 1 ] || not_ok "selftest_deps.selftests_built" "no selftest in $build/selftests"
finish_tap
