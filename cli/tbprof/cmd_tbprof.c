// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath tbprof: what the block-counting QEMU plugin saw, per kernel
 * function (contrib/qemu-plugin/tbcount.c counts each translation block's
 * executions; cli/tbprof/tbprof_read.c reads the counts and a System.map).
 *
 *   explain    A against B (iopath ab --explain): the functions whose
 *              instructions per operation changed, A and B side by side
 *              with 95% CIs over the boots, largest change first
 *   coverage   the static basic blocks of a list that ran (tbprof_cover.c)
 *   blocks     that list, from a kernel's disassembly (tbprof_blocks.c)
 *   lines      the same list by source line, from a disassembly with line
 *              numbers (tbprof_lines.c): coverage of it marks the lines run
 *
 * An operation is an entry into the function(s) named by --per: the
 * executions of the blocks that start at its address. A function's
 * instructions are those of the blocks that start inside it (between its
 * System.map address and the next text symbol's): function level, no
 * lines, and an inlined callee counts to its caller. A block that runs
 * past the next symbol is counted to the function it starts in, and the
 * report says how many instructions that concerns. Static functions of
 * one name are one row (System.map cannot tell them apart).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "iopath.h"
#include "number.h"
#include "tbprof.h"

#define MAX_BOOTS 99
#define MAX_PER 8

struct side {
	const char *map_path;
	struct tb_map map;
	const char *dump[MAX_BOOTS];
	size_t n;
	double *insns[MAX_BOOTS];	/* per name id, per operation once divided */
	double ops[MAX_BOOTS];
	double total[MAX_BOOTS];	/* all kernel instructions per operation */
	double crossing, all;
};

struct row {
	size_t id;
	double a, a_lo, a_hi, b, b_lo, b_hi, d, d_lo, d_hi;
};

static int say(const char *why, int rc)
{
	fputs("iopath: tbprof: ", stderr);
	iop_esc(stderr, why);
	fputc('\n', stderr);
	return rc;
}

/* The mean of @x and its 95% t-interval (NAN bounds below two values). */
static double mean_ci(const double *x, size_t n, double *lo, double *hi)
{
	double m = 0, s = 0, h;
	size_t i;

	for (i = 0; i < n; i++)
		m += x[i];
	m /= (double)n;
	*lo = *hi = NAN;
	if (n < 2)
		return m;
	for (i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	h = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1)) * sqrt(s / (double)(n - 1) / (double)n);
	*lo = m - h;
	*hi = m + h;
	return m;
}

/*
 * B - A: paired by boot when the sides have as many boots (iopath ab's
 * pairs), else Welch's interval of the two means.
 */
static double delta_ci(const double *a, size_t na, const double *b, size_t nb, double *lo,
		       double *hi)
{
	double d[MAX_BOOTS], ma, mb, va = 0, vb = 0, se2, df, h, x, y;
	size_t i;

	if (na == nb) {
		for (i = 0; i < na; i++)
			d[i] = b[i] - a[i];
		return mean_ci(d, na, lo, hi);
	}
	ma = mean_ci(a, na, &x, &y);
	mb = mean_ci(b, nb, &x, &y);
	*lo = *hi = NAN;
	if (na < 2 || nb < 2)
		return mb - ma;
	for (i = 0; i < na; i++)
		va += (a[i] - ma) * (a[i] - ma) / (double)(na - 1);
	for (i = 0; i < nb; i++)
		vb += (b[i] - mb) * (b[i] - mb) / (double)(nb - 1);
	se2 = va / (double)na + vb / (double)nb;
	df = se2 * se2 / (va * va / ((double)na * na * (na - 1)) + vb * vb / ((double)nb * nb * (nb - 1)));
	if (!(se2 > 0))
		df = (double)(na + nb - 2);
	h = gsl_cdf_tdist_Pinv(0.975, df) * sqrt(se2);
	*lo = mb - ma - h;
	*hi = mb - ma + h;
	return mb - ma;
}

