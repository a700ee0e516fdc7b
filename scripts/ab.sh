#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath ab: is kernel B faster than kernel A, in one command. Each side is
# a kernel in any form `iopath vm --kernel` takes, or is built from one
# source tree with and without a patch (scripts/lib/kbuild.bash, the small
# configuration iopath mutate builds). The boots come in pairs: boot i of
# A and boot i of B get one seed (iopath vm --seed), so that whatever the
# seed decides in the guest is the same on both sides, and they run next
# to each other in time, so that drift in the host hits both alike. In
# each boot the benchmarks run inside the guest (`iopath vm --bench`: the
# iopath binary in the initramfs, scratch filesystems on the guest's own
# zram) and their records come back over the console, where `iopath
# records check` checks them. `iopath compare` then tests the sides on the
# differences within pairs, once, and writes the report, its JSON and one
# verdict line per benchmark, for a commit message.
#
# Under icount the two boots of a pair run at the same time, one guest per
# host CPU (--jobs): an instruction count does not depend on the load
# beside it. Under KVM they run one after the other.
#
# The clock domain: under KVM the guest clock is wall time. Without a
# usable KVM the guest runs under QEMU TCG with icount, where its clock
# advances 1 ns per instruction executed, so every time per operation is
# an instruction count (docs/ab.md says what that does and does not
# measure). Records carry their domain, and every record of a run must be
# in the domain it was run for.
#
# What it does not do: judge a single boot, or a side whose boots failed.
# A boot that fails, hangs or sends no records fails the run with that
# boot named; nothing is averaged over it.
#
# The kernel builder and the VM are commands (IOPATH_AB_BUILDER,
# IOPATH_AB_VM), so tests/ab.sh runs all of this with fakes.
#
# Exit: 0 a verdict was reached (whatever it says), 1 a build, boot or
# benchmark failed, 2 bad usage or input.
set -u

prog="iopath: ab"
top=$(cd "$(dirname "$0")/.." && pwd)
# usage_error, fail, write_file
# shellcheck source=scripts/lib/common.bash
. "$top/scripts/lib/common.bash"
# fetch_source, check_patch, tree_probe, configure, build_kernel, kbuild_deps
# shellcheck source=scripts/lib/kbuild.bash
. "$top/scripts/lib/kbuild.bash"
# explain_check, explain_plugin, explain_report
# shellcheck source=scripts/lib/explain.bash
. "$top/scripts/lib/explain.bash"

