#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The README's commands as a reader types them. The quick start is for
# root on Debian, which has no sudo unless it was installed: its commands
# run without it (make -n of each). The LAVA steps run as written, in a
# directory where linux-image-6.12-amd64 is a stand-in bzImage (the boot
# header's magic) and the lab's job log is tests/fixtures/lava/'s real
# one: the jobs are written, the verdict writes the TAP that the export
# then reads, and the report validates against KCIDB's schema; the
# lava-run target exists.
#
# Catches: the quick start's "sudo make run" on a host without sudo; the
# LAVA steps exporting out/X.tap, which lava verdict (without --tap)
# never wrote.
#
# usage: tests/readme.sh BUILD_DIR
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
. "$top/tests/lib/tap.sh"
readme=$top/README.md

tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-readme.XXXXXX") || { echo "Bail out! no temporary directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT

# block HEADING-ERE: the indented command lines after the line matching
# HEADING-ERE, up to the next heading or bold paragraph, comments gone.
block() {
	awk -v h="$1" '$0 ~ h { on = 1; next } on && /^(#|\*\*)/ { exit }
		on && /^    [^ #]/ { sub(/^    /, ""); sub(/ +#.*/, ""); print }' "$readme"
}

# ---- the quick start ----------------------------------------------------------

block '^## Quick start' > "$tmp/quick"
bad=""
while read -r cmd; do
	[ "${cmd%% *}" = make ] && make -C "$top" -n BUILD="$build" ${cmd#make } > /dev/null 2>&1 || bad="$bad [$cmd]"
done < "$tmp/quick"
if [ -s "$tmp/quick" ] && [ -z "$bad" ]; then
	ok "readme.quick_start_runs_as_root_without_sudo ($(paste -sd, "$tmp/quick"))"
else
	not_ok readme.quick_start_runs_as_root_without_sudo "not a make target run as written:${bad:- no commands}"
fi

# ---- a LAVA lab ---------------------------------------------------------------

block '^\*\*In a LAVA lab\*\*' > "$tmp/lava"
if [ ! -x "$build/selftests/iopath_probe" ] || { ! command -v busybox > /dev/null && [ ! -x /bin/busybox ]; }; then
	skip readme.lava_steps_run_as_written "no selftests built or no busybox"
elif ! /usr/bin/python3 -c 'import jsonschema' 2> /dev/null; then
	skip readme.lava_steps_run_as_written "python3-jsonschema not installed (scripts/deps.sh check)"
else
	w=$tmp/w
	mkdir -p "$w"
	ln -s "$build" "$w/build"
	head -c 4096 /dev/zero > "$w/linux-image-6.12-amd64"
	printf 'HdrS' | dd of="$w/linux-image-6.12-amd64" bs=1 seek=514 conv=notrunc 2> /dev/null
	ran=0 broke=""
	while read -r cmd; do
		case $cmd in
		build/iopath\ *)
			# shellcheck disable=SC2086 # the README's words, as a shell splits them
			(cd "$w" && $cmd) > "$tmp/out" 2>&1 || broke="$broke [$cmd: $(tail -n 1 "$tmp/out")]"
			ran=$((ran + 1))
			# what the lab gives back: the job's log
			[[ $cmd == *"lava jobs "* ]] && cp "$top/tests/fixtures/lava/swapon-6.12.log" "$w/out/linux-image-6.12-amd64.log" ;;
		make\ *)
			make -C "$top" -n BUILD="$build" ${cmd#make } > /dev/null 2>&1 || broke="$broke [$cmd]" ;;
		*) broke="$broke [not a command of this test: $cmd]" ;;
		esac
	done < "$tmp/lava"
	/usr/bin/python3 - "$top/configs/kcidb/kcidb-io.schema.v5.3.json" "$w/kcidb.json" 2> "$tmp/verr" <<'PY'
import json, sys
import jsonschema
jsonschema.Draft7Validator(json.load(open(sys.argv[1])), format_checker=jsonschema.FormatChecker()).validate(
    json.load(open(sys.argv[2])))
PY
	valid=$?
	if [ "$ran" = 3 ] && [ -z "$broke" ] && [ "$valid" = 0 ] &&
	   jq -e '(.tests[] | select(.path == "iopath") | .status == "PASS")' "$w/kcidb.json" > /dev/null 2>&1; then
		ok readme.lava_steps_run_as_written
	else
		not_ok readme.lava_steps_run_as_written "$ran commands;${broke:- none failed}; kcidb.json valid: $valid" \
			"$(head -c 300 "$tmp/verr")"
	fi
fi

finish_tap
