# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# scripts/vm.sh's command line: parse_args sets the options' globals,
# check_args refuses bad input before anything is created or fetched.

usage() {
	cat <<EOF
usage: iopath vm --kernel KERNEL [options] [-- run_kselftest.sh options]

Boot KERNEL under QEMU with a busybox initramfs holding the iopath selftests,
run them with run_kselftest.sh, stream the TAP to stdout, exit with the result.

  --kernel K     a bzImage, a Debian kernel .deb, or a Debian package name
                 (linux-image-6.12.117+deb12-amd64, linux-image-amd64/bookworm,
                 linux-image-7.2.13+deb14-amd64 ...)
  --timeout S    limit for boot plus run, seconds (default 3600); this and
                 every limit below: 1 to 999999 seconds
  --boot-timeout S  the guest must reach /init within S seconds (default 180)
  --idle-timeout S  ... and print something at least every S seconds (default 300);
                 after a kernel bug report on the console, only test output counts
  --test-timeout S  per test program, passed to run_kselftest.sh as -o when
                 its runner has that option (default: the collection's
                 settings timeout times 10, for TCG's slowdown)
  --accel A      tcg, kvm or auto (default auto: kvm only on a hardware KVM;
                 stock kernels do not boot under a software one such as PVM)
  --mem MB       guest memory, 100 to 1048576 (default 2048)
  --smp N        guest CPUs, 1 to 99 (default 2)
  --build DIR    build directory with selftests/ or kselftest/ (default build,
                 or an installed tree's PREFIX/libexec/iopath)
  --cache DIR    where fetched and unpacked kernels are kept (default
                 BUILD/vm-cache; installed: /var/cache/iopath/vm as root)
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
  --lava-out DIR  boot nothing: write the kernel (vmlinuz) and an initramfs
                 for a LAVA test shell (initrd.cpio.gz: /init leaves a shell
                 on the console, /iopath/lava/run runs the selftests) into
                 DIR, for iopath lava jobs; the arguments after -- and
                 --env are those of the job
  --repro        run the kernel bug reproducers (scripts/repro.sh, the
                 arguments after -- go to it) instead of the selftests
  --bench        run 'iopath bench' in the guest (the arguments after -- go
                 to it) on scratch filesystems the guest makes on its own
                 zram, instead of the selftests; needs --records
  --records FILE with --bench: the guest's records (JSON Lines) go there
  --icount       count instructions: TCG with -icount shift=0,sleep=off, so
                 the guest clock advances 1 ns per instruction executed and
                 the records' clock domain is "instructions" (docs/ab.md);
                 without it records are in wall time
  --seed HEX     the guest's seed (iopath.seed= on its command line, all the
                 randomness of an --icount guest); default: drawn at random
                 with --icount, none without. Boots given one seed are a
                 pair to iopath compare (iopath ab gives boot i of A and of B one)
  --tb-counts FILE  under TCG: load the block-counting plugin
                 (BUILD/qemu-plugin/tbcount.so, make qemu-plugin) and write
                 each kernel translation block's address range and
                 execution count there (iopath tbprof reads it); inline
                 counters, so an --icount guest's count is unchanged
  --rtc-base T   with --icount: the guest's clock starts at T (UTC,
                 YYYY-MM-DDTHH:MM:SS, a date from 1970-01-01T00:00:00 to
                 2099-12-31T23:59:59: the years a Linux guest reads from
                 the PC's RTC; QEMU adjusts a field out of range instead
                 of refusing it) instead of the host's time now. The
                 guest's date is input too (file times, journal stamps):
                 iopath ab gives both boots of a pair one, so that A and
                 B do not differ in when each happened to start
  after --:      passed to run_kselftest.sh, e.g. -t iopath:folio_batch_test

Packages are fetched from bookworm, bookworm-updates, bookworm-security and
sid on the mirrors the machine's own apt sources name (IOPATH_VM_MIRROR and
IOPATH_VM_SECURITY_MIRROR override them) and cached in BUILD/vm-cache.
EOF
}


# parse_args "$@": the options, then ksft_args (what follows --).
parse_args() {
	kernel=""
	timeout_s=3600
	boot_timeout_s=180
	idle_timeout_s=300
	prog_timeout=""
	accel=auto
	mem=2048
	smp=2
	build=$(default_build)
	cache=""
	modules_dir=""
	initrd_in=""
	append=""
	log_out=""
	verbose=0
	fetch_only=0
	repro=0
	lava_out=""
	bench=0
	records_out=""
	icount=0
	seed=""
	rtc_base=""
	tb_counts=""
	guest_env=()
	known_failures=$top/configs/known-failures
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel|--timeout|--boot-timeout|--idle-timeout|--test-timeout|--accel|--mem|--smp|--build|--modules|--initrd|--append|--log|--env|--cache|--known-failures|--lava-out|--records|--seed|--rtc-base|--tb-counts)
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
			--records) records_out=$2 ;;
			--seed) seed=$2 ;;
			--rtc-base) rtc_base=$2 ;;
			--tb-counts) tb_counts=$2 ;;
			--cache) cache=$2 ;;
			--known-failures) known_failures=$2 ;;
			--lava-out) lava_out=$2 ;;
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
		--bench) bench=1; shift ;;
		--icount) icount=1; shift ;;
		-h|--help) usage; exit 0 ;;
		--) shift; break ;;
		*) usage_error "unknown option '$1' (see --help)" ;;
		esac
	done
	ksft_args=("$@")
}

