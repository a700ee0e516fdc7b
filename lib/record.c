// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Result records (see record.h and docs/records.md): JSON Lines built, written
 * and read with jansson, and the environment block that makes two records
 * comparable (kernel, CPU, placement, device queue, filesystem options).
 *
 * Writing goes through a temporary file and rename(2), so a reader sees the
 * old file or the new one, never half a line. Reading validates what every
 * consumer relies on (schema version, bench, metrics with names and samples)
 * once, here, and names the file and line of the first thing wrong.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <numa.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "input.h"
#include "iopath.h"
#include "outfile.h"
#include "place.h"
#include "record.h"
#include "stats.h"
#include "why.h"

#ifndef IOPATH_GIT
#define IOPATH_GIT "unknown"
#endif

/* JSON has no NaN or infinity: an undefined statistic is null. */
static json_t *json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* NULL C string (or one that is not UTF-8) -> JSON null. */
static json_t *json_str_or_null(const char *s)
{
	json_t *j = s ? json_string(s) : NULL;

	return j ? j : json_null();
}

json_t *iop_record_new(const char *bench, int rep)
{
	char now[32];
	struct tm tm;
	time_t t;
	json_t *rec;

	if (!bench || !*bench || rep < 0)
		return NULL;
	t = time(NULL);
	if (!gmtime_r(&t, &tm) || !strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return NULL;

	/* jansson keeps insertion order: this is the order on disk. */
	rec = json_pack("{s:i, s:s, s:i, s:s, s:s, s:[], s:{}, s:[], s:{}}",
			"schema", IOP_RECORD_SCHEMA,
			"bench", bench,
			"rep", rep,
			"time", now,
			"status", "ok",
			"untrusted",
			"params",
			"metrics",
			"env");
	return rec;
}

int iop_record_add_metric(json_t *rec, const char *name, const char *unit,
			  enum iop_better better, bool is_rate,
			  const double *samples, size_t n)
{
	json_t *metrics, *metric, *arr;
	const char *agg_name;
	double median, agg;
	size_t i;

	metrics = json_object_get(rec, "metrics");
	if (!json_is_array(metrics) || !name || !*name || !unit || !n || !samples)
		return -EINVAL;
	if (better != IOP_HIGHER_IS_BETTER && better != IOP_LOWER_IS_BETTER)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(samples[i]))
			return -EINVAL;

	arr = json_array();
	if (!arr)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (json_array_append_new(arr, json_real(samples[i]))) {
			json_decref(arr);
			return -ENOMEM;
		}
	}

	/*
	 * A rate's value is the harmonic mean of its slices: the reciprocal of
	 * the mean time per operation, the scale compare tests rates on, so a
	 * record and a comparison of records agree. Over equal time slices it
	 * sits below the throughput (total ops / total time, the arithmetic
	 * mean, which "mean" holds) by about mean * cv^2: 0.1% at a cv of 3%.
	 * Everything else compares by median, which one noisy sample cannot
	 * drag. Where the clock counts instructions the harness replaces the
	 * value with the whole repetition's (iop_record_metric_whole).
	 */
	median = iop_median(samples, n);
	agg_name = is_rate ? "hmean" : "median";
	agg = is_rate ? iop_hmean(samples, n) : median;
	metric = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o}",
			   "name", name,
			   "unit", unit,
			   "better", better == IOP_HIGHER_IS_BETTER ? "higher" : "lower",
			   "agg", agg_name,
			   "value", json_num(agg),
			   "median", json_num(median),
			   "mean", json_num(iop_mean(samples, n)),
			   "stddev", json_num(iop_stddev(samples, n)),
			   "cv", json_num(iop_cv(samples, n)),
			   "min", json_num(iop_min(samples, n)),
			   "max", json_num(iop_max(samples, n)),
			   "n", (json_int_t)n,
			   "samples", arr);
	/* json_pack's "o" consumed arr, also on failure. */
	if (!metric)
		return -ENOMEM;
	if (json_array_append_new(metrics, metric))
		return -ENOMEM;
	return 0;
}

