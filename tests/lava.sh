#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath lava without a lab: the jobs it writes are valid LAVA jobs
# (lava_common's schema: scripts/deps.sh check installs lava-common, a
# SKIP says so where it is missing; tests/lava_lab.sh checks every kind of
# job and iopath lava validate against it), and the verdict on a
# job's log is iopath vm's, or a named failure. The log of
# tests/fixtures/lava/swapon-6.12.log is a real one (lava-run, Debian's
# 6.12 kernel, swapon_test), with LAVA's own action results left out but
# the job's; the broken logs are made from it here. timeout-6.12.log is a
# real job that timed out.
#
# usage: tests/lava.sh BUILD_DIR
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
# Mutant headers are read by iopath mutant (the binary under test).
export IOPATH_BIN=$build/iopath
. "$top/tests/lib/tap.sh"
lava() { "$build/iopath" lava "$@"; }
fixture=$top/tests/fixtures/lava/swapon-6.12.log

tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-lava-test.XXXXXX") || { echo "Bail out! no temporary directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT

# verdict NAME LOG WANT-RC WANT-STDERR-ERE [WANT-STDOUT-ERE]
verdict() {
	local name=$1 log=$2 want_rc=$3 want_err=$4 want_out=${5:-} rc
	lava verdict --build "$build" "$log" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ "$rc" = "$want_rc" ] && grep -qE -- "$want_err" "$tmp/err" &&
	   { [ -z "$want_out" ] || grep -qE -- "$want_out" "$tmp/out"; }; then
		ok "$name"
	else
		not_ok "$name" "exit $rc (want $want_rc)" "$(head -c 600 "$tmp/err")"
	fi
}

# ---- the verdict ------------------------------------------------------------

verdict lava.verdict.real_log_gives_vm_counts "$fixture" 0 \
	'^lava: 14 passed, 0 failed, 2 skipped \(1 programs on 6\.12\.117\+deb12-amd64' \
	'^# IOPATH-VM-RESULT: status=pass passed=14 failed=0 known=0 skipped=2 programs=1 programs_failed=0 required_missing=0 stale_known=0'

# A test case LAVA recorded that the TAP does not say.
sed '0,/"case": "swapon.xfs_1k.file_with_a_hole_is_refused", "definition": "0_iopath", \(.*\)"result": "pass"/s//"case": "swapon.xfs_1k.file_with_a_hole_is_refused", "definition": "0_iopath", \1"result": "fail"/' \
	"$fixture" > "$tmp/disagree.log"
verdict lava.verdict.test_cases_disagreeing_with_tap_fail "$tmp/disagree.log" 1 \
	"test cases and the TAP disagree: swapon.xfs_1k.file_with_a_hole_is_refused is pass in the TAP, fail in the test cases"

# A failed test in the TAP and in the test cases, and so a failed program
# ("not ok 1 selftests: iopath: swapon_test # exit=1"): the run fails.
sed 's/IOPATH-LAVA:tap: # ok 15 swapon.xfs_1k.file_with_a_hole_is_refused/IOPATH-LAVA:tap: # not ok 15 swapon.xfs_1k.file_with_a_hole_is_refused/;
     s/IOPATH-LAVA:tap: ok 1 selftests: iopath: swapon_test/IOPATH-LAVA:tap: not ok 1 selftests: iopath: swapon_test # exit=1/;
     s/"case": "\(swapon.xfs_1k.file_with_a_hole_is_refused\|program.swapon_test\)", "definition": "0_iopath", \(.*\)"result": "pass"/"case": "\1", "definition": "0_iopath", \2"result": "fail"/' \
	"$fixture" > "$tmp/failed.log"
verdict lava.verdict.failed_test_fails_the_run "$tmp/failed.log" 1 \
	'^lava: 13 passed, 1 failed' '^# IOPATH-VM-RESULT: status=fail .* programs_failed=1 '

# Cut short: no job result.
grep -v '"case": "job", "definition": "lava"' "$fixture" > "$tmp/cut.log"
verdict lava.verdict.log_without_job_result_fails "$tmp/cut.log" 1 'no job result \(the log is cut short\)'

# A line that is not YAML, and one longer than any LAVA writes.
{ head -n 20 "$fixture"; echo '{"dt": "x", "lvl": "target", "msg": [unclosed'; tail -n +21 "$fixture"; } > "$tmp/bad.log"
verdict lava.verdict.malformed_line_fails_by_number "$tmp/bad.log" 1 'malformed LAVA log: line 21 is not a YAML mapping'
{ cat "$fixture"; printf '{"dt": "x", "lvl": "target", "msg": "%s"}\n' "$(head -c 70000 /dev/zero | tr '\0' a)"; } > "$tmp/long.log"
verdict lava.verdict.overlong_line_fails "$tmp/long.log" 1 'malformed LAVA log: line [0-9]+ is longer than 65536 bytes'
printf '{"lvl": "results", "msg": "a result that is text"}\n' > "$tmp/text.log"
verdict lava.verdict.result_without_fields_fails "$tmp/text.log" 1 'a result without definition and case'
: > "$tmp/empty.log"
verdict lava.verdict.empty_log_fails "$tmp/empty.log" 1 'malformed LAVA log: no entries'

# YAML aliases nested nine wide and twelve deep (tests/fixtures/lava/
# alias-bomb.log, 695 bytes): a structure that must never be turned into
# text, or the verdict would not end.
if timeout 30 "$build/iopath" lava verdict "$top/tests/fixtures/lava/alias-bomb.log" > /dev/null 2> "$tmp/err" ||
   [ $? = 124 ] || ! grep -q 'a result whose error_msg is not text' "$tmp/err"; then
	not_ok lava.verdict.alias_bomb_refused_at_once "$(head -c 300 "$tmp/err")"
else
	ok lava.verdict.alias_bomb_refused_at_once
fi

# A job that timed out in the test shell: a real lava-run log
# (tests/fixtures/lava/timeout-6.12.log: the whole collection with a
# two-minute test action, cut in the first program), with LAVA's results
# for the test shell and the job kept, its other actions' left out.
cp "$top/tests/fixtures/lava/timeout-6.12.log" "$tmp/timeout.log"
verdict lava.verdict.timed_out_job_fails "$tmp/timeout.log" 1 'the LAVA job timed out: job: lava-test-shell timed out after 120 seconds'
if grep -q '^# IOPATH-VM-RESULT:' "$tmp/out"; then
	not_ok lava.verdict.timed_out_job_has_no_result_line
