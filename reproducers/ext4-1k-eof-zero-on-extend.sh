#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ext4-1k-eof-zero-on-extend: on ext4 with blocks smaller than a page,
# bytes written through mmap past EOF in the rest of the EOF folio (past
# the EOF block) survive an extension of i_size (here truncate up; a
# buffered write and fallocate past EOF too) and read back as file data.
# Seen by the selftests on 6.12.117; 6.18.44 and 7.2.13 pass (the fix is
# not identified).
#
# usage: ext4-1k-eof-zero-on-extend.sh DIR   (DIR on ext4 with 1k blocks, 4k pages)
# exit: 1 reproduced, 0 not reproduced, 2 could not run
#
# repro-fs: ext4
# repro-mkfs: -b 1024
# repro-test: folio_batch.ext4_1k.truncate_up_from_unaligned_eof
set -u
# shellcheck source=reproducers/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

xfs_io -f -c "pwrite -S 0x41 0 1000" -c "mmap -rw 0 4096" \
	-c "mwrite -S 0x53 1000 3096" -c munmap "$f" >/dev/null || exit 2
xfs_io -c "truncate 8192" "$f" || exit 2

expect "[1000, 8192) reads as zeros (1000 was EOF, in block [0, 1024), when 'S' was written past it)"
xfs_io -c "pread -v 1024 16" "$f" | head -n 1
verdict_s 1024 3072
