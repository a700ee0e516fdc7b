#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath repro: run the minimal reproducer of each kernel bug the selftests
# found (reproducers/NAME.sh, docs/kernel-bugs/NAME.md) on a scratch
# filesystem of the type its header names, made by `iopath scratch create`
# on a loop device it attaches (1k blocks need 512-byte sectors, which zram
# lacks), and print one line per bug:
#
#   NAME: reproduced | not reproduced | skip: REASON | error: REASON
#
# Each result is compared with configs/known-failures: a reproducer mirrors
# one selftest ("repro-test:" in its header); the bug is expected on this
# kernel exactly when an entry for `uname -r` lists that test. A result
# that differs, or an error, makes the exit status 1. "repro-needs:
# tracefs" gets a tracefs mount; "repro-needs: CMD" skips the bug where
# CMD is not installed (python3 in the busybox guest).
#
# With --kernel K the same runs in a QEMU guest booting K (scripts/vm.sh
# --repro), and the guest's lines are printed here; in the guest,
# --result-line ends the output with the result line scripts/vm.sh waits
# for. POSIX sh: the guest has busybox, not bash.
#
# Exit: 0 every result as configs/known-failures expects, 1 a difference
# or an error, 2 bad usage.
set -u

prog="iopath: repro"
top=$(cd "$(dirname "$0")/.." && pwd)
iopath=${IOPATH_BIN:-$top/build/iopath}
repro_dir=$top/reproducers
known=${IOPATH_KNOWN_FAILURES:-$top/configs/known-failures}

usage() {
	cat <<EOF
usage: iopath repro [--fs ext4|xfs] [-v] [--list] [NAME...]
       iopath repro --kernel K [--vm OPTION]... [--fs ext4|xfs] [-v] [NAME...]

Run the reproducer of each kernel bug (default: all of reproducers/) on a
scratch filesystem of its type and print one line per bug: "NAME:
reproduced", "not reproduced", "skip: REASON" or "error: REASON".

  --fs TYPE    run on TYPE with default mkfs options instead of the bug's own
               filesystem (a control: ext4-dio-extend-mmap-tail on xfs);
               no comparison with configs/known-failures then
  -v           show each reproducer's output (expected and actual) on stderr
  --list       print the bug names (those NAMEs given, checked) and exit
  --kernel K   run in a QEMU guest booting K (a bzImage, a Debian kernel
               .deb or package name, as for iopath vm)
  --vm WORD    pass WORD to iopath vm (repeatable, one word each:
               --vm --timeout=900, --vm --mem --vm 4096)

Exit: 0 every result matches configs/known-failures for the kernel, 1 a
result differs or a reproducer could not run, 2 bad usage.
EOF
}

usage_error() {
	echo "$prog: $*" >&2
	exit 2
}

fs_override=""
verbose=0
list=0
kernel=""
result_line=0
vm_opts=""	# newline-separated, for the --kernel path
while [ $# -gt 0 ]; do
	case $1 in
	--fs)
		[ $# -ge 2 ] || usage_error "--fs needs a value"
		fs_override=$2
		shift 2 ;;
	--kernel)
		[ $# -ge 2 ] || usage_error "--kernel needs a value"
		kernel=$2
		shift 2 ;;
	--vm)
		[ $# -ge 2 ] || usage_error "--vm needs a value"
		vm_opts="$vm_opts
$2"
		shift 2 ;;
	--result-line) result_line=1; shift ;;
	-v|--verbose) verbose=1; shift ;;
	--list) list=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) usage_error "unknown option '$1' (see --help)" ;;
	*) break ;;
	esac
done
case $fs_override in
""|ext4|xfs) ;;
*) usage_error "--fs '$fs_override': expected ext4 or xfs" ;;
esac

