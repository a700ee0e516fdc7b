// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every write lands where it must, with the bytes it carried, through
 * every write method and over every extent state; and a write whose copy
 * from user memory stops short writes exactly the count it returns. The
 * write side of content_model_test's fsx-style model (content_model.h,
 * content_write.h).
 *
 * The bug class: misplaced and mangled writes. An O_APPEND or RWF_APPEND
 * write that lands at the file offset instead of at EOF (mutant
 * 44-direct-append-at-file-offset, O_DIRECT only); a file position not
 * moved by writev or by io_uring at the file position, so the next write
 * overwrites (46-writev-file-position-not-advanced,
 * 52-io-uring-file-position-not-advanced); splice from a pipe that writes
 * a partly consumed pipe buffer's head again
 * (43-splice-partial-buffer-offset-kept), or, asked for more than the
 * pipe holds, takes its buffers a second time round the ring
 * (101-splice-write-vector-past-the-pipe, generated sample 7's
 * 007-and-or-iter_file_splice_write; 7.2.13 oopses in
 * iter_file_splice_write()); a write into a small unwritten
 * extent whose conversion leaves the rest of the extent as stale data
 * instead of zeros (ext4 without dioread_nolock:
 * 45-ext4-split-remainder-not-zeroed, 53-ext4-zeroout-drops-last-block);
 * a short copy from user memory (the source's next page unmapped or
 * PROT_NONE) into a folio that is not uptodate accepted as if complete,
 * so the file shows bytes that were never written
 * (42-iomap-short-copy-marks-uptodate on XFS,
 * 51-block-write-end-short-copy-accepted on ext4 without delayed
 * allocation: with it, ext4_da_write_end() refuses such a copy before
 * block_write_end() sees it).
 *
 * The free space of each fresh filesystem holds a pattern first
 * (fill_free_space()), and the blocks under each state held it, so stale
 * data is recognised as such. Variants: ext4 and XFS with 4 KiB and 1 KiB
 * blocks on a loop device with 512-byte sectors; the fixed sequence also
 * on ext4 mounted nodioread_nolock (content_write_zeroout), where
 * writeback converts unwritten extents by splitting and zeroing them out
 * (ext4_ext_convert_to_initialized()) instead of at I/O completion; the
 * short copies also on ext4 mounted nodelalloc (content_write_nodelalloc,
 * both block sizes), whose buffered writes end in block_write_end().
 *
 * Three tests:
 *   - fixed: one file per (write method x extent state), buffered and
 *     O_DIRECT where the method allows, checked right after the write,
 *     after fsync and a cache drop (buffered and direct reads), and after
 *     a remount;
 *   - random: seeded sequences of writes by any method, truncates,
 *     fallocate, punch, zero range, syncs, writeback and cache drops, the
 *     file compared with the model after each; the seed and the mix of
 *     operations are printed, IOPATH_SEED=N replays a run (0: one from
 *     the clock), and a divergence names the seed, the operation and the
 *     ones before it;
 *   - short copies: a write whose source ends at an unmapped or PROT_NONE
 *     page, at file offsets on and around block and folio boundaries,
 *     with the copy stopping on and around them, into a hole, unwritten
 *     blocks, written blocks (cached and not), dirty blocks and past EOF:
 *     the count returned is what reached the file and nothing else
 *     changed, before and after a cache drop.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <fcntl.h>
#include <inttypes.h>

#include "iopath_test.h"
#include "iomap_layout.h"
#include "content_write.h"

#define SECTOR		512
#define FIX_BLOCKS	24		/* 16, and appends past them */
#define RAND_OPS	1200		/* per variant */
#define FULL_EVERY	32		/* the whole file compared every this many operations */
#define RAND_SEQS	2
#define RAND_CAP	IOP_K(256)
#define MAX_DIVERGED	8
#define HISTORY		8
#define SC_REGION	IOP_K(32)	/* one short copy's region of its file */

/* A run's state; the fixtures below hold one. */
struct cw {
	struct iop_test_fs fs;
	struct wctx c;
	unsigned int bs;
	uint64_t seed;
	bool reflink;
	char ring_why[128];
	char ctx[96];
	char hist[HISTORY][96];
	unsigned int nhist;
	/*
	 * The test's files, for the teardown to close and free when an ASSERT
	 * ends the test: a file left open keeps the scratch filesystem busy,
	 * and its post-test fsck would fail on the umount instead.
	 */
	struct mfile *files;
	unsigned int nfiles;
};

FIXTURE(content_write) {
	struct cw w;
};

FIXTURE_VARIANT(content_write) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(content_write);

/*
 * ext4 without dioread_nolock: writeback converts unwritten extents by
 * splitting them, zeroing out what is left of a small one; the fixed
 * sequence alone (the other tests have nothing there the ext4 variant
 * does not).
 */
FIXTURE(content_write_zeroout) {
	struct cw w;
};

FIXTURE_VARIANT(content_write_zeroout) {
	IOP_FS_VARIANT_FIELDS;
};

