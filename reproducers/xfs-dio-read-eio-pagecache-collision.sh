#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# xfs-dio-read-eio-pagecache-collision: a buffered write into a file
# that was truncated up, then a fallocate past EOF over it: the next
# O_DIRECT read returns EIO instead of the data, and the read itself logs
# "Direct I/O collision with buffered writes!" (no direct write is
# involved). ext4 passes the same sequence.
#
# One xfs_io process, commands on stdin: the buffered file stays open
# (its close after the truncate would start writeback, and the folios
# would be clean), and with -c and two open files xfs_io would run every
# command on both.
#
# usage: xfs-dio-read-eio-pagecache-collision.sh DIR   (DIR on XFS, 1k blocks)
# exit: 1 reproduced, 0 not reproduced, 2 could not run
#
# repro-fs: xfs
# repro-mkfs: -b size=1024
# repro-test: content_model.xfs_1k.seeded_random_operations_keep_every_read_equal_to_the_model
set -u
# shellcheck source=reproducers/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

expect "the O_DIRECT pread returns the 7749 bytes to EOF (240197)"
out=$(xfs_io -f "$f" 2>&1 <<END
truncate 127438
pwrite -b 33395 -S 0x41 191889 33395
falloc 179638 60559
open -d $f
pread -b 29696 232448 29696
END
)
printf '%s\n' "$out" | grep -E '^(pread|read|pwrite|wrote)'
n=$(printf '%s\n' "$out" | grep -c 'pread: Input/output error')
verdict "$n"
