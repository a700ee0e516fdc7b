#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# iopath-check: needs=mount-namespace
#
# Nothing outlives an interrupted run, and `iopath cleanup` removes what a
# run killed beyond rescue left behind.
#
# `iopath scratch create -- sleep` is stopped with SIGINT or SIGTERM at a
# random moment (during mkfs, mount or the command) and must tear down
# itself and exit 128+signal; with SIGKILL the guardian must do it. Then a
# run is killed together with its guardian, a trace instance of a dead pid
# is planted, and `iopath cleanup` must remove all of it while leaving a
# live run alone (the control: a cleanup that removes everything would
# otherwise pass).
#
# Catches: a signal window in which teardown is skipped, a guardian that
# does not notice its owner died, a command that keeps the mount busy after
# iopath is gone, cleanup that misses a mount, loop device, zram device,
# backing file, state file, trace instance or a killed run's temporary
# file, or that takes a live run's; and tests/lib/tap.sh's leftovers()
# counting another live run's loop device as this one's (make check
# failed "no-leftovers" beside a concurrent run); and an id claimed by a
# run killed before it wrote its state, never swept.
#
# usage: tests/cleanup.sh BUILD_DIR   (TAP on stdout; needs root)
set -u

build=$(cd "${1:?usage: cleanup.sh BUILD_DIR}" && pwd)
iop=$build/iopath
run=/run/iopath
marker=29.25	# sleep argument that names our commands

. "$(dirname "$0")/lib/tap.sh"

skip_all_unless_root "mount, loop, zram"
if [ ! -x "$iop" ]; then
	echo "1..0 # SKIP $iop not built"
	exit 0
fi

tracefs_tmp=
live=
lo_pids=()
lo_devs=()
lo_files=()
cleanup_trap() {
	[ -n "$live" ] && kill -TERM "$live" 2>/dev/null && wait "$live"
	for d in "${lo_devs[@]}"; do losetup -d "$d" 2> /dev/null; done
	for p in "${lo_pids[@]}"; do kill -TERM "$p" 2> /dev/null; done
	rm -f "${lo_files[@]}"
	# Lazily: another process may be holding it open by now.
	[ -n "$tracefs_tmp" ] && umount -l "$tracefs_tmp" 2>/dev/null && rmdir "$tracefs_tmp"
}
trap cleanup_trap EXIT

zram_list() { ls -d /sys/block/zram* 2>/dev/null | sed 's|.*/zram||' | sort -n; }

