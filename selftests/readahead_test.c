// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Asking for readahead brings a file's range into the page cache, and the
 * pages it brings read back as the file's data.
 *
 * posix_fadvise(POSIX_FADV_WILLNEED), readahead(2) and
 * madvise(MADV_WILLNEED) on a file mapping all end in vfs_fadvise(...,
 * POSIX_FADV_WILLNEED): the filesystem's ->fadvise (XFS takes the inode's
 * IOLOCK around it, ext4 has none), then generic_fadvise() and
 * force_page_cache_readahead(). Every other test reads through the read
 * path's own readahead; these are the calls a database or a loader makes
 * to warm the cache before it reads. Each test evicts the range first
 * (the positive control: nothing of it is cached), asks for it, counts
 * the cached pages with cachestat(2), and reads the range back.
 *
 * The bug it catches: a ->fadvise that breaks WILLNEED (generated sample
 * 5's 047-call-zero-xfs_file_fadvise: the inode taken as NULL, an oops in
 * xfs_ilock()), readahead that caches nothing or the wrong pages.
 *
 * A page fault on a mapping of an uncached file reads the pages around
 * the faulting one with it (read-around: the device's read-ahead window,
 * centred on the fault), so that a program walking a mapped file does not
 * pay a fault and a read per page. The bug it catches: a fault that reads
 * its own page alone (124-mmap-fault-reads-no-window, generated sample
 * 9's 002-call-void-do_sync_mmap_readahead).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"
#include "iop_cachestat.h"

#define PAGE	4096
/* below the smallest readahead window a device gets (128 KiB by default) */
#define LEN	(16 * PAGE)

enum ra_call { RA_FADVISE, RA_READAHEAD, RA_MADVISE };

FIXTURE(readahead) {
	struct iop_test_fs fs;
	int fd;
	uint8_t *buf;
	uint8_t *want;
	char why[256];
};

FIXTURE_VARIANT(readahead) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(readahead);

FIXTURE_SETUP(readahead)
{
	self->fd = -1;
	self->buf = malloc(LEN);
	self->want = malloc(LEN);
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(readahead)
{
	IOP_CLOSE_FDS(self->fd);
	free(self->want);
	free(self->buf);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/* Pages of [off, off + len) in the page cache, or -errno. */
static int64_t cached_in(int fd, uint64_t off, uint64_t len)
{
	struct cachestat_v1 cs;
	int ret = iop_cachestat(fd, off, len, &cs);

	return ret ? ret : (int64_t)cs.nr_cache;
}

/* Pages of [0, LEN) in the page cache, or -errno. */
static int64_t cached_pages(int fd)
{
	return cached_in(fd, 0, LEN);
}

/* 0 or -errno of the readahead request @call over [0, LEN). */
static int ask_readahead(int fd, enum ra_call call)
{
	void *map;
	int ret;

	switch (call) {
	case RA_FADVISE:
		return -posix_fadvise(fd, 0, LEN, POSIX_FADV_WILLNEED);
	case RA_READAHEAD:
		return readahead(fd, 0, LEN) ? -errno : 0;
	case RA_MADVISE:
		map = mmap(NULL, LEN, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			return -errno;
		ret = madvise(map, LEN, MADV_WILLNEED) ? -errno : 0;
		munmap(map, LEN);
		return ret;
	}
	return -EINVAL;
}

static const char *const ra_name[] = {
	[RA_FADVISE] = "posix_fadvise(WILLNEED)",
	[RA_READAHEAD] = "readahead(2)",
	[RA_MADVISE] = "madvise(MADV_WILLNEED)",
};

/*
 * Write the file, evict it, ask for it with @call; then all of it is
 * cached and reads back as written.
 */
static void check_readahead(struct __test_metadata *_metadata, FIXTURE_DATA(readahead) *self,
			    enum ra_call call)
{
	int64_t before, after;
	int ret;

	ASSERT_NE(NULL, self->buf);
	ASSERT_NE(NULL, self->want);
	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			       0600);
	ASSERT_LE(0, self->fd) TH_LOG("create f: %s", strerror(-self->fd));
	iop_pattern_fill(self->want, 0, LEN, 51 + call);
	ASSERT_EQ(0, iop_pwrite_all(self->fd, self->want, LEN, 0));
	ASSERT_EQ(0, fsync(self->fd));
	ASSERT_EQ(0, posix_fadvise(self->fd, 0, LEN, POSIX_FADV_DONTNEED));
	before = cached_pages(self->fd);
	/* the one probe: a kernel without the system call */
	if (before == -ENOSYS)
		SKIP(return, "the kernel has no cachestat(2)");
	ASSERT_LE(0, before) TH_LOG("cachestat: %s", strerror((int)-before));
	/* the positive control: the range is out of the cache */
	ASSERT_EQ(0, before) TH_LOG("%lld pages still cached after fsync and DONTNEED",
				    (long long)before);

	ret = ask_readahead(self->fd, call);
	ASSERT_EQ(0, ret) TH_LOG("%s: %s", ra_name[call], strerror(-ret));
	after = cached_pages(self->fd);
	ASSERT_LE(0, after) TH_LOG("cachestat: %s", strerror((int)-after));
	EXPECT_EQ(LEN / PAGE, after)
		TH_LOG("%s over %d pages: %lld of them cached", ra_name[call], LEN / PAGE,
		       (long long)after);

	ASSERT_EQ(0, iop_pread_all(self->fd, self->buf, LEN, 0));
	EXPECT_EQ(0, memcmp(self->buf, self->want, LEN))
		TH_LOG("the range read after %s is not what was written", ra_name[call]);
}

TEST_F(readahead, fadvise_willneed_caches_the_range)
{
	IOP_TEST_BEGIN(&self->fs);
	check_readahead(_metadata, self, RA_FADVISE);
}

TEST_F(readahead, readahead_syscall_caches_the_range)
{
	IOP_TEST_BEGIN(&self->fs);
	check_readahead(_metadata, self, RA_READAHEAD);
}

TEST_F(readahead, madvise_willneed_on_a_mapping_caches_the_range)
{
	IOP_TEST_BEGIN(&self->fs);
	check_readahead(_metadata, self, RA_MADVISE);
}

#define AROUND_LEN	(256 * PAGE)	/* the mapped file */
#define FAULT_PAGE	128		/* the page touched, in its middle */

/* The read-ahead window of the device under fd, in pages, or -errno. */
static long ra_window(int fd)
{
	char path[96];
	struct stat st;
	long kb;

	if (fstat(fd, &st))
		return -errno;
	snprintf(path, sizeof(path), "/sys/class/bdi/%u:%u/read_ahead_kb", major(st.st_dev),
		 minor(st.st_dev));
	kb = iop_knob_long(path);
	return kb < 0 ? kb : kb * 1024 / PAGE;
}

TEST_F(readahead, fault_on_a_mapping_reads_the_pages_around_it)
{
	int64_t before, after;
	volatile uint8_t *map;
	long ra;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, self->buf);
	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			       0600);
	ASSERT_LE(0, self->fd) TH_LOG("create f: %s", strerror(-self->fd));
	ra = ra_window(self->fd);
	ASSERT_LE(0, ra) TH_LOG("the scratch device's read_ahead_kb: %s", strerror((int)-ra));
	ASSERT_LE(8, ra) TH_LOG("a read-ahead window of %ld pages leaves nothing to read around",
				ra);
	if (ra > FAULT_PAGE)
		ra = FAULT_PAGE;
	ASSERT_EQ(0, ftruncate(self->fd, AROUND_LEN));
	memset(self->buf, 0x3c, LEN);
	for (off_t off = 0; off < AROUND_LEN; off += LEN)
		ASSERT_EQ(0, iop_pwrite_all(self->fd, self->buf, LEN, (uint64_t)off));
	ASSERT_EQ(0, fsync(self->fd));
	ASSERT_EQ(0, posix_fadvise(self->fd, 0, AROUND_LEN, POSIX_FADV_DONTNEED));
	before = cached_in(self->fd, 0, AROUND_LEN);
	if (before == -ENOSYS)
		SKIP(return, "the kernel has no cachestat(2)");
	ASSERT_EQ(0, before) TH_LOG("%lld pages still cached after fsync and DONTNEED",
				    (long long)before);

	map = mmap(NULL, AROUND_LEN, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, map) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_EQ(0x3c, map[FAULT_PAGE * PAGE + 1]);
	munmap((void *)map, AROUND_LEN);
	/* the window centred on the fault, every page of it */
	after = cached_in(self->fd, (FAULT_PAGE - ra / 2) * PAGE, ra * PAGE);
	EXPECT_EQ(ra, after)
		TH_LOG("one fault at page %d with a read-ahead window of %ld pages: %lld of the %ld around it cached",
		       FAULT_PAGE, ra, (long long)after, ra);
}

TEST_HARNESS_MAIN
