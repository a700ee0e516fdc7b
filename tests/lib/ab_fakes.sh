# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# The stand-ins of iopath ab's kernel builder and VM (IOPATH_AB_BUILDER,
# IOPATH_AB_VM), for tests/ab.sh and the installed iopath ab of
# tests/install.sh. Sourced; not executable, so check.sh does not run it.
#
# ab_fakes DIR: DIR/src (a kernel tree the builder reads: fs/iomap/cost),
# DIR/plus5.patch (B 5% dearer per operation), DIR/builder, DIR/vm and two
# "kernels" DIR/kA, DIR/kB. The fakes log to $FAKE_LOG and the VM writes
# the records of $FIX/base.jsonl (tests/fixtures/compare).
ab_fakes() {
	local t=$1

	# A kernel tree: what the fake builder reads, and a patch that makes B 5%
	# dearer per operation.
	mkdir -p "$t/src/fs/iomap"
	echo 'all:' > "$t/src/Makefile"
	echo 1000 > "$t/src/fs/iomap/cost"
	cat > "$t/plus5.patch" <<'EOF'
--- a/fs/iomap/cost
+++ b/fs/iomap/cost
@@ -1 +1 @@
-1000
+1050
EOF

	# The sites of the planted changes (scripts/plant.sh), each with the
	# lines around it that the plants' hunks carry.
	mkdir -p "$t/src/lib" "$t/src/fs/ext4"
	printf '%s\n' x x x $'\t\tlen = MAX_RW_COUNT;' $'\tif (unlikely(!access_ok(buf, len)))' \
		$'\t\treturn -EFAULT;' '' $'\tiov_iter_ubuf(i, rw, buf, len);' $'\treturn 0;' > "$t/src/lib/iov_iter.c"
	printf '%s\n' x x x '' $'\tif (!iomi.len)' $'\t\treturn NULL;' '' $'\tdio = kmalloc_obj(*dio);' \
		$'\tif (!dio)' > "$t/src/fs/iomap/direct-io.c"
	printf '%s\n' x x x $'\t\t     FALLOC_FL_INSERT_RANGE | FALLOC_FL_WRITE_ZEROES))' $'\t\treturn -EOPNOTSUPP;' '' \
		$'\tinode_lock(inode);' $'\tret = ext4_convert_inline_data(inode);' $'\tif (ret)' > "$t/src/fs/ext4/extents.c"

	# The builder: the bzImage says the cost per operation, fs/iomap/cost
	# plus what is planted in import_ubuf (the readv the fake VM reports);
	# the vmlinux has each site's function, with its plant if the tree has
	# one (FAKE_PLANT_EXTRA=1: and one more instruction than it says).
	cat > "$t/builder" <<'EOF'
#!/bin/bash
# BUILDER SRC OBJ JOBS
echo "build $(cat "$1/fs/iomap/cost")" >> "$FAKE_LOG"
[ -n "${FAKE_BUILD_SLEEP:-}" ] && sleep "$FAKE_BUILD_SLEEP"
mkdir -p "$2/arch/x86/boot"
plant() { grep -h 'asm volatile' "$1/$2" 2> /dev/null; }
n=$(plant "$1" lib/iov_iter.c | sed -n 's/.*\.rept \([0-9]*\).*/\1/p')
echo "cost=$(($(cat "$1/fs/iomap/cost") + ${n:-0}))" > "$2/arch/x86/boot/bzImage"
extra=""
[ -n "${FAKE_PLANT_EXTRA:-}" ] && extra='x ^= 5;'
{
	for f in import_ubuf:lib/iov_iter.c __iomap_dio_rw:fs/iomap/direct-io.c ext4_fallocate:fs/ext4/extents.c; do
		p=$(plant "$1" "${f#*:}")
		echo "int ${f%%:*}(int x) { if (x > 3) return 1; $p ${p:+$extra} return x * 7; }"
	done
} > "$2/vmlinux.c"
cc -O2 -c "$2/vmlinux.c" -o "$2/vmlinux" && nm "$2/vmlinux" > "$2/System.map"
EOF
	# The VM: --fetch-only names the image; a boot logs the image's cost, its
	# name (SIDE.N, from --records) and seed, and writes the read_vs_readv
	# records of the compare fixtures with readv_ns set to that cost times
	# (1 + up to 0.05% noise, fixed per boot), stamped with the image's
	# hash, a boot id of its own, the clock domain it was asked for and the
	# seed on its command line. It takes FAKE_BOOT_SLEEP seconds and logs
	# when it started and ended ("time SIDE.N START END"), so that a test
	# sees which boots ran at the same time.
	cat > "$t/vm" <<'EOF'
#!/bin/bash
k="" rec="" icount=0 fetch=0 seed="" accel="" rtc=""
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) k=$2; shift 2 ;;
	--records) rec=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--rtc-base) rtc=$2; shift 2 ;;
	--accel) accel=$2; shift 2 ;;
	--icount) icount=1; shift ;;
	--fetch-only) fetch=1; shift ;;
	--) shift; break ;;
	--bench) shift ;;
	--build|--smp|--timeout|--boot-timeout|--idle-timeout|--log) shift 2 ;;
	*) echo "fake vm: unknown $1" >&2; exit 2 ;;
	esac
