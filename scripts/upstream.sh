#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make upstream: the patch series for kernel and fstests maintainers, made
# from this tree (docs/upstream.md).
#
#   OUT/kselftest/  a `git format-patch` series (cover letter and patches)
#                   against the kernel tree KSRC adding
#                   tools/testing/selftests/filesystems/iov_single/. The test
#                   is selftests/iov_single_test.c (and its io_uring side,
#                   iov_single_uring.h) with iopath's own parts
#                   (#ifdef IOPATH_SUITE) removed by unifdef; the files
#                   around it and the texts are contrib/kselftest/. Every
#                   patch is held to KSRC's checkpatch.pl --strict --no-tree
#                   (OUT/kselftest/checkpatch.log).
#   OUT/fstests/    the tests of contrib/fstests/tests/generic, one patch
#                   each with a cover letter (texts: contrib/fstests/series),
#                   against the fstests checkout FSTESTS (renumbered to its
#                   next free numbers where a number is taken), or as new
#                   files against nothing when no checkout is given.
#
# Nothing is written outside OUT; each series replaces the last one whole.
# Author and Signed-off-by are whoever runs this (git var GIT_AUTHOR_IDENT):
# the sign-off is theirs to give when they send the series.
#
# usage: upstream.sh [--ksrc DIR | --ksrc-tar TARBALL] [--fstests DIR] --out DIR
# Exit: 0 both series written and checkpatch-clean, 1 otherwise, 2 bad usage.
set -u

prog="iopath: upstream"
top=$(cd "$(dirname "$0")/.." && pwd)
# usage_error, fail
# shellcheck source=scripts/lib/common.bash
. "$top/scripts/lib/common.bash"

# What the kselftest series adds, and where.
KSFT_DIR=tools/testing/selftests/filesystems/iov_single
KSFT_TARGET=filesystems/iov_single
# The test and its io_uring side, each without iopath's parts.
KSFT_SOURCES="selftests/iov_single_test.c selftests/iov_single_uring.h"
# The MAINTAINERS section that owns lib/iov_iter.c, which the test exercises.
KSFT_SECTION="USERSPACE COPYIN/COPYOUT (UIOVEC)"
# The members of a kernel tree the series needs: to make it, to check it,
# and to build its test with the tree's own selftests Makefile and lib.mk.
KSRC_BUILD_FILES="tools/testing/selftests/lib.mk tools/testing/selftests/kselftest.h
tools/testing/selftests/kselftest_harness.h scripts/subarch.include"
KSRC_FILES="MAINTAINERS tools/testing/selftests/Makefile scripts/checkpatch.pl
scripts/spelling.txt scripts/const_structs.checkpatch scripts/unifdef.c $KSRC_BUILD_FILES"

usage() {
	echo "usage: upstream.sh [--ksrc DIR | --ksrc-tar TARBALL] [--fstests DIR] --out DIR" >&2
	exit 2
}

ksrc=""
ksrc_tar=""
fstests=""
out=""
while [ $# -gt 0 ]; do
	case $1 in
	--ksrc|--ksrc-tar|--fstests|--out)
		[ $# -ge 2 ] && [ -n "$2" ] || usage_error "$1 needs a value"
		case $1 in
		--ksrc) ksrc=$2 ;;
		--ksrc-tar) ksrc_tar=$2 ;;
		--fstests) fstests=$2 ;;
		--out) out=$2 ;;
		esac
		shift 2 ;;
	-h|--help) usage ;;
	*) usage_error "unknown argument '$1' (see --help)" ;;
	esac
done
[ -n "$out" ] || usage_error "--out DIR is required"
[ -z "$ksrc" ] || [ -z "$ksrc_tar" ] || usage_error "--ksrc and --ksrc-tar: one or the other"
# No tree named: the harness's order (scripts/ksft-harness.sh): KSRC, then
# KSFT_SRC, then the newest /usr/src/linux-source-*.tar.xz.
if [ -z "$ksrc$ksrc_tar" ]; then
	ksrc=${KSRC:-}
	[ -n "$ksrc" ] || ksrc_tar=${KSFT_SRC:-$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)}
	[ -n "$ksrc$ksrc_tar" ] ||
		usage_error "no kernel tree: set KSRC=/path/to/linux (or install linux-source-6.12)"
fi
if [ -n "$ksrc" ]; then
	[ -f "$ksrc/MAINTAINERS" ] && [ -f "$ksrc/tools/testing/selftests/Makefile" ] ||
		usage_error "--ksrc: $ksrc is not a kernel tree (no MAINTAINERS or tools/testing/selftests/Makefile)"
	ksrc=$(cd "$ksrc" && pwd)
