// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Copy-on-write across extent boundaries on a reflink filesystem (XFS
 * with reflink=1): one buffered partial-block write across [shared][hole],
 * FALLOC_FL_UNSHARE_RANGE over [shared][hole][shared][hole], and one
 * O_DIRECT write across [shared][private].
 *
 * These are the loops where the iomap core's zeroing of iter->iomap and
 * iter->srcmap between extents matters most (iomap.md, section 3):
 *  - XFS leaves srcmap untouched when a COW extent sits over a data-fork
 *    hole, so the hole's mapping relies on srcmap being HOLE already; a
 *    srcmap left from the shared extent makes iomap_length_trim() clamp to
 *    it (short write, -EIO, WARN) or read-modify-write the partial block
 *    from the clone source's blocks;
 *  - xfs_hole_to_iomap() does not set flags, so a stale SHARED on a hole
 *    makes iomap_unshare_iter() "unshare" it, allocating and writing
 *    blocks that must stay a hole (or unwritten preallocation);
 *  - a stale SHARED/srcmap on a private extent, or a missing one on a
 *    shared extent, writes through to the clone source.
 * ext4 has no reflink: those variants skip.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "iopath_test.h"
#include "iomap_layout.h"

#define FILE_SIZE IOP_K(256)

FIXTURE(reflink_cow) {
	struct iop_test_fs fs;
	int src, dst;
	uint8_t *src_model, *dst_model;
	uint8_t *buf;
	char why[192];
};

FIXTURE_VARIANT(reflink_cow) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(reflink_cow);

