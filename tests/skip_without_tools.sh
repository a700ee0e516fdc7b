#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every selftest program's XFS variants on a machine without xfsprogs: each
# test reports the setup's named SKIP ("mkfs.xfs not installed") and none
# fails or dies. The tools are hidden in a private mount namespace
# (/dev/null bound over mkfs.xfs and xfs_repair: not executable, so not
# found), so the host keeps them.
#
# Catches: a test body that reads the fixture before IOP_TEST_BEGIN() has
# decided to skip (dio_align_matrix's EOF-crossing read divided by the
# read alignment of a fixture that never made a filesystem: SIGFPE, a
# failure where the guest of iopath coverage lacked xfsprogs).
#
# usage: tests/skip_without_tools.sh BUILD_DIR   (TAP on stdout)
set -u

build=${1:?usage: skip_without_tools.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/tap.sh"

if [ "$(id -u)" != 0 ] || ! command -v unshare > /dev/null; then
	echo "1..0 # SKIP needs root and unshare (a private mount namespace hides the tools)"
	exit 0
fi
mapfile -t progs < <(ls "$build"/selftests/*_test 2> /dev/null)
if [ ${#progs[@]} = 0 ]; then
	echo "1..0 # SKIP no selftests in $build/selftests (make selftests)"
	exit 0
fi
hide=()
for t in mkfs.xfs xfs_repair; do
	p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$t") && hide+=("$(readlink -f "$p")")
done
tmp=$(mktemp -d /tmp/iopath-skip-tools.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

for prog in "${progs[@]}"; do
	name=$(basename "$prog")
	# The variants: the words of the VARIANT column of the harness's -l.
	mapfile -t variants < <("$prog" -l 2>&1 | awk '
		/^# FIXTURE/ { v = index($0, "VARIANT"); t = index($0, "TEST"); next }
		v && /^-+$/ { on = 1; next }
		on { w = substr($0, v, t - v); gsub(/ /, "", w); if (w ~ /^xfs/) print w }' | sort -u)
	if [ ${#variants[@]} = 0 ]; then
		continue
	fi
	args=()
	for v in "${variants[@]}"; do
		args+=(-v "$v")
	done
	# shellcheck disable=SC2016 # expanded by the inner shell
	HIDE="${hide[*]}" timeout -k 5 120 unshare -m sh -c '
		for f in $HIDE; do mount --bind /dev/null "$f" || exit 99; done
		exec "$@"' sh "$prog" "${args[@]}" > "$tmp/$name.out" 2>&1 < /dev/null
	rc=$?
	fails=$(grep -E '^not ok|^# +FAIL|terminated' "$tmp/$name.out" | head -n 3)
	if [ "$rc" = 99 ]; then
		not_ok "skip_without_tools.$name.xfs_variants_skip" "cannot hide ${hide[*]}"
	elif [ -z "$fails" ] && [ "$rc" != 124 ] && grep -q 'SKIP mkfs.xfs not installed' "$tmp/$name.out"; then
		ok "skip_without_tools.$name.xfs_variants_skip"
	else
		not_ok "skip_without_tools.$name.xfs_variants_skip" "exit $rc" "$fails"
	fi
done
finish_tap
