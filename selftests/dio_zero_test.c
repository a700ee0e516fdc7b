// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stale data through O_DIRECT: the partial-block zeroing of direct writes
 * into new (hole) and unwritten (fallocated) blocks, and direct reads of
 * unwritten extents.
 *
 * A direct write that covers only part of a filesystem block that is
 * newly allocated or unwritten must zero the rest of that block, the head
 * before the write and the tail after it (iomap_dio_bio_iter() through
 * iomap_dio_zero()); a direct read of an unwritten extent must return
 * zeros without reading the disk (iomap_dio_iter() sends it to the hole
 * path). The bug class these tests catch is either one missing: the block
 * is then read, or written and converted, with whatever the disk held
 * there before, data of deleted files, readable by anyone who can read
 * the file.
 *
 * Stale data shows only where the blocks held something. The fixture
 * fills the free space of a fresh filesystem with a pattern ("iopSTALE"),
 * through files of a few MiB each (no extent tree blocks to free), checks
 * on the raw device that the pattern is there, and deletes the files. The
 * free space the fill cannot reach (blocks the filesystem keeps in
 * reserve, which XFS does hand to a write into a hole) gets the pattern
 * written onto the device, from GETFSMAP's free records. Each test file
 * is first written with the pattern too, and the range under test
 * punched out again (and fallocated, for the unwritten cases): the
 * allocator mostly hands the same blocks back. Where it does not (XFS with 1 KiB blocks, now and
 * then), the pattern is written onto the device behind the unwritten
 * range itself: the blocks are the file's and the filesystem reads none
 * of them, so the stale data is planted where it would be found. The
 * positive controls: before each write into an unwritten range and each
 * read of one, the raw device behind it must show the pattern (read
 * again after planting); after each write into a hole, the blocks it
 * got must be blocks that held it.
 *
 * A sub-block direct write needs logical sectors smaller than the block:
 * the scratch is a loop device with 512-byte sectors (zram has 4096), as
 * NVMe and SATA disks have. ext4 and XFS, 1 KiB and 4 KiB blocks; writes
 * through pwrite(2) (ITER_UBUF), pwritev(2) with two segments (ITER_IOVEC)
 * and io_uring WRITE_FIXED (ITER_BVEC), reads likewise.
 *
 * Each test makes and fills its own filesystem (XFS: 300 MiB, its
 * minimum), which under QEMU without KVM on a loaded host takes more than
 * the harness's default 30 s: the tests allow 300.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <liburing.h>
#include "uring_helpers.h"
#include <sys/uio.h>
#include <linux/fsmap.h>

#include "iopath_test.h"
#include "iomap_layout.h"

#define SECTOR		512
#define FILE_SIZE	IOP_K(64)	/* each test file; the writes stay inside */
/*
 * One fill file: few enough extents to stay in the inode (ext4 keeps four
 * there; its 1 KiB-block groups are 8 MiB), few enough files that XFS
 * frees no inode chunk when they go.
 */
#define FILL_FILE_EXT4	(4u << 20)
#define FILL_FILE_XFS	(16u << 20)
#define MAX_FILL	1024		/* physical extents of the fill */
#define BUF_LEN		IOP_K(64)

static const char fill_pattern[8] = { 'i', 'o', 'p', 'S', 'T', 'A', 'L', 'E' };

enum wpath { W_PWRITE, W_PWRITEV, W_URING, W_NR };

static const char *const wpath_name[W_NR] = { "pwrite", "pwritev(2)", "io_uring WRITE_FIXED" };

/* The partial blocks a write leaves: before it (head), after it (tail), both. */
enum side { S_HEAD, S_TAIL, S_BOTH, S_NR };

static const char *const side_name[S_NR] = { "head", "tail", "head and tail" };

struct pext {
	uint64_t start;		/* device byte offset */
	uint64_t len;
};

FIXTURE(dio_zero) {
	struct iop_test_fs fs;
	int dev;		/* the scratch device, O_DIRECT */
	uint64_t planted;	/* bytes of pattern written behind unwritten ranges */
	uint64_t planted_free;	/* bytes of pattern written into free space */
	int dirfd;
	int fd;			/* the test's current file */
	struct pext *fill;	/* where the fill's data was on the device */
	unsigned int nfill;
	uint8_t *buf;		/* BUF_LEN: data written, registered with io_uring */
	uint8_t *rbuf;		/* BUF_LEN: reads */
	struct io_uring ring;
	bool ring_up;
	char ring_why[128];
	char why[256];
};

