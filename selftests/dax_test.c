// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * File system DAX: ext4 and XFS mounted dax=always on a device that
 * offers DAX (the scratch device named by IOPATH_SCRATCH_DAX_DEV; iopath
 * vm carves an emulated pmem region out of the guest's RAM). Reads, writes
 * and faults go to the device's memory through dax_iomap_rw() and
 * dax_iomap_fault() with the filesystem's iomap operations, not through
 * the page cache.
 *
 * What is checked:
 *   - every regular file is DAX under dax=always: statx reports
 *     STATX_ATTR_DAX on a new file and again after a remount, when the
 *     inode is read back from disk;
 *   - bytes written by pwrite at unaligned offsets, by O_DIRECT and by
 *     stores through a shared mapping read back the same every way, and
 *     the file has no page in the page cache (cachestat);
 *   - a hole punched and a truncation in the middle of a block read back
 *     as zeros, through read and through a mapping, and nothing else
 *     changes.
 * A kernel or machine without a DAX device skips (probed: the device's
 * queue/dax).
 *
 * The bug it catches: a kernel that never makes a file DAX on a DAX
 * mount (98-ext4-dax-never-enabled, generated sample 6's
 * 036-call-arg-ext4_should_enable_dax: ext4_should_enable_dax() answers
 * no for every inode); the files then live in the page cache. And one
 * that zeroes the partial block at the edge of a hole or a truncation
 * short on a DAX inode (99-ext4-dax-partial-zero-one-short: old bytes
 * read back inside the hole).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"
#include "iop_cachestat.h"
#include "iop_statx.h"

#define IOP_STATX_ATTR_DAX 0x00200000ULL
#define FILE_LEN (1024 * 1024 + 1234)	/* not a whole number of blocks */

FIXTURE(dax) {
	struct iop_test_fs fs;
	int fd;
	uint8_t *model;
	uint8_t *buf;
};

FIXTURE_VARIANT(dax) {
	IOP_FS_VARIANT_FIELDS;
};

FIXTURE_VARIANT_ADD(dax, ext4_dax) { IOP_FS_EXT4_DAX };
FIXTURE_VARIANT_ADD(dax, xfs_dax) { IOP_FS_XFS_DAX };

FIXTURE_SETUP(dax)
{
	const struct iop_scratch_opts want = {
		.fstype = variant->fstype, .mkfs_opts = variant->mkfs_opts,
		.mount_opts = variant->mount_opts, .dax = variant->dax,
	};

	self->fd = -1;
	self->model = iop_alloc_aligned(FILE_LEN);
	self->buf = iop_alloc_aligned(FILE_LEN);
	iop_test_fs_setup_opts(&self->fs, &want);
}

FIXTURE_TEARDOWN(dax)
{
	IOP_CLOSE_FDS(self->fd);
	free(self->model);
	free(self->buf);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/* A new file "f" on the scratch: its descriptor, or -errno. */
static int create_f(FIXTURE_DATA(dax) *self)
{
	return iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
}

/* Whether statx says @fd is DAX: 1 yes, 0 no, -errno. */
static int is_dax(int fd)
{
	struct iop_statx sx;
	int ret = iop_statx_fd(fd, IOP_STATX_BASIC, &sx);

	if (ret)
		return ret;
	return !!(sx.attributes & IOP_STATX_ATTR_DAX);
}

/* [0, @len) of @fd read through a shared read-only mapping into @buf. */
static int mmap_read(int fd, uint8_t *buf, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	memcpy(buf, p, len);
	munmap(p, len);
	return 0;
}

/* The file's bytes, by pread and by a mapping, against @model. */
static int check_both_ways(int fd, uint8_t *buf, const uint8_t *model, size_t len,
			   char *why, size_t wlen)
{
	char w[160];
	int ret;

	ret = iop_pread_all(fd, buf, len, 0);
	if (ret) {
		snprintf(why, wlen, "pread: %s", strerror(-ret));
		return ret;
	}
	if (iop_model_compare(buf, model, 0, len, w, sizeof(w))) {
		snprintf(why, wlen, "read: %s", w);
		return -EBADMSG;
	}
	memset(buf, 0xa5, len);
	ret = mmap_read(fd, buf, len);
	if (ret) {
		snprintf(why, wlen, "mmap: %s", strerror(-ret));
		return ret;
	}
	if (iop_model_compare(buf, model, 0, len, w, sizeof(w))) {
		snprintf(why, wlen, "mapping: %s", w);
		return -EBADMSG;
	}
	return 0;
}

TEST_F(dax, files_are_dax_on_a_dax_mount_and_after_a_remount)
{
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	self->fd = create_f(self);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(-self->fd));
	ASSERT_EQ(0, iop_pwrite_all(self->fd, "dax", 3, 0));
	ret = is_dax(self->fd);
	ASSERT_LE(0, ret) TH_LOG("statx: %s", strerror(-ret));
	EXPECT_EQ(1, ret) TH_LOG("a new file on a dax=always mount: no STATX_ATTR_DAX");
	ASSERT_EQ(0, fsync(self->fd));
	IOP_CLOSE_FDS(self->fd);
	self->fd = -1;

	ret = iop_scratch_remount(self->fs.scratch);
	ASSERT_EQ(0, ret) TH_LOG("remount: %s", strerror(-ret));
	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDONLY | O_NOFOLLOW, 0);
	ASSERT_LE(0, self->fd) TH_LOG("open after the remount: %s", strerror(-self->fd));
	ret = is_dax(self->fd);
	ASSERT_LE(0, ret) TH_LOG("statx: %s", strerror(-ret));
	EXPECT_EQ(1, ret) TH_LOG("the file read back from disk: no STATX_ATTR_DAX");
}

