// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ext4 with bigalloc: a punch that ends inside a cluster leaves the
 * cluster allocated to the blocks after the punch.
 *
 * With bigalloc ext4 allocates and frees whole clusters (here four 4 KiB
 * blocks). A hole punched over the first blocks of a cluster frees
 * nothing of it: the blocks after the hole still live there. The kernel
 * marks that cluster "in use, do not free" before removing the range
 * (ext4_ext_remove_space(): the cluster of the block after the range's
 * end). Freed by mistake, the cluster reads as free in the bitmap while
 * the file still maps it; the next allocation hands it out again and
 * another file's data lands in this file's blocks.
 *
 * The test punches the first three blocks of a cluster, then fills the
 * filesystem's next allocations with another file, and checks that the
 * first file's remaining blocks kept their bytes; the teardown's e2fsck
 * sees a bitmap that disagrees with the extent tree.
 *
 * The bug it catches: the kept cluster computed from the block after the
 * next one (79-ext4-punch-frees-cluster-still-in-use, generated sample
 * 4's 012-off-by-one-ext4_ext_remove_space).
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
#include <linux/falloc.h>

#include "iopath_test.h"
#include "iomap_layout.h"

#define BLK		4096
#define CLUSTER		(4 * BLK)
#define FILE_LEN	(4 * CLUSTER)
#define OTHER_LEN	(4 << 20)	/* the allocations after the punch */

FIXTURE(ext4_cluster) {
	struct iop_test_fs fs;
	uint8_t *buf;
};

FIXTURE_VARIANT(ext4_cluster) {
	IOP_FS_VARIANT_FIELDS;
};

FIXTURE_VARIANT_ADD(ext4_cluster, ext4_bigalloc) { IOP_FS_EXT4_BIGALLOC };

FIXTURE_SETUP(ext4_cluster)
{
	/* aligned: the other file is written O_DIRECT */
	self->buf = iop_alloc_aligned(OTHER_LEN);
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(ext4_cluster)
{
	free(self->buf);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

TEST_F(ext4_cluster, punch_ending_inside_a_cluster_keeps_it_for_the_blocks_after)
{
	size_t i;
	int fd, other;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, self->buf);
	fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	ASSERT_LE(0, fd) TH_LOG("create f: %s", strerror(-fd));
	memset(self->buf, 0x11, FILE_LEN);
	ASSERT_EQ(0, iop_pwrite_all(fd, self->buf, FILE_LEN, 0));
	ASSERT_EQ(0, fsync(fd));
	/* blocks 0, 1 and 2: block 3 still lives in the first cluster */
	ASSERT_EQ(0, fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 3 * BLK))
		TH_LOG("punch [0, 12K): %s", strerror(errno));
	ASSERT_EQ(0, fsync(fd));
	close(fd);

	/* the next allocations: a freed cluster would be among them */
	other = iop_open_at(self->fs.scratch->mnt, "other",
			    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_DIRECT, 0600);
	ASSERT_LE(0, other) TH_LOG("create other: %s", strerror(-other));
	memset(self->buf, 0xee, OTHER_LEN);
	for (i = 0; i < OTHER_LEN; i += CLUSTER)
		ASSERT_EQ(0, iop_pwrite_all(other, self->buf + i, CLUSTER, i));
	ASSERT_EQ(0, fsync(other));
	close(other);

	ASSERT_EQ(0, iop_scratch_remount(self->fs.scratch)) TH_LOG("remount");
	fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDONLY | O_NOFOLLOW, 0);
	ASSERT_LE(0, fd) TH_LOG("open f: %s", strerror(-fd));
	ASSERT_EQ(0, iop_pread_all(fd, self->buf, FILE_LEN, 0));
	close(fd);
	for (i = 0; i < 3 * BLK && !self->buf[i]; i++)
		;
	EXPECT_EQ((size_t)3 * BLK, i) TH_LOG("byte %zu of the hole reads 0x%02x", i, self->buf[i]);
	for (i = 3 * BLK; i < FILE_LEN && self->buf[i] == 0x11; i++)
		;
	EXPECT_EQ((size_t)FILE_LEN, i)
		TH_LOG("byte %zu after the punch reads 0x%02x, written 0x11 (0xee: another file's)",
		       i, self->buf[i]);
}

TEST_HARNESS_MAIN
