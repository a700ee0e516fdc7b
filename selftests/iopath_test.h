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
 *
 * The harness is used as it is: SKIP() is the harness's own. It reports a
 * test that failed an EXPECT and then skipped as skipped
 * (docs/harness-bugs/skip-after-failed-check.md); the runners'
 * the verdict engine (lib/tap.c) counts that as a failure.
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
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "iopath.h"
#include "probe.h"

/*
 * selftests/Makefile defines HAVE_LIBURING when liburing is
 * installed; without it the io_uring cases skip with this reason.
 */
#define IOP_NO_LIBURING "built without liburing (apt-get install liburing-dev, then rebuild)"

/* Per-variant filesystem description; embed in FIXTURE_VARIANT. */
#define IOP_FS_VARIANT_FIELDS		\
	const char *fstype;		\
	const char *mkfs_opts;		\
	const char *mount_opts;		\
	unsigned int blksz;		\
	unsigned int cluster;		\
	bool reflink;			\
	bool dax

/*
 * The filesystem presets, the one table of them: IOP_FS_<NAME> is the
 * initializer of IOP_FS_VARIANT_FIELDS for the variant named <name> (or
 * <name>_<what else>, e.g. xfs_direct), in every test file, and the name
 * selftests/requirements and configs/known-failures match. ext4 and XFS
 * with 4 KiB blocks, and with 1 KiB blocks (smaller than a page); XFS
 * always with reflink, asked for rather than left to mkfs's default.
 * tests/lint.sh holds every variant to its name.
 */
#define IOP_FS_EXT4	.fstype = "ext4", .mkfs_opts = "", .blksz = 4096
#define IOP_FS_EXT4_1K	.fstype = "ext4", .mkfs_opts = "-b 1024", .blksz = 1024
/*
 * ext4 with xattr values in inodes of their own (mkfs -O ea_inode): a
 * value larger than a block lives in an EA inode's data blocks, read
 * through ext4_bread_batch().
 */
#define IOP_FS_EXT4_EA_INODE	.fstype = "ext4", .mkfs_opts = "-O ea_inode", .blksz = 4096
/*
 * ext4 without a journal: fsync writes the inode's table block itself
 * (ext4_fsync_nojournal() -> ext4_write_inode()).
 */
#define IOP_FS_EXT4_NOJOURNAL	.fstype = "ext4", .mkfs_opts = "-O ^has_journal", .blksz = 4096
/*
 * ext4 without hashed directories (mkfs -O ^dir_index): a directory is a
 * list of blocks, looked up by reading them in batches
 * (ext4_bread_batch()), 1 KiB blocks so that a few files fill several.
 */
#define IOP_FS_EXT4_NO_DIR_INDEX .fstype = "ext4", .mkfs_opts = "-b 1024 -O ^dir_index", \
				 .blksz = 1024
/*
 * ext4 with bigalloc: blocks allocated in clusters of .cluster bytes (16
 * blocks), and mapped so that a logical cluster lies in one physical
 * cluster; collapse and insert range move whole clusters only. (.cluster
 * is 0 where the allocation unit is the block.)
 */
#define IOP_FS_EXT4_BIGALLOC	.fstype = "ext4", .mkfs_opts = "-b 4096 -O bigalloc -C 65536", \
				.blksz = 4096, .cluster = 65536
#define IOP_FS_XFS	.fstype = "xfs", .mkfs_opts = "-m reflink=1", .blksz = 4096, .reflink = true
#define IOP_FS_XFS_1K	.fstype = "xfs", .mkfs_opts = "-b size=1024 -m reflink=1", .blksz = 1024, \
			.reflink = true
/*
 * XFS without reflink: no out-of-place writes, so no COW fork, and none of
 * what is built on it (software atomic writes among them).
 */
#define IOP_FS_XFS_NOREFLINK .fstype = "xfs", .mkfs_opts = "-m reflink=0", .blksz = 4096
/*
 * XFS on a striped volume (mkfs -d su=,sw=, as on RAID): allocations at
 * the end of a file are rounded to the stripe unit, IOP_XFS_STRIPE_UNIT.
 */
#define IOP_XFS_STRIPE_UNIT	(64 * 1024)
#define IOP_FS_XFS_STRIPE .fstype = "xfs", .mkfs_opts = "-m reflink=1 -d su=64k,sw=2", \
			  .blksz = 4096, .reflink = true

