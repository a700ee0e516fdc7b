#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# iopath-check: needs=mount-namespace
#
# One selftest runner (scripts/selftest-runner.sh) for every path: make
# check (scripts/check.sh), iopath run, make kselftest
# (scripts/kselftest-run.sh), the iopath vm guest's /init
# (scripts/vm/init.sh, busybox sh, booted under QEMU) and the LAVA guest
# (scripts/vm/lava-guest.sh, busybox sh in a private mount namespace and
# chroot). Each runs a fake collection, installed beside the real
# run_kselftest.sh of BUILD/kselftest, whose settings say timeout=2:
#
#   sleep_test  starts a test, then sleeps for 300 s
#   skip_test   skips a test `requirements` lists, on a kernel whose
#               iopath_probe says it has the feature the line names
#   pass_test   passes
#
# Through every path, sleep_test must end at the time limit as a failed
# program ("TIMEOUT 2 seconds"), and skip_test's skip must fail the run
# ("required: ... skipped on a kernel that has fakefeat"). A path that
# started the programs itself, without the runner, would run sleep_test
# to the end (this test gives each path 90 s) and let the skip pass.
# Controls: pass_test alone passes through the host paths.
#
# Also: the runner is the only script that starts run_kselftest.sh or
# iopath_probe, and it refuses bad input with one line and exit 2.
#
# usage: tests/selftest_runner.sh BUILD_DIR   (TAP on stdout; root for iopath run)
set -u

