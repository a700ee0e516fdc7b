/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Result records: JSON Lines, one object per benchmark repetition, read and
 * written with jansson. docs/records.md describes the schema; bump
 * IOP_RECORD_SCHEMA whenever a reader of the old layout would misread the
 * new one.
 */
#ifndef IOPATH_RECORD_H
#define IOPATH_RECORD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define IOP_RECORD_SCHEMA 1

enum iop_better { IOP_HIGHER_IS_BETTER, IOP_LOWER_IS_BETTER };

/* {"schema":1,"bench":@bench,"rep":@rep,"params":{},"metrics":[],"env":{},"status":"ok"} */
json_t *iop_record_new(const char *bench, int rep);

/*
 * Append a metric: name, unit ("ops/s", "ns", "%"...), direction, the raw
 * samples and their summary (median, mean, stddev, cv, min, max, and
 * "agg": the value compare uses: harmonic mean for rates, median otherwise).
 */
int iop_record_add_metric(json_t *rec, const char *name, const char *unit,
			  enum iop_better better, bool is_rate,
			  const double *samples, size_t n);

/*
 * Make the value of metric @name of @rec (the last one of that name) the
 * whole repetition's: its operations over its time for a rate ("agg":
 * "ops_over_time"), its time over its operations otherwise
 * ("time_over_ops"). What a clock that counts instructions calls for: no
 * slice of the run is left out or quantized. -EINVAL for no such metric
 * or a value no measurement has.
 */
int iop_record_metric_whole(json_t *rec, const char *name, double value);

/*
 * Say what one quantum of metric @name's slices is, as a fraction of its
 * value ("quantum"): the change of a slice's figure when one unit of
 * completion (an io_uring batch) lands in the next slice instead. No
 * comparison of slice figures resolves less (iopath compare never states
 * an MDE below it). -EINVAL for no such metric or a quantum below 0.
 */
int iop_record_metric_quantum(json_t *rec, const char *name, double quantum);

/*
 * The aggregates a metric's "agg" may name (docs/records.md), which of
 * them are rates, tested on the scale of 1/x, and which are the whole
 * repetition's (iop_record_metric_whole). "hmean_inliers" is read, in
 * records of older runs, and never written.
 */
bool iop_agg_known(const char *agg);
bool iop_agg_is_rate(const char *agg);
bool iop_agg_is_whole(const char *agg);

/* Mark untrusted, with a reason ("cv 3.4% > 2%"); reasons accumulate. */
int iop_record_untrusted(json_t *rec, const char *why);

struct iop_env_info {
	const char *dev;	/* block device the benchmark used, or NULL */
	const char *fstype;
	const char *mkfs_opts;
	const char *mount_opts;
	const char *mnt;
	const char *backing;	/* "zram", "loop", "device", "dir" */
	const char *cpus;	/* requested pinning, e.g. "1" */
};

/*
 * Environment: kernel release/version/cmdline, CPU model, online CPUs,
 * effective placement, NUMA node, the device and its queue settings
 * (scheduler, nomerges, io_poll, nr_requests, rotational), the filesystem
 * and its options, iopath version. Returns a new object or NULL.
 */
json_t *iop_env_collect(const struct iop_env_info *info);

/*
 * The clock domain the timed loops ran in: "wall" (nanoseconds of real
 * time, the default) or "instructions" (under QEMU TCG with icount the
 * guest clock advances 1 ns per instruction executed, so a time per
 * operation is an instruction count). Set by whoever boots the machine,
 * through IOPATH_CLOCK_DOMAIN; NULL when that holds anything else.
 * Records of different domains never compare.
 */
const char *iop_clock_domain(void);

/*
 * Write records atomically: to a new "<path>.tmp.XXXXXX" (O_EXCL|O_NOFOLLOW)
 * then rename(2). With @append the existing lines of @path are kept in
 * front. A symlink at @path is refused (-ELOOP), never followed.
 */
int iop_records_write(const char *path, json_t *const *recs, size_t n, bool append);

/*
 * What every reader relies on (iop_records_read() checks each record so):
 * 0, or -EINVAL with what is wrong in @what, in words that follow
 * "<path>:<line>: ". For records that come in another way (a LAVA log).
 */
int iop_record_check(json_t *rec, char *what, size_t len);

/* Longest record line read (a record with 100k samples fits). */
#define IOP_RECORD_LINE_MAX (8u << 20)

/*
 * Read a JSON Lines file (a regular file only: -EINVAL otherwise), calling
 * @cb for each record. A line that is not a JSON object, lacks
 * "schema"/"bench"/"metrics" or carries another schema version stops the
 * read with -EINVAL and "<path>:<line>: <what>" in @why. A line over
 * IOP_RECORD_LINE_MAX is -E2BIG. An empty file is -ENODATA. @cb returning
 * non-zero stops with that value.
 */
int iop_records_read(const char *path, int (*cb)(json_t *rec, void *arg), void *arg,
		     char *why, size_t len);
/*
 * The same, @cb also given the record's line in @path: a reader that
 * checks more than iop_record_check() (lib/record_view.c) refuses in the
 * same "<path>:<line>: <what>" words.
 */
int iop_records_read_at(const char *path, int (*cb)(json_t *rec, size_t line, void *arg),
			void *arg, char *why, size_t len);

#endif
