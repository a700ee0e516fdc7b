// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A reader blocked on an empty pipe wakes up when splice(2), vmsplice(2)
 * or tee(2) puts data into the pipe.
 *
 * These calls add buffers to the pipe directly, not through pipe_write(),
 * so each has to wake the pipe's readers itself (wakeup_pipe_readers():
 * a file spliced into a pipe, user pages vmspliced, a pipe spliced or
 * teed into another). A reader that is not woken sleeps until some later
 * write, however long, with the data already in the pipe.
 *
 * Each case starts a thread that blocks in read(2) on the empty pipe,
 * fills the pipe one of the four ways, and waits up to five seconds for
 * the reader to return the bytes; a reader still asleep then is woken by
 * a plain write so that the test can end.
 *
 * The bug it catches: the wake-up given only when no reader waits
 * (81-splice-wakes-readers-only-when-none-wait, generated sample 4's
 * 038-negate-wakeup_pipe_readers).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"
#include "clock.h"

#define LEN		4096
#define WAKE_NS		(5ull * 1000 * 1000 * 1000)

enum fill { FILL_SPLICE_FILE, FILL_VMSPLICE, FILL_SPLICE_PIPE, FILL_TEE };

static const char *const fill_name[] = {
	"splice from a file", "vmsplice", "splice from a pipe", "tee",
};

struct reader {
	int fd;
	uint8_t buf[LEN];
	ssize_t n;
	int done;		/* set (atomically) when read(2) returned */
};

static void *read_once(void *arg)
{
	struct reader *r = arg;

	r->n = read(r->fd, r->buf, LEN);
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

FIXTURE(splice_wakeup) {
	struct iop_test_fs fs;
	int file;
	int p[2];	/* the pipe the reader waits on */
	int q[2];	/* the source pipe of splice and tee */
};

FIXTURE_VARIANT(splice_wakeup) {
	IOP_FS_VARIANT_FIELDS;
};

FIXTURE_VARIANT_ADD(splice_wakeup, ext4) { IOP_FS_EXT4 };

FIXTURE_SETUP(splice_wakeup)
{
	self->file = -1;
	self->p[0] = -1;
	self->p[1] = -1;
	self->q[0] = -1;
	self->q[1] = -1;
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(splice_wakeup)
{
	IOP_CLOSE_FDS(self->file, self->p[0], self->p[1], self->q[0], self->q[1]);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/* Put LEN bytes of @src into the pipe @self->p the way @how says. */
static ssize_t fill(FIXTURE_DATA(splice_wakeup) *self, enum fill how, uint8_t *src)
{
	struct iovec iov = { .iov_base = src, .iov_len = LEN };
	loff_t off = 0;

	switch (how) {
	case FILL_SPLICE_FILE:
		return splice(self->file, &off, self->p[1], NULL, LEN, 0);
	case FILL_VMSPLICE:
		return vmsplice(self->p[1], &iov, 1, 0);
	case FILL_SPLICE_PIPE:
		if (write(self->q[1], src, LEN) != LEN)
			return -1;
		return splice(self->q[0], NULL, self->p[1], NULL, LEN, 0);
	case FILL_TEE:
		if (write(self->q[1], src, LEN) != LEN)
			return -1;
		return tee(self->q[0], self->p[1], LEN, 0);
	}
	return -1;
}

TEST_F(splice_wakeup, blocked_reader_wakes_when_the_pipe_is_filled)
{
	static uint8_t src[LEN];
	struct reader r;
	pthread_t t;
	uint64_t start;
	unsigned int how;
	ssize_t n;

	IOP_TEST_BEGIN(&self->fs);
	memset(src, 0x5c, sizeof(src));
	self->file = iop_open_at(self->fs.scratch->mnt, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW,
				 0600);
	ASSERT_LE(0, self->file) TH_LOG("create f: %s", strerror(-self->file));
	ASSERT_EQ(0, iop_pwrite_all(self->file, src, LEN, 0));

	for (how = FILL_SPLICE_FILE; how <= FILL_TEE; how++) {
		IOP_CLOSE_FDS(self->p[0], self->p[1], self->q[0], self->q[1]);
		ASSERT_EQ(0, pipe(self->p));
		ASSERT_EQ(0, pipe(self->q));
		memset(&r, 0, sizeof(r));
		r.fd = self->p[0];
		ASSERT_EQ(0, pthread_create(&t, NULL, read_once, &r));
		/* let the reader reach its sleep in read(2) */
		usleep(200 * 1000);
		EXPECT_EQ(0, __atomic_load_n(&r.done, __ATOMIC_ACQUIRE));

		n = fill(self, how, src);
		EXPECT_EQ(LEN, n) TH_LOG("%s into the pipe: %s", fill_name[how],
					 n < 0 ? strerror(errno) : "short");
		start = iop_now_ns();
		while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE) && iop_now_ns() - start < WAKE_NS)
			usleep(1000);
		EXPECT_EQ(1, __atomic_load_n(&r.done, __ATOMIC_ACQUIRE))
			TH_LOG("the reader still sleeps 5 s after %s put %d bytes in its pipe",
			       fill_name[how], LEN);
		if (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE))
			ASSERT_EQ(1, write(self->p[1], "x", 1));	/* wakes it */
		ASSERT_EQ(0, pthread_join(t, NULL));
		EXPECT_LT(0, r.n) TH_LOG("read after %s: %s", fill_name[how],
					 r.n < 0 ? strerror(errno) : "EOF");
		EXPECT_EQ(0x5c, r.buf[0]);
	}
}

TEST_HARNESS_MAIN
