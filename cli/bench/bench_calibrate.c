// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath bench --calibrate NAME [params]: measure, on this machine and with
 * these settings, what a comparison of two runs of NAME can resolve.
 *
 * Sides of one or more (--runs) full runs of the job each: A (inject_ns=0)
 * and one side per known effect (inject_ns set so that the main metric's
 * time per operation grows by 1%, 2%, 5% ..., sized from the first A run).
 * Sequential: A, the effects, A again, and so on, ending with an A; each
 * effect side is paired with the A before it, each A with the next A (an
 * A/A pair spans the effect sides between them, and any drift in that
 * time). Interleaved (--interleave): each pair is a block of sides A, A'
 * and the effects, run round by round, one run of each per round, in a
 * Williams design (side_at()), so that drift moves the block's sides
 * alike, a run's effect on the next falls on every side alike, and no side
 * runs twice in a row. Each pair is tested the way
 * iopath compare tests it (Yuen over the repetitions' values, over the
 * runs' trimmed means, or interleaved over the differences of cycles;
 * 1/x for rates) at alpha 0.05, and the report gives:
 *  - the A/A false-positive rate;
 *  - the detection rate of each effect, with its size from the injection's
 *    measured per-operation cost and the change the pairs showed;
 *  - the minimum detectable effect (MDE) at 95% power from what the pairs
 *    showed: the spread of the A/A differences, which holds the
 *    side-to-side variation that the spread within one side (or within
 *    one pair's differences) cannot show;
 *    next to it the MDE compare states from the within-side spread, and
 *    the MDE projected for a given time per side.
 * The spike-in is a busy-wait, so it is known only for metrics that are a
 * rate or a time per operation: a rate is measured on the wall clock, and
 * so waits on it; cpu_ns_per_op, the floors and CPU-clock ns per call on the
 * worker's own CPU clock. inject_clock=loop on the command line injects a
 * count of loop iterations instead, for either kind, with no clock read in
 * the timed loop: the count for each effect is sized once, in context,
 * after the first A run, and every run of that effect gets the same count.
 * inject_clock=op injects whole operations: one in 1/effect + 1 is done
 * and not counted, an effect of exactly the size asked on every metric
 * per operation, whatever the host does to the operation's cost. Every
 * side's records go to the output file.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>

#include "bench_calibrate.h"
#include "iopath.h"
#include "record.h"

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
	char buf[256], *save, *tok;

	if (strlen(list) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", list);
	o->neffects = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		double e;

		if (iop_parse_real(tok, 0, 50, &e) || !(e > 0) ||
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

/* What every run of a calibration shares. */
struct calib {
	char **kv;
	int nkv;
	const char *clock, *metric;
	bool rate;
	/* inject_ns of effect e, with inject_clock=loop its iterations, with op its inject_every */
	const uint64_t *inject;
	uint64_t *loops;
	uint64_t *every;
	const struct iop_calib_opts *o;
	iop_calib_side_fn fn;
	void *arg;
	char *why;
	size_t len;
};

static int side_reset(struct side *s, bool keep_recs)
{
	json_decref(s->recs);
	memset(s, 0, sizeof(*s));
	s->workers = 1;
	s->recs = keep_recs ? json_array() : NULL;
	return keep_recs && !s->recs ? -ENOMEM : 0;
}

/*
 * One run of the job into side @s: with --runs 1 the main metric of each
 * repetition, else the run's trimmed mean (of 1/x for a rate, given back
 * as a rate), the observations iopath compare tests a file with several
 * runs of one boot by. @e: the effect's index, or -1 for an A side.
 */
/* The job's parameters and a run's injection: @e's, and @probe (inject_probe=1) */
struct run_args {
	char *all[MAX_KV + 5];
	int n;
	char ns[48], clock[48], loops[48], every[48], probe[24];
};

static void run_args(const struct calib *c, int e, uint64_t loops, bool probe,
		     struct run_args *a)
{
	a->n = 0;
	for (int k = 0; k < c->nkv && a->n < MAX_KV; k++)
		a->all[a->n++] = c->kv[k];
	snprintf(a->ns, sizeof(a->ns), "inject_ns=%llu",
		 (unsigned long long)(e < 0 ? 0 : c->inject[e]));
	snprintf(a->clock, sizeof(a->clock), "inject_clock=%s", c->clock);
	a->all[a->n++] = a->ns;
	a->all[a->n++] = a->clock;
	if (c->loops && e >= 0) {
		snprintf(a->loops, sizeof(a->loops), "inject_loops=%llu",
			 (unsigned long long)loops);
		a->all[a->n++] = a->loops;
	}
	if (c->every && e >= 0) {
		snprintf(a->every, sizeof(a->every), "inject_every=%llu",
			 (unsigned long long)c->every[e]);
		a->all[a->n++] = a->every;
	}
	if (probe) {
		snprintf(a->probe, sizeof(a->probe), "inject_probe=1");
		a->all[a->n++] = a->probe;
	}
}

static int run_once(const struct calib *c, int e, json_t *pairing, struct side *s)
{
	json_t *recs = json_array(), *rec;
	double v[IOP_MAX_REPS], tm, se2;
	uint64_t t0 = iop_now_ns();
	struct run_args args;
	size_t i, nv = 0;
	int ret;

	if (!recs)
		return -ENOMEM;
	run_args(c, e, c->loops && e >= 0 ? c->loops[e] : 0, false, &args);
	ret = c->fn(c->arg, args.all, args.n, pairing, recs, c->why, c->len);
	json_array_foreach(recs, i, rec) {
		double x = iop_record_value(rec, c->metric);
		json_t *run = json_object_get(rec, "run");
		json_t *workers = json_object_get(run, "workers");
		json_t *inj = json_object_get(run, "inject");

		if (isfinite(x) && nv < IOP_MAX_REPS)
			v[nv++] = x;
		if (json_integer_value(workers) > 0)
			s->workers = (int)json_integer_value(workers);
		s->inject_measured = json_number_value(json_object_get(inj, "measured_ns"));
		if (s->recs && json_array_append(s->recs, rec) && !ret) {
			snprintf(c->why, c->len, "%s", strerror(ENOMEM));
			ret = -ENOMEM;
		}
	}
	json_decref(recs);
	if (c->o->runs == 1) {
		for (i = 0; i < nv && s->n < IOP_MAX_REPS; i++)
			s->v[s->n++] = v[i];
	} else if (nv && iop_trimmed(v, nv, c->rate, &tm, &se2)) {
		s->v[s->n++] = c->rate ? 1 / tm : tm;
	}
	s->seconds += (double)(iop_now_ns() - t0) / 1e9;
	return ret;
}

static int side_check(const struct calib *c, const struct side *s)
{
	if (s->n >= 2)
		return 0;
	snprintf(c->why, c->len, "a side gave %zu value%s of %s; the calibration needs %s >= 2",
		 s->n, s->n == 1 ? "" : "s", c->metric, c->o->runs == 1 ? "reps" : "--runs");
	return -EINVAL;
}

/* One side: --runs runs of the job, one after the other; @e as run_once()'s. */
static int run_side(const struct calib *c, int e, struct side *s)
{
	int ret = side_reset(s, e < 0);

	for (int r = 0; r < c->o->runs && !ret; r++)
		ret = run_once(c, e, NULL, s);
	return ret ?: side_check(c, s);
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
	double se2;		/* sum of the pairs' squared relative standard errors */
	double df;		/* of the test, the last pair's */
	double inject_measured;
};

/*
 * Test one pair as iopath compare would: Yuen's test of the two sides, or
 * with @cycle rounds per cycle (interleaved sides; 0: sequential) Yuen's
 * test of the differences of cycles.
 */
static void tally_pair(struct tally *t, const struct side *a, const struct side *b, bool rate,
		       double alpha, bool want_increase, size_t cycle)
{
	double rel, p, va, vb, d, base;
	size_t ha, hb;

	if (cycle) {
		ha = iop_paired_rounds(a->v, b->v, a->n < b->n ? a->n : b->n, cycle, rate, &d, &va,
				       &base);
		p = iop_paired_t_p(d, va, ha);
		rel = d / fabs(base);
		va /= base * base;
		vb = 0;
		t->df = (double)ha - 1;
	} else {
		p = iop_yuen_p(a->v, a->n, b->v, b->n, rate, &rel);
		side_est(a, rate, &va, &ha);
		side_est(b, rate, &vb, &hb);
		t->df = 2 * (double)ha - 2;
	}
	if (p < alpha && (!want_increase || rel > 0))
		t->flagged++;
	if (t->n < IOP_MAX_REPS) {
		t->rel[t->n] = rel;
		t->mde_stated[t->n] = cycle ? iop_mde_t(va, t->df, alpha, IOP_MDE_POWER) :
				      iop_mde(va, ha, vb, hb, alpha, IOP_MDE_POWER);
		t->se2 += va + vb;
		t->n++;
	}
}

/* The metric object named @name in @rec, one this run has just made, or NULL. */
static json_t *rec_metric(json_t *rec, const char *name)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(rec, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), name))
			return m;
	return NULL;
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
		json_t *m = rec_metric(rec, name);
		double x = json_number_value(json_object_get(m, "value"));
		bool rate = iop_agg_is_rate(json_string_value(json_object_get(m, "agg")));

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
			  bool by_run, size_t cycle, double alpha)
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
			double p, cvx = iop_cv(x, nx);

			if (cycle) {
				double d, se2, base;
				size_t h = iop_paired_rounds(x, y, nx < ny ? nx : ny, cycle, false,
							     &d, &se2, &base);

				p = iop_paired_t_p(d, se2, h);
				rel = h >= 2 ? d / fabs(base) : NAN;
			} else {
				p = iop_yuen_p(x, nx, y, ny, false, &rel);
			}
			if (nx < 2 || ny < 2 || !isfinite(rel))
				continue;
			cv[k++] = cvx;
			d2 += rel * rel;
			flagged += p < alpha;
		}
		if (k)
			fprintf(out,
				"  %-24s cv %6.2f%%  A/A rms %7.2f%%  flagged %d of %d\n", name,
				100 * iop_median(cv, (size_t)k), 100 * sqrt(d2 / k), flagged, k);
	}
