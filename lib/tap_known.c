// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The known-failures list (configs/known-failures): its one reader. An
 * entry's KERNEL field says where the bug lives, either as an anchored ERE
 * on the whole uname -r (those releases only) or, for a distribution whose
 * point releases keep coming, as releases and ranges compared as versions:
 *
 *   6.12.117..             6.12.y from 6.12.117 until the fix
 *   6.1.176..6.1.190       6.1.y from 6.1.176; 6.1.190 fixes it
 *   6.12.118               that release (observed), nothing around it
 *
 * separated by commas, each range on one stable line (its first two
 * numbers). A release is compared by its leading numbers (struct
 * iop_kver), so a distribution's own suffix (+deb12-amd64, -1-amd64, a
 * local version) does not take it out of the range. Every ERE is checked
 * and compiled as the list is read: a bad one stops the run before any
 * test, with its line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "tap.h"
#include "why.h"

#define KF_MAX_LINE 65536
#define KF_MAX_ENTRIES 100000
#define KF_MAX_SPANS 64

void iop_kf_init(struct iop_kf *kf)
{
	memset(kf, 0, sizeof(*kf));
}

static void entry_free(struct iop_kf_entry *e)
{
	if (e->test) {
		regfree(&e->test_re);
		regfree(&e->diag_re);
		if (e->kernel_is_ere)
			regfree(&e->kernel_re);
	}
	free(e->kernel);
	free(e->spans);
}

void iop_kf_free(struct iop_kf *kf)
{
	size_t i;

	for (i = 0; i < kf->n; i++)
		entry_free(&kf->e[i]);
	free(kf->e);
	iop_kf_init(kf);
}

/*
 * Why @re is not an ERE that reads the same everywhere it was ever read
 * (gawk, mawk, busybox awk, glibc's regcomp), or NULL; @buf holds a
 * reason that quotes a character. Stricter than POSIX where readers
 * differ: {m,n} is text to some, '\' in a bracket an escape to some, and
 * a backslash before a letter or digit is an extension (\w, \b) or a
 * back-reference, whose matching can take exponential time.
 */
static const char *ere_error(const char *re, char *buf, size_t len)
{
	enum { START, OPEN, BAR, ANCHOR, ATOM, QUANT } prev = START;
	size_t i, n = strlen(re);
	int depth = 0;
	const char *j;
	char c;

	for (i = 0; i < n; i++) {
		c = re[i];
		if (c == '\\') {
			if (i + 1 == n)
				return "ends in a lone backslash";
			i++;
			if ((re[i] >= 'a' && re[i] <= 'z') || (re[i] >= 'A' && re[i] <= 'Z') ||
			    (re[i] >= '0' && re[i] <= '9')) {
				snprintf(buf, len, "'\\%c': an escape some regex engines read as a class, an anchor or a back-reference; write the character without '\\'",
					 re[i]);
				return buf;
			}
			prev = ATOM;
		} else if (c == '[') {
			i++;
			if (re[i] == '^')
				i++;
			if (re[i] == ']')
				i++;
			for (; i < n && re[i] != ']'; i++) {
				if (re[i] == '\\')
					return "a '\\' inside [...]: gawk and mawk read it as an escape, busybox awk as itself";
				if (re[i] != '[' || !re[i + 1] || !strchr(":.=", re[i + 1]))
					continue;
				for (j = re + i + 2; *j && !(j[0] == re[i + 1] && j[1] == ']'); j++)
					;
				if (!*j) {
					snprintf(buf, len, "'[%c' is not closed", re[i + 1]);
					return buf;
				}
				i = (size_t)(j - re) + 1;
			}
			if (i >= n)
				return "a '[' is not closed";
			prev = ATOM;
		} else if (c == '(') {
			depth++;
			prev = OPEN;
		} else if (c == ')') {
			if (!depth)
				return "a ')' has no '('";
			if (prev == OPEN || prev == BAR)
				return "an empty group or alternative";
			depth--;
			prev = ATOM;
		} else if (c == '|') {
			if (prev == START || prev == OPEN || prev == BAR)
				return "an empty alternative";
			prev = BAR;
		} else if (c == '*' || c == '+' || c == '?') {
			if (prev == QUANT)
				return "a quantifier repeats a quantifier";
			if (prev != ATOM) {
				snprintf(buf, len, "'%c' has nothing to repeat", c);
				return buf;
			}
			prev = QUANT;
		} else if (c == '{' || c == '}') {
			snprintf(buf, len, "'%c': mawk reads {m,n} as text, gawk as a repetition; write the repetition out, or '\\%c' for the character",
				 c, c);
			return buf;
		} else if (c == '^' || c == '$') {
			prev = ANCHOR;
		} else {
			prev = ATOM;
		}
	}
	if (depth)
		return "a '(' is not closed";
	if (prev == BAR)
		return "an empty alternative";
	return NULL;
}

