#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The verdict engine (lib/tap.c), the verdict of `iopath vm`, `make
# kselftest` and every runner, on run_kselftest.sh output made up here: a
# known failure on the kernel it names is excused, and nothing else is.
# Each case runs under both forms of the engine, `iopath verdict` and the
# collection's static iopath_verdict (what the VM and LAVA guests run),
# since the guest must give the same verdict as the host.
#
# usage: tests/tap_verdict.sh [BUILD_DIR]
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/tap.sh"
build=$(cd "${1:-$top/build}" && pwd)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ENGINE [options] KNOWN REQUIREMENTS FEATURES TAP, or --list KNOWN
printf '#!/bin/sh\nexec %s verdict "$@"\n' "$build/iopath" > "$tmp/iopath-verdict"
chmod +x "$tmp/iopath-verdict"
engines=()
for a in "$tmp/iopath-verdict" "$build/selftests/iopath_verdict"; do
	if [ -x "$a" ]; then
		engines+=("$a")
	else
		not_ok "the engine ${a##*/} is built (make cli selftests)"
	fi
done

cat > "$tmp/known" <<'EOF'
# comment, then a blank line

^7\.2\.13\+deb14-amd64$  ^fb\.xfs_1k\.dio_past_eof$  cached byte [0-9]+ is 0x53, expected 0x00  xfs-1k-dio  xfs 1k: mmap tail survives an O_DIRECT extension
^6\.1\.0-57-amd64$  ^fb\.xfs\.other$  anything	some-bug	something else on 6.1
EOF
cat > "$tmp/requirements" <<'EOF'
# comment
fb-path  ^fb\.xfs\.batch_path_taken$  xfs_reflink tracefs_iomap
fb-release  ^fb\.xfs(_1k)?\.(one|dio_past_eof)$  xfs_reflink
EOF
printf 'xfs_reflink yes\ntracefs_iomap yes\n' > "$tmp/feat-all"
printf 'xfs_reflink yes\ntracefs_iomap no no tracefs in /proc/filesystems\n' > "$tmp/feat-notrace"

# raw RESULT...: one harness binary's own output, as make check and iopath
# run see it. RESULT is "ok:NAME", "skip:NAME" or a failure: "fail:NAME"
# (the mmap-tail diagnostic of the known entry), "leak:NAME" (that, then a
# leak), "kmsg:NAME" (that, then a post-test kernel-log finding), "tmo:NAME"
# (that, then the harness's timeout), "other:NAME" (another diagnostic),
# "skipfail:NAME" (the known diagnostic, then the harness's SKIP).
raw() {
	local r i=0 p=0 f=0 s=0 t
	echo "TAP version 13"
	echo "1..$#"
	for r in "$@"; do
		i=$((i + 1))
		t=${r#*:}
		echo "#  RUN           $t ..."
		case $r in
		fail:* | leak:* | kmsg:* | tmo:* | skipfail:*)
			echo "# fb_test.c:417:${t##*.}:Expected 0 (0) == r (-117)"
			echo "# fb_test.c:417:${t##*.}:eof.000: cached byte 1000 is 0x53, expected 0x00" ;;
		esac
		case $r in
		leak:*)
			echo "# fb_test.c:430:${t##*.}:Expected 0 (0) == total (3)"
			echo "# fb_test.c:430:${t##*.}:3 pages of 64 files still cached after fsync + DONTNEED" ;;
		kmsg:*)
			echo "# fb_test.c:342:${t##*.}:Expected 0 (0) == __n (1)"
			echo "# fb_test.c:342:${t##*.}:post-test kernel log: WARNING: CPU: 1 PID: 7 at fs/iomap/iter.c:42" ;;
		tmo:*)
			echo "# ${t##*.}: Test terminated by timeout" ;;
		other:*)
			echo "# fb_test.c:417:${t##*.}:Expected 0 (0) == r (-117)"
			echo "# fb_test.c:417:${t##*.}:eof.000: size 4096, expected 69632" ;;
		esac
		case $r in
		ok:*) echo "# fb_test.c:342:${t##*.}:after-test checks: fsck ran, kernel log ran"
			echo "ok $i $t"; p=$((p + 1)) ;;
		skip:* | skipfail:*) echo "ok $i $t # SKIP no loop device"; s=$((s + 1)) ;;
		*) echo "#      FAIL  $t"; echo "not ok $i $t"; f=$((f + 1)) ;;
		esac
	done
	echo "# Totals: pass:$p fail:$f xfail:0 xpass:0 skip:$s error:0"
}

