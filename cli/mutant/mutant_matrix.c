// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath mutant matrix: the kill matrix of iopath mutate, from the
 * campaign's plan (WORK/plan.json: the mutants, in its order, their
 * functions) and state (WORK/state/NAME.json, pristine.json: lib/campaign.h
 * reads them), written as
 * WORK/matrix.md and WORK/matrix.json (jansson) through lib/outfile.c,
 * both or neither. Generated mutants (a "# Generated:" line) get their
 * kill rate with its 95% confidence interval under the table. Every
 * string from elsewhere (headers, details, --ksrc) is in both as
 * iop_esc() gives it. Prints "KILLED NON_EQUIVALENT" on stdout.
 *
 * The state is read as input, not trusted (lib/campaign_state.c): regular
 * files only, bounded, a class of the known ones, counts that are counts.
 * Anything else is one line on stderr and exit 2, and no matrix is written.
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
#include "campaign.h"
#include "cli.h"
#include "mutant.h"
#include "mutant_int.h"
#include "outfile.h"
#include "quote.h"
#include "stats.h"

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

/*
 * A result's detail: escaped once already by the classification
 * (lib/campaign.h), so as iop_esc_line() prints it: escaped again only if
 * the state holds what needs it.
 */
static char *detail_text(const char *s)
{
	return iop_needs_esc(s) ? iop_esc_dup(s) : strdup(s);
}

static json_t *jdetail(const char *s)
{
	char *e = detail_text(s);
	json_t *j = e ? json_string(e) : NULL;

	free(e);
	return j;
}

/* A table cell of @e, escaped already (freed here): '|' as '\|'. */
static void md_text(FILE *f, char *e)
{
	fputc(' ', f);
	for (const char *p = e ? e : ""; *p; p++) {
		if (*p == '|')
			fputc('\\', f);
		fputc(*p, f);
	}
	fputs(" |", f);
	free(e);
}

