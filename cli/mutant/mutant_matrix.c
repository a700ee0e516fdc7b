// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath mutant matrix: the kill matrix of iopath mutate, from the state
 * scripts/mutate.sh keeps in WORK/state (NAME.result, pristine.build_s,
 * pristine.runs, pristine.ok) and the mutants' headers, written as
 * WORK/matrix.md and WORK/matrix.json (jansson) through lib/outfile.c,
 * both or neither. Generated mutants (a "# Generated:" line) get their
 * kill rate with its 95% confidence interval under the table. Every
 * string from elsewhere (headers, details, --ksrc) is in both as
 * iop_esc() gives it. Prints "KILLED NON_EQUIVALENT" on stdout.
 *
 * The state is read as input, not trusted: regular files only, bounded
 * lines, a class of the known ones, counts that are counts. Anything else
 * is one line on stderr and exit 2, and no matrix is written.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array_size.h"
#include "cli.h"
#include "input.h"
#include "mutant.h"
#include "mutant_int.h"
#include "number.h"
#include "outfile.h"
#include "quote.h"
#include "stats.h"

#define STATE_LINE_MAX	4096

/* A mutant's NAME.result: what mutate.sh's record() wrote. */
struct result {
	char *class, *build_s, *run_s, *detail, *killers;
};

static const char *const classes[] = {
	"killed", "crash", "survived", "equivalent", "no-build", "unstable",
};

static bool known_class(const char *c)
{
	for (size_t k = 0; k < ARRAY_SIZE(classes); k++)
		if (!strcmp(c, classes[k]))
			return true;
	return false;
}

static void result_free(struct result *r)
{
	free(r->class);
	free(r->build_s);
	free(r->run_s);
	free(r->detail);
	free(r->killers);
	memset(r, 0, sizeof(*r));
}

static bool is_count(const char *s)
{
	uint64_t v;

	return s && !iop_parse_u64(s, 0, UINT32_MAX, &v);
}

/* Read @path into @r. 1 if it is not there, 0, or -errno with @why. */
static int read_result(const char *path, struct result *r, char *why, size_t len)
{
	struct iop_input in;
	bool term;
	char *line;
	ssize_t n;
	int ret;

	memset(r, 0, sizeof(*r));
	if (access(path, F_OK) && errno == ENOENT)
		return 1;
	ret = iop_input_open(&in, path, STATE_LINE_MAX, why, len);
	if (ret)
		return ret;
	while ((n = iop_input_line(&in, &line, &term, why, len)) >= 0) {
		static const char *const keys[] = {
			"class", "build_s", "run_s", "detail", "killers",
		};
		char **slot[] = { &r->class, &r->build_s, &r->run_s, &r->detail, &r->killers };
		char *eq = strchr(line, '=');
		size_t k;

		if (memchr(line, '\0', (size_t)n) || !eq)
			goto bad;
		for (k = 0; k < 5; k++)
			if ((size_t)(eq - line) == strlen(keys[k]) &&
			    !strncmp(line, keys[k], eq - line))
				break;
		if (k == 5 || *slot[k])
			goto bad;
		*slot[k] = strdup(eq + 1);
		if (!*slot[k]) {
			ret = -ENOMEM;
			snprintf(why, len, "%s: %s", path, strerror(ENOMEM));
			goto out;
		}
	}
	if (n != -ENODATA) {
		ret = (int)n;
		goto out;
	}
	ret = -EINVAL;
	if (!r->class || !r->build_s || !r->run_s || !r->detail || !r->killers) {
		snprintf(why, len, "%s: not a result of iopath mutate (a line is missing)", path);
		goto out;
	}
	if (!known_class(r->class)) {
		snprintf(why, len, "%s: class '%.40s' is none of iopath mutate's", path, r->class);
		goto out;
	}
	if (!is_count(r->build_s) || !is_count(r->run_s)) {
		snprintf(why, len, "%s: build_s and run_s are not counts of seconds", path);
		goto out;
	}
	ret = 0;
out:
	iop_input_close(&in);
	if (ret)
		result_free(r);
	return ret;
bad:
	snprintf(why, len, "%s:%zu: not a line of iopath mutate's results", path, in.lineno);
	ret = -EINVAL;
	goto out;
}

