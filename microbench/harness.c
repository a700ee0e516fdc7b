// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The microbenchmark harness: registry, parameter tables, worker threads
 * pinned with libnuma/sched_setaffinity, warm-up, repetitions of a fixed
 * duration sampled once per interval, per-thread CPU accounting and the
 * trust checks (spread across repetitions, CPU used by other processes and
 * steal during the run, a worker found off its CPU).
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
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "probe.h"
#include "iopath.h"

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

/* ---- parameters -------------------------------------------------------- */

const struct iop_param iop_common_params[] = {
	{ "cpus", IOP_P_CPUS, "", 0, 0, NULL,
	  "CPUs for the worker threads, one each in turn (default: the last online CPU)" },
	{ "reps", IOP_P_U64, "5", 1, 1000, NULL, "repetitions, one record each" },
	{ "runtime", IOP_P_U64, "5", 1, 86400, NULL,
	  "seconds per repetition (per phase), after the dropped first interval" },
	{ "warmup", IOP_P_U64, "1", 0, 3600, NULL, "seconds of untimed warm-up before the first repetition" },
	{ "interval_ms", IOP_P_U64, "1000", 10, 60000, NULL, "sample interval (per-phase slice)" },
	{ "cv_max", IOP_P_DOUBLE, "2", 0, 1000, NULL,
	  "untrusted if the main metric's coefficient of variation across repetitions exceeds this (%)" },
	{ "foreign_max", IOP_P_DOUBLE, "10", 0, 10000, NULL,
	  "untrusted if other processes (or steal) used more than this share of one CPU during a repetition (%)" },
	{ "main_metric", IOP_P_METRIC, "", 0, 0, NULL,
	  "the metric the trust check, target_ci and calibration go by (default: the first)" },
	{ "target_ci", IOP_P_DOUBLE, "0", 0, 100, NULL,
	  "repeat until the main metric's 95% CI is within +-this % of its mean (reps: the minimum); 0: off" },
	{ "time_budget", IOP_P_U64, "300", 1, 86400, NULL,
	  "seconds after which target_ci stops repeating, reached or not" },
	{ "inject_ns", IOP_P_U64, "0", 0, 100000000, NULL,
	  "known extra work: busy-wait this many ns per operation in the timed loop (calibration)" },
	{ "inject_clock", IOP_P_ENUM, "wall", 0, 0, "wall|cpu",
	  "the clock inject_ns waits on: wall time (rates) or the worker's CPU time (CPU per op)" },
	{ .name = NULL }
};

static const struct iop_param *param_find(const struct iop_bench *b, const char *name, size_t nlen)
{
	for (const struct iop_param *p = b->params; p && p->name; p++)
		if (strlen(p->name) == nlen && !strncmp(p->name, name, nlen))
			return p;
	for (const struct iop_param *p = iop_common_params; p->name; p++)
		if (strlen(p->name) == nlen && !strncmp(p->name, name, nlen))
			return p;
	return NULL;
}

