// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uring_randread: fio's t/io_uring read workload. Each worker thread owns a
 * ring, keeps `depth` reads of `bs` in flight over one file, prepares at most
 * `submit` SQEs per io_uring_enter() and, once the ring is full, waits for
 * `complete` completions per call (t/io_uring's -d/-s/-c loop). Fixed
 * buffers (READ_FIXED into one registered buffer), registered files,
 * registered ring fd, O_DIRECT or buffered and IOPOLL are switches, as
 * t/io_uring's -B/-F/-X/-O/-p.
 *
 * It measures the per-read CPU cost of the io_uring + filesystem (iomap or
 * ext4's mapping) + block read path: IOPS per interval, user and system CPU
 * time per read from the thread's own accounting, optionally the latency
 * from submission batch to completion reap (t/io_uring -t).
 *
 * It does NOT measure a disk: on the default zram scratch the "device" is a
 * memcpy plus decompression, and buffered reads are page-cache hits. It
 * does not exercise polled completions unless the device has poll queues
 * (zram, loop and virtio-blk here have none: poll=1 then stops with an
 * error naming the device, or runs interrupt-driven with poll_fallback=1).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "iopath.h"
#include "uring_worker.h"

#define UR_HUGE	(2u << 20)	/* a transparent huge page on x86-64 */

static const struct iop_param ur_params[] = {
	{ "size", IOP_P_SIZE, "1g", 1 << 20, 1ull << 40, NULL,
	  "file size (random offsets span it)" },
	{ "bs", IOP_P_SIZE, "4k", 512, 1 << 20, NULL, "block size (t/io_uring -b)" },
	{ "depth", IOP_P_U64, "128", 1, 4096, NULL, "queue depth per thread (-d)" },
	{ "submit", IOP_P_U64, "32", 1, 4096, NULL, "submit batch (-s)" },
	{ "complete", IOP_P_U64, "32", 1, 4096, NULL,
	  "completion batch once the ring is full (-c)" },
	{ "fixedbufs", IOP_P_BOOL, "1", 0, 1, NULL, "registered buffer, READ_FIXED (-B)" },
	{ "regfiles", IOP_P_BOOL, "1", 0, 1, NULL, "registered file (-F)" },
	{ "regring", IOP_P_BOOL, "1", 0, 1, NULL, "registered ring fd (-X)" },
	{ "direct", IOP_P_BOOL, "1", 0, 1, NULL, "O_DIRECT (-O1) or buffered (0)" },
	{ "random", IOP_P_BOOL, "1", 0, 1, NULL, "random (-R1) or sequential offsets" },
	{ "poll", IOP_P_BOOL, "0", 0, 1, NULL, "IORING_SETUP_IOPOLL (-p)" },
	{ "poll_fallback", IOP_P_BOOL, "0", 0, 1, NULL,
	  "with poll=1 on a device without poll queues: run interrupt-driven instead of failing" },
	{ "threads", IOP_P_U64, "1", 1, IOP_MAX_WORKERS, NULL,
	  "threads, one ring each, pinned in turn to cpus= (-n)" },
	{ "lat", IOP_P_BOOL, "0", 0, 1, NULL,
	  "latency percentiles, one clock read per batch (-t)" },
	{ "keep_file", IOP_P_BOOL, "0", 0, 1, NULL,
	  "keep the file on the scratch fs: the next run of this size reads the same blocks" },
	{ .name = NULL }
};

static const struct iop_metric ur_metrics[] = {
	{ "iops", "ops/s", IOP_HIGHER_IS_BETTER, true },
	{ "reaped_per_call", "ios", IOP_HIGHER_IS_BETTER, false },
	{ .name = NULL }
};

struct ur_job {
	char path[PATH_MAX + 32];
	char dev[PATH_MAX];
	uint64_t size, bs, nblocks;
	unsigned int depth, submit, complete;
	long extents;		/* FIEMAP extents of the file: -errno if unknown */
	char layout[1024];	/* where they are (iop_file_layout) */
	int prealloc;		/* 1: the fill's fallocate() was taken; -1: no fill */
	int es_reload;		/* iop_ext4_reload_extent_cache() */
	bool fixedbufs, regfiles, regring, direct, random, poll, lat;
	bool created;
};

struct ur_thread {
	struct iop_uring_worker u;
	int fd_idx;		/* 0 with registered files, else u.fd */
	uint64_t *stamp;	/* submission time per slot (lat=1) */
	unsigned int *free;	/* stack of free slots */
	unsigned int nfree;
	uint64_t rnd, next_blk;
	uint64_t calls, reaped;	/* io_uring_enter calls and completions */
	unsigned int ring_flags;
};

static bool ur_needs_fs(const struct iop_run *r)
{
	(void)r;
	return true;
}

static int ur_setup(struct iop_run *r, char *why, size_t len)
{
	struct ur_job *j = calloc(1, sizeof(*j));
	struct stat st;
	int fd, ret;

	if (!j)
		return -ENOMEM;
	j->size = iop_u64(r, "size");
	j->bs = iop_u64(r, "bs");
	j->depth = (unsigned int)iop_u64(r, "depth");
	j->submit = (unsigned int)iop_u64(r, "submit");
	j->complete = (unsigned int)iop_u64(r, "complete");
	j->fixedbufs = iop_u64(r, "fixedbufs");
	j->regfiles = iop_u64(r, "regfiles");
	j->regring = iop_u64(r, "regring");
	j->direct = iop_u64(r, "direct");
	j->random = iop_u64(r, "random");
	j->poll = iop_u64(r, "poll");
	j->lat = iop_u64(r, "lat");
	if (j->submit > j->depth)	/* as t/io_uring: clamp the batches to the depth */
		j->submit = j->depth;
	if (j->complete > j->depth)
		j->complete = j->depth;
	j->nblocks = j->size / j->bs;
	snprintf(j->path, sizeof(j->path), "%s/uring_randread.dat", r->dir);
	fd = open(j->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		ret = -errno;
		snprintf(why, len, "uring_randread: open %s: %s", j->path, strerror(errno));
		free(j);
		return ret;
	}
	/*
	 * Each file written anew lands in new memory (zram) or blocks.
	 * keep_file=1 lets runs that are compared side by side (iopath bench
	 * --calibrate --interleave) read the same one, so that they differ
	 * in what is compared and not also in where the file landed; the
	 * scratch filesystem goes at the end anyway.
	 */
	j->created = !iop_u64(r, "keep_file");
	j->prealloc = -1;
	if (fstat(fd, &st) || (uint64_t)st.st_size != j->size) {
		bool prealloc = false;

		ret = ftruncate(fd, 0) ? -errno : iop_fill_file(fd, j->size, &prealloc);
		j->prealloc = prealloc;
		if (ret) {
			snprintf(why, len, "uring_randread: filling %s: %s", j->path,
				 strerror(-ret));
			close(fd);
			unlink(j->path);
			free(j);
			return ret;
		}
	}
	j->extents = iop_file_layout(fd, j->layout, sizeof(j->layout));
	j->es_reload = iop_ext4_reload_extent_cache(fd);
	close(fd);
	iop_path_device(j->path, j->dev, sizeof(j->dev));
	r->priv = j;
	r->nworkers = (int)iop_u64(r, "threads");
	r->keeps_hist = j->lat;
	/* reads are counted as they are reaped: a completion batch at a time */
	r->count_unit = j->complete;
	r->extra = json_object();
	return 0;
}

static void ur_teardown(struct iop_run *r)
{
	struct ur_job *j = r->priv;

	if (j)
		iop_job_free(r, j->path, j->created);
}

/*
 * A ring like t/io_uring's: CQ sized to the depth, and the task-run flags
 * that suit one thread submitting and reaping, each dropped again if this
 * kernel rejects it.
 */
static int ur_ring_init(struct ur_thread *t, const struct ur_job *j, bool poll)
{
	static const unsigned int optional[] = {
		IORING_SETUP_DEFER_TASKRUN, IORING_SETUP_SINGLE_ISSUER, IORING_SETUP_COOP_TASKRUN,
	};
	struct io_uring_params p;
	unsigned int flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN |
			     IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	int ret;

	if (poll)
		flags |= IORING_SETUP_IOPOLL;
	for (unsigned int i = 0;; i++) {
		memset(&p, 0, sizeof(p));
		p.flags = flags;
		p.cq_entries = j->depth;
		ret = io_uring_queue_init_params(j->depth, &t->u.ring, &p);
		if (ret != -EINVAL || i == ARRAY_SIZE(optional))
			break;
		flags &= ~optional[i];
	}
	if (!ret) {
		t->u.ring_ok = true;
		t->ring_flags = flags;
	}
	return ret;
}

/*
 * One polled read, to learn whether the device completes polled I/O. Since
 * hexue's "return -EOPNOTSUPP instead of print a warning" (6.11) a queue
 * without poll queues fails REQ_POLLED bios; older kernels complete them
 * by interrupt, which polls for nothing. Bounded: never waits forever.
 */
static int ur_poll_probe(const struct ur_job *j, char *why, size_t len)
{
	struct ur_thread t = { 0 };
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	uint64_t deadline;
	void *buf;
	int fd, ret;

	fd = open(j->path, O_RDONLY | O_CLOEXEC | (j->direct ? O_DIRECT : 0));
	if (fd < 0)
		return -errno;
	if (posix_memalign(&buf, 4096, j->bs)) {
		close(fd);
		return -ENOMEM;
	}
	ret = ur_ring_init(&t, j, true);
	if (ret) {
		snprintf(why, len, "uring_randread: poll=1: IOPOLL ring: %s", strerror(-ret));
		goto out;
	}
	sqe = io_uring_get_sqe(&t.u.ring);
	io_uring_prep_read(sqe, fd, buf, (unsigned int)j->bs, 0);
	io_uring_submit(&t.u.ring);
	deadline = iop_now_ns() + 2000000000ull;
	for (;;) {
		ret = io_uring_peek_cqe(&t.u.ring, &cqe);
		if (!ret)
			break;
		if (iop_now_ns() > deadline) {
			ret = -ETIMEDOUT;
			snprintf(why, len, "uring_randread: poll=1: no completion from %s within 2 s",
				 j->dev[0] ? j->dev : j->path);
			goto out;
		}
		io_uring_enter(t.u.ring.ring_fd, 0, 0, IORING_ENTER_GETEVENTS, NULL);
	}
	ret = cqe->res;
	io_uring_cqe_seen(&t.u.ring, cqe);
	if (ret == -EOPNOTSUPP)
		snprintf(why, len,
			 "uring_randread: poll=1: %s%s does not support polled I/O (completion -EOPNOTSUPP: no poll queues%s)",
			 j->dev[0] ? j->dev : j->path, j->dev[0] ? "" : " (device unknown)",
			 j->direct ? "" : ", or buffered I/O");
	else if (ret < 0)
		snprintf(why, len, "uring_randread: poll=1: probe read: %s", strerror(-ret));
	else
		ret = 0;
out:
	if (t.u.ring_ok)
		io_uring_queue_exit(&t.u.ring);
	free(buf);
	close(fd);
	return ret;
}

static int ur_requires(struct iop_run *r, char *why, size_t len)
{
	struct io_uring ring;
	int ret = io_uring_queue_init(2, &ring, 0);

	(void)r;
	if (ret) {
		snprintf(why, len, "uring_randread: io_uring unavailable: %s", strerror(-ret));
		return ret == -ENOSYS || ret == -EPERM ? -EOPNOTSUPP : ret;
	}
	io_uring_queue_exit(&ring);
	return 0;
}

static int ur_setup_all(struct iop_run *r, char *why, size_t len)
{
	struct ur_job *j;
	long es;
	int ret = ur_setup(r, why, len), bad = 0;

	if (ret)
		return ret;
	j = r->priv;
	if (j->poll) {
		ret = ur_poll_probe(j, why, len);
		if (ret == -EOPNOTSUPP && iop_u64(r, "poll_fallback")) {
			fprintf(stderr, "iopath: bench: %s: running interrupt-driven, as poll_fallback=1 asks\n",
				why);
			bad |= json_object_set_new(r->extra, "poll_fallback", json_string(why));
			j->poll = false;
			ret = 0;
		}
		if (ret == -EOPNOTSUPP) {
			size_t l = strlen(why);

			snprintf(why + l, len - l, "; poll_fallback=1 runs interrupt-driven");
		}
		if (ret) {
			ur_teardown(r);
			/* an unsupported feature: the run is skipped, with the reason */
			return ret == -EOPNOTSUPP ? -EOPNOTSUPP : ret;
		}
	}
	bad |= json_object_set_new(r->extra, "file", json_string(j->path));
	bad |= json_object_set_new(r->extra, "device", json_string(j->dev));
	bad |= json_object_set_new(r->extra, "polled", json_boolean(j->poll));
	if (j->extents >= 0) {
		bad |= json_object_set_new(r->extra, "file_extents", json_integer(j->extents));
		bad |= json_object_set_new(r->extra, "file_layout", json_string(j->layout));
	}
	if (j->prealloc >= 0)
		bad |= json_object_set_new(r->extra, "file_preallocated",
					   json_boolean(j->prealloc));
	if (j->es_reload != -EOPNOTSUPP)
		bad |= json_object_set_new(r->extra, "ext4_es_reloaded",
					   j->es_reload ? json_string(strerror(-j->es_reload)) :
							  json_true());
	es = iop_ext4_es_objects(j->dev);
	if (es >= 0)
		bad |= json_object_set_new(r->extra, "ext4_es_objects", json_integer(es));
	if (bad) {
		/* the facts of the run, all of them or no run */
		ur_teardown(r);
		snprintf(why, len, "uring_randread: recording the run's facts: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

static int ur_worker_init(struct iop_worker *w, char *why, size_t len)
{
	const struct ur_job *j = w->run->priv;
	struct ur_thread *t;
	size_t nslots = 1, bytes;
	int ret;

	while (nslots < j->depth)
		nslots <<= 1;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	w->priv = t;
	t->u.fd = -1;
	t->rnd = 0x9e3779b97f4a7c15ull ^ ((uint64_t)(w->idx + 1) * 0xbf58476d1ce4e5b9ull);
	t->free = calloc(nslots, sizeof(*t->free));
	t->stamp = calloc(nslots, sizeof(*t->stamp));
	/*
	 * Memory is touched here, on the pinned thread, so it is node-local.
	 * The buffers sit in 2 MiB transparent huge pages where the kernel
	 * gives them: physically contiguous, so every run maps them to the
	 * same cache sets. In 4 KiB pages the CPU time per read moved with
	 * their placement: by 3.3% (sd) from one run to the next, against
	 * 1.3% between the repetitions of one run.
	 */
	bytes = (nslots * j->bs + UR_HUGE - 1) & ~(size_t)(UR_HUGE - 1);
	if (!t->free || !t->stamp || posix_memalign((void **)&t->u.buf, UR_HUGE, bytes))
		return -ENOMEM;
	madvise(t->u.buf, bytes, MADV_HUGEPAGE);
	memset(t->u.buf, 0, bytes);
	for (unsigned int i = 0; i < j->depth; i++)
		t->free[t->nfree++] = i;
	ret = iop_uring_worker_open(&t->u, "uring_randread", j->path,
				    O_RDONLY | O_CLOEXEC | O_NOATIME | (j->direct ? O_DIRECT : 0),
				    why, len);
	if (ret)
		return ret;
	ret = ur_ring_init(t, j, j->poll);
	if (ret) {
		snprintf(why, len, "uring_randread: io_uring_queue_init(%u): %s", j->depth,
			 strerror(-ret));
		return ret;
	}
	if (j->fixedbufs) {
		struct iovec iov = { .iov_base = t->u.buf, .iov_len = nslots * j->bs };

		ret = io_uring_register_buffers(&t->u.ring, &iov, 1);
		if (ret) {
			snprintf(why, len, "uring_randread: register buffers: %s", strerror(-ret));
			return ret;
		}
	}
	t->fd_idx = t->u.fd;
	if (j->regfiles) {
		ret = io_uring_register_files(&t->u.ring, &t->u.fd, 1);
		if (ret) {
			snprintf(why, len, "uring_randread: register files: %s", strerror(-ret));
			return ret;
		}
		t->fd_idx = 0;
	}
	if (j->regring) {
		ret = io_uring_register_ring_fd(&t->u.ring);
		if (ret != 1) {
			snprintf(why, len, "uring_randread: register ring fd: %s",
				 strerror(ret < 0 ? -ret : EINVAL));
			return ret < 0 ? ret : -EINVAL;
		}
	}
	if (w->idx == 0) {
		long kb = iop_anon_huge_kb(t->u.buf);

		if (json_object_set_new(w->run->extra, "ring_flags", json_integer(t->ring_flags)) ||
		    (kb >= 0 &&
		     json_object_set_new(w->run->extra, "buffer_thp_kb", json_integer(kb)))) {
			snprintf(why, len, "uring_randread: recording the ring: %s", strerror(ENOMEM));
			return -ENOMEM;
		}
	}
	return 0;
}

static void ur_worker_exit(struct iop_worker *w)
{
	struct ur_thread *t = w->priv;

	if (!t)
		return;
	iop_uring_worker_release(&t->u);
	free(t->stamp);
	free(t->free);
	free(t);
	w->priv = NULL;
}

static inline uint64_t ur_next_block(struct ur_thread *t, const struct ur_job *j)
{
	uint64_t x;

	if (!j->random) {
		x = t->next_blk++;
		if (t->next_blk == j->nblocks)
			t->next_blk = 0;
		return x;
	}
	/* xorshift64*: cheap, and the modulo bias is irrelevant here */
	x = t->rnd;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	t->rnd = x;
	return (x * 0x2545f4914f6cdd1dull) % j->nblocks;
}

static unsigned int ur_prep(struct ur_thread *t, const struct ur_job *j, unsigned int n)
{
	uint64_t now = j->lat ? iop_now_ns() : 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&t->u.ring);
		unsigned int slot;
		uint64_t off;

		if (!sqe)
			break;
		slot = t->free[--t->nfree];
		off = ur_next_block(t, j) * j->bs;
		if (j->fixedbufs)
			io_uring_prep_read_fixed(sqe, t->fd_idx, t->u.buf + (size_t)slot * j->bs,
						 (unsigned int)j->bs, off, 0);
		else
			io_uring_prep_read(sqe, t->fd_idx, t->u.buf + (size_t)slot * j->bs,
					   (unsigned int)j->bs, off);
		if (j->regfiles)
			sqe->flags |= IOSQE_FIXED_FILE;
		sqe->user_data = slot;
		t->stamp[slot] = now;
	}
	return i;
}

/* Reap what is there; -errno for a failed or short read. */
static int ur_reap(struct iop_worker *w, struct ur_thread *t, const struct ur_job *j,
		   unsigned int *inflight)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;
	uint64_t now = 0;
	int err = 0;

	if (j->lat)
		now = iop_now_ns();
	io_uring_for_each_cqe(&t->u.ring, head, cqe) {
		unsigned int slot = (unsigned int)cqe->user_data;

		if (__builtin_expect(cqe->res != (int)j->bs, 0) && !err) {
			const struct ur_job *jj = w->run->priv;

			if (cqe->res == -EOPNOTSUPP && j->poll)
				snprintf(w->why, sizeof(w->why),
					 "uring_randread: %.160s does not support polled I/O (completion -EOPNOTSUPP)",
					 jj->dev[0] ? jj->dev : jj->path);
			else if (cqe->res < 0)
				snprintf(w->why, sizeof(w->why),
					 "uring_randread: read of %.160s: %s", jj->path,
					 strerror(-cqe->res));
			else
				snprintf(w->why, sizeof(w->why), "uring_randread: short read of %.160s: %d of %u",
					 jj->path, cqe->res, (unsigned int)j->bs);
			err = cqe->res < 0 ? cqe->res : -EIO;
		}
		if (j->lat)
			iop_hist_add(w->hist, now - t->stamp[slot]);
		t->free[t->nfree++] = slot;
		n++;
	}
	io_uring_cq_advance(&t->u.ring, n);	/* always, also on error: no livelock */
	*inflight -= n;
	t->reaped += n;
	if (!err) {
		iop_count(w, n);
		iop_inject(w, n);
	}
	return err;
}

/* Wait for everything in flight, bounded, so the ring can go away. */
static void ur_drain(struct iop_worker *w, struct ur_thread *t, const struct ur_job *j,
		     unsigned int *inflight)
{
	uint64_t deadline = iop_now_ns() + 5000000000ull;

	while (*inflight && iop_now_ns() < deadline) {
		int ret = io_uring_submit_and_wait(&t->u.ring, 1);

		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
			break;
		ur_reap(w, t, j, inflight);
	}
}

static int ur_run(struct iop_worker *w)
{
	struct ur_thread *t = w->priv;
	const struct ur_job *j = w->run->priv;
	unsigned int inflight = 0, prepped;
	int ret = 0;

	t->calls = 0;
	t->reaped = 0;
	while (!iop_stopping(w)) {
		unsigned int to_wait;

		prepped = 0;
		if (inflight < j->depth) {
			unsigned int n = j->depth - inflight;

			prepped = ur_prep(t, j, n < j->submit ? n : j->submit);
			inflight += prepped;
		}
		/* t/io_uring: wait only once the ring is full */
		if (prepped && inflight + prepped <= j->depth)
			to_wait = 0;
		else
			to_wait = inflight + prepped < j->complete ? inflight + prepped :
								    j->complete;
		ret = io_uring_submit_and_wait(&t->u.ring, to_wait);
		t->calls++;
		if (__builtin_expect(ret < 0, 0)) {
			if (ret == -EINTR || ret == -EAGAIN || ret == -EBUSY)
				continue;
			snprintf(w->why, sizeof(w->why), "uring_randread: io_uring_enter: %s",
				 strerror(-ret));
			break;
		}
		ret = ur_reap(w, t, j, &inflight);
		if (__builtin_expect(ret, 0))
			break;
	}
	ur_drain(w, t, j, &inflight);
	return ret < 0 ? ret : 0;
}

static int ur_warm(struct iop_run *r, char *why, size_t len)
{
	const struct ur_job *j = r->priv;
	const size_t chunk = 1 << 20;
	ssize_t n = 1;
	void *buf;
	int fd;

	/*
	 * Buffered: the file must be in the page cache (DAMON reclaim here
	 * evicts it after about a minute idle). O_DIRECT on zram: nothing to
	 * warm; on loop, warm the backing file's cache by reading through.
	 */
	if (j->direct && !strncmp(j->dev, "/dev/zram", 9))
		return 0;
	fd = open(j->path, O_RDONLY | O_CLOEXEC | (j->direct ? O_DIRECT : 0));
	if (fd < 0)
		goto fail;
	if (posix_memalign(&buf, 4096, chunk)) {
		close(fd);
		return -ENOMEM;
	}
	for (off_t off = 0; n > 0; off += n)
		n = pread(fd, buf, chunk, off);
	free(buf);
	close(fd);
	if (n == 0)
		return 0;
fail:
	snprintf(why, len, "uring_randread: warming %s: %s", j->path, strerror(errno));
	return -errno;
}

static int ur_report(struct iop_run *r, const struct iop_rep *rep, json_t *rec, double *primary)
{
	uint64_t calls = 0, reaped = 0;
	double per_call;
	int ret;

	ret = iop_metric_add_whole(r, rec, "iops", rep->rate[0], (size_t)rep->nsamples,
				   rep->whole_rate[0], rep->quantum[0]);
	if (ret)
		return ret;
	*primary = iop_median(rep->rate[0], (size_t)rep->nsamples);
	for (int i = 0; i < r->nworkers; i++) {
		struct ur_thread *t = r->w[i]->priv;

		calls += t->calls;
		reaped += t->reaped;
	}
	per_call = calls ? (double)reaped / (double)calls : 0;
	ret = iop_metric_add(r, rec, "reaped_per_call", &per_call, 1);
	if (!ret)
		ret = iop_metric_add_latency(r, rec, rep);
	return ret;
}

/* fio's io_uring engine with t/io_uring's options, as close as fio allows. */
static int ur_fio(const struct iop_run *r, struct iop_fio_job *f, int runtime_ms)
{
	const struct ur_job *j = r->priv;

	iop_fio_arg(f, "--name=uring_randread");
	iop_fio_arg(f, "--filename=%s", j->path);
	iop_fio_arg(f, "--size=%llu", (unsigned long long)j->size);
	iop_fio_arg(f, "--ioengine=io_uring");
	iop_fio_arg(f, "--rw=%s", j->random ? "randread" : "read");
	iop_fio_arg(f, "--bs=%llu", (unsigned long long)j->bs);
	iop_fio_arg(f, "--iodepth=%u", j->depth);
	iop_fio_arg(f, "--iodepth_batch_submit=%u", j->submit);
	iop_fio_arg(f, "--iodepth_batch_complete_min=%u", j->complete);
	iop_fio_arg(f, "--iodepth_batch_complete_max=%u", j->complete);
	iop_fio_arg(f, "--fixedbufs=%d", j->fixedbufs);
	iop_fio_arg(f, "--registerfiles=%d", j->regfiles);
	iop_fio_arg(f, "--hipri=%d", j->poll);
	iop_fio_arg(f, "--direct=%d", j->direct);
	iop_fio_arg(f, "--norandommap=1");
	iop_fio_arg(f, "--randrepeat=0");
	iop_fio_arg(f, "--invalidate=0");
	iop_fio_arg(f, "--thread=1");
	iop_fio_arg(f, "--numjobs=%d", r->nworkers);
	iop_fio_arg(f, "--group_reporting=1");
	/* no per-I/O clock reads without lat, like t/io_uring without -t */
	iop_fio_time_based(f, j->lat, runtime_ms, "read", 0);
	return 0;
}

static struct iop_bench uring_randread = {
	.name = "uring_randread",
	.description = "Random reads through io_uring, t/io_uring style (depth, submit and complete "
		       "batches, fixed buffers, registered file and ring). This benchmark measures "
		       "the IOPS and CPU time per read of the io_uring + filesystem + block read path.",
	.params = ur_params,
	.metrics = ur_metrics,
	.latency_metrics = true,
	.added_later = "keep_file",
	.validate = iop_validate_size_holds_bs,
	.needs_fs = ur_needs_fs,
	.requires = ur_requires,
	.setup = ur_setup_all,
	.worker_init = ur_worker_init,
	.warm = ur_warm,
	.run = ur_run,
	.report = ur_report,
	.worker_exit = ur_worker_exit,
	.teardown = ur_teardown,
	.fio = ur_fio,
};

IOP_BENCH(uring_randread)
