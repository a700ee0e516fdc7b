#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# CI on a machine that has nothing: a fresh Debian 12 root made by
# `debootstrap --variant=minbase` with only git, make, sudo and
# ca-certificates added, a clean clone of the repository in it, and
# .ci/run (make check) then make run inside it, as root. What this
# machine happens to have installed does not count: a missing install
# step in scripts/deps.sh fails here.
#
# The root is a mount point of its own (a bind mount of itself), as a
# container's or a CI machine's / is, with /dev, /proc and /sys from the
# host (the tests make zram and loop devices and read tracefs). With
# --plain-chroot it is not, as in a build chroot (sbuild, pbuilder): the
# scratch filesystems cannot have a mount namespace of their own there.
#
# Everything it makes (the root, its mounts, the processes left in it) is
# removed on every exit path; SIGINT and SIGTERM stop the step at work
# (each runs in a session of its own, killed whole) and clean up at once.
# A run killed with SIGKILL leaves its work directory: the next run (or
# --sweep alone) removes every dead run's, found by its owner file (pid
# and start time): the processes whose root is its root (those in a mount
# namespace of their own included), then its mounts, deepest first,
# checked gone from the mount table before anything is removed; nothing
# is removed while something is mounted below it, and no symbolic link is
# followed. It prints what the steps print, then one machine line per
# step:
#   fresh-root: step=ci rc=N seconds=N awk=PATH last=LINE
#
# usage: fresh-root.sh [--repo DIR] [--rev REV] [--awk mawk|gawk]
#                      [--cache DIR] [--mirror URL] [--plain-chroot]
#                      [--ci-only]
#        fresh-root.sh --sweep
set -u

prog=fresh-root
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/common.bash"

