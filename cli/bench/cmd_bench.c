// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iopath bench: run microbenchmarks (the files in microbench/) one by one or from a
 * profile (configs/bench/NAME.conf), each on scratch ext4 and/or XFS, and
 * write one JSON Lines record per repetition. --vs-fio runs the matching
 * fio job on the same file and CPU after each repetition (A B A B ...) and
 * prints the ratio (bench_fio.c). Jobs and profiles: bench_jobs.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "bench_calibrate.h"
#include "bench_check.h"
#include "bench_fio.h"
#include "bench_jobs.h"
#include "cli.h"
#include "iopath.h"

/* A scratch filesystem kept for the jobs that want the same one. */
struct scratch_slot {
	struct iop_scratch *s;
	char fs[16];
	char backing[PATH_MAX];
	enum iop_stable_writes stable_writes;
};

#define MAX_SCRATCH 4

struct ctx {
	bool json, quiet, vs_fio;
	const char *fs_override, *backing_override;
	const char *reps, *runtime;
	const char *target_ci;	/* --target-ci: the target_ci= parameter */
	char out[PATH_MAX];
	bool out_started;
	bool out_reserved;	/* an empty placeholder made for the name: removed if unused */
	struct scratch_slot scratch[MAX_SCRATCH];	/* created when first needed */
	int nscratch;
	int failed, skipped, ran, untrusted;
};

/* ---- scratch filesystems ---------------------------------------------- */

static int get_scratch(struct ctx *c, const char *fstype, const char *backing,
		       const struct iop_run *r, struct iop_scratch **out, char *why, size_t len)
{
	enum iop_stable_writes sw = r->opt.stable_writes;
	struct iop_scratch_opts o = { 0 };
	int ret;

	struct scratch_slot *slot;

	for (int i = 0; i < c->nscratch; i++) {
		if (!strcmp(c->scratch[i].fs, fstype) && !strcmp(c->scratch[i].backing, backing) &&
		    c->scratch[i].stable_writes == sw) {
			*out = c->scratch[i].s;
			return 0;
		}
	}
	if (c->nscratch == MAX_SCRATCH) {	/* keep at most a few around: drop the oldest */
		iop_scratch_destroy(c->scratch[0].s);
		memmove(&c->scratch[0], &c->scratch[1], (MAX_SCRATCH - 1) * sizeof(c->scratch[0]));
		c->nscratch--;
	}
	ret = iop_scratch_opts_from_env(&o, why, len);
	if (ret)
		return ret;
	ret = iop_parse_backing(backing, &o, why, len);
	if (ret)
		return ret;
	o.fstype = fstype;
	o.stable_writes = sw;
	/* where a file's blocks go must not follow background timing */
	o.measure = true;
	/* room for the default 1 GiB files; zram uses memory only for what is written */
	if (!o.size)
		o.size = IOP_BENCH_SCRATCH_SIZE;
	if (o.backing != IOP_BACKING_DIR && geteuid() != 0) {
		snprintf(why, len, "%s scratch filesystem needs root", fstype);
		return -EPERM;
	}
	if (!c->quiet)
		fprintf(stderr, "iopath: bench: making a scratch %s (%s)\n", fstype,
			iop_backing_name(o.backing));
	ret = iop_scratch_create(&o, out, why, len);
	if (ret)
		return ret;
	slot = &c->scratch[c->nscratch++];
	slot->s = *out;
	snprintf(slot->fs, sizeof(slot->fs), "%s", fstype);
	snprintf(slot->backing, sizeof(slot->backing), "%s", backing);
	slot->stable_writes = sw;
	return 0;
}

static void put_scratches(struct ctx *c)
{
	for (int i = 0; i < c->nscratch; i++)
		iop_scratch_destroy(c->scratch[i].s);
	c->nscratch = 0;
}

/* ---- running ----------------------------------------------------------- */

static const char *metric_str(json_t *rec, const char *name, double *med)
{
	size_t i;
	json_t *m;

	json_array_foreach(json_object_get(rec, "metrics"), i, m) {
		if (!strcmp(json_string_value(json_object_get(m, "name")) ?: "", name)) {
			*med = json_number_value(json_object_get(m, "median"));
			return json_string_value(json_object_get(m, "unit"));
		}
	}
	return NULL;
}

