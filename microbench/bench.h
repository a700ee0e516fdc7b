/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Microbenchmark registry and harness.
 *
 * A benchmark is one file in microbench/ that defines a struct iop_bench and
 * registers it with IOP_BENCH(). The file declares everything about itself:
 * its parameters (usage text and validation come from that table), its
 * metrics (unit, direction), what it needs (a scratch filesystem or not) and
 * the fio job that measures the same thing.
 *
 * The harness owns everything else: worker threads and their pinning, the
 * clock, warm-up, repetitions, per-interval samples (the first one of each
 * repetition is dropped), per-thread CPU accounting, the checks that decide
 * whether a result can be trusted, and the records.
 *
 * A worker's run() is the timed loop and nothing else:
 *
 *	while (!iop_stopping(w)) {
 *		if (one_operation() < 0)
 *			return -errno;		(aborts the whole run)
 *		iop_count(w, 1);
 *	}
 *	return 0;
 *
 * Benchmarks with several phases (read_vs_readv: read, readv, ...) are run
 * in alternation, one interval per phase, so that load from elsewhere hits
 * every phase alike; run() then sees w->phase.
 */
#ifndef IOPATH_BENCH_H
#define IOPATH_BENCH_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "harness_inject.h"
#include "place.h"
#include "record.h"
#include "scratch.h"
#include "stats.h"

enum iop_param_type {
	IOP_P_U64,	/* integer in [min, max] */
	IOP_P_SIZE,	/* integer with k/m/g/t suffix (powers of 1024) */
	IOP_P_BOOL,	/* 0/1, yes/no, on/off, true/false */
	IOP_P_ENUM,	/* one of .choices ("a|b|c") */
	IOP_P_CPUS,	/* a CPU list ("1", "0-3,6") of online CPUs */
	IOP_P_DOUBLE,	/* floating point in [min, max] */
	IOP_P_METRIC,	/* the name of one of the benchmark's metrics, or "" */
};

struct iop_param {
	const char *name;
	enum iop_param_type type;
	const char *def;	/* default, as it would be written on the command line */
	double min, max;	/* U64, SIZE, DOUBLE */
	const char *choices;	/* ENUM */
	const char *help;
};

/*
 * The harness's parameters of one job, typed, parsed once by
 * iop_params_parse(): the harness and the bench command read these, never
 * the parameter table by name. ENUM values are the index of the choice.
 * Texts are copies, so that a copy of struct iop_run stands on its own.
 */
struct iop_common_opts {
	char cpus[128];			/* "": the harness picks the last online CPU */
	uint64_t reps;
	double runtime;			/* seconds per repetition */
	uint64_t warmup;		/* seconds */
	uint64_t interval_ms;
	double cv_max, foreign_max;	/* % */
	char main_metric[128];		/* "": the first metric */
	double target_ci;		/* %; 0: off */
	uint64_t time_budget;		/* seconds */
	uint64_t inject_ns;
	enum iop_inject_clock inject_clock;
	uint64_t inject_loops, inject_every;
	bool inject_probe;
	enum iop_stable_writes stable_writes;
};

struct iop_metric {
	const char *name;
	const char *unit;
	enum iop_better better;
	bool is_rate;		/* aggregated with the harmonic mean */
};

#define IOP_MAX_PARAMS	48
#define IOP_MAX_PHASES	12
#define IOP_MAX_WORKERS	64

/* A parsed parameter value. */
struct iop_value {
	const struct iop_param *p;
	char text[128];
	uint64_t u;		/* U64, SIZE, BOOL, index into choices for ENUM */
	double d;		/* DOUBLE */
};

struct iop_bench;
struct iop_run;

/* Log-linear latency histogram: 64 sub-buckets per power of two (<1.6% error). */
#define IOP_HIST_SUB_BITS	6
#define IOP_HIST_BUCKETS	(64 * (64 - IOP_HIST_SUB_BITS + 1))
struct iop_hist {
	uint64_t count;
	uint64_t b[IOP_HIST_BUCKETS];
};

static inline unsigned int iop_hist_index(uint64_t v)
{
	unsigned int msb, shift;

	if (v < (1u << IOP_HIST_SUB_BITS))
		return (unsigned int)v;
	msb = 63 - (unsigned int)__builtin_clzll(v);
	shift = msb - IOP_HIST_SUB_BITS;
	return ((shift + 1) << IOP_HIST_SUB_BITS) +
	       (unsigned int)((v >> shift) & ((1u << IOP_HIST_SUB_BITS) - 1));
}

