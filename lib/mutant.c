// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one reader of mutant headers (see mutant.h). It reads line by line
 * through lib/input.c: a line over IOP_MUTANT_LINE_MAX, a FIFO or a
 * device is refused, and reading stops at the "+++ " line after the
 * header, so a large diff costs nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "mutant.h"
#include "mutgen.h"
#include "number.h"
#include "quote.h"
#include "why.h"

static bool key_char(char c, bool first)
{
	if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
		return true;
	return !first && ((c >= '0' && c <= '9') || c == '-');
}

/* The length of the key of "# Key: value" at @line, or 0 if it is not a field. */
static size_t key_len(const char *line)
{
	size_t n = 0;

	if (strncmp(line, "# ", 2))
		return 0;
	while (key_char(line[2 + n], n == 0))
		n++;
	if (!n || line[2 + n] != ':' || (line[3 + n] != ' ' && line[3 + n] != '\0'))
		return 0;
	return n;
}

/* For Filter: what comes before its '=', the program; the whole value without one. */
static size_t filter_program(const char *value)
{
	const char *eq = strchr(value, '=');

	return eq ? (size_t)(eq - value) : strlen(value);
}

/* A second field @key with @value: the line of the first, or 0. */
static unsigned int earlier(const struct iop_mutant *m, const char *key, const char *value)
{
	for (size_t i = 0; i < m->nfields; i++) {
		const struct iop_mutant_field *f = &m->fields[i];

		if (strcmp(f->key, key))
			continue;
		if (strcmp(key, "Filter"))
			return f->line;
		if (filter_program(f->value) == filter_program(value) &&
		    !strncmp(f->value, value, filter_program(value)))
			return f->line;
	}
	return 0;
}

static int add_field(struct iop_mutant *m, const char *path, unsigned int lineno,
		     const char *line, size_t klen, char *why, size_t len)
{
	struct iop_mutant_field *f;
	const char *v = line + 3 + klen;
	size_t vlen;
	unsigned int first;

	while (*v == ' ')
		v++;
	vlen = strlen(v);
	while (vlen && v[vlen - 1] == ' ')
		vlen--;
	if (klen > IOP_MUTANT_KEY_MAX) {
		iop_why(why, len, "%s:%u: a header key longer than %d bytes", path, lineno,
			IOP_MUTANT_KEY_MAX);
		return -EINVAL;
	}
	if (!vlen) {
		iop_why(why, len, "%s:%u: '# %.*s:' without a value", path, lineno, (int)klen,
			line + 2);
		return -EINVAL;
	}
	if (m->nfields == IOP_MUTANT_FIELDS_MAX) {
		iop_why(why, len, "%s:%u: more than %d header fields", path, lineno,
			IOP_MUTANT_FIELDS_MAX);
		return -EINVAL;
	}
	if (!m->fields) {
		m->fields = calloc(IOP_MUTANT_FIELDS_MAX, sizeof(*m->fields));
		if (!m->fields)
			goto nomem;
	}
	f = &m->fields[m->nfields];
	memcpy(f->key, line + 2, klen);
	f->key[klen] = '\0';
	f->value = strndup(v, vlen);
	if (!f->value)
		goto nomem;
	first = earlier(m, f->key, f->value);
	if (first) {
		iop_why(why, len, "%s:%u: '# %s:' given twice%s (first on line %u)", path, lineno,
			f->key, strcmp(f->key, "Filter") ? "" : " for one program", first);
		free(f->value);
		f->value = NULL;
		return -EINVAL;
	}
	f->line = lineno;
	m->nfields++;
	return 0;
nomem:
	iop_why(why, len, "%s: %s", path, strerror(ENOMEM));
	return -ENOMEM;
}

/* A header line: a field, a comment, empty, or git's "diff " and "index " lines. */
static int header_line(struct iop_mutant *m, const char *path, unsigned int lineno,
		       const char *line, size_t n, char *why, size_t len)
{
	size_t klen;

	if (memchr(line, '\0', n)) {
		iop_why(why, len, "%s:%u: a NUL byte in the header", path, lineno);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if (iop_is_control(line, i)) {
			iop_why(why, len, "%s:%u: a control character or a byte that is not UTF-8 (0x%02x) in the header",
				path, lineno, (unsigned char)line[i]);
			return -EINVAL;
		}
	}
	if (!n || !strncmp(line, "diff ", 5) || !strncmp(line, "index ", 6))
		return 0;
	if (line[0] != '#') {
		iop_why(why, len, "%s:%u: in the header, neither '# Key: value' nor a comment",
			path, lineno);
		return -EINVAL;
	}
	klen = key_len(line);
	return klen ? add_field(m, path, lineno, line, klen, why, len) : 0;
}

int iop_mutant_read(const char *path, struct iop_mutant *m, char *why, size_t len)
{
	struct iop_input in;
	bool terminated, in_header = true;
	char *line;
	ssize_t n;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = iop_input_open(&in, path, IOP_MUTANT_LINE_MAX, why, len);
	if (ret)
		return ret;
	while ((n = iop_input_line(&in, &line, &terminated, why, len)) >= 0) {
		unsigned int lineno = (unsigned int)in.lineno;

		if (!in_header) {
			if (!strncmp(line, "+++ ", 4))
				m->diff_line = lineno;
			break;
		}
		if (!strncmp(line, "--- ", 4)) {
			in_header = false;
			continue;
		}
		ret = header_line(m, path, lineno, line, (size_t)n, why, len);
		if (ret)
			goto free_mutant;
	}
	if (n < 0 && n != -ENODATA) {
		ret = (int)n;
		goto free_mutant;
	}
	iop_input_close(&in);
	return 0;
free_mutant:
	iop_input_close(&in);
	iop_mutant_free(m);
	return ret;
}