/* @re checked and compiled into @out: 0, or -EINVAL with the reason. */
static int ere_compile(regex_t *out, const char *re, char *why, size_t len)
{
	char buf[256], msg[256];
	const char *bad = ere_error(re, buf, sizeof(buf));
	int ret;

	if (bad) {
		iop_why(why, len, "ERE '%s': %s", re, bad);
		return -EINVAL;
	}
	ret = regcomp(out, re, REG_EXTENDED | REG_NOSUB);
	if (ret) {
		regerror(ret, out, msg, sizeof(msg));
		regfree(out);
		iop_why(why, len, "ERE '%s': %s", re, msg);
		return ret == REG_ESPACE ? -ENOMEM : -EINVAL;
	}
	return 0;
}

/*
 * The leading version of @s into @v: numbers joined by '.', and after the
 * third a "-N" that the next '-', '+' or the end follows (Debian's ABI
 * number, its revision). *@end: where it stopped. -EINVAL if it does not
 * start with "N.N".
 */
static int parse_kver(const char *s, const char **end, struct iop_kver *v)
{
	const char *p = s, *q;
	unsigned long x;

	memset(v, 0, sizeof(*v));
	*end = s;
	while (v->n < 4) {
		for (q = p, x = 0; *q >= '0' && *q <= '9' && q - p < 7; q++)
			x = x * 10 + (unsigned long)(*q - '0');
		if (q == p || (*q >= '0' && *q <= '9'))
			break;
		if (v->n == 3 && *q && !strchr("-+.,", *q))
			break;
		v->c[v->n++] = (unsigned int)x;
		*end = q;
		if (!((v->n < 3 && *q == '.') || (v->n == 3 && *q == '-')))
			break;
		p = q + 1;
	}
	return v->n >= 2 ? 0 : -EINVAL;
}

static int kver_cmp(const struct iop_kver *a, const struct iop_kver *b)
{
	int i;

	for (i = 0; i < 4; i++)
		if (a->c[i] != b->c[i])
			return a->c[i] < b->c[i] ? -1 : 1;
	return 0;
}

static bool same_line(const struct iop_kver *a, const struct iop_kver *b)
{
	return a->c[0] == b->c[0] && a->c[1] == b->c[1];
}

static void kver_text(const struct iop_kver *v, char *buf, size_t len)
{
	if (v->n == 4)
		snprintf(buf, len, "%u.%u.%u-%u", v->c[0], v->c[1], v->c[2], v->c[3]);
	else
		snprintf(buf, len, "%u.%u.%u", v->c[0], v->c[1], v->c[2]);
}

void iop_kf_span_text(const struct iop_kf_span *s, char *buf, size_t len)
{
	char a[48], b[48];

	kver_text(&s->first, a, sizeof(a));
	if (!s->range) {
		snprintf(buf, len, "%s", a);
		return;
	}
	kver_text(&s->fix, b, sizeof(b));
	if (s->has_fix)
		snprintf(buf, len, "%u.%u.y from %s, fixed in %s", s->first.c[0], s->first.c[1],
			 a, b);
	else
		snprintf(buf, len, "%u.%u.y from %s until the fix", s->first.c[0], s->first.c[1],
			 a);
}

