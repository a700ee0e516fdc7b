#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath export --kcidb on fixture runs: a LAVA run (the log of
# tests/fixtures/lava/, judged by iopath lava verdict), a run with a known
# kernel bug, a mutation matrix and benchmark records each give KCIDB v5.3
# JSON that validates against configs/kcidb/kcidb-io.schema.v5.3.json
# (python3-jsonschema, offline, here in the test: the C export builds a
# conforming object by construction), with the statuses, paths and
# numbers they should have. A run with zero tests is a named failure, and
# the validator is shown to reject a report that breaks the schema.
#
# The run's own record (issue 52): start_time is LAVA's time of the job or
# the record's, never the file's mtime (a moved TAP keeps it); the build
# and checkout are named by the kernel image the run booted, so a TAP and
# records of one kernel share them with or without --image, and two
# kernels with one uname -r never do; LAVA's infrastructure error is an
# ERROR run with LAVA's reason (it was refused as "no test results");
# benchmark paths name the workload, not the harness's settings (a
# changed cv_max started a new series).
#
# Checked by meaning, as a dashboard reads it: every checkout, build and
# test has a start_time; ext4 and XFS records give distinct tests; two
# exports of one kernel share checkout and build ids; a run cut mid-test
# (the infrastructure failed) is ERROR, not FAIL; program nodes are the
# parents of their cases; URLs are http(s) only. And bad input: a
# directory, a FIFO, a missing file, a symlink at the output, NaN, a 300 MB
# --features file, a metric that is not a number, fields of the wrong type.
#
# usage: tests/kcidb.sh BUILD_DIR
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
. "$top/tests/lib/tap.sh"
iop=$build/iopath
schema=$top/configs/kcidb/kcidb-io.schema.v5.3.json