bool iop_agg_known(const char *agg)
{
	return agg && (iop_agg_is_rate(agg) || !strcmp(agg, "median") ||
		       !strcmp(agg, "time_over_ops"));
}

bool iop_agg_is_rate(const char *agg)
{
	return agg && (!strcmp(agg, "hmean") || !strcmp(agg, "hmean_inliers") ||
		       !strcmp(agg, "ops_over_time"));
}

bool iop_agg_is_whole(const char *agg)
{
	return agg && (!strcmp(agg, "ops_over_time") || !strcmp(agg, "time_over_ops"));
}

/* The last metric of @rec named @name, or NULL. */
static json_t *metric_named(json_t *rec, const char *name)
{
	json_t *metrics = json_object_get(rec, "metrics"), *m, *found = NULL;
	size_t i;

	if (!name)
		return NULL;
	json_array_foreach(metrics, i, m) {
		const char *s = json_string_value(json_object_get(m, "name"));

		if (s && !strcmp(s, name))
			found = m;
	}
	return found;
}

int iop_record_metric_whole(json_t *rec, const char *name, double value)
{
	json_t *m = metric_named(rec, name);
	const char *agg;

	if (!m || !isfinite(value) || value < 0)
		return -EINVAL;
	agg = iop_agg_is_rate(json_string_value(json_object_get(m, "agg"))) ?
	      "ops_over_time" : "time_over_ops";
	if (json_object_set_new(m, "agg", json_string(agg)) ||
	    json_object_set_new(m, "value", json_real(value)))
		return -ENOMEM;
	return 0;
}

int iop_record_metric_quantum(json_t *rec, const char *name, double quantum)
{
	json_t *m = metric_named(rec, name);

	if (!m || !isfinite(quantum) || quantum < 0)
		return -EINVAL;
	return json_object_set_new(m, "quantum", json_real(quantum)) ? -ENOMEM : 0;
}

int iop_record_untrusted(json_t *rec, const char *why)
{
	json_t *reasons;

	if (!json_is_object(rec) || !why || !*why)
		return -EINVAL;
	reasons = json_object_get(rec, "untrusted");
	if (!reasons) {
		reasons = json_array();
		if (!reasons || json_object_set_new(rec, "untrusted", reasons))
			return -ENOMEM;
	}
	if (!json_is_array(reasons))
		return -EINVAL;
	if (json_array_append_new(reasons, json_string(why)))
		return -ENOMEM;
	if (json_object_set_new(rec, "status", json_string("untrusted")))
		return -ENOMEM;
	return 0;
}

/* ---- environment ---------------------------------------------------- */

/* First line of a small file, without its newline; NULL if unreadable. */
static char *read_line_file(const char *path)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	n = getline(&line, &cap, f);
	fclose(f);
	if (n < 0) {
		free(line);
		return NULL;
	}
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == ' '))
		line[--n] = '\0';
	return line;
}

static json_t *json_file_str(const char *path)
{
	char *s = read_line_file(path);
	json_t *j = json_str_or_null(s);

	free(s);
	return j;
}

static json_t *json_file_int(const char *path)
{
	char *s = read_line_file(path), *end;
	json_t *j = json_null();
	long long v;

	if (s) {
		errno = 0;
		v = strtoll(s, &end, 10);
		if (!errno && end != s && !*end) {
			json_decref(j);
			j = json_integer(v);
		}
	}
	free(s);
	return j;
}

/* "none [mq-deadline] kyber" -> "mq-deadline"; "none" for queues without choice. */
static json_t *json_scheduler(const char *path)
{
	char *s = read_line_file(path), *open, *close;
	json_t *j;

	if (!s)
		return json_null();
	open = strchr(s, '[');
	close = open ? strchr(open, ']') : NULL;
	if (open && close) {
		*close = '\0';
		j = json_string(open + 1);
	} else {
		j = json_string(s);
	}
	free(s);
	return j;
}

