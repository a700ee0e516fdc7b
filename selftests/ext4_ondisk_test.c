// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * How ext4 reads on-disk states its own running code does not leave, but
 * a crash or a damaged disk can: an inode whose mapped, written blocks
 * reach past its size, and an inode carrying a flag the filesystem has no
 * feature for. The state is made offline with debugfs (unmount, one
 * request, mount), then read through the kernel.
 *
 * Blocks past EOF: with 1 KiB blocks a page holds four; the file's size
 * is cut to two blocks while all four stay mapped with nonzero data. Read
 * through mmap, the bytes of the page past EOF must be zeros: the page
 * cache fills what lies past EOF with zeros instead of reading it
 * (ext4_mpage_readpages() clamps the blocks it maps to the file's last),
 * and mmap shows the whole page.
 *
 * The casefold flag on a filesystem without the casefold feature: the
 * inode is corrupt, and looking it up must fail with EFSCORRUPTED
 * (EUCLEAN), not succeed and not answer "no such file", and the error must
 * be recorded in the superblock (its error count, which e2fsck and
 * /sys/fs/ext4/<dev>/errors_count report), so that the next fsck is
 * forced and an administrator sees it.
 *
 * The bugs it catches: a read of the last page that maps the blocks past
 * EOF and shows their stale bytes (72-ext4-readpages-maps-blocks-past-eof,
 * generated sample 3's 045-relop-ext4_mpage_readpages), and an inode
 * refused as corrupt without the error, so the lookup answers ENOENT
 * (73-ext4-casefold-inode-refused-without-error, generated sample 3's
 * 035-drop-stmt-__ext4_iget), or refused without recording the error
 * (88-ext4-casefold-inode-error-not-recorded, generated sample 5's
 * 011-call-void-__ext4_iget).
 *
 * A directory with a hole (a block punched offline; ext4 never leaves
 * one, e2fsck reports it): without hashed directories a lookup reads the
 * directory's blocks in batches, and must step over the hole to the names
 * after it; rmdir of the emptied directory steps over it too. The bug it
 * catches: a batch read that takes the hole for a buffer (122-ext4-dir-
 * batch-reads-a-hole, generated sample 8's 024-and-or-ext4_bread_batch).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#define CASEFOLD_FL	0x40000000	/* EXT4_CASEFOLD_FL, on disk */

FIXTURE(ext4_ondisk) {
	struct iop_test_fs fs;
};

FIXTURE_VARIANT(ext4_ondisk) {
	IOP_FS_VARIANT_FIELDS;
};

/* Blocks smaller than a page: the last page can reach past EOF by blocks. */
FIXTURE_VARIANT_ADD(ext4_ondisk, ext4_1k) { IOP_FS_EXT4_1K };

FIXTURE_SETUP(ext4_ondisk)
{
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(ext4_ondisk)
{
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/* One debugfs request on the unmounted scratch: 0, or fails the test. */
static int edit(struct __test_metadata *_metadata, struct iop_scratch *s, const char *request)
{
	char why[512];
	int ret = iop_scratch_debugfs(s, request, why, sizeof(why));

	if (ret == -ENOENT)
		SKIP(return ret, "%s", why);
	EXPECT_EQ(0, ret) TH_LOG("%s", why);
	return ret;
}

TEST_F(ext4_ondisk, mapped_blocks_past_eof_read_as_zeros_through_mmap)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t buf[65536], *map;
	size_t eof = 2 * variant->blksz;
	struct stat st;
	ssize_t n;
	size_t i;
	int fd;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_TRUE(page > 0 && (size_t)page <= sizeof(buf));
	ASSERT_LT(eof, (size_t)page) TH_LOG("blocks of %u bytes leave no page past EOF",
					    variant->blksz);
	fd = iop_open_at(self->fs.scratch->mnt, "f", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
			 0600);
	ASSERT_LE(0, fd) TH_LOG("create f: %s", strerror(-fd));
	memset(buf, 0x11, eof);
	memset(buf + eof, 0xab, page - eof);
	EXPECT_EQ(0, iop_pwrite_all(fd, buf, page, 0));
	EXPECT_EQ(0, fsync(fd));
	close(fd);
	/* the size cut to two blocks, the blocks after them left mapped */
	snprintf((char *)buf, sizeof(buf), "set_inode_field /f size %zu", eof);
	if (edit(_metadata, self->fs.scratch, (char *)buf))
		return;
	fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDONLY | O_NOFOLLOW, 0);
	ASSERT_LE(0, fd) TH_LOG("open f: %s", strerror(-fd));
	ASSERT_EQ(0, fstat(fd, &st));
	ASSERT_EQ((off_t)eof, st.st_size) TH_LOG("debugfs left the size at %lld",
						 (long long)st.st_size);
	map = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map) TH_LOG("mmap: %s", strerror(errno));
	for (i = 0; i < eof && map[i] == 0x11; i++)
		;
	EXPECT_EQ(eof, i) TH_LOG("byte %zu inside EOF is 0x%02x, written 0x11", i, map[i]);
	for (i = eof; i < (size_t)page && !map[i]; i++)
		;
	EXPECT_EQ((size_t)page, i)
		TH_LOG("byte %zu past EOF (%zu) reads 0x%02x through mmap: the block past EOF was read, not zeroed",
		       i, eof, map[i]);
	munmap(map, page);
	n = pread(fd, buf, sizeof(buf), 0);
	EXPECT_EQ((ssize_t)eof, n) TH_LOG("read(2) of f gave %zd bytes", n);
	close(fd);
	/* the checker holds mapped blocks past the size against the file */
	ASSERT_EQ(0, iop_path_in((char *)buf, self->fs.scratch->mnt, "f"));
	EXPECT_EQ(0, unlink((char *)buf));
}

TEST_F(ext4_ondisk, casefold_flag_without_the_feature_fails_lookup_as_corrupted)
{
	char path[PATH_MAX], req[128];
	struct stat st;
	int fd, flags = 0, ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, iop_path_in(path, self->fs.scratch->mnt, "d"));
	ASSERT_EQ(0, mkdir(path, 0755));
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, FS_IOC_GETFLAGS, &flags));
	close(fd);
	ASSERT_EQ(0, flags & CASEFOLD_FL);
	snprintf(req, sizeof(req), "set_inode_field /d flags 0x%x", flags | CASEFOLD_FL);
	if (edit(_metadata, self->fs.scratch, req))
		return;
	/* the positive control: a fresh filesystem has no error recorded */
	ASSERT_EQ(0, iop_ext4_errors_count(self->fs.scratch->dev));
	ret = stat(path, &st) ? errno : 0;
	EXPECT_EQ(EUCLEAN, ret)
		TH_LOG("stat of a directory with the casefold flag on a filesystem without casefold: %s, expected %s",
		       ret ? strerror(ret) : "success", strerror(EUCLEAN));
	/* the flag taken back, the directory as it was */
	snprintf(req, sizeof(req), "set_inode_field /d flags 0x%x", flags);
	if (edit(_metadata, self->fs.scratch, req))
		return;
	EXPECT_EQ(0, stat(path, &st)) TH_LOG("stat after the flag was cleared: %s",
					     strerror(errno));
	/* the edit unmounted it: the superblock holds what the error recorded */
	EXPECT_LT(0, iop_ext4_errors_count(self->fs.scratch->dev))
		TH_LOG("no error recorded in the superblock for the corrupt inode");
	EXPECT_EQ(0, rmdir(path));
}

