#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every file argument of every subcommand, make target and script (README
# "Files iopath writes" and "Bad usage"), given what it must not take: a
# FIFO (never opened: a reader or writer would block; all is killed after
# 20 s), a directory where a file is expected and a regular file where a
# directory is, /dev/zero as an input, a symlink at an output name (not
# followed: its victim unchanged), an output below a missing directory, a
# missing input, and an output name holding a control character (a
# newline would split the name over two lines of every list of written
# files and message: lib/outfile.c's iop_out_name_ok() and the scripts'
# out_refusal, one check each).
# Each is one line on stderr naming the argument (the option, variable or
# the path), exit status 2, found before any scratch filesystem is made
# (no second line such as "making a scratch"), nothing created in the
# working directory, TMPDIR or beside the fixtures, and the victims
# unchanged. An input may be a symlink to a regular file (README: inputs
# must be regular files, and such a link names one): a symlink to a FIFO is
# refused as the FIFO is.
#
# The table below is the one list of file arguments; a subcommand `iopath
# help` lists without a row fails file_args.every_subcommand_covered, and
# an option whose --help shows a file or directory value (FILE, F, DIR,
# LOG) without a row fails file_args.every_file_option_covered: an
# optional file argument added later is tried as these are.
#
# usage: tests/file_args.sh BUILD_DIR   (TAP on stdout)
set -u

build=$(cd "${1:?usage: file_args.sh BUILD_DIR}" && pwd) || exit 1
top=$(cd "$(dirname "$0")/.." && pwd)
iop=$build/iopath

. "$top/tests/lib/tap.sh"

if [ ! -x "$iop" ]; then
	echo "1..0 # SKIP $iop not built"
	exit 0
fi
tmp=$(mktemp -d /tmp/iopath-file-args.XXXXXX) || { echo "Bail out! no temporary directory"; exit 1; }
# Bad input is refused before a subcommand asks for its packages: each
# iopath case runs as on a machine with none of them (scripts/deps.sh looks
# under an empty root), so what this machine happens to have installed
# cannot turn a refusal into a "missing packages" exit 1, or hide that it
# would. (make's targets install what they need first: they run as they
# are, or skip where they would install.)
mkdir "$tmp/no-packages"
trap 'rm -rf "$tmp"' EXIT
work=$tmp/work
fx=$tmp/fx
mkdir "$work" "$fx"

