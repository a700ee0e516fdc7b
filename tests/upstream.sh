#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make upstream: the kselftest series is generated from
# selftests/iov_single_test.c, applies to the kernel tree's files it
# touches, is checkpatch --strict clean, and its test builds with the
# tree's own selftests Makefile and lib.mk, and runs; the fstests series
# carries each test of
# contrib/fstests. The generator refuses what must not go out: iopath code
# left outside #ifdef IOPATH_SUITE, a patch checkpatch complains about, a
# cover letter naming a mutant that does not exist.
#
# The kernel tree: KSRC, else KSFT_SRC or the newest
# /usr/src/linux-source-*.tar.xz (the files it needs are extracted once
# into BUILD_DIR/upstream-check); a named skip without one.
#
# usage: tests/upstream.sh BUILD_DIR
set -u

build=${1:?usage: tests/upstream.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
# --out is checked and made by iopath outdir (scripts/lib/common.bash),
# also for the copies of the tree below, which have no build of their own.
export IOPATH_BIN
IOPATH_BIN=$(cd "$build" && pwd)/iopath
. "$top/tests/lib/tap.sh"

ktree=()
if [ -n "${KSRC:-}" ]; then
	ktree=(--ksrc "$KSRC")
else
	tar=${KSFT_SRC:-$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)}
	[ -n "$tar" ] && ktree=(--ksrc-tar "$tar")
