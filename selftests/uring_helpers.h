/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The io_uring steps the selftests share, one copy, the way liburing's
 * test/helpers.h serves liburing's tests: libc and liburing only, so a
 * test that includes it still builds with the kernel's lib.mk. Include it
 * after <liburing.h> (under #ifdef HAVE_LIBURING in a test that builds
 * without liburing).
 */
#ifndef IOPATH_URING_HELPERS_H
#define IOPATH_URING_HELPERS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <liburing.h>

/*
 * A ring of @entries with @buf registered as fixed buffer 0: 0, or -errno
 * with nothing left set up.
 */
static inline int t_ring_with_buffer(struct io_uring *ring, unsigned int entries, void *buf,
				     size_t len)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	int ret = io_uring_queue_init(entries, ring, 0);

	if (ret)
		return ret;
	ret = io_uring_register_buffers(ring, &iov, 1);
	if (ret)
		io_uring_queue_exit(ring);
	return ret;
}

/* Submit what the caller queued and wait for one completion: its result. */
static inline int t_submit_and_wait_one(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	int ret;

	ret = io_uring_submit_and_wait(ring, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

/*
 * One fixed-buffer read or write (buffer index 0) of fd, which with
 * IOSQE_FIXED_FILE in sqe_flags is a registered file's index; the result
 * or -errno.
 */
static inline int t_rw_fixed(struct io_uring *ring, int fd, unsigned int sqe_flags, bool write,
			     void *addr, size_t len, uint64_t off)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		return -EBUSY;
	if (write)
		io_uring_prep_write_fixed(sqe, fd, addr, (unsigned int)len, off, 0);
	else
		io_uring_prep_read_fixed(sqe, fd, addr, (unsigned int)len, off, 0);
	sqe->flags |= sqe_flags;
	return t_submit_and_wait_one(ring);
}

#endif /* IOPATH_URING_HELPERS_H */