# SUBCOMMAND  ARGUMENT  KIND  SUFFIX  COMMAND ('@' is the file argument)
#
# KIND: in     an input file: fifo, directory, /dev/zero, symlink to a
#              FIFO, missing
#       out    an output file: fifo, directory, symlink to a victim,
#              below a missing directory, a newline in its name
#       indir  an input directory: a regular file, a FIFO
#       outdir a directory written into: a regular file, a FIFO, a
#              symlink to a victim file, below a missing directory, a
#              newline in its name
#       workdir  the same, made with its parents (ab, mutate and vm default
#              to one below /var/cache/iopath or the build directory): a
#              name below a missing directory is no error
#       kernel an input file or, where no file has the name, a package
#              name: as in, but a missing file is no error
#       dev    a device: a FIFO, a directory, /dev/zero (not a block device)
#       none   no file argument (the subcommand is covered, nothing to try)
# SUFFIX: appended to the fixture's name ('-' none), for commands that
# tell formats by it. COMMAND words: 'iopath' is the binary under test,
# 'make' make of this tree's targets with BUILD and the build itself
# taken as done (-o all ...), 'fstests-vm' contrib/fstests/vm.sh,
# 'upstream.sh' scripts/upstream.sh, BUILD the
# build directory under test. The other
# arguments are valid or, where the command would go on to real work
# (boot, build), harmless (a kernel that is no kernel).
table=$(cat << 'EOF'
cleanup           (none)                none   -      iopath cleanup
esc               (none)                none   -      iopath esc
value             (none)                none   -      iopath value
patch             PATCH                 in     .patch iopath patch check @
patch             --out                 out    .patch iopath patch check --out @ FX/good.patch
bench             --out                 out    .jsonl iopath bench --fs none --reps 1 --runtime 0.1 --out @ read_vs_readv
bench             --profile             in     .conf  iopath bench --dry-run --profile @
run               --profile             in     .conf  iopath run --no-selftests --profile @
run               --results             outdir -      iopath run --no-bench --results @
run               IOPATH_KNOWN_FAILURES in     -      env IOPATH_KNOWN_FAILURES=@ iopath run --no-bench
compare           BASE                  in     .jsonl iopath compare @ FX/good.jsonl
compare           NEW                   in     .jsonl iopath compare FX/good.jsonl @
compare           --verdict             out    .txt   iopath compare --verdict @ FX/good.jsonl FX/new.jsonl
compare           --json                out    .json  iopath compare --json @ FX/good.jsonl FX/new.jsonl
plot              BASE                  in     .jsonl iopath plot @ FX/good.jsonl -o plot.svg
plot              NEW                   in     .jsonl iopath plot FX/good.jsonl @ -o plot.svg
plot              -o                    out    .svg   iopath plot FX/good.jsonl FX/good.jsonl -o @
export            INPUT                 in     .jsonl iopath export --kcidb @
export            --output              out    .json  iopath export --kcidb -o @ FX/good.jsonl
export            --config              in     -      iopath export --kcidb --config @ FX/good.jsonl
export            --image               in     -      iopath export --kcidb --image @ FX/good.jsonl
export            --known-failures      in     -      iopath export --kcidb --known-failures @ FX/good.tap
verdict           KNOWN-FAILURES        in     -      iopath verdict @ /dev/null /dev/null FX/good.tap
verdict           REQUIREMENTS          in     -      iopath verdict /dev/null @ /dev/null FX/good.tap
verdict           FEATURES              in     -      iopath verdict /dev/null /dev/null @ FX/good.tap
verdict           TAP                   in     -      iopath verdict /dev/null /dev/null /dev/null @
verdict           --list                in     -      iopath verdict --list @
export            --features            in     -      iopath export --kcidb --features @ FX/good.tap
records           FILE                  in     .jsonl iopath records check --image-sha256 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef --domain wall @
records           --seen                in     .jsonl iopath records check --image-sha256 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef --domain wall --seen @ FX/good.jsonl
kmsg              scan                  in     -      iopath kmsg scan @
mutant            header                in     .patch iopath mutant header @ Function
mutant            expects               in     .patch iopath mutant expects @
mutant            list                  indir  -      iopath mutant list @
mutant.classify   --err                 in     -      iopath mutant classify --plan FX/plan.json --pristine FX/pristine.json --err @ 01-x FX/empty.tap
mutant.classify   --plan                in     -      iopath mutant classify --plan @ --pristine FX/pristine.json 01-x FX/empty.tap
mutant.classify   --pristine            in     -      iopath mutant classify --plan FX/plan.json --pristine @ 01-x FX/empty.tap
mutant.classify   RUN                   in     .tap   iopath mutant classify --plan FX/plan.json --pristine FX/pristine.json 01-x @
mutant.classify   --out                 out    .json  iopath mutant classify --plan FX/plan.json --pristine FX/pristine.json --out @ 01-x FX/empty.tap
mutant.matrix     --plan                in     -      iopath mutant matrix --work FX/mwork --plan @
mutant.matrix     --work                indir  -      iopath mutant matrix --work @ --plan FX/plan.json
mutant.plan       --mutants             indir  -      iopath mutant plan --mutants @
mutant.plan       --out                 out    .json  iopath mutant plan --mutants FX/mplan --out @
mutant.args       --plan                in     -      iopath mutant args --plan @ 01-x
mutant.pristine   --plan                in     -      iopath mutant pristine --plan @ --build-s 1 --out FX/mwork/p.json 0:0:FX/empty.tap
mutant.pristine   --out                 out    .json  iopath mutant pristine --plan FX/plan.json --build-s 1 --out @ 0:0:FX/empty.tap
mutant.pristine   RUN                   in     .tap   iopath mutant pristine --plan FX/plan.json --build-s 1 --out FX/mwork/p.json 0:0:@
mutant.covers     --plan                in     -      iopath mutant covers --plan @ FX/pristine.json
mutant.record     --out                 out    .json  iopath mutant record --name 01-x --class no-build --out @
mutant.class      FILE                  in     .json  iopath mutant class @
mutant.clean      FILE                  in     .json  iopath mutant clean @
mutant.convert    OLD_STATE             indir  -      iopath mutant convert @ FX/mwork
mutant.convert    NEW_STATE             indir  -      iopath mutant convert FX/oldstate @
mutant.generate   --ksrc                indir  -      iopath mutant generate --ksrc @ --files fs/small.c --seed 1 --out FX/gout
mutant.generate   --out                 outdir -      iopath mutant generate --ksrc FX/gtree --files fs/small.c --seed 1 --out @
mutant.generate   --executed            in     -      iopath mutant generate --ksrc FX/gtree --files fs/small.c --seed 1 --out FX/gout --executed @
mutant.generate   --executed-lines      in     -      iopath mutant generate --ksrc FX/gtree --files fs/small.c --seed 1 --out FX/gout --executed-lines @
outdir            DIR                   outdir -      iopath outdir @
upstream          --out                 outdir -      upstream.sh --ksrc FX/ktree --out @
lava.verdict      LOG                   in     .log   iopath lava verdict @
lava.verdict      --build               indir  -      iopath lava verdict --build @ FX/good.log
lava.verdict      --tap                 out    .tap   iopath lava verdict --tap @ FX/good.log
lava.verdict      --console             out    .log   iopath lava verdict --console @ FX/good.log
lava.verdict      --records             out    .jsonl iopath lava verdict --records @ FX/good.log
lava.verdict      --known-failures      in     -      iopath lava verdict --known-failures @ FX/good.log
lava.jobs         --out                 outdir -      iopath lava jobs --kernel FX/bzImage --out @
lava.jobs         --build               indir  -      iopath lava jobs --kernel FX/bzImage --out jobs --build @
lava.jobs         --template            in     .yaml  iopath lava jobs --kernel FX/bzImage --out jobs --template @
lava.jobs         --known-failures      in     -      iopath lava jobs --kernel FX/bzImage --out jobs --known-failures @
lava.validate     JOB                   in     .yaml  iopath lava validate @
lava.mutate       --work                indir  -      iopath lava mutate --work @ --out jobs
lava.mutate       --out                 outdir -      iopath lava mutate --work FX/mwork --out @
lava.mutate       --plan                in     -      iopath lava mutate --work FX/mwork --plan @ --out FX/mwork/jobs
lava.mutate       --mutants             indir  -      iopath lava mutate --work FX/mwork --mutants @ --out FX/mwork/jobs
lava.bench        --out                 outdir -      iopath lava bench --kernel FX/bzImage --out @
lava.ab           --out                 outdir -      iopath lava ab --a FX/bzImage --b FX/bzImage --out @
ab                --a                   kernel -      iopath ab --build BUILD --a @ --b FX/bzImage -- read_vs_readv
ab                --patch               in     .patch iopath ab --build BUILD --ksrc FX/ksrc --patch @ -- read_vs_readv
ab                --patch-a             in     .patch iopath ab --build BUILD --ksrc FX/ksrc --patch-a @ -- read_vs_readv
ab                --profile             in     .conf  iopath ab --build BUILD --a FX/bzImage --b FX/bzImage --profile @
ab                --ksrc                indir  -      iopath ab --build BUILD --ksrc @ -- read_vs_readv
ab                --out                 outdir -      iopath ab --build BUILD --a FX/bzImage --b FX/bzImage --out @ -- read_vs_readv
ab                --work                workdir -      iopath ab --build BUILD --ksrc FX/ksrc --patch FX/good.patch --work @ -- read_vs_readv
ab                --build               indir  -      iopath ab --a FX/bzImage --b FX/bzImage --build @ -- read_vs_readv
mutate            --ksrc                indir  -      iopath mutate --ksrc @ --list
mutate            --mutants             indir  -      iopath mutate --mutants @ --list
mutate            --work                workdir -      iopath mutate --ksrc FX/ksrc --work @ --matrix
mutate            --lava                indir  -      iopath mutate --work FX/mwork --matrix --lava @
mutate            --build               indir  -      iopath mutate --ksrc FX/ksrc --work FX/mwork --build @
repro             --kernel              in     -      iopath repro --kernel @
scratch.check     DEV                   dev    -      iopath scratch check @
scratch.create    --backing             dev    -      iopath scratch create --fs ext4 --backing dev:@ -- true
scratch.create    --backing             indir  -      iopath scratch create --fs ext4 --backing dir:@ -- true
vm                --kernel              in     -      iopath vm --build BUILD --kernel @
vm                --initrd              in     .gz    iopath vm --build BUILD --kernel FX/bzImage --initrd @
vm                --known-failures      in     -      iopath vm --build BUILD --kernel FX/bzImage --known-failures @
vm                --log                 out    .log   iopath vm --build BUILD --kernel FX/bzImage --log @
vm                --records             out    .jsonl iopath vm --build BUILD --kernel FX/bzImage --bench --records @ -- read_vs_readv
vm                --lava-out            outdir -      iopath vm --build BUILD --kernel FX/bzImage --lava-out @
vm                --build               indir  -      iopath vm --kernel FX/bzImage --build @
vm                --modules             indir  -      iopath vm --build BUILD --kernel FX/bzImage --modules @
vm                --cache               workdir -      iopath vm --build BUILD --kernel FX/bzImage --cache @
vm                --tb-counts           out    .tb    iopath vm --build BUILD --kernel FX/bzImage --accel tcg --tb-counts @
ab                --map-a               in     -      iopath ab --build BUILD --a FX/bzImage --b FX/bzImage --accel tcg --explain --map-a @ --map-b FX/System.map -- read_vs_readv
ab                --map-b               in     -      iopath ab --build BUILD --a FX/bzImage --b FX/bzImage --accel tcg --explain --map-a FX/System.map --map-b @ -- read_vs_readv
tbprof.explain    --map-a               in     -      iopath tbprof explain --map-a @ --per f --a FX/good.tb --b FX/good.tb
tbprof.explain    --a                   in     .tb    iopath tbprof explain --map-a FX/System.map --per f --a @ --b FX/good.tb
tbprof.coverage   --blocks              in     -      iopath tbprof coverage --blocks @ FX/good.tb
tbprof.coverage   COUNTS                in     .tb    iopath tbprof coverage --blocks FX/blocks.txt @
tbprof.lines      INPUT                 in     -      iopath tbprof lines --file fs/x.c @
coverage          --obj                 indir  -      iopath coverage --build BUILD --obj @ --counts FX/good.tb
coverage          --kernel              in     -      iopath coverage --build BUILD --obj FX/kobj --kernel @
coverage          --build               indir  -      iopath coverage --obj FX/kobj --counts FX/good.tb --build @
coverage          --counts              in     .tb    iopath coverage --build BUILD --obj FX/kobj --counts @
coverage          --files               in     -      iopath coverage --build BUILD --obj FX/kobj --counts FX/good.tb --files @
coverage          --out                 outdir -      iopath coverage --build BUILD --obj FX/kobj --counts FX/good.tb --out @
fstests-vm        --kernel              in     -      fstests-vm --kernel @ --fstests FX/fstests generic/001
fstests-vm        --fstests             indir  -      fstests-vm --kernel FX/bzImage --fstests @ generic/001
fstests-vm        --initrd              out    .gz    fstests-vm --kernel FX/bzImage --fstests FX/fstests --initrd @ generic/001
fstests-vm        --log                 out    .log   fstests-vm --kernel FX/bzImage --fstests FX/fstests --log @ generic/001
make.bench        PROFILE               in     .conf  make bench PROFILE=@
make.vm-check     KERNEL                in     -      make vm-check KERNEL=@
make.repro        KERNEL                in     -      make repro KERNEL=@
make.lava-jobs    KERNEL                in     -      make lava-jobs KERNEL=@ LAVA_OUT=jobs
make.lava-jobs    LAVA_OUT              outdir -      make lava-jobs KERNEL=FX/bzImage LAVA_OUT=@
make.mutate       KSRC                  indir  -      make mutate KSRC=@ MUTATE_ARGS=--list
make.upstream     KSRC                  indir  -      make upstream KSRC=@
EOF
)