usage() {
	cat <<EOF
usage: $0 [options]
  --repo DIR       the repository to clone (default: this one)
  --rev REV        what to check out (default: HEAD of --repo)
  --awk NAME       mawk (the default, Debian's) or gawk as /usr/bin/awk
  --cache DIR      keep debootstrap's downloaded packages there
  --mirror URL     the Debian archive (default: the host's apt sources)
  --plain-chroot   do not make the root a mount point
  --ci-only        .ci/run only, not make run after it
  --sweep          only remove what dead runs left (see the header)
EOF
}

# Where each run works: /var/tmp/iopath-fresh.XXXXXX, with its owner file.
base=/var/tmp
pattern=iopath-fresh.

# start_time PID: field 22 of /proc/PID/stat (the process's start), or nothing.
start_time() {
	local s
	local -a f
	{ read -r s < "/proc/$1/stat"; } 2> /dev/null || return 1
	# comm may hold blanks and parentheses: the fields follow the last ')'
	read -ra f <<< "${s##*) }"
	echo "${f[19]}"
}

# mounted_below DIR: the mount points at or below DIR, in the mount
# table's order (a mount before those made on top of it), decoded.
mounted_below() {
	local m
	findmnt -rn -o TARGET | while IFS= read -r m; do
		[[ $m == *\\* ]] && m=$(printf '%b' "$m")
		[ "$m" = "$1" ] || [[ $m == "$1"/* ]] && printf '%s\n' "$m"
	done
}

# no_link_below TOP PATH: no component of PATH after TOP is a symbolic link.
no_link_below() {
	local p=$2
	while [ "$p" != "$1" ] && [ "${#p}" -gt "${#1}" ]; do
		[ -L "$p" ] && return 1
		p=${p%/*}
	done
	return 0
}

# teardown WORK: a run's work directory removed: the processes whose root
# is WORK/root (their /proc/PID/root is that directory, also from a mount
# namespace of their own), what the suite left mounted in it, every mount
# below WORK (umount -R, the last made first), and the directory only once
# the mount table shows nothing below it. 1 if something stays mounted.
teardown() {
	local w=$1 r=$1/root p id left m
	if [ -d "$r" ] && [ ! -L "$r" ]; then
		id=$(stat -c %d:%i -- "$r")
		for p in /proc/[0-9]*; do
			[ "$(stat -L -c %d:%i -- "$p/root/" 2> /dev/null)" = "$id" ] &&
				kill -KILL "${p#/proc/}" 2> /dev/null
		done
		for _ in $(seq 50); do
			left=""
			for p in /proc/[0-9]*; do
				[ "$(stat -L -c %d:%i -- "$p/root/" 2> /dev/null)" = "$id" ] && left=1 && break
			done
			[ -z "$left" ] && break
			sleep 0.1
		done
		if [ -x "$r/root/iopath/build/iopath" ] && [ ! -L "$r/root" ]; then
			timeout 60 chroot "$r" /root/iopath/build/iopath cleanup --all > /dev/null 2>&1
		fi
	fi
	for p in 1 2 3; do
		left=$(mounted_below "$w")
		[ -z "$left" ] && break
		while IFS= read -r m; do
			# still a mount point (an umount -R before took it, and
			# the name is now the directory below), reached by no link
			no_link_below "$w" "$m" && mountpoint -q -- "$m" || continue
			umount -R -c -- "$m" 2> /dev/null || umount -R -l -c -- "$m" 2> /dev/null
		done < <(tac <<< "$left")
	done
	left=$(mounted_below "$w")
	if [ -n "$left" ]; then
		echo "$prog: still mounted, $(esc "$w") left in place: $(esc "${left//$'\n'/ }")" >&2
		return 1
	fi
	rm -rf --one-file-system -- "$w"
}

# sweep: every dead run's work directory torn down. A directory is taken
# as a run's only if it is a real directory (no link), root's, written by
# no one else; a run is dead when its owner file names a process that is
# gone (or another with its pid), or when it has none a minute after it
# was made (the run died before writing it).
sweep() {
	local w pid start now
	for w in "$base/$pattern"*; do
		[ -d "$w" ] && [ ! -L "$w" ] && [ "$(stat -c %u -- "$w")" = 0 ] || continue
		[ $((0$(stat -c %a -- "$w") & 022)) = 0 ] || continue
		if [ -f "$w/owner" ] && [ ! -L "$w/owner" ] && read -r pid start < "$w/owner"; then
			[[ $pid =~ ^[1-9][0-9]*$ ]] && [ "$(start_time "$pid")" = "$start" ] && continue
		else
			now=$(date +%s)
			[ $((now - $(stat -c %Y -- "$w"))) -ge 60 ] || continue
		fi
		echo "$prog: removing $(esc "$w"), left by a dead run" >&2
		teardown "$w"
	done
}

repo=$top
rev=HEAD
awk_name=mawk
cache=""
mirror=""
plain=0
ci_only=0
sweep_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--repo|--rev|--awk|--cache|--mirror)
		[ $# -ge 2 ] || usage_error "$1 needs a value"
		case $1 in
		--repo) repo=$2 ;;
		--rev) rev=$2 ;;
		--awk) awk_name=$2 ;;
		--cache) cache=$2 ;;
		--mirror) mirror=$2 ;;
		esac
		shift 2 ;;
	--plain-chroot) plain=1; shift ;;
	--ci-only) ci_only=1; shift ;;
	--sweep) sweep_only=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage_error "unknown argument '$(printf %q "$1")'" ;;
	esac
done
case $awk_name in mawk|gawk) ;; *) usage_error "--awk '$(printf %q "$awk_name")': expected mawk or gawk" ;; esac
[ "$(id -u)" = 0 ] || usage_error "needs root (debootstrap, chroot, mounts)"
sweep
[ "$sweep_only" = 1 ] && exit 0
git -C "$repo" rev-parse --verify -q "$rev^{commit}" > /dev/null ||
	usage_error "--repo $(printf %q "$repo") --rev $(printf %q "$rev"): no such commit"
# --cache resolved once, links and all, and the directory it names
# checked and used: a link swapped after the check changes nothing.
if [ -n "$cache" ]; then
	cache_in=$cache
	cache=$(cd -P -- "$cache" 2> /dev/null && pwd -P) && [ -d "$cache" ] && [ -O "$cache" ] ||
		usage_error "--cache $(printf %q "$cache_in"): not a directory of yours"
fi
# The host's own archive, so that the root gets what this machine would.
[ -n "$mirror" ] || mirror=$(host_mirror debian)
[ -n "$mirror" ] || usage_error "no Debian archive in the host's apt sources: give --mirror"
"$top/scripts/deps.sh" fresh || exit 1

work=$(mktemp -d "$base/${pattern}XXXXXX") || fail "mktemp: cannot create a directory in $base"
root=$work/root
# Whose it is: a later run's sweep leaves it alone while this one lives.
echo "$$ $(start_time $$)" > "$work/owner" || fail "cannot write $work/owner"

# bg CMD...: CMD in a session of its own (its whole tree one process
# group), waited for: a signal to this script is handled at once, and
# on_signal kills the group.
child=""
bg() {
	local rc
	setsid "$@" < /dev/null &
	child=$!
	wait "$child"
	rc=$?
	child=""
	return "$rc"
}
on_signal() {
	trap '' INT TERM
	if [ -n "$child" ]; then
		kill -TERM -- "-$child" 2> /dev/null
		sleep 1
		kill -KILL -- "-$child" 2> /dev/null
	fi
	teardown "$work"
	exit "$1"
}
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'trap "" INT TERM; teardown "$work"' EXIT

mkdir "$root" || fail "cannot create $root"
if [ "$plain" = 0 ]; then
	mount --bind "$root" "$root" && mount --make-private "$root" ||
		fail "cannot make $root a mount point"
fi
# minbase: apt, dpkg, bash, coreutils and what they need; no awk but
# mawk, no compiler, no python.
echo "$prog: debootstrap --variant=minbase bookworm from $mirror" >&2
# shellcheck disable=SC2054 # one argument, a list of packages
dbs=(debootstrap --variant=minbase --include=git,make,sudo,ca-certificates)
[ -n "$cache" ] && dbs+=(--cache-dir="$cache")
bg "${dbs[@]}" bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1 ||
	fail "debootstrap failed: $(tail -n 1 "$work/debootstrap.log" | cut -c1-200)"
# The host's apt sources (the suites CI's machine has: updates, security)
# and resolver; nothing else of the host's.
rm -f "$root/etc/apt/sources.list"
cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2> /dev/null
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$root/etc/apt/"
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null

# /dev for the zram and loop devices, /sys for their attributes and
# tracefs, /proc; slaves, so that nothing mounted below them inside goes
# back to the host.
for m in dev sys; do
	mount --rbind "/$m" "$root/$m" && mount --make-rslave "$root/$m" ||
		fail "cannot bind /$m into the root"
done
mount -t proc proc "$root/proc" || fail "cannot mount proc in the root"

git clone -q --no-hardlinks "$repo" "$root/root/iopath" &&
	git -C "$root/root/iopath" checkout -q "$(git -C "$repo" rev-parse "$rev^{commit}")" ||
	fail "cannot clone $(printf %q "$repo") into the root"

# in_root CMD [LOG]: CMD by bash in the root, as CI runs .ci/run: root, no
# terminal, no standard input, a clean environment, in a session of its own.
# With LOG, its output is printed and written to LOG too (tee, in the
# same session: killed with it).
in_root() {
	local -a argv=(chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 CI=true
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -c "$1")
	if [ -n "${2:-}" ]; then
		bg bash -o pipefail -c '"$@" 2>&1 | tee "$0"' "$2" "${argv[@]}"
	else
		bg "${argv[@]}"
	fi
}
if [ "$awk_name" = gawk ]; then
	in_root 'apt-get update -q && apt-get install -y -q --no-install-recommends gawk &&
		update-alternatives --set awk /usr/bin/gawk' > "$work/gawk.log" 2>&1 ||
		fail "cannot install gawk in the root: $(tail -n 1 "$work/gawk.log" | cut -c1-200)"
fi
awk_path=$(chroot "$root" readlink -f /usr/bin/awk)

# step NAME CMD: run CMD in the clone, print its output, then its line.
status=0
step() {
	local name=$1 t0=$SECONDS rc last
	in_root "cd /root/iopath && $2" "$work/$name.log"
	rc=$?
	last=$(grep -v '^[[:space:]]*$' "$work/$name.log" | tail -n 1)
	printf '%s: step=%s rc=%d seconds=%d awk=%s last=%s\n' "$prog" "$name" "$rc" \
		$((SECONDS - t0)) "$awk_path" "$(printf %q "$last")"
	[ "$rc" = 0 ] || status=1
}
step ci 'bash .ci/run'
[ "$ci_only" = 1 ] || step run 'make run'
exit "$status"
