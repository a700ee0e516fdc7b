#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# dio-einval-after-partial-write: a direct pwritev that fails with EINVAL
# because its segment lengths are off the alignment (the total on it) has
# already written the part of the request that the file's first mapping
# covered. Seen on ext4 and XFS.
#
# Two segments of 4352 bytes (512-byte sectors: each half a sector off,
# the 8704 together on it), over [4096 written bytes][a hole].
#
# usage: dio-einval-after-partial-write.sh DIR   (DIR on ext4, 4k blocks)
# exit: 1 reproduced, 0 not reproduced, 2 could not run
#
# repro-fs: ext4
# repro-mkfs:
# repro-test: dio_align_matrix.ext4.direct_writev_with_segment_lengths_off_the_unit_moves_nothing
set -u
# shellcheck source=reproducers/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

xfs_io -f -c "pwrite -q -S 0x11 0 4096" -c "truncate 16384" -c fsync "$f" || exit 2
expect "pwrite: Invalid argument, and [0, 4096) still all 0x11"
xfs_io -d -c "pwrite -q -V 2 -S 0x77 -b 4352 0 8704" "$f"
n=$(xfs_io -c "pread -v 0 4096" "$f" |
	awk '/^[0-9a-f]+:/ { for (i = 2; i <= 17; i++) if ($i == "77") n++ } END { print n + 0 }')
echo "bytes of 0x77 in [0, 4096): $n"
verdict "$n"
