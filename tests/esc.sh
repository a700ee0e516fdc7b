#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The one escaper for the terminal (lib/quote.c: iop_esc, iopath esc) and
# the one-line reasons it prints. Bugs caught:
#  - iopath esc passed the bidirectional controls (U+202E shows
#    "gpj.exe" as "exe.jpg") and bytes that are not UTF-8 raw;
#  - a missing file's name was escaped twice, "a\\x0ab": the library's
#    reason came escaped, and mutant, compare, records, plot and lava
#    escaped it again (and iopath ab escaped their lines once more);
#  - a 4096-byte path pushed the reason ("File name too long") out of a
#    mutant error's 512-byte buffer: the name is what gives, never the
#    reason.
#
# usage: tests/esc.sh BUILD_DIR     (prints TAP)
set -u

build=$(cd "${1:?usage: esc.sh BUILD_DIR}" && pwd)
iopath=$build/iopath
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/iopath-esc.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

# same NAME EXPECTED ARGS...: iopath ARGS prints EXPECTED and exits 0
same() {
	local name=$1 want=$2 got
	shift 2
	got=$("$iopath" "$@" 2> "$tmp/err")
	if [ "$?" = 0 ] && [ "$got" = "$want" ]; then
		ok "$name"
	else
		not_ok "$name" "got:  $(printf '%s' "$got" | od -An -c | head -n 2 | tr -s ' ')" "want: $want"
	fi
}

# ---- what a terminal must not see raw ---------------------------------------
same esc.bidi_controls_escaped 'a\xe2\x80\xaeb
\xe2\x81\xa6x\xe2\x81\xa9
\xe2\x80\x8f\xd8\x9c
l\xe2\x80\xa8s' esc $'a\u202eb' $'\u2066x\u2069' $'\u200f\u061c' $'l\u2028s'
same esc.bytes_not_utf8_escaped '\xff
\xc3
a\xe2\x80
\xc0\xaf
\xed\xa0\x80
\xf4\x90\x80\x80
\x80x' esc $'\xff' $'\xc3' $'a\xe2\x80' $'\xc0\xaf' $'\xed\xa0\x80' $'\xf4\x90\x80\x80' $'\x80x'
same esc.valid_utf8_kept 'é 日本 😀 ü' esc 'é 日本 😀 ü'
same esc.c0_c1_and_backslash_as_before 'a\x0ab\x1b[1m
c\\d
\xc2\x85' esc $'a\nb\e[1m' 'c\d' $'\xc2\x85'

# ---- escaped once -----------------------------------------------------------
same esc.line_left_as_it_is_when_escaped 'iopath: mutant: a\x0ab: No such file or directory' \
	esc --line 'iopath: mutant: a\x0ab: No such file or directory'
same esc.line_escaped_when_raw 'a\x0ab \xff' esc --line $'a\nb \xff'
got=$(IOPATH_BIN=$iopath bash -c '. "$1/scripts/lib/common.bash"; esc_line "$2"' _ "$top" 'x: a\x0ab: gone')
check_cmd esc.scripts_esc_line_escapes_once test "$got" = 'x: a\x0ab: gone'

"$iopath" mutant header $'a\nb' Function > /dev/null 2> "$tmp/err"
check_cmd esc.mutant_missing_file_named_once \
	test "$(cat "$tmp/err")" = 'iopath: mutant: a\x0ab: No such file or directory'
"$iopath" compare $'a\nb' "$top/tests/fixtures/compare/base.jsonl" > /dev/null 2> "$tmp/err"
check_cmd esc.compare_missing_file_named_once \
	test "$(cat "$tmp/err")" = 'iopath: compare: a\x0ab: No such file or directory'

# every command's error line: records, plot and lava escaped the library's
# escaped reason again too
sha=$(printf 'a%.0s' $(seq 64))
base=$top/tests/fixtures/compare/base.jsonl
for cmd in "records check --image-sha256 $sha --domain wall" "plot -o $tmp/p.svg $base" \
	   "lava validate" "export --kcidb"; do
	set -f
	# shellcheck disable=SC2086 # the words of $cmd
	"$iopath" $cmd $'a\nb' > /dev/null 2> "$tmp/err"
	set +f
	check_cmd "esc.${cmd%% *}_missing_file_named_once" \
		grep -qxE "iopath: ${cmd%% *}: a\\\\x0ab: No such file or directory" "$tmp/err"
done

# ---- the reason survives a long name -------------------------------------------
long=/$(printf 'x%.0s' $(seq 4095))
"$iopath" mutant header "$long" Function > /dev/null 2> "$tmp/err"
rc=$?
check_cmd esc.mutant_4096_byte_path_keeps_reason \
	bash -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -qE "^iopath: mutant: /x+\.\.\.x+: File name too long$" "$2"' \
	_ "$rc" "$tmp/err"
"$iopath" mutant header "$long"$'\n' Function > /dev/null 2> "$tmp/err"
check_cmd esc.mutant_long_escaped_path_keeps_reason \
	bash -c '[ "$(wc -l < "$1")" = 1 ] && grep -qE "\.\.\.x+\\\\x0a: File name too long$" "$1"' _ "$tmp/err"

finish_tap
