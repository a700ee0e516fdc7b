#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run an installed kselftest tree and exit non-zero if any test failed.
# The output goes through a pipe: run_kselftest.sh re-opens /dev/stdout in
# append mode and jumbles lines written to a plain file. Older runners
# (6.1) exit 0 even when a test failed, so the verdict is read from the
# TAP by scripts/tap-verdict.awk, which excuses only the kernel bugs
# configs/known-failures lists for the running kernel
# (IOPATH_KNOWN_FAILURES=/dev/null: excuse none), and which fails the run
# when a test skipped on a kernel that has every feature the collection's
# `requirements` says it needs (iopath_probe, run once here).
#
# usage: kselftest-run.sh INSTALL_DIR [run_kselftest.sh options]
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
known=${IOPATH_KNOWN_FAILURES:-$top/configs/known-failures}
inst=${1:?usage: kselftest-run.sh INSTALL_DIR [options]}
shift
[ -r "$known" ] || { echo "kselftest-run: $known: cannot read the known-failures list" >&2; exit 2; }
# build/iopath, next to the installed tree, for the whole-run kernel-log check
iopath=$(cd "$(dirname "$inst")" && pwd)/iopath
cd "$inst" || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
features=$(mktemp)
trap 'rm -f "$log" "$features"' EXIT
if ! ./iopath/iopath_probe > "$features"; then
	echo "kselftest-run: iopath/iopath_probe failed: the required coverage cannot be judged" >&2
	exit 1
fi
# The kernel-log check of the whole run (build/iopath kmsg, next to the
# installed tree): a WARNING outside every test's own window counts too.
mark=""
[ -x "$iopath" ] && mark=$("$iopath" kmsg mark)
./run_kselftest.sh "$@" | tee "$log"
if [ -z "$mark" ]; then
	echo "# kselftest-run: coverage: kernel-log check of the whole run: NOT RUN (no $iopath, or no marker)" >&2
	kmsg_rc=1
elif kmsg=$("$iopath" kmsg check "$mark" 2>&1); then
	echo "# kselftest-run: coverage: kernel-log check of the whole run: ran, clean" >&2
	kmsg_rc=0
else
	echo "# kselftest-run: coverage: kernel-log check of the whole run: FAIL: ${kmsg%%$'\n'*}" >&2
	kmsg_rc=1
fi
awk -v kernel="$(uname -r)" -v tag=kselftest-run -v coverage=1 -f "$top/scripts/tap-verdict.awk" \
	"$known" iopath/requirements "$features" "$log" >&2 && [ "$kmsg_rc" = 0 ]
