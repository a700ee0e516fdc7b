// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict engine (see tap.h): a walk over TAP lines that keeps the
 * state of the program and the test it is in, judges each test's result
 * against the known-failures list and the requirements, and writes every
 * note and machine line through one writer (emit()), which also fills the
 * caller's struct iop_verdict: the lines printed and the struct read by C
 * consumers cannot disagree. Then the whole verdict from files, for the
 * command line and for C consumers (linked, never forked).
 *
 * The engine's files stand in layers, each calling only those below:
 * lib/verdict.c (the machine lines: their writer and their reader),
 * lib/tap_known.c (the known-failures list), lib/tap_note.c (the notes),
 * lib/tap_cov.c (the coverage rule), this file (the walk), and
 * lib/tap_main.c (the command line).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "tap_int.h"
#include "why.h"

/*
 * One machine line, formatted by lib/verdict.c (the one writer of the
 * format), or NULL with @err: printed, and parsed into the caller's
 * struct iop_verdict.
 */
static void emit(struct iop_tap *t, char *line, int err)
{
	int n;

	if (err || !line) {
		iop_tap_set_err(t, -ENOMEM);
		return;
	}
	if (t->out)
		fprintf(t->out, "%s\n", line);
	/*
	 * A line struct iop_verdict cannot hold (a name over its bound) is
	 * printed whole for a reader of the lines, and fails a caller that
	 * reads only the struct, as a malformed line read back would.
	 */
	if (t->v) {
		n = iop_verdict_parse_line(line, t->v);
		if (n == -ENOMEM || (n < 0 && !t->out))
			iop_tap_set_err(t, n == -EINVAL ? -EPROTO : n);
	}
	free(line);
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* "^(not )?ok [0-9]+": the length of that prefix, or 0. */
static size_t ok_prefix(const char *s)
{
	const char *p = s;

	if (starts(p, "not "))
		p += 4;
	if (!starts(p, "ok "))
		return 0;
	p += 3;
	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	return (size_t)(p - s);
}

/* Where " *#.*" starts in @s (the first '#' and the blanks before it), or NULL. */
static char *comment_start(char *s)
{
	char *h = strchr(s, '#');

	if (!h)
		return NULL;
	while (h > s && h[-1] == ' ')
		h--;
	return h;
}

/* "# *SKIP" somewhere in @s: where the last one's reason starts, or NULL. */
static const char *skip_reason(const char *s)
{
	const char *p, *last = NULL, *q;

	for (p = strchr(s, '#'); p; p = strchr(p + 1, '#')) {
		for (q = p + 1; *q == ' '; q++)
			;
		if (starts(q, "SKIP"))
			last = q + 4;
	}
	if (last)
		while (*last == ' ')
			last++;
	return last;
}

static void replace(char **dst, const char *s, size_t n, struct iop_tap *t)
{
	char *c = strndup(s, n);

	if (!c) {
		iop_tap_set_err(t, -ENOMEM);
		return;
	}
	free(*dst);
	*dst = c;
}

static void begin_test(struct iop_tap *t)
{
	size_t i;

	t->tfirst = 0;
	for (i = 0; i < t->nassert; i++)
		free(t->atext[i]);
	t->nassert = 0;
	t->ended_by = NULL;
	t->postfail = false;
}

static void begin_program(struct iop_tap *t, const char *name, size_t n)
{
	replace(&t->prog, name, n, t);
	t->prog_open = true;
	t->pknown = 0;
	t->punknown = 0;
	t->ptotals = false;
	t->pfail = 0;
	begin_test(t);
}

/* The kernel's coverage by entry @i, and the span that says so. */
static bool covers(const struct iop_tap *t, size_t i)
{
	return t->covers[i];
}

/* The entry that excuses this failure of @name, or -1 (why_not set). */
static long excuse(struct iop_tap *t, const char *name)
{
	const struct iop_kf_entry *e;
	bool named = false, ok;
	size_t i, j;

	t->why_not = NULL;
	for (i = 0; i < t->kf->n; i++) {
		e = &t->kf->e[i];
		if (!covers(t, i) || !iop_tap_match(&e->test_re, name))
			continue;
		named = true;
		if (t->ended_by) {
			free(t->why_buf);
			if (asprintf(&t->why_buf, "ended by %s", t->ended_by) < 0)
				t->why_buf = NULL;
			t->why_not = t->why_buf ? t->why_buf : "ended early";
			return -1;
		}
		if (t->postfail) {
			t->why_not = "a post-test check failed";
			return -1;
		}
		if (!t->nassert) {
			t->why_not = "no failed assertion to match";
			return -1;
		}
		ok = true;
		for (j = 0; j < t->nassert; j++) {
			if (iop_tap_match(&e->diag_re, t->atext[j]))
				continue;
			ok = false;
			free(t->why_buf);
			if (asprintf(&t->why_buf, "a different failure: %s", t->atext[j]) < 0)
				t->why_buf = NULL;
			t->why_not = t->why_buf ? t->why_buf : "a different failure";
		}
		if (ok)
			return (long)i;
	}
	if (!named)
		t->why_not = NULL;
	return -1;
}

/*
 * A failure no entry excused on a stable line an entry's range is on: at
 * or after its fix it is a regression, before its first release seen a
 * failure the entry cannot speak for; either is said.
 */
static void regression(struct iop_tap *t, const char *name)
{
	const struct iop_kf_span *sp;
	const struct iop_kf_entry *e;
	enum iop_kf_where w;
	char range[128];
	size_t i;

	for (i = 0; i < t->kf->n; i++) {
		e = &t->kf->e[i];
		if (!iop_tap_match(&e->test_re, name))
			continue;
		w = iop_kf_where(e, t->kernel, &sp);
		if ((w != IOP_KF_FIXED && w != IOP_KF_BEFORE) || !sp)
			continue;
		iop_kf_span_text(sp, range, sizeof(range));
		if (w == IOP_KF_FIXED)
			iop_tap_note(t, "regression: %s fails on %s, past the fix of %s (%s; known-failures line %lu)",
				     name, t->kernel, e->bug, range, e->line);
		else
			iop_tap_note(t, "not excused by known-failures: %s: %s is before the first release %s was seen on (%s; known-failures line %lu)",
				     name, t->kernel, e->bug, range, e->line);
		return;
	}
}

static long listed(const struct iop_tap *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->kf->n; i++)
		if (covers(t, i) && iop_tap_match(&t->kf->e[i].test_re, name))
			return (long)i;
	return -1;
}