const char *iop_mutant_get(const struct iop_mutant *m, const char *key)
{
	for (size_t i = 0; i < m->nfields; i++)
		if (!strcmp(m->fields[i].key, key))
			return m->fields[i].value;
	return NULL;
}

int iop_mutant_generated(const struct iop_mutant *m, const char *path, int *op, uint64_t *seed,
			 char *why, size_t len)
{
	const char *v = iop_mutant_get(m, "Generated"), *comma;

	if (!v)
		return 0;
	comma = strchr(v, ',');
	*op = comma ? iop_mutop_parse(v, (size_t)(comma - v)) : -1;
	if (*op < 0 || comma[1] != ' ' || iop_parse_u64(comma + 2, 0, INT64_MAX, seed)) {
		iop_why(why, len, "%s: '# Generated: %s' is not 'OPERATOR, SEED' (an operator of iopath mutant generate, a seed 0 to 2^63-1)",
			path, v);
		return -EINVAL;
	}
	return 1;
}

/* Whether the blank-separated words of @s include @w. */
static bool has_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = strstr(s, w); p; p = strstr(p + 1, w))
		if ((p == s || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

int iop_mutant_all_tests(const struct iop_mutant *m)
{
	const char *t = iop_mutant_get(m, "Tests");

	return t && !strcmp(t, "all");
}

int iop_mutant_check(const struct iop_mutant *m, const char *path, char *why, size_t len)
{
	const char *tests = iop_mutant_get(m, "Tests");
	uint64_t seed;
	int op, ret;

	if (!iop_mutant_get(m, "Function") || !iop_mutant_get(m, "Bug") || !tests) {
		iop_why(why, len,
			"%s: the header needs '# Function:', '# Bug:' and '# Tests:' lines", path);
		return -EINVAL;
	}
	if (!iop_mutant_all_tests(m) && has_word(tests, "all")) {
		iop_why(why, len, "%s: '# Tests: all' (the whole collection) goes alone", path);
		return -EINVAL;
	}
	ret = iop_mutant_generated(m, path, &op, &seed, why, len);
	if (ret < 0)
		return ret;
	if (!m->diff_line) {
		iop_why(why, len, "%s: no unified diff after the header", path);
		return -EINVAL;
	}
	return 0;
}

void iop_mutant_free(struct iop_mutant *m)
{
	for (size_t i = 0; i < m->nfields; i++)
		free(m->fields[i].value);
	free(m->fields);
	memset(m, 0, sizeof(*m));
}

/* A mutant's name: [A-Za-z0-9][A-Za-z0-9._-]*, as the scripts use it in paths. */
static bool good_name(const char *s, size_t n)
{
	if (!n || n > 200 || s[0] == '.' || s[0] == '_' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

bool iop_mutant_name_ok(const char *s)
{
	return good_name(s, strlen(s));
}

static int patch_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 6 && !strcmp(d->d_name + n - 6, ".patch");
}

int iop_mutant_scan(const char *dir, char ***names, size_t *count, char *why, size_t len)
{
	struct dirent **ents;
	int n, ret = 0;

	*names = NULL;
	*count = 0;
	n = scandir(dir, &ents, patch_filter, alphasort);
	if (n < 0) {
		snprintf(why, len, "--mutants %s: %s", dir, strerror(errno));
		return -errno;
	}
	*names = calloc((size_t)n + 1, sizeof(**names));
	for (int i = 0; i < n; i++) {
		const char *d = ents[i]->d_name;
		size_t l = strlen(d) - 6;
		char path[PATH_MAX];
		struct iop_mutant m;

		if (ret || !*names)
			goto next;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, d) >= sizeof(path)) {
			snprintf(why, len, "%s/%s: name too long", dir, d);
			ret = -ENAMETOOLONG;
			goto next;
		}
		if (!good_name(d, l)) {
			snprintf(why, len, "%s: a mutant's name is [A-Za-z0-9._-]", path);
			ret = -EINVAL;
			goto next;
		}
		if (iop_mutant_read(path, &m, why, len)) {
			ret = -EINVAL;
			goto next;
		}
		ret = iop_mutant_check(&m, path, why, len);
		iop_mutant_free(&m);
		if (!ret) {
			(*names)[*count] = strndup(d, l);
			if (!(*names)[*count])
				ret = -ENOMEM;
			else
				(*count)++;
		}
next:
		free(ents[i]);
	}
	free(ents);
	if (!*names)
		ret = -ENOMEM;
	if (!ret && !*count) {
		snprintf(why, len, "--mutants: no *.patch in %s", dir);
		ret = -ENOENT;
	}
	if (ret == -ENOMEM)
		snprintf(why, len, "%s", strerror(ENOMEM));
	if (ret)
		iop_mutant_names_free(*names, *count);
	return ret;
}

void iop_mutant_names_free(char **names, size_t count)
{
	for (size_t i = 0; names && i < count; i++)
		free(names[i]);
	free(names);
}