fi
[ -z "$ksrc_tar" ] || [ -f "$ksrc_tar" ] || usage_error "--ksrc-tar: $ksrc_tar: no such file"
if [ -n "$fstests" ]; then
	[ -d "$fstests/tests/generic" ] && [ -f "$fstests/common/preamble" ] ||
		usage_error "--fstests: $fstests is not an fstests checkout (no tests/generic or common/preamble)"
	git -C "$fstests" rev-parse --verify -q HEAD > /dev/null ||
		usage_error "--fstests: $fstests is not a git checkout"
fi
for t in git perl "${CC:-cc}"; do
	command -v "$t" > /dev/null || fail "$t not found (apt-get install git perl build-essential)"
done
# The C commands' rule: made if missing, not its parents; no link, no
# control character (scripts/lib/common.bash, iopath outdir).
out=$(out_dir --out "$out") || exit

ident=$(git -C "$top" var GIT_AUTHOR_IDENT) || fail "no author identity: set git config user.name and user.email"
author=${ident% * *}
author_name=${author% <*}
author_email=${author##*<}
author_email=${author_email%>}
# The series is dated by this tree's last commit: the same tree gives the
# same patches.
date=$(git -C "$top" log -1 --format=%cD 2>/dev/null) || date="Thu, 1 Jan 2026 00:00:00 +0000"

tmp=$(mktemp -d "$out/.work.XXXXXX") || fail "cannot create a directory in $out"
trap 'rm -rf "$tmp"' EXIT

# A kernel tarball gives the members the series needs, once per tarball.
if [ -n "$ksrc_tar" ]; then
	name=$(basename "$ksrc_tar")
	name=${name%.tar.*}
	cache=$out/.ksrc/$name
	want="$ksrc_tar $(stat -c %Y "$ksrc_tar") ${KSRC_FILES//$'\n'/ }"
	if [ "$(cat "$cache/.stamp" 2>/dev/null)" != "$want" ]; then
		echo "$prog: extracting $(echo "$KSRC_FILES" | wc -w) files from $ksrc_tar" >&2
		rm -rf "$cache" && mkdir -p "$tmp/x" || fail "cannot create $cache"
		members=()
		for f in $KSRC_FILES; do members+=("$name/$f"); done
		tar -x -C "$tmp/x" -f "$ksrc_tar" --use-compress-program='xz -d -T0' "${members[@]}" ||
			fail "$ksrc_tar: cannot extract ${members[*]}"
		mkdir -p "$(dirname "$cache")" && mv "$tmp/x/$name" "$cache" || fail "cannot create $cache"
		echo "$want" > "$cache/.stamp"
	fi
	ksrc=$cache
fi
for f in $KSRC_FILES; do
	[ -f "$ksrc/$f" ] || usage_error "the kernel tree $ksrc has no $f"
done

# git in a scratch repository of its own: the series' author, fixed dates.
sgit() {
	GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
		git -C "$repo" -c user.name="$author_name" -c user.email="$author_email" \
		-c core.hooksPath=/dev/null -c commit.gpgsign=false "$@"
}

# commit_msg FILE: the commit message FILE holds (subject line, body), with
# the sign-off.
commit_msg() {
	cat "$1"
	printf '\nSigned-off-by: %s\n' "$author"
}

# fill_cover DIR TEXT: the cover letter format-patch left in DIR gets TEXT's
# subject (first line) and body (after the blank second line).
fill_cover() {
	local cover subject
	cover=$(ls "$1"/0000-cover-letter.patch) || return 1
	subject=$(head -n 1 "$2")
	awk -v subject="$subject" -v body="$2" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
		/^\*\*\* BLURB HERE \*\*\*$/ {
			while ((getline l < body) > 0)
				if (++n > 2) print l
			next
		}
		{ print }' "$cover" > "$cover.new" && mv "$cover.new" "$cover"
}

# check_mutants TEXT...: every mutant a text names is one of configs/mutants.
check_mutants() {
	local m bad=0
	for m in $(grep -ohE '\b[0-9]{2}-[a-z0-9]+(-[a-z0-9]+)+\b' "$@" | sort -u); do
		if [ ! -f "$top/configs/mutants/$m.patch" ]; then
			echo "$prog: $m, named in $*, is not a mutant of configs/mutants" >&2
			bad=1
		fi
	done
	return $bad
}

# publish DIR NAME: DIR replaces OUT/NAME.
publish() {
	[ -L "$out/$2" ] && fail "$out/$2 is a symbolic link"
	rm -rf "${out:?}/$2" && mv "$1" "$out/$2" || fail "cannot write $out/$2"
}

# ---- the kselftest series ---------------------------------------------------

unifdef_bin() {
	if command -v unifdef > /dev/null; then
		command -v unifdef
		return
	fi
	"${CC:-cc}" -O2 -o "$tmp/unifdef" "$ksrc/scripts/unifdef.c" 2> "$tmp/unifdef.log" ||
		fail "cannot build unifdef from $ksrc/scripts/unifdef.c: $(head -n 1 "$tmp/unifdef.log")"
	echo "$tmp/unifdef"
}

# The test as the kernel gets it, into DIR: iopath's parts removed, and
# nothing of iopath left.
kselftest_sources() {
	local u rc f
	u=$(unifdef_bin) || exit 1
	for f in $KSFT_SOURCES; do
		"$u" -B -UIOPATH_SUITE -o "$1/$(basename "$f")" "$top/$f"
		rc=$?
		[ "$rc" -le 1 ] || fail "unifdef failed on $f"
		if grep -nEi 'iopath|\biop_' "$1/$(basename "$f")" > "$tmp/left"; then
			fail "$f keeps iopath's own code outside #ifdef IOPATH_SUITE: $(head -n 1 "$tmp/left")"
		fi
	done
}

# kselftest_build REPO: the test builds in REPO (the series applied) as
# the tree's own selftests Makefile and lib.mk build it, warnings shown,
# liburing as found here. The tree's build files are copied in after the
# patches are made: they are not part of the series.
kselftest_build() {
	local f
	for f in $KSRC_BUILD_FILES; do
		mkdir -p "$1/$(dirname "$f")" && cp "$ksrc/$f" "$1/$f" || fail "cannot copy $ksrc/$f"
	done
	(
		unset MAKEFLAGS MFLAGS MAKELEVEL
		make -C "$1/tools/testing/selftests" TARGETS="$KSFT_TARGET"
	) > "$tmp/build.log" 2>&1 && [ -x "$1/$KSFT_DIR/iov_single_test" ] ||
		fail "the kselftest series does not build with $ksrc's own lib.mk ($KSFT_TARGET): $(grep -m 1 -E 'error|Error' "$tmp/build.log")"
	echo "$prog: $KSFT_TARGET builds with the tree's lib.mk" >&2
}

kselftest_series() {
	local repo=$tmp/linux series=$tmp/kselftest f
	check_mutants "$top"/contrib/kselftest/series/*.txt || exit 1
	mkdir -p "$repo" "$series"
	sgit init -q || fail "git init failed"
	for f in MAINTAINERS tools/testing/selftests/Makefile; do
		mkdir -p "$repo/$(dirname "$f")"
		cp "$ksrc/$f" "$repo/$f" || fail "cannot copy $ksrc/$f"
	done
	sgit add -f -A && sgit commit -q -m base || fail "git commit failed"

	# 1: the test, and its MAINTAINERS line.
	mkdir -p "$repo/$KSFT_DIR"
	kselftest_sources "$repo/$KSFT_DIR"
	cp "$top"/contrib/kselftest/filesystems/iov_single/{Makefile,config,.gitignore} "$repo/$KSFT_DIR/" ||
		fail "cannot copy contrib/kselftest/filesystems/iov_single"
	awk -v section="$KSFT_SECTION" -v entry="F:	$KSFT_DIR/" '
		$0 == section { in_s = 1 }
		in_s && /^F:/ && !done && $0 > entry { print entry; done = 1 }
		in_s && /^$/ { if (!done) print entry; done = 1; in_s = 0 }
		{ print }
		END { if (!done) exit 1 }' "$ksrc/MAINTAINERS" > "$repo/MAINTAINERS" ||
		fail "no section \"$KSFT_SECTION\" in $ksrc/MAINTAINERS"
	sgit add -f -A && sgit commit -q -F <(commit_msg "$top/contrib/kselftest/series/0001.txt") ||
		fail "git commit failed"

	# 2: the default TARGETS, after the last filesystems/ target.
	awk -v entry="TARGETS += $KSFT_TARGET" '
		{ line[NR] = $0 }
		/^TARGETS \+= filesystems(\/|$)/ { last = NR }
		END {
			if (!last)
				exit 1
			for (i = 1; i <= NR; i++) {
				print line[i]
				if (i == last)
					print entry
			}
		}' "$ksrc/tools/testing/selftests/Makefile" > "$repo/tools/testing/selftests/Makefile" ||
		fail "no TARGETS += filesystems line in $ksrc/tools/testing/selftests/Makefile"
	sgit add -f -A && sgit commit -q -F <(commit_msg "$top/contrib/kselftest/series/0002.txt") ||
		fail "git commit failed"

	sgit format-patch -q --cover-letter -o "$series" HEAD~2 > /dev/null || fail "git format-patch failed"
	fill_cover "$series" "$top/contrib/kselftest/series/cover.txt" || fail "cannot write the cover letter"
	kselftest_build "$repo"

	# Every patch held to the kernel's checkpatch, strictest mode.
	local p clean=1
	: > "$series/checkpatch.log"
	for p in "$series"/0*.patch; do
		p=$(basename "$p")
		[ "$p" = 0000-cover-letter.patch ] && continue
		{
			echo "== $p"
			(cd "$series" && perl "$ksrc/scripts/checkpatch.pl" --strict --no-tree --no-color "$p")
		} >> "$series/checkpatch.log" 2>&1 || clean=0
	done
	publish "$series" kselftest
	echo "$out/kselftest: $(ls "$out"/kselftest/0*.patch | wc -l) files (cover letter and patches)"
	if [ "$clean" != 1 ]; then
		echo "$prog: checkpatch is not clean, see $out/kselftest/checkpatch.log" >&2
		return 1
	fi
	grep '^total:' "$out/kselftest/checkpatch.log" | sed 's/^/checkpatch: /'
}

# ---- the fstests series -----------------------------------------------------

# numbered DIR: the tests in DIR (files named by a number), in order.
numbered() {
	local f
	for f in "$1"/*; do
		[[ ${f##*/} =~ ^[0-9]+$ ]] && echo "${f##*/}"
	done | sort -n
}

