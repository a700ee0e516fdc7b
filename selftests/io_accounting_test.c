// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * XFS counts the calls and the bytes of its read and write paths, per
 * filesystem (/sys/fs/xfs/<device>/stats/stats: the "rw" line, write and
 * read calls; the "xpc" line, bytes written back, written and read; what
 * xfs_stats and PCP report): every call once, and every byte a read or a
 * write returns, by every method, once.
 *
 * The reads and writes here are one byte, one block and a block plus one
 * (read, pread, readv of two segments, preadv2, O_DIRECT pread, splice
 * and sendfile into a pipe; write, pwrite, writev, O_DIRECT pwrite, splice
 * from a pipe), on a filesystem nothing else uses; the counters must move
 * by one call and exactly the bytes each returned, in its direction only.
 *
 * The bug it catches: a path that counts only some of what it moved, or
 * counts it twice, such as a splice read of one byte left uncounted
 * (120-xfs-splice-read-of-one-byte-uncounted, generated sample 8's
 * 032-off-by-one-xfs_file_splice_read).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"

#define FILE_LEN	IOP_K(64)

FIXTURE(io_accounting) {
	struct iop_test_fs fs;
	int fd, dfd;
	int pipe[2];
	uint8_t *buf;
};

FIXTURE_VARIANT(io_accounting) {
	IOP_FS_VARIANT_FIELDS;
};

FIXTURE_VARIANT_ADD(io_accounting, xfs) { IOP_FS_XFS };

FIXTURE_SETUP(io_accounting)
{
	self->fd = -1;
	self->dfd = -1;
	self->pipe[0] = -1;
	self->pipe[1] = -1;
	self->buf = iop_alloc_aligned(2 * FILE_LEN);
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
	if (!self->fs.scratch)
		return;
	if (!self->buf)
		snprintf(self->fs.error, sizeof(self->fs.error), "out of memory");
}

FIXTURE_TEARDOWN(io_accounting)
{
	IOP_CLOSE_FDS(self->fd, self->dfd, self->pipe[0], self->pipe[1]);
	free(self->buf);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/* What XFS counts per filesystem: calls ("rw") and bytes ("xpc"). */
struct xfs_counts {
	uint64_t calls[2];	/* by enum dir */
	uint64_t bytes[2];
};

enum dir { READS, WRITES };

/* The counters of the filesystem on dev. 0 or -errno. */
static int xfs_counts(const char *dev, struct xfs_counts *c, char *why, size_t wlen)
{
	char path[96], line[256];
	int found = 0, err;
	uint64_t xstrat;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/fs/xfs/%.32s/stats/stats", iop_dev_name(dev));
	f = fopen(path, "re");
	if (!f) {
		err = errno;
		snprintf(why, wlen, "%.96s: %s", path, strerror(err));
		return -err;
	}
	while (found != 3 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "rw %" SCNu64 " %" SCNu64, &c->calls[WRITES],
			   &c->calls[READS]) == 2)
			found |= 1;
		else if (sscanf(line, "xpc %" SCNu64 " %" SCNu64 " %" SCNu64, &xstrat,
				&c->bytes[WRITES], &c->bytes[READS]) == 3)
			found |= 2;
	}
	fclose(f);
	if (found != 3) {
		snprintf(why, wlen, "%.96s: no %s line", path, found & 1 ? "xpc" : "rw");
		return -EBADMSG;
	}
	return 0;
}

enum how {
	M_READ, M_PREAD, M_READV, M_PREADV2, M_DIRECT_READ, M_SPLICE_IN, M_SENDFILE,
	M_WRITE, M_PWRITE, M_WRITEV, M_DIRECT_WRITE, M_SPLICE_OUT, M_NR
};

struct method {
	const char *name;
	enum dir dir;
	bool direct;		/* whole blocks only */
	bool to_pipe;		/* what it read is in the pipe */
};

static const struct method methods[M_NR] = {
	[M_READ] = { "read", READS },
	[M_PREAD] = { "pread", READS },
	[M_READV] = { "readv of two segments", READS },
	[M_PREADV2] = { "preadv2", READS },
	[M_DIRECT_READ] = { "O_DIRECT pread", READS, .direct = true },
	[M_SPLICE_IN] = { "splice into a pipe", READS, .to_pipe = true },
	[M_SENDFILE] = { "sendfile into a pipe", READS, .to_pipe = true },
	[M_WRITE] = { "write", WRITES },
	[M_PWRITE] = { "pwrite", WRITES },
	[M_WRITEV] = { "writev of two segments", WRITES },
	[M_DIRECT_WRITE] = { "O_DIRECT pwrite", WRITES, .direct = true },
	[M_SPLICE_OUT] = { "splice from a pipe", WRITES },
};

