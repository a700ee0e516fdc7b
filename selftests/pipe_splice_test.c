// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * splice(2) and tee(2) from one pipe to another move (or copy) what the
 * input pipe holds and no more, then return, while the input's write end
 * is still open.
 *
 * Both walk the input pipe's ring of buffers from its tail to its head
 * (splice_pipe_to_pipe(), link_pipe()). Asked for more than the input
 * holds, they stop at the head: with bytes moved they return them, with
 * none and SPLICE_F_NONBLOCK they return EAGAIN. A walk that goes past
 * the head takes slots that hold no buffer (or one already given away)
 * as buffers: the output pipe fills with empty or stale buffers, the
 * input's tail passes its head, and the next read of either pipe finds
 * them.
 *
 * Each case puts 100 bytes in the input, asks for 64 KiB, and then reads
 * both pipes without blocking: the output holds the 100 bytes and nothing
 * more, the input what tee left in it and nothing more, and a write to
 * the input and a read of it still work.
 *
 * The bug it catches: splice between pipes that goes on while the input
 * is empty (114-splice-pipe-walks-past-the-head, generated sample 8's
 * 009-call-zero-splice_pipe_to_pipe).
 *
 * They stop as well where the output pipe is full: with room for one
 * buffer in the output (F_SETPIPE_SZ of a page) and four in the input,
 * each moves or copies one buffer and returns its length. A tee that does
 * not stop there writes every input buffer into the output's one slot,
 * over the one before, and returns them all (115-tee-overruns-a-full-
 * pipe, generated sample 8's 021-call-zero-link_pipe).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "iopath_test.h"
#include "iomap_layout.h"

#define HELD	100
#define ASKED	(64 << 10)

FIXTURE(pipe_splice) {
	struct iop_test_fs fs;
	int in[2];
	int out[2];
};

FIXTURE_VARIANT(pipe_splice) {
	IOP_FS_VARIANT_FIELDS;
};

/* no file is spliced: the scratch filesystem is for the after-test checks */
FIXTURE_VARIANT_ADD(pipe_splice, ext4) { IOP_FS_EXT4 };

FIXTURE_SETUP(pipe_splice)
{
	self->in[0] = -1;
	self->in[1] = -1;
	self->out[0] = -1;
	self->out[1] = -1;
	iop_test_fs_setup(&self->fs, variant->fstype, variant->mkfs_opts, variant->mount_opts);
}

FIXTURE_TEARDOWN(pipe_splice)
{
	IOP_CLOSE_FDS(self->in[0], self->in[1], self->out[0], self->out[1]);
	IOP_TEST_FS_TEARDOWN(&self->fs);
}

/*
 * Read what fd holds without blocking into buf (at most len + 1 bytes):
 * the byte count, or -errno of the first read.
 */
static ssize_t drain(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got <= len) {
		n = read(fd, buf + got, len + 1 - got);
		if (n < 0)
			return errno == EAGAIN ? (ssize_t)got : -errno;
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

TEST_F(pipe_splice, splice_and_tee_stop_at_what_an_open_pipe_holds)
{
	static const char *const how[] = { "splice", "tee" };
	uint8_t src[HELD], got[HELD + 1];
	unsigned int i;
	ssize_t n;

	IOP_TEST_BEGIN(&self->fs);
	iop_pattern_fill(src, 0, HELD, 91);
	for (i = 0; i < 2; i++) {
		IOP_CLOSE_FDS(self->in[0], self->in[1], self->out[0], self->out[1]);
		ASSERT_EQ(0, pipe2(self->in, O_NONBLOCK));
		ASSERT_EQ(0, pipe2(self->out, O_NONBLOCK));

		/* empty, its write end open: nothing to move, and no EOF */
		n = i ? tee(self->in[0], self->out[1], ASKED, SPLICE_F_NONBLOCK) :
			splice(self->in[0], NULL, self->out[1], NULL, ASKED, SPLICE_F_NONBLOCK);
		EXPECT_EQ(-1, n) TH_LOG("%s from an empty pipe: %zd, not EAGAIN", how[i], n);
		EXPECT_EQ(EAGAIN, errno);

		ASSERT_EQ(HELD, write(self->in[1], src, HELD));
		n = i ? tee(self->in[0], self->out[1], ASKED, 0) :
			splice(self->in[0], NULL, self->out[1], NULL, ASKED, 0);
		EXPECT_EQ(HELD, n) TH_LOG("%s of %d from a pipe holding %d: %zd (%s)", how[i],
					  ASKED, HELD, n, n < 0 ? strerror(errno) : "bytes");

		n = drain(self->out[0], got, HELD);
		EXPECT_EQ(HELD, n) TH_LOG("after %s, the output pipe reads %zd bytes (%s), %d went in",
					  how[i], n, n < 0 ? strerror(-n) : "bytes", HELD);
		EXPECT_EQ(0, memcmp(got, src, HELD)) TH_LOG("after %s, the output differs", how[i]);

		/* tee leaves the input as it was; splice empties it */
		n = drain(self->in[0], got, HELD);
		EXPECT_EQ(i ? HELD : 0, n)
			TH_LOG("after %s, the input pipe reads %zd bytes (%s)", how[i], n,
			       n < 0 ? strerror(-n) : "bytes");
		if (i)
			EXPECT_EQ(0, memcmp(got, src, HELD)) TH_LOG("after tee, the input differs");

		/* the input's ring is whole: a write and a read go through it */
		EXPECT_EQ(HELD, write(self->in[1], src, HELD))
			TH_LOG("write to the input after %s: %s", how[i], strerror(errno));
		n = drain(self->in[0], got, HELD);
		EXPECT_EQ(HELD, n) TH_LOG("the input after %s and a write reads %zd bytes", how[i],
					  n);
	}
}

#define CHUNK	4096
#define CHUNKS	4

TEST_F(pipe_splice, splice_and_tee_stop_where_the_output_pipe_is_full)
{
	static const char *const how[] = { "splice", "tee" };
	uint8_t src[CHUNKS][CHUNK], got[CHUNK * CHUNKS + 1];
	unsigned int i, c;
	ssize_t n;
	int sz;

	IOP_TEST_BEGIN(&self->fs);
	for (c = 0; c < CHUNKS; c++)
		iop_pattern_fill(src[c], (uint64_t)c * CHUNK, CHUNK, 92);
	for (i = 0; i < 2; i++) {
		IOP_CLOSE_FDS(self->in[0], self->in[1], self->out[0], self->out[1]);
		ASSERT_EQ(0, pipe2(self->in, O_NONBLOCK));
		ASSERT_EQ(0, pipe2(self->out, O_NONBLOCK));
		/* the output takes one buffer: the least a pipe can have */
		sz = fcntl(self->out[1], F_SETPIPE_SZ, CHUNK);
		ASSERT_EQ(CHUNK, sz) TH_LOG("F_SETPIPE_SZ %d: %d (%s)", CHUNK, sz,
					    sz < 0 ? strerror(errno) : "size");
		/* a write of a whole page each: a buffer each */
		for (c = 0; c < CHUNKS; c++)
			ASSERT_EQ(CHUNK, write(self->in[1], src[c], CHUNK));

		n = i ? tee(self->in[0], self->out[1], ASKED, SPLICE_F_NONBLOCK) :
			splice(self->in[0], NULL, self->out[1], NULL, ASKED, SPLICE_F_NONBLOCK);
		EXPECT_EQ(CHUNK, n)
			TH_LOG("%s of %d from %d buffers into a pipe with room for one: %zd (%s)",
			       how[i], ASKED, CHUNKS, n, n < 0 ? strerror(errno) : "bytes");

		n = drain(self->out[0], got, sizeof(got) - 1);
		EXPECT_EQ(CHUNK, n) TH_LOG("after %s, the output pipe reads %zd bytes (%s)",
					   how[i], n, n < 0 ? strerror(-n) : "bytes");
		EXPECT_EQ(0, memcmp(got, src[0], CHUNK))
			TH_LOG("after %s, the output is not the input's first buffer", how[i]);

		/* tee leaves the input whole; splice took its first buffer */
		n = drain(self->in[0], got, sizeof(got) - 1);
		EXPECT_EQ((ssize_t)(i ? CHUNKS : CHUNKS - 1) * CHUNK, n)
			TH_LOG("after %s, the input pipe reads %zd bytes (%s)", how[i], n,
			       n < 0 ? strerror(-n) : "bytes");
		for (c = i ? 0 : 1; n > 0 && c < CHUNKS; c++)
			EXPECT_EQ(0, memcmp(got + (c - !i) * CHUNK, src[c], CHUNK))
				TH_LOG("after %s, buffer %u of the input differs", how[i], c);
	}
}

TEST_HARNESS_MAIN
