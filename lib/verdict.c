// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The machine lines of the verdict (see verdict.h): their one writer (the
 * iop_verdict_fmt_*() the engine, lib/tap.c, prints through) and their one
 * reader (iop_verdict_parse_line(), and iop_verdict_read() over a file,
 * which every consumer uses: C directly, scripts through `iopath verdict
 * --read`). Lines are parsed strictly: a line that starts like one but
 * does not parse is an error, not a line skipped. The lowest layer of the
 * engine: it calls nothing of lib/tap*.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "number.h"
#include "verdict.h"

void iop_verdict_init(struct iop_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->seconds = -1;
}

void iop_verdict_free(struct iop_verdict *v)
{
	size_t i;

	for (i = 0; i < v->nnotes; i++)
		free(v->notes[i]);
	free(v->notes);
	free(v->cases);
	free(v->progs);
	iop_verdict_init(v);
}

/* What a machine line's value may hold ('?' stands for any other byte). */
static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == ':' || c == '+' || c == '-' || c == '?';
}

struct field {
	const char *key, *val;
	size_t klen, vlen;
};

#define MAX_FIELDS 16

/* "k=v k=v ...": single blanks, non-empty words. Count, or -EINVAL. */
static int split_fields(const char *s, struct field *f, int max)
{
	int n = 0;
	const char *p;

	while (*s) {
		if (n == max)
			return -EINVAL;
		f[n].key = s;
		for (p = s; (*p >= 'a' && *p <= 'z') || *p == '_'; p++)
			;
		if (p == s || *p != '=')
			return -EINVAL;
		f[n].klen = p - s;
		f[n].val = ++p;
		for (; *p && *p != ' '; p++)
			if (!word_char(*p))
				return -EINVAL;
		f[n].vlen = p - f[n].val;
		if (!f[n].vlen)
			return -EINVAL;
		n++;
		if (*p == ' ') {
			p++;
			if (!*p)
				return -EINVAL;
		}
		s = p;
	}
	return n;
}

static const struct field *get(const struct field *f, int n, const char *key)
{
	size_t k = strlen(key);
	int i;

	for (i = 0; i < n; i++)
		if (f[i].klen == k && !memcmp(f[i].key, key, k))
			return &f[i];
	return NULL;
}

/* Copy a field's value into @dst of @size bytes: -EINVAL if absent or too long. */
static int copy_val(char *dst, size_t size, const struct field *f)
{
	if (!f || f->vlen >= size)
		return -EINVAL;
	memcpy(dst, f->val, f->vlen);
	dst[f->vlen] = '\0';
	return 0;
}

static bool one_of(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return true;
	return false;
}

static int uint_val(const struct field *f, unsigned int *out)
{
	char buf[24];
	uint64_t u;

	if (copy_val(buf, sizeof(buf), f) || iop_parse_u64(buf, 0, UINT_MAX, &u))
		return -EINVAL;
	*out = (unsigned int)u;
	return 0;
}