static void fmt_num(double v, char *buf, size_t len)
{
	if (fabs(v) >= 1e6)
		snprintf(buf, len, "%.3fM", v / 1e6);
	else if (fabs(v) >= 1e4)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.4g", v);
}

/* One line per metric: the median across repetitions of each rep's median. */
static void summary(const struct iop_run *r, const struct job *j, const char *fs, json_t *recs,
		    const struct fio_pair *fp)
{
	size_t nrec = json_array_size(recs);
	double *v = calloc(nrec ? nrec : 1, sizeof(double));
	const struct iop_metric *tables[IOP_METRIC_TABLES];
	char line[1024], num[32];
	int l = 0, ntables;

	if (!v)
		return;
	l += snprintf(line + l, sizeof(line) - (size_t)l, "%s", r->bench->name);
	if (fs)
		l += snprintf(line + l, sizeof(line) - (size_t)l, " fs=%s", fs);
	for (int i = 0; i < j->nkv && l < (int)sizeof(line) - 64; i++) {
		size_t kl = strcspn(j->kv[i], "=") + 1;
		bool later = false;

		for (int k = i + 1; k < j->nkv; k++)
			later |= !strncmp(j->kv[i], j->kv[k], kl);
		if (!later)
			l += snprintf(line + l, sizeof(line) - (size_t)l, " %s", j->kv[i]);
	}
	printf("%s\n", line);
	ntables = iop_metric_tables(r->bench, tables);
	for (int t = 0; t < ntables; t++) {
		for (const struct iop_metric *m = tables[t]; m && m->name; m++) {
			const char *unit = NULL;
			size_t n = 0;

			for (size_t i = 0; i < nrec; i++) {
				double med;
				const char *u = metric_str(json_array_get(recs, i), m->name, &med);

				if (u) {
					unit = u;
					v[n++] = med;
				}
			}
			if (!n)
				continue;
			fmt_num(iop_median(v, n), num, sizeof(num));
			printf("  %-22s %10s %-6s cv %5.2f%% over %zu rep%s\n", m->name, num, unit,
			       n > 1 ? iop_cv(v, n) * 100 : 0.0, n, n == 1 ? "" : "s");
		}
	}
	{
		double on[1000], fo[1000];
		char cpus[64] = "";
		size_t n = 0;

		for (size_t i = 0; i < nrec && n < 1000; i++) {
			json_t *run = json_object_get(json_array_get(recs, i), "run");

			on[n] = json_number_value(json_object_get(run, "worker_on_cpu_pct"));
			fo[n++] = json_number_value(json_object_get(run, "foreign_cpu_pct"));
		}

		for (int i = 0; i < r->ncpus && strlen(cpus) < sizeof(cpus) - 8; i++)
			snprintf(cpus + strlen(cpus), sizeof(cpus) - strlen(cpus),
				 i ? ",%d" : "%d", r->cpus[i]);
		if (n)
			printf("  %-22s CPU %s, workers on CPU %.0f%% of the time, other processes %.0f%% of a CPU (medians)\n",
			       "placement", cpus, iop_median(on, n), iop_median(fo, n));
	}
	for (size_t i = 0; i < nrec; i++) {
		const char *st = json_string_value(json_object_get(json_array_get(recs, i),
								   "status"));

		if (st && strcmp(st, "ok"))
			printf("  rep %zu: %s\n", i + 1, st);
	}
	if (fp && fp->n) {
		double ratio[1000], cratio[1000];

		for (int i = 0; i < fp->n; i++) {
			ratio[i] = fp->ours[i] / fp->fio[i];
			cratio[i] = fp->fio_cpu[i] / fp->ours_cpu[i];
		}
		printf("  vs fio (A B A B, %d pairs): iopath %.0f ops/s, fio %.0f ops/s (medians), ratio %.3f (median of pairs, cv of fio %.1f%%)\n",
		       fp->n, iop_median(fp->ours, (size_t)fp->n),
		       iop_median(fp->fio, (size_t)fp->n), iop_median(ratio, (size_t)fp->n),
		       fp->n > 1 ? iop_cv(fp->fio, (size_t)fp->n) * 100 : 0.0);
		printf("  vs fio CPU per op: iopath %.0f ns, fio %.0f ns (medians), fio/iopath %.3f (median of pairs)\n",
		       iop_median(fp->ours_cpu, (size_t)fp->n),
		       iop_median(fp->fio_cpu, (size_t)fp->n), iop_median(cratio, (size_t)fp->n));
	}
	fflush(stdout);
	free(v);
}