fi
if [ ${#ktree[@]} = 0 ]; then
	echo "1..0 # SKIP no kernel tree: set KSRC=/path/to/linux or install linux-source-6.12"
	exit 0
fi
# The series' author is whoever runs it; a machine without a git identity
# gets a placeholder here.
git var GIT_AUTHOR_IDENT > /dev/null 2>&1 ||
	export GIT_AUTHOR_NAME="iopath check" GIT_AUTHOR_EMAIL="check@iopath.invalid"
for t in git perl; do
	if ! command -v "$t" > /dev/null; then
		echo "1..0 # SKIP $t not installed"
		exit 0
	fi
done

mkdir -p "$build/upstream-check" || { echo "Bail out! cannot create $build/upstream-check"; exit 1; }
work=$(cd "$build/upstream-check" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-upstream.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# gen TREE OUT: upstream.sh of TREE into OUT (the extraction cache shared).
gen() {
	mkdir -p "$2" && ln -sfn "$work/.ksrc" "$2/.ksrc"
	"$1/scripts/upstream.sh" "${ktree[@]}" --out "$2" > "$2.log" 2>&1
}

mkdir -p "$work/.ksrc"
gen "$top" "$tmp/out"
rc=$?
check $rc "upstream.series_generated"
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/out.log"
ks=$tmp/out/kselftest
ksrc=${KSRC:-$work/.ksrc/$(basename "${tar:-}" | sed 's/\.tar\..*//')}

mapfile -t patches < <(ls "$ks"/0*.patch 2>/dev/null)
[ "${#patches[@]}" -ge 2 ] && [ "$(basename "${patches[0]}")" = 0000-cover-letter.patch ] &&
	! grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE' "${patches[0]}"
check $? "upstream.kselftest_cover_letter_and_patches (${#patches[@]} files)"

n=$(grep -c '^total: 0 errors, 0 warnings, 0 checks' "$ks/checkpatch.log" 2>/dev/null)
[ "${#patches[@]}" -ge 2 ] && [ "$n" = $((${#patches[@]} - 1)) ]
check $? "upstream.kselftest_checkpatch_strict_clean ($n of $((${#patches[@]} - 1)) patches)"

# The test's sources in the series are the selftest's without iopath's
# parts: the test and its io_uring side.
# series_file NAME: the file the series adds under filesystems/iov_single/
series_file() {
	awk -v f="+++ b/tools/testing/selftests/filesystems/iov_single/$1" '
		$0 == f { on = 1; next }
		on && /^(diff|-- $)/ { on = 0 }
		on && /^\+/ { print substr($0, 2) }' "${patches[@]:1}" > "$tmp/$1"
}
src=$tmp/iov_single_test.c
series_file iov_single_test.c
series_file iov_single_uring.h
[ -s "$src" ] && grep -q 'FIXTURE_VARIANT_ADD(iov_single, unix_stream)' "$src" &&
	grep -q 'io_uring_prep_rw' "$tmp/iov_single_uring.h" &&
	! grep -Eqi 'iopath|\biop_|IOP_FS_' "$src" "$tmp/iov_single_uring.h" &&
	grep -q 'FIXTURE_VARIANT_ADD(iov_single, unix_stream)' "$top/selftests/iov_single_test.c"
check $? "upstream.kselftest_test_is_the_selftest_without_iopath"

# Applies to the kernel tree's own copies of the files it changes.
base=$tmp/base
sel=$base/tools/testing/selftests
mkdir -p "$sel" "$base/scripts"
cp "$ksrc/MAINTAINERS" "$base/" 2>/dev/null &&
	cp "$ksrc/tools/testing/selftests/Makefile" "$sel/" &&
	(cd "$base" && git apply --check "${patches[@]:1}") > "$tmp/apply.log" 2>&1
rc=$?
check $rc "upstream.kselftest_applies_to_the_tree"
[ "$rc" = 0 ] || sed 's/^/# /' "$tmp/apply.log"

# Builds where it says it does: applied to the tree, by the tree's own
# selftests Makefile and lib.mk (make -C tools/testing/selftests
# TARGETS=filesystems/iov_single), which put no -I for the selftests
# directory on the command line; then the test runs (pipes, a socket,
# /dev/zero and a tmpfs file: no privilege needed).
# The tree's build files from the harness the build extracts from it
# (scripts/ksft-harness.sh), not from what upstream.sh itself took.
harness=$(KSRC=${KSRC:-} KSFT_SRC=${KSFT_SRC:-} "$top/scripts/ksft-harness.sh" "$build" 2>/dev/null)
if [ -z "$harness" ] || [ ! -f "$harness/lib.mk" ] || [ ! -f "$harness/../../../scripts/subarch.include" ]; then
	skip "upstream.kselftest_builds_with_the_trees_lib_mk" "no kselftest harness with lib.mk and scripts/subarch.include"
else
	cp "$harness"/{lib.mk,kselftest.h,kselftest_harness.h} "$sel/" &&
		cp "$harness/../../../scripts/subarch.include" "$base/scripts/" &&
		(cd "$base" && git apply "${patches[@]:1}") > "$tmp/build.log" 2>&1 &&
		(unset MAKEFLAGS MFLAGS MAKELEVEL; make -C "$sel" TARGETS=filesystems/iov_single) >> "$tmp/build.log" 2>&1
	rc=$?
	bin=$sel/filesystems/iov_single/iov_single_test
	[ "$rc" = 0 ] && [ -x "$bin" ]
	check $? "upstream.kselftest_builds_with_the_trees_lib_mk (rc $rc)"
	[ "$rc" = 0 ] || grep -m 3 -E 'error|Error' "$tmp/build.log" | sed 's/^/# /'
	if [ -x "$bin" ]; then
		(cd "$tmp" && timeout 120 "$bin") > "$tmp/run.log" 2>&1
		rc=$?
		[ "$rc" = 0 ] && grep -q '^# Totals: pass:[1-9][0-9]* fail:0 ' "$tmp/run.log"
		check $? "upstream.kselftest_test_runs_as_built_by_lib_mk (rc $rc)"
		[ "$rc" = 0 ] || grep -E '^(not ok|# Totals)' "$tmp/run.log" | head -n 3 | sed 's/^/# /'
	fi
fi

# The fstests series: a patch per test of contrib/fstests, each adding
# the test and its golden output.
nt=$(find "$top/contrib/fstests/tests/generic" -maxdepth 1 -regextype posix-extended \
	-regex '.*/[0-9]+' | wc -l)
np=$(find "$tmp/out/fstests" -maxdepth 1 -name '0*.patch' ! -name 0000-cover-letter.patch | wc -l)
nadd=$(cat "$tmp"/out/fstests/0*.patch 2>/dev/null | grep -c '^new file mode 100755')
[ "$nt" -ge 1 ] && [ "$np" = "$nt" ] && [ "$nadd" = "$nt" ]
check $? "upstream.fstests_series_has_each_test ($np patches, $nt tests)"

# fstests' rules for a new test (its ./new script, common/rc): the
# copyright line, the page size from _get_page_size and not a literal, no
# sleep to poll, and a test that fails on current kernels names the fix,
# fstests' pending form (xxxxxxxxxxxx) where none is merged: generic/788
# fails on ext4 on every kernel (contrib/fstests/README.md).
bad=""
for p in "$tmp"/out/fstests/0*.patch; do
	[ "${p##*/}" = 0000-cover-letter.patch ] && continue
	awk '/^\+\+\+ b\/tests\/generic\/[0-9]+$/ { on = 1; next }
	     on && /^(diff|-- $)/ { on = 0 }
	     on && /^\+/ { print substr($0, 2) }' "$p" > "$tmp/fstest"
	num=$(sed -n 's/^# FS QA Test No\. //p' "$tmp/fstest")
	sed -n 3p "$tmp/fstest" | grep -Eq '^# Copyright \(c\) [0-9]{4} .+\.  All Rights Reserved\.$' || bad="$bad $num:copyright"
	! grep -Eq 'mmap [^"]*\b4096\b|mwrite [^"]*\b(3096|1095)\b' "$tmp/fstest" || bad="$bad $num:page-size"
	! grep -Eq '^[^#]*\bsleep\b' "$tmp/fstest" || bad="$bad $num:sleep"
	if grep -q 'O_DIRECT write past EOF: \[1000, 8192) must now read as zeros' "$tmp/fstest"; then
		grep -Eq '^\[ "\$FSTYP" = "ext4" \] && _fixed_by_kernel_commit [0-9a-fx]{12} ' "$tmp/fstest" ||
			bad="$bad $num:fixed-by"
	fi
done
[ "$np" -ge 1 ] && [ -z "$bad" ]
check $? "upstream.fstests_tests_follow_fstests_rules${bad:+ (not:$bad)}"

# generic/788 names a fix on each filesystem it fails on with v6.18 (a
# real fstests run, docs/upstream.md): ext4, and tmpfs, which zeroes the
# EOF page's tail on no extension (fstests' own generic/363 fails there).
t788=$(grep -l '^+# FS QA Test No\. 788$' "$tmp"/out/fstests/0*.patch 2>/dev/null | head -n 1)
missing=""
for fs in ext4 tmpfs; do
	grep -Eq "^\+\[ \"\\\$FSTYP\" = \"$fs\" \] && _fixed_by_kernel_commit [0-9a-fx]{12} " "${t788:-/dev/null}" ||
		missing="$missing $fs"
done
[ -n "$t788" ] && [ -z "$missing" ]
check $? "upstream.fstests_788_names_a_fix_on_each_filesystem_it_fails${missing:+ (none for:$missing)}"

# What must not go out. A copy of the files the generator reads, changed
# one way at a time.
copy() {
	rm -rf "$tmp/tree"
	mkdir -p "$tmp/tree/selftests" "$tmp/tree/configs"
	cp -r "$top/scripts" "$top/contrib" "$tmp/tree/" &&
		cp -r "$top/configs/mutants" "$tmp/tree/configs/" &&
		cp "$top"/selftests/iov_single_{test.c,uring.h} "$tmp/tree/selftests/" &&
		git -C "$tmp/tree" init -q
}
copy && sed -i '0,/^static unsigned char src_byte/s//static int iop_leak;\n&/' "$tmp/tree/selftests/iov_single_test.c"
gen "$tmp/tree" "$tmp/leak"
rc=$?
[ "$rc" = 1 ] && grep -q "keeps iopath's own code" "$tmp/leak.log" && [ ! -e "$tmp/leak/kselftest" ]
check $? "upstream.refuses_iopath_code_outside_ifdef (exit $rc)"

copy && sed -i '0,/^static unsigned char src_byte/s//static int long_line_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx;\n&/' \
	"$tmp/tree/selftests/iov_single_test.c"
gen "$tmp/tree" "$tmp/style"
rc=$?
[ "$rc" = 1 ] && grep -q 'checkpatch is not clean' "$tmp/style.log" &&
	grep -q 'line length of' "$tmp/style/kselftest/checkpatch.log"
check $? "upstream.fails_on_a_checkpatch_complaint (exit $rc)"

copy && echo "Killed by 99-no-such-mutant." >> "$tmp/tree/contrib/kselftest/series/cover.txt"
gen "$tmp/tree" "$tmp/mutant"
rc=$?
[ "$rc" != 0 ] && grep -q '99-no-such-mutant, named in' "$tmp/mutant.log"
check $? "upstream.refuses_an_unknown_mutant_in_a_cover_letter (exit $rc)"

finish_tap
