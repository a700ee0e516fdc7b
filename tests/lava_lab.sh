#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The jobs a lab gets from iopath lava: their artefacts fetched over HTTP
# from --url-base, for every kind of job (selftests on qemu and on x86, a
# mutant's, benchmarks, ab).
#
# Catches: `iopath lava jobs --url-base URL` failing with "out of memory"
# whatever the URL (a ?: whose < 0 tested only its second branch).
#
# usage: tests/lava_lab.sh BUILD_DIR
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
. "$top/tests/lib/tap.sh"
lava() { "$build/iopath" lava "$@"; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-lava-lab.XXXXXX") || { echo "Bail out! no temporary directory"; exit 1; }
server=""
trap '[ -z "$server" ] || kill "$server" 2> /dev/null; rm -rf "$tmp"' EXIT

if [ ! -x "$build/selftests/iopath_probe" ] || { ! command -v busybox > /dev/null && [ ! -x /bin/busybox ]; }; then
	echo "1..0 # SKIP no selftests built or no busybox (make; scripts/deps.sh vm)"
	exit 0
fi

# A fake bzImage (the boot header's magic) stands in for a kernel.
fake=$tmp/bzImage
head -c 4096 /dev/zero > "$fake"
printf 'HdrS' | dd of="$fake" bs=1 seek=514 conv=notrunc 2> /dev/null
mkdir -p "$tmp/work/kernels" "$tmp/work/obj/arch/x86/boot" "$tmp/out"
cp "$fake" "$tmp/work/obj/arch/x86/boot/bzImage"
m=$(basename "$(ls "$top"/configs/mutants/*.patch | head -n 1)" .patch)
cp "$fake" "$tmp/work/kernels/$m"

# ---- artefacts over HTTP (--url-base) ------------------------------------

# A server on the loopback only, for the jobs' directory, on a port the
# kernel picks: its first line says which.
/usr/bin/python3 -u -m http.server --bind 127.0.0.1 --directory "$tmp/out" 0 > "$tmp/http.out" 2>&1 &
server=$!
for _ in $(seq 100); do
	port=$(sed -n 's/^Serving HTTP on 127\.0\.0\.1 port \([0-9]*\) .*/\1/p' "$tmp/http.out" 2> /dev/null)
	[ -n "$port" ] && break
	sleep 0.1
done
base=http://127.0.0.1:${port:-0}/
: > "$tmp/jobs.list"
if [ -n "$port" ] &&
   lava jobs --kernel "$fake" --out "$tmp/out" --url-base "$base" --build "$build" -- -t iopath:swapon_test \
	>> "$tmp/jobs.list" 2> "$tmp/err" &&
   lava jobs --kernel "$fake" --out "$tmp/out/x86" --device-type x86 --url-base "$base"x86 --build "$build" \
	>> "$tmp/jobs.list" 2>> "$tmp/err" &&
   lava mutate --work "$tmp/work" --out "$tmp/out" --url-base "$base" --build "$build" \
	>> "$tmp/jobs.list" 2>> "$tmp/err" &&
   lava bench --kernel "$fake" --out "$tmp/out" --url-base "$base" --build "$build" -- --reps 1 \
	>> "$tmp/jobs.list" 2>> "$tmp/err" &&
   lava ab --a "$fake" --b "$fake" --out "$tmp/out" --url-base "$base" --build "$build" --boots 1 -- read_vs_readv \
	>> "$tmp/jobs.list" 2>> "$tmp/err"; then
	ok lava_lab.jobs_written_with_url_base
else
	not_ok lava_lab.jobs_written_with_url_base "port '${port:-}'" "$(tail -n 3 "$tmp/err")"
fi
mapfile -t jobs < "$tmp/jobs.list"

# Every artefact a job names: under the base, fetched from the server,
# and its sha256 the job's.
fetch_sha() {
	/usr/bin/python3 -c 'import hashlib, sys, urllib.request
print(hashlib.sha256(urllib.request.urlopen(sys.argv[1], timeout=30).read()).hexdigest())' "$1"
}
bad="" nurl=0
for j in "${jobs[@]}"; do
	while read -r url sum; do
		nurl=$((nurl + 1))
		[[ $url == "$base"* ]] && [ "$(fetch_sha "$url" 2> /dev/null)" = "$sum" ] || bad="$bad $url"
	done < <(awk '/^ *url: / { gsub(/"/, "", $2); u = $2 } /^ *sha256sum: / { gsub(/"/, "", $2); print u, $2 }' "$j")
done
if [ ${#jobs[@]} = 7 ] && [ "$nurl" = 14 ] && [ -z "$bad" ]; then
	ok "lava_lab.every_artefact_fetched_from_the_url_base_with_its_sha256 ($nurl)"
else
	not_ok lava_lab.every_artefact_fetched_from_the_url_base_with_its_sha256 \
		"${#jobs[@]} jobs, $nurl URLs; not fetched or another sha256:${bad:- none}"
fi
kill "$server" 2> /dev/null
wait "$server" 2> /dev/null
server=""

finish_tap
