// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The benchmarks' parameters: the common table, parsing and validating
 * name=value against each parameter's type and range (one line saying what
 * is allowed), the typed accessors, the record's "params" object and the
 * --help listing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "harness_int.h"
#include "iopath.h"

/* ---- parameters -------------------------------------------------------- */

/*
 * The harness's own parameters (microbench/common_params.h), expanded into
 * the table and the offsets of their fields.
 */
#define IOP_COMMON_PARAM(field, type, def, min, max, choices, help) \
	{ #field, type, def, min, max, choices, help },
#define IOP_COMMON_SETTING IOP_COMMON_PARAM
const struct iop_param iop_common_params[] = {
#include "common_params.h"
	{ .name = NULL }
};

#undef IOP_COMMON_PARAM
#undef IOP_COMMON_SETTING

#define IOP_COMMON_PARAM(field, ...) offsetof(struct iop_common_opts, field),
#define IOP_COMMON_SETTING IOP_COMMON_PARAM
static const size_t common_off[] = {
#include "common_params.h"
};

#undef IOP_COMMON_PARAM
#undef IOP_COMMON_SETTING

#define IOP_COMMON_PARAM(field, ...) false,
#define IOP_COMMON_SETTING(field, ...) true,
static const bool common_setting[] = {
#include "common_params.h"
};

#undef IOP_COMMON_PARAM
#undef IOP_COMMON_SETTING

bool iop_param_is_setting(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(common_setting); i++)
		if (!strcmp(iop_common_params[i].name, name))
			return common_setting[i];
	return false;
}

static const struct iop_param *param_find(const struct iop_bench *b, const char *name, size_t nlen)
{
	for (const struct iop_param *p = b->params; p && p->name; p++)
		if (strlen(p->name) == nlen && !strncmp(p->name, name, nlen))
			return p;
	for (const struct iop_param *p = iop_common_params; p->name; p++)
		if (strlen(p->name) == nlen && !strncmp(p->name, name, nlen))
			return p;
	return NULL;
}

