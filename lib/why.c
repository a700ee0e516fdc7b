// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one-line reasons libiopath hands back with an error (see why.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "why.h"

/*
 * @text into @why of @len bytes; too long, its middle is cut ("...")
 * at character boundaries: a reason names something (a path of 4096
 * bytes) and then says what is wrong with it, and the name is what gives.
 */
static void fit(char *why, size_t len, const char *text)
{
	size_t n = strlen(text), head, tail;

	if (n < len) {
		memcpy(why, text, n + 1);
		return;
	}
	if (len < 16) {
		snprintf(why, len, "%s", text + n - (len - 1));
		return;
	}
	head = len / 8;
	tail = len - 1 - head - 3;
	while (head && (text[head] & 0xc0) == 0x80)
		head--;
	while (tail && (text[n - tail] & 0xc0) == 0x80)
		tail--;
	memcpy(why, text, head);
	memcpy(why + head, "...", 3);
	memcpy(why + head + 3, text + n - tail, tail + 1);
}

void iop_why(char *why, size_t len, const char *fmt, ...)
{
	char *msg = NULL, *esc = NULL;
	va_list ap;
	int n;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) {
		snprintf(why, len, "(no memory for the reason)");
		return;
	}
	/*
	 * A reason is printed as one line of a one-line error, and often
	 * names what came from elsewhere (a path, an environment value, a
	 * line of a file): a control character in it is escaped, never cut
	 * at or printed raw, so the reason after it is not lost. Escaped
	 * here, it is printed by iop_esc_line(), which leaves it as it is.
	 */
	if (iop_needs_esc(msg))
		esc = iop_esc_dup(msg);
	if (iop_needs_esc(msg) && !esc)
		snprintf(why, len, "(no memory for the reason)");
	else
		fit(why, len, esc ? esc : msg);
	free(esc);
	free(msg);
}
