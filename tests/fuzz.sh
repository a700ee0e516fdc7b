#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The fuzz targets' corpora, each input run once through the target built
# with a plain main() (tests/fuzz/driver.c), as a regression test: the seeds
# tests/fuzz/seeds.sh makes from tests/fixtures and configs/bench, and the
# inputs fuzzing found worth keeping (tests/fuzz/corpus/TARGET). Catches a
# reader, pairing, output format or profile parser change that crashes or
# aborts on an input that once passed.
#
# usage: tests/fuzz.sh BUILD_DIR   (TAP on stdout)
set -u

build=${1:?usage: fuzz.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)

. "$top/tests/lib/tap.sh"

tmp=$(mktemp -d /tmp/iopath-fuzz-regress.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if ! IOPATH_BIN=$build/iopath "$top/tests/fuzz/seeds.sh" "$tmp" > "$tmp/err" 2>&1; then
	not_ok fuzz.seeds_made "$(head -3 "$tmp/err")"
	finish_tap
fi
for t in records profile known_failures tap quote repro_name verdict_lines mutant_header lava_log export \
	mutant_classify patch_check yaml_bound ctok; do
	bin=$build/fuzz-regress/$t
	if [ ! -x "$bin" ]; then
		not_ok "fuzz.$t.corpus_replayed" "$bin not built (make fuzz-regress)"
		continue
	fi
	dirs=("$tmp/$t")
	[ -d "$top/tests/fuzz/corpus/$t" ] && dirs+=("$top/tests/fuzz/corpus/$t")
	if timeout 120 "$bin" "${dirs[@]}" > "$tmp/out" 2>&1; then
		ok "fuzz.$t.corpus_replayed ($(awk '/ inputs$/ {s += $(NF - 1)} END {print s + 0}' "$tmp/out") inputs)"
	else
		not_ok "fuzz.$t.corpus_replayed" "$(tail -5 "$tmp/out")"
	fi
done
finish_tap
