#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make kselftest: an installed kselftest tree through run_kselftest.sh, by
# scripts/selftest-runner.sh (the one runner: time limit, known kernel
# bugs, required coverage), plus the kernel-log check of the whole run
# (build/iopath kmsg, next to the installed tree), which sees a WARNING
# outside every test's own window too. Exits non-zero if either fails.
#
# usage: kselftest-run.sh INSTALL_DIR [run_kselftest.sh options]
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
inst=${1:?usage: kselftest-run.sh INSTALL_DIR [options]}
shift
iopath=$(cd "$(dirname "$inst")" && pwd)/iopath
mark=""
[ -x "$iopath" ] && mark=$("$iopath" kmsg mark)
"$top/scripts/selftest-runner.sh" --tag kselftest-run --coverage "$inst" "$@"
rc=$?
# It could not run at all, and said why.
[ "$rc" = 2 ] && exit 2
if [ -z "$mark" ]; then
	echo "# kselftest-run: coverage: kernel-log check of the whole run: NOT RUN (no $iopath, or no marker)"
	kmsg_rc=1
elif kmsg=$("$iopath" kmsg check "$mark" 2>&1); then
	echo "# kselftest-run: coverage: kernel-log check of the whole run: ran, clean"
	kmsg_rc=0
else
	echo "# kselftest-run: coverage: kernel-log check of the whole run: FAIL: ${kmsg%%$'\n'*}"
	kmsg_rc=1
fi
[ "$rc" = 0 ] && [ "$kmsg_rc" = 0 ]