static void fmt_size(double v, char *buf, size_t len)
{
	static const char sfx[] = "kmgt";
	uint64_t u = (uint64_t)v;
	int i = -1;

	while (u && u % 1024 == 0 && i < 3) {
		u /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%" PRIu64, u);
	else
		snprintf(buf, len, "%" PRIu64 "%c", u, sfx[i]);
}

static void param_allowed(const struct iop_param *p, char *buf, size_t len)
{
	char a[32], b[32];

	switch (p->type) {
	case IOP_P_U64:
		snprintf(buf, len, "an integer in %.0f..%.0f", p->min, p->max);
		break;
	case IOP_P_SIZE:
		fmt_size(p->min, a, sizeof(a));
		fmt_size(p->max, b, sizeof(b));
		snprintf(buf, len, "a size in %s..%s (suffix k/m/g/t)", a, b);
		break;
	case IOP_P_BOOL:
		snprintf(buf, len, "0 or 1");
		break;
	case IOP_P_ENUM:
		snprintf(buf, len, "one of %s", p->choices);
		break;
	case IOP_P_CPUS: {
		char online[64] = "?";
		FILE *f = fopen("/sys/devices/system/cpu/online", "r");

		if (f) {
			if (fgets(online, sizeof(online), f))
				online[strcspn(online, "\n")] = '\0';
			fclose(f);
		}
		snprintf(buf, len, "a list of online CPUs (%s)", online);
		break;
	}
	case IOP_P_DOUBLE:
		snprintf(buf, len, "a number in %g..%g", p->min, p->max);
		break;
	case IOP_P_METRIC:
		snprintf(buf, len, "a metric name (iopath bench --help NAME)");
		break;
	}
}

static int parse_value(struct iop_value *v, const char *text, char *why, size_t len)
{
	const struct iop_param *p = v->p;
	char allowed[96];
	int bad = 0;

	snprintf(v->text, sizeof(v->text), "%s", text);
	if (strlen(text) >= sizeof(v->text))
		bad = 1;
	switch (p->type) {
	case IOP_P_U64:
	case IOP_P_SIZE: {
		uint64_t u = 0;

		if (p->type == IOP_P_SIZE)
			bad |= iop_parse_size(text, &u) != 0;
		else
			bad |= iop_parse_u64(text, 0, UINT64_MAX, &u) != 0;
		if ((double)u < p->min || (double)u > p->max)
			bad = 1;
		v->u = u;
		v->d = (double)u;
		break;
	}
	case IOP_P_DOUBLE:
		if (iop_parse_real(text, p->min, p->max, &v->d))
			bad = 1;
		break;
	case IOP_P_BOOL:
		if (!strcmp(text, "1") || !strcasecmp(text, "yes") || !strcasecmp(text, "on") ||
		    !strcasecmp(text, "true"))
			v->u = 1;
		else if (!strcmp(text, "0") || !strcasecmp(text, "no") ||
			 !strcasecmp(text, "off") || !strcasecmp(text, "false"))
			v->u = 0;
		else
			bad = 1;
		break;
	case IOP_P_ENUM: {
		const char *c = p->choices;
		size_t tl = strlen(text);
		unsigned int i = 0;

		bad = 1;
		while (c && *c) {
			size_t cl = strcspn(c, "|");

			if (cl == tl && !strncmp(c, text, tl)) {
				v->u = i;
				bad = 0;
				break;
			}
			c += cl;
			if (*c == '|')
				c++;
			i++;
		}
		break;
	}
	case IOP_P_CPUS: {
		cpu_set_t want, online, and;

		if (!*text)	/* the default: resolved by the harness */
			break;
		if (iop_cpulist_parse(text, &want) < 0 || online_cpus(&online) < 0) {
			bad = 1;
			break;
		}
		CPU_AND(&and, &want, &online);
		if (!CPU_COUNT(&want) || !CPU_EQUAL(&and, &want))
			bad = 1;
		break;
	}
	case IOP_P_METRIC:	/* which names exist: iop_main_metric_check() */
		if (strspn(text, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(text))
			bad = 1;
		break;
	}
	if (bad) {
		param_allowed(p, allowed, sizeof(allowed));
		snprintf(why, len, "%s=%s: must be %s", p->name, text, allowed);
		return -EINVAL;
	}
	return 0;
}

int iop_param_check(const struct iop_param *p, const char *text, char *why, size_t len)
{
	struct iop_value v = { .p = p };

	return parse_value(&v, text, why, len);
}

/* The harness's parameters of @r, typed, where iop_common_params points. */
static void common_opts_fill(struct iop_run *r)
{
	char *base = (char *)&r->opt;

	_Static_assert(sizeof(enum iop_inject_clock) == sizeof(unsigned int) &&
		       sizeof(enum iop_stable_writes) == sizeof(unsigned int),
		       "ENUM parameters are stored as unsigned int");
	_Static_assert(sizeof(r->opt.cpus) == sizeof(r->val[0].text) &&
		       sizeof(r->opt.main_metric) == sizeof(r->val[0].text),
		       "CPUS and METRIC parameters are stored as their text");

	for (int i = 0; i < r->nval; i++) {
		const struct iop_value *v = &r->val[i];
		const struct iop_param *p = v->p;
		unsigned int e = (unsigned int)v->u;
		bool b = v->u != 0;

		size_t off;

		if (p < iop_common_params || p >= iop_common_params + ARRAY_SIZE(common_off))
			continue;
		off = common_off[p - iop_common_params];
		switch (p->type) {
		case IOP_P_U64:
		case IOP_P_SIZE:
			memcpy(base + off, &v->u, sizeof(v->u));
			break;
		case IOP_P_DOUBLE:
			memcpy(base + off, &v->d, sizeof(v->d));
			break;
		case IOP_P_BOOL:
			memcpy(base + off, &b, sizeof(b));
			break;
		case IOP_P_ENUM:
			memcpy(base + off, &e, sizeof(e));
			break;
		case IOP_P_CPUS:
		case IOP_P_METRIC:	/* char[sizeof(v->text)] */
			memcpy(base + off, v->text, sizeof(v->text));
			break;
		}
	}
}

int iop_params_parse(const struct iop_bench *b, struct iop_run *r, char **kv, int n,
		     char *why, size_t len)
{
	const struct iop_param *tables[2] = { b->params, iop_common_params };
	int ret;

	r->bench = b;
	r->nval = 0;
	for (int t = 0; t < 2; t++) {
		for (const struct iop_param *p = tables[t]; p && p->name; p++) {
			if (r->nval == IOP_MAX_PARAMS)
				abort();
			r->val[r->nval].p = p;
			ret = parse_value(&r->val[r->nval], p->def, why, len);
			if (ret)	/* a default outside its own range is a bug */
				abort();
			r->nval++;
		}
	}
	if (b->common_defaults) {
		char buf[256], *save, *tok;

		snprintf(buf, sizeof(buf), "%s", b->common_defaults);
		for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(tok, '=');
			const struct iop_param *p = eq ? param_find(b, tok,
								    (size_t)(eq - tok)) : NULL;

			for (int j = 0; p && j < r->nval; j++)
				if (r->val[j].p == p && parse_value(&r->val[j], eq + 1, why, len))
					abort();
		}
	}
	for (int i = 0; i < n; i++) {
		const char *eq = strchr(kv[i], '=');
		const struct iop_param *p;
		struct iop_value *v = NULL;

		if (!eq || eq == kv[i]) {
			snprintf(why, len, "expected name=value, got '%s'", kv[i]);
			return -EINVAL;
		}
		p = param_find(b, kv[i], (size_t)(eq - kv[i]));
		if (!p) {
			snprintf(why, len, "%.*s: no such parameter of %s (iopath bench --help %s lists them)",
				 (int)(eq - kv[i]), kv[i], b->name, b->name);
			return -EINVAL;
		}
		for (int j = 0; j < r->nval; j++)
			if (r->val[j].p == p)
				v = &r->val[j];
		ret = parse_value(v, eq + 1, why, len);
		if (ret)
			return ret;
	}
	common_opts_fill(r);
	ret = iop_main_metric_check(r, why, len);
	if (ret)
		return ret;
	return b->validate ? b->validate(r, why, len) : 0;
}

static const struct iop_value *value_find(const struct iop_run *r, const char *name)
{
	for (int i = 0; i < r->nval; i++)
		if (!strcmp(r->val[i].p->name, name))
			return &r->val[i];
	fprintf(stderr, "iopath: bench %s: no parameter '%s'\n", r->bench->name, name);
	abort();
}

uint64_t iop_u64(const struct iop_run *r, const char *name)
{
	return value_find(r, name)->u;
}

int iop_validate_size_holds_bs(const struct iop_run *r, char *why, size_t len)
{
	if (iop_u64(r, "size") < iop_u64(r, "bs")) {
		snprintf(why, len, "size=%s is smaller than bs=%s", iop_str(r, "size"),
			 iop_str(r, "bs"));
		return -EINVAL;
	}
	return 0;
}

double iop_dbl(const struct iop_run *r, const char *name)
{
	return value_find(r, name)->d;
}

int iop_runtime_ms(const struct iop_run *r)
{
	return (int)llround(r->opt.runtime * 1000);
}

const char *iop_str(const struct iop_run *r, const char *name)
{
	return value_find(r, name)->text;
}

bool iop_is(const struct iop_run *r, const char *name, const char *choice)
{
	return !strcmp(value_find(r, name)->text, choice);
}

/* Whether @name came after records existed: the resolution settings, and the benchmark's own. */
static bool added_later(const struct iop_bench *b, const char *name)
{
	static const char *const common[] = {
		"main_metric", "target_ci", "time_budget", "inject_ns", "inject_clock",
		"inject_loops", "inject_every", "inject_probe",
	};
	const char *p;
	size_t n = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(common); i++)
		if (!strcmp(common[i], name))
			return true;
	for (p = b->added_later; p && (p = strstr(p, name)); p += n)
		if ((p == b->added_later || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

json_t *iop_params_json(const struct iop_run *r)
{
	json_t *o = json_object();

	for (int i = 0; i < r->nval; i++) {
		const struct iop_value *v = &r->val[i];
		json_t *j;

		if (added_later(r->bench, v->p->name) && !strcmp(v->text, v->p->def))
			continue;

		switch (v->p->type) {
		case IOP_P_U64:
		case IOP_P_SIZE:
			j = json_integer((json_int_t)v->u);
			break;
		case IOP_P_BOOL:
			j = json_boolean(v->u);
			break;
		case IOP_P_DOUBLE:
			j = json_real(v->d);
			break;
		default:
			j = json_string(v->text);
		}
		if (json_object_set_new(o, v->p->name, j)) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static void usage_table(const struct iop_param *t, FILE *f)
{
	char allowed[96], def[64];

	for (const struct iop_param *p = t; p && p->name; p++) {
		param_allowed(p, allowed, sizeof(allowed));
		snprintf(def, sizeof(def), "%s", *p->def ? p->def : "-");
		fprintf(f, "  %-14s default %-6s %s\n  %14s (%s)\n", p->name, def,
			p->help, "", allowed);
	}
}

static void metrics_table(const struct iop_metric *m, FILE *f)
{
	for (; m && m->name; m++)
		fprintf(f, "  %-20s %-6s %s is better\n", m->name, m->unit,
			m->better == IOP_HIGHER_IS_BETTER ? "higher" : "lower");
}

void iop_bench_usage(const struct iop_bench *b, FILE *f)
{
	fprintf(f, "%s: %s\n\nparameters (name=value):\n", b->name, b->description);
	usage_table(b->params, f);
	fprintf(f, "\ncommon parameters:\n");
	usage_table(iop_common_params, f);
	if (b->common_defaults)
		fprintf(f, "  (%s defaults: %s)\n", b->name, b->common_defaults);
	fprintf(f, "\nmetrics:\n");
	metrics_table(b->metrics, f);
	if (b->latency_metrics)
		metrics_table(iop_latency_metrics, f);
}