FIXTURE_VARIANT(dio_zero) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(dio_zero);

static bool is_fill(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)fill_pattern[i % sizeof(fill_pattern)])
			return false;
	return true;
}

/* Device bytes [off, off+len) (sector aligned) into @buf. */
static int raw_read(int dev, uint8_t *buf, size_t len, uint64_t off)
{
	return iop_pread_all(dev, buf, len, off);
}

/*
 * The pattern onto device bytes [off, off+len) (sector aligned), behind a
 * range of the test file the filesystem keeps unwritten: the stale data
 * the fill could not put there.
 */
static int plant_fill(FIXTURE_DATA(dio_zero) *self, size_t len, uint64_t off)
{
	size_t i;

	for (i = 0; i < len; i++)
		self->rbuf[i] = (uint8_t)fill_pattern[i % sizeof(fill_pattern)];
	return iop_pwrite_all(self->dev, self->rbuf, len, off);
}

/* FIEMAP of all of @fd's extents, in batches. Calls @fn per extent. */
static int each_extent(int fd, uint64_t start, uint64_t len,
		       int (*fn)(const struct fiemap_extent *e, void *arg), void *arg)
{
	struct iop_fiemap f;
	uint64_t pos = start, end = start + len, next;
	unsigned int i;
	int n, ret;

	while (pos < end) {
		n = iop_fiemap(fd, pos, end - pos, &f);
		if (n < 0)
			return n;
		if (!n)
			return 0;
		for (i = 0; i < f.n; i++) {
			ret = fn(&f.ext[i], arg);
			if (ret)
				return ret;
			next = f.ext[i].fe_logical + f.ext[i].fe_length;
			if ((f.ext[i].fe_flags & FIEMAP_EXTENT_LAST) || next <= pos)
				return 0;
			pos = next;
		}
	}
	return 0;
}

static int record_fill(const struct fiemap_extent *e, void *arg)
{
	FIXTURE_DATA(dio_zero) *self = arg;

	if (e->fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC |
			   FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_ENCODED |
			   FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_NOT_ALIGNED)) {
		snprintf(self->why, sizeof(self->why), "fill extent at %llu: flags 0x%x",
			 (unsigned long long)e->fe_logical, e->fe_flags);
		return -EBADMSG;
	}
	if (self->nfill == MAX_FILL) {
		snprintf(self->why, sizeof(self->why),
			 "the fill has more than %d extents", MAX_FILL);
		return -E2BIG;
	}
	self->fill[self->nfill].start = e->fe_physical;
	self->fill[self->nfill].len = e->fe_length;
	self->nfill++;
	/* The pattern must be on the device: first and last sector. */
	if (raw_read(self->dev, self->rbuf, SECTOR, e->fe_physical) ||
	    !is_fill(self->rbuf, SECTOR) ||
	    raw_read(self->dev, self->rbuf, SECTOR, e->fe_physical + e->fe_length - SECTOR) ||
	    !is_fill(self->rbuf, SECTOR)) {
		snprintf(self->why, sizeof(self->why),
			 "the device at %llu does not hold the fill pattern written there",
			 (unsigned long long)e->fe_physical);
		return -EBADMSG;
	}
	return 0;
}

/*
 * Fill the free space with the pattern through files of FILL_FILE bytes
 * until ENOSPC, sync, record and check where the data went, delete the
 * files and commit the frees (ext4 and XFS reuse freed blocks only after
 * the transaction that freed them is on disk).
 */
