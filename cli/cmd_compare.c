// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath compare BASE NEW [NEW...]: turn a base run and a patched run into
 * a verdict per metric, in the kernel test robot's table layout, as a block
 * for a commit message, or as JSON.
 *
 * Each repetition's metric "value" is one observation; a side's n is its
 * number of repetitions. Per metric:
 *  - rates (agg "hmean") are summarised by the harmonic mean and tested on
 *    their reciprocals (time per operation), everything else by the
 *    arithmetic mean of the values, so the test is about exactly the means
 *    that are printed;
 *  - Welch's t-test (unequal variances, Welch-Satterthwaite degrees of
 *    freedom) decides improvement, regression or no significant change;
 *  - the confidence interval of the relative change is Fieller's interval
 *    for the ratio of the two means, with the same t quantile, so it
 *    excludes 0% exactly when the test rejects.
 * docs/compare.md explains these choices. This command does not decide
 * whether a benchmark measured the right thing, and it does not average
 * away noisy runs: untrusted records, unpaired records and environment
 * differences are listed above the tables and mark the rows they affect.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include "cli.h"
#include "iopath.h"
#include "recset.h"

enum verdict { V_NONE, V_BETTER, V_WORSE, V_UNTESTED };

static const char *const verdict_name[] = {
	[V_NONE] = "-",
	[V_BETTER] = "improvement",
	[V_WORSE] = "regression",
	[V_UNTESTED] = "n/a",
};

static const char *const verdict_json[] = {
	[V_NONE] = "no significant change",
	[V_BETTER] = "improvement",
	[V_WORSE] = "regression",
	[V_UNTESTED] = "not tested",
};

struct side_stats {
	size_t n;
	double mean;		/* as printed: harmonic mean for rates */
	double rsd;		/* relative stddev on the tested scale (fraction) */
	double tmean;		/* mean on the tested scale (1/x for rates) */
	double tvar;		/* variance of that mean: s^2 / n */
	size_t boots;		/* distinct boot ids among the records (0: none recorded) */
	bool by_boot;		/* the observations are per-boot means (2 or more boots) */
	size_t runs;		/* distinct invocations of iopath bench (0: none recorded) */
	bool by_run;		/* one boot, 2 or more runs: the observations are per-run means */
};

struct metric_cmp {
	const char *name;
	const char *unit;
	bool higher;		/* higher is better */
	bool rate;		/* agg "hmean" */
	struct side_stats s[2];
	double change;		/* new / base - 1 */
	double ci_lo, ci_hi;	/* of change; NAN unknown, +-INFINITY unbounded */
	double t, df, p;
	double mde;		/* smallest change found with IOP_MDE_POWER, relative to the base mean */
	enum verdict v;
	const char *why;	/* why not tested */
};

struct group_cmp {
	struct iop_rs_group *g;
	struct metric_cmp *m;
	size_t nm;
	bool untrusted;
	bool env_differs;
};

struct notes {
	char **v;
	size_t n;
};

struct comparison {
	const char *base_path, *new_path;
	struct iop_rs_file *base, *new;
	struct iop_rs_group *groups;
	size_t ngroups;
	struct group_cmp *gc;
	size_t ngc;
	struct notes notes;
};

struct opts {
	enum { F_TEXT, F_COMMIT, F_JSON } format;
	double alpha;
};

/* The power at which compare and iopath bench --calibrate state what could be seen. */
#define IOP_MDE_POWER	0.95

/*
 * The comparison of one metric. @xb and @xn are the per-repetition values
 * of the base and new side. tests/compare.sh recomputes every figure this
 * produces (through the JSON output) without GSL.
 */
static void compare_metric(const double *xb, size_t nb, const double *xn, size_t nn,
			   double alpha, struct metric_cmp *mc)
{
	const double *x[2] = { xb, xn };
	size_t n[2] = { nb, nn };
	double *y[2] = { NULL, NULL };
	double a, b, va, vb, tc, den, disc, lo, hi;

	mc->change = mc->ci_lo = mc->ci_hi = NAN;
	mc->t = mc->df = mc->p = NAN;
	mc->v = V_UNTESTED;
	mc->why = NULL;

	for (int s = 0; s < 2; s++) {
		struct side_stats *ss = &mc->s[s];

		ss->n = n[s];
		ss->mean = ss->rsd = ss->tmean = ss->tvar = NAN;
		y[s] = malloc((n[s] ? n[s] : 1) * sizeof(double));
		if (!y[s]) {
			mc->why = "out of memory";
			goto out;
		}
		for (size_t i = 0; i < n[s]; i++) {
			if (!isfinite(x[s][i]) || (mc->rate && x[s][i] <= 0)) {
				mc->why = mc->rate ? "a rate is zero or negative" : "a value is not finite";
				ss->mean = mc->rate ? iop_hmean(x[s], n[s]) : iop_mean(x[s], n[s]);
				goto out;
			}
			y[s][i] = mc->rate ? 1 / x[s][i] : x[s][i];
		}
		ss->tmean = iop_mean(y[s], n[s]);
		ss->mean = mc->rate ? 1 / ss->tmean : ss->tmean;
		ss->rsd = ss->tmean ? iop_stddev(y[s], n[s]) / fabs(ss->tmean) : NAN;
		ss->tvar = n[s] ? pow(iop_stddev(y[s], n[s]), 2) / n[s] : NAN;
	}
	if (mc->s[0].mean > 0 && mc->s[1].mean >= 0)
		mc->change = mc->s[1].mean / mc->s[0].mean - 1;

	if (nb < 2 || nn < 2) {
		mc->why = "fewer than 2 repetitions on a side";
		goto out;
	}

	a = mc->s[1].tmean;
	b = mc->s[0].tmean;
	va = mc->s[1].tvar;
	vb = mc->s[0].tvar;
	if (va + vb == 0) {
		/* Identical repetitions on both sides: the difference is exact. */
		mc->t = a == b ? 0 : copysign(INFINITY, a - b);
		mc->df = nb + nn - 2;
		mc->p = a == b ? 1 : 0;
		mc->ci_lo = mc->ci_hi = mc->change;
	} else {
		mc->t = (a - b) / sqrt(va + vb);
		mc->df = (va + vb) * (va + vb) /
			 (va * va / (nn - 1) + vb * vb / (nb - 1));
		mc->p = 2 * gsl_cdf_tdist_Q(fabs(mc->t), mc->df);
		tc = gsl_cdf_tdist_Pinv(1 - alpha / 2, mc->df);

		/*
		 * Fieller: the theta with (a - theta*b)^2 <= tc^2 (va + theta^2 vb).
		 * Bounded only when the base mean is itself clearly non-zero.
		 */
		den = b * b - tc * tc * vb;
		if (b > 0 && den > 0) {
			disc = a * a * vb + b * b * va - tc * tc * va * vb;
			lo = (a * b - tc * sqrt(disc)) / den;
			hi = (a * b + tc * sqrt(disc)) / den;
			if (!mc->rate) {
				mc->ci_lo = lo - 1;
				mc->ci_hi = hi - 1;
			} else {
				/* printed ratio = hmean_new / hmean_base = b / a = 1 / theta */
				mc->ci_lo = 1 / hi - 1;
				mc->ci_hi = lo > 0 ? 1 / lo - 1 : INFINITY;
			}
		} else if (b > 0) {
			mc->ci_lo = -INFINITY;
			mc->ci_hi = INFINITY;
		}
	}
	/* t carries the sign of the printed change: for rates 1/x moves the other way. */
	if (mc->rate)
		mc->t = -mc->t;
	if (mc->p < alpha) {
		bool up = mc->rate ? a < b : a > b;

		mc->v = up == mc->higher ? V_BETTER : V_WORSE;
	} else {
		mc->v = V_NONE;
	}
out:
	free(y[0]);
	free(y[1]);
}

