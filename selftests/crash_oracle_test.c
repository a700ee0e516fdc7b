// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a sync promised survives a crash: a crash oracle for every sync
 * operation. After a completed fsync, fdatasync, syncfs, msync(MS_SYNC),
 * or a write with O_SYNC, O_DSYNC, RWF_SYNC or RWF_DSYNC (buffered and
 * O_DIRECT), the filesystem is shut down without a log flush
 * (XFS_IOC_GOINGDOWN / EXT4_IOC_SHUTDOWN with NOLOGFLUSH: every write
 * not yet on the device, log or data, is dropped, as dm-flakey's
 * drop_writes does) and mounted again (log recovery), and then:
 *   - every byte a completed sync covered reads as written;
 *   - every other byte reads as one of the values it held since its last
 *     sync (old or new, zero where a hole, a truncate or a zeroing put
 *     one), never the device's stale data (the free space holds a
 *     pattern first, as in content_model_test);
 *   - the size is at least what the last sync made durable and at most
 *     the largest the file had since.
 *
 * The bug class: lost promises. A direct O_DSYNC write into preallocated
 * blocks sent as FUA whose completion skips the sync that would commit
 * the unwritten extent's conversion (mutant
 * 41-dsync-dio-unwritten-sent-fua: the range reads as zeros after the
 * crash; only where the device has no volatile cache, the 4 KiB variants'
 * zram); buffered O_SYNC/O_DSYNC writes returned without syncing
 * (49-xfs-buffered-sync-write-not-synced,
 * 50-ext4-buffered-sync-write-not-synced); msync syncing the first page
 * only (47-msync-syncs-first-page-only); syncfs whose second pass does
 * not wait, so XFS never forces its log (48-syncfs-second-pass-does-not-wait);
 * a buffered sync write of one byte returned without syncing
 * (62-xfs-one-byte-sync-write-not-synced, generated sample 2's
 * 038-off-by-one-xfs_file_buffered_write); a truncate whose zeroed tail
 * block is not written before the new size commits
 * (65-ext4-truncate-tail-zeroing-unordered).
 *
 * Crash points, as fstests' dm-flakey tests choose them (a sync, then
 * _flakey_drop_and_remount): right after a completed sync operation, so
 * the writes the oracle excuses are exactly those the promise did not
 * cover.
 *   - fixed: for each sync operation, four files (a hole, blocks written
 *     and synced, past EOF, and last, as no later log force may commit
 *     it, preallocated blocks), each with an unsynced buffered write and
 *     then the promise over the state, and one crash after the last;
 *   - random: seeded sequences of writes by every method (content_write.h),
 *     truncates, fallocate, punch and zero range, with sync operations
 *     among them, a crash after a random one of them; the seed, the mix
 *     of operations and the crash points are printed, IOPATH_SEED=N
 *     replays a run, and a divergence names the crash point and the
 *     operation that last wrote the byte.
 * The 4 KiB variants run on zram (no volatile write cache: direct
 * O_DSYNC writes go as FUA), the 1 KiB ones on a loop device.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <fcntl.h>
#include <inttypes.h>
#include <sys/ioctl.h>

#include "iopath_test.h"
#include "iomap_layout.h"
#include "content_write.h"

#define RAND_OPS	300		/* per variant */
#define RAND_CAP	IOP_K(256)
#define CRASH_ONE_IN	5		/* a crash after one sync operation in this many */
#define MAX_CRASHES	64
#define FIX_BLOCKS	32
/* The shutdown ioctl, the same number on XFS and ext4; no log flush. */
#define IOP_GOINGDOWN		_IOR('X', 125, __u32)
#define IOP_GOINGDOWN_NOLOGFLUSH 2

/* The sync operations: the write methods that promise, then the calls. */
enum sop { K_O_SYNC, K_O_DSYNC, K_RWF_SYNC, K_RWF_DSYNC, K_FSYNC, K_FDATASYNC, K_SYNCFS,
	   K_MSYNC, K_NR };

static const enum wmethod kmethod[4] = { W_O_SYNC, W_O_DSYNC, W_RWF_SYNC, W_RWF_DSYNC };

static const char *const kname[K_NR] = {
	"pwrite on O_SYNC", "pwrite on O_DSYNC", "pwritev2 RWF_SYNC", "pwritev2 RWF_DSYNC",
	"fsync", "fdatasync", "syncfs", "msync MS_SYNC",
};

/* A file, its model, and what a crash may leave of each byte. */
struct cfile {
	struct mfile f;
	uint64_t (*poss)[4];	/* per byte: the values it may read as after a crash */
	uint32_t *last;		/* per byte: the operation that last changed it */
	uint64_t lo, hi;	/* the sizes it may have after a crash */
};