FIXTURE_VARIANT_ADD(content_write_zeroout, ext4_dioread_lock) {
	IOP_FS_EXT4, .mount_opts = "nodioread_nolock",
};

/*
 * ext4 without delayed allocation: a buffered write ends in
 * ext4_write_end() and block_write_end(), which alone turn a short copy
 * into a folio that is not uptodate into a zero-length write (with delayed
 * allocation, ext4_da_write_end() does it before block_write_end() is
 * reached, so a mistake there cannot show); the short copies alone
 * (51-block-write-end-short-copy-accepted).
 */
FIXTURE(content_write_nodelalloc) {
	struct cw w;
};

FIXTURE_VARIANT(content_write_nodelalloc) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_EXT4_MOUNT_VARIANTS(content_write_nodelalloc, nodelalloc, "nodelalloc");

/* As content_model_test: 1 unless IOPATH_SEED says otherwise, 0 the clock. */
static uint64_t clock_seed;

static void __attribute__((constructor)) choose_seed(void)
{
	clock_seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
}

static int seed_env(uint64_t *seed, char *why, size_t wlen)
{
	const char *s = getenv("IOPATH_SEED");
	char *esc;

	*seed = 1;
	if (!s || !*s)
		return 0;
	if (!iop_parse_u64(s, 0, UINT64_MAX, seed)) {
		if (!*seed)
			*seed = clock_seed;
		return 0;
	}
	esc = iop_esc_dup(s);
	snprintf(why, wlen, "IOPATH_SEED '%.64s': not a decimal number below 2^64", esc ? esc : "?");
	free(esc);
	return -EINVAL;
}

/* The fixtures' setup: never fails itself (iop_test_fs_setup_opts()). */
static void cw_setup(struct cw *self, const char *fstype, const char *mkfs_opts,
		     const char *mount_opts, unsigned int blksz, bool reflink)
{
	const struct iop_scratch_opts want = {
		.fstype = fstype, .mkfs_opts = mkfs_opts, .mount_opts = mount_opts,
		.sector_size = SECTOR,
		.size = strcmp(fstype, "xfs") ? (64ull << 20) : (300ull << 20),
	};
	char bad[160];

	wm_init(&self->c);
	self->files = NULL;
	self->nfiles = 0;
	self->bs = blksz;
	self->reflink = reflink;
	if (seed_env(&self->seed, bad, sizeof(bad))) {
		/* Bad input: found before anything is made. */
		memset(&self->fs, 0, sizeof(self->fs));
		snprintf(self->fs.error, sizeof(self->fs.error), "%s", bad);
		return;
	}
	iop_test_fs_setup_opts(&self->fs, &want);
	if (!self->fs.scratch)
		return;
	if (self->fs.scratch->backing == IOP_BACKING_DIR) {
		snprintf(self->fs.skip, sizeof(self->fs.skip),
			 "IOPATH_SCRATCH_DIR: no device to fill with a pattern");
		return;
	}
	wm_fs_prepare(&self->fs, &self->c, self->ring_why, sizeof(self->ring_why));
}

/* The one file of a test, owned by @self until the test frees it; NULL without memory. */
static struct mfile *cw_file(struct cw *self)
{
	struct mfile *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->fd = -1;
	f->dfd = -1;
	self->files = f;
	self->nfiles = 1;
	return f;
}

/* What cw_setup() and the test left: the files first, the filesystem after them. */
static void cw_teardown(struct __test_metadata *_metadata, struct cw *self)
{
	if (self->files)
		free_files(self->files, self->nfiles);
	self->files = NULL;
	self->nfiles = 0;
	wm_teardown(&self->c);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

FIXTURE_SETUP(content_write)
{
	cw_setup(&self->w, variant->fstype, variant->mkfs_opts, variant->mount_opts,
		 variant->blksz, variant->reflink);
}

FIXTURE_TEARDOWN(content_write)
{
	cw_teardown(_metadata, &self->w);
}

FIXTURE_SETUP(content_write_zeroout)
{
	cw_setup(&self->w, variant->fstype, variant->mkfs_opts, variant->mount_opts,
		 variant->blksz, variant->reflink);
}

FIXTURE_TEARDOWN(content_write_zeroout)
{
	cw_teardown(_metadata, &self->w);
}

FIXTURE_SETUP(content_write_nodelalloc)
{
	cw_setup(&self->w, variant->fstype, variant->mkfs_opts, variant->mount_opts,
		 variant->blksz, variant->reflink);
}

FIXTURE_TEARDOWN(content_write_nodelalloc)
{
	cw_teardown(_metadata, &self->w);
}

static void note(struct cw *self, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Record an operation in the history printed with a divergence. */
static void note(struct cw *self, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(self->hist[self->nhist++ % HISTORY], sizeof(self->hist[0]), fmt, ap);
	va_end(ap);
}

static int mfile_open(struct cw *self, struct mfile *f, bool create)
{
	int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0);

	f->fd = openat(self->c.dirfd, f->name, flags, 0600);
	if (f->fd < 0)
		return -errno;
	f->dfd = openat(self->c.dirfd, f->name, O_RDWR | O_DIRECT | O_CLOEXEC);
	return f->dfd < 0 ? -errno : 0;
}

/* A new, empty file of up to @cap bytes and its model. */
static int mfile_new(struct cw *self, struct mfile *f, const char *name,
		     uint64_t cap)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->dfd = -1;
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->cap = cap;
	f->m = calloc(1, cap);
	if (!f->m)
		return -ENOMEM;
	return mfile_open(self, f, true);
}

