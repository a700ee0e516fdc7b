// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Building one comparison of iopath compare: the records of both files
 * paired into groups (shared_recset.c), each group's metrics with their
 * observations (repetitions, or per-run or per-boot means), and the notes
 * that keep nothing silent: unpaired groups, metrics on one side only,
 * untrusted records, environment differences, records from one boot.
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

#include "cli.h"
#include "iopath.h"
#include "compare.h"

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
 * Note the fields in which @b and @n differ (iop_rec_env_compared[]: the
 * texts are equal when the values are); returns how many.
 */
static int env_diff(struct notes *nt, const struct iop_rec *b, const struct iop_rec *n,
		    const char *what)
{
	int diffs = 0;

	for (size_t i = 0; i < IOP_REC_NENV; i++) {
		const char *vb = b->env.cmp[i], *vn = n->env.cmp[i];

		if (vb == vn || (vb && vn && !strcmp(vb, vn)))
			continue;
		note(nt, "environment differs (%s): %s: %s vs %s", what, iop_rec_env_compared[i],
		     vb ? vb : "(none)", vn ? vn : "(none)");
		diffs++;
	}
	return diffs;
}

static int metric_values(struct iop_rs_group *g, int side, const char *name, double **out,
			 size_t *n, const struct iop_rec_metric **first)
{
	double *v = calloc(g->n[side] ? g->n[side] : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	*first = NULL;
	for (size_t i = 0; i < g->n[side]; i++) {
		const struct iop_rec_metric *m = iop_rec_metric(g->recs[side][i], name);

		if (!m)
			continue;
		if (!*first)
			*first = m;
		v[k++] = m->value;
	}
	*out = v;
	*n = k;
	return 0;
}

/*
 * The largest quantum the records of @side give metric @name (the step
 * its slices move in, as a fraction of its value: docs/records.md), 0
 * for none.
 */
static double metric_quantum(struct iop_rs_group *g, int side, const char *name)
{
	double q = 0;

	for (size_t i = 0; i < g->n[side]; i++) {
		const struct iop_rec_metric *m = iop_rec_metric(g->recs[side][i], name);
		double v = m ? m->quantum : 0;

		if (isfinite(v) && v > q)
			q = v;
	}
	return q;
}

static const char *rec_boot(const struct iop_rec *rec)
{
	return rec->env.boot_id;
}

static const char *rec_run(const struct iop_rec *rec)
{
	return rec->run.invocation;
}

/*
 * The means of @v (the values of metric @name, in record order) per
 * distinct @key of their records into @means; returns how many, 0 when no
 * record has a key.
 */
static size_t unit_means(struct iop_rs_group *g, int side, const char *name, bool rate,
			 const char *(*key)(const struct iop_rec *), const double *v,
			 const char **keys,
			 double *means)
{
	size_t k = 0;
	bool known = false;

	for (size_t i = 0; i < g->n[side]; i++) {
		const char *id = key(g->recs[side][i]);

		if (!iop_rec_metric(g->recs[side][i], name))
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
 * by more than their repetitions do (docs/resolution.md).
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

/*
 * The round of each run of a side that has metric @name, in the order
 * unit_means() gives the runs (first appearance), into @round; the
 * pairing id into @id and its rounds per cycle into @cycle (the first
 * side's, which the second must match; 2 where run.pairing has no
 * "cycle", as records of the design before it, A B then B A, have none).
 * False unless every such record carries run.pairing of that id and
 * cycle and each run one round.
 */
static bool run_rounds(struct iop_rs_group *g, int side, const char *name, const char **id,
		       json_int_t *cycle, json_int_t *round, size_t n)
{
	const char **inv = calloc(n ? n : 1, sizeof(*inv));
	size_t k = 0, u;
	bool ok = inv;

	for (size_t i = 0; ok && i < g->n[side]; i++) {
		const struct iop_rec *rec = g->recs[side][i];
		const char *pid = rec->run.pairing_id;
		json_int_t k_cy = rec->run.cycle;

		if (!iop_rec_metric(rec, name))
			continue;
		ok = pid && rec->run.has_round && rec_run(rec) && (!*id || !strcmp(*id, pid)) &&
		     k_cy >= 2 && (!*cycle || *cycle == k_cy);
		if (!ok)
			break;
		*id = pid;
		*cycle = k_cy;
		for (u = 0; u < k && strcmp(inv[u], rec_run(rec)); u++)
			;
		if (u == k) {
			ok = k < n;
			if (ok) {
				inv[k] = rec_run(rec);
				round[k++] = rec->run.round;
			}
		} else {
			ok = round[u] == rec->run.round;
		}
	}
	free(inv);
	return ok && k == n;
}

/* @v (n values, one per run) into round order; false if a round repeats. */
static bool by_round(double *v, json_int_t *round, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		for (size_t j = i; j > 0 && round[j - 1] > round[j]; j--) {
			json_int_t r = round[j];
			double x = v[j];

			round[j] = round[j - 1];
			v[j] = v[j - 1];
			round[j - 1] = r;
			v[j - 1] = x;
		}
	}
	for (size_t i = 1; i < n; i++)
		if (round[i] == round[i - 1])
			return false;
	return true;
}

/*
 * Runs interleaved round by round (iopath bench --calibrate --interleave)
 * pair: when both sides are tested over runs, every record carries
 * run.pairing with one id and one cycle length k, each round holds one
 * run of each side and the rounds come in complete cycles (k j .. k j +
 * k - 1), @vb and @vn (the per-run means) are put in round order and k
 * is returned; 0 when they do not pair.
 */
static size_t pair_rounds(struct iop_rs_group *g, const char *name, const struct side_stats *s,
			  double *vb, double *vn, size_t n)
{
	json_int_t *rb = calloc(2 * n, sizeof(*rb)), *rn = rb + n, k = 0;
	const char *id = NULL;
	bool ok = rb && s[0].by_run && s[1].by_run && s[0].runs == n && s[1].runs == n;

	ok = ok && run_rounds(g, 0, name, &id, &k, rb, n) &&
	     run_rounds(g, 1, name, &id, &k, rn, n) &&
	     by_round(vb, rb, n) && by_round(vn, rn, n) && (json_int_t)n % k == 0;
	/* complete cycles of rounds: the unit of the design */
	for (size_t i = 0; ok && i < n; i++)
		ok = rb[i] == rn[i] &&
		     ((json_int_t)i % k ? rb[i] == rb[i - 1] + 1 : rb[i] % k == 0);
	free(rb);
	return ok ? (size_t)k : 0;
}

struct boot_unit {
	const char *id;
	char seed[COMPARE_SEED_MAX + 1];	/* "" none, or its records disagree */
	double *v;
	size_t n;
};

/*
 * The boots of side @s among the records with metric @name, in order of
 * first appearance, each with its values and its seed, into @out; how
 * many (0 when a record has no boot id). Caller frees @out and its v.
 */
static size_t boot_units(struct iop_rs_group *g, int s, const char *name, struct boot_unit **out)
{
	struct boot_unit *u = calloc(g->n[s] ? g->n[s] : 1, sizeof(*u));
	size_t nu = 0, k;
	bool ok = u;

	for (size_t i = 0; ok && i < g->n[s]; i++) {
		const struct iop_rec *rec = g->recs[s][i];
		const struct iop_rec_metric *m = iop_rec_metric(rec, name);
		const char *id = rec_boot(rec), *seed = compare_rec_seed(rec);

		if (!m)
			continue;
		ok = id && *id;
		if (!ok)
			break;
		for (k = 0; k < nu && strcmp(u[k].id, id); k++)
			;
		if (k == nu) {
			u[k].id = id;
			snprintf(u[k].seed, sizeof(u[k].seed), "%s", seed);
			u[k].v = malloc(g->n[s] * sizeof(double));
			ok = u[k].v;
			if (!ok)
				break;
			nu++;
		} else if (strcmp(u[k].seed, seed)) {
			u[k].seed[0] = '\0';
		}
		u[k].v[u[k].n++] = m->value;
	}
	if (!ok && u) {
		for (k = 0; k < nu; k++)
			free(u[k].v);
		memset(u, 0, g->n[s] * sizeof(*u));
		nu = 0;
	}
	*out = u;
	return nu;
}

static void boot_units_free(struct boot_unit *u, size_t n)
{
	for (size_t i = 0; u && i < n; i++)
		free(u[i].v);
	free(u);
}

/*
 * Each boot's median of metric @name into mc->boot_med (shown, so that a
 * boot that sits apart is seen), for sides of two or more boots. When
 * the boots of both sides pair one to one by seed (iopath ab gives boot i
 * of A and boot i of B one seed; iopath vm draws a new one otherwise,
 * and two never meet by chance), the new side's come in the base's order
 * and true is returned: the medians are then the pairs' values.
 */
static int boot_medians(struct iop_rs_group *g, const char *name, struct metric_cmp *mc,
			bool *by_seed)
{
	struct boot_unit *u[2] = { NULL, NULL };
	size_t n[2], order_ok = 0;
	int ret = 0;

	*by_seed = false;
	for (int s = 0; s < 2; s++)
		n[s] = boot_units(g, s, name, &u[s]);
	if (!u[0] || !u[1]) {
		ret = -ENOMEM;
		goto out;
	}
	if (n[0] < 2 || n[1] < 2)
		goto out;
	for (int s = 0; s < 2; s++) {
		mc->boot_med[s] = malloc(n[s] * sizeof(double));
		if (!mc->boot_med[s]) {
			ret = -ENOMEM;
			goto out;
		}
		mc->nboot[s] = n[s];
	}
	/* pairs: each base seed once on each side, every boot with one */
	for (size_t i = 0; n[0] == n[1] && i < n[0]; i++) {
		size_t j, k, dup = 0;

		for (k = 0; k < n[0]; k++)
			dup += !strcmp(u[0][k].seed, u[0][i].seed);
		for (j = 0; j < n[1] && strcmp(u[1][j].seed, u[0][i].seed); j++)
			;
		if (!u[0][i].seed[0] || dup != 1 || j == n[1])
			break;
		order_ok++;
	}
	*by_seed = n[0] == n[1] && order_ok == n[0];
	for (size_t i = 0; i < n[0]; i++)
		mc->boot_med[0][i] = iop_median(u[0][i].v, u[0][i].n);
	for (size_t i = 0; i < n[1]; i++) {
		size_t j = i;

		if (*by_seed)
			for (j = 0; strcmp(u[1][j].seed, u[0][i].seed); j++)
				;
		mc->boot_med[1][i] = iop_median(u[1][j].v, u[1][j].n);
	}
out:
	boot_units_free(u[0], n[0]);
	boot_units_free(u[1], n[1]);
	return ret;
}

static bool has_name(const char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* Metric names in the order the base records list them, then new-only ones. */
static int metric_names(struct iop_rs_group *g, const char ***out, size_t *nout)
{
	const char **names = NULL;
	size_t nnames = 0;

	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < g->n[s]; i++) {
			const struct iop_rec *rec = g->recs[s][i];

			for (size_t j = 0; j < rec->nmetrics; j++) {
				const char *name = rec->metrics[j].name;
				const char **nn;

				if (has_name(names, nnames, name))
					continue;
				nn = realloc(names, (nnames + 1) * sizeof(*nn));
				if (!nn) {
					free(names);
					return -ENOMEM;
				}
				names = nn;
				names[nnames++] = name;
			}
		}
	}
	*out = names;
	*nout = nnames;
	return 0;
}

/* Metric @name of @gc was not compared: @why (a new string; NULL: no memory) says why. */
static int skip(struct group_cmp *gc, const char *name, bool both, char *why)
{
	if (!why)
		return -ENOMEM;
	gc->skip[gc->nskip].name = name;
	gc->skip[gc->nskip].why = why;
	gc->skip[gc->nskip++].both = both;
	return 0;
}

static const char *better_word(const struct iop_rec_metric *m)
{
	return m->better == IOP_HIGHER_IS_BETTER ? "higher" : "lower";
}

/* Why metric @mb of the base and @mn of the new side are not compared (a new string). */
static char *differs(const struct iop_rec_metric *mb, const struct iop_rec_metric *mn)
{
	bool same_better = mb->better == mn->better;
	const char *b = same_better ? mb->agg : better_word(mb);
	const char *n = same_better ? mn->agg : better_word(mn);
	char *s;

	if (asprintf(&s, "\"%s\" is \"%s\" in the base records, \"%s\" in the new: the sides do not compare",
		     same_better ? "agg" : "better", b, n) < 0)
		return NULL;
	return s;
}

/*
 * Metric @name of the group: compared and added to gc->m when both sides
 * have it with the same "better" and "agg", else a note says why not and
 * gc->skip keeps it; -ERANGE with @why when its statistics are not finite
 * numbers.
 */
static int compare_one(struct comparison *c, struct group_cmp *gc, const char *name,
		       const char *label, double alpha, char *why, size_t len)
{
	const char *bad;
	struct iop_rs_group *g = gc->g;
	double *vb = NULL, *vn = NULL, quantum;
	size_t nb, nn, cycle;
	bool by_seed;
	const struct iop_rec_metric *mb, *mn;
	struct metric_cmp *mc;
	char *s;
	int ret = 0;

	if (metric_values(g, 0, name, &vb, &nb, &mb) ||
	    metric_values(g, 1, name, &vn, &nn, &mn)) {
		free(vb);
		return -ENOMEM;
	}
	if (!nb || !nn) {
		note(&c->notes, "metric only in %s: %s.%s (%s)",
		     nb ? c->base_path : c->new_path, g->bench, name, label);
		ret = skip(gc, name, false, asprintf(&s, "only in %s", nb ? c->base_path :
						     c->new_path) < 0 ? NULL : s);
		goto out;
	}
	if (mb->better != mn->better || strcmp(mb->agg, mn->agg)) {
		note(&c->notes, "not compared: %s.%s (%s): \"better\" or \"agg\" differs between the files",
		     g->bench, name, label);
		ret = skip(gc, name, true, differs(mb, mn));
		goto out;
	}
	mc = &gc->m[gc->nm++];
	mc->name = name;
	mc->unit = mb->unit;
	mc->higher = mb->better == IOP_HIGHER_IS_BETTER;
	mc->rate = iop_agg_is_rate(mb->agg);
	if (boot_values(g, 0, name, mc->rate, vb, &nb, &mc->s[0]) ||
	    boot_values(g, 1, name, mc->rate, vn, &nn, &mc->s[1])) {
		ret = -ENOMEM;
		goto out;
	}
	if (boot_medians(g, name, mc, &by_seed)) {
		ret = -ENOMEM;
		goto out;
	}
	cycle = by_seed ? 0 : pair_rounds(g, name, mc->s, vb, vn, nb);
	if (by_seed)
		mc->by_seed = compare_paired(mc->boot_med[0], mc->boot_med[1], mc->nboot[0], 1,
					     alpha, mc);
	else if (cycle)
		compare_paired(vb, vn, nb, cycle, alpha, mc);
	else
		compare_metric(vb, nb, vn, nn, alpha, mc);
	metric_mde(mc, alpha);
	/* slices counted in units resolve no change below one unit */
	quantum = fmax(metric_quantum(g, 0, name), metric_quantum(g, 1, name));
	if (mc->mde < quantum)
		mc->mde = quantum;
	bad = metric_not_finite(mc);
	if (bad) {
		snprintf(why, len, "%s vs %s: %s.%s (%s): %s: no verdict can rest on it",
			 c->base_path, c->new_path, g->bench, name, label, bad);
		ret = -ERANGE;
		goto out;
	}
	if (mc->why && (nb < 2 || nn < 2))
		note(&c->notes, "not tested (%s): %s", label, mc->why);
	else if (mc->why)
		note(&c->notes, "not tested: %s.%s (%s): %s", g->bench, mc->name, label, mc->why);
out:
	free(vb);
	free(vn);
	return ret;
}

/*
 * Untrusted records are compared, but never silently: one note per
 * side, with the lines of the records and the first one's reasons.
 */
static void note_untrusted(struct comparison *c, struct group_cmp *gc, const char *label)
{
	struct iop_rs_group *g = gc->g;

	for (int s = 0; s < 2; s++) {
		char lines[256] = "", reasons[512] = "";
		size_t ll = 0, rl = 0, bad = 0;
		int first = 0;

		for (size_t i = 0; i < g->n[s]; i++) {
			const struct iop_rec *rec = g->recs[s][i];

			if (!rec->untrusted)
				continue;
			if (ll < sizeof(lines))
				ll += snprintf(lines + ll, sizeof(lines) - ll, "%s%d", bad ? "," : "",
					       g->lines[s][i]);
			if (!bad++) {
				first = g->lines[s][i];
				for (size_t j = 0; j < rec->nuntrusted_reasons; j++)
					if (rl < sizeof(reasons))
						rl += snprintf(reasons + rl, sizeof(reasons) - rl,
							       "%s%s", rl ? "; " : "",
							       rec->untrusted_reasons[j]);
			}
		}
		if (!bad)
			continue;
		gc->untrusted = true;
		note(&c->notes, "untrusted: %zu of %zu %s records of %s (%s line%s %s); line %d: %s",
		     bad, g->n[s], s ? "new" : "base", label, s ? c->new_path : c->base_path,
		     bad == 1 ? "" : "s", lines, first, rl ? reasons : "no reason given");
	}
}

/*
 * run.main_metric of the records of @g: the one every record of both
 * sides names; NULL when none names one, or, with *@differs, when they
 * name different ones or only some name one.
 */
static const char *group_main(const struct iop_rs_group *g, bool *differs)
{
	const char *main = NULL;
	bool none = false;

	*differs = false;
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < g->n[s]; i++) {
			const char *v = g->recs[s][i]->run.main_metric;

			if (!v) {
				none = true;
				continue;
			}
			if (main && strcmp(main, v)) {
				*differs = true;
				return NULL;
			}
			main = v;
		}
	}
	*differs = main && none;
	return *differs ? NULL : main;
}