static void known_note(struct iop_tap *t, const char *name, size_t k)
{
	const struct iop_kf_entry *e = &t->kf->e[k];
	const struct iop_kf_span *sp;
	char range[128];

	t->tknown++;
	t->pknown++;
	iop_tap_note(t, "known failure on %s: %s: %s: %s", t->kernel, name, e->bug, e->reason);
	if (iop_kf_where(e, t->kernel, &sp) == IOP_KF_INSIDE && sp) {
		iop_kf_span_text(sp, range, sizeof(range));
		iop_tap_note(t, "%s not itself observed with %s: excused as inside %s (known-failures line %lu)",
			     t->kernel, e->bug, range, e->line);
	}
}

/* One "ok"/"not ok" line of the harness, without the runner's "# ". */
static void test_result(struct iop_tap *t, const char *line)
{
	char *rest, *name = NULL, *h, *out;
	int ret;
	const char *reason, *res;
	bool notok = starts(line, "not "), skip;
	long k = -1;

	rest = (char *)line + ok_prefix(line);
	if (*rest == ' ')
		rest++;
	reason = skip_reason(rest);
	skip = !!reason;
	h = comment_start(rest);
	replace(&name, rest, h ? (size_t)(h - rest) : strlen(rest), t);
	if (!name)
		return;
	if (!skip)
		reason = rest;
	/*
	 * The harness's SKIP() replaces a failure the test recorded before
	 * it (docs/harness-bugs/skip-after-failed-check.md): such a skip is
	 * the failure it hides.
	 */
	if (skip && !notok && t->nassert) {
		iop_tap_note(t, "skipped after a failed check: %s: %s", name, t->atext[0]);
		notok = true;
		skip = false;
		t->ended_by = "a skip after the failure";
	}
	if (notok) {
		k = excuse(t, name);
		if (k >= 0) {
			known_note(t, name, (size_t)k);
		} else {
			t->tfail++;
			t->punknown++;
			if (t->why_not)
				iop_tap_note(t, "not excused by known-failures: %s: %s", name, t->why_not);
			regression(t, name);
		}
	} else if (skip) {
		t->tskip++;
	} else {
		t->tpass++;
		k = listed(t, name);
		if (k >= 0) {
			t->stale++;
			iop_tap_note(t, "known failure did not reproduce: %s passed on %s; narrow or remove its entry (known-failures line %lu)",
				     name, t->kernel, t->kf->e[k].line);
		}
		k = -1;
	}
	res = notok ? (k >= 0 ? "known" : "fail") : skip ? "skip" : "pass";
	ret = iop_verdict_fmt_case(&out, res, t->prog, name, t->tfirst ? t->tfirst : t->fnr,
				   t->fnr, k >= 0 ? t->kf->e[k].bug : NULL);
	emit(t, out, ret);
	iop_tap_required(t, name, notok, skip, k, reason);
	free(name);
	begin_test(t);
}

