// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The harness's injection machinery: a known effect to check a comparison
 * with, and what a benchmark run can resolve.
 *
 * - Spike-in: inject_ns=N adds N ns of busy-waiting per operation inside
 *   every benchmark's timed loop (iop_inject()), on the clock the harness
 *   reads: CLOCK_MONOTONIC (what rates see) or, with inject_clock=cpu, the
 *   worker's own CPU clock (what CPU ns per operation see, and what a
 *   preempting process cannot shorten). A run against inject_ns=0 then
 *   has a true effect known in advance: the calibration of iopath bench.
 *   The wait keeps a debt: an overshoot is paid back by the next
 *   operations, so the average per operation is N even when N is shorter
 *   than one clock read. The call's own cost is measured on the pinned
 *   worker before the first timed loop and subtracted; the measured
 *   per-operation cost goes into the record.
 *   inject_clock=loop reads no clock in the timed loop: it runs a count of
 *   iterations (iop_spin_iters(), inline in the timed loop), sized on the
 *   wall clock before the first timed loop unless inject_loops= gives it.
 *   The CPU clock has no vDSO path, so each read of it is a system call,
 *   which under page-table isolation costs as much as the short calls
 *   read_vs_readv times, and disturbs them; a loop is user-mode work only,
 *   and slows with the CPU as the measured call does.
 *   inject_clock=op injects whole operations: every inject_every-th one
 *   is done and not counted (iop_count()), so each counted one carries
 *   exactly 1/(inject_every - 1) of another, in whatever state the host
 *   is: a loop or a wait is a fixed amount of other work, whose share of
 *   a system call moves with what the host does to each.
 * - inject_probe=1: what the injection costs among the operations it
 *   follows, measured in the timed loop itself (probe_step()).
 *   iopath bench --calibrate sizes a loop by it.
 * - Main metric: the metric a verdict, the trust check and target_ci go
 *   by (main_metric=, default the benchmark's first metric).
 * - Precision-driven repetitions: with target_ci=PCT the harness repeats
 *   until the 95% confidence interval of the main metric's mean (on the
 *   scale compare tests: 1/x for rates) is within +-PCT, or time_budget
 *   seconds have passed, and records which ended it.
 *
 * What the spike-in does not measure: a busy-wait adds time, not the
 * cache, lock or scheduling effects a real change in the kernel has, so a
 * calibration says how small an effect a comparison can resolve, not how
 * a given patch will show up.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "iopath.h"

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* the clock waits; the loop runs inline in iop_inject() */
static void wait_now(struct iop_worker *w, uint64_t nops)
{
	int64_t t0, t;

	w->inject_owed += (int64_t)nops * w->inject_debit;
	if (w->inject_owed <= 0)
		return;
	t0 = clock_ns(w->inject_clock);
	do
		t = clock_ns(w->inject_clock);
	while (t - t0 < w->inject_owed);
	/* the part of the first read before t0 and of the last after t: one read */
	w->inject_owed -= t - t0 + w->inject_read_ns;
}

/*
 * inject_probe=1: the loop runs in every other stretch of about 100 us of
 * the timed loop, and each pair of neighbours (without, then with) gives
 * the ratio of their times per operation. Neighbours 100 us apart share
 * the CPU's speed of the moment, which on a shared host changes from one
 * millisecond to the next, and the loop runs among the calls it is
 * measured against: the count that costs N ns alone costs more or less
 * between system calls, and not in proportion. Both kinds of stretch read
 * the clock after every call alike.
 */
#define PROBE_STRETCH_NS	100000
#define PROBE_MAX_PAIRS		65536

struct iop_inject_probe {
	int64_t t0;		/* start of the current stretch; 0: none yet */
	uint64_t ops;		/* operations in it */
	bool on;		/* the loop runs in it */
	double off_ns;		/* per operation in the last stretch without */
	size_t n;
	double ratio[PROBE_MAX_PAIRS];
};