static int fill_free_space(FIXTURE_DATA(dio_zero) *self, uint64_t fill_file)
{
	char name[32];
	unsigned int nfiles = 0, i;
	uint64_t done;
	bool full = false;
	int sub, fd, ret = 0;
	ssize_t n;

	if (mkdirat(self->dirfd, "fill", 0700)) {
		snprintf(self->why, sizeof(self->why), "mkdir fill: %s", strerror(errno));
		return -errno;
	}
	sub = openat(self->dirfd, "fill", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sub < 0) {
		snprintf(self->why, sizeof(self->why), "open fill: %s", strerror(errno));
		return -errno;
	}
	for (i = 0; i < BUF_LEN; i++)
		self->buf[i] = (uint8_t)fill_pattern[i % sizeof(fill_pattern)];
	while (!full && !ret) {
		snprintf(name, sizeof(name), "%05u", nfiles);
		fd = openat(sub, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			if (errno == ENOSPC)
				break;
			ret = -errno;
			snprintf(self->why, sizeof(self->why), "create fill/%s: %s", name,
				 strerror(errno));
			break;
		}
		nfiles++;
		for (done = 0; done < fill_file; done += (uint64_t)n) {
			n = pwrite(fd, self->buf, BUF_LEN, (off_t)done);
			if (n <= 0) {
				if (n < 0 && errno != ENOSPC) {
					ret = -errno;
					snprintf(self->why, sizeof(self->why), "fill/%s: %s", name,
						 strerror(errno));
				}
				full = true;
				break;
			}
		}
		if (!ret && fsync(fd)) {
			ret = -errno;
			snprintf(self->why, sizeof(self->why), "fsync fill/%s: %s", name,
				 strerror(errno));
		}
		if (!ret)
			ret = each_extent(fd, 0, done, record_fill, self);
		close(fd);
	}
	for (i = 0; i < nfiles; i++) {
		snprintf(name, sizeof(name), "%05u", i);
		if (unlinkat(sub, name, 0) && !ret) {
			ret = -errno;
			snprintf(self->why, sizeof(self->why), "unlink fill/%s: %s", name,
				 strerror(errno));
		}
	}
	if (!ret && syncfs(sub)) {
		ret = -errno;
		snprintf(self->why, sizeof(self->why), "syncfs: %s", strerror(errno));
	}
	close(sub);
	if (!ret && self->nfill == 0) {
		snprintf(self->why, sizeof(self->why), "the fill wrote nothing");
		ret = -ENOSPC;
	}
	return ret;
}

static bool in_pext(const struct pext *x, unsigned int n, uint64_t p, uint64_t *end)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (p >= x[i].start && p < x[i].start + x[i].len) {
			*end = x[i].start + x[i].len;
			return true;
		}
	}
	return false;
}

/*
 * The pattern onto the free space the fill did not reach (GETFSMAP's free
 * records minus the fill's extents), recorded as the fill's: the blocks
 * the filesystem keeps in reserve are free space, and XFS handed one to a
 * write into a hole on 1 pristine run in 2 (7.2, the small kernel), so
 * the control failed and the test could not say anything. The
 * filesystem reads no free block, and nothing else runs on it now.
 */
static int plant_free_space(FIXTURE_DATA(dio_zero) *self)
{
	struct {
		struct fsmap_head h;
		struct fsmap r[64];
	} m;
	uint64_t p, end, next, len;
	unsigned int i;
	bool last = false;

	memset(&m, 0, sizeof(m));
	m.h.fmh_count = 64;
	m.h.fmh_keys[1].fmr_device = UINT32_MAX;
	m.h.fmh_keys[1].fmr_physical = UINT64_MAX;
	m.h.fmh_keys[1].fmr_owner = UINT64_MAX;
	m.h.fmh_keys[1].fmr_offset = UINT64_MAX;
	m.h.fmh_keys[1].fmr_flags = UINT32_MAX;
	while (!last) {
		if (ioctl(self->dirfd, FS_IOC_GETFSMAP, &m.h)) {
			snprintf(self->why, sizeof(self->why), "GETFSMAP: %s", strerror(errno));
			return -errno;
		}
		if (!m.h.fmh_entries)
			break;
		for (i = 0; i < m.h.fmh_entries; i++) {
			const struct fsmap *r = &m.r[i];

			last = r->fmr_flags & FMR_OF_LAST;
			if (r->fmr_owner != FMR_OWN_FREE)
				continue;
			end = r->fmr_physical + r->fmr_length;
			for (p = r->fmr_physical; p < end; p = next) {
				if (in_pext(self->fill, self->nfill, p, &next))
					continue;
				/* up to the next fill extent, if one starts inside */
				for (next = end, len = 0; len < self->nfill; len++)
					if (self->fill[len].start > p && self->fill[len].start < next)
						next = self->fill[len].start;
				if (self->nfill == MAX_FILL) {
					snprintf(self->why, sizeof(self->why),
						 "more than %u extents of pattern to record", MAX_FILL);
					return -E2BIG;
				}
				self->fill[self->nfill].start = p;
				self->fill[self->nfill++].len = next - p;
				for (len = p; len < next; len += BUF_LEN) {
					size_t n = next - len < BUF_LEN ? next - len : BUF_LEN;

					if (plant_fill(self, n, len)) {
						snprintf(self->why, sizeof(self->why),
							 "pattern into free space at %llu: %s",
							 (unsigned long long)len, strerror(errno));
						return -EIO;
					}
					self->planted_free += n;
				}
			}
		}
		fsmap_advance(&m.h);
	}
	return 0;
}

