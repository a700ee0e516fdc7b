#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The machine lines of the verdict ("# IOPATH-CASE:", "# IOPATH-PROGRAM:",
# "# WORD-RESULT:") have one writer and one reader, both lib/verdict.c:
# the scripts ask `iopath verdict --read` (the result line's values, the
# cases in order), `--kinds` (a runner's output line by line) and
# `--result-line` (a line of their own counts), and take no line apart
# themselves. Bugs it catches: a name the writer wrote longer than the
# reader holds (make check counted a check of tests/tap_verdict.sh with a
# 264-byte name as no verdict), a script that slices a result line with
# sed (a key renamed or reordered read as nothing, a CR kept from a
# serial console), a guest that writes a result line of its own shape
# (the bench guest's "bench_exit=" line the reader refused), a reader
# that takes the last of two result lines where C takes the first; and
# the engine's files calling each other in a circle (lib/verdict.c,
# lib/tap_note.c, lib/tap_cov.c, lib/tap.c in layers).
#
# Each case runs under both forms of the engine, `iopath verdict` and the
# collection's static iopath_verdict (the guests').
#
# usage: tests/verdict_read.sh [BUILD_DIR]
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/tap.sh"
build=$(cd "${1:-$top/build}" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '#!/bin/sh\nexec %s verdict "$@"\n' "$build/iopath" > "$tmp/iopath-verdict"
chmod +x "$tmp/iopath-verdict"
engines=()
for a in "$tmp/iopath-verdict" "$build/selftests/iopath_verdict"; do
	if [ -x "$a" ]; then
		engines+=("$a")
	else
		not_ok "the engine ${a##*/} is built (make cli selftests)"
	fi
done

# A run: two programs, a pass, a failure and a skip, a program that failed,
# one that passed, one skipped whole.
printf '%s\n' 'TAP version 13' '1..3' '# selftests: iopath: a_test' '# ok 1 a.xfs.one' \
	'# not ok 2 a.xfs.two' '# ok 3 a.ext4.three # SKIP no reflink' \
	'not ok 1 selftests: iopath: a_test # exit=1' 'ok 2 selftests: iopath: b_test' \
	'ok 3 selftests: iopath: c_test # SKIP' > "$tmp/run.tap"

for e in "${engines[@]}"; do
	w=${e##*/}
	"$e" --result IOPATH-VM-RESULT --start 10 --end 52.5 /dev/null /dev/null /dev/null \
		"$tmp/run.tap" > "$tmp/$w.out"
	# As a serial console gives it: every line ends in CR LF.
	sed 's/$/\r/' "$tmp/$w.out" > "$tmp/$w.crlf"

	out=$("$e" --read "$tmp/$w.out")
	rc=$?
	[ "$rc" = 0 ] && [ "$out" = "$(printf '%s\n' word=IOPATH-VM-RESULT status=fail passed=1 \
		failed=1 known=0 skipped=1 programs=3 programs_failed=1 required_missing=0 \
		stale_known=0 seconds=42)" ]
	check $? "verdict_read.$w.result_line_as_key_value_lines"

	out=$("$e" --read --result IOPATH-VM-RESULT --fields status,failed,seconds "$tmp/$w.crlf")
	[ "$?" = 0 ] && [ "$out" = "fail 1 42" ]
	check $? "verdict_read.$w.fields_of_a_crlf_file"

	out=$("$e" --read --result IOPATH-RESULT --fields status "$tmp/$w.out")
	[ "$?" = 1 ] && [ -z "$out" ]
	check $? "verdict_read.$w.no_result_line_of_that_word_exits_1"

	# Two result lines of two words: each reader takes the first of its word.
	{ cat "$tmp/$w.out"; sed -n 's/^# IOPATH-VM-RESULT: status=fail passed=1 /# IOPATH-RESULT: status=pass passed=7 /p' \
		"$tmp/$w.out"; sed -n 's/ passed=1 / passed=9 /p' "$tmp/$w.out" | grep -v CASE; } > "$tmp/$w.two"
	[ "$("$e" --read --result IOPATH-RESULT --fields status,passed "$tmp/$w.two")" = "pass 7" ] &&
		[ "$("$e" --read --result IOPATH-VM-RESULT --fields passed "$tmp/$w.two")" = 1 ]
	check $? "verdict_read.$w.first_result_line_of_the_word"

	out=$("$e" --read --cases "$tmp/$w.out")
	[ "$out" = "$(printf '%s\n' 'case pass a_test a.xfs.one' 'case fail a_test a.xfs.two' \
		'case skip a_test a.ext4.three' 'program fail a_test' 'program pass b_test' \
		'program skip c_test')" ]
	check $? "verdict_read.$w.cases_and_programs_in_order"

	printf '%s\n' '# IOPATH-CASE: result=pass program=a name=b lines=1-2' \
		'# IOPATH-VM-RESULT: status=pass passed=1' > "$tmp/$w.bad"
	out=$("$e" --read "$tmp/$w.bad" 2>&1)
	[ "$?" = 2 ] && [ "$out" = "$tmp/$w.bad:2: a malformed machine line" ]
	check $? "verdict_read.$w.malformed_line_exits_2_naming_it"

	"$e" --read --fields status,bogus "$tmp/$w.out" > /dev/null 2>&1
	[ "$?" = 2 ]
	check $? "verdict_read.$w.unknown_field_is_bad_usage"

	mkfifo "$tmp/$w.fifo"
	timeout 10 "$e" --read "$tmp/$w.fifo" > /dev/null 2>&1
	[ "$?" = 2 ]
	check $? "verdict_read.$w.fifo_refused_not_waited_on"

	out=$(printf '%s\n' '# iopath-vm: feature xfs_reflink yes' 'TAP version 13' \
		'# iopath-vm: failed programs: a_test' "$(grep CASE "$tmp/$w.out" | head -n 1)" \
		"$(grep RESULT "$tmp/$w.out")" '# IOPATH-VM-RESULT: status=pass' '# other: x' |
		"$e" --kinds iopath-vm | cut -d' ' -f1 | tr '\n' ' ')
	[ "$out" = "feature line note line result line line " ]
	check $? "verdict_read.$w.kinds_of_a_runners_lines"

	# A check named in prose longer than the reader holds (a tests/*.sh
	# check of 264 bytes failed make check's count as "malformed"): the
	# writer cuts it to what the reader takes.
	long=$(printf 'x%.0s' $(seq 300))
	printf '%s\n' 'TAP version 13' '1..1' "ok 1 $long" > "$tmp/$w.long.tap"
	"$e" --program p --exit-status 0 /dev/null /dev/null /dev/null "$tmp/$w.long.tap" > "$tmp/$w.long"
	out=$("$e" --read --cases "$tmp/$w.long" 2>&1)
	[ "$?" = 0 ] && [ "$out" = "case pass p ${long:0:255}"$'\n'"program pass p" ] &&
		[ "$("$e" --read --fields status,passed "$tmp/$w.long")" = "pass 1" ]
	check $? "verdict_read.$w.long_name_written_as_the_reader_holds_it"

	out=$("$e" --result-line --result IOPATH-VM-RESULT status=pass passed=1 failed=0 known=0 \
		skipped=0 programs=1 programs_failed=0 required_missing=0 stale_known=0 > "$tmp/$w.rl" &&
		"$e" --read --fields word,status,programs "$tmp/$w.rl")
	[ "$out" = "IOPATH-VM-RESULT pass 1" ]
	check $? "verdict_read.$w.result_line_written_is_read"
done

# One writer and one reader: no file but lib/verdict.c writes a machine
# line or takes one apart (an anchored pattern, an awk field compare, an
# echo of one, a strncmp on one, a slice of its seconds).
pat=(-e '\^# IOPATH-(CASE|PROGRAM|[A-Z-]*RESULT)' -e '\|IOPATH-[A-Z-]*RESULT\)'
	-e '== "IOPATH-(CASE|PROGRAM)' -e "(say|echo|printf) [\"']# IOPATH-(CASE|PROGRAM|[A-Z-]*RESULT)"
	-e 'strn?cmp\([^)]*"# IOPATH-(CASE|PROGRAM|[A-Z-]*RESULT)' -e 'strstr\([^)]*" seconds="')
readers=$(cd "$top" && git grep -lE "${pat[@]}" -- scripts cli lib contrib selftests ':!lib/verdict.c' 2> /dev/null)
[ -z "$readers" ]
check $? "verdict_read.machine_lines_written_and_read_only_by_lib_verdict_c${readers:+ (also: $(echo $readers))}"

# The engine's files in layers: each calls only the ones before it.
layers=(verdict tap_known tap_note tap_cov tap tap_main)
bad=""
for i in "${!layers[@]}"; do
	o=$build/lib/${layers[$i]}.o
	if [ ! -f "$o" ]; then
		bad+=" ${layers[$i]}.o-missing"
		continue
	fi
	for ((k = i + 1; k < ${#layers[@]}; k++)); do
		u=$build/lib/${layers[$k]}.o
		[ -f "$u" ] || continue
		# a name $o takes that a later layer defines
		comm -12 <(nm -u "$o" | awk '{ print $2 }' | sort -u) \
			<(nm --defined-only -g "$u" | awk '{ print $3 }' | sort -u) | grep -q . &&
			bad+=" ${layers[$i]}->${layers[$k]}"
	done
done
[ -z "$bad" ]
check $? "verdict_read.engine_files_call_only_downwards${bad:+ (calls up:$bad)}"

finish_tap
