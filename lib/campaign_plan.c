// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A campaign's plan (campaign.h): which mutants, the programs and harness
 * filters each runs, the boot options, and the pristine kernel's
 * programs, decided once from the mutants' headers (lib/mutant.c) and
 * written as WORK/plan.json; scripts/mutate.sh (through iopath mutant)
 * and iopath lava mutate run what it says, neither derives it again.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "campaign_int.h"
#include "mutant.h"
#include "quote.h"
#include "why.h"

bool iop_campaign_program_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 5 && n <= 127 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n &&
	       !strcmp(s + n - 5, "_test");
}

/* "program_test=-OPTIONS": a program, then harness options. */
static bool filter_ok(const char *v)
{
	const char *eq = strchr(v, '=');
	char prog[128];

	if (!eq || eq - v >= (long)sizeof(prog) || eq[1] != '-' || !isalpha((unsigned char)eq[2]))
		return false;
	memcpy(prog, v, (size_t)(eq - v));
	prog[eq - v] = '\0';
	return iop_campaign_program_ok(prog);
}

/* What iopath mutate runs of a header: selftest programs, harness filters. */
static int check_runs(const struct iop_mutant *m, const char *path, char *why, size_t len)
{
	const char *tests = iop_mutant_get(m, "Tests");
	char *copy, *w, *save;
	int ret = 0;

	for (size_t i = 0; i < m->nfields; i++) {
		if (!strcmp(m->fields[i].key, "Filter") && !filter_ok(m->fields[i].value)) {
			iop_why(why, len, "%s: '# Filter: %s' is not 'program_test=harness options'",
				path, m->fields[i].value);
			return -EINVAL;
		}
	}
	if (iop_mutant_all_tests(m))
		return 0;
	copy = strdup(tests);
	if (!copy)
		return -ENOMEM;
	for (w = strtok_r(copy, " ", &save); w && !ret; w = strtok_r(NULL, " ", &save)) {
		if (!iop_campaign_program_ok(w)) {
			iop_why(why, len, "%s: '# Tests: %s' is not a selftest program name", path, w);
			ret = -EINVAL;
		}
	}
	free(copy);
	return ret;
}

static int add_filters(struct iop_plan_mutant *pm, const struct iop_mutant *m)
{
	for (size_t i = 0; i < m->nfields; i++) {
		const char *v = m->fields[i].value, *eq = strchr(v, '=');
		struct iop_plan_filter *f;

		if (strcmp(m->fields[i].key, "Filter"))
			continue;
		f = reallocarray(pm->filters, pm->nfilters + 1, sizeof(*f));
		if (!f)
			return -ENOMEM;
		pm->filters = f;
		f += pm->nfilters++;
		f->program = strndup(v, (size_t)(eq - v));
		f->args = strdup(eq + 1);
		if (!f->program || !f->args)
			return -ENOMEM;
	}
	return 0;
}

/* @pm from the header @m of @path; the programs into the pristine union @p. */
static int plan_mutant(struct iop_plan *p, struct iop_plan_mutant *pm, const char *name,
		       const struct iop_mutant *m, const char *path, char *why, size_t len)
{
	const char *fn = iop_mutant_get(m, "Function"), *eq = iop_mutant_get(m, "Equivalent");
	char *copy, *w, *save;
	int op, ret;

	pm->name = strdup(name);
	pm->patch = strdup(path);
	pm->function = strdup(fn);
	pm->equivalent = eq ? strdup(eq) : NULL;
	if (!pm->name || !pm->patch || !pm->function || (eq && !pm->equivalent))
		return -ENOMEM;
	ret = iop_mutant_generated(m, path, &op, &pm->gen_seed, why, len);
	if (ret < 0)
		return ret;
	if (ret) {
		const char *v = iop_mutant_get(m, "Generated");

		pm->gen_operator = strndup(v, strcspn(v, ","));
		if (!pm->gen_operator)
			return -ENOMEM;
		ret = 0;	/* 1 said "generated"; the Tests loop below runs on 0 */
	}
	pm->whole = p->all_tests || iop_mutant_all_tests(m);
	p->pristine_whole |= pm->whole;
	if (pm->whole)
		return 0;
	copy = strdup(iop_mutant_get(m, "Tests"));
	if (!copy)
		return -ENOMEM;
	for (w = strtok_r(copy, " ", &save); w && !ret; w = strtok_r(NULL, " ", &save))
		ret = iop_strs_add(&pm->programs, w) ?: iop_strs_add(&p->pristine_programs, w);
	free(copy);
	return ret ?: add_filters(pm, m);
}

