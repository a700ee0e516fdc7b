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
# shellcheck source=reproducers/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

xfs_io -f -c "pwrite -S 0x41 0 1000" -c "mmap -rw 0 4096" \
	-c "mwrite -S 0x53 1000 3096" -c munmap "$f" >/dev/null || exit 2
xfs_io -c "truncate 8192" "$f" || exit 2

expect "[1000, 8192) reads as zeros (1000 was EOF when 'S' was written past it)"
xfs_io -c "pread -v 1000 16" "$f" | head -n 1
verdict_s 1000 3096
