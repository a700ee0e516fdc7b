#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath compare: a pair whose two boots read the benchmark's file in
# different layouts is named. Bug caught: in an A/B of a +30 instruction
# plant, one B boot's ext4 allocator put the 256 MiB file elsewhere
# (run.facts.file_layout "0+260046848@142606336 ..." against every other
# boot's "0+92274688@35811328 ...") and read 12 instructions more per
# read in every repetition; the pair's difference carried the layout's,
# and the verdict line, the notes and compare.json said nothing of it.
# Now: the verdict line names the pair and both layouts, a note says it,
# compare.json lists the pair; the figures stay as they were (nothing is
# dropped), and boots that agree raise nothing.
#
# usage: tests/compare_layout.sh BUILD_DIR     (prints TAP)
set -u

build=${1:?usage: compare_layout.sh BUILD_DIR}
iopath=$build/iopath
fix=$(cd "$(dirname "$0")/fixtures/compare" && pwd)
lib=$(cd "$(dirname "$0")/lib" && pwd)
tmp=$(mktemp -d /tmp/iopath-compare-layout.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$lib/tap.sh"

common='0+92274688@35811328 92274688+176160768@142606336'
other='0+260046848@142606336 260046848+8388608@411041792'

# side SIDE FACTOR ODD_BOOT ODD_LAYOUT: three boots of uring_randread, seeds
# 5eed1..3 (boot i of A and of B share one, as iopath ab gives them), each
# with file_layout $common but boot ODD_BOOT (0: none) with ODD_LAYOUT.
side() {
	local s=$1 f=$2 odd=$3 odd_layout=$4 i

	for i in 1 2 3; do
		jq -c --arg s "$s" --argjson f "$f" --argjson i "$i" \
			--arg l "$(if [ "$i" = "$odd" ]; then printf '%s' "$odd_layout"; else printf '%s' "$common"; fi)" '
			select(.bench == "uring_randread")
			| .env.kernel.boot_id = ("0000000\($i)-0000-0000-0000-00000000000" + (if $s == "A" then "a" else "b" end))
			| .env.kernel.cmdline += " iopath.seed=5eed\($i)"
			| .time = "2026-12-02T0\($i):00:0\(.rep)Z"
			| .run.main_metric = "iops"
			| .run.facts.file_layout = $l
			| .metrics |= map(if .name == "iops" then .value *= ($f * (1 + $i * 0.0001)) else . end)' \
			"$fix/base.jsonl"
	done
}

side A 1 0 "" > "$tmp/a.jsonl"
side B 0.99 2 "$other" > "$tmp/b.jsonl"
side B 0.99 0 "" > "$tmp/b-same.jsonl"

# ---- one pair's boots differ -------------------------------------------------
"$iopath" compare "$tmp/a.jsonl" "$tmp/b.jsonl" --format verdict > "$tmp/v" 2> "$tmp/err"
check_cmd compare_layout.paired.verdict_line_names_the_pair_and_both_layouts \
	bash -c '[ "$1" = 0 ] && [ ! -s "$3" ] && [ "$(wc -l < "$2")" = 1 ] &&
		grep -qF "; file layout differs in 1 pair: pair 2 base '\''$4'\'' new '\''$5'\'')" "$2"' \
	_ "$?" "$tmp/v" "$tmp/err" "$common" "$other"
"$iopath" compare "$tmp/a.jsonl" "$tmp/b.jsonl" --format json > "$tmp/j" 2> "$tmp/err"
json_pair='.comparisons[0].groups[0]
	| .layout_differs_pairs == 1 and (.layout_differs | length) == 1
	and .layout_differs[0].pair == 2 and .layout_differs[0].seed == "5eed2"
	and .layout_differs[0].base_layout == $c and .layout_differs[0].new_layout == $o
	and (.layout_differs[0].new_boot | startswith("00000002"))'
check_cmd compare_layout.paired.json_lists_the_pair \
	bash -c 'jq -e --arg c "$1" --arg o "$2" "$3" "$4" > /dev/null' _ "$common" "$other" \
	"$json_pair" "$tmp/j"
"$iopath" compare "$tmp/a.jsonl" "$tmp/b.jsonl" > "$tmp/t" 2> "$tmp/err"
check_cmd compare_layout.paired.text_notes_it \
	bash -c 'grep -qF "file layout differs within 1 of 3 pairs of uring_randread" "$1" &&
		grep -qF "file layout differs, see notes" "$1"' _ "$tmp/t"

# ---- the figures are the same as without the facts ---------------------------
jq -c 'del(.run.facts)' "$tmp/b.jsonl" > "$tmp/b-nofacts.jsonl"
"$iopath" compare "$tmp/a.jsonl" "$tmp/b-nofacts.jsonl" --format verdict > "$tmp/v0" 2> "$tmp/err"
check_cmd compare_layout.paired.estimator_unchanged \
	bash -c '[ -s "$1" ] && [ "$(sed "s/; file layout differs in .*)\$/)/" "$2")" = "$(cat "$1")" ] &&
		! grep -q "layout" "$1"' _ "$tmp/v0" "$tmp/v"

# ---- boots that agree raise nothing ------------------------------------------
"$iopath" compare "$tmp/a.jsonl" "$tmp/b-same.jsonl" --format json > "$tmp/js" 2> "$tmp/err"
"$iopath" compare "$tmp/a.jsonl" "$tmp/b-same.jsonl" --format verdict > "$tmp/vs" 2>> "$tmp/err"
check_cmd compare_layout.same_layouts.nothing_said \
	bash -c 'jq -e ".comparisons[0].groups[0] | .layout_differs_pairs == 0 and .layout_differs == []
		and ([.. | strings | select(test(\"layout differs\"))] | length == 0)" "$1" > /dev/null &&
		! grep -q layout "$2"' _ "$tmp/js" "$tmp/vs"

# ---- unpaired boots (no seeds): still a note ---------------------------------
jq -c '.env.kernel.cmdline |= sub(" iopath.seed=[0-9a-f]*"; "")' "$tmp/a.jsonl" > "$tmp/ua.jsonl"
jq -c '.env.kernel.cmdline |= sub(" iopath.seed=[0-9a-f]*"; "")' "$tmp/b.jsonl" > "$tmp/ub.jsonl"
"$iopath" compare "$tmp/ua.jsonl" "$tmp/ub.jsonl" > "$tmp/u" 2> "$tmp/err"
check_cmd compare_layout.unpaired.text_notes_it \
	grep -qF "file layout differs between boots of uring_randread fs=xfs: new boot 00000002 '$other'" "$tmp/u"

# ---- a layout from the records is escaped --------------------------------------
side B 0.99 2 $'0+4096@0\e[31m' > "$tmp/b-esc.jsonl"
"$iopath" compare "$tmp/a.jsonl" "$tmp/b-esc.jsonl" --format verdict > "$tmp/ve" 2> "$tmp/err"
"$iopath" compare "$tmp/a.jsonl" "$tmp/b-esc.jsonl" >> "$tmp/ve" 2>> "$tmp/err"
check_cmd compare_layout.hostile_layout_escaped \
	bash -c 'grep -q "pair 2 base" "$1" && ! grep -q $'"'"'\e'"'"' "$1"' _ "$tmp/ve"

finish_tap