tmp=$(mktemp -d "${TMPDIR:-/tmp}/iopath-kcidb-test.XXXXXX") || { echo "Bail out! no temporary directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT

for m in jsonschema yaml; do
	if ! /usr/bin/python3 -c "import $m" 2> /dev/null; then
		echo "1..0 # SKIP python3-$m not installed (scripts/deps.sh check)"
		exit 0
	fi
done

# jq_check NAME FILE FILTER: ok when jq -e FILTER holds on FILE
jq_check() {
	if jq -e "$3" "$2" > /dev/null 2>&1; then ok "$1"; else not_ok "$1" "jq: $3"; fi
}

# validate FILE: the first schema error of FILE on stderr, exit 1 (0: valid)
validate() {
	/usr/bin/python3 - "$schema" "$1" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
# Strict JSON: NaN or Infinity in the file is an error, as in any other parser.
def no_const(c):
    raise ValueError("not JSON: " + c)
r = json.load(open(sys.argv[2]), parse_constant=no_const)
v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
errs = sorted(v.iter_errors(r), key=lambda e: list(e.path))
if errs:
    print("does not validate: %s at %s" % (errs[0].message[:300], "/".join(map(str, errs[0].path))),
          file=sys.stderr)
    sys.exit(1)
PY
}

# export NAME OUT ARGS...: ok when the export exits 0 and its output validates
exp() {
	local name=$1 out=$2 rc
	shift 2
	"$iop" export --kcidb -o "$out" "$@" 2> "$tmp/err"
	rc=$?
	if [ "$rc" = 0 ] && [ -s "$out" ] && validate "$out" 2> "$tmp/verr"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc: $(head -c 400 "$tmp/err") $(head -c 400 "$tmp/verr" 2> /dev/null)"
	fi
}

# refused NAME WANT ARGS...: export ARGS exits 2 within 20 s with one line on
# stderr that matches WANT (an ERE), and creates nothing in $tmp/out.d
refused() {
	local name=$1 want=$2 rc
	shift 2
	rm -rf "$tmp/out.d"
	mkdir "$tmp/out.d"
	timeout 20 "$iop" export --kcidb "$@" > "$tmp/out.d/.stdout" 2> "$tmp/err" < /dev/null
	rc=$?
	rm -f "$tmp/out.d/.stdout"
	if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -Eq -- "$want" "$tmp/err" &&
	   [ -z "$(ls -A "$tmp/out.d")" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, $(wc -l < "$tmp/err") lines: $(head -c 300 "$tmp/err")" \
			"left: $(ls -A "$tmp/out.d" | head -3)"
	fi
}

# ---- a LAVA run ---------------------------------------------------------------

"$iop" lava verdict --build "$build" "$top/tests/fixtures/lava/swapon-6.12.log" > "$tmp/lava.tap" 2> /dev/null
exp kcidb.lava_run_validates "$tmp/lava.json" "$tmp/lava.tap" --origin iopath_lab \
	--source linux-image-6.12.117+deb12-amd64 --image "$top/tests/fixtures/lava/swapon-6.12.log"
jq_check kcidb.lava_run_has_every_test_and_the_verdict "$tmp/lava.json" \
	'(.tests | length) == 18 and ([.tests[] | select(.status == "PASS")] | length) == 16 and
	 ([.tests[] | select(.status == "SKIP")] | length) == 2 and
	 (.tests[] | select(.path == "iopath") | .status == "PASS" and .misc.passed == 14) and
	 (.tests[] | select(.path == "iopath.swapon_test") | .status == "PASS")'
jq_check kcidb.lava_run_paths_are_harness_names_under_their_program "$tmp/lava.json" \
	'any(.tests[]; .path == "iopath.swapon_test.swapon.xfs_1k.file_with_a_hole_is_refused")'
# KCIDB paths are a tree: a program's node is the parent of its cases.
jq_check kcidb.program_node_is_the_parent_of_its_cases "$tmp/lava.json" \
	'[.tests[].path] as $p | all(.tests[] | select(.path | split(".") | length > 2);
	  (.path | split(".")[0:2] | join(".")) as $parent | any($p[]; . == $parent))'
jq_check kcidb.build_names_release_and_image_hash "$tmp/lava.json" \
	'.builds[0].misc.kernel_release == "6.12.117+deb12-amd64" and (.builds[0].misc.image_sha256 | length) == 64
	 and .checkouts[0].misc.source == "linux-image-6.12.117+deb12-amd64" and .tests[0].origin == "iopath_lab"
	 and (.tests[0].id | startswith("iopath_lab:"))'

# A LAVA job that timed out (a real log: the first of eight programs done,
# the second cut), and one whose log is cut short: iopath lava verdict
# refuses both and gives the TAP without a result line; judged afresh,
# the timed-out one's 23 passed tests made a green run. The run is ERROR:
# the infrastructure stopped, nothing is known of the kernel.
grep -v '"case": "job", "definition": "lava"' "$top/tests/fixtures/lava/swapon-6.12.log" > "$tmp/cut.log"
for t in timeout:"$top/tests/fixtures/lava/timeout-6.12.log" cut:"$tmp/cut.log"; do
	"$iop" lava verdict --build "$build" "${t#*:}" --tap "$tmp/${t%%:*}.tap" > /dev/null 2>&1
	exp "kcidb.${t%%:*}_job_validates" "$tmp/${t%%:*}.json" "$tmp/${t%%:*}.tap"
	if grep -q 'export: note: the run has no result line' "$tmp/err" && jq -e \
		'(.tests[] | select(.path == "iopath") | .status == "ERROR" and (.misc.reason | test("no result line")))
		 and ([.tests[] | select(.status == "PASS")] | length) > 0' "$tmp/${t%%:*}.json" > /dev/null 2>&1; then
		ok "kcidb.${t%%:*}_job_is_a_failed_run_with_its_reason"
	else
		not_ok "kcidb.${t%%:*}_job_is_a_failed_run_with_its_reason" "$(cat "$tmp/err")"
	fi
done

# ---- a known kernel bug, excused --------------------------------------------

cat > "$tmp/known" <<'EOF'
^6\.1\.0-57-amd64$  ^fb\.xfs_1k\.dio_past_eof$  cached byte [0-9]+ is 0x53, expected 0x00  xfs-1k-dio  mmap tail survives an O_DIRECT extension
EOF
cat > "$tmp/known.tap" <<'EOF'
TAP version 13
1..1
# selftests: iopath: fb_test
# TAP version 13
# 1..2
# #  RUN           fb.xfs_1k.dio_past_eof ...
# # fb_test.c:417:dio_past_eof:Expected 0 (0) == r (-117)
# # fb_test.c:417:dio_past_eof:eof.000: cached byte 1000 is 0x53, expected 0x00
# #          FAIL  fb.xfs_1k.dio_past_eof
# not ok 1 fb.xfs_1k.dio_past_eof
# #  RUN           fb.xfs.other ...
# #            OK  fb.xfs.other
# ok 2 fb.xfs.other
# # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0
not ok 1 selftests: iopath: fb_test # exit=1
EOF
exp kcidb.known_failure_run_validates "$tmp/known.json" "$tmp/known.tap" \
	--kernel-release 6.1.0-57-amd64 --known-failures "$tmp/known"
jq_check kcidb.known_bug_is_in_misc_and_the_test_stays_fail "$tmp/known.json" \
	'(.tests[] | select(.path == "iopath.fb_test.fb.xfs_1k.dio_past_eof") |
	  .status == "FAIL" and .misc.known_bug.bug == "xfs-1k-dio" and (.log_excerpt | test("cached byte 1000")))
	 and (.tests[] | select(.path == "iopath") | .status == "PASS" and .misc.known == 1)
	 and (.tests[] | select(.path == "iopath.fb_test") | .status == "FAIL" and .misc.excused)'