all=$(for f in "$repro_dir"/*.sh; do [ -f "$f" ] && basename "$f" .sh; done)
[ -n "$all" ] || usage_error "no reproducers in $repro_dir"
# Each NAME is one of the list, compared whole: a name holding a newline
# was two patterns to grep -x, so that '../../tmp/x/y' ran as root. The
# charset is checked first, so that the error stays one line.
for n in "$@"; do
	case $n in
	"" | *[!a-z0-9-]*) usage_error "a bug name is made of a-z, 0-9 and '-' (iopath repro --list)" ;;
	esac
	known_name=0
	for a in $all; do
		[ "$a" = "$n" ] && known_name=1
	done
	[ "$known_name" = 1 ] || usage_error "no bug named '$n' (iopath repro --list)"
done
if [ "$list" = 1 ]; then
	[ $# -gt 0 ] && printf '%s\n' "$@" || echo "$all"
	exit 0
fi
# shellcheck disable=SC2086 # one name a line, no glob characters
[ $# -gt 0 ] || set -- $all

if [ -n "$kernel" ]; then
	# iopath vm's options, --, then the guest's runner's (names last).
	[ "$verbose" = 1 ] && set -- -v "$@"
	[ -n "$fs_override" ] && set -- --fs "$fs_override" "$@"
	set -- -- "$@"
	old_ifs=$IFS
	IFS='
'
	# shellcheck disable=SC2086 # one option a line, split on newlines
	set -- --kernel "$kernel" --repro $vm_opts "$@"
	IFS=$old_ifs
	# The guest's lines, without the runner's comment lines; vm.sh's
	# exit status through a file, as a pipeline has the last one's.
	st=$(mktemp "${TMPDIR:-/tmp}/iopath-repro.XXXXXX") ||
		{ echo "$prog: cannot create a temporary file" >&2; exit 1; }
	{ "$top/scripts/vm.sh" "$@"; echo "$?" > "$st"; } | grep -v '^#'
	rc=$(cat "$st")
	rm -f "$st"
	exit "${rc:-1}"
fi

# Each reproducer runs on a scratch filesystem iopath makes, with tracefs
# mounted: without root each failed apart, after a raw mkdir error.
[ "$(id -u)" = 0 ] ||
	usage_error "must run as root (each reproducer runs on a scratch filesystem it makes; --kernel runs them in a VM)"
[ -x "$iopath" ] || { echo "$prog: $iopath not found (run make)" >&2; exit 1; }
# A malformed list is refused before any reproducer runs.
kf_err=$("$iopath" verdict --list "$known" 2>&1 >/dev/null) ||
	usage_error "${kf_err:-$known: cannot read the known-failures list}"

# header FILE KEY: the value of "# repro-KEY: VALUE" in FILE.
header() {
	sed -n "s/^# repro-$2: *//p" "$1" | head -n 1
}

# fs_supported TYPE: the running kernel mounts TYPE (after a module load).
fs_supported() {
	grep -qw "$1" /proc/filesystems && return 0
	modprobe "$1" >/dev/null 2>&1
	grep -qw "$1" /proc/filesystems
}

# expected TEST: "reproduced" when configs/known-failures lists TEST as
# failing on this kernel, else "not reproduced". The entries come from
# the list's one reader, iopath verdict --list.
expected() {
	if [ -n "$("$iopath" verdict --list --kernel "$(uname -r)" --test "$1" "$known")" ]; then
		echo reproduced
	else
		echo "not reproduced"
	fi
}

