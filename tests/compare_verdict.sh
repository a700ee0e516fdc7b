#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath compare: no verdict without the evidence for it. Bugs caught:
#  - the two sides aggregating the verdict metric differently ("agg"
#    hmean_inliers on one, median on the other): --format verdict printed
#    nothing and exited 0, --format ci said halfwidth=nan,
#    --fail-on-regression exited 0, so iopath ab printed no verdict line
#    and succeeded;
#  - both sides 0 (readv_ns 0 in every repetition): "n/a% [n/a%, n/a%],
#    no significant change", exit 0, and --format ci printed nan; so did
#    --alpha 1e-300 (an infinite t quantile) on any records.
# Each is one line naming the metric, exit 2, nothing on stdout; the table
# says "not tested" and why, and --fail-on-regression refuses a metric it
# could not test.
#
# usage: tests/compare_verdict.sh BUILD_DIR     (prints TAP)
set -u

build=${1:?usage: compare_verdict.sh BUILD_DIR}
iopath=$build/iopath
fix=$(cd "$(dirname "$0")/fixtures/compare" && pwd)
lib=$(cd "$(dirname "$0")/lib" && pwd)
tmp=$(mktemp -d /tmp/iopath-compare-verdict.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$lib/tap.sh"

cd "$fix" || exit 1

# refused NAME REGEX ARGS...: iopath compare ARGS gives exit 2, one line
# matching REGEX on stderr and nothing on stdout.
refused() {
	local name=$1 re=$2 rc
	shift 2
	"$iopath" compare "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -qE -- "$re" "$tmp/err" &&
	   [ ! -s "$tmp/out" ]; then
		ok "$name"
	else
		not_ok "$name (exit $rc)" "$(head -n 2 "$tmp/err")" "$(head -n 2 "$tmp/out")"
	fi
}

# ---- the sides aggregate the verdict metric differently --------------------
jq -c '.run.main_metric = (if .bench == "falloc_write" then "ops"
	elif .bench == "uring_randread" then "iops" else "read_ns" end)' base.jsonl > "$tmp/agg-base.jsonl"
jq -c '.run.main_metric = (if .bench == "falloc_write" then "ops"
	elif .bench == "uring_randread" then "iops" else "read_ns" end)
	| .metrics |= map(if .name == "ops" then .agg = "hmean_inliers" else . end)' \
	new-5pct.jsonl > "$tmp/agg-new.jsonl"
agg_re='falloc_write\.ops \(.*\): the verdict metric: "agg" is "hmean" in the base records, "hmean_inliers" in the new'
refused compare_verdict.agg_differs.verdict_refused "$agg_re" \
	"$tmp/agg-base.jsonl" "$tmp/agg-new.jsonl" --format verdict
refused compare_verdict.agg_differs.ci_refused "$agg_re" \
	"$tmp/agg-base.jsonl" "$tmp/agg-new.jsonl" --format ci --target-ci 5
refused compare_verdict.agg_differs.verdict_file_refused "$agg_re" \
	"$tmp/agg-base.jsonl" "$tmp/agg-new.jsonl" --verdict "$tmp/verdict.txt"
check_cmd compare_verdict.agg_differs.no_verdict_file_written test ! -e "$tmp/verdict.txt"
refused compare_verdict.agg_differs.fail_on_regression_refused \
	'falloc_write\.ops \(.*\): "agg" is .*: --fail-on-regression cannot rule out a regression' \
	"$tmp/agg-base.jsonl" "$tmp/agg-new.jsonl" --fail-on-regression
# Not the verdict metric, no gate: the table lists it as not compared.
"$iopath" compare "$tmp/agg-base.jsonl" "$tmp/agg-new.jsonl" > "$tmp/out" 2> "$tmp/err"
check_cmd compare_verdict.agg_differs.text_notes_it \
	bash -c '[ "$1" = 0 ] && [ ! -s "$3" ] && grep -q "not compared: falloc_write.ops" "$2"' _ "$?" \
	"$tmp/out" "$tmp/err"

