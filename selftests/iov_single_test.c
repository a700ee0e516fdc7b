// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One user buffer, five ways in: read(2), readv(2) with one segment,
 * preadv2(2) at the current position, io_uring READ and io_uring READV
 * with one segment must give the same result. (io_uring reads files at an
 * explicit offset and must leave the file position alone; see
 * uring_offset().)
 *
 * Since Linux 6.4 (merge b9dff2195f8a, "Turn single vector imports into
 * ITER_UBUF": 3b2deb0e46da "iov_iter: import single vector iovecs as
 * ITER_UBUF", e03ad4ee2783 "convert import_single_range() to ITER_UBUF")
 * a one-segment readv/preadv2/READV is imported as ITER_UBUF, like read(2)
 * and io_uring READ, instead of ITER_IOVEC. A mistake there (a length or
 * an access_ok() check done differently, a partial copy counted wrongly,
 * f4b78260fc67's *iovp left pointing at a stack iovec that the caller then
 * kfree()s) shows up as the readv family disagreeing with read(2), or as
 * a file position or pipe contents moved by a failed call.
 *
 * Sources (fixture variants): a buffered file on tmpfs
 * (shmem_file_read_iter), /dev/zero (read_zero for read(2) but
 * read_iter_zero for the rest: the one source whose paths differ by
 * design), a pipe and an AF_UNIX stream socket (sock_read_iter). Cases:
 * normal, zero length, short read, EFAULT for NULL, kernel-address and
 * half-unmapped buffers, and for the vector calls iovcnt 0, iovcnt 1025,
 * a bad iovec array. Every result is also checked on its own: a failed
 * call moved neither the file position nor pipe data, a successful one
 * moved them by exactly what it returned and returned the source's bytes.
 * A length over SSIZE_MAX is rejected differently by read(2) and the
 * vector calls; there each call is held to its own documented result.
 *
 * The io_uring cases need liburing; built without it, they skip.
 */
#ifdef IOPATH_SUITE
/*
 * In the iopath suite the same file also reads buffered ext4 (filemap_read)
 * and O_DIRECT ext4 and XFS files (iomap DIO) on scratch filesystems, and
 * every test fails on an oops or warning in the kernel log. The parts
 * between #ifdef IOPATH_SUITE and its #else or #endif are iopath's own:
 * `make upstream` removes them (unifdef) to make the kernel selftest
 * tools/testing/selftests/filesystems/iov_single/iov_single_test.c.
 */
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/io_uring.h>
#include <linux/magic.h>
#include <linux/types.h>

#include "iov_single_uring.h"

#ifdef IOPATH_SUITE
#include "iopath_test.h"
#define NO_LIBURING	IOP_NO_LIBURING
#else
/* lib.mk puts no -I for the selftests directory on the command line */
#include "../../kselftest_harness.h"
#define NO_LIBURING	"built without liburing"
#endif

#define FILE_LEN	(16384 + 10)	/* the last 10 bytes make the short read */
#define PIPE_FILL	8192
#define PIPE_SHORT	100
#define BUF_LEN		16384

/* A user address no process can map: the top page of the address space. */
#define KERNEL_ADDR	((void *)(~0UL & ~4095UL))

enum src_kind { SRC_FILE, SRC_DEVZERO, SRC_PIPE, SRC_SOCKET };

enum method { M_READ, M_READV, M_PREADV2, M_URING_READ, M_URING_READV, M_NR };

static const char *const method_name[M_NR] = {
	"read", "readv(1)", "preadv2(-1)", "io_uring READ", "io_uring READV(1)",
};

enum buf_kind { BUF_OK, BUF_NULL, BUF_KERNEL, BUF_HALF };

struct rcase {
	const char *name;
	off_t start;		/* file position before the call */
	size_t fill;		/* bytes in the pipe before the call */
	enum buf_kind buf;
	size_t len;
};

/* What a test reads from, and into (the fixture's own state). */
struct source {
	enum src_kind kind;
	int fd;			/* what is read */
	int wfd;		/* pipe write end */
	int tmpfd;		/* the file fd was reopened from */
	struct io_uring *ring;
	unsigned char *src;	/* the source's bytes from offset 0 */
	char *buf;		/* BUF_LEN, page aligned */
	char *half;		/* two pages, the second PROT_NONE */
	char skip[256];		/* non-empty: each test skips with this reason */
	char error[256];	/* non-empty: the setup failed, each test fails */
};

FIXTURE(iov_single) {
#ifdef IOPATH_SUITE
	struct iop_test_fs fs;
#endif
	struct source s;
};

FIXTURE_VARIANT(iov_single) {
#ifdef IOPATH_SUITE
	IOP_FS_VARIANT_FIELDS;
	bool direct;
#endif
	enum src_kind kind;
};

FIXTURE_VARIANT_ADD(iov_single, tmpfs) {
	.kind = SRC_FILE,
};

#ifdef IOPATH_SUITE
FIXTURE_VARIANT_ADD(iov_single, ext4) {
	IOP_FS_EXT4,
	.kind = SRC_FILE,
};

FIXTURE_VARIANT_ADD(iov_single, ext4_direct) {
	IOP_FS_EXT4,
	.kind = SRC_FILE, .direct = true,
};

FIXTURE_VARIANT_ADD(iov_single, xfs_direct) {
	IOP_FS_XFS,
	.kind = SRC_FILE, .direct = true,
};
#endif

FIXTURE_VARIANT_ADD(iov_single, dev_zero) {
	.kind = SRC_DEVZERO,
};

FIXTURE_VARIANT_ADD(iov_single, pipe) {
	.kind = SRC_PIPE,
};

/* AF_UNIX stream: sock_read_iter for all five */
FIXTURE_VARIANT_ADD(iov_single, unix_stream) {
	.kind = SRC_SOCKET,
};

static unsigned char src_byte(size_t off)
{
	return (unsigned char)((off * 7 + 3) | 1);
}

/*
 * An unlinked file of FILE_LEN pattern bytes in @dir, reopened as @fd
 * with @flags added to O_RDONLY.
 */
static int make_file(struct source *s, const char *dir, int flags, char *why, size_t len)
{
	char path[64];
	size_t i;

	s->tmpfd = open(dir, O_TMPFILE | O_RDWR, 0600);
	if (s->tmpfd < 0) {
		snprintf(why, len, "O_TMPFILE in %s: %s", dir, strerror(errno));
		return -errno;
	}
	for (i = 0; i < FILE_LEN; i++)
		s->src[i] = src_byte(i);
	if (pwrite(s->tmpfd, s->src, FILE_LEN, 0) != FILE_LEN || fsync(s->tmpfd)) {
		snprintf(why, len, "writing the source file: %s", strerror(errno));
		return -EIO;
	}
	/* a second open file description: its own f_pos (and flags) */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", s->tmpfd);
	s->fd = open(path, O_RDONLY | flags);
	if (s->fd < 0) {
		snprintf(why, len, "reopen with flags 0%o: %s", flags, strerror(errno));
		return -errno;
	}
	return 0;
}

FIXTURE_SETUP(iov_single)
{
	char why[160] = "";
	struct statfs sfs;
	int ret = 0;

	memset(&self->s, 0, sizeof(self->s));
	self->s.kind = variant->kind;
	self->s.fd = -1;
	self->s.wfd = -1;
	self->s.tmpfd = -1;
	self->s.src = calloc(1, BUF_LEN + FILE_LEN);
	if (posix_memalign((void **)&self->s.buf, 4096, BUF_LEN))
		self->s.buf = NULL;
	self->s.half = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(NULL, self->s.src);
	ASSERT_NE(NULL, self->s.buf);
	ASSERT_NE(MAP_FAILED, self->s.half);
	ASSERT_EQ(0, mprotect(self->s.half + 4096, 4096, PROT_NONE));

#ifdef IOPATH_SUITE
	if (variant->fstype) {
		iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts,
				  variant->mount_opts);
		if (!self->fs.scratch) {
			/* the scratch filesystem's skip or failure is the test's */
			snprintf(self->s.skip, sizeof(self->s.skip), "%s", self->fs.skip);
			snprintf(self->s.error, sizeof(self->s.error), "%s", self->fs.error);
			return;
		}
	} else {
		memset(&self->fs, 0, sizeof(self->fs));
		/* no scratch, but the kernel log is still checked */
		iop_test_kmsg_mark(&self->fs);
	}
#endif

	switch (variant->kind) {
	case SRC_FILE:
#ifdef IOPATH_SUITE
		if (variant->fstype) {
			ret = make_file(&self->s, self->fs.scratch->mnt,
					variant->direct ? O_DIRECT : 0, why, sizeof(why));
			break;
		}
#endif
		if (statfs("/dev/shm", &sfs) || sfs.f_type != TMPFS_MAGIC) {
			snprintf(self->s.skip, sizeof(self->s.skip), "/dev/shm is not tmpfs");
			return;
		}
		ret = make_file(&self->s, "/dev/shm", 0, why, sizeof(why));
		break;
	case SRC_DEVZERO:
		/* src stays all zeros */
		self->s.fd = open("/dev/zero", O_RDONLY);
		if (self->s.fd < 0) {
			ret = -errno;
			snprintf(why, sizeof(why), "/dev/zero: %s", strerror(errno));
		}
		break;
	case SRC_PIPE:
	case SRC_SOCKET: {
		int p[2];
		size_t i;

		if (variant->kind == SRC_PIPE ? pipe(p) : socketpair(AF_UNIX, SOCK_STREAM, 0, p)) {
			ret = -errno;
			snprintf(why, sizeof(why), "pipe/socketpair: %s", strerror(errno));
			break;
		}
		self->s.fd = p[0];
		self->s.wfd = p[1];
		for (i = 0; i < PIPE_FILL; i++)
			self->s.src[i] = src_byte(i);
		break;
	}
	}
	if (ret) {
		/* the test's own setup failed: a failure, never a skip */
		snprintf(self->s.error, sizeof(self->s.error), "%s", why);
		return;
	}
	ret = ring_open(&self->s.ring);
	if (ret == -EOPNOTSUPP)
		snprintf(self->s.skip, sizeof(self->s.skip), "%s", NO_LIBURING);
	else if (ret)
		snprintf(self->s.skip, sizeof(self->s.skip), "io_uring: %s", strerror(-ret));
}

