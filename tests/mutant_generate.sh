#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath mutant generate (lib/ctok.c, lib/mutgen.c,
# cli/mutant/mutant_generate.c) on a small tree, tests/fixtures/mutgen/tree:
# each operator's diff exactly (tests/fixtures/mutgen/expected.diff, every
# site of fs/small.c, one function per operator), nothing drawn from
# comments, strings or preprocessor lines, the same sample for a seed and
# another for another seed, a tree that cannot be parsed refused with one
# line and nothing written, --executed restricting the functions and
# --executed-lines the lines (a coverage table refused when it is not one), each
# mutant applying with patch -p1 and accepted by iopath patch check (the
# campaign's check of a patch), its header read by iopath mutant
# (a "# Generated:" line that is not "OPERATOR, SEED" refused).
#
# usage: tests/mutant_generate.sh BUILD_DIR     (prints TAP)
set -u

build=${1:?usage: mutant_generate.sh BUILD_DIR}
iopath=$build/iopath
top=$(cd "$(dirname "$0")/.." && pwd)
fix=$top/tests/fixtures/mutgen
tmp=$(mktemp -d /tmp/iopath-mutant-generate.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

# gen NAME ARGS...: iopath mutant generate on the small tree into $tmp/NAME
gen() {
	local name=$1
	shift
	mkdir -p "$tmp/$name"
	"$iopath" mutant generate --ksrc "$fix/tree" --files fs/small.c --out "$tmp/$name" "$@" \
		> "$tmp/$name.out" 2> "$tmp/$name.err"
	rc=$?
}

# changes DIR: each mutant's Bug line and diff, in the order of the Bug lines
changes() {
	local f
	for f in "$1"/*.patch; do
		printf '%s\t%s\n' "$(sed -n 's/^# Bug: //p' "$f")" "$f"
	done | LC_ALL=C sort | while IFS=$'\t' read -r bug f; do
		printf '== %s\n' "$bug"
		sed -n '/^--- /,$p' "$f"
	done
}

# ---- every operator, exactly --------------------------------------------------
gen all --seed 7 --count 1000
changes "$tmp/all" > "$tmp/all.diff"
if [ "$rc" = 0 ] && [ "$(grep -c '^== ' "$tmp/all.diff")" = 18 ] &&
   diff -u "$fix/expected.diff" "$tmp/all.diff" > "$tmp/all.delta"; then
	ok mutant_generate.operators.each_diff_exact
else
	not_ok mutant_generate.operators.each_diff_exact "exit $rc: $(head -n 2 "$tmp/all.err")" \
		"$(head -n 20 "$tmp/all.delta")"
fi
for op in negate relop off-by-one call-void call-zero call-arg and-or drop-stmt flag; do
	if compgen -G "$tmp/all/[0-9][0-9][0-9]-$op-f_*.patch" > /dev/null; then
		ok "mutant_generate.operators.$op.has_a_site"
	else
		not_ok "mutant_generate.operators.$op.has_a_site"
	fi
done
# f_quiet holds operators only in comments, a string and a #define.
if ! compgen -G "$tmp/all/*f_quiet*" > /dev/null && ! grep -h '^[-+]' "$tmp"/all/*.patch | grep -q 'CHECK\|g(1)\|a) < 1'; then
	ok mutant_generate.comments_strings_and_preprocessor_lines_not_mutated
else
	not_ok mutant_generate.comments_strings_and_preprocessor_lines_not_mutated "$(grep -l f_quiet "$tmp"/all/*.patch)"
fi
gen quiet --seed 1 --functions f_quiet
if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/quiet.err")" = 1 ] && grep -q 'no mutation site' "$tmp/quiet.err"; then
	ok mutant_generate.a_function_of_comments_has_no_site
else
	not_ok mutant_generate.a_function_of_comments_has_no_site "exit $rc: $(cat "$tmp/quiet.err")"
fi

# ---- the listing ----------------------------------------------------------------
"$iopath" mutant generate --ksrc "$fix/tree" --files fs/small.c --list > "$tmp/list" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -qE '^total +off-by-one +4$' "$tmp/list" && grep -qE '^fs/small.c +flag +4$' "$tmp/list" &&
   grep -q '^generate: 18 sites in 1 files$' "$tmp/list" && [ "$(ls "$tmp/all" | wc -l)" = 18 ]; then
	ok mutant_generate.list_counts_sites_per_file_and_operator
else
	not_ok mutant_generate.list_counts_sites_per_file_and_operator "exit $rc" "$(tail -n 3 "$tmp/list")"
fi

# ---- a seed: one sample ------------------------------------------------------------
gen s1 --seed 11 --count 5
gen s1b --seed 11 --count 5
gen s2 --seed 12 --count 5
if [ "$(ls "$tmp/s1" | wc -l)" = 5 ] && diff -r "$tmp/s1" "$tmp/s1b" > /dev/null &&
   [ "$(ls "$tmp/s1")" != "$(ls "$tmp/s2")" ]; then
	ok mutant_generate.seed.same_seed_same_mutants_other_seed_other_sample
else
	not_ok mutant_generate.seed.same_seed_same_mutants_other_seed_other_sample \
		"$(ls "$tmp/s1" | tr '\n' ' ')" "$(ls "$tmp/s2" | tr '\n' ' ')"
fi
if grep -q 'not restricted to executed code' "$tmp/s1.err"; then
	ok mutant_generate.without_executed_says_the_sample_is_not_restricted
else
	not_ok mutant_generate.without_executed_says_the_sample_is_not_restricted "$(cat "$tmp/s1.err")"
fi
# The draw is SplitMix64 from the seed over the sorted sites, the same on
# every machine: seed 11's first five.
if [ "$(ls "$tmp/s1" | sed 's/\.patch$//')" = "$(cat "$fix/seed11.names")" ]; then
	ok mutant_generate.seed.sample_fixed_by_the_seed_alone
else
	not_ok mutant_generate.seed.sample_fixed_by_the_seed_alone "$(ls "$tmp/s1" | tr '\n' ' ')"
fi

# ---- the executed functions ------------------------------------------------------
printf '# executed\nf_relop\nf_andor.isra.0\n\n' > "$tmp/executed"
gen ex --seed 3 --count 40 --executed "$tmp/executed"
if [ "$rc" = 0 ] && [ "$(ls "$tmp/ex" | wc -l)" = 3 ] &&
   [ "$(sed -n 's/^# Function: //p' "$tmp"/ex/*.patch | sort -u | tr '\n' ' ')" = "f_andor() f_relop() " ] &&
   ! grep -q 'not restricted' "$tmp/ex.err"; then
	ok mutant_generate.executed_restricts_to_the_functions_listed
else
	not_ok mutant_generate.executed_restricts_to_the_functions_listed "exit $rc: $(cat "$tmp/ex.err")" "$(ls "$tmp/ex")"
fi
printf 'f_relop\nnot a name\n' > "$tmp/executed.bad"
gen exbad --seed 3 --executed "$tmp/executed.bad"
if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/exbad.err")" = 1 ] && grep -q 'executed.bad:2: not a function name' "$tmp/exbad.err" &&
   [ -z "$(ls "$tmp/exbad")" ]; then
	ok mutant_generate.executed_not_names_refused
else
	not_ok mutant_generate.executed_not_names_refused "exit $rc: $(cat "$tmp/exbad.err")"
fi

# ---- the executed lines ----------------------------------------------------------
# lines.tsv of iopath coverage: line 8 (negate), 40 (call-arg, call-zero)
# and 55 (drop-stmt, flag) ran; 15 (two relops) and 56 (drop-stmt, flag)
# have instructions that never ran; the other nine sites' lines have no
# row (no instructions of their own): only the five are drawn.
printf 'file\tline\tran\nfs/small.c\t8\t1\nfs/small.c\t15\t0\nfs/small.c\t40\t1\nfs/small.c\t55\t1\nfs/small.c\t56\t0\nfs/other.c\t15\t1\n' \
	> "$tmp/lines.tsv"
gen exl --seed 3 --count 40 --executed-lines "$tmp/lines.tsv"
got=$(sed -n 's/^# Bug: .*(fs\/small.c:\([0-9]*\))$/\1/p' "$tmp"/exl/*.patch 2> /dev/null | sort -n | tr '\n' ' ')
if [ "$rc" = 0 ] && [ "$got" = "8 40 40 55 55 " ] &&
   grep -q '5 of 5 sites drawn .*from the lines that ran (4 sites in lines that never ran and 9 in lines without instructions left out)' "$tmp/exl.err"; then
	ok mutant_generate.executed_lines_restrict_to_the_lines_that_ran
else
	not_ok mutant_generate.executed_lines_restrict_to_the_lines_that_ran "exit $rc: $(cat "$tmp/exl.err")" "lines: $got"
fi
printf 'fs/small.c\t8\t1\n' > "$tmp/lines.nohead"
printf 'file\tline\tran\nfs/small.c\t8\tyes\n' > "$tmp/lines.bad"
gen exlh --seed 3 --executed-lines "$tmp/lines.nohead"
rc1=$rc
gen exlb --seed 3 --executed-lines "$tmp/lines.bad"
if [ "$rc1" = 2 ] && [ "$rc" = 2 ] && [ "$(cat "$tmp/exlh.err" "$tmp/exlb.err" | wc -l)" = 2 ] &&
   grep -q 'lines.nohead:1: not iopath coverage.s lines.tsv' "$tmp/exlh.err" &&
   grep -q 'lines.bad:2: expected "FILE<TAB>LINE<TAB>RAN"' "$tmp/exlb.err" &&
   [ -z "$(ls -A "$tmp/exlh")$(ls -A "$tmp/exlb")" ]; then
	ok mutant_generate.executed_lines_not_a_coverage_table_refused
else
	not_ok mutant_generate.executed_lines_not_a_coverage_table_refused "exit $rc1 $rc: $(cat "$tmp/exlh.err" "$tmp/exlb.err")"
fi

# ---- a tree that cannot be parsed ------------------------------------------------
# refused TEST TEXT WHAT: fs/small.c of a tree holding TEXT is refused, WHAT said
refused() {
	mkdir -p "$tmp/bad-$1/fs"
	printf '%b' "$2" > "$tmp/bad-$1/fs/small.c"
	mkdir -p "$tmp/badout-$1"
	"$iopath" mutant generate --ksrc "$tmp/bad-$1" --files fs/small.c --seed 1 --out "$tmp/badout-$1" \
		> /dev/null 2> "$tmp/bad-$1.err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/bad-$1.err")" = 1 ] && grep -q "$3" "$tmp/bad-$1.err" &&
	   [ -z "$(ls -A "$tmp/badout-$1")" ]; then
		ok "mutant_generate.refused.$1"
	else
		not_ok "mutant_generate.refused.$1" "exit $rc: $(cat "$tmp/bad-$1.err")"
	fi
}
refused unbalanced_brace 'int f(int a)\n{\n\tif (a) {\n\t\treturn 1;\n}\n' 'small.c:2: a bracket never closed'
refused extra_brace 'int f(int a)\n{\n\treturn a;\n}\n}\n' 'small.c:5: a closing bracket without its opening one'
refused unterminated_comment 'int f(int a)\n{\n\t/* a\n\treturn a;\n}\n' 'small.c:3: a comment that never ends'
# A NUL byte in a comment was skipped with it, then carried into a diff.
refused nul_byte_in_a_comment 'int f(int a)\n{\n\t/* a \0 */\n\treturn a;\n}\n' 'small.c:3: a NUL byte'
refused unterminated_string 'int f(void)\n{\n\tg("a);\n}\n' 'small.c:3: a string that never ends'
mkdir -p "$tmp/missing" "$tmp/missing-out"
"$iopath" mutant generate --ksrc "$fix/tree" --files fs/small.c,fs/nothere.c --seed 1 --out "$tmp/missing-out" \
	> /dev/null 2> "$tmp/missing.err"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/missing.err")" = 1 ] && grep -q 'fs/nothere.c' "$tmp/missing.err" &&
   [ -z "$(ls -A "$tmp/missing-out")" ]; then
	ok mutant_generate.refused.missing_file
