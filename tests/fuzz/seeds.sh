#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The seed corpus of each fuzz target, from the project's own inputs:
#   records  every tests/fixtures/compare/*.jsonl alone, and each after
#            base.jsonl and the "=====" separator (a BASE/NEW pair)
#   profile  configs/bench/*.conf and tests/fixtures/profile/*.conf
#   known_failures  configs/known-failures and tests/fixtures/known-failures/*
#
# usage: tests/fuzz/seeds.sh OUTDIR   (makes a directory per target in OUTDIR)
set -eu

out=${1:?usage: seeds.sh OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
fix=$top/tests/fixtures
mkdir -p "$out/records" "$out/profile" "$out/known_failures"

for f in "$fix"/compare/*.jsonl; do
	name=$(basename "$f" .jsonl)
	cp "$f" "$out/records/$name"
	{ cat "$fix/compare/base.jsonl"; printf '=====\n'; cat "$f"; } > "$out/records/base-$name"
done
for f in "$top"/configs/bench/*.conf "$fix"/profile/*.conf; do
	cp "$f" "$out/profile/$(basename "$(dirname "$f")")-$(basename "$f")"
done
cp "$top/configs/known-failures" "$out/known_failures/configs-known-failures"
for f in "$fix"/known-failures/*; do
	cp "$f" "$out/known_failures/fixture-$(basename "$f")"
done
