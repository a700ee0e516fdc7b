// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: lib/quote.c, the one shell quoting (compare's "reproduce:"
 * line) and the one control-character escaper of every output. The input,
 * up to its first NUL, is the string. A finding is: a quoted word or an
 * escaped string holding a byte a terminal obeys, a quoted word that is
 * not printable ASCII, or either one that does not decode (by the
 * grammar of bash's '...' and $'...', and of \\xHH and \\\\) to the input,
 * byte for byte: pasting the reproduce line must run exactly what the
 * record said.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "quote.h"

static void finding(const char *what, const char *in, const char *out)
{
	fprintf(stderr, "quote: %s\n  in:  %s\n  out: %s\n", what, in, out);
	abort();
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Bash's reading of one word made of bare, '...' and $'...' parts; NULL if malformed. */
static char *shell_decode(const char *w)
{
	char *out = malloc(strlen(w) + 1), *o = out;

	if (!out)
		return NULL;
	while (*w) {
		if (*w == '\'') {
			for (w++; *w && *w != '\''; w++)
				*o++ = *w;
			if (!*w++)
				goto bad;
		} else if (w[0] == '$' && w[1] == '\'') {
			for (w += 2; *w && *w != '\''; w++) {
				if (*w != '\\') {
					*o++ = *w;
					continue;
				}
				w++;
				if (*w == '\\' || *w == '\'') {
					*o++ = *w;
				} else if (*w == 'x' && hex(w[1]) >= 0 && hex(w[2]) >= 0) {
					*o++ = (char)(hex(w[1]) * 16 + hex(w[2]));
					w += 2;
				} else {
					goto bad;
				}
			}
			if (!*w++)
				goto bad;
		} else if (*w == '\\' && w[1]) {
			*o++ = w[1];
			w += 2;
		} else if (strchr(" \t\n;&|<>()$`\"*?[]{}~#!", *w)) {
			goto bad;	/* a second word, or an expansion */
		} else {
			*o++ = *w++;
		}
	}
	*o = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

/* iop_esc()'s inverse: \\ and \xHH. */
static char *esc_decode(const char *e)
{
	char *out = malloc(strlen(e) + 1), *o = out;

	if (!out)
		return NULL;
	while (*e) {
		if (*e != '\\') {
			*o++ = *e++;
		} else if (e[1] == '\\') {
			*o++ = '\\';
			e += 2;
		} else if (e[1] == 'x' && hex(e[2]) >= 0 && hex(e[3]) >= 0) {
			*o++ = (char)(hex(e[2]) * 16 + hex(e[3]));
			e += 4;
		} else {
			free(out);
			return NULL;
		}
	}
	*o = '\0';
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = strndup((const char *)data, size), *q = NULL, *e, *back;
	size_t qlen = 0;
	FILE *f;

	if (!in)
		return 0;
	f = open_memstream(&q, &qlen);
	if (!f) {
		free(in);
		return 0;
	}
	iop_shell_quote(f, in);
	if (fclose(f)) {
		free(in);
		return 0;
	}
	for (size_t i = 0; i < qlen; i++)
		if ((unsigned char)q[i] < 0x20 || (unsigned char)q[i] >= 0x7f)
			finding("shell word not printable ASCII", in, q);
	back = shell_decode(q);
	if (!back || strcmp(back, in))
		finding("shell word does not read back as the string", in, q);
	free(back);
	free(q);

	e = iop_esc_dup(in);
	if (e) {
		for (size_t i = 0; e[i]; i++)
			if (iop_is_control(e, i))
				finding("escaped string holds a control character", in, e);
		back = esc_decode(e);
		if (!back || strcmp(back, in))
			finding("escaped string does not decode to the string", in, e);
		free(back);
		free(e);
	}
	free(in);
	return 0;
}
