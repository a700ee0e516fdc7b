#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath coverage: which basic blocks of the kernel's file I/O fast path
# (configs/kernel/fast-path.files) the selftest collection executes, on
# the kernel a mutation campaign boots. The kernel boots under QEMU TCG
# with the tbcount plugin (iopath vm --tb-counts: every executed
# translation block, counted inline) running every selftest program, and
# iopath tbprof coverage marks the static basic blocks that ran.
#
# Which function belongs to which file comes from the object files of the
# kernel's build tree (nm of OBJ/fs/iomap/iter.o lists what iter.c
# defines, no debug info needed): a static inline of a header emitted out
# of line there counts to that file, a function inlined into a caller is
# part of the caller's blocks. Its address in vmlinux is the symbol of
# that name and size (the one nearest the file's other symbols when
# static functions of one name and size are in two files). The static
# blocks come from objdump of the vmlinux (iopath tbprof blocks).
# Function and block level: the small kernel has no debug info, so no
# lines.
#
# Exit: 0 the table was written, 1 a boot or a tool failed, 2 bad usage.
set -u

prog="iopath: coverage"
top=$(cd "$(dirname "$0")/.." && pwd)
# usage_error, fail, write_file, new_file, esc
# shellcheck source=scripts/lib/common.bash
. "$top/scripts/lib/common.bash"

usage() {
	cat <<EOF
usage: iopath coverage --obj DIR [--kernel BZIMAGE] [--counts FILE]... [options]

Boot the kernel built in DIR under QEMU TCG with the block-counting plugin,
run every selftest program, and write which basic blocks and functions of
the fast-path files (configs/kernel/fast-path.files) ran: a table by file,
one by function, and the functions never reached.

  --obj DIR        the kernel's build tree (O=): vmlinux, System.map and the
                   object files of the listed sources
  --kernel F       the image to boot (default DIR/arch/x86/boot/bzImage)
  --counts FILE    block counts of an earlier boot (iopath vm --tb-counts)
                   instead of booting; again for more boots of the same
                   kernel (the collection run in parts, at most 64):
                   a block ran when it ran in any of them
  --files LIST     source files, one a line (default
                   configs/kernel/fast-path.files)
  --out DIR        a new directory for blocks.txt, counts.tb (counts.N.tb
                   for several --counts), coverage.txt,
                   coverage.tsv, executed.txt (the functions that ran, for
                   iopath mutant generate --executed) and the logs
                   (default results/coverage-<time>)
  --build DIR      iopath build directory (default build)
  --timeout S      limit for the boot, seconds (default 7200)
EOF
}

obj=""
kernel=""
counts=()
files=$top/configs/kernel/fast-path.files
out=""
build=$top/build
timeout_s=7200
while [ $# -gt 0 ]; do
	case $1 in
	--obj|--kernel|--counts|--files|--out|--build|--timeout)
		[ $# -ge 2 ] || usage_error "$(esc "$1") needs a value"
		case $1 in
		--obj) obj=$2 ;;
		--kernel) kernel=$2 ;;
		--counts) counts+=("$2") ;;
		--files) files=$2 ;;
		--out) out=$2 ;;
		--build) build=$2 ;;
		--timeout) timeout_s=$2 ;;
		esac
		shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) usage_error "unknown argument '$(esc "$1")' (--help lists the options)" ;;
	esac
done

[ -n "$obj" ] || usage_error "--obj DIR is required (the kernel's build tree)"
[ -d "$obj" ] || usage_error "--obj $(esc "$obj"): not a directory"
for f in vmlinux System.map; do
	[ -f "$obj/$f" ] && [ ! -L "$obj/$f" ] || usage_error "--obj $(esc "$obj"): no $f (not a built kernel tree)"
