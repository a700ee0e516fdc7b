// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fallocate over extents that are already allocated but unwritten.
 *
 * ext4 7f373083b457 "ext4: avoid unnecessary transaction in
 * ext4_map_blocks() for unwritten extents" (also seen as 5c42228dbb3f in
 * Zhang Yi's buffered-iomap series) stops starting a jbd2 handle when the
 * range asked for is already an allocated unwritten extent; before it,
 * every fallocate(0) over preallocated blocks took a handle for nothing
 * (the fio falloc job). Skipping that handle is only correct if what the
 * handle used to carry still happens:
 *   - the i_size update of an extending fallocate is still journalled (it
 *     must survive umount, fdatasync + shutdown without log flush, and a
 *     shutdown that flushes the log);
 *   - nothing is allocated twice, a hole inside the range is still
 *     allocated, and written blocks are never turned back into unwritten;
 *   - dirty page cache over unwritten blocks is not lost;
 *   - ZERO_RANGE (written -> unwritten conversion) still takes its
 *     transaction;
 *   - preallocation nobody wrote stays FIEMAP_EXTENT_UNWRITTEN and reads 0;
 *   - space reserved by fallocate can be written on a full filesystem.
 * Each check is repeated after a remount, so the answer comes from disk
 * and not from the extent status cache; the teardown runs e2fsck -fn /
 * xfs_repair -n and checks the kernel log. The same cases run on XFS,
 * whose unwritten extent handling is independent and serves as reference.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

#include "iopath_test.h"

/* EXT4_IOC_SHUTDOWN and XFS_IOC_GOINGDOWN: same number, same flags */
#define IOC_SHUTDOWN		_IOR('X', 125, uint32_t)
#define SHUTDOWN_LOGFLUSH	0x1
#define SHUTDOWN_NOLOGFLUSH	0x2

#define K	1024L
#define M	(1024L * 1024)

FIXTURE(unwritten) {
	struct iop_test_fs fs;
	int dirfd;
	int fd;
	int filler;
};

FIXTURE_VARIANT(unwritten) {
	IOP_FS_VARIANT_FIELDS;
};

FIXTURE_VARIANT_ADD(unwritten, ext4) { IOP_FS_EXT4 };

/* blocks smaller than a page: partial-page extents and conversions */
FIXTURE_VARIANT_ADD(unwritten, ext4_1k) { IOP_FS_EXT4_1K };

FIXTURE_VARIANT_ADD(unwritten, xfs) { IOP_FS_XFS };

FIXTURE_SETUP(unwritten)
{
	self->dirfd = -1;
	self->fd = -1;
	self->filler = -1;
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
	if (self->fs.scratch)
		self->dirfd = open(self->fs.scratch->mnt, O_RDONLY | O_DIRECTORY);
}

FIXTURE_TEARDOWN(unwritten)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->filler >= 0)
		close(self->filler);
	if (self->dirfd >= 0)
		close(self->dirfd);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/* The byte at @off of pattern @seed: never 0, differs block to block. */
static unsigned char pattern_byte(off_t off, unsigned int seed)
{
	return (unsigned char)(((off >> 9) * 31 + seed) | 1);
}

static int write_pattern(int fd, off_t off, size_t len, unsigned int seed)
{
	char *buf = malloc(len);
	size_t i;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (i = 0; i < len; i++)
		buf[i] = pattern_byte(off + i, seed);
	n = pwrite(fd, buf, len, off);
	free(buf);
	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EIO;
}

/*
 * [off, off + len) holds pattern @seed, or zeros for seed 0. Returns 0, or
 * -EUCLEAN with the first wrong byte in @why.
 */