done
[ -f "$k" ] || { echo "iopath: vm: --kernel $k: no such file" >&2; exit 2; }
if [ "$fetch" = 1 ]; then
	[ -n "${FAKE_FETCH_ERR:-}" ] && { echo "iopath: vm: $FAKE_FETCH_ERR" >&2; exit 1; }
	echo "$k"
	exit 0
fi
start=$(date +%s.%N)
cost=$(sed -n 's/^cost=//p' "$k")
# boot n of the run: A.1 is 1, B.1 is 2, A.2 is 3 ..., whichever starts first
name=$(basename "$rec" .jsonl)
i=${name#*.}
n=$((2 * i - 1))
[ "${name%%.*}" = B ] && n=$((n + 1))
echo "boot $cost icount=$icount name=$name seed=$seed rtc=$rtc" >> "$FAKE_LOG"
if [ "${FAKE_FAIL_BOOT:-}" = "$n" ]; then
	echo "iopath: vm: $(basename "$k"): the guest kernel panicked after 3 s: VFS: Unable to mount root fs" >&2
	echo "iopath: vm: last kernel console lines:" >&2
	echo "  | Kernel panic - not syncing: VFS: Unable to mount root fs" >&2
	exit 1
fi
dom=wall acc=$accel
[ "$icount" = 1 ] && dom=instructions acc=tcg-icount
[ "${FAKE_DOMAIN_AT:-}" = "$n" ] && dom=wall
sha=$(sha256sum < "$k" | cut -d' ' -f1)
[ "${FAKE_SHA_AT:-}" = "$n" ] && sha=$(printf '%064d' 0)
id=$(cat /proc/sys/kernel/random/uuid)
# The noise of boot n, the same in every run of this test: an A/A verdict
# must not be left to a 5% chance.
noise=$(( (n * 37 % 7) * 9362 ))
jq -c --argjson c "$cost" --argjson z "$noise" --arg sha "$sha" --arg id "$id" --arg dom "$dom" \
	--arg acc "$acc" --arg n "$n" --arg seed "$seed" '
	select(.bench == "read_vs_readv")
	| ($c * (1 + ($z / 65536 - 0.5) * 0.001 + .rep * 0.00001)) as $v
	| .time = "2026-12-02T00:\($n | tonumber + 10):0\(.rep)Z"
	| .env.kernel.image_sha256 = $sha | .env.kernel.boot_id = $id
	| .env.kernel.cmdline += (if $seed == "" then "" else " iopath.seed=" + $seed end)
	| .env.clock = {domain: $dom, accel: $acc}
	| .metrics |= map(if .name == "readv_ns" then .value = $v | .median = $v | .mean = $v | .samples = [$v, $v, $v] | .min = $v | .max = $v | .stddev = 0 | .cv = 0
		| (if $dom == "instructions" and $n != env.FAKE_SLICE_AGG_AT then .agg = "time_over_ops" else . end) else . end)
	| .run.main_metric = "readv_ns"' "$FIX/base.jsonl" > "$rec"
# FAKE_AGG_B=AGG: the B side aggregates readv_ns by AGG, the A side does not
if [ -n "${FAKE_AGG_B:-}" ] && [ "${name%%.*}" = B ]; then
	jq -c --arg agg "$FAKE_AGG_B" '.metrics |= map(if .name == "readv_ns" then .agg = $agg else . end)' \
		"$rec" > "$rec.agg" && mv "$rec.agg" "$rec"
fi
if [ "${FAKE_NAN_AT:-}" = "$n" ]; then
	sed -i 's/"value":[0-9.e+]*/"value":1e999/' "$rec"
fi
[ -n "${FAKE_BOOT_SLEEP:-}" ] && sleep "$FAKE_BOOT_SLEEP"
echo "time $name $start $(date +%s.%N)" >> "$FAKE_LOG"
EOF
	chmod +x "$t/builder" "$t/vm"
	echo "cost=1000" > "$t/kA"
	echo "cost=1050" > "$t/kB"
}
