// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Record sets: load result files for `iopath compare` and `iopath plot` and
 * pair their records by benchmark and parameters. lib/record.c parses the
 * JSON Lines and checks the schema, lib/record_view.c turns each record
 * into its typed view once, checking every field a reader takes (values
 * as measurements: no negative time, none out of range), so that a bad
 * record is reported with its file and line before anything is printed.
 * From the load on nothing here reads the JSON: only struct iop_rec.
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

static void rec_destroy(struct iop_rec *r)
{
	if (!r)
		return;
	iop_rec_free(r);
	free(r);
}

/* The one place a record of a set is read: its typed view, or why not. */
static int load_one(json_t *rec, void *arg)
{
	struct load_ctx *c = arg;
	struct iop_rs_file *f = c->f;
	struct iop_rec *r;
	const char *d;
	int ret;

	if (f->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct iop_rec **recs = realloc(f->recs, cap * sizeof(*recs));

		if (!recs)
			return -ENOMEM;
		f->recs = recs;
		c->cap = cap;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = iop_rec_parse_flags(rec, r, IOP_REC_MEASURED, c->what, sizeof(c->what));
	if (ret) {
		rec_destroy(r);
		if (ret != -EINVAL)
			return ret;
		c->bad = f->n + 1;
		return 1;
	}
	/* a literal, not the record's string: it outlives the records */
	d = strcmp(r->env.clock_domain, "wall") ? "instructions" : "wall";
	if (f->domain && strcmp(f->domain, d)) {
		rec_destroy(r);
		return fail(c, "clock domain \"%s\", where the records above are in \"%s\": one file, one domain",
			    d, f->domain);
	}
	f->domain = d;
	f->recs[f->n++] = r;
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

void iop_rs_free(struct iop_rs_file *f)
{
	for (size_t i = 0; i < f->n; i++)
		rec_destroy(f->recs[i]);
	free(f->recs);
	free(f->lines);
	f->recs = NULL;
	f->lines = NULL;
	f->n = 0;
}

static void params_release(struct iop_rec_param *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++)
		iop_rec_param_release(&p[i]);
	free(p);
}

/*
 * The parameters a record was run with, as compare sees them: its "params"
 * plus the filesystem, which iopath bench takes as an option (--fs) and
 * records in env.fs.type. ext4 and XFS runs of one benchmark must not pair.
 * Into *@out (record order, "fs" last when it comes from env): how many,
 * or -ENOMEM.
 */
static long effective_params(const struct iop_rec *r, struct iop_rec_param **out,
			     bool *fs_from_env)
{
	struct iop_rec_param *p = calloc(r->nparams + 1, sizeof(*p));
	size_t n = 0;
	json_t *fs;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < r->nparams; i++) {
		/* which metric a run is judged by does not change what it measured */
		if (!strcmp(r->param_list[i].name, "main_metric"))
			continue;
		if (iop_rec_param_init(&p[n], r->param_list[i].name, r->param_list[i].value))
			goto err_release;
		n++;
	}
	*fs_from_env = !iop_rec_param(r->param_list, r->nparams, "fs");
	if (*fs_from_env) {
		fs = json_string(r->env.fs_type ? r->env.fs_type : "none");
		if (!fs || iop_rec_param_init(&p[n], "fs", fs)) {
			json_decref(fs);
			goto err_release;
		}
		json_decref(fs);
		n++;
	}
	*out = p;
	return (long)n;

err_release:
	params_release(p, n);
	return -ENOMEM;
}

static int cmp_param(const void *a, const void *b)
{
	const struct iop_rec_param *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

const struct iop_rec_param **iop_rs_params_sorted(const struct iop_rec_param *p, size_t n)
{
	const struct iop_rec_param **s = calloc(n + 1, sizeof(*s));

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++)
		s[i] = &p[i];
	qsort(s, n, sizeof(*s), cmp_param);
	return s;
}

/*
 * What pairs records: the benchmark and each parameter's value as paired
 * (iop_rec_param's key), names sorted. A name is [a-z][a-z0-9_]*
 * (lib/record.c) and a key one JSON value without a space outside its
 * strings, so no two parameter sets give one key.
 */
static char *group_key(const char *bench, const struct iop_rec_param *p, size_t n)
{
	const struct iop_rec_param **s = iop_rs_params_sorted(p, n);
	char *key = NULL;
	size_t len;
	FILE *f;

	if (!s)
		return NULL;
	f = open_memstream(&key, &len);
	if (!f) {
		free(s);
		return NULL;
	}
	fprintf(f, "%zu:%s", strlen(bench), bench);
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %s=%s", s[i]->name, s[i]->key);
	free(s);
	if (fclose(f)) {
		free(key);
		return NULL;
	}
	return key;
}

