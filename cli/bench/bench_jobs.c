// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Jobs of iopath bench (see bench_jobs.h): matrix expansion and the profile
 * parser. The parser reads through lib/input.c: a regular file only, a
 * bounded line length (fgets() used to split a long line, so the tail of
 * a comment became a setting), and every key checked.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_check.h"
#include "bench_jobs.h"
#include "cli.h"
#include "iopath.h"

/* Strings jobs point at (expanded axes, profile lines): freed on return. */
static char **owned;
static int nowned, owned_cap;

static char *own(char *s)
{
	if (nowned == owned_cap) {
		int cap = owned_cap ? owned_cap * 2 : 64;
		char **v = realloc(owned, (size_t)cap * sizeof(*v));

		if (!v) {
			free(s);
			return NULL;
		}
		owned = v;
		owned_cap = cap;
	}
	owned[nowned++] = s;
	return s;
}

static void own_free(void)
{
	for (int i = 0; i < nowned; i++)
		free(owned[i]);
	free(owned);
	owned = NULL;
	nowned = 0;
	owned_cap = 0;
}

static int add_job(struct jobs *js, const struct job *j)
{
	if (js->n == MAX_JOBS)
		return -E2BIG;
	if (js->n == js->cap) {
		int cap = js->cap ? js->cap * 2 : 16;
		struct job *v = realloc(js->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		js->v = v;
		js->cap = cap;
	}
	js->v[js->n++] = *j;
	return 0;
}

static const struct iop_param *bench_param(const struct iop_bench *b, const char *name)
{
	for (const struct iop_param *p = b->params; p && p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	for (const struct iop_param *p = iop_common_params; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

/*
 * Expand the axes of @kv (values with commas, or spaces for cpus=) into
 * one job per point.
 */
static int expand(struct jobs *js, struct job *base, char **kv, int nkv, int i)
{
	char *eq, *val, *save, *tok, *copy, key[128];
	const char *sep;
	int ret = 0;

	if (i == nkv)
		return add_job(js, base);
	eq = strchr(kv[i], '=');
	if (!eq)
		return -EINVAL;
	snprintf(key, sizeof(key), "%.*s", (int)(eq - kv[i]), kv[i]);
	val = eq + 1;
	sep = !strcmp(key, "cpus") ? " \t" : ",";
	if (!strpbrk(val, sep)) {
		base->kv[base->nkv++] = kv[i];
		ret = expand(js, base, kv, nkv, i + 1);
		base->nkv--;
		return ret;
	}
	copy = strdup(val);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, sep, &save); tok && !ret; tok = strtok_r(NULL, sep, &save)) {
		char *one;

		while (isspace((unsigned char)*tok))
			tok++;
		if (asprintf(&one, "%s=%s", key, tok) < 0 || !own(one)) {
			ret = -ENOMEM;
			break;
		}
		/* the string lives as long as the command: jobs point at it */
		base->kv[base->nkv++] = one;
		ret = expand(js, base, kv, nkv, i + 1);
		base->nkv--;
	}
	free(copy);
	return ret;
}

char *iop_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

struct section {
	const struct iop_bench *b;	/* NULL for [global] */
	char *kv[MAX_KV];
	size_t kv_line[MAX_KV];		/* where each was set */
	int nkv;
	char fs[64], backing[PATH_MAX];
	size_t fs_line, backing_line;	/* 0: not set */
};

static int section_flush(struct jobs *js, struct section *g, struct section *s)
{
	struct job base = { .b = s->b };
	char *kv[MAX_KV];
	int n = 0;

	snprintf(base.fs, sizeof(base.fs), "%s",
		 s->fs_line ? s->fs : g->fs_line ? g->fs : "ext4,xfs");
	snprintf(base.backing, sizeof(base.backing), "%s",
		 s->backing_line ? s->backing : g->backing_line ? g->backing : "");
	/* global keys the benchmark has, then the section's own (later wins) */
	for (int i = 0; i < g->nkv; i++) {
		char key[128];

		snprintf(key, sizeof(key), "%.*s", (int)strcspn(g->kv[i], "="), g->kv[i]);
		if (bench_param(s->b, key) && n < MAX_KV)
			kv[n++] = g->kv[i];
	}
	for (int i = 0; i < s->nkv && n < MAX_KV; i++)
		kv[n++] = s->kv[i];
	return expand(js, &base, kv, n, 0);
}

/* Any benchmark (or the harness) takes @key: a [global] key must be one. */
static bool any_bench_param(const char *key)
{
	for (const struct iop_bench *b = iop_bench_first(); b; b = b->next)
		if (bench_param(b, key))
			return true;
	return false;
}

/* The line @key was set on in @cur, or 0. */
static size_t set_at(const struct section *cur, const char *key)
{
	size_t kl = strlen(key);

	if (!strcmp(key, "fs"))
		return cur->fs_line;
	if (!strcmp(key, "backing"))
		return cur->backing_line;
	for (int i = 0; i < cur->nkv; i++)
		if (!strncmp(cur->kv[i], key, kl) && cur->kv[i][kl] == '=')
			return cur->kv_line[i];
	return 0;
}

/*
 * Each value of an axis of @key (values with commas, or blanks for cpus=)
 * as the benchmarks that take @key read it: a bad value is an error of
 * this line, not of a job found later.
 */
static int check_values(const struct section *cur, const char *key, const char *val,
			const char *where, char *why, size_t len)
{
	const char *sep = !strcmp(key, "cpus") ? " \t" : ",";
	char *copy = strdup(val), *save, *tok;
	char what[256];
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, sep, &save); tok && !ret; tok = strtok_r(NULL, sep, &save)) {
		tok = iop_trim(tok);
		for (const struct iop_bench *b = cur->b ? cur->b : iop_bench_first(); b && !ret;
		     b = cur->b ? NULL : b->next) {
			const struct iop_param *p = bench_param(b, key);

			if (p && iop_param_check(p, tok, what, sizeof(what))) {
				snprintf(why, len, "%s: %s", where, what);
				ret = -EINVAL;
			}
		}
	}
	free(copy);
	return ret;
}

