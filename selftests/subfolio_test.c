// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reads of a folio only some of whose blocks are uptodate.
 *
 * With blocks smaller than a page (the 1 KiB variants), a buffered write
 * of whole blocks into a folio that is not cached reads nothing: the
 * written blocks are uptodate, the others are not, and the folio is not.
 * A read of a range inside the uptodate blocks is served from the folio
 * (->is_partially_uptodate: iomap_is_partially_uptodate() on XFS,
 * block_is_partially_uptodate() on ext4); a range that touches a block
 * never read must read it from the disk. The test writes blocks 0-2 of
 * a page whose data is on disk, then reads ranges that end in, start in,
 * or lie inside block 3, and ranges inside blocks 0-2, each on a folio in
 * that state, and compares with the model: what was written, and the
 * disk's old data elsewhere. With 4 KiB blocks the write is half a block
 * (read first, so the folio is uptodate): the same statement, no
 * sub-folio state.
 *
 * The bug it catches: a partially-uptodate check that calls a range
 * uptodate when its last block is the first one that is not, so the read
 * copies that block from the folio, which holds no data of the file
 * (63-iomap-partially-uptodate-last-block, generated sample 2's
 * 024-relop-iomap_is_partially_uptodate).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"

#define PAGE	4096
#define FILE_LEN	(4 * PAGE)

FIXTURE(subfolio) {
	struct iop_test_fs fs;
	int fd;
	uint8_t *model;
	uint8_t *buf;
};

FIXTURE_VARIANT(subfolio) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(subfolio);

FIXTURE_SETUP(subfolio)
{
	self->fd = -1;
	self->model = malloc(FILE_LEN);
	self->buf = malloc(FILE_LEN);
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(subfolio)
{
	IOP_CLOSE_FDS(self->fd);
	free(self->model);
	free(self->buf);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/* Is page @idx of @fd in the page cache? 1, 0, or -errno. */
static int cached(int fd, unsigned int idx)
{
	unsigned char vec[FILE_LEN / PAGE];
	void *p = mmap(NULL, FILE_LEN, PROT_READ, MAP_SHARED, fd, 0);
	int ret;

	if (p == MAP_FAILED)
		return -errno;
	ret = mincore(p, FILE_LEN, vec) ? -errno : vec[idx] & 1;
	munmap(p, FILE_LEN);
	return ret;
}

/*
 * File @name: FILE_LEN bytes of pattern 1 on disk, written with O_DIRECT
 * so that none of it is ever cached (an eviction with POSIX_FADV_DONTNEED
 * can leave a folio behind that someone still holds); then @wlen bytes of
 * pattern 2 written at the start of page 1, so page 1's folio holds the
 * written blocks and nothing else. 0 or -errno.
 */
static int partly_uptodate(FIXTURE_DATA(subfolio) *self, const char *name, size_t wlen)
{
	uint8_t *dbuf;
	int dfd, ret;

	self->fd = iop_open_at(self->fs.scratch->mnt, name,
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
	if (self->fd < 0)
		return self->fd;
	dfd = iop_open_at(self->fs.scratch->mnt, name, O_WRONLY | O_DIRECT | O_NOFOLLOW, 0);
	if (dfd < 0)
		return dfd;
	iop_pattern_fill(self->model, 0, FILE_LEN, 1);
	dbuf = iop_alloc_aligned(FILE_LEN);
	ret = dbuf ? iop_pwrite_all(dfd, memcpy(dbuf, self->model, FILE_LEN), FILE_LEN, 0) :
		     -ENOMEM;
	if (!ret && fdatasync(dfd))
		ret = -errno;
	free(dbuf);
	close(dfd);
	if (ret)
		return ret;
	ret = cached(self->fd, 1);
	if (ret)
		return ret < 0 ? ret : -EBUSY;	/* page 1 is cached: not the state wanted */
	iop_pattern_fill(self->model + PAGE, PAGE, wlen, 2);
	return iop_pwrite_all(self->fd, self->model + PAGE, wlen, PAGE);
}

struct range {
	const char *what;
	unsigned int from, len;	/* in page 1, in bytes */
};

/* Where block 3 of page 1 is (1 KiB blocks); the same offsets at 4 KiB. */
static const struct range ranges[] = {
	{ "the whole page", 0, PAGE },
	{ "ending in the block never read", 1024, 2048 + 10 },
	{ "the block never read alone", 3072, 1024 },
	{ "starting in the block never read", 3072 + 100, PAGE },
	{ "the written blocks only", 0, 3072 },
	{ "inside the written blocks", 1024 + 5, 1024 },
};

TEST_F(subfolio, read_of_a_partly_uptodate_folio_reads_the_blocks_never_read)
{
	const size_t wlen = variant->blksz < PAGE ? PAGE - variant->blksz : PAGE / 2;
	char name[16], why[256];
	unsigned int i;
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, self->model);
	ASSERT_NE(NULL, self->buf);
	for (i = 0; i < ARRAY_SIZE(ranges); i++) {
		const struct range *r = &ranges[i];

		snprintf(name, sizeof(name), "f%u", i);
		ret = partly_uptodate(self, name, wlen);
		ASSERT_EQ(0, ret) TH_LOG("%s: %s", name,
					 ret == -EBUSY ? "page 1 cached after an O_DIRECT write" :
					 strerror(-ret));
		ret = iop_pread_all(self->fd, self->buf, r->len, PAGE + r->from);
		ASSERT_EQ(0, ret) TH_LOG("read %s: %s", r->what, strerror(-ret));
		EXPECT_EQ(0, iop_model_compare(self->buf, self->model,
					       PAGE + r->from, r->len, why, sizeof(why)))
			TH_LOG("read %s (%u bytes at page 1 + %u): %s", r->what, r->len, r->from,
			       why);
		/* and the whole file, now that the folio is read */
		EXPECT_EQ(0, iop_file_compare(self->fd, self->model, FILE_LEN, why, sizeof(why)))
			TH_LOG("after the read %s: %s", r->what, why);
		close(self->fd);
		self->fd = -1;
	}
}

TEST_HARNESS_MAIN