FIXTURE_TEARDOWN(iov_single)
{
	ring_close(self->s.ring);
	if (self->s.fd >= 0)
		close(self->s.fd);
	if (self->s.wfd >= 0)
		close(self->s.wfd);
	if (self->s.tmpfd >= 0)
		close(self->s.tmpfd);
	free(self->s.src);
	free(self->s.buf);
	if (self->s.half != MAP_FAILED)
		munmap(self->s.half, 8192);
#ifdef IOPATH_SUITE
	IOP_TEST_FS_TEARDOWN(&self->fs);
#endif
}

/* Empty the pipe or socket without blocking; returns bytes read into @out (may be NULL). */
static ssize_t drain_stream(int fd, unsigned char *out, size_t max)
{
	int flags = fcntl(fd, F_GETFL);
	unsigned char tmp[4096];
	size_t total = 0;
	ssize_t n;

	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	while ((n = read(fd, tmp, sizeof(tmp))) > 0) {
		if (out && total + n <= max)
			memcpy(out + total, tmp, n);
		total += n;
	}
	fcntl(fd, F_SETFL, flags);
	return total;
}

/* Put the source back in its starting state for @c. */
static int reset_source(struct source *s, const struct rcase *c)
{
	switch (s->kind) {
	case SRC_FILE:
		return lseek(s->fd, c->start, SEEK_SET) == c->start ? 0 : -errno;
	case SRC_PIPE:
	case SRC_SOCKET:
		drain_stream(s->fd, NULL, 0);
		return write(s->wfd, s->src, c->fill) == (ssize_t)c->fill ? 0 : -EIO;
	case SRC_DEVZERO:
		return 0;
	}
	return -EINVAL;
}

