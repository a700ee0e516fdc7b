/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The verdict on selftest TAP: the one place that counts results, excuses
 * the known kernel bugs of configs/known-failures, enforces the required
 * coverage of selftests/requirements and writes the machine lines every
 * consumer reads (lib/verdict.c parses them back). make check, make
 * kselftest, iopath run, the VM and LAVA guests (iopath_verdict, the
 * static helper of the kselftest collection), iopath export, lava verdict
 * and mutant results all judge through it.
 *
 * Inputs:
 * KNOWN_FAILURES  lines "KERNEL  TEST  DIAGNOSTIC  BUG-NAME  REASON...",
 *                 fields separated by two or more blanks or a tab; '#'
 *                 starts a comment line. KERNEL says where the bug lives:
 *                 an ERE on the whole uname -r (^...$: those releases
 *                 only), or releases and ranges compared as versions
 *                 (lib/tap_known.c); TEST an anchored ERE on
 *                 "fixture.variant.test"; DIAGNOSTIC an ERE every failed
 *                 assertion of the test must match (its "Expected" line
 *                 and the log lines after it, joined by " | "); BUG-NAME
 *                 names docs/kernel-bugs/BUG-NAME.md.
 * REQUIREMENTS    lines "SEED-PATH TEST-ERE FEATURE...": a test TEST-ERE
 *                 matches that skips on a kernel that has every FEATURE
 *                 fails the run; SEED-PATH names its coverage line.
 * FEATURES        iopath_probe's output, "FEATURE yes" or "FEATURE no
 *                 WHY", or "probe-failed WHY": the coverage cannot be
 *                 judged and the run fails.
 * TAP             run_kselftest.sh's output (a top-level line per
 *                 program, the harness's output under "# "), or with
 *                 opts.program the output of that one harness binary,
 *                 which exited with opts.exit_status (124 a timeout).
 *
 * A failed test is excused (a known failure) only when an entry covers
 * the kernel and names the test, every assertion it failed matches the
 * entry's diagnostic, none of them a post-test check (fsck, kernel log),
 * and no timeout or signal ended it; its program must have run to its
 * Totals line and exited 1. A listed test that passes on a kernel an
 * entry covers fails the run (the entry is stale). A kernel past the
 * release that fixes the bug on its stable line is not covered: a failure
 * there is a regression, named as one.
 *
 * Output, in order: "# TAG: ..." notes for people and the machine lines
 *   "# IOPATH-CASE: result=pass|fail|skip|known|unfinished program=P
 *    name=N lines=FIRST-LAST[ bug=BUG-NAME]"
 *   "# IOPATH-PROGRAM: result=pass|fail|excused|skip|unfinished
 *    program=P[ ended=timeout]"
 *   "# WORD: status=pass|fail passed=N failed=N known=N skipped=N
 *    programs=N programs_failed=N required_missing=N stale_known=N[
 *    seconds=N]" (WORD: opts.result, "IOPATH-RESULT" by default)
 * P and N hold only [A-Za-z0-9_.:+-]; any other byte reads '?'. A
 * consumer reads the keys it knows and ignores others (verdict.h).
 */
#ifndef IOPATH_TAP_H
#define IOPATH_TAP_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "verdict.h"

/* A kernel version: up to four numbers ("6.12.118", "6.1.0-57"). */
struct iop_kver {
	unsigned int c[4];
	unsigned int n;
};

/* One release ("6.12.118") or range ("6.12.117..", "6.1.176..6.1.190"). */
struct iop_kf_span {
	struct iop_kver first, fix;
	bool range, has_fix;
};

struct iop_kf_entry {
	char *kernel, *test, *diag, *bug, *reason;
	unsigned long line;
	bool kernel_is_ere;
	regex_t kernel_re, test_re, diag_re;
	struct iop_kf_span *spans;
	size_t nspans;
};

struct iop_kf {
	struct iop_kf_entry *e;
	size_t n, cap;
};

/* Where a kernel stands for an entry. */
enum iop_kf_where {
	IOP_KF_NONE,		/* not on any of its releases or stable lines */
	IOP_KF_OBSERVED,	/* a release it names (or that its ERE matches) */
	IOP_KF_INSIDE,		/* inside a range, not itself observed */
	IOP_KF_BEFORE,		/* on a range's stable line, before it was seen */
	IOP_KF_FIXED,		/* on a range's stable line, at or past its fix */
};

void iop_kf_init(struct iop_kf *kf);
void iop_kf_free(struct iop_kf *kf);

/*
 * One line of the list (without its newline). 0 (added, or a comment or
 * blank line), -EINVAL with the reason in @why, -ENOMEM.
 */
int iop_kf_add_line(struct iop_kf *kf, const char *line, unsigned long lineno,
		    char *why, size_t len);

