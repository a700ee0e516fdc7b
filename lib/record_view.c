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

#include "array_size.h"
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

const char *const iop_rec_env_compared[IOP_REC_NENV] = {
	"machine.cpu_model", "machine.cpus_online", "machine.nodes", "machine.hostname",
	"kernel.cmdline", "placement.requested", "placement.cpus", "placement.mems",
	"placement.node", "device.backing", "device.queue", "fs.type", "fs.mkfs_opts",
	"fs.mount_opts", "iopath.version",
};

/*
 * The kernel command line without the words that name the kernel image:
 * BOOT_IMAGE= (GRUB) and initrd= differ between a base and a patched
 * kernel by design, and iopath.seed= (iopath vm --icount) differs between
 * any two boots by design, as boot ids do. Returns a new string or NULL.
 */
static char *cmdline_norm(const char *cmdline)
{
	char *copy = strdup(cmdline), *out = calloc(1, strlen(cmdline) + 1), *tok, *save, *end;

	if (!copy || !out) {
		free(copy);
		free(out);
		return NULL;
	}
	/* Appending at @end, not strcat(): a long cmdline is linear, not quadratic. */
	end = out;
	for (tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		size_t l = strlen(tok);

		if (!strncmp(tok, "BOOT_IMAGE=", 11) || !strncmp(tok, "initrd=", 7) ||
		    !strncmp(tok, "iopath.seed=", 12))
			continue;
		if (end != out)
			*end++ = ' ';
		memcpy(end, tok, l);
		end += l;
	}
	*end = '\0';
	free(copy);
	return out;
}

/* The value at a dotted path below "env" ("machine.cpu_model"), or NULL. */
static json_t *env_at(json_t *rec, const char *path)
{
	json_t *v = json_object_get(rec, "env");
	char buf[128], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && v; tok = strtok_r(NULL, ".", &save))
		v = json_object_get(v, tok);
	return v;
}

