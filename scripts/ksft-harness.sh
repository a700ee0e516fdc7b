#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Print the path of a kselftest directory (the one holding kselftest.h,
# kselftest_harness.h, lib.mk, run_kselftest.sh and kselftest/).
#
# The harness is never copied into this repository. It comes from, in order:
#   KSRC=/path/to/linux       that tree's tools/testing/selftests
#   KSFT_SRC=/path/to/linux-source-X.tar.xz   extracted once into BUILD/ksft/X
#   the newest /usr/src/linux-source-*.tar.xz  (Debian's linux-source-* package)
#
# usage: ksft-harness.sh BUILD_DIR
set -eu

build=${1:?usage: ksft-harness.sh BUILD_DIR}

# print_dir DIR: DIR, if make can carry it: the selftests' Makefile and
# the kernel's lib.mk paste it into recipes and include lines, where a
# blank, a quote or a shell character would split it or run as code.
print_dir() {
	if [ "$(printf %s "$1" | LC_ALL=C tr -d '/A-Za-z0-9._+,@=~\200-\377-' | wc -c)" != 0 ]; then
		echo "ksft-harness: the harness's path has a blank, a quote or a shell character (make cannot build with it): use a path of letters, digits and /._+,@=~-" >&2
		exit 1
	fi
	echo "$1"
}

if [ -n "${KSRC:-}" ]; then
	dir=$KSRC/tools/testing/selftests
	if [ ! -f "$dir/kselftest_harness.h" ]; then
		echo "ksft-harness: KSRC=$KSRC has no tools/testing/selftests/kselftest_harness.h" >&2
		exit 1
	fi
	print_dir "$(cd "$dir" && pwd)"
	exit 0
fi

if [ -z "${KSFT_SRC:-}" ]; then
	KSFT_SRC=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$KSFT_SRC" ]; then
		echo "ksft-harness: no /usr/src/linux-source-*.tar.xz; install linux-source-6.12 or set KSRC=/path/to/linux" >&2
		exit 1
	fi
fi
if [ ! -f "$KSFT_SRC" ]; then
	echo "ksft-harness: KSFT_SRC=$KSFT_SRC: no such file" >&2
	exit 1
fi

name=$(basename "$KSFT_SRC" .tar.xz)
out=$build/ksft/$name
dir=$out/$name/tools/testing/selftests
stamp=$out/.stamp

# The stamp records which tarball (and its mtime) the extraction came from, so
# a new linux-source package is picked up and an unchanged one costs nothing;
# and which members (bumped with the list below), so a new member is too.
want="$KSFT_SRC $(stat -c %Y "$KSFT_SRC") members=2"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	print_dir "$dir"
	exit 0
fi

# Extract next to the final place and rename, so parallel builds never see
# a half-extracted harness.
tmp=$out.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
sel=$name/tools/testing/selftests
echo "ksft-harness: extracting the kselftest harness from $KSFT_SRC" >&2
# The tarball has no index: tar reads the whole stream whatever is asked for,
# so decompress with every CPU. The selftests' own Makefile and what it
# includes make this a tree the README's kernel-tree commands run in
# (tests/kselftest_tree.sh).
tar -x -C "$tmp" -f "$KSFT_SRC" --use-compress-program='xz -d -T0' \
	--wildcards "$sel/kselftest*" "$sel/lib.mk" "$sel/run_kselftest.sh" "$sel/Makefile" \
	"$name/scripts/subarch.include"
for f in kselftest.h kselftest_harness.h lib.mk run_kselftest.sh kselftest/runner.sh Makefile; do
	if [ ! -f "$tmp/$sel/$f" ]; then
		echo "ksft-harness: $KSFT_SRC has no $sel/$f" >&2
		exit 1
	fi
done
echo "$want" > "$tmp/.stamp"
rm -rf "$out"
mv "$tmp" "$out" 2>/dev/null || [ -f "$stamp" ]
print_dir "$dir"