# default_build: the checkout's build/, or in a `make install` tree (no
# build/ beside scripts/) PREFIX/libexec/iopath, where the collection is
# (its kselftest/, as BUILD/kselftest in a checkout).
default_build() {
	if [ ! -d "$top/build" ] && [ -f "$top/../../libexec/iopath/kselftest/kselftest-list.txt" ]; then
		(cd "$top/../../libexec/iopath" && pwd)
	else
		echo "$top/build"
	fi
}

# default_cache: BUILD/vm-cache in a checkout; an installed tree's
# libexec is not for downloads: /var/cache/iopath/vm as root, else the
# user's cache directory.
default_cache() {
	if [ "$build" != "$(cd "$top/../../libexec/iopath" 2>/dev/null && pwd)" ]; then
		echo "$build/vm-cache"
	elif [ "$(id -u)" = 0 ]; then
		echo /var/cache/iopath/vm
	else
		echo "${XDG_CACHE_HOME:-$HOME/.cache}/iopath/vm"
	fi
}

check_args() {
	[ -n "$kernel" ] || usage_error "--kernel is required (a bzImage, a .deb or a Debian package name)"
	# Counts and the date by the C parsers (iopath value), never a
	# pattern: one took --rtc-base 9999-99-99T99:99:99, which QEMU
	# turns into another date.
	for v in "--timeout:$timeout_s" "--boot-timeout:$boot_timeout_s" "--idle-timeout:$idle_timeout_s" \
		 ${prog_timeout:+"--test-timeout:$prog_timeout"}; do
		check_value "${v%%:*}" count:1:999999:seconds "${v#*:}"
	done
	check_value --mem count:100:1048576:megabytes "$mem"
	check_value --smp count:1:99:CPUs "$smp"
	case $accel in tcg|kvm|auto) ;; *) usage_error "--accel '$accel': expected tcg, kvm or auto" ;; esac
	[ -z "$seed" ] || [[ $seed =~ ^[0-9a-f]{1,64}$ ]] ||
		usage_error "--seed '$(esc "$seed")': expected 1 to 64 lowercase hex digits"
	[ -z "$rtc_base" ] || check_value --rtc-base date "$rtc_base"
	[ -z "$rtc_base" ] || [ "$icount" = 1 ] || usage_error "--rtc-base goes with --icount"
	[ -z "$initrd_in" ] || [ -f "$initrd_in" ] || usage_error "--initrd $initrd_in: no such file"
	# written by write_file: a link at a name is refused before anything runs
	for f in ${log_out:+"$log_out"} ${lava_out:+"$lava_out/vmlinuz" "$lava_out/initrd.cpio.gz" "$lava_out/sha256"}; do
		why=$(out_refusal "$f")
		[ -z "$why" ] || usage_error "$why"
	done
	# found now, not when the guest has run and the log is written
	[ -z "$log_out" ] || [ -d "$(dirname -- "$log_out")" ] ||
		usage_error "--log $(esc "$log_out"): directory $(esc "$(dirname -- "$log_out")"): No such file or directory"
	if [ -n "$lava_out" ]; then
		[ -d "$lava_out" ] || usage_error "--lava-out $lava_out: no such directory"
		[ "$repro" = 0 ] && [ -z "$initrd_in" ] || usage_error "--lava-out goes with neither --repro nor --initrd"
	fi
	[ -z "$modules_dir" ] || [ -d "$modules_dir" ] || usage_error "--modules $modules_dir: no such directory"
	[ -f "$known_failures" ] || [ "$known_failures" = /dev/null ] ||
		usage_error "--known-failures $known_failures: no such file"
	# The guest reads it with the same engine; a bad line or ERE is refused here.
	kf_err=$(known_failures_list "$known_failures" 2>&1 >/dev/null)
	[ $? != 0 ] && usage_error "--known-failures $known_failures: ${kf_err%%$'\n'*}"
	check_tcg_thread
	check_kernel_arg "$kernel"
	usable_dir --build "$build"
	build=$(cd "$build" && pwd)
	check_bench_args
	check_tb_counts
	cache=${cache:-$(default_cache)}
	usable_dir --cache "$cache" debs kernels

	# What is missing, with the command that installs it: what boots the
	# guest is not needed to fetch and unpack a kernel (apt and dpkg-deb),
	# nor to stage a kernel and an initramfs for LAVA (--lava-out).
	if [ "$fetch_only" = 0 ]; then
		local group=vm boot=qemu-system-x86_64
		[ -z "$lava_out" ] || group=initramfs boot=""
		"$top/scripts/deps.sh" --check "$group" || exit 1
		for t in $boot cpio gzip dpkg-deb depmod busybox ldd flock; do
			command -v "$t" >/dev/null 2>&1 || [ -x "/bin/$t" ] ||
				fail "$t not found; run 'scripts/deps.sh $group' (as root it installs what is missing)"
		done
	fi
	busybox_bin=$(command -v busybox || echo /bin/busybox)
	cache=$(cd "$cache" && pwd)
	apt_dir=$cache/apt
}