else
	not_ok mutant_generate.refused.missing_file "exit $rc: $(cat "$tmp/missing.err")"
fi
# The default list on a tree without those files: refused, nothing written.
"$iopath" mutant generate --ksrc "$fix/tree" --seed 1 --out "$tmp/missing-out" > /dev/null 2> "$tmp/default.err"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/default.err")" = 1 ] && grep -q 'fs/ext4/extents.c: No such file' "$tmp/default.err"; then
	ok mutant_generate.refused.tree_without_the_fast_path_files
else
	not_ok mutant_generate.refused.tree_without_the_fast_path_files "exit $rc: $(cat "$tmp/default.err")"
fi
for a in "--files ../etc/passwd" "--seed x" "--count 0"; do
	# shellcheck disable=SC2086
	"$iopath" mutant generate --ksrc "$fix/tree" --out "$tmp/missing-out" --seed 1 $a > /dev/null 2> "$tmp/usage.err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/usage.err")" = 1 ] && [ -z "$(ls -A "$tmp/missing-out")" ]; then
		ok "mutant_generate.usage.${a%% *}_refused"
	else
		not_ok "mutant_generate.usage.${a%% *}_refused" "exit $rc: $(cat "$tmp/usage.err")"
	fi
done
# A second sample into a directory holding one: refused, not mixed in.
gen s1 --seed 13 --count 2
if [ "$rc" = 2 ] && grep -q 'holds mutants already' "$tmp/s1.err" && [ "$(ls "$tmp/s1" | wc -l)" = 5 ]; then
	ok mutant_generate.out_holding_mutants_refused
