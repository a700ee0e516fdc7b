// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The source lines a coverage run executed, for iopath mutant generate
 * --executed-lines: iopath coverage's lines.tsv, "file<TAB>line<TAB>ran"
 * (ran 1 or 0) for every line of the fast-path files that has
 * instructions, under a header line "file<TAB>line<TAB>ran". A site is in
 * executed code when a line it spans ran; a line with no instructions of
 * its own (a declaration, code the compiler folded into another line) is
 * neither run nor not run.
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
#include "mutant_int.h"

#define LINES_TSV_LINE_MAX	512

static int cmp_line(const void *a, const void *b)
{
	const struct iop_exec_line *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* "FILE<TAB>LINE<TAB>RAN" into @l (file strdup'd); false when out of format. */
static bool parse_row(char *s, struct iop_exec_line *l)
{
	char *t1 = strchr(s, '\t'), *t2, *end;
	unsigned long v;

	if (!t1 || t1 == s)
		return false;
	t2 = strchr(t1 + 1, '\t');
	if (!t2 || strchr(t2 + 1, '\t'))
		return false;
	for (char *p = s; p < t1; p++)
		if ((unsigned char)*p < 0x21 || *p == 0x7f)
			return false;
	errno = 0;
	v = strtoul(t1 + 1, &end, 10);
	if (errno || end != t2 || t1[1] < '1' || t1[1] > '9' || v > UINT_MAX)
		return false;
	if (strcmp(t2 + 1, "0") && strcmp(t2 + 1, "1"))
		return false;
	*t1 = '\0';
	l->file = strdup(s);
	l->line = (unsigned int)v;
	l->ran = t2[1] == '1';
	return true;
}

int iop_exec_lines_read(const char *path, struct iop_exec_lines *el, char *why, size_t len)
{
	struct iop_input in;
	size_t cap = 0;
	char *line;
	bool term;
	ssize_t n;

	memset(el, 0, sizeof(*el));
	if (iop_input_open(&in, path, LINES_TSV_LINE_MAX, why, len))
		return -EINVAL;
	while ((n = iop_input_line(&in, &line, &term, why, len)) >= 0) {
		if (in.lineno == 1) {
			if (strcmp(line, "file\tline\tran")) {
				snprintf(why, len, "%s:1: not iopath coverage's lines.tsv (no header \"file, line, ran\")",
					 path);
				goto bad;
			}
			continue;
		}
		if (el->n == cap) {
			struct iop_exec_line *nl;

			cap = cap ? cap * 2 : 1024;
			nl = reallocarray(el->l, cap, sizeof(*nl));
			if (!nl)
				goto nomem;
			el->l = nl;
		}
		if (!parse_row(line, &el->l[el->n])) {
			snprintf(why, len, "%s:%zu: expected \"FILE<TAB>LINE<TAB>RAN\" (RAN 0 or 1)", path,
				 in.lineno);
			goto bad;
		}
		if (!el->l[el->n++].file)
			goto nomem;
	}
	iop_input_close(&in);
	if (n != -ENODATA)
		goto out;
	if (!el->n) {
		snprintf(why, len, "%s: no line in it", path);
		goto out;
	}
	qsort(el->l, el->n, sizeof(*el->l), cmp_line);
	return 0;
nomem:
	snprintf(why, len, "%s: %s", path, strerror(ENOMEM));
bad:
	iop_input_close(&in);
out:
	iop_exec_lines_free(el);
	return -EINVAL;
}

int iop_exec_lines_state(const struct iop_exec_lines *el, const char *file, unsigned int first,
			 unsigned int last)
{
	struct iop_exec_line key = { .file = file, .line = first };
	size_t lo = 0, hi = el->n;
	int state = -1;

	/* The first row at or after (file, first). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_line(&el->l[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < el->n && !strcmp(el->l[lo].file, file) && el->l[lo].line <= last; lo++) {
		if (el->l[lo].ran)
			return 1;
		state = 0;
	}
	return state;
}

void iop_exec_lines_free(struct iop_exec_lines *el)
{
	for (size_t i = 0; i < el->n; i++)
		free((char *)el->l[i].file);
	free(el->l);
	el->l = NULL;
	el->n = 0;
}