static inline void iop_hist_add(struct iop_hist *h, uint64_t v)
{
	h->b[iop_hist_index(v)]++;
	h->count++;
}

/* Value at percentile @p (0..100); 0 for an empty histogram. */
double iop_hist_pct(const struct iop_hist *h, double p);
void iop_hist_merge(struct iop_hist *dst, const struct iop_hist *src);

/* One per worker thread; cache-line aligned so counters never share a line. */
struct iop_worker {
	/* written by the worker in the timed loop, read by the sampler */
	volatile uint64_t ops __attribute__((aligned(64)));
	/* written by the harness, read by the worker */
	volatile int stop __attribute__((aligned(64)));
	int phase;
	int idx;		/* 0..nworkers-1 */
	int cpu;		/* the CPU it is pinned to */
	struct iop_run *run;
	void *priv;		/* the benchmark's per-thread state */
	struct iop_hist *hist;	/* latency histogram, if the benchmark keeps one */
	/* private to the harness */
	int cmd;
	int err;
	char why[512];
	uint64_t t_start, t_end, ops_start;
	double utime, stime;	/* seconds, RUSAGE_THREAD over the last command */
	uint64_t cpu_ns;	/* CLOCK_THREAD_CPUTIME_ID over the last command (exact) */
	long nivcsw;
	long migrations;	/* se.nr_migrations over the last command */
	int cpu_seen_start, cpu_seen_end;
	char affinity[256];
	unsigned long tid;
	/* the known effect (inject_ns): set up by iop_inject_init() */
	struct iop_inject inject;
};

static inline bool iop_stopping(const struct iop_worker *w)
{
	return __builtin_expect(w->stop, 0);
}

static inline void iop_count(struct iop_worker *w, uint64_t n)
{
	if (__builtin_expect(w->inject.every != 0, 0))
		n -= iop_uncounted(&w->inject, n);
	/* single writer: a plain store the sampler reads with a relaxed load */
	__atomic_store_n(&w->ops, w->ops + n, __ATOMIC_RELAXED);
}

/* The known extra work of a calibration run (harness_inject.h), right after iop_count(). */
static inline void iop_inject(struct iop_worker *w, uint64_t nops)
{
	iop_inject_step(&w->inject, nops);
}

/* The state of one job: a benchmark at one parameter point on one filesystem. */
struct iop_run {
	const struct iop_bench *bench;
	struct iop_value val[IOP_MAX_PARAMS];
	int nval;
	struct iop_common_opts opt;	/* the harness's parameters of val[], typed */
	/* where: a directory on the scratch filesystem, or "" */
	char dir[PATH_MAX];
	const char *fstype;	/* "ext4", "xfs", or NULL */
	const char *dev;	/* block device under dir, or NULL */
	/* filled by the benchmark's setup() */
	int nworkers;		/* default 1 */
	int nphases;		/* default 1 */
	const char *phase_names[IOP_MAX_PHASES];
	bool keeps_hist;	/* workers fill w->hist */
	/* operations a worker counts at once (an io_uring completion batch); default 1 */
	unsigned int count_unit;
	void *priv;
	json_t *extra;		/* benchmark-specific facts for the record ("result") */
	/* harness-owned */
	struct iop_worker *w[IOP_MAX_WORKERS];
	int cpus[IOP_MAX_WORKERS];
	int ncpus;
	char invocation[48];	/* this run of the job, unique within a boot: run.invocation */
};

/* Look up a parameter of the current job (by name; a typo is a bug: abort()). */
uint64_t iop_u64(const struct iop_run *r, const char *name);
double iop_dbl(const struct iop_run *r, const char *name);
/* runtime= in ms */
int iop_runtime_ms(const struct iop_run *r);
const char *iop_str(const struct iop_run *r, const char *name);
bool iop_is(const struct iop_run *r, const char *name, const char *choice);
/* validate hook for file benchmarks: size= must hold at least one bs= block. */
int iop_validate_size_holds_bs(const struct iop_run *r, char *why, size_t len);