/* A table cell: control characters escaped (the table is printed). */
static void md_cell(FILE *f, const char *s)
{
	md_text(f, iop_esc_dup(s ? s : ""));
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
	const char *work, *plan_path, *ksrc;
	struct iop_plan plan;
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

/* The row of a mutant that ran: its class, killers, seconds, detail. */
static int add_result(struct matrix *mx, const struct iop_result *r, json_t *o)
{
	json_t *killers = json_array();
	char buf[2][24];

	if (!strcmp(r->class, "killed") || !strcmp(r->class, "crash"))
		mx->killed++;
	if (strcmp(r->class, "equivalent"))
		mx->non_equivalent++;
	snprintf(buf[0], sizeof(buf[0]), "%lld", (long long)r->build_s);
	snprintf(buf[1], sizeof(buf[1]), "%lld", (long long)r->run_s);
	md_cell(mx->md, r->class);
	fputc(' ', mx->md);
	for (size_t i = 0; i < r->killers.n; i++) {
		char *e = iop_esc_dup(r->killers.s[i]);

		fprintf(mx->md, "%s%s", i ? " " : "", e ? e : "");
		free(e);
	}
	fputs(" |", mx->md);
	md_cell(mx->md, buf[0]);
	md_cell(mx->md, buf[1]);
	md_text(mx->md, detail_text(r->detail));
	fputc('\n', mx->md);
	if (json_object_set_new(o, "class", jtext(r->class)) ||
	    json_object_set_new(o, "killed_by", killers))
		return -ENOMEM;
	for (size_t i = 0; i < r->killers.n; i++)
		if (json_array_append_new(killers, jtext(r->killers.s[i])))
			return -ENOMEM;
	if (json_object_set_new(o, "build_s", json_integer(r->build_s)) ||
	    json_object_set_new(o, "run_s", json_integer(r->run_s)) ||
	    json_object_set_new(o, "detail", jdetail(r->detail)))
		return -ENOMEM;
	return 0;
}

static int add_mutant(struct matrix *mx, const struct iop_plan_mutant *m, char *why, size_t len)
{
	char path[PATH_MAX];
	struct iop_result r;
	json_t *o;
	int ret;

	snprintf(path, sizeof(path), "%s/state/%s.json", mx->work, m->name);
	ret = iop_result_load(&r, path, why, len);
	if (ret < 0)
		return ret;
	if (m->gen_operator)
		count_generated(&mx->gen, m->gen_seed, ret ? NULL : r.class);
	/* 1: not run */
	fprintf(mx->md, "|");
	md_cell(mx->md, m->name);
	md_cell(mx->md, m->function);
	o = json_object();
	if (!o || json_object_set_new(o, "name", jtext(m->name)) ||
	    json_object_set_new(o, "function", jtext(m->function)))
		goto nomem;
	if (ret) {
		fputs(" not run | | | | |\n", mx->md);
		if (json_object_set_new(o, "class", json_string("not run")))
			goto nomem;
	} else if (add_result(mx, &r, o)) {
		goto nomem;
	}
	iop_result_free(&r);
	return json_array_append_new(mx->list, o) ? -ENOMEM : 0;
nomem:
	json_decref(o);
	iop_result_free(&r);
	return -ENOMEM;
}

static int add_pristine(struct matrix *mx, char *why, size_t len)
{
	struct iop_pristine pr;
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/state/pristine.json", mx->work);
	if (access(path, F_OK) && errno == ENOENT)
		return 0;
	ret = iop_pristine_load(&pr, path, why, len);
	if (ret)
		return ret;
	ret = json_object_set_new(mx->json, "pristine",
				  json_pack("{s:o, s:i, s:i, s:i}", "build_s", pr.build_s < 0 ?
					    json_null() : json_integer(pr.build_s),
					    "runs", (int)pr.nruns,
					    "clean_runs", (int)iop_pristine_clean(&pr),
					    "tests_passing", (int)pr.passing.n)) ? -ENOMEM : 0;
	iop_pristine_free(&pr);
	return ret;
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
	for (size_t i = 0; i < mx->plan.nmutants; i++) {
		ret = add_mutant(mx, &mx->plan.mutants[i], why, len);
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
		{ "plan", required_argument, NULL, 'p' },
		{ "ksrc", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct matrix mx = { .ksrc = "" };
	char why[PATH_MAX + 256] = "", plan[PATH_MAX];
	int c, ret;

	optind = 0;
	while ((c = iop_getopt(argc, argv, "mutant matrix", "+", opts)) != -1) {
		switch (c) {
		case 'w':
			mx.work = optarg;
			break;
		case 'p':
			mx.plan_path = optarg;
			break;
		case 'k':
			mx.ksrc = optarg;
			break;
		case 'h':
			printf("usage: iopath mutant matrix --work WORK [--plan PLAN] [--ksrc SRC]\n"
			       "The kill matrix of the mutants of PLAN (default WORK/plan.json, iopath\n"
			       "mutant plan's) from iopath mutate's state in WORK/state:\n"
			       "WORK/matrix.md and WORK/matrix.json; prints the killed and the\n"
			       "non-equivalent mutants' counts.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!mx.work || optind != argc)
		return iop_usage_error("mutant", "matrix needs --work, and takes no operand "
				       "(the mutants are the plan's)");
	snprintf(plan, sizeof(plan), "%s/plan.json", mx.work);
	/* The outputs may be written: found before any state is read. */
	if (check_outputs(mx.work, why, sizeof(why)) ||
	    iop_plan_load(&mx.plan, mx.plan_path ?: plan, why, sizeof(why)))
		return iop_mutant_error(why);
	ret = write_matrix(&mx, why, sizeof(why));
	iop_plan_free(&mx.plan);
	if (ret)
		return iop_mutant_error(why);
	printf("%u %u\n", mx.killed, mx.non_equivalent);
	return 0;
}