# zram indexes that some run's state file claims (those are not leaks).
zram_claimed() { cat $run/state/* 2>/dev/null | sed -n 's/^zram=//p' | sort -n; }

# What run PID left: prints one line per leftover, nothing if clean.
leftovers_of() {
	local pid=$1 zram_before=$2 z
	grep -l "^owner=$pid\$" $run/state/* 2>/dev/null | sed 's/^/state /'
	grep -E " $run/mnt/$pid-" /proc/self/mounts | awk '{print "mount " $2}'
	ls -d $run/mnt/$pid-* 2>/dev/null | sed 's/^/mountpoint /'
	ls $run/img/$pid-* 2>/dev/null | sed 's/^/file /'
	losetup -l -n -O NAME,BACK-FILE 2>/dev/null | grep -E "$run/img/$pid-" | sed 's/^/loop /'
	for z in $(comm -13 <(echo "$zram_before") <(zram_list)); do
		zram_claimed | grep -qx "$z" || echo "zram zram$z"
	done
	pgrep -f "^sleep $marker\$" >/dev/null && echo "process sleep $marker"
	ls -d /sys/kernel/tracing/instances/iopath-$pid-* 2>/dev/null | sed 's/^/trace /'
}

# Wait up to 20 s for run PID to have left nothing; print what is left.
wait_clean() {
	local pid=$1 zram_before=$2 left
	for _ in $(seq 100); do
		left=$(leftovers_of "$pid" "$zram_before")
		[ -z "$left" ] && return 0
		sleep 0.2
	done
	echo "$left" | sed 's/^/# left: /'
	return 1
}

# wait_handler PID SIGNO: until PID catches the signal. A background job of
# a non-interactive shell starts with SIGINT ignored, so a SIGINT sent
# before iopath installs its handler is lost and the run goes on.
wait_handler() {
	local pid=$1 signo=$2 mask
	for _ in $(seq 500); do
		mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
		[ -z "$mask" ] && return
		(( (16#$mask >> (signo - 1)) & 1 )) && return
		sleep 0.01
	done
}

# interrupt SIGNAL BACKING FS DELAY: stop a scratch run after DELAY seconds
# (of its own, from the moment it catches the signal).
interrupt() {
	local sig=$1 backing=$2 fs=$3 delay=$4 pid rc want zb
	zb=$(zram_list)
	"$iop" scratch create --fs "$fs" --backing "$backing" -- sleep $marker 2>/dev/null &
	pid=$!
	case $sig in INT) wait_handler "$pid" 2 ;; TERM) wait_handler "$pid" 15 ;; esac
	sleep "$delay"
	kill -"$sig" "$pid"
	wait "$pid" 2>/dev/null
	rc=$?
	case $sig in INT) want=130 ;; TERM) want=143 ;; KILL) want=137 ;; esac
	if [ "$rc" != "$want" ]; then
		not_ok "cleanup.sig$sig.$backing.$fs.after_${delay}s # exit $rc, expected $want"
		wait_clean "$pid" "$zb" >/dev/null
		return
	fi
	wait_clean "$pid" "$zb"
	check $? "cleanup.sig$sig.$backing.$fs.after_${delay}s.leaves_nothing"
}

rand_delay() { printf '0.%02d' $((RANDOM % 100)); }

# Early (during create), late (while the command runs) and random moments.
for sig in INT TERM KILL; do
	interrupt $sig zram ext4 0.05
	interrupt $sig loop xfs 0.8
	interrupt $sig loop ext4 "$(rand_delay)"
	interrupt $sig zram xfs "$(rand_delay)"
done

# ---- iopath cleanup after run and guardian were both killed ------------

zb=$(zram_list)
"$iop" scratch create --fs ext4 --backing loop -- sleep $marker 2>/dev/null &
victim=$!
"$iop" scratch create --fs xfs --backing zram -- sleep $marker 2>/dev/null &
victim2=$!
"$iop" scratch create --fs ext4 --backing zram -- sleep $marker 2>/dev/null &
live=$!
for _ in $(seq 100); do
	[ "$(grep -cE " $run/mnt/($victim|$victim2|$live)-" /proc/self/mounts)" = 3 ] && break
	sleep 0.1
done
guardians=$(cat $run/state/$victim-* $run/state/$victim2-* 2>/dev/null | sed -n 's/^guardian=//p')
kill -KILL $guardians "$victim" "$victim2" 2>/dev/null
wait "$victim" "$victim2" 2>/dev/null
sleep 0.5
left=$(leftovers_of "$victim" "$zb"; leftovers_of "$victim2" "")
echo "$left" | grep -q '^mount ' && echo "$left" | grep -q '^loop ' &&
	echo "$left" | grep -q '^state '
check $? "cleanup.killed_with_guardian.leaves_mount_loop_state # precondition"

# A trace instance of a dead pid, as a killed selftest would leave.
tracing=$(awk '$3 == "tracefs" { print $2; exit }' /proc/self/mounts)
if [ -z "$tracing" ]; then
	# Under IOP_RUN_DIR, where lib/tracefs.c does not go looking for a tracefs.
	tracefs_tmp=$run/tracefs-test-$$
	mkdir -p "$tracefs_tmp"
	mount -t tracefs nodev "$tracefs_tmp" 2>/dev/null && tracing=$tracefs_tmp
fi
dead=$(sh -c 'echo $$')
instance=
if [ -n "$tracing" ] && mkdir "$tracing/instances/iopath-$dead-0" 2>/dev/null; then
	instance=$tracing/instances/iopath-$dead-0
fi

# A private tracefs mount of a dead process (killed before it detached it).
dead_mnt=$run/tracefs-$dead
mkdir -p "$dead_mnt" && mount -t tracefs nodev "$dead_mnt" 2>/dev/null || dead_mnt=

out=$("$iop" cleanup 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
check $rc "cleanup.exit_status"
# The live run's sleep is still there by design: only the victims' matter.
left=$( (leftovers_of "$victim" "$zb"; leftovers_of "$victim2" "$zb") | grep -v '^process')
echo "$left" | grep -v '^zram' | grep -q .
check $(( ! $? )) "cleanup.removes_mount_loop_file_state"
echo "$left" | grep -q '^zram'
check $(( ! $? )) "cleanup.removes_zram"
[ -z "$left" ] || echo "$left" | sed 's/^/# left: /'
echo "$out" | grep -q "removed mount $run/mnt/$victim-0" &&
	echo "$out" | grep -q "removed loop /dev/loop" &&
	echo "$out" | grep -q "removed zram /dev/zram"
check $? "cleanup.reports_each_removal"
if [ -n "$instance" ]; then
	[ ! -d "$instance" ]
	check $? "cleanup.removes_dead_trace_instance"
else
	n=$((n + 1))
	echo "ok $n cleanup.removes_dead_trace_instance # SKIP no tracefs"
fi
if [ -n "$dead_mnt" ]; then
	! grep -q " $dead_mnt " /proc/self/mounts && [ ! -d "$dead_mnt" ]
	check $? "cleanup.removes_dead_private_tracefs_mount"
	grep -q " $dead_mnt " /proc/self/mounts && umount -l "$dead_mnt"
	rmdir "$dead_mnt" 2>/dev/null
fi
grep -qE " $run/mnt/$live-" /proc/self/mounts && kill -0 "$live" 2>/dev/null
check $? "cleanup.leaves_live_run_alone"

zb=$(zram_list)
kill -INT "$live"
wait "$live"
check $(( $? != 130 )) "cleanup.live_run.sigint_exit_130"
wait_clean "$live" "$zb"
check $? "cleanup.live_run.leaves_nothing"

# ---- iopath run killed in its selftest phase --------------------------------
# Its temporary file (the kernel's features from iopath_probe) was
# /tmp/iopath-features.*, out of cleanup's reach; now its temporary file
# (every program's output, for the coverage block) is under
# /run/iopath/tmp, tagged with the run's pid. A fake installed collection
# (the real run_kselftest.sh): a probe and one program that waits to be
# killed.
top=$(cd "$(dirname "$0")/.." && pwd)
fake=$(mktemp -d /tmp/iopath-cleanup-src.XXXXXX)
k=$fake/build/kselftest
mkdir -p "$k/iopath" "$fake/configs" "$fake/scripts"
cp "$top/scripts/selftest-runner.sh" "$fake/scripts/"
cp "$build/kselftest/run_kselftest.sh" "$k/"
cp -r "$build/kselftest/kselftest" "$k/"
echo iopath:wait_test > "$k/kselftest-list.txt"
: > "$k/iopath/requirements"
printf '#!/bin/sh\necho feature_none\n' > "$k/iopath/iopath_probe"
cp "$build/selftests/iopath_verdict" "$k/iopath/"
printf '#!/bin/sh\necho "TAP version 13"\nexec sleep %s\n' "$marker" > "$k/iopath/wait_test"
chmod +x "$k/iopath/iopath_probe" "$k/iopath/wait_test"
IOPATH_SRC=$fake IOPATH_KNOWN_FAILURES=$top/configs/known-failures \
	setsid "$iop" run --no-bench > /dev/null 2> "$fake/run.err" &
rpid=$!
for _ in $(seq 200); do
	pgrep -s "$rpid" -f "sleep $marker" > /dev/null && break
	sleep 0.1
done
kill -KILL -- -"$rpid" 2> /dev/null
wait "$rpid" 2> /dev/null
# The runner it started, in a process group of its own, lives on: end its
# program, and it ends, removing what it made.
for p in $(pgrep -s "$rpid" -f "sleep $marker"); do
	kill -TERM "$p" 2> /dev/null
done
for _ in $(seq 50); do
	pgrep -s "$rpid" > /dev/null || break
	sleep 0.1
done
killed_left=$(ls "$run/tmp/$rpid-"* 2> /dev/null)
"$iop" cleanup > /dev/null 2>&1
after_left=$(ls "$run/tmp/$rpid-"* 2> /dev/null)
if [ -n "$killed_left" ] && [ -z "$after_left" ]; then
	ok cleanup.removes_temp_files_of_a_killed_run
else
	not_ok cleanup.removes_temp_files_of_a_killed_run "after SIGKILL: ${killed_left:-nothing under $run/tmp}" \
		"after cleanup: ${after_left:-nothing}" "run said: $(head -n 2 "$fake/run.err")"
fi
rm -rf "$fake"

# ---- leftovers(): another live run's resources are not ours ----------------

# make check compares leftovers() before and after its run; a loop device
# made in between by another iopath run, alive at the end (another make
# check, a benchmark), failed it as "no-leftovers". Three runs' loop
# devices and temporary files, each named by its pid as scratch names
# them: a live process of another session (not a descendant of this
# script), a dead one, and a live child of ours.
mkdir -p "$run/img" "$run/tmp"
pidf=$(mktemp /tmp/iopath-cleanup-pid.XXXXXX)
setsid -f sh -c 'echo $$ > "$1"; exec sleep 29.26' sh "$pidf" < /dev/null > /dev/null 2>&1
for _ in $(seq 50); do
	[ -s "$pidf" ] && break
	sleep 0.1
done
theirs=$(cat "$pidf")
rm -f "$pidf"
dead=$(sh -c 'echo $$')
sleep 29.27 &
ours=$!
lo_pids=("$theirs" "$ours")
declare -A lo_dev=()
for who in theirs dead ours; do
	f=$run/img/${!who}-leftovers-test.img
	lo_files+=("$f" "$run/tmp/${!who}-leftovers-test.x")
	truncate -s 1M "$f" && : > "$run/tmp/${!who}-leftovers-test.x" &&
		lo_dev[$who]=$(losetup -f --show "$f" 2> /dev/null) && lo_devs+=("${lo_dev[$who]}")
done
if [ -z "$theirs" ] || [ ${#lo_dev[@]} != 3 ]; then
	for t in another_live_runs_are_not_ours dead_runs_are_listed our_live_runs_are_listed; do
		not_ok "leftovers.$t" "no process or loop device to test with (theirs '$theirs', ${#lo_dev[@]} loops)"
	done
else
	left=$(leftovers)
	! grep -qx -e "loop ${lo_dev[theirs]}" -e "tmp $theirs-leftovers-test.x" <<< "$left"
	check $? leftovers.another_live_runs_are_not_ours
	grep -qx "loop ${lo_dev[dead]}" <<< "$left" && grep -qx "tmp $dead-leftovers-test.x" <<< "$left"
	check $? leftovers.dead_runs_are_listed
	grep -qx "loop ${lo_dev[ours]}" <<< "$left" && grep -qx "tmp $ours-leftovers-test.x" <<< "$left"
	check $? leftovers.our_live_runs_are_listed
fi
for d in "${lo_devs[@]}"; do losetup -d "$d" 2> /dev/null; done
kill -TERM "$theirs" "$ours" 2> /dev/null
wait "$ours" 2> /dev/null
rm -f "${lo_files[@]}"
lo_devs=()
lo_pids=()
lo_files=()


# ---- a claimed id its run never filled --------------------------------------

# claim_id() creates the state file empty and state_write() fills it; a run
# killed between the two left an empty <pid>-<n> that no cleanup removed
# (make check's leftover check failed on one under load). A dead pid's
# empty claim is swept; a live one's is left alone.
mkdir -p "$run/state"
dead=$(sh -c 'echo $$')
sleep 29.28 &
ours=$!
: > "$run/state/$dead-900"
: > "$run/state/$ours-900"
"$iop" cleanup > /dev/null 2>&1
[ ! -e "$run/state/$dead-900" ]
check $? cleanup.removes_an_id_claimed_by_a_dead_run
[ -e "$run/state/$ours-900" ]
check $? cleanup.keeps_an_id_claimed_by_a_live_run
rm -f "$run/state/$dead-900" "$run/state/$ours-900"
kill -TERM "$ours" 2> /dev/null
wait "$ours" 2> /dev/null

finish_tap
