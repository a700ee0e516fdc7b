#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The seed corpus of each fuzz target, from the project's own inputs:
#   records  every tests/fixtures/compare/*.jsonl alone, and each after
#            base.jsonl and the "=====" separator (a BASE/NEW pair)
#   profile  configs/bench/*.conf and tests/fixtures/profile/*.conf
#
# usage: tests/fuzz/seeds.sh OUTDIR   (makes OUTDIR/records, OUTDIR/profile)
set -eu

out=${1:?usage: seeds.sh OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
fix=$top/tests/fixtures
mkdir -p "$out/records" "$out/profile"

for f in "$fix"/compare/*.jsonl; do
	name=$(basename "$f" .jsonl)
	cp "$f" "$out/records/$name"
	{ cat "$fix/compare/base.jsonl"; printf '=====\n'; cat "$f"; } > "$out/records/base-$name"
done
for f in "$top"/configs/bench/*.conf "$fix"/profile/*.conf; do
	cp "$f" "$out/profile/$(basename "$(dirname "$f")")-$(basename "$f")"
done
