#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath mutate: what the selftests catch, measured. Builds a small kernel
# (tinyconfig plus configs/kernel/iopath.config) from a kernel source tree,
# then for each mutant of configs/mutants/ applies it, rebuilds
# incrementally, boots the result with scripts/vm.sh running the selftest
# programs the mutant's header names and classifies it:
#
#   killed        a test that passes on the pristine kernel failed
#   crash         the guest panicked, oopsed, BUGged or hung, on every run,
#                 while the pristine kernel stayed clean over at least as
#                 many runs ("killed by crash")
#   survived      every test that passes on the pristine kernel passed
#   equivalent    survived, and the header argues why no test can see it
#   no-build      the mutated tree did not compile
#   unstable      nothing ran, or it crashed on every run but the pristine
#                 kernel was not clean over as many: no verdict (a crash
#                 that does not reproduce is noted; the clean run decides)
#
# The state lives in WORK/state: one result file per mutant, written when
# the mutant is done, so an interrupted campaign resumes where it stopped.
# The source tree is never written: each mutant is applied and built in a
# tree of its own (scripts/lib/kbuild.bash), gone with its build however
# the run ends.
#
# The kernel builder and the VM are commands (IOPATH_MUTATE_BUILDER,
# IOPATH_MUTATE_VM), so tests/mutate.sh runs all of this with fakes.
#
# Exit: 0 the pristine kernel passed and every non-equivalent mutant was
# killed, 1 otherwise, 2 bad usage or input.
set -u

prog="iopath: mutate"
top=$(cd "$(dirname "$0")/.." && pwd)
# usage_error, fail, host_mirror, patch_header, load_mutants
# shellcheck source=scripts/lib/common.bash
. "$top/scripts/lib/common.bash"
# fetch_source, check_patch, tree_probe, configure, build_kernel, kbuild_deps
# shellcheck source=scripts/lib/kbuild.bash
. "$top/scripts/lib/kbuild.bash"

usage() {
	cat <<EOF
usage: iopath mutate [options] [MUTANT...]

Build a small kernel, then for each mutant (a patch in configs/mutants/,
by file name with or without .patch; default all) apply it, rebuild, run the
selftests that can see it under QEMU, and classify. Writes the kill
matrix to WORK/matrix.md and WORK/matrix.json.

  --ksrc DIR       kernel source tree to mutate (default \$KSRC, else Debian
                   unstable's newest linux-source-7.x, fetched and unpacked
                   into WORK/src with a private apt state)
  --work DIR       source, build tree, state and results
                   (default /var/cache/iopath/mutate)
  --mutants DIR    the mutant patches (default configs/mutants)
  --build DIR      iopath build directory holding the selftests (default build)
  --pristine-runs N  runs of the pristine kernel, 1 to 9999 (default 3)
  --crash-runs N   runs of a mutant that crashed (default 2; at most the
                   pristine runs)
  --all-tests      run every selftest program for every mutant, unfiltered
  --timeout S      limit for one VM run, 1 to 9999 seconds (default 1500)
  --jobs N         make -j for the kernel, 1 or 2 (default 2)
  --fresh          forget earlier results (default: resume)
  --list           list the mutants with their function and tests, and exit
  --matrix         only (re)write the matrix from the results so far
  --build-only     build the pristine kernel and each mutant's, keep them
                   (WORK/obj/arch/x86/boot/bzImage, WORK/kernels/NAME) and
                   run nothing: the kernels for iopath lava mutate, whose
                   jobs a lab runs (a campaign run here removes each
                   mutant's kernel once it is classified)
  --lava DIR       with --matrix: the runs are LAVA jobs' logs in DIR, as
                   iopath lava mutate and iopath lava run (or a lab) left
                   them: pristine.log, and NAME.log per mutant; each is
                   judged by iopath lava verdict and classified as a local
                   run would be (one run each: a crash counts against the
                   pristine jobs that were clean); use a --work of its own

Environment: KSRC, IOPATH_MUTATE_BUILDER (a command run as
"BUILDER SRC OBJ JOBS": builds OBJ/arch/x86/boot/bzImage from SRC, exit
status 0 on success), IOPATH_MUTATE_VM (a command taking scripts/vm.sh's
arguments).
EOF
}


note() {
	echo "$prog: $*" >&2
}

ksrc=${KSRC:-}
last_s=0
child=""
bg_pid=""
bg_base=""
vm_env=()	# --env NAME=VALUE for the next run_vm
work=/var/cache/iopath/mutate
builder=${IOPATH_MUTATE_BUILDER:-}
mutants_dir=$top/configs/mutants
build=$top/build
pristine_runs=3
crash_runs=2
all_tests=0
timeout_s=1500
jobs=2
fresh=0
list_only=0
matrix_only=0
build_only=0
lava_dir=""
want=()
while [ $# -gt 0 ]; do
	case $1 in
	--ksrc|--work|--mutants|--build|--pristine-runs|--crash-runs|--timeout|--jobs|--lava)
		[ $# -ge 2 ] || usage_error "$1 needs a value"
		case $1 in
		--ksrc) ksrc=$2 ;;
		--work) work=$2 ;;
		--mutants) mutants_dir=$2 ;;
		--build) build=$2 ;;
		--pristine-runs) pristine_runs=$2 ;;
		--crash-runs) crash_runs=$2 ;;
		--timeout) timeout_s=$2 ;;
		--jobs) jobs=$2 ;;
		--lava) lava_dir=$2 ;;
		esac
		shift 2 ;;
	--all-tests) all_tests=1; shift ;;
	--fresh) fresh=1; shift ;;
	--list) list_only=1; shift ;;
	--matrix) matrix_only=1; shift ;;
	--build-only) build_only=1; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) usage_error "unknown option $1 (--help lists them)" ;;
	*) want+=("${1%.patch}"); shift ;;
	esac
