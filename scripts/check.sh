#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check: the project's own tests, then the selftests, then a leftover
# check. Every program speaks TAP; this script counts the top-level
# results of all of them and ends with "N passed, N failed, N skipped".
#
#   build/tests/*        unit tests of lib/ and the CLI (kselftest harness)
#   tests/*.sh           CLI and end-to-end tests (get the build dir as $1)
#   build/kselftest      the kselftest collection, on scratch ext4 and XFS,
#                        one program at a time through
#                        scripts/selftest-runner.sh, the runner of iopath
#                        run, make kselftest and the VM guests: its time
#                        limit (the collection's settings), its verdict
#
# A selftest failure that configs/known-failures lists for the running
# kernel (a known kernel bug) is reported and counted apart, by that
# runner's rules; IOPATH_KNOWN_FAILURES=/dev/null counts it as a failure.
#
# CHECK_FILTER=regex runs only the programs whose name matches.
set -u

build=${1:?usage: check.sh BUILD_DIR}
# The tests run make themselves and count its lines: run from make check,
# they would inherit its jobserver flags, and each of their makes would
# warn on stderr that the jobserver is unavailable to it. They run as they
# would from a shell.
unset MAKEFLAGS MFLAGS MAKELEVEL
top=$(cd "$(dirname "$0")/.." && pwd)
filter=${CHECK_FILTER:-.}
log_dir=$build/check-logs
mkdir -p "$log_dir"

pass=0
fail=0
skip=0
known=0
failed_list=()

# leftovers(): what iopath may leave behind, compared before and after.
. "$top/tests/lib/tap.sh"

runner=$top/scripts/selftest-runner.sh
ksft=$build/kselftest
selftests_tap=$log_dir/selftests.tap
: > "$selftests_tap"
nprog=0

script_tmo=900
log_of() { echo "$log_dir/$(echo "$1" | tr '/ ' '__').log"; }

# start_early SCRIPT...: run tests/SCRIPT.sh, one after the other, in the
# background from now on; run() takes each one's log and exit status in
# its turn, so the output and the counts are those of a run in order. Only
# for scripts that share nothing with the programs beside them: no scratch
# device, mount, trace instance or kernel-log line, no look at the whole
# host's leftovers.
declare -A early=()
start_early() {
	local t
	for t in "$@"; do
		rm -f "$(log_of "script/$t").rc"
	done
	(
		tp=""
		trap '[ -n "$tp" ] && kill "$tp" 2> /dev/null && wait "$tp"; exit 143' TERM
		for t in "$@"; do
			[[ script/$t =~ $filter ]] && [ -x "$top/tests/$t.sh" ] || continue
			log=$(log_of "script/$t")
			s0=$SECONDS
			timeout --foreground -k 10 "$script_tmo" "$top/tests/$t.sh" "$build" > "$log" 2>&1 &
			tp=$!
			wait "$tp"
			rc=$? tp=""
			echo "$rc $((SECONDS - s0))" > "$log.rc.tmp" && mv "$log.rc.tmp" "$log.rc"
		done
	) &
	for t in "$@"; do
		early[script/$t]=$!
	done
}
# alive PID: a background job of this shell still running (never another
# process that got the number since)
alive() { [[ " $(jobs -rp | tr '\n' ' ') " == *" $1 "* ]]; }
# make check interrupted: what started early ends too.
trap 'for p in $(jobs -rp); do kill "$p" 2> /dev/null; done' EXIT

