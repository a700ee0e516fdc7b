// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a benchmark run can resolve:
 *
 * - Main metric: the metric a verdict, the trust check and target_ci go
 *   by (main_metric=, default the benchmark's first metric).
 * - Precision-driven repetitions: with target_ci=PCT the harness repeats
 *   until the 95% confidence interval of the main metric's mean (on the
 *   scale compare tests: 1/x for rates) is within +-PCT, or time_budget
 *   seconds have passed, and records which ended it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "iopath.h"

const char *iop_main_metric(const struct iop_run *r)
{
	const struct iop_bench *b = r->bench;
	const char *m = r->opt.main_metric;

	if (*m)
		return m;
	for (const struct iop_metric *d = b->metrics; b->reports && d->name; d++)
		if (b->reports(r, d->name))
			return d->name;
	return b->metrics[0].name;
}

/* The declaration of metric NAME: the benchmark's own, else a common one. */
const struct iop_metric *iop_metric_decl(const struct iop_bench *b, const char *name)
{
	const struct iop_metric *tables[IOP_METRIC_TABLES];
	int ntables = iop_metric_tables(b, tables);

	for (int t = 0; t < ntables; t++)
		for (const struct iop_metric *m = tables[t]; m && m->name; m++)
			if (!strcmp(m->name, name))
				return m;
	return NULL;
}

int iop_main_metric_check(const struct iop_run *r, char *why, size_t len)
{
	const char *m = r->opt.main_metric;
	uint64_t every;
	bool op;

	/* the count is what inject_ns= comes to: without both, nothing to record */
	if (r->opt.inject_loops && (r->opt.inject_clock != IOP_INJECT_LOOP || !r->opt.inject_ns)) {
		snprintf(why, len, "inject_loops= needs inject_clock=loop and inject_ns=, the time it stands for");
		return -EINVAL;
	}
	if (r->opt.inject_probe && !r->opt.inject_ns) {
		snprintf(why, len, "inject_probe=1 needs inject_ns=, the injection it measures");
		return -EINVAL;
	}
	every = r->opt.inject_every;
	op = r->opt.inject_clock == IOP_INJECT_OP;
	/* op without inject_ns: no injection, as for every other clock */
	if ((every && !op) || every == 1 || (op && r->opt.inject_ns && !every) ||
	    (op && r->opt.inject_probe)) {
		snprintf(why, len, "inject_clock=op needs inject_every=N (N >= 2) and inject_ns=, the time it stands for, and no inject_probe; inject_every= needs inject_clock=op");
		return -EINVAL;
	}

	if (*m && !iop_metric_decl(r->bench, m)) {
		snprintf(why, len, "main_metric=%s: not a metric of %s (iopath bench --help %s lists them)",
			 m, r->bench->name, r->bench->name);
		return -EINVAL;
	}
	if (*m && r->bench->reports && !r->bench->reports(r, m)) {
		snprintf(why, len, "main_metric=%s: %s does not report it with these parameters",
			 m, r->bench->name);
		return -EINVAL;
	}
	return 0;
}

bool iop_main_metric_is_rate(const struct iop_run *r)
{
	const struct iop_metric *m = iop_metric_decl(r->bench, iop_main_metric(r));

	return m && m->is_rate;
}

double iop_record_value(json_t *rec, const char *name)
{
	size_t i;
	json_t *m;

	json_array_foreach(json_object_get(rec, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")) ?: "", name))
			return json_number_value(json_object_get(m, "value"));
	return NAN;
}

bool iop_precision_more(const struct iop_run *r, const double *main, int done, uint64_t t0,
			struct iop_precision *p)
{
	double target = r->opt.target_ci;
	int reps = (int)r->opt.reps;

	p->reps = done;
	if (!(target > 0))
		return done < reps;
	p->target_pct = target;
	p->ci_pct = done >= 2 ? 100 * iop_ci_rel_halfwidth(main, (size_t)done, 0.05,
							   iop_main_metric_is_rate(r)) : NAN;
	/* reps= is the minimum */
	p->stopped = iop_precision_stop(p->ci_pct, target, done, reps,
					(double)(iop_now_ns() - t0) / 1e9,
					(double)r->opt.time_budget, IOP_MAX_REPS);
	return !p->stopped;
}

int iop_precision_record(const struct iop_run *r, const struct iop_precision *p, json_t *recs,
			 bool quiet)
{
	size_t i;
	json_t *rec;

	if (!(p->target_pct > 0))
		return 0;
	json_array_foreach(recs, i, rec)
		if (json_object_set_new(json_object_get(rec, "run"), "precision",
					json_pack("{s:f, s:o, s:s?, s:i}",
						  "target_ci_pct", p->target_pct,
						  "ci_pct", isfinite(p->ci_pct) ?
							    json_real(p->ci_pct) : json_null(),
						  "stopped", p->stopped, "reps", p->reps)))
			return -ENOMEM;
	if (!quiet)
		fprintf(stderr, "iopath: bench %s: %d reps, 95%% CI of %s +-%.2f%% (target %g%%): %s\n",
			r->bench->name, p->reps, iop_main_metric(r), p->ci_pct, p->target_pct,
			!strcmp(p->stopped ?: "", "target") ? "reached" :
			!strcmp(p->stopped ?: "", "time_budget") ? "time budget ended first" :
			"repetition limit reached first");
	return 0;
}
