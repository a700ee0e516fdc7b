#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iopath compare and iopath plot against the record files in
# tests/fixtures/compare/: expected tables, statistics recomputed here
# independently (python3, no GSL), a synthetic +5% IOPS change found with
# the right sign in both directions, identical-distribution runs found
# unchanged, and every malformed input rejected with one line naming the
# file (and line), exit status 2, nothing on stdout, no crash; the bad
# inputs also under ASan when build-asan/iopath exists next to the build
# directory (make cli SANITIZE=1 BUILD=build-asan) or IOPATH_ASAN names one.
#
# usage: tests/compare.sh BUILD_DIR     (prints TAP)
set -u

build=${1:?usage: compare.sh BUILD_DIR}
iopath=$build/iopath
fix=$(cd "$(dirname "$0")/fixtures/compare" && pwd)
lib=$(cd "$(dirname "$0")/lib" && pwd)
asan=${IOPATH_ASAN:-$(dirname "$build")/build-asan/iopath}
tmp=$(mktemp -d /tmp/iopath-compare-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/lib/tap.sh
. "$lib/tap.sh"

if [ ! -x "$iopath" ]; then
	echo "1..1"
	echo "not ok 1 compare.cli_built # $iopath missing"
	exit 1
fi

# Paths in the output are as given: run from the fixture directory.
cd "$fix" || exit 1

# ---- expected tables out ------------------------------------------------
expect() { # expect NAME EXPECTED_FILE ARGS...
	local name=$1 exp=$2
	shift 2
	if "$iopath" compare "$@" > "$tmp/out" 2> "$tmp/err" && diff -u "expected/$exp" "$tmp/out" > "$tmp/diff"; then
		ok "$name"
	else
		sed 's/^/# /' "$tmp/diff" "$tmp/err"
		not_ok "$name"
	fi
}
expect compare.text.five_percent_iops base-vs-new-5pct.txt base.jsonl new-5pct.jsonl
expect compare.text.same_distribution base-vs-new-same.txt base.jsonl new-same.jsonl
expect compare.text.caveats_listed base-vs-new-caveats.txt base.jsonl new-caveats.jsonl
expect compare.commit.five_percent_iops base-vs-new-5pct.commit base.jsonl new-5pct.jsonl --format commit
expect compare.commit.five_percent_reversed new-5pct-vs-base.commit new-5pct.jsonl base.jsonl --format=commit

# ---- statistics, recomputed independently -------------------------------
if command -v python3 > /dev/null; then
	for pair in "base.jsonl new-5pct.jsonl" "new-5pct.jsonl base.jsonl" "base.jsonl new-same.jsonl" \
		    "base.jsonl new-caveats.jsonl"; do
		set -- $pair
		"$iopath" compare "$1" "$2" --format json > "$tmp/$1-$2.json" 2> "$tmp/err"
	done
	"$iopath" compare base.jsonl new-5pct.jsonl --format json --alpha 0.01 > "$tmp/alpha01.json" 2> "$tmp/err"
	PYTHONPATH=$lib PYTHONDONTWRITEBYTECODE=1 python3 - "$tmp" > "$tmp/py.out" 2>&1 <<'EOF'
import json, math, sys
from tdist import p_two, t_crit
from trimmed import mean, var, yuen, welch_df

tmp = sys.argv[1]

def load(path):
    groups = {}
    for line in open(path):
        if not line.strip(): continue
        r = json.loads(line)
        params = dict(r.get("params", {}))
        # compare pairs ext4 and XFS runs apart: the fs is part of the key
        params.setdefault("fs", ((r.get("env") or {}).get("fs") or {}).get("type") or "none")
        key = (r["bench"], json.dumps(params, sort_keys=True))
        for m in r["metrics"]:
            g = groups.setdefault(key, {}).setdefault(m["name"], {"agg": m["agg"], "better": m["better"], "v": []})
            g["v"].append(m["value"])
    return groups

fails = 0
def close(a, b, what, rel=1e-6):
    global fails
    if a is None or b is None or not math.isclose(a, b, rel_tol=rel, abs_tol=1e-9):
        print("mismatch %s: iopath %r, independent %r" % (what, a, b))
        fails += 1

def check(basef, newf, jf, alpha):
    B, N = load(basef), load(newf)
    doc = json.load(open(jf))
    cmp = doc["comparisons"][0]
    seen = 0
    for g in cmp["groups"]:
        key = (g["bench"], json.dumps(g["params"], sort_keys=True))
        for m in g["metrics"]:
            b, n = B[key][m["name"]], N[key][m["name"]]
            rate = b["agg"] == "hmean"
            yb = [1 / v for v in b["v"]] if rate else b["v"]
            yn = [1 / v for v in n["v"]] if rate else n["v"]
            (mb, vb, hb), (mn, vn, hn) = yuen(yb), yuen(yn)
            disp_b, disp_n = (1 / mb, 1 / mn) if rate else (mb, mn)
            what = "%s %s.%s" % (jf.split("/")[-1], g["bench"], m["name"])
            close(m["base"]["mean"], disp_b, what + " base mean")
            close(m["new"]["mean"], disp_n, what + " new mean")
            close(m["base"]["rsd"], math.sqrt(var(yb)) / mb, what + " base rsd")
            close(m["change"], disp_n / disp_b - 1, what + " change")
            t = (mn - mb) / math.sqrt(vb + vn)
            df = welch_df(vb, hb, vn, hn)
            # iopath gives t the sign of the printed change (1/x flips it for rates)
            close(m["t"], -t if rate else t, what + " t")
            close(m["df"], df, what + " df")
            close(m["p"], p_two(t, df), what + " p", rel=1e-5)
            # Fieller on the tested scale, same critical t as the test.
            tc = t_crit(alpha, df)
            den = mb * mb - tc * tc * vb
            disc = mn * mn * vb + mb * mb * vn - tc * tc * vb * vn
            lo = (mn * mb - tc * math.sqrt(disc)) / den
            hi = (mn * mb + tc * math.sqrt(disc)) / den
            if rate: lo, hi = 1 / hi, 1 / lo
            close(m["ci"][0], lo - 1, what + " ci low", rel=1e-5)
            close(m["ci"][1], hi - 1, what + " ci high", rel=1e-5)
            sig = p_two(t, df) < alpha
            # The interval excludes 0% exactly when the test rejects.
            if sig != (lo > 1 or hi < 1):
                print("CI and test disagree for", what); fails += 1
            up = disp_n > disp_b
            want = "no significant change" if not sig else (
                "improvement" if up == (b["better"] == "higher") else "regression")
            if m["verdict"] != want:
                print("verdict %s: iopath %s, independent %s" % (what, m["verdict"], want)); fails += 1
            seen += 1
    if not seen:
        print("no metrics compared in", jf); fails += 1

check("base.jsonl", "new-5pct.jsonl", tmp + "/base.jsonl-new-5pct.jsonl.json", 0.05)
check("new-5pct.jsonl", "base.jsonl", tmp + "/new-5pct.jsonl-base.jsonl.json", 0.05)
check("base.jsonl", "new-same.jsonl", tmp + "/base.jsonl-new-same.jsonl.json", 0.05)
check("base.jsonl", "new-caveats.jsonl", tmp + "/base.jsonl-new-caveats.jsonl.json", 0.05)
check("base.jsonl", "new-5pct.jsonl", tmp + "/alpha01.json", 0.01)

# Hand-worked Yuen anchor: 1 2 3 4 100 keeps 2 3 4 (mean 3); winsorized
# 2 2 3 4 4 has variance 1, so se^2 = 4 * 1 / (3 * 2).
close(yuen([1, 2, 3, 4, 100])[0], 3.0, "self-test trimmed mean")
close(yuen([1, 2, 3, 4, 100])[1], 2.0 / 3, "self-test yuen se^2")

# Hand-worked anchor, independent of the code above: two reps per side,
# x = 10, 12 vs 14, 16 (arithmetic): t = 4 / sqrt(2/2 + 2/2) = 2.828427,
# df = 2, two-sided p = 1 - 2/sqrt(2)*... = 0.10557 (t table: 2.920 at 0.10).
close(p_two(2 * math.sqrt(2), 2.0), 0.1055728090, "self-test p", rel=1e-7)
close(t_crit(0.05, 2.0), 4.302652730, "self-test t quantile", rel=1e-7)
print("fails", fails)
sys.exit(1 if fails else 0)
EOF
	if [ $? = 0 ]; then
		ok compare.stats.match_independent_yuen_and_fieller
	else
		sed 's/^/# /' "$tmp/py.out"
		not_ok compare.stats.match_independent_yuen_and_fieller
	fi

	# The verdicts the acceptance asks for, read from the JSON.
	verdicts() { # verdicts FILE: "bench.metric verdict change" per line
		python3 -c '
import json, sys
for c in json.load(open(sys.argv[1]))["comparisons"]:
    for g in c["groups"]:
        for m in g["metrics"]:
            print("%s.%s %s %+.4f %+.4f" % (g["bench"], m["name"], m["verdict"].replace(" ", "_"),
                                           m["change"], m["ci"][0]))' "$1"
	}
	v=$(verdicts "$tmp/base.jsonl-new-5pct.jsonl.json")
	if echo "$v" | grep -qE '^uring_randread\.iops improvement \+0\.0[4-6][0-9]* \+0\.0' &&
	   [ "$(echo "$v" | grep -vc no_significant_change)" = 1 ]; then
		ok compare.five_percent_iops_is_significant_improvement
	else
		echo "$v" | sed 's/^/# /'
		not_ok compare.five_percent_iops_is_significant_improvement
	fi
	v=$(verdicts "$tmp/new-5pct.jsonl-base.jsonl.json")
	if echo "$v" | grep -qE '^uring_randread\.iops regression -0\.0[4-6]'; then
		ok compare.five_percent_iops_reversed_is_regression
	else
		echo "$v" | sed 's/^/# /'
		not_ok compare.five_percent_iops_reversed_is_regression
	fi
	v=$(verdicts "$tmp/base.jsonl-new-same.jsonl.json")
	if [ -n "$v" ] && ! echo "$v" | grep -vq ' no_significant_change '; then
		ok compare.same_distribution_no_significant_change
	else
		echo "$v" | sed 's/^/# /'
		not_ok compare.same_distribution_no_significant_change
	fi
else
	for t in stats.match_independent_yuen_and_fieller five_percent_iops_is_significant_improvement \
		 five_percent_iops_reversed_is_regression same_distribution_no_significant_change; do
		skip "compare.$t" "python3 not installed"
	done
fi

# ---- caveats are called out, not silent -------------------------------------
out=$("$iopath" compare base.jsonl new-caveats.jsonl --format commit 2>&1)
check_cmd compare.caveats.untrusted_record_named \
	grep -qF 'untrusted: 2 of 5 new records of uring_randread fs=xfs (new-caveats.jsonl lines 8,9); line 8: cv 3.4% > 2%' <<< "$out"
check_cmd compare.caveats.env_difference_named \
	grep -q 'environment differs (base vs new): fs.mount_opts: "noatime" vs "noatime,lazytime"' <<< "$out"
check_cmd compare.caveats.cmdline_difference_named \
	grep -q 'kernel.cmdline: "root=/dev/vda1 ro" vs "root=/dev/vda1 ro mitigations=off"' <<< "$out"
# BOOT_IMAGE= names the kernel, which differs by design
check_cmd compare.caveats.boot_image_not_a_difference \
	bash -c '! grep -q "environment differs" expected/base-vs-new-5pct.txt && grep -q "BOOT_IMAGE=/vmlinuz-6.18.0-new" new-5pct.jsonl'
check_cmd compare.caveats.unpaired_named \
	grep -q 'unpaired: only in new-caveats.jsonl: falloc_write .*fs=xfs' <<< "$out"

# ---- several NEW files, options ------------------------------------------------
out=$("$iopath" compare base.jsonl new-same.jsonl new-5pct.jsonl 2>/dev/null)
check_cmd compare.several_new_files \
	test "$(grep -c '^new: ' <<< "$out")" = 2
"$iopath" compare new-5pct.jsonl base.jsonl --fail-on-regression > "$tmp/out" 2>&1
rc=$?
check_cmd compare.fail_on_regression_exits_1 test "$rc" = 1 -a -s "$tmp/out"
"$iopath" compare base.jsonl new-5pct.jsonl --fail-on-regression > /dev/null 2>&1
rc=$?
check_cmd compare.fail_on_regression_passes_improvement test "$rc" = 0
check_cmd compare.json_is_valid_json \
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/base.jsonl-new-5pct.jsonl.json"
bad_usage() { # bad_usage NAME ARGS...: exit 2, one line on stderr, nothing on stdout
	local name=$1 rc
	shift
	"$iopath" compare "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ]; then
		ok "compare.bad_usage.$name"
	else
		not_ok "compare.bad_usage.$name (exit $rc)"
	fi
}
bad_usage alpha_zero base.jsonl new-same.jsonl --alpha 0
bad_usage alpha_half base.jsonl new-same.jsonl --alpha=0.5
bad_usage alpha_not_a_number base.jsonl new-same.jsonl --alpha x
bad_usage alpha_without_value base.jsonl new-same.jsonl --alpha
bad_usage unknown_format base.jsonl new-same.jsonl --format html
bad_usage unknown_option base.jsonl new-same.jsonl --bogus
bad_usage one_file base.jsonl
bad_usage no_arguments

# ---- clock domains: instructions (QEMU TCG icount) never against wall time --
jq -c '.env.clock = {domain: "instructions", accel: "tcg-icount"}' base.jsonl > "$tmp/base-icount.jsonl"
jq -c '.env.clock = {domain: "instructions", accel: "tcg-icount"}' new-5pct.jsonl > "$tmp/new-icount.jsonl"
bad_usage clock_domains_never_mix base.jsonl "$tmp/new-icount.jsonl"
check_cmd compare.clock.refusal_names_both_domains \
	grep -q 'base.jsonl is in the "wall" clock domain, .*new-icount.jsonl in "instructions"' "$tmp/err"
{ head -n 1 "$tmp/base-icount.jsonl"; sed -n 2p base.jsonl; } > "$tmp/mixed.jsonl"
"$iopath" compare "$tmp/mixed.jsonl" base.jsonl > "$tmp/out" 2> "$tmp/err"
rc=$?
check_cmd compare.clock.one_file_one_domain \
	test "$rc" = 2 -a ! -s "$tmp/out" -a "$(wc -l < "$tmp/err")" = 1
check_cmd compare.clock.refusal_names_the_line grep -q 'mixed.jsonl:2: clock domain "wall"' "$tmp/err"
"$iopath" compare "$tmp/base-icount.jsonl" "$tmp/new-icount.jsonl" > "$tmp/out" 2> "$tmp/err"
rc=$?
check_cmd compare.clock.instructions_compare_and_say_so \
	test "$rc" = 0 -a "$(grep -c '^clock: instructions' "$tmp/out")" -ge 1
# A seed per boot (iopath vm --icount) differs by design, as boot ids do.
jq -c '.env.kernel.cmdline += " iopath.seed=" + (.rep | tostring)' base.jsonl > "$tmp/seed-a.jsonl"
jq -c '.env.kernel.cmdline += " iopath.seed=f" + (.rep | tostring)' new-same.jsonl > "$tmp/seed-b.jsonl"
"$iopath" compare "$tmp/seed-a.jsonl" "$tmp/seed-b.jsonl" > "$tmp/out" 2> "$tmp/err"
check_cmd compare.caveats.boot_seed_is_not_an_environment_difference \
	test "$(grep -c 'environment differs' "$tmp/out")" = 0

# ---- bad input: one line naming file and line, exit 2, no table ------------
# case file expected-stderr-regex
bad_cases="
truncated.jsonl		truncated\.jsonl:3: truncated line
not-json.jsonl		not-json\.jsonl:2: not JSON
schema2.jsonl		schema2\.jsonl:1: schema 2, expected 1
empty.jsonl		empty\.jsonl: empty file
no-common.jsonl		no benchmark with the same parameters in common
bad-metric.jsonl	bad-metric\.jsonl:4: metric \"lat_p99_ns\": \"better\"
missing.jsonl		missing\.jsonl: No such file or directory
unit-differs.jsonl	unit-differs\.jsonl:[67]: metric \"iops\" of uring_randread in \"(MiB|ops)/s\", but [a-z-]+\.jsonl:6 has
duplicate.jsonl		duplicate\.jsonl:16: duplicate record: falloc_write rep 2 at .* is also line 3
negative-latency.jsonl	negative-latency\.jsonl:1: metric \"lat_p99_ns\": value -651 is impossible for a time in ns
negative-rate.jsonl	negative-rate\.jsonl:4: metric \"ops\": sample 2 \(-[0-9.e+]+\) is impossible for a rate
subnormal-rate.jsonl	subnormal-rate\.jsonl:7: metric \"iops\": value (1e-320|9\.99989e-321) is out of range
huge-value.jsonl	huge-value\.jsonl:7: metric \"iops\": value 1e\+308 is out of range
"
bad_input() { # bad_input BIN TAG
	local bin=$1 tag=$2 file re rc
	while read -r file re; do
		[ -n "$file" ] || continue
		for order in new base; do
			for cmd in "compare" "compare --format json" "plot"; do
				extra=()
				[ "$cmd" = plot ] && extra=(-o "$tmp/bad.svg")
				# shellcheck disable=SC2086
				if [ $order = new ]; then
					"$bin" $cmd base.jsonl "$file" "${extra[@]}" > "$tmp/out" 2> "$tmp/err"
				else
					"$bin" $cmd "$file" base.jsonl "${extra[@]}" > "$tmp/out" 2> "$tmp/err"
				fi
				rc=$?
				if [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
				   grep -qE "$re" "$tmp/err" && [ ! -e "$tmp/bad.svg" ]; then
					ok "$tag.bad_input.$file.${cmd// /_}.as_$order"
				else
					sed 's/^/# /' "$tmp/err" | head -20
					not_ok "$tag.bad_input.$file.${cmd// /_}.as_$order (exit $rc)"
				fi
			done
		done
	done <<< "$bad_cases"
}
bad_input "$iopath" compare
if [ -x "$asan" ]; then
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 bad_input "$asan" asan
	# ASan also on the good paths: tables, JSON, several files, a plot.
	if "$asan" compare base.jsonl new-5pct.jsonl new-caveats.jsonl > /dev/null 2>&1 &&
	   "$asan" compare base.jsonl new-caveats.jsonl --format json > /dev/null 2>&1 &&
	   "$asan" compare base.jsonl new-caveats.jsonl --format commit > /dev/null 2>&1; then
		ok asan.compare.good_inputs_clean
	else
		not_ok asan.compare.good_inputs_clean
	fi
else
	skip asan.bad_input "no ASan build at $asan (make cli SANITIZE=1 BUILD=build-asan)"
fi

# ---- hostile records: quoting and control characters ----------------------
# Records come from other machines. A parameter value holding "'" ended the
# '...' around it in commit's "reproduce:" line, and pasting that line ran
# what followed; keys, the bench, the fs and the mount point were printed
# bare; a newline forged a "Signed-off-by:" line and escape sequences reached
# the terminal in every format. Now: pasting runs exactly the benchmark with
# the record's values, no format prints a control character, and a key
# outside the parameter grammar refuses the record.
python3 - "$fix" "$tmp" <<'PY'
import json, sys
fix, tmp = sys.argv[1:3]
hostile = {"source": "x'; touch " + tmp + "/PWN; echo '",
           "note": "a\nSigned-off-by: Mallory <m@example.org>",
           "title": "\x1b]2;pwned\x07\x1b[2J\u009b31m\x7f"}
for name in ("base", "new-5pct"):
    with open(f"{fix}/{name}.jsonl") as f, open(f"{tmp}/hostile-{name}.jsonl", "w") as o:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            r["params"].update(hostile)
            env = r["env"]
            for k in ("machine", "kernel", "device", "fs"):
                env[k] = env.get(k) or {}
            env["machine"]["cpu_model"] = "CPU\x1b[31m red\u009b0m"
            env["kernel"]["release"] = "6.18\x1b[2J\nSigned-off-by: K <k@example.org>"
            env["device"]["backing"] = "dir"
            env["fs"]["mnt"] = "/mnt/x'$(touch " + tmp + "/PWN2)'"
            o.write(json.dumps(r) + "\n")
PY
hb=$tmp/hostile-base.jsonl hn=$tmp/hostile-new-5pct.jsonl
bad_out=""
for f in text commit json; do
	"$iopath" compare "$hb" "$hn" --format "$f" > "$tmp/hostile.$f" 2> "$tmp/hostile.$f.err" ||
		bad_out="$bad_out $f: exit $?;"
	# any C0 control but the newline, DEL, or C1 in UTF-8
	LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]' "$tmp/hostile.$f" "$tmp/hostile.$f.err" &&
		bad_out="$bad_out $f: a raw control character;"
	grep -q '^Signed-off-by:' "$tmp/hostile.$f" && bad_out="$bad_out $f: a forged line;"
done
if [ -z "$bad_out" ]; then
	ok compare.hostile_records_print_no_control_character_nor_forged_line
else
	not_ok compare.hostile_records_print_no_control_character_nor_forged_line "$bad_out"
fi
# Paste the reproduce line into bash, with iopath a function that lists its arguments.
line=$(grep -m1 '^reproduce: ' "$tmp/hostile.commit")
( cd "$tmp" && iopath() { printf '%s\0' "$@" > "$tmp/argv"; } && eval "${line#reproduce: }" ) 2> "$tmp/eval.err"
if [ -n "$line" ] && [ ! -e "$tmp/PWN" ] && [ ! -e "$tmp/PWN2" ] && [ -s "$tmp/argv" ] &&
   python3 - "$tmp" <<'PY'
import sys
tmp = sys.argv[1]
argv = open(f"{tmp}/argv", "rb").read().decode().split("\0")[:-1]
want = ["--backing", "dir:/mnt/x'$(touch " + tmp + "/PWN2)'", "uring_randread", "bs=4096",
        "source=x'; touch " + tmp + "/PWN; echo '", "note=a\nSigned-off-by: Mallory <m@example.org>",
        "title=\x1b]2;pwned\x07\x1b[2J\u009b31m\x7f"]
missing = [w for w in want if w not in argv]
if missing or argv[:2] != ["bench", "--fs"]:
    print("# missing:", repr(missing), "argv:", repr(argv))
    sys.exit(1)
PY
then
	ok compare.commit_reproduce_line_runs_exactly_the_benchmark
else
	not_ok compare.commit_reproduce_line_runs_exactly_the_benchmark "line: $line" \
		"planted: $(cd "$tmp" && echo PWN*) $(head -3 "$tmp/eval.err")"
fi
python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line); r["params"]["k$(id)"] = "1"; print(json.dumps(r))' "$fix/new-5pct.jsonl" > "$tmp/badkey.jsonl"
"$iopath" compare "$fix/base.jsonl" "$tmp/badkey.jsonl" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "badkey.jsonl:1: params: 'k\$(id)' is not a parameter name" "$tmp/err" &&
   [ ! -s "$tmp/out" ]; then
	ok compare.record_with_key_outside_the_grammar_refused