usage() {
	cat <<EOF
usage: iopath ab (--a KERNEL --b KERNEL | --ksrc DIR [--patch-a FILE] [--patch FILE]
                  | --ksrc DIR --calibrate)
                 [options] (--profile NAME | -- BENCH [param=value ...])

Boot kernels A and B in pairs under QEMU (boot i of each with one seed), run
the benchmark in each boot, compare the sides on the differences within
pairs, and print one verdict line per benchmark.

  --a K, --b K     the two kernels: a bzImage, a Debian kernel .deb or a
                   Debian package name (as iopath vm --kernel takes)
  --ksrc DIR       build both from this kernel tree with the small config
                   (tinyconfig + configs/kernel/iopath.config); 'debian':
                   Debian unstable's newest linux-source-7.x, fetched
  --patch FILE     with --ksrc: B is the tree with FILE applied
  --patch-a FILE   with --ksrc: A is the tree with FILE applied (e.g. one
                   that puts the old code back, B being the tree as it is)
  --calibrate      with --ksrc: A is the tree as it is, and B in turn each
                   planted change of configs/mutants/perf/plant-*-N.patch
                   (N = 1, 3, 10, 30 instructions per operation on every
                   A/B profile's measured path, scripts/plant.sh), each
                   checked in its vmlinux to add N instructions; one A/B
                   per size, then the table: planted, measured, CI,
                   detected (OUT/calibrate.tsv)
  --profile NAME   the benchmarks of configs/bench/NAME.conf (or a path)
  --boots N        boots per side, 1 to 99 (default 3): N pairs, A and B of
                   each with one seed, pair after pair
  --target-ci P    stop adding pairs once the 95% CI of every verdict metric
                   is narrower than +-P% (checked from 2 pairs), or at --boots;
                   P above 0 and at most 100
  --accel A        tcg (instructions), kvm (wall time) or auto (default: kvm
                   where a hardware KVM works, else tcg)
  --out DIR        records, logs and the report (a new directory; default
                   results/ab-<time>-<pid>)
  --work DIR       the build tree and state (default /var/cache/iopath/ab)
  --build DIR      iopath build directory: the iopath binary the guests run
                   (default build)
  --timeout S      limit for one boot, 1 to 99999 seconds (default 900)
  --jobs N         host CPUs to use (default: all, nproc): make -j N, and
                   under icount N guests at once (the two boots of a pair
                   side by side); under KVM the boots run one at a time
  --explain        under TCG: count every kernel translation block in each
                   boot (the tbcount QEMU plugin, make qemu-plugin) and
                   list the functions whose instructions per operation
                   changed, A and B with 95% CIs, largest first
                   (OUT/explain.txt, iopath tbprof explain)
  --per FUNC       with --explain: an operation is an entry into FUNC
                   (repeatable); default: configs/ab/explain-per's
                   function for the benchmark
  --map-a F, --map-b F  with --explain and --a/--b: the kernels'
                   System.map (with --ksrc, the build's own)
  after --:        the benchmark and its parameters, as iopath bench takes them

Environment: IOPATH_AB_BUILDER (a command run as "BUILDER SRC OBJ JOBS",
replacing make), IOPATH_AB_VM (a command taking scripts/vm.sh's arguments).
EOF
}

# note MESSAGE: a progress line; what came from outside in it escaped.
note() {
	echo "$prog: $(esc "$*")" >&2
}

ncpu=$(nproc 2>/dev/null || echo 1)

ka=""
kb=""
ksrc=""
patch_a=""
patch_b=""
profile=""
boots=3
accel=auto
out=""
work=/var/cache/iopath/ab
timeout_s=900
jobs=$ncpu
target_ci=""
calibrate=0
explain=0
per=()
map_a=""
map_b=""
build=$top/build
bench_args=()
while [ $# -gt 0 ]; do
	case $1 in
	--a|--b|--ksrc|--patch|--patch-a|--profile|--boots|--accel|--out|--work|--build|--timeout|--jobs|--target-ci|--per|--map-a|--map-b)
		[ $# -ge 2 ] || usage_error "$(esc "$1") needs a value"
		case $1 in
		--a) ka=$2 ;;
		--b) kb=$2 ;;
		--ksrc) ksrc=$2 ;;
		--patch) patch_b=$2 ;;
		--patch-a) patch_a=$2 ;;
		--profile) profile=$2 ;;
		--boots) boots=$2 ;;
		--accel) accel=$2 ;;
		--out) out=$2 ;;
		--work) work=$2 ;;
		--build) build=$2 ;;
		--timeout) timeout_s=$2 ;;
		--jobs) jobs=$2 ;;
		--target-ci) target_ci=$2 ;;
		--per) per+=("$2") ;;
		--map-a) map_a=$2 ;;
		--map-b) map_b=$2 ;;
		esac
		shift 2 ;;
	--calibrate) calibrate=1; shift ;;
	--explain) explain=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; bench_args=("$@"); break ;;
	*) usage_error "unknown argument '$(esc "$1")' (--help lists the options)" ;;
	esac
done

# ---- bad input is refused before anything is built, booted or created -----

builder=${IOPATH_AB_BUILDER:-}
vm=${IOPATH_AB_VM:-$top/scripts/vm.sh}
d=$(cd -- "$build" 2>/dev/null && pwd) || usage_error "--build: no directory $(esc "$build")"
build=$d
iopath=$build/iopath
[ -x "$iopath" ] || fail "no $(esc "$iopath") (run make)"
child=""
declare -A guest_pid=()
last_s=0

