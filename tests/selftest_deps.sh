#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# iopath-check: needs=mount-namespace
#
# The selftests must build and run with libc, liburing and the kselftest
# harness alone, as an in-tree kselftest collection would: what needs
# jansson, libnuma or GSL belongs to the benchmarks and the command. And
# liburing is optional, as in mm/: built without it (IOPATH_LIBURING=0,
# what selftests/Makefile decides when liburing.h is missing) the programs
# that use it build, link no liburing, and their io_uring cases SKIP
# naming the package.
#
# Catches: a selftest (or a library file the selftests link) that starts
# to use records, placement or statistics, a selftests/Makefile that links
# those libraries again, and an unconditional -luring or liburing.h.
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
		# iopath_verdict is static: a board without our libraries runs it
		if grep -q 'not a dynamic executable' <<< "$libs"; then
			ok "$name.static_no_library"
		else
			not_ok "$name" "ldd: $libs"
		fi
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

top=$(cd "$(dirname "$0")/.." && pwd)
ksft=$("$top/scripts/ksft-harness.sh" "$build" 2> /dev/null)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-deps.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
progs=(dio_span_test iov_single_test iopath_probe)
if [ -z "$ksft" ]; then
	skip "selftest_deps.build_without_liburing" "no kselftest harness (scripts/ksft-harness.sh)"
elif ! make -s -C "$top/selftests" KSFT_DIR="$ksft" OUTPUT="$tmp" IOPATH_LIBURING=0 \
		"${progs[@]/#/$tmp/}" > "$tmp/make.log" 2>&1; then
	not_ok "selftest_deps.build_without_liburing" "$(tail -n 5 "$tmp/make.log")"
else
	linked=$(for p in "${progs[@]}"; do ldd "$tmp/$p"; done | grep -c 'liburing')
	[ "$linked" = 0 ] && grep -q 'liburing not found (apt-get install liburing-dev)' "$tmp/make.log"
	check $? "selftest_deps.build_without_liburing_links_none"
	if [ "$(id -u)" != 0 ]; then
		skip "selftest_deps.without_liburing_io_uring_cases_skip" "needs root"
	else
		t=dio_span.ext4.io_uring_fixed_buffers_span_extents
		"$tmp/dio_span_test" -r "$t" > "$tmp/dio" 2>&1
		rc=$?
		"$tmp/iov_single_test" -r iov_single.pipe.normal_read_agrees > "$tmp/iov" 2>&1
		rc2=$?
		why='built without liburing (apt-get install liburing-dev, then rebuild)'
		[ "$rc" = 0 ] && grep -qxF "ok 1 $t # SKIP $why" "$tmp/dio" &&
			[ "$rc2" = 0 ] && grep -qF "# SKIP $why" "$tmp/iov"
		check $? "selftest_deps.without_liburing_io_uring_cases_skip"
	fi
fi
finish_tap