static int add_to_group(struct iop_rs_group *g, int side, const struct iop_rec *rec, int line)
{
	const struct iop_rec **r = realloc(g->recs[side], (g->n[side] + 1) * sizeof(*r));
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

/* The group of @rec among *@g (a new one at the end if none): its index, or -ENOMEM. */
static long find_group(struct iop_rs_group **g, size_t *ng, const struct iop_rec *rec)
{
	struct iop_rec_param *params;
	struct iop_rs_group *grown;
	bool fs_from_env;
	long np = effective_params(rec, &params, &fs_from_env);
	char *key = np >= 0 ? group_key(rec->bench, params, (size_t)np) : NULL;
	size_t j;

	if (!key)
		goto err_params;
	/* Few groups (tens): a linear search keeps file order simply. */
	for (j = 0; j < *ng; j++) {
		if (!strcmp((*g)[j].key, key)) {
			free(key);
			params_release(params, (size_t)np);
			return (long)j;
		}
	}
	grown = realloc(*g, (*ng + 1) * sizeof(**g));
	if (!grown)
		goto err_key;
	*g = grown;
	memset(&grown[j], 0, sizeof(grown[j]));
	grown[j].key = key;
	grown[j].bench = rec->bench;
	grown[j].params = params;
	grown[j].nparams = (size_t)np;
	grown[j].fs_from_env = fs_from_env;
	(*ng)++;
	return (long)j;

err_key:
	free(key);
err_params:
	if (np >= 0)
		params_release(params, (size_t)np);
	return -ENOMEM;
}

int iop_rs_pair(const struct iop_rs_file *base, const struct iop_rs_file *new,
		struct iop_rs_group **groups, size_t *n)
{
	const struct iop_rs_file *side[2] = { base, new };
	struct iop_rs_group *g = NULL;
	size_t ng = 0;
	long j;

	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < side[s]->n; i++) {
			j = find_group(&g, &ng, side[s]->recs[i]);
			if (j < 0 || add_to_group(&g[j], s, side[s]->recs[i], side[s]->lines[i]))
				goto err_free;
		}
	}
	*groups = g;
	*n = ng;
	return 0;

err_free:
	iop_rs_groups_free(g, ng);
	return -ENOMEM;
}

/* ---- what a comparison cannot take ------------------------------------ */

struct rep_key {
	const struct iop_rec *rec;
	int line;
};

static int cmp_rep_key(const void *a, const void *b)
{
	const struct rep_key *x = a, *y = b;
	int c;

	if (x->rec->rep != y->rec->rep)
		return x->rec->rep < y->rec->rep ? -1 : 1;
	c = strcmp(x->rec->time, y->rec->time);
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
		const struct iop_rec *rec = g->recs[side][i];

		if (rec->has_rep && rec->time)
			k[n++] = (struct rep_key){ rec, g->lines[side][i] };
	}
	qsort(k, n, sizeof(*k), cmp_rep_key);
	for (size_t i = 1; i < n; i++) {
		const struct iop_rec *a = k[i - 1].rec, *b = k[i].rec;

		if (a->rep != b->rep || strcmp(a->time, b->time))
			continue;
		snprintf(why, len, "%s:%d: duplicate record: %s rep %" JSON_INTEGER_FORMAT
			 " at %s is also line %d",
			 path, k[i].line, g->bench, k[i].rec->rep, k[i].rec->time, k[i - 1].line);
		ret = -EINVAL;
		break;
	}
	free(k);
	return ret;
}

/*
 * One name (a metric's, a boot's) that must carry one value (a unit, a
 * kernel release) wherever it appears; @seq is the order of appearance.
 */
struct claim {
	const char *name, *val;
	int side, line;
	size_t seq;
};

struct claims {
	struct claim *v;
	size_t n, cap;
};

static int claim(struct claims *c, const char *name, const char *val, int side, int line)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct claim *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n] = (struct claim){ name, val, side, line, c->n };
	c->n++;
	return 0;
}

