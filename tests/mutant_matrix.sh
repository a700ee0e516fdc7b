#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath mutant matrix on hostile state, without a kernel. Bugs caught:
#  - a result's detail or --ksrc holding bytes that are not UTF-8 (or
#    control characters): jansson returned NULL, the code ignored it, and
#    matrix.json said "killed":2 while listing one mutant (the other
#    lost), matrix.md printed the raw bytes; a header with such bytes went
#    the same way. Now every string is in both files as iop_esc() gives
#    it, a header that is not UTF-8 is refused with one line, and so is a
#    result file that is not JSON (the state is JSON: lib/campaign.h);
#  - work/matrix.json a directory: matrix.md was written, then exit 2 on
#    matrix.json, an inconsistent pair. Now neither is written;
#  - generated mutants (iopath mutant generate) are a random sample: their
#    kill rate comes with its 95% Clopper-Pearson interval, over those
#    that built and have a verdict, the equivalent ones left out (1 of 2:
#    1 - sqrt(0.975) to sqrt(0.975); 2 of 2: sqrt(0.025) to 1).
#
# usage: tests/mutant_matrix.sh BUILD_DIR     (prints TAP)
set -u

build=${1:?usage: mutant_matrix.sh BUILD_DIR}
iopath=$build/iopath
lib=$(cd "$(dirname "$0")/lib" && pwd)
tmp=$(mktemp -d /tmp/iopath-mutant-matrix.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$lib/tap.sh"

# mutant DIR NAME FUNCTION: a mutant patch with the header iopath mutate needs
mutant() {
	printf '# Mutant: %s\n# Function: %s\n# Tests: a_test\n# Bug: planted\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n' \
		"$2" "$3" > "$1/$2.patch"
}
# result WORK NAME CLASS DETAIL: a result as iopath mutant classify writes
# it (DETAIL: a JSON string's text)
result() {
	printf '{"schema": "iopath-mutant-result/1", "name": "%s", "class": "%s", "killed_by": ["a.x.two"], "build_s": 3, "run_s": 7, "detail": "%s"}\n' \
		"$2" "$3" "$4" > "$1/state/$2.json"
}
# setup NAME: $tmp/NAME with mutants 01-a (killed) and 02-b (crash)
setup() {
	w=$tmp/$1
	mkdir -p "$w/mutants" "$w/state"
	mutant "$w/mutants" 01-a 'f()'
	mutant "$w/mutants" 02-b 'g()'
	result "$w" 01-a killed 'a_test.c:10:two:Expected 4096'
	result "$w" 02-b crash 'Oops: int3'
}
# plan WORK NAME...: the plan of those mutants of WORK/mutants, WORK/plan.json
plan() {
	local w=$1
	shift
	"$iopath" mutant plan --mutants "$w/mutants" --out "$w/plan.json" "$@"
}
matrix() { # matrix NAME ARGS...: iopath mutant plan, then matrix, on $tmp/NAME
	local name=$1
	shift
	plan "$tmp/$name" 01-a 02-b 2> "$tmp/$name.err" &&
		"$iopath" mutant matrix --work "$tmp/$name" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
	rc=$?
}

# ---- bytes that are not UTF-8 -------------------------------------------------
setup detail
result "$w" 02-b crash 'Oops: \u0085 int3 \u001b[2J'
matrix detail --ksrc $'/src/\xff'
check_cmd mutant_matrix.not_utf8.json_lists_every_mutant_counted \
	bash -c 'jq -e "$1" "$2" > /dev/null' _ '.killed == 2 and (.mutants | length) == 2 and
		.mutants[1].detail == "Oops: \\xc2\\x85 int3 \\x1b[2J" and .kernel_source == "/src/\\xff"' \
	"$tmp/detail/matrix.json"
check_cmd mutant_matrix.not_utf8.md_escaped_as_json \
	bash -c '[ "$1" = 0 ] && grep -qF "| Oops: \xc2\x85 int3 \x1b[2J |" "$2" && ! LC_ALL=C grep -q "[^ -~]" "$2"' \
	_ "$rc" "$tmp/detail/matrix.md"
setup notjson
printf 'class=killed\ndetail=Oops: \xff\n' > "$w/state/02-b.json"
matrix notjson
check_cmd mutant_matrix.not_utf8.result_not_json_refused_one_line \
	bash -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "02-b.json:1: not JSON" "$2" &&
		[ ! -e "$3/matrix.md" ] && [ ! -e "$3/matrix.json" ]' _ "$rc" "$tmp/notjson.err" "$w"

setup header
mutant "$w/mutants" 02-b $'g\xff()'
matrix header
check_cmd mutant_matrix.not_utf8.header_refused_one_line \
	bash -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] &&
		grep -q "02-b.patch:2: a control character or a byte that is not UTF-8 (0xff) in the header" "$2" &&
		[ ! -e "$3/matrix.md" ] && [ ! -e "$3/matrix.json" ]' _ "$rc" "$tmp/header.err" "$w"

