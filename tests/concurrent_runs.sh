#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# iopath-check: needs=mount-namespace
#
# Two `iopath run` started in the same second, into the same results
# directory, each running a selftest binary and a short benchmark on its
# own scratch filesystems: both pass, each has its own log holding every
# line of its selftest and benchmark, and its own records file holding
# every record.
#
# Catches: output names made of the time alone (results/run-<time>.log
# and .jsonl), where the second run opened the first one's files: records
# lost (4 of 8 kept) and log lines lost (208 result lines missing); and
# one run tearing down the other's scratch filesystems (its tests or its
# benchmark then fail).
#
# usage: tests/concurrent_runs.sh BUILD_DIR   (TAP on stdout; needs root)
set -u

build=$(cd "${1:?usage: concurrent_runs.sh BUILD_DIR}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
iop=$build/iopath
test_bin=extent_map_test

. "$top/tests/lib/tap.sh"

skip_all_unless_root "iopath run makes scratch filesystems"
if [ ! -x "$iop" ] || [ ! -x "$build/kselftest/iopath/$test_bin" ]; then
	echo "1..0 # SKIP $iop or $build/kselftest/iopath/$test_bin not built"
	exit 0
fi
tmp=$(mktemp -d /tmp/iopath-concurrent.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# A source tree whose installed collection holds one selftest program
# (IOPATH_SRC), and a short profile.
src=$tmp/src
k=$src/build/kselftest
mkdir -p "$k/iopath"
cp "$build/kselftest/run_kselftest.sh" "$k/"
cp -r "$build/kselftest/kselftest" "$k/"
echo "iopath:$test_bin" > "$k/kselftest-list.txt"
for f in "$test_bin" iopath_probe iopath_verdict settings requirements; do
	ln -s "$build/kselftest/iopath/$f" "$k/iopath/$f"
done
# Its ext4 variants only, as run_kselftest.sh passes a program its
# arguments: a post-test xfs_repair while another run holds a copy of the
# mount namespace can find a dirty log (a known false failure of its own,
# not what this test is about).
export KSELFTEST_EXTENT_MAP_TEST_ARGS="-v ext4 -v ext4_1k"
ln -s "$top/configs" "$src/configs"
ln -s "$top/scripts" "$src/scripts"
cat > "$tmp/short.conf" <<'EOF'
[falloc_write]
fs = ext4
reps = 2
runtime = 1
warmup = 0
size = 16m
EOF
# every test of the program, in each of the two variants
want_tests=$(($(grep -cE '^TEST_F(_TIMEOUT)?\(' "$top/selftests/$test_bin.c") * 2))

# Start both at the beginning of a second, so that their time stamps match.
sleep "0.$(printf '%03d' $(( (1000000000 - 10#$(date +%N)) / 1000000 % 1000 )))"
for i in 1 2; do
	IOPATH_SRC=$src "$iop" run --profile "$tmp/short.conf" --results "$tmp/results" \
		> "$tmp/out$i" 2> "$tmp/err$i" &
	eval "pid$i=$!"
done
# shellcheck disable=SC2154
wait "$pid1"
rc1=$?
# shellcheck disable=SC2154
wait "$pid2"
rc2=$?

if [ "$rc1" = 0 ] && [ "$rc2" = 0 ]; then
	ok concurrent_runs.both_pass
else
	not_ok concurrent_runs.both_pass "exit $rc1 and $rc2" "$(tail -3 "$tmp/err1")" "$(tail -3 "$tmp/err2")"
fi

mapfile -t logs < <(ls "$tmp/results"/run-*.log 2> /dev/null)
mapfile -t recs < <(ls "$tmp/results"/run-*.jsonl 2> /dev/null)
stamps=$(printf '%s\n' "${logs[@]}" | sed -n 's/.*run-\([0-9]*-[0-9]*\)-.*/\1/p' | sort -u | wc -l)
check "$([ "${#logs[@]}" = 2 ] && [ "${#recs[@]}" = 2 ]; echo $?)" \
	"concurrent_runs.own_log_and_records_each (${#logs[@]} logs, ${#recs[@]} record files, $stamps distinct seconds)"

bad=""
for log in "${logs[@]}"; do
	results=$(grep -cE '^# (not )?ok [0-9]+ extent_map\.ext4(_1k)?\.' "$log")
	[ "$results" = "$want_tests" ] || bad="$bad $(basename "$log"):$results/$want_tests-results"
	grep -q '^# ---- bench --profile' "$log" || bad="$bad $(basename "$log"):no-bench-section"
	grep -q 'iopath: bench: 1 job ran, 0 failed' "$log" || bad="$bad $(basename "$log"):no-bench-summary"
done
check "$([ -z "$bad" ] && [ "${#logs[@]}" = 2 ]; echo $?)" "concurrent_runs.every_log_line_kept${bad:+ ($bad)}"

bad=""
for r in "${recs[@]}"; do
	cnt=$(grep -c '"bench":"falloc_write"' "$r")
	[ "$cnt" = 2 ] || bad="$bad $(basename "$r"):$cnt/2"
done
check "$([ -z "$bad" ] && [ "${#recs[@]}" = 2 ]; echo $?)" "concurrent_runs.every_record_kept${bad:+ ($bad)}"

finish_tap