/*
 * The smallest change this comparison finds with probability
 * IOP_MDE_POWER: the MDE of the same Welch test from the two sides' spread
 * and numbers of observations, relative to the base mean on the tested
 * scale (time per operation for rates).
 */
static void metric_mde(struct metric_cmp *mc, double alpha)
{
	const struct side_stats *b = &mc->s[0], *n = &mc->s[1];

	mc->mde = NAN;
	if (mc->why || !(fabs(b->tmean) > 0))
		return;
	if (b->tvar + n->tvar == 0) {
		mc->mde = 0;
		return;
	}
	mc->mde = iop_mde(b->tvar, b->n, n->tvar, n->n, alpha, IOP_MDE_POWER) / fabs(b->tmean);
}

static int note(struct notes *nt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int note(struct notes *nt, const char *fmt, ...)
{
	va_list ap;
	char *s, **v;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -ENOMEM;
	for (size_t i = 0; i < nt->n; i++) {
		if (!strcmp(nt->v[i], s)) {
			free(s);
			return 0;
		}
	}
	v = realloc(nt->v, (nt->n + 1) * sizeof(*v));
	if (!v) {
		free(s);
		return -ENOMEM;
	}
	nt->v = v;
	nt->v[nt->n++] = s;
	return 0;
}

static void notes_free(struct notes *nt)
{
	for (size_t i = 0; i < nt->n; i++)
		free(nt->v[i]);
	free(nt->v);
}

/*
 * What must match for two runs to be comparable. The kernel release and
 * version are left out on purpose: they are what differs.
 */
static const char *const env_fields[] = {
	"machine.cpu_model", "machine.cpus_online", "machine.nodes", "machine.hostname",
	"kernel.cmdline", "placement.requested", "placement.cpus", "placement.mems",
	"placement.node", "device.backing", "device.queue", "fs.type", "fs.mkfs_opts",
	"fs.mount_opts", "iopath.version",
};

/*
 * The kernel command line without the words that name the kernel image:
 * BOOT_IMAGE= (GRUB) and initrd= differ between a base and a patched
 * kernel by design. Returns a new string or NULL.
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

		if (!strncmp(tok, "BOOT_IMAGE=", 11) || !strncmp(tok, "initrd=", 7))
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

/* An env field as compared: the cmdline normalized, everything else as is. */
static json_t *env_get(json_t *rec, const char *field)
{
	json_t *v = iop_rs_env(rec, field);
	char *norm;

	if (!json_is_string(v) || strcmp(field, "kernel.cmdline"))
		return json_incref(v);
	norm = cmdline_norm(json_string_value(v));
	v = norm ? json_string(norm) : NULL;
	free(norm);
	return v;
}

static char *env_val(json_t *rec, const char *field)
{
	json_t *v = env_get(rec, field);
	char *s;

	if (!v || json_is_null(v))
		s = strdup("(none)");
	else if (json_is_string(v)) {
		if (asprintf(&s, "\"%s\"", json_string_value(v)) < 0)
			s = NULL;
	} else
		s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	json_decref(v);
	return s;
}

/* Note the fields in which @b and @n differ; returns how many. */
static int env_diff(struct notes *nt, json_t *b, json_t *n, const char *what)
{
	int diffs = 0;

	for (size_t i = 0; i < ARRAY_SIZE(env_fields); i++) {
		json_t *vb = env_get(b, env_fields[i]), *vn = env_get(n, env_fields[i]);
		bool same = (!vb || json_is_null(vb)) && (!vn || json_is_null(vn));
		char *sb, *sn;

		same = same || (vb && vn && json_equal(vb, vn));
		json_decref(vb);
		json_decref(vn);
		if (same)
			continue;
		sb = env_val(b, env_fields[i]);
		sn = env_val(n, env_fields[i]);
		note(nt, "environment differs (%s): %s: %s vs %s", what, env_fields[i],
		     sb ? sb : "?", sn ? sn : "?");
		free(sb);
		free(sn);
		diffs++;
	}
	return diffs;
}

static int metric_values(struct iop_rs_group *g, int side, const char *name, double **out,
			 size_t *n, json_t **first)
{
	double *v = calloc(g->n[side] ? g->n[side] : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	*first = NULL;
	for (size_t i = 0; i < g->n[side]; i++) {
		json_t *m = iop_rs_metric(g->recs[side][i], name);

		if (!m)
			continue;
		if (!*first)
			*first = m;
		v[k++] = json_number_value(json_object_get(m, "value"));
	}
	*out = v;
	*n = k;
	return 0;
}

static const char *rec_boot(json_t *rec)
{
	return iop_rs_env_str(rec, "kernel.boot_id");
}

static const char *rec_run(json_t *rec)
{
	return json_string_value(json_object_get(json_object_get(rec, "run"), "invocation"));
}

/*
 * The means of @v (the values of metric @name, in record order) per
 * distinct @key of their records into @means; returns how many, 0 when no
 * record has a key.
 */
static size_t unit_means(struct iop_rs_group *g, int side, const char *name, bool rate,
			 const char *(*key)(json_t *), const double *v, const char **keys,
			 double *means)
{
	size_t k = 0;
	bool known = false;

	for (size_t i = 0; i < g->n[side]; i++) {
		const char *id = key(g->recs[side][i]);

		if (!iop_rs_metric(g->recs[side][i], name))
			continue;
		known |= id && *id;
		keys[k++] = id ? id : "";
	}
	return known ? iop_group_means(v, keys, k, rate, means) : 0;
}

/*
 * Repetitions nested in boots: with records from two or more boots on a
 * side, the side's observations become one mean per boot (harmonic for
 * rates), because repetitions within one boot share page placement,
 * interrupt routing and frequency state and are not independent of each
 * other the way two boots are. With one boot but two or more runs of
 * iopath bench, the runs are the unit: separate runs of one boot differ
 * by more than their repetitions do (docs/benchmarks.md, "Resolution").
 * Otherwise the repetitions stay the observations. Either way short of
 * two boots, the between-boot variance is unknown (a note says so).
 */
static int boot_values(struct iop_rs_group *g, int side, const char *name, bool rate,
		       double *v, size_t *n, struct side_stats *ss)
{
	const char **keys = calloc(g->n[side] ? g->n[side] : 1, sizeof(*keys));
	double *means = malloc((g->n[side] ? g->n[side] : 1) * sizeof(*means));
	size_t nu;

	if (!keys || !means) {
		free(keys);
		free(means);
		return -ENOMEM;
	}
	ss->boots = unit_means(g, side, name, rate, rec_boot, v, keys, means);
	ss->by_boot = ss->boots >= 2;
	ss->runs = 0;
	ss->by_run = false;
	nu = ss->boots;
	if (!ss->by_boot) {
		ss->runs = unit_means(g, side, name, rate, rec_run, v, keys, means);
		ss->by_run = ss->runs >= 2;
		nu = ss->runs;
	}
	if (ss->by_boot || ss->by_run) {
		memcpy(v, means, nu * sizeof(*v));
		*n = nu;
	}
	free(means);
	free(keys);
	return 0;
}

static bool has_name(const char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static int compare_group(struct comparison *c, struct group_cmp *gc, double alpha)
{
	struct iop_rs_group *g = gc->g;
	const char **names = NULL;
	size_t nnames = 0;
	char *label = iop_rs_group_label(c->groups, c->ngroups, g);
	int ret = -ENOMEM;

	if (!label)
		return -ENOMEM;

	/* Metric names in the order the base records list them, then new-only ones. */
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < g->n[s]; i++) {
			json_t *m;
			size_t j;

			json_array_foreach(json_object_get(g->recs[s][i], "metrics"), j, m) {
				const char *name = json_string_value(json_object_get(m, "name"));
				const char **nn;

				if (has_name(names, nnames, name))
					continue;
				nn = realloc(names, (nnames + 1) * sizeof(*nn));
				if (!nn)
					goto out;
				names = nn;
				names[nnames++] = name;
			}
		}
	}
	gc->m = calloc(nnames ? nnames : 1, sizeof(*gc->m));
	if (!gc->m)
		goto out;

	for (size_t i = 0; i < nnames; i++) {
		double *vb = NULL, *vn = NULL;
		size_t nb, nn;
		json_t *mb, *mn;
		struct metric_cmp *mc;

		if (metric_values(g, 0, names[i], &vb, &nb, &mb) ||
		    metric_values(g, 1, names[i], &vn, &nn, &mn)) {
			free(vb);
			goto out;
		}
		if (!nb || !nn) {
			note(&c->notes, "metric only in %s: %s.%s (%s)",
			     nb ? c->base_path : c->new_path, g->bench, names[i], label);
			goto next;
		}
		if (!json_equal(json_object_get(mb, "better"), json_object_get(mn, "better")) ||
		    !json_equal(json_object_get(mb, "agg"), json_object_get(mn, "agg"))) {
			note(&c->notes, "not compared: %s.%s (%s): \"better\" or \"agg\" differs between the files",
			     g->bench, names[i], label);
			goto next;
		}
		mc = &gc->m[gc->nm++];
		mc->name = names[i];
		mc->unit = json_string_value(json_object_get(mb, "unit"));
		mc->higher = !strcmp(json_string_value(json_object_get(mb, "better")), "higher");
		mc->rate = !strcmp(json_string_value(json_object_get(mb, "agg")), "hmean");
		if (boot_values(g, 0, names[i], mc->rate, vb, &nb, &mc->s[0]) ||
		    boot_values(g, 1, names[i], mc->rate, vn, &nn, &mc->s[1])) {
			free(vb);
			free(vn);
			goto out;
		}
		compare_metric(vb, nb, vn, nn, alpha, mc);
		metric_mde(mc, alpha);
		if (mc->why && (nb < 2 || nn < 2))
			note(&c->notes, "not tested (%s): %s", label, mc->why);
		else if (mc->why)
			note(&c->notes, "not tested: %s.%s (%s): %s", g->bench, mc->name, label, mc->why);
next:
		free(vb);
		free(vn);
	}

	/*
	 * Untrusted records are compared, but never silently: one note per
	 * side, with the lines of the records and the first one's reasons.
	 */
	for (int s = 0; s < 2; s++) {
		char lines[256] = "", reasons[512] = "";
		size_t ll = 0, rl = 0, bad = 0;
		int first = 0;

		for (size_t i = 0; i < g->n[s]; i++) {
			json_t *rec = g->recs[s][i], *r;
			size_t j;

			if (!iop_rs_untrusted(rec))
				continue;
			if (ll < sizeof(lines))
				ll += snprintf(lines + ll, sizeof(lines) - ll, "%s%d", bad ? "," : "",
					       g->lines[s][i]);
			if (!bad++) {
				first = g->lines[s][i];
				json_array_foreach(json_object_get(rec, "untrusted"), j, r)
					if (json_is_string(r) && rl < sizeof(reasons))
						rl += snprintf(reasons + rl, sizeof(reasons) - rl, "%s%s",
							       rl ? "; " : "", json_string_value(r));
			}
		}
		if (!bad)
			continue;
		gc->untrusted = true;
		note(&c->notes, "untrusted: %zu of %zu %s records of %s (%s line%s %s); line %d: %s",
		     bad, g->n[s], s ? "new" : "base", label, s ? c->new_path : c->base_path,
		     bad == 1 ? "" : "s", lines, first, rl ? reasons : "no reason given");
	}

	/* Environment: new against base, and each side against itself. */
	if (env_diff(&c->notes, g->recs[0][0], g->recs[1][0], "base vs new"))
		gc->env_differs = true;
	for (int s = 0; s < 2; s++)
		for (size_t i = 1; i < g->n[s]; i++)
			if (env_diff(&c->notes, g->recs[s][0], g->recs[s][i],
				     s ? "between records of the new file" : "between records of the base file"))
				gc->env_differs = true;
	ret = 0;
out:
	free(names);
	free(label);
	return ret;
}

static void comparison_free(struct comparison *c)
{
	for (size_t i = 0; i < c->ngc; i++)
		free(c->gc[i].m);
	free(c->gc);
	iop_rs_groups_free(c->groups, c->ngroups);
	notes_free(&c->notes);
}

/* The number of distinct boot ids among @f's records (0: none recorded), the first in @id. */
static size_t file_boots(const struct iop_rs_file *f, const char **id)
{
	size_t nb = 0;

	*id = NULL;
	for (size_t i = 0; i < f->n; i++) {
		const char *b = iop_rs_env_str(f->recs[i], "kernel.boot_id");
		size_t j;

		if (!b)
			continue;
		for (j = 0; j < i; j++) {
			const char *o = iop_rs_env_str(f->recs[j], "kernel.boot_id");

			if (o && !strcmp(o, b))
				break;
		}
		if (j == i) {
			if (!nb)
				*id = b;
			nb++;
		}
	}
	return nb;
}

/* Say for each side whose spread lacks the between-boot part that its intervals are optimistic. */
static void boot_notes(struct comparison *c)
{
	const struct iop_rs_file *f[2] = { c->base, c->new };
	const char *path[2] = { c->base_path, c->new_path };

	for (int s = 0; s < 2; s++) {
		const char *id;
		size_t nb = file_boots(f[s], &id);

		if (nb == 1)
			note(&c->notes, "%s: every record from one boot (%.8s): the between-boot variance is unknown and the intervals are optimistic (run each side on two or more boots)",
			     path[s], id);
		else if (!nb)
			note(&c->notes, "%s: no boot ids in the records: the between-boot variance is unknown and the intervals are optimistic",
			     path[s]);
		for (size_t i = 0; nb >= 2 && i < c->ngc; i++) {
			struct group_cmp *gc = &c->gc[i];
			char *label;

			if (!gc->nm || gc->m[0].s[s].by_boot)
				continue;
			label = iop_rs_group_label(c->groups, c->ngroups, gc->g);
			note(&c->notes, "%s: %s: records from one boot: the between-boot variance is unknown and the intervals are optimistic",
			     path[s], label ? label : gc->g->bench);
			free(label);
		}
	}
}

/* Pair, check and compute; -errno with @why for input that cannot be compared. */
static int comparison_build(struct comparison *c, double alpha, char *why, size_t len)
{
	size_t paired = 0;
	int ret;

	ret = iop_rs_pair(c->base, c->new, &c->groups, &c->ngroups);
	if (ret) {
		snprintf(why, len, "%s", strerror(-ret));
		return ret;
	}
	ret = iop_rs_check(c->groups, c->ngroups, c->base_path, c->new_path, why, len);
	if (ret)
		return ret;
	c->gc = calloc(c->ngroups ? c->ngroups : 1, sizeof(*c->gc));
	if (!c->gc) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->ngroups; i++) {
		struct iop_rs_group *g = &c->groups[i];

		if (g->n[0] && g->n[1]) {
			paired++;
			continue;
		}
		char *label = iop_rs_group_label(c->groups, c->ngroups, g);

		note(&c->notes, "unpaired: only in %s: %s (%zu record%s, first at line %d)",
		     g->n[0] ? c->base_path : c->new_path, label ? label : g->bench,
		     g->n[0] + g->n[1], g->n[0] + g->n[1] == 1 ? "" : "s",
		     g->n[0] ? g->lines[0][0] : g->lines[1][0]);
		free(label);
	}
	if (!paired) {
		snprintf(why, len, "%s and %s have no benchmark with the same parameters in common",
			 c->base_path, c->new_path);
		return -ENOENT;
	}
	for (size_t i = 0; i < c->ngroups; i++) {
		if (!c->groups[i].n[0] || !c->groups[i].n[1])
			continue;
		c->gc[c->ngc].g = &c->groups[i];
		ret = compare_group(c, &c->gc[c->ngc++], alpha);
		if (ret) {
			snprintf(why, len, "%s", strerror(-ret));
			return ret;
		}
	}
	boot_notes(c);
	return 0;
}

