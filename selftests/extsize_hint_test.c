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

TEST_F(extsize_hint, fallocate_of_a_few_blocks_allocates_whole_units)
{
	static const off_t req[] = { HINT, 4096 };
	uint8_t buf[REQ_LEN], back[REQ_LEN];
	unsigned int i;
	struct fsxattr fsx;
	struct iop_fiemap f;
	struct stat st;
	int n;

	IOP_TEST_BEGIN(&self->fs);
	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			       0600);
	ASSERT_LE(0, self->fd) TH_LOG("create f: %s", strerror(-self->fd));
	/* XFS has taken hints since its first release: a refusal is a failure */
	ASSERT_EQ(0, ioctl(self->fd, FS_IOC_FSGETXATTR, &fsx))
		TH_LOG("FS_IOC_FSGETXATTR: %s", strerror(errno));
	fsx.fsx_xflags |= FS_XFLAG_EXTSIZE;
	fsx.fsx_extsize = HINT;
	ASSERT_EQ(0, ioctl(self->fd, FS_IOC_FSSETXATTR, &fsx))
		TH_LOG("FS_IOC_FSSETXATTR extsize %d: %s", HINT, strerror(errno));

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

TEST_HARNESS_MAIN
