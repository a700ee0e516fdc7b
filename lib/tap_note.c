// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict engine's lowest layer (see tap.h, tap_int.h): its first
 * error, its notes for people ("# TAG: ...", printed and kept in the
 * caller's struct iop_verdict) and the ERE match every rule uses. The
 * coverage rule (tap_cov.c) and the walk over the TAP (tap.c) are built
 * on it; it calls neither.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tap_int.h"

/* Notes kept in struct iop_verdict (all are printed), and their length. */
#define MAX_NOTES 1000
#define NOTE_MAX 1000

void iop_tap_set_err(struct iop_tap *t, int err)
{
	if (!t->err)
		t->err = err;
}

static void keep_note(struct iop_tap *t, const char *line)
{
	struct iop_verdict *v = t->v;
	char *s;

	if (!v || v->nnotes >= MAX_NOTES)
		return;
	if (iop_verdict_grow((void **)&v->notes, &v->notes_cap, v->nnotes, sizeof(*v->notes))) {
		iop_tap_set_err(t, -ENOMEM);
		return;
	}
	s = strndup(line, NOTE_MAX);
	if (!s) {
		iop_tap_set_err(t, -ENOMEM);
		return;
	}
	v->notes[v->nnotes++] = s;
}

/* "# TAG: MSG": for people; consumers read the machine lines. */
void iop_tap_note(struct iop_tap *t, const char *fmt, ...)
{
	char *msg = NULL, *line = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0 || asprintf(&line, "# %s: %s", t->tag, msg) < 0) {
		free(msg);
		iop_tap_set_err(t, -ENOMEM);
		return;
	}
	if (t->out)
		fprintf(t->out, "%s\n", line);
	keep_note(t, line);
	free(line);
	free(msg);
}

bool iop_tap_match(const regex_t *re, const char *s)
{
	return !regexec(re, s, 0, NULL, 0);
}