/* The per-repetition measurements handed to a benchmark's metrics() hook. */
struct iop_rep {
	int nsamples;
	double *rate[IOP_MAX_PHASES];	/* ops/s per interval, per phase */
	double *ns_per_op[IOP_MAX_PHASES];	/* wall clock */
	/* the workers' own CPU time: robust to preemption */
	double *cpu_ns_per_op[IOP_MAX_PHASES];
	uint64_t ops[IOP_MAX_PHASES];	/* over the whole repetition */
	/*
	 * The whole repetition, its first interval included, as the workers
	 * timed it (from the start of their loop to its end, a drain of what
	 * was in flight included): time per operation per worker, CPU time
	 * per operation, and operations per second. Every operation counted
	 * in its own time: nothing quantized, nothing left out. NAN when
	 * nothing completed.
	 */
	double whole_ns_per_op[IOP_MAX_PHASES];
	double whole_cpu_ns_per_op[IOP_MAX_PHASES];
	double whole_rate[IOP_MAX_PHASES];
	/*
	 * What one unit of completion (count_unit operations) is of a slice
	 * the sampler counted, as a fraction of the slice's median count: the
	 * step a slice's rate moves in. 0 where the workers timed each slice
	 * themselves (phases), which counts every operation in its own time.
	 */
	double quantum[IOP_MAX_PHASES];
	double usr_ns_per_op, sys_ns_per_op;
	double on_cpu_pct;			/* worker CPU time / wall time */
	struct iop_hist *hist;		/* all workers merged, or NULL */
};

/* Add a metric declared in the benchmark's table (an undeclared one is a bug). */
int iop_metric_add(const struct iop_run *r, json_t *rec, const char *name,
		   const double *samples, size_t n);
/*
 * The same, for a metric of operations and time with @whole, the whole
 * repetition's figure (iop_rep.whole_*), and @quantum, what one unit of
 * completion is of a slice (iop_rep.quantum). Where the clock counts
 * instructions (docs/ab.md) the value is @whole: under icount time is
 * exact, so the repetition's operations over its time carry every
 * operation, where slices counted in units of completion are quantized
 * and a summary of them leaves some out. Elsewhere the value stays the
 * slices' (hmean or median, robust to a host that stalls a slice) and
 * the record says what one quantum of them is.
 */
int iop_metric_add_whole(const struct iop_run *r, json_t *rec, const char *name,
			 const double *samples, size_t n, double whole, double quantum);
/* lat_p50_ns, lat_p99_ns and lat_p999_ns from the repetition's histogram, if it has one. */
/*
 * Add @name as the floor of @samples: the least time per operation over
 * the repetition's intervals (non-finite intervals left out). Contention
 * from the host (another guest on the core, frequency) only ever adds
 * time, so the floor is the cost with the least of it: here it varies
 * between repetitions 5-20 times less than the median (docs/benchmarks.md).
 */
int iop_metric_add_floor(const struct iop_run *r, json_t *rec, const char *name,
			 const double *samples, size_t n);
int iop_metric_add_latency(const struct iop_run *r, json_t *rec, const struct iop_rep *rep);

struct iop_fio_job {
	char *argv[64];		/* fio arguments after "fio", NULL-terminated */
	int argc;
	const char *ddir;	/* "read", "write" or "trim": where fio's JSON has the IOPS */
	int phase;		/* which of our phases it corresponds to */
	char store[32][160];	/* backing storage for formatted arguments */
	int nstore;
};