/*
 * @f, @size bytes, held the fill pattern on disk and is a hole now: the
 * allocator hands the punched blocks back to the next allocation.
 */
static int patterned_hole(struct mfile *f, uint64_t size)
{
	uint8_t *pat = malloc(MAX_REQ);
	uint64_t at, n;
	int ret = 0;

	if (!pat)
		return -ENOMEM;
	/* One chunk, written over and over: the pattern repeats every 8 bytes. */
	fill_with_pattern(pat, 0, MAX_REQ);
	for (at = 0; !ret && at < size; at += n) {
		n = size - at < MAX_REQ ? size - at : MAX_REQ;
		ret = iop_pwrite_all(f->fd, pat, n, at);
	}
	if (!ret && (fsync(f->fd) || fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					       0, (off_t)size) || fsync(f->fd)))
		ret = -errno;
	if (!ret)
		model_truncate(f, size);
	free(pat);
	return ret;
}

/* ---- fixed: every (write method x extent state) ---- */

enum state {
	S_HOLE, S_UNWRITTEN, S_DIRTY_UNWRITTEN, S_DELALLOC, S_WRITTEN, S_WRITTEN_COLD, S_SHARED,
	S_PAST_EOF, S_NR
};

static const char *const sname[S_NR] = {
	"hole", "unwritten", "dirty over unwritten", "delalloc", "written (cached)",
	"written (not cached)", "shared (reflink)", "past EOF",
};

/*
 * @s over blocks 4-11 of a 16-block file whose other blocks are written
 * (past EOF: the file ends 100 bytes into block 4), built for all files
 * at once in four steps with a syncfs after each (a sync per file makes
 * the fixed sequence slow on ext4): the files written whole with the fill
 * pattern; their ends written with data and blocks 4-11 punched (the
 * allocator hands the same blocks back to the file); the clean states
 * (unwritten: an 8-block extent, on 4 KiB ext4 exactly the 32 KiB that
 * ext4_ext_convert_to_initialized() zeroes out rather than splits);
 * then the dirty ones.
 */
static int build_step(struct cw *self, struct mfile *f, enum state s, unsigned int step,
		      const struct mfile *donor, unsigned int seed)
{
	const uint64_t B = self->bs;
	uint64_t at;
	int ret = 0;

	switch (step) {
	case 0:
		fill_with_pattern(self->c.wbuf, 0, 16 * B);
		return iop_pwrite_all(f->fd, self->c.wbuf, 16 * B, 0);
	case 1:
		ret = wm_write(&self->c, f, W_PWRITE, false, 0, 4 * B, seed, &at);
		if (!ret)
			ret = wm_write(&self->c, f, W_PWRITE, false, 12 * B, 4 * B, seed, &at);
		return ret ? ret : do_falloc(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4 * B,
					     8 * B);
	case 2:
		if (s == S_UNWRITTEN || s == S_DIRTY_UNWRITTEN)
			return do_falloc(f, 0, 4 * B, 8 * B);
		if (s == S_WRITTEN || s == S_WRITTEN_COLD)
			return wm_write(&self->c, f, W_PWRITE, false, 4 * B, 8 * B, seed + 1, &at);
		if (s == S_SHARED)
			return do_clone(f, donor, 0, 8 * B, 4 * B);
		if (s == S_PAST_EOF) {
			if (ftruncate(f->fd, (off_t)(4 * B + 100)))
				return -errno;
			model_truncate(f, 4 * B + 100);
		}
		return 0;
	default:
		if (s == S_DIRTY_UNWRITTEN)
			return wm_write(&self->c, f, W_PWRITE, false, 5 * B + 100, 2 * B, seed + 1,
					&at);
		if (s == S_DELALLOC)
			return wm_write(&self->c, f, W_PWRITE, false, 4 * B + 100, 8 * B - 200,
					seed + 1, &at);
		if (s == S_WRITTEN_COLD && posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED))
			return -EIO;
		return 0;
	}
}

/*
 * The write of method @m into @s: buffered from 50 bytes into block 5 on,
 * across partial blocks at both ends and inside the state at both ends
 * (a write into an unwritten extent that starts at the extent's first
 * block is merged into the written extent before it, and one that ends
 * at its last into the one after: neither splits it); direct on the DIO
 * alignment; mmap inside EOF. Appends are asked for at the same offset
 * and land at EOF.
 */