# program NAME EXIT RESULT...: the same binary as run_kselftest.sh shows it,
# its output under "# ", then its own line. EXIT is 0, 1, or "timeout" (the
# runner kills it before its Totals line).
program() {
	local name=$1 ex=$2
	shift 2
	echo "# selftests: iopath: $name"
	case $ex in
	timeout)
		raw "$@" | sed '/Totals/d; s/^/# /'
		echo "not ok $prog_n selftests: iopath: $name # TIMEOUT 120 seconds" ;;
	0)
		raw "$@" | sed 's/^/# /'
		echo "ok $prog_n selftests: iopath: $name" ;;
	*)
		raw "$@" | sed 's/^/# /'
		echo "not ok $prog_n selftests: iopath: $name # exit=$ex" ;;
	esac
	prog_n=$((prog_n + 1))
}

tap_begin() { prog_n=1; printf 'TAP version 13\n1..2\n'; }

# run_case AWK KERNEL TAPFILE [FEATURES]: the result line; $rc the status
run_case() {
	local feat=${4:-/dev/null}
	out=$("${1}" --kernel "$2" --tag t --coverage "$tmp/known" \
		"$tmp/requirements" "$feat" "$3" 2> "$tmp/err")
	rc=$?
	res=$(grep '^# IOPATH-RESULT:' <<< "$out")
}

{ tap_begin; program a_test 0 ok:a.x.one ok:a.x.two skip:a.x.three; program fb_test 0 ok:fb.xfs.one; } > "$tmp/pass"
{ tap_begin; program a_test 0 ok:a.x.one; program fb_test 1 ok:fb.xfs.one fail:fb.xfs_1k.dio_past_eof; } > "$tmp/known1"
{ tap_begin; program a_test 0 ok:a.x.one; program fb_test 1 fail:fb.xfs.one fail:fb.xfs_1k.dio_past_eof; } > "$tmp/mixed"
{ tap_begin; program a_test 0 ok:a.x.one; program fb_test timeout fail:fb.xfs_1k.dio_past_eof; } > "$tmp/timeout"
{ tap_begin; program a_test 0 ok:a.x.one; program fb_test 0 ok:fb.xfs_1k.dio_past_eof; } > "$tmp/stale"
{ tap_begin; program a_test 0 ok:a.x.one; program fb_test 0 skip:fb.xfs.batch_path_taken; } > "$tmp/reqskip"
printf 'TAP version 13\n1..0\n' > "$tmp/empty"
raw ok:fb.xfs.one fail:fb.xfs_1k.dio_past_eof > "$tmp/raw-known"
raw ok:fb.xfs.one ok:fb.xfs_1k.dio_past_eof > "$tmp/raw-pass"
printf 'TAP version 13\n1..2\nok 1 fb.xfs.one\n' > "$tmp/raw-crash"
raw ok:fb.xfs.one leak:fb.xfs_1k.dio_past_eof > "$tmp/raw-leak"
raw ok:fb.xfs.one other:fb.xfs_1k.dio_past_eof > "$tmp/raw-other"
raw ok:fb.xfs.one kmsg:fb.xfs_1k.dio_past_eof > "$tmp/raw-kmsg"
raw ok:fb.xfs.one tmo:fb.xfs_1k.dio_past_eof > "$tmp/raw-tmo"
raw ok:fb.xfs.one skip:fb.xfs.batch_path_taken > "$tmp/raw-reqskip"
raw ok:fb.xfs.one skipfail:fb.xfs_1k.dio_past_eof > "$tmp/raw-skipfail"

# expect LABEL RC KERNEL TAP RESULT-RE [NOTE-RE [FEATURES]]: the verdict on
# TAP for KERNEL exits RC, its result line matches RESULT-RE and, if given,
# a note matches NOTE-RE.
expect() {
	run_case "$engine" "$3" "$4" "${7:-/dev/null}"
	[ "$rc" = "$2" ] && grep -q -- "$5" <<< "$res" && { [ -z "${6:-}" ] || grep -q -- "$6" <<< "$out"; }
	check $? "$engine_label: $1"
}

# expect_raw LABEL RC KERNEL TAP EXIT RESULT-RE [NOTE-RE [FEATURES]]: the
# same for one binary's output that exited EXIT.
expect_raw() {
	out=$("$engine" --kernel "$3" --tag t --program fb_test --exit-status "$5" \
		"$tmp/known" "$tmp/requirements" "${8:-/dev/null}" "$4" 2> "$tmp/err")
	rc=$?
	[ "$rc" = "$2" ] && grep -q -- "$6" <<< "$out" && { [ -z "${7:-}" ] || grep -q -- "$7" <<< "$out"; }
	check $? "$engine_label: one binary: $1"
}