FIXTURE_SETUP(dio_zero)
{
	const struct iop_scratch_opts want = {
		.fstype = variant->fstype, .mkfs_opts = variant->mkfs_opts,
		.mount_opts = variant->mount_opts, .sector_size = SECTOR,
		/* XFS's minimum; ext4 small, so that the fill is quick */
		.size = strcmp(variant->fstype, "xfs") ? (64ull << 20) : (300ull << 20),
	};
	int ssz = 0, ret;

	self->dev = -1;
	self->dirfd = -1;
	self->fd = -1;
	self->fill = calloc(MAX_FILL, sizeof(*self->fill));
	self->buf = iop_alloc_aligned(BUF_LEN);
	self->rbuf = iop_alloc_aligned(BUF_LEN);
	iop_test_fs_setup_opts(&self->fs, &want);
	if (!self->fs.scratch)
		return;
	if (!self->fill || !self->buf || !self->rbuf) {
		snprintf(self->fs.error, sizeof(self->fs.error), "out of memory");
		return;
	}
	if (self->fs.scratch->backing == IOP_BACKING_DIR) {
		snprintf(self->fs.skip, sizeof(self->fs.skip),
			 "IOPATH_SCRATCH_DIR: no device to fill and to read raw");
		return;
	}
	self->dev = open(self->fs.scratch->dev, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (self->dev < 0 || ioctl(self->dev, BLKSSZGET, &ssz)) {
		snprintf(self->fs.error, sizeof(self->fs.error), "%.160s: %s",
			 self->fs.scratch->dev, strerror(errno));
		return;
	}
	if (ssz != SECTOR) {
		/* Only a device the user named can differ: a loop device was asked for 512. */
		if (self->fs.scratch->backing == IOP_BACKING_DEVICE)
			snprintf(self->fs.skip, sizeof(self->fs.skip),
				 "the scratch device has %d-byte logical sectors: no sub-block direct I/O",
				 ssz);
		else
			snprintf(self->fs.error, sizeof(self->fs.error),
				 "%.160s has %d-byte logical sectors, not the %d asked for",
				 self->fs.scratch->dev, ssz, SECTOR);
		return;
	}
	self->dirfd = open(self->fs.scratch->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (self->dirfd < 0) {
		snprintf(self->fs.error, sizeof(self->fs.error), "open %.160s: %s",
			 self->fs.scratch->mnt, strerror(errno));
		return;
	}
	ret = fill_free_space(self,
			      strcmp(variant->fstype, "xfs") ? FILL_FILE_EXT4 : FILL_FILE_XFS);
	if (!ret)
		ret = plant_free_space(self);
	if (ret) {
		snprintf(self->fs.error, sizeof(self->fs.error), "fill: %.240s", self->why);
		return;
	}
	if (iop_probe("io_uring", self->ring_why, sizeof(self->ring_why)) > 0) {
		ret = t_ring_with_buffer(&self->ring, 8, self->buf, BUF_LEN);
		if (ret)
			snprintf(self->fs.error, sizeof(self->fs.error), "io_uring: %s",
				 strerror(-ret));
		self->ring_up = !ret;
	}
}

FIXTURE_TEARDOWN(dio_zero)
{
	if (self->planted)
		TH_LOG("the pattern planted behind unwritten ranges the fill had not reached: %llu bytes",
		       (unsigned long long)self->planted);
	if (self->planted_free)
		TH_LOG("the pattern planted in free space the fill had not reached: %llu bytes",
		       (unsigned long long)self->planted_free);
	if (self->ring_up) {
		io_uring_unregister_buffers(&self->ring);
		io_uring_queue_exit(&self->ring);
	}
	IOP_CLOSE_FDS(self->fd, self->dirfd, self->dev);
	free(self->fill);
	free(self->buf);
	free(self->rbuf);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}


/* Where the blocks of a file range are on the device (a few extents at most). */
#define MAX_PUNCHED 8

struct prange {
	struct pext ext[MAX_PUNCHED];
	unsigned int n;
	uint64_t off, len;	/* the file range */
};

static int record_range(const struct fiemap_extent *e, void *arg)
{
	struct prange *r = arg;
	uint64_t s = e->fe_logical > r->off ? e->fe_logical : r->off;
	uint64_t t = e->fe_logical + e->fe_length < r->off + r->len ?
		     e->fe_logical + e->fe_length : r->off + r->len;

	if (s >= t)
		return 0;
	if (r->n == MAX_PUNCHED)
		return -E2BIG;
	r->ext[r->n].start = e->fe_physical + (s - e->fe_logical);
	r->ext[r->n].len = t - s;
	r->n++;
	return 0;
}

/*
 * A new file in the scratch root over [0, FILE_SIZE), written with the
 * fill pattern, then [@off, @off+@len) punched out again: a hole inside
 * EOF whose old blocks held the pattern, checked on the raw device first
 * and recorded in @punched. With @unwritten, the hole is fallocated at
 * once. The filesystem gives the next allocation there the punched
 * blocks (its goal is the block after the previous extent), so a write
 * into the hole or the unwritten range meets blocks that held the pattern,
 * whatever free space the fill could not reach (reserved blocks). The
 * descriptor goes to self->fd, closed by the teardown if the test stops
 * early.
 */
static int make_file(FIXTURE_DATA(dio_zero) *self, const char *name, bool unwritten,
		     uint64_t off, uint64_t len, struct prange *punched)
{
	const char *step = "write the pattern";
	unsigned int i;
	int fd, ret;

	if (self->fd >= 0)
		close(self->fd);
	self->fd = openat(self->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
			  O_DIRECT | O_CLOEXEC, 0600);
	fd = self->fd;
	if (fd < 0) {
		snprintf(self->why, sizeof(self->why), "create %s: %s", name, strerror(errno));
		return -errno;
	}
	for (i = 0; i < FILE_SIZE; i++)
		self->buf[i] = (uint8_t)fill_pattern[i % sizeof(fill_pattern)];
	ret = iop_pwrite_all(fd, self->buf, FILE_SIZE, 0);
	if (!ret && fsync(fd))
		ret = -errno;
	memset(punched, 0, sizeof(*punched));
	punched->off = off;
	punched->len = len;
	if (!ret) {
		step = "FIEMAP";
		ret = each_extent(fd, off, len, record_range, punched);
	}
	for (i = 0; !ret && i < punched->n; i++) {
		step = "the device shows the pattern written";
		if (raw_read(self->dev, self->rbuf, punched->ext[i].len, punched->ext[i].start) ||
		    !is_fill(self->rbuf, punched->ext[i].len))
			ret = -EBADMSG;
	}
	if (!ret) {
		step = "punch";
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)off, (off_t)len) ||
		    fsync(fd))
			ret = -errno;
	}
	if (!ret && unwritten) {
		step = "fallocate";
		if (fallocate(fd, 0, (off_t)off, (off_t)len))
			ret = -errno;
	}
	if (ret)
		snprintf(self->why, sizeof(self->why), "%s: %s: %s", name, step,
			 ret == -EBADMSG ? "no" : strerror(-ret));
	return ret ? ret : fd;
}