# usable_dir OPTION DIR [SUB...]: DIR (and DIR/SUB...) made where missing,
# with its parents; a name that is not a directory, or one that cannot
# be made, is one line naming OPTION, not mkdir's lines and then ours.
# known_failures_list FILE: the list checked by the verdict engine the
# guest judges with (iopath verdict: the binary that runs this, else the
# build's, else the collection's static helper).
known_failures_list() {
	local v
	for v in "${IOPATH_BIN:-}" "$build/iopath" "$top/build/iopath" \
		"$build/selftests/iopath_verdict" "$build/kselftest/iopath/iopath_verdict"; do
		[ -n "$v" ] && [ -x "$v" ] || continue
		case $v in
		*/iopath_verdict) "$v" --list "$1" ;;
		*) "$v" verdict --list "$1" ;;
		esac
		return
	done
	echo "no verdict engine (iopath verdict) to check it with: run make" >&2
	return 2
}

usable_dir() {
	local opt=$1 d=$2 s err
	shift 2
	for s in "" "$@"; do
		[ ! -e "$d${s:+/$s}" ] || [ -d "$d${s:+/$s}" ] || usage_error "$opt $(esc "$d"${s:+/$s}): not a directory"
	done
	err=$(mkdir -p -- "$d" "${@/#/$d/}" 2>&1) ||
		usage_error "$opt $(esc "$d"): cannot make it: $(esc "$(head -n 1 <<< "$err" | sed 's/^mkdir: //')")"
}

# --bench, --records and --icount: what goes with what, and the benchmark
# arguments checked by the same binary the guest runs (--dry-run), so a
# benchmark the guest does not have is refused before anything boots. The
# guest makes its scratch on a zram device of its own: the check is made
# for that backing, whatever the host's environment names.
check_bench_args() {
	if [ "$icount" = 1 ]; then
		[ "$accel" != kvm ] || usage_error "--icount needs TCG: KVM runs guest code on the host CPU, uncounted"
		accel=tcg
	fi
	if [ "$bench" = 0 ]; then
		[ -z "$records_out" ] || usage_error "--records goes with --bench"
		return 0
	fi
	[ "$repro" = 0 ] || usage_error "--bench and --repro exclude each other"
	[ -n "$records_out" ] || usage_error "--bench needs --records FILE"
	[ ${#ksft_args[@]} -gt 0 ] || usage_error "--bench needs a benchmark or --profile after --"
	[ -x "$build/iopath" ] || fail "no $build/iopath (run make)"
	local why
	why=$(out_refusal "$records_out")
	[ -z "$why" ] || usage_error "--records $why"
	[ -d "$(dirname -- "$records_out")" ] || usage_error "--records $records_out: no such directory"
	local err
	err=$(env -u IOPATH_SCRATCH_DIR -u IOPATH_SCRATCH_DEV IOPATH_BACKING=zram \
		"$build/iopath" bench --dry-run --quiet --out - "${ksft_args[@]}" 2>&1 >/dev/null) ||
		usage_error "--bench: $(head -n 1 <<< "$err" | sed 's/^iopath: bench: //')"
}

# --tb-counts: the plugin is TCG's, built (make qemu-plugin), and its
# path and the output's name are ones QEMU's option syntax and
# write_file take as they are.
check_tb_counts() {
	local why
	[ -n "$tb_counts" ] || return 0
	[ "$accel" != kvm ] || usage_error "--tb-counts needs TCG: under KVM no translation block is seen"
	accel=tcg
	[ -z "$lava_out" ] || usage_error "--tb-counts boots the guest here: not with --lava-out"
	why=$(out_refusal "$tb_counts")
	[ -z "$why" ] || usage_error "--tb-counts $(esc "$why")"
	[ -d "$(dirname -- "$tb_counts")" ] || usage_error "--tb-counts $(esc "$tb_counts"): no such directory"
	tb_plugin=$build/qemu-plugin/tbcount.so
	[[ $tb_plugin != *,* ]] || usage_error "--build $(esc "$build"): a comma in the path (QEMU's -plugin option splits there)"
	[ -f "$tb_plugin" ] || fail "no $(esc "$tb_plugin") (run make qemu-plugin)"
}

# Bad input is refused before anything is created or fetched.
check_tcg_thread() {
	case ${IOPATH_VM_TCG_THREAD:-single} in
	single|multi) ;;
	*) usage_error "IOPATH_VM_TCG_THREAD=$IOPATH_VM_TCG_THREAD: single or multi" ;;
	esac
}

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