/* ---- formatting ---- */

/* Numbers the way the robot prints them: integers from 1000 up, %.4g past 8 digits. */
static const char *fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else if (a >= 1e8)
		snprintf(buf, len, "%.4g", v);
	else if (a >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (a != 0 && a < 0.01)
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "%.2f", v);
	return buf;
}

static const char *fmt_pct(char *buf, size_t len, double frac)
{
	double p = 100 * frac;

	if (isnan(p))
		snprintf(buf, len, "n/a");
	else if (isinf(p))
		snprintf(buf, len, "%sinf", p > 0 ? "+" : "-");
	else if (fabs(p) >= 100000)
		snprintf(buf, len, "%+.2g%%", p);
	else
		snprintf(buf, len, "%+.1f%%", p);
	return buf;
}

/* " ± 5%", blank up to 2% as the robot does. */
static const char *fmt_rsd(char *buf, size_t len, const struct side_stats *s)
{
	if (isfinite(s->rsd) && s->n > 1 && 100 * s->rsd > 2)
		snprintf(buf, len, " ±%3.0f%%", 100 * s->rsd);
	else
		snprintf(buf, len, "      ");
	return buf;
}

static const char *fmt_ci(char *buf, size_t len, const struct metric_cmp *m)
{
	char lo[24], hi[24];

	if (isnan(m->ci_lo) || isnan(m->ci_hi))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "[%s, %s]", fmt_pct(lo, sizeof(lo), m->ci_lo),
			 fmt_pct(hi, sizeof(hi), m->ci_hi));
	return buf;
}

