#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The kernel build's own tree (scripts/lib/kbuild.bash): the source tree
# given to iopath ab --ksrc and iopath mutate is never written. The bug it
# catches: the tree was patched in place, restored on exit, and after a
# SIGKILL restored by a watcher polling for the run's death; until the
# watcher ran the tree was not the user's, and after it each file the
# patch touched had a new mtime.
#
# Checked, with the fakes of tests/lib/ab_fakes.sh (a builder and a VM
# that sleep, a patch(1) in PATH that sleeps before it runs):
#   - each command SIGKILLed, whole process group, at random instants
#     while a patch is checked or applied, while a kernel builds and while
#     a guest boots (phases in turn, the occurrence and the instant in it
#     drawn at random): the tree's manifest (tests/lib/manifest.sh:
#     content hashes, modes, mtimes, ctimes) is what it was, every process
#     of the run was in its process group (no watcher in a session of its
#     own) and none outlives the kill; then a full run passes;
#   - a file a build patched comes back in the next build's tree with its
#     old mtime, older than its object, and is rebuilt all the same, and
#     an unchanged tree rebuilds nothing (a builder that is make, by
#     mtimes, not a fake that always rebuilds);
#   - a name in OBJ's dirty list (state) that leaves the tree, or goes
#     through a link, is never touched.
#
# usage: tests/kbuild.sh BUILD_DIR   (TAP on stdout)
# IOPATH_KILLS=N: kills of each command (default 6, two per phase; the
# acceptance run takes 21: IOPATH_KILLS=21 tests/kbuild.sh build).
set -u

