#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath export --kcidb on fixture runs: a LAVA run (the log of
# tests/fixtures/lava/, judged by iopath lava verdict), a run with a known
# kernel bug, a mutation matrix and benchmark records each give KCIDB v5.3
# JSON that validates against configs/kcidb/kcidb-io.schema.v5.3.json
# (python3-jsonschema, offline), with the statuses, paths and numbers they
# should have. A run with zero tests is a named failure, and the validator
# is shown to reject a report that breaks the schema.
#
# usage: tests/kcidb.sh BUILD_DIR
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
. "$top/tests/lib/tap.sh"
export_py=$top/scripts/export.py

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

# export NAME OUT ARGS...: ok when the export exits 0 and says it validated
exp() {
	local name=$1 out=$2 rc
	shift 2
	"$export_py" --kcidb -o "$out" "$@" 2> "$tmp/err"
	rc=$?
	if [ "$rc" = 0 ] && grep -q 'validated' "$tmp/err" && [ -s "$out" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc: $(head -c 400 "$tmp/err")"
	fi
}

# ---- a LAVA run ---------------------------------------------------------------

"$top/scripts/lava.py" verdict --build "$build" "$top/tests/fixtures/lava/swapon-6.12.log" > "$tmp/lava.tap" 2> /dev/null
exp kcidb.lava_run_validates "$tmp/lava.json" "$tmp/lava.tap" --origin iopath_lab \
	--source linux-image-6.12.117+deb12-amd64 --image "$top/tests/fixtures/lava/swapon-6.12.log"
jq_check kcidb.lava_run_has_every_test_and_the_verdict "$tmp/lava.json" \
	'(.tests | length) == 18 and ([.tests[] | select(.status == "PASS")] | length) == 16 and
	 ([.tests[] | select(.status == "SKIP")] | length) == 2 and
	 (.tests[] | select(.path == "iopath") | .status == "PASS" and .misc.passed == 14) and
	 (.tests[] | select(.path == "iopath.swapon_test") | .status == "PASS")'
jq_check kcidb.lava_run_paths_are_harness_names "$tmp/lava.json" \
	'any(.tests[]; .path == "iopath.swapon.xfs_1k.file_with_a_hole_is_refused")'
jq_check kcidb.build_names_release_and_image_hash "$tmp/lava.json" \
	'.builds[0].misc.kernel_release == "6.12.117+deb12-amd64" and (.builds[0].misc.image_sha256 | length) == 64
	 and .checkouts[0].misc.source == "linux-image-6.12.117+deb12-amd64" and .tests[0].origin == "iopath_lab"
	 and (.tests[0].id | startswith("iopath_lab:"))'

# A LAVA job that timed out (a real log: the first of eight programs done,
# the second cut), and one whose log is cut short: iopath lava verdict
# refuses both and gives the TAP without a result line; judged afresh,
# the timed-out one's 23 passed tests made a green run.
grep -v '"case": "job", "definition": "lava"' "$top/tests/fixtures/lava/swapon-6.12.log" > "$tmp/cut.log"
for t in timeout:"$top/tests/fixtures/lava/timeout-6.12.log" cut:"$tmp/cut.log"; do
	"$top/scripts/lava.py" verdict --build "$build" "${t#*:}" --tap "$tmp/${t%%:*}.tap" > /dev/null 2>&1
	exp "kcidb.${t%%:*}_job_validates" "$tmp/${t%%:*}.json" "$tmp/${t%%:*}.tap"
	if grep -q 'export: the run has no result line' "$tmp/err" && jq -e \
		'(.tests[] | select(.path == "iopath") | .status == "FAIL" and (.misc.reason | test("no result line")))
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
	'(.tests[] | select(.path == "iopath.fb.xfs_1k.dio_past_eof") |
	  .status == "FAIL" and .misc.known_bug.bug == "xfs-1k-dio" and (.log_excerpt | test("cached byte 1000")))
	 and (.tests[] | select(.path == "iopath") | .status == "PASS" and .misc.known == 1)
	 and (.tests[] | select(.path == "iopath.fb_test") | .status == "FAIL" and .misc.excused)'