static json_t *cpu_model(void)
{
	char *line = NULL, *p;
	json_t *j = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return json_null();
	errno = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (strncmp(line, "model name", 10))
			continue;
		p = strchr(line, ':');
		if (!p)
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (n && line[n - 1] == '\n')
			line[n - 1] = '\0';
		j = json_str_or_null(p);
		break;
	}
	free(line);
	fclose(f);
	return j ? j : json_null();
}

/*
 * Does the CPU count instructions for us? Not on most VMs; benchmarks that
 * would report instructions per I/O say so rather than print zeros.
 */
static bool have_pmu(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.disabled = 1,
		.exclude_kernel = 1,	/* allowed at perf_event_paranoid 2 */
		.exclude_hv = 1,
	};
	long fd;

	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

const char *iop_clock_domain(void)
{
	const char *d = getenv("IOPATH_CLOCK_DOMAIN");

	if (!d || !*d || !strcmp(d, "wall"))
		return "wall";
	if (!strcmp(d, "instructions"))
		return "instructions";
	return NULL;
}

/* A value of the booting host's for the record, if it has the expected form. */
static json_t *env_word(const char *name, size_t min, size_t max)
{
	const char *v = getenv(name);
	size_t n;

	if (!v)
		return json_null();
	n = strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-");
	if (n != strlen(v) || n < min || n > max)
		return json_null();
	return json_string(v);
}

/*
 * How the guest was run, as the host that booted it said: the clock
 * domain and the accelerator (kvm, tcg, tcg-icount; null on bare metal or
 * when nobody said).
 */
static json_t *env_clock(void)
{
	const char *d = iop_clock_domain();

	return json_pack("{s:s, s:o}",
			 "domain", d ? d : "wall",
			 "accel", env_word("IOPATH_ACCEL", 1, 16));
}

static json_t *env_kernel(void)
{
	struct utsname u;

	if (uname(&u))
		return json_null();
	/*
	 * boot_id: repetitions from one boot share page placement, interrupt
	 * routing and frequency state; compare needs to know which did.
	 */
	/* image_sha256: which build, where releases are alike (A/B of one tree). */
	return json_pack("{s:s, s:s, s:o, s:o, s:o}",
			 "release", u.release,
			 "version", u.version,
			 "cmdline", json_file_str("/proc/cmdline"),
			 "boot_id", json_file_str("/proc/sys/kernel/random/boot_id"),
			 "image_sha256", env_word("IOPATH_KERNEL_IMAGE_SHA256", 64, 64));
}

static json_t *env_machine(void)
{
	char host[HOST_NAME_MAX + 1];
	struct utsname u;
	int nodes;

	if (gethostname(host, sizeof(host)))
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	nodes = numa_available() < 0 ? 1 : numa_num_configured_nodes();
	/* arch: what a build of the kernel is for (KCIDB's build architecture). */
	return json_pack("{s:o, s:o, s:o, s:i, s:o, s:b}",
			 "arch", json_str_or_null(uname(&u) ? NULL : u.machine),
			 "cpu_model", cpu_model(),
			 "cpus_online", json_file_str("/sys/devices/system/cpu/online"),
			 "nodes", nodes,
			 "hostname", json_str_or_null(host),
			 "pmu", have_pmu());
}

static json_t *env_placement(const struct iop_env_info *info)
{
	struct iop_placement p;

	if (iop_placement_read(&p))
		return json_pack("{s:o}", "requested", json_str_or_null(info->cpus));
	return json_pack("{s:o, s:s, s:s, s:i, s:i}",
			 "requested", json_str_or_null(info->cpus),
			 "cpus", p.cpus,
			 "mems", p.mems,
			 "node", p.node,
			 "cpu", p.cpu);
}