exp kcidb.same_failure_unexcused_elsewhere "$tmp/unknown.json" "$tmp/known.tap" \
	--kernel-release 6.12.117+deb12-amd64 --known-failures "$tmp/known"
jq_check kcidb.unexcused_failure_fails_the_run "$tmp/unknown.json" \
	'(.tests[] | select(.path == "iopath") | .status == "FAIL") and
	 (.tests[] | select(.path == "iopath.fb_test.fb.xfs_1k.dio_past_eof") | has("misc") | not) and
	 (.tests[] | select(.path == "iopath.fb_test") | has("misc") | not)'

# A program skipped whole is a SKIP, not a PASS, beside one that ran.
printf '%s\n' 'TAP version 13' '1..2' '# selftests: iopath: a_test' '# ok 1 a.xfs.one' \
	'ok 1 selftests: iopath: a_test' 'ok 2 selftests: iopath: c_test # SKIP' > "$tmp/progskip.tap"
exp kcidb.run_with_a_skipped_program_validates "$tmp/progskip.json" "$tmp/progskip.tap"
jq_check kcidb.program_skipped_whole_is_skip "$tmp/progskip.json" \
	'(.tests | map({(.path): .status}) | add) == {"iopath.a_test.a.xfs.one": "PASS", "iopath.a_test": "PASS",
	  "iopath.c_test": "SKIP", "iopath": "PASS"}'

# ---- a mutation matrix and benchmark records ---------------------------------

cat > "$tmp/matrix.json" <<'EOF'
{
  "kernel_source": "/var/cache/iopath/mutate/src/linux-source-7.2",
  "pristine": {"build_s": 1500, "runs": 3, "clean_runs": 3, "tests_passing": 40},
  "mutants": [
    {"name": "01-iter-fbatch-not-released", "function": "iomap_iter", "class": "killed", "killed_by": ["folio_batch.xfs.release"], "build_s": 90, "run_s": 200, "detail": "Expected 0 == leaked"},
    {"name": "02-zero-range-skip", "function": "iomap_zero_range", "class": "survived", "killed_by": [], "build_s": 80, "run_s": 210, "detail": ""},
    {"name": "03-no-build", "function": "x", "class": "no-build", "killed_by": [], "build_s": 5, "run_s": 0, "detail": "error: y"},
    {"name": "04-later", "function": "z", "class": "not run"}
  ],
  "killed": 1, "non_equivalent": 3
}
EOF
exp kcidb.matrix_validates "$tmp/m.json" "$tmp/matrix.json"
jq_check kcidb.matrix_killed_passes_survived_fails "$tmp/m.json" \
	'(.tests | map({(.path): .status}) | add) ==
	 {"iopath.mutate.01-iter-fbatch-not-released": "PASS", "iopath.mutate.02-zero-range-skip": "FAIL",
	  "iopath.mutate.03-no-build": "ERROR", "iopath.mutate.04-later": "MISS"}
	 and (.builds | length) == 4 and (.builds[] | select(.misc.mutant == "03-no-build") | .status == "FAIL")'

exp kcidb.records_validate "$tmp/r.json" "$top/tests/fixtures/compare/base.jsonl"
jq_check kcidb.records_are_done_with_numbers "$tmp/r.json" \
	'(.tests | length) > 0 and all(.tests[]; .status == "DONE" and (.number.value | type) == "number")
	 and any(.tests[]; .path == "iopath.bench.falloc_write.ext4.bs-4096_mode-alloc_prealloc-posix.ops"
	         and .number.unit == "ops/s")'

# ---- what must not pass -------------------------------------------------------

printf 'TAP version 13\n1..0\n' > "$tmp/zero.tap"
"$iop" export --kcidb -o "$tmp/zero.json" "$tmp/zero.tap" 2> "$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q 'no test results in the input' "$tmp/err" && [ ! -e "$tmp/zero.json" ]; then
	ok kcidb.zero_test_run_is_a_named_failure
else
	not_ok kcidb.zero_test_run_is_a_named_failure "exit $rc: $(cat "$tmp/err")"
fi
# A program that ran and reported no test, and one skipped whole: each
# passes in run_kselftest.sh's TAP, and a report of them would be green.
printf 'TAP version 13\n1..1\n# selftests: iopath: swapon_test\n# TAP version 13\n# 1..0\nok 1 selftests: iopath: swapon_test\n' \
	> "$tmp/noharness.tap"
printf 'TAP version 13\n1..1\n# selftests: iopath: swapon_test\nok 1 selftests: iopath: swapon_test # SKIP\n' > "$tmp/skipped.tap"
for t in noharness skipped; do
	"$iop" export --kcidb -o "$tmp/$t.json" "$tmp/$t.tap" 2> "$tmp/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q 'no test results in the input (1 programs, none with a harness test)' "$tmp/err" &&
	   [ ! -e "$tmp/$t.json" ]; then
		ok "kcidb.zero_test_run_${t}_is_a_named_failure"
	else
		not_ok "kcidb.zero_test_run_${t}_is_a_named_failure" "exit $rc: $(cat "$tmp/err")"
	fi
