// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath mutant plan, args, pristine, covers, record, class and convert:
 * the campaign's state (lib/campaign.h) for scripts/mutate.sh, which keeps
 * the builds, the guests and the process control, and asks here for
 * everything it decides and records: what each run runs, the pristine
 * kernel's state from its runs, a mutant's result. Every file is JSON
 * through lib/outfile.c, every value printed one a line.
 *
 *   plan --mutants DIR [--all-tests] [--out PLAN] [NAME...]
 *                       the plan (docs/efficacy.md): NAMEs, or every mutant;
 *                       without --out, its checks only
 *   args --plan PLAN NAME|pristine
 *                       the arguments of scripts/vm.sh for a run of that
 *                       kernel: --append, --env per filter, -- and -t per
 *                       program; one a line
 *   pristine --plan PLAN --build-s N|null --out FILE SECONDS:RC:RUN...
 *                       the pristine kernel's state from its runs
 *   covers --plan PLAN FILE
 *                       exit 0 if the pristine runs of FILE ran every
 *                       program PLAN needs, 1 if not or there is no FILE
 *   record --name NAME --class no-build --build-s N --detail TEXT --out FILE
 *                       a result without runs (TEXT escaped here)
 *   class FILE          the class of a result
 *   clean FILE          "CLEAN RUNS": the pristine runs without a crash, all
 *   convert OLD_STATE NEW_STATE
 *                       the one-off conversion of a work directory's state
 *                       of the key=value format (docs/efficacy.md)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <limits.h>
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
#include "number.h"
#include "outfile.h"
#include "quote.h"

#define WHY_LEN	(PATH_MAX + 600)
/* Bad usage: one line, exit 2. */
#define USAGE(...) iop_usage_error("mutant", __VA_ARGS__)