# next_free DIR N: N, or the first number after the highest taken in DIR
# when N is taken.
next_free() {
	local n=$2 max
	[ -e "$1/tests/generic/$n" ] || { echo "$n"; return; }
	max=$(numbered "$1/tests/generic" | tail -n 1)
	echo $((10#$max + 1))
}

fstests_series() {
	local repo=$tmp/fstests series=$tmp/fstests-series src=$top/contrib/fstests t n new count=0
	check_mutants "$src"/series/*.txt || exit 1
	mkdir -p "$series"
	if [ -n "$fstests" ]; then
		git clone -q --shared "$fstests" "$repo" || fail "cannot clone $fstests"
	else
		mkdir -p "$repo" && sgit init -q && sgit commit -q --allow-empty -m base || fail "git init failed"
	fi
	for t in $(numbered "$src/tests/generic"); do
		[ -f "$src/series/$t.txt" ] || fail "contrib/fstests/series/$t.txt: no commit message for generic/$t"
		n=$(next_free "$repo" "$t")
		new=$repo/tests/generic/$n
		mkdir -p "$(dirname "$new")"
		sed "s/^# FS QA Test No\. $t\$/# FS QA Test No. $n/" "$src/tests/generic/$t" > "$new"
		sed "s/^QA output created by $t\$/QA output created by $n/" "$src/tests/generic/$t.out" > "$new.out"
		chmod 755 "$new"
		chmod 644 "$new.out"
		grep -q "^# FS QA Test No\. $n\$" "$new" && grep -q "^QA output created by $n\$" "$new.out" ||
			fail "generic/$t: no \"FS QA Test No. $t\" or \"QA output created by $t\" line to renumber"
		sgit add -f "tests/generic/$n" "tests/generic/$n.out" &&
			sgit commit -q -F <(sed "1s/generic\/$t\b/generic\/$n/" "$src/series/$t.txt" |
					    commit_msg /dev/stdin) || fail "git commit failed"
		[ "$n" = "$t" ] || echo "$prog: generic/$t is generic/$n in $fstests (renumbered)" >&2
		count=$((count + 1))
	done
	sgit format-patch -q --cover-letter -o "$series" "HEAD~$count" > /dev/null || fail "git format-patch failed"
	fill_cover "$series" "$src/series/cover.txt" || fail "cannot write the cover letter"
	publish "$series" fstests
	echo "$out/fstests: $(ls "$out"/fstests/0*.patch | wc -l) files (cover letter and patches)"
}

rc=0
kselftest_series || rc=1
fstests_series || rc=1
exit $rc