/* "after-test checks: fsck ran|not run (WHY), kernel log ran|not run (WHY)" */
static void after_test(struct iop_tap *t, const char *msg)
{
	if (strstr(msg, "fsck ran"))
		t->fsck_ran++;
	else if (strstr(msg, "fsck not run"))
		t->fsck_not++;
	if (strstr(msg, "kernel log ran"))
		t->kmsg_ran++;
	else if (strstr(msg, "kernel log not run"))
		t->kmsg_not++;
}

/* "FILE.[ch]:LINE:WHAT:" after "# ": the message after it, or NULL. */
static const char *assert_msg(const char *line)
{
	const char *p = line + 2, *q;

	if (!starts(line, "# "))
		return NULL;
	q = p + strcspn(p, " :");
	if (*q != ':' || q - p < 3 || q[-2] != '.' || (q[-1] != 'c' && q[-1] != 'h'))
		return NULL;
	p = ++q;
	while (*q >= '0' && *q <= '9')
		q++;
	if (q == p || *q != ':')
		return NULL;
	q = strchr(q + 1, ':');
	return q ? q + 1 : NULL;
}

static void assertion(struct iop_tap *t, const char *msg)
{
	char *s;

	if (starts(msg, "Expected ")) {
		s = strdup(msg);
		if (!s || iop_verdict_grow((void **)&t->atext, &t->acap, t->nassert, sizeof(*t->atext))) {
			free(s);
			iop_tap_set_err(t, -ENOMEM);
			return;
		}
		t->atext[t->nassert++] = s;
	} else if (t->nassert) {
		if (asprintf(&s, "%s | %s", t->atext[t->nassert - 1], msg) < 0) {
			iop_tap_set_err(t, -ENOMEM);
			return;
		}
		free(t->atext[t->nassert - 1]);
		t->atext[t->nassert - 1] = s;
	}
	if (starts(msg, "post-test fsck:") || starts(msg, "post-test kernel log:"))
		t->postfail = true;
	if (starts(msg, "after-test checks: "))
		after_test(t, msg);
}

/* "Totals: pass:N fail:N ...": the number after the last " fail:". */
static void totals(struct iop_tap *t, const char *line)
{
	const char *p, *last = NULL;

	t->ptotals = true;
	for (p = strstr(line, " fail:"); p; p = strstr(p + 1, " fail:"))
		last = p + 6;
	t->pfail = 0;
	if (last)
		for (p = last; *p >= '0' && *p <= '9'; p++)
			t->pfail = t->pfail * 10 + (*p - '0');
}

/* One line of a harness binary's own output, as it printed it. */
static void harness_line(struct iop_tap *t, const char *line)
{
	size_t n;

	if (starts(line, "#  RUN ")) {
		begin_test(t);
		t->tfirst = t->fnr;
		line += 7;
		while (*line == ' ')
			line++;
		n = strcspn(line, " ");
		replace(&t->tname, line, n, t);
	} else if (assert_msg(line)) {
		assertion(t, assert_msg(line));
	} else if (ends(line, ": Test terminated by timeout")) {
		t->ended_by = "a timeout";
	} else if (strstr(line, ": Test terminated unexpectedly by signal")) {
		t->ended_by = "a signal";
	} else if (ok_prefix(line)) {
		test_result(t, line);
	} else if (starts(line, "# Totals: ")) {
		totals(t, line);
	}
}

/* The program's own result: its runner line, or "# exit=N" for one binary. */
static void end_program(struct iop_tap *t, const char *line, bool notok)
{
	const char *h;
	char *s, *out;
	int ret;
	bool excused, timeout;

	t->progs++;
	t->prog_open = false;
	excused = notok && t->pknown > 0 && t->punknown == 0 && t->ptotals &&
		  t->pfail == t->pknown && ends(line, "# exit=1");
	/* run_kselftest.sh's "not ok N selftests: S: P # TIMEOUT N seconds" */
	if (t->o->program) {
		timeout = notok && t->o->exit_status == 124;
	} else {
		h = strchr(line, '#');
		timeout = false;
		if (notok && h && ok_prefix(line) && line[ok_prefix(line)] == ' ') {
			for (h++; *h == ' '; h++)
				;
			timeout = starts(h, "TIMEOUT");
		}
	}
	ret = iop_verdict_fmt_program(&out, !notok ? (skip_reason(line) ? "skip" : "pass") :
				      excused ? "excused" : "fail", t->prog, timeout);
	emit(t, out, ret);
	if (!notok || excused)
		return;
	t->progs_failed++;
	if (asprintf(&s, "%s %s", t->failed_progs ? t->failed_progs : "",
		     t->prog ? t->prog : "") < 0) {
		iop_tap_set_err(t, -ENOMEM);
		return;
	}
	free(t->failed_progs);
	t->failed_progs = s;
	/* Its known failures count as failures; a crash with none, as one. */
	t->tknown -= t->pknown;
	t->tfail += t->pknown;
	if (t->pknown + t->punknown == 0)
		t->tfail++;
}

