// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath bench --calibrate NAME [params]: measure, on this machine and with
 * these settings, what a comparison of two runs of NAME can resolve.
 *
 * A sequence of sides, each one or more (--runs) full runs of the job: A
 * (inject_ns=0), one side per known effect (inject_ns set so that the main
 * metric's time per operation grows by 1%, 2%, 5% ..., sized from the
 * first A), A again, and so on, ending with an A. Each effect side is
 * paired with the A before it, each A with the next A (an A/A pair spans
 * the effect sides between them, and any drift in that time). Each pair is
 * tested the way iopath compare tests it (Yuen over the repetitions'
 * values, or over the runs' trimmed means; 1/x for rates) at alpha 0.05,
 * and the report gives:
 *  - the A/A false-positive rate;
 *  - the detection rate of each effect, with its size from the injection's
 *    measured per-operation cost and the change the pairs showed;
 *  - the minimum detectable effect (MDE) at 95% power from what the pairs
 *    showed: the spread of the A/A differences, which holds the
 *    side-to-side variation that the spread within one side cannot show;
 *    next to it the MDE compare states from the within-side spread, and
 *    the MDE projected for a given time per side.
 * The spike-in is a busy-wait, so it is known only for metrics that are a
 * rate or a time per operation: a rate is measured on the wall clock, and
 * so waits on it; cpu_ns_per_op, the floors and CPU-clock ns per call on the
 * worker's own CPU clock. Every side's records go to the output file.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "calibrate.h"
#include "iopath.h"
#include "recset.h"

#define MAX_KV	96

struct side {
	double v[IOP_MAX_REPS];	/* main metric value per repetition */
	size_t n;
	double inject_measured;	/* per operation, from the record */
	int workers;
	double seconds;		/* wall time the side took */
	json_t *recs;		/* A and A' sides: the records, for every metric's spread */
};

int iop_calib_parse_effects(struct iop_calib_opts *o, const char *list)
{
	char buf[256], *save, *tok, *end;

	if (strlen(list) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", list);
	o->neffects = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		double e = strtod(tok, &end);

		if (end == tok || *end || !(e > 0 && e <= 50) ||
		    o->neffects == IOP_CALIB_MAX_EFFECTS)
			return -EINVAL;
		o->effects[o->neffects++] = e / 100;
	}
	return o->neffects ? 0 : -EINVAL;
}

static bool has_param(const struct iop_bench *b, const char *name)
{
	for (const struct iop_param *p = b->params; p && p->name; p++)
		if (!strcmp(p->name, name))
			return true;
	return false;
}

/*
 * The clock a known effect on @m must wait on, or NULL when a busy-wait
 * has no known effect on it (ratios, percentiles, the usr/sys split).
 */
static const char *inject_clock_for(const struct iop_run *r, const struct iop_metric *m)
{
	if (m->is_rate)
		return "wall";
	if (!strcmp(m->name, "cpu_ns_per_op") || !strcmp(m->name, "cpu_ns_floor"))
		return "cpu";
	if (strcmp(m->unit, "ns") || !strncmp(m->name, "lat_", 4) || !strncmp(m->name, "cpu_", 4))
		return NULL;
	/* per-call times of benchmarks with a clock= choice (read_vs_readv) */
	if (has_param(r->bench, "clock"))
		return iop_is(r, "clock", "cpu") ? "cpu" : "wall";
	return NULL;
}

/*
 * One side: @runs runs of the job. With one run its values are the main
 * metric of each repetition; with several, each run's trimmed mean (of
 * 1/x for a rate, given back as a rate), the observations iopath compare
 * tests a file with several runs of one boot by.
 */
static int run_side(char **kv, int nkv, uint64_t inject_ns, const char *clock, const char *metric,
		    bool rate, int runs, iop_calib_side_fn fn, void *arg, struct side *s, char *why,
		    size_t len)
{
	char *all[MAX_KV + 2], a1[48], a2[48];
	json_t *recs = json_array(), *rec;
	double v[IOP_MAX_REPS], tm, se2;
	uint64_t t0 = iop_now_ns();
	size_t i, nv;
	int n = 0, ret = 0;

	if (!recs)
		return -ENOMEM;
	for (int k = 0; k < nkv && n < MAX_KV; k++)
		all[n++] = kv[k];
	snprintf(a1, sizeof(a1), "inject_ns=%llu", (unsigned long long)inject_ns);
	snprintf(a2, sizeof(a2), "inject_clock=%s", clock);
	all[n++] = a1;
	all[n++] = a2;
	s->n = 0;
	s->workers = 1;
	s->inject_measured = 0;
	for (int r = 0; r < runs && !ret; r++) {
		json_t *run_recs = json_array();

		if (!run_recs) {
			ret = -ENOMEM;
			break;
		}
		ret = fn(arg, all, n, run_recs, why, len);
		nv = 0;
		json_array_foreach(run_recs, i, rec) {
			double x = iop_record_value(rec, metric);
			json_t *run = json_object_get(rec, "run");
			json_t *workers = json_object_get(run, "workers");

			if (isfinite(x) && nv < IOP_MAX_REPS)
				v[nv++] = x;
			if (json_integer_value(workers) > 0)
				s->workers = (int)json_integer_value(workers);
			s->inject_measured = json_number_value(
				json_object_get(json_object_get(run, "inject"), "measured_ns"));
			json_array_append(recs, rec);
		}
		json_decref(run_recs);
		if (runs == 1) {
			for (i = 0; i < nv; i++)
				s->v[s->n++] = v[i];
		} else if (nv && iop_trimmed(v, nv, rate, &tm, &se2)) {
			s->v[s->n++] = rate ? 1 / tm : tm;
		}
	}
	s->seconds = (double)(iop_now_ns() - t0) / 1e9;
	s->recs = inject_ns ? NULL : json_incref(recs);
	json_decref(recs);
	if (!ret && s->n < 2) {
		snprintf(why, len, "a side gave %zu value%s of %s; the calibration needs %s >= 2",
			 s->n, s->n == 1 ? "" : "s", metric, runs == 1 ? "reps" : "--runs");
		ret = -EINVAL;
	}
	return ret;
}

/*
 * The main metric's trimmed mean on the tested scale (time per operation
 * in ns for a rate: @workers threads each doing 1/x of the time), and the
 * squared relative standard error of it that iopath compare would use.
 */
static double side_est(const struct side *s, bool rate, double *rel_se2, size_t *h)
{
	double tmean, se2;

	*h = iop_trimmed(s->v, s->n, rate, &tmean, &se2);
	*rel_se2 = se2 / (tmean * tmean);
	return rate ? 1e9 * s->workers * tmean : tmean;
}

static double time_per_op(const struct side *s, bool rate)
{
	double se2;
	size_t h;

	return side_est(s, rate, &se2, &h);
}

static double mde_factor(double df, double alpha)
{
	return gsl_cdf_tdist_Pinv(1 - alpha / 2, df) + gsl_cdf_tdist_Pinv(0.95, df);
}

static void loadavg(char *buf, size_t len)
{
	FILE *f = fopen("/proc/loadavg", "r");

	snprintf(buf, len, "?");
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

struct tally {
	int flagged;		/* pairs called significant (right direction for effects) */
	double rel[IOP_MAX_REPS];	/* the change each pair showed */
	int n;
	double mde_stated[IOP_MAX_REPS];	/* what compare would state for the pair */
	double inject_measured;
};

static void tally_pair(struct tally *t, const struct side *a, const struct side *b, bool rate,
		       double alpha, bool want_increase)
{
	double rel, p = iop_yuen_p(a->v, a->n, b->v, b->n, rate, &rel), va, vb;
	size_t ha, hb;

	side_est(a, rate, &va, &ha);
	side_est(b, rate, &vb, &hb);
	if (p < alpha && (!want_increase || rel > 0))
		t->flagged++;
	if (t->n < IOP_MAX_REPS) {
		t->rel[t->n] = rel;
		t->mde_stated[t->n] = iop_mde(va, ha, vb, hb, alpha, 0.95);
		t->n++;
	}
}

/*
 * One metric's values in @recs on the tested scale (1/x for rates): per
 * repetition, or with @by_run each run's trimmed mean, as the side's main
 * metric was taken.
 */
static size_t metric_vals(json_t *recs, const char *name, bool by_run, double *v)
{
	const char *key[IOP_MAX_REPS];
	size_t i, n = 0;
	json_t *rec;

	json_array_foreach(recs, i, rec) {
		json_t *m = iop_rs_metric(rec, name);
		double x = json_number_value(json_object_get(m, "value"));
		bool rate = !strcmp(json_string_value(json_object_get(m, "agg")) ?: "", "hmean");

		if (m && isfinite(x) && (!rate || x > 0) && n < IOP_MAX_REPS) {
			key[n] = json_string_value(json_object_get(json_object_get(rec, "run"),
								   "invocation")) ?: "";
			v[n++] = rate ? 1 / x : x;
		}
	}
	return by_run ? iop_group_means(v, key, n, false, v) : n;
}

/*
 * Which metric varies least here: for every metric of the A sides, the
 * median within-side cv, the rms of the A/A relative differences and how
 * many A/A pairs the test called a change.
 */
static void report_spread(FILE *out, const struct side *a, const struct side *a2, int pairs,
			  bool by_run, double alpha)
{
	double *x = malloc(2 * IOP_MAX_REPS * sizeof(*x)), *y = x + IOP_MAX_REPS;
	double *cv = calloc((size_t)pairs, sizeof(*cv));
	json_t *m;
	size_t j;

	if (!x || !cv)
		goto out;
	fprintf(out, "spread of every metric over the A/A pairs (cv within a side, median; rms of the\n"
		     "A/A differences; A/A pairs flagged):\n");
	json_array_foreach(json_object_get(json_array_get(a[0].recs, 0), "metrics"), j, m) {
		const char *name = json_string_value(json_object_get(m, "name"));
		double d2 = 0, rel;
		int flagged = 0, k = 0;

		for (int i = 0; i < pairs; i++) {
			size_t nx = metric_vals(a[i].recs, name, by_run, x);
			size_t ny = metric_vals(a2[i].recs, name, by_run, y);
			double p = iop_yuen_p(x, nx, y, ny, false, &rel);

			if (nx < 2 || ny < 2 || !isfinite(rel))
				continue;
			cv[k++] = iop_cv(x, nx);
			d2 += rel * rel;
			flagged += p < alpha;
		}
		if (k)
			fprintf(out, "  %-24s cv %6.2f%%  A/A rms %7.2f%%  flagged %d of %d\n", name,
				100 * iop_median(cv, (size_t)k), 100 * sqrt(d2 / k), flagged, k);
	}
out:
	free(x);
	free(cv);
}

static void report(FILE *out, const struct iop_calib_opts *o, const char *metric, bool rate,
		   const struct side *a, int nsides, const struct tally *aa, const struct tally *eff,
		   const uint64_t *inject, double t_base, double side_s)
{
	double se2 = 0, v, d2 = 0, sb2, df, mde_pairs, n = (double)a[0].n, rep_s, nt, k;
	const char *unit = o->runs > 1 ? "runs" : "repetitions";
	size_t h = 0;

	for (int i = 0; i < nsides; i++) {
		side_est(&a[i], rate, &v, &h);
		se2 += v / nsides;	/* squared relative standard error of one side */
	}
	for (int i = 0; i < aa->n; i++)
		d2 += aa->rel[i] * aa->rel[i];
	d2 /= aa->n;		/* A/A: mean square of the relative differences */
	df = 2 * (double)h - 2;
	mde_pairs = mde_factor(df, o->alpha) * sqrt(d2);
	fprintf(out, "time per operation (A sides): %.1f ns; %.0f %s per side, %zu kept after trimming;\n"
		     "A/A pairs: rms difference %.2f%% (the sides' standard errors alone predict %.2f%%)\n",
		t_base, n, unit, h, 100 * sqrt(d2), 100 * sqrt(2 * se2));
	fprintf(out, "A/A: %d of %d pairs flagged a change (%.1f%%, alpha %g)\n", aa->flagged,
		aa->n, 100.0 * aa->flagged / aa->n, o->alpha);
	for (int e = 0; e < o->neffects; e++) {
		const struct tally *t = &eff[e];

		fprintf(out, "effect %g%%: inject_ns=%llu, measured %.1f ns per operation = %.2f%%: detected in %d of %d pairs (%.0f%%), observed change median %+.2f%%\n",
			100 * o->effects[e], (unsigned long long)inject[e], t->inject_measured,
			100 * t->inject_measured / t_base, t->flagged, t->n,
			100.0 * t->flagged / t->n, 100 * iop_median(t->rel, (size_t)t->n));
	}
	fprintf(out, "MDE at 95%% power, alpha %g, %.0f %s per side (%.1f s per side):\n"
		     "  from the A/A pairs (what the pairs showed): %.2f%%\n"
		     "  as iopath compare states it (the sides' standard errors, median over the A/A pairs): %.2f%%\n",
		o->alpha, n, unit, side_s, 100 * mde_pairs,
		100 * iop_median(aa->mde_stated, (size_t)aa->n));
	/* projection: the between-side part stays, the standard error shrinks with reps */
	sb2 = d2 / 2 - se2;
	if (sb2 < 0)
		sb2 = 0;
	rep_s = side_s / n;
	nt = floor(o->side_time / rep_s);
	if (nt >= 2) {
		k = nt - 2 * (double)iop_trim_count((size_t)nt);
		fprintf(out, "  for %.0f s per side (%.0f %s): %.2f%% (between-side part %.2f%%)\n",
			o->side_time, nt, unit,
			100 * mde_factor(2 * k - 2, o->alpha) * sqrt(2 * sb2 + 2 * se2 * n / nt),
			100 * sqrt(2 * sb2));
	}
	/*
	 * The same time as k runs like these, tested over the runs (compare
	 * does when a side's file holds several): each run's mean differs
	 * from the next by the measured A/A spread, and k of them average it.
	 */
	nt = floor(o->side_time / side_s);
	if (nt >= 2)
		fprintf(out, "  for %.0f s per side as %.0f runs like these, tested over the runs: %.2f%%\n",
			o->side_time, nt, 100 * mde_factor(2 * nt - 2, o->alpha) * sqrt(d2 / nt));
	fprintf(out, "(%s, tested as %s)\n", metric,
		rate ? "time per operation, 1/x, 20%-trimmed mean" : "its 20%-trimmed mean");
}

int iop_calib_check(const struct iop_bench *b, char **kv, int nkv, char *why, size_t len)
{
	struct iop_run proto = { 0 };
	const struct iop_metric *m;
	const char *metric;
	int ret;

	ret = iop_params_parse(b, &proto, kv, nkv, why, len);
	if (ret)
		return ret;
	metric = iop_main_metric(&proto);
	m = iop_metric_decl(b, metric);
	if (!m || !inject_clock_for(&proto, m)) {
		snprintf(why, len, "main_metric=%s: a busy-wait has no known effect on it; calibrate a rate (ops/s), cpu_ns_per_op or the ns per call of a benchmark with clock=",
			 metric);
		return -EINVAL;
	}
	return 0;
}

int iop_calibrate(const struct iop_bench *b, char **kv, int nkv, const struct iop_calib_opts *o,
		  iop_calib_side_fn fn, void *arg, FILE *out, char *why, size_t len)
{
	struct iop_run proto = { 0 };
	const struct iop_metric *m;
	const char *metric, *clock;
	struct side *a = NULL, *bs = NULL;
	struct tally *aa = NULL, *eff = NULL;
	uint64_t inject[IOP_CALIB_MAX_EFFECTS];
	double t_probe, t_base = 0, side_s = 0;
	char load0[128], load1[128];
	int ret;

	ret = iop_calib_check(b, kv, nkv, why, len);
	if (ret)
		return ret;
	iop_params_parse(b, &proto, kv, nkv, why, len);
	metric = iop_main_metric(&proto);
	m = iop_metric_decl(b, metric);
	clock = inject_clock_for(&proto, m);
	a = calloc((size_t)o->pairs + 1, sizeof(*a));
	bs = calloc((size_t)o->neffects, sizeof(*bs));
	aa = calloc(1, sizeof(*aa));
	eff = calloc((size_t)o->neffects, sizeof(*eff));
	if (!a || !bs || !aa || !eff) {
		ret = -ENOMEM;
		goto out;
	}
	loadavg(load0, sizeof(load0));
	/* the first A side also sizes the effects */
	fprintf(stderr, "iopath: bench --calibrate %s: A side 1 of %d\n", b->name, o->pairs + 1);
	ret = run_side(kv, nkv, 0, clock, metric, m->is_rate, o->runs, fn, arg, &a[0], why, len);
	if (ret)
		goto out;
	t_probe = time_per_op(&a[0], m->is_rate);
	for (int e = 0; e < o->neffects; e++)
		inject[e] = (uint64_t)llround(o->effects[e] * t_probe) ?: 1;
	for (int i = 0; i < o->pairs; i++) {
		for (int e = 0; !ret && e < o->neffects; e++) {
			ret = run_side(kv, nkv, inject[e], clock, metric, m->is_rate, o->runs, fn,
				       arg, &bs[e], why, len);
			if (!ret) {
				tally_pair(&eff[e], &a[i], &bs[e], m->is_rate, o->alpha, true);
				eff[e].inject_measured += bs[e].inject_measured / o->pairs;
			}
		}
		fprintf(stderr, "iopath: bench --calibrate %s: A side %d of %d\n", b->name, i + 2,
			o->pairs + 1);
		if (!ret)
			ret = run_side(kv, nkv, 0, clock, metric, m->is_rate, o->runs, fn, arg,
				       &a[i + 1], why, len);
		if (ret)
			goto out;
		tally_pair(aa, &a[i], &a[i + 1], m->is_rate, o->alpha, false);
	}
	for (int i = 0; i <= o->pairs; i++) {
		t_base += time_per_op(&a[i], m->is_rate) / (o->pairs + 1);
		side_s += a[i].seconds / (o->pairs + 1);
	}
	loadavg(load1, sizeof(load1));
	fprintf(out, "calibration of %s: main metric %s, %d pairs of each kind over %d sides (A, %d effect%s, A, ...), alpha %g\n",
		b->name, metric, o->pairs, (o->pairs + 1) + o->pairs * o->neffects, o->neffects,
		o->neffects == 1 ? "" : "s", o->alpha);
	fprintf(out, "load average: %s at the start, %s at the end\n", load0, load1);
	report(out, o, metric, m->is_rate, a, o->pairs + 1, aa, eff, inject, t_base, side_s);
	report_spread(out, a, a + 1, o->pairs, o->runs > 1, o->alpha);
out:
	for (int i = 0; a && i <= o->pairs; i++)
		json_decref(a[i].recs);
	free(a);
	free(bs);
	free(aa);
	free(eff);
	return ret;
}