build=$(cd "${1:?usage: selftest_runner.sh BUILD_DIR}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
runner=$top/scripts/selftest-runner.sh
. "$top/tests/lib/tap.sh"

if [ ! -x "$build/kselftest/run_kselftest.sh" ]; then
	echo "1..1"
	echo "not ok 1 runner.installed_tree # $build/kselftest/run_kselftest.sh missing (make kselftest-install)"
	exit 1
fi
tmp=$(mktemp -d /tmp/iopath-runner.XXXXXX) || { echo "Bail out! no temporary directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT

# A build directory holding the fake collection as its installed tree
# (fake/kselftest) and the real iopath (the whole-run kernel-log check).
fake=$tmp/build
inst=$fake/kselftest
mkdir -p "$inst/iopath"
cp "$build/kselftest/run_kselftest.sh" "$inst/"
cp -r "$build/kselftest/kselftest" "$inst/"
ln -s "$build/iopath" "$fake/iopath"
printf 'timeout=2\n' > "$inst/iopath/settings"
printf 'fake-seed  ^fake\\.v\\.needed$  fakefeat\n' > "$inst/iopath/requirements"
printf '#!/bin/sh\necho "fakefeat yes"\n' > "$inst/iopath/iopath_probe"
cp "$build/selftests/iopath_verdict" "$inst/iopath/"
cat > "$inst/iopath/sleep_test" <<'EOF'
#!/bin/sh
echo "TAP version 13"
echo "1..1"
echo "#  RUN           fake.slow.sleeps ..."
exec sleep 300
EOF
cat > "$inst/iopath/skip_test" <<'EOF'
#!/bin/sh
echo "TAP version 13"
echo "1..2"
echo "#  RUN           fake.v.needed ..."
echo "#      SKIP      this kernel cannot"
echo "#            OK  fake.v.needed"
echo "ok 1 fake.v.needed # SKIP this kernel cannot"
echo "#  RUN           fake.v.free ..."
echo "#            OK  fake.v.free"
echo "ok 2 fake.v.free"
echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0"
EOF
cat > "$inst/iopath/pass_test" <<'EOF'
#!/bin/sh
echo "TAP version 13"
echo "1..1"
echo "#  RUN           fake.v.passes ..."
echo "#            OK  fake.v.passes"
echo "ok 1 fake.v.passes"
echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"
EOF
chmod +x "$inst"/iopath/*_test "$inst/iopath/iopath_probe"
printf 'iopath:%s\n' sleep_test skip_test pass_test > "$inst/kselftest-list.txt"
: > "$tmp/known"

# path NAME LIMIT OUT CMD...: CMD (stdout and stderr into OUT) within LIMIT
# seconds; its exit status in $rc, its seconds in $took.
path() {
	local name=$1 limit=$2 out=$3 t0=$SECONDS
	shift 3
	timeout -k 5 "$limit" "$@" > "$out" 2>&1
	rc=$?
	took=$((SECONDS - t0))
	echo "# $name: exit $rc after $took s"
}

# expect NAME FILE ERE...: every ERE matches a line of FILE.
expect() {
	local name=$1 file=$2 re miss=""
	shift 2
	for re in "$@"; do
		grep -qE -- "$re" "$file" || miss="$miss '$re'"
	done
	if [ -z "$miss" ]; then
		ok "$name"
	else
		not_ok "$name" "missing:$miss" "$(tail -n 8 "$file" | cat -v)"
	fi
}

# The lines run_kselftest.sh and the verdict print, with TAG the verdict's.
timed_out='^not ok [0-9]+ selftests: iopath: sleep_test # TIMEOUT 2 seconds$'
required() { echo "^# $1: required: fake\\.v\\.needed skipped on a kernel that has fakefeat: this kernel cannot$"; }

# ---- the runner itself ------------------------------------------------------

path runner 90 "$tmp/runner.out" "$runner" --known "$tmp/known" --tag t "$inst"
expect runner.timeout_and_required_coverage "$tmp/runner.out" "$timed_out" "$(required t)" \
	'^# t: feature fakefeat yes$' '^ok [0-9]+ selftests: iopath: pass_test$' \
	'^# IOPATH-RESULT: status=fail passed=2 failed=2 known=0 skipped=1 programs=3 programs_failed=1 required_missing=1 '
check $(( rc != 1 || took > 30 )) "runner.exit_1_within_the_limit"

path runner.pass 30 "$tmp/pass.out" "$runner" --known "$tmp/known" "$inst" -t iopath:pass_test
check $(( rc != 0 )) "runner.passing_program_passes"

# A probe that fails: the required coverage cannot be judged, the run fails.
cp -r "$inst" "$tmp/noprobe"
printf '#!/bin/sh\necho "no tracefs" >&2\nexit 3\n' > "$tmp/noprobe/iopath/iopath_probe"
path runner.probe_fails 30 "$tmp/noprobe.out" "$runner" --known "$tmp/known" --tag t "$tmp/noprobe" \
	-t iopath:pass_test
expect runner.failed_probe_fails_the_run "$tmp/noprobe.out" '^# t: feature probe-failed exit 3: no tracefs$' \
	'^# t: required coverage not judged: iopath_probe failed: exit 3: no tracefs$' \
	'^# IOPATH-RESULT: status=fail passed=1 failed=1 '
check $(( rc != 1 )) "runner.failed_probe_exit_1"

for bad in "--tag" "--frobnicate $inst" "$tmp/nowhere" "--known $tmp/none $inst"; do
	# shellcheck disable=SC2086
	"$runner" $bad > "$tmp/bad.out" 2> "$tmp/bad.err"
	rc=$?
	[ "$rc" = 2 ] && [ ! -s "$tmp/bad.out" ] && [ "$(wc -l < "$tmp/bad.err")" = 1 ]
	check $? "runner.bad_input_one_line_exit_2 ($bad)"
done

# The one place: no other script starts run_kselftest.sh or iopath_probe.
others=$(cd "$top" && grep -rnE '\./run_kselftest\.sh|run_kselftest\.sh"? +"\$@"|iopath_probe"? *(>|2>|$)' \
	--exclude=selftest-runner.sh scripts cli Makefile | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(#|\*|//)')
[ -z "$others" ]
check $? "runner.the_only_place_that_starts_a_selftest${others:+ (also: $others)}"

# ---- make kselftest ---------------------------------------------------------

path kselftest-run 90 "$tmp/ksft.out" env IOPATH_KNOWN_FAILURES="$tmp/known" \
	"$top/scripts/kselftest-run.sh" "$inst"
expect kselftest_run.timeout_and_required_coverage "$tmp/ksft.out" "$timed_out" "$(required kselftest-run)" \
	'^# IOPATH-RESULT: status=fail .* required_missing=1 '
check $(( rc != 1 || took > 30 )) "kselftest_run.exit_1_within_the_limit"
path kselftest-run.pass 30 "$tmp/ksft-pass.out" env IOPATH_KNOWN_FAILURES="$tmp/known" \
	"$top/scripts/kselftest-run.sh" "$inst" -t iopath:pass_test
check $(( rc != 0 )) "kselftest_run.passing_program_passes"

# ---- make check -------------------------------------------------------------

path check 90 "$tmp/check.out" env CHECK_FILTER='^selftest/' IOPATH_KNOWN_FAILURES="$tmp/known" \
	bash "$top/scripts/check.sh" "$fake"
expect check.timeout_and_required_coverage "$tmp/check.out" "^  ${timed_out#^}" \
	"^  $(required selftest/skip_test | sed 's/^^//')" \
	'^# selftest/sleep_test +0 passed, 1 failed, 0 skipped' \
	'^# selftest/skip_test +1 passed, 1 failed, 1 skipped' \
	'^# selftest/pass_test +1 passed, 0 failed, 0 skipped'
check $(( rc != 1 || took > 30 )) "check.exit_1_within_the_limit"
# Not its exit status: check's whole-host leftover and kernel-log checks
# also see what other runs on this machine do meanwhile.
path check.pass 30 "$tmp/check-pass.out" env CHECK_FILTER='^selftest/pass_test$' \
	IOPATH_KNOWN_FAILURES="$tmp/known" bash "$top/scripts/check.sh" "$fake"
expect check.passing_program_passes "$tmp/check-pass.out" \
	'^# selftest/pass_test +1 passed, 0 failed, 0 skipped' '^check: [0-9]+ passed, [0-9]+ failed, 0 skipped$'

# ---- iopath run -------------------------------------------------------------

if [ "$(id -u)" != 0 ]; then
	skip iopath_run.timeout_and_required_coverage "needs root"
	skip iopath_run.exit_1_within_the_limit "needs root"
else
	# A source tree whose build holds the fake collection (IOPATH_SRC).
	mkdir -p "$tmp/src"
	ln -s "$fake" "$tmp/src/build"
	ln -s "$top/scripts" "$tmp/src/scripts"
	ln -s "$top/configs" "$tmp/src/configs"
	path iopath-run 90 "$tmp/run.out" env IOPATH_SRC="$tmp/src" IOPATH_KNOWN_FAILURES="$tmp/known" \
		"$build/iopath" run --no-bench --results "$tmp/results"
	expect iopath_run.timeout_and_required_coverage "$tmp/run.out" "$(required 'iopath run')" \
		'^sleep_test +0 +1 +0 +0 +[0-9.]+  TIMEOUT$' '^skip_test +1 +1 +0 +1 ' '^pass_test +1 +0 +0 +0 ' \
		'^# iopath run: coverage: fake-seed: NOT RUN \(1 skipped; fake\.v\.needed: this kernel cannot\)$'
	check $(( rc != 1 || took > 30 )) "iopath_run.exit_1_within_the_limit"
	grep -hE '^(not )?ok [0-9]+ selftests: iopath: ' "$tmp"/results/run-*.log > "$tmp/run-progs" 2> /dev/null
	expect iopath_run.log_holds_the_runner_output "$tmp/run-progs" "$timed_out" \
		'^ok [0-9]+ selftests: iopath: pass_test$'

	# The TIMEOUT mark comes from the reader's program line (ended=timeout),
	# not from the runner's TAP: a runner whose TAP says the opposite of
	# its machine lines is taken at its machine lines.
	mkdir -p "$tmp/src2/scripts"
	ln -s "$fake" "$tmp/src2/build"
	ln -s "$top/configs" "$tmp/src2/configs"
	cat > "$tmp/src2/scripts/selftest-runner.sh" <<'EOF'
#!/bin/sh
res='status=fail passed=0 failed=1 known=0 skipped=0 programs=1 programs_failed=1 required_missing=0 stale_known=0'
case "$*" in
*--judge*) echo "# IOPATH-RESULT: $res"; exit 1 ;;
*sleep_test*)
	echo "not ok 1 selftests: iopath: sleep_test # exit=1"
	echo "# IOPATH-PROGRAM: result=fail program=sleep_test ended=timeout" ;;
*)
	echo "not ok 1 selftests: iopath: ${5#iopath:} # TIMEOUT 2 seconds"
	echo "# IOPATH-PROGRAM: result=fail program=${5#iopath:}" ;;
esac
echo "# IOPATH-RESULT: $res"
exit 1
EOF
	chmod +x "$tmp/src2/scripts/selftest-runner.sh"
	path iopath-run.machine 60 "$tmp/run2.out" env IOPATH_SRC="$tmp/src2" \
		IOPATH_KNOWN_FAILURES="$tmp/known" "$build/iopath" run --no-bench --results "$tmp/results2"
	expect iopath_run.timeout_is_the_readers_program_line "$tmp/run2.out" \
		'^sleep_test +0 +1 +0 +0 +[0-9.]+  TIMEOUT$' '^skip_test +0 +1 +0 +0 +[0-9.]+$' \
		'^pass_test +0 +1 +0 +0 +[0-9.]+$'
fi

# ---- the LAVA guest: busybox sh, in a chroot ------------------------------

busybox=$(command -v busybox || echo /bin/busybox)
if [ "$(id -u)" != 0 ] || [ ! -x "$busybox" ] || ! command -v unshare > /dev/null; then
	skip lava_guest.timeout_and_required_coverage "needs root, busybox and unshare"
else
	r=$tmp/guest
	mkdir -p "$r/bin" "$r/usr/bin" "$r/etc/iopath-vm" "$r/iopath/lava" "$r/tmp" "$r/dev" "$r/proc"
	cp "$busybox" "$r/bin/busybox"
	for a in $("$busybox" --list); do
		[ -e "$r/bin/$a" ] || ln -s busybox "$r/bin/$a"
	done
	# GNU timeout, as scripts/vm/initramfs.bash puts it there, with its libraries.
	cp /usr/bin/timeout "$r/usr/bin/timeout"
	for lib in $(ldd /usr/bin/timeout | grep -oE '/[^ ]+'); do
		mkdir -p "$r$(dirname "$lib")"
		cp -L "$lib" "$r$lib"
	done
	cp -r "$inst" "$r/iopath/kselftest"
	cp "$top/scripts/selftest-runner.sh" "$r/etc/iopath-vm/"
	cp "$top/scripts/vm/lava-guest.sh" "$r/iopath/lava/run"
	: > "$r/etc/iopath-vm/known-failures"
	: > "$r/etc/iopath-vm/env"
	: > "$r/etc/iopath-vm/args"
	# /dev and /proc in a mount namespace of its own: gone when it ends.
	guest=(unshare -m --propagation private sh -c 'r=$1; shift
		mount --bind /dev "$r/dev" && mount -t proc proc "$r/proc" &&
		exec chroot "$r" /bin/sh /iopath/lava/run "$@"' - "$r")
	path lava-guest 90 "$tmp/lava.out" "${guest[@]}"
	expect lava_guest.timeout_and_required_coverage "$tmp/lava.out" \
		"^IOPATH-LAVA:tap: ${timed_out#^}" "^IOPATH-LAVA:guest-note: $(required iopath-vm | sed 's/^^//')" \
		'^IOPATH-LAVA:feature: fakefeat yes$' \
		'^IOPATH-LAVA:guest-verdict: # IOPATH-VM-RESULT: status=fail .* required_missing=1 ' \
		'^IOPATH-LAVA:end: [0-9.]+ [0-9.]+$' \
		'^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=program.sleep_test RESULT=fail>$' \
		'^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=iopath-verdict RESULT=fail>$'
	check $(( took > 30 )) "lava_guest.within_the_limit"
	path lava-guest.pass 30 "$tmp/lava-pass.out" "${guest[@]}" -- -t iopath:pass_test
	expect lava_guest.passing_program_passes "$tmp/lava-pass.out" \
		'^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=iopath-verdict RESULT=pass>$'
fi

# ---- the iopath vm guest: /init under QEMU ----------------------------------

# A kernel as tests/vm.sh finds one (it fetches one into BUILD/vm-cache).
kernel=$({
	ls "$build"/vm-cache/kernels/*/root/boot/vmlinuz-*
	ls "$build"/vm-cache/kernels/*/root/usr/lib/modules/*/vmlinuz
} 2> /dev/null | head -n 1)
if ! command -v qemu-system-x86_64 > /dev/null || [ ! -x "$busybox" ]; then
	skip vm_guest.timeout_and_required_coverage "qemu-system-x86_64 or busybox not installed (scripts/deps.sh vm)"
elif [ -z "$kernel" ]; then
	skip vm_guest.timeout_and_required_coverage "no kernel in $build/vm-cache (tests/vm.sh fetches one)"
else
	path vm-guest 240 "$tmp/vm.out" env TMPDIR="$tmp" IOPATH_BIN="$build/iopath" \
		"$top/scripts/vm.sh" --build "$fake" --kernel "$kernel" --known-failures "$tmp/known" \
		--test-timeout 2 --timeout 200
	expect vm_guest.timeout_and_required_coverage "$tmp/vm.out" "$timed_out" "$(required iopath-vm)" \
		'^# iopath-vm: feature fakefeat yes$' \
		'^# IOPATH-VM-RESULT: status=fail passed=2 failed=2 .* required_missing=1 ' \
		'1 required test\(s\) skipped on a kernel that has what they need'
	check $(( rc != 1 )) "vm_guest.exit_1"
fi

finish_tap