else
	ok lava.verdict.timed_out_job_has_no_result_line
fi
# ... but the stop line scripts/vm.sh gives a guest without a result, so
# that iopath mutate reads both alike (it matched this reader's prose).
grep -qx '# IOPATH-STOP: reason=hang seconds=0 what=the LAVA job timed out: job: lava-test-shell timed out after 120 seconds' "$tmp/out"
check $? lava.verdict.timed_out_job_ends_with_the_stop_line
grep -v 'IOPATH-LAVA:end:' "$fixture" > "$tmp/noend.log"
lava verdict --build "$build" "$tmp/noend.log" > "$tmp/out" 2> /dev/null
grep -q '^# IOPATH-STOP: reason=no-result seconds=0 what=the guest' "$tmp/out"
check $? lava.verdict.unfinished_run_ends_with_the_stop_line

# The guest's run never ended (the job passed, the end line is missing).
grep -v 'IOPATH-LAVA:end:' "$fixture" > "$tmp/noend.log"
verdict lava.verdict.run_without_end_line_fails "$tmp/noend.log" 1 "the guest's run did not finish"

# Hostile console text: escapes, not raw control characters, and no shell.
marker=$tmp/injected
sed "s|IOPATH-LAVA:tap: # # Starting 16 tests|IOPATH-LAVA:tap: # # \\\\u001b[2J\$(touch $marker) \`touch $marker\` Starting 16 tests|" \
	"$fixture" > "$tmp/hostile.log"
lava verdict --build "$build" "$tmp/hostile.log" > "$tmp/out" 2> "$tmp/err"
if [ ! -e "$marker" ] && ! grep -q $'\x1b' "$tmp/out" && grep -qF '\x1b[2J' "$tmp/out"; then
	ok lava.verdict.hostile_console_text_is_escaped
else
	not_ok lava.verdict.hostile_console_text_is_escaped "$(grep 'Starting 16' "$tmp/out" | od -c | head -n 3)"
fi

# A kernel bug report on the console fails a passing run (verdict.bash's
# own kernel-log check).
sed '0,/"lvl": "target", "msg": "IOPATH-LAVA:tap: TAP version 13"/s//"lvl": "target", "msg": "[   12.5] WARNING: CPU: 1 PID: 77 at fs\/iomap\/buffered-io.c:123 iomap_x+0x1\/0x2"}\n{"dt": "x", "lvl": "target", "msg": "IOPATH-LAVA:tap: TAP version 13"/' \
	"$fixture" > "$tmp/warn.log"
verdict lava.verdict.kernel_warning_on_console_fails "$tmp/warn.log" 1 'the kernel console shows a kernel bug report'

# A program skipped whole ("ok 1 selftests: iopath: NAME # SKIP"): a skip
# in the TAP and in the test cases, which then agree.
sed 's/IOPATH-LAVA:tap: ok 1 selftests: iopath: swapon_test"/IOPATH-LAVA:tap: ok 1 selftests: iopath: swapon_test # SKIP"/;
     s/"case": "program.swapon_test", "definition": "0_iopath", \(.*\)"result": "pass"/"case": "program.swapon_test", "definition": "0_iopath", \1"result": "skip"/' \
	"$fixture" > "$tmp/progskip.log"
verdict lava.verdict.program_skipped_whole_is_a_skip_case "$tmp/progskip.log" 0 '^lava: 14 passed'

# The guest's own verdict: only a different verdict or count is noted, not
# a different duration (the guest times the programs, the host the run).
sed 's/\(IOPATH-LAVA:guest-verdict: .*\) seconds=48/\1 seconds=47/' "$fixture" > "$tmp/gv.log"
verdict lava.verdict.guest_verdict_other_duration_not_noted "$tmp/gv.log" 0 '^lava: 14 passed'
if grep -q "guest's own verdict differs" "$tmp/err"; then
	not_ok lava.verdict.guest_verdict_other_duration_not_noted.no_note "$(head -c 600 "$tmp/err")"
else
	ok lava.verdict.guest_verdict_other_duration_not_noted.no_note
fi
sed 's/\(IOPATH-LAVA:guest-verdict: .*\) passed=14 /\1 passed=13 /' "$fixture" > "$tmp/gv.log"
verdict lava.verdict.guest_verdict_other_counts_noted "$tmp/gv.log" 0 \
	"note: the guest's own verdict differs: .* passed=13 "

# The guest's test cases (scripts/vm/lava-guest.sh's guest_cases: the
# verdict engine, then the one reader of its machine lines, busybox sh)
# are the host's (the same reader's machine lines) for every kind of TAP
# line: a pass, a fail, a skip, a failed program, a passed one and one
# skipped whole.
guest_fn=$(sed -n '/^guest_cases() {$/,/^}$/p' "$top/scripts/vm/lava-guest.sh" | sed "s|/tmp/|$tmp/guest-|g")
guest_cases() {
	# shellcheck disable=SC2034 # judge: the guest function's engine
	(judge=$build/selftests/iopath_verdict && eval "$guest_fn" && guest_cases "$1") | sort
}
printf '%s\n' 'TAP version 13' '1..3' '# selftests: iopath: a_test' '# ok 1 a.xfs.one' '# not ok 2 a.xfs.two' \
	'# ok 3 a.ext4.three # SKIP no reflink' 'not ok 1 selftests: iopath: a_test # exit=1' \
	'ok 2 selftests: iopath: b_test' 'ok 3 selftests: iopath: c_test # SKIP' > "$tmp/kinds.tap"