done

# ---- bad input is refused before anything is created -----------------------

for v in pristine_runs crash_runs timeout_s jobs; do
	opt=${v%_s}
	check_value "--${opt//_/-}" count:1:9999 "${!v}"
done
[ "$jobs" -le 2 ] || usage_error "--jobs: at most 2 on a shared machine"
[ "$crash_runs" -le "$pristine_runs" ] ||
	usage_error "--crash-runs $crash_runs: a crash counts only against as many clean pristine runs (--pristine-runs $pristine_runs)"
[ -d "$mutants_dir" ] || usage_error "--mutants: $mutants_dir is not a directory"
# given: a directory (the default, build/, may not be there for --list)
[ "$build" = "$top/build" ] || [ -d "$build" ] ||
	usage_error "--build: $(esc "$build") is not a directory"
[ "$build_only" = 1 ] && [ "$matrix_only" = 1 ] && usage_error "--build-only goes without --matrix"
if [ -n "$lava_dir" ]; then
	[ "$matrix_only" = 1 ] || usage_error "--lava goes with --matrix"
	[ -f "$lava_dir/pristine.log" ] ||
		usage_error "--lava $lava_dir: no pristine.log (the log of the pristine kernel's job)"
	lava_dir=$(cd "$lava_dir" && pwd)
fi
if [ -n "$ksrc" ]; then
	check_ksrc