# ---- fixtures ----------------------------------------------------------------
# The valid arguments beside the one under test, and the victim a symlink
# points to.
printf 'victim\n' > "$fx/victim"
mkdir "$fx/victim.d" && printf 'victim\n' > "$fx/victim.d/file"
cp "$top/tests/fixtures/compare/base.jsonl" "$fx/good.jsonl"
printf 'TAP version 13\n1..1\nok 1 selftests: iopath: a_test\n' > "$fx/good.tap"
# a kernel by its boot header only: nothing boots it (all is refused first)
{ head -c 514 /dev/zero; printf 'HdrS'; } > "$fx/bzImage"
cp "$top/tests/fixtures/lava/swapon-6.12.log" "$fx/good.log"
mkdir -p "$fx/ksrc/fs/iomap" "$fx/mwork" "$fx/fstests/ltp"
# a kernel build tree and block counts for tbprof and coverage
mkdir "$fx/kobj"
printf 'ffffffff81000000 T f\n' | tee "$fx/System.map" > "$fx/kobj/System.map"
: > "$fx/kobj/vmlinux"
printf '# iopath-tbcount 1\n# windows 0\nffffffff81000000 ffffffff81000004 1 1 0\n# total-insns 1\n' > "$fx/good.tb"
printf 'ffffffff81000000 ffffffff81000004 a.c f\n' > "$fx/blocks.txt"
echo 'all:' > "$fx/ksrc/Makefile"
printf -- '--- a/Makefile\n+++ b/Makefile\n@@ -1 +1 @@\n-all:\n+all: # b\n' > "$fx/good.patch"
{ printf -- '# Function: f()\n# Bug: b\n# Tests: a_test\n'; cat "$fx/good.patch"; } > "$fx/mutant.patch"
sed 's/"value":\([0-9]*\)/"value":1\1/' "$fx/good.jsonl" > "$fx/new.jsonl"
# A run where no test passed or failed, after a pristine run where none
# passed: classify reads --err's last line for its detail (where a FIFO
# hung it). The campaign's plan and pristine state (lib/campaign.h), and
# a state of the format before it for iopath mutant convert.
printf 'TAP version 13\n1..0\n# IOPATH-VM-RESULT: status=fail passed=0 failed=0 known=0 skipped=0 programs=0 programs_failed=0 required_missing=0 stale_known=0\n' > "$fx/empty.tap"
mkdir "$fx/mplan" "$fx/oldstate"
cp "$fx/mutant.patch" "$fx/mplan/01-x.patch"
"$iop" mutant plan --mutants "$fx/mplan" --out "$fx/plan.json" &&
	"$iop" mutant pristine --plan "$fx/plan.json" --build-s 1 --out "$fx/pristine.json" -- "0:0:$fx/empty.tap" ||
	echo "Bail out! iopath mutant plan or pristine failed on the fixtures"
