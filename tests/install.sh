#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make install into a DESTDIR gives a working copy: every subcommand
# iopath help lists runs from it (its --help and one real, cheap action:
# iopath ab with tests/ab.sh's fake builder and VM, iopath lava jobs
# writing jobs, ...), and iopath repro runs a reproducer (as root) with
# the result the list expects. Plain make (build only) asks for build-time
# packages alone: run-time packages (fio, gnuplot, xfsprogs) are asked
# for by the targets that run something.
#
# The variables a user gives make (KSRC, O, PREFIX, KERNEL, *_ARGS, ...)
# are never parsed by the shell as code, and a build directory make cannot
# build into is refused in one line.
#
# Catches: a script or data directory missing from the install target (the
# installed iopath repro, then iopath ab, failed with "repro.sh: No such
# file or directory", "ab.sh: ..."), a deps group of run-time packages back on make's path,
# make upstream KSRC="/x'; touch /tmp/p; '" running the touch (the recipe
# pasted KSRC inside single quotes), and make upstream O="dir with space"
# failing with "unknown argument 'space/upstream'".
#
# usage: tests/install.sh BUILD_DIR
set -u

build=${1:?usage: tests/install.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/tap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The installed collection every path starts the selftests from, before
# the dry runs below: make -n must leave it alone (a recipe make runs even
# then once swapped in a tree its inner, dry, makes left empty).
ksft_before=$(stat -c %i "$build/kselftest" 2> /dev/null; cat "$build/kselftest/kselftest-list.txt" 2> /dev/null)
deps=$(make -C "$top" -n BUILD="$build" all 2> /dev/null | grep -o 'scripts/deps.sh[^;&|]*' | sort -u)
[ "$deps" = "scripts/deps.sh build" ]
check $? "install.plain_make_asks_for_build_packages_only${deps:+ ($(echo $deps))}"
for t in run check bench kselftest repro; do
	make -C "$top" -n BUILD="$build" "$t" 2> /dev/null | grep -q 'scripts/deps.sh run'
	check $? "install.make_${t}_asks_for_run_time_packages"
done
# LAVA (lava-dispatcher, 212 MB) only for make lava-run, never for make check.
! make -C "$top" -n BUILD="$build" check 2> /dev/null | grep -q 'scripts/deps.sh.*lava' &&
	make -C "$top" -n BUILD="$build" lava-run KERNEL=k 2> /dev/null | grep -q 'scripts/deps.sh lava$'
check $? "install.lava_packages_for_make_lava_run_only"
# jq: only the tests run it (iopath checks its records itself), so make
# check asks for it and a machine that runs iopath does not. An empty
# IOPATH_DEPS_ROOT is a machine that has nothing.
mkdir "$tmp/noroot"
IOPATH_DEPS_ROOT=$tmp/noroot "$top/scripts/deps.sh" --check run 2>&1 | grep -qw jq
run_jq=$?
IOPATH_DEPS_ROOT=$tmp/noroot "$top/scripts/deps.sh" --check check 2>&1 | grep -qw jq
[ "$run_jq" = 1 ] && [ $? = 0 ]
check $? "install.jq_asked_for_by_make_check_only"
[ "$(stat -c %i "$build/kselftest" 2> /dev/null; cat "$build/kselftest/kselftest-list.txt" 2> /dev/null)" = "$ksft_before" ]
check $? "install.make_n_leaves_the_installed_collection_alone"

# A value that ends the command it is pasted into, unquoted, in single
# quotes or in double quotes, and then runs touch.
m=$tmp/injected
hostile="/x; touch $m; '; touch $m; '\"; touch $m; \""
# bash -c "$skip_all" LOG SCRIPT: each simple command of SCRIPT (but the
# source itself) into LOG, skipped.
skip_all=$(cat << 'EOF'
shopt -s extdebug
trap '[ "$BASH_COMMAND" = ". \"\$1\"" ] || { printf "%s\n" "$BASH_COMMAND" >> "$0"; false; }' DEBUG
. "$1"
EOF
)
# recipe_commands TARGET VAR: the simple commands of make -n TARGET with
# VAR hostile, one a line: bash's DEBUG trap (extdebug) logs each and
# skips it, so none runs, not even a command substitution. $(MAKE)
# lines and $(shell) do run under make -n: the marker shows those.
recipe_commands() {
	make -C "$top" -n BUILD="$build" "$1" "$2=$hostile" 2> /dev/null > "$tmp/recipe"
	: > "$tmp/commands"
	# A loop in a recipe never ends when each of its commands is skipped
	# (its condition reads as true): bounded, and then the log says so.
	timeout -s KILL 20 bash -c "$skip_all" "$tmp/commands" "$tmp/recipe" 2> /dev/null ||
		[ $? != 137 ] || echo "timed out: a loop in the recipe of make $1" >> "$tmp/commands"
	cat "$tmp/commands"
}
bad=""
for tv in upstream:KSRC upstream:KSFT_SRC upstream:FSTESTS selftests:KSRC selftests:KSFT_SRC \
	mutate:KSRC mutate:MUTATE_ARGS vm-check:KERNEL vm-check:VM_ARGS lava-jobs:KERNEL \
	lava-jobs:LAVA_ARGS lava-run:LAVA_OUT ab:AB_ARGS mutate-tool:MUTATE_TOOL_ARGS run:RUN_ARGS \
	repro:KERNEL repro:REPRO_ARGS bench:PROFILE bench:BENCH_ARGS kselftest:KSFT_ARGS \
	fuzz:FUZZ_SECONDS install:PREFIX install:DESTDIR help:PREFIX; do
	rm -f "$m"
	recipe_commands "${tv%%:*}" "${tv#*:}" > "$tmp/ran"
	if grep -q -e "^touch $m\$" -e '^timed out: ' "$tmp/ran" || [ -e "$m" ]; then
		bad="$bad make ${tv%%:*} ${tv#*:}=..."
	fi
done
[ -z "$bad" ]
check $? "install.make_variables_never_run_as_shell_code${bad:+ (ran the injected touch:$bad)}"

# A kernel tree at such a path: its harness directory would go on into
# the selftests' Makefile and the kernel's lib.mk, which paste it into
# recipes. Refused in one line.
k="$tmp/k'; touch $m; '"
mkdir -p "$k/tools/testing/selftests" && touch "$k/tools/testing/selftests/kselftest_harness.h"
KSRC=$k "$top/scripts/ksft-harness.sh" "$build" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ]
check $? "install.ksft_harness_path_with_shell_characters_refused (rc $rc)"