# ---- the two outputs together or not at all -----------------------------------
setup jsondir
mkdir "$w/matrix.json"
matrix jsondir
check_cmd mutant_matrix.json_a_directory_writes_neither \
	bash -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -q "matrix.json: is a directory" "$2" &&
		[ ! -e "$3/matrix.md" ] && [ -z "$(find "$3" -maxdepth 1 -name "*.tmp.*")" ]' \
	_ "$rc" "$tmp/jsondir.err" "$w"
setup mddir
mkdir "$w/matrix.md"
matrix mddir
check_cmd mutant_matrix.md_a_directory_writes_neither \
	bash -c '[ "$1" = 2 ] && grep -q "matrix.md: is a directory" "$2" && [ ! -e "$3/matrix.json" ]' \
	_ "$rc" "$tmp/mddir.err" "$w"
setup good
matrix good
check_cmd mutant_matrix.both_written \
	bash -c '[ "$1" = 0 ] && [ "$(cat "$2")" = "2 2" ] && [ "$(grep -c "^| 0" "$3/matrix.md")" = 2 ] &&
		jq -e ".killed == 2 and (.mutants | length) == 2" "$3/matrix.json" > /dev/null' \
	_ "$rc" "$tmp/good.out" "$w"

# ---- generated mutants: the kill rate and its interval --------------------------
# gmutant DIR NAME SEED: a generated mutant's header
gmutant() {
	printf '# Mutant: %s\n# Function: f()\n# Tests: all\n# Bug: relop\n# Generated: relop, %s\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n' \
		"$2" "$3" > "$1/$2.patch"
}
w=$tmp/gen
mkdir -p "$w/mutants" "$w/state"
gmutant "$w/mutants" 001-relop-f 5
gmutant "$w/mutants" 002-relop-g 5
gmutant "$w/mutants" 003-relop-h 5
gmutant "$w/mutants" 004-relop-i 5
mutant "$w/mutants" 05-hand 'j()'
result "$w" 001-relop-f killed x
result "$w" 002-relop-g survived x
result "$w" 003-relop-h no-build x
result "$w" 004-relop-i equivalent x
result "$w" 05-hand killed x
plan "$w" 001-relop-f 002-relop-g 003-relop-h 004-relop-i 05-hand &&
	"$iopath" mutant matrix --work "$w" > "$tmp/gen.out" 2> "$tmp/gen.err"
rc=$?
check_cmd mutant_matrix.generated.kill_rate_with_clopper_pearson_interval \
	bash -c '[ "$1" = 0 ] && grep -qx "Generated mutants (seed 5): 4: 1 killed, 1 survived, 1 equivalent, 1 did not build, 0 unstable, 0 not run." "$2/matrix.md" &&
		grep -qx "Kill rate of the 2 non-equivalent ones that built and ran: 1/2 = 50.0% (95% CI 1.3% to 98.7%, Clopper-Pearson)." "$2/matrix.md" &&
		jq -e ".generated.rate_of == 2 and .generated.kill_rate == 0.5 and .generated.seeds == [5] and
			(.generated.ci95_low - (1 - (0.975 | sqrt)) | fabs) < 1e-9 and
			(.generated.ci95_high - (0.975 | sqrt) | fabs) < 1e-9" "$2/matrix.json" > /dev/null' \
	_ "$rc" "$w"
result "$w" 002-relop-g crash x
plan "$w" 001-relop-f 002-relop-g && "$iopath" mutant matrix --work "$w" > /dev/null 2> "$tmp/gen.err"
check_cmd mutant_matrix.generated.all_killed_interval_reaches_one \
	bash -c 'jq -e "(.generated.ci95_low - (0.025 | sqrt) | fabs) < 1e-9 and .generated.ci95_high == 1" "$1/matrix.json" > /dev/null' \
	_ "$w"
plan "$tmp/good" 01-a 02-b && "$iopath" mutant matrix --work "$tmp/good" > /dev/null 2>&1
check_cmd mutant_matrix.generated.hand_written_only_no_rate \
	bash -c '! grep -q "Kill rate" "$1/matrix.md" && jq -e ".generated == null" "$1/matrix.json" > /dev/null' _ "$tmp/good"

finish_tap
