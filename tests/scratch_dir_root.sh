#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# iopath-check: needs=mount-namespace
#
# IOPATH_SCRATCH_DIR=/ : the scratch directory is /iopath-<id>, and it is
# removed with the test's files on a normal exit and when the owner is
# killed (the guardian tears it down), like any other .../iopath-<id>.
#
# Catches: the teardown refusing to remove a path that is exactly
# "/iopath-<id>" (it wanted something before the slash), which left the
# directory and the test's files behind while `iopath cleanup` reported
# "0 leftovers removed".
#
# usage: tests/scratch_dir_root.sh BUILD_DIR   (TAP on stdout; needs root)
set -u

build=${1:?usage: scratch_dir_root.sh BUILD_DIR}
iop=$build/iopath

# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"

root_test "writes to /" scratch-root "$iop"

# normal exit: the command's files and the directory are gone
IOPATH_SCRATCH_DIR=/ "$iop" scratch create --fs ext4 -- \
	sh -c 'dd if=/dev/zero of=data bs=4k count=4 2>/dev/null && echo "$IOPATH_MNT"' \
	> "$tmp/mnt" 2> "$tmp/err"
rc=$?
mnt=$(cat "$tmp/mnt")
if [ "$rc" = 0 ] && [[ $mnt =~ ^/iopath-[0-9]+-[0-9]+$ ]] && [ ! -e "$mnt" ]; then
	ok scratch_dir_root.removed_on_exit
else
	not_ok scratch_dir_root.removed_on_exit "exit $rc, mount '$mnt'" "$(head -3 "$tmp/err")"
	[[ $mnt =~ ^/iopath-[0-9]+-[0-9]+$ ]] && rm -rf "$mnt"
fi

# owner killed: the guardian removes it
IOPATH_SCRATCH_DIR=/ "$iop" scratch create --fs ext4 -- \
	sh -c 'touch data; echo "$IOPATH_MNT"; kill -KILL $PPID; sleep 3' > "$tmp/mnt" 2> "$tmp/err"
mnt=$(head -1 "$tmp/mnt")
gone=1
for _ in $(seq 50); do
	[ -e "$mnt" ] || { gone=0; break; }
	sleep 0.1
done
if [[ $mnt =~ ^/iopath-[0-9]+-[0-9]+$ ]] && [ "$gone" = 0 ]; then
	ok scratch_dir_root.removed_after_owner_killed
else
	not_ok scratch_dir_root.removed_after_owner_killed "mount '$mnt' still there"
	[[ $mnt =~ ^/iopath-[0-9]+-[0-9]+$ ]] && rm -rf "$mnt"
fi

finish_tap