FIXTURE(crash_oracle) {
	struct iop_test_fs fs;
	struct wctx c;
	unsigned int bs;
	uint64_t seed;
	char ring_why[128];
	char where[160];	/* the crash point */
};

FIXTURE_VARIANT(crash_oracle) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(crash_oracle);

/* As content_model_test: 1 unless IOPATH_SEED says otherwise, 0 the clock. */
static uint64_t clock_seed;

static void __attribute__((constructor)) choose_seed(void)
{
	clock_seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
}

FIXTURE_SETUP(crash_oracle)
{
	const struct iop_scratch_opts want = {
		.fstype = variant->fstype, .mkfs_opts = variant->mkfs_opts,
		.mount_opts = variant->mount_opts,
		.size = strcmp(variant->fstype, "xfs") ? (64ull << 20) : (300ull << 20),
	};
	const char *s = getenv("IOPATH_SEED");
	char *esc;

	wm_init(&self->c);
	self->bs = variant->blksz;
	self->seed = 1;
	if (s && *s && iop_parse_u64(s, 0, UINT64_MAX, &self->seed)) {
		/* Bad input: found before anything is made. */
		memset(&self->fs, 0, sizeof(self->fs));
		esc = iop_esc_dup(s);
		snprintf(self->fs.error, sizeof(self->fs.error),
			 "IOPATH_SEED '%.64s': not a decimal number below 2^64", esc ? esc : "?");
		free(esc);
		return;
	}
	if (!self->seed)
		self->seed = clock_seed;
	iop_test_fs_setup_opts(&self->fs, &want);
	if (!self->fs.scratch)
		return;
	if (self->fs.scratch->backing == IOP_BACKING_DIR) {
		snprintf(self->fs.skip, sizeof(self->fs.skip),
			 "IOPATH_SCRATCH_DIR: no device to fill with a pattern and shut down");
		return;
	}
	wm_fs_prepare(&self->fs, &self->c, self->ring_why, sizeof(self->ring_why));
}

FIXTURE_TEARDOWN(crash_oracle)
{
	wm_teardown(&self->c);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/* ---- the oracle's model ---- */

static inline void poss_set(struct cfile *cf, uint64_t i, uint8_t v)
{
	memset(cf->poss[i], 0, sizeof(cf->poss[i]));
	cf->poss[i][v >> 6] |= 1ull << (v & 63);
}

static inline bool poss_has(const struct cfile *cf, uint64_t i, uint8_t v)
{
	return cf->poss[i][v >> 6] & (1ull << (v & 63));
}

static inline unsigned int poss_count(const struct cfile *cf, uint64_t i)
{
	return (unsigned int)(__builtin_popcountll(cf->poss[i][0]) +
			      __builtin_popcountll(cf->poss[i][1]) +
			      __builtin_popcountll(cf->poss[i][2]) +
			      __builtin_popcountll(cf->poss[i][3]));
}

/* Arm the oracle over @cf: what the model says now is what is on disk. */
static int cf_arm(struct cfile *cf)
{
	uint64_t i;

	if (!cf->poss)
		cf->poss = calloc(cf->f.cap, sizeof(*cf->poss));
	if (!cf->last)
		cf->last = calloc(cf->f.cap, sizeof(*cf->last));
	if (!cf->poss || !cf->last)
		return -ENOMEM;
	for (i = 0; i < cf->f.cap; i++) {
		poss_set(cf, i, cf->f.m[i]);
		cf->last[i] = UINT32_MAX;
	}
	cf->lo = cf->f.size;
	cf->hi = cf->f.size;
	return 0;
}

/* [@off, @off+@len) may have changed (by operation @idx): each byte may now read as it is. */
static void cf_changed(struct cfile *cf, uint64_t off, uint64_t len, uint32_t idx)
{
	uint64_t i, end = off + len < cf->f.cap ? off + len : cf->f.cap;

	for (i = off; i < end; i++) {
		cf->poss[i][cf->f.m[i] >> 6] |= 1ull << (cf->f.m[i] & 63);
		cf->last[i] = idx;
	}
	if (cf->f.size < cf->lo)
		cf->lo = cf->f.size;
	if (cf->f.size > cf->hi)
		cf->hi = cf->f.size;
}

/* A completed sync covered [@off, @off+@len) (and the size up to there). */
static void cf_synced(struct cfile *cf, uint64_t off, uint64_t len)
{
	uint64_t i, end = off + len < cf->f.size ? off + len : cf->f.size;

	for (i = off; i < end; i++)
		poss_set(cf, i, cf->f.m[i]);
	if (end > cf->lo)
		cf->lo = end;
}

/* The whole file: every byte and the size. */
static void cf_synced_all(struct cfile *cf)
{
	cf_synced(cf, 0, cf->f.cap);
	cf->lo = cf->f.size;
	cf->hi = cf->f.size;
}

/* @n files that hold nothing yet: the teardown and cf_free() may see them. */
static void cfs_init(struct cfile *cfs, unsigned int n)
{
	memset(cfs, 0, n * sizeof(*cfs));
	while (n--) {
		cfs[n].f.fd = -1;
		cfs[n].f.dfd = -1;
	}
}

static void cf_free(struct cfile *cf)
{
	mfile_close(&cf->f);
	free(cf->f.m);
	free(cf->poss);
	free(cf->last);
	memset(cf, 0, sizeof(*cf));
	cf->f.fd = -1;
	cf->f.dfd = -1;
}

static int cf_open(FIXTURE_DATA(crash_oracle) *self, struct cfile *cf, bool create)
{
	int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0);

	cf->f.fd = openat(self->c.dirfd, cf->f.name, flags, 0600);
	if (cf->f.fd < 0)
		return -errno;
	cf->f.dfd = openat(self->c.dirfd, cf->f.name, O_RDWR | O_DIRECT | O_CLOEXEC);
	return cf->f.dfd < 0 ? -errno : 0;
}

