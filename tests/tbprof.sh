#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath tbprof and the parts of iopath ab --explain and iopath coverage
# that run without a boot, on synthetic System.maps and block counts
# (tests/fixtures/tbprof: per operation inside the marked windows, A has
# planted 4, shrunk 10, steady 20; B planted 7, shrunk 5, steady 20 with
# noise, noisy 5.0 5.6 4.4 against 5.9 5.0 5.6 (a change of 0.5 whose
# interval holds 0), and B's map puts the last three at other addresses; outside
# the windows op_entry and steady run more, planted not):
# - blocks are attributed to the function they start in, by name across
#   two maps, and divided by the entries into the --per function, both
#   counted inside the benchmark's marked windows only (boot and setup
#   work left out), and a mix of windowed and whole-boot counts refused;
# - the rows are the changed functions only, largest change first, with
#   the paired 95% interval (t quantile for 2 df, computed here); a
#   change whose interval holds 0 is no row, however large its mean;
# - a block that runs past its function's end is counted and said;
# - coverage: a static block ran when an executed block overlaps it, the
#   functions never reached are listed; iopath coverage on a build tree
#   lists the functions that ran for mutant generate --executed, a
#   syscall's body under the generator's name for it, and takes the
#   counts of several boots (the collection run in parts) as one;
# - bad input (a count file cut short, a line out of format, a FIFO, a
#   --per that is no function, a bad map) is one line and exit 2;
# - the plugin header's fetch refuses a source package of another QEMU
#   version than the installed one, and a tarball the .dsc does not name
#   by its SHA-256, before anything is compiled;
# - iopath ab refuses --explain under KVM, and its options without it.
#
# usage: tests/tbprof.sh BUILD_DIR     (prints TAP)
set -u

