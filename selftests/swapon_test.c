// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * swapon(2) verdicts on swap files with different extent layouts: fully
 * written, [written][unwritten][written], [written][hole], and (XFS
 * reflink) a reflinked copy before and after FALLOC_FL_UNSHARE_RANGE.
 *
 * iomap_swapfile_activate() walks the whole file in one iomap_iter loop
 * and decides from each mapping's type and flags: holes (and inline or
 * delalloc data) are refused ("swapfile has holes"), unwritten extents
 * are accepted, IOMAP_F_SHARED is refused ("has shared extents"). The bug
 * these tests catch is a kernel that gets a verdict wrong: a file with a hole accepted (swap
 * I/O would then write wherever the hole's mapping pointed), a good file
 * refused, a shared extent swapped onto (swap writes would go into the
 * clone source's blocks). Not a type or SHARED/NEW flag left over from
 * the previous extent by the core: ext4's and XFS's ->iomap_begin set
 * type and flags on every call (xfs_hole_to_iomap() leaves the flags
 * alone, but a hole is refused whatever its flags); iomap_trace judges
 * the mapping sequence itself. The unshare step is the positive control
 * that the refusal is about sharing.
 *
 * One test swaps out for real: anonymous memory to a swap file whose
 * extents lie apart, another file's blocks between them; the other file
 * must come through unchanged (93-swapfile-joins-extents-apart, generated
 * sample 6's 016-relop-iomap_swapfile_iter).
 *
 * swapon is called directly, not through swapon(8), so util-linux's own
 * hole check does not hide the kernel's. Every successful swapon is
 * undone at once, and again in teardown if that failed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <limits.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/swap.h>

#include "iopath_test.h"
#include "iomap_layout.h"

#define SWAP_SIZE (4ull << 20)

FIXTURE(swapon) {
	struct iop_test_fs fs;
	char active[PATH_MAX + 32];	/* a swap file that swapoff has not yet undone */
	long page;
	char why[192];
};

FIXTURE_VARIANT(swapon) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(swapon);

FIXTURE_SETUP(swapon)
{
	self->active[0] = '\0';
	self->page = sysconf(_SC_PAGESIZE);
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(swapon)
{
	/* Never leave a swap file active: the scratch could not be unmounted. */
	if (self->active[0] && swapoff(self->active))
		TH_LOG("swapoff %s: %s", self->active, strerror(errno));
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/* include/linux/swap.h: union swap_header, version 1 (no bad pages) */
struct swap_header_v1 {
	char bootbits[1024];
	uint32_t version;
	uint32_t last_page;
	uint32_t nr_badpages;
	unsigned char uuid[16];
	unsigned char volume[16];
};

/* The first page of a swap file, as mkswap writes it. */
static void swap_header(uint8_t *page, long pagesz, uint64_t size)
{
	struct swap_header_v1 *h = (struct swap_header_v1 *)page;

	memset(page, 0, pagesz);
	h->version = 1;
	h->last_page = (uint32_t)(size / pagesz - 1);
	memcpy(page + pagesz - 10, "SWAPSPACE2", 10);
}

/*
 * Make @name from @regions (the first must be written; its first page
 * becomes the swap header), mode 0600 as swapon expects. Returns an fd.
 */
static int make_swapfile(FIXTURE_DATA(swapon) *self, const char *name,
			 const struct iop_region *regions, size_t n)
{
	uint8_t *model = calloc(1, SWAP_SIZE), *hdr = iop_alloc_aligned(self->page);
	int fd, ret;

	fd = iop_open_at(self->fs.scratch->mnt, name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || !model || !hdr) {
		snprintf(self->why, sizeof(self->why), "create %s: %s", name,
			 strerror(fd < 0 ? -fd : ENOMEM));
		ret = fd < 0 ? fd : -ENOMEM;
		goto out;
	}
	ret = iop_layout_build(fd, regions, n, model, 31, self->why, sizeof(self->why));
	if (!ret) {
		swap_header(hdr, self->page, SWAP_SIZE);
		ret = iop_pwrite_all(fd, hdr, self->page, 0);
		if (!ret && fsync(fd))
			ret = -errno;
		if (ret)
			snprintf(self->why, sizeof(self->why), "swap header: %s", strerror(-ret));
	}
out:
	free(model);
	free(hdr);
	if (ret && fd >= 0)
		close(fd);
	return ret ? ret : fd;
}

/*
 * swapon(2) @name and, if that worked, swapoff at once. Returns 0 if
 * swapon accepted the file, -errno if it refused it. *skip is set when
 * the refusal means "cannot test here" (no swap support, not allowed).
 */
static int try_swapon(FIXTURE_DATA(swapon) *self, const char *name, bool *skip)
{
	int ret = 0;

	*skip = false;
	snprintf(self->active, sizeof(self->active), "%s/%s", self->fs.scratch->mnt, name);
	if (swapon(self->active, 0)) {
		ret = -errno;
		self->active[0] = '\0';
		/* The one skip policy (lib/probe.h): a kernel without swap. */
		*skip = iop_errno_means_absent(-ret);
		return ret;
	}
	if (swapoff(self->active) == 0)
		self->active[0] = '\0';
	return 0;
}

#define EXPECT_SWAPON(name, want)						\
	do {									\
		bool __skip;							\
		int __r = try_swapon(self, name, &__skip);			\
		if (__skip)							\
			SKIP(return, "swapon: %s", strerror(-__r));		\
		EXPECT_EQ(want, __r) TH_LOG("swapon %s: %s", name,		\
					    __r ? strerror(-__r) : "accepted"); \
		ASSERT_EQ(0, self->active[0]) TH_LOG("swapoff %s failed", name); \
	} while (0)

#define HALF (SWAP_SIZE / 2)
#define QUARTER (SWAP_SIZE / 4)

/* A swap file written whole, in two extents' worth of writes. */
static const struct iop_region written[] = {
	{ 0, HALF, IOP_REGION_WRITTEN }, { HALF, HALF, IOP_REGION_WRITTEN },
};

/*
 * Positive control: a fully written file is accepted.
 * Catches: a verdict taken from stale mapping state on a file whose
 * extents are all written (e.g. a stale hole type on a later extent).
 */
TEST_F(swapon, fully_written_file_is_accepted)
{
	int fd;

	IOP_TEST_BEGIN(&self->fs);
	fd = make_swapfile(self, "swap", written, 2);
	ASSERT_LE(0, fd) TH_LOG("%s", self->why);
	close(fd);
	EXPECT_SWAPON("swap", 0);
}

/*
 * [written][unwritten][written] is accepted: unwritten extents are
 * allocated and swap writes them directly.
 * Catches: the unwritten mapping (or the written one after it) judged
 * with a stale HOLE type, refusing a valid swap file.
 */
TEST_F(swapon, written_unwritten_written_file_is_accepted)
{
	static const struct iop_region r[] = {
		{ 0, QUARTER, IOP_REGION_WRITTEN },
		{ QUARTER, HALF, IOP_REGION_UNWRITTEN },
		{ 3 * QUARTER, QUARTER, IOP_REGION_WRITTEN },
	};
	int fd;

	IOP_TEST_BEGIN(&self->fs);
	fd = make_swapfile(self, "swap", r, 3);
	ASSERT_LE(0, fd) TH_LOG("%s", self->why);
	close(fd);
	EXPECT_SWAPON("swap", 0);
}

/*
 * [written][hole] is refused with EINVAL ("swapfile has holes").
 * Catches: the hole's mapping carrying the written extent's MAPPED type
 * (and address), which would accept the file and point swap at blocks
 * the file does not own.
 */
TEST_F(swapon, file_with_a_hole_is_refused)
{
	static const struct iop_region r[] = {
		{ 0, HALF, IOP_REGION_WRITTEN }, { HALF, HALF, IOP_REGION_HOLE },
	};
	int fd;

	IOP_TEST_BEGIN(&self->fs);
	fd = make_swapfile(self, "swap", r, 2);
	ASSERT_LE(0, fd) TH_LOG("%s", self->why);
	close(fd);
	EXPECT_SWAPON("swap", -EINVAL);
}

/*
 * The same file, its header read from disk: after a remount nothing of
 * the file is cached, so swapon reads the header page through the page
 * cache's filler (read_mapping_folio() -> do_read_cache_folio()) instead
 * of finding the page the test wrote.
 * Catches: a page-cache read that returns no folio, or the wrong one,
 * when it had to read it (78-read-cache-folio-success-taken-as-error,
 * generated sample 4's 014-negate-do_read_cache_folio).
 */
TEST_F(swapon, header_read_from_disk_is_accepted)
{
	int fd;

	IOP_TEST_BEGIN(&self->fs);
	fd = make_swapfile(self, "swap", written, 2);
	ASSERT_LE(0, fd) TH_LOG("%s", self->why);
	close(fd);
	ASSERT_EQ(0, iop_scratch_remount(self->fs.scratch)) TH_LOG("remount");
	EXPECT_SWAPON("swap", 0);
}

/*
 * A reflinked copy of a good swap file is refused (EINVAL, "has shared
 * extents"), and so is its source; after FALLOC_FL_UNSHARE_RANGE on the
 * copy the copy is accepted (positive control).
 * Catches: SHARED lost or not reported for a later extent of the loop,
 * which would swap onto blocks shared with another file.
 */
TEST_F(swapon, reflinked_file_is_refused_until_unshared)
{
	uint8_t *buf;
	int fd, copy, ret;

	IOP_TEST_BEGIN(&self->fs);
	fd = make_swapfile(self, "swap", written, 2);
	ASSERT_LE(0, fd) TH_LOG("%s", self->why);
	copy = iop_open_at(self->fs.scratch->mnt, "copy", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, copy);
	/*
	 * The copy's first half (with the header) is its own; only the
	 * second half is cloned, so the shared extent is not the first
	 * mapping of the loop.
	 */
	buf = iop_alloc_aligned(HALF);
	ASSERT_NE(NULL, buf);
	ret = iop_pread_all(fd, buf, HALF, 0);
	if (!ret)
		ret = iop_pwrite_all(copy, buf, HALF, 0);
	free(buf);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, fsync(copy));
	ret = iop_clone_range(copy, fd, HALF, HALF, HALF);
	close(fd);
	if (ret && !variant->reflink &&
	    (ret == -EOPNOTSUPP || ret == -EINVAL || ret == -EXDEV || ret == -ENOTTY)) {
		close(copy);
		SKIP(return, "%s: no reflink (FICLONERANGE: %s)", variant->fstype, strerror(-ret));
	}
	ASSERT_EQ(0, ret) TH_LOG("FICLONERANGE: %s", strerror(-ret));
	ASSERT_EQ(0, fsync(copy));

	EXPECT_SWAPON("copy", -EINVAL);
	EXPECT_SWAPON("swap", -EINVAL);
	ASSERT_EQ(0, fallocate(copy, FALLOC_FL_UNSHARE_RANGE, 0, SWAP_SIZE))
		TH_LOG("FALLOC_FL_UNSHARE_RANGE: %s", strerror(errno));
	ASSERT_EQ(0, fsync(copy));
	close(copy);
	EXPECT_SWAPON("copy", 0);
	/* The source no longer shares anything either. */
	EXPECT_SWAPON("swap", 0);
}

#define CHUNK	(64 << 10)
#define ANON	(1 << 20)

/*
 * ext4 hands a small file's blocks out of a per-CPU locality group in
 * the order they are asked for, when mb_stream_req (in blocks) is above
 * the file's size. Raised on the scratch filesystem, it makes two files
 * written in turn take alternate runs of blocks. XFS interleaves them as
 * it is. 0 or -errno.
 */
static int ext4_locality_group_for_all(FIXTURE_DATA(swapon) *self)
{
	if (strcmp(self->fs.scratch->fstype, "ext4"))
		return 0;
	return iop_ext4_sysfs_set(self->fs.scratch->dev, "mb_stream_req", "1048576");
}

/* Whether some extent of nb's starts at physical byte @at. */
static bool nb_starts_at(int nb, uint64_t at)
{
	struct iop_fiemap f;
	int i, n;

	n = iop_fiemap(nb, 0, SWAP_SIZE, &f);
	for (i = 0; i < n; i++)
		if (f.ext[i].fe_physical == at)
			return true;
	return false;
}

/*
 * Swap out anonymous memory to a swap file whose extents lie apart, one
 * run of blocks of another file ("nb") between each two, then swapoff: the
 * memory reads back as it was, and nb is still what was written to it.
 * The positive controls: FIEMAP shows the blocks right after the swap
 * file's first extent are nb's, and pagemap shows pages swapped out.
 * Catches: iomap_swapfile_iter() joining extents that are not physically
 * adjacent into one swap extent (generated sample 6's
 * 016-relop-iomap_swapfile_iter: "==" read as "!="), so swap writes go to
 * the blocks after the first extent, which are nb's.
 */
TEST_F(swapon, swapping_out_to_a_fragmented_file_keeps_its_neighbour)
{
	uint8_t *chunk, *back, *anon;
	uint64_t off, swapped = 0, pm;
	struct iop_fiemap f;
	cpu_set_t cpus;
	int fd, nb, pmfd, ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_EQ(0, ext4_locality_group_for_all(self)) TH_LOG("ext4 mb_stream_req");
	/* one CPU: ext4's locality group, and the LRU batch MADV_PAGEOUT drains */
	ret = sched_getcpu();
	ASSERT_LE(0, ret);
	CPU_ZERO(&cpus);
	CPU_SET(ret, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	chunk = iop_alloc_aligned(CHUNK);
	back = iop_alloc_aligned(CHUNK);
	ASSERT_NE(NULL, chunk);
	ASSERT_NE(NULL, back);
	fd = iop_open_at(self->fs.scratch->mnt, "swap", O_RDWR | O_CREAT | O_EXCL | O_DIRECT, 0600);
	nb = iop_open_at(self->fs.scratch->mnt, "nb", O_RDWR | O_CREAT | O_EXCL | O_DIRECT, 0600);
	ASSERT_LE(0, fd);
	ASSERT_LE(0, nb);
	/* the two files in turn, a chunk each, every write allocating at once */
	for (off = 0; off < SWAP_SIZE; off += CHUNK) {
		iop_pattern_fill(chunk, off, CHUNK, 61);
		if (!off)
			swap_header(chunk, self->page, SWAP_SIZE);
		ASSERT_EQ(0, iop_pwrite_all(fd, chunk, CHUNK, off));
		iop_pattern_fill(chunk, off, CHUNK, 62);
		ASSERT_EQ(0, iop_pwrite_all(nb, chunk, CHUNK, off));
	}
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, fsync(nb));
	ASSERT_LT(0, iop_fiemap(fd, 0, SWAP_SIZE, &f));
	/*
	 * The layout is the allocator's to make: where it did not put nb's
	 * blocks right after the swap file's first extent (7.2.13's ext4
	 * with 1 KiB blocks, once), what the test looks at is not there.
	 */
	if (!nb_starts_at(nb, f.ext[0].fe_physical + f.ext[0].fe_length)) {
		/* closed first: an open file keeps the scratch from unmounting */
		close(fd);
		close(nb);
		SKIP(return, "no layout: the swap file's first extent [%llu, +%llu) is not followed by the other file's blocks",
		     (unsigned long long)f.ext[0].fe_physical,
		     (unsigned long long)f.ext[0].fe_length);
	}
	close(fd);

	snprintf(self->active, sizeof(self->active), "%s/swap", self->fs.scratch->mnt);
	/* the highest priority: the memory below goes to this file */
	if (swapon(self->active, SWAP_FLAG_PREFER | SWAP_FLAG_PRIO_MASK)) {
		ret = errno;
		self->active[0] = '\0';
		if (iop_errno_means_absent(ret))
			SKIP(return, "swapon: %s", strerror(ret));
		ASSERT_EQ(0, ret) TH_LOG("swapon: %s", strerror(ret));
	}
	anon = mmap(NULL, ANON, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, anon);
	/* base pages: a huge page may be split or kept whole, as reclaim likes */
	madvise(anon, ANON, MADV_NOHUGEPAGE);
	iop_pattern_fill(anon, 0, ANON, 63);
	ASSERT_EQ(0, madvise(anon, ANON, MADV_PAGEOUT)) TH_LOG("MADV_PAGEOUT: %s", strerror(errno));
	pmfd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, pmfd) TH_LOG("/proc/self/pagemap: %s", strerror(errno));
	for (off = 0; off < ANON; off += self->page) {
		if (pread(pmfd, &pm, sizeof(pm), ((uintptr_t)anon + off) / self->page * sizeof(pm)) !=
		    sizeof(pm))
			break;
		swapped += (pm >> 62) & 1;
	}
	close(pmfd);
	ASSERT_LT(0, swapped) TH_LOG("MADV_PAGEOUT swapped out none of %d pages", ANON / (int)self->page);
	/* swapoff reads every page back; the writes are done by then */
	ASSERT_EQ(0, swapoff(self->active)) TH_LOG("swapoff: %s", strerror(errno));
	self->active[0] = '\0';

	for (off = 0; off < ANON; off += CHUNK) {
		iop_pattern_fill(chunk, off, CHUNK, 63);
		if (memcmp(anon + off, chunk, CHUNK))
			break;
	}
	EXPECT_EQ(ANON, off) TH_LOG("swapped memory read back wrong in [%llu, +%d)",
				    (unsigned long long)off, CHUNK);
	for (off = 0; off < SWAP_SIZE; off += CHUNK) {
		iop_pattern_fill(chunk, off, CHUNK, 62);
		ret = iop_pread_all(nb, back, CHUNK, off);
		if (ret || memcmp(back, chunk, CHUNK))
			break;
	}
	EXPECT_EQ(SWAP_SIZE, off)
		TH_LOG("after %llu pages went to swap, the other file differs in [%llu, +%d)%s%s",
		       (unsigned long long)swapped, (unsigned long long)off, CHUNK,
		       ret ? ": " : "", ret ? strerror(-ret) : "");
	munmap(anon, ANON);
	close(nb);
	free(back);
	free(chunk);
}

TEST_HARNESS_MAIN