static const char *kernel_of(struct iop_rs_file *f)
{
	const char *r = f->n ? iop_rs_env_str(f->recs[0], "kernel.release") : NULL;

	return r ? r : "unknown";
}

static void print_notes(FILE *out, const struct notes *nt)
{
	if (!nt->n)
		return;
	fprintf(out, "\nnotes (a '?' after a verdict: untrusted records or another environment):\n");
	for (size_t i = 0; i < nt->n; i++)
		fprintf(out, "  ! %s\n", nt->v[i]);
}


static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The parameter names in sorted order; caller frees the array only. */
static const char **sorted_keys(json_t *params, size_t *n)
{
	const char **keys = calloc(json_object_size(params) + 1, sizeof(*keys)), *k;
	size_t i = 0;
	json_t *v;

	if (!keys)
		return NULL;
	json_object_foreach(params, k, v)
		keys[i++] = k;
	qsort(keys, i, sizeof(*keys), cmp_key);
	*n = i;
	return keys;
}

static void print_param_value(FILE *out, json_t *v, bool quote)
{
	char *s;

	if (json_is_string(v)) {
		const char *str = json_string_value(v);

		if (quote && (!*str || strpbrk(str, " \t'\"$`\\;&|<>()*?")))
			fprintf(out, "'%s'", str);
		else
			fputs(str, out);
		return;
	}
	s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	fputs(s ? s : "?", out);
	free(s);
}