/* One release or range of a KERNEL field, [@s, @e). */
static int parse_span(const char *s, const char *e, struct iop_kf_span *sp, char *why,
		      size_t len)
{
	const char *p;
	int w = (int)(e - s);

	memset(sp, 0, sizeof(*sp));
	if (parse_kver(s, &p, &sp->first) || sp->first.n < 3)
		goto bad;
	if (p == e)
		return 0;
	if (e - p < 2 || p[0] != '.' || p[1] != '.')
		goto bad;
	sp->range = true;
	p += 2;
	if (p == e)
		return 0;
	if (parse_kver(p, &p, &sp->fix) || p != e || sp->fix.n < 3)
		goto bad;
	sp->has_fix = true;
	if (!same_line(&sp->first, &sp->fix) || kver_cmp(&sp->first, &sp->fix) >= 0) {
		iop_why(why, len, "KERNEL range '%.*s': the fix must come after the first release seen, on its stable line",
			w, s);
		return -EINVAL;
	}
	return 0;
bad:
	iop_why(why, len, "KERNEL '%.*s': neither a release (6.12.117, 6.1.0-57) nor a range (6.12.117.., 6.1.176..6.1.190)",
		w, s);
	return -EINVAL;
}

/* A KERNEL field that is not an ERE: releases and ranges. */
static int parse_spans(struct iop_kf_entry *en, const char *k, char *why, size_t len)
{
	const char *s = k, *e;
	int ret;

	for (;;) {
		e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		if (en->nspans == KF_MAX_SPANS) {
			iop_why(why, len, "KERNEL: more than %d releases and ranges", KF_MAX_SPANS);
			return -EINVAL;
		}
		ret = parse_span(s, e, &en->spans[en->nspans], why, len);
		if (ret)
			return ret;
		en->nspans++;
		if (!*e)
			return 0;
		s = e + 1;
	}
}

enum iop_kf_where iop_kf_where(const struct iop_kf_entry *e, const char *kernel,
			       const struct iop_kf_span **span)
{
	enum iop_kf_where best = IOP_KF_NONE, w;
	const struct iop_kf_span *s;
	struct iop_kver v;
	const char *end;
	size_t i;

	if (span)
		*span = NULL;
	if (!kernel)
		kernel = "";
	if (e->kernel_is_ere)
		return regexec(&e->kernel_re, kernel, 0, NULL, 0) ? IOP_KF_NONE : IOP_KF_OBSERVED;
	if (parse_kver(kernel, &end, &v))
		return IOP_KF_NONE;
	for (i = 0; i < e->nspans; i++) {
		s = &e->spans[i];
		if (!same_line(&s->first, &v))
			continue;
		if (!kver_cmp(&s->first, &v))
			w = IOP_KF_OBSERVED;
		else if (!s->range)
			continue;
		else if (kver_cmp(&v, &s->first) < 0)
			w = IOP_KF_BEFORE;
		else if (s->has_fix && kver_cmp(&v, &s->fix) >= 0)
			w = IOP_KF_FIXED;
		else
			w = IOP_KF_INSIDE;
		/* OBSERVED, then INSIDE, FIXED, BEFORE: the strongest span says. */
		if (best == IOP_KF_NONE || w == IOP_KF_OBSERVED ||
		    (w == IOP_KF_INSIDE && best != IOP_KF_OBSERVED) ||
		    (w == IOP_KF_FIXED && best == IOP_KF_BEFORE)) {
			best = w;
			if (span)
				*span = w == IOP_KF_OBSERVED ? NULL : s;
		}
	}
	return best;
}

/*
 * @line split into its five fields: two or more blanks or a tab end a
 * field, so that an ERE can hold a single space. 0, or -EINVAL.
 */