printf 'class=killed\nbuild_s=1\nrun_s=1\ndetail=d\nkillers=a.x.t\n' > "$fx/oldstate/01-x.result"
# what upstream.sh takes for a kernel tree before it looks at --out
mkdir -p "$fx/ktree/tools/testing/selftests"
mkdir -p "$fx/gtree/fs" "$fx/gout"
printf 'int f(int a)\n{\n\treturn a < 1;\n}\n' > "$fx/gtree/fs/small.c"
touch "$fx/ktree/MAINTAINERS" "$fx/ktree/tools/testing/selftests/Makefile"
mkdir -p "$fx/fstests/tests/generic"
touch "$fx/fstests/tests/generic/001"
printf '#!/bin/sh\nexit 1\n' > "$fx/fstests/check"
cp "$fx/fstests/check" "$fx/fstests/ltp/fsx"
chmod +x "$fx/fstests/check" "$fx/fstests/ltp/fsx"
# fixtures: what is beside them, and the victims' contents
fixtures() {
	(cd "$fx" && find . -printf '%p %y %s\n' | sort)
	cat "$fx/victim" "$fx/victim.d/file"
}

# The make targets: what `all` builds is there (make check built it), and
# a target whose package check would install something is skipped.
mk=(make -s -C "$top" BUILD="$build" -o all -o kselftest-install -o cli -o selftests)

