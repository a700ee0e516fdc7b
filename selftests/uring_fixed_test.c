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
 * The bug it catches: a registration that loses the buffer's offset in
 * its first page, so every fixed read and write is shifted by it
 * (68-io-uring-fixed-buffer-offset-lost, generated sample 3's
 * 022-drop-stmt-io_sqe_buffer_register).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

TEST_HARNESS_MAIN
