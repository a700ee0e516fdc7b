#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath vm (scripts/vm.sh): bad input is refused with one line and exit 2
# before anything is created; a guest kernel that panics, a guest that hangs
# and a run that is interrupted all end with a clear failure, no QEMU process
# and no temporary directory left. The full selftest run in a VM is
# `make vm-check KERNEL=...`; this stays cheap: the guests here boot a
# one-line /init, under a kernel from BUILD/vm-cache (fetched once if
# missing, else the tests that need one skip).
#
# usage: tests/vm.sh BUILD_DIR   (TAP on stdout)
set -u

build=${1:?usage: tests/vm.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
vm=$top/scripts/vm.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/iopath-vm-test.XXXXXX") || exit 1
# vm.sh makes its temporary directory under TMPDIR: a private one shows
# exactly what a run leaves behind.
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
bgpid=""
cleanup() {
	[ -n "$bgpid" ] && kill "$bgpid" 2>/dev/null
	local p
	for p in $(pgrep -f "$TMPDIR/"); do
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT

. "$top/tests/lib/tap.sh"

# What a run may leave: QEMU (its command line names the initramfs under
# TMPDIR) or anything in TMPDIR.
vm_leftovers() {
	pgrep -af "$TMPDIR/" | grep -v pgrep
	ls -A "$TMPDIR"
}

# expect_usage NAME ARGS...: exit 2, exactly one line on stderr, no output,
# nothing created in the build directory given.
expect_usage() {
	local name=$1 out err rc b=$work/usage-build
	shift
	rm -rf "$b"
	out=$("$vm" --build "$b" "$@" 2>"$work/err")
	rc=$?
	err=$(cat "$work/err")
	if [ "$rc" = 2 ] && [ -z "$out" ] && [ "$(wc -l < "$work/err")" = 1 ] &&
	   [[ $err == "iopath: vm: "* ]] && [ ! -e "$b" ] && [ -z "$(vm_leftovers)" ]; then
		ok "vm.bad_input.$name"
	else
		not_ok "vm.bad_input.$name" "exit $rc, stderr: $err" "stdout: $out" \
			"build dir created: $([ -e "$b" ] && echo yes || echo no)" "leftovers: $(vm_leftovers)"
	fi
}

echo "TAP version 13"

echo foo > "$work/not-a-kernel"
expect_usage missing_file --kernel /nonexistent/bzImage
expect_usage not_a_package_name --kernel 'linux image!'
expect_usage not_a_bzimage --kernel "$work/not-a-kernel"
expect_usage bad_timeout --kernel "$work/not-a-kernel" --timeout 10s
expect_usage no_kernel --timeout 5
expect_usage missing_known_failures --kernel linux-image-amd64 --known-failures "$work/none"
printf '^7\\.  only-two-fields\n' > "$work/bad-known"
expect_usage malformed_known_failures --kernel linux-image-amd64 --known-failures "$work/bad-known"
# an ERE that does not compile was accepted, and awk failed when a test failed
printf '^7\\..*$  ^fix(*.var.t$  diag  some-bug  reason\n' > "$work/bad-ere"
expect_usage known_failures_invalid_ere --kernel linux-image-amd64 --known-failures "$work/bad-ere"

# A kernel to boot: any one already unpacked in the cache, else Debian 12's
# 6.1 (the smallest of the supported packages) fetched into it.
# Debian 12's (boot/vmlinuz-*) boot faster under TCG than 7.x's.
find_kernel() {
	{
		ls "$build"/vm-cache/kernels/*/root/boot/vmlinuz-*
		ls "$build"/vm-cache/kernels/*/root/usr/lib/modules/*/vmlinuz
	} 2>/dev/null | head -n 1
}
busybox=$(command -v busybox || echo /bin/busybox)
kernel=""
if ! command -v qemu-system-x86_64 >/dev/null; then
	kernel_why="qemu-system-x86_64 not installed (scripts/deps.sh vm)"
elif [ ! -x "$busybox" ]; then
	kernel_why="busybox not installed (scripts/deps.sh vm)"
else
	kernel=$(find_kernel)
	if [ -z "$kernel" ]; then
		"$vm" --build "$build" --kernel linux-image-amd64/bookworm --fetch-only \
			> /dev/null 2> "$work/fetch.err"
		kernel=$(find_kernel)
	fi
	kernel_why="no kernel in $build/vm-cache, and fetching one failed: $(grep -m1 'iopath: vm' "$work/fetch.err" 2>/dev/null)"
fi

# mkinitrd DIR INIT_BODY: a gzip'ed cpio with busybox and /init.
mkinitrd() {
	local d=$work/$1
	mkdir -p "$d/bin" "$d/dev"
	cp "$busybox" "$d/bin/busybox"
	printf '#!/bin/busybox sh\n/bin/busybox --install -s /bin\n%s\n' "$2" > "$d/init"
	chmod 0755 "$d/init"
	(cd "$d" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$work/$1.cpio.gz"
}

# expect_guest_failure NAME LIMIT PATTERN VM_ARGS...: vm.sh exits 1 with
# PATTERN on stderr, within LIMIT seconds, leaving nothing.
expect_guest_failure() {
	local name=$1 limit=$2 pattern=$3 rc took start=$SECONDS
	shift 3
	if [ -z "$kernel" ]; then
		skip "$name" "${kernel_why:-no kernel}"
		return
	fi
	"$vm" --build "$build" --kernel "$kernel" "$@" > "$work/out" 2> "$work/err"
	rc=$?
	took=$((SECONDS - start))
	if [ "$rc" = 1 ] && grep -q "$pattern" "$work/err" && [ "$took" -lt "$limit" ] &&
	   [ -z "$(vm_leftovers)" ]; then
		ok "$name"
		echo "# detected after ${took} s"
	else
		not_ok "$name" "exit $rc after ${took} s" "$(head -n 3 "$work/err")" \
			"leftovers: $(vm_leftovers)"
	fi
}

# stop_line NAME REASON: the run of expect_guest_failure before said why
# the guest stopped in one machine line, the last "# IOPATH-STOP:" of its
# stdout, for iopath mutate and ab to read instead of the prose.
stop_line() {
	local got
	if [ -z "$kernel" ]; then
		skip "$1" "${kernel_why:-no kernel}"
		return
	fi
	got=$(grep '^# IOPATH-STOP: ' "$work/out" | tail -n 1)
	case $got in
	"# IOPATH-STOP: reason=$2 seconds="[0-9]*" what="*) ok "$1" ;;
	*) not_ok "$1" "stop line: '$got'" ;;
	esac
}

# A panic: /init exits at once, the kernel panics ("Attempted to kill
# init"), panic=-1 reboots, -no-reboot ends QEMU.
[ -n "$kernel" ] && mkinitrd panic 'exit 0'
expect_guest_failure vm.panicking_kernel_fails_fast_and_leaves_nothing 120 \
	'guest kernel panicked.*Attempted to kill init' --initrd "$work/panic.cpio.gz" --timeout 120 \
	--log "$work/console.log"
stop_line vm.panic_said_in_one_stop_line panic

# --log: the console goes to a new file by write_file (rename into place);
# a link at the name was followed ('cp' emptied what it pointed at) and is
# refused now, before anything boots.
if [ -n "$kernel" ]; then
	echo victim > "$work/victim"
	ln -s "$work/victim" "$work/log-link"
	"$vm" --build "$build" --kernel "$kernel" --initrd "$work/panic.cpio.gz" --timeout 120 \
		--log "$work/log-link" > /dev/null 2> "$work/err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l < "$work/err")" = 1 ] && grep -q 'log-link: is a symbolic link' "$work/err" &&
	   [ "$(cat "$work/victim")" = victim ] && [ -f "$work/console.log" ] && [ ! -L "$work/console.log" ] &&
	   grep -q 'Attempted to kill init' "$work/console.log"; then
		ok "vm.log_written_by_rename_and_a_link_refused"
	else
		not_ok "vm.log_written_by_rename_and_a_link_refused" "exit $rc: $(head -n 2 "$work/err")" \
			"victim: $(head -c 80 "$work/victim")" "console.log: $(ls -l "$work/console.log" 2>&1)"
	fi
else
	skip "vm.log_written_by_rename_and_a_link_refused" "${kernel_why:-no kernel}"
fi

# A hang after boot: /init says it started, then sleeps; the idle limit
# must end the run.
[ -n "$kernel" ] && mkinitrd hang 'mount -t devtmpfs d /dev; echo "# iopath-vm: kernel (hang test)" > /dev/ttyS1; sleep 100000'
expect_guest_failure vm.hung_guest_fails_at_the_idle_limit_and_leaves_nothing 150 \
	'no output from the guest for 2 s' --initrd "$work/hang.cpio.gz" --idle-timeout 2 \
	--boot-timeout 120 --timeout 150
stop_line vm.hang_said_in_one_stop_line hang

# A kernel that reports a bug and stalls keeps printing to the console (an
# RCU stall is reported again every minute): after the report only the
# tests' output counts, so the idle limit ends the run. Without a report
# the same console chatter is life, and the overall limit ends it.
chatter='mount -t devtmpfs d /dev; echo "# iopath-vm: kernel (stall test)" > /dev/ttyS1'
if [ -n "$kernel" ]; then
	mkinitrd stall "$chatter"'; echo "<4>INFO: rcu_sched self-detected stall on CPU (stall test)" > /dev/kmsg; while :; do echo "<4>stall test: still here" > /dev/kmsg; sleep 1; done'
	mkinitrd chatter "$chatter"'; while :; do echo "<4>chatter test: still here" > /dev/kmsg; sleep 1; done'
fi
# The idle limit is ten times the chatter's period, for a loaded host.
expect_guest_failure vm.stalled_kernel_fails_at_the_idle_limit_though_its_console_talks 100 \
	'no test output for 10 s after the kernel reported a bug' --initrd "$work/stall.cpio.gz" \
	--idle-timeout 10 --boot-timeout 120 --timeout 150
stop_line vm.stall_said_in_one_stop_line hang
expect_guest_failure vm.console_chatter_without_a_report_counts_as_life 150 \
	'no result within the 60 s limit' --initrd "$work/chatter.cpio.gz" \
	--idle-timeout 10 --boot-timeout 60 --timeout 60

# SIGTERM while the guest runs: QEMU killed, temporary directory removed.
if [ -n "$kernel" ]; then
	"$vm" --build "$build" --kernel "$kernel" --initrd "$work/hang.cpio.gz" --timeout 150 \
		> "$work/out" 2> "$work/err" &
	bgpid=$!
	for _ in $(seq 1 100); do
		pgrep -f "$TMPDIR/.*initrd" >/dev/null && break
		sleep 0.3
	done
	sleep 1
	running=$(pgrep -f "$TMPDIR/.*initrd" | wc -l)
	kill -TERM "$bgpid"
	wait "$bgpid"
	rc=$?
	bgpid=""
	if [ "$running" -ge 1 ] && [ "$rc" = 143 ] && grep -q 'terminated' "$work/err" &&
	   [ -z "$(vm_leftovers)" ]; then
		ok "vm.sigterm_kills_qemu_and_leaves_nothing"
	else
		not_ok "vm.sigterm_kills_qemu_and_leaves_nothing" "qemu seen: $running, exit $rc" \
			"$(head -n 3 "$work/err")" "leftovers: $(vm_leftovers)"
	fi
else
	skip "vm.sigterm_kills_qemu_and_leaves_nothing" "${kernel_why:-no kernel}"
fi

# --bench --profile FILE: the file is on the host; the guest reads its copy.
# A QEMU that only keeps the initramfs it was given shows what the guest
# would have had (iopath ab --profile PATH failed in the guest without it).
profile_in_guest() {
	local form=$1 d=$work/fakeqemu g=$work/guest-$1 want=/iopath/bench/profile.conf
	mkdir -p "$d" "$work/p" "$g"
	printf '#!/bin/bash\nwhile [ $# -gt 0 ]; do [ "$1" = -initrd ] && cp "$2" %q; shift; done\nexit 1\n' \
		"$work/seen-$form.gz" > "$d/qemu-system-x86_64"
	chmod 0755 "$d/qemu-system-x86_64"
	cp "$top/configs/bench/ab-read-readv.conf" "$work/p/mine.conf"
	# The boot header's magic where the boot protocol puts it (0x202).
	{ head -c 514 /dev/zero; printf HdrS; head -c 510 /dev/zero; } > "$work/fake-bzImage"
	if [ "$form" = equals ]; then
		set -- "--profile=$work/p/mine.conf"
		want=--profile=$want
	else
		set -- --profile "$work/p/mine.conf"
	fi
	PATH=$d:$PATH "$vm" --build "$build" --kernel "$work/fake-bzImage" --icount --bench \
		--records "$work/rec-$form.jsonl" -- "$@" > /dev/null 2> "$work/err-$form"
	[ -s "$work/seen-$form.gz" ] || return 1
	(cd "$g" && gzip -dc "$work/seen-$form.gz" | cpio -i -d --quiet etc/iopath-vm/args iopath/bench/profile.conf) ||
		return 1
	cmp -s "$g/iopath/bench/profile.conf" "$work/p/mine.conf" &&
		grep -qx -- "$want" "$g/etc/iopath-vm/args" &&
		! grep -q "$work" "$g/etc/iopath-vm/args"
}
if [ -x "$build/iopath" ] && [ -x "$busybox" ] && command -v cpio > /dev/null; then
	for form in separate equals; do
		if profile_in_guest "$form"; then
			ok "vm.bench.profile_path_copied_into_the_guest.$form"
		else
			not_ok "vm.bench.profile_path_copied_into_the_guest.$form" \
				"$(head -n 2 "$work/err-$form")" "args: $(cat "$work/guest-$form/etc/iopath-vm/args" 2>/dev/null)"
		fi
	done
else
	skip "vm.bench.profile_path_copied_into_the_guest" "busybox, cpio or $build/iopath missing (scripts/deps.sh vm)"
fi

# The subcommand hands over to the script (same refusal, same exit code).
if [ -x "$build/iopath" ]; then
	"$build/iopath" vm --kernel /nonexistent/bzImage > /dev/null 2> "$work/err"
	rc=$?
	if [ "$rc" = 2 ] && grep -q 'no such file' "$work/err"; then
		ok "vm.cli_subcommand_runs_the_script"
	else
		not_ok "vm.cli_subcommand_runs_the_script" "exit $rc: $(cat "$work/err")"
	fi
else
	skip "vm.cli_subcommand_runs_the_script" "$build/iopath not built"
fi

finish_tap
