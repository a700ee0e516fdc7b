#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath mutate (scripts/mutate.sh) without a kernel: a fake source tree,
# a fake builder and a fake VM, so what is tested is the orchestration:
# bad input refused before anything is created, each mutant built in a
# tree of its own, each
# classification (killed with its diagnostic, killed by crash, survived,
# did not build, equivalent), the matrix as a table and as JSON, resuming
# after an interruption without redoing finished mutants, and an
# interrupted campaign (SIGTERM, and SIGKILL followed by the next run)
# leaving the source tree exactly as it found it (its manifest, mtimes
# too), and nothing written through a link planted at the matrix or the
# lock. (tests/kbuild.sh kills mutate at random.)
#
# usage: tests/mutate.sh BUILD_DIR   (TAP on stdout)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd) || exit 1
mutate=$top/scripts/mutate.sh
# The headers and the matrix are iopath mutant's (the binary under test).
export IOPATH_BIN=$build/iopath
work=$(mktemp -d "${TMPDIR:-/tmp}/iopath-mutate-test.XXXXXX") || exit 1
bgpid=""
cleanup() {
	[ -n "$bgpid" ] && kill -KILL "$bgpid" 2>/dev/null
	[ -n "${IOPATH_TEST_KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

. "$top/tests/lib/tap.sh"
# shellcheck source=tests/lib/manifest.sh
. "$top/tests/lib/manifest.sh"

# ---- the fakes --------------------------------------------------------------

src=$work/src
mkdir -p "$src/fs/iomap"
echo 'all:' > "$src/Makefile"
printf 'alpha\nbeta\ngamma\n' > "$src/fs/iomap/iter.c"
printf 'one\ntwo\n' > "$src/fs/iomap/seek.c"
pristine=$(tree_manifest "$src")

# The builder "compiles" the tree into a bzImage holding its text; a tree
# with BROKEN in it does not build, one with SLEEP waits to be interrupted.
# Every build is counted, and the text it saw kept.
cat > "$work/builder" <<'EOF'
#!/bin/bash
src=$1 obj=$2
echo build >> "${obj%/obj}/builds"
cat "$src"/fs/iomap/*.c > "${obj%/obj}/build.text"
grep -rq BROKEN "$src/fs" && { echo "fs/iomap/iter.c:2: error: BROKEN"; exit 1; }
if grep -rq SLEEP "$src/fs"; then
	# as make does: the work in a child of its own, which a SIGTERM to
	# the builder alone would leave running
	sleep 60 &
	echo $! > "${obj%/obj}/build.pid"
	wait
	exit 1
fi
mkdir -p "$obj/arch/x86/boot"
cat "$src"/fs/iomap/*.c > "$obj/arch/x86/boot/bzImage"
EOF
# The VM reads the bzImage: PANIC panics, FLAKY panics on its first boot
# only, HANG hangs (each said in vm.sh's stop line),
# KILL_TWO fails a.x.two with a harness diagnostic, SKIP_HIDES skips it
# after a failed check, PROSE has its output say it failed while it
# passes, HOSTILE fails c_test's test with an escape in its name and its
# diagnostic. Programs a_test and b_test (c_test only when asked for), as
# filtered by -t iopath:PROG. Like the guest, it ends with the TAP
# reader's machine lines and result line (iopath verdict).
cat > "$work/vm" <<'EOF'
#!/bin/bash
kernel="" log="" progs=() envs=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--log) log=$2; shift ;;
	-t) progs+=("${2#iopath:}"); shift ;;
	--env) envs+=("$2"); shift ;;
	esac
	shift
done
every=""
[ ${#progs[@]} -gt 0 ] || { progs=(a_test b_test); every=" (every program)"; }
echo "$(basename "$log" .console) ${progs[*]}${envs[*]:+ env=${envs[*]}}$every" >> "$(dirname "$log")/../vm-calls"
: > "$log"
flaky=$(dirname "$log")/../flaky.done
if grep -q FLAKY "$kernel" && [ ! -e "$flaky" ]; then
	touch "$flaky"
	printf 'Kernel panic - not syncing: IO-APIC + timer doesn'"'"'t work!\n' > "$log"
	echo "# IOPATH-STOP: reason=panic seconds=1 what=Kernel panic - not syncing: IO-APIC + timer doesn't work!"
	exit 1
fi
if grep -q PANIC "$kernel"; then
	printf 'Oops: int3: 0000 [#1] SMP\nKernel panic - not syncing: Fatal exception\n' > "$log"
	echo "iopath: vm: bzImage: the guest kernel panicked after 3 s: Fatal exception" >&2
	echo "# IOPATH-STOP: reason=panic seconds=3 what=Oops: int3: 0000 [#1] SMP"
	exit 1
fi
if grep -q HANG "$kernel"; then
	echo "iopath: vm: bzImage: the guest went quiet; QEMU killed after 9 s" >&2
	echo "# IOPATH-STOP: reason=hang seconds=9 what=no output from the guest for 9 s"
	exit 1
fi
if grep -q LINGER "$kernel"; then
	# a.x.two fails at once, then the program runs on for a minute
	# (until SIGTERM, which vm.sh answers by taking QEMU down).
	echo "# selftests: iopath: a_test"
	echo "# #  RUN           a.x.one ..."
	echo "# ok 1 a.x.one"
	echo "# #  RUN           a.x.two ..."
	echo "# # a_test.c:10:two:Expected 4096 (4096) == got (4095)"
	echo "# not ok 2 a.x.two"
	trap 'kill "$spid"; echo "iopath: vm: terminated" >&2; exit 143' TERM
	sleep 60 &
	spid=$!
	echo "$spid" > "$(dirname "$log")/../linger.pid"
	wait "$spid"
	echo "# IOPATH-STOP: reason=hang seconds=60 what=still running"
	exit 1
fi
# SLOWPASS passes like any kernel, after three quiet seconds.
grep -q SLOWPASS "$kernel" && sleep 3
tap=$(mktemp)
n=0
for p in "${progs[@]}"; do
	echo "# selftests: iopath: $p"
	tests=(one two)
	[ "$p" = c_test ] && tests=(one $'t\e[31m(wo')
	for t in "${tests[@]}"; do
		n=$((n + 1))
		echo "# #  RUN           ${p%_test}.x.$t ..."
		if [ "$p.$t" = a_test.two ] && grep -q KILL_TWO "$kernel"; then
			echo "# # a_test.c:10:two:Expected 4096 (4096) == got (4095)"
			echo "# not ok $n ${p%_test}.x.$t"
		elif [ "$p.$t" = a_test.two ] && grep -q SKIP_HIDES "$kernel"; then
			echo "# # a_test.c:10:two:Expected 4096 (4096) == got (4095)"
			echo "# ok $n ${p%_test}.x.$t # SKIP no O_DIRECT here"
		elif [ "$p.$t" = a_test.two ] && grep -q PROSE "$kernel"; then
			echo "# # a_test.c:12:two:killed: the mutant's check failed"
			echo "# #            FAIL  a.x.two"
			echo "# IOPATH-CASE: result=fail program=a_test name=a.x.two lines=1-2"
			echo "# ok $n ${p%_test}.x.$t"
		elif [ "$p" = c_test ] && [ "$t" != one ] && grep -q HOSTILE "$kernel"; then
			echo $'# # c_test.c:7:t\e[31m(wo:Expected 1 (1) == got \e]2;pwned\a(0)'
			echo "# not ok $n ${p%_test}.x.$t"
		else
			echo "# ok $n ${p%_test}.x.$t"
		fi
	done
	echo "ok 1 selftests: iopath: $p"
done > "$tap"
cat "$tap"
"$IOPATH_TEST_BUILD/iopath" verdict --result IOPATH-VM-RESULT /dev/null /dev/null /dev/null "$tap"
rm -f "$tap"
EOF
chmod +x "$work/builder" "$work/vm"
export IOPATH_MUTATE_BUILDER=$work/builder IOPATH_MUTATE_VM=$work/vm IOPATH_TEST_TOP=$top
export IOPATH_TEST_BUILD=$build

mutants=$work/mutants
mkdir -p "$mutants"
# mutant NAME TESTS FILE OLD NEW [EQUIVALENT [FILTER]]
mutant() {
	local f=$mutants/$1.patch
	{
		echo "# Mutant: $1"
		echo "# Function: f()"
		echo "# Bug: $4 becomes $5"
		echo "# Tests: $2"
		[ -n "${6:-}" ] && echo "# Equivalent: $6"
		[ -n "${7:-}" ] && echo "# Filter: $7"
		echo "--- a/fs/iomap/$3"
		echo "+++ b/fs/iomap/$3"
		diff -U1 "$src/fs/iomap/$3" <(sed "s/^$4\$/$5/" "$src/fs/iomap/$3") | tail -n +3
	} > "$f"
}
mutant 01-killed a_test iter.c beta KILL_TWO "" "a_test=-t two"
mutant 02-crash a_test iter.c gamma PANIC
mutant 03-survived "a_test b_test" seek.c one ONE
mutant 04-nobuild b_test iter.c alpha BROKEN
mutant 05-equivalent b_test seek.c two TWO "the value is never read"
mutant 06-sleep a_test iter.c beta SLEEP
mutant 07-flaky a_test iter.c alpha FLAKY
mutant 08-hang a_test seek.c one HANG
mutant 09-skip-hides a_test seek.c two SKIP_HIDES
mutant 10-prose a_test seek.c two PROSE
mutant 11-hostile c_test seek.c one HOSTILE
mutant 12-linger "a_test b_test" seek.c one LINGER
mutant 13-slow-survivor "a_test b_test" seek.c two SLOWPASS
mkdir -p "$work/five"
cp "$mutants"/0[1-5]-*.patch "$work/five/"
# A generated mutant (iopath mutant generate): "# Tests: all", the whole
# collection, and its "# Generated:" line; beside a hand-written one.
mkdir -p "$work/gen"
mutant 001-relop-f all iter.c beta KILL_TWO
sed -i 's/^# Tests: all$/&\n# Generated: relop, 3/' "$mutants/001-relop-f.patch"
mv "$mutants/001-relop-f.patch" "$work/gen/"
cp "$mutants/03-survived.patch" "$work/gen/"

run_mutate() {	# WORKDIR MUTANTS_DIR ARGS...
	local w=$1 m=$2
	shift 2
	"$mutate" --ksrc "$src" --work "$w" --mutants "$m" --build "$work" \
		--pristine-runs 2 --crash-runs 2 "$@"
}

# start_mutate WORKDIR MUTANTS_DIR ARGS...: in the background, bgpid its pid.
start_mutate() {
	local w=$1 m=$2
	shift 2
	"$mutate" --ksrc "$src" --work "$w" --mutants "$m" --build "$work" \
		--pristine-runs 2 --crash-runs 2 "$@" > /dev/null 2>> "$work/err-bg" &
	bgpid=$!
}

tree_pristine() {
	[ "$(tree_manifest "$src")" = "$pristine" ]
}

# ---- bad input --------------------------------------------------------------

# expect_usage NAME ARGS...: exit 2, one line on stderr, nothing created.
expect_usage() {
	local name=$1 rc w=$work/usage
	shift
	rm -rf "$w"
	"$mutate" --work "$w" --ksrc "$src" --mutants "$work/five" "$@" > /dev/null 2> "$work/err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l < "$work/err")" = 1 ] && [ ! -e "$w" ]; then
		ok "usage.$name"
	else
		not_ok "usage.$name" "exit $rc, stderr: $(head -n 3 "$work/err")" "created: $(ls "$w" 2>/dev/null | head -n 3)"
	fi
}
expect_usage unknown_option --frobnicate
expect_usage zero_runs --pristine-runs 0
expect_usage crash_runs_over_pristine --pristine-runs 1 --crash-runs 2
expect_usage jobs_over_two --jobs 8
expect_usage no_such_mutant 99-nothing
expect_usage not_a_tree --ksrc "$work"
mkdir -p "$work/badhdr"
sed '/^# Tests:/d' "$mutants/01-killed.patch" > "$work/badhdr/x.patch"
expect_usage header_without_tests --mutants "$work/badhdr"
# A key given twice: sed took the first and the campaign ran; a control
# character went into the matrix and onto the terminal.
mkdir -p "$work/twice" "$work/ctrl"
sed 's/^# Tests: .*/&\n# Tests: b_test/' "$mutants/01-killed.patch" > "$work/twice/x.patch"
expect_usage header_key_given_twice_refused --mutants "$work/twice"
grep -q 'x.patch:5: .# Tests:. given twice (first on line 4)' "$work/err"
check $? "usage.header_key_given_twice_names_file_and_line"
sed 's/^# Function: .*/# Function: f()\x1b[2J/' "$mutants/01-killed.patch" > "$work/ctrl/x.patch"
expect_usage header_control_character_refused --mutants "$work/ctrl"
# A mutant that makes a symbolic link (git's mode 120000) passed the dry
# run and left the link in the tree: refused before anything is made.
mkdir -p "$work/symlink"
{ cat "$mutants/01-killed.patch"
  printf 'diff --git a/fs/link b/fs/link\nnew file mode 120000\n--- /dev/null\n+++ b/fs/link\n@@ -0,0 +1 @@\n+/tmp\n'; } \
	> "$work/symlink/x.patch"
expect_usage patch_making_a_symlink_refused --mutants "$work/symlink"
grep -q 'x.patch:[0-9]*: a symbolic link (mode 120000)' "$work/err"
check $? "usage.patch_making_a_symlink_named"

# ---- missing packages: named before anything is created --------------------

# IOPATH_DEPS_ROOT: scripts/deps.sh looks there instead of /; an empty
# directory is a machine without flex, qemu or patch.
mkdir -p "$work/noroot" "$work/patchroot/usr/bin"
touch "$work/patchroot/usr/bin/patch"
# deps_run NAME ROOT ARGS...: mutate with that root and a fresh work directory
deps_run() {
	local name=$1 root=$2
	shift 2
	IOPATH_DEPS_ROOT=$root "$mutate" --ksrc "$src" --work "$work/$name" --mutants "$work/five" --build "$work" \
		--pristine-runs 1 --crash-runs 1 "$@" > /dev/null 2> "$work/$name.err"
	rc=$?
}
IOPATH_MUTATE_BUILDER="" IOPATH_MUTATE_VM="" deps_run deps_none "$work/noroot" 01-killed
[ "$rc" = 1 ] && [ "$(wc -l < "$work/deps_none.err")" = 1 ] &&
	grep -q 'missing: .*\<flex\>.*\<qemu-system-x86\>.*install with: sudo apt-get install' "$work/deps_none.err" &&
	[ ! -e "$work/deps_none" ]
check $? "deps.build_and_vm_packages_named_before_work_is_made"
IOPATH_MUTATE_BUILDER="" deps_run deps_builder "$work/noroot" 01-killed
[ "$rc" = 1 ] && grep -qw flex "$work/deps_builder.err" && ! grep -qw qemu-system-x86 "$work/deps_builder.err"
check $? "deps.a_vm_given_needs_no_vm_packages"
deps_run deps_fakes "$work/patchroot" 01-killed
[ "$rc" = 0 ] && ! grep -q '^deps:' "$work/deps_fakes.err"
check $? "deps.fake_builder_and_vm_need_only_patch"
tree_pristine
check $? "deps.tree_restored"

# ---- a whole campaign -------------------------------------------------------

w=$work/w1
out=$(run_mutate "$w" "$work/five" 2> "$work/err1")
rc=$?
check "$([ "$rc" = 1 ] && echo 0)" "campaign.exit_1_with_a_survivor"
tree_pristine
check $? "campaign.tree_restored"
check "$([ ! -e "$w/tree.upper" ] && [ -z "$(ls -A "$w/tree")" ] && echo 0)" "campaign.no_build_tree_left"
# res NAME FILTER: jq's raw output of FILTER on the mutant's result (state/NAME.json)
res() { jq -r "$2" "$w/state/$1.json" 2>/dev/null; }
cls() { res "$1" .class; }
# killers NAME: the result's killers, blank-separated
killers() { res "$1" '.killed_by | join(" ")'; }
for pair in 01-killed:killed 02-crash:crash 03-survived:survived 04-nobuild:no-build 05-equivalent:equivalent; do
	got=$(cls "${pair%%:*}")
	check "$([ "$got" = "${pair#*:}" ] && echo 0)" "classify.${pair%%:*}"
	[ "$got" = "${pair#*:}" ] || echo "# got '$got'"
done
[ "$(killers 01-killed)" = a.x.two ] &&
	res 01-killed .detail | grep -q '^a_test.c:10:two:Expected 4096'
check $? "classify.killed_names_test_and_diagnostic"
res 02-crash .detail | grep -q '^Oops: int3' &&
	[ "$(grep -c '^02-crash' "$w/vm-calls")" = 2 ]
check $? "classify.crash_says_which_and_is_reproduced"
grep -q '^01-killed.1 a_test env=KSELFTEST_A_TEST_ARGS=-t two$' "$w/vm-calls" &&
	grep -q '^02-crash.1 a_test$' "$w/vm-calls" && grep -q '^03-survived.1 a_test b_test$' "$w/vm-calls" &&
	grep -q '^pristine.1 a_test b_test$' "$w/vm-calls"
check $? "run.only_the_programs_and_tests_the_header_names"
res 04-nobuild .detail | grep -q 'error: BROKEN'
check $? "classify.no_build_says_why"
grep -q '^| 01-killed | f() | killed | a.x.two |' "$w/matrix.md" &&
	[ "$(grep -c '^| 0' "$w/matrix.md")" = 5 ]
check $? "matrix.table"
if command -v jq > /dev/null; then
	jq -e '.killed == 2 and .non_equivalent == 4 and (.mutants | length) == 5 and
		.mutants[0].killed_by == ["a.x.two"] and (.mutants[2].build_s | type) == "number" and
		.pristine.clean_runs == 2' "$w/matrix.json" > /dev/null
	check $? "matrix.json"
else
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["killed"] == 2 and d["non_equivalent"] == 4' \
		"$w/matrix.json" 2> /dev/null
	check $? "matrix.json"
fi
echo "$out" | tail -n 1 | grep -q '^mutate: 2 of 4 non-equivalent mutants killed; pristine clean on 2 of 2 runs'
check $? "campaign.summary_line"

# The matrix written again from the state, under glibc's malloc checking
# (a byte written past an allocation aborts at its free): matrix.json
# once had its newline appended past the end of json_dumps()'s string,
# which aborted "double free or corruption" for some sets of mutants. An
# ASan build checks that itself; without glibc's debug library the run
# only has to succeed.
mcheck=()
if ! ldd "$IOPATH_BIN" 2>/dev/null | grep -q libasan &&
   ldconfig -p 2>/dev/null | grep -q 'libc_malloc_debug\.so\.0'; then
	mcheck=(env LD_PRELOAD=libc_malloc_debug.so.0 GLIBC_TUNABLES=glibc.malloc.check=3)
fi
"${mcheck[@]}" "$IOPATH_BIN" mutant matrix --work "$w" --ksrc "$src" > /dev/null 2> "$work/mcheck.err"
rc=$?
if [ "$rc" = 0 ] && [ ! -s "$work/mcheck.err" ] && [ "$(tail -c 1 "$w/matrix.json" | od -An -c | tr -d ' ')" = '\n' ]; then
	ok "matrix.json_written_within_its_buffer"
else
	not_ok "matrix.json_written_within_its_buffer" "exit $rc: $(head -n 2 "$work/mcheck.err")"
fi

# ---- a generated mutant ---------------------------------------------------------
# Treated as a hand-written one, with every program run unfiltered (its
# "# Tests: all"; "iopath:all" was no program, and the header was refused),
# the pristine kernel over every program too, and its kill rate with the
# interval under the matrix.
w=$work/wgen
"$mutate" --ksrc "$src" --work "$w" --mutants "$work/gen" --build "$work" --list > "$work/genlist" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q '^001-relop-f  *f()  *all (generated: relop, 3)$' "$work/genlist" &&
   grep -q '^03-survived  *f()  *a_test b_test$' "$work/genlist"; then
	ok "generated.listed_like_a_hand_written_one"
else
	not_ok "generated.listed_like_a_hand_written_one" "exit $rc" "$(cat "$work/genlist")"
fi
run_mutate "$w" "$work/gen" > "$work/gen.out" 2> "$work/gen.err"
if [ "$(cls 001-relop-f)" = killed ] && grep -q '^001-relop-f.1 a_test b_test (every program)$' "$w/vm-calls" &&
   grep -q '^pristine.1 a_test b_test (every program)$' "$w/vm-calls" &&
   grep -q '^03-survived.1 a_test b_test$' "$w/vm-calls" && tree_pristine; then
	ok "generated.runs_the_whole_collection_and_is_classified"
else
	not_ok "generated.runs_the_whole_collection_and_is_classified" "class $(cls 001-relop-f)" \
		"$(cat "$w/vm-calls" 2>&1)" "$(tail -n 3 "$work/gen.err")"
fi
if grep -q '^Kill rate of the 1 non-equivalent ones that built and ran: 1/1 = 100.0% (95% CI 2.5% to 100.0%, Clopper-Pearson).$' \
	"$work/gen.out"; then
	ok "generated.matrix_has_the_kill_rate_and_interval"
else
	not_ok "generated.matrix_has_the_kill_rate_and_interval" "$(tail -n 4 "$work/gen.out")"
fi
w=$work/w1

# ---- links planted in the work directory ----------------------------------------
# matrix.md, matrix.json and .lock were written through symbolic links
# ('>' and 'exec 8>' follow them): a link at a matrix name is refused now,
# and the lock is the work directory, so a link at .lock is never opened.
for f in md json lock; do
	printf 'victim %s\n' "$f" > "$work/victim.$f"
done
ln -sf "$work/victim.md" "$w/matrix.md"
ln -sf "$work/victim.json" "$w/matrix.json"
ln -sf "$work/victim.lock" "$w/.lock"
run_mutate "$w" "$work/five" --matrix > "$work/link.out" 2> "$work/link.err"
rc=$?
ok_refused=0
[ "$rc" = 2 ] && [ "$(wc -l < "$work/link.err")" = 1 ] && grep -q 'matrix.md: is a symbolic link' "$work/link.err" &&
	ok_refused=1
rm -f "$w/matrix.md" "$w/matrix.json"
run_mutate "$w" "$work/five" --matrix > /dev/null 2> "$work/link2.err"
rc2=$?
if [ "$ok_refused" = 1 ] && [ "$rc2" = 0 ] && [ -f "$w/matrix.md" ] && [ ! -L "$w/matrix.md" ] &&
   [ "$(cat "$work/victim.md" "$work/victim.json" "$work/victim.lock")" = "$(printf 'victim md\nvictim json\nvictim lock')" ]; then
	ok "links.matrix_and_lock_never_written_through"
else
	not_ok "links.matrix_and_lock_never_written_through" "with links: exit $rc, $(head -2 "$work/link.err")" \
		"lock link only: exit $rc2, $(head -2 "$work/link2.err")" \
		"victims: $(cat "$work/victim.md" "$work/victim.json" "$work/victim.lock" | tr '\n' ' ')"
fi
rm -f "$w/.lock"
# A work directory others can write to: they could plant links at the
# state and log names, which are written with '>'.
mkdir -p "$work/shared"
chmod 1777 "$work/shared"
run_mutate "$work/shared" "$work/five" --matrix > /dev/null 2> "$work/shared.err"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l < "$work/shared.err")" = 1 ] && grep -q 'others can write to it' "$work/shared.err" &&
   [ -z "$(ls -A "$work/shared")" ]; then
	ok "links.work_directory_others_can_write_refused"
else
	not_ok "links.work_directory_others_can_write_refused" "exit $rc: $(head -2 "$work/shared.err")"
fi
# ---- the matrix from the state read back ------------------------------------------

# The state is input: a control character in a detail reached matrix.md
# and the terminal raw, and a class that is none of mutate's went into
# the matrix as it was.
cp -a "$work/w1" "$work/w7"
# jq_edit FILE FILTER: the state file rewritten by jq (as a hand would)
jq_edit() { jq "$2" "$1" > "$1.new" && mv "$1.new" "$1"; }
jq_edit "$work/w7/state/03-survived.json" '.detail = "the guest said \u001b]2;pwned\u0007 here"'
run_mutate "$work/w7" "$work/five" --matrix > "$work/m7.out" 2> "$work/m7.err"
rc=$?
if [ "$rc" = 0 ] && ! grep -q $'\x1b' "$work/w7/matrix.md" "$work/m7.out" &&
   grep -qF 'the guest said \x1b]2;pwned\x07 here' "$work/w7/matrix.md"; then
	ok "matrix.control_character_in_state_escaped"
else
	not_ok "matrix.control_character_in_state_escaped" "exit $rc: $(head -n 2 "$work/m7.err")" \
		"$(grep 03-survived "$work/w7/matrix.md" | cat -v)"
fi
jq_edit "$work/w7/state/03-survived.json" '.class = "killed-by-me"'
rm -f "$work/w7/matrix.md" "$work/w7/matrix.json"
run_mutate "$work/w7" "$work/five" --matrix > /dev/null 2> "$work/m7.err"
rc=$?
if [ "$rc" != 0 ] && [ "$(wc -l < "$work/m7.err")" = 1 ] &&
   grep -q "03-survived.json: class 'killed-by-me' is none of iopath mutate's" "$work/m7.err" &&
   [ ! -e "$work/w7/matrix.md" ] && [ ! -e "$work/w7/matrix.json" ]; then
	ok "matrix.state_class_checked_not_trusted"
else
	not_ok "matrix.state_class_checked_not_trusted" "exit $rc: $(head -n 2 "$work/m7.err")" \
		"$(ls "$work/w7")"
fi

# ---- resuming -----------------------------------------------------------------

builds=$(wc -l < "$w/builds")
run_mutate "$w" "$work/five" > /dev/null 2> "$work/err2"
# Nothing is built: no mutant is redone, and the build tree, pristine
# since the last run's final rebuild, is not rebuilt again.
check "$([ "$(wc -l < "$w/builds")" = "$builds" ] && grep -q '01-killed: killed (earlier run)' "$work/err2" && echo 0)" \
	"resume.finished_mutants_not_redone"

# --fresh: everything again, no kernel of the earlier run reused.
builds=$(wc -l < "$w/builds")
run_mutate "$w" "$work/five" --fresh > /dev/null 2> "$work/err2b"
check "$([ "$(wc -l < "$w/builds")" = $((builds + 7)) ] && [ "$(cls 01-killed)" = killed ] && echo 0)" \
	"resume.fresh_redoes_everything"

# ---- interrupted campaigns -----------------------------------------------------

# SIGTERM while the mutant's kernel builds: reverted on the way out.
w=$work/w2
start_mutate "$w" "$mutants" 01-killed 03-survived 06-sleep
for _ in $(seq 1 100); do
	[ -s "$w/build.pid" ] && break
	sleep 0.1
done
grep -q SLEEP "$w/build.text" && tree_pristine
check $? "interrupt.mutant_in_its_own_tree_while_building"
kill -TERM "$bgpid"
wait "$bgpid"
bgpid=""
gpid=$(cat "$w/build.pid")
for _ in $(seq 1 50); do
	kill -0 "$gpid" 2>/dev/null || break
	sleep 0.1
done
! kill -0 "$gpid" 2>/dev/null
check $? "interrupt.sigterm_stops_the_build_whole"
kill -KILL "$gpid" 2>/dev/null
tree_pristine
check $? "interrupt.sigterm_leaves_tree_as_it_was"
check "$([ -f "$w/state/01-killed.json" ] && [ ! -f "$w/state/06-sleep.json" ] && echo 0)" \
	"interrupt.finished_mutant_kept_interrupted_one_not"

# SIGKILL: nothing runs on the way out, and nothing needs to.
w=$work/w3
start_mutate "$w" "$mutants" 06-sleep
for _ in $(seq 1 100); do
	[ -s "$w/build.pid" ] && break
	sleep 0.1
done
kill -KILL "$bgpid"
wait "$bgpid" 2>/dev/null
bgpid=""
grep -q SLEEP "$w/build.text" && tree_pristine
check $? "interrupt.sigkill_leaves_tree_as_it_was"
kill -KILL "$(cat "$w/build.pid")" 2>/dev/null
run_mutate "$w" "$mutants" 01-killed > /dev/null 2> "$work/err5"
tree_pristine && [ "$(cls 01-killed)" = killed ] && ! grep -q SLEEP "$w/obj/arch/x86/boot/bzImage"
check $? "interrupt.next_run_resumes"

# ---- the kernels only, for LAVA jobs ---------------------------------------------

# --build-only: every mutant's kernel kept (iopath lava mutate takes them
# from WORK/kernels), the pristine one last in WORK/obj, no guest booted,
# the tree as it was. A campaign removes each kernel once it has run.
w=$work/w5
out=$(run_mutate "$w" "$work/five" --build-only 2> "$work/err7")
rc=$?
if [ "$rc" = 0 ] && tree_pristine && [ ! -e "$w/vm-calls" ] &&
   [ "$(ls "$w/kernels" | tr '\n' ' ')" = "01-killed 02-crash 03-survived 05-equivalent " ] &&
   grep -q KILL_TWO "$w/kernels/01-killed" && ! grep -q KILL_TWO "$w/obj/arch/x86/boot/bzImage" &&
   cmp -s "$w/obj/arch/x86/boot/bzImage" <(cat "$src"/fs/iomap/*.c) &&
   [ "$(cls 04-nobuild)" = no-build ] &&
   echo "$out" | grep -q '^mutate: 4 mutant kernels in .*/kernels, 1 did not build'; then
	ok "build_only.keeps_each_kernel_runs_nothing"
else
	not_ok "build_only.keeps_each_kernel_runs_nothing" "exit $rc: $(tail -n 2 "$work/err7")" \
		"kernels: $(ls "$w/kernels" 2>/dev/null | tr '\n' ' ')" "$out"
fi
expect_usage build_only_with_matrix --build-only --matrix

# ---- a crash that does not reproduce -------------------------------------------

# The clean second run decides; the crash is noted, not counted as a kill.
w=$work/w4
run_mutate "$w" "$mutants" 07-flaky > /dev/null 2> "$work/err6"
[ "$(cls 07-flaky)" = survived ] &&
	res 07-flaky .detail | grep -q '^(run 1 of 2 crashed and did not reproduce: Kernel panic'
check $? "classify.crash_that_does_not_reproduce_is_not_a_kill"

# ---- a hang, said by the VM's stop line --------------------------------------

# The class comes from vm.sh's "# IOPATH-STOP:" line, not from the wording
# of its messages for people (here, one that names no hang).
w=$work/w6
run_mutate "$w" "$mutants" 08-hang > /dev/null 2> "$work/err8"
if [ "$(cls 08-hang)" = crash ] &&
   res 08-hang .detail | grep -q '^hang: no output from the guest for 9 s (on 2 of 2 runs'; then
	ok "classify.hang_read_from_the_vm_stop_line"
else
	not_ok "classify.hang_read_from_the_vm_stop_line" "$(cat "$w/state/08-hang.json" 2>&1)" "$(tail -n 2 "$work/err8")"
fi

# ---- classified by the TAP reader's machine lines -------------------------

# The class comes from what the verdict engine says of each test
# (iopath mutant classify), never from the TAP's prose: a test that
# skipped after a failed check failed (mutate's own reading of the TAP
# called it a skip, and the mutant survived); output that says a test
# failed, even a line that looks like the reader's, while the test passed
# kills nothing; a test name and a diagnostic with an escape in them go
# into the state escaped (mutate's awk took the name as a regular
# expression and lost the diagnostic, and wrote the escape raw).
w=$work/w8
run_mutate "$w" "$mutants" 09-skip-hides 10-prose 11-hostile > /dev/null 2> "$work/err9"
if [ "$(cls 09-skip-hides)" = killed ] && [ "$(killers 09-skip-hides)" = a.x.two ] &&
   res 09-skip-hides .detail | grep -q '^a_test.c:10:two:Expected 4096'; then
	ok "classify.skip_after_failed_check_is_a_kill"
else
	not_ok "classify.skip_after_failed_check_is_a_kill" "$(cat "$w/state/09-skip-hides.json" 2>&1)" \
		"$(tail -n 2 "$work/err9")"
fi
if [ "$(cls 10-prose)" = survived ] && [ "$(res 10-prose '.killed_by | length')" = 0 ]; then
	ok "classify.failure_in_prose_only_kills_nothing"
else
	not_ok "classify.failure_in_prose_only_kills_nothing" "$(cat "$w/state/10-prose.json" 2>&1)" \
		"$(tail -n 2 "$work/err9")"
fi
if [ "$(cls 11-hostile)" = killed ] && ! res 11-hostile '.[]?, .killed_by[]?' | grep -q $'[\x01-\x08\x0b-\x1f\x7f]' &&
   [ "$(killers 11-hostile)" = 'c.x.t??31m?wo' ] &&
   res 11-hostile .detail | grep -qxF 'c_test.c:7:t\x1b[31m(wo:Expected 1 (1) == got \x1b]2;pwned\x07(0)'; then
	ok "classify.hostile_test_name_and_diagnostic_escaped"
else
	not_ok "classify.hostile_test_name_and_diagnostic_escaped" \
		"$(cat -v "$w/state/11-hostile.json" 2>&1)" "$(tail -n 2 "$work/err9" | cat -v)"
fi

# ---- --first-kill ------------------------------------------------------------

# A run is stopped once a test that passed on every pristine run fails in
# it: the mutant is killed by what failed up to there, in seconds, not
# after the minute its program would go on for; the guest is stopped, not
# left running; no crash is read into the missing result line. A mutant
# that nothing kills still runs everything.
# gone PID: the process is gone within two seconds (a signal is delivered
# when the scheduler gets to it).
gone() {
	local _
	for _ in $(seq 20); do
		kill -0 "$1" 2> /dev/null || return 0
		sleep 0.1
	done
	return 1
}
w=$work/w9
t0=$SECONDS
IOPATH_MUTATE_WATCH_S=1 run_mutate "$w" "$mutants" --first-kill 12-linger 13-slow-survivor \
	> /dev/null 2> "$work/err12"
t=$((SECONDS - t0))
if [ "$(cls 12-linger)" = killed ] && [ "$(killers 12-linger)" = a.x.two ] && [ "$t" -lt 40 ] &&
   res 12-linger .detail | grep -q '^a_test.c:10:two:Expected 4096.*stopped at this kill' &&
   [ "$(grep -c '^12-linger' "$w/vm-calls")" = 1 ] && [ -f "$w/logs/12-linger.1.seen" ] &&
   gone "$(cat "$w/linger.pid")"; then
	ok "first_kill.run_stops_at_the_kill"
else
	not_ok "first_kill.run_stops_at_the_kill" "${t} s" "$(cat "$w/state/12-linger.json" 2>&1)" \
		"$(tail -n 3 "$work/err12")"
fi
# A survivor whose guest is still quiet when the watcher looks (nothing
# has failed yet) is left to run to its result line.
if [ "$(cls 13-slow-survivor)" = survived ] && grep -q IOPATH-VM-RESULT "$w/logs/13-slow-survivor.1.tap" &&
   [ ! -e "$w/logs/13-slow-survivor.1.stopped" ]; then
	ok "first_kill.survivor_runs_everything"
else
	not_ok "first_kill.survivor_runs_everything" "$(cat "$w/state/13-slow-survivor.json" 2>&1)"
fi

finish_tap