int iop_verdict_grow(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	if (n >= IOP_VERDICT_MAX_CASES)
		return -E2BIG;
	ncap = *cap ? *cap * 2 : 64;
	p = reallocarray(*arr, ncap, size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int parse_case(const char *s, struct iop_verdict *v)
{
	static const char *const results[] = { "pass", "fail", "skip", "known", "unfinished", NULL };
	struct field f[MAX_FIELDS];
	const struct field *lines, *bug;
	struct iop_case c;
	char range[48], *dash;
	uint64_t a, b;
	int n, ret;

	n = split_fields(s, f, MAX_FIELDS);
	if (n < 0)
		return n;
	memset(&c, 0, sizeof(c));
	lines = get(f, n, "lines");
	if (copy_val(c.result, sizeof(c.result), get(f, n, "result")) ||
	    !one_of(c.result, results) ||
	    copy_val(c.program, sizeof(c.program), get(f, n, "program")) ||
	    copy_val(c.name, sizeof(c.name), get(f, n, "name")) ||
	    copy_val(range, sizeof(range), lines))
		return -EINVAL;
	dash = strchr(range, '-');
	if (!dash)
		return -EINVAL;
	*dash = '\0';
	if (iop_parse_u64(range, 0, UINT_MAX, &a) || iop_parse_u64(dash + 1, 0, UINT_MAX, &b) ||
	    a > b)
		return -EINVAL;
	c.first = (unsigned int)a;
	c.last = (unsigned int)b;
	bug = get(f, n, "bug");
	if (bug && copy_val(c.bug, sizeof(c.bug), bug))
		return -EINVAL;
	if (!strcmp(c.result, "known") != !!bug)
		return -EINVAL;
	ret = iop_verdict_grow((void **)&v->cases, &v->cases_cap, v->ncases, sizeof(c));
	if (ret)
		return ret;
	v->cases[v->ncases++] = c;
	return 1;
}

static int parse_program(const char *s, struct iop_verdict *v)
{
	static const char *const results[] = { "pass", "fail", "excused", "skip", "unfinished", NULL };
	struct field f[MAX_FIELDS];
	const struct field *ended;
	struct iop_program p;
	int n, ret;

	n = split_fields(s, f, MAX_FIELDS);
	if (n < 0)
		return n;
	memset(&p, 0, sizeof(p));
	if (copy_val(p.result, sizeof(p.result), get(f, n, "result")) ||
	    !one_of(p.result, results) ||
	    copy_val(p.program, sizeof(p.program), get(f, n, "program")))
		return -EINVAL;
	/* Another way a later engine says a program ended is no timeout. */
	ended = get(f, n, "ended");
	p.timed_out = ended && ended->vlen == 7 && !memcmp(ended->val, "timeout", 7);
	ret = iop_verdict_grow((void **)&v->progs, &v->progs_cap, v->nprogs, sizeof(p));
	if (ret)
		return ret;
	v->progs[v->nprogs++] = p;
	return 1;
}

static int parse_result(const char *word, size_t wlen, const char *s, struct iop_verdict *v)
{
	static const char *const statuses[] = { "pass", "fail", NULL };
	static const char *const keys[] = {
		"passed", "failed", "known", "skipped", "programs", "programs_failed",
		"required_missing", "stale_known",
	};
	struct field f[MAX_FIELDS];
	const struct field *sec;
	unsigned int c[8], secs = 0;
	char status[8];
	size_t i;
	int n;

	n = split_fields(s, f, MAX_FIELDS);
	if (n < 0 || wlen >= sizeof(v->result_word))
		return -EINVAL;
	/* Parsed whole first: a malformed line leaves @v as it was. */
	if (copy_val(status, sizeof(status), get(f, n, "status")) || !one_of(status, statuses))
		return -EINVAL;
	for (i = 0; i < 8; i++)
		if (uint_val(get(f, n, keys[i]), &c[i]))
			return -EINVAL;
	sec = get(f, n, "seconds");
	if (sec && uint_val(sec, &secs))
		return -EINVAL;
	if (v->have_result)
		return 1;
	if (v->want_word[0] && (strlen(v->want_word) != wlen || memcmp(v->want_word, word, wlen)))
		return 1;
	v->have_result = true;
	memcpy(v->result_word, word, wlen);
	v->result_word[wlen] = '\0';
	strcpy(v->status, status);
	v->passed = c[0];
	v->failed = c[1];
	v->known = c[2];
	v->skipped = c[3];
	v->programs = c[4];
	v->programs_failed = c[5];
	v->required_missing = c[6];
	v->stale_known = c[7];
	v->seconds = sec ? (long)secs : -1;
	return 1;
}

int iop_verdict_parse_line(const char *line, struct iop_verdict *v)
{
	const char *w, *colon;
	size_t wlen;

	if (strncmp(line, "# ", 2))
		return 0;
	if (!strncmp(line, "# IOPATH-CASE: ", 15))
		return parse_case(line + 15, v);
	if (!strncmp(line, "# IOPATH-PROGRAM: ", 18))
		return parse_program(line + 18, v);
	/* "# WORD-RESULT: ", WORD of capitals and '-'. */
	w = line + 2;
	for (colon = w; (*colon >= 'A' && *colon <= 'Z') || *colon == '-'; colon++)
		;
	if (*colon != ':' || colon[1] != ' ')
		return 0;
	wlen = colon - w;
	if (wlen < 7 || memcmp(colon - 7, "-RESULT", 7))
		return 0;
	return parse_result(w, wlen, colon + 2, v);
}

/*
 * A value as one word of a machine line: [A-Za-z0-9_.:+-], '?' for any
 * other byte, cut to @size - 1 bytes: the writer writes nothing the
 * reader's struct cannot hold (a check's prose name of 300 bytes).
 */
static char *word(const char *s, size_t size)
{
	char *w = strndup(s && *s ? s : "?", size - 1);
	size_t i;

	for (i = 0; w && w[i]; i++)
		if (!word_char(w[i]) || w[i] == '?')
			w[i] = '?';
	return w;
}

int iop_verdict_fmt_case(char **line, const char *result, const char *program, const char *name,
			 unsigned long first, unsigned long last, const char *bug)
{
	struct iop_case c;
	char *p = word(program, sizeof(c.program)), *n = word(name, sizeof(c.name));
	int ret = -ENOMEM;

	if (p && n && asprintf(line, "# IOPATH-CASE: result=%s program=%s name=%s lines=%lu-%lu%s%.*s",
			       result, p, n, first, last, bug ? " bug=" : "",
			       (int)sizeof(c.bug) - 1, bug ? bug : "") >= 0)
		ret = 0;
	free(p);
	free(n);
	return ret;
}

int iop_verdict_fmt_program(char **line, const char *result, const char *program, bool timed_out)
{
	struct iop_program pr;
	char *p = word(program, sizeof(pr.program));
	int ret = -ENOMEM;

	if (p && asprintf(line, "# IOPATH-PROGRAM: result=%s program=%s%s", result, p,
			  timed_out ? " ended=timeout" : "") >= 0)
		ret = 0;
	free(p);
	return ret;
}

int iop_verdict_fmt_result(char **line, const struct iop_verdict *v)
{
	char secs[32] = "";

	if (v->seconds >= 0)
		snprintf(secs, sizeof(secs), " seconds=%ld", v->seconds);
	if (asprintf(line, "# %s: status=%s passed=%u failed=%u known=%u skipped=%u programs=%u programs_failed=%u required_missing=%u stale_known=%u%s",
		     v->result_word, v->status, v->passed, v->failed, v->known, v->skipped,
		     v->programs, v->programs_failed, v->required_missing, v->stale_known,
		     secs) < 0)
		return -ENOMEM;
	return 0;
}

struct reader {
	struct iop_verdict *v;
	void (*each)(void *arg, const struct iop_verdict *v, enum iop_verdict_kind kind);
	void *arg;
};

static int read_line(void *arg, const char *line, size_t lineno, char *why, size_t len)
{
	struct reader *r = arg;
	struct iop_verdict *v = r->v;
	size_t nc = v->ncases, np = v->nprogs, n = strlen(line);
	bool had = v->have_result;
	char *copy = NULL;
	int ret;

	(void)lineno;
	if (n && line[n - 1] == '\r') {
		copy = strndup(line, n - 1);
		if (!copy)
			return -ENOMEM;
		line = copy;
	}
	ret = iop_verdict_parse_line(line, v);
	free(copy);
	if (ret == -E2BIG) {
		snprintf(why, len, "more than %u machine lines", IOP_VERDICT_MAX_CASES);
		return -EINVAL;
	}
	if (ret == -EINVAL)
		snprintf(why, len, "a malformed machine line");
	if (ret <= 0 || !r->each)
		return ret < 0 ? ret : 0;
	if (v->ncases > nc)
		r->each(r->arg, v, IOP_VERDICT_CASE);
	else if (v->nprogs > np)
		r->each(r->arg, v, IOP_VERDICT_PROGRAM);
	else if (v->have_result && !had)
		r->each(r->arg, v, IOP_VERDICT_RESULT);
	return 0;
}

int iop_verdict_read(const char *path, struct iop_verdict *v,
		     void (*each)(void *arg, const struct iop_verdict *v,
				  enum iop_verdict_kind kind),
		     void *arg, char *why, size_t len)
{
	struct reader r = { .v = v, .each = each, .arg = arg };

	if (!path)
		return -EINVAL;
	return iop_input_each_line(path, IOP_VERDICT_MAX_LINE, read_line, &r, why, len);
}
