// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one-line reasons libiopath hands back with an error (see why.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "why.h"

void iop_why(char *why, size_t len, const char *fmt, ...)
{
	char *msg = NULL, *esc = NULL;
	bool raw = true;
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
	 * at or printed raw, so the reason after it is not lost.
	 */
	for (int i = 0; i < n && raw; i++)
		raw = !iop_is_control(msg, (size_t)i);
	if (!raw)
		esc = iop_esc_dup(msg);
	snprintf(why, len, "%s", esc ? esc : raw ? msg : "(no memory for the reason)");
	free(esc);
	free(msg);
}