# The verdict metric the records name differently, or one no record has.
jq -c '.run.main_metric = "lat_p99_ns"' new-5pct.jsonl > "$tmp/main-new.jsonl"
refused compare_verdict.main_metric_differs_refused \
	'falloc_write \(.*\): the verdict metric: its records do not all name one verdict metric' \
	"$tmp/agg-base.jsonl" "$tmp/main-new.jsonl" --format verdict
jq -c '.run.main_metric = "nosuch"' base.jsonl > "$tmp/nosuch-base.jsonl"
jq -c '.run.main_metric = "nosuch"' new-5pct.jsonl > "$tmp/nosuch-new.jsonl"
refused compare_verdict.main_metric_absent_refused \
	'falloc_write\.nosuch \(.*\): the verdict metric: no record of either side has it' \
	"$tmp/nosuch-base.jsonl" "$tmp/nosuch-new.jsonl" --format verdict

# ---- both sides 0 ---------------------------------------------------------
for s in base new-5pct; do
	jq -c '.run.main_metric = (if .bench == "read_vs_readv" then "readv_ns"
		elif .bench == "uring_randread" then "iops" else "ops" end)
		| .metrics |= map(if .name == "readv_ns" then .value = 0 | .samples = [0] else . end)' \
		"$s.jsonl" > "$tmp/zero-$s.jsonl"
done
zero_re='read_vs_readv\.readv_ns \(.*\): the verdict metric: not tested: the base mean is not above 0'
refused compare_verdict.both_zero.verdict_refused "$zero_re" \
	"$tmp/zero-base.jsonl" "$tmp/zero-new-5pct.jsonl" --format verdict
refused compare_verdict.both_zero.ci_refused "$zero_re" \
	"$tmp/zero-base.jsonl" "$tmp/zero-new-5pct.jsonl" --format ci --target-ci 5
refused compare_verdict.both_zero.fail_on_regression_refused \
	'read_vs_readv\.readv_ns \(.*\): not tested: .*--fail-on-regression cannot rule out' \
	"$tmp/zero-base.jsonl" "$tmp/zero-new-5pct.jsonl" --fail-on-regression
"$iopath" compare "$tmp/zero-base.jsonl" "$tmp/zero-new-5pct.jsonl" --format json > "$tmp/zero.json" 2> "$tmp/err"
check_cmd compare_verdict.both_zero.json_not_tested \
	bash -c 'jq -e "$1" "$2" > /dev/null' _ '[.comparisons[0].groups[].metrics[] | select(.name == "readv_ns")][0]
		| .verdict == "not tested" and (.why_not_tested | test("base mean")) and .change == null' \
	"$tmp/zero.json"
"$iopath" compare "$tmp/zero-base.jsonl" "$tmp/zero-new-5pct.jsonl" > "$tmp/zero.txt" 2> "$tmp/err"
check_cmd compare_verdict.both_zero.table_says_not_tested \
	bash -c 'grep -qE "n/a +read_vs_readv\.readv_ns$" "$1" &&
		grep -q "not tested: read_vs_readv.readv_ns .*base mean is not above 0" "$1"' _ "$tmp/zero.txt"

# ---- an alpha whose t quantile is infinite ---------------------------------
for f in verdict text json; do
	refused "compare_verdict.alpha_1e-300_refused.$f" \
		'\.(ops|iops|read_ns) \(.*\): the smallest change it could have seen is not a finite number' \
		base.jsonl new-5pct.jsonl --format "$f" --alpha 1e-300
done

# ---- what still gives a verdict ------------------------------------------------
"$iopath" compare base.jsonl new-5pct.jsonl --format verdict > "$tmp/out" 2> "$tmp/err"
check_cmd compare_verdict.three_groups_three_verdicts \
	bash -c '[ "$1" = 0 ] && [ ! -s "$3" ] && [ "$(grep -cE ", (improvement|regression|no significant change) \(could have seen >= [0-9.]+%" "$2")" = 3 ]' \
	_ "$?" "$tmp/out" "$tmp/err"
"$iopath" compare base.jsonl new-5pct.jsonl --format ci --target-ci 50 > "$tmp/out" 2> "$tmp/err"
check_cmd compare_verdict.ci_halfwidth_a_number \
	grep -qxE '# IOPATH-CI: reached=yes halfwidth=[0-9.]+ target=50' "$tmp/out"

finish_tap
