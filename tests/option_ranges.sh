#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every option that takes a count, a percentage or a date, of every
# subcommand (C or script) and of the scripts run on their own, refuses a
# value outside its range with one line and exit 2, and makes nothing: a
# value one below and one above the range, a sign, hexadecimal, an
# exponent, NaN, an infinity, a date that does not exist. The options are
# found in each subcommand's --help (a value written N, S, P, PCT, A, MB,
# T, TIME or MINUTES): one the table below lacks fails
# option_ranges.every_numeric_option_listed. And no script checks such a
# value with a pattern of its own (they ask iopath value, lib/number.c and
# lib/date.c): a `=~` against digits in scripts/ or contrib/ outside the
# list of what is no option's value fails option_ranges.no_pattern_in_scripts.
#
# Catches: ab --target-ci 150 taken by a pattern, two boot pairs run
# before compare refused it; export --start-time 9999-99-99T99:99:99Z
# written into KCIDB; vm --rtc-base 1900-01-01T00:00:00 handed to QEMU.
#
# usage: tests/option_ranges.sh BUILD_DIR   (TAP on stdout)
set -u

build=$(cd "${1:?usage: tests/option_ranges.sh BUILD_DIR}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
iop=$build/iopath
. "$top/tests/lib/tap.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-option-ranges.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
work=$tmp/work
mkdir "$work"
fix=$top/tests/fixtures/compare
head -c 4096 /dev/zero > "$tmp/bzImage"
printf 'HdrS' | dd of="$tmp/bzImage" bs=1 seek=514 conv=notrunc 2> /dev/null
# a kernel build tree and block counts for iopath coverage
mkdir "$tmp/kobj" && : > "$tmp/kobj/vmlinux" && : > "$tmp/kobj/System.map"
printf '# iopath-tbcount 1\n# windows 0\n# total-insns 0\n' > "$tmp/good.tb"
printf 'TAP version 13\n1..1\nok 1 x\n' > "$tmp/one.tap"
# a kernel tree of one file for iopath mutant generate
mkdir -p "$tmp/ksrc/fs" && echo 'int f(int a) { return a < 2; }' > "$tmp/ksrc/fs/a.c"
ncpu=$(nproc)
export IOPATH_BIN=$iop

# CMD OPTION | COMMAND ('@' the value; iopath the binary under test) |
# bad values. "-" for the values: the option takes no number.
table=$(cat << EOF
ab --boots|iopath ab --build $build --a $tmp/bzImage --b $tmp/bzImage --out $work/o --boots @ -- read_vs_readv|0 100 -1 +3 1e1 0x10
ab --timeout|iopath ab --build $build --a $tmp/bzImage --b $tmp/bzImage --out $work/o --timeout @ -- read_vs_readv|0 100000 -5 1.5
ab --jobs|iopath ab --build $build --a $tmp/bzImage --b $tmp/bzImage --out $work/o --jobs @ -- read_vs_readv|0 $((ncpu + 1)) -1
ab --target-ci|iopath ab --build $build --a $tmp/bzImage --b $tmp/bzImage --out $work/o --target-ci @ -- read_vs_readv|0 150 100.5 -1 nan inf 1e999 0x1
ab --accel||-
coverage --timeout|iopath coverage --build $build --obj $tmp/kobj --counts $tmp/good.tb --out $work/o --timeout @|0 1000000 -5 1.5
vm --timeout|iopath vm --kernel $tmp/bzImage --build $build --timeout @|0 1000000 -1
vm --boot-timeout|iopath vm --kernel $tmp/bzImage --build $build --boot-timeout @|0 1000000
vm --idle-timeout|iopath vm --kernel $tmp/bzImage --build $build --idle-timeout @|0 1000000
vm --test-timeout|iopath vm --kernel $tmp/bzImage --build $build --test-timeout @|0 1000000
vm --mem|iopath vm --kernel $tmp/bzImage --build $build --mem @|99 1048577 -2048
vm --smp|iopath vm --kernel $tmp/bzImage --build $build --smp @|0 100
vm --rtc-base|iopath vm --kernel $tmp/bzImage --build $build --icount --rtc-base @|9999-99-99T99:99:99 1900-01-01T00:00:00 1969-12-31T23:59:59 2100-01-01T00:00:00 2024-02-30T12:00:00 2023-02-29T12:00:00 2024-13-40T25:61:61 2024-04-31T00:00:00 2024-01-01T24:00:00 2024-01-01T00:60:00 2024-01-01T00:00:60
vm --accel||-
vm --env||-
mutate --pristine-runs|iopath mutate --list --pristine-runs @|0 10000
mutate --crash-runs|iopath mutate --list --crash-runs @|0 10000
mutate --timeout|iopath mutate --list --timeout @|0 10000
mutate --jobs|iopath mutate --list --jobs @|0 3
mutate-tool --timeout|$top/scripts/mutate-tool.sh --list --timeout @|0 100000
fstests-vm --timeout|$top/contrib/fstests/vm.sh --timeout @ generic/001|0 1000000
fstests-vm --idle-timeout|$top/contrib/fstests/vm.sh --idle-timeout @ generic/001|0 1000000
compare --alpha|iopath compare $fix/base.jsonl $fix/base.jsonl --alpha @|0 0.5 1 -0.1 nan 1e999
compare --target-ci|iopath compare --format ci --target-ci @ $fix/base.jsonl $fix/base.jsonl|0 150 -1 nan
export --start-time|iopath export --kcidb -o $work/k.json --start-time @ $fix/base.jsonl|9999-99-99T99:99:99Z 2024-02-30T00:00:00Z 2024-13-40T25:61:61Z 1969-12-31T23:59:59Z 2100-01-01T00:00:00Z 2024-01-01T00:00:00
bench --reps|iopath bench --dry-run --fs none --reps @ read_vs_readv|0 1001 -1
bench --runtime|iopath bench --dry-run --fs none --runtime @ read_vs_readv|0 86401 nan
bench --target-ci|iopath bench --dry-run --fs none --target-ci @ read_vs_readv|150 -1 nan
bench --pairs|iopath bench --calibrate x --pairs @|1 1001
bench --side-time|iopath bench --calibrate x --side-time @|0 86401
lava --boots|iopath lava bench --kernel $tmp/bzImage --out $work/j --boots @|0 100
lava --test-timeout|iopath lava jobs --kernel $tmp/bzImage --out $work/j --test-timeout @|0 10000
lava --job-timeout|iopath lava jobs --kernel $tmp/bzImage --out $work/j --job-timeout @|0 10000
lava --boot-timeout|iopath lava jobs --kernel $tmp/bzImage --out $work/j --boot-timeout @|0 10000
verdict --start|iopath verdict --program p --exit-status 0 --start @ --end 5 /dev/null /dev/null /dev/null $tmp/one.tap|-1 nan inf 1e999 1e10 0x10 6
verdict --end|iopath verdict --program p --exit-status 0 --start 5 --end @ /dev/null /dev/null /dev/null $tmp/one.tap|-1 nan 1e999 4
verdict --exit-status|iopath verdict --program p --exit-status @ /dev/null /dev/null /dev/null $tmp/one.tap|256 -1 1.5
mutant --seed|iopath mutant generate --ksrc $tmp/ksrc --files fs/a.c --out $work/g --seed @|-1 1e3 0x10 9223372036854775808 nan
mutant --count|iopath mutant generate --ksrc $tmp/ksrc --files fs/a.c --out $work/g --seed 1 --count @|0 -3 10001 1.5
mutant --build-s|iopath mutant record --name 01-x --class no-build --out $work/r.json --build-s @|-1 1.5 4294967296 0x10 nan
scratch --size|iopath scratch create --fs ext4 --size @ -- true|0 -1 99999999999t
EOF
)

# ---- each value out of range: one line, exit 2, nothing made ---------------

declare -A listed=()
while IFS='|' read -r opt cmd values; do
	listed[$opt]=1
	[ "$values" = - ] && continue
	for v in $values; do
		name=option_ranges.${opt// /.}.refuses.$v
		words=()
		for w in $cmd; do
			case $w in
			iopath) words+=("$iop") ;;
			@) words+=("$v") ;;
			*) words+=("$w") ;;
			esac
		done
		timeout -s KILL 30 env -C "$work" IOPATH_AB_VM=/bin/false IOPATH_AB_BUILDER=/bin/false \
			"${words[@]}" > "$tmp/out" 2> "$tmp/err" < /dev/null
		rc=$?
		made=$(ls -A "$work")
		if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && [ -z "$made" ]; then
			ok "$name"
		else
			not_ok "$name (exit $rc)" "$(head -n 2 "$tmp/err")" "made: $made"
		fi
		rm -rf "${work:?}"/* "$work"/.[!.]* 2> /dev/null
	done
done <<< "$table"

# ---- the ends of each range are taken -----------------------------------------

# What the scripts ask (iopath value): a range refused at an end it should
# take would show only as a run that never starts.
for a in "count:1:99 1" "count:1:99 99" "percent 100" "percent 0.000001" "percent 5" \
	"date 1970-01-01T00:00:00" "date 2099-12-31T23:59:59" "date 2024-02-29T23:59:59" \
	"date 2000-02-29T00:00:00" "utc-time 2024-02-29T12:00:00.123Z" "utc-time 1970-01-01T00:00:00Z"; do
	read -r kind v <<< "$a"
	"$iop" value --x "$kind" "$v" > "$tmp/out" 2> "$tmp/err"
	check_cmd "option_ranges.value.takes.$kind.$v" test $? = 0 -a ! -s "$tmp/err"
done

# ---- every option of a number or a date is in the table ------------------------

# The options whose value --help writes as a number, a percentage or a date.
found=$(
	for c in $("$iop" help | awk 'NR > 2 && NF { print $1 }'); do
		"$iop" "$c" --help 2> /dev/null | grep -oE -- '--[a-z][a-z/-]*[ =](N|S|P|PCT|A|MB|T|TIME|MINUTES)\b' |
			sed "s|^|$c |"
	done
	"$top/scripts/mutate-tool.sh" --help | grep -oE -- '--[a-z-]+ (N|S)\b' | sed 's/^/mutate-tool /'
	sed -n 's/^#.*usage: .*//p; /^# *\[/p' "$top/contrib/fstests/vm.sh" |
		grep -oE -- '--[a-z-]+ (N|S)\b' | sed 's/^/fstests-vm /'
)
missing=""
while read -r c o _; do
	[ -n "$c" ] || continue
	# "--job-timeout/--boot-timeout/--test-timeout MINUTES": each of them
	for one in ${o//\// }; do
		[ -n "${listed[$c $one]:-}" ] || missing="$missing $c $one,"
	done
done <<< "$found"
[ -z "$missing" ] && [ "$(wc -l <<< "$found")" -ge 20 ]
check $? "option_ranges.every_numeric_option_listed${missing:+ (not listed:${missing%,})}"

# ---- no script checks a count, a percentage or a date by a pattern -------------

# What is no option's value: a test's name (generic/789), the digits of a
# file name, a line of compare's output, a mutant's program names, a
# package name, the environment's names, a pid read back from a run's own
# owner file (compared with its start time after).
allowed='pid =~ \^\[1-9\]\[0-9\]\*\$|t =~ \^\[a-z0-9\]\+/\[0-9\]\+\$|f##\*/\} =~ \^\[0-9\]\+\$|IOPATH-CI|_test|\[a-z0-9\]\[a-z0-9\.\+-\]|\[A-Za-z_\]\[A-Za-z0-9_\]\*=|seed =~ \^\[0-9a-f\]|=~ \$filter'
pat=$(cd "$top" && grep -nE '=~ .*(\[0-9\]|\\d|\[1-9\])' scripts/*.sh scripts/lib/*.bash scripts/vm/*.bash contrib/*/*.sh |
	grep -vE "$allowed")
[ -z "$pat" ]
check $? "option_ranges.no_pattern_in_scripts${pat:+ ($(head -n 1 <<< "$pat"))}"

finish_tap