static int cf_new(FIXTURE_DATA(crash_oracle) *self, struct cfile *cf, const char *name,
		  uint64_t cap)
{
	memset(cf, 0, sizeof(*cf));
	cf->f.fd = -1;
	cf->f.dfd = -1;
	snprintf(cf->f.name, sizeof(cf->f.name), "%s", name);
	cf->f.cap = cap;
	cf->f.m = calloc(1, cap);
	if (!cf->f.m)
		return -ENOMEM;
	return cf_open(self, cf, true);
}

/*
 * The crash: shut the filesystem down without a log flush, close @n
 * files, remount, reopen them. 0; 1 if the filesystem has no shutdown
 * ioctl (probed here: it cannot be asked without shutting down); -errno.
 */
static int crash(FIXTURE_DATA(crash_oracle) *self, struct cfile *cfs, unsigned int n)
{
	__u32 how = IOP_GOINGDOWN_NOLOGFLUSH;
	unsigned int i;
	int ret;

	if (ioctl(self->c.dirfd, IOP_GOINGDOWN, &how)) {
		if (errno == ENOTTY || iop_errno_means_absent(errno))
			return 1;
		snprintf(self->c.why, sizeof(self->c.why), "shutdown: %s", strerror(errno));
		return -errno;
	}
	for (i = 0; i < n; i++)
		mfile_close(&cfs[i].f);
	ret = wm_remount(&self->c, self->fs.scratch);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		ret = cf_open(self, &cfs[i], false);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * After a crash: the size between what was synced and the largest since,
 * every byte one of those it may read as. Then the model takes the file
 * as it is (it is on disk now) and the oracle is armed again. 0, or
 * -EBADMSG / -errno with c->why filled; @ops names operations by index.
 */
static int cf_check(FIXTURE_DATA(crash_oracle) *self, struct cfile *cf,
		    const char *(*opdesc)(void *, uint32_t), void *arg)
{
	struct stat st;
	uint64_t i, size;
	uint8_t *got;
	int ret = 0;

	if (fstat(cf->f.fd, &st))
		return -errno;
	size = (uint64_t)st.st_size;
	if (size < cf->lo || size > cf->hi || size > cf->f.cap) {
		snprintf(self->c.why, sizeof(self->c.why), "%s: %s: size %" PRIu64 " after the crash, the syncs allow %" PRIu64 " to %" PRIu64,
			 self->where, cf->f.name, size, cf->lo, cf->hi);
		return -EBADMSG;
	}
	got = malloc(size + 1);
	if (!got)
		return -ENOMEM;
	if (size && iop_pread_all(cf->f.fd, got, size, 0)) {
		free(got);
		return -EIO;
	}
	for (i = 0; i < size; i++)
		if (!poss_has(cf, i, got[i]))
			break;
	if (i < size) {
		snprintf(self->c.why, sizeof(self->c.why), "%s: %s: byte %" PRIu64 " reads 0x%02x after the crash, the model 0x%02x%s (last changed by %s)",
			 self->where, cf->f.name, i, got[i], cf->f.m[i],
			 looks_stale(got, 0, size, i) ? ", the fill pattern: stale data" :
			 poss_count(cf, i) == 1 ? ", a byte a sync covered" :
			 ", not among the values it held since its last sync",
			 opdesc ? opdesc(arg, cf->last[i]) : cf->last[i] == UINT32_MAX ?
			 "the state's build" : "the write before the promise or the promise");
		ret = -EBADMSG;
	}
	memcpy(cf->f.m, got, size);
	if (cf->f.size > size)
		memset(cf->f.m + size, 0, cf->f.size - size);
	cf->f.size = size;
	free(got);
	return ret ? ret : cf_arm(cf);
}

/*
 * Sync operation @k on @cf over [@off, @off+@len) (the promise's write,
 * or a buffered write or mmap store then the call), data of @seed, as
 * operation @idx. 0 or -errno with c->why filled.
 */
static int sync_op(FIXTURE_DATA(crash_oracle) *self, struct cfile *cf, enum sop k, bool direct,
		   uint64_t off, uint64_t len, unsigned int seed, uint32_t idx)
{
	uint64_t at, base;
	uint8_t *p;
	int ret;

	if (k < K_FSYNC) {
		ret = wm_write(&self->c, &cf->f, kmethod[k], direct, off, len, seed, &at);
		if (ret)
			return ret;
		cf_changed(cf, at, len, idx);
		cf_synced(cf, at, len);
		return 0;
	}
	if (k == K_MSYNC) {
		if (off + len > cf->f.size) {
			if (ftruncate(cf->f.fd, (off_t)(off + len)))
				return -errno;
			model_truncate(&cf->f, off + len);
			cf_changed(cf, 0, 0, idx);
		}
		base = off & ~4095ull;
		p = mmap(NULL, off + len - base, PROT_READ | PROT_WRITE, MAP_SHARED, cf->f.fd,
			 (off_t)base);
		if (p == MAP_FAILED)
			return -errno;
		iop_pattern_fill(p + (off - base), off, len, seed);
		model_write(&cf->f, p + (off - base), off, len);
		cf_changed(cf, off, len, idx);
		ret = msync(p, off + len - base, MS_SYNC) ? -errno : 0;
		munmap(p, off + len - base);
		if (!ret)
			cf_synced(cf, off, len);
		return ret;
	}
	ret = wm_write(&self->c, &cf->f, W_PWRITE, direct, off, len, seed, &at);
	if (ret)
		return ret;
	cf_changed(cf, off, len, idx);
	if (k == K_FSYNC ? fsync(cf->f.fd) : k == K_FDATASYNC ? fdatasync(cf->f.fd) :
	    syncfs(cf->f.fd))
		return -errno;
	cf_synced_all(cf);
	return 0;
}

/* ---- fixed: every sync operation over every state ---- */

enum state { S_HOLE, S_WRITTEN, S_PAST_EOF, S_UNWRITTEN, S_NR };

static const char *const sname[S_NR] = {
	"hole", "written and synced", "past EOF", "preallocated and synced",
};

/*
 * Blocks 4-11 of a 16-block file in state @s, its other blocks written,
 * the blocks under the state holding the fill pattern: for all files at
 * once, a syncfs after each step (as content_write_test builds them).
 */
static int build_step(FIXTURE_DATA(crash_oracle) *self, struct cfile *cf, enum state s,
		      unsigned int step, unsigned int seed)
{
	const uint64_t B = self->bs;
	uint64_t at;
	int ret;

	switch (step) {
	case 0:
		fill_with_pattern(self->c.wbuf, 0, 16 * B);
		return iop_pwrite_all(cf->f.fd, self->c.wbuf, 16 * B, 0);
	case 1:
		ret = wm_write(&self->c, &cf->f, W_PWRITE, false, 0, 4 * B, seed, &at);
		if (!ret)
			ret = wm_write(&self->c, &cf->f, W_PWRITE, false, 12 * B, 4 * B, seed, &at);
		return ret ? ret : do_falloc(&cf->f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					     4 * B, 8 * B);
	default:
		if (s == S_UNWRITTEN)
			return do_falloc(&cf->f, 0, 4 * B, 8 * B);
		if (s == S_WRITTEN)
			return wm_write(&self->c, &cf->f, W_PWRITE, false, 4 * B, 8 * B, seed + 1,
					&at);
		if (s == S_PAST_EOF) {
			if (ftruncate(cf->f.fd, (off_t)(4 * B)))
				return -errno;
			model_truncate(&cf->f, 4 * B);
		}
		return 0;
	}
}

/*
 * Files @cfs[0..@n), file i in state i % S_NR: the build steps for all of
 * them at once with a syncfs after each, then the oracle armed on each and
 * the file closed. 0, or -errno with c->why naming the file and the step.
 */
static int build_states(FIXTURE_DATA(crash_oracle) *self, struct cfile *cfs, unsigned int n)
{
	char what[sizeof(self->c.why)];
	unsigned int i, step;
	int ret;

	for (step = 0; step < 3; step++) {
		for (i = 0; i < n; i++) {
			ret = build_step(self, &cfs[i], i % S_NR, step, i);
			if (ret) {
				snprintf(what, sizeof(what), "%s", self->c.why);
				snprintf(self->c.why, sizeof(self->c.why), "%s, step %u: %.300s",
					 cfs[i].f.name, step, what);
				return ret;
			}
		}
		if (syncfs(self->c.dirfd)) {
			snprintf(self->c.why, sizeof(self->c.why), "syncfs: %s", strerror(errno));
			return -errno;
		}
	}
	for (i = 0; i < n; i++) {
		ret = cf_arm(&cfs[i]);
		if (ret) {
			snprintf(self->c.why, sizeof(self->c.why), "%s: %s", cfs[i].f.name,
				 strerror(-ret));
			return ret;
		}
		mfile_close(&cfs[i].f);
	}
	return 0;
}

/*
 * For each sync operation, buffered and direct (the calls after a
 * buffered write only), four files: an unsynced buffered write over
 * block 1, then the promise over the state, then, after the fourth,
 * the crash; each file checked against what the promises covered.
 * Catches 41, 47, 48, 49 and 50.
 */
TEST_F_TIMEOUT(crash_oracle, every_sync_promise_survives_a_crash_right_after_it, 300)
{
	const uint64_t B = self->bs;
	struct cfile cfs[K_NR * 2 * S_NR], *group;
	unsigned int k, d, s, n = 0, crashes = 0;
	uint64_t off, len, at;
	char name[24];
	int ret;

	cfs_init(cfs, ARRAY_SIZE(cfs));
	IOP_TEST_BEGIN(&self->fs);
	for (k = 0; k < K_NR; k++)
		for (d = 0; d < 2; d++)
			for (s = 0; s < S_NR; s++, n++) {
				snprintf(name, sizeof(name), "k%u%c-s%u", k, d ? 'd' : 'b', s);
				ASSERT_EQ(0, cf_new(self, &cfs[n], name, FIX_BLOCKS * B))
					TH_LOG("%s: %s", name, strerror(errno));
			}
	ASSERT_EQ(0, build_states(self, cfs, ARRAY_SIZE(cfs))) TH_LOG("%s", self->c.why);
	for (k = 0; k < K_NR; k++)
		for (d = 0; d < 2; d++) {
			if (d && k == K_MSYNC)
				continue;
			group = &cfs[(k * 2 + d) * S_NR];
			for (s = 0; s < S_NR; s++) {
				ASSERT_EQ(0, cf_open(self, &group[s], false));
				ASSERT_EQ(0, wm_write(&self->c, &group[s].f, W_PWRITE, false,
						      B + 10, B, 500 + s, &at))
					TH_LOG("%s", self->c.why);
				cf_changed(&group[s], B + 10, B, 1);
				off = d ? 4 * B + self->c.dio : 4 * B + 50;
				len = d ? 4 * B : 3 * B + 100;
				ASSERT_EQ(0, sync_op(self, &group[s], k, d, off, len, k * 10 + s, 2))
					TH_LOG("%s%s over %s: %s", d ? "O_DIRECT " : "", kname[k],
					       sname[s], self->c.why);
			}
			snprintf(self->where, sizeof(self->where), "crash right after %s%s",
				 d ? "O_DIRECT " : "", kname[k]);
			ret = crash(self, group, S_NR);
			if (ret == 1)
				SKIP(return, "the filesystem has no shutdown ioctl");
			ASSERT_EQ(0, ret) TH_LOG("%s", self->c.why);
			crashes++;
			for (s = 0; s < S_NR; s++) {
				EXPECT_EQ(0, cf_check(self, &group[s], NULL, NULL))
					TH_LOG("over %s: %s", sname[s], self->c.why);
				mfile_close(&group[s].f);
			}
		}
	TH_LOG("%u crashes, %u files", crashes, crashes * S_NR);
	for (n = 0; n < ARRAY_SIZE(cfs); n++)
		cf_free(&cfs[n]);
}

/*
 * The shortest promise: a one-byte buffered write by each method that
 * promises (O_SYNC, O_DSYNC, RWF_SYNC, RWF_DSYNC) into each state, then
 * the crash. The fixed test's promises are blocks long; a write path that
 * syncs only what is longer than a byte loses this one
 * (62-xfs-one-byte-sync-write-not-synced).
 */
TEST_F_TIMEOUT(crash_oracle, one_byte_sync_writes_survive_a_crash, 300)
{
	const uint64_t B = self->bs;
	struct cfile cfs[K_FSYNC * S_NR], *group;
	unsigned int k, s, n;
	char name[24];
	int ret;

	cfs_init(cfs, ARRAY_SIZE(cfs));
	IOP_TEST_BEGIN(&self->fs);
	for (n = 0; n < ARRAY_SIZE(cfs); n++) {
		snprintf(name, sizeof(name), "one%u-s%u", n / S_NR, n % S_NR);
		ASSERT_EQ(0, cf_new(self, &cfs[n], name, FIX_BLOCKS * B))
			TH_LOG("%s: %s", name, strerror(errno));
	}
	ASSERT_EQ(0, build_states(self, cfs, ARRAY_SIZE(cfs))) TH_LOG("%s", self->c.why);
	for (k = 0; k < K_FSYNC; k++) {
		group = &cfs[k * S_NR];
		for (s = 0; s < S_NR; s++) {
			ASSERT_EQ(0, cf_open(self, &group[s], false));
			ASSERT_EQ(0, sync_op(self, &group[s], k, false, 4 * B + 7 + s, 1,
					     70 + k * 10 + s, 1))
				TH_LOG("one byte by %s over %s: %s", kname[k], sname[s],
				       self->c.why);
		}
		snprintf(self->where, sizeof(self->where), "crash right after a one-byte %s",
			 kname[k]);
		ret = crash(self, group, S_NR);
		if (ret == 1)
			SKIP(return, "the filesystem has no shutdown ioctl");
		ASSERT_EQ(0, ret) TH_LOG("%s", self->c.why);
		for (s = 0; s < S_NR; s++) {
			EXPECT_EQ(0, cf_check(self, &group[s], NULL, NULL))
				TH_LOG("one byte over %s: %s", sname[s], self->c.why);
			mfile_close(&group[s].f);
		}
	}
	for (n = 0; n < ARRAY_SIZE(cfs); n++)
		cf_free(&cfs[n]);
}

/*
 * A truncate down to a size inside a block zeroes the rest of that block
 * in the page cache; the transaction that makes the new size durable must
 * carry those zeros to the disk first (ext4 orders them through the
 * inode's jbd2 inode), or after a crash the block's old bytes lie past
 * EOF and the next extension shows them. truncate(2) by path, on a file
 * not opened for writing since the mount (so ext4 attaches the jbd2 inode
 * in ext4_setattr() itself), then an fsync of another file commits the
 * size, then the crash; the file extended again must read zeros from the
 * size on. Catches 65-ext4-truncate-tail-zeroing-unordered (generated
 * sample 1's 041-negate-ext4_setattr: on 7.2.13 the truncate itself
 * oopses, the zeroing ordered through a jbd2 inode never attached).
 */
TEST_F_TIMEOUT(crash_oracle, truncate_by_path_then_crash_leaves_zeros_past_eof, 120)
{
	const uint64_t B = self->bs, cut = 5 * B + 100, len = 16 * B;
	char path[PATH_MAX], why[256];
	uint8_t *want = NULL;
	struct stat st;
	struct cfile other;
	int fd, ret;

	cfs_init(&other, 1);
	IOP_TEST_BEGIN(&self->fs);
	ASSERT_GT(sizeof(path), (size_t)snprintf(path, sizeof(path), "%s/cut",
						 self->fs.scratch->mnt));
	fd = openat(self->c.dirfd, "cut", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	ASSERT_LE(0, fd) TH_LOG("create: %s", strerror(errno));
	iop_pattern_fill(self->c.wbuf, 0, len, 65);
	ASSERT_EQ(0, iop_pwrite_all(fd, self->c.wbuf, len, 0));
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	ASSERT_EQ(0, wm_remount(&self->c, self->fs.scratch)) TH_LOG("%s", self->c.why);

	ASSERT_EQ(0, truncate(path, (off_t)cut)) TH_LOG("truncate: %s", strerror(errno));
	/* commit the running transaction, and the size with it */
	ASSERT_EQ(0, cf_new(self, &other, "other", B));
	ASSERT_EQ(0, iop_pwrite_all(other.f.fd, "x", 1, 0));
	ASSERT_EQ(0, fsync(other.f.fd));
	snprintf(self->where, sizeof(self->where), "crash after truncate(2) to %" PRIu64
		 " and fsync of another file", cut);
	ret = crash(self, &other, 1);
	if (ret == 1)
		SKIP(return, "the filesystem has no shutdown ioctl");
	ASSERT_EQ(0, ret) TH_LOG("%s", self->c.why);

	ASSERT_EQ(0, stat(path, &st));
	/* the fsync committed the size; if not, the old bytes are the file's */
	ASSERT_EQ((off_t)cut, st.st_size) TH_LOG("size after the crash: %jd", (intmax_t)st.st_size);
	ASSERT_EQ(0, truncate(path, (off_t)len)) TH_LOG("truncate up: %s", strerror(errno));
	fd = openat(self->c.dirfd, "cut", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ASSERT_LE(0, fd);
	want = calloc(1, len);
	ASSERT_NE(NULL, want);
	iop_pattern_fill(want, 0, cut, 65);
	EXPECT_EQ(0, iop_file_compare(fd, want, len, why, sizeof(why)))
		TH_LOG("extended after the crash: %s (0 expected from %" PRIu64 ")", why, cut);
	close(fd);
	free(want);
	cf_free(&other);
}

/* ---- random ---- */

enum rop { OP_WRITE, OP_TRUNC, OP_FALLOC, OP_PUNCH, OP_ZERO, OP_SYNC, OP_NR };

static const char *const opname[OP_NR] = {
	"write", "ftruncate", "fallocate", "punch", "zero range", "sync",
};

static const unsigned char weight[OP_NR] = { 50, 6, 6, 6, 7, 25 };

struct rrun {
	char (*desc)[72];	/* per operation */
	unsigned int ops[OP_NR], kinds[K_NR], writes[W_NR];
	unsigned int crash_at[MAX_CRASHES], ncrash;
};

static const char *rdesc(void *arg, uint32_t idx)
{
	struct rrun *r = arg;

	return idx < RAND_OPS ? r->desc[idx] : "nothing since the start or the last crash";
}

/* A write by any method that promises nothing; direct on the DIO alignment. */
static int rand_write(FIXTURE_DATA(crash_oracle) *self, struct cfile *cf, uint64_t *rs,
		      struct rrun *r, uint32_t idx)
{
	const uint64_t al = self->c.dio;
	uint64_t off, len, at;
	enum wmethod m;
	bool direct;

	do {
		m = (enum wmethod)rnd_below(rs, W_NR);
		direct = m != W_MMAP && rnd_below(rs, 3) == 0;
	} while (!wm_runs(&self->c, m, direct) || m == W_O_SYNC || m == W_O_DSYNC ||
		 m == W_RWF_SYNC || m == W_RWF_DSYNC || (m == W_MMAP && !cf->f.size));
	pick_range(rs, cf->f.cap - MAX_REQ, &off, &len);
	if (direct) {
		off = off / al * al;
		len = (len + al - 1) / al * al;
	}
	if (m == W_MMAP) {
		off %= cf->f.size;
		len = 1 + len % (cf->f.size - off);
	}
	if (wm_appends(m) && cf->f.size + len > cf->f.cap)
		m = W_PWRITE;
	r->writes[m]++;
	snprintf(r->desc[idx], sizeof(r->desc[0]), "op %u: %s%s [%" PRIu64 ",+%" PRIu64 ")", idx,
		 direct ? "O_DIRECT " : "", wname[m], off, len);
	if (wm_write(&self->c, &cf->f, m, direct, off, len, idx, &at))
		return -EIO;
	cf_changed(cf, at, len, idx);
	return 0;
}

/* One random operation; *@synced says it was a sync operation. */
static int rand_op(FIXTURE_DATA(crash_oracle) *self, struct cfile *cf, uint64_t *rs,
		   struct rrun *r, uint32_t idx, bool *synced)
{
	unsigned int w = (unsigned int)rnd_below(rs, 100), op;
	uint64_t off, len, old = cf->f.size;
	enum sop k;
	bool direct;
	int mode;

	*synced = false;
	for (op = 0; op < OP_NR - 1 && w >= weight[op]; op++)
		w -= weight[op];
	r->ops[op]++;
	if (op == OP_WRITE)
		return rand_write(self, cf, rs, r, idx);
	pick_range(rs, cf->f.cap - MAX_REQ, &off, &len);
	if (op == OP_SYNC) {
		k = (enum sop)rnd_below(rs, K_NR);
		direct = k != K_MSYNC && rnd_below(rs, 2);
		if (direct) {
			off = off / self->c.dio * self->c.dio;
			len = (len + self->c.dio - 1) / self->c.dio * self->c.dio;
		}
		r->kinds[k]++;
		*synced = true;
		snprintf(r->desc[idx], sizeof(r->desc[0]), "op %u: %s%s [%" PRIu64 ",+%" PRIu64 ")",
			 idx, direct ? "O_DIRECT " : "", kname[k], off, len);
		return sync_op(self, cf, k, direct, off, len, idx, idx);
	}
	snprintf(r->desc[idx], sizeof(r->desc[0]), "op %u: %s [%" PRIu64 ",+%" PRIu64 ")", idx,
		 opname[op], off, len);
	if (op == OP_TRUNC) {
		if (ftruncate(cf->f.fd, (off_t)off))
			return -errno;
		model_truncate(&cf->f, off);
		cf_changed(cf, off < old ? off : old, off < old ? old - off : off - old, idx);
		return 0;
	}
	mode = op == OP_PUNCH ? FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE :
	       op == OP_ZERO ? FALLOC_FL_ZERO_RANGE : 0;
	if (op != OP_PUNCH && rnd_below(rs, 2))
		mode |= FALLOC_FL_KEEP_SIZE;
	if (do_falloc(&cf->f, mode, off, len))
		return -EIO;
	cf_changed(cf, off, len, idx);
	return 0;
}

/* The mix and the crash points of a run. */
static void log_run(struct __test_metadata *_metadata, const struct rrun *r, uint64_t seed)
{
	char line[640];
	size_t at = 0;
	unsigned int i;

	for (i = 0; i < OP_NR; i++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s %u", i ? ", " : "",
				       opname[i], r->ops[i]);
	TH_LOG("seed %" PRIu64 ": operations: %s", seed, line);
	for (i = 0, at = 0; i < K_NR; i++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s %u", i ? ", " : "",
				       kname[i], r->kinds[i]);
	TH_LOG("seed %" PRIu64 ": sync operations: %s", seed, line);
	for (i = 0, at = 0; i < W_NR; i++)
		if (r->writes[i] && at < sizeof(line) - 64)
			at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s %u",
					       at ? ", " : "", wname[i], r->writes[i]);
	TH_LOG("seed %" PRIu64 ": writes: %s", seed, line);
	for (i = 0, at = 0; i < r->ncrash && at < sizeof(line) - 16; i++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%u", i ? " " : "",
				       r->crash_at[i]);
	TH_LOG("seed %" PRIu64 ": %u crashes, after operations %s", seed, r->ncrash, line);
}

/*
 * RAND_OPS operations with sync operations among them, a crash after one
 * in CRASH_ONE_IN of those (chosen by the seed), the file checked after
 * each crash. Catches what the fixed groups do not: a promise over
 * ranges other operations moved, zeroed or extended in an order nobody
 * wrote down.
 */
TEST_F_TIMEOUT(crash_oracle, seeded_crash_points_keep_every_synced_byte, 300)
{
	struct rrun r = { 0 };
	struct cfile cf;
	uint64_t rs;
	uint32_t idx;
	bool synced;
	int ret;

	memset(&cf, 0, sizeof(cf));
	cf.f.fd = -1;
	cf.f.dfd = -1;
	IOP_TEST_BEGIN(&self->fs);
	r.desc = calloc(RAND_OPS, sizeof(*r.desc));
	ASSERT_NE(NULL, r.desc);
	rs = self->seed;
	TH_LOG("seed %" PRIu64 ": IOPATH_SEED=%" PRIu64 " replays this run", self->seed, self->seed);
	ASSERT_EQ(0, cf_new(self, &cf, "random", RAND_CAP)) TH_LOG("%s", strerror(errno));
	fill_with_pattern(self->c.wbuf, 0, MAX_REQ);
	for (idx = 0; idx < RAND_CAP / MAX_REQ; idx++)
		ASSERT_EQ(0, iop_pwrite_all(cf.f.fd, self->c.wbuf, MAX_REQ, idx * MAX_REQ));
	ASSERT_EQ(0, fsync(cf.f.fd));
	ASSERT_EQ(0, ftruncate(cf.f.fd, 0));
	ASSERT_EQ(0, fsync(cf.f.fd));
	ASSERT_EQ(0, cf_arm(&cf));
	for (idx = 0; idx < RAND_OPS; idx++) {
		ret = rand_op(self, &cf, &rs, &r, idx, &synced);
		ASSERT_EQ(0, ret) TH_LOG("seed %" PRIu64 ", %s: %s (replay: IOPATH_SEED=%" PRIu64 ")",
					 self->seed, r.desc[idx], self->c.why, self->seed);
		if (!synced || rnd_below(&rs, CRASH_ONE_IN) || r.ncrash == MAX_CRASHES)
			continue;
		r.crash_at[r.ncrash++] = idx;
		snprintf(self->where, sizeof(self->where), "seed %" PRIu64 ", crash right after %s",
			 self->seed, r.desc[idx]);
		ret = crash(self, &cf, 1);
		if (ret == 1)
			SKIP(return, "the filesystem has no shutdown ioctl");
		ASSERT_EQ(0, ret) TH_LOG("%s", self->c.why);
		ret = cf_check(self, &cf, rdesc, &r);
		EXPECT_EQ(0, ret) TH_LOG("%s (replay: IOPATH_SEED=%" PRIu64 ")", self->c.why,
					 self->seed);
		ASSERT_NE(-ENOMEM, ret);
	}
	log_run(_metadata, &r, self->seed);
	cf_free(&cf);
	free(r.desc);
}

TEST_HARNESS_MAIN
