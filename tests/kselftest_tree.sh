#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The README's kernel-tree commands, as an integrator types them, against
# the kernel's own tools/testing/selftests Makefile and lib.mk: those of
# the tree the build unpacks for the harness (scripts/ksft-harness.sh),
# copied with what the selftests' Makefile includes into a scratch kernel
# tree:
#   scripts/kselftest-link.sh TREE
#   make -C TREE/tools/testing/selftests TARGETS=iopath install INSTALL_PATH=...
#   make -C TREE/tools/testing/selftests TARGETS=iopath run_tests
#   INSTALL_PATH/run_kselftest.sh -t iopath:PROGRAM
#   make -C TREE/tools/testing/selftests TARGETS=iopath gen_tar (what the
#     kernel's make kselftest-gen_tar runs), unpacked and run
#   make kselftest-gen_tar of this checkout, unpacked and run
# Running is one cheap program (iov_align_test; run_tests is limited to
# it with IOPATH_TESTS), as root.
#
# Catches: the collection's TEST_FILES copied from the kernel tree's
# directory, which holds only the link script's files (install failed
# with rsync: link_stat ".../selftests/iopath/requirements" failed).
#
# usage: tests/kselftest_tree.sh BUILD_DIR
set -u

build=${1:?usage: tests/kselftest_tree.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/tap.sh"

harness=$(KSRC=${KSRC:-} KSFT_SRC=${KSFT_SRC:-} "$top/scripts/ksft-harness.sh" "$build" 2> /dev/null)
if [ -z "$harness" ] || [ ! -f "$harness/Makefile" ] || [ ! -f "$harness/../../../scripts/subarch.include" ]; then
	echo "1..0 # SKIP no kernel tree with tools/testing/selftests/Makefile (scripts/ksft-harness.sh)"
	exit 0
fi
command -v rsync > /dev/null || { echo "1..0 # SKIP rsync not installed (lib.mk's install uses it)"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-ksft-tree.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# The makes below are the integrator's, not the calling make's (make
# check passes its jobserver and flags down).
unset MAKEFLAGS MFLAGS MAKELEVEL
prog=iov_align_test

# The scratch kernel tree: the selftests' Makefile, lib.mk, the harness
# and the runner, and scripts/subarch.include, which the Makefile includes.
tree=$tmp/linux
sel=$tree/tools/testing/selftests
if ! mkdir -p "$sel" "$tree/scripts" ||
	! cp -a "$harness"/kselftest* "$harness"/lib.mk "$harness"/Makefile "$harness"/run_kselftest.sh "$sel/" ||
	! cp "$harness/../../../scripts/subarch.include" "$tree/scripts/"; then
	echo "Bail out! cannot copy the kernel tree's selftests from $harness"
	exit 1
fi

"$top/scripts/kselftest-link.sh" "$tree" > "$tmp/link.log" 2>&1
check $? "kselftest_tree.link_script_makes_the_iopath_collection"

# ran_one LOG: LOG is a kselftest run of PROGRAM alone that passed.
ran_one() {
	grep -q "^ok 1 selftests: iopath: $prog\$" "$1" && ! grep -q '^not ok ' "$1"
}

# installed_collection DIR: every program, the probe, the verdict and the
# files the runners read, and the list of tests.
installed_collection() {
	local t bad=""
	for t in "$top"/selftests/*_test.c iopath_probe iopath_verdict; do
		t=${t##*/}
		t=${t%.c}
		[ -x "$1/iopath/$t" ] || bad="$bad $t"
		case $t in iopath_probe | iopath_verdict) continue ;; esac
		grep -qx "iopath:$t" "$1/kselftest-list.txt" || bad="$bad list:$t"
	done
	for t in requirements config settings; do
		cmp -s "$top/selftests/$t" "$1/iopath/$t" || bad="$bad $t"
	done
	[ -x "$1/run_kselftest.sh" ] && [ -f "$1/kselftest/runner.sh" ] || bad="$bad run_kselftest.sh"
	[ -z "$bad" ] || echo "# missing or different in $1:$bad"
	[ -z "$bad" ]
}

make -j2 -C "$sel" TARGETS=iopath install INSTALL_PATH="$tmp/inst" > "$tmp/install.log" 2>&1
rc=$?
[ "$rc" = 0 ] && installed_collection "$tmp/inst"
check $? "kselftest_tree.readme_install_command_installs_the_collection (rc $rc)"
[ "$rc" = 0 ] || grep -E 'rror|failed' "$tmp/install.log" | head -n 3 | sed 's/^/# /'

if [ "$(id -u)" != 0 ]; then
	for t in run_tests_command installed_run_kselftest gen_tar_unpacked project_gen_tar_unpacked; do
		skip "kselftest_tree.${t}_runs_$prog" "needs root (scratch filesystems)"
	done
	finish_tap
fi

make -C "$sel" TARGETS=iopath run_tests IOPATH_TESTS=$prog > "$tmp/run_tests.log" 2>&1
rc=$?
[ "$rc" = 0 ] && ran_one "$tmp/run_tests.log"
check $? "kselftest_tree.readme_run_tests_command_runs_$prog (rc $rc)"
[ "$rc" = 0 ] || tail -n 3 "$tmp/run_tests.log" | sed 's/^/# /'

"$tmp/inst/run_kselftest.sh" -t "iopath:$prog" > "$tmp/installed.log" 2>&1
rc=$?
[ "$rc" = 0 ] && ran_one "$tmp/installed.log"
check $? "kselftest_tree.installed_run_kselftest_runs_$prog (rc $rc)"

# gen_tar_run TARBALL NAME: TARBALL unpacked holds the collection, and its
# run_kselftest.sh runs the program.
gen_tar_run() {
	local d=$tmp/$2 rc
	mkdir -p "$d" && tar -x -C "$d" -f "$1" && installed_collection "$d" &&
		"$d/run_kselftest.sh" -t "iopath:$prog" > "$d.log" 2>&1
	rc=$?
	[ "$rc" = 0 ] && ran_one "$d.log"
}
make -C "$sel" TARGETS=iopath gen_tar INSTALL_PATH="$tmp/inst" > "$tmp/gen_tar.log" 2>&1 &&
	gen_tar_run "$tmp/inst/kselftest-packages/kselftest.tar.gz" kernel-tar
check $? "kselftest_tree.kernel_gen_tar_unpacked_runs_$prog"

make -s -C "$top" BUILD="$build" kselftest-gen_tar > "$tmp/project_tar.log" 2>&1 &&
	gen_tar_run "$build/kselftest.tar.gz" project-tar
check $? "kselftest_tree.make_kselftest_gen_tar_unpacked_runs_$prog"

finish_tap