# ---- one case ----------------------------------------------------------------
declare -A covered=()
before_leftovers=$(leftovers | sort)

# refused NAME ARG PATH CMD...: exit 2, one stderr line naming ARG or PATH,
# nothing made in the working directory or among the fixtures, the victims
# as they were. make's own "make: *** [...] Error 2" line is not counted.
refused() {
	local name=$1 arg=$2 path=$3 rc made fixtures
	shift 3
	fixtures=$(fixtures)
	local -a nopkg=()
	[ "$1" = "${mk[0]}" ] || nopkg=(IOPATH_DEPS_ROOT="$tmp/no-packages")
	timeout -s KILL 20 env -C "$work" TMPDIR="$work" "${nopkg[@]}" "$@" > "$tmp/out" 2> "$tmp/err.all" < /dev/null
	rc=$?
	grep -Ev '^make(\[[0-9]+\])?: \*\*\* ' "$tmp/err.all" > "$tmp/err"
	made=$(find "$work" -mindepth 1 -maxdepth 1 -printf '%f ')
	if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
	   { grep -qF -- "$arg" "$tmp/err" || grep -qF -- "$path" "$tmp/err"; } &&
	   [ -z "$made" ] && [ "$(fixtures)" = "$fixtures" ]; then
		ok "$name"
	else
		[ "$rc" = 137 ] && rc="137, killed after 20 s"
		not_ok "$name (exit $rc)" "$(head -c 600 "$tmp/err.all" | head -n 4)" "created: $made"
	fi
	rm -rf "${work:?}"/* "$work"/.[!.]* 2> /dev/null
}

# ---- the table, case by case ---------------------------------------------------
while read -r sub arg kind sfx words; do
	[ -n "$sub" ] || continue
	[ "$sfx" = - ] && sfx=""
	covered[${sub%%.*}]=1
	read -ra cmd <<< "${words//FX/$fx}"
	for i in "${!cmd[@]}"; do
		case ${cmd[i]} in
		iopath) cmd[i]=$iop ;;
		fstests-vm) cmd[i]=$top/contrib/fstests/vm.sh ;;
		upstream.sh) cmd[i]=$top/scripts/upstream.sh ;;
		BUILD) cmd[i]=$build ;;
		esac
	done
	case ${cmd[0]} in
	make)
		cmd=("${mk[@]}" "${cmd[@]:1}")
		groups=$("${mk[@]}" -n "${cmd[@]:${#mk[@]}}" 2> /dev/null |
			sed -n 's/^scripts\/deps.sh \([a-z ]*\).*/\1/p' | tr '\n' ' ')
		# shellcheck disable=SC2086 # a list of groups
		if ! "$top/scripts/deps.sh" --check $groups > /dev/null 2>&1; then
			skip "file_args.$sub.$arg" "make ${cmd[${#mk[@]}]} would install packages ($groups)"
			continue
		fi
		;;
	esac
	case $kind in
	in) cases="fifo directory dev_zero symlink_to_fifo missing" ;;
	kernel) cases="fifo directory dev_zero symlink_to_fifo" ;;
	out) cases="fifo directory symlink missing_parent control_char" ;;
	indir) cases="regular_file fifo" ;;
	outdir) cases="regular_file fifo symlink missing_parent control_char" ;;
	workdir) cases="regular_file fifo symlink" ;;
	dev) cases="fifo directory dev_zero" ;;
	none) cases="" ;;
	esac
	for c in $cases; do
		p=$fx/arg$sfx
		case $c in
		fifo) mkfifo "$p" ;;
		directory) mkdir "$p" ;;
		dev_zero) p=/dev/zero ;;
		symlink_to_fifo) mkfifo "$fx/fifo" && ln -s "$fx/fifo" "$p" ;;
		symlink) ln -s "$fx/victim" "$p" ;;
		missing_parent) p=$fx/nonexistent/arg$sfx ;;
		missing) p=$fx/missing$sfx ;;
		control_char) p=$fx/$'new\nline'$sfx ;;
		regular_file) cp "$fx/victim" "$p" ;;
		esac
		refused "file_args.$sub.${arg#--}.${c}_refused" "$arg" "$p" "${cmd[@]//@/$p}"
		rm -rf "$fx/arg$sfx" "$fx/fifo"
	done
