// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The O_DIRECT alignment rule, the same on every import path.
 *
 * A direct transfer reaches the filesystem through one of several iov_iter
 * imports: read(2)/write(2), readv/writev and preadv2/pwritev2 with one
 * segment (ITER_UBUF since 6.4), with two (ITER_IOVEC), io_uring READ and
 * WRITE (ITER_UBUF), READV and WRITEV (one segment: ITER_UBUF; two:
 * ITER_IOVEC) and READ_FIXED and WRITE_FIXED (ITER_BVEC over a registered
 * buffer). Each import has its own code for the alignment of its buffer
 * address and segment lengths (iov_iter_alignment(), iov_iter_is_aligned(),
 * the bio builder's check of each page). The bug class: a path whose
 * check is missing or wrong, so a request the rule refuses goes through
 * (from the wrong bytes, or a DMA the device cannot do) or one it allows
 * is refused. The test holds every path to the rule, over a matrix of
 * buffer addresses (0, 1, 511, 512 and 4096 - 512 bytes into a page),
 * lengths (a multiple of the offset alignment, one byte more, half a unit
 * less) and file positions (aligned, half a unit off), and checks what
 * each answer did: the bytes transferred, the file and the file position.
 *
 * The rule, as open(2) (O_DIRECT) and statx(2) (STATX_DIOALIGN) document
 * it: a direct read or write succeeds in whole when its file position and
 * the length of every segment are multiples of the offset alignment and
 * the address of every segment is a multiple of the memory alignment;
 * otherwise it fails with EINVAL, and then nothing moved: no byte of the
 * file, not the file position. The alignments:
 *   - stx_dio_mem_align for memory; stx_dio_offset_align for file
 *     positions and lengths, and for reads stx_dio_read_offset_align
 *     where the kernel reports STATX_DIO_READ_ALIGN (6.14 on);
 *   - without STATX_DIOALIGN (before 6.1): the device's, from
 *     /sys/dev/block/M:m/queue: logical_block_size for positions and
 *     lengths, dma_alignment + 1 for memory, or logical_block_size for
 *     memory too where sysfs has no dma_alignment (before 6.0 the block
 *     layer required memory aligned to the logical block).
 * The expectation is derived from the rule in expect_ok(), never from a
 * run. Where the rule has exceptions, the test stays out of them: reads
 * are of written blocks inside EOF (reads of holes and unwritten extents
 * never reach the device and are not checked; a read at EOF returns 0
 * first); the file is a plain one, neither an ext4 encrypted or verity
 * file nor an XFS reflinked (COW) one, which fall back to buffered I/O
 * for some misaligned writes; two-segment requests split at a multiple of
 * the offset alignment, so that they are aligned exactly when the total
 * is. The scratch is a loop device with 512-byte sectors: offsets and
 * lengths below the 1 KiB and 4 KiB filesystem blocks are allowed, memory
 * one byte off is not.
 *
 * The same for the other side of the rule: a direct read of an aligned
 * range that crosses EOF returns the bytes up to EOF, through every path
 * that reads (pread, splice, sendfile, copy_file_range).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#ifdef HAVE_LIBURING
#include <liburing.h>
#include "uring_helpers.h"
#endif

#include "iopath_test.h"
#include "iomap_layout.h"

#define FILE_SIZE	IOP_K(256)
#define BUF_LEN		IOP_K(64)

#ifndef STATX_DIO_READ_ALIGN
#define STATX_DIO_READ_ALIGN 0x00020000U
#endif
/* stx_dio_read_offset_align's place in the UAPI struct statx (6.14 on). */
#define STATX_DIO_READ_OFFSET_ALIGN_AT 0xb4

/* The import paths, each for reads and for writes. */
enum path { P_PLAIN, P_V1, P_V2, P_PV2, P_URING, P_URINGV1, P_URINGV2, P_FIXED, P_NR };

static const char *const rname[P_NR] = {
	"read", "readv(1)", "readv(2)", "preadv2(1)", "io_uring READ",
	"io_uring READV(1)", "io_uring READV(2)", "io_uring READ_FIXED",
};

static const char *const wname[P_NR] = {
	"write", "writev(1)", "writev(2)", "pwritev2(1)", "io_uring WRITE",
	"io_uring WRITEV(1)", "io_uring WRITEV(2)", "io_uring WRITE_FIXED",
};

/* Buffer addresses: bytes into a page. */
static const size_t shifts[] = { 0, 1, 511, 512, 4096 - 512 };

struct dio_rule {
	unsigned int mem;	/* memory alignment */
	unsigned int roff;	/* read position and segment length alignment */
	unsigned int woff;	/* the same for writes */
	unsigned int lbs;	/* sysfs logical_block_size */
	unsigned int dma;	/* sysfs dma_alignment + 1 (lbs without it) */
	bool from_statx;
};

FIXTURE(dio_align_matrix) {
	struct iop_test_fs fs;
	int fd;			/* O_DIRECT */
	int bfd;		/* buffered, for checking */
	struct dio_rule rule;
	uint8_t *buf;		/* BUF_LEN, page aligned, registered with the ring */
	uint8_t *model;		/* FILE_SIZE */
	uint8_t *check;		/* FILE_SIZE */
#ifdef HAVE_LIBURING
	struct io_uring ring;
#endif
	bool ring_up;
	char ring_why[128];
	char why[256];
};

FIXTURE_VARIANT(dio_align_matrix) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(dio_align_matrix);

/* A decimal number from @dir/@name; 0 if it cannot be read. */
static unsigned int sysfs_uint(const char *dir, const char *name)
{
	char path[160], line[32] = "";
	unsigned long v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	v = strtoul(line, NULL, 10);
	return v > 0 && v < (1ul << 30) ? (unsigned int)v : 0;
}

/*
 * The device's queue limits: its queue directory, or its disk's for a
 * partition. 0, or -ENOENT with @why filled.
 */
static int device_limits(const char *dev, struct dio_rule *r, char *why, size_t wlen)
{
	char dir[96];
	struct stat st;
	unsigned int dma;

	if (stat(dev, &st) || !S_ISBLK(st.st_mode)) {
		snprintf(why, wlen, "%.64s: not a block device", dev);
		return -ENOENT;
	}
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/queue", major(st.st_rdev),
		 minor(st.st_rdev));
	r->lbs = sysfs_uint(dir, "logical_block_size");
	if (!r->lbs) {
		snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/../queue", major(st.st_rdev),
			 minor(st.st_rdev));
		r->lbs = sysfs_uint(dir, "logical_block_size");
	}
	if (!r->lbs) {
		snprintf(why, wlen, "no logical_block_size in sysfs for %.64s", dev);
		return -ENOENT;
	}
	/* dma_alignment is a mask (511 for 512 bytes); 0 is byte alignment. */
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/dma_alignment");
	if (access(dir, R_OK)) {
		r->dma = r->lbs;
	} else {
		*strrchr(dir, '/') = '\0';
		dma = sysfs_uint(dir, "dma_alignment");
		r->dma = dma + 1;
	}
	return 0;
}

