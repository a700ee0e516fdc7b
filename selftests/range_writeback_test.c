// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Write-back that is not for data integrity still writes the dirty pages
 * it is asked to.
 *
 * sync_file_range(SYNC_FILE_RANGE_WRITE) starts write-out of every dirty
 * page of the range not already under write-back, as a WB_SYNC_NONE
 * write-back (the flusher threads' kind; given both waits as well, the
 * kernel makes the same call a WB_SYNC_ALL one); a second call with
 * SYNC_FILE_RANGE_WAIT_AFTER returns once that write-out is done. Nothing
 * else in the range is busy, so afterwards no page of it is dirty or under
 * write-back: cachestat(2) counts them. fsync (WB_SYNC_ALL) is the other
 * kind and hides a mistake here, so the test never calls it.
 *
 * The bug it catches: ext4 write-back skipping every folio of a
 * WB_SYNC_NONE pass instead of only those already under write-back
 * (82-ext4-background-writeback-skips-every-folio, generated sample 4's
 * 040-and-or-mpage_prepare_extent_to_map).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"
#include "iop_cachestat.h"

#define LEN	(256 * 1024)

FIXTURE(range_writeback) {
	struct iop_test_fs fs;
	int fd;
};

FIXTURE_VARIANT(range_writeback) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(range_writeback);

FIXTURE_SETUP(range_writeback)
{
	self->fd = -1;
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(range_writeback)
{
	IOP_CLOSE_FDS(self->fd);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

TEST_F(range_writeback, sync_file_range_write_then_wait_leaves_nothing_dirty)
{
	struct cachestat_v1 before, after;
	static uint8_t buf[LEN];
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			       0600);
	ASSERT_LE(0, self->fd) TH_LOG("create f: %s", strerror(-self->fd));
	memset(buf, 0x3c, sizeof(buf));
	ASSERT_EQ(0, iop_pwrite_all(self->fd, buf, LEN, 0));
	ret = iop_cachestat(self->fd, 0, LEN, &before);
	/* the one probe: a kernel without the system call */
	if (ret == -ENOSYS)
		SKIP(return, "the kernel has no cachestat(2)");
	ASSERT_EQ(0, ret) TH_LOG("cachestat: %s", strerror(-ret));
	/* the positive control: the write left dirty pages to write back */
	EXPECT_LT(0, before.nr_dirty + before.nr_writeback);

	/*
	 * WRITE alone: with both waits in the same call the kernel makes it
	 * a WB_SYNC_ALL write-back, as fsync's. The wait is a call of its own.
	 */
	ASSERT_EQ(0, sync_file_range(self->fd, 0, LEN, SYNC_FILE_RANGE_WRITE))
		TH_LOG("sync_file_range(WRITE): %s", strerror(errno));
	ASSERT_EQ(0, sync_file_range(self->fd, 0, LEN, SYNC_FILE_RANGE_WAIT_AFTER))
		TH_LOG("sync_file_range(WAIT_AFTER): %s", strerror(errno));
	ASSERT_EQ(0, iop_cachestat(self->fd, 0, LEN, &after));
	EXPECT_EQ(0, after.nr_dirty + after.nr_writeback)
		TH_LOG("after sync_file_range(WRITE), then (WAIT_AFTER): %llu dirty, %llu under write-back of %llu cached (%llu dirty before)",
		       (unsigned long long)after.nr_dirty, (unsigned long long)after.nr_writeback,
		       (unsigned long long)after.nr_cache, (unsigned long long)before.nr_dirty);
}

TEST_HARNESS_MAIN
