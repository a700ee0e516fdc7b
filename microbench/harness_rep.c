// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One repetition of a benchmark: the workers run for a number of
 * intervals, sampled by the main thread (or one phase per interval), and
 * the repetition's trust checks: CPU used by other processes and steal,
 * migrations, intervals without a completed operation, a worker found off
 * its CPU.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness_int.h"
#include "iopath.h"

/* ---- CPU accounting of the whole machine ------------------------------ */

struct cpu_acct {
	uint64_t busy, steal, total;	/* /proc/stat, all CPUs, in USER_HZ ticks */
	uint64_t self;			/* this process, utime + stime ticks */
	uint64_t t;
};

static void cpu_acct_read(struct cpu_acct *a)
{
	unsigned long long v[10] = { 0 };
	char buf[1024], *p;
	FILE *f;
	int fd;
	ssize_t n;

	memset(a, 0, sizeof(*a));
	a->t = iop_now_ns();
	f = fopen("/proc/stat", "r");
	if (f) {
		if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) >= 8) {
			/* user nice system (idle iowait) irq softirq steal */
			a->busy = v[0] + v[1] + v[2];
			a->steal = v[7];
			for (int i = 0; i < 8; i++)
				a->total += v[i];
		}
		fclose(f);
	}
	fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	/* the fields after "(comm)": state is field 3, utime 14, stime 15 */
	p = strrchr(buf, ')');
	if (p) {
		unsigned long ut = 0, st = 0;

		if (sscanf(p + 2,
			   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
			a->self = ut + st;
	}
}

static int sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ull),
			       .tv_nsec = (long)(t % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		if (iop_interrupted)
			return -EINTR;
	return iop_interrupted ? -EINTR : 0;
}

static uint64_t sum_ops(const struct iop_run *r)
{
	uint64_t s = 0;

	for (int i = 0; i < r->nworkers; i++)
		s += __atomic_load_n(&r->w[i]->ops, __ATOMIC_RELAXED);
	return s;
}

