#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# xfs-unshare-hole-cow: FALLOC_FL_UNSHARE_RANGE over a range holding holes
# between shared extents: xfs_buffered_write_iomap_begin() does not skip a
# data-fork hole for IOMAP_UNSHARE (it did only for IOMAP_ZERO), so it
# reserves blocks there (COW fork preallocation with 4k blocks, a new
# data-fork delalloc reservation with 1k blocks) and hands iomap a
# DELALLOC mapping instead of a HOLE, although a hole cannot be shared.
# Fixed by b8c4076db5fd "xfs: don't allocate COW extents when unsharing a
# hole" (v6.12-rc6). fallocate() then preallocates the holes anyway, so
# the file's extent map ends up the same either way; the mapping is seen
# through the iomap_iter_dstmap tracepoint.
#
# usage: xfs-unshare-hole-cow.sh DIR   (DIR on XFS with reflink, 4k blocks;
#        tracefs at $TRACEFS or /sys/kernel/tracing; root)
# exit: 1 reproduced, 0 not reproduced, 2 could not run
#
# repro-fs: xfs
# repro-mkfs: -m reflink=1
# repro-needs: tracefs
# repro-test: iomap_trace.xfs.unshare_maps_holes_without_shared_state
set -u
dir=${1:?usage: $0 DIR (a directory on the filesystem to test)}
command -v xfs_io >/dev/null || { echo "xfs_io not found (xfsprogs)"; exit 2; }
# tracefs: $TRACEFS if set (iopath repro mounts one there when needed),
# else where it is usually mounted.
tr=${TRACEFS:-/sys/kernel/tracing}
[ -d "$tr/instances" ] || tr=/sys/kernel/debug/tracing
[ -d "$tr/instances" ] || { echo "tracefs is not mounted (mount -t tracefs tracefs /sys/kernel/tracing)"; exit 2; }
src=$dir/xfs-unshare-hole-cow.src.$$
dst=$dir/xfs-unshare-hole-cow.dst.$$
inst=$tr/instances/iopath-repro-$$
trap 'rmdir "$inst" 2>/dev/null; rm -f "$src" "$dst"' EXIT
trap 'exit 2' INT TERM

# dst: shared [0, 64k), hole [64k, 128k), shared [128k, 192k), hole
# [192k, 256k), shared [256k, 320k) (keeps the inode a reflink inode).
xfs_io -f -c "pwrite -S 0x61 0 320k" -c fsync "$src" >/dev/null || exit 2
xfs_io -f -c "truncate 320k" -c "reflink $src 0 0 64k" -c "reflink $src 128k 128k 64k" \
	-c "reflink $src 256k 256k 64k" "$dst" >/dev/null || exit 2
mkdir "$inst" || exit 2
echo "ino == $(stat -c %i "$dst")" > "$inst/events/iomap/iomap_iter_dstmap/filter" || exit 2
echo 1 > "$inst/events/iomap/iomap_iter_dstmap/enable" || exit 2
xfs_io -c "funshare 0 256k" "$dst" || exit 2
echo 0 > "$inst/tracing_on"

echo "expected: the holes at [0x10000, 0x20000) and [0x30000, 0x40000) map as HOLE"
echo "actual (iomap_iter_dstmap during the unshare):"
sed -n 's/.*iomap_iter_dstmap: //p' "$inst/trace" | sed 's/^/  /'
# A hole range mapped as anything but a HOLE.
bad=$(sed -n 's/.* offset \(0x[0-9a-f]*\) .* type \([A-Z]*\).*/\1 \2/p' "$inst/trace" |
	while read -r off type; do
		o=$((off))
		if { [ "$o" -ge 65536 ] && [ "$o" -lt 131072 ]; } ||
		   { [ "$o" -ge 196608 ] && [ "$o" -lt 262144 ]; }; then
			[ "$type" = HOLE ] || echo "$off"
		fi
	done | wc -l)
seen=$(grep -c 'iomap_iter_dstmap:' "$inst/trace")
[ "$seen" -gt 0 ] || { echo "no iomap_iter_dstmap event traced"; exit 2; }
if [ "$bad" -gt 0 ]; then
	echo reproduced
	exit 1
fi
echo "not reproduced"
exit 0
