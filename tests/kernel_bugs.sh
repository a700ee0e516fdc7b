#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every kernel bug configs/known-failures lists has its report
# (docs/kernel-bugs/NAME.md) and its minimal reproducer
# (reproducers/NAME.sh); the reproducer mirrors a test that entry lists,
# so iopath repro's expectation and the verdict's agree; the report quotes
# the reproducer's commands; reproducers are POSIX sh, shellcheck-clean.
# As root: iopath repro runs every reproducer on the running kernel and
# each result must be what known-failures says of it, the ext4 O_DIRECT
# bug must not reproduce on XFS (the reproducer can pass), and bad input
# is refused before anything is created.
set -u
build=${1:-build}
cd "$(dirname "$0")/.." || exit 1
. tests/lib/tap.sh

kf=configs/known-failures

# entries: "KERNEL<tab>TEST-ERE<tab>BUG-NAME" for each entry, from
# the list's one reader (iopath verdict --list).
entries() {
	"$build/iopath" verdict --list "$kf" | cut -f1,2,4
}

names=""
e_names=()
e_tests=()
bad=()
while IFS=$'\t' read -r kre tre bug; do
	if [[ ! $bug =~ ^[a-z0-9][a-z0-9-]*$ ]]; then
		bad+=("no BUG-NAME in the entry '$kre  $tre'")
		continue
	fi
	names="$names $bug"
	e_names+=("$bug")
	e_tests+=("$tre")
	[ -f "docs/kernel-bugs/$bug.md" ] || bad+=("$bug: no docs/kernel-bugs/$bug.md")
	# The report says where the bug lives, as the entry does: its KERNEL
	# releases and ranges, quoted in its "Where it lives" section.
	sed -n '/^## Where it lives$/,/^## /p' "docs/kernel-bugs/$bug.md" 2> /dev/null | grep -qF -- "\`$kre\`" ||
		bad+=("docs/kernel-bugs/$bug.md: its 'Where it lives' section does not quote '$kre'")
	[ -x "reproducers/$bug.sh" ] || bad+=("$bug: no executable reproducers/$bug.sh")
done < <(entries)
# A reproducer names its filesystem and the selftest it mirrors, which an
# entry of its bug lists: iopath repro expects the bug where that entry does.
for i in "${!e_names[@]}"; do
	r=reproducers/${e_names[$i]}.sh
	[ -f "$r" ] || continue
	[ -n "$(sed -n 's/^# repro-fs: *//p' "$r")" ] || bad+=("$r: no '# repro-fs:' line")
done
for bug in $(tr ' ' '\n' <<< "$names" | sort -u); do
	r=reproducers/$bug.sh
	[ -f "$r" ] || continue
	t=$(sed -n 's/^# repro-test: *//p' "$r")
	hit=0
	for i in "${!e_names[@]}"; do
		[ "${e_names[$i]}" = "$bug" ] && [ -n "$t" ] && grep -qE -- "${e_tests[$i]}" <<< "$t" && hit=1
	done
	[ "$hit" = 1 ] || bad+=("$r: repro-test '$t' is no test an entry of $bug lists")