static int write_records(struct ctx *c, json_t *recs)
{
	size_t n = json_array_size(recs);
	json_t **v;
	int ret;

	if (!n)
		return 0;
	if (c->json) {
		bool bad = false;

		for (size_t i = 0; i < n; i++) {
			bad |= json_dumpf(json_array_get(recs, i), stdout, JSON_COMPACT) != 0;
			fputc('\n', stdout);
		}
		if (fflush(stdout) || bad)
			return -EIO;
	}
	if (!c->out[0])
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(recs, i);
	ret = iop_records_write(c->out, v, n, c->out_started);
	free(v);
	if (ret) {
		fprintf(stderr, "iopath: bench: writing %s: %s\n", c->out, strerror(-ret));
		return ret;
	}
	c->out_started = true;
	return 0;
}

/* Point a run, and what its records say of the filesystem, at scratch @s. */
static void use_scratch(struct iop_run *r, struct iop_harness_opts *o, const struct iop_scratch *s)
{
	snprintf(r->dir, sizeof(r->dir), "%s", s->mnt);
	r->fstype = s->fstype;
	r->dev = s->dev;
	o->backing = iop_backing_name(s->backing);
	o->mkfs_opts = s->mkfs_opts;
	o->mount_opts = s->mount_opts;
}

/* Run one expanded job on one filesystem (or none). */
static int run_one(struct ctx *c, const struct job *j, const char *fs, const struct iop_run *proto)
{
	struct iop_harness_opts o = { .quiet = c->quiet };
	struct fio_pair *fp = NULL;
	struct iop_scratch *s = NULL;
	char why[512] = "";
	json_t *recs = json_array();
	struct iop_run *r;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r || !recs) {
		free(r);
		json_decref(recs);
		return -ENOMEM;
	}
	*r = *proto;
	if (fs) {
		ret = get_scratch(c, fs, j->backing, r, &s, why, sizeof(why));
		if (ret) {
			fprintf(stderr, "iopath: bench %s: SKIP on %s: %s\n", j->b->name, fs, why);
			c->skipped++;
			ret = 0;
			goto out;
		}
		use_scratch(r, &o, s);
	}
	if (c->vs_fio) {
		fp = calloc(1, sizeof(*fp));
		if (!fp) {
			ret = -ENOMEM;
			goto out;
		}
		o.after_rep = vs_fio_after_rep;
		o.arg = fp;
	}
	if (!c->quiet)
		fprintf(stderr, "iopath: bench %s%s%s: %d rep%s of %g s\n", j->b->name,
			fs ? " on " : "",
			fs ? fs : "", (int)r->opt.reps, r->opt.reps == 1 ? "" : "s",
			r->opt.runtime);
	ret = iop_bench_run(r, &o, recs, why, sizeof(why));
	if (ret == IOP_SKIPPED) {
		fprintf(stderr, "iopath: bench %s: SKIP%s%s: %s\n", j->b->name, fs ? " on " : "",
			fs ? fs : "", why);
		c->skipped++;
		ret = 0;
		goto out;
	}
	if (ret < 0) {
		fprintf(stderr, "iopath: bench %s%s%s: FAILED: %s\n", j->b->name, fs ? " on " : "",
			fs ? fs : "", why[0] ? why : strerror(-ret));
		c->failed++;
		if (ret == -EINTR)
			goto out;
		ret = 0;
	}
	c->ran++;
	for (size_t i = 0; i < json_array_size(recs); i++) {
		const char *st = json_string_value(json_object_get(json_array_get(recs, i),
								   "status"));

		if (st && !strncmp(st, "untrusted", 9)) {
			c->untrusted++;
			break;
		}
	}
	if (write_records(c, recs))
		c->failed++;
	if (!c->json && json_array_size(recs))
		summary(r, j, fs, recs, fp);