/* The robot's two lines: "bs/fs/bench:" then "  4k/ext4/falloc_write". */
static void print_lkp_params(FILE *out, struct iop_rs_group *g)
{
	size_t n = 0;
	const char **keys = sorted_keys(g->params, &n);

	if (!keys)
		return;
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s/", keys[i]);
	fprintf(out, "bench:\n  ");
	for (size_t i = 0; i < n; i++) {
		print_param_value(out, json_object_get(g->params, keys[i]), false);
		fputc('/', out);
	}
	fprintf(out, "%s\n", g->bench);
	free(keys);
}

/*
 * "iopath bench --fs F --backing B NAME k=v ..." with every parameter the
 * record carries: the filesystem and backing are options of iopath bench,
 * not parameters, so they come from the record's environment.
 */
static void print_reproduce(FILE *out, struct iop_rs_group *g)
{
	json_t *rec = g->recs[0][0];
	const char *fs = g->fs_from_env ? json_string_value(json_object_get(g->params, "fs"))
					: iop_rs_env_str(rec, "fs.type");
	const char *backing = iop_rs_env_str(rec, "device.backing");
	const char *dev = iop_rs_env_str(rec, "device.name");
	const char *mnt = iop_rs_env_str(rec, "fs.mnt");
	size_t n = 0;
	const char **keys = sorted_keys(g->params, &n);

	fprintf(out, "iopath bench --fs %s", fs ? fs : "none");
	if (backing && !strcmp(backing, "loop"))
		fprintf(out, " --backing loop");
	else if (backing && !strcmp(backing, iop_backing_name(IOP_BACKING_DEVICE)) && dev)
		fprintf(out, " --backing dev:/dev/%s", dev);
	else if (backing && !strcmp(backing, "dir") && mnt)
		fprintf(out, " --backing 'dir:%s'", mnt);
	fprintf(out, " %s", g->bench);
	for (size_t i = 0; keys && i < n; i++) {
		json_t *v = json_object_get(g->params, keys[i]);

		/* "fs" is --fs; an empty value is the parameter's default. */
		if ((g->fs_from_env && !strcmp(keys[i], "fs")) ||
		    (json_is_string(v) && !*json_string_value(v)))
			continue;
		fprintf(out, " %s=", keys[i]);
		print_param_value(out, json_object_get(g->params, keys[i]), true);
	}
	fputc('\n', out);
	free(keys);
}