fi
case $work in /*) ;; *) work=$PWD/$work ;; esac

# The mutants: NAME -> patch file, in file name order.
# check_mutant FILE: selftest programs in Tests, harness options in Filter,
# and a patch that only changes regular files inside the tree (iopath
# patch check, which check_patch runs again on the file a build applies).
# "# Tests: all" (a generated mutant's): the whole collection, unfiltered.
check_mutant() {
	local t err
	err=$(patch_names "$1" 2>&1 >/dev/null) || usage_error "${err#iopath: patch: }"
	[ "$(patch_header "$1" Tests)" = all ] && return 0
	for t in $(patch_header "$1" Tests); do
		[[ $t =~ ^[a-z0-9_]+_test$ ]] || usage_error "$1: '# Tests: $t' is not a selftest program name"
	done
	while IFS= read -r t; do
		[[ $t =~ ^[a-z0-9_]+_test=-[A-Za-z] ]] ||
			usage_error "$1: '# Filter: $t' is not 'program_test=harness options'"
	done < <(patch_header "$1" Filter)
}
declare -A mfile=()
mnames=()
load_mutants "$mutants_dir" check_mutant "${want[@]}"

if [ "$list_only" = 1 ]; then
	for n in "${mnames[@]}"; do
		f=${mfile[$n]}
		g=$(patch_header "$f" Generated)
		printf '%-40s %-34s %s%s%s\n' "$n" "$(patch_header "$f" Function)" "$(patch_header "$f" Tests)" \
			"$([ -n "$(patch_header "$f" Equivalent)" ] && echo ' (equivalent)')" \
			"${g:+ (generated: $g)}"
	done
	exit 0
fi

# State and logs are written in WORK with '>', and the state says what is
# copied where: WORK must be the caller's own, where nobody else can plant
# a link or rewrite the state (work_refusal, the rule ab follows too). The matrix is written through write_file; a link at its
# names is refused now.
why=$(work_refusal)
[ -z "$why" ] || usage_error "$(esc "$why")"
for f in matrix.md matrix.json; do
	why=$(out_refusal "$work/$f")
	[ -z "$why" ] || usage_error "--work $why"
done

# The kernel build and the guests: what is missing is named before
# anything starts. --matrix builds and boots nothing; --build-only boots
# nothing.
boot=0
[ "$matrix_only" = 0 ] && [ "$build_only" = 0 ] && [ -z "${IOPATH_MUTATE_VM:-}" ] && boot=1
kbuild_deps 1 "$((1 - matrix_only))" "$boot" || exit 1

state=$work/state
logs=$work/logs
work_mkdir "$state" "$logs" || fail "cannot create $work"
# The lock is the work directory itself: a lock file would be one more
# name opened through a planted link, and '>' truncated what it points at.
exec 8< "$work"
flock -n 8 || fail "another iopath mutate is running on $work"

# ---- the kernel source ------------------------------------------------------

if [ "$matrix_only" = 0 ] && [ -z "$ksrc" ]; then
	ksrc=$(fetch_source) || exit 1
fi
obj=$work/obj

# ---- the build's own tree ---------------------------------------------------

kbuild_state

on_exit() {
	[ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child"
	[ -n "$bg_pid" ] && kill -TERM "$bg_pid" 2>/dev/null && wait "$bg_pid"
}
trap on_exit EXIT
trap 'note interrupted; exit 130' INT
trap 'note terminated; exit 143' TERM

# ---- running ----------------------------------------------------------------

# run_vm LOGBASE KERNEL fg|bg PROGRAMS...: one VM run of KERNEL with those
# programs (none: all). Writes LOGBASE.tap (TAP), .err (vm.sh's stderr),
# .console, .rc. fg: waits, the seconds taken in last_s; bg: returns at
# once, wait_bg waits.
run_vm() {
	local base=$1 kernel=$2 mode=$3 t0=$SECONDS p rc
	shift 3
	# no_timer_check: the boot-time check that the timer interrupt works
	# fails at random on a loaded host under TCG ("IO-APIC + timer doesn't
	# work!"), as it would under any slow hypervisor (KVM guests skip it).
	local -a args=(--kernel "$kernel" --build "$build" --append no_timer_check
		       --timeout "$timeout_s" --log "$base.console")
	for p in "${vm_env[@]}"; do
		args+=(--env "$p")
	done
	if [ $# -gt 0 ]; then
		args+=(--)
		for p in "$@"; do
			args+=(-t "iopath:$p")
		done
	fi
	local -a cmd=("$top/scripts/vm.sh")
	[ -n "${IOPATH_MUTATE_VM:-}" ] && cmd=("$IOPATH_MUTATE_VM")
	if [ "$mode" = bg ]; then
		new_file "$base.tap" && new_file "$base.err" || exit 1
		"${cmd[@]}" "${args[@]}" >> "$base.tap" 2>> "$base.err" &
		bg_pid=$!
		bg_base=$base
		return 0
	fi
	run_child "$base.tap" "$base.err" "${cmd[@]}" "${args[@]}"
	rc=$?
	echo "$rc" | write_file "$base.rc" || exit 1
	last_s=$((SECONDS - t0))
}

wait_bg() {
	local rc
	[ -n "$bg_pid" ] || return 0
	wait "$bg_pid"
	rc=$?
	bg_pid=""
	echo "$rc" | write_file "$bg_base.rc" || exit 1
}

# crash_of LOGBASE: how the guest died (a panic, an oops, a hang, QEMU),
# empty if it reached its result line: iopath mutant stop, from the one
# machine line the VM runner prints for that (scripts/vm/verdict.bash,
# "# IOPATH-STOP: reason=R seconds=N what=TEXT"); no such line is a stop
# without a result. A WARNING or BUG that the guest survives is the
# tests' to catch (they fail on a kernel log splat), not a crash.
crash_of() {
	mutant_cmd stop "$1.tap"
}

# save_results LOGBASE: LOGBASE.results, "name<TAB>ok|fail|skip<TAB>program"
# per test of the run, from the machine lines of the one TAP reader
# (the verdict engine, run by iopath mutant results), never the TAP.
save_results() {
	local r
	r=$(mutant_cmd results "$1.tap") || exit
	printf '%s' "${r:+$r$'\n'}" | write_file "$1.results" || exit 1
}

# whole_collection NAME: whether the mutant runs every program unfiltered
# (--all-tests, or its header's "# Tests: all").
whole_collection() {
	[ "$all_tests" = 1 ] || [ "$(patch_header "${mfile[$1]}" Tests)" = all ]
}

# filters_of NAME: "--env KSELFTEST_<PROG>_ARGS=..." values from the
# header's "# Filter: prog=harness options" lines, one a line.
filters_of() {
	whole_collection "$1" && return 0
	patch_header "${mfile[$1]}" Filter | while IFS= read -r l; do
		p=${l%%=*}
		p=${p^^}
		echo "KSELFTEST_${p}_ARGS=${l#*=}"
	done
}

programs_of() {
	if whole_collection "$1"; then
		return 0
	fi
	patch_header "${mfile[$1]}" Tests
}

# ---- the pristine kernel ----------------------------------------------------

pristine_ok=$state/pristine.ok	# tests that passed on every pristine run

run_pristine() {
	local i s crash runs_done t n
	local -a union=()
	# The programs the selected mutants name (for the whole collection of
	# mutants, every program; a mutant of "# Tests: all" needs them all).
	if [ "$all_tests" = 0 ]; then
		mapfile -t union < <(for n in "${mnames[@]}"; do
			patch_header "${mfile[$n]}" Tests | tr ' ' '\n'; done | sed '/^$/d' | sort -u)
		[[ " ${union[*]} " == *" all "* ]] && union=()
	fi
	# Done already, over every program needed now?
	if [ -f "$state/pristine.done" ] && [ "$fresh" = 0 ]; then
		[ "$(cat "$state/pristine.programs")" = all ] && return 0
		[ ${#union[@]} -gt 0 ] && [ -z "$(printf '%s\n' "${union[@]}" |
			comm -23 - "$state/pristine.programs")" ] && return 0
	fi
	configure
	note "building the pristine kernel"
	build_kernel "$logs/pristine.build" ||
		fail "the pristine kernel does not build ($logs/pristine.build)"
	s=$last_s
	echo "$s" | write_file "$state/pristine.build_s" || exit 1
	note "pristine kernel built in ${s} s"
	new_file "$state/pristine.runs" || exit 1
	vm_env=()
	for i in $(seq 1 "$pristine_runs"); do
		run_vm "$logs/pristine.$i" "$obj/arch/x86/boot/bzImage" fg "${union[@]}"
		t=$last_s
		crash=$(crash_of "$logs/pristine.$i") || exit
		save_results "$logs/pristine.$i"
		printf '%s\t%s\t%s\t%s\n' "$i" "$t" "$(cat "$logs/pristine.$i.rc")" "$crash" >> "$state/pristine.runs"
		note "pristine run $i/$pristine_runs: ${t} s, $(grep -c $'\tok\t' "$logs/pristine.$i.results") passed, $(grep -c $'\tfail\t' "$logs/pristine.$i.results") failed${crash:+, $crash}"
	done
	# A test counts for a kill only if it passed on every pristine run.
	runs_done=$pristine_runs
	sort -u "$logs"/pristine.*.results | cut -f1,3 | write_file "$state/pristine.tests" || exit 1
	cat "$logs"/pristine.*.results | awk -F'\t' -v n="$runs_done" '
		$2 == "ok" { ok[$1]++ } END { for (t in ok) if (ok[t] == n) print t }' |
		sort > "$pristine_ok"
	if [ ${#union[@]} -gt 0 ]; then
		printf '%s\n' "${union[@]}" | write_file "$state/pristine.programs" || exit 1
	else
		echo all | write_file "$state/pristine.programs" || exit 1
	fi
	new_file "$state/pristine.done" || exit 1
}

pristine_clean_runs() {
	awk -F'\t' '$4 == "" { n++ } END { print n + 0 }' "$state/pristine.runs"
}

# ---- one mutant ---------------------------------------------------------------

# record NAME CLASS BUILD_S RUN_S DETAIL KILLERS: the mutant's result file.
record() {
	local f=$state/$1.result
	printf 'class=%s\nbuild_s=%s\nrun_s=%s\ndetail=%s\nkillers=%s\n' \
		"$2" "$3" "$4" "$5" "$6" | write_file "$f" || exit 1
}

# build_mutant NAME: apply, build, keep the kernel as WORK/kernels/NAME,
# in a tree of its own. Records "did not build" itself; exit 0 if there is a kernel to run.
build_mutant() {
	local n=$1 rc b detail
	if [ -f "$state/$n.built" ] && [ -f "$work/kernels/$n" ]; then
		return 0
	fi
	note "$n: applying"
	check_patch "${mfile[$n]}" "$state/mutant.patch"
	rc=$?
	if [ "$rc" = 2 ]; then
		record "$n" no-build 0 0 "the patch does not apply: $(head -n 1 "$state/patch.log")" ""
		return 1
	fi
	[ "$rc" = 0 ] || fail "$n: cannot check the patch"
	build_kernel "$logs/$n.build" "$state/mutant.patch"
	rc=$?
	b=$last_s
	if [ "$rc" = 0 ]; then
		work_mkdir "$work/kernels" &&
			write_file "$work/kernels/$n" < "$obj/arch/x86/boot/bzImage" || rc=1
	fi
	if [ "$rc" != 0 ]; then
		detail=$(grep -m1 -E 'error:|Error [0-9]' "$logs/$n.build" | cut -c1-200)
		record "$n" no-build "$b" 0 "${detail:-the build failed}" ""
		note "$n: did not build (${b} s)"
		return 1
	fi
	echo "$b" | write_file "$state/$n.built" || exit 1
	note "$n: built in ${b} s"
	return 0
}

# start_run NAME: its first VM run, in the background (bg_pid), so the next
# mutant builds meanwhile.
bg_t0=0
start_run() {
	local n=$1
	local -a progs
	read -r -a progs <<< "$(programs_of "$n")"
	mapfile -t vm_env < <(filters_of "$n")
	note "$n: running ${progs[*]:-every program}"
	bg_t0=$(date +%s)
	run_vm "$logs/$n.1" "$work/kernels/$n" bg "${progs[@]}"
}

# finish_run NAME: wait for its first run, repeat a crash, classify:
# iopath mutant classify judges the runs by the one TAP reader's machine
# lines against the tests that passed on every pristine run.
finish_run() {
	local n=$1 f=${mfile[$1]} b s crash i line class detail killers
	local -a progs runs=() opts=()
	read -r -a progs <<< "$(programs_of "$n")"
	mapfile -t vm_env < <(filters_of "$n")
	b=$(cat "$state/$n.built")
	wait_bg
	# The run ended with its last line of output, maybe well before the
	# next mutant's build let us look.
	if [ -n "$lava_dir" ]; then
		# A LAVA job: the guest's own run time, from its result line.
		s=$(sed -n 's/^# IOPATH-VM-RESULT: .* seconds=\([0-9]*\).*/\1/p' "$logs/$n.1.tap" | tail -n 1)
		s=${s:-0}
	else
		s=$(($(stat -c %Y "$logs/$n.1.err") - bg_t0))
	fi
	# A crash is run again, up to --crash-runs times; a clean run ends it.
	for i in $(seq 1 "$crash_runs"); do
		if [ "$i" -gt 1 ]; then
			run_vm "$logs/$n.$i" "$work/kernels/$n" fg "${progs[@]}"
			s=$((s + last_s))
		fi
		runs+=("$logs/$n.$i.tap")
		crash=$(crash_of "$logs/$n.$i") || exit
		[ -z "$crash" ] && break
		echo "$crash" | write_file "$logs/$n.$i.crash" || exit 1
		note "$n: run $i: $crash"
	done
	[ -z "$crash" ] && save_results "$logs/$n.$i"
	# Killed: a test that passed on every pristine run failed here, or
	# never reported (its program crashed or timed out; only for programs
	# run unfiltered: a filter leaves tests out). A crash on every run
	# counts only against as many clean pristine runs; one that did not
	# reproduce is noted, and the clean run decides.
	whole_collection "$n" && opts+=(--all-tests)
	line=$(mutant_cmd classify "${opts[@]}" --pristine-ok "$pristine_ok" \
		--pristine-tests "$state/pristine.tests" --pristine-runs "$pristine_runs" \
		--pristine-clean "$(pristine_clean_runs)" --crash-runs "$crash_runs" \
		--err "$logs/$n.$i.err" -- "$f" "${runs[@]}") || exit
	# "# IOPATH-MUTANT: class=C killers=T1,T2 detail=TEXT", TEXT escaped
	case $line in
	'# IOPATH-MUTANT: class='*' killers='*' detail='*) ;;
	*) fail "$n: iopath mutant classify printed no classification" ;;
	esac
	class=${line#'# IOPATH-MUTANT: class='}
	class=${class%% *}
	killers=${line#* killers=}
	killers=${killers%% detail=*}
	detail=${line#* detail=}
	record "$n" "$class" "$b" "$s" "$detail" "${killers//,/ }"
	# A kernel that crashed on every run is kept, to be looked at.
	[ -z "$crash" ] && [ -z "$lava_dir" ] && rm -f "$work/kernels/$n"
	note "$n: $(field "$state/$n.result" class)"
}

# ---- the matrix ---------------------------------------------------------------

field() {
	sed -n "s/^$2=//p" "$1"
}

# write_matrix: WORK/matrix.md and WORK/matrix.json from the state (iopath
# mutant matrix: the headers' functions, the results read back and
# checked, JSON by jansson, both files renamed into place); prints
# "KILLED NON_EQUIVALENT".
write_matrix() {
	mutant_cmd matrix --work "$work" --mutants "$mutants_dir" --ksrc "${ksrc:-}" -- "${mnames[@]}"
}

# ---- the kernels only, for a lab ---------------------------------------------

# build_kernels: --build-only. The pristine kernel, each mutant's, kept in
# WORK/kernels, then the pristine kernel again in WORK/obj, which iopath
# lava mutate takes for the pristine job:
# if that rebuild fails, the bzImage there is a mutant's and is removed.
build_kernels() {
	local n built=0 nobuild=0
	configure
	note "building the pristine kernel"
	build_kernel "$logs/pristine.build" ||
		fail "the pristine kernel does not build ($logs/pristine.build)"
	for n in "${mnames[@]}"; do
		if build_mutant "$n"; then
			built=$((built + 1))
		else
			nobuild=$((nobuild + 1))
		fi
	done
	if ! build_kernel "$logs/restore.build"; then
		rm -f "$obj/arch/x86/boot/bzImage"
		fail "the rebuild of the pristine tree failed ($logs/restore.build); no pristine kernel left"
	fi
	echo "mutate: $built mutant kernels in $work/kernels, $nobuild did not build; pristine kernel $obj/arch/x86/boot/bzImage; $((SECONDS - t_start)) s (iopath lava mutate --work $work writes their jobs)"
}

# ---- the campaign -----------------------------------------------------------

# ---- runs from LAVA jobs -----------------------------------------------------

# lava_run LOG BASE: a job's log judged as a local run: BASE.tap, .console,
# .err and .rc as run_vm leaves them.
lava_run() {
	# The LAVA log reader ends a job without a result with the stop line
	# scripts/vm.sh prints for a guest without one.
	"$(iopath_bin)" lava verdict --build "$build" "$1" --tap "$2.tap.new" --console "$2.console" > /dev/null 2> "$2.err"
	echo "$?" > "$2.rc"
	if [ -f "$2.tap.new" ]; then
		mv "$2.tap.new" "$2.tap"
	else
		: > "$2.tap"
	fi
}

import_lava() {
	local f i=0 crash n
	rm -f "$state"/pristine.* "$logs"/pristine.*
	new_file "$state/pristine.runs" || exit 1
	for f in "$lava_dir"/pristine.log "$lava_dir"/pristine.[0-9]*.log; do
		[ -f "$f" ] || continue
		i=$((i + 1))
		lava_run "$f" "$logs/pristine.$i"
		crash=$(crash_of "$logs/pristine.$i") || exit
		save_results "$logs/pristine.$i"
		printf '%s\t%s\t%s\t%s\n' "$i" 0 "$(cat "$logs/pristine.$i.rc")" "$crash" >> "$state/pristine.runs"
		note "pristine job $i ($(basename "$f")): $(grep -c $'\tok\t' "$logs/pristine.$i.results") passed, $(grep -c $'\tfail\t' "$logs/pristine.$i.results") failed${crash:+, $crash}"
	done
	pristine_runs=$i
	crash_runs=1
	sort -u "$logs"/pristine.*.results | cut -f1,3 | write_file "$state/pristine.tests" || exit 1
	cat "$logs"/pristine.*.results | awk -F'\t' -v n="$pristine_runs" '
		$2 == "ok" { ok[$1]++ } END { for (t in ok) if (ok[t] == n) print t }' | sort > "$pristine_ok"
	echo null | write_file "$state/pristine.build_s" || exit 1
	new_file "$state/pristine.done" || exit 1
	for n in "${mnames[@]}"; do
		[ -f "$lava_dir/$n.log" ] || continue
		rm -f "$state/$n.result" "$logs/$n".*
		lava_run "$lava_dir/$n.log" "$logs/$n.1"
		echo 0 | write_file "$state/$n.built" || exit 1
		finish_run "$n"
	done
}

if [ "$matrix_only" = 1 ]; then
	[ -n "$lava_dir" ] && import_lava
	read -r nk nn < <(write_matrix)
	[ -n "$nn" ] || exit 1
	cat "$work/matrix.md"
	exit 0
fi

if [ "$fresh" = 1 ]; then
	rm -f "$state"/*.result "$state"/*.built "$state"/pristine.*
	rm -rf "$work/kernels"
fi
tree_probe

t_start=$SECONDS
if [ "$build_only" = 1 ]; then
	build_kernels
	exit $?
fi
run_pristine
# A pipeline: mutant N+1 is applied and built while N's kernel
# runs in the VM.
running=""
for n in "${mnames[@]}"; do
	if [ -f "$state/$n.result" ]; then
		note "$n: $(field "$state/$n.result" class) (earlier run)"
		continue
	fi
	build_mutant "$n"
	built=$?
	if [ -n "$running" ]; then
		finish_run "$running"
		running=""
	fi
	if [ "$built" = 0 ]; then
		start_run "$n"
		running=$n
	fi
done
[ -n "$running" ] && finish_run "$running"
# Leave the build tree matching the pristine source.
build_kernel "$logs/restore.build" ||
	note "the rebuild of the pristine tree failed ($logs/restore.build)"
read -r nk nn < <(write_matrix)
[ -n "$nn" ] || exit 1
cat "$work/matrix.md"
echo "mutate: $nk of $nn non-equivalent mutants killed; pristine clean on $(pristine_clean_runs) of $pristine_runs runs; $((SECONDS - t_start)) s (matrix: $work/matrix.json)"
[ "$nk" = "$nn" ] && [ "$(pristine_clean_runs)" = "$pristine_runs" ] && exit 0
exit 1