static int split_entry(char *line, char *f[5])
{
	char *p = line, *q;
	int nf = 0;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	n = strlen(p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		p[--n] = '\0';
	while (nf < 4) {
		for (q = p; *q && !(*q == '\t' || (q[0] == ' ' && q[1] == ' ')); q++)
			;
		if (!*q)
			break;
		f[nf++] = p;
		*q++ = '\0';
		while (*q == ' ' || *q == '\t')
			q++;
		p = q;
	}
	f[4] = p;
	return nf < 4 || !*p ? -EINVAL : 0;
}

static bool anchored(const char *re)
{
	size_t n = strlen(re);

	return n >= 2 && re[0] == '^' && re[n - 1] == '$';
}

static bool bug_name_ok(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

/* The fields of @en checked and compiled. */
static int entry_compile(struct iop_kf_entry *en, char *why, size_t len)
{
	int ret;

	if (en->kernel[0] == '^' && !anchored(en->kernel)) {
		iop_why(why, len, "KERNEL-ERE '%s' must match the whole uname -r: ^...$",
			en->kernel);
		return -EINVAL;
	}
	if (!anchored(en->test)) {
		iop_why(why, len, "TEST-ERE '%s' must match the whole test name: ^...$", en->test);
		return -EINVAL;
	}
	if (!bug_name_ok(en->bug)) {
		iop_why(why, len, "BUG-NAME '%s': lower case letters, digits and '-'", en->bug);
		return -EINVAL;
	}
	en->kernel_is_ere = en->kernel[0] == '^';
	if (!en->kernel_is_ere) {
		en->spans = calloc(KF_MAX_SPANS, sizeof(*en->spans));
		if (!en->spans)
			return -ENOMEM;
		ret = parse_spans(en, en->kernel, why, len);
		if (ret)
			return ret;
	} else {
		/* Checked, not compiled yet: every ERE's syntax before any compile. */
		char buf[256];
		const char *bad = ere_error(en->kernel, buf, sizeof(buf));

		if (bad) {
			iop_why(why, len, "ERE '%s': %s", en->kernel, bad);
			return -EINVAL;
		}
	}
	ret = ere_compile(&en->test_re, en->test, why, len);
	if (ret)
		return ret;
	ret = ere_compile(&en->diag_re, en->diag, why, len);
	if (ret) {
		regfree(&en->test_re);
		return ret;
	}
	if (en->kernel_is_ere) {
		ret = ere_compile(&en->kernel_re, en->kernel, why, len);
		if (ret) {
			regfree(&en->test_re);
			regfree(&en->diag_re);
			return ret;
		}
	}
	return 0;
}

int iop_kf_add_line(struct iop_kf *kf, const char *line, unsigned long lineno,
		    char *why, size_t len)
{
	struct iop_kf_entry en = { 0 }, *ne;
	const char *p = line;
	char *f[5];
	int ret;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return 0;
	if (kf->n >= KF_MAX_ENTRIES) {
		iop_why(why, len, "more than %d entries", KF_MAX_ENTRIES);
		return -EINVAL;
	}
	en.kernel = strdup(line);
	if (!en.kernel)
		return -ENOMEM;
	if (split_entry(en.kernel, f)) {
		free(en.kernel);
		iop_why(why, len, "expected \"KERNEL-ERE-OR-RELEASES  TEST-ERE  DIAGNOSTIC-ERE  BUG-NAME  REASON\" (separated by two spaces or a tab)");
		return -EINVAL;
	}
	/* The fields point into one copy of the line, which en.kernel owns. */
	memmove(en.kernel, f[0], strlen(f[0]) + 1);
	en.test = f[1];
	en.diag = f[2];
	en.bug = f[3];
	en.reason = f[4];
	en.line = lineno;
	ret = entry_compile(&en, why, len);
	if (ret) {
		free(en.spans);
		free(en.kernel);
		return ret;
	}
	if (kf->n == kf->cap) {
		size_t cap = kf->cap ? kf->cap * 2 : 16;

		ne = reallocarray(kf->e, cap, sizeof(*ne));
		if (!ne) {
			entry_free(&en);
			return -ENOMEM;
		}
		kf->e = ne;
		kf->cap = cap;
	}
	kf->e[kf->n++] = en;
	return 0;
}

static int kf_line(void *kf, const char *line, size_t lineno, char *why, size_t len)
{
	return iop_kf_add_line(kf, line, lineno, why, len);
}

int iop_kf_read(struct iop_kf *kf, const char *path, char *why, size_t len)
{
	return iop_input_each_line(path, KF_MAX_LINE, kf_line, kf, why, len);
}

void iop_kf_list(const struct iop_kf *kf, const char *kernel, const char *test, FILE *out)
{
	const struct iop_kf_entry *e;
	enum iop_kf_where w;
	size_t i;

	for (i = 0; i < kf->n; i++) {
		e = &kf->e[i];
		w = iop_kf_where(e, kernel, NULL);
		if (kernel && *kernel && w != IOP_KF_OBSERVED && w != IOP_KF_INSIDE)
			continue;
		if (test && regexec(&e->test_re, test, 0, NULL, 0))
			continue;
		fprintf(out, "%s\t%s\t%s\t%s\t%lu\t%s\n", e->kernel, e->test, e->diag, e->bug,
			e->line, e->reason);
	}
}
