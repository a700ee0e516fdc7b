# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Sourced by the tests/*.sh scripts: TAP output and the list of what
# iopath may leave on a machine. Not executable, so check.sh does not run it.

n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
# not_ok NAME [DIAGNOSTIC...]: each diagnostic on a "# " line after it
not_ok() {
	n=$((n + 1))
	echo "not ok $n $1"
	failed=1
	shift
	local l
	for l in "$@"; do
		echo "# $l"
	done
}
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }
# check STATUS NAME: ok when STATUS is 0
check() { if [ "$1" = 0 ]; then ok "$2"; else not_ok "$2"; fi; }
# check_cmd NAME CMD...: ok when CMD succeeds
check_cmd() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
# The plan comes last; exit with the verdict.
finish_tap() { echo "1..$n"; exit "$failed"; }

# skip_all_unless_root WHY: a script that cannot run anything unprivileged.
skip_all_unless_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "1..0 # SKIP needs root ($1)"
		exit 0
	fi
}

# root_test WHY NAME [BUILT]: the start of a script that runs as root:
# skip it all (1..0) unless root, or unless BUILT (a build product it
# drives) is there; then tmp, a fresh /tmp/iopath-NAME.XXXXXX removed on
# exit (a script with more to undo sets its own EXIT trap, removing $tmp).
root_test() {
	skip_all_unless_root "$1"
	if [ -n "${3:-}" ] && [ ! -x "$3" ]; then
		echo "1..0 # SKIP $3 not built"
		exit 0
	fi
	tmp=$(mktemp -d "/tmp/iopath-$2.XXXXXX") || { echo "Bail out! no temporary directory"; exit 1; }
	trap 'rm -rf "$tmp"' EXIT
}

# Everything iopath may leave behind, one "kind name" per line: mounts
# under /run/iopath, loop devices tagged iopath, configured zram devices,
# iopath trace instances, scratch state files.
leftovers() {
	grep -E ' /run/iopath/' /proc/self/mounts | awk '{print "mount " $2}'
	losetup -a 2>/dev/null | grep iopath | cut -d: -f1 | sed 's/^/loop /'
	for z in /sys/block/zram*; do
		[ -e "$z/disksize" ] && [ "$(cat "$z/disksize")" != 0 ] && echo "zram ${z##*/}"
	done
	for t in /sys/kernel/tracing/instances/iopath-* /sys/kernel/debug/tracing/instances/iopath-*; do
		[ -d "$t" ] && echo "trace-instance ${t##*/}"
	done
	ls /run/iopath/state 2>/dev/null | sed 's/^/state /'
	ls /run/iopath/tmp 2>/dev/null | sed 's/^/tmp /'
	return 0
}
