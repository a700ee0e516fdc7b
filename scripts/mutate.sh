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
# What runs is decided once, by iopath mutant plan (lib/campaign.h): the
# mutants, the programs and harness filters of each, the boot options and
# the pristine kernel's programs, in WORK/plan.json; each run takes its
# arguments from it (iopath mutant args). The state lives in WORK/state,
# JSON written and read by iopath mutant only (docs/efficacy.md):
# pristine.json from the pristine runs, one NAME.json per mutant, written
# when the mutant is done, so an interrupted campaign resumes where it
# stopped. This script keeps the builds, the patches, the guests and the
# process control.
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
  --first-kill     stop a mutant's run once a test that passed on every
                   pristine run has failed: the mutant is killed, its
                   killers are the tests that failed up to there (the later
                   ones did not run); a survivor still runs everything
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
work=/var/cache/iopath/mutate
builder=${IOPATH_MUTATE_BUILDER:-}
mutants_dir=$top/configs/mutants
build=$top/build
pristine_runs=3
crash_runs=2
all_tests=0
first_kill=0
watch_pid=""
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
	--first-kill) first_kill=1; shift ;;
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
# check_mutant FILE: a patch that only changes regular files inside the
# tree (iopath patch check, which check_patch runs again on the file a
# build applies).
check_mutant() {
	local err
	err=$(patch_names "$1" 2>&1 >/dev/null) || usage_error "${err#iopath: patch: }"
}
declare -A mfile=()
mnames=()
load_mutants "$mutants_dir" check_mutant "${want[@]}"
# The plan's checks (selftest programs in Tests, harness options in
# Filter), made now: written into WORK once it is there.
plan_opts=(--mutants "$mutants_dir")
[ "$all_tests" = 1 ] && plan_opts+=(--all-tests)
mutant_cmd plan "${plan_opts[@]}" -- "${mnames[@]}" || exit

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
for f in matrix.md matrix.json plan.json; do
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
# A state of the key=value format before the JSON one is converted once,
# by hand (docs/efficacy.md), never read as if nothing had been run.
for f in "$state"/*.result; do
	[ -f "$f" ] && [ ! -f "${f%.result}.json" ] && [ "$fresh" = 0 ] &&
		usage_error "$(esc "$state") holds results of the format before JSON: iopath mutant convert $(esc "$state") $(esc "$state") (docs/efficacy.md), or --fresh"
done
plan=$work/plan.json
mutant_cmd plan "${plan_opts[@]}" --out "$plan" -- "${mnames[@]}" || exit

# ---- the kernel source ------------------------------------------------------

if [ "$matrix_only" = 0 ] && [ -z "$ksrc" ]; then
	ksrc=$(fetch_source) || exit 1
fi
obj=$work/obj

# ---- the build's own tree ---------------------------------------------------

kbuild_state

on_exit() {
	[ -n "$watch_pid" ] && kill -TERM "$watch_pid" 2>/dev/null && wait "$watch_pid"
	stop_child
	[ -n "$bg_pid" ] && kill -TERM "$bg_pid" 2>/dev/null && wait "$bg_pid"
}
trap on_exit EXIT
trap 'note interrupted; exit 130' INT
trap 'note terminated; exit 143' TERM

# ---- running ----------------------------------------------------------------

# run_vm LOGBASE KERNEL fg|bg NAME: one VM run of KERNEL, the mutant NAME's
# or the pristine one's (pristine): the boot options, filters and programs
# the plan gives it (iopath mutant args). Writes LOGBASE.tap (TAP), .err
# (vm.sh's stderr), .console, .rc. fg: waits, the seconds taken in
# last_s; bg: returns at once, wait_bg waits.
run_vm() {
	local base=$1 kernel=$2 mode=$3 t0=$SECONDS rc words
	local -a args=(--kernel "$kernel" --build "$build" --timeout "$timeout_s" --log "$base.console")
	words=$(mutant_cmd args --plan "$plan" "$4") || exit
	mapfile -t -O "${#args[@]}" args <<< "$words"
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

# save_results LOGBASE [RUN]: LOGBASE.results (of RUN, default LOGBASE.tap), "name<TAB>ok|fail|skip<TAB>program"
# per test of the run, from the machine lines of the one TAP reader
# (the verdict engine, run by iopath mutant results), never the TAP.
save_results() {
	local r
	r=$(mutant_cmd results "${2:-$1.tap}") || exit
	printf '%s' "${r:+$r$'\n'}" | write_file "$1.results" || exit 1
}

# programs_of NAME: what the plan runs on NAME's kernel, for people.
programs_of() {
	local p progs=""
	for p in $(mutant_cmd args --plan "$plan" "$1"); do
		case $p in iopath:*) progs+=" ${p#iopath:}" ;; esac
	done
	echo "${progs# }"
}

# ---- the pristine kernel ----------------------------------------------------

pristine=$state/pristine.json	# the pristine runs, by iopath mutant pristine

# pristine_covered: whether the pristine runs so far ran every program the
# plan needs (iopath mutant covers: 0 yes, 1 no or none).
pristine_covered() {
	local rc
	"$(iopath_bin)" mutant covers --plan "$plan" "$pristine"
	rc=$?
	[ "$rc" -le 1 ] || exit "$rc"
	return "$rc"
}

# pristine_note I WHAT CRASH: the line about a pristine run, from its results.
pristine_note() {
	note "$2: $(grep -c $'\tok\t' "$logs/pristine.$1.results") passed, $(grep -c $'\tfail\t' "$logs/pristine.$1.results") failed${3:+, $3}"
}

run_pristine() {
	local i s crash t
	local -a runs=()
	# Done already, over every program needed now?
	pristine_covered && return 0
	configure
	note "building the pristine kernel"
	build_kernel "$logs/pristine.build" ||
		fail "the pristine kernel does not build ($logs/pristine.build)"
	s=$last_s
	note "pristine kernel built in ${s} s"
	for i in $(seq 1 "$pristine_runs"); do
		run_vm "$logs/pristine.$i" "$obj/arch/x86/boot/bzImage" fg pristine
		t=$last_s
		crash=$(crash_of "$logs/pristine.$i") || exit
		save_results "$logs/pristine.$i"
		runs+=("$t:$(cat "$logs/pristine.$i.rc"):$logs/pristine.$i.tap")
		pristine_note "$i" "pristine run $i/$pristine_runs: ${t} s" "$crash"
	done
	# A test counts for a kill only if it passed on every pristine run.
	mutant_cmd pristine --plan "$plan" --build-s "$s" --out "$pristine" -- "${runs[@]}" || exit
}

# pristine_clean_runs: "CLEAN RUNS" of the pristine runs.
pristine_clean_runs() {
	mutant_cmd clean "$pristine"
}

# ---- one mutant ---------------------------------------------------------------

# no_build NAME BUILD_S DETAIL: the result of a mutant without a kernel.
no_build() {
	mutant_cmd record --name "$1" --class no-build --build-s "$2" --detail "$3" \
		--out "$state/$1.json" || exit
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
		no_build "$n" 0 "the patch does not apply: $(head -n 1 "$state/patch.log")"
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
		no_build "$n" "$b" "${detail:-the build failed}"
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
	local n=$1 progs
	progs=$(programs_of "$n") || exit
	note "$n: running ${progs:-every program}"
	bg_t0=$(date +%s)
	rm -f "$logs/$n.1.stopped" "$logs/$n.1.seen"
	run_vm "$logs/$n.1" "$work/kernels/$n" bg "$n"
	if [ "$first_kill" = 1 ]; then
		watch_kill "$logs/$n.1" "$n" &
		watch_pid=$!
	fi
}

# watch_kill LOGBASE NAME: --first-kill. While the guest runs, its TAP so
# far (the complete lines: a line being written could end a test's name
# early) is judged every few seconds as a run stopped at its kill would be
# (iopath mutant classify --stopped-at-kill); once that says killed, the
# guest is stopped (vm.sh takes QEMU down on SIGTERM) and LOGBASE.stopped
# says so for finish_run.
watch_kill() {
	local base=$1 n=$2 lines
	trap - EXIT INT TERM
	while kill -0 "$bg_pid" 2>/dev/null; do
		sleep "${IOPATH_MUTATE_WATCH_S:-3}"
		lines=$(wc -l < "$base.tap") || exit 1
		head -n "$lines" "$base.tap" | write_file "$base.seen" || exit 1
		if mutant_cmd classify --plan "$plan" --pristine "$pristine" --stopped-at-kill \
			-- "$n" "$base.seen" 2>/dev/null | grep -q '^# IOPATH-MUTANT: class=killed '; then
			echo "$lines" | write_file "$base.stopped" || exit 1
			kill -TERM "$bg_pid" 2>/dev/null
			exit 0
		fi
	done
}

# finish_run NAME: wait for its first run, repeat a crash, classify:
# iopath mutant classify judges the runs by the one TAP reader's machine
# lines against the tests that passed on every pristine run, and writes
# the mutant's result.
finish_run() {
	local n=$1 b s crash i
	local -a runs=()
	b=$(cat "$state/$n.built")
	wait_bg
	if [ -n "$watch_pid" ]; then
		kill -TERM "$watch_pid" 2>/dev/null
		wait "$watch_pid"
		watch_pid=""
	fi
	# The run ended with its last line of output, maybe well before the
	# next mutant's build let us look.
	if [ -n "$lava_dir" ]; then
		# A LAVA job: the guest's own run time, from its result line
		# (the one reader of the machine lines; '-' when it has none).
		s=$("$(iopath_bin)" verdict --read --result IOPATH-VM-RESULT --fields seconds \
			"$logs/$n.1.tap" 2> /dev/null) || s=0
		[ "$s" = - ] && s=0
	else
		s=$(($(stat -c %Y "$logs/$n.1.err") - bg_t0))
	fi
	# A run stopped at its first kill is judged on LOGBASE.seen, its TAP
	# up to the line where the watcher saw the kill (LOGBASE.tap keeps all
	# the guest wrote); it has no result line, and is no crash.
	if [ -f "$logs/$n.1.stopped" ]; then
		head -n "$(cat "$logs/$n.1.stopped")" "$logs/$n.1.tap" | write_file "$logs/$n.1.seen" || exit 1
		save_results "$logs/$n.1" "$logs/$n.1.seen"
		mutant_cmd classify --plan "$plan" --pristine "$pristine" --stopped-at-kill \
			--build-s "$b" --run-s "$s" --err "$logs/$n.1.err" --out "$state/$n.json" \
			-- "$n" "$logs/$n.1.seen" > /dev/null || exit
		rm -f "$work/kernels/$n"
		note "$n: $(mutant_cmd class "$state/$n.json")"
		return
	fi
	rm -f "$logs/$n.1.seen"
	# A crash is run again, up to --crash-runs times; a clean run ends it.
	for i in $(seq 1 "$crash_runs"); do
		if [ "$i" -gt 1 ]; then
			run_vm "$logs/$n.$i" "$work/kernels/$n" fg "$n"
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
	mutant_cmd classify --plan "$plan" --pristine "$pristine" --crash-runs "$crash_runs" \
		--build-s "$b" --run-s "$s" --err "$logs/$n.$i.err" --out "$state/$n.json" \
		-- "$n" "${runs[@]}" > /dev/null || exit
	# A kernel that crashed on every run is kept, to be looked at.
	[ -z "$crash" ] && [ -z "$lava_dir" ] && rm -f "$work/kernels/$n"
	note "$n: $(mutant_cmd class "$state/$n.json")"
}

# ---- the matrix ---------------------------------------------------------------

# write_matrix: WORK/matrix.md and WORK/matrix.json from the plan and the
# state (iopath mutant matrix: the results read back and checked, JSON by
# jansson, both files renamed into place); prints "KILLED NON_EQUIVALENT".
write_matrix() {
	mutant_cmd matrix --work "$work" --ksrc "${ksrc:-}"
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
	echo "mutate: $built mutant kernels in $work/kernels, $nobuild did not build; pristine kernel $obj/arch/x86/boot/bzImage; $((SECONDS - t_start)) s (iopath lava mutate --work $work --plan $work/plan.json writes their jobs)"
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
	local -a runs=()
	rm -f "$state"/pristine.* "$logs"/pristine.*
	for f in "$lava_dir"/pristine.log "$lava_dir"/pristine.[0-9]*.log; do
		[ -f "$f" ] || continue
		i=$((i + 1))
		lava_run "$f" "$logs/pristine.$i"
		crash=$(crash_of "$logs/pristine.$i") || exit
		save_results "$logs/pristine.$i"
		runs+=("0:$(cat "$logs/pristine.$i.rc"):$logs/pristine.$i.tap")
		pristine_note "$i" "pristine job $i ($(basename "$f"))" "$crash"
	done
	pristine_runs=$i
	crash_runs=1
	mutant_cmd pristine --plan "$plan" --build-s null --out "$pristine" -- "${runs[@]}" || exit
	for n in "${mnames[@]}"; do
		[ -f "$lava_dir/$n.log" ] || continue
		rm -f "$state/$n.json" "$logs/$n".*
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
	rm -f "$state"/*.json "$state"/*.result "$state"/*.built "$state"/pristine.*
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
	if [ -f "$state/$n.json" ]; then
		note "$n: $(mutant_cmd class "$state/$n.json") (earlier run)"
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
# Leave the build tree matching the pristine source: rebuilt unless no
# file differs there (every mutant's kernel was built before, and kept).
if [ -s "$dirty" ]; then
	build_kernel "$logs/restore.build" ||
		note "the rebuild of the pristine tree failed ($logs/restore.build)"
fi
read -r nk nn < <(write_matrix)
[ -n "$nn" ] || exit 1
read -r pclean pruns < <(pristine_clean_runs)
[ -n "$pruns" ] || exit 1
cat "$work/matrix.md"
echo "mutate: $nk of $nn non-equivalent mutants killed; pristine clean on $pclean of $pruns runs; $((SECONDS - t_start)) s (matrix: $work/matrix.json)"
[ "$nk" = "$nn" ] && [ "$pclean" = "$pruns" ] && exit 0
exit 1