build=${1:?usage: tbprof.sh BUILD_DIR}
build=$(cd "$build" && pwd)
iopath=$build/iopath
top=$(cd "$(dirname "$0")/.." && pwd)
fix=$top/tests/fixtures/tbprof
tmp=$(mktemp -d /tmp/iopath-tbprof-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

explain() {
	"$iopath" tbprof explain --map-a "$fix/a.map" --map-b "$fix/b.map" --per op_entry \
		--a "$fix/A.1.tb" --a "$fix/A.2.tb" --a "$fix/A.3.tb" \
		--b "$fix/B.1.tb" --b "$fix/B.2.tb" --b "$fix/B.3.tb" "$@"
}

# ---- explain ------------------------------------------------------------------

explain --tsv > "$tmp/x.tsv" 2> "$tmp/x.err"
rc=$?
check "$rc" tbprof.explain.synthetic.runs
rows=$(cut -f1 "$tmp/x.tsv" | tail -n +2 | tr '\n' ' ')
if [ "$rows" = "shrunk planted (all kernel code) " ]; then
	ok tbprof.explain.order.largest_change_first_unchanged_left_out
else
	not_ok tbprof.explain.order.largest_change_first_unchanged_left_out "rows: $rows"
fi
planted=$(awk -F'\t' '$1 == "planted" { print $2, $5, $8 }' "$tmp/x.tsv")
if [ "$planted" = "4.0000 7.0000 3.0000" ]; then
	ok tbprof.explain.attribution.per_operation_by_name_across_maps
else
	not_ok tbprof.explain.attribution.per_operation_by_name_across_maps "planted A B delta: $planted"
fi
# steady per boot: A 2000/1000 2002/1000 1999/1000 *10 ... the window's
# kernel's total: the paired interval of its per-boot differences.
want=$(python3 - <<'EOF'
import statistics
a = [(5000 + 4000 + 10 * s + 10000 + 10 * x) / 1000 for s, x in zip((2000, 2002, 1999), (500, 560, 440))]
b = [(5 * 800 + 7 * 800 + 10 * s + 5 * 800 + 10 * x) / 800 for s, x in zip((1601, 1600, 1598), (472, 400, 448))]
d = [y - x for x, y in zip(a, b)]
m = statistics.mean(d)
h = 4.302652729911275 * statistics.stdev(d) / 3 ** 0.5
print("%.4f %.4f %.4f" % (m, m - h, m + h))
EOF
)
got=$(awk -F'\t' '$1 == "(all kernel code)" { print $8, $9, $10 }' "$tmp/x.tsv")
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	ok tbprof.explain.ci.paired_t_interval_of_the_boots
else
	not_ok tbprof.explain.ci.paired_t_interval_of_the_boots "got '$got', want '$want'"
fi
explain > "$tmp/x.txt" 2>&1
if grep -q '^planted  *4.00 \[4.00, 4.00\]  *7.00 \[7.00, 7.00\]  *+3.00 \[+3.00, +3.00\]' "$tmp/x.txt" &&
   grep -q 'operations per boot: A 1000 1000 1000; B 800 800 800' "$tmp/x.txt"; then
	ok tbprof.explain.text.sides_side_by_side_with_cis
else
	not_ok tbprof.explain.text.sides_side_by_side_with_cis "$(head -n 5 "$tmp/x.txt")"
fi

# A block that runs from planted into steady: counted to planted, said.
sed 's/^ffffffff81000200 ffffffff81000210 4 1000 1000$/ffffffff81000200 ffffffff81000310 4 1000 1000/' \
	"$fix/A.1.tb" > "$tmp/cross.tb"
"$iopath" tbprof explain --map-a "$fix/a.map" --per op_entry --a "$tmp/cross.tb" --b "$fix/A.1.tb" \
	> "$tmp/cross.txt" 2>&1
if grep -q "run past their function's end.*: 9\.091% of A's, 0\.000% of B's" "$tmp/cross.txt" &&
   grep -q "^counted: inside the benchmark's measured repetitions" "$tmp/cross.txt"; then
	ok tbprof.explain.crossing_blocks_counted_and_said
else
	not_ok tbprof.explain.crossing_blocks_counted_and_said "$(tail -n 1 "$tmp/cross.txt")"
fi

# ---- coverage ---------------------------------------------------------------

"$iopath" tbprof coverage --blocks "$fix/blocks.txt" --tsv "$fix/A.1.tb" "$fix/B.1.tb" > "$tmp/c.tsv" 2>&1
got=$(tail -n +2 "$tmp/c.tsv" | tr '\t\n' ' ;')
if [ "$got" = "fs/a.c op_entry 2 2;fs/a.c planted 3 2;lib/b.c steady 1 1;lib/b.c never 2 0;" ]; then
	ok tbprof.coverage.blocks_run_when_an_executed_block_overlaps
else
	not_ok tbprof.coverage.blocks_run_when_an_executed_block_overlaps "$got"
fi
"$iopath" tbprof coverage --blocks "$fix/blocks.txt" "$fix/A.1.tb" > "$tmp/c.txt" 2>&1
if sed -n '/^Functions never reached:/,$p' "$tmp/c.txt" | grep -q '^lib/b.c  *never$' &&
   grep -q '^fs/a.c  *2 of 2  *3 of 5  *60.0%$' "$tmp/c.txt"; then
	ok tbprof.coverage.tables_by_file_and_never_reached
else
	not_ok tbprof.coverage.tables_by_file_and_never_reached "$(head -n 4 "$tmp/c.txt")"
fi

# The static blocks of a disassembly (iopath tbprof blocks): a block
# starts at the entry, at a jump's target inside the function and after a
# jump, a return or ud2; a call ends none. Addresses above 2^31 (all of
# the kernel's): mawk printed them as %.6g in array keys, and every
# instruction became a block.
{
	echo "ffffffff813b97e7 ffffffff813b9820 f"
	echo "--"
	printf '%s\n' \
		'ffffffff813b97e7 <f>:' \
		'ffffffff813b97e7:	endbr64' \
		'ffffffff813b97eb:	push   %rbp' \
		'ffffffff813b97ec:	test   %ecx,%ecx' \
		'ffffffff813b97ee:	jns    ffffffff813b9807 <f+0x20>' \
		'ffffffff813b97f0:	mov    %ecx,%ebx' \
		'ffffffff813b97f2:	call   ffffffff81000000 <g>' \
		'ffffffff813b97f7:	mov    %ecx,%ebx' \
		'ffffffff813b9807:	ud2' \
		'ffffffff813b9809:	notrack jmp *%rax' \
		'ffffffff813b980c:	pop    %rbp' \
		'ffffffff813b980d:	ret' \
		'ffffffff813b9820:	int3'
} > "$tmp/blocks.in"
"$iopath" tbprof blocks --file fs/x.c "$tmp/blocks.in" > "$tmp/blocks.out"
want="ffffffff813b97e7 ffffffff813b97f0 fs/x.c f;ffffffff813b97f0 ffffffff813b9807 fs/x.c f;\
ffffffff813b9807 ffffffff813b9809 fs/x.c f;ffffffff813b9809 ffffffff813b980c fs/x.c f;\
ffffffff813b980c ffffffff813b9820 fs/x.c f;"
got=$(tr '\n' ';' < "$tmp/blocks.out")
if [ "$got" = "$want" ]; then
	ok coverage.blocks.split_at_targets_and_after_jumps_above_2g
else
	not_ok coverage.blocks.split_at_targets_and_after_jumps_above_2g "$got"
fi
# The fixture: a user-space ELF's short addresses, the prefixes objdump
# prints (cs, ds, bnd, notrack; lock and rep are mnemonics), jmpq and retq,
# backward jumps, a jump out of the function, instructions between two
# functions, two names of one range (the first takes the instructions)
# and overlapping ranges. blocks.want is what scripts/coverage-blocks.awk
# gave, whose output this replaced byte for byte (also on a whole
# vmlinux's fast-path files).
"$iopath" tbprof blocks --file fs/x.c "$fix/blocks.in" > "$tmp/fixture.out" 2> "$tmp/fixture.err"
if cmp -s "$tmp/fixture.out" "$fix/blocks.want" && [ ! -s "$tmp/fixture.err" ]; then
	ok coverage.blocks.fixture_as_the_awk_gave_it
else
	not_ok coverage.blocks.fixture_as_the_awk_gave_it "$(diff "$fix/blocks.want" "$tmp/fixture.out" | head -n 8)"
fi

# iopath coverage from a build tree and a boot's counts: a "vmlinux" of
# three functions of fs/x.c (assembled, so the same bytes with any
# compiler), g's first two blocks and the syscall entry run, never not.
# executed.txt lists what ran, for mutant generate --executed, with the
# syscall body's name the generator gives it (__do_sys_x; the entry point
# __x64_sys_x is what has a symbol): without it no SYSCALL_DEFINE body
# could be drawn. (as and ld: binutils, which coverage.sh needs anyway.)
kobj=$tmp/kobj
mkdir -p "$kobj/fs"
printf '%s\n' '.text' \
	'.globl g' '.type g, @function' 'g: cmp $4, %edi' 'jl 1f' 'lea (%rdi,%rdi,2), %eax' 'ret' \
	'1: mov %edi, %eax' 'ret' '.size g, .-g' \
	'.globl __x64_sys_x' '.type __x64_sys_x, @function' '__x64_sys_x: call g' 'ret' '.size __x64_sys_x, .-__x64_sys_x' \
	'.globl never' '.type never, @function' 'never: xor %eax, %eax' 'ret' '.size never, .-never' > "$tmp/x.s"
as -o "$kobj/fs/x.o" "$tmp/x.s" && ld -o "$kobj/vmlinux" -e g -Ttext=0xffffffff81000000 "$kobj/fs/x.o" &&
	nm "$kobj/vmlinux" > "$kobj/System.map"
echo fs/x.c > "$tmp/x.files"
printf '%s\n' '# iopath-tbcount 1' '# windows 0' 'ffffffff81000000 ffffffff81000005 2 1 0' \
	'ffffffff81000005 ffffffff81000009 2 1 0' 'ffffffff8100000c ffffffff81000012 2 1 0' '# total-insns 6' \
	> "$tmp/x.tb"
"$top/scripts/coverage.sh" --obj "$kobj" --counts "$tmp/x.tb" --files "$tmp/x.files" --build "$build" \
	--out "$tmp/xcov" > "$tmp/xcov.out" 2> "$tmp/xcov.err"
rc=$?
got=$(grep -v '^#' "$tmp/xcov/executed.txt" 2> /dev/null | tr '\n' ' ')
if [ "$rc" = 0 ] && [ "$got" = "__do_sys_x __x64_sys_x g " ] && grep -q '^# ' "$tmp/xcov/executed.txt" &&
   grep -q '^fs/x.c  *2 of 3  *3 of 5 ' "$tmp/xcov/coverage.txt" &&
   sed -n '/^Functions never reached:/,$p' "$tmp/xcov/coverage.txt" | grep -q '^fs/x.c  *never$'; then
	ok coverage.executed_functions_listed_for_the_generator
else
	not_ok coverage.executed_functions_listed_for_the_generator "exit $rc: $(tail -n 2 "$tmp/xcov.err")" \
		"executed: $got" "$(head -n 3 "$tmp/xcov/coverage.txt" 2>&1)"
fi
# The collection run in parts: g's blocks in one boot, the syscall entry
# in another; a block ran when it ran in either (one --counts was taken,
# the last).
printf '%s\n' '# iopath-tbcount 1' '# windows 0' 'ffffffff81000000 ffffffff81000005 2 1 0' \
	'ffffffff81000005 ffffffff81000009 2 1 0' '# total-insns 4' > "$tmp/x1.tb"
printf '%s\n' '# iopath-tbcount 1' '# windows 0' 'ffffffff8100000c ffffffff81000012 2 1 0' '# total-insns 2' > "$tmp/x2.tb"
"$top/scripts/coverage.sh" --obj "$kobj" --counts "$tmp/x1.tb" --counts "$tmp/x2.tb" --files "$tmp/x.files" \
	--build "$build" --out "$tmp/xcov2" > /dev/null 2> "$tmp/xcov2.err"
rc=$?
got=$(grep -v '^#' "$tmp/xcov2/executed.txt" 2> /dev/null | tr '\n' ' ')
if [ "$rc" = 0 ] && [ "$got" = "__do_sys_x __x64_sys_x g " ] && cmp -s "$tmp/x1.tb" "$tmp/xcov2/counts.1.tb" &&
   cmp -s "$tmp/x2.tb" "$tmp/xcov2/counts.2.tb" && grep -q '^fs/x.c  *2 of 3  *3 of 5 ' "$tmp/xcov2/coverage.txt"; then
	ok coverage.counts_of_several_boots_unioned
else
	not_ok coverage.counts_of_several_boots_unioned "exit $rc: $(tail -n 2 "$tmp/xcov2.err")" "executed: $got"
fi

# Without a line table, no lines: the tables say blocks only.
if [ ! -e "$tmp/xcov/lines.tsv" ] && [ ! -e "$tmp/xcov/lines.map" ] && grep -q 'no line table' "$tmp/xcov.err"; then
	ok coverage.no_line_table_no_lines
else
	not_ok coverage.no_line_table_no_lines "$(ls "$tmp/xcov")"
fi

# Lines from a kernel with a line table: the same three functions with
# line numbers (.loc); the boot ran g's lines 10 and 11 and the entry's
# 20, never 13 (g's other branch) or 30. lines.tsv is what mutant
# generate --executed-lines takes.
kobjl=$tmp/kobjl
mkdir -p "$kobjl/fs"
printf '%s\n' '.file 1 "fs/x.c"' '.text' \
	'.globl g' '.type g, @function' 'g:' '.loc 1 10' 'cmp $4, %edi' 'jl 1f' '.loc 1 11' 'lea (%rdi,%rdi,2), %eax' 'ret' \
	'1:' '.loc 1 13' 'mov %edi, %eax' 'ret' '.size g, .-g' \
	'.globl __x64_sys_x' '.type __x64_sys_x, @function' '__x64_sys_x:' '.loc 1 20' 'call g' 'ret' \
	'.size __x64_sys_x, .-__x64_sys_x' \
	'.globl never' '.type never, @function' 'never:' '.loc 1 30' 'xor %eax, %eax' 'ret' '.size never, .-never' \
	> "$tmp/xl.s"
(cd "$tmp" && as -o "$kobjl/fs/x.o" xl.s) && ld -o "$kobjl/vmlinux" -e g -Ttext=0xffffffff81000000 "$kobjl/fs/x.o" &&
	nm "$kobjl/vmlinux" > "$kobjl/System.map"
"$top/scripts/coverage.sh" --obj "$kobjl" --counts "$tmp/x.tb" --files "$tmp/x.files" --build "$build" \
	--out "$tmp/xcovl" > /dev/null 2> "$tmp/xcovl.err"
rc=$?
got=$(tr '\t\n' ' ;' < "$tmp/xcovl/lines.tsv" 2> /dev/null)
if [ "$rc" = 0 ] && [ "$got" = "file line ran;fs/x.c 10 1;fs/x.c 11 1;fs/x.c 13 0;fs/x.c 20 1;fs/x.c 30 0;" ] &&
   grep -q '^fs/x.c  *3 of 5  *60.0%$' "$tmp/xcovl/coverage.txt" &&
   grep -q '^fs/x.c  *2 of 3  *3 of 5 ' "$tmp/xcovl/coverage.txt"; then
	ok coverage.lines_run_from_a_kernel_with_a_line_table
else
	not_ok coverage.lines_run_from_a_kernel_with_a_line_table "exit $rc: $(tail -n 1 "$tmp/xcovl.err")" "lines: $got"
fi

# objdump -l --inlines: a location's innermost line, then "inlined by"
# lines, written again before each instruction without the innermost one.
# Every level in the file counts (line 11 called the inline at line 3;
# line 50 of a header is not the file's); a run ends at its function's
# end, not at padding after it.
{
	echo "0000000000000000 000000000000000b f"
	echo "0000000000000010 0000000000000014 h"
	echo "--"
	printf '%s\n' '0000000000000000 <f>:' 'twice():' '/k/fs/x.c:3' 'inlined by /k/fs/x.c:11 (f)' \
		'   0:	cmp    %esi,%edi' 'inlined by /k/fs/x.c:11 (f)' '   2:	lea    (%rdi,%rdi,1),%edx' \
		'f():' '/k/include/linux/y.h:50' 'inlined by /k/fs/x.c:14 (f)' '   5:	add    $0x3,%eax' \
		'/k/fs/x.c:15 (discriminator 2)' '   8:	ret' '   9:	nop' '   a:	nop' \
		'0000000000000010 <h>:' '/k/xfs/x.c:40' '  10:	ret' '/k/fs/x.c:41' '  11:	ret'
} > "$tmp/lines.in"
got=$("$iopath" tbprof lines --file fs/x.c "$tmp/lines.in" 2>&1 | tr '\n' ';')
want="0000000000000000 0000000000000005 fs/x.c 3;0000000000000000 0000000000000005 fs/x.c 11;\
0000000000000005 0000000000000008 fs/x.c 14;0000000000000008 000000000000000b fs/x.c 15;\
0000000000000011 0000000000000014 fs/x.c 41;"
if [ "$got" = "$want" ]; then
	ok coverage.lines.every_inlining_level_of_the_file
else
	not_ok coverage.lines.every_inlining_level_of_the_file "$got"
fi

# ---- bad input: one line, exit 2, nothing on stdout ---------------------------

# refused NAME WHAT CMD...: exit 2, one line on stderr matching WHAT.
refused() {
	local name=$1 what=$2 rc
	shift 2
	"$@" > "$tmp/r.out" 2> "$tmp/r.err" < /dev/null
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/r.err")" = 1 ] && [ ! -s "$tmp/r.out" ] &&
	   grep -q -- "$what" "$tmp/r.err"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, stderr: $(head -n 3 "$tmp/r.err" | tr '\n' '|')"
	fi
}
head -n 3 "$fix/A.1.tb" > "$tmp/short.tb"
refused tbprof.bad_input.counts_cut_short "no '# total-insns' line" \
	"$iopath" tbprof explain --map-a "$fix/a.map" --per op_entry --a "$tmp/short.tb" --b "$fix/A.1.tb"
