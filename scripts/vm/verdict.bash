# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# scripts/vm.sh: what the guest's result line and kernel console say;
# report_result prints the summary and exits with the verdict.

console_tail() {
	sed "$strip_esc" "$console" | grep -v '^[[:space:]]*$' | tail -n "${1:-20}" | sed 's/^/  | /' >&2
}

field() { sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p" <<< "$result"; }

# The console lines lib/kmsg.c would call a kernel bug report: the same
# list (lib/kmsg_patterns.h), the same rules (anywhere, at a word start,
# at the line start), after the console's timestamp.
kernel_log_findings() {
	local patterns=$top/lib/kmsg_patterns.h
	[ -r "$patterns" ] || { echo "$patterns: cannot read the kernel-log patterns"; return; }
	tr -d '\r' | awk -v plist="$patterns" '
		BEGIN {
			while ((getline l < plist) > 0) {
				if (l !~ /^IOP_KMSG_[A-Z_]+\("/)
					continue
				kind = l; sub(/\(.*/, "", kind)
				text = l; sub(/^[^"]*"/, "", text); sub(/".*/, "", text)
				n++; pk[n] = kind; pt[n] = text
			}
		}
		{
			line = $0
			sub(/^<[0-9]+>/, "", line)
			sub(/^\[ *[0-9]+\.[0-9]+\] /, "", line)
			for (i = 1; i <= n; i++) {
				at = index(line, pt[i])
				if (!at)
					continue
				if (pk[i] == "IOP_KMSG_LINE_START" && at != 1)
					continue
				if (pk[i] == "IOP_KMSG_WORD" && at > 1 &&
				    substr(line, at - 1, 1) ~ /[A-Za-z0-9_]/)
					continue
				print line
				next
			}
		}'
}

report_result() {
	result=$(tr -d '\r' < "$tap" | grep '^# IOPATH-VM-RESULT:' | tail -n 1)
	if [ -z "$result" ]; then
		panic=$(tr -d '\r' < "$console" | grep -m1 -oE 'Kernel panic - not syncing: .*')
		if [ -n "$timed_out" ]; then
			echo "$prog: $kdesc: $timed_out; QEMU killed after ${elapsed} s" >&2
		elif [ -n "$panic" ]; then
			echo "$prog: $kdesc: the guest kernel panicked after ${elapsed} s: ${panic#Kernel panic - not syncing: }" >&2
		elif [ "$qrc" != 0 ] && [ ! -s "$console" ]; then
			echo "$prog: $kdesc: QEMU failed (exit $qrc): $(tail -n 1 "$tmp/qemu.out")" >&2
		else
			echo "$prog: $kdesc: the guest stopped after ${elapsed} s without a result line" >&2
		fi
		echo "$prog: last kernel console lines:" >&2
		console_tail 20
		exit 1
	fi
	status=$(field status)
	known=$(field known)
	kn=""
	[ "${known:-0}" != 0 ] && kn=" $known known,"
	echo "vm: $(field passed) passed, $(field failed) failed,$kn $(field skipped) skipped" \
		"($(field programs) programs on $kdesc, $acc; prepare ${t_prep} s, boot+run ${elapsed} s)" >&2
	bad_console=$(kernel_log_findings < "$console")
	if [ -n "$bad_console" ]; then
		echo "$prog: the kernel console shows a kernel bug report (lib/kmsg_patterns.h):" >&2
		head -n 5 <<< "$bad_console" | sed 's/^/  | /' >&2
		status=fail
	fi
	if [ "$status" = fail ] && [ "$(field required_missing)" != 0 ]; then
		echo "$prog: $(field required_missing) required test(s) skipped on a kernel that has what they need:" >&2
		tr -d '\r' < "$tap" | sed -n 's/^# iopath-vm: \(required: .*\)/  \1/p' >&2
	fi
	if [ "${known:-0}" != 0 ]; then
		echo "$prog: known kernel bugs of this kernel (configs/known-failures) failed as expected:" >&2
		tr -d '\r' < "$tap" | sed -n 's/^# iopath-vm: known failure on [^:]*: /  /p' >&2
	fi
	if [ "$(field stale_known)" != 0 ] && [ -n "$(field stale_known)" ]; then
		tr -d '\r' < "$tap" | sed -n 's/^# iopath-vm: \(known failure did not reproduce: .*\)/'"$prog"': \1/p' >&2
	fi
	# The summary ends with the coverage block: the guest's, then the console.
	tr -d '\r' < "$tap" | sed -n 's/^# iopath-vm: coverage: /coverage: /p' >&2
	echo "coverage: kernel console of the whole run (loglevel=5): $([ -n "$bad_console" ] && echo FAIL || echo "ran, clean")" >&2
	[ "$status" = pass ] && exit 0
	exit 1
}