static int check_range(int fd, off_t off, size_t len, unsigned int seed, char *why, size_t wlen)
{
	char *buf = malloc(len);
	unsigned char want;
	size_t i;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	n = pread(fd, buf, len, off);
	if (n != (ssize_t)len) {
		snprintf(why, wlen, "pread(%lld, %zu) returned %zd: %s", (long long)off, len, n,
			 n < 0 ? strerror(errno) : "short");
		free(buf);
		return -EUCLEAN;
	}
	for (i = 0; i < len; i++) {
		want = seed ? pattern_byte(off + i, seed) : 0;
		if ((unsigned char)buf[i] != want) {
			snprintf(why, wlen, "byte %lld is 0x%02x, expected 0x%02x",
				 (long long)(off + i), (unsigned char)buf[i], want);
			free(buf);
			return -EUCLEAN;
		}
	}
	free(buf);
	return 0;
}

/*
 * FIEMAP state of every block in [off, off + len): 'H' hole, 'U'
 * unwritten, 'W' written (allocated, not unwritten), one char per @bs
 * bytes into @map (NUL-terminated). -errno on failure.
 */
static int fiemap_blocks(int fd, off_t off, off_t len, unsigned int bs, char *map)
{
	size_t nblk = len / bs, b, size;
	struct fiemap *fm;
	unsigned int i;
	off_t start = off;
	int ret = 0;

	memset(map, 'H', nblk);
	map[nblk] = '\0';
	size = sizeof(*fm) + 256 * sizeof(struct fiemap_extent);
	fm = calloc(1, size);
	if (!fm)
		return -ENOMEM;
	while (start < off + len) {
		memset(fm, 0, size);
		fm->fm_start = start;
		fm->fm_length = off + len - start;
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = 256;
		if (ioctl(fd, FS_IOC_FIEMAP, fm)) {
			ret = -errno;
			break;
		}
		if (!fm->fm_mapped_extents)
			break;
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			struct fiemap_extent *e = &fm->fm_extents[i];
			off_t s = e->fe_logical, end = e->fe_logical + e->fe_length;

			if (s < off)
				s = off;
			if (end > off + len)
				end = off + len;
			for (b = (s - off) / bs; (off_t)(off + b * bs) < end && b < nblk; b++)
				map[b] = (e->fe_flags & FIEMAP_EXTENT_UNWRITTEN) ? 'U' : 'W';
			start = e->fe_logical + e->fe_length;
		}
		if (fm->fm_extents[fm->fm_mapped_extents - 1].fe_flags & FIEMAP_EXTENT_LAST)
			break;
	}
	free(fm);
	return ret;
}

/* Does @map hold only @c in [from, to) (block indices)? Index of the first other, or -1. */
static long map_other_than(const char *map, long from, long to, char c)
{
	long i;

	for (i = from; i < to; i++)
		if (map[i] != c)
			return i;
	return -1;
}

static int open_test_file(FIXTURE_DATA(unwritten) *self, int flags)
{
	self->fd = openat(self->dirfd, "f", O_RDWR | flags, 0644);
	return self->fd < 0 ? -errno : 0;
}

/* Close everything, unmount, mount again, reopen the test file. */
static int remount_and_reopen(FIXTURE_DATA(unwritten) *self)
{
	int ret;

	if (self->fd >= 0)
		close(self->fd);
	if (self->filler >= 0)
		close(self->filler);
	close(self->dirfd);
	self->fd = -1;
	self->filler = -1;
	self->dirfd = -1;
	ret = iop_scratch_remount(self->fs.scratch);
	if (ret)
		return ret;
	self->dirfd = open(self->fs.scratch->mnt, O_RDONLY | O_DIRECTORY);
	if (self->dirfd < 0)
		return -errno;
	return open_test_file(self, 0);
}

/*
 * fallocate(0) entirely inside a KEEP_SIZE preallocation: i_size moves,
 * nothing is allocated (st_blocks unchanged), the blocks stay unwritten
 * and read as zeros, before and after a remount. A fast path that skips
 * the handle but also the i_size update (or its journalling) fails here.
 */