out:
	free(x);
	free(cv);
}

/*
 * The MDE for --side-time seconds per side. Sequential sides: the
 * between-side part the A/A pairs show beyond their standard errors
 * stays, the standard error shrinks with more values; and the same time
 * as several runs like these, tested over the runs. Interleaved: the
 * paired differences' spread shrinks with more cycles.
 */
static void report_projection(FILE *out, const struct iop_calib_opts *o, const struct tally *aa,
			      double d2, double n, double side_s)
{
	const char *unit = o->runs > 1 ? "runs" : "repetitions";
	double se2 = aa->se2 / aa->n, sb2 = (d2 - se2) / 2, nt, k;

	nt = floor(o->side_time / (side_s / n));
	if (nt < 2)
		return;
	k = nt - 2 * (double)iop_trim_count((size_t)nt);
	if (o->interleave) {
		double cyc = iop_calib_cycle(o), nu = floor(nt / cyc);	/* cycles */

		k = nu - 2 * (double)iop_trim_count((size_t)nu);
		if (k >= 2)
			fprintf(out, "  for %.0f s per side (%.0f rounds): %.2f%%\n", o->side_time,
				cyc * nu, 100 * iop_mde_t(d2 * n / (cyc * nu), k - 1, o->alpha,
							  IOP_MDE_POWER));
		return;
	}
	if (sb2 < 0)
		sb2 = 0;
	fprintf(out, "  for %.0f s per side (%.0f %s): %.2f%% (between-side part %.2f%%)\n",
		o->side_time, nt, unit,
		100 * iop_mde_t(2 * sb2 + se2 * n / nt, 2 * k - 2, o->alpha, IOP_MDE_POWER),
		100 * sqrt(2 * sb2));
	/*
	 * The same time as k runs like these, tested over the runs (compare
	 * does when a side's file holds several): each run's mean differs
	 * from the next by the measured A/A spread, and k of them average it.
	 */
	nt = floor(o->side_time / side_s);
	if (nt >= 2)
		fprintf(out, "  for %.0f s per side as %.0f runs like these, tested over the runs: %.2f%%\n",
			o->side_time, nt, 100 * iop_mde_t(d2 / nt, 2 * nt - 2, o->alpha,
							  IOP_MDE_POWER));
}

