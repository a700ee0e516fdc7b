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
# removed on every exit path. It prints what the steps print, then one
# machine line per step:
#   fresh-root: step=ci rc=N seconds=N awk=PATH last=LINE
#
# usage: fresh-root.sh [--repo DIR] [--rev REV] [--awk mawk|gawk]
#                      [--cache DIR] [--mirror URL] [--plain-chroot]
#                      [--ci-only]
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
EOF
}

repo=$top
rev=HEAD
awk_name=mawk
cache=""
mirror=""
plain=0
ci_only=0
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
	-h|--help) usage; exit 0 ;;
	*) usage_error "unknown argument '$(printf %q "$1")'" ;;
	esac
done
case $awk_name in mawk|gawk) ;; *) usage_error "--awk '$(printf %q "$awk_name")': expected mawk or gawk" ;; esac
[ "$(id -u)" = 0 ] || usage_error "needs root (debootstrap, chroot, mounts)"
git -C "$repo" rev-parse --verify -q "$rev^{commit}" > /dev/null ||
	usage_error "--repo $(printf %q "$repo") --rev $(printf %q "$rev"): no such commit"
if [ -n "$cache" ]; then
	[ -d "$cache" ] && [ -O "$cache" ] || usage_error "--cache $(printf %q "$cache"): not a directory of yours"
	cache=$(cd "$cache" && pwd)
fi
# The host's own archive, so that the root gets what this machine would.
[ -n "$mirror" ] || mirror=$(host_mirror debian)
[ -n "$mirror" ] || usage_error "no Debian archive in the host's apt sources: give --mirror"
"$top/scripts/deps.sh" fresh || exit 1

work=$(mktemp -d /var/tmp/iopath-fresh.XXXXXX) || fail "mktemp: cannot create a directory in /var/tmp"
root=$work/root

# The processes still running in the root (a test's guardian, a daemon
# apt started), then every mount below the work directory, deepest first;
# the directory is removed only once nothing is mounted below it.
cleanup() {
	local p m left
	trap '' INT TERM
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2> /dev/null)" = "$root" ] && kill -KILL "${p#/proc/}" 2> /dev/null
	done
	if [ -x "$root/root/iopath/build/iopath" ]; then
		chroot "$root" /root/iopath/build/iopath cleanup --all > /dev/null 2>&1
	fi
	for m in $(findmnt -rn -o TARGET | grep -F "$work/" | sort -r); do
		umount -l "$m" 2> /dev/null
	done
	left=$(findmnt -rn -o TARGET | grep -F "$work/")
	if [ -n "$left" ]; then
		echo "$prog: still mounted, $work left in place: $(printf %q "$left")" >&2
		return 1
	fi
	rm -rf --one-file-system "$work"
}
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap 'cleanup' EXIT

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
"${dbs[@]}" bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1 ||
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

# in_root CMD: CMD by bash in the root, as CI runs .ci/run: root, no
# terminal, no standard input, a clean environment.
in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 CI=true \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		bash -c "$1" < /dev/null
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
	in_root "cd /root/iopath && $2" 2>&1 | tee "$work/$name.log"
	rc=${PIPESTATUS[0]}
	last=$(grep -v '^[[:space:]]*$' "$work/$name.log" | tail -n 1)
	printf '%s: step=%s rc=%d seconds=%d awk=%s last=%s\n' "$prog" "$name" "$rc" \
		$((SECONDS - t0)) "$awk_path" "$(printf %q "$last")"
	[ "$rc" = 0 ] || status=1
}
step ci 'bash .ci/run'
[ "$ci_only" = 1 ] || step run 'make run'
exit "$status"
