// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * io_uring's registered (fixed) buffers: a buffer registered at any
 * address moves the bytes at that address.
 *
 * io_sqe_buffer_register() pins the buffer's pages and describes them as
 * bio_vecs, the first one starting at the buffer's offset in its page;
 * READ_FIXED and WRITE_FIXED then import a range of it as an ITER_BVEC
 * (io_import_fixed()). The suite's other fixed-buffer I/O registers
 * page-aligned buffers, where that first offset is 0 either way. Here the
 * buffer starts 1, 512 and 4095 bytes into a page and spans several
 * pages; WRITE_FIXED from every part of it (its start, the middle of its
 * first page, across a page boundary) must write the bytes at those
 * addresses, and READ_FIXED into it must put the file's bytes there and
 * nowhere before them.
 *
 * Registering pins the buffer's pages (FOLL_PIN); unregistering must
 * unpin every one, or the pages can never be freed, migrated or written
 * back cleanly. The kernel counts pins taken and released
 * (/proc/vmstat nr_foll_pin_acquired and nr_foll_pin_released): their
 * difference must not grow by a registration that was undone.
 *
 * The bugs it catches: a registration that loses the buffer's offset in
 * its first page, so every fixed read and write is shifted by it
 * (68-io-uring-fixed-buffer-offset-lost, generated sample 3's
 * 022-drop-stmt-io_sqe_buffer_register); an unregistration that unpins
 * none of the pages (74-io-uring-unregister-keeps-pins, generated sample
 * 4's 001-relop-io_release_ubuf).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#ifdef HAVE_LIBURING
#include <liburing.h>
#include "uring_helpers.h"
#endif

#include "iopath_test.h"
#include "iomap_layout.h"

#define PAGE	4096
#define BUF_LEN	(3 * PAGE)		/* the registered length */
#define AREA	(BUF_LEN + 2 * PAGE)	/* what it is carved from */
#define GUARD	0x5a			/* the bytes around it */

FIXTURE(uring_fixed) {
	struct iop_test_fs fs;
	int fd;
	uint8_t *area;
};

FIXTURE_VARIANT(uring_fixed) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(uring_fixed);

FIXTURE_SETUP(uring_fixed)
{
	self->fd = -1;
	self->area = iop_alloc_aligned(AREA);
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(uring_fixed)
{
	IOP_CLOSE_FDS(self->fd);
	free(self->area);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

#ifdef HAVE_LIBURING
/* The parts of the buffer each write and read uses: offset into it, length. */
static const struct { unsigned int at, len; } parts[] = {
	{ 0, 100 },
	{ 700, 1000 },
	{ PAGE - 300, 600 },		/* across the first page boundary */
	{ 0, BUF_LEN },
};

/* Is every byte of @p[0, @len) @v? */
static bool all_are(const uint8_t *p, size_t len, uint8_t v)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != v)
			return false;
	return true;
}
#endif

TEST_F(uring_fixed, buffers_registered_inside_a_page_move_their_own_bytes)
{
#ifdef HAVE_LIBURING
	static const unsigned int starts[] = { 1, 512, PAGE - 1 };
	struct io_uring ring;
	uint8_t *buf, want[BUF_LEN];
	unsigned int s, p;
	char why[256];
	uint64_t off;
	int ret;

	IOP_TEST_BEGIN(&self->fs);
	ASSERT_NE(NULL, self->area);
	if (iop_probe("io_uring", why, sizeof(why)) <= 0)
		SKIP(return, "%s", why);
	self->fd = iop_open_at(self->fs.scratch->mnt, "fixed",
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(-self->fd));
	ASSERT_EQ(0, ftruncate(self->fd, 16 * PAGE));

	for (s = 0; s < ARRAY_SIZE(starts); s++) {
		buf = self->area + PAGE + starts[s];
		ret = t_ring_with_buffer(&ring, 4, buf, BUF_LEN);
		ASSERT_EQ(0, ret) TH_LOG("register a buffer %u bytes into a page: %s", starts[s],
					 strerror(-ret));
		for (p = 0; p < ARRAY_SIZE(parts); p++) {
			off = (uint64_t)(s * ARRAY_SIZE(parts) + p) * 4 * PAGE % (12 * PAGE);
			memset(self->area, GUARD, AREA);
			iop_pattern_fill(buf + parts[p].at, off, parts[p].len, 68 + s * 8 + p);
			memcpy(want, buf + parts[p].at, parts[p].len);
			ret = t_rw_fixed(&ring, self->fd, 0, true, buf + parts[p].at,
					 parts[p].len, off);
			EXPECT_EQ((int)parts[p].len, ret)
				TH_LOG("WRITE_FIXED of %u at buffer + %u (registered %u into a page): %d",
				       parts[p].len, parts[p].at, starts[s], ret);
			ASSERT_EQ(0, iop_pread_all(self->fd, self->area, parts[p].len, off));
			EXPECT_EQ(0, iop_model_compare(self->area, want, 0, parts[p].len, why,
						       sizeof(why)))
				TH_LOG("the file after WRITE_FIXED from buffer + %u (registered %u into a page): %s",
				       parts[p].at, starts[s], why);

			/* and back into the buffer, the bytes around it untouched */
			memset(self->area, GUARD, AREA);
			ret = t_rw_fixed(&ring, self->fd, 0, false, buf + parts[p].at,
					 parts[p].len, off);
			EXPECT_EQ((int)parts[p].len, ret)
				TH_LOG("READ_FIXED of %u into buffer + %u: %d", parts[p].len,
				       parts[p].at, ret);
			EXPECT_EQ(0, iop_model_compare(buf + parts[p].at, want, 0, parts[p].len,
						       why, sizeof(why)))
				TH_LOG("READ_FIXED into buffer + %u (registered %u into a page): %s",
				       parts[p].at, starts[s], why);
			EXPECT_TRUE(all_are(self->area, PAGE + starts[s] + parts[p].at, GUARD))
				TH_LOG("READ_FIXED into buffer + %u wrote before it", parts[p].at);
		}
		io_uring_queue_exit(&ring);
	}
#else
	SKIP(return, IOP_NO_LIBURING);
#endif
}

/*
 * Pins held, all of the machine's: nr_foll_pin_acquired minus
 * nr_foll_pin_released, the per-CPU deltas folded in first
 * (vm.stat_refresh) so that the two are exact. -ENOENT: the kernel does
 * not count pins.
 */
static long long pins_held(void)
{
	long long acquired = -1, released = -1, v;
	char name[64];
	FILE *f;
	int fd;

	fd = open("/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);
	/* without it the counters are only less exact: the margin allows for that */
	if (fd >= 0) {
		ssize_t n = write(fd, "1", 1);

		(void)n;
		close(fd);
	}
	f = fopen("/proc/vmstat", "re");
	if (!f)
		return -errno;
	while (fscanf(f, "%63s %lld", name, &v) == 2) {
		if (!strcmp(name, "nr_foll_pin_acquired"))
			acquired = v;
		else if (!strcmp(name, "nr_foll_pin_released"))
			released = v;
	}
	fclose(f);
	return acquired < 0 || released < 0 ? -ENOENT : acquired - released;
}

FIXTURE(uring_pins) {
	struct iop_test_fs fs;	/* no filesystem: the kernel log check */
};

FIXTURE_SETUP(uring_pins)
{
	memset(&self->fs, 0, sizeof(self->fs));
	iop_test_kmsg_mark(&self->fs);
}

FIXTURE_TEARDOWN(uring_pins)
{
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

#define PIN_PAGES	2048	/* 8 MiB of base pages: far above the counters' noise */

TEST_F(uring_pins, unregistering_a_buffer_releases_every_page_pin)
{
#ifdef HAVE_LIBURING
	size_t len = (size_t)PIN_PAGES * PAGE;
	long long before, during, after;
	struct io_uring ring;
	char why[256];
	uint8_t *buf;
	int ret;

	if (iop_probe("io_uring", why, sizeof(why)) <= 0)
		SKIP(return, "%s", why);
	if (pins_held() == -ENOENT)
		SKIP(return, "the kernel does not count page pins (no nr_foll_pin_acquired)");
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	/* base pages, one pin each: no huge page folds them into a few */
	madvise(buf, len, MADV_NOHUGEPAGE);
	memset(buf, 0x5a, len);
	before = pins_held();
	ret = t_ring_with_buffer(&ring, 4, buf, len);
	ASSERT_EQ(0, ret) TH_LOG("register %zu bytes: %s", len, strerror(-ret));
	during = pins_held();
	EXPECT_EQ(0, io_uring_unregister_buffers(&ring));
	after = pins_held();
	io_uring_queue_exit(&ring);
	munmap(buf, len);
	ASSERT_LE(0, before);
	/* the positive control: the registration is seen to pin */
	EXPECT_LE(before + PIN_PAGES / 2, during)
		TH_LOG("registering %d pages moved the pins held from %lld to %lld", PIN_PAGES,
		       before, during);
	EXPECT_GT(before + PIN_PAGES / 2, after)
		TH_LOG("pins held: %lld before the registration, %lld with it, %lld after it was undone",
		       before, during, after);
#else
	SKIP(return, IOP_NO_LIBURING);
#endif
}

TEST_HARNESS_MAIN