done
printf '{"mutants": []}\n' > "$tmp/zero.json.in"
"$iop" export --kcidb "$tmp/zero.json.in" > /dev/null 2> "$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q "no mutants" "$tmp/err"; then ok kcidb.zero_mutant_matrix_is_a_named_failure; else
	not_ok kcidb.zero_mutant_matrix_is_a_named_failure "exit $rc"; fi
"$iop" export --kcidb --origin 'Not-An-Origin' "$tmp/known.tap" > /dev/null 2> "$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -q -- '--origin' "$tmp/err"; then ok kcidb.bad_origin_is_usage_error; else
	not_ok kcidb.bad_origin_is_usage_error "exit $rc"; fi
# The validator can fail: a status KCIDB does not have.
jq '.tests[0].status = "OK"' "$tmp/lava.json" > "$tmp/bad-status.json"
if ! validate "$tmp/bad-status.json" 2> "$tmp/err" && grep -q 'does not validate' "$tmp/err"; then
	ok kcidb.schema_rejects_an_invalid_status
else
	not_ok kcidb.schema_rejects_an_invalid_status "the schema accepted status OK"
fi

# ---- bad input: one line, exit 2, nothing created (issue 40 rows 13-20) ------

refused kcidb.input_directory_is_one_line 'not a file|directory' -o "$tmp/out.d/x.json" "$tmp"
refused kcidb.input_missing_is_one_line 'No such file' -o "$tmp/out.d/x.json" "$tmp/nonexistent/x"
refused kcidb.output_directory_is_one_line "out\.d" -o "$tmp/out.d" "$tmp/known.tap"
refused kcidb.output_in_missing_directory_is_one_line 'nonexistent' -o "$tmp/out.d/nonexistent/x.json" \
	"$tmp/known.tap"
mkfifo "$tmp/fifo"
refused kcidb.fifo_input_refused_at_once 'not a regular file' -o "$tmp/out.d/x.json" "$tmp/fifo"
refused kcidb.fifo_features_refused_at_once 'features.*not a regular file' --features "$tmp/fifo" \
	-o "$tmp/out.d/x.json" "$tmp/known.tap"
refused kcidb.fifo_known_failures_refused_at_once 'known-failures.*not a regular file' \
	--known-failures "$tmp/fifo" -o "$tmp/out.d/x.json" "$tmp/known.tap"
# A 300 MB --features file (sparse: no disk used) is refused by its size, not read.
truncate -s 300M "$tmp/features.big"
refused kcidb.huge_features_file_refused_unread 'features.*larger than' --features "$tmp/features.big" \
	-o "$tmp/out.d/x.json" "$tmp/known.tap"
rm -f "$tmp/features.big"
# NaN and a number past the double range are not JSON: the record is refused.
sed 's/"value":1218490.627/"value":NaN/' "$top/tests/fixtures/compare/base.jsonl" > "$tmp/nan.jsonl"
refused kcidb.nan_record_refused_never_written 'nan\.jsonl:1' -o "$tmp/out.d/x.json" "$tmp/nan.jsonl"
sed 's/"value":1218490.627/"value":1e999/' "$top/tests/fixtures/compare/base.jsonl" > "$tmp/inf.jsonl"
refused kcidb.infinite_record_refused_never_written 'inf\.jsonl:1' -o "$tmp/out.d/x.json" "$tmp/inf.jsonl"
printf '{"schema":1,"bench":"x","metrics":5}\n' > "$tmp/metrics5.jsonl"
refused kcidb.metrics_not_a_list_is_one_line 'metrics' -o "$tmp/out.d/x.json" "$tmp/metrics5.jsonl"
# A field of the wrong type, as the record's typed view (lib/record_view.c)
# checks it, in the words iopath compare refuses it with: a "better" that
# is neither "higher" nor "lower" was exported as a test.
refused kcidb.record_field_of_the_wrong_type_refused_with_its_line \
	'bad-metric\.jsonl:4: metric "lat_p99_ns": "better" must be' \
	-o "$tmp/out.d/x.json" "$top/tests/fixtures/compare/bad-metric.jsonl"