guest_cases "$tmp/kinds.tap" > "$tmp/guest.cases"
# The host reads the TAP's test cases in the verdict: a log with the TAP
# and the guest's test cases agrees, one with a case changed does not.
kinds_log() {
	local tap=${2:-$tmp/kinds.tap}

	echo '{"dt": "x", "lvl": "target", "msg": "IOPATH-LAVA:kernel: 6.12.117+deb12-amd64"}'
	while IFS= read -r l; do
		printf '{"dt": "x", "lvl": "target", "msg": "IOPATH-LAVA:tap: %s"}\n' "$l"
	done < "$tap"
	echo '{"dt": "x", "lvl": "target", "msg": "IOPATH-LAVA:end: 1.0 2.0"}'
	while read -r c r; do
		printf '{"dt": "x", "lvl": "results", "msg": {"case": "%s", "definition": "0_iopath", "result": "%s"}}\n' "$c" "$r"
	done < "$1"
	echo '{"dt": "x", "lvl": "results", "msg": {"case": "job", "definition": "lava", "result": "pass"}}'
}
kinds_log "$tmp/guest.cases" > "$tmp/kinds.log"
sed 's/^program.c_test skip$/program.c_test pass/' "$tmp/guest.cases" > "$tmp/guest2.cases"
kinds_log "$tmp/guest2.cases" > "$tmp/kinds2.log"
lava verdict --build "$build" "$tmp/kinds.log" > /dev/null 2> "$tmp/err"
lava verdict --build "$build" "$tmp/kinds2.log" > /dev/null 2> "$tmp/err2"
if [ "$(wc -l < "$tmp/guest.cases")" = 6 ] && grep -qx 'program.c_test skip' "$tmp/guest.cases" &&
   grep -q '^lava: 1 passed, 1 failed, 1 skipped (3 programs' "$tmp/err" && ! grep -q disagree "$tmp/err" &&
   grep -q 'disagree: program.c_test is skip in the TAP, pass in the test cases' "$tmp/err2"; then
	ok lava.guest_and_host_read_the_same_test_cases
else
	not_ok lava.guest_and_host_read_the_same_test_cases "$(cat "$tmp/guest.cases" "$tmp/err" "$tmp/err2" | head -c 800)"
fi
# The guest's and the host's test cases are the reader's (the engine's
# IOPATH-CASE lines), not the TAP's prose: a SKIP after a failed check
# reads "ok ... # SKIP" and is a failure, in the guest and on the host.
sed 's/^\(# ok 3 a.ext4.three # SKIP no reflink\)$/# # a.c:12:three:Expected 0 (0) == r (-1)\n\1/' \
	"$tmp/kinds.tap" > "$tmp/kinds3.tap"
guest_cases "$tmp/kinds3.tap" > "$tmp/guest3.cases"
if grep -q 'Expected 0' "$tmp/kinds3.tap" && grep -qx 'a.ext4.three fail' "$tmp/guest3.cases" &&
   [ "$(wc -l < "$tmp/guest3.cases")" = 6 ]; then
	ok lava.guest_test_cases_are_the_readers_machine_lines
else
	not_ok lava.guest_test_cases_are_the_readers_machine_lines "$(cat "$tmp/guest3.cases")"
fi
sed 's/^a.ext4.three skip$/a.ext4.three fail/' "$tmp/guest.cases" > "$tmp/guest3.cases"
kinds_log "$tmp/guest3.cases" "$tmp/kinds3.tap" > "$tmp/kinds3.log"
lava verdict --build "$build" "$tmp/kinds3.log" > /dev/null 2> "$tmp/err3"
if grep -q 'Expected 0' "$tmp/kinds3.tap" && grep -qx 'a.ext4.three fail' "$tmp/guest3.cases" &&
   grep -q '^lava: 1 passed, 2 failed, 0 skipped' "$tmp/err3" && ! grep -q disagree "$tmp/err3"; then
	ok lava.host_test_cases_are_the_readers_machine_lines
else
	not_ok lava.host_test_cases_are_the_readers_machine_lines "$(head -c 800 "$tmp/err3")"
fi

# The runner's output in the guest (the engine's --kinds, then
# scripts/vm/lava-guest.sh's awk): its
# verdict's notes go on a channel of their own, not into the TAP the host
# judges again; the host's verdict has its own notes, each once, and none
# of the guest's (whose known-failures list may not be the host's).
runner_awk=$(sed -n "/| awk '{\$/,/^}'\$/p" "$top/scripts/vm/lava-guest.sh" |
	sed "1s/.*| awk '//; \$s/'\$//; s|\"/tmp/|\"$tmp/guest-|")
printf '%s\n' '# iopath-vm: feature xfs_reflink yes' 'TAP version 13' '1..1' '# ok 1 a.xfs.one' \
	'not ok 1 selftests: iopath: a_test # exit=1' '# iopath-vm: failed programs: a_test' \
	'# iopath-vm: known failure on 6.12: a.xfs.two: some-bug: why' \
	'# IOPATH-VM-RESULT: status=fail passed=1 failed=0 known=0 skipped=0 programs=1 programs_failed=1 required_missing=0 stale_known=0' \
	> "$tmp/runner.out"
"$build/selftests/iopath_verdict" --kinds iopath-vm < "$tmp/runner.out" | awk "$runner_awk" > "$tmp/runner.marked"
if [ "$(grep -c '^IOPATH-LAVA:guest-note: # iopath-vm: ' "$tmp/runner.marked")" = 2 ] &&
   [ "$(grep -c '^IOPATH-LAVA:tap: ' "$tmp/runner.marked")" = 4 ] &&
   ! grep -q '^IOPATH-LAVA:tap: # iopath-vm:' "$tmp/runner.marked" &&
   grep -qx 'IOPATH-LAVA:feature: xfs_reflink yes' "$tmp/runner.marked" &&
   grep -q '^IOPATH-LAVA:guest-verdict: # IOPATH-VM-RESULT: status=fail' "$tmp/runner.marked"; then
	ok lava.guest_verdict_notes_apart_from_the_tap
else
	not_ok lava.guest_verdict_notes_apart_from_the_tap "$(head -c 600 "$tmp/runner.marked")"
fi
sed '0,/IOPATH-LAVA:tap: ok 1 selftests: iopath: swapon_test"}/s//&\
{"dt": "x", "lvl": "target", "msg": "IOPATH-LAVA:guest-note: # iopath-vm: known failure on 6.12.117+deb12-amd64: swapon.xfs.file_with_a_hole_is_refused: some-bug: why"}/' \
	"$fixture" > "$tmp/notes.log"
lava verdict --build "$build" "$tmp/notes.log" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" = 0 ] && grep -c 'IOPATH-LAVA:guest-note' "$tmp/notes.log" | grep -qx 1 &&
   ! grep -q 'some-bug' "$tmp/out" && grep -q '^# IOPATH-VM-RESULT: status=pass passed=14 ' "$tmp/out"; then
	ok lava.verdict.guest_notes_not_in_the_hosts_tap