TEST_F(unwritten, extend_inside_prealloc_sets_size_without_allocating)
{
	char why[256] = "", map[2048];
	struct stat st0, st;
	int pass;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, open_test_file(self, O_CREAT | O_TRUNC));
	ASSERT_EQ(0, fallocate(self->fd, FALLOC_FL_KEEP_SIZE, 0, M)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, fstat(self->fd, &st0));
	ASSERT_EQ(0, st0.st_size);
	ASSERT_EQ(0, fallocate(self->fd, 0, 0, 512 * K)) TH_LOG("%s", strerror(errno));
	/* and again at the same size: must be a no-op */
	ASSERT_EQ(0, fallocate(self->fd, 0, 256 * K, 256 * K)) TH_LOG("%s", strerror(errno));

	for (pass = 0; pass < 2; pass++) {
		ASSERT_EQ(0, fstat(self->fd, &st));
		EXPECT_EQ(512 * K, st.st_size) TH_LOG("pass %d (%s)", pass,
						      pass ? "after remount" : "live");
		EXPECT_EQ(st0.st_blocks, st.st_blocks)
			TH_LOG("fallocate over unwritten blocks allocated: %lld -> %lld sectors (%s)",
			       (long long)st0.st_blocks, (long long)st.st_blocks,
			       pass ? "after remount" : "live");
		ASSERT_EQ(0,
			  check_range(self->fd, 0, 512 * K, 0, why, sizeof(why))) TH_LOG("%s", why);
		ASSERT_EQ(0, fiemap_blocks(self->fd, 0, M, variant->blksz, map));
		EXPECT_EQ(-1, map_other_than(map, 0, M / variant->blksz, 'U'))
			TH_LOG("block %ld is '%c', expected unwritten: %s",
			       map_other_than(map, 0, M / variant->blksz, 'U'),
			       map[map_other_than(map, 0, M / variant->blksz, 'U')], map);
		if (!pass)
			ASSERT_EQ(0, remount_and_reopen(self));
	}
}

/*
 * Both kinds of shutdown (EXT4_IOC_SHUTDOWN, XFS_IOC_GOINGDOWN): after
 * fdatasync, the extending fallocate's i_size must be on disk even if the
 * log is not flushed at shutdown (fdatasync must commit an i_size change);
 * without any sync, a shutdown that flushes the log must keep it (the
 * change must be in the running transaction, not only in memory).
 */
static void extend_then_shutdown(struct __test_metadata *_metadata, FIXTURE_DATA(unwritten) *self,
				 bool sync, uint32_t how)
{
	uint32_t flags = how;
	struct stat st0, st;

	ASSERT_EQ(0, open_test_file(self, O_CREAT | O_TRUNC));
	ASSERT_EQ(0, fallocate(self->fd, FALLOC_FL_KEEP_SIZE, 0, M)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, fsync(self->fd));
	ASSERT_EQ(0, fstat(self->fd, &st0));
	ASSERT_EQ(0, fallocate(self->fd, 0, 0, 768 * K)) TH_LOG("%s", strerror(errno));
	if (sync)
		ASSERT_EQ(0, fdatasync(self->fd));
	ASSERT_EQ(0, ioctl(self->dirfd, IOC_SHUTDOWN, &flags))
		TH_LOG("shutdown ioctl: %s", strerror(errno));
	ASSERT_EQ(0, remount_and_reopen(self)) TH_LOG("remount after shutdown failed");
	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_EQ(768 * K, st.st_size)
		TH_LOG("size lost across %s shutdown%s",
		       how == SHUTDOWN_LOGFLUSH ? "log-flushing" : "no-log-flush",
		       sync ? " after fdatasync" : "");
	EXPECT_EQ(st0.st_blocks, st.st_blocks);
}

TEST_F(unwritten, size_survives_fdatasync_and_shutdown_without_log_flush)
{
	IOP_TEST_BEGIN(&self->fs);
	extend_then_shutdown(_metadata, self, true, SHUTDOWN_NOLOGFLUSH);
}

