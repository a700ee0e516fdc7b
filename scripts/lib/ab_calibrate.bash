# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# shellcheck disable=SC2154,SC2034 # prog, top, work, obj, ksrc ...: scripts/ab.sh's
#
# iopath ab --calibrate: does the stated MDE keep its promise? A is the
# tree as it is; each planted kernel is A with N extra instructions per
# operation on every A/B profile's measured path (scripts/plant.sh: one
# generated patch per site and size, gathered into one patch per size).
# Each planted kernel is checked in its vmlinux to add exactly N nops to
# each site's function and nothing else, then compared with A by an iopath
# ab of its own (the same profile, boots and clock), and the table says
# for each verdict metric: planted, measured per operation with its CI,
# the MDE the run stated, and whether the change was detected.
#
# Sourced by scripts/ab.sh after its checks, with its variables and
# functions (build_side, configure, note, fail, write_file, phase ...).

# plant_count FUNC: "OTHERS NOPS" of FUNC in WORK/obj/vmlinux: its
# instructions other than nops and padding (int3, multi-byte nops), and
# its one-byte nops, up to its last instruction that is neither: the
# alignment after it (-falign-functions) is no part of it. Empty when the
# function is not there.
plant_count() {
	objdump -d --no-show-raw-insn --disassemble="$1" "$obj/vmlinux" 2> /dev/null |
		awk '/^ *[0-9a-f]+:\t/ {
			sub(/^ *[0-9a-f]+:\t/, "")
			op[++n] = $0 ~ /^nop *$/ ? "nop" : $0 ~ /^(int3|nop|xchg +%ax,%ax|cs nop|data16|ds nop)/ ? "pad" : "insn"
			if (op[n] == "insn") last = n
		}
		END {
			if (!n) exit
			for (i = 1; i <= last; i++) { if (op[i] == "insn") o++; else if (op[i] == "nop") k++ }
			printf "%d %d\n", o, k
		}'
}

# plant_check SIDE N: each site's function in the vmlinux just built has
# N more one-byte nops than A's and no other instruction more or less.
declare -A plant_base=()
plant_check() {
	local side=$1 n=$2 name func bench c o k bo bk
	while read -r name _ func bench; do
		c=$(plant_count "$func")
		[ -n "$c" ] || fail "$side: no function $func in $obj/vmlinux: the plant cannot be checked"
		if [ "$n" = 0 ]; then
			plant_base[$func]=$c
			continue
		fi
		read -r o k <<< "$c"
		read -r bo bk <<< "${plant_base[$func]}"
		[ "$o" = "$bo" ] && [ "$((k - bk))" = "$n" ] ||
			fail "$side: $func has $((k - bk)) nops and $((o - bo)) other instructions more than A's, not $n and 0: the plant ($name) is not what it says"
		printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$func" "$((k - bk))" "$((o - bo))" "$bench" >> "$out/plants.tsv"
	done < <("$top/scripts/plant.sh" --sites)
}

# calibrate_rows N: the machine lines of the A/B of size N (iopath
# compare --format planted) as rows of OUT/calibrate.tsv.
calibrate_rows() {
	local n=$1 line re
	"$iopath" compare "$out/plant-$n/A.jsonl" "$out/plant-$n/B.jsonl" --format planted \
		> "$out/logs/planted-$n.txt" 2> "$out/logs/planted-$n.err" ||
		fail "iopath compare --format planted failed: $(esc "$(head -n 1 "$out/logs/planted-$n.err")")"
	re='^# IOPATH-PLANTED: bench=([a-z0-9_]+) fs=([a-z0-9_]+) metric=([a-z0-9_]+) per_op=([-0-9.]+) delta=([-0-9.naif]+) lo=([-0-9.naif]+) hi=([-0-9.naif]+) change=([-0-9.naife]+) mde=([-0-9.naife]+) verdict=(improvement|regression|none)$'
	while IFS= read -r line; do
		[[ $line =~ $re ]] || fail "iopath compare --format planted: an unexpected line: $(esc "$line")"
		awk -v n="$n" -v b="${BASH_REMATCH[1]}" -v fs="${BASH_REMATCH[2]}" -v m="${BASH_REMATCH[3]}" \
			-v per="${BASH_REMATCH[4]}" -v d="${BASH_REMATCH[5]}" -v lo="${BASH_REMATCH[6]}" \
			-v hi="${BASH_REMATCH[7]}" -v mde="${BASH_REMATCH[9]}" -v v="${BASH_REMATCH[10]}" 'BEGIN {
			pct = 100 * n / per
			tol = 0.1 * n > 0.5 ? 0.1 * n : 0.5
			det = v == "regression" ? "yes" : "no"
			within = (d - n <= tol && n - d <= tol) ? "yes" : "no"
			above = pct >= 100 * mde ? "yes" : "no"
			printf "%d\t%s\t%s\t%s\t%.4f\t%.4f\t%.3f\t%.3f\t%.3f\t%.4f\t%s\t%s\t%s\t%s\n",
				n, b, fs, m, per, pct, d, lo, hi, 100 * mde, v, det, within, above
		}' >> "$out/calibrate.tsv"
	done < "$out/logs/planted-$n.txt"
}

