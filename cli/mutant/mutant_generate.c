// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath mutant generate: mutants by rule, so that a kill rate measures
 * the suite against changes nobody here chose. The operators of
 * lib/mutgen.c are applied to every function body of the fast-path files
 * of a kernel tree (lib/ctok.c finds them); the sites are enumerated in a
 * fixed order (file, offset, operator, replacement) and a sample drawn
 * with SplitMix64 from --seed, so a seed and a tree give the same mutants
 * on any machine. Each is written to --out as a mutant of the project's
 * format (lib/mutant.c reads it), "# Tests: all" (the campaign runs the
 * whole collection) and "# Generated: OPERATOR, SEED", named by its rank
 * in the draw.
 *
 * --executed FILE restricts the sites to the functions the collection
 * executes (a coverage run's list, one name a line); --executed-lines FILE
 * to the source lines it executes (a coverage run's lines.tsv, from a
 * kernel with a line table: cli/mutant/mutant_lines.c), so that an error
 * path of a function that ran is not counted as executed code. Without
 * either the output says the sample is not so restricted. --list counts the sites
 * per file and operator instead of drawing.
 *
 * The tree is input: every file is read through lib/input.c (regular
 * files, bounded), and a file missing or one the tokenizer cannot parse
 * (a brace without its partner, a comment that never ends) is one line
 * and exit 2, before anything is written. Mutants are written through
 * lib/outfile.c into a directory that holds none yet.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "ctok.h"
#include "input.h"
#include "mutant_int.h"
#include "mutgen.h"
#include "number.h"
#include "outfile.h"
#include "quote.h"

/* The fast path of issue 54: the files a generated sample is drawn from. */
static const char default_files[] =
	"fs/iomap/buffered-io.c,fs/iomap/direct-io.c,fs/iomap/iter.c,fs/iomap/seek.c,"
	"fs/iomap/fiemap.c,fs/iomap/swapfile.c,lib/iov_iter.c,fs/read_write.c,fs/splice.c,"
	"mm/filemap.c,fs/ext4/extents.c,fs/ext4/inode.c,fs/ext4/file.c,fs/ext4/readpage.c,"
	"fs/xfs/xfs_iomap.c,fs/xfs/xfs_file.c,fs/xfs/xfs_aops.c,fs/xfs/xfs_reflink.c,"
	"fs/xfs/xfs_bmap_util.c,io_uring/rw.c,io_uring/rsrc.c";

#define SRC_LINE_MAX	(64 * 1024)
#define NAME_MAX_FUNC	120

struct srcfile {
	char *path;		/* relative to --ksrc */
	char *text;
	size_t len;
	struct iop_ctok t;
};

struct site {
	size_t file;
	struct iop_mutsite *s;
};

struct gen {
	const char *ksrc, *out, *executed, *executed_lines, *against;
	struct iop_exec_lines el;
	size_t lines_ran, lines_not_run, lines_no_code;
	char *files, *functions;
	uint64_t seed, count;
	bool list, have_seed;
	struct srcfile *src;
	size_t nsrc;
	char **exec;		/* sorted */
	size_t nexec;
	struct iop_mutsite **persite;
	size_t *npersite;
	struct site *sites;
	size_t nsites;
};

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int bad(const char *fmt, ...)
{
	char why[PATH_MAX + 512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	iop_mutant_error(why);
	return -EINVAL;
}

/* A name of the tree: relative, no "..", of [A-Za-z0-9_./-]. */
static bool tree_name_ok(const char *s)
{
	if (!*s || *s == '/' || strlen(s) > 255)
		return false;
	for (const char *p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-", *p))
			return false;
	for (const char *p = s; (p = strstr(p, "..")); p++)
		if ((p == s || p[-1] == '/') && (p[2] == '/' || !p[2]))
			return false;
	return true;
}

/* The whole of @path through lib/input.c into @f->text. */
static int read_source(const char *path, struct srcfile *f)
{
	struct iop_input in;
	char why[PATH_MAX + 256], *line, *nt;
	size_t cap = 0;
	bool term;
	ssize_t n;
	int ret;

	ret = iop_input_open(&in, path, SRC_LINE_MAX, why, sizeof(why));
	if (ret)
		return bad("%s", why);
	while ((n = iop_input_line(&in, &line, &term, why, sizeof(why))) >= 0) {
		if (f->len + (size_t)n + 2 > cap) {
			cap = (f->len + (size_t)n + 2) * 2;
			nt = realloc(f->text, cap);
			if (!nt) {
				iop_input_close(&in);
				return bad("%s: %s", path, strerror(ENOMEM));
			}
			f->text = nt;
		}
		memcpy(f->text + f->len, line, (size_t)n);
		f->len += (size_t)n;
		if (term)
			f->text[f->len++] = '\n';
	}
	iop_input_close(&in);
	if (n != -ENODATA)
		return bad("%s", why);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The executed functions: one name a line; blank lines and '#' comments
 * skipped, a compiler clone's suffix (".isra.0", ".constprop.0") dropped.
 */
static int read_executed(struct gen *g)
{
	struct iop_input in;
	char why[PATH_MAX + 256], *line, **nx;
	bool term;
	ssize_t n;
	size_t cap = 0;

	if (iop_input_open(&in, g->executed, 512, why, sizeof(why)))
		return bad("--executed %s", why);
	while ((n = iop_input_line(&in, &line, &term, why, sizeof(why))) >= 0) {
		char *dot;

		while (n && (line[n - 1] == ' ' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (!n || line[0] == '#')
			continue;
		dot = strchr(line, '.');
		if (dot)
			*dot = '\0';
		for (const char *p = line; *p || p == line; p++) {
			if (!*p || !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", *p) ||
			    (p == line && *p >= '0' && *p <= '9')) {
				iop_input_close(&in);
				return bad("--executed %s:%zu: not a function name", g->executed,
					   in.lineno);
			}
		}
		if (g->nexec == cap) {
			cap = cap ? cap * 2 : 256;
			nx = realloc(g->exec, cap * sizeof(*nx));
			if (!nx)
				goto nomem;
			g->exec = nx;
		}
		g->exec[g->nexec] = strdup(line);
		if (!g->exec[g->nexec])
			goto nomem;
		g->nexec++;
	}
	iop_input_close(&in);
	if (n != -ENODATA)
		return bad("--executed %s", why);
	qsort(g->exec, g->nexec, sizeof(*g->exec), cmp_str);
	return 0;
nomem:
	iop_input_close(&in);
	return bad("%s", strerror(ENOMEM));
}

static int read_lines(struct gen *g)
{
	char why[PATH_MAX + 256];

	if (iop_exec_lines_read(g->executed_lines, &g->el, why, sizeof(why)))
		return bad("--executed-lines %s", why);
	return 0;
}

static bool wanted_func(const struct gen *g, const char *name)
{
	if (g->executed && !bsearch(&name, g->exec, g->nexec, sizeof(*g->exec), cmp_str))
		return false;
	if (!g->functions)
		return true;
	for (const char *p = g->functions; *p;) {
		size_t l = strcspn(p, ",");
		char glob[256];

		snprintf(glob, sizeof(glob), "%.*s", (int)(l < 255 ? l : 255), p);
		if (!fnmatch(glob, name, 0))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

/*
 * With --executed-lines, whether a line the site's bytes span ran; the
 * sites left out are counted by why.
 */
static bool wanted_lines(struct gen *g, const struct srcfile *f, const struct iop_mutsite *s)
{
	unsigned int last = s->line;

	if (!g->executed_lines)
		return true;
	for (size_t k = s->start; k < s->end && k < f->len; k++)
		last += f->text[k] == '\n';
	switch (iop_exec_lines_state(&g->el, f->path, s->line, last)) {
	case 1:
		g->lines_ran++;
		return true;
	case 0:
		g->lines_not_run++;
		return false;
	default:
		g->lines_no_code++;
		return false;
	}
}

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;
	int c;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->s->start != y->s->start)
		return x->s->start < y->s->start ? -1 : 1;
	if (x->s->end != y->s->end)
		return x->s->end < y->s->end ? -1 : 1;
	if (x->s->op != y->s->op)
		return x->s->op < y->s->op ? -1 : 1;
	c = strcmp(x->s->repl, y->s->repl);
	return c;
}

/* Every file read and parsed, its sites in the functions wanted collected. */
static int scan_tree(struct gen *g)
{
	char path[PATH_MAX], why[PATH_MAX + 256], fname[NAME_MAX_FUNC + 1];
	char **names = NULL;
	size_t nn = 0;
	int ret = 0;

	for (char *p = g->files, *save, *w = strtok_r(p, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		char **nx = realloc(names, (nn + 1) * sizeof(*names));

		if (!nx)
			return bad("%s", strerror(ENOMEM));
		names = nx;
		names[nn++] = w;
		if (!tree_name_ok(w)) {
			free(names);
			return bad("--files: '%s' is not a file name inside the tree", w);
		}
	}
	if (!nn) {
		free(names);
		return bad("--files: no file named");
	}
	qsort(names, nn, sizeof(*names), cmp_str);
	g->src = calloc(nn, sizeof(*g->src));
	g->persite = calloc(nn, sizeof(*g->persite));
	g->npersite = calloc(nn, sizeof(*g->npersite));
	if (!g->src || !g->persite || !g->npersite) {
		free(names);
		return bad("%s", strerror(ENOMEM));
	}
	for (size_t i = 0; i < nn && !ret; i++) {
		struct srcfile *f = &g->src[g->nsrc++];

		f->path = names[i];
		snprintf(path, sizeof(path), "%s/%s", g->ksrc, f->path);
		ret = read_source(path, f);
		if (!ret && iop_ctok_scan(f->text, f->len, path, &f->t, why, sizeof(why)))
			ret = bad("the tree cannot be parsed: %s", why);
		if (!ret && iop_mutgen_sites(&f->t, &g->persite[i], &g->npersite[i]))
			ret = bad("%s", strerror(ENOMEM));
	}
	free(names);
	for (size_t i = 0; i < g->nsrc && !ret; i++) {
		for (size_t k = 0; k < g->npersite[i]; k++) {
			struct iop_mutsite *s = &g->persite[i][k];
			struct site *ns;

			iop_mutgen_func_name(&g->src[i].t, s->func, fname, sizeof(fname));
			if (!wanted_func(g, fname) || !wanted_lines(g, &g->src[i], s))
				continue;
			ns = realloc(g->sites, (g->nsites + 1) * sizeof(*ns));
			if (!ns)
				return bad("%s", strerror(ENOMEM));
			g->sites = ns;
			g->sites[g->nsites++] = (struct site){ .file = i, .s = s };
		}
	}
	if (!ret)
		qsort(g->sites, g->nsites, sizeof(*g->sites), cmp_site);
	return ret;
}

static void list_sites(const struct gen *g)
{
	size_t per[IOP_MUT_COUNT] = { 0 };

	printf("%-28s %-11s %s\n", "file", "operator", "sites");
	for (size_t i = 0; i < g->nsrc; i++) {
		size_t here[IOP_MUT_COUNT] = { 0 };

		for (size_t k = 0; k < g->nsites; k++)
			if (g->sites[k].file == i)
				here[g->sites[k].s->op]++;
		for (int op = 0; op < IOP_MUT_COUNT; op++) {
			per[op] += here[op];
			if (here[op])
				printf("%-28s %-11s %zu\n", g->src[i].path, iop_mutop_names[op], here[op]);
		}
	}
	for (int op = 0; op < IOP_MUT_COUNT; op++)
		printf("%-28s %-11s %zu\n", "total", iop_mutop_names[op], per[op]);
	printf("generate: %zu sites in %zu files\n", g->nsites, g->nsrc);
	if (g->executed_lines)
		printf("generate: %zu sites left out in lines that never ran, %zu in lines without instructions\n",
		       g->lines_not_run, g->lines_no_code);
}

/* --out: a directory without mutants in it yet (a second sample is not mixed in). */
static int check_out(const char *dir)
{
	struct dirent *d;
	struct stat st;
	DIR *dp;

	if (lstat(dir, &st) || !S_ISDIR(st.st_mode))
		return bad("--out %s: not a directory", dir);
	dp = opendir(dir);
	if (!dp)
		return bad("--out %s: %s", dir, strerror(errno));
	while ((d = readdir(dp))) {
		size_t n = strlen(d->d_name);

		if (n > 6 && !strcmp(d->d_name + n - 6, ".patch")) {
			closedir(dp);
			return bad("--out %s: holds mutants already (%s): a sample goes into a directory of its own",
				   dir, d->d_name);
		}
	}
	closedir(dp);
	return 0;
}

static int write_mutant(const struct gen *g, size_t rank, const struct site *st)
{
	const struct srcfile *f = &g->src[st->file];
	const struct iop_mutsite *s = st->s;
	const char *op = iop_mutop_names[s->op];
	char fname[NAME_MAX_FUNC + 1], name[256], final[PATH_MAX], tmp[PATH_MAX], *text = NULL;
	size_t tlen = 0, off = 0;
	FILE *m;
	int fd, ret = 0;

	iop_mutgen_func_name(&f->t, s->func, fname, sizeof(fname));
	snprintf(name, sizeof(name), "%03zu-%s-%s", rank + 1, op, fname);
	snprintf(final, sizeof(final), "%s/%s.patch", g->out, name);
	m = open_memstream(&text, &tlen);
	if (!m)
		return bad("%s", strerror(ENOMEM));
	/* the licence line of configs/mutants (the tag an argument: not this file's) */
	fprintf(m, "# %s: GPL-2.0-or-later\n# Mutant: %s\n", "SPDX-License-Identifier", name);
	if (g->against)
		fprintf(m, "# Against: %s\n", g->against);
	fprintf(m, "# Function: %s()\n# Class: generated\n# Bug: %s: %s (%s:%u)\n"
		"# Tests: all\n# Generated: %s, %" PRIu64 "\n", fname, op, s->what, f->path,
		s->line, op, g->seed);
	ret = iop_mutgen_diff(m, &f->t, f->path, s);
	if (fclose(m) || ret) {
		free(text);
		return bad("%s: %s", final, ret == -EINVAL ? "a change in a last line without a newline" :
			   strerror(ENOMEM));
	}
	fd = iop_tmp_create(final, iop_out_mode(final), tmp, sizeof(tmp));
	if (fd < 0) {
		free(text);
		return bad("%s: %s", final, strerror(-fd));
	}
	while (off < tlen && !ret) {
		ssize_t w = write(fd, text + off, tlen - off);

		if (w < 0 && errno != EINTR)
			ret = -errno;
		else if (w > 0)
			off += (size_t)w;
	}
	free(text);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret)
		ret = iop_tmp_commit(tmp, final);
	else
		iop_tmp_discard(tmp);
	if (ret)
		return bad("%s: %s", final, strerror(-ret));
	printf("%s\n", name);
	return 0;
}

/* The sample: the first --count of a seeded Fisher-Yates shuffle of the sites. */
static int draw(struct gen *g)
{
	size_t *idx, k = g->count < g->nsites ? (size_t)g->count : g->nsites;
	uint64_t state = g->seed;
	int ret = 0;

	if (!g->nsites)
		return bad("no mutation site in the functions chosen (--files, --functions, --executed, --executed-lines)");
	idx = malloc(g->nsites * sizeof(*idx));
	if (!idx)
		return bad("%s", strerror(ENOMEM));
	for (size_t i = 0; i < g->nsites; i++)
		idx[i] = i;
	for (size_t i = 0; i < k; i++) {
		size_t j = i + (size_t)iop_uniform(&state, g->nsites - i), t = idx[i];

		idx[i] = idx[j];
		idx[j] = t;
	}
	iop_tmp_cleanup_signals();
	for (size_t i = 0; i < k && !ret; i++)
		ret = write_mutant(g, i, &g->sites[idx[i]]);
	free(idx);
	if (!ret && g->executed_lines)
		fprintf(stderr, "iopath: mutant generate: %zu of %zu sites drawn with seed %" PRIu64
			" into %s, from the lines that ran (%zu sites in lines that never ran and %zu"
			" in lines without instructions left out)\n", k, g->nsites, g->seed, g->out,
			g->lines_not_run, g->lines_no_code);
	else if (!ret)
		fprintf(stderr, "iopath: mutant generate: %zu of %zu sites drawn with seed %" PRIu64
			" into %s%s\n", k, g->nsites, g->seed, g->out,
			g->executed ? "" : "; the sample is not restricted to executed code (no --executed)");
	return ret;
}

static void gen_free(struct gen *g)
{
	for (size_t i = 0; i < g->nsrc; i++) {
		iop_ctok_free(&g->src[i].t);
		free(g->src[i].text);
		iop_mutsites_free(g->persite[i], g->npersite[i]);
	}
	for (size_t i = 0; i < g->nexec; i++)
		free(g->exec[i]);
	free(g->exec);
	free(g->src);
	free(g->persite);
	free(g->npersite);
	free(g->sites);
	free(g->files);
	iop_exec_lines_free(&g->el);
}

static void usage(void)
{
	printf("usage: iopath mutant generate --ksrc DIR (--seed N --out DIR [--count N] | --list)\n"
	       "                              [--files A,B] [--functions GLOB,GLOB] [--executed FILE]\n"
	       "                              [--executed-lines FILE] [--against TEXT]\n"
	       "Mutants by rule: the operators negate, relop, off-by-one, call-void, call-zero,\n"
	       "call-arg, and-or, drop-stmt and flag over every function body of the files\n"
	       "(default: the fast path of fs/iomap, lib/iov_iter.c, fs/read_write.c,\n"
	       "fs/splice.c, mm/filemap.c, ext4, XFS and io_uring), a sample of --count\n"
	       "(default 40) drawn with --seed, each written to --out (a directory with no\n"
	       "mutant in it yet) as NNN-OPERATOR-FUNCTION.patch with '# Tests: all' and\n"
	       "'# Generated: OPERATOR, SEED'; their names are printed. --executed FILE: only\n"
	       "functions named there (one a line, what the collection executes);\n"
	       "--executed-lines FILE: only sites on a source line that ran (iopath\n"
	       "coverage's lines.tsv, from a kernel with debug information); --list:\n"
	       "the sites per file and operator, nothing written. A tree that cannot be\n"
	       "parsed is refused (exit 2). Run the sample with iopath mutate --mutants DIR\n"
	       "--all-tests.\n");
}

static int parse_args(struct gen *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ksrc", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'c' },
		{ "out", required_argument, NULL, 'o' },
		{ "files", required_argument, NULL, 'f' },
		{ "functions", required_argument, NULL, 'F' },
		{ "executed", required_argument, NULL, 'e' },
		{ "executed-lines", required_argument, NULL, 'E' },
		{ "against", required_argument, NULL, 'a' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *files = default_files;
	int c;

	g->count = 40;
	optind = 0;
	while ((c = iop_getopt(argc, argv, "mutant generate", "", opts)) != -1) {
		switch (c) {
		case 'k':
			g->ksrc = optarg;
			break;
		case 'o':
			g->out = optarg;
			break;
		case 'f':
			files = optarg;
			break;
		case 'F':
			g->functions = optarg;
			break;
		case 'e':
			g->executed = optarg;
			break;
		case 'E':
			g->executed_lines = optarg;
			break;
		case 'a':
			g->against = optarg;
			break;
		case 'l':
			g->list = true;
			break;
		case 's':
			if (iop_parse_u64(optarg, 0, INT64_MAX, &g->seed))
				return iop_usage_error("mutant", "generate: --seed '%s' is not 0 to 2^63-1", optarg);
			g->have_seed = true;
			break;
		case 'c':
			if (iop_parse_u64(optarg, 1, 10000, &g->count))
				return iop_usage_error("mutant", "generate: --count '%s' is not 1 to 10000", optarg);
			break;
		case 'h':
			usage();
			return 1;
		default:
			return 2;
		}
	}
	if (optind < argc)
		return iop_usage_error("mutant", "generate: no operands (--help)");
	if (!g->ksrc)
		return iop_usage_error("mutant", "generate needs --ksrc");
	if (!g->list && (!g->have_seed || !g->out))
		return iop_usage_error("mutant", "generate needs --seed and --out (or --list)");
	g->files = strdup(files);
	return g->files ? 0 : iop_usage_error("mutant", "%s", strerror(ENOMEM));
}

int iop_mutant_generate(int argc, char **argv)
{
	struct gen g = { 0 };
	struct stat st;
	int ret;

	ret = parse_args(&g, argc, argv);
	if (ret)
		return ret == 1 ? 0 : ret;
	ret = -EINVAL;
	if (stat(g.ksrc, &st) || !S_ISDIR(st.st_mode))
		bad("--ksrc %s: not a directory", g.ksrc);
	else if (g.executed && read_executed(&g))
		;
	else if (g.executed_lines && read_lines(&g))
		;
	else if (scan_tree(&g))
		;
	else if (g.list)
		ret = 0;
	else if (!check_out(g.out))
		ret = draw(&g);
	if (!ret && g.list)
		list_sites(&g);
	gen_free(&g);
	return ret ? 2 : 0;
}
