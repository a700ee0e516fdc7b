#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Tree rules that a compiler does not check: licence lines, the harness
# never committed, no source file over 1,000 lines, no function over 120
# lines, every selftest naming the bug it catches, every benchmark
# saying what it does not measure, and every shell script clean under
# the shellcheck linter where it is installed.
set -u
cd "$(dirname "$0")/.." || exit 1

. tests/lib/tap.sh

files=$(git ls-files '*.c' '*.h' '*.sh' 'Makefile' '*/Makefile' '.ci/run')

bad=""
for f in $files; do
	head -n 3 "$f" | grep -q 'SPDX-License-Identifier:' || bad="$bad $f"
done
if [ -z "$bad" ]; then ok "lint.spdx_line_in_every_source"; else
	echo "# no SPDX line in:$bad"; not_ok "lint.spdx_line_in_every_source"; fi

# One file per test area, benchmark and subcommand, none over 1,000 lines:
# a file past that holds two concepts.
bad=$(git ls-files '*.c' '*.h' '*.sh' '*.bash' '*.awk' '*.py' 'Makefile' '*/Makefile' '.ci/run' |
	xargs wc -l | awk '$2 != "total" && $1 > 1000 { printf " %s (%d lines)", $2, $1 }')
if [ -z "$bad" ]; then ok "lint.no_source_file_over_1000_lines"; else
	echo "# over 1,000 lines:$bad"; not_ok "lint.no_source_file_over_1000_lines"; fi

# No function over 120 lines: a longer one does two things. A function is
# its signature (the last line at column 0 starting with a name and a
# parenthesis) through its closing brace, both braces alone at column 0
# as the kernel's style puts them.
bad=$(git ls-files '*.c' '*.h' | xargs awk '
	FNR == 1 { sig = 0; body = 0 }
	!body && /^[A-Za-z_].*\(/ { sig = FNR; name = $0 }
	/^\{$/ { body = 1; if (!sig) sig = FNR }
	body && /^\}$/ {
		if (FNR - sig + 1 > 120)
			printf " %s:%d %s (%d lines)", FILENAME, sig, name, FNR - sig + 1
		body = 0; sig = 0
	}')
if [ -z "$bad" ]; then ok "lint.no_function_over_120_lines"; else
	echo "# over 120 lines:$bad"; not_ok "lint.no_function_over_120_lines"; fi

vend=$(git ls-files | grep -E '(^|/)(kselftest_harness\.h|kselftest\.h|lib\.mk|run_kselftest\.sh|runner\.sh)$')
if [ -z "$vend" ]; then ok "lint.no_harness_file_committed"; else
	echo "# harness files in git: $vend"; not_ok "lint.no_harness_file_committed"; fi

bad=""
for f in $(git ls-files 'selftests/*_test.c'); do
	# The header comment (up to the first #include) must say which kernel
	# bug or commit the tests catch (a mechanism, a commit id, the seed patch).
	sed -n '1,/^#include/p' "$f" | tr '\n' ' ' | sed 's/ \* / /g' | tr -s ' ' |
		grep -qiE 'bug|commit|regression|a kernel that|seed patch|stale|leak|[0-9a-f]{12}' || bad="$bad $f"
done
if [ -z "$bad" ]; then ok "lint.selftest_headers_name_the_bug"; else
	echo "# header names no bug:$bad"; not_ok "lint.selftest_headers_name_the_bug"; fi

bad=""
for f in $(git ls-files 'microbench/*.c'); do
	grep -q 'IOP_BENCH\|struct iop_bench ' "$f" || continue
	grep -q 'harness' <<<"$f" && continue
	sed -n '1,/^#include/p' "$f" | grep -qiE 'not measure' || bad="$bad $f"
done
if [ -z "$bad" ]; then ok "lint.benchmarks_say_what_they_do_not_measure"; else
	echo "# no 'does not measure' in:$bad"; not_ok "lint.benchmarks_say_what_they_do_not_measure"; fi

# One filesystem-preset table (selftests/iopath_test.h): a variant made
# from IOP_FS_<P> is named <p> or <p>_<more> (not another preset's name),
# and no test file spells out a filesystem of its own.
presets=$(sed -n 's/^#define IOP_FS_\([A-Z0-9_]*\)[[:space:]]*\.fstype.*/\1/p' selftests/iopath_test.h |
	tr 'A-Z' 'a-z' | tr '\n' ' ')
bad=$(git ls-files 'selftests/*.c' 'selftests/*.h' | xargs awk -v presets="$presets" '
	BEGIN { n = split(presets, p, " ") }
	/FIXTURE_VARIANT_ADD\(/ {
		name = $0
		sub(/.*FIXTURE_VARIANT_ADD\([a-z0-9_]+, */, "", name)
		sub(/\).*/, "", name)
		body = ""; at = FILENAME ":" FNR
	}
	name != "" { body = body $0 }
	name != "" && /};/ {
		if (match(body, /IOP_FS_[A-Z0-9_]+/)) {
			used = tolower(substr(body, RSTART + 7, RLENGTH - 7))
			best = ""
			for (i = 1; i <= n; i++)
				if ((name == p[i] || index(name, p[i] "_") == 1) && length(p[i]) > length(best))
					best = p[i]
			if (best != used)
				print at ": variant " name " made from IOP_FS_" toupper(used)
		}
		name = ""
	}' 2>&1; git grep -n '\.\(fstype\|mkfs_opts\) = "' -- 'selftests/*.c' 'selftests/*.h' ':!selftests/iopath_test.h')
if [ -n "$presets" ] && [ -z "$bad" ]; then ok "lint.filesystem_variants_named_by_their_preset"; else
	echo "$bad" | sed 's/^/# /'; not_ok "lint.filesystem_variants_named_by_their_preset"; fi

# cli/ shows which command each file belongs to: cmd_NAME.c registers
# iopath NAME, and every other file is NAME.h or NAME_what.[ch] of a
# command, shared_what.[ch] (used by several, which its header comment
# says: "Shared by"), or the dispatcher (main.c, cli.[ch]). A command of
# several files has a folder of its own, cli/NAME/, holding cmd_NAME.c
# and all of its parts and nothing else; the dispatcher and the shared
# files stay in cli/. calibrate.c, jobs.c and recset.c said nothing of
# iopath bench or of who else uses them; bench_*.c lay among 57 others.
cmds=" $(git grep -h 'IOP_COMMAND("' -- 'cli/cmd_*.c' 'cli/*/cmd_*.c' | sed -n 's/.*IOP_COMMAND("\([a-z]*\)".*/\1/p' | tr '\n' ' ')"
bad=""
for f in $(git ls-files 'cli/*'); do
	b=$(basename "$f")
	stem=${b%.[ch]}
	dir=${f#cli/}
	dir=${dir%"$b"}
	dir=${dir%/}
	# the command the file belongs to by its name; its folder, if it has one
	case $b in
	main.c|cli.c|cli.h|shared_*.[ch]) own="" ;;
	cmd_*.c) own=${stem#cmd_} ;;
	*) own=${stem%%_*} ;;
	esac
	if [ -n "$own" ] && [ -f "cli/$own/cmd_$own.c" ]; then
		[ "$dir" = "$own" ] || { bad="$bad $f"; continue; }
	else
		[ -z "$dir" ] || { bad="$bad $f"; continue; }
	fi
	case $b in
	main.c|cli.c|cli.h) continue ;;
	cmd_*.c) [[ $cmds == *" $own "* ]] && grep -q "IOP_COMMAND(\"$own\"" "$f" && continue ;;
	shared_*.[ch]) sed -n '1,/^#/p' "$f" | grep -q 'Shared by' && continue ;;
	*.[ch]) [[ $cmds == *" $own "* ]] && continue ;;
	esac
	bad="$bad $f"