static void print_machine(FILE *out, json_t *rec)
{
	const char *cpu = iop_rs_env_str(rec, "machine.cpu_model");
	json_t *online = iop_rs_env(rec, "machine.cpus_online");
	const char *pin = iop_rs_env_str(rec, "placement.cpus");

	fprintf(out, "machine: %s", cpu ? cpu : "unknown CPU");
	if (json_is_string(online))
		fprintf(out, ", CPUs %s online", json_string_value(online));
	else if (json_is_integer(online))
		fprintf(out, ", %lld CPUs online", (long long)json_integer_value(online));
	if (pin && *pin)
		fprintf(out, ", pinned to CPU %s", pin);
	fputc('\n', out);
}

/* The metric the runs chose for their verdict (run.main_metric), when both sides agree. */
static const char *main_metric(const struct iop_rs_group *g)
{
	json_t *b = json_object_get(json_object_get(g->recs[0][0], "run"), "main_metric");
	json_t *n = json_object_get(json_object_get(g->recs[1][0], "run"), "main_metric");

	return json_is_string(b) && json_equal(b, n) ? json_string_value(b) : NULL;
}

/*
 * "; tested over boots: 2 base, 3 new" where a side has several, and the
 * main metric the runs chose for their verdict.
 */
static void print_boots(FILE *out, const struct group_cmp *gc)
{
	const struct side_stats *s = gc->nm ? gc->m[0].s : NULL;
	const char *main = main_metric(gc->g);

	if (main)
		fprintf(out, "; verdict metric %s", main);
	if (!s || !(s[0].by_boot || s[1].by_boot || s[0].by_run || s[1].by_run))
		return;
	fprintf(out, "; tested over");
	for (int i = 0; i < 2; i++)
		fprintf(out, "%s %zu %s (%s)", i ? " and" : "", s[i].n,
			s[i].by_boot ? "boots" : s[i].by_run ? "runs" : "repetitions",
			i ? "new" : "base");
}

/* "improvement", or "no significant change (could have seen >= 2.1%)" instead of a bare "-". */
static void verdict_text(char *buf, size_t len, const struct metric_cmp *m, bool caveat)
{
	if (m->v == V_NONE && isfinite(m->mde))
		snprintf(buf, len, "no significant change%s (could have seen >= %.1f%%)",
			 caveat ? "?" : "", 100 * m->mde);
	else
		snprintf(buf, len, "%s%s", verdict_name[m->v], caveat ? "?" : "");
}

static void print_text(FILE *out, struct comparison *c, const struct opts *o)
{
	int conf = (int)lround(100 * (1 - o->alpha));
	char hdr_b[17], hdr_n[28], ci_hdr[32];

	snprintf(ci_hdr, sizeof(ci_hdr), "%d%% CI of %%change", conf);
	fprintf(out, "base: %s (kernel %s, %zu records)\n", c->base_path, kernel_of(c->base), c->base->n);
	fprintf(out, "new:  %s (kernel %s, %zu records)\n", c->new_path, kernel_of(c->new), c->new->n);
	print_machine(out, c->base->recs[0]);
	fprintf(out, "test: Welch's t-test per metric at alpha %g over the repetitions; rates by\n"
		     "      harmonic mean (tested as 1/x); %d%% CI of %%change by Fieller's method\n",
		o->alpha, conf);
	fprintf(out, "      over boots (else runs) where a side has two or more; \"could have\n"
		     "      seen\": the change the test finds with %.0f%% power\n", 100 * IOP_MDE_POWER);
	print_notes(out, &c->notes);

	snprintf(hdr_b, sizeof(hdr_b), "%s", kernel_of(c->base));
	snprintf(hdr_n, sizeof(hdr_n), "%s", kernel_of(c->new));
	for (size_t i = 0; i < c->ngc; i++) {
		struct group_cmp *gc = &c->gc[i];
		struct iop_rs_group *g = gc->g;

		fprintf(out, "\n=========================================================================================\n");
		print_lkp_params(out, g);
		fprintf(out, "\nruns: %zu base, %zu new%s%s", g->n[0], g->n[1],
			gc->untrusted ? "; untrusted records, see notes" : "",
			gc->env_differs ? "; environment differs, see notes" : "");
		print_boots(out, gc);
		fprintf(out, "\n\n");
		fprintf(out, "%-16s %s\n", hdr_b, hdr_n);
		fprintf(out, "---------------- --------------------------- \n");
		fprintf(out, "         %%stddev     %%change         %%stddev  %20s  verdict\n", ci_hdr);
		fprintf(out, "             \\          |                \\  \n");
		for (size_t j = 0; j < gc->nm; j++) {
			struct metric_cmp *m = &gc->m[j];
			char b[32], n[32], rb[16], rn[16], ch[24], ci[48], vd[80];

			verdict_text(vd, sizeof(vd), m, gc->untrusted || gc->env_differs);
			fprintf(out, "%10s%s%11s%11s%s  %20s  %-12s %s.%s\n",
				fmt_num(b, sizeof(b), m->s[0].mean), fmt_rsd(rb, sizeof(rb), &m->s[0]),
				fmt_pct(ch, sizeof(ch), m->change),
				fmt_num(n, sizeof(n), m->s[1].mean), fmt_rsd(rn, sizeof(rn), &m->s[1]),
				fmt_ci(ci, sizeof(ci), m), vd, g->bench, m->name);
		}
	}
}