# A chroot into a plain directory (sbuild, pbuilder): no selftest can
# mount its scratch filesystems there. Said once, here; the selftests and
# the scripts whose header says "iopath-check: needs=mount-namespace"
# (they run selftests) are one skip each, not a failure of every test.
ns_why=""
if ! ns_out=$("$build/iopath" scratch namespace 2>&1); then
	ns_why=${ns_out#iopath: scratch namespace: }
	ns_why=${ns_why:-iopath scratch namespace failed}
	echo "# mount namespace: SKIP: $ns_why" >&2
fi

# run NAME TIMEOUT CMD...: run one TAP program (a unit test or a tests/
# script); the verdict engine (iopath verdict) counts its results.
run() {
	local name=$1 tmo=$2 log rc t0=$SECONDS took
	shift 2
	[[ $name =~ $filter ]] || return 0
	if [ -n "$ns_why" ] && [[ $name == script/* ]] &&
		grep -qx '# iopath-check: needs=mount-namespace' "$1"; then
		echo "# $name: SKIP: no mount namespace of its own" >&2
		skip=$((skip + 1))
		return 0
	fi
	log=$(log_of "$name")
	echo "# ---- $name" >&2
	if [ -n "${early[$name]:-}" ]; then
		while [ ! -e "$log.rc" ] && alive "${early[$name]}"; do
			sleep 0.2
		done
		read -r rc took < "$log.rc" || rc=1 took=0
		t0=$((SECONDS - took))
	else
		timeout --foreground -k 10 "$tmo" "$@" > "$log" 2>&1
		rc=$?
	fi
	sed 's/^/  /' "$log" >&2
	[ "$rc" = 137 ] && rc=124
	[ "$rc" = 124 ] && echo "# $name: timed out after ${tmo}s" >&2
	"$build/iopath" verdict --kernel "$(uname -r)" --tag "$name" --program "$name" \
		--exit-status "$rc" /dev/null /dev/null /dev/null "$log" > "$log.verdict"
	count "$name" "$t0" "$log.verdict"
}

# run_selftest PROGRAM: one selftest program through the selftest runner,
# which starts it, limits its time and gives the verdict: the known
# kernel bugs of configs/known-failures counted apart, a test that
# skipped although the kernel has what selftests/requirements says it
# needs a failure.
run_selftest() {
	local name=selftest/$1 log t0=$SECONDS
	[[ $name =~ $filter ]] || return 0
	log=$(log_of "$name")
	echo "# ---- $name" >&2
	"$runner" --tag "$name" "$ksft" -t "iopath:$1" > "$log" 2>&1
	sed 's/^/  /' "$log" >&2
	cat "$log" >> "$selftests_tap"
	nprog=$((nprog + 1))
	count "$name" "$t0" "$log"
}

# count NAME T0 FILE: add the counts of a program's verdict in FILE (its
# notes, shown, and its result line, as the one reader of the machine
# lines gives it: iopath verdict --read) to the run's, and say them.
count() {
	local name=$1 t0=$2 res p f s k
	grep "^# $name: " "$3" | grep -v "^# $name: feature " >&2
	if ! res=$("$build/iopath" verdict --read --result IOPATH-RESULT \
		--fields passed,failed,skipped,known "$3" 2>&1); then
		echo "# $name: no verdict (its output: $(log_of "$name"))${res:+: $res}" >&2
		res="0 1 0 0"
	fi
	read -r p f s k <<< "$res"
	pass=$((pass + p))
	skip=$((skip + s))
	fail=$((fail + f))
	known=$((known + k))
	[ "$f" != 0 ] && failed_list+=("$name")
	printf '# %-40s %3d passed, %d failed, %d skipped%s (%d s)\n' "$name" "$p" "$f" "$s" \
		"$([ "$k" != 0 ] && echo ", $k known")" $((SECONDS - t0)) >&2
}

before=$(leftovers | sort)
# The kernel-log check of the whole run: a WARNING between two tests'
# windows, or after a test's own check, is seen here.
if ! run_mark=$("$build/iopath" kmsg mark 2> "$log_dir/kmsg-mark.err"); then
	echo "# kernel-log check of the run: NOT DONE: $(head -n 1 "$log_dir/kmsg-mark.err")" >&2
	run_mark=""
fi

# tests/vm.sh: its guests run under QEMU for half a minute, most of it one
# CPU emulating a boot or a fixed wait; the others: the tree, the build,
# awk, python, checkpatch and fakes only, on the second CPU while the
# scripts of the foreground create and check scratch filesystems.
start_early vm upstream
start_early ab ab_promise compare fuzz kbuild kcidb lava lint mutate mutate_tool plant style tap_verdict verdict_read
for t in "$build"/tests/*; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	run "unit/$(basename "$t")" 300 "$t"
done
# tests/resolution.sh checks what its benchmarks measured (a busy-wait
# sized to 200 ns, a floor 1.5 times another): it runs last, alone, once
# everything started early has ended, so no other script shares its CPU.
quiet=resolution
for t in "$top"/tests/*.sh; do
	[ -x "$t" ] && [ "$(basename "$t" .sh)" != "$quiet" ] || continue
	run "script/$(basename "$t" .sh)" "$script_tmo" "$t" "$build"
done
if [ -n "$ns_why" ]; then
	echo "# selftests: SKIP: no mount namespace of their own" >&2
	skip=$((skip + 1))
elif [ -r "$ksft/kselftest-list.txt" ]; then
	for t in $(sed -n 's/^iopath://p' "$ksft/kselftest-list.txt"); do
		run_selftest "$t"
	done
else
	echo "# selftests: no $ksft/kselftest-list.txt (make kselftest-install)" >&2
	fail=$((fail + 1))
	failed_list+=("selftests")
fi
for p in $(jobs -rp); do
	wait "$p"
done
run "script/$quiet" "$script_tmo" "$top/tests/$quiet.sh" "$build"

if [ -z "$run_mark" ]; then
	fail=$((fail + 1))
	failed_list+=("kernel-log")
elif ! "$build/iopath" kmsg check "$run_mark" > "$log_dir/kmsg-run.txt" 2>&1; then
	echo "# kernel log of the run: $(head -n 1 "$log_dir/kmsg-run.txt")" >&2
	fail=$((fail + 1))
	failed_list+=("kernel-log")
else
	pass=$((pass + 1))
fi
after=$(leftovers | sort)
new=$(comm -13 <(echo "$before") <(echo "$after") | sed '/^$/d')
if [ -n "$new" ]; then
	echo "# leftovers after the run:" >&2
	echo "$new" | sed 's/^/#   /' >&2
	fail=$((fail + 1))
	failed_list+=("no-leftovers")
else
	pass=$((pass + 1))
fi

# The coverage block of the selftests that ran, by the runner.
if [ "$nprog" != 0 ]; then
	"$runner" --tag check --coverage --judge "$selftests_tap" "$ksft" | grep '^# check: coverage: ' >&2
fi
echo "# check: coverage: kernel-log check of the whole run: $([ -n "$run_mark" ] && echo ran || echo NOT RUN)" >&2
echo "# check: $SECONDS s in all" >&2
if [ "${#failed_list[@]}" != 0 ]; then
	echo "# failed: ${failed_list[*]} (logs in $log_dir)" >&2
fi
if [ "$known" != 0 ]; then
	echo "# check: $known known (kernel bugs configs/known-failures lists), counted apart" >&2
fi
# The last line, exactly as CI reads it.
echo "check: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
