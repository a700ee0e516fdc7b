#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The seed corpus of each fuzz target, from the project's own inputs:
#   records  every tests/fixtures/compare/*.jsonl alone, and each after
#            base.jsonl and the "=====" separator (a BASE/NEW pair)
#   profile  configs/bench/*.conf and tests/fixtures/profile/*.conf
#   known_failures  configs/known-failures and tests/fixtures/known-failures/*
#   tap      a mode byte, the known-failures list, "=====", then each TAP
#            of the fixtures (one binary's, run_kselftest.sh's, cut)
#   quote    strings with quotes, blanks, control characters, C1 in UTF-8
#   repro_name  every bug name, and names with a newline, a slash, '..'
#   verdict_lines  the verdict engine's output on the TAP fixtures, and
#            machine lines cut, doubled or with a control character
#   export   TAP (a known failure, a cut run), records and a matrix
#   mutant_header  every mutant of configs/mutants (kernel, tool, perf),
#            and headers with a key twice, a Filter twice for one
#            program, an empty value, a control character
#   lava_log  the LAVA job logs of tests/fixtures/lava, and lines with
#            YAML tags, aliases, flow and block styles, escapes, NUL
#   mutant_classify  a VM run's output: TAP with the reader's lines and a
#            result line, cut short with vm.sh's stop line (a panic, a
#            hang, one with a control character), a hostile test name
#   yaml_bound  the LAVA job templates and device of configs/lava, and
#            texts at and past each bound (nesting, anchors, directives),
#            two documents, an empty stream, a NUL
#   ctok     the mutant generator's small tree, and C cut short: a comment,
#            a string, a brace, a directive with a continuation
# and profiles with a key twice, for the profile target's duplicate check.
#
# usage: tests/fuzz/seeds.sh OUTDIR   (makes a directory per target in OUTDIR)
set -eu

