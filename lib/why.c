// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one-line reasons libiopath hands back with an error (see why.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "why.h"

void iop_why(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	/* A reason is printed as one line of a one-line error. */
	why[strcspn(why, "\n")] = '\0';
}