/*
 * The lines of the state file @path (0 if it is not there) into *@lines,
 * and in *@clean those whose 4th tab-separated field is empty (a run of
 * pristine.runs without a crash); *@first the first line. 0 or -errno.
 */
static int count_lines(const char *path, unsigned int *lines, unsigned int *clean,
		       char *first, size_t flen, char *why, size_t len)
{
	struct iop_input in;
	bool term;
	char *line;
	ssize_t n;
	int ret;

	*lines = 0;
	if (clean)
		*clean = 0;
	if (first)
		first[0] = '\0';
	if (access(path, F_OK) && errno == ENOENT)
		return 1;
	ret = iop_input_open(&in, path, STATE_LINE_MAX, why, len);
	if (ret)
		return ret;
	while ((n = iop_input_line(&in, &line, &term, why, len)) >= 0) {
		const char *f = line;

		if (first && !*lines)
			snprintf(first, flen, "%s", line);
		(*lines)++;
		for (int i = 0; i < 3 && f; i++) {
			f = strchr(f, '\t');
			f = f ? f + 1 : NULL;
		}
		if (clean && f && !*f)
			(*clean)++;
	}
	iop_input_close(&in);
	return n == -ENODATA ? 0 : (int)n;
}

/*
 * @text into a new temporary file beside @path (lib/outfile.c), its name
 * in @tmp: renamed into place with its partner by iop_tmp_commit_set().
 */
static int stage(const char *path, const char *text, size_t n, char *tmp, size_t tlen,
		 char *why, size_t len)
{
	size_t off = 0;
	int fd, ret = 0;

	fd = iop_tmp_create(path, iop_out_mode(path), tmp, tlen);
	if (fd < 0) {
		snprintf(why, len, "%s: %s", path, strerror(-fd));
		return fd;
	}
	while (off < n && !ret) {
		ssize_t w = write(fd, text + off, n - off);

		if (w < 0 && errno != EINTR)
			ret = -errno;
		else if (w > 0)
			off += (size_t)w;
	}
	if (close(fd) && !ret)
		ret = -errno;
	if (ret) {
		iop_tmp_discard(tmp);
		snprintf(why, len, "%s: %s", path, strerror(-ret));
	}
	return ret;
}

/*
 * A string of the matrix in matrix.json: the text matrix.md shows, as
 * iop_esc() gives it. A header, a result's detail or --ksrc may hold a
 * control character or bytes that are not UTF-8 (which jansson refuses:
 * NULL, and the mutant was lost from the list while counted); escaped
 * once, by the one escaper, both files say the same.
 */
static json_t *jtext(const char *s)
{
	char *e = iop_esc_dup(s ? s : "");
	json_t *j = e ? json_string(e) : NULL;

	free(e);
	return j;
}

/* A table cell: '|' as '\|', control characters escaped (the table is printed). */
static void md_cell(FILE *f, const char *s)
{
	char *e = iop_esc_dup(s ? s : "");

	fputc(' ', f);
	for (const char *p = e ? e : ""; *p; p++) {
		if (*p == '|')
			fputc('\\', f);
		fputc(*p, f);
	}
	fputs(" |", f);
	free(e);
}

/*
 * The generated mutants (iopath mutant generate) among those of the
 * matrix: a random sample, so their kill rate is an estimate with a
 * confidence interval. Its denominator is the mutants that built and
 * have a verdict, the equivalent ones left out: a mutant that did not
 * build, did not run or has no verdict (unstable) was never a question
 * put to the suite.
 */
struct generated {
	unsigned int drawn, killed, survived, equivalent, no_build, unstable, not_run;
	uint64_t seeds[8];
	unsigned int nseeds;
};

struct matrix {
	const char *work, *mutants, *ksrc;
	char **names;
	int count;
	unsigned int killed, non_equivalent;
	struct generated gen;
	FILE *md;
	json_t *json, *list;
};

