#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check: the project's own tests, then the selftests, then a leftover
# check. Every program speaks TAP; this script counts the top-level
# results of all of them and ends with "N passed, N failed, N skipped".
#
#   build/tests/*        unit tests of lib/ and the CLI (kselftest harness)
#   tests/*.sh           CLI and end-to-end tests (get the build dir as $1)
#   build/selftests/*    the kselftest collection, on scratch ext4 and XFS
#
# A selftest failure that configs/known-failures lists for the running
# kernel (a known kernel bug) is reported and counted apart, by the same
# rules as iopath vm and make kselftest; IOPATH_KNOWN_FAILURES=/dev/null
# counts it as a failure.
#
# CHECK_FILTER=regex runs only the programs whose name matches.
set -u

build=${1:?usage: check.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
filter=${CHECK_FILTER:-.}
log_dir=$build/check-logs
mkdir -p "$log_dir"

pass=0
fail=0
skip=0
known=0
known_list=${IOPATH_KNOWN_FAILURES:-$top/configs/known-failures}
failed_list=()

# leftovers(): what iopath may leave behind, compared before and after.
. "$top/tests/lib/tap.sh"

# run NAME TIMEOUT CMD...: run one TAP program and count its results.
run() {
	local name=$1 tmo=$2 log rc p f s k res
	shift 2
	[[ $name =~ $filter ]] || return 0
	log=$log_dir/$(echo "$name" | tr '/ ' '__').log
	echo "# ---- $name" >&2
	timeout --foreground -k 10 "$tmo" "$@" > "$log" 2>&1
	rc=$?
	sed 's/^/  /' "$log" >&2
	p=$(grep -cE '^ok [0-9]+' "$log" | head -1)
	s=$(grep -cE '^ok [0-9]+.*# SKIP' "$log" | head -1)
	f=$(grep -cE '^not ok [0-9]+' "$log" | head -1)
	p=$((p - s))
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "# $name: timed out after ${tmo}s" >&2
		f=$((f + 1))
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		# A crash or an error outside any test still fails the run.
		echo "# $name: exit status $rc with no failed test reported" >&2
		f=1
	fi
	# A selftest's failures that configs/known-failures lists for this
	# kernel are reported and counted apart (scripts/tap-verdict.awk).
	k=0
	if [[ $name == selftest/* ]]; then
		res=$(awk -v kernel="$(uname -r)" -v tag="$name" -v program="$name" -v exit_status="$rc" \
			-f "$top/scripts/tap-verdict.awk" "$known_list" /dev/null "$log")
		grep "^# $name: " <<< "$res" >&2
		k=$(sed -n 's/.* known=\([0-9]*\) .*/\1/p' <<< "$res")
		k=${k:-0}
		if grep -q ' status=pass ' <<< "$res"; then
			f=0
		else
			f=$((f > k ? f - k : 1))
		fi
	fi
	pass=$((pass + p))
	skip=$((skip + s))
	fail=$((fail + f))
	known=$((known + k))
	[ "$f" != 0 ] && failed_list+=("$name")
	printf '# %-40s %3d passed, %d failed, %d skipped%s\n' "$name" "$p" "$f" "$s" \
		"$([ "$k" != 0 ] && echo ", $k known")" >&2
}

before=$(leftovers | sort)

for t in "$build"/tests/*; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	run "unit/$(basename "$t")" 300 "$t"
done
for t in "$top"/tests/*.sh; do
	[ -x "$t" ] || continue
	run "script/$(basename "$t" .sh)" 900 "$t" "$build"
done
for t in "$build"/selftests/*_test; do
	[ -x "$t" ] || continue
	run "selftest/$(basename "$t")" 300 "$t"
done

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

if [ "${#failed_list[@]}" != 0 ]; then
	echo "# failed: ${failed_list[*]} (logs in $log_dir)" >&2
fi
echo "check: $pass passed, $fail failed, $skip skipped$([ "$known" != 0 ] && echo ", $known known (kernel bugs configs/known-failures lists)")"
[ "$fail" = 0 ]
