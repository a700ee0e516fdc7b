// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The harness's worker threads: each pinned to its CPU, running the
 * benchmark's loop on command with its own CPU time, rusage and migrations
 * accounted; the pool that starts, stops and joins them; and where the
 * threads go (the default CPU, the sampling thread kept off the workers).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "harness_int.h"
#include "iopath.h"

int online_cpus(cpu_set_t *set)
{
	char buf[256];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int ret;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	ret = iop_cpulist_parse(buf, set);
	return ret < 0 ? ret : 0;
}

/* ---- workers ----------------------------------------------------------- */

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	/* exact, unlike getrusage(), which lags by up to a tick */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* se.nr_migrations of the calling thread (needs CONFIG_SCHED_DEBUG), or -1 */
static long thread_migrations(void)
{
	char buf[4096], *p;
	ssize_t n;
	int fd = open("/proc/thread-self/sched", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "se.nr_migrations");
	p = p ? strchr(p, ':') : NULL;
	if (!p)
		return -1;
	return strtol(p + 1, NULL, 10);
}

static double tv_sec(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void *worker_main(void *arg)
{
	struct worker_arg *wa = arg;
	struct pool *pool = wa->pool;
	struct iop_worker *w = wa->w;
	const struct iop_bench *b = w->run->bench;
	const struct iop_common_opts *o = &w->run->opt;
	unsigned int seen = 0;
	struct rusage ru0, ru1;
	long mig;
	sigset_t all;
	int ret;

	/* signals go to the main thread, which stops the workers */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	w->tid = (unsigned long)syscall(SYS_gettid);
	ret = iop_pin_self(w->cpu, true);
	if (ret) {
		snprintf(w->why, sizeof(w->why), "cannot pin worker %d to CPU %d: %s", w->idx,
			 w->cpu, strerror(-ret));
	} else if (b->worker_init) {
		ret = b->worker_init(w, w->why, sizeof(w->why));
	}
	if (!ret)
		ret = iop_inject_init(&w->inject, o->inject_ns, o->inject_clock, o->inject_loops,
				      o->inject_every, o->inject_probe);
	{
		struct iop_placement pl;

		if (!iop_placement_read(&pl))
			snprintf(w->affinity, sizeof(w->affinity), "%s", pl.cpus);
	}
	pthread_mutex_lock(&pool->lock);
	w->err = ret;
	pool->nready++;
	pthread_cond_broadcast(&pool->done_cv);
	pthread_mutex_unlock(&pool->lock);
	for (;;) {
		int cmd;

		pthread_mutex_lock(&pool->lock);
		while (pool->gen == seen)
			pthread_cond_wait(&pool->cmd_cv, &pool->lock);
		seen = pool->gen;
		cmd = w->cmd;
		pthread_mutex_unlock(&pool->lock);
		if (cmd == CMD_EXIT || w->err)
			break;
		mig = thread_migrations();
		getrusage(RUSAGE_THREAD, &ru0);
		w->cpu_seen_start = sched_getcpu();
		w->ops_start = w->ops;
		w->cpu_ns = thread_cpu_ns();
		w->t_start = iop_now_ns();
		ret = b->run(w);
		w->t_end = iop_now_ns();
		w->cpu_ns = thread_cpu_ns() - w->cpu_ns;
		w->cpu_seen_end = sched_getcpu();
		getrusage(RUSAGE_THREAD, &ru1);
		w->utime = tv_sec(ru1.ru_utime) - tv_sec(ru0.ru_utime);
		w->stime = tv_sec(ru1.ru_stime) - tv_sec(ru0.ru_stime);
		w->nivcsw = ru1.ru_nivcsw - ru0.ru_nivcsw;
		w->migrations = mig < 0 ? 0 : thread_migrations() - mig;
		pthread_mutex_lock(&pool->lock);
		w->err = ret;
		pool->ndone++;
		pthread_cond_broadcast(&pool->done_cv);
		pthread_mutex_unlock(&pool->lock);
	}
	if (b->worker_exit)
		b->worker_exit(w);
	pthread_mutex_lock(&pool->lock);
	pool->ndone++;
	pthread_cond_broadcast(&pool->done_cv);
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

void pool_command(struct pool *pool, struct iop_run *r, int cmd, int phase)
{
	pthread_mutex_lock(&pool->lock);
	for (int i = 0; i < r->nworkers; i++) {
		r->w[i]->cmd = cmd;
		r->w[i]->phase = phase;
		r->w[i]->stop = 0;
	}
	pool->ndone = 0;
	pool->gen++;
	pthread_cond_broadcast(&pool->cmd_cv);
	pthread_mutex_unlock(&pool->lock);
}

void pool_stop(struct iop_run *r)
{
	for (int i = 0; i < r->nworkers; i++)
		__atomic_store_n(&r->w[i]->stop, 1, __ATOMIC_RELEASE);
}

int pool_ndone(struct pool *pool)
{
	int n;

	pthread_mutex_lock(&pool->lock);
	n = pool->ndone;
	pthread_mutex_unlock(&pool->lock);
	return n;
}

void pool_wait(struct pool *pool, struct iop_run *r)
{
	pthread_mutex_lock(&pool->lock);
	while (pool->ndone < r->nworkers)
		pthread_cond_wait(&pool->done_cv, &pool->lock);
	pthread_mutex_unlock(&pool->lock);
}

/* The first worker error, as -errno with its message in @why. */
int pool_error(struct iop_run *r, char *why, size_t len)
{
	for (int i = 0; i < r->nworkers; i++) {
		struct iop_worker *w = r->w[i];

		if (w->err) {
			if (w->why[0])
				snprintf(why, len, "%s", w->why);
			else
				snprintf(why, len, "worker %d on CPU %d: %s", i, w->cpu,
					 strerror(-w->err));
			return w->err < 0 ? w->err : -EIO;
		}
	}
	return 0;
}

static void pool_destroy(struct pool *pool, struct iop_run *r)
{
	if (!pool->nthreads)
		return;
	pool_stop(r);
	pool_command(pool, r, CMD_EXIT, 0);
	for (int i = 0; i < pool->nthreads; i++)
		pthread_join(pool->th[i], NULL);
	pool->nthreads = 0;
}

/*
 * Start r->nworkers threads, worker i on CPU r->cpus[i % r->ncpus], and
 * wait until each is pinned and set up: -errno (with @why where there is
 * more to say) for the first that is not. Whatever was started is undone
 * by pool_release(), error or not.
 */
int pool_start(struct pool *pool, struct iop_run *r, char *why, size_t len)
{
	int ret;

	for (int i = 0; i < r->nworkers; i++) {
		struct iop_worker *w;

		if (posix_memalign((void **)&w, 64, sizeof(*w)))
			return -ENOMEM;
		memset(w, 0, sizeof(*w));
		w->idx = i;
		w->cpu = r->cpus[i % r->ncpus];
		w->run = r;
		if (r->keeps_hist) {
			w->hist = calloc(1, sizeof(*w->hist));
			if (!w->hist) {
				free(w);
				return -ENOMEM;
			}
		}
		r->w[i] = w;
		pool->wa[i].pool = pool;
		pool->wa[i].w = w;
		ret = -pthread_create(&pool->th[i], NULL, worker_main, &pool->wa[i]);
		if (ret) {
			snprintf(why, len, "pthread_create: %s", strerror(-ret));
			free(w->hist);
			free(w);
			r->w[i] = NULL;
			return ret;
		}
		pool->nthreads++;
	}
	pthread_mutex_lock(&pool->lock);
	while (pool->nready < r->nworkers)
		pthread_cond_wait(&pool->done_cv, &pool->lock);
	pthread_mutex_unlock(&pool->lock);
	return pool_error(r, why, len);
}

/* Stop and join the threads, free the workers. */
void pool_release(struct pool *pool, struct iop_run *r)
{
	pool_destroy(pool, r);
	for (int i = 0; i < r->nworkers && i < IOP_MAX_WORKERS; i++) {
		if (!r->w[i])
			continue;
		iop_inject_probe_free(&r->w[i]->inject);
		free(r->w[i]->hist);
		free(r->w[i]);
		r->w[i] = NULL;
	}
}

/* ---- placement --------------------------------------------------------- */

int default_cpu(void)
{
	cpu_set_t online;
	int last = 0;

	if (online_cpus(&online) < 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &online))
			last = c;
	return last;
}

/* Keep the sampling main thread off the workers' CPUs when there is room. */
void place_main_thread(const struct iop_run *r)
{
	cpu_set_t online, set;

	if (online_cpus(&online) < 0)
		return;
	set = online;
	for (int i = 0; i < r->ncpus; i++)
		CPU_CLR(r->cpus[i], &set);
	if (CPU_COUNT(&set))
		sched_setaffinity(0, sizeof(set), &set);
}

/*
 * The workers' CPU time so far, read from the sampling thread through
 * their CPU clocks: per-interval CPU time per operation, of which a
 * repetition keeps the median, so that an interval disturbed by a
 * co-tenant (cache and TLB refills after preemption) does not move it.
 */
uint64_t workers_cpu_ns(const struct pool *pool, const struct iop_run *r)
{
	uint64_t sum = 0;

	for (int i = 0; i < r->nworkers && i < pool->nthreads; i++) {
		struct timespec ts;
		clockid_t cid;

		if (pthread_getcpuclockid(pool->th[i], &cid) || clock_gettime(cid, &ts))
			continue;
		sum += (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	return sum;
}