# ranges ENGINE LABEL: an entry says where its bug lives as releases and
# ranges per stable line, compared as versions of the uname -r (its
# leading numbers), so that the next point release of a distribution is
# covered without an edit, and a release past the fix is not. Before,
# only exact releases were named: 6.12.118 failed where 6.12.117 was
# listed, and such a list was refused.
ranges() {
	local a=$1 label=$2 k
	printf '%s\n' '# the fix in 6.12.130; 7.2.y from 7.2.13 until the fix; Debian 6.1 ABI 50 on' \
		'6.12.117..6.12.130,6.12.118,7.2.13..,6.1.0-50..  ^fb\.xfs_1k\.dio_past_eof$  cached byte [0-9]+ is 0x53, expected 0x00  xfs-1k-dio  xfs 1k: mmap tail' \
		> "$tmp/known-ranges"
	# range_case LABEL RC KERNEL TAP RESULT-RE [NOTE-RE]
	range_case() {
		out=$("$a" --kernel "$3" --tag t "$tmp/known-ranges" /dev/null /dev/null "$4" 2> "$tmp/err")
		rc=$?
		[ "$rc" = "$2" ] && grep -q -- "$5" <<< "$out" && { [ -z "${6:-}" ] || grep -q -- "$6" <<< "$out"; }
		check $? "$label: known_failures.ranges.$1"
	}
	range_case release_observed_is_excused_without_a_note 0 6.12.117+deb12-amd64 "$tmp/known1" \
		'status=pass .*known=1 '
	! grep -q 'not itself observed' <<< "$out"
	check $? "$label: known_failures.ranges.release_observed_has_no_not_observed_note"
	range_case release_listed_alone_is_observed 0 6.12.118+deb12-amd64 "$tmp/known1" 'status=pass .*known=1 '
	! grep -q 'not itself observed' <<< "$out"
	check $? "$label: known_failures.ranges.release_listed_alone_has_no_note"
	range_case release_inside_a_range_is_excused_with_a_note 0 6.12.125+deb12-amd64 "$tmp/known1" \
		'status=pass .*known=1 ' \
		'^# t: 6.12.125+deb12-amd64 not itself observed with xfs-1k-dio: excused as inside 6.12.y from 6.12.117, fixed in 6.12.130 (known-failures line 2)$'
	grep -q '^# IOPATH-CASE: result=known .* bug=xfs-1k-dio$' <<< "$out"
	check $? "$label: known_failures.ranges.inside_a_range_the_case_is_known"
	range_case open_range_covers_a_later_release_of_its_line 0 7.2.20-1-amd64 "$tmp/known1" \
		'status=pass .*known=1 ' 'excused as inside 7.2.y from 7.2.13 until the fix'
	range_case debian_abi_number_is_compared_as_a_version 0 6.1.0-57-amd64 "$tmp/known1" \
		'status=pass .*known=1 ' 'excused as inside 6.1.y from 6.1.0-50 until the fix'
	range_case release_past_the_fix_that_fails_is_a_regression 1 6.12.130+deb12-amd64 "$tmp/known1" \
		'status=fail .*failed=1 known=0 ' \
		'^# t: regression: fb.xfs_1k.dio_past_eof fails on 6.12.130+deb12-amd64, past the fix of xfs-1k-dio (6.12.y from 6.12.117, fixed in 6.12.130; known-failures line 2)$'
	range_case release_long_past_the_fix_fails 1 6.12.200 "$tmp/known1" 'status=fail .*known=0 ' 'regression: '
	range_case release_before_the_first_seen_is_not_excused 1 6.12.116+deb12-amd64 "$tmp/known1" \
		'status=fail .*known=0 ' 'is before the first release xfs-1k-dio was seen on'
	range_case another_stable_line_is_not_excused 1 6.18.44-fc-v1147 "$tmp/known1" \
		'status=fail .*known=0 '
	range_case entry_whose_test_passes_inside_its_range_fails 1 6.12.125+deb12-amd64 "$tmp/stale" \
		'status=fail .*stale_known=1' 'known failure did not reproduce: fb.xfs_1k.dio_past_eof passed on 6.12.125'
	range_case test_passing_past_the_fix_passes 0 6.12.131+deb12-amd64 "$tmp/stale" 'status=pass .*stale_known=0'
	k=$("$a" --list --kernel 6.12.125+deb12-amd64 "$tmp/known-ranges" | cut -f4)
	[ "$k" = xfs-1k-dio ] && [ -z "$("$a" --list --kernel 6.12.130 "$tmp/known-ranges")" ]
	check $? "$label: known_failures.ranges.list_takes_the_releases_a_range_covers"
	for k in '6.12.130..6.12.117' '6.12..' '6.12.117..7.2.1' '6.12.117...' 'x' '6.12.117,,7.2.13'; do
		printf '%s  ^t$  d  some-bug  reason\n' "$k" > "$tmp/bad-range"
		"$a" --list "$tmp/bad-range" > /dev/null 2> "$tmp/err"
		[ "$?" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -qF "KERNEL" "$tmp/err"
		check $? "$label: known_failures.ranges.malformed_range_refused ($k)"
	done
}

cases() {
	engine=$1
	engine_label=$2
	local a=$1 label=$2 k72=7.2.13+deb14-amd64 f

	expect "all passed: pass, counts right" 0 $k72 "$tmp/pass" \
		'status=pass passed=3 failed=0 known=0 skipped=1 programs=2 programs_failed=0'
	expect "listed failure on a listed kernel: pass, reported with its bug and reason" 0 $k72 "$tmp/known1" \
		'status=pass passed=2 failed=0 known=1 ' \
		"^# t: known failure on $k72: fb.xfs_1k.dio_past_eof: xfs-1k-dio: xfs 1k: mmap tail"
	# The machine lines every consumer reads instead of the TAP or the notes
	grep -q '^# IOPATH-CASE: result=known program=fb_test name=fb.xfs_1k.dio_past_eof lines=[0-9]*-[0-9]* bug=xfs-1k-dio$' <<< "$out" &&
		grep -q '^# IOPATH-CASE: result=pass program=a_test name=a.x.one lines=' <<< "$out" &&
		grep -q '^# IOPATH-PROGRAM: result=excused program=fb_test$' <<< "$out" &&
		grep -q '^# IOPATH-PROGRAM: result=pass program=a_test$' <<< "$out"
	check $? "$label: a machine line per test and per program, the excused failure with its bug"
	printf 'TAP version 13\n1..1\nnot ok 1 a.b\033[2J;rm -rf x # y\n' > "$tmp/hostile"
	out=$("$a" --kernel $k72 --program x_test --exit-status 1 \
		/dev/null /dev/null /dev/null "$tmp/hostile")
	grep -qxF '# IOPATH-CASE: result=fail program=x_test name=a.b??2J?rm?-rf?x lines=3-3' <<< "$out" &&
		! grep -q "$(printf '\033')" <<< "$(grep IOPATH-CASE <<< "$out")"
	check $? "$label: a hostile test name is one word of the machine line, no control character"
	expect "the same failure on a patched 7.2 (7.2.13-dirty): fail" 1 7.2.13-dirty "$tmp/known1" \
		'status=fail .*known=0 '
	expect "the same failure on an unlisted kernel: fail" 1 6.18.0-1-amd64 "$tmp/known1" \
		'status=fail passed=2 failed=1 known=0 .*programs_failed=1' '^# t: failed programs: fb_test'
	expect "a listed and an unlisted failure in one program: fail, both count as failures" 1 $k72 "$tmp/mixed" \
		'status=fail .*failed=2 known=0 .*programs_failed=1'
	expect "listed failure, then the program timed out: fail" 1 $k72 "$tmp/timeout" \
		'status=fail .*programs_failed=1'
	grep -qx '# IOPATH-PROGRAM: result=fail program=fb_test ended=timeout' <<< "$out" &&
		grep -qx '# IOPATH-PROGRAM: result=pass program=a_test' <<< "$out"
	check $? "$label: a program ended at its time limit: ended=timeout on its program line"
	# "# TIMEOUT" only as the runner's directive (its first '#') is one.
	{ tap_begin; program a_test 0 ok:a.x.one; program fb_test 1 fail:fb.xfs.one; } |
		sed 's/^\(not ok 2 .*# exit=1\)$/\1 # TIMEOUT 120 seconds/' > "$tmp/timeout-prose"
	run_case "$a" $k72 "$tmp/timeout-prose"
	grep -q '# exit=1 # TIMEOUT' "$tmp/timeout-prose" &&
		grep -qx '# IOPATH-PROGRAM: result=fail program=fb_test' <<< "$out"
	check $? "$label: '# TIMEOUT' after the runner's directive is no timeout"
	expect "listed failure that passed on a listed kernel: fail, names the entry" 1 $k72 "$tmp/stale" \
		'status=fail .*stale_known=1' \
		"known failure did not reproduce: fb.xfs_1k.dio_past_eof passed on $k72; .*line 3)"
	expect "a listed test passing on an unlisted kernel: pass" 0 6.12.117+deb12-amd64 "$tmp/stale" \
		'stale_known=0'
	expect "a required test skipped on a kernel with its features: fail, one line" 1 $k72 "$tmp/reqskip" \
		'status=fail .*required_missing=1' \
		'^# t: required: fb.xfs.batch_path_taken skipped on a kernel that has xfs_reflink and tracefs_iomap: no loop device$' \
		"$tmp/feat-all"
	expect "the same skip on a kernel without tracefs: pass" 0 $k72 "$tmp/reqskip" \
		'status=pass .*required_missing=0' '' "$tmp/feat-notrace"
	expect "the coverage block names each seed path and the post-test checks" 0 $k72 "$tmp/pass" \
		'status=pass' '^# t: coverage: fb-release: ran (1 passed, 0 failed)$'
	f=$(grep -c '^# t: coverage: ' <<< "$out")
	[ "$f" = 4 ] && grep -q '^# t: coverage: fb-path: NOT RUN (no test ran)$' <<< "$out" &&
		grep -q '^# t: coverage: fsck: ran after 3 tests$' <<< "$out"
	check $? "$label: coverage block: both seed paths, kernel-log check and fsck"
	expect "no program ran: fail" 1 $k72 "$tmp/empty" 'status=fail .*programs=0' 'no test program ran'
	expect_raw "all passed: pass" 0 6.18.0-1-amd64 "$tmp/raw-pass" 0 \
		'status=pass passed=2 failed=0 known=0 skipped=0 programs=1 programs_failed=0'
	expect_raw "a listed test passing on a listed kernel: fail" 1 $k72 "$tmp/raw-pass" 0 \
		'status=fail passed=2 .*stale_known=1'
	expect_raw "listed failure on a listed kernel: pass" 0 $k72 "$tmp/raw-known" 1 \
		'status=pass passed=1 failed=0 known=1 skipped=0 programs=1 programs_failed=0'
	expect_raw "the same on an unlisted kernel: fail" 1 6.18.0-1-amd64 "$tmp/raw-known" 1 \
		'status=fail passed=1 failed=1 known=0 .*programs_failed=1'
	expect_raw "listed failure, then killed by the timeout: fail" 1 $k72 "$tmp/raw-known" 124 \
		'status=fail .*known=0 .*programs_failed=1' \
		'^# IOPATH-PROGRAM: result=fail program=fb_test ended=timeout$'
	expect_raw "exit 1: no ended= word" 0 $k72 "$tmp/raw-known" 1 \
		'^# IOPATH-PROGRAM: result=excused program=fb_test$'
	expect_raw "a crash after passing tests: fail" 1 6.18.0-1-amd64 "$tmp/raw-crash" 139 \
		'status=fail passed=1 failed=1 .*programs_failed=1'
	expect_raw "listed test failing with a different diagnostic: fail" 1 $k72 "$tmp/raw-other" 1 \
		'status=fail passed=1 failed=1 known=0 ' \
		'not excused by known-failures: fb.xfs_1k.dio_past_eof: a different failure: .*size 4096, expected 69632'
	expect_raw "listed test, listed diagnostic, then a leak: fail" 1 $k72 "$tmp/raw-leak" 1 \
		'status=fail passed=1 failed=1 known=0 ' \
		'not excused by known-failures: fb.xfs_1k.dio_past_eof: a different failure: Expected 0 (0) == total (3) | 3 pages'
	expect_raw "listed test, listed diagnostic, then a kernel-log finding: fail" 1 $k72 "$tmp/raw-kmsg" 1 \
		'status=fail .*known=0 ' 'a post-test check failed'
	expect_raw "listed test, listed diagnostic, then a timeout: fail" 1 $k72 "$tmp/raw-tmo" 1 \
		'status=fail .*known=0 ' 'ended by a timeout'
	expect_raw "a required test skipped: fail with the required line" 1 $k72 "$tmp/raw-reqskip" 0 \
		'status=fail .*required_missing=1' \
		'^# t: required: fb.xfs.batch_path_taken skipped on a kernel that has xfs_reflink and tracefs_iomap: ' \
		"$tmp/feat-all"

	expect_raw "a failed check, then the harness's SKIP: a failure, never excused" 1 $k72 "$tmp/raw-skipfail" 0 \
		'status=fail passed=1 failed=1 known=0 skipped=0 ' \
		'^# t: skipped after a failed check: fb.xfs_1k.dio_past_eof: Expected 0 (0) == r (-117) | eof.000: cached byte'

	for f in '^7\.2\.13$  ^only-two-fields$:expected' \
		 '^7\.2\.  ^t$  diag  bug  reason:must match the whole uname' \
		 '^7\.2\.13$  t  diag  bug  reason:must match the whole test name' \
		 '^7\.2\.13$  ^t$  diag  Bug_Name  reason:BUG-NAME'; do
		printf '# c\n%s\n' "${f%:*}" > "$tmp/bad"
		out=$("$a" --kernel 7.2.13 "$tmp/bad" /dev/null /dev/null "$tmp/pass" 2> "$tmp/err")
		rc=$?
		[ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "bad:2: .*${f##*:}" "$tmp/err" &&
			! grep -q 'RESULT' <<< "$out"
		check $? "$label: malformed known-failures line (${f##*:}): exit 2, one line naming file:line"
	done

	out=$("$a" --kernel 7.2.13+deb14-amd64 "$top/configs/known-failures" \
		"$top/selftests/requirements" /dev/null "$tmp/pass" 2>&1)
	rc=$?
	[ "$rc" = 0 ]
	check $? "$label: configs/known-failures parses"

	# The reader the scripts use: fields split on two blanks or a tab, a
	# single space kept inside a field, the entries of one kernel.
	out=$("$a" --list "$tmp/known" 2> "$tmp/err")
	rc=$?
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' \
		'^7\.2\.13\+deb14-amd64$' '^fb\.xfs_1k\.dio_past_eof$' \
		'cached byte [0-9]+ is 0x53, expected 0x00' xfs-1k-dio 3 \
		'xfs 1k: mmap tail survives an O_DIRECT extension' \
		'^6\.1\.0-57-amd64$' '^fb\.xfs\.other$' anything some-bug 4 'something else on 6.1' > "$tmp/list-want"
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && [ "$out" = "$(cat "$tmp/list-want")" ]
	check $? "$label: list=1: every entry, split as the verdict splits it"
	out=$("$a" --list --kernel 6.1.0-57-amd64 "$tmp/known" | cut -f4)
	[ "$out" = some-bug ]
	check $? "$label: list=1 with kernel: only the entries of that release"
	printf '# c\n^7\.2\.13$  ^only-two-fields$\n' > "$tmp/bad"
	out=$("$a" --list "$tmp/bad" 2> "$tmp/err")
	rc=$?
	[ "$rc" = 2 ] && [ -z "$out" ] && grep -q "bad:2: expected" "$tmp/err"
	check $? "$label: list=1: a malformed line is exit 2, nothing listed"
	# An invalid ERE was accepted, and awk failed only when a test failed;
	# busybox awk accepted one and matched nothing. The reader checks the
	# syntax itself, as the list is read.
	printf '^7\\..*$  ^fix(*.var.t$  diag  some-bug  reason\n' > "$tmp/bad-ere"
	out=$("$a" --list "$tmp/bad-ere" 2> "$tmp/err")
	rc=$?
	"$a" --kernel 7.2.13+deb14-amd64 "$tmp/bad-ere" /dev/null /dev/null \
		"$tmp/pass" > /dev/null 2>&1
	rc2=$?
	[ "$rc" = 2 ] && [ -z "$out" ] && [ "$rc2" = 2 ] && [ -s "$tmp/err" ]
	check $? "$label: an invalid ERE is exit 2 when the list is read, before any test"
	# mawk's own message did not name the ERE: the reader's does
	[ "$(cat "$tmp/err")" = "$tmp/bad-ere:1: ERE '^fix(*.var.t\$': '*' has nothing to repeat" ]
	check $? "$label: an invalid ERE is named with its reason, in the reader's words"
	# What regex readers (gawk, mawk, busybox awk, glibc) read differently
	# is refused, not read in one reader's own way.
	for re in 'a{2}' '[a\.]' 'a)' 'a||b'; do
		printf '^7\\..*$  ^t$  %s  some-bug  reason\n' "$re" > "$tmp/bad-ere"
		"$a" --list "$tmp/bad-ere" > /dev/null 2> "$tmp/err"
		[ "$?" = 2 ] && grep -qF "ERE '$re': " "$tmp/err"
		check $? "$label: the ERE '$re' is refused, not read in one reader's own way"
	done
	ranges "$a" "$label"

	# '\.' and 40 '+': gawk's compile time doubled with each, a hang (fuzzing found it)
	printf '^7\\..*$  ^fb\\.%s$  diag  some-bug  reason\n' "$(printf '+%.0s' $(seq 40))" > "$tmp/bad-ere"
	timeout 10 "$a" --list "$tmp/bad-ere" > /dev/null 2> "$tmp/err"
	[ "$?" = 2 ] && grep -q 'a quantifier repeats a quantifier' "$tmp/err"
	check $? "$label: a quantifier on a quantifier is refused, not compiled for ever"
}

for a in "${engines[@]}"; do
	cases "$a" "${a##*/}"
done

# Every entry of the real list matches a test that exists in the sources:
# "fixture.variant.test" for each TEST_F and each variant of its fixture.
for f in "$top"/selftests/*_test.c; do
	sed -n 's/^TEST_F\(_TIMEOUT\)\{0,1\}(\([a-z0-9_]*\), *\([a-z0-9_]*\)[,)].*/\2 \3/p' "$f" | while read -r fx t; do
		{
			sed -n "s/^FIXTURE_VARIANT_ADD($fx, *\([a-z0-9_]*\)).*/\1/p" "$f"
			# the shared variant set of iomap_layout.h
			grep -q "^IOP_IOMAP_FS_VARIANTS($fx)" "$f" &&
				sed -n 's/^[[:space:]]*FIXTURE_VARIANT_ADD(f, *\([a-z0-9_]*\)).*/\1/p' \
					"$top/selftests/iomap_layout.h"
		} | sed "s/.*/$fx.&.$t/"
	done
done > "$tmp/names"
[ -s "$tmp/names" ]
check $? "test names listed from selftests/*_test.c"
while IFS=$'\t' read -r kre tre _; do
	grep -qE -- "$tre" "$tmp/names"
	check $? "known-failures entry $tre ($kre) matches an existing test"
done < <("${engines[0]}" --list "$top/configs/known-failures")
while read -r seed tre _; do
	case $seed in '#'* | '') continue ;; esac
	grep -qE -- "$tre" "$tmp/names"
	check $? "requirements entry $tre ($seed) matches an existing test"
done < "$top/selftests/requirements"

# The 6.18.44 entries of the real list excuse the failure each names, as
# the selftest prints it (its detail after the assertion), and no other:
# another path, result, errno or read method is a different failure.
# one_fail TEST FILE LINE...: one harness binary's output, TEST failing
# with the given assertion lines (file:line prefix added), exit 1.
one_fail() {
	local t=$1 f=$2 l
	shift 2
	printf 'TAP version 13\n1..1\n#  RUN           %s ...\n' "$t"
	for l in "$@"; do
		printf '# %s:100:%s:%s\n' "$f" "${t##*.}" "$l"
	done
	printf '# iopath_test.h:266:%s:after-test checks: fsck ran, kernel log ran\n' "${t##*.}"
	printf '#          FAIL  %s\nnot ok 1 %s\n' "$t" "$t"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
}
# known_618 LABEL WANT PROGRAM TEST FILE LINE...: the verdict of each
# engine on 6.18.44-fc-v1147 (or on $release) is "known" (WANT=known) or a
# failure (WANT=fail).
release=6.18.44-fc-v1147
known_618() {
	local label=$1 want=$2 prog=$3 a res
	shift 3
	one_fail "$@" > "$tmp/k618"
	for a in "${engines[@]}"; do
		res=$("$a" --kernel "$release" --tag t --program "$prog" --exit-status 1 \
			"$top/configs/known-failures" /dev/null /dev/null "$tmp/k618" |
			grep '^# IOPATH-CASE:')
		if [ "$want" = known ]; then
			grep -q 'result=known' <<< "$res"
		else
			grep -q 'result=fail' <<< "$res"
		fi
		check $? "known_failures.$(tr '.+-' '___' <<< "${release%-fc-v*}").$label (${a##*/})"
	done
}
sig=""
for p in read 'readv(1)' 'readv(2)' 'preadv2(1)' 'io_uring READ' 'io_uring READV(1)' 'io_uring READV(2)'; do
	for o in 1 511; do
		sig="$sig${sig:+; }$p 2048@16384 page+$o: 2048"
	done
done
dt=dio_align_matrix.xfs_1k.direct_reads_succeed_or_fail_as_the_alignment_rule_predicts
known_618 misaligned_buffer_inside_a_page_is_excused known dio_align_matrix_test "$dt" \
	dio_align_matrix_test.c 'Expected 0u (0) == bad (14)' "against the rule: $sig"
known_618 misaligned_buffer_refused_by_read_fixed_is_not fail dio_align_matrix_test "$dt" \
	dio_align_matrix_test.c 'Expected 0u (0) == bad (15)' \
	"against the rule: $sig; io_uring READ_FIXED 2048@16384 page+1: -22"
known_618 aligned_buffer_refused_is_not fail dio_align_matrix_test "$dt" \
	dio_align_matrix_test.c 'Expected 0u (0) == bad (1)' "against the rule: read 2048@16384 page+0: -22"
known_618 short_read_from_a_misaligned_buffer_is_not fail dio_align_matrix_test "$dt" \
	dio_align_matrix_test.c 'Expected 0u (0) == bad (1)' "against the rule: read 2048@16384 page+1: 1024"
known_618 count_alone_is_not fail dio_align_matrix_test "$dt" \
	dio_align_matrix_test.c 'Expected 0u (0) == bad (14)'
et=dio_align_matrix.ext4.direct_read_across_eof_returns_the_bytes_to_eof_on_every_path
known_618 copy_file_range_einval_at_eof_is_excused known dio_align_matrix_test "$et" \
	dio_align_matrix_test.c 'Expected (ssize_t)(eof - pos) (924) == n (-22)' \
	'O_DIRECT copy_file_range of 2048 at 261120, EOF 262044: -22 Invalid argument'
known_618 sendfile_einval_at_eof_is_not fail dio_align_matrix_test "$et" \
	dio_align_matrix_test.c 'Expected (ssize_t)(eof - pos) (924) == n (-22)' \
	'O_DIRECT sendfile of 2048 at 261120, EOF 262044: -22 Invalid argument'
known_618 copy_file_range_eio_at_eof_is_not fail dio_align_matrix_test "$et" \
	dio_align_matrix_test.c 'Expected (ssize_t)(eof - pos) (924) == n (-5)' \
	'O_DIRECT copy_file_range of 2048 at 261120, EOF 262044: -5 Input/output error'
ct=content_model.xfs_1k.seeded_random_operations_keep_every_read_equal_to_the_model
known_618 direct_read_eio_is_excused known content_model_test "$ct" content_model_test.c \
	'Expected 0 (0) == ret (-5)' \
	'seed 1, operation 9201 diverged (replay: IOPATH_SEED=1): op 9201: O_DIRECT sendfile [246784,+56320): Input/output error'
known_618 buffered_read_eio_is_not fail content_model_test "$ct" content_model_test.c \
	'Expected 0 (0) == ret (-5)' \
	'seed 1, operation 9201 diverged (replay: IOPATH_SEED=1): op 9201: sendfile [246784,+56320): Input/output error'
known_618 wrong_byte_is_not fail content_model_test "$ct" content_model_test.c \
	'Expected 0 (0) == ret (-117)' \
	'seed 1, operation 9201 diverged (replay: IOPATH_SEED=1): op 9201: O_DIRECT pread [246784,+56320): byte 246790 is 0x00, the model 0x41'
known_618 direct_read_eio_on_another_fs_is_not fail content_model_test \
	content_model.ext4_1k.seeded_random_operations_keep_every_read_equal_to_the_model content_model_test.c \
	'Expected 0 (0) == ret (-5)' \
	'seed 1, operation 9201 diverged (replay: IOPATH_SEED=1): op 9201: O_DIRECT sendfile [246784,+56320): Input/output error'

# 7.2.13 (Debian's source, the small config of iopath mutate and ab: its
# release is plain "7.2.13") has two of the three: the EIO and the
# copy_file_range EINVAL, not the single-page alignment gap. 6.1.0-50 has
# only the EINVAL: the EIO there is a failure.
release=7.2.13
known_618 direct_read_eio_is_excused known content_model_test "$ct" content_model_test.c \
	'Expected 0 (0) == ret (-5)' \
	'seed 1, operation 9201 diverged (replay: IOPATH_SEED=1): op 9201: O_DIRECT sendfile [246784,+56320): Input/output error'
known_618 copy_file_range_einval_at_eof_is_excused known dio_align_matrix_test "$et" \
	dio_align_matrix_test.c 'Expected (ssize_t)(eof - pos) (924) == n (-22)' \
	'O_DIRECT copy_file_range of 2048 at 261120, EOF 262044: -22 Invalid argument'
known_618 misaligned_buffer_inside_a_page_is_not fail dio_align_matrix_test "$dt" \
	dio_align_matrix_test.c 'Expected 0u (0) == bad (14)' "against the rule: $sig"
release=6.1.0-50-amd64
known_618 copy_file_range_einval_at_eof_is_excused known dio_align_matrix_test "$et" \
	dio_align_matrix_test.c 'Expected (ssize_t)(eof - pos) (924) == n (-22)' \
	'O_DIRECT copy_file_range of 2048 at 261120, EOF 262044: -22 Invalid argument'
known_618 direct_read_eio_is_not fail content_model_test "$ct" content_model_test.c \
	'Expected 0 (0) == ret (-5)' \
	'seed 1, operation 9201 diverged (replay: IOPATH_SEED=1): op 9201: O_DIRECT sendfile [246784,+56320): Input/output error'

# One reader: the field split of the known-failures format (two blanks or
# a tab) is written nowhere but in lib/tap_known.c, no script splits it
# with an ERE of its own.
readers=$(cd "$top" && git grep -lE -e '\(  \+\|\\t\)' -e 'split_entry\(' -- ':!lib/tap_known.c' ':!tests/tap_verdict.sh' 2> /dev/null)
[ -z "$readers" ]
check $? "known-failures read only by lib/tap_known.c${readers:+ (also: $(echo $readers))}"

finish_tap