static void fmt_size(double v, char *buf, size_t len)
{
	static const char sfx[] = "kmgt";
	uint64_t u = (uint64_t)v;
	int i = -1;

	while (u && u % 1024 == 0 && i < 3) {
		u /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%" PRIu64, u);
	else
		snprintf(buf, len, "%" PRIu64 "%c", u, sfx[i]);
}

static void param_allowed(const struct iop_param *p, char *buf, size_t len)
{
	char a[32], b[32];

	switch (p->type) {
	case IOP_P_U64:
		snprintf(buf, len, "an integer in %.0f..%.0f", p->min, p->max);
		break;
	case IOP_P_SIZE:
		fmt_size(p->min, a, sizeof(a));
		fmt_size(p->max, b, sizeof(b));
		snprintf(buf, len, "a size in %s..%s (suffix k/m/g/t)", a, b);
		break;
	case IOP_P_BOOL:
		snprintf(buf, len, "0 or 1");
		break;
	case IOP_P_ENUM:
		snprintf(buf, len, "one of %s", p->choices);
		break;
	case IOP_P_CPUS: {
		char online[64] = "?";
		FILE *f = fopen("/sys/devices/system/cpu/online", "r");

		if (f) {
			if (fgets(online, sizeof(online), f))
				online[strcspn(online, "\n")] = '\0';
			fclose(f);
		}
		snprintf(buf, len, "a list of online CPUs (%s)", online);
		break;
	}
	case IOP_P_DOUBLE:
		snprintf(buf, len, "a number in %g..%g", p->min, p->max);
		break;
	case IOP_P_METRIC:
		snprintf(buf, len, "a metric name (iopath bench --help NAME)");
		break;
	}
}

static int online_cpus(cpu_set_t *set)
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

static int parse_value(struct iop_value *v, const char *text, char *why, size_t len)
{
	const struct iop_param *p = v->p;
	char allowed[96], *end;
	int bad = 0;

	snprintf(v->text, sizeof(v->text), "%s", text);
	if (strlen(text) >= sizeof(v->text))
		bad = 1;
	switch (p->type) {
	case IOP_P_U64:
	case IOP_P_SIZE: {
		uint64_t u = 0;

		if (p->type == IOP_P_SIZE) {
			bad |= iop_parse_size(text, &u) != 0;
		} else {
			errno = 0;
			u = strtoull(text, &end, 10);
			bad |= end == text || *end || errno || text[0] == '-';
		}
		if ((double)u < p->min || (double)u > p->max)
			bad = 1;
		v->u = u;
		v->d = (double)u;
		break;
	}
	case IOP_P_DOUBLE:
		errno = 0;
		v->d = strtod(text, &end);
		if (end == text || *end || errno || !(v->d >= p->min && v->d <= p->max))
			bad = 1;
		break;
	case IOP_P_BOOL:
		if (!strcmp(text, "1") || !strcasecmp(text, "yes") || !strcasecmp(text, "on") ||
		    !strcasecmp(text, "true"))
			v->u = 1;
		else if (!strcmp(text, "0") || !strcasecmp(text, "no") || !strcasecmp(text, "off") ||
			 !strcasecmp(text, "false"))
			v->u = 0;
		else
			bad = 1;
		break;
	case IOP_P_ENUM: {
		const char *c = p->choices;
		size_t tl = strlen(text);
		unsigned int i = 0;

		bad = 1;
		while (c && *c) {
			size_t cl = strcspn(c, "|");

			if (cl == tl && !strncmp(c, text, tl)) {
				v->u = i;
				bad = 0;
				break;
			}
			c += cl;
			if (*c == '|')
				c++;
			i++;
		}
		break;
	}
	case IOP_P_CPUS: {
		cpu_set_t want, online, and;

		if (!*text)	/* the default: resolved by the harness */
			break;
		if (iop_cpulist_parse(text, &want) < 0 || online_cpus(&online) < 0) {
			bad = 1;
			break;
		}
		CPU_AND(&and, &want, &online);
		if (!CPU_COUNT(&want) || !CPU_EQUAL(&and, &want))
			bad = 1;
		break;
	}
	case IOP_P_METRIC:	/* which names exist: iop_main_metric_check() */
		if (strspn(text, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(text))
			bad = 1;
		break;
	}
	if (bad) {
		param_allowed(p, allowed, sizeof(allowed));
		snprintf(why, len, "%s=%s: must be %s", p->name, text, allowed);
		return -EINVAL;
	}
	return 0;
}

int iop_params_parse(const struct iop_bench *b, struct iop_run *r, char **kv, int n,
		     char *why, size_t len)
{
	const struct iop_param *tables[2] = { b->params, iop_common_params };
	int ret;

	r->bench = b;
	r->nval = 0;
	for (int t = 0; t < 2; t++) {
		for (const struct iop_param *p = tables[t]; p && p->name; p++) {
			if (r->nval == IOP_MAX_PARAMS)
				abort();
			r->val[r->nval].p = p;
			ret = parse_value(&r->val[r->nval], p->def, why, len);
			if (ret)	/* a default outside its own range is a bug */
				abort();
			r->nval++;
		}
	}
	if (b->common_defaults) {
		char buf[256], *save, *tok;

		snprintf(buf, sizeof(buf), "%s", b->common_defaults);
		for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(tok, '=');
			const struct iop_param *p = eq ? param_find(b, tok, (size_t)(eq - tok)) : NULL;

			for (int j = 0; p && j < r->nval; j++)
				if (r->val[j].p == p && parse_value(&r->val[j], eq + 1, why, len))
					abort();
		}
	}
	for (int i = 0; i < n; i++) {
		const char *eq = strchr(kv[i], '=');
		const struct iop_param *p;
		struct iop_value *v = NULL;

		if (!eq || eq == kv[i]) {
			snprintf(why, len, "expected name=value, got '%s'", kv[i]);
			return -EINVAL;
		}
		p = param_find(b, kv[i], (size_t)(eq - kv[i]));
		if (!p) {
			snprintf(why, len, "%.*s: no such parameter of %s (iopath bench --help %s lists them)",
				 (int)(eq - kv[i]), kv[i], b->name, b->name);
			return -EINVAL;
		}
		for (int j = 0; j < r->nval; j++)
			if (r->val[j].p == p)
				v = &r->val[j];
		ret = parse_value(v, eq + 1, why, len);
		if (ret)
			return ret;
	}
	ret = iop_main_metric_check(r, why, len);
	if (ret)
		return ret;
	return b->validate ? b->validate(r, why, len) : 0;
}

static const struct iop_value *value_find(const struct iop_run *r, const char *name)
{
	for (int i = 0; i < r->nval; i++)
		if (!strcmp(r->val[i].p->name, name))
			return &r->val[i];
	fprintf(stderr, "iopath: bench %s: no parameter '%s'\n", r->bench->name, name);
	abort();
}

uint64_t iop_u64(const struct iop_run *r, const char *name)
{
	return value_find(r, name)->u;
}

int iop_metric_add_latency(const struct iop_run *r, json_t *rec, const struct iop_rep *rep)
{
	double p50, p99, p999;
	int ret;

	if (!rep->hist)
		return 0;
	p50 = iop_hist_pct(rep->hist, 50);
	p99 = iop_hist_pct(rep->hist, 99);
	p999 = iop_hist_pct(rep->hist, 99.9);
	ret = iop_metric_add(r, rec, "lat_p50_ns", &p50, 1);
	if (!ret)
		ret = iop_metric_add(r, rec, "lat_p99_ns", &p99, 1);
	if (!ret)
		ret = iop_metric_add(r, rec, "lat_p999_ns", &p999, 1);
	return ret;
}

int iop_validate_size_holds_bs(const struct iop_run *r, char *why, size_t len)
{
	if (iop_u64(r, "size") < iop_u64(r, "bs")) {
		snprintf(why, len, "size=%s is smaller than bs=%s", iop_str(r, "size"), iop_str(r, "bs"));
		return -EINVAL;
	}
	return 0;
}

double iop_dbl(const struct iop_run *r, const char *name)
{
	return value_find(r, name)->d;
}

const char *iop_str(const struct iop_run *r, const char *name)
{
	return value_find(r, name)->text;
}

bool iop_is(const struct iop_run *r, const char *name, const char *choice)
{
	return !strcmp(value_find(r, name)->text, choice);
}

/* Whether @name came after records existed: the resolution settings, and the benchmark's own. */
static bool added_later(const struct iop_bench *b, const char *name)
{
	static const char common[] = " main_metric target_ci time_budget inject_ns inject_clock ";
	char word[64];
	const char *p;
	size_t n = strlen(name);

	snprintf(word, sizeof(word), " %s ", name);
	if (strstr(common, word))
		return true;
	for (p = b->added_later; p && (p = strstr(p, name)); p += n)
		if ((p == b->added_later || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

json_t *iop_params_json(const struct iop_run *r)
{
	json_t *o = json_object();

	for (int i = 0; i < r->nval; i++) {
		const struct iop_value *v = &r->val[i];
		json_t *j;

		if (added_later(r->bench, v->p->name) && !strcmp(v->text, v->p->def))
			continue;

		switch (v->p->type) {
		case IOP_P_U64:
		case IOP_P_SIZE:
			j = json_integer((json_int_t)v->u);
			break;
		case IOP_P_BOOL:
			j = json_boolean(v->u);
			break;
		case IOP_P_DOUBLE:
			j = json_real(v->d);
			break;
		default:
			j = json_string(v->text);
		}
		json_object_set_new(o, v->p->name, j);
	}
	return o;
}

static void usage_table(const struct iop_param *t, FILE *f)
{
	char allowed[96], def[64];

	for (const struct iop_param *p = t; p && p->name; p++) {
		param_allowed(p, allowed, sizeof(allowed));
		snprintf(def, sizeof(def), "%s", *p->def ? p->def : "-");
		fprintf(f, "  %-14s default %-6s %s\n  %14s (%s)\n", p->name, def, p->help, "", allowed);
	}
}

void iop_bench_usage(const struct iop_bench *b, FILE *f)
{
	fprintf(f, "%s: %s\n\nparameters (name=value):\n", b->name, b->description);
	usage_table(b->params, f);
	fprintf(f, "\ncommon parameters:\n");
	usage_table(iop_common_params, f);
	if (b->common_defaults)
		fprintf(f, "  (%s defaults: %s)\n", b->name, b->common_defaults);
	fprintf(f, "\nmetrics:\n");
	for (const struct iop_metric *m = b->metrics; m && m->name; m++)
		fprintf(f, "  %-20s %-6s %s is better\n", m->name, m->unit,
			m->better == IOP_HIGHER_IS_BETTER ? "higher" : "lower");
}

/* ---- metrics ----------------------------------------------------------- */

const struct iop_metric iop_common_metrics[] = {
	{ "cpu_usr_ns_per_op", "ns", IOP_LOWER_IS_BETTER, false },
	{ "cpu_sys_ns_per_op", "ns", IOP_LOWER_IS_BETTER, false },
	{ "cpu_usr_share", "%", IOP_LOWER_IS_BETTER, false },
	{ "cpu_ns_per_op", "ns", IOP_LOWER_IS_BETTER, false },
	{ .name = NULL }
};

int iop_metric_add(const struct iop_run *r, json_t *rec, const char *name,
		   const double *samples, size_t n)
{
	const struct iop_metric *tables[2] = { r->bench->metrics, iop_common_metrics };

	for (int t = 0; t < 2; t++) {
		for (const struct iop_metric *m = tables[t]; m && m->name; m++) {
			double *fin;
			size_t k = 0;
			int ret;

			if (strcmp(m->name, name))
				continue;
			/*
			 * An interval in which a starved worker did nothing gives
			 * no number (0/0): leave it out rather than invent one;
			 * run_rep() marks such a repetition untrusted.
			 */
			fin = malloc((n ? n : 1) * sizeof(*fin));
			if (!fin)
				return -ENOMEM;
			for (size_t i = 0; i < n; i++)
				if (isfinite(samples[i]))
					fin[k++] = samples[i];
			ret = k ? iop_record_add_metric(rec, m->name, m->unit, m->better, m->is_rate,
							fin, k) : 0;
			free(fin);
			return ret;
		}
	}
	fprintf(stderr, "iopath: bench %s: metric '%s' is not declared\n", r->bench->name, name);
	abort();
}

double iop_hist_pct(const struct iop_hist *h, double p)
{
	uint64_t want, seen = 0;

	if (!h->count)
		return 0;
	want = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (want < 1)
		want = 1;
	for (unsigned int i = 0; i < IOP_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want) {
			unsigned int grp = i >> IOP_HIST_SUB_BITS;
			uint64_t sub = i & ((1u << IOP_HIST_SUB_BITS) - 1);

			if (!grp)
				return (double)i;
			/* the middle of the bucket */
			return (double)(((1ull << IOP_HIST_SUB_BITS) + sub) << (grp - 1)) +
			       (double)(1ull << (grp - 1)) / 2.0;
		}
	}
	return NAN;
}

void iop_hist_merge(struct iop_hist *dst, const struct iop_hist *src)
{
	for (unsigned int i = 0; i < IOP_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
}

void iop_fio_arg(struct iop_fio_job *j, const char *fmt, ...)
{
	va_list ap;

	if (j->argc >= 62 || j->nstore >= 32)
		abort();
	va_start(ap, fmt);
	vsnprintf(j->store[j->nstore], sizeof(j->store[0]), fmt, ap);
	va_end(ap);
	j->argv[j->argc++] = j->store[j->nstore++];
	j->argv[j->argc] = NULL;
}

/* ---- small helpers for benchmarks ------------------------------------ */

void iop_path_device(const char *path, char *buf, size_t len)
{
	char link[PATH_MAX], target[PATH_MAX];
	struct stat st;
	ssize_t n;
	const char *base;

	buf[0] = '\0';
	if (stat(path, &st))
		return;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(buf, len, "/dev/%s", base ? base + 1 : target);
}

int iop_fill_file(int fd, uint64_t size)
{
	const size_t chunk = 1 << 20;
	uint64_t *buf, x = 0x9e3779b97f4a7c15ull;
	int ret = 0;

	buf = malloc(chunk);
	if (!buf)
		return -ENOMEM;
	for (uint64_t off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? (size_t)(size - off) : chunk;
		ssize_t w;

		for (size_t i = 0; i < chunk / 8; i++) {	/* xorshift64: incompressible */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[i] = x;
		}
		w = pwrite(fd, buf, n, (off_t)off);
		if (w != (ssize_t)n) {
			ret = w < 0 ? -errno : -EIO;
			break;
		}
	}
	free(buf);
	if (!ret && fsync(fd))
		ret = -errno;
	return ret;
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

/* ---- workers ----------------------------------------------------------- */

enum { CMD_NONE, CMD_RUN, CMD_EXIT };

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t cmd_cv, done_cv;
	unsigned int gen;	/* bumped per command */
	int ndone;		/* workers finished with the current command */
	int nready;
	pthread_t th[IOP_MAX_WORKERS];
	int nthreads;
};

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

struct worker_arg {
	struct pool *pool;
	struct iop_worker *w;
};

static void *worker_main(void *arg)
{
	struct worker_arg *wa = arg;
	struct pool *pool = wa->pool;
	struct iop_worker *w = wa->w;
	const struct iop_bench *b = w->run->bench;
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
		snprintf(w->why, sizeof(w->why), "cannot pin worker %d to CPU %d: %s", w->idx, w->cpu,
			 strerror(-ret));
	} else if (b->worker_init) {
		ret = b->worker_init(w, w->why, sizeof(w->why));
	}
	if (!ret)
		ret = iop_inject_init(w);
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

static void pool_command(struct pool *pool, struct iop_run *r, int cmd, int phase)
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

static void pool_stop(struct iop_run *r)
{
	for (int i = 0; i < r->nworkers; i++)
		__atomic_store_n(&r->w[i]->stop, 1, __ATOMIC_RELEASE);
}

static int pool_ndone(struct pool *pool)
{
	int n;

	pthread_mutex_lock(&pool->lock);
	n = pool->ndone;
	pthread_mutex_unlock(&pool->lock);
	return n;
}

static void pool_wait(struct pool *pool, struct iop_run *r)
{
	pthread_mutex_lock(&pool->lock);
	while (pool->ndone < r->nworkers)
		pthread_cond_wait(&pool->done_cv, &pool->lock);
	pthread_mutex_unlock(&pool->lock);
}

/* The first worker error, as -errno with its message in @why. */
static int pool_error(struct iop_run *r, char *why, size_t len)
{
	for (int i = 0; i < r->nworkers; i++) {
		struct iop_worker *w = r->w[i];

		if (w->err) {
			if (w->why[0])
				snprintf(why, len, "%s", w->why);
			else
				snprintf(why, len, "worker %d on CPU %d: %s", i, w->cpu, strerror(-w->err));
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

		if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
			a->self = ut + st;
	}
}

/* ---- the run ----------------------------------------------------------- */

static int default_cpu(void)
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
static void place_main_thread(const struct iop_run *r)
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

static int sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ull),
			       .tv_nsec = (long)(t % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		if (iop_interrupted)
			return -EINTR;
	return iop_interrupted ? -EINTR : 0;
}

/*
 * The workers' CPU time so far, read from the sampling thread through
 * their CPU clocks: per-interval CPU time per operation, of which a
 * repetition keeps the median, so that an interval disturbed by a
 * co-tenant (cache and TLB refills after preemption) does not move it.
 */
static uint64_t workers_cpu_ns(const struct pool *pool, const struct iop_run *r)
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

struct rep_result {
	struct iop_rep rep;
	double foreign_pct, steal_pct;
	long nivcsw;
	int empty;		/* intervals in which nothing completed */
	long migrations;	/* of the workers, from se.nr_migrations */
	json_t *placement;
	char untrusted[256];
};

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

/*
 * One repetition (or the warm-up, with @nsamples including the dropped
 * first interval). Single-phase: the workers run continuously and the main
 * thread reads their counters every interval. Several phases: each interval
 * runs one phase, phases in turn, timed by the worker itself.
 */
static int run_rep(struct pool *pool, struct iop_run *r, int nsamples, bool progress,
		   struct rep_result *res, char *why, size_t len)
{
	uint64_t interval = iop_u64(r, "interval_ms") * 1000000ull;
	double utime = 0, stime = 0;
	uint64_t all_ops = 0, cpu_ns = 0, wall_ns = 0;
	struct cpu_acct a0, a1;
	int ret = 0;

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
	if (r->nphases == 1) {
		uint64_t t0, t, prev_t, ops, prev_ops, cpu, prev_cpu;

		pool_command(pool, r, CMD_RUN, 0);
		t0 = prev_t = iop_now_ns();
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
			utime += r->w[i]->utime;
			stime += r->w[i]->stime;
			cpu_ns += r->w[i]->cpu_ns;
			wall_ns += r->w[i]->t_end - r->w[i]->t_start;
			all_ops += r->w[i]->ops - r->w[i]->ops_start;
			res->nivcsw += r->w[i]->nivcsw;
			res->migrations += r->w[i]->migrations;
		}
		res->rep.ops[0] = all_ops;
	} else {
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
					utime += w->utime;
					stime += w->stime;
					cpu += w->cpu_ns;
					wall_ns += w->t_end - w->t_start;
					res->nivcsw += w->nivcsw;
					res->migrations += w->migrations;
				}
				cpu_ns += cpu;
				res->rep.cpu_ns_per_op[p][s] = ops ? (double)cpu / (double)ops : NAN;
				if (!ops)
					res->empty++;
				all_ops += ops;
				res->rep.ops[p] += ops;
				res->rep.rate[p][s] = dt ? (double)ops * 1e9 / (double)dt : 0;
				res->rep.ns_per_op[p][s] = ops ? (double)dt * r->nworkers / (double)ops : NAN;
				if (!ret)
					ret = pool_error(r, why, len);
				if (ret)
					break;
			}
		}
	}
	cpu_acct_read(&a1);
	if (!ret)
		ret = pool_error(r, why, len);
	if (ret == -EINTR)
		snprintf(why, len, "interrupted");
	if (ret)
		return ret;

	res->rep.on_cpu_pct = wall_ns ? (double)cpu_ns * 100.0 / (double)wall_ns : NAN;
	res->rep.usr_ns_per_op = all_ops ? utime * 1e9 / (double)all_ops : NAN;
	res->rep.sys_ns_per_op = all_ops ? stime * 1e9 / (double)all_ops : NAN;

	/* Other processes' CPU time, as a share of one CPU over the repetition. */
	{
		double ticks = (double)(a1.t - a0.t) / 1e9 * (double)sysconf(_SC_CLK_TCK);
		double foreign = (double)(a1.busy - a0.busy) - (double)(a1.self - a0.self);

		res->foreign_pct = ticks > 0 ? (foreign > 0 ? foreign : 0) * 100.0 / ticks : 0;
		res->steal_pct = ticks > 0 ? (double)(a1.steal - a0.steal) * 100.0 / ticks : 0;
		if (res->foreign_pct > iop_dbl(r, "foreign_max"))
			note_untrusted(res, "other processes used %.0f%% of a CPU", res->foreign_pct);
		if (res->steal_pct > iop_dbl(r, "foreign_max"))
			note_untrusted(res, "steal %.0f%% of a CPU", res->steal_pct);
	}
	if (res->migrations > 0)
		note_untrusted(res, "workers migrated %ld time%s", res->migrations,
			       res->migrations == 1 ? "" : "s");
	if (res->empty)
		note_untrusted(res, "%d interval%s without a completed operation", res->empty,
			       res->empty == 1 ? "" : "s");
	res->placement = json_array();
	for (int i = 0; i < r->nworkers; i++) {
		struct iop_worker *w = r->w[i];

		json_array_append_new(res->placement,
			json_pack("{s:i, s:i, s:i, s:s, s:I}", "worker", i, "cpu", w->cpu,
				  "cpu_seen", w->cpu_seen_end, "affinity", w->affinity,
				  "nivcsw", (json_int_t)w->nivcsw));
		if (w->cpu_seen_start != w->cpu || w->cpu_seen_end != w->cpu)
			note_untrusted(res, "worker %d pinned to CPU %d ran on CPU %d/%d", i, w->cpu,
				       w->cpu_seen_start, w->cpu_seen_end);
	}
	if (r->keeps_hist) {
		res->rep.hist = calloc(1, sizeof(struct iop_hist));
		if (!res->rep.hist)
			return -ENOMEM;
		for (int i = 0; i < r->nworkers; i++)
			iop_hist_merge(res->rep.hist, r->w[i]->hist);
	}
	return 0;
}

