// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * falloc_write: fio's ioengine=falloc, as LKP's fio-basic runs it
 * (bs=4k, rw=write, fallocate=posix): the file is first laid out with one
 * posix_fallocate() of its whole size, then fallocate(fd, 0, off, bs) is
 * called for consecutive bs-sized ranges, wrapping at the end of the file.
 * Each call therefore hits an already allocated (unwritten) range: this
 * benchmark measures the filesystem's fallocate fast path (inode lock,
 * transaction or journal handle, extent lookup, timestamp update), ops/s
 * and the latency of each call.
 *
 * Modes: alloc = fallocate mode 0 (fio rw=write), keep_size =
 * FALLOC_FL_KEEP_SIZE (fio rw=read), punch_hole = FALLOC_FL_PUNCH_HOLE |
 * FALLOC_FL_KEEP_SIZE (fio rw=trim). prealloc=none skips the layout, so
 * mode 0 allocates a new block at EOF on every call; on wrap the file is
 * truncated to zero inside the timed loop (once per size/bs calls).
 * Every repetition starts from the same layout (re-preallocated, or
 * truncated to zero with prealloc=none).
 *
 * It does NOT measure writing data, block allocation on a full or
 * fragmented filesystem, or the device (no data reaches it).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "iopath.h"

static const struct iop_param fw_params[] = {
	{ "mode", IOP_P_ENUM, "alloc", 0, 0, "alloc|keep_size|punch_hole",
	  "fallocate mode: 0, KEEP_SIZE, or PUNCH_HOLE|KEEP_SIZE" },
	{ "prealloc", IOP_P_ENUM, "posix", 0, 0, "posix|none",
	  "lay the file out with posix_fallocate first (fio fallocate=posix) or not" },
	{ "bs", IOP_P_SIZE, "4k", 512, 1ull << 30, NULL, "bytes per fallocate call" },
	{ "size", IOP_P_SIZE, "1g", 1 << 20, 1ull << 44, NULL,
	  "file size; offsets wrap at the end" },
	{ "lat", IOP_P_BOOL, "1", 0, 1, NULL, "latency percentiles (one clock read per call)" },
	{ .name = NULL }
};

static const struct iop_metric fw_metrics[] = {
	{ "ops", "ops/s", IOP_HIGHER_IS_BETTER, true },
	{ .name = NULL }
};

struct fw_job {
	char path[PATH_MAX + 32];
	int fd;
	int mode;
	bool prealloc, lat;
	uint64_t bs, size;
};

static bool fw_needs_fs(const struct iop_run *r)
{
	(void)r;
	return true;
}

/* fallocate modes this filesystem does not have are a reason to skip */
static int fw_requires(struct iop_run *r, char *why, size_t len)
{
	char path[PATH_MAX + 32];
	int fd, ret = 0;
	int mode = iop_is(r, "mode", "punch_hole") ? FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE :
		   iop_is(r, "mode", "keep_size") ? FALLOC_FL_KEEP_SIZE : 0;

	snprintf(path, sizeof(path), "%s/falloc_write.probe", r->dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(why, len, "falloc_write: create %s: %s", path, strerror(errno));
		return -errno;
	}
	if (fallocate(fd, mode, 0, 65536)) {
		ret = -errno;
		snprintf(why, len, "falloc_write: %s: fallocate mode %#x: %s",
			 r->fstype ? r->fstype : r->dir, mode, strerror(errno));
	}
	close(fd);
	unlink(path);
	return ret;
}

