// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath mutant classify, results and stop: what a mutant's runs under
 * the VM say, for scripts/mutate.sh. A run is the file of scripts/vm.sh's
 * stdout (or of iopath lava verdict's --tap): the guest's TAP, then the
 * guest's result line, or vm.sh's "# IOPATH-STOP: reason=R seconds=N
 * what=TEXT" for a guest that stopped without one.
 *
 * The tests' results come from the one TAP reader, the engine of lib/tap.c,
 * run on the run's file through lib/campaign_run.c: only its machine lines
 * ("# IOPATH-CASE: result=... program=P name=N lines=A-B") are read, never
 * the TAP's "ok" lines or its prose, and a failed test's diagnostic is
 * taken from lines A-B of that file. Whether the guest finished is its
 * result line, why it stopped vm.sh's stop line.
 *
 *   iopath mutant results RUN    "NAME<TAB>ok|fail|skip<TAB>PROGRAM" a test
 *   iopath mutant stop RUN       why the guest stopped; nothing if it gave
 *                                its result line
 *   iopath mutant classify [options] NAME RUN...
 *                                the class of the plan's mutant NAME from
 *                                its runs (each after one that stopped),
 *                                against the pristine kernel's state;
 *                                --out: its result file (lib/campaign.h);
 *                                --stopped-at-kill: its one run was ended
 *                                once a test failed (iopath mutate
 *                                --first-kill), so a test with no result
 *                                did not run and decides nothing;
 *                                one line on stdout:
 *   # IOPATH-MUTANT: class=C killers=T1,T2 detail=TEXT
 *   C killed, crash, survived, equivalent or unstable; TEXT escaped
 *   (iop_esc), to the end of the line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign.h"
#include "cli.h"
#include "input.h"
#include "mutant.h"
#include "mutant_int.h"
#include "number.h"
#include "outfile.h"
#include "quote.h"
#include "tap.h"
#include "verdict.h"

#define RUN_LINE_MAX	(1u << 20)	/* bytes in a line of a run's output */
#define DIAG_MAX	300		/* bytes of a failed test's diagnostic */
#define MAX_RUNS	64

/*
 * The harness's first two messages of lines @first..@last of @path (a
 * failed test's RUN line to its result): the check that failed, then
 * usually its TH_LOG explanation; "" if none.
 */
static int diagnostic(const char *path, unsigned int first, unsigned int last,
		      char *out, size_t outlen, char *why, size_t len)
{
	struct iop_input in;
	size_t used = 0;
	int nd = 0, ret;
	bool term;
	char *line;
	ssize_t n;

	out[0] = '\0';
	ret = iop_input_open(&in, path, RUN_LINE_MAX, why, len);
	if (ret)
		return ret;
	while (nd < 2 && (n = iop_input_line(&in, &line, &term, why, len)) >= 0) {
		if (in.lineno <= first)
			continue;
		if (in.lineno > last)
			break;
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (strncmp(line, "# # ", 4) || strstr(line, " OK ") || strstr(line, " FAIL ") ||
		    strstr(line, " SKIP ") || strstr(line, "Test terminated"))
			continue;
		used += snprintf(out + used, outlen - used, "%s%s", nd ? " / " : "", line + 4);
		if (used >= outlen)
			used = outlen - 1;
		nd++;
	}
	iop_input_close(&in);
	if (nd < 2 && n != -ENODATA && n < 0)
		return (int)n;
	return 0;
}

/* "iopath mutant results RUN". */
static int mutant_results(int argc, char **argv)
{
	struct iop_verdict v;
	char why[PATH_MAX + 600];
	int ret;

	if (argc != 2)
		return iop_usage_error("mutant", "results takes one RUN (a VM run's output)");
	ret = iop_run_judge(argv[1], &v, why, sizeof(why));
	if (ret) {
		iop_verdict_free(&v);
		iop_mutant_error(why);
		/* bad input, or the reader could not run */
		return ret == -EINVAL || ret == -ENOENT ? 2 : 1;
	}
	for (size_t i = 0; i < v.ncases; i++) {
		const char *w = iop_run_word(&v.cases[i]);

		if (w)
			printf("%s\t%s\t%s\n", v.cases[i].name, w, v.cases[i].program);
	}
	iop_verdict_free(&v);
	return 0;
}

/* "iopath mutant stop RUN". */
static int mutant_stop(int argc, char **argv)
{
	char why[PATH_MAX + 600];
	struct iop_run r = { 0 };

	if (argc != 2)
		return iop_usage_error("mutant", "stop takes one RUN (a VM run's output)");
	r.path = argv[1];
	if (iop_run_scan(&r, why, sizeof(why)))
		return iop_mutant_error(why);
	if (!r.result)
		printf("%s\n", r.stop);
	return 0;
}

struct classify {
	const char *plan_path, *pristine_path, *err_path, *out;
	struct iop_input err;	/* --err, opened with the other inputs */
	uint64_t crash_runs, build_s, run_s;
	bool stopped;		/* --stopped-at-kill */
	struct iop_run runs[MAX_RUNS];
	int nruns;
	struct iop_plan plan;
	const struct iop_plan_mutant *m;
	/* the pristine kernel's: its runs, every test and those passing on each */
	struct iop_pristine pr;
	/* the deciding run's */
	struct iop_verdict v;
	struct iop_strs seen, failed, missing;
	char detail[3 * PATH_MAX];
};

/* The last line of --err (opened by lib/input.c), at most 200 bytes of it; "" if none. */
static void last_line(struct iop_input *in, char *out, size_t len)
{
	char buf[1024];
	ssize_t n;
	char *p;

	out[0] = '\0';
	n = iop_input_tail(in, buf, sizeof(buf));
	if (n <= 0)
		return;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	p = strrchr(buf, '\n');
	snprintf(out, len, "%.200s", p ? p + 1 : buf);
}

/* The tests of the deciding run @r that failed, and those never reported. */
static int kills(struct classify *c, const struct iop_run *r, char *why, size_t len)
{
	const struct iop_pristine *pr = &c->pr;
	int ret;

	ret = iop_run_judge(r->path, &c->v, why, len);
	if (ret)
		return ret;
	for (size_t i = 0; i < c->v.ncases && !ret; i++) {
		const struct iop_case *k = &c->v.cases[i];
		const char *w = iop_run_word(k);

		if (!w)
			continue;
		ret = iop_strs_add(&c->seen, k->name);
		if (!ret && !strcmp(w, "fail") && iop_strs_has(&pr->passing, k->name))
			ret = iop_strs_add(&c->failed, k->name);
	}
	iop_strs_sort(&c->seen);
	iop_strs_sort(&c->failed);
	/* A run ended at its first kill: what comes after it never ran. */
	for (size_t i = 0; i < pr->tests.n && !ret && !c->stopped; i++)
		if (iop_plan_unfiltered(c->m, pr->test_programs.s[i]) &&
		    iop_strs_has(&pr->passing, pr->tests.s[i]) &&
		    !iop_strs_has(&c->seen, pr->tests.s[i]))
			ret = iop_strs_add(&c->missing, pr->tests.s[i]);
	iop_strs_sort(&c->missing);
	if (ret == -ENOMEM)
		snprintf(why, len, "%s", strerror(ENOMEM));
	return ret;
}

/* The first failed killer's lines, from its case. */
static int failed_diagnostic(struct classify *c, const struct iop_run *r, char *out,
			     size_t outlen, char *why, size_t len)
{
	for (size_t i = 0; i < c->v.ncases; i++) {
		const struct iop_case *k = &c->v.cases[i];

		if (!strcmp(k->name, c->failed.s[0]) && !strcmp(iop_run_word(k) ?: "", "fail"))
			return diagnostic(r->path, k->first, k->last, out, outlen, why, len);
	}
	out[0] = '\0';
	return 0;
}

/* The machine line on stdout, and the result file of --out. */
static int conclude(const char *class, struct classify *c, char *why, size_t len)
{
	struct iop_result r = {
		.name = c->m->name, .class = (char *)class, .build_s = (int64_t)c->build_s,
		.run_s = (int64_t)c->run_s,
	};
	int ret = 0;

	printf("# IOPATH-MUTANT: class=%s killers=", class);
	for (size_t i = 0; i < c->failed.n; i++)
		printf("%s%s", i ? "," : "", c->failed.s[i]);
	for (size_t i = 0; i < c->missing.n; i++)
		printf("%s%s", i || c->failed.n ? "," : "", c->missing.s[i]);
	printf(" detail=");
	iop_esc(stdout, c->detail);
	putchar('\n');
	if (!c->out)
		return 0;
	r.detail = iop_esc_dup(c->detail);
	for (size_t i = 0; i < c->failed.n && !ret; i++)
		ret = iop_strs_add(&r.killers, c->failed.s[i]);
	for (size_t i = 0; i < c->missing.n && !ret; i++)
		ret = iop_strs_add(&r.killers, c->missing.s[i]);
	if (!r.detail)
		ret = -ENOMEM;
	if (ret)
		snprintf(why, len, "%s", strerror(ENOMEM));
	else
		ret = iop_result_write(&r, c->out, why, len);
	iop_strs_free(&r.killers);
	free(r.detail);
	return ret;
}

/* Every run stopped without a result: a crash, if the pristine kernel was clean as often. */
static int crashed(struct classify *c, int crashes, char *why, size_t len)
{
	unsigned long long clean = iop_pristine_clean(&c->pr), runs = c->pr.nruns;
	bool counts = clean >= c->crash_runs;

	if ((uint64_t)crashes != c->crash_runs) {
		snprintf(why, len, "%d runs, each stopped without a result: --crash-runs is %llu",
			 crashes, (unsigned long long)c->crash_runs);
		return -EINVAL;
	}
	snprintf(c->detail, sizeof(c->detail),
		 counts ? "%s (on %d of %llu runs; pristine clean on %llu of %llu)" :
		 "%s (on %d of %llu runs, but the pristine kernel was clean on only %llu of %llu)",
		 c->runs[0].stop, crashes, (unsigned long long)c->crash_runs, clean, runs);
	return conclude(counts ? "crash" : "unstable", c, why, len);
}

/*
 * --stopped-at-kill: the run was ended by iopath mutate once a test that
 * passed on every pristine run had failed in it, so it has no result line
 * and its later tests never ran. Killed by what failed up to the stop;
 * with no such failure (a run looked at before its first kill) nothing is
 * decided yet: "unstable".
 */
static int stopped_at_kill(struct classify *c, char *why, size_t len)
{
	const struct iop_run *r = &c->runs[0];
	char diag[DIAG_MAX + 1];
	int ret;

	if (c->nruns != 1) {
		snprintf(why, len, "--stopped-at-kill judges one run, not %d", c->nruns);
		return -EINVAL;
	}
	ret = kills(c, r, why, len);
	if (ret)
		return ret;
	if (!c->failed.n) {
		snprintf(c->detail, sizeof(c->detail),
			 "stopped at a kill, but no test that passed on every pristine run failed");
		return conclude("unstable", c, why, len);
	}
	ret = failed_diagnostic(c, r, diag, sizeof(diag), why, len);
	if (ret)
		return ret;
	if (!*diag)
		snprintf(diag, sizeof(diag), "see %s", r->path);
	snprintf(c->detail, sizeof(c->detail), "%s (the run stopped at this kill: later tests did not run)",
		 diag);
	return conclude("killed", c, why, len);
}

static int decide(struct classify *c, char *why, size_t len)
{
	const struct iop_run *last = &c->runs[c->nruns - 1];
	char flaky[IOP_RUN_STOP_MAX + 80] = "", diag[DIAG_MAX + 1], err[256];
	int crashes = 0, ret;

	if (c->stopped)
		return stopped_at_kill(c, why, len);
	for (int i = 0; i < c->nruns; i++) {
		if (c->runs[i].result && i < c->nruns - 1) {
			snprintf(why, len, "%s gave a result: no run comes after it",
				 c->runs[i].path);
			return -EINVAL;
		}
		crashes += !c->runs[i].result;
	}
	if (crashes == c->nruns)
		return crashed(c, crashes, why, len);
	/* A crash that did not reproduce is noted; the clean run decides. */
	if (crashes)
		snprintf(flaky, sizeof(flaky), " (run 1 of %d crashed and did not reproduce: %s)",
			 c->nruns, c->runs[0].stop);
	ret = kills(c, last, why, len);
	if (ret)
		return ret;
	if (c->failed.n || c->missing.n) {
		if (c->failed.n) {
			ret = failed_diagnostic(c, last, diag, sizeof(diag), why, len);
			if (ret)
				return ret;
			if (!*diag)
				snprintf(diag, sizeof(diag), "see %s", last->path);
		} else {
			snprintf(diag, sizeof(diag),
				 "no result from %s (its program crashed or timed out)",
				 c->missing.s[0]);
		}
		snprintf(c->detail, sizeof(c->detail), "%s%s", diag, flaky);
		return conclude("killed", c, why, len);
	}
	for (size_t i = 0; i < c->v.ncases; i++)
		if (!strcmp(c->v.cases[i].result, "pass"))
			goto ran;
	/* Nothing ran: not a survival, an infrastructure failure. */
	err[0] = '\0';
	if (c->err_path)
		last_line(&c->err, err, sizeof(err));
	snprintf(c->detail, sizeof(c->detail), "no test passed or failed: %s%s", err, flaky);
	return conclude("unstable", c, why, len);
ran:
	if (c->m->equivalent) {
		snprintf(c->detail, sizeof(c->detail), "%s%s", c->m->equivalent, flaky);
		return conclude("equivalent", c, why, len);
	}
	snprintf(c->detail, sizeof(c->detail), "%s", *flaky ? flaky + 1 : "");
	return conclude("survived", c, why, len);
}

static void classify_free(struct classify *c)
{
	iop_input_close(&c->err);
	iop_plan_free(&c->plan);
	iop_pristine_free(&c->pr);
	iop_verdict_free(&c->v);
	iop_strs_free(&c->seen);
	iop_strs_free(&c->failed);
	iop_strs_free(&c->missing);
}

static void classify_help(void)
{
	printf("usage: iopath mutant classify --plan PLAN --pristine FILE [--crash-runs N]\n"
	       "         [--err FILE] [--build-s N --run-s N --out RESULT]\n"
	       "         [--stopped-at-kill] NAME RUN...\n"
	       "The class of the plan's mutant NAME from its VM runs (RUN: vm.sh's stdout;\n"
	       "each one after a run that stopped without a result), judged by the\n"
	       "verdict's machine lines against the tests that passed on every run of\n"
	       "the pristine kernel (FILE: iopath mutant pristine's):\n"
	       "  # IOPATH-MUTANT: class=C killers=T1,T2 detail=TEXT\n"
	       "and with --out, the mutant's result file (docs/efficacy.md).\n"
	       "--stopped-at-kill: the one RUN was ended once a test failed (iopath\n"
	       "mutate --first-kill): killed by what failed up to there, tests with no\n"
	       "result did not run; unstable if nothing failed yet.\n"
	       "iopath mutant results RUN: each test's result; iopath mutant stop RUN:\n"
	       "why the guest stopped without a result, if it did.\n");
}

static int classify_opts(struct classify *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "plan", required_argument, NULL, 'p' },
		{ "pristine", required_argument, NULL, 'P' },
		{ "crash-runs", required_argument, NULL, 'n' },
		{ "build-s", required_argument, NULL, 'b' },
		{ "run-s", required_argument, NULL, 'r' },
		{ "out", required_argument, NULL, 'o' },
		{ "err", required_argument, NULL, 'e' },
		{ "stopped-at-kill", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 0;
	while ((opt = iop_getopt(argc, argv, "mutant classify", "+", opts)) != -1) {
		uint64_t *slot = opt == 'n' ? &c->crash_runs : opt == 'b' ? &c->build_s :
				 opt == 'r' ? &c->run_s : NULL;
		const char **path = opt == 'p' ? &c->plan_path : opt == 'P' ? &c->pristine_path :
				    opt == 'o' ? &c->out : opt == 'e' ? &c->err_path : NULL;

		if (opt == 'h') {
			classify_help();
			return 0;
		}
		if (opt == 's')
			c->stopped = true;
		else if (path)
			*path = optarg;
		else if (!slot)
			return 2;
		else if (iop_parse_u64(optarg, 0, opt == 'n' ? 9999 : UINT32_MAX, slot))
			return iop_usage_error("mutant", "classify: '%s' is not a count (--crash-runs 1 to 9999, seconds)",
					       optarg);
	}
	c->nruns = argc - optind - 1;
	if (!c->plan_path || !c->pristine_path || c->nruns < 1)
		return iop_usage_error("mutant", "classify needs --plan, --pristine, a NAME and a RUN "
				       "(iopath mutant classify --help)");
	if (c->nruns > MAX_RUNS || !c->crash_runs)
		return iop_usage_error("mutant", "classify: at most %d runs, --crash-runs at least 1",
				       MAX_RUNS);
	if (c->out && iop_out_check(c->out, c->detail, sizeof(c->detail)))
		return iop_mutant_error(c->detail);
	return -1;
}

static int mutant_classify(int argc, char **argv)
{
	struct classify *c;
	char why[3 * PATH_MAX];
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c)
		return iop_mutant_error(strerror(ENOMEM));
	c->crash_runs = 1;
	c->err.fd = -1;
	ret = classify_opts(c, argc, argv);
	if (ret >= 0)
		goto out;
	/* --err as every input: a regular file, found now (a FIFO would block). */
	if ((c->err_path && iop_input_open(&c->err, c->err_path, 1, why, sizeof(why))) ||
	    iop_plan_load(&c->plan, c->plan_path, why, sizeof(why)) ||
	    iop_pristine_load(&c->pr, c->pristine_path, why, sizeof(why))) {
		ret = iop_mutant_error(why);
		goto out;
	}
	c->m = iop_plan_find(&c->plan, argv[optind]);
	if (!c->m) {
		ret = iop_usage_error("mutant", "classify: no mutant '%s' in %s", argv[optind],
				      c->plan_path);
		goto out;
	}
	for (int i = 0; i < c->nruns; i++) {
		c->runs[i].path = argv[optind + 1 + i];
		if (iop_run_scan(&c->runs[i], why, sizeof(why))) {
			ret = iop_mutant_error(why);
			goto out;
		}
	}
	ret = decide(c, why, sizeof(why));
	if (ret) {
		iop_mutant_error(why);
		ret = ret == -EINVAL || ret == -E2BIG ? 2 : 1;
	}
out:
	classify_free(c);
	free(c);
	return ret;
}

int iop_mutant_runs(int argc, char **argv)
{
	if (!strcmp(argv[0], "results"))
		return mutant_results(argc, argv);
	if (!strcmp(argv[0], "stop"))
		return mutant_stop(argc, argv);
	return mutant_classify(argc, argv);
}
