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

/*
 * The length of the UTF-8 sequence at @p (1 to 4) and its code point in
 * *@cp, or 0 if it is none: a stray continuation byte, an overlong form, a
 * surrogate, past U+10FFFF, or cut short (by the string's end too).
 */
static size_t utf8_seq(const unsigned char *p, unsigned int *cp)
{
	size_t n;
	unsigned int c = p[0], min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	min = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
	c &= 0x7f >> n;	/* the lead byte's bits of the code point */
	for (size_t k = 1; k < n; k++) {
		if ((p[k] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[k] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/*
 * What a terminal obeys, or a reader takes for something else: C0, DEL,
 * C1 (CSI and friends for a terminal that reads UTF-8), the line and
 * paragraph separators, and the bidirectional controls, which make text
 * display in another order than it reads (U+202E shows "gpj.exe" as
 * "exe.jpg").
 */
static bool control_cp(unsigned int cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c || cp == 0x200e ||
	       cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/*
 * How many bytes from @i on iop_esc() escapes: those of a control
 * character, or one byte that is not part of a valid UTF-8 sequence; 0
 * for a character that is printed as it is, and for a byte inside a
 * sequence that started before @i (judged where it starts).
 */
static size_t esc_len(const char *s, size_t i)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned int cp;
	size_t n;

	if ((u[i] & 0xc0) == 0x80) {
		for (size_t back = 1; back <= 3 && back <= i; back++) {
			if ((u[i - back] & 0xc0) == 0x80)
				continue;
			n = utf8_seq(u + i - back, &cp);
			return n > back ? 0 : 1;
		}
		return 1;
	}
	n = utf8_seq(u + i, &cp);
	if (!n)
		return 1;
	return control_cp(cp) ? n : 0;
}

bool iop_is_control(const char *s, size_t i)
{
	return esc_len(s, i) > 0;
}

bool iop_needs_esc(const char *s)
{
	for (size_t i = 0; s[i]; i++)
		if (esc_len(s, i))
			return true;
	return false;
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
		size_t n = esc_len(s, i);

		if (s[i] == '\\')
			fputs("\\\\", f);
		else if (!n)
			fputc(s[i], f);
		for (size_t k = 0; k < n; k++)
			fprintf(f, "\\x%02x", (unsigned char)s[i + k]);
		i += n ? n - 1 : 0;
	}
}

void iop_esc_line(FILE *f, const char *msg)
{
	if (iop_needs_esc(msg))
		iop_esc(f, msg);
	else
		fputs(msg, f);
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