/*
 * File system DAX (mount -o dax=always): the filesystem goes on the
 * DAX-capable device the user named as scratch (IOPATH_SCRATCH_DAX_DEV;
 * iopath vm names an emulated pmem region), never on zram or loop, which
 * offer no DAX. DAX maps a page of the device per page of the file, so
 * the block size is the page size (mke2fs would pick 1 KiB blocks for a
 * device under 512 MiB).
 */
#define IOP_FS_EXT4_DAX	.fstype = "ext4", .mkfs_opts = "-b 4096", .mount_opts = "dax=always", \
			.blksz = 4096, .dax = true
#define IOP_FS_XFS_DAX	.fstype = "xfs", .mkfs_opts = "-m reflink=1", .mount_opts = "dax=always", \
			.blksz = 4096, .reflink = true, .dax = true

struct iop_test_fs {
	struct iop_scratch *scratch;
	struct iop_kmsg_mark mark;
	bool marked;
	char skip[256];		/* non-empty: the body skips with this reason */
	char error[256];	/* non-empty: the body fails with this reason */
	char kmsg_why[160];	/* why the kernel log cannot be checked */
	bool kmsg_tried;	/* the test wants its kernel log checked */
};

/*
 * Mark the kernel log for the post-test check. A marker that cannot be
 * written or never shows up in the log (printk_devkmsg=off accepts and
 * drops it) leaves the reason, and the teardown fails the test with it.
 */