exp kcidb.same_failure_unexcused_elsewhere "$tmp/unknown.json" "$tmp/known.tap" \
	--kernel-release 6.12.117+deb12-amd64 --known-failures "$tmp/known"
jq_check kcidb.unexcused_failure_fails_the_run "$tmp/unknown.json" \
	'(.tests[] | select(.path == "iopath") | .status == "FAIL") and
	 (.tests[] | select(.path == "iopath.fb.xfs_1k.dio_past_eof") | has("misc") | not) and
	 (.tests[] | select(.path == "iopath.fb_test") | has("misc") | not)'

# A program skipped whole is a SKIP, not a PASS, beside one that ran.
printf '%s\n' 'TAP version 13' '1..2' '# selftests: iopath: a_test' '# ok 1 a.xfs.one' \
	'ok 1 selftests: iopath: a_test' 'ok 2 selftests: iopath: c_test # SKIP' > "$tmp/progskip.tap"
exp kcidb.run_with_a_skipped_program_validates "$tmp/progskip.json" "$tmp/progskip.tap"
jq_check kcidb.program_skipped_whole_is_skip "$tmp/progskip.json" \
	'(.tests | map({(.path): .status}) | add) == {"iopath.a.xfs.one": "PASS", "iopath.a_test": "PASS",
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
	 and any(.tests[]; .path == "iopath.bench.falloc_write.ops" and .number.unit == "ops/s")'

# ---- what must not pass -------------------------------------------------------

printf 'TAP version 13\n1..0\n' > "$tmp/zero.tap"
"$export_py" --kcidb -o "$tmp/zero.json" "$tmp/zero.tap" 2> "$tmp/err"
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
	"$export_py" --kcidb -o "$tmp/$t.json" "$tmp/$t.tap" 2> "$tmp/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q 'no test results in the input (1 programs, none with a harness test)' "$tmp/err" &&
	   [ ! -e "$tmp/$t.json" ]; then
		ok "kcidb.zero_test_run_${t}_is_a_named_failure"
	else
		not_ok "kcidb.zero_test_run_${t}_is_a_named_failure" "exit $rc: $(cat "$tmp/err")"
	fi
done
printf '{"mutants": []}\n' > "$tmp/zero.json.in"
"$export_py" --kcidb "$tmp/zero.json.in" > /dev/null 2> "$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q "no mutants" "$tmp/err"; then ok kcidb.zero_mutant_matrix_is_a_named_failure; else
	not_ok kcidb.zero_mutant_matrix_is_a_named_failure "exit $rc"; fi
"$export_py" --kcidb --origin 'Not-An-Origin' "$tmp/known.tap" > /dev/null 2> "$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -q -- '--origin' "$tmp/err"; then ok kcidb.bad_origin_is_usage_error; else
	not_ok kcidb.bad_origin_is_usage_error "exit $rc"; fi
# The validator can fail: a status KCIDB does not have.
if /usr/bin/python3 - "$top/scripts" "$tmp/lava.json" <<'EOF' 2> "$tmp/err"
import json, sys
sys.path.insert(0, sys.argv[1])
import export
r = json.load(open(sys.argv[2]))
r["tests"][0]["status"] = "OK"
try:
    export.validate(r)
except export.Failed as e:
    print(e, file=sys.stderr)
    sys.exit(0)
sys.exit(1)
EOF
then
	grep -q 'does not validate' "$tmp/err" && ok kcidb.schema_rejects_an_invalid_status ||
		not_ok kcidb.schema_rejects_an_invalid_status "$(cat "$tmp/err")"
else
	not_ok kcidb.schema_rejects_an_invalid_status "the schema accepted status OK"
fi

finish_tap