/* Append a formatted argument to a fio job. */
void iop_fio_arg(struct iop_fio_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * End a fio job the way every benchmark runs it: time based, one second
 * of ramp, @runtime_ms ms, no per-I/O clock reads unless @lat; its IOPS
 * under @ddir compare with our phase @phase.
 */
void iop_fio_time_based(struct iop_fio_job *j, bool lat, int runtime_ms,
			const char *ddir, int phase);
/* Free the run's job (r->priv, set to NULL), first unlinking @path when @created. */
void iop_job_free(struct iop_run *r, const char *path, bool created);

struct iop_bench {
	const char *name;
	const char *description;	/* "... This benchmark measures ..." */
	const struct iop_param *params;	/* terminated by { .name = NULL } */
	const struct iop_metric *metrics; /* terminated by { .name = NULL } */
	bool latency_metrics;	/* also iop_latency_metrics (iop_metric_add_latency) */
	/* this benchmark's defaults for common parameters ("interval_ms=200 runtime=2") */
	const char *common_defaults;
	/*
	 * Parameters added after records existed ("calls"): left out of a
	 * record's params at their defaults, so records still pair with
	 * those of older runs.
	 */
	const char *added_later;
	/* parameters that are valid alone but not together: -EINVAL and why */
	int (*validate)(const struct iop_run *r, char *why, size_t len);
	/*
	 * Whether a run with these parameters reports metric @name (NULL:
	 * every metric it declares). The default main metric is the first
	 * declared one it reports.
	 */
	bool (*reports)(const struct iop_run *r, const char *name);
	/* true if the job needs a scratch filesystem (given its parameters) */
	bool (*needs_fs)(const struct iop_run *r);
	/* 0 if it can run here; -errno and a reason to skip */
	int (*requires)(struct iop_run *r, char *why, size_t len);
	/* once per job: files, buffers; set nworkers/nphases */
	int (*setup)(struct iop_run *r, char *why, size_t len);
	/* on the pinned worker, before its first timed loop */
	int (*worker_init)(struct iop_worker *w, char *why, size_t len);
	/* right before every repetition and the warm-up: warm the caches */
	int (*warm)(struct iop_run *r, char *why, size_t len);
	/* the timed loop; returns 0 or -errno (w->why may say more) */
	int (*run)(struct iop_worker *w);
	/*
	 * Derive this benchmark's metrics from a repetition (iop_metric_add);
	 * *primary is the figure whose spread across repetitions decides
	 * whether the result is trusted (the median of the main metric).
	 */
	int (*report)(struct iop_run *r, const struct iop_rep *rep, json_t *rec,
		      double *primary);
	void (*worker_exit)(struct iop_worker *w);
	void (*teardown)(struct iop_run *r);
	/* the matching fio job (for --vs-fio); -EOPNOTSUPP if none */
	int (*fio)(const struct iop_run *r, struct iop_fio_job *j, int runtime_ms);
	struct iop_bench *next;
};

void iop_bench_register(struct iop_bench *b);
/* Sorted by name. */
const struct iop_bench *iop_bench_first(void);
const struct iop_bench *iop_bench_find(const char *name);

#define IOP_BENCH(_b)							\
	static void __attribute__((constructor)) iop_bench_reg_##_b(void) \
	{								\
		iop_bench_register(&(_b));				\
	}

/* Parameters every benchmark takes (cpus, reps, runtime, ...). */
extern const struct iop_param iop_common_params[];
/*
 * Whether @name is a setting of the harness (IOP_COMMON_SETTING in
 * common_params.h: how it runs and judges, not what the workload is):
 * iopath export leaves it out of a benchmark's test path.
 */
bool iop_param_is_setting(const char *name);
/* Metrics the harness adds to every single-phase benchmark (CPU per op). */
extern const struct iop_metric iop_common_metrics[];
/* The percentiles iop_metric_add_latency() fills, where .latency_metrics. */
extern const struct iop_metric iop_latency_metrics[];
#define IOP_METRIC_TABLES	3
/* @b's metric tables, its own first: fills @tables, returns how many. */
int iop_metric_tables(const struct iop_bench *b,
		      const struct iop_metric *tables[IOP_METRIC_TABLES]);

/* Print the parameter table of @b (common parameters too) to @f. */
void iop_bench_usage(const struct iop_bench *b, FILE *f);

/* One value of @p alone: 0, or -EINVAL with "name=value: must be ..." in @why. */
int iop_param_check(const struct iop_param *p, const char *text, char *why, size_t len);

/*
 * Parse "name=value" settings (@n of them) into @r for @b, filling defaults.
 * -EINVAL with a one-line message in @why naming the parameter and the
 * allowed values.
 */
int iop_params_parse(const struct iop_bench *b, struct iop_run *r, char **kv, int n,
		     char *why, size_t len);
/* The params object of a record: every parameter with its value. */
json_t *iop_params_json(const struct iop_run *r);

/* Harness options that are not benchmark parameters. */
struct iop_harness_opts {
	bool quiet;		/* no progress on stderr */
	const char *backing;	/* for the record */
	const char *mkfs_opts, *mount_opts;
	/* called after each repetition's record is made (--vs-fio runs fio here) */
	int (*after_rep)(struct iop_run *r, int rep, const struct iop_rep *res, json_t *rec,
			 void *arg, char *why, size_t len);
	void *arg;
};

/*
 * Run one job: setup, warm-up, the repetitions, teardown. Appends one record
 * per repetition to @recs (a JSON array). Returns 0, -errno for a failure
 * (@why says what) or a positive IOP_SKIPPED with @why the reason.
 */
#define IOP_SKIPPED 4
int iop_bench_run(struct iop_run *r, const struct iop_harness_opts *o, json_t *recs,
		  char *why, size_t len);

/* ---- main metric, precision (microbench/harness_precision.c) ---- */

#define IOP_MAX_REPS	1000

/* The metric the verdict, the trust check and target_ci go by. */
const char *iop_main_metric(const struct iop_run *r);
/* The declaration of metric NAME in b->metrics or iop_common_metrics, or NULL. */
const struct iop_metric *iop_metric_decl(const struct iop_bench *b, const char *name);
bool iop_main_metric_is_rate(const struct iop_run *r);
/* -EINVAL and why when main_metric= names no metric of the benchmark. */
int iop_main_metric_check(const struct iop_run *r, char *why, size_t len);
/* The "value" of metric @name in record @rec, or NAN. */
double iop_record_value(json_t *rec, const char *name);

struct iop_precision {
	double target_pct;	/* target_ci; 0: a fixed number of repetitions */
	double ci_pct;		/* the 95% CI half-width reached, in % of the mean */
	const char *stopped;	/* "target", "time_budget", "max_reps" */
	int reps;
};

/*
 * Whether another repetition is due after @done of them, whose main metric
 * values are @main, the first started at @t0 (iop_now_ns). Fills @p.
 */
bool iop_precision_more(const struct iop_run *r, const double *main, int done, uint64_t t0,
			struct iop_precision *p);
/* With target_ci: run.precision in each of the job's @recs, and a line on stderr; 0 or -ENOMEM. */
int iop_precision_record(const struct iop_run *r, const struct iop_precision *p, json_t *recs,
			 bool quiet);

/* Set from SIGINT/SIGTERM: stop at the next interval and clean up. */
extern volatile int iop_interrupted;
void iop_bench_signals(void);

/* The block device holding @path ("/dev/zram1"), or "" if unknown. */
void iop_path_device(const char *path, char *buf, size_t len);

/*
 * Fill a file with incompressible data so zram stores real pages, its
 * blocks preallocated first (*@prealloc: whether the filesystem took the
 * fallocate()) so that they do not depend on when writeback ran.
 */
int iop_fill_file(int fd, uint64_t size, bool *prealloc);

/*
 * Where the filesystem maps @fd's data (FIEMAP, synced): "logical+length@
 * physical" in bytes for each of the first IOP_LAYOUT_EXTENTS extents,
 * space-separated, in @buf; returns how many extents there are, or -errno.
 * A record carries both: the cost of a block lookup depends on the layout,
 * so a layout that differs from boot to boot shows as a mode in the counts.
 */
#define IOP_LAYOUT_EXTENTS 16
long iop_file_layout(int fd, char *buf, size_t len);

/*
 * Drop ext4's extent status entries of @fd and load them again from the
 * extent tree, in file order: the entries writeback inserted, in the order
 * it ran, leave a tree whose shape (and so the cost of each block lookup)
 * differs from boot to boot. 0, -EOPNOTSUPP if @fd is not on ext4, or
 * -errno (ENOTTY: a kernel before 5.4, without EXT4_IOC_CLEAR_ES_CACHE).
 */
int iop_ext4_reload_extent_cache(int fd);

/*
 * The extent status cache entries ext4 holds for the filesystem on @dev
 * (/proc/fs/ext4/DEV/es_shrinker_info), or -errno (not ext4): every
 * block lookup searches that tree, so its size is one more thing a boot
 * can differ in.
 */
long iop_ext4_es_objects(const char *dev);

/*
 * How much of the mapping holding @addr is in transparent huge pages, in
 * kB (AnonHugePages in /proc/self/smaps), or -errno: buffers asked for in
 * huge pages get them only where the kernel has one to give.
 */
long iop_anon_huge_kb(const void *addr);

#endif