static void probe_step(struct iop_worker *w, uint64_t nops)
{
	struct iop_inject_probe *p = w->inject_probe;
	int64_t t;
	double per;

	if (p->on && !w->inject_loop)
		wait_now(w, nops);
	p->ops += nops;
	t = clock_ns(CLOCK_MONOTONIC);
	if (!p->t0) {
		p->t0 = t;
		p->ops = 0;
		return;
	}
	if (t - p->t0 < PROBE_STRETCH_NS)
		return;
	per = (double)(t - p->t0) / (double)p->ops;
	if (!p->on)
		p->off_ns = per;
	else if (p->off_ns > 0 && p->n < PROBE_MAX_PAIRS)
		p->ratio[p->n++] = per / p->off_ns;
	p->on = !p->on;
	if (w->inject_loop)
		w->inject_loop_on = p->on;
	p->t0 = t;
	p->ops = 0;
}

void iop_inject_spin(struct iop_worker *w, uint64_t nops)
{
	if (w->inject_probe)
		probe_step(w, nops);
	else
		wait_now(w, nops);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double iop_inject_probe_take(struct iop_worker *w)
{
	struct iop_inject_probe *p = w->inject_probe;
	double m;

	if (!p || !p->n)
		return NAN;
	qsort(p->ratio, p->n, sizeof(p->ratio[0]), cmp_dbl);
	m = p->n % 2 ? p->ratio[p->n / 2] : (p->ratio[p->n / 2 - 1] + p->ratio[p->n / 2]) / 2;
	memset(p, 0, offsetof(struct iop_inject_probe, ratio));
	w->inject_loop_on = false;
	return m - 1;
}

void iop_inject_probe_free(struct iop_worker *w)
{
	free(w->inject_probe);
	w->inject_probe = NULL;
}

/*
 * The cost per injection, on the wait's clock: the median of 41 short
 * trials of @k injections each, so that the trials a preempting process
 * interrupts (on a shared CPU most long ones would be) do not count.
 * A loop's cost is the fifth fastest trial instead: the speed of the CPU
 * itself changes by a third from one millisecond to the next on a shared
 * host, and the floors a loop is sized against are its fast moments.
 */
static double inject_cost(struct iop_worker *w, uint64_t k)
{
	double per[41];

	for (int trial = 0; trial < 41; trial++) {
		int64_t t0, t1;

		w->inject_owed = 0;
		t0 = clock_ns(w->inject_clock);
		for (uint64_t i = 0; i < k; i++)
			iop_inject(w, 1);
		t1 = clock_ns(w->inject_clock);
		per[trial] = (double)(t1 - t0) / (double)k;
	}
	w->inject_owed = 0;
	qsort(per, 41, sizeof(per[0]), cmp_dbl);
	return per[w->inject_loop ? 4 : 20];
}

/*
 * The count of iterations whose calls cost closest to @ns now, on the
 * calling thread's CPU. Calls of up to about 150 iterations cost less per
 * iteration than longer ones (the reach of the exit branch's predictor),
 * so the count is not scaled from one long trial but searched: the cost
 * grows with the count, in steps.
 */
uint64_t iop_inject_loops_for(uint64_t ns)
{
	/* the path of the timed loop: iop_inject() on a worker of this count */
	struct iop_worker w = { .inject_ns = ns, .inject_work = true, .inject_loop = true,
				.inject_loop_on = true, .inject_clock = CLOCK_MONOTONIC };
	uint64_t k = 100000 / ns > 200 ? 100000 / ns : 200, lo = 0, hi = 2 * ns + 16;
	double c_lo, c_hi;

	if (!ns)
		return 0;
	for (;;) {
		w.inject_debit = (int64_t)hi;
		if (inject_cost(&w, k) >= (double)ns || hi >= (1ull << 40))
			break;
		lo = hi;
		hi *= 2;
	}
	/* cost(lo) < ns <= cost(hi) */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		w.inject_debit = (int64_t)mid;
		if (inject_cost(&w, k) >= (double)ns)
			hi = mid;
		else
			lo = mid;
	}
	w.inject_debit = (int64_t)hi;
	c_hi = inject_cost(&w, k);
	w.inject_debit = (int64_t)lo;
	c_lo = lo ? inject_cost(&w, k) : 0;
	return lo && (double)ns - c_lo < c_hi - (double)ns ? lo : hi;
}