out:
	free(fp);
	free(r);
	json_decref(recs);
	return ret;
}

/* Parameters that options set besides --reps and --runtime: target_ci=. */
/*
 * A job's parameters as the harness takes them: the job's own, then what
 * --reps, --runtime and --target-ci override.
 */
struct job_kv {
	char *kv[MAX_KV + 3];
	char reps[32], runtime[32], tci[48];
	int n;
};

static void job_kv_fill(const struct ctx *c, const struct job *j, struct job_kv *a)
{
	a->n = 0;
	for (int k = 0; k < j->nkv; k++)
		a->kv[a->n++] = j->kv[k];
	if (c->reps) {
		snprintf(a->reps, sizeof(a->reps), "reps=%s", c->reps);
		a->kv[a->n++] = a->reps;
	}
	if (c->runtime) {
		snprintf(a->runtime, sizeof(a->runtime), "runtime=%s", c->runtime);
		a->kv[a->n++] = a->runtime;
	}
	if (c->target_ci) {
		snprintf(a->tci, sizeof(a->tci), "target_ci=%s", c->target_ci);
		a->kv[a->n++] = a->tci;
	}
}

struct calib_arg {
	struct ctx *c;
	const struct job *j;
	const char *fs;		/* NULL: the job needs none */
};

/*
 * One run of a calibration side: the job with the calibration's
 * parameters, records to --out, each with run.pairing = @pairing when
 * the sides are interleaved.
 */
static int calib_side(void *arg, char **kv, int nkv, json_t *pairing, json_t *recs, char *why,
		      size_t len)
{
	struct calib_arg *a = arg;
	struct iop_harness_opts o = { .quiet = true };
	struct iop_scratch *s;
	struct iop_run *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	ret = iop_params_parse(a->j->b, r, kv, nkv, why, len);
	if (!ret && a->fs) {
		ret = get_scratch(a->c, a->fs, a->j->backing, r, &s, why, len);
		if (!ret)
			use_scratch(r, &o, s);
	}
	if (!ret)
		ret = iop_bench_run(r, &o, recs, why, len);
	if (ret == IOP_SKIPPED)
		ret = -EOPNOTSUPP;
	if (pairing) {
		size_t i;
		json_t *rec;

		json_array_foreach(recs, i, rec) {
			if (json_object_set(json_object_get(rec, "run"), "pairing", pairing) &&
			    !ret) {
				snprintf(why, len, "%s", strerror(ENOMEM));
				ret = -ENOMEM;
			}
		}
	}
	if (write_records(a->c, recs) && !ret) {
		snprintf(why, len, "writing %s failed", a->c->out);
		ret = -EIO;
	}
	free(r);
	return ret;
}

/* --calibrate: one job, on the first filesystem of its list. */
static int calibrate(struct ctx *c, const struct jobs *js, const struct iop_calib_opts *co)
{
	const struct job *j = &js->v[0];
	struct calib_arg a = { .c = c, .j = j };
	struct job_kv args;
	char why[512], fsl[64];
	struct iop_run proto = { 0 };
	int ret;

	job_kv_fill(c, j, &args);
	if (iop_params_parse(j->b, &proto, args.kv, args.n, why, sizeof(why)))
		return iop_usage_error("bench", "%s: %s", j->b->name, why);
	snprintf(fsl, sizeof(fsl), "%s", c->fs_override ? c->fs_override : j->fs);
	fsl[strcspn(fsl, ",")] = '\0';
	a.fs = j->b->needs_fs(&proto) && strcmp(iop_trim(fsl), "none") ? iop_trim(fsl) : NULL;
	ret = iop_calibrate(j->b, args.kv, args.n, co, calib_side, &a, stdout, why, sizeof(why));
	if (ret == -EINVAL)
		return iop_usage_error("bench", "--calibrate %s: %s", j->b->name, why);
	if (ret) {
		fprintf(stderr, "iopath: bench --calibrate %s: %s\n", j->b->name,
			iop_interrupted ? "interrupted" : why[0] ? why : strerror(-ret));
		return 1;
	}
	fflush(stdout);
	return 0;
}

