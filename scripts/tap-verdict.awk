# SPDX-License-Identifier: GPL-2.0-or-later
#
# The verdict on selftest TAP: the one place that counts results, excuses
# the known kernel bugs of configs/known-failures, enforces the required
# coverage of selftests/requirements and prints the coverage block. make
# check, make kselftest, iopath run and the VM guests use it through
# scripts/selftest-runner.sh, iopath lava verdict (cli/lava_verdict.c) on
# a LAVA job's log. POSIX awk: busybox awk runs it inside the VM guest,
# mawk or gawk on a host.
#
# usage: awk -v kernel="$(uname -r)" [-v tag=NAME] [-v result=WORD]
#            [-v start=SECONDS -v end=SECONDS]
#            [-v program=NAME -v exit_status=N] [-v coverage=1]
#            -f tap-verdict.awk KNOWN_FAILURES REQUIREMENTS FEATURES TAP
#        awk -v list=1 [-v kernel="$(uname -r)"] -f tap-verdict.awk KNOWN_FAILURES
#
# This file is the one reader of the known-failures format. With list=1 it
# only reads KNOWN_FAILURES and prints its entries for the scripts that
# need them (scripts/repro.sh, tests/kernel_bugs.sh, option checks): those
# whose KERNEL-ERE matches kernel (every entry when kernel is empty), one
# line each, "KERNEL-ERE<tab>TEST-ERE<tab>DIAGNOSTIC-ERE<tab>BUG-NAME<tab>
# LINE<tab>REASON" (no field but REASON can hold a tab). Exits 0, or 2 on
# a malformed line.
#
# KNOWN_FAILURES  lines "KERNEL  TEST  DIAGNOSTIC  BUG-NAME  REASON...",
#                 fields separated by two or more blanks or a tab:
#                 KERNEL an ERE on the whole uname -r (anchored: ^...$),
#                 TEST an anchored ERE on "fixture.variant.test",
#                 DIAGNOSTIC an ERE every failed assertion of the test
#                 must match (its "Expected" line and the log lines after
#                 it), BUG-NAME the name of
#                 docs/kernel-bugs/BUG-NAME.md, REASON the rest of the
#                 line; '#' starts a comment line.
# REQUIREMENTS    lines "SEED-PATH TEST FEATURE...": TEST an anchored ERE;
#                 a test it matches that skips on a kernel that has every
#                 FEATURE fails the run. SEED-PATH names the line of the
#                 coverage block the test counts for.
# FEATURES        the iopath_probe output for this kernel: "FEATURE yes"
#                 or "FEATURE no REASON" (/dev/null: nothing is required),
#                 or "probe-failed REASON" when the probe did not run: the
#                 required coverage cannot be judged, and the run fails.
# TAP             run_kselftest.sh's output: a top-level line per test
#                 program, the harness's output re-emitted under "# ".
#                 With program=NAME, the output of that one harness binary
#                 instead, which exited with exit_status=N (124 for a
#                 timeout, 128+N for signal N).
#
# A failed test is excused (a known failure) only when an entry names the
# kernel and the test, and every assertion it failed matches the entry's
# diagnostic, none of them a post-test check (fsck, kernel log), and the
# test was not ended by a timeout or a signal. Its program must have run to
# its "Totals" line and exited 1. The known failure is still printed; the
# TAP line stays "not ok". A listed test that passed on a kernel an entry
# names fails the run: the entry is stale and must be narrowed.
#
# Machine lines, for every consumer (they never read the TAP or the notes):
#   "# IOPATH-CASE: result=pass|fail|skip|known program=P name=N
#    lines=FIRST-LAST[ bug=BUG-NAME]" after each test, LINES its harness
#    output in the TAP input (from its RUN line); known: excused by the
#    entry BUG-NAME, unless its program's line says fail;
#   "# IOPATH-PROGRAM: result=pass|fail|excused|skip program=P[ ended=timeout]"
#    after each program (excused: failed only in known failures);
#    ended=timeout when its time limit ended it: the runner's line says
#    "not ok N ... # TIMEOUT" (its directive, the first '#' of the line),
#    or, with program=NAME, exit_status=124. Words may be added to these
#    lines: a consumer reads the keys it knows and ignores the others.
#   At the end of a TAP cut short (a guest that stopped, a connection
#   lost): "# IOPATH-CASE: result=unfinished ..." for a test that began
#   and has no result, "# IOPATH-PROGRAM: result=unfinished program=P"
#   for a program with no line of its own. Nothing counts them: the
#   caller knows whether the TAP should have ended (iopath vm and lava
#   check for the run's end line).
#   P and N hold only [A-Za-z0-9_.:+-]; any other character reads '?'.
# Prints "# TAG: ..." notes, with coverage=1 the coverage block, then
# "# RESULT: status=pass|fail passed=N failed=N known=N skipped=N
# programs=N programs_failed=N required_missing=N stale_known=N[ seconds=N]"
# where failed counts every reason the run fails (unexcused failed tests,
# required tests skipped, stale entries, programs that failed with no
# failed test, a failed probe). Exits 0 on pass, 1 on fail, 2 on a
# malformed input line.

