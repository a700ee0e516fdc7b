// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath export --kcidb of benchmark records (docs/records.md), read by
 * lib/record.c, the one records reader, each into its typed view
 * (lib/record_view.c) where every field used here is checked: a NaN, an
 * infinity or a number past the double range is not JSON, a field of the
 * wrong type is not a record, and either is refused with one line. Each
 * metric whose value is a finite number becomes a test
 * "iopath.bench.BENCH.FS.VARIANT.METRIC", status DONE, its value in
 * number, its start_time the record's time; FS is the filesystem and its
 * mkfs options, VARIANT the parameters that define the workload (the
 * benchmark's own and the harness's workload ones, such as inject_ns),
 * so the same benchmark on ext4 and XFS, or with another block size,
 * gives tests a dashboard tells apart, and a harness setting (reps,
 * cv_max, interval_ms, cpus, ...) is in misc.params only. A metric whose
 * value is not a number (null, true, a string) is skipped with a note:
 * the other metrics of the run still count.
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
#include "bench.h"
#include "export.h"
#include "record.h"
#include "record_view.h"
#include "why.h"

struct bench_state {
	struct report *r;
	size_t records, metrics, skipped;
	int err;
	char *why;
	size_t len;
};

/* uname -m as KCIDB (the kernel's ARCH) names it; NULL if not a name. */
static const char *kcidb_arch(const char *m)
{
	static const char *const map[][2] = {
		{ "x86_64", "x86_64" }, { "aarch64", "arm64" }, { "i386", "i386" },
		{ "i686", "i386" }, { "armv7l", "arm" }, { "ppc64le", "powerpc" },
		{ "ppc64", "powerpc" }, { "riscv64", "riscv" }, { "s390x", "s390" },
	};
	size_t i;

	if (!m)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(m, map[i][0]))
			return map[i][1];
	return NULL;
}

