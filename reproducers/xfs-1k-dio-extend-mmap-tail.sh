#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# xfs-1k-dio-extend-mmap-tail: on XFS with 1k blocks and 4k pages, an
# O_DIRECT write past EOF leaves bytes written through mmap into the EOF
# folio beyond the EOF block (over a data-fork hole) as file data.
# xfs_file_write_zero_eof() zeroes [EOF, pos) with iomap_zero_range(); up
# to 6.18 that flushed the dirty range and writeback zeroed the folio past
# EOF; since "iomap, xfs: improve zero range flushing and lookup" (7.x)
# the unwritten EOF block is zeroed through the folio batch and the hole is
# skipped without a flush, and the direct write path never calls
# pagecache_isize_extended().
#
# usage: xfs-1k-dio-extend-mmap-tail.sh DIR   (DIR on XFS, 1k blocks)
# exit: 1 reproduced, 0 not reproduced, 2 could not run
#
# repro-fs: xfs
# repro-mkfs: -b size=1024
# repro-test: folio_batch.xfs_1k.direct_write_past_eof
set -u
# shellcheck source=reproducers/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

# A dirty EOF block over an unwritten extent: 64k preallocated, 8k written
# (not synced), cut to 1000 bytes; then 'S' past EOF through mmap.
xfs_io -f -c "falloc 0 64k" -c "pwrite -S 0x41 0 8k" -c "truncate 1000" \
	-c "mmap -rw 0 4096" -c "mwrite -S 0x53 1000 3096" -c munmap "$f" >/dev/null || exit 2
# A separate process: with one "xfs_io -d" the buffered I/O above would be
# O_DIRECT too.
xfs_io -d -c "pwrite -S 0x44 64k 4k" "$f" >/dev/null || exit 2

expect "[1000, 65536) reads as zeros (1000 was EOF, in block [0, 1024), when 'S' was written past it)"
xfs_io -c "pread -v 1024 16" "$f" | head -n 1
verdict_s 1000 3096
