// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath compare BASE NEW [NEW...]: turn a base run and a patched run into
 * a verdict per metric, in the kernel test robot's table layout, as a block
 * for a commit message, or as JSON.
 *
 * Each repetition's metric "value" is one observation; a side's n is its
 * number of repetitions. Per metric:
 *  - rates (agg "hmean") are summarised by the harmonic mean and tested on
 *    their reciprocals (time per operation), everything else by the
 *    values themselves, each side by its 20%-trimmed mean, so the test is
 *    about exactly the means that are printed;
 *  - Yuen's test of the trimmed means (Welch's t-test with winsorized
 *    variances and the values kept; exactly Welch's below 5 values)
 *    decides improvement, regression or no significant change: a
 *    repetition the host slowed as a whole cannot decide it;
 *  - the confidence interval of the relative change is Fieller's interval
 *    for the ratio of the two means, with the same t quantile, so it
 *    excludes 0% exactly when the test rejects.
 * docs/compare.md explains these choices; compare_stats.c computes them,
 * compare_build.c pairs the records and collects the notes, compare_fmt.c
 * prints them. This command does not decide whether a benchmark measured
 * the right thing, and it does not average away noisy runs: untrusted
 * records, unpaired records and environment differences are listed above
 * the tables and mark the rows they affect.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "cli.h"
#include "iopath.h"
#include "shared_recset.h"
#include "compare.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: iopath compare BASE NEW [NEW...] [--format text|commit|json|verdict|ci|planted]\n"
		   "                      [--alpha A] [--json FILE] [--verdict FILE] [--target-ci P]\n"
		   "                      [--fail-on-regression]\n"
		   "Compare benchmark records (JSON Lines from iopath bench) of a base and new runs:\n"
		   "per metric the means, %%change, its confidence interval and a verdict from\n"
		   "Yuen's trimmed-mean test over the repetitions. docs/compare.md explains the\n"
		   "statistics.\n"
		   "  --format text    the kernel test robot's table (default)\n"
		   "  --format commit  the significant changes, for a commit message\n"
		   "  --format json    everything, for programs\n"
		   "  --format verdict one line per benchmark on its verdict metric, as iopath ab\n"
		   "                   prints it (changes to 0.001%%)\n"
		   "  --format ci      one machine line: whether the widest CI of a verdict\n"
		   "                   metric is narrower than --target-ci P (%% each side)\n"
		   "  --format planted one machine line per verdict metric: the change per\n"
		   "                   operation and its CI (iopath ab --calibrate)\n"
		   "  --json FILE, --verdict FILE  that format written to FILE as well (a new\n"
		   "                   file, or one replaced; never through a symbolic link)\n"
		   "  --alpha A        significance level, 0 < A < 0.5 (default 0.05: 95%% CI)\n"
		   "  --fail-on-regression  exit 1 if any metric regressed\n");
}

/* Options into @o; -1 to go on, else the exit status. Operands from optind. */
static int parse_opts(int argc, char **argv, struct opts *o, bool *fail_on_regression)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "format", required_argument, NULL, 'f' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "fail-on-regression", no_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "verdict", required_argument, NULL, 'v' },
		{ "target-ci", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	int opt;

	optind = 0;
	while ((opt = iop_getopt(argc, argv, "compare", "h", longopts)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'f':
			if (!strcmp(optarg, "text"))
				o->format = F_TEXT;
			else if (!strcmp(optarg, "commit"))
				o->format = F_COMMIT;
			else if (!strcmp(optarg, "json"))
				o->format = F_JSON;
			else if (!strcmp(optarg, "verdict"))
				o->format = F_VERDICT;
			else if (!strcmp(optarg, "ci"))
				o->format = F_CI;
			else if (!strcmp(optarg, "planted"))
				o->format = F_PLANTED;
			else
				return iop_usage_error("compare", "--format must be text, commit, json, verdict, ci or planted, not '%s'",
						       optarg);
			break;
		case 'a':
			if (iop_parse_real(optarg, 0, 0.5, &o->alpha) ||
			    !(o->alpha > 0 && o->alpha < 0.5))
				return iop_usage_error("compare", "--alpha must be a number in (0, 0.5), not '%s'",
						       optarg);
			break;
		case 'r':
			*fail_on_regression = true;
			break;
		case 'j':
			o->json_out = optarg;
			break;
		case 'v':
			o->verdict_out = optarg;
			break;
		case 't':
			if (iop_parse_percent(optarg, &o->target_ci))
				return iop_usage_error("compare", "--target-ci must be a percentage in (0, 100], not '%s'",
						       optarg);
			break;
		default:
			return 2;
		}
	}
	if (o->format == F_CI && isnan(o->target_ci))
		return iop_usage_error("compare", "--format ci needs --target-ci P");
	if (!isnan(o->target_ci) && o->format != F_CI)
		return iop_usage_error("compare", "--target-ci goes with --format ci");
	return -1;
}