/*
 * Where io_uring reads: at @start for files, the current position (-1)
 * for pipes and /dev/zero. With -1 on a file, io_uring copies ki_pos back
 * to f_pos when the request is issued, so a read that completes later
 * (O_DIRECT, a short buffered read retried from io-wq) leaves f_pos
 * unmoved on 6.18; that is io_uring position handling, not the import
 * this file is about, so io_uring reads files positionally (like pread).
 */
static __u64 uring_offset(const struct source *s, off_t start)
{
	return s->kind == SRC_FILE ? (__u64)start : (__u64)-1;
}

static bool moves_position(enum method m)
{
	return m != M_URING_READ && m != M_URING_READV;
}

/* One call through @m; -errno only if the call could not be made at all. */
static int do_read(struct source *s, enum method m, off_t start, void *buf, size_t len,
		   struct result *r)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	errno = 0;
	switch (m) {
	case M_READ:
		/* syscall(): the C library may refuse or annotate huge lengths */
		r->ret = syscall(SYS_read, s->fd, buf, len);
		break;
	case M_READV:
		r->ret = readv(s->fd, &iov, 1);
		break;
	case M_PREADV2:
		r->ret = preadv2(s->fd, &iov, 1, -1, 0);
		break;
	case M_URING_READ:
		return uring_rw(s->ring, IORING_OP_READ, s->fd, buf, len,
				uring_offset(s, start), r);
	case M_URING_READV:
		return uring_rw(s->ring, IORING_OP_READV, s->fd, &iov, 1,
				uring_offset(s, start), r);
	default:
		return -EINVAL;
	}
	r->err = r->ret < 0 ? errno : 0;
	return 0;
}

/*
 * The call's effect on its own: a failure moved nothing; a success of n
 * bytes moved the position (if @moves) / consumed the pipe by exactly n
 * and returned the source's next n bytes into @buf. -EUCLEAN and @why on
 * a violation.
 */