done <<< "$table"

# No scratch filesystem, loop device or trace instance made and left.
after_leftovers=$(leftovers | sort)
[ "$before_leftovers" = "$after_leftovers" ]
check $? file_args.no_scratch_leftovers

# Every subcommand `iopath help` lists has rows above.
missing=""
for c in $("$iop" help | awk 'NR > 2 && NF { print $1 }'); do
	[ -n "${covered[$c]:-}" ] || missing="$missing $c"
done
if [ -z "$missing" ] && [ ${#covered[@]} -gt 5 ]; then
	ok file_args.every_subcommand_covered
else
	not_ok file_args.every_subcommand_covered "no file-argument rows for:$missing"
fi

# Every option a --help shows with a file or directory value has a row:
# for SUB, a row of SUB or SUB.WHAT naming the option. The subcommands'
# own subcommands (lava jobs, mutant classify, ...) have their --help.
# file_options HELP-TEXT: those options, one a line.
file_options() {
	grep -oE -- '--[a-z][a-z0-9-]*[ =](FILE|F|DIR|LOG)\b' <<< "$1" | sed 's/[ =].*//' | sort -u
}
# uncovered SUB HELP-TEXT: "SUB --option" for each without a row.
uncovered() {
	local o
	for o in $(file_options "$2"); do
		awk -v sub_="$1" -v o="$o" '($1 == sub_ || index($1, sub_ ".") == 1) && $2 == o { f = 1 }
			END { exit !f }' <<< "$table" || echo "$1 $o"
	done
}
declare -A subsubs=([lava]="jobs mutate bench ab validate run verdict" [mutant]="classify matrix generate"
		    [scratch]="create check" [records]="check")
missing=""
for c in $("$iop" help | awk 'NR > 2 && NF { print $1 }'); do
	missing+=$(uncovered "$c" "$(IOPATH_DEPS_ROOT=$tmp/no-packages timeout 20 "$iop" "$c" --help 2>&1)")
	for s in ${subsubs[$c]:-}; do
		missing+=$(uncovered "$c" "$(timeout 20 "$iop" "$c" "$s" --help 2>&1)")
	done
done
# ... and an option planted in a help text would be found.
planted=$(uncovered bench "  --planted FILE  a file no row tries")
if [ -z "$missing" ] && [ "$planted" = "bench --planted" ]; then
	ok file_args.every_file_option_covered
else
	not_ok file_args.every_file_option_covered "no rows for: ${missing:-none}" \
		"a planted --planted FILE found: ${planted:-no}"
fi

# The scripts' check of output names (has_control of scripts/lib/common.bash)
# says what lib/outfile.c's does (iop_out_name_ok(), asked through iopath
# outdir --check): each byte 0x01-0xff in a name, each C1 character in
# UTF-8 and its neighbours, a bidirectional control (U+202E).
# shellcheck source=scripts/lib/common.bash
(prog=file_args; IOPATH_BIN=$iop; . "$top/scripts/lib/common.bash"
	LC_ALL=C
	bad=""
	for i in $(seq 1 255) c2:7f c2:80 c2:9f c2:a0 e2:80:ae; do
		if [[ $i == *:* ]]; then
			printf -v b "\\x${i//:/\\x}"
		else
			printf -v b "\\x$(printf %02x "$i")"
		fi
		name="$tmp/a${b}b"
		if "$iop" outdir --check -- "$name" 2>&1 | grep -q 'a control character in the name'; then
			c=1
		else
			c=0
		fi
		if has_control "$name"; then h=1; else h=0; fi
		[ "$c" = "$h" ] || bad="$bad $i"
	done
	[ -z "$bad" ] || { echo "# has_control and iop_out_name_ok disagree on:$bad"; exit 1; }
)
check $? file_args.scripts_control_check_is_the_c_one

finish_tap
