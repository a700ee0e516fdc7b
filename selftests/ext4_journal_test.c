// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ext4 with data=journal: file data that reaches the page cache behind
 * the filesystem's back is journalled by writeback.
 *
 * Under data=journal ext4 journals a folio's buffers when it is dirtied
 * through a write or a page fault. A folio dirtied while a device holds
 * it pinned (an O_DIRECT read whose buffer is a MAP_SHARED mapping of the
 * file: the block layer marks the pages dirty when the read completes)
 * cannot be journalled there, so ext4_journalled_dirty_folio() marks it
 * "checked" and the next writeback journals it
 * (mpage_prepare_extent_to_map() -> mpage_journal_page_buffers()). That
 * path is reached by nothing else; the test drives it and checks that the
 * bytes the read delivered are the file's after fsync and a remount.
 *
 * The bug it catches: a kernel whose writeback mishandles a checked
 * folio: leaves it locked (the next fsync, truncate or unmount waits
 * forever), skips its journalling (the file reverts to the old bytes after
 * the remount), or journals the wrong range
 * (54-ext4-journalled-folio-left-locked, from generated sample 1's
 * 006-relop-mpage_prepare_extent_to_map, which no test reached).
 *
 * Under data=journal ext4 takes no direct I/O: an O_DIRECT read or write
 * goes through the page cache and the journal, and statx(STATX_DIOALIGN)
 * says so with alignments of 0 (statx(2): "0 if direct I/O is not
 * supported"). A kernel that reports, and so uses, direct I/O for a
 * journalled file writes its data around the journal
 * (80-ext4-data-journal-takes-direct-io, generated sample 4's
 * 026-off-by-one-ext4_dio_alignment).
 *
 * A hole punch is made durable by the next commit, not by one of its own:
 * ext4_punch_hole() makes its handle synchronous only for a sync inode
 * (chattr +S, -o sync; on 7.2 also an O_SYNC descriptor, not on 6.18). The
 * journal's commit count (/proc/fs/jbd2/<device>-8/info) says which: a
 * punch of a sync inode adds a commit (the positive control), a run of
 * plain punches adds none of their own. A kernel that commits every punch makes each
 * one a journal flush, the cost a VM image's discards or a database's
 * deallocations would pay (generated sample 5's
 * 023-call-arg-ext4_punch_hole: the sync test always true). The same
 * holds for a shrinking truncate (ext4_truncate(); 109-ext4-every-
 * truncate-commits, generated sample 7's 045-call-arg-ext4_truncate).
 *
 * A journalled file's data reaches its blocks only through the journal's
 * checkpoint, so a truncate before the checkpoint must take the data out
 * of the journal: ext4_journalled_invalidate_folio() has jbd2 forget the
 * truncated buffers, or revoke them if they are already committed. The
 * freed blocks are free for any file from the next commit on; a buffer
 * left in the journal is written over them at the checkpoint, over
 * whatever file has them by then. The test truncates a journalled file to
 * 0 and unmounts (the checkpoint), then reads its old blocks from the
 * device: they must not hold its bytes (106-ext4-journalled-truncate-
 * keeps-buffers, generated sample 7's
 * 015-call-zero-ext4_journalled_invalidate_folio).
 *
 * An unlinked file still open is on the journal's orphan list (the
 * superblock's s_last_orphan and a chain through the inodes), so that a
 * crash frees it at the next mount; eviction takes it off. A truncate of
 * such a file puts it there too and must leave it there: a kernel that
 * takes it off the in-memory list without a handle leaves the on-disk
 * chain naming the inode, and the next mount finds a freed inode at the
 * head of the list ("bad orphan inode", an ext4 error: 110-ext4-
 * truncate-drops-an-unlinked-orphan, generated sample 7's
 * 026-and-or-ext4_setattr).
 *
 * Without a journal, fsync(2) writes the inode itself
 * (ext4_fsync_nojournal() -> ext4_write_inode()) and returns what that
 * returned: 0, and the size and mode it set are there after a remount.
 * The bug it catches: ext4_write_inode() answering with something other
 * than its state check's result, so fsync fails on a healthy filesystem
 * (105-ext4-write-inode-error-from-the-superblock, generated sample 7's
 * 011-call-arg-ext4_write_inode).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#include "iopath_test.h"
#include "iomap_layout.h"
#include "iop_statx.h"

#define SPAN	(64 * 1024)	/* the file, mapped whole */
#define DEV_TAIL	(1024 * 1024)	/* the read comes from this far before the device's end */

FIXTURE(journal) {
	struct iop_test_fs fs;
	int fd;
	int dev;
	uint8_t *map;
	uint8_t *want;
};

FIXTURE_VARIANT(journal) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_EXT4_MOUNT_VARIANTS(journal, data_journal, "data=journal");

FIXTURE_SETUP(journal)
{
	self->fd = -1;
	self->dev = -1;
	self->map = MAP_FAILED;
	self->want = NULL;
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(journal)
{
	if (self->map != MAP_FAILED)
		munmap(self->map, SPAN);
	IOP_CLOSE_FDS(self->fd, self->dev);
	free(self->want);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/*
 * The file @self->fd, SPAN bytes of pattern @seed, on disk (fsync), and
 * mapped shared, every page faulted in for write.
 */
static int mapped_file(FIXTURE_DATA(journal) *self, unsigned int seed)
{
	uint8_t *buf = iop_alloc_aligned(SPAN);
	int ret;

	if (!buf)
		return -ENOMEM;
	iop_pattern_fill(buf, 0, SPAN, seed);
	ret = iop_pwrite_all(self->fd, buf, SPAN, 0);
	free(buf);
	if (ret)
		return ret;
	if (fsync(self->fd))
		return -errno;
	self->map = mmap(NULL, SPAN, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	if (self->map == MAP_FAILED)
		return -errno;
	/* a store per page: each is journalled by ext4_page_mkwrite() now */
	for (size_t i = 0; i < SPAN; i += 4096)
		self->map[i] ^= 0;
	return 0;
}

/*
 * An O_DIRECT read of the scratch device (the suite's own loop device, read
 * only, a range near its end that the filesystem leaves alone) into the
 * mapping: the device holds the file's pages pinned while it fills them.
 */
TEST_F(journal, dma_into_a_mapped_file_is_journalled_by_writeback)
{
	uint64_t size = 0;
	off_t from;
	ssize_t n;
	char why[256];

	IOP_TEST_BEGIN(&self->fs);
	self->fd = iop_open_at(self->fs.scratch->mnt, "mapped", O_RDWR | O_CREAT | O_EXCL, 0644);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(-self->fd));
	ASSERT_EQ(0, mapped_file(self, 41)) TH_LOG("the mapped file: %s", strerror(errno));

	self->dev = open(self->fs.scratch->dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	ASSERT_LE(0, self->dev) TH_LOG("open %s O_DIRECT: %s", self->fs.scratch->dev,
				       strerror(errno));
	ASSERT_EQ(0, ioctl(self->dev, BLKGETSIZE64, &size))
		TH_LOG("BLKGETSIZE64: %s", strerror(errno));
	ASSERT_LT(DEV_TAIL, size);
	from = (off_t)(size - DEV_TAIL);
	/* what the device holds there, read first into memory of our own */
	self->want = iop_alloc_aligned(SPAN);
	ASSERT_NE(NULL, self->want);
	ASSERT_EQ(SPAN, pread(self->dev, self->want, SPAN, from));
	/* make sure the read changes the file: the pattern is never all zero */
	ASSERT_NE(0, memcmp(self->want, self->map, SPAN))
		TH_LOG("the device range holds the file's own pattern");

	n = pread(self->dev, self->map, SPAN, from);
	ASSERT_EQ(SPAN, n) TH_LOG("O_DIRECT read into the mapping: %s",
				  n < 0 ? strerror(errno) : "short");
	EXPECT_EQ(0, iop_model_compare(self->map, self->want, 0, SPAN, why, sizeof(why)))
		TH_LOG("the mapping after the read: %s", why);

	ASSERT_EQ(0, fsync(self->fd)) TH_LOG("fsync: %s", strerror(errno));
	ASSERT_EQ(0, munmap(self->map, SPAN));
	self->map = MAP_FAILED;
	IOP_CLOSE_FDS(self->fd, self->dev);
	self->fd = -1;
	self->dev = -1;
	ASSERT_EQ(0, iop_scratch_remount(self->fs.scratch)) TH_LOG("remount");
	self->fd = iop_open_at(self->fs.scratch->mnt, "mapped", O_RDONLY, 0);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(0, iop_file_compare(self->fd, self->want, SPAN, why, sizeof(why)))
		TH_LOG("after fsync and a remount: %s", why);
}

/*
 * How many blocks of the extents @f of a file written with pattern @seed
 * hold the file's bytes on the device @dev (blocks of @bs bytes), or -errno.
 */
static long blocks_holding_pattern(int dev, const struct iop_fiemap *f, unsigned int bs,
				   unsigned int seed)
{
	uint8_t *got = iop_alloc_aligned(bs), *want = malloc(bs);
	long held = 0;
	unsigned int i;
	uint64_t b;

	if (!got || !want) {
		held = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < f->n; i++) {
		for (b = 0; b < f->ext[i].fe_length; b += bs) {
			if (pread(dev, got, bs, (off_t)(f->ext[i].fe_physical + b)) != (ssize_t)bs) {
				held = errno ? -errno : -EIO;
				goto out_free;
			}
			iop_pattern_fill(want, f->ext[i].fe_logical + b, bs, seed);
			held += !memcmp(got, want, bs);
		}
	}
out_free:
	free(got);
	free(want);
	return held;
}

TEST_F(journal, truncated_data_never_reaches_its_freed_blocks)
{
	const unsigned int bs = variant->blksz, seed = 47;
	struct iop_fiemap f;
	uint64_t mapped = 0;
	unsigned int i;
	uint8_t *buf;
	long held;
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	self->fd = iop_open_at(self->fs.scratch->mnt, "truncated",
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(-self->fd));
	buf = iop_alloc_aligned(SPAN);
	ASSERT_NE(NULL, buf);
	iop_pattern_fill(buf, 0, SPAN, seed);
	ret = iop_pwrite_all(self->fd, buf, SPAN, 0);
	free(buf);
	ASSERT_EQ(0, ret) TH_LOG("write: %s", strerror(-ret));

	/* data=journal allocates at write time: the blocks are known now */
	ret = iop_fiemap(self->fd, 0, SPAN, &f);
	ASSERT_LT(0, ret) TH_LOG("FIEMAP: %s", strerror(-ret));
	for (i = 0; i < f.n; i++) {
		ASSERT_EQ(0, f.ext[i].fe_flags & (FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN |
						  FIEMAP_EXTENT_UNWRITTEN))
			TH_LOG("extent %u at %llu: flags %#x, not a mapped extent", i,
			       (unsigned long long)f.ext[i].fe_logical, f.ext[i].fe_flags);
		mapped += f.ext[i].fe_length;
	}
	ASSERT_EQ(SPAN, mapped) TH_LOG("FIEMAP maps %llu of the %u bytes written",
				       (unsigned long long)mapped, SPAN);

	ASSERT_EQ(0, ftruncate(self->fd, 0)) TH_LOG("truncate: %s", strerror(errno));
	self->dev = open(self->fs.scratch->dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	ASSERT_LE(0, self->dev) TH_LOG("open %s O_DIRECT: %s", self->fs.scratch->dev,
				       strerror(errno));
	/* only a checkpoint writes journalled data home, and none has run */
	held = blocks_holding_pattern(self->dev, &f, bs, seed);
	ASSERT_EQ(0, held) TH_LOG("%ld blocks hold the data before any checkpoint%s", held,
				  held < 0 ? ": the device cannot be read" : "");

	IOP_CLOSE_FDS(self->fd, self->dev);
	self->fd = -1;
	self->dev = -1;
	/* the unmount checkpoints the journal */
	ret = iop_scratch_remount(self->fs.scratch);
	ASSERT_EQ(0, ret) TH_LOG("remount: %s", strerror(-ret));
	self->dev = open(self->fs.scratch->dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	ASSERT_LE(0, self->dev) TH_LOG("open %s O_DIRECT: %s", self->fs.scratch->dev,
				       strerror(errno));
	held = blocks_holding_pattern(self->dev, &f, bs, seed);
	ASSERT_LE(0, held) TH_LOG("read the device: %s", strerror((int)-held));
	EXPECT_EQ(0, held) TH_LOG("the checkpoint wrote %ld truncated blocks over freed space",
				  held);
}

TEST_F(journal, statx_reports_no_direct_io_for_a_journalled_file)
{
	struct iop_statx sx;
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	self->fd = iop_open_at(self->fs.scratch->mnt, "journalled",
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(-self->fd));
	ret = iop_statx_fd(self->fd, IOP_STATX_BASIC | IOP_STATX_DIOALIGN, &sx);
	ASSERT_EQ(0, ret) TH_LOG("statx: %s", strerror(-ret));
	if (!(sx.mask & IOP_STATX_DIOALIGN))
		SKIP(return, "the kernel reports no direct I/O alignment (statx without STATX_DIOALIGN)");
	EXPECT_EQ(0, sx.dio_mem_align) TH_LOG("dio_mem_align %u under data=journal", sx.dio_mem_align);
	EXPECT_EQ(0, sx.dio_offset_align)
		TH_LOG("dio_offset_align %u under data=journal", sx.dio_offset_align);
}

#define PUNCHES	32		/* one block each, a hole after every other block */
#define PUNCH_COMMITS	8	/* what the commit timer may add while they run */

FIXTURE(commits) {
	struct iop_test_fs fs;
	int fd;
};

FIXTURE_VARIANT(commits) {
	IOP_FS_VARIANT_FIELDS;
};

FIXTURE_VARIANT_ADD(commits, ext4) { IOP_FS_EXT4 };
FIXTURE_VARIANT_ADD(commits, ext4_1k) { IOP_FS_EXT4_1K };

FIXTURE_SETUP(commits)
{
	self->fd = -1;
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(commits)
{
	IOP_CLOSE_FDS(self->fd);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/* Commits of the scratch filesystem's journal so far, or -errno. */
static long journal_commits(const struct iop_scratch *s)
{
	char path[PATH_MAX], line[256];
	long n = -EIO;
	FILE *f;

	/* the journal of the filesystem on <device>, in inode 8 */
	if ((size_t)snprintf(path, sizeof(path), "/proc/fs/jbd2/%s-8/info",
			     iop_dev_name(s->dev)) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* "N transactions (M requested), each up to B blocks" */
	if (fgets(line, sizeof(line), f) && sscanf(line, "%ld transactions", &n) != 1)
		n = -EIO;
	fclose(f);
	return n;
}

/* Set (@on) or clear the sync flag (chattr +S) of @fd: 0 or -errno. */
static int sync_flag(int fd, bool on)
{
	int flags = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
		return -errno;
	flags = on ? flags | FS_SYNC_FL : flags & ~FS_SYNC_FL;
	return ioctl(fd, FS_IOC_SETFLAGS, &flags) ? -errno : 0;
}

/* Punch block 2i+1 (i = 0 is the sync inode's punch): 0 or errno. */
static int punch_one(int fd, int i, unsigned int bs)
{
	return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			 (2 * i + 1) * (off_t)bs, bs) ? errno : 0;
}

/* Cut the file to PUNCHES + 1 - i blocks: 0 or errno. */
static int shrink_one(int fd, int i, unsigned int bs)
{
	return ftruncate(fd, (PUNCHES + 1 - i) * (off_t)bs) ? errno : 0;
}

/*
 * A file of 2 * PUNCHES + 2 blocks on disk; @op (a @what, @many of them)
 * once on it made a sync inode must add a commit (the positive control),
 * PUNCHES - 1 more on it made plain again no more than the commit timer
 * may add.
 */
static void commits_only_when_asked(struct __test_metadata *_metadata,
				    FIXTURE_DATA(commits) *self, unsigned int bs,
				    int (*op)(int fd, int i, unsigned int bs), const char *what,
				    const char *many)
{
	long base, after_sync, after;
	uint8_t *buf;
	int i;

	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			       0600);
	ASSERT_LE(0, self->fd) TH_LOG("create f: %s", strerror(-self->fd));
	buf = calloc(2 * PUNCHES + 2, bs);
	ASSERT_NE(NULL, buf);
	memset(buf, 0x5e, (2 * PUNCHES + 2) * (size_t)bs);
	i = iop_pwrite_all(self->fd, buf, (2 * PUNCHES + 2) * (size_t)bs, 0);
	free(buf);
	ASSERT_EQ(0, i);
	ASSERT_EQ(0, fsync(self->fd));

	/* the positive control: the operation on a sync inode (chattr +S) commits */
	ASSERT_EQ(0, sync_flag(self->fd, true));
	base = journal_commits(self->fs.scratch);
	ASSERT_LE(0, base) TH_LOG("the journal's commit count: %s", strerror((int)-base));
	i = op(self->fd, 0, bs);
	ASSERT_EQ(0, i) TH_LOG("%s of a sync inode: %s", what, strerror(i));
	after_sync = journal_commits(self->fs.scratch);
	ASSERT_LT(base, after_sync) TH_LOG("a %s of a sync inode left the commit count at %ld",
					   what, base);
	ASSERT_EQ(0, sync_flag(self->fd, false));
	after_sync = journal_commits(self->fs.scratch);

	for (i = 1; i < PUNCHES; i++) {
		int err = op(self->fd, i, bs);

		ASSERT_EQ(0, err) TH_LOG("%s %d: %s", what, i, strerror(err));
	}
	after = journal_commits(self->fs.scratch);
	EXPECT_GT(after_sync + PUNCH_COMMITS, after)
		TH_LOG("%d %s without a sync: %ld commits", PUNCHES - 1, many, after - after_sync);
}

TEST_F(commits, hole_punches_commit_only_when_asked_to)
{
	IOP_TEST_BEGIN(&self->fs);
	commits_only_when_asked(_metadata, self, variant->blksz, punch_one, "punch", "punches");
}

/*
 * The same for truncates: ext4_truncate() makes its handle synchronous for
 * a sync inode only (generated sample 7's 045-call-arg-ext4_truncate:
 * the sync test always true, so every shrinking truncate waits for a
 * commit of its own, 109-ext4-every-truncate-commits).
 */
TEST_F(commits, truncates_commit_only_when_asked_to)
{
	IOP_TEST_BEGIN(&self->fs);
	commits_only_when_asked(_metadata, self, variant->blksz, shrink_one, "truncate", "truncates");
}

TEST_F(commits, truncate_of_an_unlinked_open_file_leaves_no_orphan_behind)
{
	const unsigned int bs = variant->blksz;
	char path[PATH_MAX];
	uint8_t *buf;
	long errs;
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, iop_path_in(path, self->fs.scratch->mnt, "unlinked"));
	self->fd = iop_open_at(self->fs.scratch->mnt, "unlinked",
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(-self->fd));
	buf = calloc(8, bs);
	ASSERT_NE(NULL, buf);
	memset(buf, 0x6f, 8 * (size_t)bs);
	ret = iop_pwrite_all(self->fd, buf, 8 * (size_t)bs, 0);
	free(buf);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, fsync(self->fd));
	ASSERT_EQ(0, unlink(path)) TH_LOG("unlink: %s", strerror(errno));
	ASSERT_EQ(0, ftruncate(self->fd, bs)) TH_LOG("truncate: %s", strerror(errno));
	ASSERT_EQ(0, fsync(self->fd));
	IOP_CLOSE_FDS(self->fd);
	self->fd = -1;

	/* the mount walks whatever orphan list the unmount left */
	ret = iop_scratch_remount(self->fs.scratch);
	ASSERT_EQ(0, ret) TH_LOG("remount: %s", strerror(-ret));
	errs = iop_ext4_errors_count(self->fs.scratch->dev);
	EXPECT_EQ(0, errs) TH_LOG("ext4 errors_count after the mount: %ld", errs);
}

FIXTURE(nojournal) {
	struct iop_test_fs fs;
	int fd;
};

FIXTURE_VARIANT(nojournal) {
	IOP_FS_VARIANT_FIELDS;
};

FIXTURE_VARIANT_ADD(nojournal, ext4_nojournal) { IOP_FS_EXT4_NOJOURNAL };

FIXTURE_SETUP(nojournal)
{
	self->fd = -1;
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(nojournal)
{
	IOP_CLOSE_FDS(self->fd);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

TEST_F(nojournal, fsync_returns_0_and_the_inode_is_on_disk)
{
	uint8_t buf[10000];
	struct stat st;
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			       0600);
	ASSERT_LE(0, self->fd) TH_LOG("create f: %s", strerror(-self->fd));
	memset(buf, 0x6b, sizeof(buf));
	ASSERT_EQ(0, iop_pwrite_all(self->fd, buf, sizeof(buf), 0));
	ret = fsync(self->fd);
	EXPECT_EQ(0, ret) TH_LOG("fsync: returned %d (%s)", ret, strerror(errno));
	ASSERT_EQ(0, iop_pwrite_all(self->fd, buf, sizeof(buf), sizeof(buf)));
	ret = fdatasync(self->fd);
	EXPECT_EQ(0, ret) TH_LOG("fdatasync: returned %d (%s)", ret, strerror(errno));
	ASSERT_EQ(0, fchmod(self->fd, 0640));
	ret = fsync(self->fd);
	EXPECT_EQ(0, ret) TH_LOG("fsync after chmod: returned %d (%s)", ret, strerror(errno));
	IOP_CLOSE_FDS(self->fd);
	self->fd = -1;

	ret = iop_scratch_remount(self->fs.scratch);
	ASSERT_EQ(0, ret) TH_LOG("remount: %s", strerror(-ret));
	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDONLY | O_NOFOLLOW, 0);
	ASSERT_LE(0, self->fd) TH_LOG("open f: %s", strerror(-self->fd));
	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_EQ(2 * sizeof(buf), (size_t)st.st_size);
	EXPECT_EQ(0640, st.st_mode & 07777);
}

TEST_HARNESS_MAIN