/* @v as struct iop_rec_env's cmp[] holds it, into *@out: 0 or -ENOMEM. */
static int env_text(json_t *v, bool cmdline, char **out)
{
	char *norm = NULL;
	int ret;

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		*out = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
		return *out ? 0 : -ENOMEM;
	}
	if (cmdline) {
		norm = cmdline_norm(json_string_value(v));
		if (!norm)
			return -ENOMEM;
	}
	ret = asprintf(out, "\"%s\"", norm ? norm : json_string_value(v));
	free(norm);
	if (ret < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int env_texts(json_t *rec, struct iop_rec_env *e)
{
	for (size_t i = 0; i < IOP_REC_NENV; i++)
		if (env_text(env_at(rec, iop_rec_env_compared[i]),
			     !strcmp(iop_rec_env_compared[i], "kernel.cmdline"), &e->cmp[i]))
			return -ENOMEM;
	return 0;
}

/* env.machine.cpus_online: a list of CPUs ("0-3"), or in older records a count. */
static int cpus_online(json_t *machine, struct iop_rec_env *e, char *what, size_t len)
{
	json_t *v = json_object_get(machine, "cpus_online");

	e->has_ncpus_online = json_is_integer(v);
	e->ncpus_online = json_integer_value(v);
	if (e->has_ncpus_online)
		return 0;
	if (opt_str(machine, "cpus_online", "env.machine.cpus_online", &e->cpus_online, what,
		    len)) {
		snprintf(what, len, "\"env.machine.cpus_online\" is neither a string nor an integer");
		return -EINVAL;
	}
	return 0;
}

/* The fields compare and plot print: strings where present. */
static int parse_env_shown(json_t *env, json_t *clock, json_t *fs, struct iop_rec_env *e,
			   char *what, size_t len)
{
	json_t *machine, *placement, *device;
	int ret = opt_obj(env, "machine", "env.machine", &machine, what, len);

	if (!ret)
		ret = opt_obj(env, "placement", "env.placement", &placement, what, len);
	if (!ret)
		ret = opt_obj(env, "device", "env.device", &device, what, len);
	if (!ret)
		ret = opt_str(clock, "accel", "env.clock.accel", &e->clock_accel, what, len);
	if (!ret)
		ret = opt_str(machine, "cpu_model", "env.machine.cpu_model", &e->cpu_model, what,
			      len);
	if (!ret)
		ret = cpus_online(machine, e, what, len);
	if (!ret)
		ret = opt_str(placement, "cpus", "env.placement.cpus", &e->placement_cpus, what,
			      len);
	if (!ret)
		ret = opt_str(device, "backing", "env.device.backing", &e->backing, what, len);
	if (!ret)
		ret = opt_str(device, "name", "env.device.name", &e->dev_name, what, len);
	if (!ret)
		ret = opt_str(fs, "mnt", "env.fs.mnt", &e->fs_mnt, what, len);
	return ret;
}

static int parse_env(json_t *rec, struct iop_rec *r, char *what, size_t len)
{
	json_t *env, *kernel = NULL, *clock = NULL, *fs = NULL, *v;
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
		ret = opt_str(fs, "type", "env.fs.type", &e->fs_type, what, len);
	if (!ret)
		ret = parse_env_shown(env, clock, fs, e, what, len);
	if (ret)
		return ret;
	/* absent: older than the field, and all of those were wall time */
	v = json_object_get(clock, "domain");
	e->clock_domain = v ? json_string_value(v) : "wall";
	if (!e->clock_domain ||
	    (strcmp(e->clock_domain, "wall") && strcmp(e->clock_domain, "instructions"))) {
		snprintf(what, len, "env.clock.domain is neither \"wall\" nor \"instructions\"");
		return -EINVAL;
	}
	iop_cmdline_seed(e->cmdline, r->seed_buf, sizeof(r->seed_buf));
	e->seed = r->seed_buf;
	return env_texts(rec, e);
}

static int parse_run(json_t *rec, struct iop_rec_run *run, char *what, size_t len)
{
	json_t *o, *p = NULL, *facts = NULL, *v;
	int ret = opt_obj(rec, "run", "run", &o, what, len);

	if (!ret)
		ret = opt_str(o, "invocation", "run.invocation", &run->invocation, what, len);
	if (!ret)
		ret = opt_str(o, "main_metric", "run.main_metric", &run->main_metric, what, len);
	if (!ret)
		ret = opt_obj(o, "pairing", "run.pairing", &p, what, len);
	if (!ret)
		ret = opt_str(p, "id", "run.pairing.id", &run->pairing_id, what, len);
	if (!ret)
		ret = opt_obj(o, "facts", "run.facts", &facts, what, len);
	if (!ret)
		ret = opt_str(facts, "file_layout", "run.facts.file_layout", &run->file_layout,
			      what, len);
	if (ret)
		return ret;
	v = json_object_get(p, "round");
	run->has_round = json_is_integer(v);
	run->round = json_integer_value(v);
	v = json_object_get(p, "cycle");
	run->cycle = v ? (json_is_integer(v) ? json_integer_value(v) : 0) : 2;
	return 0;
}

/* A rate: harmonic aggregate, or a unit per second. */
static bool is_rate(const struct iop_rec_metric *m)
{
	size_t ul = m->unit ? strlen(m->unit) : 0;

	return iop_agg_is_rate(m->agg) || (ul > 2 && !strcmp(m->unit + ul - 2, "/s"));
}

/* A duration: its unit is one of time. */
static bool is_duration(const struct iop_rec_metric *m)
{
	static const char *const units[] = { "ns", "us", "\u00b5s", "ms", "s" };

	for (size_t i = 0; m->unit && i < ARRAY_SIZE(units); i++)
		if (!strcmp(m->unit, units[i]))
			return true;
	return false;
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

/*
 * IOP_REC_MEASURED: @x, the value (@sample 0) or sample @sample of @m, is
 * one a measurement gives: finite, not a negative time or rate, and in
 * range. Else -EINVAL with what is wrong in @what.
 */
static int check_measured(const struct iop_rec_metric *m, double x, size_t sample, char *what,
			  size_t len)
{
	char which[48];

	if (sample)
		snprintf(which, sizeof(which), "sample %zu (%g)", sample, x);
	else
		snprintf(which, sizeof(which), "value %g", x);
	if (!isfinite(x) || (x < 0 && (is_rate(m) || is_duration(m)))) {
		snprintf(what, len, "metric \"%s\": %s is impossible for a %s in %s", m->name,
			 which, is_rate(m) ? "rate" : "time", m->unit ? m->unit : "");
		return -EINVAL;
	}
	if (x != 0 && !(fabs(x) >= VALUE_MIN && fabs(x) <= VALUE_MAX)) {
		snprintf(what, len, "metric \"%s\": %s is out of range (0, or %g to %g in magnitude)",
			 m->name, which, VALUE_MIN, VALUE_MAX);
		return -EINVAL;
	}
	return 0;
}

static int parse_metric(json_t *m, size_t i, struct iop_rec_metric *rm, unsigned int flags,
			char *what, size_t len)
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
		snprintf(what, len, "metric \"%s\": \"agg\" must be \"hmean\", \"median\", \"ops_over_time\", \"time_over_ops\" or \"hmean_inliers\"",
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
	if ((flags & IOP_REC_MEASURED) && check_measured(rm, rm->value, 0, what, len))
		return -EINVAL;
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
		if ((flags & IOP_REC_MEASURED) &&
		    check_measured(rm, rm->samples[j], j + 1, what, len))
			return -EINVAL;
	}
	return 0;
}

static int parse_metrics(json_t *rec, struct iop_rec *r, unsigned int flags, char *what,
			 size_t len)
{
	json_t *metrics = json_object_get(rec, "metrics"), *m;
	size_t i, j;
	int ret;

	r->metrics = calloc(json_array_size(metrics) + 1, sizeof(*r->metrics));
	if (!r->metrics)
		return -ENOMEM;
	json_array_foreach(metrics, i, m) {
		ret = parse_metric(m, i, &r->metrics[i], flags, what, len);
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
	json_t *env = json_object_get(rec, "env"), *mach;
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
	/* its entries are checked with the reasons, in parse_untrusted() */
	r->untrusted_why = json_object_get(rec, "untrusted");
	for (i = 0; !ret && i < r->nmetrics; i++)
		ret = parse_metric_counts(json_array_get(json_object_get(rec, "metrics"), i),
					  &r->metrics[i], what, len);
	return ret;
}

int iop_rec_param_init(struct iop_rec_param *p, const char *name, json_t *value)
{
	/* a number is one value whichever way it was written: runtime 1 and 1.0 pair */
	json_t *canon = json_is_integer(value) ? json_real((double)json_integer_value(value)) :
			json_incref(value);

	memset(p, 0, sizeof(*p));
	p->name = name;
	p->value = json_incref(value);
	p->is_str = json_is_string(value);
	p->text = p->is_str ? strdup(json_string_value(value)) :
		  json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
	p->key = canon ? json_dumps(canon, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
	json_decref(canon);
	if (!p->text || !p->key) {
		iop_rec_param_release(p);
		return -ENOMEM;
	}
	return 0;
}

void iop_rec_param_release(struct iop_rec_param *p)
{
	json_decref(p->value);
	free(p->text);
	free(p->key);
	memset(p, 0, sizeof(*p));
}

bool iop_rec_param_same(const struct iop_rec_param *a, const struct iop_rec_param *b)
{
	return json_equal(a->value, b->value);
}

const struct iop_rec_param *iop_rec_param(const struct iop_rec_param *p, size_t n,
					  const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].name, name))
			return &p[i];
	return NULL;
}

