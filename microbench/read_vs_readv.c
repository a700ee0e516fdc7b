// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * read_vs_readv: the cost of one small read through each read entry point,
 * the measurement behind 3b2deb0e46da ("iov_iter: import single vector
 * iovecs as ITER_UBUF"): "reading 4k from /dev/zero in a loop with readv"
 * (readv took 2.11x as long as read in 2023; about 1.40x on 6.18 here).
 *
 * Phases, run in turn one interval each so that load from elsewhere hits all
 * of them alike: read(2), readv(2) with one segment, preadv2(2) with one
 * segment at the file position, and one io_uring READ at a time (submit and
 * wait for it). With bare=1 two more phases run read(2) and readv(2) in a
 * plain counted loop with no stop flag or counter, to show what the
 * harness's own loop costs (harness_overhead_pct). calls=read_readv runs
 * the first two phases only; calls=readv runs readv(2) alone, without
 * phases, for comparing two kernels on readv_ns in the whole run time.
 *
 * Source /dev/zero: read() takes the plain ->read (read_zero), the vectored
 * calls ->read_iter (read_iter_zero) through import_iovec/ITER_UBUF, so the
 * ratio isolates the generic iter path. Source file: a small page-cached
 * file on the scratch filesystem (filemap_read for all calls), re-read from
 * the start at EOF.
 *
 * It does NOT measure I/O, memory bandwidth at scale (the buffer stays in
 * cache) or io_uring's batched throughput (one request per system call here;
 * see uring_randread for that).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bench.h"
#include "iopath.h"
#include "uring_worker.h"

static const struct iop_param rv_params[] = {
	{ "source", IOP_P_ENUM, "zero", 0, 0, "zero|file",
	  "/dev/zero, or a page-cached file on the scratch fs" },
	{ "bs", IOP_P_SIZE, "4k", 1, 1 << 20, NULL, "bytes per call" },
	{ "size", IOP_P_SIZE, "1m", 4096, 1ull << 32, NULL, "file size for source=file" },
	{ "bare", IOP_P_BOOL, "1", 0, 1, NULL,
	  "also time bare loops of read/readv (harness overhead)" },
	{ "clock", IOP_P_ENUM, "cpu", 0, 0, "cpu|wall",
	  "ns per call from the thread's CPU time (robust to preemption) or wall time" },
	{ "calls", IOP_P_ENUM, "all", 0, 0, "all|read_readv|readv",
	  "every entry point; read and readv (the ITER_UBUF pair); or readv alone (readv_ns)" },
	{ .name = NULL }
};

static const struct iop_metric rv_metrics[] = {
	{ "readv_read_ratio", "x", IOP_LOWER_IS_BETTER, false },
	{ "read_ns", "ns", IOP_LOWER_IS_BETTER, false },
	{ "readv_ns", "ns", IOP_LOWER_IS_BETTER, false },
	{ "preadv2_ns", "ns", IOP_LOWER_IS_BETTER, false },
	{ "uring_ns", "ns", IOP_LOWER_IS_BETTER, false },
	{ "read_ns_floor", "ns", IOP_LOWER_IS_BETTER, false },
	{ "readv_ns_floor", "ns", IOP_LOWER_IS_BETTER, false },
	{ "preadv2_ns_floor", "ns", IOP_LOWER_IS_BETTER, false },
	{ "uring_ns_floor", "ns", IOP_LOWER_IS_BETTER, false },
	{ "preadv2_read_ratio", "x", IOP_LOWER_IS_BETTER, false },
	{ "uring_read_ratio", "x", IOP_LOWER_IS_BETTER, false },
	{ "bare_read_ns", "ns", IOP_LOWER_IS_BETTER, false },
	{ "bare_readv_ns", "ns", IOP_LOWER_IS_BETTER, false },
	{ "harness_overhead_pct", "%", IOP_LOWER_IS_BETTER, false },
	{ .name = NULL }
};

enum { PH_READ, PH_READV, PH_PREADV2, PH_URING, PH_BARE_READ, PH_BARE_READV, PH_MAX };
static const char *const rv_phase_names[PH_MAX] = {
	"read", "readv", "preadv2", "io_uring", "bare_read", "bare_readv",
};

static const char *const rv_ns_names[PH_MAX] = {
	"read_ns", "readv_ns", "preadv2_ns", "uring_ns", "bare_read_ns", "bare_readv_ns",
};

static const char *const rv_floor_names[PH_BARE_READ] = {
	"read_ns_floor", "readv_ns_floor", "preadv2_ns_floor", "uring_ns_floor",
};