static int cmp_claim(const void *a, const void *b)
{
	const struct claim *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * The first claim, in order of appearance, whose value is not the one
 * its name first appeared with; that first one in *@first. NULL: none.
 * Sorted, not searched: a file of many boots stays n log n.
 */
static const struct claim *first_conflict(struct claims *c, const struct claim **first)
{
	const struct claim *bad = NULL, *head = NULL;

	qsort(c->v, c->n, sizeof(*c->v), cmp_claim);
	for (size_t i = 0; i < c->n; i++) {
		if (!head || strcmp(head->name, c->v[i].name))
			head = &c->v[i];
		if (strcmp(head->val, c->v[i].val) && (!bad || c->v[i].seq < bad->seq)) {
			*first = head;
			bad = &c->v[i];
		}
	}
	return bad;
}

/* Every record of @g names each metric in one unit, on both sides. */
static int check_units(const struct iop_rs_group *g, const char *const paths[2],
		       char *why, size_t len)
{
	struct claims c = { 0 };
	const struct claim *bad, *first;
	int ret = 0;

	for (int s = 0; s < 2 && !ret; s++) {
		for (size_t i = 0; i < g->n[s] && !ret; i++) {
			const struct iop_rec *rec = g->recs[s][i];

			for (size_t j = 0; j < rec->nmetrics && !ret; j++)
				ret = claim(&c, rec->metrics[j].name,
					    rec->metrics[j].unit ? rec->metrics[j].unit : "", s,
					    g->lines[s][i]);
		}
	}
	if (ret) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		goto out;
	}
	bad = first_conflict(&c, &first);
	if (bad) {
		snprintf(why, len, "%s:%d: metric \"%s\" of %s in \"%s\", but %s:%d has \"%s\"",
			 paths[bad->side], bad->line, bad->name, g->bench, bad->val,
			 paths[first->side], first->line, first->val);
		ret = -EINVAL;
	}
out:
	free(c.v);
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
	struct claims c = { 0 };
	const struct claim *bad, *first;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		for (int s = 0; s < 2 && !ret; s++) {
			for (size_t j = 0; j < groups[i].n[s] && !ret; j++) {
				const struct iop_rec_env *e = &groups[i].recs[s][j]->env;

				if (e->boot_id && *e->boot_id && e->release)
					ret = claim(&c, e->boot_id, e->release, s,
						    groups[i].lines[s][j]);
			}
		}
	}
	if (ret) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		goto out;
	}
	bad = first_conflict(&c, &first);
	if (bad) {
		snprintf(why, len, "%s:%d: boot %s ran kernel \"%s\", but %s:%d has it run \"%s\": one boot runs one kernel",
			 paths[bad->side], bad->line, bad->name, bad->val, paths[first->side],
			 first->line, first->val);
		ret = -EINVAL;
	}
out:
	free(c.v);
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
		params_release(groups[i].params, groups[i].nparams);
		for (int s = 0; s < 2; s++) {
			free(groups[i].recs[s]);
			free(groups[i].lines[s]);
		}
	}
	free(groups);
}

/* "bs=4096 fs=ext4": @n parameters, names sorted; caller frees. */
static char *params_str(const struct iop_rec_param *const *p, size_t n, const char *sep)
{
	const struct iop_rec_param **s = calloc(n + 1, sizeof(*s));
	char *out = NULL;
	size_t len;
	FILE *f;

	if (!s)
		return NULL;
	memcpy(s, p, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_param);
	f = open_memstream(&out, &len);
	if (!f) {
		free(s);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s=%s", i ? sep : "", s[i]->name, s[i]->text);
	free(s);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

char *iop_rs_group_label(const struct iop_rs_group *groups, size_t n,
			 const struct iop_rs_group *g)
{
	const struct iop_rec_param **shown = calloc(g->nparams + 1, sizeof(*shown));
	size_t nshown = 0;
	char *p, *label = NULL;

	if (!shown)
		return NULL;
	for (size_t k = 0; k < g->nparams; k++) {
		const struct iop_rec_param *v = &g->params[k], *o;
		bool varies = !strcmp(v->name, "fs");

		for (size_t i = 0; i < n && !varies; i++) {
			if (&groups[i] == g || strcmp(groups[i].bench, g->bench))
				continue;
			o = iop_rec_param(groups[i].params, groups[i].nparams, v->name);
			varies = !o || !iop_rec_param_same(o, v);
		}
		if (varies)
			shown[nshown++] = v;
	}
	p = params_str(shown, nshown, " ");
	if (p && asprintf(&label, "%s%s%s", g->bench, *p ? " " : "", p) < 0)
		label = NULL;
	free(p);
	free(shown);
	return label;
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
	const char *main = f->recs[i]->run.main_metric;
	const struct iop_rec_metric *m = main ? iop_rec_metric(f->recs[i], main) : NULL;
	const char *agg = m ? m->agg : NULL;

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
		const char *sha = f->recs[i]->env.image_sha256;
		const char *b = f->recs[i]->env.boot_id;

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
			const char *b = seen[s].recs[i]->env.boot_id;

			if (b && !strcmp(b, id)) {
				snprintf(why, len, "%s: boot id %s seen before (%s:%d): not a boot of its own",
					 f->path, id, seen[s].path, seen[s].lines[i]);
				return -EINVAL;
			}
		}
	}
	return 0;
}
