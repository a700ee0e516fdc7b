// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * O_DIRECT reads and writes that span several extents: one request over
 * [written][hole + dirty delalloc][unwritten][written], through
 * preadv/pwritev and through io_uring with a registered file and fixed
 * buffers, plus per-extent and boundary-straddling requests.
 *
 * iomap_dio_rw() runs one iomap_iter loop per request, one mapping per
 * extent, and every byte must come from (or go to) the extent it belongs
 * to. The bug they catch is a kernel that gets that wrong: a hole or
 * unwritten extent read as mapped blocks, a write that lands
 * in the wrong place, a short or partial write show as data that differs
 * from an in-memory model, compared byte for byte. What these tests do not
 * see: a type or NEW flag left over from the previous extent by the core
 * (the memset "iomap: avoid memset iomap when iter is done" moved), since
 * ext4's and XFS's ->iomap_begin set both on every call; iomap_trace
 * judges the mapping sequence itself. The 2026 "simple dio" read fast path
 * takes MAPPED extents only; the per-extent reads check its fallback for
 * the others.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <sys/uio.h>
#ifdef HAVE_LIBURING
#include <liburing.h>
#include "uring_helpers.h"
#endif

#include "iopath_test.h"
#include "iomap_layout.h"

/* [W 0-64K][H 64-128K, delalloc 80-84K][U 128-192K][W 192-256K] */
static const struct iop_region layout[] = {
	{ 0 * IOP_R64, IOP_R64, IOP_REGION_WRITTEN },
	{ 1 * IOP_R64, IOP_K(16), IOP_REGION_HOLE },
	{ IOP_K(80), IOP_K(4), IOP_REGION_DELALLOC },
	{ IOP_K(84), IOP_K(44), IOP_REGION_HOLE },
	{ 2 * IOP_R64, IOP_R64, IOP_REGION_UNWRITTEN },
	{ 3 * IOP_R64, IOP_R64, IOP_REGION_WRITTEN },
};

#define NLAYOUT (ARRAY_SIZE(layout))

FIXTURE(dio_span) {
	struct iop_test_fs fs;
	int fd;			/* buffered: builds the layout */
	int dfd;		/* O_DIRECT */
	uint8_t *model;
	uint8_t *buf;		/* IOP_LAYOUT_SIZE, 4K aligned */
#ifdef HAVE_LIBURING
	struct io_uring ring;
#endif
	bool ring_up;
	char why[192];
};

FIXTURE_VARIANT(dio_span) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(dio_span);

