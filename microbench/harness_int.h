/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the microbenchmark harness, shared by its files and by nothing
 * else: the worker pool (harness_workers.c), one repetition and its result
 * (harness_rep.c), the record built from it (harness_record.c), and the
 * run that strings them together (harness.c). Benchmarks include bench.h.
 */
#ifndef IOPATH_HARNESS_INT_H
#define IOPATH_HARNESS_INT_H

#include <jansson.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"

enum { CMD_NONE, CMD_RUN, CMD_EXIT };

struct pool;

struct worker_arg {
	struct pool *pool;
	struct iop_worker *w;
};

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t cmd_cv, done_cv;
	unsigned int gen;	/* bumped per command */
	int ndone;		/* workers finished with the current command */
	int nready;
	pthread_t th[IOP_MAX_WORKERS];
	struct worker_arg wa[IOP_MAX_WORKERS];
	int nthreads;
};

struct rep_result {
	struct iop_rep rep;
	double foreign_pct, steal_pct;
	long nivcsw;
	int empty;		/* intervals in which nothing completed */
	long migrations;	/* of the workers, from se.nr_migrations */
	json_t *placement;
	char untrusted[256];
};

/* harness_workers.c: the online CPUs, the worker threads and where they run */
int online_cpus(cpu_set_t *set);
void pool_command(struct pool *pool, struct iop_run *r, int cmd, int phase);
void pool_stop(struct iop_run *r);
int pool_ndone(struct pool *pool);
void pool_wait(struct pool *pool, struct iop_run *r);
int pool_error(struct iop_run *r, char *why, size_t len);
int pool_start(struct pool *pool, struct iop_run *r, char *why, size_t len);
void pool_release(struct pool *pool, struct iop_run *r);
uint64_t workers_cpu_ns(const struct pool *pool, const struct iop_run *r);
int default_cpu(void);
void place_main_thread(const struct iop_run *r);

/* harness_rep.c: one repetition, sampled, with its trust checks */
int run_rep(struct pool *pool, struct iop_run *r, int nsamples, bool progress,
	    struct rep_result *res, char *why, size_t len);
void rep_free(struct rep_result *res);
void drop_first(struct iop_run *r, struct rep_result *res);

/* harness_record.c: the record of one repetition */
int make_record(struct iop_run *r, const struct iop_harness_opts *o, int rep,
		struct rep_result *res, json_t **out, double *primary);

#endif