/* One "key = value" line of the current section; 0 or -errno with @why. */
static int profile_setting(struct section *cur, char *l, const char *where, size_t lineno,
			   char *why, size_t len)
{
	char *eq = strchr(l, '='), *key, *val;
	size_t first;

	if (!eq) {
		snprintf(why, len, "%s: expected key = value", where);
		return -EINVAL;
	}
	*eq = '\0';
	key = iop_trim(l);
	val = iop_trim(eq + 1);
	/* the last one won, silently: a profile says each thing once */
	first = set_at(cur, key);
	if (first) {
		snprintf(why, len, "%s: %.64s set twice in this section (first on line %zu)", where,
			 key, first);
		return -EINVAL;
	}
	if (!strcmp(key, "fs")) {
		if (strlen(val) >= sizeof(cur->fs) || iop_fs_list_check(val, why, len)) {
			snprintf(why, len,
				 "%s: fs = %.64s: expected a list of ext4, xfs, none", where, val);
			return -EINVAL;
		}
		snprintf(cur->fs, sizeof(cur->fs), "%s", val);
		cur->fs_line = lineno;
		return 0;
	}
	if (!strcmp(key, "backing")) {
		struct iop_scratch_opts o = { 0 };
		char what[256];

		if (strlen(val) >= sizeof(cur->backing) ||
		    iop_parse_backing(val, &o, what, sizeof(what))) {
			snprintf(why, len, "%s: backing = %.64s: expected zram, loop, dev:/dev/X or dir:/path",
				 where, val);
			return -EINVAL;
		}
		snprintf(cur->backing, sizeof(cur->backing), "%s", val);
		cur->backing_line = lineno;
		return 0;
	}
	if (cur->b ? !bench_param(cur->b, key) : !any_bench_param(key)) {
		if (cur->b)
			snprintf(why, len, "%s: %s has no parameter '%.64s'", where,
				 cur->b->name, key);
		else
			snprintf(why, len, "%s: no benchmark has a parameter '%.64s'", where, key);
		return -EINVAL;
	}
	if (cur->nkv == MAX_KV) {
		snprintf(why, len, "%s: more than %d settings in one section", where, MAX_KV);
		return -EINVAL;
	}
	if (check_values(cur, key, val, where, why, len))
		return -EINVAL;
	if (asprintf(&cur->kv[cur->nkv], "%s=%s", key, val) < 0 || !own(cur->kv[cur->nkv]))
		return -ENOMEM;
	cur->kv_line[cur->nkv++] = lineno;
	return 0;
}

