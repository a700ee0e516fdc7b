#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath kmsg scan, the kernel-log classifier of a saved console (iopath
# vm's guest console): every pattern of lib/kmsg_patterns.h is found after
# the console's level and timestamp, by its kind's rule (a word start, the
# line start), and nothing else is; control bytes never come out raw; a
# file that cannot be read is exit 2, not a clean console.
#
# usage: tests/kmsg_scan.sh BUILD_DIR
set -u

build=${1:?usage: tests/kmsg_scan.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/tap.sh"
iopath=$build/iopath
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The console a serial line gives: "<level>[ seconds] text", CR LF.
sed -n 's/^\(IOP_KMSG_[A-Z_]*\)("\([^"]*\)").*/\1 \2/p' "$top/lib/kmsg_patterns.h" > "$tmp/patterns"
[ "$(wc -l < "$tmp/patterns")" -ge 20 ]
check $? "kmsg_scan.patterns_read_from_lib_kmsg_patterns_h"

bad=()
while read -r kind text; do
	printf '<4>[   12.345678] %s at fs/iomap/iter.c:42\r\n' "$text" > "$tmp/hit"
	out=$("$iopath" kmsg scan "$tmp/hit")
	rc=$?
	[ "$rc" = 1 ] && [ "$out" = "$text at fs/iomap/iter.c:42" ] || bad+=("$kind '$text': exit $rc, '$out'")
	case $kind in
	IOP_KMSG_WORD) printf '[    1.000000] x%s y\n' "$text" > "$tmp/miss" ;;
	IOP_KMSG_LINE_START) printf '[    1.000000] x %s y\n' "$text" > "$tmp/miss" ;;
	*) continue ;;
	esac
	out=$("$iopath" kmsg scan "$tmp/miss")
	rc=$?
	[ "$rc" = 0 ] && [ -z "$out" ] || bad+=("$kind '$text' not at its place: exit $rc, '$out'")
done < "$tmp/patterns"
if [ ${#bad[@]} = 0 ]; then ok "kmsg_scan.every_pattern_by_its_rule"; else
	not_ok "kmsg_scan.every_pattern_by_its_rule" "${bad[@]}"; fi

printf '[    0.000000] Linux version 7.2.13\n[    3.1] EXT4-fs (loop0): mounted\n\n' > "$tmp/clean"
out=$("$iopath" kmsg scan < "$tmp/clean")
rc=$?
[ "$rc" = 0 ] && [ -z "$out" ]
check $? "kmsg_scan.clean_console_from_stdin_exit_0"

printf '[    5.0] WARNING: \033[31mred\x07 \\ done\n' > "$tmp/ctl"
out=$("$iopath" kmsg scan "$tmp/ctl")
rc=$?
[ "$rc" = 1 ] && [ "$out" = 'WARNING: \x1b[31mred\x07 \\ done' ]
check $? "kmsg_scan.control_bytes_escaped"

out=$("$iopath" kmsg scan "$tmp/none" 2>&1)
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <<< "$out")" = 1 ]
check $? "kmsg_scan.unreadable_file_exit_2_one_line"

# One owner: no script reads the patterns itself, none is installed for one.
copies=$(grep -rlE '\$[{]?[a-z_]+[}]?/lib/kmsg_patterns|lib/kmsg_patterns\.h \$' \
	"$top/scripts" "$top/Makefile" "$top/tests"/*.sh | grep -v '/tests/kmsg_scan.sh$')
[ -z "$copies" ]
check $? "kmsg_scan.no_script_reads_the_patterns_itself"

finish_tap