static void rep_free(struct rep_result *res)
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
static void drop_first(struct iop_run *r, struct rep_result *res)
{
	int n = res->rep.nsamples - 1;

	for (int p = 0; p < r->nphases; p++) {
		memmove(res->rep.rate[p], res->rep.rate[p] + 1, (size_t)n * sizeof(double));
		memmove(res->rep.ns_per_op[p], res->rep.ns_per_op[p] + 1, (size_t)n * sizeof(double));
		memmove(res->rep.cpu_ns_per_op[p], res->rep.cpu_ns_per_op[p] + 1, (size_t)n * sizeof(double));
	}
	res->rep.nsamples = n;
}

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

static int make_record(struct iop_run *r, const struct iop_harness_opts *o, int rep,
		       struct rep_result *res, json_t **out, double *primary)
{
	struct iop_env_info info = { 0 };
	char cpus[256];
	json_t *rec, *env, *run;
	cpu_set_t set;
	int ret;

	rec = iop_record_new(r->bench->name, rep);
	if (!rec)
		return -ENOMEM;
	json_object_set_new(rec, "params", iop_params_json(r));
	*primary = NAN;
	ret = r->bench->report(r, &res->rep, rec, primary);
	if (!ret && r->nphases == 1) {
		double usr = res->rep.usr_ns_per_op, sys = res->rep.sys_ns_per_op;
		double share = usr + sys > 0 ? usr * 100.0 / (usr + sys) : NAN;

		iop_metric_add(r, rec, "cpu_usr_ns_per_op", &usr, 1);
		iop_metric_add(r, rec, "cpu_sys_ns_per_op", &sys, 1);
		iop_metric_add(r, rec, "cpu_usr_share", &share, 1);
		iop_metric_add(r, rec, "cpu_ns_per_op", res->rep.cpu_ns_per_op[0],
			       (size_t)res->rep.nsamples);
	}
	if (ret) {
		json_decref(rec);
		return ret;
	}
	CPU_ZERO(&set);
	for (int i = 0; i < r->ncpus; i++)
		CPU_SET(r->cpus[i], &set);
	iop_cpulist_format(&set, cpus, sizeof(cpus));
	info.dev = r->dev && *r->dev ? r->dev : NULL;
	info.fstype = r->fstype;
	info.mnt = r->dir[0] ? r->dir : NULL;
	info.backing = r->fstype ? o->backing : NULL;
	info.mkfs_opts = o->mkfs_opts;
	info.mount_opts = o->mount_opts;
	info.cpus = cpus;
	{
		/* the record's env.placement describes the calling thread: be where the workers are */
		cpu_set_t mine;

		sched_getaffinity(0, sizeof(mine), &mine);
		sched_setaffinity(0, sizeof(set), &set);
		env = iop_env_collect(&info);
		sched_setaffinity(0, sizeof(mine), &mine);
	}
	if (env)
		json_object_set_new(rec, "env", env);
	run = json_pack("{s:i, s:I, s:i, s:f, s:f, s:f, s:I, s:O}",
			"samples_dropped", 1,
			"interval_ms", (json_int_t)iop_u64(r, "interval_ms"),
			"workers", r->nworkers,
			"foreign_cpu_pct", res->foreign_pct,
			"worker_on_cpu_pct", res->rep.on_cpu_pct,
			"steal_pct", res->steal_pct,
			"nivcsw", (json_int_t)res->nivcsw,
			"placement", res->placement);
	if (r->nphases > 1) {
		json_t *ph = json_array();

		for (int p = 0; p < r->nphases; p++)
			json_array_append_new(ph, json_string(r->phase_names[p]));
		json_object_set_new(run, "phases", ph);
	}
	if (r->extra)
		json_object_set(run, "facts", r->extra);
	json_object_set_new(run, "main_metric", json_string(iop_main_metric(r)));
	json_object_set_new(run, "invocation", json_string(r->invocation));
	if (r->w[0] && r->w[0]->inject_ns)
		json_object_set_new(run, "inject", json_pack("{s:I, s:s, s:f}",
			"ns", (json_int_t)r->w[0]->inject_ns, "clock", iop_str(r, "inject_clock"),
			"measured_ns", r->w[0]->inject_measured_ns));
	json_object_set_new(rec, "run", run);
	if (res->untrusted[0])
		iop_record_untrusted(rec, res->untrusted);
	*out = rec;
	return 0;
}