static void note_untrusted(struct rep_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note_untrusted(struct rep_result *res, const char *fmt, ...)
{
	size_t l = strlen(res->untrusted);
	va_list ap;

	if (l)
		l += (size_t)snprintf(res->untrusted + l, sizeof(res->untrusted) - l, "; ");
	if (l >= sizeof(res->untrusted))
		return;
	va_start(ap, fmt);
	vsnprintf(res->untrusted + l, sizeof(res->untrusted) - l, fmt, ap);
	va_end(ap);
}

/* What the workers did over a repetition, summed over them (and the phases). */
struct rep_sums {
	double utime, stime;
	uint64_t all_ops, cpu_ns, wall_ns;
	/* per phase: the slices' time (the longest worker's) and CPU time */
	uint64_t phase_ns[IOP_MAX_PHASES], phase_cpu_ns[IOP_MAX_PHASES];
};

/*
 * Single-phase: the workers run continuously and the main thread reads
 * their counters every interval. -EINTR when interrupted.
 */
static int sample_one_phase(struct pool *pool, struct iop_run *r, int nsamples, bool progress,
			    struct rep_result *res, struct rep_sums *sum)
{
	uint64_t interval = r->opt.interval_ms * 1000000ull;
	uint64_t t0, t, prev_t, ops, prev_ops, cpu, prev_cpu;
	int ret = 0;

	pool_command(pool, r, CMD_RUN, 0);
	t0 = iop_now_ns();
	prev_t = t0;
	prev_ops = sum_ops(r);
	prev_cpu = workers_cpu_ns(pool, r);
	for (int s = 0; s < nsamples; s++) {
		ret = sleep_until(t0 + (uint64_t)(s + 1) * interval);
		if (ret || pool_ndone(pool))
			break;
		t = iop_now_ns();
		ops = sum_ops(r);
		res->rep.rate[0][s] = (double)(ops - prev_ops) * 1e9 / (double)(t - prev_t);
		res->rep.ns_per_op[0][s] = res->rep.rate[0][s] > 0 ?
			1e9 * r->nworkers / res->rep.rate[0][s] : NAN;
		cpu = workers_cpu_ns(pool, r);
		res->rep.cpu_ns_per_op[0][s] = ops > prev_ops ?
			(double)(cpu - prev_cpu) / (double)(ops - prev_ops) : NAN;
		prev_cpu = cpu;
		if (ops == prev_ops)
			res->empty++;
		prev_ops = ops;
		prev_t = t;
		/* long repetitions: a line every 10 s, from the main thread */
		if (progress && (uint64_t)(s + 1) * interval % 10000000000ull == 0 &&
		    (uint64_t)nsamples * interval >= 20000000000ull)
			fprintf(stderr, "iopath: bench %s: %.0f of %.0f s, %.0f ops/s\n",
				r->bench->name, (double)(s + 1) * (double)interval / 1e9,
				(double)nsamples * (double)interval / 1e9, res->rep.rate[0][s]);
	}
	pool_stop(r);
	pool_wait(pool, r);
	for (int i = 0; i < r->nworkers; i++) {
		sum->utime += r->w[i]->utime;
		sum->stime += r->w[i]->stime;
		sum->cpu_ns += r->w[i]->cpu_ns;
		sum->wall_ns += r->w[i]->t_end - r->w[i]->t_start;
		sum->all_ops += r->w[i]->ops - r->w[i]->ops_start;
		res->nivcsw += r->w[i]->nivcsw;
		res->migrations += r->w[i]->migrations;
	}
	res->rep.ops[0] = sum->all_ops;
	/* the workers' own spans, each from its loop's start to its end */
	sum->phase_ns[0] = sum->wall_ns / (uint64_t)r->nworkers;
	sum->phase_cpu_ns[0] = sum->cpu_ns;
	/* the sampler counts what the workers counted so far: in units of count_unit */
	res->rep.quantum[0] = sum->all_ops ?
		(double)r->count_unit * nsamples / (double)sum->all_ops : 0;
	return ret;
}

/*
 * Several phases: each interval runs one phase, phases in turn, timed by
 * the worker itself. Stops at the first worker error or interruption.
 */
static int sample_phases(struct pool *pool, struct iop_run *r, int nsamples,
			 struct rep_result *res, struct rep_sums *sum, char *why, size_t len)
{
	uint64_t interval = r->opt.interval_ms * 1000000ull;
	int ret = 0;

	for (int s = 0; s < nsamples && !ret; s++) {
		for (int p = 0; p < r->nphases; p++) {
			uint64_t t0 = iop_now_ns(), ops = 0, dt = 0, cpu = 0;

			pool_command(pool, r, CMD_RUN, p);
			ret = sleep_until(t0 + interval);
			pool_stop(r);
			pool_wait(pool, r);
			for (int i = 0; i < r->nworkers; i++) {
				struct iop_worker *w = r->w[i];

				ops += w->ops - w->ops_start;
				if (w->t_end - w->t_start > dt)
					dt = w->t_end - w->t_start;
				sum->utime += w->utime;
				sum->stime += w->stime;
				cpu += w->cpu_ns;
				sum->wall_ns += w->t_end - w->t_start;
				res->nivcsw += w->nivcsw;
				res->migrations += w->migrations;
			}
			sum->cpu_ns += cpu;
			sum->phase_ns[p] += dt;
			sum->phase_cpu_ns[p] += cpu;
			res->rep.cpu_ns_per_op[p][s] = ops ? (double)cpu / (double)ops : NAN;
			if (!ops)
				res->empty++;
			sum->all_ops += ops;
			res->rep.ops[p] += ops;
			res->rep.rate[p][s] = dt ? (double)ops * 1e9 / (double)dt : 0;
			res->rep.ns_per_op[p][s] = ops ? (double)dt * r->nworkers / (double)ops :
						   NAN;
			if (!ret)
				ret = pool_error(r, why, len);
			if (ret)
				break;
		}
	}
	return ret;
}

/*
 * The repetition's trust checks, each failed one a reason in
 * res->untrusted, and where each worker ran (res->placement).
 */
static void rep_trust(struct iop_run *r, struct rep_result *res, const struct cpu_acct *a0,
		      const struct cpu_acct *a1)
{
	double ticks = (double)(a1->t - a0->t) / 1e9 * (double)sysconf(_SC_CLK_TCK);
	double foreign = (double)(a1->busy - a0->busy) - (double)(a1->self - a0->self);

	/* Other processes' CPU time, as a share of one CPU over the repetition. */
	res->foreign_pct = ticks > 0 ? (foreign > 0 ? foreign : 0) * 100.0 / ticks : 0;
	res->steal_pct = ticks > 0 ? (double)(a1->steal - a0->steal) * 100.0 / ticks : 0;
	if (res->foreign_pct > r->opt.foreign_max)
		note_untrusted(res, "other processes used %.0f%% of a CPU", res->foreign_pct);
	if (res->steal_pct > r->opt.foreign_max)
		note_untrusted(res, "steal %.0f%% of a CPU", res->steal_pct);
	if (res->migrations > 0)
		note_untrusted(res, "workers migrated %ld time%s", res->migrations,
			       res->migrations == 1 ? "" : "s");
	if (res->empty)
		note_untrusted(res, "%d interval%s without a completed operation", res->empty,
			       res->empty == 1 ? "" : "s");
	res->placement = json_array();
	for (int i = 0; i < r->nworkers; i++) {
		struct iop_worker *w = r->w[i];

		/* no placement (NULL) fails the record in make_record(), never a worker left out */
		if (res->placement &&
		    json_array_append_new(res->placement,
					  json_pack("{s:i, s:i, s:i, s:s, s:I}", "worker", i,
						    "cpu", w->cpu, "cpu_seen", w->cpu_seen_end,
						    "affinity", w->affinity,
						    "nivcsw", (json_int_t)w->nivcsw))) {
			json_decref(res->placement);
			res->placement = NULL;
		}
		if (w->cpu_seen_start != w->cpu || w->cpu_seen_end != w->cpu)
			note_untrusted(res, "worker %d pinned to CPU %d ran on CPU %d/%d", i,
				       w->cpu, w->cpu_seen_start, w->cpu_seen_end);
	}
}

/*
 * One repetition (or the warm-up, with @nsamples including the dropped
 * first interval), single-phase or in phases.
 */
int run_rep(struct pool *pool, struct iop_run *r, int nsamples, bool progress,
	    struct rep_result *res, char *why, size_t len)
{
	struct rep_sums sum = { 0 };
	struct cpu_acct a0, a1;
	int ret;

	memset(res, 0, sizeof(*res));
	for (int p = 0; p < r->nphases; p++) {
		res->rep.rate[p] = calloc((size_t)nsamples, sizeof(double));
		res->rep.ns_per_op[p] = calloc((size_t)nsamples, sizeof(double));
		res->rep.cpu_ns_per_op[p] = calloc((size_t)nsamples, sizeof(double));
		if (!res->rep.rate[p] || !res->rep.ns_per_op[p] || !res->rep.cpu_ns_per_op[p])
			return -ENOMEM;
	}
	if (r->keeps_hist)
		for (int i = 0; i < r->nworkers; i++)
			memset(r->w[i]->hist, 0, sizeof(struct iop_hist));
	res->rep.nsamples = nsamples;
	cpu_acct_read(&a0);
	if (r->nphases == 1)
		ret = sample_one_phase(pool, r, nsamples, progress, res, &sum);
	else
		ret = sample_phases(pool, r, nsamples, res, &sum, why, len);
	cpu_acct_read(&a1);
	if (!ret)
		ret = pool_error(r, why, len);
	if (ret == -EINTR)
		snprintf(why, len, "interrupted");
	if (ret)
		return ret;

	for (int p = 0; p < r->nphases; p++) {
		double ops = (double)res->rep.ops[p], ns = (double)sum.phase_ns[p];

		res->rep.whole_ns_per_op[p] = ops > 0 ? ns * r->nworkers / ops : NAN;
		res->rep.whole_cpu_ns_per_op[p] = ops > 0 ? (double)sum.phase_cpu_ns[p] / ops : NAN;
		res->rep.whole_rate[p] = ops > 0 && ns > 0 ? ops * 1e9 / ns : NAN;
	}
	res->rep.on_cpu_pct = sum.wall_ns ? (double)sum.cpu_ns * 100.0 / (double)sum.wall_ns : NAN;
	res->rep.usr_ns_per_op = sum.all_ops ? sum.utime * 1e9 / (double)sum.all_ops : NAN;
	res->rep.sys_ns_per_op = sum.all_ops ? sum.stime * 1e9 / (double)sum.all_ops : NAN;
	rep_trust(r, res, &a0, &a1);
	if (r->keeps_hist) {
		res->rep.hist = calloc(1, sizeof(struct iop_hist));
		if (!res->rep.hist)
			return -ENOMEM;
		for (int i = 0; i < r->nworkers; i++)
			iop_hist_merge(res->rep.hist, r->w[i]->hist);
	}
	return 0;
}

void rep_free(struct rep_result *res)
{
	for (int p = 0; p < IOP_MAX_PHASES; p++) {
		free(res->rep.rate[p]);
		free(res->rep.ns_per_op[p]);
		free(res->rep.cpu_ns_per_op[p]);
	}
	free(res->rep.hist);
	json_decref(res->placement);
	memset(res, 0, sizeof(*res));
}

/* Drop the first interval: it holds the ramp (thread start, cold TLB, ...). */
void drop_first(struct iop_run *r, struct rep_result *res)
{
	int n = res->rep.nsamples - 1;

	for (int p = 0; p < r->nphases; p++) {
		memmove(res->rep.rate[p], res->rep.rate[p] + 1, (size_t)n * sizeof(double));
		memmove(res->rep.ns_per_op[p], res->rep.ns_per_op[p] + 1,
			(size_t)n * sizeof(double));
		memmove(res->rep.cpu_ns_per_op[p], res->rep.cpu_ns_per_op[p] + 1,
			(size_t)n * sizeof(double));
	}
	res->rep.nsamples = n;
}