static int parse_params(struct iop_rec *r)
{
	const char *k;
	json_t *v;

	r->param_list = calloc(json_object_size(r->params) + 1, sizeof(*r->param_list));
	if (!r->param_list)
		return -ENOMEM;
	json_object_foreach(r->params, k, v) {
		if (iop_rec_param_init(&r->param_list[r->nparams], k, v))
			return -ENOMEM;
		r->nparams++;
	}
	return 0;
}

/* The reasons "untrusted" gives, each a string. */
static int parse_untrusted(json_t *untrusted, struct iop_rec *r, char *what, size_t len)
{
	size_t i;
	json_t *v;

	r->untrusted_reasons = calloc(json_array_size(untrusted) + 1, sizeof(const char *));
	if (!r->untrusted_reasons)
		return -ENOMEM;
	json_array_foreach(untrusted, i, v) {
		if (!json_is_string(v)) {
			snprintf(what, len, "untrusted[%zu] is not a string", i);
			return -EINVAL;
		}
		r->untrusted_reasons[r->nuntrusted_reasons++] = json_string_value(v);
	}
	return 0;
}

int iop_rec_parse(json_t *rec, struct iop_rec *r, char *what, size_t len)
{
	return iop_rec_parse_flags(rec, r, 0, what, len);
}

int iop_rec_parse_flags(json_t *rec, struct iop_rec *r, unsigned int flags, char *what,
			size_t len)
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
	ret = parse_untrusted(untrusted, r, what, len);
	if (!ret)
		ret = parse_params(r);
	if (!ret)
		ret = parse_env(rec, r, what, len);
	if (!ret)
		ret = parse_run(rec, &r->run, what, len);
	if (!ret)
		ret = parse_metrics(rec, r, flags, what, len);
	/* What export and lava also read (cli/export, cli/lava). */
	if (!ret)
		ret = parse_export(rec, r, what, len);
	if (ret == -ENOMEM)
		snprintf(what, len, "%s", strerror(ENOMEM));
	return ret;
}

void iop_rec_free(struct iop_rec *r)
{
	size_t i;

	for (i = 0; r->metrics && i < r->nmetrics; i++)
		free(r->metrics[i].samples);
	free(r->metrics);
	for (i = 0; r->param_list && i < r->nparams; i++)
		iop_rec_param_release(&r->param_list[i]);
	free(r->param_list);
	free(r->untrusted_reasons);
	for (i = 0; i < IOP_REC_NENV; i++)
		free(r->env.cmp[i]);
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