/* One call of method m for len bytes at off: what it returned, or -errno. */
static ssize_t one_call(FIXTURE_DATA(io_accounting) *self, enum how m, size_t len, off_t off)
{
	struct iovec iov[2] = {
		{ self->buf, len / 2 }, { self->buf + FILE_LEN, len - len / 2 },
	}, whole = { self->buf, len };
	uint8_t drain[FILE_LEN + 1];
	loff_t lo = off;
	ssize_t n;

	switch (m) {
	case M_READ:
		n = lseek(self->fd, off, SEEK_SET) < 0 ? -1 : read(self->fd, self->buf, len);
		break;
	case M_PREAD:
		n = pread(self->fd, self->buf, len, off);
		break;
	case M_READV:
		n = preadv(self->fd, iov, 2, off);
		break;
	case M_PREADV2:
		n = preadv2(self->fd, &whole, 1, off, 0);
		break;
	case M_DIRECT_READ:
		n = pread(self->dfd, self->buf, len, off);
		break;
	case M_SPLICE_IN:
		n = splice(self->fd, &lo, self->pipe[1], NULL, len, 0);
		break;
	case M_SENDFILE:
		n = sendfile(self->pipe[1], self->fd, &lo, len);
		break;
	case M_WRITE:
		n = lseek(self->fd, off, SEEK_SET) < 0 ? -1 : write(self->fd, self->buf, len);
		break;
	case M_PWRITE:
		n = pwrite(self->fd, self->buf, len, off);
		break;
	case M_WRITEV:
		n = pwritev(self->fd, iov, 2, off);
		break;
	case M_DIRECT_WRITE:
		n = pwrite(self->dfd, self->buf, len, off);
		break;
	case M_SPLICE_OUT:
		n = write(self->pipe[1], self->buf, len);
		if (n == (ssize_t)len)
			n = splice(self->pipe[0], NULL, self->fd, &lo, len, 0);
		else if (n >= 0)
			n = -1, errno = EIO;
		return n < 0 ? -errno : n;
	default:
		return -EINVAL;
	}
	if (n < 0)
		return -errno;
	/* what went into the pipe is read out, so that the next call has room */
	if (methods[m].to_pipe && read(self->pipe[0], drain, sizeof(drain)) != n)
		return -EIO;
	return n;
}

TEST_F(io_accounting, xfs_counts_every_call_and_byte_of_every_method)
{
	static const char *const what[] = { [READS] = "read", [WRITES] = "written" };
	const size_t blk = variant->blksz;
	const size_t lens[] = { 1, blk, blk + 1 };
	char why[256] = "", path[PATH_MAX];
	struct xfs_counts c0, c1;
	uint64_t want;
	size_t m, l;
	ssize_t n;
	int d;

	IOP_TEST_BEGIN(&self->fs);
	self->fd = iop_open_at(self->fs.scratch->mnt, "counted", O_RDWR | O_CREAT | O_EXCL, 0644);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(-self->fd));
	ASSERT_EQ(0, iop_path_in(path, self->fs.scratch->mnt, "counted"));
	self->dfd = open(path, O_RDWR | O_DIRECT | O_NOFOLLOW);
	ASSERT_LE(0, self->dfd) TH_LOG("open O_DIRECT: %s", strerror(errno));
	ASSERT_EQ(0, pipe(self->pipe));
	iop_pattern_fill(self->buf, 0, 2 * FILE_LEN, 3);
	ASSERT_EQ(0, iop_pwrite_all(self->fd, self->buf, FILE_LEN, 0));
	ASSERT_EQ(0, fsync(self->fd));

	for (m = 0; m < ARRAY_SIZE(methods); m++)
		for (l = 0; l < ARRAY_SIZE(lens); l++) {
			/* O_DIRECT moves whole blocks only */
			if (methods[m].direct && lens[l] % blk)
				continue;
			ASSERT_EQ(0, xfs_counts(self->fs.scratch->dev, &c0, why, sizeof(why)))
				TH_LOG("%s", why);
			n = one_call(self, (enum how)m, lens[l],
				     (off_t)(methods[m].direct ? blk : blk / 2));
			ASSERT_EQ((ssize_t)lens[l], n) TH_LOG("%s of %zu: %s", methods[m].name,
							      lens[l], n < 0 ? strerror((int)-n) :
							      "short");
			ASSERT_EQ(0, xfs_counts(self->fs.scratch->dev, &c1, why, sizeof(why)))
				TH_LOG("%s", why);
			/* one call, n bytes, in its own direction only */
			for (d = READS; d <= WRITES; d++) {
				want = c0.bytes[d] + (methods[m].dir == (enum dir)d ? (uint64_t)n : 0);
				EXPECT_EQ(want, c1.bytes[d])
					TH_LOG("%s of %zd bytes: bytes %s counted %" PRIu64 " -> %"
					       PRIu64, methods[m].name, n, what[d], c0.bytes[d],
					       c1.bytes[d]);
				want = c0.calls[d] + (methods[m].dir == (enum dir)d);
				EXPECT_EQ(want, c1.calls[d])
					TH_LOG("%s of %zd bytes: %s calls counted %" PRIu64 " -> %"
					       PRIu64, methods[m].name, n, d == READS ? "read" : "write",
					       c0.calls[d], c1.calls[d]);
			}
		}
}

TEST_HARNESS_MAIN