TEST_F(unwritten, size_survives_shutdown_with_log_flush)
{
	IOP_TEST_BEGIN(&self->fs);
	extend_then_shutdown(_metadata, self, false, SHUTDOWN_LOGFLUSH);
}

/*
 * One fallocate(0) over [unwritten 64K][hole 64K][written 64K]: exactly
 * the hole is allocated (st_blocks grows by 64K), no block is left a hole,
 * the unwritten part stays unwritten and zero, the written part stays
 * written with its data. A fast path that decides per request instead of
 * per extent skips the hole or rewrites the written extent's state.
 */
TEST_F(unwritten, mixed_range_allocates_exactly_the_hole)
{
	long nb = 64 * K / variant->blksz;
	char why[256] = "", map[1024];
	struct stat st0, st;
	int pass;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, open_test_file(self, O_CREAT | O_TRUNC));
	ASSERT_EQ(0, write_pattern(self->fd, 128 * K, 64 * K, 7));
	ASSERT_EQ(0, fsync(self->fd));
	ASSERT_EQ(0, fallocate(self->fd, 0, 0, 64 * K)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, fsync(self->fd));
	ASSERT_EQ(0, fiemap_blocks(self->fd, 0, 192 * K, variant->blksz, map));
	ASSERT_EQ(-1, map_other_than(map, 0, nb, 'U')) TH_LOG("layout: %s", map);
	ASSERT_EQ(-1, map_other_than(map, nb, 2 * nb, 'H')) TH_LOG("layout: %s", map);
	ASSERT_EQ(-1, map_other_than(map, 2 * nb, 3 * nb, 'W')) TH_LOG("layout: %s", map);
	ASSERT_EQ(0, fstat(self->fd, &st0));

	ASSERT_EQ(0, fallocate(self->fd, 0, 0, 192 * K)) TH_LOG("%s", strerror(errno));

	for (pass = 0; pass < 2; pass++) {
		ASSERT_EQ(0, fstat(self->fd, &st));
		EXPECT_EQ(192 * K, st.st_size);
		EXPECT_EQ(st0.st_blocks + 64 * K / 512, st.st_blocks)
			TH_LOG("st_blocks %lld -> %lld, expected +%ld for the hole (%s)",
			       (long long)st0.st_blocks, (long long)st.st_blocks, 64 * K / 512,
			       pass ? "after remount" : "live");
		ASSERT_EQ(0, fiemap_blocks(self->fd, 0, 192 * K, variant->blksz, map));
		EXPECT_EQ(-1, map_other_than(map, 0, 2 * nb, 'U'))
			TH_LOG("[unwritten][hole] must be unwritten: %s", map);
		EXPECT_EQ(-1, map_other_than(map, 2 * nb, 3 * nb, 'W'))
			TH_LOG("written data must stay written: %s", map);
		ASSERT_EQ(0,
			  check_range(self->fd, 0, 128 * K, 0, why, sizeof(why))) TH_LOG("%s", why);
		ASSERT_EQ(0,
			  check_range(self->fd, 128 * K, 64 * K, 7, why,
				      sizeof(why))) TH_LOG("%s", why);
		if (!pass)
			ASSERT_EQ(0, remount_and_reopen(self));
	}
}

/*
 * Data written into the page cache over unwritten blocks, not yet written
 * back, then fallocate(0) over it all extending i_size: the dirty data
 * must survive (and reach disk as written extents), the rest stays zero
 * and unwritten.
 */