build=$(cd "${1:?usage: tests/kbuild.sh BUILD_DIR}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
kills=${IOPATH_KILLS:-6}
t=$(mktemp -d "${TMPDIR:-/tmp}/iopath-kbuild-test.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck source=tests/lib/manifest.sh
. "$top/tests/lib/manifest.sh"
# shellcheck source=tests/lib/ab_fakes.sh
. "$top/tests/lib/ab_fakes.sh"

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root (an overlay in a private mount namespace)"
	exit 0
fi

# ---- the fakes and the tree -------------------------------------------------

ab_fakes "$t"
src=$t/src
# Names of every kind the manifest tells apart, and old mtimes, so that a
# file written and put back shows.
ln -s iomap/cost "$src/fs/cost-link"
ln -s "$t/victim" "$src/fs/out-link"
printf '#!/bin/sh\n' > "$src/fs/iomap/tool.sh"
chmod 0750 "$src/fs/iomap/tool.sh"
find "$src" -exec touch -h -d '2020-01-02 03:04:05.123456789' {} +
echo "victim" > "$t/victim"
touch -d '2020-01-02' "$t/victim"
before=$(tree_manifest "$src")
victim=$(stat -c '%y %z' "$t/victim")

mkdir -p "$t/bin" "$t/mutants"
# patch(1), logged and slowed down: the apply phase lasts long enough to
# be killed in.
cat > "$t/bin/patch" <<'EOF'
#!/bin/bash
echo "apply $*" >> "$FAKE_LOG"
sleep "${FAKE_PATCH_SLEEP:-0}"
exec /usr/bin/patch "$@"
EOF
# iopath mutate's VM: a boot logged, FAKE_BOOT_SLEEP long, one test,
# failing on the mutant's kernel, and the verdict engine's lines.
cat > "$t/mvm" <<'EOF'
#!/bin/bash
log="" kernel=""
while [ $# -gt 0 ]; do
	case $1 in --log) log=$2; shift ;; --kernel) kernel=$2; shift ;; esac
	shift
done
r=ok
grep -q 1050 "$kernel" && r="not ok"
echo "boot" >> "$FAKE_LOG"
: > "$log"
sleep "${FAKE_BOOT_SLEEP:-0}"
tap=$(mktemp)
printf '# selftests: iopath: a_test\n# #  RUN           a.x.one ...\n# %s 1 a.x.one\nok 1 selftests: iopath: a_test\n' "$r" > "$tap"
cat "$tap"
"$IOPATH_BIN" verdict --result IOPATH-VM-RESULT /dev/null /dev/null /dev/null "$tap"
rm -f "$tap"
EOF
# A builder that is make: OBJ/cost.o from the tree's fs/iomap/cost when
# it is newer, the bzImage from that; each compile logged.
cat > "$t/fake.mk" <<'EOF'
$(OBJ)/arch/x86/boot/bzImage: $(OBJ)/cost.o
	mkdir -p $(dir $@) && echo "cost=$$(cat $<)" > $@
$(OBJ)/cost.o: $(SRC)/fs/iomap/cost
	mkdir -p $(OBJ) && cp $< $@ && echo compile >> $(FAKE_LOG)
EOF
cat > "$t/mk" <<'EOF'
#!/bin/bash
echo build >> "$FAKE_LOG"
exec make -s -f "$FAKE_MK" SRC="$1" OBJ="$2"
EOF
chmod +x "$t/bin/patch" "$t/mvm" "$t/mk"
{
	printf '# Mutant: 01-cost\n# Function: f()\n# Bug: dearer\n# Tests: a_test\n'
	cat "$t/plus5.patch"
} > "$t/mutants/01-cost.patch"

export FIX=$top/tests/fixtures/compare FAKE_LOG=$t/log IOPATH_BIN=$build/iopath FAKE_MK=$t/fake.mk
export IOPATH_AB_VM=$t/vm IOPATH_AB_BUILDER=$t/builder
export IOPATH_MUTATE_VM=$t/mvm IOPATH_MUTATE_BUILDER=$t/builder
export PATH=$t/bin:$PATH

run_ab() { # OUT: iopath ab --ksrc on WORK $t/abwork
	"$top/scripts/ab.sh" --build "$build" --work "$t/abwork" --out "$1" \
		--ksrc "$src" --patch "$t/plus5.patch" --boots 1 -- read_vs_readv
}
run_mutate() { # iopath mutate on WORK $t/mwork, from scratch
	"$top/scripts/mutate.sh" --ksrc "$src" --work "$t/mwork" --mutants "$t/mutants" --build "$build" \
		--pristine-runs 1 --crash-runs 1 --fresh
}

# ---- SIGKILL at random instants -------------------------------------------------

export top build src t
export -f run_ab run_mutate

# marked: the pids of the processes of the run being killed (its
# environment has IOPATH_KILL_MARK).
marked() {
	grep -lzx "IOPATH_KILL_MARK=$t" /proc/[0-9]*/environ 2> /dev/null | cut -d/ -f3
}

# pgrp PID: its process group.
pgrp() {
	sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f3
}

# kill_matrix NAME RUN: RUN (run_ab or run_mutate) started $kills times in
# a session of its own and SIGKILLed there: phase i mod 3 (apply, build,
# boot), its k-th occurrence (k drawn among the occurrences of a full
# run), then 0 to 0.4 s more. Each kill checked at once.
kill_matrix() {
	local name=$1 run=$2 i phase k pid p j left moved="" changed="" survived="" late="" said=""
	local -a phases=(apply build boot)
	local -A count=() hit=()
	: > "$FAKE_LOG"
	IOPATH_KILL_MARK=$t "$run" "$t/$name.ref" > "$t/$name.ref.out" 2> "$t/$name.ref.err"
	check_cmd "kbuild.kill.$name.full_run_passes" test "$?" = 0 -a "$(tree_manifest "$src")" = "$before"
	for phase in "${phases[@]}"; do
		count[$phase]=$(grep -c "^$phase" "$FAKE_LOG")
	done
	for ((i = 0; i < kills; i++)); do
		phase=${phases[i % 3]}
		k=$((1 + RANDOM % count[$phase]))
		: > "$FAKE_LOG"
		rm -rf "$t/$name.out"
		IOPATH_KILL_MARK=$t setsid bash -c '"$0" "$1"' "$run" "$t/$name.out" > /dev/null 2>&1 &
		pid=$!
		for ((j = 0; j < 300; j++)); do
			[ "$(grep -c "^$phase" "$FAKE_LOG")" -ge "$k" ] && break
			sleep 0.05
		done
		[ "$j" = 300 ] && late="$late $i:$phase"
		sleep "0.$(printf '%03d' $((RANDOM % 400)))"
		for p in $(marked); do
			[ "$(pgrp "$p")" = "$pid" ] || [ -z "$(pgrp "$p")" ] || moved="$moved $i:$p"
		done
		said=$(tail -n 1 "$FAKE_LOG" | cut -c1-40)
		kill -KILL -- -"$pid"
		wait "$pid" 2> /dev/null
		[ "$(tree_manifest "$src")" = "$before" ] || changed="$changed $i:$phase($said)"
		for ((j = 0; j < 40; j++)); do
			left=$(marked)
			[ -z "$left" ] && break
			sleep 0.05
		done
		[ -z "$left" ] || survived="$survived $i:$left"
		hit[$phase]=$((${hit[$phase]:-0} + 1))
	done
	check_cmd "kbuild.kill.$name.tree_as_it_was_after_each_sigkill" test -z "$changed$late"
	[ -z "$changed$late" ] || echo "# changed after kill:$changed; phase never reached:$late"
	check_cmd "kbuild.kill.$name.no_process_outside_the_process_group" test -z "$moved"
	[ -z "$moved" ] || echo "# in a group of their own:$moved"
	check_cmd "kbuild.kill.$name.no_process_outlives_the_kill" test -z "$survived"
	[ -z "$survived" ] || echo "# left:$survived"
	echo "# $name: $kills kills: apply ${hit[apply]:-0}, build ${hit[build]:-0}, boot ${hit[boot]:-0}"
	: > "$FAKE_LOG"
	rm -rf "$t/$name.after"
	"$run" "$t/$name.after" > /dev/null 2> "$t/$name.after.err"
	check_cmd "kbuild.kill.$name.next_run_passes" test "$?" = 0 -a "$(tree_manifest "$src")" = "$before"
}

FAKE_PATCH_SLEEP=0.2 FAKE_BUILD_SLEEP=0.4 FAKE_BOOT_SLEEP=0.4 kill_matrix ab run_ab
FAKE_PATCH_SLEEP=0.2 FAKE_BUILD_SLEEP=0.4 FAKE_BOOT_SLEEP=0.4 kill_matrix mutate run_mutate
check_cmd kbuild.kill.victim_outside_the_tree_untouched test "$(stat -c '%y %z' "$t/victim")" = "$victim"

# ---- mtimes: a reverted file is rebuilt, an unchanged one is not -------------

w=$t/mkwork
: > "$FAKE_LOG"
mk_mutate() {
	IOPATH_MUTATE_BUILDER=$t/mk "$top/scripts/mutate.sh" --ksrc "$src" --work "$w" --mutants "$t/mutants" \
		--build "$build" --build-only > /dev/null 2> "$t/mk.err"
}
# made: the builds and compiles logged, in order, on one line
made() {
	grep -E '^(build|compile)$' "$FAKE_LOG" | tr '\n' ' '
}
mk_mutate
# pristine, the mutant, the pristine tree again: each compiles
check_cmd kbuild.mtime.each_build_compiles_what_changed \
	test "$(made)" = "build compile build compile build compile "
# The mutant's fs/iomap/cost is back with its 2020 mtime, older than
# cost.o built from the mutant's text.
check_cmd kbuild.mtime.reverted_file_rebuilt \
	test "$(cat "$w/obj/arch/x86/boot/bzImage")" = cost=1000 -a "$(cat "$w/kernels/01-cost")" = cost=1050
: > "$FAKE_LOG"
mk_mutate
# the mutant's kernel is kept from the first run: the pristine build and
# the last one find nothing to do
check_cmd kbuild.mtime.unchanged_tree_not_rebuilt \
	test "$(made)" = "build build "
# ab: B's object in OBJ, then A again, with its own text
: > "$FAKE_LOG"
IOPATH_AB_BUILDER=$t/mk run_ab "$t/mk-ab1" > /dev/null 2>&1
IOPATH_AB_BUILDER=$t/mk run_ab "$t/mk-ab2" > /dev/null 2> "$t/mk-ab2.err"
check_cmd kbuild.mtime.ab_side_a_rebuilt_after_b \
	test "$?" = 0 -a "$(cat "$t/abwork/kernels/A.bzImage")" = cost=1000 -a "$(grep -c compile "$FAKE_LOG")" = 4
check_cmd kbuild.mtime.tree_as_it_was test "$(tree_manifest "$src")" = "$before"

# ---- the dirty list is state: only files inside the tree are touched ----------

printf '%s\n' ../../victim /etc/hostname fs/out-link fs/iomap/../../../victim > "$w/state/obj.dirty"
mk_mutate
check_cmd kbuild.dirty.names_leaving_the_tree_never_touched \
	test "$?" = 0 -a "$(stat -c '%y %z' "$t/victim")" = "$victim" -a "$(tree_manifest "$src")" = "$before"

finish_tap