static void target(struct cw *self, const struct mfile *f, enum wmethod m,
		   bool direct, uint64_t *off, uint64_t *len)
{
	const uint64_t B = self->bs;

	if (direct) {
		*off = 4 * B + (m % 4) * self->c.dio;
		*len = 4 * B;
	} else {
		*off = 5 * B + 50 + (m * 97) % B;
		*len = 4 * B + (m * 31) % B;
	}
	if (m == W_MMAP && *off + *len > f->size) {
		*off = 4 * B;
		*len = f->size - *off;
	}
}

/* fsync, drop the cache, compare buffered and direct; remount, compare again. */
static int check_after(struct cw *self, struct mfile *fs, unsigned int n,
		       const char *what)
{
	char ctx[160];
	unsigned int i;
	int ret;

	snprintf(ctx, sizeof(ctx), "%s, after fsync and DONTNEED:", what);
	for (i = 0; i < n; i++) {
		if (fsync(fs[i].fd) || posix_fadvise(fs[i].fd, 0, 0, POSIX_FADV_DONTNEED))
			return -errno;
		ret = wm_compare(&self->c, &fs[i], fs[i].fd, ctx);
		if (!ret)
			ret = wm_compare(&self->c, &fs[i], fs[i].dfd, ctx);
		if (ret)
			return ret;
	}
	for (i = 0; i < n; i++)
		mfile_close(&fs[i]);
	ret = wm_remount(&self->c, self->fs.scratch);
	if (ret)
		return ret;
	snprintf(ctx, sizeof(ctx), "%s, after a remount:", what);
	for (i = 0; i < n; i++) {
		ret = mfile_open(self, &fs[i], false);
		if (!ret)
			ret = wm_compare(&self->c, &fs[i], fs[i].fd, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

static int donor_new(struct cw *self, struct mfile *d, uint64_t len)
{
	uint64_t at;
	int ret = mfile_new(self, d, "donor", len);

	if (!ret)
		ret = wm_write(&self->c, d, W_PWRITE, false, 0, len, 99, &at);
	if (!ret && fsync(d->fd))
		ret = -errno;
	return ret;
}

/* The (state, method, direct) of fixed file @i, or false past the last. */
static bool fixed_pair(struct cw *self, unsigned int i, enum state *s, enum wmethod *m,
		       bool *d)
{
	unsigned int k = 0, ss, mm, dd;

	for (ss = 0; ss < S_NR; ss++)
		for (mm = 0; mm < W_NR; mm++)
			for (dd = 0; dd < 2; dd++) {
				if ((ss == S_SHARED && !self->reflink) ||
				    !wm_runs(&self->c, mm, dd) || k++ != i)
					continue;
				*s = ss;
				*m = mm;
				*d = dd;
				return true;
			}
	return false;
}

/*
 * One file per (extent state x write method), buffered and direct: the
 * write lands where the model says (appends at EOF whatever the offset,
 * the file position moved by the count), with its bytes, and the rest of
 * the state reads as before: zeros where the state had none, never the
 * fill pattern. Catches 43, 44, 45, 46, 52 and 53.
 */
static void fixed_run(struct __test_metadata *_metadata, struct cw *self)
{
	const uint64_t B = self->bs;
	struct mfile *fs = calloc(S_NR * W_NR * 2 + 1, sizeof(*fs)), *f, *files;
	unsigned int n = 0, i, step;
	uint64_t off, len, at;
	enum wmethod m;
	enum state s;
	char name[24];
	bool d;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, fs);
	self->files = fs;
	if (self->reflink) {
		self->nfiles = ++n;
		ASSERT_EQ(0, donor_new(self, &fs[0], 8 * B)) TH_LOG("donor: %s", self->c.why);
	}
	files = fs + n;
	if (!self->c.ring_up)
		TH_LOG("io_uring methods left out: %s", self->ring_why);
	if (!self->c.noappend)
		TH_LOG("RWF_NOAPPEND left out: the kernel refuses it (before 6.9)");
	if (!self->c.nowait_buffered)
		TH_LOG("buffered RWF_NOWAIT writes left out: the filesystem refuses them (EOPNOTSUPP)");
	for (i = 0; fixed_pair(self, i, &s, &m, &d); i++) {
		snprintf(name, sizeof(name), "s%u-w%02u-%c", s, m, d ? 'd' : 'b');
		self->nfiles = ++n;
		ASSERT_EQ(0, mfile_new(self, &files[i], name, FIX_BLOCKS * B))
			TH_LOG("%s: %s", name, strerror(errno));
	}
	for (step = 0; step < 4; step++) {
		for (i = 0; fixed_pair(self, i, &s, &m, &d); i++)
			ASSERT_EQ(0, build_step(self, &files[i], s, step, &fs[0], s * 100 + m))
				TH_LOG("state %s, step %u, in %s: %s", sname[s], step,
				       files[i].name, self->c.why);
		if (step < 3)
			ASSERT_EQ(0, syncfs(self->c.dirfd)) TH_LOG("syncfs: %s", strerror(errno));
	}
	for (i = 0; fixed_pair(self, i, &s, &m, &d); i++) {
		f = &files[i];
		target(self, f, m, d, &off, &len);
		snprintf(self->ctx, sizeof(self->ctx), "state %s, %s:", sname[s], f->name);
		EXPECT_EQ(0, wm_write(&self->c, f, m, d, off, len, s * 100 + m, &at))
			TH_LOG("%s %s", self->ctx, self->c.why);
		EXPECT_EQ(0, wm_compare(&self->c, f, f->fd, self->ctx))
			TH_LOG("after %s%s at %" PRIu64 " (asked for %" PRIu64 "): %s",
			       d ? "O_DIRECT " : "", wname[m], at, off, self->c.why);
	}
	TH_LOG("%u writes, %u RWF_NOWAIT fallbacks (EAGAIN), %u cross-filesystem copies refused (EXDEV)",
	       i, self->c.fallbacks, self->c.exdev);
	EXPECT_EQ(0, check_after(self, fs, n, "fixed sequence")) TH_LOG("%s", self->c.why);
	free_files(fs, n);
	self->files = NULL;
	self->nfiles = 0;
}

TEST_F_TIMEOUT(content_write, every_write_method_lands_where_the_model_says_over_every_extent_state,
	       300)
{
	fixed_run(_metadata, &self->w);
}

TEST_F_TIMEOUT(content_write_zeroout,
	       every_write_method_lands_where_the_model_says_over_every_extent_state, 300)
{
	fixed_run(_metadata, &self->w);
}

/* ---- random ---- */

enum rop { OP_WRITE, OP_TRUNC, OP_FALLOC, OP_PUNCH, OP_ZERO, OP_FSYNC, OP_WRITEBACK, OP_DROP,
	   OP_NR };

static const char *const opname[OP_NR] = {
	"write", "ftruncate", "fallocate", "punch", "zero range", "fsync", "writeback", "drop",
};

static const unsigned char weight[OP_NR] = { 70, 5, 5, 5, 5, 3, 4, 3 };

/* A write by a random method: offsets and lengths on the DIO alignment when direct. */
static int random_write(struct cw *self, struct mfile *f, uint64_t *rs,
			unsigned int idx, unsigned int *mix)
{
	const uint64_t al = self->c.dio;
	uint64_t off, len, at;
	enum wmethod m;
	bool direct;
	int ret;

	do {
		m = (enum wmethod)rnd_below(rs, W_NR);
		direct = m != W_MMAP && rnd_below(rs, 3) == 0;
	} while (!wm_runs(&self->c, m, direct) || (m == W_MMAP && !f->size));
	pick_range(rs, f->cap - MAX_REQ, &off, &len);
	if (direct) {
		off = off / al * al;
		len = (len + al - 1) / al * al;
	}
	if (m == W_MMAP) {
		off %= f->size;
		len = 1 + len % (f->size - off);
	}
	if (wm_appends(m) && f->size + len > f->cap)
		m = W_PWRITE;
	mix[m * 2 + direct]++;
	note(self, "%u: %s%s [%" PRIu64 ",+%" PRIu64 ")", idx, direct ? "O_DIRECT " : "", wname[m],
	     off, len);
	ret = wm_write(&self->c, f, m, direct, off, len, idx, &at);
	if (!ret)
		ret = wm_compare_range(&self->c, f, f->fd, at, len, "");
	return ret;
}

static int random_op(struct cw *self, struct mfile *f, uint64_t *rs,
		     unsigned int idx, unsigned int *mix, unsigned int *ops)
{
	unsigned int w = (unsigned int)rnd_below(rs, 100), op;
	uint64_t off, len;
	int mode, ret;

	for (op = 0; op < OP_NR - 1 && w >= weight[op]; op++)
		w -= weight[op];
	ops[op]++;
	if (op == OP_WRITE)
		return random_write(self, f, rs, idx, mix);
	pick_range(rs, f->cap - MAX_REQ, &off, &len);
	note(self, "%u: %s [%" PRIu64 ",+%" PRIu64 ")", idx, opname[op], off, len);
	switch (op) {
	case OP_TRUNC:
		if (ftruncate(f->fd, (off_t)off))
			return -errno;
		model_truncate(f, off);
		break;
	case OP_FALLOC:
	case OP_PUNCH:
	case OP_ZERO:
		mode = op == OP_PUNCH ? FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE :
		       op == OP_ZERO ? FALLOC_FL_ZERO_RANGE : 0;
		if (op != OP_PUNCH && rnd_below(rs, 2))
			mode |= FALLOC_FL_KEEP_SIZE;
		ret = do_falloc(f, mode, off, len);
		if (ret)
			return ret;
		break;
	case OP_FSYNC:
		if (len & 1 ? fdatasync(f->fd) : fsync(f->fd))
			return -errno;
		break;
	case OP_WRITEBACK:
		if (sync_file_range(f->fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE))
			return -errno;
		break;
	default:
		if (posix_fadvise(f->fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED))
			return -EIO;
		break;
	}
	/* What the operation touched (after a truncate: the size), and often the whole file. */
	if (idx % FULL_EVERY == 0)
		return wm_compare(&self->c, f, f->fd, "");
	return wm_compare_range(&self->c, f, f->fd, off, op == OP_TRUNC ? 0 : len, "");
}

/* The mix of a run: the operations, then the writes by method, a few to a line. */
static void log_mix(struct __test_metadata *_metadata, const unsigned int *mix,
		    const unsigned int *ops, uint64_t seed)
{
	char line[512];
	size_t at = 0;
	unsigned int i, k = 0;

	for (i = 0; i < OP_NR; i++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s %u", i ? ", " : "",
				       opname[i], ops[i]);
	TH_LOG("seed %" PRIu64 ": operations: %s", seed, line);
	for (i = 0, at = 0; i < W_NR * 2; i++) {
		if (mix[i])
			at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s%s %u",
					       at ? ", " : "", i % 2 ? "O_DIRECT " : "",
					       wname[i / 2], mix[i]);
		if (at && (++k % 6 == 0 || i == W_NR * 2 - 1)) {
			TH_LOG("seed %" PRIu64 ": writes: %s", seed, line);
			at = 0;
		}
	}
}

/*
 * RAND_OPS operations in RAND_SEQS sequences, the file compared with the
 * model after each; after each sequence the checks after a cache drop
 * and a remount. Catches what the fixed file per pair does not: a write
 * by one method over what another left (a splice over an O_APPEND tail,
 * an io_uring write at the position a writev left, ...).
 */
static void random_run(struct __test_metadata *_metadata, struct cw *self)
{
	unsigned int mix[W_NR * 2] = { 0 }, ops[OP_NR] = { 0 };
	unsigned int seq, i, h, idx = 0, diverged = 0;
	struct mfile *f;
	char what[96];
	uint64_t rs;
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	f = cw_file(self);
	ASSERT_NE(NULL, f);
	rs = self->seed;
	TH_LOG("seed %" PRIu64 ": IOPATH_SEED=%" PRIu64 " replays this run", self->seed, self->seed);
	ASSERT_EQ(0, mfile_new(self, f, "random", RAND_CAP)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, patterned_hole(f, RAND_CAP));
	ASSERT_EQ(0, ftruncate(f->fd, 0));
	model_truncate(f, 0);
	for (seq = 0; seq < RAND_SEQS; seq++) {
		for (i = 0; i < RAND_OPS / RAND_SEQS; i++, idx++) {
			self->c.why[0] = '\0';
			ret = random_op(self, f, &rs, idx, mix, ops);
			if (!ret)
				continue;
			if (!diverged++) {
				TH_LOG("seed %" PRIu64 ": the operations up to %u", self->seed, idx);
				for (h = self->nhist > HISTORY ? self->nhist - HISTORY : 0;
				     h < self->nhist; h++)
					TH_LOG("  %s", self->hist[h % HISTORY]);
			}
			EXPECT_EQ(0, ret)
				TH_LOG("seed %" PRIu64 ", operation %u diverged (replay: IOPATH_SEED=%" PRIu64 "): %s",
				       self->seed, idx, self->seed,
				       self->c.why[0] ? self->c.why : strerror(-ret));
			ASSERT_LT(diverged, MAX_DIVERGED)
				TH_LOG("seed %" PRIu64 ": %u divergences, the model is lost",
				       self->seed, diverged);
		}
		snprintf(what, sizeof(what), "seed %" PRIu64 ", after operation %u", self->seed,
			 idx - 1);
		EXPECT_EQ(0, check_after(self, f, 1, what)) TH_LOG("%s", self->c.why);
	}
	log_mix(_metadata, mix, ops, self->seed);
	free_files(f, 1);
	self->files = NULL;
	self->nfiles = 0;
}

TEST_F_TIMEOUT(content_write, seeded_random_writes_by_every_method_keep_the_model, 300)
{
	random_run(_metadata, &self->w);
}

/* ---- short copies ---- */

enum scstate { SC_HOLE, SC_UNWRITTEN, SC_WRITTEN, SC_WRITTEN_COLD, SC_DIRTY, SC_PAST_EOF,
	       SC_NR };

static const char *const scname[SC_NR] = {
	"hole", "unwritten", "written (cached)", "written (not cached)", "dirty", "past EOF",
};

#define SC_DELTAS	6
#define SC_COPIES	8
#define SC_SEG		512	/* a segment of the writev pass */
#define SC_SEGMENTS	32	/* enough for the longest write, 14792 bytes */

/* Where in its region a write starts, and how much of its source is mapped. */
static void sc_geometry(unsigned int bs, unsigned int k, uint64_t *delta, uint64_t *mapped)
{
	const uint64_t deltas[SC_DELTAS] = { 0, 1, bs - 1, bs + 1, 4095, IOP_K(16) - 1 };
	const uint64_t copies[SC_COPIES] = { 1, 511, bs - 1, bs, bs + 1, 4095, 4097, IOP_K(8) + 600 };

	*delta = deltas[k / SC_COPIES];
	*mapped = copies[k % SC_COPIES];
}

/* The file of one state: SC_DELTAS x SC_COPIES regions of SC_REGION bytes. */
static int sc_build(struct cw *self, struct mfile *f, enum scstate s)
{
	const uint64_t size = (uint64_t)SC_DELTAS * SC_COPIES * SC_REGION;
	uint64_t at, pos;
	int ret = patterned_hole(f, size);

	if (ret)
		return ret;
	switch (s) {
	case SC_UNWRITTEN:
		return do_falloc(f, 0, 0, size);
	case SC_WRITTEN:
	case SC_WRITTEN_COLD:
	case SC_DIRTY:
		for (pos = 0; !ret && pos < size; pos += MAX_REQ)
			ret = wm_write(&self->c, f, W_PWRITE, false, pos, MAX_REQ, 11, &at);
		if (!ret && s != SC_DIRTY && fsync(f->fd))
			ret = -errno;
		if (!ret && s == SC_WRITTEN_COLD && posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED))
			ret = -EIO;
		return ret;
	case SC_PAST_EOF:
		if (ftruncate(f->fd, 0))
			return -errno;
		model_truncate(f, 0);
		return 0;
	default:
		return 0;
	}
}

