// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The iomap mapping sequence itself, as the iomap_iter,
 * iomap_iter_dstmap and iomap_iter_srcmap tracepoints record it: for one
 * operation over a layout the test built, every mapping must carry the
 * type and NEW/SHARED flags of the extent it covers, mappings must follow
 * each other without gap or overlap, iomap_iter must be called once per
 * mapping plus once to end the loop, and a srcmap must appear exactly for
 * shared extents (lib/mapcheck judges; tests/mapcheck_test shows it
 * rejects each kind of stale state).
 *
 * The bug class: the iomap core zeroes iter->iomap and iter->srcmap
 * between extents (iomap_iter_reset_iomap / iomap_iter_continue); the
 * seed patch "iomap: avoid memset iomap when iter is done" skips that
 * memset when the loop ends. A kernel that skips it too early, or a
 * ->iomap_begin that leaves a field unset (xfs_hole_to_iomap() leaves
 * flags, XFS's COW-over-hole path leaves srcmap), shows the previous
 * extent's state in the next mapping. These tests see that state directly,
 * even where the data checks of the other selftests would not notice.
 *
 * Only NEW and SHARED are judged among the mapping flags: DIRTY follows
 * inode state (ext4 sets it on every FIEMAP mapping because
 * ext4_set_iomap() compares the requested length with i_size) and is not
 * extent state.
 *
 * Tracing happens in a private tracefs instance filtered to the scratch
 * device; without tracefs or the iomap events the tests skip.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <sys/sysmacros.h>
#include <sys/uio.h>

#include "iopath_test.h"
#include "iomap_layout.h"
#include "mapcheck.h"

#define MAX_EVENTS 4096

/* The op flags that tell one kind of loop from another. */
#define OP_MASK (IOP_IOMAP_WRITE | IOP_IOMAP_ZERO | IOP_IOMAP_REPORT | \
		 IOP_IOMAP_DIRECT | IOP_IOMAP_UNSHARE)

/* One expected mapping: offset, length, type, flags, flags mask, srcmap? */
#define MAP(off, len, t, f, mask, src)						\
	{ .offset = (off), .length = (len), .type = (t), .flags = (f),		\
	  .flags_mask = (mask), .srcmap = (src) }

/* [W 0-64K][H 64-128K][U 128-192K][W 192-256K] */
static const struct iop_region layout_whuw[] = {
	{ 0 * IOP_R64, IOP_R64, IOP_REGION_WRITTEN },
	{ 1 * IOP_R64, IOP_R64, IOP_REGION_HOLE },
	{ 2 * IOP_R64, IOP_R64, IOP_REGION_UNWRITTEN },
	{ 3 * IOP_R64, IOP_R64, IOP_REGION_WRITTEN },
};

/* What the filesystem must report for it when nothing is being written. */
static const struct iop_map_extent report_whuw[] = {
	MAP(0 * IOP_R64, IOP_R64, IOP_IOMAP_MAPPED, 0, 0, false),
	MAP(1 * IOP_R64, IOP_R64, IOP_IOMAP_HOLE, 0, 0, false),
	MAP(2 * IOP_R64, IOP_R64, IOP_IOMAP_UNWRITTEN, 0, 0, false),
	MAP(3 * IOP_R64, IOP_R64, IOP_IOMAP_MAPPED, 0, 0, false),
};

FIXTURE(iomap_trace) {
	struct iop_test_fs fs;
	struct iop_trace *trace;
	int fd;			/* the traced file, buffered */
	int dfd;		/* the traced file, O_DIRECT */
	int src;		/* clone source */
	uint64_t ino;
	uint8_t *model;
	uint8_t *buf;
	struct iop_map_event *ev;
	size_t n;
	int bad_events;
	char why[192];
};

FIXTURE_VARIANT(iomap_trace) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(iomap_trace);