/* The JSON of @n comparisons to @out; -1 when it cannot be encoded. */
static int print_json(FILE *out, struct comparison *cmps, size_t n, const struct opts *o)
{
	json_t *arr = json_array(), *doc = NULL;
	char *text = NULL;
	bool bad = !arr;

	for (size_t i = 0; !bad && i < n; i++)
		bad = json_array_append_new(arr, comparison_json(&cmps[i]));
	if (bad)
		json_decref(arr);
	else
		doc = json_pack("{s:i, s:f, s:o}", "schema", 1, "alpha", o->alpha, "comparisons",
				arr);
	/* ASCII: a control character of a record's (C1 included) is a \u escape */
	if (doc)
		text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII);
	json_decref(doc);
	if (!text) {
		fprintf(stderr, "iopath: compare: cannot encode JSON\n");
		return -1;
	}
	/* ... and DEL too, which jansson leaves raw (it occurs only inside strings) */
	for (const char *p = text; *p; p++) {
		if (*p == 0x7f)
			fputs("\\u007f", out);
		else
			fputc(*p, out);
	}
	fputc('\n', out);
	free(text);
	return 0;
}

/* What --format @format prints for @n comparisons to @out; -1 on failure. */
static int print_format(FILE *out, int format, struct comparison *cmps, size_t n,
			const struct opts *o)
{
	double hw;

	switch (format) {
	case F_JSON:
		return print_json(out, cmps, n, o);
	case F_VERDICT:
		for (size_t i = 0; i < n; i++)
			compare_print_verdict(out, &cmps[i], o);
		return 0;
	case F_PLANTED:
		for (size_t i = 0; i < n; i++)
			compare_print_planted(out, &cmps[i]);
		return 0;
	case F_CI:
		/* the widest of every comparison: the run is as sure as its least sure */
		hw = 0;
		for (size_t i = 0; i < n; i++) {
			double w = compare_ci_halfwidth(&cmps[i]);

			hw = isnan(w) || isnan(hw) ? NAN : fmax(hw, w);
		}
		/* comparison_verdicts() refused a verdict metric without an interval */
		if (isnan(hw)) {
			fprintf(stderr, "iopath: compare: --format ci: a verdict metric has no interval\n");
			return -1;
		}
		fprintf(out, "# IOPATH-CI: reached=%s halfwidth=%.6g target=%g\n",
			hw < o->target_ci ? "yes" : "no", hw, o->target_ci);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (i)
			fprintf(out, "\n\n");
		if (format == F_TEXT)
			compare_print_text(out, &cmps[i], o);
		else
			compare_print_commit(out, &cmps[i], o);
	}
	return 0;
}

/*
 * --json FILE or --verdict FILE: whether it may be written, before any
 * input is read: its directory there, no symbolic link or directory at
 * its name, and not one of the inputs (the records would be replaced).
 */
static int check_out(const char *opt, const char *path, const char **inputs, size_t n)
{
	struct stat so, si;
	char why[512];

	if (iop_out_check(path, why, sizeof(why)))
		return iop_usage_error("compare", "%s %s", opt, why);
	if (stat(path, &so))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!stat(inputs[i], &si) && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			return iop_usage_error("compare", "%s %s: is an input file", opt, path);
	return 0;
}

/* @format into @path: a new file renamed over it (lib/outfile.c). */
static int write_out(const char *path, int format, struct comparison *cmps, size_t n,
		     const struct opts *o)
{
	char tmp[4096];
	FILE *f;
	int fd, ret;

	fd = iop_tmp_create(path, iop_out_mode(path), tmp, sizeof(tmp));
	if (fd < 0) {
		fprintf(stderr, "iopath: compare: ");
		iop_esc(stderr, path);
		fprintf(stderr, ": %s\n", strerror(-fd));
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		iop_tmp_discard(tmp);
		return -1;
	}
	ret = print_format(f, format, cmps, n, o);
	if (fclose(f) || ret) {
		iop_tmp_discard(tmp);
		return -1;
	}
	ret = iop_tmp_commit(tmp, path);
	if (ret < 0) {
		fprintf(stderr, "iopath: compare: ");
		iop_esc(stderr, path);
		fprintf(stderr, ": %s\n", strerror(-ret));
		return -1;
	}
	return 0;
}