static inline void iop_test_kmsg_mark(struct iop_test_fs *fs)
{
	int ret = iop_kmsg_mark(&fs->mark, "selftest");

	fs->kmsg_tried = true;
	fs->marked = ret == 0;
	if (ret == -ENOENT)
		snprintf(fs->kmsg_why, sizeof(fs->kmsg_why),
			 "the marker written to /dev/kmsg never reached the log (printk_devkmsg=off drops it)");
	else if (ret)
		snprintf(fs->kmsg_why, sizeof(fs->kmsg_why), "marker: %s", strerror(-ret));
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

/*
 * Call from FIXTURE_SETUP. Never fails the setup itself. @want gives the
 * filesystem (fstype, mkfs_opts, mount_opts) and optionally the size and
 * the loop device's sector size; the environment chooses the backing. A
 * sector size moves a zram or default backing to a loop device; a device
 * or directory the user named is taken as it is (the test checks what it
 * got).
 */
static inline void iop_test_fs_setup_opts(struct iop_test_fs *fs,
					  const struct iop_scratch_opts *want)
{
	const char *fstype = want->fstype, *mkfs_opts = want->mkfs_opts;
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
	if (want->sector_size) {
		if (o.backing == IOP_BACKING_DEFAULT || o.backing == IOP_BACKING_ZRAM)
			o.backing = IOP_BACKING_LOOP;
		if (o.backing == IOP_BACKING_LOOP)
			o.sector_size = want->sector_size;
	}
	if (want->size && !o.size)
		o.size = want->size;
	o.fstype = fstype;
	o.mkfs_opts = mkfs_opts;
	o.mount_opts = want->mount_opts;
	/*
	 * Without its mkfs or its checker the test cannot run: a SKIP with
	 * the reason, found by looking for the tools before anything is
	 * made. An existing directory needs neither.
	 */
	if ((o.backing != IOP_BACKING_DIR || want->dax) &&
	    iop_scratch_tools(fstype, why, sizeof(why))) {
		snprintf(fs->skip, sizeof(fs->skip), "%s", why);
		return;
	}
	if (want->dax) {
		/*
		 * Only a device that offers DAX can be mounted dax=always: a
		 * kernel or machine without one skips (probed); a named
		 * device that is not one fails in the setup below.
		 */
		if (iop_probe("fs_dax", why, sizeof(why)) <= 0) {
			struct stat st;

			if (o.dax_device && (stat(o.dax_device, &st) || !S_ISBLK(st.st_mode)))
				snprintf(fs->error, sizeof(fs->error),
					 "IOPATH_SCRATCH_DAX_DEV %.160s: not a block device",
					 o.dax_device);
			else
				snprintf(fs->skip, sizeof(fs->skip), "%s", why);
			return;
		}
		o.backing = IOP_BACKING_DEVICE;
		o.device = o.dax_device;
		o.dax = true;
	}
	iop_test_kmsg_mark(fs);
	/*
	 * Out of reach of mount namespace copies (see scratch.h). Where that
	 * cannot be had (/ not a mount point, a plain chroot), nothing is
	 * mounted: a SKIP naming what the machine lacks, probed first.
	 */
	if (iop_scratch_namespace_check(why, sizeof(why)) == 1) {
		snprintf(fs->skip, sizeof(fs->skip), "%s scratch: %s", fstype, why);
		return;
	}
	ret = iop_scratch_private_mounts(why, sizeof(why));
	if (ret) {
		snprintf(fs->error, sizeof(fs->error), "%s scratch: %s", fstype, why);
		return;
	}
	ret = iop_scratch_create(&o, &fs->scratch, why, sizeof(why));
	if (!ret)
		return;
	fs->scratch = NULL;
	/*
	 * A skip only for what the kernel lacks (probed) or what the user
	 * chose (an existing directory of another type); any other error of
	 * the setup is a failure, whatever its errno.
	 */
	if (o.backing == IOP_BACKING_DIR && ret == -EOPNOTSUPP)
		snprintf(fs->skip, sizeof(fs->skip), "IOPATH_SCRATCH_DIR: %s", why);
	else if (!iop_probe_fs(fstype))
		snprintf(fs->skip, sizeof(fs->skip), "the kernel has no %s", fstype);
	else
		snprintf(fs->error, sizeof(fs->error), "%s scratch: %s", fstype,
			 why[0] ? why : strerror(-ret));
}

/* Call from FIXTURE_SETUP. Never fails the setup itself. */
static inline void iop_test_fs_setup(struct iop_test_fs *fs, const char *fstype,
				     const char *mkfs_opts, const char *mount_opts)
{
	const struct iop_scratch_opts want = {
		.fstype = fstype, .mkfs_opts = mkfs_opts, .mount_opts = mount_opts,
	};

	iop_test_fs_setup_opts(fs, &want);
}

/*
 * Call from FIXTURE_TEARDOWN (as IOP_TEST_FS_TEARDOWN(fs)): checks the
 * filesystem and the kernel log, then destroys the scratch. A dirty log or
 * filesystem fails the test, and so does a check that could not run (an
 * installed checker that does not run, the marker dropped, the log
 * unreadable; a checker not installed is a SKIP before the test, see
 * iop_test_fs_setup()); only an existing directory (IOPATH_SCRATCH_DIR)
 * is not checked, and the line after says so.
 * "after-test checks: ..." is what the verdict engine counts for the
 * coverage block; "post-test ...:" marks failures no known bug excuses.
 */
static inline void iop_test_fs_teardown(struct __test_metadata *_metadata,
					struct iop_test_fs *fs)
{
	char why[512] = "", fsck[200] = "ran", kmsg[200] = "ran";
	int n;

	/*
	 * After a failed ASSERT this runs inside the ASSERT's handler loop:
	 * an EXPECT here with a handler (EXPECT_EQ(...) TH_LOG(...)) would run
	 * it even when it passes. So no EXPECT here has a handler; the line
	 * after a failed one says what failed.
	 */
	if (fs->skip[0] || !fs->kmsg_tried) {
		/* skipped: nothing ran to check */
		iop_scratch_destroy(fs->scratch);
		fs->scratch = NULL;
		return;
	}
	if (fs->scratch) {
		n = iop_scratch_fsck(fs->scratch, why, sizeof(why));
		if (fs->scratch->backing == IOP_BACKING_DIR) {
			snprintf(fsck, sizeof(fsck), "not run (%.160s)", why);
			n = 0;
		}
		EXPECT_EQ(0, n);
		if (n)
			TH_LOG("post-test fsck: %s", why);
		iop_scratch_destroy(fs->scratch);
		fs->scratch = NULL;
	} else {
		snprintf(fsck, sizeof(fsck), "none (no scratch filesystem)");
	}
	if (fs->marked) {
		n = iop_kmsg_scan(&fs->mark, why, sizeof(why));
		if (n < 0)
			snprintf(why, sizeof(why), "cannot read /dev/kmsg: %s", strerror(-n));
		EXPECT_EQ(0, n);
		if (n)
			TH_LOG("post-test kernel log: %s", why);
	} else {
		snprintf(kmsg, sizeof(kmsg), "not run (%.160s)", fs->kmsg_why);
		EXPECT_TRUE(fs->marked);
		TH_LOG("post-test kernel log: not checked: %s", fs->kmsg_why);
	}
	TH_LOG("after-test checks: fsck %s, kernel log %s", fsck, kmsg);
}

#define IOP_TEST_FS_TEARDOWN(fs) iop_test_fs_teardown(_metadata, fs)

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
