// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath tbprof lines: which source lines of a file each instruction of
 * its functions was compiled from, from objdump -d -l --inlines of a
 * vmlinux built with debug information (scripts/coverage.sh), for iopath
 * tbprof coverage --blocks: a line ran when an executed translation block
 * overlaps one of its instructions. Input, one file, as tbprof blocks
 * takes it: the functions, "START END NAME" lines sorted by START; a line
 * "--"; then the disassembly, where objdump writes "PATH:LINE" (maybe
 * with " (discriminator N)") before the instructions of a location and,
 * with --inlines, one such line per level of inlining. Output: "START END
 * FILE LINE", one per run of instructions of one location, for each
 * level whose PATH is FILE or ends in "/FILE".
 *
 * Why every level: a line that calls an inline function of a header is
 * compiled into the header's instructions, and only the levels above
 * them say that the line of FILE ran; an inline function of FILE itself
 * makes its own line and its caller's both count.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "input.h"
#include "quote.h"
#include "tbprof.h"

#define LINES_LINE_MAX	65536
/* Levels of inlining kept for one location; objdump rarely prints ten. */
#define LINES_DEPTH	32
#define LINES_NO_LINE	0u

struct lfunc {
	uint64_t lo, hi;
};

struct lstate {
	const char *file;
	size_t flen;
	struct lfunc *f;
	size_t nf, fcap;
	bool funcs_done;
	/*
	 * The location in force: the line of FILE of its innermost level
	 * (LINES_NO_LINE for another file) and those of the levels it is
	 * inlined by.
	 */
	unsigned int inner;
	unsigned int by[LINES_DEPTH];
	size_t nby;
	bool loc_open;		/* location lines read since the last instruction */
	unsigned int loc[LINES_DEPTH + 1];
	size_t nloc;
	/* The run being built: its lines, start and the function's end. */
	unsigned int run[LINES_DEPTH + 1];
	size_t nrun;
	uint64_t run_start, run_hi;
	bool in_run;
	size_t cur;		/* 1 + the function of the last instruction */
};

static int func_line(struct lstate *st, const char *line, char *why, size_t len)
{
	char lo[24], hi[24], name[256];
	struct lfunc *f;
	int used = 0;

	if (sscanf(line, "%23s %23s %255s%n", lo, hi, name, &used) != 3 || line[used])
		goto bad;
	if (tb_grow((void **)&st->f, &st->fcap, st->nf + 1, sizeof(*st->f)))
		return -ENOMEM;
	f = &st->f[st->nf];
	if (!tb_hex(lo, strlen(lo), &f->lo) || !tb_hex(hi, strlen(hi), &f->hi) || f->hi < f->lo)
		goto bad;
	if (st->nf && f->lo < st->f[st->nf - 1].lo) {
		snprintf(why, len, "functions not sorted by START");
		return -EINVAL;
	}
	st->nf++;
	return 0;
bad:
	snprintf(why, len, "expected \"START END NAME\" (hex, START <= END) or \"--\"");
	return -EINVAL;
}

/* The run built so far, one output line per line of FILE in it, ending at @end. */
static void close_run(struct lstate *st, uint64_t end)
{
	size_t i;

	if (st->in_run && end > st->run_start)
		for (i = 0; i < st->nrun; i++)
			printf("%016llx %016llx %s %u\n", (unsigned long long)st->run_start,
			       (unsigned long long)end, st->file, st->run[i]);
	st->in_run = false;
}

/*
 * "PATH:LINE" or "PATH:LINE (discriminator N)": true, with LINE in @ln
 * when PATH is FILE or ends in "/FILE", LINES_NO_LINE for another file.
 */
