#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The planted changes of iopath ab --calibrate (issue 50): every
# configs/mutants/perf/plant-SITE-N.patch is what scripts/plant.sh makes
# from its one template (no hand-edited plant, none missing, none left
# over), for the sizes 1, 3, 10 and 30 and every site; each adds exactly
# one line, an asm block of N nops, to the function its header names,
# and says N in its header. That the block adds N instructions and
# nothing else in the built kernel is checked by iopath ab --calibrate in
# each vmlinux (tests/ab.sh checks that check).
#
# usage: tests/plant.sh BUILD_DIR   (TAP on stdout)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
t=$(mktemp -d "${TMPDIR:-/tmp}/iopath-plant-test.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

perf=$top/configs/mutants/perf
check_cmd plant.sizes_are_1_3_10_30 test "$("$top/scripts/plant.sh" --sizes)" = "1 3 10 30"
check_cmd plant.three_sites test "$("$top/scripts/plant.sh" --sites | wc -l)" = 3
"$top/scripts/plant.sh" "$t" 2> "$t/err"
# the same names, and the same bytes
want=$(cd "$t" && ls plant-*.patch | sort)
have=$(cd "$perf" && ls plant-*.patch 2> /dev/null | sort)
if [ "$want" = "$have" ] && [ "$(echo "$want" | wc -l)" = 12 ]; then
	ok plant.one_patch_per_site_and_size
else
	not_ok plant.one_patch_per_site_and_size "$(diff <(echo "$want") <(echo "$have") | head -n 4)"
fi
bad=""
for f in $want; do
	cmp -s "$t/$f" "$perf/$f" || bad="$bad $f"
done
if [ -z "$bad" ]; then ok plant.generated_bytes_committed; else not_ok plant.generated_bytes_committed "differ:$bad (make plants)"; fi

while read -r name file func bench; do
	for size in 1 3 10 30; do
		p=$perf/plant-$name-$size.patch
		added=$(grep -c '^+[^+]' "$p" 2> /dev/null)
		if [ "$added" = 1 ] &&
		   grep -qx "+	asm volatile(\".rept $size\\\\n\\\\tnop\\\\n\\\\t.endr\"); /\\* iopath: $size planted instructions \\*/" "$p" &&
		   grep -qx "# Plants: $size instructions per call (an asm volatile block of $size nop, nothing else)" "$p" &&
		   grep -qx "# Function: $func ($file)" "$p" && grep -qx "# Bench: $bench" "$p" &&
		   grep -qx -- "+++ b/$file" "$p" && [ -f "$top/configs/bench/$bench.conf" ]; then
			ok "plant.$name.$size.adds_n_nops_to_$func"
		else
			not_ok "plant.$name.$size.adds_n_nops_to_$func" "$(grep '^[+#]' "$p" 2>&1 | head -n 3)"
		fi
	done
done < <("$top/scripts/plant.sh" --sites)
"$top/scripts/plant.sh" "$t/nonexistent" > /dev/null 2> "$t/err"
check_cmd plant.no_directory_refused test "$?" = 2 -a "$(wc -l < "$t/err")" = 1
finish_tap