# The real thing: make upstream with a hostile KSRC refuses it (no kernel
# tree there) and runs nothing.
rm -f "$m"
make -C "$top" -s BUILD="$build" upstream KSRC="/x'; touch $m; '" > "$tmp/out" 2>&1
rc=$?
[ "$rc" = 2 ] && [ ! -e "$m" ] && grep -q "is not a kernel tree" "$tmp/out"
check $? "install.make_upstream_hostile_ksrc_refused_not_run (rc $rc)"

# A build directory with a blank: make cannot name targets in it. One line,
# exit 2, nothing made, whatever the target.
for t in upstream all; do
	make -C "$top" "$t" O="$tmp/dir with space" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q 'O (or BUILD)' "$tmp/err" &&
		[ ! -e "$tmp/dir with space" ] && [ ! -e "$tmp/dir" ]
	check $? "install.make_${t}_build_dir_with_blank_refused_in_one_line (rc $rc)"
	[ "$rc" = 2 ] || sed 's/^/# /' "$tmp/err" | head -n 3
done

if ! make -C "$top" -s BUILD="$build" DESTDIR="$tmp/dest" PREFIX=/usr/local install > "$tmp/install.log" 2>&1; then
	not_ok "install.destdir" "$(tail -n 5 "$tmp/install.log")"
	finish_tap
fi
ok "install.destdir"
iopath=$tmp/dest/usr/local/bin/iopath

share=$tmp/dest/usr/local/share/iopath

# Each script a subcommand hands over to (iop_exec_script), installed and
# executable: the install rule takes scripts/ whole.
bad=""
for f in $(sed -n 's/.*iop_exec_script("[a-z]*", "\([^"]*\)".*/\1/p' "$top"/cli/*.c "$top"/cli/*/*.c | sort -u); do
	[ -x "$share/scripts/$f" ] || bad="$bad $f"