static int compare_group(struct comparison *c, struct group_cmp *gc, double alpha,
			 char *why, size_t len)
{
	struct iop_rs_group *g = gc->g;
	const char **names = NULL;
	size_t nnames = 0;
	char *label = iop_rs_group_label(c->groups, c->ngroups, g);
	int ret = -ENOMEM;

	if (!label)
		return -ENOMEM;
	if (metric_names(g, &names, &nnames))
		goto out;
	gc->m = calloc(nnames ? nnames : 1, sizeof(*gc->m));
	gc->skip = calloc(nnames ? nnames : 1, sizeof(*gc->skip));
	if (!gc->m || !gc->skip)
		goto out;
	gc->main = group_main(g, &gc->main_differs);
	for (size_t i = 0; i < nnames; i++) {
		ret = compare_one(c, gc, names[i], label, alpha, why, len);
		if (ret)
			goto out;
	}
	note_untrusted(c, gc, label);
	ret = compare_layout(gc, label);
	if (!ret && gc->layout_note)
		ret = note(&c->notes, "%s", gc->layout_note);
	if (ret)
		goto out;

	/* Environment: new against base, and each side against itself. */
	if (env_diff(&c->notes, g->recs[0][0], g->recs[1][0], "base vs new"))
		gc->env_differs = true;
	for (int s = 0; s < 2; s++)
		for (size_t i = 1; i < g->n[s]; i++)
			if (env_diff(&c->notes, g->recs[s][0], g->recs[s][i],
				     s ? "between records of the new file" :
					 "between records of the base file"))
				gc->env_differs = true;
	ret = 0;
out:
	free(names);
	free(label);
	return ret;
}

