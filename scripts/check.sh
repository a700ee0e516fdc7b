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
failed_list=()

# leftovers(): what iopath may leave behind, compared before and after.
. "$top/tests/lib/tap.sh"

# run NAME TIMEOUT CMD...: run one TAP program and count its results.
run() {
	local name=$1 tmo=$2 log rc p f s
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
	pass=$((pass + p))
	skip=$((skip + s))
	fail=$((fail + f))
	[ "$f" != 0 ] && failed_list+=("$name")
	printf '# %-40s %3d passed, %d failed, %d skipped\n' "$name" "$p" "$f" "$s" >&2
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
echo "check: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