done
kernel=${kernel:-$obj/arch/x86/boot/bzImage}
[ ${#counts[@]} -le 64 ] || usage_error "--counts: ${#counts[@]} files, at most 64"
if [ ${#counts[@]} -gt 0 ]; then
	for c in "${counts[@]}"; do
		[ -f "$c" ] && [ ! -L "$c" ] || usage_error "--counts $(esc "$c"): not a regular file"
	done
else
	[ -f "$kernel" ] || usage_error "--kernel $(esc "$kernel"): not a regular file"
fi
[ -f "$files" ] && [ ! -L "$files" ] || usage_error "--files $(esc "$files"): not a regular file"
mapfile -t srcs < <(grep -v -e '^#' -e '^$' "$files")
[ ${#srcs[@]} -gt 0 ] || usage_error "--files $(esc "$files"): no file in it"
for f in "${srcs[@]}"; do
	[[ $f =~ ^[A-Za-z0-9_][A-Za-z0-9_./-]*\.c$ ]] && [[ $f != *..* ]] ||
		usage_error "--files: '$(esc "$f")' is not a source path of the tree (DIR/NAME.c)"
done
check_value --timeout count:1:999999:seconds "$timeout_s"
[ -d "$build" ] && [ ! -L "$build" ] || usage_error "--build $(esc "$build"): not a directory"
iopath=$build/iopath
[ -x "$iopath" ] || fail "no $(esc "$iopath") (run make)"
if [ -z "$out" ]; then
	out=$top/results/coverage-$(date -u +%Y%m%dT%H%M%SZ)-$$
	mkdir -p "$top/results" || fail "cannot create $top/results"
fi
! has_control "$out" || usage_error "--out $(esc "$out"): a control character in the name (refused: it would be printed raw)"
[ ! -e "$out" ] && [ ! -L "$out" ] || usage_error "--out $(esc "$out"): exists; give a new directory"
[ -d "$(dirname -- "$out")" ] || usage_error "--out $(esc "$out"): no directory $(esc "$(dirname -- "$out")")"
for t in nm objdump; do
	command -v "$t" > /dev/null || fail "$t not found; run 'scripts/deps.sh build'"
done
mkdir "$out" || fail "cannot create $(esc "$out")"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-coverage.XXXXXX") || fail "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT

# ---- the static blocks ----------------------------------------------------

nm -S --defined-only "$obj/vmlinux" 2> /dev/null | awk 'NF == 4 && $3 ~ /^[tTwW]$/' > "$tmp/vmlinux.syms" ||
	fail "nm cannot read $(esc "$obj/vmlinux")"
new_file "$tmp/blocks" || exit 1
new_file "$tmp/lines" || exit 1
# Lines as well as blocks when the kernel was built with debug
# information: -g does not change the code the compiler emits, so the
# blocks, the counts and what ran are the same as without it.
lines=0
objdump -h "$obj/vmlinux" 2> /dev/null | grep -q ' \.debug_line ' && lines=1
for f in "${srcs[@]}"; do
	o=$obj/${f%.c}.o
	if [ ! -f "$o" ]; then
		echo "$prog: $f: no $o (not built in this configuration); left out" >&2
		continue
	fi
	# NAME SIZE of each function the object defines, then the vmlinux
	# symbols of those names and sizes; one address per function.
	nm -S --defined-only "$o" | awk 'NF == 4 && $3 ~ /^[tTwW]$/ && $2 !~ /^0+$/ { print $4, $2 }' > "$tmp/o.syms"
	awk '
	FNR == NR { want[$1 " " $2] = 1; next }
	($4 " " $2) in want { print $4, $1, $2 }
	' "$tmp/o.syms" "$tmp/vmlinux.syms" | sort -k2,2 > "$tmp/cand"
	# Where the file's code lies: the median address of its names with one
	# candidate; a name with more takes the candidate nearest to it.
	mid=$(awk '{ n[$1]++; a[$1] = $2 } END { for (k in n) if (n[k] == 1) print a[k] }' "$tmp/cand" | sort |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
	[ -n "$mid" ] || { echo "$prog: $f: none of its functions found in vmlinux; left out" >&2; continue; }
	awk -v mid="$mid" '
	function low(s,    v, i) {
		v = 0
		s = substr(s, length(s) - 7)
		for (i = 1; i <= 8; i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	{
		d = low($2) - low(mid)
		if (d < 0)
			d = -d
		if (!($1 in best) || d < bd[$1]) {
			best[$1] = $2 " " $3
			bd[$1] = d
		}
	}
	END { for (k in best) print best[k], k }
	' "$tmp/cand" | while read -r a s name; do
		printf '%s %016x %s\n' "$a" "$((0x$a + 0x$s))" "$name"
	done | sort > "$tmp/funcs"
	[ -s "$tmp/funcs" ] || continue
	# The file's functions in the main text lie together; .cold parts and
	# init text elsewhere: one disassembly per cluster 1 MiB apart.
	awk '
	function low(s,    v, i) {
		v = 0
		s = substr(s, length(s) - 7)
		for (i = 1; i <= 8; i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	NR == 1 || low($1) - last > 1048576 { if (NR > 1) print s, e; s = $1 }
	{ e = $2; last = low($2) }
	END { print s, e }
	' "$tmp/funcs" | while read -r s e; do
		{
			awk -v s="$s" -v e="$e" '$1 >= s && $1 < e' "$tmp/funcs"
			echo --
			objdump -d --no-show-raw-insn --start-address="0x$s" --stop-address="0x$e" "$obj/vmlinux"
		} > "$tmp/disasm"
		"$iopath" tbprof blocks --file "$f" "$tmp/disasm" >> "$tmp/blocks" 2> "$tmp/blocks.err" ||
			fail "iopath tbprof blocks failed: $(esc "$(head -n 1 "$tmp/blocks.err")")"
		[ "$lines" = 1 ] || continue
		# The same range with the source line of every instruction and
		# the lines it is inlined by (tbprof_lines.c says why both).
		{
			awk -v s="$s" -v e="$e" '$1 >= s && $1 < e' "$tmp/funcs"
			echo --
			objdump -d -l --inlines --no-show-raw-insn --start-address="0x$s" --stop-address="0x$e" "$obj/vmlinux"
		} > "$tmp/disasm"
		"$iopath" tbprof lines --file "$f" "$tmp/disasm" >> "$tmp/lines" 2> "$tmp/lines.err" ||
			fail "iopath tbprof lines failed: $(esc "$(head -n 1 "$tmp/lines.err")")"
	done || exit 1
done
[ -s "$tmp/blocks" ] || fail "no block of the listed files found in $(esc "$obj/vmlinux")"
write_file "$out/blocks.txt" < "$tmp/blocks" || exit 1
echo "$prog: $(wc -l < "$out/blocks.txt") static blocks in $(cut -d' ' -f3,4 "$out/blocks.txt" | sort -u | wc -l) functions of ${#srcs[@]} files" >&2
if [ "$lines" = 1 ]; then
	[ -s "$tmp/lines" ] || fail "$(esc "$obj/vmlinux") has a line table but no line of the listed files in it"
	write_file "$out/lines.map" < "$tmp/lines" || exit 1
	echo "$prog: $(cut -d' ' -f3,4 "$out/lines.map" | sort -u | wc -l) source lines with instructions" >&2
else
	echo "$prog: $(esc "$obj/vmlinux") has no line table (.debug_line): blocks and functions only; build with CONFIG_DEBUG_INFO for lines" >&2
fi

# ---- the boot -----------------------------------------------------------------

# The counts the tables are made from: counts.tb, or counts.N.tb for the
# Nth of several --counts.
tbs=()
if [ ${#counts[@]} -eq 1 ]; then
	write_file "$out/counts.tb" < "${counts[0]}" || exit 1
	tbs=("$out/counts.tb")
elif [ ${#counts[@]} -gt 1 ]; then
	for i in "${!counts[@]}"; do
		write_file "$out/counts.$((i + 1)).tb" < "${counts[$i]}" || exit 1
		tbs+=("$out/counts.$((i + 1)).tb")
	done
else
	echo "$prog: booting $(esc "$kernel") under TCG with the block-counting plugin, every selftest program" >&2
	# --icount: the guest's clock counts its own instructions, so the
	# tests' time limits and the kernel's timers do not follow a loaded
	# host. Without it, on this 2-vCPU machine shared with other jobs,
	# the harness timed out 188 of 189 tests and hrtimer_forward() warned:
	# the code those runs reached was the timeouts', not the tests'.
	# Under TCG a loaded host slows the boot as much as the run: one limit
	# for all three (as iopath ab has). no_timer_check: as iopath mutate boots (its timer check fails at
	# random on a loaded host under TCG).
	"$top/scripts/vm.sh" --kernel "$kernel" --build "$build" --accel tcg --icount --append no_timer_check \
		--timeout "$timeout_s" --boot-timeout "$timeout_s" --idle-timeout "$timeout_s" \
		--log "$out/console.log" --tb-counts "$out/counts.tb" \
		> "$out/tap.txt" 2> "$out/vm.err"
	rc=$?
	[ -f "$out/counts.tb" ] ||
		fail "the boot gave no block counts (vm exit $rc): $(esc "$(grep -v '^  ' "$out/vm.err" | tail -n 1)")"
	tbs=("$out/counts.tb")
	# A failing test still executed its code: the counts stand, and the
	# run's own result is said.
	echo "$prog: the collection's result: $(esc "$(grep '^vm: ' "$out/vm.err" | tail -n 1)") (vm exit $rc)" >&2
fi

# ---- the tables ----------------------------------------------------------------

for fmt in txt tsv; do
	tsv=()
	[ "$fmt" = txt ] || tsv=(--tsv)
	new_file "$tmp/cov.$fmt" || exit 1
	"$iopath" tbprof coverage --blocks "$out/blocks.txt" "${tsv[@]}" "${tbs[@]}" \
		>> "$tmp/cov.$fmt" 2> "$tmp/cov.err" ||
		fail "iopath tbprof coverage failed: $(esc "$(head -n 1 "$tmp/cov.err")")"
	write_file "$out/coverage.$fmt" < "$tmp/cov.$fmt" || exit 1
done
# The functions that ran, one a line: what iopath mutant generate
# --executed takes, so that a sample is drawn from code the collection
# executes. A system call's body (SYSCALL_DEFINEn) is inlined into its
# entry point __x64_sys_NAME, which is what ran; the generator names that
# body __do_sys_NAME, as the kernel does: both are listed.
new_file "$tmp/executed" || exit 1
{
	echo "# functions of $(esc "$(basename -- "$files")") with a block run, from iopath coverage"
	awk -F'\t' 'NR > 1 && $4 > 0 {
		print $2
		if ($2 ~ /^__x64_sys_/)
			print "__do_sys_" substr($2, 11)
	}' "$out/coverage.tsv" | sort -u
} >> "$tmp/executed"
write_file "$out/executed.txt" < "$tmp/executed" || exit 1
if [ "$lines" = 1 ]; then
	# A line ran when a translation block that ran overlaps one of its
	# instructions: the same overlap rule as a block's, over lines.map.
	# lines.tsv: "file line ran" (1 or 0) for every line with
	# instructions, what iopath mutant generate --executed-lines takes.
	new_file "$tmp/lines.raw" || exit 1
	"$iopath" tbprof coverage --blocks "$out/lines.map" --tsv "${tbs[@]}" \
		>> "$tmp/lines.raw" 2> "$tmp/cov.err" ||
		fail "iopath tbprof coverage of the lines failed: $(esc "$(head -n 1 "$tmp/cov.err")")"
	new_file "$tmp/lines.tsv" || exit 1
	awk -F'\t' 'NR > 1 { print $1 "\t" $2 "\t" ($4 > 0) }' "$tmp/lines.raw" | sort -t"$(printf '\t')" -k1,1 -k2,2n |
		{ printf 'file\tline\tran\n'; cat; } >> "$tmp/lines.tsv"
	write_file "$out/lines.tsv" < "$tmp/lines.tsv" || exit 1
	new_file "$tmp/lines.txt" || exit 1
	awk -F'\t' '
	NR == 1 { next }
	!($1 in n) { order[++k] = $1 }
	{ n[$1]++; r[$1] += $3; tn++; tr += $3 }
	END {
		printf "\nSource lines run, by file (a line with instructions ran when one of them did):\n"
		printf "%-34s %18s %8s\n", "file", "lines", "lines %"
		for (i = 1; i <= k; i++)
			printf "%-34s %7d of %-7d %7.1f%%\n", order[i], r[order[i]], n[order[i]], 100 * r[order[i]] / n[order[i]]
		printf "%-34s %7d of %-7d %7.1f%%\n", "all", tr, tn, tn ? 100 * tr / tn : 0
	}' "$out/lines.tsv" >> "$tmp/lines.txt"
	cat "$tmp/lines.txt" >> "$tmp/cov.txt"
	write_file "$out/coverage.txt" < "$tmp/cov.txt" || exit 1
fi
cat "$out/coverage.txt"
echo "$prog: tables in $out; the executed functions in executed.txt (iopath mutant generate --executed)" >&2