/* The rule's alignments: statx's where it has them, else the device's. */
static int derive_rule(int fd, const char *dev, struct dio_rule *r, char *why, size_t wlen)
{
	struct statx stx;
	uint32_t read_align = 0;
	int ret;

	ret = device_limits(dev, r, why, wlen);
	if (ret)
		return ret;
	memset(&stx, 0, sizeof(stx));
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN | STATX_DIO_READ_ALIGN, &stx) == 0 &&
	    (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align) {
		r->from_statx = true;
		r->mem = stx.stx_dio_mem_align;
		r->woff = stx.stx_dio_offset_align;
		r->roff = r->woff;
		if (stx.stx_mask & STATX_DIO_READ_ALIGN) {
			memcpy(&read_align, (uint8_t *)&stx + STATX_DIO_READ_OFFSET_ALIGN_AT,
			       sizeof(read_align));
			if (read_align)
				r->roff = read_align;
		}
		return 0;
	}
	r->mem = r->dma;
	r->roff = r->lbs;
	r->woff = r->lbs;
	return 0;
}

FIXTURE_SETUP(dio_align_matrix)
{
	/* A loop device with 512-byte sectors, as the header says. */
	const struct iop_scratch_opts want = {
		.fstype = variant->fstype, .mkfs_opts = variant->mkfs_opts,
		.mount_opts = variant->mount_opts, .sector_size = 512,
		.size = strcmp(variant->fstype, "xfs") ? (64ull << 20) : (300ull << 20),
	};
	int ret;

	self->fd = -1;
	self->bfd = -1;
	self->buf = iop_alloc_aligned(BUF_LEN);
	self->model = calloc(1, FILE_SIZE);
	self->check = calloc(1, FILE_SIZE);
	iop_test_fs_setup_opts(&self->fs, &want);
	if (!self->fs.scratch)
		return;
	if (!self->buf || !self->model || !self->check) {
		snprintf(self->fs.error, sizeof(self->fs.error), "out of memory");
		return;
	}
	if (self->fs.scratch->backing == IOP_BACKING_DIR) {
		snprintf(self->fs.skip, sizeof(self->fs.skip),
			 "IOPATH_SCRATCH_DIR: no device whose limits the rule could be derived from");
		return;
	}
	self->bfd = iop_open_at(self->fs.scratch->mnt, "file",
				O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	if (self->bfd < 0) {
		snprintf(self->fs.error, sizeof(self->fs.error), "create file: %s",
			 strerror(-self->bfd));
		return;
	}
	/* Every block written and on disk: the reads reach the device. */
	iop_pattern_fill(self->model, 0, FILE_SIZE, 7);
	ret = iop_pwrite_all(self->bfd, self->model, FILE_SIZE, 0);
	if (!ret && fsync(self->bfd))
		ret = -errno;
	if (ret) {
		snprintf(self->fs.error, sizeof(self->fs.error), "writing the file: %s",
			 strerror(-ret));
		return;
	}
	self->fd = iop_open_at(self->fs.scratch->mnt, "file", O_RDWR | O_DIRECT, 0);
	if (self->fd < 0) {
		snprintf(self->fs.error, sizeof(self->fs.error), "open O_DIRECT: %s",
			 strerror(-self->fd));
		return;
	}
	if (derive_rule(self->fd, self->fs.scratch->dev, &self->rule, self->why,
			sizeof(self->why))) {
		snprintf(self->fs.error, sizeof(self->fs.error), "%s", self->why);
		return;
	}
#ifdef HAVE_LIBURING
	if (iop_probe("io_uring", self->ring_why, sizeof(self->ring_why)) > 0) {
		ret = t_ring_with_buffer(&self->ring, 4, self->buf, BUF_LEN);
		if (ret)
			snprintf(self->fs.error, sizeof(self->fs.error), "io_uring: %s",
				 strerror(-ret));
		self->ring_up = !ret;
	}
#else
	snprintf(self->ring_why, sizeof(self->ring_why), "%s", IOP_NO_LIBURING);
#endif
}

FIXTURE_TEARDOWN(dio_align_matrix)
{
#ifdef HAVE_LIBURING
	if (self->ring_up) {
		io_uring_unregister_buffers(&self->ring);
		io_uring_queue_exit(&self->ring);
	}
#endif
	IOP_CLOSE_FDS(self->fd, self->bfd);
	free(self->buf);
	free(self->model);
	free(self->check);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

static bool is_uring(enum path p)
{
	return p >= P_URING;
}

static bool moves_position(enum path p)
{
	return p == P_PLAIN || p == P_V1 || p == P_V2;
}

static unsigned int nsegs(enum path p)
{
	return p == P_V2 || p == P_URINGV2 ? 2 : 1;
}

/*
 * Where a two-segment request splits: the largest multiple of @unit at or
 * below half the length, one unit at least. Both segments are then
 * aligned exactly when the total length is.
 */
static size_t split_at(size_t len, unsigned int unit)
{
	size_t s = len / 2 / unit * unit;

	return s ? s : unit;
}

/*
 * The rule of the header: every segment's address a multiple of the
 * memory alignment, the position and every segment's length a multiple
 * of the offset alignment.
 */
static bool expect_ok(const struct dio_rule *r, bool wr, uintptr_t addr, size_t len,
		      uint64_t pos, unsigned int segs)
{
	unsigned int off = wr ? r->woff : r->roff;
	size_t split = segs == 2 ? split_at(len, off) : len;

	if (addr % r->mem || (addr + split) % r->mem)
		return false;
	if (pos % off || split % off || (len - split) % off)
		return false;
	return true;
}

#ifdef HAVE_LIBURING
static ssize_t ring_xfer(FIXTURE_DATA(dio_align_matrix) *self, bool wr, enum path p,
			 uint8_t *addr, size_t len, uint64_t pos, struct iovec *iov)
{
	struct io_uring_sqe *sqe;

	if (p == P_FIXED)
		return t_rw_fixed(&self->ring, self->fd, 0, wr, addr, len, pos);
	sqe = io_uring_get_sqe(&self->ring);
	if (!sqe)
		return -EBUSY;
	if (p == P_URING && wr)
		io_uring_prep_write(sqe, self->fd, addr, (unsigned int)len, pos);
	else if (p == P_URING)
		io_uring_prep_read(sqe, self->fd, addr, (unsigned int)len, pos);
	else if (wr)
		io_uring_prep_writev(sqe, self->fd, iov, nsegs(p), pos);
	else
		io_uring_prep_readv(sqe, self->fd, iov, nsegs(p), pos);
	return t_submit_and_wait_one(&self->ring);
}
#endif

/*
 * One transfer of @len bytes at file position @pos from or to @addr
 * through @p; two-segment paths split as split_at() says. The result or
 * -errno. The position-moving calls start from @pos.
 */
static ssize_t xfer(FIXTURE_DATA(dio_align_matrix) *self, bool wr, enum path p, uint8_t *addr,
		    size_t len, uint64_t pos)
{
	unsigned int off = wr ? self->rule.woff : self->rule.roff;
	size_t split = nsegs(p) == 2 ? split_at(len, off) : len;
	struct iovec iov[2] = {
		{ .iov_base = addr, .iov_len = split },
		{ .iov_base = addr + split, .iov_len = len - split },
	};
	ssize_t n;

	if (is_uring(p)) {
#ifdef HAVE_LIBURING
		return ring_xfer(self, wr, p, addr, len, pos, iov);
#else
		return -EOPNOTSUPP;
#endif
	}
	if (moves_position(p) && lseek(self->fd, (off_t)pos, SEEK_SET) < 0)
		return -errno;
	switch (p) {
	case P_PLAIN:
		n = wr ? write(self->fd, addr, len) : read(self->fd, addr, len);
		break;
	case P_V1:
	case P_V2:
		n = wr ? writev(self->fd, iov, (int)nsegs(p)) : readv(self->fd, iov, (int)nsegs(p));
		break;
	default:
		n = wr ? pwritev2(self->fd, iov, 1, (off_t)pos, 0) :
			    preadv2(self->fd, iov, 1, (off_t)pos, 0);
		break;
	}
	return n < 0 ? -errno : n;
}

/*
 * One case: the transfer, then what it did against what the rule says.
 * Returns NULL when it followed the rule, else (after logging why) what
 * went against it: "" for the result itself (*got), or the word for what
 * was wrong after an expected result.
 */
static const char *one_case(struct __test_metadata *_metadata,
			    FIXTURE_DATA(dio_align_matrix) *self, bool wr, enum path p,
			    size_t shift, size_t len, uint64_t pos, unsigned int seed,
			    ssize_t *got_out)
{
	const struct dio_rule *r = &self->rule;
	uint8_t *addr = self->buf + shift;
	bool ok = expect_ok(r, wr, (uintptr_t)addr, len, pos, nsegs(p));
	const char *name = wr ? wname[p] : rname[p];
	uint64_t lo = pos > 4096 ? pos - 4096 : 0, hi = pos + len + 4096;
	char what[160];
	ssize_t got;
	off_t at;

	snprintf(what, sizeof(what), "%s of %zu at %llu, buffer page + %zu (rule: memory %u, %s %u, from %s)",
		 name, len, (unsigned long long)pos, shift, r->mem, wr ? "offset" : "read offset",
		 wr ? r->woff : r->roff, r->from_statx ? "statx" : "sysfs");
	if (wr)
		iop_pattern_fill(addr, pos, len, seed);
	else
		memset(self->buf, 0xee, BUF_LEN);
	got = xfer(self, wr, p, addr, len, pos);
	*got_out = got;
	/* What a write did goes into the model, expected or not. */
	if (wr && got == (ssize_t)len)
		memcpy(self->model + pos, addr, len);
	if (ok && got != (ssize_t)len) {
		TH_LOG("%s: %s, the rule says every byte", what,
		       got < 0 ? strerror((int)-got) : "short");
		return "";
	}
	if (!ok && got != -EINVAL) {
		TH_LOG("%s: %zd%s%s, the rule says EINVAL", what, got, got < 0 ? " " : "",
		       got < 0 ? strerror((int)-got) : "");
		return "";
	}
	if (moves_position(p)) {
		at = lseek(self->fd, 0, SEEK_CUR);
		if (at != (off_t)(pos + (ok ? len : 0))) {
			TH_LOG("%s: file position %lld after it", what, (long long)at);
			return " position";
		}
	}
	if (!wr) {
		if (ok && iop_model_compare(addr, self->model, pos, len, self->why,
					    sizeof(self->why))) {
			TH_LOG("%s: %s", what, self->why);
			return " data";
		}
		return NULL;
	}
	if (hi > FILE_SIZE)
		hi = FILE_SIZE;
	if (iop_pread_all(self->bfd, self->check, hi - lo, lo) ||
	    iop_model_compare(self->check, self->model + lo, 0, hi - lo, self->why,
			      sizeof(self->why))) {
		TH_LOG("%s: the file around it: %s (offsets from %llu)", what, self->why,
		       (unsigned long long)lo);
		return " file";
	}
	return NULL;
}

/* Every path, buffer address, length and position, for reads or writes. */
static void matrix(struct __test_metadata *_metadata, FIXTURE_DATA(dio_align_matrix) *self,
		   unsigned int blksz, bool wr)
{
	unsigned int off = wr ? self->rule.woff : self->rule.roff;
	size_t aligned = ((size_t)2 * blksz + off - 1) / off * off;
	const size_t lens[] = { aligned, aligned + 1, aligned - off / 2 };
	const uint64_t poss[] = { 8ull * aligned, 16ull * aligned + off / 2 };
	unsigned int p, s, l, q, cases = 0, bad = 0;
	char sig[2048] = "";
	size_t sl = 0;
	const char *how;
	ssize_t got;

	ASSERT_LE(16ull * aligned + off + aligned + 4096, FILE_SIZE);
	ASSERT_LE(4096 + aligned + 1, BUF_LEN);
	for (p = 0; p < P_NR; p++) {
		if (is_uring(p) && !self->ring_up) {
			TH_LOG("%s left out: %s", wr ? wname[p] : rname[p], self->ring_why);
			continue;
		}
		for (s = 0; s < ARRAY_SIZE(shifts); s++)
			for (l = 0; l < ARRAY_SIZE(lens); l++)
				for (q = 0; q < ARRAY_SIZE(poss); q++) {
					cases++;
					how = one_case(_metadata, self, wr, p, shifts[s], lens[l],
						       poss[q], cases, &got);
					if (!how)
						continue;
					bad++;
					if (sl < sizeof(sig))
						sl += snprintf(sig + sl, sizeof(sig) - sl,
							       "%s%s %zu@%llu page+%zu: %zd%s",
							       bad > 1 ? "; " : "",
							       wr ? wname[p] : rname[p], lens[l],
							       (unsigned long long)poss[q],
							       shifts[s], got, how);
				}
	}
	TH_LOG("%u cases, %u against the rule", cases, bad);
	/*
	 * Which cases, after the assertion: a known failure's diagnostic
	 * is matched against the "Expected" line and what follows it.
	 */
	EXPECT_EQ(0u, bad) TH_LOG("against the rule: %s%s", sig,
				  sl >= sizeof(sig) ? " ..." : "");
}

/*
 * Catches: a read import path that lets a misaligned buffer, length or
 * position through, or refuses an aligned one, or disagrees with the
 * other paths on the same request.
 */
TEST_F(dio_align_matrix, direct_reads_succeed_or_fail_as_the_alignment_rule_predicts)
{
	IOP_TEST_BEGIN(&self->fs);
	matrix(_metadata, self, variant->blksz, false);
}

/* The same for writes; a refused write changes no byte of the file. */
TEST_F(dio_align_matrix, direct_writes_succeed_or_fail_as_the_alignment_rule_predicts)
{
	IOP_TEST_BEGIN(&self->fs);
	matrix(_metadata, self, variant->blksz, true);
}

/*
 * A refusal is all or nothing across the file's mappings: a direct
 * pwritev of two segments whose lengths are off the offset alignment by
 * half a unit (the total on it), over [a written block][a hole], fails
 * with EINVAL and writes nothing. The filesystem maps the written block
 * and the hole separately, and the write is cut to each mapping; a check
 * of the segments made on the cut iterator (lengths capped at the
 * mapping) passes the first one, writes it, and refuses only at the
 * second, so the call fails after the block was overwritten.
 * Catches: that per-mapping check (6.18's iov_iter_is_aligned() caps the
 * length; generated sample 5's 001-negate-iov_iter_extract_bvecs sends
 * iovecs to the same capped check on 7.2).
 */
TEST_F(dio_align_matrix, direct_writev_with_segment_lengths_off_the_unit_moves_nothing)
{
	const size_t unit = self->rule.woff, seg = 8 * unit + unit / 2;
	const size_t size = 4 * seg, head = 4096;
	struct iovec iov[2];
	uint8_t *want;
	ssize_t n;
	int fd, bfd;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_LE(head + seg, (size_t)BUF_LEN);
	/* [0, head) written and on disk, then a hole to the end */
	bfd = iop_open_at(self->fs.scratch->mnt, "torn", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			  0600);
	ASSERT_LE(0, bfd) TH_LOG("create torn: %s", strerror(-bfd));
	want = calloc(1, size);
	ASSERT_NE(NULL, want);
	iop_pattern_fill(want, 0, head, 17);
	EXPECT_EQ(0, iop_pwrite_all(bfd, want, head, 0));
	EXPECT_EQ(0, ftruncate(bfd, (off_t)size));
	EXPECT_EQ(0, fsync(bfd));
	fd = iop_open_at(self->fs.scratch->mnt, "torn", O_RDWR | O_DIRECT | O_NOFOLLOW, 0);
	EXPECT_LE(0, fd) TH_LOG("open torn O_DIRECT: %s", strerror(-fd));

	/* segment addresses on the memory alignment, lengths half a unit off */
	memset(self->buf, 0x77, BUF_LEN);
	iov[0].iov_base = self->buf;
	iov[0].iov_len = seg;
	iov[1].iov_base = self->buf + (BUF_LEN / 2);
	iov[1].iov_len = seg;
	n = fd < 0 ? 0 : pwritev(fd, iov, 2, 0);
	EXPECT_EQ(-1, n) TH_LOG("pwritev of 2 x %zu bytes (%zu-byte unit): %zd", seg, unit, n);
	if (n < 0)
		EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, iop_file_compare(bfd, want, size, self->why, sizeof(self->why)))
		TH_LOG("after the refused pwritev (%zd): %s", n, self->why);
	if (fd >= 0)
		close(fd);
	close(bfd);
	free(want);
}

/*
 * The filesystem's promise is no looser than the device's: statx's
 * memory alignment is at least sysfs's dma_alignment + 1, its offset
 * alignments at least the logical block size. Catches: a filesystem that
 * reports alignments the device cannot do (applications that follow
 * STATX_DIOALIGN then get EINVAL or bad DMA).
 */
TEST_F(dio_align_matrix, statx_alignment_is_no_looser_than_the_device)
{
	const struct dio_rule *r = &self->rule;

	IOP_TEST_BEGIN(&self->fs);
	if (!r->from_statx)
		SKIP(return, "the kernel reports no STATX_DIOALIGN (before 6.1)");
	EXPECT_LE(r->dma, r->mem) TH_LOG("stx_dio_mem_align %u, device %u", r->mem, r->dma);
	EXPECT_LE(r->lbs, r->woff) TH_LOG("stx_dio_offset_align %u, device %u", r->woff, r->lbs);
	EXPECT_LE(r->lbs, r->roff) TH_LOG("read offset alignment %u, device %u", r->roff, r->lbs);
	EXPECT_EQ(0u, r->woff % r->lbs);
	EXPECT_EQ(0u, r->roff % r->lbs);
}

/*
 * What an EOF-crossing direct read returns through each path; -errno on
 * failure. The pipe paths drain what they moved into @buf.
 */
static ssize_t eof_read(FIXTURE_DATA(dio_align_matrix) *self, int how, int *pfd, int sink,
			size_t len, uint64_t pos)
{
	loff_t in = (loff_t)pos, out = 0;
	ssize_t n;

	switch (how) {
	case 0:
		n = pread(self->fd, self->buf, len, (off_t)pos);
		break;
	case 1:
		n = splice(self->fd, &in, pfd[1], NULL, len, 0);
		break;
	case 2:
		n = sendfile(pfd[1], self->fd, &in, len);
		break;
	default:
		if (ftruncate(sink, 0))
			return -errno;
		n = copy_file_range(self->fd, &in, sink, &out, len, 0);
		if (n > 0 && iop_pread_all(sink, self->buf, (size_t)n, 0))
			return -EIO;
		return n < 0 ? -errno : n;
	}
	if (n > 0 && how && read(pfd[0], self->buf, (size_t)n) != n)
		return -EIO;
	return n < 0 ? -errno : n;
}

/*
 * A direct read of an aligned range that crosses an unaligned EOF returns
 * the bytes up to EOF (read(2)'s answer, over written blocks), through
 * pread, splice to a pipe, sendfile to a pipe and copy_file_range.
 * Catches: a path that shortens the request to EOF before the direct read
 * and so makes it unaligned (EINVAL), or returns bytes past EOF.
 */
TEST_F(dio_align_matrix, direct_read_across_eof_returns_the_bytes_to_eof_on_every_path)
{
	static const char *const how[] = { "pread", "splice", "sendfile", "copy_file_range" };
	const uint64_t eof = FILE_SIZE - 100;
	int pfd[2] = { -1, -1 }, sink;
	unsigned int i, off;
	uint64_t pos;
	ssize_t n;

	/* The rule exists only once the fixture has a filesystem: not before. */
	IOP_TEST_BEGIN(&self->fs);
	off = self->rule.roff;
	pos = eof / off * off - off;
	ASSERT_EQ(0, ftruncate(self->bfd, (off_t)eof));
	ASSERT_EQ(0, fsync(self->bfd));
	sink = iop_open_at(self->fs.scratch->mnt, "sink", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			   0600);
	ASSERT_LE(0, sink) TH_LOG("sink: %s", strerror(-sink));
	ASSERT_EQ(0, pipe(pfd));
	for (i = 0; i < ARRAY_SIZE(how); i++) {
		memset(self->buf, 0xee, BUF_LEN);
		n = eof_read(self, (int)i, pfd, sink, 4 * off, pos);
		EXPECT_EQ((ssize_t)(eof - pos), n)
			TH_LOG("O_DIRECT %s of %u at %llu, EOF %llu: %zd%s%s", how[i], 4 * off,
			       (unsigned long long)pos, (unsigned long long)eof, n,
			       n < 0 ? " " : "", n < 0 ? strerror((int)-n) : "");
		if (n == (ssize_t)(eof - pos))
			EXPECT_EQ(0, iop_model_compare(self->buf, self->model, pos, (size_t)n,
						       self->why, sizeof(self->why)))
				TH_LOG("%s: %s", how[i], self->why);
	}
	IOP_CLOSE_FDS(sink, pfd[0], pfd[1]);
}

TEST_HARNESS_MAIN
