#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath in a LAVA test shell: the guest side of a job `iopath lava` wrote.
# The initramfs of scripts/vm.sh --lava-out holds it as /iopath/lava/run;
# /init left a shell on the console, LAVA's test shell runs this there.
#
# It runs what /init runs in `iopath vm` (scripts/selftest-runner.sh:
# iopath_probe, then run_kselftest.sh with the job's arguments and
# environment, then the verdict) and writes two things on the console:
#
#   - lines "IOPATH-LAVA:CHANNEL: TEXT" the host reads back from the job's
#     log (iopath lava verdict): "kernel" (uname -r), "image-sha256" (the
#     job's kernel, IOPATH_KERNEL_SHA256 of its test step), "feature" (one
#     iopath_probe line), "tap" (one line of run_kselftest.sh's output),
#     "guest-note" and "guest-verdict" (the runner's own verdict: its
#     notes, its result line), "end" (start and end uptime, seconds: the
#     run finished); with
#     --bench, "bench" (iopath bench's output), "record" (one record) and
#     "bench-exit" instead;
#   - one LAVA test case per harness test (its name, pass, fail or skip),
#     one per program ("program.NAME") and "iopath-verdict", this guest's
#     own verdict by the runner.
#
# The host does not trust either: it judges the TAP itself, with the same
# verdict engine, and checks the test cases against it. A test's output cannot
# forge a LAVA signal: "<LAVA_" in it is written as "<lava_" and control
# characters as '?'.
#
# busybox sh; no bashisms.
export PATH="$PATH:/usr/sbin:/usr/bin:/sbin:/bin"

mark() {
	printf 'IOPATH-LAVA:%s: %s\n' "$1" "$2"
}

# lava-test-case outside LAVA (a dry run by hand): the signal it would send.
if ! command -v lava-test-case > /dev/null 2>&1; then
	lava_test_case() {
		echo "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=$1 RESULT=$3>"
	}
else
	lava_test_case() {
		lava-test-case "$@"
	}
fi

# The collection's verdict engine, also the one reader of its machine lines.
judge=/iopath/kselftest/iopath/iopath_verdict

mark kernel "$(uname -r)"
# The kernel image the job deployed (its sha256, from the job's test
# definition: the initramfs may be shared by several kernels).
case ${IOPATH_KERNEL_SHA256:-} in
*[!0-9a-f]*|"") ;;
*) [ ${#IOPATH_KERNEL_SHA256} = 64 ] && mark image-sha256 "$IOPATH_KERNEL_SHA256" ;;
esac

# --bench ARGS: iopath bench with those arguments instead of the selftests.
# Each record goes back as a "record" line (one JSON object), each metric
# as a LAVA measurement; "bench-exit" is iopath bench's exit status.
if [ "${1:-}" = --bench ]; then
	shift
	if [ ! -x /iopath/bench/build/iopath ]; then
		mark bench-exit 127
		lava_test_case bench --result fail
		exit 0
	fi
	/iopath/bench/build/iopath bench --quiet --out /tmp/records.jsonl "$@" > /tmp/bench.out 2>&1
	rc=$?
	awk '{ gsub(/[\001-\010\013-\037\177]/, "?"); gsub(/<LAVA_/, "<lava_"); print "IOPATH-LAVA:bench: " $0 }' /tmp/bench.out
	while IFS= read -r r; do
		mark record "$(printf '%s' "$r" | sed 's/<LAVA_/<lava_/g')"
	done < /tmp/records.jsonl
	mark bench-exit "$rc"
	# bench.METRIC measurements: records' keys are in a fixed order
	# (docs/records.md): "bench", then per metric "name", "unit", ..., "value".
	awk '{
		b = $0; sub(/.*"bench":"/, "", b); sub(/".*/, "", b)
		rest = $0
		while (match(rest, /"name":"[A-Za-z0-9_]+","unit":"[^"]*"[^}]*"value":[-0-9.eE+]+/)) {
			m = substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH)
			n = m; sub(/^"name":"/, "", n); sub(/".*/, "", n)
			u = m; sub(/^[^,]*,"unit":"/, "", u); sub(/".*/, "", u); gsub(/[^A-Za-z0-9%\/_]/, "_", u)
			v = m; sub(/.*"value":/, "", v)
			print b "." n "." NR, v, u
		}
	}' /tmp/records.jsonl > /tmp/measurements
	while read -r name value units; do
		lava_test_case "$name" --result pass --measurement "$value" --units "${units:-none}"
	done < /tmp/measurements
	[ "$rc" = 0 ] && lava_test_case bench --result pass || lava_test_case bench --result fail
	exit 0
