#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# iopath-check: needs=mount-namespace
#
# Verdicts that cannot lie, on real harness binaries and the verdict every
# runner uses (the verdict engine, iopath verdict, with selftests/requirements and
# the kernel's iopath_probe output):
#   - a test that records a failure and then skips is failed, although the
#     harness reports it skipped (docs/harness-bugs/);
#   - a kernel-log marker that never reaches the log (IOPATH_KMSG_DEV=
#     /dev/null accepts and drops it, as printk_devkmsg=off does) fails the
#     test, and the coverage block says the kernel-log check did not run;
#   - a filesystem checker that does not do its job fails the test, not
#     passes it;
#   - a required test that skips (IOPATH_SCRATCH_DIR on ext4 takes XFS,
#     hence reflink, away from the xfs variant) on a kernel that has XFS
#     reflink fails the run with the one "required:" line;
#   - without xfsprogs the XFS variants SKIP with the missing tool and its
#     package, and that skip of required coverage fails the run.
#
# usage: tests/verdict.sh BUILD_DIR
set -u

build=${1:?usage: tests/verdict.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
root_test "scratch filesystems and /dev/kmsg" verdict

kernel=$(uname -r)

# verdict TAPFILE EXIT: the shared verdict on one binary's output
verdict() {
	"$build/iopath" verdict --kernel "$kernel" --tag t --program p --exit-status "$2" --coverage \
		"$top/configs/known-failures" \
		"$top/selftests/requirements" "$tmp/features" "$1"
}

"$build/selftests/iopath_probe" > "$tmp/features"
check $? "iopath_probe runs"

"$build/tests/helpers/skip_after_failure" > "$tmp/guard" 2>&1
rc=$?
out=$(verdict "$tmp/guard" "$rc")
[ "$rc" = 1 ] && grep -q '^ok 1 guard.expect_fails_then_skips # SKIP a skip after the failure$' "$tmp/guard" &&
	grep -q 'status=fail passed=0 failed=2 known=0 skipped=1 ' <<< "$out" &&
	grep -q '^# t: skipped after a failed check: guard.expect_fails_then_skips: Expected 1 (1) == self->unused + 2 (2)' <<< "$out"
check $? "EXPECT failure, then the harness's SKIP: the verdict counts a failure (a plain SKIP stays a skip)"
# (The 6.12 harness skips the teardown after an ASSERT; 7.2 runs it.)
grep -q '^not ok 3 after_assert.assert_fails_then_teardown_checks$' "$tmp/guard" &&
	! grep -q 'post-test' "$tmp/guard"
check $? "a failed ASSERT, then the shared teardown: its passing checks print no post-test line"

t=extent_map.ext4.seek_treats_clean_unwritten_as_hole
IOPATH_KMSG_DEV=/dev/null "$build/selftests/extent_map_test" -r "$t" > "$tmp/kmsg" 2>&1
rc=$?
out=$(verdict "$tmp/kmsg" "$rc")
[ "$rc" = 1 ] && grep -q "^not ok 1 $t\$" "$tmp/kmsg" &&
	grep -q 'post-test kernel log: not checked: the marker written to /dev/kmsg never reached the log (printk_devkmsg=off drops it)' "$tmp/kmsg" &&
	grep -q 'status=fail ' <<< "$out" &&
	grep -q '^# t: coverage: kernel-log check: NOT RUN after 1 tests, ran after 0 tests$' <<< "$out"
check $? "a dropped kmsg marker fails the test, named, and the coverage block says so"

# A filesystem checker that does not do its job (e2fsck covered by
# /bin/false in a mount namespace of this test alone: it runs, checks
# nothing and exits 1): the post-test fsck fails the test with the reason
# instead of passing it. (A checker that is not a runnable file at all is
# not installed: the setup's named SKIP, tests/skip_without_tools.sh.)
t=extent_map.ext4.seek_treats_clean_unwritten_as_hole
e2fsck=$(PATH=/usr/sbin:/sbin:$PATH command -v e2fsck)
if [ -n "$e2fsck" ] && unshare -m true 2> /dev/null; then
	unshare -m sh -c 'mount --bind /bin/false "$1" && shift && exec "$@"' sh "$(readlink -f "$e2fsck")" \
		"$build/selftests/extent_map_test" -r "$t" > "$tmp/nofsck" 2>&1
	rc=$?
	[ "$rc" = 1 ] && grep -q "^not ok 1 $t\$" "$tmp/nofsck" && grep -q 'post-test fsck: e2fsck' "$tmp/nofsck"
	check $? "a filesystem checker that does not do its job fails the test, named"
else
	skip "a filesystem checker that does not do its job" "no e2fsck or no unshare -m"
fi

if grep -q '^xfs_reflink yes' "$tmp/features"; then
	t=folio_batch.xfs.truncate_down_unaligned
	mkdir "$tmp/dir"
	IOPATH_SCRATCH_DIR=$tmp/dir "$build/selftests/folio_batch_test" -r "$t" > "$tmp/req" 2>&1
	rc=$?
	out=$(verdict "$tmp/req" "$rc")
	[ "$rc" = 0 ] && grep -q "^ok 1 $t # SKIP" "$tmp/req" && grep -q 'status=fail .*required_missing=1' <<< "$out" &&
		[ "$(grep -c '^# t: required: ' <<< "$out")" = 1 ] &&
		grep -q "^# t: required: $t skipped on a kernel that has xfs_reflink, fadvise and odirect: IOPATH_SCRATCH_DIR: .* is on [a-z0-9]*, not xfs\$" <<< "$out"
	check $? "a required test skipped on a kernel with XFS reflink fails the run with the required line"
else
	skip "required line on a real skip" "$(grep '^xfs_reflink' "$tmp/features")"
fi

# Without xfsprogs (its tools hidden in a mount namespace of this test
# alone: /usr/sbin is a tmpfs of links to everything else in it, /sbin
# points there): the XFS variants SKIP naming the missing tool and its
# package, and the verdict every runner uses fails the run on that skip of
# required coverage. Hiding only xfs_repair gives the checker's name.
# without_tools 'GLOB...' CMD...: CMD with the sbin tools the GLOBs match hidden
without_tools() {
	mkdir -p "$tmp/sbin"
	unshare -m sh -c '
		o=$1 hide=$2
		shift 2
		mount --make-rprivate / && mount --bind /usr/sbin "$o" &&
			mount -t tmpfs iopath-sbin /usr/sbin || exit 125
		set -f
		for n in $(ls "$o"); do
			for h in $hide; do
				case $n in $h) continue 2 ;; esac
			done
			ln -s "$o/$n" /usr/sbin/ || exit 125
		done
		set +f
		exec "$@"' sh "$tmp/sbin" "$@"
}
t=folio_batch.xfs.truncate_down_unaligned
if ! grep -q '^xfs_reflink yes' "$tmp/features"; then
	skip "no xfsprogs: the XFS variants skip" "$(grep '^xfs_reflink' "$tmp/features")"
