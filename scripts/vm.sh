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
# The guest runs the collection's iopath_probe once and judges the run with
# scripts/tap-verdict.awk against selftests/requirements: a test that skips
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
VM_MODULES="crc32c-intel crc32c_generic libcrc32c loop zram ext4 xfs"
# Host tools the selftests run, copied with their libraries.
VM_TOOLS="mkfs.ext4 mke2fs e2fsck fsck.ext4 tune2fs dumpe2fs debugfs filefrag
	mkfs.xfs xfs_repair xfs_db xfs_io losetup blkid timeout"

usage() {
	cat <<EOF
usage: iopath vm --kernel KERNEL [options] [-- run_kselftest.sh options]

Boot KERNEL under QEMU with a busybox initramfs holding the iopath selftests,
run them with run_kselftest.sh, stream the TAP to stdout, exit with the result.

  --kernel K     a bzImage, a Debian kernel .deb, or a Debian package name
                 (linux-image-6.12.117+deb12-amd64, linux-image-amd64/bookworm,
                 linux-image-7.2.13+deb14-amd64 ...)
  --timeout S    limit for boot plus run, seconds (default 3600)
  --boot-timeout S  the guest must reach /init within S seconds (default 180)
  --idle-timeout S  ... and print something at least every S seconds (default 300)
  --test-timeout S  per test program, passed to run_kselftest.sh as -o when
                 its runner has that option (default: the collection's
                 settings timeout times 10, for TCG's slowdown)
  --accel A      tcg, kvm or auto (default auto: kvm only on a hardware KVM;
                 stock kernels do not boot under a software one such as PVM)
  --mem MB       guest memory (default 2048)
  --smp N        guest CPUs (default 2)
  --build DIR    build directory with selftests/ or kselftest/ (default build)
  --cache DIR    where fetched and unpacked kernels are kept (default
                 BUILD/vm-cache)
  --modules DIR  with a bzImage: a lib/modules/VERSION tree to take modules from
  --initrd FILE  boot this initramfs instead of building one
  --append ARGS  more kernel command line
  --log FILE     keep the kernel console log there
  --known-failures FILE  kernel bugs to report without failing the run
                 (default configs/known-failures; /dev/null: none)
  --env N=V      set N in the guest's environment (repeatable), e.g.
                 KSELFTEST_FOLIO_BATCH_TEST_ARGS="-t batch_path_taken":
                 run_kselftest.sh passes KSELFTEST_<PROGRAM>_ARGS to it
  -v, --verbose  kernel console to stderr as it arrives
  --fetch-only   fetch and unpack the kernel into the cache, print the
                 kernel image's path, boot nothing
  --repro        run the kernel bug reproducers (scripts/repro.sh, the
                 arguments after -- go to it) instead of the selftests
  after --:      passed to run_kselftest.sh, e.g. -t iopath:folio_batch_test

Packages are fetched from bookworm, bookworm-updates, bookworm-security and
sid on the mirrors the machine's own apt sources name (IOPATH_VM_MIRROR and
IOPATH_VM_SECURITY_MIRROR override them) and cached in BUILD/vm-cache.
EOF
}

usage_error() {
	echo "$prog: $*" >&2
	exit 2
}

fail() {
	echo "$prog: $*" >&2
	exit 1
}

kernel=""
timeout_s=3600
boot_timeout_s=180
idle_timeout_s=300
prog_timeout=""
accel=auto
mem=2048
smp=2
build=$top/build
cache=""
modules_dir=""
initrd_in=""
append=""
log_out=""
verbose=0
fetch_only=0
repro=0
guest_env=()
known_failures=$top/configs/known-failures
while [ $# -gt 0 ]; do
	case $1 in
	--kernel|--timeout|--boot-timeout|--idle-timeout|--test-timeout|--accel|--mem|--smp|--build|--modules|--initrd|--append|--log|--env|--cache|--known-failures)
		[ $# -ge 2 ] || usage_error "$1 needs a value"
		case $1 in
		--kernel) kernel=$2 ;;
		--timeout) timeout_s=$2 ;;
		--boot-timeout) boot_timeout_s=$2 ;;
		--idle-timeout) idle_timeout_s=$2 ;;
		--test-timeout) prog_timeout=$2 ;;
		--accel) accel=$2 ;;
		--mem) mem=$2 ;;
		--smp) smp=$2 ;;
		--build) build=$2 ;;
		--modules) modules_dir=$2 ;;
		--initrd) initrd_in=$2 ;;
		--append) append=$2 ;;
		--log) log_out=$2 ;;
		--cache) cache=$2 ;;
		--known-failures) known_failures=$2 ;;
		--env)
			[[ $2 =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] ||
				usage_error "--env '$2': expected NAME=VALUE"
			guest_env+=("$2") ;;
		esac
		shift 2 ;;
	--kernel=*) kernel=${1#*=}; shift ;;
	--timeout=*) timeout_s=${1#*=}; shift ;;
	-v|--verbose) verbose=1; shift ;;
	--fetch-only) fetch_only=1; shift ;;
	--repro) repro=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) usage_error "unknown option '$1' (see --help)" ;;
	esac
