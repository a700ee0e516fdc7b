// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Record sets: load result files for `iopath compare` and `iopath plot` and
 * pair their records by benchmark and parameters. lib/record.c parses the
 * JSON Lines and checks the schema; this file checks what a comparison
 * relies on (each metric's name, value, direction and mean), so that a bad
 * record is reported with its file and line before anything is printed.
 *
 * Shared by several commands (hence shared_): compare, plot, records and
 * bench --calibrate (bench_calibrate.c) all load and pair records here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_size.h"
#include "input.h"
#include "record.h"
#include "record_view.h"
#include "shared_recset.h"

struct load_ctx {
	struct iop_rs_file *f;
	size_t cap;
	size_t bad;		/* 1-based index of the first bad record */
	char what[256];
};

static int fail(struct load_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct load_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->what, sizeof(c->what), fmt, ap);
	va_end(ap);
	c->bad = c->f->n + 1;
	return 1;
}

static const char *unit_of(json_t *m)
{
	const char *u = json_string_value(json_object_get(m, "unit"));

	return u ? u : "";
}

/* A rate: harmonic aggregate, or a unit per second. */
static bool rate(json_t *m)
{
	const char *agg = json_string_value(json_object_get(m, "agg"));
	const char *unit = json_string_value(json_object_get(m, "unit"));
	size_t ul = unit ? strlen(unit) : 0;

	return iop_agg_is_rate(agg) || (ul > 2 && !strcmp(unit + ul - 2, "/s"));
}

/* A duration: its unit is one of time. */
static bool duration(json_t *m)
{
	static const char *const units[] = { "ns", "us", "\u00b5s", "ms", "s" };
	const char *unit = json_string_value(json_object_get(m, "unit"));

	for (size_t i = 0; unit && i < ARRAY_SIZE(units); i++)
		if (!strcmp(unit, units[i]))
			return true;
	return false;
}

/* Not finite, or a negative time or rate: no measurement gives that. */
static bool impossible(json_t *m, json_t *v)
{
	double x = json_number_value(v);

	return !isfinite(x) || (x < 0 && (rate(m) || duration(m)));
}

/*
 * Magnitudes no measurement has and the statistics cannot take: compare
 * squares the values (variances) and tests rates as 1/x, and 1e-320 or
 * 1e308 there leave the range of a double (0, inf or a subnormal without
 * precision), so the mean, the change or the interval came out null or
 * infinite under a verdict. Within 1e-150 .. 1e150 both stay normal.
 */
#define VALUE_MIN 1e-150
#define VALUE_MAX 1e150

static bool out_of_range(json_t *v)
{
	double x = fabs(json_number_value(v));

	return x != 0 && !(x >= VALUE_MIN && x <= VALUE_MAX);
}

/* @v is the string @a or the string @b. */
static bool is_one_of(json_t *v, const char *a, const char *b)
{
	return json_is_string(v) &&
	       (!strcmp(json_string_value(v), a) || !strcmp(json_string_value(v), b));
}