jq '.mutants[0].killed_by = 5' "$tmp/matrix.json" > "$tmp/killed5.json"
refused kcidb.matrix_killed_by_not_a_list_is_one_line 'killed_by' -o "$tmp/out.d/x.json" "$tmp/killed5.json"
refused kcidb.file_url_refused 'log-url' --log-url "file://$tmp/log" -o "$tmp/out.d/x.json" "$tmp/known.tap"
# --start-time was checked by its form alone: an impossible time was
# written into the checkout, the build and every test (invalid KCIDB).
# A time is parsed and range-checked once (lib/date.c): a date that
# exists, 1970 to 2099.
for st in 9999-99-99T99:99:99Z 2024-02-30T00:00:00Z 2024-13-40T25:61:61Z 2023-02-29T12:00:00Z \
	1969-12-31T23:59:59Z 2100-01-01T00:00:00Z; do
	refused "kcidb.start_time_impossible_refused.$st" "--start-time '$st': expected YYYY-MM-DDTHH:MM:SSZ" \
		--start-time "$st" -o "$tmp/out.d/x.json" "$tmp/known.tap"
done
"$iop" export --kcidb --start-time 2024-02-29T23:59:59.5Z "$tmp/known.tap" > "$tmp/leap.json" 2> "$tmp/err"
check_cmd kcidb.start_time_leap_day_taken \
	jq -e '[.checkouts[], .builds[], .tests[]] | all(.start_time == "2024-02-29T23:59:59.5Z")' "$tmp/leap.json"

# One metric whose value is a boolean: that metric is skipped with a note,
# the rest of the run is exported.
head -n 1 "$top/tests/fixtures/compare/base.jsonl" | sed 's/"value":648,/"value":true,/' > "$tmp/bool.jsonl"
"$iop" export --kcidb -o "$tmp/bool.json" "$tmp/bool.jsonl" 2> "$tmp/err"
rc=$?
if [ "$rc" = 0 ] && grep -q 'note: .*lat_p99_ns: value is not a number; metric skipped' "$tmp/err" &&
   jq -e '[.tests[].path] == ["iopath.bench.falloc_write.ext4.bs-4096_mode-alloc_prealloc-posix.ops"]' \
	"$tmp/bool.json" > /dev/null 2>&1 && validate "$tmp/bool.json"; then
	ok kcidb.boolean_metric_skipped_with_a_note
else
	not_ok kcidb.boolean_metric_skipped_with_a_note "exit $rc: $(head -c 300 "$tmp/err")"
fi

# The output: a symlink at its name is refused, never followed; a new file
# is 0644 less the umask.
echo precious > "$tmp/target"
ln -s "$tmp/target" "$tmp/link.json"
"$iop" export --kcidb -o "$tmp/link.json" "$tmp/known.tap" --kernel-release 6.1.0-57-amd64 \
	--known-failures "$tmp/known" 2> "$tmp/err"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && [ "$(cat "$tmp/target")" = precious ] &&
   [ -L "$tmp/link.json" ]; then
	ok kcidb.output_symlink_refused_not_followed
else
	not_ok kcidb.output_symlink_refused_not_followed "exit $rc: $(head -c 300 "$tmp/err")"
fi
(umask 022 && "$iop" export --kcidb -o "$tmp/mode.json" "$tmp/known.tap" --kernel-release 6.1.0-57-amd64 \
	--known-failures "$tmp/known" 2> /dev/null)
mode=$(stat -c %a "$tmp/mode.json" 2> /dev/null)
if [ "$mode" = 644 ]; then ok kcidb.output_mode_is_0644_less_umask; else
	not_ok kcidb.output_mode_is_0644_less_umask "mode $mode"; fi

# ---- as a dashboard reads it (issue 42 item 4) -------------------------------

# ext4 and XFS runs of one benchmark are distinct tests.
{ head -n 3 "$top/tests/fixtures/compare/base.jsonl"
  head -n 3 "$top/tests/fixtures/compare/base.jsonl" | sed 's/"type":"ext4"/"type":"xfs"/'; } > "$tmp/fs.jsonl"
exp kcidb.ext4_and_xfs_records_validate "$tmp/fs.json" "$tmp/fs.jsonl"
jq_check kcidb.ext4_and_xfs_records_give_distinct_tests "$tmp/fs.json" \
	'([.tests[].path] | unique) as $p | ($p | length) == 4 and
	 any($p[]; test("^iopath[.]bench[.]falloc_write[.]ext4[.]")) and
	 any($p[]; test("^iopath[.]bench[.]falloc_write[.]xfs[.]"))'

