#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The kernel's checkpatch.pl --strict --no-tree over every C source: no
# error, and no class of warning or check that docs/style.md does not name
# with its reason. checkpatch comes from KSRC, else from the newest
# /usr/src/linux-source-*.tar.xz (extracted once into BUILD_DIR/style-check);
# a named skip without either.
#
# Catches: a new kind of style finding let in unremarked (docs/style.md
# said every class was listed while --strict reported about 130 unlisted
# checks).
#
# usage: tests/style.sh BUILD_DIR
set -u

build=${1:?usage: tests/style.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/tap.sh"

if [ -n "${KSRC:-}" ]; then
	cp=$KSRC/scripts/checkpatch.pl
else
	tar=$(ls /usr/src/linux-source-*.tar.xz 2> /dev/null | sort -V | tail -n 1)
	if [ -z "$tar" ]; then
		echo "1..0 # SKIP no kernel tree: set KSRC=/path/to/linux or install linux-source-6.12"
		exit 0
	fi
	name=$(basename "$tar" .tar.xz)
	dir=$build/style-check/$name
	cp=$dir/scripts/checkpatch.pl
	want="$tar $(stat -c %Y "$tar")"
	if [ "$(cat "$dir/.stamp" 2> /dev/null)" != "$want" ]; then
		# Beside the final place, renamed: a second run never sees half of it.
		rm -rf "$dir.tmp.$$"
		mkdir -p "$dir.tmp.$$"
		if ! tar -x -C "$dir.tmp.$$" -f "$tar" --strip-components=1 \
			"$name/scripts/checkpatch.pl" "$name/scripts/spelling.txt" \
			"$name/scripts/const_structs.checkpatch" 2> "$build/style-check.err"; then
			rm -rf "$dir.tmp.$$"
			echo "1..1"
			echo "not ok 1 style.checkpatch_extracted # $(head -n 1 "$build/style-check.err")"
			exit 1
		fi
		echo "$want" > "$dir.tmp.$$/.stamp"
		rm -rf "$dir"
		mv "$dir.tmp.$$" "$dir"
	fi
fi
if [ ! -r "$cp" ] || ! command -v perl > /dev/null; then
	echo "1..0 # SKIP no $cp or no perl"
	exit 0
fi

out=$(mktemp "${TMPDIR:-/tmp}/iopath-style.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
cd "$top" || exit 1
# shellcheck disable=SC2046
perl "$cp" --strict --no-tree --terse --show-types --no-summary --file \
	$(git ls-files '*.c' '*.h') > "$out" 2>&1

errors=$(grep -c ': ERROR:' "$out")
[ "$errors" = 0 ]
check $? "style.no_checkpatch_errors ($errors)"
[ "$errors" = 0 ] || grep ': ERROR:' "$out" | head -n 5 | sed 's/^/# /'

# The classes of the list items: "- `CLASS`[, `CLASS`]...: why".
listed=$(grep '^- `' docs/style.md | sed 's/:.*//' | grep -o '`[A-Z_]*`' | tr -d '`' | sort -u)
seen=$(sed -n 's/^[^ ]*: \(WARNING\|CHECK\):\([A-Z_]*\):.*/\2/p' "$out" | sort -u)
unlisted=$(comm -13 <(echo "$listed") <(echo "$seen") | tr '\n' ' ')
[ -n "$seen" ] && [ -z "$unlisted" ]
check $? "style.every_class_docs_style_md_names${unlisted:+ (not named: $unlisted)}"
for c in $unlisted; do
	grep ":$c:" "$out" | head -n 3 | sed 's/^/# /'
done
# A class this checkpatch did not report: another version's, or fixed.
for c in $(comm -23 <(echo "$listed") <(echo "$seen")); do
	echo "# docs/style.md names $c, which this checkpatch did not report"
done

finish_tap
