// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A file written once by appending and then closed keeps no blocks past
 * its end.
 *
 * XFS reserves space past EOF while a file grows by appends (speculative
 * preallocation), so that the file ends up in few extents. The first
 * close of a file opened for writing gives back what lies past EOF
 * (xfs_file_release() -> xfs_free_eofblocks(); later closes keep it, for
 * files that are opened and appended to again and again): a tree of
 * files unpacked one after another must not hold the space each one was
 * reserved while it grew. ext4 keeps its preallocation in the allocator,
 * never in the file, and holds to the same. The file's block count after
 * the close says it: no more than the size rounded up to blocks, plus a
 * little for mapping metadata.
 *
 * The bug it catches: a close that never trims the blocks past EOF
 * (76-xfs-close-keeps-eof-preallocation, generated sample 4's
 * 011-call-arg-xfs_file_release).
 *
 * An append-only file (chattr +a) is the exception: it will grow again,
 * and XFS keeps the blocks allocated past its end, on close and when its
 * inode leaves memory. The bug it catches: an eviction that trims them as
 * for any file (103-xfs-append-only-eof-blocks-trimmed, generated sample
 * 7's 010-flag-xfs_free_eofblocks).
 *
 * On a striped XFS a direct write past the end of a file at least a
 * stripe unit long is allocated up to the next stripe unit boundary
 * (xfs_iomap_eof_align_last_fsb()), so that the file's next extents start
 * on a stripe; a file smaller than the unit is not rounded. The bug it
 * catches: a kernel that stops aligning (generated sample 4's
 * 027-call-arg-xfs_eof_alignment), or aligns small files too.
 *
 * What XFS reserves past EOF grows with the extents before the write, up
 * to the largest extent a record holds (2^21 - 1 blocks): the write and
 * its preallocation together are one delayed extent, never longer. A
 * write at the end of a file of more than 2^20 contiguous blocks, more
 * than 2^21 blocks into it, on a filesystem with room (1 KiB blocks, a
 * sparse 16 GiB device), is preallocated up to that cap; a write that
 * crosses a 64 KiB boundary (the preallocation is measured from the
 * boundary before the write's last byte) has more than the cap asked
 * for, and must still get no more. The bug it
 * catches: a reservation whose length is not capped (121-xfs-delalloc-
 * reservation-past-the-extent-limit, generated sample 8's
 * 045-call-arg-xfs_bmapi_reserve_delalloc).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include "iopath_test.h"
#include "iomap_layout.h"

#define APPEND		(64 * 1024)		/* each write */
#define FILE_LEN	(8 * 1024 * 1024)	/* what the appends add up to */
#define META_SLACK	(64 * 1024)		/* mapping metadata st_blocks may count */

FIXTURE(eof_prealloc) {
	struct iop_test_fs fs;
	uint8_t *buf;
};

FIXTURE_VARIANT(eof_prealloc) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(eof_prealloc);

FIXTURE_SETUP(eof_prealloc)
{
	self->buf = malloc(APPEND);
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(eof_prealloc)
{
	free(self->buf);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

TEST_F(eof_prealloc, first_close_after_appends_leaves_no_blocks_past_eof)
{
	unsigned long long used, open_used;
	struct stat st;
	size_t done;
	int fd;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, self->buf);
	fd = iop_open_at(self->fs.scratch->mnt, "f",
			 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND, 0600);
	ASSERT_LE(0, fd) TH_LOG("create f: %s", strerror(-fd));
	for (done = 0; done < FILE_LEN; done += APPEND) {
		memset(self->buf, (int)(done / APPEND), APPEND);
		ASSERT_EQ(APPEND, write(fd, self->buf, APPEND))
			TH_LOG("append at %zu: %s", done, strerror(errno));
	}
	/*
	 * The positive control: on XFS the appends were given blocks past
	 * EOF, so there is something for the close to trim.
	 */
	ASSERT_EQ(0, fstat(fd, &st));
	open_used = (unsigned long long)st.st_blocks * 512;
	if (!strcmp(variant->fstype, "xfs"))
		EXPECT_LT((unsigned long long)FILE_LEN + META_SLACK, open_used)
			TH_LOG("while open, the appended file holds %llu bytes of blocks: no preallocation past EOF to trim",
			       open_used);
	ASSERT_EQ(0, close(fd));

	/* a read-only open and close trims nothing: fstat through it */
	fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDONLY | O_NOFOLLOW, 0);
	ASSERT_LE(0, fd) TH_LOG("open f: %s", strerror(-fd));
	ASSERT_EQ(0, fstat(fd, &st));
	close(fd);
	ASSERT_EQ(FILE_LEN, st.st_size);
	used = (unsigned long long)st.st_blocks * 512;
	EXPECT_GE((unsigned long long)FILE_LEN + META_SLACK, used)
		TH_LOG("after the close a %d-byte file holds %llu bytes of blocks (%llu while open)",
		       FILE_LEN, used, open_used);
}

/*
 * An append-only file (chattr +a) is one that will grow again: XFS keeps
 * the blocks it allocated past EOF when it is closed (xfs_file_release()
 * skips such a file) and when its inode leaves memory (xfs_inactive() ->
 * xfs_free_eofblocks(), which gives back only reservations not yet
 * allocated: "leave speculative preallocations in place for preallocated
 * files", append-only ones among them). The appends are synced before the
 * close, so the space past EOF is allocated by then; a remount takes the
 * inode out of memory. ext4 holds none in the file either way.
 */
TEST_F(eof_prealloc, append_only_file_keeps_its_allocation_past_eof_on_eviction)
{
	unsigned long long used, open_used;
	bool xfs = !strcmp(variant->fstype, "xfs");
	int fd, flags, ret;
	struct stat st;
	size_t done;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, self->buf);
	fd = iop_open_at(self->fs.scratch->mnt, "f",
			 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND, 0600);
	ASSERT_LE(0, fd) TH_LOG("create f: %s", strerror(-fd));
	ASSERT_EQ(0, ioctl(fd, FS_IOC_GETFLAGS, &flags)) TH_LOG("FS_IOC_GETFLAGS: %s", strerror(errno));
	flags |= FS_APPEND_FL;
	ASSERT_EQ(0, ioctl(fd, FS_IOC_SETFLAGS, &flags)) TH_LOG("chattr +a: %s", strerror(errno));
	for (done = 0; done < FILE_LEN; done += APPEND) {
		memset(self->buf, (int)(done / APPEND), APPEND);
		ASSERT_EQ(APPEND, write(fd, self->buf, APPEND))
			TH_LOG("append at %zu: %s", done, strerror(errno));
	}
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, fstat(fd, &st));
	open_used = (unsigned long long)st.st_blocks * 512;
	/* the positive control, as above: something past EOF to keep */
	if (xfs)
		EXPECT_LT((unsigned long long)FILE_LEN + META_SLACK, open_used)
			TH_LOG("after fsync the appended file holds %llu bytes of blocks: nothing past EOF",
			       open_used);
	ASSERT_EQ(0, close(fd));
	ret = iop_scratch_remount(self->fs.scratch);
	ASSERT_EQ(0, ret) TH_LOG("remount: %s", strerror(-ret));

	fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDONLY | O_NOFOLLOW, 0);
	ASSERT_LE(0, fd) TH_LOG("open f: %s", strerror(-fd));
	ASSERT_EQ(0, fstat(fd, &st));
	/* the flag off again, so that nothing is left that cannot be removed */
	flags &= ~FS_APPEND_FL;
	ret = ioctl(fd, FS_IOC_SETFLAGS, &flags);
	close(fd);
	ASSERT_EQ(0, ret) TH_LOG("chattr -a: %s", strerror(errno));
	used = (unsigned long long)st.st_blocks * 512;
	if (xfs) {
		EXPECT_EQ(open_used, used)
			TH_LOG("the inode's eviction took an append-only file's blocks past EOF: %llu bytes of blocks, %llu before",
			       used, open_used);
	} else {
		EXPECT_GE((unsigned long long)FILE_LEN + META_SLACK, used)
			TH_LOG("a %d-byte file holds %llu bytes of blocks", FILE_LEN, used);
	}
}

