#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run an installed kselftest tree and exit non-zero if any test failed.
# The output goes through a pipe: run_kselftest.sh re-opens /dev/stdout in
# append mode and jumbles lines written to a plain file. Older runners
# (6.1) exit 0 even when a test failed, so the verdict is read from the
# top-level TAP lines instead of trusting the runner's status.
#
# usage: kselftest-run.sh INSTALL_DIR [run_kselftest.sh options]
set -uo pipefail

inst=${1:?usage: kselftest-run.sh INSTALL_DIR [options]}
shift
cd "$inst" || exit 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
./run_kselftest.sh "$@" | tee "$log"
rc=${PIPESTATUS[0]}
if grep -qE '^not ok [0-9]+' "$log"; then
	exit 1
fi
if ! grep -qE '^ok [0-9]+' "$log"; then
	echo "kselftest-run: no test ran" >&2
	exit 1
fi
exit "$rc"