TEST_F(unwritten, extend_over_dirty_unwritten_keeps_data)
{
	long bs = variant->blksz;
	char why[256] = "", map[2048];
	int pass;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, open_test_file(self, O_CREAT | O_TRUNC));
	ASSERT_EQ(0, fallocate(self->fd, FALLOC_FL_KEEP_SIZE, 0, M)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, write_pattern(self->fd, 0, 256 * K, 9));
	ASSERT_EQ(0, fallocate(self->fd, 0, 0, M)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, fsync(self->fd));

	for (pass = 0; pass < 2; pass++) {
		ASSERT_EQ(0,
			  check_range(self->fd, 0, 256 * K, 9, why, sizeof(why))) TH_LOG("%s", why);
		ASSERT_EQ(0,
			  check_range(self->fd, 256 * K, 768 * K, 0, why,
				      sizeof(why))) TH_LOG("%s", why);
		ASSERT_EQ(0, fiemap_blocks(self->fd, 0, M, bs, map));
		EXPECT_EQ(-1, map_other_than(map, 0, 256 * K / bs, 'W')) TH_LOG("%s", map);
		EXPECT_EQ(-1, map_other_than(map, 256 * K / bs, M / bs, 'U')) TH_LOG("%s", map);
		if (!pass)
			ASSERT_EQ(0, remount_and_reopen(self));
	}
}

/*
 * FALLOC_FL_ZERO_RANGE over written data, block-aligned and unaligned:
 * zeros inside, data outside, before and after remount. ext4 converts
 * the aligned part written -> unwritten, which needs a transaction even
 * where the fast path skips one for ranges that are already unwritten.
 */
TEST_F(unwritten, zero_range_over_written_reads_zeros)
{
	char why[256] = "";
	int pass;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, open_test_file(self, O_CREAT | O_TRUNC));
	ASSERT_EQ(0, write_pattern(self->fd, 0, 256 * K, 3));
	ASSERT_EQ(0, fsync(self->fd));
	ASSERT_EQ(0, fallocate(self->fd, FALLOC_FL_ZERO_RANGE, 64 * K, 64 * K))
		TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, fallocate(self->fd, FALLOC_FL_ZERO_RANGE, 140000, 5000))
		TH_LOG("%s", strerror(errno));

	for (pass = 0; pass < 2; pass++) {
		ASSERT_EQ(0,
			  check_range(self->fd, 0, 64 * K, 3, why, sizeof(why))) TH_LOG("%s", why);
		ASSERT_EQ(0,
			  check_range(self->fd, 64 * K, 64 * K, 0, why,
				      sizeof(why))) TH_LOG("%s", why);
		ASSERT_EQ(0,
			  check_range(self->fd, 128 * K, 140000 - 128 * K, 3, why,
				      sizeof(why))) TH_LOG("%s", why);
		ASSERT_EQ(0,
			  check_range(self->fd, 140000, 5000, 0, why,
				      sizeof(why))) TH_LOG("%s", why);
		ASSERT_EQ(0,
			  check_range(self->fd, 145000, 256 * K - 145000, 3, why,
				      sizeof(why))) TH_LOG("%s", why);
		if (!pass) {
			ASSERT_EQ(0, fsync(self->fd));
			ASSERT_EQ(0, remount_and_reopen(self));
		}
	}
}

/*
 * Preallocation nobody wrote keeps FIEMAP_EXTENT_UNWRITTEN through further
 * fallocate calls that cover it (and extend past it), and SEEK_DATA skips
 * it once the page cache is clean: [U 256K][W 4K][U ...], then
 * fallocate(0, 0, 2M) over all of it.
 */