static void report(FILE *out, const struct iop_calib_opts *o, const char *metric, bool rate,
		   const struct side *a, const struct tally *aa, const struct tally *eff,
		   const uint64_t *inject, const uint64_t *loops, const uint64_t *every,
		   double t_base, double side_s)
{
	double d2 = 0, mde2 = 0, n = (double)a[0].n;
	const char *unit = o->runs > 1 ? "runs" : "repetitions";
	size_t nu = o->interleave ? (size_t)n / iop_calib_cycle(o) : (size_t)n;
	size_t h = nu - 2 * iop_trim_count(nu);

	for (int i = 0; i < aa->n; i++)
		d2 += aa->rel[i] * aa->rel[i];
	d2 /= aa->n;		/* A/A: mean square of the relative differences */
	fprintf(out, "time per operation (A sides): %.1f ns; %.0f %s per side, %s%zu kept after trimming;\n"
		     "A/A pairs: rms difference %.2f%% (the %s standard errors alone predict %.2f%%)\n",
		t_base, n, unit, o->interleave ? "in cycles, " : "", h, 100 * sqrt(d2),
		o->interleave ? "differences'" : "sides'",
		100 * sqrt(aa->se2 / aa->n));
	fprintf(out, "A/A: %d of %d pairs flagged a change (%.1f%%, alpha %g)\n", aa->flagged,
		aa->n, 100.0 * aa->flagged / aa->n, o->alpha);
	for (int e = 0; e < o->neffects; e++) {
		const struct tally *t = &eff[e];
		char nl[64] = "";

		if (loops)
			snprintf(nl, sizeof(nl), " as inject_loops=%llu (sized in context)",
				 (unsigned long long)loops[e]);
		if (every)
			fprintf(out, "effect %g%%: inject_every=%llu, one operation in %llu uncounted = %+.2f%% per counted operation: detected in %d of %d pairs (%.0f%%), observed change median %+.2f%%\n",
				100 * o->effects[e], (unsigned long long)every[e],
				(unsigned long long)every[e], 100.0 / (double)(every[e] - 1),
				t->flagged, t->n, 100.0 * t->flagged / t->n,
				100 * iop_median(t->rel, (size_t)t->n));
		else
			fprintf(out, "effect %g%%: inject_ns=%llu%s, measured %.1f ns per operation = %.2f%%: detected in %d of %d pairs (%.0f%%), observed change median %+.2f%%\n",
				100 * o->effects[e], (unsigned long long)inject[e], nl,
				t->inject_measured, 100 * t->inject_measured / t_base, t->flagged,
				t->n, 100.0 * t->flagged / t->n,
				100 * iop_median(t->rel, (size_t)t->n));
	}
	for (int i = 0; i < aa->n; i++)
		mde2 += aa->mde_stated[i] * aa->mde_stated[i] / aa->n;
	/*
	 * The rms of compare's figures, not their median, is what the pairs'
	 * rms difference estimates: a few noisy pairs raise both alike, and
	 * the median of the standard errors leaves them out.
	 */
	fprintf(out, "MDE at 95%% power, alpha %g, %.0f %s per side (%.1f s per side):\n"
		     "  from the A/A pairs (what the pairs showed): %.2f%%\n"
		     "  as iopath compare states it (%s, rms over the A/A pairs): %.2f%% (median %.2f%%)\n",
		o->alpha, n, unit, side_s, 100 * iop_mde_t(d2, aa->df, o->alpha, IOP_MDE_POWER),
		o->interleave ? "the paired differences' standard error" :
				"the sides' standard errors",
		100 * sqrt(mde2), 100 * iop_median(aa->mde_stated, (size_t)aa->n));
	report_projection(out, o, aa, d2, n, side_s);
	fprintf(out, "(%s, tested as %s%s)\n", metric,
		rate ? "time per operation, 1/x, 20%-trimmed mean" : "its 20%-trimmed mean",
		o->interleave ? " of the differences of cycles" : "");
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

/*
 * Effect @e's loop of @loops iterations in the job's timed loop, as a
 * fraction of the time per operation: the mean of PROBE_RUNS runs with
 * inject_probe=1 (microbench/harness_inject.c).
 */
#define PROBE_RUNS	2

static int probe_loops(const struct calib *c, int e, uint64_t loops, double *frac)
{
	struct run_args args;
	double sum = 0;
	int n = 0, ret = 0;

	run_args(c, e, loops, true, &args);
	for (int r = 0; r < PROBE_RUNS && !ret; r++) {
		json_t *recs = json_array(), *rec;
		size_t i;

		if (!recs)
			return -ENOMEM;
		ret = c->fn(c->arg, args.all, args.n, NULL, recs, c->why, c->len);
		json_array_foreach(recs, i, rec) {
			json_t *f = json_object_get(json_object_get(json_object_get(rec, "run"),
								    "inject"), "in_context");

			if (json_is_number(f)) {
				sum += json_number_value(f);
				n++;
			}
		}
		json_decref(recs);
	}
	if (!ret && !n) {
		snprintf(c->why, c->len, "inject_probe=1 gave no measure of the loop in context");
		ret = -EIO;
	}
	*frac = n ? sum / n : NAN;
	return ret;
}

/* a count inject_loops= takes: 1 to 1000000 */
static uint64_t loops_in_range(double l)
{
	return l < 1 ? 1 : l > 1e6 ? 1000000 : (uint64_t)llround(l);
}

/*
 * With inject_clock=loop, effect @e's iterations sized by what they cost
 * in the job's own timed loop, not alone: around system calls part of a
 * loop's time overlaps the calls' and part adds to it, by amounts that
 * differ from one machine and count to the next (on the machine of
 * docs/benchmarks.md the count sized alone to 2% showed 2.6% and 4.1% in
 * two calibrations). Probes at the count sized alone and at four times
 * it give the slope; Newton steps of shrinking gain from there average
 * the probes' noise as they converge on the effect.
 */
static int size_in_context(const struct calib *c, int e)
{
	const double want = c->o->effects[e];
	uint64_t l0 = c->loops[e], l1 = 4 * l0 + 4;
	double f0, f1, f, slope, l;
	int ret;

	ret = probe_loops(c, e, l0, &f0) ?: probe_loops(c, e, l1, &f1);
	if (ret)
		return ret;
	slope = (f1 - f0) / (double)(l1 - l0);
	fprintf(stderr, "iopath: bench --calibrate: effect %g%%: inject_loops=%llu is %+.2f%% in context, %llu is %+.2f%%\n",
		100 * want, (unsigned long long)l0, 100 * f0, (unsigned long long)l1, 100 * f1);
	/* four times the count must show in context, or Newton's steps run away */
	if (!(f1 - f0 >= want / 2)) {
		snprintf(c->why, c->len, "inject_clock=loop: %llu iterations cost hardly more than %llu in context (%+.2f%%, %+.2f%%); no count can size the effect",
			 (unsigned long long)l1, (unsigned long long)l0, 100 * f1, 100 * f0);
		return -EIO;
	}
	l = (double)l0 + (want - f0) / slope;
	for (int step = 1; step <= 4; step++) {
		c->loops[e] = loops_in_range(l);
		ret = probe_loops(c, e, c->loops[e], &f);
		if (ret)
			return ret;
		fprintf(stderr, "iopath: bench --calibrate: effect %g%%: inject_loops=%llu is %+.2f%% in context\n",
			100 * want, (unsigned long long)c->loops[e], 100 * f);
		l = (double)c->loops[e] + (want - f) / slope / step;
	}
	c->loops[e] = loops_in_range(l);
	return 0;
}

/*
 * inject_ns per effect, sized from the time per operation of the first A
 * run(s), and with inject_clock=loop the iterations that cost it in
 * context.
 */
static int size_effects(const struct calib *c, const struct side *a0, uint64_t *inject)
{
	double t_probe = time_per_op(a0, c->rate);
	int ret = 0;

	for (int e = 0; e < c->o->neffects && !ret; e++) {
		inject[e] = (uint64_t)llround(c->o->effects[e] * t_probe) ?: 1;
		/* 1/(every - 1) of an operation more per counted one */
		if (c->every)
			c->every[e] = (uint64_t)llround(1 / c->o->effects[e]) + 1;
		if (c->loops) {
			c->loops[e] = iop_inject_loops_for(inject[e]);
			ret = size_in_context(c, e);
		}
	}
	return ret;
}

/*
 * Sequential sides A, effects, A, effects, ..., A: each effect side is
 * paired with the A before it, each A with the next A (an A/A pair spans
 * the effect sides between them, and any drift in that time).
 */
static int run_sequential(const struct calib *c, struct side *a, struct side *bs,
			  uint64_t *inject, struct tally *aa, struct tally *eff)
{
	const struct iop_calib_opts *o = c->o;
	int ret;

	fprintf(stderr, "iopath: bench --calibrate: A side 1 of %d\n", o->pairs + 1);
	ret = run_side(c, -1, &a[0]);
	if (!ret)
		ret = size_effects(c, &a[0], inject);
	if (ret)
		return ret;
	for (int i = 0; i < o->pairs; i++) {
		for (int e = 0; !ret && e < o->neffects; e++) {
			ret = run_side(c, e, &bs[e]);
			if (!ret) {
				tally_pair(&eff[e], &a[i], &bs[e], c->rate, o->alpha, true, 0);
				eff[e].inject_measured += bs[e].inject_measured / o->pairs;
			}
		}
		fprintf(stderr, "iopath: bench --calibrate: A side %d of %d\n",
			i + 2, o->pairs + 1);
		if (!ret)
			ret = run_side(c, -1, &a[i + 1]);
		if (ret)
			return ret;
		tally_pair(aa, &a[i], &a[i + 1], c->rate, o->alpha, false, 0);
	}
	return 0;
}

/*
 * The side at place @k of round @r of @n sides: a Williams design. Cycles
 * of n rounds are Latin squares, so each side takes every place once and
 * a linear trend cancels over a cycle. Even cycles are the rows of the
 * base order 0, 1, n-1, 2, n-2, ... shifted by the round (for n = 3:
 * A A' B, A' B A, B A A'), odd ones the same with every side x turned into
 * n-1-x (B A' A, A' A B, A B A'). Over a pair of cycles each side follows
 * every other side equally often within rounds, and for n = 3 across the
 * rounds' seams too, with no side twice in a row. A run that leaves the
 * next one faster or slower (the rotation alone ran A after the effect
 * side twice per cycle and A' after A twice: on the machine of 22:17 a
 * run after the loop side was 0.7% faster, and A/A pairs differed by
 * +0.30% on average) then moves every side alike.
 */
static int side_at(int n, int r, int k)
{
	int q = r % n, b = k % 2 ? (k + 1) / 2 : (n - k / 2) % n;

	return (r / n) % 2 ? ((n - 1 - b - q) % n + n) % n : (b + q) % n;
}

/*
 * Interleaved: pair i is a block of sides A, A' and one per effect, run
 * round by round, one run of each side per round, in the order of
 * side_at(): drift slower than a round moves the sides of a block alike,
 * a linear trend cancels over a cycle of rounds, a run's effect on the
 * next over a pair of cycles, and no side runs twice in a row, so that
 * one slow stretch of a few seconds cannot fall on two runs of one side.
 * Each pair is tested on the differences of its cycles; every record
 * carries run.pairing {"id", "round", "cycle", "side"}, by which iopath
 * compare pairs the runs of two files the same way.
 */
static int run_interleaved(const struct calib *c, struct side *a, struct side *a2,
			   struct side *bs, uint64_t *inject, struct tally *aa, struct tally *eff)
{
	const struct iop_calib_opts *o = c->o;
	const int ns = iop_calib_cycle(o);
	struct side *blk[2 + IOP_CALIB_MAX_EFFECTS];
	char id[64];
	int ret = 0;

	for (int i = 0; i < o->pairs && !ret; i++) {
		blk[0] = &a[i];
		blk[1] = &a2[i];
		for (int k = 0; k < ns && !ret; k++) {
			if (k >= 2)
				blk[k] = &bs[k - 2];
			ret = side_reset(blk[k], k < 2);
		}
		snprintf(id, sizeof(id), "calibrate-%d-%llu-%d", (int)getpid(),
			 (unsigned long long)iop_now_ns(), i);
		fprintf(stderr, "iopath: bench --calibrate: block %d of %d\n", i + 1, o->pairs);
		for (int r = 0; r < o->runs && !ret; r++) {
			for (int k = 0; k < ns && !ret; k++) {
				int sd = side_at(ns, r, k);
				json_t *pairing;
				char side[16];

				if (sd < 2)
					snprintf(side, sizeof(side), "%s", sd ? "A'" : "A");
				else
					snprintf(side, sizeof(side), "+%g%%",
						 100 * o->effects[sd - 2]);
				pairing = json_pack("{s:s, s:i, s:i, s:s}", "id", id, "round", r,
						    "cycle", ns, "side", side);
				ret = pairing ? run_once(c, sd < 2 ? -1 : sd - 2, pairing,
							 blk[sd]) : -ENOMEM;
				json_decref(pairing);
				if (!ret && !i && !r && !sd)
					ret = size_effects(c, &a[0], inject);
			}
		}
		for (int k = 0; k < ns && !ret; k++)
			ret = side_check(c, blk[k]);
		if (ret)
			break;
		tally_pair(aa, &a[i], &a2[i], c->rate, o->alpha, false, (size_t)ns);
		for (int e = 0; e < o->neffects; e++) {
			tally_pair(&eff[e], &a[i], &bs[e], c->rate, o->alpha, true, (size_t)ns);
			eff[e].inject_measured += bs[e].inject_measured / o->pairs;
		}
	}
	return ret;
}

int iop_calibrate(const struct iop_bench *b, char **kv, int nkv, const struct iop_calib_opts *o,
		  iop_calib_side_fn fn, void *arg, FILE *out, char *why, size_t len)
{
	struct iop_run proto = { 0 };
	const struct iop_metric *m;
	struct calib c = { .kv = kv, .nkv = nkv, .o = o, .fn = fn, .arg = arg, .why = why,
			   .len = len };
	struct side *a = NULL, *a2, *bs = NULL;
	struct tally *aa = NULL, *eff = NULL;
	uint64_t inject[IOP_CALIB_MAX_EFFECTS], loops[IOP_CALIB_MAX_EFFECTS];
	uint64_t every[IOP_CALIB_MAX_EFFECTS];
	double t_base = 0, side_s = 0;
	char load0[128], load1[128];
	int ret, na = o->interleave ? 2 * o->pairs : o->pairs + 1;

	ret = iop_calib_check(b, kv, nkv, why, len);
	if (ret)
		return ret;
	iop_params_parse(b, &proto, kv, nkv, why, len);
	c.metric = iop_main_metric(&proto);
	m = iop_metric_decl(b, c.metric);
	c.clock = proto.opt.inject_clock == IOP_INJECT_LOOP ? "loop" :
		  proto.opt.inject_clock == IOP_INJECT_OP ? "op" : inject_clock_for(&proto, m);
	c.inject = inject;
	c.loops = !strcmp(c.clock, "loop") ? loops : NULL;
	c.every = !strcmp(c.clock, "op") ? every : NULL;
	c.rate = m->is_rate;
	a = calloc((size_t)na, sizeof(*a));
	bs = calloc((size_t)o->neffects, sizeof(*bs));
	aa = calloc(1, sizeof(*aa));
	eff = calloc((size_t)o->neffects, sizeof(*eff));
	if (!a || !bs || !aa || !eff) {
		ret = -ENOMEM;
		goto out;
	}
	/* interleaved: a[i] is block i's A, a2[i] its A' */
	a2 = o->interleave ? a + o->pairs : a + 1;
	loadavg(load0, sizeof(load0));
	ret = o->interleave ? run_interleaved(&c, a, a2, bs, inject, aa, eff) :
			      run_sequential(&c, a, bs, inject, aa, eff);
	if (ret)
		goto out;
	for (int i = 0; i < na; i++) {
		t_base += time_per_op(&a[i], c.rate) / na;
		side_s += a[i].seconds / na;
	}
	loadavg(load1, sizeof(load1));
	if (o->interleave)
		fprintf(out, "calibration of %s: main metric %s, %d blocks of %d interleaved sides (A, A', %d effect%s), %d rounds of one run each, alpha %g\n",
			b->name, c.metric, o->pairs, 2 + o->neffects, o->neffects,
			o->neffects == 1 ? "" : "s", o->runs, o->alpha);
	else
		fprintf(out, "calibration of %s: main metric %s, %d pairs of each kind over %d sides (A, %d effect%s, A, ...), alpha %g\n",
			b->name, c.metric, o->pairs, (o->pairs + 1) + o->pairs * o->neffects,
			o->neffects, o->neffects == 1 ? "" : "s", o->alpha);
	fprintf(out, "load average: %s at the start, %s at the end\n", load0, load1);
	report(out, o, c.metric, c.rate, a, aa, eff, inject, c.loops, c.every, t_base, side_s);
	report_spread(out, a, a2, o->pairs, o->runs > 1, (size_t)iop_calib_cycle(o), o->alpha);
out:
	for (int i = 0; a && i < na; i++)
		json_decref(a[i].recs);
	for (int e = 0; bs && e < o->neffects; e++)
		json_decref(bs[e].recs);
	free(a);
	free(bs);
	free(aa);
	free(eff);
	return ret;
}
