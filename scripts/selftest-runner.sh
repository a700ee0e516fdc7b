#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The selftest runner: the one place that starts a selftest program. make
# check, iopath run, make kselftest, the iopath vm guest's /init and the
# LAVA guest all run the collection through it, so its time limit and its
# verdict are the same everywhere:
#
#   - it probes the kernel's features (the collection's iopath_probe);
#   - it starts the programs with the installed tree's run_kselftest.sh,
#     as a fleet does: each under GNU timeout, for the collection's
#     `settings` timeout= or the -o given; without GNU timeout the
#     kselftest runner would run them with no limit at all, so it refuses;
#   - it judges their TAP with the collection's iopath_verdict (the
#     verdict engine of lib/tap.c, a static program): the kernel bugs the
#     known-failures list places on this kernel are excused, and the
#     required-coverage rule holds: a test `requirements` lists that
#     skipped on a kernel with every feature it needs fails the run, and
#     so does a probe that failed (the coverage cannot be judged).
#
# Output: the features ("# TAG: feature LINE"), run_kselftest.sh's TAP,
# then the verdict (notes, with --coverage the coverage block, the result
# line "# RESULT: status=... seconds=N"). Exit status: the verdict's (0
# pass, 1 fail); 2 after one line on stderr when it cannot run at all.
# busybox sh runs it in the VM guest: POSIX sh, and the collection's
# own programs for the probe and the verdict.
#
# usage: selftest-runner.sh [options] INSTALL_DIR [run_kselftest.sh options]
#   --known FILE   the known-failures list (default $IOPATH_KNOWN_FAILURES,
#                  else configs/known-failures beside this script's directory)
#   --tag NAME     the verdict's notes say "# NAME: ..." (default selftests)
#   --result WORD  the result line's word (default IOPATH-RESULT)
#   --coverage     print the coverage block
#   --judge TAP    start nothing: judge TAP, this runner's output of
#                  earlier runs put together (the coverage block of a run
#                  made of one runner call per program)
set -u

here=$(cd "$(dirname "$0")" && pwd)
known=${IOPATH_KNOWN_FAILURES:-$here/../configs/known-failures}
tag=selftests
result=IOPATH-RESULT
coverage=0
judge=""

die() {
	echo "selftest-runner: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--known|--tag|--result|--judge)
		[ $# -ge 2 ] || die "$1 needs a value"
		case $1 in
		--known) known=$2 ;;
		--tag) tag=$2 ;;
		--result) result=$2 ;;
		--judge) judge=$2 ;;
		esac
		shift 2 ;;
	--coverage) coverage=1; shift ;;
	--) shift; break ;;
	-*) die "unknown option '$1'" ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || die "usage: selftest-runner.sh [options] INSTALL_DIR [run_kselftest.sh options]"
inst=$1
shift
[ -x "$inst/run_kselftest.sh" ] || die "$inst: no run_kselftest.sh (make kselftest-install)"
[ -r "$inst/iopath/requirements" ] || die "$inst/iopath/requirements: cannot read it"
verdict=$inst/iopath/iopath_verdict
[ -x "$verdict" ] || die "$verdict: no verdict program in the collection (make kselftest-install)"
# /dev/null: no failure is excused; anything else but a file would be
# read for ever.
[ "$known" = /dev/null ] || { [ -f "$known" ] && [ -r "$known" ]; } ||
	die "$known: cannot read the known-failures list"
# A malformed list stops here, before anything runs, with its line.
err=$("$verdict" --list "$known" 2>&1 > /dev/null) ||
	die "$(echo "$err" | head -n 1)"
[ -z "$judge" ] || [ -r "$judge" ] || die "--judge $judge: cannot read it"
# run_kselftest.sh calls /usr/bin/timeout --foreground, or nothing at all.
if [ -z "$judge" ] && ! /usr/bin/timeout --foreground 5 true 2> /dev/null; then
	die "no GNU /usr/bin/timeout: run_kselftest.sh would run the programs without a time limit"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-selftests.XXXXXX") || die "no temporary directory"
trap 'rm -rf "$tmp"' EXIT
trap 'rm -rf "$tmp"; trap - INT; kill -INT $$' INT
trap 'rm -rf "$tmp"; trap - TERM; kill -TERM $$' TERM

# The kernel's features, probed for this run: what `requirements` is
# judged by. A probe that fails leaves a line the verdict fails on.
/usr/bin/timeout 60 "$inst/iopath/iopath_probe" > "$tmp/features" 2> "$tmp/probe.err"
rc=$?
if [ "$rc" != 0 ]; then
	echo "probe-failed exit $rc: $(head -n 1 "$tmp/probe.err")" > "$tmp/features"
fi
while IFS= read -r f; do
	echo "# $tag: feature $f"
done < "$tmp/features"

uptime() { cut -d' ' -f1 /proc/uptime 2> /dev/null || echo 0; }
start=$(uptime)
if [ -n "$judge" ]; then
	cp "$judge" "$tmp/tap" || die "--judge $judge: cannot copy it"
else
	# Through a pipe: run_kselftest.sh re-opens /dev/stdout for appending,
	# which jumbles the lines in a plain file. Its own exit status says
	# nothing (6.1's is 0 whatever failed); the verdict reads the TAP.
	(cd "$inst" && ./run_kselftest.sh "$@" 2>&1) | tee "$tmp/tap"
fi
end=$(uptime)

cov=""
[ "$coverage" = 1 ] && cov=--coverage
# shellcheck disable=SC2086 # $cov: the option, or no word at all
"$verdict" --kernel "$(uname -r)" --tag "$tag" --result "$result" $cov \
	--start "$start" --end "$end" \
	"$known" "$inst/iopath/requirements" "$tmp/features" "$tmp/tap"