static int check_effect(struct source *s, const struct rcase *c, const char *buf,
			const struct result *r, bool moves, char *why, size_t len)
{
	size_t done = r->ret > 0 ? r->ret : 0, i;
	unsigned char *left;
	ssize_t nleft;
	off_t pos;

	if (r->ret > (ssize_t)c->len) {
		snprintf(why, len, "returned %zd for a %zu-byte buffer", r->ret, c->len);
		return -EUCLEAN;
	}
	if (c->buf == BUF_HALF && r->ret > 4096) {
		snprintf(why, len, "returned %zd with only 4096 bytes mapped", r->ret);
		return -EUCLEAN;
	}
	if (done && !buf) {
		snprintf(why, len, "returned %zd into a buffer it cannot write", r->ret);
		return -EUCLEAN;
	}
	for (i = 0; i < done; i++) {
		if ((unsigned char)buf[i] != s->src[(s->kind == SRC_FILE ? c->start : 0) + i]) {
			snprintf(why, len, "returned byte %zu is 0x%02x, source has 0x%02x", i,
				 (unsigned char)buf[i],
				 s->src[(s->kind == SRC_FILE ? c->start : 0) + i]);
			return -EUCLEAN;
		}
	}
	switch (s->kind) {
	case SRC_FILE:
		pos = lseek(s->fd, 0, SEEK_CUR);
		if (pos != c->start + (moves ? (off_t)done : 0)) {
			snprintf(why, len, "file position %lld after returning %zd from %lld",
				 (long long)pos, r->ret, (long long)c->start);
			return -EUCLEAN;
		}
		break;
	case SRC_PIPE:
	case SRC_SOCKET:
		left = malloc(PIPE_FILL + 4096);
		if (!left)
			return -ENOMEM;
		nleft = drain_stream(s->fd, left, PIPE_FILL + 4096);
		if (nleft != (ssize_t)(c->fill - done) ||
		    memcmp(left, s->src + done, nleft)) {
			snprintf(why, len, "pipe holds %zd bytes after returning %zd of %zu%s",
				 nleft, r->ret, c->fill,
				 nleft == (ssize_t)(c->fill - done) ? " (wrong bytes)" : "");
			free(left);
			return -EUCLEAN;
		}
		free(left);
		break;
	case SRC_DEVZERO:
		break;
	}
	return 0;
}

static void *case_buffer(struct source *s, enum buf_kind b)
{
	switch (b) {
	case BUF_OK:
		return s->buf;
	case BUF_NULL:
		return NULL;
	case BUF_KERNEL:
		return KERNEL_ADDR;
	case BUF_HALF:
		return s->half;
	}
	return NULL;
}

/*
 * Run @c through every method: each result must be consistent on its own
 * and equal read(2)'s. Returns read(2)'s result in @ref.
 */
static void run_case(struct __test_metadata *_metadata, struct source *s,
		     const struct rcase *c, struct result *ref)
{
	struct result r[M_NR];
	char why[192] = "";
	void *buf = case_buffer(s, c->buf);
	int m, ret;

	for (m = 0; m < M_NR; m++) {
		ASSERT_EQ(0, reset_source(s, c));
		if (buf == s->buf)
			memset(s->buf, 0, BUF_LEN);
		else if (buf == s->half)
			memset(s->half, 0, 4096);
		ret = do_read(s, m, c->start, buf, c->len, &r[m]);
		ASSERT_EQ(0, ret) TH_LOG("%s: %s could not be issued: %s", c->name, method_name[m],
					 strerror(-ret));
		ret = check_effect(s, c, buf == s->half || buf == s->buf ? buf : NULL,
				   &r[m], moves_position(m), why, sizeof(why));
		EXPECT_EQ(0, ret) TH_LOG("%s: %s -> %zd (%s): %s", c->name, method_name[m],
					 r[m].ret, r[m].err ? strerror(r[m].err) : "ok", why);
	}
	for (m = 1; m < M_NR; m++) {
		EXPECT_TRUE(r[m].ret == r[0].ret && r[m].err == r[0].err)
			TH_LOG("%s: %s -> %zd (%s), but read -> %zd (%s)", c->name, method_name[m],
			       r[m].ret, r[m].err ? strerror(r[m].err) : "ok",
			       r[0].ret, r[0].err ? strerror(r[0].err) : "ok");
	}
	*ref = r[0];
}

/*
 * The first statement of every test: FIXTURE_SETUP records why it could
 * not set the source up, and the test fails (the setup's own error) or
 * skips (what the system lacks) here. False: the test must return.
 */
static bool source_ready(struct __test_metadata *_metadata, const struct source *s)
{
	ASSERT_FALSE(s->error[0]) TH_LOG("setup: %s", s->error);
	if (s->skip[0])
		SKIP(return false, "%s", s->skip);
	return true;
}