else
	not_ok compare.record_with_key_outside_the_grammar_refused "exit $rc" "$(head -2 "$tmp/err")"
fi

# ---- sides that compare nothing ---------------------------------------------
# "compare A A" compared a file with itself and found no change, and a NEW
# side whose records have "metrics": [] gave an empty table and exit 0.
refused_cmp() { # refused_cmp NAME REGEX ARGS...
	local name=$1 re=$2 rc
	shift 2
	"$iopath" compare "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -qE -- "$re" "$tmp/err" && [ ! -s "$tmp/out" ]; then
		ok "$name"
	else
		not_ok "$name (exit $rc)" "$(head -2 "$tmp/err")"
	fi
}
refused_cmp compare.same_file_on_both_sides_refused 'base.jsonl and \./base.jsonl are the same file' \
	base.jsonl ./base.jsonl
python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line); r["metrics"] = []; print(json.dumps(r))' new-5pct.jsonl > "$tmp/no-metrics.jsonl"
refused_cmp compare.new_side_without_metrics_refused 'no-metrics.jsonl have no metric in common to compare' \
	base.jsonl "$tmp/no-metrics.jsonl"

# ---- figures that are not finite numbers carry no verdict -------------------
# 1e308 ops/s in 4 of 5 base repetitions gave "regression" over an interval
# of [-inf, +inf], and --fail-on-regression exited 1. Values within range
# still overflowed the interval's products: times of 4e149 ns gave a null p
# counted as "no significant change". Either is refused with the metric named.
jq -c 'if .bench == "uring_randread" and .rep <= 3 then
	.metrics |= map(if .name == "iops" then .value = 1e308 | .samples = [1e308] else . end)
	else . end' base.jsonl > "$tmp/huge-rate.jsonl"