sed '3s/.*/ffffffff81000200 zz 4 1000/' "$fix/A.1.tb" > "$tmp/bad.tb"
refused tbprof.bad_input.line_out_of_format "bad.tb:3: expected 'START END INSNS COUNT WINDOW'" \
	"$iopath" tbprof explain --map-a "$fix/a.map" --per op_entry --a "$tmp/bad.tb" --b "$fix/A.1.tb"
sed 's/^# windows 5$/# windows 0/; /^f/s/ [0-9]*$/ 0/' "$fix/B.1.tb" > "$tmp/whole.tb"
refused tbprof.bad_input.windowed_and_whole_boot_counts_mixed "whole.tb: no marked windows where the first boot's counts have" \
	"$iopath" tbprof explain --map-a "$fix/a.map" --map-b "$fix/b.map" --per op_entry --a "$fix/A.1.tb" --b "$tmp/whole.tb"
sed 's/^# total-insns .*/# total-insns 1/' "$fix/A.1.tb" > "$tmp/sum.tb"
refused tbprof.bad_input.total_not_the_sum "not the sum" \
	"$iopath" tbprof explain --map-a "$fix/a.map" --per op_entry --a "$tmp/sum.tb" --b "$fix/A.1.tb"
mkfifo "$tmp/fifo"
refused tbprof.bad_input.fifo_not_read "fifo" \
	"$iopath" tbprof coverage --blocks "$fix/blocks.txt" "$tmp/fifo"