struct control {
	FIXTURE_DATA(dio_zero) *self;
	bool unwritten;		/* the raw blocks must show the pattern */
	const struct prange *punched;
};

/*
 * The positive control for one extent of a range the test writes into or
 * reads: an unwritten extent must be unwritten and show the fill pattern
 * on the raw device; the blocks a write into a hole got must be blocks
 * that held the pattern (the punched ones, or the fill's).
 */
static int control_extent(const struct fiemap_extent *e, void *arg)
{
	struct control *c = arg;
	FIXTURE_DATA(dio_zero) *self = c->self;
	uint64_t p, next, end = e->fe_physical + e->fe_length;

	if (c->unwritten) {
		if (!(e->fe_flags & FIEMAP_EXTENT_UNWRITTEN)) {
			snprintf(self->why, sizeof(self->why), "extent at %llu is not unwritten",
				 (unsigned long long)e->fe_logical);
			return -EBADMSG;
		}
		for (p = e->fe_physical; p < end; p += BUF_LEN) {
			size_t n = end - p < BUF_LEN ? end - p : BUF_LEN;

			if (!raw_read(self->dev, self->rbuf, n, p) && !is_fill(self->rbuf, n) &&
			    !plant_fill(self, n, p))
				self->planted += n;
			if (raw_read(self->dev, self->rbuf, n, p) || !is_fill(self->rbuf, n)) {
				snprintf(self->why, sizeof(self->why),
					 "the device behind unwritten [%llu,+%llu) does not show the fill pattern at %llu: stale data could not show",
					 (unsigned long long)e->fe_logical,
					 (unsigned long long)e->fe_length, (unsigned long long)p);
				return -EBADMSG;
			}
		}
		return 0;
	}
	for (p = e->fe_physical; p < end; p = next) {
		if (in_pext(c->punched->ext, c->punched->n, p, &next) ||
		    in_pext(self->fill, self->nfill, p, &next))
			continue;
		snprintf(self->why, sizeof(self->why),
			 "device byte %llu, which the write got for file offset %llu, held no pattern: stale data could not show",
			 (unsigned long long)p,
			 (unsigned long long)(e->fe_logical + p - e->fe_physical));
		return -EBADMSG;
	}
	return 0;
}