/* The call each phase makes (op[phase]) and how many phases, by calls= and bare=. */
static const int *rv_ops(const struct iop_run *r, int *nphases)
{
	static const int all[] = { PH_READ, PH_READV, PH_PREADV2, PH_URING, PH_BARE_READ,
				   PH_BARE_READV };
	static const int readv_only[] = { PH_READV };

	if (iop_is(r, "calls", "readv")) {
		*nphases = 1;
		return readv_only;
	}
	*nphases = iop_is(r, "calls", "read_readv") ? PH_PREADV2 :
		   iop_u64(r, "bare") ? PH_MAX : PH_BARE_READ;
	return all;
}

/* A ratio needs both of its phases; the common CPU metrics, a single phase. */
static bool rv_reports(const struct iop_run *r, const char *name)
{
	int n;
	const int *op = rv_ops(r, &n);

	if (!strcmp(name, "readv_read_ratio"))
		return n > PH_READV;
	if (!strcmp(name, "preadv2_read_ratio") || !strcmp(name, "uring_read_ratio"))
		return n > PH_URING;
	if (!strcmp(name, "harness_overhead_pct"))
		return n == PH_MAX;
	for (int p = 0; p < n; p++)
		if (!strcmp(name, rv_ns_names[op[p]]) ||
		    (op[p] < PH_BARE_READ && !strcmp(name, rv_floor_names[op[p]])))
			return true;
	return n == 1 && !strncmp(name, "cpu_", 4);
}

struct rv_job {
	char path[PATH_MAX + 32];
	const int *op;		/* op[phase]: what that phase calls */
	bool is_file, created;
	size_t bs;
	uint64_t size;
};

struct rv_thread {
	struct iop_uring_worker u;
	uint64_t bare_iters[PH_MAX];	/* calls per bare interval, from the timed phase */
};

static bool rv_needs_fs(const struct iop_run *r)
{
	return iop_is(r, "source", "file");
}

static int rv_validate(const struct iop_run *r, char *why, size_t len)
{
	if (!iop_is(r, "calls", "all") && iop_u64(r, "bare")) {
		snprintf(why, len, "calls=%s runs no bare loops: give bare=0", iop_str(r, "calls"));
		return -EINVAL;
	}
	/* a short read is how EOF shows up: every call must be whole */
	if (iop_is(r, "source", "file") && iop_u64(r, "size") % iop_u64(r, "bs")) {
		snprintf(why, len, "size=%s is not a multiple of bs=%s", iop_str(r, "size"),
			 iop_str(r, "bs"));
		return -EINVAL;
	}
	return 0;
}

