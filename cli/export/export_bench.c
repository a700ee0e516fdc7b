// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath export --kcidb of benchmark records (docs/records.md), read by
 * lib/record.c, the one records reader: a NaN, an infinity or a number
 * past the double range is not JSON, and the record is refused there
 * with one line. Each metric whose value is a finite number becomes a
 * test "iopath.bench.BENCH.FS.VARIANT.METRIC", status DONE, its value in
 * number, its start_time the record's time; FS is the filesystem and its
 * mkfs options, VARIANT the parameters that define the workload (the
 * benchmark's own and the harness's workload ones, such as inject_ns),
 * so the same benchmark on ext4 and XFS, or with another block size,
 * gives tests a dashboard tells apart, and a harness setting (reps,
 * cv_max, interval_ms, cpus, ...) is in misc.params only. A metric whose
 * value is not a number (true, a string) is skipped with a note: the
 * other metrics of the run still count.
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

struct bench_state {
	struct report *r;
	size_t records, metrics, skipped;
	int err;
	char *why;
	size_t len;
};

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

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

/* "k-v_k-v" of the workload's parameters in key order; "default" if none. */
static void variant(json_t *params, char *out, size_t len)
{
	const char **keys;
	char k[64], v[64], val[256];
	size_t n = 0, i, j, o = 0;
	const char *key;
	json_t *x;

	out[0] = '\0';
	keys = calloc(json_object_size(params) + 1, sizeof(*keys));
	if (keys) {
		json_object_foreach(params, key, x)
			/* a default changed must not start a new series */
			if (!iop_param_is_setting(key))
				keys[n++] = key;
		/* Insertion sort: a record has a handful of parameters. */
		for (i = 1; i < n; i++)
			for (j = i; j && strcmp(keys[j - 1], keys[j]) > 0; j--) {
				key = keys[j];
				keys[j] = keys[j - 1];
				keys[j - 1] = key;
			}
		for (i = 0; i < n && o + 1 < len; i++) {
			export_path_part(keys[i], k, sizeof(k));
			param_text(json_object_get(params, keys[i]), val, sizeof(val));
			export_path_part(val, v, sizeof(v));
			o += (size_t)snprintf(out + o, len - o, "%s%s-%s", o ? "_" : "", k, v);
		}
		free(keys);
	}
	if (!out[0])
		snprintf(out, len, "default");
}

/* The filesystem and its mkfs options, as one path part ("nofs" without one). */
static void fs_part(json_t *fs, char *out, size_t len)
{
	const char *type = str(fs, "type"), *mkfs = str(fs, "mkfs_opts");
	char both[300];

	if (!type || !*type || !strcmp(type, "none")) {
		snprintf(out, len, "nofs");
		return;
	}
	snprintf(both, sizeof(both), "%s %s", type, mkfs ? mkfs : "");
	export_path_part(both, out, len);
}

static int copy_if(json_t *misc, const char *key, json_t *v)
{
	return v && !json_is_null(v) ? json_object_set_new(misc, key, json_deep_copy(v)) : 0;
}

static int one_metric(struct bench_state *s, json_t *rec, json_t *met, const char *build,
		      const char *start, const char *prefix)
{
	const char *name = str(met, "name"), *unit = str(met, "unit");
	json_t *v = json_object_get(met, "value"), *num, *misc;
	char part[128], path[1024];

	/* Only a finite number is a value: not true, not a string, not null. */
	if (!json_is_number(v) || !isfinite(json_number_value(v))) {
		export_note("record %zu (%s), metric %s: value is not a number; metric skipped",
			    s->records, str(rec, "bench"), name);
		s->skipped++;
		return 0;
	}
	export_path_part(name, part, sizeof(part));
	snprintf(path, sizeof(path), "%s.%s", prefix, part);
	num = json_pack("{s:O}", "value", v);
	if (num && unit && *unit &&
	    json_object_set_new(num, "unit", export_text(unit, strlen(unit), 40))) {
		json_decref(num);
		num = NULL;
	}
	misc = json_object();
	if (!num || !misc) {
		json_decref(num);
		json_decref(misc);
		return -ENOMEM;
	}
	if (copy_if(misc, "rep", json_object_get(rec, "rep")) ||
	    copy_if(misc, "params", json_object_get(rec, "params")) ||
	    copy_if(misc, "record_status", json_object_get(rec, "status")) ||
	    copy_if(misc, "untrusted", json_object_get(rec, "untrusted")) ||
	    copy_if(misc, "agg", json_object_get(met, "agg")) ||
	    copy_if(misc, "better", json_object_get(met, "better")) ||
	    copy_if(misc, "n", json_object_get(met, "n")) ||
	    copy_if(misc, "cv", json_object_get(met, "cv")) ||
	    copy_if(misc, "fs", json_object_get(json_object_get(rec, "env"), "fs")) ||
	    copy_if(misc, "boot_id", json_object_get(json_object_get(json_object_get(rec, "env"),
								     "kernel"), "boot_id"))) {
		json_decref(num);
		json_decref(misc);
		return -ENOMEM;
	}
	s->metrics++;
	return report_test(s->r, build, path, "DONE", start, misc, NULL, num);
}

static int one_record(json_t *rec, void *arg)
{
	struct bench_state *s = arg;
	struct report *r = s->r;
	json_t *env = json_object_get(rec, "env"), *kern, *mach, *met, *metrics;
	const char *release, *time, *image;
	char rel[128], src[300], cid[200], bid[200], prefix[700], b[128], fs[128], var[256];
	struct build_info bi = { 0 };
	size_t i;
	int ret;

	s->records++;
	kern = json_object_get(env, "kernel");
	mach = json_object_get(env, "machine");
	release = r->o->kernel_release ? r->o->kernel_release : str(kern, "release");
	/* Bounded and printable: the release names the checkout and the build. */
	export_path_part(release ? release : "unknown", rel, sizeof(rel));
	if (release && strlen(release) < sizeof(rel) &&
	    strspn(release, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+~-") ==
	    strlen(release))
		snprintf(rel, sizeof(rel), "%s", release);
	time = str(rec, "time");
	if (!export_time_ok(time))
		time = r->fallback_time;
	ret = report_image(r, str(kern, "image_sha256"), &image, s->why, s->len);
	if (ret)
		return -EINVAL;
	snprintf(src, sizeof(src), "%s%s", r->o->source ? "" : "kernel ",
		 r->o->source ? r->o->source : rel);
	ret = report_checkout(r, rel, src, image, time, cid, sizeof(cid));
	if (ret)
		return ret;
	bi.release = rel;
	bi.image_sha = image;
	bi.arch = kcidb_arch(str(mach, "arch"));
	if (!bi.arch)
		bi.arch = r->o->arch;
	bi.start = time;
	ret = report_build(r, cid, &bi, bid, sizeof(bid));
	if (ret)
		return ret;
	export_path_part(str(rec, "bench"), b, sizeof(b));
	fs_part(json_object_get(env, "fs"), fs, sizeof(fs));
	variant(json_object_get(rec, "params"), var, sizeof(var));
	snprintf(prefix, sizeof(prefix), "iopath.bench.%s.%s.%s", b, fs, var);
	metrics = json_object_get(rec, "metrics");
	json_array_foreach(metrics, i, met) {
		ret = one_metric(s, rec, met, bid, time, prefix);
		if (ret)
			return ret;
	}
	return 0;
}

int export_records(struct report *r, char *why, size_t len)
{
	struct bench_state s = { .r = r, .why = why, .len = len };
	int ret;

	ret = iop_records_read(r->o->input, one_record, &s, why, len);
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