static int cmd_compare(int argc, char **argv)
{
	struct opts o = { .format = F_TEXT, .alpha = 0.05, .target_ci = NAN };
	bool fail_on_regression = false, regressed = false, verdicts;
	const char **paths;
	struct iop_rs_file *files = NULL;
	struct comparison *cmps = NULL;
	size_t npaths = 0, nloaded = 0, ncmp = 0;
	char why[512];
	int ret = 2;

	ret = parse_opts(argc, argv, &o, &fail_on_regression);
	if (ret >= 0)
		return ret;
	ret = 2;
	paths = (const char **)argv + optind;
	npaths = (size_t)(argc - optind);
	if (npaths < 2) {
		ret = iop_usage_error("compare", "need a BASE and at least one NEW file (iopath compare --help)");
		goto out;
	}

	/* One file on two sides compares nothing with itself: a mistyped name. */
	for (size_t i = 0; i < npaths; i++) {
		struct stat si, sj;

		if (stat(paths[i], &si))
			continue;	/* iop_rs_load() says why */
		for (size_t j = 0; j < i; j++) {
			if (!stat(paths[j], &sj) && si.st_dev == sj.st_dev &&
			    si.st_ino == sj.st_ino) {
				ret = iop_usage_error("compare", "%s and %s are the same file",
						      paths[j], paths[i]);
				goto out;
			}
		}
	}

	if ((o.json_out && check_out("--json", o.json_out, paths, npaths)) ||
	    (o.verdict_out && check_out("--verdict", o.verdict_out, paths, npaths)))
		goto out;
	if (o.json_out && o.verdict_out && !strcmp(o.json_out, o.verdict_out)) {
		ret = iop_usage_error("compare", "--json and --verdict name one file, %s", o.json_out);
		goto out;
	}

	/* a verdict asked for: every benchmark has one, or none is given */
	verdicts = o.format == F_VERDICT || o.format == F_CI || o.verdict_out;
	/* GSL's default handler abort()s; every input is checked before it is used. */
	gsl_set_error_handler_off();

	/* Read and check everything before printing anything. */
	files = calloc(npaths, sizeof(*files));
	cmps = calloc(npaths - 1, sizeof(*cmps));
	if (!files || !cmps) {
		ret = 1;
		goto out;
	}
	for (; nloaded < npaths; nloaded++) {
		if (iop_rs_load(&files[nloaded], paths[nloaded], why, sizeof(why)) < 0) {
			fputs("iopath: compare: ", stderr);
			iop_esc_line(stderr, why);
			fputc('\n', stderr);
			goto out;
		}
		/* An instruction count is not a time: never one against the other. */
		if (strcmp(files[nloaded].domain, files[0].domain)) {
			ret = iop_usage_error("compare", "%s is in the \"%s\" clock domain, %s in \"%s\": they do not compare",
					      paths[0], files[0].domain, paths[nloaded],
					      files[nloaded].domain);
			nloaded++;
			goto out;
		}
	}
	for (; ncmp < npaths - 1; ncmp++) {
		struct comparison *c = &cmps[ncmp];

		c->base_path = paths[0];
		c->new_path = paths[ncmp + 1];
		c->base = &files[0];
		c->new = &files[ncmp + 1];
		/*
		 * No verdict line may be missing or rest on a figure that is no
		 * number, and no gate pass over a metric it could not test.
		 */
		if (comparison_build(c, o.alpha, why, sizeof(why)) < 0 ||
		    comparison_verdicts(c, verdicts, fail_on_regression, why, sizeof(why))) {
			fputs("iopath: compare: ", stderr);
			iop_esc_line(stderr, why);
			fputc('\n', stderr);
			ncmp++;
			goto out;
		}
	}

	/* the files first: stdout may be a pipe whose reader stops at the verdict */
	if ((o.json_out && write_out(o.json_out, F_JSON, cmps, ncmp, &o)) ||
	    (o.verdict_out && write_out(o.verdict_out, F_VERDICT, cmps, ncmp, &o)) ||
	    print_format(stdout, o.format, cmps, ncmp, &o)) {
		ret = 1;
		goto out;
	}
	for (size_t i = 0; i < ncmp; i++)
		for (size_t j = 0; j < cmps[i].ngc; j++)
			for (size_t k = 0; k < cmps[i].gc[j].nm; k++)
				regressed |= cmps[i].gc[j].m[k].v == V_WORSE;
	ret = fflush(stdout) ? 1 : (fail_on_regression && regressed ? 1 : 0);
out:
	for (size_t i = 0; i < ncmp; i++)
		comparison_free(&cmps[i]);
	for (size_t i = 0; i < nloaded; i++)
		iop_rs_free(&files[i]);
	free(cmps);
	free(files);
	return ret;
}

IOP_COMMAND("compare",
	    "compare benchmark records of a base and a new run: table, commit text, JSON",
	    cmd_compare)
