#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath ab (scripts/ab.sh) without booting a kernel: a fake builder (its
# bzImage carries the tree's "cost" file) and a fake VM (its records carry
# that cost per operation, with a little noise per boot) stand in for make
# and scripts/vm.sh. Checked: the sides boot interleaved A B A B; every
# record comes back, each boot with its own boot id; a planted 5% is found
# with the right sign and an A/A run finds nothing; records from another
# clock domain or kernel image, a boot that fails, a patch that does not
# apply or names a file outside the tree, a patch that is anything but
# changes to regular files (the git patch making a symbolic link out of
# the tree, a mode change, a rename, a binary patch ...), each refused
# before anything is built, a benchmark the guest does not
# have and bad usage each end with one line naming the problem; a patch
# may add and delete files; the source tree is as it was (its manifest:
# contents, modes, mtimes) after success, failure, SIGTERM and SIGKILL,
# at once; a work directory with planted links, of someone else's or
# writable by others is refused. (tests/kbuild.sh kills ab at random.)
#
# usage: tests/ab.sh BUILD_DIR   (TAP on stdout)
set -u

build=$(cd "${1:?usage: tests/ab.sh BUILD_DIR}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
fix=$top/tests/fixtures/compare
t=$(mktemp -d "${TMPDIR:-/tmp}/iopath-ab-test.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

# ---- the fakes --------------------------------------------------------------

# shellcheck source=tests/lib/ab_fakes.sh
. "$top/tests/lib/ab_fakes.sh"
# shellcheck source=tests/lib/manifest.sh
. "$top/tests/lib/manifest.sh"
ab_fakes "$t"
echo 'old' > "$t/src/fs/iomap/old.c"
cat > "$t/stale.patch" <<'EOF'
--- a/fs/iomap/cost
+++ b/fs/iomap/cost
@@ -1 +1 @@
-999
+1050
EOF
# A patch that also deletes a file and adds one in a new directory.
cat > "$t/adddel.patch" <<'EOF'
--- a/fs/iomap/cost
+++ b/fs/iomap/cost
@@ -1 +1 @@
-1000
+1050
--- a/fs/iomap/old.c
+++ /dev/null
@@ -1 +0,0 @@
-old
--- /dev/null
+++ b/fs/iomap/new/added.c
@@ -0,0 +1 @@
+added
EOF
cat > "$t/outside.patch" <<'EOF'
--- a/fs/iomap/../../../escape
+++ b/fs/iomap/../../../escape
@@ -1 +1 @@
-1000
+1050
EOF
# every name's contents, mode and mtime
tree_sum() { tree_manifest "$t/src"; }
pristine=$(tree_sum)

echo "cost=1000" > "$t/kA2"

export FIX=$fix FAKE_LOG=$t/log IOPATH_AB_VM=$t/vm IOPATH_AB_BUILDER=$t/builder
ab() { # ab NAME ARGS...: run scripts/ab.sh, out dir $t/NAME, rc and err
	local name=$1
	shift
	: > "$FAKE_LOG"
	"$top/scripts/ab.sh" --build "$build" --work "$t/work" --out "$t/$name" "$@" > "$t/$name.out" 2> "$t/$name.err"
	rc=$?
}
one_line_2() { # NAME: exit 2, one line on stderr with no raw ESC, no output directory
	if [ "$rc" = 2 ] && [ "$(wc -l < "$t/$1.err")" = 1 ] && ! grep -q $'\e' "$t/$1.err" && [ ! -e "$t/$1" ]; then
		ok "ab.bad_usage.$1"
	else
		not_ok "ab.bad_usage.$1 (exit $rc)" "$(head -n 3 "$t/$1.err")"
	fi
}

# ---- bad usage and bad input: one line, exit 2, nothing made ----------------

ab no_arguments; one_line_2 no_arguments
ab a_without_b --a "$t/kA" -- read_vs_readv; one_line_2 a_without_b
ab ksrc_without_patch --ksrc "$t/src" -- read_vs_readv; one_line_2 ksrc_without_patch
ab boots_zero --a "$t/kA" --b "$t/kB" --boots 0 -- read_vs_readv; one_line_2 boots_zero
ab accel_unknown --a "$t/kA" --b "$t/kB" --accel hvf -- read_vs_readv; one_line_2 accel_unknown
ab no_benchmark --a "$t/kA" --b "$t/kB"; one_line_2 no_benchmark
ab bench_not_in_guest --a "$t/kA" --b "$t/kB" -- no_such_bench; one_line_2 bench_not_in_guest
check_cmd ab.bench_not_in_guest_names_it grep -q "no benchmark 'no_such_bench'" "$t/bench_not_in_guest.err"
ab kernel_missing --a "$t/nokernel" --b "$t/kB" -- read_vs_readv; one_line_2 kernel_missing
ab patch_does_not_apply --ksrc "$t/src" --patch "$t/stale.patch" -- read_vs_readv; one_line_2 patch_does_not_apply
check_cmd ab.patch_does_not_apply.nothing_built test ! -s "$FAKE_LOG" -a "$(tree_sum)" = "$pristine"
# A newline or ESC in an argument, printed raw: two lines, or a terminal
# escape. Each is one line with the character as \xHH.
ab patch_newline --ksrc "$t/src" --patch $'x\ny' -- read_vs_readv; one_line_2 patch_newline
ab boots_newline --a "$t/kA" --b "$t/kB" --boots $'1\n2' -- read_vs_readv; one_line_2 boots_newline
ab ksrc_newline --ksrc $'/nonexistent\nX' --patch "$t/plus5.patch" -- read_vs_readv; one_line_2 ksrc_newline
ab unknown_newline $'--no\nsuch'; one_line_2 unknown_newline
ab accel_esc --a "$t/kA" --b "$t/kB" --accel $'\e[31mkvm' -- read_vs_readv; one_line_2 accel_esc
check_cmd ab.bad_usage.accel_esc_escaped grep -qF -- "--accel '\x1b[31mkvm'" "$t/accel_esc.err"
# --work naming a file, or a name below one: raw mkdir errors, exit 1.
ab work_file --a "$t/kA" --b "$t/kB" --work "$t/kA" -- read_vs_readv; one_line_2 work_file
ab work_below_file --a "$t/kA" --b "$t/kB" --work "$t/kA/w" -- read_vs_readv; one_line_2 work_below_file
ab build_missing --a "$t/kA" --b "$t/kB" --build "$t/nobuild" -- read_vs_readv; one_line_2 build_missing
check_cmd ab.bad_usage.build_missing_names_it grep -qF -- "--build: no directory $t/nobuild" "$t/build_missing.err"
# A newline in a profile or benchmark name: the message was cut there,
# with no reason.
ab profile_newline --a "$t/kA" --b "$t/kB" --profile $'x\ny'; one_line_2 profile_newline
check_cmd ab.bad_usage.profile_newline_says_why grep -qF -- "--profile 'x\x0ay': a control character in the name" "$t/profile_newline.err"
ab bench_newline --a "$t/kA" --b "$t/kB" -- $'read_vs_readv\nX'; one_line_2 bench_newline
check_cmd ab.bad_usage.bench_newline_says_why grep -qF -- "'read_vs_readv\x0aX': a control character in it" "$t/bench_newline.err"
mkdir "$t/exists"
ab exists --a "$t/kA" --b "$t/kB" -- read_vs_readv
check_cmd ab.bad_usage.out_exists test "$rc" = 2 -a "$(wc -l < "$t/exists.err")" = 1

# ---- missing packages: named before anything starts --------------------------

# IOPATH_DEPS_ROOT: scripts/deps.sh looks there instead of /; an empty
# directory is a machine without flex, qemu or patch. Without a builder,
# --ksrc fetched and unpacked the source and then failed in configure
# with "kernel configuration failed".
mkdir -p "$t/noroot" "$t/patchroot/usr/bin"
touch "$t/patchroot/usr/bin/patch"
deps_run() { # NAME ROOT ARGS...: ab with that root, a fresh work directory
	local name=$1 root=$2
	shift 2
	: > "$FAKE_LOG"
	IOPATH_DEPS_ROOT=$root "$top/scripts/ab.sh" --build "$build" --work "$t/$name.work" --out "$t/$name" "$@" \
		> "$t/$name.out" 2> "$t/$name.err"
	rc=$?
}
deps_said() { # NAME WANT UNWANTED: exit 1, one line naming WANT and the install command, nothing made
	[ "$rc" = 1 ] && [ "$(wc -l < "$t/$1.err")" = 1 ] && grep -qw -- "$2" "$t/$1.err" &&
		grep -q 'install with: sudo apt-get install' "$t/$1.err" && ! grep -qw -- "$3" "$t/$1.err" &&
		[ ! -e "$t/$1.work" ] && [ ! -e "$t/$1" ] && [ ! -s "$FAKE_LOG" ]
}
IOPATH_AB_BUILDER="" deps_run deps_ksrc "$t/noroot" --ksrc "$t/src" --patch "$t/plus5.patch" -- read_vs_readv
check_cmd ab.deps.ksrc_build_packages_named_before_work_is_made deps_said deps_ksrc flex qemu-system-x86
check_cmd ab.deps.ksrc_patch_named grep -qw patch "$t/deps_ksrc.err"
IOPATH_AB_VM="" deps_run deps_vm "$t/noroot" --a "$t/kA" --b "$t/kB" -- read_vs_readv
check_cmd ab.deps.two_kernels_need_the_vm_packages_only deps_said deps_vm qemu-system-x86 flex
deps_run deps_fakes "$t/patchroot" --ksrc "$t/src" --patch "$t/plus5.patch" --boots 2 -- read_vs_readv
check_cmd ab.deps.fake_builder_and_vm_need_no_build_or_vm_packages \
	test "$rc" = 0 -a "$(grep -c '^build ' "$FAKE_LOG")" = 2
deps_run deps_fakes_ab "$t/noroot" --a "$t/kA" --b "$t/kB" --boots 2 -- read_vs_readv
check_cmd ab.deps.two_kernels_with_fake_vm_need_nothing test "$rc" = 0

# ---- two kernels: order, records, verdict ------------------------------------

ab plus5 --a "$t/kA" --b "$t/kB" --boots 3 -- read_vs_readv reps=5
check_cmd ab.two_kernels.exit_0 test "$rc" = 0
# Boot i of A and boot i of B, one seed per pair: the log in pair order
check_cmd ab.pairs_a_b_in_order \
	test "$(sed -n 's/^boot \([0-9]*\) .* name=\([AB]\.[0-9]\) .*/\2=\1/p' "$FAKE_LOG" | sort -t. -k2,2n -k1,1 | tr '\n' ' ')" = \
	"A.1=1000 B.1=1050 A.2=1000 B.2=1050 A.3=1000 B.3=1050 "
# Each boot had a fresh random seed: whatever the seed decides in the
# guest differed between A and B of a pair.
seeds_paired() { # LOG: A.i and B.i one seed, 32 hex digits, a new one each pair
	local i a b all=""
	for ((i = 1; i <= $2; i++)); do
		a=$(sed -n "s/^boot .* name=A\.$i seed=\([0-9a-f]*\) .*/\1/p" "$1")
		b=$(sed -n "s/^boot .* name=B\.$i seed=\([0-9a-f]*\) .*/\1/p" "$1")
		[[ $a =~ ^[0-9a-f]{32}$ ]] && [ "$a" = "$b" ] || return 1
		[[ $all != *"$a"* ]] || return 1
		all+=" $a"
	done
}
check_cmd ab.pairs.one_seed_per_pair seeds_paired "$FAKE_LOG" 3
# The guest's start date is input too: B starting a moment after A gave
# its falloc 3 more ops per 10^9 instructions in 8 of 9 pairs of an A/A.
# One date per pair, and no two pairs' boots of one date (their records
# would carry one time).
rtc_paired() { # LOG N: A.i and B.i one --rtc-base, a different one each pair
	local i a b all=""
	for ((i = 1; i <= $2; i++)); do
		a=$(sed -n "s/^boot .* name=A\.$i .* rtc=\([0-9T:-]*\)\$/\1/p" "$1")
		b=$(sed -n "s/^boot .* name=B\.$i .* rtc=\([0-9T:-]*\)\$/\1/p" "$1")
		[[ $a =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$ ]] && [ "$a" = "$b" ] ||
			return 1
		[[ $all != *"$a"* ]] || return 1
		all+=" $a"
	done
}
check_cmd ab.pairs.one_start_date_per_pair rtc_paired "$FAKE_LOG" 3
check_cmd ab.pairs.compared_as_pairs grep -q 'tested over 3 boots (base) and 3 boots (new), paired by seed' "$t/plus5/report.txt"
check_cmd ab.report_shows_each_boots_median \
	grep -qE '^  new  readv_ns +1050 +1050 +1050$' "$t/plus5/report.txt"
check_cmd ab.tcg_counts_instructions test "$(grep -c 'icount=1' "$FAKE_LOG")" = 6
check_cmd ab.records_collected \
	test "$(wc -l < "$t/plus5/A.jsonl")" = 15 -a "$(wc -l < "$t/plus5/B.jsonl")" = 15
check_cmd ab.a_boot_id_per_boot \
	test "$(cat "$t/plus5/A.jsonl" "$t/plus5/B.jsonl" | jq -r .env.kernel.boot_id | sort -u | wc -l)" = 6
check_cmd ab.compare_tests_over_boots grep -q 'boots' "$t/plus5/report.txt"
check_cmd ab.verdict.planted_5pct_found_as_regression \
	grep -qE '^iopath ab: read_vs_readv readv_ns: \+(4\.9[0-9]{2}|5\.0[0-9]{2})% \[.*\], regression \(could have seen >= [0-9.]+%; instructions, QEMU TCG icount, 3 boots a side, paired\)$' "$t/plus5/verdict.txt"
check_cmd ab.verdict.printed_last test "$(tail -n 1 "$t/plus5.out")" = "$(tail -n 1 "$t/plus5/verdict.txt")"
# The verdict line was built in jq from a second compare's JSON: now C
# writes it, to the digits of that jq, and one compare writes the report,
# the JSON and the verdict.
check_cmd ab.verdict.is_compare_format_verdict \
	test "$("$build/iopath" compare "$t/plus5/A.jsonl" "$t/plus5/B.jsonl" --format verdict)" = "$(cat "$t/plus5/verdict.txt")"
jq_verdict() { # the jq that made the line before, on compare's JSON
	jq -r --arg clock "instructions, QEMU TCG icount" --argjson boots 3 '
		def fixed3: (. * 100000 | round) as $h | ($h | fabs) as $a
			| "\($a / 1000 | floor).\($a % 1000 | tostring | "00" + . | .[-3:])"
			| if $h < 0 then "-" + . else . end;
		def pct: fixed3 | if startswith("-") then . else "+" + . end;
		.comparisons[0].groups[] as $g
		| ($g.metrics | map(select(.name == ($g.main_metric // $g.metrics[0].name))) | .[0]) as $m
		| "iopath ab: \($g.bench) \($m.name): \($m.change | pct)% [\($m.ci[0] | pct)%, \($m.ci[1] | pct)%], \($m.verdict) (could have seen >= \($m.mde | fixed3)%; \($clock), \($boots) boots a side, paired)"' "$1"
}
check_cmd ab.verdict.digits_as_jq_gave_them test "$(jq_verdict "$t/plus5/compare.json")" = "$(cat "$t/plus5/verdict.txt")"
# compare ran twice per A/B (text, then --format json).
mkdir -p "$t/wrap"
printf '#!/bin/bash\necho "$1" >> %q\nexec %q "$@"\n' "$t/wrap.calls" "$build/iopath" > "$t/wrap/iopath"
chmod +x "$t/wrap/iopath"
: > "$t/wrap.calls"
"$top/scripts/ab.sh" --build "$t/wrap" --work "$t/work" --out "$t/once" --a "$t/kA" --b "$t/kB" --boots 2 \
	-- read_vs_readv > /dev/null 2>&1
check_cmd ab.compare_runs_once test "$(grep -c '^compare$' "$t/wrap.calls")" = 1 -a -s "$t/once/compare.json"
# Records were checked by jq in ab.sh, a reader of their own; now by
# iopath records check.
check_cmd ab.records_checked_by_iopath_records_check \
	bash -c '! grep -qw jq "$1" && test "$(grep -c "^records$" "$2")" = 4' _ "$top/scripts/ab.sh" "$t/wrap.calls"

# ---- side by side under icount, one at a time under KVM ---------------------

# overlaps LOG A B: the boots named A and B ran at the same time
overlaps() {
	awk -v a="$2" -v b="$3" '$1 == "time" && $2 == a { s1 = $3; e1 = $4 } $1 == "time" && $2 == b { s2 = $3; e2 = $4 }
		END { exit !(s1 != "" && s2 != "" && s1 < e2 && s2 < e1) }' "$1"
}
# none_overlap LOG: no two boots ran at the same time
none_overlap() {
	awk '$1 == "time" { s[n] = $3; e[n++] = $4 }
		END { for (i = 0; i < n; i++) for (j = 0; j < i; j++) if (s[i] < e[j] && s[j] < e[i]) exit 1; exit !(n > 0) }' "$1"
}
if [ "$(nproc)" -ge 2 ]; then
	FAKE_BOOT_SLEEP=0.5 ab side_by_side --a "$t/kA" --b "$t/kB" --boots 2 --jobs 2 -- read_vs_readv
	[ "$rc" = 0 ] && overlaps "$FAKE_LOG" A.1 B.1 && overlaps "$FAKE_LOG" A.2 B.2 && ! overlaps "$FAKE_LOG" A.1 A.2
	check $? ab.icount.pair_boots_side_by_side
else
	skip ab.icount.pair_boots_side_by_side "one CPU"
fi
FAKE_BOOT_SLEEP=0.3 ab kvm_serial --a "$t/kA" --b "$t/kB" --boots 2 --accel kvm -- read_vs_readv
[ "$rc" = 0 ] && none_overlap "$FAKE_LOG" && [ "$(grep -c 'the boots run one at a time' "$t/kvm_serial.err")" = 1 ]
check $? ab.kvm.boots_one_at_a_time_and_said

# ---- --target-ci: pairs until the interval is narrow enough -----------------

ab target_ci --a "$t/kA" --b "$t/kB" --boots 5 --target-ci 1 -- read_vs_readv
check_cmd ab.target_ci.stops_when_reached \
	test "$rc" = 0 -a "$(grep -c '^boot ' "$FAKE_LOG")" = 4 -a "$(grep -c 'below +-1%, after 2 pairs of 5' "$t/target_ci.err")" = 1
ab target_ci_max --a "$t/kA" --b "$t/kB" --boots 2 --target-ci 0.00001 -- read_vs_readv
check_cmd ab.target_ci.says_boots_reached \
	test "$rc" = 0 -a "$(grep -c '^boot ' "$FAKE_LOG")" = 4 -a "$(grep -c -- '--target-ci: --boots 2 reached' "$t/target_ci_max.err")" = 1
# The seed ab hands iopath vm goes on the guest's command line: only hex.
"$top/scripts/vm.sh" --kernel "$t/kA" --build "$build" --seed $'5eed\nx' > /dev/null 2> "$t/vmseed.err"
check_cmd ab.vm_seed_not_hex_refused \
	test $? = 2 -a "$(wc -l < "$t/vmseed.err")" = 1 -a "$(grep -cF -- "--seed '5eed\x0ax'" "$t/vmseed.err")" = 1
# The start date goes into QEMU's -rtc option: only the one form.
"$top/scripts/vm.sh" --kernel "$t/kA" --build "$build" --icount --rtc-base '2026-12-04T12:00:00,clock=host' \
	> /dev/null 2> "$t/vmrtc.err"
check_cmd ab.vm_rtc_base_not_a_date_refused \
	test $? = 2 -a "$(wc -l < "$t/vmrtc.err")" = 1 -a "$(grep -c "expected YYYY-MM-DDTHH:MM:SS" "$t/vmrtc.err")" = 1
# A date checked by its form alone: QEMU turned 9999-99-99T99:99:99 and
# 1900-01-01 into other dates, and the guest's clock was garbage. One
# parser (lib/date.c, through iopath value): a date that exists, in the
# years the guest's RTC holds.
for d in 9999-99-99T99:99:99 1900-01-01T00:00:00 2024-02-30T12:00:00 2024-13-40T25:61:61 2100-01-01T00:00:00; do
	"$top/scripts/vm.sh" --kernel "$t/kA" --build "$build" --icount --rtc-base "$d" > /dev/null 2> "$t/vmrtc.err"
	check_cmd "ab.vm_rtc_base_out_of_range_refused.$d" \
		bash -c '[ "$1" = 2 ] && [ "$(wc -l < "$2")" = 1 ] && grep -qF -- "--rtc-base '"'"'$3'"'"': expected YYYY-MM-DDTHH:MM:SS (UTC), a date from 1970-01-01 to 2099-12-31" "$2"' \
		_ $? "$t/vmrtc.err" "$d"
done
"$top/scripts/vm.sh" --kernel "$t/kA" --build "$build" --rtc-base 2026-12-04T12:00:00 \
	> /dev/null 2> "$t/vmrtc2.err"
check_cmd ab.vm_rtc_base_without_icount_refused \
	test $? = 2 -a "$(wc -l < "$t/vmrtc2.err")" = 1 -a "$(grep -c -- "--rtc-base goes with --icount" "$t/vmrtc2.err")" = 1
ab target_ci_bad --a "$t/kA" --b "$t/kB" --target-ci x -- read_vs_readv; one_line_2 target_ci_bad
# A pattern took 100 to 999: --target-ci 150 ran two boot pairs, then
# compare refused it (exit 1, five files left). The range is compare's
# own, checked by the C parser before anything starts.
for v in 150 100.5 0 0.0 1e3 nan; do
	ab "target_ci_$v" --a "$t/kA" --b "$t/kB" --target-ci "$v" -- read_vs_readv
	one_line_2 "target_ci_$v"
	check_cmd "ab.target_ci.out_of_range_refused_before_any_boot.$v" \
		bash -c '[ ! -s "$1" ] && grep -qF -- "--target-ci '"'"'$2'"'"': expected a percentage above 0 and at most 100" "$3"' \
		_ "$FAKE_LOG" "$v" "$t/target_ci_$v.err"
done
ab jobs_too_many --a "$t/kA" --b "$t/kB" --jobs 999 -- read_vs_readv; one_line_2 jobs_too_many

ab minus5 --a "$t/kB" --b "$t/kA" -- read_vs_readv
check_cmd ab.verdict.reversed_is_improvement grep -qE '^iopath ab: .*: -4\.[0-9]+% .*improvement' "$t/minus5/verdict.txt"

ab aa --a "$t/kA" --b "$t/kA2" -- read_vs_readv
check_cmd ab.verdict.aa_no_change grep -q 'no significant change' "$t/aa/verdict.txt"

ab kvm --a "$t/kA" --b "$t/kB" --accel kvm --boots 2 -- read_vs_readv
check_cmd ab.kvm_is_wall_time \
	test "$rc" = 0 -a "$(grep -c 'icount=0' "$FAKE_LOG")" = 4 -a "$(grep -c 'wall time, KVM, 2 boots a side' "$t/kvm/verdict.txt")" = 1

# ---- failures: one line naming the boot and the problem ----------------------

FAKE_DOMAIN_AT=4 ab mixed_domains --a "$t/kA" --b "$t/kB" -- read_vs_readv
check_cmd ab.mixed_clock_domains_fail \
	test "$rc" = 1 -a "$(grep -c 'boot 2 of B: .*B\.2\.jsonl:1: records in the "wall" clock domain, the run is in "instructions"' "$t/mixed_domains.err")" = 1
# Issue 50: under icount a repetition's value is the whole repetition's;
# a summary of slices (quantized, or leaving slices out) is refused.
FAKE_SLICE_AGG_AT=3 ab slice_agg --a "$t/kA" --b "$t/kB" -- read_vs_readv
check_cmd ab.instructions_slice_summary_refused \
	test "$rc" = 1 -a "$(grep -c 'boot 2 of A: .*A\.2\.jsonl:1: main metric readv_ns is median, not the whole repetition' "$t/slice_agg.err")" = 1
FAKE_SHA_AT=3 ab other_image --a "$t/kA" --b "$t/kB" -- read_vs_readv
check_cmd ab.record_of_another_image_fails \
	test "$rc" = 1 -a "$(grep -c 'boot 2 of A: .*A\.2\.jsonl:1: a record from another kernel image' "$t/other_image.err")" = 1
# A value that is no finite number passed the boot's check in jq and
# failed the run at the end, in compare, naming no boot.
FAKE_NAN_AT=3 ab non_finite --a "$t/kA" --b "$t/kB" -- read_vs_readv
check_cmd ab.record_not_finite_names_its_boot \
	test "$rc" = 1 -a "$(wc -l < "$t/non_finite.err")" -le 6 -a "$(grep -c 'boot 2 of A: .*A\.2\.jsonl' "$t/non_finite.err")" = 1
# The sides aggregating the verdict metric differently: compare printed no
# verdict line and exited 0, and so did ab.
# (Under icount both are whole-repetition aggregates: a slice summary
# would not pass the boot's records check.)
FAKE_AGG_B=ops_over_time ab agg_differs --a "$t/kA" --b "$t/kB" -- read_vs_readv
check_cmd ab.verdict_metric_not_compared_fails \
	test "$rc" = 1 -a "$(grep -c 'read_vs_readv\.readv_ns .*the verdict metric: "agg" is "time_over_ops" in the base records, "ops_over_time" in the new' "$t/agg_differs.err")" = 1
# The VM's message was passed through cat -v: ESC as ^[, a second escaper.
FAKE_FETCH_ERR=$'cannot fetch \e[31mred' ab fetch_esc --a "$t/kA" --b "$t/kB" -- read_vs_readv
check_cmd ab.vm_message_escaped_as_iop_esc \
	bash -c '[ "$1" = 1 ] && grep -qF "A: cannot get the kernel: iopath: vm: cannot fetch \x1b[31mred" "$2" && ! grep -q $'"'"'\e'"'"' "$2"' _ "$rc" "$t/fetch_esc.err"
check_cmd ab.iopath_esc_is_iop_esc \
	test "$("$build/iopath" esc $'a\nb\e[1m' 'c\d' $'\xc2\x85')" = 'a\x0ab\x1b[1m
c\\d
\xc2\x85'

FAKE_FAIL_BOOT=4 ab boot_fails --a "$t/kA" --b "$t/kB" -- read_vs_readv
check_cmd ab.failed_boot_named \
	test "$rc" = 1 -a "$(grep -c 'boot 2 of B failed (exit 1): .*panicked' "$t/boot_fails.err")" = 1 -a ! -e "$t/boot_fails/verdict.txt"

# ---- one tree and a patch: built incrementally, the tree always pristine ----

ab ksrc --ksrc "$t/src" --patch "$t/plus5.patch" --boots 2 -- read_vs_readv
check_cmd ab.ksrc.built_a_then_b test "$(grep '^build' "$FAKE_LOG" | tr '\n' ' ')" = "build 1000 build 1050 "
check_cmd ab.ksrc.verdict_found grep -q 'regression' "$t/ksrc/verdict.txt"
check_cmd ab.ksrc.tree_pristine_after_success test "$(tree_sum)" = "$pristine"
# Where an A/B's time goes: each phase once, in order, and a total that is
# their sum (phases.tsv) and the same in the last note.
phases_said() {
	local f=$t/ksrc/phases.tsv
	[ "$(cut -f1 "$f" | tr '\n' ',')" = "phase,configure,build A,build B,kernels,boots (2 pairs),compare,total," ] &&
		[ "$(awk -F'\t' 'NR > 1 && $1 != "total" { s += $2 } $1 == "total" { t = $2 } END { print (s == t) }' "$f")" = 1 ] &&
		grep -qE '^iopath: ab: time: configure [0-9]+ s, build A [0-9]+ s, build B [0-9]+ s, kernels [0-9]+ s, boots \(2 pairs\) [0-9]+ s, compare [0-9]+ s; [0-9]+ s in all$' "$t/ksrc.err"
}
check_cmd ab.ksrc.time_of_each_phase_kept_and_said phases_said
ab ksrc_a --ksrc "$t/src" --patch-a "$t/plus5.patch" --boots 2 -- read_vs_readv
check_cmd ab.ksrc.patch_a_is_the_base grep -q 'improvement' "$t/ksrc_a/verdict.txt"
FAKE_FAIL_BOOT=3 ab ksrc_fail --ksrc "$t/src" --patch "$t/plus5.patch" -- read_vs_readv
check_cmd ab.ksrc.tree_pristine_after_failure test "$rc" = 1 -a "$(tree_sum)" = "$pristine"

# killed while B builds (the patch is in B's own tree)
killed() { # killed NAME SIGNAL: ab killed 1 s into B's build, then the tree at once
	local name=$1 sig=$2 pid i
	: > "$FAKE_LOG"
	FAKE_BUILD_SLEEP=2 setsid "$top/scripts/ab.sh" --build "$build" --work "$t/work" --out "$t/$name" \
		--ksrc "$t/src" --patch "$t/plus5.patch" -- read_vs_readv > /dev/null 2>&1 &
	pid=$!
	for ((i = 0; i < 100; i++)); do
		grep -q 'build 1050' "$FAKE_LOG" && break
		sleep 0.1
	done
	kill -"$sig" -- -"$pid"
	wait "$pid" 2>/dev/null
	check_cmd "ab.ksrc.tree_pristine_after_$name" test "$(tree_sum)" = "$pristine"
}
killed sigterm TERM
killed sigkill KILL
ab after_kill --ksrc "$t/src" --patch "$t/plus5.patch" --boots 1 -- read_vs_readv
check_cmd ab.ksrc.runs_again_after_sigkill test "$rc" = 0

# A patch that adds and deletes files failed after A was built ("cp:
# cannot stat", then an empty reason).
ab adddel --ksrc "$t/src" --patch "$t/adddel.patch" --boots 1 -- read_vs_readv
if [ "$rc" = 0 ] && [ "$(grep '^build' "$FAKE_LOG" | tr '\n' ' ')" = "build 1000 build 1050 " ] &&
   [ "$(tree_sum)" = "$pristine" ]; then
	ok ab.ksrc.patch_adding_and_deleting_files
else
	not_ok ab.ksrc.patch_adding_and_deleting_files "exit $rc: $(head -n 2 "$t/adddel.err")"
fi
ab patch_outside --ksrc "$t/src" --patch "$t/outside.patch" -- read_vs_readv; one_line_2 patch_outside
check_cmd ab.patch_outside.refused_before_building test ! -s "$FAKE_LOG" -a "$(tree_sum)" = "$pristine"

# ---- a patch only changes regular files inside the tree -------------------------

# The attack: a git patch making fs/link a symbolic link out of the tree,
# and a normal hunk. The dry run made no link and passed; the real apply
# left the link and the hunk in the tree, exited 1 with two lines, and
# every later ab failed with "cannot restore the source tree". Now
# iopath patch check (lib/patch.c) reads the headers first.
cat > "$t/symlink.patch" <<'EOF'
diff --git a/fs/link b/fs/link
new file mode 120000
index 0000000..d1ba6c8
--- /dev/null
+++ b/fs/link
@@ -0,0 +1 @@
+../../../../../../../../../tmp
\ No newline at end of file
diff --git a/fs/iomap/cost b/fs/iomap/cost
index 83b33d2..a5c1966 100644
--- a/fs/iomap/cost
+++ b/fs/iomap/cost
@@ -1 +1 @@
-1000
+1050
EOF
refused_patch() { # NAME TEXT: exit 2, one line saying TEXT, nothing built, the tree as it was
	one_line_2 "$1"
	check_cmd "ab.patch.$1.names_the_problem" grep -qF -- "$2" "$t/$1.err"
	check_cmd "ab.patch.$1.tree_untouched" \
		bash -c '[ ! -s "$1" ] && [ "$2" = "$3" ] && [ -z "$(find "$4" -type l)" ]' _ "$FAKE_LOG" "$(tree_sum)" "$pristine" "$t/src"
}
ab symlink --ksrc "$t/src" --patch "$t/symlink.patch" -- read_vs_readv
refused_patch symlink 'symlink.patch:2: a symbolic link (mode 120000)'
ab symlink_a --ksrc "$t/src" --patch-a "$t/symlink.patch" -- read_vs_readv
refused_patch symlink_a 'a symbolic link'
ab after_symlink --ksrc "$t/src" --patch "$t/plus5.patch" --boots 1 -- read_vs_readv
check_cmd ab.patch.symlink.later_runs_pass test "$rc" = 0 -a "$(tree_sum)" = "$pristine"
# its other forms: each a name for the problem, nothing applied
hunk=$'--- a/fs/iomap/cost\n+++ b/fs/iomap/cost\n@@ -1 +1 @@\n-1000\n+1050\n'
git_cost='diff --git a/fs/iomap/cost b/fs/iomap/cost'
patch_form() { # NAME TEXT PATCH: PATCH refused, naming TEXT
	printf '%s' "$3" > "$t/$1.patch"
	ab "$1" --ksrc "$t/src" --patch "$t/$1.patch" -- read_vs_readv
	refused_patch "$1" "$2"
}
patch_form symlink_modified 'a symbolic link' "$git_cost"$'\nindex 1..2 120000\n'"$hunk"
patch_form submodule 'a submodule' \
	$'diff --git a/fs/sub b/fs/sub\nnew file mode 160000\n--- /dev/null\n+++ b/fs/sub\n@@ -0,0 +1 @@\n+Subproject commit 1\n'"$hunk"
patch_form mode_change 'a mode change' "$git_cost"$'\nold mode 100644\nnew mode 100755\n'"$hunk"
patch_form rename 'a rename' \
	$'diff --git a/fs/iomap/cost b/fs/cost\nsimilarity index 90%\nrename from fs/iomap/cost\nrename to fs/cost\n'
patch_form copy 'a rename or a copy' "$git_cost"$'\nsimilarity index 100%\ncopy from fs/iomap/cost\ncopy to fs/iomap/cost\n'
patch_form dotdot "'..' component" $'--- a/fs/../../escape\n+++ b/fs/../../escape\n@@ -1 +1 @@\n-1000\n+1050\n'
patch_form absolute 'an absolute path' $'--- /fs/iomap/cost\n+++ /fs/iomap/cost\n@@ -1 +1 @@\n-1000\n+1050\n'
patch_form git_binary 'a binary patch' "$git_cost"$'\nindex 1..2 100644\nGIT binary patch\nliteral 4\nLcmZ?d00001\n\n'
patch_form binary_differ 'a binary patch' "$hunk"$'Binary files a/fs/blob and b/fs/blob differ\n'
patch_form ed_diff 'a normal or ed diff' $'1c\n1050\n.\n'"$hunk"
patch_form context_diff 'out of place' \
	$'*** a/fs/iomap/cost\n--- b/fs/iomap/cost\n***************\n*** 1 ****\n! 1000\n--- 1 ----\n! 1050\n'
patch_form hunk_cut_short 'ends before' $'--- a/fs/iomap/cost\n+++ b/fs/iomap/cost\n@@ -1,2 +1,2 @@\n-1000\n+1050\n'
patch_form hunk_too_long 'longer than' "$hunk"$'+1100\n'
patch_form no_diff 'no unified diff' $'just text\n'
# What is applied is the copy of what was read: names as patch -p1 takes
# them, sorted, once each; the copy holds no line of the preamble.
printf 'From: x\nSubject: y\n\n- a bullet\n---\n' | cat - "$t/adddel.patch" > "$t/mail.patch"
check_cmd ab.patch.check_names_each_file \
	test "$("$build/iopath" patch check "$t/mail.patch" | tr '\n' ' ')" = "fs/iomap/cost fs/iomap/new/added.c fs/iomap/old.c "
"$build/iopath" patch check --out "$t/mail.copy" "$t/mail.patch" > /dev/null
check_cmd ab.patch.copy_is_the_diff_alone \
	test "$(cat "$t/mail.copy")" = "$(sed -E 's/^@@ -([01]) \+([01]) @@$/@@ -\1,1 +\2,1 @@/; s/^@@ -1 \+0,0 @@$/@@ -1,1 +0,0 @@/; s/^@@ -0,0 \+1 @@$/@@ -0,0 +1,1 @@/' "$t/adddel.patch")"
ab mail --ksrc "$t/src" --patch "$t/mail.patch" --boots 1 -- read_vs_readv
check_cmd ab.patch.mail_with_preamble_applies test "$rc" = 0 -a "$(tree_sum)" = "$pristine"
# ---- --calibrate: planted kernels of known size, checked, then one A/B each ----

ab cal_no_ksrc --a "$t/kA" --b "$t/kB" --calibrate -- read_vs_readv; one_line_2 cal_no_ksrc
ab cal_patch --ksrc "$t/src" --patch "$t/plus5.patch" --calibrate -- read_vs_readv; one_line_2 cal_patch
ab calibrate --ksrc "$t/src" --calibrate --boots 3 -- read_vs_readv
check_cmd ab.calibrate.runs test "$rc" = 0
check_cmd ab.calibrate.tree_pristine test "$(tree_sum)" = "$pristine"
# each plant adds its nops and nothing else, in every site's function
check_cmd ab.calibrate.plants_checked_in_vmlinux \
	test "$(awk -F'\t' 'NR > 1 && $1 == $3 && $4 == 0' "$t/calibrate/plants.tsv" | wc -l)" = 12
# one row per size; the fake VM's readv costs 1000 + the plant per call,
# each boot off by up to 0.05%: +30 is measured within 10%, detected
check_cmd ab.calibrate.table_rows \
	test "$(awk -F'\t' 'NR > 1 && $2 == "read_vs_readv" && $4 == "readv_ns"' "$t/calibrate/calibrate.tsv" | cut -f1 | tr '\n' ' ')" = "1 3 10 30 "
check_cmd ab.calibrate.plus30_detected_within_tolerance \
	test "$(awk -F'\t' '$1 == 30 && $12 == "yes" && $13 == "yes"' "$t/calibrate/calibrate.tsv" | wc -l)" = 1
check_cmd ab.calibrate.says_what_held grep -q '^iopath ab: calibration: 4 rows; ' "$t/calibrate.out"
# what attributes an address to a function, beside each kernel (--explain)
check_cmd ab.calibrate.system_map_beside_each_kernel \
	test "$(grep -l ' import_ubuf$' "$t"/calibrate/kernels/{A,plant-1,plant-3,plant-10,plant-30}.System.map | wc -l)" = 5
# a plant that adds more than its nops is refused before any boot
FAKE_PLANT_EXTRA=1 ab calibrate_extra --ksrc "$t/src" --calibrate --boots 2 -- read_vs_readv
check_cmd ab.calibrate.plant_adding_more_refused \
	test "$rc" = 1 -a "$(grep -c 'P1: import_ubuf has 1 nops and 1 other instructions more than A.s, not 1 and 0' "$t/calibrate_extra.err")" = 1 \
	-a "$(grep -c '^boot' "$FAKE_LOG")" = 0 -a "$(tree_sum)" = "$pristine"

# ---- a work directory someone else prepared -------------------------------------

# Links planted at the names ab writes in WORK (patch.log, a build log, the
# boot ids) were followed: the files they point at truncated or written.
victims() { cat "$t/victim1" "$t/victim2" "$t/victim3"; }
for v in 1 2 3; do echo "victim $v" > "$t/victim$v"; done
mkdir -p "$t/wlinks/state" "$t/wlinks/logs"
ln -s "$t/victim1" "$t/wlinks/state/patch.log"
ln -s "$t/victim2" "$t/wlinks/logs/A.build"
ln -s "$t/victim3" "$t/wlinks/state/boot-ids"
ab work_links --work "$t/wlinks" --ksrc "$t/src" --patch "$t/plus5.patch" --boots 1 -- read_vs_readv
if [ "$rc" = 2 ] && [ "$(wc -l < "$t/work_links.err")" = 1 ] && grep -q 'is a symbolic link' "$t/work_links.err" &&
   [ "$(victims)" = "$(printf 'victim %s\n' 1 2 3)" ] && [ ! -s "$FAKE_LOG" ] && [ ! -e "$t/work_links" ]; then
	ok ab.work.planted_links_never_followed
else
	not_ok ab.work.planted_links_never_followed "exit $rc: $(head -n 2 "$t/work_links.err")" "victims: $(victims | tr '\n' ' ')"
fi

mkdir -p "$t/k"
cp -a "$t/src" "$t/k/src"

# A work directory of someone else's, or one others can write to: they
# could plant links or rewrite the state between two runs.
mkdir -p "$t/wshared"
chmod 1777 "$t/wshared"
ab work_shared --work "$t/wshared" --ksrc "$t/k/src" --patch "$t/plus5.patch" --boots 1 -- read_vs_readv
if [ "$rc" = 2 ] && [ "$(wc -l < "$t/work_shared.err")" = 1 ] && grep -q 'others can write to it' "$t/work_shared.err" &&
   [ -z "$(ls -A "$t/wshared")" ]; then
	ok ab.work.others_can_write_refused
else
	not_ok ab.work.others_can_write_refused "exit $rc: $(head -n 2 "$t/work_shared.err")"
fi
mkdir -p "$t/wshared/state"
chmod 0755 "$t/wshared"
chmod 0777 "$t/wshared/state"
ab state_shared --work "$t/wshared" --ksrc "$t/k/src" --patch "$t/plus5.patch" --boots 1 -- read_vs_readv
check_cmd ab.work.state_others_can_write_refused \
	test "$rc" = 2 -a "$(wc -l < "$t/state_shared.err")" = 1 -a "$(grep -c 'state: others can write to it' "$t/state_shared.err")" = 1
if [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1; then
	mkdir -p "$t/wnobody"
	chown nobody "$t/wnobody"
	ab work_nobody --work "$t/wnobody" --ksrc "$t/k/src" --patch "$t/plus5.patch" --boots 1 -- read_vs_readv
	if [ "$rc" = 2 ] && [ "$(wc -l < "$t/work_nobody.err")" = 1 ] && grep -q 'not a directory of yours' "$t/work_nobody.err" &&
	   [ -z "$(ls -A "$t/wnobody")" ]; then
		ok ab.work.someone_elses_refused
	else
		not_ok ab.work.someone_elses_refused "exit $rc: $(head -n 2 "$t/work_nobody.err")"
	fi
else
	skip ab.work.someone_elses_refused "needs root and a user nobody"
fi

# ---- the ab profiles pass the guest's benchmark check --------------------------

# scripts/vm.sh checks the benchmark for the guest's own zram before it
# boots anything, whatever scratch the host's environment names (a host
# IOPATH_SCRATCH_DIR once made stable_writes=0 look like a directory's).
# The check passes when the next one, --cache, is what refuses.
{ head -c 514 /dev/zero; printf HdrS; } > "$t/fake.bzImage"
for p in "$top"/configs/bench/ab-*.conf; do
	name=ab.profile_passes_guest_bench_check.$(basename "$p" .conf)
	IOPATH_SCRATCH_DIR=$t "$top/scripts/vm.sh" --kernel "$t/fake.bzImage" --build "$build" \
		--icount --records "$t/r.jsonl" --cache /dev/null/cache --bench -- --profile "$p" \
		> /dev/null 2> "$t/vmcheck.err"
	if grep -q -- '--cache /dev/null/cache' "$t/vmcheck.err"; then
		ok "$name"
	else
		not_ok "$name" "$(head -n 2 "$t/vmcheck.err")"
	fi
done

# ---- the planted work and the seed patches say what they are ------------------

# A perf mutant names its function, the instructions it plants, how often
# it runs per operation and the profile that measures it; a seed patch
# names its seed, its side and its profile. Profiles must exist.
for p in "$top"/configs/mutants/perf/*.patch "$top"/configs/ab/*.patch; do
	name=ab.header.$(basename "$(dirname "$p")").$(basename "$p" .patch)
	case $p in
	*/perf/*) keys="Function Plants Calls Bench Expect" ;;
	*) keys="Seed Side Bench" ;;
	esac
	bad=""
	for k in $keys; do
		grep -q "^# $k: ." "$p" || bad="$bad no '# $k:'"
	done
	b=$(sed -n 's/^# Bench: //p' "$p")
	[ -f "$top/configs/bench/$b.conf" ] || bad="$bad no profile '$b'"
	case $p in */perf/*) grep -qE '^# Plants: [0-9]+ instructions per call' "$p" || bad="$bad Plants not 'N instructions per call'" ;; esac
	grep -q '^+++ b/' "$p" || bad="$bad no diff"
	if [ -z "$bad" ]; then ok "$name"; else not_ok "$name" "$bad"; fi
done

finish_tap