/* What the unchanged metrics could have shown, one line per group. */
static void print_commit_mde(FILE *out, struct comparison *c)
{
	fprintf(out, "Could have seen (%.0f%% power):\n", 100 * IOP_MDE_POWER);
	for (size_t i = 0; i < c->ngc; i++) {
		struct group_cmp *gc = &c->gc[i];
		char *label = NULL;
		int k = 0;

		for (size_t j = 0; j < gc->nm; j++) {
			struct metric_cmp *m = &gc->m[j];

			if (m->v != V_NONE || !isfinite(m->mde))
				continue;
			if (!k++) {
				label = iop_rs_group_label(c->groups, c->ngroups, gc->g);
				fprintf(out, "  %s:", label ? label : gc->g->bench);
			}
			fprintf(out, "%s %s >= %.1f%%", k > 1 ? "," : "", m->name, 100 * m->mde);
		}
		if (k)
			fputc('\n', out);
		free(label);
	}
}

/* A block to paste into a commit message: the significant changes only. */
static void print_commit(FILE *out, struct comparison *c, const struct opts *o)
{
	int conf = (int)lround(100 * (1 - o->alpha));
	size_t total = 0, changed = 0;

	for (size_t i = 0; i < c->ngc; i++) {
		total += c->gc[i].nm;
		for (size_t j = 0; j < c->gc[i].nm; j++)
			changed += c->gc[i].m[j].v == V_BETTER || c->gc[i].m[j].v == V_WORSE;
	}
	fprintf(out, "iopath compare, kernel %s (base) vs %s (new)\n", kernel_of(c->base), kernel_of(c->new));
	print_machine(out, c->base->recs[0]);
	fprintf(out, "Welch's t-test over repetitions, alpha %g; %d%% CI of the change\n", o->alpha, conf);

	for (size_t i = 0; i < c->ngc; i++) {
		struct group_cmp *gc = &c->gc[i];
		bool header = false;

		for (size_t j = 0; j < gc->nm; j++) {
			struct metric_cmp *m = &gc->m[j];
			char b[32], n[32], ch[24], ci[48];

			if (m->v != V_BETTER && m->v != V_WORSE)
				continue;
			if (!header) {
				char *label = iop_rs_group_label(c->groups, c->ngroups, gc->g);

				fprintf(out, "\n%s (%zu vs %zu runs):\n", label ? label : gc->g->bench,
					gc->g->n[0], gc->g->n[1]);
				free(label);
				fprintf(out, "%12s %12s %9s  %-20s %s\n", "base", "new", "change",
					"CI", "metric");
				header = true;
			}
			fprintf(out, "%12s %12s %9s  %-20s %s%s (%s)\n",
				fmt_num(b, sizeof(b), m->s[0].mean), fmt_num(n, sizeof(n), m->s[1].mean),
				fmt_pct(ch, sizeof(ch), m->change), fmt_ci(ci, sizeof(ci), m),
				m->name, gc->untrusted || gc->env_differs ? "?" : "",
				m->v == V_BETTER ? "better" : "worse");
		}
		if (header) {
			fprintf(out, "reproduce: ");
			print_reproduce(out, gc->g);
		}
	}
	if (changed < total) {
		fprintf(out, "\nNo significant change in %s%zu metric%s.\n", changed ? "the other " : "",
			total - changed, total - changed == 1 ? "" : "s");
		print_commit_mde(out, c);
	}
	if (c->notes.n) {
		fprintf(out, "\nCaveats ('?': untrusted records or another environment):\n");
		for (size_t i = 0; i < c->notes.n; i++)
			fprintf(out, "- %s\n", c->notes.v[i]);
	}
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *side_json(const struct side_stats *s)
{
	json_t *o = json_pack("{s:I, s:o, s:o, s:s, s:I}", "n", (json_int_t)s->n,
			      "mean", jnum(s->mean), "rsd", jnum(s->rsd),
			      "unit", s->by_boot ? "boots" : s->by_run ? "runs" : "repetitions",
			      "boots", (json_int_t)s->boots);

	if (o)
		json_object_set_new(o, "runs", json_integer((json_int_t)s->runs));
	return o;
}

static json_t *comparison_json(struct comparison *c)
{
	json_t *groups = json_array(), *notes = json_array(), *cmp;

	for (size_t i = 0; i < c->notes.n; i++)
		json_array_append_new(notes, json_string(c->notes.v[i]));
	for (size_t i = 0; i < c->ngc; i++) {
		struct group_cmp *gc = &c->gc[i];
		json_t *metrics = json_array();

		for (size_t j = 0; j < gc->nm; j++) {
			struct metric_cmp *m = &gc->m[j];
			json_t *o = json_pack("{s:s, s:s?, s:s, s:s, s:o, s:o, s:o, s:[o, o], s:o, s:o, s:o, s:s}",
					      "name", m->name, "unit", m->unit,
					      "better", m->higher ? "higher" : "lower",
					      "mean", m->rate ? "harmonic" : "arithmetic",
					      "base", side_json(&m->s[0]), "new", side_json(&m->s[1]),
					      "change", jnum(m->change),
					      "ci", jnum(m->ci_lo), jnum(m->ci_hi),
					      "t", jnum(m->t), "df", jnum(m->df), "p", jnum(m->p),
					      "verdict", verdict_json[m->v]);

			if (o)
				json_object_set_new(o, "mde", jnum(m->mde));
			if (o && m->why)
				json_object_set_new(o, "why_not_tested", json_string(m->why));
			json_array_append_new(metrics, o);
		}
		json_array_append_new(groups, json_pack("{s:s, s:O, s:{s:I, s:I}, s:b, s:b, s:o, s:s?}",
			"bench", gc->g->bench, "params", gc->g->params,
			"runs", "base", (json_int_t)gc->g->n[0], "new", (json_int_t)gc->g->n[1],
			"untrusted", gc->untrusted, "env_differs", gc->env_differs,
			"metrics", metrics, "main_metric", main_metric(gc->g)));
	}
	cmp = json_pack("{s:{s:s, s:s, s:I}, s:{s:s, s:s, s:I}, s:o, s:o}",
			"base", "file", c->base_path, "kernel", kernel_of(c->base), "records", (json_int_t)c->base->n,
			"new", "file", c->new_path, "kernel", kernel_of(c->new), "records", (json_int_t)c->new->n,
			"notes", notes, "groups", groups);
	return cmp;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: iopath compare BASE NEW [NEW...] [--format text|commit|json] [--alpha A]\n"
		   "                      [--fail-on-regression]\n"
		   "Compare benchmark records (JSON Lines from iopath bench) of a base and new runs:\n"
		   "per metric the means, %%change, its confidence interval and a verdict from\n"
		   "Welch's t-test over the repetitions. docs/compare.md explains the statistics.\n"
		   "  --format text    the kernel test robot's table (default)\n"
		   "  --format commit  the significant changes, for a commit message\n"
		   "  --format json    everything, for programs\n"
		   "  --alpha A        significance level, 0 < A < 0.5 (default 0.05: 95%% CI)\n"
		   "  --fail-on-regression  exit 1 if any metric regressed\n");
}

