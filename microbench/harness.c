// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The microbenchmark harness: the registry, the signals that stop a run,
 * and the run of one job: setup, worker threads pinned with
 * libnuma/sched_setaffinity, warm-up, repetitions of a fixed duration
 * (sampled once per interval) until the precision asked for, one record
 * each, and the spread across repetitions. Its parts, harness_*.c: params
 * (parameter tables), metrics, workers (threads and placement), rep (one
 * repetition and its trust checks), record (the record of a repetition).
 *
 * What it does not do: it does not tune the machine (governor, C-states,
 * IRQ affinity, the unbound workqueue mask); those are recorded or left to
 * the operator. The benchmarks' timed loops see only a stop flag and a
 * per-thread counter on its own cache line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness_int.h"
#include "probe.h"
#include "iopath.h"
#include "window.h"

/* ---- registry ---------------------------------------------------------- */

static struct iop_bench *benches;

void iop_bench_register(struct iop_bench *b)
{
	struct iop_bench **p = &benches;

	while (*p && strcmp((*p)->name, b->name) < 0)
		p = &(*p)->next;
	b->next = *p;
	*p = b;
}

const struct iop_bench *iop_bench_first(void)
{
	return benches;
}

const struct iop_bench *iop_bench_find(const char *name)
{
	for (const struct iop_bench *b = benches; b; b = b->next)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}

/* ---- signals ----------------------------------------------------------- */

volatile int iop_interrupted;

static void on_signal(int sig)
{
	iop_interrupted = sig;
}

void iop_bench_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* no SA_RESTART: a sleeping sampler wakes up at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* ---- the run ----------------------------------------------------------- */

