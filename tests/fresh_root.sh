#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# iopath-check: needs=mount-namespace
#
# scripts/fresh-root.sh without debootstrap: a fake one (first on PATH)
# makes a root of this machine's bash, sleep and unshare, and the
# repository cloned into it is a small one of this test whose .ci/run
# leaves two processes in the root, one in a mount namespace of its own,
# and waits. What the script must hold:
#   - killed with SIGKILL, it leaves its root, its rbind mounts of /dev
#     and /sys, /proc and those processes: iopath cleanup (the script's
#     --sweep, which every run's start does too) removes them all, and the
#     host's /dev and /proc are intact; --sweep leaves a live run alone;
#   - SIGTERM stops the step at work and cleans up at once (it waited for
#     the step, minutes of debootstrap or make check);
#   - a work directory whose root is a symbolic link is removed without
#     touching what the link points to;
#   - --cache given as a link reaches debootstrap resolved, once.
# Everything runs in a mount namespace of this test's own (slave): a mount
# the script leaves goes with it. The test's own cleanup unmounts (in that
# namespace) and removes a directory only when nothing is mounted below it.
#
# usage: tests/fresh_root.sh BUILD_DIR   (TAP on stdout)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: fresh_root.sh BUILD_DIR}" && pwd) || exit 1
. "$top/tests/lib/tap.sh"
skip_all_unless_root "chroot and mounts"
if [ -z "${IOPATH_FRESH_TEST_NS:-}" ]; then
	IOPATH_FRESH_TEST_NS=1 exec unshare -m --propagation slave -- "$0" "$@"
fi
for t in setsid findmnt git chroot; do
	if ! command -v "$t" > /dev/null; then
		echo "1..0 # SKIP $t not installed"
		exit 0
	fi
done

tmp=$(mktemp -d /tmp/iopath-fresh-test.XXXXXX) || { echo "Bail out! no temporary directory"; exit 1; }
script=$top/scripts/fresh-root.sh
pids=()
# rm_safely DIR: DIR removed only when nothing is mounted at or below it.
rm_safely() {
	local m
	for m in $(findmnt -rn -o TARGET | grep -F -- "$1" | tac); do
		umount -R -l -- "$m" 2> /dev/null
	done
	if findmnt -rn -o TARGET | grep -qF -- "$1"; then
		echo "# still mounted below $1: left in place"
		return 1
	fi
	rm -rf --one-file-system -- "$1"
}
cleanup() {
	local p w
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2> /dev/null
	done
	for w in $(comm -13 <(echo "$before") <(works)); do
		rm_safely "$w"
	done
	rm_safely "$tmp"
}
trap cleanup EXIT