FIXTURE(ext4_linear_dir) {
	struct iop_test_fs fs;
};

FIXTURE_VARIANT(ext4_linear_dir) {
	IOP_FS_VARIANT_FIELDS;
};

FIXTURE_VARIANT_ADD(ext4_linear_dir, ext4_no_dir_index) { IOP_FS_EXT4_NO_DIR_INDEX };

FIXTURE_SETUP(ext4_linear_dir)
{
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(ext4_linear_dir)
{
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

#define DIR_BLOCKS	4	/* the directory's, the hole the second */
#define DIR_FILES	512	/* more than DIR_BLOCKS blocks of 1 KiB hold */

TEST_F(ext4_linear_dir, lookup_steps_over_a_hole_in_a_directory)
{
	unsigned char where[DIR_FILES];
	char path[PATH_MAX], name[16];
	unsigned int i, n, kept = 0, found = 0;
	struct stat st;
	int dfd, fd;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, iop_path_in(path, self->fs.scratch->mnt, "d"));
	ASSERT_EQ(0, mkdir(path, 0755));
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	ASSERT_LE(0, dfd);
	/*
	 * Names go into the first block with room and a new block is added
	 * when all are full: each file's block is the directory's last when
	 * it was created.
	 */
	for (n = 0; n < DIR_FILES; n++) {
		snprintf(name, sizeof(name), "f%04u", n);
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
		ASSERT_LE(0, fd) TH_LOG("create d/%s: %s", name, strerror(errno));
		close(fd);
		ASSERT_EQ(0, fstat(dfd, &st));
		if ((unsigned long long)st.st_size > DIR_BLOCKS * variant->blksz) {
			ASSERT_EQ(0, unlinkat(dfd, name, 0));
			break;
		}
		where[n] = (unsigned char)(st.st_size / variant->blksz - 1);
	}
	ASSERT_EQ(DIR_BLOCKS - 1, where[n - 1]) TH_LOG("%u files fill %d blocks", n, DIR_BLOCKS);
	/* the second block emptied, so that no inode loses its name */
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "f%04u", i);
		if (where[i] == 1)
			ASSERT_EQ(0, unlinkat(dfd, name, 0));
	}
	close(dfd);
	if (edit(_metadata, self->fs.scratch, "punch /d 1 1"))
		return;
	ASSERT_EQ(0, stat(path, &st));
	/* one block more, its one name removed: directories do not shrink */
	ASSERT_EQ((off_t)((DIR_BLOCKS + 1) * variant->blksz), st.st_size);
	ASSERT_EQ((blkcnt_t)(DIR_BLOCKS * variant->blksz / 512), st.st_blocks)
		TH_LOG("the punch left %lld sectors", (long long)st.st_blocks);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	ASSERT_LE(0, dfd);
	for (i = 0; i < n; i++) {
		if (where[i] == 1)
			continue;
		kept++;
		snprintf(name, sizeof(name), "f%04u", i);
		if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
			found++;
		else
			TH_LOG("d/%s (block %u): %s", name, where[i], strerror(errno));
		EXPECT_EQ(0, unlinkat(dfd, name, 0));
	}
	close(dfd);
	EXPECT_EQ(kept, found) TH_LOG("%u of the %u names around the hole found", found, kept);
	EXPECT_EQ(0, rmdir(path)) TH_LOG("rmdir of the emptied directory: %s", strerror(errno));
}

TEST_HARNESS_MAIN