else
	not_ok lava.verdict.guest_notes_not_in_the_hosts_tap "exit $rc" "$(grep -n 'some-bug\|RESULT' "$tmp/out" | head -c 600)"
fi

# ---- a benchmark job -----------------------------------------------------------

# A real benchmark job (tests/fixtures/lava/bench-6.12.log: lava-run,
# Debian's 6.12, read_vs_readv source=zero, two repetitions): LAVA writes
# each '"' of the console as '\"', and the records must come back as the
# guest wrote them.
bench=$top/tests/fixtures/lava/bench-6.12.log
lava verdict --build "$build" "$bench" --records "$tmp/bench.jsonl" > /dev/null 2> "$tmp/err"
rc=$?
if [ "$rc" = 0 ] && grep -q '^lava: bench: 2 records, 28 metrics on 6.12.117+deb12-amd64' "$tmp/err" &&
   jq -se 'length == 2 and all(.[]; .bench == "read_vs_readv" and .schema == 1)' "$tmp/bench.jsonl" > /dev/null 2>&1; then
	ok lava.verdict.bench_job_gives_its_records
else
	not_ok lava.verdict.bench_job_gives_its_records "exit $rc: $(cat "$tmp/err")"
fi
sed 's/IOPATH-LAVA:bench-exit: 0/IOPATH-LAVA:bench-exit: 1/' "$bench" > "$tmp/bench1.log"
verdict lava.verdict.bench_job_whose_bench_failed_fails "$tmp/bench1.log" 1 'iopath bench exited 1 in the guest'
sed '0,/schema\\\\\\":1/s//schema\\\\\\":2/' "$bench" > "$tmp/bench2.log"
verdict lava.verdict.bench_record_of_another_schema_fails "$tmp/bench2.log" 1 'a record that is not of schema 1'
# A field of the wrong type, as the record's typed view (lib/record_view.c)
# checks every field: a "better" that is neither "higher" nor "lower" was
# passed on (only the schema, bench and samples were checked), and iopath
# compare refused the records file lava had written.
sed '0,/better\\\\\\":\\\\\\"lower/s//better\\\\\\":\\\\\\"up/' "$bench" > "$tmp/bench-up.log"
verdict lava.verdict.bench_record_field_of_the_wrong_type_fails "$tmp/bench-up.log" 1 \
	'line [0-9]+: a record that is not of schema 1 \(metric "[a-z_]+": "better" must be "higher" or "lower"\)'
# A metric whose value is null (a statistic undefined over its samples)
# is no wrong type: the record is passed on as the guest wrote it.
sed '0,/value\\\\\\":[0-9.]*/s//value\\\\\\":null/' "$bench" > "$tmp/bench-null.log"
lava verdict --build "$build" "$tmp/bench-null.log" --records "$tmp/bench-null.jsonl" > /dev/null 2> "$tmp/err"
rc=$?
if [ "$rc" = 0 ] && grep -q '^lava: bench: 2 records, 28 metrics on ' "$tmp/err" &&
   jq -se '[.[].metrics[] | select(.value == null)] | length == 1' "$tmp/bench-null.jsonl" > /dev/null 2>&1; then
	ok lava.verdict.bench_metric_with_null_value_passed_on
else
	not_ok lava.verdict.bench_metric_with_null_value_passed_on "exit $rc: $(head -c 300 "$tmp/err")"
fi

# A TAP line with quotes, as LAVA logs it: the quotes come back bare.
sed 's/IOPATH-LAVA:tap: # # Starting 16 tests from 4 test cases./IOPATH-LAVA:tap: # # Starting \\\"16\\\" tests/' \
	"$fixture" > "$tmp/quotes.log"
lava verdict --build "$build" "$tmp/quotes.log" > "$tmp/out" 2> /dev/null
if grep -qF '# # Starting "16" tests' "$tmp/out"; then
	ok lava.verdict.quotes_lava_escaped_come_back_bare
else
	not_ok lava.verdict.quotes_lava_escaped_come_back_bare "$(grep 'Starting' "$tmp/out")"
fi

# ---- bad input and outputs (issue 40 rows 12-15, 19) ------------------------

# A record with a value JSON does not have (NaN): refused, as the records
# reader (iopath compare) refuses it, and no records file written.
sed '0,/value\\\\\\":[0-9.]*/s//value\\\\\\":NaN/' "$bench" > "$tmp/nan.log"
lava verdict --build "$build" "$tmp/nan.log" --records "$tmp/nan.jsonl" > /dev/null 2> "$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q 'line [0-9]*: a record that is not JSON' "$tmp/err" && [ ! -e "$tmp/nan.jsonl" ] &&
   grep -c 'value\\\\\\":NaN' "$tmp/nan.log" | grep -qx 1; then
	ok lava.verdict.record_with_nan_value_refused
else
	not_ok lava.verdict.record_with_nan_value_refused "exit $rc: $(head -c 300 "$tmp/err")"
fi

# refused NAME WANT-ERE ARGS...: exit 2, one line on stderr, within 10 s.
refused() {
	local name=$1 want=$2 rc
	shift 2
	timeout 10 "$build/iopath" lava "$@" > /dev/null 2> "$tmp/err" < /dev/null
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -qE -- "$want" "$tmp/err"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc (want 2, one line)" "$(head -c 400 "$tmp/err")"
	fi
}
mkdir "$tmp/outdir"
refused lava.verdict.records_naming_a_directory_refused '--records .*outdir' \
	verdict "$bench" --records "$tmp/outdir"
refused lava.verdict.records_in_a_missing_directory_refused '--records .*/nonexistent/x' \
	verdict "$bench" --records /nonexistent/x
refused lava.verdict.tap_in_a_missing_directory_refused '--tap .*/nonexistent/x' \
	verdict "$fixture" --tap /nonexistent/x
mkfifo "$tmp/fifo"
refused lava.verdict.fifo_log_refused_at_once 'fifo.*not a regular file' verdict "$tmp/fifo"
refused lava.verdict.known_failures_dev_zero_refused_at_once '--known-failures /dev/zero: not a regular file' \
	verdict --known-failures /dev/zero "$fixture"