static int fw_setup(struct iop_run *r, char *why, size_t len)
{
	struct fw_job *j = calloc(1, sizeof(*j));
	int ret;

	if (!j)
		return -ENOMEM;
	j->bs = iop_u64(r, "bs");
	j->size = iop_u64(r, "size");
	j->lat = iop_u64(r, "lat");
	j->prealloc = iop_is(r, "prealloc", "posix");
	j->mode = iop_is(r, "mode", "punch_hole") ? FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE :
		  iop_is(r, "mode", "keep_size") ? FALLOC_FL_KEEP_SIZE : 0;
	snprintf(j->path, sizeof(j->path), "%s/falloc_write.dat", r->dir);
	/* fio's falloc engine: O_CREAT | O_RDWR, never O_DIRECT */
	j->fd = open(j->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (j->fd < 0) {
		ret = -errno;
		snprintf(why, len, "falloc_write: create %s: %s", j->path, strerror(errno));
		free(j);
		return ret;
	}
	r->priv = j;
	r->keeps_hist = j->lat;
	r->extra = json_pack("{s:s, s:i}", "file", j->path, "fallocate_mode", j->mode);
	return 0;
}

static void fw_teardown(struct iop_run *r)
{
	struct fw_job *j = r->priv;

	if (!j)
		return;
	close(j->fd);
	iop_job_free(r, j->path, true);
}

/* The same starting layout for every repetition. */
static int fw_warm(struct iop_run *r, char *why, size_t len)
{
	struct fw_job *j = r->priv;
	int ret;

	if (j->prealloc) {
		ret = -posix_fallocate(j->fd, 0, (off_t)j->size);
		if (ret) {
			snprintf(why, len, "falloc_write: posix_fallocate(%s, 0, %llu): %s",
				 j->path, (unsigned long long)j->size, strerror(-ret));
			return ret == -ENOSPC ? -ENOSPC : ret;
		}
		return 0;
	}
	if (ftruncate(j->fd, 0)) {
		snprintf(why, len, "falloc_write: ftruncate(%s): %s", j->path, strerror(errno));
		return -errno;
	}
	return 0;
}

static __attribute__((noinline)) int fw_fail(struct iop_worker *w, const struct fw_job *j,
					     const char *call, uint64_t off)
{
	int err = errno;

	snprintf(w->why, sizeof(w->why),
		 "falloc_write: %s(%.160s, mode %#x, off %llu, len %llu): %s", call,
		 j->path, j->mode, (unsigned long long)off,
		 (unsigned long long)j->bs, strerror(err));
	return -err;
}

/*
 * After one call: count it, then move @off on by @bs, back to 0 (and, when
 * not preallocated, truncate the file) at @end. 1 when it wrapped, 0 when
 * not, -errno when the truncate failed.
 */
static inline __attribute__((always_inline)) int fw_done_one(struct iop_worker *w,
							     const struct fw_job *j, off_t *off,
							     off_t bs, off_t end)
{
	iop_count(w, 1);
	iop_inject(w, 1);
	*off += bs;
	if (__builtin_expect(*off < end, 1))
		return 0;
	*off = 0;
	if (!j->prealloc && ftruncate(j->fd, 0))
		return fw_fail(w, j, "ftruncate", 0);
	return 1;
}

static int fw_run(struct iop_worker *w)
{
	const struct fw_job *j = w->run->priv;
	const off_t bs = (off_t)j->bs, end = (off_t)(j->size - j->size % j->bs);
	off_t off = 0;
	int ret;

	if (!j->lat) {
		while (!iop_stopping(w)) {
			if (__builtin_expect(fallocate(j->fd, j->mode, off, bs), 0))
				return fw_fail(w, j, "fallocate", (uint64_t)off);
			ret = fw_done_one(w, j, &off, bs, end);
			if (__builtin_expect(ret < 0, 0))
				return ret;
		}
		return 0;
	}
	/* one clock read per call: the end of one call is the start of the next */
	for (uint64_t t0 = iop_now_ns(), t1; !iop_stopping(w); t0 = t1) {
		if (__builtin_expect(fallocate(j->fd, j->mode, off, bs), 0))
			return fw_fail(w, j, "fallocate", (uint64_t)off);
		t1 = iop_now_ns();
		iop_hist_add(w->hist, t1 - t0);
		ret = fw_done_one(w, j, &off, bs, end);
		if (__builtin_expect(ret < 0, 0))
			return ret;
		if (ret)	/* the truncate is not the next call's time */
			t1 = iop_now_ns();
	}
	return 0;
}

static int fw_report(struct iop_run *r, const struct iop_rep *rep, json_t *rec, double *primary)
{
	int ret = iop_metric_add_whole(r, rec, "ops", rep->rate[0], (size_t)rep->nsamples,
				       rep->whole_rate[0], rep->quantum[0]);

	*primary = iop_median(rep->rate[0], (size_t)rep->nsamples);
	if (!ret)
		ret = iop_metric_add_latency(r, rec, rep);
	return ret;
}

/* LKP fio-basic's job (fallocate=posix layout, falloc engine), time based. */
static int fw_fio(const struct iop_run *r, struct iop_fio_job *f, int runtime_ms)
{
	const struct fw_job *j = r->priv;
	const char *ddir = j->mode == 0 ? "write" :
			   j->mode == FALLOC_FL_KEEP_SIZE ? "read" : "trim";

	if (!j->prealloc)	/* fio would lay the file out by writing it */
		return -EOPNOTSUPP;
	iop_fio_arg(f, "--name=falloc_write");
	iop_fio_arg(f, "--filename=%s", j->path);
	iop_fio_arg(f, "--size=%llu", (unsigned long long)j->size);
	iop_fio_arg(f, "--ioengine=falloc");
	iop_fio_arg(f, "--rw=%s", ddir);
	iop_fio_arg(f, "--bs=%llu", (unsigned long long)j->bs);
	iop_fio_arg(f, "--fallocate=posix");
	iop_fio_arg(f, "--invalidate=0");
	iop_fio_arg(f, "--thread=1");
	iop_fio_time_based(f, j->lat, runtime_ms, ddir, 0);
	return 0;
}

static struct iop_bench falloc_write = {
	.name = "falloc_write",
	.description = "Sequential fallocate() of bs-sized ranges over a file, fio ioengine=falloc "
		       "and LKP fio-basic style. This benchmark measures the filesystem's fallocate "
		       "path per call: ops/s and latency.",
	.params = fw_params,
	.metrics = fw_metrics,
	.latency_metrics = true,
	.validate = iop_validate_size_holds_bs,
	.needs_fs = fw_needs_fs,
	.requires = fw_requires,
	.setup = fw_setup,
	.warm = fw_warm,
	.run = fw_run,
	.report = fw_report,
	.teardown = fw_teardown,
	.fio = fw_fio,
};

IOP_BENCH(falloc_write)