done
ksft_args=("$@")

[ -n "$kernel" ] || usage_error "--kernel is required (a bzImage, a .deb or a Debian package name)"
for v in "--timeout:$timeout_s" "--boot-timeout:$boot_timeout_s" "--idle-timeout:$idle_timeout_s" \
	 ${prog_timeout:+"--test-timeout:$prog_timeout"}; do
	[[ ${v#*:} =~ ^[1-9][0-9]{0,5}$ ]] || usage_error "${v%%:*} '${v#*:}': expected seconds, 1 to 999999"
done
[[ $mem =~ ^[1-9][0-9]{2,6}$ ]] || usage_error "--mem '$mem': expected megabytes, 100 or more"
[[ $smp =~ ^[1-9][0-9]?$ ]] || usage_error "--smp '$smp': expected 1 to 99 CPUs"
case $accel in tcg|kvm|auto) ;; *) usage_error "--accel '$accel': expected tcg, kvm or auto" ;; esac
[ -z "$initrd_in" ] || [ -f "$initrd_in" ] || usage_error "--initrd $initrd_in: no such file"
[ -z "$modules_dir" ] || [ -d "$modules_dir" ] || usage_error "--modules $modules_dir: no such directory"
[ -f "$known_failures" ] || [ "$known_failures" = /dev/null ] ||
	usage_error "--known-failures $known_failures: no such file"
# The guest reads it with the same awk script; a bad line is refused here.
kf_err=$(awk -v kernel= -f "$top/scripts/tap-verdict.awk" "$known_failures" /dev/null /dev/null /dev/null 2>&1 >/dev/null)
[ $? = 2 ] && usage_error "--known-failures ${kf_err}"

# Bad input is refused before anything is created or fetched.
case ${IOPATH_VM_TCG_THREAD:-single} in
single|multi) ;;
*) usage_error "IOPATH_VM_TCG_THREAD=$IOPATH_VM_TCG_THREAD: single or multi" ;;
esac
check_kernel_arg() {
	local k=$1
	if [ -f "$k" ]; then
		case $k in
		*.deb)
			dpkg-deb -f "$k" Package >/dev/null 2>&1 || usage_error "--kernel $k: not a valid .deb"
			;;
		*)
			is_bzimage "$k" || usage_error "--kernel $k: not a bzImage (no HdrS boot header) and not a .deb"
			if [ -n "$modules_dir" ]; then
				[ -d "$modules_dir/kernel" ] || usage_error "--modules $modules_dir: no kernel/ directory in it"
				[ -f "$modules_dir/modules.dep" ] ||
					usage_error "--modules $modules_dir: no modules.dep (run depmod on it)"
			fi
			;;
		esac
	elif [[ $k == */* && ! $k =~ ^[a-z0-9][a-z0-9.+-]*/[a-z-]+$ ]] || [[ $k == *.deb ]]; then
		usage_error "--kernel $k: no such file"
	elif [[ ! $k =~ ^[a-z0-9][a-z0-9.+-]+(/[a-z-]+)?$ ]]; then
		usage_error "--kernel '$k': not a file and not a Debian package name"
	fi
	if [ -n "$modules_dir" ] && { [ ! -f "$k" ] || [[ $k == *.deb ]]; }; then
		usage_error "--modules goes with a bzImage, not with a package"
	fi
}

is_bzimage() {
	[ "$(dd if="$1" bs=1 skip=514 count=4 2>/dev/null)" = HdrS ]
}
check_kernel_arg "$kernel"
build=$(mkdir -p "$build" && cd "$build" && pwd) || usage_error "--build $build: cannot use that directory"

for t in qemu-system-x86_64 cpio gzip dpkg-deb depmod busybox ldd flock; do
	command -v "$t" >/dev/null 2>&1 || [ -x "/bin/$t" ] ||
		fail "$t not found; run 'scripts/deps.sh vm' (as root it installs what is missing)"
done
busybox_bin=$(command -v busybox || echo /bin/busybox)

cache=${cache:-$build/vm-cache}
mkdir -p "$cache/debs" "$cache/kernels" && cache=$(cd "$cache" && pwd) ||
	usage_error "--cache $cache: cannot use that directory"

# ---- temporary directory, QEMU and cleanup -------------------------------

tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-vm.XXXXXX") || fail "cannot create a temporary directory"
qpid=""
tail_pids=()
cleanup() {
	local p
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill -TERM "$qpid" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$qpid" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
	fi
	for p in "${tail_pids[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
on_signal() {
	echo "$prog: $1" >&2
	exit "$2"
}
trap 'on_signal interrupted 130' INT
trap 'on_signal terminated 143' TERM

# ---- fetching Debian kernel packages --------------------------------------

apt_dir=$cache/apt

# The first URI of the machine's apt sources whose path ends in /$1.
host_mirror() {
	{
		grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources |
			awk '{ for (i = 2; i <= NF; i++) print $i }'
		grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
			sed 's/\[[^]]*\]//' | awk '{ print $2 }'
	} | grep -E "/$1/?\$" | head -n 1
}

apt_setup() {
	local m s key=""
	[ -f "$apt_dir/sources.list" ] && return 0
	m=${IOPATH_VM_MIRROR:-$(host_mirror debian)}
	s=${IOPATH_VM_SECURITY_MIRROR:-$(host_mirror debian-security)}
	[ -n "$m" ] || fail "no Debian mirror in /etc/apt sources; set IOPATH_VM_MIRROR=URL"
	[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] &&
		key="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	{
		echo "deb $key$m bookworm main"
		echo "deb $key$m bookworm-updates main"
		[ -n "$s" ] && echo "deb $key$s bookworm-security main"
		echo "deb $key$m sid main"
	} > "$apt_dir/sources.list.new"
	mv "$apt_dir/sources.list.new" "$apt_dir/sources.list"
}

apt_opts() {
	printf '%s\n' -q -o "Dir::Etc::sourcelist=$apt_dir/sources.list" \
		-o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$apt_dir/lists" \
		-o "Dir::Cache=$apt_dir/cache" \
		-o APT::Sandbox::User=root -o APT::Get::AllowUnauthenticated=false
}

apt_update() {
	local -a o
	mapfile -t o < <(apt_opts)
	echo "$prog: updating the package lists of the private apt state in $apt_dir" >&2
	apt-get "${o[@]}" update > "$tmp/apt-update.log" 2>&1 ||
		fail "apt-get update failed: $(grep -E '^(E|W):' "$tmp/apt-update.log" | head -n 1)"
	touch "$tmp/apt-updated"
}