/* run_case(), and read(2) must have returned @want. */
static void run_count_case(struct __test_metadata *_metadata, struct source *s,
			   const struct rcase *c, ssize_t want)
{
	struct result ref;

	run_case(_metadata, s, c, &ref);
	EXPECT_EQ(want, ref.ret) TH_LOG("read: %s", strerror(ref.err));
}

/* Plain 4 KiB read: all five return 4096 and the same bytes. */
TEST_F(iov_single, normal_read_agrees)
{
	const struct rcase c = { "4096 bytes", 0, PIPE_FILL, BUF_OK, 4096 };

	if (!source_ready(_metadata, &self->s))
		return;
	run_count_case(_metadata, &self->s, &c, 4096);
}

/* Zero length returns 0 and consumes nothing (also on a pipe with data). */
TEST_F(iov_single, zero_length_agrees)
{
	const struct rcase c = { "0 bytes", 4096, PIPE_FILL, BUF_OK, 0 };

	if (!source_ready(_metadata, &self->s))
		return;
	run_count_case(_metadata, &self->s, &c, 0);
}

/*
 * Short read: 4096 asked, 10 bytes left before EOF (files), 100 bytes in
 * the pipe or socket. The count and the final position must agree.
 */
TEST_F(iov_single, short_read_agrees)
{
	const struct rcase c = { "short", FILE_LEN - 10, PIPE_SHORT, BUF_OK, 4096 };

	if (!source_ready(_metadata, &self->s))
		return;
	if (variant->kind == SRC_DEVZERO)
		SKIP(return, "/dev/zero has no end to read short at");
	run_count_case(_metadata, &self->s, &c, variant->kind == SRC_FILE ? 10 : PIPE_SHORT);
}

/* 4096 bytes into an unusable buffer @b: EFAULT everywhere, nothing moved. */
static void run_efault_case(struct __test_metadata *_metadata, struct source *s,
			    const char *name, enum buf_kind b)
{
	const struct rcase c = { name, 0, PIPE_FILL, b, 4096 };
	struct result ref;

	run_case(_metadata, s, &c, &ref);
	EXPECT_EQ(-1, ref.ret);
	EXPECT_EQ(EFAULT, ref.err);
}

/* NULL buffer: EFAULT everywhere, position and pipe data untouched. */
TEST_F(iov_single, null_buffer_efault_agrees)
{
	if (!source_ready(_metadata, &self->s))
		return;
	run_efault_case(_metadata, &self->s, "NULL buffer", BUF_NULL);
}

/* A buffer at a kernel address fails access_ok(): EFAULT, nothing moved. */
TEST_F(iov_single, kernel_buffer_efault_agrees)
{
	if (!source_ready(_metadata, &self->s))
		return;
	run_efault_case(_metadata, &self->s, "kernel-address buffer", BUF_KERNEL);
}

/*
 * 8 KiB into a buffer whose second page is PROT_NONE: a short count of
 * at most 4096 (buffered copies) or EFAULT (O_DIRECT pins the whole
 * buffer first); whichever, all five agree and the position / pipe moved
 * by exactly the count.
 */
TEST_F(iov_single, half_unmapped_buffer_agrees)
{
	const struct rcase c = { "half-unmapped buffer", 0, PIPE_FILL, BUF_HALF, 8192 };
	struct result ref;

	if (!source_ready(_metadata, &self->s))
		return;
	run_case(_metadata, &self->s, &c, &ref);
	EXPECT_TRUE(ref.ret >= 0 || ref.err == EFAULT) TH_LOG("read: %s", strerror(ref.err));
}

struct vcase {
	const char *name;
	const struct iovec *iov;
	int iovcnt;
	ssize_t want_ret;
	int want_err;
};

/*
 * The vector-only cases through readv, preadv2 and io_uring READV: each
 * must give the documented result (@want_ret/@want_err) and move nothing.
 */
static void run_vcase(struct __test_metadata *_metadata, struct source *s,
		      const struct vcase *v)
{
	const struct rcase c = { v->name, 0, PIPE_FILL, BUF_OK, 0 };
	static const enum method ms[] = { M_READV, M_PREADV2, M_URING_READV };
	struct result r;
	char why[192] = "";
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(ms); i++) {
		ASSERT_EQ(0, reset_source(s, &c));
		errno = 0;
		switch (ms[i]) {
		case M_READV:
			r.ret = readv(s->fd, v->iov, v->iovcnt);
			r.err = r.ret < 0 ? errno : 0;
			break;
		case M_PREADV2:
			r.ret = preadv2(s->fd, v->iov, v->iovcnt, -1, 0);
			r.err = r.ret < 0 ? errno : 0;
			break;
		default:
			ret = uring_rw(s->ring, IORING_OP_READV, s->fd, v->iov, v->iovcnt,
				       uring_offset(s, c.start), &r);
			ASSERT_EQ(0, ret) TH_LOG("io_uring: %s", strerror(-ret));
			break;
		}
		EXPECT_TRUE(r.ret == v->want_ret && r.err == v->want_err)
			TH_LOG("%s: %s -> %zd (%s), expected %zd (%s)", v->name, method_name[ms[i]],
			       r.ret, r.err ? strerror(r.err) : "ok", v->want_ret,
			       v->want_err ? strerror(v->want_err) : "ok");
		/* nothing may have been consumed whatever was returned */
		if (r.ret > 0)
			continue;
		ret = check_effect(s, &c, NULL, &(struct result){ -1, 0 }, true,
				   why, sizeof(why));
		EXPECT_EQ(0, ret) TH_LOG("%s: %s: %s", v->name, method_name[ms[i]], why);
	}
}