if [ "$calibrate" = 1 ]; then
	[ -n "$ksrc" ] || usage_error "--calibrate builds the planted kernels: give --ksrc"
	[ -z "$patch_a$patch_b" ] || usage_error "--calibrate plants its own changes: no --patch or --patch-a"
fi
if [ -n "$ksrc" ]; then
	[ -z "$ka$kb" ] || usage_error "--ksrc builds both sides: no --a or --b with it"
	[ -n "$patch_a$patch_b" ] || [ "$calibrate" = 1 ] ||
		usage_error "--ksrc needs --patch or --patch-a: the sides would be the same kernel"
else
	[ -n "$ka" ] && [ -n "$kb" ] || usage_error "give --a and --b, or --ksrc with --patch (--help)"
	[ -z "$patch_a$patch_b" ] || usage_error "--patch and --patch-a go with --ksrc"
fi
for p in "$patch_a" "$patch_b"; do
	[ -z "$p" ] && continue
	[ -f "$p" ] && [ ! -L "$p" ] || usage_error "--patch $(esc "$p"): not a regular file"
done
# Counts and percentages by the C parsers (iopath value): a pattern took
# --target-ci 150, and ran two boot pairs before compare refused it.
check_value --boots count:1:99 "$boots"
check_value --timeout count:1:99999:seconds "$timeout_s"
check_value --jobs "count:1:$ncpu:CPUs (the CPUs there are)" "$jobs"
[ -z "$target_ci" ] || check_value --target-ci percent "$target_ci"
case $accel in tcg|kvm|auto) ;; *) usage_error "--accel '$(esc "$accel")': expected tcg, kvm or auto" ;; esac
# The guest's bench cuts a name at a control character and says no more.
[[ $profile != *[[:cntrl:]]* ]] || usage_error "--profile '$(esc "$profile")': a control character in the name"
# An output name is printed in every message and list of files: the one
# check of scripts/lib/common.bash.
! has_control "$out" || usage_error "--out $(esc "$out"): a control character in the name (refused: it would be printed raw)"
for a in "${bench_args[@]}"; do
	[[ $a != *[[:cntrl:]]* ]] || usage_error "the benchmark: '$(esc "$a")': a control character in it"