FIXTURE_SETUP(reflink_cow)
{
	self->src = -1;
	self->dst = -1;
	self->src_model = calloc(1, FILE_SIZE);
	self->dst_model = calloc(1, FILE_SIZE);
	self->buf = iop_alloc_aligned(FILE_SIZE);
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
	if (!self->fs.scratch)
		return;
	self->src = iop_open_at(self->fs.scratch->mnt, "src", O_RDWR | O_CREAT | O_TRUNC, 0644);
	self->dst = iop_open_at(self->fs.scratch->mnt, "dst", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (self->src < 0 || self->dst < 0 || !self->src_model || !self->dst_model || !self->buf)
		snprintf(self->fs.error, sizeof(self->fs.error), "open src/dst: %s",
			 strerror(self->src < 0 ? -self->src : self->dst < 0 ?
				  -self->dst : ENOMEM));
}

FIXTURE_TEARDOWN(reflink_cow)
{
	IOP_CLOSE_FDS(self->src, self->dst);
	free(self->src_model);
	free(self->dst_model);
	free(self->buf);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/*
 * The clone source: FILE_SIZE bytes of pattern @seed, on disk. Then the
 * first clone tells whether this filesystem can reflink: 0, or a skip
 * reason (ext4) / a failure (a variant made with reflink=1).
 */
static int make_src(FIXTURE_DATA(reflink_cow) *self, unsigned int seed)
{
	static const struct iop_region whole[] = { { 0, FILE_SIZE, IOP_REGION_WRITTEN } };

	return iop_layout_build(self->src, whole, 1, self->src_model, seed, self->why,
				sizeof(self->why));
}

#define CLONE_OR_SKIP(src_off, len, dst_off)					\
	do {									\
		int __r = iop_clone_range(self->dst, self->src, src_off, len, dst_off); \
		if (__r && !variant->reflink &&					\
		    (__r == -EOPNOTSUPP || __r == -EINVAL || __r == -EXDEV || __r == -ENOTTY)) \
			SKIP(return, "%s: no reflink (FICLONERANGE: %s)",	\
			     variant->fstype, strerror(-__r));			\
		ASSERT_EQ(0, __r) TH_LOG("FICLONERANGE: %s", strerror(-__r));	\
		memcpy(self->dst_model + (dst_off), self->src_model + (src_off), len); \
	} while (0)

struct byte_range {
	uint64_t start, end;
};

/* Every FIEMAP extent of @fd in [0, FILE_SIZE) is SHARED iff it lies in one of @sh. */
static int check_shared(int fd, const struct byte_range *sh, int nsh, char *why, size_t wlen)
{
	struct iop_fiemap f;
	int i, j, n = iop_fiemap(fd, 0, FILE_SIZE, &f);

	if (n < 0) {
		snprintf(why, wlen, "FIEMAP: %s", strerror(-n));
		return n;
	}
	for (i = 0; i < n; i++) {
		const struct fiemap_extent *e = &f.ext[i];
		uint64_t s = e->fe_logical, end = e->fe_logical + e->fe_length;
		bool want = false, straddles = false;

		for (j = 0; j < nsh; j++) {
			if (s >= sh[j].start && end <= sh[j].end)
				want = true;
			else if (s < sh[j].end && end > sh[j].start)
				straddles = true;
		}
		if (straddles || !!(e->fe_flags & FIEMAP_EXTENT_SHARED) != want) {
			snprintf(why, wlen, "extent [%" PRIu64 ",%" PRIu64 ") flags 0x%x, %s",
				 s, end, e->fe_flags, want ? "should be shared" : "should not be shared");
			return -EBADMSG;
		}
	}
	return 0;
}

/*
 * dst = [0,128K) cloned from src, [128K,256K) hole. One buffered pwrite
 * of [100, 140000): starts inside the first shared block, ends inside a
 * block of the hole. All 139900 bytes are written; dst keeps src's bytes
 * before 100 and zeros after 140000; src is unchanged; after fsync
 * nothing of dst is shared.
 * Catches: a srcmap left from the shared extent on the hole's mapping
 * (a 7.2 build without the between-extent memset returned a short write,
 * stopping at the end of the shared range, for the same kind of write; or
 * src's bytes read into dst's partial tail block), a missing COW (src
 * changed).
 */
TEST_F(reflink_cow, partial_block_write_across_shared_and_hole_writes_full_count)
{
	const uint64_t off = 100, len = 140000 - 100;
	ssize_t ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, make_src(self, 21)) TH_LOG("%s", self->why);
	ASSERT_EQ(0, ftruncate(self->dst, FILE_SIZE));
	CLONE_OR_SKIP(0, IOP_K(128), 0);

	iop_pattern_fill(self->buf, off, len, 22);
	memcpy(self->dst_model + off, self->buf, len);
	ret = pwrite(self->dst, self->buf, len, off);
	ASSERT_EQ((ssize_t)len, ret) TH_LOG("pwrite: %s", ret < 0 ? strerror(errno) : "short write");

	EXPECT_EQ(0, iop_file_compare(self->dst, self->dst_model, FILE_SIZE, self->why,
				      sizeof(self->why))) TH_LOG("dst before writeback: %s",
								 self->why);
	ASSERT_EQ(0, fsync(self->dst));
	EXPECT_EQ(0, check_shared(self->dst, NULL, 0, self->why, sizeof(self->why)))
		TH_LOG("dst: %s", self->why);
	EXPECT_EQ(0, check_shared(self->src, NULL, 0, self->why, sizeof(self->why)))
		TH_LOG("src: %s", self->why);
	/* Read both back from disk, not from the page cache. */
	close(self->src);
	close(self->dst);
	self->src = -1;
	self->dst = -1;
	ASSERT_EQ(0, iop_scratch_remount(self->fs.scratch));
	self->src = iop_open_at(self->fs.scratch->mnt, "src", O_RDWR, 0);
	self->dst = iop_open_at(self->fs.scratch->mnt, "dst", O_RDWR, 0);
	ASSERT_LE(0, self->src);
	ASSERT_LE(0, self->dst);
	EXPECT_EQ(0, iop_file_compare(self->dst, self->dst_model, FILE_SIZE, self->why,
				      sizeof(self->why))) TH_LOG("dst from disk: %s", self->why);
	EXPECT_EQ(0, iop_file_compare(self->src, self->src_model, FILE_SIZE, self->why,
				      sizeof(self->why))) TH_LOG("src from disk: %s", self->why);
}

/*
 * dst = [S 0-64K][H 64-128K][S 128-192K][H 192-256K] (S cloned from the
 * same offsets of src). FALLOC_FL_UNSHARE_RANGE over all of it, fsync:
 * the data is unchanged, nothing is shared any more, and the former holes
 * are still holes or unwritten (XFS may leave its COW-extent-size
 * preallocation there as unwritten), never written blocks.
 * Catches: stale SHARED (or NEW) flags on the hole's mapping, which make
 * iomap_unshare_iter() copy into, and allocate for, the hole; a stale
 * srcmap that copies the previous extent's data.
 */
TEST_F(reflink_cow, unshare_range_keeps_holes_unallocated)
{
	static const struct byte_range shared[] = {
		{ 0, IOP_K(64) }, { IOP_K(128), IOP_K(192) },
	};
	struct iop_fiemap f;
	int i, n;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, make_src(self, 23)) TH_LOG("%s", self->why);
	ASSERT_EQ(0, ftruncate(self->dst, FILE_SIZE));
	CLONE_OR_SKIP(0, IOP_K(64), 0);
	CLONE_OR_SKIP(IOP_K(128), IOP_K(64), IOP_K(128));
	ASSERT_EQ(0, check_shared(self->dst, shared, 2, self->why, sizeof(self->why)))
		TH_LOG("before unshare: %s", self->why);

	ASSERT_EQ(0, fallocate(self->dst, FALLOC_FL_UNSHARE_RANGE, 0, FILE_SIZE))
		TH_LOG("FALLOC_FL_UNSHARE_RANGE: %s", strerror(errno));
	ASSERT_EQ(0, fsync(self->dst));

	n = iop_fiemap(self->dst, 0, FILE_SIZE, &f);
	ASSERT_LE(0, n) TH_LOG("FIEMAP: %s", strerror(-n));
	for (i = 0; i < n; i++) {
		const struct fiemap_extent *e = &f.ext[i];
		uint64_t s = e->fe_logical, end = s + e->fe_length;
		bool in_hole = (s < IOP_K(128) && end > IOP_K(64)) || end > IOP_K(192);

		EXPECT_EQ(0, e->fe_flags & FIEMAP_EXTENT_SHARED)
			TH_LOG("extent [%" PRIu64 ",%" PRIu64 ") still shared", s, end);
		if (in_hole)
			EXPECT_NE(0, e->fe_flags & FIEMAP_EXTENT_UNWRITTEN)
				TH_LOG("extent [%" PRIu64 ",%" PRIu64 ") flags 0x%x: written blocks in a former hole",
				       s, end, e->fe_flags);
	}
	EXPECT_EQ(0, iop_file_compare(self->dst, self->dst_model, FILE_SIZE, self->why,
				      sizeof(self->why))) TH_LOG("dst: %s", self->why);
	EXPECT_EQ(0, iop_file_compare(self->src, self->src_model, FILE_SIZE, self->why,
				      sizeof(self->why))) TH_LOG("src: %s", self->why);
}

