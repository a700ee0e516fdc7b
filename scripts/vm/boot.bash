# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# scripts/vm.sh and contrib/fstests/vm.sh: booting the guest under QEMU
# and waiting for it within the three limits (boot, idle, overall).

# More QEMU options (contrib/fstests/vm.sh: its virtio disks).
qemu_extra=()
qpid=""
tail_pids=()

# stop_guest: QEMU and the streams that follow its files, on every exit
# path (the callers' EXIT trap): TERM, two seconds, then KILL.
stop_guest() {
	local p
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill -TERM "$qpid" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$qpid" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
	fi
	for p in "${tail_pids[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}

boot_guest() {
	local -a cpu clock=()
	# TCG's "max" CPU has SSE4.2, PCLMUL and AVX2, as the kernels expect.
	cpu=(-cpu max)
	[ "$acc" = kvm ] && cpu=(-cpu host)
	if [ "$icount" = 1 ]; then
		# The guest clock counts instructions (1 ns each, shift=0); idle
		# time jumps to the next timer instead of following the host
		# (sleep=off), and the RTC follows the guest clock, so nothing of
		# the host's time reaches the guest but the date it starts at
		# (the host's now, or --rtc-base). RDRAND and RDSEED would hand
		# the guest the host's entropy; without them its randomness comes
		# from the seed on the command line (docs/ab.md, "Noise").
		clock=(-icount shift=0,sleep=off -rtc "${rtc_base:+base=$rtc_base,}clock=vm")
		cpu=(-cpu max,-rdrand,-rdseed)
		[ -n "${seed:-}" ] || seed=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
		append="nokaslr $append"
	fi
	# --seed (iopath ab: one per pair of boots) or the one drawn above. The
	# records carry it in env.kernel.cmdline; iopath compare pairs by it.
	[ -z "${seed:-}" ] || append="iopath.seed=$seed $append"
	echo "$prog: booting $kdesc ($acc${clock:+ icount}, ${mem} MB, $smp CPUs, limit ${timeout_s} s; prepared in ${t_prep} s)" >&2

	console=$tmp/console
	tap=$tmp/tap
	: > "$console"
	: > "$tap"
	accel_opt=$acc
	# One host thread for all guest CPUs. With a thread per vCPU (MTTCG), a
	# vCPU can execute a stale INT3 that x86 text patching (jump labels,
	# static calls) planted and already removed on another vCPU: "Oops: int3"
	# at a tracepoint site (__schedule, trace_sched_wakeup) when tracing is
	# switched on, then a panic. docs/efficacy.md has the measurements.
	[ "$acc" = tcg ] && accel_opt=tcg,thread=${IOPATH_VM_TCG_THREAD:-single}
	# What was booted, and when, as the run's own record (iopath export
	# names the KCIDB build by the image and dates the run by this, not by
	# the file it was saved to).
	printf '# iopath-vm: start-time %s\n# iopath-vm: image-sha256 %s\n' \
		"$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(sha256sum < "$vmlinuz" | cut -d' ' -f1)"
	# --tb-counts: the kernel's blocks only (the upper half), counted
	# inline; the plugin writes them when QEMU exits.
	[ -z "${tb_counts:-}" ] ||
		qemu_extra+=(-plugin "$tb_plugin,out=$tmp/tbcounts,min=ffff800000000000")
	qemu-system-x86_64 -accel "$accel_opt" "${cpu[@]}" "${clock[@]}" -m "$mem" -smp "$smp" \
		-nodefaults -nographic -no-reboot -monitor none \
		-serial "file:$console" -serial "file:$tap" \
		-kernel "$vmlinuz" -initrd "$tmp/initrd.gz" "${qemu_extra[@]}" \
		-append "console=ttyS0 panic=-1 rdinit=/init loglevel=5 $append" \
		< /dev/null > "$tmp/qemu.out" 2>&1 &
	qpid=$!
	boot_start=$SECONDS

	# Stream: TAP to stdout, the kernel console to stderr with -v (without the
	# firmware's terminal escapes and the serial line's carriage returns).
	strip_esc=$'s/\x1b\\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g; s/\r//g'
	# Records (--bench) are taken from the file afterwards, not streamed.
	tail -s 0.2 -n +1 -f --pid="$qpid" "$tap" 2>/dev/null |
		sed -u 's/\r$//; /^IOPATH-RECORD /d' &
	tail_pids+=($!)
	if [ "$verbose" = 1 ]; then
		tail -s 0.2 -n +1 -f --pid="$qpid" "$console" 2>/dev/null | sed -u "$strip_esc" >&2 &
		tail_pids+=($!)
	fi

	# Three limits: the guest must reach /init within the boot limit, then
	# print something (TAP or kernel console) at least every idle-limit seconds,
	# and finish within the overall limit. Once the console holds a kernel
	# bug report (iopath kmsg scan: the run has failed whatever follows),
	# only TAP counts: a kernel stuck in an RCU stall or a hung task prints
	# its report again every minute or two, which kept a hung guest "alive"
	# until the overall limit (25 minutes for iopath mutate's), where the
	# tests' silence now ends it at the idle limit.
	timed_out=""
	done_at=""
	booted=0
	last_size=0
	last_change=$SECONDS
	reported=0
	scanned_size=0
	scanned_at=$SECONDS
	while kill -0 "$qpid" 2>/dev/null; do
		now=$SECONDS
		# Plain assignments, not $(...) inside $((...)): bash parses the latter
		# when it runs it, and a SIGTERM landing in that parse broke the trap.
		tap_size=$(stat -c %s "$tap")
		console_size=$(stat -c %s "$console")
		if [ "$reported" = 0 ] && [ "$console_size" != "$scanned_size" ] &&
		   [ $((now - scanned_at)) -ge 5 ]; then
			scanned_size=$console_size
			scanned_at=$now
			"$(iopath_bin)" kmsg scan "$console" > /dev/null 2>&1
			[ "$?" = 1 ] && reported=1
		fi
		size=$tap_size
		[ "$reported" = 1 ] || size=$((tap_size + console_size))
		if [ "$size" != "$last_size" ]; then
			last_size=$size
			last_change=$now
		fi
		if [ "$booted" = 0 ] && grep -q '^# iopath-vm: kernel' "$tap"; then
			booted=1
		fi
		if [ $((now - boot_start)) -ge "$timeout_s" ]; then
			timed_out="no result within the ${timeout_s} s limit"
		elif [ "$booted" = 0 ] && [ $((now - boot_start)) -ge "$boot_timeout_s" ]; then
			timed_out="the kernel did not reach /init within ${boot_timeout_s} s (hung at boot?)"
		elif [ "$booted" = 1 ] && [ $((now - last_change)) -ge "$idle_timeout_s" ]; then
			timed_out="no output from the guest for ${idle_timeout_s} s (hung?)"
			[ "$reported" = 1 ] &&
				timed_out="no test output for ${idle_timeout_s} s after the kernel reported a bug (hung?)"
		fi
		[ -n "$timed_out" ] && break
		# The guest powers off right after its result line; give it a little.
		if [ -z "$done_at" ] && has_result; then
			done_at=$now
		elif [ -n "$done_at" ] && [ $((now - done_at)) -ge 30 ]; then
			break
		fi
		sleep 0.2
	done
	if kill -0 "$qpid" 2>/dev/null; then
		kill -TERM "$qpid" 2>/dev/null
		sleep 0.5
		kill -KILL "$qpid" 2>/dev/null
	fi
	wait "$qpid" 2>/dev/null
	qrc=$?
	qpid=""
	for p in "${tail_pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	tail_pids=()
	elapsed=$((SECONDS - boot_start))
	[ -n "$log_out" ] && write_file "$log_out" < "$console"

}

# has_result: whether the guest's TAP holds its result line yet, as the
# one reader of the machine lines says (a line still being written does
# not read yet).
has_result() {
	"$(iopath_bin)" verdict --read --result IOPATH-VM-RESULT --fields status "$tap" > /dev/null 2>&1
}

# save_tb_counts: with --tb-counts, the plugin's counts to that file. A
# guest that gave no result is report_result's to explain; one that did
# and left no complete counts is a failure of its own.
save_tb_counts() {
	[ -n "${tb_counts:-}" ] || return 0
	has_result || return 0
	[ -f "$tmp/tbcounts" ] && [ "$(tail -n 1 "$tmp/tbcounts" | cut -d' ' -f1-2)" = "# total-insns" ] ||
		fail "the block-counting plugin wrote no complete counts: $(esc "$(grep -m1 tbcount "$tmp/qemu.out")")"
	write_file "$tb_counts" < "$tmp/tbcounts" || exit 1
}