static void count_generated(struct generated *g, uint64_t seed, const char *class)
{
	unsigned int k = 0;

	g->drawn++;
	while (k < g->nseeds && g->seeds[k] != seed)
		k++;
	if (k == g->nseeds && k < ARRAY_SIZE(g->seeds))
		g->seeds[g->nseeds++] = seed;
	if (!class)
		g->not_run++;
	else if (!strcmp(class, "killed") || !strcmp(class, "crash"))
		g->killed++;
	else if (!strcmp(class, "survived"))
		g->survived++;
	else if (!strcmp(class, "equivalent"))
		g->equivalent++;
	else if (!strcmp(class, "no-build"))
		g->no_build++;
	else
		g->unstable++;
}

/* The generated mutants' line under the table and their object in the JSON. */
static int add_generated(struct matrix *mx)
{
	const struct generated *g = &mx->gen;
	unsigned int n = g->killed + g->survived;
	double lo, hi, rate = n ? (double)g->killed / n : NAN;
	json_t *o, *seeds;

	if (!g->drawn)
		return 0;
	iop_binomial_ci(g->killed, n, 0.05, &lo, &hi);
	fprintf(mx->md, "\nGenerated mutants (seed");
	for (unsigned int k = 0; k < g->nseeds; k++)
		fprintf(mx->md, "%s %" PRIu64, k ? "," : "", g->seeds[k]);
	fprintf(mx->md, "): %u: %u killed, %u survived, %u equivalent, %u did not build, "
		"%u unstable, %u not run.\n", g->drawn, g->killed, g->survived, g->equivalent,
		g->no_build, g->unstable, g->not_run);
	if (n)
		fprintf(mx->md, "Kill rate of the %u non-equivalent ones that built and ran: "
			"%u/%u = %.1f%% (95%% CI %.1f%% to %.1f%%, Clopper-Pearson).\n", n, g->killed,
			n, 100 * rate, 100 * lo, 100 * hi);
	else
		fprintf(mx->md, "Kill rate: none of them built and ran without being equivalent.\n");
	seeds = json_array();
	for (unsigned int k = 0; seeds && k < g->nseeds; k++)
		if (json_array_append_new(seeds, json_integer((json_int_t)g->seeds[k])))
			break;
	o = json_pack("{s:o?, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:s}",
		      "seeds", seeds, "drawn", (int)g->drawn, "killed", (int)g->killed,
		      "survived", (int)g->survived, "equivalent", (int)g->equivalent,
		      "no_build", (int)g->no_build, "unstable", (int)g->unstable,
		      "not_run", (int)g->not_run, "rate_of", (int)n,
		      "kill_rate", n ? json_real(rate) : json_null(),
		      "ci95_low", n ? json_real(lo) : json_null(),
		      "ci95_high", n ? json_real(hi) : json_null(), "ci_method", "clopper-pearson");
	return !o || json_object_set_new(mx->json, "generated", o) ? -ENOMEM : 0;
}

static int add_mutant(struct matrix *mx, const char *name, char *why, size_t len)
{
	char path[PATH_MAX];
	struct iop_mutant m;
	struct result r;
	const char *func;
	json_t *o, *killers;
	uint64_t seed;
	int ret, generated, op;

	snprintf(path, sizeof(path), "%s/%s.patch", mx->mutants, name);
	ret = iop_mutant_read(path, &m, why, len);
	if (ret)
		return ret;
	func = iop_mutant_get(&m, "Function");
	func = func ? func : "";
	generated = iop_mutant_generated(&m, path, &op, &seed, why, len);
	if (generated < 0) {
		ret = generated;
		goto free_mutant;
	}
	snprintf(path, sizeof(path), "%s/state/%s.result", mx->work, name);
	ret = read_result(path, &r, why, len);
	if (ret < 0)
		goto free_mutant;
	if (generated)
		count_generated(&mx->gen, seed, r.class);
	/* 1: not run, r all NULL */
	fprintf(mx->md, "|");
	md_cell(mx->md, name);
	md_cell(mx->md, func);
	ret = -ENOMEM;
	o = json_object();
	if (!o || json_object_set_new(o, "name", jtext(name)) ||
	    json_object_set_new(o, "function", jtext(func)))
		goto free_result;
	if (!r.class) {
		fputs(" not run | | | | |\n", mx->md);
		if (json_object_set_new(o, "class", json_string("not run")))
			goto free_result;
		goto append;
	}
	if (!strcmp(r.class, "killed") || !strcmp(r.class, "crash"))
		mx->killed++;
	if (strcmp(r.class, "equivalent"))
		mx->non_equivalent++;
	md_cell(mx->md, r.class);
	md_cell(mx->md, r.killers);
	md_cell(mx->md, r.build_s);
	md_cell(mx->md, r.run_s);
	md_cell(mx->md, r.detail);
	fputc('\n', mx->md);
	killers = json_array();
	if (json_object_set_new(o, "killed_by", killers))
		goto free_result;
	for (char *save, *t = strtok_r(r.killers, " ", &save); t;
	     t = strtok_r(NULL, " ", &save))
		if (json_array_append_new(killers, jtext(t)))
			goto free_result;
	if (json_object_set_new(o, "class", jtext(r.class)) ||
	    json_object_set_new(o, "build_s", json_integer(strtoll(r.build_s, NULL, 10))) ||
	    json_object_set_new(o, "run_s", json_integer(strtoll(r.run_s, NULL, 10))) ||
	    json_object_set_new(o, "detail", jtext(r.detail)))
		goto free_result;
append:
	ret = json_array_append_new(mx->list, o) ? -ENOMEM : 0;
	o = NULL;
free_result:
	json_decref(o);
	result_free(&r);
free_mutant:
	iop_mutant_free(&m);
	return ret;
}

