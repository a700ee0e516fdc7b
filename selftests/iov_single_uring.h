/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The io_uring side of iov_single_test.c: one READ or READV submitted and
 * reaped through liburing, and the result of any of the five calls. The
 * only code of the test that needs liburing: built without it
 * (HAVE_LIBURING unset), ring_open() fails with -EOPNOTSUPP and the test
 * skips its io_uring cases.
 */
#ifndef IOV_SINGLE_URING_H
#define IOV_SINGLE_URING_H

#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <linux/io_uring.h>
#include <linux/time_types.h>
#include <linux/types.h>
#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

/* What one call returned, and its errno when it returned -1. */
struct result {
	ssize_t ret;
	int err;
};

#ifdef HAVE_LIBURING
static int ring_open(struct io_uring **ring)
{
	int ret;

	*ring = calloc(1, sizeof(**ring));
	if (!*ring)
		return -ENOMEM;
	ret = io_uring_queue_init(4, *ring, 0);
	if (ret) {
		free(*ring);
		*ring = NULL;
	}
	return ret;
}

static void ring_close(struct io_uring *ring)
{
	if (!ring)
		return;
	io_uring_queue_exit(ring);
	free(ring);
}

/* Wait up to @ts for one completion and put it in @r (-ETIME: none came). */
static int uring_reap(struct io_uring *ring, struct __kernel_timespec *ts, struct result *r)
{
	struct io_uring_cqe *cqe;
	int ret = io_uring_wait_cqe_timeout(ring, &cqe, ts);

	if (ret)
		return ret;
	r->ret = cqe->res < 0 ? -1 : cqe->res;
	r->err = cqe->res < 0 ? -cqe->res : 0;
	io_uring_cqe_seen(ring, cqe);
	return 0;
}

/* Submit the one prepared request, then uring_reap(). */
static int uring_submit_reap(struct io_uring *ring, struct __kernel_timespec *ts, struct result *r)
{
	int ret = io_uring_submit(ring);

	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	return uring_reap(ring, ts, r);
}

static int uring_rw(struct io_uring *ring, int op, int fd, const void *addr, unsigned int len,
		    __u64 off, struct result *r)
{
	struct __kernel_timespec ts = { .tv_sec = 5 };
	struct io_uring_sqe *sqe;

	sqe = io_uring_get_sqe(ring);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_rw(op, sqe, fd, addr, len, off);
	return uring_submit_reap(ring, &ts, r);
}

/*
 * Submit one READ, READV, WRITE or WRITEV of @len bytes at the file
 * position (a pipe: an empty one to read, a full one to write); 1: still
 * pending after 200 ms.
 */
static int uring_pending(struct io_uring *ring, int op, int fd, char *buf, struct iovec *iov,
			 unsigned int len, struct result *r)
{
	struct __kernel_timespec ts = { .tv_nsec = 200 * 1000 * 1000 };
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	int ret;

	if (!sqe)
		return -EBUSY;
	iov->iov_base = buf;
	iov->iov_len = len;
	if (op == IORING_OP_READV || op == IORING_OP_WRITEV)
		io_uring_prep_rw(op, sqe, fd, iov, 1, (__u64)-1);
	else
		io_uring_prep_rw(op, sqe, fd, buf, len, (__u64)-1);
	ret = uring_submit_reap(ring, &ts, r);
	return ret == -ETIME ? 1 : ret;
}

static int uring_complete(struct io_uring *ring, struct result *r)
{
	struct __kernel_timespec ts = { .tv_sec = 5 };

	return uring_reap(ring, &ts, r);
}

#else
struct io_uring;	/* never defined: only pointers, all NULL */

static int ring_open(struct io_uring **ring)
{
	*ring = NULL;
	return -EOPNOTSUPP;
}

static void ring_close(struct io_uring *ring)
{
	(void)ring;
}

static int uring_rw(struct io_uring *ring, int op, int fd, const void *addr, unsigned int len,
		    __u64 off, struct result *r)
{
	(void)ring;
	(void)op;
	(void)fd;
	(void)addr;
	(void)len;
	(void)off;
	(void)r;
	return -EOPNOTSUPP;
}

static int uring_pending(struct io_uring *ring, int op, int fd, char *buf, struct iovec *iov,
			 unsigned int len, struct result *r)
{
	(void)ring;
	(void)op;
	(void)fd;
	(void)buf;
	(void)iov;
	(void)len;
	(void)r;
	return -EOPNOTSUPP;
}

static int uring_complete(struct io_uring *ring, struct result *r)
{
	(void)ring;
	(void)r;
	return -EOPNOTSUPP;
}
#endif

#endif /* IOV_SINGLE_URING_H */
