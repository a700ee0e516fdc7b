#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# xfs-short-copy-post-eof-block: a buffered write past EOF from 1 byte
# into an 8 KiB folio whose copy from user memory stops at the end of the
# folio's first block is accepted (the folio was marked uptodate when its
# head was zeroed); the second block, past the new EOF and never written,
# keeps whatever the folio's memory held. When a later write extends the
# file over it (a hole), nothing zeroes it, and it reads back as file
# data: memory of the page cache of another, deleted file (its 0x69
# bytes). XFS with 4 KiB blocks; 7.2's iomap_zero_range() skips the hole
# without the flush whose writeback zeroed the folio past EOF before.
#
# xfs_io cannot make a copy from user memory stop short, so python3 writes
# from a buffer whose second page is PROT_NONE.
#
# usage: xfs-short-copy-post-eof-block.sh DIR   (DIR on XFS, 4k blocks)
# exit: 1 reproduced, 0 not reproduced, 2 could not run
#
# repro-fs: xfs
# repro-needs: python3
# repro-test: content_write.xfs.short_copy_writes_exactly_the_count_returned
set -u
# shellcheck source=reproducers/lib/common.sh
. "$(dirname "$0")/lib/common.sh"
command -v python3 >/dev/null || { echo "python3 not found"; exit 2; }

expect "zeros in [36864, 40960) of each file, past the 4095 bytes written at 32769"
out=$(python3 - "$f" <<'END'
import ctypes, mmap, os, sys
base = sys.argv[1]
# 200 MiB of page cache holding 0x69, freed: memory new folios are made of.
fd = os.open(base + ".fill", os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
chunk = b"\x69" * (1 << 20)
for m in range(200):
    os.pwrite(fd, chunk, m << 20)
os.fsync(fd)
os.close(fd)
os.unlink(base + ".fill")
libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
buf = mmap.mmap(-1, 8192)
buf[0:4096] = b"\x41" * 4096
if libc.mprotect(ctypes.addressof(ctypes.c_char.from_buffer(buf)) + 4096, 4096, 0):
    sys.exit("mprotect: " + os.strerror(ctypes.get_errno()))
bad = 0
for i in range(8):
    name = "%s.%d" % (base, i)
    fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    n = os.pwrite(fd, memoryview(buf)[1:4096 + 6000], 32769)
    os.pwrite(fd, b"B", 65536)
    got = os.pread(fd, 4096, 36864)
    nz = sum(1 for c in got if c)
    bad += nz > 0
    print("file %d: pwrite of 10095 at 32769 returned %d; after a write at 65536, "
          "%d non-zero bytes in [36864, 40960)" % (i, n, nz))
    os.close(fd)
    os.unlink(name)
print("files with non-zero bytes past the short write: %d" % bad)
END
) || exit 2
printf '%s\n' "$out"
verdict "$(printf '%s\n' "$out" | sed -n 's/^files with non-zero bytes past the short write: //p')"
