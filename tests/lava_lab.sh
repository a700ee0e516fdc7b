#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The jobs a lab gets from iopath lava: their artefacts fetched over HTTP
# from --url-base, every kind of job (selftests on qemu and on x86, a
# mutant's, benchmarks, ab) valid under LAVA's own schema
# (lava_common.schemas.validate, strict, from Debian's lava-common, which
# scripts/deps.sh check installs), and iopath lava validate agreeing with
# that schema on every job made from them by one change of each kind at
# each place, and on hand-made ones LAVA rejects.
#
# Catches: `iopath lava jobs --url-base URL` failing with "out of memory"
# whatever the URL (a ?: whose < 0 tested only its second branch); x86
# jobs with `kernel: type: bzimage`, a value LAVA refuses, which iopath
# lava validate passed; that validator passing jobs LAVA refuses (a
# timeout of 0, a key LAVA does not know, an action timeout longer than
# the job's, ...).
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
have_lava_common=0
/usr/bin/python3 -c 'import lava_common.schemas, yaml' 2> /dev/null && have_lava_common=1
no_lava_common="lava-common not installed (scripts/deps.sh check installs it)"

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

# ---- LAVA's own schema ---------------------------------------------------

x86=$(grep '/x86/' "$tmp/jobs.list")
if [ "$have_lava_common" = 0 ]; then
	skip lava_lab.every_job_type_valid_under_lava_common_strict "$no_lava_common"
elif [ -n "$x86" ] && [ ${#jobs[@]} = 7 ] && /usr/bin/python3 -c 'import sys, yaml
from lava_common.schemas import validate
for j in sys.argv[1:]:
    validate(yaml.safe_load(open(j)), strict=True)' "${jobs[@]}" 2> "$tmp/err"; then
	ok lava_lab.every_job_type_valid_under_lava_common_strict
else
	not_ok lava_lab.every_job_type_valid_under_lava_common_strict "$(tail -n 2 "$tmp/err")"
fi

# Hand-made jobs LAVA rejects or takes, each a rule the changes below do
# not reach: an action's timeout longer than the job's, a timeout of two
# units, a fractional timeout (LAVA takes it), a timeout in hex (a YAML
# 1.1 number), a priority that is a YAML boolean (Python's 1), a job name
# of 201 characters, a namespace on one action only.
q=${jobs[0]:-$tmp/none.yaml}
[ -f "$q" ] || : > "$q"
mkdir -p "$tmp/fix"
sed 's/^      minutes: 10$/      minutes: 100/' "$q" > "$tmp/fix/action-longer.yaml"
sed 's/^    minutes: 5$/    minutes: 5\n    seconds: 3/' "$q" > "$tmp/fix/two-units.yaml"
sed 's/^    minutes: 5$/    minutes: 1.5/' "$q" > "$tmp/fix/fraction.yaml"
sed 's/^    minutes: 5$/    minutes: 0x10/' "$q" > "$tmp/fix/hex.yaml"
sed 's/^priority: medium$/priority: yes/' "$q" > "$tmp/fix/priority-yes.yaml"
sed "s/^job_name: .*/job_name: $(printf 'j%.0s' $(seq 201))/" "$q" > "$tmp/fix/long-name.yaml"
sed 's/^    to: tmpfs$/    to: tmpfs\n    namespace: one/' "$q" > "$tmp/fix/namespace.yaml"

# lava_common's verdict on each job and each change, iopath lava
# validate's on the same files; where they differ, iopath's reason must be
# a rule of the device type that LAVA's schema leaves to the device
# (qemu.jinja2's and x86.jinja2's methods), never a job LAVA refuses.
if [ "$have_lava_common" = 0 ]; then
	skip lava_lab.validate_agrees_with_lava_common_on_every_change "$no_lava_common"
else
	mkdir -p "$tmp/mut"
	/usr/bin/python3 "$top/tests/lib/lava_mutants.py" "$tmp/mut" "$q" ${x86:+"$x86"} -- "$tmp"/fix/*.yaml \
		> "$tmp/lava.verdicts" 2> "$tmp/err"
	lava validate "$tmp"/mut/*.yaml 2> "$tmp/ours.err" > /dev/null
	sed -n 's|^iopath: lava: .*/mut/\([0-9]*\)\.yaml: invalid: |\1 |p' "$tmp/ours.err" > "$tmp/ours"
	awk 'NR == FNR { why[$1] = substr($0, length($1) + 2); next }
	     { ours = ($1 in why) ? "reject" : "accept"; what = substr($0, length($1 $2) + 3) }
	     ours == $2 { agree++; next }
	     $2 == "accept" && why[$1] ~ /^device_type(: not qemu| x86: )/ { device++; next }
	     { print $1 ": " what ": LAVA " $2 "s, iopath " (ours == "reject" ? "rejects: " why[$1] : "accepts") }
	     END { printf "# %d agree, %d differ by a device-type rule\n", agree, device > "/dev/stderr" }' \
		"$tmp/ours" "$tmp/lava.verdicts" > "$tmp/differ" 2> "$tmp/counts"
	total=$(wc -l < "$tmp/lava.verdicts")
	rejected=$(grep -c ' reject ' "$tmp/lava.verdicts")
	if [ "$total" -gt 300 ] && [ "$rejected" -gt 100 ] && [ ! -s "$tmp/differ" ] &&
	   grep -q ' reject as it is: action-longer.yaml$' "$tmp/lava.verdicts" &&
	   grep -q ' accept as it is: fraction.yaml$' "$tmp/lava.verdicts"; then
		ok "lava_lab.validate_agrees_with_lava_common_on_every_change ($total jobs, $rejected rejected by LAVA)"
		cat "$tmp/counts"
	else
		not_ok "lava_lab.validate_agrees_with_lava_common_on_every_change ($total jobs, $rejected rejected by LAVA)" \
			"$(head -n 8 "$tmp/differ" "$tmp/err")" "$(cat "$tmp/counts")"
	fi
fi

finish_tap
