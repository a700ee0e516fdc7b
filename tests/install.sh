#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make install into a DESTDIR gives a working copy: iopath repro finds its
# runner, the reproducers and the known-failures list and runs a
# reproducer (as root) with the result the list expects; iopath mutate
# --list lists the mutants. Plain make (build only) asks for build-time
# packages alone: run-time packages (fio, gnuplot, xfsprogs) are asked
# for by the targets that run something.
#
# Catches: a script or data directory missing from the install target (the
# installed iopath repro failed with "repro.sh: No such file or
# directory"), and a deps group of run-time packages back on make's path.
#
# usage: tests/install.sh BUILD_DIR
set -u

build=${1:?usage: tests/install.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/tap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The installed collection every path starts the selftests from, before
# the dry runs below: make -n must leave it alone (a recipe make runs even
# then once swapped in a tree its inner, dry, makes left empty).
ksft_before=$(stat -c %i "$build/kselftest" 2> /dev/null; cat "$build/kselftest/kselftest-list.txt" 2> /dev/null)
deps=$(make -C "$top" -n BUILD="$build" all 2> /dev/null | grep -o 'scripts/deps.sh[^;&|]*' | sort -u)
[ "$deps" = "scripts/deps.sh build" ]
check $? "install.plain_make_asks_for_build_packages_only${deps:+ ($(echo $deps))}"
for t in run check bench kselftest repro; do
	make -C "$top" -n BUILD="$build" "$t" 2> /dev/null | grep -q 'scripts/deps.sh run'
	check $? "install.make_${t}_asks_for_run_time_packages"
done
# LAVA (lava-dispatcher, 212 MB) only for make lava-run, never for make check.
! make -C "$top" -n BUILD="$build" check 2> /dev/null | grep -q 'scripts/deps.sh.*lava' &&
	make -C "$top" -n BUILD="$build" lava-run KERNEL=k 2> /dev/null | grep -q 'scripts/deps.sh lava$'
check $? "install.lava_packages_for_make_lava_run_only"
[ "$(stat -c %i "$build/kselftest" 2> /dev/null; cat "$build/kselftest/kselftest-list.txt" 2> /dev/null)" = "$ksft_before" ]
check $? "install.make_n_leaves_the_installed_collection_alone"

if ! make -C "$top" -s BUILD="$build" DESTDIR="$tmp/dest" PREFIX=/usr/local install > "$tmp/install.log" 2>&1; then
	not_ok "install.destdir" "$(tail -n 5 "$tmp/install.log")"
	finish_tap
fi
ok "install.destdir"
iopath=$tmp/dest/usr/local/bin/iopath

out=$(env -u IOPATH_SRC "$iopath" repro --list 2>&1)
rc=$?
[ "$rc" = 0 ] && [ "$out" = "$(cd "$top/reproducers" && ls -- *.sh | sed 's/\.sh$//')" ]
check $? "install.repro_list_from_the_installed_copy"

out=$(env -u IOPATH_SRC "$iopath" mutate --list 2>&1)
rc=$?
nm=$(ls "$top"/configs/mutants/*.patch | wc -l)
[ "$rc" = 0 ] && [ "$(wc -l <<< "$out")" = "$nm" ] && grep -q '^01-iter-fbatch-not-released ' <<< "$out"
check $? "install.mutate_list_from_the_installed_copy ($nm mutants)"

if [ "$(id -u)" != 0 ]; then
	skip "install.repro_runs_from_the_installed_copy" "needs root"
else
	# ext4-dio-extend-mmap-tail: the list names every kernel it is seen on;
	# exit 0 is the result the list expects, whichever it is.
	out=$(env -u IOPATH_SRC "$iopath" repro ext4-dio-extend-mmap-tail 2>&1)
	rc=$?
	[ "$rc" = 0 ] && grep -Eq '^ext4-dio-extend-mmap-tail: (not )?reproduced$' <<< "$out" &&
		grep -q ' 1 run, .* 0 differing' <<< "$out"
	check $? "install.repro_runs_from_the_installed_copy"
	[ "$rc" = 0 ] || sed 's/^/# /' <<< "$out"
fi

finish_tap