static json_t *env_queue(const char *name)
{
	char q[PATH_MAX], path[PATH_MAX + 32];

	/* A partition's queue/ is its disk's, one directory up. */
	snprintf(path, sizeof(path), "/sys/class/block/%s/partition", name);
	snprintf(q, sizeof(q), "/sys/class/block/%s%s/queue", name,
		 access(path, F_OK) ? "" : "/..");
	if (access(q, F_OK))
		return json_null();
#define QUEUE_FILE(f) (snprintf(path, sizeof(path), "%s/" f, q), path)
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}",
			 "scheduler", json_scheduler(QUEUE_FILE("scheduler")),
			 "nomerges", json_file_int(QUEUE_FILE("nomerges")),
			 "io_poll", json_file_int(QUEUE_FILE("io_poll")),
			 "nr_requests", json_file_int(QUEUE_FILE("nr_requests")),
			 "rotational", json_file_int(QUEUE_FILE("rotational")),
			 "stable_writes", json_file_int(QUEUE_FILE("stable_writes")));
#undef QUEUE_FILE
}

static json_t *env_device(const struct iop_env_info *info)
{
	const char *name = NULL;

	if (info->dev) {
		name = strrchr(info->dev, '/');
		name = name ? name + 1 : info->dev;
	}
	return json_pack("{s:o, s:o, s:i, s:o}",
			 "name", json_str_or_null(name),
			 "backing", json_str_or_null(info->backing),
			 "node", name ? iop_blockdev_node(name) : -1,
			 "queue", name ? env_queue(name) : json_null());
}

json_t *iop_env_collect(const struct iop_env_info *info)
{
	static const struct iop_env_info none;

	if (!info)
		info = &none;
	/* json_pack with "o" takes NULL as failure and frees the rest. */
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o, s:o, s:o}, s:{s:s, s:s}}",
			 "kernel", env_kernel(),
			 "clock", env_clock(),
			 "machine", env_machine(),
			 "placement", env_placement(info),
			 "device", env_device(info),
			 "fs",
			 "type", json_str_or_null(info->fstype),
			 "mkfs_opts", json_str_or_null(info->mkfs_opts),
			 "mount_opts", json_str_or_null(info->mount_opts),
			 "mnt", json_str_or_null(info->mnt),
			 "iopath",
			 "version", IOPATH_VERSION,
			 "git", IOPATH_GIT);
}

/* ---- validation ----------------------------------------------------- */

/*
 * What every reader relies on. On failure, @what says what is wrong in
 * words that follow "<path>:<line>: ".
 */
/* Older records named a user's device "device": iop_backing_name() says "dev". */
static int backing_spelling(json_t *rec)
{
	json_t *b = json_object_get(json_object_get(json_object_get(rec, "env"), "device"),
				    "backing");

	if (json_is_string(b) && !strcmp(json_string_value(b), "device"))
		return json_string_set(b, iop_backing_name(IOP_BACKING_DEVICE)) ? -ENOMEM : 0;
	return 0;
}

/*
 * The grammar of a parameter name, [a-z][a-z0-9_]*, at most 63 bytes:
 * every benchmark's names fit it, and a name from a record is printed in
 * a command line to paste (compare's "reproduce:").
 */
static bool param_name_ok(const char *k)
{
	size_t n = 0;

	if (!(*k >= 'a' && *k <= 'z'))
		return false;
	for (; k[n]; n++)
		if (!((k[n] >= 'a' && k[n] <= 'z') || (k[n] >= '0' && k[n] <= '9') || k[n] == '_'))
			return false;
	return n < 64;
}