fi
# The job's programs and filters: "--env NAME=VALUE ... -- ARGS" on the
# command line (iopath lava mutate: one initramfs for every mutant kernel),
# else the ones the initramfs was built with.
. /etc/iopath-vm/env
if [ $# -gt 0 ]; then
	while [ $# -gt 0 ] && [ "$1" = --env ]; do
		case ${2:-} in
		[A-Za-z_]*=*) export "${2%%=*}=${2#*=}" ;;
		*) mark tap "# iopath-vm: bad --env '${2:-}'"; exit 1 ;;
		esac
		shift 2
	done
	[ "${1:-}" = -- ] && shift
	# iopath vm's stretched per-program timeout, from the built-in args.
	o=$(sed -n '1{/^-o$/{n;p}}' /etc/iopath-vm/args)
	[ -n "$o" ] && set -- -o "$o" "$@"
else
	set --
	while IFS= read -r a; do
		set -- "$@" "$a"
	done < /etc/iopath-vm/args
fi
start=$(cut -d' ' -f1 /proc/uptime)
# The one runner, as /init runs it in iopath vm. Its lines go out one at a
# time (fflush), so that a job cut short keeps what ran, each by its kind
# as the verdict engine tells them apart (iopath_verdict --kinds): its features on
# "feature", its verdict's notes ("# iopath-vm: failed programs: ...",
# "known failure on ...") on "guest-note", its result line on
# "guest-verdict", the rest on "tap". The host judges the TAP again and
# writes notes of its own: on "tap" the guest's would be there twice, and
# a known failure the host does not excuse would still read as excused.
/etc/iopath-vm/selftest-runner.sh --known /etc/iopath-vm/known-failures --tag iopath-vm \
	--result IOPATH-VM-RESULT /iopath/kselftest "$@" 2>&1 | "$judge" --kinds iopath-vm | awk '{
	gsub(/[\001-\010\013-\037\177]/, "?")
	gsub(/<LAVA_/, "<lava_")
	kind = $1
	sub(/^[a-z]+ /, "")
	if (kind == "feature") {
		print "IOPATH-LAVA:feature: " $0
	} else if (kind == "result") {
		print > "/tmp/verdict"
		print "IOPATH-LAVA:guest-verdict: " $0
	} else if (kind == "note") {
		print "IOPATH-LAVA:guest-note: " $0
	} else {
		print > "/tmp/tap"
		print "IOPATH-LAVA:tap: " $0
	}
	fflush()
}'
end=$(cut -d' ' -f1 /proc/uptime)
mark end "$start $end"

# guest_cases TAP: the test cases of TAP, "NAME RESULT" a line, as the
# verdict engine judges them and the one reader of its machine lines says
# them (iopath_verdict --read --cases): harness tests by name, then
# "program.NAME"; a known failure or an excused program is still a
# failure, an unfinished one no test case.
guest_cases() {
	"$judge" /dev/null /dev/null /dev/null "$1" > /tmp/judged 2> /dev/null
	"$judge" --read --cases /tmp/judged 2> /dev/null | while read -r kind r prog name _; do
		case $r in
		known|excused) r=fail ;;
		pass|fail|skip) ;;
		*) continue ;;
		esac
		if [ "$kind" = program ]; then
			echo "program.$prog $r"
		else
			case $name in
			""|*[!A-Za-z0-9_.-]*) ;;
			*) echo "$name $r" ;;
			esac
		fi
	done
}
guest_cases /tmp/tap > /tmp/cases
while read -r name result; do
	lava_test_case "$name" --result "$result"
done < /tmp/cases

verdict=fail
[ "$("$judge" --read --result IOPATH-VM-RESULT --fields status /tmp/verdict 2> /dev/null)" = pass ] &&
	verdict=pass
lava_test_case iopath-verdict --result "$verdict"
# The test shell goes on; its exit status is LAVA's, the verdict is above.
exit 0
