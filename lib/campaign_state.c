// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The campaign's files (campaign.h): JSON written through lib/outfile.c
 * (a temporary file renamed into place: a reader never sees half of one,
 * a link at the name is refused) and read back as input, never trusted:
 * a regular file of bounded size, duplicate keys refused, every field of
 * the type and form it must have (json_unpack_ex() with "!": no field
 * more), counts that are counts, classes of the known ones.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array_size.h"
#include "campaign.h"
#include "campaign_int.h"
#include "mutant.h"
#include "outfile.h"
#include "why.h"

/* A test or program name as the verdict's reader writes it; '?' for others. */
bool iop_campaign_test_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= 255 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:+-?") == n;
}

#define COUNT_MAX	((json_int_t)UINT32_MAX)

int iop_strs_add(struct iop_strs *v, const char *s)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 16;
		char **p = reallocarray(v->s, cap, sizeof(*p));

		if (!p)
			return -ENOMEM;
		v->s = p;
		v->cap = cap;
	}
	v->s[v->n] = strdup(s);
	if (!v->s[v->n])
		return -ENOMEM;
	v->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void iop_strs_sort(struct iop_strs *v)
{
	size_t k = 0;

	if (!v->n)
		return;
	qsort(v->s, v->n, sizeof(*v->s), cmp_str);
	for (size_t i = 1; i < v->n; i++) {
		if (!strcmp(v->s[i], v->s[k]))
			free(v->s[i]);
		else
			v->s[++k] = v->s[i];
	}
	v->n = k + 1;
}

bool iop_strs_has(const struct iop_strs *v, const char *s)
{
	return v->n && bsearch(&s, v->s, v->n, sizeof(*v->s), cmp_str);
}

void iop_strs_free(struct iop_strs *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->s[i]);
	free(v->s);
	memset(v, 0, sizeof(*v));
}

