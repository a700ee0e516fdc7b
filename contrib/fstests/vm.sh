#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run fstests tests in a QEMU guest booting KERNEL: how the tests of
# contrib/fstests are run on the kernels `iopath mutate --build-only`
# leaves (configs/kernel/iopath.config: everything built in, virtio
# disks, no modules), which cannot be booted on this machine itself.
#
# The guest's root is an initramfs: the host's Debian userland that
# fstests needs (bash, coreutils, util-linux, gawk, perl, xfsprogs,
# e2fsprogs ...), copied package by package with the libraries ldd
# names, plus the built fstests checkout without its .git and results.
# TEST_DEV and SCRATCH_DEV are virtio disks over sparse files in a
# temporary directory: nothing of the host is formatted. The guest is
# booted and watched by scripts/vm/boot.bash, as `iopath vm` does: it
# must reach /init within 180 s, print something at least every
# --idle-timeout seconds (a test that hangs), and end within --timeout;
# QEMU is killed and the temporary directory removed on every exit path,
# SIGINT and SIGTERM included.
#
# The guest's ./check output, then the diff of each failed test, comes
# on stdout as it arrives; the kernel console is checked for bug reports
# by `iopath kmsg scan` (IOPATH_BIN, else build/iopath).
#
# usage: vm.sh --kernel BZIMAGE --fstests DIR [--fstyp xfs|ext4]
#              [--mkfs OPTIONS] [--initrd FILE] [--accel tcg|kvm|auto]
#              [--timeout S] [--idle-timeout S] [--log FILE] [-v] TEST...
#   --initrd FILE   keep the initramfs there and reuse it when it exists
#                   (remove it after changing the checkout)
#   --log FILE      the kernel console, written when the guest has ended
#   -v              the kernel console on stderr as it arrives
#
# Exit: 0 when ./check passed and the console shows no kernel bug
# report, 1 otherwise (a test failed, the guest hung or panicked), 2 for
# bad usage.
set -u

prog="iopath: fstests vm"
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib/common.bash
. "$top/scripts/lib/common.bash"
# shellcheck source=scripts/vm/boot.bash
. "$top/scripts/vm/boot.bash"
# shellcheck source=scripts/vm/verdict.bash
. "$top/scripts/vm/verdict.bash"

# What the guest runs: fstests' check and common/ (bash, coreutils, awk,
# sed, grep, find, diff, bc, perl), the filesystems' tools, mount and
# losetup, ps/pkill, getfacl/setfattr, logger (check logs each test with
# it), and busybox for poweroff.
PACKAGES="bash coreutils util-linux mount gawk sed grep findutils diffutils xfsprogs
	e2fsprogs bc procps psmisc kmod attr acl perl-base libc-bin hostname
	busybox-static debianutils bsdutils"

kernel="" fstests="" fstyp=xfs mkfs="" initrd_keep=""
timeout_s=3600 boot_timeout_s=180 idle_timeout_s=900
accel=auto mem=2048 smp=2 log_out="" verbose=0 icount=0
tests=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel|--fstests|--fstyp|--mkfs|--initrd|--accel|--timeout|--idle-timeout|--log)
		[ $# -ge 2 ] || usage_error "$1 needs a value"
		case $1 in
		--kernel) kernel=$2 ;;
		--fstests) fstests=$2 ;;
		--fstyp) fstyp=$2 ;;
		--mkfs) mkfs=$2 ;;
		--initrd) initrd_keep=$2 ;;
		--accel) accel=$2 ;;
		--timeout) timeout_s=$2 ;;
		--idle-timeout) idle_timeout_s=$2 ;;
		--log) log_out=$2 ;;
		esac
		shift 2 ;;
	-v|--verbose) verbose=1; shift ;;
	-*) usage_error "unknown option '$1'" ;;
	*) tests+=("$1"); shift ;;
	esac
done
# What the words say first, then what they name.
[ ${#tests[@]} -gt 0 ] || usage_error "no test named (e.g. generic/789)"
for t in "${tests[@]}"; do
	[[ $t =~ ^[a-z0-9]+/[0-9]+$ ]] || usage_error "'$t' is not a test name like generic/789"
done
case $fstyp in xfs|ext4) ;; *) usage_error "--fstyp '$fstyp': xfs or ext4" ;; esac
# The options reach the guest's local.config, which bash reads.
[[ $mkfs =~ ^[-A-Za-z0-9_=,.:^/\ ]*$ ]] ||
	usage_error "--mkfs '$mkfs': only letters, digits, blanks and -_=,.:^/"
case $accel in tcg|kvm|auto) ;; *) usage_error "--accel '$accel': tcg, kvm or auto" ;; esac
check_value --timeout count:1:999999:seconds "$timeout_s"
check_value --idle-timeout count:1:999999:seconds "$idle_timeout_s"
[ -n "$kernel" ] || usage_error "--kernel BZIMAGE is required"
[ -f "$kernel" ] || usage_error "--kernel: '$kernel' is not a file"
[ -n "$fstests" ] || usage_error "--fstests DIR (a built fstests checkout) is required"
if [ ! -x "$fstests/check" ] || [ ! -x "$fstests/ltp/fsx" ]; then
	usage_error "--fstests: '$fstests' is not a built fstests checkout (no check or ltp/fsx)"
fi
for t in "${tests[@]}"; do
	[ -f "$fstests/tests/$t" ] || usage_error "no $t in $fstests/tests"
done
for f in "$initrd_keep" "$log_out"; do
	[ -n "$f" ] || continue
	why=$(out_refusal "$f")
	[ -z "$why" ] || usage_error "$why"
	# found now, not once the guest has run
	[ -d "$(dirname -- "$f")" ] ||
		usage_error "$(esc "$f"): directory $(esc "$(dirname -- "$f")"): No such file or directory"
