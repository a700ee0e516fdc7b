#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The seed corpus of each fuzz target, from the project's own inputs:
#   records  every tests/fixtures/compare/*.jsonl alone, and each after
#            base.jsonl and the "=====" separator (a BASE/NEW pair)
#   profile  configs/bench/*.conf and tests/fixtures/profile/*.conf
#   known_failures  configs/known-failures and tests/fixtures/known-failures/*
#   quote    strings with quotes, blanks, control characters, C1 in UTF-8
#   repro_name  every bug name, and names with a newline, a slash, '..'
# and profiles with a key twice, for the profile target's duplicate check.
#
# usage: tests/fuzz/seeds.sh OUTDIR   (makes a directory per target in OUTDIR)
set -eu

out=${1:?usage: seeds.sh OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
fix=$top/tests/fixtures
mkdir -p "$out/records" "$out/profile" "$out/known_failures" "$out/quote" "$out/repro_name"

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
printf '[falloc_write]\nreps = 1\nreps = 2\n' > "$out/profile/dup-reps.conf"
printf '[global]\nfs = ext4\n fs=xfs\n[falloc_write]\n' > "$out/profile/dup-global-fs.conf"
printf '[uring_randread]\nbs = 4k,64k\ndepth = 1\nbs\t= 8k\n' > "$out/profile/dup-axis.conf"
i=0
for s in plain "with space" "x'; touch /tmp/PWN; echo '" $'a\nSigned-off-by: x' $'\x1b]2;t\x07' \
	$'\xc2\x9b31m' 'dir:/mnt/$(id)' '' "back\\slash" $'\t\x7f\xff'; do
	printf '%s' "$s" > "$out/quote/$i"
	i=$((i + 1))
done
i=0
for s in $("$top/scripts/repro.sh" --list) $'ext4-eof-zero-on-extend\n../../tmp/x/y' ../x ext4 \
	-v --fs 'Ext4-eof-zero-on-extend' 'ext4-eof-zero-on-extend '; do
	printf '%s' "$s" > "$out/repro_name/$i"
	i=$((i + 1))
done
