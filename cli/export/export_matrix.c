// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath export --kcidb of a mutation matrix (iopath mutate's
 * matrix.json, docs/efficacy.md): a build per mutant and a test
 * "iopath.mutate.NAME" each, PASS when the selftests killed the mutant,
 * FAIL when it survived, SKIP when it is equivalent, ERROR when it did not
 * build or ran unstably, MISS when it was not run. Every field is checked
 * for its type before it is used: a matrix another tool wrote, or one
 * edited by hand, is refused with one line, never half exported.
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
#include "export.h"

static const struct {
	const char *cls, *test, *build;
} classes[] = {
	{ "killed", "PASS", "PASS" }, { "crash", "PASS", "PASS" },
	{ "survived", "FAIL", "PASS" }, { "equivalent", "SKIP", "PASS" },
	{ "no-build", "ERROR", "FAIL" }, { "unstable", "ERROR", "PASS" },
	{ "not run", "MISS", "MISS" },
};

/* @v absent, null or a finite number. */
static bool number_or_null(json_t *v)
{
	return !v || json_is_null(v) || (json_is_number(v) && isfinite(json_number_value(v)));
}

static json_t *text_of(json_t *v, size_t limit)
{
	const char *s = json_string_value(v);

	return export_text(s ? s : "", s ? json_string_length(v) : 0, limit);
}

/* Check one mutant's fields; 0 or EXPORT_BAD with @why. */
static int check_mutant(json_t *mu, size_t i, size_t *cls, char *why, size_t len)
{
	json_t *name = json_object_get(mu, "name"), *c, *k, *x;
	static const char *const fields[] = { "function", "detail" };
	size_t j;

	if (!json_is_object(mu) || !json_is_string(name)) {
		snprintf(why, len, "mutants[%zu]: a mutant without a name in the matrix", i);
		return EXPORT_BAD;
	}
	c = json_object_get(mu, "class");
	*cls = ARRAY_SIZE(classes) - 1;	/* not run */
	if (c) {
		for (j = 0; json_is_string(c) && j < ARRAY_SIZE(classes); j++)
			if (!strcmp(json_string_value(c), classes[j].cls))
				break;
		if (!json_is_string(c) || j == ARRAY_SIZE(classes)) {
			snprintf(why, len, "mutant %.100s: unknown class '%.40s'",
				 json_string_value(name), json_is_string(c) ? json_string_value(c) : "?");
			return EXPORT_BAD;
		}
		*cls = j;
	}
	k = json_object_get(mu, "killed_by");
	if (k && !json_is_array(k)) {
		snprintf(why, len, "mutant %.100s: killed_by is not a list of test names",
			 json_string_value(name));
		return EXPORT_BAD;
	}
	json_array_foreach(k, j, x)
		if (!json_is_string(x)) {
			snprintf(why, len, "mutant %.100s: killed_by[%zu] is not a test name",
				 json_string_value(name), j);
			return EXPORT_BAD;
		}
	for (j = 0; j < 2; j++) {
		x = json_object_get(mu, fields[j]);
		if (x && !json_is_null(x) && !json_is_string(x)) {
			snprintf(why, len, "mutant %.100s: %s is not text", json_string_value(name),
				 fields[j]);
			return EXPORT_BAD;
		}
	}
	if (!number_or_null(json_object_get(mu, "build_s")) ||
	    !number_or_null(json_object_get(mu, "run_s"))) {
		snprintf(why, len, "mutant %.100s: build_s and run_s must be numbers of seconds",
			 json_string_value(name));
		return EXPORT_BAD;
	}
	return 0;
}

static json_t *killed_by(json_t *k)
{
	json_t *out = json_array(), *x;
	size_t i;

	json_array_foreach(k, i, x) {
		if (i == 100)
			break;
		if (json_array_append_new(out, text_of(x, 300))) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

static int set_number(json_t *misc, const char *key, json_t *v)
{
	return json_object_set_new(misc, key,
				   v && json_is_number(v) ? json_deep_copy(v) : json_null());
}

int export_matrix_json(struct report *r, json_t *m, char *why, size_t len)
{
	const struct export_opts *o = r->o;
	json_t *muts = json_object_get(m, "mutants"), *mu, *src = json_object_get(m, "kernel_source");
	json_t *bmisc, *tmisc, *detail;
	char cid[200], bid[200], part[200], path[300];
	struct build_info b = { 0 };
	const char *release = o->kernel_release ? o->kernel_release : "mutate", *st, *image;
	char *source;
	size_t i, cls;
	int ret;

	if (!json_is_array(muts)) {
		snprintf(why, len, "a matrix without a mutants list");
		return EXPORT_BAD;
	}
	if (src && !json_is_null(src) && !json_is_string(src)) {
		snprintf(why, len, "kernel_source is not text");
		return EXPORT_BAD;
	}
	if (!json_array_size(muts)) {
		snprintf(why, len, "no mutants in the matrix: a KCIDB report of a campaign with "
			 "zero tests would read as nothing wrong");
		return EXPORT_FAILED;
	}
	/* Everything is checked before anything is exported. */
	json_array_foreach(muts, i, mu) {
		ret = check_mutant(mu, i, &cls, why, len);
		if (ret)
			return ret;
	}
	source = strdup(json_is_string(src) && json_string_length(src) ? json_string_value(src) :
			o->source ? o->source : "iopath mutate");
	image = r->image_sha[0] ? r->image_sha : NULL;
	if (!source || report_checkout(r, release, source, image, r->fallback_time, cid, sizeof(cid))) {
		free(source);
		goto nomem;
	}
	free(source);
	json_array_foreach(muts, i, mu) {
		check_mutant(mu, i, &cls, why, len);
		bmisc = json_object();
		tmisc = json_object();
		if (!bmisc || !tmisc) {
			json_decref(bmisc);
			json_decref(tmisc);
			goto nomem;
		}
		if (json_object_set_new(bmisc, "mutant", text_of(json_object_get(mu, "name"), 200)) ||
		    json_object_set_new(bmisc, "function",
					text_of(json_object_get(mu, "function"), 200)) ||
		    set_number(bmisc, "build_s", json_object_get(mu, "build_s"))) {
			json_decref(bmisc);
			json_decref(tmisc);
			goto nomem;
		}
		b.release = release;
		b.arch = o->arch;
		b.name = json_string_value(json_object_get(mu, "name"));
		b.status = classes[cls].build;
		b.start = r->fallback_time;
		b.misc = bmisc;
		if (report_build(r, cid, &b, bid, sizeof(bid))) {
			json_decref(tmisc);
			goto nomem;
		}
		detail = json_object_get(mu, "detail");
		if (json_object_set_new(tmisc, "class", json_string(classes[cls].cls)) ||
		    json_object_set_new(tmisc, "killed_by",
					killed_by(json_object_get(mu, "killed_by"))) ||
		    json_object_set_new(tmisc, "detail", text_of(detail, 2000)) ||
		    set_number(tmisc, "run_s", json_object_get(mu, "run_s"))) {
			json_decref(tmisc);
			goto nomem;
		}
		export_path_part(b.name, part, sizeof(part));
		snprintf(path, sizeof(path), "iopath.mutate.%s", part);
		st = classes[cls].test;
		if (report_test(r, bid, path, st, NULL, tmisc,
				strcmp(st, "PASS") ? json_string_value(detail) : NULL, NULL))
			goto nomem;
	}
	return 0;
nomem:
	snprintf(why, len, "no memory");
	return EXPORT_FAILED;
}
