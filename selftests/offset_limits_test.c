// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The limits I/O is held to at the end of the file's offsets: the largest
 * file size the filesystem allows (s_maxbytes), and the range of loff_t
 * itself, for pwrite(2), and for the paths that check a range on their
 * own: sendfile(2), which writes through splice, and io_uring's reads and
 * writes.
 *
 *   - A write that starts at the largest size fails with EFBIG; one that
 *     starts below it and runs past it is cut short at it. The largest
 *     size is found from userspace as the largest size ftruncate(2)
 *     accepts (inode_newsize_ok(), a check of its own). ext4's is below
 *     loff_t's range ((2^32 - 1) blocks); XFS's is LLONG_MAX, where a
 *     write's end past it overflows loff_t and is EINVAL before any limit.
 *   - sendfile(2) to a file positioned at that largest offset fails with
 *     the errno pwrite(2) gives for the same range, and writes nothing:
 *     EFBIG on ext4, and on XFS, where the range's end overflows loff_t,
 *     EINVAL from do_sendfile()'s own check (rw_verify_area()).
 *   - io_uring READ, READV, WRITE and WRITEV of a range whose end
 *     overflows loff_t fail with the errno pread(2) and pwrite(2) give
 *     (EINVAL), on every filesystem.
 *   - splice(2) from a pipe to a negative offset, or to the largest one,
 *     fails as pwrite(2) does there, and writes nothing.
 *   - copy_file_range(2) from at or past the input's EOF, or of length 0,
 *     returns 0, as pread(2) does there; to or from what is not a regular
 *     file (a pipe, a character device) it fails with EINVAL.
 *
 * The bugs it catches: generic_write_check_limits() without its EFBIG
 * check, so a write at the limit returns 0 (58-write-at-max-size-not-efbig,
 * generated sample 2's 018-call-zero-generic_write_check_limits), and
 * do_sendfile() without the check of its output range, so the range goes
 * on to the write path, which answers with another errno or writes
 * (59-sendfile-output-range-unchecked, generated sample 2's
 * 033-drop-stmt-do_sendfile); io_uring reads without the check of their
 * range, so a read past loff_t's end answers 0, end of file
 * (67-io-uring-read-range-unchecked, generated sample 3's
 * 003-call-arg-__io_read); copy_file_range() checking its source range
 * with one byte less, so the empty range it has cut a copy from EOF to
 * becomes a count of SIZE_MAX and EINVAL (70-copy-range-from-eof-einval,
 * generated sample 3's 039-off-by-one-vfs_copy_file_range), and
 * generic_file_rw_checks() taking any output with a mode for a regular
 * file, so a copy into a pipe gets as far as the cross-filesystem check
 * and fails with EXDEV (96-copy-range-output-type-unchecked, generated
 * sample 6's 029-call-arg-generic_file_rw_checks); do_splice() without
 * the check of its output range, so a splice to offset -1 writes there
 * (100-splice-output-range-unchecked, generated sample 7's
 * 002-call-zero-do_splice).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#ifdef HAVE_LIBURING
#include <liburing.h>
#include "uring_helpers.h"
#endif

#include "iopath_test.h"
#include "iomap_layout.h"

#define SRC_LEN	4096	/* sendfile's source file */

FIXTURE(offset_limits) {
	struct iop_test_fs fs;
	int fd;
	int src;
	int pipe[2];
};

FIXTURE_VARIANT(offset_limits) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(offset_limits);

FIXTURE_SETUP(offset_limits)
{
	self->fd = -1;
	self->src = -1;
	self->pipe[0] = -1;
	self->pipe[1] = -1;
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(offset_limits)
{
	IOP_CLOSE_FDS(self->fd, self->src, self->pipe[0], self->pipe[1]);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/*
 * "src", SRC_LEN bytes of pattern @seed (left in @buf too), and an empty
 * "out", as self->src and self->fd. 0 or -errno.
 */
static int src_and_out(FIXTURE_DATA(offset_limits) *self, uint8_t *buf, unsigned int seed)
{
	int ret;

	self->src = iop_open_at(self->fs.scratch->mnt, "src",
				O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
	if (self->src < 0)
		return self->src;
	iop_pattern_fill(buf, 0, SRC_LEN, seed);
	ret = iop_pwrite_all(self->src, buf, SRC_LEN, 0);
	if (ret)
		return ret;
	self->fd = iop_open_at(self->fs.scratch->mnt, "out",
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
	return self->fd < 0 ? self->fd : 0;
}

TEST_F(offset_limits, write_at_the_largest_file_size_fails_with_efbig)
{
	static const char ten[10] = "0123456789";
	struct stat st;
	off_t max = 0;
	ssize_t n;
	char c = 0;

	IOP_TEST_BEGIN(&self->fs);
	self->fd = iop_open_at(self->fs.scratch->mnt, "big", O_RDWR | O_CREAT | O_EXCL, 0644);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(-self->fd));
	ASSERT_EQ(0, iop_largest_size(self->fd, &max)) TH_LOG("ftruncate: %s", strerror(errno));
	TH_LOG("%s: the largest file size is %jd", variant->fstype, (intmax_t)max);

	if (max == LLONG_MAX) {
		/* the end of a byte there is past loff_t: EINVAL, no limit */
		errno = 0;
		n = pwrite(self->fd, ten, 1, max);
		EXPECT_EQ(-1, n);
		EXPECT_EQ(EINVAL, errno)
			TH_LOG("one byte at LLONG_MAX: %zd, %s", n, strerror(errno));
		return;
	}
	errno = 0;
	n = pwrite(self->fd, ten, 1, max);
	EXPECT_EQ(-1, n) TH_LOG("one byte at the largest size %jd: wrote %zd", (intmax_t)max, n);
	EXPECT_EQ(EFBIG, errno) TH_LOG("one byte at the largest size: %s", strerror(errno));
	errno = 0;
	n = pwrite(self->fd, ten, 1, max + 4096);
	EXPECT_EQ(-1, n);
	EXPECT_EQ(EFBIG, errno) TH_LOG("one byte past the largest size: %s", strerror(errno));

	/* ten bytes from one below it: cut short to the one that fits */
	n = pwrite(self->fd, ten, sizeof(ten), max - 1);
	EXPECT_EQ(1, n) TH_LOG("ten bytes at the largest size - 1: %zd (%s)", n,
			       n < 0 ? strerror(errno) : "count");
	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_EQ(max, st.st_size);
	ASSERT_EQ(1, pread(self->fd, &c, 1, max - 1));
	EXPECT_EQ('0', c);
}

/*
 * sendfile(2) writes at the output file's position, so the range is placed
 * with lseek(2): at the largest size (ext4: EFBIG from the write path), or
 * 100 bytes below LLONG_MAX where that is the largest size (XFS: the end
 * overflows, EINVAL from do_sendfile()'s own check). Either way it must
 * fail as pwrite(2) fails for the same range, and write nothing.
 */
TEST_F(offset_limits, sendfile_at_the_largest_offset_fails_as_pwrite_does)
{
	uint8_t buf[SRC_LEN];
	off_t max = 0, at;
	int perr, serr, ret;
	ssize_t n;
	struct stat st;

	IOP_TEST_BEGIN(&self->fs);
	ret = src_and_out(self, buf, 59);
	ASSERT_EQ(0, ret) TH_LOG("the files: %s", strerror(-ret));
	ASSERT_EQ(0, iop_largest_size(self->fd, &max)) TH_LOG("ftruncate: %s", strerror(errno));
	at = max == LLONG_MAX ? max - 100 : max;

	errno = 0;
	n = pwrite(self->fd, buf, sizeof(buf), at);
	ASSERT_EQ(-1, n) TH_LOG("pwrite at %jd wrote %zd", (intmax_t)at, n);
	perr = errno;
	EXPECT_EQ(max == LLONG_MAX ? EINVAL : EFBIG, perr) TH_LOG("pwrite: %s", strerror(perr));

	ASSERT_EQ(at, lseek(self->fd, at, SEEK_SET)) TH_LOG("lseek: %s", strerror(errno));
	errno = 0;
	n = sendfile(self->fd, self->src, NULL, sizeof(buf));
	serr = errno;
	EXPECT_EQ(-1, n) TH_LOG("sendfile to %jd wrote %zd", (intmax_t)at, n);
	EXPECT_EQ(perr, serr) TH_LOG("sendfile: %s, pwrite: %s", strerror(serr), strerror(perr));
	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_EQ(0, st.st_size) TH_LOG("the output file grew to %jd", (intmax_t)st.st_size);
	EXPECT_EQ(at, lseek(self->fd, 0, SEEK_CUR));
}

/*
 * splice(2) from a pipe into the file at an offset it names: the range is
 * checked by do_splice() itself (rw_verify_area()), for the write path
 * below, ->splice_write and ->write_iter, takes the position as given. At
 * a negative offset and at the largest one (as sendfile above) it must
 * fail as pwrite(2) fails there, and write nothing.
 */
TEST_F(offset_limits, splice_to_a_bad_offset_fails_as_pwrite_does)
{
	uint8_t buf[SRC_LEN];
	off_t max = 0, offs[2];
	int perr, serr, ret;
	struct stat st;
	loff_t off;
	ssize_t n;
	size_t i;

	IOP_TEST_BEGIN(&self->fs);
	ret = src_and_out(self, buf, 60);
	ASSERT_EQ(0, ret) TH_LOG("the files: %s", strerror(-ret));
	ASSERT_EQ(0, iop_largest_size(self->fd, &max)) TH_LOG("ftruncate: %s", strerror(errno));
	offs[0] = -1;
	offs[1] = max == LLONG_MAX ? max - 100 : max;

	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		/*
		 * A full pipe each time, and no waiting on an empty one: a
		 * splice that wrongly succeeded has drained the last.
		 */
		IOP_CLOSE_FDS(self->pipe[0], self->pipe[1]);
		self->pipe[0] = -1;
		self->pipe[1] = -1;
		ASSERT_EQ(0, pipe(self->pipe));
		ASSERT_EQ(SRC_LEN, write(self->pipe[1], buf, SRC_LEN));
		errno = 0;
		n = pwrite(self->fd, buf, SRC_LEN, offs[i]);
		perr = errno;
		EXPECT_EQ(-1, n) TH_LOG("pwrite at %jd wrote %zd", (intmax_t)offs[i], n);

		off = offs[i];
		errno = 0;
		n = splice(self->pipe[0], NULL, self->fd, &off, SRC_LEN, SPLICE_F_NONBLOCK);
		serr = errno;
		EXPECT_EQ(-1, n) TH_LOG("splice to %jd wrote %zd", (intmax_t)offs[i], n);
		EXPECT_EQ(perr, serr) TH_LOG("splice to %jd: %s, pwrite: %s", (intmax_t)offs[i],
					     strerror(serr), strerror(perr));
		EXPECT_EQ(offs[i], off) TH_LOG("the offset moved to %jd", (intmax_t)off);
	}
	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_EQ(0, st.st_size) TH_LOG("the output file grew to %jd", (intmax_t)st.st_size);
}

/*
 * copy_file_range(2) from the input's end: the copy is shortened to EOF
 * first (generic_copy_file_checks()), so a source range at or past EOF, or
 * of length 0, copies nothing and returns 0, as pread(2) there returns 0;
 * the range checks that follow (rw_verify_area()) must take that 0 as the
 * empty range it is.
 */
TEST_F(offset_limits, copy_file_range_at_or_past_eof_returns_0)
{
	static const struct { off_t at; size_t len; } c[] = {
		{ SRC_LEN, 100 }, { SRC_LEN + 8192, 100 }, { 0, 0 }, { SRC_LEN - 1, 0 },
	};
	uint8_t buf[SRC_LEN];
	off_t in, out;
	unsigned int i;
	struct stat st;
	ssize_t n;
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	ret = src_and_out(self, buf, 70);
	ASSERT_EQ(0, ret) TH_LOG("the files: %s", strerror(-ret));
	ASSERT_EQ(0, pread(self->src, buf, 1, SRC_LEN));

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		in = c[i].at;
		out = 0;
		errno = 0;
		n = copy_file_range(self->src, &in, self->fd, &out, c[i].len, 0);
		EXPECT_EQ(0, n) TH_LOG("copy_file_range of %zu from %jd (EOF %d): %zd (%s)",
				       c[i].len, (intmax_t)c[i].at, SRC_LEN, n,
				       n < 0 ? strerror(errno) : "bytes");
		EXPECT_EQ(c[i].at, in);
		EXPECT_EQ(0, out);
	}
	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_EQ(0, st.st_size);
}

/*
 * copy_file_range(2) takes regular files only (generic_file_rw_checks()):
 * a pipe or a character device on either side fails with EINVAL, before
 * anything is read or written. The positive control: the same copy
 * between two regular files copies.
 */
TEST_F(offset_limits, copy_file_range_refuses_what_is_not_a_regular_file)
{
	struct { int in, out; const char *what; } c[4];
	uint8_t buf[SRC_LEN];
	int p[2], null, i;
	ssize_t n;
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	ret = src_and_out(self, buf, 71);
	ASSERT_EQ(0, ret) TH_LOG("the files: %s", strerror(-ret));
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, null) TH_LOG("/dev/null: %s", strerror(errno));
	c[0] = (typeof(c[0])){ self->src, p[1], "file to pipe" };
	c[1] = (typeof(c[0])){ p[0], self->fd, "pipe to file" };
	c[2] = (typeof(c[0])){ self->src, null, "file to /dev/null" };
	c[3] = (typeof(c[0])){ null, self->fd, "/dev/null to file" };
	for (i = 0; i < (int)ARRAY_SIZE(c); i++) {
		errno = 0;
		n = copy_file_range(c[i].in, NULL, c[i].out, NULL, SRC_LEN, 0);
		EXPECT_EQ(-1, n) TH_LOG("copy_file_range %s: %zd bytes", c[i].what, n);
		EXPECT_EQ(EINVAL, errno) TH_LOG("copy_file_range %s: %s", c[i].what,
						strerror(errno));
	}
	n = copy_file_range(self->src, NULL, self->fd, NULL, SRC_LEN, 0);
	EXPECT_EQ(SRC_LEN, n) TH_LOG("copy_file_range file to file: %zd (%s)", n,
				     n < 0 ? strerror(errno) : "bytes");
	close(null);
	close(p[0]);
	close(p[1]);
}

/*
 * io_uring's reads and writes check their range themselves (__io_read(),
 * __io_write(): rw_verify_area()), as pread(2) and pwrite(2) do in
 * vfs_read() and vfs_write(): 4 KiB at LLONG_MAX - 100, whose end
 * overflows loff_t, must fail with the errno the system calls give, on
 * every filesystem and before the filesystem is asked.
 */
TEST_F(offset_limits, io_uring_io_past_loff_t_fails_as_pread_and_pwrite_do)
{
#ifdef HAVE_LIBURING
	static const struct { const char *name; int op; bool write; } ops[] = {
		{ "READ", IORING_OP_READ, false },
		{ "READV", IORING_OP_READV, false },
		{ "WRITE", IORING_OP_WRITE, true },
		{ "WRITEV", IORING_OP_WRITEV, true },
	};
	const off_t at = LLONG_MAX - 100;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	uint8_t buf[SRC_LEN];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	char why[128];
	int rerr, werr, ret;
	unsigned int i;
	struct stat st;

	IOP_TEST_BEGIN(&self->fs);
	if (iop_probe("io_uring", why, sizeof(why)) <= 0)
		SKIP(return, "%s", why);
	self->fd = iop_open_at(self->fs.scratch->mnt, "edge", O_RDWR | O_CREAT | O_EXCL, 0644);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(-self->fd));
	iop_pattern_fill(buf, 0, sizeof(buf), 67);
	ASSERT_EQ(0, iop_pwrite_all(self->fd, buf, sizeof(buf), 0));
	errno = 0;
	ASSERT_EQ(-1, pread(self->fd, buf, sizeof(buf), at));
	rerr = errno;
	errno = 0;
	ASSERT_EQ(-1, pwrite(self->fd, buf, sizeof(buf), at));
	werr = errno;
	EXPECT_EQ(EINVAL, rerr) TH_LOG("pread at LLONG_MAX - 100: %s", strerror(rerr));
	EXPECT_EQ(EINVAL, werr) TH_LOG("pwrite at LLONG_MAX - 100: %s", strerror(werr));

	ret = io_uring_queue_init(4, &ring, 0);
	ASSERT_EQ(0, ret) TH_LOG("io_uring_queue_init: %s", strerror(-ret));
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		sqe = io_uring_get_sqe(&ring);
		ASSERT_NE(NULL, sqe);
		if (ops[i].op == IORING_OP_READ)
			io_uring_prep_read(sqe, self->fd, buf, sizeof(buf), at);
		else if (ops[i].op == IORING_OP_READV)
			io_uring_prep_readv(sqe, self->fd, &iov, 1, at);
		else if (ops[i].op == IORING_OP_WRITE)
			io_uring_prep_write(sqe, self->fd, buf, sizeof(buf), at);
		else
			io_uring_prep_writev(sqe, self->fd, &iov, 1, at);
		ret = t_submit_and_wait_one(&ring);
		EXPECT_EQ(-(ops[i].write ? werr : rerr), ret)
			TH_LOG("io_uring %s at LLONG_MAX - 100: %d (%s), %s: %s", ops[i].name, ret,
			       ret < 0 ? strerror(-ret) : "bytes", ops[i].write ? "pwrite" : "pread",
			       strerror(ops[i].write ? werr : rerr));
	}
	io_uring_queue_exit(&ring);
	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_EQ(SRC_LEN, st.st_size) TH_LOG("the file is %jd bytes", (intmax_t)st.st_size);
#else
	SKIP(return, IOP_NO_LIBURING);
#endif
}

TEST_HARNESS_MAIN