/* The last blank-separated word of @s: [start, start + *n). */
static const char *last_word(const char *s, const char *blanks, size_t *n)
{
	const char *e = s + strlen(s), *b;

	while (e > s && strchr(blanks, e[-1]))
		e--;
	for (b = e; b > s && !strchr(blanks, b[-1]); b--)
		;
	*n = (size_t)(e - b);
	return b;
}

/* A top-level line of run_kselftest.sh's output. */
static void runner_line(struct iop_tap *t, const char *line)
{
	const char *w;
	char *pl, *h;
	size_t n;

	if (starts(line, "# selftests: ")) {
		w = last_word(line, " \t", &n);
		begin_program(t, w, n);
		return;
	}
	if (ok_prefix(line) && line[ok_prefix(line)] == ' ') {
		/*
		 * A program skipped whole has no "# selftests:" line of its
		 * own: its name is the one on this line.
		 */
		pl = strdup(line);
		if (!pl) {
			iop_tap_set_err(t, -ENOMEM);
			return;
		}
		h = comment_start(pl);
		if (h)
			*h = '\0';
		w = last_word(pl, " ", &n);
		if (!n)
			w = pl, n = strlen(pl);
		if (starts(pl + ok_prefix(pl), " selftests: ") &&
		    (!t->prog_open || !t->prog || strlen(t->prog) != n || strncmp(t->prog, w, n)))
			begin_program(t, w, n);
		free(pl);
		end_program(t, line, starts(line, "not "));
		return;
	}
	if (starts(line, "# "))
		harness_line(t, line + 2);
}

int iop_tap_line(struct iop_tap *t, const char *line)
{
	t->fnr++;
	if (t->o->program)
		harness_line(t, line);
	else
		runner_line(t, line);
	return t->err == -ENOMEM ? -ENOMEM : 0;
}

struct iop_tap *iop_tap_new(const struct iop_tap_opts *opts, const struct iop_kf *kf,
			    struct iop_verdict *v, FILE *out)
{
	struct iop_tap *t = calloc(1, sizeof(*t));
	enum iop_kf_where w;
	size_t i;

	if (!t)
		return NULL;
	t->o = opts;
	t->kernel = opts->kernel ? opts->kernel : "";
	t->tag = opts->tag && *opts->tag ? opts->tag : "iopath";
	t->kf = kf;
	t->v = v;
	t->out = out;
	t->covers = calloc(kf->n + 1, sizeof(*t->covers));
	if (!t->covers) {
		free(t);
		return NULL;
	}
	for (i = 0; i < kf->n; i++) {
		w = iop_kf_where(&kf->e[i], t->kernel, NULL);
		t->covers[i] = w == IOP_KF_OBSERVED || w == IOP_KF_INSIDE;
	}
	if (opts->program)
		begin_program(t, opts->program, strlen(opts->program));
	if (t->err) {
		iop_tap_free(t);
		return NULL;
	}
	return t;
}

/* awk's number of a string: its leading decimal number, or 0. */
static double number(const char *s)
{
	char *end;
	double d = strtod(s, &end);

	return end == s ? 0 : d;
}