static int check_metric(struct load_ctx *c, json_t *m, size_t i, json_t *metrics)
{
	json_t *name = json_object_get(m, "name");
	json_t *samples = json_object_get(m, "samples");
	json_t *v;
	size_t j;

	if (!json_is_object(m))
		return fail(c, "metric %zu is not an object", i + 1);
	if (!json_is_string(name) || !json_string_length(name))
		return fail(c, "metric %zu has no \"name\"", i + 1);
	if (!json_is_number(json_object_get(m, "value")))
		return fail(c, "metric \"%s\" has no numeric \"value\"", json_string_value(name));
	if (!is_one_of(json_object_get(m, "better"), "higher", "lower"))
		return fail(c, "metric \"%s\": \"better\" must be \"higher\" or \"lower\"",
			    json_string_value(name));
	if (!iop_agg_known(json_string_value(json_object_get(m, "agg"))))
		return fail(c, "metric \"%s\": \"agg\" must be \"hmean\", \"median\", \"ops_over_time\", \"time_over_ops\" or \"hmean_inliers\"",
			    json_string_value(name));
	v = json_object_get(m, "quantum");
	if (v && !(json_is_number(v) && json_number_value(v) >= 0 && json_number_value(v) < 1))
		return fail(c, "metric \"%s\": \"quantum\" must be a fraction in [0, 1)",
			    json_string_value(name));
	if (json_object_get(m, "unit") && !json_is_string(json_object_get(m, "unit")))
		return fail(c, "metric \"%s\": \"unit\" is not a string", json_string_value(name));
	if (impossible(m, json_object_get(m, "value")))
		return fail(c, "metric \"%s\": value %g is impossible for a %s in %s",
			    json_string_value(name), json_number_value(json_object_get(m, "value")),
			    rate(m) ? "rate" : "time", unit_of(m));
	if (out_of_range(json_object_get(m, "value")))
		return fail(c, "metric \"%s\": value %g is out of range (0, or %g to %g in magnitude)",
			    json_string_value(name), json_number_value(json_object_get(m, "value")),
			    VALUE_MIN, VALUE_MAX);
	if (samples) {
		if (!json_is_array(samples))
			return fail(c, "metric \"%s\": \"samples\" is not an array",
				    json_string_value(name));
		json_array_foreach(samples, j, v) {
			if (!json_is_number(v))
				return fail(c, "metric \"%s\": sample %zu is not a number",
					    json_string_value(name), j + 1);
			if (impossible(m, v))
				return fail(c, "metric \"%s\": sample %zu (%g) is impossible for a %s in %s",
					    json_string_value(name), j + 1, json_number_value(v),
					    rate(m) ? "rate" : "time", unit_of(m));
			if (out_of_range(v))
				return fail(c, "metric \"%s\": sample %zu (%g) is out of range (0, or %g to %g in magnitude)",
					    json_string_value(name), j + 1, json_number_value(v),
					    VALUE_MIN, VALUE_MAX);
		}
	}
	for (j = 0; j < i; j++) {
		json_t *o = json_object_get(json_array_get(metrics, j), "name");

		if (json_is_string(o) && json_equal(o, name))
			return fail(c, "metric \"%s\" appears twice", json_string_value(name));
	}
	return 0;
}

