// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The typed view of a result record: the one place the readers' fields
 * are taken from the JSON and checked (lib/record_view.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_view.h"

/*
 * @obj's member @key as a string into *@out: absent or null leaves NULL,
 * anything else but a string is refused with "<where>: not a string".
 */
static int opt_str(json_t *obj, const char *key, const char *where, const char **out,
		   char *what, size_t len)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		snprintf(what, len, "\"%s\" is not a string", where);
		return -EINVAL;
	}
	*out = json_string_value(v);
	return 0;
}

/* An object member that may be absent, but is an object when there. */
static int opt_obj(json_t *obj, const char *key, const char *where, json_t **out, char *what,
		   size_t len)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v)) {
		snprintf(what, len, "\"%s\" is not an object", where);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/*
 * The "iopath.seed=" word of a kernel command line (hex digits) into @buf;
 * its length, or 0 and "" when there is none or it does not fit.
 */
size_t iop_cmdline_seed(const char *cmdline, char *buf, size_t len)
{
	const char *p = cmdline;
	size_t n;

	buf[0] = '\0';
	while (p && (p = strstr(p, "iopath.seed=")) != NULL) {
		/* a word of its own, not the tail of another */
		if (p == cmdline || p[-1] == ' ' || p[-1] == '\t') {
			p += strlen("iopath.seed=");
			n = strspn(p, "0123456789abcdef");
			if (!n || n >= len || (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '\n'))
				return 0;
			memcpy(buf, p, n);
			buf[n] = '\0';
			return n;
		}
		p++;
	}
	return 0;
}

static int parse_env(json_t *rec, struct iop_rec *r, char *what, size_t len)
{
	json_t *env, *kernel = NULL, *clock = NULL, *fs = NULL;
	struct iop_rec_env *e = &r->env;
	int ret = opt_obj(rec, "env", "env", &env, what, len);

	if (!ret)
		ret = opt_obj(env, "kernel", "env.kernel", &kernel, what, len);
	if (!ret)
		ret = opt_obj(env, "clock", "env.clock", &clock, what, len);
	if (!ret)
		ret = opt_obj(env, "fs", "env.fs", &fs, what, len);
	if (!ret)
		ret = opt_str(kernel, "release", "env.kernel.release", &e->release, what, len);
	if (!ret)
		ret = opt_str(kernel, "boot_id", "env.kernel.boot_id", &e->boot_id, what, len);
	if (!ret)
		ret = opt_str(kernel, "cmdline", "env.kernel.cmdline", &e->cmdline, what, len);
	if (!ret)
		ret = opt_str(kernel, "image_sha256", "env.kernel.image_sha256", &e->image_sha256,
			      what, len);
	if (!ret)
		ret = opt_str(clock, "domain", "env.clock.domain", &e->clock_domain, what, len);
	if (!ret)
		ret = opt_str(fs, "type", "env.fs.type", &e->fs_type, what, len);
	if (ret)
		return ret;
	if (!e->clock_domain)
		e->clock_domain = "wall";
	if (strcmp(e->clock_domain, "wall") && strcmp(e->clock_domain, "instructions")) {
		snprintf(what, len, "env.clock.domain is neither \"wall\" nor \"instructions\"");
		return -EINVAL;
	}
	iop_cmdline_seed(e->cmdline, r->seed_buf, sizeof(r->seed_buf));
	e->seed = r->seed_buf;
	return 0;
}

static int parse_run(json_t *rec, struct iop_rec_run *run, char *what, size_t len)
{
	json_t *o, *p = NULL, *v;
	int ret = opt_obj(rec, "run", "run", &o, what, len);

	if (!ret)
		ret = opt_str(o, "invocation", "run.invocation", &run->invocation, what, len);
	if (!ret)
		ret = opt_str(o, "main_metric", "run.main_metric", &run->main_metric, what, len);
	if (!ret)
		ret = opt_obj(o, "pairing", "run.pairing", &p, what, len);
	if (!ret)
		ret = opt_str(p, "id", "run.pairing.id", &run->pairing_id, what, len);
	if (ret)
		return ret;
	v = json_object_get(p, "round");
	run->has_round = json_is_integer(v);
	run->round = json_integer_value(v);
	v = json_object_get(p, "cycle");
	run->cycle = v ? (json_is_integer(v) ? json_integer_value(v) : 0) : 2;
	return 0;
}

static int parse_metric(json_t *m, size_t i, struct iop_rec_metric *rm, char *what, size_t len)
{
	json_t *v, *s;
	const char *better;
	size_t j;

	rm->name = json_string_value(json_object_get(m, "name"));
	if (!json_is_object(m) || !rm->name || !*rm->name) {
		snprintf(what, len, "metric %zu has no \"name\"", i + 1);
		return -EINVAL;
	}
	v = json_object_get(m, "value");
	better = json_string_value(json_object_get(m, "better"));
	rm->agg = json_string_value(json_object_get(m, "agg"));
	if (!json_is_number(v) || !isfinite(json_number_value(v))) {
		snprintf(what, len, "metric \"%s\" has no numeric \"value\"", rm->name);
		return -EINVAL;
	}
	rm->value = json_number_value(v);
	if (!better || (strcmp(better, "higher") && strcmp(better, "lower"))) {
		snprintf(what, len, "metric \"%s\": \"better\" must be \"higher\" or \"lower\"",
			 rm->name);
		return -EINVAL;
	}
	rm->better = strcmp(better, "higher") ? IOP_LOWER_IS_BETTER : IOP_HIGHER_IS_BETTER;
	if (!iop_agg_known(rm->agg)) {
		snprintf(what, len, "metric \"%s\": \"agg\" is not an aggregate records name",
			 rm->name);
		return -EINVAL;
	}
	v = json_object_get(m, "quantum");
	if (v && !(json_is_number(v) && json_number_value(v) >= 0 && json_number_value(v) < 1)) {
		snprintf(what, len, "metric \"%s\": \"quantum\" must be a fraction in [0, 1)",
			 rm->name);
		return -EINVAL;
	}
	rm->quantum = v ? json_number_value(v) : 0;
	if (opt_str(m, "unit", "unit", &rm->unit, what, len)) {
		snprintf(what, len, "metric \"%s\": \"unit\" is not a string", rm->name);
		return -EINVAL;
	}
	v = json_object_get(m, "samples");
	rm->has_samples = json_is_array(v);
	rm->nsamples = json_array_size(v);
	rm->samples = rm->nsamples ? calloc(rm->nsamples, sizeof(*rm->samples)) : NULL;
	if (rm->nsamples && !rm->samples)
		return -ENOMEM;
	json_array_foreach(v, j, s) {
		if (!json_is_number(s) || !isfinite(json_number_value(s))) {
			snprintf(what, len, "metric \"%s\": sample %zu is not a number", rm->name,
				 j + 1);
			return -EINVAL;
		}
		rm->samples[j] = json_number_value(s);
	}
	return 0;
}

static int parse_metrics(json_t *rec, struct iop_rec *r, char *what, size_t len)
{
	json_t *metrics = json_object_get(rec, "metrics"), *m;
	size_t i, j;
	int ret;

	r->metrics = calloc(json_array_size(metrics) + 1, sizeof(*r->metrics));
	if (!r->metrics)
		return -ENOMEM;
	json_array_foreach(metrics, i, m) {
		ret = parse_metric(m, i, &r->metrics[i], what, len);
		r->nmetrics = i + 1;	/* freed with the others, also when refused */
		if (ret)
			return ret;
		for (j = 0; j < i; j++) {
			if (!strcmp(r->metrics[j].name, r->metrics[i].name)) {
				snprintf(what, len, "metric \"%s\" appears twice", r->metrics[i].name);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* ---- the fields export and lava also read (cli/export, cli/lava) ---- */

/* A metric's "n" (an integer) and "cv" (a number; null is none). */
static int parse_metric_counts(json_t *m, struct iop_rec_metric *rm, char *what, size_t len)
{
	json_t *n = json_object_get(m, "n"), *cv = json_object_get(m, "cv");

	if (n && !json_is_null(n) && !json_is_integer(n)) {
		snprintf(what, len, "metric \"%s\": \"n\" is not an integer", rm->name);
		return -EINVAL;
	}
	if (cv && !json_is_null(cv) && !json_is_number(cv)) {
		snprintf(what, len, "metric \"%s\": \"cv\" is not a number", rm->name);
		return -EINVAL;
	}
	rm->has_n = json_is_integer(n);
	rm->n = json_integer_value(n);
	rm->has_cv = json_is_number(cv);
	rm->cv = json_number_value(cv);
	return 0;
}

static int parse_export(json_t *rec, struct iop_rec *r, char *what, size_t len)
{
	json_t *env = json_object_get(rec, "env"), *mach, *s;
	size_t i;
	int ret;

	ret = opt_obj(env, "fs", "env.fs", &r->env.fs, what, len);
	if (!ret)
		ret = opt_str(r->env.fs, "mkfs_opts", "env.fs.mkfs_opts", &r->env.mkfs_opts, what,
			      len);
	if (!ret)
		ret = opt_obj(env, "machine", "env.machine", &mach, what, len);
	if (!ret)
		ret = opt_str(mach, "arch", "env.machine.arch", &r->env.arch, what, len);
	if (!ret)
		ret = opt_str(rec, "status", "status", &r->status, what, len);
	if (ret)
		return ret;
	r->untrusted_why = json_object_get(rec, "untrusted");
	json_array_foreach(r->untrusted_why, i, s) {
		if (!json_is_string(s)) {
			snprintf(what, len, "untrusted[%zu] is not a string", i);
			return -EINVAL;
		}
	}
	for (i = 0; !ret && i < r->nmetrics; i++)
		ret = parse_metric_counts(json_array_get(json_object_get(rec, "metrics"), i),
					  &r->metrics[i], what, len);
	return ret;
}

int iop_rec_parse(json_t *rec, struct iop_rec *r, char *what, size_t len)
{
	json_t *v, *untrusted;
	const char *status;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = iop_record_check(rec, what, len);
	if (ret)
		return ret;
	r->json = json_incref(rec);
	r->bench = json_string_value(json_object_get(rec, "bench"));
	v = json_object_get(rec, "rep");
	if (v && !json_is_integer(v)) {
		snprintf(what, len, "\"rep\" is not an integer");
		return -EINVAL;
	}
	r->has_rep = !!v;
	r->rep = json_integer_value(v);
	r->params = json_object_get(rec, "params");
	ret = opt_str(rec, "time", "time", &r->time, what, len);
	if (!ret)
		ret = opt_str(rec, "status", "status", &status, what, len);
	if (ret)
		return ret;
	untrusted = json_object_get(rec, "untrusted");
	if (untrusted && !json_is_array(untrusted)) {
		snprintf(what, len, "\"untrusted\" is not a list");
		return -EINVAL;
	}
	r->untrusted = (status && !strcmp(status, "untrusted")) || json_array_size(untrusted);
	ret = parse_env(rec, r, what, len);
	if (!ret)
		ret = parse_run(rec, &r->run, what, len);
	if (!ret)
		ret = parse_metrics(rec, r, what, len);
	/* What export and lava also read (cli/export, cli/lava). */
	if (!ret)
		ret = parse_export(rec, r, what, len);
	return ret;
}

void iop_rec_free(struct iop_rec *r)
{
	size_t i;

	for (i = 0; r->metrics && i < r->nmetrics; i++)
		free(r->metrics[i].samples);
	free(r->metrics);
	json_decref(r->json);
	memset(r, 0, sizeof(*r));
}

const struct iop_rec_metric *iop_rec_metric(const struct iop_rec *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return &r->metrics[i];
	return NULL;
}

/*
 * Whether @rec has a metric whose "value" is not a finite number, one
 * that iop_rec_parse() refuses.
 */
static bool any_valueless(json_t *rec)
{
	json_t *m, *v;
	size_t i;

	json_array_foreach(json_object_get(rec, "metrics"), i, m) {
		v = json_object_get(m, "value");
		if (json_is_object(m) && (!json_is_number(v) || !isfinite(json_number_value(v))))
			return true;
	}
	return false;
}

/*
 * A copy of @rec (sharing every member with it) where each metric
 * without a finite value has a stand-in 0, so that iop_rec_parse() checks
 * the rest of the metric as any other.
 */
static json_t *with_stand_ins(json_t *rec)
{
	json_t *copy = json_copy(rec), *metrics, *m, *v, *m2;
	size_t i;

	if (!copy)
		return NULL;
	/* json_object_set_new() takes the array, also when it fails */
	metrics = json_copy(json_object_get(rec, "metrics"));
	if (json_object_set_new(copy, "metrics", metrics))
		goto err_put_copy;
	json_array_foreach(metrics, i, m) {
		v = json_object_get(m, "value");
		if (!json_is_object(m) || (json_is_number(v) && isfinite(json_number_value(v))))
			continue;
		m2 = json_copy(m);
		if (m2 && json_object_set_new(m2, "value", json_integer(0))) {
			json_decref(m2);
			m2 = NULL;
		}
		/* json_array_set_new() takes m2, also when it fails */
		if (!m2 || json_array_set_new(metrics, i, m2))
			goto err_put_copy;
	}
	return copy;

err_put_copy:
	json_decref(copy);
	return NULL;
}

int iop_rec_parse_keep(json_t *rec, struct iop_rec *r, char *what, size_t len)
{
	json_t *copy, *metrics, *v;
	size_t i;
	int ret;

	if (!json_is_object(rec) || !json_is_array(json_object_get(rec, "metrics")) ||
	    !any_valueless(rec))
		return iop_rec_parse(rec, r, what, len);
	copy = with_stand_ins(rec);
	if (!copy) {
		memset(r, 0, sizeof(*r));
		return -ENOMEM;
	}
	ret = iop_rec_parse(copy, r, what, len);
	/*
	 * Every string and object the view points to is shared with @rec:
	 * it holds @rec, and the stand-ins go with the copy.
	 */
	if (r->json) {
		json_decref(r->json);
		r->json = json_incref(rec);
	}
	json_decref(copy);
	metrics = json_object_get(rec, "metrics");
	for (i = 0; i < r->nmetrics; i++) {
		v = json_object_get(json_array_get(metrics, i), "value");
		if (!json_is_number(v) || !isfinite(json_number_value(v))) {
			r->metrics[i].no_value = true;
			r->metrics[i].value = NAN;
		}
	}
	return ret;
}
