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

# _lo_theirs PID [START]: PID is a live process (started at START, field 22
# of /proc/PID/stat, when given) that is neither this script ($$) nor one
# of its descendants: another run's, still at work.
_lo_theirs() {
	local p=$1 start=${2:-} s n=0
	local -a stat
	[[ $p =~ ^[1-9][0-9]{0,9}$ ]] || return 1
	{ read -r s < "/proc/$p/stat"; } 2> /dev/null || return 1
	# comm may hold spaces and parentheses: the fields follow the last ')'
	read -ra stat <<< "${s##*) }"
	case ${stat[0]} in Z|X) return 1 ;; esac
	[ -z "$start" ] || [ "${stat[19]}" = "$start" ] || return 1
	while [ "$p" -gt 1 ] && [ "$n" -lt 200 ]; do
		[ "$p" = "$$" ] && return 1
		{ read -r s < "/proc/$p/stat"; } 2> /dev/null || return 1
		read -ra stat <<< "${s##*) }"
		p=${stat[1]}
		n=$((n + 1))
	done
	return 0
}

# _lo_id_theirs ID: what scratch made under ID ("<pid>-...") is another
# live run's; the state file of ID, when there is one, gives the owner's
# start time, so that a reused pid is not taken for the run.
_lo_id_theirs() {
	local pid=${1%%-*} start=""
	[ "$pid" != "$1" ] || return 1
	[ -f "/run/iopath/state/$1" ] &&
		start=$(sed -n 's/^owner_start=\([0-9]*\)$/\1/p' "/run/iopath/state/$1" 2> /dev/null | head -n 1)
	_lo_theirs "$pid" "$start"
}

# Everything iopath may leave behind, one "kind name" per line: mounts
# under /run/iopath, loop devices tagged iopath, configured zram devices,
# iopath trace instances, scratch state and temporary files. Each names
# the run that made it: an id "<pid>-..." (mount point, loop tag or backing
# file, state file, trace instance, temporary file) or, for a zram device,
# the owner of the state file that claims it. What a run that is still
# alive and not ours made is left out: another iopath run at the same time
# (another make check, a benchmark) is not a leftover of this one. What a
# dead run made is listed, whoever started it, and so is what nothing
# names.
leftovers() {
	local l m z id owner start k
	local tagged='(iopath:|/run/iopath/img/)([0-9]+-[^ .)]*)'
	while read -r _ m _; do
		case $m in
		/run/iopath/mnt/*) id=${m#/run/iopath/mnt/} ;;
		/run/iopath/tracefs-*) id=${m#/run/iopath/tracefs-}- ;;
		*) id="" ;;
		esac
		_lo_id_theirs "$id" || echo "mount $m"
	done < <(grep -E ' /run/iopath/' /proc/self/mounts)
	while IFS= read -r l; do
		id=""
		[[ $l =~ $tagged ]] && id=${BASH_REMATCH[2]}
		_lo_id_theirs "$id" || echo "loop ${l%%:*}"
	done < <(losetup -a 2> /dev/null | grep iopath)
	for z in /sys/block/zram*; do
		[ -e "$z/disksize" ] && [ "$(cat "$z/disksize")" != 0 ] || continue
		owner=""
		for l in $(grep -lx "zram=${z#/sys/block/zram}" /run/iopath/state/* 2> /dev/null); do
			owner=$(sed -n 's/^owner=\([0-9]*\)$/\1/p' "$l" | head -n 1)
			start=$(sed -n 's/^owner_start=\([0-9]*\)$/\1/p' "$l" | head -n 1)
			_lo_theirs "$owner" "$start" && continue 2
		done
		echo "zram ${z##*/}"
	done
	for l in /sys/kernel/tracing/instances/iopath-* /sys/kernel/debug/tracing/instances/iopath-*; do
		[ -d "$l" ] || continue
		id=${l##*/iopath-}
		_lo_id_theirs "$id" || echo "trace-instance ${l##*/}"
	done
	for l in /run/iopath/state/* /run/iopath/tmp/*; do
		[ -e "$l" ] || continue
		k=${l%/*}
		_lo_id_theirs "${l##*/}" || echo "${k##*/} ${l##*/}"
	done
	return 0
}
