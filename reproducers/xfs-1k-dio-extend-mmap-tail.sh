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
dir=${1:?usage: $0 DIR (a directory on the filesystem to test)}
f=$dir/xfs-1k-dio-extend-mmap-tail.$$
command -v xfs_io >/dev/null || { echo "xfs_io not found (xfsprogs)"; exit 2; }

# count_s OFF LEN: bytes of 'S' (0x53) in [OFF, OFF+LEN) of $f.
count_s() {
	xfs_io -c "pread -v $1 $2" "$f" |
		awk '/^[0-9a-f]+:/ { for (i = 2; i <= 17; i++) if ($i == "53") n++ } END { print n + 0 }'
}

# A dirty EOF block over an unwritten extent: 64k preallocated, 8k written
# (not synced), cut to 1000 bytes; then 'S' past EOF through mmap.
xfs_io -f -c "falloc 0 64k" -c "pwrite -S 0x41 0 8k" -c "truncate 1000" \
	-c "mmap -rw 0 4096" -c "mwrite -S 0x53 1000 3096" -c munmap "$f" >/dev/null || exit 2
# A separate process: with one "xfs_io -d" the buffered I/O above would be
# O_DIRECT too.
xfs_io -d -c "pwrite -S 0x44 64k 4k" "$f" >/dev/null || exit 2

echo "expected: [1000, 65536) reads as zeros (1000 was EOF, in block [0, 1024), when 'S' was written past it)"
echo "actual:"
xfs_io -c "pread -v 1024 16" "$f" | head -n 1
n=$(count_s 1000 3096)
echo "bytes of 'S' in [1000, 4096): $n"
rm -f "$f"
if [ "$n" -gt 0 ]; then
	echo reproduced
	exit 1
fi
echo "not reproduced"
exit 0
