// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every byte a read returns is data that was written to it or zero, never
 * what the device held before, through every read method and over every
 * extent state: an fsx-style model of the file's bytes, checked on every
 * read.
 *
 * The bug class: stale data and lost data. A read of a hole, of an
 * unwritten (preallocated) extent, of the zeroed tail of a block after a
 * truncate, a zero range or a punch, of extents moved by collapse or
 * insert range, or of shared (reflinked) extents, that returns the
 * device's old contents (data of deleted files) or the wrong extent's
 * bytes; a write whose data is lost because an unwritten extent was not
 * converted or a dirty folio not written back, which shows only after
 * the cache is dropped, after a remount or after a shutdown. Where the
 * bug is (buffered, direct or mmap read path, iomap or the filesystem's
 * mapping) does not matter to the model: only the bytes do.
 *
 * The free space of each fresh filesystem is first filled with a pattern
 * ("iopSTALE", through files written until ENOSPC, synced and deleted), so
 * stale data is recognisable and reported as stale. Free space the fill
 * does not reach is covered too: the random file is written whole with
 * the pattern and truncated again before use, and each fixed file is
 * written with it in one extent before the blocks under its state are
 * punched (the allocator hands the same blocks back). The positive
 * control: the device behind the preallocated extents of the fixed
 * sequence shows the pattern (on one file at least: ext4 places some of
 * them on blocks that never held it; how many did is logged).
 *
 * Reads: read, pread, readv with one and two segments, preadv2, mmap,
 * io_uring READ, READV and READ_FIXED, splice to a pipe, sendfile to a
 * pipe and copy_file_range to a file on the same filesystem; each
 * buffered and O_DIRECT (offsets and lengths on the STATX_DIOALIGN
 * alignment), mmap buffered only.
 *
 * Two runs per variant (ext4, XFS, 4 KiB and 1 KiB blocks, ext4 with 64
 * KiB clusters (bigalloc), on a loop device with 512-byte sectors):
 *   - fixed: one file per (extent state x read method), each state built
 *     fresh and read by its method, whole and from inside the state;
 *   - random: seeded sequences of writes (buffered, direct, mmap),
 *     truncates, fallocate, punch, zero, collapse and insert range, clones
 *     and unshares (XFS), syncs, writeback and cache drops, with reads by
 *     any method in between. The seed is printed (1 by default, as fsx;
 *     IOPATH_SEED=0 for one from the clock); IOPATH_SEED=N replays a
 *     run, and a divergence names the seed, the operation's index and the
 *     last operations before it.
 * After each sequence every file is checked again after fsync and
 * POSIX_FADV_DONTNEED, after a remount, and after a shutdown
 * (XFS_IOC_GOINGDOWN / EXT4_IOC_SHUTDOWN without a log flush: what fsync
 * made durable must survive) and a remount. mmap writes stay inside EOF:
 * bytes written through mmap past EOF are folio_batch_test's (and a known
 * ext4 bug's).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <fcntl.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#ifdef HAVE_LIBURING
#include <liburing.h>
#include "uring_helpers.h"
#endif

#include "iopath_test.h"
#include "iomap_layout.h"
#include "content_model.h"

#define SECTOR		512
#define RBUF_LEN	(MAX_REQ + IOP_K(8))
#define RAND_OPS	10000		/* per variant */
#define MAX_DIVERGED	8		/* then the model is lost: stop */
#define RAND_SEQS	4		/* each followed by the three checks */
#define FIX_BLOCKS	20		/* fixed files: 16 blocks, 18 after an insert */
#define HISTORY		8
/* The shutdown ioctl, the same number on XFS and ext4; no log flush. */
#define IOP_GOINGDOWN		_IOR('X', 125, __u32)
#define IOP_GOINGDOWN_NOLOGFLUSH 2

enum rmethod {
	R_READ, R_PREAD, R_READV1, R_READV2, R_PREADV2, R_MMAP, R_URING, R_URINGV, R_FIXED,
	R_SPLICE, R_SENDFILE, R_COPY, R_NR
};

static const char *const rname[R_NR] = {
	"read", "pread", "readv(1)", "readv(2)", "preadv2", "mmap", "io_uring READ",
	"io_uring READV(2)", "io_uring READ_FIXED", "splice", "sendfile", "copy_file_range",
};

enum rop {
	OP_READ, OP_WRITE, OP_DWRITE, OP_MWRITE, OP_TRUNC, OP_FALLOC, OP_PUNCH, OP_ZERO,
	OP_COLLAPSE, OP_INSERT, OP_CLONE, OP_UNSHARE, OP_FSYNC, OP_WRITEBACK, OP_DROP, OP_NR
};

FIXTURE(content_model) {
	struct iop_test_fs fs;
	int dirfd;
	int dev;		/* the scratch device, O_DIRECT, read only */
	int sink;		/* copy_file_range's destination */
	int pipe[2];
	unsigned int bs;	/* filesystem block */
	unsigned int shift;	/* what collapse and insert move: a block, or a cluster */
	unsigned int dio;	/* direct read offset and length alignment */
	uint8_t *rbuf;		/* RBUF_LEN, registered with the ring */
	uint8_t *wbuf;		/* MAX_REQ */
	uint8_t *raw;		/* SECTOR */
	uint64_t seed;
	bool reflink;
	bool shutdown;		/* the shutdown check runs */
	char ctx[96];		/* where a divergence happened */
	char hist[HISTORY][80];
	unsigned int nhist;
	unsigned int op, mix[OP_NR];	/* the random operation run last, the runs by kind */
#ifdef HAVE_LIBURING
	struct io_uring ring;
#endif
	bool ring_up;
	char ring_why[128];
	char why[384];
};