refused_cmp compare.huge_rate_gives_no_verdict 'huge-rate\.jsonl:[0-9]+: metric "iops"' \
	"$tmp/huge-rate.jsonl" new-5pct.jsonl --fail-on-regression
for side in base new; do
	shift=0
	[ "$side" = new ] && shift=0.8
	src=base.jsonl
	[ "$side" = new ] && src=new-5pct.jsonl
	jq -c --argjson s "$shift" 'if .bench == "uring_randread" then
		.metrics |= map(if .name == "cpu_sys_ns_per_op" then
			.value = 4e149 * (1 + $s + .value % 7 / 10) | .samples = [.value] else . end)
		else . end' "$src" > "$tmp/overflow-$side.jsonl"
done
for f in text json commit; do
	refused_cmp "compare.statistics_not_finite_refused.$f" \
		'overflow-new\.jsonl: uring_randread\.cpu_sys_ns_per_op \(.*\): .* not (finite|a number): no verdict' \
		"$tmp/overflow-base.jsonl" "$tmp/overflow-new.jsonl" --format "$f" --fail-on-regression
done

# ---- one boot, one kernel -----------------------------------------------------
# Boot ids shared by a base of 6.18.0-base and a new side of 6.18.0-new were
# compared without a word: one boot cannot have run two kernels.
jq -c '.env.kernel.boot_id = "0b5e7a1c-0000-4000-8000-00000000000\(.rep)"' base.jsonl > "$tmp/boots-base.jsonl"
jq -c '.env.kernel.boot_id = "0b5e7a1c-0000-4000-8000-00000000000\(.rep)"' new-5pct.jsonl > "$tmp/boots-new.jsonl"
for f in text json; do
	refused_cmp "compare.one_boot_two_kernels_refused.$f" \
		'boots-new\.jsonl:1: boot 0b5e7a1c-0000-4000-8000-000000000000 ran kernel "6\.18\.0-new", but .*boots-base\.jsonl:1 has it run "6\.18\.0-base"' \
		"$tmp/boots-base.jsonl" "$tmp/boots-new.jsonl" --format "$f"
