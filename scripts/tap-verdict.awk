# SPDX-License-Identifier: GPL-2.0-or-later
#
# The verdict on selftest TAP, with the known kernel bugs of
# configs/known-failures taken into account. POSIX awk: busybox awk runs it
# inside the VM guest, mawk or gawk on a host.
#
# usage: awk -v kernel="$(uname -r)" [-v tag=NAME] [-v result=WORD]
#            [-v start=SECONDS -v end=SECONDS]
#            [-v program=NAME -v exit_status=N]
#            -f tap-verdict.awk KNOWN_FAILURES REQUIRED TAP
#
# KNOWN_FAILURES  lines "KERNEL TEST REASON...": KERNEL an ERE on uname -r,
#                 TEST an ERE on "fixture.variant.test", REASON the rest of
#                 the line; '#' starts a comment line.
# REQUIRED        one ERE per line: tests that must pass, not skip, on this
#                 run (/dev/null for none).
# TAP             run_kselftest.sh's output: a top-level line per test
#                 program, the harness's results re-emitted under "# ".
#                 With program=NAME, the output of that one harness binary
#                 instead, which exited with exit_status=N (124 for a
#                 timeout, 128+N for signal N).
#
# A test program that failed is excused only when it ran to its "Totals"
# line, exited 1 (a failed test, not a crash or a timeout), and every test
# it failed is a known failure on this kernel. The known failure is still
# printed; the test's TAP line stays "not ok". A known failure that passed
# on a kernel it names fails the run too: the entry is stale and must be
# narrowed, or it would hide the bug's return.
#
# Prints "# TAG: ..." notes, then "# RESULT: status=pass|fail passed=N
# failed=N known=N skipped=N programs=N programs_failed=N
# required_missing=N stale_known=N[ seconds=N]"; exits 0 on pass, 1 on fail,
# 2 on a malformed known-failures line.

function note(msg) {
	print "# " tag ": " msg
}

function known_reason(name,	i) {
	for (i = 1; i <= nknown; i++)
		if (name ~ ktest[i])
			return i
	return 0
}

function begin_program(name) {
	prog = name
	pknown = punknown = ptotals = pfail = 0
}

# One "ok"/"not ok" line of the harness, without the runner's "# ".
function test_result(line,	notok, skip, name, k, i, reason) {
	notok = (line ~ /^not ok/)
	sub(/^(not )?ok [0-9]+ ?/, "", line)
	skip = (line ~ /# *SKIP/)
	name = line
	sub(/ *#.*/, "", name)
	k = known_reason(name)
	if (notok && k) {
		tknown++
		pknown++
		note("known failure on " kernel ": " name ": " kreason[k])
	} else if (notok) {
		tfail++
		punknown++
	} else if (skip) {
		tskip++
	} else {
		tpass++
		if (k) {
			stale++
			note("known failure did not reproduce: " name " passed on " kernel \
			     "; narrow or remove its entry (known-failures line " kline[k] ")")
		}
	}
	for (i = 1; i <= nreq; i++) {
		if (name !~ req[i])
			continue
		reqseen[i]++
		if (notok || !skip)
			continue
		reason = line
		sub(/.*# *SKIP */, "", reason)
		note("required test skipped: " name ": " reason)
		reqbad++
	}
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
function end_program(line, notok,	excused) {
	progs++
	if (!notok)
		return
	excused = pknown > 0 && punknown == 0 && ptotals && pfail == pknown &&
		  line ~ /# exit=1$/
	if (excused) {
		progs_known++
		return
	}
	progs_failed++
	failed_progs = failed_progs " " prog
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

FILENAME == ARGV[1] {
	if ($0 ~ /^[ \t]*(#|$)/)
		next
	if (NF < 3) {
		printf "%s:%d: expected \"KERNEL-ERE TEST-ERE REASON\"\n", FILENAME, FNR > "/dev/stderr"
		bad = 1
		exit 2
	}
	if (kernel !~ $1)
		next
	nknown++
	ktest[nknown] = $2
	reason = $0
	sub(/^[ \t]*[^ \t]+[ \t]+[^ \t]+[ \t]+/, "", reason)
	kreason[nknown] = reason
	kline[nknown] = FNR
	next
}

FILENAME == ARGV[2] {
	if ($0 != "")
		req[++nreq] = $0
	next
}

raw && /^(not )?ok [0-9]+/ {
	test_result($0)
	next
}

raw && /^# Totals: / {
	totals($0)
	next
}

raw {
	next
}

/^# selftests: / {
	begin_program($NF)
	next
}

/^(not )?ok [0-9]+ / {
	end_program($0, $1 == "not")
	next
}

/^# # Totals: / {
	totals($0)
	next
}

/^# (not )?ok [0-9]+/ {
	test_result(substr($0, 3))
}

END {
	if (bad)
		exit 2
	if (raw)
		end_program("# exit=" exit_status, exit_status != 0)
	# A required test filtered out of this run is not enforced.
	for (i = 1; i <= nreq; i++)
		if (!reqseen[i])
			note("no test matching " req[i] " ran")
	if (progs == 0)
		note("no test program ran")
	if (progs_failed)
		note("failed programs:" failed_progs)
	status = (progs > 0 && progs_failed == 0 && reqbad == 0 && stale == 0) ? "pass" : "fail"
	printf "# %s: status=%s passed=%d failed=%d known=%d skipped=%d programs=%d programs_failed=%d required_missing=%d stale_known=%d",
		result, status, tpass, tfail, tknown, tskip, progs, progs_failed, reqbad, stale
	if (end != "")
		printf " seconds=%d", end - start
	printf "\n"
	exit (status == "pass" ? 0 : 1)
}
