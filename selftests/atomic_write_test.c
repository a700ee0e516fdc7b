// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Untorn (atomic) direct writes: what statx(STATX_WRITE_ATOMIC) promises
 * is what pwritev2(RWF_ATOMIC) does.
 *
 * statx reports the smallest and largest atomic write unit of a file
 * (stx_atomic_write_unit_min/max; XFS with reflink offers atomic writes in
 * software, through an out-of-place write and a remap; the suite's loop and
 * zram devices offer none in hardware). For every power of two from 512
 * bytes to twice the largest unit, an O_DIRECT RWF_ATOMIC write of that
 * length at an offset aligned to it must:
 *   - succeed whole, and read back as written, when it is a unit statx
 *     reports (min <= length <= max);
 *   - fail with EINVAL when it is not, and with EOPNOTSUPP on every
 *     length when statx reports no unit at all (max 0), changing nothing.
 * A kernel without atomic writes (no STATX_WRITE_ATOMIC in the statx
 * answer, before 6.11) skips.
 *
 * The bug it catches: a write path whose limits are not the ones statx
 * reports, such as a check against the largest unit that is off by one
 * (66-xfs-atomic-write-largest-unit-refused). XFS without reflink
 * is a variant of its own: generated sample 1's 016, a software atomic
 * limit of one block where there is no out-of-place write, prompted it;
 * that limit turned out to be read only where there is one, so the
 * variant checks that none is reported and every atomic write is refused.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"
#include "iop_statx.h"

#ifndef RWF_ATOMIC
#define RWF_ATOMIC 0x00000040
#endif
#define MAX_LEN (4u << 20)	/* the largest write tried */

FIXTURE(atomic_write) {
	struct iop_test_fs fs;
	int fd;
	uint8_t *buf;
	uint8_t *rbuf;
};

FIXTURE_VARIANT(atomic_write) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(atomic_write);
FIXTURE_VARIANT_ADD(atomic_write, xfs_noreflink) { IOP_FS_XFS_NOREFLINK };

FIXTURE_SETUP(atomic_write)
{
	self->fd = -1;
	self->buf = iop_alloc_aligned(MAX_LEN);
	self->rbuf = iop_alloc_aligned(MAX_LEN);
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(atomic_write)
{
	IOP_CLOSE_FDS(self->fd);
	free(self->buf);
	free(self->rbuf);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

TEST_F(atomic_write, statx_atomic_units_are_what_rwf_atomic_writes_do)
{
	struct iop_statx sx;
	uint32_t len, ok = 0, refused = 0;
	struct iovec v;
	char why[256];
	ssize_t n;
	int err, ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, self->buf);
	ASSERT_NE(NULL, self->rbuf);
	self->fd = iop_open_at(self->fs.scratch->mnt, "atomic",
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_DIRECT, 0644);
	ASSERT_LE(0, self->fd) TH_LOG("create O_DIRECT: %s", strerror(-self->fd));
	ret = iop_statx_fd(self->fd, IOP_STATX_BASIC | IOP_STATX_WRITE_ATOMIC, &sx);
	ASSERT_EQ(0, ret) TH_LOG("statx: %s", strerror(-ret));
	if (!(sx.mask & IOP_STATX_WRITE_ATOMIC))
		SKIP(return, "the kernel has no atomic writes (statx without STATX_WRITE_ATOMIC)");
	TH_LOG("%s: atomic write units %u to %u", variant->fstype, sx.awu_min, sx.awu_max);
	ASSERT_LE(sx.awu_min, sx.awu_max);

	for (len = 512; len <= MAX_LEN && (len <= 2 * (uint64_t)sx.awu_max || len <= 65536);
	     len <<= 1) {
		iop_pattern_fill(self->buf, len, len, len / 512);
		v.iov_base = self->buf;
		v.iov_len = len;
		errno = 0;
		n = pwritev2(self->fd, &v, 1, len, RWF_ATOMIC);
		err = errno;
		if (sx.awu_max && len >= sx.awu_min && len <= sx.awu_max) {
			EXPECT_EQ((ssize_t)len, n)
				TH_LOG("an atomic write of %u, a unit statx reports: %zd (%s)", len,
				       n, n < 0 ? strerror(err) : "short");
			if (n != (ssize_t)len)
				continue;
			ok++;
			ASSERT_EQ(0, iop_pread_all(self->fd, self->rbuf, len, len));
			EXPECT_EQ(0, iop_model_compare(self->rbuf, self->buf, 0, len, why,
						       sizeof(why)))
				TH_LOG("after the atomic write of %u at %u: %s", len, len, why);
			continue;
		}
		refused++;
		EXPECT_EQ(-1, n)
			TH_LOG("an atomic write of %u, not a unit statx reports (%u to %u), wrote %zd",
			       len, sx.awu_min, sx.awu_max, n);
		EXPECT_EQ(sx.awu_max ? EINVAL : EOPNOTSUPP, err)
			TH_LOG("an atomic write of %u (units %u to %u): %s", len, sx.awu_min,
			       sx.awu_max, strerror(err));
	}
	TH_LOG("%u lengths written atomically, %u refused", ok, refused);
}

TEST_HARNESS_MAIN