out=${1:?usage: seeds.sh OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
iop=${IOPATH_BIN:-$top/build/iopath}
fix=$top/tests/fixtures
mkdir -p "$out/records" "$out/profile" "$out/known_failures" "$out/tap" "$out/quote" "$out/repro_name" \
	"$out/verdict_lines" "$out/export" "$out/mutant_header" "$out/lava_log" "$out/mutant_classify" \
	"$out/yaml_bound" "$out/ctok"

for f in "$fix"/compare/*.jsonl; do
	name=$(basename "$f" .jsonl)
	cp "$f" "$out/records/$name"
	{ cat "$fix/compare/base.jsonl"; printf '=====\n'; cat "$f"; } > "$out/records/base-$name"
done
for f in "$top"/configs/bench/*.conf "$fix"/profile/*.conf; do
	cp "$f" "$out/profile/$(basename "$(dirname "$f")")-$(basename "$f")"
done
cp "$top/configs/known-failures" "$out/known_failures/configs-known-failures"
for f in "$fix"/known-failures/*; do
	cp "$f" "$out/known_failures/fixture-$(basename "$f")"
done
printf '[falloc_write]\nreps = 1\nreps = 2\n' > "$out/profile/dup-reps.conf"
printf '[global]\nfs = ext4\n fs=xfs\n[falloc_write]\n' > "$out/profile/dup-global-fs.conf"
printf '[uring_randread]\nbs = 4k,64k\ndepth = 1\nbs\t= 8k\n' > "$out/profile/dup-axis.conf"
i=0
for s in plain "with space" "x'; touch /tmp/PWN; echo '" $'a\nSigned-off-by: x' $'\x1b]2;t\x07' \
	$'\xc2\x9b31m' 'dir:/mnt/$(id)' '' "back\\slash" $'\t\x7f\xff'; do
	printf '%s' "$s" > "$out/quote/$i"
	i=$((i + 1))
done
i=0
for s in $("$top/scripts/repro.sh" --list) $'ext4-eof-zero-on-extend\n../../tmp/x/y' ../x ext4 \
	-v --fs 'Ext4-eof-zero-on-extend' 'ext4-eof-zero-on-extend '; do
	printf '%s' "$s" > "$out/repro_name/$i"
	i=$((i + 1))
done
printf '%s\n' 'TAP version 13' '1..2' '# selftests: iopath: fb_test' '# 1..2' \
	'# #  RUN           fb.xfs_1k.dio_past_eof ...' \
	'# # fb_test.c:417:dio_past_eof:Expected 0 (0) == r (-117)' '# not ok 1 fb.xfs_1k.dio_past_eof' \
	'# ok 2 fb.xfs.other # SKIP no xfs' '# # Totals: pass:0 fail:1 xfail:0 xpass:0 skip:1 error:0' \
	'not ok 1 selftests: iopath: fb_test # exit=1' 'ok 2 selftests: iopath: c_test # SKIP' > "$out/fb.tap"
cp "$out/fb.tap" "$out/export/fb.tap"
head -n 6 "$out/fb.tap" > "$out/export/cut.tap"
cp "$fix/compare/base.jsonl" "$out/export/base.jsonl"
head -n 1 "$fix/compare/base.jsonl" | sed 's/"value":648,/"value":true,/' > "$out/export/bool.jsonl"
printf '%s\n' '{"mutants": [{"name": "01-a", "class": "killed", "killed_by": ["a.b.c"], "build_s": 1},' \
	'{"name": "02-b\u001b", "class": "not run", "detail": "x"}], "kernel_source": "/src"}' > "$out/export/matrix.json"
i=0
for f in "$out/fb.tap" "$fix"/lava/*.log; do
	"$iop" verdict --kernel 6.1.0-57-amd64 "$top/configs/known-failures" \
		/dev/null /dev/null "$f" > "$out/verdict_lines/engine-$i" 2> /dev/null || :
	i=$((i + 1))
done
# tap: a mode byte (run_kselftest.sh's TAP, kernel 7.2.13+deb14-amd64,
# the coverage block; or one binary's, exit 1), the list, then each TAP.
i=0
for f in "$out/fb.tap" "$fix"/lava/*.log; do
	for m in '\010' '\121'; do
		{ printf "$m"; cat "$top/configs/known-failures"; echo =====; cat "$f"; } > "$out/tap/$i"
		i=$((i + 1))
	done
done
mc=$out/mutant_classify
{ cat "$out/fb.tap"; "$iop" verdict --result IOPATH-VM-RESULT \
	/dev/null /dev/null /dev/null "$out/fb.tap" 2> /dev/null || :; } > "$mc/run"
{ head -n 6 "$out/fb.tap"; echo '# IOPATH-STOP: reason=panic seconds=3 what=Oops: int3'; } > "$mc/panic"
{ head -n 6 "$out/fb.tap"; echo '# IOPATH-STOP: reason=hang seconds=9 what=no output for 9 s'; } > "$mc/hang"
printf '# IOPATH-STOP: reason=oops seconds=1 what=BUG: \x1b]2;t\x07 \033[2J\n' > "$mc/stop-control"
sed 's/$/\r/' "$mc/run" > "$mc/crlf"
printf '%s\n' '# selftests: iopath: a_test' '# #  RUN           a.x.t(w[o ...' \
	$'# # a_test.c:1:t:Expected 1 (1) == \e[2J(0)' '# not ok 1 a.x.t(w[o' \
	'ok 1 selftests: iopath: a_test' '# IOPATH-VM-RESULT: status=fail passed=0 failed=1' > "$mc/hostile"
rm -f "$out/fb.tap"
printf '%s\n' '# IOPATH-CASE: result=known program=fb_test name=fb.x.y lines=6-10 bug=b' \
	'# IOPATH-CASE: result=pass program=p name=n lines=9-3' \
	'# IOPATH-CASE: result=pass program=p name=n lines=1-2 bug=x' \
	$'# IOPATH-CASE: result=pass program=p\x1b name=n lines=1-2' \
	'# IOPATH-PROGRAM: result=excused program=fb_test' \
	'# IOPATH-VM-RESULT: status=pass passed=1 failed=0 known=0 skipped=0 programs=1 programs_failed=0 required_missing=0 stale_known=0 seconds=4' \
	'# IOPATH-RESULT: status=pass passed=4294967296 failed=0' > "$out/verdict_lines/hand"
for f in "$top"/configs/mutants/*.patch "$top"/configs/mutants/*/*.patch; do
	cp "$f" "$out/mutant_header/$(basename "$(dirname "$f")")-$(basename "$f")"
done
hdr=$'# Function: f()\n# Bug: b\n# Tests: a_test\n'
diff=$'--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n'
printf '%s%s' "$hdr" $'# Tests: b_test\n'"$diff" > "$out/mutant_header/dup-tests"
printf '%s%s' "$hdr" $'# Filter: a_test=-t x\n# Filter: a_test=-t y\n'"$diff" > "$out/mutant_header/dup-filter"
printf '%s%s' "$hdr" $'# Filter: a_test=-t x\n# Filter: b_test=-t y\n'"$diff" > "$out/mutant_header/two-filters"
printf '%s%s' "$hdr" $'# Equivalent:\n'"$diff" > "$out/mutant_header/empty-value"
printf '%s%s' "$hdr" $'# Expect: a\x1b]2;t\x07, b*\n'"$diff" > "$out/mutant_header/control"
printf '%s%s' "$hdr" $'# Expect: a, , b* ,\r\n'"$diff" > "$out/mutant_header/cr"
printf '%s' "$hdr" > "$out/mutant_header/no-diff"
for f in "$fix"/lava/*.log; do
	cp "$f" "$out/lava_log/$(basename "$f")"
done
printf '%s\n' '- {"dt": "x", "lvl": "target", "msg": "IOPATH-LAVA:kernel: 6.12.1"}' \
	'- {"lvl": "target", "msg": "IOPATH-LAVA:tap: # ok 1 a.b.c # SKIP \u001b[2J"}' \
	'- {"lvl": "target", "msg": "IOPATH-LAVA:record: {\\\"schema\\\":1}"}' \
	'- {"lvl": "target", "msg": "IOPATH-LAVA:end: 1.5 2.5"}' '---' '...' \
	'{"lvl": "results", "msg": {"case": ! "c", "definition": "0_iopath", "result": "pass"}}' \
	'{"lvl": "results", "msg": {"case": "c", "definition": "0_iopath", "result": "fail"}}' \
	'{"lvl": "results", "msg": {"case": "job", "definition": "lava", "result": "fail", "error_type": "Infrastructure", "error_msg": "Connection\x00closed\e"}}' \
	'{"lvl": &a "results", "msg": {"case": *a, "definition": *a}}' \
	'lvl: target' '{"lvl": "target", "msg": "a"} --- {"lvl": "target", "msg": "b"}' > "$out/lava_log/hand"
# patch_check: every patch of configs/ (mutants, ab seeds), a mail of git
# format-patch, and each form a patch applied to a tree must not take: a
# link, a submodule, a mode change, a rename, a binary patch, '..', an
# absolute path, an ed or a context diff, hunks cut short or too long.
pc=$out/patch_check
mkdir -p "$pc"
for f in "$top"/configs/mutants/*.patch "$top"/configs/mutants/*/*.patch "$top"/configs/ab/*.patch; do
	cp "$f" "$pc/$(basename "$(dirname "$f")")-$(basename "$f")"
done
hunk=$'--- a/fs/c\n+++ b/fs/c\n@@ -1,2 +1,2 @@\n a\n-1000\n\\ No newline at end of file\n+1050\n'
g=$'diff --git a/fs/c b/fs/c\n'
printf '%s' $'From: a\nSubject: [PATCH] x\n\n- a bullet\n---\n fs/c | 2 +-\n\n'"$g"$'index 83b33d2..a5c1966 100644\n'"$hunk"$'-- \n2.39.5\n' > "$pc/mail"
printf '%s' $'diff --git a/fs/n b/fs/n\nnew file mode 100755\nindex 0000000..1\n--- /dev/null\n+++ b/fs/n\n@@ -0,0 +1 @@\n+x\ndiff --git a/fs/o b/fs/o\ndeleted file mode 100644\n--- a/fs/o\n+++ /dev/null\n@@ -1 +0,0 @@\n-o\n' > "$pc/add-delete"
printf '%s' $'diff --git a/fs/l b/fs/l\nnew file mode 120000\nindex 0000000..1\n--- /dev/null\n+++ b/fs/l\n@@ -0,0 +1 @@\n+../../..\n\\ No newline at end of file\n'"$g$hunk" > "$pc/symlink"
printf '%s' "$g"$'new file mode 160000\n--- /dev/null\n+++ b/fs/c\n@@ -0,0 +1 @@\n+Subproject commit 1\n' > "$pc/submodule"
printf '%s' "$g"$'old mode 100644\nnew mode 100755\n'"$hunk" > "$pc/mode"
printf '%s' $'diff --git a/fs/c b/x\nsimilarity index 90%\nrename from fs/c\nrename to x\n' > "$pc/rename"
printf '%s' "$g"$'index 1..2 100644\nGIT binary patch\nliteral 4\nLcmZ?d00001\n\n' > "$pc/binary"
printf '%s' "$hunk"$'Binary files a/b and b/b differ\n' > "$pc/binary-differ"
printf '%s' $'--- a/fs/../../e\n+++ b/fs/../../e\n@@ -1 +1 @@\n-a\n+b\n' > "$pc/dotdot"
printf '%s' $'--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n' > "$pc/absolute"
printf '%s' $'1c\n1050\n.\n'"$hunk" > "$pc/ed"
printf '%s' $'*** a/c\n--- b/c\n***************\n*** 1 ****\n! a\n--- 1 ----\n! b\n' > "$pc/context"
printf '%s' "$hunk"$'+more\n' > "$pc/too-long"
printf '%s' "${hunk%$'+1050\n'}" > "$pc/cut-short"
printf '%s' $'--- a/x y\t2024-01-01\n+++ b/x y\t2024-01-01\n@@ -1 +1 @@\n-a\n\n+b\n' > "$pc/blank-name"
yb=$out/yaml_bound
for f in "$top"/configs/lava/*.yaml; do
	cp "$f" "$yb/$(basename "$f")"
done
python3 - "$yb" << 'EOF'
import sys
d = sys.argv[1]
seeds = {
    'deep64': '[' * 64 + ']' * 64,
    'deep65': '[' * 65 + ']' * 65,
    'deep_map': '{a: ' * 70 + '}' * 70,
    'block_deep': ''.join(' ' * i + 'a:\n' for i in range(70)),
    'anchors': 'x: [' + ', '.join('&a%d v' % i for i in range(128)) + ']\ny: [' +
               ', '.join('*a%d' % i for i in range(129)) + ']\n',
    'tags': ''.join('%%TAG !t%d! tag:x,2000:\n' % i for i in range(65)) + '--- !t1!a x\n',
    'two_docs': '--- {a: 1}\n--- {b: 2}\n',
    'empty': '',
    'nul': 'a: b\0c\n',
    'recursive': '&a [*a]\n',
    'merge': 'a: &x {k: v}\nb: {<<: *x, j: w}\n',
}
for name, text in seeds.items():
    open(d + '/' + name, 'w').write(text)
EOF
cp "$fix/mutgen/tree/fs/small.c" "$out/ctok/small.c"
printf 'int f(int a)\n{\n\t/* a\n' > "$out/ctok/comment"
printf 'int f(void)\n{\n\tg("a);\n}\n' > "$out/ctok/string"
printf 'int f(int a)\n{\n\tif (a) {\n}\n' > "$out/ctok/brace"
printf 'int f(int a) __releases(x)\n{\n#define Q(a) \\\n\t(a < 1)\n\treturn a << 2 | F;\n}' > "$out/ctok/directive"
