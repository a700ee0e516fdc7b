// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The alignment of a single-segment import is judged by its buffer
 * address as well as its length.
 *
 * read(2), write(2) and one-segment readv(2)/writev(2)/preadv2/pwritev2
 * hand the filesystem an ITER_UBUF (since 6.4); iov_iter_alignment()
 * folds the buffer address into the alignment it reports for it, as it
 * does for every segment of an ITER_IOVEC. Filesystems decide with it:
 * ext4 whether a direct write is unaligned (exclusive inode lock and a
 * wait for other direct I/O before partial-block zeroing, -EAGAIN under
 * RWF_NOWAIT; ext4_unaligned_io()) and, for files with a DIO alignment
 * of their own, whether to fall back to buffered I/O
 * (ext4_should_use_dio()). The bug class: an import whose alignment
 * ignores the address, so a block-misaligned buffer is taken for an
 * aligned one and the I/O goes down a path that was never meant for it.
 *
 * The documented answers, over O_DIRECT files on ext4 and XFS with 4 KiB
 * and 1 KiB blocks on a loop device with 512-byte sectors:
 *   - a buffer address off the device's DMA alignment, with an aligned
 *     length and position: EINVAL, or (a filesystem that falls back to
 *     buffered I/O) the whole transfer with the right bytes; the
 *     single-segment calls all give the same answer, and a failure moves
 *     no file position and changes no byte;
 *   - a buffer on the DMA alignment but off the block: direct I/O that
 *     transfers the right bytes;
 *   - ext4: an RWF_NOWAIT direct write from a block-misaligned buffer into
 *     unwritten blocks needs the exclusive lock, so it returns EAGAIN,
 *     where the same write from an aligned buffer goes through.
 * read, readv and preadv2 with one segment, readv with two, and io_uring
 * with a fixed (registered) buffer; the same for writes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <fcntl.h>
#include <liburing.h>
#include "uring_helpers.h"
#include <sys/stat.h>
#include <sys/uio.h>

#include "iopath_test.h"
#include "iomap_layout.h"

#define FILE_SIZE	IOP_K(64)
#define BUF_LEN		IOP_K(128)

enum method { M_PLAIN, M_V1, M_PV2, M_V2, M_URING, M_NR };

static const char *const rname[M_NR] = {
	"read", "readv(1)", "preadv2(1)", "readv(2)", "io_uring READ_FIXED",
};

static const char *const wname[M_NR] = {
	"write", "writev(1)", "pwritev2(1)", "writev(2)", "io_uring WRITE_FIXED",
};

/* What the two fixtures share: an O_DIRECT file, its model, a ring. */
struct align_fs {
	struct iop_test_fs fs;
	int fd;			/* O_DIRECT */
	int bfd;		/* buffered, for checking */
	unsigned int unit;	/* DIO offset and length alignment */
	unsigned int mem;	/* DIO memory alignment */
	uint8_t *buf;		/* BUF_LEN, page aligned, registered with the ring */
	uint8_t *model;		/* FILE_SIZE */
	struct io_uring ring;
	bool ring_up;
	char ring_why[128];
	char why[256];
};

