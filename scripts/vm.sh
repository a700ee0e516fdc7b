#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath vm: run the iopath selftests against another kernel under QEMU,
# without rebooting the machine. The kernel is a bzImage, a Debian kernel
# .deb, or a Debian package name fetched with apt-get download through a
# private sources list (the machine's apt configuration is never touched).
#
# What happens:
#   1. the kernel package (and, for Debian's split 7.x packages, its
#      linux-binary-* and linux-modules-* parts) is fetched and unpacked once
#      into BUILD/vm-cache/, depmod runs once on its modules;
#   2. an initramfs is assembled in a temporary directory: busybox-static,
#      the selftests in the installed kselftest layout (run_kselftest.sh,
#      kselftest-list.txt, iopath/), mkfs/fsck tools for ext4 and XFS with the
#      shared libraries ldd names, and the modules the selftests need (ext4,
#      xfs, loop, zram and their dependencies, decompressed, loaded in
#      dependency order by /init);
#   3. QEMU boots it: ttyS0 is the kernel console, ttyS1 carries only the
#      runner's TAP, which is streamed to stdout as it arrives;
#   4. /init ends with a result line; the exit status follows it.
#
# Limits: the guest must reach /init (--boot-timeout), then print something
# at least every --idle-timeout seconds, and finish within --timeout. A
# kernel that panics (panic=-1 plus -no-reboot ends QEMU at once) or hangs
# is a failure with the reason and the last console lines on stderr; QEMU
# is killed and the temporary directory removed on every exit path,
# including SIGINT and SIGTERM.
#
# The guest runs the selftests through scripts/selftest-runner.sh, the
# runner of every path: it probes the kernel (iopath_probe) and judges the
# judged by the verdict engine against selftests/requirements: a test that skips
# on a guest kernel that has every feature it needs fails the run (the
# folio-batch path test included: it decides from its trace whether the
# batch ran). The whole console log is checked for the kernel-log patterns
# of lib/kmsg_patterns.h, which the guest prints at loglevel 5 (warnings).
#
# Exit: 0 all passed, 1 a test failed or the guest did not finish, 2 bad
# usage or input.
set -u

prog="iopath: vm"
top=$(cd "$(dirname "$0")/.." && pwd)

# Modules the selftests need; their dependencies come from modules.dep.
# crc32c-intel / crc32c_generic: 6.x ext4 and XFS get crc32c through the
# crypto API, which would otherwise need request_module() in the guest.
# nd_e820, nd_pmem: the pmem region of the DAX tests (below).
VM_MODULES="crc32c-intel crc32c_generic libcrc32c loop zram ext4 xfs nd_e820 nd_pmem"
# Host tools the selftests run, copied with their libraries.
VM_TOOLS="mkfs.ext4 mke2fs e2fsck fsck.ext4 tune2fs dumpe2fs debugfs filefrag
	mkfs.xfs xfs_repair xfs_db xfs_io losetup blkid timeout"

# The parts, in the order they run; scripts/vm/init.sh is the guest's /init.
# shellcheck source=scripts/lib/common.bash
. "$top/scripts/lib/common.bash"
# shellcheck source=scripts/vm/options.bash
. "$top/scripts/vm/options.bash"
# shellcheck source=scripts/vm/fetch.bash
. "$top/scripts/vm/fetch.bash"
# shellcheck source=scripts/vm/initramfs.bash
. "$top/scripts/vm/initramfs.bash"
# shellcheck source=scripts/vm/boot.bash
. "$top/scripts/vm/boot.bash"
# shellcheck source=scripts/vm/verdict.bash
. "$top/scripts/vm/verdict.bash"

parse_args "$@"
check_args

# --lava-out DIR: the kernel and the initramfs a LAVA job boots, each
# written by write_file (a new file renamed into place), with their sha256.
write_lava_out() {
	local f
	write_file "$lava_out/vmlinuz" < "$vmlinuz" &&
		write_file "$lava_out/initrd.cpio.gz" < "$tmp/initrd.gz" || exit 1
	(cd "$lava_out" && sha256sum vmlinuz initrd.cpio.gz) | write_file "$lava_out/sha256" || exit 1
	for f in vmlinuz initrd.cpio.gz; do
		echo "$lava_out/$f"
	done
	echo "$prog: LAVA artefacts for $kdesc in $lava_out (prepared in ${t_prep} s)" >&2
}

# ---- temporary directory, QEMU and cleanup -------------------------------

tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-vm.XXXXXX") || fail "cannot create a temporary directory"
cleanup() {
	stop_guest
	rm -rf "$tmp"
}
trap cleanup EXIT
on_signal() {
	echo "$prog: $1" >&2
	exit "$2"
}
trap 'on_signal interrupted 130' INT
trap 'on_signal terminated 143' TERM

root=$tmp/root

t0=$SECONDS
resolve_kernel "$kernel"
acc=$(pick_accel)
if [ "$fetch_only" = 1 ]; then
	echo "$vmlinuz"
	exit 0
fi
if [ -n "$initrd_in" ]; then
	cp "$initrd_in" "$tmp/initrd.gz"
else
	build_initramfs
fi
t_prep=$((SECONDS - t0))
if [ -n "$lava_out" ]; then
	write_lava_out
	exit 0
fi
# An emulated pmem region for the DAX tests (selftests/dax_test.c): 384 MiB
# of the guest's RAM from its middle up, marked persistent memory (e820
# type 12, section-aligned); the legacy pmem driver makes it /dev/pmem0
# and /init names it as the DAX scratch device. 384 MiB: mkfs.xfs makes
# nothing under 300. Not for benchmarks (their boots share one command
# line and one memory size) nor with an initramfs of the caller's, and
# only where the guest keeps at least 1 GiB.
if [ "$bench" != 1 ] && [ -z "$initrd_in" ] && [ "$mem" -ge 1536 ]; then
	append="memmap=384M!$((mem / 2 / 128 * 128))M${append:+ $append}"
fi
boot_guest
save_tb_counts
report_result