refused tbprof.bad_input.per_not_a_function "--per no_such_fn: no such function" \
	"$iopath" tbprof explain --map-a "$fix/a.map" --per no_such_fn --a "$fix/A.1.tb" --b "$fix/A.1.tb"
printf 'ffffffff81000000 T\n' > "$tmp/bad.map"
refused tbprof.bad_input.map_line_out_of_format "bad.map:1: expected a System.map line" \
	"$iopath" tbprof explain --map-a "$tmp/bad.map" --per op_entry --a "$fix/A.1.tb" --b "$fix/A.1.tb"
printf '%s\n' '20 30 g' '10 20 f' '--' > "$tmp/unsorted.lines"
refused tbprof.bad_input.lines_function_list_unsorted "functions not sorted by START" \
	"$iopath" tbprof lines --file a.c "$tmp/unsorted.lines"
printf '%s\n' '10 20 f' > "$tmp/nodash.lines"
refused tbprof.bad_input.lines_without_the_dash_line "no line \"--\" after the functions" \
	"$iopath" tbprof lines --file a.c "$tmp/nodash.lines"
printf 'ffffffff81000000 ffffffff81000000 a.c f\n' > "$tmp/bad.blocks"
refused tbprof.bad_input.empty_static_block "bad.blocks:1: expected 'START END FILE FUNCTION'" \
	"$iopath" tbprof coverage --blocks "$tmp/bad.blocks" "$fix/A.1.tb"