/* The header of @dir/@name.patch, checked for what iopath mutate runs; into @pm if given. */
static int plan_read(struct iop_plan *p, const char *dir, const char *name,
		     struct iop_plan_mutant *pm, char *why, size_t len)
{
	char path[PATH_MAX];
	struct iop_mutant m;
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s.patch", dir, name) >= sizeof(path)) {
		iop_why(why, len, "%s/%s.patch: name too long", dir, name);
		return -ENAMETOOLONG;
	}
	ret = iop_mutant_read(path, &m, why, len);
	if (!ret)
		ret = check_runs(&m, path, why, len);
	if (!ret && pm)
		ret = plan_mutant(p, pm, name, &m, path, why, len);
	iop_mutant_free(&m);
	return ret;
}

int iop_plan_make(struct iop_plan *p, const char *dir, char *const *names, size_t nnames,
		  bool all_tests, char *why, size_t len)
{
	char **all;
	size_t count, i, k;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = iop_mutant_scan(dir, &all, &count, why, len);
	if (ret)
		return ret;
	for (i = 0; i < count && !ret; i++)
		ret = plan_read(p, dir, all[i], NULL, why, len);
	for (i = 0; i < nnames && !ret; i++) {
		for (k = 0; k < count && strcmp(all[k], names[i]); k++)
			;
		if (k == count) {
			iop_why(why, len, "no mutant '%s' in %s (--list shows them)", names[i], dir);
			ret = -EINVAL;
		}
	}
	p->all_tests = all_tests;
	p->mutants_dir = strdup(dir);
	p->append = strdup(IOP_PLAN_APPEND);
	p->nmutants = nnames ? nnames : count;
	p->mutants = calloc(p->nmutants + 1, sizeof(*p->mutants));
	if (!ret && (!p->mutants_dir || !p->append || !p->mutants))
		ret = -ENOMEM;
	for (i = 0; i < p->nmutants && !ret; i++)
		ret = plan_read(p, dir, nnames ? names[i] : all[i], &p->mutants[i], why, len);
	iop_mutant_names_free(all, count);
	iop_strs_sort(&p->pristine_programs);
	if (p->pristine_whole)
		iop_strs_free(&p->pristine_programs);
	if (ret == -ENOMEM)
		iop_why(why, len, "%s", strerror(ENOMEM));
	if (ret)
		iop_plan_free(p);
	return ret;
}

