#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `iopath scratch` from the shell: unsafe devices are refused with one line
# and exit 2 and are not written; bad input exits 2 with one line;
# a command runs in the scratch filesystem and its exit status comes back.
#
# Catches: a refusal that still formats (the first MiB is checksummed
# around each refusal), IOPATH_SCRATCH_DEV or the force word honoured
# where they must not be (a mounted device stays refused even forced),
# a force word that does not work where it should (control: an unmounted
# device with ext4 is refused, then formatted when forced), multi-line or
# silent errors, an exit status that is not the command's, and a refusal
# that exits 1 (a failure) or, for a missing IOPATH_SCRATCH_DIR, 4 (a skip).
#
# usage: tests/scratch_cli.sh BUILD_DIR   (TAP on stdout; needs root)
set -u

build=${1:?usage: scratch_cli.sh BUILD_DIR}
iop=$build/iopath
run=/run/iopath

# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"

root_test "mount, loop, zram" scratch-cli "$iop"
img=$run/img/$$-c0.img
loopdev=
finish() {
	[ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null
	rm -f "$img"
	rm -rf "$tmp"
}
trap finish EXIT

sum() { head -c 1048576 "$1" 2>/dev/null | md5sum | cut -d' ' -f1; }

# refused NAME WANT_RC CMD...: CMD exits WANT_RC (or any non-zero for "fail")
# with exactly one line on stderr and nothing on stdout.
refused() {
	local name=$1 want=$2 rc lines
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if { [ "$want" = fail ] && [ "$rc" != 0 ]; } || [ "$rc" = "$want" ]; then
		if [ "$lines" = 1 ] && [ ! -s "$tmp/out" ]; then
			ok "$name"
			sed 's/^/# /' "$tmp/err"
			return
		fi
	fi
	not_ok "$name # exit $rc, $lines stderr lines"
	sed 's/^/# /' "$tmp/err" "$tmp/out"
}

# ---- the root disk ----------------------------------------------------

root=$(findmnt -n -o SOURCE /)
if [ -b "$root" ]; then
	disk=/dev/$(lsblk -n -o PKNAME "$root" 2>/dev/null | head -1)
	[ "$disk" = /dev/ ] && disk=$root
	before=$(sum "$root")
	refused scratch_cli.check.refuses_root_device 2 "$iop" scratch check "$root"
	refused scratch_cli.check.refuses_root_device_forced 2 "$iop" scratch check "$root" --force-mkfs
	refused scratch_cli.check.refuses_root_disk 2 "$iop" scratch check "$disk"
	refused scratch_cli.create.refuses_root_device_from_env 2 \
		env IOPATH_SCRATCH_DEV="$root" IOPATH_SCRATCH_FORCE_MKFS=yes-wipe-it \
		"$iop" scratch create --fs ext4 -- true
	if head -c 1 "$root" >/dev/null 2>&1; then
		[ "$before" = "$(sum "$root")" ]
		check $? "scratch_cli.root_device_unchanged"
	else
		n=$((n + 1))
		echo "ok $n scratch_cli.root_device_unchanged # SKIP $root cannot be read here"
	fi
else
	n=$((n + 1))
	echo "ok $n scratch_cli.check.refuses_root_device # SKIP / is not on a block device"
fi

# ---- bad input -----------------------------------------------------------

refused scratch_cli.check.not_a_block_device 2 "$iop" scratch check /dev/null
refused scratch_cli.check.no_device 2 "$iop" scratch check
refused scratch_cli.check.unknown_option 2 "$iop" scratch check --force /dev/null
refused scratch_cli.create.unknown_fs 2 "$iop" scratch create --fs btrfs -- true
refused scratch_cli.create.bad_size 2 "$iop" scratch create --fs ext4 --size 12q -- true
refused scratch_cli.create.bad_backing 2 "$iop" scratch create --fs ext4 --backing nvme -- true
refused scratch_cli.create.no_command 2 "$iop" scratch create --fs ext4 --
refused scratch_cli.create.bad_force_word 2 env IOPATH_SCRATCH_FORCE_MKFS=yes \
	"$iop" scratch create --fs ext4 -- true
refused scratch_cli.create.bad_env_size 2 env IOPATH_SCRATCH_SIZE=lots \
	"$iop" scratch create --fs ext4 -- true
refused scratch_cli.create.xfs_too_small 2 "$iop" scratch create --fs xfs --size 64m -- true
# a missing IOPATH_SCRATCH_DIR was exit 4 (a skip), a refused device exit 1
refused scratch_cli.create.missing_scratch_dir 2 env IOPATH_SCRATCH_DIR=/nonexistent \
	"$iop" scratch create --fs ext4 -- true
refused scratch_cli.unknown_subcommand 2 "$iop" scratch format /dev/null
refused scratch_cli.no_subcommand 2 "$iop" scratch

# ---- a command on a scratch filesystem -----------------------------------

for fs in ext4 xfs; do
	for backing in zram loop; do
		"$iop" scratch create --fs $fs --backing $backing -- sh -c '
			[ "$PWD" = "$IOPATH_MNT" ] || exit 10
			[ "$(findmnt -n -o FSTYPE "$IOPATH_MNT")" = "$1" ] || exit 11
			[ "$(findmnt -n -o SOURCE "$IOPATH_MNT")" = "$IOPATH_DEV" ] || exit 12
			echo data > f && [ "$(cat f)" = data ] || exit 13
			exit 7' sh $fs 2>"$tmp/err"
		rc=$?
		[ "$rc" = 7 ]
		check $? "scratch_cli.create.$backing.$fs.runs_command_in_mount # exit $rc"
		[ "$rc" = 7 ] || sed 's/^/# /' "$tmp/err"
	done
done
"$iop" scratch create --fs ext4 -- sh -c 'kill -TERM $$' 2>/dev/null
check $(( $? != 143 )) "scratch_cli.create.command_killed_by_signal_exit_143"

# ---- a mounted device, named as scratch -------------------------------
# The scratch of an outer run is a mounted device: the inner run must
# refuse it, even forced, and leave it as it was.

"$iop" scratch create --fs ext4 --backing loop --mount-opts noatime -- sh -c '
	iop=$1 tmp=$2
	sum() { head -c 1048576 "$1" | md5sum | cut -d" " -f1; }
	sync
	before=$(sum "$IOPATH_DEV")
	"$iop" scratch check "$IOPATH_DEV" >"$tmp/check.out" 2>"$tmp/check.err"
	echo $? >"$tmp/check.rc"
	IOPATH_SCRATCH_DEV=$IOPATH_DEV "$iop" scratch create --fs ext4 -- true \
		>"$tmp/env.out" 2>"$tmp/env.err"
	echo $? >"$tmp/env.rc"
	IOPATH_SCRATCH_DEV=$IOPATH_DEV IOPATH_SCRATCH_FORCE_MKFS=yes-wipe-it \
		"$iop" scratch create --fs xfs -- true >"$tmp/force.out" 2>"$tmp/force.err"
	echo $? >"$tmp/force.rc"
	sync
	[ "$before" = "$(sum "$IOPATH_DEV")" ] && echo same >"$tmp/sum"
	exit 0' sh "$iop" "$tmp" 2>"$tmp/outer.err"
check $? "scratch_cli.mounted.outer_run"
for what in check env force; do
	rc=$(cat "$tmp/$what.rc" 2>/dev/null)
	[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/$what.err")" = 1 ] && [ ! -s "$tmp/$what.out" ]
	check $? "scratch_cli.mounted.$what.refused_with_one_line # exit $rc"
	sed 's/^/# /' "$tmp/$what.err" 2>/dev/null
done
[ "$(cat "$tmp/sum" 2>/dev/null)" = same ]
check $? "scratch_cli.mounted.device_unchanged"

# ---- an unmounted device with a filesystem: refused, then forced ---------

mkdir -p "$run/img"
truncate -s 512M "$img" && loopdev=$(losetup -f --show "$img") && mkfs.ext4 -F -q "$loopdev" >/dev/null 2>&1
if [ -n "$loopdev" ]; then
	before=$(sum "$loopdev")
	refused scratch_cli.named_device.with_ext4_refused 2 env IOPATH_SCRATCH_DEV="$loopdev" \
		"$iop" scratch create --fs xfs -- true
	[ "$before" = "$(sum "$loopdev")" ]
	check $? "scratch_cli.named_device.with_ext4_unchanged"
	IOPATH_SCRATCH_DEV=$loopdev IOPATH_SCRATCH_FORCE_MKFS=yes-wipe-it \
		"$iop" scratch create --fs xfs -- sh -c '[ "$IOPATH_DEV" = "$1" ] &&
			[ "$(findmnt -n -o FSTYPE "$IOPATH_MNT")" = xfs ]' sh "$loopdev" 2>"$tmp/err"
	check $? "scratch_cli.named_device.forced_formats_it"
	sed 's/^/# /' "$tmp/err"
	losetup -l -n -O BACK-FILE "$loopdev" | grep -q "$img"
	check $? "scratch_cli.named_device.left_attached"
	"$iop" scratch check "$loopdev" >/dev/null 2>&1
	check $(( $? != 2 )) "scratch_cli.named_device.now_carries_xfs"
else
	n=$((n + 1))
	echo "ok $n scratch_cli.named_device # SKIP no loop device"
fi

# ---- a chroot into a plain directory ------------------------------------
# There / is not a mount point: its propagation cannot be changed, so a
# scratch mount would show in the host's namespace. Every scratch setup
# failed with "mount --make-rslave /: Invalid argument"; now the reason is
# named by a probe, and nothing is mounted. The chroot (iopath and its
# libraries, and /proc) lives in a mount namespace of the test's own.
croot=$tmp/chroot
if ! "$iop" scratch namespace 2> "$tmp/err"; then
	# make check itself in such a chroot: the probe must say so
	grep -q '/ is not a mount point' "$tmp/err"
	check $? "scratch_cli.plain_chroot.namespace_names_the_reason"
	sed 's/^/# /' "$tmp/err"
	skip scratch_cli.namespace_usable_where_root_is_a_mount_point "this is a plain chroot"
else
	ok scratch_cli.namespace_usable_where_root_is_a_mount_point
	mkdir -p "$croot/proc" "$croot/bin"
	cp "$iop" "$croot/bin/iopath"
	for lib in $(ldd "$iop" | grep -o '/[^ ]*'); do
		mkdir -p "$croot$(dirname "$lib")" && cp -L "$lib" "$croot$lib"
	done
	unshare -m sh -c 'mount --make-rprivate / && mount -t proc proc "$0/proc" &&
		exec chroot "$0" /bin/iopath scratch namespace' "$croot" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ "$rc" = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q '/ is not a mount point' "$tmp/err"
	check $? "scratch_cli.plain_chroot.namespace_names_the_reason"
	sed 's/^/# /' "$tmp/err"
fi

finish_tap