static const char *human(double v, char *buf, size_t len)
{
	if (v >= 1e6)
		snprintf(buf, len, "%.3fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

/* The workers' CPUs: those of cpus=, or the default one. */
static void resolve_cpus(struct iop_run *r)
{
	const char *cpus = r->opt.cpus;
	cpu_set_t cpus_set;

	r->ncpus = 0;
	if (*cpus) {
		iop_cpulist_parse(cpus, &cpus_set);
		for (int c = 0; c < CPU_SETSIZE && r->ncpus < IOP_MAX_WORKERS; c++)
			if (CPU_ISSET(c, &cpus_set))
				r->cpus[r->ncpus++] = c;
	} else {
		r->cpus[r->ncpus++] = default_cpu();
	}
}

/* Warm-up: caches, then untimed running (not recorded). */
static int warm_up(struct pool *pool, struct iop_run *r, const struct iop_harness_opts *o,
		   char *why, size_t len)
{
	const struct iop_bench *b = r->bench;
	struct rep_result res;
	int ret;

	if (b->warm) {
		ret = b->warm(r, why, len);
		if (ret)
			return ret;
	}
	if (r->opt.warmup) {
		int ws = (int)(r->opt.warmup * 1000 / r->opt.interval_ms);

		if (!o->quiet)
			fprintf(stderr, "iopath: bench %s: warm-up %" PRIu64 " s\n", b->name,
				r->opt.warmup);
		ret = run_rep(pool, r, ws < 1 ? 1 : ws, false, &res, why, len);
		rep_free(&res);
		return ret;
	}
	return 0;
}

/*
 * Repetition @rep: run it, append its record to @job_recs, note its value
 * of the main metric in @main[@rep] and the one the progress line and the
 * spread go by in @primary[@rep]. @res is the caller's to free.
 */
static int one_rep(struct pool *pool, struct iop_run *r, const struct iop_harness_opts *o,
		   int rep, int nsamples, struct rep_result *res, json_t *job_recs,
		   double *primary, double *main, char *why, size_t len)
{
	const struct iop_bench *b = r->bench;
	const char *main_name = iop_main_metric(r);
	const struct iop_metric *m = iop_metric_decl(b, main_name);
	json_t *rec;
	char hb[32];
	int ret;

	/* What a kernel does per operation is counted in these windows (--explain). */
	iop_window_open();
	ret = run_rep(pool, r, nsamples + 1, !o->quiet, res, why, len);
	iop_window_close();
	if (ret)
		return ret;
	drop_first(r, res);
	ret = make_record(r, o, rep, res, &rec, &primary[rep]);
	if (ret) {
		snprintf(why, len, "%s: building the record: %s", b->name, strerror(-ret));
		return ret;
	}
	if (json_array_append_new(job_recs, rec)) {
		snprintf(why, len, "%s: keeping the record: %s", b->name, strerror(ENOMEM));
		return -ENOMEM;
	}
	main[rep] = iop_record_value(rec, main_name);
	if (*r->opt.main_metric)
		primary[rep] = main[rep];
	if (!o->quiet)
		fprintf(stderr, "iopath: bench %s: rep %d/%d: %s %s %s%s%s\n", b->name, rep + 1,
			(int)r->opt.reps, main_name,
			human(main[rep], hb, sizeof(hb)), m ? m->unit : "",
			res->untrusted[0] ? "  untrusted: " : "", res->untrusted);
	if (o->after_rep)
		return o->after_rep(r, rep, &res->rep, rec, o->arg, why, len);
	return 0;
}

/* The spread of the main metric across the @reps repetitions, in each record; 0 or -ENOMEM. */
static int note_spread(const struct iop_run *r, const double *primary, int reps,
		       json_t *job_recs)
{
	double cv;
	size_t i;
	json_t *rec;

	if (reps <= 1)
		return 0;
	cv = iop_cv(primary, (size_t)reps) * 100.0;
	json_array_foreach(job_recs, i, rec) {
		json_t *run = json_object_get(rec, "run");

		if (json_object_set_new(run, "cv_across_reps_pct",
					isfinite(cv) ? json_real(cv) : json_null()))
			return -ENOMEM;
		if (cv > r->opt.cv_max) {
			char w[96];

			snprintf(w, sizeof(w), "cv %.1f%% > %g%% across %d repetitions", cv,
				 r->opt.cv_max, reps);
			iop_record_untrusted(rec, w);
		}
	}
	return 0;
}

int iop_bench_run(struct iop_run *r, const struct iop_harness_opts *o, json_t *recs,
		  char *why, size_t len)
{
	const struct iop_bench *b = r->bench;
	int runtime_ms = iop_runtime_ms(r);
	int nsamples = runtime_ms / (int)r->opt.interval_ms;
	struct pool pool = { .lock = PTHREAD_MUTEX_INITIALIZER,
			     .cmd_cv = PTHREAD_COND_INITIALIZER,
			     .done_cv = PTHREAD_COND_INITIALIZER };
	double primary[IOP_MAX_REPS], main[IOP_MAX_REPS];
	struct iop_precision prec = { 0 };
	uint64_t t_first = iop_now_ns();
	int rep;
	json_t *job_recs = json_array();
	cpu_set_t old_affinity;
	struct rep_result res;
	int ret;

	memset(&res, 0, sizeof(res));
	/* compare nests repetitions in runs of one boot: name this one */
	snprintf(r->invocation, sizeof(r->invocation), "%d-%llu", (int)getpid(),
		 (unsigned long long)t_first);
	if (nsamples < 1)
		nsamples = 1;
	r->nworkers = 1;
	r->nphases = 1;
	r->count_unit = 1;
	sched_getaffinity(0, sizeof(old_affinity), &old_affinity);
	resolve_cpus(r);

	if (b->requires) {
		ret = b->requires(r, why, len);
		if (ret)
			goto out_skip;
	}
	ret = b->setup(r, why, len);
	if (ret)
		goto out_skip;
	if (r->nworkers < 1 || r->nworkers > IOP_MAX_WORKERS || r->nphases < 1 ||
	    r->nphases > IOP_MAX_PHASES) {
		snprintf(why, len, "%s: setup asked for %d workers, %d phases", b->name,
			 r->nworkers, r->nphases);
		ret = -EINVAL;
		goto out_teardown;
	}
	place_main_thread(r);
	ret = pool_start(&pool, r, why, len);
	if (ret)
		goto out_workers;
	ret = warm_up(&pool, r, o, why, len);
	if (ret)
		goto out_workers;

	for (rep = 0; iop_precision_more(r, main, rep, t_first, &prec); rep++) {
		if (b->warm && rep > 0) {
			ret = b->warm(r, why, len);
			if (ret)
				goto out_workers;
		}
		ret = one_rep(&pool, r, o, rep, nsamples, &res, job_recs, primary, main, why, len);
		if (ret)
			goto out_rep;
		rep_free(&res);
	}

	ret = iop_precision_record(r, &prec, job_recs, o->quiet);
	if (!ret)
		ret = note_spread(r, primary, rep, job_recs);
	if (!ret && json_array_extend(recs, job_recs))
		ret = -ENOMEM;
	if (ret)
		snprintf(why, len, "%s: keeping the records: %s", b->name, strerror(-ret));
	goto out_workers;

out_rep:
	rep_free(&res);
	/* the repetitions that finished are valid records: keep them */
	if (json_array_extend(recs, job_recs))
		snprintf(why + strlen(why), len - strlen(why),
			 "; the finished repetitions' records are lost (%s)", strerror(ENOMEM));
out_workers:
	pool_release(&pool, r);
	sched_setaffinity(0, sizeof(old_affinity), &old_affinity);
out_teardown:
	if (b->teardown)
		b->teardown(r);
	json_decref(r->extra);
	r->extra = NULL;
	json_decref(job_recs);
	return ret;
out_skip:
	json_decref(r->extra);
	r->extra = NULL;
	json_decref(job_recs);
	/* The one skip policy (lib/probe.h): only what the kernel lacks. */
	if (iop_errno_means_absent(-ret))
		return IOP_SKIPPED;
	return ret;
}