static int record_check(json_t *rec, char *what, size_t len)
{
	json_t *schema, *metrics, *m, *samples, *s, *params, *v;
	const char *k;
	size_t i, j;

	if (!json_is_object(rec)) {
		snprintf(what, len, "not a JSON object");
		return -EINVAL;
	}
	schema = json_object_get(rec, "schema");
	if (!schema) {
		snprintf(what, len, "missing \"schema\"");
		return -EINVAL;
	}
	if (!json_is_integer(schema)) {
		snprintf(what, len, "\"schema\" is not an integer");
		return -EINVAL;
	}
	if (json_integer_value(schema) != IOP_RECORD_SCHEMA) {
		snprintf(what, len, "schema %" JSON_INTEGER_FORMAT ", expected %d",
			 json_integer_value(schema), IOP_RECORD_SCHEMA);
		return -EINVAL;
	}
	if (!json_object_get(rec, "bench")) {
		snprintf(what, len, "missing \"bench\"");
		return -EINVAL;
	}
	if (!json_is_string(json_object_get(rec, "bench")) ||
	    !*json_string_value(json_object_get(rec, "bench"))) {
		snprintf(what, len, "\"bench\" is not a non-empty string");
		return -EINVAL;
	}
	metrics = json_object_get(rec, "metrics");
	if (!metrics) {
		snprintf(what, len, "missing \"metrics\"");
		return -EINVAL;
	}
	if (!json_is_array(metrics)) {
		snprintf(what, len, "\"metrics\" is not an array");
		return -EINVAL;
	}
	json_array_foreach(metrics, i, m) {
		if (!json_is_object(m)) {
			snprintf(what, len, "metrics[%zu] is not an object", i);
			return -EINVAL;
		}
		if (!json_is_string(json_object_get(m, "name"))) {
			snprintf(what, len, "metrics[%zu]: missing \"name\"", i);
			return -EINVAL;
		}
		samples = json_object_get(m, "samples");
		if (!json_is_array(samples)) {
			snprintf(what, len, "metrics[%zu] (%s): missing \"samples\"",
				 i, json_string_value(json_object_get(m, "name")));
			return -EINVAL;
		}
		json_array_foreach(samples, j, s) {
			if (!json_is_number(s)) {
				snprintf(what, len, "metrics[%zu] (%s): samples[%zu] is not a number",
					 i, json_string_value(json_object_get(m, "name")), j);
				return -EINVAL;
			}
		}
	}
	params = json_object_get(rec, "params");
	if (params && !json_is_object(params)) {
		snprintf(what, len, "\"params\" is not an object");
		return -EINVAL;
	}
	json_object_foreach(params, k, v) {
		if (!param_name_ok(k)) {
			char *e = iop_esc_dup(k);

			snprintf(what, len, "params: '%.64s' is not a parameter name ([a-z][a-z0-9_]*)",
				 e ? e : "?");
			free(e);
			return -EINVAL;
		}
	}
	return 0;
}

int iop_record_check(json_t *rec, char *what, size_t len)
{
	return record_check(rec, what, len);
}

/* ---- writing -------------------------------------------------------- */

static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

/*
 * Copy @path's existing lines into @fd; a missing file has none. Only a
 * regular file is read, and never through a symlink.
 */
static int copy_existing(const char *path, int fd)
{
	char buf[65536], last = '\n';
	struct stat st;
	ssize_t n;
	int in, ret = 0;

	in = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (in < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(in, &st) || !S_ISREG(st.st_mode)) {
		close(in);
		return -EINVAL;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		ret = write_all(fd, buf, n);
		if (ret)
			break;
		last = buf[n - 1];
	}
	close(in);
	/* Never glue a new record onto an unterminated last line. */
	if (!ret && last != '\n')
		ret = write_all(fd, "\n", 1);
	return ret;
}