static json_t *filters_json(const struct iop_plan_mutant *m)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < m->nfilters; i++) {
		if (json_array_append_new(a, json_pack("{s:s, s:s}", "program",
						       m->filters[i].program, "args",
						       m->filters[i].args))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *mutant_json(const struct iop_plan_mutant *m)
{
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "name", m->name,
			 "patch", m->patch, "function", m->function, "equivalent",
			 m->equivalent ? json_string(m->equivalent) : json_null(),
			 "generated", m->gen_operator ?
			 json_pack("{s:s, s:I}", "operator", m->gen_operator, "seed",
				   (json_int_t)m->gen_seed) : json_null(),
			 "programs", m->whole ? json_string("all") : iop_campaign_jstrs(&m->programs),
			 "filters", filters_json(m));
}

int iop_plan_write(const struct iop_plan *p, const char *path, char *why, size_t len)
{
	json_t *list = json_array();

	for (size_t i = 0; list && i < p->nmutants; i++) {
		if (json_array_append_new(list, mutant_json(&p->mutants[i]))) {
			json_decref(list);
			list = NULL;
		}
	}
	return iop_campaign_write(json_pack("{s:s, s:s, s:b, s:s, s:{s:o}, s:o}",
					    "schema", IOP_PLAN_SCHEMA, "mutants_dir", p->mutants_dir,
					    "all_tests", p->all_tests, "append", p->append,
					    "pristine", "programs", p->pristine_whole ?
					    json_string("all") :
					    iop_campaign_jstrs(&p->pristine_programs),
					    "mutants", list),
				  path, why, len);
}

/* A string of the plan that ends up in a command line: no control character. */
static bool text_ok(const char *s)
{
	return *s && strlen(s) < 4096 && !iop_needs_esc(s);
}

/* "all", or a list of programs. */
static int programs_load(json_t *v, bool *whole, struct iop_strs *progs, const char *path,
			 char *why, size_t len)
{
	*whole = json_is_string(v) && !strcmp(json_string_value(v), "all");
	return *whole ? 0 : iop_campaign_strs(v, progs, iop_campaign_program_ok, path, "programs",
					      why, len);
}

static int filters_load(struct iop_plan_mutant *m, json_t *a, const char *path, char *why,
			size_t len)
{
	size_t i;
	json_t *e;

	m->filters = calloc(json_array_size(a) + 1, sizeof(*m->filters));
	if (!m->filters)
		return -ENOMEM;
	json_array_foreach(a, i, e) {
		const char *prog, *args;

		if (json_unpack(e, "{s:s, s:s !}", "program", &prog, "args", &args) ||
		    !iop_campaign_program_ok(prog) || !text_ok(args) || args[0] != '-') {
			iop_why(why, len, "%s: %s: filter %zu is not {program, args}", path,
				m->name, i + 1);
			return -EINVAL;
		}
		m->filters[i].program = strdup(prog);
		m->filters[i].args = strdup(args);
		m->nfilters++;
		if (!m->filters[i].program || !m->filters[i].args)
			return -ENOMEM;
	}
	return 0;
}

static int mutant_load(struct iop_plan_mutant *m, json_t *o, const char *path, char *why,
		       size_t len)
{
	const char *name, *patch, *fn, *eq = NULL, *op = NULL;
	json_int_t seed = 0;
	json_t *jeq = NULL, *gen, *progs, *filters;
	int bad;

	bad = json_unpack(o, "{s:s, s:s, s:s, s:o, s:o, s:o, s:o !}", "name", &name, "patch", &patch,
			  "function", &fn, "equivalent", &jeq, "generated", &gen, "programs", &progs,
			  "filters", &filters);
	if (!bad && json_is_string(jeq))
		eq = json_string_value(jeq);
	if (bad || !iop_mutant_name_ok(name) || !text_ok(patch) || !text_ok(fn) ||
	    !(json_is_null(jeq) || (eq && text_ok(eq))) || !json_is_array(filters) ||
	    (!json_is_null(gen) && (json_unpack(gen, "{s:s, s:I !}", "operator", &op, "seed", &seed) ||
				    !text_ok(op) || seed < 0))) {
		iop_why(why, len, "%s: a mutant is not {name, patch, function, equivalent, generated, programs, filters}",
			path);
		return -EINVAL;
	}
	m->name = strdup(name);
	m->patch = strdup(patch);
	m->function = strdup(fn);
	m->equivalent = eq ? strdup(eq) : NULL;
	m->gen_operator = op ? strdup(op) : NULL;
	m->gen_seed = (uint64_t)seed;
	if (!m->name || !m->patch || !m->function || (eq && !m->equivalent) ||
	    (op && !m->gen_operator))
		return -ENOMEM;
	return programs_load(progs, &m->whole, &m->programs, path, why, len) ?:
	       filters_load(m, filters, path, why, len);
}

int iop_plan_load(struct iop_plan *p, const char *path, char *why, size_t len)
{
	const char *schema, *dir, *append;
	json_t *doc, *progs, *list, *o;
	int all, ret = -EINVAL;
	size_t i;

	memset(p, 0, sizeof(*p));
	doc = iop_campaign_load(path, 16u << 20, IOP_PLAN_SCHEMA, why, len);
	if (!doc)
		return -EINVAL;
	if (json_unpack(doc, "{s:s, s:s, s:b, s:s, s:{s:o !}, s:o !}", "schema", &schema,
			"mutants_dir", &dir, "all_tests", &all, "append", &append, "pristine",
			"programs", &progs, "mutants", &list) || !json_is_array(list) ||
	    !text_ok(dir) || (*append && !text_ok(append))) {
		iop_why(why, len, "%s: not a plan of iopath mutant plan", path);
		goto out;
	}
	p->all_tests = all;
	p->mutants_dir = strdup(dir);
	p->append = strdup(append);
	p->mutants = calloc(json_array_size(list) + 1, sizeof(*p->mutants));
	ret = p->mutants_dir && p->append && p->mutants ? 0 : -ENOMEM;
	if (!ret)
		ret = programs_load(progs, &p->pristine_whole, &p->pristine_programs, path, why,
				    len);
	json_array_foreach(list, i, o) {
		if (ret)
			break;
		ret = mutant_load(&p->mutants[i], o, path, why, len);
		p->nmutants++;
	}
	iop_strs_sort(&p->pristine_programs);
	if (ret == -ENOMEM)
		iop_why(why, len, "%s: %s", path, strerror(ENOMEM));
out:
	json_decref(doc);
	if (ret)
		iop_plan_free(p);
	return ret;
}

void iop_plan_free(struct iop_plan *p)
{
	for (size_t i = 0; p->mutants && i < p->nmutants; i++) {
		struct iop_plan_mutant *m = &p->mutants[i];

		free(m->name);
		free(m->patch);
		free(m->function);
		free(m->equivalent);
		free(m->gen_operator);
		iop_strs_free(&m->programs);
		for (size_t k = 0; k < m->nfilters; k++) {
			free(m->filters[k].program);
			free(m->filters[k].args);
		}
		free(m->filters);
	}
	free(p->mutants);
	free(p->mutants_dir);
	free(p->append);
	iop_strs_free(&p->pristine_programs);
	memset(p, 0, sizeof(*p));
}

const struct iop_plan_mutant *iop_plan_find(const struct iop_plan *p, const char *name)
{
	for (size_t i = 0; i < p->nmutants; i++)
		if (!strcmp(p->mutants[i].name, name))
			return &p->mutants[i];
	return NULL;
}

int iop_plan_env(const struct iop_plan_mutant *m, struct iop_strs *env)
{
	for (size_t i = 0; i < m->nfilters; i++) {
		const struct iop_plan_filter *f = &m->filters[i];
		char *e, *up;
		int ret;

		if (asprintf(&e, "KSELFTEST_%s_ARGS=%s", f->program, f->args) < 0)
			return -ENOMEM;
		for (up = e + strlen("KSELFTEST_"); up < e + strlen("KSELFTEST_") + strlen(f->program);
		     up++)
			*up = (char)toupper((unsigned char)*up);
		ret = iop_strs_add(env, e);
		free(e);
		if (ret)
			return ret;
	}
	return 0;
}

int iop_plan_tests(const struct iop_plan *p, const struct iop_plan_mutant *m,
		   struct iop_strs *args)
{
	const struct iop_strs *progs = m ? &m->programs : &p->pristine_programs;
	char *a;
	int ret = 0;

	if (m ? m->whole : p->pristine_whole)
		return 0;
	for (size_t i = 0; i < progs->n && !ret; i++) {
		if (asprintf(&a, "iopath:%s", progs->s[i]) < 0)
			return -ENOMEM;
		ret = iop_strs_add(args, "-t") ?: iop_strs_add(args, a);
		free(a);
	}
	return ret;
}

bool iop_plan_unfiltered(const struct iop_plan_mutant *m, const char *program)
{
	if (m->whole)
		return true;
	for (size_t i = 0; i < m->nfilters; i++)
		if (!strcmp(m->filters[i].program, program))
			return false;
	for (size_t i = 0; i < m->programs.n; i++)
		if (!strcmp(m->programs.s[i], program))
			return true;
	return false;
}