FIXTURE(eof_stripe) {
	struct iop_test_fs fs;
};

FIXTURE_VARIANT(eof_stripe) {
	IOP_FS_VARIANT_FIELDS;
};

FIXTURE_VARIANT_ADD(eof_stripe, xfs_stripe) { IOP_FS_XFS_STRIPE };

FIXTURE_SETUP(eof_stripe)
{
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(eof_stripe)
{
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

#define STRIPE_FIRST	(2 * IOP_XFS_STRIPE_UNIT)	/* from an empty file */
#define STRIPE_NEXT	4096				/* then past EOF */

TEST_F(eof_stripe, direct_write_past_eof_allocates_to_a_stripe_unit_boundary)
{
	const unsigned long long size = STRIPE_FIRST + STRIPE_NEXT;
	const unsigned long long aligned = (size + IOP_XFS_STRIPE_UNIT - 1) /
					   IOP_XFS_STRIPE_UNIT * IOP_XFS_STRIPE_UNIT;
	unsigned long long used;
	struct stat st;
	void *buf = NULL;
	int fd;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, posix_memalign(&buf, 4096, STRIPE_FIRST));
	memset(buf, 0x5a, STRIPE_FIRST);
	fd = iop_open_at(self->fs.scratch->mnt, "f",
			 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_DIRECT, 0600);
	if (fd < 0)
		free(buf);
	ASSERT_LE(0, fd) TH_LOG("create f: %s", strerror(-fd));
	/* an empty file is smaller than the unit: exactly what was written */
	EXPECT_EQ(STRIPE_FIRST, pwrite(fd, buf, STRIPE_FIRST, 0))
		TH_LOG("O_DIRECT write of %d at 0: %s", STRIPE_FIRST, strerror(errno));
	EXPECT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(STRIPE_FIRST, (unsigned long long)st.st_blocks * 512)
		TH_LOG("a %d-byte write into an empty file holds %llu bytes of blocks",
		       STRIPE_FIRST, (unsigned long long)st.st_blocks * 512);
	/* past the end of a file of two units: up to the next unit */
	EXPECT_EQ(STRIPE_NEXT, pwrite(fd, buf, STRIPE_NEXT, STRIPE_FIRST))
		TH_LOG("O_DIRECT write of %d at %d: %s", STRIPE_NEXT, STRIPE_FIRST,
		       strerror(errno));
	EXPECT_EQ(0, fstat(fd, &st));
	used = (unsigned long long)st.st_blocks * 512;
	EXPECT_EQ(aligned, used)
		TH_LOG("a write past EOF to %llu bytes holds %llu bytes of blocks, not up to the %d-byte stripe unit (%llu)",
		       size, used, IOP_XFS_STRIPE_UNIT, aligned);
	free(buf);
	ASSERT_EQ(0, close(fd));
}

FIXTURE(eof_reserve) {
	struct iop_test_fs fs;
};

FIXTURE_VARIANT(eof_reserve) {
	IOP_FS_VARIANT_FIELDS;
};

/* 1 KiB blocks: the cap is 2 GiB of blocks, not 8 */
FIXTURE_VARIANT_ADD(eof_reserve, xfs_1k) { IOP_FS_XFS_1K };

FIXTURE_SETUP(eof_reserve)
{
	const struct iop_scratch_opts want = {
		.fstype = variant->fstype, .mkfs_opts = variant->mkfs_opts,
		.mount_opts = variant->mount_opts, .size = 16ull << 30,
	};

	iop_test_fs_setup_opts(&self->fs, &want);
}

FIXTURE_TEARDOWN(eof_reserve)
{
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

#define MAX_EXTLEN	((1ull << 21) - 1)	/* XFS_MAX_BMBT_EXTLEN, in blocks */

TEST_F(eof_reserve, write_and_preallocation_past_eof_fit_one_extent)
{
	const unsigned long long blk = variant->blksz;
	/* EOF a block before a 64 KiB boundary: the write crosses it */
	const unsigned long long start = 1ull << 30, len = (1ull << 30) + (4ull << 20) + 63 * 1024;
	const unsigned long long eof = start + len;
	unsigned long long past;
	uint8_t in[2048], out[2048];
	struct stat st;
	int fd;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(sizeof(in), 2 * blk);
	fd = iop_open_at(self->fs.scratch->mnt, "big", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			 0600);
	ASSERT_LE(0, fd) TH_LOG("create big: %s", strerror(-fd));
	/* more than 2^20 blocks in one piece, ending more than 2^21 blocks in */
	EXPECT_EQ(0, fallocate(fd, 0, (off_t)start, (off_t)len))
		TH_LOG("fallocate of %llu at %llu: %s", len, start, strerror(errno));
	memset(in, 0x6b, sizeof(in));
	EXPECT_EQ((ssize_t)sizeof(in), pwrite(fd, in, sizeof(in), (off_t)eof))
		TH_LOG("write of %zu at %llu: %s", sizeof(in), eof, strerror(errno));
	EXPECT_EQ(0, fstat(fd, &st));
	/* st_blocks counts the delayed blocks: the write's and those past it */
	past = (unsigned long long)st.st_blocks * 512 - len;
	TH_LOG("reserved at EOF: %llu blocks (the cap: %llu)", past / blk, MAX_EXTLEN);
	EXPECT_GE(MAX_EXTLEN * blk, past)
		TH_LOG("a write of two blocks at %llu reserved %llu blocks from EOF, more than one extent holds (%llu)",
		       eof, past / blk, MAX_EXTLEN);
	EXPECT_EQ(0, fsync(fd)) TH_LOG("fsync: %s", strerror(errno));
	EXPECT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED));
	EXPECT_EQ((ssize_t)sizeof(out), pread(fd, out, sizeof(out), (off_t)eof));
	EXPECT_EQ(0, memcmp(in, out, sizeof(in))) TH_LOG("the block written at %llu reads back otherwise", eof);
	ASSERT_EQ(0, close(fd));
}

TEST_HARNESS_MAIN
