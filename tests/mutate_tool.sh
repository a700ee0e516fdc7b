#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# scripts/mutate-tool.sh without running a campaign (that is `make
# mutate-tool`, minutes of rebuilds): every mutant of configs/mutants/tool/
# still applies to this tree and changes what its header says it changes,
# so a mutant cannot rot into a patch that no longer plants its bug; the
# test programs and Expect checks it names exist; and bad input (an
# unknown option, a bad --timeout, a mutant that is not there, a header
# without Tests, a test program that does not exist, a diff that leaves
# the tree, an existing --work) gets one line and exit 2 with nothing
# created.
#
# usage: tests/mutate_tool.sh BUILD_DIR   (TAP on stdout)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd) || exit 1
run=$top/scripts/mutate-tool.sh
# The headers are iopath mutant's (the binary under test).
export IOPATH_BIN=$build/iopath
mutants=$top/configs/mutants/tool
work=$(mktemp -d "${TMPDIR:-/tmp}/iopath-mutate-tool-test.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

. "$top/tests/lib/tap.sh"
# shellcheck source=scripts/lib/common.bash
. "$top/scripts/lib/common.bash"

# ---- the mutants as committed ----------------------------------------------

for f in "$mutants"/*.patch; do
	m=$(basename "$f" .patch)
	if patch -s --dry-run -p1 -d "$top" < "$f" > "$work/dry" 2>&1; then
		ok "mutate_tool.$m.applies_to_the_tree"
	else
		not_ok "mutate_tool.$m.applies_to_the_tree" "$(head -n 1 "$work/dry")"
	fi
	# each Expect check is a check its test programs report
	missing=""
	mapfile -t globs < <(patch_expects "$f")
	for g in "${globs[@]}"; do
		name=${g%%\**}
		name=${name%%[*}
		found=0
		for t in $(patch_header "$f" Tests); do
			case $t in
			*.sh) src=$top/tests/$t ;;
			*) src=$top/tests/$t.c ;;
			esac
			# a script names its checks in full; a unit test by its TEST()
			grep -qF -- "$name" "$src" || grep -qF -- "${name#*.}" "$src" && found=1
		done
		[ "$found" = 1 ] || missing="$missing $g"
	done
	if [ ${#globs[@]} -gt 0 ] && [ -z "$missing" ]; then
		ok "mutate_tool.$m.expects_checks_that_exist"
	else
		not_ok "mutate_tool.$m.expects_checks_that_exist" "not in its tests:${missing:- no Expect line}"
	fi
done

if "$run" --list > "$work/list" 2> "$work/err" &&
	[ "$(wc -l < "$work/list")" = "$(find "$mutants" -name '*.patch' | wc -l)" ]; then
	ok "mutate_tool.list_names_every_mutant"
else
	not_ok "mutate_tool.list_names_every_mutant" "$(head -n 1 "$work/err")"
fi

# ---- the checks a program reports: the one TAP reader's --------------------

# checks() of the tool: a failed check the harness then SKIPs reads
# "ok ... # SKIP" and is a failure, as the engine's IOPATH-CASE says.
eval "$(sed -n '/^checks() {$/,/^}$/p' "$run")"
printf '%s\n' 'TAP version 13' '1..3' '#  RUN           stats.a ...' 'ok 1 stats.a' \
	'#  RUN           stats.b ...' '# stats_test.c:12:b:Expected 0 (0) == r (-1)' \
	'ok 2 stats.b # SKIP cannot' '#  RUN           stats.c ...' 'ok 3 stats.c # SKIP not here' \
	> "$work/checks.tap"
ck_ok=$(checks "$work/checks.tap" ok stats_test 0 | tr '\n' ' ')
ck_fail=$(checks "$work/checks.tap" not_ok stats_test 0 | tr '\n' ' ')
if [ "$ck_ok" = "stats.a " ] && [ "$ck_fail" = "stats.b " ]; then
	ok mutate_tool.checks_are_the_readers_machine_lines
else
	not_ok mutate_tool.checks_are_the_readers_machine_lines "passed: $ck_ok" "failed: $ck_fail"
fi

# ---- bad input --------------------------------------------------------------

bad=$work/bad
mkdir "$bad"
first=$(find "$mutants" -name '*.patch' | sort | head -n 1)

# expect_usage NAME ARGS...: exit 2, one line on stderr, no work directory made.
expect_usage() {
	local name=$1 rc lines
	shift
	TMPDIR=$work/tmp "$run" "$@" > /dev/null 2> "$work/err"
	rc=$?
	lines=$(wc -l < "$work/err")
	if [ "$rc" = 2 ] && [ "$lines" = 1 ] && [ ! -e "$work/tmp" ] && [ ! -e "$work/new" ]; then
		ok "mutate_tool.refuses.$name"
	else
		not_ok "mutate_tool.refuses.$name" "exit $rc, $lines lines: $(head -n 1 "$work/err")"
	fi
}

expect_usage unknown_option --bogus
expect_usage bad_timeout --timeout 0
expect_usage no_such_mutant 99-nothing
expect_usage existing_work --work "$work"
mkdir "$bad/notests"
sed '/^# Tests:/d' "$first" > "$bad/notests/x.patch"
expect_usage header_without_tests --mutants "$bad/notests"
mkdir "$bad/noprog"
sed 's/^# Tests: .*/# Tests: nothing_here_test/' "$first" > "$bad/noprog/x.patch"
expect_usage tests_program_missing --mutants "$bad/noprog"
mkdir "$bad/escape"
sed 's|^+++ b/|+++ b/../|' "$first" > "$bad/escape/x.patch"
expect_usage diff_leaves_the_tree --mutants "$bad/escape" --work "$work/new"
mkdir "$bad/empty"
expect_usage no_mutants --mutants "$bad/empty"

finish_tap