# ---- the fake machine ------------------------------------------------------------
mkdir -p "$tmp/bin" "$tmp/deps/usr/sbin" "$tmp/deps/usr/bin" "$tmp/cache" "$tmp/victim"
touch "$tmp/deps/usr/sbin/debootstrap" "$tmp/deps/usr/bin/git"
echo victim > "$tmp/victim/file"
ln -s "$tmp/cache" "$tmp/cache-link"
# debootstrap ... SUITE ROOT MIRROR: a root of this machine's programs.
cat > "$tmp/bin/debootstrap" << 'EOF'
#!/bin/bash
echo "$*" >> "$FAKE_LOG"
root=${*: -2:1}
mkdir -p "$root"/{dev,sys,proc,root,tmp,etc/apt/sources.list.d,usr/bin}
for b in bash env readlink sleep unshare touch cat; do
	f=$(command -v "$b")
	cp "$f" "$root/usr/bin/"
	for l in $(ldd "$f" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$l")" && cp -n "$l" "$root$l"
	done
done
EOF
chmod +x "$tmp/bin/debootstrap"
# The repository: .ci/run leaves a process in the root and one in a mount
# namespace of its own, says so, and waits; at the tag quick it is done.
repo=$tmp/repo
mkdir -p "$repo/.ci"
printf '#!/bin/bash\nexit 0\n' > "$repo/.ci/run"
git -C "$repo" init -q && git -C "$repo" add .ci &&
	git -C "$repo" -c user.name=t -c user.email=t@t.invalid commit -q -m quick && git -C "$repo" tag quick
cat > "$repo/.ci/run" << 'EOF'
#!/bin/bash
sleep 1000 &
echo $! > /root/pids
unshare -m --propagation private sleep 1000 &
echo $! >> /root/pids
touch /root/ready
sleep 1000
EOF
git -C "$repo" -c user.name=t -c user.email=t@t.invalid commit -q -a -m wait

works() { find /var/tmp -maxdepth 1 -name 'iopath-fresh.*' -print 2> /dev/null | sort; }
before=$(works)
export FAKE_LOG=$tmp/debootstrap.args
run_env=(env PATH="$tmp/bin:$PATH" IOPATH_DEPS_ROOT="$tmp/deps" FAKE_LOG="$FAKE_LOG")

# start REV: the script in the background ($run), its work directory in
# $work once its step is waiting (or "" after 60 s).
start() {
	local w _
	"${run_env[@]}" setsid "$script" --repo "$repo" --rev "$1" --mirror http://deb.invalid/debian --ci-only \
		> "$tmp/run.out" 2>&1 &
	run=$!
	work=""
	for _ in $(seq 600); do
		w=$(comm -13 <(echo "$before") <(works) | head -n 1)
		if [ -n "$w" ] && [ -e "$w/root/root/ready" ]; then
			work=$w
			mapfile -t step_pids < "$w/root/root/pids"
			pids+=("${step_pids[@]}")
			return
		fi
		sleep 0.1
	done
}
# gone WORK: WORK removed, nothing mounted below it, the step's processes dead.
gone() {
	local p s
	[ ! -e "$1" ] || { echo "# $1 still there"; return 1; }
	! findmnt -rn -o TARGET | grep -qF -- "$1" || { echo "# still mounted below $1"; return 1; }
	for p in "${step_pids[@]}"; do
		# killed, maybe not reaped yet by its new parent: a zombie is dead
		if { read -r s < "/proc/$p/stat"; } 2> /dev/null && [[ ${s##*) } != [ZX]* ]]; then
			echo "# process $p of the step alive"
			return 1
		fi
	done
}
host_intact() { [ -c /dev/null ] && [ -r /proc/self/stat ] && [ -d /sys/kernel ]; }

# ---- --cache resolved once --------------------------------------------------------
"${run_env[@]}" "$script" --repo "$repo" --rev quick --mirror http://deb.invalid/debian --ci-only \
	--cache "$tmp/cache-link" > "$tmp/quick.out" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q -- "--cache-dir=$tmp/cache " "$FAKE_LOG" &&
   [ -z "$(comm -13 <(echo "$before") <(works))" ]; then
	ok fresh_root.cache_resolved_once_and_nothing_left
else
	not_ok fresh_root.cache_resolved_once_and_nothing_left "exit $rc" "$(cat "$FAKE_LOG")" \
		"$(tail -n 3 "$tmp/quick.out")"
fi

# ---- SIGKILL, then a sweep ------------------------------------------------------------
start HEAD
if [ -z "$work" ]; then
	not_ok fresh_root.killed_run_swept "the step never started" "$(tail -n 5 "$tmp/run.out")"
else
	kill -KILL "$run"
	wait "$run" 2> /dev/null
	# What SIGKILL leaves: the mounts and the processes (the bug's state).
	left=$(findmnt -rn -o TARGET | grep -cF -- "$work")
	# iopath cleanup runs the script's sweep when such a directory is there.
	"$build/iopath" cleanup > "$tmp/sweep.out" 2>&1
	rc=$?
	if [ "$left" -ge 4 ] && [ "$rc" = 0 ] && gone "$work" && host_intact; then
		ok "fresh_root.killed_run_swept ($left mounts)"
	else
		not_ok fresh_root.killed_run_swept "exit $rc, $left mounts before" "$(head -n 3 "$tmp/sweep.out")"
	fi
fi

# ---- a live run is left alone; SIGTERM stops it at once ------------------------------
start HEAD
if [ -z "$work" ]; then
	not_ok fresh_root.live_run_left_alone "the step never started" "$(tail -n 5 "$tmp/run.out")"
	not_ok fresh_root.sigterm_stops_the_step_at_once "the step never started"
else
	"$script" --sweep > "$tmp/sweep.out" 2>&1
	rc=$?
	[ "$rc" = 0 ] && [ -d "$work/root/root" ] && findmnt -rn -o TARGET | grep -qF -- "$work/root/dev"
	check $? fresh_root.live_run_left_alone
	t0=$SECONDS
	kill -TERM "$run"
	for _ in $(seq 150); do
		[ -e "/proc/$run" ] || break
		sleep 0.1
	done
	took=$((SECONDS - t0))
	if [ -e "/proc/$run" ]; then
		kill -KILL "$run"
		not_ok fresh_root.sigterm_stops_the_step_at_once "still running 15 s after SIGTERM"
	else
		wait "$run"
		rc=$?
		if [ "$rc" = 143 ] && gone "$work" && host_intact; then
			ok "fresh_root.sigterm_stops_the_step_at_once (${took} s)"
		else
			not_ok fresh_root.sigterm_stops_the_step_at_once "exit $rc" "$(tail -n 3 "$tmp/run.out")"
		fi
	fi
fi

# ---- a dead run's root that is a symbolic link ------------------------------------------
planted=$(mktemp -d /var/tmp/iopath-fresh.XXXXXX)
echo "999999999 1" > "$planted/owner"
ln -s "$tmp/victim" "$planted/root"
"$script" --sweep > "$tmp/sweep.out" 2>&1
rc=$?
if [ "$rc" = 0 ] && [ ! -e "$planted" ] && [ ! -L "$planted" ] && [ "$(cat "$tmp/victim/file")" = victim ]; then
	ok fresh_root.sweep_follows_no_link
else
	not_ok fresh_root.sweep_follows_no_link "exit $rc" "$(head -n 3 "$tmp/sweep.out")"
	[ -L "$planted/root" ] && rm -f "$planted/root"
	rm -rf --one-file-system "$planted"
fi

finish_tap