static int rv_setup(struct iop_run *r, char *why, size_t len)
{
	struct rv_job *j = calloc(1, sizeof(*j));
	bool prealloc = false;
	int fd, ret;

	if (!j)
		return -ENOMEM;
	j->bs = iop_u64(r, "bs");
	j->size = iop_u64(r, "size");
	j->is_file = iop_is(r, "source", "file");
	if (j->is_file) {
		snprintf(j->path, sizeof(j->path), "%s/read_vs_readv.dat", r->dir);
		fd = open(j->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0) {
			ret = -errno;
			snprintf(why, len, "read_vs_readv: create %s: %s", j->path,
				 strerror(errno));
			free(j);
			return ret;
		}
		j->created = true;
		ret = iop_fill_file(fd, j->size, &prealloc);
		close(fd);
		if (ret) {
			snprintf(why, len, "read_vs_readv: fill %s: %s", j->path, strerror(-ret));
			unlink(j->path);
			free(j);
			return ret;
		}
	} else {
		snprintf(j->path, sizeof(j->path), "/dev/zero");
	}
	r->priv = j;
	j->op = rv_ops(r, &r->nphases);
	for (int p = 0; p < r->nphases; p++)
		r->phase_names[p] = rv_phase_names[j->op[p]];
	r->extra = json_pack("{s:s}", "file", j->path);
	if (!r->extra ||
	    (j->is_file &&
	     json_object_set_new(r->extra, "file_preallocated", json_boolean(prealloc)))) {
		snprintf(why, len, "read_vs_readv: recording the run's facts: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

static void rv_teardown(struct iop_run *r)
{
	struct rv_job *j = r->priv;

	if (j)
		iop_job_free(r, j->path, j->created);
}

static int rv_worker_init(struct iop_worker *w, char *why, size_t len)
{
	const struct rv_job *j = w->run->priv;
	struct rv_thread *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return -ENOMEM;
	w->priv = t;
	ret = iop_uring_worker_open(&t->u, "read_vs_readv", j->path,
				    O_RDONLY | O_CLOEXEC, why, len);
	if (ret)
		return ret;
	if (posix_memalign((void **)&t->u.buf, 4096, j->bs))
		return -ENOMEM;
	memset(t->u.buf, 0, j->bs);
	ret = io_uring_queue_init(4, &t->u.ring, 0);
	if (ret) {
		snprintf(why, len, "read_vs_readv: io_uring_queue_init: %s", strerror(-ret));
		return ret;
	}
	t->u.ring_ok = true;
	for (int p = 0; p < PH_MAX; p++)
		t->bare_iters[p] = 10000;
	return 0;
}

static void rv_worker_exit(struct iop_worker *w)
{
	struct rv_thread *t = w->priv;

	if (!t)
		return;
	iop_uring_worker_release(&t->u);
	free(t);
	w->priv = NULL;
}

/*
 * A short read is EOF of the file (rewind, not counted) or, from
 * /dev/zero, an error. Kept out of line: the loops stay small.
 */
static __attribute__((noinline)) int rv_short(struct iop_worker *w, struct rv_thread *t,
					      const struct rv_job *j, ssize_t n, const char *call)
{
	if (n >= 0 && j->is_file) {
		if (lseek(t->u.fd, 0, SEEK_SET) == 0)
			return 0;
		n = -1;
	}
	snprintf(w->why, sizeof(w->why), "read_vs_readv: %s(%.160s): %s", call, j->path,
		 n < 0 ? strerror(errno) : "short read");
	return n < 0 ? -errno : -EIO;
}

static int rv_uring_one(struct rv_thread *t, const struct rv_job *j)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&t->u.ring);
	struct io_uring_cqe *cqe;
	int ret;

	/* offset -1: the file position, as read(2) */
	io_uring_prep_read(sqe, t->u.fd, t->u.buf, (unsigned int)j->bs, (uint64_t)-1);
	ret = io_uring_submit_and_wait(&t->u.ring, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_peek_cqe(&t->u.ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(&t->u.ring, cqe);
	return ret;
}

static int rv_run(struct iop_worker *w)
{
	struct rv_thread *t = w->priv;
	const struct rv_job *j = w->run->priv;
	const ssize_t bs = (ssize_t)j->bs;
	struct iovec iov = { .iov_base = t->u.buf, .iov_len = j->bs };
	uint64_t start = w->ops;
	ssize_t n;
	int ret;

	switch (j->op[w->phase]) {
	case PH_READ:
		while (!iop_stopping(w)) {
			n = read(t->u.fd, t->u.buf, j->bs);
			if (__builtin_expect(n != bs, 0)) {
				ret = rv_short(w, t, j, n, "read");
				if (ret)
					return ret;
			}
			iop_count(w, 1);
			iop_inject(w, 1);
		}
		t->bare_iters[PH_BARE_READ] = w->ops - start;
		return 0;
	case PH_READV:
		while (!iop_stopping(w)) {
			n = readv(t->u.fd, &iov, 1);
			if (__builtin_expect(n != bs, 0)) {
				ret = rv_short(w, t, j, n, "readv");
				if (ret)
					return ret;
			}
			iop_count(w, 1);
			iop_inject(w, 1);
		}
		t->bare_iters[PH_BARE_READV] = w->ops - start;
		return 0;
	case PH_PREADV2:
		while (!iop_stopping(w)) {
			n = preadv2(t->u.fd, &iov, 1, -1, 0);
			if (__builtin_expect(n != bs, 0)) {
				ret = rv_short(w, t, j, n, "preadv2");
				if (ret)
					return ret;
			}
			iop_count(w, 1);
			iop_inject(w, 1);
		}
		return 0;
	case PH_URING:
		while (!iop_stopping(w)) {
			n = rv_uring_one(t, j);
			if (__builtin_expect(n != bs, 0)) {
				if (n < 0)
					errno = (int)-n;
				ret = rv_short(w, t, j, n < 0 ? -1 : n, "io_uring read");
				if (ret)
					return ret;
			}
			iop_count(w, 1);
			iop_inject(w, 1);
		}
		return 0;
	case PH_BARE_READ: {
		/* as many calls as the timed phase made in its interval */
		uint64_t iters = t->bare_iters[PH_BARE_READ];

		for (uint64_t i = 0; i < iters; i++) {
			n = read(t->u.fd, t->u.buf, j->bs);
			if (__builtin_expect(n != bs, 0)) {
				ret = rv_short(w, t, j, n, "read");
				if (ret)
					return ret;
			}
			iop_inject(w, 1);
		}
		w->ops += iters;
		return 0;
	}
	case PH_BARE_READV: {
		uint64_t iters = t->bare_iters[PH_BARE_READV];

		for (uint64_t i = 0; i < iters; i++) {
			n = readv(t->u.fd, &iov, 1);
			if (__builtin_expect(n != bs, 0)) {
				ret = rv_short(w, t, j, n, "readv");
				if (ret)
					return ret;
			}
			iop_inject(w, 1);
		}
		w->ops += iters;
		return 0;
	}
	}
	return -EINVAL;
}

/* A page-cached file stays cached only if it was read just now (DAMON). */
static int rv_warm(struct iop_run *r, char *why, size_t len)
{
	const struct rv_job *j = r->priv;
	char buf[65536];
	ssize_t n;
	int fd;

	if (!j->is_file)
		return 0;
	fd = open(j->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	if (n == 0)
		return 0;
fail:
	snprintf(why, len, "read_vs_readv: warming %s: %s", j->path, strerror(errno));
	return -errno;
}

static void ratio(const double *a, const double *b, double *out, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = a[i] / b[i];
}

static int rv_report(struct iop_run *r, const struct iop_rep *rep, json_t *rec, double *primary)
{
	const struct rv_job *j = r->priv;
	bool cpu = iop_is(r, "clock", "cpu");
	double *const *ns = cpu ? rep->cpu_ns_per_op : rep->ns_per_op;
	const double *whole = cpu ? rep->whole_cpu_ns_per_op : rep->whole_ns_per_op;
	size_t n = (size_t)rep->nsamples;
	double *tmp = calloc(n * 2, sizeof(double));
	int ret = 0;

	if (!tmp)
		return -ENOMEM;
	if (rv_reports(r, "readv_read_ratio")) {
		/* ratios pair samples taken back to back, so slow drifts cancel */
		ratio(ns[PH_READV], ns[PH_READ], tmp, rep->nsamples);
		ret |= iop_metric_add(r, rec, "readv_read_ratio", tmp, n);
		*primary = iop_median(tmp, n);
	} else {
		/* calls=readv: no read(2) to divide by */
		*primary = iop_median(ns[0], n);
	}
	for (int p = 0; p < r->nphases; p++)
		ret |= iop_metric_add_whole(r, rec, rv_ns_names[j->op[p]], ns[p], n, whole[p],
					    rep->quantum[p]);
	for (int p = 0; p < r->nphases && j->op[p] < PH_BARE_READ; p++)
		ret |= iop_metric_add_floor(r, rec, rv_floor_names[j->op[p]], ns[p], n);
	if (rv_reports(r, "preadv2_read_ratio")) {
		ratio(ns[PH_PREADV2], ns[PH_READ], tmp, rep->nsamples);
		ret |= iop_metric_add(r, rec, "preadv2_read_ratio", tmp, n);
		ratio(ns[PH_URING], ns[PH_READ], tmp, rep->nsamples);
		ret |= iop_metric_add(r, rec, "uring_read_ratio", tmp, n);
	}
	if (rv_reports(r, "harness_overhead_pct")) {
		/* (timed - bare) / bare, for read and readv: 2n samples */
		for (size_t i = 0; i < n; i++) {
			tmp[i] = (ns[PH_READ][i] / ns[PH_BARE_READ][i] - 1) * 100;
			tmp[n + i] = (ns[PH_READV][i] / ns[PH_BARE_READV][i] - 1) * 100;
		}
		ret |= iop_metric_add(r, rec, "harness_overhead_pct", tmp, 2 * n);
	}
	free(tmp);
	return ret ? -EINVAL : 0;
}

/*
 * fio's sync engine issues read(2), one call per I/O: the read phase. With
 * calls=readv, its vsync engine: readv(2) of one segment at depth 1.
 */
static int rv_fio(const struct iop_run *r, struct iop_fio_job *f, int runtime_ms)
{
	const struct rv_job *j = r->priv;
	bool readv_only = j->op[0] == PH_READV;

	iop_fio_arg(f, "--name=read_vs_readv");
	iop_fio_arg(f, "--filename=%s", j->path);
	iop_fio_arg(f, "--size=%llu", j->is_file ? (unsigned long long)j->size : 1ull << 30);
	iop_fio_arg(f, "--ioengine=%s", readv_only ? "vsync" : "sync");
	iop_fio_arg(f, "--rw=read");
	iop_fio_arg(f, "--bs=%zu", j->bs);
	iop_fio_arg(f, "--invalidate=0");
	iop_fio_arg(f, "--thread=1");
	iop_fio_time_based(f, false, runtime_ms, "read", 0);
	return 0;
}

static struct iop_bench read_vs_readv = {
	.name = "read_vs_readv",
	.description = "Small reads from /dev/zero or a page-cached file through read, one-segment "
		       "readv, preadv2 and io_uring, in alternation. This benchmark measures the "
		       "cost per call of each entry point and their ratios (the ITER_UBUF measurement).",
	.params = rv_params,
	.metrics = rv_metrics,
	.common_defaults = "interval_ms=200 runtime=2",
	.added_later = "calls",
	.validate = rv_validate,
	.reports = rv_reports,
	.needs_fs = rv_needs_fs,
	.setup = rv_setup,
	.worker_init = rv_worker_init,
	.warm = rv_warm,
	.run = rv_run,
	.report = rv_report,
	.worker_exit = rv_worker_exit,
	.teardown = rv_teardown,
	.fio = rv_fio,
};

IOP_BENCH(read_vs_readv)