/*
 * FALLOC_FL_UNSHARE_RANGE is done when it returns: XFS writes the unshared
 * range back itself (xfs_reflink_unshare(): filemap_write_and_wait_range(),
 * whose COW completion remaps the data fork), so FIEMAP without
 * FIEMAP_FLAG_SYNC, and no fsync, already finds neither file sharing a
 * block.
 * Catches: an unshare that returns after dirtying the page cache only (the
 * range still shared on disk until some later writeback, and the inode's
 * reflink flag never cleared; 010-negate-xfs_reflink_unshare of generated
 * sample 1, which the fsync of the test above hid).
 */
TEST_F(reflink_cow, unshare_range_is_unshared_on_disk_when_it_returns)
{
	struct iop_fiemap f;
	int i, n, k;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, make_src(self, 29)) TH_LOG("%s", self->why);
	ASSERT_EQ(0, ftruncate(self->dst, FILE_SIZE));
	CLONE_OR_SKIP(0, IOP_K(64), 0);
	CLONE_OR_SKIP(IOP_K(128), IOP_K(64), IOP_K(128));
	ASSERT_EQ(0, fsync(self->dst));

	ASSERT_EQ(0, fallocate(self->dst, FALLOC_FL_UNSHARE_RANGE, 0, FILE_SIZE))
		TH_LOG("FALLOC_FL_UNSHARE_RANGE: %s", strerror(errno));
	for (k = 0; k < 2; k++) {
		n = iop_fiemap(k ? self->src : self->dst, 0, FILE_SIZE, &f);
		ASSERT_LE(0, n) TH_LOG("FIEMAP: %s", strerror(-n));
		for (i = 0; i < n; i++) {
			const struct fiemap_extent *e = &f.ext[i];

			EXPECT_EQ(0, e->fe_flags & FIEMAP_EXTENT_SHARED)
				TH_LOG("%s: extent [%" PRIu64 ",%" PRIu64 ") still shared after the unshare returned",
				       k ? "src" : "dst", (uint64_t)e->fe_logical,
				       (uint64_t)(e->fe_logical + e->fe_length));
		}
	}
	EXPECT_EQ(0, iop_file_compare(self->dst, self->dst_model, FILE_SIZE, self->why,
				      sizeof(self->why))) TH_LOG("dst: %s", self->why);
	EXPECT_EQ(0, iop_file_compare(self->src, self->src_model, FILE_SIZE, self->why,
				      sizeof(self->why))) TH_LOG("src: %s", self->why);
}

/*
 * dst = [S 0-64K cloned][hole 64K-128K][S 128K-192K cloned], then one
 * buffered write of the shared block before the hole, not written back:
 * XFS reserves its COW blocks a COW extent size hint at a time, so the
 * COW fork now covers part of the data fork's hole as well. SEEK_DATA and
 * SEEK_HOLE from every 4K boundary still find [0, 64K) and [128K, 192K)
 * as the data: a COW reservation over a hole holds no data until a write
 * lands there (xfs_seek_iomap_begin() reports it as unwritten, and the
 * page cache decides).
 * Catches: a COW fork extent over a hole answered wrongly by the seek
 * mapping (an error, data where there is none, a hole over the dirty
 * block; 048-call-arg-xfs_seek_iomap_begin of generated sample 1, whose
 * error went unseen: no test seeks in a file with COW reservations).
 */
