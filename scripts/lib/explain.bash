# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Sourced by scripts/ab.sh: --explain. Every boot runs with the tbcount
# QEMU plugin (iopath vm --tb-counts: each kernel translation block's
# executions, counted inline so the guest's instruction count is
# unchanged), and iopath tbprof explain lists the kernel functions whose
# instructions per operation changed from A to B, by each side's
# System.map. An operation is an entry into a function: --per, or the one
# configs/ab/explain-per names for the benchmark.
#
# The caller sets explain, per, map_a, map_b, ksrc, accel, profile,
# bench_args, build, boot (0 under a fake VM), out, state, logs, iopath.

# explain_check: bad input refused before anything is made.
explain_check() {
	local f b name
	local -a benches=() found=()
	if [ "$explain" = 0 ]; then
		[ ${#per[@]} = 0 ] && [ -z "$map_a$map_b" ] ||
			usage_error "--per, --map-a and --map-b go with --explain"
		return 0
	fi
	[ "$accel" = tcg ] || usage_error "--explain counts TCG's translation blocks: not under KVM (--accel tcg)"
	for f in "${per[@]}"; do
		[[ $f =~ ^[A-Za-z_][A-Za-z0-9_.]{0,127}$ ]] || usage_error "--per '$(esc "$f")': not a kernel function name"
	done
	if [ -n "$ksrc" ]; then
		[ -z "$map_a$map_b" ] || usage_error "--map-a and --map-b go with --a and --b (--ksrc: the build's own)"
	else
		for f in --map-a:"$map_a" --map-b:"$map_b"; do
			[ -n "${f#*:}" ] || usage_error "--explain with --a and --b needs ${f%%:*} (the kernel's System.map)"
			[ -f "${f#*:}" ] && [ ! -L "${f#*:}" ] || usage_error "${f%%:*} $(esc "${f#*:}"): not a regular file"
		done
	fi
	[ ${#per[@]} = 0 ] || return 0
	# The benchmarks run: the profile's sections, or the one after --.
	if [ -n "$profile" ]; then
		f=$profile
		[[ $f == */* ]] || [ -f "$f" ] || f=$top/configs/bench/$profile.conf
		mapfile -t benches < <(sed -n 's/^\[\([a-z0-9_]*\)\][[:space:]]*$/\1/p' "$f" 2>/dev/null)
	else
		benches=("${bench_args[0]}")
	fi
	for b in "${benches[@]}"; do
		name=$(awk -v b="$b" '$1 == b && NF == 2 { print $2 }' "$top/configs/ab/explain-per")
		[ -n "$name" ] || usage_error "--explain: configs/ab/explain-per names no operation for '$(esc "$b")'; give --per FUNC"
		[[ " ${found[*]} " == *" $name "* ]] || found+=("$name")
	done
	[ ${#found[@]} = 1 ] ||
		usage_error "--explain: the benchmarks count different operations ($(esc "${found[*]}")); give --per FUNC"
	per=("${found[0]}")
}

# explain_plugin: the plugin built for the installed QEMU (a fake VM needs none).
explain_plugin() {
	[ "$boot" = 1 ] || return 0
	"$top/scripts/qemu-plugin.sh" --build "$build" > /dev/null || exit $?
}

# explain_report PAIRS: the table of pairs 1 .. PAIRS into OUT/explain.txt
# (and .tsv), printed.
explain_report() {
	local k side rc f
	local -a args=() tsv
	for f in "$map_a" "$map_b"; do
		[ -f "$f" ] || fail "--explain: no System.map for a side ($(esc "$f")): the build made none"
	done
	for k in "${per[@]}"; do
		args+=(--per "$k")
	done
	for side in A B; do
		for ((k = 1; k <= $1; k++)); do
			args+=("--$(tr 'AB' 'ab' <<< "$side")" "$out/logs/$side.$k.tb")
		done
	done
	new_file "$state/explain.txt" && new_file "$state/explain.tsv" || exit 1
	for f in txt tsv; do
		tsv=()
		[ "$f" = txt ] || tsv=(--tsv)
		"$iopath" tbprof explain --map-a "$map_a" --map-b "$map_b" "${args[@]}" "${tsv[@]}" \
			>> "$state/explain.$f" 2> "$logs/explain.err"
		rc=$?
		[ "$rc" = 0 ] || fail "iopath tbprof explain failed (exit $rc): $(esc "$(head -n 1 "$logs/explain.err")")"
		write_file "$out/explain.$f" < "$state/explain.$f" || exit 1
	done
	echo
	cat "$out/explain.txt"
}
