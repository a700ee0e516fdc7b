#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ext4-dio-extend-mmap-tail: an O_DIRECT write that extends an ext4 file
# turns bytes written through mmap past the old EOF, in the EOF block, into
# file data (in the page cache, and on disk once the folio is written back).
# Buffered writes and truncate zero that tail; ext4_dio_write_checks() does
# not. XFS zeroes it (xfs_file_write_zero_eof()).
#
# usage: ext4-dio-extend-mmap-tail.sh DIR   (DIR on ext4, 4k blocks)
# exit: 1 reproduced, 0 not reproduced, 2 could not run
#
# repro-fs: ext4
# repro-mkfs:
# repro-test: folio_batch.ext4.direct_write_past_eof_mmap_tail
set -u
# shellcheck source=reproducers/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

# Separate processes: with one "xfs_io -d", the buffered pwrite would be
# O_DIRECT too.
xfs_io -f -c "pwrite -S 0x41 0 1000" -c "mmap -rw 0 4096" \
	-c "mwrite -S 0x53 1000 3096" -c munmap "$f" >/dev/null || exit 2
xfs_io -d -c "pwrite -S 0x44 8192 4096" "$f" >/dev/null || exit 2

expect "[1000, 8192) reads as zeros (1000 was EOF when 'S' was written past it)"
xfs_io -c "pread -v 1000 16" "$f" | head -n 1
cached=$(count_s 1000 3096)
xfs_io -c fsync "$f" || exit 2
ondisk=$(count_s 0 4096 -d)
echo "bytes of 'S' in [1000, 4096): $cached through the page cache, $ondisk on disk after fsync"
verdict "$cached" "$ondisk"
