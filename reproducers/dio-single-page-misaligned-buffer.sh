#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# dio-single-page-misaligned-buffer: an O_DIRECT read into a buffer at
# page + 1 or page + 511, when the file's stx_dio_mem_align is 512 (a
# loop device's dma_alignment 511), succeeds when the 2048 bytes stay
# inside one page; the same request across a page boundary, and
# io_uring's READ_FIXED, fail with EINVAL. The memory alignment check
# moved from iomap to the block layer's split in 6.18, and a
# single-segment bio that needs no split is not checked.
#
# xfs_io cannot place its buffer, so python3 does the reads.
#
# usage: dio-single-page-misaligned-buffer.sh DIR   (DIR on ext4, 1k blocks)
# exit: 1 reproduced, 0 not reproduced, 2 could not run
#
# repro-fs: ext4
# repro-mkfs: -b 1024
# repro-needs: python3
# repro-test: dio_align_matrix.ext4_1k.direct_reads_succeed_or_fail_as_the_alignment_rule_predicts
set -u
# shellcheck source=reproducers/lib/common.sh
. "$(dirname "$0")/lib/common.sh"
command -v python3 >/dev/null || { echo "python3 not found"; exit 2; }

xfs_io -f -c "pwrite -S 0x41 0 65536" -c fsync "$f" >/dev/null || exit 2
expect "EINVAL for a buffer at page + 1 and page + 511 (stx_dio_mem_align 512)"
out=$(python3 - "$f" <<'END'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 8192)
for off in (0, 1, 511, 512):
    try:
        r = str(os.preadv(fd, [memoryview(buf)[off:off + 2048]], 16384))
    except OSError as e:
        r = e.strerror
    print("O_DIRECT preadv of 2048 at 16384, buffer page + %d: %s" % (off, r))
END
) || exit 2
printf '%s\n' "$out"
n=$(printf '%s\n' "$out" | grep -cE 'page \+ (1|511): 2048$')
verdict "$n"