json_t *iop_campaign_jstrs(const struct iop_strs *v)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < v->n; i++) {
		if (json_array_append_new(a, json_string(v->s[i]))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

int iop_campaign_strs(json_t *a, struct iop_strs *v, bool (*ok)(const char *s),
		      const char *path, const char *what, char *why, size_t len)
{
	size_t i;
	json_t *e;

	if (!json_is_array(a))
		goto bad;
	json_array_foreach(a, i, e) {
		if (!json_is_string(e) || (ok && !ok(json_string_value(e))))
			goto bad;
		if (iop_strs_add(v, json_string_value(e))) {
			iop_why(why, len, "%s: %s", path, strerror(ENOMEM));
			return -ENOMEM;
		}
	}
	return 0;
bad:
	iop_why(why, len, "%s: %s is not a list of %s", path, what, what);
	return -EINVAL;
}

int iop_campaign_write(json_t *doc, const char *path, char *why, size_t len)
{
	char tmp[4096];
	int fd, ret;
	FILE *f;

	if (!doc) {
		iop_why(why, len, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	fd = iop_tmp_create(path, iop_out_mode(path), tmp, sizeof(tmp));
	if (fd < 0) {
		json_decref(doc);
		iop_why(why, len, "%s: %s", path, strerror(-fd));
		return fd;
	}
	f = fdopen(fd, "w");
	ret = f ? json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : -1;
	if (f && !ret)
		ret = fputc('\n', f) == EOF ? -1 : 0;
	if (f ? fclose(f) : close(fd))
		ret = -1;
	json_decref(doc);
	if (ret) {
		iop_tmp_discard(tmp);
		iop_why(why, len, "%s: cannot write it", path);
		return -EIO;
	}
	ret = iop_tmp_commit(tmp, path);
	if (ret)
		iop_why(why, len, "%s: %s", path,
			ret == -ELOOP ? "a symbolic link (refused: it would be replaced)" :
			strerror(-ret));
	return ret;
}

json_t *iop_campaign_load(const char *path, size_t max, const char *schema, char *why,
			  size_t len)
{
	json_error_t err;
	struct stat st;
	json_t *doc = NULL, *s;
	char *buf = NULL;
	size_t off = 0;
	int fd;

	fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		iop_why(why, len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		iop_why(why, len, "%s: not a regular file of at most %zu bytes", path, max);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	while (buf && off < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + off, (size_t)st.st_size - off);

		if (r <= 0 && !(r < 0 && errno == EINTR))
			break;
		off += r > 0 ? (size_t)r : 0;
	}
	if (!buf || off != (size_t)st.st_size) {
		iop_why(why, len, "%s: %s", path, buf ? "cannot read it" : strerror(ENOMEM));
		goto out;
	}
	doc = json_loadb(buf, off, JSON_REJECT_DUPLICATES, &err);
	if (!doc) {
		iop_why(why, len, "%s:%d: not JSON: %s", path, err.line, err.text);
		goto out;
	}
	s = json_object_get(doc, "schema");
	if (!json_is_string(s) || strcmp(json_string_value(s), schema)) {
		iop_why(why, len, "%s: not a file of schema %s", path, schema);
		json_decref(doc);
		doc = NULL;
	}
out:
	free(buf);
	close(fd);
	return doc;
}

static bool count_ok(json_int_t v)
{
	return v >= 0 && v <= COUNT_MAX;
}

/* ---- the pristine kernel's runs -------------------------------------------- */

static json_t *pristine_runs_json(const struct iop_pristine *pr)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < pr->nruns; i++) {
		const struct iop_pristine_run *r = &pr->runs[i];

		if (json_array_append_new(a, json_pack("{s:I, s:I, s:s}", "seconds",
						       (json_int_t)r->seconds, "rc",
						       (json_int_t)r->rc, "stop", r->stop))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

int iop_pristine_write(const struct iop_pristine *pr, const char *path, char *why, size_t len)
{
	json_t *tests = json_array();

	for (size_t i = 0; tests && i < pr->tests.n; i++) {
		if (json_array_append_new(tests, json_pack("{s:s, s:s}", "name", pr->tests.s[i],
							   "program", pr->test_programs.s[i]))) {
			json_decref(tests);
			tests = NULL;
		}
	}
	return iop_campaign_write(json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}",
					    "schema", IOP_PRISTINE_SCHEMA,
					    "programs", pr->whole ? json_string("all") :
					    iop_campaign_jstrs(&pr->programs),
					    "build_s", pr->build_s < 0 ? json_null() :
					    json_integer(pr->build_s),
					    "runs", pristine_runs_json(pr), "tests", tests,
					    "passing", iop_campaign_jstrs(&pr->passing)),
				  path, why, len);
}

static int pristine_runs_load(struct iop_pristine *pr, json_t *runs, const char *path,
			      char *why, size_t len)
{
	size_t i;
	json_t *e;

	pr->runs = calloc(json_array_size(runs) + 1, sizeof(*pr->runs));
	if (!pr->runs)
		return -ENOMEM;
	json_array_foreach(runs, i, e) {
		struct iop_pristine_run *r = &pr->runs[i];
		json_int_t s, rc;
		const char *stop;

		if (json_unpack(e, "{s:I, s:I, s:s !}", "seconds", &s, "rc", &rc, "stop", &stop) ||
		    !count_ok(s) || rc < 0 || rc > 255 || strlen(stop) > 4 * IOP_RUN_STOP_MAX) {
			iop_why(why, len, "%s: run %zu is not {seconds, rc, stop}", path, i + 1);
			return -EINVAL;
		}
		r->seconds = s;
		r->rc = rc;
		r->stop = strdup(stop);
		if (!r->stop)
			return -ENOMEM;
		pr->nruns++;
	}
	return 0;
}

static int pristine_tests_load(struct iop_pristine *pr, json_t *tests, const char *path,
			       char *why, size_t len)
{
	size_t i;
	json_t *e;

	json_array_foreach(tests, i, e) {
		const char *name, *prog;

		if (json_unpack(e, "{s:s, s:s !}", "name", &name, "program", &prog) ||
		    !iop_campaign_test_ok(name) || !iop_campaign_test_ok(prog)) {
			iop_why(why, len, "%s: test %zu is not {name, program} of the reader's names",
				path, i + 1);
			return -EINVAL;
		}
		if (iop_strs_add(&pr->tests, name) || iop_strs_add(&pr->test_programs, prog))
			return -ENOMEM;
	}
	return 0;
}

int iop_pristine_load(struct iop_pristine *pr, const char *path, char *why, size_t len)
{
	json_t *doc, *progs, *build, *runs, *tests, *passing;
	const char *schema;
	int ret = -EINVAL;

	memset(pr, 0, sizeof(*pr));
	doc = iop_campaign_load(path, 64u << 20, IOP_PRISTINE_SCHEMA, why, len);
	if (!doc)
		return -EINVAL;
	if (json_unpack(doc, "{s:s, s:o, s:o, s:o, s:o, s:o !}", "schema", &schema,
			"programs", &progs, "build_s", &build, "runs", &runs, "tests", &tests,
			"passing", &passing) || !json_is_array(runs) || !json_is_array(tests) ||
	    (!json_is_null(build) && !(json_is_integer(build) &&
				       count_ok(json_integer_value(build))))) {
		iop_why(why, len, "%s: not the pristine kernel's state of iopath mutate", path);
		goto out;
	}
	pr->build_s = json_is_null(build) ? -1 : json_integer_value(build);
	pr->whole = json_is_string(progs) && !strcmp(json_string_value(progs), "all");
	ret = pr->whole ? 0 : iop_campaign_strs(progs, &pr->programs, iop_campaign_test_ok,
						path, "programs", why, len);
	if (!ret)
		ret = pristine_runs_load(pr, runs, path, why, len);
	if (!ret)
		ret = pristine_tests_load(pr, tests, path, why, len);
	if (!ret)
		ret = iop_campaign_strs(passing, &pr->passing, iop_campaign_test_ok, path,
					"passing", why, len);
	if (ret == -ENOMEM)
		iop_why(why, len, "%s: %s", path, strerror(ENOMEM));
	iop_strs_sort(&pr->passing);
	iop_strs_sort(&pr->programs);
out:
	json_decref(doc);
	if (ret)
		iop_pristine_free(pr);
	return ret;
}

void iop_pristine_free(struct iop_pristine *pr)
{
	for (size_t i = 0; pr->runs && i < pr->nruns; i++)
		free(pr->runs[i].stop);
	free(pr->runs);
	iop_strs_free(&pr->programs);
	iop_strs_free(&pr->tests);
	iop_strs_free(&pr->test_programs);
	iop_strs_free(&pr->passing);
	memset(pr, 0, sizeof(*pr));
}

size_t iop_pristine_clean(const struct iop_pristine *pr)
{
	size_t n = 0;

	for (size_t i = 0; i < pr->nruns; i++)
		n += !pr->runs[i].stop[0];
	return n;
}

bool iop_pristine_covers(const struct iop_pristine *pr, const struct iop_plan *p)
{
	if (pr->whole)
		return true;
	if (p->pristine_whole || !p->pristine_programs.n)
		return false;
	for (size_t i = 0; i < p->pristine_programs.n; i++)
		if (!iop_strs_has(&pr->programs, p->pristine_programs.s[i]))
			return false;
	return true;
}

/* ---- a mutant's result --------------------------------------------------------- */

static const char *const classes[] = {
	"killed", "crash", "survived", "equivalent", "no-build", "unstable",
};

bool iop_result_class_ok(const char *class)
{
	for (size_t k = 0; k < ARRAY_SIZE(classes); k++)
		if (!strcmp(class, classes[k]))
			return true;
	return false;
}

int iop_result_write(const struct iop_result *r, const char *path, char *why, size_t len)
{
	return iop_campaign_write(json_pack("{s:s, s:s, s:s, s:o, s:I, s:I, s:s}",
					    "schema", IOP_RESULT_SCHEMA, "name", r->name,
					    "class", r->class,
					    "killed_by", iop_campaign_jstrs(&r->killers),
					    "build_s", (json_int_t)r->build_s,
					    "run_s", (json_int_t)r->run_s, "detail", r->detail),
				  path, why, len);
}

int iop_result_load(struct iop_result *r, const char *path, char *why, size_t len)
{
	const char *schema, *name, *class, *detail;
	json_int_t b, s;
	json_t *doc, *killers;
	int ret = -EINVAL;

	memset(r, 0, sizeof(*r));
	if (access(path, F_OK) && errno == ENOENT)
		return 1;
	doc = iop_campaign_load(path, 1u << 20, IOP_RESULT_SCHEMA, why, len);
	if (!doc)
		return -EINVAL;
	if (json_unpack(doc, "{s:s, s:s, s:s, s:o, s:I, s:I, s:s !}", "schema", &schema,
			"name", &name, "class", &class, "killed_by", &killers, "build_s", &b,
			"run_s", &s, "detail", &detail) || !iop_mutant_name_ok(name)) {
		iop_why(why, len, "%s: not a result of iopath mutate", path);
		goto out;
	}
	if (!iop_result_class_ok(class)) {
		iop_why(why, len, "%s: class '%.40s' is none of iopath mutate's", path, class);
		goto out;
	}
	if (!count_ok(b) || !count_ok(s)) {
		iop_why(why, len, "%s: build_s and run_s are not counts of seconds", path);
		goto out;
	}
	ret = iop_campaign_strs(killers, &r->killers, iop_campaign_test_ok, path, "killed_by",
				why, len);
	if (ret)
		goto out;
	r->name = strdup(name);
	r->class = strdup(class);
	r->detail = strdup(detail);
	r->build_s = b;
	r->run_s = s;
	ret = r->name && r->class && r->detail ? 0 : -ENOMEM;
	if (ret)
		iop_why(why, len, "%s: %s", path, strerror(ENOMEM));
out:
	json_decref(doc);
	if (ret)
		iop_result_free(r);
	return ret;
}

void iop_result_free(struct iop_result *r)
{
	free(r->name);
	free(r->class);
	free(r->detail);
	iop_strs_free(&r->killers);
	memset(r, 0, sizeof(*r));
}