TEST_F(unwritten, untouched_prealloc_stays_unwritten)
{
	long bs = variant->blksz;
	char why[256] = "", map[4096];
	off_t pos;
	int pass;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, open_test_file(self, O_CREAT | O_TRUNC));
	ASSERT_EQ(0, fallocate(self->fd, 0, 0, M)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, write_pattern(self->fd, 256 * K, 4 * K, 5));
	ASSERT_EQ(0, fsync(self->fd));
	ASSERT_EQ(0, fallocate(self->fd, 0, 0, 2 * M)) TH_LOG("%s", strerror(errno));

	for (pass = 0; pass < 2; pass++) {
		ASSERT_EQ(0, fiemap_blocks(self->fd, 0, 2 * M, bs, map));
		EXPECT_EQ(-1,
			  map_other_than(map, 0, 256 * K / bs,
					 'U')) TH_LOG("pass %d: %s", pass, map);
		EXPECT_EQ(-1,
			  map_other_than(map, 256 * K / bs, 260 * K / bs,
					 'W')) TH_LOG("pass %d: %s", pass, map);
		EXPECT_EQ(-1,
			  map_other_than(map, 260 * K / bs, 2 * M / bs,
					 'U')) TH_LOG("pass %d: %s", pass, map);
		ASSERT_EQ(0,
			  check_range(self->fd, 0, 256 * K, 0, why, sizeof(why))) TH_LOG("%s", why);
		ASSERT_EQ(0,
			  check_range(self->fd, 256 * K, 4 * K, 5, why,
				      sizeof(why))) TH_LOG("%s", why);
		ASSERT_EQ(0,
			  check_range(self->fd, 260 * K, 2 * M - 260 * K, 0, why,
				      sizeof(why))) TH_LOG("%s", why);
		/* the reads above filled the cache with zeros: drop it for SEEK_DATA */
		ASSERT_EQ(0, posix_fadvise(self->fd, 0, 0, POSIX_FADV_DONTNEED));
		pos = lseek(self->fd, 0, SEEK_DATA);
		EXPECT_EQ(256 * K, pos)
			TH_LOG("SEEK_DATA(0) = %lld: %s", (long long)pos,
			       pos < 0 ? strerror(errno) : "clean unwritten reported as data");
		pos = lseek(self->fd, 256 * K, SEEK_HOLE);
		EXPECT_EQ(260 * K, pos) TH_LOG("SEEK_HOLE(256K) = %lld", (long long)pos);
		if (!pass)
			ASSERT_EQ(0, remount_and_reopen(self));
	}
}

/*
 * fallocate guarantees the space: after fallocate(0) over a KEEP_SIZE
 * preallocation, fill the filesystem to ENOSPC with another file, then
 * write the whole preallocated range. A fallocate that only moved i_size
 * without the blocks being really reserved fails the write or the fsync.
 */
TEST_F_TIMEOUT(unwritten, write_into_prealloc_on_full_fs, 60)
{
	char why[256] = "";
	off_t filled = 0, chunk = 1L << 30;
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, open_test_file(self, O_CREAT | O_TRUNC));
	ASSERT_EQ(0, fallocate(self->fd, FALLOC_FL_KEEP_SIZE, 0, M)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, fallocate(self->fd, 0, 0, M)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, fsync(self->fd));

	self->filler = openat(self->dirfd, "filler", O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, self->filler);
	while (chunk >= 64 * K) {
		ret = fallocate(self->filler, 0, filled, chunk);
		if (!ret) {
			filled += chunk;
			continue;
		}
		ASSERT_EQ(ENOSPC, errno) TH_LOG("filling: %s", strerror(errno));
		/* a failed fallocate may leave part of its range allocated */
		chunk /= 2;
	}
	ASSERT_EQ(0, fsync(self->filler));
	TH_LOG("filled %lld MiB", (long long)(filled >> 20));

	ASSERT_EQ(0, write_pattern(self->fd, 0, M, 11)) TH_LOG("write into fallocated space on a full filesystem");
	ASSERT_EQ(0, fsync(self->fd)) TH_LOG("fsync: %s", strerror(errno));
	ASSERT_EQ(0, check_range(self->fd, 0, M, 11, why, sizeof(why))) TH_LOG("%s", why);

	/* give the space back before the teardown's fsck and unmount */
	close(self->filler);
	self->filler = -1;
	ASSERT_EQ(0, unlinkat(self->dirfd, "filler", 0));
	ASSERT_EQ(0, remount_and_reopen(self));
	ASSERT_EQ(0,
		  check_range(self->fd, 0, M, 11, why,
			      sizeof(why))) TH_LOG("after remount: %s", why);
}

