#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath VM guest: mount the pseudo filesystems, load the modules, run the
# selftests through scripts/selftest-runner.sh (run_kselftest.sh under it)
# with TAP on ttyS1, print the result line, power off. scripts/vm.sh copies it into the initramfs as /init.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# What udev would make; the runner writes to /dev/stdout.
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo /sbin/modprobe > /proc/sys/kernel/modprobe

# TAP goes to the second serial port; the kernel console stays on the first.
# Under LAVA there is one serial line: everything goes to the console.
if [ -f /etc/iopath-vm/lava ] || ! exec 3>/dev/ttyS1; then
	exec 3>/dev/console
else
	stty -F /dev/ttyS1 raw -echo 2>/dev/null
fi
say() { echo "$*" >&3; }

say "# iopath-vm: kernel $(uname -r) ($(uname -v)), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) " MB" }' /proc/meminfo)"
while read -r m; do
	# EEXIST: already loaded on demand; ENODEV: the CPU lacks the
	# instructions (crc32c-intel without SSE4.2).
	insmod "$m" 2>/tmp/insmod.err ||
		grep -qE 'File exists|No such device' /tmp/insmod.err ||
		say "# iopath-vm: insmod $m: $(cat /tmp/insmod.err)"
done < /etc/iopath-vm/modules
# The pmem region scripts/vm.sh carved out of this guest's RAM (memmap=
# SIZE!OFFSET on the command line) holds nothing of anyone's: the DAX
# tests' scratch device, formatted by each of them.
if [ -b /dev/pmem0 ] && grep -qE 'memmap=[0-9]+M![0-9]+M' /proc/cmdline; then
	export IOPATH_SCRATCH_DAX_DEV=/dev/pmem0 IOPATH_SCRATCH_FORCE_MKFS=yes-wipe-it
fi

# Under LAVA: a shell on the console for the test shell, which runs
# /iopath/lava/run (scripts/vm/lava-guest.sh) and reports to LAVA.
if [ -f /etc/iopath-vm/lava ]; then
	export PS1='iopath-lava# '
	cd /
	exec setsid cttyhack /bin/sh
fi

if [ -f /etc/iopath-vm/repro ]; then
	set --
	while IFS= read -r a; do
		set -- "$@" "$a"
	done < /etc/iopath-vm/args
	IOPATH_KNOWN_FAILURES=/etc/iopath-vm/known-failures \
		/iopath/repro/scripts/repro.sh --result-line "$@" >&3 2>&1
	sync
	poweroff -f
	echo o > /proc/sysrq-trigger
fi

# iopath bench: the records go to ttyS1 one a line behind "IOPATH-RECORD ",
# then the result line; scripts/vm/verdict.bash takes them apart.
if [ -f /etc/iopath-vm/bench ]; then
	. /etc/iopath-vm/bench
	. /etc/iopath-vm/env
	# The seed the host drew for this boot, so that boots differ where
	# real boots differ (boot id, hash seeds, address-space layout), and
	# only there: with icount nothing else random reaches the guest.
	seed=$(sed -n 's/.*iopath.seed=\([0-9a-f]*\).*/\1/p' /proc/cmdline)
	[ -n "$seed" ] && echo "$seed" > /dev/urandom
	say "# iopath-vm: boot $(cat /proc/sys/kernel/random/boot_id)"
	set --
	while IFS= read -r a; do
		set -- "$@" "$a"
	done < /etc/iopath-vm/args
	mkdir -p /root/results
	/iopath/bench/build/iopath bench --quiet --out /root/results/records.jsonl "$@" \
		> /tmp/bench.out 2>&1
	rc=$?
	sed 's/^/# iopath-vm: bench: /' /tmp/bench.out | tail -n 20 >&3
	n=0
	if [ -f /root/results/records.jsonl ]; then
		while IFS= read -r l; do
			say "IOPATH-RECORD $l"
			n=$((n + 1))
		done < /root/results/records.jsonl
	fi
	say "# iopath-vm: bench: iopath bench exit $rc, $n records"
	# The result line, by its one writer: the benchmark is one program,
	# passed when it exited 0 with records.
	f=0 status=pass
	[ "$rc" = 0 ] && [ "$n" -gt 0 ] || f=1 status=fail
	/iopath/bench/build/iopath verdict --result-line --result IOPATH-VM-RESULT \
		status=$status passed=$((1 - f)) failed=$f known=0 \
		skipped=0 programs=1 programs_failed=$f required_missing=0 stale_known=0 >&3
	sync
	poweroff -f
	echo o > /proc/sysrq-trigger
fi

# The selftests, by the one runner (scripts/selftest-runner.sh, which
# judges with the collection's iopath_verdict): the features it probed, the TAP, and the verdict with
# the known kernel bugs of configs/known-failures, the tests this kernel
# must not skip, the coverage block and the result line.
. /etc/iopath-vm/env
set --
while IFS= read -r a; do
	set -- "$@" "$a"
done < /etc/iopath-vm/args
/etc/iopath-vm/selftest-runner.sh --known /etc/iopath-vm/known-failures --tag iopath-vm \
	--result IOPATH-VM-RESULT --coverage /iopath/kselftest "$@" >&3 2>&1
sync
poweroff -f
echo o > /proc/sysrq-trigger