/*
 * One short copy: @mapped bytes of source before an unmapped or PROT_NONE
 * page, a write of @mapped + 6000 bytes (direct: + 4096) at @off. The
 * count returned must be what reached the file: the model takes that many
 * bytes and the whole file is compared. A direct write may instead fail
 * with EFAULT, having written some of the mapped part (iomap without
 * IOMAP_DIO_PARTIAL): then each of those bytes is old or new and nothing
 * after them changed.
 */
static int short_copy(struct cw *self, struct mfile *f, uint64_t off,
		      uint64_t mapped, bool direct, bool prot_none, bool segmented)
{
	const size_t span = 4 * 4096;
	uint64_t len = mapped + (direct ? 4096 : 6000), i;
	uint8_t *map = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *src = map + 3 * 4096 - mapped;
	struct iovec iov[SC_SEGMENTS];
	unsigned int nseg = 0;
	ssize_t n;
	int ret = 0;

	if (map == MAP_FAILED)
		return -errno;
	iop_pattern_fill(src, off, mapped, (unsigned int)(off + mapped));
	if (prot_none ? mprotect(map + 3 * 4096, 4096, PROT_NONE) :
			munmap(map + 3 * 4096, 4096)) {
		ret = -errno;
		goto out;
	}
	if (segmented) {
		/* SC_SEG-byte segments: the copy stops several segments in */
		for (i = 0; i < len && nseg < SC_SEGMENTS; i += SC_SEG, nseg++) {
			iov[nseg].iov_base = src + i;
			iov[nseg].iov_len = len - i < SC_SEG ? len - i : SC_SEG;
		}
		n = i < len ? -1 : pwritev(f->fd, iov, (int)nseg, (off_t)off);
		if (i < len)
			errno = E2BIG;
	} else {
		n = pwrite(direct ? f->dfd : f->fd, src, len, (off_t)off);
	}
	if (n < 0 && !(direct && errno == EFAULT)) {
		ret = -errno;
		snprintf(self->c.why, sizeof(self->c.why), "%s write of %" PRIu64 " bytes at %" PRIu64 " with %" PRIu64 " mapped: %s",
			 direct ? "O_DIRECT" : "buffered", len, off, mapped, strerror(errno));
		goto out;
	}
	if (n > (ssize_t)mapped || (n <= 0 && !direct)) {
		snprintf(self->c.why, sizeof(self->c.why), "%s write of %" PRIu64 " bytes at %" PRIu64 " with %" PRIu64 " mapped returned %zd",
			 direct ? "O_DIRECT" : "buffered", len, off, mapped, n);
		ret = -EBADMSG;
		goto out;
	}
	if (n > 0) {
		model_write(f, src, off, (uint64_t)n);
		goto out;
	}
	/* Direct, EFAULT: each mapped byte old or new, then the model takes the file's. */
	i = off < f->size ? f->size - off : 0;
	if (iop_pread_all(f->fd, self->c.rbuf, i < mapped ? i : mapped, off)) {
		ret = -EIO;
		goto out;
	}
	for (i = 0; i < mapped && off + i < f->size; i++)
		if (self->c.rbuf[i] != f->m[off + i] && self->c.rbuf[i] != src[i]) {
			snprintf(self->c.why, sizeof(self->c.why), "O_DIRECT write at %" PRIu64 " with %" PRIu64 " mapped failed with EFAULT and left byte %" PRIu64 " neither old nor new (0x%02x)",
				 off, mapped, off + i, self->c.rbuf[i]);
			ret = -EBADMSG;
			goto out;
		}
	if (off < f->size)
		memcpy(f->m + off, self->c.rbuf, i);
out:
	munmap(map, span);
	return ret;
}