refused lava.verdict.known_failures_fifo_refused_at_once '--known-failures .*fifo: not a regular file' \
	verdict --known-failures "$tmp/fifo" "$fixture"
# A symlink at an output's name is refused, not followed; the outputs
# are 0644 less the umask, not 0600.
: > "$tmp/victim"
for o in tap console records; do
	ln -sf "$tmp/victim" "$tmp/link.$o"
done
refused lava.verdict.symlink_at_tap_refused '--tap .*link.tap' verdict "$fixture" --tap "$tmp/link.tap"
refused lava.verdict.symlink_at_console_refused '--console .*link.console' \
	verdict "$fixture" --console "$tmp/link.console"
refused lava.verdict.symlink_at_records_refused '--records .*link.records' \
	verdict "$bench" --records "$tmp/link.records"
(umask 022; lava verdict --build "$build" "$fixture" --tap "$tmp/o.tap" --console "$tmp/o.console" > /dev/null 2>&1
 lava verdict --build "$build" "$bench" --records "$tmp/o.jsonl" > /dev/null 2>&1)
if [ ! -s "$tmp/victim" ] && [ "$(stat -c %a "$tmp/o.tap" "$tmp/o.console" "$tmp/o.jsonl" | sort -u)" = 644 ]; then
	ok lava.verdict.outputs_0644_less_umask
else
	not_ok lava.verdict.outputs_0644_less_umask "$(stat -c '%a %n' "$tmp"/o.* 2>&1)"
fi

# ---- LAVA's own failures -----------------------------------------------------

# The connection to the device closed mid-test: LAVA's error, exit 3,
# not "the test cases and the TAP disagree" nor a test failure.
{ sed -n '1,/"case": "swapon.ext4.file_with_a_hole_is_refused"/p' "$fixture"
  echo '{"dt": "x", "lvl": "results", "msg": {"case": "lava-test-shell", "definition": "lava", "result": "fail", "extra": {"fail": "Connection closed"}}}'
  echo '{"dt": "x", "lvl": "results", "msg": {"case": "job", "definition": "lava", "error_msg": "Connection closed", "error_type": "Infrastructure", "result": "fail"}}'
} > "$tmp/infra.log"
verdict lava.verdict.infrastructure_error_mid_test_is_lavas_exit_3 "$tmp/infra.log" 3 \
	"infrastructure failed.*error_type Infrastructure: Connection closed"
# The same after the run ended, while the test cases were being sent.
{ sed -n '1,/"case": "swapon.ext4.file_with_a_hole_is_refused"/p' "$fixture"
  grep 'IOPATH-LAVA:end:' "$fixture"
  echo '{"dt": "x", "lvl": "results", "msg": {"case": "job", "definition": "lava", "error_msg": "lava-test-shell: Connection closed", "error_type": "Bug", "result": "fail"}}'
} > "$tmp/infra2.log"
verdict lava.verdict.infrastructure_error_after_the_run_is_lavas_exit_3 "$tmp/infra2.log" 3 \
	"infrastructure failed.*error_type Bug: lava-test-shell: Connection closed"
# A deploy that failed: LAVA's error_msg quoted.
printf '%s\n' '{"dt": "x", "lvl": "info", "msg": "start: 1.1 download-retry"}' \
	'{"dt": "x", "lvl": "results", "msg": {"case": "download-retry", "definition": "lava", "result": "fail"}}' \
	'{"dt": "x", "lvl": "results", "msg": {"case": "job", "definition": "lava", "error_msg": "sha256sum mismatch for vmlinuz", "error_type": "Configuration", "result": "fail"}}' \
	> "$tmp/deploy.log"
verdict lava.verdict.deploy_failure_quotes_lavas_error_msg "$tmp/deploy.log" 1 \
	"never started the run \\(no kernel line\\): LAVA's job error \\(Configuration\\): sha256sum mismatch for vmlinuz"

# ---- iopath mutate --matrix from LAVA jobs ----------------------------------

# The pristine job's log, one mutant's with a test it kills, one with every
# test passing, one whose job timed out: killed, survived, killed by a hang.
mkdir -p "$tmp/mlogs"
cp "$fixture" "$tmp/mlogs/pristine.log"
cp "$tmp/failed.log" "$tmp/mlogs/18-swapfile-accepts-hole.log"
cp "$fixture" "$tmp/mlogs/19-swapfile-accepts-shared.log"
cp "$tmp/timeout.log" "$tmp/mlogs/01-iter-fbatch-not-released.log"
"$top/scripts/mutate.sh" --matrix --lava "$tmp/mlogs" --work "$tmp/mwork" --build "$build" > "$tmp/matrix.out" 2> "$tmp/err"
if jq -e '(.mutants | map({(.name): .class}) | add) as $c |
	  $c["18-swapfile-accepts-hole"] == "killed" and $c["19-swapfile-accepts-shared"] == "survived" and
	  $c["01-iter-fbatch-not-released"] == "crash" and
	  (.mutants[] | select(.name == "18-swapfile-accepts-hole") | .killed_by == ["swapon.xfs_1k.file_with_a_hole_is_refused"]) and
	  (.mutants[] | select(.name == "01-iter-fbatch-not-released") | .detail | test("hang: .*LAVA job timed out"))' \
	"$tmp/mwork/matrix.json" > /dev/null 2>&1; then
	ok lava.mutate_matrix_from_job_logs_classifies_each_mutant
else
	not_ok lava.mutate_matrix_from_job_logs_classifies_each_mutant "$(tail -n 5 "$tmp/err")" \
		"$(grep -E '18-|19-|01-' "$tmp/matrix.out" | head -n 3)"
fi
# A generated mutant's job ("# Tests: all", the whole collection): judged
# as --all-tests judges, so a test that passed on the pristine job and
# never reported (its program crashed or timed out) kills it; judged by
# its named programs (it names none), that went unseen and it survived.
# Its sample's kill rate is in the matrix.
mkdir -p "$tmp/gmlogs" "$tmp/gmmutants"
printf '# Mutant: 001-relop-f\n# Function: f()\n# Bug: relop\n# Tests: all\n# Generated: relop, 3\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n' \
	> "$tmp/gmmutants/001-relop-f.patch"