static int control(FIXTURE_DATA(dio_zero) *self, int fd, uint64_t off, uint64_t len,
		   bool unwritten, const struct prange *punched)
{
	struct control c = { .self = self, .unwritten = unwritten, .punched = punched };

	if (!unwritten && fsync(fd)) {
		snprintf(self->why, sizeof(self->why), "fsync: %s", strerror(errno));
		return -errno;
	}
	return each_extent(fd, off, len, control_extent, &c);
}

/*
 * @got holds file bytes [off, off+len), which must be zero except for
 * the bytes [doff, doff+dlen) written from @data. -EBADMSG with the first
 * wrong byte, and whether it is the fill's, in @why.
 */
static int check_bytes(const uint8_t *got, uint64_t off, size_t len, const uint8_t *data,
		       uint64_t doff, size_t dlen, char *why, size_t wlen)
{
	uint64_t o;
	uint8_t want = 0;

	for (o = off; o < off + len; o++) {
		want = (o >= doff && o < doff + dlen) ? data[o - doff] : 0;
		if (got[o - off] != want)
			break;
	}
	if (o == off + len)
		return 0;
	snprintf(why, wlen, "file byte %llu is 0x%02x, expected 0x%02x%s", (unsigned long long)o,
		 got[o - off], want,
		 got[o - off] == (uint8_t)fill_pattern[o % sizeof(fill_pattern)] ?
		 " (the fill pattern: stale data from freed blocks)" : "");
	return -EBADMSG;
}

/* The write of one case, through @path, whole or failed. */
static int do_write(FIXTURE_DATA(dio_zero) *self, enum wpath path, int fd, size_t len,
		    uint64_t off)
{
	struct iovec iov[2];
	ssize_t n;

	switch (path) {
	case W_PWRITE:
		n = pwrite(fd, self->buf, len, (off_t)off);
		break;
	case W_PWRITEV:
		/* Two segments at separate addresses: the second one page on. */
		memmove(self->buf + IOP_K(4), self->buf + SECTOR, len - SECTOR);
		iov[0].iov_base = self->buf;
		iov[0].iov_len = SECTOR;
		iov[1].iov_base = self->buf + IOP_K(4);
		iov[1].iov_len = len - SECTOR;
		n = pwritev(fd, iov, 2, (off_t)off);
		memmove(self->buf + SECTOR, self->buf + IOP_K(4), len - SECTOR);
		break;
	default:
		n = t_rw_fixed(&self->ring, fd, 0, true, self->buf, len, off);
		if (n < 0) {
			errno = (int)-n;
			n = -1;
		}
		break;
	}
	if (n == (ssize_t)len)
		return 0;
	snprintf(self->why, sizeof(self->why), "%s of %zu at %llu: %s", wpath_name[path], len,
		 (unsigned long long)off, n < 0 ? strerror(errno) : "short");
	return n < 0 ? -errno : -EIO;
}