# ---- the plugin header: only the installed QEMU's -------------------------------

# A cached source of another version, and one whose tarball is not the
# one the .dsc names: each refused before the compiler runs.
mkdir -p "$tmp/b1/qemu-plugin/src"
printf 'Format: 3.0 (quilt)\nSource: qemu\nVersion: 1:8.0+dfsg-1\nChecksums-Sha256:\n 00 1 qemu_7.2+dfsg.orig.tar.xz\n' \
	> "$tmp/b1/qemu-plugin/src/qemu_7.2+dfsg-7.dsc"
refused qemu_plugin.header.refuses_another_qemu_version "is qemu 1:8.0+dfsg-1, the installed QEMU is 1:7.2+dfsg-7: refused" \
	env IOPATH_QEMU_INSTALLED=1:7.2+dfsg-7 "$top/scripts/qemu-plugin.sh" --build "$tmp/b1"
mkdir -p "$tmp/b2/qemu-plugin/src"
echo "not the tarball" > "$tmp/b2/qemu-plugin/src/qemu_7.2+dfsg.orig.tar.xz"
printf 'Format: 3.0 (quilt)\nSource: qemu\nVersion: 1:7.2+dfsg-7\nChecksums-Sha256:\n %064d 1 qemu_7.2+dfsg.orig.tar.xz\n' 0 \
	> "$tmp/b2/qemu-plugin/src/qemu_7.2+dfsg-7.dsc"
