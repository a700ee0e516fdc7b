// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lib/record.c: records survive a write/read round trip bit for bit, writes
 * are atomic and append keeps what was there, and every kind of malformed
 * file is refused with an error naming the file and line. Catches samples
 * printed with too few digits (compare would then see changes that are not
 * there), temp files left behind, appends that replace, and readers that
 * crash or silently skip on truncated, non-JSON or foreign-schema input.
 * Also catches a writer that follows a symlink planted at the output or
 * temporary name (root overwriting any file), one that copies the mode of
 * a file someone else planted at the output, set-id bits included (root
 * making a -rwsrwsrwx file), and a reader that blocks on
 * a FIFO, streams /dev/zero into memory, or splits an over-long line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "iopath.h"
#include "record.h"
#include "stats.h"

/*
 * Every fixture works in its own directory under one per-run directory.
 * The harness skips FIXTURE_TEARDOWN after a failed ASSERT on some
 * versions, so the runner process removes the whole tree when it exits.
 */
static char run_dir[PATH_MAX];
static pid_t run_pid;

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void remove_run_dir(void)
{
	if (getpid() == run_pid && run_dir[0])
		nftw(run_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void __attribute__((constructor)) make_run_dir(void)
{
	snprintf(run_dir, sizeof(run_dir), "%s/iopath-record-test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(run_dir)) {
		run_dir[0] = '\0';
		return;
	}
	run_pid = getpid();
	atexit(remove_run_dir);
}

FIXTURE(record) {
	char dir[PATH_MAX];
	char path[PATH_MAX + 32];
	char why[512];
};

FIXTURE_SETUP(record)
{
	ASSERT_NE(0, run_dir[0]);
	snprintf(self->dir, sizeof(self->dir), "%.*s/t.XXXXXX", PATH_MAX - 16, run_dir);
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/results.jsonl", self->dir);
	self->why[0] = '\0';
}

FIXTURE_TEARDOWN(record)
{
	nftw(self->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Names in @dir other than . and .., and the first such name. */
static int dir_entries(const char *path, char *first, size_t len)
{
	struct dirent *d;
	int n = 0;
	DIR *dir;

	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (!n++ && first)
			snprintf(first, len, "%s", d->d_name);
	}
	closedir(dir);
	return n;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	ret = fputs(text, f) < 0 ? -EIO : 0;
	if (fclose(f))
		ret = -errno;
	return ret;
}

static char *read_text(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f, *m;
	int c;

	f = fopen(path, "r");
	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	if (m) {
		while ((c = fgetc(f)) != EOF)
			fputc(c, m);
		fclose(m);
	}
	fclose(f);
	return buf;
}

struct collected {
	json_t *recs[16];
	size_t n;
	int stop_at;		/* return 7 from the stop_at'th call (1-based); 0: never */
};

static int collect(json_t *rec, void *arg)
{
	struct collected *c = arg;

	if (c->n < ARRAY_SIZE(c->recs))
		c->recs[c->n] = json_incref(rec);
	c->n++;
	if (c->stop_at && (int)c->n == c->stop_at)
		return 7;
	return 0;
}

static void collected_free(struct collected *c)
{
	size_t i;

	for (i = 0; i < c->n && i < ARRAY_SIZE(c->recs); i++)
		json_decref(c->recs[i]);
	c->n = 0;
}

/* Samples that need all 17 significant digits to come back unchanged. */
static const double awkward[] = {
	0.1, 1.0 / 3, 2.0 / 3, 123456789.123456789, 1e-300, 6.02214076e23, 1000000, 0,
};

static json_t *make_record(const char *bench, int rep)
{
	json_t *rec = iop_record_new(bench, rep);
	const double ns[] = { 350.25, 349.75, 351.5 };

	if (!rec)
		return NULL;
	if (json_object_set_new(json_object_get(rec, "params"), "bs", json_integer(4096)) ||
	    json_object_set_new(json_object_get(rec, "params"), "direct", json_true()) ||
	    iop_record_add_metric(rec, "iops", "ops/s", IOP_HIGHER_IS_BETTER, true,
				  awkward, ARRAY_SIZE(awkward)) ||
	    iop_record_add_metric(rec, "ns_per_op", "ns", IOP_LOWER_IS_BETTER, false,
				  ns, ARRAY_SIZE(ns))) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

TEST_F(record, round_trip_keeps_bench_params_and_exact_samples)
{
	struct collected c = { 0 };
	json_t *rec, *m, *s;
	size_t i;

	rec = make_record("uring_randread", 3);
	ASSERT_NE(NULL, rec);
	ASSERT_EQ(0, iop_records_write(self->path, &rec, 1, false));
	json_decref(rec);

	ASSERT_EQ(0, iop_records_read(self->path, collect, &c, self->why, sizeof(self->why)));
	ASSERT_EQ(1, c.n);
	rec = c.recs[0];
	EXPECT_EQ(IOP_RECORD_SCHEMA, json_integer_value(json_object_get(rec, "schema")));
	EXPECT_STREQ("uring_randread", json_string_value(json_object_get(rec, "bench")));
	EXPECT_EQ(3, json_integer_value(json_object_get(rec, "rep")));
	EXPECT_STREQ("ok", json_string_value(json_object_get(rec, "status")));
	EXPECT_EQ(4096, json_integer_value(json_object_get(json_object_get(rec, "params"), "bs")));
	EXPECT_TRUE(json_is_true(json_object_get(json_object_get(rec, "params"), "direct")));

	m = json_array_get(json_object_get(rec, "metrics"), 0);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("iops", json_string_value(json_object_get(m, "name")));
	EXPECT_STREQ("ops/s", json_string_value(json_object_get(m, "unit")));
	EXPECT_STREQ("higher", json_string_value(json_object_get(m, "better")));
	EXPECT_STREQ("hmean", json_string_value(json_object_get(m, "agg")));
	s = json_object_get(m, "samples");
	ASSERT_EQ(ARRAY_SIZE(awkward), json_array_size(s));
	EXPECT_EQ(ARRAY_SIZE(awkward), json_integer_value(json_object_get(m, "n")));
	for (i = 0; i < ARRAY_SIZE(awkward); i++) {
		/* Exact: compare pairs records, a last-digit drift is a false change. */
		EXPECT_TRUE(json_number_value(json_array_get(s, i)) == awkward[i]) {
			TH_LOG("samples[%zu] %.17g != %.17g", i,
			       json_number_value(json_array_get(s, i)), awkward[i]);
		}
	}
	/* One sample is 0: the harmonic mean of rates is then 0. */
	EXPECT_EQ(0.0, json_number_value(json_object_get(m, "value")));

	m = json_array_get(json_object_get(rec, "metrics"), 1);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ("lower", json_string_value(json_object_get(m, "better")));
	EXPECT_STREQ("median", json_string_value(json_object_get(m, "agg")));
	EXPECT_EQ(350.25, json_number_value(json_object_get(m, "value")));
	EXPECT_EQ(350.25, json_number_value(json_object_get(m, "median")));
	EXPECT_EQ(349.75, json_number_value(json_object_get(m, "min")));
	EXPECT_EQ(351.5, json_number_value(json_object_get(m, "max")));
	collected_free(&c);
}

TEST_F(record, rate_aggregate_is_harmonic_mean)
{
	const double iops[] = { 1, 2, 4 };
	json_t *rec, *m;

	rec = iop_record_new("falloc_write", 0);
	ASSERT_NE(NULL, rec);
	ASSERT_EQ(0, iop_record_add_metric(rec, "iops", "ops/s", IOP_HIGHER_IS_BETTER, true,
					   iops, ARRAY_SIZE(iops)));
	m = json_array_get(json_object_get(rec, "metrics"), 0);
	EXPECT_EQ(12.0 / 7, json_number_value(json_object_get(m, "value")));
	EXPECT_EQ(2.0, json_number_value(json_object_get(m, "median")));
	json_decref(rec);
}

/*
 * Issue 50: counted in instructions, a rate's value was the harmonic mean
 * of the slices within 0.1% of their median. Slices count reads a batch of
 * 32 at a time, so they sit on levels; a 3-instruction change moved the
 * share of slices on each level, which that value left out, and went
 * unseen. No slice is left out of a value now: iop_record_add_metric
 * summarizes every slice in any clock, and under icount the harness makes
 * the value the whole repetition's (iop_record_metric_whole).
 */
TEST_F(record, instruction_rate_keeps_every_slice)
{
	const double iops[] = { 248009, 248009, 247342, 248009, 248028, 243342 };
	json_t *rec, *m;

	ASSERT_EQ(0, setenv("IOPATH_CLOCK_DOMAIN", "instructions", 1));
	rec = iop_record_new("uring_randread", 0);
	ASSERT_NE(NULL, rec);
	ASSERT_EQ(0, iop_record_add_metric(rec, "iops", "ops/s", IOP_HIGHER_IS_BETTER, true,
					   iops, ARRAY_SIZE(iops)));
	unsetenv("IOPATH_CLOCK_DOMAIN");
	m = json_array_get(json_object_get(rec, "metrics"), 0);
	EXPECT_STREQ("hmean", json_string_value(json_object_get(m, "agg")));
	EXPECT_EQ(iop_hmean(iops, ARRAY_SIZE(iops)), json_number_value(json_object_get(m, "value")));
	json_decref(rec);
}

/*
 * The whole repetition's value: a rate becomes "ops_over_time", anything
 * else "time_over_ops", both known to readers, the first a rate; the
 * samples stay as they were. A quantum is a fraction of the value.
 */
TEST_F(record, whole_repetition_value_and_quantum)
{
	const double iops[] = { 248009, 247342 }, ns[] = { 4032, 4033 };
	json_t *rec, *m;

	rec = iop_record_new("uring_randread", 0);
	ASSERT_NE(NULL, rec);
	ASSERT_EQ(0, iop_record_add_metric(rec, "iops", "ops/s", IOP_HIGHER_IS_BETTER, true,
					   iops, ARRAY_SIZE(iops)));
	ASSERT_EQ(0, iop_record_add_metric(rec, "cpu_ns_per_op", "ns", IOP_LOWER_IS_BETTER, false,
					   ns, ARRAY_SIZE(ns)));
	ASSERT_EQ(0, iop_record_metric_whole(rec, "iops", 247901.25));
	ASSERT_EQ(0, iop_record_metric_whole(rec, "cpu_ns_per_op", 4032.5));
	ASSERT_EQ(0, iop_record_metric_quantum(rec, "iops", 32.0 / 12400));
	EXPECT_EQ(-EINVAL, iop_record_metric_whole(rec, "no_such", 1));
	EXPECT_EQ(-EINVAL, iop_record_metric_whole(rec, "iops", NAN));
	EXPECT_EQ(-EINVAL, iop_record_metric_quantum(rec, "iops", -1));
	m = json_array_get(json_object_get(rec, "metrics"), 0);
	EXPECT_STREQ("ops_over_time", json_string_value(json_object_get(m, "agg")));
	EXPECT_EQ(247901.25, json_number_value(json_object_get(m, "value")));
	EXPECT_EQ(32.0 / 12400, json_number_value(json_object_get(m, "quantum")));
	EXPECT_EQ(2, json_array_size(json_object_get(m, "samples")));
	m = json_array_get(json_object_get(rec, "metrics"), 1);
	EXPECT_STREQ("time_over_ops", json_string_value(json_object_get(m, "agg")));
	EXPECT_EQ(4032.5, json_number_value(json_object_get(m, "value")));
	EXPECT_TRUE(iop_agg_is_rate("ops_over_time"));
	EXPECT_FALSE(iop_agg_is_rate("time_over_ops"));
	EXPECT_TRUE(iop_agg_known("time_over_ops"));
	EXPECT_TRUE(iop_agg_is_whole("ops_over_time"));
	EXPECT_FALSE(iop_agg_is_whole("hmean_inliers"));
	/* older runs' records still read */
	EXPECT_TRUE(iop_agg_is_rate("hmean_inliers"));
	json_decref(rec);
}

TEST_F(record, metric_without_samples_or_with_nan_refused)
{
	const double bad[] = { 1, NAN };
	json_t *rec = iop_record_new("x", 0);

	ASSERT_NE(NULL, rec);
	EXPECT_EQ(-EINVAL,
		  iop_record_add_metric(rec, "m", "ns", IOP_LOWER_IS_BETTER, false, bad, 0));
	EXPECT_EQ(-EINVAL,
		  iop_record_add_metric(rec, "m", "ns", IOP_LOWER_IS_BETTER, false, bad, 2));
	EXPECT_EQ(0, json_array_size(json_object_get(rec, "metrics")));
	json_decref(rec);
	EXPECT_EQ(NULL, iop_record_new("", 0));
	EXPECT_EQ(NULL, iop_record_new(NULL, 0));
}

TEST_F(record, untrusted_reasons_accumulate)
{
	json_t *rec = iop_record_new("x", 0), *u;

	ASSERT_NE(NULL, rec);
	EXPECT_STREQ("ok", json_string_value(json_object_get(rec, "status")));
	EXPECT_EQ(0, iop_record_untrusted(rec, "cv 3.4% > 2%"));
	EXPECT_EQ(0, iop_record_untrusted(rec, "ran on cpu 0, pinned to 1"));
	EXPECT_STREQ("untrusted", json_string_value(json_object_get(rec, "status")));
	u = json_object_get(rec, "untrusted");
	ASSERT_EQ(2, json_array_size(u));
	EXPECT_STREQ("cv 3.4% > 2%", json_string_value(json_array_get(u, 0)));
	EXPECT_STREQ("ran on cpu 0, pinned to 1", json_string_value(json_array_get(u, 1)));
	json_decref(rec);
}

TEST_F(record, env_describes_this_machine)
{
	struct iop_env_info info = {
		.fstype = "xfs", .mkfs_opts = "-m reflink=1", .backing = "dir", .cpus = "0",
	};
	json_t *env, *v;
	struct utsname u;

	ASSERT_EQ(0, uname(&u));
	env = iop_env_collect(&info);
	ASSERT_NE(NULL, env);
	v = json_object_get(env, "kernel");
	EXPECT_STREQ(u.release, json_string_value(json_object_get(v, "release")));
	v = json_object_get(env, "machine");
	EXPECT_TRUE(json_is_boolean(json_object_get(v, "pmu")));
	EXPECT_TRUE(json_is_string(json_object_get(v, "cpus_online")));
	EXPECT_LE(1, json_integer_value(json_object_get(v, "nodes")));
	v = json_object_get(env, "placement");
	EXPECT_STREQ("0", json_string_value(json_object_get(v, "requested")));
	EXPECT_TRUE(json_is_string(json_object_get(v, "cpus")));
	EXPECT_LE(0, json_integer_value(json_object_get(v, "cpu")));
	v = json_object_get(env, "fs");
	EXPECT_STREQ("xfs", json_string_value(json_object_get(v, "type")));
	EXPECT_STREQ("-m reflink=1", json_string_value(json_object_get(v, "mkfs_opts")));
	EXPECT_TRUE(json_is_null(json_object_get(v, "mount_opts")));
	v = json_object_get(env, "device");
	EXPECT_TRUE(json_is_null(json_object_get(v, "name")));
	EXPECT_STREQ("dir", json_string_value(json_object_get(v, "backing")));
	v = json_object_get(env, "iopath");
	EXPECT_STREQ(IOPATH_VERSION, json_string_value(json_object_get(v, "version")));
	EXPECT_TRUE(json_is_string(json_object_get(v, "git")));
	json_decref(env);
	/* No info at all still describes the machine. */
	env = iop_env_collect(NULL);
	ASSERT_NE(NULL, env);
	EXPECT_TRUE(json_is_object(json_object_get(env, "kernel")));
	json_decref(env);
}

TEST_F(record, write_is_atomic_and_leaves_no_temp_file)
{
	char first[256] = "", nodir[PATH_MAX + 32], *before, *after;
	json_t *recs[2], *bad;

	recs[0] = make_record("a", 0);
	recs[1] = make_record("a", 1);
	ASSERT_NE(NULL, recs[0]);
	ASSERT_NE(NULL, recs[1]);
	ASSERT_EQ(0, iop_records_write(self->path, recs, 2, false));
	EXPECT_EQ(1, dir_entries(self->dir, first, sizeof(first)));
	EXPECT_STREQ("results.jsonl", first);

	/* A record that would not read back: refused, file untouched. */
	before = read_text(self->path);
	ASSERT_NE(NULL, before);
	bad = json_pack("{s:i, s:s}", "schema", IOP_RECORD_SCHEMA, "bench", "a");
	ASSERT_NE(NULL, bad);
	EXPECT_EQ(-EINVAL, iop_records_write(self->path, &bad, 1, true));
	after = read_text(self->path);
	ASSERT_NE(NULL, after);
	EXPECT_STREQ(before, after);
	EXPECT_EQ(1, dir_entries(self->dir, NULL, 0));

	/* A directory that does not exist: an error and nothing anywhere. */
	snprintf(nodir, sizeof(nodir), "%s/nodir/results.jsonl", self->dir);
	EXPECT_EQ(-ENOENT, iop_records_write(nodir, recs, 2, false));
	EXPECT_EQ(1, dir_entries(self->dir, NULL, 0));

	free(before);
	free(after);
	json_decref(bad);
	json_decref(recs[0]);
	json_decref(recs[1]);
}

TEST_F(record, one_compact_record_per_line)
{
	json_t *recs[3];
	char *text, *p;
	int i, lines = 0;

	for (i = 0; i < 3; i++) {
		recs[i] = make_record("lines", i);
		ASSERT_NE(NULL, recs[i]);
	}
	ASSERT_EQ(0, iop_records_write(self->path, recs, 3, false));
	text = read_text(self->path);
	ASSERT_NE(NULL, text);
	for (p = text; *p; p++)
		lines += *p == '\n';
	EXPECT_EQ(3, lines);
	EXPECT_EQ('\n', text[strlen(text) - 1]);
	EXPECT_EQ(0, strncmp(text, "{\"schema\":1,\"bench\":\"lines\",\"rep\":0,", 36));
	free(text);
	for (i = 0; i < 3; i++)
		json_decref(recs[i]);
}

TEST_F(record, append_keeps_existing_lines)
{
	struct collected c = { 0 };
	json_t *recs[3];
	int i;

	for (i = 0; i < 3; i++) {
		recs[i] = make_record("append", i);
		ASSERT_NE(NULL, recs[i]);
	}
	/* Appending to a file that does not exist yet creates it. */
	ASSERT_EQ(0, iop_records_write(self->path, recs, 2, true));
	ASSERT_EQ(0, iop_records_write(self->path, recs + 2, 1, true));
	ASSERT_EQ(0, iop_records_read(self->path, collect, &c, self->why, sizeof(self->why)));
	ASSERT_EQ(3, c.n);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(i, json_integer_value(json_object_get(c.recs[i], "rep")));
	collected_free(&c);

	/* Without append, the file is replaced. */
	ASSERT_EQ(0, iop_records_write(self->path, recs + 1, 1, false));
	ASSERT_EQ(0, iop_records_read(self->path, collect, &c, self->why, sizeof(self->why)));
	ASSERT_EQ(1, c.n);
	EXPECT_EQ(1, json_integer_value(json_object_get(c.recs[0], "rep")));
	collected_free(&c);
	EXPECT_EQ(1, dir_entries(self->dir, NULL, 0));
	for (i = 0; i < 3; i++)
		json_decref(recs[i]);
}

TEST_F(record, callback_value_stops_the_read)
{
	struct collected c = { .stop_at = 2 };
	json_t *recs[3];
	int i;

	for (i = 0; i < 3; i++) {
		recs[i] = make_record("stop", i);
		ASSERT_NE(NULL, recs[i]);
	}
	ASSERT_EQ(0, iop_records_write(self->path, recs, 3, false));
	EXPECT_EQ(7, iop_records_read(self->path, collect, &c, self->why, sizeof(self->why)));
	EXPECT_EQ(2, c.n);
	collected_free(&c);
	for (i = 0; i < 3; i++)
		json_decref(recs[i]);
}

#define GOOD "{\"schema\":1,\"bench\":\"b\",\"metrics\":[{\"name\":\"iops\",\"samples\":[1,2.5]}]}\n"

/* One malformed file: its content, the errno and the message after "<path>". */
static const struct {
	const char *name;
	const char *text;
	int err;
	const char *msg;
	size_t good_before;	/* records delivered before the bad line */
} malformed[] = {
	{ "empty file", "", -ENODATA, ": empty file", 0 },
	{ "only blank lines", "\n  \n", -ENODATA, ": no records", 0 },
	{ "truncated last line", GOOD "{\"schema\":1,\"bench\":\"b\",\"metr",
	  -EINVAL, ":2: truncated line", 1 },
	{ "line cut mid-object", "{\"schema\":1,\"bench\":\n" GOOD, -EINVAL,
	  ":1: truncated line", 0 },
	{ "not JSON", GOOD GOOD "schema=1 bench=b\n", -EINVAL, ":3: not JSON", 2 },
	{ "JSON array", "[1,2,3]\n", -EINVAL, ":1: not a JSON object", 0 },
	{ "JSON number", GOOD "42\n", -EINVAL, ":2: not a JSON object", 1 },
	{ "schema 2", "{\"schema\":2,\"bench\":\"b\",\"metrics\":[]}\n",
	  -EINVAL, ":1: schema 2, expected 1", 0 },
	{ "schema as string", "{\"schema\":\"1\",\"bench\":\"b\",\"metrics\":[]}\n",
	  -EINVAL, ":1: \"schema\" is not an integer", 0 },
	{ "no schema", "{\"bench\":\"b\",\"metrics\":[]}\n", -EINVAL, ":1: missing \"schema\"", 0 },
	{ "no bench", GOOD "{\"schema\":1,\"metrics\":[]}\n", -EINVAL, ":2: missing \"bench\"", 1 },
	{ "no metrics", "{\"schema\":1,\"bench\":\"b\"}\n", -EINVAL, ":1: missing \"metrics\"", 0 },
	{ "metrics not an array", "{\"schema\":1,\"bench\":\"b\",\"metrics\":{}}\n",
	  -EINVAL, ":1: \"metrics\" is not an array", 0 },
	{ "metric without samples", "{\"schema\":1,\"bench\":\"b\",\"metrics\":[{\"name\":\"iops\"}]}\n",
	  -EINVAL, ":1: metrics[0] (iops): missing \"samples\"", 0 },
	{ "metric without name", "{\"schema\":1,\"bench\":\"b\",\"metrics\":[{\"samples\":[]}]}\n",
	  -EINVAL, ":1: metrics[0]: missing \"name\"", 0 },
	{ "string sample", "{\"schema\":1,\"bench\":\"b\",\"metrics\":[{\"name\":\"m\",\"samples\":[1,\"2\"]}]}\n",
	  -EINVAL, ":1: metrics[0] (m): samples[1] is not a number", 0 },
	{ "blank lines still count", "\n" GOOD "\n[]\n", -EINVAL, ":4: not a JSON object", 1 },
	{ "NUL byte in a line", GOOD "{\"schema\":1,\"bench\":\"b\",\"metrics\":[]}\0x\n",
	  -EINVAL, ":2: not JSON: NUL byte at column 38", 1 },
};

TEST_F(record, malformed_input_names_file_and_line)
{
	struct collected c = { 0 };
	char want[PATH_MAX + 128];
	size_t i, len;
	int ret, fd;

	for (i = 0; i < ARRAY_SIZE(malformed); i++) {
		/* strlen would stop at an embedded NUL: write the literal's bytes. */
		len = strlen(malformed[i].text);
		if (!strcmp(malformed[i].name, "NUL byte in a line"))
			len += 1 + strlen(malformed[i].text + len + 1);
		fd = open(self->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		ASSERT_LE(0, fd);
		ASSERT_EQ((ssize_t)len, write(fd, malformed[i].text, len));
		close(fd);

		ret = iop_records_read(self->path, collect, &c, self->why, sizeof(self->why));
		snprintf(want, sizeof(want), "%s%s", self->path, malformed[i].msg);
		EXPECT_EQ(malformed[i].err, ret) {
			TH_LOG("%s: got %d (%s)", malformed[i].name, ret, self->why);
		}
		EXPECT_EQ(0, strncmp(self->why, want, strlen(want))) {
			TH_LOG("%s: \"%s\" does not start with \"%s\"",
			       malformed[i].name, self->why, want);
		}
		/* One line, as a CLI prints it. */
		EXPECT_EQ(NULL, strchr(self->why, '\n'));
		EXPECT_EQ(malformed[i].good_before, c.n) {
			TH_LOG("%s", malformed[i].name);
		}
		collected_free(&c);
	}
}

TEST_F(record, missing_file_or_directory_named)
{
	struct collected c = { 0 };
	char want[PATH_MAX + 64];

	snprintf(want, sizeof(want), "%s: No such file or directory", self->path);
	EXPECT_EQ(-ENOENT, iop_records_read(self->path, collect, &c, self->why, sizeof(self->why)));
	EXPECT_STREQ(want, self->why);
	EXPECT_EQ(0, c.n);

	snprintf(want, sizeof(want), "%s: Is a directory", self->dir);
	EXPECT_EQ(-EISDIR, iop_records_read(self->dir, collect, &c, self->why, sizeof(self->why)));
	EXPECT_STREQ(want, self->why);
	EXPECT_EQ(0, c.n);
}

TEST_F(record, hand_written_integers_and_unknown_keys_accepted)
{
	static const char text[] =
		"{\"schema\":1,\"bench\":\"b\",\"future_key\":{\"x\":1},"
		"\"metrics\":[{\"name\":\"iops\",\"samples\":[1000,2000]}]}";
	struct collected c = { 0 };

	ASSERT_EQ(0, write_text(self->path, text));
	/* No final newline, but complete: accepted. */
	ASSERT_EQ(0, iop_records_read(self->path, collect, &c, self->why, sizeof(self->why)));
	ASSERT_EQ(1, c.n);
	collected_free(&c);
}

/*
 * Records from before the one backing spelling said "device": read back,
 * they say "dev", as new ones do, so that the two compare.
 */
TEST_F(record, old_device_backing_reads_as_dev)
{
	static const char text[] =
		"{\"schema\":1,\"bench\":\"b\",\"env\":{\"device\":{\"backing\":\"device\"}},"
		"\"metrics\":[{\"name\":\"iops\",\"samples\":[1]}]}\n"
		"{\"schema\":1,\"bench\":\"b\",\"env\":{\"device\":{\"backing\":\"loop\"}},"
		"\"metrics\":[{\"name\":\"iops\",\"samples\":[1]}]}\n";
	struct collected c = { 0 };
	json_t *b;

	ASSERT_EQ(0, write_text(self->path, text));
	ASSERT_EQ(0, iop_records_read(self->path, collect, &c, self->why, sizeof(self->why)))
		TH_LOG("%s", self->why);
	ASSERT_EQ(2, c.n);
	b = json_object_get(json_object_get(json_object_get(c.recs[0], "env"), "device"), "backing");
	EXPECT_STREQ(iop_backing_name(IOP_BACKING_DEVICE), json_string_value(b));
	EXPECT_STREQ("dev", json_string_value(b));
	b = json_object_get(json_object_get(json_object_get(c.recs[1], "env"), "device"), "backing");
	EXPECT_STREQ("loop", json_string_value(b));
	collected_free(&c);
}

/* A root-only file a symlink points at, and whether it is still intact. */
static int plant_victim(const char *dir, char *victim, size_t len)
{
	snprintf(victim, len, "%s/victim", dir);
	return write_text(victim, "secret\n");
}

static bool victim_intact(const char *victim)
{
	char *t = read_text(victim);
	bool ok = t && !strcmp(t, "secret\n");

	free(t);
	return ok;
}

TEST_F(record, symlink_at_output_refused_not_followed)
{
	char victim[PATH_MAX + 16];
	json_t *rec = make_record("b", 0);

	ASSERT_NE(NULL, rec);
	ASSERT_EQ(0, plant_victim(self->dir, victim, sizeof(victim)));
	ASSERT_EQ(0, symlink(victim, self->path));
	EXPECT_EQ(-ELOOP, iop_records_write(self->path, &rec, 1, false));
	EXPECT_EQ(-ELOOP, iop_records_write(self->path, &rec, 1, true));
	EXPECT_TRUE(victim_intact(victim));
	/* the symlink and the victim, no temporary file */
	EXPECT_EQ(2, dir_entries(self->dir, NULL, 0));
	json_decref(rec);
}

TEST_F(record, symlink_at_old_temp_name_not_followed)
{
	char victim[PATH_MAX + 16], tmp[PATH_MAX + 64];
	json_t *rec = make_record("b", 0);

	ASSERT_NE(NULL, rec);
	ASSERT_EQ(0, plant_victim(self->dir, victim, sizeof(victim)));
	/* The name a guessable "<out>.tmp.<pid>" writer would open. */
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", self->path, (int)getpid());
	ASSERT_EQ(0, symlink(victim, tmp));
	ASSERT_EQ(0, iop_records_write(self->path, &rec, 1, false));
	EXPECT_TRUE(victim_intact(victim));
	EXPECT_EQ(3, dir_entries(self->dir, NULL, 0));
	json_decref(rec);
}

TEST_F(record, fifo_and_devices_refused_without_blocking)
{
	struct collected c = { 0 };
	char fifo[PATH_MAX + 16];
	pid_t pid;
	int st;

	snprintf(fifo, sizeof(fifo), "%s/fifo", self->dir);
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	/* In a child with a deadline: a reader that blocks fails, not hangs. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char why[512];

		alarm(5);
		if (iop_records_read(fifo, collect, &c, why, sizeof(why)) != -EINVAL ||
		    !strstr(why, "not a regular file"))
			_exit(1);
		if (iop_records_read("/dev/zero", collect, &c, why, sizeof(why)) != -EINVAL ||
		    strcmp(why, "/dev/zero: not a regular file"))
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

TEST_F(record, over_long_line_refused_with_its_line)
{
	struct collected c = { 0 };
	char want[2 * PATH_MAX];
	size_t n = IOP_RECORD_LINE_MAX + 10;
	char *big = malloc(n + 1);
	FILE *f;

	ASSERT_NE(NULL, big);
	memset(big, ' ', n);
	big[n] = '\0';
	f = fopen(self->path, "w");
	ASSERT_NE(NULL, f);
	fputs("\n", f);
	fputs(big, f);
	fclose(f);
	free(big);
	snprintf(want, sizeof(want), "%s:2: line longer than %u bytes", self->path,
		 IOP_RECORD_LINE_MAX);
	EXPECT_EQ(-E2BIG, iop_records_read(self->path, collect, &c, self->why, sizeof(self->why)));
	EXPECT_STREQ(want, self->why);
}

/* The mode of the file written over @path, created first with @mode by @uid. */
static mode_t mode_after_write(const char *path, mode_t mode, uid_t uid)
{
	json_t *rec = make_record("m", 0);
	struct stat st;
	int fd;

	if (!rec)
		return (mode_t)-1;
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || fchown(fd, uid, (gid_t)-1) || fchmod(fd, mode) || close(fd) ||
	    iop_records_write(path, &rec, 1, true) || stat(path, &st)) {
		json_decref(rec);
		return (mode_t)-1;
	}
	json_decref(rec);
	return st.st_mode & 07777;
}

TEST_F(record, new_file_mode_is_0644_less_umask)
{
	json_t *rec = make_record("m", 0);
	mode_t old = umask(027);
	struct stat st;

	ASSERT_NE(NULL, rec);
	EXPECT_EQ(0, iop_records_write(self->path, &rec, 1, false));
	umask(old);
	ASSERT_EQ(0, stat(self->path, &st));
	EXPECT_EQ(0640, st.st_mode & 07777);
	json_decref(rec);
}

TEST_F(record, set_id_bits_and_foreign_modes_never_copied)
{
	mode_t old = umask(022);

	/* our own file keeps its permission bits, never set-id or sticky */
	EXPECT_EQ(0600, mode_after_write(self->path, 0600, geteuid()));
	EXPECT_EQ(0755, mode_after_write(self->path, 06755, geteuid()));
	EXPECT_EQ(0777, mode_after_write(self->path, 07777, geteuid()));
	/* someone else's file (as root: planted by nobody) passes on nothing */
	if (geteuid() == 0)
		EXPECT_EQ(0644, mode_after_write(self->path, 06777, 65534));
	umask(old);
}

TEST_HARNESS_MAIN
