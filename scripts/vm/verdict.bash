# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# scripts/vm.sh and contrib/fstests/vm.sh: what the guest's result line
# and kernel console say; report_result prints the summary and exits with
# the verdict.

console_tail() {
	sed "$strip_esc" "$console" | grep -v '^[[:space:]]*$' | tail -n "${1:-20}" | sed 's/^/  | /' >&2
}

# guest_stop_reason: why a guest gave no result, for people: the limit it
# ran out of, the kernel's panic, QEMU's own failure, or a plain stop.
guest_stop_reason() {
	local panic
	panic=$(tr -d '\r' < "$console" | grep -m1 -oE 'Kernel panic - not syncing: .*')
	if [ -n "$timed_out" ]; then
		echo "$timed_out; QEMU killed after ${elapsed} s"
	elif [ -n "$panic" ]; then
		echo "the guest kernel panicked after ${elapsed} s: $(esc "${panic#Kernel panic - not syncing: }")"
	elif [ "$qrc" != 0 ] && [ ! -s "$console" ]; then
		echo "QEMU failed (exit $qrc): $(esc "$(tail -n 1 "$tmp/qemu.out")")"
	else
		echo "the guest stopped after ${elapsed} s without a result line"
	fi
}

# guest_stop_line: the same for the programs that run this one, one
# machine line on stdout after the guest's output (where the guest's
# result line would have been); they classify from it, never from the
# prose:
#   # IOPATH-STOP: reason=hang|panic|oops|qemu|no-result seconds=N what=TEXT
# TEXT, the rest of the line, escaped (esc): the first kernel bug report
# of the console (a panic, an oops, a BUG, a protection fault), after
# the limit for a hang, QEMU's last line for qemu.
guest_stop_line() {
	local splat reason what
	splat=$(tr -d '\r' < "$console" |
		grep -m1 -oE 'Kernel panic - not syncing: .*|Oops: .*|kernel BUG at .*|BUG: .*|general protection fault.*')
	if [ -n "$timed_out" ]; then
		reason=hang what="${splat:+$splat, }$timed_out"
	elif [ -n "$splat" ]; then
		reason=oops what=$splat
		tr -d '\r' < "$console" | grep -q 'Kernel panic - not syncing: ' && reason=panic
	elif [ "$qrc" != 0 ] && [ ! -s "$console" ]; then
		reason=qemu what="QEMU failed (exit $qrc): $(tail -n 1 "$tmp/qemu.out")"
	else
		reason=no-result what="no result line"
	fi
	printf '# IOPATH-STOP: reason=%s seconds=%s what=%s\n' "$reason" "$elapsed" "$(esc "$what")"
}

# read_result: the guest's result line, as the one reader of the machine
# lines says it (iopath verdict --read): its values into status, passed,
# failed, known, skipped, programs, required_missing and stale_known. 1
# when the guest gave none (or one that does not read: said on stderr).
read_result() {
	local v rc
	v=$("$(iopath_bin)" verdict --read --result IOPATH-VM-RESULT \
		--fields status,passed,failed,known,skipped,programs,required_missing,stale_known \
		"$tap" 2> "$tmp/read.err")
	rc=$?
	[ "$rc" = 2 ] && echo "$prog: $kdesc: the guest's machine lines: $(esc "$(head -n 1 "$tmp/read.err")")" >&2
	[ "$rc" = 0 ] || return 1
	read -r status passed failed known skipped programs required_missing stale_known <<< "$v"
}

# The console lines lib/kmsg.c calls a kernel bug report: iopath kmsg scan
# is the classifier the selftests use, applied to the console log.
kernel_log_findings() {
	local iopath=${IOPATH_BIN:-$build/iopath} rc
	[ -x "$iopath" ] || { echo "$iopath: not found, the console was not checked (run make)"; return; }
	"$iopath" kmsg scan "$console"
	rc=$?
	[ "$rc" -le 1 ] || echo "iopath kmsg scan failed (exit $rc), the console was not checked"
}

# The records of a --bench run: each line the guest sent behind
# "IOPATH-RECORD ", to --records. Their contents are read by the records
# reader (iopath compare), not here.
report_bench() {
	local n bad
	tr -d '\r' < "$tap" | sed -n 's/^IOPATH-RECORD //p' > "$tmp/records.jsonl"
	n=$(wc -l < "$tmp/records.jsonl")
	echo "vm: bench: $n records ($kdesc, $acc$([ "$icount" = 1 ] && echo ", instructions");" \
		"prepare ${t_prep} s, boot+run ${elapsed} s)" >&2
	bad=$(kernel_log_findings < "$console")
	if [ -n "$bad" ]; then
		echo "$prog: the kernel console shows a kernel bug report (lib/kmsg_patterns.h):" >&2
		head -n 5 <<< "$bad" | sed 's/^/  | /' >&2
		status=fail
	fi
	if [ "$status" != pass ]; then
		tr -d '\r' < "$tap" | sed -n 's/^# iopath-vm: bench: //p' | tail -n 5 |
			while IFS= read -r l; do echo "  | $(esc "$l")"; done >&2
		echo "$prog: $kdesc: the benchmark failed in the guest" >&2
		exit 1
	fi
	write_file "$records_out" < "$tmp/records.jsonl" || exit 1
	exit 0
}

report_result() {
	if ! read_result; then
		echo "$prog: $kdesc: $(guest_stop_reason)" >&2
		guest_stop_line
		echo "$prog: last kernel console lines:" >&2
		console_tail 20
		exit 1
	fi
	if [ "$bench" = 1 ]; then
		report_bench
		return
	fi
	kn=""
	[ "$known" != 0 ] && kn=" $known known,"
	echo "vm: $passed passed, $failed failed,$kn $skipped skipped" \
		"($programs programs on $kdesc, $acc; prepare ${t_prep} s, boot+run ${elapsed} s)" >&2
	bad_console=$(kernel_log_findings)
	if [ -n "$bad_console" ]; then
		echo "$prog: the kernel console shows a kernel bug report (lib/kmsg_patterns.h):" >&2
		head -n 5 <<< "$bad_console" | sed 's/^/  | /' >&2
		status=fail
	fi
	if [ "$status" = fail ] && [ "$required_missing" != 0 ]; then
		echo "$prog: $required_missing required test(s) skipped on a kernel that has what they need:" >&2
		tr -d '\r' < "$tap" | sed -n 's/^# iopath-vm: \(required: .*\)/  \1/p' >&2
	fi
	if [ "$known" != 0 ]; then
		echo "$prog: known kernel bugs of this kernel (configs/known-failures) failed as expected:" >&2
		tr -d '\r' < "$tap" | sed -n 's/^# iopath-vm: known failure on [^:]*: /  /p' >&2
	fi
	if [ "$stale_known" != 0 ]; then
		tr -d '\r' < "$tap" | sed -n 's/^# iopath-vm: \(known failure did not reproduce: .*\)/'"$prog"': \1/p' >&2
	fi
	# The summary ends with the coverage block: the guest's, then the console.
	tr -d '\r' < "$tap" | sed -n 's/^# iopath-vm: coverage: /coverage: /p' >&2
	echo "coverage: kernel console of the whole run (loglevel=5): $([ -n "$bad_console" ] && echo FAIL || echo "ran, clean")" >&2
	[ "$status" = pass ] && exit 0
	exit 1
}