/* iovcnt 0 reads nothing and returns 0. */
TEST_F(iov_single, iovcnt_zero_returns_zero)
{
	const struct iovec iov = { .iov_base = NULL, .iov_len = 0 };
	const struct vcase v = { "iovcnt 0", &iov, 0, 0, 0 };

	if (!source_ready(_metadata, &self->s))
		return;
	run_vcase(_metadata, &self->s, &v);
}

/*
 * iovcnt UIO_MAXIOV + 1, and a negative iovcnt (for io_uring, whose
 * count is unsigned, 0xffffffff), are EINVAL before anything is read.
 */
TEST_F(iov_single, iovcnt_over_uio_maxiov_einval)
{
	struct iovec *iov = calloc(1025, sizeof(*iov));
	const struct vcase v = { "iovcnt 1025", iov, 1025, -1, EINVAL };
	const struct vcase neg = { "iovcnt -1", iov, -1, -1, EINVAL };
	int i;

	if (!source_ready(_metadata, &self->s))
		return;
	ASSERT_NE(NULL, iov);
	for (i = 0; i < 1025; i++) {
		iov[i].iov_base = self->s.buf + i;
		iov[i].iov_len = 1;
	}
	run_vcase(_metadata, &self->s, &v);
	run_vcase(_metadata, &self->s, &neg);
	free(iov);
}

/*
 * The iovec array itself unreadable (NULL, kernel address): EFAULT, and
 * no oops (f4b78260fc67: the single-segment import left *iovp pointing at
 * the caller's stack iovec on a failed copy, which the caller kfree()d).
 */
TEST_F(iov_single, bad_iovec_array_efault)
{
	const struct vcase v[] = {
		{ "iovec array at NULL", NULL, 1, -1, EFAULT },
		{ "iovec array at a kernel address", KERNEL_ADDR, 1, -1, EFAULT },
	};

	if (!source_ready(_metadata, &self->s))
		return;
	run_vcase(_metadata, &self->s, &v[0]);
	run_vcase(_metadata, &self->s, &v[1]);
}

/*
 * A length of SSIZE_MAX + 1 is where the calls legitimately differ:
 * read(2) leaves counts over SSIZE_MAX implementation-defined (Linux
 * fails with EFAULT from access_ok() or EINVAL from rw_verify_area(),
 * depending on the version), while for readv/preadv2/READV an iov_len
 * that overflows ssize_t is EINVAL. Nothing may be consumed either way.
 * (io_uring READ carries a 32-bit length and cannot express it.)
 */
TEST_F(iov_single, length_over_ssize_max_rejected)
{
	const struct rcase c = { "SSIZE_MAX + 1", 0, PIPE_FILL, BUF_OK, 0 };
	struct iovec iov_ok = { .iov_base = NULL, .iov_len = (size_t)SSIZE_MAX + 1 };
	const struct vcase v = { "iov_len SSIZE_MAX + 1", &iov_ok, 1, -1, EINVAL };
	struct result r;
	char why[192] = "";

	if (!source_ready(_metadata, &self->s))
		return;
	iov_ok.iov_base = self->s.buf;
	ASSERT_EQ(0, reset_source(&self->s, &c));
	ASSERT_EQ(0, do_read(&self->s, M_READ, 0, self->s.buf, (size_t)SSIZE_MAX + 1, &r));
	EXPECT_TRUE(r.ret == -1 && (r.err == EFAULT || r.err == EINVAL))
		TH_LOG("read(SSIZE_MAX + 1) -> %zd (%s), expected EFAULT or EINVAL", r.ret,
		       r.err ? strerror(r.err) : "ok");
	EXPECT_EQ(0, check_effect(&self->s, &c, NULL, &(struct result){ -1, 0 }, true,
				  why, sizeof(why)))
		TH_LOG("read(SSIZE_MAX + 1): %s", why);
	run_vcase(_metadata, &self->s, &v);
}

