#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run each libFuzzer target for SECONDS, one after the other, starting from
# the seeds tests/fuzz/seeds.sh makes from tests/fixtures plus what earlier
# runs found (FUZZ_DIR/corpus/TARGET). A crash, a hang (-timeout), memory
# past -rss_limit_mb, a leak or a sanitizer report stops that target with
# its reproducer in FUZZ_DIR/artifacts/ and fails the run. The last lines
# of each target's log (execs/s, coverage) are printed.
#
# usage: scripts/fuzz.sh FUZZ_DIR SECONDS TARGET...
set -u

dir=${1:?usage: fuzz.sh FUZZ_DIR SECONDS TARGET...}
secs=${2:?usage: fuzz.sh FUZZ_DIR SECONDS TARGET...}
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
failed=0

rm -rf "$dir/seeds"
"$top/tests/fuzz/seeds.sh" "$dir/seeds" || exit 1
mkdir -p "$dir/artifacts" "$dir/logs"
for t in "$@"; do
	mkdir -p "$dir/corpus/$t"
	echo "fuzz: $t for ${secs}s"
	# -close_fd_mask=3: the targets' usage errors would drown the log;
	# libFuzzer keeps its own and the sanitizers' reports.
	# A target's dictionary of tokens (tests/fuzz/TARGET.dict), if it has one.
	dict=()
	[ -f "$top/tests/fuzz/$t.dict" ] && dict=(-dict="$top/tests/fuzz/$t.dict")
	"$dir/bin/$t" "$dir/corpus/$t" "$dir/seeds/$t" "${dict[@]}" -max_total_time="$secs" \
		-timeout=10 -rss_limit_mb=2048 -max_len=65536 -close_fd_mask=3 \
		-print_final_stats=1 -artifact_prefix="$dir/artifacts/$t-" \
		> "$dir/logs/$t.log" 2>&1
	rc=$?
	grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' \
		"$dir/logs/$t.log" | sed "s/^/fuzz: $t: /"
	if [ "$rc" != 0 ]; then
		echo "fuzz: $t FAILED (exit $rc); log $dir/logs/$t.log, reproducer in $dir/artifacts/" >&2
		grep -m5 -E 'ERROR|SUMMARY|runtime error' "$dir/logs/$t.log" >&2
		failed=1
	fi
done
exit $failed
