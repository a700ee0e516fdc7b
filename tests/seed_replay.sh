#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The random modes of the content model, its write methods and the crash
# oracle print their seed with the mix of operations they ran (and the
# crash oracle its crash points), and IOPATH_SEED=N replays a run: two
# runs of a seed print the same mix and crash points. For the crash
# oracle (a second a run) also: another seed prints other ones, and
# IOPATH_SEED=0 (a seed from the clock) prints the seed that replays it
# (the seed's parser and the clock seed are the same code in all three).
# On ext4, the host's kernel.
#
# usage: tests/seed_replay.sh BUILD_DIR
set -u

build=${1:?usage: tests/seed_replay.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
root_test "scratch filesystems" seed-replay "$build/selftests/crash_oracle_test"

# run PROG TEST SEED OUT: the test alone with IOPATH_SEED=SEED; OUT gets
# its "seed N: ..." lines without the source line numbers.
run() {
	IOPATH_SEED=$3 "$build/selftests/$1" -r "$2" > "$4.log" 2>&1
	echo "$?" > "$4.rc"
	sed -n 's/^# [a-z_]*\.c:[0-9]*:[a-z_]*:\(seed [0-9]*[:,] .*\)$/\1/p' "$4.log" > "$4"
}

# What each random mode must print besides the replay line.
declare -A want=(
	[content_model]='^seed 7: 10000 operations: read [0-9]+, pwrite [0-9]+, .*drop [0-9]+$'
	[content_write]='^seed 7: operations: write [0-9]+, .*drop [0-9]+$'
	[crash_oracle]='^seed 7: [0-9]+ crashes, after operations [0-9 ]+$'
)

for t in content_model_test:content_model.ext4.seeded_random_operations_keep_every_read_equal_to_the_model \
	 content_write_test:content_write.ext4.seeded_random_writes_by_every_method_keep_the_model \
	 crash_oracle_test:crash_oracle.ext4.seeded_crash_points_keep_every_synced_byte; do
	prog=${t%%:*}
	test=${t#*:}
	area=${prog%_test}
	run "$prog" "$test" 7 "$tmp/$area.a"
	run "$prog" "$test" 7 "$tmp/$area.b"
	if [ "$area" = crash_oracle ]; then
		run "$prog" "$test" 8 "$tmp/$area.c"
		run "$prog" "$test" 0 "$tmp/$area.d"
	fi
	if grep -qvx 0 "$tmp/$area".?.rc; then
		not_ok "seed_replay.$area.runs_pass" "exit $(cat "$tmp/$area".?.rc | tr '\n' ' ')" \
			"$(grep -m3 -E 'Expected|not ok' "$tmp/$area".?.log)"
		continue
	fi
	ok "seed_replay.$area.runs_pass"
	if grep -qx 'seed 7: IOPATH_SEED=7 replays this run' "$tmp/$area.a" &&
	   grep -qE "${want[$area]}" "$tmp/$area.a"; then
		ok "seed_replay.$area.mix_printed_with_the_seed"
	else
		not_ok "seed_replay.$area.mix_printed_with_the_seed" "$(head -n 5 "$tmp/$area.a")"
	fi
	if cmp -s "$tmp/$area.a" "$tmp/$area.b"; then
		ok "seed_replay.$area.same_seed_same_mix"
	else
		not_ok "seed_replay.$area.same_seed_same_mix" "$(diff "$tmp/$area.a" "$tmp/$area.b" | head -n 6)"
	fi
	[ "$area" = crash_oracle ] || continue
	if ! cmp -s <(sed 's/^seed 7/seed N/' "$tmp/$area.a") <(sed 's/^seed 8/seed N/' "$tmp/$area.c"); then
		ok "seed_replay.$area.other_seed_other_crash_points"
	else
		not_ok "seed_replay.$area.other_seed_other_crash_points" "seeds 7 and 8 printed the same"
	fi
	# IOPATH_SEED=0: the seed printed replays the run.
	s=$(sed -n 's/^seed \([0-9]*\): IOPATH_SEED=[0-9]* replays this run$/\1/p' "$tmp/$area.d")
	if [ -n "$s" ] && [ "$s" != 0 ]; then
		run "$prog" "$test" "$s" "$tmp/$area.e"
		if cmp -s "$tmp/$area.d" "$tmp/$area.e"; then
			ok "seed_replay.$area.clock_seed_printed_replays"
		else
			not_ok "seed_replay.$area.clock_seed_printed_replays" \
				"$(diff "$tmp/$area.d" "$tmp/$area.e" | head -n 6)"
		fi
	else
		not_ok "seed_replay.$area.clock_seed_printed_replays" "no seed printed: $(head -n 2 "$tmp/$area.d")"
	fi
done

finish_tap