done
"$iopath" plot "$tmp/boots-base.jsonl" "$tmp/boots-new.jsonl" -o "$tmp/boots.svg" > "$tmp/out" 2> "$tmp/err"
rc=$?
check_cmd plot.one_boot_two_kernels_refused \
	test "$rc" = 2 -a ! -e "$tmp/boots.svg" -a "$(wc -l < "$tmp/err")" = 1
# the same boot on both sides of one kernel (a sysctl A/B) compares
jq -c '.rep += 10' "$tmp/boots-base.jsonl" > "$tmp/boots-base2.jsonl"
"$iopath" compare "$tmp/boots-base.jsonl" "$tmp/boots-base2.jsonl" > /dev/null 2>&1
check_cmd compare.one_boot_one_kernel_compares test "$?" = 0

# ---- inputs that are not regular files: refused at once, never read --------
mkfifo "$tmp/fifo"
for input in "$tmp/fifo" /dev/zero; do
	for cmd in compare plot; do
		for order in base new; do
			extra=()
			[ "$cmd" = plot ] && extra=(-o "$tmp/x.svg")
			if [ $order = base ]; then
				timeout 10 "$iopath" "$cmd" "$input" base.jsonl "${extra[@]}" > "$tmp/out" 2> "$tmp/err"
			else
				timeout 10 "$iopath" "$cmd" base.jsonl "$input" "${extra[@]}" > "$tmp/out" 2> "$tmp/err"
			fi
			rc=$?
			if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
			   grep -q "$input: not a regular file" "$tmp/err" && [ ! -e "$tmp/x.svg" ]; then
				ok "$cmd.refuses_non_regular.$(basename "$input").as_$order"
			else
				sed 's/^/# /' "$tmp/err" | head -5
				not_ok "$cmd.refuses_non_regular.$(basename "$input").as_$order (exit $rc)"
			fi
		done
	done
