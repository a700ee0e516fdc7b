// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An XFS extent size hint makes allocations whole hint units.
 *
 * A file given a hint (FS_IOC_FSSETXATTR, FS_XFLAG_EXTSIZE, as
 * `xfs_io -c "extsize 1m"` and VM image tools set it) is allocated in
 * units of the hint, aligned to it: fallocate() of a few blocks at the
 * start of a unit, or inside one, allocates the whole unit
 * (xfs_alloc_file_space() rounds the range out to the hint and reserves
 * blocks for all of it), the blocks outside the request unwritten, and
 * the file reads back as written.
 *
 * A buffered write to such a file is mapped without delayed allocation,
 * by the direct-write mapper (xfs_buffered_write_iomap_begin() ->
 * xfs_direct_write_iomap_begin()), and the write checks each mapping it
 * gets against the inode's sequence before it copies (xfs_iomap_valid()).
 *
 * The bugs it catches: a reservation computed for a range not rounded
 * out the way the allocation is (generated sample 5's
 * 009-call-void-xfs_alloc_file_space: the end rounded by the start's
 * remainder): the transaction uses more blocks than it reserved and XFS
 * shuts down; an allocation that ignores the hint; a mapping the write
 * never finds valid, so it maps again forever (generated sample 5's
 * 010-call-zero-xfs_direct_write_iomap_begin: the cookie left 0).
 *
 * The same mapper serves the zeroing of such a file, and reports unwritten
 * blocks as they are, without the batch of dirty folios the delalloc
 * mapper gathers: iomap_zero_range() writes back the dirty page cache over
 * them first (iomap_zero_iter_flush_and_stale()) and maps again, so what
 * the page holds is zeroed (written back, the blocks are written) and not
 * skipped (still unwritten, so they would read as zeros). A file extended
 * from an EOF inside an unwritten block, with bytes stored past EOF
 * through mmap, must read zeros from the old EOF on: the zeroing is all
 * that clears them when the extension stays inside the EOF block
 * (pagecache_isize_extended() clears only a new block's head). The test
 * extends by one byte, the smallest range, where a flush one byte short
 * flushes nothing (107-iomap-zero-flush-one-byte-short, generated sample
 * 7's 013-off-by-one-iomap_zero_iter_flush_and_stale).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"

#define HINT	(1024 * 1024)
#define REQ_LEN	8192		/* each request: at the second unit's start, inside the first */

FIXTURE(extsize_hint) {
	struct iop_test_fs fs;
	int fd;
};

FIXTURE_VARIANT(extsize_hint) {
	IOP_FS_VARIANT_FIELDS;
};

FIXTURE_VARIANT_ADD(extsize_hint, xfs) { IOP_FS_XFS };
FIXTURE_VARIANT_ADD(extsize_hint, xfs_1k) { IOP_FS_XFS_1K };

FIXTURE_SETUP(extsize_hint)
{
	self->fd = -1;
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(extsize_hint)
{
	IOP_CLOSE_FDS(self->fd);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/* Give the empty file @fd a hint of @hint bytes: 0 or -errno. */
static int set_hint(int fd, unsigned int hint)
{
	struct fsxattr fsx;

	if (ioctl(fd, FS_IOC_FSGETXATTR, &fsx))
		return -errno;
	fsx.fsx_xflags |= FS_XFLAG_EXTSIZE;
	fsx.fsx_extsize = hint;
	if (ioctl(fd, FS_IOC_FSSETXATTR, &fsx))
		return -errno;
	return 0;
}

/* @self->fd: the new file "f", given a hint of HINT bytes. */
static void hinted_file(struct __test_metadata *_metadata, FIXTURE_DATA(extsize_hint) *self)
{
	int ret;

	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			       0600);
	ASSERT_LE(0, self->fd) TH_LOG("create f: %s", strerror(-self->fd));
	/* XFS has taken hints since its first release: a refusal is a failure */
	ret = set_hint(self->fd, HINT);
	ASSERT_EQ(0, ret) TH_LOG("extent size hint %d: %s", HINT, strerror(-ret));
}

TEST_F(extsize_hint, fallocate_of_a_few_blocks_allocates_whole_units)
{
	static const off_t req[] = { HINT, 4096 };
	uint8_t buf[REQ_LEN], back[REQ_LEN];
	unsigned int i;
	struct iop_fiemap f;
	struct stat st;
	int n;

	IOP_TEST_BEGIN(&self->fs);
	hinted_file(_metadata, self);

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, fallocate(self->fd, 0, req[i], REQ_LEN))
			TH_LOG("fallocate [%lld, +%d) with a %d-byte hint: %s", (long long)req[i],
			       REQ_LEN, HINT, strerror(errno));
		ASSERT_EQ(0, fstat(self->fd, &st));
		EXPECT_EQ((i + 1) * (long long)HINT, (long long)st.st_blocks * 512)
			TH_LOG("fallocate [%lld, +%d) with a %d-byte hint: %lld bytes allocated",
			       (long long)req[i], REQ_LEN, HINT, (long long)st.st_blocks * 512);
	}
	EXPECT_EQ(HINT + REQ_LEN, st.st_size);
	/* the first unit, from its start, unwritten */
	n = iop_fiemap(self->fd, 0, HINT, &f);
	ASSERT_LT(0, n) TH_LOG("FIEMAP: %s", strerror(n ? -n : ENODATA));
	EXPECT_EQ(0, f.ext[0].fe_logical);
	EXPECT_NE(0, f.ext[0].fe_flags & FIEMAP_EXTENT_UNWRITTEN)
		TH_LOG("extent at 0: flags 0x%x", f.ext[0].fe_flags);

	/* the allocation is usable: written, synced, read back */
	iop_pattern_fill(buf, req[1], REQ_LEN, 61);
	ASSERT_EQ(0, iop_pwrite_all(self->fd, buf, REQ_LEN, req[1]));
	ASSERT_EQ(0, fsync(self->fd)) TH_LOG("fsync: %s", strerror(errno));
	ASSERT_EQ(0, posix_fadvise(self->fd, 0, 0, POSIX_FADV_DONTNEED));
	ASSERT_EQ(0, iop_pread_all(self->fd, back, REQ_LEN, req[1]));
	EXPECT_EQ(0, memcmp(buf, back, REQ_LEN));
}

#define OLD_EOF		5000	/* inside the second page, not on a block boundary */

TEST_F(extsize_hint, extension_by_a_byte_zeroes_what_mmap_left_past_eof)
{
	const off_t page = OLD_EOF / 4096 * 4096;
	uint8_t back[4096], want[4096];
	struct iop_fiemap f;
	uint8_t *map;
	int n;

	IOP_TEST_BEGIN(&self->fs);
	hinted_file(_metadata, self);
	/* unwritten blocks under the whole page, and the size on disk */
	ASSERT_EQ(0, fallocate(self->fd, 0, 0, OLD_EOF)) TH_LOG("fallocate: %s", strerror(errno));
	n = iop_fiemap(self->fd, page, 4096, &f);
	ASSERT_LT(0, n) TH_LOG("FIEMAP: %s", strerror(n ? -n : ENODATA));
	ASSERT_NE(0, f.ext[0].fe_flags & FIEMAP_EXTENT_UNWRITTEN)
		TH_LOG("extent at %llu: flags 0x%x, not unwritten",
		       (unsigned long long)f.ext[0].fe_logical, f.ext[0].fe_flags);

	/* the EOF page dirtied through a mapping: data before EOF, more after it */
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, page);
	ASSERT_NE(MAP_FAILED, map) TH_LOG("mmap: %s", strerror(errno));
	memset(map, 'D', OLD_EOF - page);
	memset(map + (OLD_EOF - page), 'S', 4096 - (OLD_EOF - page));
	ASSERT_EQ(0, munmap(map, 4096));

	ASSERT_EQ(0, ftruncate(self->fd, OLD_EOF + 1)) TH_LOG("truncate up: %s", strerror(errno));
	memset(want, 'D', OLD_EOF - page);
	want[OLD_EOF - page] = 0;
	ASSERT_EQ(0, iop_pread_all(self->fd, back, OLD_EOF + 1 - page, page));
	EXPECT_EQ(0, back[OLD_EOF - page])
		TH_LOG("byte %d, the old EOF, reads 0x%02x after a one-byte extension", OLD_EOF,
		       back[OLD_EOF - page]);
	EXPECT_EQ(0, memcmp(back, want, OLD_EOF - page))
		TH_LOG("the EOF page's bytes before the old EOF changed");
	/* and on disk */
	ASSERT_EQ(0, fsync(self->fd)) TH_LOG("fsync: %s", strerror(errno));
	ASSERT_EQ(0, posix_fadvise(self->fd, 0, 0, POSIX_FADV_DONTNEED));
	ASSERT_EQ(0, iop_pread_all(self->fd, back, OLD_EOF + 1 - page, page));
	EXPECT_EQ(0, memcmp(back, want, OLD_EOF + 1 - page))
		TH_LOG("after fsync and DONTNEED: byte %d reads 0x%02x", OLD_EOF,
		       back[OLD_EOF - page]);
}

TEST_HARNESS_MAIN