TEST_F(dax, writes_read_back_every_way_without_the_page_cache)
{
	static const size_t lens[] = { 1, 511, 4097, 65536, 3000, 200000 };
	struct cachestat_v1 cs;
	uint64_t off = 0;
	char why[256];
	uint8_t *p;
	size_t i;
	int dfd, ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, self->model);
	ASSERT_NE(NULL, self->buf);
	self->fd = create_f(self);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(-self->fd));

	/* pwrite at offsets that start and end inside blocks */
	iop_pattern_fill(self->model, 0, FILE_LEN, 7);
	for (i = 0; off < FILE_LEN; i = (i + 1) % ARRAY_SIZE(lens)) {
		size_t n = lens[i] < FILE_LEN - off ? lens[i] : FILE_LEN - off;

		ASSERT_EQ(0, iop_pwrite_all(self->fd, self->model + off, n, off));
		off += n;
	}
	EXPECT_EQ(0, check_both_ways(self->fd, self->buf, self->model, FILE_LEN, why,
				     sizeof(why)))
		TH_LOG("after the writes: %s", why);

	/* O_DIRECT: on a DAX file the same path, the same bytes */
	dfd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_DIRECT | O_NOFOLLOW, 0);
	ASSERT_LE(0, dfd) TH_LOG("open O_DIRECT: %s", strerror(-dfd));
	iop_pattern_fill(self->buf, 65536, 131072, 8);
	ret = iop_pwrite_all(dfd, self->buf, 131072, 65536);
	close(dfd);
	ASSERT_EQ(0, ret) TH_LOG("O_DIRECT write: %s", strerror(-ret));
	memcpy(self->model + 65536, self->buf, 131072);
	EXPECT_EQ(0, check_both_ways(self->fd, self->buf, self->model, FILE_LEN, why,
				     sizeof(why)))
		TH_LOG("after the O_DIRECT write: %s", why);

	/* stores through a shared mapping, across a block boundary */
	p = mmap(NULL, FILE_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap: %s", strerror(errno));
	iop_pattern_fill(self->model + 300000, 300000, 10000, 9);
	memcpy(p + 300000, self->model + 300000, 10000);
	ASSERT_EQ(0, msync(p, FILE_LEN, MS_SYNC));
	munmap(p, FILE_LEN);
	EXPECT_EQ(0, check_both_ways(self->fd, self->buf, self->model, FILE_LEN, why,
				     sizeof(why)))
		TH_LOG("after the stores through the mapping: %s", why);

	ret = iop_cachestat(self->fd, 0, FILE_LEN, &cs);
	if (ret == -ENOSYS) {
		TH_LOG("no cachestat (before 6.5): the page cache not checked");
		return;
	}
	ASSERT_EQ(0, ret) TH_LOG("cachestat: %s", strerror(-ret));
	EXPECT_EQ(0, cs.nr_cache)
		TH_LOG("a DAX file with %llu pages in the page cache",
		       (unsigned long long)cs.nr_cache);
}

TEST_F(dax, punch_and_truncate_zero_what_they_cut)
{
	const uint64_t punch = 5000, plen = 70000, cut = 100001, len = 262144;
	char why[256];
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, self->model);
	ASSERT_NE(NULL, self->buf);
	self->fd = create_f(self);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(-self->fd));
	iop_pattern_fill(self->model, 0, len, 11);
	ASSERT_EQ(0, iop_pwrite_all(self->fd, self->model, len, 0));
	ASSERT_EQ(0, fsync(self->fd));

	ret = fallocate(self->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, punch, plen);
	ASSERT_EQ(0, ret) TH_LOG("punch [%llu, +%llu): %s", (unsigned long long)punch,
				 (unsigned long long)plen, strerror(errno));
	memset(self->model + punch, 0, plen);
	EXPECT_EQ(0, check_both_ways(self->fd, self->buf, self->model, len, why, sizeof(why)))
		TH_LOG("after the punch: %s", why);

	ASSERT_EQ(0, ftruncate(self->fd, cut));
	ASSERT_EQ(0, ftruncate(self->fd, len));
	memset(self->model + cut, 0, len - cut);
	EXPECT_EQ(0, check_both_ways(self->fd, self->buf, self->model, len, why, sizeof(why)))
		TH_LOG("after the truncation to %llu and back: %s", (unsigned long long)cut, why);
}

TEST_HARNESS_MAIN