done

# ---- a 200 KB kernel command line is normalised in linear time --------------
python3 - "$tmp" <<'EOF'
import json, sys
tmp = sys.argv[1]
for name in ("base", "new"):
    with open("base.jsonl") as f, open("%s/long-%s.jsonl" % (tmp, name), "w") as out:
        for line in f:
            r = json.loads(line)
            r["env"]["kernel"]["cmdline"] = " ".join("opt%d=%s" % (i, name) for i in range(20000))
            out.write(json.dumps(r) + "\n")
EOF
start=$(date +%s%N)
"$iopath" compare "$tmp/long-base.jsonl" "$tmp/long-new.jsonl" > /dev/null 2> "$tmp/err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
# strcat() in a loop took 5.8 s for this; appending at the end takes milliseconds
if [ "$rc" = 0 ] && [ "$ms" -lt 2000 ]; then
	ok "compare.long_cmdline_linear (${ms} ms)"
else
	not_ok "compare.long_cmdline_linear (exit $rc, ${ms} ms)"
fi

# ---- plot -------------------------------------------------------------------
if command -v gnuplot > /dev/null; then
	if "$iopath" plot base.jsonl new-5pct.jsonl -o "$tmp/p.svg" --metric uring_randread.iops 2> "$tmp/err" &&
	   grep -q '<svg' "$tmp/p.svg" && grep -q 'new-5pct.jsonl' "$tmp/p.svg"; then
		ok plot.svg_written
	else
		sed 's/^/# /' "$tmp/err"
		not_ok plot.svg_written
	fi
	if "$iopath" plot base.jsonl new-5pct.jsonl -o "$tmp/p.png" --where fs=xfs 2> "$tmp/err" &&
	   [ "$(head -c 8 "$tmp/p.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
	   grep -q 'uring_randread' "$tmp/err"; then
		ok plot.png_written_where_selects
	else
		sed 's/^/# /' "$tmp/err"
		not_ok plot.png_written_where_selects
	fi
	"$iopath" plot base.jsonl new-5pct.jsonl -o "$tmp/p.svg" --metric no_such_metric > /dev/null 2>&1
	rc=$?
	check_cmd plot.unknown_metric_fails_and_keeps_output \
		test "$rc" = 2 -a -s "$tmp/p.svg" -a "$(find "$tmp" -maxdepth 1 -name '*.tmp.*' | wc -l)" = 0
	# gnuplot falls back to stdout when it cannot open its output
	"$iopath" plot base.jsonl new-5pct.jsonl -o "$tmp/no/such/dir/p.svg" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	check_cmd plot.unwritable_output_fails_with_nothing_on_stdout \
		test "$rc" = 2 -a ! -s "$tmp/out" -a "$(wc -l < "$tmp/err")" = 1
	# a symlink at OUT (planted in a shared directory) is refused, not followed
	echo secret > "$tmp/victim"
	ln -s "$tmp/victim" "$tmp/link.svg"
	"$iopath" plot base.jsonl new-5pct.jsonl -o "$tmp/link.svg" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	check_cmd plot.symlink_output_refused \
		test "$rc" = 2 -a "$(cat "$tmp/victim")" = secret -a "$(wc -l < "$tmp/err")" = 1
	"$iopath" plot base.jsonl new-5pct.jsonl -o "$tmp" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	check_cmd plot.directory_output_refused test "$rc" = 2
	# Parameter values and releases from records reached the terminal raw in
	# plot's messages (a newline forging a line, ESC sequences): escaped as
	# compare escapes them, and kept out of the picture too (gnuplot's SVG
	# indents with tabs).
	for side in base new-5pct; do
		jq -c 'if .bench == "uring_randread" then ., (.params.note = "b\u001b[2J" | .rep += 10)
		       else . end' "$tmp/hostile-$side.jsonl" > "$tmp/hostile2-$side.jsonl"
	done
	"$iopath" plot "$tmp/hostile2-base.jsonl" "$tmp/hostile2-new-5pct.jsonl" -o "$tmp/hostile.svg" \
		--metric iops > "$tmp/out" 2> "$tmp/err"
	rc=$?
	"$iopath" plot "$tmp/hostile2-base.jsonl" "$tmp/hostile2-new-5pct.jsonl" -o "$tmp/hostile.svg" \
		--metric "$(printf 'x\033[2J\nSigned-off-by: y')" >> "$tmp/out" 2>> "$tmp/err"
	if [ "$rc" = 0 ] && grep -qF 'note=a\x0aSigned-off-by' "$tmp/err" && grep -qF '6.18\x1b[2J\x0aSigned-off-by' "$tmp/hostile.svg" &&
	   ! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]' "$tmp/err" &&
	   ! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]' "$tmp/hostile.svg" &&
	   ! grep -q '^Signed-off-by' "$tmp/err"; then
		ok plot.hostile_records_print_no_control_character
	else
		sed 's/^/# /' "$tmp/err" | cat -v | head -8
		not_ok "plot.hostile_records_print_no_control_character (exit $rc)"
	fi
	# SIGTERM while drawing (or after) leaves no temporary file
	left=0
	for delay in 0.02 0.05 0.1; do
		"$iopath" plot base.jsonl new-5pct.jsonl -o "$tmp/term.svg" > /dev/null 2>&1 &
		sleep "$delay"
		kill -TERM $! 2> /dev/null
		wait $!
		left=$((left + $(find "$tmp" -maxdepth 1 -name 'term.svg.tmp.*' | wc -l)))
	done
	check_cmd plot.sigterm_leaves_no_temp_file test "$left" = 0
