#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Bad usage, bad input and safety refusals of every iopath subcommand
# (and the scripts behind ab, vm, mutate, repro, export and lava): each is one
# line on stderr, exit 2, found before any scratch filesystem is made, and
# nothing is created (no file in the working directory, no "making a
# scratch" line). A subcommand `iopath help` lists without a test here
# fails bad_usage.every_subcommand_covered.
#
# Catches: bs=513 for O_DIRECT on a 4k-sector backing and size=1t on a
# 4 GiB scratch accepted until a filesystem had been made; --fs '' and
# --fs , running "0 jobs" and passing; --out into a missing directory or
# onto a directory noticed after the benchmarks ran; a refused device or a
# missing dir: backing, or fs=btrfs in a profile, reported as SKIP (exit 4);
# IOPATH_SCRATCH_DEV naming the root disk turned into every selftest
# failing; "run --profile" with no value called an unknown option; and the
# profile parser splitting a line over 1023 bytes (the tail of a comment
# becoming a setting), skipping a line that starts with NUL, dropping an
# unknown [global] key, or reading /dev/zero or a FIFO forever; numbers
# strtoull()/strtod() misread ('kmsg check -1', '--runtime 0x10'); an --out
# name too long for its temporary name, noticed after the run; a key or
# a filesystem given twice, the last winning silently; a profile value's
# error without its line; a known-failures ERE that does not compile,
# accepted by run; IOPATH_BACKING or IOPATH_SCRATCH_DEV with a newline
# losing the reason; and a usage block instead of one line (iopath
# alone, export, lava).
#
# usage: tests/bad_usage.sh BUILD_DIR   (TAP on stdout)
set -u

build=${1:?usage: bad_usage.sh BUILD_DIR}
iop=$build/iopath

. "$(dirname "$0")/lib/tap.sh"

if [ ! -x "$iop" ]; then
	echo "1..0 # SKIP $iop not built"
	exit 0