static void align_setup(struct align_fs *a, const char *fstype, const char *mkfs_opts,
			const char *mount_opts, bool fallocated)
{
	/*
	 * A loop device with 512-byte sectors: a DMA alignment below the
	 * block for every block size. (zram is not used: on 6.18 it returns
	 * and stores wrong bytes for direct I/O from a buffer off a page
	 * boundary that spans pages.)
	 */
	const struct iop_scratch_opts want = {
		.fstype = fstype, .mkfs_opts = mkfs_opts, .mount_opts = mount_opts,
		.sector_size = 512,
		.size = strcmp(fstype, "xfs") ? (64ull << 20) : (300ull << 20),
	};
	struct statx stx;
	int ret;

	a->fd = -1;
	a->bfd = -1;
	a->buf = iop_alloc_aligned(BUF_LEN);
	a->model = calloc(1, FILE_SIZE);
	iop_test_fs_setup_opts(&a->fs, &want);
	if (!a->fs.scratch)
		return;
	if (!a->buf || !a->model) {
		snprintf(a->fs.error, sizeof(a->fs.error), "out of memory");
		return;
	}
	a->bfd = iop_open_at(a->fs.scratch->mnt, "file",
			     O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	if (a->bfd < 0) {
		snprintf(a->fs.error, sizeof(a->fs.error), "create file: %s", strerror(-a->bfd));
		return;
	}
	if (fallocated) {
		ret = fallocate(a->bfd, 0, 0, FILE_SIZE) ? -errno : 0;
	} else {
		iop_pattern_fill(a->model, 0, FILE_SIZE, 5);
		ret = iop_pwrite_all(a->bfd, a->model, FILE_SIZE, 0);
	}
	if (!ret && fsync(a->bfd))
		ret = -errno;
	if (ret) {
		snprintf(a->fs.error, sizeof(a->fs.error), "writing the file: %s", strerror(-ret));
		return;
	}
	a->fd = iop_open_at(a->fs.scratch->mnt, "file", O_RDWR | O_DIRECT, 0);
	if (a->fd < 0) {
		snprintf(a->fs.error, sizeof(a->fs.error), "open O_DIRECT: %s", strerror(-a->fd));
		return;
	}
	/* STATX_DIOALIGN: ext4 and XFS report it since 6.1. */
	if (statx(a->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) ||
	    !(stx.stx_mask & STATX_DIOALIGN) || !stx.stx_dio_offset_align) {
		snprintf(a->fs.error, sizeof(a->fs.error), "statx(STATX_DIOALIGN) of an O_DIRECT file: %s",
			 errno ? strerror(errno) : "not reported");
		return;
	}
	a->unit = stx.stx_dio_offset_align;
	a->mem = stx.stx_dio_mem_align;
	if (iop_probe("io_uring", a->ring_why, sizeof(a->ring_why)) > 0) {
		ret = t_ring_with_buffer(&a->ring, 4, a->buf, BUF_LEN);
		if (ret)
			snprintf(a->fs.error, sizeof(a->fs.error), "io_uring: %s", strerror(-ret));
		a->ring_up = !ret;
	}
}

static void align_teardown(struct align_fs *a)
{
	if (a->ring_up) {
		io_uring_unregister_buffers(&a->ring);
		io_uring_queue_exit(&a->ring);
	}
	IOP_CLOSE_FDS(a->fd, a->bfd);
	free(a->buf);
	free(a->model);
}

/*
 * One transfer of @len bytes at file offset @pos from or to @addr, by
 * @m; the two-segment form splits at @split. The result or -errno. The
 * position-moving calls start from @pos as the file position.
 */
static ssize_t xfer(struct align_fs *a, bool wr, enum method m, uint8_t *addr, size_t len,
		    uint64_t pos, size_t split, int rwf)
{
	struct iovec iov[2] = {
		{ .iov_base = addr, .iov_len = m == M_V2 ? split : len },
		{ .iov_base = addr + split, .iov_len = len - split },
	};
	ssize_t n;

	if (m != M_URING && m != M_PV2 && lseek(a->fd, (off_t)pos, SEEK_SET) < 0)
		return -errno;
	switch (m) {
	case M_PLAIN:
		n = wr ? write(a->fd, addr, len) : read(a->fd, addr, len);
		break;
	case M_V1:
		n = wr ? writev(a->fd, iov, 1) : readv(a->fd, iov, 1);
		break;
	case M_PV2:
		n = wr ? pwritev2(a->fd, iov, 1, (off_t)pos, rwf) :
			    preadv2(a->fd, iov, 1, (off_t)pos, rwf);
		break;
	case M_V2:
		n = wr ? writev(a->fd, iov, 2) : readv(a->fd, iov, 2);
		break;
	default:
		return t_rw_fixed(&a->ring, a->fd, 0, wr, addr, len, pos);
	}
	return n < 0 ? -errno : n;
}

FIXTURE(iov_align) {
	struct align_fs a;
};

FIXTURE_VARIANT(iov_align) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(iov_align);

FIXTURE_SETUP(iov_align)
{
	align_setup(&self->a, variant->fstype, variant->mkfs_opts, variant->mount_opts, false);
}

FIXTURE_TEARDOWN(iov_align)
{
	align_teardown(&self->a);
	IOP_TEST_FS_TEARDOWN(&self->a.fs);
}

/* The file as the model says, read through the page cache. */
static int file_matches(struct align_fs *a)
{
	return iop_file_compare(a->bfd, a->model, FILE_SIZE, a->why, sizeof(a->why));
}

/*
 * Reads of two blocks' worth (in DIO units) at a unit-aligned position,
 * into a buffer @shift bytes off a page. Each method's answer must be
 * EINVAL (then the file position stays) or the whole range with the
 * file's bytes (then the position moved past it); with @must_succeed,
 * only the latter. The single-segment calls must agree.
 */
static void read_methods(struct __test_metadata *_metadata, struct align_fs *a,
			 unsigned int blksz, size_t shift, bool must_succeed)
{
	size_t len = (2 * blksz + a->unit - 1) / a->unit * a->unit;
	uint64_t pos = 2 * len;
	ssize_t got[M_NR] = { 0 };
	off_t at;
	int m;

	for (m = 0; m < M_NR; m++) {
		if (m == M_URING && !a->ring_up) {
			TH_LOG("io_uring left out: %s", a->ring_why);
			continue;
		}
		memset(a->buf, 0xee, BUF_LEN);
		got[m] = xfer(a, false, m, a->buf + shift, len, pos,
			      len / 2 < a->unit ? len : len / 2, 0);
		if (got[m] == -EINVAL && !must_succeed) {
			if (m != M_URING && m != M_PV2) {
				at = lseek(a->fd, 0, SEEK_CUR);
				EXPECT_EQ((off_t)pos,
					  at) TH_LOG("%s: EINVAL moved the position", rname[m]);
			}
			continue;
		}
		ASSERT_EQ((ssize_t)len, got[m])
			TH_LOG("%s of %zu at %llu into page + %zu: %s, expected %s%zu", rname[m],
			       len, (unsigned long long)pos, shift,
			       got[m] < 0 ? strerror((int)-got[m]) : "short",
			       must_succeed ? "" : "EINVAL or ", len);
		EXPECT_EQ(0, iop_model_compare(a->buf + shift, a->model, pos, len, a->why,
					       sizeof(a->why))) TH_LOG("%s: %s", rname[m], a->why);
		if (m != M_URING && m != M_PV2) {
			at = lseek(a->fd, 0, SEEK_CUR);
			EXPECT_EQ((off_t)(pos + len),
				  at) TH_LOG("%s moved the position wrongly", rname[m]);
		}
	}
	EXPECT_EQ(got[M_PLAIN], got[M_V1]) TH_LOG("read and readv(1) disagree");
	EXPECT_EQ(got[M_PLAIN], got[M_PV2]) TH_LOG("read and preadv2(1) disagree");
}

/* The same for writes: EINVAL and no byte changed, or every byte written. */
static void write_methods(struct __test_metadata *_metadata, struct align_fs *a,
			  unsigned int blksz, size_t shift, bool must_succeed)
{
	size_t len = (2 * blksz + a->unit - 1) / a->unit * a->unit;
	uint64_t pos = len;
	ssize_t got[M_NR] = { 0 };
	int m;

	for (m = 0; m < M_NR; m++) {
		if (m == M_URING && !a->ring_up) {
			TH_LOG("io_uring left out: %s", a->ring_why);
			continue;
		}
		iop_pattern_fill(a->buf + shift, pos, len, 20 + m + (unsigned int)shift);
		got[m] = xfer(a, true, m, a->buf + shift, len, pos,
			      len / 2 < a->unit ? len : len / 2, 0);
		if (got[m] != -EINVAL || must_succeed) {
			ASSERT_EQ((ssize_t)len, got[m])
				TH_LOG("%s of %zu at %llu from page + %zu: %s, expected %s%zu",
				       wname[m], len, (unsigned long long)pos, shift,
				       got[m] < 0 ? strerror((int)-got[m]) : "short",
				       must_succeed ? "" : "EINVAL or ", len);
			memcpy(a->model + pos, a->buf + shift, len);
		}
		EXPECT_EQ(0, file_matches(a)) TH_LOG("after %s (%zd): %s", wname[m],
						     got[m], a->why);
	}
	EXPECT_EQ(got[M_PLAIN], got[M_V1]) TH_LOG("write and writev(1) disagree");
	EXPECT_EQ(got[M_PLAIN], got[M_PV2]) TH_LOG("write and pwritev2(1) disagree");
}

/*
 * A buffer off the device's DMA alignment (half of it), position and
 * length aligned. Catches: a single-segment import whose address is not
 * checked (a transfer from the wrong bytes, a moved position or changed
 * file after a refusal), and the single-segment calls disagreeing.
 */
TEST_F(iov_align, dma_misaligned_buffer_read_is_refused_or_exact)
{
	IOP_TEST_BEGIN(&self->a.fs);
	read_methods(_metadata, &self->a, variant->blksz, self->a.mem > 1 ? self->a.mem / 2 : 0,
		     false);
}

TEST_F(iov_align, dma_misaligned_buffer_write_is_refused_or_exact)
{
	IOP_TEST_BEGIN(&self->a.fs);
	write_methods(_metadata, &self->a, variant->blksz, self->a.mem > 1 ? self->a.mem / 2 : 0,
		      false);
}

/*
 * A buffer on the DMA alignment but off the filesystem block (one DMA
 * unit into a page): plain direct I/O on ext4 and XFS, every byte right.
 */
TEST_F(iov_align, block_misaligned_buffer_reads_and_writes_directly)
{
	IOP_TEST_BEGIN(&self->a.fs);
	ASSERT_LT(self->a.mem, variant->blksz) TH_LOG("DMA alignment %u", self->a.mem);
	read_methods(_metadata, &self->a, variant->blksz, self->a.mem, true);
	write_methods(_metadata, &self->a, variant->blksz, self->a.mem, true);
}

/* ext4's direct write locking over unwritten blocks. */
FIXTURE(iov_align_ext4) {
	struct align_fs a;
};

FIXTURE_VARIANT(iov_align_ext4) {
	IOP_FS_VARIANT_FIELDS;
};

FIXTURE_VARIANT_ADD(iov_align_ext4, ext4) { IOP_FS_EXT4 };
FIXTURE_VARIANT_ADD(iov_align_ext4, ext4_1k) { IOP_FS_EXT4_1K };

FIXTURE_SETUP(iov_align_ext4)
{
	align_setup(&self->a, variant->fstype, variant->mkfs_opts, variant->mount_opts, true);
}

FIXTURE_TEARDOWN(iov_align_ext4)
{
	align_teardown(&self->a);
	IOP_TEST_FS_TEARDOWN(&self->a.fs);
}

/*
 * RWF_NOWAIT direct writes of one block into unwritten blocks of a
 * fallocated file, position and length block aligned. From an aligned
 * buffer the write is an overwrite under the shared inode lock and goes
 * through (the control: where it does not, this kernel takes the
 * exclusive lock for every such write, and the test cannot tell buffers
 * apart). From a buffer one DMA unit off the block, ext4_unaligned_io()
 * must see an unaligned write, which may need partial-block zeroing and
 * therefore the exclusive lock: EAGAIN, for one segment (ITER_UBUF) as
 * for two (ITER_IOVEC). Without RWF_NOWAIT it then writes every byte.
 * Catches: the alignment of a single-segment import computed without its
 * address (the write from the misaligned buffer goes through unlocked).
 */
TEST_F(iov_align_ext4, nowait_write_from_block_misaligned_buffer_needs_the_lock)
{
	struct align_fs *a = &self->a;
	const unsigned int bs = variant->blksz;
	const size_t shift = a->mem;
	struct iovec iov[2];
	ssize_t n;

	IOP_TEST_BEGIN(&a->fs);
	ASSERT_LT(shift, bs) TH_LOG("DMA alignment %u", a->mem);
	/* Clears the inode's security bits once: no lock upgrade for that later. */
	iop_pattern_fill(a->buf, 0, bs, 30);
	ASSERT_EQ((ssize_t)bs, pwrite(a->fd, a->buf, bs, 0)) TH_LOG("%s", strerror(errno));
	memcpy(a->model, a->buf, bs);

	iop_pattern_fill(a->buf, bs, bs, 31);
	iov[0].iov_base = a->buf;
	iov[0].iov_len = bs;
	n = pwritev2(a->fd, iov, 1, bs, RWF_NOWAIT);
	if (n == -1 && errno == EAGAIN)
		SKIP(return, "an aligned RWF_NOWAIT direct write into unwritten blocks returns EAGAIN too: this kernel takes the exclusive lock for all of them");
	ASSERT_EQ((ssize_t)bs, n) TH_LOG("control, aligned RWF_NOWAIT write: %s",
					 n < 0 ? strerror(errno) : "short");
	memcpy(a->model + bs, a->buf, bs);

	iop_pattern_fill(a->buf + shift, 2 * bs, bs, 32);
	iov[0].iov_base = a->buf + shift;
	n = pwritev2(a->fd, iov, 1, 2 * bs, RWF_NOWAIT);
	EXPECT_EQ(-1, n) TH_LOG("RWF_NOWAIT write of one segment from page + %zu returned %zd: taken as aligned",
				shift, n);
	EXPECT_EQ(EAGAIN, errno);
	if (n == (ssize_t)bs)
		memcpy(a->model + 2 * bs, a->buf + shift, bs);

	iov[0].iov_len = shift;
	iov[1].iov_base = a->buf + shift + shift;
	iov[1].iov_len = bs - shift;
	n = pwritev2(a->fd, iov, 2, 3 * bs, RWF_NOWAIT);
	EXPECT_EQ(-1,
		  n) TH_LOG("RWF_NOWAIT write of two segments from page + %zu returned %zd", shift,
			    n);
	EXPECT_EQ(EAGAIN, errno);
	if (n == (ssize_t)bs)
		memcpy(a->model + 3 * bs, a->buf + shift, bs);

	iov[0].iov_base = a->buf + shift;
	iov[0].iov_len = bs;
	n = pwritev2(a->fd, iov, 1, 4 * bs, 0);
	ASSERT_EQ((ssize_t)bs, n) TH_LOG("blocking write from page + %zu: %s", shift,
					 n < 0 ? strerror(errno) : "short");
	memcpy(a->model + 4 * bs, a->buf + shift, bs);
	EXPECT_EQ(0, file_matches(a)) TH_LOG("%s", a->why);
}

TEST_HARNESS_MAIN
