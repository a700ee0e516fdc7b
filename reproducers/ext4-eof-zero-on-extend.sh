#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ext4-eof-zero-on-extend: bytes written through mmap past EOF, in the EOF
# block, survive an extension of i_size (here truncate up; buffered writes
# and fallocate past EOF too) and read back as file data. ext4 did not
# zero the EOF block's tail when i_size grew; fixed by c7fc0366c656 "ext4:
# partial zero eof block on unaligned inode size extension" (v6.13-rc1,
# 6.12.5 as a stable backport).
#
# usage: ext4-eof-zero-on-extend.sh DIR   (DIR on ext4, 4k blocks)
# exit: 1 reproduced, 0 not reproduced, 2 could not run
#
# repro-fs: ext4
# repro-mkfs:
# repro-test: folio_batch.ext4.truncate_up_from_unaligned_eof
set -u
dir=${1:?usage: $0 DIR (a directory on the filesystem to test)}
f=$dir/ext4-eof-zero-on-extend.$$
command -v xfs_io >/dev/null || { echo "xfs_io not found (xfsprogs)"; exit 2; }

# count_s OFF LEN: bytes of 'S' (0x53) in [OFF, OFF+LEN) of $f.
count_s() {
	xfs_io -c "pread -v $1 $2" "$f" |
		awk '/^[0-9a-f]+:/ { for (i = 2; i <= 17; i++) if ($i == "53") n++ } END { print n + 0 }'
}

xfs_io -f -c "pwrite -S 0x41 0 1000" -c "mmap -rw 0 4096" \
	-c "mwrite -S 0x53 1000 3096" -c munmap "$f" >/dev/null || exit 2
xfs_io -c "truncate 8192" "$f" || exit 2

echo "expected: [1000, 8192) reads as zeros (1000 was EOF when 'S' was written past it)"
echo "actual:"
xfs_io -c "pread -v 1000 16" "$f" | head -n 1
n=$(count_s 1000 3096)
echo "bytes of 'S' in [1000, 4096): $n"
rm -f "$f"
if [ "$n" -gt 0 ]; then
	echo reproduced
	exit 1
fi
echo "not reproduced"
exit 0