elif ! unshare -m true 2> /dev/null || [ -L /usr/sbin ]; then
	skip "no xfsprogs: the XFS variants skip" "no unshare -m, or /usr/sbin is a link"
else
	without_tools 'mkfs.xfs fsck.xfs xfs_*' "$build/selftests/folio_batch_test" -r "$t" > "$tmp/noxfs" 2>&1
	rc=$?
	out=$(verdict "$tmp/noxfs" "$rc")
	[ "$rc" = 0 ] &&
		grep -q "^ok 1 $t # SKIP mkfs.xfs not installed (apt-get install xfsprogs)\$" "$tmp/noxfs" &&
		grep -q 'status=fail .*required_missing=1' <<< "$out" &&
		grep -q "^# t: required: $t skipped on a kernel that has xfs_reflink, fadvise and odirect: mkfs.xfs not installed" <<< "$out"
	check $? "no xfsprogs: the XFS variant skips with the tool and package, the run fails on required coverage"
	without_tools 'xfs_repair' "$build/selftests/folio_batch_test" -r "$t" > "$tmp/norepair" 2>&1
	rc=$?
	[ "$rc" = 0 ] && grep -q "^ok 1 $t # SKIP xfs_repair not installed (apt-get install xfsprogs)\$" "$tmp/norepair"
	check $? "no xfs_repair: the XFS variant skips naming the checker"
	t=folio_batch.ext4.truncate_down_unaligned
	without_tools 'mkfs.xfs fsck.xfs xfs_*' "$build/selftests/folio_batch_test" -r "$t" > "$tmp/noxfs-ext4" 2>&1
	rc=$?
	[ "$rc" = 0 ] && grep -q "^ok 1 $t\$" "$tmp/noxfs-ext4"
	check $? "no xfsprogs: the ext4 variant still runs and passes"
fi

finish_tap