/*
 * The whole list at @path (NULL or /dev/null: none), a regular file. 0, or
 * -errno with "PATH:LINE: reason" in @why.
 */
int iop_kf_read(struct iop_kf *kf, const char *path, char *why, size_t len);

/*
 * Where @kernel (a uname -r) stands for @e; with @span, the span that
 * says so (INSIDE, BEFORE, FIXED). A release's version is its leading
 * numbers: "6.12.118+deb12-amd64" is 6.12.118, "7.2.13-1-amd64" 7.2.13-1,
 * "6.1.0-57-amd64" 6.1.0-57, "6.18.44-fc-v1147" 6.18.44.
 */
enum iop_kf_where iop_kf_where(const struct iop_kf_entry *e, const char *kernel,
			       const struct iop_kf_span **span);

/* @s's text, "6.12.y from 6.12.117 until the fix", into @buf. */
void iop_kf_span_text(const struct iop_kf_span *s, char *buf, size_t len);

/*
 * The entries that cover @kernel (every one when it is NULL or "") and
 * whose TEST-ERE matches @test (NULL: any), one line each:
 * "KERNEL<tab>TEST<tab>DIAGNOSTIC<tab>BUG<tab>LINE<tab>REASON".
 */
void iop_kf_list(const struct iop_kf *kf, const char *kernel, const char *test, FILE *out);

struct iop_tap_opts {
	const char *kernel;	/* uname -r, "" by default */
	const char *tag;	/* the notes' "# TAG: ", "iopath" by default */
	const char *result;	/* the result line's word, "IOPATH-RESULT" */
	const char *start, *end;	/* seconds; end given: seconds= */
	const char *program;	/* one harness binary's output */
	int exit_status;	/* with program: its exit status */
	bool coverage;		/* the coverage block among the notes */
};

struct iop_tap;

/*
 * A verdict to feed: @kf (read before) stays in the caller's hands; each
 * line written goes to @out (NULL: nowhere) and into @v (machine lines,
 * notes; iop_verdict_init() it first). NULL on no memory.
 */
struct iop_tap *iop_tap_new(const struct iop_tap_opts *opts, const struct iop_kf *kf,
			    struct iop_verdict *v, FILE *out);

/* One REQUIREMENTS line: 0, -EINVAL with the reason in @why, -ENOMEM. */
int iop_tap_requirement(struct iop_tap *t, const char *line, char *why, size_t len);

/* One FEATURES line: 0 or -ENOMEM. */
int iop_tap_feature(struct iop_tap *t, const char *line);

/* One TAP line, without its newline: 0 or -ENOMEM. */
int iop_tap_line(struct iop_tap *t, const char *line);

/* The end of the TAP: notes and the result line. 0 or -ENOMEM. */
int iop_tap_end(struct iop_tap *t);

void iop_tap_free(struct iop_tap *t);

/*
 * The whole verdict from files (NULL or /dev/null for @known, @req,
 * @features: none). 0 when the TAP was judged (pass or fail: v->status);
 * -EINVAL with "FILE:LINE: reason" in @why on a malformed input line;
 * other -errno with the reason.
 */
int iop_tap_judge(const char *known, const char *req, const char *features,
		  const char *tap, const struct iop_tap_opts *opts,
		  struct iop_verdict *v, FILE *out, char *why, size_t len);

/* Options of iop_verdict_run_opts(); NULL or 0 members take the defaults. */
struct iop_verdict_opts {
	const char *tag;	/* note prefix, default "iopath" */
	const char *result;	/* result line word, default "IOPATH-RESULT" */
	const char *start, *end;	/* seconds, for the result's seconds= */
	bool coverage;		/* the coverage block among the notes */
};

/*
 * The verdict engine (lib/tap.c) on the TAP file @tap for @kernel, with
 * the lists @known, @req and @features (NULL: none): @v (init first)
 * gets its machine lines and notes. 0 when the TAP was judged (pass or
 * fail: see v->status); -EINVAL with the one-line reason in @why when an
 * input line was malformed (or a machine line outgrew struct iop_case:
 * -EPROTO); other -errno when a file could not be read.
 */
int iop_verdict_run(const char *kernel, const char *known, const char *req,
		    const char *features, const char *tap, struct iop_verdict *v, char *why,
		    size_t len);

int iop_verdict_run_opts(const char *kernel, const char *known, const char *req,
			 const char *features, const char *tap,
			 const struct iop_verdict_opts *opts, struct iop_verdict *v, char *why,
			 size_t len);

/*
 * The command line (lib/tap_main.c) of `iopath verdict` and the static
 * helper iopath_verdict: @prog names it in messages. Exit status.
 */
int iop_tap_main(int argc, char **argv, const char *prog);

#endif