else
	skip plot.svg_written "gnuplot not installed"
	skip plot.png_written_where_selects "gnuplot not installed"
	skip plot.unknown_metric_fails_and_keeps_output "gnuplot not installed"
fi
"$iopath" plot base.jsonl new-5pct.jsonl -o "$tmp/p.pdf" > /dev/null 2>&1
rc=$?
check_cmd plot.rejects_unknown_format test "$rc" = 2 -a ! -e "$tmp/p.pdf"

# ---- iopath records check: the records of one boot of iopath ab -----------

# One boot per pair and side, read_vs_readv's records (base.jsonl): in pairs
# 2 and 4 readv_ns sits in a mode 0.45% dearer on both sides (what a seed
# decides in the guest), and B is FACTOR dearer than A.
mkpaired() { # SIDE FACTOR PAIR...
	local side=$1 f=$2 i
	shift 2
	for i in "$@"; do
		jq -c --arg side "$side" --argjson f "$f" --argjson i "$i" '
			select(.bench == "read_vs_readv")
			| ((if $i % 2 == 0 then 1.0045 else 1 end) * 1000 * $f * (1 + .rep * 0.00001)) as $v
			| .time = "2026-12-02T0\($i):00:0\(.rep)Z"
			| .env.kernel.boot_id = ("0000000\($i)-0000-0000-0000-00000000000" + (if $side == "A" then "a" else "b" end))
			| .env.kernel.cmdline += " iopath.seed=5eed\($i)"
			| .env.kernel.image_sha256 = ("\($side)" * 64 | ascii_downcase)
			| .metrics |= map(if .name == "readv_ns" then .value = $v else . end)
			| .run.main_metric = "readv_ns"' base.jsonl
	done
}