static int add_pristine(struct matrix *mx, char *why, size_t len)
{
	char path[PATH_MAX], build_s[64];
	unsigned int runs, clean, ok, n;
	json_t *b;
	int ret;

	snprintf(path, sizeof(path), "%s/state/pristine.runs", mx->work);
	ret = count_lines(path, &runs, &clean, NULL, 0, why, len);
	if (ret)
		return ret < 0 ? ret : 0;
	snprintf(path, sizeof(path), "%s/state/pristine.ok", mx->work);
	ret = count_lines(path, &ok, NULL, NULL, 0, why, len);
	if (ret < 0)
		return ret;
	snprintf(path, sizeof(path), "%s/state/pristine.build_s", mx->work);
	ret = count_lines(path, &n, NULL, build_s, sizeof(build_s), why, len);
	if (ret < 0)
		return ret;
	if (ret == 1 || !strcmp(build_s, "null")) {
		b = json_null();
	} else if (n == 1 && is_count(build_s)) {
		b = json_integer(strtoll(build_s, NULL, 10));
	} else {
		snprintf(why, len, "%s: not a count of seconds", path);
		return -EINVAL;
	}
	if (json_object_set_new(mx->json, "pristine",
				json_pack("{s:o, s:i, s:i, s:i}", "build_s", b, "runs", (int)runs,
					  "clean_runs", (int)clean, "tests_passing", (int)ok)))
		return -ENOMEM;
	return 0;
}

/*
 * matrix.md and matrix.json: they belong together, so both are staged as
 * temporary files and renamed only when both are complete, and neither
 * when one cannot be (iop_tmp_commit_set()); a matrix.json that is a
 * directory left a new matrix.md beside the old JSON.
 */
static int write_pair(struct matrix *mx, const char *md, size_t mdlen, const char *js,
		      size_t jslen, char *why, size_t len)
{
	char path[2][PATH_MAX], tmp[2][PATH_MAX];
	const char *finals[2] = { path[0], path[1] }, *tmps[2] = { tmp[0], tmp[1] };
	size_t failed;
	int ret;

	snprintf(path[0], sizeof(path[0]), "%s/matrix.md", mx->work);
	snprintf(path[1], sizeof(path[1]), "%s/matrix.json", mx->work);
	ret = stage(path[0], md, mdlen, tmp[0], sizeof(tmp[0]), why, len);
	if (ret)
		return ret;
	ret = stage(path[1], js, jslen, tmp[1], sizeof(tmp[1]), why, len);
	if (ret) {
		iop_tmp_discard(tmp[0]);
		return ret;
	}
	ret = iop_tmp_commit_set(tmps, finals, 2, &failed);
	if (ret)
		snprintf(why, len, "%s: %s (neither file written)", path[failed],
			 ret == -ELOOP ? "is a symbolic link (refused: it would be replaced, not followed)" :
			 strerror(-ret));
	return ret;
}