/*
 * One sub-block write into block 8 (and 9) of a new file: into its hole
 * or its unwritten blocks, leaving the head, the tail or both of a block
 * to zero. Head: [9b - 512, 10b); tail: [8b, 9b + 512); both:
 * [8b + 512, 10b - 512). Then the two blocks, read directly from disk,
 * must be zeros around the data.
 */
static void write_case(struct __test_metadata *_metadata, FIXTURE_DATA(dio_zero) *self,
		       unsigned int bs, bool unwritten, enum side side, enum wpath path)
{
	const uint64_t blk = 8ull * bs;
	struct prange punched;
	uint64_t off;
	size_t len;
	char name[48];
	int fd;

	switch (side) {
	case S_HEAD:
		off = blk + bs - SECTOR;
		break;
	case S_TAIL:
		off = blk;
		break;
	default:
		off = blk + SECTOR;
		break;
	}
	len = (side == S_TAIL ? blk + bs + SECTOR :
	       blk + 2 * bs - (side == S_BOTH ? SECTOR : 0)) - off;
	snprintf(name, sizeof(name), "%s-%d-%d", unwritten ? "unwritten" : "hole", side, path);
	fd = make_file(self, name, unwritten, blk, 2 * bs, &punched);
	ASSERT_LE(0, fd) TH_LOG("%s", self->why);
	if (unwritten)
		ASSERT_EQ(0, control(self, fd, blk, 2 * bs, true, NULL))
			TH_LOG("control, %s: %s", name, self->why);
	iop_pattern_fill(self->buf, off, len, 3 + side + path);
	ASSERT_EQ(0, do_write(self, path, fd, len, off)) TH_LOG("%s", self->why);
	if (!unwritten)
		ASSERT_EQ(0, control(self, fd, blk, 2 * bs, false, &punched))
			TH_LOG("control, %s: %s", name, self->why);
	ASSERT_EQ(0, iop_pread_all(fd, self->rbuf, 2 * bs, blk)) TH_LOG("read back %s", name);
	EXPECT_EQ(0, check_bytes(self->rbuf, blk, 2 * bs, self->buf, off, len, self->why,
				 sizeof(self->why)))
		TH_LOG("%s write into %s, partial %s: %s", wpath_name[path],
		       unwritten ? "unwritten blocks" : "a hole inside EOF",
		       side_name[side], self->why);
}

static void write_cases(struct __test_metadata *_metadata, FIXTURE_DATA(dio_zero) *self,
			unsigned int bs, bool unwritten)
{
	int side, path;

	for (side = 0; side < S_NR; side++) {
		for (path = 0; path < W_NR; path++) {
			if (path == W_URING && !self->ring_up) {
				TH_LOG("io_uring cases left out: %s", self->ring_why);
				continue;
			}
			write_case(_metadata, self, bs, unwritten, side, path);
		}
	}
}

/*
 * Sub-block direct writes into a hole inside EOF (the filesystem
 * allocates the blocks: IOMAP_F_NEW). Catches: the head or the tail of a
 * new block left unzeroed, so a freed file's bytes become this file's.
 */
TEST_F_TIMEOUT(dio_zero, sub_block_write_into_hole_zeroes_around_it, 300)
{
	IOP_TEST_BEGIN(&self->fs);
	write_cases(_metadata, self, variant->blksz, false);
}

/*
 * Sub-block direct writes into fallocated (unwritten) blocks, which are
 * converted to written whole. Catches: the head or the tail of an
 * unwritten block left unzeroed before the conversion.
 */
TEST_F_TIMEOUT(dio_zero, sub_block_write_into_unwritten_zeroes_around_it, 300)
{
	IOP_TEST_BEGIN(&self->fs);
	write_cases(_metadata, self, variant->blksz, true);
}

/*
 * Direct reads of a file whose first two blocks are written and the rest
 * is unwritten (over blocks that held the pattern):
 * the whole file through pread, through preadv with three segments and
 * through io_uring READ_FIXED, then a sector in the middle of an
 * unwritten block and a read across the written/unwritten boundary.
 * Catches: an unwritten extent read from the disk instead of as zeros.
 */