else
	not_ok mutant_generate.out_holding_mutants_refused "exit $rc: $(cat "$tmp/s1.err")"
fi

# ---- the mutants are patches and mutants -------------------------------------------
cp -r "$fix/tree" "$tmp/copy"
bad=""
for f in "$tmp"/all/*.patch; do
	patch -d "$tmp/copy" -p1 -s -f --dry-run < "$f" > /dev/null 2>&1 &&
		"$iopath" patch check "$f" > /dev/null 2>&1 || bad="$bad $(basename "$f")"
done
if [ -z "$bad" ]; then ok mutant_generate.each_applies_with_patch_p1_and_passes_patch_check; else
	not_ok mutant_generate.each_applies_with_patch_p1_and_passes_patch_check "$bad"; fi
f=$(ls "$tmp"/all/*-relop-f_relop.patch | head -n 1)
if [ "$("$iopath" mutant header "$f" Generated)" = "relop, 7" ] && [ "$("$iopath" mutant header "$f" Tests)" = all ] &&
   [ "$("$iopath" mutant header "$f" Function)" = "f_relop()" ] &&
   [ "$("$iopath" mutant list "$tmp/all" | wc -l)" = 18 ]; then
	ok mutant_generate.header_read_by_iopath_mutant
else
	not_ok mutant_generate.header_read_by_iopath_mutant "$("$iopath" mutant list "$tmp/all" 2>&1 | tail -n 1)"
fi
mkdir -p "$tmp/badgen"
sed 's/^# Generated: .*/# Generated: relop 7/' "$f" > "$tmp/badgen/x.patch"
"$iopath" mutant list "$tmp/badgen" > /dev/null 2> "$tmp/badgen.err"
rc=$?
if [ "$rc" = 2 ] && grep -q "'# Generated: relop 7' is not 'OPERATOR, SEED'" "$tmp/badgen.err"; then
	ok mutant_generate.header_generated_line_checked