/* Both outputs may be written: found before any state is read. */
static int check_outputs(const char *work, char *why, size_t len)
{
	static const char *const names[] = { "matrix.md", "matrix.json" };
	char path[PATH_MAX];
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", work, names[i]);
		ret = iop_out_check(path, why, len);
		if (ret)
			return ret;
	}
	return 0;
}

static int write_matrix(struct matrix *mx, char *why, size_t len)
{
	char *md = NULL, *js = NULL, *line;
	size_t mdlen = 0, jslen;
	int ret;

	ret = check_outputs(mx->work, why, len);
	if (ret)
		return ret;
	ret = -ENOMEM;
	mx->md = open_memstream(&md, &mdlen);
	mx->json = json_object();
	mx->list = json_array();
	if (!mx->md || !mx->json || !mx->list ||
	    json_object_set_new(mx->json, "kernel_source", jtext(mx->ksrc)))
		goto out;
	ret = add_pristine(mx, why, len);
	if (ret)
		goto out;
	fputs("| mutant | function | class | killed by | build s | run s | detail |\n"
	      "|---|---|---|---|---:|---:|---|\n", mx->md);
	for (int i = 0; i < mx->count; i++) {
		ret = add_mutant(mx, mx->names[i], why, len);
		if (ret)
			goto out;
	}
	ret = add_generated(mx);
	if (ret)
		goto out;
	ret = -ENOMEM;
	if (json_object_set_new(mx->json, "mutants", json_incref(mx->list)) ||
	    json_object_set_new(mx->json, "killed", json_integer(mx->killed)) ||
	    json_object_set_new(mx->json, "non_equivalent", json_integer(mx->non_equivalent)))
		goto out;
	js = json_dumps(mx->json, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (fclose(mx->md) || !js) {
		mx->md = NULL;
		goto out;
	}
	mx->md = NULL;
	/* json_dumps() allocates just the string: one byte more for the newline. */
	jslen = strlen(js);
	line = realloc(js, jslen + 2);
	if (!line)
		goto out;
	js = line;
	memcpy(js + jslen, "\n", 2);
	ret = write_pair(mx, md, mdlen, js, jslen + 1, why, len);
out:
	if (ret == -ENOMEM && !why[0])
		snprintf(why, len, "%s", strerror(ENOMEM));
	if (mx->md)
		fclose(mx->md);
	free(md);
	free(js);
	json_decref(mx->list);
	json_decref(mx->json);
	return ret;
}

int iop_mutant_matrix(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "work", required_argument, NULL, 'w' },
		{ "mutants", required_argument, NULL, 'm' },
		{ "ksrc", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct matrix mx = { .ksrc = "" };
	char why[PATH_MAX + 256] = "";
	int c;

	optind = 0;
	while ((c = iop_getopt(argc, argv, "mutant matrix", "+", opts)) != -1) {
		switch (c) {
		case 'w':
			mx.work = optarg;
			break;
		case 'm':
			mx.mutants = optarg;
			break;
		case 'k':
			mx.ksrc = optarg;
			break;
		case 'h':
			printf("usage: iopath mutant matrix --work WORK --mutants DIR [--ksrc SRC] "
			       "NAME...\n"
			       "The kill matrix of the mutants NAME... from iopath mutate's state in\n"
			       "WORK/state: WORK/matrix.md and WORK/matrix.json; prints the killed\n"
			       "and the non-equivalent mutants' counts.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!mx.work || !mx.mutants)
		return iop_usage_error("mutant", "matrix needs --work and --mutants");
	mx.names = argv + optind;
	mx.count = argc - optind;
	/* Names of iop_mutant_scan()'s kind only: they make paths below WORK. */
	for (int i = 0; i < mx.count; i++)
		if (!iop_mutant_name_ok(mx.names[i]))
			return iop_usage_error("mutant", "matrix: '%s' is not a mutant's name",
					       mx.names[i]);
	if (write_matrix(&mx, why, sizeof(why)))
		return iop_mutant_error(why);
	printf("%u %u\n", mx.killed, mx.non_equivalent);
	return 0;
}