static int run_jobs(struct ctx *c, struct jobs *js)
{
	for (int i = 0; i < js->n && !iop_interrupted; i++) {
		struct job *j = &js->v[i];
		struct iop_run proto = { 0 };
		struct job_kv args;
		char why[512], fsl[64], *save, *fs;
		int ret;

		job_kv_fill(c, j, &args);
		ret = iop_params_parse(j->b, &proto, args.kv, args.n, why, sizeof(why));
		if (ret)
			return iop_usage_error("bench", "%s: %s", j->b->name, why);
		if (!j->b->needs_fs(&proto)) {
			ret = run_one(c, j, NULL, &proto);
			if (ret)
				return ret;
			continue;
		}
		snprintf(fsl, sizeof(fsl), "%s", c->fs_override ? c->fs_override : j->fs);
		for (fs = strtok_r(fsl, ",", &save); fs && !iop_interrupted;
		     fs = strtok_r(NULL, ",", &save)) {
			fs = iop_trim(fs);
			if (!strcmp(fs, "none"))
				continue;
			ret = run_one(c, j, fs, &proto);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static void list(FILE *f)
{
	for (const struct iop_bench *b = iop_bench_first(); b; b = b->next)
		fprintf(f, "%-16s %s\n", b->name, b->description);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iopath bench [options] [NAME [param=value ...]]\n"
		"       iopath bench --vs-fio NAME [param=value ...]\n"
		"       iopath bench --list | --help [NAME]\n\n"
		"  --list              the benchmarks (with NAME: its parameters)\n"
		"  --profile NAME      run configs/bench/NAME.conf (or a path)\n"
		"  --fs LIST           filesystems, e.g. ext4,xfs (default ext4,xfs)\n"
		"  --backing B         zram (default), loop, dev:/dev/X or dir:/mounted/dir\n"
		"  --reps N            repetitions (overrides the profile)\n"
		"  --runtime S         seconds per repetition (overrides the profile)\n"
		"  --out FILE          records file (default results/<name>-<time>.jsonl; '-' none)\n"
		"  --json              records on stdout as JSON Lines, no summary\n"
		"  --vs-fio            after each repetition run the matching fio job on the same\n"
		"                      file and CPUs (A B A B) and print the ratio\n"
		"  --quiet             no progress on stderr\n"
		"  --dry-run           validate and list the jobs, run nothing\n"
		"  --target-ci PCT     repeat until the main metric's 95%% CI is within +-PCT %%\n"
		"                      (or time_budget= ends); --reps is then the minimum\n"
		"  --calibrate         measure what comparisons of NAME can resolve: A/A pairs and\n"
		"                      pairs with known effects (inject_ns), MDE at 95%% power\n"
		"  --pairs N           calibration pairs of each kind (default 20)\n"
		"  --runs K            runs per side, tested over the runs as compare does (1)\n"
		"  --interleave        run the sides of a pair round by round, one run each, and\n"
		"                      test the runs paired by cycle (--runs a multiple of twice\n"
		"                      the sides, A, A' and the effects)\n"
		"  --effects LIST      known effects in %% (default 1,2,5)\n"
		"  --side-time S       also state the MDE for S seconds per side (default 60)\n\n"
		"Values with commas are matrix axes (bs=4k,64k). Parameters: iopath bench --help NAME.\n");
}

/*
 * Everything that can be checked before a scratch filesystem exists: the
 * parameters, the filesystems and backing each job names (a refused device
 * is bad usage, not a SKIP), and whether bs= and size= fit that backing.
 * Returns 0 or the exit status (2, one line on stderr).
 */
static int validate_jobs(const struct ctx *c, const struct jobs *js, bool calibrating)
{
	struct iop_backing_info bi;
	const char *checked = NULL;
	char why[512];

	if (calibrating && js->n != 1)
		return iop_usage_error("bench", "--calibrate takes one benchmark with single values, not %d jobs",
				       js->n);
	for (int i = 0; i < js->n; i++) {
		const struct job *j = &js->v[i];
		struct iop_run r = { 0 };
		struct job_kv args;

		job_kv_fill(c, j, &args);
		if (iop_params_parse(j->b, &r, args.kv, args.n, why, sizeof(why)))
			return iop_usage_error("bench", "%s: %s", j->b->name, why);
		if (c->vs_fio && !j->b->fio)
			return iop_usage_error("bench", "%s has no matching fio job", j->b->name);
		if (calibrating && iop_calib_check(j->b, args.kv, args.n, why, sizeof(why)))
			return iop_usage_error("bench", "--calibrate %s: %s", j->b->name, why);
		if (!j->b->needs_fs(&r))
			continue;
		if (iop_fs_list_check(c->fs_override ? c->fs_override : j->fs, why, sizeof(why)))
			return iop_usage_error("bench", "%s: %s", j->b->name, why);
		/* one backing's checks (a device's are not free) serve every job on it */
		if (!checked || strcmp(checked, j->backing)) {
			if (iop_backing_check(j->backing, &bi, why, sizeof(why)))
				return iop_usage_error("bench", "%s", why);
			checked = j->backing;
		}
		if (iop_bench_fits(&r, &bi, why, sizeof(why)))
			return iop_usage_error("bench", "%s: %s", j->b->name, why);
	}
	return 0;
}

static struct jobs js;

/* --pairs and --runs: an integer in lo..hi, or 2 after saying why. */
static int calib_count(const char *name, const char *val, int lo, int hi, int *out)
{
	uint64_t v;

	if (iop_parse_u64(val, (uint64_t)lo, (uint64_t)hi, &v))
		return iop_usage_error("bench", "--%s %s: must be an integer in %d..%d", name, val,
				       lo, hi);
	*out = (int)v;
	return 0;
}

/* --pairs, --runs, --effects, --side-time: 2 (after saying why) on a bad value. */
static int calib_option(struct iop_calib_opts *co, int opt, const char *val)
{
	double d;

	if (opt == 'E') {
		if (iop_calib_parse_effects(co, val))
			return iop_usage_error("bench", "--effects %s: must be up to %d percentages in (0, 50], e.g. 1,2,5",
					       val, IOP_CALIB_MAX_EFFECTS);
		return 0;
	}
	if (opt == 'P')
		return calib_count("pairs", val, 2, IOP_MAX_REPS, &co->pairs);
	if (opt == 'K')
		return calib_count("runs", val, 1, IOP_CALIB_MAX_RUNS, &co->runs);
	if (iop_parse_real(val, 1, 86400, &d))
		return iop_usage_error("bench", "--side-time %s: must be seconds in 1..86400", val);
	co->side_time = d;
	return 0;
}

/* What the command line asks for, besides the jobs' settings in struct ctx. */
struct bench_args {
	const char *profile, *out;
	bool do_list, do_help, dry_run, do_calibrate;
};

/* Options into @c, @co and @a; -1 to go on, else the exit status. Operands from optind. */
static int parse_opts(int argc, char **argv, struct ctx *c, struct iop_calib_opts *co,
		      struct bench_args *a)
{
	static const struct option opts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "profile", required_argument, NULL, 'p' },
		{ "fs", required_argument, NULL, 'f' },
		{ "backing", required_argument, NULL, 'b' },
		{ "reps", required_argument, NULL, 'r' },
		{ "runtime", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "vs-fio", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "target-ci", required_argument, NULL, 'T' },
		{ "calibrate", no_argument, NULL, 'C' },
		{ "pairs", required_argument, NULL, 'P' },
		{ "runs", required_argument, NULL, 'K' },
		{ "interleave", no_argument, NULL, 'I' },
		{ "effects", required_argument, NULL, 'E' },
		{ "side-time", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	int opt;

	optind = 0;
	while ((opt = iop_getopt(argc, argv, "bench", "", opts)) != -1) {
		switch (opt) {
		case 'l':
			a->do_list = true;
			break;
		case 'h':
			a->do_help = true;
			break;
		case 'p':
			a->profile = optarg;
			break;
		case 'f':
			c->fs_override = optarg;
			break;
		case 'b':
			c->backing_override = optarg;
			break;
		case 'r':
			c->reps = optarg;
			break;
		case 't':
			c->runtime = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'j':
			c->json = true;
			break;
		case 'v':
			c->vs_fio = true;
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'n':
			a->dry_run = true;
			break;
		case 'T':
			c->target_ci = optarg;
			break;
		case 'C':
			a->do_calibrate = true;
			break;
		case 'I':
			co->interleave = true;
			break;
		case 'P':
		case 'K':
		case 'E':
		case 'S':
			if (calib_option(co, opt, optarg))
				return 2;
			break;
		default:
			return 2;
		}
	}
	return -1;
}

/*
 * The jobs into js: from --profile, or the benchmark and name=value
 * operands from optind. -1 to go on, else the exit status.
 */
static int load_jobs(const struct ctx *c, const char *profile, int argc, char **argv)
{
	char why[512];
	int ret;

	if (profile && optind < argc)
		return iop_usage_error("bench", "give either --profile or a benchmark name, not both");
	if (profile) {
		ret = iop_profile_load(profile, &js, why, sizeof(why));
		if (ret)
			return iop_usage_error("bench", "%s", why);
	} else if (optind < argc) {
		struct job base = { 0 };

		base.b = iop_bench_find(argv[optind]);
		if (!base.b)
			return iop_usage_error("bench", "no benchmark '%s' (iopath bench --list)",
					       argv[optind]);
		snprintf(base.fs, sizeof(base.fs), "ext4,xfs");
		if (argc - optind - 1 > MAX_KV)
			return iop_usage_error("bench", "too many parameters");
		/* reps=1 reps=2: the last won silently; a matrix is reps=1,2 */
		for (int i = optind + 2; i < argc; i++) {
			size_t ki = strcspn(argv[i], "=");

			for (int j = optind + 1; j < i; j++)
				if (argv[i][ki] == '=' && !strncmp(argv[i], argv[j], ki + 1))
					return iop_usage_error("bench",
						"%s: %.*s given twice ('%s', '%s'; a list is %.*s=A,B)",
						base.b->name, (int)ki, argv[i], argv[j], argv[i],
						(int)ki, argv[i]);
		}
		ret = iop_jobs_expand(&js, &base, argv + optind + 1, argc - optind - 1);
		if (ret == -EINVAL) {
			for (int i = optind + 1; i < argc; i++)
				if (!strchr(argv[i], '='))
					return iop_usage_error("bench", "%s: expected name=value, got '%s'",
							       base.b->name, argv[i]);
		}
		if (ret == -E2BIG)
			return iop_usage_error("bench",
					       "the matrix makes more than %d jobs", MAX_JOBS);
		if (ret)
			return iop_usage_error("bench", "%s", strerror(-ret));
	} else {
		usage(stderr);
		return 2;
	}
	if (c->backing_override)
		for (int i = 0; i < js.n; i++)
			snprintf(js.v[i].backing, sizeof(js.v[i].backing), "%s",
				 c->backing_override);
	return -1;
}

/* --dry-run: each job as it would run, one line each. */
static void print_jobs(const struct ctx *c)
{
	char why[512];

	for (int i = 0; i < js.n; i++) {
		struct iop_run r = { 0 };

		iop_params_parse(js.v[i].b, &r, js.v[i].kv, js.v[i].nkv, why, sizeof(why));
		printf("%s", js.v[i].b->name);
		if (js.v[i].b->needs_fs(&r))
			printf(" fs=%s", c->fs_override ? c->fs_override : js.v[i].fs);
		for (int k = 0; k < js.v[i].nkv; k++)
			printf(" %s", js.v[i].kv[k]);
		printf("\n");
	}
}

static int bench_main(int argc, char **argv)
{
	struct ctx c = { 0 };
	struct iop_calib_opts co = { .pairs = 20, .runs = 1, .effects = { 0.01, 0.02, 0.05 },
				     .neffects = 3, .side_time = 60, .alpha = 0.05 };
	struct bench_args a = { 0 };
	char why[512];
	int ret;

	ret = parse_opts(argc, argv, &c, &co, &a);
	if (ret >= 0)
		return ret;
	if (co.interleave && (!co.runs || co.runs % (2 * iop_calib_cycle(&co))))
		return iop_usage_error("bench", "--interleave runs pairs of cycles of %d rounds (A, A' and %d effect%s): --runs must be a multiple of %d, not %d",
				       iop_calib_cycle(&co), co.neffects, co.neffects == 1 ? "" : "s",
				       2 * iop_calib_cycle(&co), co.runs);
	if (a.do_list || a.do_help) {
		if (optind < argc) {
			const struct iop_bench *b = iop_bench_find(argv[optind]);

			if (!b)
				return iop_usage_error("bench", "no benchmark '%s' (iopath bench --list)",
						       argv[optind]);
			iop_bench_usage(b, stdout);
			return 0;
		}
		if (a.do_help)
			usage(stdout);
		else
			list(stdout);
		return 0;
	}
	if (c.fs_override && iop_fs_list_check(c.fs_override, why, sizeof(why)))
		return iop_usage_error("bench", "--%s", why);
	if (!iop_clock_domain())
		return iop_usage_error("bench", "IOPATH_CLOCK_DOMAIN: \"wall\" or \"instructions\"");
	{
		struct iop_scratch_opts o = { 0 };

		if (c.backing_override &&
		    iop_parse_backing(c.backing_override, &o, why, sizeof(why)))
			return iop_usage_error("bench", "%s", why);
	}
	ret = load_jobs(&c, a.profile, argc, argv);
	if (ret >= 0)
		return ret;
	/* validate every job before anything runs or touches a disk */
	ret = validate_jobs(&c, &js, a.do_calibrate);
	if (ret)
		return ret;
	if (a.out && strcmp(a.out, "-") && iop_out_check(a.out, why, sizeof(why)))
		return iop_usage_error("bench", "--out %s", why);
	if (a.dry_run) {
		print_jobs(&c);
		return 0;
	}
	ret = iop_bench_out(a.out, c.json, a.profile ? a.profile : js.v[0].b->name, c.out,
			    sizeof(c.out), &c.out_reserved);
	if (ret)
		return ret;
	if (c.out[0] && !c.quiet)
		fprintf(stderr, "iopath: bench: records go to %s\n", c.out);

	iop_bench_signals();
	if (a.do_calibrate)
		ret = calibrate(&c, &js, &co);
	else
		ret = run_jobs(&c, &js);
	put_scratches(&c);
	/* A name reserved for records that never came is not left empty. */
	if (c.out_reserved && !c.out_started)
		unlink(c.out);
	if (a.do_calibrate)
		return iop_interrupted ? 128 + iop_interrupted : ret;
	if (iop_interrupted) {
		fprintf(stderr, "iopath: bench: interrupted; cleaned up\n");
		return 128 + iop_interrupted;
	}
	if (ret)
		return ret;
	if (!c.quiet || c.failed)
		fprintf(stderr, "iopath: bench: %d job%s ran, %d failed, %d skipped, %d untrusted%s%s\n",
			c.ran, c.ran == 1 ? "" : "s", c.failed, c.skipped, c.untrusted,
			c.out_started ? "; records in " : "", c.out_started ? c.out : "");
	if (c.failed)
		return 1;
	if (!c.ran && c.skipped)
		return 4;
	return 0;
}

static int cmd_bench(int argc, char **argv)
{
	int ret = bench_main(argc, argv);

	iop_jobs_free(&js);
	return ret;
}

IOP_COMMAND("bench", "run microbenchmarks (one, or a profile from configs/bench) and write records",
	    cmd_bench)