FIXTURE_SETUP(dio_span)
{
	int err = 0;

	self->fd = -1;
	self->dfd = -1;
	self->model = calloc(1, IOP_LAYOUT_SIZE);
	self->buf = iop_alloc_aligned(IOP_LAYOUT_SIZE);
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
	if (!self->fs.scratch)
		return;
	self->fd = iop_open_at(self->fs.scratch->mnt, "span", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (self->fd < 0)
		err = -self->fd;
	if (!err) {
		self->dfd = iop_open_at(self->fs.scratch->mnt, "span", O_RDWR | O_DIRECT, 0);
		if (self->dfd < 0)
			err = -self->dfd;
	}
	if (!err && (!self->model || !self->buf))
		err = ENOMEM;
	if (!err && iop_layout_build(self->fd, layout, NLAYOUT, self->model, 7,
				     self->why, sizeof(self->why)))
		snprintf(self->fs.error, sizeof(self->fs.error), "layout: %s", self->why);
	if (err)
		snprintf(self->fs.error, sizeof(self->fs.error), "open span: %s", strerror(err));
}

#ifdef HAVE_LIBURING
/*
 * Ring teardown is asynchronous: a file still registered when the ring fd
 * closes is released later by a kernel worker, and the scratch unmount
 * right after the test would find the filesystem busy. Unregistering
 * waits for the references to go.
 */
static void ring_teardown(struct io_uring *ring)
{
	io_uring_unregister_buffers(ring);
	io_uring_unregister_files(ring);
	io_uring_queue_exit(ring);
}
#endif

FIXTURE_TEARDOWN(dio_span)
{
#ifdef HAVE_LIBURING
	if (self->ring_up)
		ring_teardown(&self->ring);
#endif
	IOP_CLOSE_FDS(self->dfd, self->fd);
	free(self->model);
	free(self->buf);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/* Offsets of 4K O_DIRECT probes: every region's first, a middle and last block. */
static unsigned int probe_offsets(uint64_t *offs)
{
	unsigned int i, k = 0;

	for (i = 0; i < NLAYOUT; i++) {
		offs[k++] = layout[i].offset;
		offs[k++] = layout[i].offset + (layout[i].length / 2 & ~4095ull);
		offs[k++] = layout[i].offset + layout[i].length - 4096;
	}
	return k;
}

/*
 * One preadv over the whole file with segment boundaries that are not
 * extent boundaries, then 4K reads from every extent and 8K reads that
 * straddle each extent boundary, then the EOF and misalignment edges.
 * Catches: a hole or unwritten extent read as mapped blocks (another
 * extent's data instead of zeros), delalloc data not flushed before the
 * read, a wrong advance between mappings.
 */
TEST_F(dio_span, preadv_across_extents_returns_model_bytes)
{
	static const size_t seg[] = { IOP_K(20), IOP_K(100), IOP_K(8), IOP_K(128) };
	struct iovec iov[4];
	uint64_t offs[3 * NLAYOUT];
	unsigned int i, n;
	size_t pos = 0;
	ssize_t ret;

	IOP_TEST_BEGIN(&self->fs);
	for (i = 0; i < 4; i++) {
		iov[i].iov_base = self->buf + pos;
		iov[i].iov_len = seg[i];
		pos += seg[i];
	}
	ASSERT_EQ(IOP_LAYOUT_SIZE, pos);
	ret = preadv(self->dfd, iov, 4, 0);
	ASSERT_EQ((ssize_t)IOP_LAYOUT_SIZE, ret) TH_LOG("preadv: %s", ret < 0 ? strerror(errno) : "short");
	EXPECT_EQ(0, iop_model_compare(self->buf, self->model, 0, IOP_LAYOUT_SIZE, self->why,
				       sizeof(self->why))) TH_LOG("preadv: %s", self->why);

	n = probe_offsets(offs);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, iop_pread_all(self->dfd, self->buf, 4096, offs[i]));
		EXPECT_EQ(0, iop_model_compare(self->buf, self->model, offs[i], 4096, self->why,
					       sizeof(self->why))) TH_LOG("4K at %" PRIu64 ": %s",
									  offs[i], self->why);
	}
	for (i = 1; i < NLAYOUT; i++) {
		uint64_t off = layout[i].offset - 4096;

		ASSERT_EQ(0, iop_pread_all(self->dfd, self->buf, 8192, off));
		EXPECT_EQ(0, iop_model_compare(self->buf, self->model, off, 8192, self->why,
					       sizeof(self->why))) TH_LOG("8K at %" PRIu64 ": %s",
									  off, self->why);
	}

	/* At EOF: 0. Across EOF: the part before it. */
	EXPECT_EQ(0, pread(self->dfd, self->buf, 4096, IOP_LAYOUT_SIZE));
	EXPECT_EQ(4096, pread(self->dfd, self->buf, 8192, IOP_LAYOUT_SIZE - 4096));
	/*
	 * A file offset off the device's logical block: EINVAL, not a
	 * partial transfer. (Buffer address alignment is not checked: it
	 * follows the device's dma_alignment, and zram accepts any.)
	 */
	errno = 0;
	EXPECT_EQ(-1, pread(self->dfd, self->buf, 4096, 1));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * One pwritev of [32K, 224K): the tail of a written extent, the hole with
 * its (now flushed) delalloc block, the whole unwritten extent and the
 * head of the last written extent. The file must then read back as the
 * model both directly and through the page cache, FIEMAP must show
 * no hole and nothing unwritten left in [0, 256K), and st_blocks must
 * cover the whole file (counted by the filesystem, not by an iomap loop
 * as FIEMAP's answer is).
 * Catches: a write that zeroes or skips conversion of a block, a short
 * write, an unwritten extent left unconverted (reads back zeros), a hole
 * left unallocated.
 */
TEST_F(dio_span, pwritev_across_extents_writes_every_byte)
{
	static const size_t seg[] = { IOP_K(36), IOP_K(4), IOP_K(120), IOP_K(32) };
	const uint64_t start = IOP_K(32);
	struct iop_fiemap f;
	struct iovec iov[4];
	struct stat st;
	uint64_t covered = 0;
	unsigned int i;
	size_t pos = 0;
	ssize_t ret;
	int n;

	IOP_TEST_BEGIN(&self->fs);
	for (i = 0; i < 4; i++) {
		iov[i].iov_base = self->buf + pos;
		iov[i].iov_len = seg[i];
		pos += seg[i];
	}
	ASSERT_EQ(IOP_K(192), pos);
	iop_pattern_fill(self->buf, start, pos, 8);
	memcpy(self->model + start, self->buf, pos);
	ret = pwritev(self->dfd, iov, 4, (off_t)start);
	ASSERT_EQ((ssize_t)pos, ret) TH_LOG("pwritev: %s", ret < 0 ? strerror(errno) : "short");

	ASSERT_EQ(0, iop_pread_all(self->dfd, self->buf, IOP_LAYOUT_SIZE, 0));
	EXPECT_EQ(0, iop_model_compare(self->buf, self->model, 0, IOP_LAYOUT_SIZE, self->why,
				       sizeof(self->why))) TH_LOG("O_DIRECT read: %s", self->why);
	EXPECT_EQ(0, iop_file_compare(self->fd, self->model, IOP_LAYOUT_SIZE, self->why,
				      sizeof(self->why))) TH_LOG("buffered read: %s", self->why);

	ASSERT_EQ(0, fsync(self->fd));
	n = iop_fiemap(self->fd, 0, IOP_LAYOUT_SIZE, &f);
	ASSERT_LT(0, n) TH_LOG("FIEMAP: %s", strerror(-n));
	for (i = 0; i < (unsigned int)n; i++) {
		EXPECT_EQ(covered, f.ext[i].fe_logical) TH_LOG("hole before extent %u", i);
		EXPECT_EQ(0, f.ext[i].fe_flags & FIEMAP_EXTENT_UNWRITTEN)
			TH_LOG("extent %u at %llu still unwritten", i, f.ext[i].fe_logical);
		covered = f.ext[i].fe_logical + f.ext[i].fe_length;
	}
	EXPECT_EQ(IOP_LAYOUT_SIZE, covered);
	ASSERT_EQ(0, fstat(self->fd, &st));
	EXPECT_LE(IOP_LAYOUT_SIZE, (uint64_t)st.st_blocks * 512)
		TH_LOG("st_blocks %lld: less than the %llu bytes FIEMAP shows allocated",
		       (long long)st.st_blocks, (unsigned long long)IOP_LAYOUT_SIZE);
}

#ifdef HAVE_LIBURING
/* io_uring with the file and the buffers registered, or a skip reason. */
static int ring_setup(struct io_uring *ring, int fd, void *buf, size_t len, char *why, size_t wlen)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	int ret;

	ret = io_uring_queue_init(64, ring, 0);
	if (ret) {
		snprintf(why, wlen, "io_uring_queue_init: %s", strerror(-ret));
		return ret;
	}
	ret = io_uring_register_files(ring, &fd, 1);
	if (!ret)
		ret = io_uring_register_buffers(ring, &iov, 1);
	if (ret) {
		snprintf(why, wlen, "io_uring registration: %s", strerror(-ret));
		io_uring_queue_exit(ring);
	}
	return ret;
}

/* One fixed-buffer read or write of the registered file (index 0). */
static int ring_rw(struct io_uring *ring, bool write, uint8_t *addr, size_t len, uint64_t off)
{
	return t_rw_fixed(ring, 0, IOSQE_FIXED_FILE, write, addr, len, off);
}

/*
 * The same spans through io_uring (IORING_OP_READ_FIXED/WRITE_FIXED on a
 * registered O_DIRECT file): a read of the whole file, 4K reads from every
 * extent, then one write over [hole][unwritten] (96K..160K) and a read of
 * everything back.
 * Catches: what the preadv/pwritev tests catch, on the io_uring path
 * (iomap_dio_rw() entered with IOCB_NOWAIT first and retried from
 * io-wq: a mapping state that survives the -EAGAIN retry).
 */
TEST_F(dio_span, io_uring_fixed_buffers_span_extents)
{
	struct io_uring *ring = &self->ring;
	uint64_t offs[3 * NLAYOUT];
	unsigned int i, n;
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	if (iop_probe("io_uring", self->why, sizeof(self->why)) == 0)
		SKIP(return, "%s", self->why);
	ret = ring_setup(ring, self->dfd, self->buf, IOP_LAYOUT_SIZE, self->why, sizeof(self->why));
	ASSERT_EQ(0, ret) TH_LOG("%s", self->why);
	self->ring_up = true;

	ret = ring_rw(ring, false, self->buf, IOP_LAYOUT_SIZE, 0);
	EXPECT_EQ((int)IOP_LAYOUT_SIZE, ret) TH_LOG("READ_FIXED: %s", strerror(ret < 0 ? -ret : 0));
	EXPECT_EQ(0, iop_model_compare(self->buf, self->model, 0, IOP_LAYOUT_SIZE, self->why,
				       sizeof(self->why))) TH_LOG("whole file: %s", self->why);

	n = probe_offsets(offs);
	for (i = 0; i < n; i++) {
		uint8_t *b = self->buf + 4096 * (i % 16);

		ret = ring_rw(ring, false, b, 4096, offs[i]);
		EXPECT_EQ(4096, ret) TH_LOG("READ_FIXED 4K at %" PRIu64, offs[i]);
		EXPECT_EQ(0, iop_model_compare(b, self->model, offs[i], 4096, self->why,
					       sizeof(self->why))) TH_LOG("%s", self->why);
	}

	iop_pattern_fill(self->buf, IOP_K(96), IOP_K(64), 9);
	memcpy(self->model + IOP_K(96), self->buf, IOP_K(64));
	ret = ring_rw(ring, true, self->buf, IOP_K(64), IOP_K(96));
	EXPECT_EQ((int)IOP_K(64), ret) TH_LOG("WRITE_FIXED: %s", strerror(ret < 0 ? -ret : 0));

	memset(self->buf, 0xee, IOP_LAYOUT_SIZE);
	ret = ring_rw(ring, false, self->buf, IOP_LAYOUT_SIZE, 0);
	EXPECT_EQ((int)IOP_LAYOUT_SIZE, ret);
	EXPECT_EQ(0, iop_model_compare(self->buf, self->model, 0, IOP_LAYOUT_SIZE, self->why,
				       sizeof(self->why))) TH_LOG("after write: %s", self->why);
}
#else
TEST_F(dio_span, io_uring_fixed_buffers_span_extents)
{
	IOP_TEST_BEGIN(&self->fs);
	SKIP(return, IOP_NO_LIBURING);
}
#endif

TEST_HARNESS_MAIN
