#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The post-test fsck under a competing workload that copies the mount
# namespace again and again (what unshare -m, a systemd service with
# PrivateTmp= or a container start does). A copy made while a scratch
# filesystem is mounted keeps its superblock alive after the test's
# umount, with the log still dirty: xfs_repair -n then reported "valuable
# metadata changes in a log" and e2fsck wrong free counts for tests that
# had passed. The scratch filesystems live in a private mount namespace
# of the test process, which no such copy can reach; the xfs (4k, reflink)
# variant of folio_batch must pass its post-test checks with the copier running.
#
# usage: tests/fsck_busy.sh BUILD_DIR
set -u

build=${1:?usage: tests/fsck_busy.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
root_test "scratch filesystems" fsck-busy

copier=""
cleanup() {
	[ -n "$copier" ] && kill -- -"$copier" 2> /dev/null && wait "$copier" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

if ! command -v unshare > /dev/null || ! unshare -m true 2> /dev/null; then
	skip "fsck under mount namespace copies" "unshare -m not available"
	finish_tap
fi

# The competing workload, in a process group of its own: a new copy of the
# mount namespace every 0.2 s, each alive for 3 s, so that copies made
# while a scratch filesystem is mounted outlive its umount and the 2 s
# the fsck waits for the superblock to go.
setsid bash -c 'while :; do unshare -m --propagation private sleep 3 & sleep 0.2; done' &
copier=$!

"$build/selftests/folio_batch_test" -v xfs > "$tmp/log" 2>&1
rc=$?
kill -- -"$copier"
wait "$copier" 2> /dev/null
copier=""

out=$("$build/iopath" verdict --kernel "$(uname -r)" --tag t --program folio_batch_test \
	--exit-status "$rc" "$top/configs/known-failures" /dev/null /dev/null "$tmp/log")
bad=$(grep -c 'post-test fsck:' "$tmp/log")
ran=$(grep -c 'after-test checks: fsck ran' "$tmp/log")
if grep -q 'status=pass ' <<< "$out" && [ "$bad" = 0 ] && [ "$ran" -gt 0 ]; then
	ok "fsck after $ran tests, with the mount namespace copied all along: no false failure"
else
	not_ok "fsck under mount namespace copies: $bad post-test fsck failures, status: ${out##*status=}" \
		"$(grep -m3 'post-test fsck:' "$tmp/log")"
fi

finish_tap