void comparison_free(struct comparison *c)
{
	for (size_t i = 0; i < c->ngc; i++) {
		for (size_t j = 0; j < c->gc[i].nm; j++) {
			free(c->gc[i].m[j].boot_med[0]);
			free(c->gc[i].m[j].boot_med[1]);
		}
		for (size_t j = 0; j < c->gc[i].nskip; j++)
			free(c->gc[i].skip[j].why);
		free(c->gc[i].skip);
		free(c->gc[i].m);
		json_decref(c->gc[i].layouts);
		free(c->gc[i].layout_first);
		free(c->gc[i].layout_note);
	}
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
		const char *b = f->recs[i]->env.boot_id;
		size_t j;

		if (!b)
			continue;
		for (j = 0; j < i; j++) {
			const char *o = f->recs[j]->env.boot_id;

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
int comparison_build(struct comparison *c, double alpha, char *why, size_t len)
{
	size_t paired = 0, compared = 0;
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
		ret = compare_group(c, &c->gc[c->ngc++], alpha, why, len);
		if (ret == -ERANGE)
			return ret;
		if (ret) {
			snprintf(why, len, "%s", strerror(-ret));
			return ret;
		}
	}
	/* metrics: [] on one side, or no name in common: an empty table is no answer */
	for (size_t i = 0; i < c->ngc; i++)
		compared += c->gc[i].nm;
	if (!compared) {
		snprintf(why, len, "%s and %s have no metric in common to compare", c->base_path,
			 c->new_path);
		return -ENODATA;
	}
	boot_notes(c);
	return 0;
}

const struct metric_cmp *group_verdict_metric(const struct group_cmp *gc)
{
	if (gc->main_differs)
		return NULL;
	for (size_t j = 0; gc->main && j < gc->nm; j++)
		if (!strcmp(gc->m[j].name, gc->main))
			return &gc->m[j];
	return gc->main || !gc->nm ? NULL : &gc->m[0];
}

/*
 * Why @m has no verdict, or NULL: not tested, or a figure of its verdict
 * line that is no finite number (an interval may be unbounded only
 * around "no significant change": Fieller's, when the base mean is not
 * clearly above 0).
 */
static const char *no_verdict(const struct metric_cmp *m, char *buf, size_t len)
{
	if (m->v == V_UNTESTED) {
		snprintf(buf, len, "not tested: %s", m->why ? m->why : "no test");
		return buf;
	}
	if (!isfinite(m->change) || !isfinite(m->mde) || isnan(m->ci_lo) || isnan(m->ci_hi))
		return "a figure of its verdict is not a finite number";
	if (m->v != V_NONE && !(isfinite(m->ci_lo) && isfinite(m->ci_hi)))
		return "the interval of its change is unbounded";
	return NULL;
}

/* Why the group @gc has no verdict metric to give a verdict on (none is NULL). */
static const char *no_verdict_metric(const struct group_cmp *gc, const char **name)
{
	*name = gc->main;
	if (gc->main_differs)
		return "its records do not all name one verdict metric (run.main_metric)";
	for (size_t j = 0; gc->main && j < gc->nskip; j++)
		if (!strcmp(gc->skip[j].name, gc->main))
			return gc->skip[j].why;
	if (gc->main)
		return "no record of either side has it";
	return "no metric of both sides compares";
}

/* "BASE vs NEW: bench.metric (label): WHAT: END" into @why; -EDOM. */
static int refuse(const struct comparison *c, const struct group_cmp *gc, const char *name,
		  const char *what, const char *end, char *why, size_t len)
{
	char *label = iop_rs_group_label(c->groups, c->ngroups, gc->g);

	snprintf(why, len, "%s vs %s: %s%s%s (%s): %s: %s", c->base_path, c->new_path,
		 gc->g->bench, name ? "." : "", name ? name : "", label ? label : gc->g->bench,
		 what, end);
	free(label);
	return -EDOM;
}

int comparison_verdicts(const struct comparison *c, bool verdict, bool all, char *why,
			size_t len)
{
	static const char gate[] = "--fail-on-regression cannot rule out a regression";
	const char *name, *bad;
	char buf[256], what[320];

	for (size_t i = 0; i < c->ngc; i++) {
		const struct group_cmp *gc = &c->gc[i];
		const struct metric_cmp *m = group_verdict_metric(gc);

		if (verdict) {
			bad = m ? no_verdict(m, buf, sizeof(buf)) : no_verdict_metric(gc, &name);
			name = m ? m->name : name;
			snprintf(what, sizeof(what), "the verdict metric: %s", bad ? bad : "");
			if (bad)
				return refuse(c, gc, name, what, "no verdict", why, len);
		}
		for (size_t j = 0; all && j < gc->nm; j++) {
			bad = no_verdict(&gc->m[j], buf, sizeof(buf));
			if (bad)
				return refuse(c, gc, gc->m[j].name, bad, gate, why, len);
		}
		for (size_t j = 0; all && j < gc->nskip; j++)
			if (gc->skip[j].both)
				return refuse(c, gc, gc->skip[j].name, gc->skip[j].why, gate, why, len);
	}
	return 0;
}