/* "iopath mutant plan". */
static int mutant_plan(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mutants", required_argument, NULL, 'm' },
		{ "out", required_argument, NULL, 'o' },
		{ "all-tests", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *out = NULL;
	bool all = false;
	struct iop_plan p;
	char why[WHY_LEN];
	int c;

	optind = 0;
	while ((c = iop_getopt(argc, argv, "mutant plan", "+", opts)) != -1) {
		if (c == 'm')
			dir = optarg;
		else if (c == 'o')
			out = optarg;
		else if (c == 'a')
			all = true;
		else
			return 2;
	}
	if (!dir)
		return USAGE("plan needs --mutants DIR");
	if ((out && iop_out_check(out, why, sizeof(why))) ||
	    iop_plan_make(&p, dir, argv + optind, (size_t)(argc - optind), all, why, sizeof(why)))
		return iop_mutant_error(why);
	c = out ? iop_plan_write(&p, out, why, sizeof(why)) : 0;
	iop_plan_free(&p);
	return c ? iop_mutant_error(why) : 0;
}

static void print_strs(const char *flag, const struct iop_strs *v)
{
	for (size_t i = 0; i < v->n; i++) {
		if (flag)
			printf("%s\n", flag);
		printf("%s\n", v->s[i]);
	}
}

/* "iopath mutant args". */
static int mutant_args(int argc, char **argv)
{
	struct iop_strs env = { 0 }, tests = { 0 };
	const struct iop_plan_mutant *m = NULL;
	char why[WHY_LEN];
	struct iop_plan p;
	int ret;

	if (argc != 4 || strcmp(argv[1], "--plan"))
		return USAGE("args takes --plan PLAN and a NAME (or pristine)");
	if (iop_plan_load(&p, argv[2], why, sizeof(why)))
		return iop_mutant_error(why);
	if (strcmp(argv[3], "pristine")) {
		m = iop_plan_find(&p, argv[3]);
		if (!m) {
			iop_plan_free(&p);
			return USAGE("args: no mutant '%s' in the plan", argv[3]);
		}
	}
	ret = (m ? iop_plan_env(m, &env) : 0) ?: iop_plan_tests(&p, m, &tests);
	if (!ret) {
		if (*p.append)
			printf("--append\n%s\n", p.append);
		print_strs("--env", &env);
		if (tests.n)
			printf("--\n");
		print_strs(NULL, &tests);
	}
	iop_strs_free(&env);
	iop_strs_free(&tests);
	iop_plan_free(&p);
	return ret ? iop_mutant_error(strerror(-ret)) : 0;
}

/* "SECONDS:RC:RUN" into its parts. */
static int run_operand(char *s, const char **path, int64_t *secs, int64_t *rc)
{
	char *a = strchr(s, ':'), *b = a ? strchr(a + 1, ':') : NULL;
	uint64_t u, v;

	if (!b)
		return -EINVAL;
	*a = *b = '\0';
	if (iop_parse_u64(s, 0, UINT32_MAX, &u) || iop_parse_u64(a + 1, 0, 255, &v))
		return -EINVAL;
	*secs = (int64_t)u;
	*rc = (int64_t)v;
	*path = b + 1;
	return 0;
}

static int pristine_opts(int argc, char **argv, const char **plan, const char **out,
			 int64_t *build_s)
{
	static const struct option opts[] = {
		{ "plan", required_argument, NULL, 'p' },
		{ "out", required_argument, NULL, 'o' },
		{ "build-s", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t u;
	int c;

	optind = 0;
	while ((c = iop_getopt(argc, argv, "mutant pristine", "+", opts)) != -1) {
		if (c == 'p') {
			*plan = optarg;
		} else if (c == 'o') {
			*out = optarg;
		} else if (c == 'b' && !strcmp(optarg, "null")) {
			*build_s = -1;
		} else if (c == 'b') {
			if (iop_parse_u64(optarg, 0, UINT32_MAX, &u))
				return USAGE("pristine: --build-s '%s': a count of seconds or null", optarg);
			*build_s = (int64_t)u;
		} else {
			return 2;
		}
	}
	if (!*plan || !*out || optind >= argc)
		return USAGE("pristine needs --plan, --out and SECONDS:RC:RUN operands");
	return 0;
}

/* "iopath mutant pristine". */
static int mutant_pristine(int argc, char **argv)
{
	const char *plan = NULL, *out = NULL, **paths;
	int64_t build_s = -1, *secs, *rcs;
	struct iop_pristine pr;
	size_t n = 0;
	char why[WHY_LEN];
	struct iop_plan p;
	int ret;

	ret = pristine_opts(argc, argv, &plan, &out, &build_s);
	if (ret)
		return ret;
	paths = calloc((size_t)argc, sizeof(*paths));
	secs = calloc((size_t)argc, sizeof(*secs));
	rcs = calloc((size_t)argc, sizeof(*rcs));
	if (!paths || !secs || !rcs) {
		ret = iop_mutant_error(strerror(ENOMEM));
		goto out;
	}
	for (int i = optind; i < argc; i++, n++) {
		if (run_operand(argv[i], &paths[n], &secs[n], &rcs[n])) {
			ret = USAGE("pristine: '%s' is not SECONDS:RC:RUN", argv[i]);
			goto out;
		}
	}
	if (iop_out_check(out, why, sizeof(why)) || iop_plan_load(&p, plan, why, sizeof(why))) {
		ret = iop_mutant_error(why);
		goto out;
	}
	ret = iop_pristine_make(&pr, &p, build_s, paths, secs, rcs, n, why, sizeof(why));
	if (!ret)
		ret = iop_pristine_write(&pr, out, why, sizeof(why));
	if (ret)
		ret = iop_mutant_error(why);
	iop_pristine_free(&pr);
	iop_plan_free(&p);
out:
	free(paths);
	free(secs);
	free(rcs);
	return ret;
}

/* "iopath mutant covers". */
static int mutant_covers(int argc, char **argv)
{
	struct iop_pristine pr;
	char why[WHY_LEN];
	struct iop_plan p;
	int ret;

	if (argc != 4 || strcmp(argv[1], "--plan"))
		return USAGE("covers takes --plan PLAN and a FILE");
	if (access(argv[3], F_OK) && errno == ENOENT)
		return 1;
	if (iop_plan_load(&p, argv[2], why, sizeof(why)))
		return iop_mutant_error(why);
	ret = iop_pristine_load(&pr, argv[3], why, sizeof(why));
	if (ret) {
		iop_plan_free(&p);
		return iop_mutant_error(why);
	}
	ret = iop_pristine_covers(&pr, &p) ? 0 : 1;
	iop_pristine_free(&pr);
	iop_plan_free(&p);
	return ret;
}

/* "iopath mutant record": a result without runs (a mutant that did not build). */
static int mutant_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "class", required_argument, NULL, 'c' },
		{ "build-s", required_argument, NULL, 'b' },
		{ "detail", required_argument, NULL, 'd' },
		{ "out", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct iop_result r = { 0 };
	const char *out = NULL, *b = "0", *d = "";
	char why[WHY_LEN];
	uint64_t u;
	int c, ret;

	optind = 0;
	while ((c = iop_getopt(argc, argv, "mutant record", "+", opts)) != -1) {
		if (c == 'n')
			r.name = optarg;
		else if (c == 'c')
			r.class = optarg;
		else if (c == 'b')
			b = optarg;
		else if (c == 'd')
			d = optarg;
		else if (c == 'o')
			out = optarg;
		else
			return 2;
	}
	if (!r.name || !r.class || !out || optind != argc)
		return USAGE("record needs --name, --class and --out");
	if (!iop_mutant_name_ok(r.name) || strcmp(r.class, "no-build"))
		return USAGE("record: '%s' is not a mutant's name, or the class is not no-build (iopath mutant classify records the others)",
			     r.name);
	if (iop_parse_u64(b, 0, UINT32_MAX, &u))
		return USAGE("record: --build-s '%s' is not a count of seconds", b);
	r.build_s = (int64_t)u;
	if (iop_out_check(out, why, sizeof(why)))
		return iop_mutant_error(why);
	/* A line of a build log: escaped once, as classify escapes its details. */
	r.detail = iop_esc_dup(d);
	if (!r.detail)
		return iop_mutant_error(strerror(ENOMEM));
	ret = iop_result_write(&r, out, why, sizeof(why));
	free(r.detail);
	return ret ? iop_mutant_error(why) : 0;
}

/* "iopath mutant class FILE". */
static int mutant_class(int argc, char **argv)
{
	struct iop_result r;
	char why[WHY_LEN];
	int ret;

	if (argc != 2)
		return USAGE("class takes one result FILE");
	ret = iop_result_load(&r, argv[1], why, sizeof(why));
	if (ret == 1)
		return USAGE("class: no result %s", argv[1]);
	if (ret)
		return iop_mutant_error(why);
	printf("%s\n", r.class);
	iop_result_free(&r);
	return 0;
}

/* "iopath mutant clean FILE". */
static int mutant_clean(int argc, char **argv)
{
	struct iop_pristine pr;
	char why[WHY_LEN];

	if (argc != 2)
		return USAGE("clean takes one pristine FILE");
	if (iop_pristine_load(&pr, argv[1], why, sizeof(why)))
		return iop_mutant_error(why);
	printf("%zu %zu\n", iop_pristine_clean(&pr), pr.nruns);
	iop_pristine_free(&pr);
	return 0;
}

/* "iopath mutant convert OLD_STATE NEW_STATE". */
static int mutant_convert(int argc, char **argv)
{
	char why[WHY_LEN];

	if (argc != 3)
		return USAGE("convert takes OLD_STATE and NEW_STATE (directories)");
	for (int i = 1; i < 3; i++) {
		struct stat st;

		if (stat(argv[i], &st) || !S_ISDIR(st.st_mode))
			return USAGE("convert: %s is not a directory", argv[i]);
	}
	if (iop_campaign_convert(argv[1], argv[2], why, sizeof(why)))
		return iop_mutant_error(why);
	return 0;
}

int iop_mutant_campaign(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} subs[] = {
		{ "plan", mutant_plan }, { "args", mutant_args }, { "pristine", mutant_pristine },
		{ "covers", mutant_covers }, { "record", mutant_record }, { "class", mutant_class },
		{ "clean", mutant_clean },
		{ "convert", mutant_convert },
	};

	for (size_t i = 0; i < ARRAY_SIZE(subs); i++)
		if (!strcmp(argv[0], subs[i].name))
			return subs[i].fn(argc, argv);
	return -1;
}
