#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Interrupt real runs at a random point and check that nothing of iopath is
# left: a selftest binary (scratch filesystems, trace instances) hit by
# Ctrl-C or SIGTERM on its whole process group, as a terminal or the
# kselftest runner would, and `iopath run` interrupted the same way, or
# killed (SIGKILL), after which iopath cleanup leaves nothing.
#
# usage: interrupt.sh BUILD_DIR
set -u

build=${1:?usage: interrupt.sh BUILD_DIR}
. "$(dirname "$0")/lib/tap.sh"

# wait_clean BEFORE: the guardians finish within a few seconds.
wait_clean() {
	local left
	for _ in $(seq 1 40); do
		left=$(comm -13 <(echo "$1") <(leftovers | sort) | sed '/^$/d')
		[ -z "$left" ] && return 0
		sleep 0.25
	done
	echo "$left" | sed 's/^/# left: /'
	return 1
}

# interrupt NAME SIGNAL CMD...: start CMD in its own process group, signal
# the group at a random moment between 1 and 4 s, then look for leftovers.
interrupt() {
	local name=$1 sig=$2 before delay pid
	shift 2
	if [ "$(id -u)" != 0 ]; then
		skip "$name" "needs root"
		return
	fi
	if [ ! -x "$1" ]; then
		skip "$name" "$1 not built"
		return
	fi
	before=$(leftovers | sort)
	delay=$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", 1 + 3 * rand() }')
	# A shell without job control starts background commands with SIGINT
	# ignored, and a selftest then ran to its end untouched: restore the
	# default a terminal's Ctrl-C meets.
	setsid env --default-signal=INT "$@" >/dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	kill -"$sig" -- -"$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	wait_clean "$before"
	check $? "$name.after_${delay}s.leaves_nothing"
}

for t in folio_batch_test iomap_trace_test; do
	interrupt "interrupt.$t.sigint" INT "$build/selftests/$t"
	interrupt "interrupt.$t.sigterm" TERM "$build/selftests/$t"
done
interrupt "interrupt.iopath_run.sigint" INT "$build/iopath" run --no-bench --results "$build/interrupt-results"
interrupt "interrupt.iopath_run.sigterm" TERM "$build/iopath" run --no-bench --results "$build/interrupt-results"

# SIGKILL: the run can do nothing at it. Its log and records were 0-byte
# files under their final names, which iopath cleanup left: a result file
# has its name only once complete, and what the run left goes with iopath
# cleanup.
killed_run() {
	local name=interrupt.iopath_run.sigkill res=$build/interrupt-results before delay pid left
	if [ "$(id -u)" != 0 ]; then
		skip "$name" "needs root"
		return
	fi
	rm -rf "$res" && mkdir -p "$res"
	before=$(leftovers | sort)
	delay=$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", 0.3 + rand() }')
	setsid "$build/iopath" run --no-bench --results "$res" > /dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	kill -KILL -- -"$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	left=$(ls -A "$res")
	[ -z "$left" ]
	check $? "$name.after_${delay}s.no_result_file_under_a_final_name${left:+ (left: ${left//$'\n'/ })}"
	"$build/iopath" cleanup > /dev/null 2>&1
	wait_clean "$before"
	check $? "$name.after_${delay}s.cleanup_leaves_nothing"
}
if [ -x "$build/iopath" ]; then
	killed_run
else
	skip interrupt.iopath_run.sigkill "$build/iopath not built"
fi
rm -rf "$build/interrupt-results"

finish_tap