/*
 * Writes whose source ends at an unmapped or PROT_NONE page, into every
 * state, starting on and around block and folio boundaries and stopping
 * on and around them, each buffered, O_DIRECT, and buffered through
 * writev(2) from 512-byte segments (a short copy into a folio that is
 * not uptodate is undone with iov_iter_revert(), back across the
 * segments it copied): the count returned is exactly what reached the
 * file, nothing else changes, before and after a cache drop, and after
 * the fsync no delayed allocation is left inside EOF, and a buffered
 * write into a hole leaves no preallocated block (the blocks reserved for
 * the part that was not copied must be given back). Catches 42 (XFS),
 * 51 (ext4 nodelalloc: a write from a block's start whose copy stops
 * inside it, into blocks written and not cached) and 69 (XFS keeping the
 * reservation of a short write, generated sample 3's
 * 026-call-void-xfs_buffered_write_iomap_end) and 97 (iov_iter_revert()
 * not counting the segments it has gone back over, generated sample 6's
 * 035-drop-stmt-iov_iter_revert).
 */
static void short_copy_run(struct __test_metadata *_metadata, struct cw *self)
{
	static const char *const dname[] = { "buffered", "O_DIRECT", "buffered writev" };
	const unsigned int combos = SC_DELTAS * SC_COPIES;
	unsigned int s, k, d, writes = 0;
	uint64_t delta, mapped, off;
	struct fiemap_extent fe = { 0 };
	struct mfile *f;
	char name[24], ctx[128];
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	f = cw_file(self);
	ASSERT_NE(NULL, f);
	/* d: 0 buffered write(2), 1 O_DIRECT, 2 buffered writev(2) of SC_SEG-byte segments */
	for (s = 0; s < SC_NR; s++)
		for (d = 0; d < 3; d++) {
			snprintf(name, sizeof(name), "short%u%c", s, "bdv"[d]);
			ASSERT_EQ(0, mfile_new(self, f, name, (uint64_t)combos * SC_REGION))
				TH_LOG("%s: %s", name, strerror(errno));
			ASSERT_EQ(0, sc_build(self, f, s))
				TH_LOG("state %s: %s", scname[s], self->c.why);
			for (k = 0; k < combos; k++) {
				sc_geometry(self->bs, k, &delta, &mapped);
				off = (uint64_t)k * SC_REGION + delta;
				if (d == 1 && (off % self->c.dio || mapped % self->c.dio))
					continue;
				writes++;
				snprintf(ctx, sizeof(ctx), "state %s, %s at %" PRIu64 " with %" PRIu64 " mapped:",
					 scname[s], dname[d], off, mapped);
				ASSERT_EQ(0, short_copy(self, f, off, mapped, d == 1, k % 2, d == 2))
					TH_LOG("%s %s", ctx, self->c.why);
				ASSERT_EQ(0, wm_compare(&self->c, f, f->fd, ctx))
					TH_LOG("%s", self->c.why);
			}
			snprintf(ctx, sizeof(ctx), "state %s, %s, after fsync and DONTNEED:",
				 scname[s], dname[d]);
			ASSERT_EQ(0, fsync(f->fd));
			/*
			 * Written back whole: a delayed allocation left inside
			 * EOF is a leak; and buffered writes into holes reserve
			 * what they copy only, so the blocks they did not copy
			 * stay holes, neither reserved nor (as write-back turns a
			 * leaked reservation into) preallocated.
			 */
			ret = iop_fiemap_find(f->fd, 0, f->size, FIEMAP_EXTENT_DELALLOC |
					      (s == SC_HOLE && d != 1 ? FIEMAP_EXTENT_UNWRITTEN : 0), &fe);
			EXPECT_EQ(0, ret)
				TH_LOG("%s extent [%llu,+%llu) flags 0x%x left inside EOF (%" PRIu64 ")",
				       ctx, (unsigned long long)fe.fe_logical,
				       (unsigned long long)fe.fe_length, fe.fe_flags, f->size);
			ASSERT_EQ(0, posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED));
			EXPECT_EQ(0, wm_compare(&self->c, f, f->fd, ctx)) TH_LOG("%s", self->c.why);
			mfile_close(f);
			free(f->m);
			f->m = NULL;
			ASSERT_EQ(0, unlinkat(self->c.dirfd, name, 0));
		}
	free_files(f, 1);
	self->files = NULL;
	self->nfiles = 0;
	TH_LOG("%u short-copy writes", writes);
}

TEST_F_TIMEOUT(content_write, short_copy_writes_exactly_the_count_returned, 300)
{
	short_copy_run(_metadata, &self->w);
}

TEST_F_TIMEOUT(content_write_nodelalloc, short_copy_writes_exactly_the_count_returned, 300)
{
	short_copy_run(_metadata, &self->w);
}

TEST_HARNESS_MAIN