function note(msg) {
	print "# " tag ": " msg
}

function malformed(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
	bad = 1
	exit 2
}

# word(S): S as one field of a machine line, whatever the input held.
function word(s) {
	gsub(/[^A-Za-z0-9_.:+-]/, "?", s)
	return s == "" ? "?" : s
}

function begin_program(name) {
	prog = name
	prog_open = 1
	pknown = punknown = ptotals = pfail = 0
	begin_test()
}

function begin_test() {
	tfirst = 0
	nassert = 0
	ended_by = ""
	postfail = 0
	delete atext
}

# One line of a harness binary's own output, as it printed it.
function harness_line(line,	msg) {
	if (line ~ /^#  RUN /) {
		begin_test()
		tfirst = FNR
		tname = line
		sub(/^#  RUN +/, "", tname)
		sub(/ .*/, "", tname)
	} else if (line ~ /^# [^ :]+\.[ch]:[0-9]+:[^:]*:/) {
		msg = line
		sub(/^# [^ :]+\.[ch]:[0-9]+:[^:]*:/, "", msg)
		if (msg ~ /^Expected /)
			atext[++nassert] = msg
		else if (nassert)
			atext[nassert] = atext[nassert] " | " msg
		if (msg ~ /^post-test (fsck|kernel log):/)
			postfail = 1
		if (msg ~ /^after-test checks: /)
			after_test(msg)
	} else if (line ~ /: Test terminated by timeout$/) {
		ended_by = "a timeout"
	} else if (line ~ /: Test terminated unexpectedly by signal/) {
		ended_by = "a signal"
	} else if (line ~ /^(not )?ok [0-9]+/) {
		test_result(line)
	} else if (line ~ /^# Totals: /) {
		totals(line)
	}
}

# "after-test checks: fsck ran|not run (WHY), kernel log ran|not run (WHY)"
function after_test(msg) {
	if (msg ~ /fsck ran/)
		fsck_ran++
	else if (msg ~ /fsck not run/)
		fsck_not++
	if (msg ~ /kernel log ran/)
		kmsg_ran++
	else if (msg ~ /kernel log not run/)
		kmsg_not++
}

# The entry that excuses this failure of @name, or 0 (with why_not set).
function excuse(name,	i, j, ok, named) {
	why_not = ""
	for (i = 1; i <= nknown; i++) {
		if (name !~ ktest[i])
			continue
		named = 1
		if (ended_by != "") {
			why_not = "ended by " ended_by
			return 0
		}
		if (postfail) {
			why_not = "a post-test check failed"
			return 0
		}
		if (!nassert) {
			why_not = "no failed assertion to match"
			return 0
		}
		ok = 1
		for (j = 1; j <= nassert; j++)
			if (atext[j] !~ kdiag[i]) {
				ok = 0
				why_not = "a different failure: " atext[j]
			}
		if (ok)
			return i
	}
	if (!named)
		why_not = ""
	return 0
}

function listed(name,	i) {
	for (i = 1; i <= nknown; i++)
		if (name ~ ktest[i])
			return i
	return 0
}

function have_features(r,	n, f, i, have) {
	n = split(rfeat[r], f, " ")
	have = ""
	for (i = 1; i <= n; i++) {
		if (!(f[i] in feature) || feature[f[i]] != "yes")
			return ""
		have = have (i == 1 ? "" : (i == n ? " and " : ", ")) f[i]
	}
	return have
}

# One "ok"/"not ok" line of the harness, without the runner's "# ".
function test_result(line,	notok, skip, name, k, i, reason, have, excused) {
	notok = (line ~ /^not ok/)
	sub(/^(not )?ok [0-9]+ ?/, "", line)
	skip = (line ~ /# *SKIP/)
	name = line
	sub(/ *#.*/, "", name)
	reason = line
	sub(/.*# *SKIP */, "", reason)
	# The harness's SKIP() replaces a failure the test recorded before it
	# (docs/harness-bugs/skip-after-failed-check.md): such a skip is the
	# failure it hides. Remove once every harness keeps the failure.
	if (skip && !notok && nassert) {
		note("skipped after a failed check: " name ": " atext[1])
		notok = 1
		skip = 0
		ended_by = "a skip after the failure"
	}
	if (notok) {
		k = excuse(name)
		excused = k
		if (k) {
			tknown++
			pknown++
			note("known failure on " kernel ": " name ": " kbug[k] ": " kreason[k])
		} else {
			tfail++
			punknown++
			if (why_not != "")
				note("not excused by known-failures: " name ": " why_not)
		}
	} else if (skip) {
		tskip++
	} else {
		tpass++
		k = listed(name)
		if (k) {
			stale++
			note("known failure did not reproduce: " name " passed on " kernel \
			     "; narrow or remove its entry (known-failures line " kline[k] ")")
		}
	}
	printf "# IOPATH-CASE: result=%s program=%s name=%s lines=%d-%d%s\n",
		notok ? (excused ? "known" : "fail") : (skip ? "skip" : "pass"),
		word(prog), word(name), tfirst ? tfirst : FNR, FNR,
		excused ? " bug=" kbug[excused] : ""
	for (i = 1; i <= nreq; i++) {
		if (name !~ rtest[i])
			continue
		seed = rseed[i]
		if (notok && excused)
			seed_known[seed]++
		else if (notok)
			seed_fail[seed]++
		else if (skip) {
			seed_skip[seed]++
			if (reason ~ /absent by kernel/)
				seed_absent[seed]++
			if (seed_why[seed] == "")
				seed_why[seed] = name ": " reason
		} else
			seed_pass[seed]++
		if (skip && !notok && (have = have_features(i)) != "") {
			note("required: " name " skipped on a kernel that has " have ": " reason)
			reqbad++
		}
		break
	}
	begin_test()
}

# The harness's "Totals: pass:N fail:N ..." line.
function totals(line) {
	ptotals = 1
	pfail = line
	sub(/.* fail:/, "", pfail)
	sub(/[^0-9].*/, "", pfail)
	pfail += 0
}

# The program's own result: its runner line, or "# exit=N" in program mode.
function end_program(line, notok,	excused, timeout) {
	progs++
	prog_open = 0
	excused = notok && pknown > 0 && punknown == 0 && ptotals && pfail == pknown &&
		  line ~ /# exit=1$/
	# run_kselftest.sh's "not ok N selftests: S: P # TIMEOUT N seconds"
	timeout = notok && (raw ? exit_status == 124 : line ~ /^not ok [0-9]+ [^#]*# *TIMEOUT/)
	printf "# IOPATH-PROGRAM: result=%s program=%s%s\n",
		!notok ? (line ~ /# *SKIP/ ? "skip" : "pass") : (excused ? "excused" : "fail"),
		word(prog), timeout ? " ended=timeout" : ""
	if (!notok || excused)
		return
	progs_failed++
	failed_progs = failed_progs " " prog
	# Its known failures count as failures; a crash with none, as one.
	tknown -= pknown
	tfail += pknown
	if (pknown + punknown == 0)
		tfail++
}

function coverage_block(	i, s, seen, line) {
	for (i = 1; i <= nreq; i++) {
		s = rseed[i]
		if (s in seen)
			continue
		seen[s] = 1
		if (seed_pass[s] + seed_fail[s] + seed_known[s] > 0)
			line = "ran (" seed_pass[s] + 0 " passed, " seed_fail[s] + 0 " failed" \
			       (seed_known[s] ? ", " seed_known[s] " known" : "") \
			       (seed_skip[s] ? ", " seed_skip[s] " skipped" : "") ")"
		else if (seed_skip[s] > 0 && seed_absent[s] == seed_skip[s])
			line = "absent by kernel (" seed_why[s] ")"
		else if (seed_skip[s] > 0)
			line = "NOT RUN (" seed_skip[s] " skipped; " seed_why[s] ")"
		else
			line = "NOT RUN (no test ran)"
		note("coverage: " s ": " line)
	}
	note("coverage: kernel-log check: " (kmsg_not ? "NOT RUN after " kmsg_not " tests, " : "") \
	     "ran after " kmsg_ran + 0 " tests")
	note("coverage: fsck: " (fsck_not ? "NOT RUN after " fsck_not " tests, " : "") \
	     "ran after " fsck_ran + 0 " tests")
}

BEGIN {
	if (tag == "")
		tag = "iopath"
	if (result == "")
		result = "IOPATH-RESULT"
	raw = (program != "")
	if (raw)
		begin_program(program)
	bad = 0
}

# ere_error(ERE): why ERE is not one that gawk, mawk and busybox awk all
# compile and read alike, or "". An awk that cannot compile an ERE stops
# with a message of its own wording (mawk's does not name the ERE), and
# busybox awk takes some invalid ones and matches nothing; so the syntax
# is checked here, the same in every awk, before anything is compiled.
# Stricter than POSIX where the awks differ: mawk reads {m,n} as text.
function ere_error(re,    i, n, c, prev, depth, j)
{
	n = length(re)
	prev = "start"		# start, open, bar, anchor, atom, quant
	depth = 0
	for (i = 1; i <= n; i++) {
		c = substr(re, i, 1)
		if (c == "\\") {
			if (i == n)
				return "ends in a lone backslash"
			i++
			prev = "atom"
		} else if (c == "[") {
			i++
			if (substr(re, i, 1) == "^")
				i++
			if (substr(re, i, 1) == "]")
				i++
			for (; i <= n && substr(re, i, 1) != "]"; i++) {
				if (substr(re, i, 1) == "\\")
					return "a '\\' inside [...]: gawk and mawk read it as an escape, busybox awk as itself"
				if (substr(re, i, 2) !~ /^\[[:.=]$/)
					continue
				j = index(substr(re, i + 2), substr(re, i + 1, 1) "]")
				if (!j)
					return "'" substr(re, i, 2) "' is not closed"
				i += j + 2
			}
			if (i > n)
				return "a '[' is not closed"
			prev = "atom"
		} else if (c == "(") {
			depth++
			prev = "open"
		} else if (c == ")") {
			if (!depth)
				return "a ')' has no '('"
			if (prev == "open" || prev == "bar")
				return "an empty group or alternative"
			depth--
			prev = "atom"
		} else if (c == "|") {
			if (prev == "start" || prev == "open" || prev == "bar")
				return "an empty alternative"
			prev = "bar"
		} else if (c == "*" || c == "+" || c == "?") {
			if (prev == "quant")
				return "a quantifier repeats a quantifier"
			if (prev != "atom")
				return "'" c "' has nothing to repeat"
			prev = "quant"
		} else if (c == "{" || c == "}") {
			return "'" c "': mawk reads {m,n} as text, gawk as a repetition; write the repetition out, or '\\" c "' for the character"
		} else if (c == "^" || c == "$") {
			prev = "anchor"
		} else {
			prev = "atom"
		}
	}
	if (depth)
		return "a '(' is not closed"
	if (prev == "bar")
		return "an empty alternative"
	return ""
}

FILENAME == ARGV[1] {
	if ($0 ~ /^[ \t]*(#|$)/)
		next
	# Fields are separated by two or more blanks or a tab, so that a
	# diagnostic can hold a single space.
	line = $0
	sub(/^[ \t]+/, "", line)
	sub(/[ \t]+$/, "", line)
	nf = 0
	while (nf < 4 && match(line, /(  +|\t)[ \t]*/)) {
		kf[++nf] = substr(line, 1, RSTART - 1)
		line = substr(line, RSTART + RLENGTH)
	}
	if (nf < 4 || line == "")
		malformed("expected \"KERNEL-ERE  TEST-ERE  DIAGNOSTIC-ERE  BUG-NAME  REASON\" (separated by two spaces or a tab)")
	if (kf[1] !~ /^\^.*\$$/)
		malformed("KERNEL-ERE '" kf[1] "' must match the whole uname -r: ^...$")
	if (kf[2] !~ /^\^.*\$$/)
		malformed("TEST-ERE '" kf[2] "' must match the whole test name: ^...$")
	if (kf[4] !~ /^[a-z0-9][a-z0-9-]*$/)
		malformed("BUG-NAME '" kf[4] "': lower case letters, digits and '-'")
	# A quantifier on a quantifier ('\\.++++') is refused too: gawk's
	# compile time doubles with each one, and 30 of them hang it.
	for (i = 1; i <= 3; i++)
		if ((why = ere_error(kf[i])) != "")
			malformed("ERE '" kf[i] "': " why)
	# Every ERE compiled now, as the list is read: an invalid one stops
	# gawk and mawk here with exit 2, not when a test first fails.
	compiled = ("" ~ kf[1]) + ("" ~ kf[2]) + ("" ~ kf[3])
	if (list) {
		if (kernel == "" || kernel ~ kf[1])
			printf "%s\t%s\t%s\t%s\t%d\t%s\n", kf[1], kf[2], kf[3], kf[4], FNR, line
		next
	}
	if (kernel !~ kf[1])
		next
	nknown++
	ktest[nknown] = kf[2]
	kdiag[nknown] = kf[3]
	kbug[nknown] = kf[4]
	kreason[nknown] = line
	kline[nknown] = FNR
	next
}

FILENAME == ARGV[2] {
	if ($0 ~ /^[ \t]*(#|$)/)
		next
	if (NF < 3)
		malformed("expected \"SEED-PATH TEST-ERE FEATURE...\"")
	nreq++
	rseed[nreq] = $1
	rtest[nreq] = $2
	rfeat[nreq] = ""
	for (i = 3; i <= NF; i++)
		rfeat[nreq] = rfeat[nreq] (i > 3 ? " " : "") $i
	next
}

FILENAME == ARGV[3] {
	if ($1 == "probe-failed") {
		probe_failed = $0
		sub(/^probe-failed */, "", probe_failed)
		probe_failed = probe_failed == "" ? "no reason given" : probe_failed
	} else if (NF >= 2) {
		feature[$1] = $2
	}
	next
}

raw {
	harness_line($0)
	next
}

/^# selftests: / {
	begin_program($NF)
	next
}

/^(not )?ok [0-9]+ / {
	# A program skipped whole has no "# selftests:" line of its own: its
	# name is the one on this line.
	pline = $0
	sub(/ *#.*/, "", pline)
	if (pline ~ /^(not )?ok [0-9]+ selftests: / &&
	    (!prog_open || prog != substr(pline, match(pline, /[^ ]+$/))))
		begin_program(substr(pline, match(pline, /[^ ]+$/)))
	end_program($0, $1 == "not")
	next
}

/^# / {
	harness_line(substr($0, 3))
}

END {
	if (bad)
		exit 2
	if (list)
		exit 0
	if (tfirst)
		printf "# IOPATH-CASE: result=unfinished program=%s name=%s lines=%d-%d\n",
			word(prog), word(tname), tfirst, FNR
	if (!raw && prog_open)
		printf "# IOPATH-PROGRAM: result=unfinished program=%s\n", word(prog)
	if (raw)
		end_program("# exit=" exit_status, exit_status != 0)
	if (progs == 0)
		note("no test program ran")
	if (progs_failed)
		note("failed programs:" failed_progs)
	if (probe_failed != "")
		note("required coverage not judged: iopath_probe failed: " probe_failed)
	if (coverage)
		coverage_block()
	failed = tfail + reqbad + stale + (probe_failed != "")
	status = (progs > 0 && failed == 0) ? "pass" : "fail"
	printf "# %s: status=%s passed=%d failed=%d known=%d skipped=%d programs=%d programs_failed=%d required_missing=%d stale_known=%d",
		result, status, tpass, failed, tknown, tskip, progs, progs_failed, reqbad, stale
	if (end != "")
		printf " seconds=%d", end - start
	printf "\n"
	exit (status == "pass" ? 0 : 1)
}