# A selftest run and a benchmark run of one kernel: one checkout, one build.
sed 's/6\.1\.0-57-amd64/6.18.0-base/' "$tmp/known" > "$tmp/known618"
for img in "" "$top/tests/fixtures/lava/swapon-6.12.log"; do
	tag=${img:+_image}
	exp "kcidb.selftest_run_of_a_kernel_validates$tag" "$tmp/k1$tag.json" "$tmp/known.tap" \
		--kernel-release 6.18.0-base --known-failures "$tmp/known618" ${img:+--image "$img"}
	exp "kcidb.benchmark_run_of_the_kernel_validates$tag" "$tmp/k2$tag.json" \
		"$top/tests/fixtures/compare/base.jsonl" ${img:+--image "$img"}
	if [ -s "$tmp/k1$tag.json" ] && [ -s "$tmp/k2$tag.json" ] &&
	   [ "$(jq -c '[.checkouts[0].id, .builds[0].id]' "$tmp/k1$tag.json")" = \
	     "$(jq -c '[.checkouts[0].id, .builds[0].id]' "$tmp/k2$tag.json")" ] &&
	   jq -e '.tests | length > 0' "$tmp/k1$tag.json" > /dev/null; then
		ok "kcidb.two_exports_of_one_kernel_share_checkout_and_build$tag"
	else
		not_ok "kcidb.two_exports_of_one_kernel_share_checkout_and_build$tag" \
			"$(jq -c '[.checkouts[0].id, .builds[0].id]' "$tmp/k1$tag.json" "$tmp/k2$tag.json" 2>&1)"
	fi
done

# A run the infrastructure cut mid-test (a lost connection): the run, the
# program and the test it was in are ERROR; what finished keeps its status.
printf '%s\n' '# iopath-vm: kernel 6.12.117+deb12-amd64 (LAVA job log x.log)' 'TAP version 13' '1..1' \
	'# selftests: iopath: a_test' '# 1..2' '# #  RUN           a.xfs.one ...' '# ok 1 a.xfs.one' \
	'# #  RUN           a.xfs.two ...' '# # a_test.c:10:two:writing 1 MiB' > "$tmp/cut-mid.tap"
exp kcidb.run_cut_mid_test_validates "$tmp/cut-mid.json" "$tmp/cut-mid.tap"
jq_check kcidb.mid_test_infrastructure_error_is_error "$tmp/cut-mid.json" \
	'(.tests | map({(.path): .status}) | add) == {"iopath.a_test.a.xfs.one": "PASS",
	  "iopath.a_test.a.xfs.two": "ERROR", "iopath.a_test": "ERROR", "iopath": "ERROR"}'

# Every checkout, build and test of a report whose input has a time of
# its own (a LAVA job's log, records) has a start_time: LAVA's time of the
# job, each record's time. An input without one (a TAP written by hand, a
# matrix) has none, rather than the time the file was copied.
missing=
for f in lava timeout cut r fs bool; do
	jq -e '[.checkouts[], .builds[], .tests[]] | all(has("start_time"))' "$tmp/$f.json" > /dev/null 2>&1 ||
		missing="$missing $f"
done
if [ -z "$missing" ] && jq -e '.tests[0].start_time == "2026-11-29T20:01:00Z"' "$tmp/r.json" > /dev/null &&
   jq -e 'all(.tests[]; .start_time == "2026-12-02T15:39:46Z")' "$tmp/lava.json" > /dev/null &&
   jq -e '[.checkouts[], .builds[], .tests[]] | all(has("start_time") | not)' "$tmp/known.json" > /dev/null; then
	ok kcidb.start_time_is_the_runs_own
else
	not_ok kcidb.start_time_is_the_runs_own "without:$missing"
fi

# URLs are http(s), never file://; environment from --lab and --device;
# the architecture is the record's (none guessed where the input has none).
exp kcidb.urls_and_environment_validate "$tmp/env.json" "$tmp/known.tap" --kernel-release 6.18.0-base \
	--known-failures "$tmp/known618" --image "$top/tests/fixtures/lava/swapon-6.12.log" \
	--artifact-url-base https://example.org/k/ --log-url https://example.org/k/run.log --lab lab_one \
	--device qemu-x86
jq_check kcidb.urls_are_https_and_environment_is_set "$tmp/env.json" \
	'.builds[0].output_files == [{"name": "swapon-6.12.log", "url": "https://example.org/k/swapon-6.12.log"}]
	 and all(.tests[]; .log_url == "https://example.org/k/run.log" and .environment.misc.lab == "lab_one"
	                   and .environment.misc.device == "qemu-x86")'