done
if [ "$cmds" != " " ] && [ -z "$bad" ]; then ok "lint.cli_files_named_for_their_command"; else
	echo "# not cmd_NAME.c, NAME.h, NAME_*.[ch] of a command (in cli/NAME/ where the command has that folder) or shared_*.[ch] in cli/ saying 'Shared by':$bad"
	not_ok "lint.cli_files_named_for_their_command"; fi

bad=$(git grep -nE '^(    )+[a-z{}]' -- '*.c' '*.h' | grep -v '^.*: \*' | head -5)
if [ -z "$bad" ]; then ok "lint.c_indents_with_tabs"; else
	echo "$bad" | sed 's/^/# /'; not_ok "lint.c_indents_with_tabs"; fi

# A record is read once, into its typed view (iop_rec_parse() in
# lib/record_view.c, every field checked there): compare and plot take
# struct iop_rec from the load on and make JSON only for their output
# (docs/records.md, "The walk of a record"). A JSON read in their files
# is a second reader of the record, with checks of its own or none.
mapfile -t typed < <(git ls-files 'cli/shared_recset.[ch]' 'cli/cmd_plot.c' 'cli/compare/*')
bad=$(git grep -nE 'json_(object_get|object_iter|object_foreach|object_size|array_get|array_foreach|array_size|string_value|string_length|integer_value|number_value|real_value|boolean_value|is_[a-z]+|unpack|equal|load)' -- "${typed[@]}")
git grep -q 'iop_rec_parse' -- cli/shared_recset.c ||
	bad="${bad:+$bad
}cli/shared_recset.c: no iop_rec_parse(), so no typed view"
if [ "${#typed[@]}" -ge 4 ] && [ -z "$bad" ]; then ok "lint.compare_and_plot_read_records_typed"; else
	echo "$bad" | sed 's/^/# /'; not_ok "lint.compare_and_plot_read_records_typed"; fi

# The QEMU plugin is compiled only by make qemu-plugin, against a header
# from QEMU's source that is never committed, so nothing in make check
# compiles it: preprocess it here with the warnings it is built with and
# an empty header in that one's place. Catches: a "/*" inside a comment
# that broke the plugin's build while every check passed.
hdr=$(mktemp -d) || exit 1
: > "$hdr/qemu-plugin.h"
if err=$(gcc -E -Wall -Wextra -Werror -I"$hdr" contrib/qemu-plugin/tbcount.c 2>&1 > /dev/null); then
	ok "lint.qemu_plugin_preprocesses_without_warnings"
else
	echo "$err" | head -n 3 | sed 's/^/# /'; not_ok "lint.qemu_plugin_preprocesses_without_warnings"
fi
rm -rf "$hdr"

if command -v shellcheck >/dev/null 2>&1; then
	mapfile -t scripts < <(git ls-files '*.sh')
	if shellcheck -x -S warning "${scripts[@]}" .ci/run; then
		ok "lint.shellcheck"
	else
		not_ok "lint.shellcheck"
	fi
else
	skip "lint.shellcheck" "shellcheck not installed"
fi

finish_tap
