// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one-off conversion of a campaign's state as scripts/mutate.sh wrote
 * it before lib/campaign_state.c owned it (iopath mutant convert,
 * docs/efficacy.md): NAME.result ("class=", "build_s=", "run_s=",
 * "detail=", "killers=" lines) and pristine.runs ("RUN<TAB>SECONDS<TAB>RC
 * <TAB>STOP"), .tests ("NAME<TAB>PROGRAM"), .ok, .programs and .build_s,
 * read as input (lib/input.c, every line checked), into NAME.json and
 * pristine.json. Nothing writes the old files any more; this goes when no
 * work directory of theirs is left.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign.h"
#include "campaign_int.h"
#include "input.h"
#include "mutant.h"
#include "number.h"
#include "why.h"

#define LINE_MAX_OLD	4096

static bool is_count(const char *s, int64_t *v)
{
	uint64_t u;

	if (iop_parse_u64(s, 0, UINT32_MAX, &u))
		return false;
	*v = (int64_t)u;
	return true;
}

struct old_result {
	struct iop_result *r;
	char *vals[5];
};

static int result_line(void *arg, const char *line, size_t lineno, char *why, size_t len)
{
	static const char *const keys[] = { "class", "build_s", "run_s", "detail", "killers" };
	struct old_result *o = arg;
	const char *eq = strchr(line, '=');
	size_t k;

	(void)lineno;
	for (k = 0; eq && k < 5; k++)
		if ((size_t)(eq - line) == strlen(keys[k]) && !strncmp(line, keys[k], eq - line))
			break;
	if (!eq || k == 5 || o->vals[k]) {
		iop_why(why, len, "not a line of iopath mutate's results");
		return -EINVAL;
	}
	o->vals[k] = strdup(eq + 1);
	return o->vals[k] ? 0 : -ENOMEM;
}

/* @dir/@name.result into @r. */
static int old_result(const char *dir, const char *name, struct iop_result *r, char *why,
		      size_t len)
{
	struct old_result o = { .r = r };
	char path[PATH_MAX], *save, *t;
	int ret;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s/%s.result", dir, name);
	ret = iop_input_each_line(path, LINE_MAX_OLD, result_line, &o, why, len);
	if (ret)
		goto out;
	ret = -EINVAL;
	if (!o.vals[0] || !o.vals[1] || !o.vals[2] || !o.vals[3] || !o.vals[4]) {
		iop_why(why, len, "%s: not a result of iopath mutate (a line is missing)", path);
		goto out;
	}
	if (!iop_result_class_ok(o.vals[0]) || !is_count(o.vals[1], &r->build_s) ||
	    !is_count(o.vals[2], &r->run_s)) {
		iop_why(why, len, "%s: a class none of iopath mutate's, or seconds that are not counts",
			path);
		goto out;
	}
	ret = 0;
	for (t = strtok_r(o.vals[4], " ", &save); t && !ret; t = strtok_r(NULL, " ", &save))
		ret = iop_campaign_test_ok(t) ? iop_strs_add(&r->killers, t) : -EINVAL;
	if (ret == -EINVAL)
		iop_why(why, len, "%s: killers= holds what is not a test's name", path);
	r->name = strdup(name);
	r->class = o.vals[0];
	r->detail = o.vals[3];
	o.vals[0] = NULL;
	o.vals[3] = NULL;
	if (!ret && !r->name)
		ret = -ENOMEM;
out:
	for (int k = 0; k < 5; k++)
		free(o.vals[k]);
	if (ret)
		iop_result_free(r);
	return ret;
}

/* A line of one of the pristine files, and the state it goes into. */
struct fields {
	struct iop_pristine *pr;
	int kind;	/* 0 runs, 1 tests, 2 ok, 3 programs, 4 build_s */
};

static int pristine_line(void *arg, const char *line, size_t lineno, char *why, size_t len)
{
	struct fields *f = arg;
	struct iop_pristine *pr = f->pr;
	char *copy = strdup(line), *tab1, *tab2 = NULL, *tab3 = NULL;
	int ret = -EINVAL;

	if (!copy)
		return -ENOMEM;
	tab1 = strchr(copy, '\t');
	if (tab1)
		tab2 = strchr(tab1 + 1, '\t');
	if (tab2)
		tab3 = strchr(tab2 + 1, '\t');
	if (f->kind == 0 && tab3) {
		struct iop_pristine_run *r, *runs = reallocarray(pr->runs, pr->nruns + 1, sizeof(*r));

		*tab2 = *tab3 = '\0';
		if (!runs) {
			ret = -ENOMEM;
			goto out;
		}
		pr->runs = runs;
		r = &runs[pr->nruns];
		memset(r, 0, sizeof(*r));
		if (is_count(tab1 + 1, &r->seconds) && is_count(tab2 + 1, &r->rc)) {
			r->stop = strdup(tab3 + 1);
			ret = r->stop ? 0 : -ENOMEM;
			pr->nruns += !ret;
		}
	} else if (f->kind == 1 && tab1 && iop_campaign_test_ok(tab1 + 1)) {
		*tab1 = '\0';
		if (iop_campaign_test_ok(copy))
			ret = iop_strs_add(&pr->tests, copy) ?:
			      iop_strs_add(&pr->test_programs, tab1 + 1);
	} else if (f->kind == 2 && iop_campaign_test_ok(copy)) {
		ret = iop_strs_add(&pr->passing, copy);
	} else if (f->kind == 3 && !strcmp(copy, "all")) {
		pr->whole = true;
		ret = 0;
	} else if (f->kind == 3 && iop_campaign_program_ok(copy)) {
		ret = iop_strs_add(&pr->programs, copy);
	} else if (f->kind == 4 && lineno == 1) {
		ret = !strcmp(copy, "null") ? 0 : is_count(copy, &pr->build_s) ? 0 : -EINVAL;
	}
	if (ret == -EINVAL)
		iop_why(why, len, "not a line of iopath mutate's pristine state");
out:
	free(copy);
	return ret;
}

static int old_pristine(const char *dir, struct iop_pristine *pr, char *why, size_t len)
{
	static const char *const names[] = { "runs", "tests", "ok", "programs", "build_s" };
	char path[PATH_MAX];
	int ret = 0;

	memset(pr, 0, sizeof(*pr));
	pr->build_s = -1;
	for (int k = 0; k < 5 && !ret; k++) {
		struct fields f = { .pr = pr, .kind = k };

		snprintf(path, sizeof(path), "%s/pristine.%s", dir, names[k]);
		if (k && access(path, F_OK) && errno == ENOENT)
			continue;
		ret = iop_input_each_line(path, LINE_MAX_OLD, pristine_line, &f, why, len);
	}
	iop_strs_sort(&pr->passing);
	if (ret)
		iop_pristine_free(pr);
	return ret;
}

static int result_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 7 && !strcmp(d->d_name + n - 7, ".result");
}