refused qemu_plugin.header.refuses_a_tarball_the_dsc_does_not_name "SHA-256 .*refused" \
	env IOPATH_QEMU_INSTALLED=1:7.2+dfsg-7 "$top/scripts/qemu-plugin.sh" --build "$tmp/b2"
if [ ! -e "$tmp/b1/qemu-plugin/tbcount.so" ] && [ ! -e "$tmp/b2/qemu-plugin/tbcount.so" ] &&
   [ ! -e "$tmp/b2/qemu-plugin/qemu-plugin.h" ]; then
	ok qemu_plugin.header.nothing_built_after_a_refusal
else
	not_ok qemu_plugin.header.nothing_built_after_a_refusal
fi

# ---- iopath ab --explain: refused before anything is made -----------------------

refused ab.explain.refused_under_kvm "--explain counts TCG's translation blocks" \
	"$iopath" ab --a "$fix/a.map" --b "$fix/b.map" --accel kvm --explain --map-a "$fix/a.map" \
	--map-b "$fix/b.map" --out "$tmp/ab1" --build "$build" -- read_vs_readv
refused ab.explain.options_need_explain "--per, --map-a and --map-b go with --explain" \
	"$iopath" ab --a "$fix/a.map" --b "$fix/b.map" --accel tcg --per op_entry \
	--out "$tmp/ab2" --build "$build" -- read_vs_readv