mkpaired A 1 1 2 3 4 > "$tmp/pa.jsonl"
mkpaired A 1 1 > "$tmp/boot1.jsonl"
mkpaired A 1 2 > "$tmp/boot2.jsonl"
sha_a=$(printf 'a%.0s' $(seq 64))
rcheck() { # NAME EXPECTED_RC ERR_REGEX ARGS...: iopath records ARGS
	local name=$1 want=$2 re=$3 good=0
	shift 3
	"$iopath" records "$@" > "$tmp/rc.out" 2> "$tmp/rc.err"
	rc=$?
	if [ "$want" = 0 ]; then
		[ ! -s "$tmp/rc.err" ] && good=1
	elif [ "$(wc -l < "$tmp/rc.err")" = 1 ] && grep -qE -e "$re" "$tmp/rc.err"; then
		good=1
	fi
	if [ "$rc" = "$want" ] && [ ! -s "$tmp/rc.out" ] && [ "$good" = 1 ]; then
		ok "records.check.$name"
	else
		not_ok "records.check.$name (exit $rc)" "$(head -n 2 "$tmp/rc.err")"
	fi
}
rcheck one_boot_passes 0 '' check --image-sha256 "$sha_a" --domain wall --seen "$tmp/boot2.jsonl" "$tmp/boot1.jsonl"
rcheck another_image 2 'boot1\.jsonl:1: a record from another kernel image' \
	check --image-sha256 "$(printf 'b%.0s' $(seq 64))" --domain wall "$tmp/boot1.jsonl"
rcheck another_domain 2 'boot1\.jsonl:1: records in the "wall" clock domain, the run is in "instructions"' \
	check --image-sha256 "$sha_a" --domain instructions "$tmp/boot1.jsonl"
rcheck two_boots 2 'pa\.jsonl:6: not one boot id' check --image-sha256 "$sha_a" --domain wall "$tmp/pa.jsonl"
rcheck boot_seen_before 2 'boot id 00000001-.* seen before \(.*boot1\.jsonl:1\)' \
	check --image-sha256 "$sha_a" --domain wall --seen "$tmp/boot2.jsonl" --seen "$tmp/boot1.jsonl" "$tmp/boot1.jsonl"
sed 's/"value":[0-9.e+]*/"value":1e999/' "$tmp/boot1.jsonl" > "$tmp/inf.jsonl"
rcheck value_not_finite 2 'inf\.jsonl:1: ' check --image-sha256 "$sha_a" --domain wall "$tmp/inf.jsonl"
jq -c 'del(.env.kernel.boot_id)' "$tmp/boot1.jsonl" > "$tmp/noid.jsonl"
rcheck no_boot_id 2 'noid\.jsonl:1: no env.kernel.boot_id' check --image-sha256 "$sha_a" --domain wall "$tmp/noid.jsonl"
rcheck bad_sha_option 2 "--image-sha256 'x\\\\x0ay'" check --image-sha256 $'x\ny' --domain wall "$tmp/boot1.jsonl"
rcheck fifo_refused 2 'records: ' check --image-sha256 "$sha_a" --domain wall /dev/zero
rcheck no_command 2 'no command'

# ---- boots paired by seed (iopath ab) -------------------------------------

# mkpaired's boots: B 0.2% dearer than A, the new file listing its boots in
# another order.
metric_json() { # FILE: readv_ns of compare's JSON, as "pairing|verdict|mde"
	jq -r '.comparisons[0].groups[0].metrics[] | select(.name == "readv_ns") | "\(.pairing)|\(.verdict)|\(.mde)"' "$1"
}
mkpaired B 1.002 2 1 4 3 > "$tmp/pb.jsonl"
jq -c '.env.kernel.cmdline |= sub(" iopath.seed=[0-9a-f]*"; "")' "$tmp/pa.jsonl" > "$tmp/ua.jsonl"
jq -c '.env.kernel.cmdline |= sub(" iopath.seed=[0-9a-f]*"; "")' "$tmp/pb.jsonl" > "$tmp/ub.jsonl"
"$iopath" compare "$tmp/pa.jsonl" "$tmp/pb.jsonl" --format json > "$tmp/paired.json" 2> "$tmp/err"
"$iopath" compare "$tmp/ua.jsonl" "$tmp/ub.jsonl" --format json > "$tmp/unpaired.json" 2>> "$tmp/err"
IFS='|' read -r pairing verdict mde <<< "$(metric_json "$tmp/paired.json")"
check_cmd compare.pairs_by_seed.the_pair_is_the_unit \
	awk -v p="$pairing" -v v="$verdict" -v m="$mde" 'BEGIN { exit !(p == "seed" && v == "regression" && m < 0.0005) }'