tracefs=""
# shellcheck disable=SC2317 # called by the traps
drop_tracefs() {
	[ -n "$tracefs" ] && umount "$tracefs" 2>/dev/null && rmdir "$tracefs"
}
trap 'drop_tracefs' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start=$(cut -d' ' -f1 /proc/uptime)
n_run=0 n_repro=0 n_skip=0 n_bad=0 n_known=0
for name in "$@"; do
	file=$repro_dir/$name.sh
	fs=$(header "$file" fs)
	mkfs=$(header "$file" mkfs)
	test=$(header "$file" test)
	needs=$(header "$file" needs)
	if [ -n "$fs_override" ]; then
		fs=$fs_override
		mkfs=""
	fi
	why=""
	if ! command -v xfs_io >/dev/null 2>&1; then
		why="xfs_io not installed (xfsprogs)"
	elif ! command -v "mkfs.$fs" >/dev/null 2>&1; then
		why="mkfs.$fs not installed"
	elif ! fs_supported "$fs"; then
		why="the kernel has no $fs (not in /proc/filesystems)"
	elif [ "$needs" != tracefs ] && [ -n "$needs" ] && ! command -v "$needs" >/dev/null 2>&1; then
		# A command the reproducer runs besides xfs_io (python3 where
		# xfs_io cannot place its buffer): the VM guest has none.
		why="$needs not installed"
	fi
	if [ -n "$why" ]; then
		echo "$name: skip: $why"
		n_skip=$((n_skip + 1))
		continue
	fi
	# A reproducer that reads tracepoints gets a tracefs mount of its own
	# under /run/iopath when the machine has none mounted (tracefs is one
	# instance however often it is mounted). Not a private mount
	# namespace: that would hold a copy of every other run's scratch
	# mounts while it lives, and their unmount would not take effect.
	tracefs=""
	if [ "$needs" = tracefs ] && [ ! -d /sys/kernel/tracing/instances ] &&
	   [ ! -d /sys/kernel/debug/tracing/instances ]; then
		tracefs=/run/iopath/tracefs-repro-$$
		if ! mkdir -p "$tracefs" || ! mount -t tracefs tracefs "$tracefs"; then
			rmdir "$tracefs" 2>/dev/null
			echo "$name: error: cannot mount tracefs at $tracefs"
			n_bad=$((n_bad + 1))
			continue
		fi
	fi
	out=$(TRACEFS=$tracefs "$iopath" scratch create --fs "$fs" --backing loop \
		${mkfs:+--mkfs-opts "$mkfs"} -- sh "$file" . 2>&1)
	rc=$?
	drop_tracefs
	tracefs=""
	last=$(printf '%s\n' "$out" | tail -n 1)
	[ "$verbose" = 1 ] && printf '%s\n' "$out" | sed "s/^/  $name: /" >&2
	n_run=$((n_run + 1))
	if [ "$rc" = 1 ] && [ "$last" = reproduced ]; then
		res=reproduced
		n_repro=$((n_repro + 1))
	elif [ "$rc" = 0 ] && [ "$last" = "not reproduced" ]; then
		res="not reproduced"
	else
		echo "$name: error: $last (exit $rc)"
		n_bad=$((n_bad + 1))
		continue
	fi
	echo "$name: $res"
	[ -n "$fs_override" ] && continue
	want=$(expected "$test")
	if [ "$want" = reproduced ] && [ "$res" = reproduced ]; then
		n_known=$((n_known + 1))
		# For iopath vm's list of the known bugs a guest showed.
		[ "$result_line" = 1 ] &&
			echo "# iopath-vm: known failure on $(uname -r): $name reproduced ($test)"
	fi
	if [ "$res" != "$want" ]; then
		if [ "$res" = reproduced ]; then
			echo "$prog: $name reproduced on $(uname -r), for which configs/known-failures lists no failure of $test" >&2
		else
			echo "$prog: $name did not reproduce on $(uname -r), for which configs/known-failures lists $test as failing" >&2
		fi
		n_bad=$((n_bad + 1))
	fi
done
end=$(cut -d' ' -f1 /proc/uptime)

status=pass
[ "$n_bad" = 0 ] || status=fail
echo "$prog: $n_run run, $n_repro reproduced, $n_skip skipped, $n_bad differing from configs/known-failures or failed ($(uname -r))" >&2
if [ "$result_line" = 1 ]; then
	# The result line iopath vm waits for (scripts/vm.sh).
	"$iopath" verdict --result-line --result IOPATH-VM-RESULT --start "$start" --end "$end" \
		status=$status passed=$((n_run - n_bad)) failed=$n_bad known=$n_known skipped=$n_skip \
		programs=$n_run programs_failed=$n_bad required_missing=0 stale_known=0
fi
[ "$status" = pass ]
