// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A write with RWF_NOWAIT that has nothing to wait for completes.
 *
 * RWF_NOWAIT asks for EAGAIN instead of blocking: on a lock another task
 * holds, on an allocation, on I/O. A buffered overwrite of blocks that
 * are allocated and cached, by the only task using the file, needs none
 * of that, and on a filesystem that takes nowait buffered writes (XFS,
 * FMODE_BUF_WASYNC) it must complete, as fstests' generic/471 holds
 * direct writes to; ext4 takes none and answers EOPNOTSUPP, never
 * EAGAIN. io_uring's first attempt at every write is such a write, and
 * falls back to a worker thread on EAGAIN: a filesystem that answers
 * EAGAIN always is slow there without a wrong byte, so only RWF_NOWAIT
 * shows it.
 *
 * The write can still meet a timestamp to update (file_modified() asks
 * for the wait then), so each try is made right after a plain write has
 * brought the timestamps up to date; one completed try of ten is enough.
 *
 * The bug it catches: XFS refusing every IOMAP_NOWAIT mapping with EAGAIN
 * as if its inode lock were taken (77-xfs-nowait-mapping-always-eagain,
 * generated sample 4's 015-call-zero-xfs_ilock_for_iomap).
 *
 * The same holds for a direct overwrite, on both filesystems (generic/471):
 * blocks allocated and written inside EOF need no allocation and, on
 * ext4, only the shared inode lock, which ext4 keeps for what
 * ext4_overwrite_io() finds mapped. A kernel that finds nothing mapped
 * takes the exclusive lock for every direct write, and answers EAGAIN to
 * every nowait one (117-ext4-overwrite-never-found, generated sample 8's
 * 029-drop-stmt-ext4_overwrite_io).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"

#ifndef RWF_NOWAIT
#define RWF_NOWAIT	0x00000008
#endif

#define FILE_LEN	(64 * 1024)
#define TRIES		10

FIXTURE(nowait) {
	struct iop_test_fs fs;
	int fd;
};

FIXTURE_VARIANT(nowait) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(nowait);

FIXTURE_SETUP(nowait)
{
	self->fd = -1;
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(nowait)
{
	IOP_CLOSE_FDS(self->fd);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/*
 * An RWF_NOWAIT write of @buf's first 4096 bytes at 4096 in @fd, tried up
 * to TRIES times, each right after a plain write at 8192 has brought the
 * timestamps up to date: what the last try returned, its errno in @err.
 */
static ssize_t nowait_overwrite(int fd, uint8_t *buf, int *err)
{
	struct iovec iov = { .iov_base = buf, .iov_len = 4096 };
	ssize_t n = -1;
	int i;

	*err = 0;
	for (i = 0; i < TRIES; i++) {
		memset(buf, 0x20 + i, 4096);
		if (pwrite(fd, buf, 4096, 8192) != 4096) {
			*err = errno ? errno : EIO;
			return -1;
		}
		n = pwritev2(fd, &iov, 1, 4096, RWF_NOWAIT);
		*err = n < 0 ? errno : 0;
		if (n >= 0 || *err != EAGAIN)
			break;
	}
	return n;
}

TEST_F(nowait, buffered_overwrite_of_cached_blocks_completes)
{
	/* XFS takes nowait buffered writes; ext4 refuses them whole */
	bool takes_nowait = !strcmp(variant->fstype, "xfs");
	static uint8_t buf[FILE_LEN];
	ssize_t n;
	int err;

	IOP_TEST_BEGIN(&self->fs);
	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			       0600);
	ASSERT_LE(0, self->fd) TH_LOG("create f: %s", strerror(-self->fd));
	memset(buf, 0x11, sizeof(buf));
	/* allocated on disk, then cached again */
	ASSERT_EQ(0, iop_pwrite_all(self->fd, buf, FILE_LEN, 0));
	ASSERT_EQ(0, fsync(self->fd));
	ASSERT_EQ(0, iop_pread_all(self->fd, buf, FILE_LEN, 0));

	n = nowait_overwrite(self->fd, buf, &err);
	if (takes_nowait) {
		EXPECT_EQ(4096, n)
			TH_LOG("RWF_NOWAIT overwrite of 4096 cached, allocated bytes: %zd (%s) on each of %d tries",
			       n, n < 0 ? strerror(err) : "short", TRIES);
	} else {
		EXPECT_EQ(EOPNOTSUPP, err)
			TH_LOG("RWF_NOWAIT buffered write on %s: %zd (%s), expected EOPNOTSUPP",
			       variant->fstype, n, n < 0 ? strerror(err) : "written");
	}
}

TEST_F(nowait, direct_overwrite_of_written_blocks_completes)
{
	uint8_t *buf;
	ssize_t n;
	int err;

	IOP_TEST_BEGIN(&self->fs);
	buf = iop_alloc_aligned(FILE_LEN);
	ASSERT_NE(NULL, buf);
	self->fd = iop_open_at(self->fs.scratch->mnt, "f",
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_DIRECT, 0600);
	ASSERT_LE(0, self->fd) TH_LOG("create f O_DIRECT: %s", strerror(-self->fd));
	memset(buf, 0x11, FILE_LEN);
	/* allocated and written on disk, inside EOF */
	ASSERT_EQ(0, iop_pwrite_all(self->fd, buf, FILE_LEN, 0));
	ASSERT_EQ(0, fsync(self->fd));

	n = nowait_overwrite(self->fd, buf, &err);
	free(buf);
	EXPECT_EQ(4096, n)
		TH_LOG("RWF_NOWAIT direct overwrite of 4096 written bytes: %zd (%s) on each of %d tries",
		       n, n < 0 ? strerror(err) : "short", TRIES);
}

TEST_HARNESS_MAIN
