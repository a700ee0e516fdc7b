#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Smoke tests of `iopath bench`: each benchmark runs briefly (1 repetition
# of 0.2 s in samples of 50 ms) and its records must be well formed: schema 1, the benchmark's
# name, every declared metric with a unit and non-empty samples, params,
# env and run facts present. Bad parameter values must give one line on
# stderr naming the parameter and exit 2; every profile must parse; an
# interrupted run must leave no mount or zram device behind; three benches
# writing one --out file at once must not lose records silently (each one's
# first write used to replace the others' file, and all three exited 0).
#
# usage: tests/bench_smoke.sh BUILD_DIR   (prints TAP)
set -u

build=${1:?usage: bench_smoke.sh BUILD_DIR}
iopath=$build/iopath
src=$(cd "$(dirname "$0")/.." && pwd)
export IOPATH_SRC="$src"
tmp=$(mktemp -d /tmp/iopath-bench-smoke.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

. "$src/tests/lib/tap.sh"
diag() { sed 's/^/# /' "$@"; }

have_jq=1
command -v jq >/dev/null 2>&1 || have_jq=0
root=0
[ "$(id -u)" = 0 ] && root=1

if [ ! -x "$iopath" ]; then
	not_ok "bench_smoke.iopath_built # $iopath missing"
	finish_tap
fi

# A record file is valid if every line is a schema-1 record of @bench with
# the expected metrics, each with a unit and samples.
validate() {	# file bench metric...
	file=$1
	bench=$2
	shift 2
	want=$(printf '%s\n' "$@" | jq -R . | jq -sc .)
	jq -e --arg bench "$bench" --argjson want "$want" '
		.schema == 1 and .bench == $bench and (.rep | type) == "number"
		and (.params | type) == "object" and (.env | type) == "object"
		and (.env | length) > 0 and (.run | type) == "object"
		and (.run.placement | length) >= 1
		and (.status | type) == "string"
		and ([.metrics[] | select((.unit | type) == "string" and (.unit | length) > 0
			and (.samples | length) > 0 and (.samples | all(type == "number")))
			| .name] as $have | $want - $have | length == 0)
	' "$file" >/dev/null 2>"$tmp/jq.err" && [ -s "$file" ]
}

smoke() {	# name fs[.variant] args... -- metrics...
	name=$1
	fs=${2%%.*}
	tag=$2
	shift 2
	args=""
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		args="$args $1"
		shift
	done
	shift
	out=$tmp/$name.$tag.jsonl
	fsopt=""
	[ "$fs" != none ] && fsopt="--fs $fs"
	# shellcheck disable=SC2086
	if ! "$iopath" bench --quiet --json --out - $fsopt $name reps=1 runtime=0.2 interval_ms=50 warmup=0 $args \
		>"$out" 2>"$tmp/err"; then
		not_ok "bench_smoke.$name.$tag.runs"
		diag "$tmp/err"
		return
	fi
	if [ ! -s "$out" ]; then
		not_ok "bench_smoke.$name.$tag.runs # no record"
		diag "$tmp/err"
		return
	fi
	ok "bench_smoke.$name.$tag.runs"
	if [ $have_jq = 0 ]; then
		skip "bench_smoke.$name.$tag.record_valid" "jq not installed (scripts/deps.sh check)"
	elif validate "$out" "$name" "$@"; then
		ok "bench_smoke.$name.$tag.record_valid"
	else
		not_ok "bench_smoke.$name.$tag.record_valid"
		diag "$tmp/jq.err"
		head -c 2000 "$out" | diag
	fi
}

# A bad value: exit 2, exactly one line on stderr, naming the parameter
# and what it allows, nothing on stdout.
bad() {	# test-name expect-in-message args...
	tname=$1
	expect=$2
	shift 2
	"$iopath" bench --out - "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ $rc = 2 ] && [ "$lines" = 1 ] && grep -q -- "$expect" "$tmp/err" && [ ! -s "$tmp/out" ]; then
		ok "bench_smoke.bad_param.$tname"
	else
		not_ok "bench_smoke.bad_param.$tname # rc=$rc lines=$lines"
		diag "$tmp/err"
	fi
}

if "$iopath" bench --list >"$tmp/list" 2>&1 && grep -q '^uring_randread ' "$tmp/list" &&
   grep -q '^read_vs_readv ' "$tmp/list" && grep -q '^falloc_write ' "$tmp/list"; then
	ok "bench_smoke.list_has_all_benchmarks"
else
	not_ok "bench_smoke.list_has_all_benchmarks"
	diag "$tmp/list"
fi

smoke read_vs_readv none source=zero -- readv_read_ratio read_ns readv_ns preadv2_ns uring_ns \
	harness_overhead_pct
smoke read_vs_readv none.readv_only calls=readv bare=0 -- readv_ns readv_ns_floor cpu_ns_floor

# calls=readv runs one phase: its main metric, by default, is the first
# declared one it reports, and no metric of a phase it did not run is in
# the record (a verdict on a metric never measured would be empty).
out=$tmp/read_vs_readv.none.readv_only.jsonl
if [ $have_jq = 0 ]; then
	skip "bench_smoke.read_vs_readv.readv_only_reports_what_it_ran" "jq not installed (scripts/deps.sh check)"
elif jq -e '.run.main_metric == "readv_ns" and .params.calls == "readv" and
	    ([.metrics[].name] - ["readv_ns", "readv_ns_floor", "cpu_usr_ns_per_op",
	      "cpu_sys_ns_per_op", "cpu_usr_share", "cpu_ns_per_op", "cpu_ns_floor"] == [])' \
	"$out" >/dev/null 2>&1; then
	ok "bench_smoke.read_vs_readv.readv_only_reports_what_it_ran"
else
	not_ok "bench_smoke.read_vs_readv.readv_only_reports_what_it_ran"
	jq -c '[.run.main_metric, [.metrics[].name]]' "$out" 2>&1 | diag
fi

# A repetition's value where the clock counts instructions (iopath ab
# under icount) is the whole repetition's: its time over its operations,
# "agg" "time_over_ops", every operation in (a summary of slices counted
# in units of completion is quantized, and one that leaves slices out is
# blind to a change: issue 50). In wall time the slices' summary stays,
# and a slice the sampler counted says what one unit of completion is of
# it ("quantum"), below which no comparison resolves.
whole_check() {	# name file jq-filter
	if [ $have_jq = 0 ]; then
		skip "bench_smoke.$1" "jq not installed (scripts/deps.sh check)"
	elif jq -e "$3" "$2" > /dev/null 2>&1; then
		ok "bench_smoke.$1"
	else
		not_ok "bench_smoke.$1"
		jq -c '[.metrics[] | {name, agg, value, quantum, min, max}]' "$2" 2>&1 | diag
	fi
}
metric='def m($n): .metrics[] | select(.name == $n);'
whole_check read_vs_readv.wall_slices_say_their_quantum "$out" "$metric
	(m(\"cpu_ns_per_op\") | .agg == \"median\" and .quantum > 0 and .quantum < 0.01)
	and (m(\"readv_ns\") | .agg == \"median\")"
for calls in read_readv readv; do
	IOPATH_CLOCK_DOMAIN=instructions "$iopath" bench --quiet --json --out - read_vs_readv \
		calls=$calls bare=0 reps=1 runtime=0.2 interval_ms=50 warmup=0 > "$tmp/instr.$calls.jsonl" 2> "$tmp/err" ||
		diag "$tmp/err"
done
whole_check read_vs_readv.instructions_phases_whole_repetition "$tmp/instr.read_readv.jsonl" "$metric
	.env.clock.domain == \"instructions\"
	and ([m(\"read_ns\"), m(\"readv_ns\")] | length == 2 and all(.agg == \"time_over_ops\"
		and .quantum == null and .value >= .median / 2 and .value <= .median * 2))"
whole_check read_vs_readv.instructions_one_phase_whole_repetition "$tmp/instr.readv.jsonl" "$metric
	[m(\"readv_ns\"), m(\"cpu_ns_per_op\")] | length == 2 and all(.agg == \"time_over_ops\"
		and .quantum == null and .value > 0)"

if [ $root = 1 ]; then
	smoke uring_randread xfs size=64m lat=1 -- iops cpu_usr_ns_per_op cpu_sys_ns_per_op \
		lat_p50_ns lat_p99_ns
	# What a boot can differ in, recorded with the run: the file's extents
	# (every lookup's cost) and how much of the buffers got huge pages.
	out=$tmp/uring_randread.xfs.jsonl
	if [ $have_jq = 0 ]; then
		skip "bench_smoke.uring_randread.layout_and_buffer_pages_recorded" \
			"jq not installed (scripts/deps.sh check)"
	elif jq -e '.run.facts.file_extents >= 1 and .run.facts.buffer_thp_kb >= 0 and
		    (.run.facts.file_layout | test("^0\\+[0-9]+@[0-9]+")) and
		    .run.facts.ext4_es_reloaded == null' "$out" > /dev/null 2>&1; then
		ok "bench_smoke.uring_randread.layout_and_buffer_pages_recorded"
	else
		not_ok "bench_smoke.uring_randread.layout_and_buffer_pages_recorded"
		jq -c '.run.facts' "$out" 2>&1 | diag
	fi
	# Where the file's blocks land and the shape of ext4's extent status
	# tree decide what each read's block lookup costs; written by delayed
	# allocation and left as writeback inserted them, both differed from
	# boot to boot under icount, and so did the count (docs/ab.md, "Modes").
	smoke uring_randread ext4 size=16m -- iops
	out=$tmp/uring_randread.ext4.jsonl
	# reads counted as reaped, 32 at a time: a slice's iops moves in steps
	# of 32 reads, which the record says (over all the slices, the first
	# and the drain included, so against the kept slices' mean: roughly)
	whole_check uring_randread.wall_slices_say_their_quantum "$out" "$metric
		m(\"iops\") | (.quantum * .mean * 0.05 / 32) as \$r
		| .agg == \"hmean\" and .quantum > 0 and \$r > 1 / 3 and \$r < 3"
	IOPATH_CLOCK_DOMAIN=instructions "$iopath" bench --quiet --json --out - --fs ext4 uring_randread \
		size=16m reps=1 runtime=0.2 interval_ms=50 warmup=0 > "$tmp/instr.uring.jsonl" 2> "$tmp/err" ||
		diag "$tmp/err"
	whole_check uring_randread.instructions_whole_repetition "$tmp/instr.uring.jsonl" "$metric
		m(\"iops\") | .agg == \"ops_over_time\" and .quantum == null and .value > 0"
	if [ $have_jq = 0 ]; then
		skip "bench_smoke.uring_randread.ext4_file_preallocated_and_extent_cache_reloaded" \
			"jq not installed (scripts/deps.sh check)"
	elif jq -e '.run.facts.file_preallocated == true and
		    .run.facts.ext4_es_reloaded == true' "$out" > /dev/null 2>&1; then
		ok "bench_smoke.uring_randread.ext4_file_preallocated_and_extent_cache_reloaded"
	else
		not_ok "bench_smoke.uring_randread.ext4_file_preallocated_and_extent_cache_reloaded"
		jq -c '.run.facts' "$out" 2>&1 | diag
	fi
	# ext4's lazyinit thread loads every group's block bitmap at a random
	# time in the 5 s after mount, and mballoc put the file where that
	# said (issue 50, docs/ab.md): a benchmark's ext4 is mounted without
	# the prefetch, the record says so, and XFS gets no such option.
	if [ $have_jq = 0 ]; then
		skip "bench_smoke.uring_randread.ext4_mounted_without_bitmap_prefetch" \
			"jq not installed (scripts/deps.sh check)"
	elif jq -e '.env.fs.mount_opts == "no_prefetch_block_bitmaps"' "$out" > /dev/null 2>&1 &&
	     jq -e '.env.fs.type == "xfs" and .env.fs.mount_opts == ""' \
		"$tmp/uring_randread.xfs.jsonl" > /dev/null 2>&1; then
		ok "bench_smoke.uring_randread.ext4_mounted_without_bitmap_prefetch"
	else
		not_ok "bench_smoke.uring_randread.ext4_mounted_without_bitmap_prefetch"
		jq -c '.env.fs' "$out" "$tmp/uring_randread.xfs.jsonl" 2>&1 | diag
	fi
	smoke falloc_write ext4 size=64m -- ops lat_p50_ns lat_p99_ns cpu_sys_ns_per_op
	smoke read_vs_readv ext4 source=file -- readv_read_ratio read_ns readv_ns
else
	for t in uring_randread.xfs uring_randread.ext4 falloc_write.ext4 read_vs_readv.ext4; do
		skip "bench_smoke.$t.runs" "scratch filesystems need root"
		skip "bench_smoke.$t.record_valid" "scratch filesystems need root"
	done
	skip "bench_smoke.uring_randread.ext4_file_preallocated_and_extent_cache_reloaded" \
		"scratch filesystems need root"
	skip "bench_smoke.uring_randread.ext4_mounted_without_bitmap_prefetch" \
		"scratch filesystems need root"
fi

bad depth_zero "depth=0: must be an integer in 1..4096" uring_randread depth=0
bad bs_garbage "bs=4q: must be a size in" uring_randread bs=4q
bad mode_unknown "mode=write: must be one of alloc|keep_size|punch_hole" falloc_write mode=write
bad cpus_offline "cpus=4095: must be a list of online CPUs" read_vs_readv cpus=4095
bad no_such_param "nosuch: no such parameter of read_vs_readv" read_vs_readv nosuch=1
bad not_key_value "expected name=value" read_vs_readv source
bad reps_zero "reps=0: must be an integer in 1..1000" --reps 0 falloc_write
bad main_metric_not_reported "main_metric=read_ns: read_vs_readv does not report it" \
	read_vs_readv calls=readv bare=0 main_metric=read_ns
bad readv_only_has_no_bare_loops "calls=readv runs no bare loops: give bare=0" \
	read_vs_readv calls=readv
bad size_not_multiple_of_bs "size=8k is not a multiple of bs=3000" read_vs_readv source=file bs=3000 size=8k

for p in "$src"/configs/bench/*.conf; do
	name=$(basename "$p" .conf)
	if "$iopath" bench --dry-run --profile "$name" >"$tmp/dry" 2>"$tmp/err" && [ -s "$tmp/dry" ]; then
		ok "bench_smoke.profile_parses.$name"
	else
		not_ok "bench_smoke.profile_parses.$name"
		diag "$tmp/err"
	fi
done

# poll=1 on zram (no poll queues): a one-line reason naming the device and
# exit 4 (skip), never a hang.
if [ $root = 1 ]; then
	timeout -s KILL 60 "$iopath" bench --quiet --out - --fs ext4 uring_randread size=16m poll=1 \
		reps=1 runtime=1 warmup=0 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 4 ] && grep -q 'does not support polled I/O' "$tmp/err" && grep -q '/dev/' "$tmp/err"; then
		ok "bench_smoke.uring_randread.poll_without_poll_queues_names_device"
	elif [ $rc = 0 ]; then
		skip "bench_smoke.uring_randread.poll_without_poll_queues_names_device" \
			"the scratch device polls"
	else
		not_ok "bench_smoke.uring_randread.poll_without_poll_queues_names_device # rc=$rc"
		diag "$tmp/err"
	fi
else
	skip "bench_smoke.uring_randread.poll_without_poll_queues_names_device" "needs root"
fi

# stable_writes=0 reaches the device before mkfs and the record says so:
# zram sets stable writes, and on such a device XFS bounces every direct
# read through a kernel buffer and completes it in a worker (docs/ab.md).
if [ $root = 1 ] && [ -e /sys/class/zram-control/hot_add ]; then
	timeout -s KILL 120 "$iopath" bench --json --out - --backing zram --fs ext4 uring_randread \
		size=16m reps=1 runtime=0.2 warmup=0 stable_writes=device,0 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	got=$(jq -r '"\(.params.stable_writes)=\(.env.device.queue.stable_writes)"' "$tmp/out" 2>/dev/null |
		sort | tr '\n' ' ')
	if [ $rc = 0 ] && [ "$got" = "0=0 device=1 " ]; then
		ok "bench_smoke.uring_randread.stable_writes_set_before_mkfs_and_recorded"
	else
		not_ok "bench_smoke.uring_randread.stable_writes_set_before_mkfs_and_recorded # rc=$rc, got '$got'"
		diag "$tmp/err"
	fi
else
	skip "bench_smoke.uring_randread.stable_writes_set_before_mkfs_and_recorded" "needs root and zram"
fi

# An error inside the timed loop ends the run with the call and the errno
# (a 64 MiB filesystem fills up after ~14000 fallocate calls at EOF).
if [ $root = 1 ]; then
	IOPATH_SCRATCH_SIZE=64m timeout -s KILL 60 "$iopath" bench --quiet --out - --fs ext4 \
		falloc_write prealloc=none size=1g reps=1 runtime=5 warmup=0 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 1 ] && grep -q 'FAILED: falloc_write: fallocate(.*mode 0.*): No space left on device' "$tmp/err"; then
		ok "bench_smoke.falloc_write.enospc_in_timed_loop_aborts_with_errno"
	else
		not_ok "bench_smoke.falloc_write.enospc_in_timed_loop_aborts_with_errno # rc=$rc"
		diag "$tmp/err"
	fi
else
	skip "bench_smoke.falloc_write.enospc_in_timed_loop_aborts_with_errno" "needs root"
fi

# SIGINT in the middle of a run: prompt exit, nothing of this run left
# mounted or recorded as live (scratch ids are "<pid>-<n>"; other runs on
# the machine may own other scratch filesystems at the same time).
if [ $root = 1 ]; then
	"$iopath" bench --quiet --out - --fs xfs uring_randread size=16m reps=1 runtime=60 warmup=0 \
		>/dev/null 2>"$tmp/err" &
	pid=$!
	# its scratch filesystem mounted, then 1 s into the run
	for _ in $(seq 1 300); do
		findmnt -rn -o TARGET | grep -q "^/run/iopath/mnt/$pid-" && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	sleep 1
	kill -INT $pid
	t=0
	while kill -0 $pid 2>/dev/null && [ $t -lt 300 ]; do
		sleep 0.1
		t=$((t + 1))
	done
	if kill -0 $pid 2>/dev/null; then
		kill -KILL $pid
		not_ok "bench_smoke.sigint_cleans_up # still running 30 s after SIGINT"
	else
		wait $pid
		rc=$?
		left=$(findmnt -rn -o TARGET | grep -c "^/run/iopath/mnt/$pid-")
		for st in /run/iopath/state/"$pid"-*; do
			[ -e "$st" ] && left=$((left + 1))
		done
		if [ $rc = 130 ] && [ "$left" = 0 ]; then
			ok "bench_smoke.sigint_cleans_up"
		else
			not_ok "bench_smoke.sigint_cleans_up # rc=$rc, $left leftovers of pid $pid"
			diag "$tmp/err"
		fi
	fi
else
	skip "bench_smoke.sigint_cleans_up" "needs root"
fi

# Three bench --out F at once: a bench either exits 0 with all its records
# in F or fails loudly at once (exit 2, one line); F holds exactly the
# records of the ones that exited 0.
conc=$tmp/concurrent.jsonl
for i in 1 2 3; do
	timeout -s KILL 120 "$iopath" bench --quiet --fs none --out "$conc" read_vs_readv reps=2 runtime=0.1 \
		interval_ms=50 warmup=0 > /dev/null 2> "$tmp/conc.$i.err" &
	cpids[i]=$!
done
want=0 loud=0 why=""
for i in 1 2 3; do
	wait "${cpids[i]}"
	rc=$?
	if [ "$rc" = 0 ]; then
		want=$((want + 2))
	elif [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/conc.$i.err")" = 1 ] &&
	     grep -q 'another process is writing it' "$tmp/conc.$i.err"; then
		loud=$((loud + 1))
	else
		why="$why bench $i exit $rc: $(head -n 1 "$tmp/conc.$i.err");"
	fi
done
got=$(cat "$conc" 2> /dev/null | wc -l)
if [ -z "$why" ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ]; then
	ok "bench_smoke.concurrent_out_keeps_every_record_or_fails_loudly"
else
	not_ok "bench_smoke.concurrent_out_keeps_every_record_or_fails_loudly # $got records, $want from runs that exited 0, $loud refused;$why"
fi

finish_tap