sed 's/001-relop-f/002-relop-g/' "$tmp/gmmutants/001-relop-f.patch" > "$tmp/gmmutants/002-relop-g.patch"
cp "$fixture" "$tmp/gmlogs/pristine.log"
grep -v swapon.xfs_1k.file_with_a_hole_is_refused "$fixture" > "$tmp/gmlogs/001-relop-f.log"
cp "$fixture" "$tmp/gmlogs/002-relop-g.log"
"$top/scripts/mutate.sh" --matrix --lava "$tmp/gmlogs" --work "$tmp/gmwork" --mutants "$tmp/gmmutants" --build "$build" \
	> "$tmp/gmatrix.out" 2> "$tmp/err"
if jq -e '(.mutants | map({(.name): .class}) | add) as $c |
	  $c["001-relop-f"] == "killed" and $c["002-relop-g"] == "survived" and
	  (.mutants[] | select(.name == "001-relop-f") | .killed_by == ["swapon.xfs_1k.file_with_a_hole_is_refused"] and (.detail | test("no result from"))) and
	  .generated.rate_of == 2 and .generated.kill_rate == 0.5' "$tmp/gmwork/matrix.json" > /dev/null 2>&1 &&
   grep -q '^Kill rate of the 2 non-equivalent ones that built and ran: 1/2 = 50.0% (95% CI ' "$tmp/gmatrix.out"; then
	ok lava.mutate_matrix_judges_a_generated_mutant_over_the_whole_collection
else
	not_ok lava.mutate_matrix_judges_a_generated_mutant_over_the_whole_collection "$(tail -n 3 "$tmp/err")" \
		"$(grep -E '^\| *00[12]|Kill rate' "$tmp/gmatrix.out" | head -n 3)"
fi
"$top/scripts/mutate.sh" --matrix --lava "$tmp/nonexistent" --work "$tmp/mwork2" > /dev/null 2> "$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -q 'no pristine.log' "$tmp/err" && [ ! -e "$tmp/mwork2" ]; then
	ok lava.mutate_matrix_without_pristine_job_refused
else
	not_ok lava.mutate_matrix_without_pristine_job_refused "exit $rc: $(cat "$tmp/err")"
fi

# ---- the jobs -----------------------------------------------------------------

lava jobs --kernel linux-image-x --out "$tmp/nonexistent/out" > /dev/null 2> "$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -q 'no such directory' "$tmp/err" && [ "$(wc -l < "$tmp/err")" = 1 ] &&
   [ ! -e "$tmp/nonexistent" ]; then ok lava.jobs.bad_out_dir_is_usage_error; else
	not_ok lava.jobs.bad_out_dir_is_usage_error "exit $rc: $(cat "$tmp/err")"; fi
mkdir -p "$tmp/jobs"
# shellcheck disable=SC2016
lava jobs --kernel linux-image-x --out "$tmp/jobs" --url-base 'http://lab/$(reboot)' > /dev/null 2> "$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -q 'url-base' "$tmp/err" && [ -z "$(ls "$tmp/jobs")" ]; then
	ok lava.jobs.url_with_shell_syntax_refused_before_anything; else
	not_ok lava.jobs.url_with_shell_syntax_refused_before_anything "exit $rc: $(cat "$tmp/err")"; fi

# A job file that is not YAML, and one larger than any job: named, exit 1.
printf 'job_name: [unclosed\n' > "$tmp/notyaml.yaml"
head -c 1100000 /dev/zero | tr '\0' '#' > "$tmp/huge.yaml"
lava validate "$tmp/notyaml.yaml" "$tmp/huge.yaml" 2> "$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q 'notyaml.yaml: invalid: not YAML: line 2' "$tmp/err" &&
   grep -q 'huge.yaml: invalid: larger than 1 MiB' "$tmp/err" && ! grep -q Traceback "$tmp/err"; then
	ok lava.validate.unparsable_and_huge_job_files_named_invalid
else
	not_ok lava.validate.unparsable_and_huge_job_files_named_invalid "exit $rc: $(head -c 300 "$tmp/err")"
fi

# A fake bzImage (the boot header's magic) stands in for a kernel: the jobs
# are written, and an initramfs built, without booting anything.
if [ ! -x "$build/selftests/iopath_probe" ] || ! command -v busybox > /dev/null && [ ! -x /bin/busybox ]; then
	skip lava.jobs.written_for_a_kernel "no selftests built or no busybox"
