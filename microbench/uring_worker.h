/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What an io_uring benchmark's worker thread holds on its own: the file
 * it reads, its buffer and its ring, opened on the pinned worker and
 * released in one place (read_vs_readv, uring_randread).
 */
#ifndef IOPATH_URING_WORKER_H
#define IOPATH_URING_WORKER_H

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct iop_uring_worker {
	int fd;
	char *buf;
	struct io_uring ring;
	bool ring_ok;		/* ring set up: io_uring_queue_exit() it */
};

/* Open @path with @flags for the worker; -errno and why (after "@bench: ") if not. */
static inline int iop_uring_worker_open(struct iop_uring_worker *u, const char *bench,
					const char *path, int flags, char *why, size_t len)
{
	int ret;

	u->fd = open(path, flags);
	if (u->fd >= 0)
		return 0;
	ret = -errno;
	snprintf(why, len, "%s: open %s: %s", bench, path, strerror(errno));
	return ret;
}

/* Release what the worker set up of @u, in the reverse order. */
static inline void iop_uring_worker_release(struct iop_uring_worker *u)
{
	if (u->ring_ok)
		io_uring_queue_exit(&u->ring);
	if (u->fd >= 0)
		close(u->fd);
	free(u->buf);
}

#endif