done
[ -z "$bad" ]
check $? "install.every_script_of_a_subcommand_installed${bad:+ (missing:$bad)}"

# Every subcommand from the installed tree, as the binary itself lists
# them (iopath help): its --help, and one real, cheap action. A subcommand
# this test has no action for fails here, so a new one is not left out.
# sub ARGS...: the installed iopath, away from this checkout; its output
# in $tmp/sub.out, $tmp/sub.err
sub() { env -u IOPATH_SRC "$iopath" "$@" > "$tmp/sub.out" 2> "$tmp/sub.err"; }
w=$tmp/work
fix=$top/tests/fixtures/compare
mkdir -p "$w/jobs"
# A fake bzImage (the boot header's magic): iopath vm and lava take it as
# a kernel without booting it.
head -c 4096 /dev/zero > "$w/bzImage"
printf 'HdrS' | dd of="$w/bzImage" bs=1 seek=514 conv=notrunc 2> /dev/null
printf '[    0.000000] Linux version 6.12.0\n' > "$w/console"
# shellcheck source=tests/lib/ab_fakes.sh
. "$top/tests/lib/ab_fakes.sh"
# noqemu_path DIR ROOT: DIR, a PATH of this machine's programs but QEMU's;
# ROOT, for deps.sh (IOPATH_DEPS_ROOT), the files of what vm needs but QEMU.
noqemu_path() {
	local d f
	mkdir -p "$1" "$2/bin" "$2/usr/bin" "$2/sbin" || return 1
	for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
		for f in "$d"/*; do
			case ${f##*/} in qemu-system-*) continue ;; esac
			[ -x "$f" ] && [ ! -e "$1/${f##*/}" ] && ln -s "$f" "$1/${f##*/}"
		done
	done
	touch "$2/bin/busybox" "$2/usr/bin/cpio" "$2/sbin/depmod" "$2/sbin/mkfs.xfs" "$2/sbin/mkfs.ext4" "$2/sbin/losetup"
	! PATH=$1 command -v qemu-system-x86_64 > /dev/null
}
mapfile -t cmds < <(env -u IOPATH_SRC "$iopath" help | awk '/^  [a-z]/ { print $1 }')
[ "${#cmds[@]}" -ge 10 ]
check $? "install.help_lists_the_subcommands (${#cmds[@]})"
for c in "${cmds[@]}"; do
	sub "$c" --help
	rc=$?
	[ "$rc" = 0 ] && [ -s "$tmp/sub.out" ] && [ ! -s "$tmp/sub.err" ]
	check $? "install.$c.help_from_the_installed_copy (rc $rc)"
	what="" why=""
	case $c in
	ab)
		what="runs_with_the_fake_builder_and_vm"
		mkdir -p "$w/ab" && ab_fakes "$w/ab" && : > "$w/ab/log" &&
			FIX=$fix FAKE_LOG=$w/ab/log IOPATH_AB_VM=$w/ab/vm IOPATH_AB_BUILDER=$w/ab/builder \
			sub ab --build "$build" --ksrc "$w/ab/src" --patch "$w/ab/plus5.patch" \
			--work "$w/ab/work" --out "$w/ab/out" --boots 2 -- read_vs_readv &&
			grep -q '^iopath ab: read_vs_readv readv_ns: +.*regression' "$w/ab/out/verdict.txt" &&
			[ "$(grep -c '^build ' "$w/ab/log")" = 2 ] && [ "$(grep -c '^boot ' "$w/ab/log")" = 4 ] ;;
	bench)
		what="dry_run_of_the_installed_quick_profile"
		sub bench --dry-run --profile quick --fs ext4 && grep -q '^read_vs_readv fs=ext4 ' "$tmp/sub.out" ;;
	cleanup)
		what="removes_what_dead_runs_left"
		[ "$(id -u)" = 0 ] || why="needs root"
		[ -n "$why" ] || sub cleanup ;;
	compare)
		what="compares_two_runs"
		sub compare "$fix/base.jsonl" "$fix/new-5pct.jsonl" && grep -q '%.* read_vs_readv\.readv_ns$' "$tmp/sub.out" ;;
	coverage)
		what="tables_of_a_small_elf"
		# A "kernel" of two functions in fs/x.c; the counts say f ran.
		mkdir -p "$w/kobj/fs" &&
			printf 'int g(int a) { return a ? a * 3 : 1; }\nint f(int a) { return a > 2 ? g(a) : 0; }\n' > "$w/x.c" &&
			cc -O1 -fno-inline -c -o "$w/kobj/fs/x.o" "$w/x.c" &&
			cc -nostdlib -static -Wl,-e,f -o "$w/kobj/vmlinux" "$w/kobj/fs/x.o" &&
			nm "$w/kobj/vmlinux" > "$w/kobj/System.map" && echo fs/x.c > "$w/files" &&
			fa=$(nm "$w/kobj/vmlinux" | awk '$3 == "f" { print $1 }') &&
			printf '# iopath-tbcount 1\n# windows 0\n%s %016x 1 1 0\n# total-insns 1\n' \
				"$fa" "$((0x$fa + 1))" > "$w/x.tb" &&
			sub coverage --build "$build" --obj "$w/kobj" --files "$w/files" --counts "$w/x.tb" \
				--out "$w/cov" &&
			grep -q '^fs/x.c	f	[1-9][0-9]*	1$' "$w/cov/coverage.tsv" &&
			grep -q '^fs/x.c	g	[1-9][0-9]*	0$' "$w/cov/coverage.tsv" ;;
	esc)
		what="escapes_a_control_character"
		sub esc $'a\eb' && [ "$(cat "$tmp/sub.out")" = 'a\x1bb' ] ;;
	export)
		what="kcidb_of_a_lava_verdict"
		sub lava verdict --build "$build" "$top/tests/fixtures/lava/swapon-6.12.log" &&
			cp "$tmp/sub.out" "$w/lava.tap" && sub export --kcidb -o "$w/kcidb.json" "$w/lava.tap" &&
			jq -e '.tests | length > 0' "$w/kcidb.json" > /dev/null ;;
	outdir)
		what="makes_a_directory_and_prints_its_path"
		sub outdir "$w/od" && [ -d "$w/od" ] && [ "$(cat "$tmp/sub.out")" = "$(cd "$w/od" && pwd)" ] ;;
	verdict)
		what="judges_a_tap"
		printf '%s\n' 'TAP version 13' '1..1' '# selftests: iopath: a_test' '# ok 1 a.x.one' \
			'ok 1 selftests: iopath: a_test' > "$w/verdict.tap" &&
			sub verdict /dev/null /dev/null /dev/null "$w/verdict.tap" &&
			grep -q '^# IOPATH-RESULT: status=pass passed=1 failed=0 ' "$tmp/sub.out" ;;
	kmsg)
		what="scans_a_console"
		sub kmsg scan "$w/console" && [ ! -s "$tmp/sub.out" ] ;;
	lava)
		# With the installed collection (libexec/iopath/kselftest: no
		# --build, and no checkout's build/ to fall back on), on a
		# machine without QEMU (a PATH and a deps root without
		# qemu-system-x86_64): the jobs only stage a kernel and an
		# initramfs. It looked in share/iopath/build, and asked for QEMU.
		what="jobs_written_from_the_installed_collection_without_qemu"
		[ -x "$build/selftests/iopath_probe" ] && { command -v busybox > /dev/null || [ -x /bin/busybox ]; } ||
			why="no selftests built or no busybox"
		[ -n "$why" ] || { noqemu_path "$w/path" "$w/depsroot" &&
			PATH=$w/path IOPATH_DEPS_ROOT=$w/depsroot sub lava jobs --kernel "$w/bzImage" --out "$w/jobs" \
			-- -t iopath:swapon_test && grep -q 'iopath:swapon_test' "$w/jobs/bzImage.yaml" &&
			zcat "$w/jobs/bzImage/initrd.cpio.gz" | cpio -t --quiet 2> /dev/null |
			grep -qx 'iopath/kselftest/iopath/swapon_test'; } ;;
	mutant)
		what="lists_the_installed_mutants"
		sub mutant list "$share/configs/mutants" &&
			[ "$(wc -l < "$tmp/sub.out")" = "$(find "$top/configs/mutants" -maxdepth 1 -name '*.patch' | wc -l)" ] ;;
	mutate)
		what="lists_the_mutants"
		sub mutate --list && grep -q '^01-iter-fbatch-not-released ' "$tmp/sub.out" &&
			[ "$(wc -l < "$tmp/sub.out")" = "$(find "$top/configs/mutants" -maxdepth 1 -name '*.patch' | wc -l)" ] ;;
	patch)
		what="checks_an_installed_mutant"
		sub patch check "$share/configs/mutants/01-iter-fbatch-not-released.patch" &&
			[ "$(cat "$tmp/sub.out")" = fs/iomap/iter.c ] ;;
	plot)
		what="draws_two_runs"
		command -v gnuplot > /dev/null || why="no gnuplot"
		[ -n "$why" ] || { sub plot "$fix/base.jsonl" "$fix/new-5pct.jsonl" -o "$w/plot.svg" &&
			grep -q '<svg' "$w/plot.svg"; } ;;
	records)
		what="checks_the_records_of_one_boot"
		jq -c 'select(.bench == "read_vs_readv") | .env.kernel.boot_id = "00000001-0000-0000-0000-000000000000"
			| .env.kernel.image_sha256 = ("0" * 64)' "$fix/base.jsonl" > "$w/boot.jsonl" &&
			sub records check --image-sha256 "$(printf '0%.0s' $(seq 64))" --domain wall "$w/boot.jsonl" ;;
	repro)
		what="lists_the_installed_reproducers"
		sub repro --list && [ "$(cat "$tmp/sub.out")" = "$(cd "$top/reproducers" && ls -- *.sh | sed 's/\.sh$//')" ] ;;
	run)
		what="summary_and_log"
		sub run --no-bench --no-selftests --results "$w/results" && ls "$w"/results/run-*.log > /dev/null 2>&1 ;;
	scratch)
		what="says_whether_scratch_can_mount_here"
		sub scratch namespace
		rc=$?
		[ "$rc" = 0 ] || { [ "$rc" = 1 ] && [ "$(wc -l < "$tmp/sub.err")" = 1 ]; } ;;
	value)
		what="takes_a_date_that_exists_and_refuses_one_that_does_not"
		sub value --rtc-base date 2024-02-29T12:00:00 &&
			{ sub value --rtc-base date 2024-02-30T12:00:00; [ $? = 2 ]; } ;;
	tbprof)
		what="explains_a_synthetic_a_b"
		sub tbprof explain --map-a "$top/tests/fixtures/tbprof/a.map" --map-b "$top/tests/fixtures/tbprof/b.map" \
			--per op_entry --a "$top/tests/fixtures/tbprof/A.1.tb" --b "$top/tests/fixtures/tbprof/B.1.tb" &&
			grep -q '^planted  *4.00  *7.00  *+3.00' "$tmp/sub.out" ;;
	vm)
		what="takes_a_kernel"
		sub vm --kernel "$w/bzImage" --build "$build" --fetch-only && [ "$(cat "$tmp/sub.out")" = "$w/bzImage" ] ;;
	*)
		what="has_an_action_in_tests_install_sh"
		false ;;
	esac
	rc=$?
	if [ -n "$why" ]; then
		skip "install.$c.$what" "$why"
	else
		check "$rc" "install.$c.$what"
		[ "$rc" = 0 ] || head -n 3 "$tmp/sub.err" | sed 's/^/# /'
	fi
done

if [ "$(id -u)" != 0 ]; then
	skip "install.repro_runs_from_the_installed_copy" "needs root"
else
	# ext4-dio-extend-mmap-tail: the list names every kernel it is seen on;
	# exit 0 is the result the list expects, whichever it is.
	out=$(env -u IOPATH_SRC "$iopath" repro ext4-dio-extend-mmap-tail 2>&1)
	rc=$?
	[ "$rc" = 0 ] && grep -Eq '^ext4-dio-extend-mmap-tail: (not )?reproduced$' <<< "$out" &&
		grep -q ' 1 run, .* 0 differing' <<< "$out"
	check $? "install.repro_runs_from_the_installed_copy"
	[ "$rc" = 0 ] || sed 's/^/# /' <<< "$out"
fi

finish_tap