int iop_tap_end(struct iop_tap *t)
{
	const char *word_res = t->o->result && *t->o->result ? t->o->result : "IOPATH-RESULT";
	struct iop_verdict r;
	char ex[32], *out;
	double secs;
	int ret;

	if (t->tfirst) {
		ret = iop_verdict_fmt_case(&out, "unfinished", t->prog, t->tname, t->tfirst, t->fnr,
					   NULL);
		emit(t, out, ret);
	}
	if (!t->o->program && t->prog_open) {
		ret = iop_verdict_fmt_program(&out, "unfinished", t->prog, false);
		emit(t, out, ret);
	}
	if (t->o->program) {
		snprintf(ex, sizeof(ex), "# exit=%d", t->o->exit_status);
		end_program(t, ex, t->o->exit_status != 0);
	}
	if (!t->progs)
		iop_tap_note(t, "no test program ran");
	if (t->progs_failed)
		iop_tap_note(t, "failed programs:%s", t->failed_progs ? t->failed_progs : "");
	if (t->probe_failed)
		iop_tap_note(t, "required coverage not judged: iopath_probe failed: %s",
			     t->probe_failed);
	if (t->o->coverage)
		iop_tap_coverage(t);
	iop_verdict_init(&r);
	snprintf(r.result_word, sizeof(r.result_word), "%s", word_res);
	r.failed = t->tfail + t->reqbad + t->stale + !!t->probe_failed;
	strcpy(r.status, t->progs > 0 && !r.failed ? "pass" : "fail");
	r.passed = t->tpass;
	r.known = t->tknown;
	r.skipped = t->tskip;
	r.programs = t->progs;
	r.programs_failed = t->progs_failed;
	r.required_missing = t->reqbad;
	r.stale_known = t->stale;
	/* uptime seconds, whole; a clock that went back reads 0 */
	if (t->o->end && *t->o->end) {
		secs = number(t->o->end) - number(t->o->start ? t->o->start : "");
		r.seconds = secs > 0 && secs < 1e15 ? (long)secs : 0;
	}
	ret = iop_verdict_fmt_result(&out, &r);
	emit(t, out, ret);
	/* A result word of the caller's that the reader does not take: the status still holds. */
	if (t->v && !t->v->have_result)
		strcpy(t->v->status, r.status);
	return t->err == -ENOMEM ? -ENOMEM : 0;
}

void iop_tap_free(struct iop_tap *t)
{
	if (!t)
		return;
	begin_test(t);
	free(t->atext);
	free(t->tname);
	free(t->prog);
	free(t->why_buf);
	free(t->failed_progs);
	iop_tap_cov_free(t);
	free(t->covers);
	free(t);
}

static int req_line(void *t, const char *line, size_t lineno, char *why, size_t len)
{
	(void)lineno;
	return iop_tap_requirement(t, line, why, len);
}

static int feature_line(void *t, const char *line, size_t lineno, char *why, size_t len)
{
	(void)lineno;
	(void)why;
	(void)len;
	return iop_tap_feature(t, line);
}

static int tap_line(void *t, const char *line, size_t lineno, char *why, size_t len)
{
	(void)lineno;
	(void)why;
	(void)len;
	return iop_tap_line(t, line);
}

int iop_tap_judge(const char *known, const char *req, const char *features,
		  const char *tap, const struct iop_tap_opts *opts,
		  struct iop_verdict *v, FILE *out, char *why, size_t len)
{
	struct iop_tap *t = NULL;
	struct iop_kf kf;
	int ret;

	iop_kf_init(&kf);
	ret = iop_kf_read(&kf, known, why, len);
	if (ret)
		goto out_kf;
	t = iop_tap_new(opts, &kf, v, out);
	if (!t) {
		ret = -ENOMEM;
		iop_why(why, len, "no memory for the verdict");
		goto out_kf;
	}
	ret = iop_input_each_line(req, TAP_MAX_LINE, req_line, t, why, len);
	if (!ret)
		ret = iop_input_each_line(features, TAP_MAX_LINE, feature_line, t, why, len);
	if (!ret)
		ret = iop_input_each_line(tap, TAP_MAX_LINE, tap_line, t, why, len);
	if (!ret)
		ret = iop_tap_end(t);
	if (!ret && t->err) {
		ret = t->err;
		iop_why(why, len, "the verdict: %s", strerror(-ret));
	}
	iop_tap_free(t);
out_kf:
	iop_kf_free(&kf);
	return ret;
}

int iop_verdict_run(const char *kernel, const char *known, const char *req,
		    const char *features, const char *tap, struct iop_verdict *v, char *why,
		    size_t len)
{
	return iop_verdict_run_opts(kernel, known, req, features, tap, NULL, v, why, len);
}

int iop_verdict_run_opts(const char *kernel, const char *known, const char *req,
			 const char *features, const char *tap,
			 const struct iop_verdict_opts *opts, struct iop_verdict *v, char *why,
			 size_t len)
{
	struct iop_tap_opts o = {
		.kernel = kernel,
		.tag = opts ? opts->tag : NULL,
		.result = opts ? opts->result : NULL,
		.start = opts ? opts->start : NULL,
		.end = opts && opts->start ? opts->end : NULL,
		.coverage = opts && opts->coverage,
	};

	if (!tap || !v)
		return -EINVAL;
	return iop_tap_judge(known, req, features, tap, &o, v, NULL, why, len);
}