static bool location(const struct lstate *st, const char *line, unsigned int *ln)
{
	const char *colon, *p, *end = line + strlen(line);
	unsigned long v = 0;
	size_t plen;

	/* " (discriminator N)" after a location, " (FUNCTION)" after an inlining one */
	p = strstr(line, " (");
	if (p)
		end = p;
	colon = memrchr(line, ':', (size_t)(end - line));
	if (!colon || colon == line || colon + 1 == end)
		return false;
	for (p = colon + 1; p < end; p++) {
		if (*p < '0' || *p > '9' || v > 100000000)
			return false;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	plen = (size_t)(colon - line);
	*ln = LINES_NO_LINE;
	if (v && (plen == st->flen || (plen > st->flen && line[plen - st->flen - 1] == '/')) &&
	    !memcmp(colon - st->flen, st->file, st->flen))
		*ln = (unsigned int)v;
	return true;
}

static void insn(struct lstate *st, uint64_t a)
{
	bool same;

	while (st->cur < st->nf && (!st->cur || a >= st->f[st->cur - 1].hi))
		st->cur++;
	if (!st->cur || a < st->f[st->cur - 1].lo || a >= st->f[st->cur - 1].hi) {
		close_run(st, st->in_run ? st->run_hi : 0);
		return;
	}
	st->loc_open = false;
	st->nloc = 0;
	for (size_t i = 0; i <= st->nby; i++) {
		unsigned int ln = i ? st->by[i - 1] : st->inner;
		size_t k;

		for (k = 0; k < st->nloc && st->loc[k] != ln; k++)
			;
		if (ln != LINES_NO_LINE && k == st->nloc)
			st->loc[st->nloc++] = ln;
	}
	same = st->in_run && st->run_hi == st->f[st->cur - 1].hi && st->nrun == st->nloc &&
	       !memcmp(st->run, st->loc, st->nloc * sizeof(*st->loc));
	if (same)
		return;
	/* A run of the function before ends at its end, not at padding after it. */
	close_run(st, a < st->run_hi ? a : st->run_hi);
	memcpy(st->run, st->loc, st->nloc * sizeof(*st->loc));
	st->nrun = st->nloc;
	st->run_start = a;
	st->run_hi = st->f[st->cur - 1].hi;
	st->in_run = true;
}

static int lines_line(void *arg, const char *line, size_t lineno, char *why, size_t len)
{
	struct lstate *st = arg;
	unsigned int ln;
	const char *tab;
	bool inlined;
	uint64_t a;

	(void)lineno;
	if (!st->funcs_done) {
		if (!strcmp(line, "--")) {
			st->funcs_done = true;
			return 0;
		}
		return func_line(st, line, why, len);
	}
	/* "ffffffff81234567:\tmnemonic ...": an instruction. */
	line += strspn(line, " ");
	tab = strchr(line, ':');
	if (tab && tab[1] == '\t' && tb_hex(line, (size_t)(tab - line), &a)) {
		insn(st, a);
		return 0;
	}
	inlined = !strncmp(line, "inlined by ", 11);
	if (!location(st, inlined ? line + 11 : line, &ln))
		return 0;
	/*
	 * objdump writes a location's innermost line only when it changes and
	 * its "inlined by" lines before every instruction: the first location
	 * line after an instruction replaces the inlining levels, a line
	 * without "inlined by" the innermost one too.
	 */
	if (!st->loc_open) {
		st->nby = 0;
		st->loc_open = true;
	}
	if (!inlined) {
		st->inner = ln;
		st->nby = 0;
	} else if (st->nby < LINES_DEPTH) {
		st->by[st->nby++] = ln;
	}
	return 0;
}

static void lines_usage(void)
{
	printf("usage: iopath tbprof lines --file FILE INPUT\n"
	       "The source lines of FILE that the instructions of the functions INPUT\n"
	       "lists were compiled from: INPUT holds \"START END NAME\" lines (hex, sorted\n"
	       "by START), a line \"--\", then objdump -d -l --inlines --no-show-raw-insn\n"
	       "of a range that holds them (a vmlinux with debug information). Prints\n"
	       "\"START END FILE LINE\" per run of instructions of one location, for each\n"
	       "level of inlining in FILE (scripts/coverage.sh, for iopath tbprof coverage\n"
	       "--blocks: the lines that ran).\n");
}

int tb_lines(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "file", required_argument, NULL, 'f' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lstate st = { 0 };
	char why[4096] = "";
	const char *p;
	int c, rc;

	optind = 0;
	while ((c = iop_getopt(argc, argv, "tbprof lines", "", opts)) != -1) {
		switch (c) {
		case 'f':
			st.file = optarg;
			break;
		case 'h':
			lines_usage();
			return 0;
		default:
			return 2;
		}
	}
	if (!st.file || argc - optind != 1)
		return iop_usage_error("tbprof", "lines needs --file FILE and one INPUT (iopath tbprof lines --help)");
	for (p = st.file; *p; p++)
		if ((unsigned char)*p < 0x21 || *p == 0x7f)
			break;
	if (*p || !*st.file || strlen(st.file) > 255) {
		fputs("iopath: tbprof: lines: --file: not one word of printable characters: ", stderr);
		iop_esc(stderr, st.file);
		fputc('\n', stderr);
		return 2;
	}
	st.flen = strlen(st.file);
	rc = iop_input_each_line(argv[optind], LINES_LINE_MAX, lines_line, &st, why, sizeof(why));
	if (!rc && !st.funcs_done) {
		snprintf(why, sizeof(why), "%s: no line \"--\" after the functions", argv[optind]);
		rc = -EINVAL;
	}
	if (!rc) {
		close_run(&st, st.in_run ? st.run_hi : 0);
		rc = fflush(stdout) ? 1 : 0;
	} else {
		fputs("iopath: tbprof: lines: ", stderr);
		iop_esc(stderr, why);
		fputc('\n', stderr);
		rc = rc == -ENOMEM ? 1 : 2;
	}
	free(st.f);
	return rc;
}
