// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pages reclaimed from a file read back as the file's data.
 *
 * Reclaim takes a clean page-cache folio out and leaves a shadow entry
 * in its place (workingset_eviction(), for refault detection); the next
 * read of that index meets the shadow, not a folio, and must read the
 * data again from disk (filemap_get_read_batch() stops at the value
 * entry, filemap_create_folio() replaces it). Eviction by
 * POSIX_FADV_DONTNEED or truncate leaves no shadow, so the rest of the
 * suite never reads over one; madvise(MADV_PAGEOUT) on a mapping of the
 * file reclaims its pages the way memory pressure does. The positive
 * control: cachestat(2) counts the shadows (nr_evicted) before the read.
 *
 * The bug it catches: a read that takes a shadow entry for a folio
 * (generated sample 5's 028-call-zero-filemap_get_read_batch: an oops on
 * the first one), or returns something other than the file's data.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"
#include "iop_cachestat.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

#define PAGE	4096
#define LEN	(64 * PAGE)

/* A shared read-only mapping of fd's first len bytes at a multiple of len. */
static uint8_t *map_at_len_alignment(int fd, size_t len)
{
	uint8_t *area, *at, *map;
	uintptr_t pad;

	area = mmap(NULL, 2 * len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return MAP_FAILED;
	pad = (len - (uintptr_t)area % len) % len;
	at = area + pad;
	map = mmap(at, len, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
	if (map == MAP_FAILED) {
		int err = errno;

		munmap(area, 2 * len);
		errno = err;
		return MAP_FAILED;
	}
	/* give back the reservation around the mapping */
	if (pad)
		munmap(area, pad);
	munmap(at + len, len - pad);
	return map;
}

FIXTURE(pageout) {
	struct iop_test_fs fs;
	int fd;
	uint8_t *buf;
	uint8_t *want;
};

FIXTURE_VARIANT(pageout) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(pageout);

FIXTURE_SETUP(pageout)
{
	self->fd = -1;
	self->buf = malloc(LEN);
	self->want = malloc(LEN);
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(pageout)
{
	IOP_CLOSE_FDS(self->fd);
	free(self->want);
	free(self->buf);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

TEST_F(pageout, reads_over_reclaimed_pages_return_the_file)
{
	struct cachestat_v1 cs;
	volatile uint8_t sum = 0;
	cpu_set_t cpus;
	uint8_t *map;
	size_t off;
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, self->buf);
	ASSERT_NE(NULL, self->want);
	/*
	 * A new folio reaches the LRU through a per-CPU batch, and
	 * MADV_PAGEOUT drains only its own CPU's batch (lru_add_drain() in
	 * madvise_pageout()) before it isolates: a folio still waiting in
	 * another CPU's batch is passed over. Writing and advising from one
	 * CPU puts every page within its reach, however busy the machine.
	 */
	ret = sched_getcpu();
	ASSERT_LE(0, ret) TH_LOG("sched_getcpu: %s", strerror(errno));
	CPU_ZERO(&cpus);
	CPU_SET(ret, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus))
		TH_LOG("pin to CPU %d: %s", ret, strerror(errno));
	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			       0600);
	ASSERT_LE(0, self->fd) TH_LOG("create f: %s", strerror(-self->fd));
	iop_pattern_fill(self->want, 0, LEN, 71);
	ASSERT_EQ(0, iop_pwrite_all(self->fd, self->want, LEN, 0));
	/* clean pages only: reclaim would write dirty ones back first */
	ASSERT_EQ(0, fsync(self->fd));

	/*
	 * The file may sit in one large folio. MADV_PAGEOUT reclaims a
	 * large folio only when one page table maps all of it; a mapping
	 * that straddles a PMD boundary makes it try a split instead, which
	 * fails on a mapped page-cache folio, and then nothing is reclaimed.
	 * mmap() places the mapping where ASLR says (one run in eight
	 * straddled), so place it at an address aligned to its length.
	 */
	map = map_at_len_alignment(self->fd, LEN);
	ASSERT_NE(MAP_FAILED, map) TH_LOG("mmap: %s", strerror(errno));
	for (off = 0; off < LEN; off += PAGE)
		sum += map[off];
	ret = madvise(map, LEN, MADV_PAGEOUT) ? errno : 0;
	munmap(map, LEN);
	/* the one probe: a kernel that does not know the advice (before 5.4) */
	if (ret == EINVAL)
		SKIP(return, "the kernel has no MADV_PAGEOUT");
	ASSERT_EQ(0, ret) TH_LOG("madvise(MADV_PAGEOUT): %s", strerror(ret));

	ret = iop_cachestat(self->fd, 0, LEN, &cs);
	if (ret == -ENOSYS)
		SKIP(return, "the kernel has no cachestat(2)");
	ASSERT_EQ(0, ret) TH_LOG("cachestat: %s", strerror(-ret));
	/* the positive control: reclaim left shadows where the pages were */
	ASSERT_LT(0, cs.nr_evicted)
		TH_LOG("after MADV_PAGEOUT: %llu pages cached, none evicted by reclaim",
		       (unsigned long long)cs.nr_cache);

	ASSERT_EQ(0, iop_pread_all(self->fd, self->buf, LEN, 0));
	EXPECT_EQ(0, memcmp(self->buf, self->want, LEN))
		TH_LOG("the file read over %llu reclaimed pages is not what was written",
		       (unsigned long long)cs.nr_evicted);
}

TEST_HARNESS_MAIN