int iop_campaign_convert(const char *old_state, const char *new_state, char *why, size_t len)
{
	char path[PATH_MAX], name[NAME_MAX + 1];
	struct iop_pristine pr;
	struct iop_result r;
	struct dirent **ents;
	int n, ret = 0;

	n = scandir(old_state, &ents, result_filter, alphasort);
	if (n < 0) {
		iop_why(why, len, "%s: %s", old_state, strerror(errno));
		return -errno;
	}
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%.*s", (int)strlen(ents[i]->d_name) - 7,
			 ents[i]->d_name);
		free(ents[i]);
		if (ret)
			continue;
		if (!iop_mutant_name_ok(name)) {
			iop_why(why, len, "%s/%s.result: not a mutant's name", old_state, name);
			ret = -EINVAL;
			continue;
		}
		ret = old_result(old_state, name, &r, why, len);
		snprintf(path, sizeof(path), "%s/%s.json", new_state, name);
		if (!ret)
			ret = iop_result_write(&r, path, why, len);
		iop_result_free(&r);
	}
	free(ents);
	snprintf(path, sizeof(path), "%s/pristine.runs", old_state);
	if (ret || (access(path, F_OK) && errno == ENOENT))
		return ret;
	ret = old_pristine(old_state, &pr, why, len);
	snprintf(path, sizeof(path), "%s/pristine.json", new_state);
	if (!ret)
		ret = iop_pristine_write(&pr, path, why, len);
	iop_pristine_free(&pr);
	return ret;
}
