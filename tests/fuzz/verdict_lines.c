// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: lib/verdict.c's reader of the verdict engine's
 * machine lines (IOPATH-CASE, IOPATH-PROGRAM, *-RESULT), each line of the
 * input in turn. A finding is a crash, or a parsed case or program that
 * holds what the machine lines' writer never prints (a control character could
 * then reach a report or a terminal), a known case without its bug or a
 * bug on another case, a line range that runs backwards, or a result whose
 * status is neither pass nor fail.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "verdict.h"

static void finding(const char *what, const char *s)
{
	fprintf(stderr, "verdict_lines: %s: %s\n", what, s);
	abort();
}

static void check_word(const char *s)
{
	if (!*s)
		finding("empty word", s);
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:+-?", *s))
			finding("a character word() never prints", s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), *line, *next;
	struct iop_verdict v;
	size_t i;

	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	iop_verdict_init(&v);
	for (line = in; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (iop_verdict_parse_line(line, &v) == -ENOMEM)
			break;
	}
	for (i = 0; i < v.ncases; i++) {
		const struct iop_case *c = &v.cases[i];

		check_word(c->program);
		check_word(c->name);
		if (strcmp(c->result, "pass") && strcmp(c->result, "fail") &&
		    strcmp(c->result, "skip") && strcmp(c->result, "known") &&
		    strcmp(c->result, "unfinished"))
			finding("case result", c->result);
		if (!strcmp(c->result, "known") != !!c->bug[0])
			finding("bug on the wrong case", c->name);
		if (c->bug[0])
			check_word(c->bug);
		if (c->first > c->last)
			finding("lines run backwards", c->name);
	}
	for (i = 0; i < v.nprogs; i++)
		check_word(v.progs[i].program);
	if (v.have_result && strcmp(v.status, "pass") && strcmp(v.status, "fail"))
		finding("result status", v.status);
	iop_verdict_free(&v);
	free(in);
	return 0;
}