FIXTURE_VARIANT(content_model) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(content_model);
/* clusters: partial ones at every edge, blocks mapped into one allocated */
FIXTURE_VARIANT_ADD(content_model, ext4_bigalloc) { IOP_FS_EXT4_BIGALLOC };

/*
 * The seed: 1 unless IOPATH_SEED says otherwise, as fsx's default, so that
 * a verdict of make check or a CI run is the same on every run of one
 * kernel; IOPATH_SEED=0 takes one from the clock (exploring), chosen once
 * before the harness forks so that every variant runs the same sequences.
 */
static uint64_t clock_seed;

static void __attribute__((constructor)) choose_seed(void)
{
	clock_seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
}

static const char *seed_env(FIXTURE_DATA(content_model) *self, char *why, size_t wlen)
{
	const char *s = getenv("IOPATH_SEED");
	char *esc;

	if (!s || !*s) {
		self->seed = 1;
		return NULL;
	}
	if (!iop_parse_u64(s, 0, UINT64_MAX, &self->seed)) {
		if (!self->seed)
			self->seed = clock_seed;
		return NULL;
	}
	esc = iop_esc_dup(s);
	snprintf(why, wlen, "IOPATH_SEED '%.64s': not a decimal number below 2^64",
		 esc ? esc : "?");
	free(esc);
	return why;
}