/* Options into @o; -1 to go on, else the exit status. Operands from optind. */
static int parse_opts(int argc, char **argv, struct opts *o, bool *fail_on_regression)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "format", required_argument, NULL, 'f' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "fail-on-regression", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int opt;

	optind = 0;
	while ((opt = iop_getopt(argc, argv, "compare", "h", longopts)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 0;
		case 'f':
			if (!strcmp(optarg, "text"))
				o->format = F_TEXT;
			else if (!strcmp(optarg, "commit"))
				o->format = F_COMMIT;
			else if (!strcmp(optarg, "json"))
				o->format = F_JSON;
			else
				return iop_usage_error("compare", "--format must be text, commit or json, not '%s'",
						       optarg);
			break;
		case 'a':
			errno = 0;
			o->alpha = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->alpha > 0 && o->alpha < 0.5))
				return iop_usage_error("compare", "--alpha must be a number in (0, 0.5), not '%s'",
						       optarg);
			break;
		case 'r':
			*fail_on_regression = true;
			break;
		default:
			return 2;
		}
	}
	return -1;
}

static int cmd_compare(int argc, char **argv)
{
	struct opts o = { .format = F_TEXT, .alpha = 0.05 };
	bool fail_on_regression = false, regressed = false;
	const char **paths;
	struct iop_rs_file *files = NULL;
	struct comparison *cmps = NULL;
	size_t npaths = 0, nloaded = 0, ncmp = 0;
	char why[512];
	int ret = 2;

	ret = parse_opts(argc, argv, &o, &fail_on_regression);
	if (ret >= 0)
		return ret;
	ret = 2;
	paths = (const char **)argv + optind;
	npaths = (size_t)(argc - optind);
	if (npaths < 2) {
		ret = iop_usage_error("compare", "need a BASE and at least one NEW file (iopath compare --help)");
		goto out;
	}

	/* GSL's default handler abort()s; every input is checked before it is used. */
	gsl_set_error_handler_off();

	/* Read and check everything before printing anything. */
	files = calloc(npaths, sizeof(*files));
	cmps = calloc(npaths - 1, sizeof(*cmps));
	if (!files || !cmps) {
		ret = 1;
		goto out;
	}
	for (; nloaded < npaths; nloaded++) {
		if (iop_rs_load(&files[nloaded], paths[nloaded], why, sizeof(why)) < 0) {
			fprintf(stderr, "iopath: compare: %s\n", why);
			goto out;
		}
	}
	for (; ncmp < npaths - 1; ncmp++) {
		struct comparison *c = &cmps[ncmp];

		c->base_path = paths[0];
		c->new_path = paths[ncmp + 1];
		c->base = &files[0];
		c->new = &files[ncmp + 1];
		if (comparison_build(c, o.alpha, why, sizeof(why)) < 0) {
			fprintf(stderr, "iopath: compare: %s\n", why);
			ncmp++;
			goto out;
		}
	}

	if (o.format == F_JSON) {
		json_t *arr = json_array(), *doc;

		for (size_t i = 0; i < ncmp; i++)
			json_array_append_new(arr, comparison_json(&cmps[i]));
		doc = json_pack("{s:i, s:f, s:o}", "schema", 1, "alpha", o.alpha, "comparisons", arr);
		if (!doc || json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0) {
			fprintf(stderr, "iopath: compare: cannot encode JSON\n");
			json_decref(doc);
			ret = 1;
			goto out;
		}
		fputc('\n', stdout);
		json_decref(doc);
	} else {
		for (size_t i = 0; i < ncmp; i++) {
			if (i)
				printf("\n\n");
			if (o.format == F_TEXT)
				print_text(stdout, &cmps[i], &o);
			else
				print_commit(stdout, &cmps[i], &o);
		}
	}
	for (size_t i = 0; i < ncmp; i++)
		for (size_t j = 0; j < cmps[i].ngc; j++)
			for (size_t k = 0; k < cmps[i].gc[j].nm; k++)
				regressed |= cmps[i].gc[j].m[k].v == V_WORSE;
	ret = fflush(stdout) ? 1 : (fail_on_regression && regressed ? 1 : 0);
out:
	for (size_t i = 0; i < ncmp; i++)
		comparison_free(&cmps[i]);
	for (size_t i = 0; i < nloaded; i++)
		iop_rs_free(&files[i]);
	free(cmps);
	free(files);
	return ret;
}

IOP_COMMAND("compare", "compare benchmark records of a base and a new run: table, commit text, JSON", cmd_compare)