/* Both sides' maps first: every name is interned before a row is sized. */
static int load_maps(struct side *a, struct side *b, struct tb_names *names,
		     const char *const *per, size_t nper)
{
	struct side *s[2] = { a, b };
	char why[4096];
	size_t i, k;
	int rc;

	for (i = 0; i < 2; i++) {
		rc = tb_read_map(s[i]->map_path, names, &s[i]->map, why, sizeof(why));
		if (rc)
			return say(why, rc);
		for (k = 0; k < nper; k++)
			if (!tb_entry_named(&s[i]->map, tb_lookup(names, per[k]))) {
				snprintf(why, sizeof(why), "--per %s: no such function in %s", per[k],
					 s[i]->map_path);
				return say(why, 2);
			}
	}
	return 0;
}

/*
 * A side's dumps: per boot, each name's instructions per operation. *@win
 * (-1 before the first dump) says whether the counts inside the marked
 * windows are taken: every dump must have windows, or none.
 */
static int load_dumps(struct side *s, const struct tb_names *names, const char *const *per,
		      size_t nper, const char *label, int *win)
{
	char why[4096];
	size_t i, j, k;
	int rc;

	for (i = 0; i < s->n; i++) {
		struct tb_dump d;
		double unknown = 0;
		bool has;

		rc = tb_read_dump(s->dump[i], &d, why, sizeof(why));
		if (rc)
			return say(why, rc);
		has = d.windows > 0;
		if (*win < 0)
			*win = has;
		if (*win != has) {
			tb_dump_free(&d);
			snprintf(why, sizeof(why), "%s: %s marked windows where the first boot's counts %s",
				 s->dump[i], *win ? "no" : "has", *win ? "have" : "have none");
			return say(why, 2);
		}
		s->insns[i] = calloc(names->n, sizeof(double));
		if (!s->insns[i]) {
			tb_dump_free(&d);
			return say("out of memory", 1);
		}
		s->ops[i] = 0;
		for (k = 0; k < nper; k++)
			s->ops[i] += tb_entries(&d, &s->map, tb_lookup(names, per[k]), *win);
		tb_attribute(&d, &s->map, *win, s->insns[i], &s->crossing, &unknown);
		s->all += unknown;
		for (j = 0; j < names->n; j++)
			s->all += s->insns[i][j];
		tb_dump_free(&d);
		if (!(s->ops[i] > 0)) {
			snprintf(why, sizeof(why), "%s boot %zu (%s): no entry into the --per function(s): nothing to divide by",
				 label, i + 1, s->dump[i]);
			return say(why, 1);
		}
		s->total[i] = 0;
		for (j = 0; j < names->n; j++) {
			s->insns[i][j] /= s->ops[i];
			s->total[i] += s->insns[i][j];
		}
	}
	return 0;
}

