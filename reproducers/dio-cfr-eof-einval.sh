#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# dio-cfr-eof-einval: copy_file_range from an O_DIRECT file, of an aligned
# range that crosses an unaligned EOF, fails with EINVAL; pread, splice
# and sendfile on the same file descriptor return the bytes to EOF.
# Seen on ext4 and XFS.
#
# One xfs_io process, commands on stdin (with -c and two open files,
# xfs_io runs each command on both).
#
# usage: dio-cfr-eof-einval.sh DIR   (DIR on ext4, 4k blocks)
# exit: 1 reproduced, 0 not reproduced, 2 could not run
#
# repro-fs: ext4
# repro-mkfs:
# repro-test: dio_align_matrix.ext4.direct_read_across_eof_returns_the_bytes_to_eof_on_every_path
set -u
# shellcheck source=reproducers/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

xfs_io -f -c "pwrite -S 0x41 0 262044" -c fsync "$f" >/dev/null || exit 2
expect "O_DIRECT pread and copy_file_range of [261120, +2048) both give the 924 bytes to EOF (262044)"
xfs_io -d -c "pread -b 2048 261120 2048" "$f" | grep '^read'
out=$(xfs_io -d "$f" 2>&1 <<END
open -f -t $f.sink
copy_range -f 0 -s 261120 -d 0 -l 2048
END
)
printf '%s\n' "$out"
n=$(printf '%s\n' "$out" | grep -c 'copy_range: Invalid argument')
rm -f "$f.sink"
verdict "$n"
