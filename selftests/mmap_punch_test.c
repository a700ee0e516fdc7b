// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bytes stored through a shared writable mapping after part of its page
 * was punched out or zeroed reach the disk.
 *
 * With blocks smaller than a page, a punch or zero range that covers some
 * blocks of a page frees them (or makes them unwritten) while the page
 * stays cached and mapped. If the page was already mapped writable, the
 * next store into those blocks must fault again, so that ->page_mkwrite
 * allocates them (or converts them) before write-back: the filesystem
 * write-protects the page's mappings before it cuts the blocks out
 * (ext4_truncate_page_cache_block_range(); XFS unmaps whole pages). A
 * store that does not fault dirties a page whose punched blocks have no
 * buffer to write, and write-back drops those bytes: after a remount the
 * range reads as the hole or the zeros, not as what was stored.
 *
 * Every filesystem preset runs it: with 4 KiB blocks the partial-block
 * punch zeroes inside an allocated block, and the stores must land too.
 *
 * The bug it catches: ext4 leaving a partial page's mappings writable
 * across a punch or zero range inside EOF
 * (75-ext4-punch-keeps-partial-page-writable, generated sample 4's
 * 007-relop-ext4_truncate_page_cache_block_range).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/falloc.h>

#include "iopath_test.h"
#include "iomap_layout.h"

#define PAGE	4096
#define CUT_AT	1024	/* the punched range: one 1 KiB block inside the page */
#define CUT_LEN	1024

FIXTURE(mmap_punch) {
	struct iop_test_fs fs;
	int fd;
	uint8_t *map;
};

FIXTURE_VARIANT(mmap_punch) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(mmap_punch);

FIXTURE_SETUP(mmap_punch)
{
	self->fd = -1;
	self->map = MAP_FAILED;
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(mmap_punch)
{
	if (self->map != MAP_FAILED)
		munmap(self->map, PAGE);
	IOP_CLOSE_FDS(self->fd);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/*
 * A page of 0x11 on disk, mapped shared and stored to (so its mapping is
 * writable and the page dirty), then @mode over [CUT_AT, +CUT_LEN), then
 * 0xcd stored into that range through the mapping; after msync and a
 * remount the file must read as stored.
 */
static void store_after_cut(struct __test_metadata *_metadata, FIXTURE_DATA(mmap_punch) *self,
			    int mode, const char *what)
{
	uint8_t want[PAGE], got[PAGE];
	size_t i;
	int ret;

	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			       0600);
	ASSERT_LE(0, self->fd) TH_LOG("create f: %s", strerror(-self->fd));
	memset(want, 0x11, sizeof(want));
	ASSERT_EQ(0, iop_pwrite_all(self->fd, want, PAGE, 0));
	ASSERT_EQ(0, fsync(self->fd));
	self->map = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->map) TH_LOG("mmap: %s", strerror(errno));
	/* a store: the page is faulted in writable and dirtied */
	self->map[0] = 0x22;
	want[0] = 0x22;
	ret = fallocate(self->fd, mode | FALLOC_FL_KEEP_SIZE, CUT_AT, CUT_LEN);
	ASSERT_EQ(0, ret) TH_LOG("%s [%d, +%d): %s", what, CUT_AT, CUT_LEN, strerror(errno));
	memset(self->map + CUT_AT, 0xcd, CUT_LEN);
	memset(want + CUT_AT, 0xcd, CUT_LEN);
	ASSERT_EQ(0, msync(self->map, PAGE, MS_SYNC)) TH_LOG("msync: %s", strerror(errno));
	munmap(self->map, PAGE);
	self->map = MAP_FAILED;
	ASSERT_EQ(0, fsync(self->fd));
	close(self->fd);
	self->fd = -1;

	ASSERT_EQ(0, iop_scratch_remount(self->fs.scratch)) TH_LOG("remount");
	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDONLY | O_NOFOLLOW, 0);
	ASSERT_LE(0, self->fd) TH_LOG("open f: %s", strerror(-self->fd));
	ASSERT_EQ(0, iop_pread_all(self->fd, got, PAGE, 0));
	for (i = 0; i < PAGE && got[i] == want[i]; i++)
		;
	EXPECT_EQ((size_t)PAGE, i)
		TH_LOG("after %s and stores through the mapping, byte %zu reads 0x%02x, stored 0x%02x",
		       what, i, got[i], want[i]);
}

TEST_F(mmap_punch, stores_after_punch_hole_inside_the_page_reach_the_disk)
{
	IOP_TEST_BEGIN(&self->fs);
	store_after_cut(_metadata, self, FALLOC_FL_PUNCH_HOLE, "punch hole");
}

TEST_F(mmap_punch, stores_after_zero_range_inside_the_page_reach_the_disk)
{
	IOP_TEST_BEGIN(&self->fs);
	store_after_cut(_metadata, self, FALLOC_FL_ZERO_RANGE, "zero range");
}

TEST_HARNESS_MAIN