/*
 * A length that is not a multiple of the page size, from an odd file
 * position: all five return the same count and the same bytes as read(2)
 * (buffered files, pipes, sockets: all 5003 bytes; O_DIRECT: the same
 * EINVAL). Every other case here asks for whole pages, which a length
 * rounded to a page cannot change.
 * Catches: a single-segment import (import_ubuf, ITER_UBUF) that rounds or
 * truncates the length it was given, which every other test of this file
 * misses.
 */
TEST_F(iov_single, unaligned_length_agrees)
{
	const struct rcase c = { "5003 bytes at 3", 3, PIPE_FILL, BUF_OK, 5003 };
#ifdef IOPATH_SUITE
	struct result ref;
#endif

	if (!source_ready(_metadata, &self->s))
		return;
#ifdef IOPATH_SUITE
	if (variant->direct) {
		/* O_DIRECT: an unaligned length is the same EINVAL for all five */
		run_case(_metadata, &self->s, &c, &ref);
		return;
	}
#endif
	run_count_case(_metadata, &self->s, &c, 5003);
}

/*
 * An empty O_NONBLOCK pipe: read, readv(1) and preadv2 fail with EAGAIN.
 * io_uring does not honour O_NONBLOCK on pollable files (it arms poll and
 * waits), so READ and READV(1) are held to each other instead: the same
 * outcome, and once a byte is written, the same completion.
 */
FIXTURE(iov_pipe_nonblock) {
#ifdef IOPATH_SUITE
	struct iop_test_fs fs;	/* no filesystem: the kernel log check */
#endif
	int p[2];
	struct io_uring *ring;
	int ring_err;
};

FIXTURE_SETUP(iov_pipe_nonblock)
{
#ifdef IOPATH_SUITE
	memset(&self->fs, 0, sizeof(self->fs));
	iop_test_kmsg_mark(&self->fs);
#endif
	ASSERT_EQ(0, pipe2(self->p, O_NONBLOCK));
	self->ring_err = ring_open(&self->ring);
}

FIXTURE_TEARDOWN(iov_pipe_nonblock)
{
	ring_close(self->ring);
	close(self->p[0]);
	close(self->p[1]);
#ifdef IOPATH_SUITE
	IOP_TEST_FS_TEARDOWN(&self->fs);
#endif
}

TEST_F(iov_pipe_nonblock, empty_pipe_eagain_agrees)
{
	char buf[64];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct result r[M_NR] = { { 0 } };
	int pending[M_NR] = { 0 };
	int m, ret;

	if (self->ring_err)
		SKIP(return, "%s", self->ring_err == -EOPNOTSUPP ? NO_LIBURING :
		     "io_uring not available");
	r[M_READ].ret = read(self->p[0], buf, sizeof(buf));
	r[M_READ].err = errno;
	r[M_READV].ret = readv(self->p[0], &iov, 1);
	r[M_READV].err = errno;
	r[M_PREADV2].ret = preadv2(self->p[0], &iov, 1, -1, 0);
	r[M_PREADV2].err = errno;
	for (m = M_READ; m <= M_PREADV2; m++)
		EXPECT_TRUE(r[m].ret == -1 && r[m].err == EAGAIN)
			TH_LOG("%s on an empty O_NONBLOCK pipe -> %zd (%s), expected EAGAIN",
			       method_name[m], r[m].ret, strerror(r[m].err));

	for (m = M_URING_READ; m <= M_URING_READV; m++) {
		ret = uring_pending(self->ring,
				    m == M_URING_READ ? IORING_OP_READ : IORING_OP_READV,
				    self->p[0], buf, &iov, sizeof(buf), &r[m]);
		ASSERT_LE(0, ret) TH_LOG("%s: %s", method_name[m], strerror(-ret));
		pending[m] = ret;
		if (pending[m]) {
			/* feed it one byte and collect the completion */
			ASSERT_EQ(1, write(self->p[1], "x", 1));
			ASSERT_EQ(0, uring_complete(self->ring, &r[m]))
				TH_LOG("%s never completed", method_name[m]);
			EXPECT_EQ(1, r[m].ret)
				TH_LOG("%s after one byte: %zd (%s)", method_name[m], r[m].ret,
				       r[m].err ? strerror(r[m].err) : "ok");
		} else {
			EXPECT_TRUE(r[m].ret == -1 && r[m].err == EAGAIN)
				TH_LOG("%s -> %zd (%s)", method_name[m], r[m].ret,
				       strerror(r[m].err));
		}
	}
	EXPECT_EQ(pending[M_URING_READ], pending[M_URING_READV])
		TH_LOG("io_uring READ %s, READV(1) %s",
		       pending[M_URING_READ] ? "waited" : "returned",
		       pending[M_URING_READV] ? "waited" : "returned");
	EXPECT_TRUE(r[M_URING_READ].ret == r[M_URING_READV].ret &&
		    r[M_URING_READ].err == r[M_URING_READV].err);
}