/* after the injection is sized: inject_cost() measures it always on */
static int probe_init(struct iop_worker *w)
{
	if (!w->run->opt.inject_probe || w->inject_probe)
		return 0;
	w->inject_probe = calloc(1, sizeof(*w->inject_probe));
	/* a probe starts with a stretch without */
	w->inject_loop_on = false;
	return w->inject_probe ? 0 : -ENOMEM;
}

/* calls of @n ns per trial of inject_cost(): about 0.5 ms, at least 200 */
static uint64_t k_for(uint64_t n)
{
	return 500000 / n > 200 ? 500000 / n : 200;
}

/*
 * Calls per trial of a given loop count: about 0.5 ms by one call's time,
 * so that a count of a million (a few ms a call) is measured in a second,
 * not in hours.
 */
static uint64_t k_for_loop(struct iop_worker *w, uint64_t n)
{
	int64_t t0 = clock_ns(CLOCK_MONOTONIC), t;
	uint64_t k;

	iop_inject(w, 1);
	t = clock_ns(CLOCK_MONOTONIC) - t0;
	k = 500000 / (uint64_t)(t > 0 ? t : 1);
	return k < 1 ? 1 : k < k_for(n) ? k : k_for(n);
}

int iop_inject_init(struct iop_worker *w)
{
	const struct iop_run *r = w->run;
	uint64_t n = r->opt.inject_ns, k;
	double best = INFINITY;

	w->inject_ns = n;
	w->inject_measured_ns = 0;
	w->inject_owed = 0;
	if (r->opt.inject_clock == IOP_INJECT_OP) {
		/*
		 * With inject_ns=0 (an A side) the count runs and never fires,
		 * so that both sides of a comparison run the same instructions.
		 * Where they did not, the side with the injection's path ran
		 * 4.7% faster than A in the host's slow stretches with nothing
		 * injected (one operation in 100001 uncounted), and a 2%
		 * effect vanished there.
		 */
		w->inject_every = n ? r->opt.inject_every : UINT64_MAX;
		w->inject_left = w->inject_every;
		return 0;
	}
	if (!n)
		return 0;
	w->inject_work = true;
	w->inject_clock = r->opt.inject_clock == IOP_INJECT_CPU ? CLOCK_THREAD_CPUTIME_ID :
								  CLOCK_MONOTONIC;
	w->inject_loop = r->opt.inject_clock == IOP_INJECT_LOOP;
	if (w->inject_loop) {
		/* the same count every operation: the exit branch predicted alike */
		w->inject_loop_on = true;
		w->inject_debit = (int64_t)(r->opt.inject_loops ?: iop_inject_loops_for(n));
		w->inject_measured_ns = inject_cost(w, k_for_loop(w, n));
		return probe_init(w);
	}
	/* one read of that clock: the fastest of 20 batches of 1000 */
	for (int b = 0; b < 20; b++) {
		int64_t t0 = clock_ns(w->inject_clock), t1;

		for (int i = 0; i < 1000; i++)
			clock_ns(w->inject_clock);
		t1 = clock_ns(w->inject_clock);
		if ((double)(t1 - t0) / 1001 < best)
			best = (double)(t1 - t0) / 1001;
	}
	w->inject_read_ns = (int64_t)llround(best);
	w->inject_debit = (int64_t)n;
	k = k_for(n);
	for (int round = 0; round < 3; round++) {
		/* pay less per call by what the call itself costs beyond N */
		w->inject_debit -= (int64_t)llround(inject_cost(w, k) - (double)n);
		if (w->inject_debit < 1)
			w->inject_debit = 1;
	}
	w->inject_measured_ns = inject_cost(w, k);
	return probe_init(w);
}

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
