#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# /init of contrib/fstests/vm.sh's guest: mount the pseudo filesystems,
# make the TEST_DEV filesystem on /dev/vda (SCRATCH_DEV is /dev/vdb), run
# fstests' ./check on the tests the kernel command line names (fst.tests=
# comma-separated, fst.fstyp=, fst.mkfs= base64-encoded), print its
# output and each failed test's diff to ttyS1, power off. The first line
# is the one scripts/vm/boot.bash waits for ("# iopath-vm: kernel"), the
# last "# iopath-vm: check exit N".
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs -o mode=0755 tmpfs /run
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
ln -sf /proc/self/mounts /etc/mtab
hostname guest
exec 3> /dev/ttyS1
stty -F /dev/ttyS1 raw -echo 2> /dev/null
say() { echo "$*" >&3; }

off() {
	sync
	busybox poweroff -f || echo o > /proc/sysrq-trigger
	exit 1
}

arg() { tr ' ' '\n' < /proc/cmdline | sed -n "s/^fst\\.$1=//p"; }
fstyp=$(arg fstyp)
mkfs=$(arg mkfs | base64 -d)
tests=$(arg tests | tr ',' ' ')
say "# iopath-vm: kernel $(uname -r) $(uname -v), fstests on $fstyp${mkfs:+ ($mkfs)}"
# shellcheck disable=SC2086 # the options are words
case $fstyp in
xfs) mkfs.xfs -q -f $mkfs /dev/vda ;;
ext4) mkfs.ext4 -q -F $mkfs /dev/vda ;;
*) false ;;
esac || { say "# iopath-vm: mkfs of TEST_DEV failed"; off; }
cat > /fstests/local.config << EOF
export FSTYP=$fstyp
export TEST_DEV=/dev/vda
export TEST_DIR=/mnt/test
export SCRATCH_DEV=/dev/vdb
export SCRATCH_MNT=/mnt/scratch
export MKFS_OPTIONS="$mkfs"
EOF
cd /fstests || off
# shellcheck disable=SC2086 # one word per test
./check $tests >&3 2>&1
rc=$?
for f in results/*/*.out.bad; do
	[ -f "$f" ] || continue
	t=${f#results/}
	say "# iopath-vm: diff of ${t%.out.bad}"
	diff -u "tests/${t%.bad}" "$f" | head -n 100 >&3
done
say "# iopath-vm: check exit $rc"
off