int iop_records_write(const char *path, json_t *const *recs, size_t n, bool append)
{
	char tmp[PATH_MAX], what[128];
	struct stat st;
	int fd, ret;
	size_t i;
	char *line;

	if (!path || !*path || (n && !recs))
		return -EINVAL;
	/* Nothing reaches the disk unless every record would read back. */
	for (i = 0; i < n; i++)
		if (record_check(recs[i], what, sizeof(what)))
			return -EINVAL;
	/* A symlink at @path is refused, never followed. */
	if (!lstat(path, &st)) {
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		if (!S_ISREG(st.st_mode))
			return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}

	fd = iop_tmp_create(path, iop_out_mode(path), tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	if (append) {
		ret = copy_existing(path, fd);
		if (ret)
			goto out_unlink;
	}
	for (i = 0; i < n; i++) {
		/* Compact output has no newline inside: one record per line. */
		line = json_dumps(recs[i], JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (!line) {
			ret = -ENOMEM;
			goto out_unlink;
		}
		ret = write_all(fd, line, strlen(line));
		free(line);
		if (!ret)
			ret = write_all(fd, "\n", 1);
		if (ret)
			goto out_unlink;
	}
	/* The data must be on disk before the name points at it. */
	if (fsync(fd)) {
		ret = -errno;
		goto out_unlink;
	}
	if (close(fd)) {
		fd = -1;
		ret = -errno;
		goto out_unlink;
	}
	return iop_tmp_commit(tmp, path);

out_unlink:
	if (fd >= 0)
		close(fd);
	iop_tmp_discard(tmp);
	return ret;
}

/* ---- reading -------------------------------------------------------- */

static bool blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return false;
	return true;
}

int iop_records_read_at(const char *path, int (*cb)(json_t *rec, size_t line, void *arg),
			void *arg, char *why, size_t len)
{
	size_t records = 0;
	bool any_bytes = false, terminated;
	struct iop_input in;
	char *line, what[160];
	json_error_t err;
	json_t *rec;
	ssize_t n;
	int ret = 0;

	if (why && len)
		why[0] = '\0';
	if (!path || !cb) {
		iop_why(why, len, "no file or callback");
		return -EINVAL;
	}
	ret = iop_input_open(&in, path, IOP_RECORD_LINE_MAX, why, len);
	if (ret)
		return ret;

	while ((n = iop_input_line(&in, &line, &terminated, why, len)) >= 0) {
		any_bytes = true;
		/* A blank line carries no record (an editor's trailing newline). */
		if (blank(line, n))
			continue;
		/* jansson would stop at a NUL and accept what came before. */
		if (memchr(line, '\0', n)) {
			iop_why(why, len, "%s:%zu: not JSON: NUL byte at column %zu",
				path, in.lineno,
				(size_t)((char *)memchr(line, '\0', n) - line) + 1);
			ret = -EINVAL;
			break;
		}
		/* Any JSON value parses, so that "42" is "not a JSON object". */
		rec = json_loadb(line, n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
		if (!rec) {
			/*
			 * A line that stops mid-object is what an interrupted
			 * copy or a full disk leaves behind: say so, rather
			 * than quote the parser.
			 */
			if (json_error_code(&err) == json_error_premature_end_of_input ||
			    !terminated)
				iop_why(why, len, "%s:%zu: truncated line (%s)", path,
					in.lineno, err.text);
			else
				iop_why(why, len, "%s:%zu: not JSON: %s at column %d",
					path, in.lineno, err.text, err.column);
			ret = -EINVAL;
			break;
		}
		ret = record_check(rec, what, sizeof(what));
		if (ret) {
			iop_why(why, len, "%s:%zu: %s", path, in.lineno, what);
			json_decref(rec);
			break;
		}
		records++;
		ret = backing_spelling(rec);
		if (ret) {
			iop_why(why, len, "%s:%zu: %s", path, in.lineno, strerror(-ret));
			json_decref(rec);
			break;
		}
		/* The callback borrows @rec: json_incref() it to keep it. */
		ret = cb(rec, in.lineno, arg);
		json_decref(rec);
		if (ret)
			break;
	}
	if (!ret && n < 0 && n != -ENODATA)
		ret = (int)n;
	if (!ret && !records) {
		ret = -ENODATA;
		iop_why(why, len, "%s: %s", path, any_bytes ? "no records" : "empty file");
	}
	iop_input_close(&in);
	return ret;
}

struct read_plain {
	int (*cb)(json_t *rec, void *arg);
	void *arg;
};

static int read_plain_one(json_t *rec, size_t line, void *arg)
{
	struct read_plain *p = arg;

	(void)line;
	return p->cb(rec, p->arg);
}

int iop_records_read(const char *path, int (*cb)(json_t *rec, void *arg), void *arg,
		     char *why, size_t len)
{
	struct read_plain p = { .cb = cb, .arg = arg };

	if (!cb) {
		iop_why(why, len, "no file or callback");
		return -EINVAL;
	}
	return iop_records_read_at(path, read_plain_one, &p, why, len);
}