static void flush_why(int ret, const char *where, char *why, size_t len)
{
	if (ret == -E2BIG)
		snprintf(why, len, "%.280s: the matrix makes more than %d jobs", where, MAX_JOBS);
	else
		snprintf(why, len, "%.280s: %s", where, strerror(-ret));
}

/* Longest profile line: anything longer is an error, never split in two. */
#define PROFILE_LINE_MAX 1024

int iop_profile_load(const char *name, struct jobs *js, char *why, size_t len)
{
	struct section g = { 0 }, s = { 0 }, *cur = &g;
	char path[PATH_MAX], where[300], *line;
	struct iop_input in;
	bool terminated;
	ssize_t n;
	int ret = 0;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/configs/bench/%s.conf", iop_src_dir(), name);
	ret = iop_input_open(&in, path, PROFILE_LINE_MAX, why, len);
	if (ret) {
		/* "profile PATH: what" */
		char what[512];

		snprintf(what, sizeof(what), "%s", why);
		snprintf(why, len, "profile %.400s", what);
		return ret;
	}
	while ((n = iop_input_line(&in, &line, &terminated, why, len)) >= 0) {
		char *l;

		snprintf(where, sizeof(where), "%.256s:%zu", path, in.lineno);
		if (memchr(line, '\0', (size_t)n)) {
			snprintf(why, len, "%s: NUL byte in the line", where);
			ret = -EINVAL;
			break;
		}
		l = iop_trim(line);
		if (!*l || *l == '#' || *l == ';')
			continue;
		if (*l == '[') {
			char *e = strchr(l, ']');

			if (!e || *iop_trim(e + 1)) {
				snprintf(why, len, "%s: expected [section]", where);
				ret = -EINVAL;
				break;
			}
			*e = '\0';
			if (cur == &s) {
				ret = section_flush(js, &g, &s);
				if (ret) {
					flush_why(ret, where, why, len);
					break;
				}
			}
			memset(&s, 0, sizeof(s));
			l = iop_trim(l + 1);
			if (!strcmp(l, "global")) {
				cur = &g;
				continue;
			}
			s.b = iop_bench_find(l);
			if (!s.b) {
				snprintf(why, len, "%s: no benchmark '%.64s' (iopath bench --list)",
					 where, l);
				ret = -EINVAL;
				break;
			}
			cur = &s;
			continue;
		}
		ret = profile_setting(cur, l, where, in.lineno, why, len);
		if (ret)
			break;
	}
	if (!ret && n != -ENODATA)
		ret = (int)n;
	if (!ret && cur == &s) {
		ret = section_flush(js, &g, &s);
		if (ret)
			flush_why(ret, path, why, len);
	}
	if (!ret && !js->n) {
		snprintf(why, len, "profile %.256s: no [benchmark] sections", path);
		ret = -EINVAL;
	}
	iop_input_close(&in);
	return ret;
}

int iop_jobs_expand(struct jobs *js, struct job *base, char **kv, int nkv)
{
	return expand(js, base, kv, nkv, 0);
}

void iop_jobs_free(struct jobs *js)
{
	free(js->v);
	memset(js, 0, sizeof(*js));
	own_free();
}
