/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every iopath selftest shares: a scratch filesystem per fixture
 * variant, skip-or-fail decisions made the same way everywhere, and the
 * post-test checks (kernel log clean since the test began, filesystem
 * checker clean).
 *
 * Portability across the 6.1 ... 7.x harness: FIXTURE_SETUP never SKIPs
 * (on 6.1 the body would still run); it records why, and the body starts
 * with IOP_TEST_BEGIN(), which skips or fails from the body. Only TEST_F is
 * used: the plain TEST() macro trips -Wunused-parameter under clang.
 */
#ifndef IOPATH_TEST_H
#define IOPATH_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "iopath.h"

/* Per-variant filesystem description; embed in FIXTURE_VARIANT. */
#define IOP_FS_VARIANT_FIELDS		\
	const char *fstype;		\
	const char *mkfs_opts;		\
	const char *mount_opts;		\
	unsigned int blksz;		\
	bool reflink

struct iop_test_fs {
	struct iop_scratch *scratch;
	struct iop_kmsg_mark mark;
	bool marked;
	char skip[256];		/* non-empty: the body skips with this reason */
	char error[256];	/* non-empty: the body fails with this reason */
};

/*
 * Errors that mean "this machine cannot run it", not "the kernel is wrong".
 * Not EPERM: root was checked first, and a scratch device the user named
 * but that is refused as unsafe (-EPERM, -EBUSY, -EEXIST) is a setup error
 * to fix, not a test to skip quietly.
 */
static inline bool iop_errno_is_skip(int err)
{
	switch (err) {
	case ENODEV: case ENOENT: case EOPNOTSUPP: case ENOSYS:
	case EACCES: case ENXIO:
		return true;
	default:
		return false;
	}
}

/*
 * The block size asked for by mkfs options ("-b 1024" for ext4,
 * "-b size=1024" for XFS), or 0.
 */
static inline unsigned long iop_mkfs_blksz(const char *opts)
{
	const char *p = opts;

	while (p && (p = strstr(p, "-b ")) != NULL) {
		p += 3;
		while (*p == ' ')
			p++;
		if (!strncmp(p, "size=", 5))
			p += 5;
		if (*p >= '0' && *p <= '9')
			return strtoul(p, NULL, 10);
	}
	return 0;
}

/* Call from FIXTURE_SETUP. Never fails the setup itself. */
static inline void iop_test_fs_setup(struct iop_test_fs *fs, const char *fstype,
				     const char *mkfs_opts, const char *mount_opts)
{
	struct iop_scratch_opts o = { 0 };
	char why[256] = "";
	int ret;

	memset(fs, 0, sizeof(*fs));
	if (geteuid() != 0) {
		snprintf(fs->skip, sizeof(fs->skip), "needs root to make a scratch filesystem");
		return;
	}
	ret = iop_scratch_opts_from_env(&o, why, sizeof(why));
	if (ret) {
		snprintf(fs->error, sizeof(fs->error), "environment: %s", why);
		return;
	}
	/*
	 * zram's logical block size is 4096 and a filesystem block cannot be
	 * smaller than the device's: sub-4K block sizes go on a loop device
	 * (512-byte sectors) unless the environment chose the backing.
	 */
	if (o.backing == IOP_BACKING_DEFAULT && iop_mkfs_blksz(mkfs_opts) &&
	    iop_mkfs_blksz(mkfs_opts) < 4096)
		o.backing = IOP_BACKING_LOOP;
	o.fstype = fstype;
	o.mkfs_opts = mkfs_opts;
	o.mount_opts = mount_opts;
	if (iop_kmsg_mark(&fs->mark, "selftest") == 0)
		fs->marked = true;
	ret = iop_scratch_create(&o, &fs->scratch, why, sizeof(why));
	if (ret) {
		snprintf(iop_errno_is_skip(-ret) ? fs->skip : fs->error, sizeof(fs->skip),
			 "%s scratch: %s", fstype, why[0] ? why : strerror(-ret));
		fs->scratch = NULL;
	}
}

/*
 * Call from FIXTURE_TEARDOWN: checks the kernel log and the filesystem,
 * then destroys the scratch. A dirty log or filesystem fails the test.
 */
#define IOP_TEST_FS_TEARDOWN(fs)						\
	do {									\
		char __why[512] = "";						\
		int __n = 0;							\
		/* A failed ASSERT leaves trigger set: the next TH_LOG would print. */ \
		_metadata->trigger = 0;						\
		if ((fs)->scratch && !(fs)->skip[0])				\
			__n = iop_scratch_fsck((fs)->scratch, __why, sizeof(__why)); \
		if (__n == -EOPNOTSUPP)						\
			__n = 0;						\
		EXPECT_EQ(0, __n) TH_LOG("filesystem check: %s", __why);	\
		iop_scratch_destroy((fs)->scratch);				\
		(fs)->scratch = NULL;						\
		__n = (fs)->marked ? iop_kmsg_scan(&(fs)->mark, __why, sizeof(__why)) : 0; \
		if (__n < 0)							\
			__n = 0;						\
		EXPECT_EQ(0, __n) TH_LOG("kernel log since test start: %s", __why); \
	} while (0)

/* First statement of every TEST_F body that uses a scratch filesystem. */
#define IOP_TEST_BEGIN(fs)							\
	do {									\
		if ((fs)->skip[0])						\
			SKIP(return, "%s", (fs)->skip);				\
		if ((fs)->error[0]) {						\
			TH_LOG("setup: %s", (fs)->error);			\
			ASSERT_TRUE(false);					\
		}								\
	} while (0)

#endif