refused ab.explain.needs_system_maps_with_given_kernels "needs --map-a" \
	"$iopath" ab --a "$fix/a.map" --b "$fix/b.map" --accel tcg --explain \
	--out "$tmp/ab3" --build "$build" -- read_vs_readv
refused ab.explain.per_must_be_a_function_name "--per 'a b': not a kernel function name" \
	"$iopath" ab --a "$fix/a.map" --b "$fix/b.map" --accel tcg --explain --per 'a b' \
	--map-a "$fix/a.map" --map-b "$fix/b.map" --out "$tmp/ab4" --build "$build" -- read_vs_readv
if [ ! -e "$tmp/ab1" ] && [ ! -e "$tmp/ab2" ] && [ ! -e "$tmp/ab3" ] && [ ! -e "$tmp/ab4" ]; then
	ok ab.explain.nothing_created_on_bad_usage
else
	not_ok ab.explain.nothing_created_on_bad_usage
fi

sed '2{h;d};3G' "$fix/blocks.in" > "$tmp/unsorted.in"
refused coverage.blocks.bad_input.functions_not_sorted "unsorted.in:3: functions not sorted by START" \
	"$iopath" tbprof blocks --file fs/x.c "$tmp/unsorted.in"
sed '/^--$/d' "$fix/blocks.in" > "$tmp/nosep.in"
refused coverage.blocks.bad_input.no_separator_line 'nosep.in:7: expected "START END NAME"' \
	"$iopath" tbprof blocks --file fs/x.c "$tmp/nosep.in"
refused coverage.blocks.bad_input.file_not_one_word "--file: not one word" \
	"$iopath" tbprof blocks --file 'fs/a b.c' "$fix/blocks.in"
mkfifo "$tmp/blocks.fifo"
refused coverage.blocks.bad_input.fifo_not_read "blocks.fifo" \
	timeout 10 "$iopath" tbprof blocks --file fs/x.c "$tmp/blocks.fifo"

finish_tap