struct race {
	int fd;		/* O_DIRECT */
	int nblk;
	unsigned int bs;
	int err;
};

/* Even blocks: O_DIRECT writes converting unwritten -> written. */
static void *race_dio_writer(void *arg)
{
	struct race *r = arg;
	char *buf;
	int b;
	unsigned int i;

	if (posix_memalign((void **)&buf, 4096, r->bs)) {
		r->err = ENOMEM;
		return NULL;
	}
	for (b = 0; b < r->nblk; b += 2) {
		for (i = 0; i < r->bs; i++)
			buf[i] = pattern_byte((off_t)b * r->bs + i, 13);
		if (pwrite(r->fd, buf, r->bs, (off_t)b * r->bs) != (ssize_t)r->bs) {
			r->err = errno ? errno : EIO;
			break;
		}
	}
	free(buf);
	return NULL;
}

/*
 * O_DIRECT writes converting unwritten blocks (even blocks) race with
 * fallocate(0) extending i_size over the same preallocation and with
 * ZERO_RANGE on the odd blocks in between, so both sides split and
 * convert the same extents (the research's race item, time-bounded).
 * Afterwards: even blocks hold the data, odd blocks read zeros, the size
 * is the full range, also after a remount; the teardown runs fsck.
 */
TEST_F_TIMEOUT(unwritten, dio_conversion_races_fallocate, 60)
{
	const unsigned int bs = variant->blksz < 4096 ? 4096 : variant->blksz;
	const int nblk = 512;
	struct race r = { .nblk = nblk, .bs = bs };
	char why[256] = "";
	struct timespec t0, t1;
	struct stat st;
	pthread_t th;
	int round, b, ret;

	IOP_TEST_BEGIN(&self->fs);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (round = 0; round < 20; round++) {
		ASSERT_EQ(0, open_test_file(self, O_CREAT | O_TRUNC));
		ASSERT_EQ(0, fallocate(self->fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)nblk * bs));
		r.fd = openat(self->dirfd, "f", O_RDWR | O_DIRECT);
		ASSERT_LE(0, r.fd) TH_LOG("open O_DIRECT: %s", strerror(errno));
		r.err = 0;
		ASSERT_EQ(0, pthread_create(&th, NULL, race_dio_writer, &r));
		for (b = 0, ret = 0; b < nblk && !ret; b++) {
			ret = fallocate(self->fd, 0, 0, (off_t)(b + 1) * bs);
			if (!ret && (b & 1))
				ret = fallocate(self->fd,
						FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
						(off_t)b * bs, bs);
		}
		pthread_join(th, NULL);
		close(r.fd);
		ASSERT_EQ(0, ret) TH_LOG("fallocate at block %d: %s", b, strerror(errno));
		ASSERT_EQ(0, r.err) TH_LOG("O_DIRECT write: %s", strerror(r.err));
		ASSERT_EQ(0, fsync(self->fd));
		ASSERT_EQ(0, fstat(self->fd, &st));
		ASSERT_EQ((off_t)nblk * bs, st.st_size);
		for (b = 0; b < nblk; b++)
			ASSERT_EQ(0,
				  check_range(self->fd, (off_t)b * bs, bs, (b & 1) ? 0 : 13,
					      why, sizeof(why)))
				TH_LOG("round %d: %s", round, why);
		close(self->fd);
		self->fd = -1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (t1.tv_sec - t0.tv_sec >= 3)
			break;
	}
	ASSERT_EQ(0, remount_and_reopen(self));
	for (b = 0; b < nblk; b++)
		ASSERT_EQ(0,
			  check_range(self->fd, (off_t)b * bs, bs, (b & 1) ? 0 : 13,
				      why, sizeof(why)))
			TH_LOG("after remount: %s", why);
	TH_LOG("%d rounds of %d blocks", round + (round < 20), nblk);
}

TEST_HARNESS_MAIN