done
for c in qemu-system-x86_64 cpio gzip dpkg-query ldd; do
	command -v "$c" > /dev/null || usage_error "$c not found (apt-get install qemu-system-x86 cpio)"
done
if [ -z "$initrd_keep" ] || [ ! -f "$initrd_keep" ]; then
	for p in $PACKAGES; do
		dpkg-query -W -f '${Status}' "$p" 2> /dev/null | grep -q ' installed$' ||
			usage_error "package $p is not installed (apt-get install $p)"
	done
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-fstests-vm.XXXXXX") || fail "cannot create a temporary directory"
cleanup() {
	stop_guest
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "$prog: interrupted" >&2; exit 130' INT
trap 'echo "$prog: terminated" >&2; exit 143' TERM

# put FILE [cp options]: FILE at the same path in the root. (Not cp
# --parents: with --preserve=mode, coreutils 9.1 fails on the directories
# it makes.)
put() {
	local f=$1
	shift
	mkdir -p "$root$(dirname "$f")" && cp "$@" "$f" "$root$f"
}

# copy_libs FILE...: the libraries ldd names for each FILE, into the root.
copy_libs() {
	local f lib
	for f in "$@"; do
		ldd "$f" 2> /dev/null | grep -oE '^[[:space:]]*/[^ ]+|=> /[^ ]+' |
			grep -oE '/[^ ]+' | while read -r lib; do
			[ -e "$root$lib" ] || put "$lib" -L || exit 1
		done || return 1
	done
}

# make_initrd: the guest's root, packed into $tmp/initrd.gz.
make_initrd() {
	local p f l t
	mkdir -p "$root"/usr/{bin,sbin,lib,lib64}
	# usrmerge: the packages list /bin/bash, /sbin/mkfs.xfs
	for p in bin sbin lib lib64; do
		ln -s "usr/$p" "$root/$p"
	done
	for p in $PACKAGES; do
		dpkg-query -L "$p" |
			grep -vE '^/usr/share/(doc|man|locale|info|lintian|bash-completion)/' |
			while read -r f; do
				if [ -f "$f" ] || [ -L "$f" ]; then
					put "$f" -a || exit 1
				fi
			done || return 1
	done
	# Debian's alternatives (awk is gawk): direct links to what is here.
	for l in /usr/bin/* /usr/sbin/*; do
		[ -L "$l" ] && [[ $(readlink "$l") == /etc/alternatives/* ]] || continue
		t=$(readlink -f "$l")
		[ -e "$root$t" ] && [ ! -e "$root$l" ] && ln -s "$t" "$root$l"
	done
	mkdir -p "$root/fstests"
	tar -C "$fstests" --exclude=./.git --exclude=./results --exclude=./local.config -cf - . |
		tar -C "$root/fstests" -xf - || return 1
	mapfile -t elfs < <(find "$root" -type f -perm -u+x)
	copy_libs "${elfs[@]}" || return 1
	mkdir -p "$root"/{proc,sys,dev,tmp,run,root,etc,mnt/test,mnt/scratch}
	[ -f /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$root/etc/"
	printf 'root:x:0:0:root:/root:/bin/bash\n' > "$root/etc/passwd"
	printf 'root:x:0:\n' > "$root/etc/group"
	printf '127.0.0.1 localhost guest\n' > "$root/etc/hosts"
	install -m 0755 "$top/contrib/fstests/vm-init.sh" "$root/init" || return 1
	(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$tmp/initrd.gz"
}

t0=$SECONDS
root=$tmp/root
if [ -n "$initrd_keep" ] && [ -f "$initrd_keep" ]; then
	echo "$prog: reusing $initrd_keep" >&2
	cp "$initrd_keep" "$tmp/initrd.gz" || fail "cannot read $initrd_keep"
else
	echo "$prog: building the guest's root from this host's packages and $fstests" >&2
	make_initrd || fail "cannot build the initramfs"
	rm -rf "$root"
	if [ -n "$initrd_keep" ]; then
		write_file "$initrd_keep" < "$tmp/initrd.gz" || exit 1
	fi
fi
t_prep=$((SECONDS - t0))

truncate -s 3G "$tmp/test.img" "$tmp/scratch.img" || fail "cannot create the disk images in $tmp"
qemu_extra=(-drive "if=virtio,format=raw,file=$tmp/test.img"
	-drive "if=virtio,format=raw,file=$tmp/scratch.img")
# The kernel command line has no quoting: the options go base64-encoded.
append="no_timer_check fst.fstyp=$fstyp fst.tests=$(IFS=,; echo "${tests[*]}")"
[ -n "$mkfs" ] && append+=" fst.mkfs=$(printf '%s' "$mkfs" | base64 -w0)"
acc=$(pick_accel)
vmlinuz=$kernel
kdesc="$kernel ($fstyp${mkfs:+ $mkfs}: ${tests[*]})"
boot_guest

rc_line=$(tr -d '\r' < "$tap" | grep -m1 '^# iopath-vm: check exit ')
build=$top/build
findings=$(kernel_log_findings)
if [ -n "$findings" ]; then
	echo "$prog: the kernel console shows a kernel bug report (lib/kmsg_patterns.h):" >&2
	head -n 5 <<< "$findings" | sed 's/^/  | /' >&2
fi
if [ -z "$rc_line" ]; then
	echo "$prog: $kdesc: $(guest_stop_reason)" >&2
	guest_stop_line
	echo "$prog: the kernel console's last lines:" >&2
	console_tail 20
	exit 1
fi
echo "$prog: $kdesc: ./check exit ${rc_line##* } (prepare ${t_prep} s, boot+run ${elapsed} s)" >&2
[ "${rc_line##* }" = 0 ] && [ -z "$findings" ]