static int row_cmp(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	double da = fabs(a->d), db = fabs(b->d);

	if (da != db)
		return da < db ? 1 : -1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static void put_ci(FILE *f, double m, double lo, double hi, bool sign)
{
	char buf[96];

	snprintf(buf, sizeof(buf), sign ? "%+.2f" : "%.2f", m);
	if (!isnan(lo)) {
		size_t l = strlen(buf);

		snprintf(buf + l, sizeof(buf) - l, sign ? " [%+.2f, %+.2f]" : " [%.2f, %.2f]", lo, hi);
	}
	fprintf(f, " %-30s", buf);
}

static void row_of(const struct side *a, const struct side *b, size_t id, size_t width,
		   struct row *r)
{
	double xa[MAX_BOOTS], xb[MAX_BOOTS];
	size_t i;

	for (i = 0; i < a->n; i++)
		xa[i] = id < width ? a->insns[i][id] : a->total[i];
	for (i = 0; i < b->n; i++)
		xb[i] = id < width ? b->insns[i][id] : b->total[i];
	r->id = id;
	r->a = mean_ci(xa, a->n, &r->a_lo, &r->a_hi);
	r->b = mean_ci(xb, b->n, &r->b_lo, &r->b_hi);
	r->d = delta_ci(xa, a->n, xb, b->n, &r->d_lo, &r->d_hi);
}

static void print_report(const struct side *a, const struct side *b, const struct tb_names *names,
			 const char *const *per, size_t nper, double min, size_t top, bool tsv,
			 bool win)
{
	struct row *rows = calloc(names->n ? names->n : 1, sizeof(*rows)), all;
	size_t i, n = 0, k;

	if (!rows) {
		say("out of memory", 1);
		return;
	}
	for (i = 0; i < names->n; i++) {
		row_of(a, b, i, names->n, &rows[n]);
		if (fabs(rows[n].d) < min || (!isnan(rows[n].d_lo) && rows[n].d_lo <= 0 && rows[n].d_hi >= 0))
			continue;
		n++;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	row_of(a, b, names->n, names->n, &all);
	if (tsv) {
		printf("function\ta\ta_lo\ta_hi\tb\tb_lo\tb_hi\tdelta\tdelta_lo\tdelta_hi\n");
		for (i = 0; i <= n && i <= top; i++) {
			const struct row *r = i < n && i < top ? &rows[i] : &all;

			printf("%s\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n",
			       r == &all ? "(all kernel code)" : names->name[r->id], r->a, r->a_lo, r->a_hi,
			       r->b, r->b_lo, r->b_hi, r->d, r->d_lo, r->d_hi);
			if (r == &all)
				break;
		}
		free(rows);
		return;
	}
	printf("kernel instructions per operation (an operation: an entry into");
	for (k = 0; k < nper; k++)
		printf("%s %s", k ? " or" : "", per[k]);
	printf("), A %zu boot%s, B %zu boot%s, 95%% CIs%s\n", a->n, a->n == 1 ? "" : "s", b->n,
	       b->n == 1 ? "" : "s", a->n == b->n ? ", B-A paired by boot" : "");
	printf("counted: %s\n", win ? "inside the benchmark's measured repetitions (marked windows)"
				    : "the whole boot (no marked windows: boot and setup work included)");
	printf("operations per boot: A");
	for (i = 0; i < a->n; i++)
		printf(" %.0f", a->ops[i]);
	printf("; B");
	for (i = 0; i < b->n; i++)
		printf(" %.0f", b->ops[i]);
	printf("\n%-44s %-30s %-30s %-30s\n", "function", "A", "B", "B-A");
	for (i = 0; i < n && i < top; i++) {
		printf("%-44s", names->name[rows[i].id]);
		put_ci(stdout, rows[i].a, rows[i].a_lo, rows[i].a_hi, false);
		put_ci(stdout, rows[i].b, rows[i].b_lo, rows[i].b_hi, false);
		put_ci(stdout, rows[i].d, rows[i].d_lo, rows[i].d_hi, true);
		putchar('\n');
	}
	printf("%-44s", "(all kernel code)");
	put_ci(stdout, all.a, all.a_lo, all.a_hi, false);
	put_ci(stdout, all.b, all.b_lo, all.b_hi, false);
	put_ci(stdout, all.d, all.d_lo, all.d_hi, true);
	printf("\n%zu function%s changed by %.2f or more instructions per operation%s; %zu shown.\n", n,
	       n == 1 ? "" : "s", min, a->n > 1 && b->n > 1 ? " with a CI that excludes 0" : "",
	       n < top ? n : top);
	printf("Blocks that run past their function's end (counted to the function they start in): %.3f%% of A's, %.3f%% of B's kernel instructions.\n",
	       a->all > 0 ? 100 * a->crossing / a->all : 0, b->all > 0 ? 100 * b->crossing / b->all : 0);
	free(rows);
}

static void explain_usage(FILE *f)
{
	fprintf(f, "usage: iopath tbprof explain --map-a SYSTEM.MAP [--map-b SYSTEM.MAP] --per FUNC\n"
		   "                             --a COUNTS... --b COUNTS... [--min N] [--top N] [--tsv]\n"
		   "The kernel functions whose instructions per operation changed from A to B,\n"
		   "from the tbcount plugin's block counts of each boot (--a and --b, each\n"
		   "repeatable; boot i of A pairs with boot i of B when the sides have as many).\n"
		   "An operation is an entry into FUNC (--per, repeatable: entries summed).\n"
		   "Rows: a change of at least N instructions per operation (--min, default 0.1)\n"
		   "whose 95%% CI excludes 0 (with 2 or more boots a side), largest first, the\n"
		   "first N (--top, default 25); --tsv prints them as tab-separated values.\n");
}

/* explain: the options, then load_side and print_report. */
static int explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "map-a", required_argument, NULL, 'A' }, { "map-b", required_argument, NULL, 'B' },
		{ "a", required_argument, NULL, 'a' }, { "b", required_argument, NULL, 'b' },
		{ "per", required_argument, NULL, 'p' }, { "min", required_argument, NULL, 'm' },
		{ "top", required_argument, NULL, 't' }, { "tsv", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct side a = { 0 }, b = { 0 };
	struct tb_names names = { 0 };
	const char *per[MAX_PER];
	size_t nper = 0, i;
	uint64_t top = 25;
	double min = 0.1;
	bool tsv = false;
	int c, rc, win = -1;

	optind = 0;
	while ((c = iop_getopt(argc, argv, "tbprof explain", "", opts)) != -1) {
		switch (c) {
		case 'A':
			a.map_path = optarg;
			break;
		case 'B':
			b.map_path = optarg;
			break;
		case 'a':
		case 'b': {
			struct side *s = c == 'a' ? &a : &b;

			if (s->n == MAX_BOOTS)
				return iop_usage_error("tbprof", "more than %d boots a side", MAX_BOOTS);
			s->dump[s->n++] = optarg;
			break;
		}
		case 'p':
			if (nper == MAX_PER)
				return iop_usage_error("tbprof", "more than %d --per functions", MAX_PER);
			per[nper++] = optarg;
			break;
		case 'm':
			if (iop_parse_real(optarg, 0, 1e9, &min))
				return iop_usage_error("tbprof", "--min '%s': expected instructions, 0 or more", optarg);
			break;
		case 't':
			if (iop_parse_u64(optarg, 1, 100000, &top))
				return iop_usage_error("tbprof", "--top '%s': expected 1 to 100000", optarg);
			break;
		case 's':
			tsv = true;
			break;
		case 'h':
			explain_usage(stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc)
		return iop_usage_error("tbprof", "explain: unexpected '%s'", argv[optind]);
	if (!a.map_path || !nper || !a.n || !b.n)
		return iop_usage_error("tbprof", "explain needs --map-a, --per, --a and --b (iopath tbprof explain --help)");
	if (!b.map_path)
		b.map_path = a.map_path;
	rc = load_maps(&a, &b, &names, per, nper);
	if (!rc)
		rc = load_dumps(&a, &names, per, nper, "A", &win);
	if (!rc)
		rc = load_dumps(&b, &names, per, nper, "B", &win);
	if (!rc) {
		print_report(&a, &b, &names, per, nper, min, (size_t)top, tsv, win);
		rc = fflush(stdout) ? 1 : 0;
	}
	for (i = 0; i < a.n; i++)
		free(a.insns[i]);
	for (i = 0; i < b.n; i++)
		free(b.insns[i]);
	tb_map_free(&a.map);
	tb_map_free(&b.map);
	tb_names_free(&names);
	return rc;
}

static int cmd_tbprof(int argc, char **argv)
{
	if (argc < 2)
		return iop_usage_error("tbprof", "expected a mode: explain, coverage, blocks or lines (iopath tbprof --help)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		printf("usage: iopath tbprof explain|coverage|blocks|lines ... (each with --help)\n"
		       "The block counts of QEMU's tbcount plugin (make qemu-plugin; written by\n"
		       "iopath vm) per kernel function: explain compares A and B (iopath\n"
		       "ab --explain), coverage marks the static basic blocks that ran, blocks\n"
		       "lists those blocks from a kernel's disassembly, lines the instructions\n"
		       "of each source line from one with line numbers.\n");
		return 0;
	}
	if (!strcmp(argv[1], "explain"))
		return explain(argc - 1, argv + 1);
	if (!strcmp(argv[1], "coverage"))
		return tb_coverage(argc - 1, argv + 1);
	if (!strcmp(argv[1], "blocks"))
		return tb_blocks(argc - 1, argv + 1);
	if (!strcmp(argv[1], "lines"))
		return tb_lines(argc - 1, argv + 1);
	return iop_usage_error("tbprof", "unknown mode '%s' (explain, coverage, blocks or lines)", argv[1]);
}

IOP_COMMAND("tbprof", "kernel functions, blocks and lines from QEMU's block counts: explain an A/B, coverage",
	    cmd_tbprof)
