// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ext4 delayed-allocation write-back maps a contiguous dirty range in as
 * few calls as it may: ext4_do_writepages() gathers the delayed blocks of
 * consecutive dirty folios into one extent (mpage_add_bh_to_extent()), up
 * to the 2048 blocks mballoc allocates at once (MAX_WRITEPAGES_EXTENT_LEN),
 * and maps each extent with one ext4_map_blocks() call, in one handle.
 * The trace event ext4:ext4_da_write_pages_extent reports each extent
 * mapped; for 16 MiB written in one go and synced, the extents must cover
 * the file's blocks exactly, none longer than 2048 blocks, and be no more
 * than the 2048-block limit makes necessary (plus one, where the range
 * is cut at a folio the gathering stopped at).
 *
 * The bug it catches: a write-back that maps block by block, so a 16 MiB
 * file takes 4096 mappings and transactions where it took 2 (102-ext4-
 * writeback-extent-never-grows, generated sample 7's
 * 008-relop-mpage_add_bh_to_extent: the length limit's ">=" made "<").
 * The bytes are the same either way; only this count tells.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"
#include "tracefs.h"

#define FILE_LEN	(16u << 20)
#define MAX_EXTENT	2048	/* MAX_WRITEPAGES_EXTENT_LEN, in blocks */

FIXTURE(ext4_writeback) {
	struct iop_test_fs fs;
	struct iop_trace *trace;
	int fd;
	uint8_t *buf;
};

FIXTURE_VARIANT(ext4_writeback) {
	IOP_FS_VARIANT_FIELDS;
};

FIXTURE_VARIANT_ADD(ext4_writeback, ext4) { IOP_FS_EXT4 };
FIXTURE_VARIANT_ADD(ext4_writeback, ext4_1k) { IOP_FS_EXT4_1K };

FIXTURE_SETUP(ext4_writeback)
{
	self->trace = NULL;
	self->fd = -1;
	self->buf = iop_alloc_aligned(FILE_LEN);
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(ext4_writeback)
{
	IOP_CLOSE_FDS(self->fd);
	if (self->trace)
		iop_trace_close(self->trace);
	free(self->buf);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

struct extents {
	uint64_t ino;
	uint64_t n, blocks, longest, next;
	bool gap;
};

/* "dev M,m ino I lblk L len N flags F": the extents of one inode, in order */
static int count_extent(const struct iop_trace_event *ev, void *arg)
{
	struct extents *x = arg;
	unsigned long long ino, lblk;
	unsigned int len;

	if (strcmp(ev->event, "ext4_da_write_pages_extent") ||
	    sscanf(ev->fields, "dev %*d,%*d ino %llu lblk %llu len %u", &ino, &lblk, &len) != 3 ||
	    ino != x->ino)
		return 0;
	if (lblk != x->next)
		x->gap = true;
	x->next = lblk + len;
	x->n++;
	x->blocks += len;
	if (len > x->longest)
		x->longest = len;
	return 0;
}

TEST_F(ext4_writeback, delalloc_writeback_maps_a_contiguous_range_in_the_fewest_extents)
{
	struct extents x = { 0 };
	char why[256], filter[64];
	uint64_t blocks, most;
	struct stat st;
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, self->buf);
	/* A skip only where the kernel has no tracefs; then any failure is ours. */
	if (iop_probe("tracefs_iomap", why, sizeof(why)) == 0)
		SKIP(return, "%s", why);
	ret = iop_trace_open(&self->trace);
	ASSERT_EQ(0, ret) TH_LOG("tracefs: %s", strerror(-ret));
	ASSERT_TRUE(iop_trace_has_event(self->trace, "ext4", "ext4_da_write_pages_extent"))
		TH_LOG("the trace instance has no ext4:ext4_da_write_pages_extent event");

	self->fd = iop_open_at(self->fs.scratch->mnt, "f",
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(-self->fd));
	ASSERT_EQ(0, fstat(self->fd, &st));
	snprintf(filter, sizeof(filter), "ino == %llu", (unsigned long long)st.st_ino);
	ret = iop_trace_enable(self->trace, "ext4", "ext4_da_write_pages_extent", filter);
	ASSERT_EQ(0, ret) TH_LOG("enable ext4:ext4_da_write_pages_extent: %s", strerror(-ret));
	ASSERT_EQ(0, iop_trace_start(self->trace));

	iop_pattern_fill(self->buf, 0, FILE_LEN, 102);
	ASSERT_EQ(0, iop_pwrite_all(self->fd, self->buf, FILE_LEN, 0));
	ASSERT_EQ(0, fsync(self->fd));
	ASSERT_EQ(0, iop_trace_stop(self->trace));

	x.ino = st.st_ino;
	ret = iop_trace_read(self->trace, count_extent, &x);
	ASSERT_LE(0, ret) TH_LOG("reading the trace: %s", strerror(-ret));
	blocks = FILE_LEN / variant->blksz;
	most = (blocks + MAX_EXTENT - 1) / MAX_EXTENT + 1;
	TH_LOG("%" PRIu64 " blocks written back in %" PRIu64 " extents, the longest %" PRIu64,
	       x.blocks, x.n, x.longest);
	EXPECT_EQ(blocks, x.blocks) TH_LOG("the extents mapped cover %" PRIu64 " blocks", x.blocks);
	EXPECT_FALSE(x.gap) TH_LOG("the extents are not in order, one after the other");
	EXPECT_GE(MAX_EXTENT, x.longest) TH_LOG("an extent of %" PRIu64 " blocks", x.longest);
	EXPECT_GE(most, x.n) TH_LOG("%" PRIu64 " extents where %" PRIu64 " blocks need %" PRIu64,
				    x.n, blocks, most);
}

TEST_HARNESS_MAIN