if grep -l 'file://' "$tmp"/*.json > /dev/null 2>&1; then
	not_ok kcidb.no_file_url_anywhere "$(grep -l 'file://' "$tmp"/*.json)"
else
	ok kcidb.no_file_url_anywhere
fi
head -n 1 "$top/tests/fixtures/compare/base.jsonl" | sed 's/"machine":{/"machine":{"arch":"aarch64",/' > "$tmp/arm.jsonl"
exp kcidb.record_of_an_arm64_machine_validates "$tmp/arm.json" "$tmp/arm.jsonl"
jq_check kcidb.architecture_is_the_records "$tmp/arm.json" '.builds[0].architecture == "arm64"'
jq_check kcidb.no_architecture_guessed "$tmp/lava.json" '.builds[0] | has("architecture") | not'

# ---- the run's own record: time, kernel, infrastructure (issue 52) ----------

lavalog=$top/tests/fixtures/lava/swapon-6.12.log
# The TAP moved and touched: its start_time is still LAVA's time of the job.
cp "$tmp/lava.tap" "$tmp/moved.tap"
touch -d '2001-01-01 00:00:00 UTC' "$tmp/moved.tap"
exp kcidb.moved_tap_validates "$tmp/moved.json" "$tmp/moved.tap"
jq_check kcidb.start_time_is_lavas_not_the_files "$tmp/moved.json" \
	'all(.checkouts[], .builds[], .tests[]; .start_time == "2026-12-02T15:39:46Z")'

# Two kernels with one uname -r: the job's kernel image (the guest's
# image-sha256 line, from the job's test step) names the build.
img_a=$tmp/vmlinuz-a img_b=$tmp/vmlinuz-b
printf 'kernel a\n' > "$img_a"
printf 'kernel b\n' > "$img_b"
sha_a=$(sha256sum < "$img_a" | cut -c1-64) sha_b=$(sha256sum < "$img_b" | cut -c1-64)
for k in a b; do
	sha=$sha_a
	[ "$k" = a ] || sha=$sha_b
	awk -v s="$sha" '/IOPATH-LAVA:kernel: / && !done { l = $0
		sub(/IOPATH-LAVA:kernel: [^"]*/, "IOPATH-LAVA:image-sha256: " s, l); print l; done = 1 } 1' \
		"$lavalog" > "$tmp/img-$k.log"
	"$iop" lava verdict --build "$build" "$tmp/img-$k.log" > "$tmp/img-$k.tap" 2> /dev/null
done
# The records of kernel a (its image_sha256, its release).
sed "s/\"release\":\"6.18.0-base\"/\"release\":\"6.12.117+deb12-amd64\",\"image_sha256\":\"$sha_a\"/" \
	"$top/tests/fixtures/compare/base.jsonl" > "$tmp/img-a.jsonl"
exp kcidb.tap_of_kernel_a_validates "$tmp/ia.json" "$tmp/img-a.tap"
exp kcidb.tap_of_kernel_a_with_its_image_validates "$tmp/ia-image.json" "$tmp/img-a.tap" --image "$img_a"
exp kcidb.records_of_kernel_a_validate "$tmp/ia-rec.json" "$tmp/img-a.jsonl"
exp kcidb.tap_of_kernel_b_validates "$tmp/ib.json" "$tmp/img-b.tap"
ids() { jq -c '[.checkouts[0].id, .builds[0].id]' "$1" 2> /dev/null; }
if grep -q "^# iopath-vm: image-sha256 $sha_a\$" "$tmp/img-a.tap" && [ -n "$(ids "$tmp/ia.json")" ] &&
   [ "$(ids "$tmp/ia.json")" = "$(ids "$tmp/ia-image.json")" ] &&
   [ "$(ids "$tmp/ia.json")" = "$(ids "$tmp/ia-rec.json")" ] &&
   jq -e --arg s "$sha_a" '.builds[0].misc.image_sha256 == $s' "$tmp/ia.json" > /dev/null; then
	ok kcidb.one_kernel_one_build_tap_and_records_with_and_without_image
else
	not_ok kcidb.one_kernel_one_build_tap_and_records_with_and_without_image \
		"$(ids "$tmp/ia.json") $(ids "$tmp/ia-image.json") $(ids "$tmp/ia-rec.json")"
fi
if [ -n "$(ids "$tmp/ib.json")" ] &&
   [ "$(jq -r '.builds[0].id' "$tmp/ia.json")" != "$(jq -r '.builds[0].id' "$tmp/ib.json")" ] &&
   [ "$(jq -r '.checkouts[0].id' "$tmp/ia.json")" != "$(jq -r '.checkouts[0].id' "$tmp/ib.json")" ] &&
   [ "$(jq -r '.builds[0].misc.kernel_release' "$tmp/ia.json")" = "$(jq -r '.builds[0].misc.kernel_release' "$tmp/ib.json")" ]; then
	ok kcidb.two_kernels_one_release_never_merge
else
	not_ok kcidb.two_kernels_one_release_never_merge "$(ids "$tmp/ia.json") $(ids "$tmp/ib.json")"
fi
refused kcidb.image_of_another_kernel_refused 'not the kernel the run booted' \
	--image "$img_b" -o "$tmp/out.d/x.json" "$tmp/img-a.tap"

