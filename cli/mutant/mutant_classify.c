// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath mutant classify, results and stop: what a mutant's runs under
 * the VM say, for scripts/mutate.sh. A run is the file of scripts/vm.sh's
 * stdout (or of iopath lava verdict's --tap): the guest's TAP, then the
 * guest's result line, or vm.sh's "# IOPATH-STOP: reason=R seconds=N
 * what=TEXT" for a guest that stopped without one.
 *
 * The tests' results come from the one TAP reader, the engine of lib/tap.c,
 * run on the run's file through lib/verdict.c: only its machine lines
 * ("# IOPATH-CASE: result=... program=P name=N lines=A-B") are read, never
 * the TAP's "ok" lines or its prose, and a failed test's diagnostic is
 * taken from lines A-B of that file. Whether the guest finished is its
 * result line, why it stopped vm.sh's stop line.
 *
 *   iopath mutant results RUN    "NAME<TAB>ok|fail|skip<TAB>PROGRAM" a test
 *   iopath mutant stop RUN       why the guest stopped; nothing if it gave
 *                                its result line
 *   iopath mutant classify [options] PATCH RUN...
 *                                the mutant's class from its runs (each
 *                                after one that stopped), one line:
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

#include "cli.h"
#include "input.h"
#include "mutant.h"
#include "mutant_int.h"
#include "number.h"
#include "quote.h"
#include "verdict.h"

#define RUN_LINE_MAX	(1u << 20)	/* bytes in a line of a run's output */
#define LIST_LINE_MAX	4096		/* bytes in a line of the pristine lists */
#define STOP_MAX	160		/* bytes of why a guest stopped */
#define DIAG_MAX	300		/* bytes of a failed test's diagnostic */
#define MAX_RUNS	64

struct run {
	const char *path;
	bool result;		/* the guest's result line is there */
	char stop[STOP_MAX + 1];	/* why not, when not */
};

/* A test name as the reader writes it: [A-Za-z0-9_.:+-], '?' for others. */
static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 255)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:+-?") ==
	       n;
}

/*
 * "# IOPATH-STOP: reason=R seconds=N what=TEXT" into @r->stop: "TEXT",
 * "hang: TEXT" for a hang, R without a TEXT. vm.sh escaped TEXT; a line
 * with a control character is not vm.sh's, and is escaped whole.
 */
static void stop_line(const char *line, struct run *r)
{
	const char *p = line + strlen("# IOPATH-STOP: reason=");
	size_t rl = strcspn(p, " ");
	const char *what = strstr(p, " what=");
	char buf[STOP_MAX * 4 + 64], *e = NULL;
	bool ctl = false;

	for (size_t i = 0; line[i]; i++)
		ctl |= iop_is_control(line, i);
	if (what)
		what += strlen(" what=");
	snprintf(buf, sizeof(buf), "%s%.*s", rl == 4 && !strncmp(p, "hang", 4) ? "hang: " : "",
		 what ? (int)strnlen(what, STOP_MAX * 2) : (int)rl, what ? what : p);
	if (ctl)
		e = iop_esc_dup(buf);
	snprintf(r->stop, sizeof(r->stop), "%.*s", STOP_MAX, e ? e : buf);
	free(e);
}

/*
 * Read @r->path once for the guest's result line and vm.sh's last stop
 * line. 0, or -errno with the reason in @why.
 */
static int scan_run(struct run *r, char *why, size_t len)
{
	struct iop_input in;
	bool term, stopped = false;
	char *line;
	ssize_t n;
	int ret;

	r->result = false;
	r->stop[0] = '\0';
	ret = iop_input_open(&in, r->path, RUN_LINE_MAX, why, len);
	if (ret)
		return ret;
	while ((n = iop_input_line(&in, &line, &term, why, len)) >= 0) {
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (!strncmp(line, "# IOPATH-VM-RESULT: ", 20)) {
			r->result = true;
		} else if (!strncmp(line, "# IOPATH-STOP: reason=", 22)) {
			stop_line(line, r);
			stopped = true;
		}
	}
	iop_input_close(&in);
	if (n != -ENODATA)
		return (int)n;
	if (r->result)
		r->stop[0] = '\0';
	else if (!stopped)
		snprintf(r->stop, sizeof(r->stop), "no result line");
	return 0;
}

/* The reader's verdict on @path: its machine lines in @v. */
static int judge(const char *path, struct iop_verdict *v, char *why, size_t len)
{
	char tap[64], w[512];
	struct stat st;
	int fd, ret;

	iop_verdict_init(v);
	/*
	 * The engine reads the file opened here, by its fd, not a name that
	 * may point elsewhere by then (or at a FIFO).
	 */
	fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(why, len, "%s: not a regular file", path);
		return -EINVAL;
	}
	snprintf(tap, sizeof(tap), "/proc/self/fd/%d", fd);
	ret = iop_verdict_run(NULL, NULL, NULL, NULL, tap, v, w, sizeof(w));
	close(fd);
	if (ret)
		snprintf(why, len, "%s: %s", path, w);
	return ret;
}

