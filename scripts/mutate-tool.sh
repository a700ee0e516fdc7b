#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath mutate-tool: what the checks of iopath's own statistics and
# benchmark harness catch, measured the way scripts/mutate.sh measures the
# selftests against the kernel. Each mutant of configs/mutants/tool/ is a
# patch against this tree that plants one plausible bug in the code a
# verdict rests on (the MDE, the trimmed standard error, the unit of a
# nested comparison, precision stopping, the known effect of a
# calibration, a floor metric).
#
# A copy of the tree (WORK/src, without build/, results/ and .git) is built
# once and every test program a mutant names is run on it: the checks that
# pass there are the baseline. Then for each mutant: apply, rebuild, run
# its test programs, revert, and classify:
#
#   killed      a baseline check failed or never reported (the program
#               crashed or ran out of time); the failed checks are listed,
#               and whether they include what the header's "# Expect:"
#               globs name
#   survived    every baseline check passed
#   no-build    the patch does not apply or the tree does not compile
#
# The tree this script lives in is never written: only the copy is
# mutated, and every touched file is compared with the original after
# the revert.
#
# Exit: 0 every mutant killed, 1 otherwise, 2 bad usage or input.
set -u

prog="iopath: mutate-tool"
top=$(cd "$(dirname "$0")/.." && pwd)
# usage_error, fail, patch_header, patch_expects, load_mutants
# shellcheck source=scripts/lib/common.bash
. "$top/scripts/lib/common.bash"

usage() {
	cat <<EOF
usage: scripts/mutate-tool.sh [options] [MUTANT...]

Copy and build this tree, then for each mutant (a patch in
configs/mutants/tool/, by file name with or without .patch; default all)
apply it, rebuild, run the test programs its header names, revert and
classify. Prints the kill matrix as a Markdown table.

  --work DIR      where the copy is built (must not exist; default a new
                  directory under \$TMPDIR, removed at exit)
  --mutants DIR   the mutant patches (default configs/mutants/tool)
  --timeout S     limit for one test program, 1 to 99999 seconds (default 900)
  --list          list the mutants with their function and tests, and exit
EOF
}

work=""
mutants_dir=$top/configs/mutants/tool
timeout_s=900
list_only=0
want=()
while [ $# -gt 0 ]; do
	case $1 in
	--work|--mutants|--timeout)
		[ $# -ge 2 ] || usage_error "$1 needs a value"
		case $1 in
		--work) work=$2 ;;
		--mutants) mutants_dir=$2 ;;
		--timeout) timeout_s=$2 ;;
		esac
		shift 2 ;;
	--list) list_only=1; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) usage_error "unknown option $1 (--help lists them)" ;;
	*) want+=("${1%.patch}"); shift ;;
	esac
done

# ---- bad input is refused before anything is created -----------------------

check_value --timeout count:1:99999:seconds "$timeout_s"
[ -d "$mutants_dir" ] || usage_error "--mutants: $mutants_dir is not a directory"
if [ -n "$work" ] && [ -e "$work" ]; then
	usage_error "--work: $work exists (give a new directory)"
fi

# check_mutant FILE: each of Tests is tests/NAME.sh or a unit test
# tests/NAME_test.c (built into build/tests/), and no path leaves the tree.
check_mutant() {
	local t err
	for t in $(patch_header "$1" Tests); do
		{ [[ $t =~ ^[a-z0-9_]+\.sh$ ]] && [ -f "$top/tests/$t" ]; } ||
			{ [[ $t =~ ^[a-z0-9_]+_test$ ]] && [ -f "$top/tests/$t.c" ]; } ||
			usage_error "$1: '# Tests: $t' is neither a tests/*.sh script nor a tests/*_test.c unit test"
	done
	# only changes to regular files inside the tree (lib/patch.c)
	err=$("$(iopath_bin)" patch check -- "$1" 2>&1 >/dev/null) || usage_error "${err#iopath: patch: }"
}
declare -A mfile=()
mnames=()
load_mutants "$mutants_dir" check_mutant "${want[@]}"

if [ "$list_only" = 1 ]; then
	for n in "${mnames[@]}"; do
		printf '%-40s %-26s %s\n' "$n" "$(patch_header "${mfile[$n]}" Function)" \
			"$(patch_header "${mfile[$n]}" Tests)"
	done
	exit 0
fi

# ---- the copy ---------------------------------------------------------------