TEST_F(reflink_cow, seek_over_cow_reservation_finds_only_the_data)
{
	static const int whence[2] = { SEEK_DATA, SEEK_HOLE };
	uint8_t buf[4096];
	uint64_t off;
	int j;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, make_src(self, 31)) TH_LOG("%s", self->why);
	ASSERT_EQ(0, ftruncate(self->dst, IOP_K(192)));
	CLONE_OR_SKIP(0, IOP_K(64), 0);
	CLONE_OR_SKIP(IOP_K(128), IOP_K(64), IOP_K(128));
	ASSERT_EQ(0, fsync(self->dst));
	iop_pattern_fill(buf, IOP_K(60), sizeof(buf), 37);
	ASSERT_EQ(0, iop_pwrite_all(self->dst, buf, sizeof(buf), IOP_K(60)));
	memcpy(self->dst_model + IOP_K(60), buf, sizeof(buf));

	for (off = 0; off < IOP_K(192); off += 4096) {
		bool in_hole = off >= IOP_K(64) && off < IOP_K(128);

		for (j = 0; j < 2; j++) {
			/* SEEK_DATA: here, or 128K in the hole; SEEK_HOLE: the data's end */
			uint64_t hole_at = off < IOP_K(64) ? IOP_K(64) : IOP_K(192);
			uint64_t want_u = j ? (in_hole ? off : hole_at) : (in_hole ? IOP_K(128) : off);
			off_t want = (off_t)want_u;
			off_t got = lseek(self->dst, (off_t)off, whence[j]);

			EXPECT_EQ(want, got)
				TH_LOG("%s from %" PRIu64 ": %lld (%s), expected %lld",
				       j ? "SEEK_HOLE" : "SEEK_DATA", off, (long long)got,
				       got < 0 ? strerror(errno) : "no error", (long long)want);
		}
	}
	EXPECT_EQ(0, iop_file_compare(self->dst, self->dst_model, IOP_K(192), self->why,
				      sizeof(self->why))) TH_LOG("dst: %s", self->why);
}

/*
 * dst = [S 0-64K cloned][P 64-128K private, written]. One O_DIRECT write
 * of [32K, 96K): dst reads back the model, src is unchanged, and after
 * fsync dst shares exactly [0, 32K) with src.
 * Catches: SHARED state carried from the shared mapping to the private
 * one (needless COW) or lost on the shared one (write-through into the
 * clone source, src changes).
 */
TEST_F(reflink_cow, direct_write_across_shared_and_private_copies_only_shared)
{
	static const struct iop_region priv[] = {
		{ 0, IOP_K(64), IOP_REGION_HOLE },
		{ IOP_K(64), IOP_K(64), IOP_REGION_WRITTEN },
	};
	static const struct byte_range still_shared = { 0, IOP_K(32) };
	int dfd;
	ssize_t ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, make_src(self, 24)) TH_LOG("%s", self->why);
	ASSERT_EQ(0, iop_layout_build(self->dst, priv, 2, self->dst_model, 25, self->why,
				      sizeof(self->why))) TH_LOG("%s", self->why);
	CLONE_OR_SKIP(0, IOP_K(64), 0);

	dfd = iop_open_at(self->fs.scratch->mnt, "dst", O_RDWR | O_DIRECT, 0);
	ASSERT_LE(0, dfd) TH_LOG("open O_DIRECT: %s", strerror(-dfd));
	iop_pattern_fill(self->buf, IOP_K(32), IOP_K(64), 26);
	memcpy(self->dst_model + IOP_K(32), self->buf, IOP_K(64));
	ret = pwrite(dfd, self->buf, IOP_K(64), IOP_K(32));
	close(dfd);
	ASSERT_EQ((ssize_t)IOP_K(64), ret) TH_LOG("pwrite O_DIRECT: %s",
						  ret < 0 ? strerror(errno) : "short write");

	ASSERT_EQ(0, fsync(self->dst));
	EXPECT_EQ(0, iop_file_compare(self->dst, self->dst_model, IOP_K(128), self->why,
				      sizeof(self->why))) TH_LOG("dst: %s", self->why);
	EXPECT_EQ(0, iop_file_compare(self->src, self->src_model, FILE_SIZE, self->why,
				      sizeof(self->why))) TH_LOG("src: %s", self->why);
	EXPECT_EQ(0, check_shared(self->dst, &still_shared, 1, self->why, sizeof(self->why)))
		TH_LOG("dst: %s", self->why);
}

TEST_HARNESS_MAIN