else
	fake=$tmp/bzImage
	head -c 4096 /dev/zero > "$fake"
	printf 'HdrS' | dd of="$fake" bs=1 seek=514 conv=notrunc 2> /dev/null
	mkdir -p "$tmp/work/kernels" "$tmp/work/obj/arch/x86/boot"
	cp "$fake" "$tmp/work/obj/arch/x86/boot/bzImage"
	m=$(basename "$(ls "$top"/configs/mutants/*.patch | head -n 1)" .patch)
	cp "$fake" "$tmp/work/kernels/$m"
	if lava jobs --kernel "$fake" --kernel-url https://builds.example.org/k/bzImage --out "$tmp/jobs" \
		--build "$build" -- -t iopath:swapon_test \
		> "$tmp/jobs.list" 2> "$tmp/err" &&
	   lava mutate --work "$tmp/work" --out "$tmp/jobs" --build "$build" >> "$tmp/jobs.list" 2>> "$tmp/err" &&
	   lava bench --kernel "$fake" --out "$tmp/jobs" --build "$build" --boots 2 -- --reps 1 \
		>> "$tmp/jobs.list" 2>> "$tmp/err" &&
	   lava ab --a "$fake" --b "$fake" --out "$tmp/jobs" --build "$build" --boots 1 -- read_vs_readv \
		>> "$tmp/jobs.list" 2>> "$tmp/err" &&
	   [ "$(wc -l < "$tmp/jobs.list")" = 7 ]; then
		ok lava.jobs.written_for_a_kernel_each_mutant_kernel_each_bench_and_ab_boot
	else
		not_ok lava.jobs.written_for_a_kernel_each_mutant_kernel_each_bench_and_ab_boot "$(tail -n 3 "$tmp/err")"
	fi
	# Its programs in its command, the initramfs shared with the pristine job.
	if grep -q -- '- "/iopath/lava/run -- -t iopath:' "$tmp/jobs/$m.yaml" && grep -q 'no_timer_check' "$tmp/jobs/$m.yaml" &&
	   grep -q 'initramfs-mutate/initrd.cpio.gz' "$tmp/jobs/$m.yaml" &&
	   grep -q 'initramfs-mutate/initrd.cpio.gz' "$tmp/jobs/pristine.yaml"; then
		ok lava.jobs.mutant_job_runs_what_mutate_runs
	else
		not_ok lava.jobs.mutant_job_runs_what_mutate_runs
	fi
	# A generated mutant's "# Tests: all": its job runs the whole
	# collection (no -t; "iopath:all" was no program), and so does the
	# pristine job its results are judged against.
	mkdir -p "$tmp/gmutants" "$tmp/gwork/kernels" "$tmp/gwork/obj/arch/x86/boot" "$tmp/gjobs"
	printf '# Mutant: 001-relop-f\n# Function: f()\n# Bug: relop\n# Tests: all\n# Generated: relop, 3\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n' \
		> "$tmp/gmutants/001-relop-f.patch"
	cp "$top/configs/mutants/$m.patch" "$tmp/gmutants/"
	cp "$fake" "$tmp/gwork/kernels/001-relop-f"
	cp "$fake" "$tmp/gwork/kernels/$m"
	cp "$fake" "$tmp/gwork/obj/arch/x86/boot/bzImage"
	if lava mutate --work "$tmp/gwork" --mutants "$tmp/gmutants" --out "$tmp/gjobs" --build "$build" \
		> /dev/null 2> "$tmp/gerr" &&
	   grep -q -- '- "/iopath/lava/run --"$' "$tmp/gjobs/001-relop-f.yaml" &&
	   grep -q -- '- "/iopath/lava/run --"$' "$tmp/gjobs/pristine.yaml" &&
	   grep -q -- '- "/iopath/lava/run -- -t iopath:' "$tmp/gjobs/$m.yaml"; then
		ok lava.jobs.generated_mutant_job_runs_the_whole_collection
	else
		not_ok lava.jobs.generated_mutant_job_runs_the_whole_collection "$(tail -n 2 "$tmp/gerr")" \
			"$(grep -h 'lava/run' "$tmp"/gjobs/*.yaml 2>&1 | head -n 3)"
	fi
	# A kernel the lab fetches from a build's URL: that URL in the job, the
	# local copy's sha256 beside it.
	if grep -q 'url: "https://builds.example.org/k/bzImage"' "$tmp/jobs/bzImage.yaml" &&
	   grep -q "sha256sum: \"$(sha256sum < "$fake" | cut -c1-64)\"" "$tmp/jobs/bzImage.yaml"; then
		ok lava.jobs.kernel_from_a_url_keeps_the_local_sha256
	else
		not_ok lava.jobs.kernel_from_a_url_keeps_the_local_sha256
	fi
	if grep -q -- '--bench --profile /iopath/bench/configs/bench/quick.conf --reps 1' "$tmp/jobs/bench-quick-bzImage-boot2.yaml"; then
		ok lava.jobs.bench_job_runs_the_profile
	else
		not_ok lava.jobs.bench_job_runs_the_profile
	fi
	bad_arg='--reps=1;reboot'
	lava bench --kernel "$fake" --out "$tmp/jobs" --build "$build" -- "$bad_arg" > /dev/null 2> "$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && grep -q 'benchmark argument' "$tmp/err"; then ok lava.jobs.bench_argument_with_shell_syntax_refused; else
		not_ok lava.jobs.bench_argument_with_shell_syntax_refused "exit $rc"; fi
	lava ab --a "$fake" --out "$tmp/jobs" --build "$build" -- read_vs_readv > /dev/null 2> "$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && grep -q -- '--a and --b are required' "$tmp/err"; then ok lava.jobs.ab_needs_both_kernels; else
		not_ok lava.jobs.ab_needs_both_kernels "exit $rc"; fi
	mapfile -t jobs < "$tmp/jobs.list"
	# The validation can fail, lava_common or not: a job without its test
	# action (this tool's own check).
	sed '/^- test:/,$d' "${jobs[0]}" > "$tmp/broken.yaml"
	lava validate "$tmp/broken.yaml" 2> "$tmp/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q 'broken.yaml: invalid: actions are' "$tmp/err"; then
		ok lava.jobs.validation_rejects_a_broken_job
	else
		not_ok lava.jobs.validation_rejects_a_broken_job "exit $rc: $(head -c 300 "$tmp/err")"
	fi
	if [ ${#jobs[@]} -gt 0 ] && lava validate "${jobs[@]}" 2> "$tmp/err"; then
		ok lava.jobs.valid_by_own_checks
	else
		not_ok lava.jobs.valid_by_own_checks "$(head -c 600 "$tmp/err")"
	fi
	# What LAVA's schema refuses and a job of ours could get wrong: a
	# priority LAVA does not have, a timeout that is no number.
	sed 's/^priority: medium$/priority: urgent/' "${jobs[0]}" > "$tmp/priority.yaml"
	sed 's/^      minutes: 5$/      minutes: five/' "${jobs[0]}" > "$tmp/five.yaml"
	lava validate "$tmp/priority.yaml" "$tmp/five.yaml" 2> "$tmp/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q "priority.yaml: invalid: priority: not high, medium, low or 0 to 100 (LAVA's schema)" "$tmp/err" &&
	   grep -q "five.yaml: invalid: actions\[1\].boot.timeout.minutes: not a number of at least 1 (LAVA's schema)" "$tmp/err"; then
		ok lava.jobs.validation_rejects_what_lavas_schema_rejects
	else
		not_ok lava.jobs.validation_rejects_what_lavas_schema_rejects "exit $rc: $(head -c 300 "$tmp/err")"
	fi
	# lava_common's schema (the server's), test-only, where installed.
	if /usr/bin/python3 -c 'import lava_common.schemas' 2> /dev/null; then
		if /usr/bin/python3 -c 'import sys, yaml
from lava_common.schemas import validate
for j in sys.argv[1:]:
    validate(yaml.safe_load(open(j)))' "${jobs[@]}" 2> "$tmp/err"; then
			ok lava.jobs.valid_by_lava_common_schema
		else
			not_ok lava.jobs.valid_by_lava_common_schema "$(tail -n 3 "$tmp/err")"
		fi
	else
		skip lava.jobs.valid_by_lava_common_schema \
			"lava-common not installed (scripts/deps.sh check installs it)"
	fi
	# The job files: 0644 less the umask, a symlink at a job's name refused.
	if [ "$(stat -c %a "${jobs[@]}" | sort -u)" = 644 ]; then
		ok lava.jobs.job_files_0644_less_umask
	else
		not_ok lava.jobs.job_files_0644_less_umask "$(stat -c '%a %n' "${jobs[@]}")"
	fi
	mkdir "$tmp/ljobs"
	ln -s "$tmp/victim" "$tmp/ljobs/bzImage.yaml"
	lava jobs --kernel "$fake" --out "$tmp/ljobs" --build "$build" > /dev/null 2> "$tmp/err"
	rc=$?
	if [ "$rc" = 1 ] && [ -L "$tmp/ljobs/bzImage.yaml" ] && [ ! -s "$tmp/victim" ] &&
	   grep -q 'bzImage.yaml: Too many levels of symbolic links' "$tmp/err"; then
		ok lava.jobs.symlink_at_a_job_file_refused
	else
		not_ok lava.jobs.symlink_at_a_job_file_refused "exit $rc: $(head -c 300 "$tmp/err")"
	fi
	# --device-type x86: tftp and ipxe, as x86.jinja2 offers them; --out made.
	if lava jobs --kernel "$fake" --out "$tmp/x86" --device-type x86 --build "$build" \
		> "$tmp/x86.list" 2> "$tmp/err" &&
	   grep -q '^    to: tftp$' "$tmp/x86/bzImage.yaml" && grep -q '^    method: ipxe$' "$tmp/x86/bzImage.yaml" &&
	   grep -q '^  extra_kernel_args: "panic=-1 rdinit=/init loglevel=5"$' "$tmp/x86/bzImage.yaml" &&
	   lava validate "$tmp/x86/bzImage.yaml"; then
		ok lava.jobs.x86_job_deploys_to_tftp_and_boots_ipxe_out_made
	else
		not_ok lava.jobs.x86_job_deploys_to_tftp_and_boots_ipxe_out_made "$(head -c 300 "$tmp/err")"
	fi
	# Every job's context through lava-server's own device-type templates
	# (Debian's lava-server: installed, or its package unpacked here,
	# python3-jinja2 in this test only): the QEMU command line has the
	# memory, CPUs and options docs/fleet.md's figures were measured with.
	dt=/usr/share/lava-server/device-types
	if [ ! -f "$dt/qemu.jinja2" ]; then
		dt=$build/lava-server/usr/share/lava-server/device-types
		if [ ! -f "$dt/qemu.jinja2" ] && command -v apt-get > /dev/null; then
			mkdir -p "$tmp/deb" &&
			(cd "$tmp/deb" && timeout 120 apt-get download lava-server > /dev/null 2>&1) &&
			dpkg-deb -x "$tmp"/deb/lava-server_*.deb "$build/lava-server.new" &&
			rm -rf "$build/lava-server" && mv "$build/lava-server.new" "$build/lava-server"
		fi
	fi
	if [ ! -f "$dt/qemu.jinja2" ]; then
		skip lava.jobs.qemu_command_line_from_lava_servers_template "no lava-server templates (apt-get download lava-server failed)"
		skip lava.jobs.x86_ipxe_commands_from_lava_servers_template "no lava-server templates"
	elif ! /usr/bin/python3 -c 'import jinja2, yaml' 2> /dev/null; then
		skip lava.jobs.qemu_command_line_from_lava_servers_template "python3-jinja2 not installed (scripts/deps.sh check)"
		skip lava.jobs.x86_ipxe_commands_from_lava_servers_template "python3-jinja2 not installed"
	else
		/usr/bin/python3 "$top/tests/lib/lava_render.py" "$dt" "${jobs[@]}" > "$tmp/qemu.lines" 2> "$tmp/err"
		rc=$?
		if [ "$rc" = 0 ] && [ "$(wc -l < "$tmp/qemu.lines")" = ${#jobs[@]} ] &&
		   ! grep -v -- '^qemu-system-x86_64 .* -m 2048 .*-accel tcg,thread=single -cpu max -smp 2$' "$tmp/qemu.lines" &&
		   ! grep -q -- '-enable-kvm\|-cpu host' "$tmp/qemu.lines"; then
			ok lava.jobs.qemu_command_line_from_lava_servers_template
		else
			not_ok lava.jobs.qemu_command_line_from_lava_servers_template "exit $rc" \
				"$(head -c 600 "$tmp/qemu.lines" "$tmp/err")"
		fi
		/usr/bin/python3 "$top/tests/lib/lava_render.py" "$dt" "$tmp/x86/bzImage.yaml" > "$tmp/x86.lines" 2> "$tmp/err"
		rc=$?
		if [ "$rc" = 0 ] && grep -q '^deploy tftp; ipxe ramdisk: .*set extraargs panic=-1 rdinit=/init loglevel=5 ' "$tmp/x86.lines" &&
		   grep -q 'kernel tftp://{SERVER_IP}/{KERNEL}' "$tmp/x86.lines"; then
			ok lava.jobs.x86_ipxe_commands_from_lava_servers_template
		else
			not_ok lava.jobs.x86_ipxe_commands_from_lava_servers_template "exit $rc" \
				"$(head -c 600 "$tmp/x86.lines" "$tmp/err")"
		fi
	fi
fi

# A device type whose deploy and boot the jobs do not use: one line, exit
# 2, nothing made; --out is made, but not its parent.
refused lava.jobs.other_device_type_refused "--device-type 'beaglebone-black': iopath's jobs deploy and boot on qemu" \
	jobs --kernel linux-image-x --out "$tmp/bbb" --device-type beaglebone-black
if [ ! -e "$tmp/bbb" ]; then ok lava.jobs.other_device_type_made_nothing; else
	not_ok lava.jobs.other_device_type_made_nothing; fi
sed 's/^    method: qemu$/    method: u-boot/' "$top/configs/lava/selftests.yaml" > "$tmp/uboot.yaml"
refused lava.jobs.template_not_of_its_device_type_refused 'uboot.yaml: the job for --device-type qemu would be wrong' \
	jobs --kernel linux-image-x --out "$tmp/tt" --template "$tmp/uboot.yaml"

finish_tap
