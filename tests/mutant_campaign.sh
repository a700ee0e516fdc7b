#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The campaign's state owned by iopath mutant (lib/campaign.h), without a
# kernel. Bugs caught:
#  - the plan of a mutant was derived three times (mutate.sh's programs,
#    filters and union, lava_mutate.c's own loop): the Filter-to-
#    KSELFTEST_<PROG>_ARGS transform, the "# Tests: all" rule and the
#    pristine union are checked here on the one plan both take;
#  - the results were key=value files written by bash and parsed by C:
#    the kill matrix of the last full campaign (41-53, its state in
#    tests/fixtures/campaign-h51 as mutate.sh wrote it then) must come out
#    byte for byte from its state converted once (iopath mutant convert)
#    and its plan;
#  - the pristine runs were judged by an awk over tab-separated files: a
#    test passes for the campaign only if it passed on every run;
#  - state is input: a plan with a control character in a filter, or a
#    result of a class none of mutate's, is refused with one line.
#
# usage: tests/mutant_campaign.sh BUILD_DIR     (prints TAP)
set -u

build=${1:?usage: mutant_campaign.sh BUILD_DIR}
iopath=$build/iopath
top=$(cd "$(dirname "$0")/.." && pwd)
lib=$top/tests/lib
tmp=$(mktemp -d /tmp/iopath-mutant-campaign.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$lib/tap.sh"

# mutant NAME TESTS [FILTER]: a mutant patch in $tmp/m
mkdir -p "$tmp/m"
mutant() {
	{
		printf '# Function: f()\n# Bug: planted\n# Tests: %s\n' "$2"
		[ -n "${3:-}" ] && printf '# Filter: %s\n' "$3"
		printf -- '--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n'
	} > "$tmp/m/$1.patch"
}
mutant 01-a a_test "a_test=-T two -v x"
mutant 02-b "b_test a_test"
mutant 03-all all

# ---- the plan and the runs' arguments -------------------------------------------
"$iopath" mutant plan --mutants "$tmp/m" --out "$tmp/p12.json" 01-a 02-b 2> "$tmp/err"
"$iopath" mutant args --plan "$tmp/p12.json" 01-a > "$tmp/a1" 2>> "$tmp/err"
"$iopath" mutant args --plan "$tmp/p12.json" pristine > "$tmp/ap" 2>> "$tmp/err"
check_cmd mutant_campaign.plan.filter_becomes_the_programs_env_and_tests_its_programs \
	bash -c 'diff <(printf "%s\n" --append no_timer_check --env "KSELFTEST_A_TEST_ARGS=-T two -v x" -- -t iopath:a_test) "$1" &&
		diff <(printf "%s\n" --append no_timer_check -- -t iopath:a_test -t iopath:b_test) "$2"' \
	_ "$tmp/a1" "$tmp/ap"
"$iopath" mutant plan --mutants "$tmp/m" --out "$tmp/pall.json" 2>> "$tmp/err"
"$iopath" mutant args --plan "$tmp/pall.json" 03-all > "$tmp/a3" 2>> "$tmp/err"
"$iopath" mutant args --plan "$tmp/pall.json" pristine > "$tmp/ap3" 2>> "$tmp/err"
check_cmd mutant_campaign.plan.tests_all_runs_the_whole_collection_and_so_does_pristine \
	bash -c 'diff <(printf "%s\n" --append no_timer_check) "$1" && diff "$1" "$2" &&
		jq -e ".mutants | map(.name) == [\"01-a\", \"02-b\", \"03-all\"]" "$3" > /dev/null' \
	_ "$tmp/a3" "$tmp/ap3" "$tmp/pall.json"
"$iopath" mutant plan --mutants "$tmp/m" --all-tests --out "$tmp/pat.json" 01-a 2>> "$tmp/err"
"$iopath" mutant args --plan "$tmp/pat.json" 01-a > "$tmp/aat" 2>> "$tmp/err"
check_cmd mutant_campaign.plan.all_tests_drops_programs_and_filters \
	bash -c 'diff <(printf "%s\n" --append no_timer_check) "$1"' _ "$tmp/aat"
check_cmd mutant_campaign.plan.no_error_output bash -c '[ ! -s "$1" ] || { cat "$1"; false; }' _ "$tmp/err"

# Bad headers and bad plans: one line, exit 2, nothing written.
mkdir -p "$tmp/bad"
printf '# Function: f()\n# Bug: b\n# Tests: a_test Bad-Name\n--- a/f.c\n+++ b/f.c\n' > "$tmp/bad/x.patch"
"$iopath" mutant plan --mutants "$tmp/bad" --out "$tmp/bad.json" > /dev/null 2> "$tmp/bad.err"
check_cmd mutant_campaign.plan.test_not_a_program_refused \
	bash -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "x.patch: .# Tests: Bad-Name. is not a selftest program name" "$2" &&
		[ ! -e "$3" ]' _ $? "$tmp/bad.err" "$tmp/bad.json"
printf '# Function: f()\n# Bug: b\n# Tests: a_test\n# Filter: a_test=two\n--- a/f.c\n+++ b/f.c\n' > "$tmp/bad/x.patch"
"$iopath" mutant plan --mutants "$tmp/bad" > /dev/null 2> "$tmp/bad.err"
check_cmd mutant_campaign.plan.filter_not_harness_options_refused \
	bash -c '[ "$1" = 2 ] && grep -q "is not .program_test=harness options." "$2"' _ $? "$tmp/bad.err"
jq '.mutants[0].filters[0].args = "-T \u001b]2;x\u0007"' "$tmp/p12.json" > "$tmp/hostile.json"
"$iopath" mutant args --plan "$tmp/hostile.json" 01-a > "$tmp/hostile.out" 2> "$tmp/hostile.err"
check_cmd mutant_campaign.plan.control_character_in_a_plan_refused \
	bash -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && [ ! -s "$3" ] && ! grep -q $'"'"'\x1b'"'"' "$2"' \
	_ $? "$tmp/hostile.err" "$tmp/hostile.out"

# ---- the pristine runs --------------------------------------------------------------
# run FILE RESULT_OF_a.x.two: a run's output, TAP as the guest prints it
run() {
	printf '# selftests: iopath: a_test\n# ok 1 a.x.one\n%s 2 a.x.two\nok 1 selftests: iopath: a_test\n# IOPATH-VM-RESULT: status=pass passed=1 failed=0 known=0 skipped=0 programs=1 programs_failed=0 required_missing=0 stale_known=0 seconds=1\n' \
		"$2" > "$1"
}
run "$tmp/r1" "# ok"
run "$tmp/r2" "# not ok"
"$iopath" mutant pristine --plan "$tmp/p12.json" --build-s 5 --out "$tmp/pr.json" -- \
	"3:0:$tmp/r1" "4:1:$tmp/r2" 2> "$tmp/pr.err"
check_cmd mutant_campaign.pristine.passing_means_on_every_run \
	bash -c '[ "$1" = 0 ] && jq -e ".passing == [\"a.x.one\"] and (.tests | length) == 2 and
		.runs == [{\"seconds\": 3, \"rc\": 0, \"stop\": \"\"}, {\"seconds\": 4, \"rc\": 1, \"stop\": \"\"}] and
		.build_s == 5" "$2" > /dev/null && [ "$("$3" mutant clean "$2")" = "2 2" ]' \
	_ $? "$tmp/pr.json" "$iopath"
"$iopath" mutant covers --plan "$tmp/p12.json" "$tmp/pr.json"
rc12=$?
"$iopath" mutant covers --plan "$tmp/pall.json" "$tmp/pr.json"
check_cmd mutant_campaign.pristine.a_plan_needing_more_programs_runs_it_again \
	bash -c '[ "$1" = 0 ] && [ "$2" = 1 ]' _ "$rc12" $?

# ---- results ------------------------------------------------------------------------
"$iopath" mutant record --name 01-a --class no-build --build-s 9 \
	--detail $'f.c:1: error: \e[2J' --out "$tmp/01-a.json" 2> "$tmp/rec.err"
check_cmd mutant_campaign.record.detail_escaped_once \
	bash -c '[ "$1" = 0 ] && jq -e ".class == \"no-build\" and .build_s == 9 and .run_s == 0 and
		.detail == \"f.c:1: error: \\\\x1b[2J\"" "$2" > /dev/null && [ "$("$3" mutant class "$2")" = no-build ]' \
	_ $? "$tmp/01-a.json" "$iopath"
jq '.class = "killed-by-me"' "$tmp/01-a.json" > "$tmp/01-b.json"
"$iopath" mutant class "$tmp/01-b.json" > /dev/null 2> "$tmp/cls.err"
check_cmd mutant_campaign.result.class_checked_not_trusted \
	bash -c '[ "$1" = 2 ] && grep -q "class .killed-by-me. is none of iopath mutate.s" "$2"' _ $? "$tmp/cls.err"

# ---- the last full campaign, from its state ---------------------------------------
# Its state as mutate.sh wrote it (key=value), converted once; its plan (the
# mutants in the order they were asked for); the matrix it printed then.
fx=$top/tests/fixtures/campaign-h51
w=$tmp/h51
mkdir -p "$w/state"
"$iopath" mutant convert "$fx/state" "$w/state" 2> "$tmp/h51.err" &&
	"$iopath" mutant matrix --work "$w" --plan "$fx/plan.json" \
		--ksrc /var/cache/iopath/h51/src/linux-source-7.2 > "$tmp/h51.out" 2>> "$tmp/h51.err"
check_cmd mutant_campaign.convert.last_campaign_matrix_reproduced_byte_for_byte \
	bash -c '[ "$1" = 0 ] && [ "$(cat "$2")" = "12 13" ] && cmp "$3/matrix.json" "$4/matrix.json" &&
		cmp "$3/matrix.md" "$4/matrix.md" || { cat "$5"; false; }' \
	_ $? "$tmp/h51.out" "$w" "$fx" "$tmp/h51.err"

finish_tap