done
if [ -n "$profile" ]; then
	[ ${#bench_args[@]} = 0 ] || usage_error "give --profile or a benchmark after --, not both"
	bench_args=(--profile "$profile")
fi
[ ${#bench_args[@]} -gt 0 ] || usage_error "no benchmark: --profile NAME or -- BENCH [param=value ...]"
# A patch only changes regular files inside the tree: read whole by
# iopath patch check (lib/patch.c) before anything is made; the tree's
# side of it (no link on the way to a name) once the tree is there.
for p in "$patch_a" "$patch_b"; do
	[ -z "$p" ] && continue
	err=$("$iopath" patch check -- "$p" 2>&1 >/dev/null) || usage_error "--patch ${err#iopath: patch: }"
done
# The guest runs this same binary: what it refuses, the guest would.
err=$("$iopath" bench --dry-run --quiet --out - "${bench_args[@]}" 2>&1 >/dev/null) ||
	usage_error "the benchmark: $(esc_line "$(head -n 1 <<< "$err" | sed 's/^iopath: bench: //')")"
for t in sha256sum flock setsid; do
	command -v "$t" >/dev/null || fail "$t not found; run 'scripts/deps.sh base'"
done

# The clock domain follows from the accelerator.
accel=$(pick_accel)
explain_check
# Side by side only where the clock is the guest's own: under icount a
# count does not depend on what runs beside the guest; in wall time it
# would.
if [ "$accel" = tcg ]; then
	domain=instructions
	vm_clock=(--accel tcg --icount)
	guests=$jobs
else
	domain=wall
	vm_clock=(--accel kvm)
	guests=1
fi

if [ -z "$out" ]; then
	out=$top/results/ab-$(date -u +%Y%m%dT%H%M%SZ)-$$
	mkdir -p "$top/results" || fail "cannot create $top/results"
fi
[ -L "$out" ] && usage_error "--out $(esc "$out"): a symlink"
[ ! -e "$out" ] || usage_error "--out $(esc "$out"): exists; give a new directory"
[ -d "$(dirname -- "$out")" ] || usage_error "--out $(esc "$out"): no directory $(esc "$(dirname -- "$out")")"
case $work in /*) ;; *) work=$PWD/$work ;; esac
why=$(work_refusal)
[ -z "$why" ] || usage_error "$(esc "$why")"

if [ -n "$ksrc" ] && [ "$ksrc" != debian ]; then
	check_ksrc
fi
# A kernel named by a path that is there but is no regular file (a fifo,
# a directory, a device) is bad input, refused before the packages are
# asked for; anything else is iopath vm's to resolve (a package name, a
# .deb, a bzImage).
for k in --a:"$ka" --b:"$kb"; do
	v=${k#*:}
	[ -n "$v" ] && { [ -e "$v" ] || [ -L "$v" ]; } && [ ! -f "$v" ] &&
		usage_error "${k%%:*} $(esc "$v"): not a regular file"
done
# With --ksrc the kernels are patched and built here (the builder of
# IOPATH_AB_BUILDER replacing make); the guests boot under iopath vm
# unless IOPATH_AB_VM replaces it. What is missing is named before the
# source is fetched or anything is made in WORK.
kbuild=0
[ -n "$ksrc" ] && kbuild=1
boot=1
[ -n "${IOPATH_AB_VM:-}" ] && boot=0
kbuild_deps "$kbuild" "$kbuild" "$boot" || exit 1

# ---- the work directory and its lock -----------------------------------------

[ "$explain" = 0 ] || explain_plugin

state=$work/state
logs=$work/logs
obj=$work/obj
err=$(work_mkdir "$state" "$logs" 2>&1) ||
	usage_error "--work $(esc "$work"): cannot make it: $(esc "$(head -n 1 <<< "$err" | sed 's/^mkdir: //')")"
# The lock is the work directory itself: a lock file would be one more
# name opened through a planted link.
exec 8< "$work"
flock -n 8 || fail "another iopath ab is running on $(esc "$work")"
kbuild_state

on_exit() {
	local p
	stop_child
	for p in "${guest_pid[@]}"; do
		kill -TERM "$p" 2>/dev/null && wait "$p"
	done
}
trap on_exit EXIT
trap 'note interrupted; exit 130' INT
trap 'note terminated; exit 143' TERM

# Where the time of an A/B goes, phase by phase (OUT/phases.tsv and the
# last note): what to cut first is what dominates.
phases=()
phase_t0=$SECONDS
run_t0=$SECONDS
phase() {
	phases+=("$1"$'\t'"$((SECONDS - phase_t0))")
	phase_t0=$SECONDS
}

if [ "$ksrc" = debian ]; then
	ksrc=$(fetch_source) || exit 1
	phase fetch
fi
plants=()
plant_files=()
if [ "$calibrate" = 1 ]; then
	# One kernel per size, every site planted: each profile's measured
	# path calls its own site once per operation and no other site.
	for n in $("$top/scripts/plant.sh" --sizes); do
		new_file "$state/plant-$n.patch" || exit 1
		cat "$top"/configs/mutants/perf/plant-*-"$n".patch > "$state/plant-$n.patch" ||
			fail "cannot gather the plants of size $n"
		plants+=("$n")
		plant_files+=("$state/plant-$n.patch")
	done
	[ ${#plants[@]} -gt 0 ] || fail "scripts/plant.sh named no sizes"
fi
if [ -n "$ksrc" ]; then
	# Every patch must apply to the tree before anything is built.
	for p in "$patch_a" "$patch_b" "${plant_files[@]}"; do
		[ -z "$p" ] && continue
		rm -f -- "$state/check.patch"
		why=$(patch_refusal "$p" "$state/check.patch")
		[ -z "$why" ] || usage_error "--patch $why"
		new_file "$state/patch.log" || exit 1
		patch -d "$ksrc" -p1 -s -f --dry-run < "$state/check.patch" >> "$state/patch.log" 2>&1 ||
			usage_error "--patch $(esc "$p does not apply to $ksrc: $(head -n 1 "$state/patch.log")")"
		rm -f -- "$state/check.patch"
	done
	tree_probe
fi

# ---- the kernels ------------------------------------------------------------

# build_side SIDE PATCH: the tree with PATCH (or as it is), built, kept as
# WORK/kernels/SIDE.bzImage.
build_side() {
	local side=$1 p=$2 rc copy=""
	if [ -n "$p" ]; then
		copy=$state/$side.patch
		check_patch "$p" "$copy"
		rc=$?
		# 1: said already
		[ "$rc" = 1 ] && exit 1
		[ "$rc" = 0 ] || fail "$side: $(esc "$p does not apply: $(head -n 1 "$state/patch.log")")"
	fi
	note "$side: building${p:+ with $(basename "$p")}"
	build_kernel "$logs/$side.build" "$copy"
	rc=$?
	if [ "$rc" = 0 ]; then
		work_mkdir "$work/kernels" &&
			write_file "$work/kernels/$side.bzImage" < "$obj/arch/x86/boot/bzImage" || rc=1
		# --explain attributes blocks by it; a builder need not make one.
		[ "$rc" != 0 ] || [ ! -f "$obj/System.map" ] ||
			write_file "$work/kernels/$side.System.map" < "$obj/System.map" || rc=1
	fi
	[ "$rc" = 0 ] || fail "$side: the kernel did not build in ${last_s} s: $(esc "$(grep -m1 -E 'error:|Error [0-9]' "$logs/$side.build" | cut -c1-200)")"
	note "$side: built in ${last_s} s"
}

if [ "$calibrate" = 1 ]; then
	# shellcheck source=scripts/lib/ab_calibrate.bash
	. "$top/scripts/lib/ab_calibrate.bash"
	calibrate_run
	exit $?
fi
if [ -n "$ksrc" ]; then
	configure
	phase configure
	build_side A "$patch_a"
	phase "build A"
	build_side B "$patch_b"
	phase "build B"
	ka=$work/kernels/A.bzImage
	kb=$work/kernels/B.bzImage
	map_a=$work/kernels/A.System.map
	map_b=$work/kernels/B.System.map
fi

# resolve SIDE KERNEL: the image's path (fetched once into the VM cache for
# a package) into img_SIDE, its hash into sha_SIDE.
declare -A img sha
resolve() {
	local side=$1 k=$2 path
	new_file "$state/$side.fetch.err" || exit 1
	path=$("$vm" --kernel "$k" --build "$build" --fetch-only 2>> "$state/$side.fetch.err")
	case $? in
	0) ;;
	2) usage_error "--$(tr 'AB' 'ab' <<< "$side"): $(esc_line "$(tail -n 1 "$state/$side.fetch.err" | sed 's/^iopath: vm: //')")" ;;
	*) fail "$side: cannot get the kernel: $(esc_line "$(tail -n 1 "$state/$side.fetch.err")")" ;;
	esac
	[ -f "$path" ] || fail "$side: the VM named no kernel image"
	img[$side]=$path
	sha[$side]=$(sha256sum < "$path" | cut -d' ' -f1)
}
resolve A "$ka"
resolve B "$kb"
phase kernels
mkdir "$out" || fail "cannot create $(esc "$out")"
mkdir "$out/logs" || fail "cannot create $(esc "$out")/logs"
{
	printf 'side\tkernel\timage_sha256\n'
	printf 'A\t%s\t%s\n' "$ka" "${sha[A]}"
	printf 'B\t%s\t%s\n' "$kb" "${sha[B]}"
} | write_file "$out/kernels.tsv" || exit 1
[ "${sha[A]}" = "${sha[B]}" ] &&
	note "A and B are the same image: an A/A run (what the comparison can resolve, nothing more)"

# ---- the boots, in pairs ----------------------------------------------------

# start_boot SIDE N: boot N of SIDE's kernel running the benchmark, with
# the seed of pair N, in the background (its pid in guest_pid[SIDE.N]).
start_boot() {
	local side=$1 n=$2 base=$out/logs/$1.$2
	local -a rtc=() tb_opt=()
	[ "$explain" = 0 ] || tb_opt=(--tb-counts "$base.tb")
	note "boot $n of $boots: $side"
	# One start date for both boots of a pair (B starting a moment after A
	# gave B's falloc 3 more ops per 10^9 instructions in 8 of 9 pairs of
	# an A/A), pairs apart by the longest a boot may run, so that no two
	# boots of a side write records of one time.
	[ "$domain" = wall ] ||
		rtc=(--rtc-base "$(date -u -d "@$((rtc0 + (n - 1) * timeout_s))" +%Y-%m-%dT%H:%M:%S)")
	# Under TCG a loaded host slows the boot as much as the run: one limit
	# for all three (boot, idle, overall).
	"$vm" --kernel "${img[$side]}" --build "$build" "${vm_clock[@]}" "${rtc[@]}" --smp 1 --seed "${seed[$n]}" \
		--timeout "$timeout_s" --boot-timeout "$timeout_s" --idle-timeout "$timeout_s" \
		--log "$base.console" --records "$base.jsonl" "${tb_opt[@]}" \
		--bench -- "${bench_args[@]}" > "$base.out" 2> "$base.err" &
	guest_pid[$side.$n]=$!
	guest_t0[$side.$n]=$SECONDS
}

# finish_boot SIDE N: wait for it; its records are checked by iopath
# records check to come from SIDE's kernel, in the run's clock domain, and
# from a boot of their own (no earlier boot's id).
finish_boot() {
	local side=$1 n=$2 base=$out/logs/$1.$2 rc err
	wait "${guest_pid[$side.$n]}"
	rc=$?
	unset "guest_pid[$side.$n]"
	printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$side" "$rc" "$((SECONDS - guest_t0[$side.$n]))" "${seed[$n]}" >> "$out/boots.tsv"
	if [ "$rc" != 0 ] || [ ! -s "$base.jsonl" ]; then
		fail "boot $n of $side failed (exit $rc): $(esc_line "$(grep -v -e '^  ' -e 'last kernel console lines:$' "$base.err" |
			tail -n 1 | cut -c1-300)")"
	fi
	err=$("$iopath" records check --image-sha256 "${sha[$side]}" --domain "$domain" \
		"${seen[@]}" -- "$base.jsonl" 2>&1 >/dev/null) ||
		fail "boot $n of $side: $(esc_line "$(head -n 1 <<< "$err" | sed 's/^iopath: records: //' | cut -c1-300)")"
	seen+=(--seen "$base.jsonl")
}

# collect PAIRS: each side's records of pairs 1 .. PAIRS in OUT/SIDE.jsonl.
collect() {
	local side k
	for side in A B; do
		new_file "$state/$side.jsonl" || exit 1
		for ((k = 1; k <= $1; k++)); do
			cat "$out/logs/$side.$k.jsonl" >> "$state/$side.jsonl" || exit 1
		done
		write_file "$out/$side.jsonl" < "$state/$side.jsonl" || exit 1
	done
}

declare -A guest_t0=()
rtc0=$(date +%s)
seed=()
seen=()
printf 'boot\tside\texit\tseconds\tseed\n' > "$out/boots.tsv"
# A wave: as many pairs as there are guests for, two guests a pair.
per_wave=$((guests / 2))
[ "$per_wave" -ge 1 ] || per_wave=1
if [ "$domain" = wall ]; then
	note "wall time (KVM): the boots run one at a time, as side by side they would slow each other"
else
	note "instructions (TCG icount): up to $guests guests at once, the two boots of a pair side by side"
fi
pairs=0
ci_said=""
while [ "$pairs" -lt "$boots" ]; do
	last=$((pairs + per_wave))
	[ "$last" -le "$boots" ] || last=$boots
	for ((k = pairs + 1; k <= last; k++)); do
		seed[k]=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
		for side in A B; do
			start_boot "$side" "$k"
			[ "$guests" -gt 1 ] || finish_boot "$side" "$k"
		done
	done
	if [ "$guests" -gt 1 ]; then
		for ((k = pairs + 1; k <= last; k++)); do
			finish_boot A "$k"
			finish_boot B "$k"
		done
	fi
	pairs=$last
	# --target-ci: is every verdict metric's interval narrow enough yet?
	if [ -n "$target_ci" ] && [ "$pairs" -ge 2 ]; then
		collect "$pairs"
		line=$("$iopath" compare "$out/A.jsonl" "$out/B.jsonl" --format ci --target-ci "$target_ci" \
			2> "$out/logs/compare-ci.err") ||
			fail "iopath compare --format ci failed: $(esc_line "$(head -n 1 "$out/logs/compare-ci.err")")"
		[[ $line =~ ^#\ IOPATH-CI:\ reached=(yes|no)\ halfwidth=([^ ]+) ]] ||
			fail "iopath compare --format ci: no IOPATH-CI line"
		if [ "${BASH_REMATCH[1]}" = yes ]; then
			ci_said="--target-ci: the widest 95% CI is +-${BASH_REMATCH[2]}%, below +-$target_ci%, after $pairs pairs of $boots"
			break
		fi
		ci_said="--target-ci: --boots $boots reached; the widest 95% CI is +-${BASH_REMATCH[2]}%, not below +-$target_ci%"
	fi
done
[ -n "$target_ci" ] && [ "$pairs" -lt 2 ] && ci_said="--target-ci: one pair (--boots 1), no interval to judge"
collect "$pairs"
phase "boots ($pairs pairs)"

# ---- the comparison and the verdict -------------------------------------------

# Once: the report to stdout, the JSON and the verdict lines (one per
# benchmark, on its main metric, with the change, its CI and what the run
# could have seen, in the run's clock domain) to their files.
"$iopath" compare "$out/A.jsonl" "$out/B.jsonl" --json "$out/compare.json" --verdict "$out/verdict.txt" \
	> "$out/report.txt" 2> "$out/logs/compare.err"
rc=$?
[ "$rc" = 0 ] || fail "iopath compare failed (exit $rc): $(esc_line "$(head -n 1 "$out/logs/compare.err")")"
cat "$out/report.txt"
[ -s "$out/verdict.txt" ] || fail "the comparison has no metric in common between A and B"
# Each line a verdict, with the figures it rests on: compare refuses a
# verdict metric it cannot compare or test, and a line without a verdict
# is no answer either, whoever wrote it.
verdict_re='^iopath ab: .+: [-+]?[0-9]+\.[0-9]{3}% \[([-+]?[0-9]+\.[0-9]{3}|-inf)%, ([-+]?[0-9]+\.[0-9]{3}|\+inf)%\], (improvement|regression|no significant change) \(could have seen >= [0-9]+\.[0-9]{3}%; '
while IFS= read -r l; do
	[[ $l =~ $verdict_re ]] || fail "iopath compare gave no verdict: $(esc "$l")"
done < "$out/verdict.txt"
phase compare
if [ "$explain" = 1 ]; then
	explain_report "$pairs"
	phase explain
fi
{
	printf 'phase\tseconds\n'
	printf '%s\n' "${phases[@]}"
	printf 'total\t%s\n' "$((SECONDS - run_t0))"
} | write_file "$out/phases.tsv" || exit 1
said=""
for p in "${phases[@]}"; do
	said+="${said:+, }${p%%$'\t'*} ${p##*$'\t'} s"
done
note "time: $said; $((SECONDS - run_t0)) s in all"
[ -z "$ci_said" ] || note "$ci_said"
echo
cat "$out/verdict.txt"
note "records, logs and the report in $out"
exit 0