/* Enable the three events in a private instance, filtered to @dev. */
static int trace_setup(FIXTURE_DATA(iomap_trace) *self, dev_t dev)
{
	static const char *const events[] = {
		"iomap_iter", "iomap_iter_dstmap", "iomap_iter_srcmap",
	};
	char filter[64], why[160];
	unsigned int i;
	int ret;

	/* A skip only where the kernel lacks them; then any failure is ours. */
	if (iop_probe("tracefs_iomap", why, sizeof(why)) == 0) {
		snprintf(self->fs.skip, sizeof(self->fs.skip), "%s", why);
		return -ENOENT;
	}
	ret = iop_trace_open(&self->trace);
	if (ret) {
		snprintf(self->fs.error, sizeof(self->fs.error), "tracefs: %s", strerror(-ret));
		return ret;
	}
	snprintf(filter, sizeof(filter), "dev == %" PRIu64,
		 iop_trace_devno(major(dev), minor(dev)));
	for (i = 0; i < 3; i++) {
		if (!iop_trace_has_event(self->trace, "iomap", events[i])) {
			snprintf(self->fs.error, sizeof(self->fs.error),
				 "the trace instance has no iomap:%s event", events[i]);
			return -ENOENT;
		}
		ret = iop_trace_enable(self->trace, "iomap", events[i], filter);
		if (ret) {
			snprintf(self->fs.error, sizeof(self->fs.error), "enable iomap:%s (%s): %s",
				 events[i], filter, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

FIXTURE_SETUP(iomap_trace)
{
	struct stat st;

	self->trace = NULL;
	self->fd = -1;
	self->dfd = -1;
	self->src = -1;
	self->n = 0;
	self->model = calloc(1, IOP_LAYOUT_SIZE);
	self->buf = iop_alloc_aligned(IOP_LAYOUT_SIZE);
	self->ev = calloc(MAX_EVENTS, sizeof(*self->ev));
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
	if (!self->fs.scratch)
		return;
	if (!self->model || !self->buf || !self->ev) {
		snprintf(self->fs.error, sizeof(self->fs.error), "out of memory");
		return;
	}
	self->fd = iop_open_at(self->fs.scratch->mnt, "traced", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (self->fd < 0 || fstat(self->fd, &st)) {
		snprintf(self->fs.error, sizeof(self->fs.error), "open traced: %s",
			 strerror(self->fd < 0 ? -self->fd : errno));
		return;
	}
	self->ino = st.st_ino;
	self->dfd = iop_open_at(self->fs.scratch->mnt, "traced", O_RDWR | O_DIRECT, 0);
	if (self->dfd < 0) {
		snprintf(self->fs.error, sizeof(self->fs.error), "open traced O_DIRECT: %s",
			 strerror(-self->dfd));
		return;
	}
	trace_setup(self, st.st_dev);
}

FIXTURE_TEARDOWN(iomap_trace)
{
	iop_trace_close(self->trace);
	/* Every fd closed before the scratch is unmounted. */
	IOP_CLOSE_FDS(self->src, self->dfd, self->fd);
	free(self->model);
	free(self->buf);
	free(self->ev);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

static int collect(const struct iop_trace_event *tev, void *arg)
{
	FIXTURE_DATA(iomap_trace) *self = arg;
	struct iop_map_event e;
	int ret = iop_map_event_from_trace(tev, &e);

	if (ret == -ENOENT)
		return 0;
	if (ret) {
		self->bad_events++;
		return 0;
	}
	if (e.ino != self->ino)
		return 0;
	if (self->n == MAX_EVENTS)
		return 1;
	self->ev[self->n++] = e;
	return 0;
}

static int trace_begin(FIXTURE_DATA(iomap_trace) *self)
{
	self->n = 0;
	self->bad_events = 0;
	return iop_trace_start(self->trace);
}

/* Stop tracing and keep this inode's iomap events; -errno or the count. */
static int trace_end(FIXTURE_DATA(iomap_trace) *self)
{
	int ret = iop_trace_stop(self->trace);

	if (ret)
		return ret;
	ret = iop_trace_read(self->trace, collect, self);
	if (ret < 0)
		return ret;
	if (self->bad_events)
		return -EBADMSG;
	return (int)self->n;
}

/* On a failed verdict: the recorded sequence, as TAP diagnostics. */
static void dump_events(const FIXTURE_DATA(iomap_trace) *self)
{
	static const char *const kind[] = { "iter  ", "dstmap", "srcmap" };
	size_t i;

	for (i = 0; i < self->n; i++) {
		const struct iop_map_event *e = &self->ev[i];

		fprintf(stderr, "#   %s %s 0x%" PRIx64 " length 0x%" PRIx64 " type %s flags 0x%x\n",
			kind[e->kind], e->kind == IOP_MAP_ITER ? "pos" : "offset", e->offset,
			e->length, e->kind == IOP_MAP_ITER ? "-" : iop_map_type_name(e->type),
			e->flags);
	}
}

/*
 * Find the loop with op flags @op (under OP_MASK) and judge it over
 * [start, start+len) against @layout.
 */
static bool judge(FIXTURE_DATA(iomap_trace) *self, uint32_t op,
		  const struct iop_map_extent *layout, size_t nlayout,
		  uint64_t start, uint64_t len, unsigned int opts,
		  struct iop_map_verdict *v)
{
	size_t first, count;

	if (iop_map_loop_find(self->ev, self->n, 0, self->ino, OP_MASK, op, &first, &count)) {
		memset(v, 0, sizeof(*v));
		snprintf(v->reason, sizeof(v->reason), "no loop with op flags 0x%x among %zu events",
			 op, self->n);
		dump_events(self);
		return false;
	}
	if (iop_mapcheck(self->ev + first, count, layout, nlayout, start, len, opts, v))
		return true;
	dump_events(self);
	return false;
}

#define TRACE_END_OK(self)							\
	do {									\
		int __t = trace_end(self);					\
		ASSERT_LT(0, __t) TH_LOG("trace: %s", __t ? strerror(-__t) : "no events"); \
	} while (0)

#define CLONE_OR_SKIP(dst, src, src_off, len, dst_off)				\
	do {									\
		int __r = iop_clone_range(dst, src, src_off, len, dst_off);	\
		if (__r && !variant->reflink &&					\
		    (__r == -EOPNOTSUPP || __r == -EINVAL || __r == -EXDEV || __r == -ENOTTY)) \
			SKIP(return, "%s: no reflink (FICLONERANGE: %s)",	\
			     variant->fstype, strerror(-__r));			\
		ASSERT_EQ(0, __r) TH_LOG("FICLONERANGE: %s", strerror(-__r));	\
	} while (0)

/*
 * FIEMAP of [written][hole][unwritten][written]: one REPORT loop, four
 * mappings MAPPED, HOLE, UNWRITTEN, MAPPED with no NEW or SHARED, five
 * iomap_iter calls. Then SEEK_DATA from inside the hole: a REPORT loop
 * that walks HOLE and clean UNWRITTEN and stops in the written extent.
 * Catches: a mapping whose type or flags are the previous extent's, a
 * wrong advance, an iomap_iter call too many (the loop re-entered after
 * it ended) or too few.
 */
TEST_F(iomap_trace, report_loops_map_each_extent_with_its_own_state)
{
	struct iop_fiemap f;
	struct iop_map_verdict v;
	off_t got;
	int n;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, iop_layout_build(self->fd, layout_whuw, 4, self->model, 41,
				      self->why, sizeof(self->why))) TH_LOG("%s", self->why);

	ASSERT_EQ(0, trace_begin(self));
	n = iop_fiemap(self->fd, 0, IOP_LAYOUT_SIZE, &f);
	TRACE_END_OK(self);
	ASSERT_EQ(3, n);
	EXPECT_TRUE(judge(self, IOP_IOMAP_REPORT, report_whuw, 4, 0, IOP_LAYOUT_SIZE, 0, &v))
		TH_LOG("FIEMAP: %s", v.reason);
	EXPECT_EQ(4u, v.mappings);

	ASSERT_EQ(0, trace_begin(self));
	got = lseek(self->fd, IOP_K(68), SEEK_DATA);
	TRACE_END_OK(self);
	ASSERT_EQ((off_t)(3 * IOP_R64), got);
	EXPECT_TRUE(judge(self, IOP_IOMAP_REPORT, report_whuw, 4, IOP_K(68),
			  IOP_LAYOUT_SIZE - IOP_K(68),
			  IOP_MAPCHECK_PARTIAL, &v)) TH_LOG("SEEK_DATA: %s", v.reason);
	EXPECT_EQ(3u, v.mappings);
}

/*
 * One O_DIRECT preadv of the whole [written][hole][unwritten][written]
 * file: one DIRECT loop with the same four mappings as the layout, and
 * the bytes of the model.
 * Catches: stale type on the hole or unwritten mapping (which would read
 * the previous extent's blocks), wrong advance, extra/missing iter calls.
 */
TEST_F(iomap_trace, direct_read_maps_each_extent_with_its_own_state)
{
	struct iop_map_verdict v;
	struct iovec iov[2];
	ssize_t ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, iop_layout_build(self->fd, layout_whuw, 4, self->model, 42,
				      self->why, sizeof(self->why))) TH_LOG("%s", self->why);
	iov[0].iov_base = self->buf;
	iov[0].iov_len = IOP_K(100);
	iov[1].iov_base = self->buf + IOP_K(100);
	iov[1].iov_len = IOP_LAYOUT_SIZE - IOP_K(100);

	ASSERT_EQ(0, trace_begin(self));
	ret = preadv(self->dfd, iov, 2, 0);
	TRACE_END_OK(self);
	ASSERT_EQ((ssize_t)IOP_LAYOUT_SIZE, ret);
	EXPECT_TRUE(judge(self, IOP_IOMAP_DIRECT, report_whuw, 4, 0, IOP_LAYOUT_SIZE, 0, &v))
		TH_LOG("%s", v.reason);
	EXPECT_EQ(4u, v.mappings);
	EXPECT_EQ(0, iop_model_compare(self->buf, self->model, 0, IOP_LAYOUT_SIZE, self->why,
				       sizeof(self->why))) TH_LOG("%s", self->why);
}

/*
 * One O_DIRECT write of [64K, 256K) over [hole][unwritten][written]: the
 * hole is allocated (unwritten until I/O completion) and mapped
 * UNWRITTEN|NEW, the unwritten extent is mapped UNWRITTEN, the written
 * extent MAPPED without NEW. Three mappings, four iomap_iter calls, the
 * model's bytes.
 * Filesystem and release difference (not stale state): ext4 up to 6.x
 * reports its existing unwritten extent as NEW too, also when it is the
 * only extent written (ext4_map_blocks() with EXT4_GET_BLOCKS_IO_CREATE_EXT
 * flags the split for conversion EXT4_MAP_NEW); 7.x does not, nor does
 * XFS. So NEW is not judged on ext4's unwritten extent. The written extent
 * after it is NEW-free everywhere, and that is where a carried NEW shows.
 * Catches: NEW or UNWRITTEN carried from a freshly allocated extent into
 * the next mapping (iomap_dio would zero around the I/O and convert
 * blocks that hold data), or NEW lost on the allocation.
 */
TEST_F(iomap_trace, direct_write_marks_only_allocated_blocks_new)
{
	const bool ext4 = !strcmp(variant->fstype, "ext4");
	const struct iop_map_extent want[] = {
		MAP(1 * IOP_R64, IOP_R64, IOP_IOMAP_UNWRITTEN, IOP_IOMAP_F_NEW, 0, false),
		MAP(2 * IOP_R64, IOP_R64, IOP_IOMAP_UNWRITTEN, 0,
		    ext4 ? IOP_IOMAP_F_SHARED : 0, false),
		MAP(3 * IOP_R64, IOP_R64, IOP_IOMAP_MAPPED, 0, 0, false),
	};
	struct iop_map_verdict v;
	ssize_t ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, iop_layout_build(self->fd, layout_whuw, 4, self->model, 43,
				      self->why, sizeof(self->why))) TH_LOG("%s", self->why);
	iop_pattern_fill(self->buf, IOP_R64, 3 * IOP_R64, 44);
	memcpy(self->model + IOP_R64, self->buf, 3 * IOP_R64);

	ASSERT_EQ(0, trace_begin(self));
	ret = pwrite(self->dfd, self->buf, 3 * IOP_R64, IOP_R64);
	TRACE_END_OK(self);
	ASSERT_EQ((ssize_t)(3 * IOP_R64), ret);
	EXPECT_TRUE(judge(self, IOP_IOMAP_WRITE | IOP_IOMAP_DIRECT, want, 3, IOP_R64,
			  3 * IOP_R64, 0, &v))
		TH_LOG("%s", v.reason);
	EXPECT_EQ(3u, v.mappings);
	EXPECT_EQ(0, iop_file_compare(self->fd, self->model, IOP_LAYOUT_SIZE, self->why,
				      sizeof(self->why))) TH_LOG("%s", self->why);
}

/*
 * XFS reflink: dst = [0,128K) cloned, [128K,256K) hole; one buffered
 * pwrite of [100, 140000). Two mappings: the COW reservation over the
 * shared extent (DELALLOC, SHARED) with a MAPPED srcmap to read the
 * partial first block from, then a plain delalloc reservation over the
 * hole (DELALLOC, NEW) with no srcmap and no SHARED.
 * Catches: the srcmap of the shared extent left on the hole's mapping
 * (short write, or the clone source's bytes in dst's tail block) and a
 * stale SHARED on it; the full count and the bytes are checked too.
 */
TEST_F(iomap_trace, cow_write_has_srcmap_only_over_the_shared_extent)
{
	static const struct iop_region whole[] = { { 0, IOP_LAYOUT_SIZE, IOP_REGION_WRITTEN } };
	/*
	 * NEW on a COW reservation differs between releases (6.1: SHARED
	 * only, 6.18: NEW|SHARED), so only SHARED is judged there; the hole's
	 * fresh delalloc is NEW and not SHARED everywhere.
	 */
	static const struct iop_map_extent want[] = {
		MAP(0, IOP_K(128), IOP_IOMAP_DELALLOC, IOP_IOMAP_F_SHARED,
		    IOP_IOMAP_F_SHARED, true),
		MAP(IOP_K(128), IOP_K(128), IOP_IOMAP_DELALLOC, IOP_IOMAP_F_NEW, 0, false),
	};
	const uint64_t off = 100, len = 140000 - 100;
	uint8_t *src_model = calloc(1, IOP_LAYOUT_SIZE);
	struct iop_map_verdict v;
	ssize_t ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, src_model);
	self->src = iop_open_at(self->fs.scratch->mnt, "src", O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, self->src);
	ASSERT_EQ(0,
		  iop_layout_build(self->src, whole, 1, src_model, 45, self->why,
				   sizeof(self->why)));
	ASSERT_EQ(0, ftruncate(self->fd, IOP_LAYOUT_SIZE));
	CLONE_OR_SKIP(self->fd, self->src, 0, IOP_K(128), 0);
	memcpy(self->model, src_model, IOP_K(128));
	iop_pattern_fill(self->buf, off, len, 46);
	memcpy(self->model + off, self->buf, len);

	ASSERT_EQ(0, trace_begin(self));
	ret = pwrite(self->fd, self->buf, len, off);
	TRACE_END_OK(self);
	ASSERT_EQ((ssize_t)len, ret);
	EXPECT_TRUE(judge(self, IOP_IOMAP_WRITE, want, 2, off, len, 0, &v)) TH_LOG("%s", v.reason);
	EXPECT_EQ(2u, v.mappings);
	EXPECT_EQ(0, iop_file_compare(self->fd, self->model, IOP_LAYOUT_SIZE, self->why,
				      sizeof(self->why))) TH_LOG("dst: %s", self->why);
	EXPECT_EQ(0,
		  iop_file_compare(self->src, src_model, IOP_LAYOUT_SIZE, self->why,
				   sizeof(self->why)))
		TH_LOG("src: %s", self->why);
	free(src_model);
}

/*
 * XFS reflink: dst = [S 0-64K][H 64-128K][S 128-192K][H 192-256K];
 * FALLOC_FL_UNSHARE_RANGE over all of it. One UNSHARE loop of four
 * mappings: each shared extent SHARED with a MAPPED srcmap, each hole
 * without NEW, SHARED or srcmap.
 * Catches: SHARED left on a hole's mapping by xfs_hole_to_iomap() (which
 * does not set flags) when the core did not zero it, a srcmap left over
 * from the shared extent before it; both make unshare write into holes.
 * Also fails on kernels without "xfs: don't allocate COW extents when
 * unsharing a hole" (Darrick J. Wong, merged for 6.12-rc6): a 6.1 guest
 * maps the holes as DELALLOC, COW preallocation with 4k blocks and a
 * fresh NEW reservation with 1k blocks.
 */
TEST_F(iomap_trace, unshare_maps_holes_without_shared_state)
{
	static const struct iop_region whole[] = { { 0, IOP_LAYOUT_SIZE, IOP_REGION_WRITTEN } };
	/*
	 * A shared extent gets a fresh COW reservation (DELALLOC, SHARED; NEW
	 * too from some release on, not judged) that may reach past it
	 * (cowextsize); the srcmap bounds it. A hole is a HOLE: no NEW, no
	 * SHARED, no srcmap.
	 */
	static const struct iop_map_extent want[] = {
		MAP(0 * IOP_R64, IOP_R64, IOP_IOMAP_DELALLOC, IOP_IOMAP_F_SHARED,
		    IOP_IOMAP_F_SHARED, true),
		MAP(1 * IOP_R64, IOP_R64, IOP_IOMAP_HOLE, 0, 0, false),
		MAP(2 * IOP_R64, IOP_R64, IOP_IOMAP_DELALLOC, IOP_IOMAP_F_SHARED,
		    IOP_IOMAP_F_SHARED, true),
		MAP(3 * IOP_R64, IOP_R64, IOP_IOMAP_HOLE, 0, 0, false),
	};
	uint8_t *src_model = calloc(1, IOP_LAYOUT_SIZE);
	struct iop_map_verdict v;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, src_model);
	self->src = iop_open_at(self->fs.scratch->mnt, "src", O_RDWR | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, self->src);
	ASSERT_EQ(0,
		  iop_layout_build(self->src, whole, 1, src_model, 47, self->why,
				   sizeof(self->why)));
	ASSERT_EQ(0, ftruncate(self->fd, IOP_LAYOUT_SIZE));
	CLONE_OR_SKIP(self->fd, self->src, 0, IOP_R64, 0);
	CLONE_OR_SKIP(self->fd, self->src, 2 * IOP_R64, IOP_R64, 2 * IOP_R64);
	memcpy(self->model, src_model, IOP_R64);
	memcpy(self->model + 2 * IOP_R64, src_model + 2 * IOP_R64, IOP_R64);

	ASSERT_EQ(0, trace_begin(self));
	ASSERT_EQ(0, fallocate(self->fd, FALLOC_FL_UNSHARE_RANGE, 0, IOP_LAYOUT_SIZE))
		TH_LOG("FALLOC_FL_UNSHARE_RANGE: %s", strerror(errno));
	TRACE_END_OK(self);
	EXPECT_TRUE(judge(self, IOP_IOMAP_WRITE | IOP_IOMAP_UNSHARE, want, 4, 0,
			  IOP_LAYOUT_SIZE, 0, &v))
		TH_LOG("%s", v.reason);
	EXPECT_EQ(4u, v.mappings);
	EXPECT_EQ(0, iop_file_compare(self->fd, self->model, IOP_LAYOUT_SIZE, self->why,
				      sizeof(self->why))) TH_LOG("dst: %s", self->why);
	free(src_model);
}

/*
 * An unwritten 64K extent with 8K of dirty data, ftruncate(1000)
 * (zeroes the EOF block, leaving it dirty), then ftruncate(200000) under
 * tracing. On kernels up to 6.18 iomap_zero_range() first zeroes the
 * dirty partial EOF block in one loop and then runs a second loop over the
 * rest with the same iomap_iter; from 6.19 it runs one loop. Every ZERO
 * loop must start on a fresh iter: its first iomap_iter reports the whole
 * remaining length (0 only at pos 0), the loops follow each other without
 * gap, each consumes its range (iomap_iter once per mapping plus one), and
 * the file reads 'A' up to 1000 and zeros after.
 * Catches: the seed patch ("iomap: avoid memset iomap when iter is done")
 * backported to a kernel whose iomap_zero_range() re-enters iomap_iter()
 * after a finished loop: the second loop then starts with the first
 * loop's mapping (double ->iomap_end, a length clamped to the stale
 * mapping, a wrong advance, unzeroed bytes). The trace shows it as a
 * first iomap_iter of length 0 where the first loop's mapping ended.
 * ext4 skips when it records no ZERO loop (6.18 zeroes through buffer
 * heads); its data check still runs first.
 */
TEST_F(iomap_trace, zero_range_loops_each_start_on_a_fresh_iter)
{
	const uint64_t new_size = 200000;
	size_t first, count, from = 0;
	uint64_t expect_pos = 1000;
	unsigned int loops = 0;
	bool loops_ok = true;
	uint8_t *got;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, fallocate(self->fd, 0, 0, IOP_R64));
	memset(self->buf, 'A', 8192);
	ASSERT_EQ(0, iop_pwrite_all(self->fd, self->buf, 8192, 0));
	ASSERT_EQ(0, ftruncate(self->fd, 1000));

	ASSERT_EQ(0, trace_begin(self));
	ASSERT_EQ(0, ftruncate(self->fd, (off_t)new_size));
	ASSERT_LE(0, trace_end(self));

	got = malloc(new_size);
	ASSERT_NE(NULL, got);
	memset(self->model, 'A', 1000);
	EXPECT_EQ(0, iop_pread_all(self->fd, got, new_size, 0));
	EXPECT_EQ(0, iop_model_compare(got, self->model, 0, 1000, self->why, sizeof(self->why)))
		TH_LOG("%s", self->why);
	for (first = 1000; first < new_size && !got[first]; first++)
		;
	EXPECT_EQ(new_size, first) TH_LOG("byte %zu is 0x%02x after zeroing", first, got[first]);
	free(got);

	/*
	 * A loop may hold a mapping the core marked stale and map the same
	 * pos again (6.18 flushes dirty cache over a hole or unwritten
	 * extent that way): judged here by iter count and advance only.
	 */
	while (!iop_map_loop_find(self->ev, self->n, from, self->ino, OP_MASK, IOP_IOMAP_ZERO,
				  &first, &count)) {
		const struct iop_map_event *b = &self->ev[first], *e = &self->ev[first + count - 1];
		/* before 6.15 the last event precedes the last advance */
		const uint64_t end = e->offset + (e->pre_advance ? e->length : 0);
		unsigned int i, iters = 0, maps = 0;

		for (i = 0; i < count; i++) {
			iters += b[i].kind == IOP_MAP_ITER;
			maps += b[i].kind == IOP_MAP_DST;
		}
		if (expect_pos != b->offset || b->length != (b->offset ? end - b->offset : 0) ||
		    maps + 1 != iters || (!e->pre_advance && e->length))
			loops_ok = false;
		EXPECT_EQ(expect_pos, b->offset) TH_LOG("ZERO loop %u starts at 0x%" PRIx64,
							loops, b->offset);
		EXPECT_EQ(b->offset ? end - b->offset : 0, b->length)
			TH_LOG("ZERO loop %u: first iomap_iter length 0x%" PRIx64 " for [0x%" PRIx64 ",0x%" PRIx64 ")",
			       loops, b->length, b->offset, end);
		EXPECT_EQ(maps + 1, iters) TH_LOG("ZERO loop %u", loops);
		if (!e->pre_advance)
			EXPECT_EQ(0u, e->length) TH_LOG("ZERO loop %u stopped early", loops);
		expect_pos = end;
		from = first + count;
		loops++;
	}
	if (!loops && !strcmp(variant->fstype, "ext4"))
		SKIP(return, "no ZERO loop recorded: ext4 zeroes EOF blocks through buffer heads, not iomap, on this kernel");
	if (!loops || expect_pos != new_size)
		loops_ok = false;
	EXPECT_LE(1u, loops) TH_LOG("no ZERO loop recorded");
	EXPECT_EQ(new_size, expect_pos) TH_LOG("ZERO loops end at 0x%" PRIx64, expect_pos);
	if (!loops_ok || getenv("IOPATH_TRACE_DUMP"))
		dump_events(self);
}

TEST_HARNESS_MAIN
