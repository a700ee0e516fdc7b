// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Quoting and escaping of text from elsewhere (see quote.h). A record's
 * parameter value that holds "'" ended the '...' around it, and the rest
 * of the reproduce line ran as commands when pasted; a newline in a value
 * printed a line of its own in a commit message (a Signed-off-by:); an
 * escape sequence reached the terminal.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>

#include "quote.h"

bool iop_is_control(const char *s, size_t i)
{
	unsigned char c = (unsigned char)s[i];

	if (c < 0x20 || c == 0x7f)
		return true;
	/* U+0080..U+009F: CSI and friends for a terminal that reads UTF-8 */
	return c == 0xc2 && (unsigned char)s[i + 1] >= 0x80 && (unsigned char)s[i + 1] <= 0x9f;
}

static bool shell_bare(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("_./:=,+@%-", c));
}

void iop_shell_quote(FILE *f, const char *s)
{
	bool bare = *s != '\0', plain = true;
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		bare &= shell_bare(*p);
		plain &= *p >= 0x20 && *p < 0x7f;
	}
	if (bare) {
		fputs(s, f);
	} else if (plain) {
		fputc('\'', f);
		for (p = (const unsigned char *)s; *p; p++) {
			if (*p == '\'')
				fputs("'\\''", f);
			else
				fputc(*p, f);
		}
		fputc('\'', f);
	} else {
		fputs("$'", f);
		for (p = (const unsigned char *)s; *p; p++) {
			if (*p == '\'' || *p == '\\')
				fprintf(f, "\\%c", *p);
			else if (*p < 0x20 || *p >= 0x7f)
				fprintf(f, "\\x%02x", *p);
			else
				fputc(*p, f);
		}
		fputc('\'', f);
	}
}

void iop_esc(FILE *f, const char *s)
{
	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '\\') {
			fputs("\\\\", f);
		} else if (iop_is_control(s, i)) {
			if ((unsigned char)s[i] == 0xc2)
				fprintf(f, "\\xc2\\x%02x", (unsigned char)s[++i]);
			else
				fprintf(f, "\\x%02x", (unsigned char)s[i]);
		} else {
			fputc(s[i], f);
		}
	}
}

char *iop_esc_dup(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	iop_esc(f, s);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