FIXTURE_SETUP(content_model)
{
	const struct iop_scratch_opts want = {
		.fstype = variant->fstype, .mkfs_opts = variant->mkfs_opts,
		.mount_opts = variant->mount_opts, .sector_size = SECTOR,
		.size = strcmp(variant->fstype, "xfs") ? (64ull << 20) : (300ull << 20),
	};
	char bad[160];
	struct statx stx;
	int ret;

	self->dirfd = -1;
	self->dev = -1;
	self->sink = -1;
	self->pipe[0] = -1;
	self->pipe[1] = -1;
	self->bs = variant->blksz;
	self->shift = variant->cluster ? variant->cluster : variant->blksz;
	self->reflink = variant->reflink;
	self->shutdown = true;
	if (seed_env(self, bad, sizeof(bad))) {
		/* Bad input: found before anything is made. */
		memset(&self->fs, 0, sizeof(self->fs));
		snprintf(self->fs.error, sizeof(self->fs.error), "%s", bad);
		return;
	}
	self->rbuf = iop_alloc_aligned(RBUF_LEN);
	self->wbuf = iop_alloc_aligned(MAX_REQ);
	self->raw = iop_alloc_aligned(SECTOR);
	iop_test_fs_setup_opts(&self->fs, &want);
	if (!self->fs.scratch)
		return;
	if (!self->rbuf || !self->wbuf || !self->raw) {
		snprintf(self->fs.error, sizeof(self->fs.error), "out of memory");
		return;
	}
	if (self->fs.scratch->backing == IOP_BACKING_DIR) {
		snprintf(self->fs.skip, sizeof(self->fs.skip),
			 "IOPATH_SCRATCH_DIR: no device to fill with a pattern");
		return;
	}
	self->dev = open(self->fs.scratch->dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	self->dirfd = open(self->fs.scratch->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (self->dev < 0 || self->dirfd < 0 || pipe2(self->pipe, O_CLOEXEC)) {
		snprintf(self->fs.error, sizeof(self->fs.error), "open: %s", strerror(errno));
		return;
	}
	if (fill_free_space(self->dirfd, self->why, sizeof(self->why))) {
		snprintf(self->fs.error, sizeof(self->fs.error), "%.200s", self->why);
		return;
	}
	/* The direct read alignment: STATX_DIOALIGN (6.1 on), else the sector. */
	self->dio = SECTOR;
	if (!statx(self->dirfd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
	    (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align)
		self->dio = stx.stx_dio_offset_align > stx.stx_dio_mem_align ?
			    stx.stx_dio_offset_align : stx.stx_dio_mem_align;
#ifdef HAVE_LIBURING
	if (iop_probe("io_uring", self->ring_why, sizeof(self->ring_why)) > 0) {
		ret = t_ring_with_buffer(&self->ring, 4, self->rbuf, RBUF_LEN);
		if (ret)
			snprintf(self->fs.error, sizeof(self->fs.error), "io_uring: %s",
				 strerror(-ret));
		self->ring_up = !ret;
	}
#else
	(void)ret;
	snprintf(self->ring_why, sizeof(self->ring_why), "%s", IOP_NO_LIBURING);
#endif
}

FIXTURE_TEARDOWN(content_model)
{
#ifdef HAVE_LIBURING
	if (self->ring_up) {
		io_uring_unregister_buffers(&self->ring);
		io_uring_queue_exit(&self->ring);
	}
#endif
	IOP_CLOSE_FDS(self->sink, self->pipe[0], self->pipe[1], self->dirfd, self->dev);
	free(self->rbuf);
	free(self->wbuf);
	free(self->raw);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

static void note(FIXTURE_DATA(content_model) *self, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Record an operation in the history printed with a divergence. */
static void note(FIXTURE_DATA(content_model) *self, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(self->hist[self->nhist++ % HISTORY], sizeof(self->hist[0]), fmt, ap);
	va_end(ap);
}

static int mfile_open(FIXTURE_DATA(content_model) *self, struct mfile *f, bool create)
{
	int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0);

	f->fd = openat(self->dirfd, f->name, flags, 0600);
	if (f->fd < 0)
		return -errno;
	f->dfd = openat(self->dirfd, f->name, O_RDWR | O_DIRECT | O_CLOEXEC);
	return f->dfd < 0 ? -errno : 0;
}

/*
 * A new file of up to @cap bytes; with @prewrite, written whole with the
 * fill pattern, synced and truncated to nothing again: its blocks come
 * back to it.
 */
static int mfile_new(FIXTURE_DATA(content_model) *self, struct mfile *f, const char *name,
		     uint64_t cap, bool prewrite)
{
	uint8_t *p = malloc(cap);
	int ret;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->dfd = -1;
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->cap = cap;
	f->m = calloc(1, cap);
	if (!p || !f->m) {
		free(p);
		return -ENOMEM;
	}
	fill_with_pattern(p, 0, cap);
	ret = mfile_open(self, f, true);
	if (!ret && prewrite)
		ret = iop_pwrite_all(f->fd, p, cap, 0);
	if (!ret && prewrite && (fsync(f->fd) || ftruncate(f->fd, 0) || fsync(f->fd)))
		ret = -errno;
	free(p);
	if (ret)
		snprintf(self->why, sizeof(self->why), "%s: prepare: %s", name, strerror(-ret));
	return ret;
}

#ifdef HAVE_LIBURING
static ssize_t ring_read(FIXTURE_DATA(content_model) *self, enum rmethod m, int fd,
			 uint8_t *buf, size_t len, uint64_t off, size_t split)
{
	struct iovec iov[2] = {
		{ .iov_base = buf, .iov_len = split },
		{ .iov_base = buf + split, .iov_len = len - split },
	};
	struct io_uring_sqe *sqe;

	if (m == R_FIXED)
		return t_rw_fixed(&self->ring, fd, 0, false, buf, len, off);
	sqe = io_uring_get_sqe(&self->ring);
	if (!sqe)
		return -EBUSY;
	if (m == R_URING)
		io_uring_prep_read(sqe, fd, buf, (unsigned int)len, off);
	else
		io_uring_prep_readv(sqe, fd, iov, split < len ? 2 : 1, off);
	return t_submit_and_wait_one(&self->ring);
}
#endif

/* Drain @n bytes from the pipe into @buf. */
static ssize_t drain(int fd, uint8_t *buf, ssize_t n)
{
	ssize_t done = 0, r;

	while (done < n) {
		r = read(fd, buf + done, (size_t)(n - done));
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		done += r;
	}
	return n;
}

/* One call of method @m: up to @len bytes at @off into @buf; count or -errno. */
static ssize_t read_once(FIXTURE_DATA(content_model) *self, struct mfile *f, enum rmethod m,
			 bool direct, uint8_t *buf, size_t len, uint64_t off)
{
	int fd = direct ? f->dfd : f->fd;
	size_t split = direct ? len / 2 / self->dio * self->dio : len / 2;
	struct iovec iov[2];
	loff_t o = (loff_t)off, so = 0;
	ssize_t n;
	void *p;

	if (!split)
		split = len;
	iov[0].iov_base = buf;
	iov[0].iov_len = m == R_READV2 ? split : len;
	iov[1].iov_base = buf + split;
	iov[1].iov_len = len - split;
	if (len > MAX_REQ)
		len = MAX_REQ;
	switch (m) {
	case R_READ:
	case R_READV1:
	case R_READV2:
		if (lseek(fd, (off_t)off, SEEK_SET) < 0)
			return -errno;
		n = m == R_READ ? read(fd, buf, len) :
				  readv(fd, iov, m == R_READV2 && split < len ? 2 : 1);
		break;
	case R_PREAD:
		n = pread(fd, buf, len, (off_t)off);
		break;
	case R_PREADV2:
		n = preadv2(fd, iov, 1, (off_t)off, 0);
		break;
	case R_MMAP:
		/* Inside EOF only, as the caller asks. */
		o = (loff_t)(off & ~4095ull);
		p = mmap(NULL, off + len - (uint64_t)o, PROT_READ, MAP_SHARED, fd, o);
		if (p == MAP_FAILED)
			return -errno;
		memcpy(buf, (uint8_t *)p + (off - (uint64_t)o), len);
		munmap(p, off + len - (uint64_t)o);
		return (ssize_t)len;
	case R_SPLICE:
	case R_SENDFILE:
		n = m == R_SPLICE ? splice(fd, &o, self->pipe[1], NULL, len, 0) :
				    sendfile(self->pipe[1], fd, &o, len);
		return n > 0 ? drain(self->pipe[0], buf, n) : n < 0 ? -errno : 0;
	case R_COPY:
		if (ftruncate(self->sink, 0))
			return -errno;
		n = copy_file_range(fd, &o, self->sink, &so, len, 0);
		if (n > 0 && iop_pread_all(self->sink, buf, (size_t)n, 0))
			return -EIO;
		break;
	default:
#ifdef HAVE_LIBURING
		return ring_read(self, m, fd, buf, len, off, split);
#else
		return -EOPNOTSUPP;
#endif
	}
	return n < 0 ? -errno : n;
}

/*
 * Read [@off, @off+@len) of @f by @m (direct: the range widened to the
 * DIO alignment) and compare with the model: the count the size allows,
 * every byte the model's. 0, or -errno / -EBADMSG with @why filled.
 */
static int check_read(FIXTURE_DATA(content_model) *self, struct mfile *f, enum rmethod m,
		      bool direct, uint64_t off, uint64_t len)
{
	uint64_t want, done = 0, o;
	ssize_t n;

	if (direct) {
		len += off % self->dio;
		off -= off % self->dio;
		len = (len + self->dio - 1) / self->dio * self->dio;
	}
	if (len > MAX_REQ)
		len = MAX_REQ;
	/*
	 * copy_file_range() shortens a request to EOF before it reads, so a
	 * direct one across an unaligned EOF is refused (EINVAL, where read
	 * and splice return the bytes up to EOF): dio_align_matrix_test's
	 * case. Here it ends at the last aligned offset inside EOF.
	 */
	if (direct && m == R_COPY && off + len > f->size / self->dio * self->dio)
		len = off < f->size / self->dio * self->dio ?
		      f->size / self->dio * self->dio - off : 0;
	want = off >= f->size ? 0 : f->size - off < len ? f->size - off : len;
	if (m == R_MMAP && !want)
		return 0;
	memset(self->rbuf, 0xa5, len);
	while (done < want) {
		n = read_once(self, f, m, direct, self->rbuf + done,
			      m == R_MMAP ? want - done : len - done, off + done);
		if (n < 0) {
			snprintf(self->why, sizeof(self->why), "%s %s%s [%" PRIu64 ",+%" PRIu64 "): %s",
				 self->ctx, direct ? "O_DIRECT " : "", rname[m], off, len,
				 strerror((int)-n));
			return (int)n;
		}
		if (!n)
			break;
		done += (uint64_t)n;
	}
	if (done != want) {
		snprintf(self->why, sizeof(self->why), "%s %s%s [%" PRIu64 ",+%" PRIu64 "): %" PRIu64 " bytes, the size %" PRIu64 " says %" PRIu64,
			 self->ctx, direct ? "O_DIRECT " : "", rname[m], off, len, done, f->size,
			 want);
		return -EBADMSG;
	}
	if (!memcmp(self->rbuf, f->m + off, want))
		return 0;
	for (o = off; self->rbuf[o - off] == f->m[o]; o++)
		;
	snprintf(self->why, sizeof(self->why), "%s %s%s [%" PRIu64 ",+%" PRIu64 "): file byte %" PRIu64 " is 0x%02x, expected 0x%02x%s",
		 self->ctx, direct ? "O_DIRECT " : "", rname[m], off, len, o, self->rbuf[o - off],
		 f->m[o], looks_stale(self->rbuf, off, want, o) ?
		 " (the fill pattern: stale data from freed blocks)" : "");
	return -EBADMSG;
}

static bool method_runs(FIXTURE_DATA(content_model) *self, enum rmethod m, bool direct)
{
	if (m == R_MMAP && direct)
		return false;
	return self->ring_up || (m != R_URING && m != R_URINGV && m != R_FIXED);
}

/* The whole file, buffered and direct, in MAX_REQ pieces, and its size. */
static int check_file(FIXTURE_DATA(content_model) *self, struct mfile *f)
{
	struct stat st;
	uint64_t off;
	int d, ret;

	if (fstat(f->fd, &st))
		return -errno;
	if ((uint64_t)st.st_size != f->size) {
		snprintf(self->why, sizeof(self->why), "%s %s: size %lld, expected %" PRIu64,
			 self->ctx, f->name, (long long)st.st_size, f->size);
		return -EBADMSG;
	}
	for (d = 0; d < 2; d++)
		for (off = 0; off < f->size; off += MAX_REQ) {
			ret = check_read(self, f, R_PREAD, d, off, MAX_REQ);
			if (ret)
				return ret;
		}
	return 0;
}

/* fsync and drop the file's cached pages; then check it. */
static int check_dropped(FIXTURE_DATA(content_model) *self, struct mfile *f)
{
	if (fsync(f->fd) || posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED)) {
		snprintf(self->why, sizeof(self->why), "%s: fsync/fadvise: %s", f->name,
			 strerror(errno));
		return -errno;
	}
	return check_file(self, f);
}

/*
 * Remount (after a shutdown when @down) with every file closed, then
 * reopen and check each. The files were synced by check_dropped().
 */
static int check_remounted(FIXTURE_DATA(content_model) *self, struct mfile *fs, unsigned int n,
			   bool down)
{
	__u32 how = IOP_GOINGDOWN_NOLOGFLUSH;
	unsigned int i;
	int ret;

	if (down && ioctl(self->dirfd, IOP_GOINGDOWN, &how)) {
		if (errno != ENOTTY && !iop_errno_means_absent(errno)) {
			snprintf(self->why, sizeof(self->why), "shutdown: %s", strerror(errno));
			return -errno;
		}
		/* Not on this kernel: the remount check stands in for it. */
		self->shutdown = false;
	}
	for (i = 0; i < n; i++)
		mfile_close(&fs[i]);
	IOP_CLOSE_FDS(self->sink, self->dirfd);
	self->sink = -1;
	self->dirfd = -1;
	ret = iop_scratch_remount(self->fs.scratch);
	if (ret) {
		snprintf(self->why, sizeof(self->why), "remount: %s", strerror(-ret));
		return ret;
	}
	self->dirfd = open(self->fs.scratch->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	self->sink = openat(self->dirfd, "sink", O_RDWR | O_CLOEXEC);
	if (self->dirfd < 0 || self->sink < 0) {
		snprintf(self->why, sizeof(self->why), "reopen: %s", strerror(errno));
		return -errno;
	}
	snprintf(self->ctx, sizeof(self->ctx), "after %s:", down ? "shutdown and remount" :
		 "remount");
	for (i = 0; i < n; i++) {
		ret = mfile_open(self, &fs[i], false);
		if (!ret)
			ret = check_file(self, &fs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* The three checks after a sequence; @what names the sequence. */
static void after_sequence(struct __test_metadata *_metadata, FIXTURE_DATA(content_model) *self,
			   struct mfile *fs, unsigned int n, const char *what)
{
	unsigned int i;

	snprintf(self->ctx, sizeof(self->ctx), "%s, after fsync and DONTNEED:", what);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, check_dropped(self, &fs[i])) TH_LOG("%s", self->why);
	ASSERT_EQ(0, check_remounted(self, fs, n, false)) TH_LOG("%s: %s", what, self->why);
	if (self->shutdown)
		ASSERT_EQ(0, check_remounted(self, fs, n, true)) TH_LOG("%s: %s", what, self->why);
	if (!self->shutdown)
		TH_LOG("%s: shutdown check left out: the filesystem has no shutdown ioctl", what);
}

static int sink_open(FIXTURE_DATA(content_model) *self)
{
	self->sink = openat(self->dirfd, "sink", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
	return self->sink < 0 ? -errno : 0;
}

/* ---- the model's operations ---- */

static int do_write(FIXTURE_DATA(content_model) *self, struct mfile *f, bool direct,
		    uint64_t off, uint64_t len, unsigned int seed)
{
	iop_pattern_fill(self->wbuf, off, len, seed);
	if (iop_pwrite_all(direct ? f->dfd : f->fd, self->wbuf, len, off))
		return -errno;
	model_write(f, self->wbuf, off, len);
	return 0;
}

/* A write through a shared mapping, inside EOF. */
static int do_mwrite(FIXTURE_DATA(content_model) *self, struct mfile *f, uint64_t off,
		     uint64_t len, unsigned int seed)
{
	uint64_t base = off & ~4095ull;
	uint8_t *p = mmap(NULL, off + len - base, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
			  (off_t)base);

	if (p == MAP_FAILED)
		return -errno;
	iop_pattern_fill(self->wbuf, off, len, seed);
	memcpy(p + (off - base), self->wbuf, len);
	munmap(p, off + len - base);
	model_write(f, self->wbuf, off, len);
	return 0;
}

/* ---- fixed sequences: every (extent state x read method) ---- */

enum state {
	S_HOLE, S_UNWRITTEN, S_DIRTY_UNWRITTEN, S_DELALLOC, S_WRITTEN, S_TRUNC_TAIL, S_ZERO,
	S_PUNCH, S_COLLAPSE, S_INSERT, S_REFLINK, S_UNSHARE, S_NR
};

static const char *const sname[S_NR] = {
	"hole", "unwritten", "dirty over unwritten", "delalloc", "written",
	"tail after truncate down and up", "zero range", "punch hole", "collapse range",
	"insert range", "reflink", "unshare",
};

/*
 * @s in the middle of a 16-block file (B = block): blocks 4-11, between
 * written blocks 0-3 and 12-15, with unaligned edges where the state
 * allows them. Collapse and insert move a mixed layout ([written]
 * [unwritten, dirty inside][hole][delalloc]) by whole blocks.
 */
static int build_state(FIXTURE_DATA(content_model) *self, struct mfile *f, enum state s,
		       const struct mfile *donor, unsigned int seed)
{
	const uint64_t B = self->bs;
	bool moved = s == S_COLLAPSE || s == S_INSERT;
	int ret;

	if (s == S_WRITTEN || s == S_TRUNC_TAIL || s == S_ZERO || s == S_PUNCH) {
		ret = do_write(self, f, false, 0, 16 * B, seed);
		return ret ? ret : fsync(f->fd) ? -errno : 0;
	}
	/*
	 * The blocks under the state held the pattern: the file is written
	 * whole with it in one extent, the ends overwritten in place, the
	 * rest punched. The allocator's goal for the punched range is next
	 * to the blocks before it, so the same blocks come back.
	 */
	fill_with_pattern(self->wbuf, 0, 16 * B);
	ret = iop_pwrite_all(f->fd, self->wbuf, 16 * B, 0);
	if (!ret && fsync(f->fd))
		ret = -errno;
	if (!ret)
		ret = do_write(self, f, false, 0, 4 * B, seed);
	if (!ret && !moved)
		ret = do_write(self, f, false, 12 * B, 4 * B, seed + 1);
	if (!ret && (fsync(f->fd) || fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					       4 * B, moved ? 12 * B : 8 * B) ||
		     ftruncate(f->fd, (off_t)f->size) || fsync(f->fd)))
		ret = -errno;
	if (!ret && moved) {
		ret = do_falloc(f, 0, 4 * B, 4 * B);
		if (!ret)
			ret = do_write(self, f, false, 5 * B + 100, B, seed + 1);
		if (!ret)
			ret = do_write(self, f, false, 12 * B, 4 * B, seed + 2);
	}
	if (ret)
		return ret;
	switch (s) {
	case S_UNWRITTEN:
		return do_falloc(f, 0, 4 * B, 8 * B);
	case S_DIRTY_UNWRITTEN:
		ret = do_falloc(f, 0, 4 * B, 8 * B);
		if (!ret && fsync(f->fd))
			ret = -errno;
		return ret ? ret : do_write(self, f, false, 5 * B + 100, 4 * B - 200, seed + 3);
	case S_DELALLOC:
		return do_write(self, f, false, 4 * B + 100, 8 * B - 200, seed + 3);
	case S_TRUNC_TAIL:
		if (ftruncate(f->fd, (off_t)(6 * B + 123)) || fsync(f->fd) ||
		    ftruncate(f->fd, (off_t)(16 * B)))
			return -errno;
		model_truncate(f, 6 * B + 123);
		model_truncate(f, 16 * B);
		return 0;
	case S_ZERO:
		return do_falloc(f, FALLOC_FL_ZERO_RANGE, 4 * B + 100, 8 * B - 200);
	case S_PUNCH:
		return do_falloc(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4 * B + 100,
				 8 * B - 200);
	case S_COLLAPSE:
		return do_falloc(f, FALLOC_FL_COLLAPSE_RANGE, 2 * B, 4 * B);
	case S_INSERT:
		return do_falloc(f, FALLOC_FL_INSERT_RANGE, 6 * B, 2 * B);
	case S_REFLINK:
	case S_UNSHARE:
		ret = do_clone(f, donor, 0, 8 * B, 4 * B);
		if (!ret)
			ret = do_write(self, f, false, 6 * B + 100, 200, seed + 3);
		if (!ret && s == S_UNSHARE)
			ret = do_falloc(f, FALLOC_FL_UNSHARE_RANGE, 4 * B, 8 * B);
		return ret;
	default:
		return 0;
	}
}

/*
 * The positive control: the device behind every unwritten extent of
 * [@off, @off+@len) shows the fill pattern, or stale data could not show.
 */
static int control_unwritten(FIXTURE_DATA(content_model) *self, struct mfile *f, uint64_t off,
			     uint64_t len)
{
	struct iop_fiemap fm;
	unsigned int i;
	int n = iop_fiemap(f->fd, off, len, &fm);

	if (n <= 0) {
		snprintf(self->why, sizeof(self->why), "FIEMAP: %s", n ? strerror(-n) : "nothing");
		return n ? n : -EBADMSG;
	}
	for (i = 0; i < fm.n; i++) {
		const struct fiemap_extent *e = &fm.ext[i];

		if (!(e->fe_flags & FIEMAP_EXTENT_UNWRITTEN))
			continue;
		fill_with_pattern(self->wbuf, e->fe_physical, SECTOR);
		if (iop_pread_all(self->dev, self->raw, SECTOR, e->fe_physical) ||
		    memcmp(self->raw, self->wbuf, SECTOR)) {
			snprintf(self->why, sizeof(self->why),
				 "the device behind unwritten [%llu,+%llu) (device byte %llu: %02x %02x %02x %02x) does not show the fill pattern: stale data could not show",
				 (unsigned long long)e->fe_logical,
				 (unsigned long long)e->fe_length,
				 (unsigned long long)e->fe_physical, self->raw[0], self->raw[1],
				 self->raw[2], self->raw[3]);
			return -EBADMSG;
		}
	}
	return 0;
}

/* The donor of the clones: @cap bytes of data, on disk. */
static int donor_new(FIXTURE_DATA(content_model) *self, struct mfile *d, uint64_t cap)
{
	int ret = mfile_new(self, d, "donor", cap, false);
	uint64_t off;

	for (off = 0; !ret && off < cap; off += MAX_REQ)
		ret = do_write(self, d, false, off, MAX_REQ < cap - off ? MAX_REQ : cap - off, 99);
	if (!ret && fsync(d->fd))
		ret = -errno;
	return ret;
}

/*
 * Each extent state built fresh in its own file for each read method,
 * buffered and direct, then read whole and from inside the state; every
 * file again after the cache drop, the remount and the shutdown.
 * Catches: any read method returning stale or wrong bytes over any
 * extent state, and data lost by a conversion or writeback.
 */
TEST_F_TIMEOUT(content_model, every_read_method_returns_the_model_over_every_extent_state, 110)
{
	const uint64_t B = self->bs;
	struct mfile *fs = calloc(S_NR * R_NR * 2 + 1, sizeof(*fs)), *f;
	unsigned int n = 0, s, m, d, controls = 0;
	char name[24];

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, fs);
	ASSERT_EQ(0, sink_open(self)) TH_LOG("sink: %s", strerror(errno));
	if (self->reflink)
		ASSERT_EQ(0, donor_new(self, &fs[n++], 8 * B)) TH_LOG("%s", self->why);
	if (!self->ring_up)
		TH_LOG("io_uring methods left out: %s", self->ring_why);
	for (s = 0; s < S_NR; s++) {
		/* clones need reflink; 16 blocks hold no cluster to shift in EOF */
		if (((s == S_REFLINK || s == S_UNSHARE) && !self->reflink) ||
		    ((s == S_COLLAPSE || s == S_INSERT) && self->shift > B))
			continue;
		for (m = 0; m < R_NR; m++)
			for (d = 0; d < 2; d++) {
				if (!method_runs(self, m, d))
					continue;
				f = &fs[n++];
				snprintf(name, sizeof(name), "s%02u-m%02u-%c", s, m, d ? 'd' : 'b');
				ASSERT_EQ(0, mfile_new(self, f, name, FIX_BLOCKS * B, false))
					TH_LOG("%s", self->why);
				ASSERT_EQ(0, build_state(self, f, s, &fs[0], s * 100 + m * 2 + d))
					TH_LOG("state %s in %s: %s", sname[s], name,
					       strerror(errno));
				if (s == S_UNWRITTEN && !control_unwritten(self, f, 4 * B, 8 * B))
					controls++;
				else if (s == S_UNWRITTEN)
					TH_LOG("control, %s: %s", name, self->why);
				snprintf(self->ctx, sizeof(self->ctx), "state %s:", sname[s]);
				EXPECT_EQ(0, check_read(self, f, m, d, 0, f->size))
					TH_LOG("%s", self->why);
				EXPECT_EQ(0, check_read(self, f, m, d, 4 * B + 50, 5 * B))
					TH_LOG("%s", self->why);
			}
	}
	/*
	 * The control: an unwritten extent over blocks that held the pattern,
	 * on at least one of the files (ext4 sometimes places one elsewhere).
	 */
	TH_LOG("%u files; %u unwritten extents over the pattern", n, controls);
	EXPECT_LT(0u, controls) TH_LOG("no unwritten extent over the pattern: stale data could not show");
	after_sequence(_metadata, self, fs, n, "fixed sequence");
	free_files(fs, n);
}

/* ---- random sequences ---- */

static const unsigned char weight[OP_NR] = { 40, 12, 6, 4, 4, 5, 5, 5, 3, 3, 3, 2, 2, 3, 3 };
static const char *const opname[OP_NR] = {
	"read", "pwrite", "O_DIRECT pwrite", "mmap write", "ftruncate", "fallocate", "punch",
	"zero range", "collapse", "insert", "clone", "unshare", "fsync", "writeback", "drop",
};

/*
 * One random operation on @f (the file under test; @d, the donor, or
 * NULL). 0 when it ran and the model follows, -errno otherwise, the
 * operation noted in the history first.
 */
static int random_op(FIXTURE_DATA(content_model) *self, struct mfile *f, struct mfile *d,
		     uint64_t *rs, unsigned int idx)
{
	const uint64_t B = self->bs, S = self->shift, cap = f->cap;
	unsigned int w = (unsigned int)rnd_below(rs, 100), op;
	uint64_t off, len, soff;
	const struct mfile *src;
	enum rmethod m;
	bool direct;
	int mode;

	for (op = 0; op < OP_NR - 1 && w >= weight[op]; op++)
		w -= weight[op];
	pick_range(rs, cap, &off, &len);
	self->op = op;
	switch (op) {
	case OP_WRITE:
		note(self, "%u: pwrite [%" PRIu64 ",+%" PRIu64 ")", idx, off, len);
		return do_write(self, f, false, off, len, idx);
	case OP_DWRITE:
		if (!pick_blocks(rs, B, cap, &off, &len))
			break;
		note(self, "%u: O_DIRECT pwrite [%" PRIu64 ",+%" PRIu64 ")", idx, off, len);
		return do_write(self, f, true, off, len, idx);
	case OP_MWRITE:
		if (!f->size)
			break;
		off %= f->size;
		len = 1 + len % (f->size - off);
		note(self, "%u: mmap write [%" PRIu64 ",+%" PRIu64 ")", idx, off, len);
		return do_mwrite(self, f, off, len, idx);
	case OP_TRUNC:
		note(self, "%u: ftruncate %" PRIu64, idx, off);
		if (ftruncate(f->fd, (off_t)off))
			return -errno;
		model_truncate(f, off);
		return 0;
	case OP_FALLOC:
	case OP_PUNCH:
	case OP_ZERO:
		mode = op == OP_PUNCH ? FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE :
		       op == OP_ZERO ? FALLOC_FL_ZERO_RANGE : 0;
		if (op != OP_PUNCH && rnd_below(rs, 2))
			mode |= FALLOC_FL_KEEP_SIZE;
		note(self, "%u: fallocate 0x%x [%" PRIu64 ",+%" PRIu64 ")", idx, mode, off, len);
		return do_falloc(f, mode, off, len);
	case OP_COLLAPSE:
		/* Strictly inside EOF. */
		if (!pick_blocks(rs, S, f->size > S ? f->size - 1 : 0, &off, &len))
			break;
		note(self, "%u: collapse [%" PRIu64 ",+%" PRIu64 ")", idx, off, len);
		return do_falloc(f, FALLOC_FL_COLLAPSE_RANGE, off, len);
	case OP_INSERT:
		if (!pick_blocks(rs, S, f->size, &off, &len) || f->size + len > cap)
			break;
		note(self, "%u: insert [%" PRIu64 ",+%" PRIu64 ")", idx, off, len);
		return do_falloc(f, FALLOC_FL_INSERT_RANGE, off, len);
	case OP_CLONE:
		src = rnd_below(rs, 2) ? f : d;
		if (!d || !pick_blocks(rs, B, src->size / B * B, &soff, &len))
			break;
		off = rnd_below(rs, (f->size < cap - len ? f->size : cap - len) / B + 1) * B;
		if (src == f && (off < soff + len && soff < off + len))
			break;
		note(self, "%u: clone %s [%" PRIu64 ",+%" PRIu64 ") to %" PRIu64, idx,
		     src == f ? "itself" : "donor", soff, len, off);
		return do_clone(f, src, soff, len, off);
	case OP_UNSHARE:
		if (!d || !f->size)
			break;
		off %= f->size;
		len = 1 + len % (f->size - off);
		note(self, "%u: unshare [%" PRIu64 ",+%" PRIu64 ")", idx, off, len);
		return do_falloc(f, FALLOC_FL_UNSHARE_RANGE, off, len);
	case OP_FSYNC:
		note(self, "%u: fsync", idx);
		return (len & 1 ? fdatasync(f->fd) : fsync(f->fd)) ? -errno : 0;
	case OP_WRITEBACK:
		note(self, "%u: sync_file_range WRITE [%" PRIu64 ",+%" PRIu64 ")", idx, off, len);
		return sync_file_range(f->fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE) ?
		       -errno : 0;
	case OP_DROP:
		note(self, "%u: DONTNEED [%" PRIu64 ",+%" PRIu64 ")", idx, off, len);
		return posix_fadvise(f->fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
	default:
		break;
	}
	/* A read; also what an operation the file's state does not allow becomes. */
	self->op = OP_READ;
	do {
		m = (enum rmethod)rnd_below(rs, R_NR);
		direct = rnd_below(rs, 3) == 0;
	} while (!method_runs(self, m, direct));
	off = rnd_below(rs, f->size + 4096);
	note(self, "%u: %s%s [%" PRIu64 ",+%" PRIu64 ")", idx, direct ? "O_DIRECT " : "",
	     rname[m], off, len);
	snprintf(self->ctx, sizeof(self->ctx), "op %u:", idx);
	return check_read(self, f, m, direct, off, len);
}

/*
 * RAND_OPS random operations in RAND_SEQS sequences, each followed by
 * the checks after a cache drop, a remount and a shutdown. Catches what
 * the fixed sequences do not reach: states made by operations in an order
 * nobody wrote down (a clone over a collapsed range with dirty pages in
 * writeback, a zero range across an unwritten extent that an insert
 * moved, ...).
 */
TEST_F_TIMEOUT(content_model, seeded_random_operations_keep_every_read_equal_to_the_model, 110)
{
	struct mfile fs[2];
	uint64_t rs;
	unsigned int n = 1, seq, i, h, idx = 0, per = RAND_OPS / RAND_SEQS, diverged = 0;
	char what[96], line[400];
	size_t at;
	int ret;

	memset(fs, 0, sizeof(fs));
	for (i = 0; i < 2; i++) {
		fs[i].fd = -1;
		fs[i].dfd = -1;
	}
	IOP_TEST_BEGIN(&self->fs);
	rs = self->seed;
	TH_LOG("seed %" PRIu64 ": IOPATH_SEED=%" PRIu64 " replays this run", self->seed, self->seed);
	ASSERT_EQ(0, sink_open(self)) TH_LOG("sink: %s", strerror(errno));
	ASSERT_EQ(0, mfile_new(self, &fs[0], "random", IOP_K(256), true)) TH_LOG("%s", self->why);
	if (self->reflink) {
		ASSERT_EQ(0, donor_new(self, &fs[1], IOP_K(256))) TH_LOG("%s", self->why);
		n = 2;
	}
	for (seq = 0; seq < RAND_SEQS; seq++) {
		for (i = 0; i < per; i++, idx++) {
			self->why[0] = '\0';
			ret = random_op(self, &fs[0], n > 1 ? &fs[1] : NULL, &rs, idx);
			self->mix[self->op]++;
			if (!ret)
				continue;
			if (!diverged++) {
				TH_LOG("seed %" PRIu64 ": the operations up to %u", self->seed, idx);
				for (h = self->nhist > HISTORY ? self->nhist - HISTORY : 0;
				     h < self->nhist; h++)
					TH_LOG("  %s", self->hist[h % HISTORY]);
			}
			/*
			 * After the failed expectation (a known failure's
			 * diagnostic is matched there) the sequence and its
			 * checks go on: every later divergence must match too.
			 */
			EXPECT_EQ(0, ret)
				TH_LOG("seed %" PRIu64 ", operation %u diverged (replay: IOPATH_SEED=%" PRIu64 "): %s",
				       self->seed, idx, self->seed,
				       self->why[0] ? self->why : strerror(-ret));
			ASSERT_LT(diverged, MAX_DIVERGED)
				TH_LOG("seed %" PRIu64 ": %u divergences, the model is lost", self->seed,
				       diverged);
		}
		snprintf(what, sizeof(what), "seed %" PRIu64 ", after operation %u", self->seed,
			 idx - 1);
		after_sequence(_metadata, self, fs, n, what);
	}
	for (i = 0, at = 0; i < OP_NR; i++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s %u", i ? ", " : "",
				       opname[i], self->mix[i]);
	TH_LOG("seed %" PRIu64 ": %u operations: %s", self->seed, idx, line);
	for (i = 0; i < n; i++) {
		mfile_close(&fs[i]);
		free(fs[i].m);
	}
}

TEST_HARNESS_MAIN
