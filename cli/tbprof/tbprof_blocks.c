// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath tbprof blocks: the static basic blocks of some kernel functions,
 * from objdump -d of the vmlinux (scripts/coverage.sh), for iopath tbprof
 * coverage --blocks. Input, one file: the functions, one line each
 * "START END NAME" (hex, END the address after the last byte), sorted by
 * START; a line "--" ends them; then objdump's disassembly
 * (--no-show-raw-insn) of a range that holds them. Output: "START END
 * FILE NAME" per block, START and the next block's START as 16 hex
 * digits, the last block's END as the function line gave it.
 *
 * A block starts at the function's first instruction, at the target of a
 * jump inside the function and after a jump, a return or ud2 (a WARN or
 * BUG trap); a call does not end one. An indirect jump's targets are not
 * known here (a switch's jump table): their blocks are found only as the
 * code after another block's end, so a block may be counted larger than
 * it is; the count of blocks is a lower bound.
 *
 * An instruction belongs to the function whose range holds it, the
 * functions walked in order as the disassembly's addresses rise: of two
 * functions with one range (aliases), the first takes the instructions.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "input.h"
#include "quote.h"
#include "tbprof.h"

/* An objdump line or a function line longer than this is not one. */
#define BLOCKS_LINE_MAX 65536

struct bfunc {
	uint64_t lo, hi;
	char *end;		/* END as the input wrote it */
	char *name;
	size_t first, n;	/* its instructions: insn[first .. first + n) */
};

struct binsn {
	uint64_t addr;
	bool lead;
};

struct bstate {
	struct bfunc *f;
	size_t nf, fcap;
	struct binsn *in;
	size_t nin, incap;
	uint64_t *target;	/* jump targets inside their function */
	size_t nt, tcap;
	size_t cur;		/* 1 + the function being read, 0 before the first */
	bool after;		/* the last instruction of cur ended a block */
	bool funcs_done;
};

/* The blank-separated words of @line, at most @max: their starts and lengths. */
static size_t words(const char *line, const char **w, size_t *len, size_t max)
{
	size_t n = 0;

	while (n < max) {
		line += strspn(line, " \t");
		if (!*line)
			break;
		w[n] = line;
		len[n] = strcspn(line, " \t");
		line += len[n++];
	}
	return n;
}

static bool word_is(const char *w, size_t n, const char *s)
{
	return strlen(s) == n && !strncmp(w, s, n);
}

static int func_line(struct bstate *st, const char *line, char *why, size_t len)
{
	const char *w[4];
	size_t l[4], i;
	struct bfunc *f;

	if (words(line, w, l, 4) != 3 || !tb_hex(w[0], l[0], &(uint64_t){ 0 }))
		goto bad;
	if (tb_grow((void **)&st->f, &st->fcap, st->nf + 1, sizeof(*st->f)))
		return -ENOMEM;
	f = &st->f[st->nf];
	memset(f, 0, sizeof(*f));
	if (!tb_hex(w[0], l[0], &f->lo) || !tb_hex(w[1], l[1], &f->hi) || f->hi < f->lo)
		goto bad;
	for (i = 0; i < l[2]; i++)
		if ((unsigned char)w[2][i] < 0x21 || w[2][i] == 0x7f)
			goto bad;
	if (st->nf && f->lo < st->f[st->nf - 1].lo) {
		snprintf(why, len, "functions not sorted by START");
		return -EINVAL;
	}
	f->end = strndup(w[1], l[1]);
	f->name = strndup(w[2], l[2]);
	st->nf++;
	return f->end && f->name ? 0 : -ENOMEM;
bad:
	snprintf(why, len, "expected \"START END NAME\" (hex, START <= END) or \"--\"");
	return -EINVAL;
}

/* Prefixes objdump prints before the mnemonic. */
static bool prefix(const char *w, size_t n)
{
	return word_is(w, n, "cs") || word_is(w, n, "ds") || word_is(w, n, "notrack") ||
	       word_is(w, n, "bnd");
}

/* "ffffffff81234567:\tmnemonic operands": one instruction of the disassembly. */
static int insn_line(struct bstate *st, const char *line)
{
	const char *w[8];
	size_t l[8], nw, k;
	uint64_t a, t;
	struct bfunc *f;
	bool jump;

	nw = words(line, w, l, 8);
	if (!nw || l[0] < 2 || w[0][l[0] - 1] != ':' || !tb_hex(w[0], l[0] - 1, &a))
		return 0;
	while (st->cur < st->nf && (!st->cur || a >= st->f[st->cur - 1].hi)) {
		st->cur++;
		st->after = false;
	}
	f = st->cur ? &st->f[st->cur - 1] : NULL;
	if (!f || a < f->lo || a >= f->hi)
		return 0;
	if (tb_grow((void **)&st->in, &st->incap, st->nin + 1, sizeof(*st->in)))
		return -ENOMEM;
	if (!f->n)
		f->first = st->nin;
	st->in[st->nin].addr = a;
	st->in[st->nin++].lead = !f->n++ || st->after;
	for (k = 1; k < nw && prefix(w[k], l[k]); k++)
		;
	jump = k < nw && w[k][0] == 'j';
	st->after = k < nw && (jump || !strncmp(w[k], "ret", 3) || !strncmp(w[k], "ud2", 3));
	/* A direct jump's target, when it lies in this function. */
	if (jump && k + 1 < nw && tb_hex(w[k + 1], l[k + 1], &t) && t >= f->lo && t < f->hi) {
		if (tb_grow((void **)&st->target, &st->tcap, st->nt + 1, sizeof(*st->target)))
			return -ENOMEM;
		st->target[st->nt++] = t;
	}
	return 0;
}

static int blocks_line(void *arg, const char *line, size_t lineno, char *why, size_t len)
{
	struct bstate *st = arg;

	(void)lineno;
	if (st->funcs_done)
		return insn_line(st, line);
	if (!strcmp(line, "--")) {
		st->funcs_done = true;
		return 0;
	}
	return func_line(st, line, why, len);
}

static int u64_cmp(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return *a < *b ? -1 : *a > *b;
}

static void print_blocks(struct bstate *st, const char *file)
{
	const struct bfunc *f;
	const struct binsn *in;
	uint64_t start = 0;
	bool open;
	size_t i, k;

	qsort(st->target, st->nt, sizeof(*st->target), u64_cmp);
	for (i = 0; i < st->nf; i++) {
		f = &st->f[i];
		open = false;
		for (k = 0; k < f->n; k++) {
			in = &st->in[f->first + k];
			if (!in->lead && !(st->nt && bsearch(&in->addr, st->target, st->nt,
							     sizeof(*st->target), u64_cmp)))
				continue;
			if (open)
				printf("%016llx %016llx %s %s\n", (unsigned long long)start,
				       (unsigned long long)in->addr, file, f->name);
			start = in->addr;
			open = true;
		}
		if (open)
			printf("%016llx %s %s %s\n", (unsigned long long)start, f->end, file, f->name);
	}
}

static void blocks_usage(void)
{
	printf("usage: iopath tbprof blocks --file FILE INPUT\n"
	       "The static basic blocks of the functions INPUT lists, from the disassembly\n"
	       "after them: INPUT holds \"START END NAME\" lines (hex, sorted by START),\n"
	       "a line \"--\", then objdump -d --no-show-raw-insn of a range that holds\n"
	       "them. Prints \"START END FILE NAME\" per block (scripts/coverage.sh, for\n"
	       "iopath tbprof coverage --blocks). A block starts at a function's entry,\n"
	       "at a direct jump's target inside it and after a jump, a return or ud2.\n");
}

int tb_blocks(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "file", required_argument, NULL, 'f' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bstate st = { 0 };
	const char *file = NULL, *p;
	char why[4096] = "";
	size_t i;
	int c, rc;

	optind = 0;
	while ((c = iop_getopt(argc, argv, "tbprof blocks", "", opts)) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case 'h':
			blocks_usage();
			return 0;
		default:
			return 2;
		}
	}
	if (!file || argc - optind != 1)
		return iop_usage_error("tbprof", "blocks needs --file FILE and one INPUT (iopath tbprof blocks --help)");
	/* FILE is a word of each output line: no blank, no control character. */
	for (p = file; *p; p++)
		if ((unsigned char)*p < 0x21 || *p == 0x7f)
			break;
	if (*p || !*file) {
		fputs("iopath: tbprof: blocks: --file: not one word of printable characters: ",
		      stderr);
		iop_esc(stderr, file);
		fputc('\n', stderr);
		return 2;
	}
	rc = iop_input_each_line(argv[optind], BLOCKS_LINE_MAX, blocks_line, &st, why, sizeof(why));
	if (!rc && !st.funcs_done) {
		snprintf(why, sizeof(why), "%s: no line \"--\" after the functions", argv[optind]);
		rc = -EINVAL;
	}
	if (!rc) {
		print_blocks(&st, file);
		rc = fflush(stdout) ? 1 : 0;
	} else {
		fputs("iopath: tbprof: blocks: ", stderr);
		iop_esc(stderr, why);
		fputc('\n', stderr);
		rc = rc == -ENOMEM ? 1 : 2;
	}
	for (i = 0; i < st.nf; i++) {
		free(st.f[i].end);
		free(st.f[i].name);
	}
	free(st.f);
	free(st.in);
	free(st.target);
	return rc;
}