calibrate_run() {
	local n rc missed=0 off=0 rows=0 said p
	local -a prof=()
	configure
	phase configure
	build_side A ""
	plant_check A 0
	phase "build A"
	mkdir "$out" "$out/kernels" "$out/logs" || fail "cannot create $(esc "$out")"
	printf 'planted\tfunction\tnops_added\tothers_added\tbench\n' | write_file "$out/plants.tsv" || exit 1
	# Each kernel's System.map beside it: what attributes a guest address
	# to a function (iopath ab --explain), the planted one for each plant
	write_file "$out/kernels/A.bzImage" < "$work/kernels/A.bzImage" &&
		write_file "$out/kernels/A.System.map" < "$obj/System.map" || exit 1
	for n in "${plants[@]}"; do
		build_side "P$n" "$state/plant-$n.patch"
		plant_check "P$n" "$n"
		write_file "$out/kernels/plant-$n.bzImage" < "$work/kernels/P$n.bzImage" &&
			write_file "$out/kernels/plant-$n.System.map" < "$obj/System.map" || exit 1
		phase "build +$n"
	done
	# The kernels are the run's now: the work directory is free for
	# others; each A/B below has a work directory of its own in OUT.
	ksrc=""
	exec 8<&-
	if [ -n "$profile" ]; then
		prof=(--profile "$profile")
	else
		prof=(-- "${bench_args[@]}")
	fi
	printf 'planted\tbench\tfs\tmetric\tper_op_a\tplanted_pct\tmeasured\tci_lo\tci_hi\tmde_pct\tverdict\tdetected\twithin_tolerance\tat_or_above_mde\n' |
		write_file "$out/calibrate.tsv" || exit 1
	for n in "${plants[@]}"; do
		note "+$n instructions per operation: A/B of $boots pairs"
		"$0" --a "$out/kernels/A.bzImage" --b "$out/kernels/plant-$n.bzImage" --out "$out/plant-$n" \
			--work "$out/work" --build "$build" --boots "$boots" --accel "$accel" \
			--timeout "$timeout_s" --jobs "$jobs" ${target_ci:+--target-ci "$target_ci"} "${prof[@]}" \
			> "$out/logs/plant-$n.out" 2> "$out/logs/plant-$n.err"
		rc=$?
		[ "$rc" = 0 ] || fail "the A/B of +$n failed (exit $rc): $(esc "$(tail -n 1 "$out/logs/plant-$n.err")")"
		calibrate_rows "$n"
		phase "A/B +$n"
	done
	{
		printf 'phase\tseconds\n'
		printf '%s\n' "${phases[@]}"
		printf 'total\t%s\n' "$((SECONDS - run_t0))"
	} | write_file "$out/phases.tsv" || exit 1
	echo "planted  bench/fs/metric                         per-op A   planted%   measured  95% CI              MDE%     verdict       detected"
	while IFS=$'\t' read -r n b fs m per pct d lo hi mde v det within above; do
		[ "$n" = planted ] && continue
		rows=$((rows + 1))
		printf '%+7d  %-38s %10.2f %9.4f%% %+10.3f  [%+.3f, %+.3f] %8.4f%% %-13s %s%s\n' "$n" "$b/$fs/$m" "$per" "$pct" "$d" "$lo" "$hi" "$mde" "$v" "$det" \
			"$([ "$within" = yes ] || echo ', off by more than 10% or 0.5')"
		[ "$above" = yes ] && [ "$det" != yes ] && missed=$((missed + 1))
		[ "$det" = yes ] && [ "$within" != yes ] && off=$((off + 1))
	done < "$out/calibrate.tsv"
	said=""
	for p in "${phases[@]}"; do
		said+="${said:+, }${p%%$'\t'*} ${p##*$'\t'} s"
	done
	note "time: $said; $((SECONDS - run_t0)) s in all"
	echo
	echo "iopath ab: calibration: $rows rows; $missed planted at or above the stated MDE and not detected; $off detected off the planted count by more than 10% or 0.5 instructions"
	note "records, logs and the table in $out (calibrate.tsv)"
	return 0
}