IFS='|' read -r pairing verdict mde <<< "$(metric_json "$tmp/unpaired.json")"
check_cmd compare.pairs_by_seed.unpaired_the_mode_hides_the_change \
	awk -v p="$pairing" -v v="$verdict" -v m="$mde" 'BEGIN { exit !(p == "none" && v == "no significant change" && m > 0.002) }'
jq -c 'if .env.kernel.boot_id == "00000003-0000-0000-0000-00000000000b" then .env.kernel.cmdline += "0" else . end' \
	"$tmp/pb.jsonl" > "$tmp/pb-other.jsonl"
"$iopath" compare "$tmp/pa.jsonl" "$tmp/pb-other.jsonl" --format json > "$tmp/other.json" 2>> "$tmp/err"
check_cmd compare.pairs_by_seed.only_one_to_one test "$(metric_json "$tmp/other.json" | cut -d'|' -f1)" = none
"$iopath" compare "$tmp/pa.jsonl" "$tmp/pb.jsonl" > "$tmp/paired.txt" 2>> "$tmp/err"
check_cmd compare.pairs_by_seed.report_shows_each_boots_median \
	bash -c 'grep -q "paired by seed" "$1" && grep -qE "^  base readv_ns +1000 +1005 +1000 +1005$" "$1" &&
		grep -qE "^  new  readv_ns +1002 +1007 +1002 +1007$" "$1"' _ "$tmp/paired.txt"

# ---- --format verdict and ci, and the files of one invocation --------------

"$iopath" compare "$tmp/pa.jsonl" "$tmp/pb.jsonl" --format verdict > "$tmp/verdict" 2>> "$tmp/err"
check_cmd compare.verdict.one_line_to_three_decimals \
	grep -qxE 'iopath ab: read_vs_readv readv_ns: \+0\.2[0-9]{2}% \[\+0\.[0-9]{3}%, \+0\.[0-9]{3}%\], regression \(could have seen >= 0\.[0-9]{3}%; wall time, 4 boots a side, paired\)' "$tmp/verdict"
rm -f "$tmp/o.json" "$tmp/o.verdict"
"$iopath" compare base.jsonl new-5pct.jsonl --json "$tmp/o.json" --verdict "$tmp/o.verdict" > "$tmp/o.txt" 2>> "$tmp/err"
rc=$?
[ "$rc" = 0 ] &&
	cmp -s "$tmp/o.json" <("$iopath" compare base.jsonl new-5pct.jsonl --format json) &&
	cmp -s "$tmp/o.verdict" <("$iopath" compare base.jsonl new-5pct.jsonl --format verdict) &&
	cmp -s "$tmp/o.txt" expected/base-vs-new-5pct.txt &&
	[ "$(stat -c %a "$tmp/o.json")" = "$(printf '%o' $((0644 & ~0$(umask))))" ]
check $? compare.outputs.text_json_and_verdict_in_one_run
bad_out() { # NAME ARGS...: exit 2, one line, no file made
	local name=$1
	shift
	"$iopath" compare base.jsonl new-5pct.jsonl "$@" > "$tmp/bo.out" 2> "$tmp/bo.err"
	rc=$?
	check_cmd "compare.outputs.$name" test "$rc" = 2 -a "$(wc -l < "$tmp/bo.err")" = 1 -a ! -s "$tmp/bo.out"
}
echo secret > "$tmp/victim.json"
ln -s "$tmp/victim.json" "$tmp/link.json"
bad_out symlink_refused --json "$tmp/link.json"
[ "$(cat "$tmp/victim.json")" = secret ] && [ -L "$tmp/link.json" ]
check $? compare.outputs.symlink_not_followed
cp new-5pct.jsonl "$tmp/input.jsonl"
"$iopath" compare base.jsonl "$tmp/input.jsonl" --verdict "$tmp/input.jsonl" > /dev/null 2> "$tmp/bo.err"
check_cmd compare.outputs.input_never_replaced \
	test $? = 2 -a "$(wc -l < "$tmp/bo.err")" = 1 -a "$(md5sum < "$tmp/input.jsonl")" = "$(md5sum < new-5pct.jsonl)"
bad_out no_directory --json "$tmp/nodir/x.json"
bad_out directory_refused --verdict "$tmp"
bad_out ci_needs_target --format ci
bad_out target_needs_ci --target-ci 1
bad_out target_not_a_number --format ci --target-ci x
"$iopath" compare "$tmp/pa.jsonl" "$tmp/pb.jsonl" --format ci --target-ci 1 > "$tmp/ci1" 2>> "$tmp/err"
"$iopath" compare "$tmp/pa.jsonl" "$tmp/pb.jsonl" --format ci --target-ci 0.00001 > "$tmp/ci2" 2>> "$tmp/err"
check_cmd compare.ci.one_machine_line_reached_or_not \
	bash -c 'grep -qxE "# IOPATH-CI: reached=yes halfwidth=[0-9.e-]+ target=1" "$1" &&
		grep -qxE "# IOPATH-CI: reached=no halfwidth=[0-9.e-]+ target=1e-05" "$2"' _ "$tmp/ci1" "$tmp/ci2"

finish_tap