fi
tmp=$(mktemp -d /tmp/iopath-bad-usage.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
work=$tmp/work
mkdir "$work"

# The subcommands a test below refuses something of (the part of NAME before
# the first '.'): every one `iopath help` lists must be among them.
declare -A covered=()

# refused NAME REGEX CMD...: exit 2, one stderr line matching REGEX, nothing made
refused() {
	local name=$1 re=$2 rc made
	shift 2
	covered[${name%%.*}]=1
	# a reader that blocks (a FIFO, /dev/zero) is killed, and fails
	timeout -s KILL 20 env -C "$work" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	# one line on stderr also means no "making a scratch" progress line
	made=$(ls -A "$work")
	if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -qE -- "$re" "$tmp/err" &&
	   [ -z "$made" ]; then
		ok "$name"
	else
		not_ok "$name (exit $rc)" "$(head -3 "$tmp/err")" "created: $made"
	fi
	rm -rf "${work:?}"/* "$work"/.[!.]* 2> /dev/null
}

# ---- what was given, with a control character in it -----------------------
# A reason was cut at a newline in the input (the reason after it lost),
# and an argument echoed in an error reached the terminal raw (ESC).
refused bench.profile_name_with_newline_keeps_reason \
	'profile .*/x\\x0ay\.conf: No such file or directory$' "$iop" bench --profile $'x\ny'
refused kmsg.argument_with_escape_printed_escaped \
	"check '1\\\\x1b\\[2J': expected a sequence number" "$iop" kmsg check $'1\e[2J'

# ---- bench: parameters that do not fit the backing -------------------------
refused bench.bs_not_aligned_for_o_direct 'bs=513: O_DIRECT on this backing needs a multiple of' \
	"$iop" bench --backing zram --fs ext4 uring_randread bs=513
refused bench.size_larger_than_scratch 'size=1t does not fit the scratch filesystem' \
	"$iop" bench --backing loop --fs ext4 uring_randread size=1t
refused bench.empty_fs_list "--fs '': names no filesystem" "$iop" bench --fs '' falloc_write
refused bench.comma_fs_list "--fs ',': names no filesystem" "$iop" bench --fs , falloc_write
# the same filesystem twice ran every job twice; a parameter twice: the last won
refused bench.same_fs_twice_refused "--fs ext4,ext4: 'ext4' twice" \
	"$iop" bench --dry-run --fs ext4,ext4 falloc_write
refused bench.same_parameter_twice_refused "reps given twice \\('reps=1', 'reps=2'" \
	"$iop" bench --dry-run --fs ext4 falloc_write reps=1 reps=2
refused bench.unknown_fs "'btrfs' is not ext4, xfs or none" "$iop" bench --fs btrfs falloc_write
# refused after the records' name was reserved: an empty results/falloc_write-*.jsonl stayed
refused bench.calibrate_two_jobs_leaves_no_records_file '--calibrate takes one benchmark with single values' \
	"$iop" bench --calibrate falloc_write size=1m,2m
refused bench.out_in_missing_directory '--out /nonexistent/r.jsonl: directory /nonexistent' \
	"$iop" bench --fs ext4 --out /nonexistent/r.jsonl falloc_write
refused bench.out_onto_directory "--out $tmp: is a directory" \
	"$iop" bench --fs ext4 --out "$tmp" falloc_write
ln -s "$tmp/victim" "$tmp/link.jsonl"
refused bench.out_onto_symlink "--out $tmp/link.jsonl: is a symbolic link" \
	"$iop" bench --fs ext4 --out "$tmp/link.jsonl" falloc_write
# a name too long for its temporary name (NAME_MAX) or for PATH_MAX: found
# after the benchmarks ran, when the records could not be written
refused bench.out_name_too_long 'file name longer than 244 bytes' \
	"$iop" bench --fs none --out "$(printf 'o%.0s' $(seq 245))" read_vs_readv
deep=$tmp/$(printf "$(printf 'd%.0s' $(seq 250))/%.0s" $(seq 16))
mkdir -p "$deep"
refused bench.out_path_too_long 'path longer than' \
	"$iop" bench --fs none --out "$deep$(printf 'o%.0s' $(seq $((4090 - ${#deep}))))" read_vs_readv
refused bench.missing_dir_backing 'dir:/nonexistent: No such file or directory' \
	"$iop" bench --backing dir:/nonexistent falloc_write
refused bench.stable_writes_on_a_directory 'stable_writes: only on a zram or loop device iopath makes, not on dir' \
	"$iop" bench --backing "dir:$tmp" falloc_write stable_writes=0
refused bench.profile_without_value '--profile needs a value' "$iop" bench --profile
refused run.profile_without_value '--profile needs a value' "$iop" run --profile

# The disk holding / (or its partition) is refused as a scratch device.
root_dev=$(findmnt -no SOURCE / 2> /dev/null)
if [ -b "$root_dev" ] && [ "$(id -u)" = 0 ]; then
	refused bench.root_disk_backing_refused 'refusing to format it' \
		"$iop" bench --backing "dev:$root_dev" falloc_write
	refused run.root_disk_scratch_refused 'refusing to format it' \
		env IOPATH_SCRATCH_DEV="$root_dev" "$iop" run --no-bench
else
	skip bench.root_disk_backing_refused "/ is not on a block device here, or not root"
	skip run.root_disk_scratch_refused "/ is not on a block device here, or not root"
fi
if [ "$(id -u)" = 0 ]; then
	# A value with a newline kept its name and lost its reason.
	refused run.backing_env_with_newline_keeps_reason 'IOPATH_BACKING=garbage\\x0aX: expected zram or loop' \
		env IOPATH_BACKING=$'garbage\nX' "$iop" run --no-bench
	refused run.scratch_dev_env_with_newline_keeps_reason \
		'IOPATH_SCRATCH_DEV=/dev/nope\\x0aX: expected an absolute /dev path' \
		env IOPATH_SCRATCH_DEV=$'/dev/nope\nX' "$iop" run --no-bench
	refused run.missing_scratch_dir 'dir:/nonexistent: No such file or directory' \
		env IOPATH_SCRATCH_DIR=/nonexistent "$iop" run --no-bench
	refused run.unknown_profile 'nosuch.conf: No such file or directory' \
		"$iop" run --profile nosuch --no-selftests
	refused run.results_in_missing_directory '--results /nonexistent/r: no such directory, nor its parent /nonexistent' \
		"$iop" run --no-bench --results /nonexistent/r
	refused run.known_failures_not_a_regular_file 'IOPATH_KNOWN_FAILURES=/dev/zero: not a regular file' \
		env IOPATH_KNOWN_FAILURES=/dev/zero "$iop" run --no-bench
	# an ERE that does not compile: accepted, and awk failed when a test failed
	printf '^7\\..*$  ^fix(*.var.t$  diag  some-bug  reason\n' > "$tmp/bad-ere"
	refused run.known_failures_invalid_ere "known failures $tmp/bad-ere: .*fix\\(\\*" \
		env IOPATH_KNOWN_FAILURES="$tmp/bad-ere" "$iop" run --no-bench
else
	for t in backing_env_with_newline_keeps_reason scratch_dev_env_with_newline_keeps_reason \
		missing_scratch_dir unknown_profile results_in_missing_directory \
		known_failures_not_a_regular_file known_failures_invalid_ere; do
		skip "run.$t" "iopath run needs root"
	done
fi

# ---- numbers: one parser (lib/number.c) for every numeric option ----------
# strtoull() read "-1" as 2^64 - 1 (kmsg check then checked nothing) and
# " 2" as 2; strtod() read "0x10" as 16.
refused kmsg.negative_sequence_refused "check '-1': expected a sequence number" \
	"$iop" kmsg check -1
refused bench.hex_runtime_refused 'runtime=0x10: must be a number' \
	"$iop" bench --dry-run --fs none --runtime 0x10 read_vs_readv
refused bench.blank_before_reps_refused "reps= 2: must be an integer" \
	"$iop" bench --dry-run --fs none --reps ' 2' read_vs_readv
refused bench.hex_side_time_refused '--side-time 0x10: must be seconds' \
	"$iop" bench --dry-run --calibrate --side-time 0x10 read_vs_readv
refused bench.hex_effects_refused '--effects 0x1: must be' \
	"$iop" bench --dry-run --calibrate --effects 0x1 read_vs_readv
refused compare.hex_alpha_refused "--alpha must be a number in \\(0, 0.5\\), not '0x0.1'" \
	"$iop" compare --alpha 0x0.1 a b

# ---- every subcommand, and the scripts behind them -------------------------
# Bad usage is one line and exit 2 everywhere: "iopath" alone printed the
# whole command list, export and lava (argparse) a usage block.
refused iopath.no_command 'iopath: no command given' "$iop"
refused ab.unknown_option "ab: unknown argument '--nosuch'" "$iop" ab --nosuch
refused ab.no_sides 'ab: give --a and --b' "$iop" ab
refused iopath.unknown_command "iopath: unknown command 'nosuch'" "$iop" nosuch
refused cleanup.operand_refused "cleanup: takes no operands" "$iop" cleanup x
refused compare.unknown_option "compare: unknown option '--nosuch'" "$iop" compare --nosuch a b
refused export.no_input 'export: one INPUT expected, got 0' "$iop" export
refused verdict.no_tap 'verdict: expected KNOWN-FAILURES REQUIREMENTS FEATURES TAP' "$iop" verdict /dev/null
refused verdict.program_without_exit_status 'verdict: --program and --exit-status go together' \
	"$iop" verdict --program p /dev/null /dev/null /dev/null /dev/null
refused verdict.exit_status_not_a_status "verdict: --exit-status: not a status 0..255: 256" \
	"$iop" verdict --program p --exit-status 256 /dev/null /dev/null /dev/null /dev/null
refused verdict.unknown_option "verdict: .*--nosuch" "$iop" verdict --nosuch /dev/null
refused verdict.list_of_two "verdict: --list takes one KNOWN-FAILURES file" "$iop" verdict --list a b
refused export.unknown_option "export: unknown option '--nosuch'" \
	"$iop" export --kcidb /nonexistent --nosuch
refused kmsg.unknown_subcommand "kmsg: expected 'mark'" "$iop" kmsg nosuch
refused lava.no_subcommand 'lava: expected a subcommand' "$iop" lava
refused lava.unknown_subcommand "lava: unknown subcommand 'nosuch'" "$iop" lava nosuch
refused lava.verdict_unknown_option "lava: unknown option '--nosuch'" \
	"$iop" lava verdict --nosuch /nonexistent
refused esc.no_text 'esc: no TEXT to escape' "$iop" esc --
refused outdir.no_dir 'outdir: name one DIR' "$iop" outdir
refused outdir.newline_in_the_name 'outdir: a\\x0ab: a control character in the name' "$iop" outdir $'a\nb'
refused tbprof.no_mode 'tbprof: expected a mode: explain, coverage, blocks or lines' "$iop" tbprof
refused tbprof.explain_of_a_device 'tbprof: /dev/zero: ' \
	"$iop" tbprof explain --map-a /dev/zero --per f --a /dev/null --b /dev/null
refused tbprof.coverage_without_blocks 'tbprof: coverage needs --blocks FILE' "$iop" tbprof coverage x
refused tbprof.blocks_without_file 'tbprof: blocks needs --file FILE' "$iop" tbprof blocks x
refused tbprof.lines_without_file 'tbprof: lines needs --file FILE' "$iop" tbprof lines x
refused coverage.no_obj 'coverage: --obj DIR is required' "$iop" coverage
refused coverage.obj_not_a_kernel_tree 'coverage: --obj .*: no vmlinux' "$iop" coverage --obj /
refused records.no_command 'records: no command' "$iop" records
refused records.check_of_a_device 'records: /dev/zero: ' \
	"$iop" records check --image-sha256 "$(printf '0%.0s' $(seq 64))" --domain wall /dev/zero
refused records.check_domain_unknown 'records: --domain .x\\x1b.: expected wall or instructions' \
	"$iop" records check --image-sha256 "$(printf '0%.0s' $(seq 64))" --domain $'x\e' /dev/null
refused mutant.unknown_subcommand "mutant: expected 'header FILE KEY'" "$iop" mutant nosuch
refused mutant.header_of_missing_file 'mutant: /nonexistent: No such file or directory' \
	"$iop" mutant header /nonexistent Tests
# iopath mutant classify: a run's output, the plan and the pristine state
# are input: a device is not read, the state is checked.
mkdir -p "$tmp/mplan"
printf '# Function: f()\n# Bug: b\n# Tests: a_test\n--- a/x\n+++ b/x\n' > "$tmp/mplan/m.patch"
: > "$tmp/empty"
"$iop" mutant plan --mutants "$tmp/mplan" --out "$tmp/plan.json"
printf '{"schema": "iopath-mutant-pristine/1", "programs": ["a_test"], "build_s": 1, "runs": [], "tests": [{"name": "a.x.one", "program": "a_test", "extra": 1}], "passing": []}\n' \
	> "$tmp/bad-pristine.json"
printf '{"schema": "iopath-mutant-pristine/1", "programs": ["a_test"], "build_s": 1, "runs": [], "tests": [], "passing": []}\n' \
	> "$tmp/pristine.json"
refused mutant.classify_without_pristine_results 'mutant: classify needs --plan, --pristine' \
	"$iop" mutant classify m "$tmp/empty"
refused mutant.classify_run_not_a_regular_file 'mutant: /dev/zero: not a regular file' \
	"$iop" mutant classify --plan "$tmp/plan.json" --pristine "$tmp/pristine.json" m /dev/zero
refused mutant.classify_pristine_state_line_checked "bad-pristine.json: test 1 is not .name, program." \
	"$iop" mutant classify --plan "$tmp/plan.json" --pristine "$tmp/bad-pristine.json" m "$tmp/empty"
refused mutant.results_of_a_directory "mutant: $tmp: not a regular file" "$iop" mutant results "$tmp"
refused mutate.unknown_option 'mutate: unknown option --nosuch' "$iop" mutate --nosuch
refused mutate.bad_count "mutate: --pristine-runs 'x': expected 1 to 9999" "$iop" mutate --pristine-runs x
refused plot.one_file 'plot: need BASE and NEW record files' "$iop" plot a.jsonl
refused repro.unknown_option "repro: unknown option '--nosuch'" "$iop" repro --nosuch
refused repro.unknown_fs "repro: --fs 'btrfs': expected ext4 or xfs" "$iop" repro --fs btrfs
# Not root: a raw mkdir error, then each reproducer failed apart (exit 1).
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if [ "$(id -u)" != 0 ]; then
	refused repro.needs_root 'repro: must run as root' "$iop" repro
elif "${nobody[@]}" test -x "$iop" 2> /dev/null; then
	refused repro.needs_root 'repro: must run as root' "${nobody[@]}" "$iop" repro
else
	skip repro.needs_root "no unprivileged user can run $iop here"
fi
refused run.operand_refused 'run: takes no operands' "$iop" run x
refused scratch.unknown_subcommand "scratch: unknown subcommand 'format'" "$iop" scratch format /dev/null
refused vm.unknown_option "vm: unknown option '--nosuch'" "$iop" vm --nosuch
refused vm.bad_timeout "vm: --timeout 'x': expected seconds" "$iop" vm --kernel /nonexistent --timeout x
printf 'diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc\n' > "$tmp/l.patch"
refused patch.symlink_in_the_patch 'patch: .*:2: a symbolic link \(mode 120000\)$' "$iop" patch check "$tmp/l.patch"
refused value.date_that_does_not_exist "value: --rtc-base '2024-02-30T00:00:00': expected YYYY" \
	"$iop" value --rtc-base date 2024-02-30T00:00:00

# contrib/fstests/vm.sh (the fstests tests in a guest): its temporary
# directory goes to TMPDIR, the working directory here, so that anything
# it made before refusing shows.
fvm=(env TMPDIR="$work" "$(cd "$(dirname "$0")/.." && pwd)/contrib/fstests/vm.sh")
refused fstests-vm.unknown_option "fstests vm: unknown option '--nosuch'" "${fvm[@]}" --nosuch
refused fstests-vm.no_fstests 'fstests vm: --fstests DIR \(a built fstests checkout\) is required' \
	"${fvm[@]}" --kernel "$(readlink -f "$0")" generic/789
refused fstests-vm.bad_test_name "fstests vm: 'generic/x' is not a test name like generic/789" \
	"${fvm[@]}" generic/x
refused fstests-vm.mkfs_options_quoted "fstests vm: --mkfs 'a\\\$\\(b\\)': only letters" \
	"${fvm[@]}" --mkfs 'a$(b)' generic/789

# Every subcommand `iopath help` lists has a refusal above: a new one
# without is a failure here, not a gap nobody sees.
missing=""
for c in $("$iop" help | awk 'NR > 2 && NF { print $1 }'); do
	[ -n "${covered[$c]:-}" ] || missing="$missing $c"
done
if [ -z "$missing" ] && [ ${#covered[@]} -gt 5 ]; then
	ok bad_usage.every_subcommand_covered
else
	not_ok bad_usage.every_subcommand_covered "no bad-usage test for:$missing"
fi

# Every subcommand's --help: the text on stdout, exit 0, nothing on
# stderr. A usage text in an unquoted here-document ran what it showed
# in backquotes (iopath vm --help ran "iopath lava").
bad=""
for c in $("$iop" help | awk 'NR > 2 && NF { print $1 }'); do
	env -C "$work" "$iop" "$c" --help > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ "$rc" != 0 ] || [ -s "$tmp/err" ] || ! grep -q "iopath $c" "$tmp/out"; then
		bad="$bad $c (exit $rc: $(head -c 100 "$tmp/err" | tr '\n' ' '))"
	fi
done
if [ -z "$bad" ] && [ -z "$(ls -A "$work")" ]; then
	ok bad_usage.every_subcommand_help_is_clean
else
	not_ok bad_usage.every_subcommand_help_is_clean "$bad"
fi

# ---- profiles ------------------------------------------------------------
profile() { printf "$@" > "$tmp/p.conf"; }
# "# xxx...reps = 999": an fgets() of 1024 bytes made the tail a setting
profile '# %s reps = 999\n[falloc_write]\n' "$(head -c 1030 /dev/zero | tr '\0' x)"
refused profile.long_line_refused 'p.conf:1: line longer than 1024 bytes' \
	"$iop" bench --dry-run --profile "$tmp/p.conf"
profile '\0reps = 3\n[falloc_write]\n'
refused profile.nul_byte_refused 'p.conf:1: NUL byte' "$iop" bench --dry-run --profile "$tmp/p.conf"
profile '[global]\nrepz = 3\n[falloc_write]\n'
refused profile.unknown_global_key_refused "p.conf:2: no benchmark has a parameter 'repz'" \
	"$iop" bench --dry-run --profile "$tmp/p.conf"
profile '[falloc_write]\nfs = btrfs\n'
refused profile.unknown_fs_refused 'p.conf:2: fs = btrfs' "$iop" bench --profile "$tmp/p.conf"
profile '[falloc_write]\nbacking = dir:/nonexistent\n'
refused profile.missing_dir_backing_refused 'dir:/nonexistent: No such file' \
	"$iop" bench --profile "$tmp/p.conf"
# a key twice: the last one won silently; a bad value was found only when
# the jobs were checked, without the file and line
profile '[falloc_write]\nreps = 1\nreps = 2\n'
refused profile.duplicate_key_refused 'p.conf:3: reps set twice in this section \(first on line 2\)' \
	"$iop" bench --dry-run --profile "$tmp/p.conf"
profile '[global]\nfs = ext4\n\nfs = xfs\n[falloc_write]\n'
refused profile.duplicate_global_fs_refused 'p.conf:4: fs set twice in this section \(first on line 2\)' \
	"$iop" bench --dry-run --profile "$tmp/p.conf"
profile '[global]\nreps = 3\n[falloc_write]\nreps = 2,x\n'
refused profile.bad_value_names_its_line 'p.conf:4: reps=x: must be an integer' \
	"$iop" bench --dry-run --profile "$tmp/p.conf"
profile '[global]\nruntime = 0x10\n[falloc_write]\n'
refused profile.bad_global_value_names_its_line 'p.conf:2: runtime=0x10: must be a number' \
	"$iop" bench --dry-run --profile "$tmp/p.conf"
refused profile.dev_zero_refused 'profile /dev/zero: not a regular file' \
	"$iop" bench --dry-run --profile /dev/zero
mkfifo "$tmp/fifo"
refused profile.fifo_refused 'not a regular file' "$iop" bench --dry-run --profile "$tmp/fifo"
# control: a long comment within the limit and a known [global] key are fine
profile '# %s\n[global]\nreps = 2\n[falloc_write]\n' "$(head -c 1000 /dev/zero | tr '\0' x)"
if out=$("$iop" bench --dry-run --profile "$tmp/p.conf" 2>&1) && grep -q 'reps=2' <<< "$out"; then
	ok profile.good_profile_accepted
else
	not_ok profile.good_profile_accepted "$out"
fi

finish_tap