done
if [ ${#bad[@]} = 0 ]; then ok "kernel_bugs.every_known_failure_has_doc_and_reproducer"; else
	not_ok "kernel_bugs.every_known_failure_has_doc_and_reproducer" "${bad[@]}"; fi

bad=()
for r in reproducers/*.sh; do
	bug=$(basename "$r" .sh)
	[[ " $names " == *" $bug "* ]] || bad+=("$r: no entry of configs/known-failures names it")
	d=docs/kernel-bugs/$bug.md
	[ -f "$d" ] || continue
	for s in '## Kernels measured' '## Reproducer' '## Expected and actual' '## Mechanism' \
		 '## Commits' '## Status' '## Draft report'; do
		grep -qF -- "$s" "$d" || bad+=("$d: no '$s' section")
	done
	# The report carries the reproducer's steps (its top-level xfs_io
	# lines) verbatim.
	while IFS= read -r cmd; do
		grep -qF -- "$cmd" "$d" || bad+=("$d: does not quote '$cmd' of $r")
	done < <(grep -E '^xfs_io ' "$r")
done
if [ ${#bad[@]} = 0 ]; then ok "kernel_bugs.reports_quote_their_reproducers"; else
	not_ok "kernel_bugs.reports_quote_their_reproducers" "${bad[@]}"; fi

if command -v shellcheck >/dev/null 2>&1; then
	if out=$(shellcheck -x -s sh reproducers/*.sh reproducers/lib/*.sh scripts/repro.sh 2>&1); then
		ok "kernel_bugs.reproducers_shellcheck_clean_posix_sh"
	else
		not_ok "kernel_bugs.reproducers_shellcheck_clean_posix_sh" "$(head -n 20 <<< "$out")"
	fi
else
	skip "kernel_bugs.reproducers_shellcheck_clean_posix_sh" "shellcheck not installed"
fi

iopath=$build/iopath
out=$("$iopath" repro no-such-bug 2>&1)
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <<< "$out")" = 1 ]; then ok "kernel_bugs.repro_refuses_an_unknown_name"; else
	not_ok "kernel_bugs.repro_refuses_an_unknown_name" "exit $rc: $out"; fi
# A name holding a newline was two patterns to grep -x: a known name on
# one line let the other run, '../../tmp/x/y' included. --list checks
# names the same way without running anything.
for args in "--list" ""; do
	# shellcheck disable=SC2086 # no option, or --list
	out=$("$iopath" repro $args $'ext4-eof-zero-on-extend\n../../nosuch/x' 2>&1)
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <<< "$out")" = 1 ] && grep -q "a bug name is made of" <<< "$out"; then
		ok "kernel_bugs.repro_refuses_a_name_with_a_newline${args:+ ($args)}"
	else
		not_ok "kernel_bugs.repro_refuses_a_name_with_a_newline${args:+ ($args)}" "exit $rc: $(head -3 <<< "$out")"
	fi
done

if [ "$(id -u)" != 0 ]; then
	skip "kernel_bugs.repro_matches_known_failures" "needs root"
	skip "kernel_bugs.repro_reports_a_bug_the_list_does_not_name" "needs root"
	skip "kernel_bugs.repro_ext4_dio_bug_absent_on_xfs" "needs root"
	skip "kernel_bugs.repro_skips_a_bug_whose_command_is_missing" "needs root"
	finish_tap
fi

out=$("$iopath" repro 2>&1)
rc=$?
while IFS= read -r l; do echo "# $l"; done <<< "$out"
if [ "$rc" = 0 ] && ! grep -q ': error:' <<< "$out"; then ok "kernel_bugs.repro_matches_known_failures"; else
	not_ok "kernel_bugs.repro_matches_known_failures" "iopath repro exit $rc"; fi

# The comparison can fail: with no list, a bug that reproduces here is a
# difference (exit 1, and a line saying which test the list lacks).
if grep -q '^ext4-dio-extend-mmap-tail: reproduced$' <<< "$out"; then
	err=$(IOPATH_KNOWN_FAILURES=/dev/null "$iopath" repro ext4-dio-extend-mmap-tail 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = 1 ] && grep -q 'lists no failure of folio_batch.ext4.direct_write_past_eof_mmap_tail' <<< "$err"; then
		ok "kernel_bugs.repro_reports_a_bug_the_list_does_not_name"
	else
		not_ok "kernel_bugs.repro_reports_a_bug_the_list_does_not_name" "exit $rc: $err"
	fi
else
	skip "kernel_bugs.repro_reports_a_bug_the_list_does_not_name" "ext4-dio-extend-mmap-tail does not reproduce on this kernel"
fi

# A reproducer that needs a command besides xfs_io (repro-needs:) is
# skipped where it is missing, as in the busybox guest, not an error:
# PATH here holds every command but python3.
nopy=$(mktemp -d)
for c in /usr/local/sbin/* /usr/local/bin/* /usr/sbin/* /usr/bin/* /sbin/* /bin/*; do
	case ${c##*/} in python3*) continue ;; esac
	[ -x "$c" ] && [ ! -e "$nopy/${c##*/}" ] && ln -s "$c" "$nopy/${c##*/}"
done
out=$(PATH=$nopy "$iopath" repro dio-single-page-misaligned-buffer 2>/dev/null)
rc=$?
rm -rf "$nopy"
if [ "$rc" = 0 ] && [ "$out" = "dio-single-page-misaligned-buffer: skip: python3 not installed" ]; then
	ok "kernel_bugs.repro_skips_a_bug_whose_command_is_missing"
else
	not_ok "kernel_bugs.repro_skips_a_bug_whose_command_is_missing" "exit $rc: $out"
fi

out=$("$iopath" repro --fs xfs ext4-dio-extend-mmap-tail 2>/dev/null)
if [ "$out" = "ext4-dio-extend-mmap-tail: not reproduced" ]; then ok "kernel_bugs.repro_ext4_dio_bug_absent_on_xfs"; else
	not_ok "kernel_bugs.repro_ext4_dio_bug_absent_on_xfs" "got: $out"; fi

finish_tap