static int load_one(json_t *rec, void *arg)
{
	struct load_ctx *c = arg;
	struct iop_rs_file *f = c->f;
	json_t *bench = json_object_get(rec, "bench");
	json_t *params = json_object_get(rec, "params");
	json_t *metrics = json_object_get(rec, "metrics");
	json_t *status = json_object_get(rec, "status");
	const char *d;
	json_t *m;
	size_t i;

	if (!json_is_string(bench) || !json_string_length(bench))
		return fail(c, "\"bench\" is not a non-empty string");
	if (params && !json_is_object(params))
		return fail(c, "\"params\" is not an object");
	if (!json_is_array(metrics))
		return fail(c, "\"metrics\" is not an array");
	if (status && !json_is_string(status))
		return fail(c, "\"status\" is not a string");
	json_array_foreach(metrics, i, m)
		if (check_metric(c, m, i, metrics))
			return 1;
	d = iop_rs_clock_domain(rec);
	if (!d)
		return fail(c, "env.clock.domain is neither \"wall\" nor \"instructions\"");
	if (f->domain && strcmp(f->domain, d))
		return fail(c, "clock domain \"%s\", where the records above are in \"%s\": one file, one domain",
			    d, f->domain);
	f->domain = d;

	if (f->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		json_t **r = realloc(f->recs, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		f->recs = r;
		c->cap = cap;
	}
	f->recs[f->n++] = json_incref(rec);
	return 0;
}

/*
 * lib/record.c hands over records, not line numbers; record k is the k-th
 * line that is not blank (a blank line is either skipped by the reader or
 * an error that stops it before any later record). The line numbers of
 * the first @nrec records.
 */
static int find_lines(struct iop_rs_file *f, size_t nrec)
{
	struct iop_input in;
	bool terminated;
	char *line;
	size_t k;

	free(f->lines);
	f->lines = calloc(nrec ? nrec : 1, sizeof(*f->lines));
	if (!f->lines)
		return -ENOMEM;
	for (k = 0; k < nrec; k++)
		f->lines[k] = (int)k + 1;
	if (iop_input_open(&in, f->path, IOP_RECORD_LINE_MAX, NULL, 0))
		return 0;
	k = 0;
	while (k < nrec && iop_input_line(&in, &line, &terminated, NULL, 0) >= 0)
		if (line[strspn(line, " \t\r\n")])
			f->lines[k++] = (int)in.lineno;
	iop_input_close(&in);
	return 0;
}

int iop_rs_load(struct iop_rs_file *f, const char *path, char *why, size_t len)
{
	struct load_ctx c = { .f = f };
	int ret;

	memset(f, 0, sizeof(*f));
	f->path = path;
	why[0] = '\0';
	ret = iop_records_read(path, load_one, &c, why, len);
	if (c.bad) {
		find_lines(f, c.bad);
		snprintf(why, len, "%s:%d: %s", path, f->lines[c.bad - 1], c.what);
		ret = -EINVAL;
		goto err_free;
	}
	if (ret == -ENODATA || (ret >= 0 && !f->n)) {
		if (ret != -ENODATA || !why[0])
			snprintf(why, len, "%s: no records", path);
		ret = -ENODATA;
		goto err_free;
	}
	if (ret < 0) {
		if (!why[0])
			snprintf(why, len, "%s: %s", path, strerror(-ret));
		goto err_free;
	}
	ret = find_lines(f, f->n);
	if (ret < 0) {
		snprintf(why, len, "%s: %s", path, strerror(-ret));
		goto err_free;
	}
	return 0;

err_free:
	iop_rs_free(f);
	f->path = path;
	return ret < 0 ? ret : -EINVAL;
}

const char *iop_rs_clock_domain(json_t *rec)
{
	json_t *d = iop_rs_env(rec, "clock.domain");

	if (!d)
		return "wall";
	if (json_is_string(d) && !strcmp(json_string_value(d), "wall"))
		return "wall";
	if (json_is_string(d) && !strcmp(json_string_value(d), "instructions"))
		return "instructions";
	return NULL;
}

void iop_rs_free(struct iop_rs_file *f)
{
	for (size_t i = 0; i < f->n; i++)
		json_decref(f->recs[i]);
	free(f->recs);
	free(f->lines);
	f->recs = NULL;
	f->lines = NULL;
	f->n = 0;
}

/*
 * The parameters a record was run with, as compare sees them: its "params"
 * plus the filesystem, which iopath bench takes as an option (--fs) and
 * records in env.fs.type. ext4 and XFS runs of one benchmark must not pair.
 */
static json_t *effective_params(json_t *rec, bool *fs_from_env)
{
	json_t *params = json_object_get(rec, "params");
	json_t *p = params ? json_deep_copy(params) : json_object();
	const char *fs = iop_rs_env_str(rec, "fs.type");

	*fs_from_env = false;
	/* which metric a run is judged by does not change what it measured */
	if (p)
		json_object_del(p, "main_metric");
	if (p && !json_object_get(p, "fs")) {
		if (json_object_set_new(p, "fs", json_string(fs ? fs : "none"))) {
			json_decref(p);
			return NULL;
		}
		*fs_from_env = true;
	}
	return p;
}

static char *group_key(json_t *rec, json_t *params)
{
	json_t *canon = json_deep_copy(params), *v;
	const char *name;
	char *p, *key;

	/* a number is one value whichever way it was written: runtime 1 and 1.0 */
	json_object_foreach(canon, name, v) {
		if (json_is_integer(v) &&
		    json_object_set_new(canon, name, json_real((double)json_integer_value(v)))) {
			json_decref(canon);
			return NULL;
		}
	}
	p = canon ? json_dumps(canon, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(canon);
	if (!p)
		return NULL;
	if (asprintf(&key, "%s %s", json_string_value(json_object_get(rec, "bench")), p) < 0)
		key = NULL;
	free(p);
	return key;
}

static int add_to_group(struct iop_rs_group *g, int side, json_t *rec, int line)
{
	json_t **r = realloc(g->recs[side], (g->n[side] + 1) * sizeof(*r));
	int *l;

	if (!r)
		return -ENOMEM;
	g->recs[side] = r;
	l = realloc(g->lines[side], (g->n[side] + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	g->lines[side] = l;
	r[g->n[side]] = rec;
	l[g->n[side]] = line;
	g->n[side]++;
	return 0;
}

int iop_rs_pair(const struct iop_rs_file *base, const struct iop_rs_file *new,
		struct iop_rs_group **groups, size_t *n)
{
	const struct iop_rs_file *side[2] = { base, new };
	struct iop_rs_group *g = NULL;
	size_t ng = 0, i, j;
	int ret = -ENOMEM;

	for (int s = 0; s < 2; s++) {
		for (i = 0; i < side[s]->n; i++) {
			json_t *rec = side[s]->recs[i];
			bool fs_from_env;
			json_t *params = effective_params(rec, &fs_from_env);
			char *key = params ? group_key(rec, params) : NULL;

			if (!key) {
				json_decref(params);
				goto err;
			}
			/* Few groups (tens): a linear search keeps file order simply. */
			for (j = 0; j < ng; j++)
				if (!strcmp(g[j].key, key))
					break;
			if (j == ng) {
				struct iop_rs_group *ng_arr = realloc(g, (ng + 1) * sizeof(*g));

				if (!ng_arr) {
					free(key);
					json_decref(params);
					goto err;
				}
				g = ng_arr;
				memset(&g[ng], 0, sizeof(g[ng]));
				g[ng].key = key;
				g[ng].bench = json_string_value(json_object_get(rec, "bench"));
				g[ng].params = params;
				g[ng].fs_from_env = fs_from_env;
				ng++;
			} else {
				free(key);
				json_decref(params);
			}
			if (add_to_group(&g[j], s, rec, side[s]->lines[i]))
				goto err;
		}
	}
	*groups = g;
	*n = ng;
	return 0;
err:
	iop_rs_groups_free(g, ng);
	return ret;
}

/* ---- what a comparison cannot take ------------------------------------ */

struct rep_key {
	json_t *rec;
	int line;
};

static int cmp_rep_key(const void *a, const void *b)
{
	const struct rep_key *x = a, *y = b;
	json_int_t rx = json_integer_value(json_object_get(x->rec, "rep"));
	json_int_t ry = json_integer_value(json_object_get(y->rec, "rep"));
	int c;

	if (rx != ry)
		return rx < ry ? -1 : 1;
	c = strcmp(json_string_value(json_object_get(x->rec, "time")),
		   json_string_value(json_object_get(y->rec, "time")));
	return c ? c : x->line - y->line;
}

/*
 * The same repetition recorded twice (a file concatenated with itself, a
 * run appended twice) would count as two and narrow the interval: refused.
 * Records without an integer "rep" and a string "time" are not compared.
 */
static int check_duplicates(const struct iop_rs_group *g, int side, const char *path,
			    char *why, size_t len)
{
	struct rep_key *k = calloc(g->n[side] ? g->n[side] : 1, sizeof(*k));
	size_t n = 0;
	int ret = 0;

	if (!k) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (size_t i = 0; i < g->n[side]; i++) {
		json_t *rec = g->recs[side][i];

		if (json_is_integer(json_object_get(rec, "rep")) &&
		    json_is_string(json_object_get(rec, "time")))
			k[n++] = (struct rep_key){ rec, g->lines[side][i] };
	}
	qsort(k, n, sizeof(*k), cmp_rep_key);
	for (size_t i = 1; i < n; i++) {
		if (json_integer_value(json_object_get(k[i].rec, "rep")) !=
		    json_integer_value(json_object_get(k[i - 1].rec, "rep")) ||
		    strcmp(json_string_value(json_object_get(k[i].rec, "time")),
			   json_string_value(json_object_get(k[i - 1].rec, "time"))))
			continue;
		snprintf(why, len, "%s:%d: duplicate record: %s rep %" JSON_INTEGER_FORMAT
			 " at %s is also line %d",
			 path, k[i].line, g->bench,
			 json_integer_value(json_object_get(k[i].rec, "rep")),
			 json_string_value(json_object_get(k[i].rec, "time")), k[i - 1].line);
		ret = -EINVAL;
		break;
	}
	free(k);
	return ret;
}

/* Every record of @g names each metric in one unit, on both sides. */
static int check_units(const struct iop_rs_group *g, const char *const paths[2],
		       char *why, size_t len)
{
	json_t *seen = json_object();	/* name -> [unit, side, line] of its first record */
	int ret = 0;

	if (!seen)
		return -ENOMEM;
	for (int s = 0; s < 2 && !ret; s++) {
		for (size_t i = 0; i < g->n[s] && !ret; i++) {
			json_t *m, *first;
			size_t j;

			json_array_foreach(json_object_get(g->recs[s][i], "metrics"), j, m) {
				const char *name = json_string_value(json_object_get(m, "name"));
				const char *unit = unit_of(m), *first_unit;
				json_int_t first_side;

				first = json_object_get(seen, name);
				if (!first) {
					first = json_pack("[s, i, i]", unit, s, g->lines[s][i]);
					if (json_object_set_new(seen, name, first)) {
						ret = -ENOMEM;
						snprintf(why, len, "%s", strerror(ENOMEM));
						break;
					}
					continue;
				}
				first_unit = json_string_value(json_array_get(first, 0));
				first_side = json_integer_value(json_array_get(first, 1));
				if (strcmp(first_unit, unit)) {
					snprintf(why, len,
						 "%s:%d: metric \"%s\" of %s in \"%s\", but %s:%d has \"%s\"",
						 paths[s], g->lines[s][i], name, g->bench, unit,
						 paths[first_side],
						 (int)json_integer_value(json_array_get(first, 2)),
						 first_unit);
					ret = -EINVAL;
					break;
				}
			}
		}
	}
	json_decref(seen);
	return ret;
}

/*
 * One boot runs one kernel: a boot id recorded with two kernel releases
 * (the same ids on a base and a new side of another kernel, records
 * merged by hand or made up) says the records are not what they claim.
 */
static int check_boots(const struct iop_rs_group *groups, size_t n, const char *const paths[2],
		       char *why, size_t len)
{
	json_t *seen = json_object();	/* boot id -> [release, side, line] of its first record */
	int ret = 0;

	if (!seen)
		return -ENOMEM;
	for (size_t i = 0; i < n && !ret; i++) {
		for (int s = 0; s < 2 && !ret; s++) {
			for (size_t j = 0; j < groups[i].n[s] && !ret; j++) {
				json_t *rec = groups[i].recs[s][j], *first;
				const char *boot = iop_rs_env_str(rec, "kernel.boot_id");
				const char *rel = iop_rs_env_str(rec, "kernel.release"), *first_rel;

				if (!boot || !*boot || !rel)
					continue;
				first = json_object_get(seen, boot);
				if (!first) {
					if (json_object_set_new(seen, boot,
								json_pack("[s, i, i]", rel, s,
									  groups[i].lines[s][j]))) {
						ret = -ENOMEM;
						snprintf(why, len, "%s", strerror(ENOMEM));
					}
					continue;
				}
				first_rel = json_string_value(json_array_get(first, 0));
				if (!first_rel || !strcmp(first_rel, rel))
					continue;
				snprintf(why, len, "%s:%d: boot %s ran kernel \"%s\", but %s:%d has it run \"%s\": one boot runs one kernel",
					 paths[s], groups[i].lines[s][j], boot, rel,
					 paths[json_integer_value(json_array_get(first, 1))],
					 (int)json_integer_value(json_array_get(first, 2)), first_rel);
				ret = -EINVAL;
			}
		}
	}
	json_decref(seen);
	return ret;
}

int iop_rs_check(const struct iop_rs_group *groups, size_t n, const char *base_path,
		 const char *new_path, char *why, size_t len)
{
	const char *const paths[2] = { base_path, new_path };
	int ret;

	for (size_t i = 0; i < n; i++) {
		for (int s = 0; s < 2; s++) {
			ret = check_duplicates(&groups[i], s, paths[s], why, len);
			if (ret)
				return ret;
		}
		ret = check_units(&groups[i], paths, why, len);
		if (ret)
			return ret;
	}
	return check_boots(groups, n, paths, why, len);
}

void iop_rs_groups_free(struct iop_rs_group *groups, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(groups[i].key);
		json_decref(groups[i].params);
		for (int s = 0; s < 2; s++) {
			free(groups[i].recs[s]);
			free(groups[i].lines[s]);
		}
	}
	free(groups);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *iop_rs_params_str(json_t *params, const char *sep)
{
	size_t n = 0, len;
	const char **keys, *k;
	char *out = NULL;
	FILE *f;
	json_t *v;

	keys = calloc(json_object_size(params) + 1, sizeof(*keys));
	if (!keys)
		return NULL;
	json_object_foreach(params, k, v)
		keys[n++] = k;
	qsort(keys, n, sizeof(*keys), cmp_str);

	f = open_memstream(&out, &len);
	if (!f) {
		free(keys);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		v = json_object_get(params, keys[i]);
		fprintf(f, "%s%s=", i ? sep : "", keys[i]);
		if (json_is_string(v)) {
			fputs(json_string_value(v), f);
		} else {
			char *d = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

			fputs(d ? d : "?", f);
			free(d);
		}
	}
	free(keys);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

char *iop_rs_group_label(const struct iop_rs_group *groups, size_t n,
			 const struct iop_rs_group *g)
{
	json_t *short_params = json_object();
	const char *k;
	char *p, *label = NULL;
	json_t *v;

	if (!short_params)
		return NULL;
	json_object_foreach(g->params, k, v) {
		bool varies = !strcmp(k, "fs");

		for (size_t i = 0; i < n && !varies; i++) {
			if (&groups[i] == g || strcmp(groups[i].bench, g->bench))
				continue;
			varies = !json_equal(json_object_get(groups[i].params, k), v);
		}
		if (varies && json_object_set(short_params, k, v)) {
			json_decref(short_params);
			return NULL;
		}
	}
	p = iop_rs_params_str(short_params, " ");
	if (p && asprintf(&label, "%s%s%s", g->bench, *p ? " " : "", p) < 0)
		label = NULL;
	free(p);
	json_decref(short_params);
	return label;
}

json_t *iop_rs_metric(json_t *rec, const char *name)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(rec, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), name))
			return m;
	return NULL;
}

json_t *iop_rs_env(json_t *rec, const char *path)
{
	json_t *v = json_object_get(rec, "env");
	char buf[128], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && v; tok = strtok_r(NULL, ".", &save))
		v = json_object_get(v, tok);
	return v;
}

const char *iop_rs_env_str(json_t *rec, const char *path)
{
	return json_string_value(iop_rs_env(rec, path));
}

bool iop_rs_untrusted(json_t *rec)
{
	const char *s = json_string_value(json_object_get(rec, "status"));

	return (s && !strcmp(s, "untrusted")) || json_array_size(json_object_get(rec, "untrusted"));
}

/* A boot id as the kernel gives it (/proc/sys/kernel/random/boot_id): 36 of [0-9a-f-]. */
static bool boot_id_ok(const char *id)
{
	return id && strlen(id) == 36 && strspn(id, "0123456789abcdef-") == 36;
}

/*
 * Under icount (the "instructions" domain) a record's main metric must be
 * the whole repetition's ("agg" "ops_over_time" or "time_over_ops"): a
 * summary of slices counted in units of completion is quantized, and one
 * that leaves slices out is blind to the change it is to find (docs/ab.md,
 * "One figure per repetition"). Else @why stays empty.
 */
static void why_not_whole(const struct iop_rs_file *f, size_t i, const char *domain, char *why,
			  size_t len)
{
	json_t *run = json_object_get(f->recs[i], "run");
	const char *main = json_string_value(json_object_get(run, "main_metric"));
	json_t *m = main ? iop_rs_metric(f->recs[i], main) : NULL;
	const char *agg = json_string_value(json_object_get(m, "agg"));

	why[0] = '\0';
	if (strcmp(domain, "instructions") || iop_agg_is_whole(agg))
		return;
	snprintf(why, len, "%s:%d: main metric %s is %s, not the whole repetition's (ops_over_time or time_over_ops): counted in instructions, a summary of slices is quantized",
		 f->path, f->lines[i], main ? main : "(none: no run.main_metric)",
		 agg ? agg : m ? "without \"agg\"" : "not in the record");
}

int iop_rs_check_boot(const struct iop_rs_file *f, const char *sha256, const char *domain,
		      const struct iop_rs_file *seen, size_t nseen, char *why, size_t len)
{
	const char *id = NULL;

	if (strcmp(f->domain, domain)) {
		snprintf(why, len, "%s:%d: records in the \"%s\" clock domain, the run is in \"%s\"",
			 f->path, f->lines[0], f->domain, domain);
		return -EINVAL;
	}
	for (size_t i = 0; i < f->n; i++) {
		const char *sha = iop_rs_env_str(f->recs[i], "kernel.image_sha256");
		const char *b = iop_rs_env_str(f->recs[i], "kernel.boot_id");

		if (!sha || strcmp(sha, sha256)) {
			snprintf(why, len, "%s:%d: a record from another kernel image (%s)", f->path,
				 f->lines[i], sha ? "another image_sha256" : "no env.kernel.image_sha256");
			return -EINVAL;
		}
		if (!boot_id_ok(b)) {
			snprintf(why, len, "%s:%d: %s", f->path, f->lines[i],
				 b ? "env.kernel.boot_id is not a boot id" : "no env.kernel.boot_id");
			return -EINVAL;
		}
		if (id && strcmp(id, b)) {
			snprintf(why, len, "%s:%d: not one boot id in the records of one boot: %s after %s",
				 f->path, f->lines[i], b, id);
			return -EINVAL;
		}
		id = b;
		why_not_whole(f, i, domain, why, len);
		if (*why)
			return -EINVAL;
	}
	for (size_t s = 0; s < nseen; s++) {
		for (size_t i = 0; i < seen[s].n; i++) {
			const char *b = iop_rs_env_str(seen[s].recs[i], "kernel.boot_id");

			if (b && !strcmp(b, id)) {
				snprintf(why, len, "%s: boot id %s seen before (%s:%d): not a boot of its own",
					 f->path, id, seen[s].path, seen[s].lines[i]);
				return -EINVAL;
			}
		}
	}
	return 0;
}

size_t iop_rs_boot_seed(json_t *rec, char *buf, size_t len)
{
	return iop_cmdline_seed(iop_rs_env_str(rec, "kernel.cmdline"), buf, len);
}
