// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath tbprof coverage: which static basic blocks of a list ran, from
 * the tbcount plugin's counts of one or more boots. The list (--blocks,
 * written by scripts/coverage.sh from the kernel's disassembly) gives each
 * block's address range, file and function. A translation block is
 * straight-line code that ran from its first instruction to its last, so
 * a static block ran when an executed translation block overlaps it.
 *
 * Prints a per-file table (functions reached, blocks run), a per-function
 * table and the functions no block of which ran; --tsv prints one line
 * per function (file, function, blocks, blocks run) instead.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "iopath.h"
#include "tbprof.h"

#define MAX_DUMPS 64

struct span {
	uint64_t start, end;
};

struct func_cov {
	size_t file, func;
	size_t blocks, ran;
};

static int span_cmp(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/*
 * Whether [s, e) overlaps an executed span: the spans sorted by start,
 * @maxend[i] the largest end among spans 0..i.
 */
static bool ran(const struct span *sp, const uint64_t *maxend, size_t n, uint64_t s, uint64_t e)
{
	size_t lo = 0, hi = n;

	/* The first span that starts at or after e; those before it start below e. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp[mid].start < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && maxend[lo - 1] > s;
}

static int say(const char *why, int rc)
{
	fputs("iopath: tbprof: ", stderr);
	iop_esc(stderr, why);
	fputc('\n', stderr);
	return rc;
}

/* Every executed block of the dumps, sorted, with the running maximum end. */
static int load_spans(char **dumps, size_t n, struct span **spp, uint64_t **mep, size_t *nsp)
{
	struct span *sp = NULL;
	uint64_t *me;
	size_t cap = 0, k = 0, i, j;
	char why[4096];
	int rc;

	for (i = 0; i < n; i++) {
		struct tb_dump d;

		rc = tb_read_dump(dumps[i], &d, why, sizeof(why));
		if (rc) {
			free(sp);
			return say(why, rc);
		}
		if (k + d.n > cap) {
			struct span *p;

			cap = (k + d.n) * 2;
			p = realloc(sp, cap * sizeof(*sp));
			if (!p) {
				tb_dump_free(&d);
				free(sp);
				return say("out of memory", 1);
			}
			sp = p;
		}
		for (j = 0; j < d.n; j++) {
			sp[k].start = d.b[j].start;
			sp[k++].end = d.b[j].end;
		}
		tb_dump_free(&d);
	}
	me = malloc((k ? k : 1) * sizeof(*me));
	if (!me) {
		free(sp);
		return say("out of memory", 1);
	}
	if (k)
		qsort(sp, k, sizeof(*sp), span_cmp);
	for (j = 0; j < k; j++)
		me[j] = j && me[j - 1] > sp[j].end ? me[j - 1] : sp[j].end;
	*spp = sp;
	*mep = me;
	*nsp = k;
	return 0;
}

/* One row per function, in the order the list first names it. */
static struct func_cov *tally(const struct tb_sblocks *sb, const struct span *sp,
			      const uint64_t *me, size_t nsp, size_t nnames, size_t *nf)
{
	struct func_cov *f = calloc(sb->n, sizeof(*f));
	size_t *row = malloc(nnames * sizeof(*row)), i, n = 0;

	if (!f || !row) {
		free(f);
		free(row);
		return NULL;
	}
	for (i = 0; i < nnames; i++)
		row[i] = (size_t)-1;
	for (i = 0; i < sb->n; i++) {
		const struct tb_sblock *b = &sb->b[i];
		size_t r = row[b->func];

		/* A function's rows are keyed by its name and file together. */
		if (r == (size_t)-1 || f[r].file != b->file) {
			r = n++;
			row[b->func] = r;
			f[r].file = b->file;
			f[r].func = b->func;
		}
		f[r].blocks++;
		if (ran(sp, me, nsp, b->start, b->end))
			f[r].ran++;
	}
	free(row);
	*nf = n;
	return f;
}

static void print_cov(const struct func_cov *f, size_t nf, const struct tb_names *names, size_t ndumps)
{
	size_t i, j, tb = 0, tr = 0, tf = 0, tfr = 0;
	bool *done = calloc(nf ? nf : 1, sizeof(*done));

	if (!done)
		return;
	printf("Basic blocks run, by file (%zu boot%s):\n%-34s %12s %18s %8s\n", ndumps,
	       ndumps == 1 ? "" : "s", "file", "functions", "blocks", "blocks %");
	for (i = 0; i < nf; i++) {
		size_t b = 0, r = 0, fn = 0, fr = 0;

		if (done[i])
			continue;
		for (j = i; j < nf; j++) {
			if (f[j].file != f[i].file)
				continue;
			done[j] = true;
			b += f[j].blocks;
			r += f[j].ran;
			fn++;
			fr += f[j].ran > 0;
		}
		printf("%-34s %5zu of %-5zu %7zu of %-7zu %7.1f%%\n", names->name[f[i].file], fr, fn, r, b,
		       100.0 * (double)r / (double)b);
		tb += b;
		tr += r;
		tf += fn;
		tfr += fr;
	}
	printf("%-34s %5zu of %-5zu %7zu of %-7zu %7.1f%%\n\n", "all", tfr, tf, tr, tb,
	       tb ? 100.0 * (double)tr / (double)tb : 0);
	printf("By function (blocks run of blocks):\n");
	for (i = 0; i < nf; i++)
		printf("%-34s %-44s %5zu of %-5zu %6.1f%%\n", names->name[f[i].file], names->name[f[i].func],
		       f[i].ran, f[i].blocks, 100.0 * (double)f[i].ran / (double)f[i].blocks);
	printf("\nFunctions never reached:\n");
	for (i = 0; i < nf; i++)
		if (!f[i].ran)
			printf("%-34s %s\n", names->name[f[i].file], names->name[f[i].func]);
	free(done);
}

int tb_coverage(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "blocks", required_argument, NULL, 'b' }, { "tsv", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct tb_names names = { 0 };
	struct tb_sblocks sb;
	struct func_cov *f;
	struct span *sp = NULL;
	uint64_t *me = NULL;
	const char *blocks = NULL;
	char why[4096];
	size_t nsp = 0, nf = 0, i;
	bool tsv = false;
	int c, rc;

	optind = 0;
	while ((c = iop_getopt(argc, argv, "tbprof coverage", "", opts)) != -1) {
		switch (c) {
		case 'b':
			blocks = optarg;
			break;
		case 's':
			tsv = true;
			break;
		case 'h':
			printf("usage: iopath tbprof coverage --blocks FILE [--tsv] COUNTS...\n"
			       "The static basic blocks of FILE ('START END FILE FUNCTION' lines, from\n"
			       "scripts/coverage.sh) that ran in the boots whose block counts are given\n"
			       "(iopath vm --tb-counts): tables by file and function, and the functions\n"
			       "never reached; --tsv: 'file function blocks ran' lines instead.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!blocks || optind >= argc)
		return iop_usage_error("tbprof", "coverage needs --blocks FILE and at least one COUNTS file");
	if ((size_t)(argc - optind) > MAX_DUMPS)
		return iop_usage_error("tbprof", "coverage: more than %d COUNTS files", MAX_DUMPS);
	rc = tb_read_sblocks(blocks, &names, &sb, why, sizeof(why));
	if (rc)
		return say(why, rc);
	rc = load_spans(argv + optind, (size_t)(argc - optind), &sp, &me, &nsp);
	if (rc)
		goto out_sblocks;
	f = tally(&sb, sp, me, nsp, names.n, &nf);
	if (!f) {
		rc = say("out of memory", 1);
		goto out_spans;
	}
	if (tsv) {
		printf("file\tfunction\tblocks\tran\n");
		for (i = 0; i < nf; i++)
			printf("%s\t%s\t%zu\t%zu\n", names.name[f[i].file], names.name[f[i].func], f[i].blocks,
			       f[i].ran);
	} else {
		print_cov(f, nf, &names, (size_t)(argc - optind));
	}
	rc = fflush(stdout) ? 1 : 0;
	free(f);
out_spans:
	free(sp);
	free(me);
out_sblocks:
	tb_sblocks_free(&sb);
	tb_names_free(&names);
	return rc;
}