/*
 * A full pipe without O_NONBLOCK: io_uring WRITE and WRITEV(1) must wait
 * for room, as write(2) would block, and once the reader drains the pipe
 * complete with every byte, in order. The first attempt is nonblocking
 * and gets -EAGAIN; only a request the caller asked not to wait for
 * (RWF_NOWAIT) may complete with it. A kernel that completes the
 * write with -EAGAIN instead of arming poll (io_write() taking any -EAGAIN
 * for "no retry") fails here.
 */
#define FULL_WRITE	4096

FIXTURE(iov_pipe_full) {
#ifdef IOPATH_SUITE
	struct iop_test_fs fs;	/* no filesystem: the kernel log check */
#endif
	int p[2];
	size_t fill;		/* what filled the pipe */
	struct io_uring *ring;
	int ring_err;
};

FIXTURE_SETUP(iov_pipe_full)
{
	char chunk[4096];
	ssize_t n;

#ifdef IOPATH_SUITE
	memset(&self->fs, 0, sizeof(self->fs));
	iop_test_kmsg_mark(&self->fs);
#endif
	self->ring = NULL;
	self->ring_err = -EOPNOTSUPP;
	ASSERT_EQ(0, pipe2(self->p, O_NONBLOCK));
	memset(chunk, 'f', sizeof(chunk));
	self->fill = 0;
	while ((n = write(self->p[1], chunk, sizeof(chunk))) > 0)
		self->fill += n;
	ASSERT_EQ(EAGAIN, errno);
	/* from here on both ends block, as a pipe does by default */
	ASSERT_EQ(0, fcntl(self->p[1], F_SETFL, 0));
	ASSERT_EQ(0, fcntl(self->p[0], F_SETFL, 0));
	self->ring_err = ring_open(&self->ring);
}

FIXTURE_TEARDOWN(iov_pipe_full)
{
	ring_close(self->ring);
	close(self->p[0]);
	close(self->p[1]);
#ifdef IOPATH_SUITE
	IOP_TEST_FS_TEARDOWN(&self->fs);
#endif
}

TEST_F(iov_pipe_full, uring_write_waits_for_room_then_writes_all)
{
	static const int ops[] = { IORING_OP_WRITE, IORING_OP_WRITEV };
	static const char *const names[] = { "io_uring WRITE", "io_uring WRITEV(1)" };
	char buf[FULL_WRITE], got[FULL_WRITE];
	struct iovec iov;
	struct result r;
	unsigned int i;
	size_t drained;
	ssize_t n;
	int ret;

	if (self->ring_err)
		SKIP(return, "%s", self->ring_err == -EOPNOTSUPP ? NO_LIBURING :
		     "io_uring not available");
	for (i = 0; i < 2; i++) {
		memset(buf, 'a' + i, sizeof(buf));
		memset(&r, 0, sizeof(r));
		ret = uring_pending(self->ring, ops[i], self->p[1], buf, &iov, sizeof(buf), &r);
		ASSERT_LE(0, ret) TH_LOG("%s: %s", names[i], strerror(-ret));
		EXPECT_EQ(1, ret)
			TH_LOG("%s to a full pipe completed at once: %zd (%s), expected it to wait",
			       names[i], r.ret, r.err ? strerror(r.err) : "ok");
		/* drain what filled the pipe: the write then has room */
		for (drained = 0; drained < self->fill; drained += n) {
			n = read(self->p[0], got, sizeof(got) < self->fill - drained ?
				 sizeof(got) : self->fill - drained);
			ASSERT_LT(0, n) TH_LOG("draining the pipe: %s", strerror(errno));
		}
		if (ret == 1) {
			ASSERT_EQ(0, uring_complete(self->ring, &r))
				TH_LOG("%s never completed after the pipe was drained", names[i]);
			EXPECT_EQ(FULL_WRITE, r.ret)
				TH_LOG("%s after the drain: %zd (%s)", names[i], r.ret,
				       r.err ? strerror(r.err) : "ok");
		}
		if (r.ret == FULL_WRITE) {
			for (drained = 0; drained < FULL_WRITE; drained += n) {
				n = read(self->p[0], got + drained, FULL_WRITE - drained);
				ASSERT_LT(0, n);
			}
			EXPECT_EQ(0, memcmp(got, buf, FULL_WRITE))
				TH_LOG("%s: the pipe gave other bytes than were written", names[i]);
		}
		/* full again for the next write */
		memset(got, 'f', sizeof(got));
		for (drained = 0; drained < self->fill; drained += n) {
			n = write(self->p[1], got, sizeof(got) < self->fill - drained ?
				  sizeof(got) : self->fill - drained);
			ASSERT_LT(0, n);
		}
	}
}

TEST_HARNESS_MAIN