int iop_bench_run(struct iop_run *r, const struct iop_harness_opts *o, json_t *recs,
		  char *why, size_t len)
{
	const struct iop_bench *b = r->bench;
	int reps = (int)iop_u64(r, "reps");
	int runtime_ms = (int)iop_u64(r, "runtime") * 1000;
	int nsamples = runtime_ms / (int)iop_u64(r, "interval_ms");
	struct pool pool = { .lock = PTHREAD_MUTEX_INITIALIZER,
			     .cmd_cv = PTHREAD_COND_INITIALIZER,
			     .done_cv = PTHREAD_COND_INITIALIZER };
	struct worker_arg wa[IOP_MAX_WORKERS];
	double primary[IOP_MAX_REPS], main[IOP_MAX_REPS];
	struct iop_precision prec = { 0 };
	uint64_t t_first = iop_now_ns();
	int rep;
	json_t *job_recs = json_array();
	cpu_set_t cpus_set, old_affinity;
	const char *cpus = iop_str(r, "cpus");
	struct rep_result res;
	char hb[32];
	int ret;

	memset(&res, 0, sizeof(res));
	/* compare nests repetitions in runs of one boot: name this one */
	snprintf(r->invocation, sizeof(r->invocation), "%d-%llu", (int)getpid(),
		 (unsigned long long)t_first);
	if (nsamples < 1)
		nsamples = 1;
	r->nworkers = 1;
	r->nphases = 1;
	r->ncpus = 0;
	sched_getaffinity(0, sizeof(old_affinity), &old_affinity);
	if (*cpus) {
		iop_cpulist_parse(cpus, &cpus_set);
		for (int c = 0; c < CPU_SETSIZE && r->ncpus < IOP_MAX_WORKERS; c++)
			if (CPU_ISSET(c, &cpus_set))
				r->cpus[r->ncpus++] = c;
	} else {
		r->cpus[r->ncpus++] = default_cpu();
	}

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
		snprintf(why, len, "%s: setup asked for %d workers, %d phases", b->name, r->nworkers,
			 r->nphases);
		ret = -EINVAL;
		goto out_teardown;
	}
	place_main_thread(r);
	for (int i = 0; i < r->nworkers; i++) {
		struct iop_worker *w;

		if (posix_memalign((void **)&w, 64, sizeof(*w))) {
			ret = -ENOMEM;
			goto out_workers;
		}
		memset(w, 0, sizeof(*w));
		w->idx = i;
		w->cpu = r->cpus[i % r->ncpus];
		w->run = r;
		if (r->keeps_hist) {
			w->hist = calloc(1, sizeof(*w->hist));
			if (!w->hist) {
				free(w);
				ret = -ENOMEM;
				goto out_workers;
			}
		}
		r->w[i] = w;
		wa[i].pool = &pool;
		wa[i].w = w;
		ret = -pthread_create(&pool.th[i], NULL, worker_main, &wa[i]);
		if (ret) {
			snprintf(why, len, "pthread_create: %s", strerror(-ret));
			free(w->hist);
			free(w);
			r->w[i] = NULL;
			goto out_workers;
		}
		pool.nthreads++;
	}
	pthread_mutex_lock(&pool.lock);
	while (pool.nready < r->nworkers)
		pthread_cond_wait(&pool.done_cv, &pool.lock);
	pthread_mutex_unlock(&pool.lock);
	ret = pool_error(r, why, len);
	if (ret)
		goto out_workers;

	/* Warm-up: caches, then untimed running (not recorded). */
	if (b->warm) {
		ret = b->warm(r, why, len);
		if (ret)
			goto out_workers;
	}
	if (iop_u64(r, "warmup")) {
		int ws = (int)(iop_u64(r, "warmup") * 1000 / iop_u64(r, "interval_ms"));

		if (!o->quiet)
			fprintf(stderr, "iopath: bench %s: warm-up %" PRIu64 " s\n", b->name,
				iop_u64(r, "warmup"));
		ret = run_rep(&pool, r, ws < 1 ? 1 : ws, false, &res, why, len);
		rep_free(&res);
		if (ret)
			goto out_workers;
	}

	for (rep = 0; iop_precision_more(r, main, rep, t_first, &prec); rep++) {
		json_t *rec;

		if (b->warm && rep > 0) {
			ret = b->warm(r, why, len);
			if (ret)
				goto out_workers;
		}
		ret = run_rep(&pool, r, nsamples + 1, !o->quiet, &res, why, len);
		if (ret)
			goto out_rep;
		drop_first(r, &res);
		ret = make_record(r, o, rep, &res, &rec, &primary[rep]);
		if (ret) {
			snprintf(why, len, "%s: building the record: %s", b->name, strerror(-ret));
			goto out_rep;
		}
		json_array_append_new(job_recs, rec);
		main[rep] = iop_record_value(rec, iop_main_metric(r));
		if (*iop_str(r, "main_metric"))
			primary[rep] = main[rep];
		if (!o->quiet)
			fprintf(stderr, "iopath: bench %s: rep %d/%d: %s %s%s%s\n", b->name, rep + 1, reps,
				human(primary[rep], hb, sizeof(hb)), b->metrics[0].unit,
				res.untrusted[0] ? "  untrusted: " : "", res.untrusted);
		if (o->after_rep) {
			ret = o->after_rep(r, rep, &res.rep, rec, o->arg, why, len);
			if (ret)
				goto out_rep;
		}
		rep_free(&res);
	}

	reps = rep;
	iop_precision_record(r, &prec, job_recs, o->quiet);
	/* The spread of the main metric across repetitions. */
	if (reps > 1) {
		double cv = iop_cv(primary, (size_t)reps) * 100.0;
		size_t i;
		json_t *rec;

		json_array_foreach(job_recs, i, rec) {
			json_t *run = json_object_get(rec, "run");

			json_object_set_new(run, "cv_across_reps_pct", json_real(cv));
			if (cv > iop_dbl(r, "cv_max")) {
				char w[96];

				snprintf(w, sizeof(w), "cv %.1f%% > %g%% across %d repetitions", cv,
					 iop_dbl(r, "cv_max"), reps);
				iop_record_untrusted(rec, w);
			}
		}
	}
	json_array_extend(recs, job_recs);
	ret = 0;
	goto out_workers;

out_rep:
	rep_free(&res);
	/* the repetitions that finished are valid records: keep them */
	json_array_extend(recs, job_recs);
out_workers:
	pool_destroy(&pool, r);
	for (int i = 0; i < r->nworkers && i < IOP_MAX_WORKERS; i++) {
		if (!r->w[i])
			continue;
		free(r->w[i]->hist);
		free(r->w[i]);
		r->w[i] = NULL;
	}
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