else
	not_ok mutant_generate.header_generated_line_checked "exit $rc: $(cat "$tmp/badgen.err")"
fi
sed 's/^# Tests: all/# Tests: all a_test/' "$f" > "$tmp/badgen/x.patch"
"$iopath" mutant list "$tmp/badgen" > /dev/null 2> "$tmp/badgen.err"
rc=$?
if [ "$rc" = 2 ] && grep -q "'# Tests: all' (the whole collection) goes alone" "$tmp/badgen.err"; then
	ok mutant_generate.header_tests_all_alone
else
	not_ok mutant_generate.header_tests_all_alone "exit $rc: $(cat "$tmp/badgen.err")"
fi
# A generated mutant narrowed to named programs (to run it again against a
# new test) is planned with those programs, as a hand-written one is.
mkdir -p "$tmp/narrow"
sed 's/^# Tests: all$/# Tests: a_test b_test/' "$f" > "$tmp/narrow/$(basename "$f")"
"$iopath" mutant plan --mutants "$tmp/narrow" --out "$tmp/narrow.json" > /dev/null 2> "$tmp/narrow.err"
rc=$?
if [ "$rc" = 0 ] && [ "$(jq -c '.mutants[0].programs' "$tmp/narrow.json" 2> /dev/null)" = '["a_test","b_test"]' ]; then
	ok mutant_generate.narrowed_to_programs_planned_with_them
else
	not_ok mutant_generate.narrowed_to_programs_planned_with_them "exit $rc: $(cat "$tmp/narrow.err")"
fi
finish_tap
