// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A write-back error reaches fsync(2): once on every descriptor that was
 * open when it happened, never on one opened after it.
 *
 * Data written with write(2) reaches the device later, in write-back; when
 * that write fails, the error is kept in the file's address space
 * (mapping_set_error() -> errseq_set() on mapping->wb_err) and the next
 * fsync or fdatasync of each open file reports it, once
 * (file_check_and_advance_wb_err()): the "fsyncgate" contract that
 * databases rely on, as fstests' generic/441 and generic/442 check it with
 * dm-error. Here the device's failure comes from the block layer's fault
 * injection (CONFIG_FAIL_MAKE_REQUEST): the scratch device's make-it-fail
 * and fail_make_request set to fail exactly one request, the first after
 * the data is dirtied, which is the data's own write-back.
 *
 * The bug it catches: an error recorded nowhere fsync looks, so fsync
 * returns 0 for data that never reached the device (111-wb-error-never-
 * recorded, generated sample 7's 036-call-arg-__filemap_set_wb_err: the
 * errseq value taken from the field's address, errseq_set() never called).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"

#define SPAN		(64 * 1024)
#define FMR		"/sys/kernel/debug/fail_make_request/"

/* The fault attributes the test sets, restored after it. */
static const char *const fmr_attr[] = { "probability", "interval", "times", "verbose" };
static const char *const fmr_armed[] = { "100", "1", "1", "0" };

FIXTURE(wb_error) {
	struct iop_test_fs fs;
	int fd, fd2, fd3;
	bool saved, armed;
	char old[ARRAY_SIZE(fmr_attr)][32];
	char make_it_fail[PATH_MAX];
};

FIXTURE_VARIANT(wb_error) {
	IOP_FS_VARIANT_FIELDS;
};

IOP_IOMAP_FS_VARIANTS(wb_error);

/* Read the first line of @path into @buf (@len bytes): 0 or -errno. */
static int get(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * The device made healthy and the global knobs put back as they were:
 * 0, or the first -errno (every step is tried even after one fails).
 */
static int disarm(FIXTURE_DATA(wb_error) *self)
{
	char path[PATH_MAX];
	int ret = 0, err;
	size_t i;

	if (self->armed)
		ret = iop_knob_set(self->make_it_fail, "0");
	self->armed = false;
	if (!self->saved)
		return ret;
	for (i = 0; i < ARRAY_SIZE(fmr_attr); i++) {
		snprintf(path, sizeof(path), FMR "%s", fmr_attr[i]);
		err = iop_knob_set(path, self->old[i]);
		if (!ret)
			ret = err;
	}
	self->saved = false;
	return ret;
}

FIXTURE_SETUP(wb_error)
{
	self->fd = -1;
	self->fd2 = -1;
	self->fd3 = -1;
	self->saved = false;
	self->armed = false;
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(wb_error)
{
	disarm(self);
	IOP_CLOSE_FDS(self->fd, self->fd2, self->fd3);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

TEST_F(wb_error, an_error_in_writeback_reaches_fsync_once_on_every_open_file)
{
	char path[PATH_MAX], why[256];
	uint8_t *buf;
	int ret, undo;
	size_t i;

	IOP_TEST_BEGIN(&self->fs);
	if (iop_probe("fail_make_request", why, sizeof(why)) == 0)
		SKIP(return, "%s", why);
	ASSERT_LT(0, snprintf(self->make_it_fail, sizeof(self->make_it_fail),
			      "/sys/class/block/%s/make-it-fail", iop_dev_name(self->fs.scratch->dev)));
	/* the kernel has it; its controls missing is our setup's failure */
	for (i = 0; i < ARRAY_SIZE(fmr_attr); i++) {
		snprintf(path, sizeof(path), FMR "%s", fmr_attr[i]);
		ret = get(path, self->old[i], sizeof(self->old[i]));
		ASSERT_EQ(0, ret) TH_LOG("%s: %s (debugfs not mounted?)", path, strerror(-ret));
	}
	ret = get(self->make_it_fail, why, sizeof(why));
	ASSERT_EQ(0, ret) TH_LOG("%s: %s", self->make_it_fail, strerror(-ret));

	self->fd = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
			       0600);
	ASSERT_LE(0, self->fd) TH_LOG("create: %s", strerror(-self->fd));
	buf = iop_alloc_aligned(SPAN);
	ASSERT_NE(NULL, buf);
	iop_pattern_fill(buf, 0, SPAN, 91);
	ret = iop_pwrite_all(self->fd, buf, SPAN, 0);
	ASSERT_EQ(0, ret) TH_LOG("write: %s", strerror(-ret));
	ASSERT_EQ(0, fsync(self->fd)) TH_LOG("fsync: %s", strerror(errno));
	self->fd2 = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_NOFOLLOW, 0);
	ASSERT_LE(0, self->fd2) TH_LOG("open again: %s", strerror(-self->fd2));
	/* nothing else of the filesystem's is left to write */
	ASSERT_EQ(0, syncfs(self->fd)) TH_LOG("syncfs: %s", strerror(errno));

	/* an overwrite: dirty page cache over allocated blocks, no new metadata */
	iop_pattern_fill(buf, 0, SPAN, 92);
	ret = iop_pwrite_all(self->fd, buf, SPAN, 0);
	free(buf);
	ASSERT_EQ(0, ret) TH_LOG("overwrite: %s", strerror(-ret));

	self->saved = true;
	for (i = 0; i < ARRAY_SIZE(fmr_attr); i++) {
		snprintf(path, sizeof(path), FMR "%s", fmr_attr[i]);
		ret = iop_knob_set(path, fmr_armed[i]);
		ASSERT_EQ(0, ret) TH_LOG("%s = %s: %s", path, fmr_armed[i], strerror(-ret));
	}
	self->armed = true;
	ret = iop_knob_set(self->make_it_fail, "1");
	ASSERT_EQ(0, ret) TH_LOG("%s = 1: %s", self->make_it_fail, strerror(-ret));
	ret = fdatasync(self->fd) ? errno : 0;
	undo = disarm(self);
	ASSERT_EQ(0, undo) TH_LOG("putting the fault-injection knobs back: %s", strerror(-undo));
	EXPECT_EQ(EIO, ret) TH_LOG("fdatasync over a failed write-back: %s",
				   ret ? strerror(ret) : "0, the error lost");

	/* reported once per open file, and to each that was open */
	ret = fdatasync(self->fd) ? errno : 0;
	EXPECT_EQ(0, ret) TH_LOG("fdatasync again on the same descriptor: %s", strerror(ret));
	ret = fdatasync(self->fd2) ? errno : 0;
	EXPECT_EQ(EIO, ret) TH_LOG("fdatasync on a descriptor open before the error: %s",
				   ret ? strerror(ret) : "0, the error lost");
	ret = fdatasync(self->fd2) ? errno : 0;
	EXPECT_EQ(0, ret) TH_LOG("fdatasync again on that descriptor: %s", strerror(ret));
	self->fd3 = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_NOFOLLOW, 0);
	ASSERT_LE(0, self->fd3) TH_LOG("open after the error: %s", strerror(-self->fd3));
	ret = fdatasync(self->fd3) ? errno : 0;
	EXPECT_EQ(0, ret) TH_LOG("fdatasync on a descriptor opened after the error: %s",
				 strerror(ret));
}

TEST_HARNESS_MAIN