# LAVA's infrastructure failed: mid-test (the connection closed), and
# before the tests, the guest booted (the shell never answered): iopath
# lava verdict exits 3, and the export is an ERROR run with LAVA's reason,
# not a refusal ("no test results") the dashboard would never see.
{ sed -n '1,/"case": "swapon.ext4.file_with_a_hole_is_refused"/p' "$lavalog"
  echo '{"dt": "x", "lvl": "results", "msg": {"case": "job", "definition": "lava", "error_msg": "Connection closed", "error_type": "Infrastructure", "result": "fail"}}'
} > "$tmp/infra-mid.log"
{ sed -n '1,/IOPATH-LAVA:kernel: /p' "$lavalog"
  echo '{"dt": "x", "lvl": "results", "msg": {"case": "job", "definition": "lava", "error_msg": "Connection closed", "error_type": "Infrastructure", "result": "fail"}}'
} > "$tmp/infra-early.log"
for t in mid early; do
	"$iop" lava verdict --build "$build" "$tmp/infra-$t.log" --tap "$tmp/infra-$t.tap" > /dev/null 2>&1
	rc=$?
	exp "kcidb.infrastructure_failure_${t}_validates" "$tmp/infra-$t.json" "$tmp/infra-$t.tap"
	if [ "$rc" = 3 ] && jq -e '(.tests[] | select(.path == "iopath") | .status == "ERROR" and .misc.stop == "infrastructure"
		and (.misc.reason | test("error_type Infrastructure: ")) and (.log_excerpt | test("Infrastructure")))
		and (.builds | length) == 1 and .builds[0].misc.kernel_release == "6.12.117+deb12-amd64"' \
		"$tmp/infra-$t.json" > /dev/null 2>&1; then
		ok "kcidb.infrastructure_failure_${t}_is_an_error_with_lavas_reason"
	else
		not_ok "kcidb.infrastructure_failure_${t}_is_an_error_with_lavas_reason" "lava verdict exit $rc" \
			"$(jq -c '.tests[] | select(.path == "iopath")' "$tmp/infra-$t.json" 2>&1 | head -c 400)"
	fi
done
# Before the kernel (the deploy failed): which kernel is the exporter's
# to say; this machine's release is not it.
printf '%s\n' '{"dt": "2026-12-02T15:39:40.1", "lvl": "info", "msg": "start: 1.1 download-retry"}' \
	'{"dt": "2026-12-02T15:39:41.1", "lvl": "results", "msg": {"case": "job", "definition": "lava", "error_msg": "Unable to fetch http://127.0.0.1:1/k/vmlinuz", "error_type": "Infrastructure", "result": "fail"}}' \
	> "$tmp/infra-deploy.log"
"$iop" lava verdict --build "$build" "$tmp/infra-deploy.log" --tap "$tmp/infra-deploy.tap" > /dev/null 2>&1
refused kcidb.infrastructure_failure_before_the_kernel_needs_its_release 'never reached its kernel.*--kernel-release' \
	-o "$tmp/out.d/x.json" "$tmp/infra-deploy.tap"
exp kcidb.infrastructure_failure_before_the_kernel_validates "$tmp/infra-deploy.json" "$tmp/infra-deploy.tap" \
	--kernel-release 6.12.117+deb12-amd64
jq_check kcidb.infrastructure_failure_before_the_kernel_is_an_error "$tmp/infra-deploy.json" \
	'(.tests | length) == 1 and .tests[0].status == "ERROR" and (.tests[0].misc.reason | test("Unable to fetch"))
	 and .tests[0].start_time == "2026-12-02T15:39:40Z"'

# Benchmark paths name the workload: a harness setting (cv_max,
# foreign_max, interval_ms, cpus, reps, ...) is in misc.params, and
# changing its value keeps the test's path.
head -n 1 "$top/tests/fixtures/compare/base.jsonl" |
	sed 's/"params":{/"params":{"cv_max":2,"foreign_max":10,"interval_ms":1000,"inject_ns":0,/' > "$tmp/set1.jsonl"
sed 's/"cv_max":2,"foreign_max":10,"interval_ms":1000/"cv_max":5,"foreign_max":20,"interval_ms":50/; s/"cpus":"1"/"cpus":"0-1"/' \
	"$tmp/set1.jsonl" > "$tmp/set2.jsonl"
exp kcidb.records_with_harness_settings_validate "$tmp/set1.json" "$tmp/set1.jsonl"
exp kcidb.records_with_other_settings_validate "$tmp/set2.json" "$tmp/set2.jsonl"
if [ "$(jq -c '[.tests[].path]' "$tmp/set1.json")" = "$(jq -c '[.tests[].path]' "$tmp/set2.json")" ] &&
   jq -e '.tests[0].path == "iopath.bench.falloc_write.ext4.bs-4096_inject_ns-0_mode-alloc_prealloc-posix.ops"
	  and .tests[0].misc.params.cv_max == 2 and .tests[0].misc.params.cpus == "1"' "$tmp/set1.json" > /dev/null; then
	ok kcidb.bench_path_names_the_workload_not_the_harness_settings
else
	not_ok kcidb.bench_path_names_the_workload_not_the_harness_settings \
		"$(jq -c '[.tests[].path]' "$tmp/set1.json" "$tmp/set2.json" 2>&1)"
fi

finish_tap