/* A parameter value as text for the path. */
static void param_text(json_t *v, char *out, size_t len)
{
	if (json_is_string(v))
		snprintf(out, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(out, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		snprintf(out, len, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(out, len, "%s", json_is_true(v) ? "true" : "false");
	else
		snprintf(out, len, "x");
}

struct param {
	const char *key;
	json_t *value;
};

/* "k-v_k-v" of the workload's parameters in key order; "default" if none. */
static void variant(json_t *params, char *out, size_t len)
{
	char k[64], v[64], val[256];
	size_t n = 0, i, j, o = 0;
	struct param *ps, t;
	const char *key;
	json_t *x;

	out[0] = '\0';
	ps = calloc(json_object_size(params) + 1, sizeof(*ps));
	if (ps) {
		json_object_foreach(params, key, x)
			/* a default changed must not start a new series */
			if (!iop_param_is_setting(key))
				ps[n++] = (struct param){ .key = key, .value = x };
		/* Insertion sort: a record has a handful of parameters. */
		for (i = 1; i < n; i++)
			for (j = i; j && strcmp(ps[j - 1].key, ps[j].key) > 0; j--) {
				t = ps[j];
				ps[j] = ps[j - 1];
				ps[j - 1] = t;
			}
		for (i = 0; i < n && o + 1 < len; i++) {
			export_path_part(ps[i].key, k, sizeof(k));
			param_text(ps[i].value, val, sizeof(val));
			export_path_part(val, v, sizeof(v));
			o += (size_t)snprintf(out + o, len - o, "%s%s-%s", o ? "_" : "", k, v);
		}
		free(ps);
	}
	if (!out[0])
		snprintf(out, len, "default");
}

/* The filesystem and its mkfs options, as one path part ("nofs" without one). */
static void fs_part(const struct iop_rec_env *env, char *out, size_t len)
{
	const char *type = env->fs_type, *mkfs = env->mkfs_opts;
	char both[300];

	if (!type || !*type || !strcmp(type, "none")) {
		snprintf(out, len, "nofs");
		return;
	}
	snprintf(both, sizeof(both), "%s %s", type, mkfs ? mkfs : "");
	export_path_part(both, out, len);
}

/* @v as @misc's @key when the record has it; @v is taken either way. */
static int put(json_t *misc, const char *key, bool has, json_t *v)
{
	if (!has) {
		json_decref(v);
		return 0;
	}
	return json_object_set_new(misc, key, v) ? -ENOMEM : 0;
}

/* What KCIDB's misc of a metric's test carries from the record, as it gave it. */
static json_t *metric_misc(const struct iop_rec *rec, const struct iop_rec_metric *m)
{
	json_t *misc = json_object();

	if (!misc ||
	    put(misc, "rep", rec->has_rep, json_integer(rec->rep)) ||
	    put(misc, "params", rec->params, json_deep_copy(rec->params)) ||
	    put(misc, "record_status", rec->status, json_string(rec->status)) ||
	    put(misc, "untrusted", rec->untrusted_why, json_deep_copy(rec->untrusted_why)) ||
	    put(misc, "agg", true, json_string(m->agg)) ||
	    put(misc, "better", true,
		json_string(m->better == IOP_HIGHER_IS_BETTER ? "higher" : "lower")) ||
	    put(misc, "n", m->has_n, json_integer(m->n)) ||
	    put(misc, "cv", m->has_cv, json_real(m->cv)) ||
	    put(misc, "fs", rec->env.fs, json_deep_copy(rec->env.fs)) ||
	    put(misc, "boot_id", rec->env.boot_id, json_string(rec->env.boot_id))) {
		json_decref(misc);
		return NULL;
	}
	return misc;
}

static int one_metric(struct bench_state *s, const struct iop_rec *rec,
		      const struct iop_rec_metric *m, const char *build, const char *start,
		      const char *prefix)
{
	char part[128], path[1024];
	json_t *num, *misc;

	/* Only a finite number is a value: not true, not a string, not null. */
	if (m->no_value) {
		export_note("record %zu (%s), metric %s: value is not a number; metric skipped",
			    s->records, rec->bench, m->name);
		s->skipped++;
		return 0;
	}
	export_path_part(m->name, part, sizeof(part));
	snprintf(path, sizeof(path), "%s.%s", prefix, part);
	num = json_pack("{s:f}", "value", m->value);
	if (num && m->unit && *m->unit &&
	    json_object_set_new(num, "unit", export_text(m->unit, strlen(m->unit), 40))) {
		json_decref(num);
		num = NULL;
	}
	misc = num ? metric_misc(rec, m) : NULL;
	if (!misc) {
		json_decref(num);
		return -ENOMEM;
	}
	s->metrics++;
	return report_test(s->r, build, path, "DONE", start, misc, NULL, num);
}

static int one_view(struct bench_state *s, const struct iop_rec *rec)
{
	struct report *r = s->r;
	const char *release, *time, *image;
	char rel[128], src[300], cid[200], bid[200], prefix[700], b[128], fs[128], var[256];
	struct build_info bi = { 0 };
	size_t i;
	int ret;

	release = r->o->kernel_release ? r->o->kernel_release : rec->env.release;
	/* Bounded and printable: the release names the checkout and the build. */
	export_path_part(release ? release : "unknown", rel, sizeof(rel));
	if (release && strlen(release) < sizeof(rel) &&
	    strspn(release, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+~-") ==
	    strlen(release))
		snprintf(rel, sizeof(rel), "%s", release);
	time = rec->time;
	if (!export_time_ok(time))
		time = r->fallback_time;
	ret = report_image(r, rec->env.image_sha256, &image, s->why, s->len);
	if (ret)
		return -EINVAL;
	snprintf(src, sizeof(src), "%s%s", r->o->source ? "" : "kernel ",
		 r->o->source ? r->o->source : rel);
	ret = report_checkout(r, rel, src, image, time, cid, sizeof(cid));
	if (ret)
		return ret;
	bi.release = rel;
	bi.image_sha = image;
	bi.arch = kcidb_arch(rec->env.arch);
	if (!bi.arch)
		bi.arch = r->o->arch;
	bi.start = time;
	ret = report_build(r, cid, &bi, bid, sizeof(bid));
	if (ret)
		return ret;
	export_path_part(rec->bench, b, sizeof(b));
	fs_part(&rec->env, fs, sizeof(fs));
	variant(rec->params, var, sizeof(var));
	snprintf(prefix, sizeof(prefix), "iopath.bench.%s.%s.%s", b, fs, var);
	for (i = 0; i < rec->nmetrics; i++) {
		ret = one_metric(s, rec, &rec->metrics[i], bid, time, prefix);
		if (ret)
			return ret;
	}
	return 0;
}

/* Each record taken once into its view; a field of the wrong type refuses it. */
static int one_record(json_t *json, size_t line, void *arg)
{
	struct bench_state *s = arg;
	struct iop_rec rec;
	char what[200];
	int ret;

	s->records++;
	ret = iop_rec_parse_keep(json, &rec, what, sizeof(what));
	if (ret == -EINVAL)
		iop_why(s->why, s->len, "%s:%zu: %s", s->r->o->input, line, what);
	if (!ret)
		ret = one_view(s, &rec);
	iop_rec_free(&rec);
	return ret;
}

int export_records(struct report *r, char *why, size_t len)
{
	struct bench_state s = { .r = r, .why = why, .len = len };
	int ret;

	ret = iop_records_read_at(r->o->input, one_record, &s, why, len);
	if (ret == -ENOMEM) {
		snprintf(why, len, "no memory");
		return EXPORT_FAILED;
	}
	if (ret)
		return EXPORT_BAD;
	if (!s.metrics) {
		snprintf(why, len, "no benchmark metric in the records%s: a KCIDB report of zero "
			 "tests would read as nothing wrong", s.skipped ? " with a value" : "");
		return EXPORT_FAILED;
	}
	return 0;
}