/* A case's result as the state's results say it, or NULL if it has none. */
static const char *state_word(const struct iop_case *c)
{
	if (!strcmp(c->result, "pass"))
		return "ok";
	if (!strcmp(c->result, "fail") || !strcmp(c->result, "known"))
		return "fail";
	if (!strcmp(c->result, "skip"))
		return "skip";
	return NULL;	/* unfinished: no result */
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct names {
	char **s;
	size_t n, cap;
};

static int names_add(struct names *l, const char *s)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		char **p = reallocarray(l->s, cap, sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->s = p;
		l->cap = cap;
	}
	l->s[l->n] = strdup(s);
	if (!l->s[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

/* Sorted, each once. */
static void names_sort(struct names *l)
{
	size_t k = 0;

	if (!l->n)
		return;
	qsort(l->s, l->n, sizeof(*l->s), cmp_str);
	for (size_t i = 1; i < l->n; i++) {
		if (!strcmp(l->s[i], l->s[k]))
			free(l->s[i]);
		else
			l->s[++k] = l->s[i];
	}
	l->n = k + 1;
}

static bool names_has(const struct names *l, const char *s)
{
	return l->n && bsearch(&s, l->s, l->n, sizeof(*l->s), cmp_str);
}

static void names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->s[i]);
	free(l->s);
	memset(l, 0, sizeof(*l));
}

/*
 * A pristine list mutate.sh wrote: "NAME" a line (@progs NULL), or
 * "NAME<TAB>PROGRAM" (names in @l, programs in @progs, line for line).
 * State read back, so checked: a name and a program of the reader's
 * characters, nothing else on the line.
 */
static int read_list(const char *path, struct names *l, struct names *progs,
		     char *why, size_t len)
{
	struct iop_input in;
	bool term;
	char *line, *tab;
	ssize_t n;
	int ret;

	ret = iop_input_open(&in, path, LIST_LINE_MAX, why, len);
	if (ret)
		return ret;
	while ((n = iop_input_line(&in, &line, &term, why, len)) >= 0) {
		if (!n)
			continue;
		tab = strchr(line, '\t');
		if (progs && tab)
			*tab = '\0';
		if ((size_t)n != strlen(line) + (progs && tab ? strlen(tab + 1) + 1 : 0) ||
		    !name_ok(line) || (progs && (!tab || !name_ok(tab + 1)))) {
			snprintf(why, len, "%s:%zu: not a line of iopath mutate's pristine results",
				 path, in.lineno);
			iop_input_close(&in);
			return -EINVAL;
		}
		if (names_add(l, line) || (progs && names_add(progs, tab + 1))) {
			iop_input_close(&in);
			snprintf(why, len, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
	}
	iop_input_close(&in);
	return n == -ENODATA ? 0 : (int)n;
}

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
	ret = judge(argv[1], &v, why, sizeof(why));
	if (ret) {
		iop_verdict_free(&v);
		iop_mutant_error(why);
		/* bad input, or the reader could not run */
		return ret == -EINVAL || ret == -ENOENT ? 2 : 1;
	}
	for (size_t i = 0; i < v.ncases; i++) {
		const char *w = state_word(&v.cases[i]);

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
	struct run r = { 0 };

	if (argc != 2)
		return iop_usage_error("mutant", "stop takes one RUN (a VM run's output)");
	r.path = argv[1];
	if (scan_run(&r, why, sizeof(why)))
		return iop_mutant_error(why);
	if (!r.result)
		printf("%s\n", r.stop);
	return 0;
}

struct classify {
	const char *patch, *ok_path, *tests_path, *err_path;
	struct iop_input err;	/* --err, opened with the other inputs */
	bool all_tests;
	uint64_t pristine_runs, pristine_clean, crash_runs;
	struct run runs[MAX_RUNS];
	int nruns;
	/* the mutant's */
	struct iop_mutant m;
	/* the pristine kernel's: passed on every run; every test and its program */
	struct names ok, tests, tprogs;
	/* the deciding run's */
	struct iop_verdict v;
	struct names seen, failed, missing;
	char detail[3 * PATH_MAX];
};

/* Whether @prog ran unfiltered: every test of it was run. */
static bool unfiltered(const struct classify *c, const char *prog)
{
	const char *t = iop_mutant_get(&c->m, "Tests");
	size_t pl = strlen(prog);

	if (c->all_tests)
		return true;
	for (size_t i = 0; i < c->m.nfields; i++) {
		const char *f = c->m.fields[i].value;

		if (!strcmp(c->m.fields[i].key, "Filter") && !strncmp(f, prog, pl) && f[pl] == '=')
			return false;
	}
	/* one of the header's programs */
	while (t && *t) {
		size_t l;

		t += strspn(t, " ");
		l = strcspn(t, " ");
		if (l == pl && !strncmp(t, prog, pl))
			return true;
		t += l;
	}
	return false;
}

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
static int kills(struct classify *c, const struct run *r, char *why, size_t len)
{
	int ret;

	ret = judge(r->path, &c->v, why, len);
	if (ret)
		return ret;
	for (size_t i = 0; i < c->v.ncases && !ret; i++) {
		const struct iop_case *k = &c->v.cases[i];
		const char *w = state_word(k);

		if (!w)
			continue;
		ret = names_add(&c->seen, k->name);
		if (!ret && !strcmp(w, "fail") && names_has(&c->ok, k->name))
			ret = names_add(&c->failed, k->name);
	}
	names_sort(&c->seen);
	names_sort(&c->failed);
	for (size_t i = 0; i < c->tests.n && !ret; i++)
		if (unfiltered(c, c->tprogs.s[i]) && names_has(&c->ok, c->tests.s[i]) &&
		    !names_has(&c->seen, c->tests.s[i]))
			ret = names_add(&c->missing, c->tests.s[i]);
	names_sort(&c->missing);
	if (ret == -ENOMEM)
		snprintf(why, len, "%s", strerror(ENOMEM));
	return ret;
}

/* The first failed killer's lines, from its case. */
static int failed_diagnostic(struct classify *c, const struct run *r, char *out, size_t outlen,
			     char *why, size_t len)
{
	for (size_t i = 0; i < c->v.ncases; i++) {
		const struct iop_case *k = &c->v.cases[i];

		if (!strcmp(k->name, c->failed.s[0]) && !strcmp(state_word(k) ?: "", "fail"))
			return diagnostic(r->path, k->first, k->last, out, outlen, why, len);
	}
	out[0] = '\0';
	return 0;
}

static void print_line(const char *class, const struct classify *c)
{
	printf("# IOPATH-MUTANT: class=%s killers=", class);
	for (size_t i = 0; i < c->failed.n; i++)
		printf("%s%s", i ? "," : "", c->failed.s[i]);
	for (size_t i = 0; i < c->missing.n; i++)
		printf("%s%s", i || c->failed.n ? "," : "", c->missing.s[i]);
	printf(" detail=");
	iop_esc(stdout, c->detail);
	putchar('\n');
}

static int decide(struct classify *c, char *why, size_t len)
{
	const struct run *last = &c->runs[c->nruns - 1];
	char flaky[STOP_MAX + 80] = "", diag[DIAG_MAX + 1], err[256];
	const char *equiv = iop_mutant_get(&c->m, "Equivalent");
	int crashes = 0, ret;

	for (int i = 0; i < c->nruns; i++) {
		if (c->runs[i].result && i < c->nruns - 1) {
			snprintf(why, len, "%s gave a result: no run comes after it",
				 c->runs[i].path);
			return -EINVAL;
		}
		crashes += !c->runs[i].result;
	}
	if (crashes == c->nruns) {
		if ((uint64_t)crashes != c->crash_runs) {
			snprintf(why, len, "%d runs, each stopped without a result: --crash-runs is %llu",
				 crashes, (unsigned long long)c->crash_runs);
			return -EINVAL;
		}
		if (c->pristine_clean >= c->crash_runs)
			snprintf(c->detail, sizeof(c->detail),
				 "%s (on %d of %llu runs; pristine clean on %llu of %llu)",
				 c->runs[0].stop, crashes, (unsigned long long)c->crash_runs,
				 (unsigned long long)c->pristine_clean,
				 (unsigned long long)c->pristine_runs);
		else
			snprintf(c->detail, sizeof(c->detail),
				 "%s (on %d of %llu runs, but the pristine kernel was clean on only %llu of %llu)",
				 c->runs[0].stop, crashes, (unsigned long long)c->crash_runs,
				 (unsigned long long)c->pristine_clean,
				 (unsigned long long)c->pristine_runs);
		print_line(c->pristine_clean >= c->crash_runs ? "crash" : "unstable", c);
		return 0;
	}
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
		print_line("killed", c);
		return 0;
	}
	for (size_t i = 0; i < c->v.ncases; i++)
		if (!strcmp(c->v.cases[i].result, "pass"))
			goto ran;
	/* Nothing ran: not a survival, an infrastructure failure. */
	err[0] = '\0';
	if (c->err_path)
		last_line(&c->err, err, sizeof(err));
	snprintf(c->detail, sizeof(c->detail), "no test passed or failed: %s%s", err, flaky);
	print_line("unstable", c);
	return 0;
ran:
	if (equiv) {
		snprintf(c->detail, sizeof(c->detail), "%s%s", equiv, flaky);
		print_line("equivalent", c);
	} else {
		snprintf(c->detail, sizeof(c->detail), "%s", *flaky ? flaky + 1 : "");
		print_line("survived", c);
	}
	return 0;
}

static int count_opt(const char *opt, const char *s, uint64_t *v)
{
	if (iop_parse_u64(s, 0, 9999, v))
		return iop_usage_error("mutant", "classify: %s '%s': expected a count from 0 to 9999",
				       opt, s);
	return 0;
}

static void classify_free(struct classify *c)
{
	iop_input_close(&c->err);
	iop_mutant_free(&c->m);
	iop_verdict_free(&c->v);
	names_free(&c->ok);
	names_free(&c->tests);
	names_free(&c->tprogs);
	names_free(&c->seen);
	names_free(&c->failed);
	names_free(&c->missing);
}

static int mutant_classify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pristine-ok", required_argument, NULL, 'o' },
		{ "pristine-tests", required_argument, NULL, 't' },
		{ "pristine-runs", required_argument, NULL, 'r' },
		{ "pristine-clean", required_argument, NULL, 'c' },
		{ "crash-runs", required_argument, NULL, 'n' },
		{ "err", required_argument, NULL, 'e' },
		{ "all-tests", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct classify *c;
	char why[3 * PATH_MAX];
	int opt, ret = 2;

	c = calloc(1, sizeof(*c));
	if (!c)
		return iop_mutant_error(strerror(ENOMEM));
	c->crash_runs = 1;
	c->err.fd = -1;
	optind = 0;
	while ((opt = iop_getopt(argc, argv, "mutant classify", "+", opts)) != -1) {
		uint64_t *slot = opt == 'r' ? &c->pristine_runs : opt == 'c' ? &c->pristine_clean :
				 opt == 'n' ? &c->crash_runs : NULL;

		switch (opt) {
		case 'o':
			c->ok_path = optarg;
			break;
		case 't':
			c->tests_path = optarg;
			break;
		case 'e':
			c->err_path = optarg;
			break;
		case 'a':
			c->all_tests = true;
			break;
		case 'r':
		case 'c':
		case 'n':
			if (count_opt(opt == 'r' ? "--pristine-runs" : opt == 'c' ?
				      "--pristine-clean" : "--crash-runs", optarg, slot))
				goto out;
			break;
		case 'h':
			printf("usage: iopath mutant classify --pristine-ok FILE --pristine-tests FILE\n"
			       "         [--pristine-runs N --pristine-clean N] [--crash-runs N]\n"
			       "         [--err FILE] [--all-tests] PATCH RUN...\n"
			       "A mutant's class from its VM runs (RUN: vm.sh's stdout; each one after\n"
			       "a run that stopped without a result), judged by the verdict's\n"
			       "machine lines against the tests that passed on every pristine run:\n"
			       "  # IOPATH-MUTANT: class=C killers=T1,T2 detail=TEXT\n"
			       "iopath mutant results RUN: each test's result; iopath mutant stop RUN:\n"
			       "why the guest stopped without a result, if it did.\n");
			ret = 0;
			goto out;
		default:
			goto out;
		}
	}
	c->nruns = argc - optind - 1;
	if (!c->ok_path || !c->tests_path || c->nruns < 1) {
		ret = iop_usage_error("mutant", "classify needs --pristine-ok, --pristine-tests, "
				      "a PATCH and a RUN (iopath mutant classify --help)");
		goto out;
	}
	if (c->nruns > MAX_RUNS || !c->crash_runs || c->pristine_clean > c->pristine_runs) {
		ret = iop_usage_error("mutant", "classify: at most %d runs, --crash-runs at least 1, "
				      "--pristine-clean at most --pristine-runs", MAX_RUNS);
		goto out;
	}
	c->patch = argv[optind];
	/* --err as every input: a regular file, found now (a FIFO would block). */
	if ((c->err_path && iop_input_open(&c->err, c->err_path, 1, why, sizeof(why))) ||
	    iop_mutant_read(c->patch, &c->m, why, sizeof(why)) ||
	    read_list(c->ok_path, &c->ok, NULL, why, sizeof(why)) ||
	    read_list(c->tests_path, &c->tests, &c->tprogs, why, sizeof(why))) {
		ret = iop_mutant_error(why);
		goto out;
	}
	names_sort(&c->ok);
	for (int i = 0; i < c->nruns; i++) {
		c->runs[i].path = argv[optind + 1 + i];
		if (scan_run(&c->runs[i], why, sizeof(why))) {
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