if [ -z "$work" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/iopath-mutate-tool.XXXXXX") || fail "cannot create a work directory"
	trap 'rm -rf "$work"' EXIT
	trap 'exit 130' INT TERM
else
	mkdir -p "$work" || fail "--work: cannot create $work"
fi
src=$work/src
mkdir "$src" "$work/out" || fail "cannot create $src"
tar -C "$top" --exclude=./build --exclude=./results --exclude=./.git -cf - . |
	tar -C "$src" -xf - || fail "cannot copy $top to $src"

log() {
	echo "$prog: $*" >&2
}

build_copy() {
	make -C "$src" cli units > "$work/out/make.log" 2>&1
}

# run_prog NAME OUT: run one test program of the copy, its TAP into OUT.
run_prog() {
	local cmd
	case $1 in
	*.sh) cmd=(bash "$src/tests/$1" "$src/build") ;;
	*) cmd=("$src/build/tests/$1") ;;
	esac
	(cd "$src" && timeout -k 10 "$timeout_s" "${cmd[@]}") > "$2" 2>&1
}

# checks OUT STATUS PROG RC: the names of the checks of test program PROG
# (its TAP in OUT, its exit status RC) that passed (STATUS ok) or failed
# (not_ok), as the verdict engine judges them and its one reader of the
# machine lines says them (iopath verdict --read --cases).
checks() {
	local iop=${IOPATH_BIN:-$top/build/iopath} kind r name
	"$iop" verdict --program "$3" --exit-status "$4" /dev/null /dev/null /dev/null "$1" \
		> "$1.verdict" 2> /dev/null
	"$iop" verdict --read --cases "$1.verdict" 2> /dev/null |
		while read -r kind r _ name _; do
			[ "$kind" = case ] || continue
			case $2:$r in
			ok:pass|not_ok:fail|not_ok:known) echo "$name" ;;
			esac
		done | sort -u
}

log "building the copy in $src"
build_copy || fail "the unmutated copy does not build (see $work/out/make.log)"

progs=$(for n in "${mnames[@]}"; do patch_header "${mfile[$n]}" Tests | tr ' ' '\n'; done |
	sed '/^$/d' | sort -u)
for p in $progs; do
	log "baseline: $p"
	run_prog "$p" "$work/out/base-$p.tap"
	checks "$work/out/base-$p.tap" ok "$p" $? > "$work/out/base-$p.ok"
	[ -s "$work/out/base-$p.ok" ] || fail "$p passes no check on the unmutated copy (see $work/out/base-$p.tap)"
done

# ---- the mutants ------------------------------------------------------------

killed=0
rows=()
for n in "${mnames[@]}"; do
	f=${mfile[$n]}
	# What is applied and reverted is the copy of what lib/patch.c read,
	# and the files compared after the revert are the ones it names.
	copy=$work/out/$n.patch
	files=$("$(iopath_bin)" patch check --out "$copy" -- "$f" 2> "$work/out/$n.patch.log") ||
		fail "$n: $(head -n 1 "$work/out/$n.patch.log")"
	log "$n"
	if ! patch -s -p1 -d "$src" --no-backup-if-mismatch < "$copy" >> "$work/out/$n.patch.log" 2>&1; then
		rows+=("| $n | $(patch_header "$f" Function) | no-build | the patch does not apply |")
		continue
	fi
	if ! build_copy; then
		cls=no-build
		what="does not compile"
	else
		failed=""
		for p in $(patch_header "$f" Tests); do
			run_prog "$p" "$work/out/$n-$p.tap"
			rc=$?
			[ "$rc" = 124 ] && failed="$failed $p(timed out)"
			# a baseline check that failed or never reported
			for c in $(comm -23 "$work/out/base-$p.ok" <(checks "$work/out/$n-$p.tap" ok "$p" "$rc")); do
				failed="$failed $c"
			done
		done
		if [ -n "$failed" ]; then
			cls=killed
			killed=$((killed + 1))
			what=${failed# }
			seen=no
			while IFS= read -r g; do
				for c in $failed; do
					# shellcheck disable=SC2053 # the Expect value is a glob
					[[ $c == $g ]] && seen=yes
				done
			done < <(patch_expects "$f")
			what="$what (expected: $seen)"
		else
			cls=survived
			what="every check passed"
		fi
	fi
	patch -s -R -p1 -d "$src" --no-backup-if-mismatch < "$copy" > /dev/null 2>&1 ||
		fail "$n: the revert failed; $src is left as it is"
	for t in $files; do
		cmp -s "$src/$t" "$top/$t" || fail "$n: $t differs from the tree after the revert"
	done
	rows+=("| $n | $(patch_header "$f" Function) | $cls | $what |")
done

echo "| mutant | function | class | failed checks |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "killed $killed of ${#mnames[@]}"
[ "$killed" = "${#mnames[@]}" ]