TEST_F_TIMEOUT(dio_zero, direct_read_of_unwritten_returns_zeros, 300)
{
	const unsigned int bs = variant->blksz;
	const uint64_t doff = 0, dlen = 2 * bs;
	struct prange punched;
	struct iovec iov[3];
	uint8_t *data;
	ssize_t n;
	int fd;

	IOP_TEST_BEGIN(&self->fs);
	fd = make_file(self, "unwritten", true, dlen, FILE_SIZE - dlen, &punched);
	ASSERT_LE(0, fd) TH_LOG("%s", self->why);
	ASSERT_EQ(0, control(self, fd, dlen, FILE_SIZE - dlen, true, NULL))
		TH_LOG("control: %s", self->why);
	data = malloc(dlen);
	ASSERT_NE(NULL, data);
	iop_pattern_fill(self->buf, doff, dlen, 11);
	memcpy(data, self->buf, dlen);
	ASSERT_EQ(0, iop_pwrite_all(fd, self->buf, dlen, doff));
	/* The rest is still unwritten and still holds the pattern on disk. */
	EXPECT_EQ(0, control(self, fd, dlen, FILE_SIZE - dlen, true, NULL))
		TH_LOG("control: %s", self->why);

	memset(self->rbuf, 0xee, BUF_LEN);
	EXPECT_EQ(0, iop_pread_all(fd, self->rbuf, FILE_SIZE, 0));
	EXPECT_EQ(0, check_bytes(self->rbuf, 0, FILE_SIZE, data, doff, dlen, self->why,
				 sizeof(self->why))) TH_LOG("pread: %s", self->why);

	memset(self->rbuf, 0xee, BUF_LEN);
	iov[0].iov_base = self->rbuf;
	iov[0].iov_len = SECTOR;
	iov[1].iov_base = self->rbuf + SECTOR;
	iov[1].iov_len = 3 * bs;
	iov[2].iov_base = self->rbuf + SECTOR + 3 * bs;
	iov[2].iov_len = FILE_SIZE - SECTOR - 3 * bs;
	n = preadv(fd, iov, 3, 0);
	EXPECT_EQ((ssize_t)FILE_SIZE, n) TH_LOG("preadv: %s", n < 0 ? strerror(errno) : "short");
	EXPECT_EQ(0, check_bytes(self->rbuf, 0, FILE_SIZE, data, doff, dlen, self->why,
				 sizeof(self->why))) TH_LOG("preadv: %s", self->why);

	if (self->ring_up) {
		memset(self->buf, 0xee, BUF_LEN);
		n = t_rw_fixed(&self->ring, fd, 0, false, self->buf, FILE_SIZE, 0);
		EXPECT_EQ((ssize_t)FILE_SIZE, n) TH_LOG("READ_FIXED: %s",
							n < 0 ? strerror((int)-n) : "short");
		EXPECT_EQ(0, check_bytes(self->buf, 0, FILE_SIZE, data, doff, dlen, self->why,
					 sizeof(self->why))) TH_LOG("io_uring READ_FIXED: %s",
								    self->why);
	} else {
		TH_LOG("io_uring case left out: %s", self->ring_why);
	}

	/* One sector inside an unwritten block; then across the boundary. */
	memset(self->rbuf, 0xee, BUF_LEN);
	EXPECT_EQ(0, iop_pread_all(fd, self->rbuf, SECTOR, 4ull * bs + SECTOR));
	EXPECT_EQ(0, check_bytes(self->rbuf, 4ull * bs + SECTOR, SECTOR, data, doff, dlen,
				 self->why,
				 sizeof(self->why))) TH_LOG("sector read: %s", self->why);
	memset(self->rbuf, 0xee, BUF_LEN);
	EXPECT_EQ(0, iop_pread_all(fd, self->rbuf, 2 * bs, bs));
	EXPECT_EQ(0, check_bytes(self->rbuf, bs, 2 * bs, data, doff, dlen, self->why,
				 sizeof(self->why))) TH_LOG("read across the boundary: %s",
							    self->why);
	free(data);
}

TEST_HARNESS_MAIN
