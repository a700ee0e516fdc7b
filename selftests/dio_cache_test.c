// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An O_DIRECT write leaves no cached page of its range behind: a buffered
 * read afterwards returns what the direct write put on disk.
 *
 * Before and after a direct write the page cache of its range is
 * invalidated (kiocb_invalidate_pages(),
 * kiocb_invalidate_post_direct_write() -> invalidate_inode_pages2_range()),
 * which walks the range a batch of folios at a time (find_get_entries()).
 * The range here is cached as 256 separate pages (read one by one with
 * readahead off), many more than one batch holds, so a walk that loses its
 * place after the first batch leaves stale pages that the buffered read
 * then returns.
 *
 * The bug it catches: the next index of the walk computed from a wrong
 * folio size (83-find-get-entries-next-index-wrong, generated sample 4's
 * 048-call-arg-find_get_entries).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"

#define PAGE	4096
#define LEN	(256 * PAGE)

FIXTURE(dio_cache) {
	struct iop_test_fs fs;
	int fd;
	int dfd;
	uint8_t *buf;
};

FIXTURE_VARIANT(dio_cache) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(dio_cache);

FIXTURE_SETUP(dio_cache)
{
	self->fd = -1;
	self->dfd = -1;
	self->buf = iop_alloc_aligned(LEN);
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(dio_cache)
{
	IOP_CLOSE_FDS(self->fd, self->dfd);
	free(self->buf);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

TEST_F(dio_cache, direct_write_over_many_cached_pages_leaves_none_stale)
{
	size_t off, i;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, self->buf);
	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			       0600);
	ASSERT_LE(0, self->fd) TH_LOG("create f: %s", strerror(-self->fd));
	memset(self->buf, 0x11, LEN);
	ASSERT_EQ(0, iop_pwrite_all(self->fd, self->buf, LEN, 0));
	ASSERT_EQ(0, fsync(self->fd));
	/* the cache emptied, then filled again a page at a time */
	ASSERT_EQ(0, posix_fadvise(self->fd, 0, LEN, POSIX_FADV_DONTNEED));
	ASSERT_EQ(0, posix_fadvise(self->fd, 0, LEN, POSIX_FADV_RANDOM));
	for (off = 0; off < LEN; off += PAGE)
		ASSERT_EQ(0, iop_pread_all(self->fd, self->buf, PAGE, off));

	self->dfd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_DIRECT | O_NOFOLLOW, 0);
	ASSERT_LE(0, self->dfd) TH_LOG("open f O_DIRECT: %s", strerror(-self->dfd));
	memset(self->buf, 0x22, LEN);
	ASSERT_EQ(0, iop_pwrite_all(self->dfd, self->buf, LEN, 0));

	memset(self->buf, 0, LEN);
	ASSERT_EQ(0, iop_pread_all(self->fd, self->buf, LEN, 0));
	for (i = 0; i < LEN && self->buf[i] == 0x22; i++)
		;
	EXPECT_EQ((size_t)LEN, i)
		TH_LOG("buffered read after the direct write: byte %zu (page %zu) is 0x%02x, written 0x22 (0x11: the stale page)",
		       i, i / PAGE, self->buf[i]);
}

TEST_HARNESS_MAIN