# fetch_deb NAME[/SUITE]: print the path of the cached .deb, downloading it
# (newest candidate) if needed. Exit 2 if no suite has it.
fetch_deb() {
	local name=$1 ver file dl
	local -a o
	mapfile -t o < <(apt_opts)
	apt_setup
	# Refresh lists older than a day: old lists point at removed files.
	if [ ! -f "$tmp/apt-updated" ] &&
	   [ -z "$(find "$apt_dir/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
		apt_update
	fi
	ver=$(apt-cache "${o[@]}" show --no-all-versions "$name" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
	if [ -z "$ver" ] && [ ! -f "$tmp/apt-updated" ]; then
		apt_update
		ver=$(apt-cache "${o[@]}" show --no-all-versions "$name" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
	fi
	[ -n "$ver" ] || usage_error "--kernel: no package '$name' in bookworm, bookworm-updates, bookworm-security or sid"
	file=$(ls "$cache/debs/${name%%/*}_${ver//:/%3a}_"*.deb 2>/dev/null | head -n 1)
	if [ -z "$file" ]; then
		echo "$prog: downloading $name $ver" >&2
		dl=$tmp/dl
		rm -rf "$dl"
		mkdir -p "$dl"
		(cd "$dl" && apt-get "${o[@]}" download "$name" > "$tmp/apt-download.log" 2>&1) ||
			fail "apt-get download $name failed: $(grep -E '^(E|W):' "$tmp/apt-download.log" | head -n 1)"
		file=$(ls "$dl"/*.deb | head -n 1)
		mv "$file" "$cache/debs/"
		file=$cache/debs/$(basename "$file")
	fi
	echo "$file"
}

# The kernel-image parts a .deb depends on: a meta package
# (linux-image-amd64) names the real image package, Debian's 7.x
# linux-image-* names linux-binary-* and linux-modules-*.
deb_kernel_deps() {
	dpkg-deb -f "$1" Depends | tr ',|' '\n\n' | sed 's/(.*//; s/[[:space:]]//g' |
		grep -E '^linux-(image|binary|modules)-' || true
}

# collect_debs (NAME | FILE): every .deb that makes up the kernel, one a line.
collect_debs() {
	local want=("$1") seen=" " item deb dep sib
	while [ ${#want[@]} -gt 0 ]; do
		item=${want[0]}
		want=("${want[@]:1}")
		case $seen in *" $item "*) continue ;; esac
		seen="$seen$item "
		if [ -f "$item" ]; then
			deb=$item
		else
			deb=$(fetch_deb "$item") || exit $?
		fi
		echo "$deb"
		for dep in $(deb_kernel_deps "$deb"); do
			# A .deb given as a file: its parts may sit next to it.
			sib=$(ls "$(dirname "$item")/${dep}_"*.deb 2>/dev/null | head -n 1)
			if [ -f "$item" ] && [ -n "$sib" ]; then
				want+=("$sib")
			else
				want+=("$dep")
			fi
		done
	done
}

# unpack_kernel DEB...: unpack into the cache once (keyed by the .deb names),
# run depmod there; prints the directory.
unpack_kernel() {
	local key dir d ver base debs=()
	# Meta and documentation-only packages (linux-image-amd64, Debian
	# 7.x's linux-image-*) carry nothing to boot: leave them out of the key,
	# so a kernel reached through different names is unpacked once.
	for d in "$@"; do
		[ "$(dpkg-deb -f "$d" Installed-Size 2>/dev/null || echo 0)" -ge 1000 ] && debs+=("$d")
	done
	[ ${#debs[@]} -gt 0 ] || debs=("$@")
	set -- "${debs[@]}"
	key=$(for d in "$@"; do basename "$d" .deb; done | sort | md5sum | cut -c1-12)
	key=$(basename "$1" .deb | sed 's/_amd64$//')-$key
	dir=$cache/kernels/$key
	if [ ! -f "$dir/.done" ]; then
		echo "$prog: unpacking $(for d in "$@"; do basename "$d"; done | tr '\n' ' ')" >&2
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp/root"
		for d in "$@"; do
			dpkg-deb -x "$d" "$dir.tmp/root" || fail "$(basename "$d"): not a valid .deb"
		done
		for base in "$dir.tmp/root" "$dir.tmp/root/usr"; do
			for d in "$base"/lib/modules/*/kernel; do
				[ -d "$d" ] || continue
				ver=$(basename "$(dirname "$d")")
				depmod -b "$base" "$ver" 2>/dev/null ||
					fail "depmod failed on the modules of $ver"
			done
		done
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
		touch "$dir/.done"
	fi
	echo "$dir"
}

vmlinuz=""
moddir=""	# lib/modules/VERSION with modules.dep, or empty
kdesc=""

resolve_kernel() {
	local k=$1 debs list dir d resolved
	if [ -f "$k" ] && [[ $k != *.deb ]]; then
		vmlinuz=$(cd "$(dirname "$k")" && pwd)/$(basename "$k")
		kdesc=$(basename "$k")
		[ -n "$modules_dir" ] && moddir=$(cd "$modules_dir" && pwd)
		return 0
	fi
	# Two runs may fetch and unpack the same kernel at once.
	exec 9> "$cache/.lock"
	flock 9
	# What a name resolved to is kept until the package lists change, so a
	# cached kernel costs no apt-cache run (seconds each on sid's lists).
	resolved=$cache/resolved/${k//\//_}
	if [ ! -f "$k" ] && [ -f "$resolved" ] && [ ! "$apt_dir/lists" -nt "$resolved" ] &&
	   xargs -r ls < "$resolved" >/dev/null 2>&1; then
		mapfile -t debs < "$resolved"
	else
		list=$(collect_debs "$k") || exit $?
		mapfile -t debs <<< "$list"
		if [ ! -f "$k" ]; then
			mkdir -p "$cache/resolved"
			printf '%s\n' "${debs[@]}" > "$resolved"
		fi
	fi
	dir=$(unpack_kernel "${debs[@]}") || exit $?
	exec 9>&-
	vmlinuz=$(ls "$dir"/root/boot/vmlinuz-* "$dir"/root/usr/lib/modules/*/vmlinuz \
		  "$dir"/root/lib/modules/*/vmlinuz 2>/dev/null | head -n 1)
	[ -n "$vmlinuz" ] || usage_error "--kernel $k: the package holds no kernel image (vmlinuz)"
	for d in "$dir"/root/lib/modules/* "$dir"/root/usr/lib/modules/*; do
		[ -f "$d/modules.dep" ] && moddir=$d && break
	done
	kdesc=${moddir:+$(basename "$moddir")}
	kdesc=${kdesc:-$(basename "$vmlinuz")}
}

# ---- the initramfs ---------------------------------------------------------

root=$tmp/root

# copy_with_libs FILE [DEST]: FILE at DEST (default: the same path) in the
# initramfs, plus every shared library ldd resolves for it.
copy_with_libs() {
	local f=$1 dest=${2:-$1} lib
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$f" "$root$dest"
	ldd "$f" 2>/dev/null | grep -oE '(/[^ ]+)' | while read -r lib; do
		[ -f "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# The installed kselftest layout: BUILD/kselftest if `make kselftest-install`
# made it, else laid out here from BUILD/selftests and the harness.
stage_selftests() {
	local dst=$root/iopath/kselftest src=$build/kselftest ksft t n=0 fresh=1
	# A selftest rebuilt after the last kselftest-install wins over the
	# installed copy.
	for t in "$build"/selftests/*_test; do
		[ "$t" -nt "$src/kselftest-list.txt" ] && fresh=0
	done
	if [ "$fresh" = 1 ] && [ -x "$src/run_kselftest.sh" ] && [ -f "$src/kselftest-list.txt" ]; then
		mkdir -p "$dst"
		cp -a "$src/." "$dst/"
	else
		[ -d "$build/selftests" ] ||
			fail "no selftests in $build (run 'make selftests' or 'make kselftest-install')"
		ksft=$("$top/scripts/ksft-harness.sh" "$build") || fail "no kselftest harness (scripts/ksft-harness.sh)"
		mkdir -p "$dst/kselftest" "$dst/iopath"
		cp "$ksft/run_kselftest.sh" "$dst/"
		cp "$ksft"/kselftest/* "$dst/kselftest/"
		for t in "$build"/selftests/*_test; do
			[ -x "$t" ] || continue
			cp "$t" "$dst/iopath/"
			echo "iopath:$(basename "$t")"
		done > "$dst/kselftest-list.txt"
		cp "$build/selftests/iopath_probe" "$dst/iopath/" ||
			fail "no $build/selftests/iopath_probe (run 'make selftests')"
		cp "$top/selftests/config" "$top/selftests/settings" "$top/selftests/requirements" "$dst/iopath/"
	fi
	for t in "$dst"/iopath/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		n=$((n + 1))
		ldd "$t" 2>/dev/null | grep -oE '(/[^ ]+)' | while read -r lib; do
			[ -f "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	done
	[ "$n" -gt 0 ] || fail "no selftest binaries in $dst/iopath (is the selftests build empty?)"
}

# iopath repro in the guest: the runner, the reproducers and the iopath
# binary for its scratch filesystems, in a tree like the checkout's.
stage_repro() {
	local dst=/iopath/repro
	[ -x "$build/iopath" ] || fail "no $build/iopath (run make)"
	copy_with_libs "$build/iopath" "$dst/build/iopath"
	mkdir -p "$root$dst/scripts" "$root$dst/reproducers"
	cp "$top/scripts/repro.sh" "$root$dst/scripts/"
	cp "$top"/reproducers/*.sh "$root$dst/reproducers/"
	touch "$root/etc/iopath-vm/repro"
}

# The modules of VM_MODULES that exist, with their dependencies, dependencies
# first, decompressed into the initramfs; /etc/iopath-vm/modules lists the
# load order.
stage_modules() {
	local ver m rel dep order=() seen=" " dst
	: > "$root/etc/iopath-vm/modules"
	[ -n "$moddir" ] || return 0
	ver=$(basename "$moddir")
	add_module() {	# rel path from modules.dep; dependencies first
		local r=$1 line d
		case $seen in *" $r "*) return ;; esac
		seen="$seen$r "
		line=$(grep -E "^$(printf '%s' "$r" | sed 's/[.+]/\\&/g'):" "$moddir/modules.dep")
		for d in ${line#*:}; do
			add_module "$d"
		done
		order+=("$r")
	}
	for m in $VM_MODULES; do
		rel=$(grep -oE "^[^:]*/$m\\.ko(\\.xz|\\.zst|\\.gz)?:" "$moddir/modules.dep" | head -n 1)
		[ -n "$rel" ] && add_module "${rel%:}"
	done
	for rel in "${order[@]}"; do
		dst=$root/lib/modules/$ver/${rel%.*}
		case $rel in
		*.ko.xz) dst=$root/lib/modules/$ver/${rel%.xz}; mkdir -p "$(dirname "$dst")"; xz -dc "$moddir/$rel" > "$dst" ;;
		*.ko.zst) dst=$root/lib/modules/$ver/${rel%.zst}; mkdir -p "$(dirname "$dst")"; zstd -qdc "$moddir/$rel" > "$dst" ;;
		*.ko.gz) dst=$root/lib/modules/$ver/${rel%.gz}; mkdir -p "$(dirname "$dst")"; gzip -dc "$moddir/$rel" > "$dst" ;;
		*) dst=$root/lib/modules/$ver/$rel; mkdir -p "$(dirname "$dst")"; cp "$moddir/$rel" "$dst" ;;
		esac || fail "cannot decompress $rel"
		echo "${dst#"$root"}" >> "$root/etc/iopath-vm/modules"
	done
	# For request_module() from the guest kernel (busybox modprobe).
	depmod -b "$root" "$ver" 2>/dev/null || true
}

write_init() {
	cat > "$root/init" <<'EOF'
#!/bin/sh
# iopath VM guest: mount the pseudo filesystems, load the modules, run the
# selftests through run_kselftest.sh with TAP on ttyS1, print the result line,
# power off. Written by scripts/vm.sh.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# What udev would make; the runner writes to /dev/stdout.
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo /sbin/modprobe > /proc/sys/kernel/modprobe

# TAP goes to the second serial port; the kernel console stays on the first.
if ! exec 3>/dev/ttyS1; then
	exec 3>/dev/console
fi
stty -F /dev/ttyS1 raw -echo 2>/dev/null
say() { echo "$*" >&3; }

say "# iopath-vm: kernel $(uname -r) ($(uname -v)), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) " MB" }' /proc/meminfo)"
while read -r m; do
	# EEXIST: already loaded on demand; ENODEV: the CPU lacks the
	# instructions (crc32c-intel without SSE4.2).
	insmod "$m" 2>/tmp/insmod.err ||
		grep -qE 'File exists|No such device' /tmp/insmod.err ||
		say "# iopath-vm: insmod $m: $(cat /tmp/insmod.err)"
done < /etc/iopath-vm/modules

if [ -f /etc/iopath-vm/repro ]; then
	set --
	while IFS= read -r a; do
		set -- "$@" "$a"
	done < /etc/iopath-vm/args
	IOPATH_KNOWN_FAILURES=/etc/iopath-vm/known-failures \
		/iopath/repro/scripts/repro.sh --result-line "$@" >&3 2>&1
	sync
	poweroff -f
	echo o > /proc/sysrq-trigger
fi

# The kernel's features, probed once: what the requirements are judged by.
if ! /iopath/kselftest/iopath/iopath_probe > /tmp/features 2>/tmp/probe.err; then
	say "# iopath-vm: iopath_probe failed: $(cat /tmp/probe.err)"
	echo "probe-failed no" > /tmp/features
fi
while read -r f; do
	say "# iopath-vm: feature $f"
done < /tmp/features

. /etc/iopath-vm/env
set --
while IFS= read -r a; do
	set -- "$@" "$a"
done < /etc/iopath-vm/args
cd /iopath/kselftest
start=$(cut -d' ' -f1 /proc/uptime)
./run_kselftest.sh "$@" 2>&1 | tee /tmp/tap >&3
end=$(cut -d' ' -f1 /proc/uptime)

# The verdict: scripts/tap-verdict.awk, with the known kernel bugs of
# configs/known-failures and the tests this kernel must not skip.
awk -v kernel="$(uname -r)" -v tag=iopath-vm -v result=IOPATH-VM-RESULT -v coverage=1 \
	-v start="$start" -v end="$end" -f /etc/iopath-vm/tap-verdict.awk \
	/etc/iopath-vm/known-failures /iopath/kselftest/iopath/requirements /tmp/features /tmp/tap >&3
sync
poweroff -f
echo o > /proc/sysrq-trigger
EOF
	chmod 0755 "$root/init"
}

build_initramfs() {
	local a t p
	mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,etc/iopath-vm,proc,sys,dev,run,tmp,root,iopath}
	# usrmerge layout, so a tool found at /sbin or /usr/sbin on the host
	# resolves the same way in the guest.
	ln -s usr/bin "$root/bin"
	ln -s usr/sbin "$root/sbin"
	ln -s usr/lib "$root/lib"
	ln -s usr/lib64 "$root/lib64"
	cp "$busybox_bin" "$root/usr/bin/busybox"
	for t in $VM_TOOLS; do
		p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$t") || continue
		copy_with_libs "$p" "/usr/${p#/usr}"
		[[ $p == /usr/sbin/* || $p == /sbin/* ]] && [ ! -e "$root/usr/sbin/$t" ] &&
			ln -s "../${p#/usr/}" "$root/usr/sbin/$t" 2>/dev/null
	done
	# Busybox for everything else. /usr/bin/timeout must stay GNU's: the
	# kselftest runner calls it with --foreground.
	for a in $("$root/usr/bin/busybox" --list); do
		[ -e "$root/usr/bin/$a" ] || [ -e "$root/usr/sbin/$a" ] || ln -s busybox "$root/usr/bin/$a"
	done
	[ -f /etc/mke2fs.conf ] && cp /etc/mke2fs.conf "$root/etc/"
	[ -d /usr/share/xfsprogs ] && mkdir -p "$root/usr/share" && cp -a /usr/share/xfsprogs "$root/usr/share/"
	echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
	echo 'root:x:0:' > "$root/etc/group"
	if [ "$repro" = 1 ]; then
		stage_repro
	else
		stage_selftests
	fi
	stage_modules
	# Everything runs several times slower under TCG than on hardware:
	# stretch the collection's per-program timeout unless told otherwise.
	local st dst=$root/iopath/kselftest o=()
	if [[ " ${ksft_args[*]} " != *" -o "* && " ${ksft_args[*]} " != *" --override-timeout "* ]] &&
	   grep -qs -- '--override-timeout' "$dst/run_kselftest.sh"; then
		st=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' "$dst/iopath/settings" 2>/dev/null | tail -n 1)
		o=(-o "${prog_timeout:-$(( ${st:-45} * 10 ))}")
	elif [ -n "$prog_timeout" ]; then
		echo "$prog: this run_kselftest.sh has no --override-timeout; --test-timeout ignored" >&2
	fi
	printf '%s\n' "${o[@]}" "${ksft_args[@]}" | sed '/^$/d' > "$root/etc/iopath-vm/args"
	local e
	for e in "${guest_env[@]}"; do
		# export NAME='VALUE', single quotes escaped
		printf "export %s='%s'\n" "${e%%=*}" "$(printf '%s' "${e#*=}" | sed "s/'/'\\\\''/g")"
	done > "$root/etc/iopath-vm/env"
	cp "$top/scripts/tap-verdict.awk" "$root/etc/iopath-vm/tap-verdict.awk" || return 1
	cp "$known_failures" "$root/etc/iopath-vm/known-failures" || return 1
	write_init
	(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$tmp/initrd.gz" ||
		fail "cannot pack the initramfs"
}

# ---- boot ------------------------------------------------------------------

pick_accel() {
	case $accel in
	tcg|kvm) echo "$accel" ;;
	auto)
		# A hardware KVM boots stock kernels; a software one (PVM on a
		# nested host) does not, and TCG is the safe choice.
		if [ -w /dev/kvm ] && { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; } &&
		   grep -qwE 'vmx|svm' /proc/cpuinfo; then
			echo kvm
		else
			echo tcg
		fi ;;
	esac
}

t0=$SECONDS
resolve_kernel "$kernel"
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
acc=$(pick_accel)
# TCG's "max" CPU has SSE4.2, PCLMUL and AVX2, as the kernels expect.
cpu=(-cpu max)
[ "$acc" = kvm ] && cpu=(-cpu host)
echo "$prog: booting $kdesc ($acc, ${mem} MB, $smp CPUs, limit ${timeout_s} s; prepared in ${t_prep} s)" >&2

console=$tmp/console
tap=$tmp/tap
: > "$console"
: > "$tap"
accel_opt=$acc
# One host thread for all guest CPUs. With a thread per vCPU (MTTCG), a
# vCPU can execute a stale INT3 that x86 text patching (jump labels,
# static calls) planted and already removed on another vCPU: "Oops: int3"
# at a tracepoint site (__schedule, trace_sched_wakeup) when tracing is
# switched on, then a panic. docs/efficacy.md has the measurements.
[ "$acc" = tcg ] && accel_opt=tcg,thread=${IOPATH_VM_TCG_THREAD:-single}
qemu-system-x86_64 -accel "$accel_opt" "${cpu[@]}" -m "$mem" -smp "$smp" \
	-nodefaults -nographic -no-reboot -monitor none \
	-serial "file:$console" -serial "file:$tap" \
	-kernel "$vmlinuz" -initrd "$tmp/initrd.gz" \
	-append "console=ttyS0 panic=-1 rdinit=/init loglevel=5 $append" \
	< /dev/null > "$tmp/qemu.out" 2>&1 &
qpid=$!
boot_start=$SECONDS

# Stream: TAP to stdout, the kernel console to stderr with -v (without the
# firmware's terminal escapes and the serial line's carriage returns).
strip_esc=$'s/\x1b\\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g; s/\r//g'
tail -s 0.2 -n +1 -f --pid="$qpid" "$tap" 2>/dev/null |
	sed -u 's/\r$//' &
tail_pids+=($!)
if [ "$verbose" = 1 ]; then
	tail -s 0.2 -n +1 -f --pid="$qpid" "$console" 2>/dev/null | sed -u "$strip_esc" >&2 &
	tail_pids+=($!)
fi

# Three limits: the guest must reach /init within the boot limit, then
# print something (TAP or kernel console) at least every idle-limit seconds,
# and finish within the overall limit.
timed_out=""
done_at=""
booted=0
last_size=0
last_change=$SECONDS
while kill -0 "$qpid" 2>/dev/null; do
	now=$SECONDS
	# Plain assignments, not $(...) inside $((...)): bash parses the latter
	# when it runs it, and a SIGTERM landing in that parse broke the trap.
	tap_size=$(stat -c %s "$tap")
	console_size=$(stat -c %s "$console")
	size=$((tap_size + console_size))
	if [ "$size" != "$last_size" ]; then
		last_size=$size
		last_change=$now
	fi
	if [ "$booted" = 0 ] && grep -q '^# iopath-vm: kernel' "$tap"; then
		booted=1
	fi
	if [ $((now - boot_start)) -ge "$timeout_s" ]; then
		timed_out="no result within the ${timeout_s} s limit"
	elif [ "$booted" = 0 ] && [ $((now - boot_start)) -ge "$boot_timeout_s" ]; then
		timed_out="the kernel did not reach /init within ${boot_timeout_s} s (hung at boot?)"
	elif [ "$booted" = 1 ] && [ $((now - last_change)) -ge "$idle_timeout_s" ]; then
		timed_out="no output from the guest for ${idle_timeout_s} s (hung?)"
	fi
	[ -n "$timed_out" ] && break
	# The guest powers off right after its result line; give it a little.
	if [ -z "$done_at" ] && grep -q '^# IOPATH-VM-RESULT:' "$tap"; then
		done_at=$now
	elif [ -n "$done_at" ] && [ $((now - done_at)) -ge 30 ]; then
		break
	fi
	sleep 0.2
done
if kill -0 "$qpid" 2>/dev/null; then
	kill -TERM "$qpid" 2>/dev/null
	sleep 0.5
	kill -KILL "$qpid" 2>/dev/null
fi
wait "$qpid" 2>/dev/null
qrc=$?
qpid=""
for p in "${tail_pids[@]}"; do
	wait "$p" 2>/dev/null
done
tail_pids=()
elapsed=$((SECONDS - boot_start))
[ -n "$log_out" ] && { cp "$console" "$log_out" || echo "$prog: cannot write $log_out" >&2; }

result=$(tr -d '\r' < "$tap" | grep '^# IOPATH-VM-RESULT:' | tail -n 1)
console_tail() {
	sed "$strip_esc" "$console" | grep -v '^[[:space:]]*$' | tail -n "${1:-20}" | sed 's/^/  | /' >&2
}
if [ -z "$result" ]; then
	panic=$(tr -d '\r' < "$console" | grep -m1 -oE 'Kernel panic - not syncing: .*')
	if [ -n "$timed_out" ]; then
		echo "$prog: $kdesc: $timed_out; QEMU killed after ${elapsed} s" >&2
	elif [ -n "$panic" ]; then
		echo "$prog: $kdesc: the guest kernel panicked after ${elapsed} s: ${panic#Kernel panic - not syncing: }" >&2
	elif [ "$qrc" != 0 ] && [ ! -s "$console" ]; then
		echo "$prog: $kdesc: QEMU failed (exit $qrc): $(tail -n 1 "$tmp/qemu.out")" >&2
	else
		echo "$prog: $kdesc: the guest stopped after ${elapsed} s without a result line" >&2
	fi
	echo "$prog: last kernel console lines:" >&2
	console_tail 20
	exit 1
fi

field() { sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p" <<< "$result"; }

# The console lines lib/kmsg.c would call a kernel bug report: the same
# list (lib/kmsg_patterns.h), the same rules (anywhere, at a word start,
# at the line start), after the console's timestamp.
kernel_log_findings() {
	local patterns=$top/lib/kmsg_patterns.h
	[ -r "$patterns" ] || { echo "$patterns: cannot read the kernel-log patterns"; return; }
	tr -d '\r' | awk -v plist="$patterns" '
		BEGIN {
			while ((getline l < plist) > 0) {
				if (l !~ /^IOP_KMSG_[A-Z_]+\("/)
					continue
				kind = l; sub(/\(.*/, "", kind)
				text = l; sub(/^[^"]*"/, "", text); sub(/".*/, "", text)
				n++; pk[n] = kind; pt[n] = text
			}
		}
		{
			line = $0
			sub(/^<[0-9]+>/, "", line)
			sub(/^\[ *[0-9]+\.[0-9]+\] /, "", line)
			for (i = 1; i <= n; i++) {
				at = index(line, pt[i])
				if (!at)
					continue
				if (pk[i] == "IOP_KMSG_LINE_START" && at != 1)
					continue
				if (pk[i] == "IOP_KMSG_WORD" && at > 1 &&
				    substr(line, at - 1, 1) ~ /[A-Za-z0-9_]/)
					continue
				print line
				next
			}
		}'
}
status=$(field status)
known=$(field known)
kn=""
[ "${known:-0}" != 0 ] && kn=" $known known,"
echo "vm: $(field passed) passed, $(field failed) failed,$kn $(field skipped) skipped" \
	"($(field programs) programs on $kdesc, $acc; prepare ${t_prep} s, boot+run ${elapsed} s)" >&2
bad_console=$(kernel_log_findings < "$console")
if [ -n "$bad_console" ]; then
	echo "$prog: the kernel console shows a kernel bug report (lib/kmsg_patterns.h):" >&2
	head -n 5 <<< "$bad_console" | sed 's/^/  | /' >&2
	status=fail
fi
if [ "$status" = fail ] && [ "$(field required_missing)" != 0 ]; then
	echo "$prog: $(field required_missing) required test(s) skipped on a kernel that has what they need:" >&2
	tr -d '\r' < "$tap" | sed -n 's/^# iopath-vm: \(required: .*\)/  \1/p' >&2
fi
if [ "${known:-0}" != 0 ]; then
	echo "$prog: known kernel bugs of this kernel (configs/known-failures) failed as expected:" >&2
	tr -d '\r' < "$tap" | sed -n 's/^# iopath-vm: known failure on [^:]*: /  /p' >&2
fi
if [ "$(field stale_known)" != 0 ] && [ -n "$(field stale_known)" ]; then
	tr -d '\r' < "$tap" | sed -n 's/^# iopath-vm: \(known failure did not reproduce: .*\)/'"$prog"': \1/p' >&2
fi
# The summary ends with the coverage block: the guest's, then the console.
tr -d '\r' < "$tap" | sed -n 's/^# iopath-vm: coverage: /coverage: /p' >&2
echo "coverage: kernel console of the whole run (loglevel=5): $([ -n "$bad_console" ] && echo FAIL || echo "ran, clean")" >&2
[ "$status" = pass ] && exit 0
exit 1
